/* Executor, crash side: names the frames of an unsymbolized sanitizer stack ("(module+0xoffset)",
 * as our default ASAN_OPTIONS=symbolize=0 prints them) with llvm-symbolizer, run once per executor
 * as a coprocess the way the sanitizers run it, with a cache, since a pile of crashes repeats the
 * same few addresses. The target's stderr is input-chosen text: only the regular ELF files the
 * target maps are asked about (a forged "(/dev/zero+0x10)" or a FIFO is not), the symbolizer runs
 * under memory and CPU limits and the guard that kills the target's processes with the tool, and
 * a module it fails on (a stall, a death) is given up alone, the symbolizer started anew for the
 * next. A symbolizer that cannot be started is given up for the executor's lifetime: frames then
 * stay unnamed. It knows nothing of labels. */
#define _GNU_SOURCE /* pipe2 */
#include "exec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SYM_TIMEOUT_MS 5000    /* one answer; the first one loads the module's debug info */
#define SYM_CACHE_MAX 4096     /* entries before the cache starts over */
#define SYM_ANSWER_MAX (64u << 10)
#define SYM_MODULES_MAX 1024   /* modules the target maps that may be asked about */
#define SYM_MEM_MAX ((rlim_t)4 << 30) /* address space of the symbolizer */
#define SYM_CPU_S 600          /* CPU seconds of one symbolizer process */

struct sym_entry {
    char *key;                 /* "module\0x<offset>" as sent */
    char *names;               /* function names, innermost inlined frame first, '\n' after each;
                                  "" when it named none */
};

struct exec_symbolizer {
    pid_t pid;
    int to_fd, from_fd;
    bool failed;               /* it cannot be started: no frame is named */
    bool listed;               /* modules read from the target's maps */
    char **modules;            /* the regular ELF files the target maps, sorted */
    size_t n_modules;
    char **bad;                /* modules the symbolizer failed on, each given up alone */
    size_t n_bad;
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

/* Whether path is a regular file starting with the ELF magic, opened without blocking. */
static bool is_elf(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat sb;
    unsigned char magic[4];
    bool elf = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
               read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
               memcmp(magic, "\x7f" "ELF", 4) == 0;
    close(fd);
    return elf;
}

static bool has(char *const *v, size_t n, const char *s)
{
    return n && bsearch(&s, v, n, sizeof *v, cd_cmp_strp) != NULL;
}

/* The modules of /proc/PID/maps (each pathname once) that are regular ELF files. */
static void list_modules(struct exec_symbolizer *s, pid_t pid)
{
    char path[64], line[4352];
    snprintf(path, sizeof path, pid > 0 ? "/proc/%d/maps" : "/proc/self/maps", (int)pid);
    s->listed = true;
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f) && s->n_modules < SYM_MODULES_MAX) {
        char *name = strchr(line, '/');
        char *nl = name ? strchr(name, '\n') : NULL;
        if (!name || !nl)
            continue;
        *nl = '\0';
        bool seen = false;
        for (size_t i = 0; i < s->n_modules && !seen; i++)
            seen = strcmp(s->modules[i], name) == 0;
        if (seen || !is_elf(name))
            continue;
        char **v = realloc(s->modules, (s->n_modules + 1) * sizeof *v);
        if (!v || !(name = strdup(name))) {
            if (v)
                s->modules = v;
            break;
        }
        s->modules = v;
        s->modules[s->n_modules++] = name;
    }
    if (f)
        fclose(f);
    if (s->n_modules)
        qsort(s->modules, s->n_modules, sizeof *s->modules, cd_cmp_strp);
}

static struct exec_symbolizer *sym_get(struct exec_symbolizer **sp)
{
    if (!*sp && (*sp = calloc(1, sizeof **sp)) != NULL)
        (*sp)->to_fd = (*sp)->from_fd = -1;
    return *sp;
}

void exec_symbolizer_target(struct exec_symbolizer **sp, pid_t pid)
{
    struct exec_symbolizer *s = sym_get(sp);
    if (s && !s->listed)
        list_modules(s, pid);
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
        exec_guard_forget(s->pid);
    }
    s->pid = 0;
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
        struct rlimit mem = {SYM_MEM_MAX, SYM_MEM_MAX}, cpu = {SYM_CPU_S, SYM_CPU_S};
        if (setrlimit(RLIMIT_AS, &mem) != 0 || setrlimit(RLIMIT_CPU, &cpu) != 0)
            _exit(127);
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
    setpgid(pid, pid);
    exec_guard_watch(pid); /* killed with the tool, however it ends */
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
    for (size_t i = 0; i < s->n_modules; i++)
        free(s->modules[i]);
    for (size_t i = 0; i < s->n_bad; i++)
        free(s->bad[i]);
    free(s->modules);
    free(s->bad);
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
    struct exec_symbolizer *s = sym_get(sp);
    char mod[1100];
    if (!s)
        return NULL;
    if (!s->listed)
        list_modules(s, 0); /* no target named: the modules this process maps */
    snprintf(mod, sizeof mod, "%.*s", (int)module_len, module);
    if (!has(s->modules, s->n_modules, mod) || has(s->bad, s->n_bad, mod))
        return NULL;
    char line[1100];
    int n = snprintf(line, sizeof line, "\"%.*s\" 0x%llx\n", (int)module_len, module,
                     (unsigned long long)offset);
    if (n <= 0 || (size_t)n >= sizeof line)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->cache[i].key, line) == 0)
            return s->cache[i].names;
    /* A symbolizer gone under us (the guard kills what it lists when the last fork server
     * stops, as a libFuzzer target's does after each crash) is started anew, the module kept. */
    if (s->pid > 0 && waitpid(s->pid, NULL, WNOHANG) == s->pid) {
        exec_guard_forget(s->pid);
        s->pid = 0;
        sym_stop(s);
    }
    if (s->failed || (!s->pid && !sym_start(s)))
        return NULL;
    if (!s->buf && !(s->buf = malloc(SYM_ANSWER_MAX)))
        return NULL;
    if (!sym_write(s, line, (size_t)n) || !sym_read(s)) {
        sym_stop(s); /* started anew for the next module; this one is given up */
        char **v = realloc(s->bad, (s->n_bad + 1) * sizeof *v);
        char *copy = v ? strdup(mod) : NULL;
        if (v)
            s->bad = v;
        if (copy) {
            s->bad[s->n_bad++] = copy;
            qsort(s->bad, s->n_bad, sizeof *s->bad, cd_cmp_strp);
        }
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
