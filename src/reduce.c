/* The reducer's driver: runs the passes (reduce_prefix.c, reduce_markup.c, reduce_delete.c,
 * reduce_lower.c, reduce_checked.c) over one example until none adopts anything, ordering them by
 * what they earned so far (bytes removed or successes per execution), cheap passes first on ties,
 * and starting again from the first after any success.
 * It sees the caller only through the predicate and the stop check. */
#include "cd_reduce.h"

#include <stdlib.h>
#include <string.h>

bool cd_reduce_try(struct cd_reduce_run *r, size_t len)
{
    if (r->stopped)
        return false;
    const struct cd_reduce_target *t = r->target;
    if (t->stop && t->stop(t->ctx)) {
        r->stopped = true;
        return false;
    }
    r->stats->execs++;
    if (!t->pred(t->ctx, r->cand, len))
        return false;
    r->stats->successes++;
    r->stats->bytes_removed += r->len - len;
    uint8_t *old = r->cur;
    r->cur = r->cand;
    r->cand = old;
    r->len = len;
    return true;
}

const char *cd_reduce_pass_name(enum cd_reduce_pass pass)
{
    static const char *const names[CD_REDUCE_NPASSES] = {
        [CD_REDUCE_PREFIX] = "prefix",   [CD_REDUCE_LINES] = "lines",
        [CD_REDUCE_ELEMENTS] = "elements", [CD_REDUCE_KINDS] = "kinds",
        [CD_REDUCE_BRACKETS] = "brackets",
        [CD_REDUCE_ITEMS] = "items",     [CD_REDUCE_HOIST] = "hoist",
        [CD_REDUCE_SPACES] = "spaces",   [CD_REDUCE_WORDS] = "words",
        [CD_REDUCE_CHUNKS] = "chunks",   [CD_REDUCE_CHECKED] = "checked",
        [CD_REDUCE_LENGTHS] = "lengths", [CD_REDUCE_DIGITS] = "digits",
        [CD_REDUCE_BLOCKS] = "blocks",   [CD_REDUCE_BYTES] = "bytes",
        [CD_REDUCE_PAIRS] = "pairs",
    };
    return (unsigned)pass < CD_REDUCE_NPASSES ? names[pass] : "?";
}

static const cd_reduce_pass_fn_t pass_fn[CD_REDUCE_NPASSES] = {
    [CD_REDUCE_PREFIX] = cd_reduce_prefix,   [CD_REDUCE_LINES] = cd_reduce_lines,
    [CD_REDUCE_ELEMENTS] = cd_reduce_elements, [CD_REDUCE_KINDS] = cd_reduce_kinds,
    [CD_REDUCE_BRACKETS] = cd_reduce_brackets,
    [CD_REDUCE_ITEMS] = cd_reduce_items,     [CD_REDUCE_HOIST] = cd_reduce_hoist,
    [CD_REDUCE_SPACES] = cd_reduce_spaces,   [CD_REDUCE_WORDS] = cd_reduce_words,
    [CD_REDUCE_CHUNKS] = cd_reduce_chunks,   [CD_REDUCE_CHECKED] = cd_reduce_checked,
    [CD_REDUCE_LENGTHS] = cd_reduce_lengths, [CD_REDUCE_DIGITS] = cd_reduce_digits,
    [CD_REDUCE_BLOCKS] = cd_reduce_blocks,   [CD_REDUCE_BYTES] = cd_reduce_bytes,
    [CD_REDUCE_PAIRS] = cd_reduce_pairs,
};

cd_reduce_pass_fn_t cd_reduce_pass_fn(enum cd_reduce_pass pass)
{
    return (unsigned)pass < CD_REDUCE_NPASSES ? pass_fn[pass] : NULL;
}

/* Bytes removed per execution for deleting passes, successes per execution for lowering ones,
 * each with one of prior, so that untried passes start equal and keep the default order. Many
 * small successes (a digit at a time) must not put a pass ahead of one that removes lines. A
 * stronger prior (8 candidates at 8 bytes each) kept the elements pass from falling behind after
 * its first failures, but changed which minima runs reach and made a rerun on its own output
 * differ from it (e2e.cli_exit_codes), with no measured gain on libxml2. */
static double yield_of(const struct cd_reduce_stats *s, bool lowering)
{
    return (double)((lowering ? s->successes : s->bytes_removed) + 1) / (double)(s->execs + 1);
}

/* Deleting passes come before lowering ones whatever their yields: a lowering success keeps the
 * length, and lowering a long example costs executions per byte that a deletion saves. */
static bool before(const struct cd_reducer *red, unsigned a, unsigned b)
{
    bool la = a >= CD_REDUCE_BYTES, lb = b >= CD_REDUCE_BYTES;
    if (la != lb)
        return lb;
    return yield_of(&red->stats[a], la) > yield_of(&red->stats[b], lb);
}

/* Orders the passes: deletions first, then by yield, stable over the default order. */
static void order_passes(const struct cd_reducer *red, unsigned order[CD_REDUCE_NPASSES])
{
    for (unsigned p = 0; p < CD_REDUCE_NPASSES; p++) {
        unsigned j = p;
        while (j > 0 && before(red, p, order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = p;
    }
}

enum cd_status cd_reducer_run(struct cd_reducer *red, const struct cd_reduce_target *target,
                              const uint8_t *data, size_t len, uint8_t **out, size_t *out_len,
                              bool *changed, struct cd_error *err)
{
    struct cd_reduce_run r = {.target = target, .len = len, .cap = len};
    *out = NULL;
    *out_len = 0;
    *changed = false;
    r.cur = malloc(len ? len : 1);
    r.cand = malloc(len ? len : 1);
    if (!r.cur || !r.cand) {
        free(r.cur);
        free(r.cand);
        return cd_error_set(err, CD_FAILED, "out of memory reducing a %zu-byte example", len);
    }
    if (len)
        memcpy(r.cur, data, len);
    for (;;) {
        unsigned order[CD_REDUCE_NPASSES];
        bool round = false;
        order_passes(red, order);
        if (target->coarse_first) { /* the blocks pass to the front */
            unsigned i = 0;
            while (order[i] != CD_REDUCE_BLOCKS)
                i++;
            memmove(&order[1], &order[0], i * sizeof order[0]);
            order[0] = CD_REDUCE_BLOCKS;
        }
        for (unsigned i = 0; i < CD_REDUCE_NPASSES && !r.stopped && !round; i++) {
            if (order[i] >= CD_REDUCE_BYTES &&
                (target->deletions_only || r.len > CD_REDUCE_LOWER_MAX))
                continue;
            r.stats = &red->stats[order[i]];
            round = pass_fn[order[i]](&r);
        }
        *changed |= round;
        if (r.stopped || !round || r.len == 0)
            break;
    }
    free(r.cand);
    *out = r.cur;
    *out_len = r.len;
    return r.stopped ? CD_WARN : CD_OK;
}
