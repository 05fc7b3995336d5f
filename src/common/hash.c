/* Content hashes for the seen-set (XXH3-128 from libxxhash) and seed names (SHA-1 from libcrypto).
 * Depends on no other module. */
#include "cd_hash.h"

#include <openssl/evp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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

bool cd_hash_is_sha1_hex(const char *s)
{
    return strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

#define BUCKET 4     /* slots per bucket: half a cache line */
#define FIRST_BUCKETS 64
#define PROBE 32     /* buckets a value may sit in: its home bucket and the 31 after it (8 were
                        too few: a run of 8 full buckets turned up once in a million values) */

/* The stored form of h: its high half (XXH3's halves are independent), zero meaning an empty
 * slot, so a zero fingerprint is remapped. The home bucket comes from the fingerprint alone (its
 * high bits, scaled to the bucket count), so the table can be rebuilt from fingerprints when it
 * grows, to any size. */
static uint64_t fingerprint(struct cd_hash h)
{
    return h.hi ? h.hi : 0x8000000000000000u;
}

static size_t home(size_t buckets, uint64_t fp)
{
    return (size_t)(((unsigned __int128)fp * buckets) >> 64);
}

/* The final bucket count under the budget: two thirds of it, so that growing from half of that
 * (the old table alive beside the new one) stays within it; 0 without a budget. */
static size_t final_buckets(const struct cd_hashset *set)
{
    size_t n = set->max_bytes / 3 * 2 / (BUCKET * sizeof(uint64_t));
    return !set->max_bytes ? 0 : n ? n : 1;
}

/* Puts fp into the first free slot of its home bucket or of the PROBE - 1 after it
 * (wrapping): a full bucket no longer grows the table, which at three quarters full keeps a
 * value at about 11 bytes instead of the 100 and more that growing at the first full bucket of
 * four took. Slots are filled in order and never emptied, so a lookup stops at the first empty
 * one. False when all are full. */
static bool place(uint64_t *slots, size_t buckets, uint64_t fp)
{
    size_t b = home(buckets, fp);
    for (size_t i = 0; i < PROBE && i < buckets; i++) {
        uint64_t *s = slots + b * BUCKET;
        for (int k = 0; k < BUCKET; k++)
            if (!s[k]) {
                s[k] = fp;
                return true;
            }
        if (++b == buckets)
            b = 0;
    }
    return false;
}

/* Grows the table (or makes the first); 1 when done, 0 at the budget's size, -1 when out of
 * memory. A value with no free slot within reach in the new table (hardly possible: it is at
 * most half full) is forgotten. */
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
    size_t b = home(set->buckets, fp);
    for (size_t i = 0; i < PROBE && i < set->buckets; i++) {
        const uint64_t *s = set->slots + b * BUCKET;
        for (int k = 0; k < BUCKET; k++) {
            if (s[k] == fp)
                return true;
            if (!s[k])
                return false;
        }
        if (++b == set->buckets)
            b = 0;
    }
    return false;
}

int cd_hashset_add(struct cd_hashset *set, struct cd_hash h)
{
    return cd_hashset_add_fingerprint(set, fingerprint(h));
}

/* At the budget's size, three quarters full: fp takes its home bucket's first free slot, or else
 * the place of one of its values, chosen by low fingerprint bits (the bucket came from the high
 * ones). No slot is emptied, so the values that overflowed past this bucket stay reachable. */
static void replace(struct cd_hashset *set, uint64_t fp)
{
    uint64_t *s = set->slots + home(set->buckets, fp) * BUCKET;
    for (int k = 0; k < BUCKET; k++)
        if (!s[k]) {
            s[k] = fp;
            set->count++;
            return;
        }
    s[fp & (BUCKET - 1)] = fp;
    set->forgotten++;
}

int cd_hashset_add_fingerprint(struct cd_hashset *set, uint64_t fp)
{
    if (!fp || bucket_has(set, fp))
        return 0;
    if ((set->count + 1) * 4 > set->buckets * BUCKET * 3) {
        int g = grow(set);
        if (g < 0)
            return -1;
        if (g == 0) {
            replace(set, fp);
            return 1;
        }
    }
    while (!place(set->slots, set->buckets, fp)) {
        int g = grow(set);
        if (g < 0)
            return -1;
        if (g == 0) {
            replace(set, fp);
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

static int ascending(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A value may sit a few buckets past its home, so the table's order is nearly, not wholly,
 * sorted: sorted here (once per saved state). */
size_t cd_hashset_fingerprints_unsorted(const struct cd_hashset *set, uint64_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < set->buckets * BUCKET; i++)
        if (set->slots[i])
            out[n++] = set->slots[i];
    return n;
}

void cd_fingerprints_sort(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, ascending);
}

size_t cd_hashset_fingerprints(const struct cd_hashset *set, uint64_t *out)
{
    size_t n = cd_hashset_fingerprints_unsorted(set, out);
    cd_fingerprints_sort(out, n);
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
