/* The table's state file: the whole table (best examples, finished marks, label order, the
 * seen-set, the change counter) and what made it, as bytes that load back into the same table, so
 * that a later run starts where an earlier one ended or was killed. Engine scratch (busy marks,
 * whole-reduction marks, shown counts) is not kept. Pinned examples are (the select-only seeds,
 * kept while best for no label): the seed cover of a warm run that changes nothing is then the
 * one its predecessor wrote.
 *
 * Format, version 5. Integers little-endian; "str" is a u32 byte count and the bytes, no NUL.
 *
 *   magic "CDSTATE\0" (8 bytes), u32 version (5), u32 0
 *   str target_sha1, str settings, u64 runs, u64 execs, u64 wall_ms, u8 complete (0 or 1)
 *   u64 base_run, u64 base_select_only, u64 base_cmin: the baseline (versions 1 to 4 lack this
 *       line: none)
 *   u64 changes
 *   u64 examples, then each: u64 len, len bytes, str origin, u32 labels, that many u32 label ids
 *       in ascending order, u8 flags (1: finished, 2: pinned, 4: checked)
 *   u64 labels, then each in first-seen order: u32 id, u64 best (an example's index), u8 flags
 *       (1: finished, 2: a donor pending, 4 from version 3: found, no first-pass input showed
 *       it; older versions load every label as an input's), u64 donor tried (its example's
 *       index + 1, or 0)
 *   u64 fingerprints forgotten, u64 fingerprints, that many u64 in ascending order
 *   u32 unstable edges, that many u32 in ascending order (version 1 lacks this line: it loads
 *       as a table with none)
 *   u32 notes, then each in ascending id order: u32 id (a bug label of the table), str text
 *       (1 to 4096 bytes, no NUL) (versions 1 to 3 lack this line: no notes)
 *   16 bytes: XXH3-128 of every byte before them (low half first)
 *
 * Loading checks the checksum before anything else, then every count against the bytes left and
 * every reference against what it names: a damaged file is refused with one line, never read
 * past its end. */
#include "common/cd_hash.h"
#include "table_internal.h"

#include <stdlib.h>
#include <string.h>

#define STATE_MAGIC "CDSTATE"   /* and its NUL: 8 bytes */
#define STATE_VERSION 5u
#define SUM_LEN 16

enum { EX_FINISHED = 1, EX_PINNED = 2, EX_CHECKED = 4 };
enum { LB_FINISHED = 1, LB_DONOR_PENDING = 2, LB_FOUND = 4 };

/* A growing output buffer; ok turns false at the first allocation failure. */
struct out {
    uint8_t *p;
    size_t n, cap;
    bool ok;
};

static void put(struct out *o, const void *v, size_t len)
{
    if (!o->ok)
        return;
    if (o->cap - o->n < len) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap - o->n < len)
            cap *= 2;
        uint8_t *p = realloc(o->p, cap);
        if (!p) {
            o->ok = false;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    if (len)
        memcpy(o->p + o->n, v, len);
    o->n += len;
}

static void put_u64(struct out *o, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(o, b, 8);
}

static void put_u32(struct out *o, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(o, b, 4);
}

static void put_u8(struct out *o, uint8_t v)
{
    put(o, &v, 1);
}

static void put_str(struct out *o, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u32(o, (uint32_t)n);
    put(o, s, n);
}

/* The index among the saved examples (the live ones) of the one with this serial; serials ascend
 * along the live list. n when none. */
static size_t index_of(const uint64_t *serials, size_t n, uint64_t serial)
{
    size_t i = cd_lower_bound_u64(serials, n, sizeof *serials, 0, serial);
    return i < n && serials[i] == serial ? i : n;
}

