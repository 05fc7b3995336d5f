/* Weighted set cover for seed selection (cd_cover_solve): lazy greedy by bytes per newly covered
 * label, pruning of sets the later picks made redundant, the baseline completed the same way as a
 * ceiling, and a lower bound from the sets every cover needs plus dual prices for the rest. It
 * knows nothing of examples or labels beyond weights and dense indices. */
#include "cover_internal.h"

#include <stdlib.h>
#include <string.h>

/* A heap entry: a set and the gain (uncovered items) it had when pushed. */
struct entry {
    size_t set;
    uint64_t gain;
};

struct solver {
    const struct cd_cover_set *sets;
    size_t n_sets, universe;
    const bool *optional; /* per item, or NULL: none */
    bool bonus;           /* the phase: gains count optional items, else required ones */
    uint32_t *count;   /* per item: chosen sets showing it */
    struct entry *heap;
    size_t n_heap;
};

/* Whether a is a better pick than b: more gain per byte, then the lower index. */
static bool better(const struct solver *s, const struct entry *a, const struct entry *b)
{
    uint64_t x = a->gain * s->sets[b->set].weight, y = b->gain * s->sets[a->set].weight;
    return x != y ? x > y : a->set < b->set;
}

static void sift_up(struct solver *s, size_t i)
{
    while (i > 0 && better(s, &s->heap[i], &s->heap[(i - 1) / 2])) {
        struct entry t = s->heap[i];
        s->heap[i] = s->heap[(i - 1) / 2];
        s->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static void sift_down(struct solver *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n_heap && better(s, &s->heap[l], &s->heap[m]))
            m = l;
        if (r < s->n_heap && better(s, &s->heap[r], &s->heap[m]))
            m = r;
        if (m == i)
            return;
        struct entry t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

static bool is_optional(const struct solver *s, uint32_t item)
{
    return s->optional && s->optional[item];
}

/* Items of set no chosen set shows yet, of the phase's kind. */
static uint64_t gain_of(const struct solver *s, size_t set)
{
    uint64_t g = 0;
    for (size_t k = 0; k < s->sets[set].n; k++) {
        uint32_t u = s->sets[set].items[k];
        g += s->count[u] == 0 && is_optional(s, u) == s->bonus;
    }
    return g;
}

static void take(struct solver *s, bool *chosen, size_t set)
{
    chosen[set] = true;
    for (size_t k = 0; k < s->sets[set].n; k++)
        s->count[s->sets[set].items[k]]++;
}

/* What the bonus phase may take: a set whose weight per new item is at most price_bytes /
 * price_items, while the chosen weight (bytes) stays within cap. */
struct budget {
    uint64_t price_bytes, price_items, bytes, cap;
};

/* Completes the chosen sets (their items counted) to a cover of the phase's items, lazily: a
 * popped set whose gain shrank since it was pushed goes back with its new gain unless it still
 * beats the next one. With a budget (the bonus phase), only sets within it are taken. */
static void greedy(struct solver *s, bool *chosen, struct budget *b)
{
    s->n_heap = 0;
    for (size_t i = 0; i < s->n_sets; i++) {
        uint64_t g = chosen[i] ? 0 : gain_of(s, i);
        if (g) {
            s->heap[s->n_heap] = (struct entry){i, g};
            sift_up(s, s->n_heap++);
        }
    }
    while (s->n_heap) {
        struct entry top = s->heap[0];
        s->heap[0] = s->heap[--s->n_heap];
        sift_down(s, 0);
        top.gain = gain_of(s, top.set);
        if (!top.gain)
            continue;
        if (s->n_heap && better(s, &s->heap[0], &top)) {
            s->heap[s->n_heap] = top;
            sift_up(s, s->n_heap++);
            continue;
        }
        if (b) {
            uint64_t w = s->sets[top.set].weight;
            /* The best ratio left is over the price: so is every other. */
            if ((unsigned __int128)w * b->price_items > (unsigned __int128)b->price_bytes * top.gain)
                return;
            if (w > b->cap - b->bytes)
                continue;
            b->bytes += w;
        }
        take(s, chosen, top.set);
    }
}

/* Drops chosen sets, heaviest first, whose every required item another chosen set shows too.
 * Returns the weight of what stays. order is scratch for n_sets indices. */
static uint64_t prune(struct solver *s, bool *chosen, size_t *order)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_sets; i++)
        if (chosen[i])
            order[n++] = i;
    /* Insertion sort by weight, heaviest first, index order on ties: n is the seed count. */
    for (size_t i = 1; i < n; i++) {
        size_t x = order[i], j = i;
        while (j > 0 && s->sets[order[j - 1]].weight < s->sets[x].weight) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cd_cover_set *set = &s->sets[order[i]];
        bool needed = false;
        for (size_t k = 0; k < set->n && !needed; k++)
            needed = s->count[set->items[k]] < 2 && !is_optional(s, set->items[k]);
        if (needed) {
            bytes += set->weight;
            continue;
        }
        chosen[order[i]] = false;
        for (size_t k = 0; k < set->n; k++)
            s->count[set->items[k]]--;
    }
    return bytes;
}

