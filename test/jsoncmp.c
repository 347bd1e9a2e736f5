/* SPDX-License-Identifier: MIT */
/*
 * jsoncmp.c - a minimal JSON reader that flattens a document into sorted
 * `path = value` pairs, and the field-by-field comparison built on it.
 * See jsoncmp.h. Test code: clear over fast; allocation failures are errors.
 */
#include "jsoncmp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 200

/* A growable byte string, always NUL-terminated once used. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_reserve(sbuf *b, size_t more)
{
    size_t want;
    char *np;
    if (b->oom) return;
    if (more > ((size_t)-1) / 2 - b->len) {
        b->oom = 1;
        return;
    }
    want = b->len + more + 1;
    if (want <= b->cap) return;
    if (want < 2 * b->cap) want = 2 * b->cap;
    if (want < 32) want = 32;
    np = (char *)realloc(b->p, want);
    if (!np) {
        b->oom = 1;
        return;
    }
    b->p = np;
    b->cap = want;
}

static void sb_add(sbuf *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    if (b->oom) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_addc(sbuf *b, char c)
{
    sb_add(b, &c, 1);
}

static void sb_adds(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static void sb_truncate(sbuf *b, size_t len)
{
    if (b->oom || len > b->len) return;
    b->len = len;
    if (b->p) b->p[len] = '\0';
}

static char *sb_take(sbuf *b)
{
    char *p;
    if (!b->p) sb_reserve(b, 0);
    if (b->oom) {
        free(b->p);
        b->p = NULL;
        return NULL;
    }
    p = b->p;
    b->p[b->len] = '\0';
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

/* Appends s[0..n) in canonical escaped form: only '"', '\\' and control
 * characters are escaped; every other byte is kept as is. */
static void sb_add_escaped(sbuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            sb_addc(b, '\\');
            sb_addc(b, (char)c);
        } else if (c < 0x20) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sb_add(b, e, sizeof e);
        } else {
            sb_addc(b, (char)c);
        }
    }
}

/* ------------------------------------------------------------------------ */

typedef struct parser {
    const char *s;
    size_t len, pos;
    json_doc *doc;
    sbuf path;
    char *err;
    size_t err_cap;
    int failed;
    unsigned depth;
} parser;

