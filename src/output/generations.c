/* Generations (cd_generations.h): an output kept as hard links in DIR.generations/NAME before a
 * run replaces it, and put back on request. Every file is reached from an open directory
 * (linkat, openat) without following a link, and only regular files are kept. */
#define _GNU_SOURCE /* renameat2 */
#include "cd_generations.h"
#include "common/cd_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX ".tmp-"

/* Copies regular file sname of sfd to dname of dfd (new, private until renamed): where the file
 * system makes no hard links. 0, or -1 with errno. */
static int copy_at(int sfd, const char *sname, int dfd, const char *dname)
{
    int in = openat(sfd, sname, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = openat(dfd, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = out < 0 ? -1 : 0;
    char buf[65536];
    ssize_t n;
    while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 || write(out, buf, (size_t)n) != n)
            rc = -1;
    }
    struct stat sb;
    if (rc == 0 && (fstat(in, &sb) != 0 || fchmod(out, sb.st_mode & 07777) != 0 || fsync(out)))
        rc = -1;
    int e = errno;
    close(in);
    if (out >= 0)
        close(out);
    if (rc != 0 && out >= 0)
        unlinkat(dfd, dname, 0);
    errno = e;
    return rc;
}

/* Makes dname of dfd the regular file sname of sfd: a hard link, else a copy. 1 done, 0 when
 * sname is missing or no regular file (nothing to keep), -1 with errno. */
static int keep_at(int sfd, const char *sname, int dfd, const char *dname)
{
    struct stat sb;
    if (fstatat(sfd, sname, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISREG(sb.st_mode))
        return 0;
    if (linkat(sfd, sname, dfd, dname, 0) == 0)
        return 1;
    if (errno != EXDEV && errno != EPERM && errno != EMLINK && errno != EOPNOTSUPP)
        return -1;
    return copy_at(sfd, sname, dfd, dname) == 0 ? 1 : -1;
}

/* Opens path's parent directory (no link followed at its last component) and points *base into
 * path at its last component. -1 with errno. */
static int open_parent(const char *path, char **whole, const char **base)
{
    char *parent, *b;
    if (!cd_file_split(path, whole, &parent, &b)) {
        errno = ENOMEM;
        return -1;
    }
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int e = errno;
    *base = *whole + strlen(*whole) - strlen(b);
    free(parent);
    free(b);
    errno = e;
    return fd;
}

/* Keeps the file at path as name in dfd (missing: nothing). 0, or -1 with errno. */
static int keep_file(const char *path, int dfd, const char *name)
{
    char *whole = NULL;
    const char *base;
    int pfd = open_parent(path, &whole, &base);
    int rc = pfd < 0 ? (errno == ENOENT ? 0 : -1) : keep_at(pfd, base, dfd, name);
    int e = errno;
    if (pfd >= 0)
        close(pfd);
    free(whole);
    errno = e;
    return rc < 0 ? -1 : 0;
}

/* Keeps every regular file of the directory sfd in the new directory name of dfd. 0, or -1. */
static int keep_files(int sfd, int dfd, const char *name)
{
    if (mkdirat(dfd, name, 0700) != 0)
        return -1;
    int tfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int dup_fd = tfd < 0 ? -1 : dup(sfd);
    DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
    int rc = d ? 0 : -1;
    if (!d && dup_fd >= 0)
        close(dup_fd);
    for (struct dirent *e; rc == 0 && d && (e = readdir(d));)
        if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")))
            rc = keep_at(sfd, e->d_name, tfd, e->d_name) < 0 ? -1 : 0;
    if (rc == 0 && fsync(tfd) != 0)
        rc = -1;
    int err = errno;
    if (d)
        closedir(d);
    if (tfd >= 0)
        close(tfd);
    errno = err;
    return rc;
}

/* Keeps the directory at path (missing: nothing) as name in dfd. 0, or -1 with errno. */
static int keep_dir(const char *path, int dfd, const char *name)
{
    int sfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0)
        return errno == ENOENT ? 0 : -1;
    int rc = keep_files(sfd, dfd, name);
    int e = errno;
    close(sfd);
    errno = e;
    return rc;
}

static int newest_first(const void *a, const void *b)
{
    return strcmp(*(char *const *)b, *(char *const *)a);
}