/* Greedy cover of the required items from the chosen sets given (their items not yet counted),
 * then pruned. */
static uint64_t cover_from(struct solver *s, bool *chosen, size_t *order)
{
    memset(s->count, 0, s->universe * sizeof *s->count);
    for (size_t i = 0; i < s->n_sets; i++)
        if (chosen[i]) {
            chosen[i] = false;
            take(s, chosen, i);
        }
    greedy(s, chosen, NULL);
    return prune(s, chosen, order);
}

/* The lower bound of a cover of the required items: sets alone in showing some item are in every
 * cover; each item they leave is priced at the least share of a set's weight per remaining item it
 * shows (a feasible dual of the cover's linear relaxation), and the prices summed. shows is
 * scratch for universe counts. */
static uint64_t lower_bound(const struct solver *s, uint32_t *shows, bool *essential,
                            double *price)
{
    memset(shows, 0, s->universe * sizeof *shows);
    for (size_t i = 0; i < s->n_sets; i++)
        for (size_t k = 0; k < s->sets[i].n; k++)
            if (!is_optional(s, s->sets[i].items[k]))
                shows[s->sets[i].items[k]]++;
    uint64_t bound = 0;
    for (size_t i = 0; i < s->n_sets; i++) {
        essential[i] = false;
        for (size_t k = 0; k < s->sets[i].n && !essential[i]; k++)
            essential[i] = shows[s->sets[i].items[k]] == 1;
    }
    /* shows becomes: 1 for an item left to price, 0 for one an essential set covers or none shows. */
    for (size_t i = 0; i < s->n_sets; i++)
        if (essential[i]) {
            bound += s->sets[i].weight;
            for (size_t k = 0; k < s->sets[i].n; k++)
                shows[s->sets[i].items[k]] = 0;
        }
    for (size_t u = 0; u < s->universe; u++) {
        shows[u] = shows[u] != 0;
        price[u] = -1;
    }
    for (size_t i = 0; i < s->n_sets; i++) {
        if (essential[i])
            continue;
        size_t left = 0;
        for (size_t k = 0; k < s->sets[i].n; k++)
            left += shows[s->sets[i].items[k]];
        if (!left)
            continue;
        double share = (double)s->sets[i].weight / (double)left;
        for (size_t k = 0; k < s->sets[i].n; k++) {
            uint32_t u = s->sets[i].items[k];
            if (shows[u] && (price[u] < 0 || share < price[u]))
                price[u] = share;
        }
    }
    double sum = 0;
    for (size_t u = 0; u < s->universe; u++)
        if (price[u] > 0)
            sum += price[u];
    /* Weights are integers, so the optimum is one at least the dual's exact sum: rounding up what
       rounding errors left just below an integer stays under it. */
    return bound + (uint64_t)(sum + 1e-6);
}

/* Adds, to the required cover chosen, the sets worth their bytes for optional items (see
 * cd_cover_solve); returns the chosen weight. */
static uint64_t add_bonus(struct solver *s, bool *chosen, uint64_t bytes, uint64_t cap)
{
    memset(s->count, 0, s->universe * sizeof *s->count);
    uint64_t required = 0;
    for (size_t i = 0; i < s->n_sets; i++)
        for (size_t k = 0; k < s->sets[i].n; k++)
            if (!is_optional(s, s->sets[i].items[k]) && !s->count[s->sets[i].items[k]]++)
                required++;
    memset(s->count, 0, s->universe * sizeof *s->count);
    for (size_t i = 0; i < s->n_sets; i++)
        if (chosen[i]) {
            chosen[i] = false;
            take(s, chosen, i);
        }
    if (!required)
        return bytes;
    /* Found items take at most a tenth of the required cover's bytes on top of it. */
    uint64_t room = bytes / CD_COVER_OPTIONAL_SHARE;
    if (cap > bytes + room)
        cap = bytes + room;
    struct budget b = {bytes, required, bytes, cap > bytes ? cap : bytes};
    s->bonus = true;
    greedy(s, chosen, &b);
    s->bonus = false;
    return b.bytes;
}

