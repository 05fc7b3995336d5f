/* Unit tests for the ingest module: directories, plain files and archives of every common format
 * (written here with libarchive's writer), damaged archives, size limits, stdin, and the names
 * inputs carry. Each test works in its own temporary directory, entered with chdir so that
 * operands and provenance names are short relative paths, as a user would type them. */
#include "ingest/cd_ingest.h"
#include "harness.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T_MAX 1024

/* What one ingest run returned, in order. */
struct t_run {
    size_t n, nw;
    char *names[T_MAX];
    uint8_t *data[T_MAX];
    size_t sizes[T_MAX];
    size_t operands[T_MAX];
    char *warns[T_MAX];
    size_t warn_after[T_MAX]; /* how many inputs came before each warning */
    struct cd_ingest_stats st;
    enum cd_status last;
};

struct t_ent {
    const char *name;
    const void *data;
    size_t size;
    const char *link; /* a symlink entry to this target when non-NULL */
};

/* ---- helpers ---------------------------------------------------------------------------- */

static char *t_dir;
static int t_cwd = -1;

static void t_enter(void)
{
    t_dir = cd_test_mkdtemp();
    CU_ASSERT_FATAL(t_dir != NULL);
    t_cwd = open(".", O_RDONLY | O_DIRECTORY);
    CU_ASSERT_FATAL(t_cwd >= 0);
    CU_ASSERT_FATAL(chdir(t_dir) == 0);
}

static void t_leave(void)
{
    CU_ASSERT(fchdir(t_cwd) == 0);
    close(t_cwd);
    t_cwd = -1;
    cd_test_rmdir(t_dir);
    t_dir = NULL;
}

static void t_write(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(fwrite(data, 1, len, f) == len);
    CU_ASSERT(fclose(f) == 0);
}

static void t_puts(const char *path, const char *text)
{
    t_write(path, text, strlen(text));
}

static uint8_t *t_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CU_ASSERT_FATAL(f != NULL);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)sz + 1);
    CU_ASSERT_FATAL(buf != NULL);
    CU_ASSERT(fread(buf, 1, (size_t)sz, f) == (size_t)sz);
    fclose(f);
    *len = (size_t)sz;
    return buf;
}

/* Deterministic incompressible bytes. */
static void t_random(uint8_t *p, size_t len, uint64_t seed)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15u + 1;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)(x >> 24);
    }
}

/* Writes an archive with libarchive: format and filter by libarchive's names (filter may be
 * NULL, or stacked as "zstd+zstd": the first named is applied last). */
static void t_archive(const char *path, const char *format, const char *filter,
                      const struct t_ent *ents, size_t n)
{
    struct archive *a = archive_write_new();
    CU_ASSERT_FATAL(a != NULL);
    CU_ASSERT_FATAL(archive_write_set_format_by_name(a, format) == ARCHIVE_OK);
    for (const char *f = filter; f && *f;) {
        char name[32];
        size_t len = strcspn(f, "+");
        snprintf(name, sizeof name, "%.*s", (int)len, f);
        CU_ASSERT_FATAL(archive_write_add_filter_by_name(a, name) == ARCHIVE_OK);
        f += len + (f[len] == '+');
    }
    CU_ASSERT_FATAL(archive_write_open_filename(a, path) == ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, ents[i].name);
        archive_entry_set_mtime(e, 1700000000, 0);
        if (ents[i].link) {
            archive_entry_set_filetype(e, AE_IFLNK);
            archive_entry_set_perm(e, 0777);
            archive_entry_set_symlink(e, ents[i].link);
        } else {
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_perm(e, 0644);
            archive_entry_set_size(e, (la_int64_t)ents[i].size);
        }
        CU_ASSERT_FATAL(archive_write_header(a, e) == ARCHIVE_OK);
        if (!ents[i].link && ents[i].size)
            CU_ASSERT(archive_write_data(a, ents[i].data, ents[i].size) ==
                      (la_ssize_t)ents[i].size);
        archive_entry_free(e);
    }
    CU_ASSERT(archive_write_close(a) == ARCHIVE_OK);
    archive_write_free(a);
}

static struct t_run *t_ingest(const struct cd_ingest_opts *opts)
{
    struct t_run *r = calloc(1, sizeof *r);
    CU_ASSERT_FATAL(r != NULL);
    struct cd_ingest *ing = NULL;
    struct cd_error err = {0};
    CU_ASSERT_FATAL(cd_ingest_new(&ing, opts, &err) == CD_OK);
    for (;;) {
        struct cd_input in;
        enum cd_status st = cd_ingest_next(ing, &in, &err);
        r->last = st;
        if (st == CD_OK) {
            CU_ASSERT_FATAL(r->n < T_MAX);
            CU_ASSERT(in.data != NULL);
            r->names[r->n] = strdup(in.name);
            r->data[r->n] = malloc(in.size + 1);
            memcpy(r->data[r->n], in.data, in.size);
            r->sizes[r->n] = in.size;
            r->operands[r->n] = in.operand;
            r->n++;
        } else if (st == CD_WARN) {
            CU_ASSERT_FATAL(r->nw < T_MAX);
            r->warns[r->nw] = strdup(err.msg);
            r->warn_after[r->nw] = r->n;
            r->nw++;
        } else {
            break;
        }
    }
    CU_ASSERT_EQUAL(r->last, CD_DONE);
    /* DONE stays DONE. */
    struct cd_input in;
    CU_ASSERT_EQUAL(cd_ingest_next(ing, &in, &err), CD_DONE);
    r->st = *cd_ingest_stats(ing);
    cd_ingest_free(ing);
    return r;
}

static struct t_run *t_ingest_ops(const char *const *ops, size_t n)
{
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = n};
    return t_ingest(&opts);
}

static void t_free(struct t_run *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->names[i]);
        free(r->data[i]);
    }
    for (size_t i = 0; i < r->nw; i++)
        free(r->warns[i]);
    free(r);
}

