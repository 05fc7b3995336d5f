/* The binary-chunk passes. Binary formats guard their parts with lengths and checksums, so a
 * block that cuts a part in two breaks everything after it. The chunks pass deletes what a 32-bit
 * length may delimit. The checked pass serves PNG and its family (MNG, JNG, APNG), which guard
 * every chunk (u32 big-endian length, four-letter type, data, CRC-32 of type and data) with a
 * checksum, so any edit inside a chunk is rejected and only whole chunks can go: it finds such
 * chunks by their checksums and reduces each one's data as an example of its own, with every
 * pass, rebuilding each candidate with the chunk's length and CRC repaired: a header's dimensions
 * are lowered, an image's rows deleted, a text's bytes dropped. */
#include "reduce_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Tries the spans a 32-bit length L at i would delimit: the length field and L bytes, the PNG
 * layout (length, 4-byte type, L bytes, 4-byte checksum), and L bytes counting the field. */
static bool try_chunk(struct cd_reduce_run *r, size_t i, uint32_t L)
{
    size_t spans[3] = {(size_t)L + 4, (size_t)L + 12, L};
    for (unsigned k = 0; k < 3; k++)
        if (spans[k] >= 4 && spans[k] <= r->len - i && cd_reduce_try_delete(r, i, spans[k]))
            return true;
    return false;
}

/* Binary formats guard their parts with lengths and checksums, so a block that cuts a part in two
 * breaks everything after it, and deleting a whole part is what works. A 32-bit big- or
 * little-endian word whose value fits in what follows may be such a length: delete what it
 * delimits. In text, words are far larger than the input, so the pass costs almost nothing
 * there. A zero length counts once per run of zeros. */
bool cd_reduce_chunks(struct cd_reduce_run *r)
{
    bool any = false;
    size_t i = 0;
    while (r->len >= 4 && i + 4 <= r->len && !r->stopped) {
        const uint8_t *p = r->cur + i;
        size_t room = r->len - i;
        uint32_t b = cd_reduce_be32(p), l = le32(p);
        bool zero_start = b == 0 && (i == 0 || r->cur[i - 1] != 0);
        if ((b && b < room) || zero_start) {
            if (try_chunk(r, i, b)) {
                any = true;
                continue;
            }
        }
        if (l != b && l && l < room && try_chunk(r, i, l)) {
            any = true;
            continue;
        }
        i++;
    }
    return any;
}

/* One chunk being reduced inside the outer example. */
struct chunk {
    struct cd_reduce_run *outer;
    size_t at;       /* offset of its length field in outer->cur */
    size_t len;      /* its data length there */
};

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static bool is_letter(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static uint32_t crc_of(const uint8_t *type, const uint8_t *data, size_t len)
{
    uLong c = crc32(0L, type, 4);
    return (uint32_t)crc32(c, data, (uInt)len);
}

/* The outer example with the chunk's data replaced by data[0..len), length and CRC repaired; it
 * is no longer than the example and shortlex-smaller exactly when data is. */
static bool chunk_pred(void *ctx, const uint8_t *data, size_t len)
{
    struct chunk *c = ctx;
    struct cd_reduce_run *r = c->outer;
    size_t tail = c->at + 12 + c->len, n = c->at + 12 + len + (r->len - tail);
    uint8_t *o = r->cand;
    memcpy(o, r->cur, c->at + 8);
    put_be32(o + c->at, (uint32_t)len);
    memcpy(o + c->at + 8, data, len);
    put_be32(o + c->at + 8 + len, crc_of(r->cur + c->at + 4, data, len));
    memcpy(o + c->at + 12 + len, r->cur + tail, r->len - tail);
    if (!cd_reduce_try(r, n))
        return false;
    c->len = len;
    return true;
}

static bool chunk_stop(void *ctx)
{
    const struct chunk *c = ctx;
    return c->outer->stopped;
}

/* The first chunk at or after from whose checksum holds: *at gets its offset, *len its data
 * length. Only four-letter types are tried, so that the scan costs a CRC only where a chunk may
 * be, never one per byte of a long example. */
static bool find_chunk(const struct cd_reduce_run *r, size_t from, size_t *at, size_t *len)
{
    const uint8_t *p = r->cur;
    for (size_t i = from; r->len >= 12 && i <= r->len - 12; i++) {
        uint32_t n = cd_reduce_be32(p + i);
        if (n > r->len - 12 - i || !is_letter(p[i + 4]) || !is_letter(p[i + 5]) ||
            !is_letter(p[i + 6]) || !is_letter(p[i + 7]))
            continue;
        if (crc_of(p + i + 4, p + i + 8, n) == cd_reduce_be32(p + i + 8 + n)) {
            *at = i;
            *len = n;
            return true;
        }
    }
    return false;
}

bool cd_reduce_checked(struct cd_reduce_run *r)
{
    if (r->target->pred == chunk_pred)
        return false; /* a chunk's data is not searched for chunks of its own */
    bool any = false;
    size_t from = 0, at, len;
    while (!r->stopped && find_chunk(r, from, &at, &len)) {
        struct chunk c = {r, at, len};
        struct cd_reduce_target t = {chunk_pred, chunk_stop, &c, r->target->deletions_only,
                                     false};
        struct cd_reducer red = {0};
        uint8_t *out;
        size_t out_len;
        bool changed;
        struct cd_error err;
        /* reducer_run copies the data before the first candidate replaces r->cur */
        enum cd_status st =
            cd_reducer_run(&red, &t, r->cur + at + 8, len, &out, &out_len, &changed, NULL, &err);
        free(out);
        any |= changed;
        if (st >= CD_FAILED)
            break; /* out of memory: the other passes go on */
        from = at + 12 + c.len;
    }
    return any;
}
