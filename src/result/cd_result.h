/* The outcome of a distillation as the emit and manifest modules see it: the best examples, which
 * labels each shows and is best for, and the run's counters. The engine builds it from its table
 * (cd_distill_result); emit, the manifest writer and the summary read it. It owns all it points to. */
#ifndef CD_RESULT_H
#define CD_RESULT_H

#include "common/cd_common.h"
#include "cd_cover.h"
#include "table/cd_labels.h"

/* One distinct best example. Seeds are those best for some coverage label and showing no outcome
 * label; reproducers show a crash, sanitizer or timeout label and are never seeds. */
struct cd_result_example {
    uint8_t *data;
    size_t len;
    char *origin;                /* provenance of the input it was reduced from */
    struct cd_labelset labels;   /* every label it shows, sorted */
    struct cd_labelset best;     /* the labels it is the best example of, sorted */
    bool reproducer;             /* shows an outcome label: written apart from the seeds */
    bool baseline;               /* in the engine's last seed cover (at first the select-only
                                    one): the cover never weighs more than these */
    bool left_out;               /* best for found labels only, not worth their bytes as a seed,
                                    or a crashing or hanging input best for no outcome label:
                                    neither seed nor reproducer, kept in the state only */
    char sha1[41];               /* hex SHA-1 of data: its file name */
};

/* One label and its best example. */
struct cd_result_label {
    uint32_t id;
    size_t example;              /* index into examples */
    bool finished;               /* reduction can do nothing more for it */
    bool found;                  /* found during reduction: no input showed it (a bonus label) */
    uint64_t shown;              /* first-pass inputs of this run that showed it */
    char *note;                  /* a bug label's crash state (cd_table_note), or NULL */
};

/* What the first pass saw of one target, for the guard against a collapse (cli_guard.c): the
 * inputs run on it, those that ended normally (no crash, no hang), and whether they all showed
 * one trace (the same labels, outcome labels included). */
struct cd_result_first {
    uint64_t runs, ok;
    uint64_t trace;              /* a hash of the first run's labels */
    bool traces_differ;          /* a later run showed other labels */
};

/* Counters of the run. */
struct cd_result_stats {
    uint64_t inputs;             /* inputs offered by ingest */
    uint64_t input_bytes;
    uint64_t duplicates;         /* inputs whose content was already executed */
    uint64_t other_shards;       /* inputs left to the other shards (--shard), not counted above */
    uint64_t execs;              /* target executions */
    uint64_t first_pass_execs;
    uint64_t recheck_execs;      /* second runs of inputs that showed a new label (unstable edges) */
    uint64_t other_target_execs; /* runs of a reduced example on the other targets (several) */
    uint64_t crashes;            /* executions that crashed */
    uint64_t timeouts;           /* executions that timed out */
    uint64_t wall_ns;
    uint64_t labels_input;       /* labels known after the first pass */
    uint64_t select_only_bytes;  /* seed bytes of the first pass's cover (the --no-reduce output) */
    uint64_t cmin_bytes;         /* bytes afl-cmin's rule picks from the first pass (0 if unknown) */
    uint64_t baseline_run;       /* the run whose first pass gave the two below (the state's
                                    count of runs; 0: none known, this run's stopped early) */
    uint64_t baseline_select_only_bytes; /* select_only_bytes of that run: of the inputs as */
    uint64_t baseline_cmin_bytes;        /* they came, when it started cold; and cmin_bytes */
    uint64_t cover_bound;        /* no seed cover of these examples weighs less (select_seeds) */
    uint64_t cover_lp_bound;     /* the cover's linear relaxation, rounded up (0: not solved) */
    uint64_t cover_required_bytes; /* the seed cover's bytes before found labels' (the bound's) */
    uint64_t cover_greedy_bytes; /* the same cover as the greedy solver chose it */
    enum cd_cover_solver cover_solver; /* how the cover was chosen */
    uint64_t cover_solve_ms;     /* wall time of the exact solve */
    uint64_t labels_left_out;    /* found labels no seed shows, not worth their bytes */
    uint64_t left_out_bytes;     /* the bytes of their best examples (select_seeds) */
    /* Coverage labels only crashing inputs show whose best example reproduces no outcome label
       of its own, kept in the state (select_seeds with per_outcome), and those examples' bytes. */
    uint64_t crash_only_labels, crash_only_bytes;
    /* Seeds kept only for size-bound labels (higher hit-count classes of edges that a shorter
       example in the output shows at a lower class: only a longer input showed the count) and
       those labels: the bytes the hit counts cost, which a cover by edges alone would not keep
       (select_seeds). */
    uint64_t size_bound_labels, size_bound_bytes;
    uint64_t seen_forgotten;     /* seen-set entries forgotten to stay within its memory bound */
    uint64_t seen_bytes;         /* memory the seen-set took at the end */
    /* Executions left to the fixed point (cd_result_execs_left, as
       cd_distill_progress.execs_left): 0 unknown or none, UINT64_MAX not converging; with
       execs_left_at_least, a lower bound only. */
    uint64_t execs_left;
    bool execs_left_at_least;
    struct cd_result_first first[CD_LABEL_TARGETS_MAX]; /* per target */
    bool complete;               /* every label finished, nothing stopped the run early */
    const char *stopped_by;      /* NULL, "signal", "max-time", "max-execs", "error" */
    const char *error;           /* with "error": what failed (borrowed), else NULL */
    const char *guard;           /* the guard against a collapse that fired ("crashes",
                                    "same-traces", "edges"; borrowed), else NULL */
    bool guard_accepted;         /* it fired and the run was taken all the same */
    const char *guard_reason;    /* what fired, with its figures (borrowed), else NULL */
};

