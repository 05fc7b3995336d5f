/* The distillation loop: the first pass runs every distinct input once, then multi-objective
 * reduction reduces best examples, until every label is skippable, a budget runs out or the stop
 * flag is set. By default it picks a label at random, weighed by the bytes of the seed holding it,
 * and reduces its best under "the candidate becomes this label's best"; in bytes order the
 * largest best example is reduced whole under "keeps every label it is best for", then the labels
 * of the largest ones come first. The seed cover (cd_cover) is recomputed every few thousand
 * executions, for the progress line and the run's course, and pinned in the table as the next
 * one's ceiling, so that the output never weighs more than the select-only one nor grows as the
 * run goes on (labels found in reduction are optional). A run that shows a new label, and a best
 * example when a reduction first takes it, run twice: an edge whose labels differ between the two
 * is unstable, and its labels leave the table. N workers share one table under one mutex;
 * targets run outside it. With one worker everything runs on the calling thread and a seed fixes
 * the run. Execution is reached only through cd_runner_ops. */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include "distill_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* xoshiro256** seeded through splitmix64: label choice only. */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(uint64_t s[4])
{
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n) without modulo bias. */
uint64_t distill_rng_below(uint64_t s[4], uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    for (;;) {
        uint64_t r = rng_next(s);
        if (r < limit)
            return r % n;
    }
}

void distill_lock(struct cd_distill *d)
{
    pthread_mutex_lock(&d->mu);
}

void distill_unlock(struct cd_distill *d)
{
    struct cd_table_snapshot *snap = d->course.snapshot;
    uint64_t execs = d->course.snapshot_execs;
    d->course.snapshot = NULL;
    struct cd_distill_progress p;
    bool report = d->course.progress_due && !atomic_exchange(&d->course.reporting, true);
    if (report) {
        p = d->course.progress;
        d->course.progress_due = false;
    }
    pthread_mutex_unlock(&d->mu);
    if (report) { /* a terminal that blocks our writes holds this worker alone */
        d->opts.progress(d->opts.cb_ctx, &p);
        atomic_store(&d->course.reporting, false);
    }
    if (!snap)
        return;
    /* encoded and written with the lock released: the other workers carry on */
    d->opts.checkpoint(d->opts.checkpoint_ctx, snap, execs);
    cd_table_snapshot_free(snap);
    atomic_store(&d->course.checkpointing, false);
}

/* Records the first failure; every worker then winds down. Lock held. */
void distill_fail(struct cd_distill *d, const struct cd_error *err)
{
    if (!d->failed)
        d->fail_err = *err;
    d->failed = true;
    pthread_cond_broadcast(&d->cv);
}

/* Whether the run must end: a failure, the stop flag, a budget. Sets stopped_by. Lock held. */
bool distill_should_stop(struct cd_distill *d)
{
    if (d->failed || d->stats.stopped_by)
        return true;
    if (d->opts.stop && *d->opts.stop)
        d->stats.stopped_by = "signal";
    else if (d->opts.max_time_ms && cd_now_ns() - d->start_ns >= d->opts.max_time_ms * 1000000ull)
        d->stats.stopped_by = "max-time";
    else if (d->opts.max_execs && d->stats.execs >= d->opts.max_execs)
        d->stats.stopped_by = "max-execs";
    if (d->stats.stopped_by)
        pthread_cond_broadcast(&d->cv);
    return d->stats.stopped_by != NULL;
}

/* Counts an execution about to happen, unless the run must end. Lock held. */
bool distill_reserve_exec(struct cd_distill *d)
{
    if (distill_should_stop(d))
        return false;
    d->stats.execs++;
    return true;
}

/* Whether reduction works on label l: it is not skippable, and it is in this run's label shard. */
bool distill_to_reduce(const struct cd_distill *d, const struct cd_table_label *l)
{
    if (cd_table_skippable(l))
        return false;
    if (d->opts.label_shards <= 1)
        return true;
    return cd_hash_bytes(&l->id, sizeof l->id).lo % d->opts.label_shards ==
           d->opts.label_shard - 1;
}

