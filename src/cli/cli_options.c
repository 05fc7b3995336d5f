/* Command-line options: one table from which the parser works and --help is printed
 * (cli_help.c), so the two cannot drift apart (the man page is checked against --help by
 * tests/docs/help_in_man.sh). Only the CLI reads argv. */
#include "cli_option_table.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define RUN GROUP_RUN
#define BUDGET GROUP_BUDGET
#define OUTPUT GROUP_OUTPUT
#define NIGHTLY GROUP_NIGHTLY
#define TARGETS GROUP_TARGETS
#define INFO GROUP_INFO

const struct cli_option cli_options[] = {
    /* short, long, argument, group, in the short --help, help */
    {'o', NULL, "DIR", RUN, true, "the seeds directory (required)", OPT_OUT},
    {'t', NULL, "MS", RUN, true, "timeout per run in ms (calibrated); NAME=MS: a target's",
     OPT_TIMEOUT},
    {'m', NULL, "MB", RUN, true, "memory limit in MiB (none); NAME=MB: a target's", OPT_MEM},
    {'f', NULL, "FILE", RUN, true, "the target reads FILE, not @@ (made and removed)",
     OPT_INPUT_FILE},
    {'j', NULL, "N", RUN, true, "workers (default: the online CPUs)", OPT_JOBS},
    {0, "no-bind", NULL, RUN, false, "do not bind the workers to CPUs", OPT_NO_BIND},
    {'e', "edges-only", NULL, RUN, false, "labels without hit counts (afl-cmin -e)", OPT_EDGES},
    {0, "max-input-size", "BYTES", RUN, false, "skip larger inputs (default: 1M)", OPT_MAX_SIZE},
    {0, "raw-archives", NULL, RUN, false, "archives are inputs as they are, not unpacked",
     OPT_RAW},
    {0, "seen-mem", "BYTES", RUN, false, "memory of the seen-set (default: 256M)", OPT_SEEN_MEM},
    {0, "seed", "N", RUN, false, "random seed (default: 0)", OPT_SEED},
    {0, "order", "O", RUN, false, "reduction order: cover, fresh, uniform, bytes", OPT_ORDER},
    {0, "allow-root", NULL, RUN, false, "run as root (refused otherwise)", OPT_ALLOW_ROOT},
    {0, "max-time", "SECONDS", BUDGET, true, "stop after this long (s, m, h): best so far kept",
     OPT_MAX_TIME},
    {0, "max-execs", "N", BUDGET, true, "stop after N executions", OPT_MAX_EXECS},
    {0, "no-reduce", NULL, BUDGET, true, "select only, no shrinking", OPT_NO_REDUCE},
    {0, "cover-time", "SECONDS", BUDGET, false, "time for the exact cover (default: 30 s)",
     OPT_COVER_TIME},
    {0, "keep-found", NULL, BUDGET, false, "seed the labels reduction finds, at any cost",
     OPT_KEEP_FOUND},
    {0, "tar", NULL, OUTPUT, true, "the seeds as DIR.tar.zst, not a directory", OPT_TAR},
    {0, "force", NULL, OUTPUT, false, "move aside a DIR corpus-distill did not write",
     OPT_FORCE},
    {0, "all-best", NULL, OUTPUT, false, "seeds: every label's best example, no cover",
     OPT_ALL_BEST},
    {0, "crashes", "DIR", OUTPUT, false, "reproducers (default: DIR.crashes)", OPT_CRASHES},
    {0, "crash-frames", "N", OUTPUT, false, "program frames naming a bug (default: 3)",
     OPT_CRASH_FRAMES},
    {0, "manifest", "FILE", OUTPUT, false, "the manifest (default: DIR.manifest.json)",
     OPT_MANIFEST},
    {0, "ids", "FILE", OUTPUT, false, "label functions from afl-clang-lto's edge IDs", OPT_IDS},
    {0, "json-summary", NULL, OUTPUT, false, "the summary as JSON on stdout", OPT_JSON_SUMMARY},
    {'q', "quiet", NULL, OUTPUT, false, "errors only", OPT_QUIET},
    {'v', "verbose", NULL, OUTPUT, true, "target details, each pass's report", OPT_VERBOSE},
    {0, "state", "FILE", NIGHTLY, true, "the state to resume (default: DIR.state)", OPT_STATE},
    {0, "no-state", NULL, NIGHTLY, false, "neither read nor write a state", OPT_NO_STATE},
    {0, "checkpoint", "SECONDS", NIGHTLY, false, "write the state this often (default: 300 s)",
     OPT_CHECKPOINT},
    {0, "inputs-from", "FILE", NIGHTLY, true, "more inputs, one a line (?PATH: may be missing)",
     OPT_INPUTS_FROM},
    {0, "collapse", "F", NIGHTLY, false, "refuse seeds below F x the last edges (0.5)",
     OPT_COLLAPSE},
    {0, "accept-collapse", NULL, NIGHTLY, false, "write such seeds all the same",
     OPT_ACCEPT_COLLAPSE},
    {0, "generations", "N", NIGHTLY, false, "replaced outputs kept (1); see restore --help",
     OPT_GENERATIONS},
    {0, "shard", "K/N", NIGHTLY, false, "only shard K of N's inputs; see merge --help",
     OPT_SHARD},
    {0, "target-from", "FILE", TARGETS, false, "a target, one argument a line", OPT_TARGET_FROM},
    {0, "targets", "FILE", TARGETS, false, "targets, one a line: [NAME:] PROGRAM ARGS",
     OPT_TARGETS},
    {'h', "help", "[GROUP]", INFO, false, "this help; a group's options; all of them",
     OPT_HELP},
    {'V', "version", NULL, INFO, false, "the version", OPT_VERSION},
};
const size_t cli_n_options = sizeof cli_options / sizeof cli_options[0];
#define options cli_options
#define N_OPTIONS cli_n_options

