/* What the table's own files share (table.c: offers and lookups; table_state.c: the state file):
 * the table's layout and the helpers that build it. Nothing outside table*.c includes this. */
#ifndef CD_TABLE_INTERNAL_H
#define CD_TABLE_INTERNAL_H

#include "cd_table.h"

struct cd_table {
    struct cd_table_label *labels; /* records in first-seen order */
    size_t n_labels, cap_labels;
    uint32_t *map;                 /* slot -> record index + 1; 0 is empty */
    size_t map_cap;                /* power of two */
    struct cd_hashset seen;
    struct cd_table_example *head, *tail;
    size_t n_examples;
    uint64_t example_bytes;
    uint64_t serial;
    uint64_t changes;
    bool count_shown;
    struct cd_labelset unstable;   /* unstable edges (map slots, not label ids), ascending */
    uint64_t *unstable_bits;       /* the same edges as a bitmap: a run's labels are checked in
                                      O(1) each, not by a search */
    size_t unstable_words;
    /* Per target (cd_labels_target): coverage label id, its target bits cleared -> its best's
       key (table_key), for the ids below n: an offer compares lengths in one array walked
       in id order instead of looking each label up */
    struct table_keys {
        uint32_t *v;
        size_t n;
    } keys[CD_LABEL_TARGETS_MAX];
    struct table_note {
        uint32_t id;
        char *text;
    } *notes;                      /* label notes (cd_table_note), by ascending id */
    size_t n_notes;
};

/* Returns the record of label id, or NULL. */
struct cd_table_label *table_lookup(const struct cd_table *t, uint32_t id);

/* The index of label id's note in t->notes, or where it would go (t->n_notes at most). */
size_t table_note_index(const struct cd_table *t, uint32_t id);

/* Makes room for `more` new label records; false when out of memory or past 2^32 labels. */
bool table_reserve_labels(struct cd_table *t, size_t more);

/* Adds a record for id, which must be new, in room table_reserve_labels made; returns it. */
struct cd_table_label *table_label_add(struct cd_table *t, uint32_t id);

/* Makes the key array of id's target reach coverage label id (its target bits cleared, within
 * TABLE_KEYS_MAX); false when out of memory. Ids past it are compared through their records. */
#define TABLE_KEYS_MAX (1u << 23)
bool table_reserve_keys(struct cd_table *t, uint32_t id);

/* The key of coverage label id in its target's array, or NULL when the array does not reach it
 * (or id is an outcome label's). */
static inline uint32_t *table_key_slot(const struct cd_table *t, uint32_t id)
{
    uint32_t local = id & ~CD_LABEL_TARGET_MASK;
    unsigned target = cd_labels_target(id);
    return local < t->keys[target].n ? &t->keys[target].v[local] : NULL;
}

/* Makes e the best example of l, its key following. */
void table_set_best(struct cd_table *t, struct cd_table_label *l, struct cd_table_example *e);

/* A new unlinked example holding copies of data, labels and origin with the next serial, or NULL
 * when out of memory. */
struct cd_table_example *table_example_new(struct cd_table *t, const uint8_t *data, size_t len,
                                          const struct cd_labelset *labels, const char *origin);

/* Appends e to the live list and counts it. */
void table_example_link(struct cd_table *t, struct cd_table_example *e);

/* Adds edge to the unstable edges (no records change); false when out of memory. */
bool table_add_unstable(struct cd_table *t, uint32_t edge);

/* Frees an unlinked example. */
void table_example_free(struct cd_table_example *e);

/* Drops a reference to e, unlinking and freeing it at the last one unless it is pinned. */
void table_example_unref(struct cd_table *t, struct cd_table_example *e);

/* v (*n elements of size bytes) grown, zeroed, to hold index at: doubled from first or *n;
 * *n updated; NULL when out of memory (v is then unchanged). */
void *table_grow_zeroed(void *v, size_t *n, size_t at, size_t size, size_t first);

/* The slot of label id in a map of cap (a power of two) slots, by the process's keyed hash. */
size_t table_slot_of(uint32_t id, size_t cap);

#endif