enum cd_status cd_distill_new(struct cd_distill **out, const struct cd_distill_opts *opts,
                              const struct cd_runner_ops *ops, void *runner_ctx,
                              struct cd_error *err)
{
    enum cd_status st = CD_FAILED;
    *out = NULL;
    if (opts->shards > 1 && (opts->shard < 1 || opts->shard > opts->shards))
        return cd_error_set(err, CD_FAILED, "shard %u of %u does not exist", opts->shard,
                            opts->shards);
    if (opts->label_shards > 1 &&
        (opts->label_shard < 1 || opts->label_shard > opts->label_shards))
        return cd_error_set(err, CD_FAILED, "label shard %u of %u does not exist",
                            opts->label_shard, opts->label_shards);
    struct cd_distill *d = calloc(1, sizeof *d);
    if (!d)
        return cd_error_oom(err, CD_FAILED, "out of memory creating the engine");
    d->opts = *opts;
    d->ops = ops;
    d->runner_ctx = runner_ctx;
    d->jobs = opts->jobs ? opts->jobs : 1;
    if (opts->targets > CD_LABEL_TARGETS_MAX)
        return free(d), cd_error_set(err, CD_FAILED, "at most %u targets run at once",
                                     CD_LABEL_TARGETS_MAX);
    d->all_targets = opts->targets > 1 ? (uint32_t)((1ull << opts->targets) - 1) : 1;
    d->work.attempt_execs = opts->attempt_execs ? opts->attempt_execs : ATTEMPT_EXECS;
    d->phase = "first pass";
    d->start_ns = d->course.last_progress_ns = cd_now_ns();
    d->course.next_checkpoint_ns = d->start_ns + opts->checkpoint_ms * 1000000ull;
    uint64_t x = opts->seed;
    for (int i = 0; i < 4; i++)
        d->rng[i] = splitmix64(&x);
    /* Both locks are held for microseconds while the holder's CPU stays busy: a worker that
       finds one taken spins a little before it sleeps. Sleeping at once cost a futex wait and a
       wake-up on about one first-pass input in four at -j 2. */
    pthread_mutexattr_t spin;
    pthread_mutexattr_init(&spin);
    pthread_mutexattr_settype(&spin, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&d->mu, &spin);
    pthread_cond_init(&d->cv, NULL);
    pthread_mutex_init(&d->first.ing_mu, &spin);
    pthread_mutexattr_destroy(&spin);
    d->workers = calloc(d->jobs, sizeof *d->workers);
    if (!d->workers) {
        cd_error_oom(err, CD_FAILED, "out of memory creating %u workers", d->jobs);
        goto out;
    }
    if (cd_table_new(&d->table, err) != CD_OK)
        goto out;
    cd_table_seen_limit(d->table, opts->seen_mem ? opts->seen_mem : CD_DISTILL_SEEN_MEM_DEFAULT);
    for (unsigned i = 0; i < d->jobs; i++) {
        struct worker *w = &d->workers[i];
        w->d = d;
        w->index = i;
        st = ops->open(runner_ctx, i, &w->exec.state, err);
        if (st >= CD_FAILED)
            goto out;
        d->opened++;
    }
    st = CD_OK;
    *out = d;
out:
    if (st != CD_OK)
        cd_distill_free(d);
    return st;
}

void cd_distill_free(struct cd_distill *d)
{
    if (!d)
        return;
    for (unsigned i = 0; i < d->opened; i++)
        d->ops->close(d->workers[i].exec.state);
    for (unsigned i = 0; d->workers && i < d->jobs; i++) {
        cd_labelset_release(&d->workers[i].exec.labels);
        cd_labelset_release(&d->workers[i].exec.again);
        cd_labelset_release(&d->workers[i].work.whole_labels);
        free(d->workers[i].work.origin);
        free(d->workers[i].first.in_data);
        free(d->workers[i].first.in_name);
        for (unsigned k = 0; k < d->workers[i].hang.n_prov; k++)
            free(d->workers[i].hang.prov[k].data);
    }
    free(d->workers);
    free(d->hang.pending);
    free(d->hang.pending_origin);
    free(d->course.series);
    cd_table_free(d->table);
    cd_table_snapshot_free(d->course.snapshot);
    cd_hashset_release(&d->work.whole_done);
    pthread_mutex_destroy(&d->mu);
    pthread_mutex_destroy(&d->first.ing_mu);
    pthread_cond_destroy(&d->cv);
    free(d);
}

/* Starts fn on every worker thread; returns how many started. */
unsigned distill_start_threads(struct cd_distill *d, void *(*fn)(void *), struct cd_error *err)
{
    unsigned n = 0;
    for (; n < d->jobs; n++) {
        int e = pthread_create(&d->workers[n].thread, NULL, fn, &d->workers[n]);
        if (e) {
            cd_error_set(err, CD_FAILED, "cannot start worker thread: %s", strerror(e));
            distill_lock(d);
            distill_fail(d, err);
            distill_unlock(d);
            break;
        }
    }
    return n;
}

void distill_join_threads(struct cd_distill *d, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        pthread_join(d->workers[i].thread, NULL);
}

void cd_distill_adopt_table(struct cd_distill *d, struct cd_table *t)
{
    /* Out of memory rebuilding it under the bound, the seen-set keeps the one it was loaded
       with. */
    (void)cd_table_seen_limit(t, d->opts.seen_mem ? d->opts.seen_mem : CD_DISTILL_SEEN_MEM_DEFAULT);
    cd_table_free(d->table);
    d->table = t;
}

