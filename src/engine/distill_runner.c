/* The engine's runner over the real executor: one cd_exec (own fork server, own shared-memory map)
 * per worker, labels from cd_labels_from_run, and a CPU of its own for each worker's target when
 * asked, picked as afl-fuzz picks one (a CPU some process is bound to alone counts as busy). It
 * adapts cd_exec and cd_labels to cd_runner_ops and knows nothing of tables or reduction. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_* */
#include "cd_distill.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct exec_runner {
    struct cd_exec_runner_ctx *ctx;
    unsigned worker;
    unsigned n;                             /* targets */
    struct cd_labelset part;                /* one target's labels, merged into the run's */
    int cpu;       /* the targets' CPU, or -1 */
    bool pinned;   /* the worker's own thread was bound to cpu */
    const char *crash_state; /* of the last run, or NULL; owned by an ex */
    struct cd_exec *ex[];    /* one executor per target, n of them */
};

static void runner_close(void *vstate);

/* Whether the "Cpus_allowed_list:" value names exactly one CPU; stores it in *cpu. */
static bool single_cpu(const char *list, long *cpu)
{
    char *end;
    while (*list == ' ' || *list == '\t')
        list++;
    if (*list < '0' || *list > '9')
        return false;
    *cpu = strtol(list, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    return *end == 0;
}

/* Marks in busy every CPU some user process is bound to alone (kernel threads, which have no
 * VmSize line, do not count), as afl-fuzz's bind_to_free_cpu does. Best effort: an unreadable
 * /proc marks nothing. */
static void busy_cpus(cpu_set_t *busy)
{
    CPU_ZERO(busy);
    DIR *dir = opendir("/proc");
    if (!dir)
        return;
    struct dirent *de;
    while ((de = readdir(dir))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/%.32s/status", de->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        bool user = false;
        long cpu = -1;
        bool bound = false;
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "VmSize:", 7))
                user = true;
            else if (!strncmp(line, "Cpus_allowed_list:", 18))
                bound = single_cpu(line + 18, &cpu);
        }
        fclose(f);
        if (user && bound && cpu >= 0 && cpu < CPU_SETSIZE)
            CPU_SET((int)cpu, busy);
    }
    closedir(dir);
}

/* The first CPU this process may use that nobody is bound to, or -1. */
static int free_cpu(void)
{
    cpu_set_t allowed, busy;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return -1;
    busy_cpus(&busy);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed) && !CPU_ISSET(c, &busy))
            return c;
    return -1;
}

static enum cd_status runner_open(void *vctx, unsigned worker, void **state, struct cd_error *err)
{
    struct cd_exec_runner_ctx *ctx = vctx;
    unsigned n = ctx->n_targets ? ctx->n_targets : 1;
    struct exec_runner *r = calloc(1, sizeof *r + n * sizeof *r->ex);
    if (!r)
        return cd_error_oom(err, CD_FAILED, "out of memory opening worker %u", worker);
    r->ctx = ctx;
    r->worker = worker;
    r->n = n;
    int cpu = ctx->targets[0].opts.cpu;
    if (ctx->bind_cpus)
        cpu = ctx->cpu_fixed ? (int)(ctx->first_cpu + worker) : free_cpu();
    else if (worker > 0)
        cpu = -1;
    r->cpu = cpu;
    for (unsigned t = 0; t < r->n; t++) {
        /* A worker's targets take turns, so they share its CPU. */
        struct cd_exec_opts opts = ctx->targets[t].opts;
        opts.cpu = cpu;
        enum cd_status st = cd_exec_new(&r->ex[t], &opts, err);
        if (st != CD_OK) {
            runner_close(r);
            return cd_error_mark(err, st, CD_ERR_TARGET);
        }
        if (worker == 0)
            ctx->targets[t].info = *cd_exec_info(r->ex[t]);
    }
    *state = r;
    return CD_OK;
}

/* Merges the sorted set add into the sorted set into (no duplicates across them: other
 * targets' ids); false when out of memory. */
