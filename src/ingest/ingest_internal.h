/* What the ingest module's files share. ingest.c walks the operands and hands each to the first
 * source that claims it, from one table: a source is a kind of operand (a directory, an archive,
 * a FIFO or device, a plain file) behind {open, next, close}, with its state its own, as
 * libarchive registers its formats. ingest_common.c holds the helpers every source uses (the one
 * input buffer, its name, the counters); it calls nothing else in the module. Nothing outside
 * src/ingest/ includes this. */
#ifndef CD_INGEST_INTERNAL_H
#define CD_INGEST_INTERNAL_H

#include "cd_ingest.h"

#include <sys/stat.h>

struct ing_source;

/* The input buffer's first size. */
#define ING_BUF_MIN ((size_t)64 << 10)

struct cd_ingest {
    struct cd_ingest_opts opts;
    size_t limit;                /* max_input_size, resolved */
    size_t next_operand;         /* the next operand to start */
    size_t cur;                  /* the operand being read */
    const struct ing_source *src; /* the source reading it, or NULL between operands */
    void *src_state;             /* what src->open made */
    bool dead;                   /* a FATAL was returned: every later call returns it again */

    uint8_t *buf;                /* the one input held: grows up to limit + 1 bytes */
    size_t buf_cap;
    char *name;                  /* the current provenance name, escaped */
    size_t name_cap;

    struct cd_ingest_stats stats;
    struct ing_own { dev_t dev; ino_t ino; } *own; /* opts.own that existed at the start */
    size_t n_own;
};

/* Whether the entry name (inode ino) of the open directory dirfd, below an operand, is one of the
 * run's own outputs (cd_ingest_opts.own, own_prefix). */
bool ing_is_own(const struct cd_ingest *ing, const char *name, ino_t ino, int dirfd);

/* An operand as the walk found it, offered to each source in turn. */
struct ing_operand {
    const char *path;            /* as given; "-" is stdin */
    int fd;                      /* open on it (O_NONBLOCK), stdin's for "-"; a source that keeps
                                    it sets this to -1, else the walk closes it after open */
    struct stat sb;              /* fstat of fd; zeroed for "-" */
    bool is_stdin;
};

/* A kind of operand. open claims the operand and starts reading it: OK with *state set, OK with
 * *state NULL when the operand is not of this kind (the next source is asked), WARN when it is
 * but cannot be read (counted, err names it), FAILED when out of memory. next returns OK with
 * *in filled, WARN for a skipped item (the source goes on), FAILED, or DONE at the end. close
 * frees what open made. ing->name holds the operand's name when open is called. */
struct ing_source {
    const char *name;
    enum cd_status (*open)(struct cd_ingest *ing, struct ing_operand *op, void **state,
                           struct cd_error *err);
    enum cd_status (*next)(struct cd_ingest *ing, void *state, struct cd_input *in,
                           struct cd_error *err);
    void (*close)(void *state);
};

/* The sources themselves are declared beside their table, in ingest.c. */

/* Sets ing->name to the escaped concatenation of a, sep and b (sep and b may be NULL). Returns
 * OK or FAILED (out of memory). */
enum cd_status ing_name_set(struct cd_ingest *ing, const char *a, const char *sep, const char *b,
                            struct cd_error *err);

/* Appends the escaped form of s to *dst (NUL-terminated, capacity *cap). Returns 0 or -1. */
int ing_escape_append(char **dst, size_t *cap, size_t *len, const char *s);

/* Makes sure ing->buf holds at least want bytes (want <= limit + 1). Returns 0 or -1. */
int ing_buf_reserve(struct cd_ingest *ing, size_t want);

/* Fills *in from ing->buf[0..len) and ing->name, counting it, and returns OK; or, when it is empty
 * and skip_empty is set, counts the skip and returns DONE (nothing to return). */
enum cd_status ing_emit(struct cd_ingest *ing, size_t len, struct cd_input *in);

/* Reads the file open at fd (size from fstat, or -1 when unknown) into ing->buf as the input
 * named ing->name, then fills *in. Returns what ing_emit returns, WARN (too large or a read error,
 * counted), or FAILED (out of memory). Does not close fd. */
enum cd_status ing_read_fd(struct cd_ingest *ing, int fd, long long size, struct cd_input *in,
                           struct cd_error *err);

/* Counts a skip of the current item. */
void ing_skip(struct cd_ingest *ing, enum cd_skip why);

/* Decompression thread (ingest_pipe.c). ing_pipe_open starts a thread that undoes every
 * compression filter of the file or stream at fd (positioned at its start; an uncompressed stream
 * passes through) and opens reader a, which must have its formats set and no filters, on the
 * decompressed stream (a failure to open is left in a, for its first header to report). The
 * thread ends the stream with an error when opts' stop flag, deadline or idle limit says so, or
 * past the inflation bound. Returns 0 with *out owned, or an errno value when the thread cannot be
 * started. ing_pipe_free stops and joins the thread; free the reader first. NULL is a no-op. fd
 * stays the caller's; opts is borrowed for the thread's life. */
struct archive;
struct ing_pipe;
int ing_pipe_open(struct ing_pipe **out, struct archive *a, int fd,
                  const struct cd_ingest_opts *opts);
void ing_pipe_free(struct ing_pipe *p);
/* Why the thread ended the stream early (damage, a stop, the inflation bound), or NULL. */
const char *ing_pipe_error(struct ing_pipe *p);

#endif
