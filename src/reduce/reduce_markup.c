/* The markup passes (XML, SVG, XHTML, plist). The elements pass deletes whole elements (a start
 * tag, its content and its matching end tag, or an empty-element tag), parents before their
 * children: a parser that stops at the first well-formedness error loses every label past a cut
 * that breaks the nesting, which is what most generic cuts of a document do, while an element cut
 * keeps the rest well-formed. The kinds pass edits every element (or attribute) of one name at
 * once: a label that counts elements (a hit-count class of 32 or 128 and more) needs all its copies
 * and fails every cut of one copy, but its copies can all lose their content, their attributes or
 * a half of their number together. */
#include "reduce_internal.h"

#include <stdlib.h>
#include <string.h>

static bool name_start(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || c >= 0x80;
}

static bool name_char(uint8_t c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* Index just past the '>' closing the tag that opens at p (quoted attribute values skipped), or 0
 * when there is none: a '<' before it ends the search, as no well-formed tag holds one and a stray
 * '<' of a binary input must not cost a scan to its end. */
static size_t tag_end(const uint8_t *s, size_t len, size_t p)
{
    uint8_t quote = 0;
    for (size_t q = p + 1; q < len; q++) {
        if (s[q] == '<') {
            return 0;
        } else if (quote) {
            if (s[q] == quote)
                quote = 0;
        } else if (s[q] == '"' || s[q] == '\'') {
            quote = s[q];
        } else if (s[q] == '>') {
            return q + 1;
        }
    }
    return 0;
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

/* A start tag: '<' at p, its name's n bytes at p + 1, its '>' at e - 1; empty when "/>" ends it. */
struct tag {
    size_t p, n, e;
    bool empty;
};

/* Finds the first start tag at or after p, comments and CDATA sections skipped whole; false when
 * there is none. */
static bool next_tag(const uint8_t *s, size_t len, size_t p, struct tag *t)
{
    while (p < len) {
        const uint8_t *lt = memchr(s + p, '<', len - p);
        if (!lt)
            return false;
        p = (size_t)(lt - s);
        if (len - p >= 4 && memcmp(s + p, "<!--", 4) == 0) {
            p = past(s, len, p + 4, "-->", 3);
            continue;
        }
        if (len - p >= 9 && memcmp(s + p, "<![CDATA[", 9) == 0) {
            p = past(s, len, p + 9, "]]>", 3);
            continue;
        }
        size_t n = start_name(s, len, p), e = tag_end(s, len, p);
        if (n == 0 || e == 0) {
            p++;
            continue;
        }
        *t = (struct tag){.p = p, .n = n, .e = e, .empty = s[e - 2] == '/'};
        return true;
    }
    return false;
}

/* The start tags of a document in order, each with the end of its element: t.e for an empty one,
 * else just past its matching end tag (nested elements of the same name counted), 0 when
 * unbalanced. One scan, a stack of open elements per name: matching each start tag by a scan to
 * its end tag cost, on a long document with many unbalanced '<' (a script's comparisons), a scan
 * of the rest of it per tag. Comments and CDATA sections are skipped whole. */
struct elements {
    struct tag *v;
    size_t *end;
    size_t *below;  /* per tag: the open tag of the same name under it, or SIZE_MAX */
    size_t n, cap;
    size_t *top;    /* per name slot: the innermost open tag of that name, or SIZE_MAX */
    size_t *key;    /* per name slot: a tag of that name, SIZE_MAX while the slot is free */
    size_t slots;   /* power of two */
};

static void elements_release(struct elements *el)
{
    free(el->v);
    free(el->end);
    free(el->below);
    free(el->top);
    free(el->key);
    memset(el, 0, sizeof *el);
}

/* The name slot of the n bytes at name (open addressing; a slot once a name's stays its own),
 * or SIZE_MAX when the name has none and tag, a start tag of it (SIZE_MAX: none), is not to take
 * one. */
static size_t name_slot(struct elements *el, const uint8_t *s, const uint8_t *name, size_t n,
                        size_t tag)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ name[i]) * 1099511628211ull;
    for (size_t k = (size_t)h & (el->slots - 1);; k = (k + 1) & (el->slots - 1)) {
        size_t t = el->key[k];
        if (t == SIZE_MAX) {
            if (tag == SIZE_MAX)
                return SIZE_MAX;
            el->key[k] = tag;
            return k;
        }
        if (el->v[t].n == n && memcmp(s + el->v[t].p + 1, name, n) == 0)
            return k;
    }
}

