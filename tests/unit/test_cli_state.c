/* Unit tests of the front end's state file handling (src/cli/cli_state.c) and shared vocabulary
 * (src/cli/cli_msgs.c), without AFL++ or a target: a state encoded and written is one the check
 * accepts and the table loads back with the run's identity and totals; the check refuses a file
 * corpus-distill did not write unless forced; the target's SHA-1, the shard syntax, the exit code
 * of each kind of error. */
#include "table/cd_table.h"
#include "cli/cli.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_cli_state_encode_write_check(void)
{
    char *dir = cd_test_mkdtemp();
    struct cli_state st;
    memset(&st, 0, sizeof st);
    st.path = cd_test_join(dir, "seeds.state");
    st.settings = strdup("edges_only=0");
    struct cd_target target = {.sha1 = "0123456789abcdef0123456789abcdef01234567"};
    st.targets = &target;
    st.runs = 2;
    st.execs = 1000;
    struct cd_error err;
    /* no file yet: nothing to refuse */
    CU_ASSERT_EQUAL(cli_state_check(st.path, false, &err), CD_OK);
    struct cd_table *t = NULL;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    uint8_t *buf = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(cli_state_encode(&st, t, 500, 42, true, &buf, &len, &err), CD_OK);
    CU_ASSERT_EQUAL(cli_state_write(&st, buf, len, &err), CD_OK);
    CU_ASSERT_EQUAL(st.saved, 1);
    CU_ASSERT_EQUAL(cli_state_check(st.path, false, &err), CD_OK);
    /* what was written loads back with this run's identity and totals */
    struct cd_table *back = NULL;
    struct cd_table_meta meta;
    CU_ASSERT_EQUAL_FATAL(cd_table_load(&back, &meta, buf, len, 1 << 20, &err), CD_OK);
    CU_ASSERT_STRING_EQUAL(meta.target_sha1, st.targets[0].sha1);
    CU_ASSERT_STRING_EQUAL(meta.settings, "edges_only=0");
    CU_ASSERT_EQUAL(meta.runs, 3);
    CU_ASSERT_EQUAL(meta.execs, 1500);
    CU_ASSERT(meta.complete);
    cd_table_meta_release(&meta);
    cd_table_free(back);
    free(buf);
    cd_table_free(t);
    /* a file of someone else's under the state's name is refused, unless forced */
    cd_test_write_text(st.path, "{\"not\": \"a state\"}\n");
    CU_ASSERT_NOT_EQUAL(cli_state_check(st.path, false, &err), CD_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "seeds.state"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    CU_ASSERT_EQUAL(cli_state_check(st.path, true, &err), CD_OK);
    /* a directory is no state either */
    char *sub = cd_test_join(dir, "d.state");
    CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0700), 0);
    CU_ASSERT_NOT_EQUAL(cli_state_check(sub, false, &err), CD_OK);
    free(sub);
    cli_state_release(&st);
    cd_test_rmdir(dir);
}

/* A state whose labels name a target its identity does not (a forged state or shard: a label of
 * a second target in a state of one) is not taken: a warm start starts cold with a note, merge
 * refuses it; the manifest would be one no reader takes. */
