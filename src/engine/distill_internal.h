/* What the distillation's own files share: the run and its workers, and the helpers each file
 * offers the files after it, in this order, each calling only the ones before it: distill.c, the
 * core and threads; distill_course.c, the seed cover, course, checkpoints and progress;
 * distill_exec.c, execution, offers and the unstable-edge recheck; distill_hang.c, hang
 * confirmation; distill_reduce.c, reducing a label or a whole example; distill_first.c, the first
 * pass; distill_schedule.c, choosing what to reduce. distill_runner.c, the runner over the
 * executors, stands apart (cd_distill.h). Nothing outside src/engine/ includes this. */
#ifndef CD_DISTILL_INTERNAL_H
#define CD_DISTILL_INTERNAL_H

#include "result/cd_cover.h"
#include "cd_distill.h"
#include "common/cd_hash.h"
#include "reduce/cd_reduce.h"
#include "table/cd_table.h"

#include <pthread.h>
#include <stdatomic.h>

/* Most timed-out executions one label's reduction may spend on candidates it does not adopt
 * (each costs at least the calibrated timeout, and a second more when it must be confirmed);
 * past it the label is left as it is and marked finished. Hangs the timeout label's reduction
 * adopts do not count: each shortens the reproducer, and the attempt's execution cap bounds
 * them. */
#define TIMEOUT_CAP 16
/* Default of opts.attempt_execs: most executions one attempt at a label may spend before the
 * worker moves on to another random label (raised to two per byte of a large example, but see
 * STALL_EXECS). The label
 * is not finished then: a later attempt starts again from its current best, and the seen-set
 * answers the candidates already tried without running them, so it carries on where this one
 * stopped. Without it one large example would take a large share of a budget while every other
 * label waits as it was found (measurements: tools/bench/FINDINGS.md, ATTEMPT_EXECS). */
#define ATTEMPT_EXECS 500
/* With the default cap, an attempt at a label also ends, idle, when STALL_EXECS executions saved
 * less than STALL_BYTES of its example, and the label choice halves the label's weight for each
 * idle attempt at it (cd_table_idle): a label whose example cannot get shorter no longer takes a
 * budget by a trickle of small cuts, each of which started every pass again (measurements:
 * tools/bench/FINDINGS.md, STALL_EXECS). */
#define STALL_EXECS 512u
#define STALL_BYTES 32u
/* Most executions one attempt at reducing a whole example spends (see reduce_whole). */
#define WHOLE_EXECS 100
/* Most provisional reproducers a worker keeps (struct worker, prov): the newest are tried first
 * when the reduction ends, and a hang that does not confirm is rare. */
#define PROV_KEEP 4
#define PROGRESS_NS 250000000ull
/* The seed cover is recomputed (with the lock held: milliseconds on tens of thousands of labels)
 * every COVER_EXECS executions, or two per label when that is more: by executions, not time,
 * since each cover is the next one's ceiling and one worker with one seed must write the same
 * output however fast the machine is. The run's course keeps a point of each. */
#define COVER_EXECS 4000u

