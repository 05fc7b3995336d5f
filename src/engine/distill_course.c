/* The run's course and what the user sees of it: the seed cover of the table as it stands,
 * recomputed every COVER_EXECS executions and pinned as the next cover's ceiling so that the seeds
 * never grow; the course's points; checkpoints; the progress callback. */
#include "distill_internal.h"

#include <stdlib.h>
#include <string.h>

/* The seed cover of the table as it is now (what the output would be, cd_result_select_seeds):
 * its bytes and seeds in d, and its examples pinned as the baseline of the next one, so that the
 * cover never grows (labels found during reduction are optional unless keep_found). Returns false
 * when out of memory. Lock held. */
bool distill_table_cover(struct cd_distill *d)
{
    size_t n = 0, total = 0, k = 0, nl = cd_table_n_labels(d->table);
    for (const struct cd_table_example *e = cd_table_examples(d->table); e; e = e->next)
        if (!e->outcome && e->len) {
            n++;
            total += e->labels.n;
        }
    struct cd_cover_set *sets = calloc(n ? n : 1, sizeof *sets);
    const struct cd_table_example **ex = calloc(n ? n : 1, sizeof *ex);
    uint32_t *items = calloc(total ? total : 1, sizeof *items), *next = items;
    bool *chosen = calloc(n ? n : 1, sizeof *chosen), ok = false;
    bool *optional = d->opts.keep_found ? NULL : calloc(nl ? nl : 1, sizeof *optional);
    struct cd_cover_stats cs;
    struct cd_error err;
    if (!sets || !ex || !items || !chosen || (!optional && !d->opts.keep_found))
        goto out;
    for (size_t i = 0; optional && i < nl; i++)
        optional[i] = cd_table_label_at(d->table, i)->found;
    for (const struct cd_table_example *e = cd_table_examples(d->table); e; e = e->next) {
        if (e->outcome || !e->len)
            continue;
        for (size_t i = 0; i < e->labels.n; i++)
            next[i] = (uint32_t)cd_table_label_index(d->table, e->labels.v[i]);
        ex[k] = e;
        sets[k++] = (struct cd_cover_set){e->len, next, e->labels.n, e->pinned};
        next += e->labels.n;
    }
    if (cd_cover_solve(sets, n, nl, optional, NULL, chosen, &cs, &err) != CD_OK)
        goto out;
    d->course.seed_bytes = cs.bytes;
    d->course.seeds = cs.chosen;
    /* The baseline becomes this cover: examples an earlier cover pinned that it leaves out are
       let go. */
    for (k = 0; k < n; k++) {
        if (chosen[k])
            cd_table_pin(d->table, ex[k]);
        else if (ex[k]->pinned)
            cd_table_unpin(d->table, ex[k]);
    }
    ok = true;
out:
    free(sets);
    free(ex);
    free(items);
    free(chosen);
    free(optional);
    return ok;
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const void *const *)a, y = (uintptr_t) * (const void *const *)b;
    return (x > y) - (x < y);
}

/* The bytes of the best examples of the labels not finished, each example once, and their work
 * (cd_result_example_work: the estimate's, cd_result_execs_left) into *work; 0 when out of
 * memory. Lock held. */
static uint64_t unfinished_bytes(const struct cd_table *t, double *work)
{
    size_t nl = cd_table_n_labels(t), n = 0;
    const struct cd_table_example **v = malloc((nl ? nl : 1) * sizeof *v);
    uint64_t bytes = 0;
    for (size_t i = 0; v && i < nl; i++) {
        const struct cd_table_label *l = cd_table_label_at(t, i);
        if (l->best && !cd_table_skippable(l))
            v[n++] = l->best;
    }
    if (v)
        qsort(v, n, sizeof *v, cmp_ptr);
    *work = 0;
    for (size_t i = 0; v && i < n; i++)
        if (i == 0 || v[i] != v[i - 1]) {
            bytes += v[i]->len;
            *work += cd_result_example_work(v[i]->len);
        }
    free(v);
    return bytes;
}