static void put_examples(struct out *o, const struct cd_table *t, uint64_t *serials, size_t *n)
{
    *n = 0;
    for (const struct cd_table_example *e = t->head; e; e = e->next)
        serials[(*n)++] = e->serial;
    put_u64(o, *n);
    for (const struct cd_table_example *e = t->head; e; e = e->next) {
        put_u64(o, e->len);
        put(o, e->data, e->len);
        put_str(o, e->origin);
        put_u32(o, (uint32_t)e->labels.n);
        for (size_t i = 0; i < e->labels.n; i++)
            put_u32(o, e->labels.v[i]);
        put_u8(o, (uint8_t)((e->finished ? EX_FINISHED : 0) | (e->pinned ? EX_PINNED : 0) |
                            (e->checked ? EX_CHECKED : 0)));
    }
}

static void put_labels(struct out *o, const struct cd_table *t, const uint64_t *serials, size_t n)
{
    put_u64(o, t->n_labels);
    for (size_t i = 0; i < t->n_labels; i++) {
        const struct cd_table_label *l = &t->labels[i];
        size_t tried = l->donor_tried ? index_of(serials, n, l->donor_tried) : n;
        put_u32(o, l->id);
        put_u64(o, index_of(serials, n, l->best->serial));
        put_u8(o, (uint8_t)((l->finished ? LB_FINISHED : 0) |
                            (l->donor_pending ? LB_DONOR_PENDING : 0) |
                            (l->found ? LB_FOUND : 0)));
        put_u64(o, tried < n ? tried + 1 : 0);
    }
}

static void put_unstable(struct out *o, const struct cd_table *t)
{
    put_u32(o, (uint32_t)t->unstable.n);
    for (size_t i = 0; i < t->unstable.n; i++)
        put_u32(o, t->unstable.v[i]);
}

static void put_notes(struct out *o, const struct cd_table *t)
{
    put_u32(o, (uint32_t)t->n_notes);
    for (size_t i = 0; i < t->n_notes; i++) {
        put_u32(o, t->notes[i].id);
        put_str(o, t->notes[i].text);
    }
}

/* What a state file holds of a table, taken in one pass of copies (cd_table_snapshot): the
 * changes, examples and labels already in the file's form, the seen-set's fingerprints as they
 * lie in its slots (sorted later, outside the run's lock), the unstable edges and notes. */
struct cd_table_snapshot {
    struct out body, tail;
    uint64_t *fps;
    size_t n_fps;
    uint64_t forgotten;
};

struct cd_table_snapshot *cd_table_snapshot(const struct cd_table *t)
{
    struct cd_table_snapshot *s = calloc(1, sizeof *s);
    uint64_t *serials = malloc((t->n_examples ? t->n_examples : 1) * sizeof *serials);
    if (s)
        s->fps = malloc((t->seen.count ? t->seen.count : 1) * sizeof *s->fps);
    if (!s || !serials || !s->fps) {
        free(serials);
        cd_table_snapshot_free(s);
        return NULL;
    }
    s->body.ok = s->tail.ok = true;
    /* the body's size, so that it is built in one allocation, never copied as it grows */
    size_t size = 8 + 8 + 8 + t->n_labels * (4 + 8 + 1 + 8);
    for (const struct cd_table_example *e = t->head; e; e = e->next)
        size += 8 + e->len + 4 + (e->origin ? strlen(e->origin) : 0) + 4 + 4 * e->labels.n + 1;
    s->body.p = malloc(size);
    s->body.cap = s->body.p ? size : 0;
    size_t n = 0;
    put_u64(&s->body, t->changes);
    put_examples(&s->body, t, serials, &n);
    put_labels(&s->body, t, serials, n);
    free(serials);
    s->n_fps = cd_hashset_fingerprints_unsorted(&t->seen, s->fps);
    s->forgotten = t->seen.forgotten;
    put_unstable(&s->tail, t);
    put_notes(&s->tail, t);
    if (!s->body.ok || !s->tail.ok) {
        cd_table_snapshot_free(s);
        return NULL;
    }
    return s;
}

void cd_table_snapshot_free(struct cd_table_snapshot *s)
{
    if (!s)
        return;
    free(s->body.p);
    free(s->tail.p);
    free(s->fps);
    free(s);
}

