/* Unit tests of the command-line parser (src/cli/cli_options.c), without AFL++ or a target: what
 * each option sets, the usage errors (a missing -o, input or target, a bad value), audit's
 * forms, cmin's (afl-cmin's options), and --help fitting one screen. */
#include "cli/cli.h"
#include "harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parses the NULL-terminated words (argv[0] added) into *o with stderr silenced; returns what
 * cli_parse returned. The words must outlive *o. */
static bool parse(struct cli_opts *o, char **words)
{
    static char *argv[64];
    int argc = 0;
    argv[argc++] = "corpus-distill";
    while (*words && argc < 63)
        argv[argc++] = *words++;
    argv[argc] = NULL;
    fflush(stderr);
    int saved = dup(2);
    FILE *null = fopen("/dev/null", "w");
    dup2(fileno(null), 2);
    bool ok = cli_parse(argc, argv, o);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(null);
    return ok;
}

#define PARSE(o, ...) parse(o, (char *[]){__VA_ARGS__, NULL})

static void test_cli_distill_options(void)
{
    struct cli_opts o;
    CU_ASSERT_FATAL(PARSE(&o, "-t", "500", "-m", "64", "-j", "2", "--no-bind", "--seed", "7",
                          "--order", "uniform", "--max-time", "2h", "--max-execs", "1000", "-e",
                          "--max-input-size", "2M", "--seen-mem", "64k", "--checkpoint", "10m",
                          "-q", "--json-summary", "--tar", "--force", "--ids", "ids.txt", "a",
                          "b.tar.zst", "-o", "out", "--", "./target", "-x", "@@"));
    CU_ASSERT_EQUAL(o.mode, CLI_MODE_DISTILL);
    CU_ASSERT_EQUAL(o.timeout_ms, 500);
    CU_ASSERT_EQUAL(o.mem_limit_mb, 64);
    CU_ASSERT_EQUAL(o.jobs, 2);
    CU_ASSERT(o.no_bind && o.edges_only && o.json_summary && o.tar && o.force);
    CU_ASSERT_EQUAL(o.seed, 7);
    CU_ASSERT_EQUAL(o.order, CD_ORDER_UNIFORM);
    CU_ASSERT_EQUAL(o.max_time_s, 7200);
    CU_ASSERT_EQUAL(o.max_execs, 1000);
    CU_ASSERT_EQUAL(o.max_input_size, 2u << 20);
    CU_ASSERT_EQUAL(o.seen_mem, 64u << 10);
    CU_ASSERT_EQUAL(o.checkpoint_s, 600);
    CU_ASSERT_STRING_EQUAL(o.ids, "ids.txt");
    CU_ASSERT_EQUAL(o.verbosity, -1);
    CU_ASSERT_STRING_EQUAL(o.out_dir, "out");
    CU_ASSERT_EQUAL_FATAL(o.n_inputs, 2);
    CU_ASSERT_STRING_EQUAL(o.inputs[0], "a");
    CU_ASSERT_STRING_EQUAL(o.inputs[1], "b.tar.zst");
    CU_ASSERT_STRING_EQUAL(o.targets[0].argv[0], "./target");
    CU_ASSERT_STRING_EQUAL(o.targets[0].argv[2], "@@");
    CU_ASSERT_PTR_NULL(o.targets[0].argv[3]);
    free(o.inputs);

    /* defaults */
    CU_ASSERT_FATAL(PARSE(&o, "in", "-o", "out", "--", "./t", "@@"));
    CU_ASSERT(o.timeout_ms == 0 && o.jobs == 0 && o.max_time_s == 0 && !o.no_reduce);
    CU_ASSERT_EQUAL(o.order, CD_ORDER_COVER); /* the default */
    CU_ASSERT_EQUAL(o.max_input_size, 1u << 20);
    CU_ASSERT_EQUAL(o.checkpoint_s, 300);
    CU_ASSERT_EQUAL(o.verbosity, 0);
    CU_ASSERT(o.collapse == 0.5 && !o.accept_collapse && o.generations == 1);
    free(o.inputs);
}

