/* Executor, protocol side: the client half of AFL++'s fork-server protocol, and the public
 * cd_exec_* API. It owns the shared-memory segments and the run loop; starting and stopping
 * processes is exec_child.c's job, naming outcomes exec_outcome.c's. Nothing here knows labels.
 *
 * Wire format. Every word is a 4-byte host-endian integer. The target reads the control channel
 * on fd 198 and writes the status pipe on fd 199. Its environment carries __AFL_SHM_ID (SysV id
 * of the coverage map), __AFL_SHM_FUZZ_ID (SysV id of the test-case segment), AFL_MAP_SIZE, and
 * __AFL_PERSISTENT / __AFL_DEFER_FORKSRV when the binary holds those markers.
 *
 * Start-up: the target sends a first word H.
 *   (H & 0xeffe0000) == 0xeffe0000   error (>= 4.20c): code = H & 0xffff
 *   0x41464c00 <= H <= 0x41464cff    new handshake (>= 4.20c):
 *       client -> H ^ 0xffffffff
 *       target -> options: 0x1 map size (always), 0x2 test cases in shared memory, 0x800 dict
 *       target -> map size (u32); if 0x800: length word, then that many dictionary bytes
 *       target -> H again
 *   otherwise                        old handshake (<= 4.10c, Debian's 4.04c):
 *       (H & 0xf800008f) == 0xf800008f   error: code = (H >> 8) & 0xffff
 *       H == 0                           vanilla AFL: no options
 *       (H & 0x80000001) == 0x80000001   options; if all of 0x0f000000 are set, mask 0xf0ffffff
 *           0x40000000 map size = ((H & 0x00fffffe) >> 1) + 1
 *           0x01000000 test cases in shared memory, 0x10000000 dictionary offered
 *           if either of those two is offered, client -> 0x80000001 | the offered bits, and
 *           after a dictionary offer: length word, then that many bytes. Never decline an offer:
 *           4.04c takes a declining reply as the first run request.
 *       anything else                    not a fork-server hello
 *   Error codes: 1 map size, 2 map address, 4 shm_open, 8 shmat, 16 mmap, 32/64 old cmplog.
 *
 * Each run: deliver the input (shared memory: u32 length then bytes; else rewrite the input file
 * and seek back to 0), clear the map, client -> was_killed (non-zero only when we killed the last
 * child on a timeout), target -> child pid (<= 0 is an error), target -> waitpid status. On a
 * timeout the client kills the child and still reads its status. A persistent child reports
 * stopped (SIGSTOP) after each iteration and is resumed by the next request. EOF at any point
 * means the fork server died: it is restarted and the run retried once. */
#define _GNU_SOURCE /* for consistency with the other exec files */
#include "exec_internal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#define FS_OPT_ENABLED 0x80000001u
#define FS_OPT_MAPSIZE 0x40000000u
#define FS_OPT_AUTODICT 0x10000000u
#define FS_OPT_SHDMEM_FUZZ 0x01000000u
#define FS_OPT_OLD_AFLPP_WORKAROUND 0x0f000000u
#define FS_OPT_ERROR 0xf800008fu
#define FS_NEW_ERROR 0xeffe0000u
#define FS_NEW_HELLO 0x41464c00u
#define FS_NEW_OPT_MAPSIZE 0x1u
#define FS_NEW_OPT_SHDMEM_FUZZ 0x2u
#define FS_NEW_OPT_AUTODICT 0x800u

/* Draining stderr while waiting means a chatty target never blocks on a full pipe. */
enum io exec_read_word(struct cd_exec *ex, uint32_t *v, unsigned timeout_ms)
{
    uint64_t deadline = cd_now_ns() + (uint64_t)timeout_ms * 1000000u;
    uint8_t buf[4];
    size_t got = 0;
    while (got < 4) {
        struct pollfd pf[2] = {{ex->st_fd, POLLIN, 0}, {ex->err_fd, POLLIN, 0}};
        int wait = -1;
        if (timeout_ms) {
            uint64_t now = cd_now_ns();
            if (now >= deadline)
                return IO_TIMEOUT;
            wait = (int)((deadline - now + 999999u) / 1000000u);
        }
        int r = poll(pf, ex->err_fd >= 0 ? 2 : 1, wait);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return IO_ERROR;
        if (r == 0)
            return IO_TIMEOUT;
        if (ex->err_fd >= 0 && pf[1].revents && !exec_tail_drain(ex)) {
            close(ex->err_fd); /* the target closed its stderr: stop polling it */
            ex->err_fd = -1;
        }
        if (!pf[0].revents)
            continue;
        ssize_t n = read(ex->st_fd, buf + got, 4 - got);
        if (n == 0)
            return IO_EOF;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return IO_ERROR;
        got += (size_t)n;
    }
    memcpy(v, buf, 4);
    return IO_OK;
}

