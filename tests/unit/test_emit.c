/* Unit tests for emit: seed files named by content, reproducers kept apart, refusal to replace a
 * foreign directory, atomic replacement of our own, recovery of an interrupted swap. Results are
 * built by hand; nothing is executed. */
#include "output/cd_emit.h"
#include "common/cd_hash.h"
#include "output/cd_manifest.h"
#include "cli/cli.h"
#include "harness.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void add_example(struct cd_result *r, const char *data, const char *origin,
                        const char *const *labels, const char *const *best, bool reproducer)
{
    r->examples = realloc(r->examples, (r->n_examples + 1) * sizeof *r->examples);
    struct cd_result_example *ex = &r->examples[r->n_examples++];
    memset(ex, 0, sizeof *ex);
    ex->len = strlen(data);
    ex->data = malloc(ex->len + 1);
    memcpy(ex->data, data, ex->len + 1);
    ex->origin = strdup(origin);
    ex->reproducer = reproducer;
    cd_hash_sha1_hex(ex->data, ex->len, ex->sha1);
    uint32_t id;
    for (size_t i = 0; labels[i]; i++)
        if (cd_labels_parse(labels[i], &id))
            cd_labelset_push(&ex->labels, id);
    for (size_t i = 0; best[i]; i++) {
        if (!cd_labels_parse(best[i], &id))
            continue;
        cd_labelset_push(&ex->best, id);
        r->labels = realloc(r->labels, (r->n_labels + 1) * sizeof *r->labels);
        r->labels[r->n_labels++] = (struct cd_result_label){id, r->n_examples - 1, true, false, 0, NULL};
    }
}

static void free_result(struct cd_result *r)
{
    for (size_t i = 0; i < r->n_examples; i++) {
        free(r->examples[i].data);
        free(r->examples[i].origin);
        cd_labelset_release(&r->examples[i].labels);
        cd_labelset_release(&r->examples[i].best);
    }
    free(r->examples);
    free(r->labels);
    memset(r, 0, sizeof *r);
}

/* Two seeds and a crash reproducer (labels in sorted order of their ids). */
static void sample_result(struct cd_result *r, const char *variant)
{
    memset(r, 0, sizeof *r);
    add_example(r, variant, "in/a", (const char *[]){"000001:1", "000002:3", NULL},
                (const char *[]){"000001:1", "000002:3", NULL}, false);
    add_example(r, "{\"k\": [1, 2]}", "in.tar:b.json", (const char *[]){"000001:1", "000007:2", NULL},
                (const char *[]){"000007:2", NULL}, false);
    add_example(r, "crash me", "in/c", (const char *[]){"000001:1", "crash:SIGSEGV", NULL},
                (const char *[]){"crash:SIGSEGV", NULL}, true);
    r->stats.inputs = 3;
    r->stats.complete = true;
}

static size_t count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return (size_t)-1;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

/* Returns the content of the file at path (owned), or NULL. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = calloc(1, 4096);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Emits r fully (seeds, reproducers, manifest) as the tool does. */
static enum cd_status emit_all(const struct cd_emit_opts *o, const struct cd_result *r)
{
    struct cd_error err;
    struct cd_emit_stage *st;
    enum cd_status s = cd_emit_check(o, NULL, &err);
    if (s != CD_OK)
        return s;
    s = cd_emit_stage_seeds(&st, o, r, NULL, &err);
    if (s != CD_OK)
        return s;
    s = cd_emit_reproducers(o, r, NULL, &err);
    if (s != CD_OK) {
        cd_emit_abort(st);
        return s;
    }
    s = cd_emit_commit(st, NULL, &err);
    if (s != CD_OK)
        return s;
    struct cd_manifest_info info = {.seed_dir = (char *)o->seed_dir,
                                    .crashes_dir = (char *)o->crashes_dir};
    return cd_manifest_write(o->manifest_path, &info, r, &err);
}

struct fixture {
    char *root, *seeds, *crashes, *manifest;
    struct cd_emit_opts opts;
};

