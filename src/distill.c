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
#include "cd_cover.h"
#include "cd_distill.h"
#include "cd_hash.h"
#include "cd_reduce.h"
#include "cd_table.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Most timed-out executions one label's reduction may spend on candidates it does not adopt
 * (each costs at least the calibrated timeout, and a second more when it must be confirmed);
 * past it the label is left as it is and marked finished. Hangs the timeout label's reduction
 * adopts do not count: each shortens the reproducer, and the attempt's execution cap bounds
 * them. */
#define TIMEOUT_CAP 16
/* Default of opts.attempt_execs: most executions one attempt at a label may spend before the
 * worker moves on to another random label (raised to two per byte of a large example). The label
 * is not finished then: a later attempt starts again from its current best, and the seen-set
 * answers the candidates already tried without running them, so it carries on where this one
 * stopped. Without it one large example would take a large share of a budget while every other
 * label waits as it was found. Two per byte can still take most of a budget: in a 300 s libyaml
 * run one label of a 223 KB example took four minutes, its seeds' bytes flat. Capping attempts at
 * 20,000 and leaving a fresh label that used one up to the uniform choice was measured and not
 * kept: at 100 executions per file libyaml's seeds grew 26% (libxml2 and Lua even). */
#define ATTEMPT_EXECS 500
/* Most executions one attempt at reducing a whole example spends (see reduce_whole). */
#define WHOLE_EXECS 100
/* Most provisional reproducers a worker keeps (struct worker, prov): the newest are tried first
 * when the reduction ends, and a hang that does not confirm is rare. */
#define PROV_KEEP 4
#define PROGRESS_NS 250000000ull
/* The seed cover is recomputed (with the lock held: milliseconds on tens of thousands of labels)
 * every COVER_EXECS executions, or two per label when that is more: by executions, not time,
 * since each cover is the next one's ceiling and one worker with one seed must write the same
 * output however fast the machine is. The run's course keeps a point of each. */
#define COVER_EXECS 4000u

struct worker {
    struct cd_distill *d;
    unsigned index;
    void *state;                 /* runner state */
    struct cd_labelset labels;   /* labels of the last run */
    struct cd_labelset again;    /* labels of its second run (recheck) */
    uint8_t *in_data;            /* first pass with workers: its copy of the input it runs */
    size_t in_cap;
    char *in_name;
    size_t in_name_cap;
    struct cd_reducer red;
    struct cd_reducer donor_red; /* counters of donor starts, kept apart from red's */
    uint64_t donor_tries, donor_wins; /* donor starts, and those that improved their label */
    uint64_t changes;            /* table changes made by this worker's own offers */
    pthread_t thread;
    /* the reduction in progress: of label, or of a whole example (whole) that was best for the
       labels in whole_labels when it started */
    bool whole;
    struct cd_labelset whole_labels;
    uint32_t label;
    bool active;                 /* reducing label now, as its owner or as a helper */
    bool helping;                /* label is another worker's claim (choose_help) */
    uint32_t helped;             /* the label this worker last helped with, and its best */
    uint64_t helped_serial;      /* example then: no help again until that best moves on */
    uint64_t help_tries, help_execs, help_adopted; /* helping: starts, executions, adoptions */
    uint64_t serial;             /* the label's best example as this worker knows it */
    char *origin;
    bool stale;                  /* the label's best moved on under us */
    unsigned timeouts;
    bool capped;                 /* hit TIMEOUT_CAP */
    unsigned execs;              /* executions of this attempt */
    uint64_t attempt_cap;        /* its limit */
    bool yielded;                /* hit attempt_execs */
    /* The timeout label's own reduction adopts a shorter hang unconfirmed, and confirms only
       the newest when it ends (settle), falling back to older ones if that one was merely slow:
       confirming each step took a second per step. Oldest first. */
    struct {
        uint8_t *data;
        size_t len;
    } prov[PROV_KEEP];
    unsigned n_prov;
    struct cd_error err;
};

struct cd_distill {
    struct cd_distill_opts opts;
    const struct cd_runner_ops *ops;
    void *runner_ctx;
    unsigned jobs;
    struct worker *workers;
    unsigned opened;
    struct cd_table *table;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t rng[4];
    uint64_t start_ns, end_ns, last_progress_ns;
    const char *phase;
    struct cd_result_stats stats;
    bool failed;
    struct cd_error fail_err;
    unsigned attempt_execs;
    unsigned in_flight;          /* labels being reduced */
    bool reduce_done;            /* every label skippable with nothing in flight */
    uint64_t capped_labels;
    /* The shortest unconfirmed hang met while another label was reduced that is shorter than the
       timeout label's reproducer: that label's next reduction confirms it first. The seen-set
       keeps its own reduction from ever running it again. */
    uint8_t *pending;
    size_t pending_len;
    uint32_t pending_label;
    char *pending_origin;
    /* first pass: the input stream, read by every worker in turn under ing_mu */
    pthread_mutex_t ing_mu;
    struct cd_ingest *ing;
    bool ing_done;               /* the stream ended (ing_mu held) */
    /* the seed cover, as last computed, and the run's course */
    uint64_t next_cover_execs;
    uint64_t seed_bytes, seeds;
    struct cd_result_point *series;
    size_t n_series;
    uint64_t next_checkpoint_ns;
    struct cd_hashset whole_done; /* bytes order: serials of examples reduced whole to a fixpoint */
};

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
static uint64_t rng_below(uint64_t s[4], uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    for (;;) {
        uint64_t r = rng_next(s);
        if (r < limit)
            return r % n;
    }
}

static void lock(struct cd_distill *d)
{
    pthread_mutex_lock(&d->mu);
}

static void unlock(struct cd_distill *d)
{
    pthread_mutex_unlock(&d->mu);
}

/* Records the first failure; every worker then winds down. Lock held. */
static void fail(struct cd_distill *d, const struct cd_error *err)
{
    if (!d->failed)
        d->fail_err = *err;
    d->failed = true;
    pthread_cond_broadcast(&d->cv);
}

