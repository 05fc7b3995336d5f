/* Distillation engine: the first pass over every ingested input, then multi-objective reduction
 * (reduce best examples, for one label at a time chosen uniformly at random, or whole and largest
 * first, until every label is skippable), with N workers sharing one table. It reaches execution only through cd_runner_ops, so tests can drive it with
 * a pure label function; cd_distill_exec_runner adapts the real executor. */
#ifndef CD_DISTILL_H
#define CD_DISTILL_H

#include <signal.h>

#include "common/cd_common.h"
#include "exec/cd_exec.h"
#include "exec/cd_target.h"
#include "ingest/cd_ingest.h"
#include "table/cd_labels.h"
#include "result/cd_result.h"
#include "table/cd_table.h"

/* How the engine runs an input. One state per worker; calls on one state are never concurrent. */
struct cd_runner_ops {
    /* Opens worker `worker`'s runner; *state is passed to run and close. */
    enum cd_status (*open)(void *ctx, unsigned worker, void **state, struct cd_error *err);
    /* Runs len bytes on the targets whose bits are set in targets (bit t: target t of
     * cd_distill_opts.targets; a runner of one target may ignore it); fills labels (sorted,
     * unique, each in its target: cd_labels_in_target) and *outcome (a crash on any target
     * before a hang, a hang before a normal end). With quick, a hang may come back unconfirmed as
     * CD_OUTCOME_SLOW (cd_exec_run_quick), with the timeout label; without, never. WARN: the
     * input could not be delivered (err says why), labels and outcome unset. FAILED: our
     * machinery failed. */
    enum cd_status (*run)(void *state, uint32_t targets, const uint8_t *data, size_t len,
                          bool quick, struct cd_labelset *labels, enum cd_outcome *outcome,
                          struct cd_error *err);
    /* Releases the state. */
    void (*close)(void *state);
    /* May be NULL. The note of label id of the last run (a bug label's crash state), or NULL;
     * valid until the next run. The engine keeps it in the table (cd_table_note). */
    const char *(*note)(void *state, uint32_t id);
};

/* A snapshot for progress displays. */
struct cd_distill_progress {
    const char *phase;        /* "first pass", "reduce", "done" */
    uint64_t inputs;          /* inputs taken in */
    uint64_t execs;
    uint64_t labels;
    uint64_t labels_finished;
    uint64_t best_examples;   /* distinct best examples */
    uint64_t best_bytes;      /* their total size */
    uint64_t elapsed_ns;
    uint64_t seed_bytes;      /* the seed cover's bytes now (as the output would be written) */
    uint64_t seeds;           /* its examples */
    uint64_t select_only_bytes; /* the first pass's cover: the --no-reduce output; 0 until known */
    uint64_t cmin_bytes;      /* what afl-cmin's rule picks from the first pass; 0 until known */
    /* Executions left to the fixed point (every label finished), cd_result_execs_left: 0 when
       unknown (or none left), UINT64_MAX when the unfinished labels are not falling. In
       reduction only. */
    uint64_t execs_left;
    bool execs_left_at_least;    /* execs_left is a lower bound only (cd_result_execs_left) */
};

/* Most points of the run's course (cd_result.series) the engine keeps: one each time it computes
 * the seed cover (every 4,000 executions, or two per label when that is more), every other one
 * dropped when full. */
#define CD_DISTILL_SERIES_MAX 512

/* Default of cd_distill_opts.seen_mem: 256 MiB, some 17 to 32 million candidates remembered. */
#define CD_DISTILL_SEEN_MEM_DEFAULT ((size_t)256 << 20)

/* How reduction picks its next work. */
enum cd_distill_order {
    /* The default, where the seeds' bytes are: the largest example the seed cover holds is
       reduced whole under "keeps every label it is best for" (as in bytes order, but only the
       cover's examples), until no whole reduction of one changes anything; then a label
       uniformly at random among the unfinished ones, weighed by the bytes of its best example
       when the seed cover holds that example (a label whose best is in no seed weighs one
       byte), halved for each attempt at it that ended idle (STALL_EXECS in
       distill_internal.h). Measurements: tools/bench/FINDINGS.md. */
    CD_ORDER_COVER = 0,
    /* A label found during reduction, oldest first, before any other, then the write-up's
       uniform choice. The default while found labels were seeded whatever they cost: their first
       examples are long cut copies, and reducing them at once kept the seeds from growing
       (tools/bench/FINDINGS.md). Now that they enter the seeds only when worth their bytes,
       those attempts are spent on what no seed holds. */
    CD_ORDER_FRESH,
    /* The write-up's: a label uniformly at random among the unskippable ones. */
    CD_ORDER_UNIFORM,
    /* The largest best example not yet reduced whole is reduced under "keeps every label it is
       best for" (big cuts first, short attempts); once none is left, the unskippable label with
       the largest best example. On large files it spends its executions on slow runs of the
       largest examples (tools/bench/FINDINGS.md). */
    CD_ORDER_BYTES,
    CD_ORDER_COUNT /* not an order: how many there are */
};

