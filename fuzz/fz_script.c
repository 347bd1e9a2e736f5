/* SPDX-License-Identifier: MIT */
/*
 * fz_script.c - the writer driven by a script of fuzz bytes (fz_internal.h).
 */
#include "fz_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PCQ_NO_ENCODER
/* ------------------------------------------------------------------------ */
/* the writer, driven by a script                                            */
/* ------------------------------------------------------------------------ */
#define FZ_MAX_NAME 24 /* bytes of UTF-16 in a scripted name */

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

/* n instances of a type 4 or 6 block (per values each, 4 or 8 bytes a
 * counter) in one pcq_put_data_instances_u64, recorded as one at a time. */
static void script_instances(fz_src *s, pcq_writer *w, fz_rec *rec, uint32_t n, uint32_t per)
{
    uint8_t names[3][FZ_MAX_NAME], sizes[6], bytes[8];
    uint64_t values[3 * 6];
    pcq_instance inst[3];
    uint32_t i, j, k;
    memset(inst, 0, sizeof inst);
    for (j = 0; j < per; j++) sizes[j] = fz_u8(s) % 2 ? 4 : 8;
    for (i = 0; i < n; i++) {
        inst[i].instance_id = fz_u32(s);
        inst[i].name.ptr = names[i];
        inst[i].name.len = script_name(s, names[i]);
        fz_rec_u(rec, inst[i].instance_id);
        fz_rec_bytes(rec, names[i], inst[i].name.len);
        for (j = 0; j < per; j++) {
            values[i * per + j] = fz_u64(s);
            for (k = 0; k < sizes[j]; k++) bytes[k] = (uint8_t)(values[i * per + j] >> (8 * k));
            fz_rec_bytes(rec, bytes, sizes[j]);
        }
    }
    pcq_put_data_instances_u64(w, inst, n, values, per ? sizes : NULL, per);
}

/* An instance and its per values (4 or 8 bytes each) in one
 * pcq_put_data_instance_u64: the header's macro, whose inline step stores
 * an instance of one value whole. */
