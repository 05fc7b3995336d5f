/* Decompression ahead of the archive reader: for a compressed archive file (tar.zst, tar.gz,
 * ...), one thread runs libarchive's decompression filters and hands the decompressed stream to
 * the reader in a small ring of fixed chunks, so that decompression and entry parsing overlap as
 * they do in `tar --zstd -x` (two processes there, two threads here). Memory stays bounded by
 * the ring. The thread only ever sees the stream as bytes: it uses libarchive's "raw" format to
 * undo the compression, never to decide what is an archive.
 * It is also where the compressed stream's time and size are bounded: it reads the descriptor
 * itself, waiting at most 100 ms at a time so that the stop flag, the deadline and the idle limit
 * end a wait on a pipe nobody writes to, and it gives the archive up once the filters have
 * produced more than the inflation bound (a decompression bomb, however many filters deep). */
#include "ingest_internal.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PIPE_CHUNKS 4
#define PIPE_CHUNK ((size_t)1 << 20)

struct ing_pipe {
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint8_t *chunk[PIPE_CHUNKS];
    size_t len[PIPE_CHUNKS];
    size_t head;        /* the next chunk the reader takes */
    size_t count;       /* chunks filled and not yet released */
    bool holding;       /* the reader holds chunk head - 1 */
    bool eof, stop;
    char msg[256];      /* the decompressor's error, when eof came from one */
    int fd;
    const struct cd_ingest_opts *opts; /* stop flag, deadline, idle limit, inflation bound */
    uint64_t raw;       /* bytes read from fd */
    uint64_t out;       /* bytes the filters produced */
    uint8_t in[1 << 16];
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Why the thread must stop now (the reader went away, the user's stop flag, the deadline), or
 * NULL. */
static const char *must_stop(struct ing_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    bool stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    if (stop || (p->opts->stop && *p->opts->stop))
        return "stopped reading";
    if (p->opts->deadline_ns && now_ns() >= p->opts->deadline_ns)
        return "stopped reading at the time limit";
    return NULL;
}

/* libarchive's read callback on fd: waits for data 100 ms at a time, checking must_stop and the
 * idle limit between waits (a regular file is always ready). */
static la_ssize_t fd_read(struct archive *a, void *arg, const void **buf)
{
    struct ing_pipe *p = arg;
    unsigned idle_ms = p->opts->stream_idle_ms ? p->opts->stream_idle_ms
                                               : CD_INGEST_STREAM_IDLE_MS;
    uint64_t since = now_ns();
    for (;;) {
        struct pollfd pf = {p->fd, POLLIN, 0};
        int r = poll(&pf, 1, 100);
        if (r < 0 && errno != EINTR) {
            archive_set_error(a, errno, "%s", strerror(errno));
            return -1;
        }
        if (r <= 0) {
            const char *why = must_stop(p);
            uint64_t idle = now_ns() - since;
            if (!why && idle < (uint64_t)idle_ms * 1000000u)
                continue;
            if (why)
                archive_set_error(a, EINTR, "%s", why);
            else
                archive_set_error(a, ETIMEDOUT, "nothing written to it for %.0f s",
                                  (double)idle / 1e9);
            return -1;
        }
        ssize_t n = read(p->fd, p->in, sizeof p->in);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0) {
            archive_set_error(a, errno, "%s", strerror(errno));
            return -1;
        }
        p->raw += (uint64_t)n;
        *buf = p->in;
        return n;
    }
}

/* Publishes chunk slot with len bytes; returns false when asked to stop. */
static bool publish(struct ing_pipe *p, size_t slot, size_t len)
{
    pthread_mutex_lock(&p->mu);
    p->len[slot] = len;
    p->count++;
    pthread_cond_broadcast(&p->cv);
    bool stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    return !stop;
}

/* Waits until the slot after the filled ones is free (not filled, not held by the reader). */
static bool wait_free(struct ing_pipe *p)
{
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->count + (p->holding ? 1 : 0) >= PIPE_CHUNKS)
        pthread_cond_wait(&p->cv, &p->mu);
    bool stop = p->stop;
    pthread_mutex_unlock(&p->mu);
    return !stop;
}

