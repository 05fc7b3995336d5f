/* Unit tests for the distillation engine with a pure runner: labels are, for each distinct byte
 * value b in the input, the coverage label of edge b+1 with the hit-count class of b's count,
 * plus crash:SIGSEGV when the input contains "CRASH". Under that function the best example of
 * every label is known exactly (b repeated the least count of its class; "CRASH"), so a complete
 * run can be checked label by label. */
#include "engine/cd_distill.h"
#include "common/cd_hash.h"
#include "ingest/cd_ingest.h"
#include "reduce/cd_reduce.h"
#include "table/cd_table.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>

static uint32_t crash_id, timeout_id;
/* The edge of the runner's flickering label (runner_ctx.flicker_every): past every byte's edge. */
#define FLICKER_EDGE 300u
#define LONG_EDGE 301u

static bool contains(const uint8_t *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (!memcmp(s + i, word, w))
            return true;
    return false;
}

static bool has_crash(const uint8_t *s, size_t n)
{
    return contains(s, n, "CRASH");
}

/* The pure label function; set is replaced, sorted and unique. */
static void label(const uint8_t *s, size_t n, struct cd_labelset *set)
{
    unsigned count[256] = {0};
    for (size_t i = 0; i < n; i++)
        count[s[i]]++;
    set->n = 0;
    for (unsigned b = 0; b < 256; b++)
        if (count[b])
            cd_labelset_push(set, cd_labels_edge(b + 1, (uint8_t)(count[b] > 255 ? 255 : count[b])));
    if (has_crash(s, n))
        cd_labelset_push(set, crash_id);
}

struct runner_ctx {
    bool hangs;                   /* an input containing "HANG" times out: CD_OUTCOME_SLOW when
                                     run quick, CD_OUTCOME_TIMEOUT when not */
    bool slow;                    /* also an input containing "SLOW" runs past the calibrated
                                     timeout, but does not hang: CD_OUTCOME_SLOW when run quick,
                                     clean when not */
    uint64_t slow_runs, confirmed; /* runs of such inputs, quick and not */
    volatile sig_atomic_t *stop;  /* set after stop_after runs, when non-NULL */
    uint64_t stop_after;
    uint64_t runs;                /* all workers; only counted with one worker */
    unsigned delay_us;            /* every run of an input of delay_from bytes or more takes at */
    size_t delay_from;            /* least this long */
    unsigned flicker_every;       /* when set, every clean run also shows edge FLICKER_EDGE, in */
    unsigned flicks;              /* class 1 or 2 by flicks (all workers' runs) / flicker_every */
    size_t long_from;             /* when set, an input this long or longer shows LONG_EDGE */
                                  /* alone, as a read of a large buffer does */
    unsigned flaky_wait;          /* when set, the first quick run of an input containing
                                     "FLAKY" waits for this many runs of the other workers (5 s
                                     at most), then crashes */
    atomic_bool flaky_done;
    unsigned opened, closed;
    atomic_ulong all_runs;        /* every worker's runs */
};

struct runner_state {
    struct runner_ctx *ctx;
    unsigned worker;
    const char *crash_state;      /* bug_ops: the crash state of the last run, or NULL */
};

static enum cd_status r_open(void *ctx, unsigned worker, void **state, struct cd_error *err)
{
    struct runner_state *s = malloc(sizeof *s);
    if (!s)
        return cd_error_set(err, CD_FAILED, "out of memory");
    s->ctx = ctx;
    s->worker = worker;
    s->ctx->opened++;
    *state = s;
    return CD_OK;
}

static enum cd_status r_run(void *state, uint32_t targets, const uint8_t *data, size_t len,
                            bool quick, struct cd_labelset *labels, enum cd_outcome *outcome,
                            struct cd_error *err)
{
    struct runner_state *s = state;
    (void)err;
    (void)targets;
    unsigned long before = atomic_fetch_add(&s->ctx->all_runs, 1);
    if (s->ctx->flaky_wait && quick && contains(data, len, "FLAKY") &&
        !atomic_exchange(&s->ctx->flaky_done, true)) {
        for (int ms = 0; ms < 5000 && atomic_load(&s->ctx->all_runs) < before + 1 +
                                                                 s->ctx->flaky_wait; ms++)
            nanosleep(&(struct timespec){0, 1000000L}, NULL);
        label(data, len, labels);
        cd_labelset_push(labels, crash_id);
        *outcome = CD_OUTCOME_CRASH;
        return CD_OK;
    }
    if (s->ctx->delay_us && len >= s->ctx->delay_from)
        nanosleep(&(struct timespec){0, 1000L * s->ctx->delay_us}, NULL);
    label(data, len, labels);
    if (s->ctx->long_from && len >= s->ctx->long_from) {
        labels->n = 0;
        cd_labelset_push(labels, cd_labels_edge(LONG_EDGE, 1));
    }
    *outcome = has_crash(data, len) ? CD_OUTCOME_CRASH : CD_OUTCOME_OK;
    bool hang = s->ctx->hangs && contains(data, len, "HANG");
    if (hang || (s->ctx->slow && contains(data, len, "SLOW"))) {
        s->ctx->slow_runs += quick;
        s->ctx->confirmed += !quick;
        if (quick || hang) { /* a run that timed out shows the timeout label alone */
            labels->n = 0;
            cd_labelset_push(labels, timeout_id);
            *outcome = quick ? CD_OUTCOME_SLOW : CD_OUTCOME_TIMEOUT;
        }
    }
    if (s->ctx->flicker_every && *outcome == CD_OUTCOME_OK) {
        unsigned n = __atomic_fetch_add(&s->ctx->flicks, 1, __ATOMIC_RELAXED);
        cd_labelset_push(labels, cd_labels_edge(FLICKER_EDGE, n / s->ctx->flicker_every % 2 + 1));
    }
    if (s->ctx->stop && ++s->ctx->runs >= s->ctx->stop_after)
        *s->ctx->stop = 1;
    return CD_OK;
}

static void r_close(void *state)
{
    struct runner_state *s = state;
    s->ctx->closed++;
    free(s);
}

static const struct cd_runner_ops pure_ops = {r_open, r_run, r_close, NULL};

/* Two crash states whose first bug-label probes are one id (found by search, as a decoy is). */
static const char *const state_a = "asan:heap-buffer-overflow READ\nf24";
static const char *const state_b = "asan:heap-buffer-overflow READ\nf6202";

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* As r_run, and an input holding "f6202" or "f24" crashes with state_b or state_a. */
static enum cd_status r_run_bugs(void *state, uint32_t targets, const uint8_t *data, size_t len,
                                 bool quick, struct cd_labelset *labels,
                                 enum cd_outcome *outcome, struct cd_error *err)
{
    struct runner_state *s = state;
    enum cd_status st = r_run(state, targets, data, len, quick, labels, outcome, err);
    s->crash_state = contains(data, len, "f6202") ? state_b
                     : contains(data, len, "f24") ? state_a
                                                  : NULL;
    if (s->crash_state) {
        *outcome = CD_OUTCOME_CRASH;
        cd_labelset_push(labels, crash_id);
        cd_labelset_push(labels, cd_labels_bug(s->crash_state));
        qsort(labels->v, labels->n, sizeof *labels->v, cmp_u32);
    }
    return st;
}

