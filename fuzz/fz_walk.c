/* SPDX-License-Identifier: MIT */
/*
 * fz_walk.c - fz_walk: every kind decoded, then walked with the typed
 * iterators, each field checked against the bytes (fz_internal.h).
 */
#include "fz_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* the walk, kind by kind                                                    */
/* ------------------------------------------------------------------------ */
static int walk_counterset(fz_ctx *w, const pcq_opts *o, pcq_error *e)
{
    const uint8_t *b = w->buf;
    pcq_counterset_info csi;
    pcq_counter_reg c, c2;
    pcq_guid g;
    uint32_t i, n;
    int rc = pcq_decode_counterset_info(b, w->len, o, &csi, e);
    if (rc) return rc;
    FZ_CHECK(w->len >= 32, "counterset-info accepted in %zu bytes", w->len);
    fz_read_guid(b, &g);
    n = csi.set.num_counters;
    FZ_CHECK(fz_guid_eq(&g, &csi.set.guid) && csi.set.counterset_type == fz_le32(b + 16) &&
                 csi.set.detail_level == fz_le32(b + 20) && n == fz_le32(b + 24) &&
                 csi.set.instance_type == fz_le32(b + 28),
             "_PERF_COUNTERSET_REG_INFO: a field differs from its bytes");
    FZ_CHECK(n <= PCQ_MAX_COUNTERS, "NumCounters %u above the cap", n);
    FZ_CHECK(csi.counters_offset == 32 && csi.counters.ptr == b + 32, "counters not at offset 32");
    FZ_CHECK(csi.counters.len == (size_t)n * 48, "counters view of %zu bytes for %u counters",
             csi.counters.len, n);
    fz_check_view_in(w, "counters", csi.counters.ptr, csi.counters.len, 32, w->len);
    FZ_CHECK(w->len - 32 - csi.counters.len < 48,
             "room for another counter after NumCounters = %u (%zu bytes)", n, w->len);
    fz_check_guid_text(&csi.set.guid);
    fz_check_instance_type_name(csi.set.instance_type);
    fz_rec_cset(w->rec, &csi.set);
    fz_rec_lay(w->rec, w->len - 32 - csi.counters.len);
    for (i = 0; i < n; i++) {
        size_t at = 32 + (size_t)i * 48;
        FZ_CHECK(pcq_counterset_counter(&csi, i, &c) == PCQ_OK, "counter %u of %u refused", i, n);
        fz_check_creg_bytes(&c, b + at, at);
        fz_check_creg_names(&c);
        /* The same 48 bytes as a counter-info buffer. */
        FZ_CHECK(pcq_decode_counter_info(b + at, 48, NULL, &c2, NULL) == PCQ_OK,
                 "counter %u does not decode as counter-info", i);
        fz_check_creg_bytes(&c2, b + at, at);
        fz_rec_creg(w->rec, &c);
    }
    FZ_CHECK(pcq_counterset_counter(&csi, n, &c) == PCQ_ERR_INVALID_ARG,
             "pcq_counterset_counter(%u) of %u counters accepted", n, n);
    return PCQ_OK;
}

static int walk_counter_info(fz_ctx *w, const pcq_opts *o, pcq_error *e)
{
    pcq_counter_reg c;
    int rc = pcq_decode_counter_info(w->buf, w->len, o, &c, e);
    if (rc) return rc;
    FZ_CHECK(w->len >= 48, "counter-info accepted in %zu bytes", w->len);
    fz_check_creg_bytes(&c, w->buf, 0);
    fz_check_creg_names(&c);
    fz_rec_creg(w->rec, &c);
    fz_rec_lay(w->rec, w->len);
    return PCQ_OK;
}

/* docs/decisions.md D4, worked out here on its own: a reading of dwOffset
 * (from `base`) holds when every present string starts in the string area,
 * has its NUL before dwSize, and the last one ends within 8 bytes of dwSize. */
