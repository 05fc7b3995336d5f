/* Deleting reducer passes: adaptive block deletion, line deletion, balanced bracketed spans.
 * Every candidate is strictly shorter than the current example, so strictly shortlex-smaller.
 * Passes re-read the current example after each adoption; positions are clamped to its length. */
#include "cd_reduce.h"

#include <string.h>

/* Tests cur without the n bytes at i. */
static bool try_delete(struct cd_reduce_run *r, size_t i, size_t n)
{
    if (n == 0 || i >= r->len || n > r->len - i)
        return false;
    memcpy(r->cand, r->cur, i);
    memcpy(r->cand + i, r->cur + i + n, r->len - i - n);
    return cd_reduce_try(r, r->len - n);
}

/* Chunks of len/2, len/4 ... 1. At each position a success doubles the chunk (so long deletable
 * regions go in few steps) and a failure halves it back to the round's size before moving on. */
bool cd_reduce_blocks(struct cd_reduce_run *r)
{
    bool any = false;
    for (size_t k = r->len > 1 ? r->len / 2 : 1; k >= 1 && r->len && !r->stopped; k /= 2) {
        size_t i = 0, c = k;
        while (i < r->len && !r->stopped) {
            size_t n = c < r->len - i ? c : r->len - i;
            if (try_delete(r, i, n)) {
                any = true;
                c *= 2;
            } else if (c > k) {
                c /= 2;
            } else {
                i += k;
            }
        }
    }
    return any;
}

/* Byte offset just past `count` lines starting at p (or the end). */
static size_t lines_end(const struct cd_reduce_run *r, size_t p, size_t count)
{
    while (count-- && p < r->len) {
        const uint8_t *nl = memchr(r->cur + p, '\n', r->len - p);
        p = nl ? (size_t)(nl - r->cur) + 1 : r->len;
    }
    return p;
}

/* Deletes runs of whole lines: one line, then twice as many after each success. */
bool cd_reduce_lines(struct cd_reduce_run *r)
{
    bool any = false;
    if (!r->len || !memchr(r->cur, '\n', r->len))
        return false;
    size_t p = 0, c = 1;
    while (p < r->len && !r->stopped) {
        size_t e = lines_end(r, p, c);
        if (try_delete(r, p, e - p)) {
            any = true;
            c *= 2;
        } else if (c > 1) {
            c /= 2;
        } else {
            p = e;
        }
    }
    return any;
}

/* Index of the bracket closing the one at p, or len when unbalanced. */
static size_t matching(const struct cd_reduce_run *r, size_t p, uint8_t open, uint8_t close)
{
    size_t depth = 0;
    for (size_t q = p; q < r->len; q++) {
        if (r->cur[q] == open)
            depth++;
        else if (r->cur[q] == close && --depth == 0)
            return q;
    }
    return r->len;
}

/* For each balanced (), [], {}, <> span: delete it whole, else delete its contents. */
bool cd_reduce_brackets(struct cd_reduce_run *r)
{
    static const char pairs[] = "()[]{}<>";
    bool any = false;
    size_t p = 0;
    while (p < r->len && !r->stopped) {
        const char *o = memchr(pairs, r->cur[p], sizeof pairs - 1);
        if (!o || (o - pairs) % 2) {
            p++;
            continue;
        }
        size_t q = matching(r, p, (uint8_t)o[0], (uint8_t)o[1]);
        if (q < r->len && try_delete(r, p, q - p + 1)) {
            any = true;
            continue;
        }
        if (q < r->len && q > p + 1 && try_delete(r, p + 1, q - p - 1))
            any = true;
        p++;
    }
    return any;
}
