/* The table: label -> best example seen so far (shortlex: shorter, then lexicographically smaller
 * as unsigned bytes; for a coverage label, an example with no outcome before any that crashed or
 * hung, since only those can be seeds), the seen-set of content hashes of everything executed,
 * the finished marks and the change counter of multi-objective reduction. Examples are stored
 * once and shared by the labels they are best for; an example best for nothing is freed at once.
 * It knows nothing of execution or reduction and does no locking: the engine serialises calls. */
#ifndef CD_TABLE_H
#define CD_TABLE_H

#include "common/cd_common.h"
#include "common/cd_hash.h"
#include "cd_labels.h"

/* A stored example. Owned by the table and read-only outside it (changed only through cd_table_
 * calls); valid while some label holds it as best or it is pinned (a later cd_table_offer may
 * free it). */
struct cd_table_example {
    uint8_t *data;
    size_t len;
    char *origin;                 /* provenance of the input it came from */
    struct cd_labelset labels;    /* every label it shows, sorted */
    uint64_t serial;              /* unique per stored example, never reused */
    size_t refs;                  /* labels it is best for */
    bool finished;                /* a reduction of it changed nothing anywhere */
    bool outcome;                 /* it shows an outcome label: a reproducer, never a seed */
    bool pinned;                  /* kept while best for nothing (cd_table_pin) */
    bool checked;                 /* run again once after it was stored (cd_table_checked) */
    struct cd_table_example *prev, *next; /* live list, in insertion order: serials ascend */
};

/* A label and its best example. Records are removed only with an unstable edge's labels
 * (cd_table_mark_unstable); otherwise their index is stable. Read-only
 * outside the table: marks change through cd_table_finish, cd_table_claim and the like. */
struct cd_table_label {
    uint32_t id;
    struct cd_table_example *best;
    bool finished;                /* reducing its best changed nothing for it */
    bool busy;                    /* a worker is reducing it */
    bool donor_pending;           /* cd_table_donor has an untried donor for it */
    bool found;                   /* first shown outside a first pass (by reduction), or a
                                     coverage label only crashing or hanging first-pass inputs
                                     showed, and no first-pass input that ran normally has shown
                                     it since: a bonus label */
    uint64_t donor_tried;         /* serial of the last donor taken for it, or 0 */
    uint64_t shown;               /* offers showing it while counting (cd_table_count_shown) */
    unsigned idle;                /* reduction attempts at it that ended idle (cd_table_idle) */
};

struct cd_table;