/* Index of the input named name, or -1. */
static long t_find(const struct t_run *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->names[i], name) == 0)
            return (long)i;
    return -1;
}

static bool t_has(const struct t_run *r, const char *name, const void *data, size_t size)
{
    long i = t_find(r, name);
    return i >= 0 && r->sizes[i] == size && (size == 0 || memcmp(r->data[i], data, size) == 0);
}

static bool t_warned(const struct t_run *r, const char *part)
{
    for (size_t i = 0; i < r->nw; i++)
        if (strstr(r->warns[i], part))
            return true;
    return false;
}

static const uint8_t bin[] = {0, 1, 2, 0xff, 0, 'x', '\n', 0x7f};

static const struct t_ent basic_ents[] = {
    {"dir/a.xml", "<a/>", 4, NULL},
    {"dir/b.bin", bin, sizeof bin, NULL},
    {"empty", "", 0, NULL},
};

/* ---- tests ------------------------------------------------------------------------------ */

static void test_ingest_skip_names(void)
{
    CU_ASSERT_STRING_EQUAL(cd_ingest_skip_name(CD_SKIP_TOO_LARGE), "too large");
    CU_ASSERT_STRING_EQUAL(cd_ingest_skip_name(CD_SKIP_UNREADABLE), "unreadable");
    CU_ASSERT_STRING_EQUAL(cd_ingest_skip_name(CD_SKIP_BAD_ARCHIVE), "bad archive");
    CU_ASSERT_STRING_EQUAL(cd_ingest_skip_name(CD_SKIP_EMPTY), "empty");
    CU_ASSERT_STRING_EQUAL(cd_ingest_skip_name(CD_SKIP_NOT_REGULAR), "not regular");
    CU_ASSERT_STRING_EQUAL(cd_ingest_skip_name(CD_SKIP_COUNT), "unknown");
    cd_ingest_free(NULL);
}

static void test_ingest_empty_operands_and_empty_dir(void)
{
    t_enter();
    struct t_run *r = t_ingest_ops(NULL, 0);
    CU_ASSERT_EQUAL(r->n, 0);
    CU_ASSERT_EQUAL(r->nw, 0);
    CU_ASSERT_EQUAL(r->st.inputs, 0);
    t_free(r);

    CU_ASSERT_FATAL(mkdir("void", 0755) == 0);
    CU_ASSERT_FATAL(mkdir("void/deeper", 0755) == 0);
    const char *ops[] = {"void"};
    r = t_ingest_ops(ops, 1);
    CU_ASSERT_EQUAL(r->n, 0);
    CU_ASSERT_EQUAL(r->nw, 0);
    t_free(r);
    t_leave();
}

static void test_ingest_directory_sorted_recursive_no_symlinks(void)
{
    t_enter();
    /* Created in an order unlike the expected one. */
    CU_ASSERT_FATAL(mkdir("crawl", 0755) == 0);
    t_puts("crawl/b", "b");
    CU_ASSERT_FATAL(mkdir("crawl/a", 0755) == 0);
    t_puts("crawl/a/z", "az");
    t_puts("crawl/a/y", "ay");
    t_puts("crawl/a.txt", "a.txt");
    t_puts("crawl/C", "C");
    t_puts("crawl/\xc3\xa9t\xc3\xa9", "utf8");
    t_puts("crawl/tab\tname", "tab");
    CU_ASSERT_FATAL(mkdir("outside", 0755) == 0);
    t_puts("outside/secret", "secret");
    CU_ASSERT_FATAL(symlink("../outside/secret", "crawl/link-file") == 0);
    CU_ASSERT_FATAL(symlink("../outside", "crawl/link-dir") == 0);
    CU_ASSERT_FATAL(symlink("a/y", "crawl/link-inside") == 0);
    CU_ASSERT_FATAL(mkfifo("crawl/fifo", 0644) == 0);

    const char *ops[] = {"crawl"};
    struct t_run *r = t_ingest_ops(ops, 1);
    const char *want[] = {"crawl/C", "crawl/a/y", "crawl/a/z", "crawl/a.txt", "crawl/b",
                          "crawl/tab\\x09name", "crawl/\xc3\xa9t\xc3\xa9"};
    CU_ASSERT_EQUAL_FATAL(r->n, 7);
    for (size_t i = 0; i < 7; i++) {
        CU_ASSERT_STRING_EQUAL(r->names[i], want[i]);
        CU_ASSERT_EQUAL(r->operands[i], 0);
    }
    CU_ASSERT(t_has(r, "crawl/a/z", "az", 2));
    CU_ASSERT_EQUAL(t_find(r, "crawl/link-file/secret"), -1);
    CU_ASSERT_EQUAL(r->nw, 0);
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_NOT_REGULAR], 4); /* three symlinks and a fifo */
    CU_ASSERT_EQUAL(r->st.inputs, 7);
    CU_ASSERT_EQUAL(r->st.bytes, 1 + 2 + 2 + 5 + 1 + 3 + 4);

    /* The same again, and with a trailing slash: the same order, no doubled separator. */
    const char *ops2[] = {"crawl/"};
    struct t_run *r2 = t_ingest_ops(ops2, 1);
    CU_ASSERT_EQUAL_FATAL(r2->n, r->n);
    for (size_t i = 0; i < r->n; i++)
        CU_ASSERT_STRING_EQUAL(r2->names[i], r->names[i]);
    t_free(r2);
    t_free(r);
    t_leave();
}

/* Runs the unreadable-entry scenario; returns a bit mask of the checks that failed (0 = all
 * passed), so that it can run in a child process without privileges. */
