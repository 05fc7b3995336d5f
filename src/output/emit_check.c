/* Emit, output side: what the output directory holds and whether this run may replace it. The
 * ownership check (cd_emit_check: the manifest's seed files, nothing else, a directory of this
 * user's), the lock two runs on one output take, and the leftovers of interrupted runs, put back
 * (an old corpus moved aside) or swept (temporary files and directories of dead runs). emit.c
 * writes; this file decides what may be written over. */
#include "emit_internal.h"
#include "common/cd_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Puts back an old corpus left aside by a swap that was interrupted between its two renames. */
static void recover_aside(const char *seed_dir, const char *parent, const char *base)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    size_t blen = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (n[0] != '.' || strncmp(n + 1, base, blen) != 0 || strncmp(n + 1 + blen, ".old-", 5) != 0)
            continue;
        struct stat sb; /* ours: a directory of this user's, not a link another user planted */
        if (fstatat(dirfd(d), n, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sb.st_mode) ||
            sb.st_uid != geteuid())
            continue;
        char *aside = cd_file_join(parent, n);
        if (aside && rename(aside, seed_dir) == 0) {
            free(aside);
            break;
        }
        free(aside);
    }
    closedir(d);
}

void cd_emit_owned_release(struct cd_emit_owned *o)
{
    for (size_t i = 0; i < o->n_seeds; i++)
        free(o->seeds[i]);
    free(o->seeds);
    free(o->seed_dir_base);
    for (size_t i = 0; i < o->n_views; i++)
        free(o->views[i]);
    free(o->views);
    memset(o, 0, sizeof *o);
}

/* Keeps *o (what a manifest owns) when it was written for seed directory base, its seeds sorted;
 * else releases (zeroes) it. Returns which. */
static bool owned_for(struct cd_emit_owned *o, const char *base)
{
    bool ok = o->seed_dir_base && strcmp(o->seed_dir_base, base) == 0;
    for (size_t i = 0; !ok && i < o->n_views; i++)
        ok = strcmp(o->views[i], base) == 0;
    if (!ok)
        cd_emit_owned_release(o);
    else /* sorted, for lists_seed: a directory of 100,000 seeds is checked file by file */
        qsort(o->seeds, o->n_seeds, sizeof *o->seeds, cd_cmp_strp);
    return ok;
}

/* Reads what the manifest at path owns into *o and returns whether it was written for seed
 * directory base; *o is released (zeroed) when not. */
static bool owned_of(const struct cd_emit_opts *opts, const char *path, const char *base,
                     struct cd_emit_owned *o)
{
    memset(o, 0, sizeof *o);
    if (!path || !opts->read_owned || !opts->read_owned(path, o))
        return false;
    return owned_for(o, base);
}

/* Whether o (its seeds sorted by owned_of) lists a seed file of this name. */
static bool lists_seed(const struct cd_emit_owned *o, const char *name)
{
    return o->n_seeds && bsearch(&name, o->seeds, o->n_seeds, sizeof *o->seeds, cd_cmp_strp);
}

/* Counts the entries of the open directory d that are not regular files listed as seeds by m
 * (NULL: none is listed) into *unlisted, the first one's name into first; *empty when it has no
 * entry at all. */
static void count_unlisted(DIR *d, const struct cd_emit_owned *m, size_t *unlisted, bool *empty,
                           bool *seed_names, char first[256])
{
    struct dirent *e;
    *unlisted = 0;
    *empty = *seed_names = true;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        *empty = false;
        struct stat es;
        bool regular = fstatat(dirfd(d), e->d_name, &es, AT_SYMLINK_NOFOLLOW) == 0 &&
                       S_ISREG(es.st_mode);
        *seed_names &= regular && cd_result_is_seed_name(e->d_name);
        if (regular && m && lists_seed(m, e->d_name))
            continue;
        if ((*unlisted)++ == 0)
            snprintf(first, 256, "%s", e->d_name);
    }
}

/* Reads the manifest at the run's manifest path, once for every check: 1 with *o filled, 0 when
 * nothing is there, -1 when a file is there that read_owned does not take (not ours). */
