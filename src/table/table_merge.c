/* Merging tables: the tables of shards (each run on a part of the inputs, or a merge itself) fold
 * into the table one run over all their examples would hold. Per label the best is the least
 * example of all, in the order cd_table_offer keeps (a seed before a reproducer for a coverage
 * label, then shortlex), which no order of merging changes; the finished mark holds where some
 * input's best for the label is that same example and was finished there; the seen-sets unite,
 * and so do the unstable edges, whose labels leave every example before it is offered. Two
 * inputs whose notes give one bug label to two crash states (a collision) keep both bugs: the
 * least state keeps the label, the other takes the next free probe of its own (renames).
 * The result is built in a canonical order (examples by shortlex, labels as those examples first
 * show them), so merging is commutative and associative to the byte of the saved state. */
#include "table_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* One distinct example of the inputs: the first of its copies in canonical order, and what its
 * copies say of it together. */
struct merge_item {
    const struct cd_table_example *e;
    size_t from;                 /* the input e is of: its renames apply to e's labels */
    bool finished, pinned, checked;
    bool keep;                   /* best for some label of the merge, or pinned */
};

/* An example of an input, and which input. */
struct merge_src {
    const struct cd_table_example *e;
    size_t k;
};

static int cmp_examples(const void *a, const void *b)
{
    const struct merge_src *x = a, *y = b;
    int c = cd_table_shortlex(x->e->data, x->e->len, y->e->data, y->e->len);
    c = c ? c : strcmp(x->e->origin, y->e->origin);
    return c ? c : (x->k > y->k) - (x->k < y->k);
}

/* Every live example of the inputs, sorted canonically; copies of one content folded into one
 * item (finished, pinned or checked when any copy is; the least origin). *n gets the item count. */
static struct merge_item *collect(const struct cd_table *const *in, size_t n_in, size_t *n)
{
    size_t total = 0;
    for (size_t k = 0; k < n_in; k++)
        total += in[k]->n_examples;
    struct merge_src *all = malloc((total ? total : 1) * sizeof *all);
    struct merge_item *items = calloc(total ? total : 1, sizeof *items);
    if (!all || !items) {
        free(all);
        free(items);
        return NULL;
    }
    size_t m = 0;
    for (size_t k = 0; k < n_in; k++)
        for (const struct cd_table_example *e = in[k]->head; e; e = e->next)
            all[m++] = (struct merge_src){e, k};
    qsort(all, m, sizeof *all, cmp_examples);
    *n = 0;
    for (size_t i = 0; i < m; i++) {
        struct merge_item *last = *n ? &items[*n - 1] : NULL;
        if (!last || cd_table_shortlex(last->e->data, last->e->len, all[i].e->data, all[i].e->len))
            last = &items[(*n)++];
        if (!last->e) {
            last->e = all[i].e;
            last->from = all[i].k;
        }
        last->finished |= all[i].e->finished;
        last->pinned |= all[i].e->pinned;
        last->checked |= all[i].e->checked;
    }
    free(all);
    return items;
}

/* A bug label of one input that the merge gives another id: its note's crash state is not the
 * one that keeps the id (the least of the inputs' states on it). */
struct merge_rename {
    size_t k;
    uint32_t from, to;
};

struct merge_renames {
    struct merge_rename *v;
    size_t n;
};

/* The id label id of input k has in the merge. */
static uint32_t renamed(const struct merge_renames *r, size_t k, uint32_t id)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].k == k && r->v[i].from == id)
            return r->v[i].to;
    return id;
}

/* The id that label id of the merge has in input k, or 0 when input k has it for another bug. */
static uint32_t id_in_input(const struct merge_renames *r, size_t k, uint32_t id)
{
    uint32_t back = id;
    for (size_t i = 0; i < r->n; i++) {
        if (r->v[i].k != k)
            continue;
        if (r->v[i].to == id)
            return r->v[i].from;
        if (r->v[i].from == id)
            back = 0;
    }
    return back;
}

/* One input's note, for planning renames. */
struct merge_note {
    uint32_t id;
    const char *text;
    size_t k;
};

