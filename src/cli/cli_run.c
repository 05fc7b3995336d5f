/* The distill mode: options and environment become the engine's settings, then ingest, first pass,
 * reduction, and emit (seeds swapped in whole, reproducers, manifest), then the summary and the
 * exit code. SIGINT and SIGTERM only set the engine's stop flag: the run still writes a complete,
 * valid output of the best examples so far, marked incomplete. */
#include "output/cd_emit.h"
#include "output/cd_generations.h"
#include "common/cd_file.h"
#include "common/cd_hash.h"
#include "output/cd_manifest.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
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

bool cli_manifest_owned(const char *path, struct cd_emit_owned *out)
{
    struct cd_manifest m;
    memset(out, 0, sizeof *out);
    if (cd_manifest_read(path, &m, NULL) != CD_OK)
        return false;
    char *whole = NULL, *parent = NULL;
    bool ok = m.info.seed_dir && cd_file_split(m.info.seed_dir, &whole, &parent,
                                               &out->seed_dir_base);
    free(whole);
    free(parent);
    out->seeds = calloc(m.n_seeds ? m.n_seeds : 1, sizeof *out->seeds);
    ok = ok && out->seeds;
    for (size_t i = 0; ok && i < m.n_seeds; i++)
        if (m.seeds[i].file && !(out->seeds[out->n_seeds++] = strdup(m.seeds[i].file)))
            ok = false;
    /* A run of several targets' views: DIR.by-target/NAME, their files seeds of the manifest */
    out->views = calloc(m.info.n_targets + 1, sizeof *out->views);
    ok = ok && out->views;
    for (unsigned t = 0; ok && t < m.info.n_targets; t++)
        if (m.info.targets[t].view && !(out->views[out->n_views++] =
                                            strdup(m.info.targets[t].name)))
            ok = false;
    cd_manifest_release(&m);
    if (!ok)
        cd_emit_owned_release(out);
    return ok;
}

/* Writes "3 inputs skipped: 2 too large (limit 1 MiB), 1 unreadable" into buf; "" when none. */
static const char *skipped_text(const struct cd_ingest_stats *is, size_t limit, char *buf,
                                size_t cap)
{
    uint64_t total = 0;
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < CD_SKIP_COUNT; k++)
        total += is->skipped[k];
    if (!total)
        return buf;
    n += (size_t)snprintf(buf, cap, "%llu input%s skipped:", (unsigned long long)total,
                          total == 1 ? "" : "s");
    const char *sep = " ";
    for (int k = 0; k < CD_SKIP_COUNT && n < cap; k++) {
        if (!is->skipped[k])
            continue;
        char lim[48] = "";
        if (k == CD_SKIP_TOO_LARGE) {
            char b[32];
            snprintf(lim, sizeof lim, " (limit %s)", cli_bytes(limit, b, sizeof b));
        }
        n += (size_t)snprintf(buf + n, cap - n, "%s%llu %s%s", sep,
                              (unsigned long long)is->skipped[k],
                              cd_ingest_skip_name((enum cd_skip)k), lim);
        sep = ", ";
    }
    return buf;
}

/* Whether inputs were skipped that the run would have read: too large, unreadable, damaged (not
 * empty files, which afl-fuzz skips too, nor links, devices and FIFOs inside a directory, never
 * read by design). */
static bool quiet_skips(const struct cd_ingest_stats *is)
{
    for (int k = 0; k < CD_SKIP_COUNT; k++)
        if (is->skipped[k] && k != CD_SKIP_EMPTY && k != CD_SKIP_NOT_REGULAR)
            return true;
    return false;
}

