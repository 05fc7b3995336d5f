/* Reducing one target: a label's best example under "the candidate becomes this label's best", or
 * (bytes order) a whole example under "keeps every label it is still best for"; the reducer's
 * predicate runs each candidate and offers it, and a best example a reduction first takes is
 * verified (run again) first. */
#include "distill_internal.h"

#include <stdlib.h>
#include <string.h>

/* The examples whose whole reduction changed nothing, by serial (never reused): the engine's own
 * mark, kept out of the table. */
static struct cd_hash serial_key(const struct cd_table_example *e)
{
    return cd_hash_bytes(&e->serial, sizeof e->serial);
}

bool distill_whole_done(const struct cd_distill *d, const struct cd_table_example *e)
{
    return cd_hashset_has(&d->work.whole_done, serial_key(e));
}

/* Out of memory, the mark is lost and the example may be tried whole again: no harm. */
void distill_mark_whole_done(struct cd_distill *d, const struct cd_table_example *e)
{
    (void)cd_hashset_add(&d->work.whole_done, serial_key(e));
}

/* The reduction predicate: cand (strictly better than the label's best) is run unless already
 * seen, and holds when the table then has it as the label's best. */
static bool reduce_pred(void *ctx, const uint8_t *cand, size_t len)
{
    struct worker *w = ctx;
    struct cd_distill *d = w->d;
    struct cd_hash h = distill_seen_key(w, cand, len);
    enum cd_outcome outcome;
    distill_lock(d);
    const struct cd_table_example *best = w->work.whole ? NULL : distill_best_of(d, w->work.label);
    if (w->work.whole ? !distill_holds_whole(w) : !best || best->serial != w->work.serial) {
        w->work.stale = true;
        distill_unlock(d);
        return false;
    }
    if (cd_table_seen_has(d->table, h) || !distill_reserve_exec(d)) {
        distill_unlock(d);
        return false;
    }
    if (++w->work.execs >= w->work.attempt_cap) {
        w->work.yielded = true;
    } else if (!w->work.whole && !d->opts.attempt_execs && w->work.execs % STALL_EXECS == 0) {
        if (w->work.window_len - w->work.cut_len < STALL_BYTES)
            w->work.yielded = w->work.idle = true;
        w->work.window_len = w->work.cut_len;
    }
    w->help.help_execs += w->help.helping;
    if (cd_table_seen_add(d->table, h) < 0) {
        cd_error_oom(&w->err, CD_FAILED, "out of memory in the seen-set");
        distill_fail(d, &w->err);
        distill_unlock(d);
        return false;
    }
    distill_unlock(d);
    enum cd_status st = distill_execute(w, cand, len, true, &outcome);
    if (st == CD_OK && outcome == CD_OUTCOME_SLOW &&
        (w->work.whole || w->work.label != w->exec.labels.v[w->exec.labels.n - 1])) {
        /* A clean run that a busy machine stalled past the tight timeout would be lost: never
           offered unconfirmed, and never run again once seen. Outside the timeout label's own
           reduction (whose end confirms what it adopts), a slow candidate runs once more. */
        distill_lock(d);
        bool go = distill_reserve_exec(d);
        distill_unlock(d);
        if (!go)
            return false;
        st = distill_execute(w, cand, len, true, &outcome);
    }
    if (st == CD_OK && outcome == CD_OUTCOME_SLOW) {
        /* Confirming a hang costs the long limit, a second, so only the first hang of the run
           (its timeout label is new) is confirmed at once; afl-fuzz, too, confirms only new
           hangs. A timed-out run shows the timeout label alone, so any other hang can win
           nothing but that label in its own reduction: there it is adopted provisionally and
           the newest is confirmed when the reduction ends (distill_settle), instead of a second per
           step. The shortest hang met while another label is reduced that is shorter than the
           reproducer is kept aside, and that reduction confirms it first (the seen-set would
           keep it from running it again). Unconfirmed runs are never offered: they may be
           merely slow. */
        /* its only label, or with several targets the one outcome label, last */
        uint32_t timeout = w->exec.labels.v[w->exec.labels.n - 1];
        distill_lock(d);
        struct cd_table_wins wins = cd_table_wins(d->table, cand, len, &w->exec.labels, timeout);
        distill_unlock(d);
        bool own = !w->work.whole && w->work.label == timeout;
        if (!wins.fresh)
            return distill_unconfirmed(w, cand, len, wins.reducing && own, wins.reducing && !own);
        st = distill_execute(w, cand, len, false, &outcome);
    }
    distill_lock(d);
    bool held = distill_offer_run(w, st, cand, len, outcome);
    if (held && len < w->work.cut_len)
        w->work.cut_len = len;
    if (st == CD_OK && cd_outcome_timed_out(outcome) && !held && ++w->hang.timeouts >= TIMEOUT_CAP)
        w->hang.capped = true;
    distill_unlock(d);
    return held;
}