static int merge_note_cmp(const void *a, const void *b)
{
    const struct merge_note *x = a, *y = b;
    if (x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    int c = strcmp(x->text, y->text);
    return c ? c : (x->k > y->k) - (x->k < y->k);
}

/* Whether a claim other than text's is on id: the least state of the notes on id, or a state
 * renamed onto id already. */
static bool claimed(const struct merge_note *notes, size_t n, const struct merge_renames *r,
                    uint32_t id, const char *text)
{
    for (size_t i = 0; i < n; i++)
        if (notes[i].id == id) /* sorted: the first on id is its least state, the keeper */
            return strcmp(notes[i].text, text) != 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].to == id)
            for (size_t j = 0; j < n; j++)
                if (notes[j].k == r->v[i].k && notes[j].id == r->v[i].from)
                    return strcmp(notes[j].text, text) != 0;
    return false;
}

/* Plans the renames of a merge: for each note whose id holds a lesser state in some input, the
 * first probe of its own state that no other state claims. Independent of the inputs' order. A
 * collision no probe resolves keeps its id (the least state's note then names it). */
static enum cd_status plan_renames(const struct cd_table *const *in, size_t n_in,
                                   struct merge_renames *r, struct cd_error *err)
{
    size_t n = 0;
    for (size_t k = 0; k < n_in; k++)
        n += in[k]->n_notes;
    r->v = NULL;
    r->n = 0;
    if (n < 2)
        return CD_OK;
    struct merge_note *notes = malloc(n * sizeof *notes);
    r->v = malloc(n * sizeof *r->v);
    if (!notes || !r->v) {
        free(notes);
        return cd_error_oom(err, CD_FAILED, "out of memory merging tables");
    }
    n = 0;
    for (size_t k = 0; k < n_in; k++)
        for (size_t i = 0; i < in[k]->n_notes; i++)
            notes[n++] = (struct merge_note){in[k]->notes[i].id, in[k]->notes[i].text, k};
    qsort(notes, n, sizeof *notes, merge_note_cmp);
    size_t keeper = 0;
    for (size_t i = 0; i < n; i++) {
        if (notes[i].id != notes[keeper].id)
            keeper = i;
        if (strcmp(notes[i].text, notes[keeper].text) == 0)
            continue;
        uint32_t to = notes[i].id;
        for (unsigned p = 1; p < CD_LABELS_BUG_PROBES && to == notes[i].id; p++) {
            uint32_t id = cd_labels_bug_probe(notes[i].text, p);
            if (!claimed(notes, n, r, id, notes[i].text))
                to = id;
        }
        if (to != notes[i].id)
            r->v[r->n++] = (struct merge_rename){notes[i].k, notes[i].id, to};
    }
    free(notes);
    return CD_OK;
}

/* Offers the items (those marked keep when only_kept) to t in order, without the labels of t's
 * unstable edges; pinned items that win nothing are stored and pinned all the same. */
static int cmp_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static enum cd_status offer_items(struct cd_table *t, struct merge_item *items, size_t n,
                                  bool only_kept, const struct merge_renames *r,
                                  struct cd_error *err)
{
    struct cd_labelset copy = {NULL, 0, 0};
    enum cd_status st = CD_OK;
    for (size_t i = 0; i < n && st == CD_OK; i++) {
        const struct cd_table_example *e = items[i].e, *stored = NULL;
        const struct cd_labelset *labels = &e->labels;
        if (only_kept && !items[i].keep)
            continue;
        bool rename = false;
        for (size_t k = 0; k < r->n && !rename; k++)
            rename = r->v[k].k == items[i].from && cd_labelset_has(&e->labels, r->v[k].from);
        if (t->unstable.n || rename) { /* a copy without them, its bugs renamed */
            copy.n = 0;
            for (size_t k = 0; k < e->labels.n && st == CD_OK; k++)
                if (!cd_labelset_push(&copy, renamed(r, items[i].from, e->labels.v[k])))
                    st = cd_error_oom(err, CD_FAILED, "out of memory merging tables");
            if (rename)
                qsort(copy.v, copy.n, sizeof *copy.v, cmp_id);
            cd_table_strip_unstable(t, &copy);
            labels = &copy;
        }
        if (st == CD_OK)
            st = cd_table_offer(t, e->data, e->len, labels, e->origin, NULL, &stored, err);
        if (st == CD_OK && !stored && items[i].pinned) {
            struct cd_table_example *x = table_example_new(t, e->data, e->len, labels,
                                                           e->origin);
            if (!x)
                st = cd_error_oom(err, CD_FAILED, "out of memory merging tables");
            else
                table_example_link(t, x);
            stored = x;
        }
        if (stored) {
            struct cd_table_example *x = (struct cd_table_example *)stored;
            x->finished = items[i].finished;
            x->pinned = items[i].pinned;
            x->checked = items[i].checked;
        }
    }
    cd_labelset_release(&copy);
    return st;
}

