/* libFuzzer harness for archive ingest: the bytes are an operand file (any archive format and
 * compression libarchive reads, or none), read to its end as a run reads it, with a small entry
 * limit and inflation bound so that bombs are cut short. Every input must come back within the
 * limit and every warning be one line. Built and run by tests/fuzz/run.sh. */
#include "ingest/cd_ingest.h"
#include "fuzz_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file("ingest", data, size);
    const char *ops[] = {path};
    struct cd_ingest_opts opts = {.operands = ops, .n_operands = 1, .max_input_size = 1 << 16,
                                  .skip_empty = true, .stream_idle_ms = 1000,
                                  .inflate_floor = 1 << 20};
    struct cd_ingest *ing;
    struct cd_error err;
    if (cd_ingest_new(&ing, &opts, &err) != CD_OK)
        abort();
    for (;;) {
        struct cd_input in;
        enum cd_status st = cd_ingest_next(ing, &in, &err);
        if (st == CD_DONE || st == CD_FAILED)
            break;
        if (st == CD_OK && (in.size > opts.max_input_size || !in.data || strchr(in.name, '\n')))
            abort();
        if (st == CD_WARN && strchr(err.msg, '\n'))
            abort();
    }
    cd_ingest_free(ing);
    unlink(path);
    return 0;
}