static bool reduce_stop(void *ctx)
{
    struct worker *w = ctx;
    if (w->work.stale || w->hang.capped || w->work.yielded)
        return true;
    distill_lock(w->d);
    const struct cd_table_label *l =
        w->work.whole ? NULL : cd_table_find(w->d->table, w->work.label);
    bool stop =
        distill_should_stop(w->d) || (!w->work.whole && (!l || (w->help.helping && !l->busy)));
    distill_unlock(w->d);
    return stop;
}

/* Runs e, a best example never run again since it was stored, once more, and marks unstable the
 * edges whose labels differ from those stored: a recheck (distill_recheck) runs an input at
 * once, and a target that seeds its hash tables from the clock (Lua) shows the same labels within
 * one second; this run comes later, when a reduction first takes e. Lock held, released while the
 * target runs; false when the run is failing. */
static bool verify(struct worker *w, const struct cd_table_example *e)
{
    struct cd_distill *d = w->d;
    cd_table_checked(d->table, e);
    if (e->outcome || !distill_reserve_exec(d))
        return true;
    uint8_t *copy = cd_memdup(e->data, e->len);
    size_t len = e->len;
    w->exec.again.n = 0;
    bool ok = copy != NULL;
    for (size_t i = 0; ok && i < e->labels.n; i++)
        ok = cd_labelset_push(&w->exec.again, e->labels.v[i]);
    if (!ok) {
        free(copy);
        cd_error_oom(&w->err, CD_FAILED, "out of memory copying a best example");
        distill_fail(d, &w->err);
        return false;
    }
    uint32_t own = w->exec.targets;
    w->exec.targets = distill_targets_of(d, e->labels.v, e->labels.n);
    int ran = distill_run_again(w, copy, len);
    w->exec.targets = own;
    free(copy);
    if (ran <= 0)
        return ran == 0;
    /* The run shows edges marked before it, and both copies those marked while it ran. */
    cd_table_strip_unstable(d->table, &w->exec.labels);
    cd_table_strip_unstable(d->table, &w->exec.again);
    return distill_mark_differences(w, &w->exec.labels, &w->exec.again);
}

/* Whether w's targets are all those whose labels e is best for. Lock held. */
static bool runs_all_of(const struct worker *w, const struct cd_table_example *e)
{
    const struct cd_distill *d = w->d;
    if (w->exec.targets == d->all_targets)
        return true;
    for (size_t i = 0; i < e->labels.n; i++)
        if (!(w->exec.targets >> cd_labels_target(e->labels.v[i]) & 1) &&
            distill_best_of(d, e->labels.v[i]) == e)
            return false;
    return true;
}

/* Reduces label id's best example until the reducer reaches a fixpoint on it, re-reading the
 * best when another worker moved it on. A donor (cd_table_donor) is reduced for the label first,
 * by deletions only. Marks the label finished when nothing was adopted for it, and its example
 * finished when this worker's own runs changed nothing in the table: what other workers change
 * meanwhile says nothing about this example, and counting it would keep examples unfinished
 * whenever more than one worker runs. Lock not held. */
