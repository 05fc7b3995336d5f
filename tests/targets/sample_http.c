/*
 * sample_http: an HTTP/1.x request parser as a libFuzzer-style harness, used as a sample fuzzing
 * target. LLVMFuzzerTestOneInput parses one request: the request line (method, request target in
 * origin, absolute, authority or asterisk form with percent-decoding, dot-segment removal and
 * query parameters, version), header fields (Host, Content-Length, Transfer-Encoding, Connection,
 * Cookie, Content-Type, Accept with q-values, Range, Expect, Authorization with Basic base64),
 * and the body (Content-Length or chunked transfer coding with extensions and trailers), then
 * routes the request through a small handler table. Built with -fsanitize=fuzzer it links AFL++'s
 * libAFLDriver: persistent mode with shared-memory test cases under the fork server, or one run
 * per file argument outside it. Deterministic, no global state carried between calls.
 *
 * Planted faults (for testing crash handling and reduction):
 *  - SIGSEGV: DELETE on /admin (or below it) is routed to a handler table entry that is NULL and
 *    called. Minimal trigger: "DELETE /admin HTTP/1.0\r\n\r\n"
 *  - SIGABRT: a chunk-size line with more than 16 hex digits trips an abort() in the chunked
 *    decoder. Minimal trigger: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"
 *    followed by "11111111111111111\r\n"
 *  - hang: an "X-Hang:" header whose value is an odd number up to 1000 spins forever in the
 *    retry back-off loop, which counts down two at a time. Minimal trigger:
 *    "GET / HTTP/1.0\r\nX-Hang: 1\r\n\r\n"
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEADERS 64
#define MAX_PARAMS 32
#define MAX_COOKIES 32
#define MAX_BODY (1u << 20)

struct span {
    const uint8_t *p;
    size_t n;
};

struct request {
    int method; /* index into methods[], or -1 for an extension method */
    int form;   /* 0 origin, 1 absolute, 2 authority, 3 asterisk */
    int minor;  /* HTTP/1.minor */
    char path[1024];
    size_t path_len;
    unsigned nparams, ncookies, nheaders;
    int have_host, have_cl, chunked, keep_alive, close, expect_continue, authorized;
    uint64_t content_length;
    size_t body_len;
    unsigned accept_types, ranges, page;
    int sort;
};

static const char *const methods[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH",
                                      "TRACE", "CONNECT"};
enum { M_GET, M_HEAD, M_POST, M_PUT, M_DELETE, M_OPTIONS, M_PATCH, M_TRACE, M_CONNECT };

static volatile unsigned backoff_sink;

static int is_tchar(uint8_t c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return 1;
    return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int span_ieq(struct span s, const char *lit)
{
    size_t n = strlen(lit);
    if (s.n != n)
        return 0;
    for (size_t k = 0; k < n; k++) {
        uint8_t a = s.p[k], b = (uint8_t)lit[k];
        if (a >= 'A' && a <= 'Z')
            a = (uint8_t)(a + 32);
        if (b >= 'A' && b <= 'Z')
            b = (uint8_t)(b + 32);
        if (a != b)
            return 0;
    }
    return 1;
}

static struct span trim(struct span s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t')) {
        s.p++;
        s.n--;
    }
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
        s.n--;
    return s;
}

/* Reads one line ending in CRLF (a bare LF is accepted). Returns 0 when no line end is found. */
static int next_line(const uint8_t *d, size_t size, size_t *pos, struct span *line)
{
    for (size_t k = *pos; k < size; k++) {
        if (d[k] == '\n') {
            line->p = d + *pos;
            line->n = k - *pos;
            if (line->n && line->p[line->n - 1] == '\r')
                line->n--;
            *pos = k + 1;
            return 1;
        }
    }
    return 0;
}

/* Percent-decodes s into out (capacity cap); plus_space turns '+' into ' ' (query strings). */
static int pct_decode(struct span s, char *out, size_t cap, size_t *len, int plus_space)
{
    size_t o = 0;
    for (size_t k = 0; k < s.n; k++) {
        uint8_t c = s.p[k];
        if (o + 1 >= cap)
            return -1;
        if (c == '%') {
            if (k + 2 >= s.n)
                return -1; /* truncated escape */
            int hi = hexval(s.p[k + 1]), lo = hexval(s.p[k + 2]);
            if (hi < 0 || lo < 0)
                return -1;
            c = (uint8_t)(hi << 4 | lo);
            if (c == 0)
                return -1; /* encoded NUL */
            k += 2;
        } else if (c == '+' && plus_space) {
            c = ' ';
        } else if (c < 0x21 || c == 0x7f) {
            return -1;
        }
        out[o++] = (char)c;
    }
    out[o] = 0;
    *len = o;
    return 0;
}

