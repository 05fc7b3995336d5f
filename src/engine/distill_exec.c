/* Execution and offers: every run of a candidate goes through distill_execute (lock not held),
 * and its labels reach the table through distill_offer (lock held), without the labels of
 * unstable edges. A run that shows a new coverage label runs once more first (as afl-fuzz
 * calibrates a new find): an edge whose labels differ between the two runs is unstable. */
#include "distill_internal.h"

#include <stdlib.h>
#include <string.h>

/* The best example of label id, or NULL when the label went with an unstable edge. Lock held. */
const struct cd_table_example *distill_best_of(const struct cd_distill *d, uint32_t id)
{
    const struct cd_table_label *l = cd_table_find(d->table, id);
    return l ? l->best : NULL;
}

/* Whether the example w reduces whole (w->work.serial) is still the best of some label it started
 * with: a whole reduction holds while one is left. Lock held. */
bool distill_holds_whole(const struct worker *w)
{
    for (size_t i = 0; i < w->work.whole_labels.n; i++) {
        const struct cd_table_example *b = distill_best_of(w->d, w->work.whole_labels.v[i]);
        if (b && b->serial == w->work.serial)
            return true;
    }
    return false;
}

/* Runs data on w's runner (lock not held), quick as cd_runner_ops.run has it. FAILED: the runner
 * failed, w->err says why. */
enum cd_status distill_execute(struct worker *w, const uint8_t *data, size_t len, bool quick,
                              enum cd_outcome *outcome)
{
    w->exec.labels.n = 0;
    *outcome = CD_OUTCOME_OK;
    /* One execution was reserved; a run on several targets is one on each. */
    int more = __builtin_popcount(w->exec.targets) - 1;
    if (more > 0) {
        distill_lock(w->d);
        w->d->stats.execs += (uint64_t)more;
        distill_unlock(w->d);
    }
    return w->d->ops->run(w->exec.state, w->exec.targets, data, len, quick, &w->exec.labels,
                          outcome, &w->err);
}

uint32_t distill_targets_of(const struct cd_distill *d, const uint32_t *ids, size_t n)
{
    if (d->all_targets == 1)
        return 1;
    uint32_t mask = 0;
    for (size_t i = 0; i < n; i++)
        mask |= 1u << cd_labels_target(ids[i]);
    return mask ? mask : d->all_targets;
}

struct cd_hash distill_seen_on(const struct cd_distill *d, uint32_t targets, struct cd_hash h)
{
    if (targets != d->all_targets) {
        uint64_t salt = (uint64_t)targets * 0x9e3779b97f4a7c15ull;
        for (unsigned t = 0; t < CD_LABEL_TARGETS_MAX; t++)
            if (targets >> t & 1)
                salt ^= ((d->opts.target_list ? d->opts.target_list[t].id : 0) + t) *
                        0xbf58476d1ce4e5b9ull;
        h.lo ^= salt;
        h.hi ^= salt >> 7 | salt << 57;
    }
    return h;
}

struct cd_hash distill_seen_key(const struct worker *w, const uint8_t *data, size_t len)
{
    return distill_seen_on(w->d, w->exec.targets, cd_hash_bytes(data, len));
}

