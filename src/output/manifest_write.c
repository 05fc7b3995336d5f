/* Manifest, writing side: the JSON record of one distillation, written after the seeds and read
 * back (manifest_read.c) by audit and by emit's ownership check. It uses json-c and depends only on
 * the result (and its file names), the labels' text form and the file helpers: never on emit.
 * Its keys, their order and their types are the run report's table (report.c): the scalars come
 * from it, and the lists and objects (labels, seeds, reproducers, bugs, targets, ...) from the
 * code below, row by row. */
#include "cd_manifest.h"
#include "common/cd_file.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *jstr(const char *s)
{
    if (!s)
        return NULL;
    char *c = cd_report_utf8_clean(s);
    json_object *j = c ? json_object_new_string(c) : NULL;
    free(c);
    return j;
}

static void put(json_object *o, const char *key, json_object *v)
{
    json_object_object_add(o, key, v);
}

const struct cd_manifest_setting *cd_manifest_setting(const struct cd_manifest_info *info,
                                                      const char *name)
{
    for (size_t i = 0; i < info->n_settings; i++)
        if (strcmp(info->settings[i].name, name) == 0)
            return &info->settings[i];
    return NULL;
}

bool cd_manifest_setting_on(const struct cd_manifest_info *info, const char *name)
{
    const struct cd_manifest_setting *s = cd_manifest_setting(info, name);
    return s && (s->type == CD_SETTING_BOOL || s->type == CD_SETTING_COUNT) && s->count;
}

struct cd_label_names cd_manifest_names(const struct cd_manifest_info *info)
{
    return (struct cd_label_names){info->targets, info->n_targets > 1 ? info->n_targets : 0};
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

/* Adds to list an entry made of the n rows (src, and code with ctx for the rest): appended to an
 * array, or with key put in an object. False, list unchanged, when out of memory. */
static bool add_entry(json_object *list, const char *key, const struct cd_report_field *rows,
                      size_t n, const void *const src[CD_FROM_N], cd_report_code_fn *code,
                      void *ctx)
{
    json_object *e = json_object_new_object();
    if (e && cd_report_put_rows(e, CD_VIEW_MANIFEST, rows, n, src, code, ctx) &&
        (key ? json_object_object_add(list, key, e) : json_object_array_add(list, e)) == 0)
        return true;
    json_object_put(e);
    return false;
}

/* What an example's entry takes by code: its labels, those it holds, the views holding it. */
struct example_code {
    const struct cd_result *r;
    size_t i;                           /* the example */
    const struct cd_label_names *names;
    bool views;                         /* its entry names the views holding it */
};

static json_object *example_code(void *ctx, const struct cd_report_field *f, bool *omit)
{
    const struct example_code *c = ctx;
    const struct cd_result_example *ex = &c->r->examples[c->i];
    if (strcmp(f->manifest, "labels") == 0 || strcmp(f->manifest, "best") == 0)
        return jlabels(f->manifest[0] == 'l' ? &ex->labels : &ex->best, c->names);
    if (!c->views) {
        *omit = true;
        return NULL;
    }
    json_object *v = json_object_new_array();
    for (unsigned t = 0; v && t < c->names->n; t++)
        if (c->r->views[c->i] >> t & 1)
            json_object_array_add(v, json_object_new_string(c->names->v[t].name));
    return v;
}

/* The examples of one list: "seeds", "reproducers" or "view_only", each entry by the rows of
 * cd_report_example_fields. */
static json_object *build_examples(const struct cd_result *r, const char *list,
                                   const struct cd_label_names *names)
{
    bool reproducers = strcmp(list, "reproducers") == 0, view_only = list[0] == 'v';
    json_object *a = json_object_new_array();
    for (size_t i = 0; a && i < r->n_examples; i++) {
        const struct cd_result_example *ex = &r->examples[i];
        if (reproducers ? !ex->reproducer
            : view_only ? !cd_result_in_view_only(r, i)
                        : !cd_result_is_seed(ex))
            continue;
        char file[CD_RESULT_NAME_MAX];
        /* in a view every example is named by its SHA-1 */
        struct cd_manifest_example entry = {
            .file = view_only ? (char *)ex->sha1 : (char *)cd_result_file_name(r, ex, file,
                                                                               sizeof file),
            .size = ex->len, .origin = ex->origin};
        memcpy(entry.sha1, ex->sha1, sizeof entry.sha1);
        const void *src[CD_FROM_N] = {[CD_FROM_EXAMPLE] = &entry};
        struct example_code c = {r, i, names, r->views && names->n > 1 && !reproducers};
        if (!add_entry(a, NULL, cd_report_example_fields, cd_report_n_example_fields, src,
                       example_code, &c)) {
            json_object_put(a);
            return NULL;
        }
    }
    return a;
}

/* What a bug's entry takes by code: its label's text, and the frames of its crash state (the
 * note's lines after the first). */
struct bug_code {
    const char *label;
    const char *frames; /* at the newline before the first, or NULL */
};

static json_object *bug_code(void *ctx, const struct cd_report_field *f, bool *omit)
{
    const struct bug_code *c = ctx;
    (void)omit;
    if (strcmp(f->manifest, "label") == 0)
        return json_object_new_string(c->label);
    json_object *frames = json_object_new_array();
    for (const char *p = c->frames; frames && p;) {
        const char *next = strchr(p + 1, '\n');
        size_t n = next ? (size_t)(next - p - 1) : strlen(p + 1);
        char frame[4097]; /* a note holds at most 4,096 bytes */
        snprintf(frame, sizeof frame, "%.*s", (int)n, p + 1);
        json_object_array_add(frames, jstr(frame));
        p = next;
    }
    return frames;
}

/* One entry of "bugs" per bug label with a note: the crash state split into kind, access and
 * frames, the inputs that showed it, and its reproducer. */
static json_object *build_bugs(const struct cd_result *r, const struct cd_label_names *names)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; a && i < r->n_labels; i++) {
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
        struct bug_code c = {text, nl};
        struct cd_manifest_bug b = {.kind = kind, .access = *access ? access : NULL,
                                    .inputs = l->shown};
        memcpy(b.reproducer, ex->sha1, sizeof b.reproducer);
        struct cd_manifest_example x = {
            .file = (char *)cd_result_file_name(r, ex, file, sizeof file), .size = ex->len,
            .origin = ex->origin};
        const void *src[CD_FROM_N] = {[CD_FROM_BUG] = &b, [CD_FROM_EXAMPLE] = &x};
        if (!add_entry(a, NULL, cd_report_bug_fields, cd_report_n_bug_fields, src, bug_code,
                       &c)) {
            json_object_put(a);
            return NULL;
        }
    }
    return a;
}

