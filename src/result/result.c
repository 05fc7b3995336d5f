/* The result of a distillation as emit and the manifest see it, built from the table: distinct
 * best examples sorted by SHA-1 (their file names), every label they show and the labels they are
 * best for, reproducer flags, and labels sorted by id. It owns copies of everything. */
#include "cd_cover.h"
#include "cd_result.h"
#include "result_internal.h"
#include "common/cd_hash.h"
#include "table/cd_labels.h"
#include "table/cd_table.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cd_result_release(struct cd_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_examples; i++) {
        struct cd_result_example *e = &r->examples[i];
        free(e->data);
        free(e->origin);
        cd_labelset_release(&e->labels);
        cd_labelset_release(&e->best);
    }
    free(r->examples);
    for (size_t i = 0; i < r->n_labels; i++)
        free(r->labels[i].note);
    free(r->labels);
    free(r->series);
    free(r->unstable);
    free(r->views);
    memset(r, 0, sizeof *r);
}

struct order {
    char sha1[41];
    bool outcome;   /* a reproducer: after the seed of the same bytes */
    size_t index;   /* in the table's live list */
};

static int by_sha1(const void *a, const void *b)
{
    const struct order *x = a, *y = b;
    int c = strcmp(x->sha1, y->sha1);
    return c ? c : (int)x->outcome - (int)y->outcome;
}

/* Whether two entries of the order are one example of the result: the same bytes, both seeds or
 * both reproducers (a run of several targets may store the same input twice, found for labels of
 * different targets). */
static bool same_example(const struct order *x, const struct order *y)
{
    return x->outcome == y->outcome && strcmp(x->sha1, y->sha1) == 0;
}

/* Adds the sorted set add into the sorted set into; false when out of memory. */
static bool union_into(struct cd_labelset *into, const struct cd_labelset *add)
{
    struct cd_labelset u = {0};
    for (size_t i = 0, k = 0; i < into->n || k < add->n;) {
        uint32_t x = i < into->n ? into->v[i] : UINT32_MAX, y = k < add->n ? add->v[k] : UINT32_MAX;
        uint32_t id = x < y ? x : y;
        i += x == id;
        k += y == id;
        if (!cd_labelset_push(&u, id)) {
            cd_labelset_release(&u);
            return false;
        }
    }
    cd_labelset_release(into);
    *into = u;
    return true;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const struct cd_result_label *)a)->id, y = ((const struct cd_result_label *)b)->id;
    return (x > y) - (x < y);
}

/* Copies table example e into r. */
static bool copy_example(struct cd_result_example *r, const struct cd_table_example *e)
{
    r->data = cd_memdup(e->data, e->len);
    r->origin = strdup(e->origin);
    r->labels.v = cd_memdup(e->labels.v, e->labels.n * sizeof *e->labels.v);
    if (!r->data || !r->origin || !r->labels.v)
        return false;
    r->len = e->len;
    r->labels.n = r->labels.cap = e->labels.n;
    r->reproducer = e->outcome;
    r->baseline = e->pinned;
    cd_hash_sha1_hex(e->data, e->len, r->sha1);
    return true;
}

/* The position of serial among the n ascending serials of the live examples (it is there). */
static size_t position(const uint64_t *serials, size_t n, uint64_t serial)
{
    return cd_lower_bound_u64(serials, n, sizeof *serials, 0, serial);
}

