/* Executor, libFuzzer side: runs a libFuzzer binary (clang -fsanitize=fuzzer), as built for
 * OSS-Fuzz, without a rebuild, through the merge step libFuzzer offers for pruning corpora.
 *
 * The merge step. `BIN -merge_inner=2 -merge_control_file=F` reads F: a line N, a line 0, then N
 * input paths. For each path in turn it opens the file, runs it, and appends to F the lines
 * "STARTED i size", "FT i f1 f2 ..." and "COV i ...", flushing before it opens the next. With
 * merge_inner=2 (set-cover merge, LLVM 14 on) FT holds every feature of the input; before that,
 * only the features new to the process, so an older binary gets one process an input. A feature
 * f of the inline 8-bit counters is counter f / 8 in hit-count class f % 8, the classes of
 * afl-showmap's buckets (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+): the map gets counter f / 8 + 1
 * set to the smallest count of its class, and the table classifies it back. The feature after the
 * counters' (-fsanitize=fuzzer on Linux traces stack depth) is no label: the same input shows a
 * depth class or the next by the size of the environment, which moves the stack's alignment.
 *
 * Pacing. The control file lists our private input file EXEC_LF_INPUTS times (both reach the
 * binary as descriptors, named /proc/self/fd/N: no name in a shared directory), and the preloaded
 * hook (pace/libfuzzer_pace.c) holds each open of it: it writes a word on fd 199 when the input
 * before is done (the first time: ready), then waits for a word on fd 198. A run is: the input
 * written to the file, a word sent, a word awaited within the timeout, the FT line read back from
 * where the last run's lines ended (the file is cut back to its header every EXEC_LF_CTL_MAX
 * bytes). The process dying instead is a crash on the input (libFuzzer's own signal handlers are
 * off, so that a signal shows as itself); no word within the limit is a
 * timeout. Either way a new process is started for the next run, as after EXEC_LF_INPUTS. */
#define _GNU_SOURCE /* for consistency with the other exec files */
#include "exec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PACE_HELLO 0x43444c46u /* "CDLF", the hook's word */
#define PACE_NAME "libcd-libfuzzer-pace.so"

/* Flags of ours that a user's flag must not replace: the protocol's, and the modes that would run
 * something else than one input at a time. */
static const char *const lf_reserved[] = {
    "merge", "merge_inner", "merge_control_file", "set_cover_merge", "fork", "jobs", "workers",
    "runs", "minimize_crash", "cleanse_crash", "artifact_prefix", "exact_artifact_path",
    "max_len", "timeout", "rss_limit_mb", "malloc_limit_mb", "close_fd_mask",
    "use_value_profile", /* many features a counter's slot: no labels of ours */
};

/* Flags given first: libFuzzer's own handlers off, so that a signal ends the process as itself
 * and a sanitizer's abort_on_error shows as SIGABRT, as under the fork server; no timer, no leak
 * check of its own. */
static const char *const lf_fixed[] = {
    "-timeout=0", "-detect_leaks=0", "-handle_segv=0", "-handle_bus=0", "-handle_abrt=0",
    "-handle_ill=0", "-handle_fpe=0", "-handle_int=0", "-handle_term=0", "-handle_xfsz=0",
    "-handle_usr1=0", "-handle_usr2=0",
};
#define LF_FIXED (sizeof lf_fixed / sizeof lf_fixed[0])

/* The hook: beside the running tool (a build tree), else in ../lib/corpus-distill/preload from
 * it (an installed tool, under any prefix). */
static char *pace_path(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
    if (!slash)
        return NULL;
    *slash = '\0';
    static const char *const where[] = {"", "../lib/corpus-distill/preload/"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s/%s%s", exe, where[i], PACE_NAME);
        if (access(cand, R_OK) == 0)
            return realpath(cand, NULL);
    }
    return NULL;
}

static bool reserved(const char *arg)
{
    const char *name = arg + 1 + (arg[1] == '-');
    size_t len = strcspn(name, "=");
    for (size_t i = 0; i < sizeof lf_reserved / sizeof lf_reserved[0]; i++)
        if (strlen(lf_reserved[i]) == len && strncmp(name, lf_reserved[i], len) == 0)
            return true;
    return false;
}

