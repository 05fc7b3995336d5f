/* Content hashes for the seen-set (XXH3-128 from libxxhash) and seed names (SHA-1 from libcrypto).
 * Depends on no other module. */
#include "cd_hash.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <xxhash.h>

struct cd_hash cd_hash_bytes(const void *data, size_t len)
{
    static const char empty;
    XXH128_hash_t h = XXH3_128bits(data ? data : &empty, len);
    struct cd_hash out = {h.low64, h.high64};
    return out;
}

void cd_hash_sha1_hex(const void *data, size_t len, char out[41])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    EVP_Digest(data, len, md, &mdlen, EVP_sha1(), NULL);
    for (unsigned i = 0; i < 20; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[40] = '\0';
}

/* An all-zero slot means empty; the one real hash that is all zero is remapped. */
static struct cd_hash slot_key(struct cd_hash h)
{
    if (h.lo == 0 && h.hi == 0)
        h.lo = 1, h.hi = 0x8000000000000000u;
    return h;
}

static size_t find_slot(const struct cd_hash *slots, size_t cap, struct cd_hash h)
{
    size_t i = (size_t)h.lo & (cap - 1);
    while (slots[i].lo | slots[i].hi) {
        if (slots[i].lo == h.lo && slots[i].hi == h.hi)
            return i;
        i = (i + 1) & (cap - 1);
    }
    return i;
}

static int grow(struct cd_hashset *set)
{
    size_t cap = set->cap ? set->cap * 2 : 1024;
    struct cd_hash *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < set->cap; i++)
        if (set->slots[i].lo | set->slots[i].hi)
            slots[find_slot(slots, cap, set->slots[i])] = set->slots[i];
    free(set->slots);
    set->slots = slots;
    set->cap = cap;
    return 0;
}

int cd_hashset_add(struct cd_hashset *set, struct cd_hash h)
{
    h = slot_key(h);
    if ((set->count + 1) * 4 > set->cap * 3 && grow(set) != 0)
        return -1;
    size_t i = find_slot(set->slots, set->cap, h);
    if (set->slots[i].lo | set->slots[i].hi)
        return 0;
    set->slots[i] = h;
    set->count++;
    return 1;
}

int cd_hashset_has(const struct cd_hashset *set, struct cd_hash h)
{
    if (!set->cap)
        return 0;
    h = slot_key(h);
    size_t i = find_slot(set->slots, set->cap, h);
    return (set->slots[i].lo | set->slots[i].hi) != 0;
}

void cd_hashset_release(struct cd_hashset *set)
{
    free(set->slots);
    set->slots = NULL;
    set->cap = set->count = 0;
}
