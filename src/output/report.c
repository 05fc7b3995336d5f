/* The run report's one declaration (cd_report.h): the table of every field the manifest and
 * --json-summary hold, in the order they are written, and the walk that writes them. Counts are
 * integers, times in seconds. Text that is not valid UTF-8 (file names) is written with each bad
 * byte as "\xNN". */
#include "cd_report.h"
#include "cd_manifest.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INFO(field) CD_FROM_INFO, offsetof(struct cd_manifest_info, field)
#define STATS(field) CD_FROM_STATS, offsetof(struct cd_result_stats, field)
#define COUNTS(field) CD_FROM_COUNTS, offsetof(struct cd_report_counts, field)
/* A U64 row reads a target's map size (size_t) as 8 bytes. */
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "size_t is not 64 bits");
#define TARGET(field) CD_FROM_TARGET, offsetof(struct cd_target, field)
#define CODE CD_FROM_CODE, 0

#define U64 CD_REPORT_U64
#define UINT CD_REPORT_UINT
#define COUNT CD_REPORT_COUNT
#define BOOL CD_REPORT_BOOL
#define TEXT CD_REPORT_TEXT
#define BY_CODE CD_REPORT_CODE

#define NO CD_READ_NO
#define REQUIRED CD_READ_REQUIRED
#define LATER CD_READ_LATER
#define READ_CODE CD_READ_CODE

#define GUARDS "passed|crashes|same-traces|edges"
#define STATE_STARTS \
    "none|cold|warm|target changed|targets changed|settings changed|unreadable|merged"

