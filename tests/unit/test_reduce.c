/* Unit tests for the reducer: each pass and the driver reach known minima under simple predicates,
 * every adopted candidate is strictly shortlex-smaller, the stop check ends a run promptly. */
#include "reduce/reduce_internal.h"
#include "table/cd_table.h"
#include "harness.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct pctx {
    bool (*fn)(const uint8_t *s, size_t n);
    uint8_t last[4096];   /* last adopted example, to check strict shortlex descent */
    size_t last_len;
    uint64_t calls;
    uint64_t stop_after;  /* stop check fires after this many calls; 0: never */
    bool descent_ok;
};

static bool pred(void *ctx, const uint8_t *cand, size_t len)
{
    struct pctx *p = ctx;
    p->calls++;
    if (cd_table_shortlex(cand, len, p->last, p->last_len) >= 0) {
        p->descent_ok = false;
        return false; /* adopting it could loop for ever */
    }
    if (!p->fn(cand, len))
        return false;
    memcpy(p->last, cand, len);
    p->last_len = len;
    return true;
}

static bool stop(void *ctx)
{
    struct pctx *p = ctx;
    return p->stop_after && p->calls >= p->stop_after;
}

static bool has(const uint8_t *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (!memcmp(s + i, needle, m))
            return true;
    return false;
}

static bool has_x_and_y(const uint8_t *s, size_t n)
{
    return memchr(s, 'x', n) && memchr(s, 'y', n);
}

/* Starts p for the n bytes at in under fn. */
static void pctx_start(struct pctx *p, bool (*fn)(const uint8_t *, size_t), const uint8_t *in,
                       size_t n)
{
    memset(p, 0, sizeof *p);
    p->fn = fn;
    p->descent_ok = true;
    memcpy(p->last, in, n);
    p->last_len = n;
}

/* Runs the whole reducer on the n bytes at in under p (started); *out (owned) and *len get the
 * result. */
static enum cd_status reduce_bytes(struct pctx *p, struct cd_reducer *red, const uint8_t *in,
                                   size_t n, uint8_t **out, size_t *len, bool *changed)
{
    struct cd_reduce_target t = {pred, stop, p, false, false};
    struct cd_error err;
    *out = NULL;
    *len = 0;
    return cd_reducer_run(red, &t, in, n, out, len, changed, NULL, &err);
}

/* Runs the whole reducer on text under fn; returns the owned result. */
static char *reduce(const char *text, bool (*fn)(const uint8_t *, size_t), struct pctx *p,
                    struct cd_reducer *red, enum cd_status *st, bool *changed)
{
    uint8_t *out;
    size_t len;
    pctx_start(p, fn, (const uint8_t *)text, strlen(text));
    *st = reduce_bytes(p, red, (const uint8_t *)text, strlen(text), &out, &len, changed);
    char *s = malloc(len + 1);
    memcpy(s, out, len);
    s[len] = 0;
    free(out);
    return s;
}

static void test_reduce_to_xy(void)
{
    struct pctx p;
    struct cd_reducer red = {0};
    enum cd_status st;
    bool changed;
    char *s = reduce("aaaa bbx ccccc\ndddd yy eeee", has_x_and_y, &p, &red, &st, &changed);
    CU_ASSERT_EQUAL(st, CD_OK);
    CU_ASSERT(changed);
    CU_ASSERT_STRING_EQUAL(s, "xy");
    CU_ASSERT(p.descent_ok);
    uint64_t execs = 0, succ = 0;
    for (unsigned i = 0; i < cd_reduce_n_passes(); i++) {
        execs += red.stats[i].execs;
        succ += red.stats[i].successes;
    }
    CU_ASSERT_EQUAL(execs, p.calls);
    CU_ASSERT(succ > 0 && succ < execs);
    /* a fixpoint: reducing the result again adopts nothing */
    char *again = reduce(s, has_x_and_y, &p, &red, &st, &changed);
    CU_ASSERT_EQUAL(st, CD_OK);
    CU_ASSERT(!changed);
    CU_ASSERT_STRING_EQUAL(again, "xy");
    free(again);
    free(s);
}

static bool long4(const uint8_t *s, size_t n)
{
    (void)s;
    return n >= 4;
}

static bool first_at_least_m(const uint8_t *s, size_t n)
{
    return n >= 1 && s[0] >= 'm';
}

static bool number_at_least_10(const uint8_t *s, size_t n)
{
    if (n == 0 || n > 9)
        return false;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    return v >= 10;
}

static void test_reduce_lowers_bytes(void)
{
    struct pctx p;
    struct cd_reducer red = {0};
    enum cd_status st;
    bool changed;
    /* text stays text: its bytes go down to 1, never to a NUL (test_reduce_single_passes lowers
       a binary example to 0) */
    char *s = reduce("hello world", long4, &p, &red, &st, &changed);
    CU_ASSERT_STRING_EQUAL(s, "\x01\x01\x01\x01");
    free(s);
    s = reduce("zzzz", first_at_least_m, &p, &red, &st, &changed);
    CU_ASSERT_STRING_EQUAL(s, "m");
    CU_ASSERT(p.descent_ok);
    free(s);
    s = reduce("98765", number_at_least_10, &p, &red, &st, &changed);
    CU_ASSERT_STRING_EQUAL(s, "10");
    CU_ASSERT(p.descent_ok);
    free(s);
}

static bool keep_line(const uint8_t *s, size_t n)
{
    return has(s, n, "KEEP");
}

static bool has_f(const uint8_t *s, size_t n)
{
    return memchr(s, 'f', n) != NULL;
}

static bool has_fx(const uint8_t *s, size_t n)
{
    return has(s, n, "f()") && memchr(s, 'x', n);
}

/* Runs one pass once on text; returns whether it adopted something and leaves the result in p. */
static bool one_pass_n(cd_reduce_pass_fn_t pass, const char *text, size_t n,
                       bool (*fn)(const uint8_t *, size_t), struct pctx *p,
                       struct cd_reduce_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    pctx_start(p, fn, (const uint8_t *)text, n);
    struct cd_reduce_target t = {pred, stop, p, false, false};
    uint8_t cur[256], cand[256];
    memcpy(cur, text, n);
    struct cd_reduce_run r = {&t, cur, n, cand, n, stats, false};
    bool any = pass(&r);
    CU_ASSERT_EQUAL(r.len, p->last_len);
    CU_ASSERT(!memcmp(r.cur, p->last, r.len));
    return any;
}

static bool one_pass(cd_reduce_pass_fn_t pass, const char *text,
                     bool (*fn)(const uint8_t *, size_t), struct pctx *p,
                     struct cd_reduce_stats *stats)
{
    return one_pass_n(pass, text, strlen(text), fn, p, stats);
}

/* The last adopted candidate is want. */
static void last_is(const struct pctx *p, const char *want)
{
    CU_ASSERT_EQUAL(p->last_len, strlen(want));
    CU_ASSERT(!memcmp(p->last, want, strlen(want)));
}

/* Runs pass once on text, which fn must accept, and checks that it adopts something, want last,
 * every candidate strictly shortlex-smaller. */
static void pass_reaches(cd_reduce_pass_fn_t pass, const char *text,
                         bool (*fn)(const uint8_t *, size_t), const char *want, struct pctx *p,
                         struct cd_reduce_stats *st)
{
    CU_ASSERT_FATAL(fn((const uint8_t *)text, strlen(text)));
    CU_ASSERT(one_pass(pass, text, fn, p, st));
    last_is(p, want);
    CU_ASSERT(p->descent_ok);
}

