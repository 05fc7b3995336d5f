/* Files written whole or not at all, and the path helpers that go with them: a temp file beside
 * the target, fsync, rename, fsync of the directory, and the one way a complete directory
 * replaces another. Emit, the manifest, the state file and the report all write through here;
 * it depends on nothing but the shared vocabulary. */
#define _GNU_SOURCE /* renameat2 and RENAME_EXCHANGE; everything else here is POSIX.1-2008 */
#include "cd_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

bool cd_file_split(const char *path, char **whole, char **parent, char **base)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    *whole = strndup(path, n);
    *parent = NULL;
    *base = NULL;
    if (!*whole)
        return false;
    char *slash = strrchr(*whole, '/');
    if (!slash) {
        *parent = strdup(".");
        *base = strdup(*whole);
    } else {
        *parent = slash == *whole ? strdup("/") : strndup(*whole, (size_t)(slash - *whole));
        *base = strdup(slash + 1);
    }
    return *parent && *base;
}

char *cd_file_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", a, b);
    return s;
}

int cd_file_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

enum cd_status cd_file_write_all(int fd, const uint8_t *data, size_t len, const char *what,
                                 struct cd_error *err)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", what, strerror(errno));
        data += w;
        len -= (size_t)w;
    }
    if (fsync(fd) != 0)
        return cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", what, strerror(errno));
    return CD_OK;
}

mode_t cd_file_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    return m;
}

enum cd_status cd_file_temp_open(const char *parent, const char *base, char **tmp, int *fd,
                                 struct cd_error *err)
{
    size_t n = strlen(parent) + strlen(base) + 16;
    *tmp = malloc(n);
    if (!*tmp)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    snprintf(*tmp, n, "%s/.%s.tmp-XXXXXX", parent, base);
    *fd = mkstemp(*tmp);
    if (*fd < 0) {
        enum cd_status st =
            cd_error_sys(err, CD_FAILED, "cannot create '%s': %s", *tmp, strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return st;
    }
    (void)fcntl(*fd, F_SETFD, FD_CLOEXEC);
    if (fchmod(*fd, 0644 & ~cd_file_umask()) != 0)
        return cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", *tmp, strerror(errno));
    return CD_OK;
}

enum cd_status cd_file_temp_commit(int *fd, char **tmp, const char *whole, const char *parent,
                                   struct cd_error *err)
{
    int failed = fsync(*fd) != 0;
    failed |= close(*fd) != 0;
    *fd = -1;
    if (failed)
        return cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", *tmp, strerror(errno));
    if (rename(*tmp, whole) != 0)
        return cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", whole, strerror(errno));
    free(*tmp);
    *tmp = NULL;
    (void)cd_file_sync_dir(parent);
    return CD_OK;
}

int cd_file_dir_at(int dirfd, const char *name, const char *shown, int flags,
                   struct cd_error *err)
{
    if ((flags & CD_FILE_CREATE) && mkdirat(dirfd, name, 0755) != 0 && errno != EEXIST) {
        cd_error_sys(err, CD_FAILED, "cannot create '%s': %s", shown, strerror(errno));
        return -1;
    }
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0) {
        int e = errno;
        if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode))
            cd_error_set(err, CD_FAILED, "refusing to use '%s': it is a symbolic link", shown);
        else if (e == ENOTDIR)
            cd_error_set(err, CD_FAILED, "refusing to use '%s': not a directory", shown);
        else
            cd_error_sys(err, CD_FAILED, "cannot open '%s': %s", shown, strerror(e));
        return -1;
    }
    if ((flags & CD_FILE_OWN) && (fstat(fd, &sb) != 0 || sb.st_uid != geteuid())) {
        cd_error_set(err, CD_FAILED, "refusing to use '%s': it belongs to another user (uid %ld)",
                     shown, (long)sb.st_uid);
        close(fd);
        return -1;
    }
    return fd;
}

