/* Decompression ahead of the archive reader: for a compressed archive file (tar.zst, tar.gz,
 * ...), one thread runs libarchive's decompression filters and hands the decompressed stream to
 * the reader in a small ring of fixed chunks, so that decompression and entry parsing overlap as
 * they do in `tar --zstd -x` (two processes there, two threads here). Memory stays bounded by
 * the ring. The thread only ever sees the stream as bytes: it uses libarchive's "raw" format to
 * undo the compression, never to decide what is an archive. */
#include "ingest_internal.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
};

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
    bool failed = false;
    size_t slot = 0, fill = 0;
    if (!a) {
        failed = true;
        msg = "out of memory";
        goto out;
    }
    if (archive_read_support_filter_all(a) < ARCHIVE_WARN ||
        archive_read_support_format_raw(a) != ARCHIVE_OK ||
        archive_read_open_fd(a, p->fd, PIPE_CHUNK) < ARCHIVE_WARN ||
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

int ing_pipe_open(struct ing_pipe **out, struct archive *a, int fd)
{
    *out = NULL;
    struct ing_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return ENOMEM;
    p->fd = fd;
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
