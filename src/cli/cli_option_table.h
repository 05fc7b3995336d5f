/* The command line's option tables, shared by the parser (cli_options.c) and what is printed from
 * them (cli_help.c: each mode's --help and the bash completion), so that none can drift from the
 * others. Internal to the CLI. */
#ifndef CLI_OPTION_TABLE_H
#define CLI_OPTION_TABLE_H

#include "cli.h"

#include <stddef.h>

enum cli_opt_id {
    OPT_OUT, OPT_INPUT_FILE, OPT_TIMEOUT, OPT_MEM, OPT_JOBS, OPT_NO_BIND, OPT_SEED, OPT_ORDER,
    OPT_MAX_TIME, OPT_MAX_EXECS, OPT_SHARD, OPT_EDGES, OPT_IDS, OPT_NO_REDUCE, OPT_ALL_BEST,
    OPT_KEEP_FOUND, OPT_MAX_SIZE, OPT_COVER_TIME, OPT_SEEN_MEM, OPT_RAW, OPT_CRASHES,
    OPT_CRASH_FRAMES, OPT_MANIFEST, OPT_STATE, OPT_NO_STATE, OPT_CHECKPOINT, OPT_TAR, OPT_FORCE,
    OPT_COLLAPSE, OPT_ACCEPT_COLLAPSE, OPT_GENERATIONS, OPT_INPUTS_FROM, OPT_TARGET_FROM,
    OPT_TARGETS, OPT_ALLOW_ROOT, OPT_QUIET, OPT_VERBOSE, OPT_JSON_SUMMARY, OPT_HELP, OPT_VERSION,
};

/* The groups of --help GROUP, in the order --help all prints them. */
enum cli_opt_group { GROUP_RUN, GROUP_BUDGET, GROUP_OUTPUT, GROUP_NIGHTLY, GROUP_TARGETS,
                     GROUP_INFO, GROUP_COUNT };

struct cli_option {
    char short_name;       /* 0 when there is none */
    const char *long_name; /* without "--"; NULL when there is none */
    const char *arg;       /* argument name, NULL for a flag */
    enum cli_opt_group group;
    bool brief;            /* also in the short --help */
    const char *help;      /* one line, at most 54 columns */
    enum cli_opt_id id;
};
extern const struct cli_option cli_options[];
extern const size_t cli_n_options;

/* The groups' names, as --help GROUP takes them ("all" aside). */
extern const char *const cli_opt_group_names[GROUP_COUNT];

/* The group named name ("run", "budget", ...), GROUP_COUNT for "all", -1 for none. */
int cli_opt_group_named(const char *name);

/* audit's options: a value option's value goes to offset in struct cli_opts; a question is one
 * of those audit answers one at a time. */
enum cli_audit_kind {
    AUDIT_VALUE,
    AUDIT_QUESTION,
    AUDIT_UNCOVERED,
    AUDIT_CRASHES,
    AUDIT_JOBS,
    AUDIT_JSON,
    AUDIT_HELP,
};
struct cli_audit_option {
    const char *name, *arg, *help;
    enum cli_audit_kind kind;
    size_t offset;
};
extern const struct cli_audit_option cli_audit_options[];
extern const size_t cli_n_audit_options;

#endif
