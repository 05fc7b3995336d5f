/* The first pass: every distinct input runs once, read from the ingest stream by every worker in
 * turn; or, from a saved state, the old table's examples are taken as inputs. Then, when the run
 * is select-only, a cmin-like pass marks the labels already held by rarer ones' examples. */
#include "distill_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts a first-pass run of targets for the guard against a collapse: per target, whether it
 * ended normally, and whether it showed the labels the first run showed. Lock held. */
static void count_first(struct cd_distill *d, uint32_t targets, const struct cd_labelset *labels)
{
    for (unsigned t = 0; t < CD_LABEL_TARGETS_MAX; t++) {
        if (!(targets >> t & 1))
            continue;
        uint64_t h = 0xcbf29ce484222325ull;
        bool failed = false;
        for (size_t i = 0; i < labels->n; i++) /* a run's labels are every target's */
            if (cd_labels_target(labels->v[i]) == t) {
                failed |= cd_labels_is_outcome(labels->v[i]);
                h = (h ^ labels->v[i]) * 0x100000001b3ull;
            }
        struct cd_result_first *f = &d->stats.first[t];
        f->ok += !failed;
        if (f->runs++ == 0)
            f->trace = h;
        else if (h != f->trace)
            f->traces_differ = true;
    }
}

/* First pass: counts the input, and runs and offers it on w when its content is new. Returns
 * false when the run is stopping (the input is then not counted). Lock not held. */
static bool take_input(struct worker *w, const uint8_t *data, size_t len, const char *name)
{
    struct cd_distill *d = w->d;
    struct cd_hash h = cd_hash_bytes(data, len);
    distill_lock(d);
    if (distill_should_stop(d)) {
        distill_unlock(d);
        return false;
    }
    if (d->opts.shards > 1 && h.lo % d->opts.shards != d->opts.shard - 1) {
        d->stats.other_shards++;
        distill_unlock(d);
        return true;
    }
    d->stats.inputs++;
    d->stats.input_bytes += len;
    int fresh = cd_table_seen_add(d->table, h);
    uint32_t targets = d->all_targets;
    if (fresh == 0 && d->rerun) {
        /* Run before, but not on the targets the state lacked: on them alone, once. */
        fresh = cd_table_seen_add(d->table, distill_seen_on(d, d->rerun, h));
        targets = d->rerun;
    }
    d->stats.duplicates += fresh == 0;
    if (fresh < 0) {
        cd_error_oom(&w->err, CD_FAILED, "out of memory in the seen-set");
        distill_fail(d, &w->err);
    }
    bool go = fresh > 0 && distill_reserve_exec(d);
    distill_progress(d, false);
    distill_unlock(d);
    if (!go)
        return fresh == 0;
    enum cd_outcome outcome;
    w->exec.targets = targets;
    enum cd_status st = distill_execute(w, data, len, false, &outcome);
    distill_lock(d);
    if (st == CD_WARN) {
        d->stats.execs--; /* nothing ran */
        if (d->opts.warning) {
            char msg[CD_ERROR_MAX + 128];
            snprintf(msg, sizeof msg, "skipping '%.100s': %s", name, w->err.msg);
            d->opts.warning(d->opts.cb_ctx, msg);
        }
    } else {
        d->stats.first_pass_execs += (uint64_t)__builtin_popcount(targets);
        if (st >= CD_FAILED) {
            distill_fail(d, &w->err);
        } else {
            count_first(d, targets, &w->exec.labels);
            distill_offer(w, data, len, outcome, name, NULL);
        }
    }
    distill_unlock(d);
    return true;
}

/* Copies in into w's own buffers, so that it outlives the next cd_ingest_next. */
static bool copy_input(struct worker *w, const struct cd_input *in)
{
    size_t name_len = strlen(in->name) + 1;
    if (in->size > w->first.in_cap || !w->first.in_data) {
        uint8_t *p = realloc(w->first.in_data, in->size ? in->size : 1);
        if (!p)
            return false;
        w->first.in_data = p;
        w->first.in_cap = in->size;
    }
    if (name_len > w->first.in_name_cap) {
        char *p = realloc(w->first.in_name, name_len);
        if (!p)
            return false;
        w->first.in_name = p;
        w->first.in_name_cap = name_len;
    }
    if (in->size)
        memcpy(w->first.in_data, in->data, in->size);
    memcpy(w->first.in_name, in->name, name_len);
    return true;
}