static int reading_holds(const uint8_t *b, size_t size, uint32_t n, size_t base, size_t *min_start)
{
    size_t heads = 8 + (size_t)n * 8, end = heads, start, p;
    uint32_t i, off;
    *min_start = (size_t)-1;
    for (i = 0; i < n; i++) {
        off = fz_le32(b + 8 + (size_t)i * 8 + 4);
        if (off == PCQ_STRING_ABSENT) continue;
        if (off >= size - base) return 0;
        start = base + off;
        if (start < heads) return 0;
        for (p = start; size - p >= 2 && (b[p] || b[p + 1]); p += 2) {}
        if (size - p < 2) return 0;
        if (p + 2 > end) end = p + 2;
        if (start < *min_start) *min_start = start;
    }
    return size - end < 8;
}

/* The convention a block that decodes must have been given. */
static pcq_str_convention expected_convention(const uint8_t *b, size_t size, uint32_t n, uint32_t min)
{
    size_t heads = 8 + (size_t)n * 8, mw, ms;
    int w = reading_holds(b, size, n, 0, &mw), sp = reading_holds(b, size, n, heads, &ms);
    if (min == PCQ_STRING_ABSENT) return PCQ_STROFF_NONE;
    FZ_CHECK(w || sp, "a string block decodes that neither reading of dwOffset explains");
    if (w && sp) return ms == heads && mw != heads ? PCQ_STROFF_SPEC : PCQ_STROFF_WIN32;
    return w ? PCQ_STROFF_WIN32 : PCQ_STROFF_SPEC;
}

static int walk_strings(fz_ctx *w, const pcq_opts *o, pcq_error *e)
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
            FZ_CHECK(b[p] != 0 || b[p + 1] != 0,
                     "NO_NUL for the string at %zu, but a NUL is "
                     "at %zu",
                     e->offset, p);
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
    conv = expected_convention(b, s.size, n, min);
    FZ_CHECK(s.convention == conv, "convention %d, expected %d (smallest dwOffset %u)", (int)s.convention,
             (int)conv, min);
    base = conv == PCQ_STROFF_SPEC ? heads : 0;
    fz_rec_u(w->rec, n);
    fz_rec_u(w->rec, (uint64_t)conv);
    fz_rec_lay(w->rec, s.size);
    for (i = 0; i < n; i++) {
        size_t at = 8 + (size_t)i * 8;
        FZ_CHECK(pcq_strings_get(&s, i, &ent) == PCQ_OK, "string %u of %u refused", i, n);
        FZ_CHECK(ent.counter_id == fz_le32(b + at) && ent.offset == fz_le32(b + at + 4),
                 "_STRING_COUNTER_HEADER %u differs from its bytes", i);
        FZ_CHECK(ent.present == (ent.offset != PCQ_STRING_ABSENT), "string %u: present = %d", i, ent.present);
        fz_rec_u(w->rec, ent.counter_id);
        fz_rec_u(w->rec, (uint64_t)ent.present);
        fz_rec_lay(w->rec, ent.offset);
        if (!ent.present) {
            FZ_CHECK(ent.text.ptr == NULL && ent.text.len == 0 && ent.text_offset == 0,
                     "absent string %u has a text", i);
            continue;
        }
        FZ_CHECK(ent.text_offset == base + ent.offset, "string %u at %zu, expected %zu + dwOffset %u", i,
                 ent.text_offset, base, ent.offset);
        /* Inside the block, after the header array. */
        fz_check_name(w, "counter string", &ent.text, ent.text_offset, base, s.size);
        FZ_CHECK(ent.text_offset >= heads, "string %u inside the header array", i);
        fz_rec_bytes(w->rec, ent.text.ptr, ent.text.len);
    }
    FZ_CHECK(pcq_strings_get(&s, n, &ent) == PCQ_ERR_INVALID_ARG, "pcq_strings_get(%u) of %u accepted", n, n);
    return PCQ_OK;
}

static int walk_string(fz_ctx *w, const pcq_opts *o, pcq_error *e)
{
    pcq_bytes t;
    int rc = pcq_decode_string(w->buf, w->len, o, &t, e);
    if (rc) return rc;
    fz_check_name(w, "string", &t, 0, 0, w->len);
    fz_rec_bytes(w->rec, t.ptr, t.len);
    fz_rec_lay(w->rec, w->len);
    return PCQ_OK;
}

