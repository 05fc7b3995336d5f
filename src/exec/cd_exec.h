/* Executor: runs inputs through an AFL++-instrumented target over the fork-server protocol, with a
 * shared-memory coverage map, shared-memory test-case delivery and persistent mode when the target
 * offers them, or through a libFuzzer binary's merge step; a per-run timeout, a memory limit, and
 * outcome classification. It knows nothing of labels or tables: a run yields a map and an
 * outcome. The protocols are described at the top of src/exec/exec_forkserver.c and
 * src/exec/exec_libfuzzer.c. */
#ifndef CD_EXEC_H
#define CD_EXEC_H

#include "common/cd_common.h"

/* What the target did with one input. What the target does is data, not an error. */
enum cd_outcome {
    CD_OUTCOME_OK = 0,
    CD_OUTCOME_CRASH,    /* killed by a signal, sanitizer exit code, or AFL_CRASH_EXITCODE */
    CD_OUTCOME_TIMEOUT,  /* ran past the timeout and was killed */
    CD_OUTCOME_SLOW,     /* ran past the calibrated timeout and was killed, not yet run again
                            under the long limit to confirm a hang (cd_exec_run_quick only) */
};

/* Returns whether the run was killed for running too long, confirmed as a hang or not. */
static inline bool cd_outcome_timed_out(enum cd_outcome outcome)
{
    return outcome == CD_OUTCOME_TIMEOUT || outcome == CD_OUTCOME_SLOW;
}

/* Settings, filled by the caller (the CLI reads argv and the environment, not the executor). */
struct cd_exec_opts {
    char *const *argv;        /* target path and arguments, NULL-terminated; "@@" stands for the
                                 input file, without it the input goes to stdin; borrowed for the
                                 lifetime of the executor */
    unsigned timeout_ms;      /* per-run limit; 0 calibrates from the first runs (afl-fuzz's way:
                                 5x the slowest of the first 5, 20 to 1000 ms, and a run that
                                 times out is run again with 1000 ms before it counts as one) */
    unsigned mem_limit_mb;    /* address-space limit of the target; 0 for none */
    size_t map_size;          /* AFL_MAP_SIZE if set, else 0: the size the target reports */
    int crash_exitcode;       /* AFL_CRASH_EXITCODE: exit status counted as a crash ... */
    bool crash_exitcode_set;  /* ... when this is set */
    int cpu;                  /* CPU to bind the target to, or -1 for none */
    const char *tmp_dir;      /* directory for the private input file; NULL for $TMPDIR or /tmp */
    const char *input_file;   /* -f: the fixed path the target reads its input from, made by the
                                 executor (which fails when it exists) and removed by it; "@@"
                                 stands for it too. NULL: a private file in tmp_dir */
    bool debug_child;         /* keep the target's stderr on ours (for -v debugging) */
    unsigned crash_frames;    /* program frames in a crash state (cd_exec_crash_state); 0: none
                                 is made, a sanitizer crash is named by its kind alone */
};

/* Result of one run. Pointers are owned by the executor, valid until its next run or free. */
struct cd_run {
    enum cd_outcome outcome;
    int signal;               /* signal number for a crash by signal, else 0 */
    int exit_status;          /* exit status when the target exited, else -1 */
    const uint8_t *map;       /* coverage map; index 0 is not an edge and must be ignored */
    size_t map_size;
    const char *san_tool;     /* "asan", "ubsan", ... when a sanitizer reported, else NULL */
    const char *san_kind;     /* its error kind ("heap-buffer-overflow"), else NULL */
    const char *crash_state;  /* with a sanitizer report and crash_frames: its crash state
                                 (cd_exec_crash_state), else NULL */
    const char *stderr_tail;  /* last bytes of the target's stderr for this run, NUL-terminated */
    uint64_t exec_ns;         /* wall time of the run */
};