enum cd_status cd_result_build(struct cd_result *out, const struct cd_table *t,
                               const struct cd_result_stats *stats, struct cd_error *err)
{
    size_t n = cd_table_n_examples(t), nl = cd_table_n_labels(t);
    struct order *ord = calloc(n ? n : 1, sizeof *ord);
    size_t *rank = calloc(n ? n : 1, sizeof *rank);
    uint64_t *serials = calloc(n ? n : 1, sizeof *serials);
    memset(out, 0, sizeof *out);
    out->examples = calloc(n ? n : 1, sizeof *out->examples);
    out->labels = calloc(nl ? nl : 1, sizeof *out->labels);
    if (!ord || !rank || !serials || !out->examples || !out->labels)
        goto oom;
    size_t i = 0, distinct = 0;
    for (const struct cd_table_example *e = cd_table_examples(t); e; e = e->next, i++) {
        serials[i] = e->serial;
        cd_hash_sha1_hex(e->data, e->len, ord[i].sha1);
        ord[i].outcome = e->outcome;
        ord[i].index = i;
    }
    qsort(ord, n, sizeof *ord, by_sha1);
    for (i = 0; i < n; i++) {
        distinct += i == 0 || !same_example(&ord[i - 1], &ord[i]);
        rank[ord[i].index] = distinct - 1;
    }
    out->n_examples = distinct;
    i = 0;
    for (const struct cd_table_example *e = cd_table_examples(t); e; e = e->next) {
        struct cd_result_example *x = &out->examples[rank[i++]];
        if (!x->data ? !copy_example(x, e) : !union_into(&x->labels, &e->labels))
            goto oom;
        x->baseline |= e->pinned;
    }
    out->n_labels = nl; /* zeroed: release frees the notes copied so far */
    for (i = 0; i < nl; i++) {
        const struct cd_table_label *l = cd_table_label_at(t, i);
        out->labels[i] = (struct cd_result_label){
            .id = l->id, .example = rank[position(serials, n, l->best->serial)],
            .finished = cd_table_skippable(l), .found = l->found, .shown = l->shown};
        const char *note = cd_table_note_of(t, l->id);
        if (note && !(out->labels[i].note = strdup(note)))
            goto oom;
    }
    qsort(out->labels, nl, sizeof *out->labels, by_id);
    for (i = 0; i < nl; i++)
        if (!cd_labelset_push(&out->examples[out->labels[i].example].best, out->labels[i].id))
            goto oom;
    size_t nu;
    const uint32_t *unstable = cd_table_unstable(t, &nu);
    if (nu && !(out->unstable = cd_memdup(unstable, nu * sizeof *unstable)))
        goto oom;
    out->n_unstable = nu;
    out->stats = *stats;
    free(ord);
    free(rank);
    free(serials);
    return CD_OK;
oom:
    free(ord);
    free(rank);
    free(serials);
    cd_result_release(out);
    return cd_error_oom(err, CD_FAILED, "out of memory building the result");
}

/* Seed selection (cd_result_select_seeds). */

struct cover {
    const struct cd_result *r;
    size_t *order;      /* non-reproducer examples, largest first */
    size_t n_order;
    bool *taken;        /* per example */
    bool *covered;      /* per label index */
    size_t *holder;     /* per label index: new holder, or SIZE_MAX */
};

/* Largest first; equal sizes by index, and r->examples is sorted by SHA-1, so the choice is
 * deterministic. */
struct by_size {
    size_t len, index;
};

static int larger_first(const void *a, const void *b)
{
    const struct by_size *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? 1 : -1;
    return (x->index > y->index) - (x->index < y->index);
}

size_t cd_result_label_index(const struct cd_result *r, uint32_t id)
{
    size_t i = cd_lower_bound_u32(r->labels, r->n_labels, sizeof *r->labels,
                                  offsetof(struct cd_result_label, id), id);
    return i < r->n_labels && r->labels[i].id == id ? i : SIZE_MAX;
}

/* Whether set holds a coverage label no taken example shows yet. */
static bool any_uncovered(const struct cover *c, const struct cd_labelset *set)
{
    for (size_t i = 0; i < set->n; i++) {
        size_t li = cd_result_label_index(c->r, set->v[i]);
        if (!cd_labels_is_outcome(set->v[i]) && li != SIZE_MAX && !c->covered[li])
            return true;
    }
    return false;
}

static void take(struct cover *c, size_t x)
{
    const struct cd_result_example *e = &c->r->examples[x];
    c->taken[x] = true;
    for (size_t i = 0; i < e->labels.n; i++) {
        size_t li = cd_result_label_index(c->r, e->labels.v[i]);
        if (li != SIZE_MAX)
            c->covered[li] = true;
    }
}

/* Takes the cover's examples (chosen), then the empty example only for labels no taken one
 * shows: afl-fuzz and afl-showmap skip empty files, so a label the empty example is best for goes
 * to the smallest non-empty example showing it. Then each label's holder: the smallest taken
 * non-empty example showing it, else the empty one, else its best as it was. */
