/* The run's state file (DIR.state beside the seeds): read at the start, where it decides how the
 * engine starts (warm from the saved table; the saved examples as inputs when the target or a
 * setting that changes labels differs; cold when there is none or it is unreadable), and written
 * atomically at every checkpoint and once the output is written. The table's format is the
 * table's (cd_table_save); this file knows paths, identities and messages. */
#include "cd_file.h"
#include "cd_hash.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The state file is read whole; a bigger one is refused (the seen-set's 256 MiB default bound
 * writes at most about 170 MiB of fingerprints). */
#define STATE_MAX_BYTES ((off_t)4 << 30)

/* How the settings line names a shard (--shard K/N), at its end. */
#define SHARD_KEY "; shard="

/* This run's settings that change labels, as one line: the target's arguments (its path is
 * identified by the binary's SHA-1), the timeout as given (0: calibrated), the memory limit, edge
 * labels, the map size, AFL_CRASH_EXITCODE and the frames of a crash state. Owned; NULL when out
 * of memory. */
static char *settings_line(const struct cli_opts *o, const struct cd_exec_opts *eo,
                           size_t map_size)
{
    size_t n = 256;
    for (char **a = o->target_argv + 1; *a; a++)
        n += strlen(*a) + 1;
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    p += sprintf(p, "args=");
    for (char **a = o->target_argv + 1; *a; a++)
        p += sprintf(p, "%s%s", a == o->target_argv + 1 ? "" : " ", *a);
    p += sprintf(p, "; timeout_ms=%u; mem_limit_mb=%u; edges_only=%d; map_size=%zu; "
                    "crash_exitcode=", o->timeout_ms, o->mem_limit_mb, o->edges_only, map_size);
    if (eo->crash_exitcode_set)
        p += sprintf(p, "%d", eo->crash_exitcode);
    else
        p += sprintf(p, "none");
    if (o->crash_frames)
        p += sprintf(p, "; crash_frames=%u", o->crash_frames);
    if (o->shards > 1)
        sprintf(p, "%s%u/%u", SHARD_KEY, o->shard, o->shards);
    return s;
}

/* The length of settings without its shard (always last: the target's arguments, earlier, may
 * hold the same text): shards of one run differ only there. */
static size_t unsharded(const char *settings)
{
    const char *k = NULL;
    for (const char *p = settings; p && (p = strstr(p, SHARD_KEY)) != NULL; p++)
        k = p;
    unsigned a, b;
    if (k && cli_parse_shard(k + strlen(SHARD_KEY), &a, &b))
        return (size_t)(k - settings);
    return settings ? strlen(settings) : 0;
}

/* Whether settings a and b are the same but for their shards. */
static bool same_unsharded(const char *a, const char *b)
{
    size_t n = unsharded(a);
    return n == unsharded(b) && (n == 0 || memcmp(a, b, n) == 0);
}

/* Writes "KEY was 'A', now 'B'" for the first setting of now that was is without or has
 * otherwise into buf. */
static void first_difference(const char *was, const char *now, char *buf, size_t cap)
{
    while (*now) {
        size_t n = strcspn(now, ";"), k = strcspn(now, "=");
        if (k > n)
            k = n;
        const char *w = was; /* the same key in was */
        while (*w && !(strncmp(w, now, k) == 0 && w[k] == '=')) {
            w += strcspn(w, ";");
            w += strspn(w, "; ");
        }
        size_t wn = *w ? strcspn(w, ";") : 0;
        if (wn != n || strncmp(w, now, n) != 0) {
            char sa[80], sb[80], va[96], vb[96];
            snprintf(sa, sizeof sa, "%.*s", wn > k ? (int)(wn - k - 1) : 0, wn > k ? w + k + 1 : "");
            snprintf(sb, sizeof sb, "%.*s", n > k ? (int)(n - k - 1) : 0, n > k ? now + k + 1 : "");
            snprintf(buf, cap, "%.*s was '%s', now '%s'", (int)k, now, cd_shown(sa, va, sizeof va),
                     cd_shown(sb, vb, sizeof vb));
            return;
        }
        now += n;
        now += strspn(now, "; ");
    }
    snprintf(buf, cap, "settings differ");
}

/* Reads the state file at path whole into *buf (owned), its first 8 bytes first: -1 with errno,
 * -2 when too large, -3 when it does not start as a state (nothing more is read then). */
static int read_whole(const char *path, uint8_t **buf, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    *buf = NULL;
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if (sb.st_size > STATE_MAX_BYTES) {
        close(fd);
        return -2;
    }
    uint8_t head[8];
    ssize_t h = pread(fd, head, sizeof head, 0);
    if (h < 0 || !cd_table_state_magic(head, (size_t)h)) {
        close(fd);
        return h < 0 ? -1 : -3;
    }
    size_t cap = (size_t)sb.st_size + 1, n = 0;
    uint8_t *p = malloc(cap);
    if (!p) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    for (;;) {
        ssize_t r = read(fd, p + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = errno;
            close(fd);
            if (r < 0) {
                free(p);
                errno = e;
                return -1;
            }
            break;
        }
        n += (size_t)r;
        if (n == cap) { /* it grew while read: what it holds now is the checksum's to judge */
            close(fd);
            break;
        }
    }
    *buf = p;
    *len = n;
    return 0;
}

