/* Executor, result side: keeps a bounded tail of what the target wrote to stderr during one run,
 * classifies a run from its wait status the way afl-fuzz does (signal, sanitizer exit codes,
 * AFL_CRASH_EXITCODE, timeout), and names the sanitizer error a crashing run reported. The kinds
 * named here are the ones the labels module has fixed ids for; it knows nothing else of labels. */
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

/* "XSanitizer" names and our tool names. */
static const struct {
    const char *name, *tool;
} san_names[] = {
    {"Address", "asan"},       {"UndefinedBehavior", "ubsan"}, {"Memory", "msan"},
    {"Leak", "lsan"},          {"Thread", "tsan"},             {"HWAddress", "hwasan"},
};

/* Phrases of ASan/LSan/TSan reports whose first word is not the kind. */
static const struct {
    const char *phrase, *kind;
} san_phrases[] = {
    {"attempting double-free", "double-free"},
    {"attempting free on address which was not malloc", "bad-free"},
    {"requested allocation size", "allocation-size-too-big"},
    {"allocator is out of memory", "out-of-memory"},
    {"out of memory", "out-of-memory"},
    {"calloc parameters overflow", "calloc-overflow"},
    {"detected memory leaks", "detected-memory-leaks"},
    {"data race", "data-race"},
    {"heap-use-after-free", "heap-use-after-free"},
};

/* UBSan "runtime error:" messages and clang's check names; the first match wins. */
static const struct {
    const char *phrase, *kind;
} ubsan_phrases[] = {
    {"signed integer overflow", "signed-integer-overflow"},
    {"unsigned integer overflow", "unsigned-integer-overflow"},
    {"negation of", "signed-integer-overflow"},
    {"division by zero", "integer-divide-by-zero"},
    {"shift exponent", "shift"},
    {"left shift of", "shift"},
    {"out of bounds for type", "bounds"},
    {"misaligned address", "alignment"},
    {"null pointer passed as argument", "nonnull-attribute"},
    {"null pointer returned from function", "returns-nonnull-attribute"},
    {"pointer index expression", "pointer-overflow"},
    {"applying non-zero offset", "pointer-overflow"},
    {"applying zero offset to null pointer", "pointer-overflow"},
    {"addition of unsigned offset", "pointer-overflow"},
    {"subtraction of unsigned offset", "pointer-overflow"},
    {"null pointer", "null"},
    {"which is not a valid value for type", "invalid-value"},
    {"unreachable program point", "unreachable"},
    {"end of a value-returning function", "return"},
    {"outside the range of representable values", "float-cast-overflow"},
    {"variable length array bound", "vla-bound"},
    {"incorrect function type", "function"},
    {"implicit conversion", "implicit-conversion"},
    {"passing zero to", "invalid-builtin-use"},
    {"address is not aligned", "alignment"},
};

/* Returns whether phrase occurs in [s, end). */
static bool in_line(const char *s, const char *end, const char *phrase)
{
    return memmem(s, (size_t)(end - s), phrase, strlen(phrase)) != NULL;
}

static void copy_kind(char *kind, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(kind, s, n);
    kind[n] = '\0';
}

/* Parses the text after "XSanitizer: " up to the end of its line. */
static void san_kind_of(const char *s, const char *end, char *kind, size_t cap)
{
    for (size_t i = 0; i < sizeof san_phrases / sizeof san_phrases[0]; i++) {
        if ((size_t)(end - s) >= strlen(san_phrases[i].phrase) &&
            strncmp(s, san_phrases[i].phrase, strlen(san_phrases[i].phrase)) == 0) {
            copy_kind(kind, cap, san_phrases[i].kind, strlen(san_phrases[i].kind));
            return;
        }
    }
    size_t n = 0;
    while (s + n < end && (s[n] == '-' || s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') ||
                           (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9')))
        n++;
    copy_kind(kind, cap, n ? s : "unknown", n ? n : 7);
}

static void ubsan_kind_of(const char *s, const char *end, char *kind, size_t cap)
{
    for (size_t i = 0; i < sizeof ubsan_phrases / sizeof ubsan_phrases[0]; i++) {
        if (in_line(s, end, ubsan_phrases[i].phrase)) {
            copy_kind(kind, cap, ubsan_phrases[i].kind, strlen(ubsan_phrases[i].kind));
            return;
        }
    }
    copy_kind(kind, cap, "undefined-behavior", 18);
}

/* Where the first sanitizer report of text starts (after "XSanitizer: " or "runtime error: "),
 * its tool in *tool and whether it is a UBSan "runtime error:" line; NULL when there is none. */
static const char *report_find(const char *text, const char **tool, bool *ubsan_line)
{
    const char *best = NULL, *best_tool = NULL;
    bool best_ubsan_line = false;
    /* The earliest "XSanitizer: " line naming a known sanitizer. */
    for (const char *p = strstr(text, "Sanitizer: "); p; p = strstr(p + 1, "Sanitizer: ")) {
        const char *name = p;
        while (name > text && ((name[-1] >= 'a' && name[-1] <= 'z') ||
                               (name[-1] >= 'A' && name[-1] <= 'Z')))
            name--;
        for (size_t i = 0; i < sizeof san_names / sizeof san_names[0]; i++) {
            size_t n = strlen(san_names[i].name);
            if ((size_t)(p - name) == n && strncmp(name, san_names[i].name, n) == 0) {
                best = p + strlen("Sanitizer: ");
                best_tool = san_names[i].tool;
                break;
            }
        }
        if (best)
            break;
    }
    const char *rt = strstr(text, "runtime error: ");
    if (rt && (!best || rt < best)) {
        best = rt + strlen("runtime error: ");
        best_tool = "ubsan";
        best_ubsan_line = true;
    }
    *tool = best_tool;
    *ubsan_line = best_ubsan_line;
    return best;
}

const char *exec_sanitizer_report(const char *text, const char **tool, char *kind, size_t cap)
{
    bool ubsan_line;
    const char *best = report_find(text, tool, &ubsan_line);
    if (!best)
        return NULL;
    const char *end = strchr(best, '\n');
    if (!end)
        end = best + strlen(best);
    if (ubsan_line)
        ubsan_kind_of(best, end, kind, cap);
    else
        san_kind_of(best, end, kind, cap);
    return best;
}

bool cd_exec_sanitizer_report(const char *text, const char **tool, char *kind, size_t cap)
{
    return exec_sanitizer_report(text, tool, kind, cap) != NULL;
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
