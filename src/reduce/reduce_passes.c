/* The reducer's pass registry: one row per pass, in default order, which breaks ties between
 * passes of equal yield. Cheap, structure-aware cuts come first; the blocks pass, which costs
 * about two candidates per sweep step whatever the format, comes after them; the lowering
 * passes, which remove no byte, come last. */
#include "reduce_internal.h"

#include <string.h>

const struct cd_reduce_pass_def cd_reduce_passes[] = {
    {"prefix", cd_reduce_prefix, CD_PASS_DELETE, CD_FRONT_LONG, false},
    {"image", cd_reduce_image, CD_PASS_DELETE, CD_FRONT_LONG, false},
    {"suffix", cd_reduce_suffix, CD_PASS_DELETE, CD_FRONT_NONE, false},
    {"lines", cd_reduce_lines, CD_PASS_DELETE, CD_FRONT_NONE, true},
    {"elements", cd_reduce_elements, CD_PASS_DELETE, CD_FRONT_NONE, true},
    {"kinds", cd_reduce_kinds, CD_PASS_DELETE, CD_FRONT_NONE, true},
    {"brackets", cd_reduce_brackets, CD_PASS_DELETE, CD_FRONT_NONE, true},
    {"items", cd_reduce_items, CD_PASS_DELETE, CD_FRONT_NONE, true},
    {"hoist", cd_reduce_hoist, CD_PASS_DELETE, CD_FRONT_NONE, true},
    {"uniform", cd_reduce_uniform, CD_PASS_DELETE, CD_FRONT_LONG, true},
    {"spaces", cd_reduce_spaces, CD_PASS_DELETE, CD_FRONT_NONE, false},
    {"words", cd_reduce_words, CD_PASS_DELETE, CD_FRONT_NONE, false},
    {"chunks", cd_reduce_chunks, CD_PASS_DELETE, CD_FRONT_NONE, false},
    {"checked", cd_reduce_checked, CD_PASS_DELETE, CD_FRONT_NONE, false},
    {"lengths", cd_reduce_lengths, CD_PASS_DELETE, CD_FRONT_NONE, false},
    {"digits", cd_reduce_digits, CD_PASS_DELETE, CD_FRONT_NONE, false},
    {"blocks", cd_reduce_blocks, CD_PASS_DELETE, CD_FRONT_COARSE, false},
    {"bytes", cd_reduce_bytes, CD_PASS_LOWER, CD_FRONT_NONE, false},
    {"pairs", cd_reduce_pairs, CD_PASS_LOWER, CD_FRONT_NONE, false},
};

#define N_PASSES (sizeof cd_reduce_passes / sizeof cd_reduce_passes[0])
_Static_assert(N_PASSES <= CD_REDUCE_PASSES_MAX, "raise CD_REDUCE_PASSES_MAX");

unsigned cd_reduce_n_passes(void)
{
    return N_PASSES;
}

const char *cd_reduce_pass_name(unsigned i)
{
    return i < N_PASSES ? cd_reduce_passes[i].name : "?";
}

unsigned cd_reduce_pass_find(const char *name)
{
    unsigned i = 0;
    while (i < N_PASSES && strcmp(cd_reduce_passes[i].name, name) != 0)
        i++;
    return i;
}