/* Replaces the required cover chosen (of weight stats->bytes) by the exact solver's where that
 * weighs less once checked: completed greedily and pruned as any cover is here, so that a
 * solver's answer never leaves an item uncovered. alt is scratch for n_sets flags. */
static void solve_exactly(struct solver *s, const struct cd_cover_exact *exact, bool *chosen,
                          bool *alt, size_t *order, struct cd_cover_stats *stats)
{
    struct cover_exact_result res;
    memcpy(alt, chosen, s->n_sets * sizeof *alt);
    int rc = cover_exact(s->sets, s->n_sets, s->universe, s->optional, exact, alt, &res);
    stats->solve_ms = res.ms;
    stats->lp_bound = res.lp_bound;
    if (res.bound > stats->bound)
        stats->bound = res.bound;
    if (res.lp_bound > stats->bound)
        stats->bound = res.lp_bound;
    if (rc != 0) {
        stats->solver = CD_COVER_FAILED;
        return;
    }
    uint64_t bytes = cover_from(s, alt, order);
    stats->solver = res.proven ? CD_COVER_OPTIMAL : CD_COVER_CAPPED;
    if (bytes < stats->bytes) {
        memcpy(chosen, alt, s->n_sets * sizeof *chosen);
        stats->bytes = bytes;
    }
    /* A bound past the cover kept would be the solver's error: only the greedy bound stands. */
    if (stats->bound > stats->bytes) {
        stats->bound = stats->lp_bound = 0;
        stats->solver = CD_COVER_FAILED;
    }
}

enum cd_status cd_cover_solve(const struct cd_cover_set *sets, size_t n_sets, size_t universe,
                              const bool *optional, const struct cd_cover_exact *exact,
                              bool *chosen, struct cd_cover_stats *stats, struct cd_error *err)
{
    enum cd_status st = CD_OK;
    struct solver s = {.sets = sets, .n_sets = n_sets, .universe = universe, .optional = optional};
    size_t cap = n_sets ? n_sets : 1, ucap = universe ? universe : 1;
    bool *alt = calloc(cap, sizeof *alt), *essential = calloc(cap, sizeof *essential);
    size_t *order = calloc(cap, sizeof *order);
    double *price = calloc(ucap, sizeof *price);
    s.count = calloc(ucap, sizeof *s.count);
    s.heap = calloc(cap, sizeof *s.heap);
    memset(stats, 0, sizeof *stats);
    if (!alt || !essential || !order || !price || !s.count || !s.heap) {
        st = cd_error_oom(err, CD_FAILED, "out of memory choosing the seeds");
        goto out;
    }
    for (size_t i = 0; i < n_sets; i++)
        chosen[i] = false;
    stats->bytes = cover_from(&s, chosen, order);
    bool any_baseline = false;
    for (size_t i = 0; i < n_sets; i++) {
        alt[i] = sets[i].baseline;
        any_baseline |= alt[i];
        if (alt[i])
            stats->baseline_bytes += sets[i].weight;
    }
    if (any_baseline) {
        uint64_t b = cover_from(&s, alt, order);
        if (b < stats->bytes) {
            memcpy(chosen, alt, n_sets * sizeof *chosen);
            stats->bytes = b;
        }
    }
    stats->bound = lower_bound(&s, s.count, essential, price);
    stats->greedy_bytes = stats->bytes;
    bool stopped = exact && exact->stop && *exact->stop;
    if (exact && exact->seconds > 0 && n_sets && !stopped)
        solve_exactly(&s, exact, chosen, alt, order, stats);
    if (exact && exact->seconds > 0 && n_sets && exact->stop && *exact->stop &&
        stats->solver != CD_COVER_OPTIMAL)
        stats->solver = CD_COVER_STOPPED; /* asked for, and cut short: not the user's greedy */
    stats->required_bytes = stats->bytes;
    if (optional)
        stats->bytes = add_bonus(&s, chosen, stats->bytes,
                                 any_baseline ? stats->baseline_bytes : UINT64_MAX);
    for (size_t i = 0; i < n_sets; i++)
        stats->chosen += chosen[i];
    /* Items: every one some set shows, and the optional ones the chosen sets leave out. */
    memset(s.count, 0, ucap * sizeof *s.count);
    for (size_t i = 0; i < n_sets; i++)
        for (size_t k = 0; k < sets[i].n; k++)
            s.count[sets[i].items[k]] = chosen[i] ? 2 : s.count[sets[i].items[k]] | 1;
    for (size_t u = 0; u < universe; u++) {
        stats->items += s.count[u] != 0;
        stats->left_out += s.count[u] == 1;
    }
out:
    free(alt);
    free(essential);
    free(order);
    free(price);
    free(s.count);
    free(s.heap);
    return st;
}
