/* Unit tests for the labels module: hit-count classes, coverage and outcome labels of hand-made
 * runs, and the text form of labels. */
#include "table/cd_labels.h"
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static void test_labels_class_boundaries(void)
{
    static const struct {
        unsigned count, cls;
    } cases[] = {{0, 0},  {1, 1},  {2, 2},  {3, 3},  {4, 4},   {5, 4},   {7, 4},   {8, 5},
                 {15, 5}, {16, 6}, {31, 6}, {32, 7}, {100, 7}, {127, 7}, {128, 8}, {255, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CU_ASSERT_EQUAL(cd_labels_class((uint8_t)cases[i].count), cases[i].cls);
    for (unsigned c = 1; c < 256; c++)
        CU_ASSERT_EQUAL(cd_labels_edge(77, (uint8_t)c) & 7u, cd_labels_class((uint8_t)c) - 1u);
    CU_ASSERT_EQUAL(cd_labels_edge(77, 1) >> 3, 77);
}

static void test_labels_from_run_ignores_index_0(void)
{
    uint8_t map[70] = {0};
    map[0] = 1;   /* persistent mode marks slot 0: not an edge */
    map[5] = 1;
    map[8] = 9;   /* Debian 4.04c afl-showmap would drop this count */
    map[63] = 200;
    map[69] = 3;  /* tail after the last 8-byte word */
    struct cd_run run = {.outcome = CD_OUTCOME_OK, .exit_status = 0, .map = map,
                         .map_size = sizeof map};
    struct cd_labelset set = {0};
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_labels_from_run(&run, false, &set, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(set.n, 4);
    CU_ASSERT_EQUAL(set.v[0], cd_labels_edge(5, 1));
    CU_ASSERT_EQUAL(set.v[1], cd_labels_edge(8, 9));
    CU_ASSERT_EQUAL(set.v[2], cd_labels_edge(63, 200));
    CU_ASSERT_EQUAL(set.v[3], cd_labels_edge(69, 3));
    CU_ASSERT(cd_labelset_has(&set, cd_labels_edge(8, 15)));
    CU_ASSERT(!cd_labelset_has(&set, cd_labels_edge(8, 16)));
    CU_ASSERT(!cd_labelset_has(&set, cd_labels_edge(0, 1)));
    for (size_t i = 0; i < set.n; i++)
        CU_ASSERT(!cd_labels_is_outcome(set.v[i]));
    /* A second call replaces the contents. */
    memset(map, 0, sizeof map);
    map[1] = 4;
    CU_ASSERT_EQUAL_FATAL(cd_labels_from_run(&run, false, &set, &err), CD_OK);
    CU_ASSERT_EQUAL(set.n, 1);
    cd_labelset_release(&set);
    CU_ASSERT_EQUAL(set.n, 0);
    CU_ASSERT_PTR_NULL(set.v);
}

/* -e: every hit edge is one class-1 label, whatever its count; outcomes are unchanged. */
static void test_labels_edges_only_ignores_counts(void)
{
    uint8_t map[24] = {0};
    map[3] = 1;
    map[9] = 200;
    map[17] = 5;
    struct cd_run run = {.outcome = CD_OUTCOME_CRASH, .signal = 11, .map = map,
                         .map_size = sizeof map};
    struct cd_labelset set = {0};
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_labels_from_run(&run, true, &set, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(set.n, 4);
    CU_ASSERT_EQUAL(set.v[0], cd_labels_edge(3, 1));
    CU_ASSERT_EQUAL(set.v[1], cd_labels_edge(9, 1));
    CU_ASSERT_EQUAL(set.v[2], cd_labels_edge(17, 1));
    CU_ASSERT(cd_labels_is_outcome(set.v[3]));
    CU_ASSERT_EQUAL_FATAL(cd_labels_from_run(&run, false, &set, &err), CD_OK);
    CU_ASSERT_EQUAL(set.v[1], cd_labels_edge(9, 200));
    cd_labelset_release(&set);
}

static void expect_labels(const struct cd_run *run, const char *const *want, size_t n)
{
    struct cd_labelset set = {0};
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_labels_from_run(run, false, &set, &err), CD_OK);
    CU_ASSERT_EQUAL(set.n, n);
    for (size_t i = 0; i < n && i < set.n; i++) {
        char buf[64];
        cd_labels_format(set.v[i], buf, sizeof buf);
        CU_ASSERT_STRING_EQUAL(buf, want[i]);
        if (i > 0)
            CU_ASSERT(set.v[i - 1] < set.v[i]);
    }
    cd_labelset_release(&set);
}

static void test_labels_outcome_labels(void)
{
    uint8_t map[16] = {0};
    map[3] = 1;
    struct cd_run run = {.outcome = CD_OUTCOME_CRASH, .signal = SIGSEGV, .exit_status = -1,
                         .map = map, .map_size = sizeof map};
    expect_labels(&run, (const char *const[]){"000003:1", "crash:SIGSEGV"}, 2);
    run.signal = SIGABRT;
    run.san_tool = "asan";
    run.san_kind = "heap-buffer-overflow";
    expect_labels(&run, (const char *const[]){"000003:1", "crash:SIGABRT",
                                              "asan:heap-buffer-overflow"}, 3);
    run.san_kind = "never-heard-of-it";
    expect_labels(&run, (const char *const[]){"000003:1", "crash:SIGABRT", "asan:unknown"}, 3);
    run.san_tool = "ubsan";
    run.san_kind = "undefined-behavior";
    run.signal = 63;
    expect_labels(&run, (const char *const[]){"000003:1", "crash:SIG63",
                                              "ubsan:undefined-behavior"}, 3);
    run.san_tool = run.san_kind = NULL;
    run.signal = 0;
    run.exit_status = 86;
    expect_labels(&run, (const char *const[]){"000003:1", "crash:exit86"}, 2);
    run.outcome = CD_OUTCOME_TIMEOUT;
    run.exit_status = -1;
    run.signal = SIGKILL;
    expect_labels(&run, (const char *const[]){"timeout"}, 1); /* its map is no coverage */
    run.outcome = CD_OUTCOME_SLOW;
    expect_labels(&run, (const char *const[]){"timeout"}, 1);
    run.outcome = CD_OUTCOME_OK;
    run.signal = 0;
    run.exit_status = 1;
    expect_labels(&run, (const char *const[]){"000003:1"}, 1);
}

static void test_labels_ids_are_stable(void)
{
    /* Outcome ids come from fixed tables: the same text always gives the same id. */
    uint32_t a, b;
    CU_ASSERT_FATAL(cd_labels_parse("asan:heap-buffer-overflow", &a));
    struct cd_run run = {.outcome = CD_OUTCOME_OK, .san_tool = "asan",
                         .san_kind = "heap-buffer-overflow"};
    struct cd_labelset set = {0};
    CU_ASSERT_EQUAL_FATAL(cd_labels_from_run(&run, false, &set, NULL), CD_OK);
    CU_ASSERT_EQUAL_FATAL(set.n, 1);
    CU_ASSERT_EQUAL(set.v[0], a);
    CU_ASSERT(cd_labels_is_outcome(a));
    CU_ASSERT_FATAL(cd_labels_parse("crash:SIGSEGV", &b));
    CU_ASSERT_NOT_EQUAL(a, b);
    CU_ASSERT_FATAL(cd_labels_parse("crash:SIG11", &a));
    CU_ASSERT_EQUAL(a, b);
    cd_labelset_release(&set);
}

static void test_labels_format_parse_round_trip(void)
{
    static const char *const texts[] = {
        "000001:1", "000123:4", "065535:8", "1234567:2", "timeout", "crash:SIGSEGV",
        "crash:SIGABRT", "crash:SIGBUS", "crash:SIGFPE", "crash:SIGILL", "crash:SIGTRAP",
        "crash:SIGKILL", "crash:SIG63", "crash:exit86", "asan:heap-buffer-overflow",
        "asan:unknown", "asan:SEGV", "ubsan:undefined-behavior", "ubsan:signed-integer-overflow",
        "msan:use-of-uninitialized-value", "lsan:detected-memory-leaks",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        uint32_t id;
        char buf[64];
        CU_ASSERT_FATAL(cd_labels_parse(texts[i], &id));
        CU_ASSERT_EQUAL((size_t)cd_labels_format(id, buf, sizeof buf), strlen(texts[i]));
        CU_ASSERT_STRING_EQUAL(buf, texts[i]);
    }
    uint32_t id;
    CU_ASSERT_FATAL(cd_labels_parse("42:3", &id));
    CU_ASSERT_EQUAL(id, cd_labels_edge(42, 3));
    static const char *const bad[] = {
        "", ":", "000000:1", "000001:0", "000001:9", "000001:", ":1", "x00001:1", "000001:1x",
        "crash:", "crash:SIGFOO", "crash:SIG0", "crash:exit", "crash:exit999", "nosan:SEGV",
        "asan:not-a-kind", "timeout:1", "99999999999:1", "268435456:1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_FALSE(cd_labels_parse(bad[i], &id));
    /* Formatting into a short buffer truncates like snprintf. */
    char small[4];
    CU_ASSERT_EQUAL(cd_labels_format(cd_labels_edge(7, 1), small, sizeof small), 8);
    CU_ASSERT_STRING_EQUAL(small, "000");
}

static void test_labels_set_push_has(void)
{
    struct cd_labelset set = {0};
    for (uint32_t i = 0; i < 1000; i++)
        CU_ASSERT_FATAL(cd_labelset_push(&set, i * 2));
    CU_ASSERT(cd_labelset_has(&set, 0));
    CU_ASSERT(cd_labelset_has(&set, 1998));
    CU_ASSERT(!cd_labelset_has(&set, 1999));
    CU_ASSERT(!cd_labelset_has(&set, 3));
    cd_labelset_release(&set);
    CU_ASSERT(!cd_labelset_has(&set, 0));
}

/* A bug label: the same id for the same crash state, its text parses back, a crash state makes
 * a run show it beside its kind label, and nothing else parses as one. */
static void test_labels_bug(void)
{
    uint32_t a = cd_labels_bug("asan:heap-buffer-overflow READ\nparse\nmain");
    uint32_t b = cd_labels_bug("asan:heap-buffer-overflow READ\nchunk\nmain");
    CU_ASSERT(cd_labels_is_bug(a) && cd_labels_is_bug(b) && cd_labels_is_outcome(a));
    CU_ASSERT_NOT_EQUAL(a, b);
    CU_ASSERT_EQUAL(a, cd_labels_bug("asan:heap-buffer-overflow READ\nparse\nmain"));
    char text[64];
    uint32_t back = 0;
    CU_ASSERT_EQUAL(cd_labels_format(a, text, sizeof text), 10);
    CU_ASSERT_EQUAL(strncmp(text, "bug:", 4), 0);
    CU_ASSERT(cd_labels_parse(text, &back) && back == a && cd_labels_valid(a));
    CU_ASSERT_FALSE(cd_labels_parse("bug:12345", &back));
    CU_ASSERT_FALSE(cd_labels_parse("bug:1234567", &back));
    CU_ASSERT_FALSE(cd_labels_parse("bug:ABCDEF", &back));
    CU_ASSERT_FALSE(cd_labels_is_bug(cd_labels_edge(5, 1)));
    struct cd_run run = {.outcome = CD_OUTCOME_CRASH, .signal = 6, .exit_status = -1,
                         .san_tool = "asan", .san_kind = "heap-buffer-overflow",
                         .crash_state = "asan:heap-buffer-overflow READ\nparse\nmain"};
    struct cd_labelset set = {0};
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_labels_from_run(&run, false, &set, &err), CD_OK);
    CU_ASSERT(cd_labelset_has(&set, a));
    CU_ASSERT(cd_labels_parse("asan:heap-buffer-overflow", &back) && cd_labelset_has(&set, back));
    for (size_t i = 1; i < set.n; i++)
        CU_ASSERT(set.v[i - 1] < set.v[i]);
    cd_labelset_release(&set);
}

/* Probes: the first is the bug label, the rest differ and are recognised as the same state's;
 * the crash-state grammar takes what cd_exec_crash_state writes and nothing else. */
static void test_labels_bug_probes_and_grammar(void)
{
    const char *st = "asan:heap-buffer-overflow READ\nparse\nmain";
    CU_ASSERT_EQUAL(cd_labels_bug_probe(st, 0), cd_labels_bug(st));
    for (unsigned k = 1; k < CD_LABELS_BUG_PROBES; k++) {
        uint32_t id = cd_labels_bug_probe(st, k);
        CU_ASSERT(cd_labels_is_bug(id));
        CU_ASSERT_NOT_EQUAL(id, cd_labels_bug_probe(st, k - 1));
        CU_ASSERT(cd_labels_bug_is_of(id, st));
    }
    CU_ASSERT_FALSE(cd_labels_bug_is_of(cd_labels_bug("asan:other"), st));
    CU_ASSERT(cd_labels_crash_state_valid(st));
    CU_ASSERT(cd_labels_crash_state_valid("ubsan:signed-integer-overflow"));
    CU_ASSERT(cd_labels_crash_state_valid("asan:SEGV\nlib.so+0x1f"));
    CU_ASSERT_FALSE(cd_labels_crash_state_valid(""));
    CU_ASSERT_FALSE(cd_labels_crash_state_valid("no kind\nf"));
    CU_ASSERT_FALSE(cd_labels_crash_state_valid("asan:x\n\nf"));
    CU_ASSERT_FALSE(cd_labels_crash_state_valid("asan:x\n"));
    CU_ASSERT_FALSE(cd_labels_crash_state_valid("asan:x\x1b[2J"));
    CU_ASSERT_FALSE(cd_labels_crash_state_valid("asan:x\xc2\x9b" "31m"));
    char big[CD_LABELS_CRASH_STATE_MAX + 8];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[0] = ':';
    CU_ASSERT_FALSE(cd_labels_crash_state_valid(big));
}

/* Labels of several targets: each target's ids apart, named in text, retargeted whole. */
static void test_labels_targets(void)
{
    const struct cd_target v[] = {{.name = "xml"}, {.name = "html"}, {.name = "xpath"}};
    struct cd_label_names names = {v, 3}, one = {v, 1};
    uint32_t edge = cd_labels_edge(123, 5), id, crash, bug = cd_labels_bug("asan:SEGV READ\nf");
    CU_ASSERT_FATAL(cd_labels_parse("crash:SIGSEGV", &crash));
    char text[160];
    uint32_t ids[] = {edge, crash, bug};
    for (unsigned t = 0; t < 3; t++)
        for (size_t k = 0; k < 3; k++) {
            uint32_t x = cd_labels_in_target(ids[k], t);
            CU_ASSERT_EQUAL(cd_labels_target(x), t);
            CU_ASSERT_EQUAL(cd_labels_is_outcome(x), cd_labels_is_outcome(ids[k]));
            CU_ASSERT_EQUAL(cd_labels_is_bug(x), k == 2);
            CU_ASSERT(cd_labels_valid(x));
            cd_labels_format_in(x, &names, text, sizeof text);
            size_t n = strlen(v[t].name);
            CU_ASSERT(strncmp(text, v[t].name, n) == 0 && text[n] == '/');
            CU_ASSERT(cd_labels_parse_in(text, &names, &id) && id == x);
            CU_ASSERT_FALSE(cd_labels_parse_in(text + n + 1, &names, &id));
        }
    cd_labels_format_in(cd_labels_in_target(edge, 1), &names, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "html/000123:4");
    cd_labels_format_in(cd_labels_in_target(bug, 2), &names, text, sizeof text);
    CU_ASSERT(strncmp(text, "xpath/bug:", 10) == 0);
    CU_ASSERT(cd_labels_bug_is_of(cd_labels_in_target(bug, 2), "asan:SEGV READ\nf"));
    /* one target: plain texts, as ever */
    cd_labels_format_in(edge, &one, text, sizeof text);
    CU_ASSERT_STRING_EQUAL(text, "000123:4");
    CU_ASSERT(cd_labels_parse_in("000123:4", &one, &id) && id == edge);
    CU_ASSERT_FALSE(cd_labels_parse_in("svg/000123:5", &names, &id));
    CU_ASSERT_FALSE(cd_labels_parse_in("xml/16777216:1", &names, &id)); /* past 2^24 edges */
    /* retarget keeps order and drops edges past what a target's ids hold */
    struct cd_labelset set = {0};
    cd_labelset_push(&set, cd_labels_edge(5, 1));
    cd_labelset_push(&set, cd_labels_edge(CD_LABEL_TARGET_EDGES + 1, 1));
    cd_labelset_push(&set, crash);
    cd_labels_retarget(&set, 2);
    CU_ASSERT_EQUAL_FATAL(set.n, 2);
    CU_ASSERT(set.v[0] == cd_labels_in_target(cd_labels_edge(5, 1), 2) &&
              set.v[1] == cd_labels_in_target(crash, 2) && set.v[0] < set.v[1]);
    cd_labelset_release(&set);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_labels_bug", test_labels_bug},
        {"test_labels_bug_probes_and_grammar", test_labels_bug_probes_and_grammar},
        {"test_labels_targets", test_labels_targets},
        {"test_labels_class_boundaries", test_labels_class_boundaries},
        {"test_labels_from_run_ignores_index_0", test_labels_from_run_ignores_index_0},
        {"test_labels_edges_only_ignores_counts", test_labels_edges_only_ignores_counts},
        {"test_labels_outcome_labels", test_labels_outcome_labels},
        {"test_labels_ids_are_stable", test_labels_ids_are_stable},
        {"test_labels_format_parse_round_trip", test_labels_format_parse_round_trip},
        {"test_labels_set_push_has", test_labels_set_push_has},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("labels", tests);
}
