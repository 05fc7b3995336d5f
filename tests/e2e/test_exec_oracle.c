/* Oracle test for the executor and the labels: for every input of every sample corpus
 * (sample_corpora/<name>.tar.zst with target sample_<name>), the coverage labels we compute equal
 * afl-showmap's raw counts for the same target and input, classified by the intended AFL ranges.
 * afl-showmap -i writes a map for a crashing input too, so crashes are compared (coverage only;
 * the outcome labels are ours); inputs that time out are counted, not compared, since where the
 * kill lands is timing. Fails when there is no corpus, or a corpus whose target was not built. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "exec/cd_exec.h"
#include "table/cd_labels.h"
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_INPUTS 20000

static char *flat_dir;   /* where nftw moves the inputs */
static unsigned n_flat;

static int flatten_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)ftw;
    if (flag != FTW_F || !S_ISREG(st->st_mode) || st->st_size == 0 || n_flat >= MAX_INPUTS)
        return 0; /* afl-showmap -i skips empty files too */
    char dst[4096];
    snprintf(dst, sizeof dst, "%s/in%06u", flat_dir, n_flat++);
    return rename(path, dst) == 0 ? 0 : -1;
}

static bool file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t n = strlen(needle), cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    bool found = false;
    for (;;) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        for (size_t i = 0; i + n <= len; i++)
            if (memcmp(buf + i, needle, n) == 0) {
                found = true;
                break;
            }
        if (found || got == 0)
            break;
        /* keep the last n-1 bytes for matches across the boundary */
        memmove(buf, buf + len - (n - 1), n - 1);
        len = n - 1;
    }
    free(buf);
    fclose(f);
    return found;
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    *len = fread(buf, 1, (size_t)(n > 0 ? n : 0), f);
    fclose(f);
    return buf;
}

/* The intended AFL hit-count classes, written out here independently of the labels module. */
static uint32_t expected_label(unsigned edge, unsigned count)
{
    static const unsigned upper[] = {1, 2, 3, 7, 15, 31, 127, 255};
    unsigned cls = 1;
    while (count > upper[cls - 1])
        cls++;
    return (uint32_t)edge << 3 | (cls - 1);
}

/* Reads afl-showmap -r output ("%06u:%u" with raw counts) into a sorted label set. */
static bool read_showmap(const char *path, struct cd_labelset *set)
{
    set->n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    unsigned edge, count;
    while (fscanf(f, "%u:%u", &edge, &count) == 2)
        if (edge != 0 && count != 0)
            cd_labelset_push(set, expected_label(edge, count > 255 ? 255 : count));
    fclose(f);
    return true;
}

struct tally {
    unsigned compared, crashed, skipped, mismatched, corpora;
};

