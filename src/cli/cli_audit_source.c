/* Audit in source terms: with --coverage BIN, every seed and reproducer of the manifest not yet
 * measured on that build runs once on it (cd_srccov), and the record beside the manifest
 * (STEM.source.json for STEM.manifest.json) is rewritten; a record of another build is started
 * afresh. Then --function and --line list the seeds that reach a place, smallest first,
 * --uncovered the functions, lines and branch directions no seed reaches, per file; without a
 * question, what each seed reaches; --html writes the report (cli_audit_html.c). Text by default,
 * JSON with --json. Exit 1 when no seed reaches the place asked for, 4 when there is no record
 * and no --coverage. */
#include "common/cd_file.h"
#include "output/cd_srccov.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The record's path beside manifest: STEM.source.json for STEM.manifest.json, else
 * MANIFEST.source.json. Owned. */
static char *record_path(const char *manifest)
{
    size_t n = strlen(manifest), sl = strlen(".manifest.json");
    char *p = malloc(n + sizeof ".source.json");
    if (!p)
        return NULL;
    if (n > sl && strcmp(manifest + n - sl, ".manifest.json") == 0)
        n -= sl;
    memcpy(p, manifest, n);
    strcpy(p + n, ".source.json");
    return p;
}

/* One example to measure: where it is, and its entry in the record once measured. */
struct job {
    char *path;
    struct cd_srccov_seed seed;
};

/* Workers measuring jobs[next..n) at once; c (which knows the program) is only read meanwhile. */
struct pool {
    struct cd_srccov *c;
    char **argv;
    unsigned timeout_ms;
    struct job *jobs;
    size_t n, next;
    pthread_mutex_t mu;
    bool failed;
    struct cd_error err;
};

struct worker {
    struct pool *p;
    char work[4200]; /* the run's directory (at most 4095 bytes) and "/wN" */
};

static void *measure_worker(void *arg)
{
    struct worker *w = arg;
    struct pool *p = w->p;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->failed ? p->n : p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            return NULL;
        struct cd_error err;
        if (cd_srccov_measure_seed(p->c, p->argv, p->jobs[i].path, p->timeout_ms, w->work,
                                   &p->jobs[i].seed, &err) != CD_OK) {
            pthread_mutex_lock(&p->mu);
            if (!p->failed)
                p->err = err;
            p->failed = true;
            pthread_mutex_unlock(&p->mu);
        }
    }
}

/* Measures jobs[0..n) into c: one at a time until c knows the program (the first that leaves a
 * profile), then with up to n_workers at once, each in a directory of its own under work; the
 * record gets them in the manifest's order, whatever order they end in. */
static enum cd_status measure_jobs(struct cd_srccov *c, char **argv, unsigned timeout_ms,
                                   struct job *jobs, size_t n, unsigned n_workers,
                                   const char *work, struct cd_error *err)
{
    size_t i = 0;
    for (; i < n && c->n_files == 0; i++) {
        CD_FORWARD_IF_ERROR(cd_srccov_measure_seed(c, argv, jobs[i].path, timeout_ms, work,
                                                   &jobs[i].seed, err));
        CD_FORWARD_IF_ERROR(cd_srccov_add(c, &jobs[i].seed, err));
    }
    struct pool p = {.c = c, .argv = argv, .timeout_ms = timeout_ms, .jobs = jobs + i,
                     .n = n - i};
    pthread_mutex_init(&p.mu, NULL);
    if (n_workers > p.n)
        n_workers = (unsigned)p.n;
    struct worker *ws = calloc(n_workers + 1, sizeof *ws);
    pthread_t *ts = calloc(n_workers + 1, sizeof *ts);
    unsigned started = 0;
    for (unsigned k = 0; ws && ts && k < n_workers; k++) {
        ws[k].p = &p;
        snprintf(ws[k].work, sizeof ws[k].work, "%s/w%u", work, k);
        if (mkdir(ws[k].work, 0700) != 0)
            break;
        if (pthread_create(&ts[k], NULL, measure_worker, &ws[k]) != 0) {
            rmdir(ws[k].work);
            break;
        }
        started++;
    }
    if (started == 0 && p.n) { /* no thread: measure here */
        struct worker here = {.p = &p};
        snprintf(here.work, sizeof here.work, "%s", work);
        measure_worker(&here);
    }
    for (unsigned k = 0; k < started; k++) {
        pthread_join(ts[k], NULL);
        rmdir(ws[k].work);
    }
    free(ws);
    free(ts);
    pthread_mutex_destroy(&p.mu);
    enum cd_status st = CD_OK;
    if (p.failed) {
        *err = p.err;
        st = CD_FAILED;
    }
    for (size_t k = 0; k < p.n && st == CD_OK; k++)
        st = cd_srccov_add(c, &p.jobs[k].seed, err);
    return st;
}

