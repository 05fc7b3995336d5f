/* audit --html DIR: a static report that opens from disk, with no script and nothing fetched. An
 * overview (index.html) with the run's totals, plots drawn here as inline SVG (labels found and
 * finished over the run, seed bytes over the run, input against output bytes, seed sizes, labels
 * per seed) and, given a source coverage record, the functions no seed reaches; one page per
 * source file with each line coloured by how many seeds reach it and links to the smallest ones;
 * one page per seed and reproducer with what it covers and a text or hex preview. The report is
 * written into a new directory beside DIR, then renamed into place (swapped with an earlier
 * report, which is then removed), so that nothing planted in DIR is followed; DIR is replaced only
 * when an earlier report is all it holds. */
#include "common/cd_file.h"
#include "output/cd_srccov.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define GENERATOR "<meta name=\"generator\" content=\"corpus-distill audit\">"
/* Links to at most this many seeds per source line (the smallest). */
#define LINE_SEEDS 3
/* Bytes of a seed shown in its preview. */
#define PREVIEW 4096

/* Writes s with the HTML special characters escaped; n bytes, or up to the NUL when n is -1. */
static void esc(FILE *f, const char *s, long n)
{
    for (long i = 0; n < 0 ? s[i] != '\0' : i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '&')
            fputs("&amp;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c == '\t' || c == '\n' || c >= 0x20)
            fputc(c, f);
        else
            fprintf(f, "\\x%02x", c);
    }
}

static void page_start(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">" GENERATOR "<title>",
          f);
    esc(f, title, -1);
    fputs("</title><style>body{font:14px sans-serif;margin:1.5em;color:#222}"
          "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left}"
          "pre,code,.src td{font:12px monospace}.src td{padding:0 6px;white-space:pre}"
          ".n{color:#888;text-align:right}.hit{background:#d8f5d0}.hot{background:#a8e6a0}"
          ".miss{background:#fbd9d3}.plot{margin:1em 1em 1em 0;display:inline-block}"
          "h1{font-size:20px}h2{font-size:16px;margin-top:1.5em}</style></head><body>\n",
          f);
}

/* A line plot of up to two series over xs (n points), axes from 0 to their maxima. */
static void plot_lines(FILE *f, const char *title, const double *xs, const double *const *ys,
                       const char *const *names, int n_series, size_t n, const char *xunit)
{
    static const char *const colour[2] = {"#1f77b4", "#d62728"};
    double xmax = 1, ymax = 1;
    for (size_t i = 0; i < n; i++) {
        xmax = xs[i] > xmax ? xs[i] : xmax;
        for (int s = 0; s < n_series; s++)
            ymax = ys[s][i] > ymax ? ys[s][i] : ymax;
    }
    fprintf(f, "<figure class=\"plot\"><figcaption>");
    esc(f, title, -1);
    fprintf(f, "</figcaption><svg width=\"420\" height=\"220\" viewBox=\"0 0 420 220\" "
               "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">"
               "<line x1=\"50\" y1=\"190\" x2=\"410\" y2=\"190\" stroke=\"#444\"/>"
               "<line x1=\"50\" y1=\"10\" x2=\"50\" y2=\"190\" stroke=\"#444\"/>"
               "<text x=\"46\" y=\"16\" font-size=\"10\" text-anchor=\"end\">%.0f</text>"
               "<text x=\"46\" y=\"190\" font-size=\"10\" text-anchor=\"end\">0</text>"
               "<text x=\"410\" y=\"205\" font-size=\"10\" text-anchor=\"end\">%.0f %s</text>",
            ymax, xmax, xunit);
    for (int s = 0; s < n_series; s++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                colour[s]);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%.1f,%.1f ", 50 + 360 * xs[i] / xmax, 190 - 180 * ys[s][i] / ymax);
        fprintf(f, "\"/><text x=\"%d\" y=\"216\" font-size=\"10\" fill=\"%s\">", 60 + 150 * s,
                colour[s]);
        esc(f, names[s], -1);
        fputs("</text>", f);
    }
    fputs("</svg></figure>\n", f);
}

