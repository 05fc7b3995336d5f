/* Executor, launching side: finds and inspects the target binary, builds its argv and environment
 * once, starts it as a fork server in its own session with the control and status channels on
 * descriptors 198/199, and kills and reaps everything it left behind. The wire protocol itself is
 * in exec_forkserver.c; this file knows only how to start and stop processes. */
#define _GNU_SOURCE /* memmem, pipe2, sched_setaffinity, prctl */
#include "exec_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Set in every target's environment to this process's pid, and inherited by whatever the target
 * starts: a process that left the target's session (setsid) is still known as the target's. */
#define MARK_VAR "CORPUS_DISTILL_PID"

#define FORKSRV_FD 198

/* Variables we set for the target; inherited copies are dropped. */
static const char *const own_vars[] = {
    "__AFL_SHM_ID", "__AFL_SHM_FUZZ_ID", "AFL_MAP_SIZE", "__AFL_PERSISTENT",
    "__AFL_DEFER_FORKSRV", "LD_BIND_NOW", "AFL_OLD_FORKSERVER", "AFL_NO_IJON", MARK_VAR,
    "CD_LIBFUZZER_INPUT",
};

/* Live fork servers of this process, every executor's: a stray carrying the mark is killed only
 * when it is none of them. Spawning holds the lock from fork until the pid is recorded. */
static pthread_mutex_t servers_mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t *servers;
static size_t n_servers, cap_servers;

static void servers_drop(pid_t pid)
{
    for (size_t i = 0; i < n_servers; i++)
        if (servers[i] == pid) {
            servers[i] = servers[--n_servers];
            break;
        }
    if (!n_servers) {
        free(servers);
        servers = NULL;
        cap_servers = 0;
    }
}

static bool servers_have(pid_t pid)
{
    for (size_t i = 0; i < n_servers; i++)
        if (servers[i] == pid)
            return true;
    return false;
}

/* afl-fuzz's sanitizer defaults, used only when the user set no *SAN_OPTIONS at all. With crash
 * states wanted, the sanitizers handle signals too (ClusterFuzz's setting): a SEGV or an abort is
 * then reported with its stack, and the run still ends by SIGABRT. */
#define SAN_HANDLERS(on)                                                                      \
    "handle_segv=" on ":handle_sigbus=" on ":handle_abort=" on ":handle_sigfpe=" on             \
    ":handle_sigill=" on
#define SAN_DEFAULTS(h)                                                                       \
    {                                                                                         \
        "ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:malloc_context_size=0:symbolize=0:"      \
        "allocator_may_return_null=1:detect_odr_violation=0:" h,                              \
            "UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:malloc_context_size=0:symbolize=0:" \
            "allocator_may_return_null=1:print_stacktrace=1:" h,                              \
            "MSAN_OPTIONS=exit_code=86:abort_on_error=1:symbolize=0:msan_track_origins=0:"      \
            "malloc_context_size=0:allocator_may_return_null=1:" h,                           \
            "LSAN_OPTIONS=exitcode=23:fast_unwind_on_malloc=0:symbolize=0:print_suppressions=0" \
    }
static const char *const san_defaults[] = SAN_DEFAULTS(SAN_HANDLERS("0"));
static const char *const san_defaults_states[] = SAN_DEFAULTS(SAN_HANDLERS("1"));

static bool contains(const uint8_t *hay, size_t n, const char *needle, size_t len)
{
    return memmem(hay, n, needle, len) != NULL;
}

char *exec_which(const char *name)
{
    if (strchr(name, '/')) {
        char *path = strdup(name);
        if (!path)
            errno = ENOMEM;
        return path;
    }
    const char *p = getenv("PATH");
    if (!p || !*p)
        p = "/usr/local/bin:/usr/bin:/bin";
    while (*p) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char cand[PATH_MAX];
        int len = snprintf(cand, sizeof cand, "%.*s/%s", (int)n, p, name);
        if (n > 0 && len > 0 && (size_t)len < sizeof cand && access(cand, X_OK) == 0) {
            char *path = strdup(cand);
            if (!path)
                errno = ENOMEM;
            return path;
        }
        p += n + (colon ? 1 : 0);
    }
    errno = ENOENT;
    return NULL;
}

