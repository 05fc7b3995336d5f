/* The run report, declared once: every setting and statistic a run reports is one row of
 * cd_report_fields (report.c), naming its key in the manifest and in --json-summary, its type,
 * where its value lives, how the manifest reader takes it back, the texts it may hold and its
 * meaning. The manifest writer and reader and --json-summary walk the table; a test holds the
 * man page to it. A new statistic is one row. */
#ifndef CD_REPORT_H
#define CD_REPORT_H

#include "common/cd_common.h"

#include <stddef.h>

/* A value's type, as written. */
enum cd_report_kind {
    CD_REPORT_U64,        /* uint64_t, any value: a setting */
    CD_REPORT_UINT,       /* unsigned */
    CD_REPORT_COUNT,      /* uint64_t measured: read back only below 2^63 */
    CD_REPORT_BOOL,       /* bool */
    CD_REPORT_TEXT,       /* const char *, NULL written as the row's absent text (NULL: null) */
    CD_REPORT_SHA1,       /* char[41], hex */
    CD_REPORT_SECONDS,    /* uint64_t nanoseconds, written as seconds */
    CD_REPORT_SOLVER,     /* enum cd_cover_solver, written by name */
    CD_REPORT_EXECS_LEFT, /* uint64_t; null when 0 or UINT64_MAX (unknown, not converging) */
    CD_REPORT_CODE,       /* a list, an object or a derived value: the view's own code gives it */
};

/* Where a value lives: the struct its offset is in. */
enum cd_report_from {
    CD_FROM_CODE,   /* nowhere: the view's own code gives it */
    CD_FROM_INFO,   /* struct cd_manifest_info */
    CD_FROM_STATS,  /* struct cd_result_stats */
    CD_FROM_COUNTS, /* struct cd_report_counts */
    CD_FROM_TARGET, /* struct cd_target: the run's first (cd_manifest_info.targets), or in
                       cd_report_target_fields the target of the entry */
    CD_FROM_VIEW,   /* struct cd_manifest_view: what the output holds of that target */
    CD_FROM_EXAMPLE, /* struct cd_manifest_example: in cd_report_example_fields the entry's,
                        in cd_report_bug_fields its reproducer's */
    CD_FROM_BUG,    /* struct cd_manifest_bug: in cd_report_bug_fields, the entry's */
    CD_FROM_LABEL,  /* struct cd_manifest_label: in cd_report_label_fields, the entry's */
    CD_FROM_N
};

/* How the manifest reader takes a value back. */
enum cd_report_read {
    CD_READ_NO,       /* not read back */
    CD_READ_REQUIRED, /* a manifest without it, or with a wrong value, is refused */
    CD_READ_LATER,    /* manifests of earlier versions lack it: 0 when absent */
    CD_READ_CODE,     /* read by the reader's own code */
};

/* What a view shows. */
enum cd_report_view {
    CD_VIEW_MANIFEST, /* the manifest, keys "section.key" nested by section */
    CD_VIEW_SUMMARY,  /* --json-summary, one flat object */
};

/* Counts made from the output: by the manifest from the result, by the summary from what was
 * written. */
struct cd_report_counts {
    uint64_t seeds, seed_bytes, reproducers;
    uint64_t bugs;            /* distinct bugs (a crash state reached from two targets is one) */
    uint64_t labels, labels_finished;
    uint64_t unreported;      /* reproducers no sanitizer reported (cd_result_count_unreported) */
};

struct cd_report_field {
    const char *manifest;     /* "section.key", or "key" at the top; NULL: not in the manifest */
    const char *summary;      /* its key in --json-summary; NULL: not there */
    enum cd_report_kind kind;
    enum cd_report_from from;
    size_t offset;            /* of the value in its source struct */
    enum cd_report_read read;
    const char *absent;       /* TEXT: what a NULL value is written as (NULL: null) */
    const char *values;       /* the texts it may hold, "a|b|c"; NULL: any */
    const char *meaning;      /* one line */
    /* How the text summary shows it, "%s" standing for the value in decimal; a leading '?':
       only when it is not 0. NULL: not in the text summary (tests/e2e/test_summary.c checks
       the text against --json-summary row by row). */
    const char *text;
};

extern const struct cd_report_field cd_report_fields[];
extern const size_t cd_report_n_fields;

/* One target's entry, declared as the report's rows are: the manifest's "targets" (its key in
 * manifest, CD_VIEW_MANIFEST), --json-summary's and audit --json's (summary, CD_VIEW_SUMMARY). */
extern const struct cd_report_field cd_report_target_fields[];
extern const size_t cd_report_n_target_fields;

/* One entry of the manifest's "seeds", "reproducers" and "view_only", declared as the report's
 * rows are (CD_VIEW_MANIFEST). */
extern const struct cd_report_field cd_report_example_fields[];
extern const size_t cd_report_n_example_fields;

/* One entry of the manifest's "labels" (the label's text to these), declared as the report's
 * rows are (CD_VIEW_MANIFEST). */
extern const struct cd_report_field cd_report_label_fields[];
extern const size_t cd_report_n_label_fields;

/* One entry of the manifest's "bugs", declared as the report's rows are (CD_VIEW_MANIFEST). */
extern const struct cd_report_field cd_report_bug_fields[];
extern const size_t cd_report_n_bug_fields;

/* The JSON object the view's code gives for row f, or NULL for null; *omit set leaves the key
 * out. */
struct json_object;
typedef struct json_object *cd_report_code_fn(void *ctx, const struct cd_report_field *f,
                                              bool *omit);

/* Puts every row of view into root in the table's order: scalars from src (indexed by their
 * from), CODE rows as code gives them. Returns false when out of memory. */
bool cd_report_put(struct json_object *root, enum cd_report_view view,
                   const void *const src[CD_FROM_N], cd_report_code_fn *code, void *ctx);

/* The key of row f in view (the part after the section in the manifest), or NULL. */
const char *cd_report_key(const struct cd_report_field *f, enum cd_report_view view);

/* cd_report_put over the n rows of rows (cd_report_target_fields for a target's entry). */
bool cd_report_put_rows(struct json_object *root, enum cd_report_view view,
                        const struct cd_report_field *rows, size_t n,
                        const void *const src[CD_FROM_N], cd_report_code_fn *code, void *ctx);

/* Copies s for JSON, writing each byte that is not valid UTF-8 as "\xNN": NULL when out of
 * memory. */
char *cd_report_utf8_clean(const char *s);

#endif
