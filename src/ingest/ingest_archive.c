/* Archive operands: libarchive streams each regular entry into the ingest buffer, never to disk,
 * reading at most limit + 1 bytes of an entry whatever its header claims, so a zip bomb or a lying
 * header costs time but never memory. Damage ends the archive with one warning after its good
 * entries. Only operands are probed here: entries are never opened as archives themselves. */
#include "ingest_internal.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libarchive's read size: large blocks mean fewer read calls on big archives. */
#define ING_AR_BLOCK ((size_t)1 << 20)

/* How many damaged headers in a row libarchive may ask us to retry before we give up. */
#define ING_AR_MAX_RETRIES 64

/* Every format but raw and empty (which would make any file an archive) and mtree (which names
 * files on this machine to read). ISO 9660 is probed on its own, second: its bidder reads far
 * ahead, and registered beside tar it makes libarchive 3.6 report a short, truncated tar as a
 * clean end of archive. */
static int (*const formats[])(struct archive *) = {
    archive_read_support_format_7zip, archive_read_support_format_ar,
    archive_read_support_format_cab,  archive_read_support_format_cpio,
    archive_read_support_format_lha,  archive_read_support_format_rar,
    archive_read_support_format_rar5, archive_read_support_format_tar,
    archive_read_support_format_warc, archive_read_support_format_xar,
    archive_read_support_format_zip,
};

/* An archive being read. */
struct ing_archive {
    struct archive *ar;          /* the reader; NULL once damage has ended the archive */
    int fd;                      /* its descriptor, or -1 (stdin is not ours to close) */
    struct ing_pipe *pipe;       /* the decompression thread feeding ar, or NULL */
    struct archive_entry *entry; /* the header the probe read, owned by ar */
    bool header_ready;           /* the probe already read the first header */
    unsigned retries;            /* consecutive ARCHIVE_RETRY headers */
    char *last;                  /* escaped name of the last entry read, for messages */
    size_t last_cap;
    bool claimed;                /* the operand is an archive (perhaps an empty one on stdin) */
};

static void archive_close(void *state);

/* The cause of a reader's failure: the decompression thread's own, when it ended the stream (the
 * reader would only see a truncated archive), else libarchive's. */
static const char *ar_msg(const struct ing_archive *x, struct archive *a)
{
    const char *m = ing_pipe_error(x->pipe);
    if (m)
        return m;
    m = archive_error_string(a);
    return m && *m ? m : "unknown error";
}

static const char *operand(const struct cd_ingest *ing)
{
    return ing->opts.operands[ing->cur];
}

/* Remembers the escaped name of the entry just read, for later messages. */
static enum cd_status set_last(struct ing_archive *x, const char *entry, struct cd_error *err)
{
    size_t len = 0;
    if (ing_escape_append(&x->last, &x->last_cap, &len, entry) != 0)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    return CD_OK;
}

/* True when a failed first header means "no format recognised": the file is not an archive. */
static bool not_an_archive(struct archive *a)
{
    const char *m = archive_error_string(a);
    return archive_format(a) == 0 && m && strncmp(m, "Unrecognized archive format", 27) == 0;
}

static int probe_with(int fd, bool iso, bool filters, struct archive **out,
                      struct archive_entry **entry);

/* Opens a reader on fd with every filter and either the main formats or ISO 9660 alone, and
 * reads the first header. Returns the libarchive status; *out is the reader, or NULL when out of
 * memory. */
static int probe(int fd, bool iso, struct archive **out, struct archive_entry **entry)
{
    return probe_with(fd, iso, true, out, entry);
}

/* Reopens the archive file at fd, which the probe found to be compressed, with decompression in a
 * thread ahead of the reader, replacing *a and setting *pipe_out. Returns the status of the new
 * reader's first header; when the thread cannot be started, returns ARCHIVE_FATAL with *a
 * unchanged and carrying the message. */
