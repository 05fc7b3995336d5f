/* The distill mode: options and environment become the engine's settings, then ingest, first pass,
 * reduction, and emit (seeds swapped in whole, reproducers, manifest), then the summary and the
 * exit code. SIGINT and SIGTERM only set the engine's stop flag: the run still writes a complete,
 * valid output of the best examples so far, marked incomplete. */
#include "common/cd_file.h"
#include "common/cd_hash.h"
#include "cli_run_internal.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;
static volatile sig_atomic_t signals_seen;
static volatile sig_atomic_t quiet_signals;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
    if (signals_seen++ == 0 && !quiet_signals) {
        static const char msg[] = "\ncorpus-distill: stopping, writing the best examples so far\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
    }
}

static void install_signals(bool quiet)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    quiet_signals = quiet;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Returns an owned "base + suffix" with base's trailing slashes removed. */
static char *beside(const char *dir, const char *suffix)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    char *s = malloc(n + strlen(suffix) + 1);
    if (s) {
        memcpy(s, dir, n);
        strcpy(s + n, suffix);
    }
    return s;
}

/* Whether directory dir is one of the operands (compared by device and inode). */
static bool is_operand(const char *dir, const char *const *operands, size_t n)
{
    struct stat d, o;
    if (stat(dir, &d) != 0 || !S_ISDIR(d.st_mode))
        return false;
    for (size_t i = 0; i < n; i++)
        if (stat(operands[i], &o) == 0 && o.st_dev == d.st_dev && o.st_ino == d.st_ino)
            return true;
    return false;
}

/* What dir is when it is a directory no run may replace (the root, the home directory), else
 * NULL: --force would move it aside, taking everything in it along. */
static const char *forbidden_output(const char *dir)
{
    struct stat d, o;
    if (stat(dir, &d) != 0)
        return NULL;
    if (stat("/", &o) == 0 && o.st_dev == d.st_dev && o.st_ino == d.st_ino)
        return "the root directory";
    const char *home = getenv("HOME");
    if (home && *home && stat(home, &o) == 0 && o.st_dev == d.st_dev && o.st_ino == d.st_ino)
        return "the home directory";
    return NULL;
}

/* Reports a failure on one line of stderr, keeps it for --json-summary, and returns code. */
int cli_run_fail(struct run_state *s, int code, const char *fmt, ...)
{
    va_list ap;
    char raw[sizeof s->error];
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    cli_shown_path(raw, s->error, sizeof s->error); /* paths as given, for --json-summary too */
    cli_progress_clear(s->progress);
    cli_msg("%s", s->error);
    return code;
}

/* The run's targets, declared once: each one's name, its executor's options (the run's, its own
 * values of target-scoped settings, its arguments), its binary's SHA-1 (with sha1; else "") and
 * its identity; the runner and the state take them from there. */
static void fill_targets(struct run_state *s, bool sha1)
{
    const struct cli_opts *o = s->o;
    struct cd_exec_opts eo = {0};
    cli_settings_apply(o, &s->res, CLI_TO_EXEC, &eo);
    eo.cpu = -1;
    const char *tmp = getenv("TMPDIR");
    eo.tmp_dir = tmp && *tmp ? tmp : NULL;
    eo.input_file = o->input_file;
    eo.debug_child = cd_env_on("AFL_DEBUG");
    cli_targets_fill(o, &eo, s->targets, sha1);
    s->runner.targets = s->targets;
    s->runner.n_targets = o->n_targets;
    s->runner.bind_cpus = !o->no_bind && !cd_env_on("AFL_NO_AFFINITY"); /* afl-fuzz's too */
    s->runner.edges_only = o->edges_only;
    s->state.targets = s->targets;
}

/* Starts the engine from the state file: warm from its table, or with its examples as the first
 * inputs when the target or its settings changed. */
