/* Unit tests for the result's seed selection: every needed best example is taken, no other, every
 * coverage label stays held by the smallest taken example that shows it, reproducers stay; each
 * target's view of several draws on that target's own examples. */
#include "common/cd_hash.h"
#include "table/cd_labels.h"
#include "result/cd_result.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static void set_labels(struct cd_labelset *s, const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cd_labelset_push(s, v[i]);
}

/* Example i: len bytes of 'a' + i, showing labels, best for best. */
static void make_example(struct cd_result_example *e, unsigned i, size_t len, const uint32_t *labels,
                         size_t nl, const uint32_t *best, size_t nb)
{
    e->data = malloc(len);
    memset(e->data, 'a' + (int)i, len);
    e->len = len;
    e->origin = strdup("in");
    set_labels(&e->labels, labels, nl);
    set_labels(&e->best, best, nb);
    for (size_t k = 0; k < nl; k++)
        e->reproducer |= cd_labels_is_outcome(labels[k]);
    cd_hash_sha1_hex(e->data, len, e->sha1);
}

/* r's n labels: ids (ascending), each with its best example, by index. */
static void set_result_labels(struct cd_result *r, const uint32_t *ids, const size_t *example,
                              size_t n)
{
    r->labels = calloc(n, sizeof *r->labels);
    r->n_labels = n;
    for (size_t i = 0; i < n; i++)
        r->labels[i] = (struct cd_result_label){.id = ids[i], .example = example[i]};
}

static void test_result_select_takes_needed_seeds_only(void)
{
    uint32_t l1 = cd_labels_edge(1, 1), l2 = cd_labels_edge(2, 1), l3 = cd_labels_edge(3, 1),
             l4 = cd_labels_edge(4, 1), crash;
    CU_ASSERT_FATAL(cd_labels_parse("crash:SIGSEGV", &crash));
    struct cd_result r = {0};
    r.examples = calloc(4, sizeof *r.examples);
    r.n_examples = 4;
    /* A, 10 bytes, needed for l1; B, 3 bytes, best for l2 that A shows too; C, 2 bytes, needed
     * for l4 and smaller than A for l3; D, a crash reproducer. */
    make_example(&r.examples[0], 0, 10, (uint32_t[]){l1, l2, l3}, 3, (uint32_t[]){l1}, 1);
    make_example(&r.examples[1], 1, 3, (uint32_t[]){l2}, 1, (uint32_t[]){l2}, 1);
    make_example(&r.examples[2], 2, 2, (uint32_t[]){l3, l4}, 2, (uint32_t[]){l3, l4}, 2);
    make_example(&r.examples[3], 3, 4, (uint32_t[]){l1, crash}, 2, (uint32_t[]){crash}, 1);
    set_result_labels(&r, (uint32_t[]){l1, l2, l3, l4, crash}, (size_t[]){0, 1, 2, 2, 3}, 5);

    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_result_select_seeds(&r, false, true, false, 1, NULL, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(r.n_examples, 3); /* A, C and the reproducer D; B dropped */
    CU_ASSERT_EQUAL(r.examples[0].len, 10);
    CU_ASSERT_EQUAL(r.examples[1].len, 2);
    CU_ASSERT(r.examples[2].reproducer);
    size_t want[] = {0, 0, 1, 1, 2};
    for (size_t i = 0; i < 5; i++)
        CU_ASSERT_EQUAL(r.labels[i].example, want[i]);
    /* best lists what each example holds now */
    CU_ASSERT_EQUAL(r.examples[0].best.n, 2);
    CU_ASSERT(cd_labelset_has(&r.examples[0].best, l2));
    CU_ASSERT_EQUAL(r.examples[1].best.n, 2);
    CU_ASSERT(cd_labelset_has(&r.examples[1].best, l3));
    CU_ASSERT_EQUAL(r.examples[2].best.n, 1);
    cd_result_release(&r);
}

/* afl-fuzz and afl-showmap skip empty files: a label the empty example is best for goes to the
 * smallest non-empty example showing it; the empty one holds only what nothing else shows. */
static void test_result_select_empty_example_last(void)
{
    uint32_t l1 = cd_labels_edge(1, 1), l2 = cd_labels_edge(2, 1), l3 = cd_labels_edge(3, 1);
    struct cd_result r = {0};
    r.examples = calloc(4, sizeof *r.examples);
    r.n_examples = 4;
    make_example(&r.examples[0], 0, 0, (uint32_t[]){l1, l2}, 2, (uint32_t[]){l1, l2}, 2);
    make_example(&r.examples[1], 1, 5, (uint32_t[]){l1, l3}, 2, (uint32_t[]){l3}, 1);
    make_example(&r.examples[2], 2, 3, (uint32_t[]){l1}, 1, NULL, 0);
    make_example(&r.examples[3], 3, 9, (uint32_t[]){l1}, 1, NULL, 0);
    r.labels = calloc(3, sizeof *r.labels);
    r.n_labels = 3;
    r.labels[0] = (struct cd_result_label){.id = l1, .example = 0};
    r.labels[1] = (struct cd_result_label){.id = l2, .example = 0};
    r.labels[2] = (struct cd_result_label){.id = l3, .example = 1};
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_result_select_seeds(&r, false, true, false, 1, NULL, &err), CD_OK);
    /* the 5-byte example (needed for l3) also holds l1; the empty one keeps only l2 */
    CU_ASSERT_EQUAL_FATAL(r.n_examples, 2);
    CU_ASSERT_EQUAL(r.examples[0].len, 0);
    CU_ASSERT_EQUAL(r.examples[1].len, 5);
    CU_ASSERT_EQUAL(r.labels[0].example, 1);
    CU_ASSERT_EQUAL(r.labels[1].example, 0);
    CU_ASSERT_EQUAL(r.labels[2].example, 1);
    cd_result_release(&r);
}