bool distill_extend(struct worker *w, const uint8_t *cand, size_t len,
                    const struct cd_table_example *stored)
{
    struct cd_distill *d = w->d;
    uint32_t own = w->exec.targets, rest = d->all_targets & ~own, anchor = 0;
    uint64_t serial = stored->serial;
    struct cd_labelset more = {0};
    bool ok = true;
    /* A label it is best for finds it again after the lock was let go, if it is still there. */
    for (size_t i = 0; i < stored->labels.n && !anchor; i++)
        if (distill_best_of(d, stored->labels.v[i]) == stored)
            anchor = stored->labels.v[i];
    for (unsigned t = 0; ok && t < CD_LABEL_TARGETS_MAX; t++) {
        if (!(rest >> t & 1))
            continue;
        if (!distill_reserve_exec(d))
            break;
        d->stats.other_target_execs++;
        distill_unlock(d);
        enum cd_outcome outcome;
        w->exec.targets = 1u << t;
        enum cd_status st = distill_execute(w, cand, len, true, &outcome);
        distill_lock(d);
        if (st >= CD_FAILED) {
            ok = false;
            distill_fail(d, &w->err);
        }
        /* What ends normally is credited to it; a crash or a hang there is a reproducer of that
           target's, apart, as a run of it alone would give. */
        for (size_t i = 0; ok && st == CD_OK && outcome == CD_OUTCOME_OK && i < w->exec.labels.n;
             i++)
            if (!cd_labelset_push(&more, w->exec.labels.v[i])) {
                cd_error_oom(&w->err, CD_FAILED, "out of memory building a label set");
                distill_fail(d, &w->err);
                ok = false;
            }
        if (ok && st == CD_OK && outcome != CD_OUTCOME_OK && outcome != CD_OUTCOME_SLOW)
            ok = distill_offer(w, cand, len, outcome, w->work.origin, NULL);
    }
    w->exec.targets = own;
    /* Targets ran in ascending order, each set ascending: the union is sorted already. */
    cd_table_strip_unstable(d->table, &more);
    const struct cd_table_example *e = anchor ? distill_best_of(d, anchor) : NULL;
    size_t improved = 0;
    if (ok && e && e->serial == serial && more.n &&
        cd_table_extend(d->table, e, &more, &improved, &w->err) != CD_OK) {
        distill_fail(d, &w->err);
        ok = false;
    }
    w->exec.changes += improved;
    cd_labelset_release(&more);
    return ok;
}

/* Marks the n edges unstable in the table (their labels go) and counts the input labels that went.
 * Lock held. */
static bool mark_unstable(struct worker *w, const uint32_t *edges, size_t n)
{
    struct cd_distill *d = w->d;
    uint64_t input = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t c = 0; c < 8; c++) {
            const struct cd_table_label *l = cd_table_find(d->table, edges[i] << 3 | c);
            input += l && cd_table_label_index(d->table, l->id) < d->stats.labels_input;
        }
    if (cd_table_mark_unstable_set(d->table, edges, n) == SIZE_MAX) {
        cd_error_oom(&w->err, CD_FAILED, "out of memory marking an unstable edge");
        distill_fail(d, &w->err);
        return false;
    }
    d->stats.labels_input -= input;
    return true;
}

/* Marks unstable every edge whose coverage labels differ between a and b, two runs of one input
 * (the labels of unstable edges already out of both), all at once. Lock held; false when out of
 * memory. */
bool distill_mark_differences(struct worker *w, const struct cd_labelset *a,
                             const struct cd_labelset *b)
{
    /* Both sets ascend: one walk over their union meets the labels of one edge side by side. */
    struct cd_labelset edges = {0};
    uint32_t marked = UINT32_MAX;
    bool ok = true;
    for (size_t i = 0, k = 0; ok && (i < a->n || k < b->n);) {
        uint32_t x = i < a->n ? a->v[i] : UINT32_MAX, y = k < b->n ? b->v[k] : UINT32_MAX;
        uint32_t id = x < y ? x : y;
        i += x == id;
        k += y == id;
        if (x == y || cd_labels_is_outcome(id) || cd_labels_slot(id) == marked)
            continue;
        marked = cd_labels_slot(id);
        ok = cd_labelset_push(&edges, marked);
    }
    if (!ok) {
        cd_error_oom(&w->err, CD_FAILED, "out of memory marking an unstable edge");
        distill_fail(w->d, &w->err);
    }
    ok = ok && (!edges.n || mark_unstable(w, edges.v, edges.n));
    cd_labelset_release(&edges);
    return ok;
}

/* Runs data on w once more, its execution reserved: a recheck. Lock held, released while the
 * target runs. Returns 1 when the run ended normally (its labels in w->exec.labels), 0 when there
 * is nothing to compare, -1 when the run is failing. */
int distill_run_again(struct worker *w, const uint8_t *data, size_t len)
{
    struct cd_distill *d = w->d;
    d->stats.recheck_execs++;
    distill_unlock(d);
    enum cd_outcome outcome;
    enum cd_status st = distill_execute(w, data, len, true, &outcome);
    distill_lock(d);
    if (st >= CD_FAILED) {
        distill_fail(d, &w->err);
        return -1;
    }
    if (st == CD_WARN) {
        d->stats.execs--; /* nothing ran */
        d->stats.recheck_execs--;
    }
    return st == CD_OK && outcome == CD_OUTCOME_OK;
}

