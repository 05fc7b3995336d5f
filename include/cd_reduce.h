/* Test-case reduction on raw bytes: passes that propose strictly shortlex-smaller candidates
 * (deletions, byte lowering) and keep those a predicate accepts, until no pass finds anything.
 * The reducer sees the rest of the program only through its predicate and stop check: it knows
 * nothing of tables, labels or execution. */
#ifndef CD_REDUCE_H
#define CD_REDUCE_H

#include "cd_common.h"

/* What the reducer reduces for. */
struct cd_reduce_target {
    /* True when cand (len bytes, borrowed for the call) is interesting: the reducer adopts it. */
    bool (*pred)(void *ctx, const uint8_t *cand, size_t len);
    /* True when the reduction must end now (budget, signal); checked before every candidate.
     * May be NULL. */
    bool (*stop)(void *ctx);
    void *ctx;
    bool deletions_only;   /* skip the lowering passes (CD_REDUCE_BYTES on) */
    bool coarse_first;     /* each round starts with the blocks pass: big cuts before fine ones */
};

/* The passes, in their default (cheapest first) order: deletions, then lowering (from
 * CD_REDUCE_BYTES on). */
enum cd_reduce_pass {
    CD_REDUCE_PREFIX = 0,  /* keep the shortest leading part (up to half) that holds */
    CD_REDUCE_LINES,       /* delete lines and runs of lines */
    CD_REDUCE_ELEMENTS,    /* delete markup elements, start tag to matching end tag */
    CD_REDUCE_KINDS,       /* delete, empty or strip every element (attribute) of a name at once */
    CD_REDUCE_BRACKETS,    /* delete balanced (), [], {}, <> spans, or their contents */
    CD_REDUCE_ITEMS,       /* delete comma-separated items of (), [], {} lists */
    CD_REDUCE_HOIST,       /* replace a (), [], {} span by one of the values inside it */
    CD_REDUCE_SPACES,      /* delete runs of blanks, then of line breaks, many at once */
    CD_REDUCE_WORDS,       /* cut the words of quoted strings short, then drop them */
    CD_REDUCE_CHUNKS,      /* delete length-prefixed chunks (binary TLV formats) whole */
    CD_REDUCE_CHECKED,     /* reduce inside CRC-checked chunks (PNG family), repairing them */
    CD_REDUCE_LENGTHS,     /* halve a textual length and the span it counts together */
    CD_REDUCE_DIGITS,      /* shrink runs of decimal digits */
    CD_REDUCE_BLOCKS,      /* adaptive block deletion, large blocks down to small ones */
    CD_REDUCE_BYTES,       /* lower single bytes toward 0 (0 first, then binary search) */
    CD_REDUCE_PAIRS,       /* lower every copy of a repeated byte value together */
    CD_REDUCE_NPASSES
};

/* Lowering passes run only on examples up to this size. Lowering removes no byte; it makes small
 * examples canonical and finds some labels (a lowered byte takes another branch), but it costs
 * about two executions per byte, and a lowered copy made for one label is no longer shared with
 * the labels the original served. Measured to completion on 100 JSON sample files: at 1024,
 * 652k executions, 17.6 KB of seeds, 1,210 labels; at 256, 558k, 16.3 KB, 1,197. */
#define CD_REDUCE_LOWER_MAX 256

/* The blocks pass's finest block is len/CD_REDUCE_BLOCK_STEPS bytes (at least 1), so that one
 * sweep of a long example costs about twice this many candidates, not two per byte. A label whose
 * example must stay long (a buffer that grows past 32 KiB, 128 records of a list) took one
 * candidate per byte to confirm, each an execution, with a byte or two at most to gain. */
#define CD_REDUCE_BLOCK_STEPS 1024

/* The prefix pass's shortest prefix: shorter ones would rarely hold and cost a candidate each. */
#define CD_REDUCE_PREFIX_MIN 16

/* Counters of one pass. */
struct cd_reduce_stats {
    uint64_t execs;        /* candidates tested */
    uint64_t successes;    /* candidates adopted */
    uint64_t bytes_removed;
};

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

/* Tests cand[0..len) (len <= r->len; strictly shortlex-smaller than cur); on acceptance it becomes
 * cur. Returns whether it was adopted; false without testing once stopped. */
bool cd_reduce_try(struct cd_reduce_run *r, size_t len);

/* The passes: each runs once over cur, adopting what the predicate accepts. They return whether
 * any candidate was adopted. */
bool cd_reduce_prefix(struct cd_reduce_run *r);
bool cd_reduce_lines(struct cd_reduce_run *r);
bool cd_reduce_elements(struct cd_reduce_run *r);
bool cd_reduce_kinds(struct cd_reduce_run *r);
bool cd_reduce_brackets(struct cd_reduce_run *r);
bool cd_reduce_items(struct cd_reduce_run *r);
bool cd_reduce_hoist(struct cd_reduce_run *r);
bool cd_reduce_spaces(struct cd_reduce_run *r);
bool cd_reduce_words(struct cd_reduce_run *r);
bool cd_reduce_blocks(struct cd_reduce_run *r);
bool cd_reduce_digits(struct cd_reduce_run *r);
bool cd_reduce_chunks(struct cd_reduce_run *r);
bool cd_reduce_checked(struct cd_reduce_run *r);
bool cd_reduce_lengths(struct cd_reduce_run *r);
bool cd_reduce_bytes(struct cd_reduce_run *r);
bool cd_reduce_pairs(struct cd_reduce_run *r);

/* Returns the pass's short name ("lines", "blocks", ...). */
const char *cd_reduce_pass_name(enum cd_reduce_pass pass);

/* A pass: runs once over r->cur, adopting what the predicate accepts; returns whether it did. */
typedef bool (*cd_reduce_pass_fn_t)(struct cd_reduce_run *r);

/* Returns the function of pass (one of the cd_reduce_* passes above), NULL for no pass. */
cd_reduce_pass_fn_t cd_reduce_pass_fn(enum cd_reduce_pass pass);

/* A reducer: counters per pass, which also order the passes: deleting passes before lowering
 * ones, deleting passes by bytes removed per execution and lowering ones by successes per
 * execution (the default order breaks ties). Zero-initialise, then use; nothing to release. */
struct cd_reducer {
    struct cd_reduce_stats stats[CD_REDUCE_NPASSES];
};

/* Reduces the len bytes at data under target until no pass adopts anything, or the stop check
 * fires. Passes run in yield order, and after any pass adopts something the sequence starts again
 * from the first, so costly passes (byte lowering) run only once cheaper ones are exhausted. On return *out (owned, free with free()) and *out_len hold the reduced
 * example (equal to the input when nothing was adopted) and *changed whether anything was.
 * OK at a fixpoint, WARN when stopped early, FAILED when out of memory. */
enum cd_status cd_reducer_run(struct cd_reducer *red, const struct cd_reduce_target *target,
                              const uint8_t *data, size_t len, uint8_t **out, size_t *out_len,
                              bool *changed, struct cd_error *err);

#endif
