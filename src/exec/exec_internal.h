/* Executor internals shared by exec_forkserver.c (the protocol and the run loop), exec_child.c
 * (launching the target, its environment, killing and reaping) and exec_outcome.c (stderr tail,
 * outcome classification, sanitizer reports). Nothing outside src/exec/ includes this. */
#ifndef CD_EXEC_INTERNAL_H
#define CD_EXEC_INTERNAL_H

#include <sys/types.h>

#include "cd_exec.h"

#define EXEC_SHM_DEFAULT (8u << 20)       /* coverage segment when AFL_MAP_SIZE is not given */
#define EXEC_MAX_FILE (1u << 20)          /* largest test case shared memory carries */
#define EXEC_HELLO_TIMEOUT_MS 10000u      /* start-up of the target until its hello */
#define EXEC_CALIB_RUNS 5u                /* runs that calibrate a timeout of 0 */
#define EXEC_CONFIRM_MS 1000u             /* calibration runs, cap, and the re-run of a hang */
#define EXEC_PID_TIMEOUT_MS 2000u         /* a request until the fork server reports the child */
#define EXEC_TAIL_CAP (64u << 10)         /* stderr kept per run */
#define EXEC_STATE_CAP 4096u              /* a crash state's text (a table note's most) */
#define EXEC_STDIN_PROBE_RUNS 4096u       /* runs that watch whether a target reads its stdin */
#define EXEC_LF_INPUTS 4096u              /* inputs one libFuzzer process takes before a new one */
#define EXEC_LF_MAX_LEN (16u << 20)       /* largest input a libFuzzer binary is given (-max_len) */
#define EXEC_LF_CTL_MAX (4 << 20)         /* control file lines kept before it is cut back */
/* A libFuzzer binary gets the input file and the control file as these descriptors, and opens
 * them by these names: no path of a shared directory is resolved again once the files exist. */
#define EXEC_LF_INPUT_FD 196
#define EXEC_LF_CTL_FD 197
#define EXEC_LF_INPUT_PATH "/proc/self/fd/196"
#define EXEC_LF_CTL_PATH "/proc/self/fd/197"

/* What the target binary contains. */
struct exec_binary {
    bool instrumented;  /* "__AFL_SHM_ID" */
    bool persistent;    /* "##SIG_AFL_PERSISTENT##" with its NUL */
    bool deferred;      /* "##SIG_AFL_DEFER_FORKSRV##" with its NUL */
    bool sanitizer;     /* __asan_init, __msan_init or __lsan_init: exit 86/23 are crashes */
    bool libfuzzer;     /* an LLVMFuzzerTestOneInput harness */
    bool native_lf;     /* a libFuzzer binary (its merge step's flags, no AFL++ instrumentation):
                           run through its merge step, exec_libfuzzer.c */
    bool lf_set_cover;  /* its merge step takes -merge_inner=2 (LLVM 14 on) and writes each
                           input's whole feature set, not only the features new to the process */
};

/* A libFuzzer binary's merge step (exec_libfuzzer.c). */
struct exec_lf {
    int ctl_fd;         /* the control file: its header lists the input file EXEC_LF_INPUTS
                           times; the binary appends each input's lines after it */
    char *ctl_path;     /* its name while it is made, for messages (removed once open) */
    off_t head;         /* the header's length: the file is cut back to it now and then */
    off_t end;          /* where the lines of the next run will start */
    char *buf;          /* the lines read back */
    size_t cap;
    unsigned served;    /* inputs the running process has taken */
    char *pace;         /* the hook's path, preloaded before the user's LD_PRELOAD */
};

struct cd_exec {
    struct cd_exec_opts opts;
    struct exec_binary bin;
    char *path;              /* resolved target path */
    char **argv;             /* argv for execve: "@@" replaced, strings borrowed or in owned */
    char **owned;            /* owned[i]: the replaced argv[i], or NULL */
    char **envp;             /* owned array of owned strings */
    char *input_path;        /* the private input file ("@@" mode) */
    int input_fd;
    size_t input_len;        /* bytes now in the input file */
    int devnull_fd;

    int shm_id, fuzz_id;     /* SysV segments, removed at once (Linux keeps attached ones) */
    uint8_t *shm;            /* coverage map segment */
    size_t shm_size;
    uint8_t *fuzz;           /* test-case segment: u32 length, then the bytes */
    size_t clear_size;       /* bytes cleared before each run (map size rounded up to 64) */

    int ctl_fd;              /* write end of the control pipe (198 in the target) */
    int ctl_keep_fd;         /* its read end, kept open: a write never raises SIGPIPE */
    int st_fd;               /* read end of the status pipe (199 in the target) */
    int err_fd;              /* read end of the target's stderr, non-blocking; -1 if not captured */
    int children_fd;         /* /proc/<our pid>/task/<our pid>/children, or -1 */
    pid_t fsrv_pid;          /* fork server; also its process group and session */
    pid_t child_pid;         /* last child; > 0 while a persistent child is stopped */
    uint32_t was_killed;     /* sent with the next run request */

    uint64_t calib_max_ns;   /* slowest calibration run */
    unsigned calib_runs;

