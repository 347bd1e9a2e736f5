/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-pcq.c - Wireshark dissector for PerflibV2, the RPC interface of
 * [MS-PCQ] (da5a86c5-12c2-4943-ab30-7f74a813d853 version 1.0), built on the
 * pcq codec.
 *
 * Copyright the pcq authors. This file is free software: you can
 * redistribute it and/or modify it under the terms of the GNU General Public
 * License as published by the Free Software Foundation, either version 2 of
 * the License, or (at your option) any later version (see COPYING). The codec
 * files compiled in (pcq_codec.c, pcq_calc.c) keep their own MIT license.
 *
 * The NDR parameters of the IDL (§6) are dissected with libwireshark's
 * exported NDR helpers; every lpData buffer is walked with the codec
 * (pcq_walk_next), and its fields are registered from the codec's layout
 * table (pcq_struct_info_of): nothing here lists a structure's fields.
 */
#define WS_BUILD_DLL
#include <epan/packet.h>
#include <epan/expert.h>
#include <epan/proto_data.h>
#include <epan/dissectors/packet-dcerpc.h>
#include <ws_version.h>

#include <inttypes.h>
#include <string.h>

#include "pcq-track.h"

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = PCQ_VERSION_STRING;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;
WS_DLL_PUBLIC void plugin_register(void);

static int proto_pcq = -1;
static int hf_opnum = -1;

/* The NDR parameters of §6 and what the dissector adds. */
static int hf_machine = -1, hf_machine_max = -1, hf_machine_offset = -1, hf_machine_actual = -1;
static int hf_request_code = -1, hf_lcid = -1, hf_in_size = -1, hf_out_size = -1, hf_rtn_size = -1;
static int hf_lpdata = -1, hf_lpdata_max = -1, hf_lpdata_offset = -1, hf_lpdata_actual = -1, hf_kind = -1;
static int hf_add = -1, hf_status = -1, hf_handle = -1, hf_handle_attr = -1, hf_handle_uuid = -1;
static int hf_cooked = -1, hf_not_cooked = -1, hf_cook_note = -1, hf_request_in = -1, hf_response_in = -1;

/* Generated from the layout: one hf per distinct abbrev. */
#define MAX_LAYOUT_HF 128
#define MAX_FIELDS    16
static int hf_layout[MAX_LAYOUT_HF];
static int *field_hf[PCQ_S_END_][MAX_FIELDS]; /* each field's hf */
static int hf_counter_data = -1;              /* a Value that is not 4 or 8 bytes */
static int hf_counterset = -1;                /* the layout's "counterset": CounterSetGuid */

static gint ett_pcq = -1, ett_lpdata = -1, ett_handle = -1, ett_aggregates = -1;
static gint ett_struct[PCQ_S_END_];

static expert_field ei_malformed = EI_INIT, ei_nonconformant = EI_INIT, ei_ndr = EI_INIT;
static expert_field ei_no_request = EI_INIT;

static e_guid_t uuid_perflibv2 = {0xda5a86c5,
                                  0x12c2,
                                  0x4943,
                                  {0xab, 0x30, 0x7f, 0x74, 0xa8, 0x13, 0xd8, 0x53}};

/* ======================================================================== */
/* Labels: what pcqdump's tree shows, as Wireshark item text                */
/* ======================================================================== */

/* PerfTime100NSec: 100 ns since 1601-01-01 UTC (a FILETIME), as a date
 * (H. Hinnant's civil_from_days, from 0000-03-01; as pcqdump does). */
static void filetime_text(guint64 ft, char *out, size_t cap)
{
    guint64 secs = ft / 10000000u, z = secs / 86400u + 584694u;
    guint64 era = z / 146097u, doe = z - era * 146097u;
    guint64 yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    guint64 doy = doe - (365u * yoe + yoe / 4u - yoe / 100u), mp = (5u * doy + 2u) / 153u;
    guint64 day = doy - (153u * mp + 2u) / 5u + 1u, month = mp < 10u ? mp + 3u : mp - 9u;
    guint64 year = yoe + era * 400u + (month <= 2u), rem = secs % 86400u;

    g_snprintf(out, (gulong)cap,
               "%04" PRIu64 "-%02" PRIu64 "-%02" PRIu64 " %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64
               ".%07" PRIu64 " UTC",
               year, month, day, rem / 3600u, rem / 60u % 60u, rem % 60u, ft % 10000000u);
}

static void attrib_text(guint64 a, char *out, size_t cap)
{
    const char *sep = " (";
    size_t n = (size_t)g_snprintf(out, (gulong)cap, "0x%" PRIx64, a);
    unsigned bit;

    for (bit = 0; bit < 5 && n < cap; bit++) {
        if (!(a >> bit & 1u)) continue;
        n += (size_t)g_snprintf(out + n, (gulong)(cap - n), "%s%s", sep, pcq_attrib_bit_name(bit));
        sep = " | ";
    }
    if (a >> 5 && n < cap)
        n += (size_t)g_snprintf(out + n, (gulong)(cap - n), "%sunknown 0x%" PRIx64, sep, a & ~(guint64)0x1F);
    if (a && n < cap) g_snprintf(out + n, (gulong)(cap - n), ")");
}

