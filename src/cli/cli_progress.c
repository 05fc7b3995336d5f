/* Progress display: the engine's progress and warning callbacks turned into a live status line on a
 * terminal (a few refreshes a second) or a plain line every few seconds elsewhere; -q silences all
 * but errors. The engine may call from its worker threads, so the display is serialised. */
#include "cli.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define TTY_INTERVAL_NS 250000000ull
#define LOG_INTERVAL_NS 5000000000ull

struct cli_progress {
    pthread_mutex_t lock;
    int verbosity;
    bool tty;
    bool line_shown;       /* a live status line is on screen */
    int cols;              /* terminal width: a wider live line would wrap and not be cleared */
    uint64_t last_ns;
    char last_phase[32];
};

struct cli_progress *cli_progress_new(int verbosity)
{
    struct cli_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    p->verbosity = verbosity;
    p->tty = isatty(STDERR_FILENO) == 1;
    struct winsize ws;
    p->cols = p->tty && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 80;
    return p;
}

void cli_progress_free(struct cli_progress *p)
{
    if (!p)
        return;
    cli_progress_clear(p);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static void clear_locked(struct cli_progress *p)
{
    if (p->line_shown) {
        cli_status_clear();
        fflush(stderr);
        p->line_shown = false;
    }
}

void cli_progress_clear(struct cli_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    clear_locked(p);
    pthread_mutex_unlock(&p->lock);
}

/* A count for people: "850", "12k", "3.4M", "1.2G". */
static const char *count_text(uint64_t n, char *buf, size_t cap)
{
    if (n < 10000)
        snprintf(buf, cap, "%llu", (unsigned long long)n);
    else if (n < 10000000)
        snprintf(buf, cap, "%.0fk", (double)n / 1e3);
    else if (n < 10000000000ull)
        snprintf(buf, cap, "%.1fM", (double)n / 1e6);
    else
        snprintf(buf, cap, "%.1fG", (double)n / 1e9);
    return buf;
}

/* A duration for people: "45 s", "12 min", "3.2 h", "2.5 days". */
static const char *duration_text(double secs, char *buf, size_t cap)
{
    if (secs < 90)
        snprintf(buf, cap, "%.0f s", secs);
    else if (secs < 5400)
        snprintf(buf, cap, "%.0f min", secs / 60);
    else if (secs < 172800)
        snprintf(buf, cap, "%.1f h", secs / 3600);
    else
        snprintf(buf, cap, "%.1f days", secs / 86400);
    return buf;
}

const char *cli_execs_left(uint64_t left, bool at_least, double rate, char *buf, size_t cap)
{
    char n[32], d[32], when[48] = "";
    buf[0] = '\0';
    if (left == UINT64_MAX) {
        snprintf(buf, cap, " (not converging yet)");
    } else if (left) {
        double secs = rate > 0 ? (double)left / rate : 0;
        if (secs >= 1)
            snprintf(when, sizeof when, ", ~%s", duration_text(secs, d, sizeof d));
        snprintf(buf, cap, " (%s~%s execs left%s)", at_least ? "at least " : "",
                 count_text(left, n, sizeof n), when);
    }
    return buf;
}

void cli_progress_cb(void *ctx, const struct cd_distill_progress *s)
{
    struct cli_progress *p = ctx;
    if (!p || p->verbosity < 0)
        return;
    pthread_mutex_lock(&p->lock);
    uint64_t now = cd_now_ns();
    bool phase_change = strncmp(p->last_phase, s->phase, sizeof p->last_phase - 1) != 0;
    uint64_t interval = p->tty ? TTY_INTERVAL_NS : LOG_INTERVAL_NS;
    if (!phase_change && p->last_ns && now - p->last_ns < interval)
        goto out;
    p->last_ns = now;
    snprintf(p->last_phase, sizeof p->last_phase, "%s", s->phase);
    double secs = (double)s->elapsed_ns / 1e9;
    double rate = secs > 0 ? (double)s->execs / secs : 0;
    unsigned t = (unsigned)secs;
    char bytes[32], sel[32], left[80];
    char line[240];
    cli_execs_left(s->execs_left, s->execs_left_at_least, rate, left, sizeof left);
    int n = snprintf(line, sizeof line, "%u:%02u:%02u %s: %llu in, %llu labels, %llu done%s, "
                     "%.0f/s, ", t / 3600, t / 60 % 60, t % 60, s->phase,
                     (unsigned long long)s->inputs, (unsigned long long)s->labels,
                     (unsigned long long)s->labels_finished, left, rate);
    if (n > 0 && (size_t)n < sizeof line) {
        /* Once the first pass is over: the seeds as they would be written now, against the
           select-only output (what --no-reduce writes); before, the best examples so far. */
        if (s->select_only_bytes)
            snprintf(line + n, sizeof line - (size_t)n, "seeds %s, %.2fx select-only %s",
                     cli_bytes(s->seed_bytes, bytes, sizeof bytes),
                     (double)s->seed_bytes / (double)s->select_only_bytes,
                     cli_bytes(s->select_only_bytes, sel, sizeof sel));
        else
            snprintf(line + n, sizeof line - (size_t)n, "%llu best, %s",
                     (unsigned long long)s->best_examples,
                     cli_bytes(s->best_bytes, bytes, sizeof bytes));
    }
    if (p->tty) {
        cli_status(line, p->cols - 1);
        p->line_shown = true;
    } else {
        cli_msg("%s", line);
    }
    fflush(stderr);
out:
    pthread_mutex_unlock(&p->lock);
}

void cli_progress_warning(void *ctx, const char *msg)
{
    struct cli_progress *p = ctx;
    if (p && p->verbosity < 0)
        return;
    if (p)
        pthread_mutex_lock(&p->lock);
    if (p)
        clear_locked(p);
    cli_warn("%s", msg);
    if (p)
        pthread_mutex_unlock(&p->lock);
}
