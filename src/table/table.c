/* The table of multi-objective reduction: label -> best example, the seen-set, finished marks and
 * the change counter. Offers are the hot path (a run shows hundreds of labels): label lookup is an
 * open-addressing map from label id to record index, and an offer allocates only when the input
 * becomes best for some label. It knows nothing of execution and does no locking. */
#include "table_internal.h"

#include <assert.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int cd_table_shortlex(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    if (alen != blen)
        return alen < blen ? -1 : 1;
    if (alen == 0)
        return 0;
    return memcmp(a, b, alen);
}

/* The label map's hash is keyed afresh in every process: label ids come from files (states,
 * shards) anyone may write, and ids chosen to collide under a fixed hash would make every lookup
 * walk them all. The key changes slots only, never the table's content or order. */
static uint64_t map_key[2];
static pthread_once_t map_key_once = PTHREAD_ONCE_INIT;

static void map_key_init(void)
{
    if (getrandom(map_key, sizeof map_key, GRND_NONBLOCK) != (ssize_t)sizeof map_key) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        map_key[0] = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
        map_key[1] = (uint64_t)ts.tv_sec * 0xBF58476D1CE4E5B9ull ^ (uintptr_t)&ts;
    }
    map_key[1] |= 1; /* an odd multiplier */
}

enum cd_status cd_table_new(struct cd_table **out, struct cd_error *err)
{
    pthread_once(&map_key_once, map_key_init);
    struct cd_table *t = calloc(1, sizeof *t);
    if (!t)
        return cd_error_oom(err, CD_FAILED, "out of memory creating the label table");
    *out = t;
    return CD_OK;
}

void table_example_free(struct cd_table_example *e)
{
    free(e->data);
    free(e->origin);
    free(e->labels.v);
    free(e);
}

void cd_table_free(struct cd_table *t)
{
    if (!t)
        return;
    struct cd_table_example *e = t->head;
    while (e) {
        struct cd_table_example *next = e->next;
        table_example_free(e);
        e = next;
    }
    free(t->labels);
    free(t->map);
    for (size_t i = 0; i < t->n_notes; i++)
        free(t->notes[i].text);
    free(t->notes);
    cd_labelset_release(&t->unstable);
    free(t->unstable_bits);
    for (unsigned k = 0; k < CD_LABEL_TARGETS_MAX; k++)
        free(t->keys[k].v);
    cd_hashset_release(&t->seen);
    free(t);
}

size_t table_note_index(const struct cd_table *t, uint32_t id)
{
    return cd_lower_bound_u32(t->notes, t->n_notes, sizeof *t->notes,
                              offsetof(struct table_note, id), id);
}

