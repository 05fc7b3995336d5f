/* The audit mode: reads a manifest (cd_manifest) and answers which seed covers what. Without a
 * question it lists every seed (size, labels covered, labels only it covers, provenance); --seed
 * lists a seed's labels, --label the seeds holding a label, --diff the labels gained and lost since
 * an older manifest; --seed and --label name each label's function when the manifest records it
 * (a run given afl-clang-lto's edge ID file) or --ids gives the file; the questions in source terms (functions, lines) are
 * cli_audit_source.c's. Text by default, JSON with --json. Exit 1 when the seed or label asked
 * for is not in the manifest. */
#include "common/cd_hash.h"
#include "output/cd_manifest.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Label id's text in m: "NAME/LABEL" in a manifest of several targets. */
static const char *label_text(const struct cd_manifest *m, uint32_t id, char *buf, size_t cap)
{
    struct cd_label_names names = cd_manifest_names(&m->info);
    cd_labels_format_in(id, &names, buf, cap);
    return buf;
}

/* The function label id is in: from the edge ID file --ids names, else from the manifest (a run
 * given the file records it); NULL when neither says. */
static const char *label_function(const struct cd_manifest *m, const struct cd_edge_ids *ids,
                                  uint32_t id)
{
    if (ids)
        return cd_edge_ids_function(ids, id);
    const struct cd_manifest_label *l = cd_manifest_find_label(m, id);
    return l ? l->function : NULL;
}

/* For each seed, how many of its labels no other seed covers. Returns an owned array. */
static uint64_t *only_holder_counts(const struct cd_manifest *m)
{
    uint64_t *only = calloc(m->n_seeds ? m->n_seeds : 1, sizeof *only);
    if (!only)
        return NULL;
    /* Labels are few enough to count holders per label through the label table. */
    size_t *holders = calloc(m->n_labels ? m->n_labels : 1, sizeof *holders);
    size_t *last = calloc(m->n_labels ? m->n_labels : 1, sizeof *last);
    if (!holders || !last)
        goto out;
    for (size_t k = 0; k < m->n_seeds; k++)
        for (size_t j = 0; j < m->seeds[k].labels.n; j++) {
            const struct cd_manifest_label *l = cd_manifest_find_label(m, m->seeds[k].labels.v[j]);
            if (!l)
                continue;
            size_t idx = (size_t)(l - m->labels);
            holders[idx]++;
            last[idx] = k;
        }
    for (size_t i = 0; i < m->n_labels; i++)
        if (holders[i] == 1)
            only[last[i]]++;
out:
    free(holders);
    free(last);
    return only;
}

static json_object *json_labels(const struct cd_manifest *m, const struct cd_labelset *set)
{
    json_object *a = json_object_new_array();
    char t[160];
    for (size_t i = 0; i < set->n; i++)
        json_object_array_add(a, json_object_new_string(label_text(m, set->v[i], t, sizeof t)));
    return a;
}

