/* Unit tests for the table: shortlex order, best examples per label, sharing and freeing of
 * examples, finished marks and the change counter, the seen-set, unstable edges, the state file
 * and merges. */
#define _GNU_SOURCE /* memmem */
#include "table/cd_table.h"
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static struct cd_labelset set_of(uint32_t *ids, size_t n)
{
    return (struct cd_labelset){.v = ids, .n = n, .cap = n};
}

static enum cd_status offer(struct cd_table *t, const char *s, uint32_t *ids, size_t n,
                            size_t *improved)
{
    struct cd_labelset set = set_of(ids, n);
    struct cd_error err;
    return cd_table_offer(t, (const uint8_t *)s, strlen(s), &set, s, improved, NULL, &err);
}

static enum cd_status offer_if_known(struct cd_table *t, const char *s, uint32_t *ids, size_t n,
                                     size_t *improved)
{
    struct cd_labelset set = set_of(ids, n);
    struct cd_error err;
    return cd_table_offer_if_known(t, (const uint8_t *)s, strlen(s), &set, s, improved, NULL,
                                   &err);
}

/* cd_table_wins for s and its labels, while label reducing is reduced. */
static struct cd_table_wins wins_of(const struct cd_table *t, const char *s, uint32_t *ids,
                                    size_t n, uint32_t reducing)
{
    struct cd_labelset set = set_of(ids, n);
    return cd_table_wins(t, (const uint8_t *)s, strlen(s), &set, reducing);
}

static size_t wins(const struct cd_table *t, const char *s, uint32_t *ids, size_t n,
                   uint32_t reducing)
{
    return wins_of(t, s, ids, n, reducing).n;
}

/* Whether label id's best example is s. */
static bool best_of_is(const struct cd_table *t, uint32_t id, const char *s)
{
    const struct cd_table_label *l = cd_table_find(t, id);
    return l && l->best->len == strlen(s) && !memcmp(l->best->data, s, l->best->len);
}

static void test_table_shortlex_order(void)
{
    const uint8_t a[] = "ab", b[] = "b", c[] = {0xff}, d[] = {0x01};
    CU_ASSERT(cd_table_shortlex(b, 1, a, 2) < 0);   /* shorter wins */
    CU_ASSERT(cd_table_shortlex(a, 2, b, 1) > 0);
    CU_ASSERT(cd_table_shortlex(d, 1, c, 1) < 0);   /* unsigned bytes */
    CU_ASSERT(cd_table_shortlex(c, 1, d, 1) > 0);
    CU_ASSERT(cd_table_shortlex(a, 2, a, 2) == 0);
    CU_ASSERT(cd_table_shortlex(NULL, 0, a, 2) < 0);
    CU_ASSERT(cd_table_shortlex(NULL, 0, NULL, 0) == 0);
}

static void test_table_offer_keeps_best(void)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    uint32_t l12[] = {1, 2}, l2[] = {2}, l123[] = {1, 2, 3};
    size_t imp = 99;
    CU_ASSERT_EQUAL(offer(t, "hello", l12, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 2);
    CU_ASSERT_EQUAL(cd_table_changes(t), 2);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 1);
    /* a worse example for the same labels changes nothing and is not stored */
    CU_ASSERT_EQUAL(offer(t, "hellos", l12, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 0);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 1);
    CU_ASSERT_EQUAL(cd_table_changes(t), 2);
    /* same length, lexicographically larger: not better */
    CU_ASSERT_EQUAL(offer(t, "hellp", l12, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 0);
    /* a shorter example for label 2 only: both examples live */
    CU_ASSERT_EQUAL(offer(t, "hi", l2, 1, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 1);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 2);
    CU_ASSERT_EQUAL(cd_table_example_bytes(t), 7);
    const struct cd_table_label *l1 = cd_table_find(t, 1), *lb2 = cd_table_find(t, 2);
    CU_ASSERT_FATAL(l1 && lb2);
    CU_ASSERT_EQUAL(l1->best->len, 5);
    CU_ASSERT_EQUAL(lb2->best->len, 2);
    CU_ASSERT_STRING_EQUAL(lb2->best->origin, "hi");
    CU_ASSERT_EQUAL(l1->best->refs, 1);
    /* an example best for 1, 2 and new 3 frees both older ones */
    CU_ASSERT_EQUAL(offer(t, "a", l123, 3, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 3);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 1);
    CU_ASSERT_EQUAL(cd_table_example_bytes(t), 1);
    CU_ASSERT_EQUAL(cd_table_n_labels(t), 3);
    CU_ASSERT_EQUAL(cd_table_changes(t), 6);
    CU_ASSERT_PTR_EQUAL(cd_table_examples(t), cd_table_find(t, 3)->best);
    CU_ASSERT_EQUAL(cd_table_examples(t)->refs, 3);
    CU_ASSERT_EQUAL(cd_table_examples(t)->labels.n, 3);
    CU_ASSERT_PTR_NULL(cd_table_find(t, 4));
    /* first-seen order of label records */
    CU_ASSERT_EQUAL(cd_table_label_at(t, 0)->id, 1);
    CU_ASSERT_EQUAL(cd_table_label_at(t, 2)->id, 3);
    cd_table_free(t);
}

static void test_table_finished_marks(void)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    uint32_t l12[] = {1, 2}, l1[] = {1};
    CU_ASSERT_EQUAL(offer(t, "bbbb", l12, 2, NULL), CD_OK);
    const struct cd_table_label *a = cd_table_find(t, 1), *b = cd_table_find(t, 2);
    CU_ASSERT(!cd_table_skippable(a));
    cd_table_finish(t, 1, false);
    CU_ASSERT(cd_table_skippable(a));
    CU_ASSERT(!cd_table_skippable(b));
    cd_table_finish(t, 1, true); /* the example is finished: every label it is best for skips */
    CU_ASSERT(cd_table_skippable(b));
    uint64_t before = cd_table_changes(t);
    CU_ASSERT_EQUAL(offer(t, "bb", l1, 1, NULL), CD_OK);
    a = cd_table_find(t, 1);
    CU_ASSERT(!a->finished);            /* improvement drops the mark */
    CU_ASSERT(!cd_table_skippable(a));  /* new example is not finished */
    CU_ASSERT(cd_table_skippable(cd_table_find(t, 2)));
    CU_ASSERT_EQUAL(cd_table_changes(t), before + 1);
    cd_table_free(t);
}

/* Donors: the shortest best of a higher class of the same edge, shorter than the label's own,
 * untried; a label with one pending is not skippable until it is taken. */
