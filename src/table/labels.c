/* Labels: turns one run of the executor (coverage map plus outcome) into a sorted set of 32-bit
 * label ids, and converts ids to and from their text form. It depends on the executor's run
 * record only; it knows nothing of tables, reduction or output. Outcome ids come from fixed tables
 * below, which are append-only so that an id means the same label in every run and release. */
#include "cd_labels.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Outcome id layout: CD_LABEL_OUTCOME | target << 27 | kind << 24 | payload. */
enum {
    OUT_TIMEOUT = 1,  /* payload 0 */
    OUT_SIGNAL = 2,   /* payload: signal number */
    OUT_EXIT = 3,     /* payload: exit status counted as a crash */
    OUT_SAN = 4,      /* payload: tool << 12 | kind (kind 0 is "unknown") */
    OUT_BUG = 5,      /* payload: 24 bits of the crash state's FNV-1a hash */
};
#define OUT_KIND(id) (((id) >> 24) & 0x7u)
#define OUT_PAYLOAD(id) ((id) & 0xffffffu)

/* Sanitizer tools; index 0 is unused. Append only. */
static const char *const san_tools[] = {NULL, "asan", "ubsan", "msan", "lsan", "tsan", "hwasan"};
#define SAN_TOOLS (sizeof san_tools / sizeof san_tools[0])

/* Sanitizer error kinds, as the executor names them; index 0 is "unknown". Append only. */
static const char *const san_kinds[] = {
    "unknown",
    /* AddressSanitizer */
    "heap-buffer-overflow", "stack-buffer-overflow", "global-buffer-overflow",
    "heap-use-after-free", "stack-use-after-return", "stack-use-after-scope",
    "dynamic-stack-buffer-overflow", "container-overflow", "use-after-poison", "stack-overflow",
    "double-free", "bad-free", "alloc-dealloc-mismatch", "allocation-size-too-big",
    "calloc-overflow", "out-of-memory", "memcpy-param-overlap", "strcpy-param-overlap",
    "strncpy-param-overlap", "strcat-param-overlap", "negative-size-param", "unknown-crash",
    "SEGV", "BUS", "FPE", "ILL", "ABRT", "new-delete-type-mismatch", "intra-object-overflow",
    "invalid-pointer-pair", "odr-violation",
    /* LeakSanitizer, MemorySanitizer, ThreadSanitizer */
    "detected-memory-leaks", "use-of-uninitialized-value", "data-race", "heap-use-after-free-race",
    /* UndefinedBehaviorSanitizer (clang's check names) */
    "undefined-behavior", "signed-integer-overflow", "unsigned-integer-overflow",
    "integer-divide-by-zero", "float-divide-by-zero", "shift", "bounds", "alignment", "null",
    "nonnull-attribute", "returns-nonnull-attribute", "invalid-value", "unreachable", "return",
    "pointer-overflow", "float-cast-overflow", "vla-bound", "function", "implicit-conversion",
    "invalid-builtin-use", "object-size", "vptr",
};
#define SAN_KINDS (sizeof san_kinds / sizeof san_kinds[0])

