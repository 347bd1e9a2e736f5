/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cook.c - pcq_calc_cook on a counterset and two data samples.
 *
 * Byte 0 bit 7 set: script mode. The rest describes a counterset (counter ids
 * from a small set so related counters and blocks find each other), a shape
 * of data blocks (types, ids, instances) and two sets of values; the writer
 * builds counterset-info, the older and the newer data buffer (same shape,
 * optionally perturbed) and identifiers. Bit 7 clear: four raw buffers, their
 * lengths in bytes 1..8 (u16 each): counterset-info, older data, newer data,
 * identifiers; those that do not decode are left out (the newer and the info
 * must decode). Byte 0 bits 0-3 are the format flags.
 * pcq_calc_cook:
 *   - returns PCQ_OK, PCQ_ERR_BUFFER_TOO_SMALL (sizing; offset 0) or
 *     PCQ_ERR_INVALID_ARG at an offset inside the newer buffer, nothing else
 *     (no work budget, no PCQ_ERR_LIMIT: the cook is linear by design, D12);
 *   - given exactly the capacity the sizing call asked for, fills at most
 *     that many rows (the rest is its working memory) or finds the counter
 *     id missing; one row fewer is PCQ_ERR_BUFFER_TOO_SMALL with the same
 *     count and no write past the array;
 *   - every row: a known status, a finite value when OK, known notes; an
 *     instance row names a counter of the counterset by index, id, type and
 *     attrib, a block of the newer buffer, a value offset and an instance name
 *     inside the newer buffer (or the identifiers); aggregate rows come last,
 *     for aggregating counters only, and equal the total / average / min / max
 *     of the OK instance rows of their counter;
 *   - without an older sample, two-sample types never compute;
 *   - the same call gives the same rows again.
 */
#include "fuzz_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_IDS 16

typedef struct inputs {
    const uint8_t *info_buf, *old_buf, *new_buf, *ids_buf;
    size_t info_len, old_len, new_len, ids_len;
} inputs;

/* ---------------------------------------------------------------------- */
/* script mode: build the four buffers with the writer                      */
/* ---------------------------------------------------------------------- */
#define SHAPE_BLOCKS 4
#define SHAPE_IDS    4
#define SHAPE_INST   3

typedef struct shape_block {
    uint32_t type, status, nids, ids[SHAPE_IDS], ninst;
    uint32_t inst_id[SHAPE_INST];
    uint8_t name[SHAPE_INST][4];
    size_t name_len[SHAPE_INST];
} shape_block;

typedef struct shape {
    uint32_t nb;
    shape_block b[SHAPE_BLOCKS];
} shape;

static uint32_t small_id(fz_src *s)
{
    return fz_u8(s) % 8;
}

static void put_value(fz_src *s, pcq_writer *w)
{
    uint8_t sel = fz_u8(s), bytes[12];
    unsigned i;
    if (sel % 4 == 0)
        pcq_put_value_u32(w, fz_u32(s));
    else if (sel % 4 == 1)
        pcq_put_value_u64(w, fz_u64(s));
    else if (sel % 4 == 2)
        pcq_put_value_u64(w, fz_u8(s)); /* small: deltas stay sane */
    else {
        uint32_t n = (uint32_t)(sel / 4) % 13;
        for (i = 0; i < n; i++) bytes[i] = fz_u8(s);
        pcq_put_value(w, bytes, n);
    }
}

