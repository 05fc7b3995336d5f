/* Ingest: command-line operands (files, directories, archives of any format libarchive reads, "-"
 * for an archive on stdin) become a stream of inputs, each a provenance name and its bytes. It
 * streams archives without extracting them, holds one input at a time, and knows nothing of
 * execution. Files found inside directories and archives are inputs as they are, never opened as
 * archives. */
#ifndef CD_INGEST_H
#define CD_INGEST_H

#include "cd_common.h"

/* Why an item was skipped; the summary counts each. */
enum cd_skip {
    CD_SKIP_TOO_LARGE = 0, /* larger than max_input_size */
    CD_SKIP_UNREADABLE,    /* could not be opened or read */
    CD_SKIP_BAD_ARCHIVE,   /* a corrupt or truncated archive, or a bad entry in one */
    CD_SKIP_EMPTY,         /* zero bytes */
    CD_SKIP_NOT_REGULAR,   /* a symlink leaving the tree, device, fifo, socket */
    CD_SKIP_COUNT
};

struct cd_ingest_opts {
    const char *const *operands; /* paths, or "-" for an archive on stdin; borrowed */
    size_t n_operands;
    size_t max_input_size;       /* larger inputs are skipped; 0 means 1 MiB */
    bool archives_as_raw;        /* treat archive operands as one raw input each */
    bool skip_empty;             /* skip zero-byte inputs (afl-fuzz ignores them too) */
};

/* One input: valid until the next cd_ingest_next call or cd_ingest_free. */
struct cd_input {
    const char *name;            /* provenance: "in.tar.zst:dir/a.xml", "crawl/b.xml" */
    const uint8_t *data;
    size_t size;
    size_t operand;              /* index of the operand it came from */
};

/* Counters of what ingest has read so far. */
struct cd_ingest_stats {
    uint64_t inputs;             /* inputs returned */
    uint64_t bytes;              /* their total size */
    uint64_t archives;           /* archive operands opened */
    uint64_t skipped[CD_SKIP_COUNT];
};

struct cd_ingest;

/* Creates a reader over the operands. A nonexistent operand is reported by cd_ingest_next, in
 * order, not here. On success *out is owned, free with cd_ingest_free. */
enum cd_status cd_ingest_new(struct cd_ingest **out, const struct cd_ingest_opts *opts,
                             struct cd_error *err);

/* Returns the next input in a deterministic order: OK with *in filled; WARN when an item was
 * skipped (err names operand, entry and cause; the stream goes on); DONE at the end; FAILED on an
 * unrecoverable error (out of memory, stdin unreadable). */
enum cd_status cd_ingest_next(struct cd_ingest *ing, struct cd_input *in, struct cd_error *err);

/* Returns the counters; valid until cd_ingest_free. */
const struct cd_ingest_stats *cd_ingest_stats(const struct cd_ingest *ing);

/* Returns a static name for a skip reason ("too large", "unreadable", ...). */
const char *cd_ingest_skip_name(enum cd_skip why);

/* Frees the reader and what it holds. NULL is a no-op. */
void cd_ingest_free(struct cd_ingest *ing);

#endif
