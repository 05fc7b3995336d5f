/* The run's settings, declared once: a row a setting, naming where its value is (the command
 * line's struct cli_opts, or struct cli_resolved: what the run made of it and of the
 * environment) and where it goes: the engine's options, the executor's, the manifest's
 * "settings" (in the table's order) and the state's identity (the settings that change labels,
 * in the order of its line, which earlier states were written with). A new option is its row
 * here plus the code that uses it; what a row cannot copy (the shard, the map size the target
 * reports, AFL_CRASH_EXITCODE's "none") its kind hands to the code below. */
#include "cli.h"
#include "exec/cd_identity.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX
#define OPTS(f) CLI_FROM_OPTS, offsetof(struct cli_opts, f), sizeof(((struct cli_opts *)0)->f)
#define RES(f)                                                                                    \
    CLI_FROM_RESOLVED, offsetof(struct cli_resolved, f), sizeof(((struct cli_resolved *)0)->f)
#define CODE CLI_FROM_CODE, NONE, 0
#define ENGINE(f)                                                                                 \
    offsetof(struct cd_distill_opts, f), sizeof(((struct cd_distill_opts *)0)->f)
#define EXEC(f) offsetof(struct cd_exec_opts, f), sizeof(((struct cd_exec_opts *)0)->f)
#define NOT NONE, 0
#define RUN CLI_SCOPE_RUN
#define TARGET CLI_SCOPE_TARGET

const struct cli_setting cli_settings[] = {
    /* name, type, from, engine, executor, in the manifest, place in the identity (0: none),
       left out of it when 0, texts it may hold, meaning, scope (TARGET: also given for one
       target, "-t NAME=MS"); the manifest's in its order */
    {"seed", CLI_SET_U64, OPTS(seed), ENGINE(seed), NOT, true, 0, false, NULL,
     "the random seed", RUN},
    {"jobs", CLI_SET_UINT, RES(jobs), ENGINE(jobs), NOT, true, 0, false, NULL, "workers", RUN},
    {"max_time_s", CLI_SET_U64, OPTS(max_time_s), NOT, NOT, true, 0, false, NULL,
     "--max-time, 0 for no limit", RUN},
    {"max_execs", CLI_SET_U64, OPTS(max_execs), ENGINE(max_execs), NOT, true, 0, false, NULL,
     "--max-execs, 0 for no limit", RUN},
    {"max_input_size", CLI_SET_U64, OPTS(max_input_size), NOT, NOT, true, 0, false, NULL,
     "the largest input run", RUN},
    {"no_reduce", CLI_SET_BOOL, OPTS(no_reduce), ENGINE(no_reduce), NOT, true, 0, false, NULL,
     "--no-reduce", RUN},
    {"edges_only", CLI_SET_BOOL, OPTS(edges_only), NOT, NOT, true, 3, false, NULL,
     "-e: labels are edges only", RUN},
    {"order", CLI_SET_ORDER, OPTS(order), ENGINE(order), NOT, true, 0, false,
     "cover|fresh|uniform|bytes", "the reduction order", RUN},
    {"keep_found", CLI_SET_BOOL, OPTS(keep_found), ENGINE(keep_found), NOT, true, 0, false, NULL,
     "--keep-found", RUN},
    {"seen_mem", CLI_SET_U64, RES(seen_mem), ENGINE(seen_mem), NOT, true, 0, false, NULL,
     "the seen-set's memory bound", RUN},
    {"shard", CLI_SET_SHARD, CODE, NOT, NOT, true, 0, false, NULL,
     "\"K/N\" for a shard, else null", RUN},
    /* the engine's and the executor's alone */
    {"crashes_only", CLI_SET_BOOL, OPTS(cmin_crashes), ENGINE(crashes_only), NOT, false, 0, false,
     NULL, "cmin -C: crashing inputs only", RUN},
    {"max_time_ms", CLI_SET_U64, RES(max_time_ms), ENGINE(max_time_ms), NOT, false, 0, false,
     NULL, "--max-time in milliseconds", RUN},
    {"first_pass_once", CLI_SET_BOOL, RES(first_pass_once), ENGINE(first_pass_once), NOT, false,
     0, false, NULL, "AFL_NO_STARTUP_CALIBRATION: the first pass runs no input twice", RUN},
    {"timeout_ms", CLI_SET_UINT, OPTS(timeout_ms), NOT, EXEC(timeout_ms), false, 1, false, NULL,
     "-t as given, 0: calibrated", TARGET},
    {"mem_limit_mb", CLI_SET_UINT, OPTS(mem_limit_mb), NOT, EXEC(mem_limit_mb), false, 2, false,
     NULL, "-m, 0: none", TARGET},
    {"map_size", CLI_SET_MAP_SIZE, CODE, NOT, NOT, false, 4, false, NULL,
     "the coverage map's size the target reports (one target: several name theirs)", RUN},
    {"crash_exitcode", CLI_SET_EXITCODE, RES(crash_exitcode), NOT, EXEC(crash_exitcode), false, 5,
     false, NULL, "AFL_CRASH_EXITCODE, or none", RUN},
    {"crash_exitcode_set", CLI_SET_BOOL, RES(crash_exitcode_set), NOT, EXEC(crash_exitcode_set),
     false, 0, false, NULL, "whether AFL_CRASH_EXITCODE is set", RUN},
    {"map_size_env", CLI_SET_SIZE, RES(map_size), NOT, EXEC(map_size), false, 0, false, NULL,
     "AFL_MAP_SIZE, 0: the target's own", RUN},
    {"crash_frames", CLI_SET_UINT, OPTS(crash_frames), NOT, EXEC(crash_frames), false, 6, true,
     NULL, "--crash-frames", RUN},
};
const size_t cli_n_settings = sizeof cli_settings / sizeof cli_settings[0];

