/* Unit tests for the manifest: write -> read round trip, a label -> seed map that agrees with the
 * seeds' label lists, rejection of files that are not schema-1 manifests, text that is not UTF-8. */
#include "output/cd_emit.h"
#include "common/cd_hash.h"
#include "output/cd_manifest.h"
#include "harness.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void add_example(struct cd_result *r, const char *data, const char *origin,
                        const char *const *labels, const char *const *best, bool reproducer)
{
    r->examples = realloc(r->examples, (r->n_examples + 1) * sizeof *r->examples);
    struct cd_result_example *ex = &r->examples[r->n_examples++];
    memset(ex, 0, sizeof *ex);
    ex->len = strlen(data);
    ex->data = (uint8_t *)strdup(data);
    ex->origin = strdup(origin);
    ex->reproducer = reproducer;
    cd_hash_sha1_hex(ex->data, ex->len, ex->sha1);
    uint32_t id;
    for (size_t i = 0; labels[i]; i++)
        if (cd_labels_parse(labels[i], &id))
            cd_labelset_push(&ex->labels, id);
    for (size_t i = 0; best[i]; i++) {
        if (!cd_labels_parse(best[i], &id))
            continue;
        cd_labelset_push(&ex->best, id);
        r->labels = realloc(r->labels, (r->n_labels + 1) * sizeof *r->labels);
        r->labels[r->n_labels++] = (struct cd_result_label){id, r->n_examples - 1, i % 2 == 0, false, 0, NULL};
    }
}

static void free_result(struct cd_result *r)
{
    for (size_t i = 0; i < r->n_examples; i++) {
        free(r->examples[i].data);
        free(r->examples[i].origin);
        cd_labelset_release(&r->examples[i].labels);
        cd_labelset_release(&r->examples[i].best);
    }
    free(r->examples);
    free(r->labels);
    free(r->views);
    memset(r, 0, sizeof *r);
}

static void sample_result(struct cd_result *r)
{
    memset(r, 0, sizeof *r);
    add_example(r, "<a>hello</a>", "in.tar.zst:x/a.xml", (const char *[]){"000001:1", "000002:3", NULL},
                (const char *[]){"000001:1", "000002:3", NULL}, false);
    add_example(r, "{}", "b\xff\xfe.json", (const char *[]){"000001:1", "065535:8", NULL},
                (const char *[]){"065535:8", NULL}, false);
    add_example(r, "boom", "in/c", (const char *[]){"000001:1", "crash:SIGSEGV", NULL},
                (const char *[]){"crash:SIGSEGV", NULL}, true);
    add_example(r, "slow", "in/d", (const char *[]){"000003:1", "timeout", NULL},
                (const char *[]){"000003:1", "timeout", NULL}, true);
    r->stats = (struct cd_result_stats){.inputs = 10, .input_bytes = 1234, .duplicates = 2,
                                        .execs = 500, .first_pass_execs = 8,
                                        .recheck_execs = 5, .crashes = 3,
                                        .timeouts = 1, .wall_ns = 1500000000, .labels_input = 4,
                                        .select_only_bytes = 900, .cmin_bytes = 950,
                                        .complete = false, .stopped_by = "max-execs"};
    static struct cd_result_point course[] = {{0, 8, 4, 0, 900, 0, 0, false, 0},
                                              {3000, 500, 6, 2, 40, 700, UINT64_MAX, true, 0}};
    r->series = course;
    r->n_series = 2;
    static uint32_t unstable[] = {7, 65535};
    r->unstable = unstable;
    r->n_unstable = 2;
}

static struct cd_manifest_skip skips[] = {{"too large", 2}, {"unreadable", 1}};
static char *argv_[] = {"./target", "-x", "@@", NULL};
static char *operands[] = {"in.tar.zst", "seeds/", NULL};