static int unreadable_checks(void)
{
    const char *ops[] = {"tree", "tree/locked.bin"};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 2};
    struct cd_ingest *ing = NULL;
    struct cd_error err = {0};
    if (cd_ingest_new(&ing, &opts, &err) != CD_OK)
        return 1;
    int fail = 0, ok = 0, warn = 0;
    bool saw_file = false, saw_dir = false, saw_op = false;
    for (;;) {
        struct cd_input in;
        enum cd_status st = cd_ingest_next(ing, &in, &err);
        if (st == CD_DONE)
            break;
        if (st == CD_OK) {
            ok++;
        } else if (st == CD_WARN) {
            warn++;
            saw_file |= strcmp(err.msg, "cannot read 'tree/locked.bin': Permission denied") == 0;
            saw_dir |= strcmp(err.msg, "cannot read 'tree/locked-dir': Permission denied") == 0;
            saw_op |= strcmp(err.msg, "cannot open 'tree/locked.bin': Permission denied") == 0;
        } else {
            fail |= 2;
            break;
        }
    }
    if (ok != 2) /* tree/a and tree/z */
        fail |= 4;
    if (warn != 3 || !saw_file || !saw_dir || !saw_op)
        fail |= 8;
    if (cd_ingest_stats(ing)->skipped[CD_SKIP_UNREADABLE] != 3)
        fail |= 16;
    cd_ingest_free(ing);
    return fail;
}

static void test_ingest_unreadable_entries_warn_and_go_on(void)
{
    t_enter();
    CU_ASSERT_FATAL(mkdir("tree", 0755) == 0);
    t_puts("tree/a", "a");
    t_puts("tree/locked.bin", "x");
    t_puts("tree/z", "z");
    CU_ASSERT_FATAL(mkdir("tree/locked-dir", 0755) == 0);
    t_puts("tree/locked-dir/inner", "inner");
    CU_ASSERT_FATAL(chmod("tree/locked.bin", 0) == 0);
    CU_ASSERT_FATAL(chmod("tree/locked-dir", 0) == 0);
    if (geteuid() != 0) {
        CU_ASSERT_EQUAL(unreadable_checks(), 0);
    } else {
        /* Root reads through mode 000: run the scenario as an unprivileged user instead. */
        CU_ASSERT_FATAL(chmod(".", 0755) == 0);
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(100);
            _exit(unreadable_checks());
        }
        int status = 0;
        CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
        CU_ASSERT(WIFEXITED(status));
        if (WIFEXITED(status) && WEXITSTATUS(status) == 100)
            fprintf(stderr, "(root cannot drop privileges here: unreadable files not checked) ");
        else
            CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
    }
    chmod("tree/locked-dir", 0755);
    t_leave();
}

static void test_ingest_nonexistent_operand_warns_and_goes_on(void)
{
    t_enter();
    t_puts("real", "data");
    const char *ops[] = {"nope", "real", "gone/also"};
    struct t_run *r = t_ingest_ops(ops, 3);
    CU_ASSERT_EQUAL_FATAL(r->n, 1);
    CU_ASSERT(t_has(r, "real", "data", 4));
    CU_ASSERT_EQUAL(r->operands[0], 1);
    CU_ASSERT_EQUAL_FATAL(r->nw, 2);
    CU_ASSERT_STRING_EQUAL(r->warns[0], "cannot open 'nope': No such file or directory");
    CU_ASSERT_STRING_EQUAL(r->warns[1], "cannot open 'gone/also': No such file or directory");
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_UNREADABLE], 2);
    t_free(r);
    t_leave();
}

/* A FIFO operand nobody writes to is given up after the idle limit, with a warning naming it,
 * and the run goes on; one a writer fills is one input; the stop flag ends the wait at once. */
static void test_ingest_fifo_operand_never_hangs(void)
{
    t_enter();
    t_puts("real", "data");
    CU_ASSERT_FATAL(mkfifo("idle", 0600) == 0);
    const char *ops[] = {"idle", "real"};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 2, .stream_idle_ms = 300};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct t_run *r = t_ingest(&opts);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CU_ASSERT(t1.tv_sec - t0.tv_sec < 5);
    CU_ASSERT_EQUAL(r->n, 1);
    CU_ASSERT(t_has(r, "real", "data", 4));
    CU_ASSERT(t_warned(r, "skipping 'idle': nothing written to it"));
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_UNREADABLE], 1);
    t_free(r);

    volatile sig_atomic_t stop = 1;
    opts.stream_idle_ms = 60000;
    opts.stop = &stop;
    r = t_ingest(&opts);
    CU_ASSERT(t_warned(r, "stopped reading 'idle'"));
    t_free(r);

    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int fd = open("idle", O_WRONLY);
        _exit(fd >= 0 && write(fd, "fifo!", 5) == 5 ? 0 : 1);
    }
    opts.stop = NULL;
    r = t_ingest(&opts);
    int status = 0;
    waitpid(pid, &status, 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_EQUAL(r->n, 2);
    CU_ASSERT(t_has(r, "idle", "fifo!", 5));
    t_free(r);
    t_leave();
}

static void check_archive(const char *file, const char *format, const char *filter,
                          const struct t_ent *ents)
{
    t_archive(file, format, filter, ents, 3);
    const char *ops[] = {file};
    struct t_run *r = t_ingest_ops(ops, 1);
    char name[256];
    CU_ASSERT_EQUAL(r->n, 3);
    CU_ASSERT_EQUAL(r->nw, 0);
    for (size_t i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s:%s", file, ents[i].name);
        CU_ASSERT(t_has(r, name, ents[i].data, ents[i].size));
    }
    CU_ASSERT_EQUAL(r->st.archives, 1);
    CU_ASSERT_EQUAL(r->st.empty, 1);
    t_free(r);
}

static void check_basic_archive(const char *file, const char *format, const char *filter)
{
    check_archive(file, format, filter, basic_ents);
}

