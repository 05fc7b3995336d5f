/* exec_fake_fs: a hand-written stand-in for an AFL++ target, built with the plain C compiler. It
 * plays the target side of the fork-server protocol on descriptors 198/199 and writes the coverage
 * map in __AFL_SHM_ID itself, so that the executor can be tested against the >= 4.20c handshake
 * and against protocol errors that real targets rarely produce. argv[1] selects the behaviour:
 *   old           old hello, map size 64                  new        new handshake, map size 100
 *   newshm        new handshake, test cases through __AFL_SHM_FUZZ_ID
 *   dict          old hello offering a dictionary         newdict    new handshake with one
 *   exitafter:N   old hello, exits after N runs
 *   error:C       new-protocol error code C               olderror:C old-protocol error code C
 *   garbage       a word that is no hello                 eof        exits before any hello
 *   short         half a word, then exits                 badend     wrong closing hello
 *   mutepid:N     old hello; after N runs takes a request and never answers
 *   mutestatus:N  old hello; after N runs reports its parent's pid as the child, then no status
 *   budget:N:PATH old hello; N runs in all, counted in file PATH across restarts, then it exits
 *                 (at its next request, and at once when started again): a target that breaks
 * Each run sets map[5] = 1 and map[7] = 3; newshm also sets map[10 + len % 50] = 1 and
 * map[70] = the first input byte. The reported pid is the server's own, the status 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <unistd.h>

#define CTL 198
#define ST 199

static void put(uint32_t v)
{
    if (write(ST, &v, 4) != 4)
        _exit(1);
}

static uint32_t get(void)
{
    uint32_t v;
    if (read(CTL, &v, 4) != 4)
        _exit(0);
    return v;
}

/* The runs counted in file path so far (0 when it does not exist). */
static long used(const char *path)
{
    long n = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &n) != 1)
            n = 0;
        fclose(f);
    }
    return n;
}

static uint8_t *attach(const char *var)
{
    const char *id = getenv(var);
    if (!id)
        return NULL;
    void *p = shmat(atoi(id), NULL, 0);
    return p == (void *)-1 ? NULL : p;
}

static void new_handshake(uint32_t opts, uint32_t map_size, int bad_end)
{
    uint32_t hello = 0x41464c01u;
    put(hello);
    if (get() != (hello ^ 0xffffffffu))
        _exit(3);
    put(opts);
    put(map_size);
    if (opts & 0x800u) {
        put(5);
        if (write(ST, "\x04" "abcd", 5) != 5)
            _exit(1);
    }
    put(bad_end ? 0xdeadbeefu : hello);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "old";
    uint8_t *map = attach("__AFL_SHM_ID");
    uint8_t *fuzz = NULL;
    long runs_left = -1, mute_after = -1, budget = -1;
    int mute_status = 0;
    const char *budget_path = NULL;
    if (strcmp(mode, "eof") == 0)
        return 0;
    if (strcmp(mode, "short") == 0) {
        if (write(ST, "AF", 2) != 2)
            return 1;
        return 0;
    }
    if (strcmp(mode, "garbage") == 0) {
        put(0x12345678u);
        sleep(1);
        return 0;
    }
    if (strncmp(mode, "error:", 6) == 0) {
        put(0xeffe0000u | (uint32_t)atoi(mode + 6));
        return 1;
    }
    if (strncmp(mode, "olderror:", 9) == 0) {
        put(0xf800008fu | (uint32_t)atoi(mode + 9) << 8);
        return 1;
    }
    if (strcmp(mode, "new") == 0 || strcmp(mode, "badend") == 0) {
        new_handshake(0x1u, 100, strcmp(mode, "badend") == 0);
    } else if (strcmp(mode, "newdict") == 0) {
        new_handshake(0x1u | 0x800u, 100, 0);
    } else if (strcmp(mode, "newshm") == 0) {
        fuzz = attach("__AFL_SHM_FUZZ_ID");
        if (!fuzz)
            return 4;
        new_handshake(0x1u | 0x2u, 100, 0);
    } else if (strcmp(mode, "dict") == 0) {
        put(0x80000001u | 0x40000000u | 0x10000000u | ((64u - 1) << 1));
        if (get() != (0x80000001u | 0x10000000u))
            _exit(3);
        put(7);
        if (write(ST, "\x03" "abc" "\x02" "xy", 7) != 7)
            return 1;
    } else {
        if (strncmp(mode, "exitafter:", 10) == 0)
            runs_left = atol(mode + 10);
        if (strncmp(mode, "budget:", 7) == 0) {
            budget = atol(mode + 7);
            budget_path = strchr(mode + 7, ':');
            if (!budget_path || used(budget_path + 1) >= budget)
                return 1;
            budget_path++;
        }
        if (strncmp(mode, "mutepid:", 8) == 0)
            mute_after = atol(mode + 8);
        if (strncmp(mode, "mutestatus:", 11) == 0) {
            mute_after = atol(mode + 11);
            mute_status = 1;
        }
        put(0x80000001u | 0x40000000u | ((64u - 1) << 1));
    }
    for (;;) {
        if (runs_left == 0)
            return 0;
        get();
        if (budget_path) {
            long n = used(budget_path) + 1;
            FILE *f = fopen(budget_path, "w");
            if (!f || fprintf(f, "%ld\n", n) < 0 || fclose(f) != 0 || n > budget)
                _exit(1);
        }
        if (mute_after == 0) {
            if (mute_status)
                put((uint32_t)getppid());
            for (;;)
                pause();
        }
        if (mute_after > 0)
            mute_after--;
        put((uint32_t)getpid());
        if (map) {
            map[5] = 1;
            map[7] = 3;
            if (fuzz) {
                uint32_t len;
                memcpy(&len, fuzz, 4);
                map[10 + len % 50] = 1;
                map[70] = len ? fuzz[4] : 0;
            }
        }
        put(0);
        if (runs_left > 0)
            runs_left--;
    }
}
