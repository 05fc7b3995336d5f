/* Manifest: the JSON record of one distillation, written after the seeds, read back by audit and by
 * emit's ownership check. It uses json-c for both directions and depends only on the result (and
 * its file names), the labels' text form and the file helpers: never on emit.
 *
 * Schema 1 (every key always present; counts are integers, times in seconds):
 *   schema_version  1
 *   tool            {name, version}
 *   target          {argv: [..], sha1: hex of the binary or "", map_size, timeout_ms, mem_limit_mb}
 *   settings        {seed, jobs, max_time_s, max_execs, max_input_size, no_reduce, edges_only,
 *                    order: "fresh"|"uniform"|"bytes", seen_mem, shard: "K/N"|null,
 *                    keep_found}
 *   input           {operands: [..], inputs, bytes, duplicates, other_shards,
 *                    skipped: {reason: count}}
 *   output          {seed_dir, crashes_dir, seeds, seed_bytes, reproducers, select_only_bytes,
 *                    cmin_rule_bytes, cover_bound_bytes, cover_lp_bound_bytes,
 *                    cover_required_bytes (the cover of the input labels: what the bounds bound),
 *                    cover_greedy_bytes (that cover as greedy chose it), cover_solver
 *                    (greedy|optimal|capped|failed), cover_solve_ms, labels_left_out, left_out_bytes (found
 *                    labels no seed shows, not worth their bytes, and their best examples' bytes),
 *                    crash_only_labels, crash_only_bytes (labels only crashing inputs show, held
 *                    by no reproducer of an outcome label: their inputs stay in the state),
 *                    size_bound_labels, size_bound_bytes (seeds kept only for higher hit-count
 *                    classes of edges shorter seeds show, and those labels)}
 *   run             {executions, first_pass_executions, recheck_executions, crashes, timeouts,
 *                    seen_forgotten, wall_time_s, unstable_edges: [edge, ..] (map slots whose
 *                    labels flicker from run to run, left out of labels and seeds),
 *                    labels_input, labels_found, labels_finished, execs_left (to every label
 *                    finished at the last quarter's pace; null: unknown or not converging),
 *                    complete, stopped_by: null|text,
 *                    error: null|text (what ended the run when stopped_by is "error"),
 *                    course: [[ms, executions, labels, labels_finished, seed_bytes], ..]}
 *   state           {path: text|null, start: "none"|"cold"|"warm"|"target changed"|
 *                    "settings changed"|"unreadable", note: null|text, runs}
 *   labels          {"000123:4": {best: sha1, in: "seeds"|"reproducers"|"state", finished,
 *                    found (no input showed it, or crashing ones only), size (only with
 *                    "state": a found label left out of the seeds, its best example kept in the
 *                    state alone), crash_only (only when true: "state" for a label only
 *                    crashing inputs show),
 *                    function (only when afl-clang-lto's edge IDs were given)}, ...}
 *   seeds           [{sha1, file, size, origin, labels: [..], best: [..]}]   sorted by sha1
 *   reproducers     [{sha1, file, size, origin, labels: [..], best: [..]}]   sorted by sha1
 *   bugs            [{label: "bug:1a2b3c", kind: "asan:heap-buffer-overflow", access: "READ"|
 *                    "WRITE"|null, frames: [..] (top program frames, innermost first), inputs
 *                    (first-pass inputs of this run that showed it), reproducer: sha1, file, size,
 *                    origin}]   by label; earlier manifests lack it
 * Text that is not valid UTF-8 (file names) has each bad byte written as "\xNN". */
#include "cd_manifest.h"
#include "common/cd_file.h"
#include "common/cd_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies s, writing bytes that are not valid UTF-8 as "\xNN". */
static char *utf8_clean(const char *s)
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

static json_object *jstr(const char *s)
{
    if (!s)
        return NULL;
    char *c = utf8_clean(s);
    json_object *j = c ? json_object_new_string(c) : NULL;
    free(c);
    return j;
}

static void put(json_object *o, const char *key, json_object *v)
{
    json_object_object_add(o, key, v);
}

struct cd_label_names cd_manifest_names(const struct cd_manifest_info *info)
{
    return (struct cd_label_names){info->names, info->n_targets > 1 ? info->n_targets : 0};
}

/* The text of label id in a manifest of the targets names. */
#define LABEL_TEXT_MAX 160

static json_object *jlabels(const struct cd_labelset *set, const struct cd_label_names *names)
{
    json_object *a = json_object_new_array_ext((int)set->n);
    for (size_t i = 0; i < set->n; i++) {
        char text[LABEL_TEXT_MAX];
        cd_labels_format_in(set->v[i], names, text, sizeof text);
        json_object_array_add(a, json_object_new_string(text));
    }
    return a;
}

static json_object *jstrv(char *const *v)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; v && v[i]; i++)
        json_object_array_add(a, jstr(v[i]));
    return a;
}

static json_object *build_examples(const struct cd_result *r, bool reproducers,
                                   const struct cd_label_names *names)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < r->n_examples; i++) {
        const struct cd_result_example *ex = &r->examples[i];
        if (reproducers ? !ex->reproducer : !cd_result_is_seed(ex))
            continue;
        char file[CD_RESULT_NAME_MAX];
        json_object *e = json_object_new_object();
        put(e, "sha1", json_object_new_string(ex->sha1));
        put(e, "file", json_object_new_string(cd_result_file_name(r, ex, file, sizeof file)));
        put(e, "size", json_object_new_uint64(ex->len));
        put(e, "origin", ex->origin ? jstr(ex->origin) : json_object_new_string(""));
        put(e, "labels", jlabels(&ex->labels, names));
        put(e, "best", jlabels(&ex->best, names));
        if (r->views && names->n > 1 && !reproducers) {
            json_object *v = json_object_new_array();
            for (unsigned t = 0; t < names->n; t++)
                if (r->views[i] >> t & 1)
                    json_object_array_add(v, json_object_new_string(names->v[t]));
            put(e, "views", v);
        }
        json_object_array_add(a, e);
    }
    return a;
}