const struct cd_report_field cd_report_fields[] = {
    /* manifest key, summary key, type, from, read back, absent text, values, meaning, the text
       summary's phrase; in the order written (the manifest's sections in turn, the summary's
       keys among them) */
    {NULL, "exit_code", BY_CODE, CODE, NO, NULL, NULL, "the exit status", NULL},
    {"schema_version", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL, "1", NULL},
    {"tool.name", NULL, BY_CODE, CODE, NO, NULL, NULL, "the tool, \"corpus-distill\"", NULL},
    {"tool.version", NULL, TEXT, INFO(tool_version), REQUIRED, "", NULL, "its version", NULL},

    /* the target and the settings */
    {"target.argv", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL, "the target command line", NULL},
    {"target.sha1", NULL, CD_REPORT_SHA1, TARGET(sha1), REQUIRED, NULL, NULL,
     "SHA-1 hex of the target binary, or \"\"", NULL},
    {"target.map_size", NULL, U64, TARGET(info.map_size), REQUIRED, NULL, NULL,
     "bytes of the coverage map", NULL},
    {"target.timeout_ms", NULL, UINT, TARGET(info.timeout_ms), REQUIRED, NULL, NULL,
     "the timeout in force", NULL},
    {"target.mem_limit_mb", NULL, UINT, TARGET(opts.mem_limit_mb), REQUIRED, NULL, NULL,
     "the memory limit, 0 for none", NULL},
    {"settings", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "the run's settings, by the names and in the order of the command line's settings table "
     "(src/cli/cli_settings.c)", NULL},

    /* what came in */
    {NULL, "complete", BOOL, STATS(complete), NO, NULL, NULL,
     "every label finished and nothing stopped the run (the manifest: run.complete)", NULL},
    {NULL, "stopped_by", TEXT, STATS(stopped_by), NO, NULL, NULL,
     "what ended the run early, or null (the manifest: run.stopped_by)", NULL},
    {NULL, "error", TEXT, STATS(error), NO, NULL, NULL,
     "the failure that ended the reduction, or null (the manifest: run.error)", NULL},
    {"input.operands", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL, "the command-line inputs", NULL},
    {"input.inputs", NULL, COUNT, STATS(inputs), REQUIRED, NULL, NULL, "inputs run", NULL},
    {NULL, "inputs", BY_CODE, CODE, NO, NULL, NULL, "inputs read", "in: %s inputs"},
    {"input.bytes", NULL, COUNT, STATS(input_bytes), REQUIRED, NULL, NULL, "their size", NULL},
    {NULL, "input_bytes", BY_CODE, CODE, NO, NULL, NULL, "the size of the inputs read", NULL},
    {"input.duplicates", "duplicates", COUNT, STATS(duplicates), REQUIRED, NULL, NULL,
     "inputs whose content was already seen", "(%s duplicates"},
    {"input.other_shards", "other_shards", COUNT, STATS(other_shards), LATER, NULL, NULL,
     "inputs left to the other shards", "?%s inputs left to the other shards"},
    {"input.skipped", "skipped", BY_CODE, CODE, READ_CODE, NULL, NULL,
     "reason to count of inputs skipped", NULL},
    {NULL, "unlisted_inputs", BY_CODE, CODE, NO, NULL, NULL,
     "files of DIR its manifest did not list, taken as inputs", NULL},
    {NULL, "replaced_moved_to", BY_CODE, CODE, NO, NULL, NULL,
     "where --force moved a directory that was not ours, or null", NULL},

    /* what went out */
    {"output.seed_dir", NULL, TEXT, INFO(seed_dir), REQUIRED, "", NULL, "-o", NULL},
    {"output.crashes_dir", NULL, TEXT, INFO(crashes_dir), REQUIRED, "", NULL,
     "the crashes directory", NULL},
    {"output.seeds", "seeds", COUNT, COUNTS(seeds), NO, NULL, NULL, "seeds written",
     "out: %s seeds"},
    {"output.seed_bytes", "seed_bytes", COUNT, COUNTS(seed_bytes), NO, NULL, NULL,
     "their bytes", NULL},
    {"output.reproducers", "reproducers", COUNT, COUNTS(reproducers), NO, NULL, NULL,
     "crash and timeout reproducers written", "?; %s crash/timeout reproducers"},
    {NULL, "bugs", COUNT, COUNTS(bugs), NO, NULL, NULL, "distinct bugs (the manifest: bugs)",
     "?: %s distinct bug"},
    {NULL, "reproducers_unreported", COUNT, COUNTS(unreported), NO, NULL, NULL,
     "reproducers of a crash or hang no sanitizer reported (a signal, an exit status, a timeout)",
     "?%s without a sanitizer report"},
    {"output.select_only_bytes", "select_only_bytes", COUNT, STATS(select_only_bytes), LATER,
     NULL, NULL, "the seed bytes of the first pass's cover (--no-reduce's output)", NULL},
    {"output.cmin_rule_bytes", "cmin_rule_bytes", COUNT, STATS(cmin_bytes), LATER, NULL, NULL,
     "the bytes afl-cmin's rule picks from the first pass", NULL},
    {"output.baseline_run", "baseline_run", COUNT, STATS(baseline_run), LATER, NULL, NULL,
     "the run whose first pass the seeds are weighed against (state.runs' count; 0: none)",
     NULL},
    {"output.baseline_select_only_bytes", "baseline_select_only_bytes", COUNT,
     STATS(baseline_select_only_bytes), LATER, NULL, NULL, "select_only_bytes of that run",
     NULL},
    {"output.baseline_cmin_rule_bytes", "baseline_cmin_rule_bytes", COUNT,
     STATS(baseline_cmin_bytes), LATER, NULL, NULL, "cmin_rule_bytes of that run", NULL},
    {"output.cover_bound_bytes", "cover_bound_bytes", COUNT, STATS(cover_bound), NO, NULL, NULL,
     "no cover of the input labels by the output's candidates weighs less", NULL},
    {"output.cover_lp_bound_bytes", "cover_lp_bound_bytes", COUNT, STATS(cover_lp_bound), NO,
     NULL, NULL, "the cover's linear relaxation, rounded up (0: not solved)", NULL},
    {"output.cover_required_bytes", NULL, COUNT, STATS(cover_required_bytes), NO, NULL, NULL,
     "the seeds' bytes before those of found labels: the cover the bounds bound", NULL},
    {"output.cover_greedy_bytes", NULL, COUNT, STATS(cover_greedy_bytes), NO, NULL, NULL,
     "that cover as the greedy solver chose it", NULL},
    {"output.cover_solver", "cover_solver", CD_REPORT_SOLVER, STATS(cover_solver), NO, NULL,
     "greedy|optimal|capped|failed|stopped", "how the cover was chosen", NULL},
    {"output.cover_solve_ms", "cover_solve_ms", COUNT, STATS(cover_solve_ms), NO, NULL, NULL,
     "the exact solve's wall time", NULL},
    {NULL, "cover_gap", BY_CODE, CODE, NO, NULL, NULL,
     "how far the cover may be above the best, as a fraction of its bound", NULL},
    {NULL, "labels", COUNT, COUNTS(labels), NO, NULL, NULL,
     "labels (the manifest: run.labels_found)", "labels: %s ("},
    {NULL, "labels_finished", COUNT, COUNTS(labels_finished), NO, NULL, NULL,
     "labels finished (the manifest: run.labels_finished)", "), %s finished"},
    {NULL, "execs_left", CD_REPORT_EXECS_LEFT, STATS(execs_left), NO, NULL, NULL,
     "executions left (the manifest: run.execs_left)", NULL},
    {NULL, "execs_left_at_least", BOOL, STATS(execs_left_at_least), NO, NULL, NULL,
     "execs_left is a lower bound only (the manifest: run.execs_left_at_least)", NULL},
    {"output.labels_left_out", "labels_left_out", COUNT, STATS(labels_left_out), LATER, NULL,
     NULL, "found labels no seed shows, not worth their bytes", "?found: %s label"},
    {"output.left_out_bytes", "left_out_bytes", COUNT, STATS(left_out_bytes), LATER, NULL, NULL,
     "the bytes of their best inputs, kept in the state", NULL},
    {"output.crash_only_labels", "crash_only_labels", COUNT, STATS(crash_only_labels), LATER,
     NULL, NULL, "labels only crashing inputs show, held by no reproducer",
     "?crash-only: %s label"},
    {"output.crash_only_bytes", "crash_only_bytes", COUNT, STATS(crash_only_bytes), LATER, NULL,
     NULL, "the bytes of their best inputs, kept in the state", NULL},
    {"output.size_bound_labels", "size_bound_labels", COUNT, STATS(size_bound_labels), LATER,
     NULL, NULL, "higher hit-count classes only longer seeds show", "?kept only for %s label"},
    {"output.size_bound_bytes", "size_bound_bytes", COUNT, STATS(size_bound_bytes), LATER, NULL,
     NULL, "the bytes of the seeds kept only for them", NULL},

    /* the run */
    {"run.executions", "executions", COUNT, STATS(execs), REQUIRED, NULL, NULL,
     "target executions", "; %s execs in"},
    {"run.first_pass_executions", NULL, COUNT, STATS(first_pass_execs), REQUIRED, NULL, NULL,
     "those of the first pass", NULL},
    {"run.recheck_executions", "recheck_executions", COUNT, STATS(recheck_execs), LATER, NULL,
     NULL, "second runs of inputs that showed a new label", NULL},
    {"run.other_target_executions", "other_target_executions", COUNT,
     STATS(other_target_execs), LATER, NULL, NULL,
     "runs of a kept candidate on the targets it was not reduced on", NULL},
    {NULL, "targets", BY_CODE, CODE, NO, NULL, NULL, "with several targets, each one's counts",
     NULL},
    {"run.crashes", NULL, COUNT, STATS(crashes), REQUIRED, NULL, NULL,
     "executions that crashed", NULL},
    {"run.timeouts", NULL, COUNT, STATS(timeouts), REQUIRED, NULL, NULL,
     "executions that timed out", NULL},
    {NULL, "unstable_edges", BY_CODE, CODE, NO, NULL, NULL, "how many edges were unstable",
     "?unstable: %s edge"},
    {NULL, "seen_set_bytes", COUNT, STATS(seen_bytes), NO, NULL, NULL,
     "the seen-set's memory at the end", NULL},
    {"run.seen_forgotten", "seen_forgotten", COUNT, STATS(seen_forgotten), NO, NULL, NULL,
     "seen-set entries forgotten to stay within --seen-mem", "?; %s candidates forgotten"},
    {"run.wall_time_s", "wall_time_s", CD_REPORT_SECONDS, STATS(wall_ns), LATER, NULL, NULL,
     "the run's wall time", NULL},
    {"run.unstable_edges", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "the map slots of the unstable edges, ascending", NULL},
    {"run.labels_input", NULL, COUNT, STATS(labels_input), REQUIRED, NULL, NULL,
     "labels after the first pass", NULL},
    {"run.labels_found", NULL, COUNT, COUNTS(labels), NO, NULL, NULL, "labels", NULL},
    {"run.labels_finished", NULL, COUNT, COUNTS(labels_finished), REQUIRED, NULL, NULL,
     "labels finished", NULL},
    {"run.execs_left", NULL, CD_REPORT_EXECS_LEFT, STATS(execs_left), NO, NULL, NULL,
     "executions left to every label finished (cd_result_execs_left), or null", NULL},
    {"run.execs_left_at_least", NULL, BOOL, STATS(execs_left_at_least), NO, NULL, NULL,
     "execs_left is a lower bound only", NULL},
    {"run.complete", NULL, BOOL, STATS(complete), REQUIRED, NULL, NULL,
     "every label finished and nothing stopped the run", NULL},
    {"run.stopped_by", NULL, TEXT, STATS(stopped_by), READ_CODE, NULL,
     "signal|max-time|max-execs|error", "what ended the run early, or null", NULL},
    {"run.error", NULL, TEXT, STATS(error), NO, NULL, NULL,
     "the failure that ended the reduction, or null", NULL},
    {"run.guard", "guard", TEXT, STATS(guard), NO, "passed", GUARDS,
     "the guard against a collapse that fired (the run's output was written aside, or taken "
     "with --accept-collapse), or \"passed\"", NULL},
    {"run.guard_accepted", "guard_accepted", BOOL, STATS(guard_accepted), NO, NULL, NULL,
     "the guard fired and --accept-collapse took the run all the same", NULL},
    {"run.guard_reason", "guard_reason", TEXT, STATS(guard_reason), NO, NULL, NULL,
     "what fired, with its figures, or null", NULL},
    {"run.course", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "[ms, executions, labels, labels_finished, seed_bytes] at each seed cover", NULL},
    {NULL, "seed_dir", BY_CODE, CODE, NO, NULL, NULL, "the seed directory", NULL},
    {NULL, "crashes_dir", BY_CODE, CODE, NO, NULL, NULL, "the crashes directory", NULL},
    {NULL, "manifest", BY_CODE, CODE, NO, NULL, NULL, "the manifest", NULL},

    /* the state */
    {"state.path", NULL, TEXT, INFO(state_path), NO, NULL, NULL, "the state file, or null", NULL},
    {NULL, "state", BY_CODE, CODE, NO, NULL, NULL, "the state file, or null", NULL},
    {"state.start", NULL, TEXT, INFO(state_start), NO, "none", STATE_STARTS,
     "how the run started from the state", NULL},
    {NULL, "state_start", BY_CODE, CODE, NO, NULL, STATE_STARTS,
     "how the run started from the state", NULL},
    {"state.note", NULL, TEXT, INFO(state_note), NO, NULL, NULL,
     "why the state was not used as it was, or null", NULL},
    {"state.runs", NULL, U64, INFO(state_runs), NO, NULL, NULL,
     "the runs the saved state holds, this one included", NULL},
    {NULL, "state_saved", BY_CODE, CODE, NO, NULL, NULL, "whether the state was saved", NULL},

    /* what each label, seed, reproducer, bug and target is */
    {"labels", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "label text to {best, in, finished, found, size, crash_only, function}", NULL},
    {"seeds", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "[{sha1, file, size, origin, labels, best, views}], sorted by sha1", NULL},
    {"reproducers", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL, "the same for the reproducers",
     NULL},
    {"view_only", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "with several targets: the same for the examples only targets' views hold", NULL},
    {"bugs", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "[{label, kind, access, frames, inputs, reproducer, file, size, origin}], by label", NULL},
    {"targets", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "with several targets: [{name, argv, sha1, map_size, timeout_ms, view, labels, "
     "labels_finished, seeds, seed_bytes, reproducers, bugs}]", NULL},
};
const size_t cd_report_n_fields = sizeof cd_report_fields / sizeof cd_report_fields[0];

