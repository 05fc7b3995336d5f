/*
 * sample_json: a small JSON parser and record validator, used as a sample fuzzing target.
 * It reads the file named by argv[1], or stdin when there is no argument, parses one JSON text
 * (objects, arrays, strings with escapes and \uXXXX surrogate pairs, numbers with fraction and
 * exponent, true/false/null, a nesting limit of 64) and checks records that carry a "type"
 * member against a few simple schemas. Exit status 0 for a valid document, 1 for a parse or
 * schema error, 2 when the input cannot be read. Deterministic: no time, no randomness.
 *
 * Planted faults (for testing crash handling and reduction):
 *  - SIGSEGV: an object member named "crash" at nesting depth 3 (the top-level value is depth 1)
 *    is counted through a per-depth slot table that has no slot for depth 3, a null write.
 *    Minimal trigger: {"":{"":{"crash":0}}}
 *  - SIGABRT: an object key holding a lone low surrogate escape (\uDC00..\uDFFF) reaches an
 *    abort() in the key interning code. Minimal trigger: {"\udc00":0}
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT (1u << 20)
#define MAX_DEPTH 64
#define MAX_KEYS 32

enum kind { K_NONE, K_NULL, K_FALSE, K_TRUE, K_NUMBER, K_STRING, K_ARRAY, K_OBJECT };

struct val {
    enum kind kind;
    double num;
    int is_int;
    int frac_digits;
    char *str; /* owned, NUL-terminated, for K_STRING */
    size_t len;
    size_t count; /* members or elements */
};

struct parser {
    const uint8_t *s;
    size_t n, i;
    int depth;
    const char *err;
    size_t err_at;
    unsigned long records, strings, numbers, escapes;
};

/* Per-depth member counters: slots exist for depths 1 and 2 only, the rest are not tracked. */
struct depth_slots {
    unsigned long *volatile slot[4];
};
static unsigned long depth1_members, depth2_members;

static int fail(struct parser *p, const char *msg)
{
    if (!p->err) {
        p->err = msg;
        p->err_at = p->i;
    }
    return -1;
}

static void val_clear(struct val *v)
{
    free(v->str);
    memset(v, 0, sizeof *v);
}

static void skip_ws(struct parser *p)
{
    while (p->i < p->n) {
        uint8_t c = p->s[p->i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            p->i++;
        else
            break;
    }
}

static int parse_value(struct parser *p, struct val *out);

static int hex4(struct parser *p, unsigned *out)
{
    unsigned v = 0;
    if (p->n - p->i < 4)
        return fail(p, "truncated \\u escape");
    for (int k = 0; k < 4; k++) {
        uint8_t c = p->s[p->i++];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail(p, "bad hex digit in \\u escape");
    }
    *out = v;
    return 0;
}

struct sbuf {
    char *b;
    size_t len, cap;
};

static int sbuf_put(struct sbuf *sb, const void *d, size_t n)
{
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap * 2 : 32;
        while (cap < sb->len + n + 1)
            cap *= 2;
        char *nb = realloc(sb->b, cap);
        if (!nb)
            return -1;
        sb->b = nb;
        sb->cap = cap;
    }
    memcpy(sb->b + sb->len, d, n);
    sb->len += n;
    sb->b[sb->len] = 0;
    return 0;
}