/* Removes "." and ".." segments in place; fails when ".." climbs above the root. */
static int remove_dots(char *path, size_t *len)
{
    char out[1024];
    size_t o = 0, k = 0, n = *len;
    while (k < n) {
        size_t e = k + 1;
        while (e < n && path[e] != '/')
            e++;
        size_t seg = e - k - 1; /* segment after the slash at k */
        if (seg == 1 && path[k + 1] == '.') {
            /* skip */
        } else if (seg == 2 && path[k + 1] == '.' && path[k + 2] == '.') {
            if (o == 0)
                return -1;
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else {
            memcpy(out + o, path + k, e - k);
            o += e - k;
        }
        k = e;
    }
    if (o == 0)
        out[o++] = '/';
    memcpy(path, out, o);
    path[o] = 0;
    *len = o;
    return 0;
}

static int query_param(struct request *r, struct span name, struct span value)
{
    char v[256];
    size_t vl;
    if (++r->nparams > MAX_PARAMS)
        return -1;
    if (name.n == 0)
        return -1;
    if (pct_decode(value, v, sizeof v, &vl, 1))
        return -1;
    if (span_ieq(name, "page")) {
        if (vl == 0 || vl > 5 || strspn(v, "0123456789") != vl)
            return -1;
        r->page = (unsigned)atoi(v);
        if (r->page == 0)
            return -1;
    } else if (span_ieq(name, "sort")) {
        if (strcmp(v, "asc") == 0)
            r->sort = 1;
        else if (strcmp(v, "desc") == 0)
            r->sort = -1;
        else
            return -1;
    } else if (span_ieq(name, "q")) {
        if (vl > 100)
            return -1;
    }
    return 0;
}

static int parse_query(struct request *r, struct span q)
{
    size_t k = 0;
    while (k <= q.n) {
        size_t e = k;
        while (e < q.n && q.p[e] != '&' && q.p[e] != ';')
            e++;
        struct span item = {q.p + k, e - k};
        if (item.n) {
            const uint8_t *eq = memchr(item.p, '=', item.n);
            struct span name = item, value = {item.p + item.n, 0};
            if (eq) {
                name.n = (size_t)(eq - item.p);
                value.p = eq + 1;
                value.n = item.n - name.n - 1;
            }
            if (query_param(r, name, value))
                return -1;
        }
        k = e + 1;
    }
    return 0;
}

static int parse_target(struct request *r, struct span t)
{
    struct span path = t, query = {NULL, 0};
    if (t.n == 0)
        return -1;
    if (t.n == 1 && t.p[0] == '*') {
        r->form = 3;
        return r->method == M_OPTIONS ? 0 : -1;
    }
    if (r->method == M_CONNECT) {
        const uint8_t *colon = memchr(t.p, ':', t.n);
        r->form = 2;
        if (!colon || colon == t.p || colon + 1 == t.p + t.n)
            return -1;
        for (const uint8_t *c = colon + 1; c < t.p + t.n; c++)
            if (*c < '0' || *c > '9')
                return -1;
        return 0;
    }
    if (t.n > 7 && (memcmp(t.p, "http://", 7) == 0 || (t.n > 8 && memcmp(t.p, "https://", 8) == 0))) {
        size_t skip = t.p[4] == 's' ? 8 : 7;
        const uint8_t *slash = memchr(t.p + skip, '/', t.n - skip);
        r->form = 1;
        r->have_host = 1;
        if (slash == t.p + skip)
            return -1; /* empty authority */
        if (!slash) {
            memcpy(r->path, "/", 2);
            r->path_len = 1;
            return 0;
        }
        path.p = slash;
        path.n = t.n - (size_t)(slash - t.p);
    } else if (t.p[0] != '/') {
        return -1;
    }
    const uint8_t *qm = memchr(path.p, '?', path.n);
    if (qm) {
        query.p = qm + 1;
        query.n = path.n - (size_t)(qm - path.p) - 1;
        path.n = (size_t)(qm - path.p);
    }
    const uint8_t *frag = memchr(path.p, '#', path.n);
    if (frag)
        return -1; /* fragments are never sent */
    if (pct_decode(path, r->path, sizeof r->path, &r->path_len, 0))
        return -1;
    if (remove_dots(r->path, &r->path_len))
        return -1;
    return query.p ? parse_query(r, query) : 0;
}

static int parse_request_line(struct request *r, struct span line)
{
    const uint8_t *sp1 = memchr(line.p, ' ', line.n), *sp2;
    struct span m, t, v;
    if (!sp1 || sp1 == line.p)
        return -1;
    m.p = line.p;
    m.n = (size_t)(sp1 - line.p);
    sp2 = memchr(sp1 + 1, ' ', line.n - m.n - 1);
    if (!sp2)
        return -1;
    t.p = sp1 + 1;
    t.n = (size_t)(sp2 - t.p);
    v.p = sp2 + 1;
    v.n = line.n - (size_t)(v.p - line.p);
    r->method = -1;
    for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
        if (m.n == strlen(methods[k]) && memcmp(m.p, methods[k], m.n) == 0)
            r->method = (int)k;
    if (r->method < 0)
        for (size_t k = 0; k < m.n; k++)
            if (!is_tchar(m.p[k]))
                return -1;
    if (v.n != 8 || memcmp(v.p, "HTTP/1.", 7) != 0)
        return -1;
    if (v.p[7] != '0' && v.p[7] != '1')
        return -1;
    r->minor = v.p[7] - '0';
    r->keep_alive = r->minor == 1;
    return parse_target(r, t);
}

static int parse_u64(struct span s, uint64_t *out)
{
    uint64_t v = 0;
    if (s.n == 0 || s.n > 19)
        return -1;
    for (size_t k = 0; k < s.n; k++) {
        if (s.p[k] < '0' || s.p[k] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s.p[k] - '0');
    }
    *out = v;
    return 0;
}

static int parse_cookies(struct request *r, struct span v)
{
    size_t k = 0;
    while (k < v.n) {
        size_t e = k;
        while (e < v.n && v.p[e] != ';')
            e++;
        struct span c = trim((struct span){v.p + k, e - k});
        const uint8_t *eq = memchr(c.p, '=', c.n);
        if (!eq || eq == c.p)
            return -1;
        for (const uint8_t *x = c.p; x < eq; x++)
            if (!is_tchar(*x))
                return -1;
        struct span val = {eq + 1, c.n - (size_t)(eq - c.p) - 1};
        if (val.n >= 2 && val.p[0] == '"') {
            if (val.p[val.n - 1] != '"')
                return -1;
            val.p++;
            val.n -= 2;
        }
        for (size_t x = 0; x < val.n; x++)
            if (val.p[x] < 0x21 || val.p[x] == '"' || val.p[x] == ',' || val.p[x] == '\\' ||
                val.p[x] == 0x7f)
                return -1;
        if (++r->ncookies > MAX_COOKIES)
            return -1;
        k = e + 1;
    }
    return 0;
}

static int parse_accept(struct request *r, struct span v)
{
    size_t k = 0;
    while (k < v.n) {
        size_t e = k;
        while (e < v.n && v.p[e] != ',')
            e++;
        struct span item = trim((struct span){v.p + k, e - k});
        const uint8_t *semi = memchr(item.p, ';', item.n);
        if (semi) {
            struct span prm = trim((struct span){semi + 1, item.n - (size_t)(semi - item.p) - 1});
            if (prm.n < 3 || prm.p[0] != 'q' || prm.p[1] != '=')
                return -1;
            if (prm.p[2] == '1') {
                for (size_t x = 3; x < prm.n; x++)
                    if (prm.p[x] != (x == 3 ? '.' : '0'))
                        return -1;
            } else if (prm.p[2] == '0') {
                if (prm.n > 3 && prm.p[3] != '.')
                    return -1;
                if (prm.n > 7)
                    return -1;
                for (size_t x = 4; x < prm.n; x++)
                    if (prm.p[x] < '0' || prm.p[x] > '9')
                        return -1;
            } else {
                return -1;
            }
            item.n = (size_t)(semi - item.p);
        }
        const uint8_t *slash = memchr(item.p, '/', item.n);
        if (!slash || slash == item.p || slash + 1 == item.p + item.n)
            return -1;
        r->accept_types++;
        k = e + 1;
    }
    return 0;
}

static int parse_range(struct request *r, struct span v)
{
    if (v.n < 7 || memcmp(v.p, "bytes=", 6) != 0)
        return -1;
    size_t k = 6;
    while (k < v.n) {
        uint64_t a = 0, b = 0;
        int ha = 0, hb = 0;
        while (k < v.n && v.p[k] >= '0' && v.p[k] <= '9' && a < (1ull << 50)) {
            a = a * 10 + (uint64_t)(v.p[k++] - '0');
            ha = 1;
        }
        if (k >= v.n || v.p[k] != '-')
            return -1;
        k++;
        while (k < v.n && v.p[k] >= '0' && v.p[k] <= '9' && b < (1ull << 50)) {
            b = b * 10 + (uint64_t)(v.p[k++] - '0');
            hb = 1;
        }
        if (!ha && !hb)
            return -1;
        if (ha && hb && b < a)
            return -1;
        r->ranges++;
        if (k < v.n) {
            if (v.p[k] != ',')
                return -1;
            k++;
            while (k < v.n && v.p[k] == ' ')
                k++;
        }
    }
    return 0;
}

static int base64_ok(struct span s)
{
    size_t pad = 0;
    if (s.n == 0 || s.n % 4 != 0)
        return 0;
    for (size_t k = 0; k < s.n; k++) {
        uint8_t c = s.p[k];
        if (c == '=') {
            if (k < s.n - 2)
                return 0;
            pad++;
        } else if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                              (c >= '0' && c <= '9') || c == '+' || c == '/')) {
            return 0;
        }
    }
    return 1;
}