/* Adds tag t; false when out of memory. Slots are sized for the document's '<' count. */
static bool elements_push(struct elements *el, const struct tag *t)
{
    if (el->n == el->cap) {
        size_t cap = el->cap ? el->cap * 2 : 64;
        struct tag *v = realloc(el->v, cap * sizeof *v);
        if (v)
            el->v = v;
        size_t *end = v ? realloc(el->end, cap * sizeof *end) : NULL;
        if (end)
            el->end = end;
        size_t *below = end ? realloc(el->below, cap * sizeof *below) : NULL;
        if (!below)
            return false;
        el->below = below;
        el->cap = cap;
    }
    el->v[el->n] = *t;
    el->end[el->n] = t->empty ? t->e : 0;
    el->below[el->n] = SIZE_MAX;
    el->n++;
    return true;
}

/* Indexes the start tags of s; false when out of memory (el then empty). */
static bool elements_index(const uint8_t *s, size_t len, struct elements *el)
{
    memset(el, 0, sizeof *el);
    size_t lts = 0;
    for (const uint8_t *q = s; (q = memchr(q, '<', len - (size_t)(q - s))) != NULL; q++)
        lts++;
    el->slots = 16;
    while (el->slots < 2 * lts + 2)
        el->slots *= 2;
    el->top = malloc(el->slots * sizeof *el->top);
    el->key = malloc(el->slots * sizeof *el->key);
    if (!el->top || !el->key) {
        elements_release(el);
        return false;
    }
    memset(el->top, 0xff, el->slots * sizeof *el->top);
    memset(el->key, 0xff, el->slots * sizeof *el->key);
    for (size_t q = 0; q < len;) {
        const uint8_t *lt = memchr(s + q, '<', len - q);
        if (!lt)
            break;
        q = (size_t)(lt - s);
        if (len - q >= 4 && memcmp(s + q, "<!--", 4) == 0) {
            q = past(s, len, q + 4, "-->", 3);
        } else if (len - q >= 9 && memcmp(s + q, "<![CDATA[", 9) == 0) {
            q = past(s, len, q + 9, "]]>", 3);
        } else if (q + 2 < len && s[q + 1] == '/') {
            /* an end tag: it closes the innermost open element of its name; one without its
               '>' leaves every open element of the name unbalanced */
            size_t n = 0, te = tag_end(s, len, q);
            while (q + 2 + n < len && name_char(s[q + 2 + n]))
                n++;
            size_t k = n ? name_slot(el, s, s + q + 2, n, SIZE_MAX) : SIZE_MAX;
            if (k != SIZE_MAX && el->top[k] != SIZE_MAX) {
                size_t t = el->top[k];
                if (te) {
                    el->end[t] = te;
                    el->top[k] = el->below[t];
                } else {
                    el->top[k] = SIZE_MAX; /* their ends stay 0 */
                }
            }
            q = te ? te : q + 1;
        } else {
            size_t n = start_name(s, len, q), te = tag_end(s, len, q);
            if (n && te) {
                struct tag t = {.p = q, .n = n, .e = te, .empty = s[te - 2] == '/'};
                if (!elements_push(el, &t)) {
                    elements_release(el);
                    return false;
                }
                if (!t.empty) {
                    size_t k = name_slot(el, s, s + q + 1, n, el->n - 1);
                    el->below[el->n - 1] = el->top[k];
                    el->top[k] = el->n - 1;
                }
            }
            q = te ? te : q + 1;
        }
    }
    return true;
}

/* Walks the start tags in document order: deletes the element at each (the walk stays there, on
 * what follows it), and when that fails goes on inside it, so a parent that must stay is kept
 * and its children are tried one by one. One candidate per element. */
bool cd_reduce_elements(struct cd_reduce_run *r)
{
    bool any = false;
    struct elements el;
    if (!elements_index(r->cur, r->len, &el))
        return false;
    for (size_t i = 0; i < el.n && !r->stopped; i++) {
        const struct tag t = el.v[i];
        size_t end = el.end[i];
        if (end == 0)
            continue;
        memcpy(r->cand, r->cur, t.p);
        memcpy(r->cand + t.p, r->cur + end, r->len - end);
        if (!cd_reduce_try(r, r->len - (end - t.p)))
            continue;
        any = true;
        /* The walk stays where the element was, on what follows it in the new document. */
        elements_release(&el);
        if (!elements_index(r->cur, r->len, &el))
            return any;
        i = 0;
        while (i < el.n && el.v[i].p < t.p)
            i++;
        i--; /* the loop's step brings it back */
    }
    elements_release(&el);
    return any;
}

