/* Unit tests for the atomic file writes: a file appears whole or not at all, a staged file is
 * invisible until committed and gone when aborted, no temporary file is left either way, the mode
 * follows the umask, and the path helpers split and join as documented. */
#include "common/cd_file.h"
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The number of entries of dir other than "." and "..". */
static unsigned entries(const char *dir)
{
    DIR *d = opendir(dir);
    unsigned n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Reads path whole into buf (at most cap bytes); returns its length, or -1. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap);
    close(fd);
    return n;
}

static void test_file_write_replaces_whole_and_leaves_no_temp(void)
{
    char *dir = cd_test_mkdtemp();
    char *path = cd_file_join(dir, "out.json");
    struct cd_error err = {0};
    char buf[64];
    CU_ASSERT_EQUAL(cd_file_write(path, "first version", 13, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_file_write(path, "second", 6, &err), CD_OK);
    CU_ASSERT_EQUAL(slurp(path, buf, sizeof buf), 6);
    CU_ASSERT_EQUAL(memcmp(buf, "second", 6), 0);
    CU_ASSERT_EQUAL(entries(dir), 1);
    CU_ASSERT_EQUAL(cd_file_write(path, "", 0, &err), CD_OK);
    CU_ASSERT_EQUAL(slurp(path, buf, sizeof buf), 0);
    free(path);
    cd_test_rmdir(dir);
}

static void test_file_write_fails_cleanly_without_parent(void)
{
    char *dir = cd_test_mkdtemp();
    char *path = cd_file_join(dir, "missing/out.json");
    struct cd_error err = {0};
    CU_ASSERT_NOT_EQUAL(cd_file_write(path, "x", 1, &err), CD_OK);
    CU_ASSERT(err.msg[0] != 0);
    CU_ASSERT_EQUAL(entries(dir), 0);
    free(path);
    cd_test_rmdir(dir);
}

static void test_file_stage_is_invisible_until_commit(void)
{
    char *dir = cd_test_mkdtemp();
    char *path = cd_file_join(dir, "seeds.state");
    struct cd_error err = {0};
    char buf[64];
    CU_ASSERT_EQUAL(cd_file_write(path, "old", 3, &err), CD_OK);
    struct cd_file *f = NULL;
    CU_ASSERT_EQUAL_FATAL(cd_file_stage(&f, path, "new state", 9, &err), CD_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    /* staged: the old file is still what the name shows, beside one temp file */
    CU_ASSERT_EQUAL(slurp(path, buf, sizeof buf), 3);
    CU_ASSERT_EQUAL(entries(dir), 2);
    CU_ASSERT_EQUAL(cd_file_commit(f, &err), CD_OK);
    CU_ASSERT_EQUAL(slurp(path, buf, sizeof buf), 9);
    CU_ASSERT_EQUAL(memcmp(buf, "new state", 9), 0);
    CU_ASSERT_EQUAL(entries(dir), 1);
    /* aborted: the committed file stays, the temp file goes */
    CU_ASSERT_EQUAL_FATAL(cd_file_stage(&f, path, "discarded", 9, &err), CD_OK);
    cd_file_abort(f);
    cd_file_abort(NULL);
    CU_ASSERT_EQUAL(slurp(path, buf, sizeof buf), 9);
    CU_ASSERT_EQUAL(entries(dir), 1);
    free(path);
    cd_test_rmdir(dir);
}

static void test_file_mode_follows_umask(void)
{
    char *dir = cd_test_mkdtemp();
    char *path = cd_file_join(dir, "m");
    struct cd_error err = {0};
    mode_t old = umask(027);
    CU_ASSERT_EQUAL(cd_file_umask(), 027);
    CU_ASSERT_EQUAL(cd_file_write(path, "x", 1, &err), CD_OK);
    umask(old);
    struct stat st;
    CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0640);
    free(path);
    cd_test_rmdir(dir);
}

static void test_file_temp_commit_over_existing(void)
{
    char *dir = cd_test_mkdtemp();
    char *path = cd_file_join(dir, "report.html");
    struct cd_error err = {0};
    char *tmp = NULL, buf[16];
    int fd = -1;
    CU_ASSERT_EQUAL(cd_file_write(path, "old", 3, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_file_temp_open(dir, "report.html", &tmp, &fd, &err), CD_OK);
    CU_ASSERT(fd >= 0);
    CU_ASSERT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
    CU_ASSERT_PTR_NOT_NULL(strstr(tmp, "/.report.html.tmp-"));
    CU_ASSERT_EQUAL(cd_file_write_all(fd, (const uint8_t *)"fresh", 5, "report", &err), CD_OK);
    CU_ASSERT_EQUAL(cd_file_temp_commit(&fd, &tmp, path, dir, &err), CD_OK);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_PTR_NULL(tmp);
    CU_ASSERT_EQUAL(slurp(path, buf, sizeof buf), 5);
    CU_ASSERT_EQUAL(entries(dir), 1);
    CU_ASSERT_EQUAL(cd_file_sync_dir(dir), 0);
    free(path);
    cd_test_rmdir(dir);
}

static void test_file_split_and_join(void)
{
    static const struct {
        const char *path, *whole, *parent, *base;
    } cases[] = {
        {"out/seeds", "out/seeds", "out", "seeds"},
        {"out/seeds///", "out/seeds", "out", "seeds"},
        {"seeds", "seeds", ".", "seeds"},
        {"/seeds", "/seeds", "/", "seeds"},
        {"a/b/c/", "a/b/c", "a/b", "c"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *whole = NULL, *parent = NULL, *base = NULL;
        CU_ASSERT_FATAL(cd_file_split(cases[i].path, &whole, &parent, &base));
        CU_ASSERT_STRING_EQUAL(whole, cases[i].whole);
        CU_ASSERT_STRING_EQUAL(parent, cases[i].parent);
        CU_ASSERT_STRING_EQUAL(base, cases[i].base);
        free(whole);
        free(parent);
        free(base);
    }
    char *j = cd_file_join("dir", "name");
    CU_ASSERT_STRING_EQUAL(j, "dir/name");
    free(j);
}

/* The walk to an output's directory: components made when missing, a link of this user's
 * followed (relative and absolute), "." and ".." taken as they come, a file on the way refused,
 * and, as root, a link of another user's refused before anything is made behind it. */
static void test_file_open_dir_walk(void)
{
    char *dir = cd_test_mkdtemp();
    char path[4500], real[4400], abs_link[4400];
    struct cd_error err;
    struct stat a, b;
    snprintf(real, sizeof real, "%s/real", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(real, 0755), 0);
    snprintf(path, sizeof path, "%s/rel", dir);
    CU_ASSERT_EQUAL_FATAL(symlink("real", path), 0);
    snprintf(abs_link, sizeof abs_link, "%s/abs", dir);
    CU_ASSERT_EQUAL_FATAL(symlink(real, abs_link), 0);
    /* through a relative link of ours, the rest made */
    snprintf(path, sizeof path, "%s/rel/a/./b/../c", dir);
    int fd = cd_file_open_dir_walk(path, true, &err);
    CU_ASSERT_FATAL(fd >= 0);
    snprintf(path, sizeof path, "%s/a/c", real);
    CU_ASSERT(fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino);
    close(fd);
    /* through an absolute one; without create a missing component fails */
    snprintf(path, sizeof path, "%s/abs/a/c", dir);
    fd = cd_file_open_dir_walk(path, false, &err);
    CU_ASSERT(fd >= 0 && fstat(fd, &a) == 0 && a.st_ino == b.st_ino);
    if (fd >= 0)
        close(fd);
    snprintf(path, sizeof path, "%s/abs/none", dir);
    CU_ASSERT_EQUAL(cd_file_open_dir_walk(path, false, &err), -1);
    /* a file on the way */
    snprintf(path, sizeof path, "%s/file", dir);
    cd_test_write_text(path, "x");
    snprintf(path, sizeof path, "%s/file/x", dir);
    CU_ASSERT_EQUAL(cd_file_open_dir_walk(path, true, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a directory"));
    /* a link of another user's (only root can make one) */
    if (geteuid() == 0) {
        snprintf(path, sizeof path, "%s/theirs", dir);
        CU_ASSERT_EQUAL_FATAL(symlink(real, path), 0);
        CU_ASSERT_EQUAL_FATAL(lchown(path, 65534, 65534), 0);
        snprintf(path, sizeof path, "%s/theirs/new", dir);
        CU_ASSERT_EQUAL(cd_file_open_dir_walk(path, true, &err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "another user's"));
        snprintf(path, sizeof path, "%s/new", real);
        CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0); /* nothing made behind it */
    }
    cd_test_rmdir(dir);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_file_open_dir_walk", test_file_open_dir_walk},
        {"test_file_write_replaces_whole_and_leaves_no_temp",
         test_file_write_replaces_whole_and_leaves_no_temp},
        {"test_file_write_fails_cleanly_without_parent",
         test_file_write_fails_cleanly_without_parent},
        {"test_file_stage_is_invisible_until_commit", test_file_stage_is_invisible_until_commit},
        {"test_file_mode_follows_umask", test_file_mode_follows_umask},
        {"test_file_temp_commit_over_existing", test_file_temp_commit_over_existing},
        {"test_file_split_and_join", test_file_split_and_join},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("file", tests);
}
