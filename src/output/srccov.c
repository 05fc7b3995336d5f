/* Source coverage of seeds (see cd_srccov.h). llvm-cov's lcov export is read rather than its JSON
 * export: in lcov form llvm-cov itself turns its regions into per-line counts (DA) and per-function
 * counts (FNDA), which the JSON form leaves to the reader as region segments. Functions are kept
 * sorted by name and files by path, so that each export is matched by binary search. */
#include "cd_srccov.h"
#include "common/cd_file.h"
#include "common/cd_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Runs argv with stdin from in_path (NULL: /dev/null), LLVM_PROFILE_FILE set to profile (NULL:
 * unset) and stdout into *out (NULL: discarded; owned, NUL-terminated), killing it after
 * timeout_ms (0: never; counted once its stdout is read to the end). Returns its wait status, or
 * -1 with errno when it cannot be run or its output not held (ENOMEM). */
static int run(char *const *argv, const char *in_path, const char *profile, char **out,
               unsigned timeout_ms)
{
    int pipefd[2] = {-1, -1};
    if (out && pipe(pipefd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        if (out) {
            close(pipefd[0]);
            close(pipefd[1]);
        }
        errno = e;
        return -1;
    }
    if (pid == 0) {
        int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
        int null = open("/dev/null", O_WRONLY);
        if (in < 0 || null < 0)
            _exit(127);
        dup2(in, 0);
        dup2(out ? pipefd[1] : null, 1);
        dup2(null, 2);
        if (profile)
            setenv("LLVM_PROFILE_FILE", profile, 1);
        else
            unsetenv("LLVM_PROFILE_FILE");
        setpgid(0, 0); /* a timeout kills what the target started too */
        execvp(argv[0], argv);
        _exit(127);
    }
    size_t len = 0, cap = 0;
    char *buf = NULL;
    bool oom = false;
    if (out) { /* read to the end (no timeout here), so that the child never blocks writing */
        close(pipefd[1]);
        for (;;) {
            char sink[4096];
            if (!oom && len + 4096 > cap) {
                char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
                oom = nb == NULL;
                if (nb)
                    buf = nb;
            }
            ssize_t n = oom ? read(pipefd[0], sink, sizeof sink)
                            : read(pipefd[0], buf + len, cap - len - 1);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            len += oom ? 0 : (size_t)n;
        }
        close(pipefd[0]);
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, timeout_ms ? WNOHANG : 0);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            status = -1;
            break;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >
            (long)timeout_ms) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            timeout_ms = 0; /* now wait for it */
            continue;
        }
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    if (out && oom) {
        free(buf);
        *out = NULL;
        errno = ENOMEM;
        return -1;
    }
    if (out) {
        if (buf)
            buf[len] = '\0';
        *out = buf;
    }
    return status;
}

