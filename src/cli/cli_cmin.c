/* "corpus-distill cmin": a drop-in for afl-cmin. It takes afl-cmin's options with afl-cmin's
 * meanings (-i, -o, -T, -e, -C, -A, -t, -m, -f; the binary-only modes are refused by name),
 * runs the select-only distillation (no shrinking, no state, no manifest) and writes the chosen
 * inputs into the output directory under their own file names, as afl-cmin does, with its
 * progress and summary lines and its exit status (0, or 1 on any error). What differs: hit counts
 * are classified correctly, archives are inputs too, and the choice is a cover by bytes that keeps
 * every tuple. The output directory appears whole (a temporary directory beside it, renamed). */
#include "output/cd_emit.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* afl-cmin's error line; returns false. */
static bool cmin_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool cmin_usage(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_line(stderr, "[-] Error: %s", msg);
    cli_line(stderr, "    (corpus-distill cmin takes afl-cmin's options: -i DIR -o DIR [-T N|all] "
             "[-e] [-C] [-A] [-t MS] [-m MB] [-f FILE] -- TARGET [ARGS])");
    return false;
}

/* A number for -t or -m, or "none" (0). */
static bool cmin_number(const char *s, unsigned *out)
{
    char *end;
    if (strcmp(s, "none") == 0) {
        *out = 0;
        return true;
    }
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || (*end && strcmp(end, "+") != 0) || v > 1u << 30 || s[0] == '-')
        return false;
    *out = (unsigned)v;
    return true;
}

bool cli_parse_cmin(int argc, char **argv, struct cli_opts *o)
{
    o->mode = CLI_MODE_DISTILL;
    o->cmin = true;
    o->no_reduce = true;
    o->no_state = true;
    o->jobs = 1; /* afl-cmin's default */
    o->crash_frames = 0; /* afl-cmin's labels: no bug labels */
    o->verbosity = -1;
    o->inputs = calloc(2, sizeof *o->inputs);
    if (!o->inputs)
        return cmin_usage("out of memory");
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0) {
            o->mode = CLI_MODE_CMIN_HELP;
            return true;
        }
        if (a[0] != '-' || !a[1] || a[2])
            return cmin_usage("unexpected argument '%s' (the target goes after --)", a);
        switch (a[1]) {
        case 'e': o->edges_only = true; continue;
        case 'C': o->cmin_crashes = true; continue;
        case 'A': o->cmin_allow_any = true; continue;
        case 'h': o->mode = CLI_MODE_CMIN_HELP; return true;
        case 'O': case 'Q': case 'U': case 'X':
            return cmin_usage("option '%s' is not supported: the target is instrumented at "
                              "build time", a);
        case 'i': case 'o': case 'T': case 't': case 'm': case 'f': break;
        default: return cmin_usage("unknown option '%s'", a);
        }
        if (!val)
            return cmin_usage("option '%s' needs an argument", a);
        i++;
        switch (a[1]) {
        case 'i':
            if (o->n_inputs)
                return cmin_usage("only one -i directory");
            o->inputs[o->n_inputs++] = val;
            break;
        case 'o': o->out_dir = val; break;
        case 'f': o->input_file = val; break;
        case 'T':
            if (strcmp(val, "all") == 0) {
                o->jobs = 0;
            } else {
                unsigned n;
                if (!cmin_number(val, &n) || n == 0 || n > 4096)
                    return cmin_usage("-T needs a number of workers or 'all', not '%s'", val);
                o->jobs = n;
            }
            break;
        case 't':
            if (!cmin_number(val, &o->timeout_ms))
                return cmin_usage("-t needs milliseconds or 'none', not '%s'", val);
            break;
        case 'm':
            if (!cmin_number(val, &o->mem_limit_mb))
                return cmin_usage("-m needs megabytes or 'none', not '%s'", val);
            break;
        }
    }
    if (!o->n_inputs || !o->out_dir)
        return cmin_usage("-i and -o are required");
    if (i + 1 >= argc)
        return cmin_usage("no target after '--'");
    if (o->input_file && o->jobs != 1)
        return cmin_usage("-f and -T: the one file serves one run at a time");
    if (o->cmin_crashes && o->cmin_allow_any)
        return cmin_usage("-C and -A exclude each other");
    o->targets[0].argv = &argv[i + 1]; /* one target, as afl-cmin: a later "--" is its argument */
    o->targets[0].name = "target";
    o->n_targets = 1;
    return true;
}