/* Runs data, w's last run that ended normally and showed a coverage label no run showed before,
 * once more (its execution reserved), as afl-fuzz calibrates a new find: every edge whose labels
 * differ between the two runs (another hit-count class, or in one run only) is unstable, and its
 * labels leave the table and the run. A target that seeds a hash table at random or keeps state
 * from run to run shows such edges, and their labels would come and go at random: a seed kept for
 * one, a reduction adopting or refusing at random. Lock held, released while the target runs;
 * false when the run is failing. */
bool distill_recheck(struct worker *w, const uint8_t *data, size_t len)
{
    struct cd_distill *d = w->d;
    struct cd_labelset first = w->exec.labels;
    w->exec.labels = w->exec.again;
    int ran = distill_run_again(w, data, len);
    w->exec.again = w->exec.labels;
    w->exec.labels = first;
    if (ran < 0 || (ran > 0 && !distill_mark_differences(w, &w->exec.labels, &w->exec.again)))
        return false;
    /* Whatever the second run showed: while it ran, another worker may have marked edges of
       this run unstable, and their labels must not come back with it, also when the second run
       crashed or timed out and there was nothing to compare
       (test_distill_unstable_during_recheck). */
    cd_table_strip_unstable(d->table, &w->exec.labels);
    return true;
}

static int cmp_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Gives the bug label of w's last run the first probe of its crash state whose note is free or
 * its own: a state whose id another state's note holds (a collision by chance, or a decoy made to
 * collide) is another bug, never renamed into the first. Lock held. */
static void resolve_bugs(struct worker *w)
{
    struct cd_distill *d = w->d;
    size_t tail = w->exec.labels.n;
    while (tail > 0 && cd_labels_is_outcome(w->exec.labels.v[tail - 1]))
        tail--;
    for (size_t i = tail; d->ops->note && i < w->exec.labels.n; i++) {
        uint32_t id = w->exec.labels.v[i];
        const char *state = cd_labels_is_bug(id) ? d->ops->note(w->exec.state, id) : NULL;
        const char *held = state ? cd_table_note_of(d->table, id) : NULL;
        if (!held || strcmp(held, state) == 0)
            continue;
        for (unsigned k = 1; k < CD_LABELS_BUG_PROBES; k++) {
            uint32_t next = cd_labels_bug_probe(state, k);
            held = cd_table_note_of(d->table, next);
            if (!held || strcmp(held, state) == 0) {
                w->exec.labels.v[i] = next;
                break;
            }
        }
        qsort(w->exec.labels.v + tail, w->exec.labels.n - tail, sizeof *w->exec.labels.v, cmp_id);
        return; /* a run has one crash state */
    }
}

/* Keeps in the table the crash state a bug label of w's last run stands for. Lock held. */
static enum cd_status note_bugs(struct worker *w)
{
    struct cd_distill *d = w->d;
    for (size_t i = w->exec.labels.n; i-- > 0 && cd_labels_is_outcome(w->exec.labels.v[i]);) {
        uint32_t id = w->exec.labels.v[i];
        const char *note;
        if (cd_labels_is_bug(id) && d->ops->note && !cd_table_note_of(d->table, id) &&
            cd_table_find(d->table, id) && (note = d->ops->note(w->exec.state, id)))
            CD_FORWARD_IF_ERROR(cd_table_note(d->table, id, note, &w->err));
    }
    return CD_OK;
}

/* Offers w's last run to the table, without the labels of unstable edges; a run that ended
 * normally and shows a new coverage label is rechecked first. Lock held; released while a
 * recheck runs. */