/* The generations in the open store sfd, newest first, and with tmp the temporary ones too. */
static enum cd_status list_at(int sfd, const char *store, bool tmp, char ***names, size_t *n,
                              struct cd_error *err)
{
    *names = NULL;
    *n = 0;
    int dfd = dup(sfd);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return cd_error_sys(err, CD_FAILED, "cannot read '%s': %s", store, strerror(errno));
    }
    size_t cap = 0;
    enum cd_status st = CD_OK;
    for (struct dirent *e; st == CD_OK && (e = readdir(d));) {
        bool hidden = e->d_name[0] == '.';
        if (hidden && !(tmp && strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0))
            continue;
        struct stat sb;
        if (fstatat(sfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sb.st_mode))
            continue;
        if (*n + 1 >= cap) {
            char **p = realloc(*names, (cap = cap ? 2 * cap : 16) * sizeof *p);
            if (!p) {
                st = cd_error_oom(err, CD_FAILED, "out of memory");
                break;
            }
            *names = p;
        }
        if (!((*names)[(*n)++] = strdup(e->d_name)))
            st = cd_error_oom(err, CD_FAILED, "out of memory");
        (*names)[*n] = NULL;
    }
    closedir(d);
    if (st == CD_OK && *n)
        qsort(*names, *n, sizeof **names, newest_first);
    return st;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Opens store, creating it (and its parents) when create is set; -1 with err set. */
static int open_store(const char *store, bool create, struct cd_error *err)
{
    if (create && cd_file_mkdir_p(store, err) != CD_OK)
        return -1;
    return cd_file_dir_at(AT_FDCWD, store, store, CD_FILE_OWN, err);
}

/* Whether generation name of sfd holds the very manifest file msb. */
static bool holds_manifest(int sfd, const char *name, const struct stat *msb)
{
    char path[300];
    struct stat sb;
    snprintf(path, sizeof path, "%s/manifest.json", name);
    return fstatat(sfd, path, &sb, AT_SYMLINK_NOFOLLOW) == 0 && sb.st_dev == msb->st_dev &&
           sb.st_ino == msb->st_ino;
}

