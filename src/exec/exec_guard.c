/* The guard: a process forked once, when the first fork server starts, that outlives this one only
 * to kill what it started. Nothing in a process killed by SIGKILL runs, and a fork server's death
 * does not end its children: a persistent target's child stops itself between runs and would stay
 * stopped for ever. The tool tells the guard each fork server it starts and each it reaps (the
 * pid, negated when gone) over a socket; at end of file (the tool exited, whatever killed it) the
 * guard kills every fork server still listed with its process group (its children are in it),
 * then exits. It depends on nothing of the executor but pids. */
#define _GNU_SOURCE /* close_range */
#include "exec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Fork servers listed at once; past it the oldest are forgotten (a run restarts its fork
 * servers rarely, and stops each it replaces). */
#define GUARD_MAX 4096

static pthread_mutex_t guard_mu = PTHREAD_MUTEX_INITIALIZER;
static int guard_fd = -1;
static pid_t guard_pid;
static bool guard_tried;

/* The guard's life, in the child of fork: async-signal-safe calls only (the tool has threads). */
static void guard_main(int fd)
{
    static pid_t live[GUARD_MAX];
    size_t n = 0, next = 0;
    struct sigaction ign = {.sa_handler = SIG_IGN};
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &ign, NULL);
    /* Hold no descriptor of the tool's (a pipe its caller waits on) but the socket. */
    int null = open("/dev/null", O_RDWR);
    for (int i = 0; i < 3 && null >= 0; i++)
        dup2(null, i);
    if (dup2(fd, 3) == 3)
        fd = 3;
    close_range(4, ~0u, 0);
    for (;;) {
        int32_t v;
        ssize_t r = read(fd, &v, sizeof v);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != sizeof v)
            break;
        if (v > 0) {
            if (n < GUARD_MAX)
                live[n++] = v;
            else
                live[next++ % GUARD_MAX] = v;
        } else {
            for (size_t i = 0; i < n; i++)
                if (live[i] == -v) {
                    live[i] = live[--n];
                    break;
                }
        }
    }
    for (size_t i = 0; i < n; i++) {
        kill(-live[i], SIGKILL);
        kill(live[i], SIGKILL);
    }
    _exit(0);
}

/* Starts the guard once; false when it could not be (the run goes on unguarded). guard_mu held. */
static bool guard_start(void)
{
    if (guard_tried)
        return guard_fd >= 0;
    guard_tried = true;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        guard_main(sv[1]);
    }
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return false;
    }
    guard_fd = sv[0];
    guard_pid = pid;
    return true;
}

/* Sends v to the guard; a guard that is gone (killed by hand) only leaves the run unguarded. */
static void guard_send(int32_t v)
{
    if (guard_fd >= 0 && send(guard_fd, &v, sizeof v, MSG_NOSIGNAL) != (ssize_t)sizeof v) {
        close(guard_fd);
        guard_fd = -1;
    }
}

void exec_guard_watch(pid_t fsrv)
{
    pthread_mutex_lock(&guard_mu);
    if (guard_start())
        guard_send((int32_t)fsrv);
    pthread_mutex_unlock(&guard_mu);
}

void exec_guard_forget(pid_t fsrv)
{
    pthread_mutex_lock(&guard_mu);
    guard_send(-(int32_t)fsrv);
    pthread_mutex_unlock(&guard_mu);
}

void exec_guard_end(void)
{
    pthread_mutex_lock(&guard_mu);
    if (guard_fd >= 0)
        close(guard_fd);
    if (guard_pid > 0)
        while (waitpid(guard_pid, NULL, 0) < 0 && errno == EINTR)
            ;
    guard_fd = -1;
    guard_pid = 0;
    guard_tried = false;
    pthread_mutex_unlock(&guard_mu);
}