const char *cd_file_foreign_link(const char *path, char *buf, size_t cap)
{
    size_t n = strlen(path);
    if (n >= cap)
        return NULL;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (i < n && buf[i] != '/')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        struct stat sb;
        bool foreign = buf[i - 1] != '/' && lstat(buf, &sb) == 0 && S_ISLNK(sb.st_mode) &&
                       sb.st_uid != geteuid() && sb.st_uid != 0;
        if (foreign)
            return buf;
        buf[i] = c;
    }
    return NULL;
}

/* Whether users other than root can write in the directory sb: its other-write bit, or its
 * group-write bit for a group other than root's. */
static bool others_write(const struct stat *sb)
{
    return (sb->st_mode & S_IWOTH) || ((sb->st_mode & S_IWGRP) && sb->st_gid != 0);
}

const char *cd_file_unsafe_for_root(const char *path, char *buf, size_t cap)
{
    char abs[8192], have[PATH_MAX], dir[PATH_MAX];
    if (path[0] == '/')
        snprintf(abs, sizeof abs, "%s", path);
    else if (getcwd(have, sizeof have))
        snprintf(abs, sizeof abs, "%s/%s", have, path);
    else
        return snprintf(buf, cap, "%s", path), buf; /* no way to tell: as unsafe */
    /* The deepest prefix that exists, links resolved; what follows it is still to be made. */
    size_t n = strlen(abs);
    while (!realpath(abs, have)) {
        char *slash = strrchr(abs, '/');
        if (!slash || slash == abs)
            return snprintf(buf, cap, "%s", path), buf;
        *slash = '\0';
    }
    bool missing = strlen(abs) < n;
    /* Each directory from "/" down, and whether another user chooses what comes after it. */
    size_t len = strlen(have), pos = 0;
    strcpy(dir, "/");
    for (;;) {
        size_t p = pos + 1;
        bool last = p >= len;
        size_t q = last ? len : p + strcspn(have + p, "/"); /* past the end: nothing to read */
        struct stat d, next;
        bool unsafe = lstat(dir, &d) != 0 || d.st_uid != 0;
        if (!unsafe && S_ISDIR(d.st_mode) && others_write(&d)) {
            if (last) {
                unsafe = missing; /* another user can make the missing name first */
            } else {
                /* in a sticky directory only an entry's owner renames or removes it */
                memcpy(dir, have, q);
                dir[q] = '\0';
                unsafe = !(d.st_mode & S_ISVTX) || lstat(dir, &next) != 0 || next.st_uid != 0;
                memcpy(dir, have, pos ? pos : 1);
                dir[pos ? pos : 1] = '\0';
            }
        }
        if (unsafe)
            return snprintf(buf, cap, "%s", dir), buf;
        if (last)
            return NULL;
        memcpy(dir, have, q);
        dir[q] = '\0';
        pos = q;
    }
}

bool cd_file_is_own_at(int dirfd, const char *name, struct stat *sb)
{
    struct stat s;
    if (!sb)
        sb = &s;
    return fstatat(dirfd, name, sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb->st_mode) &&
           sb->st_uid == geteuid();
}

enum cd_status cd_file_write_at(int dfd, const char *shown, const char *name, const void *data,
                                size_t len, struct cd_error *err)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t n = strlen(name) + 13;
    char *tmp = malloc(n);
    if (!tmp)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            for (size_t k = 0; k < sizeof r; k++) /* entropy is not the point: O_EXCL is */
                r[k] = (unsigned char)(cd_now_ns() >> (k * 5));
        snprintf(tmp, n, ".%s.tmp-", name);
        for (size_t k = 0; k < sizeof r; k++)
            tmp[n - 7 + k] = digits[r[k] % (sizeof digits - 1)];
        tmp[n - 1] = '\0';
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        enum cd_status st = cd_error_sys(err, CD_FAILED, "cannot create a file in '%s': %s",
                                         shown, strerror(errno));
        free(tmp);
        return st;
    }
    char what[4096];
    snprintf(what, sizeof what, "%s/%s", shown, name);
    enum cd_status st = cd_file_write_all(fd, data, len, what, err);
    if (close(fd) != 0 && st == CD_OK)
        st = cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", what, strerror(errno));
    if (st == CD_OK && renameat(dfd, tmp, dfd, name) != 0)
        st = cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", what, strerror(errno));
    if (st != CD_OK)
        (void)unlinkat(dfd, tmp, 0);
    else
        (void)fsync(dfd);
    free(tmp);
    return st;
}

