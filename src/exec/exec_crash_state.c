/* Executor, crash side: finds the sanitizer report in a crashing run's stderr and names its kind
 * (the kinds the labels module has fixed ids for), then turns the report into its crash state,
 * the name of the bug: the error kind with the access type, then the top frames of the crashing
 * stack that belong to the program, by function name (ClusterFuzz's rule, so that a name survives
 * a rebuild and two bugs of one kind in two functions stay apart). Frames of the sanitizer
 * runtime, libc, the C++ runtime, allocators, interceptors and fuzzing drivers are skipped. It
 * reads the bounded stderr tail only and knows nothing of labels. */
#define _GNU_SOURCE /* memmem */
#include "exec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "XSanitizer" names and our tool names. */
static const struct {
    const char *name, *tool;
} san_names[] = {
    {"Address", "asan"},       {"UndefinedBehavior", "ubsan"}, {"Memory", "msan"},
    {"Leak", "lsan"},          {"Thread", "tsan"},             {"HWAddress", "hwasan"},
};

/* Phrases of ASan/LSan/TSan reports whose first word is not the kind. */
static const struct {
    const char *phrase, *kind;
} san_phrases[] = {
    {"attempting double-free", "double-free"},
    {"attempting free on address which was not malloc", "bad-free"},
    {"requested allocation size", "allocation-size-too-big"},
    {"allocator is out of memory", "out-of-memory"},
    {"out of memory", "out-of-memory"},
    {"calloc parameters overflow", "calloc-overflow"},
    {"detected memory leaks", "detected-memory-leaks"},
    {"data race", "data-race"},
    {"heap-use-after-free", "heap-use-after-free"},
};

/* UBSan "runtime error:" messages and clang's check names; the first match wins. */
static const struct {
    const char *phrase, *kind;
} ubsan_phrases[] = {
    {"signed integer overflow", "signed-integer-overflow"},
    {"unsigned integer overflow", "unsigned-integer-overflow"},
    {"negation of", "signed-integer-overflow"},
    {"division by zero", "integer-divide-by-zero"},
    {"shift exponent", "shift"},
    {"left shift of", "shift"},
    {"out of bounds for type", "bounds"},
    {"misaligned address", "alignment"},
    {"null pointer passed as argument", "nonnull-attribute"},
    {"null pointer returned from function", "returns-nonnull-attribute"},
    {"pointer index expression", "pointer-overflow"},
    {"applying non-zero offset", "pointer-overflow"},
    {"applying zero offset to null pointer", "pointer-overflow"},
    {"addition of unsigned offset", "pointer-overflow"},
    {"subtraction of unsigned offset", "pointer-overflow"},
    {"null pointer", "null"},
    {"which is not a valid value for type", "invalid-value"},
    {"unreachable program point", "unreachable"},
    {"end of a value-returning function", "return"},
    {"outside the range of representable values", "float-cast-overflow"},
    {"variable length array bound", "vla-bound"},
    {"incorrect function type", "function"},
    {"implicit conversion", "implicit-conversion"},
    {"passing zero to", "invalid-builtin-use"},
    {"address is not aligned", "alignment"},
};

/* Returns whether phrase occurs in [s, end). */
static bool in_line(const char *s, const char *end, const char *phrase)
{
    return memmem(s, (size_t)(end - s), phrase, strlen(phrase)) != NULL;
}

static void copy_kind(char *kind, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(kind, s, n);
    kind[n] = '\0';
}