static void fail(parser *p, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (p->failed) return;
    p->failed = 1;
    if (!p->err || p->err_cap == 0) return;
    if (p->pos == (size_t)-1) /* not about one place */
        n = 0;
    else
        n = snprintf(p->err, p->err_cap, "at byte %lu: ", (unsigned long)p->pos);
    if (n < 0 || (size_t)n >= p->err_cap) return;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->err_cap - (size_t)n, fmt, ap);
    va_end(ap);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static int peek(const parser *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static void add_pair(parser *p, sbuf *value, sbuf *shown)
{
    json_doc *d = p->doc;
    json_pair *pair;
    char *path, *v, *sh;
    if (p->failed) return;
    if (d->n == d->cap) {
        size_t ncap = d->cap ? 2 * d->cap : 64;
        json_pair *np = (json_pair *)realloc(d->pairs, ncap * sizeof *np);
        if (!np) {
            fail(p, "out of memory");
            return;
        }
        d->pairs = np;
        d->cap = ncap;
    }
    path = (char *)malloc(p->path.len + 1);
    v = sb_take(value);
    sh = sb_take(shown);
    if (!path || !v || !sh) {
        free(path);
        free(v);
        free(sh);
        fail(p, "out of memory");
        return;
    }
    memcpy(path, p->path.p ? p->path.p : "", p->path.len);
    path[p->path.len] = '\0';
    pair = &d->pairs[d->n++];
    pair->path = path;
    pair->value = v;
    pair->shown = sh;
}

static void add_pair_text(parser *p, const char *value, const char *shown)
{
    sbuf v = {0}, s = {0};
    sb_adds(&v, value);
    sb_adds(&s, shown);
    add_pair(p, &v, &s);
    free(v.p);
    free(s.p);
}

static int hex4(parser *p, unsigned *out)
{
    unsigned v = 0;
    int i;
    if (p->len - p->pos < 4) {
        fail(p, "truncated \\u escape");
        return -1;
    }
    for (i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else {
            fail(p, "bad hex digit in \\u escape");
            return -1;
        }
    }
    *out = v;
    return 0;
}

static void put_utf8(sbuf *b, unsigned cp)
{
    char u[4];
    if (cp < 0x80) {
        u[0] = (char)cp;
        sb_add(b, u, 1);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        sb_add(b, u, 2);
    } else if (cp < 0x10000) { /* lone surrogates too (WTF-8), so they compare */
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        sb_add(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        sb_add(b, u, 4);
    }
}

/* Reads a string at p->pos (which is at the opening quote) and appends its
 * unescaped bytes to out. */
static void parse_string(parser *p, sbuf *out)
{
    p->pos++; /* '"' */
    for (;;) {
        unsigned char c;
        if (p->pos >= p->len) {
            fail(p, "unterminated string");
            return;
        }
        c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            return;
        }
        if (c < 0x20) {
            fail(p, "raw control character 0x%02x in a string", c);
            return;
        }
        if (c != '\\') {
            sb_addc(out, (char)c);
            p->pos++;
            continue;
        }
        p->pos++;
        if (p->pos >= p->len) {
            fail(p, "unterminated escape");
            return;
        }
        c = (unsigned char)p->s[p->pos++];
        switch (c) {
        case '"': sb_addc(out, '"'); break;
        case '\\': sb_addc(out, '\\'); break;
        case '/': sb_addc(out, '/'); break;
        case 'b': sb_addc(out, '\b'); break;
        case 'f': sb_addc(out, '\f'); break;
        case 'n': sb_addc(out, '\n'); break;
        case 'r': sb_addc(out, '\r'); break;
        case 't': sb_addc(out, '\t'); break;
        case 'u': {
            unsigned cp, lo;
            if (hex4(p, &cp) < 0) return;
            if (cp >= 0xD800 && cp < 0xDC00 && p->len - p->pos >= 6 && p->s[p->pos] == '\\' &&
                p->s[p->pos + 1] == 'u') {
                size_t save = p->pos;
                p->pos += 2;
                if (hex4(p, &lo) < 0) return;
                if (lo >= 0xDC00 && lo < 0xE000)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else
                    p->pos = save; /* a lone high surrogate; the next escape stands alone */
            }
            put_utf8(out, cp);
            break;
        }
        default:
            p->pos--;
            fail(p, "bad escape \\%c", c);
            return;
        }
    }
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Reads a number; the pair value is "n" + a normalized form: "0", or an
 * optional '-', the significant digits without leading or trailing zeros,
 * 'e' and the exponent. */
static void parse_number(parser *p)
{
    size_t start = p->pos;
    int neg = 0;
    long exp10 = 0;
    sbuf digits = {0}, value = {0}, shown = {0};
    char tmp[32];
    size_t lead, end;

    if (peek(p) == '-') {
        neg = 1;
        p->pos++;
    }
    if (!is_digit(peek(p))) {
        fail(p, "bad number");
        goto out;
    }
    if (peek(p) == '0') {
        p->pos++;
        if (is_digit(peek(p))) {
            fail(p, "number with a leading zero");
            goto out;
        }
        sb_addc(&digits, '0');
    } else {
        while (is_digit(peek(p))) sb_addc(&digits, p->s[p->pos++]);
    }
    if (peek(p) == '.') {
        p->pos++;
        if (!is_digit(peek(p))) {
            fail(p, "no digit after the decimal point");
            goto out;
        }
        while (is_digit(peek(p))) {
            sb_addc(&digits, p->s[p->pos++]);
            exp10--;
        }
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        int eneg = 0;
        long e = 0;
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-') eneg = p->s[p->pos++] == '-';
        if (!is_digit(peek(p))) {
            fail(p, "no digit in the exponent");
            goto out;
        }
        while (is_digit(peek(p))) {
            if (e > 100000000L) {
                fail(p, "exponent too large");
                goto out;
            }
            e = e * 10 + (p->s[p->pos++] - '0');
        }
        exp10 += eneg ? -e : e;
    }
    if (digits.oom) {
        fail(p, "out of memory");
        goto out;
    }

    /* Normalize: drop leading zeros, move trailing zeros into the exponent. */
    lead = 0;
    end = digits.len;
    while (lead < end && digits.p[lead] == '0') lead++;
    while (end > lead && digits.p[end - 1] == '0') {
        end--;
        exp10++;
    }
    sb_addc(&value, 'n');
    if (lead == end) {
        sb_addc(&value, '0');
    } else {
        if (neg) sb_addc(&value, '-');
        sb_add(&value, digits.p + lead, end - lead);
        snprintf(tmp, sizeof tmp, "e%ld", exp10);
        sb_adds(&value, tmp);
    }
    sb_add(&shown, p->s + start, p->pos - start);
    add_pair(p, &value, &shown);
out:
    free(digits.p);
    free(value.p);
    free(shown.p);
}

static void parse_value(parser *p);

static void parse_object(parser *p)
{
    size_t base = p->path.len;
    add_pair_text(p, "o", "{...}");
    p->pos++; /* '{' */
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        return;
    }
    for (;;) {
        sbuf key = {0};
        skip_ws(p);
        if (peek(p) != '"') {
            fail(p, "expected a member name");
            return;
        }
        parse_string(p, &key);
        if (p->failed || key.oom) {
            free(key.p);
            fail(p, "out of memory");
            return;
        }
        if (base > 0) sb_addc(&p->path, '.');
        sb_add_escaped(&p->path, key.p ? key.p : "", key.len);
        free(key.p);
        skip_ws(p);
        if (peek(p) != ':') {
            fail(p, "expected ':'");
            return;
        }
        p->pos++;
        parse_value(p);
        sb_truncate(&p->path, base);
        if (p->failed) return;
        skip_ws(p);
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == '}') {
            p->pos++;
            return;
        }
        fail(p, "expected ',' or '}'");
        return;
    }
}