/* The pid comes right after the fork, before the child can fill any pipe: a blocking read (as
 * afl-fuzz does) would save a poll per run, but a fork server that takes a request and never
 * answers would hold the run past Ctrl-C and --max-time. */
static enum io read_pid(struct cd_exec *ex, uint32_t *v)
{
    return exec_read_word(ex, v, EXEC_PID_TIMEOUT_MS);
}

bool exec_write_word(struct cd_exec *ex, uint32_t v)
{
    for (;;) {
        ssize_t n = write(ex->ctl_fd, &v, 4);
        if (n == 4)
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        return false;
    }
}

static const char *fs_error_name(uint32_t code)
{
    switch (code) {
    case 1: return "its coverage map is larger than AFL_MAP_SIZE (set AFL_MAP_SIZE higher)";
    case 2: return "it cannot map the coverage map at its fixed address";
    case 4: return "shm_open failed";
    case 8: return "shmat failed";
    case 16: return "mmap failed";
    case 32: return "old cmplog instrumentation";
    case 64: return "old cmplog QEMU";
    }
    return "unknown error";
}

enum cd_status exec_startup_error(struct cd_exec *ex, enum io io, const char *what,
                                  struct cd_error *err)
{
    char line[200];
    exec_tail_drain(ex);
    exec_tail_last_line(ex, line, sizeof line);
    const char *sep = line[0] ? ": " : "";
    if (io == IO_TIMEOUT)
        return cd_error_set(err, CD_FAILED, "target '%s' sent no %s within %u ms (not an AFL++ "
                            "fork server, or it hangs at start-up)%s%s",
                            ex->path, what, EXEC_HELLO_TIMEOUT_MS, sep, line);
    if (io == IO_EOF && ex->opts.mem_limit_mb)
        return cd_error_set(err, CD_FAILED, "target '%s' exited before its %s (failed at "
                            "start-up; is the memory limit of %u MB too low?)%s%s", ex->path, what,
                            ex->opts.mem_limit_mb, sep, line);
    if (io == IO_EOF)
        return cd_error_set(err, CD_FAILED, "target '%s' exited before its %s (not instrumented, "
                            "or it failed at start-up)%s%s", ex->path, what, sep, line);
    return cd_error_sys(err, CD_FAILED, "reading the %s of '%s': %s", what, ex->path,
                        strerror(errno));
}

/* Reads and discards a length-prefixed dictionary. */
static enum cd_status skip_dict(struct cd_exec *ex, struct cd_error *err)
{
    uint32_t len, w;
    enum io io = exec_read_word(ex, &len, EXEC_HELLO_TIMEOUT_MS);
    if (io != IO_OK)
        return exec_startup_error(ex, io, "dictionary", err);
    if (len < 1 || len > 0xffffff)
        return cd_error_set(err, CD_FAILED, "target '%s' sent a bad dictionary length %u",
                            ex->path, len);
    for (uint32_t i = 0; i < len; i += 4) {
        /* The length need not be a multiple of 4: read the remainder bytewise. */
        if (len - i < 4) {
            uint8_t b;
            for (uint32_t k = i; k < len; k++)
                if (read(ex->st_fd, &b, 1) != 1)
                    return exec_startup_error(ex, IO_EOF, "dictionary", err);
            break;
        }
        if ((io = exec_read_word(ex, &w, EXEC_HELLO_TIMEOUT_MS)) != IO_OK)
            return exec_startup_error(ex, io, "dictionary", err);
    }
    return CD_OK;
}

