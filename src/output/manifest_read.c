/* Manifest, reading side: parses a manifest back for audit, merge and the ownership check of a
 * seed directory. Every value is checked against its schema (manifest_write.c): counts are
 * integers in range, texts are texts, labels parse and index what they name; the first wrong
 * value fails the read with one line naming it. */
#include "cd_manifest.h"
#include "common/cd_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct reader {
    const char *path;
    struct cd_error *err;
    bool bad;
    char what[128];
    char q[64];        /* scratch: a bad value as cd_shown shows it */
    struct cd_label_names names; /* the targets' (read_targets), for label texts */
};

/* Marks the manifest bad, saying why. */
__attribute__((format(printf, 2, 3))) static void fail(struct reader *rd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->what, sizeof rd->what, fmt, ap);
    va_end(ap);
    rd->bad = true;
}

static json_object *get(struct reader *rd, json_object *o, const char *key, json_type type)
{
    json_object *v = NULL;
    if (rd->bad)
        return NULL;
    if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type)) {
        fail(rd, "missing or wrong \"%s\"", key);
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
        fail(rd, "missing or wrong \"%s\" (a count is expected)", key);
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
            fail(rd, "bad label '%s'", cd_shown(t ? t : "", rd->q, sizeof rd->q));
        } else if (!cd_labelset_push(set, id)) {
            fail(rd, "out of memory");
        }
    }
    if (set->n > 1)
        qsort(set->v, set->n, sizeof *set->v, cmp_u32);
}

static int cmp_example(const void *a, const void *b)
{
    return strcmp(((const struct cd_manifest_example *)a)->sha1,
                  ((const struct cd_manifest_example *)b)->sha1);
}

