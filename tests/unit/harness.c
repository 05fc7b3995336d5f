/* CUnit runner shared by every test executable; see harness.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "harness.h"

#include <CUnit/Basic.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *skip_reason;

int cd_test_run(const char *name, CU_TestInfo *tests)
{
    CU_SuiteInfo suites[] = {{name, NULL, NULL, NULL, NULL, tests}, CU_SUITE_INFO_NULL};
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned asserts = CU_get_number_of_asserts();
    CU_cleanup_registry();
    if (failed)
        return 1;
    if (skip_reason && asserts == 0) {
        printf("skipped: %s\n", skip_reason);
        return 77;
    }
    return 0;
}

char *cd_test_mkdtemp(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/cd-test-XXXXXX", base && *base ? base : "/tmp");
    char *dir = mkdtemp(tmpl);
    return dir ? strdup(dir) : NULL;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void cd_test_rmdir(char *path)
{
    if (!path)
        return;
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(path);
}

char *cd_test_target(const char *name)
{
    const char *dir = getenv("CD_TARGETS");
    if (!dir || !*dir)
        dir = CD_TARGETS_DIR;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (access(path, X_OK) != 0)
        return NULL;
    return strdup(path);
}

bool cd_test_have_afl(void)
{
    const char *have = getenv("CD_HAVE_AFL");
    return have && strcmp(have, "1") == 0;
}

void cd_test_skip_all(const char *why)
{
    skip_reason = why;
}

char *cd_test_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

void cd_test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}
