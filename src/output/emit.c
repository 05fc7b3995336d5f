/* Emit: the last step of the pipeline, from a cd_result to files. Seeds are staged in a temporary
 * directory beside the corpus directory and swapped in whole when the run is over, so a crash at
 * any moment leaves either the old or the new corpus complete; reproducers and the manifest are
 * written file by file through temp file + rename (cd_file). It depends on the result and the file
 * helpers, never on execution; what an earlier manifest says it owns comes from the caller
 * (cd_emit_opts.read_owned), so emit knows nothing of the manifest's format. What may be written
 * over, the lock and the leftovers of interrupted runs are emit_check.c's. */
#include "emit_internal.h"
#include "common/cd_file.h"

#include <archive.h>
#include <archive_entry.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct cd_emit_stage {
    struct cd_emit_opts opts;
    char *seed_dir;   /* trailing slashes removed */
    char *parent;
    char *base;
    char *tmp;        /* the staged directory */
};


static void stage_free(struct cd_emit_stage *st)
{
    if (!st)
        return;
    free(st->seed_dir);
    free(st->parent);
    free(st->base);
    free(st->tmp);
    free(st);
}

enum cd_status cd_emit_stage_seeds(struct cd_emit_stage **out, const struct cd_emit_opts *opts,
                                   const struct cd_result *r, struct cd_emit_stats *stats,
                                   struct cd_error *err)
{
    enum cd_status st = CD_OK;
    struct cd_emit_stage *s = calloc(1, sizeof *s);
    int dfd = -1;
    *out = NULL;
    if (!s || !cd_file_split(opts->seed_dir, &s->seed_dir, &s->parent, &s->base)) {
        st = cd_error_oom(err, CD_FAILED, "out of memory");
        goto out;
    }
    s->opts = *opts;
    st = cd_file_mkdir_p(s->parent, err);
    if (st != CD_OK)
        goto out;
    size_t n = strlen(s->parent) + strlen(s->base) + 16;
    s->tmp = malloc(n);
    if (!s->tmp) {
        st = cd_error_oom(err, CD_FAILED, "out of memory");
        goto out;
    }
    snprintf(s->tmp, n, "%s/.%s.tmp-XXXXXX", s->parent, s->base);
    if (!mkdtemp(s->tmp)) {
        st = cd_error_sys(err, CD_FAILED, "cannot create a directory beside '%s': %s", s->seed_dir,
                          strerror(errno));
        free(s->tmp);
        s->tmp = NULL;
        goto out;
    }
    dfd = cd_file_dir_at(AT_FDCWD, s->tmp, s->tmp, CD_FILE_OWN, err);
    if (dfd < 0) {
        st = CD_FAILED;
        goto out;
    }
    (void)fchmod(dfd, 0755 & ~cd_file_umask());
    for (size_t i = 0; i < r->n_examples; i++) {
        const struct cd_result_example *ex = &r->examples[i];
        if (opts->keep ? !opts->keep(ex, opts->pick_ctx) : !cd_result_is_seed(ex))
            continue;
        /* its name, or the next choice while one is taken */
        char buf[300];
        const char *name = opts->name ? opts->name(ex, 0, buf, sizeof buf, opts->pick_ctx)
                                      : ex->sha1;
        int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        for (unsigned k = 1; fd < 0 && errno == EEXIST && opts->name; k++) {
            const char *next = opts->name(ex, k, buf, sizeof buf, opts->pick_ctx);
            if (!next)
                break;
            name = next;
            fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        }
        if (fd < 0) {
            st = cd_error_sys(err, CD_FAILED, "cannot create '%s/%s': %s", s->tmp, name,
                              strerror(errno));
            goto out;
        }
        char what[4096];
        snprintf(what, sizeof what, "%s/%s", s->tmp, name);
        st = cd_file_write_all(fd, ex->data, ex->len, what, err);
        if (close(fd) != 0 && st == CD_OK)
            st = cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", what, strerror(errno));
        if (st != CD_OK)
            goto out;
        if (stats) {
            stats->seeds++;
            stats->seed_bytes += ex->len;
        }
    }
    if (fsync(dfd) != 0) {
        st = cd_error_sys(err, CD_FAILED, "cannot write '%s': %s", s->tmp, strerror(errno));
        goto out;
    }
out:
    if (dfd >= 0)
        close(dfd);
    if (st != CD_OK) {
        cd_emit_abort(s);
        return st;
    }
    *out = s;
    return CD_OK;
}

