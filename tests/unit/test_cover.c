/* Unit tests for the weighted set cover of seed selection: every item some set shows is covered,
 * the choice is lighter than largest-first where weights say so, the lower bound never exceeds
 * what was chosen (nor a brute-force optimum), and the baseline caps the result. */
#include "result/cd_cover.h"
#include "harness.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* Whether chosen covers every item some set shows. */
static bool covers_all(const struct cd_cover_set *s, size_t n, size_t universe, const bool *chosen)
{
    bool *want = calloc(universe, 1), *got = calloc(universe, 1), ok = true;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < s[i].n; k++) {
            want[s[i].items[k]] = true;
            got[s[i].items[k]] |= chosen[i];
        }
    for (size_t u = 0; u < universe; u++)
        ok &= !want[u] || got[u];
    free(want);
    free(got);
    return ok;
}

/* One big set showing everything against small ones that together weigh less. */
static void test_cover_weights_beat_size(void)
{
    uint32_t all[] = {0, 1, 2, 3}, a[] = {0, 1}, b[] = {2, 3};
    struct cd_cover_set s[] = {{100, all, 4, false}, {10, a, 2, false}, {20, b, 2, false}};
    bool chosen[3];
    struct cd_cover_stats st;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, 3, 4, NULL, NULL, chosen, &st, &err), CD_OK);
    CU_ASSERT(!chosen[0] && chosen[1] && chosen[2]);
    CU_ASSERT_EQUAL(st.bytes, 30);
    CU_ASSERT_EQUAL(st.chosen, 2);
    CU_ASSERT_EQUAL(st.items, 4);
    CU_ASSERT(st.bound <= st.bytes);
    CU_ASSERT(st.bound >= 30); /* a and b are the only cheap holders: the dual prices reach 30 */
}

/* Greedy can be fooled; the baseline then caps the result at the baseline's weight plus what the
 * items it lacks need. */
static void test_cover_baseline_caps(void)
{
    /* Greedy takes the cheap-per-item middle set first, then needs both ends as well. */
    uint32_t left[] = {0, 1, 2}, right[] = {3, 4, 5}, mid[] = {1, 2, 3, 4};
    struct cd_cover_set s[] = {{30, left, 3, true}, {30, right, 3, true}, {16, mid, 4, false}};
    bool chosen[3];
    struct cd_cover_stats st;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, 3, 6, NULL, NULL, chosen, &st, &err), CD_OK);
    CU_ASSERT(covers_all(s, 3, 6, chosen));
    CU_ASSERT_EQUAL(st.baseline_bytes, 60);
    CU_ASSERT(st.bytes <= 60);
    CU_ASSERT(st.bound <= st.bytes);
}

/* Optional items are covered only where a set adds no more bytes per new optional item than the
 * required cover spends per required item, within a tenth of the required cover, and, with a
 * baseline, within its weight. */
static void test_cover_optional_worth_bytes(void)
{
    /* Required 0..3 cost 400 bytes: 100 a label, 40 of room. Optional 4 comes cheap (5 bytes),
       5 dear (200), 6 and 7 together at 18 (9 a label). */
    uint32_t a[] = {0, 1}, b[] = {2, 3}, c[] = {4}, d[] = {5}, e[] = {6, 7};
    struct cd_cover_set s[] = {{200, a, 2, false}, {200, b, 2, false}, {5, c, 1, false},
                               {200, d, 1, false}, {18, e, 2, false}};
    bool optional[8] = {false, false, false, false, true, true, true, true}, chosen[5];
    struct cd_cover_stats st;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, 5, 8, optional, NULL, chosen, &st, &err), CD_OK);
    CU_ASSERT(chosen[0] && chosen[1] && chosen[2] && !chosen[3] && chosen[4]);
    CU_ASSERT_EQUAL(st.required_bytes, 400);
    CU_ASSERT_EQUAL(st.bytes, 423);
    CU_ASSERT_EQUAL(st.left_out, 1);
    CU_ASSERT_EQUAL(st.items, 8);
    /* Every item required: the dear one too. */
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, 5, 8, NULL, NULL, chosen, &st, &err), CD_OK);
    CU_ASSERT(chosen[3] && st.left_out == 0 && st.bytes == 623);
    /* A tenth of the required cover is the room: with 6 and 7 dearer, they no longer fit. */
    s[4].weight = 38;
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, 5, 8, optional, NULL, chosen, &st, &err), CD_OK);
    CU_ASSERT(st.bytes == 405 && chosen[2] && !chosen[4]);
    s[4].weight = 18;
    /* A baseline (the last cover) of 450 bytes leaves room for nothing, of 455 for the cheapest. */
    s[0].baseline = s[1].baseline = true;
    s[0].weight = 250;
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, 5, 8, optional, NULL, chosen, &st, &err), CD_OK);
    CU_ASSERT_EQUAL(st.baseline_bytes, 450);
    CU_ASSERT_EQUAL(st.bytes, 450);
    s[2].baseline = true;
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, 5, 8, optional, NULL, chosen, &st, &err), CD_OK);
    CU_ASSERT(st.bytes == 455 && chosen[2] && !chosen[4]);
}

/* Random instances: a cover, a bound at most the brute-force optimum, and never above the baseline
 * when the baseline alone covers everything. */