static void print_json(json_object *j)
{
    cli_put_json_as(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                           JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A manifest of several targets' "targets" for audit --json: each one's name and counts. */
static json_object *json_targets(const struct cd_manifest *m)
{
    json_object *a = json_object_new_array();
    for (unsigned t = 0; m->views && t < m->info.n_targets; t++) {
        const void *src[CD_FROM_N] = {[CD_FROM_TARGET] = &m->info.targets[t],
                                      [CD_FROM_VIEW] = &m->views[t]};
        json_object *e = json_object_new_object();
        cd_report_put_rows(e, CD_VIEW_SUMMARY, cd_report_target_fields,
                           cd_report_n_target_fields, src, NULL, NULL);
        json_object_array_add(a, e);
    }
    return a;
}

static int audit_overview(const struct cd_manifest *m, bool as_json)
{
    uint64_t *only = only_holder_counts(m);
    uint64_t bytes = 0;
    for (size_t k = 0; k < m->n_seeds; k++)
        bytes += m->seeds[k].size;
    if (as_json) {
        json_object *j = json_object_new_object(), *a = json_object_new_array();
        json_object_object_add(j, "seeds", json_object_new_uint64(m->n_seeds));
        json_object_object_add(j, "seed_bytes", json_object_new_uint64(bytes));
        json_object_object_add(j, "labels", json_object_new_uint64(m->n_labels));
        json_object_object_add(j, "labels_finished",
                               json_object_new_uint64(m->counts.labels_finished));
        json_object_object_add(j, "reproducers", json_object_new_uint64(m->n_reproducers));
        json_object_object_add(j, "complete", json_object_new_boolean(m->stats.complete));
        json_object *u = json_object_new_array();
        for (size_t i = 0; i < m->n_unstable; i++)
            json_object_array_add(u, json_object_new_uint64(m->unstable[i]));
        json_object_object_add(j, "unstable_edges", u);
        for (size_t k = 0; k < m->n_seeds; k++) {
            json_object *e = json_object_new_object();
            json_object_object_add(e, "sha1", json_object_new_string(m->seeds[k].sha1));
            json_object_object_add(e, "size", json_object_new_uint64(m->seeds[k].size));
            json_object_object_add(e, "labels", json_object_new_uint64(m->seeds[k].labels.n));
            json_object_object_add(e, "best_for", json_object_new_uint64(m->seeds[k].best.n));
            json_object_object_add(e, "only_holder_of", json_object_new_uint64(only ? only[k] : 0));
            json_object_object_add(e, "origin", json_object_new_string(m->seeds[k].origin));
            json_object_array_add(a, e);
        }
        json_object_object_add(j, "per_seed", a);
        if (m->info.n_targets > 1)
            json_object_object_add(j, "targets", json_targets(m));
        print_json(j);
    } else {
        char b[32], why[256];
        cli_line(stdout, "%zu seeds, %s; %zu labels (%llu finished); %zu reproducers; %s",
                 m->n_seeds,
               cli_bytes(bytes, b, sizeof b), m->n_labels,
               (unsigned long long)m->counts.labels_finished, m->n_reproducers,
               m->stats.complete     ? "complete"
               : m->stats.stopped_by ? cd_shown(m->stats.stopped_by, why, sizeof why)
                                     : "incomplete");
        if (m->n_unstable)
            cli_line(stdout, "%zu unstable edge%s (hit counts differ from run to run), their "
                     "labels left out", m->n_unstable, m->n_unstable == 1 ? "" : "s");
        for (unsigned t = 0; m->views && t < m->info.n_targets; t++) {
            const struct cd_manifest_view *x = &m->views[t];
            const struct cd_result_target *c = &x->counts;
            char q[256], v[1024];
            cli_line(stdout, "target %s: %llu labels (%llu finished), %llu seeds, %s in %s; %llu "
                     "reproducers, %llu bugs", cd_shown(m->info.targets[t].name, q, sizeof q),
                     (unsigned long long)c->labels, (unsigned long long)c->finished,
                     (unsigned long long)c->seeds, cli_bytes(c->seed_bytes, b, sizeof b),
                     x->dir ? cd_shown(x->dir, v, sizeof v) : "(no view)",
                     (unsigned long long)c->reproducers, (unsigned long long)c->bugs);
        }
        cli_line(stdout, "%-12s %8s %7s %5s %5s  %s", "SEED", "SIZE", "LABELS", "BEST", "ONLY",
                 "ORIGIN");
        char o[1024];
        for (size_t k = 0; k < m->n_seeds; k++)
            cli_line(stdout, "%.12s %8llu %7zu %5zu %5llu  %s", m->seeds[k].sha1,
                     (unsigned long long)m->seeds[k].size, m->seeds[k].labels.n,
                     m->seeds[k].best.n, (unsigned long long)(only ? only[k] : 0),
                     cd_shown(m->seeds[k].origin, o, sizeof o));
    }
    free(only);
    return CLI_EXIT_OK;
}

static int audit_seed(const struct cd_manifest *m, const char *sha1, const struct cd_edge_ids *ids,
                      bool as_json)
{
    const struct cd_manifest_example *s = cd_manifest_find_seed(m, sha1);
    if (!s) {
        char q[256];
        cli_msg("no seed '%s' in the manifest",
                cd_shown(sha1, q, sizeof q));
        return CLI_EXIT_INCOMPLETE;
    }
    if (as_json) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "sha1", json_object_new_string(s->sha1));
        json_object_object_add(j, "size", json_object_new_uint64(s->size));
        json_object_object_add(j, "origin", json_object_new_string(s->origin));
        json_object_object_add(j, "labels", json_labels(m, &s->labels));
        json_object_object_add(j, "best", json_labels(m, &s->best));
        json_object *fns = json_object_new_object();
        char t[160];
        for (size_t i = 0; i < s->labels.n; i++) {
            const char *fn = label_function(m, ids, s->labels.v[i]);
            if (fn)
                json_object_object_add(fns, label_text(m, s->labels.v[i], t, sizeof t),
                                       json_object_new_string(fn));
        }
        if (ids || json_object_object_length(fns))
            json_object_object_add(j, "functions", fns);
        else
            json_object_put(fns);
        print_json(j);
        return CLI_EXIT_OK;
    }
    char o[1024];
    cli_line(stdout, "seed %s: %llu bytes, from %s", s->sha1, (unsigned long long)s->size,
             cd_shown(s->origin, o, sizeof o));
    cli_line(stdout, "covers %zu labels, best example for %zu (marked *):", s->labels.n, s->best.n);
    char t[160];
    char q[1024]; /* a function name read from a file, shown as text */
    for (size_t i = 0; i < s->labels.n; i++) {
        const char *fn = label_function(m, ids, s->labels.v[i]);
        cli_line(stdout, "  %s%s%s%s", label_text(m, s->labels.v[i], t, sizeof t),
                 cd_labelset_has(&s->best, s->labels.v[i]) ? " *" : "", fn ? " in " : "",
                 fn ? cd_shown(fn, q, sizeof q) : "");
    }
    return CLI_EXIT_OK;
}

