/* Ingest, the first stage of the pipeline: walks the command-line operands in order and turns each
 * into inputs, handing directories to ingest_dir.c and archives to ingest_archive.c, and reading
 * plain files itself. It holds one input at a time in one growing buffer. It depends on nothing
 * but the common error helpers and libarchive (through ingest_archive.c). */
#include "ingest_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ING_BUF_MIN ((size_t)64 << 10)

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

void ing_skip(struct cd_ingest *ing, enum cd_skip why)
{
    ing->stats.skipped[why]++;
}

int ing_escape_append(char **dst, size_t *cap, size_t *len, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        /* Worst case: 4 bytes for this character plus the terminating NUL. */
        if (*len + 5 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 256;
            while (ncap < *len + 5)
                ncap *= 2;
            char *n = realloc(*dst, ncap);
            if (!n)
                return -1;
            *dst = n;
            *cap = ncap;
        }
        if (*p < 0x20 || *p == 0x7f) {
            snprintf(*dst + *len, 5, "\\x%02x", *p);
            *len += 4;
        } else if (*p == '\\') {
            (*dst)[(*len)++] = '\\';
            (*dst)[(*len)++] = '\\';
        } else {
            (*dst)[(*len)++] = (char)*p;
        }
    }
    if (!*dst) {
        *dst = malloc(1);
        if (!*dst)
            return -1;
        *cap = 1;
    }
    (*dst)[*len] = '\0';
    return 0;
}

enum cd_status ing_name_set(struct cd_ingest *ing, const char *a, const char *sep, const char *b,
                            struct cd_error *err)
{
    size_t len = 0;
    if (ing_escape_append(&ing->name, &ing->name_cap, &len, a) != 0 ||
        (sep && ing_escape_append(&ing->name, &ing->name_cap, &len, sep) != 0) ||
        (b && ing_escape_append(&ing->name, &ing->name_cap, &len, b) != 0))
        return cd_error_oom(err, CD_FAILED, "out of memory");
    return CD_OK;
}

int ing_buf_reserve(struct cd_ingest *ing, size_t want)
{
    if (want <= ing->buf_cap)
        return 0;
    size_t ncap = ing->buf_cap ? ing->buf_cap : ING_BUF_MIN;
    while (ncap < want)
        ncap = ncap > SIZE_MAX / 2 ? SIZE_MAX : ncap * 2;
    if (ncap > ing->limit + 1)
        ncap = ing->limit + 1;
    if (ncap < want)
        ncap = want;
    uint8_t *n = realloc(ing->buf, ncap);
    if (!n)
        return -1;
    ing->buf = n;
    ing->buf_cap = ncap;
    return 0;
}

enum cd_status ing_emit(struct cd_ingest *ing, size_t len, struct cd_input *in)
{
    if (len == 0) {
        if (ing->opts.skip_empty) {
            ing_skip(ing, CD_SKIP_EMPTY);
            return ING_AGAIN;
        }
        ing->stats.empty++;
    }
    ing->stats.inputs++;
    ing->stats.bytes += len;
    in->name = ing->name;
    in->data = ing->buf;
    in->size = len;
    in->operand = ing->cur;
    return CD_OK;
}

