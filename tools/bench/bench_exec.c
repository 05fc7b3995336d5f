/* bench_exec: executions per second of the executor plus labels on a directory of inputs, the
 * work afl-showmap -i does (run every file once, compute its labels). tools/bench/bench_exec.sh runs it
 * side by side with afl-showmap.
 *
 *   bench_exec [-r ROUNDS] [-t TIMEOUT_MS] [-H] DIR -- TARGET [ARGS...]   ("@@": the input file)
 *
 * Prints one line: inputs, executions, seconds, execs/s, and the executor's view of the target.
 * With -H it prints instead the names of the inputs that time out, one per line (the benchmark
 * leaves those out: a hang costs the timeout whoever runs it). */
#include "exec/cd_exec.h"
#include "table/cd_labels.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct input {
    char *name;
    uint8_t *data;
    size_t len;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads every non-empty regular file of dir (not recursive), sorted by name. */
static struct input *load(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 1024, n = 0;
    char **names = malloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap)
            names = realloc(names, (cap *= 2) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    struct input *in = calloc(n ? n : 1, sizeof *in);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
            if (fd >= 0)
                close(fd);
            free(names[i]);
            continue;
        }
        in[k].name = names[i];
        in[k].data = malloc((size_t)st.st_size);
        ssize_t got = read(fd, in[k].data, (size_t)st.st_size);
        in[k].len = got > 0 ? (size_t)got : 0;
        close(fd);
        k++;
    }
    free(names);
    *count = k;
    return in;
}

int main(int argc, char **argv)
{
    unsigned rounds = 1, timeout = 1000;
    bool list_hangs = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i += 2) {
        if (strcmp(argv[i], "-H") == 0) {
            list_hangs = true;
            i--;
            continue;
        }
        if (i + 1 >= argc)
            break;
        if (strcmp(argv[i], "-r") == 0)
            rounds = (unsigned)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-t") == 0)
            timeout = (unsigned)atoi(argv[i + 1]);
    }
    if (i + 2 >= argc || strcmp(argv[i + 1], "--") != 0) {
        fprintf(stderr, "usage: bench_exec [-r ROUNDS] [-t TIMEOUT_MS] [-H] DIR -- TARGET "
                        "[ARGS...]\n");
        return 2;
    }
    size_t n;
    struct input *in = load(argv[i], &n);
    if (!in || n == 0) {
        fprintf(stderr, "bench_exec: no inputs in '%s'\n", argv[i]);
        return 2;
    }
    struct cd_exec_opts opts = {.argv = argv + i + 2, .timeout_ms = timeout, .cpu = -1};
    struct cd_exec *ex;
    struct cd_error err;
    if (cd_exec_new(&ex, &opts, &err) != CD_OK) {
        fprintf(stderr, "bench_exec: %s\n", err.msg);
        return 1;
    }
    struct cd_labelset set = {0};
    uint64_t labels = 0, crashes = 0, timeouts = 0, t0 = cd_now_ns();
    for (unsigned r = 0; r < rounds; r++) {
        for (size_t k = 0; k < n; k++) {
            struct cd_run run;
            enum cd_status st = cd_exec_run(ex, in[k].data, in[k].len, &run, &err);
            if (st == CD_WARN)
                continue;
            if (st != CD_OK) {
                fprintf(stderr, "bench_exec: %s\n", err.msg);
                return 1;
            }
            crashes += run.outcome == CD_OUTCOME_CRASH;
            timeouts += run.outcome == CD_OUTCOME_TIMEOUT;
            if (list_hangs && run.outcome == CD_OUTCOME_TIMEOUT)
                printf("%s\n", in[k].name);
            if (cd_labels_from_run(&run, false, &set, &err) != CD_OK) {
                fprintf(stderr, "bench_exec: %s\n", err.msg);
                return 1;
            }
            labels += set.n;
        }
    }
    double secs = (double)(cd_now_ns() - t0) / 1e9;
    const struct cd_exec_info *info = cd_exec_info(ex);
    if (!list_hangs)
        printf("inputs %zu execs %llu secs %.3f execs/s %.0f labels %llu crashes %llu "
               "timeouts %llu map %zu persistent %d shm %d restarts %llu\n",
               n, (unsigned long long)info->execs, secs, (double)info->execs / secs,
               (unsigned long long)labels, (unsigned long long)crashes,
               (unsigned long long)timeouts, info->map_size, info->persistent,
               info->shm_testcase, (unsigned long long)info->restarts);
    cd_labelset_release(&set);
    cd_exec_free(ex);
    for (size_t k = 0; k < n; k++) {
        free(in[k].name);
        free(in[k].data);
    }
    free(in);
    return 0;
}