struct run_state {
    const struct cli_opts *o;
    char *out, *crashes, *manifest; /* the corpus (DIR or DIR.tar.zst), reproducers, manifest */
    struct cd_exec_opts exec_opts[CD_LABEL_TARGETS_MAX]; /* one per target */
    struct cd_exec_runner_ctx runner;
    char *views;                    /* DIR.by-target: each target's seeds, with several */
    struct cd_ingest *ing;
    struct cd_distill *d;
    struct cli_progress *progress;
    struct cd_result result;
    bool have_result;
    struct cd_emit_stats emitted;
    struct cli_resolved res;     /* the settings as the run resolved them (cli_settings.c) */
    struct cd_manifest_skip skips[CD_SKIP_COUNT];
    size_t n_skips;
    char error[2048];               /* the message of a failing exit, for --json-summary */
    int late_code;                  /* the reduction failed, the best so far is written, and
                                       this is the exit code; 0 when it did not fail */
    bool out_is_input;              /* the seed directory is also an input operand */
    size_t unlisted;                /* files in it its manifest does not list: inputs of the run */
    char *replaced;                 /* where a directory --force replaced was moved, or NULL */
    struct cd_emit_lock lock;       /* held from the first check of the output to the end */
    struct cli_state state;         /* the state file: how the run started, where it is saved */
    struct cd_edge_ids *edge_ids;   /* --ids or AFL_LLVM_DOCUMENT_IDS: labels name functions */
    uint8_t *state_buf;             /* the final state, written once the output is */
    size_t state_len;
    uint64_t start_ns;              /* when the inputs began to be read (cd_now_ns) */
    struct cli_guard guard;         /* the guard against a collapse (cli_guard.c) */
    bool refused;                   /* it fired: the run's output goes to rejected */
    char *rejected;                 /* DIR.rejected: where a refused run's output goes */
    char *generations;              /* DIR.generations: the outputs runs replaced */
};

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
static int run_fail(struct run_state *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int run_fail(struct run_state *s, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    cli_progress_clear(s->progress);
    cli_msg("%s", s->error);
    return code;
}

/* How far the seed cover can be from the best over the same examples, for the summary: "optimal
 * (proven in 0.4 s)", "within 0.4% of optimal (no cover under 2.9 MB; 30 s cap)". */
static const char *cover_text(const struct cd_result_stats *rs, char *buf, size_t cap)
{
    char b[32];
    double gap = cd_result_cover_gap(rs);
    if (rs->cover_solver == CD_COVER_OPTIMAL || (rs->cover_bound && gap == 0))
        snprintf(buf, cap, "optimal (proven in %.1f s)", (double)rs->cover_solve_ms / 1000);
    else if (!rs->cover_bound)
        snprintf(buf, cap, "of unknown distance from optimal");
    else
        snprintf(buf, cap, "within %.1f%% of optimal (no cover under %s%s)", 100 * gap,
                 cli_bytes(rs->cover_bound, b, sizeof b),
                 rs->cover_solver == CD_COVER_CAPPED   ? "; the solver's time ran out"
                 : rs->cover_solver == CD_COVER_FAILED ? "; the exact solve gave nothing back"
                                                       : "; --cover-time 0: greedy only");
    return buf;
}

/* What --json-summary's code gives for a row of the report table not taken from a struct. */
struct summary {
    struct run_state *s;
    int code;
};

static json_object *summary_row(void *ctx, const struct cd_report_field *f, bool *omit)
{
    const struct summary *sum = ctx;
    struct run_state *s = sum->s;
    const struct cli_opts *o = s->o;
    const struct cd_ingest_stats *is = cd_ingest_stats(s->ing);
    const char *k = f->summary;
    if (strcmp(k, "exit_code") == 0)
        return json_object_new_int(sum->code);
    if (strcmp(k, "inputs") == 0)
        return json_object_new_uint64(is->inputs);
    if (strcmp(k, "input_bytes") == 0)
        return json_object_new_uint64(is->bytes);
    if (strcmp(k, "skipped") == 0) {
        json_object *sk = json_object_new_object();
        for (size_t i = 0; i < s->n_skips; i++)
            json_object_object_add(sk, s->skips[i].reason,
                                   json_object_new_uint64(s->skips[i].count));
        return sk;
    }
    if (strcmp(k, "unlisted_inputs") == 0)
        return json_object_new_uint64(s->unlisted);
    if (strcmp(k, "replaced_moved_to") == 0)
        return s->replaced ? json_object_new_string(s->replaced) : NULL;
    if (strcmp(k, "cover_gap") == 0)
        return json_object_new_double(cd_result_cover_gap(&s->result.stats));
    if (strcmp(k, "unstable_edges") == 0)
        return json_object_new_uint64(s->result.n_unstable);
    if (strcmp(k, "seed_dir") == 0)
        return json_object_new_string(s->out);
    if (strcmp(k, "crashes_dir") == 0)
        return json_object_new_string(s->crashes);
    if (strcmp(k, "manifest") == 0)
        return json_object_new_string(s->manifest);
    if (strcmp(k, "state") == 0)
        return s->state.path ? json_object_new_string(s->state.path) : NULL;
    if (strcmp(k, "state_start") == 0)
        return json_object_new_string(s->state.start ? s->state.start : "none");
    if (strcmp(k, "state_saved") == 0)
        return json_object_new_boolean(s->state.saved > 0);
    if (strcmp(k, "targets") == 0 && o->n_targets > 1) {
        json_object *ta = json_object_new_array();
        for (unsigned t = 0; t < o->n_targets; t++) {
            struct cd_result_target c = cd_result_target_counts(&s->result, t);
            json_object *e = json_object_new_object();
            json_object_object_add(e, "name", json_object_new_string(o->target_names[t]));
            cd_report_put_target(e, &c);
            char view[4200];
            snprintf(view, sizeof view, "%s/%s", s->views ? s->views : "", o->target_names[t]);
            json_object_object_add(e, "view", s->views ? json_object_new_string(view) : NULL);
            json_object_array_add(ta, e);
        }
        return ta;
    }
    *omit = true; /* "targets" of a single target */
    return NULL;
}

static void print_summary(struct run_state *s, int code)
{
    const struct cli_opts *o = s->o;
    const struct cd_ingest_stats *is = cd_ingest_stats(s->ing);
    const struct cd_result_stats *rs = &s->result.stats;
    uint64_t finished = 0;
    for (size_t i = 0; i < s->result.n_labels; i++)
        finished += s->result.labels[i].finished;
    double secs = (double)rs->wall_ns / 1e9;
    char b1[32], b2[32], skip[256];
    skipped_text(is, o->max_input_size, skip, sizeof skip);
    /* -q hides no warning that changes what is written */
    if (o->verbosity < 0 && skip[0] && quiet_skips(is))
        cli_warn("%s (manifest: input.skipped)", skip);
    if (o->verbosity >= 0) {
        bool warm = s->state.start && strcmp(s->state.start, "warm") == 0;
        if (o->merge)
            cli_msg("in: %s", s->state.note);
        else
            cli_msg("in: %llu inputs, %s (%llu %s)%s%s",
                    (unsigned long long)is->inputs, cli_bytes(is->bytes, b1, sizeof b1),
                    (unsigned long long)rs->duplicates,
                    warm ? "duplicates or run before, not run again" : "duplicates",
                    skip[0] ? "; " : "", skip);
        if (o->shards > 1 && o->merge)
            cli_msg("label shard %u of %u: only its labels were "
                    "reduced", o->shard, o->shards);
        else if (o->shards > 1)
            cli_msg("shard %u of %u: %llu inputs left to the other "
                    "shards", o->shard, o->shards,
                    (unsigned long long)rs->other_shards);
        if (s->unlisted)
            cli_msg("%zu file%s in '%s' that its manifest did not list "
                    "%s taken as input%s",
                    s->unlisted, s->unlisted == 1 ? "" : "s", s->out,
                    s->unlisted == 1 ? "was" : "were", s->unlisted == 1 ? "" : "s");
        fprintf(stderr, "corpus-distill: out: %llu seeds, %s in '%s'",
                (unsigned long long)s->emitted.seeds, cli_bytes(s->emitted.seed_bytes, b2, sizeof b2),
                s->out);
        if (s->emitted.reproducers)
            fprintf(stderr, "; %llu crash/timeout reproducers in '%s'",
                    (unsigned long long)s->emitted.reproducers, s->crashes);
        size_t bugs = cd_result_count_bugs(&s->result);
        if (bugs)
            fprintf(stderr, ", %zu of them distinct bug%s (audit --crashes)", bugs,
                    bugs == 1 ? "" : "s");
        for (unsigned t = 0; o->n_targets > 1 && t < o->n_targets; t++) {
            struct cd_result_target c = cd_result_target_counts(&s->result, t);
            fprintf(stderr, "\ncorpus-distill: target %s: %llu labels, %llu finished; %llu "
                            "seeds, %s", o->target_names[t], (unsigned long long)c.labels,
                    (unsigned long long)c.finished, (unsigned long long)c.seeds,
                    cli_bytes(c.seed_bytes, b1, sizeof b1));
            if (s->views)
                fprintf(stderr, " in '%s/%s'", s->views, o->target_names[t]);
            if (c.reproducers)
                fprintf(stderr, "; %llu reproducers", (unsigned long long)c.reproducers);
        }
        if (rs->select_only_bytes) {
            char b3[32], b4[32], cover[160];
            fprintf(stderr, "\ncorpus-distill: seed bytes: %.3fx select-only (%s), %.3fx "
                            "afl-cmin's rule (%s); cover %s",
                    (double)s->emitted.seed_bytes / (double)rs->select_only_bytes,
                    cli_bytes(rs->select_only_bytes, b3, sizeof b3),
                    rs->cmin_bytes ? (double)s->emitted.seed_bytes / (double)rs->cmin_bytes : 0.0,
                    cli_bytes(rs->cmin_bytes, b4, sizeof b4),
                    cover_text(rs, cover, sizeof cover));
        }
        char left[64];
        fprintf(stderr, "\ncorpus-distill: labels: %zu (%llu after the first pass), %llu "
                        "finished%s; %llu execs in %.1f s (%.0f/s); %s%s\n",
                s->result.n_labels, (unsigned long long)rs->labels_input,
                (unsigned long long)finished,
                cli_execs_left(rs->execs_left, secs > 0 ? (double)rs->execs / secs : 0, left,
                               sizeof left),
                (unsigned long long)rs->execs, secs,
                secs > 0 ? (double)rs->execs / secs : 0.0,
                s->refused          ? "refused by the guard against a collapse: "
                : code != CLI_EXIT_OK ? "incomplete: stopped by "
                : o->no_reduce      ? "selected, not reduced (--no-reduce)"
                                    : "complete",
                s->refused ? s->guard.cause
                : code == CLI_EXIT_OK ? "" : !rs->stopped_by ? "a signal"
                                   : strcmp(rs->stopped_by, "signal") == 0 ? "a signal"
                                   : strcmp(rs->stopped_by, "error") == 0  ? "the error above"
                                                                           : rs->stopped_by);
        if (rs->size_bound_bytes)
            cli_msg("size-bound: %s of seeds kept only for %llu label%s of more hits "
                    "than shorter seeds show (a cover by edges alone drops them)",
                    cli_bytes(rs->size_bound_bytes, b1, sizeof b1),
                    (unsigned long long)rs->size_bound_labels,
                    rs->size_bound_labels == 1 ? "" : "s");
        if (rs->labels_left_out)
            cli_msg("found: %llu label%s found in reduction left out of "
                    "the seeds, not worth their bytes (%s, kept in the state; "
                    "--keep-found seeds them)",
                    (unsigned long long)rs->labels_left_out, rs->labels_left_out == 1 ? "" : "s",
                    cli_bytes(rs->left_out_bytes, b1, sizeof b1));
        if (rs->crash_only_labels)
            cli_msg("crash-only: %llu label%s only crashing inputs show, held by no "
                    "reproducer of a bug, hang or signal: their %s of inputs are kept in the "
                    "state", (unsigned long long)rs->crash_only_labels,
                    rs->crash_only_labels == 1 ? "" : "s",
                    cli_bytes(rs->crash_only_bytes, b1, sizeof b1));
        if (s->result.n_unstable)
            cli_msg("unstable: %zu edge%s showed other hit counts when an "
                    "input ran again; their labels are left out (manifest: "
                    "run.unstable_edges)",
                    s->result.n_unstable, s->result.n_unstable == 1 ? "" : "s");
        if (s->state.saved)
            cli_msg("state: %s start, saved to '%s' (%llu run%s)",
                    s->state.start, s->state.path, (unsigned long long)s->state.runs + 1,
                    s->state.runs ? "s" : "");
        if (rs->seen_forgotten)
            cli_msg("seen-set: %s; %llu candidates forgotten (this run "
                    "and the state's) within --seen-mem, run again when met again",
                    cli_bytes(rs->seen_bytes, b1, sizeof b1),
                    (unsigned long long)rs->seen_forgotten);
    }
    if (!o->json_summary)
        return;
    struct cd_report_counts counts = {s->emitted.seeds, s->emitted.seed_bytes,
                                      s->emitted.reproducers, cd_result_count_bugs(&s->result),
                                      s->result.n_labels, finished};
    const void *src[CD_FROM_N] = {NULL, NULL, rs, &counts};
    struct summary sum = {s, code};
    json_object *j = json_object_new_object();
    if (j && cd_report_put(j, CD_VIEW_SUMMARY, src, summary_row, &sum))
        cli_put_json(j);
    else
        json_object_put(j);
}

static void print_details(struct run_state *s, char *report)
{
    cli_progress_clear(s->progress);
    for (unsigned t = 0; t < s->o->n_targets; t++) {
        const struct cd_exec_info *in = &s->runner.info[t];
        char name[96] = "";
        if (s->o->n_targets > 1)
            snprintf(name, sizeof name, " %s", s->o->target_names[t]);
        fprintf(stderr,
                "corpus-distill: target%s: map %zu bytes, timeout %u ms, %s handshake%s%s%s%s, "
                "%u worker%s%s\n",
                name, in->map_size, in->timeout_ms, in->new_protocol ? "new" : "old",
                in->persistent ? ", persistent" : "", in->deferred ? ", deferred" : "",
                in->shm_testcase ? ", shared-memory input" : "",
                in->file_input ? ", @@ file input" : ", stdin input", s->res.jobs,
                s->res.jobs == 1 ? "" : "s", s->o->no_bind ? "" : " bound to CPUs");
    }
    if (report && *report)
        fprintf(stderr, "corpus-distill: reducer passes:\n%s%s", report,
                report[strlen(report) - 1] == '\n' ? "" : "\n");
    free(report);
}

/* The seeds of one target's view (cd_emit_opts.keep): its bit in the result's views. */
struct view_pick {
    const struct cd_result *r;
    unsigned target;
};

static bool in_view(const struct cd_result_example *ex, void *ctx)
{
    const struct view_pick *v = ctx;
    return cd_result_is_seed(ex) && v->r->views[ex - v->r->examples] >> v->target & 1;
}

static const char *view_name(const struct cd_result_example *ex, unsigned k, char *buf,
                             size_t cap, void *ctx)
{
    (void)ctx;
    if (k)
        return NULL;
    snprintf(buf, cap, "%s", ex->sha1);
    return buf;
}

/* Each target's view, DIR.by-target/NAME: staged in full, then swapped in one by one once the
 * seeds are (a failure is a warning: the seeds and the manifest are whole without them). */
static void write_views(struct run_state *s, const struct cd_emit_opts *base)
{
    const struct cli_opts *o = s->o;
    struct stat sb;
    if (s->views && lstat(s->views, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        /* a link planted there would lead the views anywhere */
        cli_warn("the targets' seeds not written to '%s': %s", s->views,
                 S_ISLNK(sb.st_mode) ? "it is a symbolic link" : "not a directory");
        return;
    }
    for (unsigned t = 0; s->views && s->result.views && t < o->n_targets; t++) {
        struct cd_error err;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", s->views, o->target_names[t]);
        struct view_pick pick = {&s->result, t};
        struct cd_emit_opts eo = *base;
        eo.seed_dir = path;
        eo.keep = in_view;
        eo.name = view_name;
        eo.pick_ctx = &pick;
        eo.seed_dir_is_input = false;
        struct cd_emit_stage *stage = NULL;
        enum cd_status st = cd_emit_stage_seeds(&stage, &eo, &s->result, NULL, &err);
        if (st == CD_OK)
            st = cd_emit_commit(stage, NULL, &err);
        if (st != CD_OK)
            cli_warn("the seeds of target '%s' not written to '%s': %s", o->target_names[t],
                     path, err.msg);
    }
}

/* Writes reproducers, seeds and manifest. Everything is written in full before anything is
 * replaced: the seeds (a staged directory, or the archive's temp file) and the manifest's temp
 * file; then the seeds are swapped in and the manifest renamed over the old one, so that a full
 * disk or any other failure while writing leaves the previous seeds and manifest as they were. */
static int write_output(struct run_state *s)
{
    const struct cli_opts *o = s->o;
    struct cd_error err;
    struct cd_emit_opts eo = {s->out, s->crashes, s->manifest, o->force, o->tar,
                              s->out_is_input, s->state.path, cli_manifest_owned, NULL, NULL, NULL};
    struct cd_emit_stage *stage = NULL;
    struct cd_file *manifest = NULL;
    struct cd_manifest_setting settings[CLI_SETTINGS_MAX];
    char shard[32];
    struct cd_manifest_info info = {
        .tool_version = CD_VERSION, .target_argv = o->target_argv,
        .map_size = s->runner.info[0].map_size, .timeout_ms = s->runner.info[0].timeout_ms,
        .mem_limit_mb = o->mem_limit_mb, .settings = settings,
        .n_settings = cli_settings_manifest(o, &s->res, settings, shard),
        .operands = (char **)o->inputs, .skipped = s->skips, .n_skipped = s->n_skips,
        .seed_dir = s->out, .crashes_dir = s->crashes};
    memcpy(info.target_sha1, s->state.target_sha1, sizeof info.target_sha1);
    info.state_path = s->refused ? NULL : s->state.path; /* a refused run writes no state */
    info.state_start = s->state.start;
    info.state_note = s->state.note[0] ? s->state.note : NULL;
    info.state_runs = s->state.runs + 1;
    info.edge_ids = s->edge_ids;
    struct cd_manifest_target targets[CD_LABEL_TARGETS_MAX];
    char views[CD_LABEL_TARGETS_MAX][4096];
    if (o->n_targets > 1) {
        info.targets = targets;
        info.n_targets = o->n_targets;
        for (unsigned t = 0; t < o->n_targets; t++) {
            snprintf(views[t], sizeof views[t], "%s/%s", s->views ? s->views : "",
                     o->target_names[t]);
            targets[t] = (struct cd_manifest_target){
                .name = (char *)o->target_names[t], .argv = o->targets[t],
                .map_size = s->runner.info[t].map_size,
                .timeout_ms = s->runner.info[t].timeout_ms, .view = s->views ? views[t] : NULL};
            memcpy(targets[t].sha1, s->state.target_sha1s[t], sizeof targets[t].sha1);
            info.names[t] = o->target_names[t];
        }
    }
    /* The output this replaces is kept first, whole: a failure here replaces nothing. */
    struct cd_gen_output now = {s->out, o->tar, s->crashes, s->manifest, s->state.path};
    char *kept = NULL;
    enum cd_status st = s->refused || !o->generations
                            ? CD_OK
                            : cd_generations_keep(&now, s->generations, &kept, &err);
    if (st == CD_OK)
        st = cd_emit_reproducers(&eo, &s->result, &s->emitted, &err);
    if (st == CD_OK && !o->tar)
        st = cd_emit_stage_seeds(&stage, &eo, &s->result, &s->emitted, &err);
    if (st == CD_OK)
        st = cd_manifest_stage(&manifest, s->manifest, &info, &s->result, &err);
    if (st == CD_OK) {
        /* cd_emit_commit frees the stage, whatever it returns. */
        st = o->tar ? cd_emit_tar(&eo, &s->result, &s->emitted, &err)
                    : cd_emit_commit(stage, &s->replaced, &err);
        stage = NULL;
    }
    if (st != CD_OK) {
        cd_emit_abort(stage);
        cd_file_abort(manifest);
        if (kept) /* it holds what is still in place */
            cd_generations_drop(s->generations, kept);
        free(kept);
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_OUTPUT),
                        "%s; '%s' and '%s' are as they were", err.msg, s->out, s->manifest);
    }
    free(kept);
    write_views(s, &eo);
    if (cd_file_commit(manifest, &err) != CD_OK)
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
    return CLI_EXIT_OK;
}

