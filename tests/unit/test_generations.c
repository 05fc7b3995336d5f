/* Unit tests of the generations an output keeps (src/output/generations.c), on files made here:
 * a generation holds the output as it was (seeds, reproducers, manifest, state) whatever is
 * written after it; the newest one that already holds the manifest is not made twice; restore
 * puts the seeds, the reproducers, the state and the manifest back as they were, later
 * reproducers out and files of other names kept; prune keeps the newest N and sweeps what a
 * killed run left; an output without a manifest keeps nothing; a bad name is refused. */
#include "output/cd_generations.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The text of the file at path ("" when missing), into buf. */
static const char *text_of(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    return buf;
}

struct output {
    char *dir, *seeds, *crashes, *manifest, *state, *store;
    struct cd_gen_output o;
};

static void output_init(struct output *x)
{
    x->dir = cd_test_mkdtemp();
    x->seeds = cd_test_join(x->dir, "seeds");
    x->crashes = cd_test_join(x->dir, "seeds.crashes");
    x->manifest = cd_test_join(x->dir, "seeds.manifest.json");
    x->state = cd_test_join(x->dir, "seeds.state");
    x->store = cd_test_join(x->dir, "seeds.generations");
    x->o = (struct cd_gen_output){x->seeds, false, x->crashes, x->manifest, x->state};
}

static void output_release(struct output *x)
{
    cd_test_rmdir(x->dir);
    free(x->seeds);
    free(x->crashes);
    free(x->manifest);
    free(x->state);
    free(x->store);
}

/* Writes file name of dir with text (by temp file and rename, as the tool writes). */
static void put(const char *dir, const char *name, const char *text)
{
    char path[4400], tmp[4500];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    cd_test_write_text(tmp, text);
    CU_ASSERT_EQUAL(rename(tmp, path), 0);
}

static void day(struct output *x, const char *tag)
{
    char name[64], text[64];
    snprintf(name, sizeof name, "seed-%s", tag);
    snprintf(text, sizeof text, "seed of %s", tag);
    put(x->seeds, name, text);
    snprintf(name, sizeof name, "crash-%s", tag);
    put(x->crashes, name, text);
    snprintf(text, sizeof text, "manifest of %s", tag);
    put(x->dir, "seeds.manifest.json", text);
    snprintf(text, sizeof text, "state of %s", tag);
    put(x->dir, "seeds.state", text);
}

static void test_generations_keep_restore_prune(void)
{
    struct output x;
    output_init(&x);
    struct cd_error err;
    char *name = NULL, buf[256], path[4400];
    char **names;
    size_t n;
    /* nothing of ours yet: nothing kept */
    CU_ASSERT_EQUAL(cd_generations_keep(&x.o, x.store, &name, &err), CD_OK);
    CU_ASSERT_PTR_NULL(name);
    day(&x, "one");
    CU_ASSERT_EQUAL_FATAL(cd_generations_keep(&x.o, x.store, &name, &err), CD_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(name);
    char *first = name;
    /* the same output again: the newest already holds its manifest */
    CU_ASSERT_EQUAL(cd_generations_keep(&x.o, x.store, &name, &err), CD_OK);
    CU_ASSERT_PTR_NULL(name);
    /* the next night replaces the output: the generation keeps the first's bytes */
    char seed_one[4400];
    snprintf(seed_one, sizeof seed_one, "%s/seed-one", x.seeds);
    CU_ASSERT_EQUAL(unlink(seed_one), 0);
    day(&x, "two");
    snprintf(path, sizeof path, "%s/%s/manifest.json", x.store, first);
    CU_ASSERT_STRING_EQUAL(text_of(path, buf, sizeof buf), "manifest of one");
    snprintf(path, sizeof path, "%s/%s/seeds/seed-one", x.store, first);
    CU_ASSERT_STRING_EQUAL(text_of(path, buf, sizeof buf), "seed of one");
    /* a file of another tool's in the reproducers' directory stays through a restore */
    put(x.crashes, "README.txt", "theirs");
    CU_ASSERT_EQUAL_FATAL(cd_generations_keep(&x.o, x.store, &name, &err), CD_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(name);
    char *second = name;
    CU_ASSERT_EQUAL_FATAL(cd_generations_list(x.store, &names, &n, &err), CD_OK);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(names[0], second); /* newest first */
    CU_ASSERT_STRING_EQUAL(names[1], first);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    CU_ASSERT_EQUAL_FATAL(cd_generations_restore(&x.o, x.store, first, &err), CD_OK);
    CU_ASSERT_STRING_EQUAL(text_of(x.manifest, buf, sizeof buf), "manifest of one");
    CU_ASSERT_STRING_EQUAL(text_of(x.state, buf, sizeof buf), "state of one");
    CU_ASSERT_STRING_EQUAL(text_of(seed_one, buf, sizeof buf), "seed of one");
    snprintf(path, sizeof path, "%s/seed-two", x.seeds);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0); /* the seeds are the first night's, whole */
    snprintf(path, sizeof path, "%s/crash-two", x.crashes);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0); /* a later reproducer out (it is in second) */
    snprintf(path, sizeof path, "%s/crash-one", x.crashes);
    CU_ASSERT_EQUAL(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/README.txt", x.crashes);
    CU_ASSERT_STRING_EQUAL(text_of(path, buf, sizeof buf), "theirs");
    /* a killed run's temporary generation and all but the newest one go */
    snprintf(path, sizeof path, "%s/.tmp-deadbeef", x.store);
    CU_ASSERT_EQUAL(mkdir(path, 0700), 0);
    CU_ASSERT_EQUAL(cd_generations_prune(x.store, 1, &err), CD_OK);
    CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
    CU_ASSERT_EQUAL_FATAL(cd_generations_list(x.store, &names, &n, &err), CD_OK);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT(n == 1 && strcmp(names[0], second) == 0);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    /* names that are no generation's */
    CU_ASSERT_NOT_EQUAL(cd_generations_restore(&x.o, x.store, "../x", &err), CD_OK);
    CU_ASSERT_NOT_EQUAL(cd_generations_restore(&x.o, x.store, ".tmp-x", &err), CD_OK);
    CU_ASSERT_NOT_EQUAL(cd_generations_restore(&x.o, x.store, first, &err), CD_OK); /* pruned */
    /* 0 keeps none, and a missing store is no error */
    CU_ASSERT_EQUAL(cd_generations_prune(x.store, 0, &err), CD_OK);
    CU_ASSERT_EQUAL(cd_generations_list(x.store, &names, &n, &err), CD_OK);
    CU_ASSERT_EQUAL(n, 0);
    free(names);
    snprintf(path, sizeof path, "%s/none", x.dir);
    CU_ASSERT_EQUAL(cd_generations_prune(path, 1, &err), CD_OK);
    free(first);
    free(second);
    output_release(&x);
}

int main(void)
{
    CU_TestInfo tests[] = {
        {"test_generations_keep_restore_prune", test_generations_keep_restore_prune},
        CU_TEST_INFO_NULL,
    };
    return cd_test_run("generations", tests);
}
