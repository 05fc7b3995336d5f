/* The helpers every ingest source shares: the one input buffer, the current input's name, and
 * the counters. A leaf: it calls nothing else in the module. */
#include "ingest_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


void ing_skip(struct cd_ingest *ing, enum cd_skip why)
{
    ing->stats.skipped[why]++;
}

int ing_escape_append(char **dst, size_t *cap, size_t *len, const char *s)
{
    char one[16];
    for (const char *p = s; *p;) {
        size_t took = cd_shown_char(p, true, one), l = strlen(one);
        p += took;
        if (*len + l + 1 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 256;
            while (ncap < *len + l + 1)
                ncap *= 2;
            char *n = realloc(*dst, ncap);
            if (!n)
                return -1;
            *dst = n;
            *cap = ncap;
        }
        memcpy(*dst + *len, one, l);
        *len += l;
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
            return CD_DONE;
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
