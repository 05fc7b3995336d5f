/* The result of a distillation as emit and the manifest see it, built from the table: distinct
 * best examples sorted by SHA-1 (their file names), every label they show and the labels they are
 * best for, reproducer flags, and labels sorted by id. It owns copies of everything. */
#include "cd_distill.h"
#include "cd_hash.h"
#include "cd_table.h"

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
    free(r->labels);
    memset(r, 0, sizeof *r);
}

struct order {
    char sha1[41];
    size_t index;   /* in the table's live list */
};

static int by_sha1(const void *a, const void *b)
{
    return strcmp(((const struct order *)a)->sha1, ((const struct order *)b)->sha1);
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const struct cd_result_label *)a)->id, y = ((const struct cd_result_label *)b)->id;
    return (x > y) - (x < y);
}

/* Copies table example e into r. */
static bool copy_example(struct cd_result_example *r, const struct cd_table_example *e)
{
    r->data = malloc(e->len ? e->len : 1);
    r->origin = strdup(e->origin);
    r->labels.v = malloc((e->labels.n ? e->labels.n : 1) * sizeof *r->labels.v);
    if (!r->data || !r->origin || !r->labels.v)
        return false;
    if (e->len)
        memcpy(r->data, e->data, e->len);
    r->len = e->len;
    memcpy(r->labels.v, e->labels.v, e->labels.n * sizeof *e->labels.v);
    r->labels.n = r->labels.cap = e->labels.n;
    for (size_t i = 0; i < e->labels.n; i++)
        r->reproducer |= cd_labels_is_outcome(e->labels.v[i]);
    cd_hash_sha1_hex(e->data, e->len, r->sha1);
    return true;
}

enum cd_status cd_result_build(struct cd_result *out, const struct cd_table *t,
                               const struct cd_result_stats *stats, struct cd_error *err)
{
    size_t n = cd_table_n_examples(t), nl = cd_table_n_labels(t);
    struct order *ord = calloc(n ? n : 1, sizeof *ord);
    size_t *rank = calloc(n ? n : 1, sizeof *rank);
    memset(out, 0, sizeof *out);
    out->examples = calloc(n ? n : 1, sizeof *out->examples);
    out->labels = calloc(nl ? nl : 1, sizeof *out->labels);
    if (!ord || !rank || !out->examples || !out->labels)
        goto oom;
    size_t i = 0;
    for (struct cd_table_example *e = cd_table_examples(t); e; e = e->next, i++) {
        e->index = i;
        cd_hash_sha1_hex(e->data, e->len, ord[i].sha1);
        ord[i].index = i;
    }
    qsort(ord, n, sizeof *ord, by_sha1);
    for (i = 0; i < n; i++)
        rank[ord[i].index] = i;
    out->n_examples = n;
    for (struct cd_table_example *e = cd_table_examples(t); e; e = e->next)
        if (!copy_example(&out->examples[rank[e->index]], e))
            goto oom;
    for (i = 0; i < nl; i++) {
        const struct cd_table_label *l = cd_table_label_at(t, i);
        out->labels[i] = (struct cd_result_label){
            .id = l->id, .example = rank[l->best->index], .finished = cd_table_skippable(l)};
    }
    out->n_labels = nl;
    qsort(out->labels, nl, sizeof *out->labels, by_id);
    for (i = 0; i < nl; i++)
        if (!cd_labelset_push(&out->examples[out->labels[i].example].best, out->labels[i].id))
            goto oom;
    out->stats = *stats;
    free(ord);
    free(rank);
    return CD_OK;
oom:
    free(ord);
    free(rank);
    cd_result_release(out);
    return cd_error_set(err, CD_FAILED, "out of memory building the result");
}