static void fill_exec_opts(struct run_state *s)
{
    const struct cli_opts *o = s->o;
    struct cd_exec_opts eo = {0};
    cli_settings_apply(o, &s->res, CLI_TO_EXEC, &eo);
    eo.cpu = -1;
    const char *tmp = getenv("TMPDIR");
    eo.tmp_dir = tmp && *tmp ? tmp : NULL;
    const char *dbg = getenv("AFL_DEBUG");
    eo.debug_child = dbg && *dbg && strcmp(dbg, "0") != 0;
    for (unsigned t = 0; t < o->n_targets; t++) {
        s->exec_opts[t] = eo;
        s->exec_opts[t].argv = o->targets[t];
    }
    s->runner.exec_opts = s->exec_opts;
    s->runner.n_targets = o->n_targets;
    s->runner.bind_cpus = !o->no_bind;
    s->runner.edges_only = o->edges_only;
}

/* Starts the engine from the state file: warm from its table, or with its examples as the first
 * inputs when the target or its settings changed. */
static enum cd_status start_from_state(struct run_state *s, struct cd_error *err)
{
    const struct cli_opts *o = s->o;
    struct cd_table *warm = NULL, *old = NULL;
    size_t seen_mem = s->res.seen_mem;
    if (o->merge)
        CD_FORWARD_IF_ERROR(cli_state_merge(&s->state, o, &s->res, s->runner.info, seen_mem,
                                            &warm, &old, err));
    else if (cli_state_start(&s->state, o, &s->res, s->runner.info, seen_mem, &warm, &old) != 0)
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
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_INPUT), "%s", err.msg);
    if (s->o->verbosity >= 0)
        cli_warn("AFL_LLVM_DOCUMENT_IDS: %s; labels will not "
                 "name functions", err.msg);
    return CLI_EXIT_OK;
}