/* A bar chart of values[0..n), one bar each (labelled when names is non-NULL). */
static void plot_bars(FILE *f, const char *title, const double *values,
                      const char *const *names, size_t n)
{
    double max = 1;
    for (size_t i = 0; i < n; i++)
        max = values[i] > max ? values[i] : max;
    double w = n ? 360.0 / (double)n : 360;
    fprintf(f, "<figure class=\"plot\"><figcaption>");
    esc(f, title, -1);
    fprintf(f, "</figcaption><svg width=\"420\" height=\"220\" viewBox=\"0 0 420 220\" "
               "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">"
               "<line x1=\"50\" y1=\"190\" x2=\"410\" y2=\"190\" stroke=\"#444\"/>"
               "<text x=\"46\" y=\"16\" font-size=\"10\" text-anchor=\"end\">%.0f</text>"
               "<text x=\"46\" y=\"190\" font-size=\"10\" text-anchor=\"end\">0</text>",
            max);
    for (size_t i = 0; i < n; i++) {
        double h = 180 * values[i] / max;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#1f77b4\">"
                   "<title>%.0f</title></rect>",
                50 + w * (double)i + (w > 3 ? 1 : 0), 190 - h, w > 3 ? w - 2 : w, h, values[i]);
        if (names) {
            fprintf(f, "<text x=\"%.1f\" y=\"204\" font-size=\"10\" text-anchor=\"middle\">",
                    50 + w * ((double)i + 0.5));
            esc(f, names[i], -1);
            fputs("</text>", f);
        }
    }
    fputs("</svg></figure>\n", f);
}

/* Whether dir may be written: missing, empty, or holding only an earlier report's pages. */
static bool dir_is_ours(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT;
    bool ours = true, any = false;
    struct dirent *e;
    while (ours && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        any = true;
        size_t n = strlen(e->d_name);
        ours = n > 5 && strcmp(e->d_name + n - 5, ".html") == 0;
    }
    closedir(d);
    if (!ours || !any)
        return ours;
    char path[4200];
    snprintf(path, sizeof path, "%s/index.html", dir);
    FILE *f = fopen(path, "r");
    char head[512] = "";
    if (f) {
        size_t k = fread(head, 1, sizeof head - 1, f);
        head[k] = '\0';
        fclose(f);
    }
    return strstr(head, GENERATOR) != NULL;
}

/* Puts the finished report tmp in place as dir (cd_file_swap_dir) and removes the earlier
 * report. False with err set when it cannot. */
static bool swap_in(const char *tmp, const char *dir, struct cd_error *err)
{
    char *whole = NULL, *parent = NULL, *base = NULL, *aside = NULL;
    bool ok = cd_file_split(dir, &whole, &parent, &base);
    if (!ok)
        cd_error_oom(err, CD_FAILED, "out of memory");
    else
        ok = cd_file_swap_dir(tmp, whole, parent, base, &aside, err) == CD_OK;
    if (aside)
        (void)cd_file_rm_tree(aside);
    free(aside);
    free(whole);
    free(parent);
    free(base);
    return ok;
}

static FILE *open_page(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return fopen(path, "w");
}

/* The overview's plots: the run's course, input against output bytes (seed_bytes: the seeds'),
 * seed sizes and labels per seed. */
