/* Shared vocabulary of every module: the graded status an engine call returns and the error struct
 * that carries its one-line message. Engine code never prints or exits; it fills a cd_error and
 * returns a status, and only the CLI decides what to show. */
#ifndef CD_COMMON_H
#define CD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Graded result of an engine call, mildest first (libarchive's idea). */
enum cd_status {
    CD_OK = 0,  /* done as asked */
    CD_DONE,    /* end of a stream: nothing more to return */
    CD_WARN,    /* this item was skipped, the operation goes on; the error says why */
    CD_FAILED,  /* this operation failed; the handle is still usable */
    CD_FATAL,   /* stop: the handle is unusable */
};

#define CD_ERROR_MAX 1024

/* What a failure is about, whatever module reports it: the command line maps kinds to exit codes
 * in one place, and a caller acts on a kind without reading the message. */
enum cd_error_kind {
    CD_ERR_OTHER = 0, /* no particular kind: the operation that failed tells */
    CD_ERR_NOMEM,     /* out of memory */
    CD_ERR_INPUT,     /* an operand or an input cannot be read */
    CD_ERR_TARGET,    /* the target cannot be run, or broke the fork-server protocol */
    CD_ERR_OUTPUT,    /* the seeds, manifest, reproducers or state cannot be written */
    CD_ERR_FOREIGN,   /* an output path holds files this tool did not write */
};

/* The detail of the last non-OK status: one line, lower case, no full stop, path quoted. */
struct cd_error {
    enum cd_error_kind kind;
    int errnum;       /* errno of the system call that failed, 0 when none did */
    char msg[CD_ERROR_MAX];
};

/* Sets err's message (when err is non-NULL), kind OTHER and no errno, and returns status
 * unchanged, so callers can write `return cd_error_set(err, CD_FAILED, "...", ...)`. */
enum cd_status cd_error_set(struct cd_error *err, enum cd_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* As cd_error_set, for an allocation that failed: kind NOMEM. */
enum cd_status cd_error_oom(struct cd_error *err, enum cd_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* As cd_error_set, for a system call that failed: errnum is errno as it is on entry. */
enum cd_status cd_error_sys(struct cd_error *err, enum cd_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Gives err (when non-NULL) kind unless it has one already, so that a module can say what its
 * failures mean without hiding an out-of-memory beneath; returns status unchanged. */
enum cd_status cd_error_mark(struct cd_error *err, enum cd_status status, enum cd_error_kind kind);

/* Returns a static name for kind ("other", "out of memory", "input", "target", "output",
 * "foreign output"). */
const char *cd_error_kind_name(enum cd_error_kind kind);

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

/* Whether the environment variable name is on, as AFL++ reads its switches: set, not empty and
 * not "0". */
bool cd_env_on(const char *name);

/* A malloc'd copy of the len bytes at p (a valid pointer even when len is 0), or NULL when out
 * of memory. */
void *cd_memdup(const void *p, size_t len);

/* strcmp of two char * elements, for qsort and bsearch over arrays of strings. */
int cd_cmp_strp(const void *a, const void *b);

/* The one binary search of sorted keys: the first index i below n whose key, the unsigned integer
 * of width bytes (4 or 8) at base + i * stride + offset, is not below key; n when none. An array
 * of uint32_t has stride sizeof(uint32_t) and offset 0; an array of records, sizeof a record and
 * offsetof its key. Inline: set lookups run in the engine's innermost loops, and a constant width
 * folds away. */
static inline size_t cd_lower_bound(const void *base, size_t n, size_t stride, size_t offset,
                                    size_t width, uint64_t key)
{
    if (!n)
        return 0; /* base may be NULL then */
    const unsigned char *b = (const unsigned char *)base + offset;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t v32 = 0;
        uint64_t v = 0;
        if (width == sizeof v32) {
            memcpy(&v32, b + mid * stride, sizeof v32);
            v = v32;
        } else {
            memcpy(&v, b + mid * stride, sizeof v);
        }
        if (v < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* cd_lower_bound over uint32_t keys. */
static inline size_t cd_lower_bound_u32(const void *base, size_t n, size_t stride, size_t offset,
                                        uint32_t key)
{
    return cd_lower_bound(base, n, stride, offset, sizeof(uint32_t), key);
}

/* cd_lower_bound over uint64_t keys. */
static inline size_t cd_lower_bound_u64(const void *base, size_t n, size_t stride, size_t offset,
                                        uint64_t key)
{
    return cd_lower_bound(base, n, stride, offset, sizeof(uint64_t), key);
}

/* The one rule for what reaches a terminal: how the character at s (not NUL) is shown. Writes
 * into out (NUL-terminated, at most 12 bytes with it) either the character as it is, or its
 * bytes as "\xHH" when it is a control (C0, DEL, C1 raw or UTF-8-encoded), a bidirectional
 * override or isolate, or not valid UTF-8; a backslash is doubled when backslash is set.
 * Returns how many bytes of s it took (1 to 4). */
size_t cd_shown_char(const char *s, bool backslash, char out[16]);

/* Copies s into buf (cap at least 16) as one printable line, each character as cd_shown_char
 * shows it (backslashes doubled), cut with "..." where it does not fit. Returns buf. For text
 * read from files (names, manifests) or from a target that a message or a listing shows. */
const char *cd_shown(const char *s, char *buf, size_t cap);

#endif