static int read_manifest(const struct cd_emit_opts *opts, struct cd_emit_owned *o)
{
    struct stat sb;
    memset(o, 0, sizeof *o);
    if (!opts->manifest_path || lstat(opts->manifest_path, &sb) != 0)
        return 0;
    return S_ISREG(sb.st_mode) && opts->read_owned && opts->read_owned(opts->manifest_path, o)
               ? 1
               : -1;
}

enum cd_status cd_emit_check(const struct cd_emit_opts *opts, size_t *unlisted,
                             struct cd_error *err)
{
    enum cd_status st = CD_OK;
    char *whole = NULL, *parent = NULL, *base = NULL;
    DIR *d = NULL;
    struct cd_emit_owned m;
    if (unlisted)
        *unlisted = 0;
    int manifest = read_manifest(opts, &m);
    if (!opts->force && manifest < 0)
        return cd_error_set(err, CD_FAILED, "refusing to replace '%s' with the manifest: not "
                            "written by corpus-distill (--force replaces it)",
                            opts->manifest_path);
    struct stat cs; /* checked now, not after hours of work; written through a handle then */
    if (opts->crashes_dir && lstat(opts->crashes_dir, &cs) == 0 && !S_ISDIR(cs.st_mode)) {
        st = cd_error_set(err, CD_FAILED, "refusing to write reproducers into '%s': %s",
                          opts->crashes_dir, S_ISLNK(cs.st_mode) ? "it is a symbolic link"
                                                                 : "not a directory");
        goto out;
    }
    bool ours = false;
    if (!cd_file_split(opts->seed_dir, &whole, &parent, &base)) {
        st = cd_error_oom(err, CD_FAILED, "out of memory");
        goto out;
    }
    struct stat sb;
    if (lstat(whole, &sb) != 0 && errno == ENOENT)
        recover_aside(whole, parent, base);
    if (lstat(whole, &sb) != 0) {
        if (errno != ENOENT)
            st = cd_error_sys(err, CD_FAILED, "cannot stat '%s': %s", whole, strerror(errno));
        else if (stat(parent, &sb) == 0 && !S_ISDIR(sb.st_mode))
            st = cd_error_set(err, CD_FAILED, "cannot create '%s': '%s' is not a directory",
                              whole, parent);
        goto out; /* a missing parent is created when the seeds are staged */
    }
    if (opts->tar) {
        if (!S_ISREG(sb.st_mode))
            st = cd_error_set(err, CD_FAILED, "refusing to replace '%s': not a regular file",
                              whole);
        else if (!opts->force && !(manifest > 0 && (ours = owned_for(&m, base))))
            st = cd_error_mark(err,
                               cd_error_set(err, CD_FAILED, "refusing to replace '%s': not "
                                            "written by corpus-distill", whole),
                               CD_ERR_FOREIGN);
        goto out;
    }
    if (!S_ISDIR(sb.st_mode)) {
        st = cd_error_set(err, CD_FAILED, "refusing to replace '%s': %s", whole,
                          S_ISLNK(sb.st_mode) ? "it is a symbolic link" : "not a directory");
        goto out;
    }
    if (opts->force)
        goto out;
    d = opendir(whole);
    if (!d) {
        st = cd_error_sys(err, CD_FAILED, "cannot open '%s': %s", whole, strerror(errno));
        goto out;
    }
    /* Ours means: the manifest beside it names it. Even then a file it does not list as a seed
       may be another tool's (libFuzzer writes its finds into its first corpus directory, under
       SHA-1 names): such a file is never removed unless this run took it as an input. */
    ours = manifest > 0 && owned_for(&m, base);
    size_t n = 0;
    bool empty, seed_names;
    char first[256];
    count_unlisted(d, ours ? &m : NULL, &n, &empty, &seed_names, first);
    if (empty || n == 0)
        goto out;
    if (!ours) {
        cd_error_set(err, CD_FAILED,
                     "refusing to replace '%s': not empty and not written by corpus-distill%s",
                     whole, seed_names ? " (no manifest beside it names it)" : "");
        st = cd_error_mark(err, CD_FAILED, CD_ERR_FOREIGN);
    } else if (opts->seed_dir_is_input) {
        if (unlisted)
            *unlisted = n;
    } else {
        st = cd_error_set(err, CD_FAILED,
                          "refusing to replace '%s': %zu file%s in it (first '%s') %s not among "
                          "the seeds its manifest lists; name '%s' as an input too to keep %s "
                          "coverage, or move %s out",
                          whole, n, n == 1 ? "" : "s", first, n == 1 ? "is" : "are", whole,
                          n == 1 ? "its" : "their", n == 1 ? "it" : "them");
    }
out:
    if (manifest > 0) /* released and zeroed already when not ours */
        cd_emit_owned_release(&m);
    if (d)
        closedir(d);
    free(whole);
    free(parent);
    free(base);
    return st;
}