const char *const cli_opt_group_names[GROUP_COUNT] = {"run", "budget", "output", "nightly",
                                                     "targets", "info"};

int cli_opt_group_named(const char *name)
{
    if (strcmp(name, "all") == 0)
        return GROUP_COUNT;
    for (int g = 0; g < GROUP_COUNT; g++)
        if (strcmp(name, cli_opt_group_names[g]) == 0)
            return g;
    return -1;
}

/* Parses an unsigned number with an optional binary suffix (k, M, G) when suffixes is set. */
static bool parse_num(const char *s, bool suffixes, uint64_t max, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return false;
    uint64_t mul = 1;
    if (suffixes && *end) {
        switch (*end) {
        case 'k': case 'K': mul = 1ull << 10; break;
        case 'm': case 'M': mul = 1ull << 20; break;
        case 'g': case 'G': mul = 1ull << 30; break;
        default: return false;
        }
        end++;
        if (*end == 'i')
            end++;
        if (*end == 'B' || *end == 'b')
            end++;
    }
    if (*end || (v && mul > max / v) || v * mul > max)
        return false;
    *out = v * mul;
    return true;
}

/* A timeout in milliseconds: 1 ms to an hour. */
static bool parse_ms(const char *s, uint64_t *out)
{
    return parse_num(s, false, 3600000, out) && *out > 0;
}

/* A memory limit in MiB, "none" or 0 for none. */
static bool parse_mb(const char *s, uint64_t *out)
{
    if (strcmp(s, "none") == 0)
        return *out = 0, true;
    return parse_num(s, false, 1u << 30, out);
}

/* Parses a duration in seconds with an optional unit (s, m, h). */
static bool parse_seconds(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    uint64_t mul = 1;
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n + 1);
    switch (buf[n - 1]) {
    case 's': buf[n - 1] = '\0'; break;
    case 'm': mul = 60; buf[n - 1] = '\0'; break;
    case 'h': mul = 3600; buf[n - 1] = '\0'; break;
    default: break;
    }
    uint64_t v;
    if (!parse_num(buf, false, UINT64_MAX / 3600, &v))
        return false;
    *out = v * mul;
    return true;
}

static const struct cli_option *find_long(const char *name, size_t len)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].long_name && strlen(options[i].long_name) == len
            && strncmp(options[i].long_name, name, len) == 0)
            return &options[i];
    return NULL;
}

static const struct cli_option *find_short(char c)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (options[i].short_name == c)
            return &options[i];
    return NULL;
}