/* The guard's options and restore's forms. */
static void test_cli_guard_options(void)
{
    struct cli_opts o;
    CU_ASSERT_FATAL(PARSE(&o, "--collapse", "0.25", "--accept-collapse", "--generations", "7",
                          "in", "-o", "out", "--", "./t", "@@"));
    CU_ASSERT(o.collapse == 0.25 && o.accept_collapse && o.generations == 7);
    cli_opts_release(&o);
    CU_ASSERT_FATAL(PARSE(&o, "--collapse", "0", "--generations", "0", "in", "-o", "out", "--",
                          "./t"));
    CU_ASSERT(o.collapse == 0 && o.generations == 0);
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "--collapse", "1.5", "in", "-o", "out", "--", "./t"));
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "--collapse", "nan", "in", "-o", "out", "--", "./t"));
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "--generations", "-1", "in", "-o", "out", "--", "./t"));
    cli_opts_release(&o);
    CU_ASSERT_FATAL(PARSE(&o, "restore", "seeds/", "20261128T031500Z"));
    CU_ASSERT(o.mode == CLI_MODE_RESTORE && !o.restore_list);
    CU_ASSERT_STRING_EQUAL(o.out_dir, "seeds/");
    CU_ASSERT_STRING_EQUAL(o.restore_gen, "20261128T031500Z");
    cli_opts_release(&o);
    CU_ASSERT_FATAL(PARSE(&o, "restore", "--manifest", "m.json", "--state", "st",
                          "--crashes", "cr", "seeds"));
    CU_ASSERT(o.manifest && strcmp(o.manifest, "m.json") == 0 && o.state &&
              strcmp(o.state, "st") == 0 && o.crashes_dir && strcmp(o.crashes_dir, "cr") == 0);
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "restore", "seeds", "--state"));
    cli_opts_release(&o);
    CU_ASSERT_FATAL(PARSE(&o, "restore", "--list", "-q", "seeds"));
    CU_ASSERT(o.mode == CLI_MODE_RESTORE && o.restore_list && o.verbosity < 0 && !o.restore_gen);
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "restore")); /* no DIR */
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "restore", "a", "b", "c"));
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "restore", "--bogus", "a"));
    cli_opts_release(&o);
}

/* An input that cannot be opened ends the run (exit 4), unless marked '?' in --inputs-from or it
 * is the output directory itself (the first night). */
static void test_cli_guard_operands(void)
{
    char *dir = cd_test_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char list[4200], there[4200], gone[4200], out[4200], why[4400];
    snprintf(list, sizeof list, "%s/list", dir);
    snprintf(there, sizeof there, "%s/there", dir);
    snprintf(gone, sizeof gone, "%s/gone", dir);
    snprintf(out, sizeof out, "%s/seeds", dir);
    cd_test_write_text(there, "x");
    char text[9000];
    snprintf(text, sizeof text, "%s\n?%s\n", there, gone);
    cd_test_write_text(list, text);
    struct cli_opts o;
    CU_ASSERT_FATAL(PARSE(&o, "--inputs-from", list, "-q", "-o", out, "--", "./t"));
    CU_ASSERT_EQUAL_FATAL(o.n_inputs, 2);
    CU_ASSERT_STRING_EQUAL(o.inputs[1], gone); /* the mark is not part of the name */
    CU_ASSERT_PTR_EQUAL(o.optional[0], o.inputs[1]);
    CU_ASSERT_PTR_NULL(o.optional[1]);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2); /* the optional one's warning */
    CU_ASSERT_EQUAL(cli_guard_operands(&o, why, sizeof why), CLI_EXIT_OK);
    dup2(saved, 2);
    close(saved);
    close(null);
    cli_opts_release(&o);
    char out_slash[4300];
    snprintf(out_slash, sizeof out_slash, "%s/", out);
    CU_ASSERT_FATAL(PARSE(&o, out_slash, there, "-o", out, "--", "./t"));
    CU_ASSERT_EQUAL(cli_guard_operands(&o, why, sizeof why), CLI_EXIT_OK);
    cli_opts_release(&o);
    CU_ASSERT_FATAL(PARSE(&o, there, gone, "-o", out, "--", "./t"));
    CU_ASSERT_EQUAL(cli_guard_operands(&o, why, sizeof why), CLI_EXIT_INPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "No such file or directory"));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, gone));
    cli_opts_release(&o);
    cd_test_rmdir(dir);
}

/* --shard K/N, and merge: a distill run whose operands are states, without --shard. */
/* --inputs-from and --target-from: one item a line, blanks and globs kept, blank and '#' lines
 * skipped, CRLF taken; a list naming nothing, a missing file, or a target named twice is a usage
 * error. */