/* Removes directories left by earlier interrupted runs (".BASE.tmp-*", ".BASE.old-*") except keep. */
void emit_remove_leftovers(const char *parent, const char *base, const char *keep)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    size_t blen = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (n[0] != '.' || strncmp(n + 1, base, blen) != 0)
            continue;
        if (strncmp(n + 1 + blen, ".tmp-", 5) != 0 && strncmp(n + 1 + blen, ".old-", 5) != 0)
            continue;
        if (strlen(n + 1 + blen + 5) != 6 || (keep && strcmp(n, keep) == 0))
            continue;
        struct stat sb;
        if (fstatat(dirfd(d), n, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode) &&
            sb.st_uid == geteuid())
            (void)cd_file_rm_tree_at(dirfd(d), n);
    }
    closedir(d);
}

/* Whether name is ".<stem>.tmp-XXXXXX" (temp_open's names), of any stem when stem is NULL. */
static bool temp_name(const char *name, const char *stem)
{
    size_t n = strlen(name);
    if (n < 13 || name[0] != '.' || strncmp(name + n - 11, ".tmp-", 5) != 0)
        return false;
    return !stem || (strlen(stem) == n - 12 && strncmp(name + 1, stem, n - 12) == 0);
}

/* Removes the temp files (temp_open's) of stem, or of any stem, in dir that were last written
 * at least min_age seconds ago: what runs killed while writing left. Only regular files of this
 * user's go, and dir is not followed when it is a link. */