static void test_table_donors(void)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    uint32_t one[] = {cd_labels_edge(5, 1)}, three[] = {cd_labels_edge(5, 3)},
             many[] = {cd_labels_edge(5, 200)}, other[] = {cd_labels_edge(6, 200)};
    CU_ASSERT_EQUAL(offer(t, "xxxxxxxx", one, 1, NULL), CD_OK);
    const struct cd_table_label *l1 = cd_table_find(t, one[0]);
    CU_ASSERT_PTR_NULL(cd_table_donor(t, l1));
    cd_table_finish(t, l1->id, false);
    CU_ASSERT(cd_table_skippable(l1));
    CU_ASSERT_EQUAL(offer(t, "ooo", other, 1, NULL), CD_OK); /* another edge gives nothing */
    l1 = cd_table_find(t, one[0]);
    CU_ASSERT(cd_table_skippable(l1));
    CU_ASSERT_EQUAL(offer(t, "yyyyy", many, 1, NULL), CD_OK);
    l1 = cd_table_find(t, one[0]);
    const struct cd_table_example *d = cd_table_donor(t, l1);
    CU_ASSERT_FATAL(d != NULL);
    CU_ASSERT(d->len == 5 && !memcmp(d->data, "yyyyy", 5));
    CU_ASSERT(l1->donor_pending);
    CU_ASSERT(!cd_table_skippable(l1));
    CU_ASSERT_EQUAL(offer(t, "zzzzzz", three, 1, NULL), CD_OK); /* longer than 5:8's best */
    l1 = cd_table_find(t, one[0]);
    const struct cd_table_label *l3 = cd_table_find(t, three[0]), *l8 = cd_table_find(t, many[0]);
    CU_ASSERT(l3->donor_pending);
    CU_ASSERT_PTR_EQUAL(cd_table_donor(t, l3), l8->best);
    CU_ASSERT_PTR_EQUAL(cd_table_donor(t, l1), l8->best); /* the shortest */
    CU_ASSERT_PTR_NULL(cd_table_donor(t, l8));            /* no higher class */
    cd_table_donor_taken(t, l1->id, cd_table_donor(t, l1));
    CU_ASSERT(!l1->donor_pending);
    CU_ASSERT(cd_table_skippable(l1));
    CU_ASSERT_PTR_NULL(cd_table_donor(t, l1)); /* tried */
    CU_ASSERT_EQUAL(offer(t, "www", three, 1, NULL), CD_OK);
    l1 = cd_table_find(t, one[0]);
    l3 = cd_table_find(t, three[0]);
    CU_ASSERT(l1->donor_pending); /* a new, shorter donor */
    CU_ASSERT_PTR_EQUAL(cd_table_donor(t, l1), l3->best);
    cd_table_donor_taken(t, l3->id, cd_table_donor(t, l3));
    CU_ASSERT_PTR_NULL(cd_table_donor(t, l3)); /* 5:8's best is no longer shorter */
    CU_ASSERT(!l3->donor_pending);
    uint32_t crash;
    CU_ASSERT_FATAL(cd_labels_parse("crash:SIGSEGV", &crash));
    uint32_t crash_set[] = {crash};
    CU_ASSERT_EQUAL(offer(t, "cccccccccc", crash_set, 1, NULL), CD_OK);
    CU_ASSERT_PTR_NULL(cd_table_donor(t, cd_table_find(t, crash)));
    cd_table_free(t);
}

/* A coverage label's best is a seed whenever some run that showed it was one: an example that
 * crashed or hung loses to one that did not, however short; among each kind shortlex rules, and
 * outcome labels keep plain shortlex. */
static void test_table_seeds_before_outcomes(void)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    uint32_t crash, hang;
    CU_ASSERT_FATAL(cd_labels_parse("crash:SIGSEGV", &crash));
    CU_ASSERT_FATAL(cd_labels_parse("timeout", &hang));
    uint32_t edge = cd_labels_edge(9, 1), other = cd_labels_edge(10, 1);
    uint32_t crashed[] = {edge, crash}, hung[] = {other, hang}, clean[] = {edge, other};
    size_t imp = 0;
    /* first seen only in a crash: the crash holds the label */
    CU_ASSERT_EQUAL(wins_of(t, "cc", crashed, 2, edge).fresh, 2);
    CU_ASSERT_EQUAL(offer(t, "cc", crashed, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(wins_of(t, "cc", clean, 2, edge).fresh, 1);
    CU_ASSERT_EQUAL(imp, 2);
    CU_ASSERT(cd_labelset_has_outcome(&cd_table_find(t, edge)->best->labels));
    /* a longer clean run takes both coverage labels, and the crash keeps its own */
    CU_ASSERT_EQUAL(offer(t, "seedseed", clean, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 2);
    CU_ASSERT_EQUAL(cd_table_find(t, edge)->best->len, 8);
    CU_ASSERT(!cd_labelset_has_outcome(&cd_table_find(t, edge)->best->labels));
    CU_ASSERT_EQUAL(cd_table_find(t, crash)->best->len, 2);
    /* shorter crashes and hangs win nothing from a clean best, only their outcome labels.
       cd_table_wins tells so beforehand and changes nothing; a shorter reproducer counts only
       while its own label is reduced, a label no run showed always */
    CU_ASSERT_EQUAL(wins(t, "c", crashed, 2, crash), 1);
    CU_ASSERT_EQUAL(wins(t, "c", crashed, 2, edge), 0);
    CU_ASSERT_EQUAL(offer(t, "c", crashed, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 1);
    CU_ASSERT_EQUAL(wins(t, "h", hung, 2, edge), 1);
    CU_ASSERT_EQUAL(wins(t, "h", hung, 2, hang), 1);
    CU_ASSERT(wins_of(t, "h", hung, 2, hang).reducing);
    CU_ASSERT(!wins_of(t, "h", hung, 2, edge).reducing);
    CU_ASSERT_EQUAL(offer(t, "h", hung, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 1);
    CU_ASSERT_EQUAL(wins(t, "hh", hung, 2, hang), 0);
    CU_ASSERT(!wins_of(t, "hh", hung, 2, hang).reducing);
    CU_ASSERT_EQUAL(wins(t, "c", crashed, 2, crash), 0);
    CU_ASSERT_EQUAL(cd_table_find(t, edge)->best->len, 8);
    CU_ASSERT_EQUAL(cd_table_find(t, other)->best->len, 8);
    CU_ASSERT_EQUAL(cd_table_find(t, crash)->best->len, 1);
    CU_ASSERT_EQUAL(cd_table_find(t, hang)->best->len, 1);
    /* a shorter clean run still wins as usual */
    CU_ASSERT_EQUAL(offer(t, "seed", clean, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 2);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 3);
    /* a crashing donor is not offered to a label whose best is clean */
    uint32_t many[] = {cd_labels_edge(9, 200), crash};
    CU_ASSERT_EQUAL(offer(t, "m", many, 2, &imp), CD_OK);
    CU_ASSERT_PTR_NULL(cd_table_donor(t, cd_table_find(t, edge)));
    cd_table_free(t);
}

static void test_table_many_labels(void)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    static uint32_t ids[3000];
    for (uint32_t i = 0; i < 3000; i++)
        ids[i] = i * 8 + 8;
    CU_ASSERT_EQUAL(offer(t, "long example", ids, 3000, NULL), CD_OK);
    CU_ASSERT_EQUAL(offer(t, "short", ids + 1000, 1000, NULL), CD_OK);
    CU_ASSERT_EQUAL(cd_table_n_labels(t), 3000);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 2);
    for (uint32_t i = 0; i < 3000; i++) {
        const struct cd_table_label *l = cd_table_find(t, i * 8 + 8);
        CU_ASSERT_FATAL(l != NULL);
        CU_ASSERT_EQUAL(l->best->len, i >= 1000 && i < 2000 ? 5 : 12);
    }
    CU_ASSERT_PTR_NULL(cd_table_find(t, 7));
    cd_table_free(t);
}

static void test_table_seen_set(void)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    struct cd_hash a = cd_hash_bytes("a", 1), b = cd_hash_bytes("b", 1);
    CU_ASSERT(!cd_table_seen_has(t, a));
    CU_ASSERT_EQUAL(cd_table_seen_add(t, a), 1);
    CU_ASSERT_EQUAL(cd_table_seen_add(t, a), 0);
    CU_ASSERT(cd_table_seen_has(t, a));
    CU_ASSERT(!cd_table_seen_has(t, b));
    cd_table_free(t);
    cd_table_free(NULL);
}

/* Marking an edge unstable takes its labels out of the table and of every example, frees what is
 * then best for nothing (but pinned examples), keeps lookups right for the records that move, and
 * strips the edge's labels from later runs. */
static void test_table_unstable(void)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    size_t imp = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    uint32_t ab[] = {8, 16}, a[] = {9}, xyz[] = {17, 24}, crash[] = {10, CD_LABEL_OUTCOME | 3};
    const struct cd_table_example *pin = NULL;
    struct cd_labelset sp = set_of((uint32_t[]){11}, 1);
    CU_ASSERT_EQUAL(cd_table_offer(t, (const uint8_t *)"pin", 3, &sp, "p", NULL, &pin, &err),
                    CD_OK);
    cd_table_pin(t, pin);
    offer(t, "ab", ab, 2, NULL);
    offer(t, "a", a, 1, NULL);
    offer(t, "xyz", xyz, 2, NULL);
    offer(t, "boom", crash, 2, NULL);
    CU_ASSERT_EQUAL(cd_table_n_labels(t), 8);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 5);
    /* known labels are offered as usual (here: worse, nothing changes); a new coverage label
       holds the offer back, the table unchanged */
    CU_ASSERT_EQUAL(offer_if_known(t, "longer than ab", ab, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 0);
    CU_ASSERT_EQUAL(offer_if_known(t, "q", (uint32_t[]){16, 40}, 2, &imp), CD_WARN);
    CU_ASSERT(imp == 0 && best_of_is(t, 16, "ab") && !cd_table_find(t, 40));
    CU_ASSERT_EQUAL(cd_table_n_labels(t), 8);
    CU_ASSERT_EQUAL(cd_table_mark_unstable(t, 1), 4); /* labels 8, 9, 10 and 11 */
    for (uint32_t id = 8; id < 16; id++)
        CU_ASSERT_PTR_NULL(cd_table_find(t, id));
    CU_ASSERT_EQUAL(cd_table_n_labels(t), 4);
    CU_ASSERT(best_of_is(t, 16, "ab") && best_of_is(t, 17, "xyz") && best_of_is(t, 24, "xyz"));
    CU_ASSERT(best_of_is(t, CD_LABEL_OUTCOME | 3, "boom"));
    for (size_t i = 0; i < cd_table_n_labels(t); i++)
        CU_ASSERT_EQUAL(cd_table_label_index(t, cd_table_label_at(t, i)->id), i);
    /* "a" was best for 9 alone and went; "pin" stays pinned with no labels; "ab" shows 16 only */
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 4);
    for (const struct cd_table_example *e = cd_table_examples(t); e; e = e->next) {
        for (size_t i = 0; i < e->labels.n; i++)
            CU_ASSERT(cd_labels_is_outcome(e->labels.v[i]) || cd_labels_slot(e->labels.v[i]) != 1);
        if (e->len == 3 && !memcmp(e->data, "pin", 3))
            CU_ASSERT(e->pinned && e->labels.n == 0);
    }
    CU_ASSERT_EQUAL(cd_table_find(t, 16)->best->labels.n, 1);
    CU_ASSERT_EQUAL(cd_table_find(t, CD_LABEL_OUTCOME | 3)->best->labels.n, 1);
    CU_ASSERT_EQUAL(cd_table_mark_unstable(t, 1), 0); /* once is enough */
    CU_ASSERT_EQUAL(cd_table_mark_unstable(t, 7), 0);
    size_t n = 0;
    const uint32_t *edges = cd_table_unstable(t, &n);
    CU_ASSERT(n == 2 && edges[0] == 1 && edges[1] == 7);
    uint32_t run[] = {9, 16, 56, 57, CD_LABEL_OUTCOME | 3};
    struct cd_labelset rs = set_of(run, 5);
    cd_table_strip_unstable(t, &rs);
    CU_ASSERT(rs.n == 2 && run[0] == 16 && run[1] == (CD_LABEL_OUTCOME | 3));
    /* the table takes offers as before */
    CU_ASSERT_EQUAL(offer(t, "c", (uint32_t[]){16, 32}, 2, &imp), CD_OK);
    CU_ASSERT(imp == 2 && best_of_is(t, 16, "c") && best_of_is(t, 32, "c"));
    /* outcome labels are not coverage: a new one is no reason to run an input again */
    CU_ASSERT_EQUAL(offer_if_known(t, "d", (uint32_t[]){CD_LABEL_OUTCOME | 9}, 1, &imp), CD_OK);
    CU_ASSERT(imp == 1 && best_of_is(t, CD_LABEL_OUTCOME | 9, "d"));
    cd_table_free(t);
}

