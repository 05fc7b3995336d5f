/* Where a run's output goes and how it is written: its directories reached through handles
 * opened once (cli_run_anchor), the refusals of another user's paths, the output staged in full
 * and swapped in after the output it replaces is kept as a generation, the views of several
 * targets, the state after the output, and a refused run's output sent to DIR.rejected. It knows
 * nothing of how the run went (cli_run.c) or how it is told (cli_run_summary.c). */
#include "common/cd_file.h"
#include "output/cd_generations.h"
#include "cli_run_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool cli_manifest_owned(const char *path, struct cd_emit_owned *out)
{
    struct cd_manifest m;
    memset(out, 0, sizeof *out);
    if (cd_manifest_read(path, &m, NULL) != CD_OK)
        return false;
    char *whole = NULL, *parent = NULL;
    bool ok = m.info.seed_dir && cd_file_split(m.info.seed_dir, &whole, &parent,
                                               &out->seed_dir_base);
    free(whole);
    free(parent);
    /* the seeds, and the files only the views hold (the views' files are looked up here too) */
    out->seeds = calloc(m.n_seeds + m.n_view_only + 1, sizeof *out->seeds);
    ok = ok && out->seeds;
    for (size_t i = 0; ok && i < m.n_seeds + m.n_view_only; i++) {
        const char *f = i < m.n_seeds ? m.seeds[i].file : m.view_only[i - m.n_seeds].file;
        if (f && !(out->seeds[out->n_seeds++] = strdup(f)))
            ok = false;
    }
    /* A run of several targets' views: DIR.by-target/NAME, their files seeds of the manifest */
    out->views = calloc(m.info.n_targets + 1, sizeof *out->views);
    ok = ok && out->views;
    for (unsigned t = 0; ok && m.views && t < m.info.n_targets; t++)
        if (m.views[t].dir && !(out->views[out->n_views++] = strdup(m.info.targets[t].name)))
            ok = false;
    cd_manifest_release(&m);
    if (!ok)
        cd_emit_owned_release(out);
    return ok;
}

/* The examples of one target's view (cd_emit_opts.keep): its bit in the result's views, on seeds
 * and on examples kept for views alone. */
struct view_pick {
    const struct cd_result *r;
    unsigned target;
};

static bool in_view(const struct cd_result_example *ex, void *ctx)
{
    const struct view_pick *v = ctx;
    return v->r->views[ex - v->r->examples] >> v->target & 1;
}

static const char *view_name(const struct cd_result_example *ex, unsigned k, char *buf,
                             size_t cap, void *ctx)
{
    (void)ctx;
    if (k)
        return NULL;
    snprintf(buf, cap, "%s", ex->sha1);
    return buf;
}

/* Each target's view, DIR.by-target/NAME: staged in full, then swapped in one by one once the
 * seeds are (a failure is a warning: the seeds and the manifest are whole without them). */
