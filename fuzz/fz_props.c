/* SPDX-License-Identifier: MIT */
/*
 * fz_props.c - the properties of the step-by-step walk (pcq_walk_next), for
 * test/test_walk.c and the fuzz target fuzz_walk (fuzz_util.h):
 *   (a) after a successful pcq_decode_*, the walk yields exactly what the
 *       typed iterators give (items rebuilt from them, compared field by field
 *       through the layout);
 *   (b) on every prefix of a buffer that decodes, the walk yields every item
 *       of the whole buffer that lies wholly inside the prefix, identical,
 *       and then an error at an offset inside the prefix (or ends cleanly when
 *       the prefix itself decodes);
 *   (c) on any input, pcq_validate succeeds exactly when the walk ends
 *       without error; both report the same error and the same diagnostics,
 *       which come in wire order (non-decreasing offsets).
 * Items are compared as binary digests (words compared with memcmp): their
 * place (type, depth, index, offset, size, extent, ...), every field
 * pcq_item_field gives and their union; as text only in a failure's message.
 */
#include "fuzz_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- item digests -------------------------------------------------------- */
/* An item is compared as its digest: 64-bit words filled in a fixed order
 * (its place, every field pcq_item_field gives, its union), compared with
 * memcmp. Texts and bytes go in by offset and length, never by pointer into
 * the input (a view's pointer is not what it means: an absent text's may be
 * anything, a copy of the bytes would move them all); a field's word is a
 * static name, so its pointer stands for its text. The readable text
 * of an item (fp_digest, fp_union) is made only for the message when two
 * digests differ, from the item kept beside its digest: snprintf for every
 * item was most of the time of these checks. */

/* Words of one digest: 1 + 10 of place, 8 for each of at most 13 fields
 * (_PERF_DATA_HEADER), at most 16 of union. fp_ws checks. */
#define FP_MAX_WORDS 160

/* What a digest holds, which is also how it reads as text. */
enum {
    FP_ITEM = 1, /* place, fields and union (fp_digest + fp_union) */
    FP_PLACE,    /* place and fields (fp_digest) */
    FP_VALUE     /* a value: offset, dwSize, dwDataSize, integer */
};

typedef struct fp_dig {
    size_t n;
    uint64_t w[FP_MAX_WORDS];
} fp_dig;

/* One digested item; its words are in the list's pool (at, n). */
typedef struct fp_rec {
    int how;     /* FP_ITEM, FP_PLACE, FP_VALUE */
    pcq_item it; /* for the text; FP_VALUE: u.value */
    const uint8_t *buf;
    size_t len;
    size_t at, n;
} fp_rec;

/* Digests in order: one array of records and one of words, both grown by
 * doubling (no allocation per item), emptied for reuse by fp_clear. */
typedef struct fp_list {
    fp_rec *rec;
    size_t n, cap;
    uint64_t *w;
    size_t nw, capw;
} fp_list;

static void fp_ws(fp_dig *d, const uint64_t *v, size_t n)
{
    FZ_CHECK(n <= FP_MAX_WORDS - d->n, "an item digest needs more than %d words", FP_MAX_WORDS);
    memcpy(d->w + d->n, v, n * sizeof *v);
    d->n += n;
}

static void fp_w(fp_dig *d, uint64_t v)
{
    fp_ws(d, &v, 1);
}