/* Whether the run must end: a failure, the stop flag, a budget. Sets stopped_by. Lock held. */
static bool should_stop(struct cd_distill *d)
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
static bool reserve_exec(struct cd_distill *d)
{
    if (should_stop(d))
        return false;
    d->stats.execs++;
    return true;
}

/* Whether reduction works on label l: it is not skippable, and it is in this run's label shard. */
static bool to_reduce(const struct cd_distill *d, const struct cd_table_label *l)
{
    if (cd_table_skippable(l))
        return false;
    if (d->opts.label_shards <= 1)
        return true;
    return cd_hash_bytes(&l->id, sizeof l->id).lo % d->opts.label_shards ==
           d->opts.label_shard - 1;
}

static uint64_t count_skippable(const struct cd_table *t)
{
    uint64_t n = 0;
    for (size_t i = 0; i < cd_table_n_labels(t); i++)
        n += cd_table_skippable(cd_table_label_at(t, i));
    return n;
}

/* The seed cover of the table as it is now (what the output would be, cd_result_select_seeds):
 * its bytes and seeds in d, and its examples pinned as the baseline of the next one, so that the
 * cover never grows (labels found during reduction are optional unless keep_found). Returns false
 * when out of memory. Lock held. */
static bool table_cover(struct cd_distill *d)
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
    if (cd_cover_solve(sets, n, nl, optional, chosen, &cs, &err) != CD_OK)
        goto out;
    d->seed_bytes = cs.bytes;
    d->seeds = cs.chosen;
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

/* Appends a point to the run's course, thinning it to every other point when full. Lock held. */
static void record_point(struct cd_distill *d, uint64_t now, uint64_t finished)
{
    if (!d->series) {
        d->series = calloc(CD_DISTILL_SERIES_MAX, sizeof *d->series);
        if (!d->series)
            return;
    }
    if (d->n_series == CD_DISTILL_SERIES_MAX) {
        for (size_t i = 0; i < CD_DISTILL_SERIES_MAX / 2; i++)
            d->series[i] = d->series[2 * i + 1];
        d->n_series = CD_DISTILL_SERIES_MAX / 2;
    }
    d->series[d->n_series++] = (struct cd_result_point){
        .ms = (now - d->start_ns) / 1000000, .execs = d->stats.execs,
        .labels = cd_table_n_labels(d->table), .finished = finished,
        .seed_bytes = d->seed_bytes};
}

/* Recomputes the seed cover when it is due (or forced) and records the run's course. Lock held. */
static void update_cover(struct cd_distill *d, bool force)
{
    if (!force && d->stats.execs < d->next_cover_execs)
        return;
    if (!table_cover(d))
        return; /* out of memory: the figures stay as they were */
    uint64_t gap = 2 * (uint64_t)cd_table_n_labels(d->table);
    d->next_cover_execs = d->stats.execs + (gap > COVER_EXECS ? gap : COVER_EXECS);
    record_point(d, cd_now_ns(), count_skippable(d->table));
}

/* Hands the table to the checkpoint callback when one is due (its pinned examples, the last
 * cover, are the output a resumed run starts from). Lock held. */
static void checkpoint(struct cd_distill *d, uint64_t now)
{
    if (!d->opts.checkpoint || !d->opts.checkpoint_ms || now < d->next_checkpoint_ns)
        return;
    d->opts.checkpoint(d->opts.checkpoint_ctx, d->table, d->stats.execs);
    d->next_checkpoint_ns = cd_now_ns() + d->opts.checkpoint_ms * 1000000ull;
}

/* Calls the progress callback, at most every PROGRESS_NS unless forced, and the checkpoint
 * callback when due. Lock held, so calls never overlap. */
static void progress(struct cd_distill *d, bool force)
{
    if (d->stats.select_only_bytes)
        update_cover(d, force);
    checkpoint(d, cd_now_ns());
    if (!d->opts.progress)
        return;
    uint64_t now = cd_now_ns();
    if (!force && now - d->last_progress_ns < PROGRESS_NS)
        return;
    d->last_progress_ns = now;
    struct cd_distill_progress p = {
        .phase = d->phase,
        .inputs = d->stats.inputs,
        .execs = d->stats.execs,
        .labels = cd_table_n_labels(d->table),
        .labels_finished = count_skippable(d->table),
        .best_examples = cd_table_n_examples(d->table),
        .best_bytes = cd_table_example_bytes(d->table),
        .elapsed_ns = now - d->start_ns,
        .seed_bytes = d->seed_bytes,
        .seeds = d->seeds,
        .select_only_bytes = d->stats.select_only_bytes,
        .cmin_bytes = d->stats.cmin_bytes,
    };
    d->opts.progress(d->opts.cb_ctx, &p);
}

/* Ends a phase: stamps the end time, reports progress, unlocks, and returns the first failure
 * into err, if any. Lock held on entry, released on return. */
static enum cd_status end_phase(struct cd_distill *d, struct cd_error *err)
{
    d->end_ns = cd_now_ns();
    progress(d, true);
    enum cd_status st = CD_OK;
    if (d->failed) {
        *err = d->fail_err;
        st = CD_FAILED;
    }
    unlock(d);
    return st;
}

/* Runs data on w's runner (lock not held), quick as cd_runner_ops.run has it. FAILED: the runner
 * failed, w->err says why. */
static enum cd_status execute(struct worker *w, const uint8_t *data, size_t len, bool quick,
                              enum cd_outcome *outcome)
{
    w->labels.n = 0;
    *outcome = CD_OUTCOME_OK;
    return w->d->ops->run(w->state, data, len, quick, &w->labels, outcome, &w->err);
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
        fail(d, &w->err);
        return false;
    }
    d->stats.labels_input -= input;
    return true;
}

/* Marks unstable every edge whose coverage labels differ between a and b, two runs of one input
 * (the labels of unstable edges already out of both), all at once. Lock held; false when out of
 * memory. */
