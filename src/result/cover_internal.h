/* What the cover's own files share (cover.c: the greedy cover and its bounds; cover_exact.c: the
 * integer program). Nothing outside cover*.c includes this. */
#ifndef CD_COVER_INTERNAL_H
#define CD_COVER_INTERNAL_H

#include "cd_cover.h"

/* What an exact solve came to. */
struct cover_exact_result {
    uint64_t lp_bound; /* the linear relaxation's optimum, rounded up (0: not solved) */
    uint64_t bound;    /* the solver's best bound on the optimum (0: none) */
    bool proven;       /* the cover it chose is optimal */
    uint64_t ms;       /* wall time of the solve */
};

/* Solves the cover of the required items (every item unless optional says otherwise) exactly,
 * from the sets chosen (a cover of them, the solver's first solution), within opts's time and
 * stop flag. Returns 0 with chosen replaced by the solver's sets (unchecked: a proposal), or -1
 * with chosen unspecified when no solution came back (res still holds the LP bound if it did). */
int cover_exact(const struct cd_cover_set *sets, size_t n_sets, size_t universe,
                const bool *optional, const struct cd_cover_exact *opts, bool *chosen,
                struct cover_exact_result *res);

#endif
