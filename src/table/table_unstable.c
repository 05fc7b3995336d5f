/* The table's unstable edges (edges whose labels differ between two runs of one input: their
 * labels leave the table, and later runs' labels are stripped of them) and the removal of records
 * it shares with the dropping of targets' labels. */
#include "table_internal.h"

#include <stdlib.h>
#include <string.h>

/* Whether id is a coverage label of an unstable edge. Every label of every run passes here: the
 * label's layout (cd_labels.h) is read in place rather than through calls into labels.c. */
static inline bool is_unstable(const struct cd_table *t, uint32_t id)
{
    uint32_t edge = id >> 3;
    return !(id & CD_LABEL_OUTCOME) && edge / 64 < t->unstable_words &&
           (t->unstable_bits[edge / 64] >> (edge % 64) & 1);
}

/* Makes the unstable bitmap reach edge; false when out of memory. */
static bool reserve_unstable_bits(struct cd_table *t, uint32_t edge)
{
    uint64_t *bits = table_grow_zeroed(t->unstable_bits, &t->unstable_words, edge / 64, sizeof *bits, 64);
    if (bits)
        t->unstable_bits = bits;
    return bits != NULL;
}

static void set_unstable_bit(struct cd_table *t, uint32_t edge)
{
    t->unstable_bits[edge / 64] |= 1ull << (edge % 64);
}

bool table_add_unstable(struct cd_table *t, uint32_t edge)
{
    if (cd_labelset_has(&t->unstable, edge))
        return true;
    if (!reserve_unstable_bits(t, edge) || !cd_labelset_push(&t->unstable, edge))
        return false;
    set_unstable_bit(t, edge);
    size_t i = t->unstable.n - 1; /* into place: the set stays sorted */
    for (; i && t->unstable.v[i - 1] > edge; i--)
        t->unstable.v[i] = t->unstable.v[i - 1];
    t->unstable.v[i] = edge;
    return true;
}

/* Takes the labels of unstable edges out of set, in place. */
static void strip(const struct cd_table *t, struct cd_labelset *set)
{
    size_t k = 0;
    for (size_t i = 0; i < set->n; i++) {
        uint32_t id = set->v[i];
        set->v[k] = id; /* kept unless unstable: no branch to mispredict */
        k += !is_unstable(t, id);
    }
    set->n = k;
}