/* FP_WORDS(d, a, b, ...) appends a, b, ... as words, in that order. */
#define FP_WORDS(d, ...) \
    fp_ws(d, (const uint64_t[]){__VA_ARGS__}, sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* The whole GUID (the text shows only parts of it). data4 as the host
 * reads 8 bytes: both sides of a comparison run on the same host. */
static void fp_guid(fp_dig *d, const pcq_guid *g)
{
    uint64_t tail;
    memcpy(&tail, g->data4, sizeof tail);
    FP_WORDS(d, (uint64_t)g->data1 << 32 | (uint64_t)g->data2 << 16 | g->data3, tail);
}

/* Where the item is, and each field's value: what fp_digest shows (and
 * partial, which it does not). */
static void fp_dig_place(fp_dig *d, const pcq_item *it, const uint8_t *buf, size_t len)
{
    const pcq_struct_info *s = pcq_struct_info_of(it->type);
    pcq_field_value v;
    size_t i;
    FP_WORDS(d, (uint64_t)(uint32_t)it->type, it->depth, it->index, it->offset, it->size, it->extent,
             (uint64_t)(uint32_t)it->single, (uint64_t)(uint32_t)it->has_counter_id,
             it->has_counter_id ? it->counter_id : 0u, (uint64_t)(uint32_t)it->partial);
    for (i = 0; s && i < s->nfields; i++) {
        int k = pcq_item_field(it, &s->fields[i], buf, len, &v);
        FP_WORDS(d, (uint64_t)(uint32_t)k, v.u, (uint64_t)v.i, v.offset, v.bytes.len,
                 (uint64_t)(uintptr_t)v.word);
        fp_guid(d, &v.guid);
    }
}

/* What the item's union says: what fp_union shows, whole GUIDs. */
static void fp_dig_union(fp_dig *d, const pcq_item *it)
{
    const pcq_item *x = it;
    if (it->partial) return;
    switch (it->type) {
    case PCQ_S_COUNTERSET_REG_INFO:
        fp_guid(d, &x->u.set.guid);
        FP_WORDS(d, x->u.set.counterset_type, x->u.set.detail_level, x->u.set.num_counters,
                 x->u.set.instance_type);
        break;
    case PCQ_S_COUNTER_REG_INFO:
        FP_WORDS(d, x->u.counter.counter_id, x->u.counter.type, x->u.counter.attrib,
                 x->u.counter.detail_level, (uint64_t)x->u.counter.default_scale,
                 x->u.counter.base_counter_id, x->u.counter.perf_time_id, x->u.counter.perf_freq_id,
                 x->u.counter.multi_id, x->u.counter.aggregate_func, x->u.counter.reserved);
        break;
    case PCQ_S_STRING_BUFFER_HEADER:
        FP_WORDS(d, x->u.strings.size, x->u.strings.num_counters, (uint64_t)x->u.strings.convention,
                 x->u.strings.block.len);
        break;
    case PCQ_S_STRING_COUNTER_HEADER:
        FP_WORDS(d, x->u.entry.counter_id, x->u.entry.offset, (uint64_t)x->u.entry.present,
                 x->u.entry.text_offset, x->u.entry.text.len);
        break;
    case PCQ_S_STRING: fp_w(d, x->u.text.len); break;
    case PCQ_S_PROVIDER_GUID:
    case PCQ_S_COUNTERSET_GUID: fp_guid(d, &x->u.guid); break;
    case PCQ_S_INSTANCE:
        FP_WORDS(d, x->u.instance.size, x->u.instance.instance_id, x->u.instance.name.len,
                 x->u.instance.offset);
        break;
    case PCQ_S_COUNTER_IDENTIFIER:
        fp_guid(d, &x->u.identifier.guid);
        FP_WORDS(d, x->u.identifier.status, x->u.identifier.size, x->u.identifier.counter_id,
                 x->u.identifier.instance_id, x->u.identifier.index, x->u.identifier.reserved,
                 x->u.identifier.name.len, x->u.identifier.offset);
        break;
    case PCQ_S_DATA_HEADER:
        FP_WORDS(d, x->u.data.total_size, x->u.data.num_counters, x->u.data.perf_time_stamp,
                 x->u.data.perf_time_100nsec, x->u.data.perf_freq, x->u.data.system_time.year,
                 x->u.data.system_time.month, x->u.data.system_time.day, x->u.data.system_time.hour,
                 x->u.data.system_time.minute, x->u.data.system_time.second,
                 x->u.data.system_time.milliseconds, x->u.data.system_time.day_of_week);
        break;
    case PCQ_S_COUNTER_HEADER:
        FP_WORDS(d, x->u.block.status, x->u.block.type, x->u.block.size, x->u.block.reserved,
                 x->u.block.offset);
        break;
    case PCQ_S_MULTI_COUNTERS: FP_WORDS(d, x->u.multi.size, x->u.multi.count, x->u.multi.ids.len); break;
    case PCQ_S_COUNTER_ID: fp_w(d, x->u.id); break;
    case PCQ_S_MULTI_INSTANCES: FP_WORDS(d, x->u.instances.size, x->u.instances.count); break;
    case PCQ_S_DATA_INSTANCE:
        FP_WORDS(d, x->u.data_instance.size, x->u.data_instance.instance_id, x->u.data_instance.name.len,
                 x->u.data_instance.offset, x->u.data_instance.num_values, x->u.data_instance.values);
        break;
    case PCQ_S_COUNTER_DATA:
        FP_WORDS(d, x->u.value.data_size, x->u.value.size, x->u.value.data.len, x->u.value.u64,
                 (uint64_t)x->u.value.is_int, x->u.value.offset, x->u.value.counter_id);
        break;
    default: break;
    }
}

/* The digest of r, led by what it holds (a value never equals an item). */
static void fp_make(fp_dig *d, const fp_rec *r)
{
    const pcq_value *v = &r->it.u.value;
    d->n = 0;
    fp_w(d, (uint64_t)r->how);
    if (r->how == FP_VALUE) {
        FP_WORDS(d, v->offset, v->size, v->data_size, v->u64, v->counter_id);
        return;
    }
    fp_dig_place(d, &r->it, r->buf, r->len);
    if (r->how == FP_ITEM) fp_dig_union(d, &r->it);
}

static void *fp_grow(void *p, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap ? *cap : 64;
    if (need <= *cap) return p;
    while (c < need) c *= 2;
    p = realloc(p, c * size);
    FZ_CHECK(p != NULL, "out of memory");
    *cap = c;
    return p;
}

static fp_rec fp_rec_of(int how, const pcq_item *it, const uint8_t *buf, size_t len)
{
    fp_rec r;
    r.how = how;
    r.it = *it;
    r.buf = buf;
    r.len = len;
    r.at = r.n = 0;
    return r;
}

static void fp_add(fp_list *l, int how, const pcq_item *it, const uint8_t *buf, size_t len)
{
    fp_dig d;
    fp_rec *r;
    l->rec = (fp_rec *)fp_grow(l->rec, &l->cap, l->n + 1, sizeof *l->rec);
    r = &l->rec[l->n++];
    *r = fp_rec_of(how, it, buf, len);
    fp_make(&d, r);
    l->w = (uint64_t *)fp_grow(l->w, &l->capw, l->nw + d.n, sizeof *l->w);
    memcpy(l->w + l->nw, d.w, d.n * sizeof *d.w);
    r->at = l->nw;
    r->n = d.n;
    l->nw += d.n;
}

static void fp_put(fp_list *l, const pcq_item *it, const uint8_t *buf, size_t len)
{
    fp_add(l, FP_ITEM, it, buf, len);
}

/* A value as PCQ_BULK's pcq_item_values gives it, or as the walk's
 * COUNTER_DATA item holds it. */
static void fp_add_value(fp_list *l, const pcq_value *v)
{
    pcq_item it;
    memset(&it, 0, sizeof it);
    it.u.value = *v;
    fp_add(l, FP_VALUE, &it, NULL, 0);
}

/* Empties l and keeps its arrays: the lists are static and reused from
 * call to call (freed and grown again each time, the heap's pages came and
 * went: more time in page faults than in the checks). */
static void fp_clear(fp_list *l)
{
    l->n = l->nw = 0;
}

static int fp_same(const fp_list *a, size_t i, const fp_list *b, size_t j)
{
    const fp_rec *x = &a->rec[i], *y = &b->rec[j];
    return x->n == y->n && memcmp(a->w + x->at, b->w + y->at, x->n * sizeof *a->w) == 0;
}

/* ---- items as text, for a failure's message ------------------------------ */

/* One item as text: where it is and each field's value (texts and bytes by
 * place and length: both sides read the same buffer). */
static void fp_digest(const pcq_item *it, const uint8_t *buf, size_t len, char *out, size_t cap)
{
    const pcq_struct_info *s = pcq_struct_info_of(it->type);
    pcq_field_value v;
    size_t i, n;
    n = (size_t)snprintf(out, cap, "%s d%u i%" PRIu32 " @%zu +%zu ext%zu s%d c%d:%" PRIu32,
                         s ? s->name : "NONE", it->depth, it->index, it->offset, it->size, it->extent,
                         it->single, it->has_counter_id, it->has_counter_id ? it->counter_id : 0);
    for (i = 0; s && i < s->nfields && n < cap; i++) {
        int k = pcq_item_field(it, &s->fields[i], buf, len, &v);
        n += (size_t)snprintf(out + n, cap - n, " %s=%d:%" PRIu64 ":%" PRId64 ":%08" PRIx32 ":@%zu+%zu:%s",
                              s->fields[i].name, k, v.u, v.i, v.guid.data1, v.offset, v.bytes.len,
                              v.word ? v.word : "");
    }
}

/* What the item's union says (the typed view an API user reads). */
static size_t fp_union(const pcq_item *it, char *out, size_t cap)
{
    const pcq_item *x = it;
    if (it->partial) return 0;
    switch (it->type) {
    case PCQ_S_COUNTERSET_REG_INFO:
        return (size_t)snprintf(out, cap, " | %08" PRIx32 " %u %u %u %u", x->u.set.guid.data1,
                                x->u.set.counterset_type, x->u.set.detail_level, x->u.set.num_counters,
                                x->u.set.instance_type);
    case PCQ_S_COUNTER_REG_INFO:
        return (size_t)snprintf(out, cap, " | %u %x %" PRIx64 " %u %d %u %u %u %u %u %u",
                                x->u.counter.counter_id, x->u.counter.type, x->u.counter.attrib,
                                x->u.counter.detail_level, x->u.counter.default_scale,
                                x->u.counter.base_counter_id, x->u.counter.perf_time_id,
                                x->u.counter.perf_freq_id, x->u.counter.multi_id, x->u.counter.aggregate_func,
                                x->u.counter.reserved);
    case PCQ_S_STRING_BUFFER_HEADER:
        return (size_t)snprintf(out, cap, " | %u %u %d %zu", x->u.strings.size, x->u.strings.num_counters,
                                (int)x->u.strings.convention, x->u.strings.block.len);
    case PCQ_S_STRING_COUNTER_HEADER:
        return (size_t)snprintf(out, cap, " | %u %u %d %zu+%zu", x->u.entry.counter_id, x->u.entry.offset,
                                x->u.entry.present, x->u.entry.text_offset, x->u.entry.text.len);
    case PCQ_S_STRING: return (size_t)snprintf(out, cap, " | %zu", x->u.text.len);
    case PCQ_S_PROVIDER_GUID:
    case PCQ_S_COUNTERSET_GUID:
        return (size_t)snprintf(out, cap, " | %08" PRIx32 "-%04x-%04x-%02x%02x", x->u.guid.data1,
                                x->u.guid.data2, x->u.guid.data3, x->u.guid.data4[0], x->u.guid.data4[7]);
    case PCQ_S_INSTANCE:
        return (size_t)snprintf(out, cap, " | %u %u %zu %zu", x->u.instance.size, x->u.instance.instance_id,
                                x->u.instance.name.len, x->u.instance.offset);
    case PCQ_S_COUNTER_IDENTIFIER:
        return (size_t)snprintf(out, cap, " | %08" PRIx32 " %u %u %u %u %u %u %zu %zu",
                                x->u.identifier.guid.data1, x->u.identifier.status, x->u.identifier.size,
                                x->u.identifier.counter_id, x->u.identifier.instance_id,
                                x->u.identifier.index, x->u.identifier.reserved, x->u.identifier.name.len,
                                x->u.identifier.offset);
    case PCQ_S_DATA_HEADER:
        return (size_t)snprintf(out, cap,
                                " | %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %u-%u-%u %u:%u:%u.%u %u",
                                x->u.data.total_size, x->u.data.num_counters, x->u.data.perf_time_stamp,
                                x->u.data.perf_time_100nsec, x->u.data.perf_freq, x->u.data.system_time.year,
                                x->u.data.system_time.month, x->u.data.system_time.day,
                                x->u.data.system_time.hour, x->u.data.system_time.minute,
                                x->u.data.system_time.second, x->u.data.system_time.milliseconds,
                                x->u.data.system_time.day_of_week);
    case PCQ_S_COUNTER_HEADER:
        return (size_t)snprintf(out, cap, " | %u %u %u %u %zu", x->u.block.status, x->u.block.type,
                                x->u.block.size, x->u.block.reserved, x->u.block.offset);
    case PCQ_S_MULTI_COUNTERS:
        return (size_t)snprintf(out, cap, " | %u %u %zu", x->u.multi.size, x->u.multi.count,
                                x->u.multi.ids.len);
    case PCQ_S_COUNTER_ID: return (size_t)snprintf(out, cap, " | %u", x->u.id);
    case PCQ_S_MULTI_INSTANCES:
        return (size_t)snprintf(out, cap, " | %u %u", x->u.instances.size, x->u.instances.count);
    case PCQ_S_DATA_INSTANCE:
        return (size_t)snprintf(out, cap, " | %u %u %zu %zu %u %zu", x->u.data_instance.size,
                                x->u.data_instance.instance_id, x->u.data_instance.name.len,
                                x->u.data_instance.offset, x->u.data_instance.num_values,
                                x->u.data_instance.values);
    case PCQ_S_COUNTER_DATA:
        return (size_t)snprintf(out, cap, " | %u %u %zu %" PRIu64 " %d %zu", x->u.value.data_size,
                                x->u.value.size, x->u.value.data.len, x->u.value.u64, x->u.value.is_int,
                                x->u.value.offset);
    default: return 0;
    }
}

/* r as text: fp_digest, + fp_union for FP_ITEM. */
static const char *fp_text(const fp_rec *r, char *out, size_t cap)
{
    const pcq_value *v = &r->it.u.value;
    size_t n;
    if (r->how == FP_VALUE) {
        snprintf(out, cap, "value @%zu +%u ds%u %" PRIu64, v->offset, v->size, v->data_size, v->u64);
        return out;
    }
    fp_digest(&r->it, r->buf, r->len, out, cap);
    n = strlen(out);
    if (r->how == FP_ITEM) fp_union(&r->it, out + n, cap - n);
    return out;
}

/* The first word where the digests of a and b differ, named after fp_make's
 * order: the texts can agree where the digests do not (a GUID's middle
 * bytes, partial, a text cut at its buffer's end). */
static const char *fp_where(const fp_rec *a, const fp_rec *b, char *out, size_t cap)
{
    static const char *const place[] = {"what",   "type",   "depth",          "index",      "offset", "size",
                                        "extent", "single", "has_counter_id", "counter_id", "partial"};
    static const char *const member[] = {"kind",      "u",    "i",    "offset",
                                         "bytes.len", "word", "guid", "guid.data4"};
    static const char *const value[] = {"what", "offset", "size", "data_size", "u64"};
    const size_t np = sizeof place / sizeof place[0], nm = sizeof member / sizeof member[0];
    const pcq_struct_info *s = pcq_struct_info_of(a->it.type);
    size_t k = 0, nf = s && a->how != FP_VALUE ? s->nfields : 0;
    int n;
    fp_dig x, y;
    fp_make(&x, a);
    fp_make(&y, b);
    while (k < x.n && k < y.n && x.w[k] == y.w[k]) k++;
    if (k == x.n || k == y.n) {
        snprintf(out, cap, "the digests have %zu and %zu words", x.n, y.n);
        return out;
    }
    n = snprintf(out, cap, "the digests differ at word %zu, %#" PRIx64 " and %#" PRIx64 ": ", k, x.w[k],
                 y.w[k]);
    if (n < 0 || (size_t)n >= cap) return out;
    if (a->how == FP_VALUE)
        snprintf(out + n, cap - (size_t)n, "%s", k < 5 ? value[k] : "?");
    else if (k < np)
        snprintf(out + n, cap - (size_t)n, "%s", place[k]);
    else if (k < np + nm * nf)
        snprintf(out + n, cap - (size_t)n, "%s (%s)", s->fields[(k - np) / nm].name, member[(k - np) % nm]);
    else
        snprintf(out + n, cap - (size_t)n, "the union's word %zu", k - np - nm * nf);
    return out;
}

/* ---- (c) and the walk's items ------------------------------------------ */

typedef struct fp_diags {
    size_t n;
    pcq_diag d[FZ_MAX_DIAGS];
    size_t last;
    int order_broken;
} fp_diags;

static void fp_on_diag(void *ctx, const pcq_diag *d)
{
    fp_diags *ds = (fp_diags *)ctx;
    if (ds->n > 0 && d->offset < ds->last) ds->order_broken = 1;
    ds->last = d->offset;
    if (ds->n < FZ_MAX_DIAGS) ds->d[ds->n] = *d;
    ds->n++;
}

/* Every structure's variable part asked of the item: its own (when not
 * partial) is a view inside the input, another's is no field; read from
 * another member of the item's union it would be a view of anything. */
static void fp_variable_parts(pcq_kind kind, const pcq_item *it, const uint8_t *buf, size_t len)
{
    const pcq_struct_info *own = pcq_struct_info_of(it->type);
    int own_type = own && own->fields[own->nfields - 1].size == 0 ? own->fields[own->nfields - 1].type : 0;
    int t;
    for (t = PCQ_S_NONE + 1; t < PCQ_S_END_; t++) {
        const pcq_struct_info *s = pcq_struct_info_of(t);
        const pcq_field *f = &s->fields[s->nfields - 1];
        pcq_field_value v;
        int k;
        if (f->size != 0) continue;
        k = pcq_item_field(it, f, buf, len, &v);
        if (f->type != own_type || it->partial) {
            FZ_CHECK(k == PCQ_V_NONE, "%s: %s's %s asked of a %s gives kind %d", pcq_kind_name(kind), s->name,
                     f->name, own ? own->name : "NONE", k);
            continue;
        }
        FZ_CHECK(k != PCQ_V_NONE, "%s: no %s from its own %s", pcq_kind_name(kind), f->name, s->name);
        FZ_CHECK(v.bytes.len == 0 || (v.bytes.ptr >= buf && (size_t)(v.bytes.ptr - buf) <= len &&
                                      v.bytes.len <= len - (size_t)(v.bytes.ptr - buf)),
                 "%s: %s of a %s outside the input", pcq_kind_name(kind), f->name, own->name);
    }
}

/* Walks buf whole into l (may be NULL); the walk's error into *err. */
static int fp_walk(pcq_kind kind, const uint8_t *buf, size_t len, const pcq_opts *opts, fp_list *l,
                   pcq_error *err, pcq_item *last)
{
    pcq_walk w;
    pcq_item it;
    int rc;
    size_t n = 0;
    pcq_walk_begin(&w, kind, buf, len, opts);
    while ((rc = pcq_walk_next(&w, &it)) == 1) {
        FZ_CHECK(++n <= 2 * len + 8, "%s: the walk yields more items than bytes", pcq_kind_name(kind));
        FZ_CHECK(it.offset <= len && it.size <= len - it.offset, "%s: item at %zu + %zu outside %zu bytes",
                 pcq_kind_name(kind), it.offset, it.size, len);
        fp_variable_parts(kind, &it, buf, len);
        if (l) fp_put(l, &it, buf, len);
    }
    FZ_CHECK(rc <= 0 && pcq_walk_next(&w, &it) == rc, "%s: the walk does not stay at its end",
             pcq_kind_name(kind));
    if (last) *last = it;
    *err = w.err;
    return rc;
}

void fz_prop_decode_is_walk(pcq_kind kind, const uint8_t *buf, size_t len, int strict)
{
    static fp_diags dd, dw;
    pcq_opts od, ow;
    pcq_error ed, ew;
    int rd, rw;
    size_t i;
    memset(&od, 0, sizeof od);
    memset(&dd, 0, sizeof dd);
    memset(&dw, 0, sizeof dw);
    od.flags = strict ? PCQ_STRICT : 0u;
    od.on_diag = fp_on_diag;
    ow = od;
    od.ctx = &dd;
    ow.ctx = &dw;
    rd = pcq_validate(kind, buf, len, &od, &ed);
    rw = fp_walk(kind, buf, len, &ow, NULL, &ew, NULL);
    FZ_CHECK(rd == rw, "%s: decode says %s, the walk %s", pcq_kind_name(kind), pcq_status_name(rd),
             pcq_status_name(rw));
    if (rd < 0)
        FZ_CHECK(ed.code == ew.code && ed.offset == ew.offset && ed.what == ew.what,
                 "%s: decode blames %zu (%s), the walk %zu (%s)", pcq_kind_name(kind), ed.offset, ed.what,
                 ew.offset, ew.what);
    FZ_CHECK(dd.n == dw.n, "%s: %zu diagnostics from decode, %zu from the walk", pcq_kind_name(kind), dd.n,
             dw.n);
    for (i = 0; i < dd.n && i < FZ_MAX_DIAGS; i++)
        FZ_CHECK(dd.d[i].code == dw.d[i].code && dd.d[i].offset == dw.d[i].offset,
                 "%s: diagnostic %zu differs", pcq_kind_name(kind), i);
    FZ_CHECK(!dw.order_broken, "%s: diagnostics out of wire order", pcq_kind_name(kind));
    if (!strict) { /* no callback: decoders pass the instances the lean step takes, the same error */
        pcq_error en;
        int rn = pcq_validate(kind, buf, len, NULL, &en);
        FZ_CHECK(rn == rw, "%s: decode without diagnostics says %s, the walk %s", pcq_kind_name(kind),
                 pcq_status_name(rn), pcq_status_name(rw));
        if (rn < 0)
            FZ_CHECK(en.code == ew.code && en.offset == ew.offset && en.what == ew.what,
                     "%s: decode without diagnostics blames %zu (%s), the walk %zu (%s)", pcq_kind_name(kind),
                     en.offset, en.what, ew.offset, ew.what);
    }
}

/* ---- (a) the typed iterators, as items ---------------------------------- */

static pcq_item fp_item(int type, unsigned depth, uint32_t index, size_t offset, size_t size, size_t extent)
{
    pcq_item it;
    memset(&it, 0, sizeof it);
    it.type = type;
    it.depth = depth;
    it.index = index;
    it.offset = offset;
    it.size = size;
    it.extent = extent;
    return it;
}

static void fp_value_items(fp_list *l, const uint8_t *buf, size_t len, pcq_iter *vit, unsigned depth,
                           int single, const pcq_block *b)
{
    pcq_value v;
    pcq_item it;
    uint32_t j = 0;
    int rc;
    while ((rc = pcq_values_next(vit, &v)) == 1) {
        int has = b && (b->type == PCQ_PERF_MULTI_COUNTERS || b->type == PCQ_PERF_COUNTERSET);
        it = fp_item(PCQ_S_COUNTER_DATA, depth, single ? 0 : j, v.offset, v.size, v.size);
        it.single = single;
        FZ_CHECK(v.counter_id == (has ? pcq_block_counter_id(b, j) : 0u),
                 "value %u at %zu: counter id %u, its block's list says %u", j, v.offset, v.counter_id,
                 has ? pcq_block_counter_id(b, j) : 0u);
        if (has) {
            it.has_counter_id = 1;
            it.counter_id = pcq_block_counter_id(b, j);
        }
        it.u.value = v;
        fp_put(l, &it, buf, len);
        j++;
    }
    FZ_CHECK(rc == 0, "values iterator failed after a decode: %s", pcq_status_name(rc));
}

static void fp_block_items(fp_list *l, const pcq_data *d, const pcq_block *b)
{
    const uint8_t *buf = d->buf;
    size_t len = d->buf_len;
    pcq_item it;
    pcq_iter ii, vi;
    pcq_data_instance inst;
    uint32_t j;
    int rc;
    if (b->type == PCQ_PERF_SINGLE_COUNTER) {
        it = fp_item(PCQ_S_COUNTER_DATA, 2, 0, b->value.offset, b->value.size, b->value.size);
        it.single = 1;
        it.u.value = b->value;
        fp_put(l, &it, buf, len);
    }
    if (b->type == PCQ_PERF_MULTI_COUNTERS || b->type == PCQ_PERF_COUNTERSET) {
        it = fp_item(PCQ_S_MULTI_COUNTERS, 2, 0, b->multi_at, 8, b->multi_size);
        it.u.multi.size = b->multi_size;
        it.u.multi.count = b->num_counters;
        it.u.multi.ids = b->counter_ids;
        fp_put(l, &it, buf, len);
        for (j = 0; j < b->num_counters; j++) {
            it = fp_item(PCQ_S_COUNTER_ID, 3, j, b->multi_at + 8 + 4 * (size_t)j, 4, 4);
            it.u.id = pcq_block_counter_id(b, j);
            fp_put(l, &it, buf, len);
        }
    }
    if (b->type == PCQ_PERF_MULTI_COUNTERS) {
        pcq_block_values(d, b, &vi);
        fp_value_items(l, buf, len, &vi, 2, 0, b);
    }
    if (b->type != PCQ_PERF_MULTI_INSTANCES && b->type != PCQ_PERF_COUNTERSET) return;
    it = fp_item(PCQ_S_MULTI_INSTANCES, 2, 0, b->instances_at, 8, b->instances_size);
    it.u.instances.size = b->instances_size;
    it.u.instances.count = b->num_instances;
    fp_put(l, &it, buf, len);
    pcq_block_instances(d, b, &ii);
    for (j = 0; (rc = pcq_instances_of_block_next(&ii, &inst)) == 1; j++) {
        it = fp_item(PCQ_S_DATA_INSTANCE, 3, j, inst.offset, inst.size, inst.size);
        it.u.data_instance = inst;
        fp_put(l, &it, buf, len);
        pcq_instance_values(d, &inst, &vi);
        fp_value_items(l, buf, len, &vi, 4, b->type == PCQ_PERF_MULTI_INSTANCES, b);
    }
    FZ_CHECK(rc == 0, "instances iterator failed after a decode: %s", pcq_status_name(rc));
}

/* slow: the iterators' checking path even when the buffer is canonical. */
static void fp_data_items(fp_list *l, const uint8_t *buf, size_t len, int slow)
{
    pcq_data d;
    pcq_item it;
    pcq_iter bi;
    pcq_block b;
    uint32_t i;
    int rc;
    FZ_CHECK(pcq_decode_data(buf, len, NULL, &d, NULL) == PCQ_OK, "data decodes once, not twice");
    if (slow) d.flags = 0;
    it = fp_item(PCQ_S_DATA_HEADER, 0, 0, 0, 48, d.total_size);
    it.u.data = d;
    fp_put(l, &it, buf, len);
    pcq_data_blocks(&d, &bi);
    for (i = 0; (rc = pcq_blocks_next(&bi, &b)) == 1; i++) {
        it = fp_item(PCQ_S_COUNTER_HEADER, 1, i, b.offset, 16, b.size);
        it.u.block = b;
        fp_put(l, &it, buf, len);
        fp_block_items(l, &d, &b);
    }
    FZ_CHECK(rc == 0, "blocks iterator failed after a decode: %s", pcq_status_name(rc));
}

static void fp_array_items(fp_list *l, pcq_kind kind, const uint8_t *buf, size_t len)
{
    pcq_iter it;
    pcq_item x;
    pcq_instance inst;
    pcq_identifier id;
    uint32_t i = 0;
    int rc;
    if (kind == PCQ_KIND_INSTANCES) {
        pcq_instances_begin(buf, len, &it);
        while ((rc = pcq_instances_next(&it, &inst)) == 1) {
            x = fp_item(PCQ_S_INSTANCE, 0, i++, inst.offset, inst.size, inst.size);
            x.u.instance = inst;
            fp_put(l, &x, buf, len);
        }
    } else {
        pcq_identifiers_begin(buf, len, &it);
        while ((rc = pcq_identifiers_next(&it, &id)) == 1) {
            x = fp_item(PCQ_S_COUNTER_IDENTIFIER, 0, i++, id.offset, id.size, id.size);
            x.u.identifier = id;
            fp_put(l, &x, buf, len);
        }
    }
    FZ_CHECK(rc == 0, "%s iterator failed after a decode", pcq_kind_name(kind));
}

static void fp_info_items(fp_list *l, pcq_kind kind, const uint8_t *buf, size_t len)
{
    pcq_counterset_info csi;
    pcq_strings s;
    pcq_guid_array a;
    pcq_item it;
    uint32_t i;
    size_t k;
    if (kind == PCQ_KIND_COUNTERSET_INFO) {
        pcq_decode_counterset_info(buf, len, NULL, &csi, NULL);
        it = fp_item(PCQ_S_COUNTERSET_REG_INFO, 0, 0, 0, 32, 32 + csi.counters.len);
        it.u.set = csi.set;
        fp_put(l, &it, buf, len);
        for (i = 0; i < csi.set.num_counters; i++) {
            it = fp_item(PCQ_S_COUNTER_REG_INFO, 0, i, 32 + 48 * (size_t)i, 48, 48);
            FZ_CHECK(pcq_counterset_counter(&csi, i, &it.u.counter) == PCQ_OK, "counter %u", i);
            fp_put(l, &it, buf, len);
        }
    } else if (kind == PCQ_KIND_STRINGS) {
        pcq_decode_strings(buf, len, NULL, &s, NULL);
        it = fp_item(PCQ_S_STRING_BUFFER_HEADER, 0, 0, 0, 8, s.size);
        it.u.strings = s;
        fp_put(l, &it, buf, len);
        for (i = 0; i < s.num_counters; i++) {
            it = fp_item(PCQ_S_STRING_COUNTER_HEADER, 1, i, 8 + 8 * (size_t)i, 8, 8);
            FZ_CHECK(pcq_strings_get(&s, i, &it.u.entry) == PCQ_OK, "entry %u", i);
            if (!it.u.entry.present) it.u.entry.text.ptr = NULL;
            fp_put(l, &it, buf, len);
        }
    } else {
        pcq_decode_guids(buf, len, NULL, &a, NULL);
        for (k = 0; k < a.count; k++) {
            it = fp_item(PCQ_S_COUNTERSET_GUID, 0, (uint32_t)k, 16 * k, 16, 16);
            pcq_guids_get(&a, k, &it.u.guid);
            fp_put(l, &it, buf, len);
        }
    }
}

static void fp_single_items(fp_list *l, pcq_kind kind, const uint8_t *buf, size_t len)
{
    pcq_item it;
    pcq_bytes text;
    if (kind == PCQ_KIND_COUNTER_INFO) {
        it = fp_item(PCQ_S_COUNTER_REG_INFO, 0, 0, 0, 48, 48);
        pcq_decode_counter_info(buf, len, NULL, &it.u.counter, NULL);
    } else if (kind == PCQ_KIND_GUID) {
        it = fp_item(PCQ_S_PROVIDER_GUID, 0, 0, 0, 16, 16);
        pcq_decode_guid(buf, len, NULL, &it.u.guid, NULL);
    } else {
        pcq_decode_string(buf, len, NULL, &text, NULL);
        it = fp_item(PCQ_S_STRING, 0, 0, 0, text.len + 2, text.len + 2);
        it.u.text = text;
    }
    fp_put(l, &it, buf, len);
}

void fz_prop_iterators(pcq_kind kind, const uint8_t *buf, size_t len)
{
    static fp_list w, t, slow;
    pcq_error e;
    size_t i;
    char ta[2048], tb[2048], tw[256];
    fp_clear(&w);
    fp_clear(&t);
    if (pcq_validate(kind, buf, len, NULL, NULL) != PCQ_OK) return;
    FZ_CHECK(fp_walk(kind, buf, len, NULL, &w, &e, NULL) == 0, "walk fails where decode succeeds");
    switch (kind) {
    case PCQ_KIND_DATA: fp_data_items(&t, buf, len, 0); break;
    case PCQ_KIND_INSTANCES:
    case PCQ_KIND_IDENTIFIERS: fp_array_items(&t, kind, buf, len); break;
    case PCQ_KIND_COUNTERSET_INFO:
    case PCQ_KIND_STRINGS:
    case PCQ_KIND_GUIDS: fp_info_items(&t, kind, buf, len); break;
    default: fp_single_items(&t, kind, buf, len); break;
    }
    for (i = 0; i < w.n && i < t.n; i++)
        FZ_CHECK(fp_same(&w, i, &t, i), "%s item %zu: walk\n  %s\niterators\n  %s\n%s", pcq_kind_name(kind),
                 i, fp_text(&w.rec[i], ta, sizeof ta), fp_text(&t.rec[i], tb, sizeof tb),
                 fp_where(&w.rec[i], &t.rec[i], tw, sizeof tw));
    FZ_CHECK(w.n == t.n, "%s: the walk yields %zu items, the iterators %zu", pcq_kind_name(kind), w.n, t.n);
    if (kind == PCQ_KIND_DATA) { /* the fast path and the checking one give the same */
        fp_clear(&slow);
        fp_data_items(&slow, buf, len, 1);
        for (i = 0; i < slow.n && i < t.n; i++)
            FZ_CHECK(fp_same(&slow, i, &t, i), "data item %zu: checking iterators\n  %s\nfast\n  %s\n%s", i,
                     fp_text(&slow.rec[i], ta, sizeof ta), fp_text(&t.rec[i], tb, sizeof tb),
                     fp_where(&slow.rec[i], &t.rec[i], tw, sizeof tw));
        FZ_CHECK(slow.n == t.n, "data: %zu items checking, %zu fast", slow.n, t.n);
    }
}

/* ---- the batch readers --------------------------------------------------- */

/* pcq_values_read_u64, pcq_block_column_u64, pcq_block_columns_u64 and
 * pcq_block_rows_u64 read what the values iterator reads, on the fast path
 * and the checking one (slow: the pcq_data without its flags), small caps
 * too. */
void fz_prop_batch(const uint8_t *buf, size_t len)
{
    pcq_data d;
    pcq_iter bi, ii, vi;
    pcq_block b;
    pcq_data_instance in;
    pcq_value v;
    uint64_t *all = NULL, *rows = NULL, *col = NULL, got[3];
    size_t need, n, k, i, nc, ninst;
    int slow, rc;
    if (pcq_decode_data(buf, len, NULL, &d, NULL) != PCQ_OK) return;
    for (slow = 0; slow < 2; slow++) {
        if (slow) d.flags = 0;
        pcq_data_blocks(&d, &bi);
        while (pcq_blocks_next(&bi, &b) == 1) {
            if (b.type == PCQ_PERF_MULTI_COUNTERS || b.type == PCQ_PERF_SINGLE_COUNTER) {
                pcq_block_values(&d, &b, &vi);
                for (k = 0; (n = pcq_values_read_u64(&vi, got, 3)) > 0; k += n)
                    FZ_CHECK(n <= 3, "read %zu of 3", n);
                FZ_CHECK(k == (b.type == 1 ? 1u : b.num_counters), "block at %zu: %zu values read", b.offset,
                         k);
            }
            if (b.type == PCQ_PERF_ERROR_RETURN || b.type == PCQ_PERF_SINGLE_COUNTER) {
                FZ_CHECK(pcq_block_columns_u64(&d, &b, NULL, 0, &need) == PCQ_ERR_INVALID_ARG &&
                             pcq_block_rows_u64(&d, &b, NULL, 0, &need) == PCQ_ERR_INVALID_ARG,
                         "columns or rows of a type %u block", b.type);
                continue;
            }
            rc = pcq_block_columns_u64(&d, &b, NULL, 0, &need);
            nc = b.type == PCQ_PERF_MULTI_INSTANCES ? 1 : b.num_counters;
            ninst = b.type == PCQ_PERF_MULTI_COUNTERS ? 1 : b.num_instances;
            FZ_CHECK((need == 0 && rc == PCQ_OK) || (rc == PCQ_ERR_BUFFER_TOO_SMALL && need == nc * ninst),
                     "columns sizing: %s, %zu", pcq_status_name(rc), need);
            all = (uint64_t *)realloc(all, (need + 1) * sizeof *all);
            rows = (uint64_t *)realloc(rows, (need + 1) * sizeof *rows);
            col = (uint64_t *)realloc(col, (ninst + 1) * sizeof *col);
            FZ_CHECK(all && rows && col, "out of memory");
            FZ_CHECK(pcq_block_columns_u64(&d, &b, all, need, &n) == PCQ_OK && n == need, "columns: %zu", n);
            FZ_CHECK(pcq_block_rows_u64(&d, &b, rows, need, &n) == PCQ_OK && n == need, "rows: %zu", n);
            for (i = 0; i < ninst; i++) /* the same values, by instance */
                for (k = 0; k < nc; k++)
                    FZ_CHECK(rows[i * nc + k] == all[k * ninst + i],
                             "row %zu value %zu: %llu, by column %llu", i, k,
                             (unsigned long long)rows[i * nc + k], (unsigned long long)all[k * ninst + i]);
            if (b.type == PCQ_PERF_MULTI_COUNTERS) {
                pcq_block_values(&d, &b, &vi);
                for (k = 0; pcq_values_next(&vi, &v) == 1; k++)
                    FZ_CHECK(all[k] == v.u64, "type 2 column %zu: %llu, the iterator %llu", k,
                             (unsigned long long)all[k], (unsigned long long)v.u64);
                continue;
            }
            pcq_block_instances(&d, &b, &ii);
            for (i = 0; pcq_instances_of_block_next(&ii, &in) == 1; i++) {
                pcq_instance_values(&d, &in, &vi);
                for (k = 0; pcq_values_next(&vi, &v) == 1; k++)
                    FZ_CHECK(all[k * ninst + i] == v.u64,
                             "value %zu of instance %zu: %llu, the iterator %llu", k, i,
                             (unsigned long long)all[k * ninst + i], (unsigned long long)v.u64);
            }
            for (k = 0; k < nc && k < 4; k++) {
                FZ_CHECK(pcq_block_column_u64(&d, &b, (uint32_t)k, col, ninst, &n) == PCQ_OK && n == ninst,
                         "column %zu", k);
                for (i = 0; i < ninst; i++)
                    FZ_CHECK(col[i] == all[k * ninst + i], "column %zu row %zu", k, i);
            }
            FZ_CHECK(pcq_block_column_u64(&d, &b, (uint32_t)nc, col, ninst, &n) == PCQ_ERR_INVALID_ARG,
                     "column past the counters");
            if (ninst > 0 && nc > 0)
                FZ_CHECK(pcq_block_column_u64(&d, &b, 0, col, ninst - 1, &n) == PCQ_ERR_BUFFER_TOO_SMALL &&
                             n == ninst,
                         "column one short");
        }
    }
    free(all);
    free(rows);
    free(col);
}

/* ---- the fast path's promise, and PCQ_BULK ------------------------------- */

void fz_prop_canonical(const uint8_t *buf, size_t len)
{
    static fp_diags ds;
    pcq_opts o;
    pcq_data d;
    pcq_error e;
    int k;
    if (pcq_decode_data(buf, len, NULL, &d, NULL) != PCQ_OK || !(d.flags & PCQ_DATA_CANONICAL_)) return;
    for (k = 0; k < 2; k++) { /* the walk would find nothing, lenient or strict */
        memset(&o, 0, sizeof o);
        memset(&ds, 0, sizeof ds);
        o.flags = k ? PCQ_STRICT : 0u;
        o.on_diag = fp_on_diag;
        o.ctx = &ds;
        FZ_CHECK(fp_walk(PCQ_KIND_DATA, buf, len, &o, NULL, &e, NULL) == 0 && ds.n == 0,
                 "canonical data: the walk says %s with %zu diagnostics (the first %s at %zu)",
                 pcq_status_name(e.code), ds.n, ds.n ? pcq_diag_name(ds.d[0].code) : "-",
                 ds.n ? ds.d[0].offset : 0);
    }
}

/* A walk's items as digests, its diagnostics and end: once as they come,
 * once with PCQ_BULK, where every COUNTER_ID and COUNTER_DATA item is folded
 * into the item before it. The two must tell the same. */
typedef struct fp_run {
    fp_list items;
    fp_diags ds;
    int rc;
    pcq_error err;
    fp_rec last; /* the item the walk ends with (FP_PLACE) */
} fp_run;

static void fp_run_reset(fp_run *r)
{
    fp_list items = r->items;
    memset(r, 0, sizeof *r);
    r->items = items;
    fp_clear(&r->items);
}

static void fp_bulk_values(fp_list *l, const pcq_walk *w, const pcq_item *it, const uint8_t *buf)
{
    pcq_iter vi;
    pcq_value v;
    uint64_t u[3];
    uint32_t k = 0;
    size_t n;
    int rc;
    pcq_item_values(w, it, &vi);
    while ((rc = pcq_values_next(&vi, &v)) == 1) {
        fp_add_value(l, &v);
        k++;
    }
    FZ_CHECK(rc == 0 && k == it->nvalues, "PCQ_BULK: %u of %u values, then %s", k, it->nvalues,
             pcq_status_name(rc));
    (pcq_item_values)(w, it, &vi); /* the batch reader sees the same, the function's iterator too */
    for (k = 0; (n = pcq_values_read_u64(&vi, u, 3)) > 0; k += (uint32_t)n)
        FZ_CHECK(n <= 3, "pcq_values_read_u64 read %zu of 3", n);
    FZ_CHECK(k == it->nvalues, "pcq_values_read_u64: %u of %u values", k, it->nvalues);
    (void)buf;
}

static void fp_run_walk(fp_run *r, pcq_kind kind, const uint8_t *buf, size_t len, unsigned flags)
{
    pcq_walk w;
    pcq_item it;
    pcq_opts o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    o.on_diag = fp_on_diag;
    o.ctx = &r->ds;
    pcq_walk_begin(&w, kind, buf, len, &o);
    while ((r->rc = pcq_walk_next(&w, &it)) == 1) {
        if (it.type == PCQ_S_COUNTER_ID) continue; /* folded in bulk */
        if (it.type == PCQ_S_COUNTER_DATA && !(flags & PCQ_BULK)) {
            fp_add_value(&r->items, &it.u.value);
            continue;
        }
        FZ_CHECK(flags & PCQ_BULK || (it.nvalues == 0 && it.values == 0), "nvalues outside PCQ_BULK");
        FZ_CHECK(it.type != PCQ_S_COUNTER_DATA, "PCQ_BULK yields a COUNTER_DATA item");
        fp_add(&r->items, FP_PLACE, &it, buf, len);
        if (flags & PCQ_BULK) fp_bulk_values(&r->items, &w, &it, buf);
    }
    r->err = w.err;
    r->last = fp_rec_of(FP_PLACE, &it, buf, len);
}

/* Whether two records' digests are equal, made anew (not in a list). */
static int fp_same_rec(const fp_rec *a, const fp_rec *b)
{
    static fp_dig x, y;
    fp_make(&x, a);
    fp_make(&y, b);
    return x.n == y.n && memcmp(x.w, y.w, x.n * sizeof *x.w) == 0;
}

void fz_prop_bulk(pcq_kind kind, const uint8_t *buf, size_t len, int strict)
{
    static fp_run a, b;
    static char ta[2048], tb[2048], tw[256];
    size_t i;
    fp_run_reset(&a);
    fp_run_reset(&b);
    fp_run_walk(&a, kind, buf, len, strict ? PCQ_STRICT : 0u);
    fp_run_walk(&b, kind, buf, len, PCQ_BULK | (strict ? PCQ_STRICT : 0u));
    for (i = 0; i < a.items.n && i < b.items.n; i++)
        FZ_CHECK(fp_same(&a.items, i, &b.items, i), "%s item %zu: walk\n  %s\nPCQ_BULK\n  %s\n%s",
                 pcq_kind_name(kind), i, fp_text(&a.items.rec[i], ta, sizeof ta),
                 fp_text(&b.items.rec[i], tb, sizeof tb),
                 fp_where(&a.items.rec[i], &b.items.rec[i], tw, sizeof tw));
    FZ_CHECK(a.items.n == b.items.n, "%s: %zu items and values, %zu in bulk", pcq_kind_name(kind), a.items.n,
             b.items.n);
    FZ_CHECK(a.rc == b.rc && a.err.code == b.err.code && a.err.offset == b.err.offset &&
                 a.err.what == b.err.what,
             "%s: the walk ends %s at %zu, PCQ_BULK %s at %zu", pcq_kind_name(kind), pcq_status_name(a.rc),
             a.err.offset, pcq_status_name(b.rc), b.err.offset);
    FZ_CHECK(fp_same_rec(&a.last, &b.last), "%s: the cut item: walk\n  %s\nPCQ_BULK\n  %s\n%s",
             pcq_kind_name(kind), fp_text(&a.last, ta, sizeof ta), fp_text(&b.last, tb, sizeof tb),
             fp_where(&a.last, &b.last, tw, sizeof tw));
    FZ_CHECK(a.ds.n == b.ds.n, "%s: %zu diagnostics, %zu in bulk", pcq_kind_name(kind), a.ds.n, b.ds.n);
    for (i = 0; i < a.ds.n && i < FZ_MAX_DIAGS; i++)
        FZ_CHECK(a.ds.d[i].code == b.ds.d[i].code && a.ds.d[i].offset == b.ds.d[i].offset,
                 "%s: diagnostic %zu differs in bulk", pcq_kind_name(kind), i);
}

/* ---- (b) prefixes ------------------------------------------------------ */

/* Whether an item of the whole buffer lies wholly inside its first cut
 * bytes. A string block's header and entries mean nothing without the whole
 * block (their dwOffset convention, D4). */
static int fp_inside(const pcq_item *it, const uint8_t *buf, size_t cut)
{
    if (it->offset > cut || it->size > cut - it->offset) return 0;
    if (it->type == PCQ_S_STRING_COUNTER_HEADER || it->type == PCQ_S_STRING_BUFFER_HEADER)
        return ((size_t)buf[0] | (size_t)buf[1] << 8 | (size_t)buf[2] << 16 | (size_t)buf[3] << 24) <= cut;
    return 1;
}

void fz_prop_prefixes(pcq_kind kind, const uint8_t *buf, size_t len, size_t step)
{
    static fp_list full, part;
    pcq_item last;
    pcq_error e;
    size_t cut, i, want;
    int rc;
    char ta[2048], tb[2048], tw[256];
    if (pcq_validate(kind, buf, len, NULL, NULL) != PCQ_OK) return;
    fp_clear(&full);
    /* the whole buffer's items, digested once for every cut */
    fp_walk(kind, buf, len, NULL, &full, &e, NULL);
    for (cut = 0; cut < len; cut += step ? step : 1) {
        fp_clear(&part);
        rc = fp_walk(kind, buf, cut, NULL, &part, &e, &last);
        for (i = 0, want = 0; i < full.n; i++) {
            if (!fp_inside(&full.rec[i].it, buf, cut)) continue;
            FZ_CHECK(want < part.n && fp_same(&full, i, &part, want),
                     "%s prefix %zu of %zu: item %zu of the whole buffer\n  %s\nnot yielded as such (%s)%s%s",
                     pcq_kind_name(kind), cut, len, i, fp_text(&full.rec[i], ta, sizeof ta),
                     want < part.n ? fp_text(&part.rec[want], tb, sizeof tb) : "nothing",
                     want < part.n ? "\n" : "",
                     want < part.n ? fp_where(&full.rec[i], &part.rec[want], tw, sizeof tw) : "");
            want++;
        }
        FZ_CHECK(part.n == want, "%s prefix %zu of %zu: %zu items, expected %zu", pcq_kind_name(kind), cut,
                 len, part.n, want);
        if (rc == 0)
            FZ_CHECK(pcq_validate(kind, buf, cut, NULL, NULL) == PCQ_OK, "%s prefix %zu: walk OK, decode not",
                     pcq_kind_name(kind), cut);
        else
            FZ_CHECK(rc < 0 && (cut == 0 ? e.offset == 0 : e.offset < cut),
                     "%s prefix %zu: %s at %zu, outside the prefix", pcq_kind_name(kind), cut,
                     pcq_status_name(rc), e.offset);
    }
}

/* ---- the typed iterators on bytes that were not validated ---------------- */
/* They check what they read but not what they step over: whatever comes,
 * each step stays inside the input, ends, and an error names an offset in
 * the input. A pcq_data is made by hand from the header's first fields, as a
 * caller who skipped pcq_decode_data would. */

static void fp_in(const char *what, const uint8_t *buf, size_t len, const uint8_t *p, size_t n)
{
    FZ_CHECK(n == 0 || (p >= buf && (size_t)(p - buf) <= len && n <= len - (size_t)(p - buf)),
             "%s: a view outside the input", what);
}

static void fp_err(const char *what, int rc, const pcq_error *e, size_t len)
{
    FZ_CHECK(rc <= 1, "%s: next() returned %d", what, rc);
    if (rc < 0)
        FZ_CHECK(e->code == rc && (len == 0 || e->offset < len), "%s: %s at %zu of %zu", what,
                 pcq_status_name(rc), e->offset, len);
}

static void fp_values_any(const uint8_t *buf, size_t len, pcq_iter *vi)
{
    pcq_value v;
    size_t n = 0;
    int rc;
    while ((rc = pcq_values_next(vi, &v)) == 1) {
        fp_in("value", buf, len, v.data.ptr, v.data.len);
        FZ_CHECK(++n <= len / 8, "more values than bytes");
    }
    fp_err("values", rc, &vi->err, len);
}

void fz_prop_iterators_unvalidated(pcq_kind kind, const uint8_t *buf, size_t len)
{
    pcq_iter it, ii, vi;
    pcq_instance inst;
    pcq_identifier id;
    pcq_data d;
    pcq_block b;
    pcq_data_instance di;
    size_t n = 0, k;
    int rc, r2;
    if (kind == PCQ_KIND_INSTANCES || kind == PCQ_KIND_IDENTIFIERS) {
        if (kind == PCQ_KIND_INSTANCES)
            pcq_instances_begin(buf, len, &it);
        else
            pcq_identifiers_begin(buf, len, &it);
        while ((rc = kind == PCQ_KIND_INSTANCES ? pcq_instances_next(&it, &inst)
                                                : pcq_identifiers_next(&it, &id)) == 1) {
            if (kind == PCQ_KIND_INSTANCES)
                fp_in("instance name", buf, len, inst.name.ptr, inst.name.len);
            else
                fp_in("identifier name", buf, len, id.name.ptr, id.name.len);
            FZ_CHECK(++n <= len / 8, "more items than bytes");
        }
        fp_err(pcq_kind_name(kind), rc, &it.err, len);
        return;
    }
    if (kind != PCQ_KIND_DATA || len < 48) return;
    memset(&d, 0, sizeof d);
    d.total_size = fz_le32(buf);
    d.num_counters = fz_le32(buf + 4);
    if (d.total_size > len) d.total_size = (uint32_t)len; /* a caller would at least do this */
    if (d.total_size < 48) d.total_size = 48;
    d.buf = buf;
    d.buf_len = len;
    pcq_data_blocks(&d, &it);
    while ((rc = pcq_blocks_next(&it, &b)) == 1) {
        FZ_CHECK(++n <= len / 16, "more blocks than bytes");
        fp_in("counter ids", buf, len, b.counter_ids.ptr, b.counter_ids.len);
        pcq_block_values(&d, &b, &vi);
        fp_values_any(buf, len, &vi);
        pcq_block_instances(&d, &b, &ii);
        for (k = 0; (r2 = pcq_instances_of_block_next(&ii, &di)) == 1; k++) {
            FZ_CHECK(k <= len / 10, "more instances than bytes");
            fp_in("instance name", buf, len, di.name.ptr, di.name.len);
            /* even an empty name points into the input: the header's steps tell the
             * compiler so (PCQ_NONNULL_), the function's results included */
            FZ_CHECK(di.name.ptr == buf + di.offset + 8, "instance at %zu: its name not after its header",
                     di.offset);
            pcq_instance_values(&d, &di, &vi);
            fp_values_any(buf, len, &vi);
        }
        fp_err("instances", r2, &ii.err, len);
    }
    fp_err("blocks", rc, &it.err, len);
}
