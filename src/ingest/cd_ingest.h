/* Ingest: command-line operands (files, directories, archives of any format libarchive reads, "-"
 * for an archive on stdin) become a stream of inputs, each a provenance name and its bytes. It
 * streams archives without extracting them, holds one input at a time, and knows nothing of
 * execution. Files found inside directories and archives are inputs as they are, never opened as
 * archives.
 *
 * What each kind of operand yields, in operand order:
 * - A directory: every regular file below it, recursively; at each level the entry names are
 *   sorted bytewise, so the order does not depend on the file system. Symbolic links are never
 *   followed (neither to files nor to directories), so a walk cannot leave the tree or loop; they
 *   are counted as CD_SKIP_NOT_REGULAR, like fifos, sockets and devices. Sorting is per level, so
 *   "a/y" comes before "a.txt". The provenance name is the operand as given joined with the
 *   relative path: "crawl/sub/b.xml". An afl-fuzz instance met anywhere in the walk (a directory
 *   holding "queue" and one of "fuzzer_stats", "fuzzer_setup", "cmdline") yields only the files
 *   named "id:..." or "id_..." directly in its queue/, crashes/ and hangs/; its other files are
 *   afl-fuzz's state, neither inputs nor counted as skipped.
 * - A regular file that libarchive recognises as an archive (any compression filter; the formats
 *   tar, cpio, zip, 7z, ar, cab, iso9660, lha, rar, rar5, warc, xar): one input per regular entry,
 *   read from the archive stream and never extracted; provenance "in.tar.zst:dir/a.xml". The
 *   "raw", "empty" and "mtree" formats are not enabled: the first two would make any file an
 *   archive, and an mtree file names files on this machine to read. Directory entries are
 *   structure and are not counted; symbolic links, hard links and devices inside an archive count
 *   as CD_SKIP_NOT_REGULAR; an entry without a file type (ar) is regular. Entries come in the
 *   archive's own order.
 * - Any other file is one input named as given, including a compressed single file that holds no
 *   archive (a bare .gz or .zst is one input, its compressed bytes as they are), an empty file, and
 *   an archive without entries (a tar reader takes any file that starts with a zero block for an
 *   empty tar, so "no entries" does not prove an archive). A named fifo or device is read as one
 *   input too (bounded by the size limit).
 * - "-": an archive read from stdin, provenance "-:dir/a"; stdin that is not an archive is reported
 *   as a bad archive (its bytes are consumed by the probe and cannot be re-read). With
 *   archives_as_raw, "-" is all of stdin as one input named "-", read like a FIFO operand.
 * Memory: one input is held at a time, in one buffer that grows up to max_input_size + 1 bytes; an
 * archive entry is read as a stream and abandoned at that size whatever its header claims. A
 * compressed archive file, and an archive on stdin, is decompressed by one helper thread running
 * ahead of the reader (at most 4 MiB buffered); the thread lives while that archive is read and is
 * joined before cd_ingest_next moves on or cd_ingest_free returns. It touches no descriptor but
 * the archive's, so a fork followed by exec elsewhere in the process is unaffected.
 * Time: an entry in a compressed stream can only be passed by decompressing it, so the filters
 * (all of them: .tar.zst.zst counts once) may produce at most inflate_floor bytes plus
 * CD_INGEST_INFLATE_RATIO times the compressed bytes read so far; past that the archive is
 * reported as a decompression bomb after the entries before. Compression inside a format (zip,
 * 7z) is undone by the reader itself and is not counted. Stdin waits like a FIFO operand: at most
 * stream_idle_ms without data, and not past the stop flag or the deadline.
 * Names are labels only: nothing is ever written under them. "../" and absolute paths inside
 * archives are kept as they are; control bytes (below 0x20, and 0x7f) and backslashes are escaped
 * as "\xNN" and "\\" so that every name is one printable line. */
#ifndef CD_INGEST_H
#define CD_INGEST_H

#include "common/cd_common.h"

#include <signal.h>

/* Why an item was skipped; the summary counts each. */
enum cd_skip {
    CD_SKIP_TOO_LARGE = 0, /* larger than max_input_size */
    CD_SKIP_UNREADABLE,    /* could not be opened or read, or does not exist */
    CD_SKIP_BAD_ARCHIVE,   /* a corrupt or truncated archive, or a bad entry in one */
    CD_SKIP_EMPTY,         /* zero bytes, skipped because skip_empty is set */
    CD_SKIP_NOT_REGULAR,   /* a symlink (never followed), device, fifo, socket, hard link entry */
    CD_SKIP_COUNT
};

/* Default for cd_ingest_opts.max_input_size: 1 MiB, like AFL++'s MAX_FILE. */
#define CD_INGEST_DEFAULT_MAX_SIZE ((size_t)1 << 20)