static void read_shape(fz_src *s, shape *sh)
{
    static const uint32_t types[] = {0, 1, 2, 4, 6};
    uint32_t i, j;
    memset(sh, 0, sizeof *sh);
    sh->nb = 1 + fz_u8(s) % SHAPE_BLOCKS;
    for (i = 0; i < sh->nb; i++) {
        shape_block *b = &sh->b[i];
        b->type = types[fz_u8(s) % 5];
        b->status = fz_u8(s) & 1;
        if (b->type == 2 || b->type == 6) {
            b->nids = fz_u8(s) % (SHAPE_IDS + 1);
            for (j = 0; j < b->nids; j++) b->ids[j] = small_id(s);
        }
        if (b->type == 4 || b->type == 6) {
            b->ninst = fz_u8(s) % (SHAPE_INST + 1);
            for (j = 0; j < b->ninst; j++) {
                uint8_t c = fz_u8(s);
                b->inst_id[j] = c % 4;
                b->name_len[j] = (c >> 2) % 3 * 2; /* "", "a", "aa" in UTF-16 */
                memcpy(b->name[j], "a\0a\0", 4);
            }
        }
    }
}

/* One data buffer of the shape, values from the script; perturb: swap the
 * first two instances of every block. */
static size_t write_data(fz_src *s, const shape *sh, uint64_t t, int perturb, uint8_t *dst, size_t cap)
{
    pcq_writer w;
    pcq_data h;
    size_t len = 0;
    uint32_t i, j, k;
    memset(&h, 0, sizeof h);
    h.perf_time_stamp = t;
    h.perf_time_100nsec = t * 10;
    h.perf_freq = 1u + (uint64_t)(fz_u8(s) % 4) * 1000u;
    pcq_writer_init(&w, dst, cap);
    pcq_begin_data(&w, &h);
    for (i = 0; i < sh->nb; i++) {
        const shape_block *b = &sh->b[i];
        if (b->type == 0) {
            pcq_put_error_block(&w, b->status);
            continue;
        }
        pcq_begin_block(&w, b->type, 0, b->nids ? b->ids : NULL, b->nids);
        if (b->type == 1) put_value(s, &w);
        if (b->type == 2)
            for (j = 0; j < b->nids; j++) put_value(s, &w);
        if (b->type == 4 || b->type == 6)
            for (k = 0; k < b->ninst; k++) {
                uint32_t x = perturb && b->ninst >= 2 && k < 2 ? 1 - k : k;
                pcq_put_data_instance(&w, b->inst_id[x], b->name[x], b->name_len[x]);
                for (j = 0; j < (b->type == 6 ? b->nids : 1); j++) put_value(s, &w);
            }
        pcq_end_block(&w);
    }
    pcq_end_data(&w);
    FZ_CHECK(pcq_writer_finish(&w, &len) == PCQ_OK, "cook script: the writer failed");
    return len;
}