static int audit_label(const struct cd_manifest *m, const char *text, const struct cd_edge_ids *ids,
                       bool as_json)
{
    uint32_t id;
    struct cd_label_names names = cd_manifest_names(&m->info);
    if (!cd_labels_parse_in(text, &names, &id))
        return cli_usage_error("'%s' is not a label (like %s000123:4 or %scrash:SIGSEGV)", text,
                               names.n ? "NAME/" : "", names.n ? "NAME/" : "");
    const struct cd_manifest_label *l = cd_manifest_find_label(m, id);
    if (!l) {
        bool unstable = false;
        for (size_t i = 0; i < m->n_unstable && !cd_labels_is_outcome(id); i++)
            unstable |= m->unstable[i] == cd_labels_slot(id);
        cli_msg("label %s is not in the manifest%s", text,
                unstable ? ": its edge is unstable (hit counts differ from run to run)" : "");
        return CLI_EXIT_INCOMPLETE;
    }
    char t[160];
    label_text(m, id, t, sizeof t);
    json_object *j = NULL, *a = NULL;
    if (as_json) {
        j = json_object_new_object();
        a = json_object_new_array();
        json_object_object_add(j, "label", json_object_new_string(t));
        json_object_object_add(j, "best", json_object_new_string(l->best));
        json_object_object_add(j, "in", json_object_new_string(l->reproducer ? "reproducers"
                                                               : l->left_out ? "state"
                                                                             : "seeds"));
        if (l->left_out)
            json_object_object_add(j, "size", json_object_new_uint64(l->size));
        json_object_object_add(j, "finished", json_object_new_boolean(l->finished));
        if (label_function(m, ids, id))
            json_object_object_add(j, "function",
                                   json_object_new_string(label_function(m, ids, id)));
    } else {
        char q[1024];
        cli_line(stdout, "label %s: best example %s (%s, %s)", t, l->best,
                 l->reproducer ? "a reproducer"
                 : l->left_out ? "found in reduction, kept in the state only: not worth its bytes"
                               : "a seed",
                 l->finished ? "finished" : "not finished");
        if (label_function(m, ids, id))
            cli_line(stdout, "in function %s", cd_shown(label_function(m, ids, id), q, sizeof q));
        cli_line(stdout, "covered by:");
    }
    const struct cd_manifest_example *lists[2] = {m->seeds, m->reproducers};
    size_t counts[2] = {m->n_seeds, m->n_reproducers};
    char o[1024];
    for (int w = 0; w < 2; w++)
        for (size_t k = 0; k < counts[w]; k++) {
            const struct cd_manifest_example *s = &lists[w][k];
            if (!cd_labelset_has(&s->labels, id))
                continue;
            if (a)
                json_object_array_add(a, json_object_new_string(s->sha1));
            else
                cli_line(stdout, "  %s %s %8llu  %s", s->sha1, w ? "reproducer" : "seed      ",
                         (unsigned long long)s->size, cd_shown(s->origin, o, sizeof o));
        }
    if (j) {
        json_object_object_add(j, "covered_by", a);
        print_json(j);
    }
    return CLI_EXIT_OK;
}


