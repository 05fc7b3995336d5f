/* Content hashes for the seen-set (XXH3-128 from libxxhash) and seed names (SHA-1 from libcrypto).
 * Depends on no other module. */
#include "cd_hash.h"

#include <openssl/evp.h>
#include <stdbool.h>
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

#define BUCKET 4     /* slots probed per value: half a cache line */
#define FIRST_BUCKETS 64

/* The stored form of h: its high half (XXH3's halves are independent), zero meaning an empty
 * slot, so a zero fingerprint is remapped. The bucket comes from the fingerprint alone (its high
 * bits, scaled to the bucket count), so the table can be rebuilt from fingerprints when it grows,
 * to any size. */
static uint64_t fingerprint(struct cd_hash h)
{
    return h.hi ? h.hi : 0x8000000000000000u;
}

static uint64_t *bucket(uint64_t *slots, size_t buckets, uint64_t fp)
{
    return slots + (size_t)(((unsigned __int128)fp * buckets) >> 64) * BUCKET;
}

/* The final bucket count under the budget: two thirds of it, so that growing from half of that
 * (the old table alive beside the new one) stays within it; 0 without a budget. */
static size_t final_buckets(const struct cd_hashset *set)
{
    size_t n = set->max_bytes / 3 * 2 / (BUCKET * sizeof(uint64_t));
    return !set->max_bytes ? 0 : n ? n : 1;
}

/* Puts fp into its bucket's first free slot; false when the bucket is full. */
static bool place(uint64_t *slots, size_t buckets, uint64_t fp)
{
    uint64_t *b = bucket(slots, buckets, fp);
    for (int k = 0; k < BUCKET; k++)
        if (!b[k]) {
            b[k] = fp;
            return true;
        }
    return false;
}

/* Grows the table (or makes the first); 1 when done, 0 at the budget's size, -1 when out of
 * memory. A value whose new bucket is full (rare: four others landed there) is forgotten. */
static int grow(struct cd_hashset *set)
{
    size_t final = final_buckets(set), n;
    if (!final) {
        n = set->buckets ? set->buckets * 2 : FIRST_BUCKETS;
    } else if (!set->buckets) {
        while ((final >> set->level) > FIRST_BUCKETS)
            set->level++;
        n = final >> set->level;
    } else if (set->level == 0) {
        return 0;
    } else {
        n = final >> --set->level;
    }
    uint64_t *slots = calloc(n * BUCKET, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < set->buckets * BUCKET; i++)
        if (set->slots[i] && !place(slots, n, set->slots[i])) {
            set->count--;
            set->forgotten++;
        }
    free(set->slots);
    set->slots = slots;
    set->buckets = n;
    return 1;
}

static bool bucket_has(const struct cd_hashset *set, uint64_t fp)
{
    if (!set->buckets)
        return false;
    const uint64_t *b = bucket(set->slots, set->buckets, fp);
    for (int k = 0; k < BUCKET; k++)
        if (b[k] == fp)
            return true;
    return false;
}

int cd_hashset_add(struct cd_hashset *set, struct cd_hash h)
{
    return cd_hashset_add_fingerprint(set, fingerprint(h));
}

int cd_hashset_add_fingerprint(struct cd_hashset *set, uint64_t fp)
{
    if (!fp || bucket_has(set, fp))
        return 0;
    if ((set->count + 1) * 4 > set->buckets * BUCKET * 3 && grow(set) < 0)
        return -1;
    while (!place(set->slots, set->buckets, fp)) {
        int g = grow(set);
        if (g < 0)
            return -1;
        if (g == 0) {
            /* At the budget: this value takes the place of one of its bucket's, chosen by low
               fingerprint bits (the bucket came from the high ones). */
            bucket(set->slots, set->buckets, fp)[fp & (BUCKET - 1)] = fp;
            set->forgotten++;
            return 1;
        }
    }
    set->count++;
    return 1;
}

int cd_hashset_has(const struct cd_hashset *set, struct cd_hash h)
{
    return bucket_has(set, fingerprint(h));
}

/* Buckets partition the fingerprints by their high bits in bucket order, so sorting each
 * bucket's four slots sorts the whole. */
size_t cd_hashset_fingerprints(const struct cd_hashset *set, uint64_t *out)
{
    size_t n = 0;
    for (size_t b = 0; b < set->buckets; b++) {
        size_t first = n;
        for (int k = 0; k < BUCKET; k++) {
            uint64_t fp = set->slots[b * BUCKET + k];
            if (!fp)
                continue;
            size_t i = n++;
            for (; i > first && out[i - 1] > fp; i--)
                out[i] = out[i - 1];
            out[i] = fp;
        }
    }
    return n;
}

int cd_hashset_set_budget(struct cd_hashset *set, size_t max_bytes)
{
    struct cd_hashset n = {.max_bytes = max_bytes};
    for (size_t i = 0; i < set->buckets * BUCKET; i++)
        if (set->slots[i] && cd_hashset_add_fingerprint(&n, set->slots[i]) < 0) {
            cd_hashset_release(&n);
            return -1;
        }
    n.forgotten += set->forgotten;
    free(set->slots);
    *set = n;
    return 0;
}

size_t cd_hashset_bytes(const struct cd_hashset *set)
{
    return set->buckets * BUCKET * sizeof *set->slots;
}

void cd_hashset_release(struct cd_hashset *set)
{
    free(set->slots);
    set->slots = NULL;
    set->buckets = set->count = 0;
    set->level = 0;
    set->forgotten = 0;
}