/* A table with shared examples, a replaced best, a finished mark, an outcome label, a pending
 * donor, a pinned example best for nothing, an unstable edge, a checked example, and a seen-set of
 * 5,000 hashes. */
static struct cd_table *state_sample(void)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    /* crash:SIGSEGV: a state holds only labels some run gives */
    uint32_t a[] = {8, 9, 16}, b[] = {8, 24}, c[] = {10},
             crash[] = {17, CD_LABEL_OUTCOME | 2u << 24 | 11u};
    const struct cd_table_example *pinned = NULL;
    struct cd_labelset sa = set_of(a, 3);
    CU_ASSERT_EQUAL(cd_table_offer(t, (const uint8_t *)"abcdef", 6, &sa, "in/one", NULL, &pinned,
                                   &err), CD_OK);
    cd_table_pin(t, pinned);
    offer(t, "abc", a, 3, NULL);          /* the pinned example is now best for nothing */
    offer(t, "xy", b, 2, NULL);
    offer(t, "a somewhat longer one", c, 1, NULL);
    offer(t, "boom", crash, 2, NULL);
    cd_table_finish(t, 16, false);
    cd_table_finish(t, 8, true); /* and the example "xy", best for 8 and 24 */
    offer(t, "q", (uint32_t[]){11}, 1, NULL); /* class 4 of edge 1, shorter than class 3's */
    offer(t, "flicker", (uint32_t[]){40, 41}, 2, NULL);
    cd_table_checked(t, cd_table_find(t, 10)->best);
    CU_ASSERT_EQUAL(cd_table_mark_unstable(t, 5), 2);
    for (int i = 0; i < 5000; i++)
        cd_table_seen_add(t, cd_hash_bytes(&i, sizeof i));
    return t;
}

/* A snapshot holds the table as it was when taken: the table changed after it (offers, marks,
 * the seen-set, unstable edges) saves other bytes, the snapshot the bytes of then. */
static void test_table_snapshot(void)
{
    struct cd_table *t = state_sample();
    struct cd_error err;
    struct cd_table_meta meta = {"", "argv=./t @@", 1, 10, 20, false, 0, 0, 0};
    uint8_t *then = NULL, *snap_bytes = NULL, *now = NULL;
    size_t then_len = 0, snap_len = 0, now_len = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &then, &then_len, &err), CD_OK);
    struct cd_table_snapshot *snap = cd_table_snapshot(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(snap);
    offer(t, "r", (uint32_t[]){8, 99}, 2, NULL); /* a new best, and the old one dropped */
    cd_table_finish(t, 99, false);
    for (int i = 5000; i < 6000; i++)
        cd_table_seen_add(t, cd_hash_bytes(&i, sizeof i));
    (void)cd_table_mark_unstable(t, 6);
    CU_ASSERT_EQUAL_FATAL(cd_table_snapshot_save(snap, &meta, &snap_bytes, &snap_len, &err),
                          CD_OK);
    CU_ASSERT(snap_len == then_len && memcmp(snap_bytes, then, then_len) == 0);
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &now, &now_len, &err), CD_OK);
    CU_ASSERT(now_len != then_len || memcmp(now, then, then_len) != 0);
    cd_table_snapshot_free(snap);
    free(then);
    free(snap_bytes);
    free(now);
    cd_table_free(t);
}

