/* SPDX-License-Identifier: MIT */
/*
 * _pcqlib.c - the flat C functions the Python binding calls through ctypes
 * (python/pcq/_lib.py). Compiled with pcq_codec.c, pcq_calc.c and pcqdump's
 * pcq_json.c, cook_run.c and cook_metrics.c into one plain shared library:
 * no Python.h, so no python3-dev and no cffi are needed to build it.
 *
 * decode and cook hand back pcqdump's exact output (pcq_json_emit,
 * pcq_cook_print) captured with open_memstream, so pcq.decode() is
 * `pcqdump --json` by construction. Text the library allocates is released
 * with pcqpy_free. Every function is reentrant (the GIL is released).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcq_codec.h"
#include "pcq_json.h"
#include "cook.h"

#if defined(__GNUC__)
#define PCQPY_API __attribute__((visibility("default")))
#else
#define PCQPY_API
#endif

/* An error as Python's PcqError carries it. */
typedef struct pcqpy_err {
    int32_t code; /* pcq_status */
    int32_t diag; /* with PCQ_ERR_NONCONFORMANT: the pcq_diag_code */
    uint64_t offset;
    const char *field; /* static string, or NULL */
} pcqpy_err;

static void set_err(pcqpy_err *out, int code, const pcq_error *e)
{
    memset(out, 0, sizeof *out);
    out->code = code;
    if (!e) return;
    out->offset = e->offset;
    out->field = e->what;
    out->diag = e->diag;
}

/* A JSON string of static ASCII text (a field name), or null. */
static void json_word(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
    fputc('"', f);
}

typedef struct diags {
    FILE *f; /* one JSON object per line */
    unsigned long count;
} diags;

static void on_diag(void *ctx, const pcq_diag *d)
{
    diags *c = ctx;
    if (d->code != PCQ_DIAG_CHECK_SKIPPED) c->count++;
    fprintf(c->f, "{\"code\": \"%s\", \"offset\": %zu, \"field\": ", pcq_diag_name(d->code), d->offset);
    json_word(c->f, d->what);
    fputs(", \"message\": ", c->f);
    json_word(c->f, pcq_diag_text(d->code));
    fputs("}\n", c->f);
}

/* Scratch for the set-wide checks of large sets, as pcqdump gives it: no
 * entry is smaller than 8 bytes, so len / 8 entries are enough. */
static void *scratch_for(int kind, size_t len, size_t *size)
{
    size_t n = len / 8;
    *size = 0;
    if ((kind != PCQ_KIND_COUNTERSET_INFO && kind != PCQ_KIND_STRINGS) || n <= PCQ_PAIR_CHECK_MAX)
        return NULL;
    *size = n * PCQ_SCRATCH_PER_ENTRY;
    return malloc(*size);
}

PCQPY_API void pcqpy_free(void *p)
{
    free(p);
}

/* pcqdump --kind KIND --json on buf: *json gets the object (with its "error"
 * member when malformed), *diag_text the diagnostics as JSON lines, both to
 * be released with pcqpy_free. The walk is lenient, as pcqdump's is under
 * --strict too; *ndiags counts the findings. Returns the walk's status
 * (PCQ_OK or the error, also in *err); PCQ_ERR_INVALID_ARG for an unknown
 * kind; PCQ_ERR_BUFFER_TOO_SMALL when memory ran out. */
