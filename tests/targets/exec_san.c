/* exec_san: a sanitizer test target, built with AddressSanitizer and UndefinedBehaviorSanitizer.
 * Input "heap" overflows a heap buffer, "uaf" uses freed memory, "ovf" overflows a signed int,
 * "exit86" exits with the MemorySanitizer status; anything else runs cleanly. */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char in[256] = {0};
    int fd = argc > 1 ? open(argv[1], O_RDONLY) : 0;
    if (fd < 0 || read(fd, in, sizeof in - 1) < 0)
        return 2;
    volatile int idx = (int)strlen(in) + 4; /* 8 for "heap", 7 for "uaf" and "ovf" */
    if (strncmp(in, "heap", 4) == 0) {
        volatile char *p = malloc(8);
        p[idx] = 1;
        free((void *)p);
    } else if (strncmp(in, "uaf", 3) == 0) {
        char *p = malloc(8);
        free(p);
        return p[idx - 7];
    } else if (strncmp(in, "ovf", 3) == 0) {
        volatile int x = INT_MAX - 2 + idx;
        return x > 0;
    } else if (strncmp(in, "exit86", 6) == 0) {
        exit(86);
    }
    return 0;
}