/* A target's entry: the manifest's from its record, in the order it always had; --json-summary's
 * and audit's its name and counts, then its view. */
#define VIEW(field) CD_FROM_VIEW, offsetof(struct cd_manifest_view, field)
const struct cd_report_field cd_report_target_fields[] = {
    {"name", "name", TEXT, TARGET(name), REQUIRED, NULL, NULL,
     "its name: its label texts start \"NAME/\"", NULL},
    {"argv", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL, "its command line", NULL},
    {"sha1", NULL, CD_REPORT_SHA1, TARGET(sha1), REQUIRED, NULL, NULL,
     "SHA-1 hex of its binary, or \"\"", NULL},
    {"map_size", NULL, U64, TARGET(info.map_size), REQUIRED, NULL, NULL,
     "bytes of its coverage map", NULL},
    {"timeout_ms", NULL, UINT, TARGET(info.timeout_ms), REQUIRED, NULL, NULL,
     "its timeout in force", NULL},
    {"view", NULL, TEXT, VIEW(dir), READ_CODE, NULL, NULL, "its view's directory, or null", NULL},
    {"labels", "labels", COUNT, VIEW(counts.labels), REQUIRED, NULL, NULL, "its labels", NULL},
    {"labels_finished", "labels_finished", COUNT, VIEW(counts.finished), REQUIRED, NULL, NULL,
     "those finished", NULL},
    {"seeds", "seeds", COUNT, VIEW(counts.seeds), REQUIRED, NULL, NULL, "its view's seeds", NULL},
    {"seed_bytes", "seed_bytes", COUNT, VIEW(counts.seed_bytes), REQUIRED, NULL, NULL,
     "their bytes", NULL},
    {"reproducers", "reproducers", COUNT, VIEW(counts.reproducers), REQUIRED, NULL, NULL,
     "the reproducers of its outcome labels", NULL},
    {"bugs", "bugs", COUNT, VIEW(counts.bugs), REQUIRED, NULL, NULL, "its bug labels", NULL},
    {NULL, "view", TEXT, VIEW(dir), NO, NULL, NULL, "its view's directory, or null", NULL},
};
const size_t cd_report_n_target_fields =
    sizeof cd_report_target_fields / sizeof cd_report_target_fields[0];

