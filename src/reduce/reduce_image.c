/* The image pass: PNG images cut by rows and columns. An image's bytes are nearly all in its IDAT
 * chunks, one zlib stream split across them, so no edit of the compressed bytes survives, and the
 * checked pass (reduce_chunks.c), which edits one chunk's data at a time, cannot shorten them.
 * This pass inflates the stream, keeps the first rows, then the first columns of each row (PNG's
 * row filters refer only to bytes left of and above a byte, so both cuts leave valid filtered
 * data), deflates the result and splits it into as many IDAT chunks as there were (some labels
 * count chunks), with IHDR's dimensions and every CRC repaired. Row and column counts are
 * searched as the prefix pass searches lengths: 1, 2, 4, ... until one holds, then a binary
 * search, about 2 log2(rows) + 2 log2(columns) candidates for any image; a recompression alone
 * comes first. Interlaced images are only recompressed. Anything that does not parse as a PNG
 * with valid IHDR and IDAT checksums costs no candidate. */
#include "reduce_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Most bytes an image may inflate to: a compression bomb is left alone. */
#define IMAGE_INFLATE_MAX ((size_t)64 << 20)

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/* An image as parsed from the example it was found in (a copy: candidates are built from it while
 * the current example changes). */
struct image {
    uint8_t *src;               /* the example */
    size_t len;
    size_t ihdr;                /* offset of IHDR's data */
    size_t idat, idat_end;      /* the run of IDAT chunks: first length field, end of the last */
    unsigned n_idat;
    uint32_t width, height;
    unsigned bits;              /* bits per pixel */
    bool interlaced;
    uint8_t *raw;               /* the inflated stream: filtered rows */
    size_t raw_len;
    uint8_t *cut, *z;           /* scratch for a candidate's rows and their deflated stream, */
    uLong z_cap;                /* sized once for the whole image */
};

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Whether the chunk at p (its length field), len data bytes, carries a valid CRC. */
static bool crc_holds(const uint8_t *p, uint32_t len)
{
    uLong c = crc32(crc32(0L, p + 4, 4), p + 8, (uInt)len);
    return (uint32_t)c == cd_reduce_be32(p + 8 + len);
}

/* Channels of a PNG colour type, 0 for one PNG does not define. */
static unsigned channels(uint8_t color)
{
    switch (color) {
    case 0: return 1;
    case 2: return 3;
    case 3: return 1;
    case 4: return 2;
    case 6: return 4;
    default: return 0;
    }
}

/* Inflates data[0..len) into im->raw, at most IMAGE_INFLATE_MAX bytes; what came out before a
 * truncated or damaged end is kept. False when nothing came out or memory ran short. */
static bool inflate_all(struct image *im, const uint8_t *data, size_t len)
{
    z_stream z = {0};
    size_t cap = len * 4 + 1024;
    if (cap > IMAGE_INFLATE_MAX)
        cap = IMAGE_INFLATE_MAX;
    if (inflateInit(&z) != Z_OK)
        return false;
    im->raw = malloc(cap);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    int ret = Z_OK;
    while (im->raw && ret == Z_OK) {
        if (im->raw_len == cap) {
            if (cap == IMAGE_INFLATE_MAX)
                break;
            size_t ncap = cap * 2 > IMAGE_INFLATE_MAX ? IMAGE_INFLATE_MAX : cap * 2;
            uint8_t *nr = realloc(im->raw, ncap);
            if (!nr)
                break;
            im->raw = nr;
            cap = ncap;
        }
        z.next_out = im->raw + im->raw_len;
        z.avail_out = (uInt)(cap - im->raw_len);
        ret = inflate(&z, Z_NO_FLUSH);
        im->raw_len = cap - z.avail_out;
        if (ret == Z_BUF_ERROR && z.avail_in == 0)
            break; /* truncated stream */
    }
    inflateEnd(&z);
    return im->raw && im->raw_len > 0;
}

/* Parses data as a PNG: signature, IHDR with a valid CRC first, then a run of IDAT chunks with
 * valid CRCs; fills im (owning copies). False when data is no such image. */
static bool parse(struct image *im, const uint8_t *data, size_t len)
{
    memset(im, 0, sizeof *im);
    if (len < 8 + 25 + 12 || memcmp(data, png_signature, 8) != 0 ||
        cd_reduce_be32(data + 8) != 13 || memcmp(data + 12, "IHDR", 4) != 0 ||
        !crc_holds(data + 8, 13))
        return false;
    const uint8_t *h = data + 16;
    unsigned ch = channels(h[9]);
    im->width = cd_reduce_be32(h);
    im->height = cd_reduce_be32(h + 4);
    im->bits = ch * h[8];
    im->interlaced = h[12] != 0;
    im->ihdr = 16;
    if (!ch || !h[8] || !im->width || !im->height || im->width > (1u << 24))
        return false;
    size_t at = 8 + 25, idat_bytes = 0;
    while (at + 12 <= len) {
        uint32_t n = cd_reduce_be32(data + at);
        if (n > len - at - 12)
            break;
        bool is_idat = memcmp(data + at + 4, "IDAT", 4) == 0;
        if (im->n_idat && !is_idat)
            break; /* the end of the run */
        if (is_idat) {
            if (!crc_holds(data + at, n))
                return false;
            if (!im->n_idat++)
                im->idat = at;
            idat_bytes += n;
        }
        at += 12 + (size_t)n;
    }
    if (!im->n_idat)
        return false;
    im->idat_end = at;
    uint8_t *stream = malloc(idat_bytes ? idat_bytes : 1);
    im->src = malloc(len);
    if (!stream || !im->src) {
        free(stream);
        free(im->src);
        im->src = NULL;
        return false;
    }
    memcpy(im->src, data, len);
    im->len = len;
    size_t k = 0;
    for (size_t p = im->idat; p < im->idat_end; p += 12 + (size_t)cd_reduce_be32(data + p)) {
        memcpy(stream + k, data + p + 8, cd_reduce_be32(data + p));
        k += cd_reduce_be32(data + p);
    }
    bool ok = inflate_all(im, stream, idat_bytes);
    free(stream);
    return ok;
}

