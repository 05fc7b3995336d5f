/* Unit tests of the run report's declaration (src/output/report.c) against what it declares: the
 * table is well formed, the man page documents every key of the manifest (the settings' from the
 * command line's settings table) and of --json-summary with the texts each may hold and names no
 * key the tables lack, and a manifest written and read
 * back keeps every value the reader takes. */
#include "output/cd_manifest.h"
#include "output/cd_report.h"
#include "cli/cli.h"
#include "harness.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_table_well_formed(void)
{
    for (size_t i = 0; i < cd_report_n_fields; i++) {
        const struct cd_report_field *f = &cd_report_fields[i];
        CU_ASSERT_FATAL(f->manifest || f->summary);
        CU_ASSERT(f->meaning && *f->meaning);
        /* a row the reader takes comes from a struct, or is read by code */
        if (f->read == CD_READ_REQUIRED || f->read == CD_READ_LATER)
            CU_ASSERT(f->from != CD_FROM_CODE && f->manifest);
        CU_ASSERT((f->kind == CD_REPORT_CODE) == (f->from == CD_FROM_CODE));
        for (size_t k = 0; k < i; k++) {
            const struct cd_report_field *g = &cd_report_fields[k];
            if (f->manifest && g->manifest && strcmp(f->manifest, g->manifest) == 0)
                CU_FAIL("a manifest key declared twice");
            if (f->summary && g->summary && strcmp(f->summary, g->summary) == 0)
                CU_FAIL("a --json-summary key declared twice");
        }
    }
}

/* The line after the one p is in, or NULL. */
static const char *next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl ? nl + 1 : NULL;
}

/* The man page, whole. */
static char *read_man(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/man/corpus-distill.1", CD_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char *buf = malloc(1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The text of man between the line starting with `from` and the next line starting with one of
 * the `ends` (NULL-terminated), owned; NULL when `from` is not there. */
static char *between(const char *man, const char *from, const char *const *ends)
{
    const char *a = strstr(man, from);
    if (!a)
        return NULL;
    const char *b = NULL;
    for (const char *p = strchr(a, '\n'); p && !b; p = strchr(p + 1, '\n'))
        for (size_t i = 0; ends[i] && !b; i++)
            if (strncmp(p + 1, ends[i], strlen(ends[i])) == 0)
                b = p + 1;
    return b ? strndup(a, (size_t)(b - a)) : strdup(a);
}

/* The words set in bold in roff text: every word of a .B line, the odd arguments of a .BR line
 * and the even ones of a .RB line (counted from 1), as "|word|word|...|". */
static char *bold_words(const char *text)
{
    size_t cap = strlen(text) + 2, len = 1;
    char *out = calloc(cap, 1);
    out[0] = '|';
    for (const char *line = text; line && *line; line = next_line(line)) {
        int first; /* the argument (from 0) of the first bold one, 2 for every one */
        if (strncmp(line, ".B ", 3) == 0)
            first = 2;
        else if (strncmp(line, ".BR ", 4) == 0)
            first = 0;
        else if (strncmp(line, ".RB ", 4) == 0)
            first = 1;
        else
            continue;
        const char *p = strchr(line, ' ') + 1;
        for (int arg = 0; *p && *p != '\n'; arg++) {
            while (*p == ' ')
                p++;
            const char *s = p, *e;
            if (*p == '"') {
                s = ++p;
                while (*p && *p != '"' && *p != '\n')
                    p++;
                e = p;
                if (*p == '"')
                    p++;
            } else {
                while (*p && *p != ' ' && *p != '\n')
                    p++;
                e = p;
            }
            if (first != 2 && arg % 2 != first)
                continue;
            /* the words of a bold argument: letters, digits, '_' and escaped '-' */
            for (const char *w = s; w < e;) {
                while (w < e && !isalnum((unsigned char)*w) && *w != '_')
                    w++;
                const char *we = w;
                while (we < e && (isalnum((unsigned char)*we) || *we == '_'))
                    we++;
                if (we > w && len + (size_t)(we - w) + 2 < cap) {
                    memcpy(out + len, w, (size_t)(we - w));
                    len += (size_t)(we - w);
                    out[len++] = '|';
                }
                w = we;
            }
        }
    }
    return out;
}

static bool has_word(const char *words, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(words, w); p; p = strstr(p + 1, w))
        if (p > words && p[-1] == '|' && p[n] == '|')
            return true;
    return false;
}

/* The values a row may hold, each in the text after its key, and no other quoted text there: the
 * text from the key's bold line to the next bold line naming another key of keys. */
