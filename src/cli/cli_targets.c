/* The command line's targets: each added as it comes, named, its binary hashed, built into the
 * run's records, written as the state's identity line, listed in messages, and the path of its
 * view (DIR.by-target/NAME) made in one place. */
#include "common/cd_hash.h"
#include "exec/cd_identity.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool cli_target_add(struct cli_opts *o, char **argv, const char *name)
{
    if (!argv[0])
        return cli_usage_error("an empty target: '--' with nothing after it"), false;
    if (o->n_targets == CD_LABEL_TARGETS_MAX)
        return cli_usage_error("at most %u targets run at once", CD_LABEL_TARGETS_MAX), false;
    o->targets[o->n_targets].argv = argv;
    o->targets[o->n_targets++].name = name;
    return true;
}

bool cli_targets_name(struct cli_opts *o)
{
    if (o->n_targets == 0)
        return true;
    for (unsigned t = 0; t < o->n_targets; t++) {
        char *buf = o->targets[t].name_buf;
        const char *given = o->targets[t].name;
        if (given && !cd_labels_name_valid(given))
            return cli_usage_error("--targets: '%s' is no target name (letters, digits, '.', "
                                   "'_', '-'; at most 64)", given), false;
        if (!given) {
            const char *base = strrchr(o->targets[t].argv[0], '/');
            base = base ? base + 1 : o->targets[t].argv[0];
            size_t k = 0;
            for (; base[k] && k < 60; k++)
                buf[k] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
                                base[k]) ? base[k] : '_';
            if (k == 0 || buf[0] == '.' || buf[0] == '-')
                memcpy(buf, "target", 7);
        } else {
            snprintf(buf, 80, "%s", given);
        }
        for (unsigned k = 0, dup = 2; k < t; k++)
            if (strcmp(o->targets[k].name, buf) == 0) {
                if (given)
                    return cli_usage_error("two targets named '%s'", given), false;
                char *dot = strrchr(buf, '.');
                size_t at = dot && strspn(dot + 1, "0123456789") == strlen(dot + 1) && dot[1]
                                ? (size_t)(dot - buf) : strlen(buf);
                snprintf(buf + at, 80 - at, ".%u", dup++);
                k = (unsigned)-1; /* again from the first */
            }
        o->targets[t].name = buf;
    }
    return true;
}

void cli_target_sha1(const char *target, char hex[41])
{
    hex[0] = '\0';
    char *path = NULL;
    if (strchr(target, '/')) {
        path = strdup(target);
    } else {
        const char *env = getenv("PATH");
        char *dirs = strdup(env ? env : "/usr/bin:/bin");
        for (char *save = NULL, *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d;
             d = strtok_r(NULL, ":", &save)) {
            size_t n = strlen(d) + strlen(target) + 2;
            char *p = malloc(n);
            if (!p)
                break;
            snprintf(p, n, "%s/%s", d, target);
            if (access(p, X_OK) == 0) {
                path = p;
                break;
            }
            free(p);
        }
        free(dirs);
    }
    FILE *f = path ? fopen(path, "rb") : NULL;
    free(path);
    if (!f)
        return;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 1 << 20;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb)
                goto out;
            buf = nb;
            cap = ncap;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    if (!ferror(f))
        cd_hash_sha1_hex(buf, len, hex);
out:
    free(buf);
    fclose(f);
}

/* What a target's identity fields take in cli_targets_identity's store: its map size, its own
   settings and its arguments joined by blanks. */
#define OWN_MAX 128
static size_t identity_bytes(char *const *argv)
{
    size_t n = 24 + OWN_MAX + 1;
    for (char *const *a = argv + 1; *a; a++)
        n += strlen(*a) + 1;
    return n;
}