    char *tail;              /* stderr of the current run, NUL-terminated */
    size_t tail_len;
    char san_kind[64];
    char crash_state[EXEC_STATE_CAP];
    struct exec_symbolizer *symbolizer; /* started at the first unsymbolized stack, or NULL */

    struct exec_lf lf;

    struct cd_exec_info info;
};

enum io { IO_OK, IO_EOF, IO_TIMEOUT, IO_ERROR };
enum run_result { RUN_DONE, RUN_DIED, RUN_FAILED };

/* exec_forkserver.c: one word from the status pipe within timeout_ms (0: block), draining the
 * target's stderr meanwhile; one word to the control pipe. */
enum io exec_read_word(struct cd_exec *ex, uint32_t *v, unsigned timeout_ms);
bool exec_write_word(struct cd_exec *ex, uint32_t v);
/* A one-line error for a failed read at start-up, naming the target and what it did not send. */
enum cd_status exec_startup_error(struct cd_exec *ex, enum io io, const char *what,
                                  struct cd_error *err);

/* exec_crash_state.c: cd_exec_sanitizer_report, returning where the report starts in text (after
 * "XSanitizer: " or "runtime error: "), NULL when there is none. */
const char *exec_sanitizer_report(const char *text, const char **tool, char *kind, size_t cap);

/* and the crash state (cd_exec_crash_state) of the report of tool and kind that
 * starts at `at` in text, naming unsymbolized frames through *sym (started on first use; NULL:
 * frames stay unnamed). */
struct exec_symbolizer;
bool exec_crash_state(const char *text, const char *at, const char *tool, const char *kind,
                      unsigned frames, struct exec_symbolizer **sym, char *out, size_t cap);

/* exec_symbolizer.c: the function names at offset of module (module_len bytes), innermost
 * inlined frame first, each followed by '\n' ("" when it names none); NULL when no symbolizer
 * answers. *s is created on first use; valid until the next call or exec_symbolizer_free. */
const char *exec_symbolize(struct exec_symbolizer **s, const char *module, size_t module_len,
                           uint64_t offset);
/* Lets *s (created when NULL) ask only about the regular ELF files process pid maps now (its
 * /proc/PID/maps), read once: the target's own modules. Without it, the first exec_symbolize
 * takes this process's modules. */
void exec_symbolizer_target(struct exec_symbolizer **s, pid_t pid);
/* Stops the symbolizer and frees the cache. NULL is a no-op. */
void exec_symbolizer_free(struct exec_symbolizer *s);

/* exec_child.c */
/* The path execvp would run for name: name itself when it holds a '/', else the first executable
 * of that name in PATH. Owned (free with free()); NULL with errno ENOENT or ENOMEM. */
char *exec_which(const char *name);
enum cd_status exec_child_prepare(struct cd_exec *ex, struct cd_error *err);
enum cd_status exec_child_spawn(struct cd_exec *ex, struct cd_error *err);
void exec_child_stop(struct cd_exec *ex);
void exec_child_reap_orphans(struct cd_exec *ex);
/* Whether pid is a process of the target started as fork server fs (never fs itself). */
bool exec_child_is_targets(pid_t pid, pid_t fs);
void exec_child_release(struct cd_exec *ex);

/* exec_guard.c: a process that kills the listed fork servers and their process groups once this
 * one is gone, however it ended (SIGKILL included). Each call is thread-safe. */
void exec_guard_watch(pid_t fsrv);
void exec_guard_forget(pid_t fsrv);
/* Ends and reaps the guard once no fork server is left (a later one starts a new guard). */
void exec_guard_end(void);

/* Whether the fork server has ended, waiting up to timeout_ms: sets *status (as waitpid would)
 * and leaves it a zombie, so that exec_child_stop still owns its pid. */
bool exec_child_ended(struct cd_exec *ex, int *status, unsigned timeout_ms);

/* exec_libfuzzer.c: a libFuzzer binary run through its merge step, paced by the preloaded hook
 * (src/exec/pace/libfuzzer_pace.c). Prepare makes the control file and the argv, once; start
 * spawns the process and reads its counters; run runs the input in place within limit_ms and
 * fills the map from its features; release removes the control file. */
enum cd_status exec_lf_prepare(struct cd_exec *ex, struct cd_error *err);
enum cd_status exec_lf_start(struct cd_exec *ex, struct cd_error *err);
enum run_result exec_lf_run(struct cd_exec *ex, struct cd_run *run, unsigned limit_ms,
                            struct cd_error *err);
void exec_lf_release(struct cd_exec *ex);

/* exec_outcome.c */
void exec_tail_reset(struct cd_exec *ex);
/* Reads what the target wrote to stderr; returns false once the pipe is at EOF. */
bool exec_tail_drain(struct cd_exec *ex);
/* Returns the last non-empty line of the tail, copied into buf (for start-up error messages). */
const char *exec_tail_last_line(const struct cd_exec *ex, char *buf, size_t cap);
void exec_outcome_classify(struct cd_exec *ex, int status, bool timed_out, struct cd_run *run);

#endif