static enum cd_status start_from_state(struct run_state *s, struct cd_error *err)
{
    const struct cli_opts *o = s->o;
    struct cd_table *warm = NULL, *old = NULL;
    size_t seen_mem = s->res.seen_mem;
    if (o->merge)
        CD_FORWARD_IF_ERROR(cli_state_merge(&s->state, o, &s->res, seen_mem, &warm, &old, err));
    else if (cli_state_start(&s->state, o, &s->res, seen_mem, &warm, &old) != 0)
        return cd_error_oom(err, CD_FAILED, "out of memory reading the state");
    if (s->state.note[0] && o->verbosity >= 0) {
        cli_progress_clear(s->progress);
        cli_msg("%s", s->state.note);
    }
    if (warm && o->merge) {
        cd_distill_adopt_table(s->d, warm);
        return CD_OK;
    }
    if (warm) {
        size_t n = cd_table_n_labels(warm), finished = cd_table_count_skippable(warm);
        if (o->verbosity >= 0)
            cli_msg("warm start from '%s' (after %llu run%s): %zu labels, "
                    "%zu finished, %zu best examples",
                    s->state.path, (unsigned long long)s->state.runs,
                    s->state.runs == 1 ? "" : "s", n, finished, cd_table_n_examples(warm));
        cd_distill_adopt_table(s->d, warm);
        s->state.hold = false; /* a checkpoint holds all the state held, and more */
        return s->state.rerun ? cd_distill_rerun_targets(s->d, s->state.rerun, err) : CD_OK;
    }
    if (!old)
        return CD_OK;
    enum cd_status st = cd_distill_ingest_table(s->d, old, err);
    cd_table_free(old);
    return st;
}

/* Loads afl-clang-lto's edge ID file: --ids, else AFL_LLVM_DOCUMENT_IDS (the variable that had
 * afl-clang-lto write it, often still set where the target was built). Returns an exit code: a
 * file --ids names must load, one the variable names only earns a warning. */
static int load_edge_ids(struct run_state *s)
{
    const char *env = getenv("AFL_LLVM_DOCUMENT_IDS");
    const char *path = s->o->ids ? s->o->ids : env && *env ? env : NULL;
    struct cd_error err;
    if (!path || cd_edge_ids_load(path, &s->edge_ids, &err) == CD_OK)
        return CLI_EXIT_OK;
    if (s->o->ids)
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_INPUT), "%s", err.msg);
    if (s->o->verbosity >= 0)
        cli_warn("AFL_LLVM_DOCUMENT_IDS: %s; labels will not "
                 "name functions", err.msg);
    return CLI_EXIT_OK;
}

/* The exact cover's time: --cover-time, within what --max-time leaves but at least 2 s, so that a
 * run ends within seconds of its limit. */
static double cover_seconds(const struct run_state *s)
{
    const struct cli_opts *o = s->o;
    double secs = o->cover_time_s; /* after a stop too: the cover then says it was cut short */
    if (o->max_time_s) {
        double left = (double)o->max_time_s - (double)(cd_now_ns() - s->start_ns) / 1e9;
        if (left < secs)
            secs = left > 2 ? left : 2;
    }
    return secs < (double)o->cover_time_s ? secs : (double)o->cover_time_s;
}

/* The guard against a collapse, once the first pass is over: s->refused when it refuses the run
 * (the result is still built, to be written aside). Checkpoints may replace the last state once it
 * has passed. cmin, as afl-cmin, only warns. */
static void run_guard(struct run_state *s)
{
    const struct cli_opts *o = s->o;
    const char *start = s->state.start ? s->state.start : "none";
    bool warm = strcmp(start, "warm") == 0 || strcmp(start, "targets changed") == 0 ||
                strcmp(start, "merged") == 0;
    bool refuse = cli_guard_check(&s->guard, o, cd_distill_stats(s->d),
                                  cd_distill_table(s->d), s->targets, warm, s->state.rerun);
    if (o->cmin && s->guard.cause) {
        cli_warn("%s", s->guard.line);
        return;
    }
    if (s->guard.accepted)
        cli_warn("%s; taken all the same (--accept-collapse)", s->guard.line);
    s->refused = refuse;
    s->state.hold = refuse;
}

