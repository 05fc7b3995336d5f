/* Shared vocabulary of every module: the graded status an engine call returns and the error struct
 * that carries its one-line message. Engine code never prints or exits; it fills a cd_error and
 * returns a status, and only the CLI decides what to show. */
#ifndef CD_COMMON_H
#define CD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Graded result of an engine call, mildest first (libarchive's idea). */
enum cd_status {
    CD_OK = 0,  /* done as asked */
    CD_DONE,    /* end of a stream: nothing more to return */
    CD_WARN,    /* this item was skipped, the operation goes on; the error says why */
    CD_FAILED,  /* this operation failed; the handle is still usable */
    CD_FATAL,   /* stop: the handle is unusable */
};

#define CD_ERROR_MAX 1024

/* The detail of the last non-OK status: one line, lower case, no full stop, path quoted. */
struct cd_error {
    char msg[CD_ERROR_MAX];
};

/* Sets err's message (when err is non-NULL) and returns status unchanged, so callers can write
 * `return cd_error_set(err, CD_FAILED, "...", ...)`. */
enum cd_status cd_error_set(struct cd_error *err, enum cd_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Returns a static name for status ("ok", "done", "warn", "failed", "fatal"). */
const char *cd_status_name(enum cd_status status);

/* Forwards a FAILED or FATAL status to the caller (zstd's FORWARD_IF_ERROR). */
#define CD_FORWARD_IF_ERROR(expr)                                                                 \
    do {                                                                                          \
        enum cd_status cd_fwd_st_ = (expr);                                                       \
        if (cd_fwd_st_ >= CD_FAILED)                                                              \
            return cd_fwd_st_;                                                                    \
    } while (0)

/* Monotonic clock in nanoseconds. */
uint64_t cd_now_ns(void);

/* A malloc'd copy of the len bytes at p (a valid pointer even when len is 0), or NULL when out
 * of memory. */
void *cd_memdup(const void *p, size_t len);

/* Copies s into buf (cap at least 16) as one printable line: bytes below 0x20 and 0x7f as "\xHH",
 * a backslash doubled, cut with "..." where it does not fit. Returns buf. For text read from
 * files (names, manifests) that a message or a listing shows. */
const char *cd_shown(const char *s, char *buf, size_t cap);

#endif
