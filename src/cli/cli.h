/* The command-line tool's own vocabulary, shared by main.c and cli_*.c only: parsed options, the
 * exit codes, and the entry point of each mode. Nothing in the engine library includes this. */
#ifndef CD_CLI_H
#define CD_CLI_H

#define CLI_CRASH_FRAMES_MAX 16 /* --crash-frames */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/cd_distill.h"
#include "ingest/cd_ingest.h"
#include "output/cd_manifest.h"

/* Exit codes (documented in --help and corpus-distill(1)). */
enum cli_exit {
    CLI_EXIT_OK = 0,         /* complete */
    CLI_EXIT_INCOMPLETE = 1, /* a budget or a signal ended the run; output valid */
    CLI_EXIT_USAGE = 2,
    CLI_EXIT_TARGET = 3,     /* target missing, not instrumented, handshake or restart failed */
    CLI_EXIT_INPUT = 4,      /* no usable input at all */
    CLI_EXIT_OUTPUT = 5,     /* cannot write, refused to overwrite */
    CLI_EXIT_NOMEM = 6,      /* out of memory */
    CLI_EXIT_REFUSED = 7,    /* a collapse refused (cli_guard.c): the output kept, the run's
                                written aside to DIR.rejected */
};

/* The shared vocabulary (cli_msgs.c), which every mode uses and which uses no other cli_*.c. */

/* The exit code of a failure that err reports, where context is the code of the operation that
 * failed: an error of a kind of its own (out of memory, input, target, output) takes that kind's
 * code, one of no particular kind the context's. */
int cli_exit_for(const struct cd_error *err, int context);

/* Prints "corpus-distill: MESSAGE" as one line on stderr. */
void cli_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes s to f with controls, C1 and bidi characters escaped (cd_shown_char, backslashes
 * kept): what every line on the terminal goes through. */
void cli_put_safe(FILE *f, const char *s);

/* Anchors: a run reaches its outputs through their directories opened once, as
 * "/proc/self/fd/N/NAME" (cli_run.c); shown, such a path reads as given. cli_anchor_shown_add
 * registers directory fd and the text it stands for ("camp/", "" for a bare name);
 * cli_shown_path copies text into buf with each registered "/proc/self/fd/N/" replaced by its
 * text (every line cli_msg and cli_warn print goes through it); cli_anchors_release forgets
 * them. */
void cli_anchor_shown_add(int fd, const char *prefix);
const char *cli_shown_path(const char *text, char *buf, size_t cap);
void cli_anchors_release(void);

/* The printer: what reaches the terminal goes through cli_msg, cli_warn, cli_line, cli_status
 * and the JSON printers (tests/docs/printer.sh fails on a direct stdio call elsewhere). */

/* Prints one line on f: the formatted text, paths as given (cli_shown_path), every character
 * cd_shown_char hides escaped (a value read from a file or a target can never move the cursor,
 * recolour, reorder or start a line of its own), then a newline. */
void cli_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print our own text as it is (cli_puts: as fputs does), for help pages and the completion
 * script, made of the option tables and constants alone: never a value read from anywhere. */