struct cd_ingest_opts {
    const char *const *operands; /* paths, or "-" for an archive on stdin; borrowed until
                                    cd_ingest_free */
    size_t n_operands;
    size_t max_input_size;       /* larger inputs are skipped; 0 means CD_INGEST_DEFAULT_MAX_SIZE */
    bool archives_as_raw;        /* treat archive operands (and "-") as one raw input each */
    bool skip_empty;             /* skip zero-byte inputs (afl-fuzz ignores them too) */
    /* Reading an operand that is no regular file (a FIFO, a character device) waits for data
       at most this long without any (0: CD_INGEST_STREAM_IDLE_MS), and gives up at once when
       *stop (may be NULL) is set or CLOCK_MONOTONIC passes deadline_ns (0: none). */
    unsigned stream_idle_ms;
    const volatile sig_atomic_t *stop;
    uint64_t deadline_ns;
    uint64_t inflate_floor;      /* 0: CD_INGEST_INFLATE_FLOOR (see Time above) */
    /* The run's own outputs (seed directory, reproducers, manifest, state, lock; NULL entries
       allowed), and own_prefix (may be NULL), the start of the hidden names its temporary files
       take (".seeds."): met inside a directory operand, none is read, so that an output under an
       input never becomes an input. Operands themselves are always read (the nightly run names
       its seed directory). Borrowed until cd_ingest_free. */
    const char *const *own;
    size_t n_own;
    const char *own_prefix;
};

/* The inflation bound of a compressed archive: CD_INGEST_INFLATE_FLOOR bytes plus
   CD_INGEST_INFLATE_RATIO times its compressed bytes (zstd reaches some thousands to one on
   zeros, each stacked filter multiplies that; real corpora compress 3 to 20 times). */
#define CD_INGEST_INFLATE_FLOOR ((uint64_t)1 << 30)
#define CD_INGEST_INFLATE_RATIO 1000u

/* Default of cd_ingest_opts.stream_idle_ms: a FIFO nobody writes to is given up after it. */
#define CD_INGEST_STREAM_IDLE_MS 30000

/* One input: valid until the next cd_ingest_next call or cd_ingest_free. */
struct cd_input {
    const char *name;            /* provenance: "in.tar.zst:dir/a.xml", "crawl/b.xml", printable */
    const uint8_t *data;         /* non-NULL even when size is 0 */
    size_t size;
    size_t operand;              /* index of the operand it came from */
};

/* Counters of what ingest has read so far. */
struct cd_ingest_stats {
    uint64_t inputs;             /* inputs returned */
    uint64_t bytes;              /* their total size */
    uint64_t empty;              /* zero-byte inputs returned (skipped ones are in skipped[]) */
    uint64_t archives;           /* archive operands opened */
    uint64_t skipped[CD_SKIP_COUNT];
};

struct cd_ingest;

/* Creates a reader over the operands. Nothing is opened here: a nonexistent operand is reported
 * by cd_ingest_next, in order. On success *out is owned, free with cd_ingest_free. Returns OK, or
 * FAILED (out of memory, or opts invalid) with err set. */
enum cd_status cd_ingest_new(struct cd_ingest **out, const struct cd_ingest_opts *opts,
                             struct cd_error *err);

/* Returns the next input in a deterministic order:
 * - OK with *in filled (valid until the next call);
 * - WARN when an item was skipped because it could not be read, was too large, or is damaged
 *   (err holds one line naming the operand, the entry and the cause, e.g. "cannot open 'x': No such
 *   file or directory", "skipping 'a.tar:big' (2097152 bytes): larger than the 1048576-byte
 *   limit"); the stream goes on with the next call. A damaged archive yields its good entries
 *   first, then one WARN, then the next operand. Symlinks, devices, fifos inside directories and
 *   skipped empty inputs are counted in the stats without a WARN; an operand that is a fifo or a
 *   device is read to its end as one input, and skipped with a WARN when nothing comes for
 *   stream_idle_ms, or at once when stop is set or the deadline passes;
 * - DONE at the end (at once for no operands or only empty directories); later calls return DONE;
 * - FATAL when out of memory part-way through an operand: the reader is unusable (every later
 *   call returns FATAL again) and should be freed.
 * An empty input set is not an error here: the caller decides. */
enum cd_status cd_ingest_next(struct cd_ingest *ing, struct cd_input *in, struct cd_error *err);

/* Returns the counters; valid until cd_ingest_free. */
const struct cd_ingest_stats *cd_ingest_stats(const struct cd_ingest *ing);

/* Returns a static name for a skip reason ("too large", "unreadable", "bad archive", "empty",
 * "not regular"), or "unknown". */
const char *cd_ingest_skip_name(enum cd_skip why);

/* Frees the reader and what it holds (open files, archive handles, buffers). NULL is a no-op. */
void cd_ingest_free(struct cd_ingest *ing);

#endif