static void test_ingest_archive_formats(void)
{
    t_enter();
    check_basic_archive("in.tar", "pax", NULL);
    check_basic_archive("in.ustar.tar", "ustar", NULL);
    check_basic_archive("in.tar.zst", "pax", "zstd");
    check_basic_archive("in.tar.gz", "gnutar", "gzip");
    check_basic_archive("in.tar.xz", "pax", "xz");
    check_basic_archive("in.tar.bz2", "pax", "bzip2");
    check_basic_archive("in.zip", "zip", NULL);
    check_basic_archive("in.7z", "7zip", NULL);
    check_basic_archive("in.cpio", "newc", NULL);
    check_basic_archive("in.odc.cpio.gz", "odc", "gzip");
    /* ar keeps base names only, and its deterministic headers carry no file type. */
    const struct t_ent flat[] = {{"a.xml", "<a/>", 4, NULL}, {"b.bin", bin, sizeof bin, NULL},
                                 {"empty", "", 0, NULL}};
    check_archive("in.a", "ar", NULL, flat);
    t_leave();
}

static void test_ingest_archive_order_is_stream_order_and_operands_in_order(void)
{
    t_enter();
    const struct t_ent ents[] = {
        {"z", "1", 1, NULL}, {"a", "2", 1, NULL}, {"m/k", "3", 1, NULL},
        {"lnk", NULL, 0, "z"},
    };
    t_archive("one.tar.zst", "pax", "zstd", ents, 4);
    t_puts("plain", "p");
    const char *ops[] = {"plain", "one.tar.zst", "plain"};
    struct t_run *r = t_ingest_ops(ops, 3);
    const char *want[] = {"plain", "one.tar.zst:z", "one.tar.zst:a", "one.tar.zst:m/k", "plain"};
    const size_t want_op[] = {0, 1, 1, 1, 2};
    CU_ASSERT_EQUAL_FATAL(r->n, 5);
    for (size_t i = 0; i < 5; i++) {
        CU_ASSERT_STRING_EQUAL(r->names[i], want[i]);
        CU_ASSERT_EQUAL(r->operands[i], want_op[i]);
    }
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_NOT_REGULAR], 1); /* the symlink entry */
    t_free(r);
    t_leave();
}

static void test_ingest_truncated_tar_zst_keeps_good_entries(void)
{
    t_enter();
    enum { N = 40, SZ = 16384 };
    static uint8_t blobs[N][SZ];
    struct t_ent ents[N];
    char names[N][32];
    for (size_t i = 0; i < N; i++) {
        t_random(blobs[i], SZ, i + 1);
        snprintf(names[i], sizeof names[i], "dir/f%02zu", i);
        ents[i] = (struct t_ent){names[i], blobs[i], SZ, NULL};
    }
    t_archive("full.tar.zst", "pax", "zstd", ents, N);
    size_t len = 0;
    uint8_t *all = t_slurp("full.tar.zst", &len);
    t_write("cut.tar.zst", all, len / 2);
    free(all);
    t_puts("after", "after");

    const char *ops[] = {"cut.tar.zst", "after"};
    struct t_run *r = t_ingest_ops(ops, 2);
    CU_ASSERT(r->n >= 2 && r->n < N);
    CU_ASSERT_EQUAL_FATAL(r->nw, 1);
    /* The good entries come first, in order and intact; then one warning; then the next operand. */
    for (size_t i = 0; i + 1 < r->n; i++) {
        char name[64];
        snprintf(name, sizeof name, "cut.tar.zst:%.31s", names[i]);
        CU_ASSERT_STRING_EQUAL(r->names[i], name);
        CU_ASSERT(r->sizes[i] == SZ && memcmp(r->data[i], blobs[i], SZ) == 0);
    }
    CU_ASSERT_EQUAL(r->warn_after[0], r->n - 1);
    CU_ASSERT(strstr(r->warns[0], "'cut.tar.zst") != NULL);
    CU_ASSERT(strstr(r->warns[0], "dir/f") != NULL); /* names the entry */
    CU_ASSERT_STRING_EQUAL(r->names[r->n - 1], "after");
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_BAD_ARCHIVE], 1);
    size_t good = r->n - 1;
    t_free(r);

    /* The same stream on stdin: the same good entries, then one warning. */
    int saved = dup(STDIN_FILENO);
    int fd = open("cut.tar.zst", O_RDONLY);
    CU_ASSERT_FATAL(saved >= 0 && fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO);
    close(fd);
    const char *ops2[] = {"-"};
    r = t_ingest_ops(ops2, 1);
    CU_ASSERT_EQUAL(r->n, good);
    for (size_t i = 0; i < r->n; i++)
        CU_ASSERT(r->sizes[i] == SZ && memcmp(r->data[i], blobs[i], SZ) == 0);
    CU_ASSERT_EQUAL(r->nw, 1);
    CU_ASSERT(t_warned(r, "'-:dir/f"));
    t_free(r);
    CU_ASSERT(dup2(saved, STDIN_FILENO) == STDIN_FILENO);
    close(saved);
    t_leave();
}

static void test_ingest_corrupt_zip_warns_and_goes_on(void)
{
    t_enter();
    enum { SZ = 4096 };
    static uint8_t blob[3][SZ];
    for (size_t i = 0; i < 3; i++)
        t_random(blob[i], SZ, 100 + i);
    const struct t_ent ents[] = {
        {"first", blob[0], SZ, NULL}, {"second", blob[1], SZ, NULL}, {"third", blob[2], SZ, NULL},
    };
    t_archive("in.zip", "zip", NULL, ents, 3);
    size_t len = 0;
    uint8_t *z = t_slurp("in.zip", &len);
    /* Flip bytes inside the second entry's data: its CRC no longer matches. */
    for (size_t i = 0; i + 6 < len; i++) {
        if (memcmp(z + i, "second", 6) == 0) {
            for (size_t k = 200; k < 264; k++)
                z[i + k] ^= 0x5a;
            break;
        }
    }
    t_write("bad.zip", z, len);
    /* And a zip cut short inside the first entry. */
    t_write("short.zip", z, 1500);
    free(z);
    t_puts("after", "after");

    const char *ops[] = {"bad.zip", "short.zip", "after"};
    struct t_run *r = t_ingest_ops(ops, 3);
    CU_ASSERT(t_has(r, "bad.zip:first", blob[0], SZ));
    CU_ASSERT_EQUAL(t_find(r, "bad.zip:second"), -1); /* damaged data is never returned */
    CU_ASSERT(t_has(r, "after", "after", 5));
    CU_ASSERT_EQUAL(t_find(r, "short.zip:first"), -1);
    CU_ASSERT(t_warned(r, "'bad.zip:second'"));
    CU_ASSERT(t_warned(r, "short.zip"));
    CU_ASSERT(r->st.skipped[CD_SKIP_BAD_ARCHIVE] >= 2);
    CU_ASSERT_STRING_EQUAL(r->names[r->n - 1], "after");
    t_free(r);
    t_leave();
}