static const char *r_note(void *state, uint32_t id)
{
    struct runner_state *s = state;
    return s->crash_state && cd_labels_bug_is_of(id, s->crash_state) ? s->crash_state : NULL;
}

static const struct cd_runner_ops bug_ops = {r_open, r_run_bugs, r_close, r_note};

static const char *const inputs[] = {
    "hello world, hello distillation",
    "{\"key\": [1, 2, 3], \"other\": \"value\"}\n",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "line one\nline two\nline three xyz\n",
    "hello world, hello distillation", /* a duplicate */
    "before CRASH after",
    "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz!",
};
#define N_INPUTS (sizeof inputs / sizeof *inputs)

/* Writes n strings as files of a fresh directory; returns it (free with cd_test_rmdir). */
static char *write_files(const char *const *in, size_t n)
{
    char *dir = cd_test_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/in%02zu", dir, i);
        FILE *f = fopen(path, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fwrite(in[i], 1, strlen(in[i]), f);
        fclose(f);
    }
    return dir;
}

static char *write_inputs(void)
{
    return write_files(inputs, N_INPUTS);
}

/* Runs the engine over dir with opts; fills *res. Returns the reduce status. */
static enum cd_status distill(const char *dir, struct cd_distill_opts *opts, struct runner_ctx *rc,
                              struct cd_result *res, char **report)
{
    struct cd_distill *d = NULL;
    struct cd_ingest *ing = NULL;
    struct cd_error err;
    const char *ops[] = {dir};
    struct cd_ingest_opts io = {.operands = ops, .n_operands = 1};
    CU_ASSERT_EQUAL_FATAL(cd_distill_new(&d, opts, &pure_ops, rc, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_ingest_new(&ing, &io, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_distill_ingest(d, ing, &err), CD_OK);
    enum cd_status st = cd_distill_reduce(d, &err);
    CU_ASSERT_EQUAL(cd_distill_result(d, res, &err), CD_OK);
    if (report)
        *report = cd_distill_pass_report(d);
    cd_ingest_free(ing);
    cd_distill_free(d);
    CU_ASSERT_EQUAL(rc->opened, rc->closed);
    return st;
}

/* Every label any input shows is in the result, held by an example that shows it. */
static void check_covers_inputs(const struct cd_result *res)
{
    struct cd_labelset set = {0};
    for (size_t i = 0; i < N_INPUTS; i++) {
        label((const uint8_t *)inputs[i], strlen(inputs[i]), &set);
        for (size_t j = 0; j < set.n; j++) {
            bool found = false;
            for (size_t k = 0; k < res->n_labels && !found; k++)
                if (res->labels[k].id == set.v[j]) {
                    found = true;
                    CU_ASSERT(cd_labelset_has(&res->examples[res->labels[k].example].labels,
                                              set.v[j]));
                }
            CU_ASSERT(found);
        }
    }
    cd_labelset_release(&set);
}

/* The structure of a result: examples sorted by sha1 with the right names, labels sorted by id,
 * best sets consistent with the label list, reproducers exactly the crash examples, every example
 * best for some label or one of the select-only seeds. */
static void check_shape(const struct cd_result *res)
{
    struct cd_labelset set = {0};
    for (size_t i = 0; i < res->n_examples; i++) {
        const struct cd_result_example *e = &res->examples[i];
        char sha[41];
        cd_hash_sha1_hex(e->data, e->len, sha);
        CU_ASSERT_STRING_EQUAL(sha, e->sha1);
        if (i)
            CU_ASSERT(strcmp(res->examples[i - 1].sha1, e->sha1) < 0);
        CU_ASSERT(e->best.n > 0 || e->baseline); /* a select-only seed stays for the cover */
        CU_ASSERT_EQUAL(e->reproducer, has_crash(e->data, e->len));
        label(e->data, e->len, &set);
        CU_ASSERT_EQUAL(set.n, e->labels.n);
        CU_ASSERT(set.n == e->labels.n && !memcmp(set.v, e->labels.v, set.n * sizeof *set.v));
        CU_ASSERT(e->origin && e->origin[0]);
        for (size_t j = 0; j < e->best.n; j++)
            CU_ASSERT(cd_labelset_has(&e->labels, e->best.v[j]));
    }
    size_t best_total = 0;
    for (size_t i = 0; i < res->n_examples; i++)
        best_total += res->examples[i].best.n;
    CU_ASSERT_EQUAL(best_total, res->n_labels);
    for (size_t k = 0; k < res->n_labels; k++) {
        if (k)
            CU_ASSERT(res->labels[k - 1].id < res->labels[k].id);
        CU_ASSERT_FATAL(res->labels[k].example < res->n_examples);
        CU_ASSERT(cd_labelset_has(&res->examples[res->labels[k].example].best, res->labels[k].id));
    }
    cd_labelset_release(&set);
}

/* The least count in a hit-count class. */
static unsigned class_min(unsigned cls)
{
    static const unsigned mins[] = {0, 1, 2, 3, 4, 8, 16, 32, 128};
    return mins[cls];
}

/* A complete run: every label's best is its known minimum ("CRASH" and "HANG" for the crash and
 * timeout labels). */
static void check_minimal(const struct cd_result *res)
{
    for (size_t k = 0; k < res->n_labels; k++) {
        uint32_t id = res->labels[k].id;
        const struct cd_result_example *e = &res->examples[res->labels[k].example];
        CU_ASSERT(res->labels[k].finished);
        if (id == crash_id || id == timeout_id) {
            const char *want = id == crash_id ? "CRASH" : "HANG";
            CU_ASSERT(e->len == strlen(want) && !memcmp(e->data, want, e->len));
            CU_ASSERT(e->reproducer);
            continue;
        }
        unsigned b = (id >> 3) - 1, n = class_min((id & 7) + 1);
        CU_ASSERT_EQUAL(e->len, n);
        for (size_t i = 0; i < e->len; i++)
            CU_ASSERT_EQUAL(e->data[i], b);
    }
}

struct has_label {
    uint32_t id;
    struct cd_labelset set;
};

static bool pred_has(void *ctx, const uint8_t *cand, size_t len)
{
    struct has_label *h = ctx;
    label(cand, len, &h->set);
    return cd_labelset_has(&h->set, h->id);
}

static void test_distill_complete_and_minimal(void)
{
    char *dir = write_inputs();
    struct runner_ctx rc = {0};
    struct cd_distill_opts opts = {.seed = 1, .jobs = 1};
    struct cd_result res;
    char *report = NULL;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, &report), CD_OK);
    CU_ASSERT(res.stats.complete);
    CU_ASSERT_PTR_NULL(res.stats.stopped_by);
    CU_ASSERT_EQUAL(res.stats.inputs, N_INPUTS);
    CU_ASSERT_EQUAL(res.stats.duplicates, 1);
    CU_ASSERT_EQUAL(res.stats.first_pass_execs, N_INPUTS - 1);
    CU_ASSERT(res.stats.execs > res.stats.first_pass_execs);
    CU_ASSERT(res.stats.crashes >= 1);
    CU_ASSERT(res.stats.labels_input > 0);
    CU_ASSERT(res.n_labels > res.stats.labels_input); /* reduction found new labels (byte 0) */
    check_shape(&res);
    check_covers_inputs(&res);
    check_minimal(&res);
    /* re-running the reducer on any label's best finds nothing */
    struct has_label h = {0};
    struct cd_reducer red = {0};
    struct cd_reduce_target t = {pred_has, NULL, &h, false, false};
    for (size_t k = 0; k < res.n_labels; k++) {
        const struct cd_result_example *e = &res.examples[res.labels[k].example];
        uint8_t *out;
        size_t len;
        bool changed = true, stopped = true;
        struct cd_error err;
        h.id = res.labels[k].id;
        CU_ASSERT_EQUAL(cd_reducer_run(&red, &t, e->data, e->len, &out, &len, &changed, &stopped,
                                       &err),
                        CD_OK);
        CU_ASSERT(!changed && !stopped);
        free(out);
    }
    cd_labelset_release(&h.set);
    CU_ASSERT_PTR_NOT_NULL(report);
    CU_ASSERT_PTR_NOT_NULL(report ? strstr(report, "blocks") : NULL);
    CU_ASSERT_PTR_NOT_NULL(report ? strstr(report, "donors") : NULL);
    free(report);
    cd_result_release(&res);
    CU_ASSERT_EQUAL(res.n_examples, 0);
    cd_test_rmdir(dir);
}