/* An example's entry: its file in the seed directory (named by its SHA-1), in the crashes
 * directory ("crash-[WORDS-]SHA1", "timeout-SHA1") or in its views (its SHA-1). */
#define EXAMPLE(field) CD_FROM_EXAMPLE, offsetof(struct cd_manifest_example, field)
const struct cd_report_field cd_report_example_fields[] = {
    {"sha1", NULL, CD_REPORT_SHA1, EXAMPLE(sha1), REQUIRED, NULL, NULL, "SHA-1 hex of its bytes",
     NULL},
    {"file", NULL, TEXT, EXAMPLE(file), REQUIRED, NULL, NULL, "its file name in its directory",
     NULL},
    {"size", NULL, COUNT, EXAMPLE(size), REQUIRED, NULL, NULL, "its bytes", NULL},
    {"origin", NULL, TEXT, EXAMPLE(origin), REQUIRED, "", NULL,
     "the input it was reduced from, \"archive:entry\" or a path", NULL},
    {"labels", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL, "every label it shows", NULL},
    {"best", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL, "the labels it holds", NULL},
    {"views", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "with several targets, a seed's or a view's: the targets whose view holds it", NULL},
};
const size_t cd_report_n_example_fields =
    sizeof cd_report_example_fields / sizeof cd_report_example_fields[0];