static void check_values(const char *para, const char *key, const char *values, const char *keys)
{
    char pat[160];
    const char *at = NULL;
    for (const char *p = para; p && !at; p = next_line(p)) {
        if (*p != '.' || (strncmp(p, ".B", 2) != 0 && strncmp(p, ".RB", 3) != 0))
            continue;
        char *line = strndup(p, strcspn(p, "\n"));
        char *w = bold_words(line);
        if (has_word(w, key))
            at = p;
        free(line);
        free(w);
    }
    snprintf(pat, sizeof pat, "%s: the man page's text of it", key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    const char *end = strchr(at, '\n');
    for (const char *p = end ? end + 1 : NULL; p && *p; p = next_line(p)) {
        end = p;
        if (*p == '.' && (strncmp(p, ".B", 2) == 0 || strncmp(p, ".RB", 3) == 0)) {
            char *line = strndup(p, strcspn(p, "\n"));
            char *w = bold_words(line);
            bool other = false;
            for (const char *k = keys; *k; k += strlen(k) + 1)
                other |= strcmp(k, key) != 0 && has_word(w, k);
            free(line);
            free(w);
            if (other)
                break;
        }
        end = NULL;
    }
    char *seg = end ? strndup(at, (size_t)(end - at)) : strdup(at);
    char *vals = strdup(values);
    for (char *v = strtok(vals, "|"); v; v = strtok(NULL, "|")) {
        char quoted[96], bold[96];
        snprintf(quoted, sizeof quoted, "\"%s\"", v);
        snprintf(bold, sizeof bold, ".B %s\n", v);
        if (!strstr(seg, quoted) && !strstr(seg, bold)) {
            fprintf(stderr, "man page: %s can be %s, which it does not say\n", key, quoted);
            CU_FAIL("a value the man page does not give");
        }
    }
    free(vals);
    /* every quoted text after the key is one of its values (or the "" of no value) */
    for (const char *q = strchr(seg, '"'); q; q = strchr(q, '"')) {
        const char *e = strchr(q + 1, '"');
        if (!e)
            break;
        char word[96];
        snprintf(word, sizeof word, "%.*s", (int)(e - q - 1), q + 1);
        char wrapped[100];
        snprintf(wrapped, sizeof wrapped, "|%s|", word);
        char all[512];
        snprintf(all, sizeof all, "|%s|", values);
        bool roff = strchr(word, ',') || word[0] == ' ' || !*word; /* ".BR a ", " b" */
        if (!roff && !strstr(all, wrapped)) {
            fprintf(stderr, "man page: %s documented as \"%s\", which it never holds\n", key,
                    word);
            CU_FAIL("a value the table does not declare");
        }
        q = e + 1;
    }
    free(seg);
}

/* Every key a manifest holds, "section.key" or "key", with the texts it may hold: the report
 * table's, and the settings the command line's table puts in "settings". */
struct manifest_key {
    char full[96];
    const char *values;
};

static size_t manifest_keys(struct manifest_key *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < cd_report_n_fields && n < cap; i++)
        if (cd_report_fields[i].manifest) {
            snprintf(out[n].full, sizeof out[n].full, "%s", cd_report_fields[i].manifest);
            out[n++].values = cd_report_fields[i].values;
        }
    for (size_t i = 0; i < cli_n_settings && n < cap; i++)
        if (cli_settings[i].manifest) {
            snprintf(out[n].full, sizeof out[n].full, "settings.%s", cli_settings[i].name);
            out[n++].values = cli_settings[i].values;
        }
    return n;
}

static bool is_key(const struct manifest_key *keys, size_t n, const char *full)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i].full, full) == 0)
            return true;
    return false;
}

