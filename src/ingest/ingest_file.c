/* Operands read whole as one input: a plain file (not an archive, or with --raw-archives), and a
 * stream, a FIFO, a device or stdin taken raw, read to its end with a limit on how long it may
 * stay silent. */
#include "ingest_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The operand's descriptor, kept from open to close; size from fstat, or -1 for a stream. */
struct ing_whole {
    int fd;
    long long size;
    bool read;
    bool own_fd;                 /* stdin is not ours to close */
    bool stream;                 /* no regular file: wait for data with limits */
};

/* Reads an operand that is no regular file (opened O_NONBLOCK) to its end as one input. A FIFO
 * without a writer reads as empty at once, so the end counts only once poll has reported the
 * descriptor ready; until then the wait is checked every 100 ms against the stop flag, the
 * deadline and the idle limit, so that a FIFO nobody writes to neither hangs the run nor passes
 * for an empty input. */
static enum cd_status read_stream(struct cd_ingest *ing, int fd, struct cd_input *in,
                                  struct cd_error *err)
{
    uint64_t idle_ns = (uint64_t)(ing->opts.stream_idle_ms ? ing->opts.stream_idle_ms
                                                            : CD_INGEST_STREAM_IDLE_MS) * 1000000ull;
    uint64_t last = cd_now_ns();
    size_t len = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, 100);
        if (r < 0 && errno != EINTR) {
            ing_skip(ing, CD_SKIP_UNREADABLE);
            return cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
        }
        uint64_t now = cd_now_ns();
        if (r <= 0) {
            if (ing->opts.stop && *ing->opts.stop) {
                ing_skip(ing, CD_SKIP_UNREADABLE);
                return cd_error_set(err, CD_WARN, "stopped reading '%s'", ing->name);
            }
            if ((ing->opts.deadline_ns && now >= ing->opts.deadline_ns) || now - last >= idle_ns) {
                ing_skip(ing, CD_SKIP_UNREADABLE);
                return cd_error_set(err, CD_WARN, "skipping '%s': nothing written to it for %.0f s",
                                    ing->name, (double)(now - last) / 1e9);
            }
            continue;
        }
        if (len == ing->buf_cap && ing_buf_reserve(ing, len + 1) != 0)
            return cd_error_oom(err, CD_FAILED, "out of memory");
        ssize_t n = read(fd, ing->buf + len, ing->buf_cap - len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0) {
            ing_skip(ing, CD_SKIP_UNREADABLE);
            return cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
        }
        if (n == 0)
            return ing_emit(ing, len, in);
        len += (size_t)n;
        last = now;
        if (len > ing->limit) {
            ing_skip(ing, CD_SKIP_TOO_LARGE);
            return cd_error_set(err, CD_WARN, "skipping '%s': larger than the %zu-byte limit",
                                ing->name, ing->limit);
        }
    }
}

/* Takes the operand's descriptor when stream says it is of this kind. */
static enum cd_status whole_open(struct ing_operand *op, bool mine, bool stream, void **state,
                                 struct cd_error *err)
{
    *state = NULL;
    if (!mine)
        return CD_OK;
    struct ing_whole *w = calloc(1, sizeof *w);
    if (!w)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    *w = (struct ing_whole){.fd = op->fd, .size = -1, .own_fd = !op->is_stdin, .stream = stream};
    if (S_ISREG(op->sb.st_mode) && !op->is_stdin)
        w->size = (long long)op->sb.st_size;
    op->fd = -1;
    *state = w;
    return CD_OK;
}

static void whole_close(void *state)
{
    struct ing_whole *w = state;
    if (w && w->own_fd)
        close(w->fd);
    free(w);
}

/* A FIFO, a device, or stdin with archives read raw. */
static enum cd_status stream_open(struct cd_ingest *ing, struct ing_operand *op, void **state,
                                  struct cd_error *err)
{
    bool mine = op->is_stdin ? ing->opts.archives_as_raw
                             : !S_ISREG(op->sb.st_mode) && !S_ISDIR(op->sb.st_mode);
    return whole_open(op, mine, true, state, err);
}

/* A regular file no other source claimed. */
static enum cd_status file_open(struct cd_ingest *ing, struct ing_operand *op, void **state,
                                struct cd_error *err)
{
    (void)ing;
    return whole_open(op, !op->is_stdin && S_ISREG(op->sb.st_mode), false, state, err);
}

/* The operand as one input, then the end. */
static enum cd_status whole_next(struct cd_ingest *ing, void *state, struct cd_input *in,
                                 struct cd_error *err)
{
    struct ing_whole *w = state;
    if (w->read)
        return CD_DONE;
    w->read = true;
    return w->stream ? read_stream(ing, w->fd, in, err) : ing_read_fd(ing, w->fd, w->size, in, err);
}

const struct ing_source ing_source_stream = {"stream", stream_open, whole_next, whole_close};
const struct ing_source ing_source_file = {"file", file_open, whole_next, whole_close};