static void finish(struct ing_pipe *p, const char *msg)
{
    pthread_mutex_lock(&p->mu);
    if (msg)
        snprintf(p->msg, sizeof p->msg, "%s", msg);
    p->eof = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void *decompress(void *arg)
{
    struct ing_pipe *p = arg;
    struct archive *a = archive_read_new();
    struct archive_entry *e = NULL;
    const char *msg = NULL;
    char bomb[200];
    bool failed = false;
    size_t slot = 0, fill = 0;
    if (!a) {
        failed = true;
        msg = "out of memory";
        goto out;
    }
    if (archive_read_support_filter_all(a) < ARCHIVE_WARN ||
        archive_read_support_format_raw(a) != ARCHIVE_OK ||
        archive_read_open(a, p, NULL, fd_read, NULL) < ARCHIVE_WARN ||
        archive_read_next_header(a, &e) < ARCHIVE_WARN) {
        failed = true;
        msg = archive_error_string(a);
        goto out;
    }
    if (!wait_free(p))
        goto out;
    for (;;) {
        const void *blk;
        size_t sz;
        la_int64_t off;
        int r = archive_read_data_block(a, &blk, &sz, &off);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            failed = true;
            msg = archive_error_string(a);
            break; /* hand over the good bytes before the damage first */
        }
        p->out += sz;
        uint64_t floor = p->opts->inflate_floor ? p->opts->inflate_floor : CD_INGEST_INFLATE_FLOOR;
        if (p->out > floor + CD_INGEST_INFLATE_RATIO * p->raw) {
            snprintf(bomb, sizeof bomb, "a decompression bomb: %llu bytes decompressed from %llu, "
                     "over the bound of %llu + %u x the compressed bytes",
                     (unsigned long long)p->out, (unsigned long long)p->raw,
                     (unsigned long long)floor, CD_INGEST_INFLATE_RATIO);
            failed = true;
            msg = bomb;
            break;
        }
        if ((msg = must_stop(p)) != NULL) {
            failed = true;
            break;
        }
        const uint8_t *b = blk;
        while (sz > 0) {
            size_t take = PIPE_CHUNK - fill < sz ? PIPE_CHUNK - fill : sz;
            memcpy(p->chunk[slot] + fill, b, take);
            fill += take;
            b += take;
            sz -= take;
            if (fill == PIPE_CHUNK) {
                if (!publish(p, slot, fill) || !wait_free(p))
                    goto out;
                slot = (slot + 1) % PIPE_CHUNKS;
                fill = 0;
            }
        }
    }
    if (fill > 0)
        publish(p, slot, fill);
out:
    finish(p, failed ? (msg && *msg ? msg : "decompression failed") : NULL);
    archive_read_free(a);
    return NULL;
}

static la_ssize_t pipe_read(struct archive *a, void *arg, const void **buf)
{
    struct ing_pipe *p = arg;
    pthread_mutex_lock(&p->mu);
    if (p->holding) { /* the reader is done with the previous chunk */
        p->holding = false;
        pthread_cond_broadcast(&p->cv);
    }
    while (p->count == 0 && !p->eof)
        pthread_cond_wait(&p->cv, &p->mu);
    la_ssize_t n = 0;
    if (p->count > 0) {
        size_t slot = p->head;
        *buf = p->chunk[slot];
        n = (la_ssize_t)p->len[slot];
        p->head = (slot + 1) % PIPE_CHUNKS;
        p->count--;
        p->holding = true;
    } else if (p->msg[0]) {
        archive_set_error(a, EIO, "%s", p->msg);
        n = -1;
    }
    pthread_mutex_unlock(&p->mu);
    return n;
}

const char *ing_pipe_error(struct ing_pipe *p)
{
    if (!p)
        return NULL;
    pthread_mutex_lock(&p->mu);
    const char *m = p->eof && p->msg[0] ? p->msg : NULL;
    pthread_mutex_unlock(&p->mu);
    return m;
}

void ing_pipe_free(struct ing_pipe *p)
{
    if (!p)
        return;
    if (p->started) {
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->thread, NULL);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    for (size_t k = 0; k < PIPE_CHUNKS; k++)
        free(p->chunk[k]);
    free(p);
}

int ing_pipe_open(struct ing_pipe **out, struct archive *a, int fd,
                  const struct cd_ingest_opts *opts)
{
    *out = NULL;
    struct ing_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return ENOMEM;
    p->fd = fd;
    p->opts = opts;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    for (size_t k = 0; k < PIPE_CHUNKS; k++) {
        p->chunk[k] = malloc(PIPE_CHUNK);
        if (!p->chunk[k]) {
            ing_pipe_free(p);
            return ENOMEM;
        }
    }
    int e = pthread_create(&p->thread, NULL, decompress, p);
    if (e) {
        ing_pipe_free(p);
        return e;
    }
    p->started = true;
    /* A failure here (the stream is damaged from its first bytes) stays in a, whose first
     * header read then reports it. */
    archive_read_open(a, p, NULL, pipe_read, NULL);
    *out = p;
    return 0;
}