struct cd_file {
    char *whole, *parent, *base, *tmp;
    int fd;
};

void cd_file_abort(struct cd_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    if (f->tmp) {
        unlink(f->tmp);
        free(f->tmp);
    }
    free(f->whole);
    free(f->parent);
    free(f->base);
    free(f);
}

enum cd_status cd_file_stage(struct cd_file **out, const char *path, const void *data, size_t len,
                             struct cd_error *err)
{
    *out = NULL;
    struct cd_file *f = calloc(1, sizeof *f);
    if (!f || !cd_file_split(path, &f->whole, &f->parent, &f->base)) {
        cd_file_abort(f);
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    f->fd = -1;
    enum cd_status st = cd_file_temp_open(f->parent, f->base, &f->tmp, &f->fd, err);
    if (st == CD_OK)
        st = cd_file_write_all(f->fd, data, len, f->tmp, err);
    if (st != CD_OK) {
        cd_file_abort(f);
        return st;
    }
    *out = f;
    return CD_OK;
}

enum cd_status cd_file_commit(struct cd_file *f, struct cd_error *err)
{
    enum cd_status st = cd_file_temp_commit(&f->fd, &f->tmp, f->whole, f->parent, err);
    cd_file_abort(f); /* frees; removes the temp file only if the rename failed */
    return st;
}

enum cd_status cd_file_write(const char *path, const void *data, size_t len, struct cd_error *err)
{
    struct cd_file *f;
    CD_FORWARD_IF_ERROR(cd_file_stage(&f, path, data, len, err));
    return cd_file_commit(f, err);
}

/* Two renames where RENAME_EXCHANGE is missing: the old directory aside (onto an empty
 * placeholder), the new one in. Between them dir is missing but both are complete. */
static enum cd_status swap_by_two_renames(const char *tmp, const char *dir, const char *parent,
                                          const char *base, char **aside, struct cd_error *err)
{
    size_t n = strlen(parent) + strlen(base) + 16;
    *aside = malloc(n);
    if (!*aside)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    snprintf(*aside, n, "%s/.%s.old-XXXXXX", parent, base);
    if (!mkdtemp(*aside)) {
        free(*aside);
        *aside = NULL;
        return cd_error_sys(err, CD_FAILED, "cannot create a directory beside '%s': %s", dir,
                            strerror(errno));
    }
    if (rename(dir, *aside) != 0) {
        enum cd_status st = cd_error_sys(err, CD_FAILED, "cannot move '%s' aside: %s", dir,
                                         strerror(errno));
        rmdir(*aside);
        free(*aside);
        *aside = NULL;
        return st;
    }
    if (rename(tmp, dir) != 0) {
        enum cd_status st = cd_error_sys(err, CD_FAILED, "cannot rename '%s' to '%s': %s", tmp,
                                         dir, strerror(errno));
        (void)rename(*aside, dir);
        free(*aside);
        *aside = NULL;
        return st;
    }
    return CD_OK;
}

enum cd_status cd_file_swap_dir(const char *tmp, const char *dir, const char *parent,
                                const char *base, char **aside, struct cd_error *err)
{
    *aside = NULL;
    if (rename(tmp, dir) == 0)
        return CD_OK; /* dir was missing or an empty directory */
    if (errno != ENOTEMPTY && errno != EEXIST)
        return cd_error_sys(err, CD_FAILED, "cannot rename '%s' to '%s': %s", tmp, dir,
                            strerror(errno));
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0)
        return (*aside = strdup(tmp)) ? CD_OK
                                       : cd_error_oom(err, CD_FAILED, "out of memory");
    if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)
        return swap_by_two_renames(tmp, dir, parent, base, aside, err);
    return cd_error_sys(err, CD_FAILED, "cannot replace '%s': %s", dir, strerror(errno));
}

