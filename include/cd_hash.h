/* Content hashing: a fast 128-bit hash (xxHash XXH3) identifies inputs in the seen-set and for
 * de-duplication; SHA-1 hex names seed files, as libFuzzer names its corpus files. */
#ifndef CD_HASH_H
#define CD_HASH_H

#include <stddef.h>
#include <stdint.h>

struct cd_hash {
    uint64_t lo, hi;
};

/* Returns the XXH3-128 hash of len bytes at data (data may be NULL when len is 0). */
struct cd_hash cd_hash_bytes(const void *data, size_t len);

/* Writes the lower-case SHA-1 hex digest of the bytes, NUL-terminated, into out. */
void cd_hash_sha1_hex(const void *data, size_t len, char out[41]);

/* A growable set of cd_hash values (open addressing). Zero-initialise, then use. */
struct cd_hashset {
    struct cd_hash *slots;
    size_t cap, count;
};

/* Adds h; returns 1 if it was new, 0 if already present, -1 when out of memory. */
int cd_hashset_add(struct cd_hashset *set, struct cd_hash h);

/* Returns whether h is in the set. */
int cd_hashset_has(const struct cd_hashset *set, struct cd_hash h);

/* Frees the set's memory and leaves it empty and usable. */
void cd_hashset_release(struct cd_hashset *set);

#endif