/* Gives t the unstable edges of every input. */
static enum cd_status unite_unstable(struct cd_table *t, const struct cd_table *const *in,
                                     size_t n_in, struct cd_error *err)
{
    for (size_t k = 0; k < n_in; k++)
        for (size_t i = 0; i < in[k]->unstable.n; i++)
            if (!table_add_unstable(t, in[k]->unstable.v[i]))
                return cd_error_oom(err, CD_FAILED, "out of memory merging tables");
    return CD_OK;
}

/* Whether some input's best for label id is the example at data (len bytes) and finished. */
static bool finished_somewhere(const struct cd_table *const *in, size_t n_in,
                               const struct merge_renames *r, uint32_t id, const uint8_t *data,
                               size_t len)
{
    for (size_t k = 0; k < n_in; k++) {
        uint32_t there = id_in_input(r, k, id);
        const struct cd_table_label *l = there ? table_lookup(in[k], there) : NULL;
        if (l && l->finished && !cd_table_shortlex(l->best->data, l->best->len, data, len))
            return true;
    }
    return false;
}

/* Whether label id is found (a bonus label) in every input that has it: one input's first pass
 * showing it makes it an input label of the whole. */
static bool found_everywhere(const struct cd_table *const *in, size_t n_in,
                             const struct merge_renames *r, uint32_t id)
{
    for (size_t k = 0; k < n_in; k++) {
        uint32_t there = id_in_input(r, k, id);
        const struct cd_table_label *l = there ? table_lookup(in[k], there) : NULL;
        if (l && !l->found)
            return false;
    }
    return true;
}

/* Unites the inputs' seen-sets into t's. */
static enum cd_status unite_seen(struct cd_table *t, const struct cd_table *const *in,
                                 size_t n_in, struct cd_error *err)
{
    for (size_t k = 0; k < n_in; k++) {
        uint64_t *fps = malloc((in[k]->seen.count ? in[k]->seen.count : 1) * sizeof *fps);
        if (!fps)
            return cd_error_oom(err, CD_FAILED, "out of memory merging seen-sets");
        size_t n = cd_hashset_fingerprints(&in[k]->seen, fps);
        for (size_t i = 0; i < n; i++)
            if (cd_hashset_add_fingerprint(&t->seen, fps[i]) < 0) {
                free(fps);
                return cd_error_oom(err, CD_FAILED, "out of memory merging seen-sets");
            }
        free(fps);
        t->seen.forgotten += in[k]->seen.forgotten;
    }
    return CD_OK;
}

/* Finds the examples the merge keeps: offered all to a scratch table, those still stored. */
static enum cd_status mark_kept(struct merge_item *items, size_t n,
                                const struct cd_table *const *in, size_t n_in,
                                const struct merge_renames *r, struct cd_error *err)
{
    struct cd_table *scratch;
    CD_FORWARD_IF_ERROR(cd_table_new(&scratch, err));
    enum cd_status st = unite_unstable(scratch, in, n_in, err);
    if (st == CD_OK)
        st = offer_items(scratch, items, n, false, r, err);
    /* Items are distinct contents in shortlex order, and so are the stored examples. */
    size_t i = 0;
    for (const struct cd_table_example *x = scratch->head; x && st == CD_OK; x = x->next) {
        while (i < n && cd_table_shortlex(items[i].e->data, items[i].e->len, x->data, x->len) < 0)
            i++;
        if (i < n)
            items[i].keep = true;
    }
    cd_table_free(scratch);
    return st;
}

