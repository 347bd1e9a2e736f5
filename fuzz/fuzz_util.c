/*
 * fuzz_util.c - shared property checks of the fuzz targets (fuzz_util.h).
 *
 * Every check re-reads the bytes on its own (fz_le32, ...) rather than
 * trusting the decoder, and aborts through FZ_CHECK with the offending
 * numbers. Nothing here may hide a failure: a property that does not hold is
 * a finding, to be fixed in the library or argued away in docs/security.md.
 */
#include "fuzz_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fz_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "PROPERTY FAILED %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

pcq_kind fz_kind_of(uint8_t sel)
{
    return (pcq_kind)(1 + (sel & 0x0F) % FZ_NKINDS);
}

int fz_opts_mode(uint8_t sel)
{
    return (sel >> 4) & 3;
}

/* ------------------------------------------------------------------------ */
/* bytes                                                                     */
/* ------------------------------------------------------------------------ */
static uint16_t fz_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

uint32_t fz_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t fz_le64(const uint8_t *p)
{
    return (uint64_t)fz_le32(p) | (uint64_t)fz_le32(p + 4) << 32;
}

uint8_t fz_u8(fz_src *s)
{
    return s->pos < s->len ? s->p[s->pos++] : 0;
}

uint32_t fz_u32(fz_src *s)
{
    uint32_t v = 0;
    unsigned i;
    for (i = 0; i < 4; i++) v |= (uint32_t)fz_u8(s) << (8 * i);
    return v;
}

uint64_t fz_u64(fz_src *s)
{
    uint64_t lo = fz_u32(s);
    return lo | (uint64_t)fz_u32(s) << 32;
}

pcq_bytes fz_take(fz_src *s, size_t n)
{
    pcq_bytes b;
    size_t room = s->len - s->pos;
    if (n > room) n = room;
    b.ptr = s->p + s->pos;
    b.len = n;
    s->pos += n;
    return b;
}

/* ------------------------------------------------------------------------ */
/* records                                                                   */
/* ------------------------------------------------------------------------ */
void fz_rec_init(fz_rec *r)
{
    memset(r, 0, sizeof *r);
}

void fz_rec_free(fz_rec *r)
{
    free(r->sem.p);
    free(r->all.p);
    fz_rec_init(r);
}

