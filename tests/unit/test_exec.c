/* Tests for the executor on real targets built with afl-clang-fast (tests/targets/exec_*.c) and on
 * a hand-written fake fork server: outcomes, timeouts, stray processes, floods, start-up errors,
 * fork-server restarts, both handshakes, stdin and file delivery, persistent shared-memory
 * targets, sanitizer reports. Skipped when AFL++ and the targets are not there. */
#define _GNU_SOURCE /* kill, WIFEXITED on every libc */
#include "exec/cd_exec.h"
#include "table/cd_labels.h"
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static char *tmp_dir;

static bool have(const char *name)
{
    char *p = cd_test_target(name);
    free(p);
    return p != NULL;
}

/* Starts target name with arguments a1, a2 (each may be NULL) and crash states of `frames`
 * frames; NULL when it cannot start. */
static struct cd_exec *start_with(const char *name, unsigned timeout_ms, const char *a1,
                                  const char *a2, unsigned frames, struct cd_error *err)
{
    static char path[4200]; /* cd_test_target's longest */
    static char *argv[4];
    char *p = cd_test_target(name);
    snprintf(path, sizeof path, "%s", p ? p : name);
    free(p);
    argv[0] = path;
    argv[1] = (char *)a1;
    argv[2] = a1 ? (char *)a2 : NULL;
    argv[3] = NULL;
    struct cd_exec_opts opts = {.argv = argv, .timeout_ms = timeout_ms, .cpu = -1,
                                .tmp_dir = tmp_dir, .crash_frames = frames};
    struct cd_exec *ex = NULL;
    if (cd_exec_new(&ex, &opts, err) != CD_OK)
        return NULL;
    return ex;
}

/* start_with, without crash states. */
static struct cd_exec *start(const char *name, unsigned timeout_ms, const char *a1,
                             const char *a2, struct cd_error *err)
{
    return start_with(name, timeout_ms, a1, a2, 0, err);
}

/* Starts target name on "@@" with crash states of `frames` frames; NULL when it cannot start. */
static struct cd_exec *start_frames(const char *name, unsigned frames)
{
    struct cd_error err;
    return start_with(name, 3000, "@@", NULL, frames, &err);
}

static enum cd_status run_str(struct cd_exec *ex, const char *s, struct cd_run *run)
{
    struct cd_error err;
    enum cd_status st = cd_exec_run(ex, (const uint8_t *)s, strlen(s), run, &err);
    if (st != CD_OK)
        fprintf(stderr, "run '%s': %s\n", s, err.msg);
    return st;
}

/* Number of live or zombie processes whose parent is us; with cpus, also requires each to be
 * allowed to run exactly on that CPU list (e.g. "0"). */
static int count_children_on(const char *cpus)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        char *rp = strrchr(buf, ')');
        char state;
        int ppid, pgrp;
        /* Targets start sessions of their own; the guard (exec_guard.c) stays in ours. */
        if (!rp || sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 ||
            ppid != (int)getpid() || pgrp == (int)getpgrp())
            continue;
        n++;
        if (cpus) {
            snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
            f = fopen(path, "r");
            char line[256];
            bool match = false;
            while (f && fgets(line, sizeof line, f))
                if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
                    match = strtol(line + 18, NULL, 10) == strtol(cpus, NULL, 10) &&
                            !strpbrk(line + 18, ",-");
            if (f)
                fclose(f);
            if (!match)
                n = -1000;
        }
    }
    if (d)
        closedir(d);
    return n;
}

static int count_children(void)
{
    return count_children_on(NULL);
}

static void labels_of(const struct cd_run *run, struct cd_labelset *set)
{
    struct cd_error err;
    CU_ASSERT_EQUAL(cd_labels_from_run(run, false, set, &err), CD_OK);
}

static bool same_coverage(const struct cd_labelset *a, const struct cd_labelset *b)
{
    return a->n == b->n && memcmp(a->v, b->v, a->n * sizeof *a->v) == 0;
}