/* Adds to jobs the examples of list (in dir, open as dfd) that neither c nor jobs hold yet,
 * each read the safe way (cd_manifest_read_example_at) and copied into the private directory
 * work, so that the coverage build runs the very bytes the manifest names: CLI_EXIT_OK, or an
 * exit code after a message. */
static int add_jobs_at(const struct cd_srccov *c, int dfd, const char *dir,
                       const struct cd_manifest_example *list, size_t n, const char *work,
                       struct job *jobs, size_t *n_jobs)
{
    for (size_t i = 0; i < n; i++) {
        bool queued = false; /* the same bytes as a seed and a reproducer: measured once */
        for (size_t k = 0; k < *n_jobs && !queued; k++)
            queued = strcmp(jobs[k].seed.sha1, list[i].sha1) == 0;
        if (queued || cd_srccov_find(c, list[i].sha1))
            continue;
        char why[600];
        size_t len;
        uint8_t *data = cd_manifest_read_example_at(dfd, dir, &list[i], &len, why, sizeof why);
        if (!data) {
            cli_msg("%s (audit measures the examples the manifest lists, in the directories "
                    "beside it)", why);
            return CLI_EXIT_INPUT;
        }
        struct job *j = &jobs[*n_jobs];
        size_t plen = strlen(work) + 48;
        j->path = malloc(plen);
        if (j->path)
            snprintf(j->path, plen, "%s/x-%.40s", work, list[i].sha1);
        FILE *f = j->path ? fopen(j->path, "wx") : NULL; /* no fsync: a scratch copy */
        bool ok = f && fwrite(data, 1, len, f) == len;
        if (f && fclose(f) != 0)
            ok = false;
        free(data);
        if (!ok) {
            cli_msg("cannot write '%s': %s", j->path ? j->path : work,
                    j->path ? strerror(errno) : "out of memory");
            int code = j->path ? CLI_EXIT_OUTPUT : CLI_EXIT_NOMEM;
            if (j->path)
                unlink(j->path);
            free(j->path);
            j->path = NULL;
            return code;
        }
        (*n_jobs)++;
        snprintf(j->seed.sha1, sizeof j->seed.sha1, "%s", list[i].sha1);
        j->seed.size = list[i].size;
    }
    return CLI_EXIT_OK;
}

/* add_jobs_at with dir opened once: every example comes from the one directory. */
static int add_jobs(const struct cd_srccov *c, const char *dir,
                    const struct cd_manifest_example *list, size_t n, const char *work,
                    struct job *jobs, size_t *n_jobs)
{
    int dfd = cd_manifest_open_dir(dir);
    int code = add_jobs_at(c, dfd, dir, list, n, work, jobs, n_jobs);
    if (dfd >= 0)
        close(dfd);
    return code;
}

/* Where the directory dir that a manifest names is: beside the manifest, by its last name, as -o
 * puts it by default. A manifest is a file anyone may write: the directory it names is never
 * taken as it is (an absolute path, or a path out of the manifest's directory), so that audit
 * reads only what sits beside the manifest. Owned; NULL when out of memory. */
static char *locate_dir(const char *manifest, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && dir[b - 1] != '/')
        b--;
    if (n == b || (n - b == 1 && dir[b] == '.') || (n - b == 2 && !strncmp(dir + b, "..", 2)))
        b = n = 0, dir = "-"; /* no name: one that is never there */
    const char *slash = strrchr(manifest, '/');
    size_t m = slash ? (size_t)(slash - manifest) + 1 : 0, len = m + (n - b) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%.*s%.*s", (int)m, manifest, n == b ? 1 : (int)(n - b),
                 n == b ? dir : dir + b);
    return p;
}

/* Brings c up to date with the examples of m (the manifest at manifest) on the coverage build
 * bin with the arguments args (NULL-ended; NULL: "@@" alone, the example's file), never the
 * manifest's (a manifest is anyone's file: what it says is not run), with up to n_workers at
 * once, and with check_files (a report is asked for) checks c's files against the build's
 * (cd_srccov_check_files): returns an exit code. */