static void build(fz_src *s, uint8_t *bufs[4], inputs *in)
{
    static const uint32_t inst_types[] = {0, 2, 4, 6, 0xC, 0x16};
    pcq_writer w;
    pcq_counterset_reg set;
    pcq_counter_reg c;
    pcq_identifier id;
    shape sh;
    uint64_t t0;
    uint32_t i, n;
    size_t len = 0;
    const size_t cap = 4096;
    int perturb, with_old;

    for (i = 0; i < 4; i++) {
        bufs[i] = (uint8_t *)malloc(cap);
        FZ_CHECK(bufs[i] != NULL, "out of memory");
    }
    /* counterset-info */
    memset(&set, 0, sizeof set);
    set.detail_level = 100;
    set.instance_type = inst_types[fz_u8(s) % 6];
    set.num_counters = n = 1 + fz_u8(s) % 6;
    pcq_writer_init(&w, bufs[0], cap);
    pcq_put_counterset_reg(&w, &set);
    for (i = 0; i < n; i++) {
        const pcq_calc_type *t = pcq_calc_type_at(fz_u8(s) % 40);
        memset(&c, 0, sizeof c);
        c.counter_id = small_id(s);
        c.type = t ? t->type : fz_u32(s);
        c.attrib = fz_u8(s) & 0x1F;
        c.detail_level = 100;
        c.default_scale = (int32_t)(fz_u8(s) % 25) - 12;
        c.base_counter_id = small_id(s);
        c.perf_time_id = small_id(s);
        c.perf_freq_id = small_id(s);
        c.multi_id = small_id(s);
        c.aggregate_func = fz_u8(s) % 6;
        pcq_put_counter_reg(&w, &c);
    }
    FZ_CHECK(pcq_writer_finish(&w, &in->info_len) == PCQ_OK, "cook script: counterset-info");
    in->info_buf = bufs[0];

    read_shape(s, &sh);
    perturb = fz_u8(s) & 1;
    with_old = !(fz_u8(s) & 0x80);
    t0 = fz_u32(s);
    len = write_data(s, &sh, t0, 0, bufs[1], cap);
    in->old_buf = with_old ? bufs[1] : NULL;
    in->old_len = with_old ? len : 0;
    in->new_len = write_data(s, &sh, t0 + fz_u8(s), perturb, bufs[2], cap);
    in->new_buf = bufs[2];

    /* identifiers */
    pcq_writer_init(&w, bufs[3], cap);
    n = fz_u8(s) % 5;
    for (i = 0; i < n; i++) {
        memset(&id, 0, sizeof id);
        id.counter_id = small_id(s);
        id.instance_id = fz_u8(s) % 4;
        id.index = fz_u8(s) % 5;
        id.name.ptr = (const uint8_t *)"b\0";
        id.name.len = fz_u8(s) & 2;
        pcq_put_identifier(&w, &id);
    }
    FZ_CHECK(pcq_writer_finish(&w, &in->ids_len) == PCQ_OK, "cook script: identifiers");
    in->ids_buf = bufs[3];
}

/* ---------------------------------------------------------------------- */
/* the checks                                                               */
/* ---------------------------------------------------------------------- */
static int inside(const uint8_t *p, size_t n, const uint8_t *buf, size_t len)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)buf;
    return a >= b && a - b <= len && n <= len - (size_t)(a - b);
}

static int two_sample(uint32_t type)
{
    const pcq_calc_type *t = pcq_calc_type_info(type);
    return t && t->samples == 2;
}

/* Where the group of row g ends: the rows of one instance (its block and
 * _PERF_INSTANCE_HEADER) are a group; a row without an instance header is
 * one alone. */
static size_t group_end(const pcq_calc_row *rows, size_t n, size_t g)
{
    size_t e = g + 1;
    while (e < n && !rows[e].is_aggregate && rows[g].instance_offset != 0 &&
           rows[e].instance_offset == rows[g].instance_offset && rows[e].block_index == rows[g].block_index)
        e++;
    return e;
}

/* Groups g..ge and h..he stand for the same counters under the same name
 * (pcq_calc.c name_cmp: first counter, length, name). */
static int same_name(const pcq_calc_row *rows, size_t g, size_t ge, size_t h, size_t he)
{
    return rows[h].has_instance && rows[g].counter_id == rows[h].counter_id && ge - g == he - h &&
           rows[g].instance.len == rows[h].instance.len &&
           (rows[g].instance.len == 0 ||
            memcmp(rows[g].instance.ptr, rows[h].instance.ptr, rows[g].instance.len) == 0);
}

/* name#n recomputed the slow way, by its definition (formulas.md): a
 * group's n counts the groups of its name before it by InstanceId, then
 * position; every row of a group has its n; a row of no instance 0. The
 * cook sorts hashed buckets of names (D12), whose orders names crafted to
 * collide or fuzzed ones choose: this checks what they must come to. */
static void check_names(const pcq_calc_row *rows, size_t n)
{
    size_t g, ge, h, he, i;
    uint32_t dup;
    for (g = 0; g < n && !rows[g].is_aggregate; g = ge) {
        ge = group_end(rows, n, g);
        dup = 0;
        for (h = 0; rows[g].has_instance && h < n && !rows[h].is_aggregate; h = he) {
            he = group_end(rows, n, h);
            dup += h != g && same_name(rows, g, ge, h, he) &&
                   (rows[h].instance_id < rows[g].instance_id ||
                    (rows[h].instance_id == rows[g].instance_id && h < g));
        }
        for (i = g; i < ge; i++)
            FZ_CHECK(rows[i].dup_index == dup, "row %zu: name#%u, by the definition name#%u", i,
                     rows[i].dup_index, dup);
    }
}