static void test_table_state_round_trip(void)
{
    struct cd_table *t = state_sample(), *u = NULL;
    struct cd_error err;
    struct cd_table_meta meta = {"0123456789abcdef0123456789abcdef01234567", "argv=./t @@", 2, 1234,
                                 5678, true, 0, 0, 0},
                         back;
    uint8_t *buf = NULL, *again = NULL;
    size_t len = 0, alen = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &buf, &len, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_load(&u, &back, buf, len, 0, &err), CD_OK);
    CU_ASSERT_STRING_EQUAL(back.target_sha1, meta.target_sha1);
    CU_ASSERT_STRING_EQUAL(back.settings, "argv=./t @@");
    CU_ASSERT(back.runs == 2 && back.execs == 1234 && back.wall_ms == 5678 && back.complete);
    /* what the engine reads back: bests, marks, order, the seen-set, the change counter */
    CU_ASSERT_EQUAL(cd_table_n_labels(u), cd_table_n_labels(t));
    for (size_t i = 0; i < cd_table_n_labels(t); i++) {
        const struct cd_table_label *x = cd_table_label_at(t, i), *y = cd_table_label_at(u, i);
        CU_ASSERT_EQUAL(x->id, y->id);
        CU_ASSERT_EQUAL(x->finished, y->finished);
        CU_ASSERT_EQUAL(x->donor_pending, y->donor_pending);
        CU_ASSERT_EQUAL(cd_table_skippable(x), cd_table_skippable(y));
        CU_ASSERT(x->best->len == y->best->len && !memcmp(x->best->data, y->best->data, x->best->len));
        CU_ASSERT_STRING_EQUAL(x->best->origin, y->best->origin);
        CU_ASSERT_EQUAL(x->best->outcome, y->best->outcome);
        CU_ASSERT_EQUAL(x->best->checked, y->best->checked);
    }
    CU_ASSERT_TRUE(cd_table_find(u, 10)->best->checked);
    CU_ASSERT_FALSE(cd_table_find(u, 8)->best->checked);
    size_t nu = 0;
    const uint32_t *unstable = cd_table_unstable(u, &nu);
    CU_ASSERT(nu == 1 && unstable[0] == 5);
    CU_ASSERT_PTR_NULL(cd_table_find(u, 40));
    CU_ASSERT_TRUE(cd_table_find(u, 11)->donor_pending || cd_table_find(u, 10)->donor_pending);
    /* the pinned example, best for nothing, is kept pinned; unpinned, it goes */
    CU_ASSERT_EQUAL(cd_table_n_examples(u), cd_table_n_examples(t));
    CU_ASSERT_EQUAL(cd_table_example_bytes(u), cd_table_example_bytes(t));
    const struct cd_table_example *first = cd_table_examples(u);
    CU_ASSERT(first->pinned && first->refs == 0 && first->len == 6);
    CU_ASSERT_EQUAL(cd_table_changes(u), cd_table_changes(t));
    for (int i = 0; i < 5000; i++)
        CU_ASSERT(cd_table_seen_has(u, cd_hash_bytes(&i, sizeof i)));
    CU_ASSERT(!cd_table_seen_has(u, cd_hash_bytes("never", 5)));
    /* byte for byte */
    CU_ASSERT_EQUAL_FATAL(cd_table_save(u, &back, &again, &alen, &err), CD_OK);
    CU_ASSERT(alen == len && memcmp(buf, again, len) == 0);
    cd_table_unpin(u, first);
    CU_ASSERT_EQUAL(cd_table_n_examples(u), cd_table_n_examples(t) - 1);
    /* the loaded table takes offers as the original does */
    size_t imp = 0;
    CU_ASSERT_EQUAL(offer(u, "z", (uint32_t[]){8, 9}, 2, &imp), CD_OK);
    CU_ASSERT_EQUAL(imp, 2);
    CU_ASSERT_FALSE(cd_table_find(u, 8)->finished);
    free(buf);
    free(again);
    cd_table_meta_release(&back);
    cd_table_free(t);
    cd_table_free(u);
}

/* Writes the checksum of a state's len bytes (its last 16) anew. */
static void resum(uint8_t *buf, size_t len)
{
    struct cd_hash h = cd_hash_bytes(buf, len - 16);
    for (int i = 0; i < 8; i++) {
        buf[len - 16 + i] = (uint8_t)(h.lo >> (8 * i));
        buf[len - 8 + i] = (uint8_t)(h.hi >> (8 * i));
    }
}

/* A state of format version 1 (no baseline, no unstable edges: the count before the checksum
 * goes, and no found marks) loads as the same table; a run upgraded overnight keeps its state. */
static void test_table_state_version_1(void)
{
    struct cd_table *t = NULL, *u = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    cd_table_count_shown(t, true); /* a first pass: input labels, as older versions have them */
    offer(t, "abc", (uint32_t[]){8, 16}, 2, NULL);
    struct cd_table_meta meta = {"", "x", 1, 1, 1, false, 0, 0, 0}, back;
    uint8_t *buf = NULL, *again = NULL;
    size_t len = 0, alen = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &buf, &len, &err), CD_OK);
    CU_ASSERT_FATAL(buf[8] == 5 && len > 90);
    /* The header ends at 50 (magic, version, 0, sha1 "", settings "x", three u64, complete);
       the baseline's three u64 follow it. */
    size_t head = 8 + 4 + 4 + 4 + 4 + 1 + 24 + 1, v1_len = len - 24 - 24 + 16;
    uint8_t *v1 = malloc(v1_len);
    CU_ASSERT_FATAL(v1 != NULL);
    memcpy(v1, buf, head);
    /* without the baseline, and the unstable edges' and the notes' counts */
    memcpy(v1 + head, buf + head + 24, len - 24 - head - 24);
    v1[8] = 1;
    resum(v1, v1_len);
    CU_ASSERT_EQUAL_FATAL(cd_table_load(&u, &back, v1, v1_len, 0, &err), CD_OK);
    CU_ASSERT(best_of_is(u, 8, "abc") && best_of_is(u, 16, "abc"));
    CU_ASSERT(back.base_run == 0 && back.base_select_only == 0 && back.base_cmin == 0);
    CU_ASSERT_EQUAL_FATAL(cd_table_save(u, &back, &again, &alen, &err), CD_OK);
    CU_ASSERT(alen == len && memcmp(buf, again, len) == 0); /* saved again as version 5 */
    cd_table_meta_release(&back);
    cd_table_free(u);
    u = NULL;
    free(again);
    again = NULL;
    /* the baseline comes back as saved; one of a run the state has not had is none */
    struct cd_table_meta based = {"", "x", 3, 1, 1, false, 2, 1000, 700};
    free(buf);
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &based, &buf, &len, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_load(&u, &back, buf, len, 0, &err), CD_OK);
    CU_ASSERT(back.base_run == 2 && back.base_select_only == 1000 && back.base_cmin == 700);
    cd_table_meta_release(&back);
    cd_table_free(u);
    u = NULL;
    free(buf);
    based.base_run = 4;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &based, &buf, &len, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_load(&u, &back, buf, len, 0, &err), CD_OK);
    CU_ASSERT(back.base_run == 0 && back.base_select_only == 0 && back.base_cmin == 0);
    free(v1);
    free(buf);
    free(again);
    cd_table_meta_release(&back);
    cd_table_free(t);
    cd_table_free(u);
}

/* Notes: kept once per label (the first text stays), saved and loaded, merged as the least text
 * whatever the order; a note of a label the table lacks, or of no bug label, is damage. */