static void overview_plots(FILE *f, const struct cd_manifest *m, uint64_t seed_bytes)
{
    size_t n = m->n_series;
    double *xs = calloc(n + 1, sizeof *xs), *lab = calloc(n + 1, sizeof *lab),
           *fin = calloc(n + 1, sizeof *fin), *bytes = calloc(n + 1, sizeof *bytes);
    if (n && xs && lab && fin && bytes) {
        for (size_t i = 0; i < n; i++) {
            xs[i] = (double)m->series[i].ms / 1000;
            lab[i] = (double)m->series[i].labels;
            fin[i] = (double)m->series[i].finished;
            bytes[i] = (double)m->series[i].seed_bytes;
        }
        const double *labels[2] = {lab, fin}, *seed_series[1] = {bytes};
        const char *names[2] = {"labels found", "labels finished"}, *bnames[1] = {"seed bytes"};
        plot_lines(f, "Labels over the run", xs, labels, names, 2, n, "s");
        plot_lines(f, "Seed bytes over the run", xs, seed_series, bnames, 1, n, "s");
    }
    /* a warm run's inputs hold the last seeds: the baseline the state keeps comes first */
    bool earlier = m->stats.baseline_run && m->stats.baseline_run != m->info.state_runs;
    char base_cmin[64], base_sel[64];
    snprintf(base_cmin, sizeof base_cmin, "run %llu's afl-cmin rule",
             (unsigned long long)m->stats.baseline_run);
    snprintf(base_sel, sizeof base_sel, "run %llu's select only",
             (unsigned long long)m->stats.baseline_run);
    double io[6] = {(double)m->stats.baseline_cmin_bytes,
                    (double)m->stats.baseline_select_only_bytes, (double)m->stats.input_bytes,
                    (double)m->stats.cmin_bytes, (double)m->stats.select_only_bytes,
                    (double)seed_bytes};
    const char *ionames[6] = {base_cmin, base_sel, "input", "afl-cmin's rule (simulated)",
                              "select only", "seeds"};
    plot_bars(f, "Input against output bytes (this run's inputs)", io + (earlier ? 0 : 2),
              ionames + (earlier ? 0 : 2), earlier ? 6 : 4);
    double *sizes = calloc(m->n_seeds + 1, sizeof *sizes), *labels = calloc(m->n_seeds + 1,
                                                                             sizeof *labels);
    for (size_t i = 0; sizes && labels && i < m->n_seeds; i++) {
        sizes[i] = (double)m->seeds[i].size;
        labels[i] = (double)m->seeds[i].labels.n;
    }
    if (sizes && labels) {
        plot_bars(f, "Seed sizes (bytes, in SHA-1 order)", sizes, NULL, m->n_seeds);
        plot_bars(f, "Labels per seed (in SHA-1 order)", labels, NULL, m->n_seeds);
    }
    free(sizes);
    free(labels);
    free(xs);
    free(lab);
    free(fin);
    free(bytes);
}

/* Smallest first, equal sizes in the order they are stored: the order of the seed lists. */
static int seed_by_size(const void *a, const void *b)
{
    const struct cd_srccov_seed *x = *(const struct cd_srccov_seed *const *)a,
                                *y = *(const struct cd_srccov_seed *const *)b;
    return x->size != y->size ? (x->size < y->size ? -1 : 1) : (x > y) - (x < y);
}

static int example_by_size(const void *a, const void *b)
{
    const struct cd_manifest_example *x = *(const struct cd_manifest_example *const *)a,
                                     *y = *(const struct cd_manifest_example *const *)b;
    return x->size != y->size ? (x->size < y->size ? -1 : 1) : (x > y) - (x < y);
}

/* The seeds of c, smallest first (an owned array). */
static const struct cd_srccov_seed **by_size(const struct cd_srccov *c)
{
    const struct cd_srccov_seed **o = malloc((c->n_seeds + 1) * sizeof *o);
    for (size_t i = 0; o && i < c->n_seeds; i++)
        o[i] = &c->seeds[i];
    if (o)
        qsort(o, c->n_seeds, sizeof *o, seed_by_size);
    return o;
}

/* The page of source file fi: every line of the file (when it can be read), coloured by how many
 * seeds execute it, with links to the smallest. */
static bool file_page(const char *dir, const struct cd_srccov *c, size_t fi,
                      const struct cd_srccov_seed *const *order)
{
    char name[64];
    snprintf(name, sizeof name, "file-%zu.html", fi);
    FILE *f = open_page(dir, name);
    if (!f)
        return false;
    page_start(f, c->files[fi]);
    fputs("<p><a href=\"index.html\">overview</a></p><h1>", f);
    esc(f, c->files[fi], -1);
    fputs("</h1><table class=\"src\"><tr><th>line</th><th>seeds</th><th>reached by</th>"
          "<th>source</th></tr>\n", f);
    /* Lines are those of the file when it can be read (a record's line numbers are bounded by
       its length), else the instrumented lines alone: the page never outgrows either. */
    FILE *src = c->files_checked ? fopen(c->files[fi], "r") : NULL;
    char *text = NULL;
    size_t cap = 0, next = 0;
    for (uint32_t line = 1; line != 0; line++) {
        ssize_t len = -1;
        if (src) {
            len = getline(&text, &cap, src);
            if (len < 0)
                break;
        } else {
            if (next == c->n_lines[fi])
                break;
            line = c->lines[fi][next++];
        }
        if (len > 0 && text[len - 1] == '\n')
            len--;
        bool instrumented = cd_srccov_has(c->lines[fi], c->n_lines[fi], line);
        size_t hits = 0;
        const struct cd_srccov_seed *shown[LINE_SEEDS];
        for (size_t k = 0; instrumented && k < c->n_seeds; k++) {
            const struct cd_srccov_seed *s = order[k];
            if (s->measured && cd_srccov_has(s->lines[fi], s->n_lines[fi], line)) {
                if (hits < LINE_SEEDS)
                    shown[hits] = s;
                hits++;
            }
        }
        fprintf(f, "<tr id=\"L%u\" class=\"%s\"><td class=\"n\">%u</td><td class=\"n\">", line,
                !instrumented ? "" : hits == 0 ? "miss" : hits > 1 ? "hot" : "hit", line);
        if (instrumented)
            fprintf(f, "%zu", hits);
        fputs("</td><td>", f);
        for (size_t k = 0; k < hits && k < LINE_SEEDS; k++) {
            fputs("<a href=\"seed-", f);
            esc(f, shown[k]->sha1, 40);
            fputs(".html\">", f);
            esc(f, shown[k]->sha1, 8);
            fputs("</a> ", f);
        }
        fputs("</td><td>", f);
        if (len > 0)
            esc(f, text, len);
        fputs("</td></tr>\n", f);
    }
    free(text);
    if (src)
        fclose(src);
    else
        fputs(c->files_checked
                  ? "</table><p>The source file could not be read here: lines only.</p><table>"
                  : "</table><p>Lines only: the source text is shown when the report is written "
                    "with <code>--coverage BIN</code>, whose build lists this file.</p><table>",
              f);
    fputs("</table></body></html>\n", f);
    return fclose(f) == 0;
}