/* execs_left as the manifest writes it: null when unknown or not converging. */
static struct json_object *execs_left_json(uint64_t left)
{
    return left && left != UINT64_MAX ? json_object_new_uint64(left) : NULL;
}

/* One entry of "bugs" per bug label with a note: the crash state split into kind, access and
 * frames, the inputs that showed it, and its reproducer. */
static json_object *build_bugs(const struct cd_result *r, const struct cd_label_names *names)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < r->n_labels; i++) {
        const struct cd_result_label *l = &r->labels[i];
        if (!cd_labels_is_bug(l->id) || !l->note)
            continue;
        const struct cd_result_example *ex = &r->examples[l->example];
        char text[LABEL_TEXT_MAX], file[CD_RESULT_NAME_MAX];
        cd_labels_format_in(l->id, names, text, sizeof text);
        const char *nl = strchr(l->note, '\n');
        size_t head = nl ? (size_t)(nl - l->note) : strlen(l->note);
        const char *sp = memchr(l->note, ' ', head);
        char kind[CD_MANIFEST_KIND_MAX];
        snprintf(kind, sizeof kind, "%.*s", (int)(sp ? (size_t)(sp - l->note) : head), l->note);
        char access[16] = "";
        if (sp)
            snprintf(access, sizeof access, "%.*s", (int)(head - (size_t)(sp + 1 - l->note)),
                     sp + 1);
        json_object *frames = json_object_new_array();
        for (const char *p = nl; p;) {
            const char *next = strchr(p + 1, '\n');
            size_t n = next ? (size_t)(next - p - 1) : strlen(p + 1);
            char frame[4097]; /* a note holds at most 4,096 bytes */
            snprintf(frame, sizeof frame, "%.*s", (int)n, p + 1);
            json_object_array_add(frames, jstr(frame));
            p = next;
        }
        json_object *e = json_object_new_object();
        put(e, "label", json_object_new_string(text));
        put(e, "kind", jstr(kind));
        put(e, "access", *access ? jstr(access) : NULL);
        put(e, "frames", frames);
        put(e, "inputs", json_object_new_uint64(l->shown));
        put(e, "reproducer", json_object_new_string(ex->sha1));
        put(e, "file", json_object_new_string(cd_result_file_name(r, ex, file, sizeof file)));
        put(e, "size", json_object_new_uint64(ex->len));
        put(e, "origin", ex->origin ? jstr(ex->origin) : json_object_new_string(""));
        json_object_array_add(a, e);
    }
    return a;
}

/* "targets" of a run of several: each one's identity, view, and what the output holds of its. */
static json_object *build_targets(const struct cd_manifest_info *info, const struct cd_result *r)
{
    json_object *a = json_object_new_array();
    for (unsigned t = 0; t < info->n_targets; t++) {
        const struct cd_manifest_target *mt = &info->targets[t];
        struct cd_result_target c = cd_result_target_counts(r, t);
        json_object *e = json_object_new_object();
        put(e, "name", jstr(mt->name));
        put(e, "argv", jstrv(mt->argv));
        put(e, "sha1", json_object_new_string(mt->sha1));
        put(e, "map_size", json_object_new_uint64(mt->map_size));
        put(e, "timeout_ms", json_object_new_uint64(mt->timeout_ms));
        put(e, "view", mt->view ? jstr(mt->view) : NULL);
        put(e, "labels", json_object_new_uint64(c.labels));
        put(e, "labels_finished", json_object_new_uint64(c.finished));
        put(e, "seeds", json_object_new_uint64(c.seeds));
        put(e, "seed_bytes", json_object_new_uint64(c.seed_bytes));
        put(e, "reproducers", json_object_new_uint64(c.reproducers));
        put(e, "bugs", json_object_new_uint64(c.bugs));
        json_object_array_add(a, e);
    }
    return a;
}