static int cmp_fn(const void *a, const void *b)
{
    return strcmp(((const struct cd_srccov_fn *)a)->name, ((const struct cd_srccov_fn *)b)->name);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_branch(const void *a, const void *b)
{
    const struct cd_srccov_branch *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    return x->dir < y->dir ? -1 : x->dir > y->dir;
}

/* Parses "BRDA:line,block,branch,taken" at text (past "BRDA:") into *b (file set by the caller)
 * and *taken (0 for "-"); false when malformed. */
static bool parse_brda(const char *text, struct cd_srccov_branch *b, uint64_t *taken)
{
    char *end;
    b->line = (uint32_t)strtoul(text, &end, 10);
    if (*end != ',')
        return false;
    b->block = (uint32_t)strtoul(end + 1, &end, 10);
    if (*end != ',')
        return false;
    b->dir = (uint32_t)strtoul(end + 1, &end, 10);
    if (*end != ',')
        return false;
    *taken = end[1] == '-' ? 0 : strtoull(end + 1, NULL, 10);
    return true;
}

static long find_file_exact(const struct cd_srccov *c, const char *path)
{
    char *const *hit =
        c->n_files ? bsearch(&path, c->files, c->n_files, sizeof *c->files, cd_cmp_strp) : NULL;
    return hit ? (long)(hit - c->files) : -1;
}

static long find_fn_exact(const struct cd_srccov *c, const char *name)
{
    struct cd_srccov_fn key = {.name = (char *)name};
    const struct cd_srccov_fn *hit =
        c->n_fns ? bsearch(&key, c->fns, c->n_fns, sizeof *c->fns, cmp_fn) : NULL;
    return hit ? (long)(hit - c->fns) : -1;
}

long cd_srccov_find_fn(const struct cd_srccov *c, const char *name)
{
    long i = find_fn_exact(c, name);
    for (size_t k = 0; i < 0 && k < c->n_fns; k++) {
        const char *colon = strrchr(c->fns[k].name, ':');
        if (colon && strcmp(colon + 1, name) == 0)
            i = (long)k;
    }
    return i;
}

long cd_srccov_find_file(const struct cd_srccov *c, const char *path)
{
    long i = find_file_exact(c, path);
    size_t n = strlen(path);
    for (size_t k = 0; i < 0 && k < c->n_files; k++) {
        size_t m = strlen(c->files[k]);
        if (m > n && c->files[k][m - n - 1] == '/' && strcmp(c->files[k] + m - n, path) == 0)
            i = (long)k;
    }
    return i;
}

bool cd_srccov_has(const uint32_t *v, size_t n, uint32_t x)
{
    return n && bsearch(&x, v, n, sizeof *v, cmp_u32) != NULL;
}

bool cd_srccov_line_reached(const struct cd_srccov *c, size_t file, uint32_t line)
{
    for (size_t i = 0; i < c->n_seeds; i++)
        if (c->seeds[i].measured &&
            cd_srccov_has(c->seeds[i].lines[file], c->seeds[i].n_lines[file], line))
            return true;
    return false;
}

void cd_srccov_mark_reached(const struct cd_srccov *c, bool *fns, bool *branches)
{
    for (size_t i = 0; i < c->n_seeds; i++) {
        for (size_t k = 0; fns && k < c->seeds[i].n_fns; k++)
            fns[c->seeds[i].fns[k]] = true;
        for (size_t k = 0; branches && k < c->seeds[i].n_brs; k++)
            branches[c->seeds[i].brs[k]] = true;
    }
}

const struct cd_srccov_seed *cd_srccov_find(const struct cd_srccov *c, const char *sha1)
{
    for (size_t i = 0; i < c->n_seeds; i++)
        if (strcmp(c->seeds[i].sha1, sha1) == 0)
            return &c->seeds[i];
    return NULL;
}

/* Appends v to the growing array *a of *n elements (capacity *cap); false when out of memory. */
static bool push_u32(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        uint32_t *na = realloc(*a, nc * sizeof *na);
        if (!na)
            return false;
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = v;
    return true;
}

/* Appends a copy of the n bytes at name to c's files; false when out of memory. */
static bool add_file(struct cd_srccov *c, const char *name, size_t n)
{
    char **nf = realloc(c->files, (c->n_files + 1) * sizeof *nf);
    if (!nf)
        return false;
    c->files = nf;
    if (!(nf[c->n_files] = strndup(name, n)))
        return false;
    c->n_files++;
    return true;
}

/* Appends function name (n bytes) at line of the last file to c's functions (*cap their
 * capacity). */
static bool add_fn(struct cd_srccov *c, size_t *cap, const char *name, size_t n, uint32_t line)
{
    if (c->n_fns == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        struct cd_srccov_fn *nf = realloc(c->fns, nc * sizeof *nf);
        if (!nf)
            return false;
        c->fns = nf;
        *cap = nc;
    }
    struct cd_srccov_fn *f = &c->fns[c->n_fns];
    f->line = line;
    f->file = (uint32_t)(c->n_files - 1);
    if (!(f->name = strndup(name, n)))
        return false;
    c->n_fns++;
    return true;
}

/* The program's files, functions and instrumented lines, from an lcov export (read, not
 * changed). */
static bool learn_program(struct cd_srccov *c, const char *text)
{
    size_t cap = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        const char *comma = memchr(line, ',', n);
        bool ok = true;
        if (strncmp(line, "SF:", 3) == 0)
            ok = add_file(c, line + 3, n - 3);
        else if (strncmp(line, "FN:", 3) == 0 && c->n_files && comma)
            ok = add_fn(c, &cap, comma + 1, (size_t)(line + n - comma - 1),
                        (uint32_t)strtoul(line + 3, NULL, 10));
        if (!ok)
            return false;
        line = end ? end + 1 : NULL;
    }
    /* Sort files by path, keeping the functions' file indices right. */
    char **order = malloc((c->n_files + 1) * sizeof *order);
    if (!order)
        return false;
    memcpy(order, c->files, c->n_files * sizeof *order);
    qsort(c->files, c->n_files, sizeof *c->files, cd_cmp_strp);
    for (size_t i = 0; i < c->n_fns; i++)
        c->fns[i].file = (uint32_t)find_file_exact(c, order[c->fns[i].file]);
    free(order);
    qsort(c->fns, c->n_fns, sizeof *c->fns, cmp_fn);
    c->lines = calloc(c->n_files + 1, sizeof *c->lines);
    c->n_lines = calloc(c->n_files + 1, sizeof *c->n_lines);
    size_t *lcap = calloc(c->n_files + 1, sizeof *lcap), bcap = 0;
    bool ok = c->lines && c->n_lines && lcap;
    long file = -1;
    for (const char *line = text; ok && line && *line;) {
        if (strncmp(line, "SF:", 3) == 0) {
            const char *end = strchr(line, '\n');
            char *path = strndup(line + 3, end ? (size_t)(end - line - 3) : strlen(line + 3));
            ok = path != NULL;
            file = ok ? find_file_exact(c, path) : -1;
            free(path);
        } else if (strncmp(line, "DA:", 3) == 0 && file >= 0) {
            ok = push_u32(&c->lines[file], &c->n_lines[file], &lcap[file],
                          (uint32_t)strtoul(line + 3, NULL, 10));
        } else if (strncmp(line, "BRDA:", 5) == 0 && file >= 0) {
            struct cd_srccov_branch b = {.file = (uint32_t)file};
            uint64_t taken;
            if (parse_brda(line + 5, &b, &taken)) {
                if (c->n_branches == bcap) {
                    bcap = bcap ? 2 * bcap : 256;
                    struct cd_srccov_branch *nb = realloc(c->branches, bcap * sizeof *nb);
                    ok = nb != NULL;
                    if (nb)
                        c->branches = nb;
                }
                if (ok)
                    c->branches[c->n_branches++] = b;
            }
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    for (size_t f = 0; ok && f < c->n_files; f++)
        qsort(c->lines[f], c->n_lines[f], sizeof **c->lines, cmp_u32);
    if (ok && c->n_branches) {
        qsort(c->branches, c->n_branches, sizeof *c->branches, cmp_branch);
        size_t k = 1; /* a branch met twice (a macro expanded twice) counts once */
        for (size_t i = 1; i < c->n_branches; i++)
            if (cmp_branch(&c->branches[i], &c->branches[k - 1]) != 0)
                c->branches[k++] = c->branches[i];
        c->n_branches = k;
    }
    free(lcap);
    return ok;
}

/* Reads one seed's export (changed while read) into s, against the program c knows. */
static bool read_export(const struct cd_srccov *c, struct cd_srccov_seed *s, char *text)
{
    size_t fcap = 0, bcap = 0, *lcap = calloc(c->n_files + 1, sizeof *lcap);
    s->lines = calloc(c->n_files + 1, sizeof *s->lines);
    s->n_lines = calloc(c->n_files + 1, sizeof *s->n_lines);
    bool ok = lcap && s->lines && s->n_lines;
    long file = -1;
    for (char *line = text, *next; ok && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "SF:", 3) == 0) {
            file = find_file_exact(c, line + 3);
        } else if (strncmp(line, "FNDA:", 5) == 0) {
            char *comma = strchr(line + 5, ',');
            long i = comma ? find_fn_exact(c, comma + 1) : -1;
            if (i >= 0 && strtoull(line + 5, NULL, 10) > 0)
                ok = push_u32(&s->fns, &s->n_fns, &fcap, (uint32_t)i);
        } else if (strncmp(line, "DA:", 3) == 0 && file >= 0) {
            char *comma = strchr(line + 3, ',');
            uint32_t n = (uint32_t)strtoul(line + 3, NULL, 10);
            if (comma && strtoull(comma + 1, NULL, 10) > 0)
                ok = push_u32(&s->lines[file], &s->n_lines[file], &lcap[file], n);
        } else if (strncmp(line, "BRDA:", 5) == 0 && file >= 0) {
            struct cd_srccov_branch b = {.file = (uint32_t)file};
            uint64_t taken;
            const struct cd_srccov_branch *hit =
                parse_brda(line + 5, &b, &taken) && taken && c->n_branches
                    ? bsearch(&b, c->branches, c->n_branches, sizeof b, cmp_branch)
                    : NULL;
            if (hit)
                ok = push_u32(&s->brs, &s->n_brs, &bcap, (uint32_t)(hit - c->branches));
        }
    }
    for (size_t f = 0; ok && f < c->n_files; f++)
        qsort(s->lines[f], s->n_lines[f], sizeof **s->lines, cmp_u32);
    if (ok) {
        qsort(s->fns, s->n_fns, sizeof *s->fns, cmp_u32);
        qsort(s->brs, s->n_brs, sizeof *s->brs, cmp_u32);
    }
    free(lcap);
    return ok;
}