static void check_rows(const pcq_counterset_info *info, const pcq_data *newer, int with_old, const inputs *in,
                       const pcq_calc_row *rows, size_t n)
{
    size_t i, k, ninst = 0;
    int in_aggr = 0;
    for (i = 0; i < n; i++) {
        const pcq_calc_row *r = &rows[i];
        pcq_counter_reg c;
        FZ_CHECK(r->status >= 0 && r->status < PCQ_CALC_STATUS_END_, "row %zu: status %d", i, r->status);
        FZ_CHECK((r->notes & ~7u) == 0, "row %zu: notes 0x%x", i, r->notes);
        FZ_CHECK(!(r->notes & PCQ_CALC_NOTE_BASE_ZERO) || r->type == 0x40030401u,
                 "row %zu: BASE_ZERO on type 0x%08x", i, r->type);
        if (r->status == PCQ_CALC_OK)
            FZ_CHECK(isfinite(r->value), "row %zu: OK with a value that is not finite", i);
        FZ_CHECK(r->info_index < info->set.num_counters, "row %zu: info_index %u of %u", i, r->info_index,
                 info->set.num_counters);
        FZ_CHECK(pcq_counterset_counter(info, r->info_index, &c) == PCQ_OK && c.counter_id == r->counter_id &&
                     c.type == r->type && c.attrib == r->attrib,
                 "row %zu: counter %u is not counter %u of the counterset", i, r->counter_id, r->info_index);
        if (r->is_aggregate) {
            double acc = 0.0;
            uint32_t used = 0;
            in_aggr = 1;
            FZ_CHECK(r->aggregate_func >= 1 && r->aggregate_func <= 4 &&
                         r->aggregate_func == c.aggregate_func,
                     "row %zu: aggregate_func %u", i, r->aggregate_func);
            for (k = 0; k < ninst; k++) {
                double v = rows[k].value;
                if (!rows[k].has_instance || rows[k].info_index != r->info_index ||
                    rows[k].status != PCQ_CALC_OK)
                    continue;
                if (used == 0 || r->aggregate_func <= 2)
                    acc = used == 0 ? v : acc + v;
                else if (r->aggregate_func == 3 ? v < acc : v > acc)
                    acc = v;
                used++;
            }
            if (r->status == PCQ_CALC_OK) {
                if (r->aggregate_func == 2) acc /= (double)used;
                FZ_CHECK(used == r->instances_used && used > 0 &&
                             (memcmp(&acc, &r->value, sizeof acc) == 0 || (acc == 0.0 && r->value == 0.0)),
                         "aggregate row %zu (func %u): %.17g from %u instances, recomputed "
                         "%.17g from %u",
                         i, r->aggregate_func, r->value, r->instances_used, acc, used);
            } else if (r->status == PCQ_CALC_NO_INSTANCE) {
                FZ_CHECK(used == 0, "aggregate row %zu: NO_INSTANCE but %u OK instances", i, used);
            }
            continue;
        }
        FZ_CHECK(!in_aggr, "row %zu: an instance row after the aggregates", i);
        ninst++;
        FZ_CHECK(r->block_index < newer->num_counters, "row %zu: block %u of %u", i, r->block_index,
                 newer->num_counters);
        FZ_CHECK(r->offset >= 48 && r->offset < in->new_len, "row %zu: value offset %zu", i, r->offset);
        FZ_CHECK(r->instance_offset == 0 || (r->instance_offset >= 48 && r->instance_offset < in->new_len),
                 "row %zu: instance offset %zu", i, r->instance_offset);
        if (r->instance.len)
            FZ_CHECK(inside(r->instance.ptr, r->instance.len, in->new_buf, in->new_len) ||
                         inside(r->instance.ptr, r->instance.len, in->ids_buf, in->ids_len),
                     "row %zu: instance name outside the newer buffer and the identifiers", i);
        FZ_CHECK(r->dup_index < n, "row %zu: dup_index %u", i, r->dup_index);
        if (!with_old && two_sample(r->type))
            FZ_CHECK(r->status != PCQ_CALC_OK,
                     "row %zu: two-sample type 0x%08x without an older "
                     "sample",
                     i, r->type);
    }
}