/* Applies one option; returns false after printing a usage error. */
static bool apply(struct cli_opts *o, const struct cli_option *opt, const char *name,
                  const char *val)
{
    uint64_t v;
    switch (opt->id) {
    case OPT_OUT: o->out_dir = val; break;
    case OPT_INPUT_FILE:
        if (!*val)
            goto bad;
        o->input_file = val;
        break;
    case OPT_TIMEOUT: /* MS, or NAME=MS for one target */
        if (strchr(val, '='))
            return cli_settings_for_target(o, "timeout_ms", val, parse_ms);
        if (!parse_ms(val, &v))
            goto bad;
        o->timeout_ms = (unsigned)v;
        break;
    case OPT_MEM: /* MB or none, or NAME=MB for one target */
        if (strchr(val, '='))
            return cli_settings_for_target(o, "mem_limit_mb", val, parse_mb);
        if (!parse_mb(val, &v))
            goto bad;
        o->mem_limit_mb = (unsigned)v;
        break;
    case OPT_JOBS:
        if (!parse_num(val, false, 4096, &v) || v == 0)
            goto bad;
        o->jobs = (unsigned)v;
        break;
    case OPT_NO_BIND: o->no_bind = true; break;
    case OPT_SEED:
        if (!parse_num(val, false, UINT64_MAX, &o->seed))
            goto bad;
        break;
    case OPT_ORDER: {
        int k = 0;
        while (k < CD_ORDER_COUNT && strcmp(val, cd_distill_order_name(k)) != 0)
            k++;
        if (k == CD_ORDER_COUNT)
            goto bad;
        o->order = (enum cd_distill_order)k;
        break;
    }
    case OPT_MAX_TIME:
        if (!parse_seconds(val, &o->max_time_s) || o->max_time_s == 0)
            goto bad;
        break;
    case OPT_MAX_EXECS:
        if (!parse_num(val, false, UINT64_MAX, &o->max_execs) || o->max_execs == 0)
            goto bad;
        break;
    case OPT_SHARD:
        if (!cli_parse_shard(val, &o->shard, &o->shards))
            goto bad;
        break;
    case OPT_EDGES: o->edges_only = true; break;
    case OPT_IDS: o->ids = val; break;
    case OPT_NO_REDUCE: o->no_reduce = true; break;
    case OPT_ALL_BEST: o->all_best = true; break;
    case OPT_KEEP_FOUND: o->keep_found = true; break;
    case OPT_MAX_SIZE:
        if (!parse_num(val, true, SIZE_MAX, &v) || v == 0)
            goto bad;
        o->max_input_size = (size_t)v;
        break;
    case OPT_COVER_TIME:
        if (!parse_seconds(val, &o->cover_time_s))
            goto bad;
        break;
    case OPT_SEEN_MEM:
        if (!parse_num(val, true, SIZE_MAX, &v) || v < 4096)
            goto bad;
        o->seen_mem = (size_t)v;
        break;
    case OPT_RAW: o->raw_archives = true; break;
    case OPT_CRASHES: o->crashes_dir = val; break;
    case OPT_CRASH_FRAMES:
        if (!parse_num(val, false, CLI_CRASH_FRAMES_MAX, &v))
            goto bad;
        o->crash_frames = (unsigned)v;
        break;
    case OPT_MANIFEST: o->manifest = val; break;
    case OPT_STATE: o->state = val; break;
    case OPT_NO_STATE: o->no_state = true; break;
    case OPT_CHECKPOINT:
        if (!parse_seconds(val, &o->checkpoint_s))
            goto bad;
        break;
    case OPT_TAR: o->tar = true; break;
    case OPT_FORCE: o->force = true; break;
    case OPT_COLLAPSE: {
        char *end;
        errno = 0;
        double f = strtod(val, &end);
        if (errno || end == val || *end || !(f >= 0 && f <= 1))
            goto bad;
        o->collapse = f;
        break;
    }
    case OPT_ACCEPT_COLLAPSE: o->accept_collapse = true; break;
    case OPT_GENERATIONS:
        if (!parse_num(val, false, 1000, &v))
            goto bad;
        o->generations = (unsigned)v;
        break;
    case OPT_INPUTS_FROM: o->inputs_from = val; break;
    case OPT_TARGET_FROM:
        if (o->n_target_from == CD_LABEL_TARGETS_MAX)
            return cli_usage_error("at most %u targets run at once", CD_LABEL_TARGETS_MAX),
                   false;
        o->target_from[o->n_target_from++] = val;
        break;
    case OPT_TARGETS: o->targets_file = val; break;
    case OPT_ALLOW_ROOT: o->allow_root = true; break;
    case OPT_QUIET: o->verbosity = -1; break;
    case OPT_VERBOSE: o->verbosity = 1; break;
    case OPT_JSON_SUMMARY: o->json_summary = true; break;
    case OPT_HELP:
        if (val && cli_opt_group_named(val) < 0)
            return cli_usage_error("--help %s: no such group (run, budget, output, nightly, "
                                   "targets, info, all)", val), false;
        o->mode = CLI_MODE_HELP;
        o->help_page = val;
        break;
    case OPT_VERSION: o->mode = CLI_MODE_VERSION; break;
    }
    return true;
bad:
    cli_usage_error("invalid value '%s' for %s", val, name);
    return false;
}