static enum cd_status push_arg(struct cd_exec *ex, size_t *j, struct cd_error *err,
                               const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static enum cd_status push_arg(struct cd_exec *ex, size_t *j, struct cd_error *err,
                               const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int r = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (r < 0)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    ex->owned[*j] = s;
    ex->argv[(*j)++] = s;
    return CD_OK;
}

/* The control file's header: the private input file (by its descriptor in the binary),
 * EXEC_LF_INPUTS times. */
static enum cd_status make_control_file(struct cd_exec *ex, struct cd_error *err)
{
    if (asprintf(&ex->lf.ctl_path, "%s.ctl", ex->input_path) < 0) {
        ex->lf.ctl_path = NULL;
        return cd_error_oom(err, CD_FAILED, "out of memory");
    }
    ex->lf.ctl_fd = open(ex->lf.ctl_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                         0600);
    if (ex->lf.ctl_fd < 0) {
        enum cd_status st = cd_error_sys(err, CD_FAILED, "cannot create '%s': %s",
                                         ex->lf.ctl_path, strerror(errno));
        free(ex->lf.ctl_path);
        ex->lf.ctl_path = NULL;
        return st;
    }
    unlink(ex->lf.ctl_path); /* reached through its descriptor only, its name kept for messages */
    FILE *f = fdopen(dup(ex->lf.ctl_fd), "w");
    if (!f)
        return cd_error_sys(err, CD_FAILED, "writing '%s': %s", ex->lf.ctl_path,
                            strerror(errno));
    fprintf(f, "%u\n0\n", EXEC_LF_INPUTS);
    for (unsigned i = 0; i < EXEC_LF_INPUTS; i++)
        fprintf(f, "%s\n", EXEC_LF_INPUT_PATH);
    bool ok = fflush(f) == 0 && !ferror(f);
    ok = fclose(f) == 0 && ok;
    ex->lf.head = lseek(ex->lf.ctl_fd, 0, SEEK_END);
    if (!ok || ex->lf.head <= 0)
        return cd_error_sys(err, CD_FAILED, "writing '%s': %s", ex->lf.ctl_path,
                            strerror(errno));
    return CD_OK;
}

enum cd_status exec_lf_prepare(struct cd_exec *ex, struct cd_error *err)
{
    size_t argc = 0;
    while (ex->opts.argv[argc])
        argc++;
    for (size_t i = 1; i < argc; i++) {
        const char *a = ex->opts.argv[i];
        if (strcmp(a, "@@") == 0)
            continue;
        if (a[0] != '-')
            return cd_error_set(err, CD_FAILED, "libFuzzer target '%s' gets its inputs from "
                                "corpus-distill: drop the argument '%s'", ex->path, a);
        if (reserved(a))
            return cd_error_set(err, CD_FAILED, "libFuzzer target '%s': corpus-distill runs its "
                                "merge step and sets %.*s itself: drop '%s' (time and memory: "
                                "-t and -m)", ex->path, (int)strcspn(a, "="), a, a);
    }
    ex->lf.pace = pace_path();
    if (!ex->lf.pace)
        return cd_error_set(err, CD_FAILED, "libFuzzer target '%s' needs the pacing hook %s, "
                            "found neither beside corpus-distill nor in "
                            "../lib/corpus-distill/preload from it", ex->path, PACE_NAME);
    CD_FORWARD_IF_ERROR(make_control_file(ex, err));
    /* The input file too is reached through its descriptor from now on: its name goes, so
       nothing planted or swapped in the directory later reaches the binary. */
    unlink(ex->input_path);
    free(ex->input_path);
    ex->input_path = NULL;
    /* the path, the fixed flags, three limits, the user's flags, three of the protocol, NULL */
    size_t cap = 1 + LF_FIXED + 3 + argc + 3 + 1;
    ex->argv = calloc(cap, sizeof *ex->argv);
    ex->owned = calloc(cap, sizeof *ex->owned);
    if (!ex->argv || !ex->owned)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    size_t j = 0;
    ex->argv[j++] = ex->path;
    unsigned mb = ex->opts.mem_limit_mb;
    for (size_t i = 0; i < LF_FIXED; i++)
        ex->argv[j++] = (char *)lf_fixed[i];
    CD_FORWARD_IF_ERROR(push_arg(ex, &j, err, "-rss_limit_mb=%u", mb));
    CD_FORWARD_IF_ERROR(push_arg(ex, &j, err, "-malloc_limit_mb=%u", mb));
    CD_FORWARD_IF_ERROR(push_arg(ex, &j, err, "-max_len=%u", EXEC_LF_MAX_LEN));
    for (size_t i = 1; i < argc; i++)
        if (strcmp(ex->opts.argv[i], "@@") != 0)
            ex->argv[j++] = (char *)ex->opts.argv[i];
    /* Artifacts under the input file's name, which the hook refuses to create: a crash's input
     * is ours to keep, not libFuzzer's. */
    CD_FORWARD_IF_ERROR(push_arg(ex, &j, err, "-artifact_prefix=%s-", EXEC_LF_INPUT_PATH));
    CD_FORWARD_IF_ERROR(push_arg(ex, &j, err, "-merge_inner=%d", ex->bin.lf_set_cover ? 2 : 1));
    CD_FORWARD_IF_ERROR(push_arg(ex, &j, err, "-merge_control_file=%s", EXEC_LF_CTL_PATH));
    ex->info.file_input = true;
    ex->info.libfuzzer = true;
    ex->info.persistent = true;
    return CD_OK;
}

/* Counters the binary reported at start-up ("INFO: Loaded 1 modules (633 inline 8-bit
 * counters)", or "(N guards)" for trace-pc-guard builds), summed over its modules. */
static size_t counters(const char *tail)
{
    size_t total = 0;
    for (const char *p = tail; (p = strstr(p, "INFO: Loaded ")) != NULL; p++) {
        const char *paren = strchr(p, '(');
        const char *eol = strchr(p, '\n');
        if (!paren || (eol && paren > eol))
            continue;
        char *end;
        unsigned long long n = strtoull(paren + 1, &end, 10);
        if (end == paren + 1 || n > (1u << 28))
            continue;
        if (strncmp(end, " inline 8-bit counters)", 23) == 0 || strncmp(end, " guards)", 8) == 0)
            total += (size_t)n;
    }
    return total;
}

enum cd_status exec_lf_start(struct cd_exec *ex, struct cd_error *err)
{
    if (ftruncate(ex->lf.ctl_fd, ex->lf.head) != 0)
        return cd_error_sys(err, CD_FAILED, "truncating '%s': %s", ex->lf.ctl_path,
                            strerror(errno));
    ex->lf.end = ex->lf.head;
    CD_FORWARD_IF_ERROR(exec_child_spawn(ex, err));
    exec_tail_reset(ex);
    ex->lf.served = 0;
    uint32_t hello;
    enum io io = exec_read_word(ex, &hello, EXEC_HELLO_TIMEOUT_MS);
    char line[200];
    if (io == IO_EOF) {
        exec_tail_drain(ex);
        exec_tail_last_line(ex, line, sizeof line);
        cd_error_set(err, CD_FAILED, "libFuzzer target '%s' exited before its first input "
                     "(it failed at start-up, or is linked statically so that the pacing hook "
                     "%s could not load)%s%s", ex->path, PACE_NAME, line[0] ? ": " : "", line);
        goto fail;
    }
    if (io != IO_OK) {
        exec_startup_error(ex, io, "first request for an input", err);
        goto fail;
    }
    if (hello != PACE_HELLO) {
        cd_error_set(err, CD_FAILED, "libFuzzer target '%s' sent 0x%08x, not the pacing hook's "
                     "word", ex->path, hello);
        goto fail;
    }
    exec_tail_drain(ex);
    size_t n = counters(ex->tail);
    if (!n) {
        cd_error_set(err, CD_FAILED, "libFuzzer target '%s' reported no coverage counters (no "
                     "\"INFO: Loaded ... inline 8-bit counters\" line)", ex->path);
        goto fail;
    }
    if (n + 1 > ex->shm_size) {
        cd_error_set(err, CD_FAILED, "libFuzzer target '%s' has %zu counters, more than the %zu "
                     "of AFL_MAP_SIZE (set it higher)", ex->path, n, ex->shm_size);
        goto fail;
    }
    ex->info.map_size = n + 1;
    ex->clear_size = (n + 1 + 63) & ~(size_t)63;
    if (ex->clear_size > ex->shm_size)
        ex->clear_size = ex->shm_size;
    if (ex->opts.crash_frames)
        exec_symbolizer_target(&ex->symbolizer, ex->fsrv_pid);
    return CD_OK;
fail:
    exec_child_stop(ex);
    return CD_FAILED;
}

/* Reads what the binary appended for this run, from where the last run's lines ended, into
 * ex->lf.buf (NUL-terminated). The binary is held in the hook and writes nothing more, so one
 * pread that leaves room in the buffer has read it all. */
static bool read_lines(struct cd_exec *ex)
{
    size_t len = 0;
    for (;;) {
        if (ex->lf.cap - len < 2) {
            size_t cap = ex->lf.cap ? 2 * ex->lf.cap : 65536;
            char *b = realloc(ex->lf.buf, cap);
            if (!b)
                return false;
            ex->lf.buf = b;
            ex->lf.cap = cap;
        }
        ssize_t got = pread(ex->lf.ctl_fd, ex->lf.buf + len, ex->lf.cap - len - 1,
                            ex->lf.end + (off_t)len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return false;
        len += (size_t)got;
        if (len + 1 < ex->lf.cap)
            break;
    }
    ex->lf.buf[len] = '\0';
    ex->lf.end += (off_t)len;
    return true;
}

/* Fills the map from the FT line in lines; false when there is none. */
static bool features_to_map(struct cd_exec *ex, const char *lines)
{
    static const uint8_t class_count[8] = {1, 2, 3, 4, 8, 16, 32, 128};
    const char *ft = strncmp(lines, "FT ", 3) == 0 ? lines : strstr(lines, "\nFT ");
    if (!ft)
        return false;
    const char *p = ft + (ft[0] == '\n' ? 4 : 3);
    p += strcspn(p, " \n"); /* the input's index */
    size_t map_size = ex->info.map_size;
    while (*p == ' ') {
        char *end;
        unsigned long long f = strtoull(p + 1, &end, 10);
        if (end == p + 1)
            break;
        p = end;
        unsigned long long idx = f / 8 + 1;
        uint8_t c = class_count[f % 8];
        if (idx < map_size && ex->shm[idx] < c)
            ex->shm[idx] = c; /* past the counters: stack depth, no label */
    }
    return *p == '\n' || *p == '\0';
}

enum run_result exec_lf_run(struct cd_exec *ex, struct cd_run *run, unsigned limit_ms,
                            struct cd_error *err)
{
    memset(ex->shm, 0, ex->clear_size);
    exec_tail_reset(ex);
    /* Cut back to the header once in a while, not every run: the binary appends, and is held
       in the hook until the next word, so the file is still between runs. */
    if (ex->lf.end - ex->lf.head > EXEC_LF_CTL_MAX) {
        if (ftruncate(ex->lf.ctl_fd, ex->lf.head) != 0) {
            cd_error_sys(err, CD_FAILED, "truncating '%s': %s", ex->lf.ctl_path,
                         strerror(errno));
            return RUN_FAILED;
        }
        ex->lf.end = ex->lf.head;
    }
    if (!exec_write_word(ex, 1))
        return RUN_DIED;
    uint64_t t0 = cd_now_ns();
    uint32_t w;
    enum io io = exec_read_word(ex, &w, limit_ms);
    run->exec_ns = cd_now_ns() - t0;
    if (io == IO_ERROR) {
        cd_error_sys(err, CD_FAILED, "reading from libFuzzer target '%s': %s", ex->path,
                     strerror(errno));
        return RUN_FAILED;
    }
    ex->lf.served++;
    bool done = io != IO_TIMEOUT && read_lines(ex) && features_to_map(ex, ex->lf.buf);
    int status = 0;
    if (io == IO_OK && !done) {
        exec_child_stop(ex);
        cd_error_set(err, CD_FAILED, "libFuzzer target '%s' took an input but wrote no "
                     "features to its control file", ex->path);
        return RUN_FAILED;
    }
    if (io == IO_EOF && !done) {
        /* it died on the input: a crash, whatever its status said */
        if (!exec_child_ended(ex, &status, EXEC_HELLO_TIMEOUT_MS))
            status = 0;
        exec_tail_drain(ex);
        exec_outcome_classify(ex, status, false, run);
        run->outcome = CD_OUTCOME_CRASH;
    } else {
        exec_outcome_classify(ex, 0, io == IO_TIMEOUT, run);
    }
    /* A new process after a death or a timeout, after the last listed input (it ends by
     * itself), and after each input of a binary whose features are new ones only. */
    if (io != IO_OK || !ex->bin.lf_set_cover || ex->lf.served >= EXEC_LF_INPUTS - 1)
        exec_child_stop(ex);
    return RUN_DONE;
}

void exec_lf_release(struct cd_exec *ex)
{
    if (ex->lf.ctl_fd >= 0)
        close(ex->lf.ctl_fd);
    free(ex->lf.ctl_path);
    free(ex->lf.buf);
    free(ex->lf.pace);
}