/* The exact cover's time: --cover-time, within what --max-time leaves but at least 2 s, so that a
 * run ends within seconds of its limit; none once stopped. */
static double cover_seconds(const struct run_state *s)
{
    const struct cli_opts *o = s->o;
    double secs = o->cover_time_s;
    if (stop_flag)
        return 0;
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
                                  cd_distill_table(s->d), s->runner.info, warm, s->state.rerun);
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
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_INPUT), "%s", err.msg);
    struct cd_distill_opts dopts = {
        .targets = o->n_targets,
        .shard = o->merge ? 0 : o->shard, .shards = o->merge ? 0 : o->shards,
        .label_shard = o->merge ? o->shard : 0, .label_shards = o->merge ? o->shards : 0,
        .stop = &stop_flag,
        .progress = cli_progress_cb, .warning = cli_progress_warning, .cb_ctx = s->progress,
        .checkpoint = s->state.path ? cli_state_checkpoint : NULL,
        .checkpoint_ms = o->checkpoint_s * 1000, .checkpoint_ctx = &s->state};
    cli_settings_apply(o, &s->res, CLI_TO_ENGINE, &dopts);
    for (unsigned t = 0; t < o->n_targets; t++) { /* the binary's SHA-1 and the arguments */
        struct cd_hash h = cd_hash_bytes((const uint8_t *)s->state.target_sha1s[t], 40);
        for (char **a = o->targets[t] + 1; *a; a++) {
            struct cd_hash x = cd_hash_bytes((const uint8_t *)*a, strlen(*a) + 1);
            h.lo = (h.lo ^ x.lo) * 0x100000001b3ull;
        }
        dopts.target_ids[t] = h.lo;
    }
    if (cd_distill_new(&s->d, &dopts, &cd_distill_exec_runner, &s->runner, &err) != CD_OK)
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_TARGET), "%s", err.msg);
    enum cd_status st = start_from_state(s, &err);
    if (st >= CD_FAILED && o->merge)
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_INPUT), "%s", err.msg);
    if (st == CD_OK)
        st = cd_distill_ingest(s->d, s->ing, &err);
    if (st >= CD_FAILED && !stop_flag)
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_TARGET), "%s", err.msg);
    const struct cd_ingest_stats *is = cd_ingest_stats(s->ing);
    for (int k = 0; k < CD_SKIP_COUNT; k++)
        if (is->skipped[k])
            s->skips[s->n_skips++] = (struct cd_manifest_skip){
                (char *)cd_ingest_skip_name((enum cd_skip)k), is->skipped[k]};
    if (o->merge && cd_table_n_labels(cd_distill_table(s->d)) == 0)
        return run_fail(s, CLI_EXIT_INPUT, "the states '%s'%s hold no label", o->inputs[0],
                        o->n_inputs > 1 ? " and the others" : "");
    if (is->inputs == 0 && !o->merge) {
        char skip[256];
        skipped_text(is, o->max_input_size, skip, sizeof skip);
        return run_fail(s, CLI_EXIT_INPUT, "no inputs in '%s'%s%s%s", o->inputs[0],
                        o->n_inputs > 1 ? " and the other operands" : "", skip[0] ? ": " : "",
                        skip);
    }
    run_guard(s); /* refused: nothing to reduce; its output goes aside as it is */
    /* Once every input has run, before the long part: the harness build decides the speed. */
    char slow[400] = "";
    for (unsigned t = 0, n = 0; t < o->n_targets && n < sizeof slow; t++)
        if (!s->runner.info[t].persistent && !s->runner.info[t].deferred)
            n += (size_t)snprintf(slow + n, sizeof slow - n, "%s'%s'", n ? ", " : " ",
                                  o->target_names[t]);
    if (o->verbosity >= 0 && *slow)
        cli_msg("note: the target%s has neither persistent mode nor a deferred fork server; its "
                "persistent build (afl-clang-fast -fsanitize=fuzzer) runs about 3 times as fast "
                "(corpus-distill(1), NOTES)", o->n_targets > 1 ? slow : "");
    if (!o->no_reduce && !stop_flag && !s->refused) {
        st = cd_distill_reduce(s->d, &err);
        /* Every input has run: what the table holds covers them all, and may be hours of
           reduction. It is written as a valid, incomplete output rather than lost. */
        if (st >= CD_FAILED && !stop_flag) {
            s->late_code = run_fail(s, cli_exit_for(&err, CLI_EXIT_TARGET),
                                    "%s; writing the best examples found so far", err.msg);
            snprintf(s->error, sizeof s->error, "%s", err.msg);
        }
    }
    if (cd_distill_result(s->d, &s->result, &err) != CD_OK)
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
    s->have_result = true;
    /* afl-cmin -C keeps a crashing input for every tuple crashing inputs show; so does
       --all-best: every best example */
    struct cd_cover_exact exact = {cover_seconds(s), &stop_flag};
    if (cd_result_select_seeds(&s->result, o->all_best, o->keep_found, !o->cmin && !o->all_best,
                               &exact, &err) != CD_OK ||
        cd_result_views(&s->result, o->n_targets, &err) != CD_OK)
        return run_fail(s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
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

/* Serialises the final state while the engine's table is alive; it is written once the output
 * is (write_state). */
static void encode_state(struct run_state *s)
{
    const struct cd_result_stats *rs = &s->result.stats;
    struct cd_error err;
    if (!s->state.path)
        return;
    if (cli_state_encode(&s->state, cd_distill_table(s->d), rs->execs, rs->wall_ns / 1000000,
                         rs->complete, &s->state_buf, &s->state_len, &err) != CD_OK) {
        cli_progress_clear(s->progress);
        cli_warn("state not saved: %s", err.msg);
    }
}

/* Writes the state atomically after the output it goes with. A failure is a warning: the output
 * is whole, and the next run starts from the older state (or cold). */
static void write_state(struct run_state *s)
{
    struct cd_error err;
    if (!s->state_buf)
        return;
    if (cli_state_write(&s->state, s->state_buf, s->state_len, &err) != CD_OK)
        cli_warn("state not saved: %s", err.msg);
    free(s->state_buf);
    s->state_buf = NULL;
}

/* Whether an output path of the run (seeds, reproducers, manifest, state, views) is one another
 * user chooses: a symbolic link of another user's among its components, or, run as root without
 * --allow-root, any directory on its way from "/" that another user owns or can write in a way
 * that decides what the path means (cd_file_unsafe_for_root), whether the output exists yet or
 * not. Root runs a target expected to have memory bugs on inputs others chose, and writes where
 * that user may plant links: a nightly job should run as the user who owns the campaign. The
 * one-line reason goes into why. */
static bool foreign_output(const struct run_state *s, char *why, size_t cap)
{
    const char *paths[] = {s->out, s->crashes, s->manifest, s->state.path, s->views};
    bool root = geteuid() == 0 && !s->o->allow_root;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        char link[4096];
        if (!paths[i])
            continue;
        if (cd_file_foreign_link(paths[i], link, sizeof link)) {
            snprintf(why, cap, "refusing to write under '%s': a symbolic link of another user's, "
                     "who chooses where it leads", link);
            return true;
        }
        if (root && cd_file_unsafe_for_root(paths[i], link, sizeof link)) {
            snprintf(why, cap, "refusing to run as root in '%s': another user owns it or can "
                     "write in it, could plant links there and would own what the target does; "
                     "run as the campaign's user (--allow-root runs anyway)", link);
            return true;
        }
    }
    return false;
}

