/* Error and status helpers shared by every module; depends on nothing else in the project. */
#include "cd_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Fills err with kind, errnum and the formatted message. */
static void error_fill(struct cd_error *err, enum cd_error_kind kind, int errnum, const char *fmt,
                       va_list ap)
{
    err->kind = kind;
    err->errnum = errnum;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

enum cd_status cd_error_set(struct cd_error *err, enum cd_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        error_fill(err, CD_ERR_OTHER, 0, fmt, ap);
        va_end(ap);
    }
    return status;
}

enum cd_status cd_error_oom(struct cd_error *err, enum cd_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        error_fill(err, CD_ERR_NOMEM, 0, fmt, ap);
        va_end(ap);
    }
    return status;
}

enum cd_status cd_error_sys(struct cd_error *err, enum cd_status status, const char *fmt, ...)
{
    int errnum = errno;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        error_fill(err, CD_ERR_OTHER, errnum, fmt, ap);
        va_end(ap);
    }
    return status;
}

enum cd_status cd_error_mark(struct cd_error *err, enum cd_status status, enum cd_error_kind kind)
{
    if (err && err->kind == CD_ERR_OTHER)
        err->kind = kind;
    return status;
}

const char *cd_error_kind_name(enum cd_error_kind kind)
{
    switch (kind) {
    case CD_ERR_OTHER: return "other";
    case CD_ERR_NOMEM: return "out of memory";
    case CD_ERR_INPUT: return "input";
    case CD_ERR_TARGET: return "target";
    case CD_ERR_OUTPUT: return "output";
    case CD_ERR_FOREIGN: return "foreign output";
    }
    return "unknown";
}

const char *cd_status_name(enum cd_status status)
{
    switch (status) {
    case CD_OK: return "ok";
    case CD_DONE: return "done";
    case CD_WARN: return "warn";
    case CD_FAILED: return "failed";
    case CD_FATAL: return "fatal";
    }
    return "unknown";
}

uint64_t cd_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int cd_cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void *cd_memdup(const void *p, size_t len)
{
    void *copy = malloc(len ? len : 1);
    if (copy && len)
        memcpy(copy, p, len);
    return copy;
}

const char *cd_shown(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 8 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            n += (size_t)snprintf(buf + n, cap - n, "\\x%02x", c);
        else if (c == '\\')
            n += (size_t)snprintf(buf + n, cap - n, "\\\\");
        else
            buf[n++] = (char)c;
    }
    if (*s)
        n += (size_t)snprintf(buf + n, cap - n, "...");
    buf[n] = 0;
    return buf;
}