/* A number as its field's `show` says: decimal, with names where it has them. */
static void number_text(const pcq_field *f, guint64 u, char *out, size_t cap)
{
    const char *name = pcq_field_value_name(f, u);

    switch (f->show) {
    case PCQ_SHOW_HEX: g_snprintf(out, (gulong)cap, "0x%0*" PRIx64, 2 * f->size, u); return;
    case PCQ_SHOW_ATTRIB: attrib_text(u, out, cap); return;
    case PCQ_SHOW_FILETIME: {
        char when[80];
        filetime_text(u, when, sizeof when);
        g_snprintf(out, (gulong)cap, "%" PRIu64 " (%s)", u, when);
        return;
    }
    case PCQ_SHOW_COUNTER_TYPE:
    case PCQ_SHOW_INSTANCE_TYPE:
        g_snprintf(out, (gulong)cap, "%s (0x%08" PRIx64 ")", name ? name : "unknown", u);
        return;
    default:
        if (name)
            g_snprintf(out, (gulong)cap, "%" PRIu64 " (%s)", u, name);
        else if (f->show == PCQ_SHOW_STATUS)
            g_snprintf(out, (gulong)cap, "%" PRIu64 " (0x%08" PRIx64 ")", u, u);
        else if (f->type == PCQ_FT_VALUE)
            g_snprintf(out, (gulong)cap, "%" PRIu64 " (0x%" PRIx64 ")", u, u);
        else if (f->show == PCQ_SHOW_BLOCK_TYPE || f->show == PCQ_SHOW_DETAIL_LEVEL ||
                 f->show == PCQ_SHOW_AGGREGATE)
            g_snprintf(out, (gulong)cap, "%" PRIu64 " (unknown)", u);
        else
            g_snprintf(out, (gulong)cap, "%" PRIu64, u);
    }
}

static const char *convention_text(const char *word)
{
    if (strcmp(word, "win32") == 0) return "win32, from the start of the block";
    if (strcmp(word, "spec") == 0) return "spec, from the end of the header array";
    return "none, no string present";
}

/* ======================================================================== */
/* lpData: the codec's walk, one subtree per structure                      */
/* ======================================================================== */

typedef struct walk_ctx {
    packet_info *pinfo;
    tvbuff_t *tvb;
    int base; /* lpData's first byte in tvb */
    const guint8 *buf;
    size_t len;
    pcq_kind kind;
    proto_tree *root;
    proto_tree *at_depth[PCQ_WALK_FRAMES_ + 2];
    pcq_diag *diags; /* raised while the current item was read */
    guint ndiags, diags_cap;
    const pcq_cooked *cooked;
} walk_ctx;

/* pcq_opts.on_diag: kept until the structure it is in has its subtree. */
static void on_diag(void *ctx, const pcq_diag *d)
{
    walk_ctx *c = (walk_ctx *)ctx;

    if (c->ndiags == c->diags_cap) { /* at most one per field: bounded by the input */
        c->diags_cap = c->diags_cap ? 2 * c->diags_cap : 8;
        c->diags = (pcq_diag *)wmem_realloc(c->pinfo->pool, c->diags, c->diags_cap * sizeof *c->diags);
    }
    c->diags[c->ndiags++] = *d;
}

/* An offset inside lpData, clipped to it, as a tvb offset. */
static int at(const walk_ctx *c, size_t off)
{
    return c->base + (int)(off < c->len ? off : c->len);
}

/* Bytes from off, clipped to lpData. */
static int span(const walk_ctx *c, size_t off, size_t n)
{
    if (off >= c->len) return 0;
    return (int)(n < c->len - off ? n : c->len - off);
}

static void flush_diags(walk_ctx *c, proto_tree *tree)
{
    guint i;

    for (i = 0; i < c->ndiags; i++) {
        const pcq_diag *d = &c->diags[i];
        proto_tree_add_expert_format(tree, c->pinfo, &ei_nonconformant, c->tvb, at(c, d->offset),
                                     span(c, d->offset, 1), "Non-conformant: %s (%s, offset %zu)",
                                     pcq_diag_text(d->code), d->what ? d->what : "", d->offset);
    }
    c->ndiags = 0;
}

/* One field of an item, from the layout; returns its item (or NULL). */
static proto_item *add_field(walk_ctx *c, proto_tree *tree, const pcq_field *f, int hf,
                             const pcq_field_value *v)
{
    char text[256];
    e_guid_t g;
    int off = at(c, v->offset);

    switch (v->kind) {
    case PCQ_V_UNSIGNED:
        number_text(f, v->u, text, sizeof text);
        if (f->type == PCQ_FT_U64 || f->type == PCQ_FT_VALUE)
            return proto_tree_add_uint64_format_value(tree, hf, c->tvb, off,
                                                      span(c, v->offset,
                                                           f->type == PCQ_FT_VALUE ? v->bytes.len : f->size),
                                                      v->u, "%s", text);
        return proto_tree_add_uint_format_value(tree, hf, c->tvb, off, span(c, v->offset, f->size),
                                                (guint32)v->u, "%s", text);
    case PCQ_V_SIGNED:
        return proto_tree_add_int_format_value(tree, hf, c->tvb, off, span(c, v->offset, f->size),
                                               (gint32)v->i, "%" PRId64, v->i);
    case PCQ_V_GUID:
        g.data1 = v->guid.data1;
        g.data2 = v->guid.data2;
        g.data3 = v->guid.data3;
        memcpy(g.data4, v->guid.data4, 8);
        return proto_tree_add_guid(tree, hf, c->tvb, off, span(c, v->offset, 16), &g);
    case PCQ_V_TEXT:
        return proto_tree_add_string(tree, hf, c->tvb, off, span(c, v->offset, v->bytes.len),
                                     pcq_text_escaped(c->pinfo->pool, v->bytes.ptr, v->bytes.len));
    case PCQ_V_BYTES:
        return proto_tree_add_bytes(tree, hf_counter_data, c->tvb, off, span(c, v->offset, v->bytes.len),
                                    v->bytes.ptr);
    case PCQ_V_WORD:
        return proto_tree_add_string_format_value(tree, hf, c->tvb, off, 0, v->word, "%s",
                                                  convention_text(v->word));
    default: return NULL; /* PCQ_V_ABSENT: dwOffset already says "absent" */
    }
}

