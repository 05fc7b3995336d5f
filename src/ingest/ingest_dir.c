/* Directory operands: a depth-first walk that yields every regular file below the operand, with
 * entry names sorted bytewise at each level so the order is the same on every file system. Only
 * one level's names are held per depth. The walk goes through descriptors: each level is opened
 * relative to its parent's open directory (the operand's own is the one the walk was given), and
 * every entry is opened and looked at relative to its directory's, never by path, so that no
 * component is resolved twice: a directory swapped for a link mid-walk leads nowhere. A level
 * holds one descriptor while it is walked, so depth is bounded by the descriptors the process
 * may open (a level past that is skipped with a warning). Symbolic links are never followed
 * (O_NOFOLLOW on every open below the operand). Knows nothing of archives: files found here are
 * inputs as they are.
 * An afl-fuzz output directory is read as afl-fuzz lays it out: a directory holding a "queue"
 * directory and one of afl-fuzz's own files (fuzzer_stats, fuzzer_setup, cmdline) is an instance,
 * of which only queue/, crashes/ and hangs/ are walked, and in those only the test cases
 * ("id:..." or "id_..."): never the instance's state (.cur_input, .state/, plot_data, the
 * crashes' README.txt, .synced/). */
#define _DEFAULT_SOURCE 1 /* d_type and DT_* from readdir save one lstat per entry */
#include "ingest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The names of one directory: NUL-separated in one pool, pointed to by ents once read. */
struct dir_ent {
    const char *name;
    unsigned char type; /* DT_* from readdir, DT_UNKNOWN when the file system does not say */
    ino_t ino;          /* d_ino from readdir */
};

/* What a directory is to afl-fuzz. */
enum afl_kind { AFL_NONE, AFL_INSTANCE, AFL_PART };

struct dir_level {
    int fd; /* the open directory: every entry is reached through it */
    char *pool;
    struct dir_ent *ents;
    size_t n, i;
    size_t plen; /* length of this directory's path in ing_dir.path */
    enum afl_kind afl;
};

struct ing_dir {
    struct dir_level *lv;
    size_t depth, cap;
    char *path; /* the current path: operand as given, then the entry names */
    size_t path_len, path_cap;
};

static int path_set(struct ing_dir *d, size_t base, const char *name)
{
    size_t nlen = strlen(name);
    bool sep = base > 0 && d->path[base - 1] != '/';
    size_t need = base + sep + nlen + 1;
    if (need > d->path_cap) {
        size_t ncap = d->path_cap ? d->path_cap : 256;
        while (ncap < need)
            ncap *= 2;
        char *n = realloc(d->path, ncap);
        if (!n)
            return -1;
        d->path = n;
        d->path_cap = ncap;
    }
    if (sep)
        d->path[base++] = '/';
    memcpy(d->path + base, name, nlen + 1);
    d->path_len = base + nlen;
    return 0;
}

static int ent_cmp(const void *a, const void *b)
{
    return strcmp(((const struct dir_ent *)a)->name, ((const struct dir_ent *)b)->name);
}

static bool has_entry(const struct dir_level *lv, const char *name)
{
    struct dir_ent key = {.name = name};
    return lv->n && bsearch(&key, lv->ents, lv->n, sizeof key, ent_cmp) != NULL;
}

static bool is_test_case(const char *name)
{
    return strncmp(name, "id:", 3) == 0 || strncmp(name, "id_", 3) == 0;
}

static bool is_instance_part(const char *name)
{
    return strcmp(name, "queue") == 0 || strcmp(name, "crashes") == 0 ||
           strcmp(name, "hangs") == 0;
}

/* Recognises an afl-fuzz instance (or a part of one, below parent) in the sorted level and keeps
 * only the entries of it that hold test cases. */
static void afl_filter(struct dir_level *lv, enum afl_kind parent)
{
    if (parent == AFL_INSTANCE)
        lv->afl = AFL_PART;
    else if (has_entry(lv, "queue") && (has_entry(lv, "fuzzer_stats") ||
                                        has_entry(lv, "fuzzer_setup") || has_entry(lv, "cmdline")))
        lv->afl = AFL_INSTANCE;
    else
        return;
    size_t kept = 0;
    for (size_t k = 0; k < lv->n; k++)
        if (lv->afl == AFL_PART ? is_test_case(lv->ents[k].name)
                                : is_instance_part(lv->ents[k].name))
            lv->ents[kept++] = lv->ents[k];
    lv->n = kept;
}

