/* The number passes: decimal and hex counts shrunk together with the span they count (a chunk
 * size, a Content-Length), and runs of decimal digits shortened. */
#include "reduce_internal.h"

#include <string.h>

static int digit_value(uint8_t c, unsigned base)
{
    int v = c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
    return v < (int)base ? v : -1;
}

/* Writes v in base (10 or 16, upper-case letters when upper) into out; returns its length. */
static size_t format_number(uint64_t v, unsigned base, bool upper, uint8_t out[24])
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    uint8_t tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (uint8_t)digits[v % base];
        v /= base;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

/* Tests cur with the number at [p, p+w) replaced by rep (m bytes, m <= w) and the cut bytes at q
 * (q >= p+w, in cur's coordinates) deleted. */
static bool try_length(struct cd_reduce_run *r, size_t p, size_t w, const uint8_t *rep, size_t m,
                       size_t q, size_t cut)
{
    if (q > r->len || q < p + w || cut == 0 || cut > r->len - q)
        return false;
    size_t o = 0;
    memcpy(r->cand, r->cur, p);
    o += p;
    memcpy(r->cand + o, rep, m);
    o += m;
    memcpy(r->cand + o, r->cur + p + w, q - p - w);
    o += q - p - w;
    memcpy(r->cand + o, r->cur + q + cut, r->len - q - cut);
    o += r->len - q - cut;
    return cd_reduce_try(r, o);
}

/* Tests the number at [p, p+w) (value v) replaced by the m bytes of rep (value nv < v), with the
 * v - nv bytes it no longer counts deleted from the span it delimits, which starts after one
 * separator byte (bencode's "4:spam"), after its line (HTTP chunk sizes), or ends the input
 * (Content-Length). */
static bool try_count(struct cd_reduce_run *r, size_t p, size_t w, uint64_t v, const uint8_t *rep,
                      size_t m, uint64_t nv)
{
    uint64_t cut = v - nv;
    size_t end = p + w;
    const uint8_t *nl = memchr(r->cur + end, '\n', r->len - end);
    size_t starts[3] = {end + 1, nl ? (size_t)(nl - r->cur) + 1 : r->len, r->len};
    for (unsigned k = 0; k < 3; k++) {
        size_t q = k < 2 ? starts[k] + nv : (r->len >= cut ? r->len - cut : 0);
        if ((k < 2 && starts[k] > r->len) || (k == 1 && starts[1] == starts[0]))
            continue;
        if (try_length(r, p, w, rep, m, q, cut))
            return true;
    }
    return false;
}

/* Value of the w digits at p in base (already checked to be digits of it). */
static uint64_t digits_value(const struct cd_reduce_run *r, size_t p, size_t w, unsigned base)
{
    uint64_t v = 0;
    for (size_t i = 0; i < w; i++)
        v = v * base + (uint64_t)digit_value(r->cur[p + i], base);
    return v;
}

/* The span of v bytes that a count ending at end delimits when it starts after the count's line:
 * its start s, its end e, and t, just past the line end after it (e when there is none). False
 * when the count has no line end after it or the input ends inside the span. */
static bool span_after_line(const struct cd_reduce_run *r, size_t end, uint64_t v, size_t *s,
                            size_t *e, size_t *t)
{
    const uint8_t *nl = memchr(r->cur + end, '\n', r->len - end);
    if (!nl)
        return false;
    *s = (size_t)(nl - r->cur) + 1;
    if (v > r->len - *s)
        return false;
    *e = *s + v;
    const uint8_t *tnl = memchr(r->cur + *e, '\n', r->len - *e);
    *t = tnl ? (size_t)(tnl - r->cur) + 1 : *e;
    return true;
}

/* Tests the number at [p, p+w) (value v) that counts the span after its line split in two: its
 * first i digits and the rest, each with its own copy of the line's rest (chunk extensions), its
 * part of the span and the line end after the span. A parser that counts the kinds of digits it
 * reads sees the same digits, and the span falls from v bytes to the two parts' values: the HTTP
 * sample's chunk size "aa" (170 bytes) becomes "a" and "a" (10 bytes each), where halving or
 * fewer letters loses the label. */
static bool try_split(struct cd_reduce_run *r, size_t p, size_t w, unsigned base, uint64_t v)
{
    size_t end = p + w, s, e, t;
    if (w < 2 || !span_after_line(r, end, v, &s, &e, &t))
        return false;
    size_t rest = s - end, after = t - e;
    for (size_t i = 1; i < w && !r->stopped; i++) {
        uint64_t v1 = digits_value(r, p, i, base), v2 = digits_value(r, p + i, w - i, base);
        if (!v1 || !v2 || v1 + v2 + rest + after >= v)
            continue; /* a zero part ends the body; no gain */
        size_t o = 0;
        const struct {
            size_t from, n;
        } parts[] = {{0, p + i}, {end, rest}, {s, v1}, {e, after}, {p + i, w - i}, {end, rest},
                     {s + v1, v2}, {e, r->len - e}};
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
            memcpy(r->cand + o, r->cur + parts[k].from, parts[k].n);
            o += parts[k].n;
        }
        if (cd_reduce_try(r, o))
            return true;
    }
    return false;
}

/* Shrinks the number at [p, p+w) read in base with the span it counts. A hex number with letters
 * first goes to the least number of as many digits and letters (zeros, then as many a's: "de" to
 * "aa", "a7" and "13c" to "0a" and "00a"): a parser counts the kinds of characters it reads, and
 * halving drops the letters that such a label needs ("a7" to "53"), so the HTTP sample's
 * chunk-size labels stayed in examples of several KB. Then to half its value, then split in two
 * (try_split). Before all these, a number of two or more digits goes to one ("0a" to "01"): a
 * label that counts digits alone keeps them, and its span goes with them. */
