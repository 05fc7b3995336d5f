/* Unit tests of the shared vocabulary (src/common/common.c): errors and their kinds, statuses, shown
 * text. */
#include "common/cd_common.h"
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Each setter fills message, kind and errno as its contract says, and returns the status given. */
static void test_error_kinds(void)
{
    struct cd_error err;
    memset(&err, 0xff, sizeof err);
    CU_ASSERT_EQUAL(cd_error_set(&err, CD_WARN, "skipping '%s'", "a"), CD_WARN);
    CU_ASSERT_STRING_EQUAL(err.msg, "skipping 'a'");
    CU_ASSERT_EQUAL(err.kind, CD_ERR_OTHER);
    CU_ASSERT_EQUAL(err.errnum, 0);

    CU_ASSERT_EQUAL(cd_error_oom(&err, CD_FAILED, "out of memory reading '%s'", "b"), CD_FAILED);
    CU_ASSERT_EQUAL(err.kind, CD_ERR_NOMEM);
    CU_ASSERT_STRING_EQUAL(err.msg, "out of memory reading 'b'");

    int fd = open("/nonexistent/corpus-distill-test", O_RDONLY);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_EQUAL(cd_error_sys(&err, CD_FAILED, "cannot open: %s", strerror(errno)), CD_FAILED);
    CU_ASSERT_EQUAL(err.errnum, ENOENT);
    CU_ASSERT_EQUAL(err.kind, CD_ERR_OTHER);

    /* a module's mark gives a kind to an error of none, and keeps an out-of-memory one */
    CU_ASSERT_EQUAL(cd_error_mark(&err, CD_FAILED, CD_ERR_INPUT), CD_FAILED);
    CU_ASSERT_EQUAL(err.kind, CD_ERR_INPUT);
    CU_ASSERT_EQUAL(err.errnum, ENOENT);
    cd_error_oom(&err, CD_FAILED, "out of memory");
    cd_error_mark(&err, CD_FAILED, CD_ERR_TARGET);
    CU_ASSERT_EQUAL(err.kind, CD_ERR_NOMEM);

    /* no error struct: the status still comes back */
    CU_ASSERT_EQUAL(cd_error_set(NULL, CD_FAILED, "x"), CD_FAILED);
    CU_ASSERT_EQUAL(cd_error_oom(NULL, CD_FAILED, "x"), CD_FAILED);
    CU_ASSERT_EQUAL(cd_error_mark(NULL, CD_WARN, CD_ERR_INPUT), CD_WARN);

    CU_ASSERT_STRING_EQUAL(cd_error_kind_name(CD_ERR_NOMEM), "out of memory");
    CU_ASSERT_STRING_EQUAL(cd_error_kind_name(CD_ERR_FOREIGN), "foreign output");
    CU_ASSERT_STRING_EQUAL(cd_status_name(CD_FATAL), "fatal");
}

/* A message longer than the buffer is cut, still terminated. */
static void test_error_message_is_cut(void)
{
    struct cd_error err;
    char long_name[2 * CD_ERROR_MAX];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    cd_error_set(&err, CD_FAILED, "cannot read '%s'", long_name);
    CU_ASSERT_EQUAL(strlen(err.msg), CD_ERROR_MAX - 1);
    CU_ASSERT_EQUAL(strncmp(err.msg, "cannot read 'nnn", 16), 0);
}

/* Shown text: control bytes escaped, backslashes doubled, cut with "..." where it does not fit. */
static void test_shown(void)
{
    char buf[32];
    CU_ASSERT_STRING_EQUAL(cd_shown("a\nb\\c", buf, sizeof buf), "a\\x0ab\\\\c");
    const char *s = cd_shown("0123456789012345678901234567890123456789", buf, 16);
    CU_ASSERT(strlen(s) < 16);
    CU_ASSERT(strstr(s, "...") != NULL);
    /* C1 raw and in UTF-8 (the one-character CSI), DEL, bidi overrides and isolates, invalid
       UTF-8: escaped; other UTF-8 kept */
    char big[128];
    CU_ASSERT_STRING_EQUAL(cd_shown("a\x9b" "31m", big, sizeof big), "a\\x9b31m");
    CU_ASSERT_STRING_EQUAL(cd_shown("a\xc2\x9b" "31m", big, sizeof big), "a\\xc2\\x9b31m");
    CU_ASSERT_STRING_EQUAL(cd_shown("\x7f", big, sizeof big), "\\x7f");
    CU_ASSERT_STRING_EQUAL(cd_shown("x\xe2\x80\xaey", big, sizeof big), "x\\xe2\\x80\\xaey");
    CU_ASSERT_STRING_EQUAL(cd_shown("\xe2\x81\xa6", big, sizeof big), "\\xe2\\x81\\xa6");
    CU_ASSERT_STRING_EQUAL(cd_shown("caf\xc3\xa9 \xe2\x82\xac", big, sizeof big),
                           "caf\xc3\xa9 \xe2\x82\xac");
    CU_ASSERT_STRING_EQUAL(cd_shown("\xc0\xaf\xed\xa0\x80", big, sizeof big),
                           "\\xc0\\xaf\\xed\\xa0\\x80");
    CU_ASSERT_STRING_EQUAL(cd_shown("\xe2\x82", big, sizeof big), "\\xe2\\x82");
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_error_kinds", test_error_kinds},
        {"test_error_message_is_cut", test_error_message_is_cut},
        {"test_shown", test_shown},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("common", tests);
}
