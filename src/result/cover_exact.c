/* The exact seed cover (cover_exact): the weighted set cover of the required items as an integer
 * program, solved by CBC (COIN-OR branch and cut) from the greedy cover, its linear relaxation by
 * Clp first for a bound that holds whatever the solve comes to. The solver runs in a child
 * process: a time cap, Ctrl-C and a solver that fails cost the parent nothing but the greedy
 * cover, and the child's signal handlers and output stay its own. The parent trusts nothing it
 * reads back but as a proposal: cover.c checks and weighs what the child chose. */
#define _GNU_SOURCE /* qsort_r */
#include "cover_internal.h"

#include <coin/Cbc_C_Interface.h>
#include <coin/Clp_C_Interface.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Past this many matrix entries the program is not built: the greedy cover stands. */
#define EXACT_MAX_ENTRIES (1u << 25)

/* Memory the child may take beyond what it shares with the parent: a solve past it fails, and
 * the greedy cover stands. */
#define EXACT_MEMORY ((rlim_t)4 << 30)

/* The program: a row per required item that no essential set shows (identical rows once), a
 * column per other set that shows one of them. */
struct program {
    int rows, cols;
    int *col_set;         /* column -> set index */
    int *start, *index;   /* column-major entries, as Cbc_loadProblem takes them */
    double *value, *obj, *col_lb, *col_ub, *row_lb, *row_ub;
    uint64_t fixed;       /* weight of the essential sets, which every cover holds */
    bool *essential;      /* per set */
};

/* Row hashing for the duplicate rows: an item's columns, in a CSR over items. */
struct rows_ctx {
    const uint32_t *off, *col;
    const uint64_t *hash;
};

static int cmp_rows(const void *a, const void *b, void *ctx)
{
    const struct rows_ctx *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (c->hash[x] != c->hash[y])
        return c->hash[x] < c->hash[y] ? -1 : 1;
    uint32_t nx = c->off[x + 1] - c->off[x], ny = c->off[y + 1] - c->off[y];
    if (nx != ny)
        return nx < ny ? -1 : 1;
    int m = memcmp(c->col + c->off[x], c->col + c->off[y], nx * sizeof *c->col);
    return m ? m : (x > y) - (x < y);
}

static bool same_row(const struct rows_ctx *c, uint32_t x, uint32_t y)
{
    uint32_t n = c->off[x + 1] - c->off[x];
    return c->hash[x] == c->hash[y] && n == c->off[y + 1] - c->off[y] &&
           !memcmp(c->col + c->off[x], c->col + c->off[y], n * sizeof *c->col);
}

static bool is_required(const bool *optional, uint32_t u)
{
    return !optional || !optional[u];
}

/* Builds the program of the required cover; false when out of memory or too large. Runs in the
 * child, which exits after: nothing is freed. */