const char *cd_emit_stage_path(const struct cd_emit_stage *st)
{
    return st->tmp;
}

void cd_emit_abort(struct cd_emit_stage *st)
{
    if (!st)
        return;
    if (st->tmp)
        (void)cd_file_rm_tree(st->tmp);
    stage_free(st);
}

/* Moves the directory aside (the corpus --force replaced) to a visible "PARENT/BASE.replaced-XXXXXX"
 * and returns that path (owned), or NULL with err set. */
static char *keep_replaced(const struct cd_emit_stage *s, const char *aside, struct cd_error *err)
{
    size_t n = strlen(s->parent) + strlen(s->base) + 24;
    char *kept = malloc(n);
    if (!kept) {
        cd_error_oom(err, CD_FAILED, "out of memory");
        return NULL;
    }
    snprintf(kept, n, "%s/%s.replaced-XXXXXX", s->parent, s->base);
    if (!mkdtemp(kept) || rename(aside, kept) != 0) {
        cd_error_sys(err, CD_FAILED, "cannot keep the replaced '%s' as '%s': %s", s->seed_dir,
                     kept, strerror(errno));
        rmdir(kept);
        free(kept);
        return NULL;
    }
    return kept;
}

enum cd_status cd_emit_commit(struct cd_emit_stage *s, char **replaced, struct cd_error *err)
{
    if (replaced)
        *replaced = NULL;
    enum cd_status st = cd_emit_check(&s->opts, NULL, err);
    char *aside = NULL;
    if (st != CD_OK)
        goto out;
    /* What only --force allows to replace is kept, moved aside under a name the caller prints. */
    struct cd_emit_opts strict = s->opts;
    struct cd_error ignored;
    strict.force = false;
    bool foreign = s->opts.force && cd_emit_check(&strict, NULL, &ignored) != CD_OK;
    /* two renames where the file system cannot swap: cd_emit_check puts the old corpus back if
       the process dies between them */
    st = cd_file_swap_dir(s->tmp, s->seed_dir, s->parent, s->base, &aside, err);
    if (st != CD_OK)
        goto out;
    free(s->tmp); /* the staged corpus is in place: nothing of it is left to abort */
    s->tmp = NULL;
    (void)cd_file_sync_dir(s->parent);
    if (aside && foreign) {
        char *kept = keep_replaced(s, aside, err);
        if (!kept) {
            st = CD_FAILED; /* and the old corpus stays where it is, nothing removed */
            goto out;
        }
        if (replaced)
            *replaced = kept;
        else
            free(kept);
    } else if (aside) {
        (void)cd_file_rm_tree(aside);
    }
    emit_remove_leftovers(s->parent, s->base, NULL);
out:
    free(aside);
    cd_emit_abort(s);
    return st;
}

/* Opens the reproducer directory (creating it and its parents), never through a link: a link
 * planted under its name would send bytes the inputs chose into any directory. -1 with err set. */
static int crashes_dir_open(const char *dir, struct cd_error *err)
{
    char *whole, *parent, *base;
    if (!cd_file_split(dir, &whole, &parent, &base)) {
        cd_error_oom(err, CD_FAILED, "out of memory");
        return -1;
    }
    int fd = -1;
    if (cd_file_mkdir_p(parent, err) == CD_OK) {
        int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (pfd < 0)
            cd_error_sys(err, CD_FAILED, "cannot open '%s': %s", parent, strerror(errno));
        else
            fd = cd_file_dir_at(pfd, base, whole, CD_FILE_CREATE, err);
        if (pfd >= 0)
            close(pfd);
    }
    free(whole);
    free(parent);
    free(base);
    return fd;
}