static void test_table_notes(void)
{
    struct cd_table *t = NULL, *u = NULL, *w = NULL, *m1 = NULL, *m2 = NULL;
    struct cd_error err;
    uint32_t bug = cd_labels_bug("asan:heap-buffer-overflow READ\nparse\nmain");
    CU_ASSERT_FATAL(cd_labels_is_bug(bug));
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    offer(t, "abc", (uint32_t[]){8, bug}, 2, NULL);
    CU_ASSERT_EQUAL(cd_table_note(t, bug, "asan:heap-buffer-overflow READ\nparse\nmain", &err),
                    CD_OK);
    CU_ASSERT_EQUAL(cd_table_note(t, bug, "other", &err), CD_OK);
    CU_ASSERT_STRING_EQUAL(cd_table_note_of(t, bug), "asan:heap-buffer-overflow READ\nparse\nmain");
    CU_ASSERT_PTR_NULL(cd_table_note_of(t, 8));
    struct cd_table_meta meta = {"", "x", 1, 1, 1, false, 0, 0, 0}, back;
    uint8_t *buf = NULL, *again = NULL;
    size_t len = 0, alen = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &buf, &len, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_load(&u, &back, buf, len, 0, &err), CD_OK);
    CU_ASSERT_STRING_EQUAL(cd_table_note_of(u, bug), "asan:heap-buffer-overflow READ\nparse\nmain");
    CU_ASSERT_EQUAL_FATAL(cd_table_save(u, &back, &again, &alen, &err), CD_OK);
    CU_ASSERT(alen == len && memcmp(buf, again, len) == 0);
    cd_table_meta_release(&back);
    /* a note whose id is no bug label of the table: damage */
    uint8_t *copy = malloc(len);
    CU_ASSERT_FATAL(copy != NULL);
    memcpy(copy, buf, len);
    size_t at = len - 16 - (strlen(cd_table_note_of(t, bug)) + 4) - 4; /* the note's id */
    CU_ASSERT_EQUAL_FATAL(memcmp(copy + at, &bug, 4), 0);
    copy[at] ^= 1;
    resum(copy, len);
    CU_ASSERT_EQUAL(cd_table_load(&w, &back, copy, len, 0, &err), CD_FAILED);
    CU_ASSERT_STRING_EQUAL(err.msg, "damaged state file: a damaged note");
    /* merged: the least text, in either order */
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&w, &err), CD_OK);
    offer(w, "abd", (uint32_t[]){8, bug}, 2, NULL);
    CU_ASSERT_EQUAL(cd_table_note(w, bug, "a:b", &err), CD_OK);
    const struct cd_table *ab[] = {t, w}, *ba[] = {w, t};
    CU_ASSERT_EQUAL_FATAL(cd_table_merge(&m1, ab, 2, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_merge(&m2, ba, 2, &err), CD_OK);
    CU_ASSERT_STRING_EQUAL(cd_table_note_of(m1, bug), "a:b");
    CU_ASSERT_STRING_EQUAL(cd_table_note_of(m2, bug), "a:b");
    free(copy);
    free(buf);
    free(again);
    cd_table_free(t);
    cd_table_free(u);
    cd_table_free(w);
    cd_table_free(m1);
    cd_table_free(m2);
}

/* A state's note must be a crash state, and one of its own label: a note that would rename
 * another bug (a decoy's text on a real bug's id) or put escapes on a terminal is refused. */
static void test_table_forged_notes(void)
{
    const char *real = "asan:heap-buffer-overflow READ\nparse\nmain";
    const char *bad[] = {"asan:heap-buffer-overflow READ\ndecoy\nmain", NULL};
    char esc[64];
    snprintf(esc, sizeof esc, "asan:x\x1b]0;owned\x07");
    bad[1] = esc;
    for (size_t k = 0; k < 2; k++) {
        struct cd_table *t = NULL, *u = NULL;
        struct cd_error err;
        uint32_t bug = cd_labels_bug(k == 0 ? real : esc);
        CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
        offer(t, "abc", (uint32_t[]){8, bug}, 2, NULL);
        CU_ASSERT_EQUAL(cd_table_note(t, bug, bad[k], &err), CD_OK);
        struct cd_table_meta meta = {"", "x", 1, 1, 1, false, 0, 0, 0}, back;
        uint8_t *buf = NULL;
        size_t len = 0;
        CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &buf, &len, &err), CD_OK);
        CU_ASSERT_EQUAL(cd_table_load(&u, &back, buf, len, 0, &err), CD_FAILED);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not the crash state of its label"));
        free(buf);
        cd_table_free(t);
        cd_table_free(u);
    }
}

/* Two shards whose notes give one bug label to two crash states (found colliding by search)
 * merge into two bugs, in either order and to the same bytes: the least state keeps the label,
 * the other takes its next probe with its own example and note. */
static void test_table_merge_bug_collision(void)
{
    const char *a = "asan:heap-buffer-overflow READ\nf24", *b = "asan:heap-buffer-overflow READ\nf6202";
    uint32_t bug = cd_labels_bug(a), moved = cd_labels_bug_probe(b, 1);
    CU_ASSERT_EQUAL_FATAL(bug, cd_labels_bug(b));
    struct cd_table *ta = NULL, *tb = NULL, *m[2] = {NULL, NULL};
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&ta, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&tb, &err), CD_OK);
    offer(ta, "crash-a", (uint32_t[]){8, bug}, 2, NULL);
    offer(tb, "crash-bb", (uint32_t[]){9, bug}, 2, NULL);
    CU_ASSERT_EQUAL(cd_table_note(ta, bug, a, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_table_note(tb, bug, b, &err), CD_OK);
    const struct cd_table *ab[] = {ta, tb}, *ba[] = {tb, ta};
    CU_ASSERT_EQUAL_FATAL(cd_table_merge(&m[0], ab, 2, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_merge(&m[1], ba, 2, &err), CD_OK);
    uint8_t *buf[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    struct cd_table_meta meta = {"", "x", 1, 1, 1, false, 0, 0, 0};
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_STRING_EQUAL(cd_table_note_of(m[k], bug), a);
        CU_ASSERT_STRING_EQUAL(cd_table_note_of(m[k], moved) ? cd_table_note_of(m[k], moved) : "", b);
        const struct cd_table_label *la = cd_table_find(m[k], bug), *lb = cd_table_find(m[k], moved);
        CU_ASSERT_FATAL(la && lb);
        CU_ASSERT(la->best->len == 7 && memcmp(la->best->data, "crash-a", 7) == 0);
        CU_ASSERT(lb->best->len == 8 && memcmp(lb->best->data, "crash-bb", 8) == 0);
        CU_ASSERT(cd_labelset_has(&lb->best->labels, moved) && !cd_labelset_has(&lb->best->labels, bug));
        CU_ASSERT_EQUAL(cd_table_save(m[k], &meta, &buf[k], &len[k], &err), CD_OK);
    }
    CU_ASSERT(len[0] == len[1] && buf[0] && buf[1] && memcmp(buf[0], buf[1], len[0]) == 0);
    for (int k = 0; k < 2; k++) {
        free(buf[k]);
        cd_table_free(m[k]);
    }
    cd_table_free(ta);
    cd_table_free(tb);
}

/* Every damaged copy is refused with a message, never read past its end or half loaded. */
static void test_table_state_refuses_damage(void)
{
    struct cd_table *t = state_sample(), *u = NULL;
    struct cd_error err;
    struct cd_table_meta meta = {"", "x", 1, 1, 1, false, 0, 0, 0}, back;
    uint8_t *buf = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &buf, &len, &err), CD_OK);
    uint8_t *copy = malloc(len);
    CU_ASSERT_FATAL(copy != NULL);
    size_t cuts[] = {0, 7, 8, 20, len / 2, len - 17, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        memcpy(copy, buf, cuts[i]);
        CU_ASSERT_EQUAL(cd_table_load(&u, &back, copy, cuts[i], 0, &err), CD_FAILED);
        CU_ASSERT_PTR_NULL(u);
    }
    for (size_t at = 0; at < len; at += 7) {
        memcpy(copy, buf, len);
        copy[at] ^= 0x20;
        CU_ASSERT_EQUAL(cd_table_load(&u, &back, copy, len, 0, &err), CD_FAILED);
        CU_ASSERT(strstr(err.msg, at < 8 ? "not a corpus-distill state" : "state") != NULL);
    }
    memcpy(copy, buf, len);
    copy[8] = 9; /* a later format version */
    CU_ASSERT_EQUAL(cd_table_load(&u, &back, copy, len, 0, &err), CD_FAILED);
    CU_ASSERT(strstr(err.msg, "version 9") != NULL);
    CU_ASSERT_EQUAL(cd_table_load(&u, &back, (const uint8_t *)"{\"seeds\": []}", 14, 0, &err),
                    CD_FAILED);
    CU_ASSERT_STRING_EQUAL(err.msg, "not a corpus-distill state file");
    /* an unstable edge that still has labels is damage */
    memcpy(copy, buf, len);
    size_t at = len - 16 - 4 - 4; /* the last unstable edge, 5, becomes edge 2, which has labels */
    CU_ASSERT_EQUAL_FATAL(copy[at], 5);
    copy[at] = 2;
    resum(copy, len);
    CU_ASSERT_EQUAL(cd_table_load(&u, &back, copy, len, 0, &err), CD_FAILED);
    CU_ASSERT_STRING_EQUAL(err.msg, "damaged state file: a label of an unstable edge");
    /* a target SHA-1 that is no hex (a terminal escape in it) */
    struct cd_table_meta evil = {"\x1b]0;pwned\x07", "x", 1, 1, 1, false, 0, 0, 0};
    uint8_t *ebuf = NULL;
    size_t elen = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &evil, &ebuf, &elen, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_table_load(&u, &back, ebuf, elen, 0, &err), CD_FAILED);
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\x1b'));
    free(ebuf);
    /* labels no run gives: map slot 0, an outcome of no known kind, a timeout with a payload */
    uint32_t fakes[] = {0, CD_LABEL_OUTCOME | 0x0f000001u, CD_LABEL_OUTCOME | 1u << 24 | 5u};
    for (size_t i = 0; i < sizeof fakes / sizeof *fakes; i++) {
        struct cd_table *f = NULL;
        uint8_t *fbuf = NULL;
        size_t flen = 0;
        CU_ASSERT_EQUAL_FATAL(cd_table_new(&f, &err), CD_OK);
        offer(f, "fake", &fakes[i], 1, NULL);
        CU_ASSERT_EQUAL_FATAL(cd_table_save(f, &meta, &fbuf, &flen, &err), CD_OK);
        CU_ASSERT_EQUAL(cd_table_load(&u, &back, fbuf, flen, 0, &err), CD_FAILED);
        CU_ASSERT_STRING_EQUAL(err.msg, "damaged state file: a label no run gives");
        free(fbuf);
        cd_table_free(f);
    }
    /* an example showing a label no record holds: the seed cover would look it up */
    struct cd_table *q = NULL;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&q, &err), CD_OK);
    const struct cd_table_example *pin = NULL;
    struct cd_labelset s8 = set_of((uint32_t[]){8}, 1);
    CU_ASSERT_EQUAL(cd_table_offer(q, (const uint8_t *)"pin", 3, &s8, "p", NULL, &pin, &err),
                    CD_OK);
    cd_table_pin(q, pin);
    offer(q, "a", (uint32_t[]){8}, 1, NULL);
    uint8_t *qb = NULL;
    size_t ql = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(q, &meta, &qb, &ql, &err), CD_OK);
    /* "pin", its origin "p", one label: 8 */
    const uint8_t at_pin[] = {'p', 'i', 'n', 1, 0, 0, 0, 'p', 1, 0, 0, 0, 8, 0, 0, 0};
    uint8_t *hit = memmem(qb, ql, at_pin, sizeof at_pin);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hit);
    hit[sizeof at_pin - 4] = 9;
    resum(qb, ql);
    CU_ASSERT_EQUAL(cd_table_load(&u, &back, qb, ql, 0, &err), CD_FAILED);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "damaged state file: an example showing a label the table lacks");
    free(qb);
    cd_table_free(q);
    free(copy);
    free(buf);
    cd_table_free(t);
}

