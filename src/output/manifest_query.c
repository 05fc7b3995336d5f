/* What a manifest read back answers: its bugs (one crash state reached from several targets is
 * one bug), seeds by SHA-1 prefix, reproducers and labels by their keys, and its examples' files,
 * read through the directory beside it and checked against the size and SHA-1 it gives. */
#include "cd_manifest.h"
#include "common/cd_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int bug_cmp(const void *key, const void *elem)
{
    uint32_t id = *(const uint32_t *)key, other = ((const struct cd_manifest_bug *)elem)->id;
    return (id > other) - (id < other);
}

size_t cd_manifest_bug_first(const struct cd_manifest *m, size_t i)
{
    const struct cd_manifest_bug *b = &m->bugs[i];
    for (size_t k = 0; k < i; k++) {
        const struct cd_manifest_bug *c = &m->bugs[k];
        bool same = cd_labels_in_target(c->id, 0) == cd_labels_in_target(b->id, 0) &&
                    strcmp(c->kind, b->kind) == 0 &&
                    !strcmp(c->access ? c->access : "", b->access ? b->access : "");
        for (size_t f = 0; same && (c->frames[f] || b->frames[f]); f++)
            same = c->frames[f] && b->frames[f] && strcmp(c->frames[f], b->frames[f]) == 0;
        if (same)
            return k;
    }
    return i;
}

const struct cd_manifest_bug *cd_manifest_find_bug(const struct cd_manifest *m, uint32_t id)
{
    return m->n_bugs ? bsearch(&id, m->bugs, m->n_bugs, sizeof *m->bugs, bug_cmp) : NULL;
}

const struct cd_manifest_example *cd_manifest_find_seed(const struct cd_manifest *m,
                                                        const char *sha1)
{
    size_t n = strlen(sha1);
    const struct cd_manifest_example *hit = NULL;
    if (n < 4 || n > 40)
        return NULL;
    for (size_t i = 0; i < m->n_seeds; i++) {
        if (strncmp(m->seeds[i].sha1, sha1, n) != 0)
            continue;
        if (hit)
            return NULL; /* ambiguous prefix */
        hit = &m->seeds[i];
    }
    return hit;
}

/* bsearch's order of a sha1 key among examples, which the reader sorts by sha1. */
static int sha1_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const struct cd_manifest_example *)elem)->sha1);
}

const struct cd_manifest_example *cd_manifest_find_reproducer(const struct cd_manifest *m,
                                                              const char *sha1)
{
    return m->n_reproducers ? bsearch(sha1, m->reproducers, m->n_reproducers,
                                      sizeof *m->reproducers, sha1_cmp)
                            : NULL;
}

const struct cd_manifest_label *cd_manifest_find_label(const struct cd_manifest *m, uint32_t id)
{
    size_t i = cd_lower_bound_u32(m->labels, m->n_labels, sizeof *m->labels,
                                  offsetof(struct cd_manifest_label, id), id);
    return i < m->n_labels && m->labels[i].id == id ? &m->labels[i] : NULL;
}

/* The largest example read back: the tool never writes a larger one (--max-input-size
 * is bounded far below), and a forged size must not make it read a disk's worth. */
#define EXAMPLE_MAX ((uint64_t)1 << 30)

int cd_manifest_open_dir(const char *dir)
{
    return dir ? open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
}

uint8_t *cd_manifest_read_example(const char *dir, const struct cd_manifest_example *ex,
                                  size_t *len, char *why, size_t cap)
{
    int dfd = cd_manifest_open_dir(dir);
    uint8_t *buf = cd_manifest_read_example_at(dfd, dir, ex, len, why, cap);
    if (dfd >= 0)
        close(dfd);
    return buf;
}

uint8_t *cd_manifest_read_example_at(int dfd, const char *dir,
                                     const struct cd_manifest_example *ex, size_t *len,
                                     char *why, size_t cap)
{
    uint8_t *buf = NULL;
    int fd = -1;
    struct stat sb;
    *len = 0;
    if (!dir || !ex->file || !*ex->file || strchr(ex->file, '/') ||
        strcmp(ex->file, ".") == 0 || strcmp(ex->file, "..") == 0 || ex->size > EXAMPLE_MAX) {
        snprintf(why, cap, "the manifest names no file of its directory for %.40s", ex->sha1);
        return NULL;
    }
    fd = dfd < 0 ? -1 : openat(dfd, ex->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, cap, "cannot read '%s/%s': %s", dir, ex->file,
                 errno == ELOOP ? "a symbolic link" : strerror(errno));
        goto out;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size != ex->size) {
        snprintf(why, cap, "cannot read '%s/%s': not a regular file of the %llu bytes the "
                 "manifest gives", dir, ex->file, (unsigned long long)ex->size);
        goto out;
    }
    buf = malloc(ex->size ? ex->size : 1);
    size_t got = 0;
    while (buf && got < ex->size) {
        ssize_t r = read(fd, buf + got, ex->size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    char hex[41] = "";
    if (buf && got == ex->size)
        cd_hash_sha1_hex(buf, got, hex);
    if (strcmp(hex, ex->sha1) != 0) {
        snprintf(why, cap, "cannot read '%s/%s': %s", dir, ex->file,
                 !buf ? "out of memory" : got != ex->size ? "short read"
                                                          : "its content is not the example the "
                                                            "manifest names");
        free(buf);
        buf = NULL;
        goto out;
    }
    *len = got;
out:
    if (fd >= 0)
        close(fd);
    return buf;
}