enum cd_status cli_state_check(const char *path, bool force, struct cd_error *err)
{
    struct stat sb;
    if (!path || lstat(path, &sb) != 0)
        return CD_OK; /* none yet (what cannot be looked at, the save reports) */
    if (force)
        return CD_OK;
    if (!S_ISREG(sb.st_mode))
        return cd_error_set(err, CD_FAILED, "refusing to replace '%s' with the state: not a "
                            "regular file (--force replaces it)", path);
    uint8_t head[8];
    ssize_t h = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd >= 0) {
        h = pread(fd, head, sizeof head, 0);
        close(fd);
    }
    if (h >= 0 && !cd_table_state_magic(head, (size_t)h))
        return cd_error_set(err, CD_FAILED, "refusing to replace '%s' with the state: not "
                            "written by corpus-distill (--force replaces it)", path);
    return CD_OK;
}

int cli_state_start(struct cli_state *st, const struct cli_opts *o,
                    const struct cd_exec_opts *eo, size_t map_size, size_t seen_mem,
                    struct cd_table **warm, struct cd_table **old)
{
    struct cd_error err;
    uint8_t *buf = NULL;
    size_t len = 0;
    *warm = *old = NULL;
    st->start_ns = cd_now_ns();
    st->settings = settings_line(o, eo, map_size);
    if (!st->settings)
        return -1;
    if (!st->path) {
        st->start = "none";
        return 0;
    }
    int r = read_whole(st->path, &buf, &len);
    if (r == -1 && errno == ENOENT) {
        st->start = "cold";
        return 0;
    }
    struct cd_table *t = NULL;
    if (r == -2)
        snprintf(st->note, sizeof st->note, "state '%s' is larger than 4 GiB; starting cold",
                 st->path);
    else if (r == -3)
        snprintf(st->note, sizeof st->note, "'%.300s': not a corpus-distill state file; starting "
                 "cold", st->path);
    else if (r < 0)
        snprintf(st->note, sizeof st->note, "cannot read the state '%s': %s; starting cold",
                 st->path, strerror(errno));
    else if (cd_table_load(&t, &st->prev, buf, len, seen_mem, &err) != CD_OK)
        snprintf(st->note, sizeof st->note, "'%.300s': %.600s; starting cold", st->path, err.msg);
    free(buf);
    if (!t) {
        st->start = "unreadable";
        return 0;
    }
    st->runs = st->prev.runs;
    st->execs = st->prev.execs;
    st->wall_ms = st->prev.wall_ms;
    if (strcmp(st->prev.target_sha1, st->target_sha1) != 0) {
        st->start = "target changed";
        snprintf(st->note, sizeof st->note, "the target changed since the state '%s' was saved "
                 "(SHA-1 %.12s, now %.12s): its %zu examples run as inputs, its finished marks "
                 "are dropped", st->path, st->prev.target_sha1, st->target_sha1,
                 cd_table_n_examples(t));
        *old = t;
    } else if (strcmp(st->prev.settings ? st->prev.settings : "", st->settings) != 0) {
        char diff[300];
        first_difference(st->prev.settings ? st->prev.settings : "", st->settings, diff,
                         sizeof diff);
        st->start = "settings changed";
        snprintf(st->note, sizeof st->note, "a setting changed since the state '%s' was saved "
                 "(%s): its %zu examples run as inputs, its finished marks are dropped",
                 st->path, diff, cd_table_n_examples(t));
        *old = t;
    } else {
        st->start = "warm";
        *warm = t;
    }
    return 0;
}

/* Loads the state file at path into *t and *meta, the hash of its bytes into *sum; FAILED with a
 * message naming it. */
static enum cd_status load_state(const char *path, size_t seen_mem, struct cd_table **t,
                                 struct cd_table_meta *meta, struct cd_hash *sum,
                                 struct cd_error *err)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    int r = read_whole(path, &buf, &len);
    if (r == -2)
        return cd_error_set(err, CD_FAILED, "state '%s' is larger than 4 GiB", path);
    if (r == -3)
        return cd_error_set(err, CD_FAILED, "'%s': not a corpus-distill state file", path);
    if (r < 0)
        return cd_error_sys(err, CD_FAILED, "cannot read the state '%s': %s", path,
                            strerror(errno));
    struct cd_error e;
    *sum = cd_hash_bytes(buf, len);
    enum cd_status st = cd_table_load(t, meta, buf, len, seen_mem, &e);
    free(buf);
    if (st != CD_OK)
        return cd_error_set(err, CD_FAILED, "'%.300s': %.600s", path, e.msg);
    return CD_OK;
}

