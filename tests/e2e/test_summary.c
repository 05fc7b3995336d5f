/* The text summary against the run report's table (src/output/report.c): a real run of the tool
 * on the HTTP sample prints its summary on stderr and --json-summary on stdout; every row the
 * table shows in the text says there what the JSON says ("out: 166 seeds" for seeds: 166), and a
 * row shown only when not 0 is absent when it is 0. */
#include "output/cd_report.h"
#include "harness.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The file at path, whole (NUL-terminated), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

static void test_text_summary_says_what_the_json_says(void)
{
    const char *bin = getenv("CD_BIN");
    char *target = cd_test_target("sample_http");
    if (!bin || !target || !cd_test_have_afl()) {
        free(target);
        cd_test_skip_all("AFL++, the tool or sample_http not available");
        return;
    }
    char *dir = cd_test_mkdtemp(), cmd[16384];
    /* a budget that leaves reproducers, size-bound labels and found labels left out, so that
       rows shown only when not 0 are seen shown */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' -j 1 --seed 3 --max-execs 60000 --json-summary "
             "'%s/sample_corpora/http.tar.zst' "
             "-o seeds -- '%s' @@ >summary.json 2>summary.txt",
             dir, bin, CD_SOURCE_DIR, target);
    int rc = system(cmd);
    CU_ASSERT_FATAL(WIFEXITED(rc) && WEXITSTATUS(rc) <= 1); /* 1: stopped by --max-execs */
    char *jpath = cd_test_join(dir, "summary.json"), *tpath = cd_test_join(dir, "summary.txt");
    json_object *j = json_object_from_file(jpath);
    char *text = slurp(tpath);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    size_t checked = 0, shown_optional = 0;
    for (size_t i = 0; i < cd_report_n_fields; i++) {
        const struct cd_report_field *f = &cd_report_fields[i];
        if (!f->text)
            continue;
        CU_ASSERT_PTR_NOT_NULL_FATAL(f->summary);
        json_object *v = NULL;
        CU_ASSERT_FATAL(json_object_object_get_ex(j, f->summary, &v));
        uint64_t value = json_object_get_uint64(v);
        bool optional = f->text[0] == '?';
        const char *pattern = f->text + optional, *at = strstr(pattern, "%s");
        CU_ASSERT_PTR_NOT_NULL_FATAL(at);
        char want[256];
        snprintf(want, sizeof want, "%.*s%llu%s", (int)(at - pattern), pattern,
                 (unsigned long long)value, at + 2);
        bool found = strstr(text, want) != NULL;
        if (optional && !value) { /* left out of the text */
            if (found)
                fprintf(stderr, "text summary shows %s though it is 0\n", f->summary);
            CU_ASSERT(!found);
            continue;
        }
        if (!found)
            fprintf(stderr, "text summary lacks \"%s\" (%s in --json-summary)\n", want,
                    f->summary);
        CU_ASSERT(found);
        checked++;
        shown_optional += optional;
    }
    printf("\n%zu phrases of the text summary checked, %zu of them shown only when not 0\n",
           checked, shown_optional);
    CU_ASSERT(checked >= 8);
    CU_ASSERT(shown_optional >= 2);
    json_object_put(j);
    free(text);
    free(jpath);
    free(tpath);
    free(target);
    cd_test_rmdir(dir);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"the text summary says what --json-summary says",
         test_text_summary_says_what_the_json_says},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("summary", tests);
}