static void fixture_init(struct fixture *f)
{
    f->root = cd_test_mkdtemp();
    f->seeds = cd_test_join(f->root, "seeds");
    f->crashes = cd_test_join(f->root, "seeds.crashes");
    f->manifest = cd_test_join(f->root, "seeds.manifest.json");
    f->opts = (struct cd_emit_opts){.seed_dir = f->seeds, .crashes_dir = f->crashes,
                                    .manifest_path = f->manifest,
                                    .read_owned = cli_manifest_owned};
}

static void fixture_release(struct fixture *f)
{
    free(f->seeds);
    free(f->crashes);
    free(f->manifest);
    cd_test_rmdir(f->root);
}

static void test_emit_seed_names_are_sha1_of_content(void)
{
    struct fixture f;
    struct cd_result r;
    fixture_init(&f);
    sample_result(&r, "<a>hello</a>");
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r), CD_OK);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 2);
    for (size_t i = 0; i < 2; i++) {
        char hex[41];
        cd_hash_sha1_hex(r.examples[i].data, r.examples[i].len, hex);
        char *p = cd_test_join(f.seeds, hex);
        char *text = read_text(p);
        CU_ASSERT_PTR_NOT_NULL(text);
        if (text)
            CU_ASSERT_STRING_EQUAL(text, (char *)r.examples[i].data);
        free(text);
        free(p);
    }
    /* the directory holds seeds only: no stray temp dirs beside it either */
    CU_ASSERT_EQUAL(count_entries(f.root), 3); /* seeds, seeds.crashes, seeds.manifest.json */
    free_result(&r);
    fixture_release(&f);
}

static void test_emit_reproducers_never_in_seed_dir(void)
{
    struct fixture f;
    struct cd_result r;
    fixture_init(&f);
    sample_result(&r, "abc");
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r), CD_OK);
    char *in_seeds = cd_test_join(f.seeds, r.examples[2].sha1);
    CU_ASSERT_NOT_EQUAL(access(in_seeds, F_OK), 0);
    char name[64];
    CU_ASSERT_PTR_EQUAL(cd_result_file_name(&r, &r.examples[2], name, sizeof name), name);
    CU_ASSERT_EQUAL(strncmp(name, "crash-", 6), 0);
    CU_ASSERT_STRING_EQUAL(name + 6, r.examples[2].sha1);
    char *in_crashes = cd_test_join(f.crashes, name);
    char *text = read_text(in_crashes);
    CU_ASSERT_PTR_NOT_NULL(text);
    if (text)
        CU_ASSERT_STRING_EQUAL(text, "crash me");
    CU_ASSERT_EQUAL(count_entries(f.crashes), 1);
    free(text);
    free(in_seeds);
    free(in_crashes);
    free_result(&r);
    fixture_release(&f);
}

static void test_emit_no_crashes_dir_without_reproducers(void)
{
    struct fixture f;
    struct cd_result r;
    fixture_init(&f);
    sample_result(&r, "abc");
    r.n_examples = 2; /* drop the reproducer from view (still freed below) */
    r.n_labels = 3;
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r), CD_OK);
    CU_ASSERT_NOT_EQUAL(access(f.crashes, F_OK), 0);
    r.n_examples = 3;
    free_result(&r);
    fixture_release(&f);
}

static void test_emit_refuses_foreign_dir(void)
{
    struct fixture f;
    struct cd_result r;
    struct cd_error err;
    fixture_init(&f);
    sample_result(&r, "abc");
    mkdir(f.seeds, 0755);
    char *notes = cd_test_join(f.seeds, "notes.txt");
    cd_test_write_text(notes, "mine");
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, NULL, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "refusing"));
    CU_ASSERT_EQUAL(err.kind, CD_ERR_FOREIGN);
    CU_ASSERT_EQUAL(emit_all(&f.opts, &r), CD_FAILED);
    char *text = read_text(notes);
    CU_ASSERT_PTR_NOT_NULL(text);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 1);
    CU_ASSERT_EQUAL(count_entries(f.root), 1); /* no staged directory left behind */
    free(text);
    /* hex-named files alone do not make it ours: the manifest beside it must name it */
    unlink(notes);
    char *hexfile = cd_test_join(f.seeds, "0123456789abcdef0123456789abcdef01234567");
    cd_test_write_text(hexfile, "x");
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, NULL, &err), CD_FAILED);
    cd_test_write_text(notes, "mine");
    /* --force replaces it */
    f.opts.force = true;
    CU_ASSERT_EQUAL(emit_all(&f.opts, &r), CD_OK);
    CU_ASSERT_NOT_EQUAL(access(notes, F_OK), 0);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 2);
    free(hexfile);
    free(notes);
    free_result(&r);
    fixture_release(&f);
}

