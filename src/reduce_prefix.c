/* The prefix pass: keeps only the shortest leading part of the example that still holds. Most
 * parsers read their input front to back, so a label met early in a long document is kept by a
 * short prefix of it. Prefixes are tried from short to long, so every candidate is small: cheap
 * to run, and the labels a truncated document shows first (end-of-data paths) are found on small
 * candidates, not on a long example cut in half. */
#include "cd_reduce.h"

#include <string.h>

/* Tests the first n bytes of cur. */
static bool try_prefix(struct cd_reduce_run *r, size_t n)
{
    memcpy(r->cand, r->cur, n);
    return cd_reduce_try(r, n);
}

/* Lengths CD_REDUCE_PREFIX_MIN, twice that, ... below the example's length until one holds, then
 * a binary search between the last that failed and the one that held (or the whole example): about
 * 2 log2(len) candidates. Labels counted in hit classes (128 or more of an edge) often need most of
 * the example, hence the search up to its whole length. Exact where holding is monotone in the
 * prefix length (hit counts only grow with it); elsewhere it keeps some prefix that holds, which
 * is all a pass promises. */
bool cd_reduce_prefix(struct cd_reduce_run *r)
{
    size_t lo = 0, hi = r->len; /* lo fails (or is 0), hi holds */
    for (size_t n = CD_REDUCE_PREFIX_MIN; n < hi && !r->stopped; n *= 2) {
        if (try_prefix(r, n)) {
            hi = n;
            break;
        }
        lo = n;
    }
    bool any = hi < r->len;
    while (hi - lo > 1 && !r->stopped) {
        size_t mid = lo + (hi - lo) / 2;
        if (try_prefix(r, mid)) {
            hi = mid;
            any = true;
        } else {
            lo = mid;
        }
    }
    return any;
}
