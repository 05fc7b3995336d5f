/* The reducer's driver: runs the passes of the registry (reduce_passes.c) over one example in
 * rounds until a round adopts nothing. A round runs every deleting pass once, ordered by what
 * they earned so far (bytes removed or successes per execution), the registry's order on ties,
 * with the short-candidate passes first on a long example; the lowering passes only in a round
 * that deleted nothing. A round used to start again from the first pass after any success: every
 * small cut late in the order then paid for a sweep of every pass before it, and a pass whose
 * first candidates failed sank to where it was hardly ever reached (on Lua, the lines pass ran
 * 18,068 candidates in 15 minutes; with whole rounds, 1.0 million, removing the most bytes of
 * all; tools/bench/FINDINGS.md, whole rounds). It sees the caller only through the predicate and
 * the stop check. */
#include "reduce_internal.h"

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

bool cd_reduce_binary(const struct cd_reduce_run *r)
{
    return r->len && memchr(r->cur, 0, r->len);
}

bool cd_reduce_try_delete(struct cd_reduce_run *r, size_t i, size_t n)
{
    if (n == 0 || i >= r->len || n > r->len - i)
        return false;
    memcpy(r->cand, r->cur, i);
    memcpy(r->cand + i, r->cur + i + n, r->len - i - n);
    return cd_reduce_try(r, r->len - n);
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
    bool la = cd_reduce_passes[a].kind == CD_PASS_LOWER;
    bool lb = cd_reduce_passes[b].kind == CD_PASS_LOWER;
    if (la != lb)
        return lb;
    return yield_of(&red->stats[a], la) > yield_of(&red->stats[b], lb);
}

/* Moves the passes that front puts ahead to the head of order[0..n), in their order. */
static void to_front(unsigned order[CD_REDUCE_PASSES_MAX], unsigned n, enum cd_reduce_front front)
{
    for (unsigned i = 0, head = 0; i < n; i++)
        if (cd_reduce_passes[order[i]].front == front) {
            unsigned p = order[i];
            memmove(&order[head + 1], &order[head], (i - head) * sizeof order[0]);
            order[head++] = p;
        }
}

/* Orders the passes: deletions first, then by yield, stable over the default order. */
static void order_passes(const struct cd_reducer *red, unsigned order[CD_REDUCE_PASSES_MAX])
{
    for (unsigned p = 0; p < cd_reduce_n_passes(); p++) {
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
                              bool *changed, bool *stopped, struct cd_error *err)
{
    struct cd_reduce_run r = {.target = target, .len = len, .cap = len};
    *out = NULL;
    *out_len = 0;
    *changed = false;
    if (stopped)
        *stopped = false;
    r.cur = malloc(len ? len : 1);
    r.cand = malloc(len ? len : 1);
    if (!r.cur || !r.cand) {
        free(r.cur);
        free(r.cand);
        return cd_error_oom(err, CD_FAILED, "out of memory reducing a %zu-byte example", len);
    }
    if (len)
        memcpy(r.cur, data, len);
    for (;;) {
        unsigned order[CD_REDUCE_PASSES_MAX], n = cd_reduce_n_passes();
        bool round = false;
        order_passes(red, order);
        if (target->coarse_first)
            to_front(order, n, CD_FRONT_COARSE);
        if (r.len >= CD_REDUCE_LONG)
            to_front(order, n, CD_FRONT_LONG);
        for (unsigned i = 0; i < n && !r.stopped && r.len; i++) {
            const struct cd_reduce_pass_def *pass = &cd_reduce_passes[order[i]];
            if (pass->kind == CD_PASS_LOWER &&
                (round || target->deletions_only || r.len > CD_REDUCE_LOWER_MAX))
                continue; /* lowering only once a whole round deleted nothing */
            if (pass->text && cd_reduce_binary(&r))
                continue; /* no text structure to find */
            r.stats = &red->stats[order[i]];
            round |= pass->fn(&r);
        }
        *changed |= round;
        if (r.stopped || !round || r.len == 0)
            break;
    }
    free(r.cand);
    *out = r.cur;
    *out_len = r.len;
    if (stopped)
        *stopped = r.stopped;
    return CD_OK;
}