static void test_reduce_single_passes(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    CU_ASSERT(one_pass(cd_reduce_lines, "a\nbb\nKEEP\ncc\ndd\nee\n", keep_line, &p, &st));
    last_is(&p, "KEEP\n");
    CU_ASSERT(st.successes >= 2);
    /* no newline: the line pass costs nothing */
    CU_ASSERT(!one_pass(cd_reduce_lines, "KEEP this", keep_line, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 0);
    CU_ASSERT(one_pass(cd_reduce_brackets, "f(a,(b))[x]{y}<z>", has_f, &p, &st));
    CU_ASSERT_EQUAL(p.last_len, 1);
    CU_ASSERT(one_pass(cd_reduce_brackets, "f(a,[b]) x", has_fx, &p, &st));
    last_is(&p, "f() x");
    /* the blocks pass stops after the first size that deleted something; called again until
       it deletes nothing, it gets to the two bytes in far fewer tries than one per byte per size */
    const char *xy = "0123456789abcdefxghijklmnopqrstuvwy";
    CU_ASSERT(one_pass(cd_reduce_blocks, xy, has_x_and_y, &p, &st));
    CU_ASSERT(p.last_len < strlen(xy));
    uint64_t block_execs = st.execs;
    char left[256];
    for (int round = 0; round < 20; round++) {
        memcpy(left, p.last, p.last_len);
        left[p.last_len] = 0;
        if (!one_pass(cd_reduce_blocks, left, has_x_and_y, &p, &st))
            break;
        block_execs += st.execs;
    }
    block_execs += st.execs;
    CU_ASSERT_EQUAL(p.last_len, 2);
    CU_ASSERT(block_execs < 120);
    CU_ASSERT(one_pass(cd_reduce_digits, "123456", number_at_least_10, &p, &st));
    CU_ASSERT(p.last_len == 2);
    CU_ASSERT(one_pass_n(cd_reduce_bytes, "zz\0z", 4, first_at_least_m, &p, &st));
    CU_ASSERT(!memcmp(p.last, "m\0\0\0", 4));
    CU_ASSERT(one_pass(cd_reduce_bytes, "zzzz", first_at_least_m, &p, &st));
    CU_ASSERT(!memcmp(p.last, "m\x01\x01\x01", 4));
    CU_ASSERT(st.execs <= 4 * 9); /* one lower, then a binary search, for each byte */
    CU_ASSERT(one_pass(cd_reduce_pairs, "ab", long4, &p, &st) == false);
    CU_ASSERT(p.descent_ok);
}

static uint32_t chunk_crc(const uint8_t *type_and_data, size_t len)
{
    return (uint32_t)crc32(0L, type_and_data, (uInt)(4 + len));
}

/* A PNG-like stream: chunks of (big-endian length, 4-byte type, data, 4-byte check) that tile the
 * input exactly, the check a right CRC-32 of type and data when crc is set. Calls each on every
 * chunk; false when the stream is not valid. */
static bool walk_chunks(const uint8_t *s, size_t n, bool crc,
                        void (*each)(const uint8_t *type, const uint8_t *data, size_t len,
                                     bool found[2]),
                        bool found[2])
{
    size_t i = 0;
    while (i < n) {
        if (n - i < 12)
            return false;
        size_t len = cd_reduce_be32(s + i);
        if (len > n - i - 12)
            return false;
        if (crc && chunk_crc(s + i + 4, len) != cd_reduce_be32(s + i + 8 + len))
            return false;
        each(s + i + 4, s + i + 8, len, found);
        i += 12 + len;
    }
    return true;
}

static void find_keep(const uint8_t *type, const uint8_t *data, size_t len, bool found[2])
{
    (void)data;
    (void)len;
    found[0] |= !memcmp(type, "KEEP", 4);
}

/* The predicate wants a valid stream (any check bytes) with a "KEEP" chunk. */
static bool chunks_valid_with_keep(const uint8_t *s, size_t n)
{
    bool found[2] = {false, false};
    return walk_chunks(s, n, false, find_keep, found) && found[0];
}

static size_t put_chunk(uint8_t *out, const char *type, size_t len)
{
    out[0] = out[1] = out[2] = 0;
    out[3] = (uint8_t)len;
    memcpy(out + 4, type, 4);
    memset(out + 8, 'd', len + 4);
    return 12 + len;
}

static void test_reduce_chunks_delete_whole_parts(void)
{
    struct pctx p = {.fn = chunks_valid_with_keep, .descent_ok = true};
    struct cd_reduce_stats stats = {0};
    uint8_t cur[256], cand[256];
    size_t n = put_chunk(cur, "HEAD", 20);
    n += put_chunk(cur + n, "DATA", 30);
    n += put_chunk(cur + n, "KEEP", 5);
    n += put_chunk(cur + n, "TAIL", 0);
    memcpy(p.last, cur, n);
    p.last_len = n;
    CU_ASSERT(chunks_valid_with_keep(cur, n));
    struct cd_reduce_target t = {pred, stop, &p, false, false};
    struct cd_reduce_run r = {&t, cur, n, cand, n, &stats, false};
    CU_ASSERT(cd_reduce_chunks(&r));
    CU_ASSERT_EQUAL(r.len, 17); /* the KEEP chunk alone */
    CU_ASSERT(!memcmp(r.cur + 4, "KEEP", 4));
    CU_ASSERT(stats.execs < 40);
    CU_ASSERT(p.descent_ok);
    /* text: 32-bit words are far larger than the input, so nothing is tried */
    struct pctx q = {.fn = has_x_and_y, .descent_ok = true};
    const char *text = "some text with x and y in it";
    struct cd_reduce_stats qs = {0};
    memcpy(cur, text, strlen(text));
    memcpy(q.last, text, strlen(text));
    q.last_len = strlen(text);
    struct cd_reduce_target qt = {pred, stop, &q, false, false};
    struct cd_reduce_run qr = {&qt, cur, strlen(text), cand, strlen(text), &qs, false};
    CU_ASSERT(!cd_reduce_chunks(&qr));
    CU_ASSERT_EQUAL(qs.execs, 0);
}

/* Netstring-like "N:" followed by exactly N bytes of 'x', then "END"; the label wants N >= 3. */
static bool counted_body(const uint8_t *s, size_t n)
{
    size_t v = 0, i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        v = v * 10 + (size_t)(s[i++] - '0');
    if (i == 0 || i >= n || s[i] != ':' || v < 3 || n - i - 1 != v + 3)
        return false;
    for (size_t k = 0; k < v; k++)
        if (s[i + 1 + k] != 'x')
            return false;
    return !memcmp(s + i + 1 + v, "END", 3);
}

static void test_reduce_lengths_shrink_count_and_span(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    char text[64];
    snprintf(text, sizeof text, "40:%.40sEND", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    CU_ASSERT(counted_body((const uint8_t *)text, strlen(text)));
    CU_ASSERT(one_pass(cd_reduce_lengths, text, counted_body, &p, &st));
    last_is(&p, "5:xxxxxEND"); /* 40 -> 20 -> 10 -> 5 (halving to 2 would lose it) */
    CU_ASSERT(st.execs < 30);
    CU_ASSERT(p.descent_ok);
    /* neither deletions nor digit shrinking alone keep this label */
    CU_ASSERT(!one_pass(cd_reduce_blocks, "5:xxxxxEND", counted_body, &p, &st) ||
              p.last_len == 10);
}

/* A chunk-size line: a hex size, a newline, exactly that many 'x', then "END". Whether s is
 * one, with the digits and the letters of its size. */
static bool hex_size_body(const uint8_t *s, size_t n, size_t *digits, size_t *letters)
{
    size_t v = 0, i = 0;
    *letters = 0;
    for (; i < n && isxdigit(s[i]); i++) {
        *letters += !isdigit(s[i]);
        v = v * 16 + (size_t)(isdigit(s[i]) ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
    }
    *digits = i;
    if (i == 0 || i >= n || s[i] != '\n' || n - i - 1 != v + 3)
        return false;
    for (size_t k = 0; k < v; k++)
        if (s[i + 1 + k] != 'x')
            return false;
    return !memcmp(s + i + 1 + v, "END", 3);
}

/* An HTTP parser with a label for hex letters in chunk sizes needs one. */
static bool hex_counted_body(const uint8_t *s, size_t n)
{
    size_t digits, letters;
    return hex_size_body(s, n, &digits, &letters) && letters > 0;
}

/* A label for the digits a parser reads in a size needs three. */
static bool three_digit_count(const uint8_t *s, size_t n)
{
    size_t digits, letters;
    return hex_size_body(s, n, &digits, &letters) && digits >= 3;
}

/* Writes size, a newline, v 'x' and "END" into text (256 bytes). */
static void size_body_text(char *text, const char *size, size_t v)
{
    int n = snprintf(text, 256, "%s\n", size);
    memset(text + n, 'x', v);
    memcpy(text + n + v, "END", 4);
}

/* Halving a7 (167) gives 53, without a letter: the pass goes to 0a (10) instead. */
static void test_reduce_lengths_keep_hex_letters(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    char text[256];
    size_body_text(text, "a7", 167);
    pass_reaches(cd_reduce_lengths, text, hex_counted_body, "0a\nxxxxxxxxxxEND", &p, &st);
    CU_ASSERT(st.execs < 20); /* one success, then the failing tries on 0a, E and D */
}

/* Holds for every input: any candidate the pass made would be run. */
static bool any_input(const uint8_t *s, size_t n)
{
    (void)s;
    (void)n;
    return true;
}

/* A hex run inside a name is no count: the pass makes no candidate of "a", "be", "face" or "d"
 * in names. A count after "0x" is shrunk with its span. */
static void test_reduce_lengths_skip_names(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    CU_ASSERT(!one_pass(cd_reduce_lengths, "local a_b=face_up(be_x)\nlist[d_1]=x\n\n", any_input,
                        &p, &st));
    CU_ASSERT_EQUAL(st.execs, 0);
    char text[256];
    size_body_text(text, "0x1a", 26);
    CU_ASSERT(one_pass(cd_reduce_lengths, text, any_input, &p, &st));
    CU_ASSERT(p.last_len < strlen(text));
}

/* "0a7" (167 bytes) goes to "001" in one step: the label counts digits, not their value. */
static void test_reduce_lengths_count_to_one(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    char text[256];
    size_body_text(text, "0a7", 167);
    pass_reaches(cd_reduce_lengths, text, three_digit_count, "001\nxEND", &p, &st);
    CU_ASSERT(st.successes == 1);
}

/* HTTP chunked coding: hex size lines, each followed by that many 'x' and CRLF, up to a zero size
 * and an empty line. Whether s is one, or when cut_ok a prefix of one cut inside a span, with the
 * hex letters read in its sizes. */
static bool chunked_letters(const uint8_t *s, size_t n, bool cut_ok, size_t *letters)
{
    size_t i = 0;
    *letters = 0;
    for (;;) {
        size_t v = 0, k = i;
        for (; k < n && isxdigit(s[k]); k++) {
            *letters += !isdigit(s[k]);
            v = v * 16 + (size_t)(isdigit(s[k]) ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10);
        }
        if (k == i || n - k < 2 || memcmp(s + k, "\r\n", 2))
            return false;
        i = k + 2;
        if (v == 0)
            return n - i == 2 && !memcmp(s + i, "\r\n", 2);
        if (n - i < v + 2) {
            for (size_t j = i; j < n; j++)
                if (s[j] != 'x')
                    return false;
            return cut_ok;
        }
        for (size_t j = 0; j < v; j++)
            if (s[i + j] != 'x')
                return false;
        if (memcmp(s + i + v, "\r\n", 2))
            return false;
        i += v + 2;
    }
}

/* The label wants exactly two hex letters read in the sizes of a whole chunked body. */
static bool two_letter_chunks(const uint8_t *s, size_t n)
{
    size_t letters;
    return chunked_letters(s, n, false, &letters) && letters == 2;
}

/* The label wants four hex letters read, by a parser that takes a body cut inside a chunk. */
static bool four_letters_read(const uint8_t *s, size_t n)
{
    size_t letters;
    return chunked_letters(s, n, true, &letters) && letters >= 4;
}

/* Neither fewer letters nor half the size keeps "aa" (170 bytes): split in two, "a" and "a"
 * carry the same letters with 10 bytes each. */
static void test_reduce_lengths_split_count(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    char text[256];
    int n = snprintf(text, sizeof text, "aa\r\n");
    memset(text + n, 'x', 170);
    memcpy(text + n + 170, "\r\n0\r\n\r\n", 8);
    const char *want = "a\r\nxxxxxxxxxx\r\na\r\nxxxxxxxxxx\r\n0\r\n\r\n";
    pass_reaches(cd_reduce_lengths, text, two_letter_chunks, want, &p, &st);
    /* "aa" to "01" and to half, and each "a" to half, fail at each of the three places a span
       may start; one split; the first "a" joined with the second */
    CU_ASSERT(st.execs <= 14);
}

/* Four chunks of "a", the last cut short: halving any loses a letter, and so does joining two
 * whole chunks ("aa" claims 170 bytes); joining the last two keeps all four letters, and then
 * each earlier one joins in turn. */
static void test_reduce_lengths_join_counts(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    const char *text = "a\r\nxxxxxxxxxx\r\na\r\nxxxxxxxxxx\r\na\r\nxxxxxxxxxx\r\na\r\nxx";
    pass_reaches(cd_reduce_lengths, text, four_letters_read, "aaaa\r\nxx", &p, &st);
    CU_ASSERT_EQUAL(st.successes, 3);
}

/* Whether no comma of s is doubled, after an opening bracket or before a closing one. */
static bool commas_placed(const uint8_t *s, size_t n)
{
    static const char *const bad[] = {",,", ",}", ",]", "{,", "[,"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        if (has(s, n, bad[k]))
            return false;
    return true;
}

/* Both records by id, in a list whose commas and brackets are well placed. */
static bool two_ids(const uint8_t *s, size_t n)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += s[i] == '[' || s[i] == '{';
        depth -= s[i] == ']' || s[i] == '}';
        if (depth < 0)
            return false;
    }
    return depth == 0 && commas_placed(s, n) && has(s, n, "\"id\":1") && has(s, n, "\"id\":2");
}

/* Members and elements that are no bracketed span go one by one and in runs, a comma inside a
 * string splits nothing, and the last item goes with the comma before it. */
static void test_reduce_items_delete_members(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    const char *text = "[{\"id\":1,\"name\":\"x, y\",\"tags\":[1,2]},{\"note\":\"a\",\"id\":2},7,8]";
    const char *want = "[{\"id\":1},{\"id\":2}]";
    pass_reaches(cd_reduce_items, text, two_ids, want, &p, &st);
    /* the brackets pass cannot: no member is a bracketed span */
    CU_ASSERT(!one_pass(cd_reduce_brackets, "[{\"id\":1,\"n\":0},{\"id\":2}]", two_ids, &p, &st));
}

/* Five exponents in a JSON-like list: brackets balanced, a colon only inside an object, every
 * member of an object starting with a key, commas well placed. */
static bool five_exponents(const uint8_t *s, size_t n)
{
    uint8_t stack[32];
    size_t depth = 0, exps = 0;
    for (size_t i = 0; i < n; i++) {
        bool in_object = depth && stack[depth - 1] == '{';
        if (s[i] == '[' || s[i] == '{') {
            if (depth == sizeof stack)
                return false;
            stack[depth++] = s[i];
        } else if (s[i] == ']' || s[i] == '}') {
            if (!depth || stack[--depth] != (s[i] == ']' ? '[' : '{'))
                return false;
        } else if (s[i] == ':' && !in_object) {
            return false;
        }
        if ((s[i] == '{' || (s[i] == ',' && in_object)) && (i + 1 == n || s[i + 1] != '"'))
            return false;
        exps += s[i] == 'E';
    }
    return depth == 0 && n && s[0] == '[' && s[n - 1] == ']' && exps >= 5 && commas_placed(s, n);
}

/* Each exponent comes out of the object and the list that wrap it, the two of an object together;
 * no deletion alone can do it. */
static void test_reduce_hoist_values(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    const char *text = "[{\"\":1E0},{\"a\": [2E0]},3E0,{\"\":4E0,\"b\":5E0}]";
    const char *want = "[1E0,2E0,3E0,4E0,5E0]";
    pass_reaches(cd_reduce_hoist, text, five_exponents, want, &p, &st);
    CU_ASSERT_EQUAL(st.successes, 4);
    CU_ASSERT(!one_pass(cd_reduce_brackets, text, five_exponents, &p, &st));
    CU_ASSERT(!one_pass(cd_reduce_items, text, five_exponents, &p, &st));
}

/* A list of five objects or more at the top: brackets balanced, each top-level item an object
 * (a count a label may need, whatever the objects hold). */
static bool five_objects(const uint8_t *s, size_t n)
{
    int depth = 0;
    size_t items = 0;
    for (size_t i = 0; i < n; i++) {
        if (depth == 1 && (s[i - 1] == '[' || s[i - 1] == ',')) {
            if (s[i] != '{')
                return false;
            items++;
        }
        depth += s[i] == '[' || s[i] == '{';
        depth -= s[i] == ']' || s[i] == '}';
        if (depth < 0 || (depth == 0 && i + 1 < n))
            return false;
    }
    return depth == 0 && n && s[0] == '[' && items >= 5;
}

/* Brackets balanced, one list around all. */
static bool balanced(const uint8_t *s, size_t n)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        depth += s[i] == '[';
        depth -= s[i] == ']';
        if (depth < 0 || (depth == 0 && i + 1 < n))
            return false;
    }
    return n && depth == 0;
}