enum cd_status cd_table_snapshot_save(struct cd_table_snapshot *s, const struct cd_table_meta *meta,
                                      uint8_t **buf, size_t *len, struct cd_error *err)
{
    struct out o = {NULL, 0, 0, true};
    *buf = NULL;
    *len = 0;
    put(&o, STATE_MAGIC, 8);
    put_u32(&o, STATE_VERSION);
    put_u32(&o, 0);
    put_str(&o, meta->target_sha1);
    put_str(&o, meta->settings);
    put_u64(&o, meta->runs);
    put_u64(&o, meta->execs);
    put_u64(&o, meta->wall_ms);
    put_u8(&o, meta->complete);
    put_u64(&o, meta->base_run);
    put_u64(&o, meta->base_select_only);
    put_u64(&o, meta->base_cmin);
    put(&o, s->body.p, s->body.n);
    cd_fingerprints_sort(s->fps, s->n_fps);
    put_u64(&o, s->forgotten);
    put_u64(&o, s->n_fps);
    for (size_t i = 0; i < s->n_fps; i++)
        put_u64(&o, s->fps[i]);
    put(&o, s->tail.p, s->tail.n);
    if (o.ok) {
        struct cd_hash h = cd_hash_bytes(o.p, o.n);
        put_u64(&o, h.lo);
        put_u64(&o, h.hi);
    }
    if (!o.ok) {
        free(o.p);
        return cd_error_oom(err, CD_FAILED, "out of memory saving the state");
    }
    *buf = o.p;
    *len = o.n;
    return CD_OK;
}

enum cd_status cd_table_save(const struct cd_table *t, const struct cd_table_meta *meta,
                             uint8_t **buf, size_t *len, struct cd_error *err)
{
    struct cd_table_snapshot *s = cd_table_snapshot(t);
    *buf = NULL;
    *len = 0;
    if (!s)
        return cd_error_oom(err, CD_FAILED, "out of memory saving the state");
    enum cd_status st = cd_table_snapshot_save(s, meta, buf, len, err);
    cd_table_snapshot_free(s);
    return st;
}

/* A reader over the loaded bytes; bad turns true at the first read past the end, and every read
 * after that returns zeros. */
struct in {
    const uint8_t *p;
    size_t n, at;
    bool bad;
};

static const uint8_t *take(struct in *r, size_t len)
{
    if (r->bad || r->n - r->at < len) {
        r->bad = true;
        return NULL;
    }
    r->at += len;
    return r->p + r->at - len;
}

