/* Files written whole or not at all, and the path helpers that go with them: a temp file beside
 * the target, fsync, rename, fsync of the directory. Emit, the manifest and the state file all
 * write through here; it depends on nothing but the shared vocabulary. */
#include "cd_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

