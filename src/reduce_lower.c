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

/* Tests cur with bytes i and i+1 set to a and b. */
static bool try_set2(struct cd_reduce_run *r, size_t i, uint8_t a, uint8_t b)
{
    if (i + 1 >= r->len)
        return false;
    memcpy(r->cand, r->cur, r->len);
    r->cand[i] = a;
    r->cand[i + 1] = b;
    return cd_reduce_try(r, r->len);
}

/* Neighbouring non-zero bytes that only work together (a length and its payload, a two-byte
 * tag): both to 0, else both one lower. */
bool cd_reduce_pairs(struct cd_reduce_run *r)
{
    bool any = false;
    for (size_t i = 0; i + 1 < r->len && !r->stopped; i++) {
        uint8_t a = r->cur[i], b = r->cur[i + 1];
        if (!a || !b)
            continue;
        if (try_set2(r, i, 0, 0) || try_set2(r, i, (uint8_t)(a - 1), (uint8_t)(b - 1)))
            any = true;
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