static void take_chosen(struct cover *c, const bool *chosen)
{
    const struct cd_result *r = c->r;
    for (size_t k = 0; k < c->n_order; k++)
        if (chosen[k])
            take(c, c->order[k]);
    for (size_t k = 0; k < c->n_order; k++) {
        size_t x = c->order[k];
        const struct cd_result_example *e = &r->examples[x];
        if (e->len == 0 && any_uncovered(c, &e->labels))
            take(c, x);
    }
    for (size_t li = 0; li < r->n_labels; li++)
        c->holder[li] = r->labels[li].example;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < c->n_order; k++) {
            size_t x = c->order[k];
            const struct cd_result_example *e = &r->examples[x];
            if (!c->taken[x] || (e->len == 0) != (pass == 0))
                continue;
            for (size_t i = 0; i < e->labels.n; i++) {
                size_t li = cd_result_label_index(r, e->labels.v[i]);
                if (li != SIZE_MAX && !cd_labels_is_outcome(e->labels.v[i]))
                    c->holder[li] = x;  /* later in the order is smaller */
            }
        }
    }
}

/* One reproducer per outcome label: a coverage label no seed holds, held by a crashing or hanging
 * example best for no outcome label or by a found label's best left out, moves to the smallest
 * reproducer of an outcome label that shows it, when one does. writes (n_examples entries) is
 * scratch: which examples those reproducers are. Their list is short (a few per bug, hang or
 * signal), so each such label looks through it alone. */
static enum cd_status rehome_to_reproducers(struct cover *c, bool *writes, struct cd_error *err)
{
    const struct cd_result *r = c->r;
    size_t n = r->n_examples, n_writers = 0;
    memset(writes, 0, n * sizeof *writes);
    for (size_t li = 0; li < r->n_labels; li++)
        if (cd_labels_is_outcome(r->labels[li].id))
            writes[c->holder[li]] = true;
    for (size_t x = 0; x < n; x++)
        n_writers += writes[x];
    size_t *writers = malloc((n_writers ? n_writers : 1) * sizeof *writers), k = 0;
    if (!writers)
        return cd_error_oom(err, CD_FAILED, "out of memory selecting the seeds");
    for (size_t x = 0; x < n; x++)
        if (writes[x])
            writers[k++] = x;
    for (size_t li = 0; li < r->n_labels && n_writers; li++) {
        size_t h = c->holder[li];
        if (cd_labels_is_outcome(r->labels[li].id) || c->taken[h] || writes[h])
            continue;
        for (k = 0; k < n_writers; k++) {
            const struct cd_result_example *e = &r->examples[writers[k]];
            if (cd_labelset_has(&e->labels, r->labels[li].id) &&
                (c->holder[li] == h || e->len < r->examples[c->holder[li]].len))
                c->holder[li] = writers[k];
        }
    }
    free(writers);
    return CD_OK;
}

/* Chooses, among the non-empty candidates in c->order, the examples to keep: with all_best every
 * one best for some label, else a weighted set cover of their coverage labels (cd_cover_solve,
 * found labels optional unless keep_found), whose bound goes into r's stats; *solve_ms the wall
 * time of its exact solve (0: none). */
