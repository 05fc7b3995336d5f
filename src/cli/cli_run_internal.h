/* What the distill mode's files share (cli_run.c runs the engine, cli_run_output.c writes what it
 * found, cli_run_summary.c tells it): the state of one run and the functions they call of one
 * another. Nothing outside src/cli/cli_run*.c includes this. */
#ifndef CLI_RUN_INTERNAL_H
#define CLI_RUN_INTERNAL_H

#include "engine/cd_distill.h"
#include "output/cd_emit.h"
#include "output/cd_manifest.h"
#include "cli.h"

/* One run of the distill mode, from the command line to the exit code. */
struct run_state {
    const struct cli_opts *o;
    char *out, *crashes, *manifest; /* the corpus (DIR or DIR.tar.zst), reproducers, manifest */
    struct cd_target *targets;      /* the run's o->n_targets targets, declared once */
    struct cd_exec_runner_ctx runner;
    char *views;                    /* DIR.by-target: each target's seeds, with several */
    struct cd_ingest *ing;
    struct cd_distill *d;
    struct cli_progress *progress;
    struct cd_result result;
    bool have_result;
    struct cd_emit_stats emitted;
    struct cli_resolved res;     /* the settings as the run resolved them (cli_settings.c) */
    struct cd_manifest_skip skips[CD_SKIP_COUNT];
    size_t n_skips;
    char error[2048];               /* the message of a failing exit, for --json-summary */
    int late_code;                  /* the reduction failed, the best so far is written, and
                                       this is the exit code; 0 when it did not fail */
    bool out_is_input;              /* the seed directory is also an input operand */
    size_t unlisted;                /* files in it its manifest does not list: inputs of the run */
    char *replaced;                 /* where a directory --force replaced was moved, or NULL */
    struct cd_emit_lock lock;       /* held from the first check of the output to the end */
    struct cli_state state;         /* the state file: how the run started, where it is saved */
    struct cd_edge_ids *edge_ids;   /* --ids or AFL_LLVM_DOCUMENT_IDS: labels name functions */
    uint8_t *state_buf;             /* the final state, written once the output is */
    size_t state_len;
    uint64_t start_ns;              /* when the inputs began to be read (cd_now_ns) */
    struct cli_guard guard;         /* the guard against a collapse (cli_guard.c) */
    bool refused;                   /* it fired: the run's output goes to rejected */
    char *rejected;                 /* DIR.rejected: where a refused run's output goes */
    char *generations;              /* DIR.generations: the outputs runs replaced */
    /* The outputs' directories, opened once (anchor): their fds and paths as given */
    int anchor_fd[6];
    char *anchor_dir[6];
    size_t n_anchors;
};

/* cli_run.c */

/* Reports a failure on one line of stderr (paths as given), keeps it for --json-summary, and
 * returns code. */
int cli_run_fail(struct run_state *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* cli_run_output.c */

/* Reaches *path (owned) through a handle from now on: its directory walked once, component by
 * component, made when missing, *path becoming "/proc/self/fd/N/NAME". OK, or FAILED with err
 * (a link of another user's on the way, no /proc/self/fd). */
enum cd_status cli_run_anchor(struct run_state *s, char **path, struct cd_error *err);

/* Whether an output path of the run is one another user chooses (a link of theirs on it, or,
 * as root without --allow-root, a directory on its way that lets them decide); the one-line
 * reason into why. */
bool cli_run_foreign_output(const struct run_state *s, char *why, size_t cap);

/* Writes reproducers, seeds, views and manifest, keeping the output they replace as a generation
 * first: everything in full before anything is replaced. Returns an exit code. */
int cli_run_write_output(struct run_state *s);

/* Serialises the final state while the engine's table is alive; cli_run_write_state writes it
 * once the output is written, then prunes the generations to the last --generations. A failure
 * of either is a warning. */
void cli_run_encode_state(struct run_state *s);
void cli_run_write_state(struct run_state *s);

/* Points a refused run's outputs into DIR.rejected and drops its state. Returns an exit code. */
int cli_run_reject_paths(struct run_state *s);

/* The one line a refused run ends with, shown under -q too. */
void cli_run_say_refused(struct run_state *s);

/* cli_run_summary.c */

/* Writes "3 inputs skipped: 2 too large (limit 1 MiB), 1 unreadable" into buf; "" when none. */
const char *cli_run_skipped_text(const struct cd_ingest_stats *is, size_t limit, char *buf,
                                 size_t cap);

/* The summary at the end (text on stderr unless -q, --json-summary on stdout), code the exit
 * code. */
void cli_run_print_summary(struct run_state *s, int code);

/* -v: each target's executor, the workers, the reducer passes' report (freed). */
void cli_run_print_details(struct run_state *s, char *report);

#endif