static int put_utf8(struct sbuf *sb, unsigned cp)
{
    uint8_t o[4];
    size_t n;
    if (cp < 0x80) {
        o[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        o[0] = (uint8_t)(0xc0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        o[0] = (uint8_t)(0xe0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        o[0] = (uint8_t)(0xf0 | (cp >> 18));
        o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
        o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        o[3] = (uint8_t)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return sbuf_put(sb, o, n);
}

/* Validates one raw UTF-8 sequence starting at p->i and copies it. */
static int raw_utf8(struct parser *p, struct sbuf *sb)
{
    uint8_t c = p->s[p->i];
    size_t need;
    unsigned cp;
    if (c < 0x20)
        return fail(p, "control character in string");
    if (c < 0x80) {
        p->i++;
        return sbuf_put(sb, &c, 1);
    }
    if ((c & 0xe0) == 0xc0) {
        need = 1;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        need = 2;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        need = 3;
        cp = c & 0x07;
    } else {
        return fail(p, "invalid UTF-8 lead byte");
    }
    if (p->n - p->i <= need)
        return fail(p, "truncated UTF-8 sequence");
    for (size_t k = 1; k <= need; k++) {
        uint8_t t = p->s[p->i + k];
        if ((t & 0xc0) != 0x80)
            return fail(p, "invalid UTF-8 continuation byte");
        cp = (cp << 6) | (t & 0x3f);
    }
    if ((need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000))
        return fail(p, "overlong UTF-8 sequence");
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return fail(p, "UTF-8 code point out of range");
    if (sbuf_put(sb, p->s + p->i, need + 1))
        return fail(p, "out of memory");
    p->i += need + 1;
    return 0;
}

static int escape(struct parser *p, struct sbuf *sb, int *lone_low)
{
    unsigned cp, lo;
    char c;
    if (p->i >= p->n)
        return fail(p, "truncated escape");
    p->escapes++;
    switch (p->s[p->i++]) {
    case '"': c = '"'; break;
    case '\\': c = '\\'; break;
    case '/': c = '/'; break;
    case 'b': c = '\b'; break;
    case 'f': c = '\f'; break;
    case 'n': c = '\n'; break;
    case 'r': c = '\r'; break;
    case 't': c = '\t'; break;
    case 'u':
        if (hex4(p, &cp))
            return -1;
        if (cp >= 0xd800 && cp <= 0xdbff) {
            if (p->n - p->i < 6 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
                return fail(p, "high surrogate without low surrogate");
            p->i += 2;
            if (hex4(p, &lo))
                return -1;
            if (lo < 0xdc00 || lo > 0xdfff)
                return fail(p, "high surrogate followed by a non-surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            /* Kept as U+FFFD in values; keys remember it (see intern_key). */
            *lone_low = 1;
            cp = 0xfffd;
        } else if (cp == 0) {
            return fail(p, "escaped NUL in string");
        }
        return put_utf8(sb, cp) ? fail(p, "out of memory") : 0;
    default:
        return fail(p, "unknown escape");
    }
    return sbuf_put(sb, &c, 1) ? fail(p, "out of memory") : 0;
}

static int parse_string(struct parser *p, struct val *out, int *lone_low)
{
    struct sbuf sb = {0};
    p->i++; /* opening quote */
    if (sbuf_put(&sb, "", 0))
        return fail(p, "out of memory");
    for (;;) {
        if (p->i >= p->n) {
            free(sb.b);
            return fail(p, "unterminated string");
        }
        uint8_t c = p->s[p->i];
        int r;
        if (c == '"') {
            p->i++;
            break;
        }
        if (c == '\\') {
            p->i++;
            r = escape(p, &sb, lone_low);
        } else {
            r = raw_utf8(p, &sb);
        }
        if (r) {
            free(sb.b);
            return -1;
        }
    }
    p->strings++;
    out->kind = K_STRING;
    out->str = sb.b;
    out->len = sb.len;
    return 0;
}

static int parse_number(struct parser *p, struct val *out)
{
    size_t start = p->i;
    double v = 0, scale = 1;
    int neg = 0, exp = 0, eneg = 0, frac = 0, digits = 0;
    if (p->s[p->i] == '-') {
        neg = 1;
        p->i++;
    }
    if (p->i >= p->n)
        return fail(p, "truncated number");
    if (p->s[p->i] == '0') {
        p->i++;
        if (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
            return fail(p, "leading zero in number");
        digits = 1;
    } else if (p->s[p->i] >= '1' && p->s[p->i] <= '9') {
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
            v = v * 10 + (p->s[p->i++] - '0');
            digits++;
        }
    } else {
        return fail(p, "expected digit");
    }
    out->is_int = 1;
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        out->is_int = 0;
        if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
            return fail(p, "expected digit after decimal point");
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
            scale /= 10;
            v += scale * (p->s[p->i++] - '0');
            frac++;
        }
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        out->is_int = 0;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
            eneg = p->s[p->i++] == '-';
        if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
            return fail(p, "expected digit in exponent");
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
            if (exp < 10000)
                exp = exp * 10 + (p->s[p->i] - '0');
            p->i++;
        }
        if (exp > 308)
            return fail(p, eneg ? "exponent underflow" : "exponent overflow");
        for (int k = 0; k < exp; k++)
            v = eneg ? v / 10 : v * 10;
    }
    if (digits > 18 && out->is_int)
        out->is_int = 0; /* too large to be an exact integer */
    p->numbers++;
    out->kind = K_NUMBER;
    out->num = neg ? -v : v;
    /* Decimal places of the value itself: 1.25e1 has one, 1.5e-1 has two. */
    frac += eneg ? exp : -exp;
    out->frac_digits = frac > 0 ? frac : 0;
    (void)start;
    return 0;
}

static int parse_literal(struct parser *p, const char *word, enum kind k, struct val *out)
{
    size_t len = strlen(word);
    if (p->n - p->i < len || memcmp(p->s + p->i, word, len) != 0)
        return fail(p, "invalid literal");
    p->i += len;
    out->kind = k;
    return 0;
}

/* ---- record schemas ---- */

struct record {
    int type; /* 0 none, 1 user, 2 order, 3 event, 4 config */
    unsigned have;
    int errors;
};

enum {
    F_ID = 1, F_NAME = 2, F_EMAIL = 4, F_PRICE = 8, F_DATE = 16, F_TAGS = 32, F_VERSION = 64,
    F_ENABLED = 128, F_URL = 256, F_ITEMS = 512, F_QTY = 1024
};

static int valid_email(const char *s)
{
    const char *at = strchr(s, '@');
    if (!at || at == s)
        return 0;
    if (strchr(at + 1, '@'))
        return 0;
    const char *dot = strrchr(at + 1, '.');
    if (!dot || dot == at + 1 || dot[1] == 0)
        return 0;
    for (const char *c = s; *c; c++)
        if (*c == ' ' || *c == ',' || *c == '<' || *c == '>')
            return 0;
    return 1;
}

static int valid_date(const char *s, size_t len)
{
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (len != 10 || s[4] != '-' || s[7] != '-')
        return 0;
    for (int k = 0; k < 10; k++)
        if (k != 4 && k != 7 && (s[k] < '0' || s[k] > '9'))
            return 0;
    int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
    if (y < 1970 || y > 2100 || m < 1 || m > 12 || d < 1)
        return 0;
    if (d > mdays[m - 1])
        return 0;
    if (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return 0;
    return 1;
}

static int valid_version(const char *s)
{
    int parts = 0, digits = 0;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '9') {
            digits++;
        } else if (*s == '.') {
            if (!digits)
                return 0;
            parts++;
            digits = 0;
        } else if (*s == '-' && parts == 2 && digits) {
            return 1; /* pre-release suffix */
        } else {
            return 0;
        }
    }
    return parts == 2 && digits > 0;
}

static int valid_url(const char *s)
{
    const char *rest;
    if (strncmp(s, "https://", 8) == 0)
        rest = s + 8;
    else if (strncmp(s, "http://", 7) == 0)
        rest = s + 7;
    else
        return 0;
    if (*rest == 0 || *rest == '/' || *rest == ':')
        return 0;
    const char *colon = strchr(rest, ':');
    if (colon) {
        int port = atoi(colon + 1);
        if (port <= 0 || port > 65535)
            return 0;
    }
    return 1;
}

static int record_type(const char *s)
{
    if (strcmp(s, "user") == 0)
        return 1;
    if (strcmp(s, "order") == 0)
        return 2;
    if (strcmp(s, "event") == 0)
        return 3;
    if (strcmp(s, "config") == 0)
        return 4;
    return 0;
}

static void check_member(struct record *r, const char *key, const struct val *v)
{
    if (strcmp(key, "type") == 0) {
        if (v->kind == K_STRING)
            r->type = record_type(v->str);
        if (!r->type)
            r->errors++;
    } else if (strcmp(key, "id") == 0) {
        r->have |= F_ID;
        if (v->kind == K_NUMBER && (!v->is_int || v->num < 0))
            r->errors++;
        else if (v->kind == K_STRING && (v->len == 0 || strspn(v->str, "0123456789abcdef-") != v->len))
            r->errors++;
        else if (v->kind != K_NUMBER && v->kind != K_STRING)
            r->errors++;
    } else if (strcmp(key, "name") == 0) {
        r->have |= F_NAME;
        if (v->kind != K_STRING || v->len == 0 || v->len > 64)
            r->errors++;
    } else if (strcmp(key, "email") == 0) {
        r->have |= F_EMAIL;
        if (v->kind != K_STRING || !valid_email(v->str))
            r->errors++;
    } else if (strcmp(key, "price") == 0) {
        r->have |= F_PRICE;
        if (v->kind != K_NUMBER || v->num < 0 || v->frac_digits > 2)
            r->errors++;
    } else if (strcmp(key, "qty") == 0) {
        r->have |= F_QTY;
        if (v->kind != K_NUMBER || !v->is_int || v->num < 1 || v->num > 1000)
            r->errors++;
    } else if (strcmp(key, "date") == 0) {
        r->have |= F_DATE;
        if (v->kind != K_STRING || !valid_date(v->str, v->len))
            r->errors++;
    } else if (strcmp(key, "tags") == 0) {
        r->have |= F_TAGS;
        if (v->kind != K_ARRAY || v->count > 16)
            r->errors++;
    } else if (strcmp(key, "items") == 0) {
        r->have |= F_ITEMS;
        if (v->kind != K_ARRAY || v->count == 0)
            r->errors++;
    } else if (strcmp(key, "version") == 0) {
        r->have |= F_VERSION;
        if (v->kind != K_STRING || !valid_version(v->str))
            r->errors++;
    } else if (strcmp(key, "enabled") == 0) {
        r->have |= F_ENABLED;
        if (v->kind != K_TRUE && v->kind != K_FALSE)
            r->errors++;
    } else if (strcmp(key, "url") == 0) {
        r->have |= F_URL;
        if (v->kind != K_STRING || !valid_url(v->str))
            r->errors++;
    }
}

static int finish_record(struct parser *p, const struct record *r)
{
    static const unsigned required[] = {0, F_ID | F_NAME | F_EMAIL, F_ID | F_PRICE | F_ITEMS,
                                        F_DATE | F_NAME, F_VERSION | F_ENABLED};
    if (!r->type)
        return 0;
    p->records++;
    if ((r->have & required[r->type]) != required[r->type])
        return fail(p, "record lacks a required member");
    if (r->errors)
        return fail(p, "record member has a bad value");
    return 0;
}

/* Remembers keys to detect duplicates; a key holding a lone low surrogate cannot be stored. */
static int intern_key(struct parser *p, char **keys, size_t *nkeys, char *key, int lone_low)
{
    if (lone_low)
        abort(); /* the key table assumed escapes were validated */
    for (size_t k = 0; k < *nkeys; k++)
        if (strcmp(keys[k], key) == 0)
            return fail(p, "duplicate key");
    if (*nkeys < MAX_KEYS) {
        keys[(*nkeys)++] = key;
        return 1; /* kept */
    }
    return 0;
}

static void count_member(struct parser *p, const char *key)
{
    struct depth_slots ds = {{NULL, &depth1_members, &depth2_members, NULL}};
    if (p->depth <= 2)
        (*ds.slot[p->depth])++;
    else if (strcmp(key, "crash") == 0 && p->depth == 3)
        (*ds.slot[3])++; /* no slot for depth 3 */
}

static int parse_object(struct parser *p, struct val *out)
{
    char *keys[MAX_KEYS];
    size_t nkeys = 0;
    struct record rec = {0};
    int rc = -1;
    p->i++;
    out->kind = K_OBJECT;
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
        return 0;
    }
    for (;;) {
        struct val key = {0}, v = {0};
        int lone_low = 0, kept;
        skip_ws(p);
        if (p->i >= p->n || p->s[p->i] != '"') {
            fail(p, "expected string key");
            goto out;
        }
        if (parse_string(p, &key, &lone_low))
            goto out;
        kept = intern_key(p, keys, &nkeys, key.str, lone_low);
        if (kept < 0) {
            val_clear(&key);
            goto out;
        }
        count_member(p, key.str);
        skip_ws(p);
        if (p->i >= p->n || p->s[p->i] != ':') {
            if (!kept)
                val_clear(&key);
            fail(p, "expected ':'");
            goto out;
        }
        p->i++;
        if (parse_value(p, &v)) {
            if (!kept)
                val_clear(&key);
            goto out;
        }
        check_member(&rec, key.str, &v);
        if (!kept)
            val_clear(&key);
        val_clear(&v);
        out->count++;
        skip_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->s[p->i] == '}') {
            p->i++;
            break;
        }
        fail(p, "expected ',' or '}'");
        goto out;
    }
    rc = finish_record(p, &rec);
out:
    for (size_t k = 0; k < nkeys; k++)
        free(keys[k]);
    return rc;
}

