/* The front end's shared vocabulary, which every mode (run, merge, audit) uses and which depends
 * on no other cli_*.c file: exit codes for errors, the one-line messages on stderr, the failure
 * line of --json-summary, byte sizes for people, the shard syntax, and the target's identity. */
#include "common/cd_hash.h"
#include "cli.h"

#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_exit_for(const struct cd_error *err, int context)
{
    switch (err->kind) {
    case CD_ERR_NOMEM: return CLI_EXIT_NOMEM;
    case CD_ERR_INPUT: return CLI_EXIT_INPUT;
    case CD_ERR_TARGET: return CLI_EXIT_TARGET;
    case CD_ERR_OUTPUT:
    case CD_ERR_FOREIGN: return CLI_EXIT_OUTPUT;
    case CD_ERR_OTHER: break;
    }
    return context;
}

/* Writes s to f with every character cd_shown_char would hide escaped (backslashes kept as
 * they are: what the message quotes was shown through cd_shown already, or is ours). The net
 * under every line printed: a path, a target's stderr or a manifest string can never move the
 * cursor, recolour or reorder the terminal. */
void cli_put_safe(FILE *f, const char *s)
{
    char one[16];
    while (*s) {
        s += cd_shown_char(s, false, one);
        fputs(one, f);
    }
}

/* The run's anchors (cli_anchor_shown_add): "/proc/self/fd/N/" and the text it stands for. */
#define ANCHORS_MAX 8
static struct {
    char proc[40];
    char *shown;
} anchors[ANCHORS_MAX];
static size_t n_anchors;

void cli_anchor_shown_add(int fd, const char *prefix)
{
    if (n_anchors == ANCHORS_MAX || !(anchors[n_anchors].shown = strdup(prefix)))
        return;
    snprintf(anchors[n_anchors++].proc, sizeof anchors[0].proc, "/proc/self/fd/%d/", fd);
}

void cli_anchors_release(void)
{
    for (size_t i = 0; i < n_anchors; i++)
        free(anchors[i].shown);
    n_anchors = 0;
}

const char *cli_shown_path(const char *text, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    while (*text && n + 1 < cap) {
        size_t k = 0;
        while (k < n_anchors && strncmp(text, anchors[k].proc, strlen(anchors[k].proc)) != 0)
            k++;
        if (k < n_anchors) {
            n += (size_t)snprintf(buf + n, cap - n, "%s", anchors[k].shown);
            text += strlen(anchors[k].proc);
        } else {
            buf[n++] = *text++;
            buf[n] = '\0';
        }
    }
    if (n >= cap)
        buf[cap - 1] = '\0';
    return buf;
}

/* One line on stderr: "corpus-distill: ", kind, the message; under stderr's lock, so that the
 * lines of threads never interleave. */
static void vsay(const char *kind, const char *fmt, va_list ap)
{
    char raw[8192], line[8192];
    vsnprintf(raw, sizeof raw, fmt, ap);
    cli_shown_path(raw, line, sizeof line);
    flockfile(stderr);
    fputs("corpus-distill: ", stderr);
    fputs(kind, stderr);
    cli_put_safe(stderr, line);
    fputc('\n', stderr);
    funlockfile(stderr);
}

void cli_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay("", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay("warning: ", fmt, ap);
    va_end(ap);
}

void cli_line(FILE *f, const char *fmt, ...)
{
    char raw[16384], line[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    cli_shown_path(raw, line, sizeof line);
    cli_put_safe(f, line);
    fputc('\n', f);
}

void cli_text(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

void cli_puts(const char *text, FILE *f)
{
    fputs(text, f);
}

void cli_status(const char *line, int width)
{
    char one[16];
    int n = 0;
    fputs("\r\033[K", stderr); /* back to the start of the line, and clear it */
    for (const char *s = line; *s && n < width;) {
        s += cd_shown_char(s, false, one);
        fputs(one, stderr);
        n += (int)strlen(one);
    }
}

void cli_status_clear(void)
{
    fputs("\r\033[K", stderr);
}

/* Set when argv asks for --json-summary, even after the error: a script reading stdout then gets
 * the usage error as JSON too. */
static bool usage_json;

void cli_usage_json(bool on)
{
    usage_json = on;
}

int cli_usage_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fputs("corpus-distill: ", stderr); /* msg may quote argv: through the escaper */
    cli_put_safe(stderr, msg);
    fputs("\ntry 'corpus-distill --help'\n", stderr);
    if (usage_json)
        cli_failure_json(CLI_EXIT_USAGE, msg);
    return CLI_EXIT_USAGE;
}

/* Prints j as one line on stdout, then frees it. */
void cli_put_json(json_object *j)
{
    cli_put_json_as(j, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
}

void cli_put_json_as(json_object *j, int flags)
{
    /* json-c escapes every control character of a string it writes */
    puts(json_object_to_json_string_ext(j, flags));
    fflush(stdout);
    json_object_put(j);
}

void cli_failure_json(int code, const char *msg)
{
    json_object *j = json_object_new_object();
    json_object_object_add(j, "exit_code", json_object_new_int(code));
    json_object_object_add(j, "complete", json_object_new_boolean(false));
    json_object_object_add(j, "error", json_object_new_string(msg));
    cli_put_json(j);
}

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

bool cli_parse_shard(const char *s, unsigned *k, unsigned *n)
{
    int end = 0;
    return sscanf(s, "%u/%u%n", k, n, &end) == 2 && !s[end] && *n >= 1 && *n <= 65536 &&
           *k >= 1 && *k <= *n;
}