/* Signal names for crash labels; other numbers print as SIG<n>. */
static const struct {
    int num;
    const char *name;
} signal_names[] = {
    {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
    {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"}, {SIGKILL, "SIGKILL"}, {SIGSYS, "SIGSYS"},
    {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"},
    {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"},
    {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
};
#define SIGNAL_NAMES (sizeof signal_names / sizeof signal_names[0])

/* Raw count -> class, the intended AFL ranges (not Debian 4.04c's exact-power table). */
unsigned cd_labels_class(uint8_t count)
{
    if (count <= 3)
        return count;
    if (count < 8)
        return 4;
    if (count < 16)
        return 5;
    if (count < 32)
        return 6;
    return count < 128 ? 7 : 8;
}

uint32_t cd_labels_edge(uint32_t edge, uint8_t count)
{
    return (edge << 3) | (uint32_t)(cd_labels_class(count) - 1u);
}

bool cd_labels_name_valid(const char *name)
{
    size_t n = strlen(name);
    return n > 0 && n <= 64 && name[0] != '.' && name[0] != '-' &&
           strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

unsigned cd_labels_target(uint32_t id)
{
    return (id & CD_LABEL_TARGET_MASK) >> CD_LABEL_TARGET_SHIFT;
}

uint32_t cd_labels_in_target(uint32_t id, unsigned t)
{
    return (id & ~CD_LABEL_TARGET_MASK) | (uint32_t)t << CD_LABEL_TARGET_SHIFT;
}

bool cd_labels_is_outcome(uint32_t id)
{
    return (id & CD_LABEL_OUTCOME) != 0;
}

uint32_t cd_labels_slot(uint32_t id)
{
    return id >> 3;
}

static uint32_t outcome_id(unsigned kind, uint32_t payload)
{
    return CD_LABEL_OUTCOME | (uint32_t)kind << 24 | (payload & 0xffffffu);
}

static unsigned lookup(const char *const *table, size_t n, size_t first, const char *s)
{
    for (size_t i = first; i < n; i++)
        if (table[i] && strcmp(table[i], s) == 0)
            return (unsigned)i;
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

bool cd_labelset_push(struct cd_labelset *set, uint32_t id)
{
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 256;
        uint32_t *v = realloc(set->v, cap * sizeof *v);
        if (!v)
            return false;
        set->v = v;
        set->cap = cap;
    }
    set->v[set->n++] = id;
    return true;
}

bool cd_labelset_has_outcome(const struct cd_labelset *set)
{
    return set->n && cd_labels_is_outcome(set->v[set->n - 1]);
}

bool cd_labelset_has(const struct cd_labelset *set, uint32_t id)
{
    size_t i = cd_lower_bound_u32(set->v, set->n, sizeof *set->v, 0, id);
    return i < set->n && set->v[i] == id;
}

void cd_labelset_release(struct cd_labelset *set)
{
    free(set->v);
    set->v = NULL;
    set->n = set->cap = 0;
}

/* Makes room for more ids in set; false when out of memory. */
static bool reserve(struct cd_labelset *set, size_t more)
{
    if (set->cap - set->n >= more)
        return true;
    size_t cap = set->cap ? set->cap : 256;
    while (cap - set->n < more)
        cap *= 2;
    uint32_t *v = realloc(set->v, cap * sizeof *v);
    if (!v)
        return false;
    set->v = v;
    set->cap = cap;
    return true;
}

/* The label id's low bits (class - 1) of every raw count but 0, as cd_labels_class gives them. */
static uint8_t class_bits[256];
static pthread_once_t class_bits_once = PTHREAD_ONCE_INIT;

static void class_bits_init(void)
{
    for (unsigned c = 1; c < 256; c++)
        class_bits[c] = (uint8_t)(cd_labels_class((uint8_t)c) - 1);
}

/* Appends the coverage labels of map, every count as 1 when edges_only. Edges come out in
 * ascending order, so the ids do too. The scan reads 8 bytes at a time and skips zero words: most
 * of a map is zero; a word's labels go in without a check each. */
static bool push_coverage(const uint8_t *map, size_t size, bool edges_only,
                          struct cd_labelset *set)
{
    pthread_once(&class_bits_once, class_bits_init);
    if (size > CD_LABEL_EDGE_MAX)
        size = CD_LABEL_EDGE_MAX;
    size_t words = size / 8;
    for (size_t w = 0; w < words; w++) {
        uint64_t v;
        memcpy(&v, map + w * 8, 8);
        if (!v)
            continue;
        if (!reserve(set, 8))
            return false;
        for (size_t i = w * 8; i < w * 8 + 8; i++) {
            uint8_t c = map[i];
            set->v[set->n] = (uint32_t)i << 3 | (edges_only ? 0 : class_bits[c]);
            set->n += c != 0 && i != 0;
        }
    }
    for (size_t i = words * 8; i < size; i++) {
        if (map[i] && i != 0 &&
            !cd_labelset_push(set, cd_labels_edge((uint32_t)i, edges_only ? 1 : map[i])))
            return false;
    }
    return true;
}

enum cd_status cd_labels_from_run(const struct cd_run *run, bool edges_only,
                                  struct cd_labelset *set, struct cd_error *err)
{
    set->n = 0;
    /* A run stopped by the timeout shows no coverage: where it was stopped decides its hit
       counts (a loop's 8-bit counters wrap), and afl-showmap writes no map for it either. */
    if (cd_outcome_timed_out(run->outcome)) {
        if (!cd_labelset_push(set, outcome_id(OUT_TIMEOUT, 0)))
            goto oom;
        return CD_OK;
    }
    if (run->map && !push_coverage(run->map, run->map_size, edges_only, set))
        goto oom;
    size_t coverage = set->n;
    if (run->outcome == CD_OUTCOME_CRASH) {
        uint32_t id = run->signal > 0 ? outcome_id(OUT_SIGNAL, (uint32_t)run->signal & 0xff)
                                      : outcome_id(OUT_EXIT, (uint32_t)run->exit_status & 0xff);
        if (!cd_labelset_push(set, id))
            goto oom;
    }
    if (run->san_tool) {
        unsigned tool = lookup(san_tools, SAN_TOOLS, 1, run->san_tool);
        if (tool) {
            unsigned kind = run->san_kind ? lookup(san_kinds, SAN_KINDS, 0, run->san_kind) : 0;
            if (!cd_labelset_push(set, outcome_id(OUT_SAN, (uint32_t)tool << 12 | kind)))
                goto oom;
        }
    }
    if (run->crash_state && !cd_labelset_push(set, cd_labels_bug(run->crash_state)))
        goto oom;
    /* Coverage ids are already ascending and below every outcome id; sort only the tail. */
    if (set->n - coverage > 1)
        qsort(set->v + coverage, set->n - coverage, sizeof *set->v, cmp_u32);
    return CD_OK;
oom:
    set->n = 0;
    return cd_error_oom(err, CD_FAILED, "out of memory building a label set");
}

void cd_labels_retarget(struct cd_labelset *set, unsigned t)
{
    if (t == 0)
        return;
    size_t n = 0;
    for (size_t i = 0; i < set->n; i++) {
        uint32_t id = set->v[i];
        if (cd_labels_is_outcome(id) || id >> 3 < CD_LABEL_TARGET_EDGES)
            set->v[n++] = cd_labels_in_target(id, t);
    }
    set->n = n; /* the order holds: the same bits set in every id */
}

uint32_t cd_labels_bug_probe(const char *crash_state, unsigned k)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)crash_state; *p; p++)
        h = (h ^ *p) * 16777619u;
    if (k) /* further probes: the probe number mixed into the same hash */
        h = ((h ^ (k * 0x9e3779b9u)) * 16777619u) ^ (h >> 13);
    return outcome_id(OUT_BUG, (h >> 24 ^ h) & 0xffffffu); /* xor-folded to 24 bits */
}

uint32_t cd_labels_bug(const char *crash_state)
{
    return cd_labels_bug_probe(crash_state, 0);
}

bool cd_labels_bug_is_of(uint32_t id, const char *crash_state)
{
    for (unsigned k = 0; k < CD_LABELS_BUG_PROBES; k++)
        if (cd_labels_bug_probe(crash_state, k) == cd_labels_in_target(id, 0))
            return true;
    return false;
}

bool cd_labels_crash_state_valid(const char *text)
{
    size_t n = 0, colon = 0;
    bool first = true, empty_line = true;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++, n++) {
        if (*p == '\n') {
            if (empty_line || (first && !colon))
                return false;
            first = false;
            empty_line = true;
            continue;
        }
        if (*p < 0x20 || *p > 0x7e)
            return false;
        colon += first && *p == ':';
        empty_line = false;
    }
    return n > 0 && n <= CD_LABELS_CRASH_STATE_MAX && !empty_line && (!first || colon);
}

bool cd_labels_is_bug(uint32_t id)
{
    return cd_labels_is_outcome(id) && OUT_KIND(id) == OUT_BUG;
}

uint32_t cd_labels_unreported(const uint32_t *ids, size_t n)
{
    uint32_t kind = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cd_labels_is_outcome(ids[i]))
            continue;
        if (OUT_KIND(ids[i]) == OUT_BUG || OUT_KIND(ids[i]) == OUT_SAN)
            return 0;
        if (!kind)
            kind = ids[i];
    }
    return kind;
}