/* audit's options, one table for parsing and for "audit --help" (the docs test checks it against
 * the man page's AUDIT section). */
const struct cli_audit_option cli_audit_options[] = {
    {"--seed", "SHA1", "the labels a seed covers", AUDIT_QUESTION,
     offsetof(struct cli_opts, audit_seed)},
    {"--label", "LABEL", "a label's best example and every example covering it", AUDIT_QUESTION,
     offsetof(struct cli_opts, audit_label)},
    {"--diff", "OLD.json", "labels (and source lines) gained and lost since OLD", AUDIT_QUESTION,
     offsetof(struct cli_opts, audit_diff)},
    {"--function", "NAME", "which examples reach a function, and its lines", AUDIT_QUESTION,
     offsetof(struct cli_opts, audit_function)},
    {"--line", "FILE:N", "which examples reach a source line", AUDIT_QUESTION,
     offsetof(struct cli_opts, audit_line)},
    {"--uncovered", NULL, "functions no example reaches", AUDIT_UNCOVERED, 0},
    {"--crashes", NULL, "one line per distinct bug: kind, frames, inputs, reproducer",
     AUDIT_CRASHES, 0},
    {"--coverage", "BIN", "measure source coverage with this coverage build", AUDIT_VALUE,
     offsetof(struct cli_opts, audit_coverage)},
    {"-j", "N", "workers for --coverage", AUDIT_JOBS, 0},
    {"--html", "DIR", "write an HTML report into DIR", AUDIT_VALUE,
     offsetof(struct cli_opts, audit_html)},
    {"--ids", "FILE", "afl-clang-lto's edge ID file: functions of labels", AUDIT_VALUE,
     offsetof(struct cli_opts, ids)},
    {"--json", NULL, "answer in JSON", AUDIT_JSON, 0},
    {"--help", NULL, "this help", AUDIT_HELP, 0},
};
const size_t cli_n_audit_options = sizeof cli_audit_options / sizeof cli_audit_options[0];
#define audit_opts cli_audit_options
#define N_AUDIT_OPTS cli_n_audit_options

/* Whether o asks a question already; when it does, prints the usage error. */
static bool asks_already(const struct cli_opts *o)
{
    bool asks = o->audit_seed || o->audit_label || o->audit_diff || o->audit_function ||
                o->audit_line || o->audit_uncovered || o->audit_crashes;
    if (asks)
        cli_usage_error("audit takes one of --seed, --label, --diff, --function, --line, "
                        "--uncovered, --crashes");
    return asks;
}

/* Takes audit option k, argv[*i], and its value if it has one; false after a usage error. */
static bool audit_option(size_t k, int argc, char **argv, int *i, struct cli_opts *o)
{
    const char *a = argv[*i], *val = NULL;
    if (audit_opts[k].arg) {
        if (*i + 1 >= argc) {
            cli_usage_error("option %s needs an argument", a);
            return false;
        }
        val = argv[++*i];
    }
    uint64_t v;
    switch (audit_opts[k].kind) {
    case AUDIT_QUESTION:
        if (asks_already(o))
            return false;
        /* fall through */
    case AUDIT_VALUE: *(const char **)((char *)o + audit_opts[k].offset) = val; break;
    case AUDIT_UNCOVERED:
        if (asks_already(o))
            return false;
        o->audit_uncovered = true;
        break;
    case AUDIT_CRASHES:
        if (asks_already(o))
            return false;
        o->audit_crashes = true;
        break;
    case AUDIT_JOBS:
        if (!parse_num(val, false, 4096, &v) || v == 0) {
            cli_usage_error("-j needs a number of workers");
            return false;
        }
        o->jobs = (unsigned)v;
        break;
    case AUDIT_JSON: o->audit_json = true; break;
    case AUDIT_HELP: o->mode = CLI_MODE_AUDIT_HELP; break;
    }
    return true;
}