/* A directory of examples, opened once for the whole report (cd_manifest_open_dir), and its
 * path (NULL: none). */
struct example_dir {
    int fd;
    const char *path;
};

/* The first PREVIEW bytes of example ex in d, as text when they are text, else as hex; read
 * through cd_manifest_read_example_at only, so that a name planted in the manifest or beside
 * it previews nothing but the example it names. */
static void preview(FILE *f, const struct example_dir *d, const struct cd_manifest_example *ex)
{
    char why[600];
    size_t len;
    uint8_t *data = d->path ? cd_manifest_read_example_at(d->fd, d->path, ex, &len, why,
                                                          sizeof why)
                            : NULL;
    if (!data) {
        fputs("<h2>Preview</h2><p>none: ", f);
        esc(f, d->path ? why : "no directory of reproducers beside the manifest", -1);
        fputs("</p>", f);
        return;
    }
    unsigned char buf[PREVIEW];
    size_t n = len < sizeof buf ? len : sizeof buf;
    memcpy(buf, data, n);
    free(data);
    bool text = true;
    for (size_t i = 0; i < n; i++)
        text &= buf[i] == '\n' || buf[i] == '\t' || buf[i] == '\r' || buf[i] >= 0x20;
    fprintf(f, "<h2>Preview (%s, first %zu bytes)</h2><pre>", text ? "text" : "hex", n);
    if (text) {
        esc(f, (const char *)buf, (long)n);
    } else {
        for (size_t i = 0; i < n; i += 16) {
            fprintf(f, "%08zx ", i);
            for (size_t k = i; k < i + 16 && k < n; k++)
                fprintf(f, " %02x", buf[k]);
            fputc('\n', f);
        }
    }
    fputs("</pre>", f);
}

/* The reproducers of m whose crash or hang no sanitizer reported. */
static size_t count_unreported(const struct cd_manifest *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_reproducers; i++)
        n += cd_labels_unreported(m->reproducers[i].labels.v, m->reproducers[i].labels.n) != 0;
    return n;
}

/* The crashes and hangs no sanitizer reported, each by its kind with its reproducer: counted
 * beside the bugs, never left out. */
static void unreported_section(FILE *f, const struct cd_manifest *m,
                               const struct example_dir *crashes)
{
    size_t n = count_unreported(m);
    if (!n)
        return;
    fprintf(f, "<h1 id=\"unreported\">%zu reproducer%s without a sanitizer report</h1>\n", n,
            n == 1 ? "" : "s");
    struct cd_label_names names = cd_manifest_names(&m->info);
    for (size_t i = 0; i < m->n_reproducers; i++) {
        const struct cd_manifest_example *x = &m->reproducers[i];
        uint32_t kind = cd_labels_unreported(x->labels.v, x->labels.n);
        if (!kind)
            continue;
        char label[160];
        cd_labels_format_in(kind, &names, label, sizeof label);
        fputs("<h2>", f);
        esc(f, label, -1);
        fprintf(f, "</h2><table><tr><td>reproducer</td><td><a href=\"seed-%.40s.html\">%.40s</a>"
                   " (%llu bytes, from ", x->sha1, x->sha1, (unsigned long long)x->size);
        esc(f, x->origin ? x->origin : "", -1);
        fputs(")</td></tr></table>\n", f);
        preview(f, crashes, x);
    }
}