/* The run's paths and workers from o, and the refusals that come before any time is spent:
 * CLI_EXIT_OK, or an exit code after a message. */
static int run_prepare(struct run_state *s, const struct cli_opts *o)
{
    memset(s, 0, sizeof *s);
    s->lock.fd = -1;
    s->o = o;
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
    bool views = o->n_targets > 1 && !o->tar && stem;
    if (views)
        s->views = beside(stem, ".by-target");
    s->rejected = stem ? beside(stem, ".rejected") : NULL;
    s->generations = stem ? beside(stem, ".generations") : NULL;
    free(stem);
    if (!s->out || !s->crashes || !s->manifest || (!o->no_state && !s->state.path) ||
        (views && !s->views) || !s->rejected || !s->generations)
        return run_fail(s, CLI_EXIT_NOMEM, "out of memory");
    char why[4400];
    int code = cli_guard_operands(o, why, sizeof why);
    if (code != CLI_EXIT_OK)
        return run_fail(s, code, "%s", why);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cli_resolve(o, o->jobs ? o->jobs : (cpus > 0 ? (unsigned)cpus : 1), &s->res);
    const char *forbidden = forbidden_output(o->out_dir);
    if (forbidden)
        return run_fail(s, CLI_EXIT_OUTPUT, "refusing to write seeds to '%s': it is %s (name a "
                        "directory of their own with -o)", o->out_dir, forbidden);
    if (foreign_output(s, why, sizeof why))
        return run_fail(s, CLI_EXIT_OUTPUT, "%s", why);
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
    free(s->replaced);
    free(s->state_buf);
    cli_state_release(&s->state);
    cd_edge_ids_free(s->edge_ids);
    cd_emit_unlock(&s->lock);
}