enum cd_status distill_reduce_label(struct worker *w, uint32_t id)
{
    struct cd_distill *d = w->d;
    struct cd_reduce_target target = {reduce_pred, reduce_stop, w, false, false};
    w->exec.targets = distill_targets_of(d, &id, 1);
    distill_take_pending(w, id);
    for (;;) {
        distill_lock(d);
        const struct cd_table_label *dl = cd_table_find(d->table, id);
        if (!dl) { /* it went with an unstable edge */
            distill_unlock(d);
            return CD_OK;
        }
        const struct cd_table_example *e = dl->best, *donor = NULL;
        if (!e->checked && !w->help.helping) {
            bool ok = verify(w, e);
            distill_unlock(d);
            if (!ok)
                return CD_FAILED;
            continue; /* the label, or its best, may have gone meanwhile */
        }
        if (!w->help.helping) {
            donor = cd_table_donor(d->table, dl);
            cd_table_donor_taken(d->table, id, donor);
        }
        if (donor)
            e = donor;
        uint8_t *copy = cd_memdup(e->data, e->len);
        free(w->work.origin);
        w->work.origin = strdup(e->origin);
        if (!copy || !w->work.origin) {
            free(copy);
            cd_error_oom(&w->err, CD_FAILED, "out of memory copying a best example");
            distill_fail(d, &w->err);
            distill_unlock(d);
            return CD_FAILED;
        }
        size_t len = e->len;
        uint64_t start_serial = dl->best->serial, changes = w->exec.changes;
        w->work.serial = start_serial;
        /* A later attempt walks again, through the seen-set, every candidate this one tried:
           by default an attempt may spend two executions per byte, so that the walks over a
           large example stay few. */
        w->work.attempt_cap = d->work.attempt_execs;
        if (!d->opts.attempt_execs && 2 * (uint64_t)len > w->work.attempt_cap)
            w->work.attempt_cap = 2 * (uint64_t)len;
        w->work.stale = w->hang.capped = w->work.yielded = w->work.idle = false;
        w->hang.timeouts = w->work.execs = 0;
        w->work.cut_len = w->work.window_len = len;
        distill_unlock(d);

        uint8_t *out = NULL;
        size_t out_len;
        bool changed = false, stopped = false;
        target.deletions_only = donor != NULL;
        enum cd_status st = cd_reducer_run(donor ? &w->work.donor_red : &w->work.red, &target, copy,
                                           len, &out, &out_len, &changed, &stopped, &w->err);
        if (st < CD_FAILED)
            distill_settle(w);
        else
            distill_drop_provisional(w);
        free(copy);
        free(out);
        distill_lock(d);
        if (st >= CD_FAILED)
            distill_fail(d, &w->err);
        if (d->failed) {
            distill_unlock(d);
            return CD_FAILED;
        }
        const struct cd_table_label *l = cd_table_find(d->table, id);
        if (!l) {
            distill_unlock(d);
            return CD_OK;
        }
        if (donor) {
            /* Next, the label's own best: the new one the donor gave, or the old one unless
               that was reduced already. */
            bool won = l->best->serial != start_serial;
            w->work.donor_tries++;
            w->work.donor_wins += won;
            bool go_on = !distill_should_stop(d) && (won || !cd_table_skippable(l));
            distill_unlock(d);
            if (!go_on)
                return CD_OK;
            continue;
        }
        if (w->help.helping) {
            /* A helper marks nothing: the owner's reduction decides what is finished. */
            bool go_on = w->work.stale && !distill_should_stop(d) && l->busy;
            w->help.helped = id;
            w->help.helped_serial = l->best->serial;
            distill_unlock(d);
            if (!go_on)
                return CD_OK;
            continue;
        }
        if (w->work.stale && !distill_should_stop(d)) {
            distill_unlock(d);
            continue;
        }
        w->work.label_attempts++;
        if (w->work.idle && !w->hang.capped) {
            w->work.idle_attempts++;
            cd_table_idle(d->table, id);
        }
        bool done = (st == CD_OK && !stopped) || (w->hang.capped && !distill_should_stop(d));
        d->work.capped_labels += w->hang.capped;
        if (done && !changed && l->best->serial == start_serial &&
            !(d->hang.pending && d->hang.pending_label == id)) {
            /* The example is finished when the candidates ran on every target it is best for. */
            cd_table_finish(d->table, id, w->exec.changes == changes && runs_all_of(w, l->best));
        }
        distill_unlock(d);
        return CD_OK;
    }
}