/* One point of the run's course: time, executions, labels, finished labels, seed bytes; the
 * bytes of the best examples of the labels not finished (each example once), and the executions
 * left as estimated there (cd_result_execs_left, in reduction; 0 in older manifests). */
struct cd_result_point {
    uint64_t ms, execs, labels, finished, seed_bytes;
    uint64_t unfinished_bytes, execs_left;
    bool execs_left_at_least;
    double unfinished_work;   /* cd_result_example_work of those examples; not in manifests */
};

struct cd_result {
    struct cd_result_example *examples; /* sorted by sha1 */
    size_t n_examples;
    struct cd_result_label *labels;     /* sorted by id */
    size_t n_labels;
    struct cd_result_stats stats;
    struct cd_result_point *series;     /* the run's course, oldest first */
    size_t n_series;
    uint32_t *unstable;                 /* edges whose labels flicker, ascending: left out */
    size_t n_unstable;
    /* A run of several targets: per example, a bit for each target whose view holds it
       (cd_result_select_seeds); NULL for one target. */
    uint32_t *views;
};

/* Builds *out from table t and the counters in stats (copied): the distinct best examples sorted
 * by SHA-1 hex, each with every label it shows and those it is best for, reproducer when it shows
 * an outcome label; labels sorted by id, finished when skippable; the unstable edges. FAILED when
 * out of memory, with *out zeroed. Free with cd_result_release. */
struct cd_table;
enum cd_status cd_result_build(struct cd_result *out, const struct cd_table *t,
                               const struct cd_result_stats *stats, struct cd_error *err);

/* Narrows r to a seed corpus that still shows every coverage label its examples showed but found
 * ones: a weighted set cover by bytes (cd_cover_solve; never heavier than the baseline examples
 * completed for the labels they lack), found labels covered only where worth their bytes unless
 * keep_found, solved exactly within exact's time (NULL: greedy only), its bounds in stats; with
 * all_best, every example best for some
 * label instead. The empty example is taken last, only for labels nothing else shows. Each label
 * is then held by the smallest taken example that shows it; a found label no taken example shows
 * stays with its best, marked left_out (counted in stats); with per_outcome, so does a reproducer
 * best for no outcome label (counted apart): one reproducer per outcome label. With n_targets
 * above 1, r->views then says which examples each target's view holds (result_internal.h:
 * cd_result_choose_views): seeds, and examples kept for views alone (cd_result_in_view_only).
 * Other examples neither taken, reproducers nor in a view are dropped; `best` then lists the
 * labels an example holds. FAILED when out of memory, with r unchanged. */