/* The saved bytes of t (meta fixed), owned. */
static uint8_t *saved(const struct cd_table *t, size_t *len)
{
    struct cd_table_meta meta = {"", "s", 1, 0, 0, false, 0, 0, 0};
    uint8_t *buf = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &buf, len, &err), CD_OK);
    return buf;
}

static struct cd_table *merged(const struct cd_table *const *in, size_t n)
{
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_merge(&t, in, n, &err), CD_OK);
    return t;
}

/* Whether a and b save to the same bytes. */
static bool same_state(const struct cd_table *a, const struct cd_table *b)
{
    size_t la, lb;
    uint8_t *x = saved(a, &la), *y = saved(b, &lb);
    bool same = la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

/* Three shard tables: a shared content in two (finished in one of them), a label that another
 * shard improves (its finished mark must go), a reproducer and a seed for one coverage label (the
 * seed wins though longer), pinned examples, and seen-sets that overlap. */
static void shard_tables(struct cd_table *t[3])
{
    struct cd_error err;
    for (int k = 0; k < 3; k++)
        CU_ASSERT_EQUAL_FATAL(cd_table_new(&t[k], &err), CD_OK);
    uint32_t ab[] = {8, 16}, c[] = {24}, d[] = {32}, crash[] = {40, CD_LABEL_OUTCOME | 3},
             e[] = {40}, f[] = {48};
    offer(t[0], "shared", ab, 2, NULL);
    offer(t[0], "long for 24", c, 1, NULL);
    cd_table_finish(t[0], 24, true);      /* shard 1 improves it: the mark goes */
    offer(t[0], "bang", crash, 2, NULL);
    offer(t[1], "shared", ab, 2, NULL);
    cd_table_finish(t[1], 8, true);       /* the same best in shard 0: the mark stays */
    offer(t[1], "24", c, 1, NULL);
    offer(t[1], "d", d, 1, NULL);
    offer(t[2], "a seed for 40", e, 1, NULL);
    cd_table_finish(t[2], 40, false);
    const struct cd_table_example *pin = NULL;
    struct cd_labelset sf = set_of(f, 1);
    CU_ASSERT_EQUAL(cd_table_offer(t[2], (const uint8_t *)"pinned", 6, &sf, "p", NULL, &pin,
                                   &err), CD_OK);
    cd_table_pin(t[2], pin);
    offer(t[2], "f", f, 1, NULL);         /* "pinned" is best for nothing now */
    for (int i = 0; i < 3000; i++)
        cd_table_seen_add(t[i % 3 == 2 ? 2 : i % 2], cd_hash_bytes(&i, sizeof i));
    for (int i = 0; i < 100; i++)
        cd_table_seen_add(t[2], cd_hash_bytes(&i, sizeof i));
}

/* Associative: (0 1) 2 and 0 (1 2) save the bytes all, the merge of the three, saves. */
static void check_associative(struct cd_table *const t[3], const struct cd_table *all)
{
    const struct cd_table *p01[] = {t[0], t[1]}, *p12[] = {t[1], t[2]};
    struct cd_table *m01 = merged(p01, 2), *m12 = merged(p12, 2);
    const struct cd_table *left[] = {m01, t[2]}, *right[] = {t[0], m12};
    struct cd_table *l = merged(left, 2), *r = merged(right, 2);
    CU_ASSERT(same_state(l, all));
    CU_ASSERT(same_state(r, all));
    struct cd_table *frees[] = {m01, m12, l, r};
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++)
        cd_table_free(frees[i]);
}

static bool best_is(const struct cd_table *t, uint32_t id, const char *s, bool finished)
{
    const struct cd_table_label *l = cd_table_find(t, id);
    return l && l->best->len == strlen(s) && !memcmp(l->best->data, s, l->best->len) &&
           l->finished == finished;
}

/* Labels a first pass shows are the inputs'; those first shown outside one are found, until a
 * later first pass shows them. Saving keeps the mark, and a merge makes a label found only where
 * every table that has it found it. */