static void test_emit_refuses_non_directory(void)
{
    struct fixture f;
    struct cd_error err;
    fixture_init(&f);
    cd_test_write_text(f.seeds, "a file");
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, NULL, &err), CD_FAILED);
    f.opts.force = true;
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, NULL, &err), CD_FAILED);
    fixture_release(&f);
}

static void test_emit_replaces_own_dir(void)
{
    struct fixture f;
    struct cd_result r1, r2;
    struct cd_error err;
    fixture_init(&f);
    sample_result(&r1, "first");
    sample_result(&r2, "second");
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r1), CD_OK);
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, NULL, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r2), CD_OK);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 2);
    char *old = cd_test_join(f.seeds, r1.examples[0].sha1);
    char *new = cd_test_join(f.seeds, r2.examples[0].sha1);
    CU_ASSERT_NOT_EQUAL(access(old, F_OK), 0);
    CU_ASSERT_EQUAL(access(new, F_OK), 0);
    CU_ASSERT_EQUAL(count_entries(f.root), 3);
    free(old);
    free(new);
    free_result(&r1);
    free_result(&r2);
    fixture_release(&f);
}

static bool keep_all(const struct cd_result_example *ex, void *ctx)
{
    (void)ex;
    (void)ctx;
    return true;
}

/* Every example named "x", then "x.K" while taken. */
static const char *named_x(const struct cd_result_example *ex, unsigned k, char *buf, size_t cap,
                           void *ctx)
{
    (void)ex;
    (void)ctx;
    if (k > 5)
        return NULL;
    snprintf(buf, cap, k ? "x.%u" : "x", k);
    return buf;
}

/* With keep and name (as cmin stages its output), the kept examples go in under the names given,
 * the next choice taken where a name is; a name with no other choice left fails the stage. */
static void test_emit_stage_keep_and_name(void)
{
    struct fixture f;
    struct cd_result r;
    struct cd_error err;
    struct cd_emit_stage *st;
    struct cd_emit_stats stats = {0};
    fixture_init(&f);
    sample_result(&r, "first");
    f.opts.keep = keep_all;
    f.opts.name = named_x;
    CU_ASSERT_EQUAL_FATAL(cd_emit_stage_seeds(&st, &f.opts, &r, &stats, &err), CD_OK);
    CU_ASSERT_EQUAL(stats.seeds, 3); /* the reproducer too: keep says so */
    CU_ASSERT_EQUAL(cd_emit_commit(st, NULL, &err), CD_OK);
    for (const char *const *n = (const char *const[]){"x", "x.1", "x.2", NULL}; *n; n++) {
        char *p = cd_test_join(f.seeds, *n);
        CU_ASSERT_EQUAL(access(p, F_OK), 0);
        free(p);
    }
    CU_ASSERT_EQUAL(count_entries(f.seeds), 3);
    free_result(&r);
    /* seven examples, six names: the stage fails, naming the one taken, and leaves nothing */
    memset(&r, 0, sizeof r);
    for (int i = 0; i < 7; i++) {
        char data[8];
        snprintf(data, sizeof data, "d%d", i);
        add_example(&r, data, "in/a", (const char *[]){"000001:1", NULL},
                    (const char *[]){"000001:1", NULL}, false);
    }
    char *other = cd_test_join(f.root, "other");
    f.opts.seed_dir = other;
    CU_ASSERT_NOT_EQUAL(cd_emit_stage_seeds(&st, &f.opts, &r, NULL, &err), CD_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "x.5"));
    CU_ASSERT_NOT_EQUAL(access(other, F_OK), 0);
    CU_ASSERT_EQUAL(count_entries(f.root), 1); /* the first corpus, no staged directory left */
    free(other);
    free_result(&r);
    fixture_release(&f);
}