enum cd_status cd_result_select_seeds(struct cd_result *r, bool all_best, bool keep_found,
                                      bool per_outcome, unsigned n_targets,
                                      const struct cd_cover_exact *exact, struct cd_error *err);

/* The executions left to the fixed point (every label finished) from a run's course. A run's
 * points carry the work of the unfinished labels' best examples (cd_result_example_work, each
 * example once): that work, said as a lower bound (*at_least) while the labels found since the
 * last point at or before three quarters of its executions are as many as those unfinished (the
 * tail still opens new labels, whose cost is not known yet). A course read from a manifest has no
 * work: the pace (the unfinished labels at the last point times what each unfinished label that
 * went cost since that earlier point). 0 when none are left or there are fewer than two points;
 * UINT64_MAX when the pace is wanted and the unfinished labels did not fall. Measurements:
 * tools/bench/FINDINGS.md. */
uint64_t cd_result_execs_left(const struct cd_result_point *series, size_t n, bool *at_least);

/* The executions an unfinished label's best example of len bytes costs until its labels are all
 * finished: CD_RESULT_WORK_SCALE * len^CD_RESULT_WORK_POWER. A long example costs less a byte than
 * a short one: the blocks pass's finest step grows with it (CD_REDUCE_BLOCK_STEPS), the lowering
 * passes skip it, and its first cuts take large parts at once. */
#define CD_RESULT_WORK_SCALE 22.0
#define CD_RESULT_WORK_POWER 0.75
double cd_result_example_work(size_t len);

/* The name of a cover solver as the manifest and --json-summary write it: "greedy", "optimal",
 * "capped", "failed". */
const char *cd_result_cover_solver_name(enum cd_cover_solver solver);

/* The distinct bugs of r: its bug labels, a crash state reached from several targets once. */
size_t cd_result_count_bugs(const struct cd_result *r);

/* r's reproducers whose crash or hang no sanitizer reported (cd_labels_unreported): a plain
 * build's signal, a crash exit status, a timeout; counted nowhere among the bugs. */
size_t cd_result_count_unreported(const struct cd_result *r);

/* How far the required seed cover may be above the best over the same examples, as a fraction of
 * its bound (0: optimal); 0 without a bound. */
double cd_result_cover_gap(const struct cd_result_stats *stats);

/* What the output holds of one target of several: its labels, those finished, its view's seeds
 * and bytes, the reproducers of its outcome labels, its bugs. */
struct cd_result_target {
    uint64_t labels, finished, seeds, seed_bytes, reproducers, bugs;
};

/* Counts target t's share of r (its views chosen by cd_result_select_seeds). */
struct cd_result_target cd_result_target_counts(const struct cd_result *r, unsigned t);

/* Frees everything r owns and zeroes it. */
void cd_result_release(struct cd_result *r);

/* Longest file name cd_result_file_name writes, with its NUL. */
#define CD_RESULT_NAME_MAX 192

/* Returns the file name (without directory) of example ex of r in the output into buf of at least
 * 64 bytes: "<sha1>" for a seed, "timeout-<sha1>" for a hang, "crash-<sha1>" for a crash, and for a
 * crash of a known bug, given CD_RESULT_NAME_MAX bytes, its kind, access and top frame between
 * ("crash-asan-heap-buffer-overflow-read-parse_chunk-<sha1>": letters, digits, '_' and '-'). */
const char *cd_result_file_name(const struct cd_result *r, const struct cd_result_example *ex,
                                char *buf, size_t cap);

/* True when example ex is a seed: not a reproducer, not left out, and best for some coverage
 * label. */
bool cd_result_is_seed(const struct cd_result_example *ex);

/* True when example i of r is in some target's view without being a seed: written only there
 * (DIR.by-target/NAME), listed in the manifest's "view_only". */
bool cd_result_in_view_only(const struct cd_result *r, size_t i);

/* True when name is 40 lower-case hex digits: the name of a seed file. */
bool cd_result_is_seed_name(const char *name);

#endif