/* Appends a point to the run's course, thinning it to every other point when full. Lock held. */
static void record_point(struct cd_distill *d, uint64_t now, uint64_t finished)
{
    if (!d->course.series) {
        d->course.series = calloc(CD_DISTILL_SERIES_MAX, sizeof *d->course.series);
        if (!d->course.series)
            return;
    }
    if (d->course.n_series == CD_DISTILL_SERIES_MAX) {
        for (size_t i = 0; i < CD_DISTILL_SERIES_MAX / 2; i++)
            d->course.series[i] = d->course.series[2 * i + 1];
        d->course.n_series = CD_DISTILL_SERIES_MAX / 2;
    }
    struct cd_result_point *p = &d->course.series[d->course.n_series++];
    *p = (struct cd_result_point){
        .ms = (now - d->start_ns) / 1000000, .execs = d->stats.execs,
        .labels = cd_table_n_labels(d->table), .finished = finished,
        .seed_bytes = d->course.seed_bytes};
    p->unfinished_bytes = unfinished_bytes(d->table, &p->unfinished_work);
    if (strcmp(d->phase, "reduce") == 0) /* what the progress line says from here */
        p->execs_left = cd_result_execs_left(d->course.series, d->course.n_series,
                                             &p->execs_left_at_least);
}

/* Recomputes the seed cover when it is due (or forced) and records the run's course. Lock held. */
static void update_cover(struct cd_distill *d, bool force)
{
    if (!force && d->stats.execs < d->course.next_cover_execs)
        return;
    if (!distill_table_cover(d))
        return; /* out of memory: the figures stay as they were */
    uint64_t gap = 2 * (uint64_t)cd_table_n_labels(d->table);
    d->course.next_cover_execs = d->stats.execs + (gap > COVER_EXECS ? gap : COVER_EXECS);
    record_point(d, cd_now_ns(), cd_table_count_skippable(d->table));
}

/* Takes a snapshot of the table for the checkpoint callback when one is due and the last one is
 * written (its pinned examples, the last cover, are the output a resumed run starts from); the
 * callback runs as the lock is released (distill_unlock). Lock held. */
static void checkpoint(struct cd_distill *d, uint64_t now)
{
    if (!d->opts.checkpoint || !d->opts.checkpoint_ms || now < d->course.next_checkpoint_ns ||
        d->course.snapshot || atomic_load(&d->course.checkpointing))
        return;
    d->course.snapshot = cd_table_snapshot(d->table);
    d->course.snapshot_execs = d->stats.execs;
    if (d->course.snapshot) /* out of memory: the next one is tried as due */
        atomic_store(&d->course.checkpointing, true);
    d->course.next_checkpoint_ns = cd_now_ns() + d->opts.checkpoint_ms * 1000000ull;
}

/* Makes the progress report due, at most every PROGRESS_NS unless forced, and the checkpoint
 * when due; distill_unlock hands them to their callbacks. Lock held. */
void distill_progress(struct cd_distill *d, bool force)
{
    if (d->stats.select_only_bytes)
        update_cover(d, force);
    checkpoint(d, cd_now_ns());
    if (!d->opts.progress)
        return;
    uint64_t now = cd_now_ns();
    if (!force && now - d->course.last_progress_ns < PROGRESS_NS)
        return;
    d->course.last_progress_ns = now;
    struct cd_distill_progress p = {
        .phase = d->phase,
        .inputs = d->stats.inputs,
        .execs = d->stats.execs,
        .labels = cd_table_n_labels(d->table),
        .labels_finished = cd_table_count_skippable(d->table),
        .best_examples = cd_table_n_examples(d->table),
        .best_bytes = cd_table_example_bytes(d->table),
        .elapsed_ns = now - d->start_ns,
        .seed_bytes = d->course.seed_bytes,
        .seeds = d->course.seeds,
        .select_only_bytes = d->stats.select_only_bytes,
        .cmin_bytes = d->stats.cmin_bytes,
    };
    if (strcmp(d->phase, "reduce") == 0)
        p.execs_left = cd_result_execs_left(d->course.series, d->course.n_series,
                                            &p.execs_left_at_least);
    d->course.progress = p; /* handed to the callback as the lock is released (distill_unlock) */
    d->course.progress_due = true;
}

/* Ends a phase: stamps the end time, reports progress, unlocks, and returns the first failure
 * into err, if any. Lock held on entry, released on return. */
enum cd_status distill_end_phase(struct cd_distill *d, struct cd_error *err)
{
    d->end_ns = cd_now_ns();
    distill_progress(d, true);
    enum cd_status st = CD_OK;
    if (d->failed) {
        *err = d->fail_err;
        st = CD_FAILED;
    }
    distill_unlock(d);
    return st;
}
