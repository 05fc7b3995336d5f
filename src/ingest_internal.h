/* Shared state of the ingest module's three files: ingest.c walks the operands and reads plain
 * files, ingest_dir.c walks directories, ingest_archive.c streams archive entries through
 * libarchive. Nothing outside src/ingest*.c includes this. */
#ifndef CD_INGEST_INTERNAL_H
#define CD_INGEST_INTERNAL_H

#include "cd_ingest.h"

struct archive;
struct archive_entry;
struct ing_dir;
struct ing_pipe;

/* Internal status of a step that may have nothing to return: go on to the next item. */
#define ING_AGAIN ((enum cd_status)100)
/* Internal status of the archive probe: the file is not an archive, read it raw. */
#define ING_NOT_ARCHIVE ((enum cd_status)101)

enum ing_state { ING_IDLE, ING_DIR, ING_ARCHIVE };

struct cd_ingest {
    struct cd_ingest_opts opts;
    size_t limit;                /* max_input_size, resolved */
    size_t next_operand;         /* the next operand to start */
    size_t cur;                  /* the operand being read */
    enum ing_state state;

    uint8_t *buf;                /* the one input held: grows up to limit + 1 bytes */
    size_t buf_cap;
    char *name;                  /* the current provenance name, escaped */
    size_t name_cap;

    struct ing_dir *dir;         /* ING_DIR: the walk */
    struct archive *ar;          /* ING_ARCHIVE: the reader */
    int ar_fd;                   /* its descriptor, or -1 (stdin is not ours to close) */
    struct ing_pipe *ar_pipe;    /* the decompression thread feeding ar, or NULL */
    struct archive_entry *ar_entry; /* the header the probe read, owned by ar */
    bool ar_header_ready;        /* the probe already read the first header */
    unsigned ar_retries;         /* consecutive ARCHIVE_RETRY headers */
    char *ar_last;               /* escaped name of the last entry read, for messages */
    size_t ar_last_cap;

    struct cd_ingest_stats stats;
};

/* Sets ing->name to the escaped concatenation of a, sep and b (sep and b may be NULL). Returns
 * OK or FAILED (out of memory). */
enum cd_status ing_name_set(struct cd_ingest *ing, const char *a, const char *sep, const char *b,
                            struct cd_error *err);

/* Appends the escaped form of s to *dst (NUL-terminated, capacity *cap). Returns 0 or -1. */
int ing_escape_append(char **dst, size_t *cap, size_t *len, const char *s);

/* Makes sure ing->buf holds at least want bytes (want <= limit + 1). Returns 0 or -1. */
int ing_buf_reserve(struct cd_ingest *ing, size_t want);

/* Reads the file open at fd (size from fstat, or -1 when unknown) into ing->buf as the input
 * named ing->name, then fills *in. Returns OK, WARN (too large or read error, counted), or
 * ING_AGAIN (an empty input skipped). Does not close fd. */
enum cd_status ing_read_fd(struct cd_ingest *ing, int fd, long long size, struct cd_input *in,
                           struct cd_error *err);

/* Fills *in from ing->buf[0..len) and ing->name, counting it; or skips it when it is empty and
 * skip_empty is set (returns ING_AGAIN). */
enum cd_status ing_emit(struct cd_ingest *ing, size_t len, struct cd_input *in);

/* Counts a skip of the current item. */
void ing_skip(struct cd_ingest *ing, enum cd_skip why);

/* Directory walk (ingest_dir.c). ing_dir_open starts a walk of the directory operand at path,
 * returning OK, or WARN when the directory itself cannot be read. ing_dir_next returns OK, WARN,
 * FAILED, or DONE at the end of the walk. ing_dir_close frees the walk; NULL is a no-op. */
enum cd_status ing_dir_open(struct cd_ingest *ing, const char *path, struct cd_error *err);
enum cd_status ing_dir_next(struct cd_ingest *ing, struct cd_input *in, struct cd_error *err);
void ing_dir_close(struct cd_ingest *ing);

/* Archive streaming (ingest_archive.c). ing_archive_open probes the file at fd (or stdin when fd
 * is -1), the operand ing->opts.operands[ing->cur]: OK when it is an archive with entries (state
 * becomes ING_ARCHIVE and the archive owns fd), ING_AGAIN for an empty archive on stdin,
 * ING_NOT_ARCHIVE when a file is not an archive or one without entries (the caller reads it raw;
 * fd is rewound), WARN when it is a damaged archive or stdin holds none, FAILED when out of
 * memory. Unless OK, the caller still
 * owns fd. ing_archive_next returns OK, WARN, FAILED, or DONE at the end of the archive (or after
 * the WARN for damage that ends it). ing_archive_close frees the reader and closes its fd. */
enum cd_status ing_archive_open(struct cd_ingest *ing, int fd, struct cd_error *err);
enum cd_status ing_archive_next(struct cd_ingest *ing, struct cd_input *in, struct cd_error *err);
void ing_archive_close(struct cd_ingest *ing);

/* Decompression thread (ingest_pipe.c). ing_pipe_open starts a thread that undoes every
 * compression filter of the file or stream at fd (positioned at its start; an uncompressed stream
 * passes through) and opens reader a, which must have its formats set and no filters, on the
 * decompressed stream (a failure to open is left in a, for its first header to report). The
 * thread ends the stream with an error when opts' stop flag, deadline or idle limit says so, or
 * past the inflation bound. Returns 0 with *out owned, or an errno value when the thread cannot be
 * started. ing_pipe_free stops and joins the thread; free the reader first. NULL is a no-op. fd
 * stays the caller's; opts is borrowed for the thread's life. */
int ing_pipe_open(struct ing_pipe **out, struct archive *a, int fd,
                  const struct cd_ingest_opts *opts);
void ing_pipe_free(struct ing_pipe *p);
/* Why the thread ended the stream early (damage, a stop, the inflation bound), or NULL. */
const char *ing_pipe_error(struct ing_pipe *p);

#endif