static bool merge_into(struct cd_labelset *into, const struct cd_labelset *add)
{
    size_t n = into->n;
    for (size_t i = 0; i < add->n; i++)
        if (!cd_labelset_push(into, add->v[i]))
            return false;
    /* Coverage ids of one target are contiguous above the earlier targets': a merge of the two
       runs of ascending ids, from the back. */
    uint32_t *v = into->v;
    size_t i = n, k = add->n, o = into->n;
    while (k > 0) {
        if (i > 0 && v[i - 1] > add->v[k - 1])
            v[--o] = v[--i];
        else
            v[--o] = add->v[--k];
    }
    return true;
}

/* Runs data on target t of r; labels into set (in target t), *outcome. */
static enum cd_status run_one(struct exec_runner *r, unsigned t, const uint8_t *data, size_t len,
                              bool quick, struct cd_labelset *set, enum cd_outcome *outcome,
                              struct cd_error *err)
{
    struct cd_run run;
    enum cd_status st = quick ? cd_exec_run_quick(r->ex[t], data, len, &run, err)
                              : cd_exec_run(r->ex[t], data, len, &run, err);
    if (st != CD_OK)
        return cd_error_mark(err, st, CD_ERR_TARGET);
    if (r->n > 1 && run.map_size > CD_LABEL_TARGET_EDGES)
        run.map_size = CD_LABEL_TARGET_EDGES;
    *outcome = run.outcome;
    struct cd_exec_info *in = &r->ctx->targets[t].info;
    if (r->worker == 0 && !in->stdin_read) /* read by the guard after the first pass */
        in->stdin_read = cd_exec_info(r->ex[t])->stdin_read;
    if (run.crash_state && !r->crash_state)
        r->crash_state = run.crash_state;
    st = cd_labels_from_run(&run, r->ctx->edges_only, set, err);
    if (st == CD_OK)
        cd_labels_retarget(set, t);
    return st;
}

/* How bad an outcome is, for the run of several targets: a crash, then a hang, then slow. */
static int severity(enum cd_outcome o)
{
    return o == CD_OUTCOME_CRASH ? 3 : o == CD_OUTCOME_TIMEOUT ? 2 : o == CD_OUTCOME_SLOW ? 1 : 0;
}

static enum cd_status runner_run(void *vstate, uint32_t targets, const uint8_t *data, size_t len,
                                 bool quick, struct cd_labelset *labels,
                                 enum cd_outcome *outcome, struct cd_error *err)
{
    struct exec_runner *r = vstate;
    if (!r->pinned) {
        /* The worker and its target take turns on the same CPU, as afl-fuzz binds itself and
           its target: the hand-over then needs no wake-up of another CPU. Runs come from the
           worker's own thread, which is what sched_setaffinity(0) binds. */
        r->pinned = true;
        if (r->cpu >= 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(r->cpu, &set);
            (void)sched_setaffinity(0, sizeof set, &set);
        }
    }
    r->crash_state = NULL;
    if (r->n == 1)
        return run_one(r, 0, data, len, quick, labels, outcome, err);
    bool first = true;
    *outcome = CD_OUTCOME_OK;
    labels->n = 0;
    for (unsigned t = 0; t < r->n; t++) {
        if (!(targets >> t & 1))
            continue;
        enum cd_outcome o;
        struct cd_labelset *set = first ? labels : &r->part;
        enum cd_status st = run_one(r, t, data, len, quick, set, &o, err);
        if (st != CD_OK)
            return st;
        if (!first && !merge_into(labels, set))
            return cd_error_oom(err, CD_FAILED, "out of memory building a label set");
        if (severity(o) > severity(*outcome))
            *outcome = o;
        first = false;
    }
    /* The outcome labels of every target sort last; a merge of two runs put them in place. */
    return CD_OK;
}

static const char *runner_note(void *vstate, uint32_t id)
{
    struct exec_runner *r = vstate;
    return r->crash_state && cd_labels_bug_is_of(id, r->crash_state) ? r->crash_state : NULL;
}

static void runner_close(void *vstate)
{
    struct exec_runner *r = vstate;
    if (!r)
        return;
    for (unsigned t = 0; t < r->n; t++) {
        if (r->worker == 0 && r->ex[t])
            r->ctx->targets[t].info = *cd_exec_info(r->ex[t]);
        cd_exec_free(r->ex[t]);
    }
    cd_labelset_release(&r->part);
    free(r);
}

const struct cd_runner_ops cd_distill_exec_runner = {runner_open, runner_run, runner_close,
                                                     runner_note};
