/* The driver of the libFuzzer-style samples' coverage builds (audit --coverage): runs
 * LLVMFuzzerTestOneInput once on the file named by argv[1], or on stdin when there is none, as
 * the AFL++ build of the same target takes its input. libFuzzer's own main would start fuzzing
 * when given no file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
    if (!f)
        return 2;
    size_t cap = 1 << 16, len = 0, n;
    uint8_t *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *p = realloc(buf, cap *= 2);
            if (!p)
                break;
            buf = p;
        }
    }
    if (!buf)
        return 2;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}