static uint64_t get_u64(struct in *r)
{
    const uint8_t *b = take(r, 8);
    uint64_t v = 0;
    for (int i = 0; b && i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static uint32_t get_u32(struct in *r)
{
    const uint8_t *b = take(r, 4);
    uint32_t v = 0;
    for (int i = 0; b && i < 4; i++)
        v |= (uint32_t)b[i] << (8 * i);
    return v;
}

static uint8_t get_u8(struct in *r)
{
    const uint8_t *b = take(r, 1);
    return b ? *b : 0;
}

/* Returns an owned NUL-terminated copy of a str, or NULL (bad set, or out of memory: *oom). */
static char *get_str(struct in *r, bool *oom)
{
    uint32_t n = get_u32(r);
    const uint8_t *b = take(r, n);
    if (!b)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) {
        *oom = true;
        return NULL;
    }
    memcpy(s, b, n);
    s[n] = '\0';
    return s;
}

/* Whether count records of at least each bytes can still be in r: a damaged count is refused
 * before it sizes an allocation. */
static bool fits(struct in *r, uint64_t count, size_t each)
{
    if (count > (r->n - r->at) / each)
        r->bad = true;
    return !r->bad;
}

/* Reads the examples into t (linked in order) and an array of them by index; a message into why
 * and false when damaged or out of memory. */
static bool get_examples(struct in *r, struct cd_table *t, struct cd_table_example ***by_index,
                         size_t *n_out, const char **why)
{
    uint64_t n = get_u64(r);
    *n_out = 0;
    if (!fits(r, n, 8 + 4 + 4 + 1))
        return *why = "example count past the end", false;
    *by_index = malloc((n ? n : 1) * sizeof **by_index);
    if (!*by_index)
        return *why = "out of memory", false;
    struct cd_labelset set = {NULL, 0, 0};
    bool ok = false;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t len = get_u64(r);
        const uint8_t *data = fits(r, len, 1) ? take(r, (size_t)len) : NULL;
        bool oom = false;
        char *origin = get_str(r, &oom);
        uint32_t nl = get_u32(r);
        set.n = 0;
        if (r->bad || oom || !fits(r, nl, 4)) {
            free(origin);
            *why = oom ? "out of memory" : "an example past the end";
            goto out;
        }
        for (uint32_t k = 0; k < nl; k++) {
            uint32_t id = get_u32(r);
            if (set.n && id <= set.v[set.n - 1]) {
                free(origin);
                *why = "an example's labels out of order";
                goto out;
            }
            if (!cd_labels_valid(id)) {
                free(origin);
                *why = "a label no run gives";
                goto out;
            }
            if (!cd_labelset_push(&set, id)) {
                free(origin);
                *why = "out of memory";
                goto out;
            }
        }
        uint8_t flags = get_u8(r);
        bool known = !(flags & ~(EX_FINISHED | EX_PINNED | EX_CHECKED));
        struct cd_table_example *e = r->bad || !known
                                         ? NULL
                                         : table_example_new(t, data, (size_t)len, &set, origin);
        free(origin);
        if (!e) {
            *why = r->bad ? "an example past the end" : !known ? "unknown flags" : "out of memory";
            goto out;
        }
        e->finished = flags & EX_FINISHED;
        e->pinned = flags & EX_PINNED;
        e->checked = flags & EX_CHECKED;
        table_example_link(t, e);
        (*by_index)[(*n_out)++] = e;
    }
    ok = true;
out:
    cd_labelset_release(&set);
    return ok;
}

/* Reads the label records into t; by_index names the examples. */
static bool get_labels(struct in *r, struct cd_table *t, struct cd_table_example **by_index,
                       size_t n_ex, uint32_t version, const char **why)
{
    uint64_t n = get_u64(r);
    if (!fits(r, n, 4 + 8 + 1 + 8) || n >= UINT32_MAX)
        return *why = "label count past the end", false;
    if (!table_reserve_labels(t, (size_t)n))
        return *why = "out of memory", false;
    uint8_t known = LB_FINISHED | LB_DONOR_PENDING | (version >= 3 ? LB_FOUND : 0);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t id = get_u32(r);
        uint64_t best = get_u64(r);
        uint8_t flags = get_u8(r);
        uint64_t tried = get_u64(r);
        if (r->bad)
            return *why = "a label past the end", false;
        if (table_lookup(t, id))
            return *why = "a label listed twice", false;
        if (best >= n_ex || tried > n_ex || flags & ~known ||
            !cd_labelset_has(&by_index[best]->labels, id))
            return *why = "a label whose best example does not show it", false;
        if (!table_reserve_keys(t, id))
            return *why = "out of memory", false;
        struct cd_table_label *l = table_label_add(t, id);
        table_set_best(t, l, by_index[best]);
        l->best->refs++;
        l->finished = flags & LB_FINISHED;
        l->donor_pending = flags & LB_DONOR_PENDING;
        l->found = flags & LB_FOUND;
        l->donor_tried = tried ? by_index[tried - 1]->serial : 0;
    }
    for (size_t i = 0; i < n_ex; i++) {
        if (!by_index[i]->refs && !by_index[i]->pinned)
            return *why = "an example that is best for no label and not pinned", false;
        /* the seed cover looks every label of an example up */
        for (size_t k = 0; k < by_index[i]->labels.n; k++)
            if (!table_lookup(t, by_index[i]->labels.v[k]))
                return *why = "an example showing a label the table lacks", false;
    }
    return true;
}