static void test_table_found_marks(void)
{
    struct cd_table *t = NULL, *u = NULL, *v = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&v, &err), CD_OK);
    cd_table_count_shown(t, true);
    offer(t, "input", (uint32_t[]){8, 16}, 2, NULL);
    cd_table_count_shown(t, false);
    offer(t, "cut", (uint32_t[]){8, 24, 32}, 3, NULL);
    CU_ASSERT(!cd_table_find(t, 8)->found && !cd_table_find(t, 16)->found);
    CU_ASSERT(cd_table_find(t, 24)->found && cd_table_find(t, 32)->found);
    cd_table_count_shown(t, true); /* tonight's inputs show 32 */
    offer(t, "other input", (uint32_t[]){32}, 1, NULL);
    cd_table_count_shown(t, false);
    CU_ASSERT(cd_table_find(t, 24)->found && !cd_table_find(t, 32)->found);
    struct cd_table_meta meta = {"", "x", 1, 1, 1, false, 0, 0, 0}, back;
    uint8_t *buf = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &buf, &len, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_table_load(&u, &back, buf, len, 0, &err), CD_OK);
    CU_ASSERT(cd_table_find(u, 24)->found && !cd_table_find(u, 32)->found &&
              !cd_table_find(u, 8)->found);
    /* another shard's first pass showed 24 */
    cd_table_count_shown(v, true);
    offer(v, "24's input", (uint32_t[]){24}, 1, NULL);
    const struct cd_table *in[] = {u, v};
    struct cd_table *m = NULL;
    CU_ASSERT_EQUAL_FATAL(cd_table_merge(&m, in, 2, &err), CD_OK);
    CU_ASSERT(!cd_table_find(m, 24)->found && !cd_table_find(m, 8)->found);
    const struct cd_table *alone[] = {u};
    struct cd_table *m1 = NULL;
    CU_ASSERT_EQUAL_FATAL(cd_table_merge(&m1, alone, 1, &err), CD_OK);
    CU_ASSERT(cd_table_find(m1, 24)->found && !cd_table_find(m1, 32)->found);
    free(buf);
    cd_table_meta_release(&back);
    cd_table_free(t);
    cd_table_free(u);
    cd_table_free(v);
    cd_table_free(m);
    cd_table_free(m1);
}

/* Marking edges unstable together leaves the table marking them one by one leaves. */
static void test_table_unstable_set(void)
{
    struct cd_table *a = state_sample(), *b = state_sample();
    uint32_t edges[] = {3, 1, 3, 9};
    size_t one = 0;
    for (size_t i = 0; i < 4; i++)
        one += cd_table_mark_unstable(a, edges[i]);
    CU_ASSERT_EQUAL(cd_table_mark_unstable_set(b, edges, 4), one);
    CU_ASSERT(same_state(a, b));
    cd_table_free(a);
    cd_table_free(b);
}

/* Merging keeps each label's best of all shards and only the finished marks of those bests, and
 * any order and grouping of the shards gives the same bytes. */
static void test_table_merge(void)
{
    struct cd_table *t[3];
    shard_tables(t);
    const struct cd_table *abc[] = {t[0], t[1], t[2]}, *cba[] = {t[2], t[1], t[0]};
    struct cd_table *all = merged(abc, 3), *rev = merged(cba, 3);
    CU_ASSERT(same_state(all, rev));
    CU_ASSERT(best_is(all, 8, "shared", true));
    CU_ASSERT(best_is(all, 16, "shared", false));
    CU_ASSERT(best_is(all, 24, "24", false));
    CU_ASSERT(best_is(all, 32, "d", false));
    CU_ASSERT(best_is(all, 40, "a seed for 40", true));
    CU_ASSERT(best_is(all, CD_LABEL_OUTCOME | 3, "bang", false));
    CU_ASSERT(best_is(all, 48, "f", false));
    CU_ASSERT_EQUAL(cd_table_n_labels(all), 7);
    bool pinned = false;
    for (const struct cd_table_example *e = cd_table_examples(all); e; e = e->next)
        pinned |= e->pinned && e->len == 6 && !memcmp(e->data, "pinned", 6);
    CU_ASSERT(pinned);
    for (int i = 0; i < 3000; i++)
        CU_ASSERT(cd_table_seen_has(all, cd_hash_bytes(&i, sizeof i)));
    check_associative(t, all);
    /* commutative on two, and a merge of one table is that table's content */
    const struct cd_table *p01[] = {t[0], t[1]}, *p10[] = {t[1], t[0]}, *one[] = {all};
    struct cd_table *m01 = merged(p01, 2), *m10 = merged(p10, 2), *again = merged(one, 1);
    CU_ASSERT(same_state(m10, m01));
    CU_ASSERT(same_state(again, all));
    struct cd_table *frees[] = {all, rev, m01, m10, again, t[0], t[1], t[2]};
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++)
        cd_table_free(frees[i]);
}

/* Unstable edges unite in a merge, their labels leave every example whichever shard saw them
 * flicker, and the merge stays commutative and associative. */
static void test_table_merge_unstable(void)
{
    struct cd_table *t[3];
    struct cd_error err;
    for (int k = 0; k < 3; k++)
        CU_ASSERT_EQUAL_FATAL(cd_table_new(&t[k], &err), CD_OK);
    offer(t[0], "ab", (uint32_t[]){8, 16}, 2, NULL);
    offer(t[0], "only 9", (uint32_t[]){9}, 1, NULL);
    offer(t[1], "b", (uint32_t[]){17}, 1, NULL);
    cd_table_mark_unstable(t[1], 1);
    offer(t[2], "cc", (uint32_t[]){16, 24}, 2, NULL);
    cd_table_mark_unstable(t[2], 3);
    const struct cd_table *abc[] = {t[0], t[1], t[2]}, *cba[] = {t[2], t[1], t[0]};
    struct cd_table *all = merged(abc, 3), *rev = merged(cba, 3);
    CU_ASSERT(same_state(all, rev));
    size_t n = 0;
    const uint32_t *edges = cd_table_unstable(all, &n);
    CU_ASSERT(n == 2 && edges[0] == 1 && edges[1] == 3);
    CU_ASSERT_EQUAL(cd_table_n_labels(all), 2);
    CU_ASSERT(best_of_is(all, 16, "ab") && best_of_is(all, 17, "b"));
    CU_ASSERT_EQUAL(cd_table_n_examples(all), 2); /* "only 9" and "cc" are best for nothing */
    CU_ASSERT_EQUAL(cd_table_find(all, 16)->best->labels.n, 1);
    check_associative(t, all);
    struct cd_table *frees[] = {all, rev, t[0], t[1], t[2]};
    for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++)
        cd_table_free(frees[i]);
}

/* The model of test_table_random_offers: a label's best by the table's rule (for a coverage
 * label, an example without an outcome before one with; then shortlex). */
struct model_ex {
    uint8_t data[8];
    size_t len;
    bool outcome;
};

static bool model_better(uint32_t id, const struct model_ex *a, const struct model_ex *b)
{
    if (!cd_labels_is_outcome(id) && a->outcome != b->outcome)
        return !a->outcome;
    return cd_table_shortlex(a->data, a->len, b->data, b->len) < 0;
}

/* Thousands of random offers (ids below and past the table's key array, crashes, ties of length,
 * unstable edges marked on the way, a state round trip halfway): what cd_table_wins predicts and
 * every label's best agree with a plain model. */