void cli_resolve(const struct cli_opts *o, unsigned jobs, struct cli_resolved *r)
{
    memset(r, 0, sizeof *r);
    r->jobs = jobs;
    r->seen_mem = o->seen_mem ? o->seen_mem : CD_DISTILL_SEEN_MEM_DEFAULT;
    r->max_time_ms = o->max_time_s * 1000;
    r->first_pass_once = cd_env_on("AFL_NO_STARTUP_CALIBRATION");
    const char *ce = getenv("AFL_CRASH_EXITCODE");
    if (ce && *ce) {
        r->crash_exitcode = atoi(ce);
        r->crash_exitcode_set = true;
    }
    const char *ms = getenv("AFL_MAP_SIZE");
    char *end = NULL;
    errno = 0;
    unsigned long long v = ms && *ms ? strtoull(ms, &end, 10) : 0;
    r->map_size = end && !*end && !errno ? (size_t)v : 0;
}

/* Where row s's value is. */
static const void *value_of(const struct cli_setting *s, const struct cli_opts *o,
                            const struct cli_resolved *r)
{
    const char *base = s->from == CLI_FROM_OPTS ? (const char *)o : (const char *)r;
    return base + s->at;
}

/* Row s's value as a count (0 or 1 for a boolean). */
static uint64_t count_of(const struct cli_setting *s, const struct cli_opts *o,
                         const struct cli_resolved *r)
{
    const void *v = value_of(s, o, r);
    uint64_t u64 = 0;
    unsigned u = 0;
    bool b = false;
    switch (s->size) {
    case sizeof u64:
        memcpy(&u64, v, sizeof u64);
        return u64;
    case sizeof u:
        memcpy(&u, v, sizeof u);
        return u;
    default:
        memcpy(&b, v, sizeof b);
        return b;
    }
}

void cli_settings_apply(const struct cli_opts *o, const struct cli_resolved *r,
                        enum cli_setting_to to, void *dst)
{
    for (size_t i = 0; i < cli_n_settings; i++) {
        const struct cli_setting *s = &cli_settings[i];
        size_t at = to == CLI_TO_ENGINE ? s->engine : s->exec;
        if (at != NONE && s->from != CLI_FROM_CODE)
            memcpy((char *)dst + at, value_of(s, o, r), s->size);
    }
}