static void test_emit_interrupted_swap_keeps_old(void)
{
    struct fixture f;
    struct cd_result r1, r2;
    struct cd_error err;
    struct cd_emit_stage *st;
    fixture_init(&f);
    sample_result(&r1, "first");
    sample_result(&r2, "second");
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r1), CD_OK);
    char *old = cd_test_join(f.seeds, r1.examples[0].sha1);

    /* the process dies after staging, before the swap: the staged dir is left, the old is whole */
    CU_ASSERT_EQUAL_FATAL(cd_emit_stage_seeds(&st, &f.opts, &r2, NULL, &err), CD_OK);
    char *staged = strdup(cd_emit_stage_path(st));
    CU_ASSERT_EQUAL(count_entries(staged), 2);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 2);
    CU_ASSERT_EQUAL(access(old, F_OK), 0);
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, NULL, &err), CD_OK);

    /* the process dies between the two renames of the fallback swap: the old corpus is aside */
    char *aside = cd_test_join(f.root, ".seeds.old-Ab12Cd");
    CU_ASSERT_EQUAL_FATAL(rename(f.seeds, aside), 0);
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, NULL, &err), CD_OK); /* puts it back */
    CU_ASSERT_EQUAL(access(old, F_OK), 0);
    CU_ASSERT_NOT_EQUAL(access(aside, F_OK), 0);

    /* the next complete run replaces the corpus and clears what the dead run left */
    CU_ASSERT_EQUAL(cd_emit_commit(st, NULL, &err), CD_OK);
    CU_ASSERT_NOT_EQUAL(access(old, F_OK), 0);
    CU_ASSERT_NOT_EQUAL(access(staged, F_OK), 0);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 2);
    CU_ASSERT_EQUAL(count_entries(f.root), 3);
    free(aside);
    free(staged);
    free(old);
    free_result(&r1);
    free_result(&r2);
    fixture_release(&f);
}

static void test_emit_output_named_as_input(void)
{
    struct fixture f;
    struct cd_result r1, r2;
    fixture_init(&f);
    sample_result(&r1, "first");
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r1), CD_OK);
    /* the nightly job: read DIR as an input, then write the new corpus to DIR */
    char *p = cd_test_join(f.seeds, r1.examples[1].sha1);
    char *kept = read_text(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(kept);
    sample_result(&r2, "a better first");
    free(r2.examples[1].data);
    r2.examples[1].data = (uint8_t *)kept;
    r2.examples[1].len = strlen(kept);
    cd_hash_sha1_hex(kept, strlen(kept), r2.examples[1].sha1);
    CU_ASSERT_EQUAL(emit_all(&f.opts, &r2), CD_OK);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 2);
    char *text = read_text(p);
    CU_ASSERT_PTR_NOT_NULL(text);
    if (text)
        CU_ASSERT_STRING_EQUAL(text, "{\"k\": [1, 2]}");
    free(text);
    free(p);
    free_result(&r1);
    free_result(&r2);
    fixture_release(&f);
}

/* A file that another tool wrote into our own directory (libFuzzer names its finds by SHA-1) is
 * not a seed our manifest lists: the directory is not replaced, unless it is an input of the run,
 * and then the file is counted as an input. */
static void test_emit_keeps_files_its_manifest_does_not_list(void)
{
    struct fixture f;
    struct cd_result r1, r2;
    struct cd_error err;
    fixture_init(&f);
    sample_result(&r1, "first");
    sample_result(&r2, "second");
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r1), CD_OK);
    char *find = cd_test_join(f.seeds, "0123456789abcdef0123456789abcdef01234567");
    cd_test_write_text(find, "a libFuzzer find");
    size_t unlisted = 99;
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, &unlisted, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1 file in it (first "
                                           "'0123456789abcdef0123456789abcdef01234567')"));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    CU_ASSERT_EQUAL(unlisted, 0);
    CU_ASSERT_EQUAL(emit_all(&f.opts, &r2), CD_FAILED);
    char *text = read_text(find);
    CU_ASSERT_PTR_NOT_NULL(text);
    free(text);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 3);
    CU_ASSERT_EQUAL(count_entries(f.root), 3); /* seeds, manifest, crashes: nothing staged left */
    f.opts.seed_dir_is_input = true;
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, &unlisted, &err), CD_OK);
    CU_ASSERT_EQUAL(unlisted, 1);
    CU_ASSERT_EQUAL(emit_all(&f.opts, &r2), CD_OK);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 2);
    free(find);
    free_result(&r1);
    free_result(&r2);
    fixture_release(&f);
}