static void seed_release(struct cd_srccov_seed *s, size_t n_files)
{
    free(s->fns);
    free(s->brs);
    if (s->lines)
        for (size_t f = 0; f < n_files; f++)
            free(s->lines[f]);
    free(s->lines);
    free(s->n_lines);
}

/* Adds an empty seed entry to c; NULL when out of memory. */
static struct cd_srccov_seed *add_seed(struct cd_srccov *c, const char *sha1, uint64_t size)
{
    struct cd_srccov_seed *ns = realloc(c->seeds, (c->n_seeds + 1) * sizeof *ns);
    if (!ns)
        return NULL;
    c->seeds = ns;
    struct cd_srccov_seed *s = &c->seeds[c->n_seeds++];
    memset(s, 0, sizeof *s);
    snprintf(s->sha1, sizeof s->sha1, "%s", sha1);
    s->size = size;
    return s;
}

void cd_srccov_seed_release(struct cd_srccov_seed *s, size_t n_files)
{
    seed_release(s, n_files);
    memset(s, 0, sizeof *s);
}

/* Runs seed_path on the coverage build argv and exports its coverage as lcov text into *text
 * (owned; NULL when the run left no profile: it crashed or hung). work holds the profiles. */
static enum cd_status export_seed(char *const *argv, const char *seed_path, unsigned timeout_ms,
                                  const char *work, char **text, struct cd_error *err)
{
    size_t argc = 0;
    bool file_arg = false;
    while (argv[argc])
        file_arg |= strcmp(argv[argc++], "@@") == 0;
    char **args = calloc(argc + 1, sizeof *args);
    char *raw = cd_file_join(work, "seed.profraw"), *data = cd_file_join(work, "seed.profdata");
    enum cd_status st = CD_OK;
    *text = NULL;
    if (!args || !raw || !data) {
        st = cd_error_oom(err, CD_FAILED, "out of memory measuring source coverage");
        goto out;
    }
    for (size_t i = 0; i < argc; i++)
        args[i] = strcmp(argv[i], "@@") == 0 ? (char *)seed_path : argv[i];
    unlink(raw);
    int status = run(args, file_arg ? NULL : seed_path, raw, NULL, timeout_ms);
    if (status == -1) {
        st = cd_error_sys(err, CD_FAILED, "cannot run '%s': %s", argv[0], strerror(errno));
        goto out;
    }
    struct stat sb;
    if (WIFSIGNALED(status) || stat(raw, &sb) != 0 || sb.st_size == 0)
        goto out; /* it crashed or hung: its profile (if any) is empty or partial */
    char *merge[] = {"llvm-profdata", "merge", "-sparse", "-o", data, raw, NULL};
    if (run(merge, NULL, NULL, NULL, 0) != 0) {
        st = cd_error_set(err, CD_FAILED, "llvm-profdata cannot merge the profile of '%s' (is "
                          "'%s' a coverage build, -fprofile-instr-generate?)", seed_path, argv[0]);
        goto out;
    }
    char *export[] = {"llvm-cov", "export", "-format=lcov", "-instr-profile", data, argv[0],
                      NULL};
    status = run(export, NULL, NULL, text, 0);
    if (status == -1 && errno == ENOMEM) {
        st = cd_error_oom(err, CD_FAILED, "out of memory reading the coverage of '%s'", seed_path);
    } else if (status != 0 || !*text) {
        free(*text);
        *text = NULL;
        st = cd_error_set(err, CD_FAILED, "llvm-cov cannot export the coverage of '%s' (is '%s' "
                          "built with -fcoverage-mapping?)", seed_path, argv[0]);
    }
out:
    free(args);
    if (raw)
        unlink(raw);
    if (data)
        unlink(data);
    free(raw);
    free(data);
    return st;
}

