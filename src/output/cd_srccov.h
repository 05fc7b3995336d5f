/* Source coverage of seeds: which functions and lines of the program each seed reaches, measured
 * on a clang coverage build of the target (-fprofile-instr-generate -fcoverage-mapping, as
 * OSS-Fuzz builds its coverage reports). Each seed runs once with LLVM_PROFILE_FILE set; its
 * profile is merged by llvm-profdata and exported by llvm-cov, both from Debian's LLVM. The
 * record is kept beside the manifest (cd_srccov_save) and refreshed seed by seed. */
#ifndef CD_SRCCOV_H
#define CD_SRCCOV_H

#include "common/cd_common.h"

/* A function of the program: its name as llvm-cov gives it ("file.c:name" for a static one),
 * the index of its file and the line it starts on. */
struct cd_srccov_fn {
    char *name;
    uint32_t file;
    uint32_t line;
};

/* A branch direction: the branch's file index, line and number within the line (llvm-cov's block
 * and branch), and which way (0: true, 1: false). */
struct cd_srccov_branch {
    uint32_t file, line, block, dir;
};

/* What one seed (or reproducer) reaches: indices into the record's functions, per file (in the
 * record's file order) the sorted lines it executes, and indices into the record's branch
 * directions it takes. measured is false when its run left no profile (it crashed or hung): it
 * then reaches nothing as far as the record knows. */
struct cd_srccov_seed {
    char sha1[41];
    uint64_t size;
    bool measured;
    uint32_t *fns;
    size_t n_fns;
    uint32_t **lines;       /* lines[f]: n_lines[f] line numbers of file f */
    size_t *n_lines;
    uint32_t *brs;          /* sorted */
    size_t n_brs;
};

/* The record: the coverage binary's SHA-1, the program's files, functions, instrumented lines
 * (per file, sorted) and branch directions, and the seeds measured so far. Zero-initialise, then
 * load or measure; release with cd_srccov_release. */
struct cd_srccov {
    char binary_sha1[41];
    char **files;
    size_t n_files;
    struct cd_srccov_fn *fns;
    size_t n_fns;
    uint32_t **lines;       /* every instrumented line of file f, sorted */
    size_t *n_lines;
    struct cd_srccov_branch *branches; /* every branch direction, sorted */
    size_t n_branches;
    struct cd_srccov_seed *seeds;
    size_t n_seeds;
    /* files is what an export of the coverage build listed in this process (learned from one,
       or checked against one by cd_srccov_check_files), not only what a record says: only then
       may a report read the files at those paths. Never saved. */
    bool files_checked;
};

/* Runs the coverage build argv (its "@@" replaced by seed_path; no "@@": the seed on stdin) on
 * one seed, killing it after timeout_ms, and reads what it reaches into *s (zeroed, its sha1 and
 * size set by the caller; measured when the run left a profile: a seed that crashes or hangs
 * leaves none). work is a private directory for the profiles. When c does not know the program
 * yet (no files), it learns it from this seed's export, so c is written: measure that seed
 * alone. Otherwise c is only read, and several threads may measure at once. FAILED when
 * llvm-profdata or llvm-cov fail (the message names the step) or memory runs out. */
enum cd_status cd_srccov_measure_seed(struct cd_srccov *c, char *const *argv,
                                      const char *seed_path, unsigned timeout_ms,
                                      const char *work, struct cd_srccov_seed *s,
                                      struct cd_error *err);

/* Runs the coverage build argv on the empty file at empty_path and sets c->files_checked when
 * its export lists exactly c's files (a run that leaves no profile checks nothing). FAILED as
 * cd_srccov_measure_seed fails. */
enum cd_status cd_srccov_check_files(struct cd_srccov *c, char *const *argv,
                                     const char *empty_path, unsigned timeout_ms,
                                     const char *work, struct cd_error *err);

/* Moves *s into c (zeroing it); FAILED when out of memory (s is kept). */
enum cd_status cd_srccov_add(struct cd_srccov *c, struct cd_srccov_seed *s, struct cd_error *err);

/* Frees what seed s holds (c's n_files lines arrays) and zeroes it. */
void cd_srccov_seed_release(struct cd_srccov_seed *s, size_t n_files);

/* The seed sha1 in c, or NULL. */
const struct cd_srccov_seed *cd_srccov_find(const struct cd_srccov *c, const char *sha1);

/* The index of the function named name (a static function also matches by its name after the
 * file prefix, the first such one), or -1. */
long cd_srccov_find_fn(const struct cd_srccov *c, const char *name);

/* The index of the file whose path is path or ends with "/" path, or -1. */
long cd_srccov_find_file(const struct cd_srccov *c, const char *path);

/* Whether the sorted v[0..n) holds x (a seed's lines of a file, its functions, its branch
 * directions). */
bool cd_srccov_has(const uint32_t *v, size_t n, uint32_t x);

/* Whether some measured seed of c executes line of file (an index into c->files). */
bool cd_srccov_line_reached(const struct cd_srccov *c, size_t file, uint32_t line);

/* Marks in fns[0..c->n_fns) and branches[0..c->n_branches) (either may be NULL) the functions and
 * branch directions some seed of c reaches; what is already marked stays. */
void cd_srccov_mark_reached(const struct cd_srccov *c, bool *fns, bool *branches);

/* Reads the record at path into c (zeroed first). A missing file is OK and leaves c empty. */
enum cd_status cd_srccov_load(struct cd_srccov *c, const char *path, struct cd_error *err);

/* Writes c to path atomically, as JSON (format in corpus-distill(1), SOURCE COVERAGE). */
enum cd_status cd_srccov_save(const struct cd_srccov *c, const char *path, struct cd_error *err);

/* Frees everything c owns and zeroes it. */
void cd_srccov_release(struct cd_srccov *c);

#endif