/* What a target's entry takes by code: its arguments. */
static json_object *target_code(void *ctx, const struct cd_report_field *f, bool *omit)
{
    const struct cd_target *tg = ctx;
    (void)omit;
    return strcmp(f->manifest, "argv") == 0 ? jstrv(tg->opts.argv) : NULL;
}

/* "targets" of a run of several: each one's identity, view, and what the output holds of its. */
static json_object *build_targets(const struct cd_manifest_info *info, const struct cd_result *r)
{
    json_object *a = json_object_new_array();
    for (unsigned t = 0; a && t < info->n_targets; t++) {
        const struct cd_target *tg = &info->targets[t];
        char dir[4400];
        struct cd_manifest_view v = {
            info->views ? (char *)cd_target_view_path(info->views, tg, dir, sizeof dir) : NULL,
            cd_result_target_counts(r, t)};
        const void *src[CD_FROM_N] = {[CD_FROM_TARGET] = tg, [CD_FROM_VIEW] = &v};
        if (!add_entry(a, NULL, cd_report_target_fields, cd_report_n_target_fields, src,
                       target_code, (void *)tg)) {
            json_object_put(a);
            return NULL;
        }
    }
    return a;
}

struct cd_report_counts cd_manifest_counts(const struct cd_result *r)
{
    struct cd_report_counts c = {.labels = r->n_labels, .bugs = cd_result_count_bugs(r),
                                 .unreported = cd_result_count_unreported(r)};
    for (size_t i = 0; i < r->n_examples; i++) {
        if (r->examples[i].reproducer)
            c.reproducers++;
        else if (cd_result_is_seed(&r->examples[i])) {
            c.seeds++;
            c.seed_bytes += r->examples[i].len;
        }
    }
    for (size_t i = 0; i < r->n_labels; i++)
        c.labels_finished += r->labels[i].finished;
    return c;
}

/* What the writer's code gives for a row of the report table it does not take from a struct. */
struct writer {
    const struct cd_manifest_info *info;
    const struct cd_result *r;
    struct cd_label_names names;
};

/* What a label's entry takes by code: where its example is, its size and crash_only when only
 * the state holds it, its function. */
struct label_code {
    const struct writer *w;
    const struct cd_result_label *l;
};

static json_object *label_code(void *ctx, const struct cd_report_field *f, bool *omit)
{
    const struct label_code *c = ctx;
    const struct cd_result_example *ex = &c->w->r->examples[c->l->example];
    if (strcmp(f->manifest, "in") == 0)
        return json_object_new_string(ex->reproducer ? "reproducers"
                                      : ex->left_out ? "state" : "seeds");
    if (strcmp(f->manifest, "size") == 0 && ex->left_out)
        return json_object_new_uint64(ex->len);
    if (strcmp(f->manifest, "crash_only") == 0 && ex->left_out &&
        !cd_labels_is_outcome(c->l->id) && cd_labelset_has_outcome(&ex->labels))
        return json_object_new_boolean(true);
    const char *fn = strcmp(f->manifest, "function") == 0
                         ? cd_edge_ids_function(c->w->info->edge_ids, c->l->id) : NULL;
    *omit = !fn;
    return fn ? jstr(fn) : NULL;
}