static int walk_guid(fz_ctx *w, const pcq_opts *o, pcq_error *e)
{
    pcq_guid g, r;
    int rc = pcq_decode_guid(w->buf, w->len, o, &g, e);
    if (rc) return rc;
    FZ_CHECK(w->len >= 16, "guid accepted in %zu bytes", w->len);
    fz_read_guid(w->buf, &r);
    FZ_CHECK(fz_guid_eq(&g, &r), "GUID differs from its bytes");
    fz_check_guid_text(&g);
    fz_rec_guid(w->rec, &g);
    fz_rec_lay(w->rec, w->len);
    return PCQ_OK;
}

static int walk_guids(fz_ctx *w, const pcq_opts *o, pcq_error *e)
{
    pcq_guid_array a;
    pcq_guid g, r;
    size_t i;
    int rc = pcq_decode_guids(w->buf, w->len, o, &a, e);
    if (rc) return rc;
    FZ_CHECK(w->len % 16 == 0, "guids accepted in %zu bytes", w->len);
    FZ_CHECK(a.ptr == w->buf && a.count == w->len / 16, "%zu GUIDs in %zu bytes", a.count, w->len);
    fz_rec_u(w->rec, a.count);
    for (i = 0; i < a.count; i++) {
        FZ_CHECK(pcq_guids_get(&a, i, &g) == PCQ_OK, "GUID %zu of %zu refused", i, a.count);
        fz_read_guid(w->buf + i * 16, &r);
        FZ_CHECK(fz_guid_eq(&g, &r), "GUID %zu differs from its bytes", i);
        pcq_guid_read(w->buf + i * 16, &r);
        FZ_CHECK(fz_guid_eq(&g, &r), "pcq_guid_read differs for GUID %zu", i);
        fz_rec_guid(w->rec, &g);
    }
    FZ_CHECK(pcq_guids_get(&a, a.count, &g) == PCQ_ERR_INVALID_ARG, "pcq_guids_get(%zu) of %zu accepted",
             a.count, a.count);
    return PCQ_OK;
}

/* instances and identifiers: a decode, then a plain walk with the iterator.
 * The iterator meets the same items and, without diagnostics, the same error. */
