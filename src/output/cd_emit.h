/* Emit: writes a distillation result to disk. The seed directory receives only seed files named by
 * the SHA-1 hex of their content (nothing else, so afl-fuzz -i and libFuzzer take it as it is); it
 * is built in a temporary directory beside the target and swapped in whole, so an interrupted run
 * leaves the old or the new corpus complete. Reproducers go to their own directory, each written
 * by temp file + rename. Emit knows nothing of execution or of how the result was found. */
#ifndef CD_EMIT_H
#define CD_EMIT_H

#include "common/cd_common.h"
#include "result/cd_result.h"

/* What an earlier run's manifest says that run owns: the name (last path component) of the seed
 * directory it was written for, and the seed files it lists. Emit learns it through
 * cd_emit_opts.read_owned, from its caller, and knows nothing of the manifest's format. */
struct cd_emit_owned {
    char *seed_dir_base;
    char **seeds;
    size_t n_seeds;
    char **views;         /* names of the other directories it wrote seeds into: a run of */
    size_t n_views;       /* several targets' views of them */
};

/* Frees what o holds and zeroes it. */
void cd_emit_owned_release(struct cd_emit_owned *o);

struct cd_emit_opts {
    const char *seed_dir;      /* the corpus directory (-o) */
    const char *crashes_dir;   /* where reproducers go */
    const char *manifest_path; /* the manifest beside seed_dir: it proves the directory is ours */
    bool force;                /* replace a non-empty directory this tool did not write */
    bool tar;                  /* seed_dir names a .tar.zst archive to write instead of a dir */
    bool seed_dir_is_input;    /* seed_dir is also an input operand of the run: files in it that
                                  its manifest does not list were inputs, and may be replaced */
    const char *state_path;    /* the run's state file beside seed_dir, or NULL: the lock sweeps
                                  its temp files too */
    /* Fills *out (owned: cd_emit_owned_release) with what the manifest at path says it owns;
       false when path holds no readable manifest. NULL: no directory can be proven ours, so only
       an empty one (or --force) is replaced. */
    bool (*read_owned)(const char *path, struct cd_emit_owned *out);
    /* What the seed directory holds, when not the seeds under their SHA-1 (both NULL): keep says
       whether an example goes in; name writes its k-th choice of file name into buf (k = 0,
       which always gives one, then 1, 2, ... while the name is taken) and returns it, or NULL
       when it has no other. */
    bool (*keep)(const struct cd_result_example *ex, void *ctx);
    const char *(*name)(const struct cd_result_example *ex, unsigned k, char *buf, size_t cap,
                        void *ctx);
    void *pick_ctx;
};

/* What was written (or staged). */
struct cd_emit_stats {
    uint64_t seeds, seed_bytes;
    uint64_t reproducers, reproducer_bytes;
};


/* Checks that seed_dir may be replaced: OK when it does not exist, is empty, or force is set, or
 * the manifest at manifest_path names it and it holds only the seed files that manifest lists.
 * A file it does not list (another tool's: libFuzzer writes SHA-1-named finds into its corpus
 * directory) is refused with a one-line message naming how many and one of them, unless
 * seed_dir_is_input, when *unlisted (may be NULL) gets their number. FAILED with a one-line
 * message as well for a foreign non-empty directory or a non-directory, and for a crashes_dir
 * that is a link or no directory (nothing beside the output is followed). With tar set, seed_dir
 * must be missing, or a regular file that the manifest names (or force). If an earlier run was
 * interrupted between the two renames of a swap (seed_dir missing, an old corpus aside), that
 * corpus is put back first. */
enum cd_status cd_emit_check(const struct cd_emit_opts *opts, size_t *unlisted,
                             struct cd_error *err);

/* The lock of one output: ".NAME.lock" beside seed_dir, held (flock) for a whole run. */
struct cd_emit_lock {
    int fd;       /* -1: not held */
    char *path;
};

/* Takes the lock of seed_dir for this process, creating missing parent directories, and removes
 * the temp files that killed runs left beside seed_dir, the manifest and the state file, and in crashes_dir those
 * untouched for ten minutes; FAILED at once, with a one-line message, when another run holds
 * the lock. Release with cd_emit_unlock. */
enum cd_status cd_emit_lock(const struct cd_emit_opts *opts, struct cd_emit_lock *lk,
                            struct cd_error *err);

/* Removes the lock file and releases the lock; a lock not held (fd -1) is a no-op. */
void cd_emit_unlock(struct cd_emit_lock *lk);

/* A new corpus being built beside seed_dir. */
struct cd_emit_stage;

/* Writes every seed of r (not a reproducer, best for at least one coverage label; or what
 * opts->keep keeps, under opts->name's names) into a fresh
 * temporary directory ".NAME.tmp-XXXXXX" beside seed_dir (creating missing parent directories),
 * fsyncing each file and the directory.
 * On success *out is owned: commit it with cd_emit_commit or drop it with cd_emit_abort. */
enum cd_status cd_emit_stage_seeds(struct cd_emit_stage **out, const struct cd_emit_opts *opts,
                                   const struct cd_result *r, struct cd_emit_stats *stats,
                                   struct cd_error *err);

/* Returns the path of the staged directory; valid until commit or abort. */
const char *cd_emit_stage_path(const struct cd_emit_stage *st);

/* Swaps the staged directory in as seed_dir (rechecking cd_emit_check first): one atomic
 * renameat2(RENAME_EXCHANGE) where the file system offers it, else old aside, new in. The old
 * directory is removed when it was ours; one that only force allowed to replace is moved to
 * "NAME.replaced-XXXXXX" beside it, and *replaced (may be NULL) gets that path (owned, else
 * NULL). Frees st in every case; on failure the staged directory is removed and seed_dir is
 * untouched. */
enum cd_status cd_emit_commit(struct cd_emit_stage *st, char **replaced, struct cd_error *err);

/* Removes the staged directory and frees st. NULL is a no-op. */
void cd_emit_abort(struct cd_emit_stage *st);

/* With opts->tar: writes every seed of r into the archive seed_dir (tar, zstd-compressed, entries
 * named by SHA-1 in sha1 order, mtime 0, so the same seeds give the same bytes) by temp file +
 * rename, after cd_emit_check. An existing file is replaced only if the manifest names it or
 * force is set. */
enum cd_status cd_emit_tar(const struct cd_emit_opts *opts, const struct cd_result *r,
                           struct cd_emit_stats *stats, struct cd_error *err);

/* Writes every reproducer of r into crashes_dir (created when there is at least one) as
 * "crash-<sha1>" or "timeout-<sha1>", each by temp file + rename. Existing files stay. */
enum cd_status cd_emit_reproducers(const struct cd_emit_opts *opts, const struct cd_result *r,
                                   struct cd_emit_stats *stats, struct cd_error *err);

#endif