/* Reduces example e (chosen under the lock, which is held on entry and on return) whole: every
 * candidate must keep every label it is still best for. Nothing is marked finished: label
 * reductions decide that. The example it ends on is marked done when the reducer reached a
 * fixpoint, or when a whole attempt used its executions and changed nothing: the largest
 * example is chosen again after each attempt, so one that resists (a label of most of its
 * bytes) took every later attempt. In one Lua run in four at 10 executions per input file, a
 * 20,605-byte example took 33 attempts in a row, the last 3,300 executions of the budget. Moving
 * on (its labels are still reduced one by one later), at -j 1: Lua at 10 a file, random seeds 1
 * to 6, kept 4.23 to 4.46 MB against 4.25 to 4.70 MB; libxml2 at 100 a file 190,864 B against
 * 223,832 B, libyaml 638,528 B against 686,085 B. */
void distill_reduce_whole(struct worker *w, const struct cd_table_example *e)
{
    struct cd_distill *d = w->d;
    struct cd_reduce_target target = {reduce_pred, reduce_stop, w, false, true};
    w->work.whole_labels.n = 0;
    bool ok = true;
    for (size_t i = 0; i < e->labels.n && ok; i++)
        if (cd_table_find(d->table, e->labels.v[i])->best == e)
            ok = cd_labelset_push(&w->work.whole_labels, e->labels.v[i]);
    uint8_t *copy = cd_memdup(e->data, e->len);
    free(w->work.origin);
    w->work.origin = strdup(e->origin);
    if (!ok || !copy || !w->work.origin) {
        free(copy);
        cd_error_oom(&w->err, CD_FAILED, "out of memory copying a best example");
        distill_fail(d, &w->err);
        return;
    }
    size_t len = e->len;
    w->work.whole = true;
    w->exec.targets = distill_targets_of(d, w->work.whole_labels.v, w->work.whole_labels.n);
    w->work.serial = e->serial;
    /* Short attempts: the largest example is chosen afresh after each, so that examples that
       new labels found while it shrank (as large as it was then) come next once it is smaller. */
    w->work.attempt_cap = d->opts.attempt_execs ? d->work.attempt_execs : WHOLE_EXECS;
    w->work.stale = w->hang.capped = w->work.yielded = false;
    w->hang.timeouts = w->work.execs = 0;
    d->work.in_flight++;
    distill_unlock(d);
    uint8_t *out = NULL;
    size_t out_len;
    bool changed, stopped;
    enum cd_status st = cd_reducer_run(&w->work.red, &target, copy, len, &out, &out_len, &changed,
                                       &stopped, &w->err);
    free(copy);
    free(out);
    distill_lock(d);
    if (st >= CD_FAILED)
        distill_fail(d, &w->err);
    else if ((!stopped || (w->work.yielded && !changed)) && !w->work.stale &&
             distill_holds_whole(w))
        for (size_t i = 0; i < w->work.whole_labels.n; i++) {
            const struct cd_table_example *x = distill_best_of(d, w->work.whole_labels.v[i]);
            if (x && x->serial == w->work.serial) {
                distill_mark_whole_done(d, x);
                break;
            }
        }
    w->work.whole = false;
    d->work.in_flight--;
    pthread_cond_broadcast(&d->cv);
    distill_progress(d, false);
}