/* The bugs part of --diff: new (in now only), gone (in old only: fixed, or no longer reached),
 * changed (another reproducer). Into j as "bugs" when given, else printed. */
static void diff_bugs(const struct cd_manifest *now, const struct cd_manifest *old, json_object *j)
{
    json_object *d[3] = {json_object_new_array(), json_object_new_array(),
                         json_object_new_array()};
    const char *names[3] = {"new", "gone", "changed"}, *marks = "+-~";
    for (int pass = 0; pass < 2; pass++) {
        const struct cd_manifest *a = pass ? old : now, *b = pass ? now : old;
        for (size_t i = 0; i < a->n_bugs; i++) {
            const struct cd_manifest_bug *x = &a->bugs[i], *y = cd_manifest_find_bug(b, x->id);
            int kind = !y ? pass : 2;
            if (y && (pass || strcmp(x->reproducer, y->reproducer) == 0))
                continue;
            char label[160];
            label_text(a, x->id, label, sizeof label);
            json_object *e = json_object_new_object();
            json_object_object_add(e, "label", json_object_new_string(label));
            json_object_object_add(e, "kind", json_object_new_string(x->kind));
            json_object_object_add(e, "frame", json_object_new_string(x->frames[0] ? x->frames[0]
                                                                                    : ""));
            if (kind == 2) {
                json_object_object_add(e, "old_reproducer", json_object_new_string(y->reproducer));
                json_object_object_add(e, "reproducer", json_object_new_string(x->reproducer));
            }
            json_object_array_add(d[kind], e);
        }
    }
    if (j) {
        json_object *b = json_object_new_object();
        for (int k = 0; k < 3; k++)
            json_object_object_add(b, names[k], d[k]);
        json_object_object_add(j, "bugs", b);
        return;
    }
    cli_line(stdout, "bugs: %zu -> %zu; new %zu, gone %zu, changed %zu", old->n_bugs, now->n_bugs,
             json_object_array_length(d[0]), json_object_array_length(d[1]),
             json_object_array_length(d[2]));
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < json_object_array_length(d[k]); i++) {
            json_object *e = json_object_array_get_idx(d[k], i), *v;
            char q[512], f[512];
            json_object_object_get_ex(e, "kind", &v);
            cd_shown(json_object_get_string(v), q, sizeof q);
            json_object_object_get_ex(e, "frame", &v);
            cd_shown(json_object_get_string(v), f, sizeof f);
            json_object_object_get_ex(e, "label", &v);
            cli_line(stdout, "%c %s  %s  in %s%s", marks[k], json_object_get_string(v), q, f,
                     k == 2 ? "  (another reproducer)" : "");
        }
        json_object_put(d[k]);
    }
}

/* The name a manifest of one target gives its labels beside one of several (other): the name
 * of other's target that is the same binary or program, else its program's file name. */