enum cd_status cd_emit_reproducers(const struct cd_emit_opts *opts, const struct cd_result *r,
                                   struct cd_emit_stats *stats, struct cd_error *err)
{
    enum cd_status st = CD_OK;
    int dfd = -1;
    for (size_t i = 0; i < r->n_examples && st == CD_OK; i++) {
        const struct cd_result_example *ex = &r->examples[i];
        if (!ex->reproducer)
            continue;
        if (dfd < 0 && (dfd = crashes_dir_open(opts->crashes_dir, err)) < 0)
            return CD_FAILED;
        char name[CD_RESULT_NAME_MAX];
        cd_result_file_name(r, ex, name, sizeof name);
        struct stat sb;
        /* Content-addressed: an existing file of that name and size already holds these bytes. */
        if (!(cd_file_is_own_at(dfd, name, &sb) && (size_t)sb.st_size == ex->len))
            st = cd_file_write_at(dfd, opts->crashes_dir, name, ex->data, ex->len, err);
        if (st == CD_OK && stats) {
            stats->reproducers++;
            stats->reproducer_bytes += ex->len;
        }
    }
    if (dfd >= 0)
        close(dfd);
    return st;
}

/* Adds every seed of r to the open archive a, in the result's (sha1) order. */
/* "cannot write PATH: " and libarchive's message, with the system's cause where it has one
 * ("Write error" says little when the disk is full). */
static enum cd_status ar_fail(struct cd_error *err, const char *path, struct archive *a)
{
    const char *m = a ? archive_error_string(a) : "out of memory";
    int e = a ? archive_errno(a) : 0;
    if (e > 0 && e != EINVAL && e != EILSEQ) /* not libarchive's own codes */
        return cd_error_set(err, CD_FAILED, "cannot write '%s': %s (%s)", path, m ? m : "error",
                            strerror(e));
    return cd_error_set(err, CD_FAILED, "cannot write '%s': %s", path, m ? m : "error");
}

static enum cd_status tar_seeds(struct archive *a, const char *path, const struct cd_result *r,
                                struct cd_emit_stats *stats, struct cd_error *err)
{
    struct archive_entry *e = archive_entry_new();
    if (!e)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    enum cd_status st = CD_OK;
    for (size_t i = 0; i < r->n_examples && st == CD_OK; i++) {
        const struct cd_result_example *ex = &r->examples[i];
        if (!cd_result_is_seed(ex))
            continue;
        archive_entry_clear(e);
        archive_entry_set_pathname(e, ex->sha1);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, (la_int64_t)ex->len);
        archive_entry_set_mtime(e, 0, 0); /* same seeds, same bytes */
        if (archive_write_header(a, e) != ARCHIVE_OK
            || (ex->len && archive_write_data(a, ex->data, ex->len) != (la_ssize_t)ex->len))
            st = ar_fail(err, path, a);
        else if (stats) {
            stats->seeds++;
            stats->seed_bytes += ex->len;
        }
    }
    archive_entry_free(e);
    return st;
}

enum cd_status cd_emit_tar(const struct cd_emit_opts *opts, const struct cd_result *r,
                           struct cd_emit_stats *stats, struct cd_error *err)
{
    enum cd_status st = CD_OK;
    char *whole = NULL, *parent = NULL, *base = NULL, *tmp = NULL;
    struct archive *a = NULL;
    int fd = -1;
    assert(opts->tar);
    CD_FORWARD_IF_ERROR(cd_emit_check(opts, NULL, err));
    if (!cd_file_split(opts->seed_dir, &whole, &parent, &base)) {
        st = cd_error_oom(err, CD_FAILED, "out of memory");
        goto out;
    }
    st = cd_file_mkdir_p(parent, err);
    if (st != CD_OK)
        goto out;
    st = cd_file_temp_open(parent, base, &tmp, &fd, err);
    if (st != CD_OK)
        goto out;
    a = archive_write_new();
    if (!a || archive_write_set_format_pax_restricted(a) != ARCHIVE_OK
        || archive_write_add_filter_zstd(a) != ARCHIVE_OK
        || archive_write_open_fd(a, fd) != ARCHIVE_OK) {
        st = ar_fail(err, tmp, a);
        goto out;
    }
    st = tar_seeds(a, whole, r, stats, err);
    if (st != CD_OK)
        goto out;
    if (archive_write_close(a) != ARCHIVE_OK) {
        st = ar_fail(err, tmp, a);
        goto out;
    }
    st = cd_file_temp_commit(&fd, &tmp, whole, parent, err);
out:
    if (a)
        archive_write_free(a);
    if (fd >= 0)
        close(fd);
    if (tmp) {
        unlink(tmp);
        free(tmp);
    }
    free(whole);
    free(parent);
    free(base);
    return st;
}