static json_object *build(const struct cd_manifest_info *info, const struct cd_result *r)
{
    json_object *root = json_object_new_object(), *o;
    struct cd_label_names names = cd_manifest_names(info);
    put(root, "schema_version", json_object_new_int(CD_MANIFEST_SCHEMA));

    o = json_object_new_object();
    put(o, "name", json_object_new_string("corpus-distill"));
    put(o, "version", jstr(info->tool_version ? info->tool_version : ""));
    put(root, "tool", o);

    o = json_object_new_object();
    put(o, "argv", jstrv(info->target_argv));
    put(o, "sha1", json_object_new_string(info->target_sha1));
    put(o, "map_size", json_object_new_uint64(info->map_size));
    put(o, "timeout_ms", json_object_new_uint64(info->timeout_ms));
    put(o, "mem_limit_mb", json_object_new_uint64(info->mem_limit_mb));
    put(root, "target", o);

    o = json_object_new_object();
    put(o, "seed", json_object_new_uint64(info->seed));
    put(o, "jobs", json_object_new_uint64(info->jobs));
    put(o, "max_time_s", json_object_new_uint64(info->max_time_s));
    put(o, "max_execs", json_object_new_uint64(info->max_execs));
    put(o, "max_input_size", json_object_new_uint64(info->max_input_size));
    put(o, "no_reduce", json_object_new_boolean(info->no_reduce));
    put(o, "edges_only", json_object_new_boolean(info->edges_only));
    put(o, "order", jstr(info->order ? info->order : "bytes"));
    put(o, "keep_found", json_object_new_boolean(info->keep_found));
    put(o, "seen_mem", json_object_new_uint64(info->seen_mem));
    if (info->shards > 1) {
        char shard[32];
        snprintf(shard, sizeof shard, "%u/%u", info->shard, info->shards);
        put(o, "shard", json_object_new_string(shard));
    } else {
        put(o, "shard", NULL);
    }
    put(root, "settings", o);

    o = json_object_new_object();
    put(o, "operands", jstrv(info->operands));
    put(o, "inputs", json_object_new_uint64(r->stats.inputs));
    put(o, "bytes", json_object_new_uint64(r->stats.input_bytes));
    put(o, "duplicates", json_object_new_uint64(r->stats.duplicates));
    put(o, "other_shards", json_object_new_uint64(r->stats.other_shards));
    json_object *sk = json_object_new_object();
    for (size_t i = 0; i < info->n_skipped; i++)
        put(sk, info->skipped[i].reason, json_object_new_uint64(info->skipped[i].count));
    put(o, "skipped", sk);
    put(root, "input", o);

    uint64_t seeds = 0, seed_bytes = 0, repro = 0, finished = 0;
    for (size_t i = 0; i < r->n_examples; i++) {
        if (r->examples[i].reproducer)
            repro++;
        else if (cd_result_is_seed(&r->examples[i])) {
            seeds++;
            seed_bytes += r->examples[i].len;
        }
    }
    for (size_t i = 0; i < r->n_labels; i++)
        finished += r->labels[i].finished;
    o = json_object_new_object();
    put(o, "seed_dir", jstr(info->seed_dir ? info->seed_dir : ""));
    put(o, "crashes_dir", jstr(info->crashes_dir ? info->crashes_dir : ""));
    put(o, "seeds", json_object_new_uint64(seeds));
    put(o, "seed_bytes", json_object_new_uint64(seed_bytes));
    put(o, "reproducers", json_object_new_uint64(repro));
    put(o, "select_only_bytes", json_object_new_uint64(r->stats.select_only_bytes));
    put(o, "cmin_rule_bytes", json_object_new_uint64(r->stats.cmin_bytes));
    put(o, "cover_bound_bytes", json_object_new_uint64(r->stats.cover_bound));
    put(o, "cover_lp_bound_bytes", json_object_new_uint64(r->stats.cover_lp_bound));
    put(o, "cover_required_bytes", json_object_new_uint64(r->stats.cover_required_bytes));
    put(o, "cover_greedy_bytes", json_object_new_uint64(r->stats.cover_greedy_bytes));
    put(o, "cover_solver",
        json_object_new_string(cd_result_cover_solver_name(r->stats.cover_solver)));
    put(o, "cover_solve_ms", json_object_new_uint64(r->stats.cover_solve_ms));
    put(o, "labels_left_out", json_object_new_uint64(r->stats.labels_left_out));
    put(o, "left_out_bytes", json_object_new_uint64(r->stats.left_out_bytes));
    put(o, "crash_only_labels", json_object_new_uint64(r->stats.crash_only_labels));
    put(o, "crash_only_bytes", json_object_new_uint64(r->stats.crash_only_bytes));
    put(o, "size_bound_labels", json_object_new_uint64(r->stats.size_bound_labels));
    put(o, "size_bound_bytes", json_object_new_uint64(r->stats.size_bound_bytes));
    put(root, "output", o);

    const struct cd_result_stats *s = &r->stats;
    o = json_object_new_object();
    put(o, "executions", json_object_new_uint64(s->execs));
    put(o, "first_pass_executions", json_object_new_uint64(s->first_pass_execs));
    put(o, "recheck_executions", json_object_new_uint64(s->recheck_execs));
    put(o, "other_target_executions", json_object_new_uint64(s->other_target_execs));
    put(o, "crashes", json_object_new_uint64(s->crashes));
    put(o, "timeouts", json_object_new_uint64(s->timeouts));
    put(o, "seen_forgotten", json_object_new_uint64(s->seen_forgotten));
    put(o, "wall_time_s", json_object_new_double((double)s->wall_ns / 1e9));
    json_object *unstable = json_object_new_array();
    for (size_t i = 0; i < r->n_unstable; i++)
        json_object_array_add(unstable, json_object_new_uint64(r->unstable[i]));
    put(o, "unstable_edges", unstable);
    put(o, "labels_input", json_object_new_uint64(s->labels_input));
    put(o, "labels_found", json_object_new_uint64(r->n_labels));
    put(o, "labels_finished", json_object_new_uint64(finished));
    put(o, "execs_left", execs_left_json(r->stats.execs_left));
    put(o, "complete", json_object_new_boolean(s->complete));
    put(o, "stopped_by", s->stopped_by ? json_object_new_string(s->stopped_by) : NULL);
    put(o, "error", s->error ? jstr(s->error) : NULL);
    json_object *course = json_object_new_array();
    for (size_t i = 0; i < r->n_series; i++) {
        const struct cd_result_point *pt = &r->series[i];
        json_object *row = json_object_new_array();
        uint64_t v[] = {pt->ms, pt->execs, pt->labels, pt->finished, pt->seed_bytes};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            json_object_array_add(row, json_object_new_uint64(v[k]));
        json_object_array_add(course, row);
    }
    put(o, "course", course);
    put(root, "run", o);

    o = json_object_new_object();
    put(o, "path", info->state_path ? jstr(info->state_path) : NULL);
    put(o, "start", jstr(info->state_start ? info->state_start : "none"));
    put(o, "note", info->state_note ? jstr(info->state_note) : NULL);
    put(o, "runs", json_object_new_uint64(info->state_runs));
    put(root, "state", o);

    o = json_object_new_object();
    for (size_t i = 0; i < r->n_labels; i++) {
        const struct cd_result_label *l = &r->labels[i];
        const struct cd_result_example *ex = &r->examples[l->example];
        char text[LABEL_TEXT_MAX];
        cd_labels_format_in(l->id, &names, text, sizeof text);
        json_object *e = json_object_new_object();
        put(e, "best", json_object_new_string(ex->sha1));
        put(e, "in", json_object_new_string(ex->reproducer ? "reproducers"
                                            : ex->left_out ? "state" : "seeds"));
        put(e, "finished", json_object_new_boolean(l->finished));
        put(e, "found", json_object_new_boolean(l->found));
        if (ex->left_out)
            put(e, "size", json_object_new_uint64(ex->len));
        if (ex->left_out && !cd_labels_is_outcome(l->id) && cd_labelset_has_outcome(&ex->labels))
            put(e, "crash_only", json_object_new_boolean(true));
        const char *fn = cd_edge_ids_function(info->edge_ids, l->id);
        if (fn)
            put(e, "function", jstr(fn));
        put(o, text, e);
    }
    put(root, "labels", o);
    put(root, "seeds", build_examples(r, false, &names));
    put(root, "reproducers", build_examples(r, true, &names));
    put(root, "bugs", build_bugs(r, &names));
    if (info->n_targets > 1)
        put(root, "targets", build_targets(info, r));
    return root;
}

