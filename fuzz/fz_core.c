/* SPDX-License-Identifier: MIT */
/*
 * fz_core.c - bytes, records of decoded fields, diagnostics and errors
 * (fz_internal.h). Every check re-reads the bytes on its own (fz_le32, ...)
 * rather than trusting the decoder, and aborts through FZ_CHECK with the
 * offending numbers. Nothing here may hide a failure: a property that does
 * not hold is a finding, to be fixed in the library or argued away in
 * docs/security.md.
 */
#include "fz_internal.h"

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
uint16_t fz_le16(const uint8_t *p)
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
void fz_rec_u(fz_rec *r, uint64_t v)
{
    uint8_t b[8];
    unsigned i;
    if (!r) return;
    for (i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    buf_put(&r->sem, b, 8);
    buf_put(&r->all, b, 8);
}

/* A layout field: offsets, sizes, fields the canonical form normalizes. */
void fz_rec_lay(fz_rec *r, uint64_t v)
{
    uint8_t b[8];
    unsigned i;
    if (!r) return;
    for (i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    buf_put(&r->all, b, 8);
}

void fz_rec_bytes(fz_rec *r, const uint8_t *p, size_t n)
{
    if (!r) return;
    fz_rec_u(r, n);
    buf_put(&r->sem, p, n);
    buf_put(&r->all, p, n);
}

void fz_rec_guid(fz_rec *r, const pcq_guid *g)
{
    fz_rec_u(r, g->data1);
    fz_rec_u(r, g->data2);
    fz_rec_u(r, g->data3);
    if (r) {
        buf_put(&r->sem, g->data4, 8);
        buf_put(&r->all, g->data4, 8);
    }
}

void fz_rec_cset(fz_rec *r, const pcq_counterset_reg *s)
{
    fz_rec_guid(r, &s->guid);
    fz_rec_u(r, s->counterset_type);
    fz_rec_u(r, s->detail_level);
    fz_rec_u(r, s->num_counters);
    fz_rec_u(r, s->instance_type);
}

void fz_rec_creg(fz_rec *r, const pcq_counter_reg *c)
{
    fz_rec_u(r, c->counter_id);
    fz_rec_u(r, c->type);
    fz_rec_u(r, c->attrib);
    fz_rec_u(r, c->detail_level);
    fz_rec_u(r, (uint32_t)c->default_scale);
    fz_rec_u(r, c->base_counter_id);
    fz_rec_u(r, c->perf_time_id);
    fz_rec_u(r, c->perf_freq_id);
    fz_rec_u(r, c->multi_id);
    fz_rec_u(r, c->aggregate_func);
    fz_rec_u(r, c->reserved);
}

void fz_rec_ident(fz_rec *r, const pcq_identifier *id)
{
    fz_rec_guid(r, &id->guid);
    fz_rec_u(r, id->status);
    fz_rec_u(r, id->counter_id);
    fz_rec_u(r, id->instance_id);
    fz_rec_u(r, id->index);
    fz_rec_u(r, id->reserved);
    fz_rec_bytes(r, id->name.ptr, id->name.len);
}

void fz_rec_data_header(fz_rec *r, const pcq_data *d)
{
    const pcq_systemtime *t = &d->system_time;
    fz_rec_u(r, d->num_counters);
    fz_rec_u(r, d->perf_time_stamp);
    fz_rec_u(r, d->perf_time_100nsec);
    fz_rec_u(r, d->perf_freq);
    fz_rec_u(r, t->year);
    fz_rec_u(r, t->month);
    fz_rec_u(r, t->day_of_week);
    fz_rec_u(r, t->day);
    fz_rec_u(r, t->hour);
    fz_rec_u(r, t->minute);
    fz_rec_u(r, t->second);
    fz_rec_u(r, t->milliseconds);
}

/* ------------------------------------------------------------------------ */
/* diagnostics and errors                                                    */
/* ------------------------------------------------------------------------ */
void fz_on_diag(void *ctx, const pcq_diag *d)
{
    fz_diags *ds = (fz_diags *)ctx;
    FZ_CHECK(d != NULL, "NULL diagnostic");
    FZ_CHECK(d->code >= 1 && d->code < PCQ_DIAG_END_, "diagnostic code %d unknown", d->code);
    FZ_CHECK(strcmp(pcq_diag_name(d->code), "PCQ_DIAG_UNKNOWN") != 0, "diagnostic %d unnamed", d->code);
    FZ_CHECK(d->what != NULL, "diagnostic %s without a field name", pcq_diag_name(d->code));
    FZ_CHECK(strcmp(pcq_diag_text(d->code), "unknown diagnostic") != 0, "diagnostic %d has no text", d->code);
    FZ_CHECK(d->offset < ds->len, "diagnostic %s (%s) at offset %zu outside the input of %zu bytes",
             pcq_diag_name(d->code), d->what, d->offset, ds->len);
    if (d->code == PCQ_DIAG_CHECK_SKIPPED) {
        ds->skipped++;
        return;
    }
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
    default: o->flags = PCQ_STRICT; return o; /* no callback */
    }
    o->on_diag = fz_on_diag;
    o->ctx = ds;
    return o;
}

int fz_is_strict(const pcq_opts *o)
{
    return o && (o->flags & PCQ_STRICT);
}

/* What a decoder may return for input it cannot accept. */
static int malformed_code(int rc)
{
    switch (rc) {
    case PCQ_ERR_TRUNCATED:
    case PCQ_ERR_EXCEEDS_CONTAINER:
    case PCQ_ERR_SIZE_TOO_SMALL:
    case PCQ_ERR_COUNT_MISMATCH:
    case PCQ_ERR_NO_NUL:
    case PCQ_ERR_BAD_BLOCK_TYPE:
    case PCQ_ERR_BAD_LENGTH:
    case PCQ_ERR_OVERFLOW:
    case PCQ_ERR_LIMIT: return 1;
    default: return 0;
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
    case PCQ_ERR_BUFFER_TOO_SMALL:
    case PCQ_ERR_INVALID_ARG:
    case PCQ_ERR_STATE: return PCQ_FAMILY_CALLER;
    default: return PCQ_FAMILY_MALFORMED;
    }
}

/* The error of a failed decode of `len` bytes. */
void fz_check_error(const char *who, int rc, const pcq_error *e, size_t len, const pcq_opts *o)
{
    FZ_CHECK(rc < 0, "%s returned %d, neither PCQ_OK nor an error", who, rc);
    FZ_CHECK(malformed_code(rc) || (rc == PCQ_ERR_NONCONFORMANT && fz_is_strict(o)),
             "%s returned %s (%d), not a status for untrusted input%s", who, pcq_status_name(rc), rc,
             rc == PCQ_ERR_NONCONFORMANT ? " in lenient mode" : "");
    FZ_CHECK(e->code == rc, "%s returned %s but err.code is %s", who, pcq_status_name(rc),
             pcq_status_name(e->code));
    FZ_CHECK(e->what != NULL, "%s: %s without a field name", who, pcq_status_name(rc));
    FZ_CHECK(e->offset < len || (len == 0 && e->offset == 0),
             "%s: %s (%s) at offset %zu, outside the input of %zu bytes", who, pcq_status_name(rc), e->what,
             e->offset, len);
    FZ_CHECK(pcq_strerror(rc) != NULL && strcmp(pcq_strerror(rc), "unknown status") != 0,
             "%s: pcq_strerror(%d) unknown", who, rc);
    FZ_CHECK(pcq_status_family(rc) == family_of(rc), "pcq_status_family(%s) = %d", pcq_status_name(rc),
             (int)pcq_status_family(rc));
}

void fz_same_error(const char *a, const pcq_error *ea, const char *b, const pcq_error *eb)
{
    FZ_CHECK(ea->code == eb->code && ea->offset == eb->offset,
             "%s says %s at %zu (%s), %s says %s at %zu (%s)", a, pcq_status_name(ea->code), ea->offset,
             ea->what ? ea->what : "-", b, pcq_status_name(eb->code), eb->offset, eb->what ? eb->what : "-");
    FZ_CHECK((ea->what == NULL) == (eb->what == NULL) &&
                 (ea->what == NULL || strcmp(ea->what, eb->what) == 0),
             "%s blames %s, %s blames %s at the same offset", a, ea->what ? ea->what : "-", b,
             eb->what ? eb->what : "-");
}