/* Every order reaches the same kind of end: complete, every input label kept, every best
 * minimal. The order changes only how fast the seeds shrink. */
static void test_distill_every_order_completes(void)
{
    char *dir = write_inputs();
    const enum cd_distill_order orders[] = {CD_ORDER_COVER, CD_ORDER_FRESH, CD_ORDER_UNIFORM,
                                            CD_ORDER_BYTES};
    for (size_t i = 0; i < sizeof orders / sizeof *orders; i++) {
        struct runner_ctx rc = {0};
        struct cd_distill_opts opts = {.seed = 7, .jobs = 1, .order = orders[i]};
        struct cd_result res;
        CU_ASSERT_EQUAL_FATAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
        CU_ASSERT(res.stats.complete);
        CU_ASSERT(res.n_labels > res.stats.labels_input);
        check_shape(&res);
        check_covers_inputs(&res);
        check_minimal(&res);
        cd_result_release(&res);
    }
    CU_ASSERT_STRING_EQUAL(cd_distill_order_name(CD_ORDER_COVER), "cover");
    CU_ASSERT_STRING_EQUAL(cd_distill_order_name(CD_ORDER_FRESH), "fresh");
    CU_ASSERT_STRING_EQUAL(cd_distill_order_name(CD_ORDER_UNIFORM), "uniform");
    CU_ASSERT_STRING_EQUAL(cd_distill_order_name(CD_ORDER_BYTES), "bytes");
    cd_test_rmdir(dir);
}

/* Two results are identical: same examples (by name and bytes), labels and counters. */
static void check_same(const struct cd_result *a, const struct cd_result *b)
{
    CU_ASSERT_EQUAL_FATAL(a->n_examples, b->n_examples);
    CU_ASSERT_EQUAL_FATAL(a->n_labels, b->n_labels);
    CU_ASSERT_EQUAL(a->stats.execs, b->stats.execs);
    for (size_t i = 0; i < a->n_examples; i++) {
        CU_ASSERT_STRING_EQUAL(a->examples[i].sha1, b->examples[i].sha1);
        CU_ASSERT_STRING_EQUAL(a->examples[i].origin, b->examples[i].origin);
    }
    for (size_t k = 0; k < a->n_labels; k++) {
        CU_ASSERT_EQUAL(a->labels[k].id, b->labels[k].id);
        CU_ASSERT_EQUAL(a->labels[k].example, b->labels[k].example);
        CU_ASSERT_EQUAL(a->labels[k].finished, b->labels[k].finished);
    }
}

static void test_distill_deterministic_seed(void)
{
    char *dir = write_inputs();
    /* a budget cut makes the result depend on every label choice up to it */
    struct cd_distill_opts opts = {.seed = 42, .jobs = 1, .max_execs = 150};
    struct runner_ctx rc1 = {0}, rc2 = {0}, rc3 = {0};
    struct cd_result a, b, c;
    distill(dir, &opts, &rc1, &a, NULL);
    distill(dir, &opts, &rc2, &b, NULL);
    check_same(&a, &b);
    CU_ASSERT_EQUAL(a.stats.execs, 150);
    CU_ASSERT_STRING_EQUAL(a.stats.stopped_by, "max-execs");
    CU_ASSERT(!a.stats.complete);
    check_shape(&a);
    check_covers_inputs(&a);
    /* complete runs with other seeds reach the same minima */
    opts.seed = 7;
    opts.max_execs = 0;
    distill(dir, &opts, &rc3, &c, NULL);
    CU_ASSERT(c.stats.complete);
    check_minimal(&c);
    cd_result_release(&a);
    cd_result_release(&b);
    cd_result_release(&c);
    cd_test_rmdir(dir);
}