char *cd_manifest_to_string(const struct cd_manifest_info *info, const struct cd_result *r)
{
    json_object *root = build(info, r);
    if (!root)
        return NULL;
    const char *s = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *out = s ? malloc(strlen(s) + 2) : NULL;
    if (out)
        sprintf(out, "%s\n", s);
    json_object_put(root);
    return out;
}

enum cd_status cd_manifest_stage(struct cd_file **out, const char *path,
                                 const struct cd_manifest_info *info, const struct cd_result *r,
                                 struct cd_error *err)
{
    *out = NULL;
    char *text = cd_manifest_to_string(info, r);
    if (!text)
        return cd_error_oom(err, CD_FAILED, "out of memory writing '%s'", path);
    enum cd_status st = cd_file_stage(out, path, text, strlen(text), err);
    free(text);
    return st;
}

enum cd_status cd_manifest_write(const char *path, const struct cd_manifest_info *info,
                                 const struct cd_result *r, struct cd_error *err)
{
    struct cd_file *f;
    CD_FORWARD_IF_ERROR(cd_manifest_stage(&f, path, info, r, err));
    return cd_file_commit(f, err);
}

/* ---- reading ---- */

struct reader {
    const char *path;
    struct cd_error *err;
    bool bad;
    char what[128];
    char q[64];        /* scratch: a bad value as cd_shown shows it */
    struct cd_label_names names; /* the targets' (read_targets), for label texts */
};

static json_object *get(struct reader *rd, json_object *o, const char *key, json_type type)
{
    json_object *v = NULL;
    if (rd->bad)
        return NULL;
    if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type)) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "missing or wrong \"%s\"", key);
        return NULL;
    }
    return v;
}

/* A count: a JSON integer from 0 to max. Fractions, exponents, NaN, infinities and negative or
 * larger numbers make the manifest bad, as our writer never writes them. */
static uint64_t get_count(struct reader *rd, json_object *o, const char *key, uint64_t max)
{
    json_object *v = NULL;
    if (rd->bad)
        return 0;
    if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int) ||
        json_object_get_int64(v) < 0 || json_object_get_uint64(v) > max) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "missing or wrong \"%s\" (a count is expected)",
                 key);
        return 0;
    }
    return json_object_get_uint64(v);
}

/* A setting from the command line (a random seed may take all 64 bits). */
static uint64_t get_u64(struct reader *rd, json_object *o, const char *key)
{
    return get_count(rd, o, key, UINT64_MAX);
}

/* A measured count or size: never near 2^63, and json-c turns any integer above 2^64 - 1 into
 * 2^64 - 1 without a word. */
static uint64_t get_measured(struct reader *rd, json_object *o, const char *key)
{
    return get_count(rd, o, key, INT64_MAX);
}

/* A measured count that manifests of earlier versions lack: 0 when absent. */
static uint64_t get_later_measured(struct reader *rd, json_object *o, const char *key)
{
    return o && json_object_object_get_ex(o, key, NULL) ? get_measured(rd, o, key) : 0;
}

static unsigned get_uint(struct reader *rd, json_object *o, const char *key)
{
    return (unsigned)get_count(rd, o, key, UINT_MAX);
}

static char *get_str(struct reader *rd, json_object *o, const char *key)
{
    json_object *v = get(rd, o, key, json_type_string);
    return v ? strdup(json_object_get_string(v)) : NULL;
}

static char **get_strv(struct reader *rd, json_object *o, const char *key)
{
    json_object *a = get(rd, o, key, json_type_array);
    if (!a)
        return NULL;
    size_t n = json_object_array_length(a);
    char **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; v && i < n; i++) {
        json_object *s = json_object_array_get_idx(a, i);
        v[i] = strdup(json_object_is_type(s, json_type_string) ? json_object_get_string(s) : "");
    }
    return v;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void get_labels(struct reader *rd, json_object *o, const char *key, struct cd_labelset *set)
{
    json_object *a = get(rd, o, key, json_type_array);
    if (!a)
        return;
    size_t n = json_object_array_length(a);
    for (size_t i = 0; i < n && !rd->bad; i++) {
        const char *t = json_object_get_string(json_object_array_get_idx(a, i));
        uint32_t id;
        if (!t || !cd_labels_parse_in(t, &rd->names, &id) || !cd_labels_valid(id)) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "bad label '%s'",
                     cd_shown(t ? t : "", rd->q, sizeof rd->q));
        } else if (!cd_labelset_push(set, id)) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "out of memory");
        }
    }
    if (set->n > 1)
        qsort(set->v, set->n, sizeof *set->v, cmp_u32);
}

static void copy_sha1(struct reader *rd, json_object *o, const char *key, char out[41])
{
    json_object *v = get(rd, o, key, json_type_string);
    if (!v)
        return;
    const char *s = json_object_get_string(v);
    if (!cd_hash_is_sha1_hex(s)) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "bad \"%s\" '%s'", key,
                 cd_shown(s, rd->q, sizeof rd->q));
        return;
    }
    memcpy(out, s, 41);
}

static int cmp_example(const void *a, const void *b)
{
    return strcmp(((const struct cd_manifest_example *)a)->sha1,
                  ((const struct cd_manifest_example *)b)->sha1);
}