static int note_cmp(const void *a, const void *b)
{
    const struct table_note *x = a, *y = b;
    return x->id != y->id ? (x->id > y->id) - (x->id < y->id) : strcmp(x->text, y->text);
}

/* Gives t (which has no notes yet) the notes of its labels: per label the least text among the
 * inputs', so that order does not matter. All are gathered and sorted once: inserting them one
 * by one into the sorted array was quadratic in bugs. */
static enum cd_status unite_notes(struct cd_table *t, const struct cd_table *const *in, size_t n_in,
                                  const struct merge_renames *r, struct cd_error *err)
{
    size_t n = 0;
    for (size_t k = 0; k < n_in; k++)
        n += in[k]->n_notes;
    if (n == 0)
        return CD_OK;
    struct table_note *all = malloc(n * sizeof *all); /* texts borrowed from the inputs */
    struct table_note *kept = calloc(n, sizeof *kept);
    if (!all || !kept) {
        free(all);
        free(kept);
        return cd_error_oom(err, CD_FAILED, "out of memory merging tables");
    }
    n = 0;
    for (size_t k = 0; k < n_in; k++)
        for (size_t i = 0; i < in[k]->n_notes; i++) {
            uint32_t id = renamed(r, k, in[k]->notes[i].id);
            if (table_lookup(t, id))
                all[n++] = (struct table_note){id, in[k]->notes[i].text};
        }
    qsort(all, n, sizeof *all, note_cmp);
    size_t m = 0;
    enum cd_status st = CD_OK;
    for (size_t i = 0; i < n && st == CD_OK; i++) {
        if (m && kept[m - 1].id == all[i].id)
            continue; /* the least text of this id is kept already */
        kept[m].id = all[i].id;
        if (!(kept[m++].text = strdup(all[i].text)))
            st = cd_error_oom(err, CD_FAILED, "out of memory merging tables");
    }
    free(all);
    assert(t->n_notes == 0);
    if (st != CD_OK) {
        for (size_t i = 0; i < m; i++)
            free(kept[i].text);
        free(kept);
        return st;
    }
    free(t->notes);
    t->notes = kept;
    t->n_notes = m;
    return CD_OK;
}

enum cd_status cd_table_merge(struct cd_table **out, const struct cd_table *const *in, size_t n_in,
                              struct cd_error *err)
{
    *out = NULL;
    size_t n = 0;
    struct merge_item *items = collect(in, n_in, &n);
    if (!items)
        return cd_error_oom(err, CD_FAILED, "out of memory merging tables");
    struct cd_table *t = NULL;
    struct merge_renames r;
    /* Offering only what survives gives labels the first-seen order of the kept examples, the
     * same however the inputs were grouped. */
    enum cd_status st = plan_renames(in, n_in, &r, err);
    if (st == CD_OK)
        st = mark_kept(items, n, in, n_in, &r, err);
    if (st == CD_OK)
        st = cd_table_new(&t, err);
    if (st == CD_OK)
        st = unite_unstable(t, in, n_in, err);
    if (st == CD_OK)
        st = offer_items(t, items, n, true, &r, err);
    free(items);
    for (size_t i = 0; st == CD_OK && i < t->n_labels; i++) {
        struct cd_table_label *l = &t->labels[i];
        l->finished = finished_somewhere(in, n_in, &r, l->id, l->best->data, l->best->len);
        l->found = found_everywhere(in, n_in, &r, l->id);
    }
    if (st == CD_OK)
        st = unite_seen(t, in, n_in, err);
    if (st == CD_OK)
        st = unite_notes(t, in, n_in, &r, err);
    free(r.v);
    if (st != CD_OK) {
        cd_table_free(t);
        return st;
    }
    *out = t;
    return CD_OK;
}