static struct cd_manifest_setting settings[] = {
    {"seed", CD_SETTING_COUNT, 7, NULL},           {"jobs", CD_SETTING_COUNT, 2, NULL},
    {"max_time_s", CD_SETTING_COUNT, 60, NULL},    {"max_input_size", CD_SETTING_COUNT, 1048576, NULL},
    {"edges_only", CD_SETTING_BOOL, 1, NULL},      {"order", CD_SETTING_TEXT, 0, "cover"},
    {"shard", CD_SETTING_NULL, 0, NULL},
};

static struct cd_target sample_target = {
    .opts = {.argv = argv_, .mem_limit_mb = 50},
    .sha1 = "0123456789abcdef0123456789abcdef01234567",
    .info = {.map_size = 65536, .timeout_ms = 40}};

static struct cd_manifest_info sample_info(void)
{
    return (struct cd_manifest_info){
        .tool_version = "9.9.9", .targets = &sample_target, .n_targets = 1,
        .settings = settings, .n_settings = sizeof settings / sizeof *settings,
        .operands = operands, .skipped = skips, .n_skipped = 2, .seed_dir = "seeds",
        .crashes_dir = "seeds.crashes"};
}

static char *path_in(const char *dir, const char *name)
{
    char *s = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(s, "%s/%s", dir, name);
    return s;
}