int cd_labels_format(uint32_t id, char *buf, size_t cap)
{
    if (!cd_labels_is_outcome(id))
        return snprintf(buf, cap, "%06u:%u", id >> 3, (id & 7u) + 1u);
    uint32_t payload = OUT_PAYLOAD(id);
    if (id & CD_LABEL_TARGET_MASK)
        return snprintf(buf, cap, "outcome:%08x", id);
    switch (OUT_KIND(id)) {
    case OUT_TIMEOUT:
        return snprintf(buf, cap, "timeout");
    case OUT_SIGNAL:
        for (size_t i = 0; i < SIGNAL_NAMES; i++)
            if ((uint32_t)signal_names[i].num == payload)
                return snprintf(buf, cap, "crash:%s", signal_names[i].name);
        return snprintf(buf, cap, "crash:SIG%u", payload);
    case OUT_EXIT:
        return snprintf(buf, cap, "crash:exit%u", payload);
    case OUT_BUG:
        return snprintf(buf, cap, "bug:%06x", payload);
    case OUT_SAN: {
        uint32_t tool = payload >> 12, kind = payload & 0xfffu;
        if (tool > 0 && tool < SAN_TOOLS && kind < SAN_KINDS)
            return snprintf(buf, cap, "%s:%s", san_tools[tool], san_kinds[kind]);
        break;
    }
    }
    return snprintf(buf, cap, "outcome:%08x", id);
}