/* The first pass on worker w: takes the next input off the stream under ing_mu and runs it, until
 * the stream ends, a budget or a signal stops the run, or something fails. Every worker reads for
 * itself: a reading thread that handed inputs over woke a worker for each one, and the wake-ups
 * and the reader's CPU time between two busy workers kept -j 2 well below what two separate runs
 * get. With workers each input is copied before ing_mu is released; with one job the calling
 * thread runs it from the stream's own buffer. */
static void first_pass(struct worker *w)
{
    struct cd_distill *d = w->d;
    for (;;) {
        pthread_mutex_lock(&d->first.ing_mu);
        if (d->first.ing_done) {
            pthread_mutex_unlock(&d->first.ing_mu);
            return;
        }
        struct cd_input in;
        struct cd_error ierr;
        enum cd_status st = cd_ingest_next(d->first.ing, &in, &ierr);
        if (st == CD_OK && d->jobs > 1 && !copy_input(w, &in))
            st = cd_error_oom(&ierr, CD_FAILED, "out of memory copying '%s'", in.name);
        d->first.ing_done = st == CD_DONE || st >= CD_FAILED;
        pthread_mutex_unlock(&d->first.ing_mu);
        if (st == CD_DONE)
            return;
        if (st != CD_OK) {
            distill_lock(d);
            if (st >= CD_FAILED)
                distill_fail(d, &ierr);
            else if (d->opts.warning)
                d->opts.warning(d->opts.cb_ctx, ierr.msg);
            bool stop = distill_should_stop(d);
            distill_unlock(d);
            if (stop)
                return;
            continue;
        }
        if (!(d->jobs > 1 ? take_input(w, w->first.in_data, in.size, w->first.in_name)
                          : take_input(w, in.data, in.size, in.name)))
            return;
    }
}

static void *first_pass_thread(void *arg)
{
    first_pass(arg);
    return NULL;
}

/* The run's first failure into err (FAILED), or OK. Lock not held. */
static enum cd_status failure(struct cd_distill *d, struct cd_error *err)
{
    distill_lock(d);
    enum cd_status st = CD_OK;
    if (d->failed) {
        *err = d->fail_err;
        st = CD_FAILED;
    }
    distill_unlock(d);
    return st;
}

enum cd_status cd_distill_ingest_table(struct cd_distill *d, const struct cd_table *old,
                                       struct cd_error *err)
{
    cd_table_count_shown(d->table, true);
    d->phase = "first pass";
    for (const struct cd_table_example *e = cd_table_examples(old); e; e = e->next)
        if (e->refs && !take_input(&d->workers[0], e->data, e->len, e->origin))
            break;
    return failure(d, err);
}