static enum cd_status choose(struct cover *c, bool all_best, bool keep_found,
                             const struct cd_cover_exact *exact, bool *chosen,
                             uint64_t *solve_ms, struct cd_error *err)
{
    *solve_ms = 0;
    struct cd_result *r = (struct cd_result *)c->r;
    if (all_best) {
        for (size_t k = 0; k < c->n_order; k++)
            chosen[k] = r->examples[c->order[k]].best.n > 0 && r->examples[c->order[k]].len;
        return CD_OK;
    }
    size_t total = 0;
    for (size_t k = 0; k < c->n_order; k++)
        total += r->examples[c->order[k]].labels.n;
    struct cd_cover_set *sets = calloc(c->n_order ? c->n_order : 1, sizeof *sets);
    uint32_t *items = calloc(total ? total : 1, sizeof *items), *next = items;
    bool *optional = keep_found ? NULL : calloc(r->n_labels ? r->n_labels : 1, sizeof *optional);
    if (!sets || !items || (!keep_found && !optional)) {
        free(sets);
        free(items);
        free(optional);
        return cd_error_oom(err, CD_FAILED, "out of memory selecting the seeds");
    }
    for (size_t li = 0; optional && li < r->n_labels; li++)
        optional[li] = r->labels[li].found;
    for (size_t k = 0; k < c->n_order; k++) {
        const struct cd_result_example *e = &r->examples[c->order[k]];
        sets[k] = (struct cd_cover_set){.weight = e->len, .items = next, .baseline = e->baseline};
        for (size_t i = 0; e->len && i < e->labels.n; i++) {
            size_t li = cd_result_label_index(r, e->labels.v[i]);
            if (li != SIZE_MAX && !cd_labels_is_outcome(e->labels.v[i]))
                next[sets[k].n++] = (uint32_t)li;
        }
        next += sets[k].n;
    }
    struct cd_cover_stats cs;
    enum cd_status st =
        cd_cover_solve(sets, c->n_order, r->n_labels, optional, exact, chosen, &cs, err);
    if (st == CD_OK) {
        r->stats.cover_bound = cs.bound;
        r->stats.cover_lp_bound = cs.lp_bound;
        r->stats.cover_required_bytes = cs.required_bytes;
        r->stats.cover_greedy_bytes = cs.greedy_bytes;
        r->stats.cover_solver = cs.solver;
        r->stats.cover_solve_ms = *solve_ms = cs.solve_ms;
    }
    free(sets);
    free(items);
    free(optional);
    return st;
}

double cd_result_example_work(size_t len)
{
    return CD_RESULT_WORK_SCALE * pow((double)len, CD_RESULT_WORK_POWER);
}

uint64_t cd_result_execs_left(const struct cd_result_point *series, size_t n, bool *at_least)
{
    *at_least = false;
    if (n < 2)
        return 0;
    const struct cd_result_point *last = &series[n - 1], *from = NULL;
    for (size_t i = n - 1; i-- > 0;) {
        from = &series[i];
        if (from->execs <= last->execs / 4 * 3)
            break;
    }
    uint64_t was = from->labels - from->finished, now = last->labels - last->finished;
    if (!now)
        return 0;
    double left = last->unfinished_work;
    if (left > 0) {
        *at_least = last->labels >= from->labels + now;
    } else { /* a course read from a manifest: the pace alone */
        if (was <= now || last->execs <= from->execs)
            return UINT64_MAX;
        left = (double)(last->execs - from->execs) / (double)(was - now) * (double)now;
    }
    return left < 1e18 ? (uint64_t)left + 1 : UINT64_MAX;
}

const char *cd_result_cover_solver_name(enum cd_cover_solver solver)
{
    static const char *const names[] = {"greedy", "optimal", "capped", "failed", "stopped"};
    return (unsigned)solver < sizeof names / sizeof *names ? names[solver] : "greedy";
}

double cd_result_cover_gap(const struct cd_result_stats *stats)
{
    if (!stats->cover_bound || stats->cover_required_bytes <= stats->cover_bound)
        return 0;
    return (double)(stats->cover_required_bytes - stats->cover_bound) / (double)stats->cover_bound;
}

/* Whether coverage label id, held by a seed of len bytes, is a higher hit-count class of an edge
 * that a shorter example in the output holds at a lower class: a cover by edges alone would not
 * need it, and only a longer input showed its count. Labels are held (r->labels[].example) after
 * selection. */
static bool size_bound(const struct cd_result *r, uint32_t id, size_t len)
{
    if (cd_labels_is_outcome(id))
        return false;
    for (uint32_t lower = id & ~7u; lower < id; lower++) {
        size_t li = cd_result_label_index(r, lower);
        if (li == SIZE_MAX)
            continue;
        const struct cd_result_example *h = &r->examples[r->labels[li].example];
        if (!h->left_out && h->len < len)
            return true;
    }
    return false;
}

/* Counts the seeds whose every held label is size-bound, and those labels, into r's stats. */
static void count_size_bound(struct cd_result *r)
{
    r->stats.size_bound_labels = r->stats.size_bound_bytes = 0;
    for (size_t i = 0; i < r->n_examples; i++) {
        const struct cd_result_example *e = &r->examples[i];
        bool all = cd_result_is_seed(e);
        for (size_t k = 0; all && k < e->best.n; k++)
            all = size_bound(r, e->best.v[k], e->len);
        if (all) {
            r->stats.size_bound_labels += e->best.n;
            r->stats.size_bound_bytes += e->len;
        }
    }
}

