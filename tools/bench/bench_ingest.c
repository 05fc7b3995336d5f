/* Benchmark driver for the ingest stage alone: reads every input of the operands through
 * cd_ingest and prints how many inputs and bytes it saw, the time, and the rate. With -l it lists
 * each input ("size name") and each warning, which makes it a handy way to see what the tool would
 * read from an input set. It touches every byte (a cheap checksum) so the data is really read.
 *
 *   bench_ingest [-l] [-r] [-e] [-m MAX_SIZE] OPERAND...
 */
#include "ingest/cd_ingest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: bench_ingest [-l] [-r] [-e] [-m MAX_SIZE] OPERAND...\n"
                    "  -l  list every input and warning\n"
                    "  -r  archives as raw inputs\n"
                    "  -e  skip empty inputs\n"
                    "  -m  maximum input size in bytes (default 1048576)\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct cd_ingest_opts opts = {0};
    bool list = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "-l") == 0) {
            list = true;
        } else if (strcmp(argv[i], "-r") == 0) {
            opts.archives_as_raw = true;
        } else if (strcmp(argv[i], "-e") == 0) {
            opts.skip_empty = true;
        } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
            opts.max_input_size = strtoull(argv[++i], NULL, 0);
        } else {
            return usage();
        }
    }
    opts.operands = (const char *const *)argv + i;
    opts.n_operands = (size_t)(argc - i);

    struct cd_error err = {0};
    struct cd_ingest *ing = NULL;
    if (cd_ingest_new(&ing, &opts, &err) != CD_OK) {
        fprintf(stderr, "bench_ingest: %s\n", err.msg);
        return 1;
    }
    uint64_t t0 = cd_now_ns(), sum = 0, warnings = 0;
    int rc = 0;
    for (;;) {
        struct cd_input in;
        enum cd_status st = cd_ingest_next(ing, &in, &err);
        if (st == CD_DONE)
            break;
        if (st == CD_WARN) {
            warnings++;
            if (list)
                fprintf(stderr, "warning: %s\n", err.msg);
            continue;
        }
        if (st != CD_OK) {
            fprintf(stderr, "bench_ingest: %s\n", err.msg);
            rc = 1;
            break;
        }
        for (size_t k = 0; k < in.size; k += 64)
            sum += in.data[k];
        if (list)
            printf("%zu %s\n", in.size, in.name);
    }
    double secs = (double)(cd_now_ns() - t0) / 1e9;
    const struct cd_ingest_stats *s = cd_ingest_stats(ing);
    fprintf(stderr,
            "inputs %llu  bytes %llu  archives %llu  warnings %llu  seconds %.3f  MB/s %.1f\n",
            (unsigned long long)s->inputs, (unsigned long long)s->bytes,
            (unsigned long long)s->archives, (unsigned long long)warnings, secs,
            secs > 0 ? (double)s->bytes / 1e6 / secs : 0.0);
    fprintf(stderr, "skipped:");
    for (int k = 0; k < CD_SKIP_COUNT; k++)
        fprintf(stderr, " %s %llu%s", cd_ingest_skip_name((enum cd_skip)k),
                (unsigned long long)s->skipped[k], k + 1 < CD_SKIP_COUNT ? "," : "");
    fprintf(stderr, "  (checksum %llu)\n", (unsigned long long)sum);
    cd_ingest_free(ing);
    return rc;
}