/* Parses "audit MANIFEST [OPTIONS]" (audit_opts). */
static bool parse_audit(int argc, char **argv, struct cli_opts *o)
{
    o->mode = CLI_MODE_AUDIT;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) { /* the coverage build's arguments, to the end */
            if (i + 1 == argc)
                return cli_usage_error("nothing after '--': the coverage build's arguments"),
                       false;
            o->audit_cov_args = argv + i + 1;
            break;
        }
        size_t k = 0;
        while (k < N_AUDIT_OPTS && strcmp(a, audit_opts[k].name) != 0)
            k++;
        if (k == N_AUDIT_OPTS && strcmp(a, "-h") == 0)
            k = N_AUDIT_OPTS - 1; /* --help */
        if (k < N_AUDIT_OPTS) {
            if (!audit_option(k, argc, argv, &i, o))
                return false;
            if (o->mode == CLI_MODE_AUDIT_HELP)
                return true;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            cli_usage_error("unknown audit option '%s'", a);
            return false;
        }
        if (o->audit_manifest) {
            cli_usage_error("audit takes one manifest, got '%s' too", a);
            return false;
        }
        o->audit_manifest = a;
    }
    if (!o->audit_manifest) {
        cli_usage_error("audit needs a MANIFEST");
        return false;
    }
    if (o->audit_cov_args && !o->audit_coverage)
        return cli_usage_error("arguments after '--' are --coverage's build's"), false;
    return true;
}

/* Parses "restore [--list] [-q] [--crashes D] [--manifest F] [--state F] DIR [GENERATION]". */
static bool parse_restore(int argc, char **argv, struct cli_opts *o)
{
    o->mode = CLI_MODE_RESTORE;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--list") == 0)
            o->restore_list = true;
        else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
            o->verbosity = -1;
        else if (strcmp(a, "--allow-root") == 0)
            o->allow_root = true;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            o->mode = CLI_MODE_HELP;
            o->help_page = "restore";
        } else if (strcmp(a, "--crashes") == 0 || strcmp(a, "--manifest") == 0 ||
                 strcmp(a, "--state") == 0) { /* where the run put them, as it was told */
            if (i + 1 >= argc)
                return cli_usage_error("option %s needs an argument", a), false;
            const char **to = a[2] == 'c' ? &o->crashes_dir : a[2] == 'm' ? &o->manifest
                                                                           : &o->state;
            *to = argv[++i];
        } else if (a[0] == '-' && a[1])
            return cli_usage_error("unknown restore option '%s'", a), false;
        else if (!o->out_dir)
            o->out_dir = a;
        else if (!o->restore_gen)
            o->restore_gen = a;
        else
            return cli_usage_error("restore takes DIR and one generation, got '%s' too", a),
                   false;
    }
    if (!o->out_dir && o->mode == CLI_MODE_RESTORE)
        return cli_usage_error("restore needs the seed directory DIR"), false;
    return true;
}

/* The word after --help when it names a group (*i then past it), else NULL. */
static const char *help_group_next(int argc, char **argv, int *i)
{
    if (*i + 1 < argc && cli_opt_group_named(argv[*i + 1]) >= 0)
        return argv[++*i];
    return NULL;
}

/* Parses one argument that starts with '-'; *i advances past a separate value. */
static bool parse_option(int argc, char **argv, int *i, struct cli_opts *o)
{
    const char *a = argv[*i];
    if (a[1] == '-') {
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct cli_option *opt = find_long(name, len);
        if (!opt) {
            cli_usage_error("unknown option '--%.*s'", (int)len, name);
            return false;
        }
        const char *val = NULL;
        if (opt->id == OPT_HELP) /* "--help GROUP": the next word only when it names a group */
            val = eq ? eq + 1 : help_group_next(argc, argv, i);
        else if (opt->arg) {
            if (eq)
                val = eq + 1;
            else if (*i + 1 < argc)
                val = argv[++*i];
            else {
                cli_usage_error("option --%s needs an argument %s", opt->long_name, opt->arg);
                return false;
            }
        } else if (eq) {
            cli_usage_error("option --%s takes no argument", opt->long_name);
            return false;
        }
        return apply(o, opt, a, val);
    }
    for (const char *c = a + 1; *c; c++) {
        const struct cli_option *opt = find_short(*c);
        char name[3] = {'-', *c, '\0'};
        if (!opt) {
            cli_usage_error("unknown option '-%c'", *c);
            return false;
        }
        if (opt->id == OPT_HELP)
            return apply(o, opt, name, c[1] ? NULL : help_group_next(argc, argv, i));
        if (!opt->arg) {
            if (!apply(o, opt, name, NULL))
                return false;
            continue;
        }
        const char *val = c[1] ? c + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!val) {
            cli_usage_error("option -%c needs an argument %s", *c, opt->arg);
            return false;
        }
        return apply(o, opt, name, val);
    }
    return true;
}