static int cmp_edge(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether the sorted set holds a label of one of the n edges (ascending): a search per edge
 * while they are few, else one merge walk. */
static bool shows_any(const struct cd_labelset *set, const uint32_t *edges, size_t n)
{
    if (n > 16) {
        for (size_t i = 0, k = 0; i < set->n && k < n;) {
            uint32_t edge = set->v[i] >> 3;
            if (set->v[i] & CD_LABEL_OUTCOME)
                return false; /* outcome labels sort last */
            if (edge == edges[k])
                return true;
            if (edge < edges[k])
                i++;
            else
                k++;
        }
        return false;
    }
    for (size_t k = 0; k < n; k++) {
        size_t lo = cd_lower_bound_u32(set->v, set->n, sizeof *set->v, 0, edges[k] << 3);
        if (lo < set->n && set->v[lo] >> 3 == edges[k] && !(set->v[lo] & CD_LABEL_OUTCOME))
            return true;
    }
    return false;
}

/* Rebuilds the map in place over the records left after some went (it has room for them all). */
static void rebuild_map(struct cd_table *t)
{
    memset(t->map, 0, t->map_cap * sizeof *t->map);
    for (size_t i = 0; i < t->n_labels; i++) {
        size_t s = table_slot_of(t->labels[i].id, t->map_cap);
        while (t->map[s])
            s = (s + 1) & (t->map_cap - 1);
        t->map[s] = (uint32_t)(i + 1);
    }
}

/* Removes the records of the labels gone says go, their keys cleared and their bests released,
 * the records after them moving down; the map is rebuilt in place over the records left (it has
 * room for them all). Returns how many went. */
static size_t remove_records(struct cd_table *t,
                             bool (*gone)(const struct cd_table *t, uint32_t id, const void *ctx),
                             const void *ctx)
{
    size_t k = 0, removed = 0;
    for (size_t i = 0; i < t->n_labels; i++) {
        struct cd_table_label *l = &t->labels[i];
        if (gone(t, l->id, ctx)) {
            uint32_t *slot = cd_labels_is_outcome(l->id) ? NULL : table_key_slot(t, l->id);
            if (slot)
                *slot = 0;
            table_example_unref(t, l->best);
            removed++;
        } else {
            t->labels[k++] = *l;
        }
    }
    t->n_labels = k;
    if (removed)
        rebuild_map(t);
    return removed;
}

static bool unstable_label(const struct cd_table *t, uint32_t id, const void *ctx)
{
    (void)ctx;
    return is_unstable(t, id);
}

static bool of_targets(const struct cd_table *t, uint32_t id, const void *ctx)
{
    (void)t;
    return *(const uint32_t *)ctx >> cd_labels_target(id) & 1;
}

size_t cd_table_drop_targets(struct cd_table *t, uint32_t targets)
{
    size_t removed = remove_records(t, of_targets, &targets);
    for (struct cd_table_example *e = t->head; e; e = e->next) {
        size_t n = 0;
        for (size_t i = 0; i < e->labels.n; i++)
            if (!(targets >> cd_labels_target(e->labels.v[i]) & 1))
                e->labels.v[n++] = e->labels.v[i];
        e->labels.n = n;
        e->outcome = cd_labelset_has_outcome(&e->labels);
    }
    for (size_t i = 0; i < t->n_labels; i++) /* an example may have lost its outcome */
        table_set_best(t, &t->labels[i], t->labels[i].best);
    /* Their unstable edges go too: the target that showed them is another now. */
    struct cd_labelset *u = &t->unstable;
    size_t n = 0;
    for (size_t i = 0; i < u->n; i++) {
        uint32_t edge = u->v[i];
        if (targets >> cd_labels_target(edge << 3) & 1)
            t->unstable_bits[edge / 64] &= ~(1ull << edge % 64);
        else
            u->v[n++] = edge;
    }
    u->n = n;
    size_t notes = 0;
    for (size_t i = 0; i < t->n_notes; i++) {
        if (targets >> cd_labels_target(t->notes[i].id) & 1)
            free(t->notes[i].text);
        else
            t->notes[notes++] = t->notes[i];
    }
    t->n_notes = notes;
    return removed;
}

size_t cd_table_mark_unstable_set(struct cd_table *t, const uint32_t *edges, size_t n)
{
    /* The new edges join the sorted list at once, then one pass over the records and one over
       the examples: marking a run's hundreds of differing edges costs what one does. */
    struct cd_labelset *u = &t->unstable;
    size_t had = u->n;
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++)
        top = edges[i] > top ? edges[i] : top;
    if (n && !reserve_unstable_bits(t, top))
        return SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (!cd_labelset_push(u, edges[i])) {
            u->n = had;
            return SIZE_MAX;
        }
    for (size_t i = 0; i < n; i++)
        set_unstable_bit(t, edges[i]);
    qsort(u->v, u->n, sizeof *u->v, cmp_edge);
    size_t w = 0;
    for (size_t i = 0; i < u->n; i++)
        if (!w || u->v[i] != u->v[w - 1])
            u->v[w++] = u->v[i];
    u->n = w;
    /* Every unstable edge, not only the fresh ones: the records of them all go, and an example
       left holding a label whose record went would be indexed past the labels (a Lua run's seed
       cover died so, on a 119 KB script with the label of an edge marked earlier). */
    size_t removed = remove_records(t, unstable_label, NULL);
    for (struct cd_table_example *e = t->head; e; e = e->next)
        if (shows_any(&e->labels, u->v, u->n))
            strip(t, &e->labels);
    return removed;
}

size_t cd_table_mark_unstable(struct cd_table *t, uint32_t edge)
{
    return cd_table_mark_unstable_set(t, &edge, 1);
}

void cd_table_strip_unstable(const struct cd_table *t, struct cd_labelset *set)
{
    if (t->unstable.n)
        strip(t, set);
}

const uint32_t *cd_table_unstable(const struct cd_table *t, size_t *n)
{
    *n = t->unstable.n;
    return t->unstable.v;
}