static int measure(struct cd_srccov *c, const struct cd_manifest *m, const char *manifest,
                   const char *bin, char *const *args, unsigned n_workers, bool check_files)
{
    char sha1[41];
    cli_target_sha1(bin, sha1);
    if (!sha1[0]) {
        cli_msg("cannot read the coverage build '%s'", bin);
        return CLI_EXIT_TARGET;
    }
    if (strcmp(c->binary_sha1, sha1) != 0) {
        cd_srccov_release(c);
        memcpy(c->binary_sha1, sha1, sizeof sha1);
    }
    static char *const file_only[] = {"@@", NULL};
    if (!args)
        args = file_only;
    size_t argc = 0;
    while (args[argc])
        argc++;
    char **argv = calloc(argc + 2, sizeof *argv);
    struct job *jobs = calloc(m->n_seeds + m->n_reproducers + 1, sizeof *jobs);
    size_t n_jobs = 0;
    const char *tmp = getenv("TMPDIR");
    char work[4096];
    snprintf(work, sizeof work, "%s/corpus-distill-cov.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int code = CLI_EXIT_OK;
    bool made = false;
    char *seed_dir = locate_dir(manifest, m->info.seed_dir);
    char *crashes_dir = m->info.crashes_dir ? locate_dir(manifest, m->info.crashes_dir) : NULL;
    if (!argv || !jobs || !seed_dir || (m->info.crashes_dir && !crashes_dir)) {
        cli_msg("out of memory");
        code = CLI_EXIT_NOMEM;
    } else if (!(made = mkdtemp(work) != NULL)) {
        cli_msg("cannot create '%s' for the profiles: %s", work, strerror(errno));
        code = CLI_EXIT_OUTPUT;
    } else {
        code = add_jobs(c, seed_dir, m->seeds, m->n_seeds, work, jobs, &n_jobs);
        if (code == CLI_EXIT_OK && crashes_dir)
            code = add_jobs(c, crashes_dir, m->reproducers, m->n_reproducers, work, jobs,
                            &n_jobs);
    }
    if (code == CLI_EXIT_OK) {
        argv[0] = (char *)bin;
        for (size_t i = 0; i < argc; i++)
            argv[i + 1] = args[i];
        /* A coverage build runs unoptimised and counts every region: give it room. */
        unsigned first = m->info.targets[0].info.timeout_ms;
        unsigned timeout_ms = first ? 10 * first : 10000;
        if (timeout_ms < 1000)
            timeout_ms = 1000;
        struct cd_error err;
        /* The files a record names are read for the report only where this build lists them:
           a record is a file anyone may write. */
        char *empty = check_files ? cd_file_join(work, "empty") : NULL;
        int fd = empty ? open(empty, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
        if (fd >= 0)
            close(fd);
        if (measure_jobs(c, argv, timeout_ms, jobs, n_jobs, n_workers, work, &err) != CD_OK ||
            (fd >= 0 && !c->files_checked &&
             cd_srccov_check_files(c, argv, empty, timeout_ms, work, &err) != CD_OK)) {
            cli_msg("%s", err.msg);
            code = cli_exit_for(&err, CLI_EXIT_TARGET);
        } else {
            cli_msg("source coverage: %zu example%s measured now, %zu in "
                    "all, on '%s'", n_jobs, n_jobs == 1 ? "" : "s", c->n_seeds, bin);
        }
        if (empty)
            unlink(empty);
        free(empty);
    }
    for (size_t i = 0; jobs && i < n_jobs; i++) {
        unlink(jobs[i].path);
        free(jobs[i].path);
        cd_srccov_seed_release(&jobs[i].seed, c->n_files);
    }
    if (made) /* only the copies were in it */
        rmdir(work);
    free(jobs);
    free(argv);
    free(seed_dir);
    free(crashes_dir);
    return code;
}

static int by_size(const void *a, const void *b)
{
    const struct cd_srccov_seed *x = *(const struct cd_srccov_seed *const *)a,
                                *y = *(const struct cd_srccov_seed *const *)b;
    return x->size != y->size ? (x->size < y->size ? -1 : 1) : strcmp(x->sha1, y->sha1);
}

/* Lists the seeds of c that reach function fn (fn >= 0) or line line of file file, smallest
 * first; exit 1 when none does. */
static int list_reaching(const struct cd_srccov *c, const struct cd_manifest *m, long fn,
                         long file, uint32_t line, const char *what, bool as_json)
{
    const struct cd_srccov_seed **hits = calloc(c->n_seeds + 1, sizeof *hits);
    if (!hits) {
        cli_msg("out of memory");
        return CLI_EXIT_NOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < c->n_seeds; i++) {
        const struct cd_srccov_seed *s = &c->seeds[i];
        if (!s->measured)
            continue;
        if (fn >= 0 ? cd_srccov_has(s->fns, s->n_fns, (uint32_t)fn)
                    : cd_srccov_has(s->lines[file], s->n_lines[file], line))
            hits[n++] = s;
    }
    qsort(hits, n, sizeof *hits, by_size);
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        bool repro = false;
        for (size_t k = 0; k < m->n_reproducers; k++)
            repro |= strcmp(m->reproducers[k].sha1, hits[i]->sha1) == 0;
        if (as_json) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "sha1", json_object_new_string(hits[i]->sha1));
            json_object_object_add(o, "size", json_object_new_uint64(hits[i]->size));
            json_object_object_add(o, "reproducer", json_object_new_boolean(repro));
            json_object_array_add(a, o);
        } else {
            cli_line(stdout, "%s %8llu B%s", hits[i]->sha1, (unsigned long long)hits[i]->size,
                     repro ? " (reproducer)" : "");
        }
    }
    if (as_json) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "place", json_object_new_string(what));
        json_object_object_add(j, "reached_by", a);
        cli_put_json_as(j, JSON_C_TO_STRING_SPACED);
    } else {
        json_object_put(a);
        if (n == 0)
            cli_line(stdout, "no seed reaches %s", what);
    }
    free(hits);
    return n ? CLI_EXIT_OK : CLI_EXIT_INCOMPLETE;
}