/* Runs the engine from ingest to result; returns an exit code, CLI_EXIT_OK to go on to emit. */
static int distill(struct run_state *s)
{
    const struct cli_opts *o = s->o;
    struct cd_error err;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    s->start_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    /* A merge's operands are states, read by start_from_state: nothing to ingest. The run's own
       outputs are never its inputs, wherever -o sits. */
    const char *own[] = {s->out,      s->crashes, s->manifest,   s->state.path,
                         s->lock.path, s->views,  s->rejected, s->generations};
    char prefix[300];
    size_t end = strlen(s->out), b;
    while (end > 1 && s->out[end - 1] == '/')
        end--;
    for (b = end; b > 0 && s->out[b - 1] != '/';)
        b--;
    snprintf(prefix, sizeof prefix, ".%.*s.", (int)(end - b), s->out + b);
    struct cd_ingest_opts io = {
        .own = own, .n_own = sizeof own / sizeof *own, .own_prefix = prefix,
        .operands = o->inputs, .n_operands = o->merge ? 0 : o->n_inputs,
        .max_input_size = o->max_input_size,
        .archives_as_raw = o->raw_archives, .skip_empty = true, .stop = &stop_flag,
        .deadline_ns = o->max_time_s ? ((uint64_t)now.tv_sec + o->max_time_s) * 1000000000ull +
                                           (uint64_t)now.tv_nsec
                                     : 0};
    if (cd_ingest_new(&s->ing, &io, &err) != CD_OK)
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_INPUT), "%s", err.msg);
    struct cd_distill_opts dopts = {
        .targets = o->n_targets,
        .shard = o->merge ? 0 : o->shard, .shards = o->merge ? 0 : o->shards,
        .label_shard = o->merge ? o->shard : 0, .label_shards = o->merge ? o->shards : 0,
        .stop = &stop_flag,
        .progress = cli_progress_cb, .warning = cli_progress_warning, .cb_ctx = s->progress,
        .checkpoint = s->state.path ? cli_state_checkpoint : NULL,
        .checkpoint_ms = o->checkpoint_s * 1000, .checkpoint_ctx = &s->state};
    cli_settings_apply(o, &s->res, CLI_TO_ENGINE, &dopts);
    dopts.target_list = s->targets;
    if (cd_distill_new(&s->d, &dopts, &cd_distill_exec_runner, &s->runner, &err) != CD_OK)
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_TARGET), "%s", err.msg);
    enum cd_status st = start_from_state(s, &err);
    if (st >= CD_FAILED && o->merge)
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_INPUT), "%s", err.msg);
    if (st == CD_OK)
        st = cd_distill_ingest(s->d, s->ing, &err);
    if (st == CD_OK && !stop_flag) { /* a whole first pass: the baseline, when the state has none */
        const struct cd_result_stats *ds = cd_distill_stats(s->d);
        cli_state_baseline(&s->state, ds->select_only_bytes, ds->cmin_bytes);
    }
    if (st >= CD_FAILED && !stop_flag)
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_TARGET), "%s", err.msg);
    const struct cd_ingest_stats *is = cd_ingest_stats(s->ing);
    for (int k = 0; k < CD_SKIP_COUNT; k++)
        if (is->skipped[k])
            s->skips[s->n_skips++] = (struct cd_manifest_skip){
                (char *)cd_ingest_skip_name((enum cd_skip)k), is->skipped[k]};
    if (o->merge && cd_table_n_labels(cd_distill_table(s->d)) == 0)
        return cli_run_fail(s, CLI_EXIT_INPUT, "the states '%s'%s hold no label", o->inputs[0],
                        o->n_inputs > 1 ? " and the others" : "");
    if (is->inputs == 0 && !o->merge) {
        char skip[256];
        cli_run_skipped_text(is, o->max_input_size, skip, sizeof skip);
        return cli_run_fail(s, CLI_EXIT_INPUT, "no inputs in '%s'%s%s%s", o->inputs[0],
                        o->n_inputs > 1 ? " and the other operands" : "", skip[0] ? ": " : "",
                        skip);
    }
    run_guard(s); /* refused: nothing to reduce; its output goes aside as it is */
    /* Once every input has run, before the long part: the harness build decides the speed. */
    char slow[400];
    uint32_t slow_mask = cli_targets_slow(o, s->targets, slow, sizeof slow);
    if (o->verbosity >= 0 && slow_mask)
        cli_msg("note: the target%s has neither persistent mode nor a deferred fork server; its "
                "persistent build (afl-clang-fast -fsanitize=fuzzer) runs about 3 times as fast "
                "(corpus-distill(1), NOTES)", slow);
    if (!o->no_reduce && !stop_flag && !s->refused) {
        st = cd_distill_reduce(s->d, &err);
        /* Every input has run: what the table holds covers them all, and may be hours of
           reduction. It is written as a valid, incomplete output rather than lost. */
        if (st >= CD_FAILED && !stop_flag) {
            s->late_code = cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_TARGET),
                                    "%s; writing the best examples found so far", err.msg);
            snprintf(s->error, sizeof s->error, "%s", err.msg);
        }
    }
    if (cd_distill_result(s->d, &s->result, &err) != CD_OK)
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
    s->have_result = true;
    /* afl-cmin -C keeps a crashing input for every tuple crashing inputs show; so does
       --all-best: every best example */
    struct cd_cover_exact exact = {cover_seconds(s), &stop_flag};
    if (cd_result_select_seeds(&s->result, o->all_best, o->keep_found, !o->cmin && !o->all_best,
                               o->n_targets, &exact, &err) != CD_OK)
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
    s->result.stats.baseline_run = s->state.base_run;
    s->result.stats.baseline_select_only_bytes = s->state.base_select_only;
    s->result.stats.baseline_cmin_bytes = s->state.base_cmin;
    s->result.stats.guard = s->guard.cause;
    s->result.stats.guard_accepted = s->guard.accepted;
    s->result.stats.guard_reason = s->guard.cause ? s->guard.line : NULL;
    if (s->late_code) {
        s->result.stats.stopped_by = "error";
        s->result.stats.error = s->error;
        s->result.stats.complete = false;
    } else if (stop_flag && !s->result.stats.stopped_by) {
        s->result.stats.stopped_by = "signal";
        s->result.stats.complete = false;
    }
    return CLI_EXIT_OK;
}