/* --force replaces a directory that is not ours by moving it aside, never by deleting it. */
static void test_emit_force_moves_foreign_dir_aside(void)
{
    struct fixture f;
    struct cd_result r;
    struct cd_error err;
    struct cd_emit_stage *st;
    fixture_init(&f);
    sample_result(&r, "abc");
    mkdir(f.seeds, 0755);
    char *notes = cd_test_join(f.seeds, "notes.txt");
    cd_test_write_text(notes, "mine");
    f.opts.force = true;
    CU_ASSERT_EQUAL_FATAL(cd_emit_stage_seeds(&st, &f.opts, &r, NULL, &err), CD_OK);
    char *replaced = NULL;
    CU_ASSERT_EQUAL_FATAL(cd_emit_commit(st, &replaced, &err), CD_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(replaced);
    CU_ASSERT_EQUAL(count_entries(f.seeds), 2);
    char *moved = cd_test_join(replaced, "notes.txt");
    char *text = read_text(moved);
    CU_ASSERT_PTR_NOT_NULL(text);
    if (text)
        CU_ASSERT_STRING_EQUAL(text, "mine");
    CU_ASSERT_PTR_NOT_NULL(strstr(replaced, "/seeds.replaced-"));
    /* our own directory, replaced again, is removed: nothing more is kept aside */
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &r), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_emit_stage_seeds(&st, &f.opts, &r, NULL, &err), CD_OK);
    char *again = NULL;
    CU_ASSERT_EQUAL(cd_emit_commit(st, &again, &err), CD_OK);
    CU_ASSERT_PTR_NULL(again);
    free(text);
    free(moved);
    free(replaced);
    free(notes);
    free_result(&r);
    fixture_release(&f);
}

/* One run per output at a time: a second lock fails at once; the lock file goes with the lock. */
static void test_emit_lock_is_exclusive(void)
{
    struct fixture f;
    struct cd_error err;
    struct cd_emit_lock a, b;
    fixture_init(&f);
    CU_ASSERT_EQUAL_FATAL(cd_emit_lock(&f.opts, &a, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_emit_lock(&f.opts, &b, &err), CD_FAILED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "another corpus-distill run is writing"));
    CU_ASSERT_EQUAL(b.fd, -1);
    char *path = strdup(a.path);
    cd_emit_unlock(&a);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
    CU_ASSERT_EQUAL(cd_emit_lock(&f.opts, &b, &err), CD_OK);
    cd_emit_unlock(&b);
    cd_emit_unlock(&b); /* not held: a no-op */
    free(path);
    fixture_release(&f);
}

/* Taking the lock clears the temp files killed runs left: beside the corpus and the manifest at
 * once, in the shared reproducer directory only when untouched for a while. */
static void test_emit_lock_clears_killed_runs_temp_files(void)
{
    struct fixture f;
    struct cd_error err;
    struct cd_emit_lock lk;
    fixture_init(&f);
    mkdir(f.crashes, 0755);
    const char *gone[] = {".seeds.manifest.json.tmp-Ab12Cd", ".seeds.tmp-Zz99Yy"};
    const char *kept[] = {".other.tmp-Ab12Cd", ".seeds.manifest.json.tmp-toolong"};
    char *p;
    for (int i = 0; i < 2; i++) {
        cd_test_write_text(p = cd_test_join(f.root, gone[i]), "partial");
        free(p);
        cd_test_write_text(p = cd_test_join(f.root, kept[i]), "not ours");
        free(p);
    }
    char *old = cd_test_join(f.crashes, ".crash-0123.tmp-Qq11Ww");
    char *fresh = cd_test_join(f.crashes, ".crash-4567.tmp-Rr22Xx");
    cd_test_write_text(old, "partial");
    cd_test_write_text(fresh, "being written");
    struct timespec times[2] = {{.tv_sec = time(NULL) - 3600}, {.tv_sec = time(NULL) - 3600}};
    CU_ASSERT_EQUAL(utimensat(AT_FDCWD, old, times, 0), 0);
    CU_ASSERT_EQUAL_FATAL(cd_emit_lock(&f.opts, &lk, &err), CD_OK);
    for (int i = 0; i < 2; i++) {
        p = cd_test_join(f.root, gone[i]);
        CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
        free(p);
        p = cd_test_join(f.root, kept[i]);
        CU_ASSERT_EQUAL(access(p, F_OK), 0);
        free(p);
    }
    CU_ASSERT_NOT_EQUAL(access(old, F_OK), 0);
    CU_ASSERT_EQUAL(access(fresh, F_OK), 0);
    cd_emit_unlock(&lk);
    free(old);
    free(fresh);
    fixture_release(&f);
}

