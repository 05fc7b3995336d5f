/* Lowering reducer passes: single bytes toward 0, pairs of neighbouring bytes, runs of decimal
 * digits. Every candidate is strictly shortlex-smaller than the current example: equal length
 * with a lower byte at the first difference, or shorter. */
#include "cd_reduce.h"

#include <string.h>

/* Tests cur with byte i set to v. */
static bool try_set(struct cd_reduce_run *r, size_t i, uint8_t v)
{
    memcpy(r->cand, r->cur, r->len);
    r->cand[i] = v;
    return cd_reduce_try(r, r->len);
}

/* 0 first; then one lower, and when that works a binary search for the least value that works
 * (failing one lower, the byte is left: two executions per stubborn byte, not eight). */
bool cd_reduce_bytes(struct cd_reduce_run *r)
{
    bool any = false;
    for (size_t i = 0; i < r->len && !r->stopped; i++) {
        uint8_t v = r->cur[i];
        if (v == 0)
            continue;
        if (try_set(r, i, 0)) {
            any = true;
            continue;
        }
        if (v == 1 || i >= r->len || !try_set(r, i, (uint8_t)(v - 1)))
            continue;
        any = true;
        unsigned lo = 0, hi = (unsigned)v - 1; /* lo fails, hi works */
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
 * occurring at least twice, lower all its copies at once, to 0 first, else one lower and, when
 * that works, a binary search. One or two executions per repeated value: cheap. */
bool cd_reduce_pairs(struct cd_reduce_run *r)
{
    bool any = false;
    for (unsigned v = 255; v >= 1 && !r->stopped; v--) {
        size_t count = 0;
        for (size_t i = 0; i < r->len && count < 2; i++)
            count += r->cur[i] == v;
        if (count < 2)
            continue;
        if (try_copies(r, (uint8_t)v, 0)) {
            any = true;
            continue;
        }
        if (v == 1 || !try_copies(r, (uint8_t)v, (uint8_t)(v - 1)))
            continue;
        any = true;
        unsigned lo = 0, hi = v - 1; /* the copies now hold hi; lo fails */
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

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

/* Tests cur with the run [p, p+n) replaced by the m bytes at rep. */
static bool try_replace(struct cd_reduce_run *r, size_t p, size_t n, const uint8_t *rep, size_t m)
{
    if (m >= n || p + n > r->len)
        return false;
    memcpy(r->cand, r->cur, p);
    memcpy(r->cand + p, rep, m);
    memcpy(r->cand + p + m, r->cur + p + n, r->len - p - n);
    return cd_reduce_try(r, r->len - n + m);
}

/* Runs of two or more digits: the run as "0", else its last half dropped, else its last digit. */
bool cd_reduce_digits(struct cd_reduce_run *r)
{
    static const uint8_t zero[] = "0";
    bool any = false;
    size_t p = 0;
    while (p < r->len && !r->stopped) {
        if (!is_digit(r->cur[p])) {
            p++;
            continue;
        }
        size_t n = 1;
        while (p + n < r->len && is_digit(r->cur[p + n]))
            n++;
        if (n >= 2 && (try_replace(r, p, n, zero, 1) ||
                       try_replace(r, p, n, r->cur + p, n - n / 2) ||
                       try_replace(r, p, n, r->cur + p, n - 1))) {
            any = true;
            continue; /* look at the shortened run again */
        }
        p += n;
    }
    return any;
}