static enum cd_status handshake_new(struct cd_exec *ex, uint32_t hello, size_t *map_size,
                                    struct cd_error *err)
{
    uint32_t opts, v;
    enum io io;
    if (!exec_write_word(ex, hello ^ 0xffffffffu))
        return exec_startup_error(ex, IO_EOF, "options", err);
    if ((io = exec_read_word(ex, &opts, EXEC_HELLO_TIMEOUT_MS)) != IO_OK)
        return exec_startup_error(ex, io, "options", err);
    if ((opts & FS_NEW_ERROR) == FS_NEW_ERROR)
        return cd_error_set(err, CD_FAILED, "fork server of '%s' reported error %u: %s", ex->path,
                            opts & 0xffffu, fs_error_name(opts & 0xffffu));
    if (opts & FS_NEW_OPT_MAPSIZE) {
        if ((io = exec_read_word(ex, &v, EXEC_HELLO_TIMEOUT_MS)) != IO_OK)
            return exec_startup_error(ex, io, "map size", err);
        if (v == 0 || v > (1u << 30))
            return cd_error_set(err, CD_FAILED, "target '%s' reported a bad map size %u",
                                ex->path, v);
        *map_size = v;
    }
    if (opts & FS_NEW_OPT_AUTODICT)
        CD_FORWARD_IF_ERROR(skip_dict(ex, err));
    if ((io = exec_read_word(ex, &v, EXEC_HELLO_TIMEOUT_MS)) != IO_OK)
        return exec_startup_error(ex, io, "closing hello", err);
    if (v != hello)
        return cd_error_set(err, CD_FAILED, "target '%s' ended its handshake with 0x%08x, not "
                            "0x%08x", ex->path, v, hello);
    ex->info.new_protocol = true;
    ex->info.shm_testcase = (opts & FS_NEW_OPT_SHDMEM_FUZZ) != 0;
    return CD_OK;
}

static enum cd_status handshake_old(struct cd_exec *ex, uint32_t hello, size_t *map_size,
                                    struct cd_error *err)
{
    if ((hello & FS_OPT_ERROR) == FS_OPT_ERROR) {
        uint32_t code = (hello >> 8) & 0xffffu;
        return cd_error_set(err, CD_FAILED, "fork server of '%s' reported error %u: %s", ex->path,
                            code, fs_error_name(code));
    }
    ex->info.new_protocol = false;
    ex->info.shm_testcase = false;
    if (hello == 0)
        return CD_OK;
    if ((hello & FS_OPT_ENABLED) != FS_OPT_ENABLED)
        return cd_error_set(err, CD_FAILED, "target '%s' sent 0x%08x, not a fork-server hello",
                            ex->path, hello);
    if ((hello & FS_OPT_OLD_AFLPP_WORKAROUND) == FS_OPT_OLD_AFLPP_WORKAROUND)
        hello &= 0xf0ffffffu;
    if (hello & FS_OPT_MAPSIZE)
        *map_size = ((hello & 0x00fffffeu) >> 1) + 1;
    uint32_t offered = hello & (FS_OPT_SHDMEM_FUZZ | FS_OPT_AUTODICT);
    if (offered) {
        if (!exec_write_word(ex, FS_OPT_ENABLED | offered))
            return exec_startup_error(ex, IO_EOF, "dictionary", err);
        ex->info.shm_testcase = (offered & FS_OPT_SHDMEM_FUZZ) != 0;
        if (offered & FS_OPT_AUTODICT)
            CD_FORWARD_IF_ERROR(skip_dict(ex, err));
    }
    return CD_OK;
}