/* A label's entry: where its best example is and what reduction did for it. */
#define LABEL(field) CD_FROM_LABEL, offsetof(struct cd_manifest_label, field)
const struct cd_report_field cd_report_label_fields[] = {
    {"best", NULL, CD_REPORT_SHA1, LABEL(best), REQUIRED, NULL, NULL,
     "SHA-1 hex of the example that holds it", NULL},
    {"in", NULL, BY_CODE, CODE, READ_CODE, NULL, "seeds|reproducers|state",
     "where that example is: the seeds, the reproducers, or the state alone", NULL},
    {"finished", NULL, BOOL, LABEL(finished), REQUIRED, NULL, NULL,
     "reduction can do nothing more for it", NULL},
    {"found", NULL, BOOL, LABEL(found), LATER, NULL, NULL,
     "found in reduction: no input showed it", NULL},
    {"size", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "in the state alone: its example's bytes", NULL},
    {"crash_only", NULL, BY_CODE, CODE, NO, NULL, NULL,
     "in the state alone, as it only came with a crash or hang: true", NULL},
    {"function", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "with edge IDs (--ids): the function its edge is in", NULL},
};
const size_t cd_report_n_label_fields =
    sizeof cd_report_label_fields / sizeof cd_report_label_fields[0];

/* A bug's entry: its crash state, then its reproducer's file. */
#define BUG(field) CD_FROM_BUG, offsetof(struct cd_manifest_bug, field)
const struct cd_report_field cd_report_bug_fields[] = {
    {"label", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL, "its bug label", NULL},
    {"kind", NULL, TEXT, BUG(kind), REQUIRED, NULL, NULL,
     "the sanitizer's kind of crash, \"asan:heap-buffer-overflow\"", NULL},
    {"access", NULL, TEXT, BUG(access), READ_CODE, NULL, NULL, "READ, WRITE or null", NULL},
    {"frames", NULL, BY_CODE, CODE, READ_CODE, NULL, NULL,
     "the crash state's frames, innermost first", NULL},
    {"inputs", NULL, COUNT, BUG(inputs), REQUIRED, NULL, NULL,
     "inputs of the run's first pass that showed it", NULL},
    {"reproducer", NULL, CD_REPORT_SHA1, BUG(reproducer), REQUIRED, NULL, NULL,
     "SHA-1 hex of its reproducer: its label's best example", NULL},
    {"file", NULL, TEXT, EXAMPLE(file), NO, NULL, NULL,
     "the reproducer's file name in the crashes directory", NULL},
    {"size", NULL, COUNT, EXAMPLE(size), NO, NULL, NULL, "the reproducer's bytes", NULL},
    {"origin", NULL, TEXT, EXAMPLE(origin), NO, "", NULL, "the input it was reduced from", NULL},
};
const size_t cd_report_n_bug_fields = sizeof cd_report_bug_fields / sizeof cd_report_bug_fields[0];