static void write_views(struct run_state *s, const struct cd_emit_opts *base)
{
    const struct cli_opts *o = s->o;
    struct stat sb;
    if (s->views && lstat(s->views, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        /* a link planted there would lead the views anywhere */
        cli_warn("the targets' seeds not written to '%s': %s", s->views,
                 S_ISLNK(sb.st_mode) ? "it is a symbolic link" : "not a directory");
        return;
    }
    for (unsigned t = 0; s->views && s->result.views && t < o->n_targets; t++) {
        struct cd_error err;
        char path[4096];
        cd_target_view_path(s->views, &s->targets[t], path, sizeof path);
        /* DIR.by-target is held open from here, as the outputs' directories are: a directory
           swapped in under its name later is not written through */
        char *at = strdup(path);
        enum cd_status st = at ? cli_run_anchor(s, &at, &err)
                               : cd_error_oom(&err, CD_FAILED, "out of memory");
        struct view_pick pick = {&s->result, t};
        struct cd_emit_opts eo = *base;
        eo.seed_dir = at;
        eo.keep = in_view;
        eo.name = view_name;
        eo.pick_ctx = &pick;
        eo.seed_dir_is_input = false;
        struct cd_emit_stage *stage = NULL;
        if (st == CD_OK)
            st = cd_emit_stage_seeds(&stage, &eo, &s->result, NULL, &err);
        if (st == CD_OK)
            st = cd_emit_commit(stage, NULL, &err);
        free(at);
        if (st != CD_OK)
            cli_warn("the seeds of target '%s' not written to '%s': %s", o->targets[t].name,
                     path, err.msg);
    }
}

/* Writes reproducers, seeds and manifest. Everything is written in full before anything is
 * replaced: the seeds (a staged directory, or the archive's temp file) and the manifest's temp
 * file; then the seeds are swapped in and the manifest renamed over the old one, so that a full
 * disk or any other failure while writing leaves the previous seeds and manifest as they were. */
int cli_run_write_output(struct run_state *s)
{
    const struct cli_opts *o = s->o;
    struct cd_error err;
    struct cd_emit_opts eo = {s->out, s->crashes, s->manifest, o->force, o->tar,
                              s->out_is_input, s->state.path, cli_manifest_owned, NULL, NULL, NULL};
    struct cd_emit_stage *stage = NULL;
    struct cd_file *manifest = NULL;
    struct cd_manifest_setting settings[CLI_SETTINGS_MAX];
    char shard[32];
    struct cd_manifest_info info = {
        .tool_version = CD_VERSION, .targets = s->targets, .n_targets = o->n_targets,
        .settings = settings,
        .n_settings = cli_settings_manifest(o, &s->res, settings, shard),
        .operands = (char **)o->inputs, .skipped = s->skips, .n_skipped = s->n_skips};
    /* The manifest says where the files are as the user named them. */
    char seed_dir[4400], crashes_dir[4400], state_path[4400], note[sizeof s->state.note];
    info.seed_dir = (char *)cli_shown_path(s->out, seed_dir, sizeof seed_dir);
    info.crashes_dir = (char *)cli_shown_path(s->crashes, crashes_dir, sizeof crashes_dir);
    info.state_path = s->refused || !s->state.path /* a refused run writes no state */
                          ? NULL : cli_shown_path(s->state.path, state_path, sizeof state_path);
    info.state_start = s->state.start;
    info.state_note = s->state.note[0] ? cli_shown_path(s->state.note, note, sizeof note) : NULL;
    info.state_runs = s->state.runs + 1;
    info.edge_ids = s->edge_ids;
    char views[4400];
    info.views = s->views ? cli_shown_path(s->views, views, sizeof views) : NULL;
    /* The output this replaces is kept first, whole: a failure here replaces nothing. */
    struct cd_gen_output now = {s->out, o->tar, s->crashes, s->manifest, s->state.path};
    char *kept = NULL;
    enum cd_status st = s->refused || !o->generations
                            ? CD_OK
                            : cd_generations_keep(&now, s->generations, &kept, &err);
    if (st == CD_OK)
        st = cd_emit_reproducers(&eo, &s->result, &s->emitted, &err);
    if (st == CD_OK && !o->tar)
        st = cd_emit_stage_seeds(&stage, &eo, &s->result, &s->emitted, &err);
    if (st == CD_OK)
        st = cd_manifest_stage(&manifest, s->manifest, &info, &s->result, &err);
    if (st == CD_OK) {
        /* cd_emit_commit frees the stage, whatever it returns. */
        st = o->tar ? cd_emit_tar(&eo, &s->result, &s->emitted, &err)
                    : cd_emit_commit(stage, &s->replaced, &err);
        stage = NULL;
    }
    if (st != CD_OK) {
        cd_emit_abort(stage);
        cd_file_abort(manifest);
        if (kept) /* it holds what is still in place */
            cd_generations_drop(s->generations, kept);
        free(kept);
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_OUTPUT),
                        "%s; '%s' and '%s' are as they were", err.msg, s->out, s->manifest);
    }
    free(kept);
    write_views(s, &eo);
    if (cd_file_commit(manifest, &err) != CD_OK)
        return cli_run_fail(s, cli_exit_for(&err, CLI_EXIT_OUTPUT), "%s", err.msg);
    return CLI_EXIT_OK;
}