/* The cooked value of a _PERF_COUNTER_DATA, if the frame has one. */
static void add_cooked(walk_ctx *c, proto_tree *tree, const pcq_item *it)
{
    size_t lo = 0, hi;
    const pcq_cooked_value *v;

    if (!c->cooked || it->type != PCQ_S_COUNTER_DATA || it->partial) return;
    hi = c->cooked->n;
    while (lo < hi) { /* the values are sorted by offset, aggregates last */
        size_t mid = lo + (hi - lo) / 2;
        v = &c->cooked->v[mid];
        if (!v->is_aggregate && v->offset < it->offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == c->cooked->n || (v = &c->cooked->v[lo])->is_aggregate || v->offset != it->offset) return;
    if (v->status == PCQ_CALC_OK)
        proto_item_set_generated(
            proto_tree_add_double_format_value(tree, hf_cooked, c->tvb, at(c, it->offset),
                                               span(c, it->offset, it->size), v->value, "%s", v->label));
    else
        proto_item_set_generated(proto_tree_add_string(tree, hf_not_cooked, c->tvb, at(c, it->offset),
                                                       span(c, it->offset, it->size), v->label));
}

/* One item of the walk: a subtree over its bytes (a container: its extent,
 * clipped), then its fields. A partial item shows what was read of it. */
static proto_tree *add_item(walk_ctx *c, const pcq_item *it)
{
    const pcq_struct_info *s = pcq_struct_info_of(it->type);
    proto_tree *parent = c->root, *tree;
    proto_item *ti, *fi;
    pcq_field_value v;
    size_t i, n = it->partial ? it->size : (it->extent > it->size ? it->extent : it->size);
    unsigned d = it->depth < PCQ_WALK_FRAMES_ + 1 ? it->depth : PCQ_WALK_FRAMES_ + 1;

    if (!s || (it->partial && it->size == 0)) return NULL;
    if (d > 0 && c->at_depth[d - 1]) parent = c->at_depth[d - 1];
    tree = proto_tree_add_subtree(parent, c->tvb, at(c, it->offset), span(c, it->offset, n),
                                  ett_struct[it->type], &ti, s->nfields == 1 ? s->fields[0].name : s->name);
    if (pcq_item_is_element(it, c->kind)) proto_item_append_text(ti, "[%u]", it->index);
    if (it->has_counter_id && !it->partial) proto_item_append_text(ti, " (CounterId %u)", it->counter_id);
    if (it->type == PCQ_S_COUNTER_HEADER && !it->partial) {
        const char *bt = pcq_block_type_name(it->u.block.type);
        proto_item_append_text(ti, ": %s", bt ? bt : "unknown dwType");
    }
    if (it->partial) proto_item_append_text(ti, " [partial: %zu bytes readable]", it->size);
    c->at_depth[d] = tree;
    for (i = d + 1; i < PCQ_WALK_FRAMES_ + 2; i++) c->at_depth[i] = NULL;
    for (i = 0; i < s->nfields && i < MAX_FIELDS; i++) {
        if (pcq_item_field(it, &s->fields[i], c->buf, c->len, &v) == PCQ_V_NONE) continue;
        fi = add_field(c, tree, &s->fields[i], *field_hf[it->type][i], &v);
        /* a one-field structure, a value or a name: its label on the subtree */
        if (fi &&
            (s->nfields == 1 || s->fields[i].type == PCQ_FT_VALUE || s->fields[i].type == PCQ_FT_NAME)) {
            const char *label = proto_item_get_display_repr(c->pinfo->pool, fi);
            proto_item_append_text(ti, ": %s", label ? label : "");
        }
    }
    add_cooked(c, tree, it);
    return tree;
}

/* Aggregate rows (AggregateFunc, §2.2.4.2) belong to no value of the reply. */
static void add_aggregates(walk_ctx *c)
{
    proto_tree *t = NULL;
    size_t i;

    for (i = 0; c->cooked && i < c->cooked->n; i++) {
        const pcq_cooked_value *v = &c->cooked->v[i];
        if (!v->is_aggregate) continue;
        if (!t)
            t = proto_tree_add_subtree(c->root, c->tvb, c->base, 0, ett_aggregates, NULL,
                                       "Aggregates (cooked)");
        if (v->status == PCQ_CALC_OK)
            proto_item_set_generated(proto_tree_add_double_format_value(t, hf_cooked, c->tvb, c->base, 0,
                                                                        v->value, "%s", v->label));
        else
            proto_item_set_generated(proto_tree_add_string(t, hf_not_cooked, c->tvb, c->base, 0, v->label));
    }
}

/* Scratch for the set-wide checks of a large counterset or string block, as
 * pcqdump gives it: no entry is smaller than 8 bytes. */
static void give_scratch(packet_info *pinfo, pcq_kind kind, size_t len, pcq_opts *o)
{
    size_t n = len / 8;
    if ((kind != PCQ_KIND_COUNTERSET_INFO && kind != PCQ_KIND_STRINGS) || n <= PCQ_PAIR_CHECK_MAX) return;
    o->scratch_size = n * PCQ_SCRATCH_PER_ENTRY;
    o->scratch = wmem_alloc(pinfo->pool, o->scratch_size);
}

/* Walks lpData (len bytes at off, all in the tvb) as `kind`. */
static void dissect_lpdata(tvbuff_t *tvb, int off, size_t len, packet_info *pinfo, proto_tree *tree,
                           pcq_kind kind, const pcq_cooked *cooked)
{
    static const guint8 empty[1];
    walk_ctx c;
    pcq_opts o;
    pcq_walk w;
    pcq_item it;
    proto_tree *t;
    int rc;

    memset(&c, 0, sizeof c);
    memset(&o, 0, sizeof o);
    c.pinfo = pinfo;
    c.tvb = tvb;
    c.base = off;
    c.len = len;
    c.buf = len ? tvb_get_ptr(tvb, off, (gint)len) : empty;
    c.kind = kind;
    c.root = tree;
    c.cooked = cooked;
    o.on_diag = on_diag;
    o.ctx = &c;
    give_scratch(pinfo, kind, len, &o);
    pcq_walk_begin(&w, kind, c.buf, c.len, &o);
    while ((rc = pcq_walk_next(&w, &it)) == 1) flush_diags(&c, (t = add_item(&c, &it)) ? t : tree);
    if (rc < 0) {
        t = it.partial ? add_item(&c, &it) : NULL;
        flush_diags(&c, t ? t : tree);
        proto_tree_add_expert_format(t ? t : tree, pinfo, &ei_malformed, tvb, at(&c, w.err.offset),
                                     span(&c, w.err.offset, 1), "Malformed lpData at offset %zu: %s (%s)",
                                     w.err.offset, pcq_strerror(rc), w.err.what ? w.err.what : "");
    } else {
        flush_diags(&c, tree);
    }
    add_aggregates(&c);
}

/* ======================================================================== */
/* NDR (§6): all pointers are top-level [ref], so no referent ids           */
/* ======================================================================== */

static int align4(int off)
{
    return (off + 3) & ~3;
}

/* [in, string] wchar_t *szMachine: a conformant varying string. */
static int dissect_machine(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree, dcerpc_info *di,
                           guint8 *drep)
{
    guint32 max, first, count;
    gint avail;
    guint64 n;

    off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_machine_max, &max);
    off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_machine_offset, &first);
    off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_machine_actual, &count);
    n = (guint64)count * 2;
    avail = tvb_captured_length_remaining(tvb, off);
    if (avail < 0) avail = 0;
    if (n > (guint64)avail) {
        proto_tree_add_expert_format(tree, pinfo, &ei_ndr, tvb, off, avail,
                                     "szMachine: %u characters declared, %d bytes left", count, avail);
        n = (guint64)avail;
    }
    proto_tree_add_string(tree, hf_machine, tvb, off, (gint)n,
                          pcq_text_escaped(pinfo->pool, n ? tvb_get_ptr(tvb, off, (gint)n) : NULL,
                                           (size_t)n));
    return off + (int)n;
}