PCQPY_API int pcqpy_decode(int kind, const uint8_t *buf, size_t len, char **json, size_t *json_len,
                           char **diag_text, size_t *diag_len, unsigned long *ndiags, pcqpy_err *err)
{
    pcq_opts opts;
    pcq_error e;
    diags d;
    FILE *out;
    int rc;

    *json = *diag_text = NULL;
    *json_len = *diag_len = 0;
    *ndiags = 0;
    memset(&e, 0, sizeof e);
    set_err(err, PCQ_OK, NULL);
    if (kind <= PCQ_KIND_NONE || kind >= PCQ_KIND_END_) {
        err->code = PCQ_ERR_INVALID_ARG;
        return PCQ_ERR_INVALID_ARG;
    }
    out = open_memstream(json, json_len);
    d.f = open_memstream(diag_text, diag_len);
    d.count = 0;
    if (!out || !d.f) {
        if (out) fclose(out);
        if (d.f) fclose(d.f);
        err->code = PCQ_ERR_BUFFER_TOO_SMALL;
        return PCQ_ERR_BUFFER_TOO_SMALL;
    }
    memset(&opts, 0, sizeof opts);
    opts.on_diag = on_diag;
    opts.ctx = &d;
    opts.scratch = scratch_for(kind, len, &opts.scratch_size);
    rc = pcq_json_emit(out, (pcq_kind)kind, buf ? buf : (const uint8_t *)"", len, &opts, &e);
    free(opts.scratch);
    if (ferror(out) || ferror(d.f)) rc = PCQ_ERR_BUFFER_TOO_SMALL; /* memory ran out */
    if (fclose(out) != 0 || fclose(d.f) != 0) rc = PCQ_ERR_BUFFER_TOO_SMALL;
    set_err(err, rc, rc < 0 ? &e : NULL);
    *ndiags = d.count;
    return rc;
}

/* ---- the walk, one structure a call ---- */

typedef struct pcqpy_walk {
    pcq_walk w;
    pcq_item item; /* the last one pcqpy_walk_next gave */
    const uint8_t *buf;
    size_t len;
    int done; /* the status that ended it (1 while going) */
} pcqpy_walk;

/* One structure as Python sees it. */
typedef struct pcqpy_item {
    int32_t type; /* pcq_struct_type; 0 (PCQ_S_NONE) when none */
    uint32_t depth, index;
    int32_t partial;
    uint64_t offset, size, extent;
    uint32_t nfields;
    int32_t has_counter_id;
    uint32_t counter_id;
    const char *type_name; /* "_PERF_DATA_HEADER"; NULL for PCQ_S_NONE */
} pcqpy_item;

/* One field of the last structure. */
typedef struct pcqpy_field {
    const char *key;  /* the layout's JSON key: "total_size", "system_time.year" */
    const char *name; /* as the spec names it */
    int32_t kind;     /* pcq_value_kind; PCQ_V_NONE: not read (a partial structure) */
    uint64_t u;
    int64_t i;
    char guid[PCQ_GUID_TEXT_SIZE];
    uint64_t offset;              /* of the value in the input */
    uint64_t bytes_at, bytes_len; /* PCQ_V_TEXT, PCQ_V_BYTES: where, in the input */
    const char *word;             /* PCQ_V_WORD */
} pcqpy_field;

PCQPY_API void *pcqpy_walk_new(int kind, const uint8_t *buf, size_t len)
{
    pcqpy_walk *h;
    if (kind <= PCQ_KIND_NONE || kind >= PCQ_KIND_END_) return NULL;
    h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->buf = buf ? buf : (const uint8_t *)"";
    h->len = len;
    h->done = 1;
    pcq_walk_begin(&h->w, (pcq_kind)kind, h->buf, len, NULL);
    return h;
}

PCQPY_API void pcqpy_walk_free(void *h)
{
    free(h);
}

static void item_out(const pcq_item *it, pcqpy_item *out)
{
    const pcq_struct_info *s = pcq_struct_info_of(it->type);
    memset(out, 0, sizeof *out);
    out->type = it->type;
    out->depth = it->depth;
    out->index = it->index;
    out->partial = it->partial;
    out->offset = it->offset;
    out->size = it->size;
    out->extent = it->extent;
    out->nfields = s ? (uint32_t)s->nfields : 0;
    out->has_counter_id = it->has_counter_id;
    out->counter_id = it->counter_id;
    out->type_name = s ? s->name : NULL;
}

/* The next structure: 1 with *item; 0 at a clean end; or the error (*err),
 * with *item the structure it cut (type 0 when none). */
