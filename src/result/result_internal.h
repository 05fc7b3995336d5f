/* What the result's files share among themselves: the label lookup and the choice of the
 * targets' views, made by seed selection (result.c) before it drops the examples no seed keeps. */
#ifndef CD_RESULT_INTERNAL_H
#define CD_RESULT_INTERNAL_H

#include "cd_result.h"

/* The index of label id in r->labels, or SIZE_MAX when r has no such label. */
size_t cd_result_label_index(const struct cd_result *r, uint32_t id);

/* With several targets (n_targets > 1), fills *views (owned, r->n_examples entries) with each
 * target's view: a bit per target on examples that run normally on that target (no outcome
 * label of it) and together show every coverage label of that target the taken examples show,
 * found labels only where worth their bytes. A view is a weighted set cover (cd_cover_solve,
 * exact within an even share of exact's seconds) over every such example, so that a harness's view
 * draws on its own labels' best examples as a run of it alone would, with the greedy cover by the
 * taken examples alone as its baseline: never heavier than a view of the shared seeds. One
 * target: *views is NULL. FAILED when out of memory. */
struct cd_cover_exact;
enum cd_status cd_result_choose_views(const struct cd_result *r, const bool *taken,
                                      unsigned n_targets, const struct cd_cover_exact *exact,
                                      uint32_t **views, struct cd_error *err);

#endif
