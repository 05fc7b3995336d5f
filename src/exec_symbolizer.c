/* Executor, crash side: names the frames of an unsymbolized sanitizer stack ("(module+0xoffset)",
 * as our default ASAN_OPTIONS=symbolize=0 prints them) with llvm-symbolizer, run once per executor
 * as a coprocess the way the sanitizers run it, with a cache, since a pile of crashes repeats the
 * same few addresses. A symbolizer that is missing, dies or stalls is given up for the executor's
 * lifetime: its frames then stay unnamed. It knows nothing of labels. */
#define _GNU_SOURCE /* pipe2 */
#include "exec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SYM_TIMEOUT_MS 5000    /* one answer; the first one loads the module's debug info */
#define SYM_CACHE_MAX 4096     /* entries before the cache starts over */
#define SYM_ANSWER_MAX (64u << 10)

struct sym_entry {
    char *key;                 /* "module\0x<offset>" as sent */
    char *names;               /* function names, innermost inlined frame first, '\n' after each;
                                  "" when it named none */
};

struct exec_symbolizer {
    pid_t pid;
    int to_fd, from_fd;
    bool failed;
    struct sym_entry *cache;
    size_t n, cap;
    char *buf;                 /* the answer being read */
    size_t len;
};

/* The symbolizer to run: ASAN_SYMBOLIZER_PATH as the sanitizers read it, else llvm-symbolizer
 * from PATH. Owned string or NULL. */
static char *symbolizer_path(void)
{
    const char *env = getenv("ASAN_SYMBOLIZER_PATH");
    if (env && *env)
        return access(env, X_OK) == 0 ? strdup(env) : NULL;
    return exec_which("llvm-symbolizer");
}

static void sym_stop(struct exec_symbolizer *s)
{
    if (s->to_fd >= 0)
        close(s->to_fd);
    if (s->from_fd >= 0)
        close(s->from_fd);
    s->to_fd = s->from_fd = -1;
    if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    s->pid = 0;
    s->failed = true;
}

static bool sym_start(struct exec_symbolizer *s)
{
    char *path = symbolizer_path();
    int in[2] = {-1, -1}, out[2] = {-1, -1};
    if (!path || pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
        goto fail;
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0); /* not in our terminal's group: Ctrl-C is ours to handle */
        if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0)
            _exit(127);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        char *argv[] = {path, "--inlining", "--functions=linkage", "--demangle",
                        "--output-style=LLVM", NULL};
        execv(path, argv);
        _exit(127);
    }
    if (pid < 0)
        goto fail;
    close(in[0]);
    close(out[1]);
    free(path);
    s->pid = pid;
    s->to_fd = in[1];
    s->from_fd = out[0];
    return true;
fail:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
    }
    free(path);
    s->failed = true;
    return false;
}

/* Writes all of line; a symbolizer gone raises no SIGPIPE here (blocked, then taken back). */
static bool sym_write(struct exec_symbolizer *s, const char *line, size_t n)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    bool ok = true;
    while (n && ok) {
        ssize_t w = write(s->to_fd, line, n);
        if (w > 0) {
            line += w;
            n -= (size_t)w;
        } else if (!(w < 0 && errno == EINTR))
            ok = false;
    }
    if (!ok) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

/* Reads one answer (lines up to an empty one) into s->buf. */
static bool sym_read(struct exec_symbolizer *s)
{
    s->len = 0;
    for (;;) {
        if (s->len >= 2 && s->buf[s->len - 1] == '\n' && s->buf[s->len - 2] == '\n')
            return true;
        if (s->len == 1 && s->buf[0] == '\n')
            return true;
        if (s->len + 1 >= SYM_ANSWER_MAX)
            return false;
        struct pollfd pfd = {s->from_fd, POLLIN, 0};
        int r = poll(&pfd, 1, SYM_TIMEOUT_MS);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        ssize_t n = read(s->from_fd, s->buf + s->len, SYM_ANSWER_MAX - 1 - s->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        s->len += (size_t)n;
    }
}

/* The function lines of an LLVM-style answer (function, file:line:col, ...), "??" left out. */
static char *answer_names(const char *a, size_t len)
{
    char *names = malloc(len + 1);
    if (!names)
        return NULL;
    size_t n = 0;
    bool function_line = true;
    for (const char *p = a, *end = a + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (l == 0)
            break;
        if (function_line && !(l == 2 && p[0] == '?' && p[1] == '?')) {
            memcpy(names + n, p, l);
            n += l;
            names[n++] = '\n';
        }
        function_line = !function_line;
        p += l + 1;
    }
    names[n] = '\0';
    return names;
}

void exec_symbolizer_free(struct exec_symbolizer *s)
{
    if (!s)
        return;
    if (s->pid > 0)
        sym_stop(s);
    for (size_t i = 0; i < s->n; i++) {
        free(s->cache[i].key);
        free(s->cache[i].names);
    }
    free(s->cache);
    free(s->buf);
    free(s);
}

const char *exec_symbolize(struct exec_symbolizer **sp, const char *module, size_t module_len,
                           uint64_t offset)
{
    /* A module name that does not fit the symbolizer's line syntax is not asked about. */
    if (!module_len || module_len > 1024 || memchr(module, '"', module_len) ||
        memchr(module, '\n', module_len))
        return NULL;
    if (!*sp) {
        *sp = calloc(1, sizeof **sp);
        if (!*sp)
            return NULL;
        (*sp)->to_fd = (*sp)->from_fd = -1;
    }
    struct exec_symbolizer *s = *sp;
    char line[1100];
    int n = snprintf(line, sizeof line, "\"%.*s\" 0x%llx\n", (int)module_len, module,
                     (unsigned long long)offset);
    if (n <= 0 || (size_t)n >= sizeof line)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->cache[i].key, line) == 0)
            return s->cache[i].names;
    if (s->failed || (!s->pid && !sym_start(s)))
        return NULL;
    if (!s->buf && !(s->buf = malloc(SYM_ANSWER_MAX)))
        return NULL;
    if (!sym_write(s, line, (size_t)n) || !sym_read(s)) {
        sym_stop(s);
        return NULL;
    }
    if (s->n == SYM_CACHE_MAX) {
        for (size_t i = 0; i < s->n; i++) {
            free(s->cache[i].key);
            free(s->cache[i].names);
        }
        s->n = 0;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct sym_entry *v = realloc(s->cache, cap * sizeof *v);
        if (!v)
            return NULL;
        s->cache = v;
        s->cap = cap;
    }
    struct sym_entry e = {strdup(line), answer_names(s->buf, s->len)};
    if (!e.key || !e.names) {
        free(e.key);
        free(e.names);
        return NULL;
    }
    s->cache[s->n++] = e;
    return e.names;
}