static int pipelined(const struct cd_ingest *ing, int fd, struct archive **a,
                     struct archive_entry **entry, struct ing_pipe **pipe_out)
{
    struct archive *b = NULL;
    struct ing_pipe *pipe = NULL;
    int e = lseek(fd, 0, SEEK_SET) == 0 ? 0 : errno;
    int r = e ? ARCHIVE_FATAL : probe_with(-1, false, false, &b, entry);
    if (!e && !b)
        e = ENOMEM;
    if (!e && (e = ing_pipe_open(&pipe, b, fd, &ing->opts)) != 0)
        archive_read_free(b);
    if (e) {
        archive_set_error(*a, e, "cannot start decompression: %s", strerror(e));
        return ARCHIVE_FATAL;
    }
    r = archive_read_next_header(b, entry);
    archive_read_free(*a);
    *a = b;
    *pipe_out = pipe;
    return r;
}

/* The probe's work: a reader with every filter (or none, when filters is false: the caller
 * decompresses) and either the main formats or ISO 9660 alone, opened on fd (unless fd is -1)
 * with its first header read. */
static int probe_with(int fd, bool iso, bool filters, struct archive **out,
                      struct archive_entry **entry)
{
    struct archive *a = archive_read_new();
    *out = NULL;
    if (!a)
        return ARCHIVE_FATAL;
    /* Filters that need a missing external program only warn here; they fail if ever used. */
    int r = filters ? archive_read_support_filter_all(a) : ARCHIVE_OK;
    if (iso && r >= ARCHIVE_WARN)
        r = archive_read_support_format_iso9660(a);
    for (size_t k = 0; !iso && k < sizeof formats / sizeof formats[0] && r >= ARCHIVE_WARN; k++)
        r = formats[k](a);
    if (r < ARCHIVE_WARN) {
        archive_read_free(a);
        return ARCHIVE_FATAL;
    }
    *out = a;
    if (fd < 0)
        return ARCHIVE_OK;
    r = archive_read_open_fd(a, fd, ING_AR_BLOCK);
    if (r >= ARCHIVE_WARN)
        r = archive_read_next_header(a, entry);
    return r;
}

/* Ends the archive after damage, or at its close: the reader, then the thread that feeds it. */
static void end_reader(struct ing_archive *x)
{
    if (x->ar)
        archive_read_free(x->ar);
    x->ar = NULL;
    x->entry = NULL;
    x->header_ready = false;
    ing_pipe_free(x->pipe);
    x->pipe = NULL;
}

static enum cd_status unreadable(struct cd_ingest *ing, struct cd_error *err)
{
    ing_skip(ing, CD_SKIP_UNREADABLE);
    return cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
}

/* Probes the file at fd (or stdin when fd is -1) for an archive. OK with x->claimed when it is
 * one: x->ar is the reader on its first header, or NULL for an empty archive on stdin. OK without
 * x->claimed for a file that is no archive or one without entries (fd rewound, to be read raw).
 * WARN for a damaged archive, stdin holding none, or a file that cannot be rewound; FAILED when
 * out of memory or stdin's decompression thread cannot start. */