static void test_cli_lists(void)
{
    char *dir = cd_test_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char in[4200], tg[4200], empty[4200];
    snprintf(in, sizeof in, "%s/inputs", dir);
    snprintf(tg, sizeof tg, "%s/target", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);
    cd_test_write_text(in, "# inputs\n/a b/c\n\n/x*\r\n");
    cd_test_write_text(tg, "/t dir/t\n@@\n-x\n");
    cd_test_write_text(empty, "# nothing\n\n");
    struct cli_opts o;
    CU_ASSERT_FATAL(PARSE(&o, "first", "--inputs-from", in, "--target-from", tg, "-o", "s"));
    CU_ASSERT_EQUAL_FATAL(o.n_inputs, 3);
    CU_ASSERT_STRING_EQUAL(o.inputs[0], "first");
    CU_ASSERT_STRING_EQUAL(o.inputs[1], "/a b/c");
    CU_ASSERT_STRING_EQUAL(o.inputs[2], "/x*");
    CU_ASSERT_STRING_EQUAL(o.targets[0].argv[0], "/t dir/t");
    CU_ASSERT_STRING_EQUAL(o.targets[0].argv[1], "@@");
    CU_ASSERT_STRING_EQUAL(o.targets[0].argv[2], "-x");
    CU_ASSERT_PTR_NULL(o.targets[0].argv[3]);
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "--inputs-from", empty, "-o", "s", "--", "./t"));
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "--inputs-from", "/nonexistent/list", "-o", "s", "--", "./t"));
    cli_opts_release(&o);
    /* --target-from and "-- TARGET" are two targets, the command line's first */
    CU_ASSERT_FATAL(PARSE(&o, "in", "--target-from", tg, "-o", "s", "--", "./t"));
    CU_ASSERT_EQUAL(o.n_targets, 2);
    CU_ASSERT_STRING_EQUAL(o.targets[0].argv[0], "./t");
    CU_ASSERT_STRING_EQUAL(o.targets[1].argv[0], "/t dir/t");
    CU_ASSERT_STRING_EQUAL(o.targets[0].name, "t");
    CU_ASSERT_STRING_EQUAL(o.targets[1].name, "t.2");
    cli_opts_release(&o);
    /* an empty target between two "--" is an error */
    CU_ASSERT_FALSE(PARSE(&o, "in", "-o", "s", "--", "--", "./t"));
    cli_opts_release(&o);
    cd_test_rmdir(dir);
}

static void test_cli_shards_and_merge(void)
{
    struct cli_opts o;
    CU_ASSERT_FATAL(PARSE(&o, "--shard", "3/16", "in", "-o", "out", "--", "./t", "@@"));
    CU_ASSERT(o.shard == 3 && o.shards == 16 && !o.merge);
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "merge", "-j", "2", "a.state", "b.state", "-o", "out", "--", "./t"));
    CU_ASSERT(o.merge && o.mode == CLI_MODE_DISTILL && o.jobs == 2 && o.shards == 0);
    CU_ASSERT_EQUAL_FATAL(o.n_inputs, 2);
    CU_ASSERT_STRING_EQUAL(o.inputs[1], "b.state");
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "merge", "-o", "out", "--", "./t")); /* no state */
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "merge", "--shard", "1/2", "a.state", "-o", "out", "--", "./t"));
    CU_ASSERT(o.merge && o.shard == 1 && o.shards == 2); /* a label shard of the merge */
    free(o.inputs);
}