const char *cd_report_key(const struct cd_report_field *f, enum cd_report_view view)
{
    if (view == CD_VIEW_SUMMARY)
        return f->summary;
    if (!f->manifest)
        return NULL;
    const char *dot = strchr(f->manifest, '.');
    return dot ? dot + 1 : f->manifest;
}

char *cd_report_utf8_clean(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(4 * n + 1), *o = out;
    if (!out)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t len = 0;
        if (*p < 0x80)
            len = 1;
        else if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
            len = 2;
        else if ((*p & 0xf0) == 0xe0)
            len = 3;
        else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
            len = 4;
        for (size_t k = 1; k < len; k++)
            if ((p[k] & 0xc0) != 0x80)
                len = 0;
        if (len == 0) {
            o += sprintf(o, "\\x%02x", *p);
            p++;
        } else {
            memcpy(o, p, len);
            o += len;
            p += len;
        }
    }
    *o = '\0';
    return out;
}

/* Row f's value in src as JSON (NULL: null); *oom set when out of memory. */
static json_object *scalar(const struct cd_report_field *f, const void *src, bool *oom)
{
    const char *at = (const char *)src + f->offset;
    uint64_t u = 0;
    switch (f->kind) {
    case CD_REPORT_U64:
    case CD_REPORT_COUNT:
    case CD_REPORT_SECONDS:
    case CD_REPORT_EXECS_LEFT:
        memcpy(&u, at, sizeof u);
        break;
    case CD_REPORT_UINT: {
        unsigned v;
        memcpy(&v, at, sizeof v);
        u = v;
        break;
    }
    default:
        break;
    }
    json_object *j = NULL;
    switch (f->kind) {
    case CD_REPORT_U64:
    case CD_REPORT_UINT:
    case CD_REPORT_COUNT:
        j = json_object_new_uint64(u);
        break;
    case CD_REPORT_SECONDS:
        j = json_object_new_double((double)u / 1e9);
        break;
    case CD_REPORT_EXECS_LEFT:
        if (!u || u == UINT64_MAX)
            return NULL;
        j = json_object_new_uint64(u);
        break;
    case CD_REPORT_BOOL: {
        bool b;
        memcpy(&b, at, sizeof b);
        j = json_object_new_boolean(b);
        break;
    }
    case CD_REPORT_SHA1:
        j = json_object_new_string(at);
        break;
    case CD_REPORT_SOLVER: {
        enum cd_cover_solver s;
        memcpy(&s, at, sizeof s);
        j = json_object_new_string(cd_result_cover_solver_name(s));
        break;
    }
    case CD_REPORT_TEXT: {
        const char *s;
        memcpy(&s, at, sizeof s);
        if (!s && !(s = f->absent))
            return NULL;
        char *c = cd_report_utf8_clean(s);
        j = c ? json_object_new_string(c) : NULL;
        free(c);
        break;
    }
    case CD_REPORT_CODE:
        return NULL;
    }
    *oom |= !j;
    return j;
}