static void test_man_manifest(void)
{
    char *man = read_man();
    const char *const sec_end[] = {".SS", ".SH", NULL};
    char *sec = between(man, ".SS Manifest", sec_end);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    const char *const para_end[] = {".TP", ".PP", ".SS", ".SH", NULL};
    char done[1024] = "";
    struct manifest_key all[256];
    size_t n_all = manifest_keys(all, 256);
    CU_ASSERT(n_all > 60);
    for (size_t i = 0; i < n_all; i++) {
        const char *full = all[i].full, *dot = strchr(full, '.');
        const char *key = dot ? dot + 1 : full;
        char section[64], head[80];
        snprintf(section, sizeof section, "%.*s", dot ? (int)(dot - full) : (int)strlen(full),
                 full);
        snprintf(head, sizeof head, ".TP\n.B %s\n", section);
        char *para = between(sec, head, para_end);
        if (!para) {
            fprintf(stderr, "man page: no entry for the manifest's %s\n", section);
            CU_FAIL("a manifest section the man page lacks");
            continue;
        }
        char *words = bold_words(para);
        if (dot && !has_word(words, key)) {
            fprintf(stderr, "man page: the manifest's %s is not documented\n", full);
            CU_FAIL("a manifest key the man page lacks");
        }
        if (dot && all[i].values) {
            /* the section's keys, NUL-separated */
            char keys[2048];
            size_t kl = 0;
            for (size_t k = 0; k < n_all; k++) {
                const char *g = all[k].full;
                if (strncmp(g, full, strlen(section) + 1) == 0 &&
                    kl + strlen(g) + 2 < sizeof keys) {
                    memcpy(keys + kl, g + strlen(section) + 1, strlen(g) - strlen(section));
                    kl += strlen(g) - strlen(section);
                }
            }
            keys[kl] = '\0';
            check_values(para, key, all[i].values, keys);
        }
        /* every ".BR key :" of the entry is a key of its section */
        bool first = strstr(done, head) == NULL; /* once an entry */
        if (first && strlen(done) + strlen(head) < sizeof done)
            strcat(done, head);
        for (const char *p = para; first && dot && p && *p; p = next_line(p)) {
            char word[64];
            int end = 0;
            if (sscanf(p, ".BR %63[a-z_0-9] :%n", word, &end) != 1 || !end)
                continue;
            char other[160];
            snprintf(other, sizeof other, "%s.%s", section, word);
            if (!is_key(all, n_all, other) && strcmp(section, "targets") != 0 &&
                strcmp(section, "labels") != 0 && strcmp(section, "seeds") != 0) {
                fprintf(stderr, "man page: documents the manifest's %s, which it never holds\n",
                        other);
                CU_FAIL("a manifest key the table does not declare");
            }
        }
        free(words);
        free(para);
    }
    free(sec);
    free(man);
}

/* The nested records declared by rows (the entries of targets, examples, bugs and labels): each
 * key of them is in bold in the man page's entry of the list that holds them. */
static void test_man_nested_records(void)
{
    char *man = read_man();
    const char *const sec_end[] = {".SS", ".SH", NULL}, *const para_end[] = {".TP", ".SS", NULL};
    char *sec = between(man, ".SS Manifest", sec_end);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sec);
    const struct {
        const char *list;
        const struct cd_report_field *rows;
        size_t n;
    } records[] = {{".TP\n.B targets\n", cd_report_target_fields, cd_report_n_target_fields},
                   {".TP\n.B seeds\n", cd_report_example_fields, cd_report_n_example_fields},
                   {".TP\n.B bugs\n", cd_report_bug_fields, cd_report_n_bug_fields},
                   {".TP\n.B labels\n", cd_report_label_fields, cd_report_n_label_fields}};
    for (size_t r = 0; r < sizeof records / sizeof *records; r++) {
        char *para = between(sec, records[r].list, para_end);
        CU_ASSERT_PTR_NOT_NULL_FATAL(para);
        char *words = bold_words(para);
        for (size_t i = 0; i < records[r].n; i++) {
            const char *key = records[r].rows[i].manifest;
            if (key && !has_word(words, key)) {
                fprintf(stderr, "man page: %s has no %s\n", records[r].list + 7, key);
                CU_FAIL("a key of a nested record the man page lacks");
            }
        }
        free(words);
        free(para);
    }
    free(sec);
    free(man);
}

static void test_man_summary(void)
{
    char *man = read_man();
    const char *const ends[] = {".TP", NULL};
    char *para = between(man, ".B \\-\\-json\\-summary\n", ends);
    CU_ASSERT_PTR_NOT_NULL_FATAL(para);
    char *words = bold_words(para);
    /* every bold word but the option's own names a key of the summary or a manifest section */
    char *copy = strdup(words);
    for (char *w = strtok(copy, "|"); w; w = strtok(NULL, "|")) {
        bool known = strcmp(w, "json") == 0 || strcmp(w, "summary") == 0 ||
                     strcmp(w, "q") == 0 || strcmp(w, "force") == 0;
        for (size_t i = 0; i < cd_report_n_fields && !known; i++) {
            const struct cd_report_field *f = &cd_report_fields[i];
            known = (f->summary && strcmp(f->summary, w) == 0) ||
                    (f->manifest && strncmp(f->manifest, w, strlen(w)) == 0 &&
                     (f->manifest[strlen(w)] == '.' || !f->manifest[strlen(w)]));
        }
        if (!known) {
            fprintf(stderr, "man page: --json-summary documents \"%s\", which it never writes\n",
                    w);
            CU_FAIL("a --json-summary key the table does not declare");
        }
    }
    free(copy);
    free(words);
    free(para);
    free(man);
}