static enum cd_status probe_archive(struct cd_ingest *ing, struct ing_archive *x, int fd,
                                    struct cd_error *err)
{
    bool is_stdin = fd < 0;
    struct archive *a = NULL;
    struct archive_entry *entry = NULL;
    int r;
    if (is_stdin) {
        /* Stdin cannot be read twice: decompress it in a thread from the start (an uncompressed
         * stream passes through), and probe the formats on what comes out. */
        r = probe_with(-1, false, false, &a, &entry);
        int e = a ? ing_pipe_open(&x->pipe, a, STDIN_FILENO, &ing->opts) : 0;
        if (e) {
            archive_read_free(a);
            return e == ENOMEM ? cd_error_oom(err, CD_FAILED, "out of memory")
                               : cd_error_set(err, CD_FAILED, "cannot read '-': %s", strerror(e));
        }
        if (a)
            r = archive_read_next_header(a, &entry);
    } else {
        r = probe(fd, false, &a, &entry);
    }
    /* No entries at all is no evidence of an archive: a tar bidder takes any file that starts
     * with a zero block (an ISO 9660 image does) for an empty tar. */
    bool none = a && (r == ARCHIVE_EOF || (r < ARCHIVE_WARN && not_an_archive(a)));
    if (none && !is_stdin) {
        /* Stdin cannot be rewound, so it is never probed for ISO 9660. */
        archive_read_free(a);
        if (lseek(fd, 0, SEEK_SET) != 0)
            return unreadable(ing, err);
        r = probe(fd, true, &a, &entry);
        none = a && (r == ARCHIVE_EOF || (r < ARCHIVE_WARN && not_an_archive(a)));
    }
    if (!a)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    if (none && !is_stdin) {
        archive_read_free(a);
        return lseek(fd, 0, SEEK_SET) == 0 ? CD_OK : unreadable(ing, err);
    }
    if (r >= ARCHIVE_WARN && !is_stdin && archive_filter_count(a) > 1 &&
        archive_format(a) != ARCHIVE_FORMAT_ISO9660) {
        /* A compressed archive: start again with decompression in its own thread, which also
         * bounds what the filters may produce (an entry in a compressed stream is skipped by
         * decompressing it, which the reader itself could not stop). */
        r = pipelined(ing, fd, &a, &entry, &x->pipe);
    }
    if (r == ARCHIVE_EOF) { /* an empty archive on stdin (after the probe's entry: be safe) */
        ing->stats.archives++;
        x->claimed = true;
        archive_read_free(a); /* the reader before the thread that feeds it, in archive_close */
        return CD_OK;
    }
    if (r < ARCHIVE_WARN) {
        ing_skip(ing, CD_SKIP_BAD_ARCHIVE);
        enum cd_status st = cd_error_set(err, CD_WARN, "bad archive '%s': %s", ing->name,
                                         ar_msg(x, a));
        archive_read_free(a);
        return st;
    }
    ing->stats.archives++;
    x->claimed = true;
    x->ar = a;
    x->entry = entry;
    x->header_ready = true;
    return CD_OK;
}

/* Claims a regular file or stdin that holds an archive, unless archives are read raw. A file
 * without one is declined (rewound for the file source); stdin, which cannot be read twice, is
 * a bad archive then. */
static enum cd_status archive_open(struct cd_ingest *ing, struct ing_operand *op, void **state,
                                   struct cd_error *err)
{
    *state = NULL;
    if (ing->opts.archives_as_raw || (!op->is_stdin && !S_ISREG(op->sb.st_mode)))
        return CD_OK;
    struct ing_archive *x = calloc(1, sizeof *x);
    if (!x)
        return cd_error_oom(err, CD_FAILED, "out of memory");
    x->fd = -1;
    int fd = op->is_stdin ? -1 : op->fd;
    enum cd_status st = probe_archive(ing, x, fd, err);
    if (st == CD_OK && x->claimed) {
        if (x->ar && !op->is_stdin) {
            x->fd = fd; /* the archive reader owns it now */
            op->fd = -1;
        }
        *state = x;
        return CD_OK;
    }
    archive_close(x);
    return st;
}

/* Reads the entry's data into the buffer, stopping at limit + 1 bytes. Returns OK with *len set,
 * or WARN (too large, or a bad entry: the archive is closed if the damage is fatal). */
static enum cd_status read_entry(struct cd_ingest *ing, struct ing_archive *x,
                                 struct archive_entry *e, size_t *len, struct cd_error *err)
{
    size_t n = 0;
    for (;;) {
        if (n == ing->buf_cap && ing_buf_reserve(ing, n + 1) != 0)
            return cd_error_oom(err, CD_FAILED, "out of memory");
        la_ssize_t got = archive_read_data(x->ar, ing->buf + n, ing->buf_cap - n);
        if (got == 0)
            break;
        if (got < 0) {
            ing_skip(ing, CD_SKIP_BAD_ARCHIVE);
            cd_error_set(err, CD_WARN, "bad entry '%s': %s", ing->name, ar_msg(x, x->ar));
            if (got <= ARCHIVE_FATAL)
                end_reader(x);
            return CD_WARN;
        }
        n += (size_t)got;
        if (n > ing->limit) {
            ing_skip(ing, CD_SKIP_TOO_LARGE);
            if (archive_entry_size_is_set(e) && archive_entry_size(e) > (la_int64_t)ing->limit)
                return cd_error_set(err, CD_WARN,
                                    "skipping '%s' (%lld bytes): larger than the %zu-byte limit",
                                    ing->name, (long long)archive_entry_size(e), ing->limit);
            return cd_error_set(err, CD_WARN, "skipping '%s': larger than the %zu-byte limit",
                                ing->name, ing->limit);
        }
    }
    *len = n;
    return CD_OK;
}