static bool get_seen(struct in *r, struct cd_table *t, const char **why)
{
    uint64_t forgotten = get_u64(r), n = get_u64(r), prev = 0;
    if (!fits(r, n, 8))
        return *why = "seen-set past the end", false;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t fp = get_u64(r);
        if (fp <= prev)
            return *why = "seen-set out of order", false;
        prev = fp;
        if (cd_hashset_add_fingerprint(&t->seen, fp) < 0)
            return *why = "out of memory", false;
    }
    t->seen.forgotten += forgotten;
    return true;
}

/* Reads the unstable edges into t. Labels of them are damage: marking an edge removes them. */
static bool get_unstable(struct in *r, struct cd_table *t, const char **why)
{
    uint32_t n = get_u32(r);
    if (!fits(r, n, 4))
        return *why = "unstable edges past the end", false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t edge = get_u32(r);
        if (i && edge <= t->unstable.v[t->unstable.n - 1])
            return *why = "unstable edges out of order", false;
        if (edge >= CD_LABEL_EDGE_MAX)
            return *why = "an unstable edge past the largest map", false;
        if (!table_add_unstable(t, edge))
            return *why = "out of memory", false;
        for (uint32_t c = 0; c < 8; c++)
            if (table_lookup(t, edge << 3 | c))
                return *why = "a label of an unstable edge", false;
    }
    return true;
}

/* Reads the label notes into t: bug labels of the table, each once, in ascending order. */
static bool get_notes(struct in *r, struct cd_table *t, const char **why)
{
    uint32_t n = get_u32(r);
    if (!fits(r, n, 4 + 4 + 1))
        return *why = "notes past the end", false;
    uint32_t prev = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = get_u32(r), len = get_u32(r);
        const uint8_t *b = take(r, len);
        if (!b || !len || len > CD_TABLE_NOTE_MAX || memchr(b, 0, len) || (i && id <= prev) ||
            !cd_labels_is_bug(id) || !table_lookup(t, id))
            return *why = r->bad ? "notes past the end" : "a damaged note", false;
        char *text = strndup((const char *)b, len);
        if (!text)
            return *why = "out of memory", false;
        /* A note names its bug: only a crash state, and only of its own label, so that a forged
           state can neither print what it likes nor rename another bug. */
        if (!cd_labels_crash_state_valid(text) || !cd_labels_bug_is_of(id, text)) {
            free(text);
            return *why = "a note that is not the crash state of its label", false;
        }
        prev = id;
        struct cd_error err;
        enum cd_status st = cd_table_note(t, id, text, &err);
        free(text);
        if (st != CD_OK)
            return *why = "out of memory", false;
    }
    return true;
}

bool cd_table_state_magic(const uint8_t *head, size_t len)
{
    return len >= 8 && memcmp(head, STATE_MAGIC, 8) == 0;
}

/* Reads the header into meta (strings owned); a message into why and false when it is not ours. */
static bool get_header(struct in *r, struct cd_table_meta *meta, const char **why,
                       uint32_t *version)
{
    const uint8_t *magic = take(r, 8);
    if (!magic || memcmp(magic, STATE_MAGIC, 8) != 0)
        return *why = "not a corpus-distill state file", false;
    *version = get_u32(r);
    if (*version < 1 || *version > STATE_VERSION)
        return *why = "version", false;
    (void)get_u32(r);
    bool oom = false;
    char *sha = get_str(r, &oom);
    meta->settings = get_str(r, &oom);
    /* 40 hex digits, or "" when unknown: nothing else reaches a message */
    if (sha && (sha[0] == '\0' || cd_hash_is_sha1_hex(sha)))
        strcpy(meta->target_sha1, sha);
    else if (sha)
        r->bad = true;
    free(sha);
    meta->runs = get_u64(r);
    meta->execs = get_u64(r);
    meta->wall_ms = get_u64(r);
    meta->complete = get_u8(r) != 0;
    meta->base_run = meta->base_select_only = meta->base_cmin = 0;
    if (*version >= 5) {
        meta->base_run = get_u64(r);
        meta->base_select_only = get_u64(r);
        meta->base_cmin = get_u64(r);
        if (meta->base_run > meta->runs) /* a baseline of a run the state has not had */
            meta->base_run = meta->base_select_only = meta->base_cmin = 0;
    }
    if (oom)
        return *why = "out of memory", false;
    return r->bad ? (*why = "header past the end", false) : true;
}