void cli_text(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_puts(const char *text, FILE *f);

/* The status line on stderr: back to the line's start and cleared, then line escaped, at most
 * width columns of it; cli_status_clear clears it. */
void cli_status(const char *line, int width);
void cli_status_clear(void);

/* Prints "corpus-distill: warning: MESSAGE" as one line on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "corpus-distill: MSG" and the --help hint; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* With on, cli_usage_error also writes its message as the --json-summary failure line. */
void cli_usage_json(bool on);

/* Prints j as one line on stdout (flushed), then frees it; cli_put_json_as with json-c's
 * JSON_C_TO_STRING_* flags. */
struct json_object;
void cli_put_json(struct json_object *j);
void cli_put_json_as(struct json_object *j, int flags);

/* --json-summary for an exit that wrote nothing (2 to 5): {exit_code, complete: false, error} as
 * one line on stdout. */
void cli_failure_json(int code, const char *msg);

/* Formats a byte count as "1.2 MiB" into buf. */
const char *cli_bytes(uint64_t n, char *buf, size_t cap);

/* " (~12M execs left, ~3.2 h)" at rate executions a second for cd_distill_progress.execs_left
 * (" (at least ~12M execs left, ~3.2 h)" with at_least), " (not converging yet)" for UINT64_MAX,
 * "" for 0, into buf; returns buf. */
const char *cli_execs_left(uint64_t left, bool at_least, double rate, char *buf, size_t cap);

/* Parses s, all of it, as a shard "K/N" (1 <= K <= N <= 65536) into *k and *n. */
bool cli_parse_shard(const char *s, unsigned *k, unsigned *n);

/* Adds the target argv (NULL-ended) named name (NULL: from its program's file name) to o; false
 * after a usage error (an empty target, one too many). */
struct cli_opts;
bool cli_target_add(struct cli_opts *o, char **argv, const char *name);

/* Gives every target of o a name: its own, else its program's file name (characters other than
 * letters, digits, '.', '_' and '-' as '_'), a second of one name getting ".2"; false after a
 * usage error (an invalid or repeated given name). */
bool cli_targets_name(struct cli_opts *o);

/* Fills hex with the SHA-1 of the target binary (looked up in PATH without a slash), or "". */
void cli_target_sha1(const char *target, char hex[41]);

/* The run's target records from o, the run's executor options run and each target's own values
 * of target-scoped settings, with each binary's SHA-1 when sha1 (else "") and its identity. */
struct cd_target;
void cli_targets_fill(const struct cli_opts *o, const struct cd_exec_opts *run,
                      struct cd_target *targets, bool sha1);

/* The targets of o whose bit is set in mask, as "'a', 'b'", into buf; returns buf. */
const char *cli_targets_names(const struct cli_opts *o, uint32_t mask, char *buf, size_t cap);

/* The bits of the targets whose executor has neither persistent mode nor a deferred fork
 * server (the build that decides the speed); their names as " 'a', 'b'" into buf with several
 * targets, "" with one. */
uint32_t cli_targets_slow(const struct cli_opts *o, const struct cd_target *targets, char *buf,
                          size_t cap);

/* Whether o's targets get a view each (DIR.by-target/NAME): with several. */
bool cli_targets_views(const struct cli_opts *o);

/* How o's targets compare with a state's, by their identity lines (was, whose one-target form
 * takes its SHA-1 from was_sha1; now, this run's, its first target's SHA-1 now_sha1). */
enum cli_targets_change {
    CLI_TARGETS_AS_ONE,  /* one target on either side, or every target as it was: the SHA-1s
                            and the lines decide */
    CLI_TARGETS_SOME,    /* several on a side, the shared settings as they were, some targets
                            too (*same their bits) and not all, or not as many */
    CLI_TARGETS_OTHERS,  /* several on a side, the shared settings as they were, and no target
                            as it was */
};
enum cli_targets_change cli_targets_compare(const struct cli_opts *o, const char *was,
                                            const char *was_sha1, const char *now,
                                            const char *now_sha1, uint32_t *same);

/* The run's identity as the state records it (cd_identity.h): the settings that change labels
 * and each target's SHA-1, map size, own settings and arguments, with the shard, written from
 * those fields. Owned; NULL when out of memory. */
struct cli_resolved;
char *cli_targets_identity(const struct cli_opts *o, const struct cli_resolved *r,
                           const struct cd_target *targets);

enum cli_mode {
    CLI_MODE_DISTILL,
    CLI_MODE_AUDIT,
    CLI_MODE_HELP,
    CLI_MODE_AUDIT_HELP,
    CLI_MODE_CMIN_HELP,
    CLI_MODE_VERSION,
    CLI_MODE_RESTORE,
};

#define CLI_TARGET_VALUES_MAX 64

/* Settings parsed from argv and the environment; run state lives elsewhere. */
struct cli_opts {
    enum cli_mode mode;
    const char *help_page;       /* --help GROUP, "all", "merge", "restore"; NULL: the short one */
    /* distill */
    const char *out_dir;
    const char *input_file;      /* -f FILE: the fixed path the target reads; NULL: @@ or stdin */
    unsigned timeout_ms;         /* 0: calibrate */
    unsigned mem_limit_mb;       /* 0: none */
    unsigned jobs;               /* 0: online CPUs */
    bool no_bind;
    uint64_t seed;
    enum cd_distill_order order; /* --order */
    uint64_t max_time_s;
    uint64_t cover_time_s;       /* --cover-time: the exact cover's wall time; 0: greedy only */
    uint64_t max_execs;
    bool no_reduce;
    bool edges_only;             /* -e: edge labels, hit counts ignored */
    bool all_best;               /* every distinct best example is a seed, no cover selection */
    bool keep_found;             /* labels found in reduction are seeded whatever they cost */
    size_t max_input_size;
    size_t seen_mem;             /* --seen-mem: bytes; 0 for the engine's default */
    bool raw_archives;
    const char *crashes_dir;     /* NULL: DIR.crashes */
    unsigned crash_frames;       /* program frames in a bug's crash state (3); 0: kind only */
    const char *manifest;        /* NULL: DIR.manifest.json */
    const char *state;           /* NULL: DIR.state */
    bool no_state;               /* neither read nor write a state */
    bool cmin;                   /* "cmin": afl-cmin's interface (cli_cmin.c) */
    bool cmin_crashes;           /* cmin -C: crashing inputs only */
    bool cmin_allow_any;         /* cmin -A: crashing and hanging inputs kept too */
    uint64_t checkpoint_s;       /* seconds between checkpoints; 0: at the end only */
    bool tar;                    /* write DIR.tar.zst instead of DIR */
    bool force;
    int verbosity;               /* -1 quiet, 0 normal, 1 verbose */
    bool json_summary;
    unsigned shard, shards;      /* --shard K/N: inputs, or with merge labels; 0: all */
    bool merge;                  /* "merge STATE...": the inputs are shards' state files */
    const char **inputs;         /* points into argv, or into lists[0] (--inputs-from) */
    size_t n_inputs;
    /* The targets, in order: each "-- TARGET [ARGS...]", then each --target-from file, then each
       line of --targets; NULL-ended argument vectors into argv or lists */
    struct cli_target {
        char **argv;             /* NULL-ended, into argv or lists */
        const char *name;        /* its name in labels and views */
        char name_buf[80];       /* the name made from its program's, when not given */
    } targets[CD_LABEL_TARGETS_MAX];
    unsigned n_targets;
    const char *inputs_from;     /* --inputs-from FILE: more inputs, one path a line */
    const char *target_from[CD_LABEL_TARGETS_MAX]; /* --target-from FILE: a target, one */
    unsigned n_target_from;                         /* argument a line */
    const char *targets_file;    /* --targets FILE: targets, one a line */
    /* owned: the text of those files, split at its newlines, and the targets' vectors into it */
    void **owned;
    size_t n_owned;
    bool allow_root;             /* --allow-root: run as root over another user's directory */
    double collapse;             /* --collapse F: refuse seeds under F of the last edges; 0 off */
    bool accept_collapse;        /* --accept-collapse: write a collapse all the same */
    unsigned generations;        /* --generations N: replaced outputs kept */
    const char **optional;       /* owned, NULL-ended: inputs marked '?' in --inputs-from */
    const char *restore_gen;     /* restore DIR [GENERATION]: its name, NULL for the newest */
    bool restore_list;           /* restore --list DIR */
    /* audit */
    const char *audit_manifest;
    const char *audit_seed;
    const char *audit_label;
    const char *audit_diff;
    bool audit_json;
    const char *audit_coverage;  /* --coverage BIN: measure source coverage on this build */
    char **audit_cov_args;       /* after "--": BIN's arguments ("@@": the example's file);
                                    NULL: "@@" alone. Never the manifest's: a manifest is a file
                                    anyone may write, and what it says is never run */
    const char *audit_function;  /* --function NAME */
    const char *audit_line;      /* --line FILE:N */
    bool audit_uncovered;        /* --uncovered */
    bool audit_crashes;          /* --crashes */
    const char *audit_html;      /* --html DIR: the report */
    const char *ids;             /* --ids FILE (both modes): afl-clang-lto's edge ID file */
    /* Target-scoped settings given for one target ("-t NAME=MS"): the row of cli_settings, the
       target's name as given, the value (folded into the run's with one target) */
    struct cli_target_value {
        size_t row;
        const char *target;
        uint64_t value;
    } target_values[CLI_TARGET_VALUES_MAX];
    size_t n_target_values;
};

/* What the run made of the command line and the environment, for the settings a run reports or
 * hands on beyond what struct cli_opts holds (cli_resolve). */
struct cli_resolved {
    unsigned jobs;               /* -j, or the online CPUs */
    uint64_t seen_mem;           /* --seen-mem, or the engine's default */
    uint64_t max_time_ms;        /* --max-time in milliseconds */
    bool first_pass_once;        /* AFL_NO_STARTUP_CALIBRATION */
    int crash_exitcode;          /* AFL_CRASH_EXITCODE ... */
    bool crash_exitcode_set;     /* ... when it is set */
    size_t map_size;             /* AFL_MAP_SIZE, 0: the size the target reports */
};

/* The settings table (cli_settings.c): one row a setting, from where its value is to where it
 * goes. */
enum cli_setting_kind {
    CLI_SET_U64,                 /* uint64_t or size_t */
    CLI_SET_UINT,                /* unsigned */
    CLI_SET_BOOL,
    CLI_SET_SIZE,                /* size_t */
    CLI_SET_ORDER,               /* enum cd_distill_order, by name */
    CLI_SET_SHARD,               /* "K/N" of --shard, or null: written by code */
    CLI_SET_MAP_SIZE,            /* the size the target reports: given by the caller */
    CLI_SET_EXITCODE,            /* AFL_CRASH_EXITCODE, or "none" when unset */
};
enum cli_setting_from { CLI_FROM_OPTS, CLI_FROM_RESOLVED, CLI_FROM_CODE };
/* A run's setting holds for every target; a target's may also be given for one target by name
 * ("-t html=2000"): copied into that target's executor options, written in its identity line. */
enum cli_setting_scope { CLI_SCOPE_RUN, CLI_SCOPE_TARGET };
struct cli_setting {
    const char *name;            /* in the manifest's "settings" and the state's identity */
    enum cli_setting_kind kind;
    enum cli_setting_from from;
    size_t at, size;             /* the value's offset and size in its struct */
    size_t engine, engine_size;  /* where it goes in struct cd_distill_opts (SIZE_MAX: not) */
    size_t exec, exec_size;      /* where it goes in struct cd_exec_opts (SIZE_MAX: not) */
    bool manifest;               /* in the manifest's "settings" */
    unsigned identity;           /* its place in the state's identity line (it changes labels);
                                    0: not there */
    bool omit_zero;              /* left out of the identity when 0 */
    const char *values;          /* the texts it may hold, "a|b|c"; NULL: any */
    const char *meaning;
    enum cli_setting_scope scope;
};
#define CLI_SETTINGS_MAX 32
extern const struct cli_setting cli_settings[];
extern const size_t cli_n_settings;

/* Fills r from o, the workers the run takes and the environment. */
void cli_resolve(const struct cli_opts *o, unsigned jobs, struct cli_resolved *r);

/* Records spec "NAME=VALUE" of the target-scoped setting row (its name) for target NAME, the
 * value parsed by parse; false after a usage error (no such row, a bad value, too many). */
bool cli_settings_for_target(struct cli_opts *o, const char *row, const char *spec,
                             bool (*parse)(const char *text, uint64_t *value));

/* Once the targets are named: every target-scoped value names one of them (else a usage error
 * and false); with one target they become the run's values. */
bool cli_settings_targets_check(struct cli_opts *o);

/* Copies target t's own values of target-scoped settings into dst, the executor's options of
 * that target (after cli_settings_apply). */
void cli_settings_apply_target(const struct cli_opts *o, unsigned t, struct cd_exec_opts *dst);

/* Target t's own values of target-scoped settings that change labels into it->own, in the
 * identity's order (their text in store, cap bytes); false when store is too small. */
struct cd_identity_target;
bool cli_settings_identity_target(const struct cli_opts *o, unsigned t,
                                  struct cd_identity_target *it, char *store, size_t cap);

/* Frees the names of the target-scoped values of o, which then holds none. */
void cli_settings_release_targets(struct cli_opts *o);

/* Copies every setting the engine's (CLI_TO_ENGINE: a struct cd_distill_opts) or the executor's
 * options (CLI_TO_EXEC: a struct cd_exec_opts) take into dst. */
enum cli_setting_to { CLI_TO_ENGINE, CLI_TO_EXEC };
void cli_settings_apply(const struct cli_opts *o, const struct cli_resolved *r,
                        enum cli_setting_to to, void *dst);

/* The manifest's settings in the table's order into out (room for CLI_SETTINGS_MAX; texts
 * borrowed, the shard's in shard); returns how many. */
size_t cli_settings_manifest(const struct cli_opts *o, const struct cli_resolved *r,
                             struct cd_manifest_setting *out, char shard[32]);

/* The settings that change labels into id's shared fields, in the order of the state's identity
 * line (their values' text in store, cap bytes); with one_target, id->map_at gets the place of
 * the target's map size among them. False when store is too small. */
struct cd_identity;
bool cli_settings_identity(const struct cli_opts *o, const struct cli_resolved *r,
                           bool one_target, struct cd_identity *id, char *store, size_t cap);

/* Parses argv into *o. On a usage error, prints one line and the --help hint to stderr and returns
 * false. What o holds is released with cli_opts_release in either case. */
bool cli_parse(int argc, char **argv, struct cli_opts *o);

/* Frees what cli_parse allocated in o. */
void cli_opts_release(struct cli_opts *o);

/* Prints the help page named page (struct cli_opts' help_page; NULL: the short --help, one
 * 80x24 screen) from the option tables. */
void cli_print_help(FILE *f, const char *page);

/* "cmin": parses afl-cmin's options (argv[1] is "cmin") into o, a select-only run without state
 * or manifest; false after printing afl-cmin's kind of error. */
bool cli_parse_cmin(int argc, char **argv, struct cli_opts *o);

/* Prints "cmin -h". */
void cli_print_cmin_help(FILE *f);

/* Whether cmin may write to out: missing or empty, as afl-cmin wants it (else prints its error). */
bool cli_cmin_check_out(const char *out);

/* Writes the examples cmin keeps from r into o->out_dir under their inputs' names (",N" added on
 * a clash), whole or not at all; *files gets their number. */
struct cd_result;
enum cd_status cli_cmin_write(const struct cli_opts *o, const struct cd_result *r, size_t *files,
                              struct cd_error *err);

/* Prints "audit --help" from audit's option table. */
void cli_print_audit_help(FILE *f);

/* Prints the bash completion script, generated from both option tables. */
void cli_print_completion(FILE *f);

/* cd_emit_opts.read_owned: what the manifest at path owns (its seed directory's name and seed
 * files), read with cd_manifest_read; false when it is no readable manifest. */
struct cd_emit_owned;
bool cli_manifest_owned(const char *path, struct cd_emit_owned *out);

/* The guard against a collapse (cli_guard.c): what the first pass showed against the last run's
 * manifest. Zero-initialise. */
struct cli_guard {
    const char *cause;           /* NULL: none fired; "crashes", "same-traces", "edges" */
    bool accepted;               /* one fired, and --accept-collapse took the run all the same */
    char line[600];              /* what fired, with its figures */
    bool before;                 /* a readable manifest of the last run is beside the output */
    uint64_t before_seeds;       /* its seeds */
    uint64_t *edges_before;      /* per target of the run: edges the last manifest's seeds
                                    show of it; NULL without figures */
};

/* Reads the last run's manifest at manifest_path (none, or unreadable: no figures) into g: its
 * seeds, and the edges they show of each of o's targets (matched by name). */
void cli_guard_before(struct cli_guard *g, const char *manifest_path, const struct cli_opts *o);

/* Frees what cli_guard_before read into g. */
void cli_guard_release(struct cli_guard *g);

/* Checks the first pass (rs->first, table's labels, each target's executor info) against the
 * figures cli_guard_before read: a target on which no input ran normally (when the last seeds
 * showed edges of it, or every input crashed alike), one on which every input showed one trace
 * (with a word on a missing @@ when the target read no input at all), or one whose seeds would
 * show under o->collapse of the last edges. warm: the run started from a state of the same
 * targets (rerun: the targets it runs that state's examples on), when the first two checks need
 * what is new to be evidence. Returns true when one fired and --accept-collapse was not given
 * (cause, line); accepted is set when it was. */
struct cd_table;
bool cli_guard_check(struct cli_guard *g, const struct cli_opts *o,
                     const struct cd_result_stats *rs, const struct cd_table *table,
                     const struct cd_target *targets, bool warm, uint32_t rerun);

/* Checks that every input operand of o can be opened, but one marked optional ('?' in
 * --inputs-from: a warning) and the output directory itself, not there on the first night of a
 * nightly run that names it: CLI_EXIT_OK, or CLI_EXIT_INPUT with the one-line reason in why. */
int cli_guard_operands(const struct cli_opts *o, char *why, size_t cap);

/* The modes; each returns the process exit code. */
int cli_run(const struct cli_opts *o);
/* "cmin" (cli_cmin.c): afl-cmin's output and status around a select-only run. */
int cli_cmin(const struct cli_opts *o);

/* The engine's part of a run for another driver (cmin): the same refusals, ingest and engine as
 * cli_run, no state, manifest or seeds written; *result (release with cd_result_release), the
 * inputs read and whether a signal stopped it. CLI_EXIT_OK, or an exit code after a message. */
int cli_run_engine(const struct cli_opts *o, struct cd_result *result, uint64_t *inputs,
                   bool *stopped);
int cli_audit(const struct cli_opts *o);
/* "restore DIR [GENERATION]" (cli_restore.c): puts a kept generation of DIR's output back (the
 * output it replaces kept as a generation in turn); with --list, lists them. */
int cli_restore(const struct cli_opts *o);
/* The source side of audit (cli_audit_source.c): measures the seeds and reproducers of m on the
 * coverage build --coverage names (those not yet measured on it), then answers --function,
 * --line or --uncovered from the record beside the manifest, or lists what each seed reaches. */
int cli_audit_source(const struct cli_opts *o, const struct cd_manifest *m);
/* The source side of audit --diff: when both manifests have a source coverage record beside
 * them, the functions and lines reached gained and lost, printed (j NULL) or added to j as
 * "source"; a warning when only one has a record. */
struct json_object;
/* audit --html (cli_audit_html.c): writes the report of m into o->audit_html, its seeds and
 * reproducers read from seed_dir and crashes_dir, with the source pages when c (the source
 * coverage record, or NULL) holds any; returns an exit code. */
struct cd_srccov;
int cli_audit_html(const struct cli_opts *o, const struct cd_manifest *m, const char *seed_dir,
                   const char *crashes_dir, const struct cd_srccov *c);
void cli_audit_source_diff(const char *now_manifest, const char *old_manifest,
                           struct json_object *j);

/* The state file of a run (cli_state.c). Zero-initialise, set path (owned; NULL: no state) and
 * targets, then cli_state_start; release with cli_state_release. */
struct cli_state {
    char *path;
    const struct cd_target *targets; /* the run's (their SHA-1s, map sizes, own settings) */
    /* A warm start of several targets where some changed or were added: their bits, the
       targets the state's examples run on (cd_distill_rerun_targets); 0 otherwise */
    uint32_t rerun;
    const char *start;          /* "none", "cold", "warm", "target changed", "settings changed",
                                   "unreadable" */
    char note[1024];            /* a line for stderr and the manifest; "" when none */
    char *settings;             /* this run's settings that change labels, as one line */
    struct cd_table_meta prev;  /* what the state read said of itself */
    uint64_t runs, execs, wall_ms; /* the earlier runs' totals */
    /* The baseline the seeds are weighed against (struct cd_table_meta): the state's, else this
       run's first pass once it is over (cli_state_baseline) */
    uint64_t base_run, base_select_only, base_cmin;
    uint64_t start_ns;
    unsigned saved;             /* saves that succeeded */
    bool warned;                /* a failed checkpoint was reported */
    bool hold;                  /* no checkpoint replaces the last state yet: the guard against
                                   a collapse has not passed (cli_run.c clears it) */
};

/* Refuses (FAILED, a message naming path) to let the run replace path with its state when a file
 * is there that corpus-distill did not write (not a regular file, or not starting as a state),
 * unless force. */
enum cd_status cli_state_check(const char *path, bool force, struct cd_error *err);

/* Reads st->path and decides how the run starts: *warm gets the saved table (owned) when the
 * targets and settings are the same, *old gets it when a setting or every target differs (its
 * examples are to run as inputs), neither when there is no state (start "cold"), no path
 * ("none") or it cannot be read ("unreadable", st->note says why). With several targets, when
 * only some changed or were added (a target keeps its place in the list, binary and arguments),
 * *warm gets the table without their labels and st->rerun their bits ("targets changed").
 * The targets are st->targets. Returns 0, or -1 when out of memory. */
int cli_state_start(struct cli_state *st, const struct cli_opts *o,
                    const struct cli_resolved *res, size_t seen_mem, struct cd_table **warm,
                    struct cd_table **old);

/* cli_state_start for "merge STATE...": loads every state o->inputs names and merges them
 * (cd_table_merge) into *warm when they were made by this target and these settings (their
 * shards aside), else into *old (their examples are to run as inputs); start "merged", the
 * totals of runs, executions and time are the states' sums. FAILED (kind INPUT, one line naming
 * the file) when a state cannot be read or the states come from different targets or settings. */
enum cd_status cli_state_merge(struct cli_state *st, const struct cli_opts *o,
                               const struct cli_resolved *res, size_t seen_mem,
                               struct cd_table **warm, struct cd_table **old,
                               struct cd_error *err);

/* Takes this run's first pass (its select-only cover's bytes and afl-cmin's rule's) as the
 * baseline the state carries on, unless the state read had one. */
void cli_state_baseline(struct cli_state *st, uint64_t select_only, uint64_t cmin);

/* Encodes t with this run's identity and totals (this run: execs, wall_ms) into *buf (owned) and
 * *len, for cli_state_write. */
enum cd_status cli_state_encode(const struct cli_state *st, const struct cd_table *t,
                                uint64_t execs, uint64_t wall_ms, bool complete, uint8_t **buf,
                                size_t *len, struct cd_error *err);

/* Writes buf to st->path atomically and counts the save. */
enum cd_status cli_state_write(struct cli_state *st, const uint8_t *buf, size_t len,
                               struct cd_error *err);

/* cd_distill_opts.checkpoint: ctx is a struct cli_state; warns once on stderr if a save fails. */
void cli_state_checkpoint(void *ctx, struct cd_table_snapshot *snap, uint64_t execs);

void cli_state_release(struct cli_state *st);

/* Progress display and final summary. */
struct cli_progress;
struct cli_progress *cli_progress_new(int verbosity);
void cli_progress_free(struct cli_progress *p);
/* cd_distill_opts callbacks; ctx is a struct cli_progress. */
void cli_progress_cb(void *ctx, const struct cd_distill_progress *p);
void cli_progress_warning(void *ctx, const char *msg);
/* Clears a live status line so that other output starts on a clean line. */
void cli_progress_clear(struct cli_progress *p);

#endif