size_t cli_settings_manifest(const struct cli_opts *o, const struct cli_resolved *r,
                             struct cd_manifest_setting *out, char shard[32])
{
    size_t n = 0;
    for (size_t i = 0; i < cli_n_settings; i++) {
        const struct cli_setting *s = &cli_settings[i];
        if (!s->manifest)
            continue;
        struct cd_manifest_setting *m = &out[n++];
        *m = (struct cd_manifest_setting){.name = (char *)s->name, .type = CD_SETTING_COUNT};
        if (s->kind == CLI_SET_BOOL) {
            m->type = CD_SETTING_BOOL;
            m->count = count_of(s, o, r);
        } else if (s->kind == CLI_SET_ORDER) {
            enum cd_distill_order order;
            memcpy(&order, value_of(s, o, r), sizeof order);
            m->type = CD_SETTING_TEXT;
            m->text = (char *)cd_distill_order_name(order);
        } else if (s->kind == CLI_SET_SHARD) {
            snprintf(shard, 32, "%u/%u", o->shard, o->shards);
            m->type = o->shards > 1 ? CD_SETTING_TEXT : CD_SETTING_NULL;
            m->text = o->shards > 1 ? shard : NULL;
        } else {
            m->count = count_of(s, o, r);
        }
    }
    return n;
}

/* The rows of the identity, by their place in its line. */
static int by_identity(const void *a, const void *b)
{
    const struct cli_setting *x = *(const struct cli_setting *const *)a,
                             *y = *(const struct cli_setting *const *)b;
    return (x->identity > y->identity) - (x->identity < y->identity);
}

/* Appends the field "name=text" to fields (*n of max), its text copied into store (cap bytes,
 * *used taken); false when either is full. */
static bool push_field(struct cd_identity_field *fields, size_t *n, size_t max, const char *name,
                       const char *text, char *store, size_t cap, size_t *used)
{
    size_t len = strlen(text);
    if (*n == max || len + 1 > cap - *used)
        return false;
    memcpy(store + *used, text, len + 1);
    fields[(*n)++] = (struct cd_identity_field){cd_span_of(name), {store + *used, len}};
    *used += len + 1;
    return true;
}

bool cli_settings_identity(const struct cli_opts *o, const struct cli_resolved *r,
                           bool one_target, struct cd_identity *id, char *store, size_t cap)
{
    const struct cli_setting *rows[CLI_SETTINGS_MAX];
    size_t n = 0, used = 0;
    for (size_t i = 0; i < cli_n_settings && n < CLI_SETTINGS_MAX; i++)
        if (cli_settings[i].identity)
            rows[n++] = &cli_settings[i];
    qsort(rows, n, sizeof *rows, by_identity);
    id->n_shared = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cli_setting *s = rows[i];
        if (s->kind == CLI_SET_MAP_SIZE) { /* each target's own */
            id->map_at = one_target ? id->n_shared : 0;
            continue;
        }
        uint64_t v = count_of(s, o, r);
        if (s->omit_zero && !v)
            continue;
        char text[32];
        if (s->kind == CLI_SET_EXITCODE && r->crash_exitcode_set)
            snprintf(text, sizeof text, "%d", r->crash_exitcode);
        else if (s->kind == CLI_SET_EXITCODE)
            snprintf(text, sizeof text, "none");
        else
            snprintf(text, sizeof text, "%llu", (unsigned long long)v);
        if (!push_field(id->shared, &id->n_shared, CD_IDENTITY_SHARED_MAX, s->name, text, store,
                        cap, &used))
            return false;
    }
    return true;
}

/* The row named name, or NULL. */
static const struct cli_setting *row_named(const char *name)
{
    for (size_t i = 0; i < cli_n_settings; i++)
        if (strcmp(cli_settings[i].name, name) == 0)
            return &cli_settings[i];
    return NULL;
}

