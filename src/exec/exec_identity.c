/* A run's identity line, written and read as fields (cd_identity.h gives the forms). The parser
 * walks the line once, left to right: the arguments of the one-target form end where the shared
 * settings begin, at "; timeout_ms=", the first of them in every version; a target line's at its
 * end; a shard is the last "; shard=K/N" of the line. */
#include "cd_identity.h"

#include <stdio.h>
#include <string.h>

#define SHARD_KEY "; shard="
#define TARGET_KEY "\ntarget "
#define FIRST_SHARED "; timeout_ms="

static bool span_eq(struct cd_span a, struct cd_span b)
{
    return a.n == b.n && (a.n == 0 || memcmp(a.p, b.p, a.n) == 0);
}

static bool span_is(struct cd_span a, const char *s)
{
    return span_eq(a, cd_span_of(s));
}

/* The first place of key in [p, end), or NULL. */
static const char *find(const char *p, const char *end, const char *key)
{
    size_t k = strlen(key);
    for (; p && (size_t)(end - p) >= k; p++)
        if (memcmp(p, key, k) == 0)
            return p;
    return NULL;
}

/* Whether [p, end) is "K/N" in decimal. */
static bool is_shard(const char *p, const char *end)
{
    size_t a = 0, b = 0;
    while (p + a < end && p[a] >= '0' && p[a] <= '9')
        a++;
    if (!a || p + a == end || p[a] != '/')
        return false;
    for (const char *q = p + a + 1; q < end; q++, b++)
        if (*q < '0' || *q > '9')
            return false;
    return b > 0;
}

/* Whether [p, p + n) is decimal digits, at least one. */
static bool is_number(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9')
            return false;
    return n > 0;
}

/* Reads "key=value; key=value" in [p, end) into id->shared; false when malformed. map, when not
 * NULL, takes the value of map_size instead of the list (the one-target form's). */
static bool parse_shared(const char *p, const char *end, struct cd_identity *id,
                         struct cd_span *map)
{
    while (p < end) {
        const char *sep = find(p, end, "; ");
        const char *stop = sep ? sep : end;
        const char *eq = memchr(p, '=', (size_t)(stop - p));
        if (!eq || eq == p || memchr(eq, ';', (size_t)(stop - eq)))
            return false;
        struct cd_identity_field f = {{p, (size_t)(eq - p)}, {eq + 1, (size_t)(stop - eq - 1)}};
        if (map && span_is(f.key, "map_size")) {
            *map = f.value;
            id->map_at = id->n_shared;
        } else if (id->n_shared < CD_IDENTITY_SHARED_MAX)
            id->shared[id->n_shared++] = f;
        else
            return false;
        p = sep ? sep + 2 : end;
    }
    return true;
}

/* Reads "SHA1 map_size=S[ KEY=VALUE]... args=ARGS" in [p, end) into t; false when malformed. */
static bool parse_target(const char *p, const char *end, struct cd_identity_target *t)
{
    const char *sp = memchr(p, ' ', (size_t)(end - p));
    if (!sp || (sp - p != 40 && sp != p))
        return false;
    t->sha1 = (struct cd_span){p, (size_t)(sp - p)};
    const char *m = sp + 1, *a = find(m, end, " args=");
    if (!a || (size_t)(a - m) < 9 || memcmp(m, "map_size=", 9) != 0)
        return false;
    const char *f = memchr(m, ' ', (size_t)(a - m)); /* its own settings, if any */
    f = f ? f : a;
    if (!is_number(m + 9, (size_t)(f - m - 9)))
        return false;
    t->map_size = (struct cd_span){m + 9, (size_t)(f - m - 9)};
    while (f < a) {
        const char *k = f + 1, *next = memchr(k, ' ', (size_t)(a - k));
        next = next ? next : a;
        const char *eq = memchr(k, '=', (size_t)(next - k));
        if (!eq || eq == k || eq + 1 == next || t->n_own == CD_IDENTITY_OWN_MAX)
            return false;
        t->own[t->n_own++] = (struct cd_identity_field){{k, (size_t)(eq - k)},
                                                        {eq + 1, (size_t)(next - eq - 1)}};
        f = next;
    }
    t->args = (struct cd_span){a + 6, (size_t)(end - a - 6)};
    return true;
}