bool cd_report_put(json_object *root, enum cd_report_view view, const void *const src[CD_FROM_N],
                   cd_report_code_fn *code, void *ctx)
{
    return cd_report_put_rows(root, view, cd_report_fields, cd_report_n_fields, src, code, ctx);
}

bool cd_report_put_rows(json_object *root, enum cd_report_view view,
                        const struct cd_report_field *rows, size_t n,
                        const void *const src[CD_FROM_N], cd_report_code_fn *code, void *ctx)
{
    bool oom = false;
    for (size_t i = 0; i < n && !oom; i++) {
        const struct cd_report_field *f = &rows[i];
        const char *key = cd_report_key(f, view);
        if (!key)
            continue;
        json_object *parent = root;
        if (view == CD_VIEW_MANIFEST && key != f->manifest) {
            char section[32];
            snprintf(section, sizeof section, "%.*s", (int)(key - 1 - f->manifest), f->manifest);
            if (!json_object_object_get_ex(root, section, &parent)) {
                parent = json_object_new_object();
                if (!parent || json_object_object_add(root, section, parent) != 0) {
                    json_object_put(parent);
                    return false;
                }
            }
        }
        bool omit = false;
        json_object *v = f->kind == CD_REPORT_CODE || f->from == CD_FROM_CODE
                             ? code(ctx, f, &omit)
                             : scalar(f, src[f->from], &oom);
        if (!omit && !oom && json_object_object_add(parent, key, v) != 0) {
            json_object_put(v);
            return false;
        }
    }
    return !oom;
}
