/* Edge IDs: the function of each map slot, from afl-clang-lto's AFL_LLVM_DOCUMENT_IDS file. */
#include "cd_edge_ids.h"

#include "cd_labels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slots beyond any map size AFL++ allows are not documentation of this target's map. */
#define EDGE_IDS_MAX_SLOT (1ul << 24)

struct cd_edge_ids {
    char **fn;   /* fn[slot], NULL when undocumented */
    size_t n;    /* slots allocated */
    size_t documented;
};

/* Records name (len bytes) as the function of slot unless one is recorded; false when out of
 * memory. */
static bool put_slot(struct cd_edge_ids *t, unsigned long slot, const char *name, size_t len)
{
    if (slot >= t->n) {
        size_t n = slot + 1 > 2 * t->n ? slot + 1 : 2 * t->n;
        char **nf = realloc(t->fn, n * sizeof *nf);
        if (!nf)
            return false;
        memset(nf + t->n, 0, (n - t->n) * sizeof *nf);
        t->fn = nf;
        t->n = n;
    }
    if (t->fn[slot])
        return true;
    t->fn[slot] = strndup(name, len);
    t->documented += t->fn[slot] != NULL;
    return t->fn[slot] != NULL;
}

enum cd_status cd_edge_ids_load(const char *path, struct cd_edge_ids **out, struct cd_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return cd_error_sys(err, CD_FAILED, "cannot read '%s': %s", path, strerror(errno));
    struct cd_edge_ids *t = calloc(1, sizeof *t);
    char *line = NULL;
    size_t cap = 0;
    bool oom = !t;
    while (!oom && getline(&line, &cap, f) > 0) {
        char *fn = strstr(line, "Function="), *edge = strstr(line, "edgeID=");
        if (!fn || !edge)
            continue;
        unsigned long slot = strtoul(edge + 7, NULL, 10);
        if (slot < EDGE_IDS_MAX_SLOT)
            oom = !put_slot(t, slot, fn + 9, strcspn(fn + 9, " \t\n"));
    }
    bool read_error = ferror(f);
    free(line);
    fclose(f);
    enum cd_status st = CD_OK;
    if (oom)
        st = cd_error_oom(err, CD_FAILED, "out of memory reading '%s'", path);
    else if (read_error)
        st = cd_error_set(err, CD_FAILED, "cannot read '%s'", path);
    else if (!t->documented)
        st = cd_error_set(err, CD_FAILED, "'%s' documents no edge (expected afl-clang-lto's "
                          "AFL_LLVM_DOCUMENT_IDS lines)", path);
    if (st != CD_OK) {
        cd_edge_ids_free(t);
        return st;
    }
    *out = t;
    return CD_OK;
}

const char *cd_edge_ids_function(const struct cd_edge_ids *ids, uint32_t id)
{
    if (!ids || cd_labels_is_outcome(id))
        return NULL;
    uint32_t slot = cd_labels_slot(id);
    return slot < ids->n ? ids->fn[slot] : NULL;
}

size_t cd_edge_ids_count(const struct cd_edge_ids *ids)
{
    return ids ? ids->documented : 0;
}

void cd_edge_ids_free(struct cd_edge_ids *ids)
{
    if (!ids)
        return;
    for (size_t i = 0; i < ids->n; i++)
        free(ids->fn[i]);
    free(ids->fn);
    free(ids);
}
