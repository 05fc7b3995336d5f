/* The text-structure passes: lines, balanced bracketed spans, list items, spans replaced by a
 * value inside them, blanks and line breaks, words of quoted strings. Every candidate is strictly
 * shorter than the current example, so strictly shortlex-smaller. Passes re-read the current
 * example after each adoption; positions are clamped to its length. */
#include "reduce_internal.h"

#include <string.h>

/* Byte offset just past the line that starts at p (or the end). */
static size_t line_end(const struct cd_reduce_run *r, size_t p)
{
    const uint8_t *nl = memchr(r->cur + p, '\n', r->len - p);
    return nl ? (size_t)(nl - r->cur) + 1 : r->len;
}

/* Deletes whole lines by delta debugging (cd_reduce_cdd). It replaced a sweep that deleted one
 * line, then twice as many after each success: at 20 executions per input file, -j 1, seeds 1 to
 * 4 (tools/real_targets, persistent builds), libxml2 kept 284,356 / 283,315 / 290,974 / 326,838 B
 * of seeds with the sweep and 284,356 / 263,669 / 269,539 / 286,200 B with this, libyaml
 * 692-695 KB against 688-691 KB, Lua and json-c the same within their run-to-run spread. Also
 * probing 1, 2, 4, ... groups after each deletion (shrinkray) lost on Lua (3.1 to 4.4 MB against
 * 3.0 to 3.1 MB) and changed nothing on libyaml. The pass is a text pass (reduce_passes.c): in
 * binary data a line is any run of bytes up to a 0x0a, and on libpng at 100 executions per file
 * (-j 1) the seeds came to 573,443 B with the old sweep, 583,976 B with this on binary inputs,
 * and 564,321 B with no line deletion there, the blocks pass doing that work. */
bool cd_reduce_lines(struct cd_reduce_run *r)
{
    if (!r->len || !memchr(r->cur, '\n', r->len))
        return false;
    return cd_reduce_cdd(r, line_end);
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
            if (found && cd_reduce_try_delete(r, p, end - p)) {
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
        if (q < r->len && cd_reduce_try_delete(r, p, q - p + 1)) {
            any = true;
            continue;
        }
        if (q < r->len && q > p + 1 && cd_reduce_try_delete(r, p + 1, q - p - 1))
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
        if (cd_reduce_in_string(r->cur, &i, &str))
            continue;
        if (c == '(' || c == '[' || c == '{') {
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
            if (to > from && cd_reduce_try_delete(r, from, to - from)) {
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