static void test_manifest_round_trip(void)
{
    char *dir = cd_test_mkdtemp(), *path = path_in(dir, "m.json");
    struct cd_result r;
    struct cd_manifest m;
    struct cd_error err;
    struct cd_manifest_info info = sample_info();
    sample_result(&r);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_write(path, &info, &r, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_read(path, &m, &err), CD_OK);
    CU_ASSERT_EQUAL(m.schema_version, 1);
    CU_ASSERT_STRING_EQUAL(m.info.tool_version, "9.9.9");
    /* the one target, read back into a record of its own */
    CU_ASSERT_EQUAL_FATAL(m.info.n_targets, 1);
    const struct cd_target *t = &m.info.targets[0];
    CU_ASSERT_STRING_EQUAL(t->opts.argv[2], "@@");
    CU_ASSERT_PTR_NULL(t->opts.argv[3]);
    CU_ASSERT_STRING_EQUAL(t->sha1, sample_target.sha1);
    CU_ASSERT_EQUAL(t->info.map_size, 65536);
    CU_ASSERT_EQUAL(t->info.timeout_ms, 40);
    CU_ASSERT_EQUAL(t->opts.mem_limit_mb, 50);
    CU_ASSERT_PTR_NULL(t->name);
    CU_ASSERT_PTR_NULL(m.views);
    /* the settings, in their order, each of its type */
    CU_ASSERT_EQUAL_FATAL(m.info.n_settings, sizeof settings / sizeof *settings);
    for (size_t i = 0; i < m.info.n_settings; i++) {
        CU_ASSERT_STRING_EQUAL(m.info.settings[i].name, settings[i].name);
        CU_ASSERT_EQUAL(m.info.settings[i].type, settings[i].type);
        CU_ASSERT_EQUAL(m.info.settings[i].count, settings[i].count);
    }
    CU_ASSERT_STRING_EQUAL(cd_manifest_setting(&m.info, "order")->text, "cover");
    CU_ASSERT_EQUAL(cd_manifest_setting(&m.info, "max_input_size")->count, 1048576);
    CU_ASSERT_TRUE(cd_manifest_setting_on(&m.info, "edges_only"));
    CU_ASSERT_FALSE(cd_manifest_setting_on(&m.info, "keep_found"));
    CU_ASSERT_PTR_NULL(cd_manifest_setting(&m.info, "nothing"));
    CU_ASSERT_STRING_EQUAL(m.info.operands[1], "seeds/");
    CU_ASSERT_EQUAL_FATAL(m.info.n_skipped, 2);
    CU_ASSERT_STRING_EQUAL(m.info.seed_dir, "seeds");
    CU_ASSERT_EQUAL(m.stats.inputs, 10);
    CU_ASSERT_EQUAL(m.stats.input_bytes, 1234);
    CU_ASSERT_EQUAL(m.stats.duplicates, 2);
    CU_ASSERT_EQUAL(m.stats.execs, 500);
    CU_ASSERT_EQUAL(m.stats.crashes, 3);
    CU_ASSERT_EQUAL(m.stats.wall_ns / 1000000, 1500);
    CU_ASSERT(!m.stats.complete);
    CU_ASSERT_STRING_EQUAL(m.stats.stopped_by, "max-execs");
    CU_ASSERT_EQUAL(m.stats.select_only_bytes, 900);
    CU_ASSERT_EQUAL(m.stats.cmin_bytes, 950);
    CU_ASSERT_EQUAL(m.stats.recheck_execs, 5);
    CU_ASSERT(m.n_unstable == 2 && m.unstable[0] == 7 && m.unstable[1] == 65535);
    CU_ASSERT_EQUAL_FATAL(m.n_series, 2);
    CU_ASSERT(m.series[1].ms == 3000 && m.series[1].execs == 500 && m.series[1].labels == 6 &&
              m.series[1].finished == 2 && m.series[1].seed_bytes == 40);
    /* the estimate as it stood: not converging there, a lower bound */
    CU_ASSERT(m.series[1].unfinished_bytes == 700 && m.series[1].execs_left == UINT64_MAX &&
              m.series[1].execs_left_at_least && !m.series[0].execs_left_at_least);
    CU_ASSERT_EQUAL(m.n_seeds, 2);
    CU_ASSERT_EQUAL(m.n_reproducers, 2);
    CU_ASSERT_EQUAL(m.n_labels, r.n_labels);
    /* every label of the result is there with its best example and finished flag */
    for (size_t i = 0; i < r.n_labels; i++) {
        const struct cd_manifest_label *l = cd_manifest_find_label(&m, r.labels[i].id);
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        const struct cd_result_example *ex = &r.examples[r.labels[i].example];
        CU_ASSERT_STRING_EQUAL(l->best, ex->sha1);
        CU_ASSERT_EQUAL(l->reproducer, ex->reproducer);
        CU_ASSERT_EQUAL(l->finished, r.labels[i].finished);
    }
    /* the seeds and their labels */
    const struct cd_manifest_example *s = cd_manifest_find_seed(&m, r.examples[0].sha1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(s->size, 12);
    CU_ASSERT_STRING_EQUAL(s->origin, "in.tar.zst:x/a.xml");
    CU_ASSERT_STRING_EQUAL(s->file, s->sha1);
    CU_ASSERT_EQUAL(s->labels.n, 2);
    CU_ASSERT_EQUAL(s->best.n, 2);
    s = cd_manifest_find_seed(&m, r.examples[1].sha1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(s->origin, "b\\xff\\xfe.json"); /* bad UTF-8 written as \xNN */
    CU_ASSERT_PTR_NULL(cd_manifest_find_seed(&m, r.examples[2].sha1)); /* a reproducer */
    cd_manifest_release(&m);
    free_result(&r);
    free(path);
    cd_test_rmdir(dir);
}

/* A run of two targets: the writer takes the run's records, the "target" keys from the first and
 * "targets" from both, each view's path made from the views' directory; the reader gives the same
 * records back, with the views and what the output holds of each target. */
static void test_manifest_targets_round_trip(void)
{
    char *dir = cd_test_mkdtemp(), *path = path_in(dir, "m.json");
    struct cd_result r;
    struct cd_manifest m;
    struct cd_error err;
    static char *argv_b[] = {"./other", "--fast", NULL};
    struct cd_target two[2] = {sample_target,
                               {.name = "other", .opts = {.argv = argv_b},
                                .sha1 = "89abcdef0123456789abcdef0123456789abcdef",
                                .info = {.map_size = 8192, .timeout_ms = 70}}};
    two[0].name = "first";
    struct cd_manifest_info info = sample_info();
    info.targets = two;
    info.n_targets = 2;
    info.views = "seeds.by-target";
    sample_result(&r);
    for (size_t i = 0; i < r.n_labels; i++) /* the second example's labels are the other's */
        if (r.labels[i].example == 1)
            r.labels[i].id = cd_labels_in_target(r.labels[i].id, 1);
    /* each seed in its target's view, and one example in the second's alone */
    add_example(&r, "[1]", "in/e", (const char *[]){"000001:1", NULL}, (const char *[]){NULL},
                false);
    r.views = calloc(r.n_examples, sizeof *r.views);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.views);
    r.views[0] = 1, r.views[1] = 2, r.views[4] = 2;
    CU_ASSERT_EQUAL_FATAL(cd_manifest_write(path, &info, &r, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_read(path, &m, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(m.info.n_targets, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m.views);
    for (unsigned t = 0; t < 2; t++) {
        const struct cd_target *a = &two[t], *b = &m.info.targets[t];
        CU_ASSERT_STRING_EQUAL(a->name, b->name);
        CU_ASSERT_STRING_EQUAL(a->sha1, b->sha1);
        CU_ASSERT_EQUAL(a->info.map_size, b->info.map_size);
        CU_ASSERT_EQUAL(a->info.timeout_ms, b->info.timeout_ms);
        size_t k = 0;
        for (; a->opts.argv[k]; k++)
            CU_ASSERT(b->opts.argv[k] && strcmp(a->opts.argv[k], b->opts.argv[k]) == 0);
        CU_ASSERT_PTR_NULL(b->opts.argv[k]);
        char want[64];
        snprintf(want, sizeof want, "seeds.by-target/%s", a->name);
        CU_ASSERT_STRING_EQUAL(m.views[t].dir, want);
        struct cd_result_target c = cd_result_target_counts(&r, t);
        CU_ASSERT(memcmp(&c, &m.views[t].counts, sizeof c) == 0);
    }
    CU_ASSERT_EQUAL(m.info.targets[0].opts.mem_limit_mb, 50); /* the "target" keys' */
    CU_ASSERT(m.views[1].counts.labels > 0 && m.views[0].counts.labels > 0);
    CU_ASSERT_EQUAL(m.views[1].counts.seeds, 2); /* the shared seed and the view's own */
    CU_ASSERT_EQUAL(m.n_seeds, 2);
    CU_ASSERT_EQUAL_FATAL(m.n_view_only, 1);
    CU_ASSERT_STRING_EQUAL(m.view_only[0].sha1, r.examples[4].sha1);
    CU_ASSERT_STRING_EQUAL(m.view_only[0].file, r.examples[4].sha1);
    CU_ASSERT_EQUAL(m.view_only[0].views, 2u);
    CU_ASSERT_EQUAL(m.view_only[0].size, 3);
    cd_manifest_release(&m);
    /* without views, none is named */
    info.views = NULL;
    CU_ASSERT_EQUAL_FATAL(cd_manifest_write(path, &info, &r, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_read(path, &m, &err), CD_OK);
    CU_ASSERT(m.views && !m.views[0].dir && !m.views[1].dir);
    CU_ASSERT_EQUAL(m.n_view_only, 0); /* written in no view */
    cd_manifest_release(&m);
    free_result(&r);
    free(path);
    cd_test_rmdir(dir);
}

/* With afl-clang-lto's edge IDs, each coverage label the file documents names its function, and
 * the reader gives it back; undocumented slots and outcome labels name none. */
static void test_manifest_label_functions(void)
{
    char *dir = cd_test_mkdtemp(), *path = path_in(dir, "m.json"), *ids_path = path_in(dir, "ids");
    FILE *f = fopen(ids_path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("ModuleID=1 Function=f_one edgeID=1\nModuleID=1 Function=f_far edgeID=65535\n"
          "ModuleID=1 Function=f_later edgeID=1\nnot a line of the file\n", f);
    fclose(f);
    struct cd_edge_ids *ids = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_edge_ids_load(ids_path, &ids, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_edge_ids_count(ids), 2);
    struct cd_result r;
    struct cd_manifest m;
    struct cd_manifest_info info = sample_info();
    info.edge_ids = ids;
    sample_result(&r);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_write(path, &info, &r, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_read(path, &m, &err), CD_OK);
    const char *want[][2] = {{"000001:1", "f_one"}, {"065535:8", "f_far"}, {"000002:3", NULL},
                             {"crash:SIGSEGV", NULL}, {"timeout", NULL}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint32_t id;
        CU_ASSERT_FATAL(cd_labels_parse(want[i][0], &id));
        const struct cd_manifest_label *l = cd_manifest_find_label(&m, id);
        CU_ASSERT_PTR_NOT_NULL_FATAL(l);
        CU_ASSERT(want[i][1] ? l->function && strcmp(l->function, want[i][1]) == 0
                             : l->function == NULL);
    }
    cd_manifest_release(&m);
    cd_edge_ids_free(ids);
    /* a file that documents no edge is refused, naming it */
    f = fopen(ids_path, "w");
    fputs("nothing here\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(cd_edge_ids_load(ids_path, &ids, &err), CD_FAILED);
    CU_ASSERT_PTR_NULL(ids);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "documents no edge"));
    free_result(&r);
    free(path);
    free(ids_path);
    cd_test_rmdir(dir);
}

static void test_manifest_label_map_consistent(void)
{
    char *dir = cd_test_mkdtemp(), *path = path_in(dir, "m.json");
    struct cd_result r;
    struct cd_manifest m;
    struct cd_error err;
    struct cd_manifest_info info = sample_info();
    sample_result(&r);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_write(path, &info, &r, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_read(path, &m, &err), CD_OK);
    for (size_t i = 0; i < m.n_labels; i++) {
        const struct cd_manifest_label *l = &m.labels[i];
        const struct cd_manifest_example *v = l->reproducer ? m.reproducers : m.seeds;
        size_t n = l->reproducer ? m.n_reproducers : m.n_seeds, hits = 0;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(v[k].sha1, l->best) != 0)
                continue;
            hits++;
            CU_ASSERT(cd_labelset_has(&v[k].labels, l->id));
            CU_ASSERT(cd_labelset_has(&v[k].best, l->id));
        }
        CU_ASSERT_EQUAL(hits, 1);
        CU_ASSERT_EQUAL(l->reproducer, cd_labels_is_outcome(l->id) || l->id == (3u << 3));
    }
    /* and the other way: every label a seed is best for points back at it */
    for (size_t k = 0; k < m.n_seeds; k++)
        for (size_t j = 0; j < m.seeds[k].best.n; j++) {
            const struct cd_manifest_label *l = cd_manifest_find_label(&m, m.seeds[k].best.v[j]);
            CU_ASSERT(l && strcmp(l->best, m.seeds[k].sha1) == 0);
        }
    cd_manifest_release(&m);
    free_result(&r);
    free(path);
    cd_test_rmdir(dir);
}

static void test_manifest_rejects_bad_files(void)
{
    char *dir = cd_test_mkdtemp(), *path = path_in(dir, "m.json");
    struct cd_manifest m;
    struct cd_error err;
    CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED); /* missing */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot open"));
    FILE *f = fopen(path, "w");
    fputs("not json {", f);
    fclose(f);
    CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED);
    f = fopen(path, "w");
    fputs("{\"schema_version\": 2}", f);
    fclose(f);
    CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "schema_version"));
    f = fopen(path, "w");
    fputs("{\"schema_version\": 1, \"tool\": {}}", f);
    fclose(f);
    CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED);
    cd_manifest_release(&m);
    free(path);
    cd_test_rmdir(dir);
}