bool cd_identity_parse(const char *line, const char *sha1, struct cd_identity *id)
{
    memset(id, 0, sizeof *id);
    line = line ? line : "";
    const char *end = line + strlen(line);
    /* the shard, last: "; shard=K/N" (an argument may hold the same text, so the last one) */
    for (const char *p = line, *k; (k = find(p, end, SHARD_KEY)); p = k + 1)
        if (is_shard(k + strlen(SHARD_KEY), end)) {
            id->shard = (struct cd_span){k + strlen(SHARD_KEY),
                                         (size_t)(end - k - strlen(SHARD_KEY))};
            end = k;
            break;
        }
    const char *nl = find(line, end, TARGET_KEY);
    if (nl) { /* several: the shared line, then a line a target */
        id->several = true;
        if (!parse_shared(line, nl, id, NULL))
            return false;
        for (const char *p = nl; p; id->n_targets++) {
            if (id->n_targets == CD_IDENTITY_TARGETS_MAX)
                return false;
            p += strlen(TARGET_KEY);
            const char *next = find(p, end, TARGET_KEY);
            if (!parse_target(p, next ? next : end, &id->targets[id->n_targets]))
                return false;
            p = next;
        }
        return true;
    }
    if (end == line)
        return true; /* none: a table saved without an identity */
    /* one target: "args=ARGS; timeout_ms=...; map_size=S; ..." */
    const char *s = find(line, end, FIRST_SHARED);
    if (strncmp(line, "args=", 5) != 0 || !s)
        return false;
    struct cd_identity_target *t = &id->targets[0];
    t->sha1 = cd_span_of(sha1);
    t->args = (struct cd_span){line + 5, (size_t)(s - line - 5)};
    id->n_targets = 1;
    return parse_shared(s + 2, end, id, &t->map_size) && t->map_size.p &&
           is_number(t->map_size.p, t->map_size.n);
}

/* Appends n bytes of p to buf (cap) at *len, never past its end. */
static void put(char *buf, size_t cap, size_t *len, const char *p, size_t n)
{
    if (*len < cap) {
        size_t room = cap - *len - 1;
        memcpy(buf + *len, p, n < room ? n : room);
        buf[*len + (n < room ? n : room)] = '\0';
    }
    *len += n;
}

static void put_span(char *buf, size_t cap, size_t *len, struct cd_span s)
{
    put(buf, cap, len, s.p, s.n);
}

static void put_str(char *buf, size_t cap, size_t *len, const char *s)
{
    put(buf, cap, len, s, strlen(s));
}

size_t cd_identity_write(const struct cd_identity *id, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    bool one = !id->several && id->n_targets == 1;
    if (one) {
        put_str(buf, cap, &len, "args=");
        put_span(buf, cap, &len, id->targets[0].args);
    }
    for (size_t i = 0; i <= id->n_shared; i++) {
        if (one && i == id->map_at) { /* the one target's map size, at its place */
            put_str(buf, cap, &len, "; map_size=");
            put_span(buf, cap, &len, id->targets[0].map_size);
        }
        if (i == id->n_shared)
            break;
        const struct cd_identity_field *f = &id->shared[i];
        if (len)
            put_str(buf, cap, &len, "; ");
        put_span(buf, cap, &len, f->key);
        put_str(buf, cap, &len, "=");
        put_span(buf, cap, &len, f->value);
    }
    for (unsigned t = 0; !one && t < id->n_targets; t++) {
        put_str(buf, cap, &len, TARGET_KEY);
        put_span(buf, cap, &len, id->targets[t].sha1);
        put_str(buf, cap, &len, " map_size=");
        put_span(buf, cap, &len, id->targets[t].map_size);
        for (size_t k = 0; k < id->targets[t].n_own; k++) {
            put_str(buf, cap, &len, " ");
            put_span(buf, cap, &len, id->targets[t].own[k].key);
            put_str(buf, cap, &len, "=");
            put_span(buf, cap, &len, id->targets[t].own[k].value);
        }
        put_str(buf, cap, &len, " args=");
        put_span(buf, cap, &len, id->targets[t].args);
    }
    if (id->shard.n) {
        put_str(buf, cap, &len, SHARD_KEY);
        put_span(buf, cap, &len, id->shard);
    }
    return len;
}

