/* libFuzzer harness for the image pass, which parses inputs that are hostile by nature: the bytes
 * (their PNG chunk CRCs made right, else nearly every mutation would stop at a checksum) go
 * through cd_reduce_image under a predicate that accepts candidates at random (by their hash).
 * Every candidate must fit the scratch buffer and be strictly shortlex-smaller than the example it
 * would replace, and the pass must end. Built and run by tests/fuzz/run.sh. */
#include "common/cd_hash.h"
#include "table/cd_table.h"
#include "reduce/reduce_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct state {
    uint8_t *cur;         /* a copy of the example a candidate must beat */
    size_t len, cap;
    unsigned tries;
};

static bool pred(void *ctx, const uint8_t *cand, size_t len)
{
    struct state *s = ctx;
    if (len > s->cap || cd_table_shortlex(cand, len, s->cur, s->len) >= 0)
        abort(); /* too long, or not smaller: a reduction could loop */
    s->tries++;
    if (!(cd_hash_bytes(cand, len).lo & 1))
        return false;
    memcpy(s->cur, cand, len);
    s->len = len;
    return true;
}

static bool stop(void *ctx)
{
    return ((struct state *)ctx)->tries > 200;
}

/* Recomputes the CRC of every chunk after the 8-byte signature, as far as lengths tile data. */
static void fix_crcs(uint8_t *p, size_t n)
{
    for (size_t i = 8; n >= 12 && i <= n - 12;) {
        size_t len = (size_t)p[i] << 24 | (size_t)p[i + 1] << 16 | (size_t)p[i + 2] << 8 | p[i + 3];
        if (len > n - i - 12)
            return;
        uint32_t c = (uint32_t)crc32(0L, p + i + 4, (uInt)(4 + len));
        for (int k = 0; k < 4; k++)
            p[i + 8 + len + k] = (uint8_t)(c >> (24 - 8 * k));
        i += 12 + len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *cur = malloc(size ? size : 1), *cand = malloc(size ? size : 1);
    if (!cur || !cand) {
        free(cur);
        free(cand);
        return 0;
    }
    memcpy(cur, data, size);
    fix_crcs(cur, size);
    struct state s = {malloc(size ? size : 1), size, size, 0};
    struct cd_reduce_target t = {pred, stop, &s, false, false};
    struct cd_reduce_stats st = {0};
    struct cd_reduce_run r = {&t, cur, size, cand, size, &st, false};
    if (s.cur) {
        memcpy(s.cur, cur, size);
        cd_reduce_image(&r);
        if (r.len != s.len || memcmp(r.cur, s.cur, r.len) != 0)
            abort(); /* the pass's example is the last one adopted */
    }
    free(s.cur);
    free(r.cur);
    free(r.cand);
    return 0;
}
