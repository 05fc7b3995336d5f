/* Test-case reduction on raw bytes: passes that propose strictly shortlex-smaller candidates
 * (deletions, byte lowering) and keep those a predicate accepts, until no pass finds anything.
 * The reducer sees the rest of the program only through its predicate and stop check: it knows
 * nothing of tables, labels or execution. The passes themselves, and what only they and their
 * tests need, are in src/reduce/reduce_internal.h. */
#ifndef CD_REDUCE_H
#define CD_REDUCE_H

#include "common/cd_common.h"

/* What the reducer reduces for. */
struct cd_reduce_target {
    /* True when cand (len bytes, borrowed for the call) is interesting: the reducer adopts it. */
    bool (*pred)(void *ctx, const uint8_t *cand, size_t len);
    /* True when the reduction must end now (budget, signal); checked before every candidate.
     * May be NULL. */
    bool (*stop)(void *ctx);
    void *ctx;
    bool deletions_only;   /* skip the lowering passes */
    bool coarse_first;     /* each round starts with the coarse (blocks) pass: big cuts first */
};

/* Room for this many passes in a reducer's counters (the registry holds at most as many). */
#define CD_REDUCE_PASSES_MAX 32

/* Counters of one pass. */
struct cd_reduce_stats {
    uint64_t execs;        /* candidates tested */
    uint64_t successes;    /* candidates adopted */
    uint64_t bytes_removed;
};

/* Returns how many passes there are: pass numbers run from 0 to this, in default order. */
unsigned cd_reduce_n_passes(void);

/* Returns the short name ("lines", "blocks", ...) of pass number i, "?" past the last. */
const char *cd_reduce_pass_name(unsigned i);

/* A reducer: counters per pass number, which also order the passes: deleting passes before
 * lowering ones, deleting passes by bytes removed per execution and lowering ones by successes
 * per execution (the default order breaks ties). Zero-initialise, then use; nothing to release. */
struct cd_reducer {
    struct cd_reduce_stats stats[CD_REDUCE_PASSES_MAX];
};

/* Reduces the len bytes at data under target until no pass adopts anything, or the stop check
 * fires. It runs rounds of every deleting pass once, in yield order (on a long example the
 * short-candidate passes first); the costly lowering passes run only in a round that deleted
 * nothing. On return *out (owned, free with free()) and *out_len hold
 * the reduced example (equal to the input when nothing was adopted), *changed whether anything
 * was, and *stopped (when not NULL) whether the stop check ended it before a fixpoint. OK, or
 * FAILED when out of memory. */
enum cd_status cd_reducer_run(struct cd_reducer *red, const struct cd_reduce_target *target,
                              const uint8_t *data, size_t len, uint8_t **out, size_t *out_len,
                              bool *changed, bool *stopped, struct cd_error *err);

#endif