/* Starts the fork server and completes the handshake; sets the map size in use. */
static enum cd_status start(struct cd_exec *ex, struct cd_error *err)
{
    if (ex->bin.native_lf)
        return exec_lf_start(ex, err);
    CD_FORWARD_IF_ERROR(exec_child_spawn(ex, err));
    exec_tail_reset(ex);
    uint32_t hello;
    enum io io = exec_read_word(ex, &hello, EXEC_HELLO_TIMEOUT_MS);
    if (io != IO_OK)
        goto fail_io;
    size_t map_size = 0;
    enum cd_status st;
    if ((hello & FS_NEW_ERROR) == FS_NEW_ERROR)
        st = cd_error_set(err, CD_FAILED, "fork server of '%s' reported error %u: %s", ex->path,
                          hello & 0xffffu, fs_error_name(hello & 0xffffu));
    else if (hello >= FS_NEW_HELLO && hello <= FS_NEW_HELLO + 0xff)
        st = handshake_new(ex, hello, &map_size, err);
    else
        st = handshake_old(ex, hello, &map_size, err);
    if (st != CD_OK)
        goto fail;
    if (!map_size)
        map_size = ex->opts.map_size ? ex->opts.map_size : ex->shm_size;
    if (map_size > ex->shm_size) {
        cd_error_set(err, CD_FAILED, "target '%s' has a coverage map of %zu bytes, more than the "
                     "%zu of AFL_MAP_SIZE (set it higher)", ex->path, map_size, ex->shm_size);
        goto fail;
    }
    ex->info.map_size = map_size;
    ex->clear_size = (map_size + 63) & ~(size_t)63;
    if (ex->clear_size > ex->shm_size)
        ex->clear_size = ex->shm_size;
    exec_tail_drain(ex);
    return CD_OK;
fail_io:
    exec_startup_error(ex, io, "fork-server hello", err);
fail:
    exec_child_stop(ex);
    return CD_FAILED;
}

static enum cd_status restart(struct cd_exec *ex, struct cd_error *err)
{
    exec_child_stop(ex);
    ex->info.restarts++;
    struct cd_error why;
    if (start(ex, &why) != CD_OK)
        return cd_error_set(err, CD_FAILED, "fork server died and could not be restarted: %s",
                            why.msg);
    return CD_OK;
}

static void *attach(int *id, size_t size)
{
    *id = shmget(IPC_PRIVATE, size, IPC_CREAT | IPC_EXCL | 0600);
    if (*id < 0)
        return NULL;
    void *p = shmat(*id, NULL, 0);
    /* Removed at once: Linux lets the target attach a removed segment while we hold it, and
     * nothing is left behind whatever happens to us. */
    shmctl(*id, IPC_RMID, NULL);
    return p == (void *)-1 ? NULL : p;
}

enum cd_status cd_exec_new(struct cd_exec **out, const struct cd_exec_opts *opts,
                           struct cd_error *err)
{
    *out = NULL;
    if (!opts->argv || !opts->argv[0] || !opts->argv[0][0])
        return cd_error_set(err, CD_FAILED, "no target given");
    struct cd_exec *ex = calloc(1, sizeof *ex);
    if (!ex)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    ex->opts = *opts;
    ex->input_fd = ex->devnull_fd = ex->children_fd = -1;
    ex->ctl_fd = ex->ctl_keep_fd = ex->st_fd = ex->err_fd = -1;
    ex->shm_id = ex->fuzz_id = -1;
    ex->lf.ctl_fd = -1;
    enum cd_status st = CD_FAILED;
    ex->tail = malloc(EXEC_TAIL_CAP + 1);
    if (!ex->tail) {
        cd_error_oom(err, CD_FAILED, "out of memory");
        goto out;
    }
    exec_tail_reset(ex);
    ex->shm_size = opts->map_size > EXEC_SHM_DEFAULT ? opts->map_size : EXEC_SHM_DEFAULT;
    ex->shm = attach(&ex->shm_id, ex->shm_size);
    ex->fuzz = attach(&ex->fuzz_id, EXEC_MAX_FILE + 4);
    if (!ex->shm || !ex->fuzz) {
        cd_error_sys(err, CD_FAILED, "cannot create shared memory: %s", strerror(errno));
        goto out;
    }
    if ((st = exec_child_prepare(ex, err)) != CD_OK)
        goto out;
    ex->info.timeout_ms = opts->timeout_ms ? opts->timeout_ms : EXEC_CONFIRM_MS;
    st = start(ex, err);
out:
    if (st != CD_OK) {
        cd_exec_free(ex);
        return CD_FAILED;
    }
    *out = ex;
    return CD_OK;
}