static bool mark_differences(struct worker *w, const struct cd_labelset *a,
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
        fail(w->d, &w->err);
    }
    ok = ok && (!edges.n || mark_unstable(w, edges.v, edges.n));
    cd_labelset_release(&edges);
    return ok;
}

/* Runs data on w once more, its execution reserved: a recheck. Lock held, released while the
 * target runs. Returns 1 when the run ended normally (its labels in w->labels), 0 when there is
 * nothing to compare, -1 when the run is failing. */
static int run_again(struct worker *w, const uint8_t *data, size_t len)
{
    struct cd_distill *d = w->d;
    d->stats.recheck_execs++;
    unlock(d);
    enum cd_outcome outcome;
    enum cd_status st = execute(w, data, len, true, &outcome);
    lock(d);
    if (st >= CD_FAILED) {
        fail(d, &w->err);
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
static bool recheck(struct worker *w, const uint8_t *data, size_t len)
{
    struct cd_distill *d = w->d;
    struct cd_labelset first = w->labels;
    w->labels = w->again;
    int ran = run_again(w, data, len);
    w->again = w->labels;
    w->labels = first;
    if (ran <= 0)
        return ran == 0;
    if (!mark_differences(w, &w->labels, &w->again))
        return false;
    cd_table_strip_unstable(d->table, &w->labels);
    return true;
}

/* Offers w's last run to the table, without the labels of unstable edges; a run that ended
 * normally and shows a new coverage label is rechecked first. Lock held; released while a
 * recheck runs. */
static bool offer(struct worker *w, const uint8_t *data, size_t len, enum cd_outcome outcome,
                  const char *origin, const struct cd_table_example **stored)
{
    struct cd_distill *d = w->d;
    size_t improved = 0;
    bool check = outcome == CD_OUTCOME_OK;
    if (check) {
        cd_table_strip_unstable(d->table, &w->labels);
        check = !d->opts.first_pass_once || strcmp(d->phase, "first pass") != 0;
    }
    d->stats.crashes += outcome == CD_OUTCOME_CRASH;
    d->stats.timeouts += cd_outcome_timed_out(outcome);
    enum cd_status st =
        check ? cd_table_offer_if_known(d->table, data, len, &w->labels, origin, &improved,
                                        stored, &w->err)
              : cd_table_offer(d->table, data, len, &w->labels, origin, &improved, stored,
                               &w->err);
    if (st == CD_WARN) { /* a new label: run it again first, budget allowing */
        if (reserve_exec(d) && !recheck(w, data, len))
            return false;
        st = cd_table_offer(d->table, data, len, &w->labels, origin, &improved, stored, &w->err);
    }
    if (st != CD_OK) {
        fail(d, &w->err);
        return false;
    }
    w->changes += improved;
    if (improved)
        pthread_cond_broadcast(&d->cv);
    progress(d, false);
    return true;
}

/* Drops w's provisional reproducers. */
static void drop_provisional(struct worker *w)
{
    while (w->n_prov)
        free(w->prov[--w->n_prov].data);
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
    d->attempt_execs = opts->attempt_execs ? opts->attempt_execs : ATTEMPT_EXECS;
    d->phase = "first pass";
    d->start_ns = d->last_progress_ns = cd_now_ns();
    d->next_checkpoint_ns = d->start_ns + opts->checkpoint_ms * 1000000ull;
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
    pthread_mutex_init(&d->ing_mu, &spin);
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
        st = ops->open(runner_ctx, i, &w->state, err);
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
        d->ops->close(d->workers[i].state);
    for (unsigned i = 0; d->workers && i < d->jobs; i++) {
        cd_labelset_release(&d->workers[i].labels);
        cd_labelset_release(&d->workers[i].again);
        cd_labelset_release(&d->workers[i].whole_labels);
        free(d->workers[i].origin);
        free(d->workers[i].in_data);
        free(d->workers[i].in_name);
        drop_provisional(&d->workers[i]);
    }
    free(d->workers);
    free(d->pending);
    free(d->pending_origin);
    free(d->series);
    cd_table_free(d->table);
    cd_hashset_release(&d->whole_done);
    pthread_mutex_destroy(&d->mu);
    pthread_mutex_destroy(&d->ing_mu);
    pthread_cond_destroy(&d->cv);
    free(d);
}

/* First pass: counts the input, and runs and offers it on w when its content is new. Returns
 * false when the run is stopping (the input is then not counted). Lock not held. */
static bool take_input(struct worker *w, const uint8_t *data, size_t len, const char *name)
{
    struct cd_distill *d = w->d;
    struct cd_hash h = cd_hash_bytes(data, len);
    lock(d);
    if (should_stop(d)) {
        unlock(d);
        return false;
    }
    if (d->opts.shards > 1 && h.lo % d->opts.shards != d->opts.shard - 1) {
        d->stats.other_shards++;
        unlock(d);
        return true;
    }
    d->stats.inputs++;
    d->stats.input_bytes += len;
    int fresh = cd_table_seen_add(d->table, h);
    d->stats.duplicates += fresh == 0;
    if (fresh < 0) {
        cd_error_oom(&w->err, CD_FAILED, "out of memory in the seen-set");
        fail(d, &w->err);
    }
    bool go = fresh > 0 && reserve_exec(d);
    progress(d, false);
    unlock(d);
    if (!go)
        return fresh == 0;
    enum cd_outcome outcome;
    enum cd_status st = execute(w, data, len, false, &outcome);
    lock(d);
    if (st == CD_WARN) {
        d->stats.execs--; /* nothing ran */
        if (d->opts.warning) {
            char msg[CD_ERROR_MAX + 128];
            snprintf(msg, sizeof msg, "skipping '%.100s': %s", name, w->err.msg);
            d->opts.warning(d->opts.cb_ctx, msg);
        }
    } else {
        d->stats.first_pass_execs++;
        if (st >= CD_FAILED)
            fail(d, &w->err);
        else
            offer(w, data, len, outcome, name, NULL);
    }
    unlock(d);
    return true;
}

/* Copies in into w's own buffers, so that it outlives the next cd_ingest_next. */
static bool copy_input(struct worker *w, const struct cd_input *in)
{
    size_t name_len = strlen(in->name) + 1;
    if (in->size > w->in_cap || !w->in_data) {
        uint8_t *p = realloc(w->in_data, in->size ? in->size : 1);
        if (!p)
            return false;
        w->in_data = p;
        w->in_cap = in->size;
    }
    if (name_len > w->in_name_cap) {
        char *p = realloc(w->in_name, name_len);
        if (!p)
            return false;
        w->in_name = p;
        w->in_name_cap = name_len;
    }
    if (in->size)
        memcpy(w->in_data, in->data, in->size);
    memcpy(w->in_name, in->name, name_len);
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
        pthread_mutex_lock(&d->ing_mu);
        if (d->ing_done) {
            pthread_mutex_unlock(&d->ing_mu);
            return;
        }
        struct cd_input in;
        struct cd_error ierr;
        enum cd_status st = cd_ingest_next(d->ing, &in, &ierr);
        if (st == CD_OK && d->jobs > 1 && !copy_input(w, &in))
            st = cd_error_oom(&ierr, CD_FAILED, "out of memory copying '%s'", in.name);
        d->ing_done = st == CD_DONE || st >= CD_FAILED;
        pthread_mutex_unlock(&d->ing_mu);
        if (st == CD_DONE)
            return;
        if (st != CD_OK) {
            lock(d);
            if (st >= CD_FAILED)
                fail(d, &ierr);
            else if (d->opts.warning)
                d->opts.warning(d->opts.cb_ctx, ierr.msg);
            bool stop = should_stop(d);
            unlock(d);
            if (stop)
                return;
            continue;
        }
        if (!(d->jobs > 1 ? take_input(w, w->in_data, in.size, w->in_name)
                          : take_input(w, in.data, in.size, in.name)))
            return;
    }
}

static void *first_pass_thread(void *arg)
{
    first_pass(arg);
    return NULL;
}

/* Starts fn on every worker thread; returns how many started. */
static unsigned start_threads(struct cd_distill *d, void *(*fn)(void *), struct cd_error *err)
{
    unsigned n = 0;
    for (; n < d->jobs; n++) {
        int e = pthread_create(&d->workers[n].thread, NULL, fn, &d->workers[n]);
        if (e) {
            cd_error_set(err, CD_FAILED, "cannot start worker thread: %s", strerror(e));
            lock(d);
            fail(d, err);
            unlock(d);
            break;
        }
    }
    return n;
}

static void join_threads(struct cd_distill *d, unsigned n)
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

enum cd_status cd_distill_ingest_table(struct cd_distill *d, const struct cd_table *old,
                                       struct cd_error *err)
{
    cd_table_count_shown(d->table, true);
    d->phase = "first pass";
    for (const struct cd_table_example *e = cd_table_examples(old); e; e = e->next)
        if (e->refs && !take_input(&d->workers[0], e->data, e->len, e->origin))
            break;
    lock(d);
    enum cd_status st = CD_OK;
    if (d->failed) {
        *err = d->fail_err;
        st = CD_FAILED;
    }
    unlock(d);
    return st;
}

const struct cd_table *cd_distill_table(const struct cd_distill *d)
{
    return d->table;
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
    d->ing = ing;
    d->ing_done = false;
    d->phase = "first pass";
    if (d->jobs > 1)
        started = start_threads(d, first_pass_thread, err);
    else
        first_pass(&d->workers[0]);
    join_threads(d, started);
    d->ing = NULL;
    lock(d);
    d->stats.labels_input = cd_table_n_labels(d->table);
    cd_table_count_shown(d->table, false);
    /* The select-only output: pinned, so that the cover can always fall back on it. */
    if (!table_cover(d)) {
        struct cd_error e;
        cd_error_oom(&e, CD_FAILED, "out of memory choosing the select-only seeds");
        fail(d, &e);
    }
    d->stats.select_only_bytes = d->seed_bytes;
    d->stats.cmin_bytes = cmin_like(d);
    return end_phase(d, err);
}

/* The best example of label id, or NULL when the label went with an unstable edge. Lock held. */
static const struct cd_table_example *best_of(const struct cd_distill *d, uint32_t id)
{
    const struct cd_table_label *l = cd_table_find(d->table, id);
    return l ? l->best : NULL;
}

/* Whether the example w reduces whole (w->serial) is still the best of some label it started
 * with: a whole reduction holds while one is left. Lock held. */
static bool holds_whole(const struct worker *w)
{
    for (size_t i = 0; i < w->whole_labels.n; i++) {
        const struct cd_table_example *b = best_of(w->d, w->whole_labels.v[i]);
        if (b && b->serial == w->serial)
            return true;
    }
    return false;
}

/* Offers w's run of data during a reduction, st its status, and returns whether data became the
 * best of the label being reduced, or, reducing a whole example, of every label that example was
 * still best for (w->serial follows it then). A failed run fails the whole
 * run; an undelivered one (WARN) is not offered. Lock held. */
static bool offer_run(struct worker *w, enum cd_status st, const uint8_t *data, size_t len,
                      enum cd_outcome outcome)
{
    const struct cd_table_example *stored = NULL;
    if (st >= CD_FAILED)
        fail(w->d, &w->err);
    if (st != CD_OK || !offer(w, data, len, outcome, w->origin, &stored) || !stored ||
        (w->whole ? holds_whole(w) : best_of(w->d, w->label) != stored))
        return false;
    w->serial = stored->serial;
    w->help_adopted += w->helping;
    return true;
}

/* Keeps cand as the newest provisional reproducer of the label w reduces (the oldest is dropped
 * past PROV_KEEP). Returns false when out of memory. Lock not held. */
static bool keep_provisional(struct worker *w, const uint8_t *cand, size_t len)
{
    uint8_t *copy = cd_memdup(cand, len);
    if (!copy)
        return false;
    if (w->n_prov == PROV_KEEP) {
        free(w->prov[0].data);
        memmove(&w->prov[0], &w->prov[1], (PROV_KEEP - 1) * sizeof w->prov[0]);
        w->n_prov--;
    }
    w->prov[w->n_prov].data = copy;
    w->prov[w->n_prov++].len = len;
    return true;
}

/* Keeps cand, the last run on w (the timeout label alone), as the pending hang when it is
 * shorter than both that label's reproducer and the pending hang, and has the label reduced
 * again. Returns false when out of memory. Lock held. */
static bool keep_pending(struct worker *w, const uint8_t *cand, size_t len)
{
    struct cd_distill *d = w->d;
    const struct cd_table_label *l = cd_table_find(d->table, w->labels.v[0]);
    if (cd_table_shortlex(cand, len, l->best->data, l->best->len) >= 0 ||
        (d->pending && cd_table_shortlex(cand, len, d->pending, d->pending_len) >= 0))
        return true;
    uint8_t *copy = cd_memdup(cand, len);
    char *origin = strdup(w->origin);
    if (!copy || !origin) {
        free(copy);
        free(origin);
        return false;
    }
    free(d->pending);
    free(d->pending_origin);
    d->pending = copy;
    d->pending_len = len;
    d->pending_label = l->id;
    d->pending_origin = origin;
    cd_table_unfinish(d->table, l->id);
    return true;
}

/* A candidate that ran slow and was left unconfirmed: counted as a timeout, and kept as a
 * provisional reproducer when adopt (it would be the best of the label being reduced), else as
 * the pending hang when shorter (than the timeout label's reproducer). It is not offered:
 * unconfirmed, it may be merely slow. Returns whether it was adopted. Lock not held. */
static bool unconfirmed(struct worker *w, const uint8_t *cand, size_t len, bool adopt,
                        bool shorter)
{
    struct cd_distill *d = w->d;
    bool ok = !adopt || keep_provisional(w, cand, len);
    lock(d);
    d->stats.timeouts++;
    if (!adopt && ++w->timeouts >= TIMEOUT_CAP)
        w->capped = true;
    if (ok && shorter)
        ok = keep_pending(w, cand, len);
    if (!ok) {
        cd_error_oom(&w->err, CD_FAILED, "out of memory keeping a reproducer");
        fail(d, &w->err);
    }
    unlock(d);
    return adopt && ok;
}

/* Confirms w's provisional reproducers, newest first, offering each, until one holds the label
 * being reduced; drops the rest. Skipped when the run is stopping: the label keeps its last
 * confirmed reproducer. Lock not held. */
static void settle(struct worker *w)
{
    struct cd_distill *d = w->d;
    while (w->n_prov) {
        lock(d);
        bool go = !should_stop(d);
        unlock(d);
        if (!go)
            break;
        uint8_t *data = w->prov[w->n_prov - 1].data;
        size_t len = w->prov[--w->n_prov].len;
        enum cd_outcome outcome;
        enum cd_status st = execute(w, data, len, false, &outcome);
        lock(d);
        bool held = offer_run(w, st, data, len, outcome);
        unlock(d);
        free(data);
        if (held || st >= CD_FAILED)
            break;
    }
    drop_provisional(w);
}

/* Hands the pending hang of label id, if any, to w as a provisional reproducer and settles it,
 * before id's reduction starts. Lock not held. */
static void take_pending(struct worker *w, uint32_t id)
{
    struct cd_distill *d = w->d;
    lock(d);
    bool mine = d->pending && d->pending_label == id;
    if (mine) {
        w->prov[0].data = d->pending;
        w->prov[0].len = d->pending_len;
        w->n_prov = 1;
        free(w->origin);
        w->origin = d->pending_origin;
        w->label = id;
        d->pending = NULL;
        d->pending_origin = NULL;
    }
    unlock(d);
    if (mine)
        settle(w);
}

/* The reduction predicate: cand (strictly better than the label's best) is run unless already
 * seen, and holds when the table then has it as the label's best. */
static bool reduce_pred(void *ctx, const uint8_t *cand, size_t len)
{
    struct worker *w = ctx;
    struct cd_distill *d = w->d;
    struct cd_hash h = cd_hash_bytes(cand, len);
    enum cd_outcome outcome;
    lock(d);
    const struct cd_table_example *best = w->whole ? NULL : best_of(d, w->label);
    if (w->whole ? !holds_whole(w) : !best || best->serial != w->serial) {
        w->stale = true;
        unlock(d);
        return false;
    }
    if (cd_table_seen_has(d->table, h) || !reserve_exec(d)) {
        unlock(d);
        return false;
    }
    if (++w->execs >= w->attempt_cap)
        w->yielded = true;
    w->help_execs += w->helping;
    if (cd_table_seen_add(d->table, h) < 0) {
        cd_error_oom(&w->err, CD_FAILED, "out of memory in the seen-set");
        fail(d, &w->err);
        unlock(d);
        return false;
    }
    unlock(d);
    enum cd_status st = execute(w, cand, len, true, &outcome);
    if (st == CD_OK && outcome == CD_OUTCOME_SLOW && (w->whole || w->label != w->labels.v[0])) {
        /* A clean run that a busy machine stalled past the tight timeout would be lost: never
           offered unconfirmed, and never run again once seen. Outside the timeout label's own
           reduction (whose end confirms what it adopts), a slow candidate runs once more. */
        lock(d);
        bool go = reserve_exec(d);
        unlock(d);
        if (!go)
            return false;
        st = execute(w, cand, len, true, &outcome);
    }
    if (st == CD_OK && outcome == CD_OUTCOME_SLOW) {
        /* Confirming a hang costs the long limit, a second, so only the first hang of the run
           (its timeout label is new) is confirmed at once; afl-fuzz, too, confirms only new
           hangs. A timed-out run shows the timeout label alone, so any other hang can win
           nothing but that label in its own reduction: there it is adopted provisionally and
           the newest is confirmed when the reduction ends (settle), instead of a second per
           step. The shortest hang met while another label is reduced that is shorter than the
           reproducer is kept aside, and that reduction confirms it first (the seen-set would
           keep it from running it again). Unconfirmed runs are never offered: they may be
           merely slow. */
        uint32_t timeout = w->labels.v[0]; /* its only label */
        lock(d);
        struct cd_table_wins wins = cd_table_wins(d->table, cand, len, &w->labels, timeout);
        unlock(d);
        bool own = !w->whole && w->label == timeout;
        if (!wins.fresh)
            return unconfirmed(w, cand, len, wins.reducing && own, wins.reducing && !own);
        st = execute(w, cand, len, false, &outcome);
    }
    lock(d);
    bool held = offer_run(w, st, cand, len, outcome);
    if (st == CD_OK && cd_outcome_timed_out(outcome) && !held && ++w->timeouts >= TIMEOUT_CAP)
        w->capped = true;
    unlock(d);
    return held;
}

static bool reduce_stop(void *ctx)
{
    struct worker *w = ctx;
    if (w->stale || w->capped || w->yielded)
        return true;
    lock(w->d);
    const struct cd_table_label *l = w->whole ? NULL : cd_table_find(w->d->table, w->label);
    bool stop = should_stop(w->d) || (!w->whole && (!l || (w->helping && !l->busy)));
    unlock(w->d);
    return stop;
}

/* Runs e, a best example never run again since it was stored, once more, and marks unstable the
 * edges whose labels differ from those stored: a recheck (see recheck) runs an input at once,
 * and a target that seeds its hash tables from the clock (Lua) shows the same labels within one
 * second; this run comes later, when a reduction first takes e. Lock held, released while the
 * target runs; false when the run is failing. */
static bool verify(struct worker *w, const struct cd_table_example *e)
{
    struct cd_distill *d = w->d;
    cd_table_checked(d->table, e);
    if (e->outcome || !reserve_exec(d))
        return true;
    uint8_t *copy = cd_memdup(e->data, e->len);
    size_t len = e->len;
    w->again.n = 0;
    bool ok = copy != NULL;
    for (size_t i = 0; ok && i < e->labels.n; i++)
        ok = cd_labelset_push(&w->again, e->labels.v[i]);
    if (!ok) {
        free(copy);
        cd_error_oom(&w->err, CD_FAILED, "out of memory copying a best example");
        fail(d, &w->err);
        return false;
    }
    int ran = run_again(w, copy, len);
    free(copy);
    if (ran <= 0)
        return ran == 0;
    /* The run shows edges marked before it, and both copies those marked while it ran. */
    cd_table_strip_unstable(d->table, &w->labels);
    cd_table_strip_unstable(d->table, &w->again);
    return mark_differences(w, &w->labels, &w->again);
}

/* Reduces label id's best example until the reducer reaches a fixpoint on it, re-reading the
 * best when another worker moved it on. A donor (cd_table_donor) is reduced for the label first,
 * by deletions only. Marks the label finished when nothing was adopted for it, and its example
 * finished when this worker's own runs changed nothing in the table: what other workers change
 * meanwhile says nothing about this example, and counting it would keep examples unfinished
 * whenever more than one worker runs. Lock not held. */
static enum cd_status reduce_label(struct worker *w, uint32_t id)
{
    struct cd_distill *d = w->d;
    struct cd_reduce_target target = {reduce_pred, reduce_stop, w, false, false};
    take_pending(w, id);
    for (;;) {
        lock(d);
        const struct cd_table_label *dl = cd_table_find(d->table, id);
        if (!dl) { /* it went with an unstable edge */
            unlock(d);
            return CD_OK;
        }
        const struct cd_table_example *e = dl->best, *donor = NULL;
        if (!e->checked && !w->helping) {
            bool ok = verify(w, e);
            unlock(d);
            if (!ok)
                return CD_FAILED;
            continue; /* the label, or its best, may have gone meanwhile */
        }
        if (!w->helping) {
            donor = cd_table_donor(d->table, dl);
            cd_table_donor_taken(d->table, id, donor);
        }
        if (donor)
            e = donor;
        uint8_t *copy = cd_memdup(e->data, e->len);
        free(w->origin);
        w->origin = strdup(e->origin);
        if (!copy || !w->origin) {
            free(copy);
            cd_error_oom(&w->err, CD_FAILED, "out of memory copying a best example");
            fail(d, &w->err);
            unlock(d);
            return CD_FAILED;
        }
        size_t len = e->len;
        uint64_t start_serial = dl->best->serial, changes = w->changes;
        w->serial = start_serial;
        /* A later attempt walks again, through the seen-set, every candidate this one tried:
           by default an attempt may spend two executions per byte, so that the walks over a
           large example stay few. */
        w->attempt_cap = d->attempt_execs;
        if (!d->opts.attempt_execs && 2 * (uint64_t)len > w->attempt_cap)
            w->attempt_cap = 2 * (uint64_t)len;
        w->stale = w->capped = w->yielded = false;
        w->timeouts = w->execs = 0;
        unlock(d);

        uint8_t *out = NULL;
        size_t out_len;
        bool changed = false, stopped = false;
        target.deletions_only = donor != NULL;
        enum cd_status st = cd_reducer_run(donor ? &w->donor_red : &w->red, &target, copy, len,
                                           &out, &out_len, &changed, &stopped, &w->err);
        if (st < CD_FAILED)
            settle(w);
        else
            drop_provisional(w);
        free(copy);
        free(out);
        lock(d);
        if (st >= CD_FAILED)
            fail(d, &w->err);
        if (d->failed) {
            unlock(d);
            return CD_FAILED;
        }
        const struct cd_table_label *l = cd_table_find(d->table, id);
        if (!l) {
            unlock(d);
            return CD_OK;
        }
        if (donor) {
            /* Next, the label's own best: the new one the donor gave, or the old one unless
               that was reduced already. */
            bool won = l->best->serial != start_serial;
            w->donor_tries++;
            w->donor_wins += won;
            bool go_on = !should_stop(d) && (won || !cd_table_skippable(l));
            unlock(d);
            if (!go_on)
                return CD_OK;
            continue;
        }
        if (w->helping) {
            /* A helper marks nothing: the owner's reduction decides what is finished. */
            bool go_on = w->stale && !should_stop(d) && l->busy;
            w->helped = id;
            w->helped_serial = l->best->serial;
            unlock(d);
            if (!go_on)
                return CD_OK;
            continue;
        }
        if (w->stale && !should_stop(d)) {
            unlock(d);
            continue;
        }
        bool done = (st == CD_OK && !stopped) || (w->capped && !should_stop(d));
        d->capped_labels += w->capped;
        if (done && !changed && l->best->serial == start_serial &&
            !(d->pending && d->pending_label == id)) {
            cd_table_finish(d->table, id, w->changes == changes);
        }
        unlock(d);
        return CD_OK;
    }
}

/* A label's weight in the random choice: one, or in cover order the bytes of its best example
 * when the seed cover holds that example (plus one: never zero). */
static uint64_t weight_of(const struct cd_distill *d, const struct cd_table_label *l)
{
    return d->opts.order == CD_ORDER_COVER && l->best->pinned ? l->best->len + 1 : 1;
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
        if (to_reduce(d, l)) {
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
            if (!l->busy && to_reduce(d, l) && (int)cd_labels_is_outcome(l->id) == kind &&
                (!big || l->best->len > big->best->len))
                big = l;
        }
        return big;
    }
    if (d->opts.order == CD_ORDER_FRESH && kind == 0)
        for (size_t i = d->stats.labels_input; i < n; i++) {
            const struct cd_table_label *l = cd_table_label_at(d->table, i);
            if (!l->busy && to_reduce(d, l) && !cd_labels_is_outcome(l->id))
                return l;
        }
    uint64_t at = rng_below(d->rng, weights[kind]);
    for (size_t i = 0; i < n; i++) {
        const struct cd_table_label *l = cd_table_label_at(d->table, i);
        if (l->busy || !to_reduce(d, l) || (int)cd_labels_is_outcome(l->id) != kind)
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
        if (d->workers[i].whole && d->workers[i].serial == e->serial)
            return true;
    return false;
}

/* The examples whose whole reduction changed nothing, by serial (never reused): the engine's own
 * mark, kept out of the table. */
static struct cd_hash serial_key(const struct cd_table_example *e)
{
    return cd_hash_bytes(&e->serial, sizeof e->serial);
}

static bool whole_done(const struct cd_distill *d, const struct cd_table_example *e)
{
    return cd_hashset_has(&d->whole_done, serial_key(e));
}

/* Out of memory, the mark is lost and the example may be tried whole again: no harm. */
static void mark_whole_done(struct cd_distill *d, const struct cd_table_example *e)
{
    (void)cd_hashset_add(&d->whole_done, serial_key(e));
}

/* In bytes order, the largest coverage example best for some unskippable label that no whole
 * reduction left unchanged and nobody reduces whole (the first stored on ties); NULL when there
 * is none. An example whose labels are all skippable is marked done: every candidate that keeps
 * them all would have been adopted for each. Lock held. */
static const struct cd_table_example *choose_whole(struct cd_distill *d)
{
    if (d->opts.order != CD_ORDER_BYTES)
        return NULL;
    for (;;) {
        const struct cd_table_example *big = NULL;
        for (const struct cd_table_example *e = cd_table_examples(d->table); e; e = e->next)
            if (!e->outcome && e->refs && !whole_done(d, e) && e->len && !whole_busy(d, e) &&
                (!big || e->len > big->len))
                big = e;
        if (!big)
            return NULL;
        for (size_t i = 0; i < big->labels.n; i++) {
            const struct cd_table_label *l = cd_table_find(d->table, big->labels.v[i]);
            if (l->best == big && !l->busy && to_reduce(d, l))
                return big;
        }
        mark_whole_done(d, big);
    }
}

/* Reduces example e (chosen under the lock, which is held on entry and on return) whole: every
 * candidate must keep every label it is still best for. Nothing is marked finished: label
 * reductions decide that. The example it ends on is marked done when the reducer reached a
 * fixpoint. */
static void reduce_whole(struct worker *w, const struct cd_table_example *e)
{
    struct cd_distill *d = w->d;
    struct cd_reduce_target target = {reduce_pred, reduce_stop, w, false, true};
    w->whole_labels.n = 0;
    bool ok = true;
    for (size_t i = 0; i < e->labels.n && ok; i++)
        if (cd_table_find(d->table, e->labels.v[i])->best == e)
            ok = cd_labelset_push(&w->whole_labels, e->labels.v[i]);
    uint8_t *copy = cd_memdup(e->data, e->len);
    free(w->origin);
    w->origin = strdup(e->origin);
    if (!ok || !copy || !w->origin) {
        free(copy);
        cd_error_oom(&w->err, CD_FAILED, "out of memory copying a best example");
        fail(d, &w->err);
        return;
    }
    size_t len = e->len;
    w->whole = true;
    w->serial = e->serial;
    /* Short attempts: the largest example is chosen afresh after each, so that examples that
       new labels found while it shrank (as large as it was then) come next once it is smaller. */
    w->attempt_cap = d->opts.attempt_execs ? d->attempt_execs : WHOLE_EXECS;
    w->stale = w->capped = w->yielded = false;
    w->timeouts = w->execs = 0;
    d->in_flight++;
    unlock(d);
    uint8_t *out = NULL;
    size_t out_len;
    bool changed, stopped;
    enum cd_status st = cd_reducer_run(&w->red, &target, copy, len, &out, &out_len, &changed,
                                       &stopped, &w->err);
    free(copy);
    free(out);
    lock(d);
    if (st >= CD_FAILED)
        fail(d, &w->err);
    else if (!stopped && !w->stale && holds_whole(w))
        for (size_t i = 0; i < w->whole_labels.n; i++) {
            const struct cd_table_example *x = best_of(d, w->whole_labels.v[i]);
            if (x && x->serial == w->serial) {
                mark_whole_done(d, x);
                break;
            }
        }
    w->whole = false;
    d->in_flight--;
    pthread_cond_broadcast(&d->cv);
    progress(d, false);
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
        if (!o->active || o->helping || cd_labels_is_outcome(o->label))
            continue;
        const struct cd_table_label *l = cd_table_find(d->table, o->label);
        if (!l || !l->busy || !to_reduce(d, l) ||
            (w->helped == l->id && w->helped_serial == l->best->serial))
            continue;
        unsigned helpers = 0;
        for (unsigned j = 0; j < d->jobs; j++)
            helpers += d->workers[j].active && d->workers[j].helping &&
                       d->workers[j].label == o->label;
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
    lock(d);
    while (!should_stop(d) && !d->reduce_done) {
        const struct cd_table_example *e = choose_whole(d);
        if (e) {
            reduce_whole(w, e);
            continue;
        }
        const struct cd_table_label *l = choose_label(d);
        bool help = !l && d->in_flight > 0 && (l = choose_help(d, w)) != NULL;
        if (!l) {
            if (d->in_flight == 0) {
                d->reduce_done = true;
                pthread_cond_broadcast(&d->cv);
            } else {
                wait_a_while(d);
            }
            continue;
        }
        uint32_t id = l->id;
        if (!help)
            cd_table_claim(d->table, id);
        w->label = id;
        w->active = true;
        w->helping = help;
        w->help_tries += help;
        d->in_flight++;
        unlock(d);
        reduce_label(w, id);
        lock(d);
        if (!help)
            cd_table_release(d->table, id);
        w->active = w->helping = false;
        d->in_flight--;
        pthread_cond_broadcast(&d->cv);
        progress(d, false);
    }
    unlock(d);
    return NULL;
}

const char *cd_distill_order_name(enum cd_distill_order order)
{
    return order == CD_ORDER_BYTES     ? "bytes"
           : order == CD_ORDER_UNIFORM ? "uniform"
           : order == CD_ORDER_COVER   ? "cover"
                                       : "fresh";
}

enum cd_status cd_distill_reduce(struct cd_distill *d, struct cd_error *err)
{
    if (d->opts.no_reduce)
        return CD_OK;
    lock(d);
    d->phase = "reduce";
    progress(d, true);
    unlock(d);
    if (d->jobs == 1) {
        reduce_worker(&d->workers[0]);
    } else {
        unsigned started = start_threads(d, reduce_worker, err);
        join_threads(d, started);
    }
    lock(d);
    d->phase = "done";
    return end_phase(d, err);
}

enum cd_status cd_distill_result(const struct cd_distill *cd, struct cd_result *out,
                                 struct cd_error *err)
{
    struct cd_distill *d = (struct cd_distill *)cd; /* the lock is the only thing touched */
    lock(d);
    struct cd_result_stats stats = d->stats;
    stats.wall_ns = (d->end_ns ? d->end_ns : cd_now_ns()) - d->start_ns;
    stats.seen_forgotten = cd_table_seen_forgotten(d->table);
    stats.seen_bytes = cd_table_seen_bytes(d->table);
    stats.complete = d->reduce_done && !d->failed && !d->stats.stopped_by && !d->opts.no_reduce &&
                     count_skippable(d->table) == cd_table_n_labels(d->table);
    enum cd_status st = cd_result_build(out, d->table, &stats, err);
    if (st == CD_OK && d->n_series) {
        out->series = cd_memdup(d->series, d->n_series * sizeof *d->series);
        out->n_series = out->series ? d->n_series : 0;
    }
    unlock(d);
    return st;
}

char *cd_distill_pass_report(const struct cd_distill *d)
{
    struct cd_reduce_stats sum[CD_REDUCE_PASSES_MAX] = {{0}};
    unsigned n = cd_reduce_n_passes();
    for (unsigned i = 0; i < d->jobs; i++)
        for (unsigned p = 0; p < n; p++) {
            sum[p].execs += d->workers[i].red.stats[p].execs;
            sum[p].successes += d->workers[i].red.stats[p].successes;
            sum[p].bytes_removed += d->workers[i].red.stats[p].bytes_removed;
        }
    size_t cap = 128 * (n + 3), used = 0;
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
        tries += d->workers[i].donor_tries;
        wins += d->workers[i].donor_wins;
        for (unsigned p = 0; p < n; p++)
            execs += d->workers[i].donor_red.stats[p].execs;
    }
    used += (size_t)snprintf(s + used, cap - used,
                             "donors   %10llu candidates %8llu started %10llu improved their label\n",
                             (unsigned long long)execs, (unsigned long long)tries,
                             (unsigned long long)wins);
    if (used >= cap)
        return s;
    uint64_t help[3] = {0, 0, 0};
    for (unsigned i = 0; i < d->jobs; i++) {
        help[0] += d->workers[i].help_execs;
        help[1] += d->workers[i].help_tries;
        help[2] += d->workers[i].help_adopted;
    }
    used += (size_t)snprintf(s + used, cap - used,
                             "helpers  %10llu executions %8llu started %10llu adopted\n",
                             (unsigned long long)help[0], (unsigned long long)help[1],
                             (unsigned long long)help[2]);
    if (used >= cap)
        return s;
    snprintf(s + used, cap - used, "labels left at the timeout cap (%d timed-out runs): %llu\n",
             TIMEOUT_CAP, (unsigned long long)d->capped_labels);
    return s;
}
