/* Benchmark driver for a checkpoint's pause: loads a state file, then times, RUNS times each,
 * what a checkpoint holds the run's lock for, every other worker waiting, and what it does
 * with the lock released:
 *   whole     encode the table and write the file (fsync included): what a checkpoint held
 *             the lock for before snapshots
 *   snapshot  copy what the state holds (cd_table_snapshot): what it holds the lock for now
 *   outside   encode the snapshot and write the file, the lock released
 * and prints the medians and the pause's ratio. The file is written beside OUT (default: a
 * temporary file in TMPDIR), then removed.
 *
 *   bench_checkpoint STATE [RUNS] [OUT]
 */
#include "common/cd_file.h"
#include "table/cd_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double median_ms(uint64_t *ns, int n)
{
    qsort(ns, (size_t)n, sizeof *ns, cmp_u64);
    return (double)ns[n / 2] / 1e6;
}

static uint8_t *read_whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        uint8_t *more = n == cap ? realloc(buf, cap *= 2) : buf;
        if (!more)
            free(buf);
        buf = more;
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: bench_checkpoint STATE [RUNS] [OUT]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (runs < 1 || runs > 1000)
        runs = 5;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/bench_checkpoint.%ld.state",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    const char *out = argc > 3 ? argv[3] : tmp;
    size_t len = 0;
    uint8_t *buf = read_whole(argv[1], &len);
    struct cd_error err = {0};
    struct cd_table *t = NULL;
    struct cd_table_meta meta;
    if (!buf || cd_table_load(&t, &meta, buf, len, 0, &err) != CD_OK) {
        fprintf(stderr, "bench_checkpoint: cannot load '%s': %s\n", argv[1],
                buf ? err.msg : "unreadable");
        return 1;
    }
    free(buf);
    uint64_t *whole = calloc((size_t)runs, sizeof *whole);
    uint64_t *snap = calloc((size_t)runs, sizeof *snap);
    uint64_t *outside = calloc((size_t)runs, sizeof *outside);
    int rc = 0;
    for (int i = 0; i < runs && rc == 0; i++) {
        uint8_t *enc = NULL;
        size_t n = 0;
        uint64_t t0 = cd_now_ns();
        if (cd_table_save(t, &meta, &enc, &n, &err) != CD_OK ||
            cd_file_write(out, enc, n, &err) != CD_OK)
            rc = 1;
        whole[i] = cd_now_ns() - t0;
        free(enc);
        t0 = cd_now_ns();
        struct cd_table_snapshot *s = cd_table_snapshot(t);
        snap[i] = cd_now_ns() - t0;
        t0 = cd_now_ns();
        if (!s || cd_table_snapshot_save(s, &meta, &enc, &n, &err) != CD_OK ||
            cd_file_write(out, enc, n, &err) != CD_OK)
            rc = 1;
        outside[i] = cd_now_ns() - t0;
        free(enc);
        cd_table_snapshot_free(s);
    }
    unlink(out);
    if (rc) {
        fprintf(stderr, "bench_checkpoint: %s\n", err.msg);
    } else {
        double w = median_ms(whole, runs), s = median_ms(snap, runs),
               o = median_ms(outside, runs);
        printf("state: %s, %zu bytes, %zu labels, %zu best examples (medians of %d)\n", argv[1],
               len, cd_table_n_labels(t), cd_table_n_examples(t), runs);
        printf("lock held by a checkpoint, encode and write under it: %9.1f ms\n", w);
        printf("lock held by a checkpoint, snapshot only:             %9.1f ms (%.1fx shorter)\n",
               s, s > 0 ? w / s : 0.0);
        printf("encode and write of the snapshot, lock released:      %9.1f ms\n", o);
    }
    cd_table_meta_release(&meta);
    cd_table_free(t);
    free(whole);
    free(snap);
    free(outside);
    return rc;
}
