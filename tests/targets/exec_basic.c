/* exec_basic: a fork-server test target for the executor. It reads its input from the file named
 * by argv[1], or from stdin without one, and acts on a command at the start of the input:
 *   crash         SIGSEGV (null store)           abort       SIGABRT
 *   hang          never returns                  exit:N      exits with status N
 *   count:N       runs one branch N times (hit-count classes)
 *   fork:PATH     forks a grandchild that writes its pid to PATH, then outlives this process
 *   setsid:PATH   the same, the grandchild in a session of its own
 *   floodout      writes 8 MiB to stdout         flooderr    writes 2 MiB to stderr, then "END"
 *   threadflood   four threads write to stderr without end; the program exits after 50 ms
 *   die           kills its parent, the fork server
 *   sleep:MS      sleeps MS milliseconds, then exits 0
 *   report:TEXT   writes TEXT to stderr (a forged sanitizer report, say), then SIGABRT
 * Anything else is scanned byte by byte so that different inputs give different coverage. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[1 << 16];

static void *flood(void *arg)
{
    static char block[1 << 12];
    memset(block, 't', sizeof block);
    (void)arg;
    for (;;)
        if (write(2, block, sizeof block) < 0)
            return NULL;
}

static void spin(volatile unsigned n)
{
    for (volatile unsigned i = 0; i < n; i++)
        if (i % 2 == 0)
            buf[sizeof buf - 1] ^= 1;
}

static void grandchild(const char *path, int own_session)
{
    int p[2];
    if (pipe(p) != 0)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        if (own_session)
            setsid();
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
        if (write(p[1], "x", 1) != 1)
            _exit(1);
        close(p[1]);
        for (int i = 0; i < 60; i++)
            sleep(1);
        _exit(0);
    }
    close(p[1]);
    char c;
    if (read(p[0], &c, 1) != 1)
        exit(1);
}

int main(int argc, char **argv)
{
    int fd = argc > 1 ? open(argv[1], O_RDONLY) : 0;
    if (fd < 0)
        return 2;
    ssize_t n = read(fd, buf, sizeof buf - 2);
    if (n < 0)
        return 2;
    buf[n] = '\0';
    if (strncmp(buf, "crash", 5) == 0) {
        *(volatile int *)(uintptr_t)(n - n) = 1;
    } else if (strncmp(buf, "abort", 5) == 0) {
        abort();
    } else if (strncmp(buf, "report:", 7) == 0) {
        if (write(2, buf + 7, (size_t)n - 7) < 0)
            return 2;
        abort();
    } else if (strncmp(buf, "hang", 4) == 0) {
        for (;;)
            pause();
    } else if (strncmp(buf, "exit:", 5) == 0) {
        exit(atoi(buf + 5));
    } else if (strncmp(buf, "count:", 6) == 0) {
        spin((unsigned)atoi(buf + 6) * 2);
    } else if (strncmp(buf, "fork:", 5) == 0) {
        buf[strcspn(buf, "\n")] = '\0';
        grandchild(buf + 5, 0);
    } else if (strncmp(buf, "setsid:", 7) == 0) {
        buf[strcspn(buf, "\n")] = '\0';
        grandchild(buf + 7, 1);
    } else if (strncmp(buf, "floodout", 8) == 0) {
        static char block[1 << 16];
        memset(block, 'o', sizeof block);
        for (int i = 0; i < 128; i++)
            if (write(1, block, sizeof block) < 0)
                break;
    } else if (strncmp(buf, "flooderr", 8) == 0) {
        static char block[1 << 16];
        memset(block, 'e', sizeof block);
        for (int i = 0; i < 32; i++)
            if (write(2, block, sizeof block) < 0)
                break;
        fputs("END\n", stderr);
    } else if (strncmp(buf, "threadflood", 11) == 0) {
        pthread_t t;
        for (int i = 0; i < 4; i++)
            pthread_create(&t, NULL, flood, NULL);
        usleep(50000);
        exit(0); /* the threads die with the process, mid-write */
    } else if (strncmp(buf, "sleep:", 6) == 0) {
        usleep((useconds_t)atoi(buf + 6) * 1000u);
    } else if (strncmp(buf, "die", 3) == 0) {
        kill(getppid(), SIGKILL);
        sleep(1);
    } else {
        unsigned h = 0;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == 'a')
                h += 1;
            else if (buf[i] == 'b')
                h *= 3;
            else if (buf[i] >= '0' && buf[i] <= '9')
                h ^= (unsigned)buf[i];
            else
                h += 7;
        }
        return h == 12345 ? 3 : 0;
    }
    return 0;
}