enum cd_status cd_generations_keep(const struct cd_gen_output *o, const char *store, char **name,
                                   struct cd_error *err)
{
    struct stat msb;
    *name = NULL;
    if (!o->manifest || lstat(o->manifest, &msb) != 0 || !S_ISREG(msb.st_mode))
        return CD_OK;
    int sfd = open_store(store, true, err);
    if (sfd < 0)
        return CD_FAILED;
    char **names = NULL, tmp[64] = "";
    size_t n = 0;
    enum cd_status st = list_at(sfd, store, false, &names, &n, err);
    if (st != CD_OK || (n && holds_manifest(sfd, names[0], &msb)))
        goto out;
    int tfd = -1;
    for (unsigned k = 0; k < 100 && tfd < 0; k++) {
        snprintf(tmp, sizeof tmp, TMP_PREFIX "%08lx", (unsigned long)random());
        if (mkdirat(sfd, tmp, 0700) == 0)
            tfd = openat(sfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        else if (errno != EEXIST)
            break;
    }
    if (tfd < 0) {
        st = cd_error_sys(err, CD_FAILED, "cannot make a generation in '%s': %s", store,
                          strerror(errno));
        tmp[0] = '\0';
        goto out;
    }
    int rc = keep_file(o->manifest, tfd, "manifest.json");
    if (rc == 0 && o->state)
        rc = keep_file(o->state, tfd, "state");
    if (rc == 0 && o->seed_dir)
        rc = o->tar ? keep_file(o->seed_dir, tfd, "seeds.tar.zst")
                    : keep_dir(o->seed_dir, tfd, "seeds");
    if (rc == 0 && o->crashes_dir)
        rc = keep_dir(o->crashes_dir, tfd, "crashes");
    if (rc == 0 && fsync(tfd) != 0)
        rc = -1;
    int e = errno;
    close(tfd);
    if (rc != 0) {
        st = cd_error_sys(err, CD_FAILED, "cannot keep the output replaced in '%s': %s", store,
                          strerror(e));
        goto out;
    }
    /* Named by when it was replaced; renamed into place whole, never over another. */
    char when[32], final[64];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
    rc = -1;
    for (unsigned k = 1; k < 1000 && rc != 0; k++) {
        snprintf(final, sizeof final, k == 1 ? "%s" : "%s-%u", when, k);
        rc = renameat2(sfd, tmp, sfd, final, RENAME_NOREPLACE);
        if (rc != 0 && errno != EEXIST)
            break;
    }
    if (rc != 0) {
        st = cd_error_sys(err, CD_FAILED, "cannot keep the output replaced in '%s': %s", store,
                          strerror(errno));
        goto out;
    }
    tmp[0] = '\0';
    (void)fsync(sfd);
    if (!(*name = strdup(final)))
        st = cd_error_oom(err, CD_FAILED, "out of memory");
out:
    if (tmp[0])
        (void)cd_file_rm_tree_at(sfd, tmp);
    free_names(names, n);
    close(sfd);
    return st;
}

void cd_generations_drop(const char *store, const char *name)
{
    struct cd_error err;
    int sfd = open_store(store, false, &err);
    if (sfd < 0)
        return;
    (void)cd_file_rm_tree_at(sfd, name);
    close(sfd);
    (void)rmdir(store);
}

/* Opens store when it is there: the descriptor, -2 when it is not (no error), or -1 with err
 * set. */
static int open_existing_store(const char *store, struct cd_error *err)
{
    struct stat sb;
    if (lstat(store, &sb) != 0 && errno == ENOENT)
        return -2;
    return open_store(store, false, err);
}

enum cd_status cd_generations_prune(const char *store, unsigned keep, struct cd_error *err)
{
    int sfd = open_existing_store(store, err);
    if (sfd < 0)
        return sfd == -2 ? CD_OK : CD_FAILED;
    char **names;
    size_t n;
    enum cd_status st = list_at(sfd, store, true, &names, &n, err);
    /* Newest first, the temporary ones last ('.' sorts before digits): those all go */
    for (size_t i = 0, kept = 0; st == CD_OK && i < n; i++) {
        if (names[i][0] != '.' && kept++ < keep)
            continue;
        if (cd_file_rm_tree_at(sfd, names[i]) != 0)
            st = cd_error_sys(err, CD_FAILED, "cannot remove generation '%s/%s': %s", store,
                              names[i], strerror(errno));
    }
    free_names(names, n);
    close(sfd);
    return st;
}

enum cd_status cd_generations_list(const char *store, char ***names, size_t *n,
                                   struct cd_error *err)
{
    *names = NULL;
    *n = 0;
    int sfd = open_existing_store(store, err);
    if (sfd < 0)
        return sfd == -2 ? CD_OK : CD_FAILED;
    enum cd_status st = list_at(sfd, store, false, names, n, err);
    close(sfd);
    return st;
}

/* Links gfd's file name to a fresh hidden name beside path and renames it over path: the file
 * appears whole or not at all. 0, or -1 with errno. */
static int put_file(int gfd, const char *name, const char *path)
{
    char *whole = NULL;
    const char *base;
    int pfd = open_parent(path, &whole, &base);
    if (pfd < 0) {
        free(whole);
        return -1;
    }
    char tmp[300];
    int rc = -1;
    for (unsigned k = 0; k < 100 && rc != 0; k++) {
        snprintf(tmp, sizeof tmp, ".%.200s.tmp-%06lx", base, (unsigned long)random() & 0xffffff);
        rc = keep_at(gfd, name, pfd, tmp) == 1 ? 0 : -1;
        if (rc != 0 && errno != EEXIST)
            break;
    }
    if (rc == 0 && renameat(pfd, tmp, pfd, base) != 0) {
        int e = errno;
        unlinkat(pfd, tmp, 0);
        errno = e;
        rc = -1;
    }
    int e = errno;
    if (rc == 0)
        (void)fsync(pfd);
    close(pfd);
    free(whole);
    errno = e;
    return rc;
}

/* Swaps the generation's seeds/ (gfd) in as the seed directory path, whole. */
static enum cd_status put_seeds(int gfd, const char *path, struct cd_error *err)
{
    char *whole, *parent, *base, *aside = NULL, tmp[4400];
    if (!cd_file_split(path, &whole, &parent, &base))
        return cd_error_oom(err, CD_FAILED, "out of memory");
    enum cd_status st = cd_file_mkdir_p(parent, err);
    int sfd = -1, pfd = -1;
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp-XXXXXX", parent, base);
    if (st == CD_OK && !mkdtemp(tmp))
        st = cd_error_sys(err, CD_FAILED, "cannot stage '%s': %s", path, strerror(errno));
    else if (st == CD_OK) {
        const char *tbase = strrchr(tmp, '/') + 1;
        sfd = openat(gfd, "seeds", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        /* keep_files makes the directory: the staged one goes, its twin comes */
        if (sfd < 0 || pfd < 0 || unlinkat(pfd, tbase, AT_REMOVEDIR) != 0 ||
            keep_files(sfd, pfd, tbase) != 0)
            st = cd_error_sys(err, CD_FAILED, "cannot stage '%s': %s", path, strerror(errno));
        if (st == CD_OK)
            st = cd_file_swap_dir(tmp, whole, parent, base, &aside, err);
        if (st != CD_OK)
            (void)cd_file_rm_tree(tmp);
        else if (aside)
            (void)cd_file_rm_tree(aside);
    }
    if (sfd >= 0)
        close(sfd);
    if (pfd >= 0)
        close(pfd);
    free(aside);
    free(whole);
    free(parent);
    free(base);
    return st;
}

/* Whether name is a reproducer's, as emit names them. */
static bool reproducer_name(const char *name)
{
    return strncmp(name, "crash-", 6) == 0 || strncmp(name, "timeout-", 8) == 0;
}

/* Makes dir's reproducers the generation's (gfd's crashes/): each of its own linked back where
 * missing, each later one removed (the caller kept the output first, they included). Files of
 * other names stay. */
static enum cd_status put_crashes(int gfd, const char *dir, struct cd_error *err)
{
    struct stat sb;
    int sfd = openat(gfd, "crashes", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0 && lstat(dir, &sb) != 0)
        return CD_OK; /* none then, none now */
    enum cd_status st = cd_file_mkdir_p(dir, err);
    int dfd = st == CD_OK ? cd_file_dir_at(AT_FDCWD, dir, dir, 0, err) : -1;
    for (int pass = 0; dfd >= 0 && st == CD_OK && pass < 2; pass++) {
        /* pass 0: the generation's into dir; pass 1: dir's later ones out */
        int from = pass ? dfd : sfd;
        int dup_fd = from < 0 ? -1 : dup(from);
        DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
        if (!d && dup_fd >= 0)
            close(dup_fd);
        if (!d && from >= 0)
            st = cd_error_sys(err, CD_FAILED, "cannot read '%s': %s", dir, strerror(errno));
        for (struct dirent *e; d && st == CD_OK && (e = readdir(d));) {
            if (!reproducer_name(e->d_name))
                continue;
            if (pass == 0 && fstatat(dfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 &&
                keep_at(sfd, e->d_name, dfd, e->d_name) < 0)
                st = cd_error_sys(err, CD_FAILED, "cannot put back '%s/%s': %s", dir,
                                  e->d_name, strerror(errno));
            if (pass == 1 && (sfd < 0 || fstatat(sfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW)) &&
                cd_file_is_own_at(dfd, e->d_name, NULL) && unlinkat(dfd, e->d_name, 0) != 0)
                st = cd_error_sys(err, CD_FAILED, "cannot remove '%s/%s': %s", dir, e->d_name,
                                  strerror(errno));
        }
        if (d)
            closedir(d);
    }
    if (dfd >= 0)
        close(dfd);
    if (sfd >= 0)
        close(sfd);
    return dfd < 0 ? CD_FAILED : st;
}

enum cd_status cd_generations_restore(const struct cd_gen_output *o, const char *store,
                                      const char *name, struct cd_error *err)
{
    if (!*name || strchr(name, '/') || name[0] == '.')
        return cd_error_set(err, CD_FAILED, "'%s' is no generation name", name);
    int sfd = open_store(store, false, err);
    if (sfd < 0)
        return CD_FAILED;
    char shown[4400];
    snprintf(shown, sizeof shown, "%s/%s", store, name);
    int gfd = cd_file_dir_at(sfd, name, shown, CD_FILE_OWN, err);
    close(sfd);
    if (gfd < 0)
        return CD_FAILED;
    struct stat sb;
    enum cd_status st = CD_OK;
    if (fstatat(gfd, "manifest.json", &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
        st = cd_error_set(err, CD_FAILED, "generation '%s' holds no manifest", shown);
    else if (o->tar)
        st = put_file(gfd, "seeds.tar.zst", o->seed_dir) == 0
                 ? CD_OK
                 : cd_error_sys(err, CD_FAILED, "cannot put back '%s': %s", o->seed_dir,
                                strerror(errno));
    else
        st = put_seeds(gfd, o->seed_dir, err);
    if (st == CD_OK && o->crashes_dir)
        st = put_crashes(gfd, o->crashes_dir, err);
    if (st == CD_OK && o->state) {
        bool has = fstatat(gfd, "state", &sb, AT_SYMLINK_NOFOLLOW) == 0;
        if (has ? put_file(gfd, "state", o->state) != 0
                : unlink(o->state) != 0 && errno != ENOENT)
            st = cd_error_sys(err, CD_FAILED, "cannot put back '%s': %s", o->state,
                              strerror(errno));
    }
    /* The manifest last: it says what the seed directory holds */
    if (st == CD_OK && put_file(gfd, "manifest.json", o->manifest) != 0)
        st = cd_error_sys(err, CD_FAILED, "cannot put back '%s': %s", o->manifest,
                          strerror(errno));
    close(gfd);
    return st;
}
