/* exec_unstable: a fork-server test target with unstable edges, as a target that keeps state from
 * run to run has them. Each run reads a count from the file named by $EXEC_UNSTABLE_COUNT, adds
 * one and writes it back; the count's parity picks one of two branches, and a loop runs (count %
 * 3) + 1 times, so two runs in a row always differ on those edges, in branch and in hit-count
 * class. The input, read from argv[1] or stdin, is then scanned the same way every run: each byte
 * takes one of sixteen branches by its low four bits, and some pairs of bytes take more. Without
 * the variable it keeps no count and is stable. */
#include <stdio.h>
#include <stdlib.h>

static unsigned sink;

static unsigned bump(const char *path)
{
    unsigned n = 0;
    FILE *f = fopen(path, "r+");
    if (!f)
        return 0;
    if (fscanf(f, "%u", &n) != 1)
        n = 0;
    rewind(f);
    fprintf(f, "%u\n", n + 1);
    fclose(f);
    return n + 1;
}

static __attribute__((noinline)) void odd(unsigned n) { sink += n * 3; }
static __attribute__((noinline)) void even(unsigned n) { sink ^= n; }
static __attribute__((noinline)) void tick(unsigned i) { sink += i; }

int main(int argc, char **argv)
{
    const char *count = getenv("EXEC_UNSTABLE_COUNT");
    if (count) {
        unsigned n = bump(count);
        if (n & 1)
            odd(n);
        else
            even(n);
        for (unsigned i = 0; i < n % 3 + 1; i++)
            tick(i);
    }
    FILE *in = argc > 1 ? fopen(argv[1], "rb") : stdin;
    if (!in)
        return 2;
    int c, prev = -1;
    while ((c = fgetc(in)) != EOF) {
        switch (c & 15) {
        case 0: sink += 1; break;
        case 1: sink += 2; break;
        case 2: sink ^= 3; break;
        case 3: sink *= 5; break;
        case 4: sink -= 7; break;
        case 5: sink += 11; break;
        case 6: sink ^= 13; break;
        case 7: sink += 17; break;
        case 8: sink -= 19; break;
        case 9: sink ^= 23; break;
        case 10: sink += 29; break;
        case 11: sink *= 31; break;
        case 12: sink -= 37; break;
        case 13: sink ^= 41; break;
        case 14: sink += 43; break;
        default: sink -= 47; break;
        }
        if (prev == 'a' && c == 'b')
            sink += 53;
        else if (prev == 'x' && c == 'y')
            sink ^= 59;
        else if (prev == c)
            sink += 61;
        prev = c;
    }
    if (in != stdin)
        fclose(in);
    return sink == 0x12345678u;
}
