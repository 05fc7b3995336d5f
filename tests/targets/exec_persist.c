/* exec_persist: a persistent-mode test target that takes its test cases through shared memory
 * (__AFL_FUZZ_INIT, __AFL_LOOP, __AFL_FUZZ_TESTCASE_BUF). Commands at the start of the input:
 *   crash  SIGSEGV    abort  SIGABRT    hang  never returns    count:N  one branch N times
 * Anything else is scanned byte by byte. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__AFL_FUZZ_INIT();

static volatile unsigned sink;

static void one(const unsigned char *buf, size_t n)
{
    char cmd[16] = {0};
    memcpy(cmd, buf, n < sizeof cmd - 1 ? n : sizeof cmd - 1);
    if (strncmp(cmd, "crash", 5) == 0) {
        *(volatile int *)(uintptr_t)(n - n) = 1;
    } else if (strncmp(cmd, "abort", 5) == 0) {
        abort();
    } else if (strncmp(cmd, "hang", 4) == 0) {
        for (;;)
            pause();
    } else if (strncmp(cmd, "count:", 6) == 0) {
        unsigned k = (unsigned)atoi(cmd + 6);
        for (unsigned i = 0; i < k; i++)
            if (i % 2 == 0 || k > 1000000)
                sink++;
    } else {
        unsigned h = 0;
        for (size_t i = 0; i < n; i++) {
            if (buf[i] == 'a')
                h += 1;
            else if (buf[i] == 'b')
                h *= 3;
            else
                h += 7;
        }
        sink = h;
    }
}

int main(void)
{
    __AFL_INIT();
    unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP(10000)) {
        size_t n = (size_t)__AFL_FUZZ_TESTCASE_LEN;
        one(buf, n);
    }
    return 0;
}