enum cd_status cd_table_note(struct cd_table *t, uint32_t id, const char *text,
                             struct cd_error *err)
{
    size_t at = table_note_index(t, id);
    if (at < t->n_notes && t->notes[at].id == id)
        return CD_OK;
    struct table_note *v = realloc(t->notes, (t->n_notes + 1) * sizeof *v);
    if (v)
        t->notes = v;
    char *copy = strndup(text, CD_TABLE_NOTE_MAX);
    if (!v || !copy) {
        free(copy);
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    memmove(v + at + 1, v + at, (t->n_notes - at) * sizeof *v);
    v[at] = (struct table_note){id, copy};
    t->n_notes++;
    return CD_OK;
}

const char *cd_table_note_of(const struct cd_table *t, uint32_t id)
{
    size_t at = table_note_index(t, id);
    return at < t->n_notes && t->notes[at].id == id ? t->notes[at].text : NULL;
}

/* map_key is set by then: every table comes from cd_table_new. */
size_t table_slot_of(uint32_t id, size_t cap)
{
    uint64_t h = ((uint64_t)id ^ map_key[0]) * map_key[1];
    return (size_t)(h >> 32) & (cap - 1);
}

struct cd_table_label *table_lookup(const struct cd_table *t, uint32_t id)
{
    if (!t->map_cap)
        return NULL;
    for (size_t s = table_slot_of(id, t->map_cap);; s = (s + 1) & (t->map_cap - 1)) {
        uint32_t v = t->map[s];
        if (!v)
            return NULL;
        if (t->labels[v - 1].id == id)
            return &t->labels[v - 1];
    }
}

static bool map_grow(struct cd_table *t, size_t want)
{
    size_t cap = t->map_cap ? t->map_cap : 64;
    while (cap / 4 * 3 < want)
        cap *= 2;
    if (cap == t->map_cap)
        return true;
    uint32_t *map = calloc(cap, sizeof *map);
    if (!map)
        return false;
    for (size_t i = 0; i < t->n_labels; i++) {
        size_t s = table_slot_of(t->labels[i].id, cap);
        while (map[s])
            s = (s + 1) & (cap - 1);
        map[s] = (uint32_t)(i + 1);
    }
    free(t->map);
    t->map = map;
    t->map_cap = cap;
    return true;
}

/* Makes room for `more` new label records so the commit phase of an offer cannot fail. */
bool table_reserve_labels(struct cd_table *t, size_t more)
{
    size_t want = t->n_labels + more;
    if (want >= UINT32_MAX)
        return false;
    if (want > t->cap_labels) {
        size_t cap = t->cap_labels ? t->cap_labels : 64;
        while (cap < want)
            cap *= 2;
        struct cd_table_label *v = realloc(t->labels, cap * sizeof *v);
        if (!v)
            return false;
        t->labels = v;
        t->cap_labels = cap;
    }
    return map_grow(t, want);
}

struct cd_table_label *table_label_add(struct cd_table *t, uint32_t id)
{
    size_t s = table_slot_of(id, t->map_cap);
    while (t->map[s])
        s = (s + 1) & (t->map_cap - 1);
    struct cd_table_label *l = &t->labels[t->n_labels];
    *l = (struct cd_table_label){.id = id, .found = !t->count_shown};
    t->map[s] = (uint32_t)++t->n_labels;
    return l;
}

/* A best example's key (cd_table.keys), ordered as a run without an outcome compares with it:
 * its length + 1 (UINT32_MAX - 1 past what fits), and UINT32_MAX for an outcome example, which
 * any other beats for a coverage label. 0 is a label without a record. */
static uint32_t table_key(const struct cd_table_example *e)
{
    if (e->outcome)
        return UINT32_MAX;
    return e->len < UINT32_MAX - 2 ? (uint32_t)e->len + 1 : UINT32_MAX - 1;
}

/* The array v of *n zeroed elements of size bytes grown to hold index at, doubling from first
 * elements (*n then updated); NULL when out of memory, v unchanged. */
void *table_grow_zeroed(void *v, size_t *n, size_t at, size_t size, size_t first)
{
    if (at < *n)
        return v;
    size_t cap = *n ? *n : first;
    while (cap <= at)
        cap *= 2;
    uint8_t *grown = realloc(v, cap * size);
    if (!grown)
        return NULL;
    memset(grown + *n * size, 0, (cap - *n) * size);
    *n = cap;
    return grown;
}

bool table_reserve_keys(struct cd_table *t, uint32_t id)
{
    uint32_t local = id & ~CD_LABEL_TARGET_MASK;
    unsigned target = cd_labels_target(id);
    struct table_keys *k = &t->keys[target];
    if (cd_labels_is_outcome(id) || local >= TABLE_KEYS_MAX || local < k->n)
        return true;
    size_t had = k->n;
    uint32_t *keys = table_grow_zeroed(k->v, &k->n, local, sizeof *keys, 4096);
    if (!keys)
        return false;
    k->v = keys;
    /* Records of ids the array did not reach yet get their keys now. */
    for (size_t i = 0; i < t->n_labels; i++) {
        uint32_t lid = t->labels[i].id;
        uint32_t *slot = cd_labels_is_outcome(lid) || cd_labels_target(lid) != target ||
                                 (lid & ~CD_LABEL_TARGET_MASK) < had
                             ? NULL
                             : table_key_slot(t, lid);
        if (slot && t->labels[i].best)
            *slot = table_key(t->labels[i].best);
    }
    return true;
}

void table_set_best(struct cd_table *t, struct cd_table_label *l, struct cd_table_example *e)
{
    l->best = e;
    uint32_t *slot = cd_labels_is_outcome(l->id) ? NULL : table_key_slot(t, l->id);
    if (slot)
        *slot = table_key(e);
}

struct cd_table_example *table_example_new(struct cd_table *t, const uint8_t *data, size_t len,
                                          const struct cd_labelset *labels, const char *origin)
{
    struct cd_table_example *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->data = cd_memdup(data, len);
    e->origin = strdup(origin ? origin : "");
    e->labels.v = cd_memdup(labels->v, labels->n * sizeof *labels->v);
    if (!e->data || !e->origin || !e->labels.v) {
        table_example_free(e);
        return NULL;
    }
    e->len = len;
    e->labels.n = e->labels.cap = labels->n;
    e->outcome = cd_labelset_has_outcome(labels);
    e->serial = ++t->serial;
    return e;
}

void table_example_link(struct cd_table *t, struct cd_table_example *e)
{
    e->prev = t->tail;
    if (t->tail)
        t->tail->next = e;
    else
        t->head = e;
    t->tail = e;
    t->n_examples++;
    t->example_bytes += e->len;
}

void table_example_unref(struct cd_table *t, struct cd_table_example *e)
{
    assert(e->refs > 0);
    if (--e->refs || e->pinned)
        return;
    if (e->prev)
        e->prev->next = e->next;
    else
        t->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        t->tail = e->prev;
    t->n_examples--;
    t->example_bytes -= e->len;
    table_example_free(e);
}

/* Whether an example (outcome: it shows an outcome label) beats l's best. A coverage label's best
 * must be a seed whenever some run that showed it was one: afl-fuzz refuses crashing seeds, so a
 * shorter example that crashes would take the label out of the seed corpus. */
static bool better_for(const struct cd_table_label *l, const uint8_t *data, size_t len,
                       bool outcome)
{
    if (!l)
        return true;
    if (!cd_labels_is_outcome(l->id) && outcome != l->best->outcome)
        return !outcome;
    return cd_table_shortlex(data, len, l->best->data, l->best->len) < 0;
}

const struct cd_table_example *cd_table_donor(const struct cd_table *t,
                                              const struct cd_table_label *l)
{
    if (cd_labels_is_outcome(l->id))
        return NULL;
    struct cd_table_example *donor = NULL;
    for (uint32_t id = l->id + 1; id <= (l->id | 7u); id++) {
        const struct cd_table_label *s = table_lookup(t, id);
        if (s && s->best->len < l->best->len && (!donor || s->best->len < donor->len) &&
            (!s->best->outcome || l->best->outcome))
            donor = s->best;
    }
    return donor && donor->serial != l->donor_tried ? donor : NULL;
}

void cd_table_donor_taken(struct cd_table *t, uint32_t id, const struct cd_table_example *donor)
{
    struct cd_table_label *l = table_lookup(t, id);
    l->donor_pending = false;
    if (donor)
        l->donor_tried = donor->serial;
}

/* Label id just got a new best: marks the classes of its edge that now have a donor, up to id's
 * own: the label itself (its best may be long beside a higher class) and the lower ones (it may
 * be short beside them). A run shows one class per edge, so no other class of the edge changes in
 * the same offer. */
static void mark_donees(struct cd_table *t, uint32_t id)
{
    if (cd_labels_is_outcome(id))
        return;
    for (uint32_t sib = id & ~7u; sib <= id; sib++) {
        struct cd_table_label *s = table_lookup(t, sib);
        if (s && !s->donor_pending && cd_table_donor(t, s))
            s->donor_pending = true;
    }
}

/* The labels the input would become best for. Unless all, outcome labels that have a best
 * already are left out, but for reducing. *unknown (may be NULL) gets the coverage labels that
 * have no record. A run without an outcome label compares its length with the keys of its
 * coverage labels, walked in ascending id order; a label whose best has its length, a label past
 * the keys, and every label of an outcome run are looked up. */
static struct cd_table_wins count_wins(const struct cd_table *t, const uint8_t *data,
                                       size_t len, const struct cd_labelset *labels, bool all,
                                       uint32_t reducing, size_t *unknown)
{
    struct cd_table_wins w = {0, 0, false};
    bool outcome = cd_labelset_has_outcome(labels);
    uint32_t mine = len < UINT32_MAX - 2 ? (uint32_t)len + 1 : UINT32_MAX;
    bool fast = !outcome && mine < UINT32_MAX;
    for (size_t i = 0; i < labels->n; i++) {
        uint32_t id = labels->v[i];
        assert(i == 0 || labels->v[i - 1] < id);
        if (fast && !cd_labels_is_outcome(id)) {
            /* The run of coverage labels of one target within its keys: one compare each, a
               lookup only on a tie. Ids ascend, so the run ends at the first past its keys. */
            unsigned tg = cd_labels_target(id);
            uint32_t base = (uint32_t)tg << CD_LABEL_TARGET_SHIFT;
            uint32_t end = base + (uint32_t)t->keys[tg].n;
            const uint32_t *keys = t->keys[tg].v;
            size_t from = i;
            for (; i < labels->n && (id = labels->v[i]) < end; i++) {
                uint32_t key = keys[id - base];
                if (key == mine ? !better_for(table_lookup(t, id), data, len, false)
                                : key && key < mine)
                    continue;
                w.n++;
                w.fresh += !key;
                if (unknown && !key)
                    (*unknown)++;
                w.reducing |= id == reducing;
            }
            if (i > from) {
                i--; /* the loop's step takes the next label */
                continue;
            }
        }
        const struct cd_table_label *l = table_lookup(t, labels->v[i]);
        if (!all && l && cd_labels_is_outcome(l->id) && l->id != reducing)
            continue;
        if (better_for(l, data, len, outcome)) {
            w.n++;
            w.fresh += !l;
            if (unknown && !l && !cd_labels_is_outcome(labels->v[i]))
                (*unknown)++;
            w.reducing |= labels->v[i] == reducing;
        }
    }
    return w;
}

struct cd_table_wins cd_table_wins(const struct cd_table *t, const uint8_t *data, size_t len,
                                   const struct cd_labelset *labels, uint32_t reducing)
{
    return count_wins(t, data, len, labels, false, reducing, NULL);
}

/* Counts every label of an offer in its record while counting is on; all are known by then, but
 * for labels not stored (a run that won nothing shows only known labels or none). A coverage
 * label that crashing or hanging inputs alone show stays found: no seed can hold it from them, so
 * that the seeds owe it nothing (a bonus, as the labels reduction finds). */
static void count_shown(struct cd_table *t, const struct cd_labelset *labels)
{
    if (!t->count_shown)
        return;
    bool outcome = cd_labelset_has_outcome(labels);
    for (size_t i = 0; i < labels->n; i++) {
        struct cd_table_label *l = table_lookup(t, labels->v[i]);
        if (!l)
            continue;
        if (!outcome || cd_labels_is_outcome(l->id))
            l->found = false;
        else if (!l->shown)
            l->found = true;
        l->shown++;
    }
}

/* cd_table_offer, or with hold cd_table_offer_if_known. */
static enum cd_status offer(struct cd_table *t, const uint8_t *data, size_t len,
                            const struct cd_labelset *labels, const char *origin, bool hold,
                            size_t *improved, const struct cd_table_example **stored,
                            struct cd_error *err)
{
    size_t unknown = 0;
    struct cd_table_wins w = count_wins(t, data, len, labels, true, 0, &unknown);
    size_t fresh = w.fresh, wins = w.n;
    bool outcome = cd_labelset_has_outcome(labels);
    if (improved)
        *improved = 0;
    if (stored)
        *stored = NULL;
    if (hold && unknown)
        return CD_WARN;
    if (!wins) {
        count_shown(t, labels);
        return CD_OK;
    }
    /* The keys of each target reach the run's largest coverage label of it within their
       range: the last of each target's run of ids, found from the end. */
    bool keys = true;
    size_t end = labels->n;
    while (end && cd_labels_is_outcome(labels->v[end - 1]))
        end--;
    while (keys && end) {
        uint32_t last = labels->v[end - 1];
        keys = table_reserve_keys(t, last);
        uint32_t base = last & CD_LABEL_TARGET_MASK; /* the first id of its target */
        /* the first label of the target: below it, the target before */
        end = cd_lower_bound_u32(labels->v, end, sizeof *labels->v, 0, base);
    }
    struct cd_table_example *e = keys ? table_example_new(t, data, len, labels, origin) : NULL;
    if (!e || !table_reserve_labels(t, fresh)) {
        if (e)
            table_example_free(e);
        return cd_error_oom(err, CD_FAILED, "out of memory storing a best example");
    }
    table_example_link(t, e);
    for (size_t i = 0; i < labels->n; i++) {
        uint32_t id = labels->v[i];
        struct cd_table_label *l = table_lookup(t, id);
        if (!l) {
            l = table_label_add(t, id);
        } else if (better_for(l, data, len, outcome)) {
            table_example_unref(t, l->best);
        } else {
            continue;
        }
        table_set_best(t, l, e);
        l->finished = false;
        e->refs++;
        t->changes++;
        mark_donees(t, id);
    }
    assert(e->refs == wins);
    count_shown(t, labels);
    if (improved)
        *improved = wins;
    if (stored)
        *stored = e;
    return CD_OK;
}

enum cd_status cd_table_offer(struct cd_table *t, const uint8_t *data, size_t len,
                              const struct cd_labelset *labels, const char *origin,
                              size_t *improved, const struct cd_table_example **stored,
                              struct cd_error *err)
{
    return offer(t, data, len, labels, origin, false, improved, stored, err);
}

enum cd_status cd_table_offer_if_known(struct cd_table *t, const uint8_t *data, size_t len,
                                       const struct cd_labelset *labels, const char *origin,
                                       size_t *improved, const struct cd_table_example **stored,
                                       struct cd_error *err)
{
    return offer(t, data, len, labels, origin, true, improved, stored, err);
}

static struct cd_table_example *own(const struct cd_table_example *e)
{
    return (struct cd_table_example *)e;
}

enum cd_status cd_table_extend(struct cd_table *t, const struct cd_table_example *ce,
                               const struct cd_labelset *more, size_t *improved,
                               struct cd_error *err)
{
    struct cd_table_example *e = own(ce);
    struct cd_labelset all = {0};
    size_t fresh = 0, wins = 0;
    *improved = 0;
    for (size_t i = 0, k = 0; i < e->labels.n || k < more->n;) {
        uint32_t x = i < e->labels.n ? e->labels.v[i] : UINT32_MAX;
        uint32_t y = k < more->n ? more->v[k] : UINT32_MAX;
        uint32_t id = x < y ? x : y;
        i += x == id;
        k += y == id;
        fresh += x != id && !table_lookup(t, id);
        if (!cd_labelset_push(&all, id))
            goto oom;
    }
    if (all.n == e->labels.n) {
        cd_labelset_release(&all);
        return CD_OK;
    }
    if (!table_reserve_labels(t, fresh))
        goto oom;
    for (size_t i = 0; i < more->n; i++)
        if (!cd_labels_is_outcome(more->v[i]) && more->v[i] < TABLE_KEYS_MAX &&
            !table_reserve_keys(t, more->v[i]))
            goto oom;
    for (size_t i = 0; i < more->n; i++) {
        uint32_t id = more->v[i];
        if (cd_labelset_has(&e->labels, id))
            continue;
        struct cd_table_label *l = table_lookup(t, id);
        if (!l)
            l = table_label_add(t, id);
        else if (better_for(l, e->data, e->len, e->outcome))
            table_example_unref(t, l->best);
        else
            continue;
        table_set_best(t, l, e);
        l->finished = false;
        e->refs++;
        wins++;
        t->changes++;
        mark_donees(t, id);
    }
    if (wins && e->finished) {
        /* Its reduction changed nothing for the labels it had: they stay finished, each on its
           own, while the new ones are still to reduce. */
        for (size_t i = 0; i < e->labels.n; i++) {
            struct cd_table_label *l = table_lookup(t, e->labels.v[i]);
            if (l && l->best == e)
                l->finished = true;
        }
        e->finished = false;
    }
    cd_labelset_release(&e->labels);
    e->labels = all;
    *improved = wins;
    return CD_OK;
oom:
    cd_labelset_release(&all);
    return cd_error_oom(err, CD_FAILED, "out of memory extending a best example");
}

int cd_table_seen_add(struct cd_table *t, struct cd_hash h)
{
    return cd_hashset_add(&t->seen, h);
}

bool cd_table_seen_has(const struct cd_table *t, struct cd_hash h)
{
    return cd_hashset_has(&t->seen, h) != 0;
}

bool cd_table_seen_limit(struct cd_table *t, size_t max_bytes)
{
    if (!t->seen.count || t->seen.max_bytes == max_bytes) {
        t->seen.max_bytes = max_bytes;
        return true;
    }
    return cd_hashset_set_budget(&t->seen, max_bytes) == 0;
}

uint64_t cd_table_seen_forgotten(const struct cd_table *t)
{
    return t->seen.forgotten;
}

size_t cd_table_seen_bytes(const struct cd_table *t)
{
    return cd_hashset_bytes(&t->seen);
}

const struct cd_table_label *cd_table_find(const struct cd_table *t, uint32_t id)
{
    return table_lookup(t, id);
}

void cd_table_finish(struct cd_table *t, uint32_t id, bool example)
{
    struct cd_table_label *l = table_lookup(t, id);
    l->finished = true;
    if (example)
        l->best->finished = true;
}

void cd_table_unfinish(struct cd_table *t, uint32_t id)
{
    struct cd_table_label *l = table_lookup(t, id);
    l->finished = false;
    l->best->finished = false;
}

void cd_table_claim(struct cd_table *t, uint32_t id)
{
    struct cd_table_label *l = table_lookup(t, id);
    assert(!l->busy);
    l->busy = true;
}

void cd_table_release(struct cd_table *t, uint32_t id)
{
    struct cd_table_label *l = table_lookup(t, id);
    if (l)
        l->busy = false;
}

void cd_table_idle(struct cd_table *t, uint32_t id)
{
    struct cd_table_label *l = table_lookup(t, id);
    if (l && l->idle < UINT_MAX)
        l->idle++;
}

size_t cd_table_n_labels(const struct cd_table *t)
{
    return t->n_labels;
}

const struct cd_table_label *cd_table_label_at(const struct cd_table *t, size_t i)
{
    assert(i < t->n_labels);
    return &t->labels[i];
}

/* Records are the table's own: the const the engine holds them by is dropped here, where they
 * are changed. */
void cd_table_pin(struct cd_table *t, const struct cd_table_example *e)
{
    (void)t;
    own(e)->pinned = true;
}

void cd_table_checked(struct cd_table *t, const struct cd_table_example *e)
{
    (void)t;
    own(e)->checked = true;
}

void cd_table_unpin(struct cd_table *t, const struct cd_table_example *e)
{
    struct cd_table_example *x = own(e);
    x->pinned = false;
    if (!x->refs) {
        x->refs = 1; /* example_unref frees it once the count reaches zero */
        table_example_unref(t, x);
    }
}

void cd_table_count_shown(struct cd_table *t, bool on)
{
    t->count_shown = on;
}

size_t cd_table_label_index(const struct cd_table *t, uint32_t id)
{
    const struct cd_table_label *l = table_lookup(t, id);
    assert(l);
    return (size_t)(l - t->labels);
}

bool cd_table_skippable(const struct cd_table_label *l)
{
    return !l->donor_pending && (l->finished || l->best->finished);
}

size_t cd_table_count_skippable(const struct cd_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_labels; i++)
        n += cd_table_skippable(cd_table_label_at(t, i));
    return n;
}

uint64_t cd_table_changes(const struct cd_table *t)
{
    return t->changes;
}

const struct cd_table_example *cd_table_examples(const struct cd_table *t)
{
    return t->head;
}

size_t cd_table_n_examples(const struct cd_table *t)
{
    return t->n_examples;
}

uint64_t cd_table_example_bytes(const struct cd_table *t)
{
    return t->example_bytes;
}