/* The order's name on the command line and in the manifest. */
const char *cd_distill_order_name(enum cd_distill_order order);

struct cd_distill_opts {
    uint64_t seed;            /* label choice; same seed and one worker: byte-identical output */
    bool no_reduce;           /* first pass only (an afl-cmin-like selection) */
    bool first_pass_once;     /* the first pass runs no input twice (AFL_NO_STARTUP_CALIBRATION) */
    bool crashes_only;        /* only runs that crash reach the table (afl-cmin -C) */
    /* Labels found during reduction (no input showed them) are covered by the seed cover
     * whatever they cost; by default they are a bonus, covered only where worth their bytes
     * (cd_cover_solve), so that the cover never grows. */
    bool keep_found;
    enum cd_distill_order order;
    uint64_t max_execs;       /* stop after this many executions; 0 for no limit */
    uint64_t max_time_ms;     /* stop after this much wall time; 0 for no limit */
    unsigned jobs;            /* workers (0 counts as 1) */
    /* Targets the runner runs (0 counts as 1; at most CD_LABEL_TARGETS_MAX). Every input of the
     * first pass runs on each; a label is reduced on its own target alone, and a candidate kept
     * for it runs once on the others, what they show credited to it, so one seed can serve
     * several. */
    unsigned targets;
    /* The targets (targets of them; NULL: identities 0), whose identity (cd_target_id) is told
     * into the seen-set's key of a candidate run on some of them: a changed target's candidates
     * are not taken as tried by the one it replaces. */
    const struct cd_target *target_list;
    /* Shard shard of shards (1-based; shards 0 or 1: none): only inputs whose content hash (the
     * low 64 bits of XXH3-128) is shard - 1 modulo shards run, the others are counted in
     * other_shards. The content decides, so the split is the same however the inputs are ordered
     * or grouped, and adding inputs moves none of the others. */
    unsigned shard, shards;
    /* Label shard label_shard of label_shards (1-based; 0 or 1: none): reduction works only on
     * the labels whose id hashes to label_shard - 1 modulo label_shards; the others are kept as
     * they are, neither reduced nor marked. Runs over the same table, one per label shard, then
     * a merge of their tables, share out the reduction of one table. */
    unsigned label_shard, label_shards;
    /* Most executions one attempt at a label spends before another label is chosen (the label is
     * not finished by that: a later attempt carries on, the seen-set skipping what was tried);
     * 0 for the default: 500, or two per byte of the label's best example when that is more, an
     * attempt also ending, idle, when 512 executions took less than 32 bytes off the example. */
    unsigned attempt_execs;
    /* Memory the seen-set may take (0: CD_DISTILL_SEEN_MEM_DEFAULT). Past it, it forgets old
     * entries: a candidate met again after that runs again. */
    size_t seen_mem;
    volatile sig_atomic_t *stop; /* non-zero asks the run to stop early; NULL for none */
    /* Called at most a few times a second, and once at each phase change, without the engine's
     * lock and one call at a time, with a report taken under it; may be NULL. */
    void (*progress)(void *ctx, const struct cd_distill_progress *p);
    /* Called for each input skipped, by ingest or because the runner could not deliver it (the
     * message names it); may be NULL. With jobs > 1, called as progress is. */
    void (*warning)(void *ctx, const char *msg);
    void *cb_ctx;             /* passed to progress and warning */
    /* Called every checkpoint_ms of wall time (0: never), in the first pass and in reduction,
     * with a snapshot of the table (cd_table_snapshot, taken under the engine's lock) and without
     * the lock: the other workers carry on while it encodes and writes the snapshot
     * (cd_table_snapshot_save); one call at a time, never back into the engine; the engine frees
     * the snapshot after. execs: this run's so far. May be NULL. */
    void (*checkpoint)(void *ctx, struct cd_table_snapshot *snap, uint64_t execs);
    uint64_t checkpoint_ms;
    void *checkpoint_ctx;
};

struct cd_distill;

/* Creates an engine; ops and runner_ctx are borrowed for its lifetime. Opens one runner per job,
 * in order, on the calling thread. On success *out is owned, free with cd_distill_free.
 * With jobs > 1 the runners run on worker threads (one thread per runner state), and the callbacks
 * are called from them, never two calls of one at once: warning with an engine lock held,
 * progress and checkpoint without it; none may call back into the engine. With one job everything runs on the calling thread, and a given seed and
 * input order give the same executions in the same order, so the same result. */
enum cd_status cd_distill_new(struct cd_distill **out, const struct cd_distill_opts *opts,
                              const struct cd_runner_ops *ops, void *runner_ctx,
                              struct cd_error *err);