static bool build(const struct cd_cover_set *sets, size_t n_sets, size_t universe,
                  const bool *optional, struct program *p)
{
    uint32_t *shows = calloc(universe + 1, sizeof *shows);
    p->essential = calloc(n_sets + 1, sizeof *p->essential);
    bool *done = calloc(universe + 1, sizeof *done);
    if (!shows || !p->essential || !done)
        return false;
    for (size_t i = 0; i < n_sets; i++)
        for (size_t k = 0; k < sets[i].n; k++)
            shows[sets[i].items[k]] += is_required(optional, sets[i].items[k]);
    for (size_t i = 0; i < n_sets; i++)
        for (size_t k = 0; k < sets[i].n && !p->essential[i]; k++)
            p->essential[i] = shows[sets[i].items[k]] == 1;
    for (size_t i = 0; i < n_sets; i++)
        if (p->essential[i]) {
            p->fixed += sets[i].weight;
            for (size_t k = 0; k < sets[i].n; k++)
                done[sets[i].items[k]] = true;
        }
    /* Items left: required, shown, not done. Columns: sets showing one. */
    int *col_of = malloc((n_sets + 1) * sizeof *col_of);
    p->col_set = malloc((n_sets + 1) * sizeof *p->col_set);
    uint32_t *off = calloc(universe + 2, sizeof *off);
    if (!col_of || !p->col_set || !off)
        return false;
    uint64_t entries = 0;
    for (size_t i = 0; i < n_sets; i++) {
        col_of[i] = -1;
        if (p->essential[i])
            continue;
        for (size_t k = 0; k < sets[i].n; k++) {
            uint32_t u = sets[i].items[k];
            if (shows[u] && !done[u] && is_required(optional, u)) {
                if (col_of[i] < 0) {
                    col_of[i] = p->cols;
                    p->col_set[p->cols++] = (int)i;
                }
                off[u + 1]++;
                entries++;
            }
        }
    }
    if (entries > EXACT_MAX_ENTRIES)
        return false;
    for (size_t u = 0; u < universe; u++)
        off[u + 1] += off[u];
    uint32_t *col = malloc((entries + 1) * sizeof *col);
    uint32_t *fill = malloc((universe + 1) * sizeof *fill);
    uint64_t *hash = calloc(universe + 1, sizeof *hash);
    uint32_t *items = malloc((universe + 1) * sizeof *items);
    int *row_of = malloc((universe + 1) * sizeof *row_of);
    if (!col || !fill || !hash || !items || !row_of)
        return false;
    memcpy(fill, off, universe * sizeof *fill);
    for (size_t i = 0; i < n_sets; i++) /* columns ascend in each item's list */
        for (size_t k = 0; col_of[i] >= 0 && k < sets[i].n; k++) {
            uint32_t u = sets[i].items[k];
            if (shows[u] && !done[u] && is_required(optional, u)) {
                col[fill[u]++] = (uint32_t)col_of[i];
                hash[u] = (hash[u] ^ (uint32_t)col_of[i]) * 0x100000001b3ull;
            }
        }
    /* Identical rows (items shown by the same sets) are one constraint. */
    size_t n_items = 0;
    for (size_t u = 0; u < universe; u++) {
        row_of[u] = -1;
        if (off[u + 1] > off[u])
            items[n_items++] = (uint32_t)u;
    }
    struct rows_ctx ctx = {off, col, hash};
    qsort_r(items, n_items, sizeof *items, cmp_rows, &ctx);
    for (size_t k = 0; k < n_items; k++)
        row_of[items[k]] = k && same_row(&ctx, items[k - 1], items[k]) ? -2 : p->rows++;
    p->start = calloc((size_t)p->cols + 1, sizeof *p->start);
    p->index = malloc((entries + 1) * sizeof *p->index);
    p->value = malloc((entries + 1) * sizeof *p->value);
    p->obj = malloc(((size_t)p->cols + 1) * sizeof *p->obj);
    p->col_lb = calloc((size_t)p->cols + 1, sizeof *p->col_lb);
    p->col_ub = malloc(((size_t)p->cols + 1) * sizeof *p->col_ub);
    p->row_lb = malloc(((size_t)p->rows + 1) * sizeof *p->row_lb);
    p->row_ub = malloc(((size_t)p->rows + 1) * sizeof *p->row_ub);
    if (!p->start || !p->index || !p->value || !p->obj || !p->col_lb || !p->col_ub || !p->row_lb ||
        !p->row_ub)
        return false;
    int e = 0;
    for (int c = 0; c < p->cols; c++) {
        const struct cd_cover_set *s = &sets[p->col_set[c]];
        p->start[c] = e;
        for (size_t k = 0; k < s->n; k++) {
            uint32_t u = s->items[k];
            if (is_required(optional, u) && row_of[u] >= 0) {
                p->index[e] = row_of[u];
                p->value[e++] = 1.0;
            }
        }
        p->obj[c] = (double)s->weight;
        p->col_ub[c] = 1.0;
    }
    p->start[p->cols] = e;
    for (int r = 0; r < p->rows; r++) {
        p->row_lb[r] = 1.0;
        p->row_ub[r] = DBL_MAX;
    }
    return true;
}

static bool write_all(int fd, const void *buf, size_t len)
{
    const char *b = buf;
    while (len) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        b += w;
        len -= (size_t)w;
    }
    return true;
}

/* What the child writes: the LP record once the relaxation is solved, then the MIP record with
 * the chosen sets. Bounds are of the whole required cover (essential sets included). */
struct lp_record {
    char tag; /* 'L' */
    double bound;
};
struct mip_record {
    char tag; /* 'M' */
    double bound;
    int proven;
    uint32_t n;
};

/* The child: builds and solves, writes the records to fd, exits. */
static void child(const struct cd_cover_set *sets, size_t n_sets, size_t universe,
                  const bool *optional, const bool *start, double seconds, int fd)
{
    struct program p = {0};
    if (!build(sets, n_sets, universe, optional, &p))
        _exit(3);
    struct lp_record lp;
    memset(&lp, 0, sizeof lp); /* padding too: the record is written whole */
    lp.tag = 'L';
    lp.bound = (double)p.fixed;
    if (p.rows) {
        Clp_Simplex *m = Clp_newModel();
        Clp_setLogLevel(m, 0);
        Clp_setMaximumSeconds(m, seconds / 2);
        Clp_loadProblem(m, p.cols, p.rows, p.start, p.index, p.value, p.col_lb, p.col_ub, p.obj,
                        p.row_lb, p.row_ub);
        Clp_dual(m, 0);
        lp.bound = Clp_status(m) == 0 ? (double)p.fixed + Clp_objectiveValue(m) : 0;
        Clp_deleteModel(m);
    }
    if (!write_all(fd, &lp, sizeof lp))
        _exit(4);
    struct mip_record mip;
    memset(&mip, 0, sizeof mip);
    mip.tag = 'M';
    mip.bound = (double)p.fixed;
    mip.proven = 1;
    uint32_t *out = malloc((n_sets + 1) * sizeof *out);
    if (!out)
        _exit(3);
    for (size_t i = 0; i < n_sets; i++)
        if (p.essential[i])
            out[mip.n++] = (uint32_t)i;
    if (p.rows) {
        Cbc_Model *m = Cbc_newModel();
        Cbc_loadProblem(m, p.cols, p.rows, p.start, p.index, p.value, p.col_lb, p.col_ub, p.obj,
                        p.row_lb, p.row_ub);
        for (int c = 0; c < p.cols; c++)
            Cbc_setInteger(m, c);
        int *idx = malloc(((size_t)p.cols + 1) * sizeof *idx);
        double *val = malloc(((size_t)p.cols + 1) * sizeof *val);
        if (!idx || !val)
            _exit(3);
        for (int c = 0; c < p.cols; c++) {
            idx[c] = c;
            val[c] = start[p.col_set[c]] ? 1.0 : 0.0;
        }
        Cbc_setMIPStartI(m, p.cols, idx, val);
        Cbc_setLogLevel(m, 0);
        Cbc_setMaximumSeconds(m, seconds);
        /* Weights are whole bytes: a cover within less than one byte of the bound is optimal. */
        Cbc_setAllowableGap(m, 0.5);
        Cbc_solve(m);
        const double *x = Cbc_bestSolution(m);
        if (!x)
            _exit(5);
        mip.bound = (double)p.fixed + Cbc_getBestPossibleObjValue(m);
        mip.proven = Cbc_isProvenOptimal(m);
        for (int c = 0; c < p.cols; c++)
            if (x[c] > 0.5)
                out[mip.n++] = (uint32_t)p.col_set[c];
    }
    if (!write_all(fd, &mip, sizeof mip) || !write_all(fd, out, mip.n * sizeof *out))
        _exit(4);
    _exit(0);
}

