/* libFuzzer harness for the report writer (audit --html): the input is a manifest, a NUL byte,
 * then a source coverage record. Both are read as audit reads them (cd_manifest_read,
 * cd_srccov_load), and whatever loads is written as a report by cli_audit_html. No string of the
 * files may reach the HTML unescaped: every '<' of every page must open one of the tags the
 * writer itself writes, and no page may hold a script or an event attribute. Source files are not
 * read (the record is not checked against a build). Built and run by tests/fuzz/run.sh, which
 * adds the report writer's file to this harness. */
#define _GNU_SOURCE /* memmem */
#include "output/cd_manifest.h"
#include "output/cd_srccov.h"
#include "cli/cli.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const tags[] = {
    "html", "head", "meta", "title", "style", "body", "p", "a", "h1", "h2", "table", "tr", "th",
    "td", "pre", "code", "figure", "figcaption", "svg", "line", "polyline", "text", "rect",
};

/* Whether the page's every tag is one the writer writes, and no tag can run anything (an event
 * attribute, a javascript: link): text from the files is escaped, so it can open no tag and
 * close no attribute value. */
static bool page_sound(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '<')
            continue;
        if (i + 1 < n && s[i + 1] == '!')
            continue; /* <!DOCTYPE html> */
        size_t k = i + 1 + (i + 1 < n && s[i + 1] == '/'), m = 0;
        while (k + m < n && ((s[k + m] >= 'a' && s[k + m] <= 'z') ||
                             (m && s[k + m] >= '1' && s[k + m] <= '2')))
            m++;
        bool known = false;
        for (size_t t = 0; t < sizeof tags / sizeof *tags && !known; t++)
            known = strlen(tags[t]) == m && !strncmp(s + k, tags[t], m);
        const char *end = memchr(s + i, '>', n - i);
        size_t len = end ? (size_t)(end - (s + i)) : n - i;
        if (!known || memmem(s + i, len, "javascript:", 11))
            return false;
        for (const char *on = s + i; (on = memmem(on, len - (size_t)(on - (s + i)), " on", 3));
             on += 3)
            if (on + 3 < s + i + len && on[3] >= 'a' && on[3] <= 'z')
                return false;
    }
    return true;
}

static void write_file(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static void check_report(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static char buf[1 << 22];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        if (!page_sound(buf, n))
            abort();
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char work[64];
    if (!work[0]) {
        snprintf(work, sizeof work, "/tmp/fuzz-report-%d", (int)getpid());
        mkdir(work, 0700);
    }
    const uint8_t *nul = memchr(data, 0, size);
    size_t mlen = nul ? (size_t)(nul - data) : size;
    char manifest[128], record[128], report[128];
    snprintf(manifest, sizeof manifest, "%s/seeds.manifest.json", work);
    snprintf(record, sizeof record, "%s/seeds.source.json", work);
    snprintf(report, sizeof report, "%s/report", work);
    write_file(manifest, data, mlen);
    write_file(record, nul ? nul + 1 : data, nul ? size - mlen - 1 : 0);
    struct cd_manifest m;
    struct cd_srccov c;
    struct cd_error err;
    if (cd_manifest_read(manifest, &m, &err) != CD_OK)
        return 0;
    bool have = nul && cd_srccov_load(&c, record, &err) == CD_OK;
    struct cli_opts o = {.audit_html = report};
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    cli_audit_html(&o, &m, work, NULL, have && c.n_seeds ? &c : NULL);
    fclose(stderr);
    stderr = saved;
    check_report(report);
    if (have)
        cd_srccov_release(&c);
    cd_manifest_release(&m);
    return 0;
}
