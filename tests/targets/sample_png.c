/*
 * sample_png: a parser for a PNG-like chunked image format, used as a sample fuzzing target.
 * It reads the file named by argv[1], or stdin when there is no argument: an 8-byte signature,
 * then chunks of (u32 big-endian length, 4-byte type, data, CRC-32 over type and data). IHDR
 * (width, height, bit depth, colour type) comes first; PLTE, tRNS, bKGD, gAMA, pHYs, tIME, sBIT,
 * tEXt and acTL are understood; the IDAT chunks together hold one zlib stream of filtered
 * scanlines (filter byte per row: none, sub, up, average, paeth), inflated with zlib as real
 * decoders do, then unfiltered; IEND ends the stream. Critical chunks
 * (upper-case first letter) that are unknown or damaged are errors; ancillary ones are skipped.
 * Exit status 0 for a valid image, 1 for an invalid one, 2 when the input cannot be read.
 * Deterministic: no time, no randomness.
 *
 * Planted faults (for testing crash handling and reduction):
 *  - SIGSEGV: an sBIT chunk (valid CRC) before IHDR writes through the not-yet-set header pointer.
 *    Minimal trigger: signature + chunk(len 1, "sBIT", 08, crc).
 *  - heap-buffer-overflow read: a tEXt chunk (valid CRC) whose data has no NUL separator makes the
 *    text decoder read the compression-flag byte two bytes past the heap copy of the chunk data.
 *    The AddressSanitizer build reports "heap-buffer-overflow"; the plain build runs on normally.
 *    Minimal trigger: signature + chunk(len 1, "tEXt", 41, crc).
 *  - hang: an acTL chunk (valid CRC, 8 bytes) with an odd frame count and a play count of 0
 *    loops forever in the frame scheduler, which steps frames two at a time.
 *    Minimal trigger: signature + chunk(len 8, "acTL", 00000001 00000000, crc).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_INPUT (1u << 20)
#define MAX_PIXELS_BYTES (4u << 20)

static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a};

struct header {
    uint32_t width, height;
    uint8_t depth, colour, compression, filter, interlace;
    uint8_t sig_bits[4];
};

struct image {
    struct header hstore;
    struct header *hdr; /* set once IHDR was read */
    unsigned channels, bpp_bits;
    size_t row_bytes;
    uint8_t palette[256][3];
    unsigned palette_len;
    int have_plte, have_trns, have_bkgd, have_gama, have_time, have_phys, idat_done, in_idat;
    uint8_t *pixels; /* unfiltered rows, row_bytes * height */
    uint8_t *raw;    /* concatenated IDAT data */
    size_t raw_len, raw_cap;
    unsigned texts, warnings, frames;
};