static void test_cli_usage_errors(void)
{
    struct cli_opts o;
    CU_ASSERT(!PARSE(&o, "in", "--", "./t", "@@")); /* no -o */
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "-o", "out", "--", "./t", "@@")); /* no input */
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "in", "-o", "out")); /* no target */
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "in", "-o", "out", "--"));
    free(o.inputs);
    static const char *bad[][2] = {
        {"-t", "abc"}, {"-t", "0"}, {"-j", "0"}, {"--order", "random"}, {"--max-time", "0"},
        {"--max-time", "3d"}, {"--max-execs", "-5"}, {"--max-input-size", "12X"},
        {"--seen-mem", "100"}, {"--seed", "x"}, {"-m", "lots"}, {"--shard", "0/4"},
        {"--shard", "5/4"}, {"--shard", "1/0"}, {"--shard", "2/4x"}, {"--shard", "2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bool ok = PARSE(&o, (char *)bad[i][0], (char *)bad[i][1], "in", "-o", "out", "--", "./t");
        CU_ASSERT(!ok);
        if (ok)
            printf("\n  %s %s was taken\n", bad[i][0], bad[i][1]);
        free(o.inputs);
    }
    CU_ASSERT(!PARSE(&o, "--bogus", "in", "-o", "out", "--", "./t"));
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "in", "-o")); /* an option without its value */
    free(o.inputs);
    /* --help and -V need nothing else */
    CU_ASSERT(PARSE(&o, "--help") && o.mode == CLI_MODE_HELP && !o.help_page);
    free(o.inputs);
    CU_ASSERT(PARSE(&o, "-V") && o.mode == CLI_MODE_VERSION);
    free(o.inputs);
    /* --help GROUP takes the next word only when it names a group */
    CU_ASSERT(PARSE(&o, "--help", "budget") && o.mode == CLI_MODE_HELP &&
              o.help_page && strcmp(o.help_page, "budget") == 0);
    free(o.inputs);
    CU_ASSERT(PARSE(&o, "-h", "all") && o.help_page && strcmp(o.help_page, "all") == 0);
    free(o.inputs);
    CU_ASSERT(PARSE(&o, "--help", "in/") && o.mode == CLI_MODE_HELP && !o.help_page);
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "--help=bogus"));
    free(o.inputs);
    CU_ASSERT(PARSE(&o, "merge", "--help") && o.help_page && !strcmp(o.help_page, "merge"));
    free(o.inputs);
    CU_ASSERT(PARSE(&o, "restore", "-h") && o.help_page && !strcmp(o.help_page, "restore"));
    free(o.inputs);
    /* -t NAME=MS: one target's timeout; with one target, the run's */
    CU_ASSERT_FATAL(PARSE(&o, "in", "-o", "out", "-t", "b=500", "-t", "40", "--", "./a", "@@",
                          "--", "./b", "@@"));
    CU_ASSERT(o.timeout_ms == 40 && o.n_target_values == 1 &&
              strcmp(o.target_values[0].target, "b") == 0 && o.target_values[0].value == 500);
    struct cd_exec_opts eo = {.timeout_ms = 40};
    cli_settings_apply_target(&o, 0, &eo);
    CU_ASSERT_EQUAL(eo.timeout_ms, 40);
    cli_settings_apply_target(&o, 1, &eo);
    CU_ASSERT_EQUAL(eo.timeout_ms, 500);
    cli_opts_release(&o);
    CU_ASSERT_FATAL(PARSE(&o, "in", "-o", "out", "-t", "a=300", "--", "./a", "@@"));
    CU_ASSERT(o.timeout_ms == 300 && o.n_target_values == 0);
    cli_opts_release(&o);
    CU_ASSERT(!PARSE(&o, "in", "-o", "out", "-t", "c=300", "--", "./a", "@@", "--", "./b"));
    cli_opts_release(&o);
    CU_ASSERT(!PARSE(&o, "in", "-o", "out", "-t", "a=0", "--", "./a", "@@", "--", "./b"));
    cli_opts_release(&o);
    CU_ASSERT(!PARSE(&o, "in", "-o", "out", "-t", "=5", "--", "./a", "@@", "--", "./b"));
    cli_opts_release(&o);
    /* -f FILE: one target, one worker */
    CU_ASSERT(PARSE(&o, "in", "-o", "out", "-f", "fixed", "--", "./t", "fixed") &&
              o.input_file && strcmp(o.input_file, "fixed") == 0);
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "in", "-o", "out", "-f", "fixed", "-j", "2", "--", "./t"));
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "in", "-o", "out", "-f", "fixed", "--", "./t", "--", "./u", "@@"));
    cli_opts_release(&o);
}