static void test_distill_no_reduce(void)
{
    char *dir = write_inputs();
    struct runner_ctx rc = {0};
    struct cd_distill_opts opts = {.seed = 1, .jobs = 1, .no_reduce = true};
    struct cd_result res;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
    /* each input that showed a new label ran twice: the first does, the duplicate does not */
    CU_ASSERT_EQUAL(res.stats.first_pass_execs, N_INPUTS - 1);
    CU_ASSERT(res.stats.recheck_execs >= 1 && res.stats.recheck_execs < N_INPUTS - 1);
    CU_ASSERT_EQUAL(res.stats.execs, res.stats.first_pass_execs + res.stats.recheck_execs);
    CU_ASSERT_EQUAL(res.n_unstable, 0);
    CU_ASSERT(!res.stats.complete);
    CU_ASSERT_EQUAL(res.n_labels, res.stats.labels_input);
    check_shape(&res);
    check_covers_inputs(&res);
    /* every example is one of the inputs, as it was */
    for (size_t i = 0; i < res.n_examples; i++) {
        bool found = false;
        for (size_t j = 0; j < N_INPUTS; j++)
            found |= strlen(inputs[j]) == res.examples[i].len &&
                     !memcmp(inputs[j], res.examples[i].data, res.examples[i].len);
        CU_ASSERT(found);
    }
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

static void test_distill_workers(void)
{
    char *dir = write_inputs();
    for (unsigned jobs = 2; jobs <= 4; jobs += 2) {
        struct runner_ctx rc = {0};
        struct cd_distill_opts opts = {.seed = 3, .jobs = jobs};
        struct cd_result res;
        CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
        CU_ASSERT_EQUAL(rc.opened, jobs);
        CU_ASSERT(res.stats.complete);
        CU_ASSERT_EQUAL(res.stats.duplicates, 1);
        CU_ASSERT_EQUAL(res.stats.first_pass_execs, N_INPUTS - 1);
        check_shape(&res);
        check_covers_inputs(&res);
        check_minimal(&res);
        cd_result_release(&res);
    }
    cd_test_rmdir(dir);
}

/* What the checkpoint test's callback saw. */
struct checkpoints {
    struct runner_ctx *rc;
    atomic_int in_flight;
    int overlapped, calls, saved, progressed;
    int report_waited, report_progressed; /* a report waited, and whether others ran then */
};

/* Waits (up to 10 s) for the other worker to run five more inputs; whether it did. */
static bool others_run(struct runner_ctx *rc)
{
    unsigned long start = atomic_load(&rc->all_runs);
    for (int i = 0; i < 10000 && atomic_load(&rc->all_runs) < start + 5; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    return atomic_load(&rc->all_runs) >= start + 5;
}

/* A progress report of the first pass, with inputs left to run, waits for the other worker
 * once, as on_checkpoint does. */
static void on_progress(void *ctx, const struct cd_distill_progress *p)
{
    struct checkpoints *c = ctx;
    if (!c->report_waited && strcmp(p->phase, "first pass") == 0 && p->inputs > 0 &&
        p->inputs < 200) {
        c->report_waited = 1;
        c->report_progressed = others_run(c->rc);
    }
}

/* A checkpoint that waits (up to 10 s) for the other worker to run five more inputs: it can
 * only when the checkpoint holds no lock. Each snapshot must save to a state that loads. */
static void on_checkpoint(void *ctx, struct cd_table_snapshot *snap, uint64_t execs)
{
    struct checkpoints *c = ctx;
    (void)execs;
    c->overlapped += atomic_fetch_add(&c->in_flight, 1) != 0;
    if (c->calls++ == 0)
        c->progressed = others_run(c->rc);
    struct cd_table_meta meta = {"", "s", 1, 0, 0, false, 0, 0, 0}, back;
    struct cd_error err;
    uint8_t *buf = NULL;
    size_t len = 0;
    struct cd_table *t = NULL;
    if (cd_table_snapshot_save(snap, &meta, &buf, &len, &err) == CD_OK &&
        cd_table_load(&t, &back, buf, len, 0, &err) == CD_OK) {
        c->saved++;
        cd_table_meta_release(&back);
    }
    cd_table_free(t);
    free(buf);
    atomic_fetch_sub(&c->in_flight, 1);
}

/* Checkpoints and progress reports run off the workers' path: with two workers, the other one
 * carries on while a checkpoint writes or a report prints; checkpoints never overlap, and every
 * snapshot saves whole. */
static void test_distill_checkpoints_off_the_lock(void)
{
    const char *many[300];
    char text[300][32];
    for (int i = 0; i < 300; i++) {
        snprintf(text[i], sizeof text[i], "input %d %s", i, i % 2 ? "odd" : "even");
        many[i] = text[i];
    }
    char *dir = write_files(many, 300);
    /* a first pass of about half a second, so that a report (every 250 ms) comes within it */
    struct runner_ctx rc = {.delay_us = 3000};
    struct checkpoints c = {.rc = &rc};
    struct cd_distill_opts opts = {.seed = 3, .jobs = 2, .no_reduce = true,
                                   .checkpoint = on_checkpoint,
                                   .checkpoint_ms = 1, .checkpoint_ctx = &c,
                                   .progress = on_progress, .cb_ctx = &c};
    struct cd_result res;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
    CU_ASSERT(c.calls >= 1);
    CU_ASSERT_EQUAL(c.saved, c.calls);
    CU_ASSERT_EQUAL(c.overlapped, 0);
    CU_ASSERT_TRUE(c.progressed);
    CU_ASSERT_TRUE(c.report_progressed); /* so do progress reports */
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

static void test_distill_budgets_and_stop(void)
{
    char *dir = write_inputs();
    volatile sig_atomic_t stop = 0;
    struct runner_ctx rc = {.stop = &stop, .stop_after = 40};
    struct cd_distill_opts opts = {.seed = 5, .jobs = 1, .stop = &stop};
    struct cd_result res;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
    CU_ASSERT_STRING_EQUAL(res.stats.stopped_by, "signal");
    CU_ASSERT_EQUAL(res.stats.execs, 40);
    CU_ASSERT(!res.stats.complete);
    check_shape(&res);
    check_covers_inputs(&res);
    cd_result_release(&res);

    /* a stop during the first pass: fewer inputs run, still a valid result */
    stop = 0;
    struct runner_ctx rc2 = {.stop = &stop, .stop_after = 2};
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc2, &res, NULL), CD_OK);
    CU_ASSERT_EQUAL(res.stats.execs, 2);
    CU_ASSERT_STRING_EQUAL(res.stats.stopped_by, "signal");
    check_shape(&res);
    cd_result_release(&res);

    /* max_execs with workers */
    struct runner_ctx rc3 = {0};
    struct cd_distill_opts o3 = {.seed = 5, .jobs = 3, .max_execs = 60};
    CU_ASSERT_EQUAL(distill(dir, &o3, &rc3, &res, NULL), CD_OK);
    CU_ASSERT_EQUAL(res.stats.execs, 60);
    CU_ASSERT_STRING_EQUAL(res.stats.stopped_by, "max-execs");
    check_shape(&res);
    check_covers_inputs(&res);
    cd_result_release(&res);

    /* max_execs inside the first pass with workers reading the inputs in turn */
    struct runner_ctx rc5 = {0};
    struct cd_distill_opts o5 = {.seed = 5, .jobs = 2, .max_execs = 3};
    CU_ASSERT_EQUAL(distill(dir, &o5, &rc5, &res, NULL), CD_OK);
    CU_ASSERT_EQUAL(res.stats.execs, 3);
    CU_ASSERT_EQUAL(res.stats.first_pass_execs + res.stats.recheck_execs, 3);
    CU_ASSERT(res.stats.inputs >= res.stats.first_pass_execs && res.stats.inputs < N_INPUTS);
    CU_ASSERT_STRING_EQUAL(res.stats.stopped_by, "max-execs");
    check_shape(&res);
    cd_result_release(&res);

    /* max_time: 1 ms is over before the reduction gets far */
    struct runner_ctx rc4 = {0};
    struct cd_distill_opts o4 = {.seed = 5, .jobs = 1, .max_time_ms = 1};
    distill(dir, &o4, &rc4, &res, NULL);
    CU_ASSERT(!res.stats.complete);
    CU_ASSERT_STRING_EQUAL(res.stats.stopped_by, "max-time");
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

/* distill(), started from a saved table: adopted when warm, else its examples run as inputs
 * first. *saved gets the table at the end, saved (owned). */
static void distill_from(const char *dir, struct cd_distill_opts *opts, const uint8_t *state,
                         size_t state_len, bool warm, struct cd_result *res, uint8_t **saved,
                         size_t *saved_len)
{
    struct runner_ctx rc = {0};
    struct cd_distill *d = NULL;
    struct cd_ingest *ing = NULL;
    struct cd_table *t = NULL;
    struct cd_table_meta meta = {"", "s", 1, 0, 0, false, 0, 0, 0}, back;
    struct cd_error err;
    const char *ops[] = {dir};
    struct cd_ingest_opts io = {.operands = ops, .n_operands = 1};
    CU_ASSERT_EQUAL_FATAL(cd_distill_new(&d, opts, &pure_ops, &rc, &err), CD_OK);
    if (state) {
        CU_ASSERT_EQUAL_FATAL(cd_table_load(&t, &back, state, state_len, 0, &err), CD_OK);
        cd_table_meta_release(&back);
        if (warm) {
            cd_distill_adopt_table(d, t);
        } else {
            CU_ASSERT_EQUAL(cd_distill_ingest_table(d, t, &err), CD_OK);
            cd_table_free(t);
        }
    }
    CU_ASSERT_EQUAL_FATAL(cd_ingest_new(&ing, &io, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_distill_ingest(d, ing, &err), CD_OK);
    cd_distill_reduce(d, &err);
    CU_ASSERT_EQUAL(cd_distill_result(d, res, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_table_save(cd_distill_table(d), &meta, saved, saved_len, &err), CD_OK);
    cd_ingest_free(ing);
    cd_distill_free(d);
}

/* A run stopped early and started again from its saved table runs no input twice and completes
 * with minimal bests; a warm run after completion runs nothing and changes nothing; a table of
 * another target runs its examples as inputs. */
static void test_distill_warm_start(void)
{
    char *dir = write_inputs(), *none = write_files(inputs, 0);
    struct cd_distill_opts stopped = {.seed = 2, .jobs = 1, .max_execs = 30};
    struct cd_distill_opts opts = {.seed = 2, .jobs = 1};
    struct cd_result a, b, c, e;
    uint8_t *sa = NULL, *sb = NULL, *sc = NULL, *se = NULL;
    size_t la = 0, lb = 0, lc = 0, le = 0;
    distill_from(dir, &stopped, NULL, 0, true, &a, &sa, &la);
    CU_ASSERT(!a.stats.complete);
    distill_from(dir, &opts, sa, la, true, &b, &sb, &lb);
    CU_ASSERT(b.stats.complete);
    CU_ASSERT_EQUAL(b.stats.first_pass_execs, 0);
    CU_ASSERT_EQUAL(b.stats.duplicates, N_INPUTS);
    CU_ASSERT(b.n_labels >= a.n_labels);
    check_shape(&b);
    check_covers_inputs(&b);
    check_minimal(&b);
    distill_from(dir, &opts, sb, lb, true, &c, &sc, &lc);
    CU_ASSERT(c.stats.complete);
    CU_ASSERT_EQUAL(c.stats.execs, 0);
    CU_ASSERT_EQUAL_FATAL(c.n_labels, b.n_labels);
    for (size_t i = 0; i < b.n_labels; i++) {
        CU_ASSERT_EQUAL(c.labels[i].id, b.labels[i].id);
        CU_ASSERT_STRING_EQUAL(c.examples[c.labels[i].example].sha1,
                               b.examples[b.labels[i].example].sha1);
    }
    /* no operand inputs at all: the old examples alone bring every label back */
    distill_from(none, &opts, sb, lb, false, &e, &se, &le);
    CU_ASSERT(e.stats.first_pass_execs > 0);
    CU_ASSERT(e.stats.complete);
    for (size_t i = 0; i < b.n_labels; i++) {
        bool found = false;
        for (size_t k = 0; k < e.n_labels && !found; k++)
            found = e.labels[k].id == b.labels[i].id;
        CU_ASSERT(found);
    }
    check_minimal(&e);
    free(sa);
    free(sb);
    free(sc);
    free(se);
    cd_result_release(&a);
    cd_result_release(&b);
    cd_result_release(&c);
    cd_result_release(&e);
    cd_test_rmdir(dir);
    cd_test_rmdir(none);
}

/* A label that flickers: the runner's edge FLICKER_EDGE changes class by a count of runs. Flipping
 * at every run, a new find's second run (the recheck) shows it; flipping every 3,000 runs (of
 * about 50,000), two runs in a row nearly always agree, as with a target that seeds its hashes
 * from the clock, and the run of a best example when a reduction first takes it shows it (without
 * that run this case fails). Either way the edge is found, none of its labels is left in the
 * result, and the run completes with every other label minimal. */
/* No label of FLICKER_EDGE is left in res, neither as a label nor in an example's labels. */
static void check_no_flicker(const struct cd_result *res)
{
    for (size_t k = 0; k < res->n_labels; k++)
        CU_ASSERT(cd_labels_is_outcome(res->labels[k].id) ||
                  cd_labels_slot(res->labels[k].id) != FLICKER_EDGE);
    for (size_t k = 0; k < res->n_examples; k++)
        for (size_t j = 0; j < res->examples[k].labels.n; j++)
            CU_ASSERT(cd_labels_slot(res->examples[k].labels.v[j]) != FLICKER_EDGE);
}

/* A recheck lets the lock go while the input runs again: an edge another worker marks unstable
 * meanwhile must not come back with the input, even when its second run crashed and there was
 * nothing to compare. The first input's second run waits for the other worker to find the
 * flickering edge (its first new input's recheck does), then crashes. Before, the first input was
 * stored with the edge's label then, a label of an unstable edge in the result; once a later
 * marking took its record, the seed cover indexed past the labels and a Lua run died. */
static void test_distill_unstable_during_recheck(void)
{
    const char *const in[] = {"FLAKY one", "second input", "third one here", "and a fourth",
                              "fifth, last"};
    char *dir = write_files(in, sizeof in / sizeof *in);
    struct runner_ctx rc = {.flicker_every = 1, .flaky_wait = 4};
    struct cd_distill_opts opts = {.seed = 13, .jobs = 2, .no_reduce = true};
    struct cd_result res;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
    CU_ASSERT(atomic_load(&rc.flaky_done));
    CU_ASSERT_EQUAL(res.n_unstable, 1);
    check_no_flicker(&res);
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

static void test_distill_unstable_edge(void)
{
    char *dir = write_inputs();
    const unsigned every[] = {1, 3000};
    for (size_t i = 0; i < sizeof every / sizeof *every; i++)
        for (unsigned jobs = 1; jobs <= 2; jobs++) {
            struct runner_ctx rc = {.flicker_every = every[i]};
            struct cd_distill_opts opts = {.seed = 13, .jobs = jobs};
            struct cd_result res;
            CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
            CU_ASSERT(res.stats.complete);
            CU_ASSERT_EQUAL(res.n_unstable, 1);
            CU_ASSERT(res.n_unstable && res.unstable[0] == FLICKER_EDGE);
            CU_ASSERT(res.stats.recheck_execs > 0);
            check_no_flicker(&res);
            check_shape(&res);
            check_covers_inputs(&res);
            check_minimal(&res);
            cd_result_release(&res);
        }
    cd_test_rmdir(dir);
}

/* Attempts cut after a few executions still reach the same minima: each later attempt carries on
 * where the last stopped. */
static void test_distill_short_attempts_complete(void)
{
    char *dir = write_inputs();
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        struct runner_ctx rc = {0};
        struct cd_distill_opts opts = {.seed = 11, .jobs = jobs, .attempt_execs = 3};
        struct cd_result res;
        CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
        CU_ASSERT(res.stats.complete);
        check_shape(&res);
        check_covers_inputs(&res);
        check_minimal(&res);
        cd_result_release(&res);
    }
    cd_test_rmdir(dir);
}

/* A whole attempt that leaves its example as it was moves the whole reductions on: 128 'a's,
 * the largest input, lose their label to any cut, and 100 'b's, which 32 keep, are reduced whole
 * within a budget that the first would take in full if it were chosen again after each attempt. */
static void test_distill_resisting_example_is_left(void)
{
    char a[129], b[101];
    memset(a, 'a', 128);
    a[128] = 0;
    memset(b, 'b', 100);
    b[100] = 0;
    const char *const two[] = {a, b};
    char *dir = write_files(two, 2);
    struct runner_ctx rc = {0};
    struct cd_distill_opts opts = {.seed = 3, .jobs = 1, .attempt_execs = 3, .max_execs = 80};
    struct cd_result res;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
    CU_ASSERT(!res.stats.complete);
    uint32_t bs = cd_labels_edge('b' + 1, 100);
    bool shrunk = false;
    for (size_t k = 0; k < res.n_examples; k++)
        for (size_t j = 0; j < res.examples[k].best.n; j++)
            if (res.examples[k].best.v[j] == bs)
                shrunk = res.examples[k].len < 100;
    CU_ASSERT(shrunk);
    check_shape(&res);
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

/* A label that only inputs of 20,000 bytes or more show (as libpng's reads of 8 KiB of image data
 * do) cannot be reduced, and its example no cut keeps: its attempts each end after a run of
 * executions that adopt nothing, as idle ones, and the run still ends complete, that label at its
 * input and every other at its minimum. At two executions per byte, the first attempt would take
 * every execution until its fixpoint (1,972). */
static void test_distill_size_bound_label_yields(void)
{
    static char big[20001];
    static char pairs[3][81];
    const char *in[4];
    for (unsigned i = 0; i < 20000; i++) /* varied, so that cuts at different places differ */
        big[i] = (char)('0' + i * 7919u % 10);
    in[0] = big;
    for (unsigned i = 0; i < 3; i++) {
        memset(pairs[i], 'a' + (int)i, 40);
        memset(pairs[i] + 40, 'A' + (int)i, 40);
        in[i + 1] = pairs[i];
    }
    char *dir = write_files(in, 4);
    struct runner_ctx rc = {.long_from = 20000};
    struct cd_distill_opts opts = {.seed = 1, .jobs = 1};
    struct cd_result res;
    char *report = NULL;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, &report), CD_OK);
    CU_ASSERT(res.stats.complete);
    uint32_t long_id = cd_labels_edge(LONG_EDGE, 1);
    size_t at_minimum = 0;
    for (size_t k = 0; k < res.n_examples; k++) {
        const struct cd_result_example *e = &res.examples[k];
        if (cd_labelset_has(&e->best, long_id))
            CU_ASSERT(e->len == 20000 && memcmp(e->data, big, 20000) == 0);
        for (unsigned i = 0; i < 3; i++)
            for (unsigned c = 0; c < 2; c++)
                at_minimum += e->len == 32 && cd_labelset_has(&e->best, cd_labels_edge(
                                                  (unsigned char)pairs[i][c * 40] + 1u, 40));
    }
    CU_ASSERT_EQUAL(at_minimum, 6);
    const char *line = report ? strstr(report, "attempts") : NULL;
    unsigned long long attempts = 0, idle = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT_EQUAL(sscanf(line, "attempts %llu at labels %llu idle", &attempts, &idle), 2);
    CU_ASSERT(idle >= 3);
    CU_ASSERT(attempts >= idle);
    free(report);
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

/* One input label, whose reduction takes a while: the worker that does not hold it helps, and
 * every label still ends at its minimum, finished by its owner. */
static void test_distill_idle_worker_helps(void)
{
    char text[301];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = 0;
    const char *const one[] = {text};
    char *dir = write_files(one, 1);
    struct runner_ctx rc = {.delay_us = 200, .delay_from = 100};
    struct cd_distill_opts opts = {.seed = 1, .jobs = 2};
    struct cd_result res;
    char *report = NULL;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, &report), CD_OK);
    CU_ASSERT(res.stats.complete);
    check_minimal(&res);
    const char *line = report ? strstr(report, "helpers") : NULL;
    unsigned long long execs = 0, started = 0, adopted = 0;
    CU_ASSERT_PTR_NOT_NULL_FATAL(line);
    CU_ASSERT_EQUAL(sscanf(line, "helpers %llu executions %llu started %llu adopted", &execs,
                           &started, &adopted), 3);
    CU_ASSERT(started >= 1);
    CU_ASSERT(execs >= 1);
    free(report);
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

static void test_distill_empty_input_set(void)
{
    char *dir = cd_test_mkdtemp();
    struct runner_ctx rc = {0};
    struct cd_distill_opts opts = {.seed = 1};
    struct cd_result res;
    CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
    CU_ASSERT_EQUAL(res.n_examples, 0);
    CU_ASSERT_EQUAL(res.n_labels, 0);
    CU_ASSERT_EQUAL(res.stats.execs, 0);
    CU_ASSERT(res.stats.complete);
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

/* Runs a complete distillation of the n inputs with hangs on; checks that every label ends at its
 * known minimum (the timeout label at "HANG", coverage labels at clean examples) and returns the
 * runner's counts in *rc. */
static void distill_hangs(const char *const *in, size_t n, struct runner_ctx *rc)
{
    char *dir = write_files(in, n);
    *rc = (struct runner_ctx){.hangs = true};
    /* label by label, as the cases below describe: cover order would first shrink the clean
       examples whole, and "HAN()Gqqqqqqqq" by block deletions that never meet the hang */
    struct cd_distill_opts opts = {.seed = 3, .jobs = 1, .order = CD_ORDER_UNIFORM};
    struct cd_result res;
    CU_ASSERT_EQUAL(distill(dir, &opts, rc, &res, NULL), CD_OK);
    CU_ASSERT(res.stats.complete);
    check_minimal(&res);
    bool seen_timeout = false;
    for (size_t k = 0; k < res.n_labels; k++)
        seen_timeout |= res.labels[k].id == timeout_id;
    CU_ASSERT(seen_timeout);
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

/* Reduction runs candidates quick and confirms a hang only when it would change the table. */
static void test_distill_hang_confirmed_when_it_matters(void)
{
    struct runner_ctx rc;
    /* The timeout label is held by "HANG" from the start, and every other label by a clean
       minimal input, except the label of 8 q's, which only "HAN()Gqqqqqqqq" shows (the q's
       last, so that no prefix of it keeps the label). Reducing it meets a longer hang (the
       brackets deleted), which can win nothing: it is not confirmed, the first pass confirms
       its own. */
    static const char *const done[] = {"HANG", "H", "A", "N", "G", "(", ")", "q", "qq", "qqq",
                                       "qqqq", "HAN()Gqqqqqqqq"};
    distill_hangs(done, 12, &rc);
    CU_ASSERT(rc.slow_runs > 0);
    CU_ASSERT_EQUAL(rc.confirmed, 1);
    /* Here the timeout label's reproducer must shrink: its reduction adopts shorter hangs
       provisionally and confirms one when it ends, not one per step (an engine confirming each
       made 12 confirmations here, this one 2). */
    static const char *const open[] = {"HAN-G world", "some words then HANG and more words"};
    distill_hangs(open, 2, &rc);
    CU_ASSERT(rc.confirmed > 1);
    CU_ASSERT(rc.confirmed <= 4);
}

/* A run past the calibrated timeout that does not hang when confirmed ("SLOW") never becomes a
 * reproducer: not when another label's reduction meets it, nor when the timeout label's own
 * reduction adopts it provisionally (the last confirmed hang is kept then). */
static void test_distill_slow_is_no_reproducer(void)
{
    /* In both sets every coverage label of the hang is held by a clean input, so that the hang
       stays the timeout label's best until that label's own reduction. In the first, reducing
       S's label meets shorter runs that are merely slow ("SLSLOW"); in the second, the timeout
       label's reduction adopts "HANGSLOW", then "SLOW", which does not confirm. */
    static const char *const met[] = {"xxxxxxxxxxHANG", "xxxxxxxx", "H", "A", "N", "G",
                                      "SLOWSLOW"};
    static const char *const adopted[] = {"xxxxxxxxHANGSLOW", "H", "A", "N", "G", "S", "L",
                                          "O", "W", "xxxxxxxx"};
    const char *const *sets[] = {met, adopted};
    const size_t sizes[] = {7, 10};
    for (int k = 0; k < 2; k++) {
        char *dir = write_files(sets[k], sizes[k]);
        struct runner_ctx rc = {.hangs = true, .slow = true};
        struct cd_distill_opts opts = {.seed = 3, .jobs = 1};
        struct cd_result res;
        CU_ASSERT_EQUAL(distill(dir, &opts, &rc, &res, NULL), CD_OK);
        CU_ASSERT(res.stats.complete);
        CU_ASSERT(rc.slow_runs > 0);
        bool seen_timeout = false;
        for (size_t i = 0; i < res.n_labels; i++) {
            const struct cd_result_example *e = &res.examples[res.labels[i].example];
            if (res.labels[i].id != timeout_id)
                continue;
            seen_timeout = true;
            CU_ASSERT(e->len == 4 && !memcmp(e->data, "HANG", 4));
        }
        CU_ASSERT(seen_timeout);
        for (size_t i = 0; i < res.n_examples; i++)
            if (res.examples[i].reproducer)
                CU_ASSERT(contains(res.examples[i].data, res.examples[i].len, "HANG"));
        cd_result_release(&res);
        cd_test_rmdir(dir);
    }
}

/* Two bugs whose crash states hash to one bug label stay two bugs: the second takes its next
 * probe, each label keeps its own state as its note, and neither is renamed into the other. */
static void test_distill_bug_collision(void)
{
    CU_ASSERT_EQUAL_FATAL(cd_labels_bug(state_a), cd_labels_bug(state_b));
    static const char *const in[] = {"one f24 two", "three f6202 four", "plain"};
    char *dir = write_files(in, 3);
    struct runner_ctx rc = {0};
    struct cd_distill_opts opts = {.jobs = 1, .seed = 1, .max_execs = 3000};
    struct cd_result res;
    struct cd_distill *d = NULL;
    struct cd_ingest *ing = NULL;
    struct cd_error err;
    const char *ops[] = {dir};
    struct cd_ingest_opts io = {.operands = ops, .n_operands = 1};
    CU_ASSERT_EQUAL_FATAL(cd_distill_new(&d, &opts, &bug_ops, &rc, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_ingest_new(&ing, &io, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_distill_ingest(d, ing, &err), CD_OK);
    cd_distill_reduce(d, &err);
    CU_ASSERT_EQUAL_FATAL(cd_distill_result(d, &res, &err), CD_OK);
    size_t bugs = 0;
    bool saw_a = false, saw_b = false;
    for (size_t i = 0; i < res.n_labels; i++) {
        if (!cd_labels_is_bug(res.labels[i].id))
            continue;
        bugs++;
        const char *note = res.labels[i].note;
        CU_ASSERT_PTR_NOT_NULL_FATAL(note);
        CU_ASSERT(cd_labels_bug_is_of(res.labels[i].id, note));
        saw_a |= strcmp(note, state_a) == 0;
        saw_b |= strcmp(note, state_b) == 0;
    }
    CU_ASSERT_EQUAL(bugs, 2);
    CU_ASSERT(saw_a && saw_b);
    cd_result_release(&res);
    cd_ingest_free(ing);
    cd_distill_free(d);
    cd_test_rmdir(dir);
}

/* Two targets: target 0 shows label() but never crashes; target 1 only the lower-case letters'
 * labels, and crashes on "CRASH". Labels of target 1 carry its index. */
static enum cd_status r_run_two(void *state, uint32_t targets, const uint8_t *data, size_t len,
                                bool quick, struct cd_labelset *labels, enum cd_outcome *outcome,
                                struct cd_error *err)
{
    (void)quick;
    (void)err;
    struct runner_state *s = state;
    struct cd_labelset one = {0};
    labels->n = 0;
    if (targets & 1) {
        label(data, len, labels);
        labels->n -= labels->n && labels->v[labels->n - 1] == crash_id;
    }
    if (targets & 2) {
        label(data, len, &one);
        for (size_t i = 0; i < one.n; i++) {
            uint32_t id = one.v[i];
            unsigned b = cd_labels_is_outcome(id) ? 'a' : (id >> 3) - 1;
            if (b >= 'a' && b <= 'z')
                cd_labelset_push(labels, cd_labels_in_target(id, 1));
        }
        qsort(labels->v, labels->n, sizeof *labels->v, cmp_u32);
    }
    cd_labelset_release(&one);
    *outcome = has_crash(data, len) && targets & 2 ? CD_OUTCOME_CRASH : CD_OUTCOME_OK;
    s->ctx->runs++;
    return CD_OK;
}

static const struct cd_runner_ops two_ops = {r_open, r_run_two, r_close, NULL};

/* Runs the two targets over dir, reducing unless no_reduce, into *res. */
static void distill_two(const char *dir, bool no_reduce, struct runner_ctx *rc,
                        struct cd_result *res)
{
    struct cd_distill_opts opts = {.seed = 1, .jobs = 1, .targets = 2, .no_reduce = no_reduce};
    struct cd_distill *d = NULL;
    struct cd_ingest *ing = NULL;
    struct cd_error err;
    const char *ops[] = {dir};
    struct cd_ingest_opts io = {.operands = ops, .n_operands = 1};
    CU_ASSERT_EQUAL_FATAL(cd_distill_new(&d, &opts, &two_ops, rc, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_ingest_new(&ing, &io, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_distill_ingest(d, ing, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_distill_reduce(d, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_distill_result(d, res, &err), CD_OK);
    cd_ingest_free(ing);
    cd_distill_free(d);
}

static void test_distill_two_targets(void)
{
    char *dir = write_inputs();
    struct runner_ctx rc = {0};
    struct cd_error err;
    struct cd_result res;
    distill_two(dir, false, &rc, &res);
    CU_ASSERT(res.stats.complete);
    CU_ASSERT(res.stats.other_target_execs > 0);
    /* every input label of each target is kept, each best minimal and shared: the best of a
       target-1 label is the best of its target-0 twin, credited with both */
    struct cd_labelset set = {0};
    size_t of_1 = 0;
    for (size_t k = 0; k < res.n_labels; k++) {
        uint32_t id = res.labels[k].id;
        const struct cd_result_example *e = &res.examples[res.labels[k].example];
        CU_ASSERT(res.labels[k].finished);
        if (cd_labels_target(id) != 1 || cd_labels_is_outcome(id))
            continue;
        of_1++;
        uint32_t twin = cd_labels_in_target(id, 0);
        unsigned b = (twin >> 3) - 1, n = class_min((twin & 7) + 1);
        CU_ASSERT(b >= 'a' && b <= 'z');
        CU_ASSERT_EQUAL(e->len, n);
        CU_ASSERT(cd_labelset_has(&e->labels, twin) && cd_labelset_has(&e->labels, id));
    }
    for (size_t i = 0; i < N_INPUTS; i++) {
        r_run_two(&(struct runner_state){&rc, 0, NULL}, 3, (const uint8_t *)inputs[i],
                  strlen(inputs[i]), false, &set, &(enum cd_outcome){0}, &err);
        for (size_t j = 0; j < set.n; j++) {
            bool found = false;
            for (size_t k = 0; k < res.n_labels && !found; k++)
                found = res.labels[k].id == set.v[j];
            CU_ASSERT(found);
        }
    }
    CU_ASSERT(of_1 > 5);
    /* "CRASH" crashes target 1 alone: a reproducer of its crash, while the labels target 0
       shows on it are a seed's, as a run of target 0 alone would keep them */
    uint32_t crash1 = cd_labels_in_target(crash_id, 1), big_c = cd_labels_edge('C' + 1, 1);
    bool repro = false, seed = false;
    for (size_t k = 0; k < res.n_labels; k++) {
        const struct cd_result_example *e = &res.examples[res.labels[k].example];
        if (res.labels[k].id == crash1)
            repro = e->reproducer && e->len == 5;
        if (res.labels[k].id == big_c)
            seed = !e->reproducer && !cd_labelset_has(&e->labels, crash1);
    }
    CU_ASSERT(repro);
    CU_ASSERT(seed);
    cd_labelset_release(&set);
    cd_result_release(&res);
    /* the first pass alone: "before CRASH after" holds 'C' for target 0 as a seed */
    distill_two(dir, true, &rc, &res);
    seed = repro = false;
    for (size_t k = 0; k < res.n_labels; k++) {
        const struct cd_result_example *e = &res.examples[res.labels[k].example];
        seed |= res.labels[k].id == big_c && !e->reproducer && e->len == 18;
        repro |= res.labels[k].id == crash1 && e->reproducer && e->len == 18;
    }
    CU_ASSERT(seed);
    CU_ASSERT(repro);
    cd_result_release(&res);
    cd_test_rmdir(dir);
}

int main(void)
{
    if (!cd_labels_parse("crash:SIGSEGV", &crash_id) || !cd_labels_parse("timeout", &timeout_id))
        return 1;
    CU_TestInfo tests[] = {
        {"test_distill_bug_collision", test_distill_bug_collision},
        {"test_distill_two_targets", test_distill_two_targets},
        {"test_distill_complete_and_minimal", test_distill_complete_and_minimal},
        {"test_distill_every_order_completes", test_distill_every_order_completes},
        {"test_distill_deterministic_seed", test_distill_deterministic_seed},
        {"test_distill_no_reduce", test_distill_no_reduce},
        {"test_distill_workers", test_distill_workers},
        {"test_distill_checkpoints_off_the_lock", test_distill_checkpoints_off_the_lock},
        {"test_distill_budgets_and_stop", test_distill_budgets_and_stop},
        {"test_distill_warm_start", test_distill_warm_start},
        {"test_distill_short_attempts_complete", test_distill_short_attempts_complete},
        {"test_distill_resisting_example_is_left", test_distill_resisting_example_is_left},
        {"test_distill_size_bound_label_yields", test_distill_size_bound_label_yields},
        {"test_distill_unstable_edge", test_distill_unstable_edge},
        {"test_distill_unstable_during_recheck", test_distill_unstable_during_recheck},
        {"test_distill_idle_worker_helps", test_distill_idle_worker_helps},
        {"test_distill_empty_input_set", test_distill_empty_input_set},
        {"test_distill_hang_confirmed_when_it_matters", test_distill_hang_confirmed_when_it_matters},
        {"test_distill_slow_is_no_reproducer", test_distill_slow_is_no_reproducer},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("distill", tests);
}
