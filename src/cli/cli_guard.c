/* The guard against a collapse: once the first pass is over, before anything replaces the output,
 * the run is compared with itself and with what it would replace (the manifest beside the output),
 * and a night that would make the corpus worse is refused: no input ran without crashing or
 * hanging, every input showed one trace, or the seeds would show far fewer edges than the last
 * run's did. It reads the table, the first pass's counts and the last manifest; it writes nothing
 * (cli_run.c writes a refused run's output aside). */
#include "table/cd_table.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The distinct edges of target t among the n label ids in v, sorted (a slot's classes then are
 * neighbours); outcome ids are passed over. */
static uint64_t count_edges(const uint32_t *v, size_t n, unsigned t)
{
    uint64_t edges = 0;
    for (size_t i = 0; i < n; i++)
        edges += !cd_labels_is_outcome(v[i]) && cd_labels_target(v[i]) == t &&
                 (i == 0 || cd_labels_slot(v[i]) != cd_labels_slot(v[i - 1]));
    return edges;
}

void cli_guard_before(struct cli_guard *g, const char *manifest_path, const struct cli_opts *o)
{
    struct cd_manifest m;
    if (!manifest_path || cd_manifest_read(manifest_path, &m, NULL) != CD_OK)
        return;
    g->before = true;
    g->before_seeds = m.n_seeds;
    g->edges_before = calloc(o->n_targets ? o->n_targets : 1, sizeof *g->edges_before);
    uint32_t *ids = g->edges_before ? malloc((m.n_labels ? m.n_labels : 1) * sizeof *ids) : NULL;
    size_t n = 0;
    for (size_t i = 0; ids && i < m.n_labels; i++)
        if (!m.labels[i].reproducer && !m.labels[i].left_out)
            ids[n++] = m.labels[i].id;
    if (ids)
        qsort(ids, n, sizeof *ids, cmp_u32);
    /* The last run's targets by name: a target this run has is compared with its own edges. */
    for (unsigned t = 0; ids && t < o->n_targets; t++) {
        unsigned k = 0;
        if (m.info.n_targets > 1 || o->n_targets > 1) {
            /* a manifest of one target names none */
            while (k < m.info.n_targets && (!m.info.targets[k].name ||
                                            strcmp(m.info.targets[k].name, o->targets[t].name)))
                k++;
            if (k == m.info.n_targets && (t > 0 || m.info.n_targets > 1))
                continue; /* a target the last run did not have */
            if (k == m.info.n_targets)
                k = 0; /* one target then, the first of several now */
        }
        g->edges_before[t] = count_edges(ids, n, k);
    }
    free(ids);
    cd_manifest_release(&m);
}

void cli_guard_release(struct cli_guard *g)
{
    free(g->edges_before);
    g->edges_before = NULL;
}

/* The outcome labels target t's crashing inputs showed, as "crash:SIGABRT, timeout" into buf. */
static void outcomes_of(const struct cd_table *table, unsigned t, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cd_table_n_labels(table) && n + 40 < cap; i++) {
        uint32_t id = cd_table_label_at(table, i)->id;
        if (!cd_labels_is_outcome(id) || cd_labels_target(id) != t || cd_labels_is_bug(id))
            continue;
        char name[64];
        cd_labels_format(cd_labels_in_target(id, 0), name, sizeof name);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", name);
    }
}

/* Whether operand names the seed directory out (the nightly run names its own output, which is
 * not there yet the first night): the same text but for trailing slashes, or the same file. */
static bool names_output(const char *operand, const char *out)
{
    size_t a = strlen(operand), b = strlen(out);
    while (a > 1 && operand[a - 1] == '/')
        a--;
    while (b > 1 && out[b - 1] == '/')
        b--;
    if (a == b && strncmp(operand, out, a) == 0)
        return true;
    struct stat x, y;
    return stat(operand, &x) == 0 && stat(out, &y) == 0 && x.st_dev == y.st_dev &&
           x.st_ino == y.st_ino;
}