struct worker {
    struct cd_distill *d;
    unsigned index;
    pthread_t thread;
    struct cd_error err;
    /* Each part below is written by the file its comment names; the others only read what it
       says they read. distill.c frees every part and sums the counters into the pass report. */
    /* execution (distill_exec.c); its labels are read by every file that runs a candidate */
    struct {
        void *state;               /* runner state (distill.c opens and closes it) */
        uint32_t targets;          /* the targets its work runs on (bit t: target t) */
        struct cd_labelset labels; /* labels of the last run */
        struct cd_labelset again;  /* labels of its second run (recheck) */
        uint64_t changes;          /* table changes made by this worker's own offers */
    } exec;
    /* the first pass with workers (distill_first.c): its copy of the input it runs */
    struct {
        uint8_t *in_data;
        size_t in_cap;
        char *in_name;
        size_t in_name_cap;
    } first;
    /* the work in progress (distill_reduce.c; distill_schedule.c sets label, whole and serial
       when it hands work out, and distill_exec.c and distill_hang.c read them): the reduction
       of label, or of a whole example (whole) that was best for the labels in whole_labels when
       it started */
    struct {
        struct cd_reducer red;
        struct cd_reducer donor_red;      /* counters of donor starts, kept apart from red's */
        uint64_t donor_tries, donor_wins; /* donor starts, and those that improved their label */
        bool whole;
        struct cd_labelset whole_labels;
        uint32_t label;
        bool active;          /* reducing label now, as its owner or as a helper */
        uint64_t serial;      /* the label's best example as this worker knows it */
        char *origin;
        bool stale;           /* the label's best moved on under us */
        unsigned execs;       /* executions of this attempt */
        uint64_t attempt_cap; /* its limit */
        bool yielded;         /* hit attempt_execs, or ended idle */
        bool idle;            /* ended idle (STALL_EXECS) */
        size_t cut_len;       /* the shortest example it adopted (its start at first), */
        size_t window_len;    /* and that length STALL_EXECS executions ago */
        uint64_t label_attempts, idle_attempts; /* own attempts at labels, and idle ones */
    } work;
    /* helping with another worker's label (distill_schedule.c; the reduction counts its
       executions, an offer what it adopted) */
    struct {
        bool helping;           /* label is another worker's claim (choose_help) */
        uint32_t helped;        /* the label this worker last helped with, and its best */
        uint64_t helped_serial; /* example then: no help again until that best moves on */
        uint64_t help_tries, help_execs, help_adopted; /* starts, executions, adoptions */
    } help;
    /* hangs (distill_hang.c; the reduction resets the counts as an attempt starts). The timeout
       label's own reduction adopts a shorter hang unconfirmed, and confirms only the newest when
       it ends (settle), falling back to older ones if that one was merely slow: confirming each
       step took a second per step. Oldest first. */
    struct {
        unsigned timeouts;
        bool capped; /* hit TIMEOUT_CAP */
        struct {
            uint8_t *data;
            size_t len;
        } prov[PROV_KEEP];
        unsigned n_prov;
    } hang;
};

struct cd_distill {
    /* the core (distill.c): settings, runners, the table and its lock, stop and failure */
    struct cd_distill_opts opts;
    const struct cd_runner_ops *ops;
    void *runner_ctx;
    unsigned jobs;
    uint32_t all_targets;        /* a bit for each of the runner's targets */
    uint32_t rerun;              /* targets a state lacked (cd_distill_rerun_targets): inputs
                                    seen before run on them in the first pass */
    struct worker *workers;
    unsigned opened;
    struct cd_table *table;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t rng[4];
    uint64_t start_ns, end_ns;
    const char *phase;
    struct cd_result_stats stats;
    bool failed;
    struct cd_error fail_err;
    /* Each part below is written by the file its comment names (under mu unless it says
       otherwise); distill.c sets it up and frees it. */
    /* the first pass (distill_first.c): the input stream, read by every worker in turn under
       ing_mu */
    struct {
        pthread_mutex_t ing_mu;
        struct cd_ingest *ing;
        bool ing_done;           /* the stream ended (ing_mu held) */
    } first;
    /* the reductions in flight (distill_schedule.c hands them out, distill_reduce.c counts and
       marks) */
    struct {
        unsigned attempt_execs;
        unsigned in_flight;      /* labels being reduced */
        bool reduce_done;        /* every label skippable with nothing in flight */
        uint64_t capped_labels;
        /* serials of examples reduced whole to a fixpoint, or left as they were by a whole
           attempt */
        struct cd_hashset whole_done;
    } work;
    /* hangs (distill_hang.c; distill_reduce.c asks for the pending one): the shortest
       unconfirmed hang met while another label was reduced that is shorter than the timeout
       label's reproducer. That label's next reduction confirms it first. The seen-set keeps its
       own reduction from ever running it again. */
    struct {
        uint8_t *pending;
        size_t pending_len;
        uint32_t pending_label;
        char *pending_origin;
    } hang;
    /* the course and its reports (distill_course.c; distill_unlock hands the report and the
       snapshot to their callbacks): the seed cover as last computed, the run's course */
    struct {
        uint64_t next_cover_execs;
        uint64_t seed_bytes, seeds;
        struct cd_result_point *series;
        size_t n_series;
        uint64_t last_progress_ns;
        uint64_t next_checkpoint_ns;
        /* A checkpoint's snapshot, taken under the lock and handed to opts.checkpoint by the
           thread that took it as it releases the lock; checkpointing stays set until that call
           returns, so that calls never overlap */
        struct cd_table_snapshot *snapshot;
        uint64_t snapshot_execs;
        atomic_bool checkpointing;
        /* The progress report due, handed to opts.progress the same way, one call at a time
           (reporting); a report due while another is being made waits for the next release of
           the lock */
        struct cd_distill_progress progress;
        bool progress_due;
        atomic_bool reporting;
    } course;
};