/* Serialises the final state while the engine's table is alive; it is written once the output
 * is (write_state). */
void cli_run_encode_state(struct run_state *s)
{
    const struct cd_result_stats *rs = &s->result.stats;
    struct cd_error err;
    if (!s->state.path)
        return;
    if (cli_state_encode(&s->state, cd_distill_table(s->d), rs->execs, rs->wall_ns / 1000000,
                         rs->complete, &s->state_buf, &s->state_len, &err) != CD_OK) {
        cli_progress_clear(s->progress);
        cli_warn("state not saved: %s", err.msg);
    }
}

/* Writes the state atomically after the output it goes with. A failure is a warning: the output
 * is whole, and the next run starts from the older state (or cold). */
void cli_run_write_state(struct run_state *s)
{
    struct cd_error err;
    if (s->state_buf && cli_state_write(&s->state, s->state_buf, s->state_len, &err) != CD_OK)
        cli_warn("state not saved: %s", err.msg);
    free(s->state_buf);
    s->state_buf = NULL;
    /* the output is whole: the generations past the last N go */
    if (!s->refused && cd_generations_prune(s->generations, s->o->generations, &err) != CD_OK)
        cli_warn("%s", err.msg);
}

/* Whether an output path of the run (seeds, reproducers, manifest, state, views) is one another
 * user chooses: a symbolic link of another user's among its components, or, run as root without
 * --allow-root, any directory on its way from "/" that another user owns or can write in a way
 * that decides what the path means (cd_file_unsafe_for_root), whether the output exists yet or
 * not. Root runs a target expected to have memory bugs on inputs others chose, and writes where
 * that user may plant links: a nightly job should run as the user who owns the campaign. The
 * one-line reason goes into why. */
bool cli_run_foreign_output(const struct run_state *s, char *why, size_t cap)
{
    /* -f's file too: written by the tool, read by the target by its name */
    const char *paths[] = {s->out, s->crashes, s->manifest, s->state.path, s->views,
                           s->o->input_file};
    bool root = geteuid() == 0 && !s->o->allow_root;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        char link[4096];
        if (!paths[i])
            continue;
        if (cd_file_foreign_link(paths[i], link, sizeof link)) {
            snprintf(why, cap, "refusing to write under '%s': a symbolic link of another user's, "
                     "who chooses where it leads", link);
            return true;
        }
        if (root && cd_file_unsafe_for_root(paths[i], link, sizeof link)) {
            snprintf(why, cap, "refusing to run as root in '%s': another user owns it or can "
                     "write in it, could plant links there and would own what the target does; "
                     "run as the campaign's user (--allow-root runs anyway)", link);
            return true;
        }
    }
    return false;
}

/* Reaches *path through a handle from now on: its directory is walked once, component by
 * component (cd_file_open_dir_walk: made when missing, no link of another user's followed), and
 * *path becomes "/proc/self/fd/N/NAME", which the kernel resolves from that open directory,
 * never again by name: a directory above the output swapped for a link mid-run leads nowhere
 * else. Every later create, write, rename, removal and lock of the output goes through it.
 * OK, or FAILED with err (without /proc/self/fd too: the tool needs /proc). */