/* crashes.html: one section per distinct bug, with its kind, frames, the inputs that showed it
 * and a preview of its reproducer; then the reproducers no sanitizer reported. */
static bool crashes_page(const char *dir, const struct cd_manifest *m,
                         const struct example_dir *crashes)
{
    FILE *f = open_page(dir, "crashes.html");
    if (!f)
        return false;
    page_start(f, "distinct bugs");
    size_t distinct = 0;
    for (size_t i = 0; i < m->n_bugs; i++)
        distinct += cd_manifest_bug_first(m, i) == i;
    size_t unreported = count_unreported(m);
    fprintf(f, "<p><a href=\"index.html\">overview</a></p><h1>%zu distinct bug%s by sanitizer "
               "report</h1>\n", distinct, distinct == 1 ? "" : "s");
    if (unreported)
        fprintf(f, "<p><a href=\"#unreported\">%zu reproducer%s without a sanitizer report</a>"
                   "</p>\n", unreported, unreported == 1 ? "" : "s");
    for (size_t i = 0; i < m->n_bugs; i++) {
        const struct cd_manifest_bug *b = &m->bugs[i];
        const struct cd_manifest_example *x = cd_manifest_find_reproducer(m, b->reproducer);
        char label[160], anchor[160];
        struct cd_label_names names = cd_manifest_names(&m->info);
        cd_labels_format_in(b->id, &names, label, sizeof label);
        /* "NAME/bug:1a2b3c" is anchored as "NAME-1a2b3c", "bug:1a2b3c" as "1a2b3c" */
        snprintf(anchor, sizeof anchor, "%s", label);
        char *colon = strstr(anchor, "bug:"), *slash = strchr(anchor, '/');
        if (colon)
            memmove(colon, colon + 4, strlen(colon + 4) + 1);
        if (slash)
            *slash = '-';
        fprintf(f, "<h2 id=\"%s\">%s: ", anchor, label);
        if (cd_manifest_bug_first(m, i) != i) {
            char first[160];
            cd_labels_format_in(m->bugs[cd_manifest_bug_first(m, i)].id, &names, first,
                                sizeof first);
            fprintf(f, "the same bug as %s, from another target: ", first);
        }
        esc(f, b->kind, -1);
        if (b->access) {
            fputc(' ', f);
            esc(f, b->access, -1);
        }
        fputs("</h2><table><tr><td>frames</td><td>", f);
        for (char **p = b->frames; *p; p++) {
            esc(f, *p, -1);
            fputs(p[1] ? "<br>" : "", f);
        }
        fprintf(f, "</td></tr><tr><td>inputs that showed it</td><td>%llu</td></tr>"
                   "<tr><td>reproducer</td><td><a href=\"seed-%.40s.html\">%.40s</a> (%llu "
                   "bytes, from ",
                (unsigned long long)b->inputs, b->reproducer, b->reproducer,
                (unsigned long long)(x ? x->size : 0));
        esc(f, x && x->origin ? x->origin : "", -1);
        fputs(")</td></tr></table>\n", f);
        if (x)
            preview(f, crashes, x);
    }
    unreported_section(f, m, crashes);
    fputs("</body></html>\n", f);
    return fclose(f) == 0;
}