enum cd_status cli_state_merge(struct cli_state *st, const struct cli_opts *o,
                               const struct cd_exec_opts *eo, size_t map_size, size_t seen_mem,
                               struct cd_table **warm, struct cd_table **old,
                               struct cd_error *err)
{
    *warm = *old = NULL;
    st->start_ns = cd_now_ns();
    st->settings = settings_line(o, eo, map_size);
    struct cd_table **t = calloc(o->n_inputs, sizeof *t);
    struct cd_table_meta *meta = calloc(o->n_inputs, sizeof *meta);
    struct cd_hash *sums = calloc(o->n_inputs, sizeof *sums);
    if (!st->settings || !t || !meta || !sums) {
        free(t);
        free(meta);
        free(sums);
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    enum cd_status rc = CD_OK;
    for (size_t i = 0; i < o->n_inputs && rc == CD_OK; i++) {
        rc = load_state(o->inputs[i], seen_mem, &t[i], &meta[i], &sums[i], err);
        /* The same state twice would count its runs and executions twice. */
        for (size_t k = 0; k < i && rc == CD_OK; k++)
            if (sums[k].lo == sums[i].lo && sums[k].hi == sums[i].hi)
                rc = cd_error_set(err, CD_FAILED, "'%s' holds the same state as '%s': name each "
                                  "shard's state once", o->inputs[i], o->inputs[k]);
        if (rc == CD_OK && i > 0 && (strcmp(meta[i].target_sha1, meta[0].target_sha1) != 0 ||
                                     !same_unsharded(meta[i].settings, meta[0].settings)))
            rc = cd_error_set(err, CD_FAILED, "'%s' and '%s' were made by different %s: only "
                              "shards of one run merge", o->inputs[0], o->inputs[i],
                              strcmp(meta[i].target_sha1, meta[0].target_sha1) ? "targets"
                                                                                : "settings");
        if (rc == CD_OK) {
            st->runs += meta[i].runs;
            st->execs += meta[i].execs;
            st->wall_ms += meta[i].wall_ms;
        }
    }
    struct cd_table *m = NULL;
    if (rc == CD_OK)
        rc = cd_table_merge(&m, (const struct cd_table *const *)t, o->n_inputs, err);
    if (rc == CD_OK && !cd_table_seen_limit(m, seen_mem))
        rc = cd_error_oom(err, CD_FAILED, "out of memory");
    bool same = rc == CD_OK && strcmp(meta[0].target_sha1, st->target_sha1) == 0 &&
                same_unsharded(meta[0].settings, st->settings);
    if (rc == CD_OK) {
        st->start = "merged";
        snprintf(st->note, sizeof st->note, "merged %zu state%s: %zu labels, %zu best examples%s",
                 o->n_inputs, o->n_inputs == 1 ? "" : "s", cd_table_n_labels(m),
                 cd_table_n_examples(m),
                 same ? "" : strcmp(meta[0].target_sha1, st->target_sha1)
                                 ? "; the target changed since: they run as inputs"
                                 : "; the settings differ from this run's: they run as inputs");
        *(same ? warm : old) = m;
    } else {
        cd_table_free(m);
    }
    for (size_t i = 0; i < o->n_inputs; i++) {
        cd_table_free(t[i]);
        cd_table_meta_release(&meta[i]);
    }
    free(t);
    free(meta);
    free(sums);
    return rc == CD_OK ? CD_OK : cd_error_mark(err, rc, CD_ERR_INPUT);
}

enum cd_status cli_state_encode(const struct cli_state *st, const struct cd_table *t,
                                uint64_t execs, uint64_t wall_ms, bool complete, uint8_t **buf,
                                size_t *len, struct cd_error *err)
{
    struct cd_table_meta meta = {"", st->settings, st->runs + 1, st->execs + execs,
                                 st->wall_ms + wall_ms, complete};
    memcpy(meta.target_sha1, st->target_sha1, sizeof meta.target_sha1);
    return cd_table_save(t, &meta, buf, len, err);
}

enum cd_status cli_state_write(struct cli_state *st, const uint8_t *buf, size_t len,
                               struct cd_error *err)
{
    enum cd_status s = cd_file_write(st->path, buf, len, err);
    if (s == CD_OK)
        st->saved++;
    return s;
}

enum cd_status cli_state_save(struct cli_state *st, const struct cd_table *t, uint64_t execs,
                              bool complete, struct cd_error *err)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    CD_FORWARD_IF_ERROR(cli_state_encode(st, t, execs, (cd_now_ns() - st->start_ns) / 1000000,
                                         complete, &buf, &len, err));
    enum cd_status s = cli_state_write(st, buf, len, err);
    free(buf);
    return s;
}

void cli_state_checkpoint(void *ctx, const struct cd_table *t, uint64_t execs)
{
    struct cli_state *st = ctx;
    struct cd_error err;
    if (!st->path || cli_state_save(st, t, execs, false, &err) == CD_OK || st->warned)
        return;
    st->warned = true;
    fprintf(stderr, "\ncorpus-distill: warning: checkpoint not saved: %s\n", err.msg);
}

void cli_state_release(struct cli_state *st)
{
    cd_table_meta_release(&st->prev);
    free(st->settings);
    free(st->path);
    memset(st, 0, sizeof *st);
}