static json_object *build_labels(const struct writer *w)
{
    const struct cd_result *r = w->r;
    json_object *o = json_object_new_object();
    for (size_t i = 0; o && i < r->n_labels; i++) {
        const struct cd_result_label *l = &r->labels[i];
        char text[LABEL_TEXT_MAX];
        cd_labels_format_in(l->id, &w->names, text, sizeof text);
        struct cd_manifest_label entry = {.finished = l->finished, .found = l->found};
        memcpy(entry.best, r->examples[l->example].sha1, sizeof entry.best);
        const void *src[CD_FROM_N] = {[CD_FROM_LABEL] = &entry};
        struct label_code c = {w, l};
        if (!add_entry(o, text, cd_report_label_fields, cd_report_n_label_fields, src,
                       label_code, &c)) {
            json_object_put(o);
            return NULL;
        }
    }
    return o;
}

static json_object *build_course(const struct cd_result *r)
{
    json_object *course = json_object_new_array();
    for (size_t i = 0; i < r->n_series; i++) {
        const struct cd_result_point *pt = &r->series[i];
        json_object *row = json_object_new_array();
        uint64_t v[] = {pt->ms,         pt->execs,      pt->labels,
                        pt->finished,   pt->seed_bytes, pt->unfinished_bytes,
                        pt->execs_left, pt->execs_left_at_least};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) /* not converging: -1 */
            json_object_array_add(row, v[k] == UINT64_MAX ? json_object_new_int(-1)
                                                          : json_object_new_uint64(v[k]));
        json_object_array_add(course, row);
    }
    return course;
}

static json_object *code_row(void *ctx, const struct cd_report_field *f, bool *omit)
{
    const struct writer *w = ctx;
    const struct cd_manifest_info *info = w->info;
    const struct cd_result *r = w->r;
    const char *k = f->manifest;
    if (strcmp(k, "schema_version") == 0)
        return json_object_new_int(CD_MANIFEST_SCHEMA);
    if (strcmp(k, "tool.name") == 0)
        return json_object_new_string("corpus-distill");
    if (strcmp(k, "target.argv") == 0)
        return jstrv(info->targets[0].opts.argv);
    if (strcmp(k, "settings") == 0) {
        json_object *o = json_object_new_object();
        for (size_t i = 0; i < info->n_settings; i++) {
            const struct cd_manifest_setting *s = &info->settings[i];
            put(o, s->name, s->type == CD_SETTING_COUNT  ? json_object_new_uint64(s->count)
                            : s->type == CD_SETTING_BOOL ? json_object_new_boolean(s->count != 0)
                            : s->type == CD_SETTING_TEXT ? jstr(s->text)
                                                         : NULL);
        }
        return o;
    }
    if (strcmp(k, "input.operands") == 0)
        return jstrv(info->operands);
    if (strcmp(k, "input.skipped") == 0) {
        json_object *sk = json_object_new_object();
        for (size_t i = 0; i < info->n_skipped; i++)
            put(sk, info->skipped[i].reason, json_object_new_uint64(info->skipped[i].count));
        return sk;
    }
    if (strcmp(k, "run.unstable_edges") == 0) {
        json_object *unstable = json_object_new_array();
        for (size_t i = 0; i < r->n_unstable; i++)
            json_object_array_add(unstable, json_object_new_uint64(r->unstable[i]));
        return unstable;
    }
    if (strcmp(k, "run.course") == 0)
        return build_course(r);
    if (strcmp(k, "labels") == 0)
        return build_labels(w);
    if (strcmp(k, "seeds") == 0 || strcmp(k, "reproducers") == 0)
        return build_examples(r, k, &w->names);
    if (strcmp(k, "view_only") == 0 && r->views && info->n_targets > 1 && info->views)
        return build_examples(r, k, &w->names);
    if (strcmp(k, "bugs") == 0)
        return build_bugs(r, &w->names);
    if (strcmp(k, "targets") == 0 && info->n_targets > 1)
        return build_targets(info, r);
    *omit = true; /* "targets" of a single target */
    return NULL;
}

static json_object *build(const struct cd_manifest_info *given, const struct cd_result *r)
{
    static const struct cd_target unknown; /* a writer that names no target */
    struct cd_manifest_info one = *given;
    if (!one.n_targets)
        one.targets = (struct cd_target *)&unknown, one.n_targets = 1;
    const struct cd_manifest_info *info = &one;
    json_object *root = json_object_new_object();
    struct writer w = {info, r, cd_manifest_names(info)};
    struct cd_report_counts counts = cd_manifest_counts(r);
    const void *src[CD_FROM_N] = {NULL, info, &r->stats, &counts, info->targets};
    if (root && !cd_report_put(root, CD_VIEW_MANIFEST, src, code_row, &w)) {
        json_object_put(root);
        return NULL;
    }
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