/* distill.c: the core (random numbers, the lock, failure and stop, the execution reservation) and
 * threads */

/* Uniform in [0, n) without modulo bias. */
uint64_t distill_rng_below(uint64_t s[4], uint64_t n);

/* Takes the run's mutex, which guards the table and every shared field of struct cd_distill. */
void distill_lock(struct cd_distill *d);

/* Releases it, then hands the progress report and a checkpoint's snapshot taken meanwhile to
 * opts.progress and opts.checkpoint. */
void distill_unlock(struct cd_distill *d);

/* Records the first failure; every worker then winds down. */
void distill_fail(struct cd_distill *d, const struct cd_error *err);

/* Whether the run must end: a failure, the stop flag, a budget. */
bool distill_should_stop(struct cd_distill *d);

/* Counts an execution about to happen, unless the run must end. */
bool distill_reserve_exec(struct cd_distill *d);

/* Whether reduction works on label l: it is not skippable, and it is in this run's label shard. */
bool distill_to_reduce(const struct cd_distill *d, const struct cd_table_label *l);

/* Starts fn on every worker thread; returns how many started. */
unsigned distill_start_threads(struct cd_distill *d, void *(*fn)(void *), struct cd_error *err);

/* Joins the first n worker threads distill_start_threads started. */
void distill_join_threads(struct cd_distill *d, unsigned n);

/* distill_course.c: the course and reporting: the seed cover, the run's points, checkpoints,
 * progress */

/* The seed cover of the table as it is now (what the output would be, cd_result_select_seeds): its
 * bytes and seeds in d, and its examples pinned as the baseline of the next one, so that the cover
 * never grows (labels found during reduction are optional unless keep_found). */
bool distill_table_cover(struct cd_distill *d);

/* Makes the progress report due, at most every PROGRESS_NS unless forced, and the checkpoint
 * when due; distill_unlock hands them to their callbacks. */
void distill_progress(struct cd_distill *d, bool force);

/* Ends a phase: stamps the end time, reports progress, unlocks, and returns the first failure into
 * err, if any. */
enum cd_status distill_end_phase(struct cd_distill *d, struct cd_error *err);

/* distill_exec.c: execution: running a candidate, offering its labels, the unstable-edge recheck */

/* The best example of label id, or NULL when the label went with an unstable edge. */
const struct cd_table_example *distill_best_of(const struct cd_distill *d, uint32_t id);

/* Whether the example w reduces whole (w->serial) is still the best of some label it started with:
 * a whole reduction holds while one is left. */
bool distill_holds_whole(const struct worker *w);

/* The targets the labels ids[0..n) belong to, as a mask of bits. */
uint32_t distill_targets_of(const struct cd_distill *d, const uint32_t *ids, size_t n);

/* The seen-set's key of content hash h run on targets: told apart from the same bytes run on
 * other targets (or other binaries in their place); h itself for all targets. */
struct cd_hash distill_seen_on(const struct cd_distill *d, uint32_t targets, struct cd_hash h);

