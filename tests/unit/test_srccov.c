/* Unit tests of the source coverage record (src/output/srccov.c) without a coverage build: a record
 * saved and loaded again is the same, lookups by function, file and line, and a file that is not
 * a record is refused with a message naming it. Measuring is tested end to end
 * (tests/e2e/audit_source.sh). */
#include "output/cd_srccov.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A record of two files, three functions and one measured and one unmeasured seed. */
static void sample_record(struct cd_srccov *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->binary_sha1, sizeof c->binary_sha1, "%040d", 7);
    c->n_files = 2;
    c->files = calloc(2, sizeof *c->files);
    c->files[0] = strdup("/src/a.c");
    c->files[1] = strdup("/src/lib/b.c");
    c->n_fns = 3; /* sorted by name */
    c->fns = calloc(3, sizeof *c->fns);
    c->fns[0] = (struct cd_srccov_fn){strdup("a.c:helper"), 0, 3};
    c->fns[1] = (struct cd_srccov_fn){strdup("b_entry"), 1, 10};
    c->fns[2] = (struct cd_srccov_fn){strdup("main"), 0, 20};
    static const uint32_t la[] = {3, 4, 5, 20, 21}, lb[] = {10, 11};
    c->lines = calloc(2, sizeof *c->lines);
    c->n_lines = calloc(2, sizeof *c->n_lines);
    c->lines[0] = malloc(sizeof la);
    memcpy(c->lines[0], la, sizeof la);
    c->n_lines[0] = 5;
    c->lines[1] = malloc(sizeof lb);
    memcpy(c->lines[1], lb, sizeof lb);
    c->n_lines[1] = 2;
    c->n_branches = 2; /* sorted: file, line, block, direction */
    c->branches = calloc(2, sizeof *c->branches);
    c->branches[0] = (struct cd_srccov_branch){0, 4, 0, 0};
    c->branches[1] = (struct cd_srccov_branch){0, 4, 0, 1};
    c->n_seeds = 2;
    c->seeds = calloc(2, sizeof *c->seeds);
    struct cd_srccov_seed *s = &c->seeds[0];
    snprintf(s->sha1, sizeof s->sha1, "%040d", 1);
    s->size = 12;
    s->measured = true;
    s->n_fns = 2;
    s->fns = malloc(2 * sizeof *s->fns);
    s->fns[0] = 0;
    s->fns[1] = 2;
    s->lines = calloc(2, sizeof *s->lines);
    s->n_lines = calloc(2, sizeof *s->n_lines);
    s->lines[0] = malloc(2 * sizeof **s->lines);
    s->lines[0][0] = 4;
    s->lines[0][1] = 20;
    s->n_lines[0] = 2;
    s->n_brs = 1;
    s->brs = malloc(sizeof *s->brs);
    s->brs[0] = 1;
    snprintf(c->seeds[1].sha1, sizeof c->seeds[1].sha1, "%040d", 2);
    c->seeds[1].size = 99;
}

static void test_srccov_record_round_trip(void)
{
    char *dir = cd_test_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/s.source.json", dir);
    struct cd_srccov c, d;
    struct cd_error err;
    /* no record yet: empty, not an error */
    CU_ASSERT_EQUAL(cd_srccov_load(&d, path, &err), CD_OK);
    CU_ASSERT_EQUAL(d.n_seeds, 0);
    sample_record(&c);
    CU_ASSERT_EQUAL_FATAL(cd_srccov_save(&c, path, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_srccov_load(&d, path, &err), CD_OK);
    CU_ASSERT_STRING_EQUAL(d.binary_sha1, c.binary_sha1);
    CU_ASSERT_EQUAL_FATAL(d.n_files, 2);
    CU_ASSERT_STRING_EQUAL(d.files[1], "/src/lib/b.c");
    CU_ASSERT_EQUAL_FATAL(d.n_fns, 3);
    CU_ASSERT(strcmp(d.fns[2].name, "main") == 0 && d.fns[2].file == 0 && d.fns[2].line == 20);
    CU_ASSERT(d.n_lines[0] == 5 && d.lines[0][4] == 21 && d.n_lines[1] == 2);
    const struct cd_srccov_seed *s = cd_srccov_find(&d, c.seeds[0].sha1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT(s->measured && s->size == 12 && s->n_fns == 2 && s->fns[1] == 2);
    CU_ASSERT_EQUAL_FATAL(d.n_branches, 2);
    CU_ASSERT(d.branches[1].line == 4 && d.branches[1].dir == 1);
    CU_ASSERT(s->n_brs == 1 && s->brs[0] == 1);
    CU_ASSERT(cd_srccov_has(s->lines[0], s->n_lines[0], 20));
    CU_ASSERT(!cd_srccov_has(s->lines[0], s->n_lines[0], 21));
    CU_ASSERT_EQUAL(s->n_lines[1], 0);
    s = cd_srccov_find(&d, c.seeds[1].sha1);
    CU_ASSERT(s && !s->measured && s->size == 99);
    /* lookups: a static function by its bare name, a file by its last components */
    CU_ASSERT_EQUAL(cd_srccov_find_fn(&d, "main"), 2);
    CU_ASSERT_EQUAL(cd_srccov_find_fn(&d, "helper"), 0);
    CU_ASSERT_EQUAL(cd_srccov_find_fn(&d, "a.c:helper"), 0);
    CU_ASSERT_EQUAL(cd_srccov_find_fn(&d, "nothing"), -1);
    CU_ASSERT_EQUAL(cd_srccov_find_file(&d, "lib/b.c"), 1);
    CU_ASSERT_EQUAL(cd_srccov_find_file(&d, "b.c"), 1);
    CU_ASSERT_EQUAL(cd_srccov_find_file(&d, "ib/b.c"), -1);
    CU_ASSERT_PTR_NULL(cd_srccov_find(&d, "0123"));
    cd_srccov_release(&c);
    cd_srccov_release(&d);
    CU_ASSERT_EQUAL(d.n_fns, 0);
    cd_test_rmdir(dir);
}

static void test_srccov_refuses_other_files(void)
{
    char *dir = cd_test_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/s.source.json", dir);
    static const char *bad[] = {"not json", "{\"schema_version\": 2}", "[1, 2]",
                                "{\"schema_version\": 1, \"binary_sha1\": \"x\", \"files\": [],"
                                " \"functions\": [{\"name\": \"f\", \"file\": 3}], \"lines\": [],"
                                " \"seeds\": {}}",
                                "{\"schema_version\": 1, \"binary_sha1\": \"x\","
                                " \"files\": [\"a\"], \"functions\": [], \"lines\": [[]],"
                                " \"branches\": [[0, 1, 0, 0]],"
                                " \"seeds\": {\"ab\": {\"branches\": [1]}}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(bad[i], f);
        fclose(f);
        struct cd_srccov c;
        struct cd_error err;
        CU_ASSERT_EQUAL(cd_srccov_load(&c, path, &err), CD_FAILED);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
        CU_ASSERT_EQUAL(c.n_fns, 0);
    }
    cd_test_rmdir(dir);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_srccov_record_round_trip", test_srccov_record_round_trip},
        {"test_srccov_refuses_other_files", test_srccov_refuses_other_files},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("srccov", tests);
}
