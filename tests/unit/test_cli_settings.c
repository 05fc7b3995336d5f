/* Unit tests of the settings table (src/cli/cli_settings.c): every row copies into a field of
 * its own size, the engine's and the executor's options take what the command line and the
 * environment say, the manifest's settings keep their names and order, and the state's
 * identity line is byte for byte the one earlier states were written with (a warm start
 * compares it whole). */
#include "cli/cli.h"
#include "exec/cd_identity.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static void test_settings_well_formed(void)
{
    CU_ASSERT(cli_n_settings <= CLI_SETTINGS_MAX);
    for (size_t i = 0; i < cli_n_settings; i++) {
        const struct cli_setting *s = &cli_settings[i];
        CU_ASSERT_PTR_NOT_NULL(s->meaning);
        if (s->engine != SIZE_MAX)
            CU_ASSERT_EQUAL(s->engine_size, s->size);
        if (s->exec != SIZE_MAX)
            CU_ASSERT_EQUAL(s->exec_size, s->size);
        if (s->from == CLI_FROM_CODE)
            CU_ASSERT(s->engine == SIZE_MAX && s->exec == SIZE_MAX);
        for (size_t k = 0; k < i; k++) {
            CU_ASSERT(strcmp(s->name, cli_settings[k].name) != 0);
            CU_ASSERT(!s->identity || s->identity != cli_settings[k].identity);
        }
    }
}

static void test_settings_to_engine_and_executor(void)
{
    struct cli_opts o = {.seed = 99, .max_execs = 1234, .max_time_s = 7, .no_reduce = true,
                         .keep_found = true, .order = CD_ORDER_BYTES, .cmin_crashes = true,
                         .timeout_ms = 50, .mem_limit_mb = 100, .crash_frames = 5};
    struct cli_resolved r;
    setenv("AFL_CRASH_EXITCODE", "7", 1);
    setenv("AFL_MAP_SIZE", "131072", 1);
    setenv("AFL_NO_STARTUP_CALIBRATION", "1", 1);
    cli_resolve(&o, 3, &r);
    unsetenv("AFL_CRASH_EXITCODE");
    unsetenv("AFL_MAP_SIZE");
    unsetenv("AFL_NO_STARTUP_CALIBRATION");
    struct cd_distill_opts d = {0};
    cli_settings_apply(&o, &r, CLI_TO_ENGINE, &d);
    CU_ASSERT(d.seed == 99 && d.max_execs == 1234 && d.max_time_ms == 7000 && d.jobs == 3);
    CU_ASSERT(d.no_reduce && d.keep_found && d.crashes_only && d.first_pass_once);
    CU_ASSERT_EQUAL(d.order, CD_ORDER_BYTES);
    CU_ASSERT_EQUAL(d.seen_mem, CD_DISTILL_SEEN_MEM_DEFAULT);
    struct cd_exec_opts e = {0};
    cli_settings_apply(&o, &r, CLI_TO_EXEC, &e);
    CU_ASSERT(e.timeout_ms == 50 && e.mem_limit_mb == 100 && e.crash_frames == 5);
    CU_ASSERT(e.crash_exitcode_set && e.crash_exitcode == 7 && e.map_size == 131072);
}

static void test_settings_manifest(void)
{
    static const char *const names[] = {"seed",      "jobs",       "max_time_s", "max_execs",
                                         "max_input_size", "no_reduce", "edges_only", "order",
                                         "keep_found", "seen_mem",  "shard"};
    struct cli_opts o = {.seed = 5, .edges_only = true, .order = CD_ORDER_COVER, .shard = 2,
                         .shards = 4, .seen_mem = 1 << 20};
    struct cli_resolved r;
    cli_resolve(&o, 1, &r);
    struct cd_manifest_setting out[CLI_SETTINGS_MAX];
    char shard[32];
    size_t n = cli_settings_manifest(&o, &r, out, shard);
    CU_ASSERT_EQUAL_FATAL(n, sizeof names / sizeof *names);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_STRING_EQUAL(out[i].name, names[i]);
    CU_ASSERT(out[0].type == CD_SETTING_COUNT && out[0].count == 5);
    CU_ASSERT(out[6].type == CD_SETTING_BOOL && out[6].count == 1);
    CU_ASSERT(out[7].type == CD_SETTING_TEXT && strcmp(out[7].text, "cover") == 0);
    CU_ASSERT(out[9].count == 1 << 20);
    CU_ASSERT(out[10].type == CD_SETTING_TEXT && strcmp(out[10].text, "2/4") == 0);
    o.shards = 0;
    cli_settings_manifest(&o, &r, out, shard);
    CU_ASSERT_EQUAL(out[10].type, CD_SETTING_NULL);
}

/* The identity as states of earlier versions hold it: any other text would turn every nightly
 * state's warm start into "settings changed". */
static void test_settings_identity_unchanged(void)
{
    struct cli_opts o = {.crash_frames = 3};
    struct cli_resolved r;
    struct cd_identity id = {0};
    char store[256], line[256];
    cli_resolve(&o, 1, &r);
    CU_ASSERT_FATAL(cli_settings_identity(&o, &r, true, &id, store, sizeof store));
    id.n_targets = 1;
    id.targets[0] = (struct cd_identity_target){.sha1 = cd_span_of(""),
                                                .map_size = cd_span_of("65536"),
                                                .args = cd_span_of("@@")};
    size_t n = cd_identity_write(&id, line, sizeof line);
    CU_ASSERT_STRING_EQUAL(line, "args=@@; timeout_ms=0; mem_limit_mb=0; edges_only=0; "
                                 "map_size=65536; crash_exitcode=none; crash_frames=3");
    CU_ASSERT_EQUAL(n, strlen(line));
    struct cli_opts p = {.timeout_ms = 50, .mem_limit_mb = 100, .edges_only = true};
    setenv("AFL_CRASH_EXITCODE", "-9", 1);
    cli_resolve(&p, 1, &r);
    unsetenv("AFL_CRASH_EXITCODE");
    struct cd_identity two = {.several = true, .n_targets = 1};
    CU_ASSERT_FATAL(cli_settings_identity(&p, &r, false, &two, store, sizeof store));
    two.targets[0] = (struct cd_identity_target){
        .sha1 = cd_span_of("0123456789abcdef0123456789abcdef01234567"),
        .map_size = cd_span_of("139"), .args = cd_span_of("-x @@")};
    cd_identity_write(&two, line, sizeof line);
    CU_ASSERT_STRING_EQUAL(line, "timeout_ms=50; mem_limit_mb=100; edges_only=1; "
                                 "crash_exitcode=-9\ntarget 0123456789abcdef0123456789abcdef0"
                                 "1234567 map_size=139 args=-x @@");
    CU_ASSERT_EQUAL(cd_identity_write(&two, NULL, 0), strlen(line));
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"every row copies into a field of its size", test_settings_well_formed},
        {"the engine and the executor take the settings", test_settings_to_engine_and_executor},
        {"the manifest's settings keep their names and order", test_settings_manifest},
        {"the state's identity line is as earlier states hold it",
         test_settings_identity_unchanged},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("cli_settings", tests);
}