static struct cd_manifest_example *read_examples(struct reader *rd, json_object *root,
                                                 const char *key, size_t *count)
{
    json_object *a = get(rd, root, key, json_type_array);
    *count = 0;
    if (!a)
        return NULL;
    size_t n = json_object_array_length(a);
    struct cd_manifest_example *v = calloc(n ? n : 1, sizeof *v);
    if (!v) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n && !rd->bad; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        struct cd_manifest_example *x = &v[i];
        *count = i + 1;
        copy_sha1(rd, e, "sha1", x->sha1);
        x->file = get_str(rd, e, "file");
        /* The writer names a seed by its SHA-1, a reproducer "crash-[WORDS-]SHA1" or
           "timeout-SHA1": anything else could name another file beside them. */
        bool seeds = strcmp(key, "seeds") == 0;
        const char *f = x->file ? x->file : "", *h = seeds ? f
                                                    : !strncmp(f, "crash-", 6)   ? f + 6
                                                    : !strncmp(f, "timeout-", 8) ? f + 8
                                                                                 : "";
        size_t hl = strlen(h);
        if (!seeds && !strncmp(f, "crash-", 6) && hl > 41 && h[hl - 41] == '-' &&
            strspn(h, "abcdefghijklmnopqrstuvwxyz0123456789_-") == hl && hl < CD_RESULT_NAME_MAX)
            h += hl - 40; /* the bug's words before the SHA-1 */
        if (x->file && !rd->bad && strcmp(h, x->sha1) != 0) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "bad \"file\" '%s'",
                     cd_shown(x->file, rd->q, sizeof rd->q));
        }
        x->size = get_measured(rd, e, "size");
        x->origin = get_str(rd, e, "origin");
        get_labels(rd, e, "labels", &x->labels);
        get_labels(rd, e, "best", &x->best);
        json_object *views = NULL; /* a run of several targets' */
        if (rd->names.n > 1 && json_object_object_get_ex(e, "views", &views) &&
            json_object_is_type(views, json_type_array))
            for (size_t k = 0; k < json_object_array_length(views); k++) {
                const char *name = json_object_get_string(json_object_array_get_idx(views, k));
                for (unsigned t = 0; name && t < rd->names.n; t++)
                    if (strcmp(name, rd->names.v[t]) == 0)
                        x->views |= 1u << t;
            }
    }
    if (!rd->bad)
        qsort(v, n, sizeof *v, cmp_example);
    for (size_t i = 1; i < n && !rd->bad; i++)
        if (strcmp(v[i - 1].sha1, v[i].sha1) == 0) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "%s: '%s' listed twice", key, v[i].sha1);
        }
    return v;
}

static int cmp_label(const void *a, const void *b)
{
    return cmp_u32(&((const struct cd_manifest_label *)a)->id,
                   &((const struct cd_manifest_label *)b)->id);
}

static void read_labels(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    json_object *o = get(rd, root, "labels", json_type_object);
    if (!o)
        return;
    size_t n = (size_t)json_object_object_length(o), i = 0;
    m->labels = calloc(n ? n : 1, sizeof *m->labels);
    if (!m->labels) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "out of memory");
        return;
    }
    json_object_object_foreach(o, key, val)
    {
        if (rd->bad || i >= n)
            break;
        struct cd_manifest_label *l = &m->labels[i++];
        m->n_labels = i;
        if (!cd_labels_parse_in(key, &rd->names, &l->id) || !cd_labels_valid(l->id)) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "bad label '%s'",
                     cd_shown(key, rd->q, sizeof rd->q));
            break;
        }
        copy_sha1(rd, val, "best", l->best);
        json_object *in = get(rd, val, "in", json_type_string);
        const char *where = in ? json_object_get_string(in) : "";
        l->reproducer = strcmp(where, "reproducers") == 0;
        l->left_out = strcmp(where, "state") == 0;
        if (!l->reproducer && !l->left_out && in && strcmp(where, "seeds") != 0) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "label '%s': 'in' is not seeds, reproducers or state",
                     cd_shown(key, rd->q, sizeof rd->q));
            break;
        }
        json_object *fd = NULL; /* optional: older manifests lack it */
        l->found = json_object_object_get_ex(val, "found", &fd) && json_object_get_boolean(fd);
        json_object *sz = NULL;
        if (l->left_out && json_object_object_get_ex(val, "size", &sz) &&
            json_object_is_type(sz, json_type_int) && json_object_get_int64(sz) >= 0)
            l->size = (uint64_t)json_object_get_int64(sz);
        json_object *fin = get(rd, val, "finished", json_type_boolean);
        l->finished = fin && json_object_get_boolean(fin);
        json_object *fn = NULL; /* optional: only with edge IDs */
        if (json_object_object_get_ex(val, "function", &fn)) {
            l->function = json_object_is_type(fn, json_type_string)
                              ? strdup(json_object_get_string(fn)) : NULL;
            if (!l->function) {
                rd->bad = true;
                snprintf(rd->what, sizeof rd->what, "label '%s': bad function",
                         cd_shown(key, rd->q, sizeof rd->q));
            }
        }
    }
    if (!rd->bad)
        qsort(m->labels, m->n_labels, sizeof *m->labels, cmp_label);
    for (size_t k = 1; k < m->n_labels && !rd->bad; k++)
        if (m->labels[k - 1].id == m->labels[k].id) {
            rd->bad = true; /* two spellings of one label */
            snprintf(rd->what, sizeof rd->what, "label %u listed twice", m->labels[k].id);
        }
}

/* "bugs" into m->bugs; earlier manifests have none. Every bug must be a bug label of the
 * manifest whose best example is its reproducer. */
static void read_bugs(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    json_object *a = NULL;
    if (rd->bad || !json_object_object_get_ex(root, "bugs", &a))
        return;
    if (!json_object_is_type(a, json_type_array)) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "wrong \"bugs\" (a list is expected)");
        return;
    }
    size_t n = json_object_array_length(a);
    m->bugs = calloc(n ? n : 1, sizeof *m->bugs);
    if (!m->bugs) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "out of memory");
        return;
    }
    for (size_t i = 0; i < n && !rd->bad; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        struct cd_manifest_bug *b = &m->bugs[i];
        m->n_bugs = i + 1;
        json_object *lab = get(rd, e, "label", json_type_string);
        const struct cd_manifest_label *l = NULL;
        if (lab && (!cd_labels_parse_in(json_object_get_string(lab), &rd->names, &b->id) ||
                    !cd_labels_is_bug(b->id) || !(l = cd_manifest_find_label(m, b->id)))) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "bug %zu: not a bug label of the manifest", i);
            break;
        }
        b->kind = get_str(rd, e, "kind");
        json_object *acc = NULL;
        bool has_access = json_object_object_get_ex(e, "access", &acc) &&
                          json_object_is_type(acc, json_type_string);
        if (has_access)
            b->access = strdup(json_object_get_string(acc));
        b->frames = get_strv(rd, e, "frames");
        b->inputs = get_measured(rd, e, "inputs");
        copy_sha1(rd, e, "reproducer", b->reproducer);
        if (!rd->bad && (!b->kind || !b->frames || (has_access && !b->access))) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "out of memory");
        }
        if (!rd->bad && l && strcmp(l->best, b->reproducer) != 0) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "bug %zu: its reproducer is not its label's best",
                     i);
        }
        if (!rd->bad && i && b->id <= m->bugs[i - 1].id) { /* for cd_manifest_find_bug */
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "bug %zu: not in ascending label order", i);
        }
    }
}