static void script_instance_u64(fz_src *s, pcq_writer *w, fz_rec *rec, uint32_t id, const uint8_t *name,
                                size_t n, uint32_t per)
{
    uint8_t sizes[6], bytes[8];
    uint64_t values[6];
    uint32_t j, k;
    fz_rec_u(rec, id);
    fz_rec_bytes(rec, name, n);
    for (j = 0; j < per; j++) {
        sizes[j] = fz_u8(s) % 2 ? 4 : 8;
        values[j] = fz_u64(s);
        for (k = 0; k < sizes[j]; k++) bytes[k] = (uint8_t)(values[j] >> (8 * k));
        fz_rec_bytes(rec, bytes, sizes[j]);
    }
    pcq_put_data_instance_u64(w, id, name, n, values, sizes, per);
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
        fz_rec_bytes(rec, bytes, 4);
    } else if (sel % 3 == 1) {
        uint64_t v = fz_u64(s);
        for (i = 0; i < 8; i++) bytes[i] = (uint8_t)(v >> (8 * i));
        pcq_put_value_u64(w, v);
        fz_rec_bytes(rec, bytes, 8);
    } else {
        uint32_t n = (uint32_t)(sel / 3) % 21;
        for (i = 0; i < n; i++) bytes[i] = fz_u8(s);
        pcq_put_value(w, n ? bytes : NULL, n);
        fz_rec_bytes(rec, bytes, n);
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
    fz_rec_data_header(rec, &h);
    for (i = 0; i < nb; i++) {
        uint32_t type = types[fz_u8(s) % 5], status = fz_u32(s);
        uint32_t nids = 0, ids[6], ninst = 0;
        fz_rec_u(rec, status);
        fz_rec_u(rec, type);
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
            fz_rec_u(rec, nids);
            for (j = 0; j < nids; j++) fz_rec_u(rec, ids[j]);
        }
        if (type == PCQ_PERF_SINGLE_COUNTER) {
            script_value(s, w, rec);
        } else if (type == PCQ_PERF_MULTI_COUNTERS) {
            for (j = 0; j < nids; j++) script_value(s, w, rec);
        } else {
            uint32_t per = type == PCQ_PERF_COUNTERSET ? nids : 1;
            ninst = fz_u8(s) % 4;
            fz_rec_u(rec, ninst);
            if (fz_u8(s) % 3 == 0) { /* the block's instances in one call */
                script_instances(s, w, rec, ninst, per);
                ninst = 0;
            }
            for (j = 0; j < ninst; j++) {
                uint8_t name[FZ_MAX_NAME];
                uint32_t id = fz_u32(s);
                size_t n = script_name(s, name);
                if (id & 1) { /* the instance and its values a call */
                    script_instance_u64(s, w, rec, id, name, n, per);
                    continue;
                }
                pcq_put_data_instance(w, id, name, n);
                fz_rec_u(rec, id);
                fz_rec_bytes(rec, name, n);
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
        fz_rec_cset(rec, &set);
        for (i = 0; i < n; i++) {
            script_creg(s, &c);
            pcq_put_counter_reg(&w, &c);
            fz_rec_creg(rec, &c);
        }
        break;
    }
    case PCQ_KIND_COUNTER_INFO: {
        pcq_counter_reg c;
        script_creg(s, &c);
        pcq_put_counter_reg(&w, &c);
        fz_rec_creg(rec, &c);
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
            e[i].offset = fz_u32(s); /* ignored by the writer */
            if (e[i].present) {
                e[i].text.len = script_name(s, texts[i]);
                e[i].text.ptr = texts[i];
                any = 1;
            }
        }
        pcq_put_strings(&w, n ? e : NULL, n, conv);
        fz_rec_u(rec, n);
        fz_rec_u(rec, (uint64_t)(!any                      ? PCQ_STROFF_NONE
                                 : conv == PCQ_STROFF_SPEC ? PCQ_STROFF_SPEC
                                                           : PCQ_STROFF_WIN32));
        for (i = 0; i < n; i++) {
            fz_rec_u(rec, e[i].counter_id);
            fz_rec_u(rec, (uint64_t)e[i].present);
            if (e[i].present) fz_rec_bytes(rec, e[i].text.ptr, e[i].text.len);
        }
        break;
    }
    case PCQ_KIND_STRING: {
        size_t len = script_name(s, name);
        pcq_put_string(&w, name, len);
        fz_rec_bytes(rec, name, len);
        break;
    }
    case PCQ_KIND_GUID: {
        pcq_guid g;
        script_guid(s, &g);
        pcq_put_guid(&w, &g);
        fz_rec_guid(rec, &g);
        break;
    }
    case PCQ_KIND_GUIDS: {
        pcq_guid g;
        n = fz_u8(s) % 6;
        fz_rec_u(rec, n);
        for (i = 0; i < n; i++) {
            script_guid(s, &g);
            pcq_put_guid(&w, &g);
            fz_rec_guid(rec, &g);
        }
        break;
    }
    case PCQ_KIND_INSTANCES:
        n = fz_u8(s) % 6;
        for (i = 0; i < n; i++) {
            uint32_t id = fz_u32(s);
            size_t len = script_name(s, name);
            pcq_put_instance(&w, id, name, len);
            fz_rec_u(rec, id);
            fz_rec_bytes(rec, name, len);
        }
        fz_rec_u(rec, n);
        break;
    case PCQ_KIND_IDENTIFIERS: {
        pcq_identifier id;
        n = fz_u8(s) % 6;
        for (i = 0; i < n; i++) {
            memset(&id, 0, sizeof id);
            script_guid(s, &id.guid);
            id.status = fz_u32(s);
            id.size = fz_u32(s); /* ignored by the writer */
            id.counter_id = fz_u32(s);
            id.instance_id = fz_u32(s);
            id.index = fz_u32(s);
            id.reserved = fz_u32(s);
            id.name.len = script_name(s, name);
            id.name.ptr = name;
            pcq_put_identifier(&w, &id);
            fz_rec_ident(rec, &id);
        }
        fz_rec_u(rec, n);
        break;
    }
    default: script_data(s, &w, rec); break;
    }
    *rc = pcq_writer_finish(&w, out_len);
    return kind;
}
#endif /* PCQ_NO_ENCODER */