const struct cd_table *cd_distill_table(const struct cd_distill *d)
{
    return d->table;
}

const struct cd_result_stats *cd_distill_stats(const struct cd_distill *d)
{
    return &d->stats;
}

const char *cd_distill_order_name(enum cd_distill_order order)
{
    return order == CD_ORDER_BYTES     ? "bytes"
           : order == CD_ORDER_UNIFORM ? "uniform"
           : order == CD_ORDER_COVER   ? "cover"
                                       : "fresh";
}

enum cd_status cd_distill_result(const struct cd_distill *cd, struct cd_result *out,
                                 struct cd_error *err)
{
    struct cd_distill *d = (struct cd_distill *)cd; /* the lock is the only thing touched */
    distill_lock(d);
    struct cd_result_stats stats = d->stats;
    stats.wall_ns = (d->end_ns ? d->end_ns : cd_now_ns()) - d->start_ns;
    stats.seen_forgotten = cd_table_seen_forgotten(d->table);
    stats.seen_bytes = cd_table_seen_bytes(d->table);
    stats.complete = d->work.reduce_done && !d->failed && !d->stats.stopped_by &&
                     !d->opts.no_reduce &&
                     cd_table_count_skippable(d->table) == cd_table_n_labels(d->table);
    stats.execs_left = stats.complete || d->opts.no_reduce
                           ? 0
                           : cd_result_execs_left(d->course.series, d->course.n_series,
                                                  &stats.execs_left_at_least);
    enum cd_status st = cd_result_build(out, d->table, &stats, err);
    if (st == CD_OK && d->course.n_series) {
        out->series = cd_memdup(d->course.series, d->course.n_series * sizeof *d->course.series);
        out->n_series = out->series ? d->course.n_series : 0;
    }
    distill_unlock(d);
    return st;
}

char *cd_distill_pass_report(const struct cd_distill *d)
{
    struct cd_reduce_stats sum[CD_REDUCE_PASSES_MAX] = {{0}};
    unsigned n = cd_reduce_n_passes();
    for (unsigned i = 0; i < d->jobs; i++)
        for (unsigned p = 0; p < n; p++) {
            sum[p].execs += d->workers[i].work.red.stats[p].execs;
            sum[p].successes += d->workers[i].work.red.stats[p].successes;
            sum[p].bytes_removed += d->workers[i].work.red.stats[p].bytes_removed;
        }
    size_t cap = 128 * (n + 4), used = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = 0;
    for (unsigned p = 0; p < n; p++) {
        used += (size_t)snprintf(s + used, cap - used,
                                 "pass %-8s %10llu candidates %8llu adopted %10llu bytes removed\n",
                                 cd_reduce_pass_name(p),
                                 (unsigned long long)sum[p].execs,
                                 (unsigned long long)sum[p].successes,
                                 (unsigned long long)sum[p].bytes_removed);
        if (used >= cap)
            return s;
    }
    uint64_t tries = 0, wins = 0, execs = 0;
    for (unsigned i = 0; i < d->jobs; i++) {
        tries += d->workers[i].work.donor_tries;
        wins += d->workers[i].work.donor_wins;
        for (unsigned p = 0; p < n; p++)
            execs += d->workers[i].work.donor_red.stats[p].execs;
    }
    used += (size_t)snprintf(
        s + used, cap - used,
        "donors   %10llu candidates %8llu started %10llu improved their label\n",
        (unsigned long long)execs, (unsigned long long)tries, (unsigned long long)wins);
    if (used >= cap)
        return s;
    uint64_t help[3] = {0, 0, 0};
    for (unsigned i = 0; i < d->jobs; i++) {
        help[0] += d->workers[i].help.help_execs;
        help[1] += d->workers[i].help.help_tries;
        help[2] += d->workers[i].help.help_adopted;
    }
    used += (size_t)snprintf(s + used, cap - used,
                             "helpers  %10llu executions %8llu started %10llu adopted\n",
                             (unsigned long long)help[0], (unsigned long long)help[1],
                             (unsigned long long)help[2]);
    if (used >= cap)
        return s;
    uint64_t attempts[2] = {0, 0};
    for (unsigned i = 0; i < d->jobs; i++) {
        attempts[0] += d->workers[i].work.label_attempts;
        attempts[1] += d->workers[i].work.idle_attempts;
    }
    used += (size_t)snprintf(s + used, cap - used, "attempts %10llu at labels %8llu idle\n",
                             (unsigned long long)attempts[0], (unsigned long long)attempts[1]);
    if (used >= cap)
        return s;
    snprintf(s + used, cap - used, "labels left at the timeout cap (%d timed-out runs): %llu\n",
             TIMEOUT_CAP, (unsigned long long)d->work.capped_labels);
    return s;
}
