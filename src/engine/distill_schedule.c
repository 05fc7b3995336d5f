/* Scheduling: which label (or, in bytes order, which whole example) a worker reduces next, helping
 * another worker with its label when nothing else is left, and the reduction phase's threads. */
#include "distill_internal.h"

#include <string.h>
#include <time.h>

/* A label's weight in the random choice: one, or in cover order the bytes of its best example
 * when the seed cover holds that example, halved for each idle attempt at it (plus one: never
 * zero). */
static uint64_t weight_of(const struct cd_distill *d, const struct cd_table_label *l)
{
    if (d->opts.order != CD_ORDER_COVER || !l->best->pinned)
        return 1;
    return (l->idle < 64 ? (uint64_t)l->best->len >> l->idle : 0) + 1;
}

/* Picks a label among the unskippable ones nobody is reducing: at random, weighed by weight_of
 * (uniformly but in cover order), in fresh order the oldest one found during reduction first; in
 * bytes order the one with the largest best example (the first seen on ties); coverage labels
 * before outcome labels, so that costly crash and timeout reproducers come last. Outcome labels
 * wait while a coverage label is still being reduced: that work may add coverage labels, and
 * every candidate of a timeout reproducer that still hangs runs to the timeout, which with
 * several workers took a worker away early in every run. Lock held. Returns NULL when there is
 * none. */
static const struct cd_table_label *choose_label(struct cd_distill *d)
{
    size_t n = cd_table_n_labels(d->table), counts[2] = {0, 0}, busy_coverage = 0;
    uint64_t weights[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const struct cd_table_label *l = cd_table_label_at(d->table, i);
        if (distill_to_reduce(d, l)) {
            if (!l->busy) {
                counts[cd_labels_is_outcome(l->id)]++;
                weights[cd_labels_is_outcome(l->id)] += weight_of(d, l);
            } else if (!cd_labels_is_outcome(l->id)) {
                busy_coverage++;
            }
        }
    }
    int kind = counts[0] ? 0 : 1;
    if (!counts[kind] || (kind == 1 && busy_coverage))
        return NULL;
    if (d->opts.order == CD_ORDER_BYTES) {
        const struct cd_table_label *big = NULL;
        for (size_t i = 0; i < n; i++) {
            const struct cd_table_label *l = cd_table_label_at(d->table, i);
            if (!l->busy && distill_to_reduce(d, l) && (int)cd_labels_is_outcome(l->id) == kind &&
                (!big || l->best->len > big->best->len))
                big = l;
        }
        return big;
    }
    if (d->opts.order == CD_ORDER_FRESH && kind == 0)
        for (size_t i = d->stats.labels_input; i < n; i++) {
            const struct cd_table_label *l = cd_table_label_at(d->table, i);
            if (!l->busy && distill_to_reduce(d, l) && !cd_labels_is_outcome(l->id))
                return l;
        }
    uint64_t at = distill_rng_below(d->rng, weights[kind]);
    for (size_t i = 0; i < n; i++) {
        const struct cd_table_label *l = cd_table_label_at(d->table, i);
        if (l->busy || !distill_to_reduce(d, l) || (int)cd_labels_is_outcome(l->id) != kind)
            continue;
        uint64_t w = weight_of(d, l);
        if (at < w)
            return l;
        at -= w;
    }
    return NULL;
}

/* Waits for the state to change, waking now and then to notice the stop flag and the clock. */
static void wait_a_while(struct cd_distill *d)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_cond_timedwait(&d->cv, &d->mu, &ts);
}

/* Whether e is being reduced whole by some worker. Lock held. */
static bool whole_busy(const struct cd_distill *d, const struct cd_table_example *e)
{
    for (unsigned i = 0; i < d->jobs; i++)
        if (d->workers[i].work.whole && d->workers[i].work.serial == e->serial)
            return true;
    return false;
}

/* The next example to reduce whole, under "keeps every label it is best for": in bytes order
 * the largest coverage example best for some unskippable label; in cover order the largest such
 * example the seed cover holds (pinned), so that executions go where the seeds' bytes are and the
 * cover drops an example as soon as it shrinks, where label by label it would drop it only once
 * every label it holds had moved. Never one that a whole reduction left unchanged or that another
 * worker reduces whole (the first stored on ties); NULL when there is none. An example whose
 * labels are all skippable is marked done: every candidate that keeps them all would have been
 * adopted for each. Whole first left smaller seeds than label by label on every library measured
 * (tools/bench/FINDINGS.md). Lock held. */
