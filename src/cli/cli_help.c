/* What the option tables print: each mode's --help (the short page, a group's, all options,
 * merge's and restore's; audit's) and the bash completion, so that neither can drift from the
 * parser. */
#include "cli_option_table.h"

#include <stdio.h>
#include <string.h>

static const char *const group_titles[GROUP_COUNT] = {
    "Run", "Budget", "Output", "Nightly runs", "Several targets", "Information"};

static const char usage[] =
    "Usage: corpus-distill [OPTIONS] INPUT... -o DIR -- TARGET [ARGS|@@] [-- ...]\n"
    "       corpus-distill merge|audit|restore|cmin ...   (each with its own --help)\n";

static const char exits[] =
    "Exit: 0 complete, 1 incomplete, 2 usage, 3 target, 4 input, 5 output,\n"
    "      6 out of memory, 7 collapse refused.  Manual: man corpus-distill\n";

/* One option's line: its names and argument, then what it does. */
static void option_line(FILE *f, const struct cli_option *opt)
{
    char col[40];
    int n = 0;
    if (opt->short_name)
        n = snprintf(col, sizeof col, "-%c%s", opt->short_name, opt->long_name ? ", " : "");
    if (opt->long_name)
        n += snprintf(col + n, sizeof col - (size_t)n, "--%s", opt->long_name);
    if (opt->arg)
        snprintf(col + n, sizeof col - (size_t)n, " %s", opt->arg);
    cli_line(f, "  %-22s %s", col, opt->help);
}

/* The options of group g (only the short page's when brief), under its title. */
static void group(FILE *f, int g, bool brief)
{
    cli_line(f, "%s:", group_titles[g]);
    for (size_t i = 0; i < cli_n_options; i++)
        if ((int)cli_options[i].group == g && (cli_options[i].brief || !brief))
            option_line(f, &cli_options[i]);
}

static void print_merge(FILE *f)
{
    cli_puts("Usage: corpus-distill merge STATE... -o DIR [OPTIONS] -- TARGET [ARGS|@@]\n"
             "Folds the states of shards (runs with --shard K/N, or earlier merges) into the\n"
             "table one run over all their inputs would hold, reduces what is not finished\n"
             "and writes seeds, reproducers, manifest and state as a run does.  The states\n"
             "must come from this target and the settings that change labels (-t, -m, -e).\n"
             "  -o DIR                 the merged seeds directory (required)\n"
             "  STATE...               the shards' state files (DIR.state of each)\n"
             "  --shard K/N            reduce only label shard K of N; merge the N after\n"
             "  --no-reduce            fold only, no shrinking\n"
             "  --max-time SECONDS     stop after this long (s, m, h): best so far kept\n"
             "  --max-execs N          stop after N executions\n"
             "Every run option applies (--help all).\n"
             "Details: corpus-distill(1), SHARDS AND MERGE\n",
             f);
}

static void print_restore(FILE *f)
{
    cli_puts("Usage: corpus-distill restore [--list] [OPTIONS] DIR [GENERATION]\n"
             "Puts back an output a later run replaced (--generations N keeps N of them):\n"
             "seeds, reproducers, manifest and state, the current ones kept as a generation.\n"
             "  --list                 the generations kept, newest first\n"
             "  GENERATION             the one to put back (default: the newest)\n"
             "  --crashes DIR          the reproducers, where the runs were told to put them\n"
             "  --manifest FILE        the manifest, where the runs were told to put it\n"
             "  --state FILE           the state, where the runs were told to put it\n"
             "  -q, --quiet            errors only\n"
             "  --allow-root           run as root (refused otherwise)\n"
             "Exit: 0 restored, 4 no such generation, 5 the output cannot be replaced,\n"
             "      6 out of memory.  Details: corpus-distill(1), NIGHTLY RUNS\n",
             f);
}

void cli_print_help(FILE *f, const char *page)
{
    int g = page ? cli_opt_group_named(page) : -1;
    if (page && (strcmp(page, "merge") == 0 || strcmp(page, "restore") == 0)) {
        (page[0] == 'm' ? print_merge : print_restore)(f);
        return;
    }
    cli_puts(usage, f);
    if (g >= 0 && g < GROUP_COUNT) { /* one group */
        group(f, g, false);
        cli_puts("Every option: --help all.  Manual: man corpus-distill\n", f);
        return;
    }
    cli_puts("INPUT: files, directories, tar, tar.zst or zip archives.  @@: the input file.\n", f);
    for (int k = 0; k < GROUP_COUNT; k++)
        if (g == GROUP_COUNT || k < GROUP_TARGETS)
            group(f, k, g != GROUP_COUNT);
    if (g == GROUP_COUNT)
        cli_puts("Environment: AFL_MAP_SIZE AFL_CRASH_EXITCODE AFL_SKIP_BIN_CHECK AFL_DEBUG\n"
                 "             AFL_NO_STARTUP_CALIBRATION AFL_NO_AFFINITY\n"
                 "             AFL_LLVM_DOCUMENT_IDS TMPDIR\n",
                 f);
    else
        cli_puts("More: --help GROUP (run budget output nightly targets info), --help all\n", f);
    cli_puts(exits, f);
}

void cli_print_audit_help(FILE *f)
{
    cli_puts("Usage: corpus-distill audit MANIFEST [OPTIONS] [-- COVERAGE-BUILD ARGS (@@)]\n"
             "Without a question: one line per seed.  Details: corpus-distill(1), AUDIT\n",
             f);
    for (size_t i = 0; i < cli_n_audit_options; i++) {
        const struct cli_audit_option *a = &cli_audit_options[i];
        char col[32];
        snprintf(col, sizeof col, "%s%s%s", a->name, a->arg ? " " : "", a->arg ? a->arg : "");
        cli_line(f, "  %-20s %s", col, a->help);
    }
}