static bool seed_page(const char *dir, const struct cd_manifest_example *ex,
                      const struct example_dir *seeds, const struct cd_srccov *c, bool reproducer)
{
    char name[64];
    snprintf(name, sizeof name, "seed-%.40s.html", ex->sha1);
    FILE *f = open_page(dir, name);
    if (!f)
        return false;
    page_start(f, ex->sha1);
    fprintf(f, "<p><a href=\"index.html\">overview</a></p><h1>%s %s</h1><table>"
               "<tr><td>size</td><td>%llu bytes</td></tr>"
               "<tr><td>labels covered</td><td>%zu</td></tr>"
               "<tr><td>labels it is the best example of</td><td>%zu</td></tr>"
               "<tr><td>from</td><td>",
            reproducer ? "Reproducer" : "Seed", ex->sha1, (unsigned long long)ex->size,
            ex->labels.n, ex->best.n);
    esc(f, ex->origin ? ex->origin : "", -1);
    fputs("</td></tr>", f);
    const struct cd_srccov_seed *s = c ? cd_srccov_find(c, ex->sha1) : NULL;
    if (s && s->measured) {
        size_t lines = 0;
        for (size_t k = 0; k < c->n_files; k++)
            lines += s->n_lines[k];
        fprintf(f, "<tr><td>functions reached</td><td>%zu</td></tr><tr><td>lines reached</td>"
                   "<td>%zu</td></tr><tr><td>branch directions taken</td><td>%zu</td></tr>",
                s->n_fns, lines, s->n_brs);
    }
    fputs("</table>", f);
    preview(f, seeds, ex);
    if (s && s->measured && s->n_fns) {
        fputs("<h2>Functions reached</h2><p>", f);
        for (size_t k = 0; k < s->n_fns; k++) {
            esc(f, c->fns[s->fns[k]].name, -1);
            fputs(k + 1 < s->n_fns ? ", " : "", f);
        }
        fputs("</p>", f);
    }
    fputs("</body></html>\n", f);
    return fclose(f) == 0;
}

/* target-NAME.html: the seeds of one target's view, smallest first, with its labels each shows. */
static bool target_page(const char *dir, const struct cd_manifest *m, unsigned t)
{
    const struct cd_target *x = &m->info.targets[t];
    const struct cd_manifest_view *v = &m->views[t];
    char name[128];
    snprintf(name, sizeof name, "target-%s.html", x->name);
    FILE *f = open_page(dir, name);
    if (!f)
        return false;
    page_start(f, x->name);
    fputs("<p><a href=\"index.html\">overview</a></p><h1>Target ", f);
    esc(f, x->name, -1);
    fprintf(f, "</h1><table><tr><td>labels</td><td id=\"labels\">%llu</td></tr>"
               "<tr><td>labels finished</td><td>%llu</td></tr>"
               "<tr><td>seeds in its view</td><td id=\"seeds\">%llu</td></tr>"
               "<tr><td>their bytes</td><td id=\"seed-bytes\">%llu</td></tr>"
               "<tr><td>reproducers</td><td>%llu</td></tr><tr><td>bugs</td><td>%llu</td></tr>"
               "<tr><td>command</td><td>",
            (unsigned long long)v->counts.labels, (unsigned long long)v->counts.finished,
            (unsigned long long)v->counts.seeds, (unsigned long long)v->counts.seed_bytes,
            (unsigned long long)v->counts.reproducers, (unsigned long long)v->counts.bugs);
    for (char *const *a = x->opts.argv; a && *a; a++) {
        esc(f, *a, -1);
        fputc(a[1] ? ' ' : '\n', f);
    }
    fputs("</td></tr><tr><td>view</td><td>", f);
    esc(f, v->dir ? v->dir : "(none)", -1);
    fputs("</td></tr></table>\n<h2>Its seeds, smallest first</h2><table><tr><th>seed</th>"
          "<th>bytes</th><th>its labels</th><th>other targets' labels</th></tr>\n", f);
    /* the shared seeds it holds, each with its page, and the examples only views hold */
    const struct cd_manifest_example **seeds =
        malloc((m->n_seeds + m->n_view_only + 1) * sizeof *seeds);
    size_t n = 0;
    for (size_t i = 0; seeds && i < m->n_seeds + m->n_view_only; i++) {
        const struct cd_manifest_example *e =
            i < m->n_seeds ? &m->seeds[i] : &m->view_only[i - m->n_seeds];
        if (e->views >> t & 1)
            seeds[n++] = e;
    }
    if (seeds)
        qsort(seeds, n, sizeof *seeds, example_by_size);
    for (size_t i = 0; i < n; i++) {
        size_t own = 0;
        for (size_t k = 0; k < seeds[i]->labels.n; k++)
            own += cd_labels_target(seeds[i]->labels.v[k]) == t;
        bool shared = seeds[i] >= m->seeds && seeds[i] < m->seeds + m->n_seeds;
        if (shared)
            fprintf(f, "<tr><td><a href=\"seed-%.40s.html\">%s</a>", seeds[i]->sha1,
                    seeds[i]->sha1);
        else
            fprintf(f, "<tr><td>%.40s (this view only)", seeds[i]->sha1);
        fprintf(f, "</td><td>%llu</td><td>%zu</td><td>%zu</td></tr>\n",
                (unsigned long long)seeds[i]->size, own, seeds[i]->labels.n - own);
    }
    fputs("</table></body></html>\n", f);
    free(seeds);
    return fclose(f) == 0;
}