static void test_ingest_size_limit_streams_and_skips(void)
{
    t_enter();
    enum { LIMIT = 1000, BOMB = 20 << 20 };
    static uint8_t big[LIMIT + 1], fit[LIMIT];
    t_random(big, sizeof big, 7);
    t_random(fit, sizeof fit, 8);
    uint8_t *zeros = calloc(1, BOMB);
    CU_ASSERT_FATAL(zeros != NULL);
    const struct t_ent ents[] = {
        {"big", big, sizeof big, NULL},
        {"bomb", zeros, BOMB, NULL}, /* 20 MiB of zeros: a few KiB compressed */
        {"fit", fit, sizeof fit, NULL},
    };
    t_archive("in.zip", "zip", NULL, ents, 3);
    t_archive("in.tar.gz", "pax", "gzip", ents, 3);
    free(zeros);
    CU_ASSERT_FATAL(mkdir("d", 0755) == 0);
    t_write("d/big", big, sizeof big);
    t_write("d/fit", fit, sizeof fit);

    const char *ops[] = {"in.zip", "in.tar.gz", "d", "d/big"};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 4, .max_input_size = LIMIT};
    struct t_run *r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 3);
    CU_ASSERT(t_has(r, "in.zip:fit", fit, sizeof fit));
    CU_ASSERT(t_has(r, "in.tar.gz:fit", fit, sizeof fit));
    CU_ASSERT(t_has(r, "d/fit", fit, sizeof fit));
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_TOO_LARGE], 6);
    CU_ASSERT_EQUAL(r->nw, 6);
    CU_ASSERT(t_warned(r, "skipping 'in.tar.gz:bomb' (20971520 bytes): "
                          "larger than the 1000-byte limit"));
    CU_ASSERT(t_warned(r, "skipping 'd/big' (1001 bytes): larger than the 1000-byte limit"));
    CU_ASSERT(t_warned(r, "'in.zip:big'"));
    t_free(r);
    t_leave();
}

/* A decompression bomb under stacked filters (.tar.zst.zst, a few hundred bytes holding a 64 MiB
 * entry) is given up at the inflation bound, after the entries before it; under the default
 * bound the same archive is read whole, the large entry skipped. */
static void test_ingest_decompression_bomb_is_bounded(void)
{
    t_enter();
    enum { BOMB = 64 << 20 };
    uint8_t *zeros = calloc(1, BOMB);
    CU_ASSERT_FATAL(zeros != NULL);
    const struct t_ent ents[] = {
        {"before", "b4", 2, NULL},
        {"bomb", zeros, BOMB, NULL},
        {"after", "af", 2, NULL},
    };
    t_archive("bomb.tar.zst.zst", "pax", "zstd+zstd", ents, 3);
    free(zeros);
    struct stat sb;
    CU_ASSERT_FATAL(stat("bomb.tar.zst.zst", &sb) == 0);
    CU_ASSERT(sb.st_size < 64 << 10);

    const char *ops[] = {"bomb.tar.zst.zst"};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 1, .inflate_floor = 1 << 20};
    struct t_run *r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 1);
    CU_ASSERT(t_has(r, "bomb.tar.zst.zst:before", "b4", 2));
    CU_ASSERT(t_warned(r, "a decompression bomb"));
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_BAD_ARCHIVE], 1);
    t_free(r);

    opts.inflate_floor = 0;
    r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 2);
    CU_ASSERT(t_has(r, "bomb.tar.zst.zst:after", "af", 2));
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_TOO_LARGE], 1);
    t_free(r);
    t_leave();
}

/* An archive on stdin that nobody writes to is given up after the idle limit, or at once when
 * the stop flag is set, with a warning naming "-". */
static void test_ingest_stdin_nobody_writes(void)
{
    t_enter();
    int p[2];
    CU_ASSERT_FATAL(pipe(p) == 0);
    int saved = dup(0);
    CU_ASSERT_FATAL(saved >= 0 && dup2(p[0], 0) == 0);
    const char *ops[] = {"-"};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 1, .stream_idle_ms = 300};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct t_run *r = t_ingest(&opts);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CU_ASSERT(t1.tv_sec - t0.tv_sec < 20);
    CU_ASSERT_EQUAL(r->n, 0);
    CU_ASSERT(t_warned(r, "'-'"));
    CU_ASSERT(t_warned(r, "nothing written to it"));
    t_free(r);

    volatile sig_atomic_t stop = 1;
    opts.stream_idle_ms = 600000;
    opts.stop = &stop;
    r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 0);
    CU_ASSERT(t_warned(r, "stopped reading"));
    t_free(r);
    dup2(saved, 0);
    close(saved);
    close(p[0]);
    close(p[1]);
    t_leave();
}

/* An afl-fuzz output directory (two instances, as -M/-S lay them out) yields the test cases of
 * queue/, crashes/ and hangs/ and nothing of afl-fuzz's state; a directory that merely holds a
 * "queue" directory is walked whole. */
