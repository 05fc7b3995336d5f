/* Each target's view of a run of several (DIR.by-target/NAME): what `afl-fuzz -i` of that
 * harness is pointed at. The shared seeds are chosen for all targets at once, and a cover of one
 * target's labels by them alone weighed up to 1.9 times that target's own run's seeds (libxml2's
 * HTML parser beside its reader): its labels' best examples were there, but not among the shared
 * seeds. A view may draw on every example that runs normally on its target, and takes the labels
 * found in reduction only where worth their bytes, as the seed cover of a run of it alone does:
 * 1.9 times came to 1.06 on that bench (tools/bench/bench_multi.sh). */
#include "cd_cover.h"
#include "result_internal.h"
#include "table/cd_labels.h"

#include <stdlib.h>
#include <string.h>

/* An example in the greedy choice of one target's view: the labels of the target it would add,
 * per byte, as last counted (a count only falls as others are chosen). */
struct view_pick {
    double gain;
    size_t example;
};

static void heap_down(struct view_pick *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && h[l].gain > h[m].gain)
            m = l;
        if (l + 1 < n && h[l + 1].gain > h[m].gain)
            m = l + 1;
        if (m == i)
            return;
        struct view_pick x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

/* Whether ex crashed or hung on target t: it is no seed of t's harness. */
static bool fails_on(const struct cd_result_example *ex, unsigned t)
{
    for (size_t i = 0; i < ex->labels.n; i++)
        if (cd_labels_is_outcome(ex->labels.v[i]) && cd_labels_target(ex->labels.v[i]) == t)
            return true;
    return false;
}

/* The labels of target t that example ex shows and covered does not hold yet. */
static size_t view_gain(const struct cd_result *r, const struct cd_result_example *ex, unsigned t,
                        const uint8_t *covered)
{
    size_t n = 0;
    for (size_t i = 0; i < ex->labels.n; i++) {
        uint32_t id = ex->labels.v[i];
        if (cd_labels_is_outcome(id) || cd_labels_target(id) != t)
            continue;
        size_t li = cd_result_label_index(r, id);
        n += li != SIZE_MAX && !covered[li];
    }
    return n;
}

/* Scratch of one view's choice. */
struct chooser {
    const struct cd_result *r;
    const uint8_t *unneeded; /* per label: no taken example shows it, or an outcome label */
    uint8_t *covered;        /* per label */
    struct view_pick *heap;  /* per example */
};

/* Sets bit t in views on a greedy cover of target t's needed labels by the examples taken. */
static void cover(struct chooser *c, unsigned t, const bool *taken, uint32_t *views)
{
    const struct cd_result *r = c->r;
    memcpy(c->covered, c->unneeded, r->n_labels ? r->n_labels : 1);
    struct view_pick *heap = c->heap;
    size_t n = 0;
    for (size_t i = 0; i < r->n_examples; i++) {
        const struct cd_result_example *ex = &r->examples[i];
        size_t g = taken[i] ? view_gain(r, ex, t, c->covered) : 0;
        if (g)
            heap[n++] = (struct view_pick){(double)g / (double)(ex->len + 1), i};
    }
    for (size_t i = n / 2; i-- > 0;)
        heap_down(heap, n, i);
    /* Lazy greedy: the top is taken when its fresh count still tops the next one's last. */
    while (n) {
        const struct cd_result_example *ex = &r->examples[heap[0].example];
        size_t g = view_gain(r, ex, t, c->covered);
        double gain = (double)g / (double)(ex->len + 1);
        if (!g) {
            heap[0] = heap[--n];
            heap_down(heap, n, 0);
            continue;
        }
        if (gain < heap[0].gain) {
            heap[0].gain = gain;
            heap_down(heap, n, 0);
            continue;
        }
        views[heap[0].example] |= 1u << t;
        for (size_t i = 0; i < ex->labels.n; i++) {
            size_t li = cd_result_label_index(r, ex->labels.v[i]);
            if (li != SIZE_MAX && cd_labels_target(ex->labels.v[i]) == t)
                c->covered[li] = 1;
        }
        heap[0] = heap[--n];
        heap_down(heap, n, 0);
    }
}

/* Target t's view as a weighted set cover (cd_cover_solve) of its needed labels by the examples
 * that run normally on it, found labels optional, with the greedy cover by the taken examples
 * alone (bits t of shared) as the baseline it never weighs more than; sets bit t in views. */
