/* What a run tells at its end: the text summary on stderr (unless -q), the --json-summary line
 * drawn from the report table, and -v's details. Paths are shown as given (cli_shown_path). */
#include "output/cd_report.h"
#include "cli_run_internal.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes "3 inputs skipped: 2 too large (limit 1 MiB), 1 unreadable" into buf; "" when none. */
const char *cli_run_skipped_text(const struct cd_ingest_stats *is, size_t limit, char *buf,
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
                 rs->cover_solver == CD_COVER_CAPPED    ? "; the solver's time ran out"
                 : rs->cover_solver == CD_COVER_FAILED  ? "; the exact solve gave nothing back"
                 : rs->cover_solver == CD_COVER_STOPPED ? "; the exact solve was interrupted"
                                                        : "; --cover-time 0: greedy only");
    return buf;
}

/* The kinds of the reproducers of r no sanitizer reported, with their counts, into buf:
 * "2 crash:SIGSEGV, 1 timeout". */
static const char *unreported_kinds(const struct cd_result *r, char *buf, size_t cap)
{
    uint32_t kind[8];
    size_t count[8], k = 0, n = 0;
    for (size_t i = 0; i < r->n_examples; i++) {
        const struct cd_result_example *e = &r->examples[i];
        uint32_t id = e->reproducer ? cd_labels_unreported(e->labels.v, e->labels.n) : 0;
        size_t j = 0;
        while (j < k && kind[j] != id)
            j++;
        if (id && j == k && k < 8)
            kind[k] = id, count[k++] = 0;
        if (id && j < k)
            count[j]++;
    }
    buf[0] = '\0';
    for (size_t j = 0; j < k; j++) {
        char label[64];
        cd_labels_format(kind[j], label, sizeof label);
        int w = snprintf(buf + n, n < cap ? cap - n : 0, "%s%zu %s", j ? ", " : "", count[j],
                         label);
        n += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* seeds / of, as "0.412x", or "-" when of is 0. */
static const char *ratio(uint64_t seeds, uint64_t of, char *buf, size_t cap)
{
    if (of)
        snprintf(buf, cap, "%.3fx", (double)seeds / (double)of);
    else
        snprintf(buf, cap, "-");
    return buf;
}

/* The seeds' bytes against the select-only cover and afl-cmin's rule (simulated, with correct
 * hit-count classes) of this run's first pass, and against the baseline the state keeps when it
 * is an earlier run's: a nightly run's inputs hold the last seeds, so its own first pass is no
 * measure of what the seeds saved on the inputs as they came. */
static void seed_bytes_lines(struct run_state *s)
{
    const struct cd_result_stats *rs = &s->result.stats;
    uint64_t seeds = s->emitted.seed_bytes, run = s->state.runs + 1;
    char r1[32], r2[32], b1[32], b2[32], cover[160];
    bool earlier = rs->baseline_run && rs->baseline_run != run;
    bool warm = s->state.start && strcmp(s->state.start, "cold") != 0 &&
                strcmp(s->state.start, "none") != 0 && strcmp(s->state.start, "unreadable") != 0;
    if (earlier)
        cli_msg("seed bytes: %s select-only (%s), %s afl-cmin's rule, simulated (%s), of run "
                "%llu's inputs: the baseline the state keeps",
                ratio(seeds, rs->baseline_select_only_bytes, r1, sizeof r1),
                cli_bytes(rs->baseline_select_only_bytes, b1, sizeof b1),
                ratio(seeds, rs->baseline_cmin_bytes, r2, sizeof r2),
                cli_bytes(rs->baseline_cmin_bytes, b2, sizeof b2),
                (unsigned long long)rs->baseline_run);
    cli_msg("seed bytes: %s select-only (%s), %s afl-cmin's rule, simulated (%s)%s; cover %s",
            ratio(seeds, rs->select_only_bytes, r1, sizeof r1),
            cli_bytes(rs->select_only_bytes, b1, sizeof b1),
            ratio(seeds, rs->cmin_bytes, r2, sizeof r2), cli_bytes(rs->cmin_bytes, b2, sizeof b2),
            earlier ? ", of this run's inputs, the last seeds among them"
            : warm  ? ", of this run's inputs, the last seeds among them (the state kept no "
                      "baseline: the next runs keep this one)"
                    : "",
            cover_text(rs, cover, sizeof cover));
}

/* Appends to the line buf (cap bytes, *n used), never past its end. */
static void add(char *buf, size_t cap, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    if (*n >= cap)
        return;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    *n = k < 0 ? cap : *n + (size_t)k;
}

/* A JSON string of path as the user gave it (cli_shown_path). */
static json_object *shown_string(const char *path)
{
    char buf[8192];
    return json_object_new_string(cli_shown_path(path, buf, sizeof buf));
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
        return s->replaced ? shown_string(s->replaced) : NULL;
    if (strcmp(k, "cover_gap") == 0)
        return json_object_new_double(cd_result_cover_gap(&s->result.stats));
    if (strcmp(k, "unstable_edges") == 0)
        return json_object_new_uint64(s->result.n_unstable);
    if (strcmp(k, "seed_dir") == 0)
        return shown_string(s->out);
    if (strcmp(k, "crashes_dir") == 0)
        return shown_string(s->crashes);
    if (strcmp(k, "manifest") == 0)
        return shown_string(s->manifest);
    if (strcmp(k, "state") == 0)
        return s->state.path ? shown_string(s->state.path) : NULL;
    if (strcmp(k, "state_start") == 0)
        return json_object_new_string(s->state.start ? s->state.start : "none");
    if (strcmp(k, "state_saved") == 0)
        return json_object_new_boolean(s->state.saved > 0);
    if (strcmp(k, "targets") == 0 && o->n_targets > 1 && s->targets) {
        json_object *ta = json_object_new_array();
        for (unsigned t = 0; t < o->n_targets; t++) {
            char view[4200], shown[8192];
            cd_target_view_path(s->views, &s->targets[t], view, sizeof view);
            struct cd_manifest_view v = {
                s->views ? (char *)cli_shown_path(view, shown, sizeof shown) : NULL,
                cd_result_target_counts(&s->result, t)};
            const void *src[CD_FROM_N] = {[CD_FROM_TARGET] = &s->targets[t], [CD_FROM_VIEW] = &v};
            json_object *e = json_object_new_object();
            cd_report_put_rows(e, CD_VIEW_SUMMARY, cd_report_target_fields,
                               cd_report_n_target_fields, src, NULL, NULL);
            json_object_array_add(ta, e);
        }
        return ta;
    }
    *omit = true; /* "targets" of a single target */
    return NULL;
}

void cli_run_print_summary(struct run_state *s, int code)
{
    const struct cli_opts *o = s->o;
    const struct cd_ingest_stats *is = cd_ingest_stats(s->ing);
    const struct cd_result_stats *rs = &s->result.stats;
    uint64_t finished = 0;
    for (size_t i = 0; i < s->result.n_labels; i++)
        finished += s->result.labels[i].finished;
    double secs = (double)rs->wall_ns / 1e9;
    char b1[32], b2[32], skip[256];
    cli_run_skipped_text(is, o->max_input_size, skip, sizeof skip);
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
        char line[8192];
        size_t n = 0;
        add(line, sizeof line, &n, "out: %llu seeds, %s in '%s'",
            (unsigned long long)s->emitted.seeds, cli_bytes(s->emitted.seed_bytes, b2, sizeof b2),
            s->out);
        if (s->emitted.reproducers)
            add(line, sizeof line, &n, "; %llu crash/timeout reproducers in '%s'",
                (unsigned long long)s->emitted.reproducers, s->crashes);
        /* what they are: bugs a sanitizer named, and crashes or hangs none reported */
        size_t bugs = cd_result_count_bugs(&s->result);
        size_t unreported = cd_result_count_unreported(&s->result);
        if (bugs)
            add(line, sizeof line, &n, ": %zu distinct bug%s by sanitizer report", bugs,
                bugs == 1 ? "" : "s");
        if (unreported) {
            char kinds[256];
            add(line, sizeof line, &n, "%s%zu without a sanitizer report: %s", bugs ? ", " : ": ",
                unreported, unreported_kinds(&s->result, kinds, sizeof kinds));
        }
        if (bugs || unreported)
            add(line, sizeof line, &n, " (audit --crashes)");
        cli_msg("%s", line);
        for (unsigned t = 0; o->n_targets > 1 && t < o->n_targets; t++) {
            struct cd_result_target c = cd_result_target_counts(&s->result, t);
            n = 0;
            add(line, sizeof line, &n, "target %s: %llu labels, %llu finished; %llu seeds, %s",
                o->targets[t].name, (unsigned long long)c.labels, (unsigned long long)c.finished,
                (unsigned long long)c.seeds, cli_bytes(c.seed_bytes, b1, sizeof b1));
            char view[4200];
            if (s->views)
                add(line, sizeof line, &n, " in '%s'",
                    cd_target_view_path(s->views, &s->targets[t], view, sizeof view));
            if (c.reproducers)
                add(line, sizeof line, &n, "; %llu reproducers", (unsigned long long)c.reproducers);
            cli_msg("%s", line);
        }
        if (rs->select_only_bytes)
            seed_bytes_lines(s);
        char left[80];
        cli_msg("labels: %zu (%llu after the first pass), %llu finished%s; %llu execs in %.1f s "
                "(%.0f/s); %s%s",
                s->result.n_labels, (unsigned long long)rs->labels_input,
                (unsigned long long)finished,
                cli_execs_left(rs->execs_left, rs->execs_left_at_least,
                               secs > 0 ? (double)rs->execs / secs : 0, left, sizeof left),
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
                                      s->result.n_labels, finished,
                                      cd_result_count_unreported(&s->result)};
    const void *src[CD_FROM_N] = {NULL, NULL, rs, &counts};
    struct summary sum = {s, code};
    json_object *j = json_object_new_object();
    if (j && cd_report_put(j, CD_VIEW_SUMMARY, src, summary_row, &sum))
        cli_put_json(j);
    else
        json_object_put(j);
}

void cli_run_print_details(struct run_state *s, char *report)
{
    cli_progress_clear(s->progress);
    for (unsigned t = 0; t < s->o->n_targets; t++) {
        const struct cd_exec_info *in = &s->targets[t].info;
        char name[96] = "";
        if (s->o->n_targets > 1)
            snprintf(name, sizeof name, " %s", s->o->targets[t].name);
        cli_msg("target%s: map %zu bytes, timeout %u ms, %s handshake%s%s%s%s, %u worker%s%s",
                name, in->map_size, in->timeout_ms, in->new_protocol ? "new" : "old",
                in->persistent ? ", persistent" : "", in->deferred ? ", deferred" : "",
                in->shm_testcase ? ", shared-memory input" : "",
                in->file_input ? ", @@ file input" : ", stdin input", s->res.jobs,
                s->res.jobs == 1 ? "" : "s", s->runner.bind_cpus ? " bound to CPUs" : "");
    }
    if (report && *report) {
        cli_msg("reducer passes:");
        for (char *line = report, *next; line && *line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = '\0';
            cli_line(stderr, "%s", line);
        }
    }
    free(report);
}