/* Reads len bytes from fd into buf by the deadline (ns of cd_now_ns), giving up when *stop turns
 * non-zero; false on end of file, error, the deadline or a stop. */
static bool read_by(int fd, void *buf, size_t len, uint64_t deadline,
                    const volatile sig_atomic_t *stop)
{
    char *b = buf;
    while (len) {
        uint64_t now = cd_now_ns();
        if (now >= deadline || (stop && *stop))
            return false;
        uint64_t left = (deadline - now) / 1000000 + 1;
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, left < 100 ? (int)left : 100); /* a stop is seen within 0.1 s */
        if (r < 0 && errno != EINTR)
            return false;
        if (r <= 0)
            continue;
        ssize_t got = read(fd, b, len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        b += got;
        len -= (size_t)got;
    }
    return true;
}

/* A solver's bound as whole bytes: the optimum is an integer at least the bound, and what the
 * solver's tolerances left just under an integer still counts as under it. */
static uint64_t whole_bound(double bound)
{
    if (!(bound > 0) || bound > 1e18)
        return 0;
    return (uint64_t)ceil(bound - 1e-6 * (1 + bound));
}

int cover_exact(const struct cd_cover_set *sets, size_t n_sets, size_t universe,
                const bool *optional, const struct cd_cover_exact *opts, bool *chosen,
                struct cover_exact_result *res)
{
    memset(res, 0, sizeof *res);
    uint64_t t0 = cd_now_ns();
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGINT, SIG_IGN); /* the parent decides; Ctrl-C reaches it too */
        signal(SIGTERM, SIG_DFL);
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0) { /* the solvers print banners whatever their log level */
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        rlim_t secs = (rlim_t)opts->seconds + 30;
        struct rlimit cpu = {secs, secs}, core = {0, 0};
        setrlimit(RLIMIT_CPU, &cpu);
        setrlimit(RLIMIT_CORE, &core); /* a solver that fails dies without a core file */
        unsigned long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (statm && fscanf(statm, "%lu", &pages) == 1) {
            rlim_t as = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + EXACT_MEMORY;
            struct rlimit mem = {as, as};
            setrlimit(RLIMIT_AS, &mem);
        }
        if (statm)
            fclose(statm);
        child(sets, n_sets, universe, optional, chosen, opts->seconds, fds[1]);
    }
    close(fds[1]);
    /* The solver may overrun its cap by the time of one node or one cut pass. */
    uint64_t deadline = t0 + (uint64_t)(opts->seconds * 1e9) + 2000000000ull;
    struct lp_record lp;
    struct mip_record mip;
    int rc = -1;
    if (read_by(fds[0], &lp, sizeof lp, deadline, opts->stop) && lp.tag == 'L') {
        res->lp_bound = whole_bound(lp.bound);
        if (read_by(fds[0], &mip, sizeof mip, deadline, opts->stop) && mip.tag == 'M' &&
            mip.n <= n_sets) {
            uint32_t *pick = malloc(((size_t)mip.n + 1) * sizeof *pick);
            if (pick && read_by(fds[0], pick, mip.n * sizeof *pick, deadline, opts->stop)) {
                rc = 0;
                for (size_t i = 0; i < n_sets; i++)
                    chosen[i] = false;
                for (uint32_t k = 0; k < mip.n; k++) {
                    if (pick[k] >= n_sets)
                        rc = -1;
                    else
                        chosen[pick[k]] = true;
                }
                res->bound = whole_bound(mip.bound);
                res->proven = mip.proven != 0;
            }
            free(pick);
        }
    }
    close(fds[0]);
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    res->ms = (cd_now_ns() - t0) / 1000000;
    return rc;
}