/* A run killed between swapping its seeds in and renaming its manifest into place: the next lock
 * finds the complete manifest in its temp file, sees that it lists exactly the seed directory's
 * files, and renames it into place; a temp manifest of a run killed before its swap (its seeds
 * are not the directory's) is only swept. The pair is whole again and nothing is unlisted. */
static void test_emit_lock_completes_an_interrupted_commit(void)
{
    struct fixture f;
    struct cd_result a, b, c;
    struct cd_error err;
    struct cd_emit_lock lk;
    fixture_init(&f);
    sample_result(&a, "first");
    sample_result(&b, "second");
    sample_result(&c, "third");
    CU_ASSERT_EQUAL_FATAL(emit_all(&f.opts, &a), CD_OK);
    struct cd_emit_stage *st;
    CU_ASSERT_EQUAL_FATAL(cd_emit_stage_seeds(&st, &f.opts, &b, NULL, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(cd_emit_commit(st, NULL, &err), CD_OK); /* killed right after this */
    struct cd_manifest_info info = {.seed_dir = f.seeds, .crashes_dir = f.crashes};
    char *text_b = cd_manifest_to_string(&info, &b), *text_c = cd_manifest_to_string(&info, &c);
    char *tmp_b = cd_test_join(f.root, ".seeds.manifest.json.tmp-Kill01");
    char *tmp_c = cd_test_join(f.root, ".seeds.manifest.json.tmp-Kill02");
    cd_test_write_text(tmp_c, text_c);
    cd_test_write_text(tmp_b, text_b);
    size_t unlisted = 0;
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, &unlisted, &err), CD_FAILED); /* split: refused */

    CU_ASSERT_EQUAL_FATAL(cd_emit_lock(&f.opts, &lk, &err), CD_OK);
    char *now = read_text(f.manifest);
    CU_ASSERT_STRING_EQUAL(now, text_b);
    CU_ASSERT_NOT_EQUAL(access(tmp_b, F_OK), 0);
    CU_ASSERT_NOT_EQUAL(access(tmp_c, F_OK), 0);
    CU_ASSERT_EQUAL(cd_emit_check(&f.opts, &unlisted, &err), CD_OK);
    CU_ASSERT_EQUAL(unlisted, 0);
    cd_emit_unlock(&lk);
    free(now);
    free(text_b);
    free(text_c);
    free(tmp_b);
    free(tmp_c);
    free_result(&a);
    free_result(&b);
    free_result(&c);
    fixture_release(&f);
}

static void test_emit_creates_missing_parents(void)
{
    struct fixture f;
    struct cd_result r;
    fixture_init(&f);
    sample_result(&r, "abc");
    char *deep = cd_test_join(f.root, "out/nightly/seeds");
    f.opts.seed_dir = deep;
    CU_ASSERT_EQUAL(emit_all(&f.opts, &r), CD_OK);
    CU_ASSERT_EQUAL(count_entries(deep), 2);
    free(deep);
    free_result(&r);
    fixture_release(&f);
}