static void parse_array(parser *p)
{
    size_t base = p->path.len, slot, n = 0;
    char tmp[48];
    add_pair_text(p, "a", "[]"); /* filled in below with the length */
    if (p->failed) return;
    slot = p->doc->n - 1;
    p->pos++; /* '[' */
    skip_ws(p);
    if (peek(p) == ']') {
        p->pos++;
    } else {
        for (;;) {
            snprintf(tmp, sizeof tmp, "[%lu]", (unsigned long)n);
            sb_adds(&p->path, tmp);
            parse_value(p);
            sb_truncate(&p->path, base);
            if (p->failed) return;
            n++;
            skip_ws(p);
            if (peek(p) == ',') {
                p->pos++;
                continue;
            }
            if (peek(p) == ']') {
                p->pos++;
                break;
            }
            fail(p, "expected ',' or ']'");
            return;
        }
    }
    {
        json_pair *pair = &p->doc->pairs[slot];
        char *v, *sh;
        snprintf(tmp, sizeof tmp, "a%lu", (unsigned long)n);
        v = (char *)malloc(strlen(tmp) + 1);
        if (v) strcpy(v, tmp);
        snprintf(tmp, sizeof tmp, "[%lu item%s]", (unsigned long)n, n == 1 ? "" : "s");
        sh = (char *)malloc(strlen(tmp) + 1);
        if (sh) strcpy(sh, tmp);
        if (!v || !sh) {
            free(v);
            free(sh);
            fail(p, "out of memory");
            return;
        }
        free(pair->value);
        free(pair->shown);
        pair->value = v;
        pair->shown = sh;
    }
}