/* Resolves argv[0] like execvp would, but up front, so a missing target is named clearly. */
static enum cd_status resolve_path(struct cd_exec *ex, struct cd_error *err)
{
    const char *name = ex->opts.argv[0];
    ex->path = exec_which(name);
    if (ex->path)
        return CD_OK;
    if (errno == ENOMEM)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    return cd_error_set(err, CD_FAILED, "target '%s' not found in PATH", name);
}

/* Checks that the target is an executable file and reads the markers afl's tools look for. */
static enum cd_status scan_binary(struct cd_exec *ex, struct cd_error *err)
{
    struct stat st;
    if (stat(ex->path, &st) != 0)
        return cd_error_sys(err, CD_FAILED, "target '%s' not found: %s", ex->path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return cd_error_set(err, CD_FAILED, "target '%s' is not a regular file", ex->path);
    if (access(ex->path, X_OK) != 0)
        return cd_error_set(err, CD_FAILED, "target '%s' is not executable", ex->path);
    int fd = open(ex->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cd_error_sys(err, CD_FAILED, "cannot read target '%s': %s", ex->path,
                            strerror(errno));
    size_t n = (size_t)st.st_size;
    void *m = n ? mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (m == MAP_FAILED)
        return cd_error_set(err, CD_FAILED, "cannot read target '%s'", ex->path);
    const uint8_t *b = m;
    ex->bin.instrumented = contains(b, n, "__AFL_SHM_ID", 12);
    ex->bin.persistent = contains(b, n, "##SIG_AFL_PERSISTENT##", sizeof "##SIG_AFL_PERSISTENT##");
    ex->bin.deferred =
        contains(b, n, "##SIG_AFL_DEFER_FORKSRV##", sizeof "##SIG_AFL_DEFER_FORKSRV##");
    ex->bin.sanitizer = contains(b, n, "__asan_init", 11) || contains(b, n, "__msan_init", 11) ||
                        contains(b, n, "__lsan_init", 11);
    ex->bin.libfuzzer = contains(b, n, "LLVMFuzzerTestOneInput", 22) && ex->bin.persistent;
    ex->bin.native_lf = !ex->bin.instrumented && contains(b, n, "LLVMFuzzerTestOneInput", 22) &&
                        contains(b, n, "merge_control_file", 18);
    ex->bin.lf_set_cover = contains(b, n, "set_cover_merge", 15);
    munmap(m, n);
    /* afl-fuzz's escape hatch for a wrapper script or a binary that hides its markers: the
     * handshake tells instead. */
    if (cd_env_on("AFL_SKIP_BIN_CHECK")) {
        ex->bin.native_lf = false;
        return CD_OK;
    }
    if (!ex->bin.instrumented && !ex->bin.native_lf)
        return cd_error_set(err, CD_FAILED,
                            "target '%s' is not instrumented for AFL++ (no __AFL_SHM_ID in the "
                            "binary, and no libFuzzer binary); build it with afl-clang-fast, or "
                            "set AFL_SKIP_BIN_CHECK=1 for a wrapper",
                            ex->path);
    return CD_OK;
}

/* Removes the input files that runs killed before they could clean up (SIGKILL, power loss) left
 * in dir: ".cd-input-PID-*", regular, ours, after a process that no longer exists. A live pid,
 * ours or another run's, keeps its file. */
static void sweep_stale_inputs(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, ".cd-input-", 10) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + 10, &end, 10);
        struct stat sb;
        if (pid <= 0 || pid > INT_MAX || *end != '-' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode) &&
            sb.st_uid == geteuid())
            (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* Makes -f's file, which the target reads by its name: created here with O_EXCL, so that a file
 * the user (or anyone) has there is never written over, and removed when the executor ends. */
static enum cd_status make_fixed_file(struct cd_exec *ex, struct cd_error *err)
{
    if (ex->bin.native_lf)
        return cd_error_set(err, CD_FAILED, "-f: a libFuzzer binary takes its inputs from its "
                                            "merge step, not from a file it is given");
    ex->input_path = strdup(ex->opts.input_file);
    if (!ex->input_path)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    ex->input_fd = open(ex->input_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (ex->input_fd < 0) {
        int e = errno;
        free(ex->input_path);
        ex->input_path = NULL; /* not ours: never removed */
        return cd_error_sys(err, CD_FAILED, "-f '%s': %s", ex->opts.input_file,
                            e == EEXIST ? "it exists; corpus-distill makes this file itself and "
                                          "removes it after (remove it, or name another)"
                                        : strerror(e));
    }
    ex->info.file_input = true; /* the target opens it by name, stdin is /dev/null */
    return CD_OK;
}

/* Makes the private input file, named after this process so that a later run can tell a file
 * that a killed run left. In stdin mode it is unlinked at once: only the descriptor, which the
 * target inherits as its stdin, is needed. */
static enum cd_status make_input_file(struct cd_exec *ex, struct cd_error *err)
{
    if (ex->opts.input_file) /* -f FILE: made here, never one that exists (nor a link) */
        return make_fixed_file(ex, err);
    const char *dir = ex->opts.tmp_dir;
    if (!dir || !*dir)
        dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char abs[PATH_MAX];
    if (!realpath(dir, abs))
        return cd_error_sys(err, CD_FAILED, "temporary directory '%s': %s", dir, strerror(errno));
    sweep_stale_inputs(abs);
    size_t n = strlen(abs) + sizeof "/.cd-input-XXXXXX" + 24;
    ex->input_path = malloc(n);
    if (!ex->input_path)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    snprintf(ex->input_path, n, "%s/.cd-input-%ld-XXXXXX", abs, (long)getpid());
    ex->input_fd = mkostemp(ex->input_path, O_CLOEXEC);
    if (ex->input_fd < 0)
        return cd_error_sys(err, CD_FAILED, "cannot create input file in '%s': %s", abs,
                            strerror(errno));
    if (!ex->info.file_input) {
        unlink(ex->input_path);
        free(ex->input_path);
        ex->input_path = NULL;
    }
    return CD_OK;
}

/* argv with "@@" replaced by the input path, also inside an argument ("--in=@@") as afl-fuzz
 * does. A libFuzzer harness gets no input argument: it reads its input from shared memory in its
 * persistent loop (a file argument would make it abort). */
static enum cd_status build_argv(struct cd_exec *ex, struct cd_error *err)
{
    size_t argc = 0;
    while (ex->opts.argv[argc])
        argc++;
    ex->argv = calloc(argc + 1, sizeof *ex->argv);
    ex->owned = calloc(argc + 1, sizeof *ex->owned);
    if (!ex->argv || !ex->owned)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    size_t j = 0;
    for (size_t i = 0; i < argc; i++) {
        const char *a = ex->opts.argv[i];
        if (i > 0 && strstr(a, "@@")) {
            if (ex->bin.libfuzzer && strcmp(a, "@@") == 0)
                continue;
            ex->info.file_input = true; /* patched once the file exists */
        }
        ex->argv[j++] = (char *)a;
    }
    ex->argv[0] = ex->path;
    return CD_OK;
}

/* Replaces every "@@" in argument i by the input path; the new string is kept in ex->owned. */
static enum cd_status patch_arg(struct cd_exec *ex, size_t i, struct cd_error *err)
{
    const char *a = ex->argv[i];
    size_t count = 0;
    for (const char *p = strstr(a, "@@"); p; p = strstr(p + 2, "@@"))
        count++;
    if (!count)
        return CD_OK;
    size_t plen = strlen(ex->input_path);
    char *out = malloc(strlen(a) + count * plen + 1);
    if (!out)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    char *o = out;
    for (const char *p; (p = strstr(a, "@@")); a = p + 2) {
        memcpy(o, a, (size_t)(p - a));
        o += p - a;
        memcpy(o, ex->input_path, plen);
        o += plen;
    }
    strcpy(o, a);
    ex->owned[i] = out;
    ex->argv[i] = out;
    return CD_OK;
}

static bool own_var(const char *entry)
{
    for (size_t i = 0; i < sizeof own_vars / sizeof own_vars[0]; i++) {
        size_t n = strlen(own_vars[i]);
        if (strncmp(entry, own_vars[i], n) == 0 && entry[n] == '=')
            return true;
    }
    return false;
}

static bool push_env(char **envp, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool push_env(char **envp, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!s)
        return false;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    va_end(ap);
    envp[(*n)++] = s;
    return true;
}

static enum cd_status build_env(struct cd_exec *ex, struct cd_error *err)
{
    size_t count = 0;
    bool user_san = false;
    for (char **e = environ; *e; e++) {
        count++;
        const char *eq = strchr(*e, '=');
        if (eq && eq - *e >= 11 && strncmp(eq - 11, "SAN_OPTIONS", 11) == 0)
            user_san = true;
    }
    size_t cap = count + 16, n = 0;
    ex->envp = calloc(cap, sizeof *ex->envp);
    if (!ex->envp)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    bool ok = true;
    for (char **e = environ; *e && ok; e++)
        if (!own_var(*e) && !(ex->bin.native_lf && strncmp(*e, "LD_PRELOAD=", 11) == 0))
            ok = push_env(ex->envp, &n, "%s", *e);
    if (ok && ex->bin.native_lf) {
        const char *user = getenv("LD_PRELOAD");
        ok = push_env(ex->envp, &n, "LD_PRELOAD=%s%s%s", ex->lf.pace, user && *user ? ":" : "",
                      user && *user ? user : "") &&
             push_env(ex->envp, &n, "CD_LIBFUZZER_INPUT=" EXEC_LF_INPUT_PATH);
    }
    size_t map_env = ex->opts.map_size ? ex->opts.map_size : ex->shm_size;
    ok = ok && push_env(ex->envp, &n, "__AFL_SHM_ID=%d", ex->shm_id) &&
         push_env(ex->envp, &n, "__AFL_SHM_FUZZ_ID=%d", ex->fuzz_id) &&
         push_env(ex->envp, &n, "AFL_MAP_SIZE=%zu", map_env) &&
         push_env(ex->envp, &n, "LD_BIND_NOW=1") && push_env(ex->envp, &n, "AFL_NO_IJON=1") &&
         push_env(ex->envp, &n, MARK_VAR "=%d", (int)getpid());
    if (ok && ex->bin.persistent)
        ok = push_env(ex->envp, &n, "__AFL_PERSISTENT=1");
    if (ok && ex->bin.deferred)
        ok = push_env(ex->envp, &n, "__AFL_DEFER_FORKSRV=1");
    const char *const *defaults = ex->opts.crash_frames ? san_defaults_states : san_defaults;
    for (size_t i = 0; ok && !user_san && i < sizeof san_defaults / sizeof san_defaults[0]; i++)
        ok = push_env(ex->envp, &n, "%s", defaults[i]);
    if (!ok)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    return CD_OK;
}

enum cd_status exec_child_prepare(struct cd_exec *ex, struct cd_error *err)
{
    CD_FORWARD_IF_ERROR(resolve_path(ex, err));
    CD_FORWARD_IF_ERROR(scan_binary(ex, err));
    if (ex->bin.native_lf) {
        ex->info.file_input = true; /* the binary opens the input file by its path */
        CD_FORWARD_IF_ERROR(make_input_file(ex, err));
        CD_FORWARD_IF_ERROR(exec_lf_prepare(ex, err));
    } else {
        CD_FORWARD_IF_ERROR(build_argv(ex, err));
        CD_FORWARD_IF_ERROR(make_input_file(ex, err));
        for (size_t i = 1; ex->info.file_input && ex->argv[i]; i++)
            CD_FORWARD_IF_ERROR(patch_arg(ex, i, err));
    }
    CD_FORWARD_IF_ERROR(build_env(ex, err));
    ex->devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (ex->devnull_fd < 0)
        return cd_error_sys(err, CD_FAILED, "cannot open /dev/null: %s", strerror(errno));
    /* Orphans of the target (a grandchild outliving its parent) are reparented to us, so that we
     * can kill and reap them; they go to the first live thread, normally the main one. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
    ex->children_fd = open(proc, O_RDONLY | O_CLOEXEC);
    ex->info.persistent = ex->bin.persistent || ex->bin.native_lf;
    ex->info.deferred = ex->bin.deferred;
    return CD_OK;
}

/* In the child between fork and exec: only async-signal-safe calls. Every descriptor the target
 * gets is first copied above 199: any of them may itself be 0, 1, 2, 198 or 199 (a parent started
 * with stdin closed, or holding hundreds of descriptors with -j 64), and a dup2 onto one of those
 * numbers would close it before its own turn. Copies made with dup2 onto a free number also lose
 * close-on-exec, which a descriptor dup'ed onto itself would keep. */
static void child_exec(struct cd_exec *ex, int ctl, int st, int errw)
{
    setsid();
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < FORKSRV_FD + 8) {
        r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > FORKSRV_FD + 8 ? FORKSRV_FD + 8
                                                                                 : r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
    int in = ex->info.file_input ? ex->devnull_fd : ex->input_fd;
    int out = ex->devnull_fd;
    int errfd = ex->opts.debug_child ? -1 : errw >= 0 ? errw : ex->devnull_fd;
    int a = fcntl(ctl, F_DUPFD_CLOEXEC, FORKSRV_FD + 2);
    int b = fcntl(st, F_DUPFD_CLOEXEC, FORKSRV_FD + 2);
    int i = fcntl(in, F_DUPFD_CLOEXEC, FORKSRV_FD + 2);
    int o = fcntl(out, F_DUPFD_CLOEXEC, FORKSRV_FD + 2);
    int e = errfd >= 0 ? fcntl(errfd, F_DUPFD_CLOEXEC, FORKSRV_FD + 2) : -1;
    if (a < 0 || b < 0 || i < 0 || o < 0 || (errfd >= 0 && e < 0) ||
        dup2(a, FORKSRV_FD) < 0 || dup2(b, FORKSRV_FD + 1) < 0 || dup2(i, 0) < 0 ||
        dup2(o, 1) < 0 || (e >= 0 && dup2(e, 2) < 0))
        _exit(126);
    if (ex->bin.native_lf) { /* the input and control files, as the binary names them */
        int fi = fcntl(ex->input_fd, F_DUPFD_CLOEXEC, FORKSRV_FD + 2);
        int fc = fcntl(ex->lf.ctl_fd, F_DUPFD_CLOEXEC, FORKSRV_FD + 2);
        if (fi < 0 || fc < 0 || dup2(fi, EXEC_LF_INPUT_FD) < 0 || dup2(fc, EXEC_LF_CTL_FD) < 0)
            _exit(126);
    }
    r.rlim_cur = r.rlim_max = 0;
    setrlimit(RLIMIT_CORE, &r);
    if (ex->opts.mem_limit_mb && !ex->bin.native_lf) { /* libFuzzer's: -rss_limit_mb */
        r.rlim_cur = r.rlim_max = (rlim_t)ex->opts.mem_limit_mb << 20;
        setrlimit(RLIMIT_AS, &r);
    }
    if (ex->opts.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(ex->opts.cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    execve(ex->path, ex->argv, ex->envp);
    _exit(127);
}

enum cd_status exec_child_spawn(struct cd_exec *ex, struct cd_error *err)
{
    int ctl[2] = {-1, -1}, st[2] = {-1, -1}, ep[2] = {-1, -1};
    enum cd_status status = CD_FAILED;
    /* We keep the control pipe's read end open too, so that writing to a dead fork server can
     * never raise SIGPIPE in the caller's process: its death shows as EOF on the status pipe. */
    if (pipe2(ctl, O_CLOEXEC) != 0 || pipe2(st, O_CLOEXEC) != 0 ||
        (!ex->opts.debug_child && pipe2(ep, O_CLOEXEC) != 0)) {
        cd_error_sys(err, CD_FAILED, "cannot create fork-server pipes: %s", strerror(errno));
        goto out;
    }
    if (ep[0] >= 0)
        fcntl(ep[0], F_SETFL, O_NONBLOCK);
    pthread_mutex_lock(&servers_mu);
    if (n_servers == cap_servers) {
        size_t cap = cap_servers ? 2 * cap_servers : 16;
        pid_t *v = realloc(servers, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&servers_mu);
            cd_error_oom(err, CD_FAILED, "out of memory");
            goto out;
        }
        servers = v;
        cap_servers = cap;
    }
    pid_t pid = fork();
    if (pid == 0)
        child_exec(ex, ctl[0], st[1], ep[1]);
    if (pid > 0)
        servers[n_servers++] = pid;
    pthread_mutex_unlock(&servers_mu);
    if (pid > 0)
        exec_guard_watch(pid);
    if (pid < 0) {
        cd_error_sys(err, CD_FAILED, "cannot fork: %s", strerror(errno));
        goto out;
    }
    ex->fsrv_pid = pid;
    ex->child_pid = 0;
    ex->was_killed = 0;
    ex->ctl_fd = ctl[1], ctl[1] = -1;
    ex->ctl_keep_fd = ctl[0], ctl[0] = -1;
    ex->st_fd = st[0], st[0] = -1;
    ex->err_fd = ep[0], ep[0] = -1;
    status = CD_OK;
out:
    for (int i = 0; i < 2; i++) {
        if (ctl[i] >= 0)
            close(ctl[i]);
        if (st[i] >= 0)
            close(st[i]);
        if (ep[i] >= 0)
            close(ep[i]);
    }
    return status;
}

/* Whether pid's environment holds the mark with our pid: a process some target started. The mark
 * comes last in an environment of any size, so the whole file is read, a chunk at a time, keeping
 * the last bytes of each chunk in case the mark straddles two. */
static bool marked(pid_t pid)
{
    char path[64], want[64], buf[16384];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    /* With the NUL before and after it, so that only a whole variable matches. */
    int len = snprintf(want, sizeof want, "%c" MARK_VAR "=%d%c", '\0', (int)getpid(), '\0');
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool found = false;
    size_t kept = 1;
    buf[0] = '\0'; /* the start of the file counts as after a NUL */
    for (;;) {
        ssize_t n = read(fd, buf + kept, sizeof buf - kept);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size_t have = kept + (size_t)n;
        if (memmem(buf, have, want, (size_t)len)) {
            found = true;
            break;
        }
        kept = have < (size_t)len ? have : (size_t)len - 1;
        memmove(buf, buf + have - kept, kept);
    }
    close(fd);
    return found;
}

/* Whether pid belongs to the target started as fork server fs: in its process group or session,
 * or carrying our mark (it left them with setsid). The fork server itself is not counted. */
bool exec_child_is_targets(pid_t pid, pid_t fs)
{
    if (pid <= 0 || pid == fs || fs <= 0)
        return false;
    return getpgid(pid) == fs || getsid(pid) == fs || marked(pid);
}

bool exec_child_ended(struct cd_exec *ex, int *status, unsigned timeout_ms)
{
    uint64_t deadline = cd_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (ex->fsrv_pid <= 0 ||
            (waitid(P_PID, (id_t)ex->fsrv_pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 &&
             errno != EINTR))
            return false;
        if (si.si_pid == ex->fsrv_pid) {
            *status = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8
                                               : (si.si_status & 0x7f);
            return true;
        }
        if (cd_now_ns() >= deadline)
            return false;
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
}

/* waitpid that a signal does not interrupt. */
static void reap(pid_t pid)
{
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Kills and reaps our children that belong to the target's session or process group, or carry
 * the mark and are no fork server of ours (a target's descendant that called setsid): orphans the
 * target left behind. */
void exec_child_reap_orphans(struct cd_exec *ex)
{
    if (ex->children_fd < 0 || ex->fsrv_pid <= 0)
        return;
    char buf[4096];
    ssize_t n = pread(ex->children_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return;
    buf[n] = '\0';
    char *p = buf;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        p = end;
        pid_t pid = (pid_t)v;
        if (pid <= 0 || pid == ex->fsrv_pid)
            continue;
        bool stray = getpgid(pid) == ex->fsrv_pid || getsid(pid) == ex->fsrv_pid;
        if (!stray) {
            /* A fork server listed here was recorded before its spawner let go of the lock. */
            pthread_mutex_lock(&servers_mu);
            stray = !servers_have(pid) && marked(pid);
            pthread_mutex_unlock(&servers_mu);
        }
        if (stray) {
            kill(pid, SIGKILL);
            reap(pid);
        }
    }
}

void exec_child_stop(struct cd_exec *ex)
{
    if (ex->ctl_fd >= 0)
        close(ex->ctl_fd);
    if (ex->ctl_keep_fd >= 0)
        close(ex->ctl_keep_fd);
    if (ex->st_fd >= 0)
        close(ex->st_fd);
    if (ex->err_fd >= 0)
        close(ex->err_fd);
    ex->ctl_fd = ex->ctl_keep_fd = ex->st_fd = ex->err_fd = -1;
    if (ex->fsrv_pid <= 0)
        return;
    pid_t group = ex->fsrv_pid;
    kill(-group, SIGKILL);
    kill(group, SIGKILL);
    reap(group);
    pthread_mutex_lock(&servers_mu);
    servers_drop(group);
    pthread_mutex_unlock(&servers_mu);
    /* Members of the group die asynchronously and are reparented to us: reap until none is left. */
    for (int i = 0; i < 2000; i++) {
        exec_child_reap_orphans(ex);
        if (kill(-group, 0) != 0 && errno == ESRCH)
            break;
        kill(-group, SIGKILL);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    exec_guard_forget(group);
    pthread_mutex_lock(&servers_mu);
    if (!n_servers) /* under the lock: a new fork server would be listed first */
        exec_guard_end();
    pthread_mutex_unlock(&servers_mu);
    ex->fsrv_pid = 0;
    ex->child_pid = 0;
}

/* Whether the name path still is the file open as fd (-f's: someone may have put another there). */
static bool same_file(const char *path, int fd)
{
    struct stat a, b;
    return fd >= 0 && fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

void exec_child_release(struct cd_exec *ex)
{
    if (ex->input_path && (!ex->opts.input_file || same_file(ex->input_path, ex->input_fd)))
        unlink(ex->input_path);
    free(ex->input_path);
    if (ex->input_fd >= 0)
        close(ex->input_fd);
    if (ex->devnull_fd >= 0)
        close(ex->devnull_fd);
    if (ex->children_fd >= 0)
        close(ex->children_fd);
    if (ex->envp)
        for (char **e = ex->envp; *e; e++)
            free(*e);
    free(ex->envp);
    for (size_t i = 0; ex->owned && ex->argv && ex->argv[i]; i++)
        free(ex->owned[i]);
    free(ex->owned);
    free(ex->argv);
    free(ex->path);
}