/* Parses the text after "XSanitizer: " up to the end of its line. */
static void san_kind_of(const char *s, const char *end, char *kind, size_t cap)
{
    for (size_t i = 0; i < sizeof san_phrases / sizeof san_phrases[0]; i++) {
        if ((size_t)(end - s) >= strlen(san_phrases[i].phrase) &&
            strncmp(s, san_phrases[i].phrase, strlen(san_phrases[i].phrase)) == 0) {
            copy_kind(kind, cap, san_phrases[i].kind, strlen(san_phrases[i].kind));
            return;
        }
    }
    size_t n = 0;
    while (s + n < end && (s[n] == '-' || s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') ||
                           (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9')))
        n++;
    copy_kind(kind, cap, n ? s : "unknown", n ? n : 7);
}

static void ubsan_kind_of(const char *s, const char *end, char *kind, size_t cap)
{
    for (size_t i = 0; i < sizeof ubsan_phrases / sizeof ubsan_phrases[0]; i++) {
        if (in_line(s, end, ubsan_phrases[i].phrase)) {
            copy_kind(kind, cap, ubsan_phrases[i].kind, strlen(ubsan_phrases[i].kind));
            return;
        }
    }
    copy_kind(kind, cap, "undefined-behavior", 18);
}

/* Where the first sanitizer report of text starts (after "XSanitizer: " or "runtime error: "),
 * its tool in *tool and whether it is a UBSan "runtime error:" line; NULL when there is none. */
static const char *report_find(const char *text, const char **tool, bool *ubsan_line)
{
    const char *best = NULL, *best_tool = NULL;
    bool best_ubsan_line = false;
    /* The earliest "XSanitizer: " line naming a known sanitizer. */
    for (const char *p = strstr(text, "Sanitizer: "); p; p = strstr(p + 1, "Sanitizer: ")) {
        const char *name = p;
        while (name > text && ((name[-1] >= 'a' && name[-1] <= 'z') ||
                               (name[-1] >= 'A' && name[-1] <= 'Z')))
            name--;
        for (size_t i = 0; i < sizeof san_names / sizeof san_names[0]; i++) {
            size_t n = strlen(san_names[i].name);
            if ((size_t)(p - name) == n && strncmp(name, san_names[i].name, n) == 0) {
                best = p + strlen("Sanitizer: ");
                best_tool = san_names[i].tool;
                break;
            }
        }
        if (best)
            break;
    }
    const char *rt = strstr(text, "runtime error: ");
    if (rt && (!best || rt < best)) {
        best = rt + strlen("runtime error: ");
        best_tool = "ubsan";
        best_ubsan_line = true;
    }
    *tool = best_tool;
    *ubsan_line = best_ubsan_line;
    return best;
}

const char *exec_sanitizer_report(const char *text, const char **tool, char *kind, size_t cap)
{
    bool ubsan_line;
    const char *best = report_find(text, tool, &ubsan_line);
    if (!best)
        return NULL;
    const char *end = strchr(best, '\n');
    if (!end)
        end = best + strlen(best);
    if (ubsan_line)
        ubsan_kind_of(best, end, kind, cap);
    else
        san_kind_of(best, end, kind, cap);
    return best;
}

bool cd_exec_sanitizer_report(const char *text, const char **tool, char *kind, size_t cap)
{
    return exec_sanitizer_report(text, tool, kind, cap) != NULL;
}

#define MAX_STACK_LINES 256   /* frames read from one stack */
#define MAX_NAME 160          /* bytes of one function name kept */

/* Function names that are never the program's: prefixes, then whole names. */
static const char *const skip_prefixes[] = {
    "__asan", "__lsan", "__msan", "__tsan", "__ubsan", "__hwasan", "__sanitizer", "__interceptor_",
    "___interceptor_", "__interception", "__cxa_", "__cxxabiv1", "__gnu_cxx", "std::__",
    "__libc_", "__GI_", "__afl", "fuzzer::", "__assert", "__stack_chk", "__fortify",
    "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk", "__sigsetjmp",
};
static const char *const skip_names[] = {
    "_start", "abort", "raise", "__assert_fail", "malloc", "calloc", "realloc", "free",
    "reallocarray", "memalign", "posix_memalign", "aligned_alloc", "valloc", "pvalloc", "strdup",
    "strndup", "memcpy", "memmove", "memset", "memcmp", "bcmp", "memchr", "memrchr", "strlen",
    "strnlen", "strcmp", "strncmp", "strcasecmp", "strncasecmp", "strcpy", "strncpy", "strcat",
    "strncat", "strchr", "strrchr", "strstr", "printf", "fprintf", "sprintf", "snprintf",
    "vsprintf", "vsnprintf", "fread", "fwrite", "read", "write", "operator new",
    "operator new[]", "operator delete", "operator delete[]", "LLVMFuzzerRunDriver",
    "ExecuteFilesOnyByOne", "exit", "_exit", "__libc_start_main", "gsignal",
};
/* Libraries whose frames are never the program's (by the start of the module's base name). */
static const char *const skip_modules[] = {
    "libc.so", "libc-", "libm.so", "libpthread", "ld-linux", "ld-2.", "libstdc++", "libc++",
    "libgcc_s", "libclang_rt", "libasan", "libubsan", "libtsan", "liblsan", "libdl",
};

#define N_OF(a) (sizeof a / sizeof a[0])

static bool skipped_name(const char *name, size_t n)
{
    for (size_t i = 0; i < N_OF(skip_prefixes); i++) {
        size_t l = strlen(skip_prefixes[i]);
        if (n >= l && memcmp(name, skip_prefixes[i], l) == 0)
            return true;
    }
    for (size_t i = 0; i < N_OF(skip_names); i++)
        if (strlen(skip_names[i]) == n && memcmp(name, skip_names[i], n) == 0)
            return true;
    return false;
}

static bool skipped_module(const char *module, size_t n)
{
    const char *base = module;
    for (size_t i = 0; i < n; i++)
        if (module[i] == '/')
            base = module + i + 1;
    size_t bn = n - (size_t)(base - module);
    for (size_t i = 0; i < N_OF(skip_modules); i++) {
        size_t l = strlen(skip_modules[i]);
        if (bn >= l && memcmp(base, skip_modules[i], l) == 0)
            return true;
    }
    return false;
}

/* The text being built: the kind line, then frames. */
struct state {
    char *out;
    size_t cap, len;
    unsigned frames, want;
};

/* Appends frame name [name, name+n) unless skipped: arguments ("f(int)"), clone suffixes
 * ("f.cold", "f.isra.0") and bytes that are not printable ASCII are not part of a name. */
static void add_frame(struct state *st, const char *name, size_t n)
{
    if (st->frames >= st->want || !n)
        return;
    size_t from = n > 9 && memcmp(name, "operator", 8) == 0 ? 9 : 0; /* "operator()" */
    const char *paren = memchr(name + from, '(', n - from);
    if (paren && paren > name)
        n = (size_t)(paren - name);
    const char *dot = memchr(name, '.', n);
    if (dot && dot > name && (memmem(dot, n - (size_t)(dot - name), ".cold", 5) ||
                              memmem(dot, n - (size_t)(dot - name), ".isra", 5) ||
                              memmem(dot, n - (size_t)(dot - name), ".part", 5) ||
                              memmem(dot, n - (size_t)(dot - name), ".constprop", 10)))
        n = (size_t)(dot - name);
    while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
        n--;
    if (!n || skipped_name(name, n))
        return;
    if (n > MAX_NAME)
        n = MAX_NAME;
    if (st->len + n + 2 > st->cap)
        return;
    st->out[st->len++] = '\n';
    for (size_t i = 0; i < n; i++)
        st->out[st->len++] = name[i] > ' ' && name[i] < 127 ? name[i] : '?';
    st->out[st->len] = '\0';
    st->frames++;
}

/* Finds "(module+0xoffset)" in [s, end): the module and offset. */
static bool frame_module(const char *s, const char *end, const char **module, size_t *mlen,
                         uint64_t *offset)
{
    for (const char *p = s; p < end; p++) {
        if (*p != '(')
            continue;
        const char *close = memchr(p, ')', (size_t)(end - p));
        if (!close)
            return false;
        const char *plus = NULL;
        for (const char *q = p + 1; q + 3 <= close; q++)
            if (q[0] == '+' && q[1] == '0' && q[2] == 'x')
                plus = q;
        if (plus) {
            char *stop;
            *offset = strtoull(plus + 3, &stop, 16);
            if (stop == close) {
                *module = p + 1;
                *mlen = (size_t)(plus - p - 1);
                return true;
            }
        }
        p = close;
    }
    return false;
}

/* One stack line "#N 0xADDR [in NAME LOCATION] [(module+0xOFF)]" into frames. */
static void read_frame(struct state *st, const char *s, const char *end,
                       struct exec_symbolizer **sym)
{
    if (end <= s)
        return;
    const char *module = NULL;
    size_t mlen = 0;
    uint64_t offset = 0;
    bool has_module = frame_module(s, end, &module, &mlen, &offset);
    if (has_module && skipped_module(module, mlen))
        return;
    const char *in = memmem(s, (size_t)(end - s), " in ", 4);
    if (in) { /* symbolized: the name runs to its location (" /path:line", " (module+0x") */
        const char *name = in + 4, *stop = end;
        if (name >= end)
            return;
        const char *paren = memmem(name, (size_t)(end - name), " (", 2);
        if (paren)
            stop = paren;
        for (const char *p = stop; p > name; p--) {
            if (p[-1] == ' ' && p < stop && (*p == '/' || *p == '.' ||
                                               memchr(p, ':', (size_t)(stop - p)))) {
                stop = p - 1;
                break;
            }
        }
        add_frame(st, name, (size_t)(stop - name));
        return;
    }
    if (!has_module)
        return;
    const char *names = sym ? exec_symbolize(sym, module, mlen, offset) : NULL;
    if (names && *names) {
        for (const char *p = names; *p;) {
            const char *nl = strchr(p, '\n');
            add_frame(st, p, (size_t)(nl - p));
            p = nl + 1;
        }
        return;
    }
    /* Unnamed: its module's base name and offset, which a rebuild changes. */
    const char *base = module;
    for (size_t i = 0; i < mlen; i++)
        if (module[i] == '/')
            base = module + i + 1;
    char text[MAX_NAME + 24];
    int n = snprintf(text, sizeof text, "%.*s+0x%llx", (int)(mlen - (size_t)(base - module)),
                     base, (unsigned long long)offset);
    if (n > 0)
        add_frame(st, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

/* The access type the report gives before its stack, or NULL. */
static const char *access_of(const char *s, const char *stack)
{
    static const struct {
        const char *phrase, *access;
    } phrases[] = {
        {"READ of size", "READ"},          {"WRITE of size", "WRITE"},
        {"caused by a READ memory", "READ"}, {"caused by a WRITE memory", "WRITE"},
    };
    for (size_t i = 0; i < N_OF(phrases); i++)
        if (memmem(s, (size_t)(stack - s), phrases[i].phrase, strlen(phrases[i].phrase)))
            return phrases[i].access;
    return NULL;
}

/* Whether [s, end) is a stack line: blanks, '#', digits, a blank. */
static bool stack_line(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || *s != '#' || ++s >= end || *s < '0' || *s > '9')
        return false;
    while (s < end && *s >= '0' && *s <= '9')
        s++;
    return s < end && *s == ' ';
}

bool exec_crash_state(const char *text, const char *at, const char *tool, const char *kind,
                      unsigned frames, struct exec_symbolizer **sym, char *out, size_t cap)
{
    if (cap < 2)
        return false;
    /* The report's line start: the stack comes after it. */
    const char *line = at;
    while (line > text && line[-1] != '\n')
        line--;
    const char *stack = NULL;
    for (const char *p = line; *p;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        if (stack_line(p, end)) {
            stack = p;
            break;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    const char *access = access_of(line, stack ? stack : line + strlen(line));
    int n = snprintf(out, cap, "%s:%s%s%s", tool, kind, access ? " " : "", access ? access : "");
    if (n <= 0 || (size_t)n >= cap)
        return false;
    struct state st = {out, cap, (size_t)n, 0, frames};
    unsigned read = 0;
    for (const char *p = stack; p && *p && st.frames < frames && read < MAX_STACK_LINES; read++) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        if (!stack_line(p, end))
            break;
        read_frame(&st, p, end, sym);
        if (!nl)
            break;
        p = nl + 1;
    }
    return true;
}

bool cd_exec_crash_state(const char *text, unsigned frames, bool symbolize, char *out, size_t cap)
{
    const char *tool;
    char kind[64];
    const char *at = exec_sanitizer_report(text, &tool, kind, sizeof kind);
    if (!at)
        return false;
    struct exec_symbolizer *sym = NULL;
    bool ok = exec_crash_state(text, at, tool, kind, frames, symbolize ? &sym : NULL, out, cap);
    exec_symbolizer_free(sym);
    return ok;
}