/* The kinds pass's edits: of every element of one name, or of every attribute of one name. */
enum kind_edit {
    KIND_DROP,       /* delete the elements */
    KIND_EMPTY,      /* <n a="v">content</n> becomes <n a="v"/> */
    KIND_BARE,       /* <n a="v"> becomes <n> */
    KIND_DROP_ATTR,  /* delete the attributes, with the blanks before them */
    KIND_CLEAR_ATTR, /* a="v" becomes a="" */
};

/* Names of up to this many bytes, and this many kinds a document, are edited. */
#define KIND_NAME_MAX 64
#define KIND_MAX 128

/* A name the document uses for elements, or for attributes. */
struct kind {
    uint8_t name[KIND_NAME_MAX];
    size_t n;
    bool attr;
};

/* An attribute in a tag: its blanks before from lead, its name's n bytes at name, its value
 * between the quotes at v - 1 and ve. */
struct attr {
    size_t lead, name, n, v, ve;
};

static bool is_blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Parses the attribute at q in a tag whose attributes end at end (before its '>' or "/>"); false
 * when there is none or it is not name="value" (or with single quotes). */
static bool next_attr(const uint8_t *s, size_t q, size_t end, struct attr *a)
{
    a->lead = q;
    while (q < end && is_blank(s[q]))
        q++;
    if (q == end || !name_start(s[q]))
        return false;
    a->name = q;
    while (q < end && name_char(s[q]))
        q++;
    a->n = q - a->name;
    while (q < end && is_blank(s[q]))
        q++;
    if (q == end || s[q++] != '=')
        return false;
    while (q < end && is_blank(s[q]))
        q++;
    if (q == end || (s[q] != '"' && s[q] != '\''))
        return false;
    const uint8_t *close = memchr(s + q + 1, s[q], end - q - 1);
    if (!close)
        return false;
    a->v = q + 1;
    a->ve = (size_t)(close - s);
    return true;
}

/* Where the attributes of tag t end: at its '>' or "/>". */
static size_t attrs_end(const struct tag *t)
{
    return t->e - (t->empty ? 2 : 1);
}

static bool same_name(const struct kind *k, const uint8_t *name, size_t n)
{
    return n == k->n && memcmp(name, k->name, n) == 0;
}

/* Adds the name at name (n bytes) to kinds[0..*count) unless there, too long or kinds are full. */
static void add_kind(struct kind *kinds, size_t *count, const uint8_t *name, size_t n, bool attr)
{
    if (n > KIND_NAME_MAX || *count == KIND_MAX)
        return;
    for (size_t i = 0; i < *count; i++)
        if (kinds[i].attr == attr && same_name(&kinds[i], name, n))
            return;
    memcpy(kinds[*count].name, name, n);
    kinds[*count].n = n;
    kinds[(*count)++].attr = attr;
}

/* The element and attribute names of s, in order of first use; returns how many. */
static size_t collect_kinds(const uint8_t *s, size_t len, struct kind *kinds)
{
    size_t count = 0, p = 0;
    struct tag t;
    while (next_tag(s, len, p, &t)) {
        add_kind(kinds, &count, s + t.p + 1, t.n, false);
        struct attr a;
        for (size_t q = t.p + 1 + t.n; next_attr(s, q, attrs_end(&t), &a); q = a.ve + 1)
            add_kind(kinds, &count, s + a.name, a.n, true);
        p = t.e;
    }
    return count;
}

/* The candidate being written: cur's bytes up to c are dealt with, o bytes written. */
struct writer {
    const uint8_t *s;
    uint8_t *out;
    size_t c, o;
};

/* Copies cur's bytes from w->c to to, then skips to resume. */
static void copy_skip(struct writer *w, size_t to, size_t resume)
{
    memcpy(w->out + w->o, w->s + w->c, to - w->c);
    w->o += to - w->c;
    w->c = resume;
}

/* Applies edit ed to the attributes of kind k in tag t that are instances lo..hi-1; *seen counts
 * the instances met. */
static void edit_attrs(struct writer *w, const struct tag *t, const struct kind *k,
                       enum kind_edit ed, size_t lo, size_t hi, size_t *seen)
{
    struct attr a;
    for (size_t q = t->p + 1 + t->n; next_attr(w->s, q, attrs_end(t), &a); q = a.ve + 1) {
        if (!same_name(k, w->s + a.name, a.n) || (ed == KIND_CLEAR_ATTR && a.ve == a.v))
            continue;
        if (*seen >= lo && *seen < hi)
            copy_skip(w, ed == KIND_DROP_ATTR ? a.lead : a.v, ed == KIND_DROP_ATTR ? a.ve + 1 : a.ve);
        ++*seen;
    }
}