/* An RPC_HQUERY context handle (§2.2.1): 20 bytes, 4-aligned. */
static int dissect_handle(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree, dcerpc_info *di,
                          guint8 *drep, pcq_call *call)
{
    proto_item *ti;
    proto_tree *t;

    off = align4(off);
    ti = proto_tree_add_item(tree, hf_handle, tvb, off, PCQ_HANDLE_SIZE, ENC_NA);
    t = proto_item_add_subtree(ti, ett_handle);
    if (call && tvb_bytes_exist(tvb, off, PCQ_HANDLE_SIZE)) {
        tvb_memcpy(tvb, call->handle, off, PCQ_HANDLE_SIZE);
        call->has_handle = TRUE;
    }
    off = dissect_ndr_uint32(tvb, off, pinfo, t, di, drep, hf_handle_attr, NULL);
    return dissect_ndr_uuid_t(tvb, off, pinfo, t, di, drep, hf_handle_uuid, NULL);
}

/* The request's state, kept for its reply (NULL when none can be kept). */
static pcq_call *call_of(dcerpc_info *di, gboolean create)
{
    if (!di || !di->call_data) return NULL;
    if (!di->call_data->se_data && create && di->call_data->req_frame)
        di->call_data->se_data = wmem_new0(wmem_file_scope(), pcq_call);
    return (pcq_call *)di->call_data->se_data;
}

static void add_links(tvbuff_t *tvb, proto_tree *tree, dcerpc_info *di)
{
    if (!di || !di->call_data) return;
    if (di->ptype == PDU_REQ && di->call_data->rep_frame)
        proto_item_set_generated(
            proto_tree_add_uint(tree, hf_response_in, tvb, 0, 0, di->call_data->rep_frame));
    if (di->ptype == PDU_RESP && di->call_data->req_frame)
        proto_item_set_generated(
            proto_tree_add_uint(tree, hf_request_in, tvb, 0, 0, di->call_data->req_frame));
}

/* Opnum 7's [in, out, size_is(dwInSize)] lpData: a conformant array of
 * identifiers (§3.1.4.1.7), then dwAdd; lpData never takes dwAdd's bytes. */