static void cook(const inputs *in, unsigned flags)
{
    pcq_counterset_info info;
    pcq_data older, newer;
    pcq_identifier ids[MAX_IDS];
    pcq_iter it;
    pcq_error e;
    pcq_calc_row *rows, *again;
    size_t n_ids = 0, need = 0, got = 0, i;
    int rc, with_old;

    if (pcq_decode_counterset_info(in->info_buf, in->info_len, NULL, &info, NULL) != PCQ_OK ||
        pcq_decode_data(in->new_buf, in->new_len, NULL, &newer, NULL) != PCQ_OK)
        return;
    with_old = in->old_buf && pcq_decode_data(in->old_buf, in->old_len, NULL, &older, NULL) == PCQ_OK;
    if (in->ids_buf && pcq_decode_identifiers(in->ids_buf, in->ids_len, NULL, NULL, NULL) == 0) {
        pcq_identifiers_begin(in->ids_buf, in->ids_len, &it);
        while (n_ids < MAX_IDS && pcq_identifiers_next(&it, &ids[n_ids]) == 1) n_ids++;
    }

    /* Caller errors first: PCQ_ERR_INVALID_ARG, nothing else happens. */
    FZ_CHECK(
        pcq_calc_cook(NULL, NULL, &newer, NULL, 0, flags, NULL, 0, &need, &e) == PCQ_ERR_INVALID_ARG &&
            pcq_calc_cook(&info, NULL, NULL, NULL, 0, flags, NULL, 0, &need, &e) == PCQ_ERR_INVALID_ARG &&
            pcq_calc_cook(&info, NULL, &newer, NULL, 0, flags, NULL, 0, NULL, &e) == PCQ_ERR_INVALID_ARG &&
            pcq_calc_cook(&info, NULL, &newer, NULL, 0, flags, NULL, 1, &need, &e) == PCQ_ERR_INVALID_ARG &&
            pcq_calc_cook(&info, NULL, &newer, NULL, 1, flags, NULL, 0, &need, &e) == PCQ_ERR_INVALID_ARG,
        "pcq_calc_cook accepts a NULL info, newer, count, rows or ids");
    memset(&e, 0, sizeof e);
    rc = pcq_calc_cook(&info, with_old ? &older : NULL, &newer, n_ids ? ids : NULL, n_ids, flags, NULL, 0,
                       &need, &e);
    FZ_CHECK(rc == PCQ_OK || rc == PCQ_ERR_BUFFER_TOO_SMALL || rc == PCQ_ERR_INVALID_ARG,
             "pcq_calc_cook sizing: %s", pcq_status_name(rc));
    FZ_CHECK(e.code == rc || rc == PCQ_OK, "pcq_calc_cook returns %s, err.code %s", pcq_status_name(rc),
             pcq_status_name(e.code));
    if (rc == PCQ_ERR_INVALID_ARG) {
        FZ_CHECK(e.offset < in->new_len && e.what != NULL, "pcq_calc_cook: %s at %zu of %zu",
                 pcq_status_name(rc), e.offset, in->new_len);
        return;
    }
    FZ_CHECK((rc == PCQ_OK) == (need == 0), "pcq_calc_cook sizing: %s with %zu rows", pcq_status_name(rc),
             need);
    if (rc == PCQ_ERR_BUFFER_TOO_SMALL) FZ_CHECK(e.offset == 0, "too small at %zu", e.offset);

    rows = (pcq_calc_row *)malloc((need ? need : 1) * sizeof *rows);
    again = (pcq_calc_row *)malloc((need ? need : 1) * sizeof *rows);
    FZ_CHECK(rows && again, "out of memory");
    rc = pcq_calc_cook(&info, with_old ? &older : NULL, &newer, n_ids ? ids : NULL, n_ids, flags, rows, need,
                       &got, &e);
    FZ_CHECK(rc == PCQ_OK || rc == PCQ_ERR_INVALID_ARG, "pcq_calc_cook into %zu rows: %s", need,
             pcq_status_name(rc));
    if (rc == PCQ_OK) {
        size_t first = got;
        FZ_CHECK(got <= need, "pcq_calc_cook asked for %zu rows, filled %zu", need, got);
        check_rows(&info, &newer, with_old, in, rows, got);
        check_names(rows, got);
        memset(again, 0, need * sizeof *again);
        rc = pcq_calc_cook(&info, with_old ? &older : NULL, &newer, n_ids ? ids : NULL, n_ids, flags, again,
                           need, &got, &e);
        FZ_CHECK(rc == PCQ_OK && got == first, "pcq_calc_cook twice: %s, %zu rows then %zu",
                 pcq_status_name(rc), first, got);
        for (i = 0; i < got; i++)
            FZ_CHECK(rows[i].status == again[i].status && rows[i].offset == again[i].offset &&
                         rows[i].dup_index == again[i].dup_index &&
                         memcmp(&rows[i].value, &again[i].value, sizeof(double)) == 0,
                     "pcq_calc_cook twice: row %zu differs", i);
    } else {
        FZ_CHECK(e.offset < in->new_len && e.what != NULL, "pcq_calc_cook: %s at %zu of %zu",
                 pcq_status_name(rc), e.offset, in->new_len);
    }
    if (need > 0) {
        /* One row short: exactly need - 1 rows on the heap. */
        pcq_calc_row *few = (pcq_calc_row *)malloc(need - 1 ? (need - 1) * sizeof *few : 1);
        FZ_CHECK(few != NULL, "out of memory");
        rc = pcq_calc_cook(&info, with_old ? &older : NULL, &newer, n_ids ? ids : NULL, n_ids, flags,
                           need - 1 ? few : NULL, need - 1, &got, &e);
        FZ_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && got == need, "pcq_calc_cook with %zu of %zu rows: %s, %zu",
                 need - 1, need, pcq_status_name(rc), got);
        free(few);
    }
    free(rows);
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    inputs in;
    unsigned flags;
    if (size < 1) return 0;
    flags = data[0] & 0x0F;
    memset(&in, 0, sizeof in);
    if (data[0] & 0x80) {
        uint8_t *bufs[4];
        fz_src s;
        int i;
        s.p = data + 1;
        s.len = size - 1;
        s.pos = 0;
        build(&s, bufs, &in);
        cook(&in, flags);
        for (i = 0; i < 4; i++) free(bufs[i]);
    } else {
        size_t lens[4], pos = 9, i;
        const uint8_t *p[4];
        if (size < 9) return 0;
        for (i = 0; i < 4; i++) {
            lens[i] = (size_t)data[1 + 2 * i] | (size_t)data[2 + 2 * i] << 8;
            if (lens[i] > size - pos) lens[i] = size - pos;
            p[i] = data + pos;
            pos += lens[i];
        }
        in.info_buf = p[0];
        in.info_len = lens[0];
        in.old_buf = lens[1] ? p[1] : NULL;
        in.old_len = lens[1];
        in.new_buf = p[2];
        in.new_len = lens[2];
        in.ids_buf = lens[3] ? p[3] : NULL;
        in.ids_len = lens[3];
        cook(&in, flags);
    }
    return 0;
}
