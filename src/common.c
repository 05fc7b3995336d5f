/* Error and status helpers shared by every module; depends on nothing else in the project. */
#include "cd_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum cd_status cd_error_set(struct cd_error *err, enum cd_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
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