enum cd_status cd_distill_rerun_targets(struct cd_distill *d, uint32_t targets,
                                        struct cd_error *err)
{
    struct worker *w = &d->workers[0];
    targets &= d->all_targets;
    d->rerun = targets;
    size_t n = cd_table_n_examples(d->table), k = 0;
    const struct cd_table_example **ex = calloc(n ? n : 1, sizeof *ex);
    bool *pinned = calloc(n ? n : 1, sizeof *pinned);
    if (!ex || !pinned) {
        free(ex);
        free(pinned);
        return cd_error_oom(err, CD_FAILED, "out of memory running the state's examples");
    }
    /* Pinned while they run: one may lose every label to another meanwhile. */
    for (const struct cd_table_example *e = cd_table_examples(d->table); e && k < n; e = e->next) {
        pinned[k] = e->pinned;
        cd_table_pin(d->table, e);
        ex[k++] = e;
    }
    cd_table_count_shown(d->table, true);
    d->phase = "first pass";
    for (size_t i = 0; i < k && !d->failed; i++) {
        const struct cd_table_example *e = ex[i];
        distill_lock(d);
        bool go = distill_reserve_exec(d);
        d->stats.first_pass_execs += go ? (uint64_t)__builtin_popcount(targets) : 0;
        distill_unlock(d);
        if (!go)
            break;
        enum cd_outcome outcome;
        w->exec.targets = targets;
        enum cd_status st = distill_execute(w, e->data, e->len, false, &outcome);
        distill_lock(d);
        size_t improved;
        if (st == CD_OK)
            count_first(d, targets, &w->exec.labels);
        if (st >= CD_FAILED)
            distill_fail(d, &w->err);
        else if (st == CD_OK && outcome == CD_OUTCOME_OK)
            st = cd_table_extend(d->table, e, &w->exec.labels, &improved, &w->err);
        else if (st == CD_OK) /* a reproducer of the new target's, or one of before */
            distill_offer(w, e->data, e->len, outcome, e->origin, NULL);
        if (st >= CD_FAILED && !d->failed)
            distill_fail(d, &w->err);
        distill_progress(d, false);
        distill_unlock(d);
    }
    for (size_t i = 0; i < k; i++)
        if (!pinned[i])
            cd_table_unpin(d->table, ex[i]);
    free(ex);
    free(pinned);
    return failure(d, err);
}

/* Label records by how many first-pass inputs showed them, fewest first (afl-cmin's order). */
struct rarity {
    uint64_t shown;
    uint32_t id;
    const struct cd_table_example *best;
};

static int rarest_first(const void *a, const void *b)
{
    const struct rarity *x = a, *y = b;
    if (x->shown != y->shown)
        return x->shown < y->shown ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The bytes afl-cmin's rule keeps from the first pass: from the rarest label up, the smallest
 * input showing it (its best now) is taken when no input taken so far shows it; inputs that crash
 * or hang are left out, as afl-cmin leaves them. 0 when out of memory. Lock held. */
static uint64_t cmin_like(struct cd_distill *d)
{
    size_t n = cd_table_n_labels(d->table), m = 0;
    struct rarity *r = calloc(n ? n : 1, sizeof *r);
    bool *covered = calloc(n ? n : 1, sizeof *covered);
    uint64_t bytes = 0;
    if (!r || !covered)
        goto out;
    for (size_t i = 0; i < n; i++) {
        const struct cd_table_label *l = cd_table_label_at(d->table, i);
        if (!cd_labels_is_outcome(l->id) && !l->best->outcome)
            r[m++] = (struct rarity){l->shown, l->id, l->best};
    }
    qsort(r, m, sizeof *r, rarest_first);
    for (size_t i = 0; i < m; i++) {
        if (covered[cd_table_label_index(d->table, r[i].id)])
            continue;
        bytes += r[i].best->len;
        for (size_t k = 0; k < r[i].best->labels.n; k++)
            covered[cd_table_label_index(d->table, r[i].best->labels.v[k])] = true;
    }
out:
    free(r);
    free(covered);
    return bytes;
}

enum cd_status cd_distill_ingest(struct cd_distill *d, struct cd_ingest *ing, struct cd_error *err)
{
    unsigned started = 0;
    cd_table_count_shown(d->table, true);
    d->first.ing = ing;
    d->first.ing_done = false;
    d->phase = "first pass";
    if (d->jobs > 1)
        started = distill_start_threads(d, first_pass_thread, err);
    else
        first_pass(&d->workers[0]);
    distill_join_threads(d, started);
    d->first.ing = NULL;
    distill_lock(d);
    d->stats.labels_input = cd_table_n_labels(d->table);
    cd_table_count_shown(d->table, false);
    /* The select-only output: pinned, so that the cover can always fall back on it. */
    if (!distill_table_cover(d)) {
        struct cd_error e;
        cd_error_oom(&e, CD_FAILED, "out of memory choosing the select-only seeds");
        distill_fail(d, &e);
    }
    d->stats.select_only_bytes = d->course.seed_bytes;
    d->stats.cmin_bytes = cmin_like(d);
    return distill_end_phase(d, err);
}
