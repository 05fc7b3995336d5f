/* The uniform pass, aimed at hit counts: every item of a (), [] or {} list made the list's
 * shortest, their count kept, and a list whose items are all alike cut in all of them at once. A
 * label kept for a hit-count class (128 numbers, 32 members) needs the count, not what each item
 * holds around it: deleting items lowers the count, and a cut inside one item saves its bytes
 * once. A document the prefix pass cut short leaves its lists unclosed: they count to its end,
 * their last item, cut short too, kept as it is. One scan finds every list (strings skipped), so a
 * call costs a pass over the example and a few candidates; only lists worth a sixteenth of the
 * example are tried, as the pass runs first on long examples (CD_FRONT_LONG), and Lua's many
 * small tables and argument lists cost it 42% more seed bytes when every list was tried
 * (measurements: tools/bench/FINDINGS.md, the uniform pass). */
#include "reduce_internal.h"

#include <string.h>

/* A list: its items in [p + 1, end) (a closed list's all, an unclosed one's but its last), how
 * many, its shortest item, and what making every item that one would save. */
struct list {
    size_t p, end, items, unit, unit_len, saving;
};

#define UNIFORM_TRIES 4        /* lists made alike a call at most, the most saving first */
#define UNIFORM_UNIT_MAX 4096  /* the longest item cut in all at once */
#define UNIFORM_DEPTH 256      /* lists nested deeper are not looked at */
#define UNIFORM_SHARE 16       /* a list worth a try saves (or covers) this part of the example */

/* What the scan keeps: the lists that save most, and the largest list already alike. */
struct found {
    struct list best[UNIFORM_TRIES];
    size_t n;
    struct list alike;
};

/* Whether l's items are all one item's bytes, each after one comma. */
static bool alike(const struct cd_reduce_run *r, const struct list *l)
{
    const uint8_t *first = r->cur + l->p + 1;
    if (l->saving || l->unit_len < 2 || l->unit_len > UNIFORM_UNIT_MAX ||
        l->end - l->p - 1 != l->items * (l->unit_len + 1) - 1)
        return false;
    for (size_t k = 1; k < l->items; k++)
        if (memcmp(first + k * (l->unit_len + 1), first, l->unit_len) != 0)
            return false;
    return true;
}

/* Weighs the list l, its items counted, for f. */
static void consider(const struct cd_reduce_run *r, struct list *l, struct found *f)
{
    if (l->items < 3)
        return;
    l->saving = (l->end - l->p - 1) - (l->items - 1) - l->items * l->unit_len;
    size_t worth = r->len / UNIFORM_SHARE;
    if (!l->saving) {
        if (l->items * l->unit_len >= worth &&
            l->items * l->unit_len > f->alike.items * f->alike.unit_len && alike(r, l))
            f->alike = *l;
        return;
    }
    if (l->saving < worth || (f->n == UNIFORM_TRIES && f->best[f->n - 1].saving >= l->saving))
        return;
    size_t at = f->n < UNIFORM_TRIES ? f->n++ : f->n - 1;
    for (; at > 0 && f->best[at - 1].saving < l->saving; at--)
        f->best[at] = f->best[at - 1];
    f->best[at] = *l;
}

/* Ends the item of l that runs to i (a comma or its closing bracket). */
static void item_done(struct list *l, size_t start, size_t i)
{
    if (i - start < l->unit_len)
        l->unit = start, l->unit_len = i - start;
    l->items++;
    l->end = i;
}

/* Every list of cur, in one scan: its items split at its own commas, double-quoted strings (with
 * backslash escapes) skipped, a closing bracket of another kind than the list's taken for text. */
static void scan(const struct cd_reduce_run *r, struct found *f)
{
    struct frame {
        struct list l;
        size_t start; /* where its current item starts */
        uint8_t close;
    } stack[UNIFORM_DEPTH];
    size_t depth = 0, deep = 0; /* lists open, and those past the stack */
    bool str = false;
    for (size_t i = 0; i < r->len; i++) {
        uint8_t c = r->cur[i];
        struct frame *top = depth ? &stack[depth - 1] : NULL;
        if (cd_reduce_in_string(r->cur, &i, &str))
            continue;
        if (c == '(' || c == '[' || c == '{') {
            if (deep || depth == UNIFORM_DEPTH) {
                deep++;
                continue;
            }
            stack[depth++] = (struct frame){
                .l = {.p = i, .end = i + 1, .unit_len = SIZE_MAX},
                .start = i + 1,
                .close = c == '(' ? ')' : c == '[' ? ']' : '}'};
        } else if (deep && (c == ')' || c == ']' || c == '}')) {
            deep--;
        } else if (top && c == top->close) {
            item_done(&top->l, top->start, i);
            consider(r, &top->l, f);
            depth--;
        } else if (top && c == ',') {
            item_done(&top->l, top->start, i);
            top->start = i + 1;
        }
    }
    while (depth--) /* unclosed: their items up to their last comma */
        consider(r, &stack[depth].l, f);
}

/* Tests cur with list l's items each the n bytes of unit (not in cand). */
static bool try_uniform(struct cd_reduce_run *r, const struct list *l, const uint8_t *unit,
                        size_t n)
{
    size_t o = l->p + 1;
    memcpy(r->cand, r->cur, o);
    for (size_t k = 0; k < l->items; k++) {
        if (k)
            r->cand[o++] = ',';
        memcpy(r->cand + o, unit, n);
        o += n;
    }
    memcpy(r->cand + o, r->cur + l->end, r->len - l->end);
    return cd_reduce_try(r, o + r->len - l->end);
}

/* Cuts the item of the list l, whose items are all alike, in every item at once: spans of half
 * the item, then a quarter ..., as the blocks pass cuts an example, returning after the first
 * size that cut. */
static bool cut_alike(struct cd_reduce_run *r, struct list *l)
{
    uint8_t unit[UNIFORM_UNIT_MAX];
    bool any = false;
    for (size_t k = l->unit_len / 2; k >= 1 && !any && !r->stopped; k /= 2) {
        for (size_t i = 0; i + k <= l->unit_len && !r->stopped;) {
            memcpy(unit, r->cur + l->p + 1, i);
            memcpy(unit + i, r->cur + l->p + 1 + i + k, l->unit_len - i - k);
            size_t end = l->end - l->items * k;
            if (try_uniform(r, l, unit, l->unit_len - k)) {
                any = true;
                l->unit_len -= k;
                l->end = end;
            } else {
                i += k;
            }
        }
    }
    return any;
}

bool cd_reduce_uniform(struct cd_reduce_run *r)
{
    struct found f = {0};
    scan(r, &f);
    for (size_t i = 0; i < f.n && !r->stopped; i++)
        if (try_uniform(r, &f.best[i], r->cur + f.best[i].unit, f.best[i].unit_len))
            return true; /* the other lists moved */
    return f.alike.items && cut_alike(r, &f.alike);
}
