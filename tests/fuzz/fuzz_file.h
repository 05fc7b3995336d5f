/* What both harnesses share: the fuzzer's bytes become a file, because the code under test takes a
 * path (a manifest, an operand), as it does in a real run. */
#ifndef CD_FUZZ_FILE_H
#define CD_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes the bytes to a file of this process named after stem, and returns its path. */
static const char *fuzz_file(const char *stem, const uint8_t *data, size_t size)
{
    static char path[96];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/cd-fuzz-%s-%d", stem, (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

#endif