static bool offer_one(struct worker *w, const uint8_t *data, size_t len, enum cd_outcome outcome,
                      const char *origin, const struct cd_table_example **stored)
{
    struct cd_distill *d = w->d;
    size_t improved = 0;
    bool check = outcome == CD_OUTCOME_OK;
    if (check) {
        cd_table_strip_unstable(d->table, &w->exec.labels);
        check = !d->opts.first_pass_once || strcmp(d->phase, "first pass") != 0;
    }
    d->stats.crashes += outcome == CD_OUTCOME_CRASH;
    d->stats.timeouts += cd_outcome_timed_out(outcome);
    if (d->opts.crashes_only && outcome != CD_OUTCOME_CRASH) {
        if (stored)
            *stored = NULL;
        distill_progress(d, false);
        return true;
    }
    if (cd_labelset_has_outcome(&w->exec.labels))
        resolve_bugs(w);
    enum cd_status st =
        check ? cd_table_offer_if_known(d->table, data, len, &w->exec.labels, origin, &improved,
                                        stored, &w->err)
              : cd_table_offer(d->table, data, len, &w->exec.labels, origin, &improved, stored,
                               &w->err);
    if (st == CD_WARN) { /* a new label: run it again first, budget allowing */
        if (distill_reserve_exec(d) && !distill_recheck(w, data, len))
            return false;
        st = cd_table_offer(d->table, data, len, &w->exec.labels, origin, &improved, stored,
                            &w->err);
    }
    if (st == CD_OK && cd_labelset_has_outcome(&w->exec.labels))
        st = note_bugs(w);
    if (st != CD_OK) {
        distill_fail(d, &w->err);
        return false;
    }
    w->exec.changes += improved;
    if (improved)
        pthread_cond_broadcast(&d->cv);
    distill_progress(d, false);
    return true;
}

bool distill_offer(struct worker *w, const uint8_t *data, size_t len, enum cd_outcome outcome,
                  const char *origin, const struct cd_table_example **stored)
{
    struct cd_distill *d = w->d;
    uint32_t bad = 0;
    for (size_t i = w->exec.labels.n; outcome != CD_OUTCOME_OK && i-- > 0 &&
                                 cd_labels_is_outcome(w->exec.labels.v[i]);)
        bad |= 1u << cd_labels_target(w->exec.labels.v[i]);
    uint32_t own = w->exec.targets, good = own & ~bad;
    if (!bad || !good || d->all_targets == 1)
        return offer_one(w, data, len, outcome, origin, stored);
    /* It crashed or hung on some targets and ran normally on the others: a seed of theirs (when
       it wins something there) and a reproducer of the failing ones', apart, as a run of each
       alone would give. */
    struct cd_labelset saved = {0};
    bool ok = true;
    for (size_t i = 0; ok && i < w->exec.labels.n; i++)
        ok = cd_labelset_push(&saved, w->exec.labels.v[i]);
    if (!ok) {
        cd_labelset_release(&saved);
        cd_error_oom(&w->err, CD_FAILED, "out of memory building a label set");
        distill_fail(d, &w->err);
        return false;
    }
    for (int part = 0; ok && part < 2; part++) {
        uint32_t mask = part ? bad : good;
        w->exec.labels.n = 0;
        for (size_t i = 0; i < saved.n; i++) /* within the room the whole set had */
            if (mask >> cd_labels_target(saved.v[i]) & 1)
                w->exec.labels.v[w->exec.labels.n++] = saved.v[i];
        w->exec.targets = mask;
        ok = offer_one(w, data, len, part ? outcome : CD_OUTCOME_OK, origin,
                       part ? NULL : stored);
    }
    w->exec.targets = own;
    cd_labelset_release(&saved);
    return ok;
}

/* Offers w's run of data during a reduction, st its status, and returns whether data became the
 * best of the label being reduced, or, reducing a whole example, of every label that example was
 * still best for (w->work.serial follows it then). A failed run fails the whole
 * run; an undelivered one (WARN) is not offered. Lock held. */
bool distill_offer_run(struct worker *w, enum cd_status st, const uint8_t *data, size_t len,
                      enum cd_outcome outcome)
{
    const struct cd_table_example *stored = NULL;
    if (st >= CD_FAILED)
        distill_fail(w->d, &w->err);
    if (st != CD_OK || !distill_offer(w, data, len, outcome, w->work.origin, &stored) || !stored)
        return false;
    /* Kept for labels of some targets: the others run it once, and what they show is its. */
    uint64_t serial = stored->serial;
    if (w->exec.targets != w->d->all_targets && outcome == CD_OUTCOME_OK &&
        !distill_extend(w, data, len, stored))
        return false;
    /* Held: it took every label the whole example was still best for, or the label's place. */
    const struct cd_table_example *best =
        w->work.whole ? NULL : distill_best_of(w->d, w->work.label);
    if (w->work.whole ? distill_holds_whole(w) : !best || best->serial != serial)
        return false;
    w->work.serial = serial;
    w->help.help_adopted += w->help.helping;
    return true;
}