void cli_print_cmin_help(FILE *f)
{
    cli_puts("corpus-distill cmin: a drop-in for afl-cmin\n\n"
             "corpus-distill cmin -i DIR -o DIR [options] -- /path/to/target_app [ ... ]\n\n"
             "  -i dir        - input directory (or archive) with the starting corpus\n"
             "  -o dir        - output directory for the chosen files (missing or empty)\n"
             "  -T N|all      - workers (default 1; all: the online CPUs)\n"
             "  -t msec       - run time limit per run (default: calibrated)\n"
             "  -m megs       - memory limit per run (default: none)\n"
             "  -f file       - location read by the target (made here, removed after)\n"
             "  -e            - solve for edge coverage only, ignore hit counts\n"
             "  -C            - keep crashing inputs, reject everything else\n"
             "  -A            - allow crashes and timeouts among the inputs kept\n\n"
             "Hit counts are classified correctly; the files kept cover every tuple of the inputs\n"
             "at the fewest bytes found.  See corpus-distill(1), CMIN.\n",
             f);
}

bool cli_cmin_check_out(const char *out)
{
    DIR *d = opendir(out);
    if (!d)
        return errno == ENOENT || cmin_usage("cannot use '%s' as the output directory", out);
    bool empty = true;
    for (struct dirent *e; empty && (e = readdir(d));)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    if (!empty) {
        cli_line(stderr, "[-] Error: directory '%s' exists and is not empty - delete it first.",
                 out);
        return false;
    }
    return true;
}

/* cd_emit_opts.keep: the seeds; with -A the crash and timeout reproducers too; with -C only the
 * crash reproducers. */
static bool kept(const struct cd_result_example *ex, void *ctx)
{
    const struct cli_opts *o = ctx;
    if (ex->left_out)
        return false;
    if (o->cmin_crashes)
        return ex->reproducer;
    return cd_result_is_seed(ex) || (o->cmin_allow_any && ex->reproducer);
}

/* The last part of origin (after its last '/', or an archive's ':'), "input" when empty. */
static const char *base_of(const char *origin)
{
    const char *b = strrchr(origin, '/');
    b = b ? b + 1 : strrchr(origin, ':') ? strrchr(origin, ':') + 1 : origin;
    return *b && strcmp(b, ".") && strcmp(b, "..") ? b : "input";
}

/* cd_emit_opts.name: the input's own name, then NAME,1, NAME,2, ... while taken. */
static const char *named(const struct cd_result_example *ex, unsigned k, char *buf, size_t cap,
                         void *ctx)
{
    (void)ctx;
    if (k >= 100000)
        return NULL;
    if (k)
        snprintf(buf, cap, "%.250s,%u", base_of(ex->origin), k);
    else
        snprintf(buf, cap, "%.250s", base_of(ex->origin));
    return buf;
}

enum cd_status cli_cmin_write(const struct cli_opts *o, const struct cd_result *r, size_t *files,
                              struct cd_error *err)
{
    struct cd_emit_opts eo = {.seed_dir = o->out_dir, .keep = kept, .name = named,
                              .pick_ctx = (void *)o};
    struct cd_emit_stats stats = {0};
    struct cd_emit_stage *stage = NULL;
    *files = 0;
    enum cd_status st = cd_emit_stage_seeds(&stage, &eo, r, &stats, err);
    if (st == CD_OK)
        st = cd_emit_commit(stage, NULL, err); /* frees the stage */
    if (st == CD_OK)
        *files = stats.seeds;
    return st;
}

int cli_cmin(const struct cli_opts *o)
{
    struct cd_error err;
    struct cd_result result;
    uint64_t inputs = 0;
    bool stopped = false;
    char *out = strdup(o->out_dir); /* as the run names it: no trailing slash */
    for (size_t n = out ? strlen(out) : 0; n > 1 && out[n - 1] == '/';)
        out[--n] = '\0';
    if (!out || !cli_cmin_check_out(out)) {
        free(out);
        return 1;
    }
    cli_line(stdout, "corpus minimization tool for afl++ (corpus-distill cmin)");
    cli_line(stdout, "%s", "");
    cli_line(stdout, "[*] Obtaining traces for the input files in '%s'.", o->inputs[0]);
    fflush(stdout);
    if (cli_run_engine(o, &result, &inputs, &stopped) != CLI_EXIT_OK) {
        free(out);
        return 1;
    }
    size_t tuples = 0, files = 0;
    for (size_t i = 0; i < result.n_labels; i++)
        tuples += !cd_labels_is_outcome(result.labels[i].id);
    cli_line(stdout, "[+] Found %zu unique tuples across %llu "
             "files.", tuples, (unsigned long long)inputs);
    int code = stopped ? 1 : 0;
    if (cli_cmin_write(o, &result, &files, &err) != CD_OK) {
        cli_line(stderr, "[-] Error: %s", err.msg);
        code = 1;
    } else if (!files) {
        cli_line(stderr, "[-] Error: no inputs kept%s; nothing written to '%s'",
                 o->cmin_crashes ? " (-C: none crashed)" : "", out);
        code = 1;
    } else {
        cli_line(stdout, "[+] Narrowed down to %zu files, saved in '%s'.", files, out);
    }
    cd_result_release(&result);
    free(out);
    return code;
}