static void check_corpus(const char *src, const char *targets, const char *name, struct tally *t)
{
    char target[4096], archive[4096], cmd[16384];
    snprintf(target, sizeof target, "%s/sample_%s", targets, name);
    snprintf(archive, sizeof archive, "%s/sample_corpora/%s.tar.zst", src, name);
    if (access(target, X_OK) != 0) { /* AFL++ is here, so the build made every sample target */
        printf("\n  corpus %s: target %s not built\n", name, target);
        CU_FAIL("a sample corpus has no built target");
        return;
    }
    char *dir = cd_test_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char xdir[4200], in[4200], out[4200];
    snprintf(xdir, sizeof xdir, "%s/x", dir);
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    mkdir(xdir, 0700);
    mkdir(in, 0700);
    snprintf(cmd, sizeof cmd, "tar --zstd -xf '%s' -C '%s'", archive, xdir);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    flat_dir = in;
    n_flat = 0;
    CU_ASSERT_EQUAL_FATAL(nftw(xdir, flatten_one, 16, FTW_PHYS), 0);
    CU_ASSERT_FATAL(n_flat > 0);

    /* A libFuzzer harness takes its input through shared memory: no file argument. */
    bool harness = file_contains(target, "LLVMFuzzerTestOneInput");
    snprintf(cmd, sizeof cmd,
             "AFL_QUIET=1 afl-showmap -r -q -m none -t 1000 -i '%s' -o '%s' -- '%s'%s "
             ">/dev/null 2>&1",
             in, out, target, harness ? "" : " @@");
    int rc = system(cmd);
    CU_ASSERT(rc != -1);

    char *argv[] = {target, "@@", NULL};
    struct cd_exec_opts opts = {.argv = argv, .timeout_ms = 1000, .cpu = -1};
    struct cd_exec *ex = NULL;
    struct cd_error err;
    if (cd_exec_new(&ex, &opts, &err) != CD_OK)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    struct cd_labelset ours = {0}, theirs = {0};
    unsigned compared = 0, crashed = 0, skipped = 0, mismatched = 0;
    for (unsigned i = 0; i < n_flat; i++) {
        char path[4300], opath[4300];
        snprintf(path, sizeof path, "%s/in%06u", in, i);
        snprintf(opath, sizeof opath, "%s/in%06u", out, i);
        size_t len = 0;
        uint8_t *data = read_all(path, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(data);
        struct cd_run run;
        enum cd_status st = cd_exec_run(ex, data, len, &run, &err);
        free(data);
        if (st == CD_WARN) {
            skipped++;
            continue;
        }
        CU_ASSERT_EQUAL_FATAL(st, CD_OK);
        if (run.outcome == CD_OUTCOME_TIMEOUT) {
            skipped++;
            continue;
        }
        crashed += run.outcome == CD_OUTCOME_CRASH;
        CU_ASSERT_EQUAL_FATAL(cd_labels_from_run(&run, false, &ours, &err), CD_OK);
        while (ours.n > 0 && cd_labels_is_outcome(ours.v[ours.n - 1]))
            ours.n--; /* outcome ids sort last */
        bool have = read_showmap(opath, &theirs);
        compared++;
        if (have && ours.n == theirs.n &&
            memcmp(ours.v, theirs.v, ours.n * sizeof *ours.v) == 0)
            continue;
        if (mismatched++ < 3) {
            fprintf(stderr, "%s: %s differs from afl-showmap (%zu vs %zu labels):", name, path,
                    ours.n, have ? theirs.n : 0);
            for (size_t k = 0; k < ours.n; k++)
                if (!cd_labelset_has(&theirs, ours.v[k])) {
                    char b[32];
                    cd_labels_format(ours.v[k], b, sizeof b);
                    fprintf(stderr, " +%s", b);
                }
            for (size_t k = 0; have && k < theirs.n; k++)
                if (!cd_labelset_has(&ours, theirs.v[k])) {
                    char b[32];
                    cd_labels_format(theirs.v[k], b, sizeof b);
                    fprintf(stderr, " -%s", b);
                }
            fprintf(stderr, "\n");
        }
    }
    printf("\n  corpus %s: %u inputs, %u compared (%u of them crashed), %u timed out, %u differ\n",
           name, n_flat, compared, crashed, skipped, mismatched);
    CU_ASSERT(compared > 0);
    CU_ASSERT_EQUAL(mismatched, 0);
    t->compared += compared;
    t->crashed += crashed;
    t->skipped += skipped;
    t->mismatched += mismatched;
    t->corpora++;
    cd_labelset_release(&ours);
    cd_labelset_release(&theirs);
    cd_exec_free(ex);
    cd_test_rmdir(dir);
}

static void test_exec_oracle_matches_afl_showmap(void)
{
    const char *src = getenv("CD_SRC");
    const char *targets = getenv("CD_TARGETS");
    if (!src || !*src)
        src = CD_SOURCE_DIR;
    if (!targets || !*targets)
        targets = CD_TARGETS_DIR;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/sample_corpora", src);
    struct tally t = {0};
    DIR *d = opendir(dir);
    struct dirent *e;
    char *names[64];
    size_t n = 0;
    while (d && (e = readdir(d)) && n < 64) {
        size_t len = strlen(e->d_name);
        if (len > 8 && strcmp(e->d_name + len - 8, ".tar.zst") == 0)
            names[n++] = strndup(e->d_name, len - 8);
    }
    if (d)
        closedir(d);
    for (size_t i = 0; i < n; i++) {
        check_corpus(src, targets, names[i], &t);
        free(names[i]);
    }
    printf("\n  %u corpora, %u inputs compared (%u crashed), %u timed out, %u differ\n",
           t.corpora, t.compared, t.crashed, t.skipped, t.mismatched);
    CU_ASSERT(t.corpora > 0);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_exec_oracle_matches_afl_showmap", test_exec_oracle_matches_afl_showmap},
        CU_TEST_INFO_NULL,
    };
    if (!cd_test_have_afl()) {
        cd_test_skip_all("AFL++ is not available");
        CU_TestInfo none[] = {CU_TEST_INFO_NULL};
        return cd_test_run("exec_oracle", none);
    }
    return cd_test_run("exec_oracle", tests);
}