static void test_emit_tar_holds_seeds_only(void)
{
    struct fixture f;
    struct cd_result r;
    struct cd_error err;
    fixture_init(&f);
    sample_result(&r, "<a>tar</a>");
    char *tar = cd_test_join(f.root, "seeds.tar.zst");
    f.opts.seed_dir = tar;
    f.opts.tar = true;
    /* a file the manifest does not name is not replaced */
    cd_test_write_text(tar, "not ours");
    CU_ASSERT_EQUAL(cd_emit_tar(&f.opts, &r, NULL, &err), CD_FAILED);
    char *text = read_text(tar);
    CU_ASSERT(text && strcmp(text, "not ours") == 0);
    free(text);
    unlink(tar);
    struct cd_emit_stats stats = {0};
    CU_ASSERT_EQUAL_FATAL(cd_emit_tar(&f.opts, &r, &stats, &err), CD_OK);
    CU_ASSERT_EQUAL(stats.seeds, 2);
    struct archive *a = archive_read_new();
    archive_read_support_filter_all(a);
    archive_read_support_format_all(a);
    CU_ASSERT_EQUAL_FATAL(archive_read_open_filename(a, tar, 10240), ARCHIVE_OK);
    struct archive_entry *e;
    size_t n = 0;
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        char buf[256] = {0}, hex[41];
        la_ssize_t got = archive_read_data(a, buf, sizeof buf - 1);
        CU_ASSERT(got >= 0);
        cd_hash_sha1_hex(buf, (size_t)(got > 0 ? got : 0), hex);
        CU_ASSERT_STRING_EQUAL(archive_entry_pathname(e), hex);
        CU_ASSERT(strcmp(hex, r.examples[2].sha1) != 0); /* never the reproducer */
        n++;
    }
    archive_read_free(a);
    CU_ASSERT_EQUAL(n, 2);
    /* once the manifest names it, a rerun may replace it */
    struct cd_manifest_info info = {.seed_dir = tar};
    CU_ASSERT_EQUAL(cd_manifest_write(f.manifest, &info, &r, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_emit_tar(&f.opts, &r, NULL, &err), CD_OK);
    CU_ASSERT_EQUAL(count_entries(f.root), 2); /* the archive and the manifest, no temp file */
    free(tar);
    free_result(&r);
    fixture_release(&f);
}

static void test_emit_seed_name_check(void)
{
    CU_ASSERT(cd_result_is_seed_name("da39a3ee5e6b4b0d3255bfef95601890afd80709"));
    CU_ASSERT(!cd_result_is_seed_name("da39a3ee5e6b4b0d3255bfef95601890afd8070"));
    CU_ASSERT(!cd_result_is_seed_name("DA39A3EE5E6B4B0D3255BFEF95601890AFD80709"));
    CU_ASSERT(!cd_result_is_seed_name("README.txt"));
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_emit_seed_names_are_sha1_of_content", test_emit_seed_names_are_sha1_of_content},
        {"test_emit_stage_keep_and_name", test_emit_stage_keep_and_name},
        {"test_emit_reproducers_never_in_seed_dir", test_emit_reproducers_never_in_seed_dir},
        {"test_emit_no_crashes_dir_without_reproducers", test_emit_no_crashes_dir_without_reproducers},
        {"test_emit_refuses_foreign_dir", test_emit_refuses_foreign_dir},
        {"test_emit_refuses_non_directory", test_emit_refuses_non_directory},
        {"test_emit_replaces_own_dir", test_emit_replaces_own_dir},
        {"test_emit_interrupted_swap_keeps_old", test_emit_interrupted_swap_keeps_old},
        {"test_emit_output_named_as_input", test_emit_output_named_as_input},
        {"test_emit_keeps_files_its_manifest_does_not_list",
         test_emit_keeps_files_its_manifest_does_not_list},
        {"test_emit_force_moves_foreign_dir_aside", test_emit_force_moves_foreign_dir_aside},
        {"test_emit_lock_is_exclusive", test_emit_lock_is_exclusive},
        {"test_emit_lock_clears_killed_runs_temp_files",
         test_emit_lock_clears_killed_runs_temp_files},
        {"test_emit_lock_completes_an_interrupted_commit",
         test_emit_lock_completes_an_interrupted_commit},
        {"test_emit_creates_missing_parents", test_emit_creates_missing_parents},
        {"test_emit_tar_holds_seeds_only", test_emit_tar_holds_seeds_only},
        {"test_emit_seed_name_check", test_emit_seed_name_check},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("emit", tests);
}
