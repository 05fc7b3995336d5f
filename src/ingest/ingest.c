/* Ingest, the first stage of the pipeline: walks the command-line operands in order and hands
 * each to the first source in the table below that claims it; the source then yields the
 * operand's inputs. A new kind of operand is one file with its {open, next, close} and one row
 * here. One input is held at a time, in one growing buffer (ingest_common.c). It depends on
 * nothing but the common error helpers and libarchive (through ingest_archive.c). */
#include "ingest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const struct ing_source ing_source_dir;     /* ingest_dir.c */
extern const struct ing_source ing_source_archive; /* ingest_archive.c */
extern const struct ing_source ing_source_stream;  /* ingest_file.c: a FIFO, a device, raw "-" */
extern const struct ing_source ing_source_file;    /* ingest_file.c: a regular file, raw */

/* In the order they are asked: an archive before a plain file, which takes any regular file. */
static const struct ing_source *const sources[] = {
    &ing_source_dir, &ing_source_archive, &ing_source_stream, &ing_source_file,
};

const char *cd_ingest_skip_name(enum cd_skip why)
{
    switch (why) {
    case CD_SKIP_TOO_LARGE: return "too large";
    case CD_SKIP_UNREADABLE: return "unreadable";
    case CD_SKIP_BAD_ARCHIVE: return "bad archive";
    case CD_SKIP_EMPTY: return "empty";
    case CD_SKIP_NOT_REGULAR: return "not regular";
    case CD_SKIP_COUNT: break;
    }
    return "unknown";
}

enum cd_status cd_ingest_new(struct cd_ingest **out, const struct cd_ingest_opts *opts,
                             struct cd_error *err)
{
    *out = NULL;
    if (!opts || (opts->n_operands && !opts->operands))
        return cd_error_set(err, CD_FAILED, "no operand list given");
    size_t limit = opts->max_input_size ? opts->max_input_size : CD_INGEST_DEFAULT_MAX_SIZE;
    if (limit >= SIZE_MAX / 2)
        return cd_error_set(err, CD_FAILED, "maximum input size %zu is too large", limit);
    struct cd_ingest *ing = calloc(1, sizeof *ing);
    if (!ing)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    ing->opts = *opts;
    ing->limit = limit;
    ing->own = calloc(opts->n_own + 1, sizeof *ing->own);
    if (!ing->own) {
        free(ing);
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    for (size_t i = 0; i < opts->n_own; i++) {
        struct stat sb;
        if (opts->own[i] && lstat(opts->own[i], &sb) == 0)
            ing->own[ing->n_own++] = (struct ing_own){sb.st_dev, sb.st_ino};
    }
    /* Allocate a first buffer now, so an empty input still has non-NULL data. */
    if (ing_buf_reserve(ing, ING_BUF_MIN < limit + 1 ? ING_BUF_MIN : limit + 1) != 0) {
        free(ing);
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    *out = ing;
    return CD_OK;
}

bool ing_is_own(const struct cd_ingest *ing, const char *name, ino_t ino, int dirfd)
{
    const char *pre = ing->opts.own_prefix;
    if (pre && *pre && strncmp(name, pre, strlen(pre)) == 0)
        return true;
    for (size_t i = 0; i < ing->n_own; i++) {
        struct stat sb;
        if (ing->own[i].ino == ino && fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
            sb.st_dev == ing->own[i].dev && sb.st_ino == ino)
            return true;
    }
    return false;
}

/* Opens operand i and offers it to the sources in turn: OK when one has claimed it (ing->src set),
 * WARN when it cannot be opened or its source cannot read it, FAILED when out of memory. */
static enum cd_status start_operand(struct cd_ingest *ing, size_t i, struct cd_error *err)
{
    struct ing_operand op = {.path = ing->opts.operands[i], .fd = -1};
    ing->cur = i;
    CD_FORWARD_IF_ERROR(ing_name_set(ing, op.path, NULL, NULL, err));
    op.is_stdin = strcmp(op.path, "-") == 0;
    if (op.is_stdin) {
        op.fd = STDIN_FILENO;
    } else {
        /* O_NONBLOCK: opening a FIFO must not wait for a writer (the stream source waits, with
           a limit). */
        op.fd = open(op.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (op.fd < 0 || fstat(op.fd, &op.sb) != 0) {
            ing_skip(ing, CD_SKIP_UNREADABLE);
            enum cd_status st = cd_error_sys(err, CD_WARN, "cannot %s '%s': %s",
                                             op.fd < 0 ? "open" : "read", ing->name,
                                             strerror(errno));
            if (op.fd >= 0)
                close(op.fd);
            return st;
        }
    }
    enum cd_status st = CD_OK;
    for (size_t k = 0; k < sizeof sources / sizeof sources[0] && !ing->src; k++) {
        void *state = NULL;
        st = sources[k]->open(ing, &op, &state, err);
        if (st != CD_OK)
            break;
        if (state) {
            ing->src = sources[k];
            ing->src_state = state;
        } else {
            /* Declined: a probe may have used the name buffer. */
            st = ing_name_set(ing, op.path, NULL, NULL, err);
            if (st != CD_OK)
                break;
        }
    }
    if (op.fd >= 0 && !op.is_stdin)
        close(op.fd);
    return st;
}

static void stop_source(struct cd_ingest *ing)
{
    if (ing->src)
        ing->src->close(ing->src_state);
    ing->src = NULL;
    ing->src_state = NULL;
}

enum cd_status cd_ingest_next(struct cd_ingest *ing, struct cd_input *in, struct cd_error *err)
{
    if (ing->dead)
        return cd_error_set(err, CD_FATAL, "the input reader failed earlier");
    for (;;) {
        enum cd_status st;
        if (ing->src) {
            st = ing->src->next(ing, ing->src_state, in, err);
            if (st == CD_DONE) {
                stop_source(ing);
                continue;
            }
        } else if (ing->next_operand < ing->opts.n_operands) {
            st = start_operand(ing, ing->next_operand++, err);
            if (st == CD_OK)
                continue;
        } else {
            return CD_DONE;
        }
        if (st == CD_OK)
            return st;
        if (st >= CD_FAILED) { /* out of memory part-way: the walk cannot be trusted to go on */
            ing->dead = true;
            st = CD_FATAL;
        }
        return cd_error_mark(err, st, CD_ERR_INPUT);
    }
}

const struct cd_ingest_stats *cd_ingest_stats(const struct cd_ingest *ing)
{
    return &ing->stats;
}

void cd_ingest_free(struct cd_ingest *ing)
{
    if (!ing)
        return;
    stop_source(ing);
    free(ing->buf);
    free(ing->name);
    free(ing->own);
    free(ing);
}
