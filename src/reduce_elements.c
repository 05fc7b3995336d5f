/* The elements pass: deletes whole markup elements (XML, SVG, XHTML, plist: a start tag, its
 * content and its matching end tag, or an empty-element tag), parents before their children. A
 * parser that stops at the first well-formedness error loses every label past a cut that breaks
 * the nesting, which is what most generic cuts of a document do; an element cut keeps the rest
 * well-formed, so the labels a document shows after it survive. */
#include "cd_reduce.h"

#include <string.h>

static bool name_start(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || c >= 0x80;
}

static bool name_char(uint8_t c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* Index just past the '>' closing the tag that opens at p (quoted attribute values skipped), or
 * len when there is none. */
static size_t tag_end(const uint8_t *s, size_t len, size_t p)
{
    uint8_t quote = 0;
    for (size_t q = p + 1; q < len; q++) {
        if (quote) {
            if (s[q] == quote)
                quote = 0;
        } else if (s[q] == '"' || s[q] == '\'') {
            quote = s[q];
        } else if (s[q] == '>') {
            return q + 1;
        }
    }
    return len;
}

/* Index just past the first occurrence of the n bytes at what from p, or len. */
static size_t past(const uint8_t *s, size_t len, size_t p, const char *what, size_t n)
{
    for (size_t q = p; q + n <= len; q++)
        if (memcmp(s + q, what, n) == 0)
            return q + n;
    return len;
}

/* Length of the name of the start tag at p ('<' then a name), 0 when p opens no start tag. */
static size_t start_name(const uint8_t *s, size_t len, size_t p)
{
    if (p + 1 >= len || s[p] != '<' || !name_start(s[p + 1]))
        return 0;
    size_t n = 1;
    while (p + 1 + n < len && name_char(s[p + 1 + n]))
        n++;
    return n;
}

/* Index just past the element whose start tag opens at p and ends at e (its name n bytes long):
 * past its matching end tag, nested elements of the same name counted; 0 when unbalanced.
 * Comments, CDATA sections and processing instructions are skipped whole. */
static size_t element_end(const uint8_t *s, size_t len, size_t p, size_t e, size_t n)
{
    const uint8_t *name = s + p + 1;
    size_t depth = 1;
    for (size_t q = e; q < len;) {
        if (s[q] != '<') {
            q++;
        } else if (len - q >= 4 && memcmp(s + q, "<!--", 4) == 0) {
            q = past(s, len, q + 4, "-->", 3);
        } else if (len - q >= 9 && memcmp(s + q, "<![CDATA[", 9) == 0) {
            q = past(s, len, q + 9, "]]>", 3);
        } else if (len - q >= 2 && (s[q + 1] == '?' || s[q + 1] == '!')) {
            q = tag_end(s, len, q);
        } else if (len - q > n + 2 && s[q + 1] == '/' && memcmp(s + q + 2, name, n) == 0 &&
                   !name_char(s[q + 2 + n])) {
            q = tag_end(s, len, q);
            if (--depth == 0)
                return q;
        } else {
            size_t m = start_name(s, len, q), te = tag_end(s, len, q);
            if (m == n && memcmp(s + q + 1, name, n) == 0 && s[te - 1] == '>' && s[te - 2] != '/')
                depth++;
            q = te;
        }
    }
    return 0;
}

/* Walks the start tags in document order: deletes the element at each (the walk stays there, on
 * what follows it), and when that fails goes on inside it, so a parent that must stay is kept
 * and its children are tried one by one. One candidate per element. */
bool cd_reduce_elements(struct cd_reduce_run *r)
{
    bool any = false;
    size_t p = 0;
    while (p < r->len && !r->stopped) {
        const uint8_t *lt = memchr(r->cur + p, '<', r->len - p);
        if (!lt)
            break;
        p = (size_t)(lt - r->cur);
        if (r->len - p >= 4 && memcmp(r->cur + p, "<!--", 4) == 0) {
            p = past(r->cur, r->len, p + 4, "-->", 3);
            continue;
        }
        if (r->len - p >= 9 && memcmp(r->cur + p, "<![CDATA[", 9) == 0) {
            p = past(r->cur, r->len, p + 9, "]]>", 3);
            continue;
        }
        size_t n = start_name(r->cur, r->len, p), e = tag_end(r->cur, r->len, p), end = 0;
        if (n == 0 || r->cur[e - 1] != '>') {
            p++;
            continue;
        }
        end = r->cur[e - 2] == '/' ? e : element_end(r->cur, r->len, p, e, n);
        if (end == 0) {
            p = e;
            continue;
        }
        memcpy(r->cand, r->cur, p);
        memcpy(r->cand + p, r->cur + end, r->len - end);
        if (cd_reduce_try(r, r->len - (end - p)))
            any = true;
        else
            p = e;
    }
    return any;
}
