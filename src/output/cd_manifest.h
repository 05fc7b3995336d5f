/* Manifest: the JSON record of a distillation (schema_version 1, declared in report.c's table and
 * documented in corpus-distill(1)): the run's settings, what came in, every label with its best
 * example, every seed and reproducer with the labels it covers. The writer turns a cd_result plus
 * the run's context into a file (atomically); the reader parses one back for audit and for the
 * ownership check of a seed directory. */
#ifndef CD_MANIFEST_H
#define CD_MANIFEST_H

#include "common/cd_common.h"
#include "table/cd_edge_ids.h"
#include "table/cd_labels.h"
#include "exec/cd_target.h"
#include "result/cd_result.h"
#include "cd_report.h"

#define CD_MANIFEST_SCHEMA 1
/* The reader refuses larger files (a million labels write about a hundred megabytes). */
#define CD_MANIFEST_MAX_BYTES (1ll << 30)

/* One counted reason why inputs were skipped ("too large": 2). */
struct cd_manifest_skip {
    char *reason;
    uint64_t count;
};

/* One setting of the run ("settings": {NAME: value}), as the command line's settings table names
 * and orders them (src/cli/cli_settings.c). */
enum cd_manifest_setting_type {
    CD_SETTING_NULL,
    CD_SETTING_COUNT, /* an integer from 0 up */
    CD_SETTING_BOOL,  /* count is 0 or 1 */
    CD_SETTING_TEXT,
};
struct cd_manifest_setting {
    char *name;
    enum cd_manifest_setting_type type;
    uint64_t count;
    char *text;
};
/* The reader refuses more. */
#define CD_MANIFEST_SETTINGS_MAX 64

/* One target of a run of several (cd_manifest_info.targets). */

/* Everything about a run that is not in cd_result. The writer borrows it; the reader fills an
 * owned copy (see cd_manifest_release). */
struct cd_manifest_info {
    char *tool_version;
    /* The run's targets, one at least: the first the "target" keys', all of them "targets"'
       when there are several. Each as the run declared it (cd_target.h): its name, arguments
       (opts.argv), SHA-1, map size and timeout (info) and memory limit (opts) are written and
       read back; the reader owns the name and the arguments of its copies. */
    struct cd_target *targets;
    unsigned n_targets;
    const char *views;           /* writer: the views' directory (DIR.by-target) as the user
                                    named it, or NULL for none */
    struct cd_manifest_setting *settings; /* "settings", in order */
    size_t n_settings;
    char **operands;             /* NULL-terminated */
    struct cd_manifest_skip *skipped;
    size_t n_skipped;
    char *seed_dir;              /* as given with -o */
    char *crashes_dir;
    /* the state file (writer only): its path (NULL: none), how the run started from it ("none",
       "cold", "warm", "target changed", "settings changed", "unreadable"), why when not warm or
       cold (NULL: nothing to say), and the runs it holds with this one */
    const char *state_path;
    const char *state_start;
    const char *state_note;
    uint64_t state_runs;
    /* writer only: afl-clang-lto's edge IDs (NULL: none), so each coverage label names its
       function */
    const struct cd_edge_ids *edge_ids;
};

/* The names of info's targets for label texts (none with one target). */
struct cd_label_names cd_manifest_names(const struct cd_manifest_info *info);

/* The setting of info named name, or NULL. */
const struct cd_manifest_setting *cd_manifest_setting(const struct cd_manifest_info *info,
                                                      const char *name);

/* Whether the setting name is there and on (a true boolean or a count other than 0). */
bool cd_manifest_setting_on(const struct cd_manifest_info *info, const char *name);

/* One seed or reproducer as the reader sees it. */
struct cd_manifest_example {
    char sha1[41];
    char *file;                  /* file name in its directory */
    uint64_t size;
    char *origin;
    struct cd_labelset labels;   /* every label it covers, sorted */
    struct cd_labelset best;     /* labels it is the best example of, sorted */
    uint32_t views;              /* with several targets: a bit per target whose view holds it */
};

/* One label as the reader sees it. */
struct cd_manifest_label {
    uint32_t id;
    char best[41];               /* sha1 of its best example */
    bool reproducer;             /* the best example is a reproducer, not a seed */
    bool left_out;               /* a found label no seed shows: its best is in the state alone */
    bool found;                  /* found during reduction: no input showed it */
    uint64_t size;               /* with left_out: its best example's bytes */
    bool finished;
    char *function;              /* the function it is in (afl-clang-lto edge IDs), or NULL */
};

/* Longest kind ("asan:heap-buffer-overflow") written, with its NUL. */
#define CD_MANIFEST_KIND_MAX 96

/* One distinct bug as the reader sees it: a bug label and its crash state. */
struct cd_manifest_bug {
    uint32_t id;                 /* its bug label */
    char *kind;                  /* "asan:heap-buffer-overflow" */
    char *access;                /* "READ", "WRITE", or NULL */
    char **frames;               /* NULL-terminated, innermost first */
    uint64_t inputs;             /* first-pass inputs that showed it */
    char reproducer[41];         /* sha1 of its reproducer (a label's best) */
};

