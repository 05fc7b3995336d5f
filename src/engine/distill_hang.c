/* Hang confirmation. A candidate that runs past the calibrated timeout may only be slow: a
 * reproducer of the timeout label is confirmed before it is kept. The timeout label's own
 * reduction adopts shorter hangs provisionally and confirms only the newest when it ends
 * (distill_settle); a shorter hang met while another label is reduced waits as the pending one. */
#include "distill_internal.h"

#include <stdlib.h>
#include <string.h>

/* Drops w's provisional reproducers. */
void distill_drop_provisional(struct worker *w)
{
    while (w->hang.n_prov)
        free(w->hang.prov[--w->hang.n_prov].data);
}

/* Keeps cand as the newest provisional reproducer of the label w reduces (the oldest is dropped
 * past PROV_KEEP). Returns false when out of memory. Lock not held. */
static bool keep_provisional(struct worker *w, const uint8_t *cand, size_t len)
{
    uint8_t *copy = cd_memdup(cand, len);
    if (!copy)
        return false;
    if (w->hang.n_prov == PROV_KEEP) {
        free(w->hang.prov[0].data);
        memmove(&w->hang.prov[0], &w->hang.prov[1], (PROV_KEEP - 1) * sizeof w->hang.prov[0]);
        w->hang.n_prov--;
    }
    w->hang.prov[w->hang.n_prov].data = copy;
    w->hang.prov[w->hang.n_prov++].len = len;
    return true;
}

/* Keeps cand, the last run on w (the timeout label alone), as the pending hang when it is
 * shorter than both that label's reproducer and the pending hang, and has the label reduced
 * again. Returns false when out of memory. Lock held. */
static bool keep_pending(struct worker *w, const uint8_t *cand, size_t len)
{
    struct cd_distill *d = w->d;
    const struct cd_table_label *l =
        cd_table_find(d->table, w->exec.labels.v[w->exec.labels.n - 1]);
    if (cd_table_shortlex(cand, len, l->best->data, l->best->len) >= 0 ||
        (d->hang.pending &&
         cd_table_shortlex(cand, len, d->hang.pending, d->hang.pending_len) >= 0))
        return true;
    uint8_t *copy = cd_memdup(cand, len);
    char *origin = strdup(w->work.origin);
    if (!copy || !origin) {
        free(copy);
        free(origin);
        return false;
    }
    free(d->hang.pending);
    free(d->hang.pending_origin);
    d->hang.pending = copy;
    d->hang.pending_len = len;
    d->hang.pending_label = l->id;
    d->hang.pending_origin = origin;
    cd_table_unfinish(d->table, l->id);
    return true;
}

/* A candidate that ran slow and was left unconfirmed: counted as a timeout, and kept as a
 * provisional reproducer when adopt (it would be the best of the label being reduced), else as
 * the pending hang when shorter (than the timeout label's reproducer). It is not offered:
 * distill_unconfirmed, it may be merely slow. Returns whether it was adopted. Lock not held. */
bool distill_unconfirmed(struct worker *w, const uint8_t *cand, size_t len, bool adopt,
                        bool shorter)
{
    struct cd_distill *d = w->d;
    bool ok = !adopt || keep_provisional(w, cand, len);
    distill_lock(d);
    d->stats.timeouts++;
    if (!adopt && ++w->hang.timeouts >= TIMEOUT_CAP)
        w->hang.capped = true;
    if (ok && shorter)
        ok = keep_pending(w, cand, len);
    if (!ok) {
        cd_error_oom(&w->err, CD_FAILED, "out of memory keeping a reproducer");
        distill_fail(d, &w->err);
    }
    distill_unlock(d);
    return adopt && ok;
}

/* Confirms w's provisional reproducers, newest first, offering each, until one holds the label
 * being reduced; drops the rest. Skipped when the run is stopping: the label keeps its last
 * confirmed reproducer. Lock not held. */
void distill_settle(struct worker *w)
{
    struct cd_distill *d = w->d;
    while (w->hang.n_prov) {
        distill_lock(d);
        bool go = !distill_should_stop(d);
        distill_unlock(d);
        if (!go)
            break;
        uint8_t *data = w->hang.prov[w->hang.n_prov - 1].data;
        size_t len = w->hang.prov[--w->hang.n_prov].len;
        enum cd_outcome outcome;
        enum cd_status st = distill_execute(w, data, len, false, &outcome);
        distill_lock(d);
        bool held = distill_offer_run(w, st, data, len, outcome);
        distill_unlock(d);
        free(data);
        if (held || st >= CD_FAILED)
            break;
    }
    distill_drop_provisional(w);
}

/* Hands the pending hang of label id, if any, to w as a provisional reproducer and settles it,
 * before id's reduction starts. Lock not held. */
void distill_take_pending(struct worker *w, uint32_t id)
{
    struct cd_distill *d = w->d;
    distill_lock(d);
    bool mine = d->hang.pending && d->hang.pending_label == id;
    if (mine) {
        w->hang.prov[0].data = d->hang.pending;
        w->hang.prov[0].len = d->hang.pending_len;
        w->hang.n_prov = 1;
        free(w->work.origin);
        w->work.origin = d->hang.pending_origin;
        w->work.label = id;
        d->hang.pending = NULL;
        d->hang.pending_origin = NULL;
    }
    distill_unlock(d);
    if (mine)
        distill_settle(w);
}