/* Writes into r->cand cur with edit ed applied to the instances lo..hi-1 of kind k, counted in
 * document order among those it would change (an element inside an edited one is not counted);
 * returns the candidate's length, *seen the instances met. Every edit shortens. */
static size_t apply_kind(struct cd_reduce_run *r, const struct elements *el, const struct kind *k,
                         enum kind_edit ed, size_t lo, size_t hi, size_t *seen)
{
    struct writer w = {.s = r->cur, .out = r->cand};
    size_t p = 0;
    *seen = 0;
    for (size_t i = 0; i < el->n; i++) {
        const struct tag t = el->v[i];
        if (t.p < p)
            continue; /* inside an element this edit took whole */
        if (k->attr) {
            edit_attrs(&w, &t, k, ed, lo, hi, seen);
            continue;
        }
        size_t end = el->end[i], names_end = t.p + 1 + t.n;
        if (!same_name(k, r->cur + t.p + 1, t.n) || end == 0 || (ed == KIND_EMPTY && t.empty) ||
            (ed == KIND_BARE && attrs_end(&t) == names_end))
            continue;
        if (*seen >= lo && *seen < hi) {
            if (ed == KIND_DROP) {
                copy_skip(&w, t.p, end);
            } else if (ed == KIND_EMPTY) {
                copy_skip(&w, t.e - 1, end);
                memcpy(w.out + w.o, "/>", 2);
                w.o += 2;
            } else {
                copy_skip(&w, names_end, attrs_end(&t));
            }
            if (ed != KIND_BARE)
                p = end;
        }
        ++*seen;
    }
    copy_skip(&w, r->len, r->len);
    return w.o;
}

/* Tries edit ed on the instances lo..hi-1 of kind k; false when it changes nothing or fails. A
 * success indexes the new document into el (empty when out of memory: nothing more is tried). */
static bool try_kind(struct cd_reduce_run *r, struct elements *el, const struct kind *k,
                     enum kind_edit ed, size_t lo, size_t hi)
{
    size_t seen, n = apply_kind(r, el, k, ed, lo, hi, &seen);
    if (n == r->len || !cd_reduce_try(r, n))
        return false;
    elements_release(el);
    (void)elements_index(r->cur, r->len, el);
    return true;
}

/* Tries ed on every instance of k at once, else (deletions and emptyings, of at least 4
 * instances) on each half of them, then each quarter: a label that counts the elements keeps
 * enough of them. */
static bool edit_kind(struct cd_reduce_run *r, struct elements *el, const struct kind *k,
                      enum kind_edit ed)
{
    if (try_kind(r, el, k, ed, 0, SIZE_MAX))
        return true;
    if (ed != KIND_DROP && ed != KIND_EMPTY)
        return false;
    bool any = false;
    for (size_t parts = 2; parts <= 4 && !r->stopped; parts *= 2) {
        size_t total;
        apply_kind(r, el, k, ed, 0, 0, &total);
        for (size_t i = 0; i < parts && total >= 2 * parts; i++)
            if (try_kind(r, el, k, ed, i * total / parts, (i + 1) * total / parts)) {
                any = true;
                apply_kind(r, el, k, ed, 0, 0, &total);
            }
    }
    return any;
}

/* For each element name in order of first use: delete every such element at once, else empty
 * them, then strip their attributes; for each attribute name: delete it everywhere, else clear its
 * values. A few candidates a name, however many copies it has. */
bool cd_reduce_kinds(struct cd_reduce_run *r)
{
    static const enum kind_edit element_edits[] = {KIND_DROP, KIND_EMPTY, KIND_BARE};
    static const enum kind_edit attr_edits[] = {KIND_DROP_ATTR, KIND_CLEAR_ATTR};
    struct kind kinds[KIND_MAX];
    size_t count = collect_kinds(r->cur, r->len, kinds);
    bool any = false;
    struct elements el; /* of the document as it stands: built again after each success */
    if (!elements_index(r->cur, r->len, &el))
        return false;
    for (size_t i = 0; i < count && !r->stopped; i++) {
        const enum kind_edit *edits = kinds[i].attr ? attr_edits : element_edits;
        size_t n = kinds[i].attr ? 2 : 3;
        for (size_t j = 0; j < n && !r->stopped; j++)
            any |= edit_kind(r, &el, &kinds[i], edits[j]);
    }
    elements_release(&el);
    return any;
}