bool cd_identity_same_target(const struct cd_identity_target *a,
                             const struct cd_identity_target *b)
{
    if (!span_eq(a->sha1, b->sha1) || !span_eq(a->map_size, b->map_size) ||
        !span_eq(a->args, b->args) || a->n_own != b->n_own)
        return false;
    for (size_t k = 0; k < a->n_own; k++)
        if (!span_eq(a->own[k].key, b->own[k].key) || !span_eq(a->own[k].value, b->own[k].value))
            return false;
    return true;
}

uint32_t cd_identity_same_targets(const struct cd_identity *a, const struct cd_identity *b)
{
    uint32_t same = 0;
    for (unsigned t = 0; t < a->n_targets && t < b->n_targets; t++)
        if (cd_identity_same_target(&a->targets[t], &b->targets[t]))
            same |= 1u << t;
    return same;
}

bool cd_identity_same_shared(const struct cd_identity *a, const struct cd_identity *b)
{
    if (a->n_shared != b->n_shared)
        return false;
    for (size_t i = 0; i < a->n_shared; i++)
        if (!span_eq(a->shared[i].key, b->shared[i].key) ||
            !span_eq(a->shared[i].value, b->shared[i].value))
            return false;
    return true;
}

bool cd_identity_same_unsharded(const struct cd_identity *a, const struct cd_identity *b)
{
    if (a->several != b->several || a->n_targets != b->n_targets ||
        !cd_identity_same_shared(a, b))
        return false;
    for (unsigned t = 0; t < a->n_targets; t++) {
        struct cd_identity_target x = a->targets[t], y = b->targets[t];
        if (!a->several) /* the one-target form's SHA-1 is the header's, compared apart */
            x.sha1 = y.sha1 = cd_span_of("");
        if (!cd_identity_same_target(&x, &y))
            return false;
    }
    return true;
}

/* "KEY was 'A', now 'B'" into buf, A and B shown printable and cut to 80 bytes. */
static void difference(const char *key, struct cd_span was, struct cd_span now, char *buf,
                       size_t cap)
{
    char a[81], b[81], sa[96], sb[96];
    snprintf(a, sizeof a, "%.*s", (int)(was.n < 80 ? was.n : 80), was.p ? was.p : "");
    snprintf(b, sizeof b, "%.*s", (int)(now.n < 80 ? now.n : 80), now.p ? now.p : "");
    snprintf(buf, cap, "%s was '%s', now '%s'", key, cd_shown(a, sa, sizeof sa),
             cd_shown(b, sb, sizeof sb));
}

void cd_identity_first_difference(const struct cd_identity *was, const struct cd_identity *now,
                                  char *buf, size_t cap)
{
    static const struct cd_identity_target none;
    const struct cd_identity_target *w = was->n_targets ? &was->targets[0] : &none,
                                    *n = now->n_targets ? &now->targets[0] : &none;
    if (!span_eq(w->args, n->args)) {
        difference("args", w->args, n->args, buf, cap);
        return;
    }
    for (size_t i = 0; i <= now->n_shared; i++) {
        if (!now->several && i == now->map_at && !span_eq(w->map_size, n->map_size)) {
            difference("map_size", w->map_size, n->map_size, buf, cap);
            return;
        }
        if (i == now->n_shared)
            break;
        const struct cd_identity_field *f = &now->shared[i];
        struct cd_span old = {NULL, 0};
        for (size_t k = 0; k < was->n_shared && !old.p; k++)
            if (span_eq(was->shared[k].key, f->key))
                old = was->shared[k].value;
        if (!old.p || !span_eq(old, f->value)) {
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)(f->key.n < 63 ? f->key.n : 63), f->key.p);
            difference(key, old, f->value, buf, cap);
            return;
        }
    }
    if (!span_eq(w->map_size, n->map_size)) {
        difference("map_size", w->map_size, n->map_size, buf, cap);
        return;
    }
    snprintf(buf, cap, "settings differ");
}