/* A list with four 7s, no more: a hit-count class a label holds. */
static bool four_sevens(const uint8_t *s, size_t n)
{
    size_t sevens = 0;
    for (size_t i = 0; i < n; i++)
        sevens += s[i] == '7';
    return n && s[0] == '[' && sevens == 4;
}

/* Every item of the list that saves most becomes its shortest in one candidate, the count kept;
 * a list cut short counts to the end, its last item kept; a list made alike is then cut in all
 * its items at once. */
static void test_reduce_uniform_items(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    const char *text = "[{\"a\":1,\"b\":[2,3]},{\"c\":4},{\"d\":{\"e\":5}},{\"f\":66},{}]";
    pass_reaches(cd_reduce_uniform, text, five_objects, "[{},{},{},{},{}]", &p, &st);
    CU_ASSERT_EQUAL(st.execs, 1);
    CU_ASSERT(!one_pass(cd_reduce_uniform, "[{},{},{},{},{}]", five_objects, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 2); /* alike: only the cut, of each byte of its item */

    char cut[256] = "[{\"k\":7,\"x\":\"long\"},{\"k\":7,\"x\":\"longer\"},{\"x\":\"l\",\"k\":7},"
                    "{\"k\":7,\"x\":\"longest\"},{\"k\":";
    pass_reaches(cd_reduce_uniform, cut, four_sevens,
                 "[{\"x\":\"l\",\"k\":7},{\"x\":\"l\",\"k\":7},{\"x\":\"l\",\"k\":7},"
                 "{\"x\":\"l\",\"k\":7},{\"k\":", &p, &st);
    for (int k = 0; k < 20 && one_pass(cd_reduce_uniform, cut, four_sevens, &p, &st); k++) {
        memcpy(cut, p.last, p.last_len);
        cut[p.last_len] = '\0';
        CU_ASSERT(p.descent_ok);
    }
    CU_ASSERT_STRING_EQUAL(cut, "[7,7,7,7,{\"k\":");

    /* more lists than a call tries: the one that saves most goes first */
    const char *many = "[[1,2,3333333],[1,2,3333333],[1,2,3333333],[1,2,3333333],[1,2,3333333],"
                       "[1,2,3333333],[0,0,123456789012]]";
    pass_reaches(cd_reduce_uniform, many, balanced,
                 "[[1,2,3333333],[1,2,3333333],[1,2,3333333],[1,2,3333333],[1,2,3333333],"
                 "[1,2,3333333],[0,0,0]]", &p, &st);
    CU_ASSERT_EQUAL(st.execs, 1);
}

/* Length of a user record {"type":"user","name":N,"email":E} at s, N not empty, E an address
 * with a dot in its domain; 0 when there is none. */
static size_t user_record(const uint8_t *s, size_t n)
{
    static const char head[] = "{\"type\":\"user\",\"name\":\"", mid[] = "\",\"email\":\"";
    size_t i = sizeof head - 1;
    if (n < i || memcmp(s, head, i))
        return 0;
    const uint8_t *q = memchr(s + i, '"', n - i);
    if (!q || q == s + i || (size_t)(s + n - q) < sizeof mid - 1 || memcmp(q, mid, sizeof mid - 1))
        return 0;
    const uint8_t *a = q + sizeof mid - 1, *end = memchr(a, '"', (size_t)(s + n - a));
    if (!end || (size_t)(s + n - end) < 2 || end[1] != '}')
        return 0;
    const uint8_t *at = memchr(a, '@', (size_t)(end - a));
    if (!at || at == a)
        return 0;
    const uint8_t *dot = memchr(at + 1, '.', (size_t)(end - at - 1));
    if (!dot || dot == at + 1 || dot + 1 == end)
        return 0;
    return (size_t)(end + 2 - s);
}

/* A list of two user records. */
static bool two_users(const uint8_t *s, size_t n)
{
    size_t a, b;
    if (n < 2 || s[0] != '[' || !(a = user_record(s + 1, n - 1)) || a + 2 > n - 1 ||
        s[1 + a] != ',' || !(b = user_record(s + 2 + a, n - 2 - a)))
        return false;
    return 2 + a + b + 1 == n && s[n - 1] == ']';
}

/* Names and addresses lose their words' characters but the first ("Fée" to "F"), a name with
 * both its copies at once, then the words an address can do without; keys and the record type,
 * which the label needs whole, stay. */
static void test_reduce_words_cut_strings(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    const char *text =
        "[{\"type\":\"user\",\"name\":\"F\xc3\xa9" "e Rupert\",\"email\":\"dave.0@male.example.net\"},"
        "{\"type\":\"user\",\"name\":\"F\xc3\xa9" "e Rupert\",\"email\":\"x@ab.cd\"}]";
    const char *want = "[{\"type\":\"user\",\"name\":\"R\",\"email\":\"0@m.n\"},"
                       "{\"type\":\"user\",\"name\":\"R\",\"email\":\"x@a.c\"}]";
    pass_reaches(cd_reduce_words, text, two_users, want, &p, &st);
    /* the name cut and its first word dropped, in both copies at once; each address cut; "d."
       and ".e" dropped. "user" is tried cut in both copies, then alone, at each record. */
    CU_ASSERT_EQUAL(st.successes, 6);
    CU_ASSERT(st.execs <= 16);
}

/* The first 63 bytes of s that are not in drop, as a string in out. */
static const char *squeeze(const uint8_t *s, size_t n, const char *drop, char out[64])
{
    size_t m = 0;
    for (size_t i = 0; i < n && m < 63; i++)
        if (!s[i] || !strchr(drop, s[i]))
            out[m++] = (char)s[i];
    out[m] = 0;
    return out;
}

/* "GET /" and, blanks aside, the rest of a request line. */
static bool get_line(const uint8_t *s, size_t n)
{
    char out[64];
    return n >= 5 && !memcmp(s, "GET /", 5) && !strcmp(squeeze(s, n, " \t", out), "GET/x=1;y=2");
}

/* All blanks at once fail (GET needs its space), so halves and quarters go. */
static void test_reduce_spaces_delete_blank_runs(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    const char *text = "GET / x  =  1 ;\ty\t= 2  ";
    pass_reaches(cd_reduce_spaces, text, get_line, "GET /x=1;y=2", &p, &st);
    CU_ASSERT(st.execs <= 12);
}

/* Blanks and line breaks aside, the object {"a":[],"b":[],"c":[]}: every member is needed (as a
 * label of a hit-count class needs every element it counts). */
static bool three_members(const uint8_t *s, size_t n)
{
    char out[64];
    return !strcmp(squeeze(s, n, " \t\r\n", out), "{\"a\":[],\"b\":[],\"c\":[]}");
}

/* Indentation aside, the two lines "GET /x" and "Host: y" with their CRLF breaks. */
static bool two_lines(const uint8_t *s, size_t n)
{
    char t[64];
    size_t m = 0;
    for (size_t i = 0; i < n && m < sizeof t - 1; i++)
        if (!(s[i] == ' ' && m && (t[m - 1] == '\n' || t[m - 1] == ' ')))
            t[m++] = (char)s[i];
    t[m] = 0;
    return !strcmp(t, "GET /x\r\nHost: y\r\n");
}

/* A pretty-printed text loses its indentation, then its line breaks, in two candidates; a
 * line-based one keeps its breaks at the cost of a few tries (all, then each half). */
static void test_reduce_spaces_delete_line_breaks(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    const char *json = "{\n  \"a\": [],\n  \"b\": [],\r\n  \"c\": []\n}\n";
    pass_reaches(cd_reduce_spaces, json, three_members, "{\"a\":[],\"b\":[],\"c\":[]}", &p, &st);
    CU_ASSERT_EQUAL(st.execs, 2);
    pass_reaches(cd_reduce_spaces, "GET /x\r\n   Host: y\r\n", two_lines, "GET /x\r\nHost: y\r\n",
                 &p, &st);
    CU_ASSERT_EQUAL(st.execs, 7); /* 4 for the three blank runs, 3 for the two breaks, which stay */
}

/* An array that still holds the record {KEEP}. */
static bool array_with_keep(const uint8_t *s, size_t n)
{
    return n >= 2 && s[0] == '[' && s[n - 1] == ']' && has(s, n, "{KEEP}");
}

static void test_reduce_brackets_delete_sibling_runs(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    CU_ASSERT(one_pass(cd_reduce_brackets,
                       "[{a}, {b}, {c}, {d}, {e}, {f}, {g}, {h}, {i}, {j}, {k}, {l}, {KEEP}]",
                       array_with_keep, &p, &st));
    last_is(&p, "[{KEEP}]");
    CU_ASSERT(st.execs < 20); /* runs of siblings double: far fewer than one try per record */
    CU_ASSERT(p.descent_ok);
}

/* At least three 'x': a count that only grows with the prefix, as a hit count does. */
static bool three_x(const uint8_t *s, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == 'x';
    return k >= 3;
}

/* The shortest prefix that holds, up to half the example, in about two candidates per bit of
 * the length. */
static void test_reduce_prefix_keeps_shortest_head(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    char text[201];
    memset(text, '.', 200);
    text[200] = 0;
    text[10] = text[30] = text[50] = text[190] = 'x';
    CU_ASSERT(one_pass(cd_reduce_prefix, text, three_x, &p, &st));
    CU_ASSERT_EQUAL(p.last_len, 51);
    CU_ASSERT(st.execs <= 2 * 8 + 2);
    CU_ASSERT(p.descent_ok);
    /* only prefixes up to half the example are tried: here none holds, nothing is adopted */
    text[50] = '.';
    text[150] = 'x';
    CU_ASSERT(!one_pass(cd_reduce_prefix, text, three_x, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 3); /* 16, 32 and 64 bytes */
    CU_ASSERT(!one_pass(cd_reduce_prefix, "..x..x..x", three_x, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 0);
}

static void test_reduce_suffix_keeps_shortest_tail(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    char text[201];
    memset(text, '.', 200);
    text[200] = 0;
    text[10] = text[150] = text[170] = text[190] = 'x';
    CU_ASSERT(one_pass(cd_reduce_suffix, text, three_x, &p, &st));
    CU_ASSERT_EQUAL(p.last_len, 50); /* from text[150] on */
    CU_ASSERT(p.last[0] == 'x');
    CU_ASSERT(st.execs <= 2 * 8 + 2);
    CU_ASSERT(p.descent_ok);
    /* only tails up to half the example: none holds here */
    text[150] = '.';
    text[50] = 'x';
    CU_ASSERT(!one_pass(cd_reduce_suffix, text, three_x, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 3); /* 16, 32 and 64 bytes */
}

/* How many times needle occurs in the n bytes at s. */
static int count_of(const uint8_t *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    int count = 0;
    for (size_t i = 0; i + k <= n; i++)
        count += !memcmp(s + i, needle, k);
    return count;
}

/* Tags nest (<a ...>, </a>, <a/>; comments skipped) and the root is <r>. */
static bool well_formed(const uint8_t *s, size_t n)
{
    char stack[16][8];
    int depth = 0, roots = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '<')
            continue;
        if (i + 4 <= n && !memcmp(s + i, "<!--", 4)) {
            size_t j = i + 4;
            while (j + 3 <= n && memcmp(s + j, "-->", 3))
                j++;
            if (j + 3 > n)
                return false;
            i = j + 2;
            continue;
        }
        bool close = i + 1 < n && s[i + 1] == '/';
        size_t j = i + 1 + close, k = j;
        while (k < n && isalpha(s[k]))
            k++;
        if (k == j || k - j >= sizeof stack[0])
            return false;
        size_t e = k;
        bool quoted = false;
        for (; e < n && (quoted || s[e] != '>'); e++)
            quoted ^= s[e] == '"';
        if (e >= n)
            return false;
        if (close) {
            if (!depth || strlen(stack[depth - 1]) != k - j ||
                memcmp(stack[depth - 1], s + j, k - j))
                return false;
            depth--;
        } else if (s[e - 1] != '/') {
            if (depth == 16)
                return false;
            roots += depth == 0;
            memcpy(stack[depth], s + j, k - j);
            stack[depth++][k - j] = 0;
        }
        i = e;
    }
    return depth == 0 && roots == 1 && n >= 3 && !memcmp(s, "<r>", 3);
}

/* A well-formed document with KEEP twice. */
static bool markup_with_two_keeps(const uint8_t *s, size_t n)
{
    return well_formed(s, n) && count_of(s, n, "KEEP") >= 2;
}

/* A well-formed document with at least six <i> elements (a label of a hit-count class) and an
 * attribute b somewhere. */
static bool markup_with_six_items(const uint8_t *s, size_t n)
{
    return well_formed(s, n) && count_of(s, n, "<i") >= 6 && count_of(s, n, " b=") >= 1;
}

/* Whole elements go, parents first and then their children; a '>' inside a quoted attribute, a
 * start tag inside a comment and a nested element of the same name do not end an element early. */
static void test_reduce_elements_delete_subtrees(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    pass_reaches(cd_reduce_elements,
                 "<r><a x=\"1>2\"><b>no</b><b>KEEP</b></a><!-- <a> --><c/><d><e>t</e></d>"
                 "<a><a>KEEP</a></a><f>z</f></r>",
                 markup_with_two_keeps,
                 "<r><a x=\"1>2\"><b>KEEP</b></a><!-- <a> --><a><a>KEEP</a></a></r>", &p, &st);
    CU_ASSERT(st.execs <= 12); /* one candidate per element at most */
    /* no markup: nothing tried */
    CU_ASSERT(!one_pass(cd_reduce_elements, "KEEP, KEEP", markup_with_two_keeps, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 0);
}

/* Every element of a name goes at once, else a quarter of them; then every one loses its content
 * and every attribute of a name goes, or its values, in a few candidates however many copies
 * there are. Cutting one copy at a time (the elements pass) fails on each of the six needed. */
static void test_reduce_kinds_edit_every_copy(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    pass_reaches(cd_reduce_kinds,
                 "<r><i a=\"1\" b=\"long\">one</i><i a=\"2\"><x/>two</i><s c=\"q\">text</s>"
                 "<i a=\"3\">3</i><i>4</i><i b=\"v\">5</i><i>six</i><i/><i>8</i><i>9</i></r>",
                 markup_with_six_items, "<r><i/><i/><i b=\"\"/><i/><i/><i/><i/></r>", &p, &st);
    CU_ASSERT(st.execs <= 24);
    CU_ASSERT(!one_pass(cd_reduce_elements, "<r><i b=\"\"/><i/><i/><i/><i/><i/></r>",
                        markup_with_six_items, &p, &st));
    /* no tags (a stray '<' ends a tag's search): nothing tried */
    CU_ASSERT(!one_pass(cd_reduce_kinds, "a < b > c, x<y <z", markup_with_six_items, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 0);
}

static bool equal_pair(const uint8_t *s, size_t n)
{
    return n == 2 && s[0] == s[1] && s[0] >= 'a';
}

static void test_reduce_pairs_lower_together(void)
{
    struct pctx p;
    struct cd_reduce_stats st;
    CU_ASSERT(one_pass(cd_reduce_pairs, "cc", equal_pair, &p, &st));
    CU_ASSERT(!memcmp(p.last, "aa", 2));
    CU_ASSERT(st.execs <= 12); /* 2 tries, a binary search, 2 tries on the result */
    /* single bytes cannot move alone here: only the copies pass gets there */
    CU_ASSERT(!one_pass(cd_reduce_bytes, "zz", equal_pair, &p, &st));
    struct cd_reducer red = {0};
    enum cd_status rs;
    bool changed;
    char *s = reduce("zz", equal_pair, &p, &red, &rs, &changed);
    CU_ASSERT_STRING_EQUAL(s, "aa");
    free(s);
}

static bool never(void *ctx, const uint8_t *cand, size_t len)
{
    (void)ctx;
    (void)cand;
    (void)len;
    return false;
}

/* The passes that parse text structure (tags, brackets) try nothing on an example holding a NUL
 * byte: on binary data their scans are quadratic. The same markup without the NUL is tried. */
static void test_reduce_text_passes_skip_binary(void)
{
    uint8_t doc[4096];
    size_t n = 0;
    while (n + 32 < sizeof doc)
        n += (size_t)snprintf((char *)doc + n, sizeof doc - n, "<a x=\"1\"><b>[%zu]</b></a>", n);
    for (int binary = 0; binary < 2; binary++) {
        doc[n / 2] = binary ? 0 : 'z';
        struct cd_reducer red = {0};
        struct cd_reduce_target t = {never, NULL, NULL, true, false};
        uint8_t *out = NULL;
        size_t out_len;
        bool changed, stopped;
        struct cd_error err;
        CU_ASSERT_EQUAL_FATAL(cd_reducer_run(&red, &t, doc, n, &out, &out_len, &changed, &stopped,
                                             &err), CD_OK);
        uint64_t text = 0;
        for (const char *const *p = (const char *const[]){"elements", "kinds", "brackets", NULL};
             *p; p++)
            text += red.stats[cd_reduce_pass_find(*p)].execs;
        CU_ASSERT(binary ? text == 0 : text > 0);
        CU_ASSERT(!changed && out_len == n);
        free(out);
    }
}

static void find_head_and_text(const uint8_t *type, const uint8_t *data, size_t len,
                               bool found[2])
{
    found[0] |= !memcmp(type, "IHDR", 4) && len && data[0] >= 'm';
    found[1] |= !memcmp(type, "tEXt", 4) && memchr(data, 'x', len);
}

/* PNG's layout with every CRC right; wanted: an IHDR whose data starts with 'm' or above and a
 * tEXt whose data holds an 'x'. */
static bool checked_chunks_wanted(const uint8_t *s, size_t n)
{
    bool found[2] = {false, false};
    return walk_chunks(s, n, true, find_head_and_text, found) && found[0] && found[1];
}

static size_t put_checked_chunk(uint8_t *out, const char *type, const char *data)
{
    size_t len = strlen(data);
    out[0] = out[1] = out[2] = 0;
    out[3] = (uint8_t)len;
    memcpy(out + 4, type, 4);
    memcpy(out + 8, data, len);
    uint32_t c = chunk_crc(out + 4, len);
    for (int k = 0; k < 4; k++)
        out[8 + len + k] = (uint8_t)(c >> (24 - 8 * k));
    return 12 + len;
}

static void test_reduce_checked_repairs_chunks(void)
{
    uint8_t in[256], want[64];
    size_t n = put_checked_chunk(in, "IHDR", "zzzz and more header");
    n += put_checked_chunk(in + n, "gAMA", "1234");
    n += put_checked_chunk(in + n, "tEXt", "a comment, with x somewhere in it");
    n += put_checked_chunk(in + n, "IEND", "");
    CU_ASSERT(checked_chunks_wanted(in, n));
    size_t m = put_checked_chunk(want, "IHDR", "m");
    m += put_checked_chunk(want + m, "tEXt", "x");
    /* the whole reducer: whole chunks go, and what is inside the two kept ones is reduced with
       lengths and CRCs repaired, which no other pass can do */
    struct pctx p;
    struct cd_reducer red = {0};
    uint8_t *out;
    size_t len;
    bool changed;
    pctx_start(&p, checked_chunks_wanted, in, n);
    CU_ASSERT_EQUAL(reduce_bytes(&p, &red, in, n, &out, &len, &changed), CD_OK);
    CU_ASSERT(changed && p.descent_ok);
    CU_ASSERT(len == m && !memcmp(out, want, m));
    CU_ASSERT(red.stats[cd_reduce_pass_find("checked")].successes > 0);
    free(out);
    /* the pass alone on text finds no chunk and tries nothing */
    struct cd_reduce_stats st;
    CU_ASSERT(!one_pass(cd_reduce_checked, "some text with x and y in it", has_x_and_y, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 0);
}

/* A 32x24 RGB PNG (interlaced when asked): filter bytes 0, 1, 2, 0, 1, 2, ..., low-entropy pixels,
 * the stream split into three IDAT chunks, an IEND after them; returns its length in out. */
static size_t make_png(uint8_t *out, bool interlaced)
{
    enum { W = 32, H = 24, ROW = 1 + 3 * W };
    uint8_t raw[H * ROW], z[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof raw; i++) {
        x = x * 1103515245u + 12345u;
        raw[i] = i % ROW == 0 ? (uint8_t)(i / ROW % 3) : (uint8_t)(x >> 28);
    }
    uLongf zn = sizeof z;
    CU_ASSERT_FATAL(compress2(z, &zn, raw, sizeof raw, 1) == Z_OK);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13] = {0, 0, 0, W, 0, 0, 0, H, 8, 2, 0, 0, interlaced};
    size_t n = 8, parts[3] = {zn / 3, zn / 3, zn - 2 * (zn / 3)}, done = 0;
    memcpy(out, sig, 8);
    for (int c = -1; c <= 3; c++) {
        const char *type = c < 0 ? "IHDR" : c < 3 ? "IDAT" : "IEND";
        const uint8_t *data = c < 0 ? ihdr : z + done;
        size_t len = c < 0 ? 13 : c < 3 ? parts[c] : 0;
        for (int k = 0; k < 4; k++)
            out[n + k] = (uint8_t)(len >> (24 - 8 * k));
        memcpy(out + n + 4, type, 4);
        memcpy(out + n + 8, data, len);
        uint32_t crc = chunk_crc(out + n + 4, len);
        for (int k = 0; k < 4; k++)
            out[n + 8 + len + k] = (uint8_t)(crc >> (24 - 8 * k));
        n += 12 + len;
        if (c >= 0 && c < 3)
            done += len;
    }
    return n;
}

/* A PNG of the layout make_png writes, every CRC right, its stream inflating to exactly its rows,
 * in exactly three IDAT chunks, at least 5 columns and 7 rows, its seventh row's filter byte 0. */
static bool png_wanted(const uint8_t *s, size_t n)
{
    if (n < 8 + 25 || cd_reduce_be32(s + 8) != 13 || memcmp(s + 12, "IHDR", 4) != 0 ||
        chunk_crc(s + 12, 13) != cd_reduce_be32(s + 29))
        return false;
    uint32_t w = cd_reduce_be32(s + 16), h = cd_reduce_be32(s + 20);
    uint8_t stream[8192], raw[8192];
    size_t sn = 0, idats = 0;
    for (size_t i = 33; i + 12 <= n;) {
        size_t len = cd_reduce_be32(s + i);
        if (len > n - i - 12 || chunk_crc(s + i + 4, len) != cd_reduce_be32(s + i + 8 + len))
            return false;
        if (!memcmp(s + i + 4, "IDAT", 4)) {
            if (sn + len > sizeof stream)
                return false;
            memcpy(stream + sn, s + i + 8, len);
            sn += len;
            idats++;
        }
        i += 12 + len;
    }
    uLongf rn = sizeof raw;
    if (idats != 3 || uncompress(raw, &rn, stream, sn) != Z_OK || w < 5 || h < 7 ||
        rn != (size_t)h * (1 + 3 * w))
        return false;
    return raw[6 * (1 + 3 * w)] == 0;
}

static bool png_recompressed(const uint8_t *s, size_t n)
{
    return n > 8 && !memcmp(s + 1, "PNG", 3);
}

/* The image pass cuts a PNG to the rows and columns the predicate needs, with the chunk count,
 * IHDR and every CRC repaired, in a number of candidates logarithmic in its size; an interlaced
 * one is only recompressed; text costs no candidate. */
static void test_reduce_image_cuts_rows_and_columns(void)
{
    uint8_t png[4096], cur[4096], cand[4096];
    size_t n = make_png(png, false);
    CU_ASSERT_FATAL(n < sizeof png && png_wanted(png, n));
    struct pctx p;
    struct cd_reduce_stats st = {0};
    pctx_start(&p, png_wanted, png, n);
    struct cd_reduce_target t = {pred, stop, &p, false, false};
    memcpy(cur, png, n);
    struct cd_reduce_run r = {&t, cur, n, cand, n, &st, false};
    CU_ASSERT(cd_reduce_image(&r));
    CU_ASSERT(p.descent_ok);
    CU_ASSERT_EQUAL(cd_reduce_be32(r.cur + 16), 5);
    CU_ASSERT_EQUAL(cd_reduce_be32(r.cur + 20), 7);
    CU_ASSERT(png_wanted(r.cur, r.len) && r.len < n / 2);
    /* recompression, then 1, 2, 4, 8 rows and back to 7, then 1, 2, 4, 8 columns and back to 5 */
    CU_ASSERT(st.execs <= 1 + 2 * 5 + 2 * 6);
    /* interlaced: one recompression, no cut */
    n = make_png(png, true);
    memset(&st, 0, sizeof st);
    pctx_start(&p, png_recompressed, png, n);
    memcpy(cur, png, n);
    r = (struct cd_reduce_run){&t, cur, n, cand, n, &st, false};
    cd_reduce_image(&r);
    CU_ASSERT_EQUAL(st.execs, 1);
    CU_ASSERT_EQUAL(cd_reduce_be32(r.cur + 20), 24);
    /* not a PNG: nothing tried */
    memset(&st, 0, sizeof st);
    CU_ASSERT(!one_pass(cd_reduce_image, "\x89PNG but not really an image", has_x_and_y, &p, &st));
    CU_ASSERT_EQUAL(st.execs, 0);
}

static bool nothing(const uint8_t *s, size_t n)
{
    (void)s;
    (void)n;
    return false;
}

/* A sweep of the blocks pass that finds nothing costs about 2 * CD_REDUCE_BLOCK_STEPS candidates
 * on a long example, not two per byte, and still goes down to single bytes on a short one. */
static void test_reduce_blocks_sweep_is_bounded(void)
{
    size_t sizes[2] = {100, 40000};
    for (int k = 0; k < 2; k++) {
        size_t n = sizes[k];
        uint8_t *cur = malloc(n), *cand = malloc(n);
        for (size_t i = 0; i < n; i++)
            cur[i] = (uint8_t)('a' + i % 26);
        struct pctx p = {.fn = nothing, .descent_ok = true};
        struct cd_reduce_stats st = {0};
        struct cd_reduce_target t = {pred, stop, &p, false, false};
        struct cd_reduce_run r = {&t, cur, n, cand, n, &st, false};
        CU_ASSERT(!cd_reduce_blocks(&r));
        if (n < CD_REDUCE_BLOCK_STEPS) {
            CU_ASSERT(st.execs >= n); /* every single byte was tried */
        } else {
            CU_ASSERT(st.execs <= 3 * CD_REDUCE_BLOCK_STEPS);
        }
        free(cur);
        free(cand);
    }
}

/* What a delta-debugging run under keep_line tried: how many candidates, the first one's length. */
struct cdd_log {
    uint64_t calls;
    size_t first_len;
    bool keep_line_only; /* false: refuse every candidate */
};

static bool cdd_pred(void *ctx, const uint8_t *cand, size_t len)
{
    struct cdd_log *log = ctx;
    if (!log->calls++)
        log->first_len = len;
    return log->keep_line_only && keep_line(cand, len);
}

/* Runs the lines pass (cd_reduce_cdd over lines) on the n bytes at text; returns the result's
 * length and leaves it in text. */
static size_t cdd_lines(char *text, size_t n, struct cdd_log *log)
{
    struct cd_reduce_stats st = {0};
    struct cd_reduce_target t = {cdd_pred, NULL, log, false, false};
    uint8_t *cand = malloc(n);
    struct cd_reduce_run r = {&t, (uint8_t *)text, n, cand, n, &st, false};
    cd_reduce_lines(&r);
    CU_ASSERT_EQUAL(st.execs, log->calls);
    if (r.cur != (uint8_t *)text) { /* the buffers swapped on each adoption */
        memcpy(text, r.cur, r.len);
        free(r.cur);
    } else {
        free(r.cand);
    }
    return r.len;
}

/* Groups are cut by bytes and tried heaviest first: the long line goes with the first candidate;
 * a round tries each group once and tests no complement, so a sweep where nothing can go costs
 * about n/9 + n/5 + n/3 + n candidates for n lines, never more. */
static void test_reduce_lines_delta_debugging(void)
{
    char text[2048] = "";
    for (int i = 0; i < 25; i++)
        strcat(text, "a\n");
    memset(text + strlen(text), 'x', 500);
    strcat(text, "\nKEEP\n");
    for (int i = 0; i < 25; i++)
        strcat(text, "b\n");
    size_t n = strlen(text);
    struct cdd_log log = {.keep_line_only = true};
    size_t len = cdd_lines(text, n, &log);
    CU_ASSERT(log.first_len + 500 <= n);
    CU_ASSERT_EQUAL(len, 5);
    CU_ASSERT(!memcmp(text, "KEEP\n", 5));
    CU_ASSERT(log.calls < 52); /* fewer than one per line */

    enum { LINES = 1000 };
    char *many = malloc(LINES * 4);
    for (int i = 0; i < LINES; i++)
        memcpy(many + 4 * i, "abc\n", 4);
    struct cdd_log none = {.keep_line_only = false};
    CU_ASSERT_EQUAL(cdd_lines(many, LINES * 4, &none), LINES * 4);
    CU_ASSERT(none.calls >= LINES);
    CU_ASSERT(none.calls <= LINES / 9 + LINES / 5 + LINES / 3 + LINES + 4);
    free(many);
}

static bool anything(const uint8_t *s, size_t n)
{
    (void)s;
    return n > 0;
}

static void test_reduce_stop_check(void)
{
    struct pctx p;
    struct cd_reducer red = {0};
    const char *text = "a long example that could lose many bytes before it is done";
    memset(&p, 0, sizeof p);
    p.fn = anything;
    p.descent_ok = true;
    p.stop_after = 3;
    p.last_len = strlen(text);
    memcpy(p.last, text, p.last_len);
    struct cd_reduce_target t = {pred, stop, &p, false, false};
    uint8_t *out = NULL;
    size_t len = 0;
    bool changed;
    struct cd_error err;
    bool stopped;
    enum cd_status st = cd_reducer_run(&red, &t, (const uint8_t *)text, strlen(text), &out, &len,
                                       &changed, &stopped, &err);
    CU_ASSERT_EQUAL(st, CD_OK);
    CU_ASSERT(stopped);
    CU_ASSERT_EQUAL(p.calls, 3);
    CU_ASSERT(len > 0 && len < strlen(text));
    CU_ASSERT_EQUAL(len, p.last_len);
    free(out);
    /* empty input: nothing to try */
    p.stop_after = 0;
    p.calls = 0;
    st = cd_reducer_run(&red, &t, NULL, 0, &out, &len, &changed, &stopped, &err);
    CU_ASSERT_EQUAL(st, CD_OK);
    CU_ASSERT(!stopped);
    CU_ASSERT_EQUAL(len, 0);
    CU_ASSERT(!changed);
    CU_ASSERT_EQUAL(p.calls, 0);
    free(out);
    CU_ASSERT_STRING_EQUAL(cd_reduce_pass_name(cd_reduce_pass_find("blocks")), "blocks");
    CU_ASSERT_STRING_EQUAL(cd_reduce_pass_name(cd_reduce_n_passes()), "?");
}

/* Accepts a candidate when a checksum of it is even: arbitrary, but the same every run. */
static bool coin(const uint8_t *s, size_t n)
{
    return !(crc32(0, s, (uInt)n) & 1);
}

/* Random bytes drawn mostly from what the text passes look for: quotes, escapes, brackets,
 * separators, digits, hex letters, blanks, line ends, UTF-8 lead and continuation bytes, NUL. */
static size_t random_input(uint64_t *x, uint8_t *out, size_t max)
{
    static const char alphabet[] = "\"\\{}[]()<>,:;= \t\n\r0123456789abcdefxyzAZ@.-+eE/"
                                   "\xc3\xa9\xf0\x9f\x80\xff";
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    size_t n = *x % (max + 1);
    for (size_t i = 0; i < n; i++) {
        *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
        out[i] = *x % 16 ? (uint8_t)alphabet[*x / 16 % (sizeof alphabet)] : (uint8_t)(*x >> 8);
    }
    return n;
}

/* Every pass alone, then the whole reducer, on random inputs under an arbitrary predicate: each
 * adopted candidate is strictly shortlex-smaller, and (under the sanitizers) no pass reads or
 * writes outside buffers of the input's exact size. */
static void test_reduce_random_inputs(void)
{
    uint64_t x = 0x9E3779B97F4A7C15ull;
    uint8_t text[200];
    struct pctx p;
    for (int round = 0; round < 1000; round++) {
        size_t n = random_input(&x, text, sizeof text);
        for (unsigned k = 0; k < cd_reduce_n_passes(); k++) {
            pctx_start(&p, coin, text, n);
            struct cd_reduce_target t = {pred, stop, &p, false, false};
            struct cd_reduce_stats st = {0};
            uint8_t *cur = malloc(n ? n : 1), *cand = malloc(n ? n : 1);
            CU_ASSERT_FATAL(cur && cand);
            memcpy(cur, text, n);
            struct cd_reduce_run r = {&t, cur, n, cand, n, &st, false};
            cd_reduce_passes[k].fn(&r);
            CU_ASSERT(p.descent_ok);
            CU_ASSERT(r.len == p.last_len && !memcmp(r.cur, p.last, r.len));
            free(cur);
            free(cand);
        }
        pctx_start(&p, coin, text, n);
        p.stop_after = 5000;
        struct cd_reducer red = {0};
        uint8_t *out;
        size_t len;
        bool changed;
        enum cd_status st = reduce_bytes(&p, &red, text, n, &out, &len, &changed);
        CU_ASSERT_EQUAL(st, CD_OK);
        CU_ASSERT(p.descent_ok);
        CU_ASSERT(len == p.last_len && !memcmp(out, p.last, len));
        free(out);
    }
}

/* Records the length of the first candidate and rejects every one. */
static bool first_len(void *ctx, const uint8_t *cand, size_t len)
{
    (void)cand;
    size_t *first = ctx;
    if (*first == SIZE_MAX)
        *first = len;
    return false;
}

/* The registry: unique names that find their rows, a function each, deleting passes before
 * lowering ones, coarse_first putting its coarse pass (blocks: half the example at once) ahead of
 * the default first pass (prefix: its shortest head), and a long example putting prefix first
 * again, even where the blocks pass earned the most so far. */
static void test_reduce_registry(void)
{
    unsigned n = cd_reduce_n_passes();
    CU_ASSERT(n > 0 && n <= CD_REDUCE_PASSES_MAX);
    bool lowering = false;
    for (unsigned i = 0; i < n; i++) {
        CU_ASSERT_PTR_NOT_NULL(cd_reduce_passes[i].fn);
        CU_ASSERT(cd_reduce_passes[i].name[0] != 0);
        CU_ASSERT_EQUAL(cd_reduce_pass_find(cd_reduce_passes[i].name), i);
        CU_ASSERT(!lowering || cd_reduce_passes[i].kind == CD_PASS_LOWER);
        lowering |= cd_reduce_passes[i].kind == CD_PASS_LOWER;
    }
    CU_ASSERT_EQUAL(cd_reduce_pass_find("no such pass"), n);
    unsigned blocks = cd_reduce_pass_find("blocks");
    CU_ASSERT_EQUAL(cd_reduce_passes[blocks].front, CD_FRONT_COARSE);
    CU_ASSERT_EQUAL(cd_reduce_passes[cd_reduce_pass_find("prefix")].front, CD_FRONT_LONG);
    static uint8_t in[CD_REDUCE_LONG];
    memset(in, 'a', sizeof in);
    /* {length, coarse_first, blocks leads by yield, the first candidate's length} */
    static const size_t cases[][4] = {
        {64, 0, 0, CD_REDUCE_PREFIX_MIN}, {64, 1, 0, 32}, {64, 0, 1, 32},
        {CD_REDUCE_LONG, 0, 1, CD_REDUCE_PREFIX_MIN}, {CD_REDUCE_LONG, 1, 0, CD_REDUCE_PREFIX_MIN},
        {CD_REDUCE_LONG - 1, 0, 1, CD_REDUCE_LONG - 1 - (CD_REDUCE_LONG - 1) / 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t first = SIZE_MAX;
        struct cd_reduce_target t = {first_len, NULL, &first, false, cases[c][1]};
        struct cd_reducer red = {0};
        if (cases[c][2])
            red.stats[blocks] = (struct cd_reduce_stats){1, 1, 1000};
        uint8_t *out;
        size_t len;
        bool changed;
        struct cd_error err;
        CU_ASSERT_EQUAL(cd_reducer_run(&red, &t, in, cases[c][0], &out, &len, &changed, NULL, &err),
                        CD_OK);
        CU_ASSERT_EQUAL(first, cases[c][3]);
        free(out);
    }
}

/* What a reduction under "holds KEEP" showed of its rounds: the reducer's counters, read from
 * the predicate, when the lines pass ran its first candidate. */
struct rounds_log {
    const struct cd_reducer *red;
    unsigned lines, blocks;
    uint64_t lines_before; /* the lines pass's count of candidates it was given */
    uint64_t blocks_wins_then; /* UINT64_MAX: the lines pass ran nothing */
};

static bool rounds_pred(void *ctx, const uint8_t *cand, size_t len)
{
    struct rounds_log *log = ctx;
    if (log->blocks_wins_then == UINT64_MAX && log->red->stats[log->lines].execs > log->lines_before)
        log->blocks_wins_then = log->red->stats[log->blocks].successes;
    return has(cand, len, "KEEP");
}

/* A round runs every deleting pass once, even after one of them adopted something: the lines
 * pass, second by its yield, runs in the first round, while the blocks pass (first by yield)
 * still has cuts to make in the next. When each success started the sequence again from the
 * first pass, the lines pass ran only once the blocks pass had nothing left to cut. */
static void test_reducer_rounds_run_every_pass(void)
{
    char text[600] = "";
    for (int i = 0; i < 40; i++)
        strcat(text, i == 20 ? "xxKEEPxxxxx\n" : "abcdefghij\n");
    struct cd_reducer red = {0};
    struct rounds_log log = {&red, cd_reduce_pass_find("lines"), cd_reduce_pass_find("blocks"),
                             0, UINT64_MAX};
    for (unsigned i = 0; i < cd_reduce_n_passes(); i++) /* every other pass earned a little */
        red.stats[i] = (struct cd_reduce_stats){100, 1, 10};
    red.stats[log.blocks] = (struct cd_reduce_stats){1, 1, 1000};
    red.stats[log.lines] = (struct cd_reduce_stats){1, 1, 100};
    log.lines_before = red.stats[log.lines].execs;
    struct cd_reduce_target t = {rounds_pred, NULL, &log, false, false};
    uint8_t *out;
    size_t len;
    bool changed, stopped;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_reducer_run(&red, &t, (const uint8_t *)text, strlen(text), &out, &len,
                                         &changed, &stopped, &err),
                          CD_OK);
    CU_ASSERT(changed && !stopped);
    CU_ASSERT(len == 4 && memcmp(out, "KEEP", 4) == 0);
    CU_ASSERT_NOT_EQUAL(log.blocks_wins_then, UINT64_MAX);
    CU_ASSERT(red.stats[log.blocks].successes > log.blocks_wins_then);
    free(out);
    /* Whichever pass leads, the rounds empty the example by strict descents and stop there. */
    for (unsigned first = 0; first < cd_reduce_n_passes(); first++) {
        struct pctx p = {.fn = any_input, .descent_ok = true};
        memcpy(p.last, text, strlen(text));
        p.last_len = strlen(text);
        struct cd_reduce_target any = {pred, stop, &p, false, false};
        struct cd_reducer lead = {0};
        lead.stats[first] = (struct cd_reduce_stats){1, 1, 1000};
        CU_ASSERT_EQUAL_FATAL(cd_reducer_run(&lead, &any, (const uint8_t *)text, strlen(text),
                                             &out, &len, &changed, &stopped, &err),
                              CD_OK);
        CU_ASSERT(len == 0 && p.descent_ok);
        free(out);
    }
}

/* The model of the elements pass's matching: a scan from each start tag to its end tag, nested
 * elements of its name counted, comments and CDATA skipped (the pass matches them all in one scan
 * instead). */
static size_t model_past(const char *s, size_t len, size_t p, const char *what)
{
    size_t n = strlen(what);
    for (size_t q = p; q + n <= len; q++)
        if (!memcmp(s + q, what, n))
            return q + n;
    return len;
}

static bool model_name(char c, bool first)
{
    uint8_t u = (uint8_t)c;
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u == ':' || u >= 0x80 ||
           (!first && ((u >= '0' && u <= '9') || u == '-' || u == '.'));
}

static size_t model_tag_end(const char *s, size_t len, size_t p)
{
    char quote = 0;
    for (size_t q = p + 1; q < len; q++) {
        if (s[q] == '<')
            return 0;
        if (quote)
            quote = s[q] == quote ? 0 : quote;
        else if (s[q] == '"' || s[q] == '\'')
            quote = s[q];
        else if (s[q] == '>')
            return q + 1;
    }
    return 0;
}

static size_t model_start_name(const char *s, size_t len, size_t p)
{
    size_t n = 0;
    if (p + 1 < len && s[p] == '<' && model_name(s[p + 1], true))
        for (n = 1; p + 1 + n < len && model_name(s[p + 1 + n], false);)
            n++;
    return n;
}

static size_t model_element_end(const char *s, size_t len, size_t p, size_t e, size_t n)
{
    size_t depth = 1;
    for (size_t q = e; q < len;) {
        if (s[q] != '<') {
            q++;
        } else if (!strncmp(s + q, "<!--", 4)) {
            q = model_past(s, len, q + 4, "-->");
        } else if (!strncmp(s + q, "<![CDATA[", 9)) {
            q = model_past(s, len, q + 9, "]]>");
        } else if (len - q > n + 2 && s[q + 1] == '/' && !memcmp(s + q + 2, s + p + 1, n) &&
                   !model_name(s[q + 2 + n], false)) {
            q = model_tag_end(s, len, q);
            if (q == 0 || --depth == 0)
                return q;
        } else {
            size_t m = model_start_name(s, len, q), te = model_tag_end(s, len, q);
            if (te && m == n && !memcmp(s + q + 1, s + p + 1, n) && s[te - 2] != '/')
                depth++;
            q = te ? te : q + 1;
        }
    }
    return 0;
}

/* Records the lengths of the candidates a pass tries, holding none. */
static size_t tried[512], n_tried;

static bool record_pred(void *ctx, const uint8_t *cand, size_t len)
{
    (void)ctx;
    (void)cand;
    if (n_tried < 512)
        tried[n_tried++] = len;
    return false;
}

/* On random documents of tags, end tags without their '>', comments, CDATA, quoted '>' and '<'
 * and stray '<', the elements pass tries exactly the cuts the model's matching gives, in order:
 * its one scan matches as a scan per element would. */
static void test_reduce_elements_match_model(void)
{
    static const char *const pieces[] = {
        "<a>", "</a>", "<b>", "</b>", "<a/>", "<a x='>'>", "<!--", "-->", "<![CDATA[", "]]>",
        "<", "</a", "x", "<?p?>", "<ab>", "</ab>", "</", "<b y=\"<\">", "\n"};
    uint64_t rng = 7;
    size_t mismatches = 0;
    for (int round = 0; round < 3000; round++) {
        char doc[256];
        size_t len = 0;
        for (int k = 0, n = 1 + round % 24; k < n; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            const char *p = pieces[(rng >> 33) % (sizeof pieces / sizeof *pieces)];
            if (len + strlen(p) >= sizeof doc)
                break;
            memcpy(doc + len, p, strlen(p));
            len += strlen(p);
        }
        size_t want[512], n_want = 0;
        for (size_t q = 0; q < len;) { /* the start tags in order, as the pass walks them */
            if (doc[q] != '<') {
                q++;
            } else if (!strncmp(doc + q, "<!--", 4)) {
                q = model_past(doc, len, q + 4, "-->");
            } else if (!strncmp(doc + q, "<![CDATA[", 9)) {
                q = model_past(doc, len, q + 9, "]]>");
            } else {
                size_t n = model_start_name(doc, len, q), e = model_tag_end(doc, len, q);
                if (!n || !e) {
                    q++;
                    continue;
                }
                size_t end = doc[e - 2] == '/' ? e : model_element_end(doc, len, q, e, n);
                if (end)
                    want[n_want++] = len - (end - q);
                q = e;
            }
        }
        uint8_t cur[256], cand[256];
        memcpy(cur, doc, len);
        struct cd_reduce_stats stats = {0};
        struct cd_reduce_target t = {record_pred, NULL, NULL, false, false};
        struct cd_reduce_run r = {&t, cur, len, cand, len, &stats, false};
        n_tried = 0;
        cd_reduce_elements(&r);
        mismatches += n_tried != n_want || memcmp(tried, want, n_want * sizeof *want) != 0;
    }
    CU_ASSERT_EQUAL(mismatches, 0);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_reduce_to_xy", test_reduce_to_xy},
        {"test_reduce_text_passes_skip_binary", test_reduce_text_passes_skip_binary},
        {"test_reduce_lowers_bytes", test_reduce_lowers_bytes},
        {"test_reduce_single_passes", test_reduce_single_passes},
        {"test_reduce_prefix_keeps_shortest_head", test_reduce_prefix_keeps_shortest_head},
        {"test_reduce_suffix_keeps_shortest_tail", test_reduce_suffix_keeps_shortest_tail},
        {"test_reduce_elements_delete_subtrees", test_reduce_elements_delete_subtrees},
        {"test_reduce_kinds_edit_every_copy", test_reduce_kinds_edit_every_copy},
        {"test_reduce_elements_match_model", test_reduce_elements_match_model},
        {"test_reduce_pairs_lower_together", test_reduce_pairs_lower_together},
        {"test_reduce_chunks_delete_whole_parts", test_reduce_chunks_delete_whole_parts},
        {"test_reduce_brackets_delete_sibling_runs", test_reduce_brackets_delete_sibling_runs},
        {"test_reduce_lengths_shrink_count_and_span", test_reduce_lengths_shrink_count_and_span},
        {"test_reduce_lengths_keep_hex_letters", test_reduce_lengths_keep_hex_letters},
        {"test_reduce_lengths_count_to_one", test_reduce_lengths_count_to_one},
        {"test_reduce_lengths_skip_names", test_reduce_lengths_skip_names},
        {"test_reduce_lengths_split_count", test_reduce_lengths_split_count},
        {"test_reduce_lengths_join_counts", test_reduce_lengths_join_counts},
        {"test_reduce_items_delete_members", test_reduce_items_delete_members},
        {"test_reduce_hoist_values", test_reduce_hoist_values},
        {"test_reduce_uniform_items", test_reduce_uniform_items},
        {"test_reduce_spaces_delete_blank_runs", test_reduce_spaces_delete_blank_runs},
        {"test_reduce_spaces_delete_line_breaks", test_reduce_spaces_delete_line_breaks},
        {"test_reduce_words_cut_strings", test_reduce_words_cut_strings},
        {"test_reduce_checked_repairs_chunks", test_reduce_checked_repairs_chunks},
        {"test_reduce_image_cuts_rows_and_columns", test_reduce_image_cuts_rows_and_columns},
        {"test_reduce_blocks_sweep_is_bounded", test_reduce_blocks_sweep_is_bounded},
        {"test_reduce_lines_delta_debugging", test_reduce_lines_delta_debugging},
        {"test_reduce_stop_check", test_reduce_stop_check},
        {"test_reduce_random_inputs", test_reduce_random_inputs},
        {"test_reduce_registry", test_reduce_registry},
        {"test_reducer_rounds_run_every_pass", test_reducer_rounds_run_every_pass},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("reduce", tests);
}