static void level_release(struct dir_level *lv)
{
    if (lv->fd >= 0)
        close(lv->fd);
    lv->fd = -1;
    free(lv->pool);
    free(lv->ents);
}

/* Reads the open directory fd (taken over, closed on failure) into a new level, below a directory
 * of kind parent. Returns 0, or an errno value (ENOMEM too). */
static int level_push(struct ing_dir *d, int fd, enum afl_kind parent)
{
    struct dir_level lv = {.fd = fd, .plen = d->path_len};
    size_t pool_len = 0, pool_cap = 0, ents_cap = 0;
    size_t *offs = NULL;
    DIR *dir = NULL;
    int e = 0;
    int rfd = dup(fd); /* the stream's own: fd stays the level's */
    if (rfd < 0 || fcntl(rfd, F_SETFD, FD_CLOEXEC) != 0) {
        e = errno;
        if (rfd >= 0)
            close(rfd);
        goto out;
    }
    dir = fdopendir(rfd);
    if (!dir) {
        e = errno;
        close(rfd);
        goto out;
    }
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(dir);
        if (!de) {
            e = errno;
            break;
        }
        const char *nm = de->d_name;
        if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0)
            continue;
        size_t nlen = strlen(nm) + 1;
        if (pool_len + nlen > pool_cap) {
            size_t ncap = pool_cap ? pool_cap * 2 : 4096;
            while (ncap < pool_len + nlen)
                ncap *= 2;
            char *np = realloc(lv.pool, ncap);
            if (!np) {
                e = ENOMEM;
                break;
            }
            lv.pool = np;
            pool_cap = ncap;
        }
        if (lv.n == ents_cap) {
            size_t ncap = ents_cap ? ents_cap * 2 : 64;
            struct dir_ent *ne = realloc(lv.ents, ncap * sizeof *ne);
            size_t *no = realloc(offs, ncap * sizeof *no);
            if (ne)
                lv.ents = ne;
            if (no)
                offs = no;
            if (!ne || !no) {
                e = ENOMEM;
                break;
            }
            ents_cap = ncap;
        }
        memcpy(lv.pool + pool_len, nm, nlen);
        offs[lv.n] = pool_len;
        lv.ents[lv.n].type = de->d_type;
        lv.ents[lv.n].ino = de->d_ino;
        lv.n++;
        pool_len += nlen;
    }
    if (e)
        goto out;
    /* The pool no longer moves: point at the names, then sort them. */
    for (size_t k = 0; k < lv.n; k++)
        lv.ents[k].name = lv.pool + offs[k];
    if (lv.n > 1)
        qsort(lv.ents, lv.n, sizeof *lv.ents, ent_cmp);
    afl_filter(&lv, parent);
    if (d->depth == d->cap) {
        size_t ncap = d->cap ? d->cap * 2 : 16;
        struct dir_level *nl = realloc(d->lv, ncap * sizeof *nl);
        if (!nl) {
            e = ENOMEM;
            goto out;
        }
        d->lv = nl;
        d->cap = ncap;
    }
    d->lv[d->depth++] = lv;
    lv.fd = -1;
    lv.pool = NULL;
    lv.ents = NULL;
out:
    if (dir)
        closedir(dir);
    free(offs);
    level_release(&lv);
    return e;
}