static int dissect_validate_in(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree, dcerpc_info *di,
                               guint8 *drep, pcq_call *call)
{
    proto_tree *t;
    guint32 max;
    gint avail;

    off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_lpdata_max, &max);
    avail = tvb_captured_length_remaining(tvb, off) - 4;
    if (avail < 0) avail = 0;
    if (max > (guint32)avail) {
        proto_tree_add_expert_format(tree, pinfo, &ei_ndr, tvb, off, avail,
                                     "lpData: %u bytes declared, %d before dwAdd", max, avail);
        max = (guint32)avail;
    }
    t = proto_item_add_subtree(proto_tree_add_item(tree, hf_lpdata, tvb, off, (gint)max, ENC_NA), ett_lpdata);
    proto_item_set_generated(proto_tree_add_string(t, hf_kind, tvb, off, 0, "identifiers"));
    dissect_lpdata(tvb, off, max, pinfo, t, PCQ_KIND_IDENTIFIERS, NULL);
    off = dissect_ndr_uint32(tvb, off + (int)max, pinfo, tree, di, drep, hf_add, &call->add);
    call->has_add = TRUE;
    return off;
}

/* Opnums 1 and 2: CounterSetGuid (every counterset GUID is pcq.counterset). */
static int dissect_counterset_in(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree,
                                 dcerpc_info *di, guint8 *drep, pcq_call *call)
{
    e_guid_t g;

    memset(&g, 0, sizeof g);
    off = dissect_ndr_uuid_t(tvb, off, pinfo, tree, di, drep, hf_counterset, &g);
    call->counterset.data1 = g.data1;
    call->counterset.data2 = g.data2;
    call->counterset.data3 = g.data3;
    memcpy(call->counterset.data4, g.data4, 8);
    call->has_counterset = TRUE;
    return off;
}

/* The [in] parameters of §6 in IDL order; what the reply needs goes into
 * the call's state on the first pass only. */
static int dissect_request(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree, dcerpc_info *di,
                           guint8 *drep, guint32 opnum)
{
    pcq_call *call = call_of(di, !PINFO_FD_VISITED(pinfo)), scratch;
    guint32 v;

    memset(&scratch, 0, sizeof scratch);
    if (!call || PINFO_FD_VISITED(pinfo)) call = &scratch; /* what a first pass kept stays as it was */
    add_links(tvb, tree, di);
    if (opnum <= 3) off = dissect_machine(tvb, off, pinfo, tree, di, drep);
    if (opnum == 1 || opnum == 2) off = dissect_counterset_in(tvb, off, pinfo, tree, di, drep, call);
    if (opnum == 1) {
        off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_request_code, &v);
        call->request_code = v;
        call->has_request_code = TRUE;
        col_append_fstr(pinfo->cinfo, COL_INFO, " RequestCode=%s",
                        pcq_request_code_name(v) ? pcq_request_code_name(v) : "?");
        off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_lcid, NULL);
    }
    if (opnum >= 4) off = dissect_handle(tvb, off, pinfo, tree, di, drep, call);
    if (opnum != 3 && opnum != 4) off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_in_size, NULL);
    if (opnum == 7) off = dissect_validate_in(tvb, off, pinfo, tree, di, drep, call);
    return off;
}

/* The kind of a reply's lpData: opnum 1 needs its request's RequestCode. */
static pcq_kind reply_kind(packet_info *pinfo, proto_tree *tree, tvbuff_t *tvb, guint32 opnum,
                           const pcq_call *call)
{
    if (opnum != 1) return pcq_kind_for(opnum, 0, 1);
    if (!call || !call->has_request_code) {
        proto_tree_add_expert(tree, pinfo, &ei_no_request, tvb, 0, 0);
        return PCQ_KIND_NONE;
    }
    proto_item_set_generated(proto_tree_add_uint(tree, hf_request_code, tvb, 0, 0, call->request_code));
    col_append_fstr(pinfo->cinfo, COL_INFO, " RequestCode=%s",
                    pcq_request_code_name(call->request_code) ? pcq_request_code_name(call->request_code)
                                                              : "?");
    return pcq_kind_for(1, call->request_code, 1);
}

/* The reply's lpData: [out, size_is(dwInSize), length_is(*pdwOutSize)]
 * (opnum 0: GUIDs, §3.1.4.1.1) or opnum 7's conformant array. The stub
 * ends with the 4-byte status, so lpData never takes those bytes, whatever
 * the counts say: a buffer that is not a whole number of GUIDs is walked
 * as it is (the codec reports it). */
static int dissect_reply_lpdata(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree, dcerpc_info *di,
                                guint8 *drep, guint32 opnum, guint64 *len)
{
    guint32 max, first = 0, count;
    guint64 n;
    gint avail;

    off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_lpdata_max, &max);
    count = max;
    if (opnum != 7) {
        off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_lpdata_offset, &first);
        off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_lpdata_actual, &count);
    }
    n = (guint64)count * (opnum == 0 ? 16 : 1);
    avail = tvb_captured_length_remaining(tvb, off) - 4;
    if (avail < 0) avail = 0;
    if (n > (guint64)avail) {
        proto_tree_add_expert_format(tree, pinfo, &ei_ndr, tvb, off, avail,
                                     "lpData: %" PRIu64 " bytes declared, %d before the status", n, avail);
        n = (guint64)avail;
    }
    *len = n;
    return off;
}

