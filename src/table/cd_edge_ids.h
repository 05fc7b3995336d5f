/* Edge IDs: what afl-clang-lto documents about its map. With AFL_LLVM_DOCUMENT_IDS naming a file at
 * build time, afl-clang-lto writes one line per edge it instruments ("ModuleID=... Function=NAME
 * edgeID=N"); an LTO build gives every edge its own map slot, so a coverage label can say which
 * function it is in. Other builds (afl-clang-fast, afl-gcc) document nothing. */
#ifndef CD_EDGE_IDS_H
#define CD_EDGE_IDS_H

#include "common/cd_common.h"

struct cd_edge_ids;

/* Loads the ID file at path into *out (owned, free with cd_edge_ids_free). FAILED with a one-line
 * message naming the file when it cannot be read, documents no edge, or memory runs out. */
enum cd_status cd_edge_ids_load(const char *path, struct cd_edge_ids **out, struct cd_error *err);

/* The function that coverage label id is in, or NULL when ids is NULL, id is an outcome label or
 * its slot is not documented. Valid until cd_edge_ids_free. */
const char *cd_edge_ids_function(const struct cd_edge_ids *ids, uint32_t id);

/* How many map slots the file documents. */
size_t cd_edge_ids_count(const struct cd_edge_ids *ids);

/* Frees the table; NULL is a no-op. */
void cd_edge_ids_free(struct cd_edge_ids *ids);

#endif