static void single_name(const struct cd_manifest *m, const struct cd_manifest *other, char *buf,
                        size_t cap)
{
    char *const *argv = m->info.targets[0].opts.argv;
    const char *prog = argv && argv[0] ? argv[0] : "";
    for (unsigned t = 0; other->info.n_targets > 1 && t < other->info.n_targets; t++) {
        const struct cd_target *x = &other->info.targets[t];
        if ((*x->sha1 && strcmp(x->sha1, m->info.targets[0].sha1) == 0) ||
            (x->opts.argv && x->opts.argv[0] && strcmp(x->opts.argv[0], prog) == 0)) {
            snprintf(buf, cap, "%s", x->name);
            return;
        }
    }
    const char *base = strrchr(prog, '/');
    snprintf(buf, cap, "%s", base ? base + 1 : *prog ? prog : "target");
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The texts of m's labels, sorted, into *out (owned, free_texts); a manifest of one target beside
 * one of several (other) names them as other does its own. Returns their number. */
static size_t label_texts(const struct cd_manifest *m, const struct cd_manifest *other, char ***out)
{
    char prefix[96] = "";
    if (m->info.n_targets <= 1 && other->info.n_targets > 1) {
        single_name(m, other, prefix, sizeof prefix - 1);
        strcat(prefix, "/");
    }
    char **v = calloc(m->n_labels ? m->n_labels : 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; v && i < m->n_labels; i++) {
        char t[160], full[256];
        snprintf(full, sizeof full, "%s%s", prefix, label_text(m, m->labels[i].id, t, sizeof t));
        if (!(v[n] = strdup(full)))
            break;
        n++;
    }
    if (v)
        qsort(v, n, sizeof *v, cmp_text);
    *out = v;
    return n;
}

static void free_texts(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Labels of the texts tn (n_tn) starting with "NAME/". */
static uint64_t count_prefixed(char **v, size_t n, const char *name)
{
    uint64_t c = 0;
    size_t l = strlen(name);
    for (size_t i = 0; i < n; i++)
        c += strncmp(v[i], name, l) == 0 && v[i][l] == '/';
    return c;
}

/* Per target of either manifest: its labels before and after, gained and lost. */
static json_object *diff_targets(const struct cd_manifest *now, const struct cd_manifest *old,
                                 json_object *gained, json_object *lost, size_t n_tn, size_t n_to,
                                 char **tn, char **to)
{
    json_object *a = json_object_new_array();
    const struct cd_manifest *ms[2] = {now, old};
    char (*seen)[96] = malloc((now->info.n_targets + old->info.n_targets) * sizeof *seen);
    size_t n_seen = 0;
    if (!seen)
        return a;
    for (int w = 0; w < 2; w++)
        for (unsigned t = 0; t < ms[w]->info.n_targets; t++) {
            char name[96];
            if (ms[w]->info.n_targets > 1)
                snprintf(name, sizeof name, "%s", ms[w]->info.targets[t].name);
            else
                single_name(ms[w], ms[1 - w], name, sizeof name);
            bool dup = false;
            for (size_t k = 0; k < n_seen; k++)
                dup |= strcmp(seen[k], name) == 0;
            if (dup)
                continue;
            snprintf(seen[n_seen++], sizeof seen[0], "%s", name);
            char **g = malloc((json_object_array_length(gained) + 1) * sizeof *g);
            char **l = malloc((json_object_array_length(lost) + 1) * sizeof *l);
            for (size_t x = 0; g && x < json_object_array_length(gained); x++)
                g[x] = (char *)json_object_get_string(json_object_array_get_idx(gained, x));
            for (size_t x = 0; l && x < json_object_array_length(lost); x++)
                l[x] = (char *)json_object_get_string(json_object_array_get_idx(lost, x));
            json_object *e = json_object_new_object();
            json_object_object_add(e, "name", json_object_new_string(name));
            json_object_object_add(e, "labels_old",
                                   json_object_new_uint64(count_prefixed(to, n_to, name)));
            json_object_object_add(e, "labels_new",
                                   json_object_new_uint64(count_prefixed(tn, n_tn, name)));
            json_object_object_add(e, "gained", json_object_new_uint64(g ? count_prefixed(
                g, json_object_array_length(gained), name) : 0));
            json_object_object_add(e, "lost", json_object_new_uint64(l ? count_prefixed(
                l, json_object_array_length(lost), name) : 0));
            free(g);
            free(l);
            json_object_array_add(a, e);
        }
    free(seen);
    return a;
}

static int audit_diff(const struct cd_manifest *now, const char *now_path, const char *old_path,
                      bool as_json)
{
    struct cd_manifest old;
    struct cd_error err;
    if (cd_manifest_read(old_path, &old, &err) != CD_OK) {
        cli_msg("%s", err.msg);
        return cli_exit_for(&err, CLI_EXIT_INPUT);
    }
    bool old_edges = cd_manifest_setting_on(&old.info, "edges_only"),
         now_edges = cd_manifest_setting_on(&now->info, "edges_only");
    if (old_edges != now_edges)
        cli_warn("%s counts %s, the manifest %s: most labels "
                 "differ in kind, not in coverage", old_path,
                 old_edges ? "edges only (-e)" : "hit counts",
                 now_edges ? "edges only (-e)" : "hit counts");
    json_object *gained = json_object_new_array(), *lost = json_object_new_array();
    /* Labels compare by text: the targets' names, not their places, say which is which. */
    char **tn = NULL, **to = NULL;
    size_t n_tn = label_texts(now, &old, &tn), n_to = label_texts(&old, now, &to);
    size_t i = 0, k = 0;
    while (i < n_tn || k < n_to) {
        int c = i >= n_tn ? 1 : k >= n_to ? -1 : strcmp(tn[i], to[k]);
        if (c < 0)
            json_object_array_add(gained, json_object_new_string(tn[i++]));
        else if (c > 0)
            json_object_array_add(lost, json_object_new_string(to[k++]));
        else
            i++, k++;
    }
    json_object *per = now->info.n_targets > 1 || old.info.n_targets > 1
                           ? diff_targets(now, &old, gained, lost, n_tn, n_to, tn, to)
                           : NULL;
    free_texts(tn, n_tn);
    free_texts(to, n_to);
    size_t ng = json_object_array_length(gained), nl = json_object_array_length(lost);
    if (as_json) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "labels_old", json_object_new_uint64(old.n_labels));
        json_object_object_add(j, "labels_new", json_object_new_uint64(now->n_labels));
        json_object_object_add(j, "gained", gained);
        json_object_object_add(j, "lost", lost);
        if (per)
            json_object_object_add(j, "targets", per);
        diff_bugs(now, &old, j);
        cli_audit_source_diff(now_path, old_path, j);
        print_json(j);
    } else {
        cli_line(stdout, "labels: %zu -> %zu; gained %zu, lost %zu", old.n_labels, now->n_labels,
                 ng, nl);
        for (size_t x = 0; per && x < json_object_array_length(per); x++) {
            json_object *e = json_object_array_get_idx(per, x), *v;
            uint64_t f[4];
            const char *keys[4] = {"labels_old", "labels_new", "gained", "lost"};
            for (int y = 0; y < 4; y++) {
                json_object_object_get_ex(e, keys[y], &v);
                f[y] = (uint64_t)json_object_get_int64(v);
            }
            json_object_object_get_ex(e, "name", &v);
            char q[256];
            cli_line(stdout, "target %s: %llu -> %llu; gained %llu, lost %llu",
                     cd_shown(json_object_get_string(v), q, sizeof q), (unsigned long long)f[0],
                     (unsigned long long)f[1], (unsigned long long)f[2], (unsigned long long)f[3]);
        }
        json_object_put(per);
        /* a label names its target, a manifest's text: shown escaped */
        char q[512];
        for (size_t x = 0; x < ng; x++)
            cli_line(stdout, "+ %s",
                     cd_shown(json_object_get_string(json_object_array_get_idx(gained, x)), q,
                              sizeof q));
        for (size_t x = 0; x < nl; x++)
            cli_line(stdout, "- %s",
                     cd_shown(json_object_get_string(json_object_array_get_idx(lost, x)), q,
                              sizeof q));
        json_object_put(gained);
        json_object_put(lost);
        if (now->n_bugs || old.n_bugs)
            diff_bugs(now, &old, NULL);
        cli_audit_source_diff(now_path, old_path, NULL);
    }
    cd_manifest_release(&old);
    return CLI_EXIT_OK;
}