static int bug_cmp(const void *key, const void *elem)
{
    uint32_t id = *(const uint32_t *)key, other = ((const struct cd_manifest_bug *)elem)->id;
    return (id > other) - (id < other);
}

size_t cd_manifest_bug_first(const struct cd_manifest *m, size_t i)
{
    const struct cd_manifest_bug *b = &m->bugs[i];
    for (size_t k = 0; k < i; k++) {
        const struct cd_manifest_bug *c = &m->bugs[k];
        bool same = cd_labels_in_target(c->id, 0) == cd_labels_in_target(b->id, 0) &&
                    strcmp(c->kind, b->kind) == 0 &&
                    !strcmp(c->access ? c->access : "", b->access ? b->access : "");
        for (size_t f = 0; same && (c->frames[f] || b->frames[f]); f++)
            same = c->frames[f] && b->frames[f] && strcmp(c->frames[f], b->frames[f]) == 0;
        if (same)
            return k;
    }
    return i;
}

const struct cd_manifest_bug *cd_manifest_find_bug(const struct cd_manifest *m, uint32_t id)
{
    return m->n_bugs ? bsearch(&id, m->bugs, m->n_bugs, sizeof *m->bugs, bug_cmp) : NULL;
}

/* "targets" of a run of several, whose names label texts then carry; optional. */
static void read_targets(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    json_object *a = NULL;
    if (rd->bad || !json_object_object_get_ex(root, "targets", &a) || !a)
        return;
    size_t n = json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
    if (n < 2 || n > CD_LABEL_TARGETS_MAX) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "wrong \"targets\" (a list of 2 to %u)",
                 CD_LABEL_TARGETS_MAX);
        return;
    }
    struct cd_manifest_info *info = &m->info;
    info->targets = calloc(n, sizeof *info->targets);
    if (!info->targets) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "out of memory");
        return;
    }
    info->n_targets = (unsigned)n;
    for (unsigned t = 0; t < n && !rd->bad; t++) {
        json_object *e = json_object_array_get_idx(a, t);
        struct cd_manifest_target *mt = &info->targets[t];
        mt->name = get_str(rd, e, "name");
        mt->argv = get_strv(rd, e, "argv");
        json_object *sha = get(rd, e, "sha1", json_type_string);
        if (sha)
            snprintf(mt->sha1, sizeof mt->sha1, "%s", json_object_get_string(sha));
        mt->map_size = get_u64(rd, e, "map_size");
        mt->timeout_ms = get_uint(rd, e, "timeout_ms");
        json_object *v = NULL;
        if (json_object_object_get_ex(e, "view", &v) && json_object_is_type(v, json_type_string))
            mt->view = strdup(json_object_get_string(v));
        mt->labels = get_u64(rd, e, "labels");
        mt->labels_finished = get_u64(rd, e, "labels_finished");
        mt->seeds = get_u64(rd, e, "seeds");
        mt->seed_bytes = get_u64(rd, e, "seed_bytes");
        mt->reproducers = get_u64(rd, e, "reproducers");
        mt->bugs = get_u64(rd, e, "bugs");
        /* A name is a label's prefix and a directory's name: nothing else may hide in it. */
        const char *nm = mt->name ? mt->name : "";
        bool ok = cd_labels_name_valid(nm);
        for (unsigned k = 0; ok && k < t; k++)
            ok = strcmp(info->targets[k].name, nm) != 0;
        if (!rd->bad && !ok) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "target %u: bad or repeated name '%s'", t,
                     cd_shown(nm, rd->q, sizeof rd->q));
        }
        info->names[t] = mt->name;
    }
    if (!rd->bad)
        rd->names = cd_manifest_names(info);
}

static void read_info(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    struct cd_manifest_info *info = &m->info;
    json_object *tool = get(rd, root, "tool", json_type_object);
    info->tool_version = get_str(rd, tool, "version");
    json_object *t = get(rd, root, "target", json_type_object);
    info->target_argv = get_strv(rd, t, "argv");
    json_object *sha = get(rd, t, "sha1", json_type_string);
    if (sha)
        snprintf(info->target_sha1, sizeof info->target_sha1, "%s", json_object_get_string(sha));
    info->map_size = get_u64(rd, t, "map_size");
    info->timeout_ms = get_uint(rd, t, "timeout_ms");
    info->mem_limit_mb = get_uint(rd, t, "mem_limit_mb");
    json_object *s = get(rd, root, "settings", json_type_object);
    info->seed = get_u64(rd, s, "seed");
    info->jobs = get_uint(rd, s, "jobs");
    info->max_time_s = get_u64(rd, s, "max_time_s");
    info->max_execs = get_u64(rd, s, "max_execs");
    info->max_input_size = get_u64(rd, s, "max_input_size");
    json_object *nr = get(rd, s, "no_reduce", json_type_boolean);
    info->no_reduce = nr && json_object_get_boolean(nr);
    /* Optional: manifests from before -e existed lack it, and counted hits. */
    json_object *eo = NULL;
    info->edges_only = s && json_object_object_get_ex(s, "edges_only", &eo) &&
                       json_object_get_boolean(eo);
    json_object *in = get(rd, root, "input", json_type_object);
    info->operands = get_strv(rd, in, "operands");
    m->stats.inputs = get_measured(rd, in, "inputs");
    m->stats.input_bytes = get_measured(rd, in, "bytes");
    m->stats.duplicates = get_measured(rd, in, "duplicates");
    json_object *os = NULL; /* optional: manifests from before --shard lack it */
    if (in && json_object_object_get_ex(in, "other_shards", &os) &&
        json_object_is_type(os, json_type_int) && json_object_get_int64(os) >= 0)
        m->stats.other_shards = (uint64_t)json_object_get_int64(os);
    json_object *sh = NULL;
    if (s && json_object_object_get_ex(s, "shard", &sh) && json_object_is_type(sh, json_type_string))
        sscanf(json_object_get_string(sh), "%u/%u", &info->shard, &info->shards);
    json_object *sk = get(rd, in, "skipped", json_type_object);
    if (sk) {
        size_t n = (size_t)json_object_object_length(sk);
        info->skipped = calloc(n ? n : 1, sizeof *info->skipped);
        json_object_object_foreach(sk, key, val)
        {
            if (!info->skipped || info->n_skipped >= n)
                break;
            info->skipped[info->n_skipped].reason = strdup(key);
            (void)val;
            info->skipped[info->n_skipped++].count = get_measured(rd, sk, key);
        }
    }
    json_object *out = get(rd, root, "output", json_type_object);
    info->seed_dir = get_str(rd, out, "seed_dir");
    info->crashes_dir = get_str(rd, out, "crashes_dir");
    m->stats.select_only_bytes = get_later_measured(rd, out, "select_only_bytes");
    m->stats.cmin_bytes = get_later_measured(rd, out, "cmin_rule_bytes");
    m->stats.labels_left_out = get_later_measured(rd, out, "labels_left_out");
    m->stats.left_out_bytes = get_later_measured(rd, out, "left_out_bytes");
    m->stats.crash_only_labels = get_later_measured(rd, out, "crash_only_labels");
    m->stats.crash_only_bytes = get_later_measured(rd, out, "crash_only_bytes");
    m->stats.size_bound_labels = get_later_measured(rd, out, "size_bound_labels");
    m->stats.size_bound_bytes = get_later_measured(rd, out, "size_bound_bytes");
    json_object *kf = NULL; /* optional: manifests from before --keep-found lack it */
    info->keep_found = s && json_object_object_get_ex(s, "keep_found", &kf) &&
                       json_object_get_boolean(kf);
}