/* A reply's lpData: walked, remembered for later frames, cooked (opnum 6). */
static void dissect_reply_buffer(tvbuff_t *tvb, int off, size_t len, packet_info *pinfo, proto_tree *tree,
                                 dcerpc_info *di, guint32 opnum, pcq_kind kind, const pcq_call *call,
                                 guint32 status)
{
    const guint8 *buf = len ? tvb_get_ptr(tvb, off, (gint)len) : (const guint8 *)"";
    const pcq_cooked *cooked = NULL;
    proto_item *ti = proto_tree_add_item(tree, hf_lpdata, tvb, off, (gint)len, ENC_NA);
    proto_tree *t = proto_item_add_subtree(ti, ett_lpdata);
    guint32 key = di ? di->call_id : 0;

    proto_item_set_generated(proto_tree_add_string(t, hf_kind, tvb, off, 0, pcq_kind_name(kind)));
    if (!PINFO_FD_VISITED(pinfo)) {
        pcq_track_reply(pinfo, call, opnum, status, buf, len);
        if (opnum == 6 && status == 0) {
            cooked = pcq_track_cook(pinfo, call, buf, len);
            p_add_proto_data(wmem_file_scope(), pinfo, proto_pcq, key, (void *)cooked);
        }
    } else if (opnum == 6) {
        cooked = (const pcq_cooked *)p_get_proto_data(wmem_file_scope(), pinfo, proto_pcq, key);
    }
    if (cooked && cooked->note)
        proto_item_set_generated(proto_tree_add_string(t, hf_cook_note, tvb, off, 0, cooked->note));
    if (kind != PCQ_KIND_NONE) dissect_lpdata(tvb, off, len, pinfo, t, kind, cooked);
}

static int dissect_response(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree, dcerpc_info *di,
                            guint8 *drep, guint32 opnum)
{
    const pcq_call *call = call_of(di, FALSE);
    pcq_kind kind = PCQ_KIND_NONE;
    guint64 len = 0;
    guint32 status = 0;
    int data = -1, end = (int)tvb_captured_length(tvb) - 4;

    add_links(tvb, tree, di);
    /* error_status_t (§2.2.3) is the stub's last 4 bytes: read first, as
     * what is remembered of a reply depends on it */
    if (end >= 0) status = tvb_get_guint32(tvb, end, DREP_ENC_INTEGER(drep));
    if (opnum == 3 || opnum == 4) {
        pcq_call opened;
        memset(&opened, 0, sizeof opened);
        off = dissect_handle(tvb, off, pinfo, tree, di, drep, &opened);
        /* the handle opened (the reply's) or closed (the request's) starts afresh */
        pcq_track_reply(pinfo, opnum == 3 ? &opened : call, opnum, status, NULL, 0);
    } else {
        if (opnum != 7) {
            off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_out_size, NULL);
            off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_rtn_size, NULL);
        }
        kind = reply_kind(pinfo, tree, tvb, opnum, call);
        off = dissect_reply_lpdata(tvb, off, pinfo, tree, di, drep, opnum, &len);
        data = off;
        dissect_reply_buffer(tvb, data, (size_t)len, pinfo, tree, di, opnum, kind, call, status);
        off += (int)len;
    }
    if (end >= off) off = end;
    if (off % 4 == 0) {
        off = dissect_ndr_uint32(tvb, off, pinfo, tree, di, drep, hf_status, &status);
    } else { /* after a ragged GUID array: not aligned, still the last 4 bytes */
        proto_tree_add_item(tree, hf_status, tvb, off, 4, DREP_ENC_INTEGER(drep));
        off += 4;
    }
    if (status)
        col_append_fstr(pinfo->cinfo, COL_INFO, " status=%s",
                        pcq_win32_status_name(status) ? pcq_win32_status_name(status) : "error");
    return off;
}

/* One function per direction for the eight opnums: the opnum comes from di. */
static int dissect_pcq_request(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree, dcerpc_info *di,
                               guint8 *drep)
{
    return dissect_request(tvb, off, pinfo, tree, di, drep, di && di->call_data ? di->call_data->opnum : 0);
}

static int dissect_pcq_response(tvbuff_t *tvb, int off, packet_info *pinfo, proto_tree *tree, dcerpc_info *di,
                                guint8 *drep)
{
    return dissect_response(tvb, off, pinfo, tree, di, drep, di && di->call_data ? di->call_data->opnum : 0);
}

/* clang-format off */
static dcerpc_sub_dissector pcq_dissectors[] = {
    {0, "PerflibV2EnumerateCounterSet",             dissect_pcq_request, dissect_pcq_response},
    {1, "PerflibV2QueryCounterSetRegistrationInfo", dissect_pcq_request, dissect_pcq_response},
    {2, "PerflibV2EnumerateCounterSetInstances",    dissect_pcq_request, dissect_pcq_response},
    {3, "PerflibV2OpenQueryHandle",                 dissect_pcq_request, dissect_pcq_response},
    {4, "PerflibV2CloseQueryHandle",                dissect_pcq_request, dissect_pcq_response},
    {5, "PerflibV2QueryCounterInfo",                dissect_pcq_request, dissect_pcq_response},
    {6, "PerflibV2QueryCounterData",                dissect_pcq_request, dissect_pcq_response},
    {7, "PerflibV2ValidateCounters",                dissect_pcq_request, dissect_pcq_response},
    {0, NULL, NULL, NULL},
};
/* clang-format on */

/* ======================================================================== */
/* Registration: the lpData fields come from the codec's layout table       */
/* ======================================================================== */

static enum ftenum ft_of(const pcq_field *f)
{
    switch (f->type) {
    case PCQ_FT_U16: return FT_UINT16;
    case PCQ_FT_U32: return FT_UINT32;
    case PCQ_FT_I32: return FT_INT32;
    case PCQ_FT_U64:
    case PCQ_FT_VALUE: return FT_UINT64; /* a 4- or 8-byte value; others: pcq.counter.data */
    case PCQ_FT_GUID: return FT_GUID;
    default: return FT_STRING; /* NAME, TEXT, CONVENTION */
    }
}