/* One line per distinct bug (--crashes): label, kind and access, inputs that showed it, the
 * reproducer's size and file, then its frames. */
static int audit_crashes(const struct cd_manifest *m, bool as_json)
{
    json_object *j = as_json ? json_object_new_array() : NULL;
    /* One crash state reached from several targets is one bug: its labels in each, one after
       the other, its first entry printing it whole. */
    size_t distinct = 0;
    for (size_t i = 0; i < m->n_bugs; i++)
        distinct += cd_manifest_bug_first(m, i) == i;
    size_t unreported = 0;
    for (size_t i = 0; i < m->n_reproducers; i++)
        unreported += cd_labels_unreported(m->reproducers[i].labels.v,
                                           m->reproducers[i].labels.n) != 0;
    if (!as_json)
        cli_line(stdout, "%zu distinct bug%s by sanitizer report; %zu reproducer%s without one",
                 distinct, distinct == 1 ? "" : "s", unreported, unreported == 1 ? "" : "s");
    for (size_t i = 0; i < m->n_bugs; i++) {
        const struct cd_manifest_bug *b = &m->bugs[i];
        const struct cd_manifest_example *x = cd_manifest_find_reproducer(m, b->reproducer);
        char label[160], q[512], f[512], o[512];
        label_text(m, b->id, label, sizeof label);
        size_t first = cd_manifest_bug_first(m, i);
        if (!as_json && first != i) {
            char first_label[160];
            label_text(m, m->bugs[first].id, first_label, sizeof first_label);
            cli_line(stdout, "%s  the same bug as %s, reached from another target  %llu input%s  "
                     "%llu B  %s", label, first_label, (unsigned long long)b->inputs,
                     b->inputs == 1 ? "" : "s", (unsigned long long)(x ? x->size : 0),
                     x ? cd_shown(x->file, f, sizeof f) : b->reproducer);
            continue;
        }
        if (as_json) {
            json_object *e = json_object_new_object();
            json_object *frames = json_object_new_array();
            for (char **p = b->frames; *p; p++)
                json_object_array_add(frames, json_object_new_string(*p));
            json_object_object_add(e, "label", json_object_new_string(label));
            if (first != i) {
                char first_label[160];
                label_text(m, m->bugs[first].id, first_label, sizeof first_label);
                json_object_object_add(e, "same_as", json_object_new_string(first_label));
            }
            json_object_object_add(e, "kind", json_object_new_string(b->kind));
            json_object_object_add(e, "access", b->access ? json_object_new_string(b->access)
                                                          : NULL);
            json_object_object_add(e, "frames", frames);
            json_object_object_add(e, "inputs", json_object_new_uint64(b->inputs));
            json_object_object_add(e, "reproducer", json_object_new_string(b->reproducer));
            json_object_object_add(e, "file", x ? json_object_new_string(x->file) : NULL);
            json_object_object_add(e, "size", json_object_new_uint64(x ? x->size : 0));
            json_object_object_add(e, "origin", x ? json_object_new_string(x->origin) : NULL);
            json_object_array_add(j, e);
            continue;
        }
        char acc[256];
        cli_line(stdout, "%s  %s%s%s  %llu input%s  %llu B  %s", label,
                 cd_shown(b->kind, q, sizeof q), b->access ? " " : "",
                 b->access ? cd_shown(b->access, acc, sizeof acc) : "",
                 (unsigned long long)b->inputs, b->inputs == 1 ? "" : "s",
                 (unsigned long long)(x ? x->size : 0),
                 x ? cd_shown(x->file, f, sizeof f) : b->reproducer);
        for (char **p = b->frames; *p; p++)
            cli_line(stdout, "    in %s", cd_shown(*p, q, sizeof q));
        if (x)
            cli_line(stdout, "    from %s", cd_shown(x->origin, o, sizeof o));
    }
    /* Crashes and hangs no sanitizer reported (a plain build's signal, an exit status, a
       timeout): by their kind, so that no reproducer goes uncounted. */
    for (size_t i = 0; i < m->n_reproducers; i++) {
        const struct cd_manifest_example *x = &m->reproducers[i];
        uint32_t kind = cd_labels_unreported(x->labels.v, x->labels.n);
        if (!kind)
            continue;
        char label[160], f[512], o[512];
        label_text(m, kind, label, sizeof label);
        if (as_json) {
            json_object *e = json_object_new_object();
            json_object_object_add(e, "label", json_object_new_string(label));
            json_object_object_add(e, "kind", json_object_new_string(label));
            json_object_object_add(e, "sanitizer", json_object_new_boolean(false));
            json_object_object_add(e, "frames", json_object_new_array());
            json_object_object_add(e, "reproducer", json_object_new_string(x->sha1));
            json_object_object_add(e, "file", json_object_new_string(x->file));
            json_object_object_add(e, "size", json_object_new_uint64(x->size));
            json_object_object_add(e, "origin", json_object_new_string(x->origin));
            json_object_array_add(j, e);
            continue;
        }
        cli_line(stdout, "%s  no sanitizer report  %llu B  %s", label,
                 (unsigned long long)x->size, cd_shown(x->file, f, sizeof f));
        cli_line(stdout, "    from %s", cd_shown(x->origin, o, sizeof o));
    }
    if (as_json)
        print_json(j);
    return CLI_EXIT_OK;
}