enum cd_status cd_srccov_measure_seed(struct cd_srccov *c, char *const *argv,
                                      const char *seed_path, unsigned timeout_ms,
                                      const char *work, struct cd_srccov_seed *s,
                                      struct cd_error *err)
{
    char *text;
    CD_FORWARD_IF_ERROR(export_seed(argv, seed_path, timeout_ms, work, &text, err));
    if (!text)
        return CD_OK;
    bool learn = !c->n_files;
    bool ok = (!learn || learn_program(c, text)) && read_export(c, s, text);
    free(text);
    if (!ok)
        return cd_error_oom(err, CD_FAILED, "out of memory measuring source coverage");
    c->files_checked |= learn;
    s->measured = true;
    return CD_OK;
}

enum cd_status cd_srccov_check_files(struct cd_srccov *c, char *const *argv,
                                     const char *empty_path, unsigned timeout_ms,
                                     const char *work, struct cd_error *err)
{
    char *text;
    CD_FORWARD_IF_ERROR(export_seed(argv, empty_path, timeout_ms, work, &text, err));
    if (!text)
        return CD_OK;
    struct cd_srccov fresh = {0};
    bool ok = learn_program(&fresh, text);
    free(text);
    if (!ok) {
        cd_srccov_release(&fresh);
        return cd_error_oom(err, CD_FAILED, "out of memory measuring source coverage");
    }
    bool same = fresh.n_files == c->n_files; /* both sorted by path */
    for (size_t i = 0; same && i < c->n_files; i++)
        same = strcmp(fresh.files[i], c->files[i]) == 0;
    c->files_checked |= same;
    cd_srccov_release(&fresh);
    return CD_OK;
}