bool cd_labels_valid(uint32_t id)
{
    if (!cd_labels_is_outcome(id))
        return id >> 3 != 0 && id >> 3 < CD_LABEL_EDGE_MAX;
    char text[64];
    uint32_t back, base = cd_labels_in_target(id, 0);
    cd_labels_format(base, text, sizeof text);
    return cd_labels_parse(text, &back) && back == base;
}

/* Parses the decimal number that fills [s, end) and is at most limit. */
static bool parse_uint(const char *s, const char *end, uint32_t limit, uint32_t *out)
{
    if (s == end || end - s > 10)
        return false;
    uint64_t v = 0;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (v > limit)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool cd_labels_parse(const char *text, uint32_t *id)
{
    if (strcmp(text, "timeout") == 0) {
        *id = outcome_id(OUT_TIMEOUT, 0);
        return true;
    }
    const char *colon = strchr(text, ':');
    if (!colon || colon == text)
        return false;
    const char *rest = colon + 1, *end = rest + strlen(rest);
    uint32_t n;
    if ((size_t)(colon - text) == 3 && strncmp(text, "bug", 3) == 0) {
        if (end - rest != 6 || strspn(rest, "0123456789abcdef") != 6)
            return false;
        *id = outcome_id(OUT_BUG, (uint32_t)strtoul(rest, NULL, 16));
        return true;
    }
    if ((size_t)(colon - text) == 5 && strncmp(text, "crash", 5) == 0) {
        if (strncmp(rest, "exit", 4) == 0 && parse_uint(rest + 4, end, 255, &n)) {
            *id = outcome_id(OUT_EXIT, n);
            return true;
        }
        for (size_t i = 0; i < SIGNAL_NAMES; i++) {
            if (strcmp(rest, signal_names[i].name) == 0) {
                *id = outcome_id(OUT_SIGNAL, (uint32_t)signal_names[i].num);
                return true;
            }
        }
        if (strncmp(rest, "SIG", 3) == 0 && parse_uint(rest + 3, end, 255, &n) && n > 0) {
            *id = outcome_id(OUT_SIGNAL, n);
            return true;
        }
        return false;
    }
    for (size_t t = 1; t < SAN_TOOLS; t++) {
        if (strlen(san_tools[t]) == (size_t)(colon - text) &&
            strncmp(text, san_tools[t], (size_t)(colon - text)) == 0) {
            for (size_t k = 0; k < SAN_KINDS; k++) {
                if (strcmp(rest, san_kinds[k]) == 0) {
                    *id = outcome_id(OUT_SAN, (uint32_t)(t << 12 | k));
                    return true;
                }
            }
            return false;
        }
    }
    uint32_t edge, cls;
    if (!parse_uint(text, colon, CD_LABEL_EDGE_MAX - 1, &edge) || edge == 0 ||
        !parse_uint(rest, end, 8, &cls) || cls == 0)
        return false;
    *id = edge << 3 | (cls - 1);
    return true;
}

int cd_labels_format_in(uint32_t id, const struct cd_label_names *names, char *buf, size_t cap)
{
    if (!names || names->n <= 1)
        return cd_labels_format(id, buf, cap);
    unsigned t = cd_labels_target(id);
    char base[64];
    cd_labels_format(cd_labels_in_target(id, 0), base, sizeof base);
    if (t < names->n)
        return snprintf(buf, cap, "%s/%s", names->v[t].name, base);
    return snprintf(buf, cap, "target%u/%s", t, base);
}

bool cd_labels_parse_in(const char *text, const struct cd_label_names *names, uint32_t *id)
{
    if (!names || names->n <= 1)
        return cd_labels_parse(text, id);
    const char *slash = strchr(text, '/');
    if (!slash)
        return false;
    for (unsigned t = 0; t < names->n; t++) {
        size_t n = strlen(names->v[t].name);
        if ((size_t)(slash - text) != n || strncmp(text, names->v[t].name, n) != 0)
            continue;
        uint32_t base;
        if (!cd_labels_parse(slash + 1, &base) || base & CD_LABEL_TARGET_MASK ||
            (!cd_labels_is_outcome(base) && base >> 3 >= CD_LABEL_TARGET_EDGES))
            return false;
        *id = cd_labels_in_target(base, t);
        return true;
    }
    return false;
}