/* text with the number after "key": replaced by value (owned). */
/* text with the nth (from 0) value of key replaced by value: a number, or with quoted, the
 * content of a string (written as it is, escapes and all). */
static char *with_nth(const char *text, const char *key, int nth, bool quoted, const char *value)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *at = text;
    for (int k = 0; k <= nth; k++) {
        at = strstr(k ? at + 1 : at, pat);
        CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    }
    at += strlen(pat);
    while (*at == ' ')
        at++;
    CU_ASSERT_FATAL(!quoted || *at == '"');
    const char *end = quoted ? strchr(at + 1, '"') : at + strspn(at, "-+0123456789.eE");
    char *out = malloc(strlen(text) + strlen(value) + 3);
    sprintf(out, "%.*s%s%s%s", (int)(at - text), text, quoted ? "\"" : "", value, end);
    return out;
}

static char *with_value(const char *text, const char *key, const char *value)
{
    return with_nth(text, key, 0, false, value);
}

static char *with_string(const char *text, const char *key, int nth, const char *value)
{
    return with_nth(text, key, nth, true, value);
}

/* The manifest text of the sample result, which *r then holds. */
static char *sample_text(struct cd_result *r)
{
    sample_result(r);
    struct cd_manifest_info info = sample_info();
    char *text = cd_manifest_to_string(&info, r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    return text;
}

/* Numbers our writer never writes (NaN, infinities, negative, fractional, out of range) make a
 * manifest bad, with one line, and so does a file that is no regular file or is too large. */
static void test_manifest_rejects_bad_numbers(void)
{
    char *dir = cd_test_mkdtemp(), *path = path_in(dir, "m.json");
    struct cd_result r;
    struct cd_manifest m;
    struct cd_error err;
    char *text = sample_text(&r);
    static const struct {
        const char *key, *value;
    } bad[] = {{"executions", "-5"},       {"executions", "NaN"},  {"executions", "1e400"},
               {"executions", "2.5"},      {"executions", "-Infinity"}, {"timeout_ms", "4294967296"},
               {"jobs", "-1"},             {"wall_time_s", "NaN"}, {"wall_time_s", "-1"},
               {"size", "18446744073709551616"}, {"select_only_bytes", "-5"},
               {"cmin_rule_bytes", "2.5"}, {"recheck_executions", "-5"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *t = with_value(text, bad[i].key, bad[i].value);
        FILE *f = fopen(path, "w");
        fputs(t, f);
        fclose(f);
        enum cd_status st = cd_manifest_read(path, &m, &err);
        if (st != CD_FAILED)
            fprintf(stderr, "read with %s: %s\n", bad[i].key, bad[i].value);
        CU_ASSERT_EQUAL(st, CD_FAILED);
        CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
        cd_manifest_release(&m);
        free(t);
    }
    /* unstable edges out of order: 7, then 5 where 65535 was */
    char *t = strdup(text), *u = strstr(t, "\"unstable_edges\":");
    char *big = u ? strstr(u, "65535") : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memcpy(big, "    5", 5);
    FILE *f = fopen(path, "w");
    fputs(t, f);
    fclose(f);
    CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unstable_edges"));
    cd_manifest_release(&m);
    free(t);
    f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_OK); /* the untouched text reads */
    cd_manifest_release(&m);
    CU_ASSERT_EQUAL(truncate(path, CD_MANIFEST_MAX_BYTES + 1), 0);
    CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "limit"));
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
    CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED); /* and does not wait */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a regular file"));
    free(text);
    free_result(&r);
    free(path);
    cd_test_rmdir(dir);
}

