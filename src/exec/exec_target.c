/* A target's record (cd_target.h): what the seen-set keys it by and where its view goes. */
#include "cd_target.h"
#include "common/cd_hash.h"

#include <stdio.h>
#include <string.h>

uint64_t cd_target_id(const struct cd_target *t)
{
    struct cd_hash h = cd_hash_bytes((const uint8_t *)t->sha1, 40);
    for (char *const *a = t->opts.argv ? t->opts.argv + 1 : NULL; a && *a; a++) {
        struct cd_hash x = cd_hash_bytes((const uint8_t *)*a, strlen(*a) + 1);
        h.lo = (h.lo ^ x.lo) * 0x100000001b3ull;
    }
    return h.lo;
}

const char *cd_target_view_path(const char *views, const struct cd_target *t, char *buf,
                                size_t cap)
{
    snprintf(buf, cap, "%s/%s", views ? views : "", t->name);
    return buf;
}