static const struct cd_table_example *choose_whole(struct cd_distill *d)
{
    bool cover = d->opts.order == CD_ORDER_COVER;
    if (d->opts.order != CD_ORDER_BYTES && !cover)
        return NULL;
    for (;;) {
        const struct cd_table_example *big = NULL;
        for (const struct cd_table_example *e = cd_table_examples(d->table); e; e = e->next)
            if (!e->outcome && e->refs && !distill_whole_done(d, e) && e->len &&
                (!cover || e->pinned) && !whole_busy(d, e) && (!big || e->len > big->len))
                big = e;
        if (!big)
            return NULL;
        for (size_t i = 0; i < big->labels.n; i++) {
            const struct cd_table_label *l = cd_table_find(d->table, big->labels.v[i]);
            if (l->best == big && !l->busy && distill_to_reduce(d, l))
                return big;
        }
        distill_mark_whole_done(d, big);
    }
}

/* A coverage label another worker is reducing, for an idle worker to help with: the one with
 * the fewest helpers, then the largest best example. Both walk the same candidates, and the
 * seen-set lets each run only those the other has not run yet, so a long reduction at the end
 * of a run (the last labels, a warm run's few new ones) goes as fast as the workers can run it.
 * A label w helped with to the end is not helped again until its best example moves on. Each
 * adoption sends the other worker back to the start of its pass, so helping costs executions
 * (a fifth more on a day-2 warm run) but ends the long tails; helping only an owner 200
 * executions past its last adoption brought a tail back (52 s against at most 25 s). NULL when
 * there is none. Lock held. */
static const struct cd_table_label *choose_help(struct cd_distill *d, const struct worker *w)
{
    const struct cd_table_label *top = NULL;
    unsigned top_helpers = 0;
    for (unsigned i = 0; i < d->jobs; i++) {
        const struct worker *o = &d->workers[i];
        if (!o->work.active || o->help.helping || cd_labels_is_outcome(o->work.label))
            continue;
        const struct cd_table_label *l = cd_table_find(d->table, o->work.label);
        if (!l || !l->busy || !distill_to_reduce(d, l) ||
            (w->help.helped == l->id && w->help.helped_serial == l->best->serial))
            continue;
        unsigned helpers = 0;
        for (unsigned j = 0; j < d->jobs; j++)
            helpers += d->workers[j].work.active && d->workers[j].help.helping &&
                       d->workers[j].work.label == o->work.label;
        if (!top || helpers < top_helpers ||
            (helpers == top_helpers && l->best->len > top->best->len)) {
            top = l;
            top_helpers = helpers;
        }
    }
    return top;
}

/* The reduction loop of one worker: until every label is skippable with nothing in flight. */
static void *reduce_worker(void *arg)
{
    struct worker *w = arg;
    struct cd_distill *d = w->d;
    distill_lock(d);
    while (!distill_should_stop(d) && !d->work.reduce_done) {
        const struct cd_table_example *e = choose_whole(d);
        if (e) {
            distill_reduce_whole(w, e);
            continue;
        }
        const struct cd_table_label *l = choose_label(d);
        bool help = !l && d->work.in_flight > 0 && (l = choose_help(d, w)) != NULL;
        if (!l) {
            if (d->work.in_flight == 0) {
                d->work.reduce_done = true;
                pthread_cond_broadcast(&d->cv);
            } else {
                wait_a_while(d);
            }
            continue;
        }
        uint32_t id = l->id;
        if (!help)
            cd_table_claim(d->table, id);
        w->work.label = id;
        w->work.active = true;
        w->help.helping = help;
        w->help.help_tries += help;
        d->work.in_flight++;
        distill_unlock(d);
        distill_reduce_label(w, id);
        distill_lock(d);
        if (!help)
            cd_table_release(d->table, id);
        w->work.active = w->help.helping = false;
        d->work.in_flight--;
        pthread_cond_broadcast(&d->cv);
        distill_progress(d, false);
    }
    distill_unlock(d);
    return NULL;
}

enum cd_status cd_distill_reduce(struct cd_distill *d, struct cd_error *err)
{
    if (d->opts.no_reduce)
        return CD_OK;
    distill_lock(d);
    d->phase = "reduce";
    distill_progress(d, true);
    distill_unlock(d);
    if (d->jobs == 1) {
        reduce_worker(&d->workers[0]);
    } else {
        unsigned started = distill_start_threads(d, reduce_worker, err);
        distill_join_threads(d, started);
    }
    distill_lock(d);
    d->phase = "done";
    return distill_end_phase(d, err);
}