/* Names our writer never writes (a seed file outside the seed directory, a sha1 that is not 40
 * lower-case hex digits, a seed listed twice) make a manifest bad; a control byte from the file
 * is shown escaped, never printed; an empty or cut file is refused in one line. */
static void test_manifest_rejects_bad_names(void)
{
    char *dir = cd_test_mkdtemp(), *path = path_in(dir, "m.json");
    struct cd_result r;
    struct cd_manifest m;
    struct cd_error err;
    char *text = sample_text(&r);
    char upper[41];
    snprintf(upper, sizeof upper, "%s", r.examples[0].sha1);
    for (char *c = upper; *c; c++)
        if (*c >= 'a' && *c <= 'f')
            *c = (char)(*c - 'a' + 'A');
    /* seeds 0 and 1 under one sha1 (each file named by its sha1, as the writer names them) */
    char *twice = with_string(text, "sha1", 2, r.examples[0].sha1);
    char *bad[] = {
        with_string(text, "file", 0, "../escape"),
        with_string(text, "file", 0, ".."),
        with_string(text, "sha1", 1, upper),
        with_string(twice, "file", 1, r.examples[0].sha1),
        with_string(text, "sha1", 1, "0123456789abcdef0123456789abcdef0123\\n567"),
        with_string(text, "file", 0, "passwd"), /* a name that is not its sha1 */
    };
    free(twice);
    const char *want[] = {"bad \"file\"", "bad \"file\"", "bad \"sha1\"", "listed twice", "\\x0a",
                          "bad \"file\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        FILE *f = fopen(path, "w");
        fputs(bad[i], f);
        fclose(f);
        CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED);
        if (!strstr(err.msg, want[i]))
            fprintf(stderr, "case %zu: %s\n", i, err.msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want[i]));
        CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
        cd_manifest_release(&m);
        free(bad[i]);
    }
    const char *cut[] = {"", "{\"schema_version\": 1, ", "{} {}"};
    for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) {
        FILE *f = fopen(path, "w");
        fputs(cut[i], f);
        fclose(f);
        CU_ASSERT_EQUAL(cd_manifest_read(path, &m, &err), CD_FAILED);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not JSON"));
        CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
        cd_manifest_release(&m);
    }
    free(text);
    free_result(&r);
    free(path);
    cd_test_rmdir(dir);
}