/* Puts the input where the target reads it. */
static enum cd_status deliver(struct cd_exec *ex, const uint8_t *data, size_t len,
                              struct cd_error *err)
{
    if (ex->info.shm_testcase) {
        uint32_t n = (uint32_t)len;
        memcpy(ex->fuzz, &n, 4);
        memcpy(ex->fuzz + 4, data, len);
        return CD_OK;
    }
    if (len && pwrite(ex->input_fd, data, len, 0) != (ssize_t)len)
        return cd_error_sys(err, CD_FAILED, "writing the input file: %s", strerror(errno));
    /* pwrite extends the file; only a shorter input needs a truncate. */
    if (len < ex->input_len && ftruncate(ex->input_fd, (off_t)len) != 0)
        return cd_error_sys(err, CD_FAILED, "truncating the input file: %s", strerror(errno));
    ex->input_len = len;
    /* The target's stdin shares our file offset. */
    if (!ex->info.file_input && lseek(ex->input_fd, 0, SEEK_SET) != 0)
        return cd_error_sys(err, CD_FAILED, "rewinding the input file: %s", strerror(errno));
    return CD_OK;
}

static unsigned current_timeout(const struct cd_exec *ex)
{
    return ex->opts.timeout_ms || ex->calib_runs >= EXEC_CALIB_RUNS ? ex->info.timeout_ms
                                                                    : EXEC_CONFIRM_MS;
}

/* One request to the fork server; the input is in place. */
static enum run_result run_once(struct cd_exec *ex, struct cd_run *run, unsigned limit_ms,
                                struct cd_error *err)
{
    if (ex->bin.native_lf)
        return exec_lf_run(ex, run, limit_ms, err);
    memset(ex->shm, 0, ex->clear_size);
    exec_tail_reset(ex);
    if (!exec_write_word(ex, ex->was_killed))
        return RUN_DIED;
    ex->was_killed = 0;
    uint32_t w;
    enum io io = read_pid(ex, &w);
    if (io == IO_EOF)
        return RUN_DIED;
    if (io == IO_TIMEOUT) {
        exec_child_stop(ex); /* a hung fork server: a new one is started */
        return RUN_DIED;
    }
    if (io != IO_OK) {
        cd_error_sys(err, CD_FAILED, "reading a child pid from the fork server: %s",
                     strerror(errno));
        return RUN_FAILED;
    }
    if ((int32_t)w <= 0) {
        cd_error_set(err, CD_FAILED, "fork server of '%s' could not start a child (0x%08x)",
                     ex->path, w);
        return RUN_FAILED;
    }
    ex->child_pid = (pid_t)w;
    uint64_t t0 = cd_now_ns();
    bool timed_out = false;
    io = exec_read_word(ex, &w, limit_ms);
    if (io == IO_TIMEOUT) {
        timed_out = true;
        /* Only a process of the target is killed: a fork server reporting some other pid must
         * not make us kill a process of the user's. A child that has just exited (its status is
         * on the way) is no longer anyone's. */
        pid_t pid = ex->child_pid;
        if (exec_child_is_targets(pid, ex->fsrv_pid)) {
            kill(pid, SIGKILL);
        } else if (kill(pid, 0) == 0 || errno != ESRCH) {
            exec_child_stop(ex);
            cd_error_set(err, CD_FAILED, "fork server of '%s' reported pid %d, which is no "
                         "process of the target", ex->path, (int)pid);
            return RUN_FAILED;
        }
        ex->was_killed = 1;
        io = exec_read_word(ex, &w, EXEC_HELLO_TIMEOUT_MS);
    }
    run->exec_ns = cd_now_ns() - t0;
    if (io == IO_EOF || io == IO_TIMEOUT)
        return RUN_DIED;
    if (io != IO_OK) {
        cd_error_sys(err, CD_FAILED, "reading a status from the fork server: %s",
                     strerror(errno));
        return RUN_FAILED;
    }
    int status = (int)w;
    exec_outcome_classify(ex, status, timed_out, run);
    if (!WIFSTOPPED(status) || timed_out) {
        ex->child_pid = 0;
        exec_child_reap_orphans(ex);
    }
    return RUN_DONE;
}

static void calibrate(struct cd_exec *ex, const struct cd_run *run)
{
    if (ex->opts.timeout_ms || ex->calib_runs >= EXEC_CALIB_RUNS)
        return;
    if (run->exec_ns > ex->calib_max_ns)
        ex->calib_max_ns = run->exec_ns;
    if (++ex->calib_runs < EXEC_CALIB_RUNS)
        return;
    uint64_t ms = (ex->calib_max_ns * 5 + 999999u) / 1000000u;
    ex->info.timeout_ms = ms < 20 ? 20 : ms > EXEC_CONFIRM_MS ? EXEC_CONFIRM_MS : (unsigned)ms;
}

