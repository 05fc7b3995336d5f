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

bool cd_env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
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

/* Length of the valid UTF-8 sequence at p (2 to 4), its code point in *cp; 0 when there is
 * none (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short). */
static size_t utf8_seq(const unsigned char *p, uint32_t *cp)
{
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || (p[0] >= 0xf0 && n != 4))
        return 0;
    uint32_t c = p[0] & (0x7fu >> n);
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[k] & 0x3fu);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < least[n] || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
        return 0;
    *cp = c;
    return n;
}

size_t cd_shown_char(const char *s, bool backslash, char out[16])
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp = p[0];
    size_t n = p[0] < 0x80 ? 1 : utf8_seq(p, &cp);
    /* C1 controls (the one-byte CSI among them), and the bidi controls that reorder what a
       terminal or an editor shows (U+061C, U+200E-F, U+202A-E, U+2066-9). */
    bool hide = n == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
                cp == 0x61c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
                (cp >= 0x2066 && cp <= 0x2069);
    if (n == 0)
        n = 1;
    size_t o = 0;
    if (hide)
        for (size_t k = 0; k < n; k++)
            o += (size_t)snprintf(out + o, 16 - o, "\\x%02x", p[k]);
    else if (backslash && p[0] == '\\')
        out[o++] = '\\', out[o++] = '\\';
    else
        for (size_t k = 0; k < n; k++)
            out[o++] = (char)p[k];
    out[o] = '\0';
    return n;
}

const char *cd_shown(const char *s, char *buf, size_t cap)
{
    size_t n = 0;
    char one[16];
    while (*s) {
        size_t took = cd_shown_char(s, true, one), l = strlen(one);
        if (n + l + 4 > cap)
            break;
        memcpy(buf + n, one, l);
        n += l;
        s += took;
    }
    if (*s)
        n += (size_t)snprintf(buf + n, cap - n, "...");
    buf[n] = 0;
    return buf;
}