/* A warm start: replaces the engine's empty table by t (ownership taken, also on failure), a
 * table an earlier run of the same target and settings saved, before cd_distill_ingest. Inputs
 * in its seen-set then cost nothing, its finished labels stay finished until an input improves
 * them, and reduction carries on where that run ended. Its seen-set bound becomes the engine's. */
void cd_distill_adopt_table(struct cd_distill *d, struct cd_table *t);

/* Runs every example of old (a table another target or other settings made) through the first
 * pass as inputs, named by their origin, before cd_distill_ingest: what they show now is kept,
 * their old labels and finished marks are not. Same statuses as cd_distill_ingest. */
enum cd_status cd_distill_ingest_table(struct cd_distill *d, const struct cd_table *old,
                                       struct cd_error *err);

/* After cd_distill_adopt_table, when the saved table lacks the labels of some targets (added,
 * or changed and their labels dropped: cd_table_drop_targets): runs every example it keeps on
 * those targets alone (bits of targets), crediting each with what they show, or keeping it as a
 * reproducer of theirs when it crashes or hangs there; then cd_distill_ingest runs an input the
 * state had seen on those targets alone, once. Same statuses as cd_distill_ingest. */
enum cd_status cd_distill_rerun_targets(struct cd_distill *d, uint32_t targets,
                                        struct cd_error *err);

/* The engine's table, for saving it once the run is over (cd_distill_reduce returned): valid
 * until cd_distill_free. */
const struct cd_table *cd_distill_table(const struct cd_distill *d);

/* The run's counters so far (the first pass's per target among them), for a look between two
 * phases, when no worker runs: valid until the next call that runs anything. */
const struct cd_result_stats *cd_distill_stats(const struct cd_distill *d);

/* First pass: runs every input ing yields (seen contents once; duplicates counted), updating the
 * table. With jobs > 1 the workers take turns calling cd_ingest_next on ing (never two at once),
 * each copying its input before the next call. OK when the stream ended or a budget/stop cut it
 * short; FAILED on a runner or ingest failure. */
enum cd_status cd_distill_ingest(struct cd_distill *d, struct cd_ingest *ing, struct cd_error *err);

/* Reduction loop until every label is skippable, a budget runs out, or stop is set. Does nothing
 * with no_reduce. Coverage labels are reduced before outcome labels (crash, sanitizer, timeout),
 * and a label's reduction may spend at most 16 timed-out executions on candidates it does not
 * adopt: past that the label is left as it is and counted in the pass report. Candidates run
 * quick; a hang is confirmed (a second run under the long limit) at once only when it is the
 * first, and otherwise only as the timeout label's reproducer, once its reduction ends. FAILED
 * on a runner failure; the table keeps what was found. */
enum cd_status cd_distill_reduce(struct cd_distill *d, struct cd_error *err);

/* Fills *out with the best examples and labels as they are now, the select-only seeds among them
 * (marked baseline) and the run's course (series). Free with cd_result_release.
 * stats.complete is true only when the reduction loop ended with every label skippable and
 * nothing (signal, budget, failure, --no-reduce) cut it short. */
enum cd_status cd_distill_result(const struct cd_distill *d, struct cd_result *out,
                                 struct cd_error *err);

/* Writes one line per reducer pass (candidates tried, including those the seen-set answered
 * without an execution; candidates adopted; bytes removed), then the number of labels left at the
 * timeout cap, into a string; returns an owned string, free with free(), or NULL. */
char *cd_distill_pass_report(const struct cd_distill *d);

/* Closes the runners and frees the engine. NULL is a no-op. */
void cd_distill_free(struct cd_distill *d);

/* The runner over the real executor: each worker gets its own cd_exec (own fork server and map)
 * from exec_opts, and labels from cd_labels_from_run (with edges_only). With bind_cpus each
 * worker's target is bound to a CPU of its own: first_cpu + worker when cpu_fixed is set, else the
 * first allowed CPU that no process is bound to alone (as afl-fuzz picks one; the targets of
 * earlier workers count, so workers get different CPUs); when none is free the target runs
 * unbound. Without bind_cpus exec_opts->cpu is used as it is for worker 0 and -1 for the others.
 * The context is borrowed for the engine's lifetime and not thread-safe: one engine per context. */
struct cd_exec_runner_ctx {
    struct cd_target *targets;  /* n_targets of them: one executor each per worker, from their
                                   opts; the first worker's executor's info is written into
                                   their info after open, refreshed when it closes (execs,
                                   restarts), for the manifest */
    unsigned n_targets;         /* 0 counts as 1 */
    bool bind_cpus;
    bool cpu_fixed;           /* with bind_cpus: bind worker i to first_cpu + i, busy or not */
    unsigned first_cpu;
    bool edges_only;          /* labels are edges, hit counts ignored (afl-cmin -e) */
};
extern const struct cd_runner_ops cd_distill_exec_runner;

#endif