enum cd_status cli_run_anchor(struct run_state *s, char **path, struct cd_error *err)
{
    char *whole, *parent, *base;
    if (!*path)
        return CD_OK;
    if (!cd_file_split(*path, &whole, &parent, &base))
        return cd_error_oom(err, CD_FAILED, "out of memory");
    enum cd_status st = CD_OK;
    size_t k = 0;
    while (k < s->n_anchors && strcmp(s->anchor_dir[k], parent) != 0)
        k++;
    if (k == s->n_anchors && k < sizeof s->anchor_fd / sizeof *s->anchor_fd) {
        /* component by component, no link of another user's followed, made when missing */
        int fd = cd_file_open_dir_walk(parent, true, err);
        char proc[40];
        struct stat a, b;
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if (fd < 0) {
            st = CD_FAILED;
        } else if (stat(proc, &a) != 0 || fstat(fd, &b) != 0 || a.st_ino != b.st_ino ||
                   a.st_dev != b.st_dev) {
            close(fd);
            st = cd_error_set(err, CD_FAILED, "cannot reach '%s' through a handle: /proc/self/fd "
                              "is not there (mount /proc)", parent);
        } else {
            /* shown as the text before NAME in the path as given: "camp/", "./", "" */
            char *prefix = strndup(whole, strlen(whole) - strlen(base));
            s->anchor_fd[k] = fd;
            s->anchor_dir[k] = parent;
            parent = NULL;
            s->n_anchors++;
            char shown[4400]; /* an anchored path's prefix shown as the user gave it */
            if (prefix)
                cli_anchor_shown_add(fd, cli_shown_path(prefix, shown, sizeof shown));
            free(prefix);
        }
    }
    if (st == CD_OK && k < s->n_anchors) {
        char *now = malloc(strlen(base) + 40);
        if (!now) {
            st = cd_error_oom(err, CD_FAILED, "out of memory");
        } else {
            sprintf(now, "/proc/self/fd/%d/%s", s->anchor_fd[k], base);
            free(*path);
            *path = now;
        }
    }
    free(whole);
    free(parent);
    free(base);
    return st;
}

/* Points a refused run's outputs into DIR.rejected (seeds or seeds.tar.zst, crashes,
 * manifest.json, seeds.by-target) and drops its state: the last output, manifest, reproducers
 * and state stay as they are. CLI_EXIT_OK, or an exit code after a message. */
int cli_run_reject_paths(struct run_state *s)
{
    char *out = cd_file_join(s->rejected, s->o->tar ? "seeds.tar.zst" : "seeds");
    char *crashes = cd_file_join(s->rejected, "crashes");
    char *manifest = cd_file_join(s->rejected, "manifest.json");
    bool had_views = s->views != NULL;
    char *views = had_views ? cd_file_join(s->rejected, "seeds.by-target") : NULL;
    free(s->out);
    free(s->crashes);
    free(s->manifest);
    free(s->views);
    s->out = out;
    s->crashes = crashes;
    s->manifest = manifest;
    s->views = views;
    s->out_is_input = false;
    free(s->state_buf);
    s->state_buf = NULL;
    if (!out || !crashes || !manifest || (had_views && !views))
        return cli_run_fail(s, CLI_EXIT_NOMEM, "out of memory");
    char why[4400];
    if (cli_run_foreign_output(s, why, sizeof why))
        return cli_run_fail(s, CLI_EXIT_OUTPUT, "%s", why);
    struct cd_error err;
    if (cd_file_mkdir_p(s->rejected, &err) != CD_OK) /* the manifest goes there before a tar */
        return cli_run_fail(s, CLI_EXIT_OUTPUT, "%s", err.msg);
    return CLI_EXIT_OK;
}

/* The one line a refused run ends with, shown under -q too. */
void cli_run_say_refused(struct run_state *s)
{
    const struct cli_guard *g = &s->guard;
    char kept[300], rejected[4400];
    if (g->before)
        snprintf(kept, sizeof kept, "the last %llu seed%s in '%.200s' kept",
                 (unsigned long long)g->before_seeds, g->before_seeds == 1 ? "" : "s",
                 s->o->out_dir);
    else
        snprintf(kept, sizeof kept, "nothing written to '%.200s'", s->o->out_dir);
    cli_progress_clear(s->progress);
    snprintf(s->error, sizeof s->error, "refused: %s; %s; this run's output is in '%.400s' "
             "(--accept-collapse takes such a run)", g->line, kept,
             cli_shown_path(s->rejected, rejected, sizeof rejected));
    cli_msg("%s", s->error);
}