bool cd_table_targets_within(const struct cd_table *t, unsigned n)
{
    for (size_t i = 0; i < cd_table_n_labels(t); i++)
        if (cd_labels_target(cd_table_label_at(t, i)->id) >= n)
            return false;
    for (const struct cd_table_example *e = cd_table_examples(t); e; e = e->next)
        for (size_t k = 0; k < e->labels.n; k++)
            if (cd_labels_target(e->labels.v[k]) >= n)
                return false;
    return true;
}

enum cd_status cd_table_load(struct cd_table **out, struct cd_table_meta *meta, const uint8_t *buf,
                             size_t len, size_t seen_mem, struct cd_error *err)
{
    struct in r = {buf, len >= SUM_LEN ? len - SUM_LEN : 0, 0, false};
    struct cd_table *t = NULL;
    struct cd_table_example **by_index = NULL;
    size_t n_ex = 0;
    const char *why = NULL;
    uint32_t version = 0;
    *out = NULL;
    memset(meta, 0, sizeof *meta);
    if (len < 8 || memcmp(buf, STATE_MAGIC, 8) != 0)
        return cd_error_set(err, CD_FAILED, "not a corpus-distill state file");
    if (!get_header(&r, meta, &why, &version)) {
        if (why && strcmp(why, "version") == 0)
            cd_error_set(err, CD_FAILED,
                         "state format version %u; this build reads versions 1 to %u", version,
                         STATE_VERSION);
        else
            cd_error_set(err, CD_FAILED, "damaged state file: %s", why);
        goto fail;
    }
    struct cd_hash h = cd_hash_bytes(buf, r.n);
    uint8_t sum[SUM_LEN];
    for (int i = 0; i < 8; i++) {
        sum[i] = (uint8_t)(h.lo >> (8 * i));
        sum[8 + i] = (uint8_t)(h.hi >> (8 * i));
    }
    if (len < SUM_LEN || memcmp(buf + r.n, sum, SUM_LEN) != 0) {
        cd_error_set(err, CD_FAILED, "damaged state file: checksum mismatch (cut short or "
                                     "changed)");
        goto fail;
    }
    if (cd_table_new(&t, err) != CD_OK)
        goto fail;
    cd_table_seen_limit(t, seen_mem);
    t->changes = get_u64(&r);
    if (!get_examples(&r, t, &by_index, &n_ex, &why) || !get_labels(&r, t, by_index, n_ex, version, &why) ||
        !get_seen(&r, t, &why) || (version > 1 && !get_unstable(&r, t, &why)) ||
        (version > 3 && !get_notes(&r, t, &why)) ||
        (r.at != r.n && (why = "bytes after the last section")) ||
        (r.bad && (why = "cut short"))) {
        cd_error_set(err, CD_FAILED, "damaged state file: %s", why);
        goto fail;
    }
    t->serial = n_ex;
    free(by_index);
    *out = t;
    return CD_OK;
fail:
    /* Examples linked but not yet referenced are freed by cd_table_free as live ones. */
    free(by_index);
    cd_table_free(t);
    cd_table_meta_release(meta);
    return CD_FAILED;
}

void cd_table_meta_release(struct cd_table_meta *meta)
{
    free(meta->settings);
    meta->settings = NULL;
}
