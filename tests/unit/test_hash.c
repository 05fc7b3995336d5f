/* Unit tests for the hash module: XXH3 content hashes, SHA-1 names, the hash set. */
#include "common/cd_hash.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static void test_hash_sha1_known_vectors(void)
{
    char hex[41];
    cd_hash_sha1_hex("", 0, hex);
    CU_ASSERT_STRING_EQUAL(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    cd_hash_sha1_hex("abc", 3, hex);
    CU_ASSERT_STRING_EQUAL(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
}

static void test_hash_bytes_distinguishes_contents(void)
{
    struct cd_hash a = cd_hash_bytes("abc", 3), b = cd_hash_bytes("abd", 3);
    struct cd_hash a2 = cd_hash_bytes("abc", 3), e = cd_hash_bytes(NULL, 0);
    CU_ASSERT(a.lo != b.lo || a.hi != b.hi);
    CU_ASSERT(a.lo == a2.lo && a.hi == a2.hi);
    CU_ASSERT(e.lo != a.lo || e.hi != a.hi);
}

static void test_hash_set_adds_once_and_grows(void)
{
    struct cd_hashset set = {0};
    for (unsigned i = 0; i < 5000; i++) {
        struct cd_hash h = cd_hash_bytes(&i, sizeof i);
        CU_ASSERT_EQUAL(cd_hashset_add(&set, h), 1);
    }
    CU_ASSERT_EQUAL(set.count, 5000);
    for (unsigned i = 0; i < 5000; i++) {
        struct cd_hash h = cd_hash_bytes(&i, sizeof i);
        CU_ASSERT_EQUAL(cd_hashset_add(&set, h), 0);
        CU_ASSERT(cd_hashset_has(&set, h));
    }
    unsigned other = 99999;
    CU_ASSERT(!cd_hashset_has(&set, cd_hash_bytes(&other, sizeof other)));
    struct cd_hash zero = {0, 0};
    CU_ASSERT_EQUAL(cd_hashset_add(&set, zero), 1);
    CU_ASSERT(cd_hashset_has(&set, zero));
    cd_hashset_release(&set);
    CU_ASSERT_EQUAL(set.count, 0);
}

/* Within a budget the table stops growing and forgets instead, counting what it forgets: 10
 * million values in a 64 KiB budget. The value just added is always present, and values never
 * added are not (no false positive among a million). */
static void test_hash_set_stays_within_budget(void)
{
    struct cd_hashset set = {.max_bytes = 64u << 10};
    size_t peak = 0;
    for (uint64_t i = 0; i < 10000000; i++) {
        struct cd_hash h = cd_hash_bytes(&i, sizeof i);
        int r = cd_hashset_add(&set, h);
        CU_ASSERT_EQUAL_FATAL(r, 1);
        CU_ASSERT_FATAL(cd_hashset_has(&set, h));
        if (cd_hashset_bytes(&set) > peak)
            peak = cd_hashset_bytes(&set);
    }
    CU_ASSERT(peak <= (64u << 10) * 2 / 3);
    CU_ASSERT(peak >= (64u << 10) / 2);
    CU_ASSERT(set.forgotten >= 10000000 - peak / 8);
    CU_ASSERT(set.count <= peak / 8);
    unsigned present = 0;
    for (uint64_t i = 20000000; i < 21000000; i++)
        present += cd_hashset_has(&set, cd_hash_bytes(&i, sizeof i)) != 0;
    CU_ASSERT_EQUAL(present, 0);
    /* The latest values are mostly still there: forgetting is spread over the whole table. */
    unsigned kept = 0;
    for (uint64_t i = 10000000 - 100; i < 10000000; i++)
        kept += cd_hashset_has(&set, cd_hash_bytes(&i, sizeof i)) != 0;
    CU_ASSERT(kept >= 90);
    cd_hashset_release(&set);
    CU_ASSERT_EQUAL(set.forgotten, 0);
}

/* The fingerprints come out sorted, rebuild the same set, and a set given a budget after it was
 * filled keeps what fits and still grows to the budget. */
static void test_hash_set_fingerprints_and_budget(void)
{
    struct cd_hashset a = {0}, b = {0};
    for (uint32_t i = 0; i < 20000; i++)
        CU_ASSERT_EQUAL(cd_hashset_add(&a, cd_hash_bytes(&i, sizeof i)), 1);
    uint64_t *fp = malloc(a.count * sizeof *fp), *again = malloc(a.count * sizeof *again);
    CU_ASSERT_FATAL(fp && again);
    size_t n = cd_hashset_fingerprints(&a, fp);
    CU_ASSERT_EQUAL(n, 20000);
    for (size_t i = 1; i < n; i++)
        CU_ASSERT(fp[i - 1] < fp[i]);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_EQUAL(cd_hashset_add_fingerprint(&b, fp[i]), 1);
    CU_ASSERT_EQUAL(cd_hashset_fingerprints(&b, again), n);
    CU_ASSERT(memcmp(fp, again, n * sizeof *fp) == 0);
    CU_ASSERT_EQUAL(cd_hashset_set_budget(&a, 64 << 20), 0);
    for (uint32_t i = 0; i < 20000; i++)
        CU_ASSERT(cd_hashset_has(&a, cd_hash_bytes(&i, sizeof i)));
    for (uint32_t i = 20000; i < 200000; i++)
        cd_hashset_add(&a, cd_hash_bytes(&i, sizeof i));
    CU_ASSERT_EQUAL(a.forgotten, 0);
    CU_ASSERT_EQUAL(a.count, 200000);
    CU_ASSERT(cd_hashset_bytes(&a) <= 64 << 20);
    free(fp);
    free(again);
    cd_hashset_release(&a);
    cd_hashset_release(&b);
}

/* A value costs a few words, not a table grown at the first full bucket of four (which took over
 * 120 bytes a value: 179 MB for 1.4 million executions of a real run): a million values, with
 * and without a budget, in at most 32 bytes each (the table doubles at three quarters full), none
 * forgotten, every one found. */
static void test_hash_set_is_dense(void)
{
    size_t budgets[] = {0, 256u << 20};
    for (size_t b = 0; b < 2; b++) {
        struct cd_hashset set = {.max_bytes = budgets[b]};
        for (uint64_t i = 0; i < 1000000; i++)
            CU_ASSERT_EQUAL_FATAL(cd_hashset_add(&set, cd_hash_bytes(&i, sizeof i)), 1);
        CU_ASSERT_EQUAL(set.count, 1000000);
        CU_ASSERT_EQUAL(set.forgotten, 0);
        CU_ASSERT(cd_hashset_bytes(&set) <= 32u * 1000000);
        unsigned missing = 0;
        for (uint64_t i = 0; i < 1000000; i++)
            missing += !cd_hashset_has(&set, cd_hash_bytes(&i, sizeof i));
        CU_ASSERT_EQUAL(missing, 0);
        cd_hashset_release(&set);
    }
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_hash_set_fingerprints_and_budget", test_hash_set_fingerprints_and_budget},
        {"test_hash_sha1_known_vectors", test_hash_sha1_known_vectors},
        {"test_hash_bytes_distinguishes_contents", test_hash_bytes_distinguishes_contents},
        {"test_hash_set_adds_once_and_grows", test_hash_set_adds_once_and_grows},
        {"test_hash_set_stays_within_budget", test_hash_set_stays_within_budget},
        {"test_hash_set_is_dense", test_hash_set_is_dense},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("hash", tests);
}