void cli_opts_release(struct cli_opts *o)
{
    cli_settings_release_targets(o);
    free(o->inputs);
    free(o->optional);
    o->optional = NULL;
    for (size_t i = 0; i < o->n_owned; i++)
        free(o->owned[i]);
    free(o->owned);
    o->owned = NULL;
    o->n_owned = 0;
    o->inputs = NULL;
}

/* The largest list file read: a million paths of 16 bytes. */
#define LIST_MAX (16u << 20)

/* Keeps p (may be NULL) until the options are released; false, p freed, when out of memory. */
static bool own(struct cli_opts *o, void *p)
{
    void **all = p ? realloc(o->owned, (o->n_owned + 1) * sizeof *all) : o->owned;
    if (!all) {
        free(p);
        return cli_usage_error("out of memory"), false;
    }
    o->owned = all;
    if (p)
        all[o->n_owned++] = p;
    return true;
}

/* Reads the list file path (one item a line; blank lines and lines starting with '#' skipped)
 * into o's keeping (the text, split in place) and *items (owned, NULL-terminated), *n its length.
 * Prints a usage error and returns false when the file cannot be read, is too large or lists
 * nothing. */
static bool read_list(struct cli_opts *o, const char *opt, const char *path, char ***items,
                      size_t *n)
{
    *items = NULL;
    *n = 0;
    /* Read as a stream (a list may come through a pipe: --inputs-from <(find ...)), the buffer
       grown as it fills, never past LIST_MAX. */
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int e = f ? 0 : errno;
    while (f && !e && len <= LIST_MAX) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 4096;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                e = ENOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            e = ferror(f) ? (errno ? errno : EIO) : 0;
            break;
        }
    }
    if (f)
        fclose(f);
    if (e || len > LIST_MAX || (len && memchr(buf, '\0', len))) {
        cli_usage_error("%s '%s': %s", opt, path,
                        e ? strerror(e) : len > LIST_MAX ? "larger than 16 MiB"
                                                         : "a NUL byte in it");
        free(buf);
        return false;
    }
    if (!buf && !(buf = malloc(1)))
        return cli_usage_error("out of memory"), false;
    if (!own(o, buf))
        return false;
    buf[len] = '\0';
    size_t lines = 1;
    for (size_t k = 0; k < len; k++)
        lines += buf[k] == '\n';
    *items = calloc(lines + 1, sizeof **items);
    if (!*items)
        return cli_usage_error("out of memory"), false;
    for (char *line = buf, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[--l] = '\0';
        if (l && line[0] != '#')
            (*items)[(*n)++] = line;
    }
    if (*n == 0) {
        free(*items);
        *items = NULL;
        return cli_usage_error("%s '%s' lists nothing", opt, path), false;
    }
    return true;
}

/* --targets FILE: one target a line, its words split at blanks, an optional first word "NAME:"
 * naming it. The file's text and vectors are kept with the options. */
static bool read_targets(struct cli_opts *o)
{
    size_t n;
    char **lines;
    if (!read_list(o, "--targets", o->targets_file, &lines, &n))
        return false;
    size_t words = 0;
    for (size_t i = 0; i < n; i++)
        words += strlen(lines[i]) / 2 + 2;
    char **v = calloc(words + 1, sizeof *v);
    if (!v)
        cli_usage_error("out of memory");
    if (!v || !own(o, v)) {
        free(lines);
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        char **argv = v, *name = NULL;
        for (char *p = lines[i]; *p;) {
            p += strspn(p, " \t");
            if (!*p)
                break;
            char *w = p;
            p += strcspn(p, " \t");
            if (*p)
                *p++ = '\0';
            size_t l = strlen(w);
            if (v == argv && !name && l > 1 && w[l - 1] == ':') {
                w[l - 1] = '\0';
                name = w;
            } else {
                *v++ = w;
            }
        }
        *v++ = NULL;
        ok = cli_target_add(o, argv, name);
    }
    free(lines);
    return ok;
}