static void sweep_temp_files(const char *dir, const char *stem, time_t min_age)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat sb;
        /* With no age asked for, none is compared: a file written this instant may carry an
           mtime a second past time(), whose clock is coarser than the file system's. */
        if (temp_name(e->d_name, stem) && cd_file_is_own_at(dirfd(d), e->d_name, &sb) &&
            (min_age == 0 || now - sb.st_mtime >= min_age))
            (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* A run killed between its two renames (the seeds swapped in, the manifest not yet renamed over
 * the old one) leaves the new seeds beside the old manifest, and the complete new manifest in its
 * temp file. A temp manifest that names this seed directory and lists exactly the files in it is
 * that one: it is renamed into place, making the pair whole again instead of leaving a directory
 * whose files its manifest does not list. */
static void finish_interrupted_commit(const struct cd_emit_opts *opts)
{
    char *swhole, *sparent, *sbase, *mwhole, *mparent, *mbase;
    if (opts->tar || !opts->manifest_path ||
        !cd_file_split(opts->seed_dir, &swhole, &sparent, &sbase))
        return;
    if (cd_file_split(opts->manifest_path, &mwhole, &mparent, &mbase)) {
        DIR *md = opendir(mparent);
        struct dirent *e;
        bool done = false;
        while (md && !done && (e = readdir(md)) != NULL) {
            if (!temp_name(e->d_name, mbase) || !cd_file_is_own_at(dirfd(md), e->d_name, NULL))
                continue;
            char *tmp = malloc(strlen(mparent) + strlen(e->d_name) + 2);
            struct cd_emit_owned m;
            if (tmp)
                sprintf(tmp, "%s/%s", mparent, e->d_name);
            if (tmp && owned_of(opts, tmp, sbase, &m)) {
                DIR *sd = opendir(swhole);
                size_t unlisted = 1, present = 0;
                bool empty, seed_names;
                char first[256];
                if (sd) {
                    count_unlisted(sd, &m, &unlisted, &empty, &seed_names, first);
                    for (size_t k = 0; k < m.n_seeds; k++)
                        present += faccessat(dirfd(sd), m.seeds[k], F_OK,
                                             AT_SYMLINK_NOFOLLOW) == 0;
                    closedir(sd);
                }
                done = unlisted == 0 && present == m.n_seeds && rename(tmp, mwhole) == 0;
                if (done)
                    (void)cd_file_sync_dir(mparent);
                cd_emit_owned_release(&m);
            }
            free(tmp);
        }
        if (md)
            closedir(md);
        free(mwhole);
        free(mparent);
        free(mbase);
    }
    free(swhole);
    free(sparent);
    free(sbase);
}

/* Clears the temp files killed runs left: beside the corpus and beside the manifest (their
 * names are this output's, and the lock is held), and in the reproducer directory (which
 * several outputs may share: only files untouched for TEMP_STALE_S, since a live run renames its
 * temp file within moments). */
#define TEMP_STALE_S 600
static void sweep_leftovers(const struct cd_emit_opts *opts)
{
    const char *paths[3] = {opts->seed_dir, opts->manifest_path, opts->state_path};
    for (int i = 0; i < 3; i++) {
        char *whole, *parent, *base;
        if (paths[i] && cd_file_split(paths[i], &whole, &parent, &base)) {
            sweep_temp_files(parent, base, 0);
            free(whole);
            free(parent);
            free(base);
        }
    }
    if (opts->crashes_dir)
        sweep_temp_files(opts->crashes_dir, NULL, TEMP_STALE_S);
}

enum cd_status cd_emit_lock(const struct cd_emit_opts *opts, struct cd_emit_lock *lk,
                            struct cd_error *err)
{
    char *whole, *parent, *base;
    lk->fd = -1;
    lk->path = NULL;
    if (!cd_file_split(opts->seed_dir, &whole, &parent, &base))
        return cd_error_oom(err, CD_FAILED, "out of memory");
    enum cd_status st = cd_file_mkdir_p(parent, err);
    size_t n = strlen(parent) + strlen(base) + 8;
    lk->path = st == CD_OK ? malloc(n) : NULL;
    if (st == CD_OK && !lk->path)
        st = cd_error_oom(err, CD_FAILED, "out of memory");
    if (lk->path)
        snprintf(lk->path, n, "%s/.%s.lock", parent, base);
    /* The holder unlinks the file when done: a lock taken on a file that is no longer at the
       path (its holder just ended) is taken again on the new one. */
    while (st == CD_OK) {
        /* Never through a link, and only a regular file of ours: the directory may be shared
           with users who could plant one to make this run create or open a file elsewhere. */
        int fd = open(lk->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
        struct stat own;
        if (fd < 0 && errno == ELOOP) {
            st = cd_error_set(err, CD_FAILED, "refusing to use the lock '%s': it is a symbolic "
                              "link", lk->path);
            break;
        }
        if (fd < 0) {
            st = cd_error_sys(err, CD_FAILED, "cannot create the lock '%s': %s", lk->path,
                              strerror(errno));
            break;
        }
        if (fstat(fd, &own) != 0 || !S_ISREG(own.st_mode) || own.st_uid != geteuid()) {
            close(fd);
            st = cd_error_set(err, CD_FAILED, "refusing to use the lock '%s': not a regular "
                              "file of this user's", lk->path);
            break;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            st = e == EWOULDBLOCK
                     ? cd_error_set(err, CD_FAILED,
                                    "another corpus-distill run is writing '%s' (it holds '%s')",
                                    whole, lk->path)
                     : cd_error_set(err, CD_FAILED, "cannot lock '%s': %s", lk->path,
                                    strerror(e));
            break;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && lstat(lk->path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            lk->fd = fd;
            finish_interrupted_commit(opts);
            sweep_leftovers(opts);
            break;
        }
        close(fd);
    }
    if (st != CD_OK) {
        free(lk->path);
        lk->path = NULL;
    }
    free(whole);
    free(parent);
    free(base);
    return st;
}

void cd_emit_unlock(struct cd_emit_lock *lk)
{
    if (lk->fd >= 0) {
        unlink(lk->path);
        close(lk->fd);
    }
    free(lk->path);
    lk->fd = -1;
    lk->path = NULL;
}
