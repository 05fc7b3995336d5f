/* The state's identity line (src/exec/exec_identity.c): every form an earlier version wrote is
 * read back field for field (one target, with and without crash_frames, several, with a shard,
 * arguments holding blanks, semicolons and the keys' own text); a line written from fields reads
 * back as the same fields and the same bytes; targets and shared settings compare across the two
 * forms; malformed lines are refused; the first difference is named as the state's message
 * names it. */
#include "exec/cd_identity.h"
#include "harness.h"

#include <string.h>

#define SHA_A "0123456789abcdef0123456789abcdef01234567"
#define SHA_B "89abcdef0123456789abcdef0123456789abcdef"

static bool is(struct cd_span s, const char *text)
{
    return s.n == strlen(text) && memcmp(s.p, text, s.n) == 0;
}

/* Parses line, writes it back, and checks the bytes are the line's. */
static bool round_trip(const char *line, const char *sha1, struct cd_identity *id)
{
    char back[1024];
    if (!cd_identity_parse(line, sha1, id))
        return false;
    size_t n = cd_identity_write(id, back, sizeof back);
    if (n != strlen(line) || strcmp(back, line) != 0) {
        printf("\n  wrote back '%s'\n  for       '%s'\n", back, line);
        return false;
    }
    return true;
}

static void test_identity_one_target_forms(void)
{
    struct cd_identity id;
    /* the first version's line */
    CU_ASSERT_FATAL(round_trip("args=@@; timeout_ms=0; mem_limit_mb=0; edges_only=0; "
                               "map_size=65536; crash_exitcode=none", SHA_A, &id));
    CU_ASSERT(!id.several && id.n_targets == 1 && id.n_shared == 4 && id.map_at == 3);
    CU_ASSERT(is(id.targets[0].args, "@@") && is(id.targets[0].map_size, "65536") &&
              is(id.targets[0].sha1, SHA_A));
    CU_ASSERT(is(id.shared[0].key, "timeout_ms") && is(id.shared[3].key, "crash_exitcode") &&
              is(id.shared[3].value, "none") && id.shard.n == 0);
    /* with the crash state's frames, and a shard */
    CU_ASSERT_FATAL(round_trip("args=-x @@ --in=@@; timeout_ms=50; mem_limit_mb=100; "
                               "edges_only=1; map_size=139; crash_exitcode=-9; crash_frames=3; "
                               "shard=2/4", SHA_A, &id));
    CU_ASSERT(is(id.targets[0].args, "-x @@ --in=@@") && is(id.shard, "2/4") &&
              id.n_shared == 5 && is(id.shared[4].value, "3"));
    /* arguments holding a semicolon, the shard's text and a key's text: theirs, not fields */
    CU_ASSERT_FATAL(round_trip("args=a;b; shard=1/2 map_size=7; timeout_ms=0; mem_limit_mb=0; "
                               "edges_only=0; map_size=8; crash_exitcode=none; crash_frames=3",
                               SHA_A, &id));
    CU_ASSERT(is(id.targets[0].args, "a;b; shard=1/2 map_size=7") &&
              is(id.targets[0].map_size, "8") && id.shard.n == 0);
    /* no arguments at all */
    CU_ASSERT_FATAL(round_trip("args=; timeout_ms=0; mem_limit_mb=0; edges_only=0; map_size=8; "
                               "crash_exitcode=none", "", &id));
    CU_ASSERT(id.targets[0].args.n == 0 && id.targets[0].sha1.n == 0);
}

static void test_identity_several_targets(void)
{
    struct cd_identity id;
    const char *line = "timeout_ms=0; mem_limit_mb=0; edges_only=0; crash_exitcode=none; "
                       "crash_frames=3\ntarget " SHA_A " map_size=65536 args=@@\ntarget " SHA_B
                       " map_size=139 args=--mode=x; y @@; shard=3/8";
    CU_ASSERT_FATAL(round_trip(line, SHA_A, &id));
    CU_ASSERT(id.several && id.n_targets == 2 && id.n_shared == 5 && is(id.shard, "3/8"));
    CU_ASSERT(is(id.targets[0].sha1, SHA_A) && is(id.targets[0].map_size, "65536") &&
              is(id.targets[0].args, "@@"));
    CU_ASSERT(is(id.targets[1].sha1, SHA_B) && is(id.targets[1].map_size, "139") &&
              is(id.targets[1].args, "--mode=x; y @@"));
    /* a target with settings of its own (-t NAME=MS) */
    CU_ASSERT_FATAL(round_trip("timeout_ms=0; mem_limit_mb=0\ntarget " SHA_A " map_size=8 "
                               "timeout_ms=500 mem_limit_mb=64 args=-x args=@@", SHA_A, &id));
    CU_ASSERT(id.targets[0].n_own == 2 && is(id.targets[0].own[0].key, "timeout_ms") &&
              is(id.targets[0].own[1].value, "64") && is(id.targets[0].args, "-x args=@@"));
    struct cd_identity plain;
    CU_ASSERT_FATAL(cd_identity_parse("timeout_ms=0; mem_limit_mb=0\ntarget " SHA_A
                                      " map_size=8 args=-x args=@@", SHA_A, &plain));
    CU_ASSERT(!cd_identity_same_target(&id.targets[0], &plain.targets[0]));
    CU_ASSERT(!cd_identity_parse("timeout_ms=0\ntarget " SHA_A " map_size=8 oops args=@@",
                                 SHA_A, &id));
    /* a target whose binary could not be hashed */
    CU_ASSERT(round_trip("timeout_ms=0; mem_limit_mb=0; edges_only=0; crash_exitcode=none\n"
                         "target  map_size=8 args=@@", SHA_A, &id));
    CU_ASSERT(id.n_targets == 1 && id.targets[0].sha1.n == 0);
}