static void test_exec_start_errors(void)
{
    struct cd_error err;
    CU_ASSERT_PTR_NULL(start("/nonexistent/dir/target", 0, NULL, NULL, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/dir/target"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not found"));

    char path[4096];
    snprintf(path, sizeof path, "%s/not-executable", tmp_dir);
    FILE *f = fopen(path, "w");
    fputs("data\n", f);
    fclose(f);
    chmod(path, 0644);
    CU_ASSERT_PTR_NULL(start(path, 0, NULL, NULL, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not executable"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));

    CU_ASSERT_PTR_NULL(start(tmp_dir, 0, NULL, NULL, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a regular file"));

    /* The memory limit applies to the target: 1 MB is too little to even start it. */
    char *target = cd_test_target("exec_basic");
    char *argv[] = {target, "@@", NULL};
    struct cd_exec_opts opts = {.argv = argv, .timeout_ms = 1000, .mem_limit_mb = 1, .cpu = 0,
                                .tmp_dir = tmp_dir};
    struct cd_exec *ex = NULL;
    CU_ASSERT_EQUAL(cd_exec_new(&ex, &opts, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "memory limit of 1 MB"));
    opts.mem_limit_mb = 1024;
    CU_ASSERT_EQUAL(cd_exec_new(&ex, &opts, &err), CD_OK);
    CU_ASSERT_EQUAL(count_children_on("0"), 1); /* the fork server, bound to CPU 0 */
    cd_exec_free(ex);
    free(target);

    CU_ASSERT_PTR_NULL(start("exec_plain", 0, "@@", NULL, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not instrumented"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exec_plain"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    CU_ASSERT_EQUAL(count_children(), 0);
}

/* A shell script that runs an instrumented build (afl-cmin's wrapper case): refused for its
 * missing markers, taken under AFL_SKIP_BIN_CHECK, where the handshake tells. */
static void test_exec_skip_bin_check(void)
{
    char *target = cd_test_target("exec_basic");
    CU_ASSERT_PTR_NOT_NULL_FATAL(target);
    char script[4200];
    snprintf(script, sizeof script, "%s/wrapper.sh", tmp_dir);
    FILE *f = fopen(script, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "#!/bin/sh\nexec '%s' \"$@\"\n", target);
    fclose(f);
    chmod(script, 0700);
    free(target);
    struct cd_error err;
    CU_ASSERT_PTR_NULL(start(script, 1000, "@@", NULL, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "AFL_SKIP_BIN_CHECK"));
    setenv("AFL_SKIP_BIN_CHECK", "1", 1);
    struct cd_exec *ex = start(script, 1000, "@@", NULL, &err);
    unsetenv("AFL_SKIP_BIN_CHECK");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    struct cd_run run;
    CU_ASSERT_EQUAL(run_str(ex, "hello", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    CU_ASSERT_EQUAL(run_str(ex, "crash", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    cd_exec_free(ex);
    /* a script that runs nothing instrumented fails its handshake, in one line */
    f = fopen(script, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "#!/bin/sh\nexit 0\n");
    fclose(f);
    setenv("AFL_SKIP_BIN_CHECK", "1", 1);
    CU_ASSERT_PTR_NULL(start(script, 1000, "@@", NULL, &err));
    unsetenv("AFL_SKIP_BIN_CHECK");
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    unlink(script);
}

static void test_exec_outcomes_file_input(void)
{
    struct cd_error err;
    struct cd_exec *ex = start("exec_basic", 1000, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    const struct cd_exec_info *info = cd_exec_info(ex);
    CU_ASSERT(info->file_input);
    CU_ASSERT(!info->persistent);
    CU_ASSERT(!info->shm_testcase);
    CU_ASSERT(info->map_size > 8 && info->map_size < 65536);
    struct cd_run run;
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "hello", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    CU_ASSERT_EQUAL(run.exit_status, 0);
    CU_ASSERT_EQUAL(run.map_size, info->map_size);
    struct cd_labelset a = {0}, b = {0};
    labels_of(&run, &a);
    CU_ASSERT(a.n > 3);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "crash", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    CU_ASSERT_EQUAL(run.signal, SIGSEGV);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "abort", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    CU_ASSERT_EQUAL(run.signal, SIGABRT);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "exit:7", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    CU_ASSERT_EQUAL(run.exit_status, 7);
    /* The same input gives the same labels; a shorter rewrite is truncated properly. */
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "hello", &run), CD_OK);
    labels_of(&run, &b);
    CU_ASSERT(same_coverage(&a, &b));
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "count:3", &run), CD_OK);
    labels_of(&run, &a);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "count:20", &run), CD_OK);
    labels_of(&run, &b);
    CU_ASSERT(!same_coverage(&a, &b));
    CU_ASSERT_EQUAL(info->execs, 7);
    CU_ASSERT_EQUAL(info->restarts, 0);
    cd_labelset_release(&a);
    cd_labelset_release(&b);
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);
}

static void test_exec_stdin_matches_file(void)
{
    struct cd_error err;
    struct cd_exec *fx = start("exec_basic", 1000, "@@", NULL, &err);
    struct cd_exec *sx = start("exec_basic", 1000, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sx);
    CU_ASSERT(!cd_exec_info(sx)->file_input);
    static const char *const inputs[] = {"exit:9", "count:40", "abab19", "exit:3", "a"};
    struct cd_labelset a = {0}, b = {0}, prev = {0};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        struct cd_run fr, sr;
        CU_ASSERT_EQUAL_FATAL(run_str(fx, inputs[i], &fr), CD_OK);
        labels_of(&fr, &a);
        CU_ASSERT_EQUAL_FATAL(run_str(sx, inputs[i], &sr), CD_OK);
        labels_of(&sr, &b);
        CU_ASSERT_EQUAL(fr.outcome, sr.outcome);
        CU_ASSERT_EQUAL(fr.exit_status, sr.exit_status);
        /* Only the open() branch differs between the two modes: at most two slots apart. */
        CU_ASSERT(a.n + 2 >= b.n && b.n + 2 >= a.n);
        /* stdin is rewound: a second stdin run of the same input sees the same bytes. */
        CU_ASSERT_EQUAL_FATAL(run_str(sx, inputs[i], &sr), CD_OK);
        labels_of(&sr, &prev);
        CU_ASSERT(same_coverage(&b, &prev));
    }
    struct cd_run r;
    CU_ASSERT_EQUAL(run_str(sx, "exit:9", &r), CD_OK);
    CU_ASSERT_EQUAL(r.exit_status, 9);
    /* "@@" inside an argument is replaced too ("/." + an absolute path is still that path). */
    struct cd_error err2;
    struct cd_exec *ix = start("exec_basic", 1000, "/.@@", NULL, &err2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ix);
    CU_ASSERT(cd_exec_info(ix)->file_input);
    CU_ASSERT_EQUAL(run_str(ix, "exit:6", &r), CD_OK);
    CU_ASSERT_EQUAL(r.exit_status, 6);
    cd_exec_free(ix);
    cd_labelset_release(&a);
    cd_labelset_release(&b);
    cd_labelset_release(&prev);
    cd_exec_free(fx);
    cd_exec_free(sx);
}

/* Runs "kind:PIDFILE" (kind fork or setsid: a grandchild that outlives the target) and checks that
 * the grandchild is gone when the run returns. */
static void stray_is_killed(struct cd_exec *ex, const char *kind)
{
    char input[4200], pidfile[4096];
    snprintf(pidfile, sizeof pidfile, "%s/grandchild-%s.pid", tmp_dir, kind);
    snprintf(input, sizeof input, "%s:%s", kind, pidfile);
    struct cd_run run;
    CU_ASSERT_EQUAL_FATAL(run_str(ex, input, &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    FILE *f = fopen(pidfile, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    int pid = 0;
    CU_ASSERT_EQUAL(fscanf(f, "%d", &pid), 1);
    fclose(f);
    unlink(pidfile);
    CU_ASSERT(pid > 0);
    CU_ASSERT(kill((pid_t)pid, 0) != 0 && errno == ESRCH);
}

/* Labels of input s through a stdin target started now, with whatever descriptors are open. */
static bool stdin_labels(const char *s, struct cd_labelset *set)
{
    struct cd_error err;
    struct cd_exec *ex = start("exec_basic", 2000, NULL, NULL, &err);
    if (!ex) {
        fprintf(stderr, "start: %s\n", err.msg);
        return false;
    }
    struct cd_run run;
    bool ok = run_str(ex, s, &run) == CD_OK && run.outcome == CD_OUTCOME_OK &&
              run.exit_status == 5;
    labels_of(&run, set);
    cd_exec_free(ex);
    return ok;
}

/* The target's stdin and the fork-server pipes never collide, whatever descriptors the tool holds:
 * with stdin closed (the input file is then descriptor 0), and with every descriptor up to 197
 * taken (the input file, /dev/null and the pipes then land on 198, 199 and up). */
static void test_exec_descriptors_never_collide(void)
{
    struct cd_labelset want = {0}, got = {0};
    const char *input = "exit:5";
    CU_ASSERT_FATAL(stdin_labels(input, &want));
    CU_ASSERT(want.n > 0);

    int saved = fcntl(0, F_DUPFD_CLOEXEC, 300);
    CU_ASSERT_FATAL(saved >= 0);
    close(0);
    CU_ASSERT(stdin_labels(input, &got));
    CU_ASSERT(same_coverage(&want, &got));
    dup2(saved, 0);

    int held[256], n = 0;
    while (n < 256) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0)
            break;
        held[n++] = fd;
        if (fd >= 197)
            break;
    }
    CU_ASSERT(n > 0 && held[n - 1] == 197);
    CU_ASSERT(stdin_labels(input, &got));
    CU_ASSERT(same_coverage(&want, &got));
    for (int i = 0; i < n; i++)
        close(held[i]);
    close(saved);
    cd_labelset_release(&want);
    cd_labelset_release(&got);
    CU_ASSERT_EQUAL(count_children(), 0);
}

/* A fork server that takes a request and never answers is replaced within a bounded time; one
 * that reports a pid not of the target's (here: ours) gets no signal sent to that pid. */
static void test_exec_silent_fork_server(void)
{
    struct cd_error err;
    struct cd_run run;
    struct cd_exec *ex = start("exec_fake_fs", 1000, "mutepid:1", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL(run_str(ex, "a", &run), CD_OK);
    CU_ASSERT_EQUAL(run_str(ex, "b", &run), CD_OK); /* on a new fork server */
    CU_ASSERT_EQUAL(run.map[5], 1);
    CU_ASSERT_EQUAL(cd_exec_info(ex)->restarts, 1);
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);

    ex = start("exec_fake_fs", 1000, "mutepid:0", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL(cd_exec_run(ex, (const uint8_t *)"a", 1, &run, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "stopped answering"));
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);

    ex = start("exec_fake_fs", 100, "mutestatus:1", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL(run_str(ex, "a", &run), CD_OK);
    CU_ASSERT_EQUAL(cd_exec_run(ex, (const uint8_t *)"a", 1, &run, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no process of the target"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);
}

static void on_alarm(int sig)
{
    (void)sig;
}

/* Signals arriving all the time (here a 50 us interval timer without SA_RESTART) interrupt no
 * wait for good: every fork server is still reaped. */
static void test_exec_signals_interrupt_no_reaping(void)
{
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    CU_ASSERT_FATAL(sigaction(SIGALRM, &sa, &old) == 0);
    struct itimerval it = {{0, 50}, {0, 50}}, off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (int i = 0; i < 20; i++) {
        struct cd_error err;
        struct cd_exec *ex = start("exec_basic", 2000, "@@", NULL, &err);
        CU_ASSERT_PTR_NOT_NULL(ex);
        if (!ex) {
            fprintf(stderr, "start: %s\n", err.msg);
            break;
        }
        struct cd_run run;
        CU_ASSERT_EQUAL(run_str(ex, "abc", &run), CD_OK);
        cd_exec_free(ex);
    }
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &old, NULL);
    CU_ASSERT_EQUAL(count_children(), 0);
}

/* A stray that left the target's session is found by the mark at the end of its environment,
 * however large the environment is. */
static void test_exec_stray_found_in_large_environment(void)
{
    size_t big = 100u << 10;
    char *pad = malloc(big + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pad);
    memset(pad, 'x', big);
    pad[big] = '\0';
    setenv("CD_TEST_PADDING", pad, 1);
    free(pad);
    struct cd_error err;
    struct cd_exec *ex = start("exec_basic", 2000, "@@", NULL, &err);
    unsetenv("CD_TEST_PADDING");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    stray_is_killed(ex, "setsid");
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);
}

static void test_exec_timeout_and_calibration(void)
{
    struct cd_error err;
    struct cd_exec *ex = start("exec_basic", 150, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    struct cd_run run;
    uint64_t t0 = cd_now_ns();
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "hang", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_TIMEOUT);
    CU_ASSERT(cd_now_ns() - t0 < 2000000000u);
    CU_ASSERT(run.exec_ns >= 140000000u);
    /* The next run reports its own result, not the killed one's. */
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "exit:5", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    CU_ASSERT_EQUAL(run.exit_status, 5);
    CU_ASSERT_EQUAL(cd_exec_info(ex)->timeout_ms, 150);
    cd_exec_free(ex);

    ex = start("exec_basic", 0, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(run_str(ex, "abc", &run), CD_OK);
    unsigned t = cd_exec_info(ex)->timeout_ms;
    CU_ASSERT(t >= 20 && t <= 1000);
    /* A calibrated timeout is confirmed with 1000 ms: a hang costs both, a slow run is ok. */
    t0 = cd_now_ns();
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "hang", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_TIMEOUT);
    uint64_t took = cd_now_ns() - t0;
    CU_ASSERT(took >= 1000000000u && took < (uint64_t)(t + 1700) * 1000000u);
    /* A run between the calibrated timeout and the confirmation's second. A loaded machine can
       calibrate close to a second, leaving no room for one. */
    if (t <= 700) {
        char slow[32];
        snprintf(slow, sizeof slow, "sleep:%u", t + 100);
        uint64_t execs = cd_exec_info(ex)->execs;
        CU_ASSERT_EQUAL_FATAL(run_str(ex, slow, &run), CD_OK);
        CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
        CU_ASSERT_EQUAL(run.exit_status, 0);
        CU_ASSERT_EQUAL(cd_exec_info(ex)->execs, execs + 2);
    }
    /* A quick run reports the hang as slow after the calibrated limit alone, in one run. */
    uint64_t execs = cd_exec_info(ex)->execs;
    t0 = cd_now_ns();
    CU_ASSERT_EQUAL_FATAL(cd_exec_run_quick(ex, (const uint8_t *)"hang", 4, &run, &err), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_SLOW);
    CU_ASSERT(cd_now_ns() - t0 < (uint64_t)(t + 700) * 1000000u);
    CU_ASSERT_EQUAL(cd_exec_info(ex)->execs, execs + 1);
    CU_ASSERT_EQUAL_FATAL(cd_exec_run_quick(ex, (const uint8_t *)"abc", 3, &run, &err), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    CU_ASSERT_EQUAL(cd_exec_info(ex)->timeout_ms, t);
    cd_exec_free(ex);
    /* With an explicit timeout there is nothing to confirm: quick or not, a hang is a timeout. */
    ex = start("exec_basic", 150, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL_FATAL(cd_exec_run_quick(ex, (const uint8_t *)"hang", 4, &run, &err), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_TIMEOUT);
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);
}

/* A grandchild outliving the target, in the target's session or in one of its own (setsid), is
 * killed and reaped by the time the run returns; a second executor's fork server is left alone. */
static void test_exec_grandchild_is_killed(void)
{
    struct cd_error err;
    struct cd_exec *ex = start("exec_basic", 2000, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    struct cd_exec *other = start("exec_basic", 2000, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(other);
    struct cd_run run;
    CU_ASSERT_EQUAL(run_str(other, "abc", &run), CD_OK);
    stray_is_killed(ex, "fork");
    stray_is_killed(ex, "setsid");
    CU_ASSERT_EQUAL(run_str(ex, "abc", &run), CD_OK);
    CU_ASSERT_EQUAL(run_str(other, "abd", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    cd_exec_free(other);
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);
}

static void test_exec_floods(void)
{
    struct cd_error err;
    struct cd_exec *ex = start("exec_basic", 3000, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    struct cd_run run;
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "floodout", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "flooderr", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    size_t n = strlen(run.stderr_tail);
    CU_ASSERT(n >= 4 && n <= (64u << 10));
    CU_ASSERT(n >= 4 && strcmp(run.stderr_tail + n - 4, "END\n") == 0);
    /* Threads flooding stderr until the process exits: every run ends, the tail stays bounded. */
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL_FATAL(run_str(ex, "threadflood", &run), CD_OK);
        CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
        CU_ASSERT(strlen(run.stderr_tail) <= (64u << 10));
    }
    /* The tail is per run: a quiet run has an empty one. */
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "abc", &run), CD_OK);
    CU_ASSERT_STRING_EQUAL(run.stderr_tail, "");
    cd_exec_free(ex);
}

static void test_exec_fork_server_death(void)
{
    struct cd_error err;
    struct cd_exec *ex = start("exec_basic", 1000, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    struct cd_run run;
    /* An input that kills the fork server every time: restarted once, then a clear failure. */
    CU_ASSERT_EQUAL(cd_exec_run(ex, (const uint8_t *)"die", 3, &run, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "died"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    /* The next input starts it again. */
    CU_ASSERT_EQUAL(run_str(ex, "exit:4", &run), CD_OK);
    CU_ASSERT_EQUAL(run.exit_status, 4);
    CU_ASSERT(cd_exec_info(ex)->restarts >= 2);
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);

    /* A server that exits after every 3 runs is restarted transparently. */
    ex = start("exec_fake_fs", 1000, "exitafter:3", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    for (int i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(run_str(ex, "x", &run), CD_OK);
        CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
        CU_ASSERT_EQUAL(run.map[5], 1);
    }
    CU_ASSERT_EQUAL(cd_exec_info(ex)->restarts, 3);
    CU_ASSERT_EQUAL(cd_exec_info(ex)->execs, 10);
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);
}

static void test_exec_handshakes(void)
{
    struct cd_error err;
    struct cd_run run;
    static const char *const good[] = {"old", "new", "newdict", "dict", "newshm"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct cd_exec *ex = start("exec_fake_fs", 1000, good[i], NULL, &err);
        CU_ASSERT_PTR_NOT_NULL(ex);
        if (!ex) {
            fprintf(stderr, "%s: %s\n", good[i], err.msg);
            continue;
        }
        const struct cd_exec_info *info = cd_exec_info(ex);
        bool is_new = strncmp(good[i], "new", 3) == 0;
        CU_ASSERT_EQUAL(info->new_protocol, is_new);
        CU_ASSERT_EQUAL(info->map_size, is_new ? 100u : 64u);
        CU_ASSERT_EQUAL(info->shm_testcase, strcmp(good[i], "newshm") == 0);
        CU_ASSERT_EQUAL_FATAL(run_str(ex, "Qxyz", &run), CD_OK);
        CU_ASSERT_EQUAL(run.map[5], 1);
        CU_ASSERT_EQUAL(run.map[7], 3);
        if (info->shm_testcase) {
            CU_ASSERT_EQUAL(run.map[14], 1);
            CU_ASSERT_EQUAL(run.map[70], 'Q');
            CU_ASSERT_EQUAL_FATAL(run_str(ex, "", &run), CD_OK);
            CU_ASSERT_EQUAL(run.map[10], 1);
            CU_ASSERT_EQUAL(run.map[14], 0); /* cleared between runs */
            static uint8_t big[(1u << 20) + 1];
            CU_ASSERT_EQUAL(cd_exec_run(ex, big, sizeof big, &run, &err), CD_WARN);
            CU_ASSERT_EQUAL(cd_exec_run(ex, big, sizeof big - 1, &run, &err), CD_OK);
        }
        cd_exec_free(ex);
    }
    static const struct {
        const char *mode, *msg;
    } bad[] = {
        {"error:1", "error 1: its coverage map is larger"},
        {"error:8", "error 8: shmat"},
        {"olderror:4", "error 4: shm_open"},
        {"garbage", "0x12345678, not a fork-server hello"},
        {"eof", "exited before its fork-server hello"},
        {"short", "exited before its fork-server hello"},
        {"badend", "ended its handshake"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cd_exec *ex = start("exec_fake_fs", 1000, bad[i].mode, NULL, &err);
        CU_ASSERT_PTR_NULL(ex);
        cd_exec_free(ex);
        if (!strstr(err.msg, bad[i].msg))
            fprintf(stderr, "%s: got '%s'\n", bad[i].mode, err.msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, bad[i].msg));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exec_fake_fs"));
    }
    CU_ASSERT_EQUAL(count_children(), 0);
}

static void test_exec_persistent_shm(void)
{
    struct cd_error err;
    struct cd_exec *ex = start("exec_persist", 500, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    const struct cd_exec_info *info = cd_exec_info(ex);
    CU_ASSERT(info->persistent);
    CU_ASSERT(info->deferred);
    CU_ASSERT(info->shm_testcase);
    struct cd_run run;
    struct cd_labelset a = {0}, b = {0};
    /* The first iteration of a fresh child misses the loop's back edge: compare later ones. */
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "zz", &run), CD_OK);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "abab", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    labels_of(&run, &a);
    CU_ASSERT(a.n > 2);
    for (int i = 0; i < 300; i++) {
        CU_ASSERT_EQUAL_FATAL(run_str(ex, i % 2 ? "count:50" : "zzzzzzzzzzz", &run), CD_OK);
        CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    }
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "abab", &run), CD_OK);
    labels_of(&run, &b);
    CU_ASSERT(same_coverage(&a, &b)); /* nothing carried over from earlier iterations */
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "crash", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    CU_ASSERT_EQUAL(run.signal, SIGSEGV);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "hang", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_TIMEOUT);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "zz", &run), CD_OK);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "abab", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    labels_of(&run, &b);
    CU_ASSERT(same_coverage(&a, &b));
    CU_ASSERT_EQUAL(info->restarts, 0);
    cd_labelset_release(&a);
    cd_labelset_release(&b);
    cd_exec_free(ex);
    CU_ASSERT_EQUAL(count_children(), 0);
}

static void test_exec_sanitizer_reports(void)
{
    struct cd_error err;
    struct cd_exec *ex = start("exec_san", 3000, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    struct cd_run run;
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "heap", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    CU_ASSERT_EQUAL(run.signal, SIGABRT);
    CU_ASSERT_STRING_EQUAL(run.san_tool ? run.san_tool : "", "asan");
    CU_ASSERT_STRING_EQUAL(run.san_kind ? run.san_kind : "", "heap-buffer-overflow");
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "uaf", &run), CD_OK);
    CU_ASSERT_STRING_EQUAL(run.san_kind ? run.san_kind : "", "heap-use-after-free");
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "ovf", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    CU_ASSERT_STRING_EQUAL(run.san_tool ? run.san_tool : "", "ubsan");
    CU_ASSERT_STRING_EQUAL(run.san_kind ? run.san_kind : "", "signed-integer-overflow");
    struct cd_labelset set = {0};
    labels_of(&run, &set);
    uint32_t id;
    CU_ASSERT(cd_labels_parse("ubsan:signed-integer-overflow", &id) && cd_labelset_has(&set, id));
    CU_ASSERT(cd_labels_parse("crash:SIGABRT", &id) && cd_labelset_has(&set, id));
    cd_labelset_release(&set);
    /* A sanitizer binary's exit status 86 is a crash; a clean run is not. */
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "exit86", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    CU_ASSERT_EQUAL(run.signal, 0);
    CU_ASSERT_EQUAL(run.exit_status, 86);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "fine", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    CU_ASSERT_PTR_NULL(run.san_tool);
    cd_exec_free(ex);

    /* Options the user set win: no defaults are added once any *SAN_OPTIONS is set. */
    setenv("UBSAN_OPTIONS", "halt_on_error=0", 1);
    ex = start("exec_san", 3000, "@@", NULL, &err);
    unsetenv("UBSAN_OPTIONS");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "ovf", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.stderr_tail, "runtime error: signed integer overflow"));
    cd_exec_free(ex);

    /* Crash states from a real sanitizer build: the heap overflow's and UBSan's stacks name main
       (the sanitizers handle the signals themselves and print the stack); without frames, none. */
    ex = start_frames("exec_san", 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "heap", &run), CD_OK);
    CU_ASSERT_STRING_EQUAL(run.crash_state ? run.crash_state : "",
                           "asan:heap-buffer-overflow WRITE\nmain");
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "ovf", &run), CD_OK);
    CU_ASSERT_STRING_EQUAL(run.crash_state ? run.crash_state : "",
                           "ubsan:signed-integer-overflow\nmain");
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "fine", &run), CD_OK);
    CU_ASSERT_PTR_NULL(run.crash_state);
    cd_exec_free(ex);
    ex = start("exec_san", 3000, "@@", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "heap", &run), CD_OK);
    CU_ASSERT_PTR_NULL(run.crash_state);
    cd_exec_free(ex);

    /* A forged report is data: escapes and bytes past ASCII in its frame names come out as '?',
       a frame's name is cut at 160 bytes, and a stack of thousands of frames costs 256 lines. */
    ex = start_frames("exec_basic", 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
    static char forged[40000];
    int k = snprintf(forged, sizeof forged, "report:==1==ERROR: AddressSanitizer: "
                     "heap-buffer-overflow on x\nREAD of size 1\n"
                     "    #0 0x1 in \x1b]0;pwned\x07\xc3\xa9" "f /x.c:1:1\n    #1 0x1 in ");
    memset(forged + k, 'a', 300);
    k += 300;
    k += snprintf(forged + k, sizeof forged - (size_t)k, " /x.c:2:2\n");
    for (int i = 0; i < 1000 && k < (int)sizeof forged - 64; i++)
        k += snprintf(forged + k, sizeof forged - (size_t)k, "    #%d 0x1 in f%d /x.c:3:3\n", i + 2, i);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, forged, &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    const char *st = run.crash_state ? run.crash_state : "";
    const char *head = "asan:heap-buffer-overflow READ\n?]0;pwned???f\naaaa";
    CU_ASSERT_EQUAL(strncmp(st, head, strlen(head)), 0);
    CU_ASSERT_EQUAL(strlen(st), strlen("asan:heap-buffer-overflow READ\n?]0;pwned???f\n") + 160);
    for (const char *c = st; *c; c++)
        CU_ASSERT_FATAL(*c == '\n' || (*c >= ' ' && *c < 127));
    cd_exec_free(ex);

    /* The target's stderr chooses no file for the symbolizer: a frame in /dev/zero (which would
       grow it without end) and one in a FIFO (which would stall it, and once switched
       symbolization off) are left unnamed, and a later frame in the target's own binary is still
       named. The offset of main comes from nm; without llvm-symbolizer nothing is named. */
    char *bin = cd_test_target("exec_basic"), cmd[4200], fifo[4096];
    snprintf(cmd, sizeof cmd, "nm '%s' 2>/dev/null | sed -n 's/^\\([0-9a-f]*\\) T main$/\\1/p'", bin);
    FILE *nm = popen(cmd, "r");
    char main_at[64] = "";
    if (nm) {
        if (!fgets(main_at, sizeof main_at, nm))
            main_at[0] = '\0';
        main_at[strcspn(main_at, "\n")] = '\0';
        pclose(nm);
    }
    snprintf(fifo, sizeof fifo, "%s/sym-fifo", tmp_dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    bool have_sym = system("command -v llvm-symbolizer >/dev/null 2>&1") == 0;
    if (main_at[0] && have_sym) {
        ex = start_frames("exec_basic", 3);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ex);
        snprintf(forged, sizeof forged, "report:==1==ERROR: AddressSanitizer: SEGV on x\n"
                 "    #0 0x1 (/dev/zero+0x10)\n    #1 0x1 (%s+0x10)\n    #2 0x1 (%s+0x%s)\n",
                 fifo, bin, main_at);
        CU_ASSERT_EQUAL_FATAL(run_str(ex, forged, &run), CD_OK);
        st = run.crash_state ? run.crash_state : "";
        CU_ASSERT_PTR_NOT_NULL(strstr(st, "zero+0x10"));
        CU_ASSERT_PTR_NOT_NULL(strstr(st, "sym-fifo+0x10"));
        size_t sl = strlen(st);
        CU_ASSERT(sl > 5 && strcmp(st + sl - 5, "\nmain") == 0);
        cd_exec_free(ex);
    } else {
        fprintf(stderr, "llvm-symbolizer or nm missing: the symbolizer's modules not checked\n");
    }
    unlink(fifo);
    free(bin);

    /* AFL_CRASH_EXITCODE, as the CLI passes it. */
    char path[4096];
    char *p = cd_test_target("exec_basic");
    snprintf(path, sizeof path, "%s", p);
    free(p);
    char *argv[] = {path, "@@", NULL};
    struct cd_exec_opts opts = {.argv = argv, .timeout_ms = 1000, .cpu = -1, .tmp_dir = tmp_dir,
                                .crash_exitcode = 42, .crash_exitcode_set = true};
    CU_ASSERT_EQUAL_FATAL(cd_exec_new(&ex, &opts, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "exit:42", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_CRASH);
    CU_ASSERT_EQUAL_FATAL(run_str(ex, "exit:41", &run), CD_OK);
    CU_ASSERT_EQUAL(run.outcome, CD_OUTCOME_OK);
    cd_exec_free(ex);
}

static void test_exec_sanitizer_parser(void)
{
    /* Report texts as the sanitizers print them (tools of other versions included). */
    static const struct {
        const char *text, *tool, *kind;
    } cases[] = {
        {"==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020", "asan",
         "heap-buffer-overflow"},
        {"x\n==9==ERROR: AddressSanitizer: SEGV on unknown address 0x000", "asan", "SEGV"},
        {"==9==ERROR: AddressSanitizer: attempting double-free on 0x6020", "asan", "double-free"},
        {"==9==ERROR: AddressSanitizer: requested allocation size 0xffff", "asan",
         "allocation-size-too-big"},
        {"==9==ERROR: LeakSanitizer: detected memory leaks\n", "lsan", "detected-memory-leaks"},
        {"==9==WARNING: MemorySanitizer: use-of-uninitialized-value\n", "msan",
         "use-of-uninitialized-value"},
        {"a.c:3:5: runtime error: index 9 out of bounds for type 'int[4]'\n", "ubsan", "bounds"},
        {"a.c:3:5: runtime error: load of null pointer of type 'int'\n", "ubsan", "null"},
        {"a.c:3:5: runtime error: something new\nSUMMARY: UndefinedBehaviorSanitizer: "
         "undefined-behavior a.c:3:5", "ubsan", "undefined-behavior"},
        {"SUMMARY: AddressSanitizer: stack-overflow (/t+0x1)", "asan", "stack-overflow"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *tool = NULL;
        char kind[64];
        CU_ASSERT_FATAL(cd_exec_sanitizer_report(cases[i].text, &tool, kind, sizeof kind));
        CU_ASSERT_STRING_EQUAL(tool, cases[i].tool);
        CU_ASSERT_STRING_EQUAL(kind, cases[i].kind);
    }
    const char *tool;
    char kind[64];
    CU_ASSERT_FALSE(cd_exec_sanitizer_report("Segmentation fault\n", &tool, kind, sizeof kind));
}

/* Crash states from canned reports: symbolized frames (inlined ones as ASan prints them), runtime,
 * libc and allocator frames skipped, arguments and clone suffixes dropped, the access type, a
 * SEGV's access, UBSan's stack, and unnamed frames as module+offset when not symbolizing. */
static void test_exec_crash_states(void)
{
    static const struct {
        const char *text, *state;
        unsigned frames;
    } cases[] = {
        {"==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020 at pc 0x1\n"
         "READ of size 1 at 0x602000000012 thread T0\n"
         "    #0 0x5 in __interceptor_memcpy /src/asan_interceptors.inc:1:1\n"
         "    #1 0x5 in text /t/png.c:313:14\n"
         "    #2 0x5 in chunk /t/png.c:555:16\n"
         "    #3 0x5 in parse(char const*, unsigned long) /t/png.c:596:13\n"
         "    #4 0x5 in main /t/png.c:626:10\n"
         "    #5 0x7 in __libc_start_main csu/libc-start.c:360:3\n\n"
         "0x602 is located 1 bytes to the right of 1-byte region\n"
         "allocated by thread T0 here:\n    #0 0x5 in malloc /src/asan_malloc_linux.cpp:69:3\n",
         "asan:heap-buffer-overflow READ\ntext\nchunk\nparse", 3},
        {"AddressSanitizer:DEADLYSIGNAL\n==4==ERROR: AddressSanitizer: SEGV on unknown address "
         "0x0 (pc 0x5 bp 0x1 sp 0x7 T0)\n==4==The signal is caused by a WRITE memory access.\n"
         "    #0 0x5 in store.cold /t/b.c:86:20\n    #1 0x5 in flush /t/b.c:93:13\n",
         "asan:SEGV WRITE\nstore\nflush", 3},
        {"==4==ERROR: AddressSanitizer: SEGV on unknown address 0x0\n"
         "    #0 0x5 in a /t/b.c:1:1\n    #1 0x5 in b /t/b.c:2:1\n    #2 0x5 in c /t/b.c:3:1\n",
         "asan:SEGV\na", 1},
        {"b.c:7:9: runtime error: signed integer overflow: 2147483647 + 1\n"
         "    #0 0x5 in add /t/b.c:7:9\n    #1 0x5 in LLVMFuzzerTestOneInput /t/b.c:20:3\n"
         "    #2 0x5 in ExecuteFilesOnyByOne /afl/aflpp_driver.c:255:7\n",
         "ubsan:signed-integer-overflow\nadd\nLLVMFuzzerTestOneInput", 3},
        {"==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6\n"
         "READ of size 4 at 0x6 thread T0\n"
         "    #0 0x55 (/work/t+0xe8a2a) (BuildId: 4cd4)\n"
         "    #1 0x7f (/lib/x86_64-linux-gnu/libc.so.6+0x27249) (BuildId: 93ac)\n",
         "asan:heap-use-after-free READ\nt+0xe8a2a", 3},
        {"==1==ERROR: AddressSanitizer: stack-overflow on address 0x7\n", "asan:stack-overflow",
         3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[1024];
        CU_ASSERT_FATAL(cd_exec_crash_state(cases[i].text, cases[i].frames, false, out,
                                            sizeof out));
        CU_ASSERT_STRING_EQUAL(out, cases[i].state);
    }
    char out[16];
    CU_ASSERT_FALSE(cd_exec_crash_state("Segmentation fault\n", 3, false, out, sizeof out));
}

int main(void)
{
    CU_TestInfo parser_only[] = {
        {"test_exec_sanitizer_parser", test_exec_sanitizer_parser},
        {"test_exec_crash_states", test_exec_crash_states},
        CU_TEST_INFO_NULL,
    };
    CU_TestInfo tests[] = {
        {"test_exec_sanitizer_parser", test_exec_sanitizer_parser},
        {"test_exec_start_errors", test_exec_start_errors},
        {"test_exec_skip_bin_check", test_exec_skip_bin_check},
        {"test_exec_outcomes_file_input", test_exec_outcomes_file_input},
        {"test_exec_stdin_matches_file", test_exec_stdin_matches_file},
        {"test_exec_timeout_and_calibration", test_exec_timeout_and_calibration},
        {"test_exec_grandchild_is_killed", test_exec_grandchild_is_killed},
        {"test_exec_floods", test_exec_floods},
        {"test_exec_fork_server_death", test_exec_fork_server_death},
        {"test_exec_silent_fork_server", test_exec_silent_fork_server},
        {"test_exec_descriptors_never_collide", test_exec_descriptors_never_collide},
        {"test_exec_signals_interrupt_no_reaping", test_exec_signals_interrupt_no_reaping},
        {"test_exec_stray_found_in_large_environment", test_exec_stray_found_in_large_environment},
        {"test_exec_handshakes", test_exec_handshakes},
        {"test_exec_persistent_shm", test_exec_persistent_shm},
        {"test_exec_sanitizer_reports", test_exec_sanitizer_reports},
        CU_TEST_INFO_NULL,
    };
    if (!cd_test_have_afl() || !have("exec_basic") || !have("exec_fake_fs")) {
        cd_test_skip_all("AFL++ or the exec_* targets are not available");
        return cd_test_run("exec", parser_only) == 0 ? 77 : 1;
    }
    /* The sanitizer tests expect the executor's defaults, which any *SAN_OPTIONS turns off. */
    unsetenv("ASAN_OPTIONS");
    unsetenv("UBSAN_OPTIONS");
    unsetenv("MSAN_OPTIONS");
    unsetenv("LSAN_OPTIONS");
    tmp_dir = cd_test_mkdtemp();
    int rc = cd_test_run("exec", tests);
    cd_test_rmdir(tmp_dir);
    return rc;
}