static int base_of(const pcq_field *f, enum ftenum ft)
{
    if (ft == FT_GUID || ft == FT_STRING) return BASE_NONE;
    switch (f->show) { /* a counter type reads as its name; its number in decimal, as every value */
    case PCQ_SHOW_HEX:
    case PCQ_SHOW_INSTANCE_TYPE:
    case PCQ_SHOW_ATTRIB: return BASE_HEX;
    default: return BASE_DEC;
    }
}

/* A value_string of the names pcq_field_value_name gives a 32-bit field
 * (so that `pcq.counter.type == "PERF_COUNTER_COUNTER"` works), or NULL. */
static const value_string *names_of(const pcq_field *f)
{
#define PCQ_CT_VALUE_(name, value, ...) value,
    static const guint32 counter_types[] = {PCQ_COUNTER_TYPE_TABLE(PCQ_CT_VALUE_)};
#undef PCQ_CT_VALUE_
    guint32 limit = 0, v, n = 0, i;
    value_string *vs;

    switch (f->show) {
    case PCQ_SHOW_STATUS: limit = 0x2000; break;
    case PCQ_SHOW_BLOCK_TYPE:
    case PCQ_SHOW_AGGREGATE:
    case PCQ_SHOW_INSTANCE_TYPE: limit = 64; break;
    case PCQ_SHOW_DETAIL_LEVEL: limit = 1024; break;
    case PCQ_SHOW_COUNTER_TYPE: limit = G_N_ELEMENTS(counter_types); break;
    default: return NULL;
    }
    if (f->type != PCQ_FT_U32) return NULL;
    vs = g_new0(value_string, limit + 1);
    for (i = 0; i < limit; i++) {
        v = f->show == PCQ_SHOW_COUNTER_TYPE ? counter_types[i] : i;
        if (!pcq_field_value_name(f, v)) continue;
        vs[n].value = v;
        vs[n++].strptr = pcq_field_value_name(f, v);
    }
    return vs;
}

/* A Value field that is not 4 or 8 bytes: "pcq.counter.value" gives
 * "pcq.counter.data", FT_BYTES. */
static char *data_abbrev(const pcq_field *f)
{
    const char *dot = strrchr(f->abbrev, '.');
    return g_strdup_printf("pcq.%.*sdata", dot ? (int)(dot - f->abbrev + 1) : 0, f->abbrev);
}

static void register_data_field(char *abbrev)
{
    static hf_register_info hf[] = {
        {&hf_counter_data,
         {"Value (bytes)", NULL, FT_BYTES, BASE_NONE, NULL, 0x0,
          "_PERF_COUNTER_DATA.Value of dwDataSize bytes other than 4 or 8", HFILL}},
    };
    if (!abbrev) g_error("pcq: the layout has no Value field");
    hf[0].hfinfo.abbrev = abbrev;
    proto_register_field_array(proto_pcq, hf, 1);
}

/* The hf of each layout field, one per distinct abbrev: "pcq." + abbrev.
 * Two fields that share an abbrev must agree on the type. */
static void register_layout_fields(void)
{
    static const char *abbrevs[MAX_LAYOUT_HF];
    static enum ftenum types[MAX_LAYOUT_HF];
    hf_register_info *hf = g_new0(hf_register_info, MAX_LAYOUT_HF + 1);
    char *hf_data_abbrev = NULL;
    int n = 0, t, k;
    size_t i;

    for (t = 1; t < PCQ_S_END_; t++) {
        const pcq_struct_info *s = pcq_struct_info_of(t);
        if (!s || s->nfields > MAX_FIELDS) g_error("pcq: layout of structure %d does not fit", t);
        for (i = 0; i < s->nfields; i++) {
            const pcq_field *f = &s->fields[i];
            enum ftenum ft = ft_of(f);
            for (k = 0; k < n && strcmp(abbrevs[k], f->abbrev) != 0; k++) continue;
            if (k < n && types[k] != ft)
                g_error("pcq: fields %s and pcq.%s disagree on their type", f->what, f->abbrev);
            if (k == n) {
                if (n == MAX_LAYOUT_HF) g_error("pcq: more than %d layout fields", MAX_LAYOUT_HF);
                abbrevs[n] = f->abbrev;
                types[n] = ft;
                hf_layout[n] = -1;
                hf[n].p_id = &hf_layout[n];
                hf[n].hfinfo.name = f->name;
                hf[n].hfinfo.abbrev = g_strdup_printf("pcq.%s", f->abbrev);
                hf[n].hfinfo.type = ft;
                hf[n].hfinfo.display = base_of(f, ft);
                hf[n].hfinfo.strings = names_of(f);
                hf[n].hfinfo.blurb = f->what;
                HFILL_INIT(hf[n]);
                n++;
            }
            field_hf[t][i] = &hf_layout[k];
            if (f->type == PCQ_FT_VALUE && !hf_data_abbrev) hf_data_abbrev = data_abbrev(f);
        }
    }
    proto_register_field_array(proto_pcq, hf, n);
    register_data_field(hf_data_abbrev);
    for (k = 0; k < n; k++)
        if (strcmp(abbrevs[k], "counterset") == 0) hf_counterset = hf_layout[k];
    if (hf_counterset < 0) g_error("pcq: the layout has no counterset field");
}