/* The functions, lines and branch directions of each file that no measured seed reaches. */
static int uncovered(const struct cd_srccov *c, bool as_json)
{
    bool *fn_hit = calloc(c->n_fns + 1, sizeof *fn_hit);
    bool *br_hit = calloc(c->n_branches + 1, sizeof *br_hit);
    if (!fn_hit || !br_hit) {
        free(fn_hit);
        free(br_hit);
        cli_msg("out of memory");
        return CLI_EXIT_NOMEM;
    }
    cd_srccov_mark_reached(c, fn_hit, br_hit);
    size_t *brs_all = calloc(c->n_files + 1, sizeof *brs_all);
    size_t *brs_left = calloc(c->n_files + 1, sizeof *brs_left);
    for (size_t i = 0; brs_all && brs_left && i < c->n_branches; i++) {
        brs_all[c->branches[i].file]++;
        brs_left[c->branches[i].file] += !br_hit[i];
    }
    json_object *files = json_object_new_array();
    size_t fns_left = 0, lines_left = 0, lines_all = 0, branches_left = 0;
    for (size_t f = 0; f < c->n_files; f++) {
        json_object *fa = json_object_new_array(), *la = json_object_new_array();
        for (size_t i = 0; i < c->n_fns; i++)
            if (c->fns[i].file == f && !fn_hit[i]) {
                json_object *o = json_object_new_object();
                json_object_object_add(o, "name", json_object_new_string(c->fns[i].name));
                json_object_object_add(o, "line", json_object_new_int64(c->fns[i].line));
                json_object_array_add(fa, o);
            }
        for (size_t k = 0; k < c->n_lines[f]; k++) {
            if (!cd_srccov_line_reached(c, f, c->lines[f][k]))
                json_object_array_add(la, json_object_new_int64(c->lines[f][k]));
        }
        size_t nf = json_object_array_length(fa), nl = json_object_array_length(la);
        size_t bl = brs_left ? brs_left[f] : 0, ba = brs_all ? brs_all[f] : 0;
        fns_left += nf;
        lines_left += nl;
        lines_all += c->n_lines[f];
        branches_left += bl;
        if (!as_json) { /* names from the record, shown as text whatever bytes they hold */
            char q[4200];
            cli_line(stdout, "%s: %zu function%s, %zu of %zu lines and %zu of %zu branch "
                     "directions reached by no seed", cd_shown(c->files[f], q, sizeof q), nf,
                     nf == 1 ? "" : "s", nl, c->n_lines[f], bl, ba);
            for (size_t i = 0; i < nf; i++) {
                json_object *o = json_object_array_get_idx(fa, i), *x, *y;
                json_object_object_get_ex(o, "name", &x);
                json_object_object_get_ex(o, "line", &y);
                cli_line(stdout, "  %s (line %d)", cd_shown(json_object_get_string(x), q, sizeof q),
                         json_object_get_int(y));
            }
        }
        json_object *o = json_object_new_object();
        json_object_object_add(o, "file", json_object_new_string(c->files[f]));
        json_object_object_add(o, "functions", fa);
        json_object_object_add(o, "lines", la);
        json_object_object_add(o, "branches_uncovered", json_object_new_uint64(bl));
        json_object_array_add(files, o);
    }
    if (as_json) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "functions", json_object_new_uint64(c->n_fns));
        json_object_object_add(j, "functions_uncovered", json_object_new_uint64(fns_left));
        json_object_object_add(j, "lines", json_object_new_uint64(lines_all));
        json_object_object_add(j, "lines_uncovered", json_object_new_uint64(lines_left));
        json_object_object_add(j, "branches", json_object_new_uint64(c->n_branches));
        json_object_object_add(j, "branches_uncovered", json_object_new_uint64(branches_left));
        json_object_object_add(j, "files", files);
        cli_put_json_as(j, JSON_C_TO_STRING_SPACED);
    } else {
        cli_line(stdout, "in all: %zu of %zu functions, %zu of %zu lines and %zu of %zu branch "
                 "directions reached by no seed", fns_left, c->n_fns, lines_left, lines_all,
                 branches_left, c->n_branches);
        json_object_put(files);
    }
    free(fn_hit);
    free(br_hit);
    free(brs_all);
    free(brs_left);
    return CLI_EXIT_OK;
}