/* Claims a directory operand and reads its first level. */
static enum cd_status dir_open(struct cd_ingest *ing, struct ing_operand *op, void **state,
                               struct cd_error *err)
{
    *state = NULL;
    if (op->is_stdin || !S_ISDIR(op->sb.st_mode))
        return CD_OK;
    struct ing_dir *d = calloc(1, sizeof *d);
    if (!d || path_set(d, 0, op->path) != 0) {
        free(d);
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    /* The operand as the walk opened it: never looked up by its name again */
    int fd = fcntl(op->fd, F_DUPFD_CLOEXEC, 0);
    int e = fd < 0 ? errno : level_push(d, fd, AFL_NONE);
    if (e == ENOMEM) {
        free(d->path);
        free(d);
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    if (e) {
        free(d->path);
        free(d);
        ing_skip(ing, CD_SKIP_UNREADABLE);
        return cd_error_set(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(e));
    }
    *state = d;
    return CD_OK;
}

/* Reads the regular file name of the open directory dfd (named in ing->name) as one input: OK,
 * WARN, FAILED, or DONE when it yields nothing (empty and skipped, or no longer a regular file). */
static enum cd_status read_file(struct cd_ingest *ing, int dfd, const char *name,
                                struct cd_input *in, struct cd_error *err)
{
    /* O_NONBLOCK: should the entry have become a fifo since readdir, open must not wait. */
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP) { /* replaced by a symlink since readdir */
            ing_skip(ing, CD_SKIP_NOT_REGULAR);
            return CD_DONE;
        }
        ing_skip(ing, CD_SKIP_UNREADABLE);
        return cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
    }
    struct stat sb;
    enum cd_status st;
    if (fstat(fd, &sb) != 0) {
        ing_skip(ing, CD_SKIP_UNREADABLE);
        st = cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        ing_skip(ing, CD_SKIP_NOT_REGULAR);
        st = CD_DONE;
    } else {
        st = ing_read_fd(ing, fd, (long long)sb.st_size, in, err);
    }
    close(fd);
    return st;
}

/* Returns the DT_* type of the entry name of the open directory dfd, asking the file system when
 * readdir did not. */
static int entry_type(int dfd, const char *name, unsigned char type, int *e)
{
    if (type != DT_UNKNOWN)
        return type;
    struct stat sb;
    if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        *e = errno;
        return DT_UNKNOWN;
    }
    if (S_ISDIR(sb.st_mode))
        return DT_DIR;
    if (S_ISREG(sb.st_mode))
        return DT_REG;
    return DT_LNK; /* anything else is skipped alike */
}

static enum cd_status dir_next(struct cd_ingest *ing, void *state, struct cd_input *in,
                               struct cd_error *err)
{
    struct ing_dir *d = state;
    while (d->depth > 0) {
        struct dir_level *top = &d->lv[d->depth - 1];
        if (top->i == top->n) {
            level_release(top);
            d->depth--;
            continue;
        }
        const struct dir_ent *ent = &top->ents[top->i++];
        enum afl_kind kind = top->afl;
        int dfd = top->fd;
        if (path_set(d, top->plen, ent->name) != 0)
            return cd_error_oom(err, CD_FAILED, "out of memory");
        CD_FORWARD_IF_ERROR(ing_name_set(ing, d->path, NULL, NULL, err));
        if (ing_is_own(ing, ent->name, ent->ino, dfd))
            continue; /* the run's own output, under an input */
        int e = 0;
        int type = entry_type(dfd, ent->name, ent->type, &e);
        if (e) {
            ing_skip(ing, CD_SKIP_UNREADABLE);
            return cd_error_set(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(e));
        }
        if (type == DT_DIR) {
            /* Below a part of an instance (queue/.state/, ...) nothing is a test case. */
            if (kind == AFL_PART)
                continue;
            int sub = openat(dfd, ent->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
            e = sub < 0 ? errno : level_push(d, sub, kind); /* top may move: not used again */
            if (e == ENOMEM)
                return cd_error_oom(err, CD_FAILED, "out of memory");
            if (e == ELOOP) { /* replaced by a symlink since readdir */
                ing_skip(ing, CD_SKIP_NOT_REGULAR);
                continue;
            }
            if (e) {
                ing_skip(ing, CD_SKIP_UNREADABLE);
                return cd_error_set(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(e));
            }
            continue;
        }
        if (type != DT_REG) {
            ing_skip(ing, CD_SKIP_NOT_REGULAR);
            continue;
        }
        enum cd_status st = read_file(ing, dfd, ent->name, in, err);
        if (st != CD_DONE)
            return st;
    }
    return CD_DONE;
}

static void dir_close(void *state)
{
    struct ing_dir *d = state;
    if (!d)
        return;
    for (size_t k = 0; k < d->depth; k++)
        level_release(&d->lv[k]);
    free(d->lv);
    free(d->path);
    free(d);
}

const struct ing_source ing_source_dir = {"directory", dir_open, dir_next, dir_close};