bool cli_settings_for_target(struct cli_opts *o, const char *row, const char *spec,
                             bool (*parse)(const char *text, uint64_t *value))
{
    const struct cli_setting *s = row_named(row);
    const char *eq = strchr(spec, '=');
    uint64_t v;
    if (!s || s->scope != CLI_SCOPE_TARGET || !eq || eq == spec || !parse(eq + 1, &v))
        return cli_usage_error("invalid value '%s': NAME=VALUE sets it for the target NAME",
                               spec), false;
    if (o->n_target_values == CLI_TARGET_VALUES_MAX)
        return cli_usage_error("at most %u values for single targets",
                               CLI_TARGET_VALUES_MAX), false;
    /* the name stays in argv: "NAME=VALUE" is cut at '=' in a copy of its own */
    char *name = strndup(spec, (size_t)(eq - spec));
    if (!name)
        return cli_usage_error("out of memory"), false;
    o->target_values[o->n_target_values++] =
        (struct cli_target_value){(size_t)(s - cli_settings), name, v};
    return true;
}

/* Writes v into the field of size bytes at p. */
static void put_value(void *p, size_t size, uint64_t v)
{
    unsigned u = (unsigned)v;
    bool b = v != 0;
    if (size == sizeof v)
        memcpy(p, &v, sizeof v);
    else if (size == sizeof u)
        memcpy(p, &u, sizeof u);
    else
        memcpy(p, &b, sizeof b);
}

bool cli_settings_targets_check(struct cli_opts *o)
{
    for (size_t i = 0; i < o->n_target_values; i++) {
        const struct cli_target_value *tv = &o->target_values[i];
        unsigned t = 0;
        while (t < o->n_targets && strcmp(o->targets[t].name, tv->target) != 0)
            t++;
        if (t == o->n_targets) {
            char names[512];
            size_t n = 0;
            for (unsigned k = 0; k < o->n_targets && n < sizeof names; k++)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s'%s'", k ? ", " : "",
                                      o->targets[k].name);
            return cli_usage_error("%s=%llu: no target is named '%s' (the targets: %s)",
                                   tv->target, (unsigned long long)tv->value, tv->target,
                                   n ? names : "none"), false;
        }
        const struct cli_setting *s = &cli_settings[tv->row];
        if (o->n_targets == 1 && s->from == CLI_FROM_OPTS) /* one target: the run's value */
            put_value((char *)o + s->at, s->size, tv->value);
    }
    if (o->n_targets == 1)
        cli_settings_release_targets(o);
    return true;
}

void cli_settings_apply_target(const struct cli_opts *o, unsigned t, struct cd_exec_opts *dst)
{
    for (size_t i = 0; i < o->n_target_values; i++) {
        const struct cli_target_value *tv = &o->target_values[i];
        const struct cli_setting *s = &cli_settings[tv->row];
        if (s->exec != NONE && strcmp(tv->target, o->targets[t].name) == 0)
            put_value((char *)dst + s->exec, s->size, tv->value);
    }
}

bool cli_settings_identity_target(const struct cli_opts *o, unsigned t,
                                  struct cd_identity_target *it, char *store, size_t cap)
{
    size_t used = 0;
    it->n_own = 0;
    /* in the table's order, the last value given for the target of each row */
    for (size_t i = 0; i < cli_n_settings; i++) {
        const struct cli_setting *s = &cli_settings[i];
        const struct cli_target_value *last = NULL;
        for (size_t k = 0; k < o->n_target_values; k++)
            if (o->target_values[k].row == i &&
                strcmp(o->target_values[k].target, o->targets[t].name) == 0)
                last = &o->target_values[k];
        if (!last || !s->identity)
            continue;
        char text[32];
        snprintf(text, sizeof text, "%llu", (unsigned long long)last->value);
        if (!push_field(it->own, &it->n_own, CD_IDENTITY_OWN_MAX, s->name, text, store, cap,
                        &used))
            return false;
    }
    return true;
}

void cli_settings_release_targets(struct cli_opts *o)
{
    for (size_t i = 0; i < o->n_target_values; i++)
        free((char *)o->target_values[i].target);
    o->n_target_values = 0;
}