/* run.unstable_edges into m->unstable: ascending map slots; earlier manifests have none. */
static void read_unstable(struct reader *rd, json_object *run, struct cd_manifest *m)
{
    json_object *list = NULL;
    if (rd->bad || !run || !json_object_object_get_ex(run, "unstable_edges", &list))
        return;
    size_t n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
    bool ok = json_object_is_type(list, json_type_array);
    if (n && !(m->unstable = calloc(n, sizeof *m->unstable))) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "out of memory");
        return;
    }
    for (size_t i = 0; i < n && ok; i++) {
        json_object *x = json_object_array_get_idx(list, i);
        int64_t v = json_object_is_type(x, json_type_int) ? json_object_get_int64(x) : -1;
        ok = v >= 0 && v < CD_LABEL_EDGE_MAX && (!i || (uint32_t)v > m->unstable[i - 1]);
        if (ok)
            m->unstable[m->n_unstable++] = (uint32_t)v;
    }
    if (!ok) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "wrong \"unstable_edges\" (ascending edges expected)");
    }
}

/* run.course into m->series: points of five counts each; earlier manifests have none. */
static void read_course(struct reader *rd, json_object *run, struct cd_manifest *m)
{
    json_object *course = NULL;
    if (rd->bad || !run || !json_object_object_get_ex(run, "course", &course))
        return;
    size_t n = json_object_is_type(course, json_type_array) ? json_object_array_length(course) : 0;
    if (n && !(m->series = calloc(n, sizeof *m->series))) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "out of memory");
        return;
    }
    for (size_t i = 0; i < n && !rd->bad; i++) {
        json_object *p = json_object_array_get_idx(course, i);
        uint64_t v[5];
        bool ok = json_object_is_type(p, json_type_array) && json_object_array_length(p) == 5;
        for (size_t k = 0; ok && k < 5; k++) {
            json_object *x = json_object_array_get_idx(p, k);
            ok = json_object_is_type(x, json_type_int) && json_object_get_int64(x) >= 0;
            v[k] = ok ? json_object_get_uint64(x) : 0;
        }
        if (!ok) {
            rd->bad = true;
            snprintf(rd->what, sizeof rd->what, "wrong \"course\" point %zu", i);
            return;
        }
        m->series[m->n_series++] = (struct cd_result_point){v[0], v[1], v[2], v[3], v[4]};
    }
    if (!json_object_is_type(course, json_type_array)) {
        rd->bad = true;
        snprintf(rd->what, sizeof rd->what, "wrong \"course\" (a list is expected)");
    }
}

static void read_run(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    json_object *run = get(rd, root, "run", json_type_object);
    m->stats.execs = get_measured(rd, run, "executions");
    m->stats.first_pass_execs = get_measured(rd, run, "first_pass_executions");
    m->stats.recheck_execs = get_later_measured(rd, run, "recheck_executions");
    m->stats.other_target_execs = get_later_measured(rd, run, "other_target_executions");
    m->stats.crashes = get_measured(rd, run, "crashes");
    m->stats.timeouts = get_measured(rd, run, "timeouts");
    json_object *w = NULL;
    if (run && json_object_object_get_ex(run, "wall_time_s", &w)) {
        double secs = json_object_get_double(w);
        /* NaN fails both comparisons; 1e10 s is over 300 years */
        if (!(json_object_is_type(w, json_type_double) || json_object_is_type(w, json_type_int)) ||
            !(secs >= 0 && secs < 1e10)) {
            if (!rd->bad)
                snprintf(rd->what, sizeof rd->what, "wrong \"wall_time_s\"");
            rd->bad = true;
        } else {
            m->stats.wall_ns = (uint64_t)(secs * 1e9);
        }
    }
    m->stats.labels_input = get_measured(rd, run, "labels_input");
    m->labels_finished = get_measured(rd, run, "labels_finished");
    json_object *c = get(rd, run, "complete", json_type_boolean);
    m->stats.complete = c && json_object_get_boolean(c);
    json_object *sb = NULL;
    if (run && json_object_object_get_ex(run, "stopped_by", &sb)
        && json_object_is_type(sb, json_type_string)) {
        snprintf(m->stopped_by_buf, sizeof m->stopped_by_buf, "%s", json_object_get_string(sb));
        m->stats.stopped_by = m->stopped_by_buf;
    }
    read_course(rd, run, m);
    read_unstable(rd, run, m);
}

