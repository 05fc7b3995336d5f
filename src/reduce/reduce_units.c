/* Counter-based delta debugging (CDD: Zhang et al., "Toward a Better Understanding of
 * Probabilistic Delta Debugging", ICSE 2025) over an example's units, with groups weighted by
 * their bytes as Weighted Delta Debugging does (WDD, ICSE 2025). A round cuts the units into
 * consecutive groups and tries to delete each group once: no complement is tested and no group is
 * tried twice in a round. Group sizes follow ProbDD's probability without computing it: round r's
 * probability is p0 / (1 - 1/e)^r and its groups hold -1/ln(1 - p) units, which for ProbDD's
 * p0 = 0.1 is 9, 5, 3, then 1. (CDD repeats the round of single units while p < 1; here the
 * reducer's driver runs the pass again after any deletion instead.) Groups are cut by bytes, that
 * many mean-sized units' worth, so that a heavy unit forms a group of its own, and they are tried
 * heaviest first: the first executions go where the bytes are. */
#include "reduce_internal.h"

#include <stdlib.h>

/* Mean-sized units' worth of bytes in a group, round by round (see above). */
static const unsigned cdd_sizes[] = {9, 5, 3, 1};
#define CDD_ROUNDS (sizeof cdd_sizes / sizeof cdd_sizes[0])

/* One group of a round: its first byte and length in the example the round started from, and
 * its place among the round's groups in position order. */
struct group {
    size_t at, len, i;
};

/* Heaviest first; on equal weight the earlier first, so that runs are reproducible. */
static int by_weight(const void *a, const void *b)
{
    const struct group *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? 1 : -1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* A Fenwick tree over the round's groups in position order holds the bytes deleted so far, so
 * that a group's place in the current example is found in log time. */
static void removed_add(size_t *tree, size_t n, size_t i, size_t v)
{
    for (i++; i <= n; i += i & (~i + 1))
        tree[i - 1] += v;
}

static size_t removed_before(const size_t *tree, size_t i)
{
    size_t s = 0;
    for (; i > 0; i -= i & (~i + 1))
        s += tree[i - 1];
    return s;
}

/* The next unit's end after at: past at, at most r->len. */
static size_t next_end(const struct cd_reduce_run *r, cd_reduce_unit_end_fn unit_end, size_t at)
{
    size_t e = unit_end(r, at);
    return e > at && e <= r->len ? e : r->len;
}

/* Cuts r->cur into groups of consecutive units, each closed once it weighs `weight` bytes;
 * returns how many. */
static size_t make_groups(const struct cd_reduce_run *r, cd_reduce_unit_end_fn unit_end,
                          size_t weight, struct group *g)
{
    size_t n = 0;
    for (size_t at = 0; at < r->len; n++) {
        size_t e = at;
        while (e < r->len && e - at < weight)
            e = next_end(r, unit_end, e);
        g[n] = (struct group){at, e - at, n};
        at = e;
    }
    return n;
}

bool cd_reduce_cdd(struct cd_reduce_run *r, cd_reduce_unit_end_fn unit_end)
{
    bool any = false;
    for (unsigned round = 0; round < CDD_ROUNDS && !r->stopped; round++) {
        size_t units = 0;
        for (size_t at = 0; at < r->len; units++)
            at = next_end(r, unit_end, at);
        if (units < 2)
            break;
        size_t weight = cdd_sizes[round] * r->len / units;
        struct group *g = malloc(units * sizeof *g);
        size_t *tree = calloc(units, sizeof *tree);
        if (!g || !tree) {
            free(g);
            free(tree);
            break; /* out of memory: the other passes go on */
        }
        size_t n = make_groups(r, unit_end, weight ? weight : 1, g);
        qsort(g, n, sizeof *g, by_weight); /* each group keeps its place in position order */
        for (size_t k = 0; k < n && !r->stopped; k++) {
            const struct group *x = &g[k];
            if (cd_reduce_try_delete(r, x->at - removed_before(tree, x->i), x->len)) {
                removed_add(tree, n, x->i, x->len);
                any = true;
            }
        }
        free(g);
        free(tree);
    }
    return any;
}