static void test_result_select_empty(void)
{
    struct cd_result r = {0};
    struct cd_error err;
    CU_ASSERT_EQUAL(cd_result_select_seeds(&r, false, true, false, 1, NULL, &err), CD_OK);
    CU_ASSERT_EQUAL(r.n_examples, 0);
    cd_result_release(&r);
}

/* A seed is size-bound when every label it holds is a higher hit-count class of an edge that a
 * shorter seed shows at a lower class: only those bytes are counted. */
static void test_result_size_bound_counts_hit_count_ladders(void)
{
    uint32_t e1a = cd_labels_edge(1, 1), e1c = cd_labels_edge(1, 3), e2b = cd_labels_edge(2, 2),
             e3 = cd_labels_edge(3, 1), e4a = cd_labels_edge(4, 1), e4b = cd_labels_edge(4, 2),
             e5a = cd_labels_edge(5, 1), e5b = cd_labels_edge(5, 2), e6 = cd_labels_edge(6, 1);
    struct cd_result r = {0};
    r.examples = calloc(6, sizeof *r.examples);
    r.n_examples = 6;
    /* 0 (5 bytes): e1, e3, e5 once; 1 (50): e1 three times, size-bound; 2 (60): e2 twice, no
       lower class; 3 (40): e4 twice, its single hit on the longer 4 (100); 5 (70): e5 twice, but
       also e6 once, which only it shows */
    make_example(&r.examples[0], 0, 5, (uint32_t[]){e1a, e3, e5a}, 3, (uint32_t[]){e1a, e3, e5a},
                 3);
    make_example(&r.examples[1], 1, 50, (uint32_t[]){e1c, e3}, 2, (uint32_t[]){e1c}, 1);
    make_example(&r.examples[2], 2, 60, (uint32_t[]){e2b}, 1, (uint32_t[]){e2b}, 1);
    make_example(&r.examples[3], 3, 40, (uint32_t[]){e4b}, 1, (uint32_t[]){e4b}, 1);
    make_example(&r.examples[4], 4, 100, (uint32_t[]){e4a}, 1, (uint32_t[]){e4a}, 1);
    make_example(&r.examples[5], 5, 70, (uint32_t[]){e5b, e6}, 2, (uint32_t[]){e5b, e6}, 2);
    set_result_labels(&r, (uint32_t[]){e1a, e1c, e2b, e3, e4a, e4b, e5a, e5b, e6},
                      (size_t[]){0, 1, 2, 0, 4, 3, 0, 5, 5}, 9);
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_result_select_seeds(&r, false, true, false, 1, NULL, &err), CD_OK);
    CU_ASSERT_EQUAL(r.n_examples, 6);
    CU_ASSERT_EQUAL(r.stats.size_bound_bytes, 50);
    CU_ASSERT_EQUAL(r.stats.size_bound_labels, 1);
    cd_result_release(&r);
}

/* The executions left: unfinished labels fell from 60 to 40 between 3,000 and 4,000 executions,
 * 50 executions each, so 40 more take 2,000 at that pace; the bytes of their examples give a
 * second figure, taken when the two agree within 4 times, the smaller as a lower bound when
 * not; a course whose unfinished labels grew does not converge; too short a course says
 * nothing. */
static void test_result_execs_left(void)
{
    struct cd_result_point c[] = {
        {.execs = 1000, .labels = 100, .finished = 0},
        {.execs = 2000, .labels = 100, .finished = 20},
        {.execs = 3000, .labels = 100, .finished = 40},
        {.execs = 4000, .labels = 100, .finished = 60},
    };
    bool at_least = true;
    CU_ASSERT_EQUAL(cd_result_execs_left(c, 4, &at_least), 2001); /* no bytes: the pace */
    CU_ASSERT_FALSE(at_least);
    c[3].unfinished_work = 40000.4; /* the work, whatever the pace */
    CU_ASSERT_EQUAL(cd_result_execs_left(c, 4, &at_least), 40001);
    CU_ASSERT_FALSE(at_least);
    c[3].unfinished_work = 400;
    CU_ASSERT_EQUAL(cd_result_execs_left(c, 4, &at_least), 401);
    CU_ASSERT_FALSE(at_least);
    c[3].labels = 139; /* 39 found since 3,000 (three quarters back), 40 unfinished */
    c[3].finished = 99;
    CU_ASSERT_EQUAL(cd_result_execs_left(c, 4, &at_least), 401);
    CU_ASSERT_FALSE(at_least);
    c[3].labels = 140; /* 40 found, 40 unfinished: as many found as left, a lower bound */
    c[3].finished = 100;
    CU_ASSERT_EQUAL(cd_result_execs_left(c, 4, &at_least), 401);
    CU_ASSERT(at_least);
    c[3].labels = 100;
    c[3].finished = 60;
    /* long examples cost less a byte than short ones */
    CU_ASSERT(cd_result_example_work(100000) / 100000 < cd_result_example_work(100) / 100);
    CU_ASSERT(cd_result_example_work(1) > 0);
    c[3].unfinished_work = 0;
    CU_ASSERT_EQUAL(cd_result_execs_left(c, 1, &at_least), 0);
    CU_ASSERT_FALSE(at_least);
    c[3].labels = 200; /* 140 unfinished: more than before */
    CU_ASSERT_EQUAL(cd_result_execs_left(c, 4, &at_least), UINT64_MAX);
    c[3].finished = 200;
    CU_ASSERT_EQUAL(cd_result_execs_left(c, 4, &at_least), 0);
}