enum cd_status cd_manifest_read(const char *path, struct cd_manifest *m, struct cd_error *err)
{
    memset(m, 0, sizeof *m);
    /* Opened without waiting (a FIFO would wait for a writer), then checked on the descriptor
       itself, so that the file cannot change kind between the check and the read. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return cd_error_sys(err, CD_FAILED, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return cd_error_set(err, CD_FAILED, "cannot read '%s': not a regular file", path);
    }
    if (sb.st_size > CD_MANIFEST_MAX_BYTES) {
        close(fd);
        return cd_error_set(err, CD_FAILED,
                            "cannot read '%s': larger than the %lld-byte limit of a manifest", path,
                            (long long)CD_MANIFEST_MAX_BYTES);
    }
    size_t cap = (size_t)sb.st_size + 1, len = 0;
    char *text = malloc(cap);
    for (ssize_t n = 1; text && n > 0 && len < cap;) {
        n = read(fd, text + len, cap - len);
        if (n < 0 && errno == EINTR)
            n = 1;
        else if (n > 0)
            len += (size_t)n;
        else if (n < 0) {
            int e = errno;
            free(text);
            close(fd);
            return cd_error_set(err, CD_FAILED, "cannot read '%s': %s", path, strerror(e));
        }
    }
    close(fd);
    if (!text)
        return cd_error_oom(err, CD_FAILED, "out of memory reading '%s'", path);
    if (len == cap) { /* it grew since fstat: not the file it was */
        free(text);
        return cd_error_set(err, CD_FAILED, "cannot read '%s': it changed while read", path);
    }
    /* json-c's tokener, not json_object_from_file: its error text is one line. */
    json_tokener *tok = json_tokener_new();
    if (!tok) {
        free(text);
        return cd_error_oom(err, CD_FAILED, "out of memory reading '%s'", path);
    }
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    for (size_t i = root ? (size_t)tok->char_offset : len; i < len; i++)
        if (!strchr(" \t\r\n", text[i]) || !text[i]) { /* more after the value */
            json_object_put(root);
            root = NULL;
            jerr = json_tokener_error_parse_unexpected;
            break;
        }
    json_tokener_free(tok);
    free(text);
    if (!root)
        return cd_error_set(err, CD_FAILED, "cannot parse '%s': not JSON (%s)", path,
                            len == 0 ? "empty file"
                            : jerr == json_tokener_continue ? "it ends early"
                                                             : json_tokener_error_desc(jerr));
    struct reader rd = {.path = path, .err = err};
    json_object *ver = get(&rd, root, "schema_version", json_type_int);
    if (ver && json_object_get_int(ver) != CD_MANIFEST_SCHEMA) {
        json_object_put(root);
        return cd_error_set(err, CD_FAILED, "cannot read '%s': schema_version %d, expected %d",
                            path, json_object_get_int(ver), CD_MANIFEST_SCHEMA);
    }
    m->schema_version = CD_MANIFEST_SCHEMA;
    read_info(&rd, root, m);
    read_targets(&rd, root, m);
    read_run(&rd, root, m);
    read_labels(&rd, root, m);
    m->seeds = read_examples(&rd, root, "seeds", &m->n_seeds);
    m->reproducers = read_examples(&rd, root, "reproducers", &m->n_reproducers);
    read_bugs(&rd, root, m);
    json_object_put(root);
    if (rd.bad) {
        cd_manifest_release(m);
        return cd_error_set(err, CD_FAILED, "cannot read '%s': %s", path, rd.what);
    }
    return CD_OK;
}

const struct cd_manifest_example *cd_manifest_find_seed(const struct cd_manifest *m,
                                                        const char *sha1)
{
    size_t n = strlen(sha1);
    const struct cd_manifest_example *hit = NULL;
    if (n < 4 || n > 40)
        return NULL;
    for (size_t i = 0; i < m->n_seeds; i++) {
        if (strncmp(m->seeds[i].sha1, sha1, n) != 0)
            continue;
        if (hit)
            return NULL; /* ambiguous prefix */
        hit = &m->seeds[i];
    }
    return hit;
}

const struct cd_manifest_example *cd_manifest_find_reproducer(const struct cd_manifest *m,
                                                              const char *sha1)
{
    size_t lo = 0, hi = m->n_reproducers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->reproducers[mid].sha1, sha1);
        if (c == 0)
            return &m->reproducers[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const struct cd_manifest_label *cd_manifest_find_label(const struct cd_manifest *m, uint32_t id)
{
    size_t lo = 0, hi = m->n_labels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->labels[mid].id == id)
            return &m->labels[mid];
        if (m->labels[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static void free_examples(struct cd_manifest_example *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].file);
        free(v[i].origin);
        cd_labelset_release(&v[i].labels);
        cd_labelset_release(&v[i].best);
    }
    free(v);
}

void cd_manifest_release(struct cd_manifest *m)
{
    free(m->info.tool_version);
    free_strv(m->info.target_argv);
    for (unsigned t = 0; m->info.targets && t < m->info.n_targets; t++) {
        free(m->info.targets[t].name);
        free_strv(m->info.targets[t].argv);
        free(m->info.targets[t].view);
    }
    free(m->info.targets);
    free_strv(m->info.operands);
    for (size_t i = 0; i < m->info.n_skipped; i++)
        free(m->info.skipped[i].reason);
    free(m->info.skipped);
    free(m->info.seed_dir);
    free(m->info.crashes_dir);
    free_examples(m->seeds, m->n_seeds);
    free_examples(m->reproducers, m->n_reproducers);
    for (size_t i = 0; i < m->n_labels; i++)
        free(m->labels[i].function);
    free(m->labels);
    free(m->series);
    free(m->unstable);
    for (size_t i = 0; i < m->n_bugs; i++) {
        free(m->bugs[i].kind);
        free(m->bugs[i].access);
        free_strv(m->bugs[i].frames);
    }
    free(m->bugs);
    memset(m, 0, sizeof *m);
}
