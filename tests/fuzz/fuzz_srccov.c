/* libFuzzer harness for the source coverage record reader (STEM.source.json, which anyone may
 * write beside a manifest): the bytes are loaded with cd_srccov_load, as audit reads a record. A
 * record that loads must hold only what the writer could have written (seed keys of 40 lower-case
 * hex digits, ascending line numbers, indices below what they index), and save and load back to
 * the same shape. Built and run by tests/fuzz/run.sh. */
#include "output/cd_srccov.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool hex40(const char *s)
{
    return strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

static bool ascending(const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == 0 || (i && v[i] <= v[i - 1]))
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64], again[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fuzz-srccov-%d.json", (int)getpid());
        snprintf(again, sizeof again, "/tmp/fuzz-srccov-%d-again.json", (int)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    struct cd_srccov c, d;
    struct cd_error err;
    if (cd_srccov_load(&c, path, &err) != CD_OK) {
        if (strchr(err.msg, '\n'))
            abort(); /* a refusal is one line */
        return 0;
    }
    for (size_t i = 0; i < c.n_seeds; i++) {
        const struct cd_srccov_seed *s = &c.seeds[i];
        if (!hex40(s->sha1))
            abort(); /* a key that reaches the report as a link must be a name we write */
        for (size_t k = 0; k < s->n_fns; k++)
            if (s->fns[k] >= c.n_fns)
                abort();
        for (size_t fi = 0; s->measured && fi < c.n_files; fi++)
            if (!ascending(s->lines[fi], s->n_lines[fi]))
                abort();
    }
    for (size_t fi = 0; fi < c.n_files; fi++)
        if (!ascending(c.lines[fi], c.n_lines[fi]))
            abort();
    for (size_t k = 0; k < c.n_fns; k++)
        if (c.fns[k].file >= c.n_files)
            abort();
    if (cd_srccov_save(&c, again, &err) != CD_OK || cd_srccov_load(&d, again, &err) != CD_OK ||
        d.n_seeds != c.n_seeds || d.n_files != c.n_files || d.n_fns != c.n_fns)
        abort();
    cd_srccov_release(&c);
    cd_srccov_release(&d);
    unlink(again);
    return 0;
}