/* Retry back-off for clients that announce a retry budget: counts down two at a time. */
static void backoff(unsigned n)
{
    for (unsigned r = n; r != 0; r -= 2)
        backoff_sink = backoff_sink + r;
}

static int header(struct request *r, struct span name, struct span v)
{
    if (span_ieq(name, "host")) {
        if (r->have_host == 2 || v.n == 0)
            return -1;
        r->have_host = 2;
    } else if (span_ieq(name, "content-length")) {
        uint64_t cl;
        if (parse_u64(v, &cl))
            return -1;
        if (r->have_cl && cl != r->content_length)
            return -1;
        r->have_cl = 1;
        r->content_length = cl;
    } else if (span_ieq(name, "transfer-encoding")) {
        if (span_ieq(v, "chunked"))
            r->chunked = 1;
        else if (span_ieq(v, "gzip, chunked"))
            r->chunked = 2;
        else
            return -1;
    } else if (span_ieq(name, "connection")) {
        if (span_ieq(v, "close"))
            r->close = 1;
        else if (span_ieq(v, "keep-alive"))
            r->keep_alive = 1;
        else if (!span_ieq(v, "upgrade"))
            return -1;
    } else if (span_ieq(name, "cookie")) {
        return parse_cookies(r, v);
    } else if (span_ieq(name, "accept")) {
        return parse_accept(r, v);
    } else if (span_ieq(name, "range")) {
        return parse_range(r, v);
    } else if (span_ieq(name, "expect")) {
        if (!span_ieq(v, "100-continue"))
            return -1;
        r->expect_continue = 1;
    } else if (span_ieq(name, "content-type")) {
        const uint8_t *slash = memchr(v.p, '/', v.n);
        if (!slash)
            return -1;
        const uint8_t *semi = memchr(v.p, ';', v.n);
        if (semi) {
            struct span prm = trim((struct span){semi + 1, v.n - (size_t)(semi - v.p) - 1});
            if (prm.n < 9 || memcmp(prm.p, "charset=", 8) != 0)
                return -1;
        }
    } else if (span_ieq(name, "authorization")) {
        if (v.n > 6 && memcmp(v.p, "Basic ", 6) == 0) {
            if (!base64_ok((struct span){v.p + 6, v.n - 6}))
                return -1;
            r->authorized = 1;
        } else if (v.n > 7 && memcmp(v.p, "Bearer ", 7) == 0) {
            r->authorized = 2;
        } else {
            return -1;
        }
    } else if (span_ieq(name, "x-hang")) {
        uint64_t n;
        if (parse_u64(v, &n) == 0 && n > 0 && n <= 1000)
            backoff((unsigned)n);
    }
    return 0;
}