static void test_ingest_afl_fuzz_output_dirs(void)
{
    t_enter();
    static const char *const dirs[] = {
        "findings", "findings/main", "findings/main/queue", "findings/main/queue/.state",
        "findings/main/queue/.state/auto_extras", "findings/main/crashes", "findings/main/hangs",
        "findings/main/.synced", "findings/s1", "findings/s1/queue", "plain", "plain/queue",
    };
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        CU_ASSERT_FATAL(mkdir(dirs[i], 0755) == 0);
    static const char *const meta[] = {
        "findings/main/fuzzer_stats", "findings/main/cmdline", "findings/main/plot_data",
        "findings/main/.cur_input", "findings/main/fuzz_bitmap",
        "findings/main/queue/.state/auto_extras/auto_0000", "findings/main/crashes/README.txt",
        "findings/main/.synced/s1", "findings/s1/fuzzer_setup", "findings/s1/queue/notes",
    };
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++)
        t_puts(meta[i], "afl-fuzz state");
    t_puts("findings/main/queue/id:000000,time:0,execs:0,orig:a", "q0");
    t_puts("findings/main/queue/id:000001,src:000000,time:10,execs:5,op:havoc,+cov", "q1");
    t_puts("findings/main/crashes/id:000000,sig:11,src:000001,time:20,execs:9,op:havoc", "c0");
    t_puts("findings/main/hangs/id_000000", "h0");
    t_puts("findings/s1/queue/id:000000,time:0,execs:0,orig:b", "s0");
    t_puts("plain/readme", "p0");
    t_puts("plain/queue/notes", "p1");
    const char *ops[] = {"findings", "plain"};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 2};
    struct t_run *r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 7);
    CU_ASSERT(t_has(r, "findings/main/queue/id:000000,time:0,execs:0,orig:a", "q0", 2));
    CU_ASSERT(t_has(r, "findings/main/crashes/id:000000,sig:11,src:000001,time:20,execs:9,"
                       "op:havoc", "c0", 2));
    CU_ASSERT(t_has(r, "findings/main/hangs/id_000000", "h0", 2));
    CU_ASSERT(t_has(r, "findings/s1/queue/id:000000,time:0,execs:0,orig:b", "s0", 2));
    CU_ASSERT(t_has(r, "plain/readme", "p0", 2));
    CU_ASSERT(t_has(r, "plain/queue/notes", "p1", 2));
    CU_ASSERT_EQUAL(r->nw, 0);
    for (int k = 0; k < CD_SKIP_COUNT; k++)
        CU_ASSERT_EQUAL(r->st.skipped[k], 0); /* state is no input: not even skipped */
    t_free(r);

    const char *one[] = {"findings/main"}; /* an instance named directly */
    opts.operands = one;
    opts.n_operands = 1;
    r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 4);
    t_free(r);
    t_leave();
}

/* A tar entry whose header claims 8 GiB while the file holds a few bytes: no huge allocation,
 * a warning, and the next operand is read. */
static void test_ingest_lying_header_size(void)
{
    t_enter();
    const struct t_ent ents[] = {{"liar", "tiny", 4, NULL}};
    t_archive("liar.tar", "ustar", NULL, ents, 1);
    size_t len = 0;
    uint8_t *t = t_slurp("liar.tar", &len);
    CU_ASSERT_FATAL(len >= 1024);
    memcpy(t + 124, "77777777777", 11); /* size field, octal */
    memset(t + 148, ' ', 8);            /* recompute the header checksum */
    unsigned sum = 0;
    for (size_t i = 0; i < 512; i++)
        sum += t[i];
    snprintf((char *)t + 148, 8, "%06o", sum);
    t[155] = ' ';
    t_write("liar.tar", t, len);
    free(t);
    t_puts("after", "x");
    const char *ops[] = {"liar.tar", "after"};
    /* The data ends long before the claimed size: one bad entry. */
    struct t_run *r = t_ingest_ops(ops, 2);
    CU_ASSERT_EQUAL(r->n, 1);
    CU_ASSERT(t_has(r, "after", "x", 1));
    CU_ASSERT_EQUAL(r->nw, 1);
    CU_ASSERT(t_warned(r, "bad entry 'liar.tar:liar'"));
    t_free(r);
    /* With a small limit the read stops at the limit and the claimed size is reported; skipping
     * to the claimed end then finds the damage. */
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 2, .max_input_size = 100};
    r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 1);
    CU_ASSERT(t_has(r, "after", "x", 1));
    CU_ASSERT_EQUAL(r->nw, 2);
    CU_ASSERT(t_warned(r, "skipping 'liar.tar:liar' (8589934591 bytes): "
                          "larger than the 100-byte limit"));
    CU_ASSERT(t_warned(r, "bad archive 'liar.tar' after entry 'liar'"));
    t_free(r);
    t_leave();
}

static void test_ingest_odd_names_are_labels_only(void)
{
    t_enter();
    CU_ASSERT_FATAL(mkdir("work", 0755) == 0);
    CU_ASSERT_FATAL(chdir("work") == 0);
    const struct t_ent ents[] = {
        {"../escape", "e", 1, NULL},
        {"/abs/path", "p", 1, NULL},
        {"ctl\x01\nname\x7f", "c", 1, NULL},
        {"back\\slash", "b", 1, NULL},
    };
    t_archive("in.tar", "pax", NULL, ents, 4);
    const char *ops[] = {"in.tar"};
    struct t_run *r = t_ingest_ops(ops, 1);
    CU_ASSERT_EQUAL(r->n, 4);
    CU_ASSERT(t_has(r, "in.tar:../escape", "e", 1));
    CU_ASSERT(t_has(r, "in.tar:/abs/path", "p", 1));
    CU_ASSERT(t_has(r, "in.tar:ctl\\x01\\x0aname\\x7f", "c", 1));
    CU_ASSERT(t_has(r, "in.tar:back\\\\slash", "b", 1));
    /* Nothing was written anywhere under those names. */
    CU_ASSERT(access("../escape", F_OK) != 0);
    CU_ASSERT(access("escape", F_OK) != 0);
    CU_ASSERT(access("/abs/path", F_OK) != 0);
    t_free(r);
    CU_ASSERT(chdir("..") == 0);
    t_leave();
}

