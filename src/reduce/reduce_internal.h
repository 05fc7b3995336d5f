/* What only the reducer's passes and their tests see: a pass's working state, the calls passes
 * make, the passes, and the registry that lists them. The engine sees cd_reduce.h.
 *
 * To add a pass: write it in the file of its family (reduce_bytes.c: format-blind bytes;
 * reduce_text.c: lines, brackets, lists, blanks, strings; reduce_numbers.c: counts and digits;
 * reduce_markup.c: elements and attributes; reduce_chunks.c: length-prefixed and CRC-checked
 * binary chunks; reduce_image.c: images by rows and columns; reduce_uniform.c: lists made alike
 * for hit counts), declare it below, and give it
 * one row in reduce_passes.c. A pass that deletes units of its own (lines, records) can leave
 * the search to reduce_units.c's delta debugging (cd_reduce_cdd) by naming where a unit ends. */
#ifndef CD_REDUCE_INTERNAL_H
#define CD_REDUCE_INTERNAL_H

#include "cd_reduce.h"

/* Lowering passes run only on examples up to this size. Lowering removes no byte; it makes small
 * examples canonical and finds some labels (a lowered byte takes another branch), but it costs
 * about two executions per byte, and a lowered copy made for one label is no longer shared with
 * the labels the original served (measurements: tools/bench/FINDINGS.md). */
#define CD_REDUCE_LOWER_MAX 256

/* The blocks pass's finest block is len/CD_REDUCE_BLOCK_STEPS bytes (at least 1), so that one
 * sweep of a long example costs about twice this many candidates, not two per byte. A label whose
 * example must stay long (a buffer that grows past 32 KiB, 128 records of a list) took one
 * candidate per byte to confirm, each an execution, with a byte or two at most to gain. */
#define CD_REDUCE_BLOCK_STEPS 1024

/* The prefix pass's shortest prefix: shorter ones would rarely hold and cost a candidate each. */
#define CD_REDUCE_PREFIX_MIN 16

/* On an example this long or longer, each round starts with the passes marked CD_FRONT_LONG
 * (prefix, image, uniform), whatever the yields. A target's run time grows with its input, and
 * the passes run in the order of what they earned so far, mostly on short examples: on a long
 * one the first of them sweeps the whole example with candidates nearly as long as it. The
 * prefix pass's candidates are heads of at most half the example, about 2 log2(len) of them,
 * and the labels they find (those of an input that ends early) come on short candidates; the
 * uniform pass tries a few lists whose items it makes alike (measurements:
 * tools/bench/FINDINGS.md, CD_REDUCE_LONG). */
#define CD_REDUCE_LONG 16384

/* A pass's working state: the current example and scratch for candidates. */
struct cd_reduce_run {
    const struct cd_reduce_target *target;
    uint8_t *cur;          /* current example (owned, capacity cap) */
    size_t len;
    uint8_t *cand;         /* candidate scratch (owned, capacity cap) */
    size_t cap;
    struct cd_reduce_stats *stats; /* counters of the pass running */
    bool stopped;          /* the stop check fired */
};

/* The big-endian 32-bit word at p (binary formats' lengths). */
static inline uint32_t cd_reduce_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One step of a scan that skips double-quoted strings (with backslash escapes) in s: whether the
 * byte at *i is part of a string, its quotes included (so no structure); *str says whether the
 * scan is inside one, and *i moves past an escaped byte. */
static inline bool cd_reduce_in_string(const uint8_t *s, size_t *i, bool *str)
{
    if (*str) {
        if (s[*i] == '\\')
            ++*i;
        else if (s[*i] == '"')
            *str = false;
        return true;
    }
    return *str = s[*i] == '"';
}

/* Tests cand[0..len) (len <= r->len; strictly shortlex-smaller than cur); on acceptance it becomes
 * cur. Returns whether it was adopted; false without testing once stopped. */
bool cd_reduce_try(struct cd_reduce_run *r, size_t len);

/* Whether cur is binary (holds a NUL): the text passes skip it, and the lowering passes lower
 * only a binary example's bytes to 0. */
bool cd_reduce_binary(const struct cd_reduce_run *r);