enum cd_status cd_srccov_add(struct cd_srccov *c, struct cd_srccov_seed *s, struct cd_error *err)
{
    struct cd_srccov_seed *ns = realloc(c->seeds, (c->n_seeds + 1) * sizeof *ns);
    if (!ns)
        return cd_error_oom(err, CD_FAILED, "out of memory measuring source coverage");
    c->seeds = ns;
    c->seeds[c->n_seeds++] = *s;
    memset(s, 0, sizeof *s);
    return CD_OK;
}

void cd_srccov_release(struct cd_srccov *c)
{
    for (size_t i = 0; i < c->n_seeds; i++)
        seed_release(&c->seeds[i], c->n_files);
    free(c->seeds);
    for (size_t i = 0; i < c->n_fns; i++)
        free(c->fns[i].name);
    free(c->fns);
    for (size_t f = 0; f < c->n_files; f++) {
        free(c->files[f]);
        if (c->lines)
            free(c->lines[f]);
    }
    free(c->files);
    free(c->lines);
    free(c->n_lines);
    free(c->branches);
    memset(c, 0, sizeof *c);
}

/* JSON helpers: an array of the n numbers at v. */
static json_object *u32_array(const uint32_t *v, size_t n)
{
    json_object *a = json_object_new_array_ext((int)n);
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_int64(v[i]));
    return a;
}

/* One array per file, in file order. */
static json_object *lines_array(uint32_t *const *lines, const size_t *n, size_t n_files)
{
    json_object *a = json_object_new_array_ext((int)n_files);
    for (size_t f = 0; f < n_files; f++)
        json_object_array_add(a, u32_array(lines[f], n[f]));
    return a;
}