/* What the output holds of one target of several, as the manifest says. */
struct cd_manifest_view {
    char *dir;                   /* the directory of its seeds (DIR.by-target/NAME), or NULL */
    struct cd_result_target counts; /* counted by the writer from the result, read back */
};

/* A parsed manifest. */
struct cd_manifest {
    int schema_version;
    struct cd_manifest_info info;
    struct cd_result_stats stats; /* stopped_by points into the manifest (stopped_by_buf) */
    char stopped_by_buf[32];
    struct cd_report_counts counts; /* as written; the reader takes labels_finished back */
    struct cd_manifest_view *views;     /* with several targets, one per info.targets */
    struct cd_manifest_example *seeds;  /* sorted by sha1 */
    size_t n_seeds;
    struct cd_manifest_example *reproducers;
    size_t n_reproducers;
    struct cd_manifest_example *view_only; /* in targets' views alone; none in older manifests */
    size_t n_view_only;
    struct cd_manifest_label *labels;   /* sorted by id */
    size_t n_labels;
    struct cd_result_point *series;     /* run.course, oldest first; none in older manifests */
    size_t n_series;
    uint32_t *unstable;                 /* run.unstable_edges; none in older manifests */
    size_t n_unstable;
    struct cd_manifest_bug *bugs;       /* by label; none in older manifests */
    size_t n_bugs;
};

/* Writes the manifest of result r and run info to path atomically (temp file + rename); an info
 * of no targets is written with one whose fields are empty. */
enum cd_status cd_manifest_write(const char *path, const struct cd_manifest_info *info,
                                 const struct cd_result *r, struct cd_error *err);

/* The same, staged only (cd_file_stage): *out is committed or aborted by the caller, so that
 * a seed directory is swapped in only once its manifest is written in full. */
struct cd_file;
enum cd_status cd_manifest_stage(struct cd_file **out, const char *path,
                                 const struct cd_manifest_info *info, const struct cd_result *r,
                                 struct cd_error *err);

/* The counts the manifest writes of r (its seeds, reproducers and labels). */
struct cd_report_counts cd_manifest_counts(const struct cd_result *r);

/* Returns the manifest as an owned JSON string (free with free()), or NULL when out of memory. */
char *cd_manifest_to_string(const struct cd_manifest_info *info, const struct cd_result *r);

/* Parses the manifest at path into *m (zeroed first). FAILED with a one-line message when the file
 * cannot be read, is not a regular file, is larger than CD_MANIFEST_MAX_BYTES, is not JSON, or
 * does not follow schema 1 (counts are integers from 0 up, never NaN, infinite or fractional).
 * Release with cd_manifest_release. */
enum cd_status cd_manifest_read(const char *path, struct cd_manifest *m, struct cd_error *err);

/* Returns the seed with this sha1 (or a unique prefix of at least 4 hex digits), else NULL. */
const struct cd_manifest_example *cd_manifest_find_seed(const struct cd_manifest *m,
                                                        const char *sha1);

/* The bug of label id in m (the reader holds bugs in ascending label order), or NULL: a binary
 * search. */
const struct cd_manifest_bug *cd_manifest_find_bug(const struct cd_manifest *m, uint32_t id);

/* The index of the first bug of m with bug i's crash state, i itself when none before has it:
 * one bug reached from several targets has a bug label in each. */
size_t cd_manifest_bug_first(const struct cd_manifest *m, size_t i);

/* Returns the reproducer with this sha1 (all 40 hex digits), else NULL. */
const struct cd_manifest_example *cd_manifest_find_reproducer(const struct cd_manifest *m,
                                                              const char *sha1);

/* Returns the label entry for id, else NULL. */
const struct cd_manifest_label *cd_manifest_find_label(const struct cd_manifest *m, uint32_t id);

/* Reads example ex of a manifest from dir (a directory located beside the manifest) the one
 * safe way, since a manifest is a file anyone may write: its name one path component, no link
 * followed (dir's last component included), a regular file of exactly the size the manifest
 * gives and bytes whose SHA-1 is the example's; returns the bytes (owned: free) with *len, or
 * NULL with a one-line reason in why. */
uint8_t *cd_manifest_read_example(const char *dir, const struct cd_manifest_example *ex,
                                  size_t *len, char *why, size_t cap);

/* The same through dfd, the directory opened once (cd_manifest_open_dir: no link followed at
 * its last component; -1 when it cannot be opened), so that examples read one after the other
 * come from the one directory, whatever happens to its name meanwhile; dir names it in why. */
int cd_manifest_open_dir(const char *dir);
uint8_t *cd_manifest_read_example_at(int dfd, const char *dir,
                                     const struct cd_manifest_example *ex, size_t *len,
                                     char *why, size_t cap);

/* Frees everything m owns and zeroes it. */
void cd_manifest_release(struct cd_manifest *m);

#endif