static void test_ingest_stdin_archive_and_raw(void)
{
    t_enter();
    t_archive("in.tar.zst", "pax", "zstd", basic_ents, 3);
    t_puts("text", "not an archive\n");
    int saved = dup(STDIN_FILENO);
    CU_ASSERT_FATAL(saved >= 0);

    int fd = open("in.tar.zst", O_RDONLY);
    CU_ASSERT_FATAL(fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO);
    close(fd);
    const char *ops[] = {"-"};
    struct t_run *r = t_ingest_ops(ops, 1);
    CU_ASSERT_EQUAL(r->n, 3);
    CU_ASSERT(t_has(r, "-:dir/a.xml", "<a/>", 4));
    CU_ASSERT(t_has(r, "-:dir/b.bin", bin, sizeof bin));
    CU_ASSERT_EQUAL(r->st.archives, 1);
    t_free(r);

    fd = open("in.tar.zst", O_RDONLY);
    CU_ASSERT_FATAL(fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO);
    close(fd);
    size_t len = 0;
    uint8_t *whole = t_slurp("in.tar.zst", &len);
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 1, .archives_as_raw = true};
    r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 1);
    CU_ASSERT(t_has(r, "-", whole, len));
    free(whole);
    t_free(r);

    fd = open("text", O_RDONLY);
    CU_ASSERT_FATAL(fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO);
    close(fd);
    r = t_ingest_ops(ops, 1);
    CU_ASSERT_EQUAL(r->n, 0);
    CU_ASSERT_EQUAL(r->nw, 1);
    CU_ASSERT(t_warned(r, "bad archive '-'"));
    t_free(r);

    CU_ASSERT(dup2(saved, STDIN_FILENO) == STDIN_FILENO);
    close(saved);
    t_leave();
}

static void test_ingest_archives_as_raw(void)
{
    t_enter();
    t_archive("in.zip", "zip", NULL, basic_ents, 3);
    size_t len = 0;
    uint8_t *whole = t_slurp("in.zip", &len);
    const char *ops[] = {"in.zip"};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 1, .archives_as_raw = true};
    struct t_run *r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 1);
    CU_ASSERT(t_has(r, "in.zip", whole, len));
    CU_ASSERT_EQUAL(r->st.archives, 0);
    free(whole);
    t_free(r);
    t_leave();
}

static void test_ingest_nested_archives_are_inputs_as_they_are(void)
{
    t_enter();
    t_archive("inner.tar.zst", "pax", "zstd", basic_ents, 3);
    size_t len = 0;
    uint8_t *inner = t_slurp("inner.tar.zst", &len);
    const struct t_ent outer_ents[] = {{"nested/inner.tar.zst", inner, len, NULL}};
    t_archive("outer.zip", "zip", NULL, outer_ents, 1);
    CU_ASSERT_FATAL(mkdir("corpus", 0755) == 0);
    t_write("corpus/seed.tar.zst", inner, len);
    const char *ops[] = {"outer.zip", "corpus"};
    struct t_run *r = t_ingest_ops(ops, 2);
    CU_ASSERT_EQUAL(r->n, 2);
    CU_ASSERT(t_has(r, "outer.zip:nested/inner.tar.zst", inner, len));
    CU_ASSERT(t_has(r, "corpus/seed.tar.zst", inner, len));
    CU_ASSERT_EQUAL(r->st.archives, 1);
    free(inner);
    t_free(r);
    t_leave();
}

static void test_ingest_plain_compressed_and_empty_files(void)
{
    t_enter();
    t_puts("page.html", "<html></html>\n");
    t_write("empty.bin", "", 0);
    /* A gzip stream of one non-archive file: one raw input, its compressed bytes. */
    struct archive *a = archive_write_new();
    CU_ASSERT_FATAL(a != NULL);
    archive_write_set_format_raw(a);
    archive_write_add_filter_gzip(a);
    CU_ASSERT_FATAL(archive_write_open_filename(a, "page.html.gz") == ARCHIVE_OK);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, "page.html");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_size(e, 14);
    CU_ASSERT(archive_write_header(a, e) == ARCHIVE_OK);
    CU_ASSERT(archive_write_data(a, "<html></html>\n", 14) == 14);
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    size_t gzlen = 0;
    uint8_t *gz = t_slurp("page.html.gz", &gzlen);

    const char *ops[] = {"page.html", "page.html.gz", "empty.bin"};
    struct t_run *r = t_ingest_ops(ops, 3);
    CU_ASSERT_EQUAL_FATAL(r->n, 3);
    CU_ASSERT_STRING_EQUAL(r->names[0], "page.html");
    CU_ASSERT(t_has(r, "page.html.gz", gz, gzlen));
    CU_ASSERT(t_has(r, "empty.bin", "", 0));
    CU_ASSERT_EQUAL(r->st.empty, 1);
    CU_ASSERT_EQUAL(r->st.archives, 0);
    CU_ASSERT_EQUAL(r->nw, 0);
    t_free(r);

    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 3, .skip_empty = true};
    r = t_ingest(&opts);
    CU_ASSERT_EQUAL(r->n, 2);
    CU_ASSERT_EQUAL(t_find(r, "empty.bin"), -1);
    CU_ASSERT_EQUAL(r->st.skipped[CD_SKIP_EMPTY], 1);
    CU_ASSERT_EQUAL(r->st.empty, 0);
    CU_ASSERT_EQUAL(r->nw, 0);
    t_free(r);
    free(gz);
    t_leave();
}