static int parse_headers(struct request *r, const uint8_t *d, size_t size, size_t *pos)
{
    struct span line;
    for (;;) {
        if (!next_line(d, size, pos, &line))
            return -1; /* headers not terminated */
        if (line.n == 0)
            return 0;
        if (line.p[0] == ' ' || line.p[0] == '\t')
            return -1; /* obsolete line folding */
        const uint8_t *colon = memchr(line.p, ':', line.n);
        if (!colon || colon == line.p)
            return -1;
        struct span name = {line.p, (size_t)(colon - line.p)};
        for (size_t k = 0; k < name.n; k++)
            if (!is_tchar(name.p[k]))
                return -1;
        struct span v = trim((struct span){colon + 1, line.n - name.n - 1});
        for (size_t k = 0; k < v.n; k++)
            if ((v.p[k] < 0x20 && v.p[k] != '\t') || v.p[k] == 0x7f)
                return -1;
        if (++r->nheaders > MAX_HEADERS)
            return -1;
        if (header(r, name, v))
            return -1;
    }
}

static int chunked_body(struct request *r, const uint8_t *d, size_t size, size_t *pos)
{
    struct span line;
    for (;;) {
        uint64_t n = 0;
        size_t k = 0, digits = 0;
        if (!next_line(d, size, pos, &line))
            return -1;
        while (k < line.n && hexval(line.p[k]) >= 0) {
            if (++digits > 16)
                abort(); /* the size accumulator cannot hold more than 16 hex digits */
            n = n << 4 | (uint64_t)hexval(line.p[k++]);
        }
        if (digits == 0)
            return -1;
        if (k < line.n && line.p[k] != ';' && line.p[k] != ' ')
            return -1; /* junk after the size; chunk extensions follow a ';' */
        if (n == 0)
            break;
        if (n > MAX_BODY || r->body_len + n > MAX_BODY || size - *pos < n + 2)
            return -1;
        *pos += n;
        r->body_len += n;
        if (d[*pos] == '\r' && d[*pos + 1] == '\n')
            *pos += 2;
        else
            return -1;
    }
    for (;;) { /* trailer fields */
        if (!next_line(d, size, pos, &line))
            return -1;
        if (line.n == 0)
            return 0;
        if (!memchr(line.p, ':', line.n))
            return -1;
    }
}