static void buf_put(fz_buf *b, const void *p, size_t n)
{
    if (n > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 256;
        uint8_t *q;
        while (cap - b->len < n) cap *= 2;
        q = (uint8_t *)realloc(b->p, cap);
        FZ_CHECK(q != NULL, "out of memory (%zu bytes)", cap);
        b->p = q;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
}

size_t fz_buf_diff(const fz_buf *a, const fz_buf *b)
{
    size_t i, n = a->len < b->len ? a->len : b->len;
    for (i = 0; i < n; i++)
        if (a->p[i] != b->p[i]) return i;
    return a->len == b->len ? (size_t)-1 : n;
}

/* A semantic field: kept by a canonical re-encoding. */
static void rec_u(fz_rec *r, uint64_t v)
{
    uint8_t b[8];
    unsigned i;
    if (!r) return;
    for (i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    buf_put(&r->sem, b, 8);
    buf_put(&r->all, b, 8);
}

/* A layout field: offsets, sizes, fields the canonical form normalizes. */
static void rec_lay(fz_rec *r, uint64_t v)
{
    uint8_t b[8];
    unsigned i;
    if (!r) return;
    for (i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    buf_put(&r->all, b, 8);
}

static void rec_bytes(fz_rec *r, const uint8_t *p, size_t n)
{
    if (!r) return;
    rec_u(r, n);
    buf_put(&r->sem, p, n);
    buf_put(&r->all, p, n);
}

static void rec_guid(fz_rec *r, const pcq_guid *g)
{
    rec_u(r, g->data1);
    rec_u(r, g->data2);
    rec_u(r, g->data3);
    if (r) {
        buf_put(&r->sem, g->data4, 8);
        buf_put(&r->all, g->data4, 8);
    }
}

static void rec_cset(fz_rec *r, const pcq_counterset_reg *s)
{
    rec_guid(r, &s->guid);
    rec_u(r, s->counterset_type);
    rec_u(r, s->detail_level);
    rec_u(r, s->num_counters);
    rec_u(r, s->instance_type);
}

static void rec_creg(fz_rec *r, const pcq_counter_reg *c)
{
    rec_u(r, c->counter_id);
    rec_u(r, c->type);
    rec_u(r, c->attrib);
    rec_u(r, c->detail_level);
    rec_u(r, (uint32_t)c->default_scale);
    rec_u(r, c->base_counter_id);
    rec_u(r, c->perf_time_id);
    rec_u(r, c->perf_freq_id);
    rec_u(r, c->multi_id);
    rec_u(r, c->aggregate_func);
    rec_u(r, c->reserved);
}

static void rec_ident(fz_rec *r, const pcq_identifier *id)
{
    rec_guid(r, &id->guid);
    rec_u(r, id->status);
    rec_u(r, id->counter_id);
    rec_u(r, id->instance_id);
    rec_u(r, id->index);
    rec_u(r, id->reserved);
    rec_bytes(r, id->name.ptr, id->name.len);
}

static void rec_data_header(fz_rec *r, const pcq_data *d)
{
    const pcq_systemtime *t = &d->system_time;
    rec_u(r, d->num_counters);
    rec_u(r, d->perf_time_stamp);
    rec_u(r, d->perf_time_100nsec);
    rec_u(r, d->perf_freq);
    rec_u(r, t->year);
    rec_u(r, t->month);
    rec_u(r, t->day_of_week);
    rec_u(r, t->day);
    rec_u(r, t->hour);
    rec_u(r, t->minute);
    rec_u(r, t->second);
    rec_u(r, t->milliseconds);
}

/* ------------------------------------------------------------------------ */
/* diagnostics and errors                                                    */
/* ------------------------------------------------------------------------ */
static void on_diag(void *ctx, const pcq_diag *d)
{
    fz_diags *ds = (fz_diags *)ctx;
    FZ_CHECK(d != NULL, "NULL diagnostic");
    FZ_CHECK(d->code >= 1 && d->code < PCQ_DIAG_END_, "diagnostic code %d unknown", d->code);
    FZ_CHECK(strcmp(pcq_diag_name(d->code), "PCQ_DIAG_UNKNOWN") != 0, "diagnostic %d unnamed",
             d->code);
    FZ_CHECK(d->what != NULL, "diagnostic %s without a field name", pcq_diag_name(d->code));
    FZ_CHECK(strcmp(pcq_diag_text(d->code), "unknown diagnostic") != 0, "diagnostic %d has no text",
             d->code);
    FZ_CHECK(d->offset < ds->len, "diagnostic %s (%s) at offset %zu outside the input of %zu bytes",
             pcq_diag_name(d->code), d->what, d->offset, ds->len);
    if (ds->n < FZ_MAX_DIAGS) ds->d[ds->n] = *d;
    ds->n++;
}

const pcq_opts *fz_make_opts(int mode, pcq_opts *o, fz_diags *ds, size_t len)
{
    memset(ds, 0, sizeof *ds);
    ds->len = len;
    memset(o, 0, sizeof *o);
    switch (mode) {
    case FZ_OPTS_NULL: return NULL;
    case FZ_OPTS_LENIENT: break;
    case FZ_OPTS_STRICT: o->flags = PCQ_STRICT; break;
    default: o->flags = PCQ_STRICT; return o;   /* no callback */
    }
    o->on_diag = on_diag;
    o->ctx = ds;
    return o;
}

static int is_strict(const pcq_opts *o)
{
    return o && (o->flags & PCQ_STRICT);
}

/* What a decoder may return for input it cannot accept. */
static int malformed_code(int rc)
{
    switch (rc) {
    case PCQ_ERR_TRUNCATED: case PCQ_ERR_EXCEEDS_CONTAINER: case PCQ_ERR_SIZE_TOO_SMALL:
    case PCQ_ERR_COUNT_MISMATCH: case PCQ_ERR_NO_NUL: case PCQ_ERR_BAD_BLOCK_TYPE:
    case PCQ_ERR_BAD_LENGTH: case PCQ_ERR_OVERFLOW: case PCQ_ERR_LIMIT:
        return 1;
    default:
        return 0;
    }
}

static pcq_family family_of(int rc)
{
    switch (rc) {
    case PCQ_OK: return PCQ_FAMILY_OK;
    case PCQ_ERR_TRUNCATED: return PCQ_FAMILY_TRUNCATED;
    case PCQ_ERR_EXCEEDS_CONTAINER: return PCQ_FAMILY_CONTAINER;
    case PCQ_ERR_LIMIT: return PCQ_FAMILY_LIMIT;
    case PCQ_ERR_NONCONFORMANT: return PCQ_FAMILY_NONCONFORMANT;
    case PCQ_ERR_BUFFER_TOO_SMALL: case PCQ_ERR_INVALID_ARG: case PCQ_ERR_STATE:
        return PCQ_FAMILY_CALLER;
    default: return PCQ_FAMILY_MALFORMED;
    }
}

/* The error of a failed decode of `len` bytes. */
static void check_error(const char *who, int rc, const pcq_error *e, size_t len,
                        const pcq_opts *o)
{
    FZ_CHECK(rc < 0, "%s returned %d, neither PCQ_OK nor an error", who, rc);
    FZ_CHECK(malformed_code(rc) || (rc == PCQ_ERR_NONCONFORMANT && is_strict(o)),
             "%s returned %s (%d), not a status for untrusted input%s", who,
             pcq_status_name(rc), rc, rc == PCQ_ERR_NONCONFORMANT ? " in lenient mode" : "");
    FZ_CHECK(e->code == rc, "%s returned %s but err.code is %s", who, pcq_status_name(rc),
             pcq_status_name(e->code));
    FZ_CHECK(e->what != NULL, "%s: %s without a field name", who, pcq_status_name(rc));
    FZ_CHECK(e->offset < len || (len == 0 && e->offset == 0),
             "%s: %s (%s) at offset %zu, outside the input of %zu bytes", who,
             pcq_status_name(rc), e->what, e->offset, len);
    FZ_CHECK(pcq_strerror(rc) != NULL && strcmp(pcq_strerror(rc), "unknown status") != 0,
             "%s: pcq_strerror(%d) unknown", who, rc);
    FZ_CHECK(pcq_status_family(rc) == family_of(rc), "pcq_status_family(%s) = %d",
             pcq_status_name(rc), (int)pcq_status_family(rc));
}

static void same_error(const char *a, const pcq_error *ea, const char *b, const pcq_error *eb)
{
    FZ_CHECK(ea->code == eb->code && ea->offset == eb->offset,
             "%s says %s at %zu (%s), %s says %s at %zu (%s)", a, pcq_status_name(ea->code),
             ea->offset, ea->what ? ea->what : "-", b, pcq_status_name(eb->code), eb->offset,
             eb->what ? eb->what : "-");
    FZ_CHECK((ea->what == NULL) == (eb->what == NULL) &&
                 (ea->what == NULL || strcmp(ea->what, eb->what) == 0),
             "%s blames %s, %s blames %s at the same offset", a, ea->what ? ea->what : "-", b,
             eb->what ? eb->what : "-");
}

/* ------------------------------------------------------------------------ */
/* views                                                                     */
/* ------------------------------------------------------------------------ */
typedef struct walk {
    const uint8_t *buf;
    size_t len;
    fz_rec *rec;
} walk;

/* [p, p + n) lies inside [lo, hi) of the input. */
static void check_view_in(const walk *w, const char *what, const uint8_t *p, size_t n,
                          size_t lo, size_t hi)
{
    size_t at;
    FZ_CHECK(p != NULL || n == 0, "%s: NULL view of %zu bytes", what, n);
    if (p == NULL) return;
    at = (size_t)((uintptr_t)p - (uintptr_t)w->buf);
    FZ_CHECK((uintptr_t)p >= (uintptr_t)w->buf && at <= w->len && n <= w->len - at,
             "%s: view (+%zu, %zu bytes) outside the input of %zu bytes", what, at, n, w->len);
    FZ_CHECK(at >= lo && at <= hi && n <= hi - at,
             "%s: view [%zu, %zu) outside its container [%zu, %zu)", what, at, at + n, lo, hi);
}

/* A UTF-16LE name or string at [at, at + n): even, no NUL inside, a NUL right
 * after it, all inside [lo, hi). */
static void check_name(const walk *w, const char *what, const pcq_bytes *v, size_t at, size_t lo,
                       size_t hi)
{
    size_t i;
    FZ_CHECK(v->ptr == w->buf + at, "%s: starts at +%zu, expected +%zu", what,
             (size_t)(v->ptr - w->buf), at);
    check_view_in(w, what, v->ptr, v->len, lo, hi);
    FZ_CHECK(v->len % 2 == 0, "%s: odd length %zu", what, v->len);
    FZ_CHECK(hi - at - v->len >= 2, "%s: no room for its NUL inside [%zu, %zu)", what, lo, hi);
    FZ_CHECK(w->buf[at + v->len] == 0 && w->buf[at + v->len + 1] == 0,
             "%s: no NUL after its %zu bytes at +%zu", what, v->len, at);
    for (i = 0; i < v->len; i += 2)
        FZ_CHECK(w->buf[at + i] != 0 || w->buf[at + i + 1] != 0,
                 "%s: a NUL at +%zu inside the text", what, at + i);
    fz_check_utf16(v->ptr, v->len);
}

static void read_guid(const uint8_t *p, pcq_guid *g)
{
    g->data1 = fz_le32(p);
    g->data2 = fz_le16(p + 4);
    g->data3 = fz_le16(p + 6);
    memcpy(g->data4, p + 8, 8);
}

static int guid_eq(const pcq_guid *a, const pcq_guid *b)
{
    return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
           memcmp(a->data4, b->data4, 8) == 0;
}

/* The GUID text helpers on one GUID: to text and back, with braces, upper case. */
static void check_guid_text(const pcq_guid *g)
{
    char t[PCQ_GUID_TEXT_SIZE], b[PCQ_GUID_TEXT_SIZE + 2];
    pcq_guid back;
    size_t i;
    memset(t, 'x', sizeof t);
    pcq_guid_to_text(g, t);
    FZ_CHECK(t[36] == '\0' && strlen(t) == 36, "pcq_guid_to_text: not 36 characters");
    FZ_CHECK(pcq_guid_from_text(t, 36, &back) == PCQ_OK && guid_eq(g, &back),
             "GUID %s does not read back", t);
    b[0] = '{';
    for (i = 0; i < 36; i++) b[i + 1] = (char)(t[i] >= 'a' && t[i] <= 'f' ? t[i] - 32 : t[i]);
    b[37] = '}';
    b[38] = '\0';
    FZ_CHECK(pcq_guid_from_text(b, 38, &back) == PCQ_OK && guid_eq(g, &back),
             "GUID %s does not read back", b);
    FZ_CHECK(pcq_guid_from_text(t, 35, &back) == PCQ_ERR_INVALID_ARG,
             "pcq_guid_from_text accepts 35 characters");
    /* One character wrong, where a digit or a dash belongs: refused. */
    for (i = 0; i < 36; i += 4) {
        char bad[PCQ_GUID_TEXT_SIZE];
        memcpy(bad, t, sizeof bad);
        bad[i] = (char)(i == 8 || i == 13 || i == 18 || i == 23 ? '0' : "g-G/"[i / 4 % 4]);
        FZ_CHECK(pcq_guid_from_text(bad, 36, &back) == PCQ_ERR_INVALID_ARG,
                 "pcq_guid_from_text accepts %s", bad);
    }
    b[37] = ')';
    FZ_CHECK(pcq_guid_from_text(b, 38, &back) == PCQ_ERR_INVALID_ARG,
             "pcq_guid_from_text accepts %s", b);
    b[0] = '(';
    b[37] = '}';
    FZ_CHECK(pcq_guid_from_text(b, 38, &back) == PCQ_ERR_INVALID_ARG,
             "pcq_guid_from_text accepts %s", b);
    FZ_CHECK(pcq_guid_from_text(NULL, 36, &back) == PCQ_ERR_INVALID_ARG &&
                 pcq_guid_from_text(t, 36, NULL) == PCQ_ERR_INVALID_ARG,
             "pcq_guid_from_text accepts NULL");
}

/* ---- names of the spec's constants ---- */
static int starts(const char *s, const char *prefix)
{
    return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0 && strlen(s) > strlen(prefix);
}

/* A counter type: named exactly when known (the spec's 34, or one of the
 * winperf.h types the evaluator also knows); the evaluator knows named ones. */
static void check_type_name(uint32_t type)
{
    const char *n = pcq_counter_type_name(type);
    FZ_CHECK(n == NULL || starts(n, "PERF_"), "type 0x%08x named %s", type, n);
    if (pcq_counter_type_is_known(type))
        FZ_CHECK(n != NULL, "spec type 0x%08x has no name", type);
#ifndef PCQ_NO_CALC
    if (pcq_calc_type_info(type) != NULL)
        FZ_CHECK(n != NULL, "the evaluator knows 0x%08x, which has no name", type);
#endif
}

static void check_creg_names(const pcq_counter_reg *c)
{
    const char *n;
    unsigned bit;
    check_type_name(c->type);
    n = pcq_detail_level_name(c->detail_level);
    FZ_CHECK((n != NULL) == (c->detail_level == 100 || c->detail_level == 200) &&
                 (n == NULL || starts(n, "PERF_DETAIL_")),
             "DetailLevel %u named %s", c->detail_level, n ? n : "NULL");
    n = pcq_aggregate_name(c->aggregate_func);
    FZ_CHECK((n != NULL) == (c->aggregate_func <= 4) && (n == NULL || starts(n, "PERF_AGGREGATE_")),
             "AggregateFunc %u named %s", c->aggregate_func, n ? n : "NULL");
    for (bit = 0; bit < 6; bit++) {
        n = pcq_attrib_bit_name(bit);
        FZ_CHECK((n != NULL) == (bit < 5) && (n == NULL || starts(n, "PERF_ATTRIB_")),
                 "Attrib bit %u named %s", bit, n ? n : "NULL");
    }
}

static void check_instance_type_name(uint32_t t)
{
    const char *n = pcq_instance_type_name(t);
    int known = t == 0 || t == 2 || t == 4 || t == 6 || t == 0xC || t == 0x16;
    FZ_CHECK((n != NULL) == known && (n == NULL || starts(n, "PERF_COUNTERSET_")),
             "InstanceType 0x%x named %s", t, n ? n : "NULL");
}

static void check_status_name(uint32_t st)
{
    const char *n = pcq_win32_status_name(st);
    FZ_CHECK(n == NULL || starts(n, "ERROR_"), "status 0x%x named %s", st, n);
    if (st == 0) FZ_CHECK(n != NULL, "ERROR_SUCCESS unnamed");
}

static void check_creg_bytes(const pcq_counter_reg *c, const uint8_t *p, size_t at)
{
    FZ_CHECK(c->counter_id == fz_le32(p) && c->type == fz_le32(p + 4) &&
                 c->attrib == fz_le64(p + 8) && c->detail_level == fz_le32(p + 16) &&
                 (uint32_t)c->default_scale == fz_le32(p + 20) &&
                 c->base_counter_id == fz_le32(p + 24) && c->perf_time_id == fz_le32(p + 28) &&
                 c->perf_freq_id == fz_le32(p + 32) && c->multi_id == fz_le32(p + 36) &&
                 c->aggregate_func == fz_le32(p + 40) && c->reserved == fz_le32(p + 44),
             "_PERF_COUNTER_REG_INFO at +%zu: a field differs from its bytes", at);
}

/* ------------------------------------------------------------------------ */
/* UTF-16 to UTF-8                                                           */
/* ------------------------------------------------------------------------ */
/* Well-formed UTF-8 of n bytes (no overlong forms, no surrogates, <= U+10FFFF). */
static int utf8_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k, len;
        uint32_t cp;
        if (c < 0x80) { i++; continue; }
        if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
        else return 0;
        if (n - i < len) return 0;
        for (k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

void fz_check_utf16(const uint8_t *p, size_t n)
{
    size_t rep = (size_t)-1, rep2, need, got, cap, units = n / 2;
    char small[8], *full;
    need = pcq_utf16_to_utf8(p, n, NULL, 0, &rep);
    FZ_CHECK(need <= units * 3, "pcq_utf16_to_utf8: %zu bytes for %zu code units", need, units);
    FZ_CHECK(rep <= units, "pcq_utf16_to_utf8: %zu replacements for %zu code units", rep, units);
    full = (char *)malloc(need + 1);
    FZ_CHECK(full != NULL, "out of memory");
    memset(full, 'x', need + 1);
    got = pcq_utf16_to_utf8(p, n, full, need + 1, &rep2);
    FZ_CHECK(got == need && rep2 == rep, "pcq_utf16_to_utf8: sizing says %zu/%zu, writing %zu/%zu",
             need, rep, got, rep2);
    FZ_CHECK(full[need] == '\0', "pcq_utf16_to_utf8: no NUL at %zu", need);
    FZ_CHECK(utf8_ok((const unsigned char *)full, need), "pcq_utf16_to_utf8: ill-formed UTF-8");
    /* Too small: a NUL-terminated prefix of whole characters, nothing past cap. */
    for (cap = 1; cap <= sizeof small; cap++) {
        size_t k;
        memset(small, 'x', sizeof small);
        got = pcq_utf16_to_utf8(p, n, small, cap, NULL);
        FZ_CHECK(got == need, "pcq_utf16_to_utf8 with cap %zu returns %zu, not %zu", cap, got,
                 need);
        k = strlen(small);
        FZ_CHECK(k < cap, "pcq_utf16_to_utf8 with cap %zu wrote %zu bytes and a NUL", cap, k);
        for (got = cap; got < sizeof small; got++)
            FZ_CHECK(small[got] == 'x', "pcq_utf16_to_utf8 with cap %zu wrote at %zu", cap, got);
        FZ_CHECK(k <= need && memcmp(small, full, k) == 0,
                 "pcq_utf16_to_utf8 with cap %zu: not a prefix of the full text", cap);
        FZ_CHECK(utf8_ok((const unsigned char *)small, k),
                 "pcq_utf16_to_utf8 with cap %zu split a character", cap);
        FZ_CHECK(k == need || cap - 1 - k < 4,
                 "pcq_utf16_to_utf8 with cap %zu stopped at %zu of %zu", cap, k, need);
    }
    free(full);
}

/* ------------------------------------------------------------------------ */
/* the walk, kind by kind                                                    */
/* ------------------------------------------------------------------------ */
static int walk_counterset(walk *w, const pcq_opts *o, pcq_error *e)
{
    const uint8_t *b = w->buf;
    pcq_counterset_info csi;
    pcq_counter_reg c, c2;
    pcq_guid g;
    uint32_t i, n;
    int rc = pcq_decode_counterset_info(b, w->len, o, &csi, e);
    if (rc) return rc;
    FZ_CHECK(w->len >= 32, "counterset-info accepted in %zu bytes", w->len);
    read_guid(b, &g);
    n = csi.set.num_counters;
    FZ_CHECK(guid_eq(&g, &csi.set.guid) && csi.set.counterset_type == fz_le32(b + 16) &&
                 csi.set.detail_level == fz_le32(b + 20) && n == fz_le32(b + 24) &&
                 csi.set.instance_type == fz_le32(b + 28),
             "_PERF_COUNTERSET_REG_INFO: a field differs from its bytes");
    FZ_CHECK(n <= PCQ_MAX_COUNTERS, "NumCounters %u above the cap", n);
    FZ_CHECK(csi.counters_offset == 32 && csi.counters.ptr == b + 32,
             "counters not at offset 32");
    FZ_CHECK(csi.counters.len == (size_t)n * 48, "counters view of %zu bytes for %u counters",
             csi.counters.len, n);
    check_view_in(w, "counters", csi.counters.ptr, csi.counters.len, 32, w->len);
    FZ_CHECK(w->len - 32 - csi.counters.len < 48,
             "room for another counter after NumCounters = %u (%zu bytes)", n, w->len);
    check_guid_text(&csi.set.guid);
    check_instance_type_name(csi.set.instance_type);
    rec_cset(w->rec, &csi.set);
    rec_lay(w->rec, w->len - 32 - csi.counters.len);
    for (i = 0; i < n; i++) {
        size_t at = 32 + (size_t)i * 48;
        FZ_CHECK(pcq_counterset_counter(&csi, i, &c) == PCQ_OK, "counter %u of %u refused", i, n);
        check_creg_bytes(&c, b + at, at);
        check_creg_names(&c);
        /* The same 48 bytes as a counter-info buffer. */
        FZ_CHECK(pcq_decode_counter_info(b + at, 48, NULL, &c2, NULL) == PCQ_OK,
                 "counter %u does not decode as counter-info", i);
        check_creg_bytes(&c2, b + at, at);
        rec_creg(w->rec, &c);
    }
    FZ_CHECK(pcq_counterset_counter(&csi, n, &c) == PCQ_ERR_INVALID_ARG,
             "pcq_counterset_counter(%u) of %u counters accepted", n, n);
    return PCQ_OK;
}

static int walk_counter_info(walk *w, const pcq_opts *o, pcq_error *e)
{
    pcq_counter_reg c;
    int rc = pcq_decode_counter_info(w->buf, w->len, o, &c, e);
    if (rc) return rc;
    FZ_CHECK(w->len >= 48, "counter-info accepted in %zu bytes", w->len);
    check_creg_bytes(&c, w->buf, 0);
    check_creg_names(&c);
    rec_creg(w->rec, &c);
    rec_lay(w->rec, w->len);
    return PCQ_OK;
}

static int walk_strings(walk *w, const pcq_opts *o, pcq_error *e)
{
    const uint8_t *b = w->buf;
    pcq_strings s;
    pcq_string_entry ent;
    uint32_t i, n, min = PCQ_STRING_ABSENT;
    size_t heads, base;
    pcq_str_convention conv;
    int rc = pcq_decode_strings(b, w->len, o, &s, e);
    if (rc == PCQ_ERR_NO_NUL && e) {
        /* Justified: no UTF-16 NUL from there, in 2-byte steps, to dwSize. */
        size_t p, end = fz_le32(b);
        FZ_CHECK(e->offset < end && end <= w->len, "NO_NUL at %zu, dwSize %zu", e->offset, end);
        for (p = e->offset; end - p >= 2; p += 2)
            FZ_CHECK(b[p] != 0 || b[p + 1] != 0, "NO_NUL for the string at %zu, but a NUL is "
                     "at %zu", e->offset, p);
    }
    if (rc) return rc;
    FZ_CHECK(w->len >= 8, "strings accepted in %zu bytes", w->len);
    n = s.num_counters;
    FZ_CHECK(s.size == fz_le32(b) && n == fz_le32(b + 4), "_STRING_BUFFER_HEADER differs");
    FZ_CHECK(s.size >= 8 && s.size <= w->len, "dwSize %u accepted for %zu bytes", s.size, w->len);
    FZ_CHECK(s.block.ptr == b && s.block.len == s.size, "block view is not [0, dwSize)");
    FZ_CHECK(n <= PCQ_MAX_COUNTERS, "dwCounters %u above the cap", n);
    heads = 8 + (size_t)n * 8;
    FZ_CHECK(heads <= s.size, "%u headers do not fit dwSize %u", n, s.size);
    for (i = 0; i < n; i++) {
        uint32_t off = fz_le32(b + 8 + (size_t)i * 8 + 4);
        if (off < min) min = off;
    }
    conv = min == PCQ_STRING_ABSENT ? PCQ_STROFF_NONE
         : (size_t)min < heads    ? PCQ_STROFF_SPEC
                                  : PCQ_STROFF_WIN32;
    FZ_CHECK(s.convention == conv, "convention %d, expected %d (smallest dwOffset %u)",
             (int)s.convention, (int)conv, min);
    base = conv == PCQ_STROFF_SPEC ? heads : 0;
    rec_u(w->rec, n);
    rec_u(w->rec, (uint64_t)conv);
    rec_lay(w->rec, s.size);
    for (i = 0; i < n; i++) {
        size_t at = 8 + (size_t)i * 8;
        FZ_CHECK(pcq_strings_get(&s, i, &ent) == PCQ_OK, "string %u of %u refused", i, n);
        FZ_CHECK(ent.counter_id == fz_le32(b + at) && ent.offset == fz_le32(b + at + 4),
                 "_STRING_COUNTER_HEADER %u differs from its bytes", i);
        FZ_CHECK(ent.present == (ent.offset != PCQ_STRING_ABSENT), "string %u: present = %d",
                 i, ent.present);
        rec_u(w->rec, ent.counter_id);
        rec_u(w->rec, (uint64_t)ent.present);
        rec_lay(w->rec, ent.offset);
        if (!ent.present) {
            FZ_CHECK(ent.text.ptr == NULL && ent.text.len == 0 && ent.text_offset == 0,
                     "absent string %u has a text", i);
            continue;
        }
        FZ_CHECK(ent.text_offset == base + ent.offset,
                 "string %u at %zu, expected %zu + dwOffset %u", i, ent.text_offset, base,
                 ent.offset);
        /* Inside the block, after the header array. */
        check_name(w, "counter string", &ent.text, ent.text_offset, base, s.size);
        FZ_CHECK(ent.text_offset >= heads, "string %u inside the header array", i);
        rec_bytes(w->rec, ent.text.ptr, ent.text.len);
    }
    FZ_CHECK(pcq_strings_get(&s, n, &ent) == PCQ_ERR_INVALID_ARG,
             "pcq_strings_get(%u) of %u accepted", n, n);
    return PCQ_OK;
}

static int walk_string(walk *w, const pcq_opts *o, pcq_error *e)
{
    pcq_bytes t;
    int rc = pcq_decode_string(w->buf, w->len, o, &t, e);
    if (rc) return rc;
    check_name(w, "string", &t, 0, 0, w->len);
    rec_bytes(w->rec, t.ptr, t.len);
    rec_lay(w->rec, w->len);
    return PCQ_OK;
}

static int walk_guid(walk *w, const pcq_opts *o, pcq_error *e)
{
    pcq_guid g, r;
    int rc = pcq_decode_guid(w->buf, w->len, o, &g, e);
    if (rc) return rc;
    FZ_CHECK(w->len >= 16, "guid accepted in %zu bytes", w->len);
    read_guid(w->buf, &r);
    FZ_CHECK(guid_eq(&g, &r), "GUID differs from its bytes");
    check_guid_text(&g);
    rec_guid(w->rec, &g);
    rec_lay(w->rec, w->len);
    return PCQ_OK;
}

static int walk_guids(walk *w, const pcq_opts *o, pcq_error *e)
{
    pcq_guid_array a;
    pcq_guid g, r;
    size_t i;
    int rc = pcq_decode_guids(w->buf, w->len, o, &a, e);
    if (rc) return rc;
    FZ_CHECK(w->len % 16 == 0, "guids accepted in %zu bytes", w->len);
    FZ_CHECK(a.ptr == w->buf && a.count == w->len / 16, "%zu GUIDs in %zu bytes", a.count,
             w->len);
    rec_u(w->rec, a.count);
    for (i = 0; i < a.count; i++) {
        FZ_CHECK(pcq_guids_get(&a, i, &g) == PCQ_OK, "GUID %zu of %zu refused", i, a.count);
        read_guid(w->buf + i * 16, &r);
        FZ_CHECK(guid_eq(&g, &r), "GUID %zu differs from its bytes", i);
        pcq_guid_read(w->buf + i * 16, &r);
        FZ_CHECK(guid_eq(&g, &r), "pcq_guid_read differs for GUID %zu", i);
        rec_guid(w->rec, &g);
    }
    FZ_CHECK(pcq_guids_get(&a, a.count, &g) == PCQ_ERR_INVALID_ARG,
             "pcq_guids_get(%zu) of %zu accepted", a.count, a.count);
    return PCQ_OK;
}

/* instances and identifiers: a decode, then a plain walk with the iterator.
 * The iterator meets the same items and, without diagnostics, the same error. */
static int walk_named_array(walk *w, const pcq_opts *o, pcq_error *e, int ids)
{
    const uint8_t *b = w->buf;
    const size_t hdr = ids ? 40 : 8;
    const char *kind = ids ? "identifiers" : "instances";
    size_t count = (size_t)-1, pos = 0, k = 0;
    pcq_iter it;
    int rc, r;

    rc = ids ? pcq_decode_identifiers(b, w->len, o, &count, e)
             : pcq_decode_instances(b, w->len, o, &count, e);
    if (ids) pcq_identifiers_begin(b, w->len, &it);
    else pcq_instances_begin(b, w->len, &it);
    for (;;) {
        pcq_identifier id;
        pcq_instance in;
        pcq_bytes name;
        uint32_t size;
        memset(&id, 0, sizeof id);
        memset(&in, 0, sizeof in);
        r = ids ? pcq_identifiers_next(&it, &id) : pcq_instances_next(&it, &in);
        if (r != 1) break;
        FZ_CHECK(k < w->len / hdr, "%s: more items than %zu bytes can hold", kind, w->len);
        FZ_CHECK((ids ? id.offset : in.offset) == pos, "%s: item %zu at %zu, expected %zu", kind,
                 k, ids ? id.offset : in.offset, pos);
        FZ_CHECK(hdr <= w->len - pos, "%s: item %zu header past the end", kind, k);
        size = fz_le32(b + pos + (ids ? 20 : 0));
        FZ_CHECK((ids ? id.size : in.size) == size, "%s: item %zu size differs", kind, k);
        FZ_CHECK(size >= hdr && size <= w->len - pos, "%s: item %zu of size %u at %zu accepted",
                 kind, k, size, pos);
        if (ids) {
            pcq_guid g;
            read_guid(b + pos, &g);
            FZ_CHECK(guid_eq(&g, &id.guid) && id.status == fz_le32(b + pos + 16) &&
                         id.counter_id == fz_le32(b + pos + 24) &&
                         id.instance_id == fz_le32(b + pos + 28) &&
                         id.index == fz_le32(b + pos + 32) && id.reserved == fz_le32(b + pos + 36),
                     "identifier %zu: a field differs from its bytes", k);
            name = id.name;
            check_status_name(id.status);
            rec_ident(w->rec, &id);
        } else {
            FZ_CHECK(in.instance_id == fz_le32(b + pos + 4), "instance %zu: id differs", k);
            name = in.name;
            rec_u(w->rec, in.instance_id);
            rec_bytes(w->rec, in.name.ptr, in.name.len);
        }
        rec_lay(w->rec, size);
        check_name(w, ids ? "identifier name" : "instance name", &name, pos + hdr, pos + hdr,
                   pos + size);
        pos += size;
        k++;
    }
    if (r == 0) {
        FZ_CHECK(pos == w->len, "%s: the walk ended at %zu of %zu bytes", kind, pos, w->len);
        {
            pcq_identifier id;
            pcq_instance in;
            r = ids ? pcq_identifiers_next(&it, &id) : pcq_instances_next(&it, &in);
        }
        FZ_CHECK(r == 0, "%s: next() after the end returned %d", kind, r);
    } else {
        pcq_error first = it.err;
        pcq_identifier id;
        pcq_instance in;
        check_error(kind, r, &it.err, w->len, NULL);
        /* A failed iterator keeps its first error. */
        FZ_CHECK((ids ? pcq_identifiers_next(&it, &id) : pcq_instances_next(&it, &in)) == r,
                 "%s: next() after %s returns something else", kind, pcq_status_name(r));
        same_error("first next()", &first, "next() again", &it.err);
    }
    rec_u(w->rec, k);
    if (rc == PCQ_OK) {
        FZ_CHECK(r == 0, "%s: decoded, then the iterator failed with %s at %zu", kind,
                 pcq_status_name(r), it.err.offset);
        FZ_CHECK(count == k, "%s: decode counted %zu, the iterator met %zu", kind, count, k);
    } else if (rc != PCQ_ERR_NONCONFORMANT) {
        pcq_error ie = it.err;
        FZ_CHECK(r == rc, "%s: decode says %s, the iterator %d", kind, pcq_status_name(rc), r);
        same_error("decode", e, "iterator", &ie);
    } else {
        FZ_CHECK(is_strict(o), "%s: PCQ_ERR_NONCONFORMANT in lenient mode", kind);
    }
    return rc;
}

/* ---- data ---- */
typedef struct dwalk {
    walk *w;
    const pcq_data *d;
} dwalk;

/* One _PERF_COUNTER_DATA expected at `at` inside [at, end). */
static void check_value(const walk *w, const pcq_value *v, size_t at, size_t end, const char *ctx)
{
    const uint8_t *b = w->buf;
    FZ_CHECK(v->offset == at, "%s: value at %zu, expected %zu", ctx, v->offset, at);
    FZ_CHECK(end - at >= 8, "%s: value header at %zu past its container end %zu", ctx, at, end);
    FZ_CHECK(v->data_size == fz_le32(b + at) && v->size == fz_le32(b + at + 4),
             "%s: value at %zu: sizes differ from the bytes", ctx, at);
    FZ_CHECK(v->size >= 8 && v->size <= end - at, "%s: value dwSize %u at %zu, container ends %zu",
             ctx, v->size, at, end);
    FZ_CHECK(v->data_size <= v->size - 8, "%s: dwDataSize %u in dwSize %u", ctx, v->data_size,
             v->size);
    FZ_CHECK(v->data.ptr == b + at + 8 && v->data.len == v->data_size,
             "%s: value view is not the dwDataSize bytes after the header", ctx);
    check_view_in(w, "value", v->data.ptr, v->data.len, at, at + v->size);
    FZ_CHECK(v->is_int == (v->data_size == 4 || v->data_size == 8), "%s: is_int = %d for %u bytes",
             ctx, v->is_int, v->data_size);
    FZ_CHECK(v->u64 == (v->data_size == 8 ? fz_le64(v->data.ptr)
                        : v->data_size == 4 ? fz_le32(v->data.ptr) : 0),
             "%s: u64 differs from the value bytes", ctx);
    rec_bytes(w->rec, v->data.ptr, v->data.len);
    rec_lay(w->rec, v->size);
}

/* The values of a counted sequence, from `start` to where they end; returns
 * that end. `count` items expected. */
static size_t walk_values(const walk *w, pcq_iter *it, size_t start, size_t end, uint32_t count,
                          const char *ctx)
{
    pcq_value v;
    size_t pos = start;
    uint32_t k = 0;
    int r;
    while ((r = pcq_values_next(it, &v)) == 1) {
        FZ_CHECK(k < count, "%s: more than %u values", ctx, count);
        check_value(w, &v, pos, end, ctx);
        pos += v.size;
        k++;
    }
    FZ_CHECK(r == 0, "%s: values iterator failed with %s at %zu after a successful decode", ctx,
             pcq_status_name(r), it->err.offset);
    FZ_CHECK(k == count, "%s: %u values iterated, %u declared", ctx, k, count);
    FZ_CHECK(pcq_values_next(it, &v) == 0, "%s: values next() after the end", ctx);
    return pos;
}

/* The instances of a type 4 or 6 block in [start, end); nvalues per instance. */
static void walk_block_instances(const dwalk *dw, const pcq_block *blk, size_t start, size_t end,
                                 uint32_t nvalues)
{
    const walk *w = dw->w;
    const uint8_t *b = w->buf;
    pcq_iter it, vit;
    pcq_data_instance in;
    size_t pos = start;
    uint32_t k = 0;
    int r;
    pcq_block_instances(dw->d, blk, &it);
    while ((r = pcq_instances_of_block_next(&it, &in)) == 1) {
        size_t vend;
        FZ_CHECK(k < blk->num_instances, "block at %zu: more than %u instances", blk->offset,
                 blk->num_instances);
        FZ_CHECK(in.offset == pos, "block instance %u at %zu, expected %zu", k, in.offset, pos);
        FZ_CHECK(end - pos >= 8, "block instance %u header past %zu", k, end);
        FZ_CHECK(in.size == fz_le32(b + pos) && in.instance_id == fz_le32(b + pos + 4),
                 "block instance %u: fields differ from the bytes", k);
        FZ_CHECK(in.size >= 8 && in.size <= end - pos, "block instance %u: Size %u at %zu in [.., %zu)",
                 k, in.size, pos, end);
        check_name(w, "block instance name", &in.name, pos + 8, pos + 8, pos + in.size);
        FZ_CHECK(in.num_values == nvalues, "block instance %u: %u values, expected %u", k,
                 in.num_values, nvalues);
        FZ_CHECK(in.values == pos + in.size && in.values_end >= in.values && in.values_end <= end,
                 "block instance %u: values [%zu, %zu) outside [%zu, %zu)", k, in.values,
                 in.values_end, pos + in.size, end);
        rec_u(w->rec, in.instance_id);
        rec_bytes(w->rec, in.name.ptr, in.name.len);
        rec_lay(w->rec, in.size);
        pcq_instance_values(dw->d, &in, &vit);
        vend = walk_values(w, &vit, in.values, in.values_end, nvalues, "instance values");
        FZ_CHECK(vend == in.values_end, "block instance %u: values end at %zu, reported %zu", k,
                 vend, in.values_end);
        if (blk->type == PCQ_PERF_MULTI_INSTANCES)
            FZ_CHECK(in.value.offset == in.values && in.value.size == fz_le32(b + in.values + 4),
                     "block instance %u: its value is not the one after it", k);
        pos = in.values_end;
        k++;
    }
    FZ_CHECK(r == 0, "block at %zu: instance iterator failed with %s at %zu after a successful "
                     "decode", blk->offset, pcq_status_name(r), it.err.offset);
    FZ_CHECK(k == blk->num_instances, "block at %zu: %u instances iterated, dwInstances %u",
             blk->offset, k, blk->num_instances);
    FZ_CHECK(end - pos < 8, "block at %zu: %zu unused bytes after the instances", blk->offset,
             end - pos);
}

/* _PERF_MULTI_COUNTERS at `at` inside the block ending at `end`; returns its end. */
static size_t check_multi_counters(const walk *w, const pcq_block *blk, size_t at, size_t end)
{
    const uint8_t *b = w->buf;
    uint32_t i;
    FZ_CHECK(end - at >= 8, "block at %zu: _PERF_MULTI_COUNTERS past the block", blk->offset);
    FZ_CHECK(blk->multi_size == fz_le32(b + at) && blk->num_counters == fz_le32(b + at + 4),
             "block at %zu: _PERF_MULTI_COUNTERS differs from its bytes", blk->offset);
    FZ_CHECK(blk->multi_size >= 8 && blk->multi_size <= end - at,
             "block at %zu: _PERF_MULTI_COUNTERS.dwSize %u leaves the block", blk->offset,
             blk->multi_size);
    FZ_CHECK(blk->num_counters <= (blk->multi_size - 8) / 4 &&
                 blk->num_counters <= PCQ_MAX_COUNTERS,
             "block at %zu: %u ids in dwSize %u", blk->offset, blk->num_counters, blk->multi_size);
    FZ_CHECK(blk->counter_ids.ptr == b + at + 8 &&
                 blk->counter_ids.len == (size_t)blk->num_counters * 4,
             "block at %zu: counter id view", blk->offset);
    check_view_in(w, "counter ids", blk->counter_ids.ptr, blk->counter_ids.len, at,
                  at + blk->multi_size);
    rec_u(w->rec, blk->num_counters);
    rec_lay(w->rec, blk->multi_size);
    for (i = 0; i < blk->num_counters; i++) {
        uint32_t id = pcq_block_counter_id(blk, i);
        FZ_CHECK(id == fz_le32(b + at + 8 + (size_t)i * 4), "block at %zu: counter id %u differs",
                 blk->offset, i);
        rec_u(w->rec, id);
    }
    FZ_CHECK(pcq_block_counter_id(blk, blk->num_counters) == 0,
             "pcq_block_counter_id past the count is not 0");
    return at + blk->multi_size;
}

/* _PERF_MULTI_INSTANCES at `at`; returns its end. */
static size_t check_multi_instances(const walk *w, const pcq_block *blk, size_t at, size_t end)
{
    const uint8_t *b = w->buf;
    FZ_CHECK(end - at >= 8, "block at %zu: _PERF_MULTI_INSTANCES past the block", blk->offset);
    FZ_CHECK(blk->instances_size == fz_le32(b + at) && blk->num_instances == fz_le32(b + at + 4),
             "block at %zu: _PERF_MULTI_INSTANCES differs from its bytes", blk->offset);
    FZ_CHECK(blk->instances_size >= 8 && blk->instances_size <= end - at,
             "block at %zu: dwTotalSize %u leaves the block", blk->offset, blk->instances_size);
    FZ_CHECK(blk->num_instances <= PCQ_MAX_INSTANCES, "dwInstances above the cap");
    rec_u(w->rec, blk->num_instances);
    rec_lay(w->rec, blk->instances_size);
    return at + blk->instances_size;
}

/* pcq_block_values on a block other than type 2: a type 1 block gives its
 * one value (the same as blk->value), any other type nothing; after a
 * successful decode it never fails (security.md, 9). */
static void check_other_values(const pcq_data *d, const pcq_block *blk)
{
    pcq_iter it;
    pcq_value v;
    int r;
    pcq_block_values(d, blk, &it);
    if (blk->type == PCQ_PERF_SINGLE_COUNTER) {
        r = pcq_values_next(&it, &v);
        FZ_CHECK(r == 1 && v.offset == blk->value.offset && v.size == blk->value.size &&
                     v.data_size == blk->value.data_size && v.data.ptr == blk->value.data.ptr &&
                     v.u64 == blk->value.u64,
                 "pcq_block_values on the type 1 block at %zu: %s at %zu, not its value at %zu",
                 blk->offset, pcq_status_name(r), r < 0 ? it.err.offset : v.offset,
                 blk->value.offset);
    }
    r = pcq_values_next(&it, &v);
    FZ_CHECK(r == 0, "pcq_block_values on a type %u block at %zu: %s at %zu after a successful "
             "decode", blk->type, blk->offset, r == 1 ? "a value" : pcq_status_name(r),
             r == 1 ? v.offset : it.err.offset);
}

static int walk_data(walk *w, const pcq_opts *o, pcq_error *e)
{
    const uint8_t *b = w->buf;
    pcq_data d;
    pcq_iter it, vit;
    pcq_block blk;
    dwalk dw;
    size_t pos = 48;
    uint32_t k = 0;
    int r, rc = pcq_decode_data(b, w->len, o, &d, e);
    if (rc) return rc;
    FZ_CHECK(w->len >= 48, "data accepted in %zu bytes", w->len);
    FZ_CHECK(d.total_size == fz_le32(b) && d.num_counters == fz_le32(b + 4) &&
                 d.perf_time_stamp == fz_le64(b + 8) && d.perf_time_100nsec == fz_le64(b + 16) &&
                 d.perf_freq == fz_le64(b + 24) && d.system_time.year == fz_le16(b + 32) &&
                 d.system_time.month == fz_le16(b + 34) &&
                 d.system_time.day_of_week == fz_le16(b + 36) &&
                 d.system_time.day == fz_le16(b + 38) && d.system_time.hour == fz_le16(b + 40) &&
                 d.system_time.minute == fz_le16(b + 42) &&
                 d.system_time.second == fz_le16(b + 44) &&
                 d.system_time.milliseconds == fz_le16(b + 46),
             "_PERF_DATA_HEADER: a field differs from its bytes");
    FZ_CHECK(d.total_size >= 48 && d.total_size <= w->len, "dwTotalSize %u for %zu bytes",
             d.total_size, w->len);
    FZ_CHECK(d.num_counters <= PCQ_MAX_COUNTERS, "dwNumCounter above the cap");
    FZ_CHECK(d.buf == b && d.buf_len == w->len, "pcq_data does not name the input");
    rec_data_header(w->rec, &d);
    rec_lay(w->rec, d.total_size);
    dw.w = w;
    dw.d = &d;
    pcq_data_blocks(&d, &it);
    while ((r = pcq_blocks_next(&it, &blk)) == 1) {
        size_t end, at = pos + 16, used;
        FZ_CHECK(k < d.num_counters, "more blocks than dwNumCounter %u", d.num_counters);
        FZ_CHECK(blk.offset == pos, "block %u at %zu, expected %zu", k, blk.offset, pos);
        FZ_CHECK(d.total_size - pos >= 16, "block %u header past dwTotalSize", k);
        FZ_CHECK(blk.status == fz_le32(b + pos) && blk.type == fz_le32(b + pos + 4) &&
                     blk.size == fz_le32(b + pos + 8) && blk.reserved == fz_le32(b + pos + 12),
                 "block %u: _PERF_COUNTER_HEADER differs from its bytes", k);
        FZ_CHECK(blk.size >= 16 && blk.size <= d.total_size - pos,
                 "block %u: dwSize %u at %zu leaves dwTotalSize %u", k, blk.size, pos,
                 d.total_size);
        end = pos + blk.size;
        check_status_name(blk.status);
        FZ_CHECK(starts(pcq_block_type_name(blk.type), "PERF_"), "block type %u unnamed", blk.type);
        rec_u(w->rec, blk.status);
        rec_u(w->rec, blk.type);
        rec_lay(w->rec, blk.size);
        rec_lay(w->rec, blk.reserved);   /* the canonical form writes 0 */
        used = at;
        switch (blk.type) {
        case PCQ_PERF_ERROR_RETURN:
            used = end;                  /* anything after the header is a diagnostic */
            break;
        case PCQ_PERF_SINGLE_COUNTER:
            check_value(w, &blk.value, at, end, "PERF_SINGLE_COUNTER");
            used = at + blk.value.size;
            break;
        case PCQ_PERF_MULTI_COUNTERS:
            at = check_multi_counters(w, &blk, at, end);
            pcq_block_values(&d, &blk, &vit);
            used = walk_values(w, &vit, at, end, blk.num_counters, "PERF_MULTI_COUNTERS");
            break;
        case PCQ_PERF_MULTI_INSTANCES:
            used = check_multi_instances(w, &blk, at, end);
            walk_block_instances(&dw, &blk, at + 8, used, 1);
            break;
        case PCQ_PERF_COUNTERSET:
            at = check_multi_counters(w, &blk, at, end);
            used = check_multi_instances(w, &blk, at, end);
            walk_block_instances(&dw, &blk, at + 8, used, blk.num_counters);
            break;
        default:
            FZ_CHECK(0, "block %u: dwType %u accepted", k, blk.type);
        }
        FZ_CHECK(end - used < 8, "block %u: %zu unused bytes at its end accepted", k, end - used);
        if (blk.type != PCQ_PERF_MULTI_COUNTERS)
            check_other_values(&d, &blk);
        if (blk.type != PCQ_PERF_MULTI_INSTANCES && blk.type != PCQ_PERF_COUNTERSET) {
            pcq_data_instance in;
            pcq_block_instances(&d, &blk, &vit);
            FZ_CHECK(pcq_instances_of_block_next(&vit, &in) == 0,
                     "block %u of type %u has instances", k, blk.type);
        }
        pos = end;
        k++;
    }
    FZ_CHECK(r == 0, "block iterator failed with %s at %zu after a successful decode",
             pcq_status_name(r), it.err.offset);
    FZ_CHECK(k == d.num_counters, "%u blocks iterated, dwNumCounter %u", k, d.num_counters);
    FZ_CHECK(d.total_size - pos < 8, "%zu unused bytes before dwTotalSize accepted",
             d.total_size - pos);
    FZ_CHECK(pcq_blocks_next(&it, &blk) == 0, "blocks next() after the end");
    return PCQ_OK;
}

uint64_t fz_digest_value;

static void digest(const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    uint64_t h = fz_digest_value ^ 0xcbf29ce484222325u;
    size_t i;
    for (i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3u;
    fz_digest_value = h;
}

static void digest_u64(uint64_t v)
{
    uint8_t b[8];
    unsigned i;
    for (i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    digest(b, 8);
}

static const char *decoder_name(pcq_kind kind)
{
    return pcq_kind_name(kind);
}

int fz_walk(pcq_kind kind, const uint8_t *buf, size_t len, const pcq_opts *opts, fz_rec *rec,
            pcq_error *err)
{
    walk w;
    pcq_error e, v;
    pcq_opts vo;
    fz_diags vds, *ds = opts && opts->on_diag == on_diag ? (fz_diags *)opts->ctx : NULL;
    size_t before = ds ? ds->n : 0, nd, i;
    int rc, vr;
    w.buf = buf;
    w.len = len;
    w.rec = rec;
    memset(&e, 0, sizeof e);
    switch (kind) {
    case PCQ_KIND_COUNTERSET_INFO: rc = walk_counterset(&w, opts, &e); break;
    case PCQ_KIND_COUNTER_INFO: rc = walk_counter_info(&w, opts, &e); break;
    case PCQ_KIND_STRINGS: rc = walk_strings(&w, opts, &e); break;
    case PCQ_KIND_STRING: rc = walk_string(&w, opts, &e); break;
    case PCQ_KIND_GUID: rc = walk_guid(&w, opts, &e); break;
    case PCQ_KIND_GUIDS: rc = walk_guids(&w, opts, &e); break;
    case PCQ_KIND_INSTANCES: rc = walk_named_array(&w, opts, &e, 0); break;
    case PCQ_KIND_IDENTIFIERS: rc = walk_named_array(&w, opts, &e, 1); break;
    case PCQ_KIND_DATA: rc = walk_data(&w, opts, &e); break;
    default: FZ_CHECK(0, "fz_walk: kind %d", (int)kind); return PCQ_ERR_INVALID_ARG;
    }
    if (rc == PCQ_OK) e.code = PCQ_OK;
    else check_error(decoder_name(kind), rc, &e, len, opts);

    /* Strict mode stops at the first diagnostic, which is then the error. */
    nd = ds ? ds->n - before : 0;
    if (ds && is_strict(opts)) {
        FZ_CHECK(nd <= 1, "%s: %zu diagnostics in strict mode", decoder_name(kind), nd);
        FZ_CHECK((rc == PCQ_ERR_NONCONFORMANT) == (nd == 1),
                 "%s: strict mode returned %s after %zu diagnostics", decoder_name(kind),
                 pcq_status_name(rc), nd);
        if (nd == 1 && before < FZ_MAX_DIAGS)
            FZ_CHECK(ds->d[before].offset == e.offset && ds->d[before].what == e.what,
                     "%s: strict error at %zu (%s), its diagnostic at %zu (%s)",
                     decoder_name(kind), e.offset, e.what, ds->d[before].offset,
                     ds->d[before].what);
    }

    /* pcq_validate: the same answer and the same diagnostics. */
    memset(&v, 0x5A, sizeof v);
    if (opts) {
        vo = *opts;
        if (ds) vo.ctx = &vds;
    }
    memset(&vds, 0, sizeof vds);
    vds.len = len;
    vr = pcq_validate(kind, buf, len, opts ? &vo : NULL, &v);
    {   /* No callback and no error out-parameter: the same status. */
        pcq_opts q;
        if (opts) {
            q = *opts;
            q.on_diag = NULL;
            q.ctx = NULL;
        }
        FZ_CHECK(pcq_validate(kind, buf, len, opts ? &q : NULL, NULL) == rc,
                 "pcq_validate(%s) without a callback and err: another status",
                 decoder_name(kind));
    }
    if (ds) {
        FZ_CHECK(vds.n == nd, "pcq_validate(%s) reports %zu diagnostics, the decoder %zu",
                 decoder_name(kind), vds.n, nd);
        for (i = 0; i < nd && before + i < FZ_MAX_DIAGS && i < FZ_MAX_DIAGS; i++) {
            const pcq_diag *a = &ds->d[before + i], *b = &vds.d[i];
            FZ_CHECK(a->code == b->code && a->offset == b->offset && a->what == b->what,
                     "diagnostic %zu: the decoder says %s at %zu, pcq_validate %s at %zu", i,
                     pcq_diag_name(a->code), a->offset, pcq_diag_name(b->code), b->offset);
        }
    }
    FZ_CHECK(vr == rc, "pcq_validate(%s) says %s, the decoder %s", decoder_name(kind),
             pcq_status_name(vr), pcq_status_name(rc));
    if (rc == PCQ_OK)
        FZ_CHECK(v.code == PCQ_OK, "pcq_validate OK but err.code %d", v.code);
    else
        same_error("decoder", &e, "pcq_validate", &v);
    digest_u64((uint64_t)kind);
    digest_u64((uint64_t)(int64_t)rc);
    digest_u64((uint64_t)e.offset);
    if (e.what) digest(e.what, strlen(e.what));
    if (rec) digest(rec->all.p, rec->all.len);
    if (err) *err = e;
    return rc;
}

#ifndef PCQ_NO_ENCODER
/* ------------------------------------------------------------------------ */
/* the writer, driven by a script                                            */
/* ------------------------------------------------------------------------ */
#define FZ_MAX_NAME 24   /* bytes of UTF-16 in a scripted name */

/* A name of up to FZ_MAX_NAME bytes with no U+0000 unit, copied to out. */
static size_t script_name(fz_src *s, uint8_t *out)
{
    size_t n = (size_t)(fz_u8(s) % (FZ_MAX_NAME / 2 + 1)) * 2, i;
    for (i = 0; i < n; i += 2) {
        out[i] = fz_u8(s);
        out[i + 1] = fz_u8(s);
        if (out[i] == 0 && out[i + 1] == 0) out[i] = 'A';
    }
    return n;
}

static void script_guid(fz_src *s, pcq_guid *g)
{
    unsigned i;
    g->data1 = fz_u32(s);
    g->data2 = (uint16_t)fz_u32(s);
    g->data3 = (uint16_t)fz_u32(s);
    for (i = 0; i < 8; i++) g->data4[i] = fz_u8(s);
}

static void script_creg(fz_src *s, pcq_counter_reg *c)
{
    c->counter_id = fz_u32(s);
    c->type = fz_u32(s);
    c->attrib = fz_u64(s);
    c->detail_level = fz_u32(s);
    c->default_scale = (int32_t)(fz_u8(s) % 41) - 20;
    c->base_counter_id = fz_u32(s);
    c->perf_time_id = fz_u32(s);
    c->perf_freq_id = fz_u32(s);
    c->multi_id = fz_u32(s);
    c->aggregate_func = fz_u32(s);
    c->reserved = fz_u32(s);
}

/* One value: u32, u64 or raw bytes of 0..20. */
static void script_value(fz_src *s, pcq_writer *w, fz_rec *rec)
{
    uint8_t sel = fz_u8(s), bytes[20];
    unsigned i;
    if (sel % 3 == 0) {
        uint32_t v = fz_u32(s);
        for (i = 0; i < 4; i++) bytes[i] = (uint8_t)(v >> (8 * i));
        pcq_put_value_u32(w, v);
        rec_bytes(rec, bytes, 4);
    } else if (sel % 3 == 1) {
        uint64_t v = fz_u64(s);
        for (i = 0; i < 8; i++) bytes[i] = (uint8_t)(v >> (8 * i));
        pcq_put_value_u64(w, v);
        rec_bytes(rec, bytes, 8);
    } else {
        uint32_t n = (uint32_t)(sel / 3) % 21;
        for (i = 0; i < n; i++) bytes[i] = fz_u8(s);
        pcq_put_value(w, n ? bytes : NULL, n);
        rec_bytes(rec, bytes, n);
    }
}

static void script_data(fz_src *s, pcq_writer *w, fz_rec *rec)
{
    static const uint32_t types[] = {0, 1, 2, 4, 6};
    pcq_data h;
    uint32_t nb = fz_u8(s) % 6, i, j, v;
    memset(&h, 0, sizeof h);
    h.num_counters = nb;
    h.perf_time_stamp = fz_u64(s);
    h.perf_time_100nsec = fz_u64(s);
    h.perf_freq = fz_u64(s);
    h.system_time.year = (uint16_t)fz_u32(s);
    h.system_time.month = fz_u8(s);
    h.system_time.day_of_week = fz_u8(s);
    h.system_time.day = fz_u8(s);
    h.system_time.hour = fz_u8(s);
    h.system_time.minute = fz_u8(s);
    h.system_time.second = fz_u8(s);
    h.system_time.milliseconds = (uint16_t)fz_u32(s);
    pcq_begin_data(w, &h);
    rec_data_header(rec, &h);
    for (i = 0; i < nb; i++) {
        uint32_t type = types[fz_u8(s) % 5], status = fz_u32(s);
        uint32_t nids = 0, ids[6], ninst = 0;
        rec_u(rec, status);
        rec_u(rec, type);
        if (type == PCQ_PERF_ERROR_RETURN) {
            pcq_put_error_block(w, status);
            continue;
        }
        if (type == PCQ_PERF_MULTI_COUNTERS || type == PCQ_PERF_COUNTERSET) {
            nids = fz_u8(s) % 7;
            for (j = 0; j < nids; j++) ids[j] = fz_u32(s);
        }
        pcq_begin_block(w, type, status, nids ? ids : NULL, nids);
        if (type == PCQ_PERF_MULTI_COUNTERS || type == PCQ_PERF_COUNTERSET) {
            rec_u(rec, nids);
            for (j = 0; j < nids; j++) rec_u(rec, ids[j]);
        }
        if (type == PCQ_PERF_SINGLE_COUNTER) {
            script_value(s, w, rec);
        } else if (type == PCQ_PERF_MULTI_COUNTERS) {
            for (j = 0; j < nids; j++) script_value(s, w, rec);
        } else {
            uint32_t per = type == PCQ_PERF_COUNTERSET ? nids : 1;
            ninst = fz_u8(s) % 4;
            rec_u(rec, ninst);
            for (j = 0; j < ninst; j++) {
                uint8_t name[FZ_MAX_NAME];
                uint32_t id = fz_u32(s);
                size_t n = script_name(s, name);
                pcq_put_data_instance(w, id, name, n);
                rec_u(rec, id);
                rec_bytes(rec, name, n);
                for (v = 0; v < per; v++) script_value(s, w, rec);
            }
        }
        pcq_end_block(w);
    }
    pcq_end_data(w);
}

pcq_kind fz_write_script(fz_src *s, void *dst, size_t cap, int *rc, size_t *out_len, fz_rec *rec)
{
    pcq_kind kind = fz_kind_of(fz_u8(s));
    pcq_writer w;
    uint8_t name[FZ_MAX_NAME];
    uint32_t i, n;
    pcq_writer_init(&w, dst, cap);
    switch (kind) {
    case PCQ_KIND_COUNTERSET_INFO: {
        pcq_counterset_reg set;
        pcq_counter_reg c;
        script_guid(s, &set.guid);
        set.counterset_type = fz_u32(s);
        set.detail_level = fz_u32(s);
        set.num_counters = n = fz_u8(s) % 6;
        set.instance_type = fz_u32(s);
        pcq_put_counterset_reg(&w, &set);
        rec_cset(rec, &set);
        for (i = 0; i < n; i++) {
            script_creg(s, &c);
            pcq_put_counter_reg(&w, &c);
            rec_creg(rec, &c);
        }
        break;
    }
    case PCQ_KIND_COUNTER_INFO: {
        pcq_counter_reg c;
        script_creg(s, &c);
        pcq_put_counter_reg(&w, &c);
        rec_creg(rec, &c);
        break;
    }
    case PCQ_KIND_STRINGS: {
        pcq_string_entry e[8];
        uint8_t texts[8][FZ_MAX_NAME];
        pcq_str_convention conv = (pcq_str_convention)(fz_u8(s) % 3);
        int any = 0;
        n = fz_u8(s) % 9;
        memset(e, 0, sizeof e);
        for (i = 0; i < n; i++) {
            e[i].counter_id = fz_u32(s);
            e[i].present = fz_u8(s) & 1;
            e[i].offset = fz_u32(s);   /* ignored by the writer */
            if (e[i].present) {
                e[i].text.len = script_name(s, texts[i]);
                e[i].text.ptr = texts[i];
                any = 1;
            }
        }
        pcq_put_strings(&w, n ? e : NULL, n, conv);
        rec_u(rec, n);
        rec_u(rec, (uint64_t)(!any ? PCQ_STROFF_NONE
                              : conv == PCQ_STROFF_SPEC ? PCQ_STROFF_SPEC : PCQ_STROFF_WIN32));
        for (i = 0; i < n; i++) {
            rec_u(rec, e[i].counter_id);
            rec_u(rec, (uint64_t)e[i].present);
            if (e[i].present) rec_bytes(rec, e[i].text.ptr, e[i].text.len);
        }
        break;
    }
    case PCQ_KIND_STRING: {
        size_t len = script_name(s, name);
        pcq_put_string(&w, name, len);
        rec_bytes(rec, name, len);
        break;
    }
    case PCQ_KIND_GUID: {
        pcq_guid g;
        script_guid(s, &g);
        pcq_put_guid(&w, &g);
        rec_guid(rec, &g);
        break;
    }
    case PCQ_KIND_GUIDS: {
        pcq_guid g;
        n = fz_u8(s) % 6;
        rec_u(rec, n);
        for (i = 0; i < n; i++) {
            script_guid(s, &g);
            pcq_put_guid(&w, &g);
            rec_guid(rec, &g);
        }
        break;
    }
    case PCQ_KIND_INSTANCES:
        n = fz_u8(s) % 6;
        for (i = 0; i < n; i++) {
            uint32_t id = fz_u32(s);
            size_t len = script_name(s, name);
            pcq_put_instance(&w, id, name, len);
            rec_u(rec, id);
            rec_bytes(rec, name, len);
        }
        rec_u(rec, n);
        break;
    case PCQ_KIND_IDENTIFIERS: {
        pcq_identifier id;
        n = fz_u8(s) % 6;
        for (i = 0; i < n; i++) {
            memset(&id, 0, sizeof id);
            script_guid(s, &id.guid);
            id.status = fz_u32(s);
            id.size = fz_u32(s);   /* ignored by the writer */
            id.counter_id = fz_u32(s);
            id.instance_id = fz_u32(s);
            id.index = fz_u32(s);
            id.reserved = fz_u32(s);
            id.name.len = script_name(s, name);
            id.name.ptr = name;
            pcq_put_identifier(&w, &id);
            rec_ident(rec, &id);
        }
        rec_u(rec, n);
        break;
    }
    default:
        script_data(s, &w, rec);
        break;
    }
    *rc = pcq_writer_finish(&w, out_len);
    return kind;
}
#endif /* PCQ_NO_ENCODER */