static int match_word(parser *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->pos >= n && memcmp(p->s + p->pos, w, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

static void parse_value(parser *p)
{
    int c;
    if (p->failed) return;
    if (p->path.oom) {
        fail(p, "out of memory");
        return;
    }
    if (++p->depth > JSON_MAX_DEPTH) {
        fail(p, "nested deeper than %d", JSON_MAX_DEPTH);
        return;
    }
    skip_ws(p);
    c = peek(p);
    if (c == '{') {
        parse_object(p);
    } else if (c == '[') {
        parse_array(p);
    } else if (c == '"') {
        sbuf raw = {0}, value = {0}, shown = {0};
        parse_string(p, &raw);
        if (!p->failed) {
            sb_addc(&value, 's');
            sb_add_escaped(&value, raw.p ? raw.p : "", raw.len);
            sb_addc(&shown, '"');
            sb_add_escaped(&shown, raw.p ? raw.p : "", raw.len);
            sb_addc(&shown, '"');
            if (raw.oom) fail(p, "out of memory");
            add_pair(p, &value, &shown);
        }
        free(raw.p);
        free(value.p);
        free(shown.p);
    } else if (c == '-' || is_digit(c)) {
        parse_number(p);
    } else if (match_word(p, "true")) {
        add_pair_text(p, "btrue", "true");
    } else if (match_word(p, "false")) {
        add_pair_text(p, "bfalse", "false");
    } else if (match_word(p, "null")) {
        add_pair_text(p, "z", "null");
    } else if (c < 0) {
        fail(p, "expected a value, found the end");
    } else {
        fail(p, "expected a value");
    }
    p->depth--;
}

static int pair_cmp(const void *a, const void *b)
{
    return strcmp(((const json_pair *)a)->path, ((const json_pair *)b)->path);
}

void json_doc_free(json_doc *doc)
{
    size_t i;
    for (i = 0; i < doc->n; i++) {
        free(doc->pairs[i].path);
        free(doc->pairs[i].value);
        free(doc->pairs[i].shown);
    }
    free(doc->pairs);
    doc->pairs = NULL;
    doc->n = doc->cap = 0;
}

int json_flatten(const char *text, size_t len, json_doc *doc, char *err, size_t err_cap)
{
    parser p;
    size_t i;
    memset(&p, 0, sizeof p);
    p.s = text;
    p.len = len;
    p.doc = doc;
    p.err = err;
    p.err_cap = err_cap;
    if (err && err_cap) err[0] = '\0';
    parse_value(&p);
    if (!p.failed) {
        skip_ws(&p);
        if (p.pos != p.len) fail(&p, "text after the JSON value");
    }
    if (!p.failed) {
        qsort(doc->pairs, doc->n, sizeof *doc->pairs, pair_cmp);
        for (i = 1; i < doc->n; i++) {
            if (strcmp(doc->pairs[i - 1].path, doc->pairs[i].path) == 0) {
                p.pos = (size_t)-1;
                fail(&p, "member \"%s\" appears twice", doc->pairs[i].path);
                break;
            }
        }
    }
    free(p.path.p);
    if (p.failed) {
        json_doc_free(doc);
        return -1;
    }
    return 0;
}

static int path_cmp(const void *key, const void *pair)
{
    return strcmp((const char *)key, ((const json_pair *)pair)->path);
}

const json_pair *json_doc_find(const json_doc *doc, const char *path)
{
    if (doc->n == 0) return NULL;
    return (const json_pair *)bsearch(path, doc->pairs, doc->n, sizeof *doc->pairs, path_cmp);
}

int jsoncmp(const char *expected, size_t expected_len, const char *actual, size_t actual_len,
            jsoncmp_report_fn report, void *ctx, char *err, size_t err_cap)
{
    json_doc e = {0}, a = {0};
    char msg[256];
    size_t i;
    int diffs = 0;

    if (json_flatten(expected, expected_len, &e, msg, sizeof msg) < 0) {
        if (err && err_cap) snprintf(err, err_cap, "expected JSON: %s", msg);
        return -1;
    }
    if (json_flatten(actual, actual_len, &a, msg, sizeof msg) < 0) {
        if (err && err_cap) snprintf(err, err_cap, "actual JSON: %s", msg);
        json_doc_free(&e);
        return -1;
    }
    for (i = 0; i < e.n; i++) {
        const json_pair *got = json_doc_find(&a, e.pairs[i].path);
        if (!got) {
            diffs++;
            if (report) report(ctx, e.pairs[i].path, e.pairs[i].shown, NULL);
        } else if (strcmp(got->value, e.pairs[i].value) != 0) {
            diffs++;
            if (report) report(ctx, e.pairs[i].path, e.pairs[i].shown, got->shown);
        }
    }
    json_doc_free(&e);
    json_doc_free(&a);
    return diffs;
}
