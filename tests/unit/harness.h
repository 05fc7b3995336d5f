/* Shared CUnit runner for the unit and end-to-end suites: one suite per executable, verbose output,
 * and an exit status that is non-zero when any assertion failed (CUnit's basic runner alone exits 0).
 * Helpers for temporary directories and sample targets live here too. */
#ifndef CD_TEST_HARNESS_H
#define CD_TEST_HARNESS_H

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stddef.h>

/* Runs the NULL-terminated tests as suite `name`; returns the process exit status (0, 1, or 77
 * when every test was skipped by cd_test_skip_all). */
int cd_test_run(const char *name, CU_TestInfo *tests);

/* Makes a fresh private temporary directory; returns an owned path, free with cd_test_rmdir. */
char *cd_test_mkdtemp(void);

/* Removes the directory tree at path and frees path. */
void cd_test_rmdir(char *path);

/* Returns "a/b", owned (free with free()). */
char *cd_test_join(const char *a, const char *b);

/* Writes text to path, replacing it; a failure fails the test. */
void cd_test_write_text(const char *path, const char *text);

/* Returns an owned path to the built sample target `name`, or NULL when targets were not built. */
char *cd_test_target(const char *name);

/* True when AFL++ and the instrumented sample targets are available. */
bool cd_test_have_afl(void);

/* Marks the whole executable as skipped (exit 77) unless some test ran an assertion. */
void cd_test_skip_all(const char *why);

#endif