static void test_manifest_string_is_json(void)
{
    struct cd_result r;
    struct cd_manifest_info info = sample_info();
    sample_result(&r);
    char *s = cd_manifest_to_string(&info, &r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"schema_version\": 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"crash:SIGSEGV\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"065535:8\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"stopped_by\": \"max-execs\""));
    /* and it parses, whole, into the documented shape */
    enum json_tokener_error jerr;
    json_object *j = json_tokener_parse_verbose(s, &jerr), *v, *run;
    CU_ASSERT_EQUAL_FATAL(jerr, json_tokener_success);
    CU_ASSERT_FATAL(json_object_is_type(j, json_type_object));
    CU_ASSERT(json_object_object_get_ex(j, "schema_version", &v) && json_object_get_int(v) == 1);
    CU_ASSERT(json_object_object_get_ex(j, "run", &run) &&
              json_object_object_get_ex(run, "stopped_by", &v) &&
              strcmp(json_object_get_string(v), "max-execs") == 0);
    CU_ASSERT(json_object_object_get_ex(j, "labels", &v) &&
              json_object_object_get_ex(v, "065535:8", NULL));
    CU_ASSERT(json_object_object_get_ex(j, "seeds", &v) && json_object_is_type(v, json_type_array) &&
              json_object_array_length(v) > 0);
    json_object_put(j);
    free(s);
    free_result(&r);
}