static void test_ingest_zero_led_file_and_empty_archive_are_raw(void)
{
    t_enter();
    static uint8_t zeros[4096];
    zeros[4095] = 1;
    t_write("zeros.bin", zeros, sizeof zeros);
    t_archive("empty.zip", "zip", NULL, NULL, 0);
    size_t len = 0;
    uint8_t *ez = t_slurp("empty.zip", &len);
    const char *ops[] = {"zeros.bin", "empty.zip"};
    struct t_run *r = t_ingest_ops(ops, 2);
    CU_ASSERT_EQUAL(r->n, 2);
    CU_ASSERT(t_has(r, "zeros.bin", zeros, sizeof zeros));
    CU_ASSERT(t_has(r, "empty.zip", ez, len));
    CU_ASSERT_EQUAL(r->st.archives, 0);
    free(ez);
    t_free(r);
    t_leave();
}

/* A large compressed archive is decompressed ahead of the reader; stopping after the first input
 * must not hang or leak, and reading it all must give every entry intact. */
static void test_ingest_large_compressed_archive_and_early_free(void)
{
    t_enter();
    enum { N = 12, SZ = 512 << 10 };
    uint8_t *blobs = malloc((size_t)N * SZ);
    CU_ASSERT_FATAL(blobs != NULL);
    struct t_ent ents[N];
    char names[N][16];
    for (size_t i = 0; i < N; i++) {
        t_random(blobs + i * SZ, SZ, 1000 + i);
        snprintf(names[i], sizeof names[i], "e%02zu", i);
        ents[i] = (struct t_ent){names[i], blobs + i * SZ, SZ, NULL};
    }
    t_archive("big.tar.zst", "pax", "zstd", ents, N);
    t_archive("big.tar.gz", "gnutar", "gzip", ents, N);
    const char *ops[] = {"big.tar.zst", "big.tar.gz"};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 2};
    struct cd_ingest *ing = NULL;
    struct cd_error err = {0};
    struct cd_input in;
    CU_ASSERT_FATAL(cd_ingest_new(&ing, &opts, &err) == CD_OK);
    CU_ASSERT_EQUAL(cd_ingest_next(ing, &in, &err), CD_OK);
    CU_ASSERT_STRING_EQUAL(in.name, "big.tar.zst:e00");
    cd_ingest_free(ing);

    struct t_run *r = t_ingest(&opts);
    CU_ASSERT_EQUAL_FATAL(r->n, 2 * N);
    for (size_t i = 0; i < 2 * N; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s:%.15s", ops[i / N], names[i % N]);
        CU_ASSERT_STRING_EQUAL(r->names[i], name);
        CU_ASSERT(r->sizes[i] == SZ && memcmp(r->data[i], blobs + (i % N) * SZ, SZ) == 0);
    }
    CU_ASSERT_EQUAL(r->nw, 0);
    t_free(r);
    free(blobs);
    t_leave();
}

static void test_ingest_iso9660_image(void)
{
    t_enter();
    struct archive *a = archive_write_new();
    CU_ASSERT_FATAL(a != NULL);
    if (archive_write_set_format_iso9660(a) != ARCHIVE_OK) {
        archive_write_free(a);
        t_leave();
        return; /* this libarchive cannot write ISO images */
    }
    archive_write_free(a);
    const struct t_ent ents[] = {{"seed.txt", "iso seed", 8, NULL}};
    t_archive("in.iso", "iso9660", NULL, ents, 1);
    const char *ops[] = {"in.iso"};
    struct t_run *r = t_ingest_ops(ops, 1);
    CU_ASSERT_EQUAL(r->n, 1);
    CU_ASSERT(t_has(r, "in.iso:seed.txt", "iso seed", 8));
    CU_ASSERT_EQUAL(r->st.archives, 1);
    t_free(r);
    t_leave();
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_ingest_skip_names", test_ingest_skip_names},
        {"test_ingest_empty_operands_and_empty_dir", test_ingest_empty_operands_and_empty_dir},
        {"test_ingest_directory_sorted_recursive_no_symlinks",
         test_ingest_directory_sorted_recursive_no_symlinks},
        {"test_ingest_unreadable_entries_warn_and_go_on",
         test_ingest_unreadable_entries_warn_and_go_on},
        {"test_ingest_nonexistent_operand_warns_and_goes_on",
         test_ingest_nonexistent_operand_warns_and_goes_on},
        {"test_ingest_fifo_operand_never_hangs", test_ingest_fifo_operand_never_hangs},
        {"test_ingest_archive_formats", test_ingest_archive_formats},
        {"test_ingest_archive_order_is_stream_order_and_operands_in_order",
         test_ingest_archive_order_is_stream_order_and_operands_in_order},
        {"test_ingest_truncated_tar_zst_keeps_good_entries",
         test_ingest_truncated_tar_zst_keeps_good_entries},
        {"test_ingest_corrupt_zip_warns_and_goes_on", test_ingest_corrupt_zip_warns_and_goes_on},
        {"test_ingest_size_limit_streams_and_skips", test_ingest_size_limit_streams_and_skips},
        {"test_ingest_lying_header_size", test_ingest_lying_header_size},
        {"test_ingest_afl_fuzz_output_dirs", test_ingest_afl_fuzz_output_dirs},
        {"test_ingest_decompression_bomb_is_bounded", test_ingest_decompression_bomb_is_bounded},
        {"test_ingest_stdin_nobody_writes", test_ingest_stdin_nobody_writes},
        {"test_ingest_odd_names_are_labels_only", test_ingest_odd_names_are_labels_only},
        {"test_ingest_stdin_archive_and_raw", test_ingest_stdin_archive_and_raw},
        {"test_ingest_archives_as_raw", test_ingest_archives_as_raw},
        {"test_ingest_nested_archives_are_inputs_as_they_are",
         test_ingest_nested_archives_are_inputs_as_they_are},
        {"test_ingest_plain_compressed_and_empty_files",
         test_ingest_plain_compressed_and_empty_files},
        {"test_ingest_zero_led_file_and_empty_archive_are_raw",
         test_ingest_zero_led_file_and_empty_archive_are_raw},
        {"test_ingest_large_compressed_archive_and_early_free",
         test_ingest_large_compressed_archive_and_early_free},
        {"test_ingest_iso9660_image", test_ingest_iso9660_image},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("ingest", tests);
}