/* Runs the input once within limit_ms, restarting a fork server that died and retrying once. */
static enum cd_status run_with_restart(struct cd_exec *ex, const uint8_t *data, size_t len,
                                       struct cd_run *run, unsigned limit_ms, struct cd_error *err)
{
    if (ex->fsrv_pid <= 0)
        CD_FORWARD_IF_ERROR(restart(ex, err));
    for (int attempt = 0;; attempt++) {
        CD_FORWARD_IF_ERROR(deliver(ex, data, len, err));
        enum run_result r = run_once(ex, run, limit_ms, err);
        if (r == RUN_DONE)
            return CD_OK;
        if (r == RUN_FAILED)
            return CD_FAILED;
        if (attempt > 0) {
            exec_child_stop(ex);
            return cd_error_set(err, CD_FAILED,
                                "fork server of '%s' died or stopped answering twice in a row",
                                ex->path);
        }
        CD_FORWARD_IF_ERROR(restart(ex, err));
    }
}

static enum cd_status run_input(struct cd_exec *ex, const uint8_t *data, size_t len,
                                struct cd_run *run, bool confirm, struct cd_error *err)
{
    if (ex->info.shm_testcase && len > EXEC_MAX_FILE)
        return cd_error_set(err, CD_WARN, "input of %zu bytes is larger than the %u bytes a "
                            "shared-memory target takes", len, EXEC_MAX_FILE);
    if (ex->bin.native_lf && len > EXEC_LF_MAX_LEN)
        return cd_error_set(err, CD_WARN, "input of %zu bytes is larger than the %u bytes a "
                            "libFuzzer target is given", len, EXEC_LF_MAX_LEN);
    unsigned limit = current_timeout(ex);
    CD_FORWARD_IF_ERROR(run_with_restart(ex, data, len, run, limit, err));
    /* A calibrated timeout is tight; like afl-fuzz, confirm a hang with the long limit before
     * calling it one, so that a busy machine does not make timeouts out of slow runs. */
    if (run->outcome == CD_OUTCOME_TIMEOUT && !ex->opts.timeout_ms && limit < EXEC_CONFIRM_MS) {
        if (confirm) {
            CD_FORWARD_IF_ERROR(run_with_restart(ex, data, len, run, EXEC_CONFIRM_MS, err));
            ex->info.execs++;
        } else {
            run->outcome = CD_OUTCOME_SLOW;
        }
    }
    /* The target's stdin shares our file offset: a target that never moves it ignores its input
       (a forgotten @@). One lseek a run until it does, over the first runs only: the guard
       reads it after the first pass, and thousands of runs that read nothing settle it. */
    if (!ex->info.file_input && !ex->info.shm_testcase && !ex->info.stdin_read && len > 0 &&
        ex->info.execs < EXEC_STDIN_PROBE_RUNS)
        ex->info.stdin_read = lseek(ex->input_fd, 0, SEEK_CUR) > 0;
    run->map = ex->shm;
    run->map_size = ex->info.map_size;
    ex->info.execs++;
    calibrate(ex, run);
    return CD_OK;
}

enum cd_status cd_exec_run(struct cd_exec *ex, const uint8_t *data, size_t len, struct cd_run *run,
                           struct cd_error *err)
{
    return run_input(ex, data, len, run, true, err);
}

enum cd_status cd_exec_run_quick(struct cd_exec *ex, const uint8_t *data, size_t len,
                                 struct cd_run *run, struct cd_error *err)
{
    return run_input(ex, data, len, run, false, err);
}

const struct cd_exec_info *cd_exec_info(const struct cd_exec *ex)
{
    return &ex->info;
}

void cd_exec_free(struct cd_exec *ex)
{
    if (!ex)
        return;
    exec_child_stop(ex);
    exec_lf_release(ex);
    exec_child_release(ex);
    if (ex->shm)
        shmdt(ex->shm);
    if (ex->fuzz)
        shmdt(ex->fuzz);
    free(ex->tail);
    exec_symbolizer_free(ex->symbolizer);
    free(ex);
}
