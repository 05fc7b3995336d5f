/* The run's state file (DIR.state beside the seeds): read at the start, where it decides how the
 * engine starts (warm from the saved table; the saved examples as inputs when the target or a
 * setting that changes labels differs; cold when there is none or it is unreadable), and written
 * atomically at every checkpoint and once the output is written. The table's format is the
 * table's (cd_table_save); this file knows paths, identities and messages. */
#include "common/cd_file.h"
#include "common/cd_hash.h"
#include "exec/cd_identity.h"
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

/* Whether the identities of two states' settings (a's first target sha1 a_sha1, b's b_sha1) are
 * the same but for their shards: shards of one run merge. */
static bool same_unsharded(const char *a, const char *a_sha1, const char *b, const char *b_sha1)
{
    struct cd_identity x, y;
    return cd_identity_parse(a, a_sha1, &x) && cd_identity_parse(b, b_sha1, &y) &&
           cd_identity_same_unsharded(&x, &y);
}

/* How many targets the identity of the state meta names (at least one). */
static unsigned state_targets(const struct cd_table_meta *meta)
{
    struct cd_identity id;
    return cd_identity_parse(meta->settings, meta->target_sha1, &id) && id.n_targets
               ? id.n_targets : 1;
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

/* "KEY was 'A', now 'B'": the first setting of now that the state's settings was lack or hold
 * otherwise, into buf. */
static void first_difference(const char *was, const char *now, char *buf, size_t cap)
{
    struct cd_identity a, b;
    if (cd_identity_parse(was, NULL, &a) && cd_identity_parse(now, NULL, &b))
        cd_identity_first_difference(&a, &b, buf, cap);
    else
        snprintf(buf, cap, "settings differ");
}

int cli_state_start(struct cli_state *st, const struct cli_opts *o,
                    const struct cli_resolved *res, size_t seen_mem, struct cd_table **warm,
                    struct cd_table **old)
{
    struct cd_error err;
    uint8_t *buf = NULL;
    size_t len = 0;
    *warm = *old = NULL;
    st->start_ns = cd_now_ns();
    st->settings = cli_targets_identity(o, res, st->targets);
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
    if (t && !cd_table_targets_within(t, state_targets(&st->prev))) {
        snprintf(st->note, sizeof st->note, "'%.300s': labels of a target its identity does not "
                 "name; starting cold", st->path);
        cd_table_free(t);
        t = NULL;
    }
    if (!t) {
        st->start = "unreadable";
        return 0;
    }
    st->runs = st->prev.runs;
    st->execs = st->prev.execs;
    st->wall_ms = st->prev.wall_ms;
    st->base_run = st->prev.base_run;
    st->base_select_only = st->prev.base_select_only;
    st->base_cmin = st->prev.base_cmin;
    uint32_t all = (uint32_t)((1ull << o->n_targets) - 1), same;
    enum cli_targets_change change =
        cli_targets_compare(o, st->prev.settings, st->prev.target_sha1, st->settings,
                            st->targets[0].sha1, &same);
    if (change == CLI_TARGETS_SOME) {
        /* Some targets as they were: their labels stay, the others' go, and the state's
           examples run on the changed and added ones alone. */
        st->start = "targets changed";
        st->rerun = all & ~same;
        size_t dropped = cd_table_drop_targets(t, ~same & ((1u << CD_LABEL_TARGETS_MAX) - 1));
        char names[400];
        cli_targets_names(o, st->rerun, names, sizeof names);
        int n_rerun = __builtin_popcount(st->rerun);
        if (n_rerun)
            snprintf(st->note, sizeof st->note, "target%s %s changed or added since the state "
                     "'%s' was saved: its %zu examples run on %s (%zu labels of the old dropped); "
                     "the other targets' labels and finished marks stay", n_rerun > 1 ? "s" : "",
                     names, st->path, cd_table_n_examples(t), n_rerun > 1 ? "them" : "it",
                     dropped);
        else
            snprintf(st->note, sizeof st->note, "a target was removed since the state '%s' was "
                     "saved: its %zu labels dropped; the other targets' labels and finished marks "
                     "stay", st->path, dropped);
        *warm = t;
    } else if (change == CLI_TARGETS_OTHERS) {
        st->start = "target changed";
        snprintf(st->note, sizeof st->note, "the targets changed since the state '%s' was saved: "
                 "its %zu examples run as inputs, its finished marks are dropped", st->path,
                 cd_table_n_examples(t));
        *old = t;
    } else if (strcmp(st->prev.target_sha1, st->targets[0].sha1) != 0) {
        st->start = "target changed";
        snprintf(st->note, sizeof st->note, "the target changed since the state '%s' was saved "
                 "(SHA-1 %.12s, now %.12s): its %zu examples run as inputs, its finished marks "
                 "are dropped", st->path, st->prev.target_sha1, st->targets[0].sha1,
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
    if (!cd_table_targets_within(*t, state_targets(meta))) {
        cd_table_free(*t);
        *t = NULL;
        cd_table_meta_release(meta);
        return cd_error_set(err, CD_FAILED, "'%.300s': labels of a target its identity does not "
                            "name", path);
    }
    return CD_OK;
}

enum cd_status cli_state_merge(struct cli_state *st, const struct cli_opts *o,
                               const struct cli_resolved *res, size_t seen_mem,
                               struct cd_table **warm, struct cd_table **old,
                               struct cd_error *err)
{
    *warm = *old = NULL;
    st->start_ns = cd_now_ns();
    st->settings = cli_targets_identity(o, res, st->targets);
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
                                     !same_unsharded(meta[i].settings, meta[i].target_sha1,
                                                     meta[0].settings, meta[0].target_sha1)))
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
    bool same = rc == CD_OK && strcmp(meta[0].target_sha1, st->targets[0].sha1) == 0 &&
                same_unsharded(meta[0].settings, meta[0].target_sha1, st->settings,
                               st->targets[0].sha1);
    if (rc == CD_OK) {
        st->start = "merged";
        snprintf(st->note, sizeof st->note, "merged %zu state%s: %zu labels, %zu best examples%s",
                 o->n_inputs, o->n_inputs == 1 ? "" : "s", cd_table_n_labels(m),
                 cd_table_n_examples(m),
                 same ? "" : strcmp(meta[0].target_sha1, st->targets[0].sha1)
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

void cli_state_baseline(struct cli_state *st, uint64_t select_only, uint64_t cmin)
{
    if (st->base_run)
        return;
    st->base_run = st->runs + 1;
    st->base_select_only = select_only;
    st->base_cmin = cmin;
}

/* What the state saved now says of itself: this run added to the runs before it. */
static struct cd_table_meta state_meta(const struct cli_state *st, uint64_t execs,
                                       uint64_t wall_ms, bool complete)
{
    struct cd_table_meta meta = {"", st->settings, st->runs + 1, st->execs + execs,
                                 st->wall_ms + wall_ms, complete, st->base_run,
                                 st->base_select_only, st->base_cmin};
    memcpy(meta.target_sha1, st->targets[0].sha1, sizeof meta.target_sha1);
    return meta;
}

enum cd_status cli_state_encode(const struct cli_state *st, const struct cd_table *t,
                                uint64_t execs, uint64_t wall_ms, bool complete, uint8_t **buf,
                                size_t *len, struct cd_error *err)
{
    struct cd_table_meta meta = state_meta(st, execs, wall_ms, complete);
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

void cli_state_checkpoint(void *ctx, struct cd_table_snapshot *snap, uint64_t execs)
{
    struct cli_state *st = ctx;
    struct cd_error err;
    uint8_t *buf = NULL;
    size_t len = 0;
    if (!st->path || st->hold)
        return;
    struct cd_table_meta meta = state_meta(st, execs, (cd_now_ns() - st->start_ns) / 1000000,
                                           false);
    enum cd_status s = cd_table_snapshot_save(snap, &meta, &buf, &len, &err);
    if (s == CD_OK)
        s = cli_state_write(st, buf, len, &err);
    free(buf);
    if (s == CD_OK || st->warned)
        return;
    st->warned = true;
    cli_line(stderr, "%s", ""); /* off the status line */
    cli_warn("checkpoint not saved: %s", err.msg);
}

void cli_state_release(struct cli_state *st)
{
    cd_table_meta_release(&st->prev);
    free(st->settings);
    free(st->path);
    memset(st, 0, sizeof *st);
}
