/* Generations: the outputs a run replaced, kept beside the output in DIR.generations/, one
 * directory each, named by when it was replaced (UTC, "20261128T031500Z"), holding the seeds
 * (seeds/ or seeds.tar.zst), the reproducers (crashes/), manifest.json and state as they were.
 * Files are hard links of the output's own (copied where the file system has none): nothing is
 * rewritten in place, so a link keeps the bytes the night replaced. A generation is made in a
 * hidden temporary directory and renamed into place whole, before anything is replaced; it knows
 * nothing of what the files mean. */
#ifndef CD_GENERATIONS_H
#define CD_GENERATIONS_H

#include "common/cd_common.h"

/* The files of one output; NULL for one the run has not (a state under --no-state). */
struct cd_gen_output {
    const char *seed_dir;       /* the seed directory, or with tar the seed archive */
    bool tar;
    const char *crashes_dir;
    const char *manifest;
    const char *state;
};

/* Keeps the output o as it is now as a new generation in store (created when missing): OK with
 * *name (owned, may be NULL) its name, or OK and *name NULL when o has no manifest (nothing a run
 * of ours wrote) or the newest generation already holds this very manifest (a run killed
 * between keeping and replacing). FAILED with a one-line message, nothing kept. */
enum cd_status cd_generations_keep(const struct cd_gen_output *o, const char *store, char **name,
                                   struct cd_error *err);

/* Removes generation name from store, and store itself when that left it empty: a generation
 * kept for a replacement that then failed (the output it holds is still in place). */
void cd_generations_drop(const char *store, const char *name);

/* Removes all but the newest keep generations of store, and temporary directories killed runs
 * left there; a missing store is no error. */
enum cd_status cd_generations_prune(const char *store, unsigned keep, struct cd_error *err);

/* The generations of store, newest first, into *names (owned, NULL-ended; free each and the
 * array) and *n; a missing store has none. */
enum cd_status cd_generations_list(const char *store, char ***names, size_t *n,
                                   struct cd_error *err);

/* Puts generation name of store back as o: the seeds swapped in whole, the reproducers made the
 * generation's (its own linked back, later ones removed; files of other names stay), then the
 * state and the manifest renamed over theirs (a state the generation lacks is removed). The
 * caller keeps the output it replaces first (cd_generations_keep), later reproducers with it.
 * FAILED with a one-line message; a failure after the seeds were swapped leaves the generation
 * whole, to be put back again. */
enum cd_status cd_generations_restore(const struct cd_gen_output *o, const char *store,
                                      const char *name, struct cd_error *err);

#endif