/* What each example reaches: functions, lines and branch directions. */
static int summary(const struct cd_srccov *c, bool as_json)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < c->n_seeds; i++) {
        const struct cd_srccov_seed *s = &c->seeds[i];
        size_t lines = 0;
        for (size_t f = 0; s->measured && f < c->n_files; f++)
            lines += s->n_lines[f];
        if (as_json) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "sha1", json_object_new_string(s->sha1));
            json_object_object_add(o, "size", json_object_new_uint64(s->size));
            json_object_object_add(o, "measured", json_object_new_boolean(s->measured));
            json_object_object_add(o, "functions", json_object_new_uint64(s->n_fns));
            json_object_object_add(o, "lines", json_object_new_uint64(lines));
            json_object_object_add(o, "branches", json_object_new_uint64(s->n_brs));
            json_object_array_add(a, o);
        } else if (s->measured) {
            cli_line(stdout, "%s %8llu B %5zu functions %6zu lines %6zu branch directions", s->sha1,
                     (unsigned long long)s->size, s->n_fns, lines, s->n_brs);
        } else {
            cli_line(stdout, "%s %8llu B no profile (it crashed or hung on the coverage build)",
                     s->sha1, (unsigned long long)s->size);
        }
    }
    if (as_json) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "functions", json_object_new_uint64(c->n_fns));
        json_object_object_add(j, "seeds", a);
        cli_put_json_as(j, JSON_C_TO_STRING_SPACED);
    } else {
        json_object_put(a);
    }
    return CLI_EXIT_OK;
}

/* Answers the question o asks of c. */
static int answer(const struct cli_opts *o, const struct cd_srccov *c, const struct cd_manifest *m)
{
    if (o->audit_function) {
        long fn = cd_srccov_find_fn(c, o->audit_function);
        if (fn < 0) {
            cli_msg("no function '%s' in the coverage build",
                    o->audit_function);
            return CLI_EXIT_INCOMPLETE;
        }
        return list_reaching(c, m, fn, -1, 0, c->fns[fn].name, o->audit_json);
    }
    if (o->audit_line) {
        const char *colon = strrchr(o->audit_line, ':');
        char *end = NULL;
        unsigned long line = colon ? strtoul(colon + 1, &end, 10) : 0;
        if (!colon || !end || *end || line == 0) {
            cli_msg("--line takes FILE:N, not '%s'", o->audit_line);
            return CLI_EXIT_USAGE;
        }
        char *file = strndup(o->audit_line, (size_t)(colon - o->audit_line));
        long f = file ? cd_srccov_find_file(c, file) : -1;
        free(file);
        if (f < 0) {
            cli_msg("no file '%.*s' in the coverage build",
                    (int)(colon - o->audit_line), o->audit_line);
            return CLI_EXIT_INCOMPLETE;
        }
        return list_reaching(c, m, -1, f, (uint32_t)line, o->audit_line, o->audit_json);
    }
    if (o->audit_uncovered)
        return uncovered(c, o->audit_json);
    return summary(c, o->audit_json);
}