static void read_rows(struct reader *rd, json_object *root, const struct cd_report_field *rows,
                      size_t n, void *const dst[CD_FROM_N]);

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
        fail(rd, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n && !rd->bad; i++) {
        json_object *e = json_object_array_get_idx(a, i);
        struct cd_manifest_example *x = &v[i];
        *count = i + 1;
        void *const dst[CD_FROM_N] = {[CD_FROM_EXAMPLE] = x};
        read_rows(rd, e, cd_report_example_fields, cd_report_n_example_fields, dst);
        if (!rd->bad && !x->sha1[0]) {
            fail(rd, "%s: an entry without its \"sha1\"", key);
        }
        /* The writer names a seed by its SHA-1, a reproducer "crash-[WORDS-]SHA1" or
           "timeout-SHA1": anything else could name another file beside them. */
        bool seeds = strcmp(key, "reproducers") != 0; /* in a view, or a seed */
        const char *f = x->file ? x->file : "", *h = seeds ? f
                                                    : !strncmp(f, "crash-", 6)   ? f + 6
                                                    : !strncmp(f, "timeout-", 8) ? f + 8
                                                                                 : "";
        size_t hl = strlen(h);
        if (!seeds && !strncmp(f, "crash-", 6) && hl > 41 && h[hl - 41] == '-' &&
            strspn(h, "abcdefghijklmnopqrstuvwxyz0123456789_-") == hl && hl < CD_RESULT_NAME_MAX)
            h += hl - 40; /* the bug's words before the SHA-1 */
        if (x->file && !rd->bad && strcmp(h, x->sha1) != 0) {
            fail(rd, "bad \"file\" '%s'", cd_shown(x->file, rd->q, sizeof rd->q));
        }
        get_labels(rd, e, "labels", &x->labels);
        get_labels(rd, e, "best", &x->best);
        json_object *views = NULL; /* a run of several targets' */
        if (rd->names.n > 1 && json_object_object_get_ex(e, "views", &views) &&
            json_object_is_type(views, json_type_array))
            for (size_t k = 0; k < json_object_array_length(views); k++) {
                const char *name = json_object_get_string(json_object_array_get_idx(views, k));
                for (unsigned t = 0; name && t < rd->names.n; t++)
                    if (strcmp(name, rd->names.v[t].name) == 0)
                        x->views |= 1u << t;
            }
    }
    if (!rd->bad)
        qsort(v, n, sizeof *v, cmp_example);
    for (size_t i = 1; i < n && !rd->bad; i++)
        if (strcmp(v[i - 1].sha1, v[i].sha1) == 0) {
            fail(rd, "%s: '%s' listed twice", key, v[i].sha1);
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
        fail(rd, "out of memory");
        return;
    }
    json_object_object_foreach(o, key, val)
    {
        if (rd->bad || i >= n)
            break;
        struct cd_manifest_label *l = &m->labels[i++];
        m->n_labels = i;
        if (!cd_labels_parse_in(key, &rd->names, &l->id) || !cd_labels_valid(l->id)) {
            fail(rd, "bad label '%s'", cd_shown(key, rd->q, sizeof rd->q));
            break;
        }
        void *const dst[CD_FROM_N] = {[CD_FROM_LABEL] = l};
        read_rows(rd, val, cd_report_label_fields, cd_report_n_label_fields, dst);
        if (!rd->bad && !l->best[0]) {
            fail(rd, "label '%s': no \"best\"", cd_shown(key, rd->q, sizeof rd->q));
            break;
        }
        json_object *in = get(rd, val, "in", json_type_string);
        const char *where = in ? json_object_get_string(in) : "";
        l->reproducer = strcmp(where, "reproducers") == 0;
        l->left_out = strcmp(where, "state") == 0;
        if (!l->reproducer && !l->left_out && in && strcmp(where, "seeds") != 0) {
            fail(rd, "label '%s': 'in' is not seeds, reproducers or state",
                 cd_shown(key, rd->q, sizeof rd->q));
            break;
        }
        json_object *sz = NULL;
        if (l->left_out && json_object_object_get_ex(val, "size", &sz) &&
            json_object_is_type(sz, json_type_int) && json_object_get_int64(sz) >= 0)
            l->size = (uint64_t)json_object_get_int64(sz);
        json_object *fn = NULL; /* optional: only with edge IDs */
        if (json_object_object_get_ex(val, "function", &fn)) {
            l->function = json_object_is_type(fn, json_type_string)
                              ? strdup(json_object_get_string(fn)) : NULL;
            if (!l->function) {
                fail(rd, "label '%s': bad function", cd_shown(key, rd->q, sizeof rd->q));
            }
        }
    }
    if (!rd->bad)
        qsort(m->labels, m->n_labels, sizeof *m->labels, cmp_label);
    for (size_t k = 1; k < m->n_labels && !rd->bad; k++)
        if (m->labels[k - 1].id == m->labels[k].id) {
            fail(rd, "label %u listed twice", m->labels[k].id); /* two spellings of one label */
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
        fail(rd, "wrong \"bugs\" (a list is expected)");
        return;
    }
    size_t n = json_object_array_length(a);
    m->bugs = calloc(n ? n : 1, sizeof *m->bugs);
    if (!m->bugs) {
        fail(rd, "out of memory");
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
            fail(rd, "bug %zu: not a bug label of the manifest", i);
            break;
        }
        void *const dst[CD_FROM_N] = {[CD_FROM_BUG] = b};
        read_rows(rd, e, cd_report_bug_fields, cd_report_n_bug_fields, dst);
        json_object *acc = NULL;
        bool has_access = json_object_object_get_ex(e, "access", &acc) &&
                          json_object_is_type(acc, json_type_string);
        if (has_access)
            b->access = strdup(json_object_get_string(acc));
        b->frames = get_strv(rd, e, "frames");
        if (!rd->bad && (!b->kind || !b->frames || (has_access && !b->access))) {
            fail(rd, "out of memory");
        }
        if (!rd->bad && l && strcmp(l->best, b->reproducer) != 0) {
            fail(rd, "bug %zu: its reproducer is not its label's best", i);
        }
        if (!rd->bad && i && b->id <= m->bugs[i - 1].id) { /* for cd_manifest_find_bug */
            fail(rd, "bug %zu: not in ascending label order", i);
        }
    }
}