#define options cli_options
#define N_OPTIONS cli_n_options
#define audit_opts cli_audit_options
#define N_AUDIT_OPTS cli_n_audit_options

/* What a completion offers after an option that takes arg: directories, files, a word list or
 * nothing (a number). */
static const char *complete_arg(const char *arg)
{
    if (strcmp(arg, "DIR") == 0)
        return "compgen -d";
    if (strcmp(arg, "FILE") == 0 || strcmp(arg, "BIN") == 0 || strcmp(arg, "OLD.json") == 0)
        return "compgen -f";
    if (strcmp(arg, "O") == 0)
        return "orders";
    if (strcmp(arg, "[GROUP]") == 0)
        return "groups";
    return NULL;
}

/* The argument name of option i of the run's table, or of audit's; NULL for a flag. */
static const char *arg_of(bool audit, size_t i)
{
    return audit ? audit_opts[i].arg : options[i].arg;
}

/* One "case" arm of the completion: the options of one mode (run or audit) that take arg. */
static void completion_case(FILE *f, const char *mode, const char *arg, bool audit)
{
    const char *how = complete_arg(arg);
    bool any = false;
    for (size_t i = 0; i < (audit ? N_AUDIT_OPTS : N_OPTIONS); i++) {
        const char *a = arg_of(audit, i);
        if (!a || strcmp(a, arg) != 0)
            continue;
        char names[2][64];
        unsigned n = 0;
        if (audit) {
            snprintf(names[n++], sizeof names[0], "%s", audit_opts[i].name);
        } else {
            if (options[i].short_name)
                snprintf(names[n++], sizeof names[0], "-%c", options[i].short_name);
            if (options[i].long_name)
                snprintf(names[n++], sizeof names[0], "--%s", options[i].long_name);
        }
        for (unsigned k = 0; k < n; k++) {
            cli_text(f, "%s%s:%s", any ? "|" : "        ", mode, names[k]);
            any = true;
        }
    }
    if (!any)
        return;
    if (how && (strcmp(how, "orders") == 0 || strcmp(how, "groups") == 0))
        cli_text(f, ")\n            mapfile -t COMPREPLY < <(compgen -W \"$%s\" -- \"$cur\")\n"
                    "            return ;;\n", how);
    else if (how)
        cli_text(f, ")\n            mapfile -t COMPREPLY < <(%s -- \"$cur\")\n"
                    "            return ;;\n", how);
    else
        cli_puts(")\n            return ;;\n", f);
}

/* The "case" arms of one mode: one per argument name, at its first option. */
static void completion_cases(FILE *f, bool audit)
{
    for (size_t i = 0; i < (audit ? N_AUDIT_OPTS : N_OPTIONS); i++) {
        const char *arg = arg_of(audit, i);
        size_t k = 0;
        while (arg && k < i && !(arg_of(audit, k) && strcmp(arg_of(audit, k), arg) == 0))
            k++;
        if (arg && k == i)
            completion_case(f, audit ? "audit" : "run", arg, audit);
    }
}

void cli_print_completion(FILE *f)
{
    cli_puts("# bash completion for corpus-distill, generated from its option tables "
             "(src/cli/cli_options.c)\n"
             "_corpus_distill() {\n"
             "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} i "
             "mode=run\n",
             f);
    cli_puts("    local orders='", f);
    for (int k = 0; k < CD_ORDER_COUNT; k++)
        cli_text(f, "%s%s", k ? " " : "", cd_distill_order_name(k));
    cli_puts("'\n    local groups='all", f);
    for (int g = 0; g < GROUP_COUNT; g++)
        cli_text(f, " %s", cli_opt_group_names[g]);
    cli_puts("'\n    local run_opts='", f);
    bool first = true;
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (options[i].short_name)
            cli_text(f, "%s-%c", first ? "" : " ", options[i].short_name), first = false;
        if (options[i].long_name)
            cli_text(f, "%s--%s", first ? "" : " ", options[i].long_name), first = false;
    }
    cli_puts("'\n    local audit_opts='-h", f);
    for (size_t i = 0; i < N_AUDIT_OPTS; i++)
        cli_text(f, " %s", audit_opts[i].name);
    cli_puts("'\n"
             "    # after the last \"--\": a target, then its arguments (files, or @@)\n"
             "    for ((i = COMP_CWORD - 1; i >= 1; i--)); do\n"
             "        if [[ ${COMP_WORDS[i]} == -- ]]; then\n"
             "            if ((i + 1 == COMP_CWORD)); then\n"
             "                mapfile -t COMPREPLY < <(compgen -c -- \"$cur\")\n"
             "            else\n"
             "                mapfile -t COMPREPLY < <(compgen -W @@ -- \"$cur\"; "
             "compgen -f -- \"$cur\")\n"
             "            fi\n"
             "            return\n"
             "        fi\n"
             "    done\n"
             "    [[ ${COMP_WORDS[1]} == audit ]] && mode=audit\n"
             "    case $mode:$prev in\n",
             f);
    completion_cases(f, false);
    completion_cases(f, true);
    cli_puts("    esac\n"
             "    if [[ $cur == -* ]]; then\n"
             "        local words=$run_opts\n"
             "        [[ $mode == audit ]] && words=$audit_opts\n"
             "        mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n"
             "        return\n"
             "    fi\n"
             "    # one name a line, never split at blanks nor globbed (mapfile, not $(...))\n"
             "    mapfile -t COMPREPLY < <(((COMP_CWORD == 1)) && compgen -W 'audit merge' -- "
             "\"$cur\";\n"
             "                             compgen -f -- \"$cur\")\n"
             "}\n"
             "complete -o filenames -F _corpus_distill corpus-distill\n",
             f);
}