/* The same target and settings compare equal whichever form holds them: a run of one target
 * and the first of a run of several. */
static void test_identity_compare_across_forms(void)
{
    struct cd_identity one, two, other;
    CU_ASSERT_FATAL(cd_identity_parse("args=@@; timeout_ms=0; mem_limit_mb=0; edges_only=0; "
                                      "map_size=65536; crash_exitcode=none; crash_frames=3",
                                      SHA_A, &one));
    CU_ASSERT_FATAL(cd_identity_parse("timeout_ms=0; mem_limit_mb=0; edges_only=0; "
                                      "crash_exitcode=none; crash_frames=3\ntarget " SHA_A
                                      " map_size=65536 args=@@\ntarget " SHA_B
                                      " map_size=139 args=@@", SHA_B, &two));
    CU_ASSERT(cd_identity_same_target(&one.targets[0], &two.targets[0]));
    CU_ASSERT(!cd_identity_same_target(&one.targets[0], &two.targets[1]));
    CU_ASSERT(cd_identity_same_shared(&one, &two));
    CU_ASSERT(!cd_identity_same_unsharded(&one, &two));
    CU_ASSERT_FATAL(cd_identity_parse("args=@@; timeout_ms=0; mem_limit_mb=0; edges_only=1; "
                                      "map_size=65536; crash_exitcode=none; crash_frames=3; "
                                      "shard=1/2", SHA_A, &other));
    CU_ASSERT(!cd_identity_same_shared(&one, &other));
    char diff[128];
    cd_identity_first_difference(&one, &other, diff, sizeof diff);
    CU_ASSERT_STRING_EQUAL(diff, "edges_only was '0', now '1'");
    /* shards of one run: the same but for the shard */
    struct cd_identity s1, s2;
    CU_ASSERT_FATAL(cd_identity_parse("args=@@; timeout_ms=0; mem_limit_mb=0; edges_only=0; "
                                      "map_size=8; crash_exitcode=none; shard=1/2", SHA_A, &s1));
    CU_ASSERT_FATAL(cd_identity_parse("args=@@; timeout_ms=0; mem_limit_mb=0; edges_only=0; "
                                      "map_size=8; crash_exitcode=none; shard=2/2", SHA_A, &s2));
    CU_ASSERT(cd_identity_same_unsharded(&s1, &s2));
    struct cd_identity m1;
    CU_ASSERT_FATAL(cd_identity_parse("args=@@; timeout_ms=0; mem_limit_mb=0; edges_only=0; "
                                      "map_size=9; crash_exitcode=none; shard=2/2", SHA_A, &m1));
    CU_ASSERT(!cd_identity_same_unsharded(&s1, &m1));
    cd_identity_first_difference(&s1, &m1, diff, sizeof diff);
    CU_ASSERT_STRING_EQUAL(diff, "map_size was '8', now '9'");
    struct cd_identity a1;
    CU_ASSERT_FATAL(cd_identity_parse("args=-v @@; timeout_ms=0; mem_limit_mb=0; edges_only=0; "
                                      "map_size=9; crash_exitcode=none", SHA_A, &a1));
    cd_identity_first_difference(&m1, &a1, diff, sizeof diff);
    CU_ASSERT_STRING_EQUAL(diff, "args was '@@', now '-v @@'");
}

static void test_identity_malformed(void)
{
    struct cd_identity id;
    const char *bad[] = {
        "timeout_ms=0",                                      /* one target without its args */
        "args=@@",                                           /* no settings */
        "args=@@; timeout_ms=0; mem_limit_mb=0",             /* no map size */
        "args=@@; timeout_ms=0; map_size=x1",                /* a map size not a number */
        "args=@@; timeout_ms=0; oops; map_size=1",           /* a field without '=' */
        "timeout_ms=0\ntarget " SHA_A " args=@@",            /* a target without its map size */
        "timeout_ms=0\ntarget abc map_size=1 args=@@",       /* a SHA-1 of 3 digits */
        "timeout_ms=0\ntarget " SHA_A " map_size=1x args=@@", /* a bad map size */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool ok = cd_identity_parse(bad[i], SHA_A, &id);
        if (ok)
            printf("\n  took '%s'\n", bad[i]);
        CU_ASSERT(!ok);
    }
    /* more targets than a run has */
    char line[2048] = "timeout_ms=0";
    for (int t = 0; t < CD_IDENTITY_TARGETS_MAX + 1; t++)
        strcat(line, "\ntarget " SHA_A " map_size=1 args=@@");
    CU_ASSERT(!cd_identity_parse(line, SHA_A, &id));
    /* none at all: a table saved without an identity */
    CU_ASSERT(cd_identity_parse("", SHA_A, &id) && id.n_targets == 0);
    CU_ASSERT(cd_identity_parse(NULL, NULL, &id) && id.n_targets == 0);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_identity_one_target_forms", test_identity_one_target_forms},
        {"test_identity_several_targets", test_identity_several_targets},
        {"test_identity_compare_across_forms", test_identity_compare_across_forms},
        {"test_identity_malformed", test_identity_malformed},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("identity", tests);
}