/* Seconds as a manifest writes them (wall_time_s), in nanoseconds. */
static uint64_t get_seconds(struct reader *rd, json_object *o, const char *key)
{
    json_object *w = NULL;
    if (rd->bad || !json_object_object_get_ex(o, key, &w))
        return 0;
    double secs = json_object_get_double(w);
    /* NaN fails both comparisons; 1e10 s is over 300 years */
    if (!(json_object_is_type(w, json_type_double) || json_object_is_type(w, json_type_int)) ||
        !(secs >= 0 && secs < 1e10)) {
        fail(rd, "wrong \"%s\"", key);
        return 0;
    }
    return (uint64_t)(secs * 1e9);
}

/* Every value of the n rows the reader takes back (CD_READ_REQUIRED, CD_READ_LATER) from root,
 * into the struct its row names in dst. */
static void read_rows(struct reader *rd, json_object *root, const struct cd_report_field *rows,
                      size_t n, void *const dst[CD_FROM_N])
{
    for (size_t i = 0; i < n && !rd->bad; i++) {
        const struct cd_report_field *f = &rows[i];
        if (!f->manifest || (f->read != CD_READ_REQUIRED && f->read != CD_READ_LATER) ||
            f->from == CD_FROM_CODE)
            continue;
        const char *key = cd_report_key(f, CD_VIEW_MANIFEST);
        json_object *o = root;
        if (key != f->manifest) {
            char section[32];
            snprintf(section, sizeof section, "%.*s", (int)(key - 1 - f->manifest), f->manifest);
            o = get(rd, root, section, json_type_object);
        }
        if (!o || (f->read == CD_READ_LATER && !json_object_object_get_ex(o, key, NULL)))
            continue;
        char *at = (char *)dst[f->from] + f->offset;
        switch (f->kind) {
        case CD_REPORT_U64:
        case CD_REPORT_COUNT:
        case CD_REPORT_SECONDS: {
            uint64_t v = f->kind == CD_REPORT_U64     ? get_u64(rd, o, key)
                         : f->kind == CD_REPORT_COUNT ? get_measured(rd, o, key)
                                                      : get_seconds(rd, o, key);
            memcpy(at, &v, sizeof v);
            break;
        }
        case CD_REPORT_UINT: {
            unsigned v = get_uint(rd, o, key);
            memcpy(at, &v, sizeof v);
            break;
        }
        case CD_REPORT_BOOL: {
            json_object *v = get(rd, o, key, json_type_boolean);
            bool b = v && json_object_get_boolean(v);
            memcpy(at, &b, sizeof b);
            break;
        }
        case CD_REPORT_TEXT: {
            char *v = get_str(rd, o, key);
            memcpy(at, &v, sizeof v);
            break;
        }
        case CD_REPORT_SHA1: { /* the writer's hex, or "" where it could not hash */
            json_object *v = get(rd, o, key, json_type_string);
            const char *h = v ? json_object_get_string(v) : "";
            if (*h && !cd_hash_is_sha1_hex(h)) {
                fail(rd, "bad \"%s\" '%s'", key, cd_shown(h, rd->q, sizeof rd->q));
            } else {
                snprintf(at, 41, "%s", h);
            }
            break;
        }
        default: /* a type the table reads by code (CD_READ_CODE) */
            fail(rd, "the reader cannot take \"%s\"", key);
        }
    }
}