/* Two targets: the shared cover takes the 6-byte X, which shows both targets' labels; each view
 * draws instead on its target's own lighter example (Y for A, Z for B), kept for the view alone,
 * and never on U, which crashes A. One target: Y and Z are dropped, and there are no views. */
static void views_result(struct cd_result *r)
{
    uint32_t a1 = cd_labels_edge(1, 1), a2 = cd_labels_edge(2, 1), crash_a;
    uint32_t b1 = cd_labels_in_target(a1, 1), b2 = cd_labels_in_target(a2, 1);
    CU_ASSERT_FATAL(cd_labels_parse("crash:SIGSEGV", &crash_a));
    memset(r, 0, sizeof *r);
    r->examples = calloc(4, sizeof *r->examples);
    r->n_examples = 4;
    make_example(&r->examples[0], 0, 6, (uint32_t[]){a1, a2, b1, b2}, 4, NULL, 0);
    make_example(&r->examples[1], 1, 4, (uint32_t[]){a1, a2}, 2, (uint32_t[]){a1, a2}, 2);
    make_example(&r->examples[2], 2, 4, (uint32_t[]){b1, b2}, 2, (uint32_t[]){b1, b2}, 2);
    make_example(&r->examples[3], 3, 1, (uint32_t[]){a1, a2, crash_a}, 3,
                 (uint32_t[]){crash_a}, 1);
    /* the labels sorted by id, each with its best example */
    uint32_t ids[] = {a1, a2, crash_a, b1, b2};
    size_t example[] = {1, 1, 3, 2, 2};
    for (size_t i = 1; i < 5; i++)
        for (size_t k = i; k > 0 && ids[k - 1] > ids[k]; k--) {
            uint32_t id = ids[k];
            size_t ex = example[k];
            ids[k] = ids[k - 1], example[k] = example[k - 1];
            ids[k - 1] = id, example[k - 1] = ex;
        }
    set_result_labels(r, ids, example, 5);
}

static void test_result_views_draw_on_own_best_examples(void)
{
    struct cd_result r;
    struct cd_error err;
    views_result(&r);
    CU_ASSERT_EQUAL_FATAL(cd_result_select_seeds(&r, false, true, false, 2, NULL, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(r.n_examples, 4); /* X the seed, Y and Z for the views, U */
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.views);
    CU_ASSERT(cd_result_is_seed(&r.examples[0]) && r.views[0] == 0);
    CU_ASSERT(r.views[1] == 1u && cd_result_in_view_only(&r, 1));
    CU_ASSERT(r.views[2] == 2u && cd_result_in_view_only(&r, 2));
    CU_ASSERT(r.examples[3].reproducer && r.views[3] == 0 && !cd_result_in_view_only(&r, 3));
    struct cd_result_target a = cd_result_target_counts(&r, 0), b = cd_result_target_counts(&r, 1);
    CU_ASSERT(a.seeds == 1 && a.seed_bytes == 4 && a.labels == 3 && a.reproducers == 1);
    CU_ASSERT(b.seeds == 1 && b.seed_bytes == 4 && b.labels == 2 && b.reproducers == 0);
    cd_result_release(&r);

    views_result(&r);
    CU_ASSERT_EQUAL_FATAL(cd_result_select_seeds(&r, false, true, false, 1, NULL, &err), CD_OK);
    CU_ASSERT_EQUAL(r.n_examples, 2); /* X and U */
    CU_ASSERT_PTR_NULL(r.views);
    cd_result_release(&r);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_result_execs_left", test_result_execs_left},
        {"test_result_select_takes_needed_seeds_only", test_result_select_takes_needed_seeds_only},
        {"test_result_select_empty", test_result_select_empty},
        {"test_result_select_empty_example_last", test_result_select_empty_example_last},
        {"test_result_size_bound_counts_hit_count_ladders",
         test_result_size_bound_counts_hit_count_ladders},
        {"test_result_views_draw_on_own_best_examples",
         test_result_views_draw_on_own_best_examples},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("result", tests);
}