char *cli_targets_identity(const struct cli_opts *o, const struct cli_resolved *r,
                           const struct cd_target *targets)
{
    struct cd_identity id = {.several = o->n_targets > 1, .n_targets = o->n_targets};
    char shared[512], shard[32], *line = NULL;
    if (!cli_settings_identity(o, r, o->n_targets == 1, &id, shared, sizeof shared))
        return NULL;
    size_t total = 0;
    for (unsigned t = 0; t < o->n_targets; t++)
        total += identity_bytes(targets[t].opts.argv);
    char *store = malloc(total), *p = store;
    for (unsigned t = 0; store && t < o->n_targets; t++) {
        const struct cd_target *tg = &targets[t];
        struct cd_identity_target *it = &id.targets[t];
        *it = (struct cd_identity_target){.sha1 = cd_span_of(id.several ? tg->sha1 : "")};
        it->map_size = (struct cd_span){p, (size_t)sprintf(p, "%zu", tg->info.map_size)};
        p += it->map_size.n + 1;
        if (!cli_settings_identity_target(o, t, it, p, OWN_MAX))
            goto out;
        p += OWN_MAX;
        it->args.p = p;
        for (char *const *a = tg->opts.argv + 1; *a; a++)
            p += sprintf(p, "%s%s", a == tg->opts.argv + 1 ? "" : " ", *a);
        it->args.n = (size_t)(p++ - it->args.p);
    }
    if (o->shards > 1) {
        snprintf(shard, sizeof shard, "%u/%u", o->shard, o->shards);
        id.shard = cd_span_of(shard);
    }
    size_t len = cd_identity_write(&id, NULL, 0);
    if (store && (line = malloc(len + 1)))
        cd_identity_write(&id, line, len + 1);
out:
    free(store);
    return line;
}

void cli_targets_fill(const struct cli_opts *o, const struct cd_exec_opts *run,
                      struct cd_target *targets, bool sha1)
{
    for (unsigned t = 0; t < o->n_targets; t++) {
        struct cd_target *tg = &targets[t];
        *tg = (struct cd_target){.name = o->targets[t].name, .opts = *run};
        tg->opts.argv = o->targets[t].argv;
        cli_settings_apply_target(o, t, &tg->opts);
        if (sha1)
            cli_target_sha1(tg->opts.argv[0], tg->sha1);
        tg->id = cd_target_id(tg);
    }
}

const char *cli_targets_names(const struct cli_opts *o, uint32_t mask, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned t = 0; t < o->n_targets; t++)
        if (mask >> t & 1)
            n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s'%s'", n ? ", " : "",
                                  o->targets[t].name);
    return buf;
}

uint32_t cli_targets_slow(const struct cli_opts *o, const struct cd_target *targets, char *buf,
                          size_t cap)
{
    uint32_t mask = 0;
    for (unsigned t = 0; t < o->n_targets; t++)
        if (!targets[t].info.persistent && !targets[t].info.deferred)
            mask |= 1u << t;
    buf[0] = '\0';
    if (o->n_targets > 1 && cap > 1) { /* with several, the names */
        buf[0] = ' ';
        cli_targets_names(o, mask, buf + 1, cap - 1);
    }
    return mask;
}

bool cli_targets_views(const struct cli_opts *o)
{
    return o->n_targets > 1;
}

enum cli_targets_change cli_targets_compare(const struct cli_opts *o, const char *was,
                                            const char *was_sha1, const char *now,
                                            const char *now_sha1, uint32_t *same)
{
    struct cd_identity a, b;
    bool ok = cd_identity_parse(was, was_sha1, &a) && cd_identity_parse(now, now_sha1, &b);
    unsigned n_was = ok ? a.n_targets : 0;
    uint32_t all = (uint32_t)((1ull << o->n_targets) - 1);
    *same = ok ? cd_identity_same_targets(&a, &b) : 0;
    bool common = ok && cd_identity_same_shared(&a, &b) && a.shard.n == b.shard.n &&
                  (!a.shard.n || !memcmp(a.shard.p, b.shard.p, a.shard.n));
    if ((o->n_targets == 1 && n_was <= 1) || !common ||
        (*same == all && n_was == o->n_targets))
        return CLI_TARGETS_AS_ONE;
    return *same ? CLI_TARGETS_SOME : CLI_TARGETS_OTHERS;
}
