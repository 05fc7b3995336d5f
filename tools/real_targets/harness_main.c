/* The fork-server driver of the real-library benchmark targets: reads the file named by its
 * argument (AFL's @@), or stdin without one, and hands its bytes to LLVMFuzzerTestOneInput, once
 * per process. The same harness file built with -fsanitize=fuzzer (libAFLDriver) instead gives
 * the persistent, shared-memory build. It is also the driver of the libFuzzer-style samples'
 * coverage builds (tests/targets/samples.cmake), which take their input as the AFL++ build does;
 * libFuzzer's own main would start fuzzing when given no file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
#ifdef CD_FILE_ONLY
    if (argc != 2) { /* a target that reads only the file its argument names */
#else
    if (argc > 2) {
#endif
        fprintf(stderr, "usage: %s [FILE]\n", argv[0]);
        return 2;
    }
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : stdin;
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
    if (f != stdin)
        fclose(f);
    if (!buf)
        return 2;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}
