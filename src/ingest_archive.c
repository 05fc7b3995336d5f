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

/* The cause of a reader's failure: the decompression thread's own, when it ended the stream (the
 * reader would only see a truncated archive), else libarchive's. */
static const char *ar_msg(const struct cd_ingest *ing, struct archive *a)
{
    const char *m = ing_pipe_error(ing->ar_pipe);
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
static enum cd_status set_last(struct cd_ingest *ing, const char *entry, struct cd_error *err)
{
    size_t len = 0;
    if (ing_escape_append(&ing->ar_last, &ing->ar_last_cap, &len, entry) != 0)
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
 * thread ahead of the reader, replacing *a and setting ing->ar_pipe. Returns the status of the
 * new reader's first header; when the thread cannot be started, returns ARCHIVE_FATAL with *a
 * unchanged and carrying the message. */
static int pipelined(struct cd_ingest *ing, int fd, struct archive **a,
                     struct archive_entry **entry)
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
    ing->ar_pipe = pipe;
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

static enum cd_status unreadable(struct cd_ingest *ing, struct cd_error *err)
{
    ing_skip(ing, CD_SKIP_UNREADABLE);
    return cd_error_sys(err, CD_WARN, "cannot read '%s': %s", ing->name, strerror(errno));
}

enum cd_status ing_archive_open(struct cd_ingest *ing, int fd, struct cd_error *err)
{
    bool is_stdin = fd < 0;
    enum cd_status st;
    struct archive *a = NULL;
    struct archive_entry *entry = NULL;
    int r;
    if (is_stdin) {
        /* Stdin cannot be read twice: decompress it in a thread from the start (an uncompressed
         * stream passes through), and probe the formats on what comes out. */
        r = probe_with(-1, false, false, &a, &entry);
        int e = a ? ing_pipe_open(&ing->ar_pipe, a, STDIN_FILENO, &ing->opts) : 0;
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
    if (none && is_stdin && r == ARCHIVE_EOF) { /* an empty archive on stdin */
        ing->stats.archives++;
        st = ING_AGAIN;
        goto out_pipe;
    }
    if (none && !is_stdin) {
        st = lseek(fd, 0, SEEK_SET) == 0 ? ING_NOT_ARCHIVE : unreadable(ing, err);
        goto out;
    }
    if (r >= ARCHIVE_WARN && !is_stdin && archive_filter_count(a) > 1 &&
        archive_format(a) != ARCHIVE_FORMAT_ISO9660) {
        /* A compressed archive: start again with decompression in its own thread, which also
         * bounds what the filters may produce (an entry in a compressed stream is skipped by
         * decompressing it, which the reader itself could not stop). */
        r = pipelined(ing, fd, &a, &entry);
        if (r == ARCHIVE_EOF) { /* cannot happen after the probe saw an entry; be safe */
            ing->stats.archives++;
            st = ING_AGAIN;
            goto out_pipe;
        }
    }
    if (r < ARCHIVE_WARN) {
        ing_skip(ing, CD_SKIP_BAD_ARCHIVE);
        st = cd_error_set(err, CD_WARN, "bad archive '%s': %s", ing->name, ar_msg(ing, a));
        goto out_pipe;
    }
    ing->stats.archives++;
    ing->ar = a;
    ing->ar_fd = is_stdin ? -1 : fd;
    ing->ar_entry = entry;
    ing->ar_header_ready = true;
    ing->ar_retries = 0;
    ing->state = ING_ARCHIVE;
    if (ing->ar_last)
        ing->ar_last[0] = '\0';
    return CD_OK;
out_pipe:
    archive_read_free(a); /* the reader before the thread that feeds it */
    a = NULL;
    ing_pipe_free(ing->ar_pipe);
    ing->ar_pipe = NULL;
out:
    archive_read_free(a);
    return st;
}

/* Reads the entry's data into the buffer, stopping at limit + 1 bytes. Returns OK with *len set,
 * or WARN (too large, or a bad entry: the archive is closed if the damage is fatal). */
static enum cd_status read_entry(struct cd_ingest *ing, struct archive_entry *e, size_t *len,
                                 struct cd_error *err)
{
    size_t n = 0;
    for (;;) {
        if (n == ing->buf_cap && ing_buf_reserve(ing, n + 1) != 0)
            return cd_error_oom(err, CD_FAILED, "out of memory");
        la_ssize_t got = archive_read_data(ing->ar, ing->buf + n, ing->buf_cap - n);
        if (got == 0)
            break;
        if (got < 0) {
            ing_skip(ing, CD_SKIP_BAD_ARCHIVE);
            cd_error_set(err, CD_WARN, "bad entry '%s': %s", ing->name, ar_msg(ing, ing->ar));
            if (got <= ARCHIVE_FATAL)
                ing_archive_close(ing);
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
static enum cd_status next_header(struct cd_ingest *ing, struct archive_entry **e,
                                  struct cd_error *err)
{
    if (ing->ar_header_ready) {
        ing->ar_header_ready = false;
        *e = ing->ar_entry;
        return CD_OK;
    }
    int r = archive_read_next_header(ing->ar, e);
    if (r == ARCHIVE_EOF)
        return CD_DONE;
    if (r >= ARCHIVE_WARN) {
        ing->ar_retries = 0;
        return CD_OK;
    }
    ing_skip(ing, CD_SKIP_BAD_ARCHIVE);
    const char *last = ing->ar_last && ing->ar_last[0] ? ing->ar_last : NULL;
    CD_FORWARD_IF_ERROR(ing_name_set(ing, operand(ing), NULL, NULL, err));
    if (r == ARCHIVE_RETRY && ++ing->ar_retries <= ING_AR_MAX_RETRIES)
        return cd_error_set(err, CD_WARN, "bad entry in '%s'%s%s%s: %s", ing->name,
                            last ? " after '" : "", last ? last : "", last ? "'" : "",
                            ar_msg(ing, ing->ar));
    cd_error_set(err, CD_WARN, "bad archive '%s'%s%s%s: %s", ing->name,
                 last ? " after entry '" : "", last ? last : "", last ? "'" : "",
                 ar_msg(ing, ing->ar));
    ing_archive_close(ing);
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

enum cd_status ing_archive_next(struct cd_ingest *ing, struct cd_input *in, struct cd_error *err)
{
    while (ing->ar) {
        struct archive_entry *e = NULL;
        enum cd_status st = next_header(ing, &e, err);
        if (st != CD_OK)
            return st;
        const char *path = entry_name(e);
        CD_FORWARD_IF_ERROR(set_last(ing, path, err));
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
        st = read_entry(ing, e, &len, err);
        if (st != CD_OK)
            return st;
        st = ing_emit(ing, len, in);
        if (st != ING_AGAIN)
            return st;
    }
    return CD_DONE;
}

void ing_archive_close(struct cd_ingest *ing)
{
    if (ing->ar) {
        archive_read_free(ing->ar);
        ing->ar = NULL;
    }
    ing_pipe_free(ing->ar_pipe); /* after the reader it feeds */
    ing->ar_pipe = NULL;
    if (ing->ar_fd >= 0) {
        close(ing->ar_fd);
        ing->ar_fd = -1;
    }
    ing->ar_entry = NULL;
    ing->ar_header_ready = false;
    if (ing->state == ING_ARCHIVE)
        ing->state = ING_IDLE;
}