static void test_cli_audit_forms(void)
{
    struct cli_opts o;
    CU_ASSERT_FATAL(PARSE(&o, "audit", "m.json", "--seed", "3f78", "--json"));
    CU_ASSERT_EQUAL(o.mode, CLI_MODE_AUDIT);
    CU_ASSERT_STRING_EQUAL(o.audit_manifest, "m.json");
    CU_ASSERT_STRING_EQUAL(o.audit_seed, "3f78");
    CU_ASSERT(o.audit_json);
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "audit", "m.json", "--diff", "old.json"));
    CU_ASSERT_STRING_EQUAL(o.audit_diff, "old.json");
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "audit"));
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "audit", "m.json", "--seed", "a", "--label", "b"));
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "audit", "m.json", "n.json"));
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "audit", "m.json", "--label"));
    free(o.inputs);
    /* source questions: --coverage goes with any one of them */
    CU_ASSERT_FATAL(PARSE(&o, "audit", "m.json", "--coverage", "./t.cov", "--function", "f"));
    CU_ASSERT_STRING_EQUAL(o.audit_coverage, "./t.cov");
    CU_ASSERT_STRING_EQUAL(o.audit_function, "f");
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "audit", "m.json", "--uncovered", "--coverage", "./t.cov"));
    CU_ASSERT(o.audit_uncovered);
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "audit", "m.json", "--line", "a.c:3"));
    CU_ASSERT_STRING_EQUAL(o.audit_line, "a.c:3");
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "audit", "m.json", "--function", "f", "--uncovered"));
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "audit", "m.json", "--uncovered", "--line", "a.c:3"));
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "audit", "m.json", "--coverage"));
    free(o.inputs);
    CU_ASSERT(PARSE(&o, "audit", "m.json", "--coverage", "b", "-j", "3") && o.jobs == 3);
    free(o.inputs);
    CU_ASSERT(!PARSE(&o, "audit", "m.json", "-j", "0"));
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "audit", "m.json", "--ids", "ids.txt", "--label", "000001:1"));
    CU_ASSERT_STRING_EQUAL(o.ids, "ids.txt");
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "audit", "m.json", "--html", "r", "--coverage", "c"));
    CU_ASSERT_STRING_EQUAL(o.audit_html, "r");
    free(o.inputs);
}

/* Every help page: at most 23 lines of at most 80 columns (--help all aside, which is every
 * option, one a line); the short one naming every exit status. */
static void test_cli_help_fits(void)
{
    const char *pages[] = {NULL, "run", "budget", "output", "nightly", "targets", "info",
                           "merge", "restore", "all"};
    for (size_t p = 0; p < sizeof pages / sizeof pages[0]; p++) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        cli_print_help(f, pages[p]);
        fclose(f);
        unsigned lines = 0, width = 0, col = 0;
        for (size_t i = 0; i < size; i++) {
            if (text[i] == '\n') {
                lines++;
                col = 0;
            } else if (++col > width) {
                width = col;
            }
        }
        if ((pages[p] && !strcmp(pages[p], "all") ? lines < 40 : lines > 23) || width > 80)
            printf("\n  help page %s: %u lines, %u columns\n", pages[p] ? pages[p] : "(short)",
                   lines, width);
        CU_ASSERT(pages[p] && !strcmp(pages[p], "all") ? lines >= 40 : lines <= 23);
        CU_ASSERT(width <= 80);
        if (!pages[p]) {
            CU_ASSERT_PTR_NOT_NULL(strstr(text, "6 out of memory"));
            CU_ASSERT_PTR_NOT_NULL(strstr(text, "7 collapse refused"));
        }
        free(text);
    }
}

static void test_cli_cmin_options(void)
{
    struct cli_opts o;
    CU_ASSERT_FATAL(PARSE(&o, "cmin", "-i", "in", "-o", "out", "-T", "3", "-e", "-t", "500",
                          "-m", "none", "--", "./t", "@@"));
    CU_ASSERT(o.cmin && o.no_reduce && o.no_state && o.edges_only);
    CU_ASSERT_EQUAL(o.jobs, 3);
    CU_ASSERT_EQUAL(o.timeout_ms, 500);
    CU_ASSERT_EQUAL(o.mem_limit_mb, 0);
    CU_ASSERT_EQUAL(o.n_inputs, 1);
    CU_ASSERT_STRING_EQUAL(o.inputs[0], "in");
    CU_ASSERT_STRING_EQUAL(o.out_dir, "out");
    CU_ASSERT_STRING_EQUAL(o.targets[0].argv[0], "./t");
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "cmin", "-C", "-T", "all", "-i", "in", "-o", "out", "--", "./t"));
    CU_ASSERT(o.cmin_crashes && !o.cmin_allow_any);
    CU_ASSERT_EQUAL(o.jobs, 0);
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "cmin", "-h"));
    CU_ASSERT_EQUAL(o.mode, CLI_MODE_CMIN_HELP);
    free(o.inputs);
    CU_ASSERT_FATAL(PARSE(&o, "cmin", "-f", "x", "-i", "in", "-o", "out", "--", "./t", "x"));
    CU_ASSERT(o.input_file && strcmp(o.input_file, "x") == 0);
    free(o.inputs);
    /* refused: binary-only modes, -f with workers, a missing -o or target, -C with -A, a bad -T */
    static char *bad[][12] = {
        {"cmin", "-Q", "-i", "in", "-o", "out", "--", "./t", NULL},
        {"cmin", "-f", "x", "-T", "2", "-i", "in", "-o", "out", "--", "./t", NULL},
        {"cmin", "-i", "in", "--", "./t", NULL},
        {"cmin", "-i", "in", "-o", "out", NULL},
        {"cmin", "-C", "-A", "-i", "in", "-o", "out", "--", "./t", NULL},
        {"cmin", "-T", "0", "-i", "in", "-o", "out", "--", "./t", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT(!parse(&o, bad[i]));
        CU_ASSERT(o.cmin); /* main exits 1 for it, as afl-cmin does */
        free(o.inputs);
    }
}