static int walk_named_array(fz_ctx *w, const pcq_opts *o, pcq_error *e, int ids)
{
    const uint8_t *b = w->buf;
    const size_t hdr = ids ? 40 : 8;
    const char *kind = ids ? "identifiers" : "instances";
    size_t count = (size_t)-1, pos = 0, k = 0;
    pcq_iter it;
    int rc, r;

    rc = ids ? pcq_decode_identifiers(b, w->len, o, &count, e)
             : pcq_decode_instances(b, w->len, o, &count, e);
    if (ids)
        pcq_identifiers_begin(b, w->len, &it);
    else
        pcq_instances_begin(b, w->len, &it);
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
        FZ_CHECK((ids ? id.offset : in.offset) == pos, "%s: item %zu at %zu, expected %zu", kind, k,
                 ids ? id.offset : in.offset, pos);
        FZ_CHECK(hdr <= w->len - pos, "%s: item %zu header past the end", kind, k);
        size = fz_le32(b + pos + (ids ? 20 : 0));
        FZ_CHECK((ids ? id.size : in.size) == size, "%s: item %zu size differs", kind, k);
        FZ_CHECK(size >= hdr && size <= w->len - pos, "%s: item %zu of size %u at %zu accepted", kind, k,
                 size, pos);
        if (ids) {
            pcq_guid g;
            fz_read_guid(b + pos, &g);
            FZ_CHECK(fz_guid_eq(&g, &id.guid) && id.status == fz_le32(b + pos + 16) &&
                         id.counter_id == fz_le32(b + pos + 24) && id.instance_id == fz_le32(b + pos + 28) &&
                         id.index == fz_le32(b + pos + 32) && id.reserved == fz_le32(b + pos + 36),
                     "identifier %zu: a field differs from its bytes", k);
            name = id.name;
            fz_check_status_name(id.status);
            fz_rec_ident(w->rec, &id);
        } else {
            FZ_CHECK(in.instance_id == fz_le32(b + pos + 4), "instance %zu: id differs", k);
            name = in.name;
            fz_rec_u(w->rec, in.instance_id);
            fz_rec_bytes(w->rec, in.name.ptr, in.name.len);
        }
        fz_rec_lay(w->rec, size);
        fz_check_name(w, ids ? "identifier name" : "instance name", &name, pos + hdr, pos + hdr, pos + size);
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
        fz_check_error(kind, r, &it.err, w->len, NULL);
        /* A failed iterator keeps its first error. */
        FZ_CHECK((ids ? pcq_identifiers_next(&it, &id) : pcq_instances_next(&it, &in)) == r,
                 "%s: next() after %s returns something else", kind, pcq_status_name(r));
        fz_same_error("first next()", &first, "next() again", &it.err);
    }
    fz_rec_u(w->rec, k);
    if (rc == PCQ_OK) {
        FZ_CHECK(r == 0, "%s: decoded, then the iterator failed with %s at %zu", kind, pcq_status_name(r),
                 it.err.offset);
        FZ_CHECK(count == k, "%s: decode counted %zu, the iterator met %zu", kind, count, k);
    } else if (rc != PCQ_ERR_NONCONFORMANT) {
        pcq_error ie = it.err;
        FZ_CHECK(r == rc, "%s: decode says %s, the iterator %d", kind, pcq_status_name(rc), r);
        fz_same_error("decode", e, "iterator", &ie);
    } else {
        FZ_CHECK(fz_is_strict(o), "%s: PCQ_ERR_NONCONFORMANT in lenient mode", kind);
    }
    return rc;
}

/* ---- data ---- */
typedef struct dwalk {
    fz_ctx *w;
    const pcq_data *d;
} dwalk;

/* One _PERF_COUNTER_DATA expected at `at` inside [at, end). */
static void check_value(const fz_ctx *w, const pcq_value *v, size_t at, size_t end, const char *ctx)
{
    const uint8_t *b = w->buf;
    FZ_CHECK(v->offset == at, "%s: value at %zu, expected %zu", ctx, v->offset, at);
    FZ_CHECK(end - at >= 8, "%s: value header at %zu past its container end %zu", ctx, at, end);
    FZ_CHECK(v->data_size == fz_le32(b + at) && v->size == fz_le32(b + at + 4),
             "%s: value at %zu: sizes differ from the bytes", ctx, at);
    FZ_CHECK(v->size >= 8 && v->size <= end - at, "%s: value dwSize %u at %zu, container ends %zu", ctx,
             v->size, at, end);
    FZ_CHECK(v->data_size <= v->size - 8, "%s: dwDataSize %u in dwSize %u", ctx, v->data_size, v->size);
    FZ_CHECK(v->data.ptr == b + at + 8 && v->data.len == v->data_size,
             "%s: value view is not the dwDataSize bytes after the header", ctx);
    fz_check_view_in(w, "value", v->data.ptr, v->data.len, at, at + v->size);
    FZ_CHECK(v->is_int == (v->data_size == 4 || v->data_size == 8), "%s: is_int = %d for %u bytes", ctx,
             v->is_int, v->data_size);
    FZ_CHECK(v->u64 == (v->data_size == 8   ? fz_le64(v->data.ptr)
                        : v->data_size == 4 ? fz_le32(v->data.ptr)
                                            : 0),
             "%s: u64 differs from the value bytes", ctx);
    fz_rec_bytes(w->rec, v->data.ptr, v->data.len);
    fz_rec_lay(w->rec, v->size);
}

/* The values of a counted sequence, from `start` to where they end; returns
 * that end. `count` items expected. */