static void release(struct image *im)
{
    free(im->src);
    free(im->raw);
    free(im->cut);
    free(im->z);
    memset(im, 0, sizeof *im);
}

/* Bytes of one row of w pixels, its filter byte aside. */
static size_t row_bytes(const struct image *im, uint32_t w)
{
    return ((size_t)w * im->bits + 7) / 8;
}

/* Rows the inflated stream holds whole at the image's width. */
static uint32_t rows_held(const struct image *im)
{
    size_t stride = 1 + row_bytes(im, im->width);
    size_t rows = im->raw_len / stride;
    return rows < im->height ? (uint32_t)rows : im->height;
}

/* Tests the image cut to its first h rows and w columns (the whole stream, recompressed, when both
 * are its own), if that is shorter than the current example. */
static bool try_size(struct cd_reduce_run *r, const struct image *im, uint32_t w, uint32_t h)
{
    bool whole = w == im->width && h == im->height;
    size_t stride = 1 + row_bytes(im, im->width), row = row_bytes(im, w);
    size_t raw_len = whole ? im->raw_len : (size_t)h * (1 + row); /* at most im->raw_len */
    uint8_t *raw = whole ? im->raw : im->cut, *z = im->z;
    uLongf z_len = im->z_cap;
    if (!whole)
        for (uint32_t i = 0; i < h; i++)
            memcpy(raw + (size_t)i * (1 + row), im->raw + (size_t)i * stride, 1 + row);
    if (compress2(z, &z_len, raw, (uLong)raw_len, Z_BEST_COMPRESSION) != Z_OK)
        return false;
    unsigned k = im->n_idat < z_len ? im->n_idat : (unsigned)z_len;
    size_t head = im->idat, tail = im->len - im->idat_end;
    size_t n = head + (size_t)z_len + 12u * k + tail;
    if (n >= r->len)
        return false;
    uint8_t *o = r->cand;
    memcpy(o, im->src, head);
    put_be32(o + im->ihdr, w);
    put_be32(o + im->ihdr + 4, h);
    put_be32(o + im->ihdr + 13, (uint32_t)crc32(crc32(0L, o + im->ihdr - 4, 4), o + im->ihdr, 13));
    size_t at = head, done = 0;
    for (unsigned c = 0; c < k; c++) {
        size_t part = c + 1 < k ? (size_t)z_len / k : (size_t)z_len - done;
        put_be32(o + at, (uint32_t)part);
        memcpy(o + at + 4, "IDAT", 4);
        memcpy(o + at + 8, z + done, part);
        uLong crc = crc32(crc32(0L, o + at + 4, 4), o + at + 8, (uInt)part);
        put_be32(o + at + 8 + part, (uint32_t)crc);
        at += 12 + part;
        done += part;
    }
    memcpy(o + at, im->src + im->idat_end, tail);
    return cd_reduce_try(r, n);
}

/* The least count of rows (rows) or columns in [1, from) for which the image cut to it holds
 * (other: the count of the other dimension), searched 1, 2, 4, ... then by halves; from when none
 * does. */
static uint32_t least(struct cd_reduce_run *r, const struct image *im, uint32_t from, bool rows,
                      uint32_t other)
{
    uint32_t lo = 0, hi = 0; /* lo fails (or is 0), hi holds (0: none found) */
    for (uint64_t n = 1; n < from && !r->stopped; n *= 2) {
        if (rows ? try_size(r, im, other, (uint32_t)n) : try_size(r, im, (uint32_t)n, other)) {
            hi = (uint32_t)n;
            break;
        }
        lo = (uint32_t)n;
    }
    if (!hi)
        return from;
    while (hi - lo > 1 && !r->stopped) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rows ? try_size(r, im, other, mid) : try_size(r, im, mid, other))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

bool cd_reduce_image(struct cd_reduce_run *r)
{
    struct image im;
    bool ok = parse(&im, r->cur, r->len);
    if (ok) {
        im.z_cap = compressBound((uLong)im.raw_len);
        im.cut = malloc(im.raw_len);
        im.z = malloc(im.z_cap);
        ok = im.cut && im.z;
    }
    if (!ok) {
        release(&im); /* what was allocated before it gave up */
        return false;
    }
    size_t before = r->len;
    try_size(r, &im, im.width, im.height);
    uint32_t held = rows_held(&im);
    if (!im.interlaced && held > 0) {
        uint32_t h = least(r, &im, held, true, im.width);
        least(r, &im, im.width, false, h);
    }
    release(&im);
    return r->len < before;
}