enum cd_status cd_result_select_seeds(struct cd_result *r, bool all_best, bool keep_found,
                                      bool per_outcome, unsigned n_targets,
                                      const struct cd_cover_exact *exact, struct cd_error *err)
{
    enum cd_status st = CD_OK;
    size_t n = r->n_examples, nl = r->n_labels;
    struct cover c = {.r = r};
    size_t *renum = calloc(n ? n : 1, sizeof *renum);
    struct cd_labelset *best = calloc(n ? n : 1, sizeof *best);
    c.order = calloc(n ? n : 1, sizeof *c.order);
    c.taken = calloc(n ? n : 1, sizeof *c.taken);
    c.covered = calloc(nl ? nl : 1, sizeof *c.covered);
    c.holder = calloc(nl ? nl : 1, sizeof *c.holder);
    struct by_size *sizes = calloc(n ? n : 1, sizeof *sizes);
    bool *chosen = calloc(n ? n : 1, sizeof *chosen);
    if (!renum || !best || !c.order || !c.taken || !c.covered || !c.holder || !sizes || !chosen) {
        free(sizes);
        st = cd_error_oom(err, CD_FAILED, "out of memory selecting the seeds");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (!r->examples[i].reproducer)
            sizes[c.n_order++] = (struct by_size){r->examples[i].len, i};
    qsort(sizes, c.n_order, sizeof *sizes, larger_first);
    for (size_t k = 0; k < c.n_order; k++)
        c.order[k] = sizes[k].index;
    free(sizes);
    uint64_t solve_ms;
    st = choose(&c, all_best, keep_found, exact, chosen, &solve_ms, err);
    if (st != CD_OK)
        goto out;
    take_chosen(&c, chosen);
    if (per_outcome && (st = rehome_to_reproducers(&c, chosen, err)) != CD_OK)
        goto out;
    /* the views' exact solves take what time the seed cover's left */
    struct cd_cover_exact rest = exact ? *exact : (struct cd_cover_exact){0};
    rest.seconds = rest.seconds > (double)solve_ms / 1e3 ? rest.seconds - (double)solve_ms / 1e3
                                                         : 0;
    uint32_t *views = NULL;
    if ((st = cd_result_choose_views(r, c.taken, n_targets, exact ? &rest : NULL, &views,
                                     err)) != CD_OK)
        goto out;
    /* New best sets first, so that running out of memory leaves r as it was. */
    for (size_t li = 0; li < nl; li++)
        if (!cd_labelset_push(&best[c.holder[li]], r->labels[li].id)) {
            free(views);
            st = cd_error_oom(err, CD_FAILED, "out of memory selecting the seeds");
            goto out;
        }
    /* A found label no taken example shows stays with its best, which is kept, left out. */
    r->stats.labels_left_out = r->stats.left_out_bytes = 0;
    for (size_t li = 0; li < nl; li++) {
        struct cd_result_example *e = &r->examples[c.holder[li]];
        if (c.taken[c.holder[li]] || e->reproducer)
            continue;
        r->stats.labels_left_out++;
        if (!e->left_out)
            r->stats.left_out_bytes += e->len;
        e->left_out = true;
    }
    /* With per_outcome the reproducers written are the best examples of outcome labels: one per
       bug, hang or signal. Another crashing example, best only for coverage no seed and no such
       reproducer shows, stays in the state. */
    r->stats.crash_only_labels = r->stats.crash_only_bytes = 0;
    for (size_t i = 0; per_outcome && i < n; i++) {
        struct cd_result_example *e = &r->examples[i];
        if (e->reproducer && !cd_labelset_has_outcome(&best[i])) {
            e->reproducer = false;
            e->left_out = true;
            r->stats.crash_only_labels += best[i].n;
            r->stats.crash_only_bytes += e->len;
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        struct cd_result_example *e = &r->examples[i];
        cd_labelset_release(&e->best);
        e->best = best[i];
        best[i] = (struct cd_labelset){0};
        if (!c.taken[i] && !e->reproducer && !e->left_out && !(views && views[i])) {
            free(e->data);
            free(e->origin);
            cd_labelset_release(&e->labels);
            cd_labelset_release(&e->best);
            continue;
        }
        renum[i] = kept;
        if (views)
            views[kept] = views[i];
        r->examples[kept++] = *e;
    }
    r->n_examples = kept;
    free(r->views);
    r->views = views;
    for (size_t li = 0; li < nl; li++)
        r->labels[li].example = renum[c.holder[li]];
    count_size_bound(r);
out:
    for (size_t i = 0; best && i < n; i++)
        cd_labelset_release(&best[i]);
    free(best);
    free(renum);
    free(c.order);
    free(c.taken);
    free(c.covered);
    free(c.holder);
    free(chosen);
    return st;
}

bool cd_result_is_seed_name(const char *name)
{
    return cd_hash_is_sha1_hex(name);
}

bool cd_result_in_view_only(const struct cd_result *r, size_t i)
{
    return r->views && r->views[i] && !cd_result_is_seed(&r->examples[i]);
}

bool cd_result_is_seed(const struct cd_result_example *ex)
{
    if (ex->reproducer || ex->left_out)
        return false;
    for (size_t i = 0; i < ex->best.n; i++)
        if (!cd_labels_is_outcome(ex->best.v[i]))
            return true;
    return false;
}

/* Appends to buf (at n of cap) '-' and text up to its first newline (at most max bytes) with every
 * run of bytes other than letters, digits and '_' as one '-', lower-cased. */
static size_t put_slug(char *buf, size_t n, size_t cap, const char *text, size_t max)
{
    bool dash = true;
    for (size_t i = 0; text[i] && text[i] != '\n' && i < max && n + 2 < cap; i++) {
        char c = text[i];
        bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
        if (word) {
            if (dash)
                buf[n++] = '-';
            buf[n++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
        dash = !word;
    }
    buf[n] = '\0';
    return n;
}

const char *cd_result_file_name(const struct cd_result *r, const struct cd_result_example *ex,
                                char *buf, size_t cap)
{
    if (!ex->reproducer) {
        snprintf(buf, cap, "%s", ex->sha1);
        return buf;
    }
    const char *note = NULL;
    bool crash = false, timeout = false; /* a crash outranks a timeout in the name */
    for (size_t i = 0; i < ex->labels.n; i++) {
        char text[64];
        if (!cd_labels_is_outcome(ex->labels.v[i]))
            continue;
        size_t li = cd_labels_is_bug(ex->labels.v[i]) ? cd_result_label_index(r, ex->labels.v[i])
                                                      : SIZE_MAX;
        if (li != SIZE_MAX && r->labels[li].note)
            note = r->labels[li].note;
        cd_labels_format(cd_labels_in_target(ex->labels.v[i], 0), text, sizeof text);
        if (strcmp(text, "timeout") == 0)
            timeout = true;
        else
            crash = true;
    }
    size_t n = (size_t)snprintf(buf, cap, "%s", timeout && !crash ? "timeout" : "crash");
    if (note && cap >= CD_RESULT_NAME_MAX) { /* the bug's kind, access and top frame */
        n = put_slug(buf, n, cap, note, 64);
        const char *frame = strchr(note, '\n');
        if (frame)
            n = put_slug(buf, n, cap, frame + 1, 48);
    }
    snprintf(buf + n, cap - n, "-%s", ex->sha1);
    return buf;
}

size_t cd_result_count_unreported(const struct cd_result *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_examples; i++)
        n += r->examples[i].reproducer &&
             cd_labels_unreported(r->examples[i].labels.v, r->examples[i].labels.n) != 0;
    return n;
}

size_t cd_result_count_bugs(const struct cd_result *r)
{
    size_t n = 0; /* one crash state reached from several targets is one bug */
    for (size_t i = 0; i < r->n_labels; i++) {
        uint32_t id = r->labels[i].id, base = cd_labels_in_target(id, 0);
        bool again = false;
        for (size_t k = 0; k < i && !again && cd_labels_is_bug(id); k++)
            again = cd_labels_is_bug(r->labels[k].id) &&
                    cd_labels_in_target(r->labels[k].id, 0) == base;
        n += cd_labels_is_bug(id) && !again;
    }
    return n;
}