static size_t walk_values(const fz_ctx *w, pcq_iter *it, size_t start, size_t end, uint32_t count,
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
    const fz_ctx *w = dw->w;
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
        FZ_CHECK(in.size >= 8 && in.size <= end - pos, "block instance %u: Size %u at %zu in [.., %zu)", k,
                 in.size, pos, end);
        fz_check_name(w, "block instance name", &in.name, pos + 8, pos + 8, pos + in.size);
        FZ_CHECK(in.num_values == nvalues, "block instance %u: %u values, expected %u", k, in.num_values,
                 nvalues);
        FZ_CHECK(in.values == pos + in.size && in.values_end >= in.values && in.values_end <= end,
                 "block instance %u: values [%zu, %zu) outside [%zu, %zu)", k, in.values, in.values_end,
                 pos + in.size, end);
        fz_rec_u(w->rec, in.instance_id);
        fz_rec_bytes(w->rec, in.name.ptr, in.name.len);
        fz_rec_lay(w->rec, in.size);
        pcq_instance_values(dw->d, &in, &vit);
        vend = walk_values(w, &vit, in.values, in.values_end, nvalues, "instance values");
        FZ_CHECK(vend == in.values_end, "block instance %u: values end at %zu, reported %zu", k, vend,
                 in.values_end);
        if (blk->type == PCQ_PERF_MULTI_INSTANCES)
            FZ_CHECK(in.value.offset == in.values && in.value.size == fz_le32(b + in.values + 4),
                     "block instance %u: its value is not the one after it", k);
        pos = in.values_end;
        k++;
    }
    FZ_CHECK(r == 0,
             "block at %zu: instance iterator failed with %s at %zu after a successful "
             "decode",
             blk->offset, pcq_status_name(r), it.err.offset);
    FZ_CHECK(k == blk->num_instances, "block at %zu: %u instances iterated, dwInstances %u", blk->offset, k,
             blk->num_instances);
    FZ_CHECK(end - pos < 8, "block at %zu: %zu unused bytes after the instances", blk->offset, end - pos);
}

/* _PERF_MULTI_COUNTERS at `at` inside the block ending at `end`; returns its end. */
static size_t check_multi_counters(const fz_ctx *w, const pcq_block *blk, size_t at, size_t end)
{
    const uint8_t *b = w->buf;
    uint32_t i;
    FZ_CHECK(end - at >= 8, "block at %zu: _PERF_MULTI_COUNTERS past the block", blk->offset);
    FZ_CHECK(blk->multi_size == fz_le32(b + at) && blk->num_counters == fz_le32(b + at + 4),
             "block at %zu: _PERF_MULTI_COUNTERS differs from its bytes", blk->offset);
    FZ_CHECK(blk->multi_size >= 8 && blk->multi_size <= end - at,
             "block at %zu: _PERF_MULTI_COUNTERS.dwSize %u leaves the block", blk->offset, blk->multi_size);
    FZ_CHECK(blk->num_counters <= (blk->multi_size - 8) / 4 && blk->num_counters <= PCQ_MAX_COUNTERS,
             "block at %zu: %u ids in dwSize %u", blk->offset, blk->num_counters, blk->multi_size);
    FZ_CHECK(blk->counter_ids.ptr == b + at + 8 && blk->counter_ids.len == (size_t)blk->num_counters * 4,
             "block at %zu: counter id view", blk->offset);
    fz_check_view_in(w, "counter ids", blk->counter_ids.ptr, blk->counter_ids.len, at, at + blk->multi_size);
    fz_rec_u(w->rec, blk->num_counters);
    fz_rec_lay(w->rec, blk->multi_size);
    for (i = 0; i < blk->num_counters; i++) {
        uint32_t id = pcq_block_counter_id(blk, i);
        FZ_CHECK(id == fz_le32(b + at + 8 + (size_t)i * 4), "block at %zu: counter id %u differs",
                 blk->offset, i);
        fz_rec_u(w->rec, id);
    }
    FZ_CHECK(pcq_block_counter_id(blk, blk->num_counters) == 0,
             "pcq_block_counter_id past the count is not 0");
    return at + blk->multi_size;
}