static void test_cli_state_foreign_target(void)
{
    char *dir = cd_test_mkdtemp();
    struct cli_state st;
    memset(&st, 0, sizeof st);
    st.path = cd_test_join(dir, "seeds.state");
    st.settings = strdup("edges_only=0"); /* the identity of one target */
    struct cd_target target = {.sha1 = "0123456789abcdef0123456789abcdef01234567"};
    st.targets = &target;
    struct cd_error err;
    struct cd_table *t = NULL;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    struct cd_labelset set = {0};
    CU_ASSERT_FATAL(cd_labelset_push(&set, cd_labels_in_target(cd_labels_edge(5, 1), 1)));
    size_t improved;
    CU_ASSERT_EQUAL_FATAL(cd_table_offer(t, (const uint8_t *)"ab", 2, &set, "x", &improved,
                                         NULL, &err), CD_OK);
    CU_ASSERT_FALSE(cd_table_targets_within(t, 1));
    CU_ASSERT(cd_table_targets_within(t, 2));
    uint8_t *buf = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(cli_state_encode(&st, t, 1, 1, false, &buf, &len, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cli_state_write(&st, buf, len, &err), CD_OK);
    free(buf);
    cd_table_free(t);
    cd_labelset_release(&set);
    /* a warm start of one target from it */
    char *argv[] = {"./t", "@@", NULL};
    struct cli_opts o;
    memset(&o, 0, sizeof o);
    o.n_targets = 1;
    o.targets[0].argv = argv;
    o.targets[0].name = "t";
    target.opts.argv = argv; /* the record as cli_targets_fill makes it */
    o.n_inputs = 1;
    const char *inputs[] = {st.path, NULL};
    o.inputs = inputs;
    struct cli_resolved res;
    memset(&res, 0, sizeof res);
    struct cli_state run;
    memset(&run, 0, sizeof run);
    run.path = strdup(st.path);
    run.targets = &target;
    struct cd_table *warm = NULL, *old = NULL;
    CU_ASSERT_EQUAL(cli_state_start(&run, &o, &res, 1 << 20, &warm, &old), 0);
    CU_ASSERT_PTR_NULL(warm);
    CU_ASSERT_PTR_NULL(old);
    CU_ASSERT_STRING_EQUAL(run.start, "unreadable");
    CU_ASSERT_PTR_NOT_NULL(strstr(run.note, "a target its identity does not name"));
    cli_state_release(&run);
    /* merge refuses it */
    memset(&run, 0, sizeof run);
    run.targets = &target;
    o.merge = true;
    CU_ASSERT_NOT_EQUAL(cli_state_merge(&run, &o, &res, 1 << 20, &warm, &old, &err), CD_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a target its identity does not name"));
    CU_ASSERT_PTR_NULL(warm);
    cli_state_release(&run);
    cli_state_release(&st);
    cd_test_rmdir(dir);
}

static void test_cli_msgs_vocabulary(void)
{
    char *dir = cd_test_mkdtemp();
    char *f = cd_test_join(dir, "target");
    cd_test_write_text(f, "abc");
    char hex[41];
    cli_target_sha1(f, hex);
    CU_ASSERT_STRING_EQUAL(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    cli_target_sha1("no-such-program-anywhere", hex);
    CU_ASSERT_STRING_EQUAL(hex, "");
    free(f);
    cd_test_rmdir(dir);
    unsigned k, n;
    CU_ASSERT(cli_parse_shard("2/5", &k, &n) && k == 2 && n == 5);
    CU_ASSERT(!cli_parse_shard("0/5", &k, &n));
    CU_ASSERT(!cli_parse_shard("6/5", &k, &n));
    CU_ASSERT(!cli_parse_shard("1/5x", &k, &n));
    CU_ASSERT(!cli_parse_shard("1/65537", &k, &n));
    struct cd_error e = {CD_ERR_NOMEM, 0, "x"};
    CU_ASSERT_EQUAL(cli_exit_for(&e, CLI_EXIT_TARGET), CLI_EXIT_NOMEM);
    e.kind = CD_ERR_INPUT;
    CU_ASSERT_EQUAL(cli_exit_for(&e, CLI_EXIT_TARGET), CLI_EXIT_INPUT);
    e.kind = CD_ERR_FOREIGN;
    CU_ASSERT_EQUAL(cli_exit_for(&e, CLI_EXIT_TARGET), CLI_EXIT_OUTPUT);
    e.kind = CD_ERR_OTHER;
    CU_ASSERT_EQUAL(cli_exit_for(&e, CLI_EXIT_TARGET), CLI_EXIT_TARGET);
    char b[32];
    CU_ASSERT_STRING_EQUAL(cli_bytes(1023, b, sizeof b), "1023 B");
    CU_ASSERT_STRING_EQUAL(cli_bytes(1536, b, sizeof b), "1.5 KiB");
    CU_ASSERT_STRING_EQUAL(cli_bytes(3u << 20, b, sizeof b), "3.0 MiB");
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_cli_state_encode_write_check", test_cli_state_encode_write_check},
        {"test_cli_state_foreign_target", test_cli_state_foreign_target},
        {"test_cli_msgs_vocabulary", test_cli_msgs_vocabulary},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("cli_state", tests);
}