/* A manifest of a small result, written and read back: every value the reader takes is what the
 * writer wrote, and the manifest's keys are the table's, in its order. */
static void test_round_trip(void)
{
    struct cd_result r = {0};
    r.stats = (struct cd_result_stats){.inputs = 11, .input_bytes = 1234, .duplicates = 2,
                                       .other_shards = 3, .execs = 99, .first_pass_execs = 11,
                                       .recheck_execs = 4, .crashes = 1, .timeouts = 1,
                                       .wall_ns = 1500000000, .labels_input = 7,
                                       .select_only_bytes = 500, .cmin_bytes = 600,
                                       .size_bound_labels = 1, .size_bound_bytes = 9,
                                       .complete = true};
    char *argv[] = {"./t", "@@", NULL}, *ops[] = {"in", NULL};
    struct cd_target target = {.opts = {.argv = argv},
                               .info = {.map_size = 65536, .timeout_ms = 40}};
    snprintf(target.sha1, sizeof target.sha1, "%040d", 7);
    struct cd_manifest_info info = {.tool_version = "9.9", .targets = &target, .n_targets = 1,
                                    .operands = ops, .seed_dir = "seeds",
                                    .crashes_dir = "seeds.crashes"};
    char *dir = cd_test_mkdtemp(), *path = cd_test_join(dir, "m.json");
    struct cd_error err = {0};
    CU_ASSERT_EQUAL_FATAL(cd_manifest_write(path, &info, &r, &err), CD_OK);
    struct cd_manifest m;
    CU_ASSERT_EQUAL_FATAL(cd_manifest_read(path, &m, &err), CD_OK);
    const void *wrote[CD_FROM_N] = {NULL, &info, &r.stats, NULL, &target};
    const void *read[CD_FROM_N] = {NULL, &m.info, &m.stats, &m.counts, m.info.targets};
    size_t checked = 0;
    for (size_t i = 0; i < cd_report_n_fields; i++) {
        const struct cd_report_field *f = &cd_report_fields[i];
        if (!f->manifest || (f->read != CD_READ_REQUIRED && f->read != CD_READ_LATER) ||
            f->from == CD_FROM_COUNTS)
            continue;
        const char *a = (const char *)wrote[f->from] + f->offset;
        const char *b = (const char *)read[f->from] + f->offset;
        switch (f->kind) {
        case CD_REPORT_TEXT: {
            const char *x, *y;
            memcpy(&x, a, sizeof x);
            memcpy(&y, b, sizeof y);
            CU_ASSERT_STRING_EQUAL(x ? x : f->absent, y);
            break;
        }
        case CD_REPORT_SHA1:
            CU_ASSERT_STRING_EQUAL(a, b);
            break;
        case CD_REPORT_BOOL:
            CU_ASSERT(*(const bool *)a == *(const bool *)b);
            break;
        case CD_REPORT_UINT:
            CU_ASSERT_EQUAL(*(const unsigned *)a, *(const unsigned *)b);
            break;
        default:
            CU_ASSERT_EQUAL(*(const uint64_t *)a, *(const uint64_t *)b);
        }
        checked++;
    }
    CU_ASSERT(checked > 20);
    cd_manifest_release(&m);

    /* the keys written are the table's, in its order, and no others */
    json_object *root = json_object_from_file(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    size_t row = 0;
    json_object_object_foreach(root, top, val)
    {
        if (!json_object_is_type(val, json_type_object) || strcmp(top, "labels") == 0)
            continue;
        json_object_object_foreach(val, key, v)
        {
            (void)v;
            char full[160];
            snprintf(full, sizeof full, "%s.%s", top, key);
            while (row < cd_report_n_fields && (!cd_report_fields[row].manifest ||
                                                strcmp(cd_report_fields[row].manifest, full) != 0))
                row++;
            if (row == cd_report_n_fields) {
                fprintf(stderr, "manifest key %s is not in the table, or out of order\n", full);
                CU_FAIL("a manifest key the table does not declare");
                row = 0;
            }
        }
    }
    json_object_put(root);
    free(path);
    cd_test_rmdir(dir);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"the table is well formed", test_table_well_formed},
        {"the man page documents every manifest key and its values", test_man_manifest},
        {"the man page's --json-summary keys are the table's", test_man_summary},
        {"the man page documents the nested records' keys", test_man_nested_records},
        {"a manifest round-trips every value the reader takes", test_round_trip},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("report", tests);
}
