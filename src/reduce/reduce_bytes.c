/* The generic byte passes, which know nothing of the format: the shortest prefix and the shortest
 * tail that hold, adaptive block deletion, and the two lowering passes (single bytes toward 0, or
 * 1 in text, and every copy of a byte value together). Prefixes are tried from short to
 * long, so every candidate is small: most parsers read front to back, a label met early in a long
 * document is kept by a short prefix, and the labels a truncated document shows first
 * (end-of-data paths) are found on small candidates, not on a long example cut in half. A
 * lowering candidate has the same length and a lower byte at the first difference, so it too is
 * strictly shortlex-smaller. */
#include "reduce_internal.h"

#include <string.h>

/* Tests the first n bytes of cur. */
static bool try_prefix(struct cd_reduce_run *r, size_t n)
{
    memcpy(r->cand, r->cur, n);
    return cd_reduce_try(r, n);
}

/* Tests the last n bytes of cur. */
static bool try_suffix(struct cd_reduce_run *r, size_t n)
{
    memcpy(r->cand, r->cur + r->len - n, n);
    return cd_reduce_try(r, n);
}

/* Lengths CD_REDUCE_PREFIX_MIN, twice that, ... below half the example's length until one holds,
 * then a binary search between the last that failed and the one that held: about 2 log2(len)
 * candidates, each at most twice as long as the part kept. Exact where holding is monotone in
 * the length; elsewhere it keeps some part that holds, which is all a pass promises. Once a part
 * of hi bytes is adopted, the shorter ones tried are parts of it and of the original alike. */
static bool shortest_part(struct cd_reduce_run *r, bool (*try_n)(struct cd_reduce_run *, size_t))
{
    size_t lo = 0, hi = 0; /* lo fails (or is 0), hi holds (0: none found) */
    for (size_t n = CD_REDUCE_PREFIX_MIN; n <= r->len / 2 && !r->stopped; n *= 2) {
        if (try_n(r, n)) {
            hi = n;
            break;
        }
        lo = n;
    }
    if (!hi)
        return false;
    while (hi - lo > 1 && !r->stopped) {
        size_t mid = lo + (hi - lo) / 2;
        if (try_n(r, mid))
            hi = mid;
        else
            lo = mid;
    }
    return true;
}

/* The shortest prefix that holds (shortest_part). The search stops at half the example:
 * searching on toward its whole length (for labels that need most of it, such as high hit counts)
 * ran long truncated copies whose new end-of-data labels were each kept on a long example, and on
 * the JSON sample left more seed bytes after 5,000 executions (641,971) than selection alone
 * (470,428). */
bool cd_reduce_prefix(struct cd_reduce_run *r)
{
    return shortest_part(r, try_prefix);
}

/* The shortest tail that holds (shortest_part), for formats without a header, whose labels a
 * late part of a document shows alone (a script's last functions, a log's last records); where a
 * header is needed its first candidates fail and the yield order sinks it. */
bool cd_reduce_suffix(struct cd_reduce_run *r)
{
    return shortest_part(r, try_suffix);
}

/* Chunks of len/2, len/4 ... down to len/CD_REDUCE_BLOCK_STEPS or 1. At each position a success
 * doubles the chunk (so long deletable regions go in few steps) and a failure halves it back to
 * the round's size before moving on. It returns after the first size that deleted anything: finer
 * sizes cost a candidate per k bytes, and the cheaper passes that run before it again may shorten
 * the example first. Starting each call at the size of the last deletion instead (the larger
 * sizes after it) was measured and lost: the JSON nightly bench's day-2 cold run at -j 1 took
 * 540,532 executions against 455,483, and libyaml at 100 executions per file kept 1,186,619 B
 * against 929,270. */
bool cd_reduce_blocks(struct cd_reduce_run *r)
{
    bool any = false;
    size_t finest = r->len / CD_REDUCE_BLOCK_STEPS ? r->len / CD_REDUCE_BLOCK_STEPS : 1;
    for (size_t k = r->len > 1 ? r->len / 2 : 1; k >= finest && r->len && !r->stopped && !any;
         k /= 2) {
        size_t i = 0, c = k;
        while (i < r->len && !r->stopped) {
            size_t n = c < r->len - i ? c : r->len - i;
            if (cd_reduce_try_delete(r, i, n)) {
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

/* Tests cur with byte i set to v. */
static bool try_set(struct cd_reduce_run *r, size_t i, uint8_t v)
{
    memcpy(r->cand, r->cur, r->len);
    r->cand[i] = v;
    return cd_reduce_try(r, r->len);
}

/* 0 first; then one lower, and when that works a binary search for the least value that works
 * (failing one lower, the byte is left: two executions per stubborn byte, not eight). In text (no
 * NUL, cd_reduce_binary) a byte goes down to 1 at least and starts one lower: a NUL put into text
 * would make it binary to the text passes, and a text byte rarely goes to 0 alone. On 120 Lua
 * scripts run to the fixed point this took 7% fewer executions and left smaller seeds; control
 * bytes stay within reach, where a parser's labels for them are (tools/bench/FINDINGS.md, the
 * lowering passes). */
bool cd_reduce_bytes(struct cd_reduce_run *r)
{
    bool any = false, text = !cd_reduce_binary(r);
    for (size_t i = 0; i < r->len && !r->stopped; i++) {
        uint8_t v = r->cur[i];
        if (v == 0 || (text && v == 1))
            continue;
        if (!text && try_set(r, i, 0)) {
            any = true;
            continue;
        }
        if (v == 1 || i >= r->len || !try_set(r, i, (uint8_t)(v - 1)))
            continue;
        any = true;
        unsigned lo = 0, hi = (unsigned)v - 1; /* lo fails (in text: is out of reach), hi works */
        while (hi - lo > 1 && i < r->len && !r->stopped) {
            unsigned mid = lo + (hi - lo) / 2;
            if (try_set(r, i, (uint8_t)mid))
                hi = mid;
            else
                lo = mid;
        }
    }
    return any;
}

/* Tests cur with every copy of byte value from set to to. */
static bool try_copies(struct cd_reduce_run *r, uint8_t from, uint8_t to)
{
    for (size_t i = 0; i < r->len; i++)
        r->cand[i] = r->cur[i] == from ? to : r->cur[i];
    return cd_reduce_try(r, r->len);
}

/* Bytes that only work together (matching quotes or tags, a repeated marker): for each byte value
 * occurring at least twice, lower all its copies at once, to 0 first (not in text, as
 * cd_reduce_bytes), else one lower and, when that works, a binary search. One or two executions
 * per repeated value: cheap. */
bool cd_reduce_pairs(struct cd_reduce_run *r)
{
    bool any = false, text = !cd_reduce_binary(r);
    for (unsigned v = 255; v > (text ? 1u : 0u) && !r->stopped; v--) {
        size_t count = 0;
        for (size_t i = 0; i < r->len && count < 2; i++)
            count += r->cur[i] == v;
        if (count < 2)
            continue;
        if (!text && try_copies(r, (uint8_t)v, 0)) {
            any = true;
            continue;
        }
        if (v == 1 || !try_copies(r, (uint8_t)v, (uint8_t)(v - 1)))
            continue;
        any = true;
        unsigned lo = 0, hi = v - 1; /* the copies now hold hi; lo fails (or is out of reach) */
        while (hi - lo > 1 && !r->stopped) {
            unsigned mid = lo + (hi - lo) / 2;
            if (try_copies(r, (uint8_t)hi, (uint8_t)mid))
                hi = mid;
            else
                lo = mid;
        }
    }
    return any;
}