/* The report table's values (read_rows). */
static void read_fields(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    void *const dst[CD_FROM_N] = {NULL, &m->info, &m->stats, &m->counts, m->info.targets};
    read_rows(rd, root, cd_report_fields, cd_report_n_fields, dst);
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* Frees what the reader allocated of a target (its name, its arguments) and zeroes them. */
static void release_target(struct cd_target *t)
{
    free((char *)t->name);
    free_strv((char **)t->opts.argv);
    t->name = NULL;
    t->opts.argv = NULL;
}

/* "targets" of a run of several, whose names label texts then carry; optional. */
static void read_targets(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    json_object *a = NULL;
    if (rd->bad || !json_object_object_get_ex(root, "targets", &a) || !a)
        return;
    size_t n = json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
    if (n < 2 || n > CD_LABEL_TARGETS_MAX) {
        fail(rd, "wrong \"targets\" (a list of 2 to %u)", CD_LABEL_TARGETS_MAX);
        return;
    }
    struct cd_manifest_info *info = &m->info;
    struct cd_target *more = realloc(info->targets, n * sizeof *more);
    if (more) {
        info->targets = more;
        memset(more + info->n_targets, 0, (n - info->n_targets) * sizeof *more);
        info->n_targets = (unsigned)n;
    }
    if (!more || !(m->views = calloc(n, sizeof *m->views))) {
        fail(rd, "out of memory");
        return;
    }
    for (unsigned t = 0; t < n && !rd->bad; t++) {
        json_object *e = json_object_array_get_idx(a, t);
        struct cd_target *tg = &info->targets[t];
        release_target(tg); /* the first's "target" keys: the list says the same */
        void *const dst[CD_FROM_N] = {[CD_FROM_TARGET] = tg, [CD_FROM_VIEW] = &m->views[t]};
        read_rows(rd, e, cd_report_target_fields, cd_report_n_target_fields, dst);
        tg->opts.argv = get_strv(rd, e, "argv");
        json_object *v = NULL;
        if (json_object_object_get_ex(e, "view", &v) && json_object_is_type(v, json_type_string))
            m->views[t].dir = strdup(json_object_get_string(v));
        /* A name is a label's prefix and a directory's name: nothing else may hide in it. */
        const char *nm = tg->name ? tg->name : "";
        bool ok = cd_labels_name_valid(nm);
        for (unsigned k = 0; ok && k < t; k++)
            ok = strcmp(info->targets[k].name, nm) != 0;
        if (!rd->bad && !ok) {
            fail(rd, "target %u: bad or repeated name '%s'", t, cd_shown(nm, rd->q, sizeof rd->q));
        }
    }
    if (!rd->bad)
        rd->names = cd_manifest_names(info);
}

/* "settings" into info->settings, each a count, a boolean, a text or null. */
static void read_settings(struct reader *rd, json_object *s, struct cd_manifest_info *info)
{
    size_t n = s ? (size_t)json_object_object_length(s) : 0;
    if (rd->bad || !s)
        return;
    if (n > CD_MANIFEST_SETTINGS_MAX) {
        fail(rd, "more than %d settings", CD_MANIFEST_SETTINGS_MAX);
        return;
    }
    info->settings = calloc(n ? n : 1, sizeof *info->settings);
    if (!info->settings) {
        fail(rd, "out of memory");
        return;
    }
    json_object_object_foreach(s, key, val)
    {
        struct cd_manifest_setting *x = &info->settings[info->n_settings];
        if (rd->bad || info->n_settings == n)
            break;
        if (!(x->name = strdup(key))) {
            fail(rd, "out of memory");
            break;
        }
        info->n_settings++;
        if (!val) {
            x->type = CD_SETTING_NULL;
        } else if (json_object_is_type(val, json_type_boolean)) {
            x->type = CD_SETTING_BOOL;
            x->count = json_object_get_boolean(val);
        } else if (json_object_is_type(val, json_type_string)) {
            x->type = CD_SETTING_TEXT;
            x->text = get_str(rd, s, key);
        } else {
            x->type = CD_SETTING_COUNT;
            x->count = get_u64(rd, s, key);
        }
    }
}

static void read_info(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    struct cd_manifest_info *info = &m->info;
    json_object *t = get(rd, root, "target", json_type_object);
    info->targets[0].opts.argv = get_strv(rd, t, "argv");
    read_settings(rd, get(rd, root, "settings", json_type_object), info);
    json_object *in = get(rd, root, "input", json_type_object);
    info->operands = get_strv(rd, in, "operands");
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
        fail(rd, "out of memory");
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
        fail(rd, "wrong \"unstable_edges\" (ascending edges expected)");
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
        fail(rd, "out of memory");
        return;
    }
    for (size_t i = 0; i < n && !rd->bad; i++) {
        json_object *p = json_object_array_get_idx(course, i);
        /* 5 numbers in manifests before the estimate was kept, 8 since */
        uint64_t v[8] = {0};
        size_t len = json_object_is_type(p, json_type_array) ? json_object_array_length(p) : 0;
        bool ok = len == 5 || len == 8;
        for (size_t k = 0; ok && k < len; k++) {
            json_object *x = json_object_array_get_idx(p, k);
            int64_t x64 = json_object_get_int64(x);
            ok = json_object_is_type(x, json_type_int) &&
                 (x64 >= 0 || (k == 6 && x64 == -1)) && (k != 7 || x64 <= 1);
            v[k] = !ok ? 0 : x64 == -1 ? UINT64_MAX : json_object_get_uint64(x);
        }
        if (!ok) {
            fail(rd, "wrong \"course\" point %zu", i);
            return;
        }
        m->series[m->n_series++] = (struct cd_result_point){v[0], v[1], v[2], v[3], v[4],
                                                            v[5], v[6], v[7] != 0, 0};
    }
    if (!json_object_is_type(course, json_type_array)) {
        fail(rd, "wrong \"course\" (a list is expected)");
    }
}

