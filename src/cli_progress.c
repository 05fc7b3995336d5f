/* Progress display: the engine's progress and warning callbacks turned into a live status line on a
 * terminal (a few refreshes a second) or a plain line every few seconds elsewhere; -q silences all
 * but errors. The engine may call from its worker threads, so the display is serialised. */
#include "cli.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TTY_INTERVAL_NS 250000000ull
#define LOG_INTERVAL_NS 5000000000ull

struct cli_progress {
    pthread_mutex_t lock;
    int verbosity;
    bool tty;
    bool line_shown;       /* a live status line is on screen */
    uint64_t last_ns;
    char last_phase[32];
};

const char *cli_bytes(uint64_t n, char *buf, size_t cap)
{
    if (n < 1024)
        snprintf(buf, cap, "%llu B", (unsigned long long)n);
    else if (n < (1ull << 20))
        snprintf(buf, cap, "%.1f KiB", (double)n / 1024);
    else if (n < (1ull << 30))
        snprintf(buf, cap, "%.1f MiB", (double)n / (1 << 20));
    else
        snprintf(buf, cap, "%.2f GiB", (double)n / (1 << 30));
    return buf;
}

struct cli_progress *cli_progress_new(int verbosity)
{
    struct cli_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    p->verbosity = verbosity;
    p->tty = isatty(STDERR_FILENO) == 1;
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
        fputs("\r\033[K", stderr);
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
    char bytes[32];
    cli_bytes(s->best_bytes, bytes, sizeof bytes);
    char line[200];
    snprintf(line, sizeof line,
             "%u:%02u:%02u %s: %llu in, %llu labels, %llu finished, %.0f execs/s, %llu best, %s",
             t / 3600, t / 60 % 60, t % 60, s->phase, (unsigned long long)s->inputs,
             (unsigned long long)s->labels, (unsigned long long)s->labels_finished, rate,
             (unsigned long long)s->best_examples, bytes);
    if (p->tty) {
        fprintf(stderr, "\r\033[K%.*s", 79, line);
        p->line_shown = true;
    } else {
        fprintf(stderr, "corpus-distill: %s\n", line);
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
    fprintf(stderr, "corpus-distill: warning: %s\n", msg);
    if (p)
        pthread_mutex_unlock(&p->lock);
}
