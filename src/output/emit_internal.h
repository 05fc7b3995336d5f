/* What emit's own files share (emit.c writes the output, emit_check.c decides what may be written
 * over). Nothing outside src/output/emit*.c includes this. */
#ifndef CD_EMIT_INTERNAL_H
#define CD_EMIT_INTERNAL_H

#include "cd_emit.h"

/* Removes the directories earlier interrupted runs left beside parent/base (".BASE.tmp-*",
 * ".BASE.old-*", this user's only), except keep (NULL: none). */
void emit_remove_leftovers(const char *parent, const char *base, const char *keep);

#endif