/* The overview's table of targets (a run of several), each linking to its page. */
static bool targets_section(FILE *f, const char *dir, const struct cd_manifest *m)
{
    bool ok = true;
    if (!m->views)
        return true;
    fputs("<h2>Targets</h2><table><tr><th>target</th><th>labels</th><th>finished</th>"
          "<th>seeds in its view</th><th>bytes</th><th>reproducers</th><th>bugs</th></tr>\n", f);
    for (unsigned t = 0; t < m->info.n_targets; t++) {
        const struct cd_manifest_view *x = &m->views[t];
        fputs("<tr><td><a href=\"target-", f);
        esc(f, m->info.targets[t].name, -1);
        fputs(".html\">", f);
        esc(f, m->info.targets[t].name, -1);
        fprintf(f, "</a></td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%llu"
                   "</td><td>%llu</td></tr>\n",
                (unsigned long long)x->counts.labels, (unsigned long long)x->counts.finished,
                (unsigned long long)x->counts.seeds, (unsigned long long)x->counts.seed_bytes,
                (unsigned long long)x->counts.reproducers, (unsigned long long)x->counts.bugs);
        ok &= target_page(dir, m, t);
    }
    fputs("</table>\n", f);
    return ok;
}

int cli_audit_html(const struct cli_opts *o, const struct cd_manifest *m, const char *seed_dir,
                   const char *crashes_dir, const struct cd_srccov *c)
{
    const char *dest = o->audit_html;
    if (!dir_is_ours(dest)) {
        cli_msg("refusing to write the report into '%s': it holds files "
                "an earlier report did not write (name a new directory)", dest);
        return CLI_EXIT_OUTPUT;
    }
    size_t dl = strlen(dest);
    while (dl > 1 && dest[dl - 1] == '/')
        dl--;
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s.tmp-XXXXXX", (int)dl, dest);
    if (dl > 4000 || !mkdtemp(dir)) {
        cli_msg("cannot create '%s': %s", dir, strerror(errno));
        return CLI_EXIT_OUTPUT;
    }
    chmod(dir, 0755);
    FILE *f = open_page(dir, "index.html");
    if (!f) {
        cli_msg("cannot write '%s/index.html': %s", dir,
                strerror(errno));
        (void)cd_file_rm_tree(dir);
        return CLI_EXIT_OUTPUT;
    }
    bool ok = true;
    uint64_t bytes = 0;
    size_t bugs = 0;
    /* each directory of examples opened once, every preview read through it */
    struct example_dir seeds_d = {cd_manifest_open_dir(seed_dir), seed_dir};
    struct example_dir crashes_d = {cd_manifest_open_dir(crashes_dir), crashes_dir};
    for (size_t i = 0; i < m->n_seeds; i++)
        bytes += m->seeds[i].size;
    for (size_t i = 0; i < m->n_bugs; i++)
        bugs += cd_manifest_bug_first(m, i) == i;
    page_start(f, "corpus-distill audit");
    fprintf(f, "<h1>Seed corpus audit</h1><table>"
               "<tr><td>seeds</td><td id=\"seeds\">%zu</td></tr>"
               "<tr><td>seed bytes</td><td id=\"seed-bytes\">%llu</td></tr>"
               "<tr><td>reproducers</td><td id=\"reproducers\">%zu</td></tr>"
               "<tr><td>labels</td><td id=\"labels\">%zu</td></tr>"
               "<tr><td>labels finished</td><td>%llu</td></tr>"
               "<tr><td>distinct bugs by sanitizer report</td><td id=\"bugs\">"
               "<a href=\"crashes.html\">%zu</a></td></tr>"
               "<tr><td>reproducers without a sanitizer report</td><td id=\"unreported\">"
               "<a href=\"crashes.html#unreported\">%zu</a></td></tr>",
            m->n_seeds, (unsigned long long)bytes, m->n_reproducers, m->n_labels,
            (unsigned long long)m->counts.labels_finished, bugs, count_unreported(m));
    ok &= crashes_page(dir, m, &crashes_d);
    const struct cd_srccov_seed **order = c ? by_size(c) : NULL;
    bool *fn_hit = c ? calloc(c->n_fns + 1, sizeof *fn_hit) : NULL;
    size_t fns_hit = 0;
    if (fn_hit)
        cd_srccov_mark_reached(c, fn_hit, NULL);
    for (size_t i = 0; fn_hit && i < c->n_fns; i++)
        fns_hit += fn_hit[i];
    if (c && fn_hit && order)
        fprintf(f, "<tr><td>functions reached</td><td id=\"functions\">%zu of %zu</td></tr>",
                fns_hit, c->n_fns);
    fputs("</table>\n", f);
    ok &= targets_section(f, dir, m);
    fputs("<h2>The run</h2>\n", f);
    overview_plots(f, m, bytes);
    if (c && fn_hit && order) {
        fputs("<h2>Source files</h2><table><tr><th>file</th><th>lines reached</th>"
              "<th>functions no seed reaches</th></tr>\n", f);
        for (size_t fi = 0; fi < c->n_files; fi++) {
            size_t hit = 0;
            for (size_t k = 0; k < c->n_lines[fi]; k++)
                hit += cd_srccov_line_reached(c, fi, c->lines[fi][k]);
            fprintf(f, "<tr><td><a href=\"file-%zu.html\">", fi);
            esc(f, c->files[fi], -1);
            fprintf(f, "</a></td><td>%zu of %zu</td><td>", hit, c->n_lines[fi]);
            for (size_t i = 0; i < c->n_fns; i++)
                if (c->fns[i].file == fi && !fn_hit[i]) {
                    fprintf(f, "<a href=\"file-%zu.html#L%u\">", fi, (unsigned)c->fns[i].line);
                    esc(f, c->fns[i].name, -1);
                    fputs("</a> ", f);
                }
            fputs("</td></tr>\n", f);
            ok &= file_page(dir, c, fi, order);
        }
        fputs("</table>\n", f);
    } else {
        fputs("<p>No source coverage is recorded for this manifest: run <code>audit --coverage "
              "BIN</code> with a coverage build of the target for the source pages.</p>\n", f);
    }
    fputs("<h2>Seeds, smallest first</h2><table><tr><th>seed</th><th>bytes</th><th>labels</th>"
          "<th>best for</th></tr>\n", f);
    const struct cd_manifest_example **seeds = malloc((m->n_seeds + 1) * sizeof *seeds);
    for (size_t i = 0; seeds && i < m->n_seeds; i++)
        seeds[i] = &m->seeds[i];
    if (seeds)
        qsort(seeds, m->n_seeds, sizeof *seeds, example_by_size);
    for (size_t i = 0; seeds && i < m->n_seeds; i++) {
        const struct cd_manifest_example *ex = seeds[i];
        fprintf(f, "<tr><td><a href=\"seed-%.40s.html\">%s</a></td><td>%llu</td><td>%zu</td>"
                   "<td>%zu</td></tr>\n",
                ex->sha1, ex->sha1, (unsigned long long)ex->size, ex->labels.n, ex->best.n);
        ok &= seed_page(dir, ex, &seeds_d, c, false);
    }
    for (size_t i = 0; i < m->n_reproducers; i++) {
        const struct cd_manifest_example *ex = &m->reproducers[i];
        fprintf(f, "<tr><td><a href=\"seed-%.40s.html\">%s</a> (reproducer)</td><td>%llu</td>"
                   "<td>%zu</td><td>%zu</td></tr>\n",
                ex->sha1, ex->sha1, (unsigned long long)ex->size, ex->labels.n, ex->best.n);
        ok &= seed_page(dir, ex, &crashes_d, c, true);
    }
    fputs("</table></body></html>\n", f);
    free(seeds);
    free(order);
    free(fn_hit);
    if (seeds_d.fd >= 0)
        close(seeds_d.fd);
    if (crashes_d.fd >= 0)
        close(crashes_d.fd);
    ok &= fclose(f) == 0;
    struct cd_error err;
    if (!ok)
        cd_error_sys(&err, CD_FAILED, "cannot write the report into '%s': %s", dest,
                     strerror(errno));
    if (!ok || !swap_in(dir, dest, &err)) {
        cli_msg("cannot write the report into '%s': %s", dest, err.msg);
        (void)cd_file_rm_tree(dir);
        return CLI_EXIT_OUTPUT;
    }
    cli_msg("report written to '%s/index.html'", dest);
    return CLI_EXIT_OK;
}