PCQPY_API int pcqpy_walk_next(void *handle, pcqpy_item *item, pcqpy_err *err)
{
    pcqpy_walk *h = handle;
    int rc;
    memset(item, 0, sizeof *item);
    set_err(err, PCQ_OK, NULL);
    if (h->done <= 0) return h->done;
    memset(&h->item, 0, sizeof h->item);
    rc = pcq_walk_next(&h->w, &h->item);
    if (rc != 1) h->done = rc;
    if (rc < 0) set_err(err, rc, &h->w.err);
    if (rc == 1 || (rc < 0 && h->item.type != PCQ_S_NONE)) item_out(&h->item, item);
    return rc;
}

/* Field i of the structure pcqpy_walk_next gave last. */
PCQPY_API int pcqpy_walk_field(void *handle, uint32_t i, pcqpy_field *out)
{
    pcqpy_walk *h = handle;
    const pcq_struct_info *s = pcq_struct_info_of(h->item.type);
    pcq_field_value v;
    const pcq_field *f;
    memset(out, 0, sizeof *out);
    if (!s || i >= s->nfields) return PCQ_V_NONE;
    f = &s->fields[i];
    out->key = f->key;
    out->name = f->name;
    memset(&v, 0, sizeof v);
    out->kind = pcq_item_field(&h->item, f, h->buf, h->len, &v);
    out->u = v.u;
    out->i = v.i;
    out->offset = v.offset;
    if (out->kind == PCQ_V_GUID) pcq_guid_to_text(&v.guid, out->guid);
    if ((out->kind == PCQ_V_TEXT || out->kind == PCQ_V_BYTES) && v.bytes.ptr) {
        out->bytes_at = (uint64_t)(v.bytes.ptr - h->buf);
        out->bytes_len = v.bytes.len;
    }
    out->word = v.word;
    return out->kind;
}

/* ---- pcqdump --cook ---- */

typedef struct pcqpy_buf {
    const uint8_t *p;
    size_t len;
    int32_t given;
} pcqpy_buf;

/* pcqdump --cook on buffers (info, older, newer, names, ids; older, names
 * and ids optional): *out gets its output in `format`, *msg its messages.
 * Returns pcqdump's status: 0 cooked, 1 unusable input (*input is the one
 * to blame, *err the error), 2 out of memory. */
PCQPY_API int pcqpy_cook(const pcqpy_buf *in, unsigned flags, int format, const char *set_name,
                         const char *host, char **out, size_t *out_len, char **msg, size_t *msg_len,
                         pcqpy_err *err, int32_t *input)
{
    static const char *const names[PCQ_COOK_NINPUTS] = {"info", "older", "newer", "names", "ids"};
    pcq_cook_req r;
    pcq_cook_fail fail;
    FILE *fo, *fm;
    int rc, i;

    *out = *msg = NULL;
    *out_len = *msg_len = 0;
    *input = -1;
    set_err(err, PCQ_OK, NULL);
    memset(&r, 0, sizeof r);
    for (i = 0; i < PCQ_COOK_NINPUTS; i++) {
        r.in[i].buf = in[i].given ? (in[i].p ? in[i].p : (const uint8_t *)"") : NULL;
        r.in[i].len = in[i].given ? in[i].len : 0;
        r.in[i].name = names[i];
    }
    r.flags = flags;
    r.format = format;
    r.set_name = set_name;
    r.host = host;
    fo = open_memstream(out, out_len);
    fm = open_memstream(msg, msg_len);
    if (!fo || !fm) {
        if (fo) fclose(fo);
        if (fm) fclose(fm);
        return 2;
    }
    rc = pcq_cook_print(&r, fo, fm, &fail);
    if (ferror(fo) || ferror(fm)) rc = 2;
    if (fclose(fo) != 0 || fclose(fm) != 0) rc = 2;
    if (rc == 1) {
        *input = fail.input;
        set_err(err, fail.err.code, &fail.err);
    }
    return rc;
}