static void test_cover_random_against_brute_force(void)
{
    uint64_t x = 42;
    for (int round = 0; round < 300; round++) {
        enum { N = 9, U = 12 };
        uint32_t items[N][U];
        struct cd_cover_set s[N];
        for (size_t i = 0; i < N; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            s[i] = (struct cd_cover_set){1 + (x >> 33) % 50, items[i], 0, false};
            for (uint32_t u = 0; u < U; u++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                if ((x >> 40) % 3 == 0)
                    items[i][s[i].n++] = u;
            }
        }
        /* sets 0..2 as the baseline, made to cover everything */
        for (uint32_t u = 0, k = 0; u < U; u++, k = (k + 1) % 3) {
            bool there = false;
            for (size_t j = 0; j < s[k].n; j++)
                there |= items[k][j] == u;
            if (!there)
                items[k][s[k].n++] = u;
        }
        uint64_t base = 0;
        for (size_t i = 0; i < 3; i++) {
            s[i].baseline = true;
            base += s[i].weight;
        }
        bool chosen[N];
        struct cd_cover_stats st;
        struct cd_error err;
        CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, N, U, NULL, NULL, chosen, &st, &err), CD_OK);
        CU_ASSERT(covers_all(s, N, U, chosen));
        CU_ASSERT(st.bytes <= base);
        uint64_t best = UINT64_MAX;
        for (unsigned mask = 1; mask < 1u << N; mask++) {
            bool pick[N];
            uint64_t w = 0;
            for (size_t i = 0; i < N; i++) {
                pick[i] = mask >> i & 1;
                w += pick[i] ? s[i].weight : 0;
            }
            if (w < best && covers_all(s, N, U, pick))
                best = w;
        }
        CU_ASSERT(st.bound <= best);
        CU_ASSERT(best <= st.bytes);
        if (round % 8)
            continue;
        /* The exact solve finds the optimum and proves it: bound, LP bound and cover agree. */
        struct cd_cover_exact exact = {10, NULL};
        CU_ASSERT_EQUAL_FATAL(cd_cover_solve(s, N, U, NULL, &exact, chosen, &st, &err), CD_OK);
        CU_ASSERT(covers_all(s, N, U, chosen));
        CU_ASSERT_EQUAL(st.solver, CD_COVER_OPTIMAL);
        CU_ASSERT_EQUAL(st.bytes, best);
        CU_ASSERT_EQUAL(st.bound, best);
        CU_ASSERT(st.lp_bound <= best && st.lp_bound > 0);
    }
}

/* A cover greedy gets wrong by a third: the cheapest set per item first, then the rest dearly,
 * where one set at the greedy's first price per item covered everything. */
static uint32_t fooled_all[] = {0, 1, 2, 3, 4, 5}, fooled_a[] = {0, 1, 2, 3}, fooled_b[] = {4, 5};
static const struct cd_cover_set fooled[] = {
    {6, fooled_all, 6, false}, {3, fooled_a, 4, false}, {5, fooled_b, 2, false}};

static void test_cover_exact_beats_greedy(void)
{
    bool chosen[3];
    struct cd_cover_stats st;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(fooled, 3, 6, NULL, NULL, chosen, &st, &err), CD_OK);
    CU_ASSERT_EQUAL(st.bytes, 8);
    CU_ASSERT_EQUAL(st.solver, CD_COVER_GREEDY);
    struct cd_cover_exact exact = {10, NULL};
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(fooled, 3, 6, NULL, &exact, chosen, &st, &err), CD_OK);
    CU_ASSERT(chosen[0] && !chosen[1] && !chosen[2]);
    CU_ASSERT_EQUAL(st.bytes, 6);
    CU_ASSERT_EQUAL(st.required_bytes, 6);
    CU_ASSERT_EQUAL(st.bound, 6);
    CU_ASSERT_EQUAL(st.solver, CD_COVER_OPTIMAL);
    CU_ASSERT(st.lp_bound >= 5 && st.lp_bound <= 6);
}

/* A stop asked for before the solve gives the greedy cover back at once, marked as stopped. */
static void test_cover_exact_stopped(void)
{
    bool chosen[3];
    struct cd_cover_stats st;
    struct cd_error err;
    volatile sig_atomic_t stop = 1;
    struct cd_cover_exact exact = {600, &stop};
    uint64_t t0 = cd_now_ns();
    CU_ASSERT_EQUAL_FATAL(cd_cover_solve(fooled, 3, 6, NULL, &exact, chosen, &st, &err), CD_OK);
    CU_ASSERT(cd_now_ns() - t0 < 5000000000ull);
    CU_ASSERT_EQUAL(st.solver, CD_COVER_STOPPED);
    CU_ASSERT_EQUAL(st.bytes, 8);
    CU_ASSERT(covers_all(fooled, 3, 6, chosen));
}

static void test_cover_empty(void)
{
    struct cd_cover_stats st;
    struct cd_error err;
    CU_ASSERT_EQUAL(cd_cover_solve(NULL, 0, 0, NULL, NULL, NULL, &st, &err), CD_OK);
    CU_ASSERT_EQUAL(st.bytes, 0);
    CU_ASSERT_EQUAL(st.bound, 0);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_cover_weights_beat_size", test_cover_weights_beat_size},
        {"test_cover_baseline_caps", test_cover_baseline_caps},
        {"test_cover_optional_worth_bytes", test_cover_optional_worth_bytes},
        {"test_cover_random_against_brute_force", test_cover_random_against_brute_force},
        {"test_cover_empty", test_cover_empty},
        {"test_cover_exact_beats_greedy", test_cover_exact_beats_greedy},
        {"test_cover_exact_stopped", test_cover_exact_stopped},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("cover", tests);
}