enum cd_status cd_srccov_save(const struct cd_srccov *c, const char *path, struct cd_error *err)
{
    json_object *j = json_object_new_object(), *files = json_object_new_array(),
                *fns = json_object_new_array(), *seeds = json_object_new_object();
    json_object_object_add(j, "schema_version", json_object_new_int(1));
    json_object_object_add(j, "binary_sha1", json_object_new_string(c->binary_sha1));
    for (size_t f = 0; f < c->n_files; f++)
        json_object_array_add(files, json_object_new_string(c->files[f]));
    json_object_object_add(j, "files", files);
    for (size_t i = 0; i < c->n_fns; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(c->fns[i].name));
        json_object_object_add(o, "file", json_object_new_int64(c->fns[i].file));
        json_object_object_add(o, "line", json_object_new_int64(c->fns[i].line));
        json_object_array_add(fns, o);
    }
    json_object_object_add(j, "functions", fns);
    json_object_object_add(j, "lines", c->n_files ? lines_array(c->lines, c->n_lines, c->n_files)
                                                  : json_object_new_array());
    json_object *brs = json_object_new_array_ext((int)c->n_branches);
    for (size_t i = 0; i < c->n_branches; i++) {
        const struct cd_srccov_branch *b = &c->branches[i];
        uint32_t v[4] = {b->file, b->line, b->block, b->dir};
        json_object_array_add(brs, u32_array(v, 4));
    }
    json_object_object_add(j, "branches", brs);
    for (size_t i = 0; i < c->n_seeds; i++) {
        const struct cd_srccov_seed *s = &c->seeds[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "size", json_object_new_uint64(s->size));
        json_object_object_add(o, "measured", json_object_new_boolean(s->measured));
        json_object_object_add(o, "functions", u32_array(s->fns, s->n_fns));
        json_object_object_add(o, "branches", u32_array(s->brs, s->n_brs));
        json_object_object_add(o, "lines", s->lines ? lines_array(s->lines, s->n_lines, c->n_files)
                                                    : json_object_new_array());
        json_object_object_add(seeds, s->sha1, o);
    }
    json_object_object_add(j, "seeds", seeds);
    const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
    enum cd_status st = text ? cd_file_write(path, text, strlen(text), err)
                             : cd_error_oom(err, CD_FAILED, "out of memory writing '%s'", path);
    json_object_put(j);
    return st;
}

/* Reads the arrays of numbers in a (one per file) into *lines and *n; false when malformed. */
static bool load_lines(json_object *a, size_t n_files, uint32_t ***lines, size_t **n)
{
    if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) != n_files)
        return false;
    *lines = calloc(n_files + 1, sizeof **lines);
    *n = calloc(n_files + 1, sizeof **n);
    if (!*lines || !*n)
        return false;
    for (size_t f = 0; f < n_files; f++) {
        json_object *v = json_object_array_get_idx(a, f);
        if (!json_object_is_type(v, json_type_array))
            return false;
        size_t k = json_object_array_length(v);
        if (!((*lines)[f] = malloc((k + 1) * sizeof ***lines)))
            return false;
        (*n)[f] = 0;
        for (size_t i = 0; i < k; i++) {
            int64_t x = json_object_get_int64(json_object_array_get_idx(v, i));
            /* Ascending line numbers, as written: lookups search them. */
            if (x < 1 || x > INT32_MAX || (i && (uint32_t)x <= (*lines)[f][i - 1]))
                return false;
            (*lines)[f][(*n)[f]++] = (uint32_t)x;
        }
    }
    return true;
}

/* Reads the array a of indices below max into an owned *v of *n; false when malformed. */
static bool load_indices(json_object *a, size_t max, uint32_t **v, size_t *n)
{
    if (!json_object_is_type(a, json_type_array))
        return false;
    size_t k = json_object_array_length(a);
    if (!(*v = malloc((k + 1) * sizeof **v)))
        return false;
    for (*n = 0; *n < k; ++*n) {
        int64_t x = json_object_get_int64(json_object_array_get_idx(a, *n));
        if (x < 0 || (uint64_t)x >= max)
            return false;
        (*v)[*n] = (uint32_t)x;
    }
    return true;
}

/* Reads the program's branch directions ([file, line, block, dir] each) from a into c. */
static bool load_branches(struct cd_srccov *c, json_object *a)
{
    if (!json_object_is_type(a, json_type_array))
        return false;
    size_t k = json_object_array_length(a);
    if (!(c->branches = malloc((k + 1) * sizeof *c->branches)))
        return false;
    for (; c->n_branches < k; c->n_branches++) {
        json_object *b = json_object_array_get_idx(a, c->n_branches);
        if (!json_object_is_type(b, json_type_array) || json_object_array_length(b) != 4)
            return false;
        uint32_t v[4];
        for (size_t i = 0; i < 4; i++)
            v[i] = (uint32_t)json_object_get_int64(json_object_array_get_idx(b, i));
        if (v[0] >= c->n_files)
            return false;
        c->branches[c->n_branches] = (struct cd_srccov_branch){v[0], v[1], v[2], v[3]};
    }
    return true;
}