static enum cd_status solve(struct chooser *c, unsigned t, const uint32_t *shared,
                            const struct cd_cover_exact *exact, uint32_t *views,
                            struct cd_error *err)
{
    const struct cd_result *r = c->r;
    size_t total = 0;
    for (size_t i = 0; i < r->n_examples; i++)
        total += r->examples[i].labels.n;
    struct cd_cover_set *sets = calloc(r->n_examples ? r->n_examples : 1, sizeof *sets);
    size_t *example = calloc(r->n_examples ? r->n_examples : 1, sizeof *example);
    bool *chosen = calloc(r->n_examples ? r->n_examples : 1, sizeof *chosen);
    bool *optional = calloc(r->n_labels ? r->n_labels : 1, sizeof *optional);
    uint32_t *items = calloc(total ? total : 1, sizeof *items), *next = items;
    if (!sets || !example || !chosen || !optional || !items) {
        free(sets);
        free(example);
        free(chosen);
        free(optional);
        free(items);
        return cd_error_oom(err, CD_FAILED, "out of memory choosing the targets' seeds");
    }
    for (size_t li = 0; li < r->n_labels; li++)
        optional[li] = r->labels[li].found;
    size_t n = 0;
    for (size_t i = 0; i < r->n_examples; i++) {
        const struct cd_result_example *ex = &r->examples[i];
        if (fails_on(ex, t))
            continue;
        struct cd_cover_set *set = &sets[n];
        *set = (struct cd_cover_set){.weight = ex->len ? ex->len : 1, .items = next,
                                     .baseline = shared[i] >> t & 1};
        for (size_t k = 0; k < ex->labels.n; k++) {
            uint32_t id = ex->labels.v[k];
            size_t li = cd_labels_target(id) == t ? cd_result_label_index(r, id) : SIZE_MAX;
            if (li != SIZE_MAX && !c->unneeded[li])
                next[set->n++] = (uint32_t)li;
        }
        if (set->n) {
            next += set->n;
            example[n++] = i;
        }
    }
    struct cd_cover_stats cs;
    enum cd_status st = cd_cover_solve(sets, n, r->n_labels, optional, exact, chosen, &cs, err);
    for (size_t k = 0; st == CD_OK && k < n; k++)
        if (chosen[k])
            views[example[k]] |= 1u << t;
    free(sets);
    free(example);
    free(chosen);
    free(optional);
    free(items);
    return st;
}

enum cd_status cd_result_choose_views(const struct cd_result *r, const bool *taken,
                                      unsigned n_targets, const struct cd_cover_exact *exact,
                                      uint32_t **views, struct cd_error *err)
{
    *views = NULL;
    if (n_targets <= 1)
        return CD_OK;
    size_t ne = r->n_examples ? r->n_examples : 1, nl = r->n_labels ? r->n_labels : 1;
    uint32_t *v = calloc(ne, sizeof *v), *shared = calloc(ne, sizeof *shared);
    uint8_t *unneeded = malloc(nl);
    struct chooser c = {r, unneeded, calloc(nl, 1), calloc(ne, sizeof *c.heap)};
    enum cd_status st = CD_OK;
    if (!v || !shared || !unneeded || !c.covered || !c.heap) {
        st = cd_error_oom(err, CD_FAILED, "out of memory choosing the targets' seeds");
        goto out;
    }
    /* A view shows what the seeds show of its target: no more (a found label left out of the
       seeds is not worth its bytes in a view either), no less. */
    memset(unneeded, 1, nl);
    for (size_t i = 0; i < r->n_examples; i++)
        for (size_t k = 0; taken[i] && k < r->examples[i].labels.n; k++) {
            uint32_t id = r->examples[i].labels.v[k];
            size_t li = cd_result_label_index(r, id);
            if (li != SIZE_MAX && !cd_labels_is_outcome(id))
                unneeded[li] = 0;
        }
    /* the views share, evenly, what time for an exact solve they were given */
    struct cd_cover_exact each = exact ? *exact : (struct cd_cover_exact){0};
    each.seconds /= n_targets;
    for (unsigned t = 0; t < n_targets && st == CD_OK; t++) {
        cover(&c, t, taken, shared);
        st = solve(&c, t, shared, exact ? &each : NULL, v, err);
    }
out:
    free(shared);
    free(unneeded);
    free(c.covered);
    free(c.heap);
    if (st == CD_OK)
        *views = v;
    else
        free(v);
    return st;
}

struct cd_result_target cd_result_target_counts(const struct cd_result *r, unsigned t)
{
    struct cd_result_target c = {0};
    for (size_t i = 0; i < r->n_labels; i++)
        if (cd_labels_target(r->labels[i].id) == t) {
            c.labels++;
            c.finished += r->labels[i].finished;
            c.bugs += cd_labels_is_bug(r->labels[i].id);
        }
    for (size_t i = 0; i < r->n_examples; i++) {
        const struct cd_result_example *ex = &r->examples[i];
        if (r->views && r->views[i] >> t & 1) {
            c.seeds++;
            c.seed_bytes += ex->len;
        }
        bool mine = false;
        for (size_t k = 0; ex->reproducer && k < ex->labels.n; k++)
            mine |= cd_labels_is_outcome(ex->labels.v[k]) && cd_labels_target(ex->labels.v[k]) == t;
        c.reproducers += mine;
    }
    return c;
}

