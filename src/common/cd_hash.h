/* Content hashing: a fast 128-bit hash (xxHash XXH3) identifies inputs in the seen-set and for
 * de-duplication; SHA-1 hex names seed files, as libFuzzer names its corpus files. */
#ifndef CD_HASH_H
#define CD_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cd_hash {
    uint64_t lo, hi;
};

/* Returns the XXH3-128 hash of len bytes at data (data may be NULL when len is 0). */
struct cd_hash cd_hash_bytes(const void *data, size_t len);

/* Writes the lower-case SHA-1 hex digest of the bytes, NUL-terminated, into out. */
void cd_hash_sha1_hex(const void *data, size_t len, char out[41]);

/* True when s is 40 lower-case hex digits, as cd_hash_sha1_hex writes them. */
bool cd_hash_is_sha1_hex(const char *s);

/* A set of cd_hash values within a memory budget: 64-bit fingerprints in buckets of four, a value
 * in its home bucket or one of the 31 after it. The table doubles when three quarters full,
 * toward two thirds of max_bytes (0: no budget), so that the old and the new table together
 * never pass max_bytes. Once at that size and three quarters full, a new value takes the place of
 * one in its home bucket (counted in forgotten): a forgotten value reads as new again. A value
 * never added reads as present only when its fingerprint equals one stored where it is looked for
 * (odds about 2^-57 per lookup). Zero-initialise, set max_bytes, then use. */
struct cd_hashset {
    uint64_t *slots;
    size_t buckets, count;       /* buckets of four slots; fingerprints stored */
    unsigned level;              /* with a budget: the table is the final size >> level */
    size_t max_bytes;
    uint64_t forgotten;          /* fingerprints dropped to stay within max_bytes */
};

/* Adds h; returns 1 if it was new, 0 if already present, -1 when out of memory. */
int cd_hashset_add(struct cd_hashset *set, struct cd_hash h);

/* Returns whether h is in the set. */
int cd_hashset_has(const struct cd_hashset *set, struct cd_hash h);

/* Sets the budget of a set that may hold values already: rebuilds it under the new budget
 * (forgetting what does not fit, counted). 0, or -1 when out of memory (set unchanged). */
int cd_hashset_set_budget(struct cd_hashset *set, size_t max_bytes);

/* Bytes the set's table takes now. */
size_t cd_hashset_bytes(const struct cd_hashset *set);

/* The set's fingerprints in ascending order: writes count of them into out (room for
 * set->count), returns how many it wrote. The order depends on the values alone, so a set
 * rebuilt from them (cd_hashset_add_fingerprint) gives the same list again. */
size_t cd_hashset_fingerprints(const struct cd_hashset *set, uint64_t *out);

/* The same in the order they lie in the set (a copy, no sort: cheap enough under a lock); sort
 * them with cd_fingerprints_sort. */
size_t cd_hashset_fingerprints_unsorted(const struct cd_hashset *set, uint64_t *out);

/* Sorts n fingerprints in ascending order, as cd_hashset_fingerprints gives them. */
void cd_fingerprints_sort(uint64_t *v, size_t n);

/* Adds a fingerprint as cd_hashset_fingerprints gives it; returns as cd_hashset_add. */
int cd_hashset_add_fingerprint(struct cd_hashset *set, uint64_t fp);

/* Frees the set's memory and leaves it empty and usable (its budget kept, forgotten zeroed). */
void cd_hashset_release(struct cd_hashset *set);

#endif
