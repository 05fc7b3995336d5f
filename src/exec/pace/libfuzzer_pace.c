/* The pacing hook corpus-distill preloads into a libFuzzer binary (LD_PRELOAD), so that one
 * process runs input after input as a fork server would, instead of one process an input.
 *
 * The binary runs its own merge step (-merge_inner=2 -merge_control_file=F): it reads the control
 * file's list of N input paths, then for each one opens the file, runs it, and appends
 * "STARTED i size", "FT i <features>" and "COV i <pcs>" to F, flushing before it opens the next.
 * corpus-distill lists one path N times, CD_LIBFUZZER_INPUT, its private input file. This hook
 * holds every open of that path: it writes a word to fd 199 (the input before is done and its
 * lines are in F, or, the first time, the process is ready), then waits for a word on fd 198
 * (the next input is in the file). A process that dies between the two has crashed on the input.
 * It also refuses to create libFuzzer's crash artifacts (-artifact_prefix is the input path and a
 * '-'): corpus-distill keeps crashing inputs itself. Every other open goes straight through.
 *
 * It is a separate shared object, built without sanitizers, and never linked into the tool. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PACE_CTL_FD 198
#define PACE_ST_FD 199
#define PACE_HELLO 0x43444c46u /* "CDLF" */

static const char *input_path(void)
{
    static const char *path;
    static int looked;
    if (!looked) {
        path = getenv("CD_LIBFUZZER_INPUT");
        looked = 1;
    }
    return path;
}

/* Whether path is an artifact libFuzzer would write for a crash (-artifact_prefix is the input
 * path and a '-'): corpus-distill keeps crashing inputs itself. */
static int artifact(const char *path)
{
    const char *want = input_path();
    size_t n = want ? strlen(want) : 0;
    return n && path && strncmp(path, want, n) == 0 && path[n] == '-';
}

/* Blocks until corpus-distill has put the next input in place; exits when it is gone. */
static void pace(const char *path)
{
    const char *want = input_path();
    if (!want || !path || strcmp(path, want) != 0)
        return;
    uint32_t word = PACE_HELLO;
    while (write(PACE_ST_FD, &word, 4) != 4)
        if (errno != EINTR)
            _exit(0);
    for (;;) {
        ssize_t n = read(PACE_CTL_FD, &word, 4);
        if (n == 4)
            return;
        if (n < 0 && errno == EINTR)
            continue;
        _exit(0); /* corpus-distill closed the channel: nothing more to run */
    }
}

typedef FILE *fopen_fn(const char *, const char *);
typedef int open_fn(const char *, int, ...);

/* The next definition of name after this object's: libc's, or a sanitizer's interceptor. */
#define NEXT(type, name)                                                                     \
    static type *next_##name;                                                                \
    if (!next_##name)                                                                        \
        next_##name = (type *)dlsym(RTLD_NEXT, #name);

/* open's mode argument, there only when the flags create a file. */
#define OPEN_MODE(flags, mode)                                                               \
    do {                                                                                     \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                               \
            va_list ap;                                                                      \
            va_start(ap, flags);                                                             \
            mode = va_arg(ap, mode_t);                                                       \
            va_end(ap);                                                                      \
        }                                                                                    \
    } while (0)

FILE *fopen(const char *path, const char *mode)
{
    NEXT(fopen_fn, fopen);
    if (artifact(path)) {
        errno = EACCES;
        return NULL;
    }
    pace(path);
    return next_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
    NEXT(fopen_fn, fopen64);
    if (artifact(path)) {
        errno = EACCES;
        return NULL;
    }
    pace(path);
    return next_fopen64(path, mode);
}

int open(const char *path, int flags, ...)
{
    NEXT(open_fn, open);
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    pace(path);
    return next_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    NEXT(open_fn, open64);
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    pace(path);
    return next_open64(path, flags, mode);
}