/* Fills c from the parsed record j; false when it is not one. */
static bool load_json(struct cd_srccov *c, json_object *j)
{
    json_object *v, *files, *fns, *lines, *seeds;
    if (!json_object_object_get_ex(j, "schema_version", &v) || json_object_get_int(v) != 1 ||
        !json_object_object_get_ex(j, "binary_sha1", &v) ||
        !json_object_object_get_ex(j, "files", &files) ||
        !json_object_object_get_ex(j, "functions", &fns) ||
        !json_object_object_get_ex(j, "lines", &lines) ||
        !json_object_object_get_ex(j, "seeds", &seeds) ||
        !json_object_is_type(files, json_type_array) || !json_object_is_type(fns, json_type_array))
        return false;
    const char *bin = json_object_get_string(v);
    if (bin[0] && !cd_hash_is_sha1_hex(bin))
        return false;
    snprintf(c->binary_sha1, sizeof c->binary_sha1, "%s", bin);
    size_t nf = json_object_array_length(files), nfn = json_object_array_length(fns);
    if (!(c->files = calloc(nf + 1, sizeof *c->files)) ||
        !(c->fns = calloc(nfn + 1, sizeof *c->fns)))
        return false;
    for (; c->n_files < nf; c->n_files++)
        if (!(c->files[c->n_files] =
                  strdup(json_object_get_string(json_object_array_get_idx(files, c->n_files)))))
            return false;
    for (; c->n_fns < nfn; c->n_fns++) {
        json_object *o = json_object_array_get_idx(fns, c->n_fns), *x;
        struct cd_srccov_fn *f = &c->fns[c->n_fns];
        f->file = json_object_object_get_ex(o, "file", &x) ? (uint32_t)json_object_get_int64(x) : 0;
        f->line = json_object_object_get_ex(o, "line", &x) ? (uint32_t)json_object_get_int64(x) : 0;
        if (f->file >= nf || !json_object_object_get_ex(o, "name", &x) ||
            !(f->name = strdup(json_object_get_string(x))))
            return false;
    }
    if (nf && !load_lines(lines, nf, &c->lines, &c->n_lines))
        return false;
    if (json_object_object_get_ex(j, "branches", &v) && !load_branches(c, v))
        return false;
    json_object_object_foreach(seeds, sha1, o) {
        /* a seed's key is its SHA-1 (its file name, and a link in the report) */
        if (!cd_hash_is_sha1_hex(sha1))
            return false;
        struct cd_srccov_seed *s = add_seed(c, sha1, 0);
        json_object *x;
        if (!s)
            return false;
        s->size = json_object_object_get_ex(o, "size", &x) ? json_object_get_uint64(x) : 0;
        s->measured = json_object_object_get_ex(o, "measured", &x) && json_object_get_boolean(x);
        if (json_object_object_get_ex(o, "functions", &x) &&
            !load_indices(x, nfn, &s->fns, &s->n_fns))
            return false;
        if (json_object_object_get_ex(o, "branches", &x) &&
            !load_indices(x, c->n_branches, &s->brs, &s->n_brs))
            return false;
        if (s->measured && nf &&
            (!json_object_object_get_ex(o, "lines", &x) ||
             !load_lines(x, nf, &s->lines, &s->n_lines)))
            return false;
    }
    return true;
}

enum cd_status cd_srccov_load(struct cd_srccov *c, const char *path, struct cd_error *err)
{
    memset(c, 0, sizeof *c);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return CD_OK;
    json_object *j = json_object_from_file(path);
    if (!j) { /* json-c's message ends in a newline: one line of it */
        const char *why = json_util_get_last_err() ? json_util_get_last_err() : "not JSON";
        return cd_error_set(err, CD_FAILED, "cannot read '%s': %.*s", path,
                            (int)strcspn(why, "\n"), why);
    }
    bool ok = load_json(c, j);
    json_object_put(j);
    if (!ok) {
        cd_srccov_release(c);
        return cd_error_set(err, CD_FAILED, "cannot read '%s': not a source coverage record",
                            path);
    }
    return CD_OK;
}