/* What the executor learned about the target at start-up. */
struct cd_exec_info {
    size_t map_size;          /* bytes of the map in use */
    unsigned timeout_ms;      /* timeout in force (after calibration) */
    bool new_protocol;        /* AFL++ >= 4.20 handshake */
    bool shm_testcase;        /* inputs delivered through shared memory */
    bool persistent;          /* target loops with __AFL_LOOP */
    bool deferred;            /* fork server starts at __AFL_INIT */
    bool file_input;          /* "@@" was in argv, or a libFuzzer binary opens the input file */
    bool libfuzzer;           /* a libFuzzer binary (no AFL++ instrumentation) run through its
                                 merge step: features as labels, crashes as its process dying */
    bool stdin_read;          /* without @@ or shared memory: one of the first runs read its
                                 standard input (the shared file offset moved), which a target
                                 given no @@ must */
    uint64_t restarts;        /* fork-server restarts after it died */
    uint64_t execs;           /* runs so far */
};

struct cd_exec;

/* Starts the target's fork server. On success *out is an owned handle, free with cd_exec_free.
 * FAILED with a one-line error when the target is missing, not executable, not instrumented, or
 * the handshake fails (the message says which). */
enum cd_status cd_exec_new(struct cd_exec **out, const struct cd_exec_opts *opts,
                           struct cd_error *err);

/* Runs one input of len bytes. Fills *run; restarts a fork server that died and retries once.
 * WARN (and *run untouched) when the input cannot be delivered: more than 1 MiB for a target that
 * takes its test cases through shared memory. FAILED only when our machinery failed (fork, pipe,
 * shm) or the target cannot be restarted; the next call tries to start it again. */
enum cd_status cd_exec_run(struct cd_exec *ex, const uint8_t *data, size_t len, struct cd_run *run,
                           struct cd_error *err);

/* Runs one input as cd_exec_run does, without the confirmation: a run past a calibrated timeout
 * comes back as CD_OUTCOME_SLOW after the short limit instead of costing the long one too. For
 * callers that need the confirmation only when the answer would change what they keep. */
enum cd_status cd_exec_run_quick(struct cd_exec *ex, const uint8_t *data, size_t len,
                                 struct cd_run *run, struct cd_error *err);

/* Finds the first sanitizer report in text (a target's stderr): on success sets *tool to a static
 * name ("asan", "ubsan", "msan", "lsan", "tsan", "hwasan"), copies the error kind
 * ("heap-buffer-overflow", "signed-integer-overflow", "undefined-behavior" when UBSan's message
 * is not one we know, ...) into kind (cap bytes) and returns true. cd_exec_run does this for
 * every crashing run. */
bool cd_exec_sanitizer_report(const char *text, const char **tool, char *kind, size_t cap);

/* Writes into out (cap bytes) the crash state of the first sanitizer report in text, the name of
 * the bug as ClusterFuzz names one: a first line "<tool>:<kind>", with " READ" or " WRITE" when the
 * report gives the access, then one line per frame for the top `frames` frames of the crashing
 * stack that belong to the program (sanitizer runtime, libc and C++ runtime, allocator,
 * interceptor and fuzzing-driver frames skipped; inlined frames counted), by function name
 * without arguments. Unsymbolized frames are named with llvm-symbolizer when symbolize is set
 * (ASAN_SYMBOLIZER_PATH, else PATH), for modules that are regular ELF files this process maps
 * only (cd_exec_run asks about the target's own); a frame no symbolizer names is
 * "<module>+0x<offset>".
 * Returns false when text holds no sanitizer report. */
bool cd_exec_crash_state(const char *text, unsigned frames, bool symbolize, char *out, size_t cap);

/* Returns what the executor knows about the target; valid until cd_exec_free. */
const struct cd_exec_info *cd_exec_info(const struct cd_exec *ex);

/* Kills the fork server's whole process group and any orphan the target left behind (our
 * process is made a child subreaper so that orphans come back to us), reaps them, removes shared
 * memory and the input file. NULL is a no-op. */
void cd_exec_free(struct cd_exec *ex);

#endif
