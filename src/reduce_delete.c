/* Deleting reducer passes: adaptive block deletion, line deletion, balanced bracketed spans, list
 * items, spans replaced by a value inside them, blanks, words in strings cut short.
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

/* Chunks of len/2, len/4 ... down to len/CD_REDUCE_BLOCK_STEPS or 1. At each position a success
 * doubles the chunk (so long deletable regions go in few steps) and a failure halves it back to
 * the round's size before moving on. It returns after the first size that deleted anything: finer
 * sizes cost a candidate per k bytes, and the cheaper passes that run before it again may shorten
 * the example first. */
bool cd_reduce_blocks(struct cd_reduce_run *r)
{
    bool any = false;
    size_t finest = r->len / CD_REDUCE_BLOCK_STEPS ? r->len / CD_REDUCE_BLOCK_STEPS : 1;
    for (size_t k = r->len > 1 ? r->len / 2 : 1; k >= finest && r->len && !r->stopped && !any;
         k /= 2) {
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

static bool is_separator(uint8_t c)
{
    return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* End of up to `count` sibling spans opened by `open` from p, each with the separators after it;
 * *found gets how many there were. */
static size_t siblings_end(const struct cd_reduce_run *r, size_t p, uint8_t open, uint8_t close,
                           size_t count, size_t *found)
{
    size_t q = p;
    *found = 0;
    while (*found < count && q < r->len && r->cur[q] == open) {
        size_t e = matching(r, q, open, close);
        if (e == r->len)
            break;
        q = e + 1;
        while (q < r->len && is_separator(r->cur[q]))
            q++;
        ++*found;
    }
    return q;
}

/* For each balanced (), [], {}, <> span: delete runs of it and its siblings (one, then twice as
 * many after each success: arrays of records shrink in few steps), else the span alone, else its
 * contents. */
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
        uint8_t open = (uint8_t)o[0], close = (uint8_t)o[1];
        bool deleted = false;
        for (size_t c = 1, found; !r->stopped;) {
            size_t end = siblings_end(r, p, open, close, c, &found);
            if (found && try_delete(r, p, end - p)) {
                deleted = any = true;
                c = found < c ? found : 2 * c;
            } else if (c > 1) {
                c /= 2;
            } else {
                break;
            }
        }
        if (deleted)
            continue;
        size_t q = matching(r, p, open, close);
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

/* End of the list item that starts at p in a list closing at q: its top-level comma (or colon,
 * when at_colon), or q. Double-quoted strings (with backslash escapes) are skipped, so their
 * commas split nothing. */
static size_t part_end(const struct cd_reduce_run *r, size_t p, size_t q, bool at_colon)
{
    size_t depth = 0;
    bool str = false;
    for (size_t i = p; i < q; i++) {
        uint8_t c = r->cur[i];
        if (str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth) {
            depth--;
        } else if ((c == ',' || (c == ':' && at_colon)) && depth == 0) {
            return i;
        }
    }
    return q;
}

static size_t item_end(const struct cd_reduce_run *r, size_t p, size_t q)
{
    return part_end(r, p, q, false);
}

/* Index of the bracket closing the (, [ or { at p, or len when p opens no list or it is
 * unbalanced. */
static size_t list_close(const struct cd_reduce_run *r, size_t p)
{
    static const char pairs[] = "()[]{}";
    const char *o = memchr(pairs, r->cur[p], sizeof pairs - 1);
    return o && (o - pairs) % 2 == 0 ? matching(r, p, (uint8_t)o[0], (uint8_t)o[1]) : r->len;
}

/* For each (), [], {} list: delete runs of its comma-separated items (one, then twice as many
 * after each success), each with its comma, the last ones with the comma before them. Items
 * that are no bracketed span, which the brackets pass cannot delete, are most of them: an
 * object's "key": value members, a list's numbers and strings. A record that must stay (a
 * label counts 128 of them) loses the members no label needs. */
bool cd_reduce_items(struct cd_reduce_run *r)
{
    bool any = false;
    for (size_t p = 0; p < r->len && !r->stopped; p++) {
        size_t q = list_close(r, p);
        if (q == r->len || item_end(r, p + 1, q) == q)
            continue; /* unbalanced, or a single item: the brackets pass deletes contents */
        size_t s = p + 1, c = 1;
        while (s < q && !r->stopped) {
            size_t e = s;
            for (size_t k = 0; k < c && e < q; k++) {
                size_t comma = item_end(r, e, q);
                e = comma < q ? comma + 1 : q;
            }
            size_t from = s, to = e;
            if (to >= q) { /* the last items go with the comma before them */
                to = q;
                from = s > p + 1 ? s - 1 : s;
            }
            if (to > from && try_delete(r, from, to - from)) {
                any = true;
                q = list_close(r, p);
                c *= 2;
            } else if (c > 1) {
                c /= 2;
            } else {
                s = item_end(r, s, q) + 1;
            }
        }
    }
    return any;
}

/* Tests cur with [a, b) replaced by the n bytes at v, which lie inside it. */
static bool try_replace(struct cd_reduce_run *r, size_t a, size_t b, size_t v, size_t n)
{
    memcpy(r->cand, r->cur, a);
    memcpy(r->cand + a, r->cur + v, n);
    memcpy(r->cand + a + n, r->cur + b, r->len - b);
    return cd_reduce_try(r, r->len - (b - a) + n);
}

/* Bounds of the value in the part [s, e) of a span, blanks trimmed; false when it is empty or a
 * key (a colon follows it at e). */
static bool part_value(const struct cd_reduce_run *r, size_t s, size_t e, size_t q, size_t *a,
                       size_t *b)
{
    *a = s;
    *b = e;
    while (*a < *b && is_separator(r->cur[*a]))
        ++*a;
    while (*b > *a && is_separator(r->cur[*b - 1]))
        --*b;
    return *a < *b && (e == q || r->cur[e] != ':');
}

/* Tests cur with the span [p, q] replaced by all its values, joined by commas; false when it has
 * fewer than two. */
static bool try_splice(struct cd_reduce_run *r, size_t p, size_t q)
{
    size_t o = p, values = 0, a, b;
    memcpy(r->cand, r->cur, p);
    for (size_t s = p + 1, e; s < q; s = e + 1) {
        e = part_end(r, s, q, true);
        if (!part_value(r, s, e, q, &a, &b))
            continue;
        if (values++)
            r->cand[o++] = ',';
        memcpy(r->cand + o, r->cur + a, b - a);
        o += b - a;
    }
    memcpy(r->cand + o, r->cur + q + 1, r->len - q - 1);
    return values > 1 && cd_reduce_try(r, o + r->len - q - 1);
}

/* For each (), [], {} span: replace it by all its values joined by commas, else by one of them.
 * Its values are the parts between its top-level commas and colons that are no key (no colon
 * follows), blanks trimmed. A label that counts what the values hold keeps them without what
 * wraps them: the JSON sample's label for 128 exponents kept items like {"":0E+0} and
 * {"":0e+0,"s":1E+0}, which neither the items pass (each holds an exponent) nor the brackets
 * pass (deleting braces alone leaves a key where a value must be) could shrink. */
bool cd_reduce_hoist(struct cd_reduce_run *r)
{
    bool any = false;
    size_t p = 0, a, b;
    while (p < r->len && !r->stopped) {
        size_t q = list_close(r, p);
        bool hoisted = q < r->len && try_splice(r, p, q);
        for (size_t s = p + 1, e; q < r->len && s < q && !hoisted && !r->stopped; s = e + 1) {
            e = part_end(r, s, q, true);
            if (part_value(r, s, e, q, &a, &b))
                hoisted = try_replace(r, p, q + 1, a, b - a);
        }
        if (hoisted)
            any = true; /* what came up may be a span itself */
        else
            p++;
    }
    return any;
}

static bool is_blank(uint8_t c)
{
    return c == ' ' || c == '\t';
}

static bool is_line_break(uint8_t c)
{
    return c == '\n' || c == '\r';
}

static size_t count_runs(const struct cd_reduce_run *r, bool (*in_run)(uint8_t))
{
    size_t n = 0;
    for (size_t i = 0; i < r->len; i++)
        n += in_run(r->cur[i]) && (i == 0 || !in_run(r->cur[i - 1]));
    return n;
}

/* Tests cur without its runs of in_run bytes number a to b-1, counted from 0. */
static bool try_without_runs(struct cd_reduce_run *r, bool (*in_run)(uint8_t), size_t a,
                             size_t b)
{
    size_t o = 0, run = 0;
    for (size_t i = 0; i < r->len;) {
        if (!in_run(r->cur[i])) {
            r->cand[o++] = r->cur[i++];
            continue;
        }
        size_t e = i;
        while (e < r->len && in_run(r->cur[e]))
            e++;
        if (run < a || run >= b) {
            memcpy(r->cand + o, r->cur + i, e - i);
            o += e - i;
        }
        run++;
        i = e;
    }
    return o < r->len && cd_reduce_try(r, o);
}

/* Deletes the runs of in_run bytes: all of them at once, then halves, quarters ... down to a 64th
 * of them (single runs in examples with up to 64). */
static bool delete_runs(struct cd_reduce_run *r, bool (*in_run)(uint8_t))
{
    bool any = false;
    size_t n = count_runs(r, in_run), finest = n / 64 ? n / 64 : 1;
    for (size_t c = n; c >= finest && n && !r->stopped; c /= 2) {
        for (size_t a = 0; a < n && !r->stopped;) {
            size_t b = a + c < n ? a + c : n;
            if (try_without_runs(r, in_run, a, b)) {
                any = true;
                n -= b - a;
            } else {
                a = b;
            }
        }
    }
    return any;
}

/* Deletes runs of spaces and tabs, then of line breaks, many at once, as a parser that skips
 * blanks rarely needs one. Indentation and the blank after every ':' and ',' of a long example
 * otherwise stay: the blocks pass's finest block is longer than most runs and starts at fixed
 * offsets. Line breaks come apart from blanks, since a line-based format needs its breaks but
 * not its indentation; in a pretty-printed text whose label needs every element (a hit-count
 * class of 128 and more), the single-byte deletions that remain are the only way to drop them. */
bool cd_reduce_spaces(struct cd_reduce_run *r)
{
    bool any = delete_runs(r, is_blank);
    if (!r->stopped)
        any |= delete_runs(r, is_line_break);
    return any;
}

/* End of the double-quoted string opening at p (backslash escapes skipped): just past its
 * closing quote, or 0 when it has none or holds a control byte (binary data, not text). */
static size_t string_end(const struct cd_reduce_run *r, size_t p)
{
    for (size_t i = p + 1; i < r->len && r->cur[i] >= 0x20; i++) {
        if (r->cur[i] == '\\')
            i++;
        else if (r->cur[i] == '"')
            return i + 1;
    }
    return 0;
}

/* Letters and digits, and the bytes of UTF-8 characters beyond ASCII ("Fée", "山田"). */
static bool is_word(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

/* Copies the n bytes at s to out with each run of word bytes cut to its first character (its
 * first byte and the UTF-8 continuation bytes after it); returns how many it wrote. */
static size_t cut_words(const uint8_t *s, size_t n, uint8_t *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        out[o++] = s[i];
        if (!is_word(s[i]))
            continue;
        size_t k = i + 1;
        if (s[i] >= 0xC0)
            while (k < n && s[k] >= 0x80 && s[k] < 0xC0)
                out[o++] = s[k++];
        while (k < n && is_word(s[k]))
            k++;
        i = k - 1;
    }
    return o;
}

/* The string's edit: its words cut (drop == 0), else the drop bytes at offset at deleted. */
struct string_edit {
    size_t at, drop;
};

static size_t edit_string(const uint8_t *s, size_t n, uint8_t *out, const struct string_edit *ed)
{
    if (!ed->drop)
        return cut_words(s, n, out);
    memcpy(out, s, ed->at);
    memcpy(out + ed->at, s + ed->at + ed->drop, n - ed->at - ed->drop);
    return n - ed->drop;
}

/* Tests cur with the string [p, e) edited, and when all, every other copy of it too; *copies gets
 * how many were edited. */
static bool try_edit_string(struct cd_reduce_run *r, size_t p, size_t e,
                            const struct string_edit *ed, bool all, size_t *copies)
{
    size_t n = e - p, o = 0;
    *copies = 0;
    for (size_t i = 0; i < r->len;) {
        if (i == p || (all && r->cur[i] == '"' && n <= r->len - i &&
                       !memcmp(r->cur + i, r->cur + p, n))) {
            o += edit_string(r->cur + i, n, r->cand + o, ed);
            i += n;
            ++*copies;
        } else {
            r->cand[o++] = r->cur[i++];
        }
    }
    return o < r->len && cd_reduce_try(r, o);
}

/* try_edit_string on every copy at once, else, when there are others, on this one alone. */
static bool edit_copies(struct cd_reduce_run *r, size_t p, size_t e, const struct string_edit *ed)
{
    size_t copies;
    return try_edit_string(r, p, e, ed, true, &copies) ||
           (copies > 1 && try_edit_string(r, p, e, ed, false, &copies));
}

/* Drops whole words from the string at p: each word after the first with the bytes that part it
 * from the one before, the first with those after it ("d.0@m.e.n" to "0@m.n"). */
static bool drop_words(struct cd_reduce_run *r, size_t p)
{
    bool any = false;
    size_t e = string_end(r, p), prev_end = 0, i = p + 1;
    while (e && i < e - 1 && !r->stopped) {
        if (!is_word(r->cur[i])) {
            i++;
            continue;
        }
        size_t end = i;
        while (end < e - 1 && is_word(r->cur[end]))
            end++;
        struct string_edit ed = {prev_end ? prev_end - p : i - p, 0};
        if (prev_end) {
            ed.drop = end - prev_end;
        } else {
            size_t next = end;
            while (next < e - 1 && !is_word(r->cur[next]))
                next++;
            ed.drop = next < e - 1 ? next - i : 0;
        }
        if (ed.drop && edit_copies(r, p, e, &ed)) {
            any = true;
            e = string_end(r, p);
            i = prev_end ? prev_end : p + 1;
        } else {
            prev_end = i = end;
        }
    }
    return any;
}

/* For each double-quoted string that is no key (no colon follows): cut each run of letters and
 * digits in it to its first character, then drop its words one by one, each edit in all the
 * string's copies at once, else in it alone. Names, e-mail addresses and URLs keep their shape
 * ("dave.0@male.net" to "d.0@m.n", then "0@m.n"): the JSON sample's labels for 128 records kept
 * every record's name and address whole, and the blocks pass cuts a string only where its fixed
 * blocks fall. */
bool cd_reduce_words(struct cd_reduce_run *r)
{
    bool any = false;
    size_t p = 0;
    while (p < r->len && !r->stopped) {
        size_t e = r->cur[p] == '"' ? string_end(r, p) : 0, k = e;
        if (!e) {
            p++;
            continue;
        }
        while (k < r->len && is_blank(r->cur[k]))
            k++;
        if (k == r->len || r->cur[k] != ':') {
            const struct string_edit cut = {0, 0};
            /* The string alone first (cand is scratch): most strings have nothing left to cut,
               and edit_copies scans the whole input. */
            if (cut_words(r->cur + p, e - p, r->cand) < e - p && edit_copies(r, p, e, &cut))
                any = true;
            any |= drop_words(r, p);
        }
        e = string_end(r, p);
        p = e ? e : p + 1;
    }
    return any;
}

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
        if (spans[k] >= 4 && spans[k] <= r->len - i && try_delete(r, i, spans[k]))
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

/* Text formats count what follows in decimal or hex numbers (Content-Length, chunk sizes,
 * netstrings): neither a smaller number nor a shorter span alone keeps the parse, both together
 * do. Each run of hex digits is shrunk with the span it counts (shrink_count), read in decimal
 * first when it can be, or else joined with the count after its span (try_join). */
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
