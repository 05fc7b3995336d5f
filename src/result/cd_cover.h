/* Seed selection as weighted set cover: which examples (sets of labels, weighed in bytes) to keep
 * so that every label some example shows stays shown, at as few bytes as can be found. Greedy by
 * bytes per newly covered label, then examples made redundant by later picks are dropped; a lower
 * bound on any cover's bytes (the examples every cover needs, plus a dual price for the rest, as
 * MoonLight and OptiMin report one) says how far from the best the choice can be. A baseline (the
 * select-only output, or the last cover) bounds the result: the chosen cover never weighs more than
 * the baseline plus a greedy cover of the required labels the baseline lacks. Optional labels (a
 * bonus: found during reduction, shown by no input) are covered only where worth their bytes. It
 * knows labels only as dense indices. */
#ifndef CD_COVER_H
#define CD_COVER_H

#include "common/cd_common.h"

#include <signal.h>

/* Optional items' sets take at most 1/CD_COVER_OPTIONAL_SHARE of the required cover's weight on
 * top of it: without a share, a corpus of large files (a high price per required item) would
 * spend on cut copies showing optional items all that reduction saves. */
#define CD_COVER_OPTIONAL_SHARE 10

/* One example: its weight (bytes, at least 1) and the dense indices of the labels it shows. */
struct cd_cover_set {
    uint64_t weight;
    const uint32_t *items;  /* indices below the universe size; borrowed for the call */
    size_t n;
    bool baseline;          /* part of the baseline cover */
};

/* How the cover of the required items may be solved exactly: an integer program (CBC, its linear
 * relaxation by Clp) in a child process, from the greedy cover, within seconds of wall time (0:
 * the greedy cover alone), given up within 0.1 s once *stop (may be NULL) turns non-zero. */
struct cd_cover_exact {
    double seconds;
    const volatile sig_atomic_t *stop;
};

/* How the required cover was chosen. */
enum cd_cover_solver {
    CD_COVER_GREEDY,  /* greedy only: no exact solve asked for */
    CD_COVER_OPTIMAL, /* the solver proved its cover optimal */
    CD_COVER_CAPPED,  /* the solver's best cover within the time, and its bound */
    CD_COVER_FAILED,  /* the solver gave nothing back (time, memory): greedy */
    CD_COVER_STOPPED, /* a stop (Ctrl-C, a signal) came before the exact solve ended: greedy, or
                         the solver's best so far */
};

/* What the cover came to. */
struct cd_cover_stats {
    uint64_t bytes;          /* weight of the chosen sets */
    uint64_t required_bytes; /* of which the cover of the required items */
    uint64_t bound;          /* no cover of the same required items by these sets weighs less */
    uint64_t lp_bound;       /* the linear relaxation's optimum, rounded up (0: not solved) */
    uint64_t greedy_bytes;   /* the required cover before the exact solve (greedy, or the
                                baseline completed) */
    enum cd_cover_solver solver;
    uint64_t solve_ms;       /* wall time of the exact solve */
    uint64_t baseline_bytes; /* weight of the baseline sets (0 without a baseline) */
    size_t chosen;           /* sets chosen */
    size_t items;            /* every item some set shows */
    size_t left_out;         /* optional items some set shows that no chosen set does */
};

/* Chooses sets covering every required item some set shows; chosen[i] (n_sets entries, written)
 * tells whether set i is taken. Deterministic: ties go to the lower index. With baseline sets, the
 * required cover is the lighter of the greedy cover and the baseline completed greedily; with
 * exact (NULL: none), the solver's cover instead where it weighs less, and its bounds. Then,
 * with optional (universe flags; NULL: every item is required), sets are added for optional items
 * greedily while each adds no more bytes per new optional item than the required cover spends per
 * required item, while together they weigh at most a tenth of the required cover
 * (CD_COVER_OPTIONAL_SHARE), and, with baseline sets, while the whole stays within the baseline's
 * weight: a cover recomputed with the last one as baseline never grows. FAILED only when out of
 * memory. */
enum cd_status cd_cover_solve(const struct cd_cover_set *sets, size_t n_sets, size_t universe,
                              const bool *optional, const struct cd_cover_exact *exact,
                              bool *chosen, struct cd_cover_stats *stats, struct cd_error *err);

#endif