static void test_table_random_offers(void)
{
    enum { IDS = 64, OFFERS = 4000 };
    uint32_t pool[IDS];
    for (size_t i = 0; i < IDS; i++) /* coverage ids in and far past the keys, then outcomes */
        pool[i] = i < 40   ? (uint32_t)(8 + i * 3)
                  : i < 56 ? (uint32_t)((1u << 24) + i * 8 + i % 8)
                           : CD_LABEL_OUTCOME | (uint32_t)(0x02000000u + i);
    struct model_ex best[IDS];
    bool has[IDS] = {false}, gone[IDS] = {false};
    struct cd_table *t = NULL;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    size_t mismatches = 0;
    for (int k = 0; k < OFFERS; k++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        struct model_ex x = {.len = 1 + (rng >> 33) % 6, .outcome = (rng >> 40) % 9 == 0};
        for (size_t b = 0; b < x.len; b++)
            x.data[b] = (uint8_t)('a' + (rng >> (8 + 3 * b)) % 3);
        uint32_t ids[IDS];
        size_t n = 0, want = 0, fresh = 0;
        for (size_t i = 0; i < IDS; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            bool outcome_id = cd_labels_is_outcome(pool[i]);
            if (gone[i] || (rng >> 35) % 4 || (outcome_id && !(x.outcome && (rng >> 50) % 2)))
                continue;
            ids[n++] = pool[i];
        }
        x.outcome = n && cd_labels_is_outcome(ids[n - 1]); /* as the table reads a run */
        for (size_t i = 0, j = 0; i < IDS && j < n; i++) {
            if (pool[i] != ids[j])
                continue;
            j++;
            bool cov = !cd_labels_is_outcome(pool[i]);
            if (!has[i] || (cov && model_better(pool[i], &x, &best[i]))) {
                want++;
                fresh += !has[i];
            }
        }
        struct cd_labelset set = set_of(ids, n);
        struct cd_table_wins w = cd_table_wins(t, x.data, x.len, &set, 0);
        mismatches += w.n != want || w.fresh != fresh;
        size_t improved = 0;
        CU_ASSERT_EQUAL_FATAL(cd_table_offer(t, x.data, x.len, &set, "r", &improved, NULL, &err),
                              CD_OK);
        for (size_t i = 0, j = 0; i < IDS && j < n; i++) {
            if (pool[i] != ids[j])
                continue;
            j++;
            if (!has[i] || model_better(pool[i], &x, &best[i]))
                best[i] = x;
            has[i] = true;
        }
        if (k == OFFERS / 3) { /* an edge in the keys and one past them go */
            uint32_t edges[] = {cd_labels_slot(pool[5]), cd_labels_slot(pool[45])};
            CU_ASSERT_NOT_EQUAL(cd_table_mark_unstable_set(t, edges, 2), SIZE_MAX);
            for (size_t i = 0; i < IDS; i++)
                if (!cd_labels_is_outcome(pool[i]) &&
                    (cd_labels_slot(pool[i]) == edges[0] || cd_labels_slot(pool[i]) == edges[1]))
                    gone[i] = true, has[i] = false;
        }
        if (k == OFFERS / 2) {
            struct cd_table_meta meta = {"0123456789abcdef0123456789abcdef01234567", "s", 1, 1, 1,
                                         false, 0, 0, 0},
                                 back;
            uint8_t *buf = NULL;
            size_t len = 0;
            struct cd_table *u = NULL;
            CU_ASSERT_EQUAL_FATAL(cd_table_save(t, &meta, &buf, &len, &err), CD_OK);
            CU_ASSERT_EQUAL_FATAL(cd_table_load(&u, &back, buf, len, 0, &err), CD_OK);
            cd_table_meta_release(&back);
            free(buf);
            cd_table_free(t);
            t = u;
        }
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    for (size_t i = 0; i < IDS; i++) {
        const struct cd_table_label *l = cd_table_find(t, pool[i]);
        CU_ASSERT_EQUAL(l != NULL, has[i]);
        if (l && has[i])
            CU_ASSERT(l->best->len == best[i].len && l->best->outcome == best[i].outcome &&
                      !memcmp(l->best->data, best[i].data, l->best->len));
    }
    cd_table_free(t);
}

/* Several targets: a kept example is credited with what the other targets show (extend), and
 * a target's labels leave whole (drop_targets), its examples going when best for nothing else. */
static void test_table_targets(void)
{
    struct cd_table *t;
    struct cd_error err;
    CU_ASSERT_EQUAL_FATAL(cd_table_new(&t, &err), CD_OK);
    uint32_t a0 = cd_labels_edge(10, 1), b0 = cd_labels_edge(11, 1);
    uint32_t a1 = cd_labels_in_target(a0, 1), c1 = cd_labels_in_target(cd_labels_edge(12, 1), 1);
    uint32_t l1[] = {a0, b0};
    size_t improved;
    const struct cd_table_example *stored;
    struct cd_labelset set = set_of(l1, 2);
    CU_ASSERT_EQUAL(cd_table_offer(t, (const uint8_t *)"abcd", 4, &set, "x", &improved, &stored,
                                   &err), CD_OK);
    uint32_t l2[] = {a1};
    CU_ASSERT_EQUAL(offer(t, "long one", l2, 1, &improved), CD_OK);
    cd_table_finish(t, a0, true);
    CU_ASSERT(stored->finished);
    /* the short example shows a1 and c1 on target 1: it takes a1 and gets c1 */
    uint32_t more[] = {a1, c1};
    set = set_of(more, 2);
    CU_ASSERT_EQUAL(cd_table_extend(t, stored, &set, &improved, &err), CD_OK);
    CU_ASSERT_EQUAL(improved, 2);
    CU_ASSERT_EQUAL(stored->labels.n, 4);
    CU_ASSERT_FALSE(stored->finished); /* reduced for other labels only */
    CU_ASSERT(cd_table_skippable(cd_table_find(t, b0)));   /* which stay finished */
    CU_ASSERT_FALSE(cd_table_skippable(cd_table_find(t, c1)));
    CU_ASSERT_PTR_EQUAL(cd_table_find(t, a1)->best, stored);
    CU_ASSERT_PTR_EQUAL(cd_table_find(t, c1)->best, stored);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 1); /* "long one" was best for nothing left */
    CU_ASSERT_EQUAL(cd_table_extend(t, stored, &set, &improved, &err), CD_OK);
    CU_ASSERT_EQUAL(improved, 0);
    /* target 1 goes: its labels and records, the example stays for target 0 */
    CU_ASSERT_EQUAL(cd_table_drop_targets(t, 1u << 1), 2);
    CU_ASSERT_PTR_NULL(cd_table_find(t, a1));
    CU_ASSERT_PTR_NULL(cd_table_find(t, c1));
    CU_ASSERT_PTR_EQUAL(cd_table_find(t, a0)->best, stored);
    CU_ASSERT_EQUAL(stored->labels.n, 2);
    CU_ASSERT_EQUAL(cd_table_n_labels(t), 2);
    /* target 0 goes too: nothing is left */
    CU_ASSERT_EQUAL(cd_table_drop_targets(t, 1u), 2);
    CU_ASSERT_EQUAL(cd_table_n_examples(t), 0);
    cd_table_free(t);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_table_shortlex_order", test_table_shortlex_order},
        {"test_table_offer_keeps_best", test_table_offer_keeps_best},
        {"test_table_finished_marks", test_table_finished_marks},
        {"test_table_donors", test_table_donors},
        {"test_table_seeds_before_outcomes", test_table_seeds_before_outcomes},
        {"test_table_many_labels", test_table_many_labels},
        {"test_table_seen_set", test_table_seen_set},
        {"test_table_unstable", test_table_unstable},
        {"test_table_state_round_trip", test_table_state_round_trip},
        {"test_table_snapshot", test_table_snapshot},
        {"test_table_state_refuses_damage", test_table_state_refuses_damage},
        {"test_table_state_version_1", test_table_state_version_1},
        {"test_table_notes", test_table_notes},
        {"test_table_forged_notes", test_table_forged_notes},
        {"test_table_merge_bug_collision", test_table_merge_bug_collision},
        {"test_table_found_marks", test_table_found_marks},
        {"test_table_unstable_set", test_table_unstable_set},
        {"test_table_merge", test_table_merge},
        {"test_table_merge_unstable", test_table_merge_unstable},
        {"test_table_random_offers", test_table_random_offers},
        {"test_table_targets", test_table_targets},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("table", tests);
}
