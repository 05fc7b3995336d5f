/* The run's state file (DIR.state beside the seeds): read at the start, where it decides how the
 * engine starts (warm from the saved table; the saved examples as inputs when the target or a
 * setting that changes labels differs; cold when there is none or it is unreadable), and written
 * atomically at every checkpoint and once the output is written. The table's format is the
 * table's (cd_table_save); this file knows paths, identities and messages. */
#include "common/cd_file.h"
#include "common/cd_hash.h"
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

/* Where a run of several targets starts each target's line in its settings. */
#define TARGET_KEY "\ntarget "

/* This run's settings that change labels: the target's arguments (its path is identified by the
 * binary's SHA-1), then those the settings table marks (cli_settings_identity: the timeout as
 * given, the memory limit, edge labels, the map size, AFL_CRASH_EXITCODE, the frames of a crash
 * state), as one line. With several targets,
 * the line holds the settings they share, and each target adds a line of its own
 * ("\ntarget SHA1 map_size=N args=ARGS"). Owned; NULL when out of memory. */
static char *settings_line(const struct cli_opts *o, const struct cli_state *st,
                           const struct cli_resolved *r, const struct cd_exec_info *info)
{
    size_t n = 256 + cli_settings_identity(o, r, info[0].map_size, NULL, 0);
    for (unsigned t = 0; t < o->n_targets; t++) {
        n += 96;
        for (char **a = o->targets[t] + 1; *a; a++)
            n += strlen(*a) + 1;
    }
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    if (o->n_targets == 1) {
        p += sprintf(p, "args=");
        for (char **a = o->target_argv + 1; *a; a++)
            p += sprintf(p, "%s%s", a == o->target_argv + 1 ? "" : " ", *a);
        p += sprintf(p, "; ");
    }
    p += cli_settings_identity(o, r, o->n_targets == 1 ? info[0].map_size : 0, p,
                               n - (size_t)(p - s));
    for (unsigned t = 0; o->n_targets > 1 && t < o->n_targets; t++) {
        p += sprintf(p, TARGET_KEY "%s map_size=%zu args=", st->target_sha1s[t],
                     info[t].map_size);
        for (char **a = o->targets[t] + 1; *a; a++)
            p += sprintf(p, "%s%s", a == o->targets[t] + 1 ? "" : " ", *a);
    }
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

/* One target's identity in a state's settings: its SHA-1, map size and arguments. */
struct target_id {
    const char *at; /* "SHA1 map_size=N args=ARGS" up to len, or NULL (the single form) */
    size_t len;
    const char *sha1;
};

/* Splits settings (as settings_line writes them, sha1 the state's first target) into the part
 * every target shares, which *common and *common_len get (without a single target's arguments and
 * map size), and the targets' identities (at most CD_LABEL_TARGETS_MAX); returns their number. A
 * single target's identity is its arguments and map size, compared as written. */
static unsigned split_settings(const char *settings, const char *sha1, struct target_id *ids,
                               char *common, size_t cap)
{
    settings = settings ? settings : "";
    const char *nl = strstr(settings, TARGET_KEY);
    if (nl) {
        snprintf(common, cap, "%.*s", (int)(nl - settings), settings);
        unsigned n = 0;
        for (const char *p = nl; p && n < CD_LABEL_TARGETS_MAX; n++) {
            p += strlen(TARGET_KEY);
            const char *next = strstr(p, TARGET_KEY);
            ids[n] = (struct target_id){p, next ? (size_t)(next - p) : unsharded(p), NULL};
            p = next;
        }
        return n;
    }
    /* "args=ARGS; timeout_ms=...; map_size=N; crash_exitcode=...": the target is the args and
       the map size, the rest shared */
    const char *t = strstr(settings, "; timeout_ms=");
    const char *m = t ? strstr(t, "; map_size=") : NULL;
    const char *after = m ? strstr(m + 2, "; ") : NULL;
    if (strncmp(settings, "args=", 5) != 0 || !t || !m || !after) {
        snprintf(common, cap, "%s", settings);
        return 0;
    }
    snprintf(common, cap, "%.*s%s", (int)(m - t - 2), t + 2, after);
    ids[0] = (struct target_id){settings, (size_t)(t - settings), sha1};
    return 1;
}

/* How many targets the identity of the state meta names (at least one). */
static unsigned state_targets(const struct cd_table_meta *meta)
{
    struct target_id ids[CD_LABEL_TARGETS_MAX];
    char common[2048];
    unsigned n = split_settings(meta->settings, meta->target_sha1, ids, common, sizeof common);
    return n ? n : 1;
}

/* The SHA-1, map size and arguments (*args, *len) of identity id of the settings whole; false
 * when it is malformed. */
static bool target_fields(const struct target_id *id, const char *whole, char sha[41],
                          char map[32], const char **args, size_t *len)
{
    if (id->sha1) { /* the single form: "args=ARGS; ...; map_size=N; ..." */
        const char *m = strstr(whole, "; map_size=");
        snprintf(sha, 41, "%s", id->sha1);
        snprintf(map, 32, "%.*s", m ? (int)strcspn(m + 11, ";") : 0, m ? m + 11 : "");
        *args = id->at + 5;
        *len = id->len - 5;
        return true;
    }
    const char *m = strstr(id->at, " map_size="), *g = strstr(id->at, " args=");
    if (!m || !g || g < m || (size_t)(g + 6 - id->at) > id->len)
        return false;
    snprintf(sha, 41, "%.*s", (int)strcspn(id->at, " "), id->at);
    snprintf(map, 32, "%.*s", (int)(g - m - 10), m + 10);
    *args = g + 6;
    *len = id->len - (size_t)(*args - id->at);
    return true;
}

/* Whether two targets' identities are one: the same binary, map size and arguments, whichever
 * form each came in. */
static bool same_target(const struct target_id *a, const char *a_whole, const struct target_id *b,
                        const char *b_whole)
{
    char sha_a[41], sha_b[41], map_a[32], map_b[32];
    const char *args_a, *args_b;
    size_t la, lb;
    return target_fields(a, a_whole, sha_a, map_a, &args_a, &la) &&
           target_fields(b, b_whole, sha_b, map_b, &args_b, &lb) && strcmp(sha_a, sha_b) == 0 &&
           strcmp(map_a, map_b) == 0 && la == lb && memcmp(args_a, args_b, la) == 0;
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

/* The bits of the targets of now (settings of this run) that were those of was (a state's) at the
 * same place; *n_was the state's targets, and whether the settings they share agree. */
static uint32_t same_targets(const char *was, const char *was_sha1, const char *now,
                             const char *now_sha1, unsigned *n_was, bool *same_common)
{
    struct target_id a[CD_LABEL_TARGETS_MAX], b[CD_LABEL_TARGETS_MAX];
    char ca[1024], cb[1024];
    was = was ? was : "";
    *n_was = split_settings(was, was_sha1, a, ca, sizeof ca);
    unsigned n_now = split_settings(now, now_sha1, b, cb, sizeof cb);
    ca[unsharded(ca)] = cb[unsharded(cb)] = '\0';
    *same_common = strcmp(ca, cb) == 0 && strcmp(was + unsharded(was), now + unsharded(now)) == 0;
    uint32_t same = 0;
    for (unsigned t = 0; t < *n_was && t < n_now; t++)
        if (same_target(&a[t], was, &b[t], now))
            same |= 1u << t;
    return same;
}

int cli_state_start(struct cli_state *st, const struct cli_opts *o,
                    const struct cli_resolved *res, const struct cd_exec_info *info,
                    size_t seen_mem, struct cd_table **warm, struct cd_table **old)
{
    struct cd_error err;
    uint8_t *buf = NULL;
    size_t len = 0;
    *warm = *old = NULL;
    st->start_ns = cd_now_ns();
    st->settings = settings_line(o, st, res, info);
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
    unsigned n_was;
    bool same_common;
    uint32_t all = (uint32_t)((1ull << o->n_targets) - 1);
    uint32_t same = same_targets(st->prev.settings, st->prev.target_sha1, st->settings,
                                 st->target_sha1, &n_was, &same_common);
    if ((o->n_targets > 1 || n_was > 1) && same_common && same && (same != all || n_was !=
                                                                   o->n_targets)) {
        /* Some targets as they were: their labels stay, the others' go, and the state's
           examples run on the changed and added ones alone. */
        st->start = "targets changed";
        st->rerun = all & ~same;
        size_t dropped = cd_table_drop_targets(t, ~same & ((1u << CD_LABEL_TARGETS_MAX) - 1));
        char names[400] = "";
        for (unsigned k = 0, n = 0; st->rerun && k < o->n_targets; k++)
            if (st->rerun >> k & 1)
                n += (size_t)snprintf(names + n, n < sizeof names ? sizeof names - n : 0,
                                      "%s'%s'", n ? ", " : "", o->target_names[k]);
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
    } else if ((o->n_targets > 1 || n_was > 1) && same_common && same != all) {
        st->start = "target changed";
        snprintf(st->note, sizeof st->note, "the targets changed since the state '%s' was saved: "
                 "its %zu examples run as inputs, its finished marks are dropped", st->path,
                 cd_table_n_examples(t));
        *old = t;
    } else if (strcmp(st->prev.target_sha1, st->target_sha1) != 0) {
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
                               const struct cli_resolved *res, const struct cd_exec_info *info,
                               size_t seen_mem, struct cd_table **warm, struct cd_table **old,
                               struct cd_error *err)
{
    *warm = *old = NULL;
    st->start_ns = cd_now_ns();
    st->settings = settings_line(o, st, res, info);
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
    memcpy(meta.target_sha1, st->target_sha1, sizeof meta.target_sha1);
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