enum cd_status ing_read_fd(struct cd_ingest *ing, int fd, long long size, struct cd_input *in,
                           struct cd_error *err)
{
    if (size >= 0 && (unsigned long long)size > ing->limit) {
        ing_skip(ing, CD_SKIP_TOO_LARGE);
        return cd_error_set(err, CD_WARN,
                            "skipping '%s' (%lld bytes): larger than the %zu-byte limit", ing->name,
                            size, ing->limit);
    }
    /* Room for the whole file and one byte more, to see its end in one read. */
    if (size >= 0 && ing_buf_reserve(ing, (size_t)size + 1) != 0)
        return cd_error_oom(err, CD_FAILED, "out of memory reading '%s' (%lld bytes)", ing->name,
                            size);
    size_t len = 0;
    for (;;) {
        if (len == ing->buf_cap && ing_buf_reserve(ing, len + 1) != 0)
            return cd_error_oom(err, CD_FAILED, "out of memory reading '%s' (%zu bytes so far)",
                                ing->name, len);
        ssize_t n = read(fd, ing->buf + len, ing->buf_cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ing_skip(ing, CD_SKIP_UNREADABLE);
            return cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > ing->limit) {
            ing_skip(ing, CD_SKIP_TOO_LARGE);
            return cd_error_set(err, CD_WARN, "skipping '%s': larger than the %zu-byte limit",
                                ing->name, ing->limit);
        }
    }
    return ing_emit(ing, len, in);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
    uint64_t last = now_ns();
    size_t len = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, 100);
        if (r < 0 && errno != EINTR) {
            ing_skip(ing, CD_SKIP_UNREADABLE);
            return cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
        }
        uint64_t now = now_ns();
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
    ing->ar_fd = -1;
    /* Allocate a first buffer now, so an empty input still has non-NULL data. */
    if (ing_buf_reserve(ing, ING_BUF_MIN < limit + 1 ? ING_BUF_MIN : limit + 1) != 0) {
        free(ing);
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    *out = ing;
    return CD_OK;
}

/* Starts operand i: returns OK with an input (a plain file), WARN, FAILED, or ING_AGAIN when a
 * directory walk or an archive has begun or the operand yielded nothing. */
static enum cd_status start_operand(struct cd_ingest *ing, size_t i, struct cd_input *in,
                                    struct cd_error *err)
{
    const char *path = ing->opts.operands[i];
    enum cd_status st;
    int fd = -1;
    ing->cur = i;
    CD_FORWARD_IF_ERROR(ing_name_set(ing, path, NULL, NULL, err));
    if (strcmp(path, "-") == 0) {
        if (ing->opts.archives_as_raw)
            return ing_read_fd(ing, STDIN_FILENO, -1, in, err);
        enum cd_status ast = ing_archive_open(ing, -1, err);
        return ast == CD_OK ? ING_AGAIN : ast;
    }
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (read_stream waits, with a limit). */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        ing_skip(ing, CD_SKIP_UNREADABLE);
        return cd_error_sys(err, CD_WARN, "cannot open '%s': %s", ing->name, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        ing_skip(ing, CD_SKIP_UNREADABLE);
        st = cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
        goto out;
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        fd = -1;
        st = ing_dir_open(ing, path, err);
        if (st == CD_OK)
            st = ING_AGAIN;
        goto out;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = read_stream(ing, fd, in, err);
        goto out;
    }
    if (!ing->opts.archives_as_raw) {
        st = ing_archive_open(ing, fd, err);
        if (st == CD_OK) {
            fd = -1; /* the archive reader owns it now */
            st = ING_AGAIN;
        }
        if (st != ING_NOT_ARCHIVE)
            goto out;
        /* Not an archive: the probe rewound fd, and the file is one input. The probe may have
         * changed the name buffer; set it again. */
        st = ing_name_set(ing, path, NULL, NULL, err);
        if (st != CD_OK)
            goto out;
    }
    st = ing_read_fd(ing, fd, (long long)sb.st_size, in, err);
out:
    if (fd >= 0)
        close(fd);
    return st;
}

enum cd_status cd_ingest_next(struct cd_ingest *ing, struct cd_input *in, struct cd_error *err)
{
    for (;;) {
        enum cd_status st;
        switch (ing->state) {
        case ING_DIR:
            st = ing_dir_next(ing, in, err);
            if (st == CD_DONE) {
                ing_dir_close(ing);
                continue;
            }
            break;
        case ING_ARCHIVE:
            st = ing_archive_next(ing, in, err);
            if (st == CD_DONE) {
                ing_archive_close(ing);
                continue;
            }
            break;
        case ING_IDLE:
        default:
            if (ing->next_operand >= ing->opts.n_operands)
                return CD_DONE;
            st = start_operand(ing, ing->next_operand++, in, err);
            break;
        }
        if (st != ING_AGAIN)
            return st >= CD_WARN ? cd_error_mark(err, st, CD_ERR_INPUT) : st;
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
    ing_dir_close(ing);
    ing_archive_close(ing);
    free(ing->buf);
    free(ing->name);
    free(ing->ar_last);
    free(ing);
}