static bool shrink_count(struct cd_reduce_run *r, size_t p, size_t w, unsigned base)
{
    uint64_t v = 0, least = 0;
    size_t letters = 0;
    bool upper = false;
    uint8_t rep[24];
    for (size_t i = 0; i < w; i++) {
        int d = digit_value(r->cur[p + i], base);
        if (d < 0 || v > (UINT64_MAX - 15) / 16)
            return false;
        upper |= r->cur[p + i] >= 'A' && r->cur[p + i] <= 'F';
        v = v * base + (uint64_t)d;
        if (d >= 10)
            rep[w - 1 - letters++] = r->cur[p + i] >= 'a' ? 'a' : 'A';
    }
    if (v < 2 || v > r->len)
        return false;
    for (size_t i = 0; i < w; i++) {
        if (i < w - letters)
            rep[i] = '0';
        least = least * base + (i < w - letters ? 0 : 10);
    }
    if (w > 1) {
        uint8_t one[24];
        memset(one, '0', w - 1);
        one[w - 1] = '1';
        if (try_count(r, p, w, v, one, w, 1))
            return true;
    }
    if (letters && least < v && try_count(r, p, w, v, rep, w, least))
        return true;
    uint64_t half = v / 2;
    size_t m = format_number(half, base, upper, rep);
    return (m <= w && try_count(r, p, w, v, rep, m, half)) || try_split(r, p, w, base, v);
}

/* Tests the number at [p, p+w) (value v in base) joined with the next count, the nonzero digits
 * on the line after its span: everything between them goes. A parser that counts the kinds of
 * digits it reads sees the same digits in fewer counts; the joined count claims more than is
 * left, which a parser that stops at the input's end takes as a cut-off last chunk. Sixteen
 * chunks of "a" and ten bytes each, which the HTTP sample's label for sixteen hex letters kept,
 * become one line of sixteen a's. */
static bool try_join(struct cd_reduce_run *r, size_t p, size_t w, unsigned base)
{
    size_t end = p + w, s, e, t, w2 = 0;
    bool nonzero = false;
    if (!span_after_line(r, end, digits_value(r, p, w, base), &s, &e, &t) || t == e)
        return false;
    for (; t + w2 < r->len && digit_value(r->cur[t + w2], 16) >= 0; w2++)
        nonzero |= r->cur[t + w2] != '0';
    if (!nonzero || w + w2 > 16)
        return false; /* a zero count ends the body; longer sizes overflow */
    memcpy(r->cand, r->cur, end);
    memcpy(r->cand + end, r->cur + t, r->len - t);
    return cd_reduce_try(r, end + r->len - t);
}

/* Start of the run of hex digits before p, or p when there is none: where the scan goes back to
 * when a join made the count before p a candidate for another one. */
static size_t previous_run(const struct cd_reduce_run *r, size_t p)
{
    size_t q = p;
    while (q > 0 && digit_value(r->cur[q - 1], 16) < 0)
        q--;
    if (q == 0)
        return p;
    while (q > 0 && digit_value(r->cur[q - 1], 16) >= 0)
        q--;
    return q;
}

/* Whether c continues a word: a letter past 'f' or an underscore. */
static bool word_char(uint8_t c)
{
    return ((c | 0x20) >= 'g' && (c | 0x20) <= 'z') || c == '_';
}

/* Whether the hex run [p, p+w) is part of a word ("bad" in "badge", "A" in "A_1"), not a number
 * of its own; "0x" before it still makes a number. In source code nearly every short name is
 * such a run: on Lua scripts the pass ran a quarter of a million candidates for 240 bytes in a
 * run to the fixed point (tools/bench/FINDINGS.md, the lengths pass). */
static bool in_word(const struct cd_reduce_run *r, size_t p, size_t w)
{
    bool hex_prefix = p >= 2 && (r->cur[p - 1] | 0x20) == 'x' && r->cur[p - 2] == '0';
    return (p > 0 && word_char(r->cur[p - 1]) && !hex_prefix) ||
           (p + w < r->len && word_char(r->cur[p + w]));
}

/* Text formats count what follows in decimal or hex numbers (Content-Length, chunk sizes,
 * netstrings): neither a smaller number nor a shorter span alone keeps the parse, both together
 * do. Each run of hex digits that is not part of a word is shrunk with the span it counts
 * (shrink_count), read in decimal first when it can be, or else joined with the count after its
 * span (try_join). */
bool cd_reduce_lengths(struct cd_reduce_run *r)
{
    bool any = false;
    size_t p = 0;
    while (p < r->len && !r->stopped) {
        if (digit_value(r->cur[p], 16) < 0 || (p > 0 && digit_value(r->cur[p - 1], 16) >= 0)) {
            p++;
            continue;
        }
        size_t w = 0, dec = 0;
        while (p + w < r->len && digit_value(r->cur[p + w], 16) >= 0) {
            dec += digit_value(r->cur[p + w], 10) >= 0;
            w++;
        }
        if (in_word(r, p, w)) {
            p += w;
            continue;
        }
        if (w <= 16 && ((dec == w && shrink_count(r, p, w, 10)) || shrink_count(r, p, w, 16))) {
            any = true;
            continue; /* shrink it again */
        }
        if (w < 16 && ((dec == w && try_join(r, p, w, 10)) || try_join(r, p, w, 16))) {
            any = true;
            p = previous_run(r, p); /* the count before may join this one */
            continue;
        }
        p += w;
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