/* The seen-set's key of a candidate run on w's targets: its content hash, told apart from the
 * same bytes run on other targets. */
struct cd_hash distill_seen_key(const struct worker *w, const uint8_t *data, size_t len);

/* After cand, run on some of the targets alone, was stored as a best example (stored): runs it
 * on the others and credits it with what they show (cd_table_extend), if it is still in the
 * table. Lock held, released while the targets run; false when the run is failing. */
bool distill_extend(struct worker *w, const uint8_t *cand, size_t len,
                    const struct cd_table_example *stored);

/* Runs data on w's runner (lock not held), on w's targets, quick as cd_runner_ops.run has it. */
enum cd_status distill_execute(struct worker *w, const uint8_t *data, size_t len, bool quick,
                              enum cd_outcome *outcome);

/* Marks unstable every edge whose coverage labels differ between a and b, two runs of one input
 * (the labels of unstable edges already out of both), all at once. */
bool distill_mark_differences(struct worker *w, const struct cd_labelset *a,
                             const struct cd_labelset *b);

/* Runs data on w once more, its execution reserved: a recheck. */
int distill_run_again(struct worker *w, const uint8_t *data, size_t len);

/* Runs data, w's last run that ended normally and showed a coverage label no run showed before,
 * once more (its execution reserved), as afl-fuzz calibrates a new find: every edge whose labels
 * differ between the two runs (another hit-count class, or in one run only) is unstable, and its
 * labels leave the table and the run. */
bool distill_recheck(struct worker *w, const uint8_t *data, size_t len);

/* Offers w's last run to the table, without the labels of unstable edges; a run that ended
 * normally and shows a new coverage label is rechecked first. */
bool distill_offer(struct worker *w, const uint8_t *data, size_t len, enum cd_outcome outcome,
                  const char *origin, const struct cd_table_example **stored);

/* Offers w's run of data during a reduction, st its status, and returns whether data became the
 * best of the label being reduced, or, reducing a whole example, of every label that example was
 * still best for (w->serial follows it then). */
bool distill_offer_run(struct worker *w, enum cd_status st, const uint8_t *data, size_t len,
                      enum cd_outcome outcome);

/* distill_hang.c: hang confirmation: provisional and pending reproducers */

/* Drops w's provisional reproducers. */
void distill_drop_provisional(struct worker *w);

/* A candidate that ran slow and was left unconfirmed: counted as a timeout, and kept as a
 * provisional reproducer when adopt (it would be the best of the label being reduced), else as the
 * pending hang when shorter (than the timeout label's reproducer). */
bool distill_unconfirmed(struct worker *w, const uint8_t *cand, size_t len, bool adopt,
                        bool shorter);

/* Confirms w's provisional reproducers, newest first, offering each, until one holds the label
 * being reduced; drops the rest. */
void distill_settle(struct worker *w);

/* Hands the pending hang of label id, if any, to w as a provisional reproducer and settles it,
 * before id's reduction starts. */
void distill_take_pending(struct worker *w, uint32_t id);

/* distill_reduce.c: reducing one label or one whole example: the predicate, verification */

/* Whether e was reduced whole to a fixpoint already (bytes order; lock held). */
bool distill_whole_done(const struct cd_distill *d, const struct cd_table_example *e);

/* Marks e as reduced whole to a fixpoint (lock held); out of memory the mark is lost, no harm. */
void distill_mark_whole_done(struct cd_distill *d, const struct cd_table_example *e);

/* Reduces label id's best example until the reducer reaches a fixpoint on it, re-reading the best
 * when another worker moved it on. */
enum cd_status distill_reduce_label(struct worker *w, uint32_t id);

/* Reduces example e (chosen under the lock, which is held on entry and on return) whole: every
 * candidate must keep every label it is still best for. */
void distill_reduce_whole(struct worker *w, const struct cd_table_example *e);

/* distill_first.c (the first pass) and distill_schedule.c (which label or example each worker
 * reduces next) offer nothing here: they are the public cd_distill_ingest and cd_distill_reduce. */

#endif