/* _PERF_MULTI_INSTANCES at `at`; returns its end. */
static size_t check_multi_instances(const fz_ctx *w, const pcq_block *blk, size_t at, size_t end)
{
    const uint8_t *b = w->buf;
    FZ_CHECK(end - at >= 8, "block at %zu: _PERF_MULTI_INSTANCES past the block", blk->offset);
    FZ_CHECK(blk->instances_size == fz_le32(b + at) && blk->num_instances == fz_le32(b + at + 4),
             "block at %zu: _PERF_MULTI_INSTANCES differs from its bytes", blk->offset);
    FZ_CHECK(blk->instances_size >= 8 && blk->instances_size <= end - at,
             "block at %zu: dwTotalSize %u leaves the block", blk->offset, blk->instances_size);
    FZ_CHECK(blk->num_instances <= PCQ_MAX_INSTANCES, "dwInstances above the cap");
    fz_rec_u(w->rec, blk->num_instances);
    fz_rec_lay(w->rec, blk->instances_size);
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
    memset(&v, 0, sizeof v); /* written only when next() returns 1 */
    pcq_block_values(d, blk, &it);
    if (blk->type == PCQ_PERF_SINGLE_COUNTER) {
        r = pcq_values_next(&it, &v);
        FZ_CHECK(r == 1 && v.offset == blk->value.offset && v.size == blk->value.size &&
                     v.data_size == blk->value.data_size && v.data.ptr == blk->value.data.ptr &&
                     v.u64 == blk->value.u64,
                 "pcq_block_values on the type 1 block at %zu: %s at %zu, not its value at %zu", blk->offset,
                 pcq_status_name(r), r < 0 ? it.err.offset : v.offset, blk->value.offset);
    }
    r = pcq_values_next(&it, &v);
    FZ_CHECK(r == 0,
             "pcq_block_values on a type %u block at %zu: %s at %zu after a successful "
             "decode",
             blk->type, blk->offset, r == 1 ? "a value" : pcq_status_name(r),
             r == 1 ? v.offset : it.err.offset);
}

static int walk_data(fz_ctx *w, const pcq_opts *o, pcq_error *e)
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
                 d.system_time.month == fz_le16(b + 34) && d.system_time.day_of_week == fz_le16(b + 36) &&
                 d.system_time.day == fz_le16(b + 38) && d.system_time.hour == fz_le16(b + 40) &&
                 d.system_time.minute == fz_le16(b + 42) && d.system_time.second == fz_le16(b + 44) &&
                 d.system_time.milliseconds == fz_le16(b + 46),
             "_PERF_DATA_HEADER: a field differs from its bytes");
    FZ_CHECK(d.total_size >= 48 && d.total_size <= w->len, "dwTotalSize %u for %zu bytes", d.total_size,
             w->len);
    FZ_CHECK(d.num_counters <= PCQ_MAX_COUNTERS, "dwNumCounter above the cap");
    FZ_CHECK(d.buf == b && d.buf_len == w->len, "pcq_data does not name the input");
    fz_rec_data_header(w->rec, &d);
    fz_rec_lay(w->rec, d.total_size);
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
                 "block %u: dwSize %u at %zu leaves dwTotalSize %u", k, blk.size, pos, d.total_size);
        end = pos + blk.size;
        fz_check_status_name(blk.status);
        FZ_CHECK(fz_starts(pcq_block_type_name(blk.type), "PERF_"), "block type %u unnamed", blk.type);
        fz_rec_u(w->rec, blk.status);
        fz_rec_u(w->rec, blk.type);
        fz_rec_lay(w->rec, blk.size);
        fz_rec_lay(w->rec, blk.reserved); /* the canonical form writes 0 */
        used = at;
        switch (blk.type) {
        case PCQ_PERF_ERROR_RETURN:
            used = end; /* anything after the header is a diagnostic */
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
        default: FZ_CHECK(0, "block %u: dwType %u accepted", k, blk.type);
        }
        FZ_CHECK(end - used < 8, "block %u: %zu unused bytes at its end accepted", k, end - used);
        if (blk.type != PCQ_PERF_MULTI_COUNTERS) check_other_values(&d, &blk);
        if (blk.type != PCQ_PERF_MULTI_INSTANCES && blk.type != PCQ_PERF_COUNTERSET) {
            pcq_data_instance in;
            pcq_block_instances(&d, &blk, &vit);
            FZ_CHECK(pcq_instances_of_block_next(&vit, &in) == 0, "block %u of type %u has instances", k,
                     blk.type);
        }
        pos = end;
        k++;
    }
    FZ_CHECK(r == 0, "block iterator failed with %s at %zu after a successful decode", pcq_status_name(r),
             it.err.offset);
    FZ_CHECK(k == d.num_counters, "%u blocks iterated, dwNumCounter %u", k, d.num_counters);
    FZ_CHECK(d.total_size - pos < 8, "%zu unused bytes before dwTotalSize accepted", d.total_size - pos);
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