int cli_audit_source(const struct cli_opts *o, const struct cd_manifest *m)
{
    char *path = record_path(o->audit_manifest);
    if (!path) {
        cli_msg("out of memory");
        return CLI_EXIT_NOMEM;
    }
    struct cd_srccov c;
    struct cd_error err;
    int code = CLI_EXIT_OK;
    if (cd_srccov_load(&c, path, &err) != CD_OK) {
        cli_msg("%s", err.msg);
        free(path);
        return cli_exit_for(&err, CLI_EXIT_INPUT);
    }
    if (o->audit_coverage) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        code = measure(&c, m, o->audit_manifest, o->audit_coverage, o->audit_cov_args,
                       o->jobs ? o->jobs : cpus > 0 ? (unsigned)cpus : 1, o->audit_html != NULL);
        if (cd_srccov_save(&c, path, &err) != CD_OK) { /* what was measured is kept */
            cli_msg("%s", err.msg);
            code = code != CLI_EXIT_OK ? code : cli_exit_for(&err, CLI_EXIT_OUTPUT);
        }
    } else if (c.n_seeds == 0 && !o->audit_html) {
        cli_msg("no source coverage recorded in '%s': run audit with "
                "--coverage BIN, a coverage build of the target, first", path);
        code = CLI_EXIT_INPUT;
    }
    if (code == CLI_EXIT_OK && o->audit_html) {
        char *seeds = locate_dir(o->audit_manifest, m->info.seed_dir ? m->info.seed_dir : ".");
        char *crashes = m->info.crashes_dir ? locate_dir(o->audit_manifest, m->info.crashes_dir)
                                            : NULL;
        code = seeds ? cli_audit_html(o, m, seeds, crashes, c.n_seeds ? &c : NULL)
                     : CLI_EXIT_NOMEM;
        free(seeds);
        free(crashes);
    }
    if (code == CLI_EXIT_OK && (!o->audit_html || o->audit_function || o->audit_line ||
                                o->audit_uncovered))
        code = answer(o, &c, m);
    cd_srccov_release(&c);
    free(path);
    return code;
}

/* A place some seed of a record reaches: a function (line 0, name set), a line of a file, or a
 * branch direction (sub: 1 + 2 * block + direction). */
struct place {
    const char *name; /* function name, or file path */
    uint32_t line, sub;
};

static int by_place(const void *a, const void *b)
{
    const struct place *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->sub < y->sub ? -1 : x->sub > y->sub;
}

enum place_kind { PLACE_FUNCTIONS, PLACE_LINES, PLACE_BRANCHES };

/* The functions, lines or branch directions that some measured seed of c reaches, sorted, into
 * an owned array; *n its length. NULL when out of memory. */
static struct place *reached(const struct cd_srccov *c, enum place_kind kind, size_t *n)
{
    size_t cap = kind == PLACE_FUNCTIONS ? c->n_fns : c->n_branches;
    for (size_t f = 0; kind == PLACE_LINES && f < c->n_files; f++)
        cap += c->n_lines[f];
    struct place *v = malloc(cap * sizeof *v + 1);
    bool *hit = calloc((c->n_fns > c->n_branches ? c->n_fns : c->n_branches) + 1, sizeof *hit);
    *n = 0;
    if (!v || !hit) {
        free(v);
        free(hit);
        return NULL;
    }
    if (kind != PLACE_LINES)
        cd_srccov_mark_reached(c, kind == PLACE_FUNCTIONS ? hit : NULL,
                               kind == PLACE_BRANCHES ? hit : NULL);
    if (kind == PLACE_BRANCHES) {
        for (size_t i = 0; i < c->n_branches; i++)
            if (hit[i]) {
                const struct cd_srccov_branch *b = &c->branches[i];
                v[(*n)++] = (struct place){c->files[b->file], b->line, 1 + 2 * b->block + b->dir};
            }
    } else if (kind == PLACE_FUNCTIONS) {
        for (size_t i = 0; i < c->n_fns; i++)
            if (hit[i])
                v[(*n)++] = (struct place){c->fns[i].name, 0, 0};
    } else {
        for (size_t f = 0; f < c->n_files; f++)
            for (size_t k = 0; k < c->n_lines[f]; k++)
                if (cd_srccov_line_reached(c, f, c->lines[f][k]))
                    v[(*n)++] = (struct place){c->files[f], c->lines[f][k], 0};
    }
    free(hit);
    qsort(v, *n, sizeof *v, by_place);
    return v;
}