bool cli_guard_check(struct cli_guard *g, const struct cli_opts *o,
                     const struct cd_result_stats *rs, const struct cd_table *table,
                     const struct cd_target *targets, bool warm, uint32_t rerun)
{
    size_t n_labels = cd_table_n_labels(table), n = 0;
    uint32_t *ids = malloc((n_labels ? n_labels : 1) * sizeof *ids);
    for (size_t i = 0; ids && i < n_labels; i++) {
        const struct cd_table_label *l = cd_table_label_at(table, i);
        if (!l->best->outcome) /* as the seeds may show it: found labels too */
            ids[n++] = l->id;
    }
    if (!ids)
        return false; /* out of memory: no figures, no refusal */
    qsort(ids, n, sizeof *ids, cmp_u32);
    for (unsigned t = 0; t < o->n_targets && !g->cause; t++) {
        uint64_t edges = count_edges(ids, n, t);
        uint64_t before = g->edges_before ? g->edges_before[t] : 0;
        const struct cd_result_first *f = &rs->first[t];
        char who[300];
        snprintf(who, sizeof who, "'%s'", o->n_targets > 1 ? o->targets[t].name
                                                           : o->targets[t].argv[0]);
        /* A warm start ran only what is new on an unchanged target: its seeds are still there,
           and crashing new inputs (a fuzzer's crashes/) are no sign of a broken build. */
        bool fresh = !warm || (rerun >> t & 1);
        /* Every input crashing is a broken build when the last seeds would go with it, or when
           they all crashed alike (input-independent: at start-up); crashes that differ are a
           set of bugs to triage. */
        if (fresh && f->runs > 0 && f->ok == 0 &&
            (before || (f->runs >= 2 && !f->traces_differ))) {
            char kinds[200];
            outcomes_of(table, t, kinds, sizeof kinds);
            g->cause = "crashes";
            snprintf(g->line, sizeof g->line,
                     "every one of %llu input%s crashed or hung on %s%s%s%s",
                     (unsigned long long)f->runs, f->runs == 1 ? "" : "s", who,
                     *kinds ? " (" : "", kinds, *kinds ? ")" : "");
        } else if (fresh && f->ok >= 2 && f->ok == f->runs && !f->traces_differ) {
            g->cause = "same-traces";
            /* the executor knows how the input goes in: @@, shared memory, a libFuzzer
               binary's own open of the file, or stdin, which a run must then have read */
            const struct cd_exec_info *in = &targets[t].info;
            bool no_input = !in->file_input && !in->shm_testcase && !in->stdin_read;
            snprintf(g->line, sizeof g->line,
                     "every one of %llu inputs showed the same labels on %s: %s",
                     (unsigned long long)f->ok, who,
                     no_input ? "its arguments hold no @@ and it never read its standard input, "
                                "so it never saw an input (is @@ missing where the input file "
                                "goes?)"
                              : "it does not see its input (a build that stops before reading "
                                "it, or a command line that does not give it)");
        } else if (o->collapse > 0 && before && (double)edges < o->collapse * (double)before) {
            g->cause = "edges";
            bool own_input = false;
            for (size_t i = 0; !own_input && i < o->n_inputs; i++)
                own_input = names_output(o->inputs[i], o->out_dir);
            snprintf(g->line, sizeof g->line, "the new seeds show %llu edge%s on %s against "
                     "%llu the last seeds showed (under --collapse %g)%s",
                     (unsigned long long)edges, edges == 1 ? "" : "s", who,
                     (unsigned long long)before, o->collapse,
                     own_input ? "" : "; the seed directory is not among the inputs");
        }
    }
    free(ids);
    if (g->cause && o->accept_collapse) {
        g->accepted = true;
        return false;
    }
    return g->cause != NULL;
}

static bool is_optional(const struct cli_opts *o, const char *operand)
{
    for (size_t i = 0; o->optional && o->optional[i]; i++)
        if (o->optional[i] == operand)
            return true;
    return false;
}

int cli_guard_operands(const struct cli_opts *o, char *why, size_t cap)
{
    for (size_t i = 0; !o->merge && i < o->n_inputs; i++) {
        const char *p = o->inputs[i];
        if (strcmp(p, "-") == 0)
            continue;
        /* O_NONBLOCK: a FIFO opens without a writer; its reading is the ingest's */
        int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd >= 0) {
            close(fd);
            continue;
        }
        int e = errno;
        if (e == ENOENT && o->out_dir && names_output(p, o->out_dir))
            continue; /* the first night of "DIR ... -o DIR" */
        if (is_optional(o, p)) { /* said under -q too: it changes what is written */
            cli_warn("optional input '%s' skipped: %s", p, strerror(e));
            continue;
        }
        snprintf(why, cap, "input '%s': %s; nothing was written (an input that may be missing "
                 "is marked with '?' in --inputs-from)", p, strerror(e));
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}