static int parse_array(struct parser *p, struct val *out)
{
    int kinds = 0;
    p->i++;
    out->kind = K_ARRAY;
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == ']') {
        p->i++;
        return 0;
    }
    for (;;) {
        struct val v = {0};
        if (parse_value(p, &v))
            return -1;
        kinds |= 1 << v.kind;
        val_clear(&v);
        out->count++;
        skip_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->s[p->i] == ']') {
            p->i++;
            break;
        }
        return fail(p, "expected ',' or ']'");
    }
    /* Mixed arrays are legal; note homogeneous ones of containers (common in record lists). */
    if (kinds == (1 << K_OBJECT) && out->count > 100)
        p->records += 0;
    return 0;
}

static int parse_value(struct parser *p, struct val *out)
{
    int r, lone_low = 0;
    skip_ws(p);
    if (p->i >= p->n)
        return fail(p, "unexpected end of input");
    switch (p->s[p->i]) {
    case '{':
    case '[':
        if (++p->depth > MAX_DEPTH)
            return fail(p, "nesting too deep");
        r = p->s[p->i] == '{' ? parse_object(p, out) : parse_array(p, out);
        p->depth--;
        return r;
    case '"':
        return parse_string(p, out, &lone_low);
    case 't':
        return parse_literal(p, "true", K_TRUE, out);
    case 'f':
        return parse_literal(p, "false", K_FALSE, out);
    case 'n':
        return parse_literal(p, "null", K_NULL, out);
    default:
        if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9'))
            return parse_number(p, out);
        return fail(p, "unexpected character");
    }
}

static uint8_t *read_input(const char *path, size_t *len)
{
    FILE *f = path ? fopen(path, "rb") : stdin;
    uint8_t *buf;
    if (!f)
        return NULL;
    buf = malloc(MAX_INPUT);
    if (buf)
        *len = fread(buf, 1, MAX_INPUT, f);
    if (path)
        fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    struct parser p = {0};
    struct val v = {0};
    size_t len = 0;
    int rc;
    uint8_t *buf = read_input(argc > 1 ? argv[1] : NULL, &len);
    if (!buf) {
        fprintf(stderr, "sample_json: cannot read input\n");
        return 2;
    }
    p.s = buf;
    p.n = len;
    /* An optional UTF-8 byte order mark. */
    if (len >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf)
        p.i = 3;
    rc = parse_value(&p, &v);
    if (!rc) {
        skip_ws(&p);
        if (p.i != p.n)
            rc = fail(&p, "trailing data after JSON value");
    }
    val_clear(&v);
    free(buf);
    if (rc) {
        fprintf(stderr, "sample_json: error at offset %zu: %s\n", p.err_at, p.err);
        return 1;
    }
    printf("ok: %lu records, %lu strings, %lu numbers\n", p.records, p.strings, p.numbers);
    return 0;
}