/* Returns <0, 0, >0 as a is shortlex-better than, equal to, worse than b. */
int cd_table_shortlex(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* Creates an empty table. On success *out is owned, free with cd_table_free. */
enum cd_status cd_table_new(struct cd_table **out, struct cd_error *err);

/* Frees the table and every example. NULL is a no-op. */
void cd_table_free(struct cd_table *t);

/* Offers an executed input: len bytes, its labels (sorted, unique), its origin (copied). For every
 * label it is new for or better than the current best, it becomes the best (clearing the label's
 * finished mark) and the change counter is bumped once per such label. Better is shortlex-better,
 * except that for a coverage label an example showing no outcome label beats one that does.
 * Bytes are copied only when it becomes best for something. *improved (may be NULL) gets the
 * number of labels it became best for; *stored (may be NULL) the stored example or NULL. FAILED
 * when out of memory, with the table unchanged. */
enum cd_status cd_table_offer(struct cd_table *t, const uint8_t *data, size_t len,
                              const struct cd_labelset *labels, const char *origin,
                              size_t *improved, const struct cd_table_example **stored,
                              struct cd_error *err);

/* As cd_table_offer, unless the input shows a coverage label no run showed yet: then nothing
 * changes and WARN is returned (*improved 0, *stored NULL), so that the caller can run it again
 * first. One pass over the labels either way. */
enum cd_status cd_table_offer_if_known(struct cd_table *t, const uint8_t *data, size_t len,
                                       const struct cd_labelset *labels, const char *origin,
                                       size_t *improved, const struct cd_table_example **stored,
                                       struct cd_error *err);

/* Adds to live example e the labels of more (sorted, unique; of runs of e on other targets that
 * ended normally) it lacks, and makes it best for those of them it beats, as an offer would:
 * a run of several targets runs a reduced example on its own target first, and on the others
 * once it is kept. *improved gets the labels it became best for. FAILED when out of memory, with
 * the table unchanged. */
enum cd_status cd_table_extend(struct cd_table *t, const struct cd_table_example *e,
                               const struct cd_labelset *more, size_t *improved,
                               struct cd_error *err);

/* What cd_table_offer would make an input best for (cd_table_wins). */
struct cd_table_wins {
    size_t n;         /* labels, leaving out outcome labels that have a best already unless it
                         is reducing: a shorter reproducer of another outcome label is left to
                         that label's own reduction */
    size_t fresh;     /* of those, labels no run showed yet */
    bool reducing;    /* whether reducing is among them */
};

/* Returns what cd_table_offer would make this input best for, changing nothing, while reducing
 * is the label whose reduction ran the input (a coverage label id for none). */
struct cd_table_wins cd_table_wins(const struct cd_table *t, const uint8_t *data, size_t len,
                                   const struct cd_labelset *labels, uint32_t reducing);

/* Adds h to the seen-set: 1 when new, 0 when already seen, -1 when out of memory. */
int cd_table_seen_add(struct cd_table *t, struct cd_hash h);

/* Returns whether h is in the seen-set. */
bool cd_table_seen_has(const struct cd_table *t, struct cd_hash h);

/* Bounds the seen-set's memory to max_bytes (0: none); past it, old entries are forgotten. A
 * seen-set that holds entries already is rebuilt under the new bound; false when out of memory
 * for that (the set is then as it was). */
bool cd_table_seen_limit(struct cd_table *t, size_t max_bytes);

/* The seen-set's hashes forgotten to stay within its bound, and the bytes it takes now. */
uint64_t cd_table_seen_forgotten(const struct cd_table *t);
size_t cd_table_seen_bytes(const struct cd_table *t);

/* Returns the label record of id, or NULL when no run showed it. */
const struct cd_table_label *cd_table_find(const struct cd_table *t, uint32_t id);

/* Labels in the order they were first seen: n labels, records 0..n-1. */
size_t cd_table_n_labels(const struct cd_table *t);
const struct cd_table_label *cd_table_label_at(const struct cd_table *t, size_t i);

/* Marks label id (known) finished: reducing its best changed nothing for it; with example, its
 * best example too: that reduction changed nothing anywhere. */
void cd_table_finish(struct cd_table *t, uint32_t id, bool example);

/* Clears the finished marks of label id (known) and of its best example. */
void cd_table_unfinish(struct cd_table *t, uint32_t id);

/* Claims label id (known) for one worker's reduction, and releases it (a no-op when its record
 * went with an unstable edge meanwhile). */
void cd_table_claim(struct cd_table *t, uint32_t id);
void cd_table_release(struct cd_table *t, uint32_t id);

/* Counts one more attempt at label id that ended idle, saving too little to go on (a no-op when
 * its record went with an unstable edge meanwhile). */
void cd_table_idle(struct cd_table *t, uint32_t id);

/* Whether reduction may skip the label: finished, or its best example is finished, and no donor
 * is pending for it. */
bool cd_table_skippable(const struct cd_table_label *l);

/* The number of labels of t reduction may skip (cd_table_skippable). */
size_t cd_table_count_skippable(const struct cd_table *t);

/* A donor for coverage label l: the shortest best example of a higher hit-count class of l's
 * edge, when it is shorter than l's own best, shows no outcome unless l's best does, and was not
 * taken for l before; NULL when there is none. Reducing it for l is how a long best of a lower
 * class gets short: deletions lower counts. Offers mark the labels that get a donor pending (not
 * skippable) until it is taken. */
const struct cd_table_example *cd_table_donor(const struct cd_table *t,
                                              const struct cd_table_label *l);

/* Records that donor (may be NULL) was taken for label id (known), clearing its pending mark. */
void cd_table_donor_taken(struct cd_table *t, uint32_t id, const struct cd_table_example *donor);

/* Keeps e (live) in the table even once it is best for no label, until the table is freed: the
 * select-only seeds stay available to the seed cover whatever reduction does. */
void cd_table_pin(struct cd_table *t, const struct cd_table_example *e);

/* Marks e (live) as run again once after it was stored, its differences marked unstable. */
void cd_table_checked(struct cd_table *t, const struct cd_table_example *e);

/* Undoes cd_table_pin: e is freed at once when it is best for no label. */
void cd_table_unpin(struct cd_table *t, const struct cd_table_example *e);

/* While on (the first pass), every offer counts each label it shows in the label's `shown` and
 * clears its found mark (a crashing or hanging offer only its outcome labels', and it marks found
 * a coverage label it shows first); a label first shown while off is found. */
void cd_table_count_shown(struct cd_table *t, bool on);

/* Marks edge (a map slot) unstable: two runs of one input showed it in different hit-count
 * classes, or only one of them showed it. Its label records go (the records after them move down)
 * and its labels leave every example; an example then best for nothing is freed unless pinned.
 * Offers from then on must come through cd_table_strip_unstable. Returns the records removed,
 * or SIZE_MAX when out of memory (the table is then unchanged). */
size_t cd_table_mark_unstable(struct cd_table *t, uint32_t edge);

/* cd_table_mark_unstable for the n edges at once (in any order, repeats allowed), at the cost of
 * one. */
size_t cd_table_mark_unstable_set(struct cd_table *t, const uint32_t *edges, size_t n);

/* Takes out every label of the targets whose bits targets sets (cd_labels_target), with their
 * records, notes and unstable edges; an example then best for nothing is freed unless pinned.
 * Returns the records removed. A state's table keeps the labels of the targets that did not
 * change. */
size_t cd_table_drop_targets(struct cd_table *t, uint32_t targets);

/* Takes out of set (sorted) the coverage labels of unstable edges. */
void cd_table_strip_unstable(const struct cd_table *t, struct cd_labelset *set);

/* The unstable edges in ascending order, *n of them; valid until the next mark. */
const uint32_t *cd_table_unstable(const struct cd_table *t, size_t *n);

/* Returns the record index of label id (as cd_table_label_at numbers them); id must be known. */
size_t cd_table_label_index(const struct cd_table *t, uint32_t id);

/* Longest note kept, in bytes. */
#define CD_TABLE_NOTE_MAX 4096

/* Keeps a copy of text (at most CD_TABLE_NOTE_MAX bytes) as the note of label id unless it has
 * one: what a hashed label stands for (a bug label's crash state). Notes are saved, loaded and
 * merged with the table. FAILED when out of memory, with the table unchanged. */
enum cd_status cd_table_note(struct cd_table *t, uint32_t id, const char *text,
                             struct cd_error *err);

/* The note of label id, or NULL. Valid while the table lives. */
const char *cd_table_note_of(const struct cd_table *t, uint32_t id);

/* Bumped once for every label added or improved. */
uint64_t cd_table_changes(const struct cd_table *t);

/* Live examples (best for some label, or pinned) in insertion order (follow ->next), their
 * count and total bytes. */
const struct cd_table_example *cd_table_examples(const struct cd_table *t);
size_t cd_table_n_examples(const struct cd_table *t);
uint64_t cd_table_example_bytes(const struct cd_table *t);

/* What a saved table says of itself beside its records: what made it and how far it got. */
struct cd_table_meta {
    char target_sha1[41];     /* SHA-1 hex of the target binary, "" when unknown */
    char *settings;           /* every setting that changes labels, as one line of text */
    uint64_t runs;            /* runs that built the table */
    uint64_t execs;           /* their executions */
    uint64_t wall_ms;         /* their wall time */
    bool complete;            /* the last of them ended with every label skippable */
    /* The baseline the seeds are weighed against: the select-only cover's bytes and those
       afl-cmin's rule picks, from the first pass of run base_run (1: the first run, over the
       inputs as they came; 0: none known) */
    uint64_t base_run, base_select_only, base_cmin;
};

/* Serialises t and meta into the state format (table_state.c documents it): *buf is owned, free
 * with free(). Equal tables give equal bytes. FAILED when out of memory. */
enum cd_status cd_table_save(const struct cd_table *t, const struct cd_table_meta *meta,
                             uint8_t **buf, size_t *len, struct cd_error *err);

/* A copy of what the state file holds of t, taken in one pass (no sort, no checksum, no
 * write), so that a run's lock is held only for it; NULL when out of memory. */
struct cd_table_snapshot;
struct cd_table_snapshot *cd_table_snapshot(const struct cd_table *t);

/* Serialises snapshot s and meta as cd_table_save does t (the same bytes); s may be reordered
 * inside. */
enum cd_status cd_table_snapshot_save(struct cd_table_snapshot *s, const struct cd_table_meta *meta,
                                      uint8_t **buf, size_t *len, struct cd_error *err);

/* Frees s. NULL is a no-op. */
void cd_table_snapshot_free(struct cd_table_snapshot *s);

/* Whether the len bytes at head (at least the first 8 of a file) start as a state file does. */
bool cd_table_state_magic(const uint8_t *head, size_t len);

/* Whether every label of t (its records and its examples') names one of the first n targets: what
 * a state's identity says it was made by (a forged state or shard naming a ninth target in a run
 * of one would become a manifest no reader takes). */
bool cd_table_targets_within(const struct cd_table *t, unsigned n);

/* Builds a table from len bytes of the state format, its seen-set bounded by seen_mem (as
 * cd_table_seen_limit); *meta gets the saved meta (settings owned: cd_table_meta_release). FAILED
 * with a one-line message for a file that is not a state, another format version, or damaged (the
 * checksum is checked first); nothing is then allocated. Saving what it loads gives the same
 * bytes when seen_mem holds the whole seen-set. */
enum cd_status cd_table_load(struct cd_table **out, struct cd_table_meta *meta, const uint8_t *buf,
                             size_t len, size_t seen_mem, struct cd_error *err);

/* Builds into *out (owned) the table one run over every example of the n tables in would hold:
 * per label the best of all (cd_table_offer's order), finished where some input's best for it is
 * that same example and was finished, example marks (finished, pinned) kept, seen-sets and
 * unstable edges united (their labels left out).
 * Commutative and associative: any grouping and order of the same tables saves the same bytes.
 * The inputs are left as they are. FAILED when out of memory. */
enum cd_status cd_table_merge(struct cd_table **out, const struct cd_table *const *in, size_t n,
                              struct cd_error *err);

/* Frees what cd_table_load put in meta. */
void cd_table_meta_release(struct cd_table_meta *meta);

#endif
