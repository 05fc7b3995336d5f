/* Executor, result side: keeps a bounded tail of what the target wrote to stderr during one run,
 * classifies a run from its wait status the way afl-fuzz does (signal, sanitizer exit codes,
 * AFL_CRASH_EXITCODE, timeout), and has exec_crash_state.c name the sanitizer error a crashing run
 * reported. It knows nothing of labels. */
#define _GNU_SOURCE /* memrchr */
#include "exec_internal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void exec_tail_reset(struct cd_exec *ex)
{
    ex->tail_len = 0;
    ex->tail[0] = '\0';
}

bool exec_tail_drain(struct cd_exec *ex)
{
    if (ex->err_fd < 0)
        return true;
    for (;;) {
        if (ex->tail_len == EXEC_TAIL_CAP) {
            /* Keep the newer half: amortised, the tail costs O(1) per byte read. */
            memmove(ex->tail, ex->tail + EXEC_TAIL_CAP / 2, EXEC_TAIL_CAP / 2);
            ex->tail_len = EXEC_TAIL_CAP / 2;
        }
        ssize_t n = read(ex->err_fd, ex->tail + ex->tail_len, EXEC_TAIL_CAP - ex->tail_len);
        if (n > 0) {
            ex->tail_len += (size_t)n;
            continue;
        }
        ex->tail[ex->tail_len] = '\0';
        if (n == 0)
            return false;
        if (errno == EINTR)
            continue;
        return true;
    }
}

const char *exec_tail_last_line(const struct cd_exec *ex, char *buf, size_t cap)
{
    size_t end = ex->tail_len;
    while (end > 0 && (ex->tail[end - 1] == '\n' || ex->tail[end - 1] == '\r'))
        end--;
    const char *nl = end ? memrchr(ex->tail, '\n', end) : NULL;
    size_t start = nl ? (size_t)(nl - ex->tail) + 1 : 0;
    size_t n = end - start < cap - 1 ? end - start : cap - 1;
    memcpy(buf, ex->tail + start, n);
    buf[n] = '\0';
    return buf;
}

void exec_outcome_classify(struct cd_exec *ex, int status, bool timed_out, struct cd_run *run)
{
    run->signal = 0;
    run->exit_status = -1;
    run->san_tool = NULL;
    run->san_kind = NULL;
    run->crash_state = NULL;
    run->stderr_tail = ex->tail;
    if (timed_out) {
        run->outcome = CD_OUTCOME_TIMEOUT;
        return;
    }
    run->outcome = CD_OUTCOME_OK;
    if (WIFSIGNALED(status)) {
        run->outcome = CD_OUTCOME_CRASH;
        run->signal = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        run->exit_status = code;
        if ((ex->bin.sanitizer && (code == 86 || code == 23)) ||
            (ex->opts.crash_exitcode_set && (uint8_t)code == (uint8_t)ex->opts.crash_exitcode))
            run->outcome = CD_OUTCOME_CRASH;
    }
    /* A stopped persistent child is a finished iteration: ok. */
    const char *at = run->outcome == CD_OUTCOME_CRASH && ex->tail_len
                         ? exec_sanitizer_report(ex->tail, &run->san_tool, ex->san_kind,
                                                 sizeof ex->san_kind)
                         : NULL;
    if (!at)
        return;
    run->san_kind = ex->san_kind;
    if (ex->opts.crash_frames && ex->fsrv_pid > 0)
        exec_symbolizer_target(&ex->symbolizer, ex->fsrv_pid);
    if (ex->opts.crash_frames &&
        exec_crash_state(ex->tail, at, run->san_tool, run->san_kind, ex->opts.crash_frames,
                         &ex->symbolizer, ex->crash_state, sizeof ex->crash_state))
        run->crash_state = ex->crash_state;
}
