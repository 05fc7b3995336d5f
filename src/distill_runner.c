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
    struct cd_exec *ex;
    int cpu;       /* the target's CPU, or -1 */
    bool pinned;   /* the worker's own thread was bound to cpu */
    const char *crash_state; /* of the last run, or NULL; owned by ex */
};

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
    struct cd_exec_opts opts = *ctx->exec_opts;
    struct exec_runner *r = calloc(1, sizeof *r);
    if (!r)
        return cd_error_oom(err, CD_FAILED, "out of memory opening worker %u", worker);
    if (ctx->bind_cpus)
        opts.cpu = ctx->cpu_fixed ? (int)(ctx->first_cpu + worker) : free_cpu();
    else if (worker > 0)
        opts.cpu = -1;
    enum cd_status st = cd_exec_new(&r->ex, &opts, err);
    if (st != CD_OK) {
        free(r);
        return cd_error_mark(err, st, CD_ERR_TARGET);
    }
    r->ctx = ctx;
    r->worker = worker;
    r->cpu = opts.cpu;
    if (worker == 0)
        ctx->info = *cd_exec_info(r->ex);
    *state = r;
    return CD_OK;
}

static enum cd_status runner_run(void *vstate, const uint8_t *data, size_t len, bool quick,
                                 struct cd_labelset *labels, enum cd_outcome *outcome,
                                 struct cd_error *err)
{
    struct exec_runner *r = vstate;
    struct cd_run run;
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
    enum cd_status st = quick ? cd_exec_run_quick(r->ex, data, len, &run, err)
                              : cd_exec_run(r->ex, data, len, &run, err);
    if (st != CD_OK)
        return cd_error_mark(err, st, CD_ERR_TARGET);
    *outcome = run.outcome;
    r->crash_state = run.crash_state;
    return cd_labels_from_run(&run, r->ctx->edges_only, labels, err);
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
    if (r->worker == 0)
        r->ctx->info = *cd_exec_info(r->ex);
    cd_exec_free(r->ex);
    free(r);
}

const struct cd_runner_ops cd_distill_exec_runner = {runner_open, runner_run, runner_close,
                                                     runner_note};