/* The run's paths and workers from o, and the refusals that come before any time is spent:
 * CLI_EXIT_OK, or an exit code after a message. */
static int run_prepare(struct run_state *s, const struct cli_opts *o)
{
    memset(s, 0, sizeof *s);
    s->lock.fd = -1;
    s->o = o;
    if (!(s->targets = calloc(o->n_targets ? o->n_targets : 1, sizeof *s->targets)))
        return cli_run_fail(s, CLI_EXIT_NOMEM, "out of memory");
    /* With --tar, "-o seeds" and "-o seeds.tar.zst" both write seeds.tar.zst beside seeds.* */
    char *stem = beside(o->out_dir, "");
    size_t sl = stem ? strlen(stem) : 0;
    if (stem && o->tar && sl > 8 && strcmp(stem + sl - 8, ".tar.zst") == 0)
        stem[sl - 8] = '\0';
    s->out = !stem ? NULL : o->tar ? beside(stem, ".tar.zst") : strdup(stem);
    s->crashes = o->crashes_dir ? strdup(o->crashes_dir) : stem ? beside(stem, ".crashes") : NULL;
    s->manifest = o->manifest ? strdup(o->manifest) : stem ? beside(stem, ".manifest.json") : NULL;
    s->state.path = o->no_state ? NULL : o->state ? strdup(o->state) : stem ? beside(stem, ".state")
                                                                             : NULL;
    bool views = cli_targets_views(o) && !o->tar && stem;
    if (views)
        s->views = beside(stem, ".by-target");
    s->rejected = stem ? beside(stem, ".rejected") : NULL;
    s->generations = stem ? beside(stem, ".generations") : NULL;
    free(stem);
    if (!s->out || !s->crashes || !s->manifest || (!o->no_state && !s->state.path) ||
        (views && !s->views) || !s->rejected || !s->generations)
        return cli_run_fail(s, CLI_EXIT_NOMEM, "out of memory");
    char why[4400];
    int code = cli_guard_operands(o, why, sizeof why);
    if (code != CLI_EXIT_OK)
        return cli_run_fail(s, code, "%s", why);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* -f's one file serves one run at a time: one worker */
    cli_resolve(o, o->jobs ? o->jobs : o->input_file || cpus <= 0 ? 1 : (unsigned)cpus, &s->res);
    const char *forbidden = forbidden_output(o->out_dir);
    if (forbidden)
        return cli_run_fail(s, CLI_EXIT_OUTPUT, "refusing to write seeds to '%s': it is %s (name a "
                        "directory of their own with -o)", o->out_dir, forbidden);
    if (cli_run_foreign_output(s, why, sizeof why))
        return cli_run_fail(s, CLI_EXIT_OUTPUT, "%s", why);
    s->out_is_input = is_operand(s->out, (const char *const *)o->inputs, o->n_inputs);
    return CLI_EXIT_OK;
}

/* Frees what a run holds, its result too. */
static void run_release(struct run_state *s)
{
    cli_progress_free(s->progress);
    if (s->have_result)
        cd_result_release(&s->result);
    cd_distill_free(s->d);
    cd_ingest_free(s->ing);
    free(s->out);
    free(s->crashes);
    free(s->manifest);
    free(s->views);
    free(s->rejected);
    free(s->generations);
    free(s->targets);
    free(s->replaced);
    free(s->state_buf);
    cli_state_release(&s->state);
    cli_guard_release(&s->guard);
    cd_edge_ids_free(s->edge_ids);
    cd_emit_unlock(&s->lock);
    for (size_t i = 0; i < s->n_anchors; i++) {
        close(s->anchor_fd[i]);
        free(s->anchor_dir[i]);
    }
    cli_anchors_release();
}