/* Reads the next header; returns OK with *e set, DONE at the end, or WARN for damage. */
static enum cd_status next_header(struct cd_ingest *ing, struct ing_archive *x,
                                  struct archive_entry **e, struct cd_error *err)
{
    if (x->header_ready) {
        x->header_ready = false;
        *e = x->entry;
        return CD_OK;
    }
    int r = archive_read_next_header(x->ar, e);
    if (r == ARCHIVE_EOF)
        return CD_DONE;
    if (r >= ARCHIVE_WARN) {
        x->retries = 0;
        return CD_OK;
    }
    ing_skip(ing, CD_SKIP_BAD_ARCHIVE);
    const char *last = x->last && x->last[0] ? x->last : NULL;
    CD_FORWARD_IF_ERROR(ing_name_set(ing, operand(ing), NULL, NULL, err));
    if (r == ARCHIVE_RETRY && ++x->retries <= ING_AR_MAX_RETRIES)
        return cd_error_set(err, CD_WARN, "bad entry in '%s'%s%s%s: %s", ing->name,
                            last ? " after '" : "", last ? last : "", last ? "'" : "",
                            ar_msg(x, x->ar));
    cd_error_set(err, CD_WARN, "bad archive '%s'%s%s%s: %s", ing->name,
                 last ? " after entry '" : "", last ? last : "", last ? "'" : "",
                 ar_msg(x, x->ar));
    end_reader(x);
    return CD_WARN;
}

/* The entry's name, in UTF-8 where libarchive can convert it. An ASCII name is taken as stored:
 * libarchive's conversion opens an iconv converter per call, a sixth of a first pass's
 * instructions on an archive of small files. */
static const char *entry_name(struct archive_entry *e)
{
    const char *raw = archive_entry_pathname(e);
    bool ascii = raw != NULL;
    for (const unsigned char *p = (const unsigned char *)raw; ascii && *p; p++)
        ascii = *p < 0x80;
    if (ascii)
        return raw;
    const char *utf8 = archive_entry_pathname_utf8(e);
    return utf8 ? utf8 : raw ? raw : "(unnamed)";
}

static enum cd_status archive_next(struct cd_ingest *ing, void *state, struct cd_input *in,
                                   struct cd_error *err)
{
    struct ing_archive *x = state;
    while (x->ar) {
        struct archive_entry *e = NULL;
        enum cd_status st = next_header(ing, x, &e, err);
        if (st != CD_OK)
            return st;
        const char *path = entry_name(e);
        CD_FORWARD_IF_ERROR(set_last(x, path, err));
        mode_t type = archive_entry_filetype(e);
        if (type == AE_IFDIR)
            continue; /* structure, not an item */
        if (type == 0)
            type = AE_IFREG; /* formats without file types (ar written deterministically) */
        bool link_only = archive_entry_hardlink(e) &&
                         (!archive_entry_size_is_set(e) || archive_entry_size(e) == 0);
        if (type != AE_IFREG || link_only) {
            ing_skip(ing, CD_SKIP_NOT_REGULAR);
            continue;
        }
        CD_FORWARD_IF_ERROR(ing_name_set(ing, operand(ing), ":", path, err));
        size_t len = 0;
        st = read_entry(ing, x, e, &len, err);
        if (st != CD_OK)
            return st;
        st = ing_emit(ing, len, in);
        if (st != CD_DONE)
            return st;
    }
    return CD_DONE;
}

static void archive_close(void *state)
{
    struct ing_archive *x = state;
    if (!x)
        return;
    end_reader(x);
    if (x->fd >= 0)
        close(x->fd);
    free(x->last);
    free(x);
}

const struct ing_source ing_source_archive = {"archive", archive_open, archive_next,
                                              archive_close};