/* Tests cur without the n bytes at i (false, untested, when they are not all inside it). */
bool cd_reduce_try_delete(struct cd_reduce_run *r, size_t i, size_t n);

/* Where the unit (a line, a record) that starts at `at` in r->cur ends: past at, at most
 * r->len. */
typedef size_t (*cd_reduce_unit_end_fn)(const struct cd_reduce_run *r, size_t at);

/* Deletes the units that unit_end delimits by counter-based delta debugging, groups weighted by
 * their bytes and tried heaviest first (reduce_units.c); returns whether it deleted any. */
bool cd_reduce_cdd(struct cd_reduce_run *r, cd_reduce_unit_end_fn unit_end);

/* A pass: runs once over r->cur, adopting what the predicate accepts; returns whether it did. */
typedef bool (*cd_reduce_pass_fn_t)(struct cd_reduce_run *r);

/* The passes, by family file. */
bool cd_reduce_prefix(struct cd_reduce_run *r);   /* shortest leading part (up to half) */
bool cd_reduce_suffix(struct cd_reduce_run *r);   /* shortest trailing part (up to half) */
bool cd_reduce_blocks(struct cd_reduce_run *r);   /* adaptive block deletion, large to small */
bool cd_reduce_bytes(struct cd_reduce_run *r);    /* lower single bytes toward 0 */
bool cd_reduce_pairs(struct cd_reduce_run *r);    /* lower every copy of a byte value together */
bool cd_reduce_lines(struct cd_reduce_run *r);    /* lines and runs of lines */
bool cd_reduce_brackets(struct cd_reduce_run *r); /* balanced (), [], {}, <> spans or contents */
bool cd_reduce_items(struct cd_reduce_run *r);    /* comma-separated items of lists */
bool cd_reduce_hoist(struct cd_reduce_run *r);    /* a span replaced by the values inside it */
bool cd_reduce_uniform(struct cd_reduce_run *r);  /* a list's items made alike, then cut as one */
bool cd_reduce_spaces(struct cd_reduce_run *r);   /* runs of blanks, then of line breaks */
bool cd_reduce_words(struct cd_reduce_run *r);    /* words of quoted strings cut, then dropped */
bool cd_reduce_lengths(struct cd_reduce_run *r);  /* a textual count shrunk with its span */
bool cd_reduce_digits(struct cd_reduce_run *r);   /* runs of decimal digits shortened */
bool cd_reduce_elements(struct cd_reduce_run *r); /* markup elements, start tag to end tag */
bool cd_reduce_kinds(struct cd_reduce_run *r);    /* every element (attribute) of a name at once */
bool cd_reduce_chunks(struct cd_reduce_run *r);   /* length-prefixed binary chunks whole */
bool cd_reduce_checked(struct cd_reduce_run *r);  /* inside CRC-checked chunks, repaired */
bool cd_reduce_image(struct cd_reduce_run *r);    /* a PNG's rows and columns, recompressed */

/* What a pass does to the length: deleting passes shorten, lowering ones keep it and lower a
 * byte. Lowering passes run after every deleting one, and only on short examples. */
enum cd_reduce_kind { CD_PASS_DELETE, CD_PASS_LOWER };

/* When a pass goes ahead of the yield order: never, in every round of a target with
 * coarse_first, or in every round on an example of CD_REDUCE_LONG bytes or more. */
enum cd_reduce_front { CD_FRONT_NONE, CD_FRONT_COARSE, CD_FRONT_LONG };

/* One row of the registry. */
struct cd_reduce_pass_def {
    const char *name;
    cd_reduce_pass_fn_t fn;
    enum cd_reduce_kind kind;
    enum cd_reduce_front front;
    /* It parses a text structure (tags, brackets): skipped on an example holding a NUL byte,
       which no text format has. On binary data stray '<' and brackets are everywhere, each scan
       runs to the end, and one pass over a 300 KB image took minutes before its first candidate,
       deaf to the stop flag. */
    bool text;
};

/* The registry: every pass, in default (cheapest first) order; cd_reduce_n_passes() rows. */
extern const struct cd_reduce_pass_def cd_reduce_passes[];

/* Returns the number of the pass named name, or cd_reduce_n_passes() when there is none. */
unsigned cd_reduce_pass_find(const char *name);

#endif