typedef int (*handler_fn)(struct request *r);

static int h_static(struct request *r) { return r->path_len > 1 ? 0 : 1; }
static int h_api(struct request *r) { return r->page > 100 ? -1 : 0; }
static int h_upload(struct request *r) { return r->body_len ? 0 : -1; }
static int h_admin(struct request *r) { return r->authorized ? 0 : -1; }

struct route {
    const char *prefix;
    handler_fn by_method[9];
};

/* DELETE on /admin was never given a handler. */
static struct route routes[] = {
    {"/admin", {h_admin, h_admin, h_admin, h_admin, NULL, h_admin, h_admin, NULL, NULL}},
    {"/api/", {h_api, h_api, h_api, h_api, h_api, h_api, h_api, NULL, NULL}},
    {"/upload", {NULL, NULL, h_upload, h_upload, NULL, NULL, NULL, NULL, NULL}},
    {"/", {h_static, h_static, NULL, NULL, NULL, h_static, NULL, h_static, NULL}},
};

static int dispatch(struct request *r)
{
    if (r->form == 2 || r->form == 3 || r->method < 0)
        return 0;
    for (size_t k = 0; k < sizeof routes / sizeof routes[0]; k++) {
        size_t n = strlen(routes[k].prefix);
        if (r->path_len < n || memcmp(r->path, routes[k].prefix, n) != 0)
            continue;
        if (k == 0) /* every method on /admin has a handler (or so it was believed) */
            return routes[k].by_method[r->method](r);
        handler_fn h = routes[k].by_method[r->method];
        return h ? h(r) : -1;
    }
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef CD_BROKEN_ABORT
    abort(); /* a broken rebuild (a missing data file, say): tests/e2e/nightly_guard.sh */
#endif
#ifdef CD_BROKEN_EARLY
    size = size > 1 ? 1 : size; /* a rebuild that stops after the first byte */
#endif
    struct request *r = calloc(1, sizeof *r);
    struct span line;
    size_t pos = 0;
    if (!r)
        return 0;
    while (pos + 1 < size && data[pos] == '\r' && data[pos + 1] == '\n')
        pos += 2; /* leading empty lines are ignored */
    if (!next_line(data, size, &pos, &line) || parse_request_line(r, line))
        goto out;
    if (parse_headers(r, data, size, &pos))
        goto out;
#ifdef CD_HEADERS_ONLY
    goto out; /* the second harness of the format: the request line and headers alone */
#endif
    if (r->minor == 1 && r->have_host == 0)
        goto out; /* HTTP/1.1 requires Host */
    if (r->chunked && r->have_cl)
        goto out; /* request smuggling guard */
    if (r->chunked) {
        if (chunked_body(r, data, size, &pos))
            goto out;
    } else if (r->have_cl) {
        if (r->content_length > size - pos)
            goto out;
        r->body_len = (size_t)r->content_length;
        pos += r->body_len;
    }
    if (pos < size && !r->close)
        r->keep_alive++; /* a pipelined request follows */
    dispatch(r);
out:
    free(r);
    return 0;
}