static volatile uint32_t frame_sink;

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc32_of(const uint8_t *a, size_t n, const uint8_t *b, size_t m)
{
    uint32_t c = 0xffffffffu;
    for (size_t k = 0; k < n; k++)
        c = crc_table[(c ^ a[k]) & 0xff] ^ (c >> 8);
    for (size_t k = 0; k < m; k++)
        c = crc_table[(c ^ b[k]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int bad(const char *msg)
{
    fprintf(stderr, "sample_png: %s\n", msg);
    return -1;
}

static int ihdr(struct image *im, const uint8_t *d, uint32_t len)
{
    struct header *h = &im->hstore;
    if (im->hdr)
        return bad("duplicate IHDR");
    if (len != 13)
        return bad("IHDR length is not 13");
    h->width = be32(d);
    h->height = be32(d + 4);
    h->depth = d[8];
    h->colour = d[9];
    h->compression = d[10];
    h->filter = d[11];
    h->interlace = d[12];
    if (h->width == 0 || h->height == 0)
        return bad("zero image dimension");
    if (h->width > 0x7fffffffu || h->height > 0x7fffffffu)
        return bad("image dimension too large");
    switch (h->colour) {
    case 0:
        if (h->depth != 1 && h->depth != 2 && h->depth != 4 && h->depth != 8 && h->depth != 16)
            return bad("bad bit depth for greyscale");
        im->channels = 1;
        break;
    case 2:
        if (h->depth != 8 && h->depth != 16)
            return bad("bad bit depth for truecolour");
        im->channels = 3;
        break;
    case 3:
        if (h->depth != 1 && h->depth != 2 && h->depth != 4 && h->depth != 8)
            return bad("bad bit depth for indexed colour");
        im->channels = 1;
        break;
    case 4:
        if (h->depth != 8 && h->depth != 16)
            return bad("bad bit depth for greyscale with alpha");
        im->channels = 2;
        break;
    case 6:
        if (h->depth != 8 && h->depth != 16)
            return bad("bad bit depth for truecolour with alpha");
        im->channels = 4;
        break;
    default:
        return bad("unknown colour type");
    }
    if (h->compression != 0)
        return bad("unknown compression method");
    if (h->filter != 0)
        return bad("unknown filter method");
    if (h->interlace > 1)
        return bad("unknown interlace method");
    im->bpp_bits = im->channels * h->depth;
    im->row_bytes = ((uint64_t)h->width * im->bpp_bits + 7) / 8;
    if ((uint64_t)(im->row_bytes + 1) * h->height > MAX_PIXELS_BYTES)
        return bad("image too large");
    im->hdr = h;
    return 0;
}

static int plte(struct image *im, const uint8_t *d, uint32_t len)
{
    if (!im->hdr)
        return bad("PLTE before IHDR");
    if (im->have_plte)
        return bad("duplicate PLTE");
    if (im->raw_len || im->idat_done)
        return bad("PLTE after IDAT");
    if (len == 0 || len % 3 != 0 || len / 3 > 256)
        return bad("bad PLTE length");
    if (im->hdr->colour == 0 || im->hdr->colour == 4)
        return bad("PLTE not allowed for greyscale");
    if (im->hdr->colour == 3 && len / 3 > (1u << im->hdr->depth))
        return bad("palette larger than the bit depth allows");
    im->palette_len = len / 3;
    for (unsigned k = 0; k < im->palette_len; k++)
        memcpy(im->palette[k], d + 3 * k, 3);
    im->have_plte = 1;
    return 0;
}

static int trns(struct image *im, const uint8_t *d, uint32_t len)
{
    (void)d;
    if (!im->hdr)
        return bad("tRNS before IHDR");
    switch (im->hdr->colour) {
    case 0:
        if (len != 2)
            return bad("bad tRNS length for greyscale");
        break;
    case 2:
        if (len != 6)
            return bad("bad tRNS length for truecolour");
        break;
    case 3:
        if (!im->have_plte)
            return bad("tRNS before PLTE");
        if (len > im->palette_len)
            return bad("tRNS longer than the palette");
        break;
    default:
        return bad("tRNS not allowed with an alpha channel");
    }
    im->have_trns = 1;
    return 0;
}

static int bkgd(struct image *im, const uint8_t *d, uint32_t len)
{
    if (!im->hdr)
        return bad("bKGD before IHDR");
    if (im->hdr->colour == 3) {
        if (len != 1)
            return bad("bad bKGD length for indexed colour");
        if (d[0] >= im->palette_len)
            return bad("bKGD index outside the palette");
    } else if (im->hdr->colour == 0 || im->hdr->colour == 4) {
        if (len != 2)
            return bad("bad bKGD length for greyscale");
    } else if (len != 6) {
        return bad("bad bKGD length for truecolour");
    }
    im->have_bkgd = 1;
    return 0;
}

static int time_chunk(struct image *im, const uint8_t *d, uint32_t len)
{
    static const uint8_t mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (len != 7)
        return bad("bad tIME length");
    unsigned year = (unsigned)d[0] << 8 | d[1];
    if (year < 1900 || year > 2100)
        im->warnings++;
    if (d[2] < 1 || d[2] > 12)
        return bad("bad tIME month");
    if (d[3] < 1 || d[3] > mdays[d[2] - 1])
        return bad("bad tIME day");
    if (d[4] > 23 || d[5] > 59 || d[6] > 60)
        return bad("bad tIME time of day");
    im->have_time = 1;
    return 0;
}

static int phys(struct image *im, const uint8_t *d, uint32_t len)
{
    if (len != 9)
        return bad("bad pHYs length");
    uint32_t x = be32(d), y = be32(d + 4);
    if (d[8] > 1)
        return bad("bad pHYs unit");
    if (x == 0 || y == 0)
        return bad("zero pixel density");
    if (d[8] == 1 && (x > 100000 || y > 100000))
        im->warnings++;
    if (x != y)
        im->warnings++; /* non-square pixels */
    im->have_phys = 1;
    return 0;
}

static int gama(struct image *im, const uint8_t *d, uint32_t len)
{
    if (len != 4)
        return bad("bad gAMA length");
    if (be32(d) == 0)
        return bad("zero gamma");
    if (im->have_plte)
        im->warnings++; /* gAMA should precede PLTE */
    im->have_gama = 1;
    return 0;
}

static int sbit(struct image *im, const uint8_t *d, uint32_t len)
{
    if (len == 0 || len > 4)
        return bad("bad sBIT length");
    /* The header pointer is trusted here: IHDR is assumed to have come first. */
    for (uint32_t k = 0; k < len; k++)
        im->hdr->sig_bits[k] = d[k];
    if (im->hdr->sig_bits[0] == 0 || im->hdr->sig_bits[0] > im->hdr->depth)
        return bad("bad significant bits");
    return 0;
}

/* tEXt: keyword (1-79 Latin-1 bytes), NUL, text. The data is a heap copy of exactly len bytes. */
static int text(struct image *im, const uint8_t *data, uint32_t len)
{
    static const char *known[] = {"Title", "Author", "Description", "Copyright", "Creation Time",
                                  "Software", "Disclaimer", "Warning", "Source", "Comment"};
    uint8_t *d = malloc(len ? len : 1);
    uint32_t k = 0;
    int rc = 0;
    if (!d)
        return bad("out of memory");
    memcpy(d, data, len);
    while (k < len && k < 79 && d[k] != 0)
        k++;
    if (k == 0) {
        rc = bad("empty tEXt keyword");
        goto out;
    }
    for (uint32_t j = 0; j < k; j++) {
        if (d[j] < 32 || (d[j] > 126 && d[j] < 161)) {
            rc = bad("bad character in tEXt keyword");
            goto out;
        }
        if (d[j] == ' ' && (j == 0 || j == k - 1 || d[j - 1] == ' ')) {
            rc = bad("bad space in tEXt keyword");
            goto out;
        }
    }
    if (k == 79 && k < len && d[k] != 0) {
        rc = bad("tEXt keyword too long");
        goto out;
    }
    /* Text that starts with a zero byte would be a compressed iTXt body mislabelled as tEXt.
     * The flag sits after the separator: when no separator was found, k == len and this reads
     * past the copy. */
    if (k + 1 == len)
        im->warnings++; /* empty text */
    else if (d[k + 1] == 0)
        im->warnings++;
    for (size_t j = 0; j < sizeof known / sizeof known[0]; j++) {
        if (strlen(known[j]) == k && memcmp(known[j], d, k) == 0) {
            im->texts++;
            break;
        }
    }
    for (uint32_t j = k + 1; j < len; j++) {
        if (d[j] == 0) {
            rc = bad("NUL in tEXt text");
            goto out;
        }
        if (d[j] < 32 && d[j] != '\n')
            im->warnings++;
    }
out:
    free(d);
    return rc;
}

/* acTL: animation control, frame count and play count. */
static int actl(struct image *im, const uint8_t *d, uint32_t len)
{
    if (len != 8)
        return bad("bad acTL length");
    uint32_t frames = be32(d), plays = be32(d + 4);
    if (frames == 0)
        return bad("zero frames in acTL");
    if (frames > 1024)
        return bad("too many frames in acTL");
    /* Endless animations schedule every other frame as a key frame. */
    uint32_t step = plays == 0 ? 2 : 1;
    for (uint32_t f = 0; f != frames; f += step)
        frame_sink = frame_sink + f;
    im->frames = frames;
    return 0;
}

static int idat(struct image *im, const uint8_t *d, uint32_t len)
{
    if (!im->hdr)
        return bad("IDAT before IHDR");
    if (im->idat_done)
        return bad("IDAT chunks are not consecutive");
    if (im->hdr->colour == 3 && !im->have_plte)
        return bad("indexed image without PLTE");
    if (im->raw_len + len > MAX_PIXELS_BYTES + 65536)
        return bad("too much image data");
    if (im->raw_len + len > im->raw_cap) {
        size_t cap = im->raw_cap ? im->raw_cap : 4096;
        while (cap < im->raw_len + len)
            cap *= 2;
        uint8_t *n = realloc(im->raw, cap);
        if (!n)
            return bad("out of memory");
        im->raw = n;
        im->raw_cap = cap;
    }
    memcpy(im->raw + im->raw_len, d, len);
    im->raw_len += len;
    im->in_idat = 1;
    return 0;
}

static uint8_t paeth(uint8_t a, uint8_t b, uint8_t c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc)
        return a;
    return pb <= pc ? b : c;
}

/* Unfilters the scanlines of an image (or of one interlace pass) of w x h pixels. */
static int unfilter(struct image *im, const uint8_t **src, size_t *left, uint32_t w, uint32_t h,
                    uint8_t *dst)
{
    size_t rb = ((uint64_t)w * im->bpp_bits + 7) / 8;
    size_t bpp = (im->bpp_bits + 7) / 8;
    for (uint32_t y = 0; y < h; y++) {
        if (*left < rb + 1)
            return bad("image data too short");
        uint8_t f = (*src)[0];
        const uint8_t *in = *src + 1;
        uint8_t *row = dst + (size_t)y * rb;
        const uint8_t *prev = y ? row - rb : NULL;
        for (size_t x = 0; x < rb; x++) {
            uint8_t a = x >= bpp ? row[x - bpp] : 0;
            uint8_t b = prev ? prev[x] : 0;
            uint8_t c = prev && x >= bpp ? prev[x - bpp] : 0;
            switch (f) {
            case 0: row[x] = in[x]; break;
            case 1: row[x] = (uint8_t)(in[x] + a); break;
            case 2: row[x] = (uint8_t)(in[x] + b); break;
            case 3: row[x] = (uint8_t)(in[x] + ((a + b) >> 1)); break;
            case 4: row[x] = (uint8_t)(in[x] + paeth(a, b, c)); break;
            default: return bad("unknown row filter");
            }
        }
        *src += rb + 1;
        *left -= rb + 1;
    }
    return 0;
}

static int check_pixels(struct image *im, const uint8_t *px, size_t n)
{
    if (im->hdr->colour != 3)
        return 0;
    unsigned depth = im->hdr->depth, per_byte = 8 / depth, mask = (1u << depth) - 1;
    for (size_t k = 0; k < n; k++)
        for (unsigned s = 0; s < per_byte; s++)
            if (((px[k] >> (s * depth)) & mask) >= im->palette_len)
                return bad("pixel index outside the palette");
    return 0;
}

static const uint8_t xs[7] = {0, 4, 0, 2, 0, 1, 0}, ys[7] = {0, 0, 4, 0, 2, 0, 1};
static const uint8_t dx[7] = {8, 8, 4, 4, 2, 2, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};

/* Bytes of filtered scanlines the image needs: a filter byte and the row, per row of each pass. */
static size_t filtered_size(const struct image *im)
{
    const struct header *h = im->hdr;
    if (h->interlace == 0)
        return (im->row_bytes + 1) * h->height;
    size_t n = 0;
    for (int pass = 0; pass < 7; pass++) {
        if (h->width <= xs[pass] || h->height <= ys[pass])
            continue;
        uint32_t pw = (h->width - xs[pass] + dx[pass] - 1) / dx[pass];
        uint32_t ph = (h->height - ys[pass] + dy[pass] - 1) / dy[pass];
        n += (((uint64_t)pw * im->bpp_bits + 7) / 8 + 1) * ph;
    }
    return n;
}

/* Inflates the IDAT stream into *out: at most want bytes and one more, to see data past the
 * rows. *len gets what came out. */
static int inflate_idat(struct image *im, size_t want, uint8_t **out, size_t *len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    *out = malloc(want + 1);
    if (!*out)
        return bad("out of memory");
    if (inflateInit(&z) != Z_OK)
        return bad("zlib cannot start");
    z.next_in = im->raw;
    z.avail_in = (uInt)im->raw_len;
    z.next_out = *out;
    z.avail_out = (uInt)(want + 1);
    int r = inflate(&z, Z_FINISH);
    *len = want + 1 - z.avail_out;
    inflateEnd(&z);
    if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_MEM_ERROR)
        return bad("bad zlib stream in IDAT");
    if (r != Z_STREAM_END && z.avail_out != 0)
        return bad("IDAT stream ends early");
    if (r == Z_STREAM_END && z.avail_in != 0)
        im->warnings++; /* bytes after the zlib stream */
    return 0;
}

static int decode(struct image *im)
{
    struct header *h = im->hdr;
    size_t want = filtered_size(im), left;
    uint8_t *data = NULL;
    if (want > MAX_PIXELS_BYTES + 65536)
        return bad("image too large");
    if (inflate_idat(im, want, &data, &left)) {
        free(data);
        return -1;
    }
    free(im->raw); /* the filtered rows replace the compressed stream */
    im->raw = data;
    im->raw_len = left;
    const uint8_t *src = im->raw;
    im->pixels = malloc(im->row_bytes * h->height + 1);
    if (!im->pixels)
        return bad("out of memory");
    if (h->interlace == 0) {
        if (unfilter(im, &src, &left, h->width, h->height, im->pixels))
            return -1;
        if (check_pixels(im, im->pixels, im->row_bytes * h->height))
            return -1;
    } else {
        for (int pass = 0; pass < 7; pass++) {
            if (h->width <= xs[pass] || h->height <= ys[pass])
                continue;
            uint32_t pw = (h->width - xs[pass] + dx[pass] - 1) / dx[pass];
            uint32_t ph = (h->height - ys[pass] + dy[pass] - 1) / dy[pass];
            if (unfilter(im, &src, &left, pw, ph, im->pixels))
                return -1;
        }
    }
    if (left > 0)
        im->warnings++; /* extra data after the last row */
    return 0;
}

/* Chunk type rules: four ASCII letters; bit 5 of byte 0 = ancillary, of byte 2 = reserved. */
static int chunk(struct image *im, const uint8_t *type, const uint8_t *d, uint32_t len, int crc_ok)
{
    int ancillary = (type[0] & 0x20) != 0;
    for (int k = 0; k < 4; k++)
        if (!((type[k] >= 'A' && type[k] <= 'Z') || (type[k] >= 'a' && type[k] <= 'z')))
            return bad("chunk type is not four letters");
    if (type[2] & 0x20)
        return bad("reserved bit set in chunk type");
    if (!crc_ok) {
        if (!ancillary)
            return bad("CRC mismatch in critical chunk");
        im->warnings++;
        return 0;
    }
    if (im->in_idat && memcmp(type, "IDAT", 4) != 0) {
        im->in_idat = 0;
        im->idat_done = 1;
    }
    if (memcmp(type, "IHDR", 4) == 0)
        return ihdr(im, d, len);
    if (!im->hdr && !ancillary)
        return bad("critical chunk before IHDR");
    if (memcmp(type, "PLTE", 4) == 0)
        return plte(im, d, len);
    if (memcmp(type, "IDAT", 4) == 0)
        return idat(im, d, len);
    if (memcmp(type, "tRNS", 4) == 0)
        return trns(im, d, len);
    if (memcmp(type, "bKGD", 4) == 0)
        return bkgd(im, d, len);
    if (memcmp(type, "tIME", 4) == 0)
        return time_chunk(im, d, len);
    if (memcmp(type, "pHYs", 4) == 0)
        return phys(im, d, len);
    if (memcmp(type, "gAMA", 4) == 0)
        return gama(im, d, len);
    if (memcmp(type, "sBIT", 4) == 0)
        return sbit(im, d, len);
    if (memcmp(type, "tEXt", 4) == 0)
        return text(im, d, len);
    if (memcmp(type, "acTL", 4) == 0)
        return actl(im, d, len);
    if (!ancillary)
        return bad("unknown critical chunk");
    if (type[1] & 0x20)
        im->warnings++; /* private ancillary chunk */
    return 0;
}

static int parse(struct image *im, const uint8_t *buf, size_t n)
{
    size_t pos = 8;
    if (n < 8 || memcmp(buf, png_sig, 8) != 0) {
        if (n >= 8 && memcmp(buf + 1, "PNG", 3) == 0)
            return bad("damaged signature (text-mode transfer?)");
        return bad("not a PNG signature");
    }
    for (;;) {
        if (n - pos < 12)
            return bad("truncated chunk header");
        uint32_t len = be32(buf + pos);
        const uint8_t *type = buf + pos + 4;
        if (len > 0x7fffffffu)
            return bad("chunk length too large");
        if (n - pos - 12 < len)
            return bad("chunk runs past the end of the file");
        const uint8_t *d = buf + pos + 8;
        int crc_ok = crc32_of(type, 4, d, len) == be32(d + len);
        pos += 12 + (size_t)len;
        if (memcmp(type, "IEND", 4) == 0 && crc_ok) {
            if (len != 0)
                return bad("IEND with data");
            if (!im->hdr)
                return bad("IEND before IHDR");
            if (!im->raw_len)
                return bad("no image data");
            if (pos != n)
                im->warnings++; /* data after IEND */
            return decode(im);
        }
        if (chunk(im, type, d, len, crc_ok))
            return -1;
    }
}

static uint8_t *read_input(const char *path, size_t *len)
{
    FILE *f = path ? fopen(path, "rb") : stdin;
    uint8_t *buf;
    if (!f)
        return NULL;
    buf = malloc(MAX_INPUT);
    if (buf)
        *len = fread(buf, 1, MAX_INPUT, f);
    if (path)
        fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    static struct image im;
    size_t len = 0;
    uint8_t *buf = read_input(argc > 1 ? argv[1] : NULL, &len);
    int rc;
    if (!buf) {
        fprintf(stderr, "sample_png: cannot read input\n");
        return 2;
    }
    crc_init();
    rc = parse(&im, buf, len);
    if (!rc)
        printf("ok: %ux%u, %u text chunks, %u warnings\n", im.hdr->width, im.hdr->height,
               im.texts, im.warnings);
    free(im.pixels);
    free(im.raw);
    free(buf);
    return rc ? 1 : 0;
}