int cli_run_engine(const struct cli_opts *o, struct cd_result *result, uint64_t *inputs,
                   bool *stopped)
{
    struct run_state s;
    int code = run_prepare(&s, o);
    if (code == CLI_EXIT_OK) {
        install_signals(true);
        s.progress = cli_progress_new(-1);
        fill_exec_opts(&s);
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

/* Points a refused run's outputs into DIR.rejected (seeds or seeds.tar.zst, crashes,
 * manifest.json, seeds.by-target) and drops its state: the last output, manifest, reproducers
 * and state stay as they are. CLI_EXIT_OK, or an exit code after a message. */
static int reject_paths(struct run_state *s)
{
    char *out = cd_file_join(s->rejected, s->o->tar ? "seeds.tar.zst" : "seeds");
    char *crashes = cd_file_join(s->rejected, "crashes");
    char *manifest = cd_file_join(s->rejected, "manifest.json");
    char *views = s->views ? cd_file_join(s->rejected, "seeds.by-target") : NULL;
    free(s->out);
    free(s->crashes);
    free(s->manifest);
    free(s->views);
    s->out = out;
    s->crashes = crashes;
    s->manifest = manifest;
    s->views = views;
    s->out_is_input = false;
    free(s->state_buf);
    s->state_buf = NULL;
    if (!out || !crashes || !manifest || (s->o->n_targets > 1 && !s->o->tar && !views))
        return run_fail(s, CLI_EXIT_NOMEM, "out of memory");
    char why[4400];
    if (foreign_output(s, why, sizeof why))
        return run_fail(s, CLI_EXIT_OUTPUT, "%s", why);
    struct cd_error err;
    if (cd_file_mkdir_p(s->rejected, &err) != CD_OK) /* the manifest goes there before a tar */
        return run_fail(s, CLI_EXIT_OUTPUT, "%s", err.msg);
    return CLI_EXIT_OK;
}

/* The one line a refused run ends with, shown under -q too. */
static void say_refused(struct run_state *s)
{
    const struct cli_guard *g = &s->guard;
    char kept[300];
    if (g->before)
        snprintf(kept, sizeof kept, "the last %llu seed%s in '%.200s' kept",
                 (unsigned long long)g->before_seeds, g->before_seeds == 1 ? "" : "s",
                 s->o->out_dir);
    else
        snprintf(kept, sizeof kept, "nothing written to '%.200s'", s->o->out_dir);
    cli_progress_clear(s->progress);
    snprintf(s->error, sizeof s->error, "refused: %s; %s; this run's output is in '%.400s' "
             "(--accept-collapse takes such a run)", g->line, kept, s->rejected);
    cli_msg("%s", s->error);
}

int cli_run(const struct cli_opts *o)
{
    struct run_state s;
    struct cd_error err;
    int code = run_prepare(&s, o);
    if (code != CLI_EXIT_OK)
        goto out;
    /* Refuse a foreign output directory before spending any time on the run. */
    struct cd_emit_opts eo = {s.out, s.crashes, s.manifest, o->force, o->tar, s.out_is_input,
                              s.state.path, cli_manifest_owned, NULL, NULL, NULL};
    if (cd_emit_lock(&eo, &s.lock, &err) != CD_OK) {
        code = run_fail(&s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
        goto out;
    }
    if (cd_emit_check(&eo, &s.unlisted, &err) != CD_OK) {
        code = run_fail(&s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s%s", err.msg,
                        err.kind == CD_ERR_FOREIGN ? " (--force moves it aside)" : "");
        goto out;
    }
    if (cli_state_check(s.state.path, o->force, &err) != CD_OK) {
        code = run_fail(&s, CLI_EXIT_OUTPUT, "%s", err.msg);
        goto out;
    }
    /* What the run would replace, for the guard; no checkpoint replaces it before that passed */
    cli_guard_before(&s.guard, s.manifest, o);
    struct stat sb;
    s.state.hold = s.state.path && lstat(s.state.path, &sb) == 0;
    install_signals(o->verbosity < 0);
    s.progress = cli_progress_new(o->verbosity);
    fill_exec_opts(&s);
    for (unsigned t = 0; t < o->n_targets; t++)
        cli_target_sha1(o->targets[t][0], s.state.target_sha1s[t]);
    memcpy(s.state.target_sha1, s.state.target_sha1s[0], sizeof s.state.target_sha1);
    code = load_edge_ids(&s);
    if (code == CLI_EXIT_OK)
        code = distill(&s);
    if (code != CLI_EXIT_OK)
        goto out;
    if (!s.refused)
        encode_state(&s);
    /* Closing the engine's runners refreshes the executor info (the calibrated timeout) that the
     * manifest records. */
    char *report = o->verbosity > 0 ? cd_distill_pass_report(s.d) : NULL;
    cd_distill_free(s.d);
    s.d = NULL;
    if (o->verbosity > 0)
        print_details(&s, report);
    cli_progress_clear(s.progress);
    code = s.refused ? reject_paths(&s) : CLI_EXIT_OK;
    if (code == CLI_EXIT_OK)
        code = write_output(&s);
    if (code != CLI_EXIT_OK)
        goto out;
    write_state(&s);
    if (!s.refused && cd_generations_prune(s.generations, o->generations, &err) != CD_OK)
        cli_warn("%s", err.msg);
    if (s.refused) {
        say_refused(&s);
        print_summary(&s, CLI_EXIT_REFUSED);
        code = CLI_EXIT_REFUSED;
        goto out;
    }
    if (s.replaced)
        cli_msg("'%s' was not written by corpus-distill; --force moved it "
                "to '%s'", s.out, s.replaced);
    code = s.late_code                             ? s.late_code
           : s.result.stats.stopped_by || stop_flag ? CLI_EXIT_INCOMPLETE
                                                     : CLI_EXIT_OK;
    print_summary(&s, code);
out:
    if (code >= CLI_EXIT_TARGET && code != CLI_EXIT_REFUSED && o->json_summary && !s.late_code)
        cli_failure_json(code, s.error);
    run_release(&s);
    return code;
}