/* The manifest an operand names: the file itself, or for a directory DIR the DIR.manifest.json a
 * run with -o DIR wrote beside it (afl-cmin's users name the seed directory). Into buf. */
static const char *manifest_of(const char *operand, char *buf, size_t cap)
{
    struct stat sb;
    if (!operand || stat(operand, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return operand;
    size_t n = strlen(operand);
    while (n > 1 && operand[n - 1] == '/')
        n--;
    int len = snprintf(buf, cap, "%.*s.manifest.json", (int)n, operand);
    return len > 0 && (size_t)len < cap && stat(buf, &sb) == 0 ? buf : operand;
}

int cli_audit(const struct cli_opts *opts)
{
    struct cli_opts own = *opts;
    const struct cli_opts *o = &own;
    char now_buf[PATH_MAX], old_buf[PATH_MAX];
    own.audit_manifest = manifest_of(opts->audit_manifest, now_buf, sizeof now_buf);
    own.audit_diff = manifest_of(opts->audit_diff, old_buf, sizeof old_buf);
    struct cd_manifest m;
    struct cd_error err;
    if (cd_manifest_read(o->audit_manifest, &m, &err) != CD_OK) {
        cli_msg("%s", err.msg);
        return cli_exit_for(&err, CLI_EXIT_INPUT);
    }
    struct cd_edge_ids *ids = NULL;
    if (o->ids && cd_edge_ids_load(o->ids, &ids, &err) != CD_OK) {
        cli_msg("%s", err.msg);
        cd_manifest_release(&m);
        return cli_exit_for(&err, CLI_EXIT_INPUT);
    }
    int code;
    if (o->audit_coverage || o->audit_function || o->audit_line || o->audit_uncovered ||
        o->audit_html)
        code = cli_audit_source(o, &m);
    else if (o->audit_seed)
        code = audit_seed(&m, o->audit_seed, ids, o->audit_json);
    else if (o->audit_label)
        code = audit_label(&m, o->audit_label, ids, o->audit_json);
    else if (o->audit_diff)
        code = audit_diff(&m, o->audit_manifest, o->audit_diff, o->audit_json);
    else if (o->audit_crashes)
        code = audit_crashes(&m, o->audit_json);
    else
        code = audit_overview(&m, o->audit_json);
    cd_edge_ids_free(ids);
    cd_manifest_release(&m);
    return code;
}
