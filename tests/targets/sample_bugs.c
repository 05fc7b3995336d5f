/* sample_bugs: a small line-command interpreter with three planted memory bugs, for crash triage.
 * Built with AddressSanitizer (twice: the second build, with -DCD_SHIFT, moves every address).
 *
 * Input: lines "verb:argument" (the last line needs no newline); unknown lines are skipped.
 *   name:TEXT     copies TEXT to the heap and scans it for ';'
 *   sum:N,V,...   N values into a heap array, then their sum
 *   put:KEY=VAL   stores a record;  del:KEY   deletes one (both through commit, flush, store)
 *   set:K=V, get:K, echo:TEXT, num:DIGITS    ordinary paths
 *
 * Planted bugs (three distinct crash states):
 *   1. heap-buffer-overflow READ in read_name: a name without ';' is scanned past its heap copy.
 *   2. heap-buffer-overflow READ in sum_values: more than 4 values read one past the array. Same
 *      kind and access as 1, another function.
 *   3. SEGV WRITE in store_record: a key starting with '!' writes through a NULL slot. put and
 *      del reach it through two stacks that differ only below its top three frames
 *      (store_record, flush, commit), so it is one bug; with four frames it is two.
 * Minimal triggers: "name:", "sum:5", "del:!". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink; /* work after each call, so that no call is a tail call */

#ifdef CD_SHIFT
/* Only moves the code after it: a rebuild with other addresses. */
NOINLINE int shift_padding(const char *s)
{
    int h = 0;
    for (int i = 0; s[i]; i++)
        h = h * 31 + s[i] * (i + 7) - (h >> 3);
    return h;
}
#endif

static char *volatile slots[8]; /* volatile: the NULL store is not folded into a trap */
static char storage[8][32];

NOINLINE static int read_name(const char *text, size_t len)
{
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return -1;
    memcpy(copy, text, len);
    size_t i = 0;
    while (copy[i] != ';') /* bug 1: no ';' reads past the copy */
        i++;
    free(copy);
    sink = (int)i;
    return (int)i;
}

NOINLINE static long sum_values(const char *text, size_t len)
{
    int n = 0;
    size_t at = 0;
    while (at < len && text[at] >= '0' && text[at] <= '9')
        n = n * 10 + (text[at++] - '0');
    if (n <= 0 || n > 64)
        return 0;
    int *v = calloc((size_t)n, sizeof *v);
    if (!v)
        return 0;
    for (int k = 0; k < n && at < len; k++) {
        at++; /* the comma */
        while (at < len && text[at] >= '0' && text[at] <= '9')
            v[k] = v[k] * 10 + (text[at++] - '0');
    }
    long s = 0;
    int last = n > 4 ? n : n - 1; /* bug 2: one past the array with more than 4 values */
    for (int k = 0; k <= last; k++)
        s += v[k];
    free(v);
    sink = (int)s;
    return s;
}

NOINLINE static int store_record(const char *key, size_t len, int op)
{
    unsigned slot = len ? (unsigned char)key[0] % 8 : 0;
    if (len && key[0] == '!')
        slots[slot] = NULL; /* bug 3: the slot of a '!' key is NULL */
    else
        slots[slot] = storage[slot];
    slots[slot][0] = (char)op; /* writes through NULL for '!' */
    sink = slot;
    return (int)slot;
}

NOINLINE static int flush(const char *key, size_t len, int op)
{
    int r = store_record(key, len, op);
    sink = r + 1;
    return r;
}

NOINLINE static int commit(const char *key, size_t len, int op)
{
    int r = flush(key, len, op);
    sink = r + 2;
    return r;
}

NOINLINE static int handle_put(const char *arg, size_t len)
{
    const char *eq = memchr(arg, '=', len);
    int r = commit(arg, eq ? (size_t)(eq - arg) : len, 'p');
    sink = r + 3;
    return r;
}

NOINLINE static int handle_del(const char *arg, size_t len)
{
    int r = commit(arg, len, 'd');
    sink = r + 4;
    return r;
}

/* Ordinary paths, for coverage. */
static int handle_other(const char *verb, size_t vlen, const char *arg, size_t len)
{
    int h = 0;
    if (vlen == 3 && !memcmp(verb, "set", 3)) {
        const char *eq = memchr(arg, '=', len);
        h = eq ? (int)(eq - arg) * 3 : -1;
    } else if (vlen == 3 && !memcmp(verb, "get", 3)) {
        for (size_t i = 0; i < len; i++)
            h += arg[i] == '.' ? 7 : 1;
    } else if (vlen == 4 && !memcmp(verb, "echo", 4)) {
        for (size_t i = 0; i < len; i++)
            h = h * 3 + (arg[i] >= 'a' && arg[i] <= 'z');
    } else if (vlen == 3 && !memcmp(verb, "num", 3)) {
        for (size_t i = 0; i < len && arg[i] >= '0' && arg[i] <= '9'; i++)
            h = h * 10 + (arg[i] - '0');
        if (h > 1000)
            h = 1000;
    }
    return h;
}

static int run_line(const char *line, size_t n)
{
    const char *colon = memchr(line, ':', n);
    if (!colon)
        return 0;
    size_t vlen = (size_t)(colon - line), alen = n - vlen - 1;
    const char *arg = colon + 1;
    if (vlen == 4 && !memcmp(line, "name", 4))
        return read_name(arg, alen);
    if (vlen == 3 && !memcmp(line, "sum", 3))
        return (int)sum_values(arg, alen);
    if (vlen == 3 && !memcmp(line, "put", 3))
        return handle_put(arg, alen);
    if (vlen == 3 && !memcmp(line, "del", 3))
        return handle_del(arg, alen);
    return handle_other(line, vlen, arg, alen);
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
    if (!f)
        return 2;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    if (f != stdin)
        fclose(f);
#ifdef CD_SHIFT
    sink = shift_padding("shift");
#endif
    int total = 0;
    for (size_t at = 0; at < n;) {
        const char *nl = memchr(buf + at, '\n', n - at);
        size_t len = nl ? (size_t)(nl - (buf + at)) : n - at;
        total += run_line(buf + at, len);
        at += len + 1;
    }
    return total < 0;
}