static void test_manifest_seed_prefix_lookup(void)
{
    char *dir = cd_test_mkdtemp(), *path = path_in(dir, "m.json");
    struct cd_result r;
    struct cd_manifest m;
    struct cd_error err;
    struct cd_manifest_info info = sample_info();
    sample_result(&r);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_write(path, &info, &r, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_manifest_read(path, &m, &err), CD_OK);
    char prefix[9];
    memcpy(prefix, r.examples[0].sha1, 8);
    prefix[8] = '\0';
    const struct cd_manifest_example *s = cd_manifest_find_seed(&m, prefix);
    CU_ASSERT(s && strcmp(s->sha1, r.examples[0].sha1) == 0);
    CU_ASSERT_PTR_NULL(cd_manifest_find_seed(&m, "zz"));
    cd_manifest_release(&m);
    free_result(&r);
    free(path);
    cd_test_rmdir(dir);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_manifest_round_trip", test_manifest_round_trip},
        {"test_manifest_targets_round_trip", test_manifest_targets_round_trip},
        {"test_manifest_label_functions", test_manifest_label_functions},
        {"test_manifest_label_map_consistent", test_manifest_label_map_consistent},
        {"test_manifest_rejects_bad_files", test_manifest_rejects_bad_files},
        {"test_manifest_rejects_bad_numbers", test_manifest_rejects_bad_numbers},
        {"test_manifest_rejects_bad_names", test_manifest_rejects_bad_names},
        {"test_manifest_string_is_json", test_manifest_string_is_json},
        {"test_manifest_seed_prefix_lookup", test_manifest_seed_prefix_lookup},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("manifest", tests);
}