static void read_run(struct reader *rd, json_object *root, struct cd_manifest *m)
{
    json_object *run = get(rd, root, "run", json_type_object);
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
    int version = ver ? json_object_get_int(ver) : CD_MANIFEST_SCHEMA;
    if (version != CD_MANIFEST_SCHEMA) {
        json_object_put(root); /* ver with it */
        return cd_error_set(err, CD_FAILED, "cannot read '%s': schema_version %d, expected %d",
                            path, version, CD_MANIFEST_SCHEMA);
    }
    m->schema_version = CD_MANIFEST_SCHEMA;
    /* the first target, whose "target" keys every manifest has */
    if (!(m->info.targets = calloc(1, sizeof *m->info.targets))) {
        json_object_put(root);
        return cd_error_oom(err, CD_FAILED, "out of memory reading '%s'", path);
    }
    m->info.n_targets = 1;
    read_fields(&rd, root, m);
    read_info(&rd, root, m);
    read_targets(&rd, root, m);
    read_run(&rd, root, m);
    read_labels(&rd, root, m);
    m->seeds = read_examples(&rd, root, "seeds", &m->n_seeds);
    m->reproducers = read_examples(&rd, root, "reproducers", &m->n_reproducers);
    if (json_object_object_get_ex(root, "view_only", NULL)) /* several targets, newer versions */
        m->view_only = read_examples(&rd, root, "view_only", &m->n_view_only);
    read_bugs(&rd, root, m);
    json_object_put(root);
    if (rd.bad) {
        cd_manifest_release(m);
        return cd_error_set(err, CD_FAILED, "cannot read '%s': %s", path, rd.what);
    }
    return CD_OK;
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
    for (unsigned t = 0; m->info.targets && t < m->info.n_targets; t++) {
        release_target(&m->info.targets[t]);
        if (m->views)
            free(m->views[t].dir);
    }
    free(m->info.targets);
    free(m->views);
    for (size_t i = 0; i < m->info.n_settings; i++) {
        free(m->info.settings[i].name);
        free(m->info.settings[i].text);
    }
    free(m->info.settings);
    free_strv(m->info.operands);
    for (size_t i = 0; i < m->info.n_skipped; i++)
        free(m->info.skipped[i].reason);
    free(m->info.skipped);
    free(m->info.seed_dir);
    free(m->info.crashes_dir);
    free_examples(m->seeds, m->n_seeds);
    free_examples(m->reproducers, m->n_reproducers);
    free_examples(m->view_only, m->n_view_only);
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