/* Reads --inputs-from's list onto the inputs and --target-from's as the target. */
static bool read_lists(struct cli_opts *o)
{
    char **items;
    size_t n;
    if (o->inputs_from) {
        if (!read_list(o, "--inputs-from", o->inputs_from, &items, &n))
            return false;
        const char **all = realloc(o->inputs, (o->n_inputs + n + 1) * sizeof *all);
        if (!all) {
            free(items);
            return cli_usage_error("out of memory"), false;
        }
        o->inputs = all;
        /* "?PATH": an input that may be missing (an unmounted share, a fuzzer not started) */
        o->optional = calloc(n + 1, sizeof *o->optional);
        if (!o->optional) {
            free(items);
            return cli_usage_error("out of memory"), false;
        }
        for (size_t k = 0, m = 0; k < n; k++)
            if (items[k][0] == '?' && items[k][1])
                o->optional[m++] = ++items[k];
        memcpy(all + o->n_inputs, items, n * sizeof *items);
        o->n_inputs += n;
        all[o->n_inputs] = NULL;
        free(items);
    }
    for (unsigned k = 0; k < o->n_target_from; k++) {
        if (!read_list(o, "--target-from", o->target_from[k], &items, &n) || !own(o, items) ||
            !cli_target_add(o, items, NULL))
            return false;
    }
    if (o->targets_file && !read_targets(o))
        return false;
    return cli_targets_name(o);
}

bool cli_parse(int argc, char **argv, struct cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_input_size = 1u << 20;
    o->cover_time_s = 30;
    o->checkpoint_s = 300;
    o->crash_frames = 3;
    o->collapse = 0.5;
    o->generations = 1;
    if (argc > 1 && strcmp(argv[1], "audit") == 0)
        return parse_audit(argc, argv, o);
    if (argc > 1 && strcmp(argv[1], "cmin") == 0)
        return cli_parse_cmin(argc, argv, o);
    if (argc > 1 && strcmp(argv[1], "restore") == 0)
        return parse_restore(argc, argv, o);
    o->merge = argc > 1 && strcmp(argv[1], "merge") == 0;
    bool usage_json = false;
    for (int k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
        usage_json |= strcmp(argv[k], "--json-summary") == 0;
    cli_usage_json(usage_json);
    o->inputs = calloc((size_t)argc + 1, sizeof *o->inputs);
    if (!o->inputs) {
        cli_msg("out of memory");
        return false;
    }
    int i;
    for (i = o->merge ? 2 : 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            break;
        if (a[0] == '-' && a[1]) {
            if (!parse_option(argc, argv, &i, o))
                return false;
        } else {
            o->inputs[o->n_inputs++] = a;
        }
    }
    if (o->mode == CLI_MODE_HELP && o->merge && !o->help_page)
        o->help_page = "merge";
    if (o->mode == CLI_MODE_HELP || o->mode == CLI_MODE_VERSION)
        return true;
    /* Each further "--" starts another target: it ends the one before (a target that takes "--"
       as an argument comes with --target-from). */
    while (i < argc) {
        int k = i + 1;
        while (k < argc && strcmp(argv[k], "--") != 0)
            k++;
        argv[k] = NULL; /* argv[argc] is NULL already */
        /* a lone "--" at the end names none when it is the only one: the targets come from
           --target-from or --targets */
        bool none = k == i + 1 && k == argc && o->n_targets == 0;
        if (!none && !cli_target_add(o, &argv[i + 1], NULL))
            return false;
        i = k;
    }
    if (!read_lists(o))
        return false;
    if (!o->out_dir)
        return cli_usage_error("missing -o DIR"), false;
    if (o->n_inputs == 0)
        return cli_usage_error(o->merge ? "merge needs the STATE files of the shards"
                                        : "missing INPUT (files, directories or archives to "
                                          "distill)"), false;
    if (o->n_targets == 0)
        return cli_usage_error("missing '-- TARGET [ARGS...]'"), false;
    if (!cli_settings_targets_check(o))
        return false;
    if (o->input_file && o->n_targets > 1)
        return cli_usage_error("-f FILE serves one target; give the others @@"), false;
    if (o->input_file && o->jobs > 1)
        return cli_usage_error("-f FILE serves one run at a time: -j 1, or @@ for workers"),
               false;
    return true;
}