/* Several targets: each "--" starts one, --target-from adds one, --targets one a line with an
 * optional "NAME:"; names come from the programs' file names, made unique; more than 16, an
 * empty one, a bad or repeated given name are usage errors. */
static void test_cli_targets(void)
{
    char *dir = cd_test_mkdtemp();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char list[4200], bad[4200], twice[4200], many[4200];
    snprintf(list, sizeof list, "%s/targets", dir);
    snprintf(bad, sizeof bad, "%s/bad", dir);
    snprintf(twice, sizeof twice, "%s/twice", dir);
    snprintf(many, sizeof many, "%s/many", dir);
    cd_test_write_text(list, "# harnesses\nxpath: /f/fuzz_xpath @@ -x\n\n  /f/html\t@@\r\n");
    cd_test_write_text(bad, "../x: /f/t @@\n");
    cd_test_write_text(twice, "a: /f/t @@\na: /f/u @@\n");
    char text[4096] = "";
    for (int k = 0; k < 16; k++)
        strcat(text, "/f/t @@\n");
    cd_test_write_text(many, text);
    struct cli_opts o;
    CU_ASSERT_FATAL(PARSE(&o, "in", "-o", "s", "--targets", list, "--", "./bin/xml", "@@", "--",
                          "./xml", "-y", "@@"));
    CU_ASSERT_EQUAL_FATAL(o.n_targets, 4);
    CU_ASSERT_STRING_EQUAL(o.targets[0].name, "xml");
    CU_ASSERT_STRING_EQUAL(o.targets[1].name, "xml.2");
    CU_ASSERT_STRING_EQUAL(o.targets[2].name, "xpath");
    CU_ASSERT_STRING_EQUAL(o.targets[3].name, "html");
    CU_ASSERT_STRING_EQUAL(o.targets[1].argv[1], "-y");
    CU_ASSERT_PTR_NULL(o.targets[1].argv[3]);
    CU_ASSERT_STRING_EQUAL(o.targets[2].argv[0], "/f/fuzz_xpath");
    CU_ASSERT_STRING_EQUAL(o.targets[2].argv[2], "-x");
    CU_ASSERT_PTR_NULL(o.targets[2].argv[3]);
    CU_ASSERT_STRING_EQUAL(o.targets[3].argv[1], "@@");
    CU_ASSERT_PTR_NULL(o.targets[3].argv[2]);
    CU_ASSERT_PTR_EQUAL(o.targets[0].argv, o.targets[0].argv);
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "in", "-o", "s", "--targets", bad));
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "in", "-o", "s", "--targets", twice));
    cli_opts_release(&o);
    CU_ASSERT_FATAL(PARSE(&o, "in", "-o", "s", "--targets", many));
    CU_ASSERT_EQUAL(o.n_targets, 16);
    CU_ASSERT_STRING_EQUAL(o.targets[15].name, "t.16");
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "in", "-o", "s", "--targets", many, "--", "./t"));
    cli_opts_release(&o);
    CU_ASSERT_FALSE(PARSE(&o, "in", "-o", "s", "--", "./t", "--"));
    cli_opts_release(&o);
    cd_test_rmdir(dir);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_cli_distill_options", test_cli_distill_options},
        {"test_cli_usage_errors", test_cli_usage_errors},
        {"test_cli_shards_and_merge", test_cli_shards_and_merge},
        {"test_cli_lists", test_cli_lists},
        {"test_cli_guard_options", test_cli_guard_options},
        {"test_cli_guard_operands", test_cli_guard_operands},
        {"test_cli_targets", test_cli_targets},
        {"test_cli_audit_forms", test_cli_audit_forms},
        {"test_cli_help_fits", test_cli_help_fits},
        {"test_cli_cmin_options", test_cli_cmin_options},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("cli_options", tests);
}