int cd_file_rm_tree_at(int dirfd, const char *name)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (cd_file_rm_tree_at(fd, e->d_name) != 0)
            rc = -1;
    }
    closedir(d);
    if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) != 0)
        rc = -1;
    return rc;
}

int cd_file_rm_tree(const char *path)
{
    return cd_file_rm_tree_at(AT_FDCWD, path);
}

/* Opens the next component name of the walk at *dfd (replaced by it), creating a missing one
 * when create is set; a link is followed only when this user or root owns it, by walking its
 * text in turn (depth counts the links so far). 0, or -1 with err set. */
static int walk_step(int *dfd, const char *name, const char *shown, bool create, int depth,
                     struct cd_error *err);

/* Walks path (its components, "." and ".." as they come) from *dfd, which it replaces. */
static int walk(int *dfd, const char *path, const char *shown, bool create, int depth,
                struct cd_error *err)
{
    char *copy = strdup(path), *save = NULL;
    if (!copy)
        return cd_error_oom(err, CD_FAILED, "out of memory"), -1;
    int rc = 0;
    for (char *c = strtok_r(copy, "/", &save); c && rc == 0; c = strtok_r(NULL, "/", &save))
        rc = walk_step(dfd, c, shown, create, depth, err);
    free(copy);
    return rc;
}

static int walk_step(int *dfd, const char *name, const char *shown, bool create, int depth,
                     struct cd_error *err)
{
    if (create && mkdirat(*dfd, name, 0755) != 0 && errno != EEXIST) {
        cd_error_sys(err, CD_FAILED, "cannot create '%s': %s", shown, strerror(errno));
        return -1;
    }
    int next = openat(*dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next >= 0) {
        close(*dfd);
        *dfd = next;
        return 0;
    }
    struct stat sb;
    char target[PATH_MAX];
    ssize_t n;
    if (errno != ELOOP && errno != ENOTDIR) {
        cd_error_sys(err, CD_FAILED, "cannot open '%s': %s", shown, strerror(errno));
        return -1;
    }
    if (fstatat(*dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISLNK(sb.st_mode)) {
        cd_error_set(err, CD_FAILED, "cannot use '%s': '%s' on its way is not a directory",
                     shown, name);
        return -1;
    }
    if (sb.st_uid != geteuid() && sb.st_uid != 0) {
        cd_error_set(err, CD_FAILED, "refusing to write under '%s': '%s' on its way is a "
                     "symbolic link of another user's, who chooses where it leads", shown, name);
        return -1;
    }
    if (depth >= 40 || (n = readlinkat(*dfd, name, target, sizeof target - 1)) < 0) {
        cd_error_set(err, CD_FAILED, "cannot open '%s': too many links on its way", shown);
        return -1;
    }
    target[n] = '\0';
    if (target[0] == '/') { /* from the root again */
        int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root < 0)
            return cd_error_sys(err, CD_FAILED, "cannot open '/': %s", strerror(errno)), -1;
        close(*dfd);
        *dfd = root;
    }
    return walk(dfd, target, shown, create, depth + 1, err);
}

int cd_file_open_dir_walk(const char *path, bool create, struct cd_error *err)
{
    int dfd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        cd_error_sys(err, CD_FAILED, "cannot open '%s': %s", path[0] == '/' ? "/" : ".",
                     strerror(errno));
        return -1;
    }
    if (walk(&dfd, path, path, create, 0, err) != 0) {
        close(dfd);
        return -1;
    }
    return dfd;
}

enum cd_status cd_file_mkdir_p(const char *path, struct cd_error *err)
{
    char *p = strdup(path);
    if (!p)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    for (char *c = p + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            enum cd_status st = cd_error_sys(err, CD_FAILED, "cannot create '%s': %s", p,
                                             strerror(errno));
            free(p);
            return st;
        }
        *c = '/';
    }
    free(p);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return cd_error_sys(err, CD_FAILED, "cannot create '%s': %s", path, strerror(errno));
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return cd_error_set(err, CD_FAILED, "cannot create '%s': not a directory", path);
    return CD_OK;
}