/* The NDR parameters of §6, and what the dissector adds. */
static void register_ndr_fields(void)
{
    /* clang-format off */
    static hf_register_info hf[] = {
        {&hf_opnum, {"Operation", "pcq.opnum", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_machine, {"szMachine", "pcq.machine", FT_STRING, BASE_NONE, NULL, 0x0,
                       "[in, string] wchar_t *szMachine (opnums 0-3)", HFILL}},
        {&hf_machine_max, {"Max count", "pcq.machine.max_count", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_machine_offset, {"Offset", "pcq.machine.offset", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_machine_actual, {"Actual count", "pcq.machine.actual_count", FT_UINT32, BASE_DEC, NULL, 0x0, NULL,
                              HFILL}},
        {&hf_request_code, {"RequestCode", "pcq.request_code", FT_UINT32, BASE_DEC, NULL, 0x0,
                            "Opnum 1: what the reply holds (§3.1.4.1.2); on the reply, from its request", HFILL}},
        {&hf_lcid, {"RequestLCID", "pcq.lcid", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
        {&hf_in_size, {"dwInSize", "pcq.in_size", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_out_size, {"pdwOutSize", "pcq.out_size", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_rtn_size, {"pdwRtnSize", "pcq.rtn_size", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_lpdata, {"lpData", "pcq.lpdata", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL}},
        {&hf_lpdata_max, {"Max count", "pcq.lpdata.max_count", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_lpdata_offset, {"Offset", "pcq.lpdata.offset", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_lpdata_actual, {"Actual count", "pcq.lpdata.actual_count", FT_UINT32, BASE_DEC, NULL, 0x0, NULL,
                             HFILL}},
        {&hf_kind, {"Buffer kind", "pcq.lpdata.kind", FT_STRING, BASE_NONE, NULL, 0x0,
                    "What lpData holds (pcqdump --kind)", HFILL}},
        {&hf_add, {"dwAdd", "pcq.add", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL}},
        {&hf_status, {"Return status", "pcq.status", FT_UINT32, BASE_HEX, NULL, 0x0, "error_status_t (§2.2.3)",
                      HFILL}},
        {&hf_handle, {"Query handle", "pcq.handle", FT_BYTES, BASE_NONE, NULL, 0x0, "RPC_HQUERY (§2.2.1)", HFILL}},
        {&hf_handle_attr, {"Attributes", "pcq.handle.attributes", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL}},
        {&hf_handle_uuid, {"UUID", "pcq.handle.uuid", FT_GUID, BASE_NONE, NULL, 0x0, NULL, HFILL}},
        {&hf_cooked, {"Cooked value", "pcq.counter.cooked", FT_DOUBLE, BASE_NONE, NULL, 0x0,
                      "The value a person reads, from this and the previous sample (pcq_calc_cook)", HFILL}},
        {&hf_not_cooked, {"Not cooked", "pcq.counter.not_cooked", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL}},
        {&hf_cook_note, {"Cooking", "pcq.cook_note", FT_STRING, BASE_NONE, NULL, 0x0,
                         "Why this data reply has no cooked values", HFILL}},
        {&hf_request_in, {"Request in", "pcq.request_in", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST),
                          0x0, NULL, HFILL}},
        {&hf_response_in, {"Response in", "pcq.response_in", FT_FRAMENUM, BASE_NONE,
                           FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0, NULL, HFILL}},
    };
    static ei_register_info ei[] = {
        {&ei_malformed, {"pcq.malformed", PI_MALFORMED, PI_ERROR, "Malformed lpData", EXPFILL}},
        {&ei_nonconformant, {"pcq.nonconformant", PI_PROTOCOL, PI_WARN, "Non-conformant lpData", EXPFILL}},
        {&ei_ndr, {"pcq.ndr", PI_MALFORMED, PI_WARN, "NDR counts disagree with the stub", EXPFILL}},
        {&ei_no_request, {"pcq.no_request", PI_UNDECODED, PI_NOTE,
                          "The request of this reply is not in the capture: its RequestCode is unknown", EXPFILL}},
    };
    /* clang-format on */
    expert_module_t *em = expert_register_protocol(proto_pcq);

    proto_register_field_array(proto_pcq, hf, array_length(hf));
    expert_register_field_array(em, ei, array_length(ei));
}

static void register_ett(void)
{
    static gint *ett[4 + PCQ_S_END_];
    int i, n = 0;

    ett[n++] = &ett_pcq;
    ett[n++] = &ett_lpdata;
    ett[n++] = &ett_handle;
    ett[n++] = &ett_aggregates;
    for (i = 1; i < PCQ_S_END_; i++) { /* one per structure type */
        ett_struct[i] = -1;
        ett[n++] = &ett_struct[i];
    }
    proto_register_subtree_array(ett, n);
}

static void proto_register_pcq(void)
{
    proto_pcq = proto_register_protocol("Performance Counter Query Protocol (PerflibV2)", "PerflibV2", "pcq");
    register_ndr_fields();
    register_layout_fields();
    register_ett();
    pcq_track_init();
}

static void proto_reg_handoff_pcq(void)
{
    dcerpc_init_uuid(proto_pcq, ett_pcq, &uuid_perflibv2, 1, pcq_dissectors, hf_opnum);
}

void plugin_register(void)
{
    static proto_plugin plug;

    plug.register_protoinfo = proto_register_pcq;
    plug.register_handoff = proto_reg_handoff_pcq;
    proto_register_plugin(&plug);
}