int cli_run_engine(const struct cli_opts *o, struct cd_result *result, uint64_t *inputs,
                   bool *stopped)
{
    struct run_state s;
    int code = run_prepare(&s, o);
    if (code == CLI_EXIT_OK) {
        install_signals(true);
        s.progress = cli_progress_new(-1);
        fill_targets(&s, false);
        code = distill(&s);
    }
    if (code == CLI_EXIT_OK) {
        *inputs = cd_ingest_stats(s.ing)->inputs;
        *result = s.result; /* handed over */
        s.have_result = false;
    }
    *stopped = stop_flag;
    run_release(&s);
    return code;
}

int cli_run(const struct cli_opts *o)
{
    struct run_state s;
    struct cd_error err;
    int code = run_prepare(&s, o);
    if (code != CLI_EXIT_OK)
        goto out;
    /* From here on the outputs are reached through their directories' handles. */
    char **outputs[] = {&s.out,     &s.crashes,  &s.manifest,   &s.state.path,
                        &s.views,   &s.rejected, &s.generations};
    for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++)
        if (cli_run_anchor(&s, outputs[i], &err) != CD_OK) {
            code = cli_run_fail(&s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
            goto out;
        }
    /* Checked again on what the run now holds: a directory swapped between the first check and
       the walk is judged as what it became. */
    char why[4400];
    if (cli_run_foreign_output(&s, why, sizeof why)) {
        code = cli_run_fail(&s, CLI_EXIT_OUTPUT, "%s", why);
        goto out;
    }
    /* Refuse a foreign output directory before spending any time on the run. */
    struct cd_emit_opts eo = {s.out, s.crashes, s.manifest, o->force, o->tar, s.out_is_input,
                              s.state.path, cli_manifest_owned, NULL, NULL, NULL};
    if (cd_emit_lock(&eo, &s.lock, &err) != CD_OK) {
        code = cli_run_fail(&s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
        goto out;
    }
    if (cd_emit_check(&eo, &s.unlisted, &err) != CD_OK) {
        code = cli_run_fail(&s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s%s", err.msg,
                        err.kind == CD_ERR_FOREIGN ? " (--force moves it aside)" : "");
        goto out;
    }
    if (cli_state_check(s.state.path, o->force, &err) != CD_OK) {
        code = cli_run_fail(&s, CLI_EXIT_OUTPUT, "%s", err.msg);
        goto out;
    }
    /* What the run would replace, for the guard; no checkpoint replaces it before that passed */
    cli_guard_before(&s.guard, s.manifest, o);
    struct stat sb;
    s.state.hold = s.state.path && lstat(s.state.path, &sb) == 0;
    install_signals(o->verbosity < 0);
    s.progress = cli_progress_new(o->verbosity);
    fill_targets(&s, true);
    code = load_edge_ids(&s);
    if (code == CLI_EXIT_OK)
        code = distill(&s);
    if (code != CLI_EXIT_OK)
        goto out;
    if (!s.refused)
        cli_run_encode_state(&s);
    /* Closing the engine's runners refreshes the executor info (the calibrated timeout) that the
     * manifest records. */
    char *report = o->verbosity > 0 ? cd_distill_pass_report(s.d) : NULL;
    cd_distill_free(s.d);
    s.d = NULL;
    if (o->verbosity > 0)
        cli_run_print_details(&s, report);
    cli_progress_clear(s.progress);
    code = s.refused ? cli_run_reject_paths(&s) : CLI_EXIT_OK;
    if (code == CLI_EXIT_OK)
        code = cli_run_write_output(&s);
    if (code != CLI_EXIT_OK)
        goto out;
    cli_run_write_state(&s);
    if (s.refused) {
        cli_run_say_refused(&s);
        cli_run_print_summary(&s, CLI_EXIT_REFUSED);
        code = CLI_EXIT_REFUSED;
        goto out;
    }
    if (s.replaced)
        cli_msg("'%s' was not written by corpus-distill; --force moved it "
                "to '%s'", s.out, s.replaced);
    code = s.late_code                             ? s.late_code
           : s.result.stats.stopped_by || stop_flag ? CLI_EXIT_INCOMPLETE
                                                     : CLI_EXIT_OK;
    cli_run_print_summary(&s, code);
out:
    if (code >= CLI_EXIT_TARGET && code != CLI_EXIT_REFUSED && o->json_summary && !s.late_code)
        cli_failure_json(code, s.error);
    run_release(&s);
    return code;
}