int fz_walk(pcq_kind kind, const uint8_t *buf, size_t len, const pcq_opts *opts, fz_rec *rec, pcq_error *err)
{
    fz_ctx w;
    pcq_error e, v;
    pcq_opts vo;
    fz_diags vds, *ds = opts && opts->on_diag == fz_on_diag ? (fz_diags *)opts->ctx : NULL;
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
    if (rc == PCQ_OK)
        e.code = PCQ_OK;
    else
        fz_check_error(decoder_name(kind), rc, &e, len, opts);

    /* Strict mode stops at the first diagnostic, which is then the error. */
    nd = ds ? ds->n - before : 0;
    if (ds && fz_is_strict(opts)) {
        FZ_CHECK(nd <= 1, "%s: %zu diagnostics in strict mode", decoder_name(kind), nd);
        FZ_CHECK((rc == PCQ_ERR_NONCONFORMANT) == (nd == 1),
                 "%s: strict mode returned %s after %zu diagnostics", decoder_name(kind), pcq_status_name(rc),
                 nd);
        if (nd == 1 && before < FZ_MAX_DIAGS)
            FZ_CHECK(ds->d[before].offset == e.offset && ds->d[before].what == e.what,
                     "%s: strict error at %zu (%s), its diagnostic at %zu (%s)", decoder_name(kind), e.offset,
                     e.what, ds->d[before].offset, ds->d[before].what);
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
    { /* No callback and no error out-parameter: the same status. */
        pcq_opts q;
        if (opts) {
            q = *opts;
            q.on_diag = NULL;
            q.ctx = NULL;
        }
        FZ_CHECK(pcq_validate(kind, buf, len, opts ? &q : NULL, NULL) == rc,
                 "pcq_validate(%s) without a callback and err: another status", decoder_name(kind));
    }
    if (ds) {
        FZ_CHECK(vds.n == nd, "pcq_validate(%s) reports %zu diagnostics, the decoder %zu", decoder_name(kind),
                 vds.n, nd);
        for (i = 0; i < nd && before + i < FZ_MAX_DIAGS && i < FZ_MAX_DIAGS; i++) {
            const pcq_diag *a = &ds->d[before + i], *b = &vds.d[i];
            FZ_CHECK(a->code == b->code && a->offset == b->offset && a->what == b->what,
                     "diagnostic %zu: the decoder says %s at %zu, pcq_validate %s at %zu", i,
                     pcq_diag_name(a->code), a->offset, pcq_diag_name(b->code), b->offset);
        }
    }
    FZ_CHECK(vr == rc, "pcq_validate(%s) says %s, the decoder %s", decoder_name(kind), pcq_status_name(vr),
             pcq_status_name(rc));
    if (rc == PCQ_OK)
        FZ_CHECK(v.code == PCQ_OK, "pcq_validate OK but err.code %d", v.code);
    else
        fz_same_error("decoder", &e, "pcq_validate", &v);
    digest_u64((uint64_t)kind);
    digest_u64((uint64_t)(int64_t)rc);
    digest_u64((uint64_t)e.offset);
    if (e.what) digest(e.what, strlen(e.what));
    if (rec) digest(rec->all.p, rec->all.len);
    if (err) *err = e;
    return rc;
}