/* One merge walk of the sorted old and new places: what new reaches that old did not (gained)
 * and the reverse (lost), as strings. */
static void compare(const struct place *old, size_t n_old, const struct place *now, size_t n_now,
                    json_object *gained, json_object *lost)
{
    size_t i = 0, k = 0;
    char buf[4200];
    while (i < n_now || k < n_old) {
        int c = i >= n_now ? 1 : k >= n_old ? -1 : by_place(&now[i], &old[k]);
        const struct place *p = c < 0 ? &now[i] : &old[k];
        if (p->sub)
            snprintf(buf, sizeof buf, "%s:%u:%u:%s", p->name, (unsigned)p->line,
                     (unsigned)(p->sub - 1) / 2, (p->sub - 1) % 2 ? "false" : "true");
        else if (p->line)
            snprintf(buf, sizeof buf, "%s:%u", p->name, (unsigned)p->line);
        else
            snprintf(buf, sizeof buf, "%s", p->name);
        if (c < 0)
            json_object_array_add(gained, json_object_new_string(buf));
        else if (c > 0)
            json_object_array_add(lost, json_object_new_string(buf));
        i += c <= 0;
        k += c >= 0;
    }
}

void cli_audit_source_diff(const char *now_manifest, const char *old_manifest, json_object *j)
{
    char *paths[2] = {record_path(old_manifest), record_path(now_manifest)};
    struct cd_srccov c[2];
    struct cd_error err;
    bool have[2] = {false, false};
    for (int s = 0; s < 2; s++) {
        memset(&c[s], 0, sizeof c[s]);
        if (paths[s] && cd_srccov_load(&c[s], paths[s], &err) != CD_OK)
            cli_warn("%s", err.msg);
        have[s] = c[s].n_seeds > 0;
    }
    if (have[0] != have[1])
        cli_warn("no source coverage recorded in '%s' (audit "
                 "--coverage BIN first): the diff is in labels only", paths[have[0] ? 1 : 0]);
    if (have[0] && have[1]) {
        json_object *src = json_object_new_object();
        static const char *const what[3] = {"functions", "lines", "branches"};
        static const char *const one[3] = {"function", "line", "branch"};
        for (int kind = PLACE_FUNCTIONS; kind <= PLACE_BRANCHES; kind++) {
            size_t n_old, n_now;
            struct place *old = reached(&c[0], kind, &n_old), *now = reached(&c[1], kind, &n_now);
            json_object *gained = json_object_new_array(), *lost = json_object_new_array();
            if (old && now)
                compare(old, n_old, now, n_now, gained, lost);
            char key[64];
            snprintf(key, sizeof key, "%s_old", what[kind]);
            json_object_object_add(src, key, json_object_new_uint64(n_old));
            snprintf(key, sizeof key, "%s_new", what[kind]);
            json_object_object_add(src, key, json_object_new_uint64(n_now));
            snprintf(key, sizeof key, "%s_gained", what[kind]);
            json_object_object_add(src, key, gained);
            snprintf(key, sizeof key, "%s_lost", what[kind]);
            json_object_object_add(src, key, lost);
            if (!j) {
                size_t ng = json_object_array_length(gained), nl = json_object_array_length(lost);
                cli_line(stdout, "%s reached: %zu -> %zu; gained %zu, lost %zu", what[kind], n_old,
                         n_now, ng, nl);
                char q[4200];
                for (size_t x = 0; x < ng; x++)
                    cli_line(stdout, "+ %s %s", one[kind],
                             cd_shown(json_object_get_string(json_object_array_get_idx(gained, x)),
                                      q, sizeof q));
                for (size_t x = 0; x < nl; x++)
                    cli_line(stdout, "- %s %s", one[kind],
                             cd_shown(json_object_get_string(json_object_array_get_idx(lost, x)), q,
                                      sizeof q));
            }
            free(old);
            free(now);
        }
        if (j)
            json_object_object_add(j, "source", src);
        else
            json_object_put(src);
    }
    for (int s = 0; s < 2; s++) {
        cd_srccov_release(&c[s]);
        free(paths[s]);
    }
}
