/* SPDX-License-Identifier: MIT */
/*
 * fuzz_capacity.c - the encoders with too little room.
 *
 * Byte 0 selects, byte 1 picks one more capacity to try (need * byte / 256),
 * the rest is the input. Three modes:
 *   bit 7 clear, bit 6 clear: pcq_reencode of a buffer of the kind in the low
 *     4 bits (only decodable buffers go on);
 *   bit 7 set: the writer API driven by fz_write_script (a valid sequence);
 *   bit 6 set (bit 7 clear): "chaos", any sequence of writer calls with any
 *     arguments, NULL pointers and bad states included.
 * With N the size a sizing pass (dst == NULL) reports:
 *   - cap = N - 1, the picked cap and cap = 0 give PCQ_ERR_BUFFER_TOO_SMALL
 *     with N as the size needed, and nothing is written at or past cap (the
 *     buffer is exactly cap bytes for ASan, and a canary follows a copy);
 *   - cap = N and cap = N + 16 succeed with the same bytes, nothing past N;
 * and in chaos mode: errors are sticky (after the first, every call returns it
 * and produces nothing, and finish returns it), and the same calls give the
 * same status whatever the buffer. With byte 1 = 0xFF also: a value too big
 * for the 32-bit size fields is PCQ_ERR_OVERFLOW, never a wrapped size; with
 * 0xFE (and small compile-time caps): one block or instance past the caps is
 * PCQ_ERR_LIMIT, also into a buffer (the writer's fast paths).
 */
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CANARY      16
#define CANARY_BYTE 0xCD

/* What one run into (dst, cap) produced. */
typedef struct out {
    int rc;
    size_t len;
} out;

typedef out (*producer)(const void *ctx, void *dst, size_t cap);

/* ---- pcq_reencode ---- */
typedef struct re_ctx {
    pcq_kind kind;
    const uint8_t *buf;
    size_t len;
} re_ctx;

static out run_reencode(const void *ctx, void *dst, size_t cap)
{
    const re_ctx *c = (const re_ctx *)ctx;
    pcq_error e;
    out o;
    o.len = 777;
    o.rc = pcq_reencode(c->kind, c->buf, c->len, dst, cap, &o.len, &e);
    FZ_CHECK(e.code == o.rc, "pcq_reencode returns %s, err.code %s", pcq_status_name(o.rc),
             pcq_status_name(e.code));
    if (o.rc == PCQ_ERR_BUFFER_TOO_SMALL)
        FZ_CHECK(e.offset == 0 && e.what != NULL, "too small: err at %zu (%s)", e.offset,
                 e.what ? e.what : "NULL");
    return o;
}

/* ---- the writer, from a script ---- */
typedef struct sc_ctx {
    const uint8_t *p;
    size_t n;
} sc_ctx;

static out run_script(const void *ctx, void *dst, size_t cap)
{
    const sc_ctx *c = (const sc_ctx *)ctx;
    fz_src s;
    out o;
    s.p = c->p;
    s.len = c->n;
    s.pos = 0;
    fz_write_script(&s, dst, cap, &o.rc, &o.len, NULL);
    return o;
}

/* ---- chaos: any writer calls ---- */
static size_t chaos_text(fz_src *s, uint8_t *t, size_t cap)
{
    size_t n = fz_u8(s) % (cap + 1), i;
    for (i = 0; i < n; i++) t[i] = fz_u8(s); /* odd lengths and NULs too */
    return n;
}

static out run_chaos(const void *ctx, void *dst, size_t cap)
{
    const sc_ctx *c = (const sc_ctx *)ctx;
    fz_src s;
    pcq_writer w;
    int first = PCQ_OK, ops = 0;
    out o;
    s.p = c->p;
    s.len = c->n;
    s.pos = 0;
    pcq_writer_init(&w, dst, cap);
    while (s.pos < s.len && ops++ < 48) {
        uint8_t op = fz_u8(&s), t[16], name[12];
        uint32_t ids[8], n;
        size_t before = w.len, nb, i;
        int rc = PCQ_OK, null = (op & 0x80) != 0;
        pcq_counterset_reg set;
        pcq_counter_reg creg;
        pcq_guid g;
        pcq_identifier id;
        pcq_string_entry ent[4];
        pcq_data h;
        memset(&set, 0, sizeof set);
        memset(&creg, 0, sizeof creg);
        memset(&g, 0, sizeof g);
        memset(&id, 0, sizeof id);
        memset(ent, 0, sizeof ent);
        memset(&h, 0, sizeof h);
        switch (op % 16) {
        case 0:
            set.num_counters = fz_u32(&s);
            rc = pcq_put_counterset_reg(&w, null ? NULL : &set);
            break;
        case 1:
            creg.default_scale = (int32_t)fz_u32(&s);
            rc = pcq_put_counter_reg(&w, null ? NULL : &creg);
            break;
        case 2:
            nb = chaos_text(&s, t, sizeof t);
            rc = pcq_put_string(&w, null ? NULL : t, nb);
            break;
        case 3: rc = pcq_put_guid(&w, null ? NULL : &g); break;
        case 4:
            nb = chaos_text(&s, t, sizeof t);
            rc = pcq_put_instance(&w, fz_u32(&s), null ? NULL : t, nb);
            break;
        case 5:
            id.name.len = chaos_text(&s, t, sizeof t);
            id.name.ptr = t;
            if (fz_u8(&s) & 1) id.name.ptr = NULL;
            rc = pcq_put_identifier(&w, null ? NULL : &id);
            break;
        case 6:
            n = fz_u8(&s) % 5;
            for (i = 0; i < n; i++) {
                ent[i].present = fz_u8(&s) & 1;
                ent[i].text.len = chaos_text(&s, name, sizeof name);
                ent[i].text.ptr = name;
            }
            rc = pcq_put_strings(&w, null ? NULL : ent, n, (pcq_str_convention)(fz_u8(&s) % 4));
            break;
        case 7: rc = pcq_begin_data(&w, null ? NULL : &h); break;
        case 8: rc = pcq_put_error_block(&w, fz_u32(&s)); break;
        case 9:
            n = fz_u8(&s) % 9;
            for (i = 0; i < n; i++) ids[i] = fz_u32(&s);
            rc = pcq_begin_block(&w, fz_u8(&s) % 8, 0, null ? NULL : ids, n);
            break;
        case 10:
            nb = chaos_text(&s, t, sizeof t);
            rc = pcq_put_data_instance(&w, 0, null ? NULL : t, nb);
            break;
        case 11:
            nb = chaos_text(&s, t, sizeof t);
            rc = pcq_put_value(&w, null ? NULL : t, (uint32_t)nb);
            break;
        case 12: rc = pcq_put_value_u32(&w, fz_u32(&s)); break;
        case 13: rc = pcq_put_value_u64(&w, fz_u64(&s)); break;
        case 14: rc = pcq_end_block(&w); break;
        default: rc = pcq_end_data(&w); break;
        }
        if (first != PCQ_OK) {
            FZ_CHECK(rc == first, "after %s, op %u returned %s", pcq_status_name(first), op % 16,
                     pcq_status_name(rc));
            FZ_CHECK(w.len == before, "after %s, op %u produced %zu bytes", pcq_status_name(first), op % 16,
                     w.len - before);
        } else if (rc != PCQ_OK) {
            FZ_CHECK(rc < 0 && rc != PCQ_ERR_BUFFER_TOO_SMALL, "writer op %u returned %s (%d)", op % 16,
                     pcq_status_name(rc), rc);
            first = rc;
        }
        FZ_CHECK(w.err == first, "w.err %d, first error %d", w.err, first);
    }
    o.len = 999;
    o.rc = pcq_writer_finish(&w, &o.len);
    if (first != PCQ_OK)
        FZ_CHECK(o.rc == first && o.len == 0, "finish after %s returns %s, len %zu", pcq_status_name(first),
                 pcq_status_name(o.rc), o.len);
    return o;
}

/* Sizes that do not fit the wire's 32-bit fields: a value of almost 4 GiB,
 * in a sizing pass (nothing is read or written). The writer must
 * report PCQ_ERR_OVERFLOW, by the end of the block at the latest, and never
 * wrap a size. */
static void check_huge(const uint8_t *data, size_t size)
{
    static const uint8_t bytes[1];
    pcq_writer w;
    pcq_data h;
    size_t len = 1;
    /* 0xFFFFFFE8..0xFFFFFFFF: 16 + 8 + the value, padded, passes 2^32. */
    uint32_t n = 0xFFFFFFE8u + (size ? data[size - 1] % 24u : 0u);
    int rc;
    memset(&h, 0, sizeof h);
    pcq_writer_init(&w, NULL, 0);
    FZ_CHECK(pcq_begin_data(&w, &h) == PCQ_OK, "begin_data");
    FZ_CHECK(pcq_begin_block(&w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0) == PCQ_OK, "begin_block");
    rc = pcq_put_value(&w, bytes, n); /* only read for bytes that are stored: none */
    FZ_CHECK(rc == PCQ_OK || rc == PCQ_ERR_OVERFLOW, "a %u-byte value: %s", n, pcq_status_name(rc));
    rc = pcq_end_block(&w);
    FZ_CHECK(rc == PCQ_ERR_OVERFLOW, "a block of more than 4 GiB closes with %s", pcq_status_name(rc));
    FZ_CHECK(pcq_end_data(&w) == PCQ_ERR_OVERFLOW && pcq_writer_finish(&w, &len) == PCQ_ERR_OVERFLOW &&
                 len == 0,
             "after the overflow: not sticky");
}

/* The writer's own caps: dwNumCounter blocks and instances per block stay
 * within PCQ_MAX_COUNTERS and PCQ_MAX_INSTANCES (the decoder's limits), so
 * what it writes can be read back. Only where the caps are small (the
 * coverage build lowers them); with the defaults it would take millions of
 * calls per input. */
#if PCQ_MAX_COUNTERS <= 4096 && PCQ_MAX_INSTANCES <= 4096
/* PCQ_MAX_INSTANCES instances into a buffer, where the writer's fast paths
 * store them (a sizing pass never takes them): a type 6 block with no
 * counters (an instance right after an instance; names of 8 bytes, one pass,
 * or none, the checked path) and a type 4 block (pcq_put_data_instance_u64
 * in one go, or an instance and then its value, whose record ends the unit).
 * What they write decodes with that many instances; one more is
 * PCQ_ERR_LIMIT. */
static void check_limits_dst(void)
{
    static uint8_t dst[96 + PCQ_MAX_INSTANCES * 40];
    static const uint8_t name[8] = {'a', 0, 'b', 0, 'c', 0, 'd', 0};
    static const uint64_t one = 1;
    pcq_writer w;
    pcq_data h, d;
    pcq_iter it;
    pcq_block b;
    uint32_t i;
    size_t len;
    int rc = PCQ_OK, mode, more;
    memset(&h, 0, sizeof h);
    for (mode = 0; mode < 4; mode++)
        for (more = 0; more < 2; more++) {
            int type4 = mode == 1 || mode == 2;
            pcq_writer_init(&w, dst, sizeof dst);
            pcq_begin_data(&w, &h);
            pcq_begin_block(&w, type4 ? PCQ_PERF_MULTI_INSTANCES : PCQ_PERF_COUNTERSET, 0, NULL, 0);
            for (i = 0, rc = PCQ_OK; i < PCQ_MAX_INSTANCES + (uint32_t)more && rc == PCQ_OK; i++) {
                if (mode == 1) {
                    rc = pcq_put_data_instance_u64(&w, i, name, 8, &one, NULL, 1);
                    continue;
                }
                rc = pcq_put_data_instance(&w, i, mode == 3 ? NULL : name, mode == 3 ? 0 : 8);
                if (rc == PCQ_OK && mode == 2) rc = pcq_put_value_u32(&w, i);
            }
            if (more) {
                FZ_CHECK(rc == PCQ_ERR_LIMIT && i == PCQ_MAX_INSTANCES + 1u,
                         "mode %d: instance %u past PCQ_MAX_INSTANCES: %s", mode, i, pcq_status_name(rc));
                continue;
            }
            pcq_end_block(&w);
            pcq_end_data(&w);
            rc = pcq_writer_finish(&w, &len);
            FZ_CHECK(rc == PCQ_OK, "mode %d: PCQ_MAX_INSTANCES instances: %s", mode, pcq_status_name(rc));
            FZ_CHECK(pcq_decode_data(dst, len, NULL, &d, NULL) == PCQ_OK,
                     "mode %d: the buffer does not decode", mode);
            pcq_data_blocks(&d, &it);
            FZ_CHECK(pcq_blocks_next(&it, &b) == 1 && b.num_instances == PCQ_MAX_INSTANCES,
                     "mode %d: the block does not have PCQ_MAX_INSTANCES instances", mode);
        }
}
#endif

static void check_limits(const uint8_t *data, size_t size)
{
#if PCQ_MAX_COUNTERS <= 4096 && PCQ_MAX_INSTANCES <= 4096
    pcq_writer w;
    pcq_data h;
    uint32_t i;
    int rc = PCQ_OK;
    int block_kind = size > 2 && (data[2] & 1);
    memset(&h, 0, sizeof h);
    pcq_writer_init(&w, NULL, 0);
    pcq_begin_data(&w, &h);
    for (i = 0; i < PCQ_MAX_COUNTERS && rc == PCQ_OK; i++) {
        rc = block_kind ? pcq_put_error_block(&w, 0)
                        : pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, NULL, 0);
        if (rc == PCQ_OK && !block_kind) rc = pcq_end_block(&w);
    }
    FZ_CHECK(rc == PCQ_OK, "block %u of %u: %s", i, (unsigned)PCQ_MAX_COUNTERS, pcq_status_name(rc));
    rc = block_kind ? pcq_put_error_block(&w, 0) : pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, NULL, 0);
    FZ_CHECK(rc == PCQ_ERR_LIMIT, "block %u past PCQ_MAX_COUNTERS: %s", i + 1, pcq_status_name(rc));

    pcq_writer_init(&w, NULL, 0);
    pcq_begin_data(&w, &h);
    pcq_begin_block(&w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
    for (i = 0; i < PCQ_MAX_INSTANCES && rc != PCQ_ERR_STATE; i++) {
        rc = pcq_put_data_instance(&w, i, NULL, 0);
        if (rc == PCQ_OK) rc = pcq_put_value_u32(&w, i);
        FZ_CHECK(rc == PCQ_OK, "instance %u: %s", i, pcq_status_name(rc));
    }
    rc = pcq_put_data_instance(&w, i, NULL, 0);
    FZ_CHECK(rc == PCQ_ERR_LIMIT, "instance %u past PCQ_MAX_INSTANCES: %s", i + 1, pcq_status_name(rc));
    check_limits_dst();
#else
    (void)data;
    (void)size;
#endif
}

/* Runs f into exactly cap bytes on the heap (ASan) and into a copy followed
 * by a canary (for builds without ASan); both must agree and keep the canary. */
static out run_cap(producer f, const void *ctx, size_t cap, uint8_t *copy_out)
{
    uint8_t *exact = (uint8_t *)malloc(cap ? cap : 1), *guarded = (uint8_t *)malloc(cap + CANARY);
    out a, b;
    size_t i;
    FZ_CHECK(exact && guarded, "out of memory");
    memset(guarded, CANARY_BYTE, cap + CANARY);
    a = f(ctx, exact, cap);
    b = f(ctx, guarded, cap);
    FZ_CHECK(a.rc == b.rc && a.len == b.len, "the same calls give %s/%zu and %s/%zu", pcq_status_name(a.rc),
             a.len, pcq_status_name(b.rc), b.len);
    for (i = 0; i < CANARY; i++)
        FZ_CHECK(guarded[cap + i] == CANARY_BYTE, "a byte written at cap + %zu (cap %zu)", i, cap);
    if (a.rc == PCQ_OK) FZ_CHECK(memcmp(exact, guarded, a.len) == 0, "the same calls wrote different bytes");
    if (copy_out && a.rc == PCQ_OK) memcpy(copy_out, exact, a.len);
    free(exact);
    free(guarded);
    return a;
}

static void check_caps(producer f, const void *ctx, uint8_t cut, int must_succeed)
{
    out sz = f(ctx, NULL, 0), r;
    uint8_t *full, *big;
    size_t caps[3], i;
    if (sz.rc != PCQ_OK) {
        FZ_CHECK(!must_succeed, "sizing pass of a valid sequence: %s", pcq_status_name(sz.rc));
        FZ_CHECK(sz.rc != PCQ_ERR_BUFFER_TOO_SMALL, "sizing pass says the buffer is too small");
        /* A failing sequence fails the same way into a real buffer. */
        r = run_cap(f, ctx, 64, NULL);
        FZ_CHECK(r.rc == sz.rc, "sizing pass says %s, a 64-byte buffer %s", pcq_status_name(sz.rc),
                 pcq_status_name(r.rc));
        return;
    }
    full = (uint8_t *)malloc(sz.len + CANARY + 1);
    big = (uint8_t *)malloc(sz.len + CANARY + 1);
    FZ_CHECK(full && big, "out of memory");
    r = run_cap(f, ctx, sz.len, full);
    FZ_CHECK(r.rc == PCQ_OK && r.len == sz.len, "into the %zu bytes asked for: %s, %zu", sz.len,
             pcq_status_name(r.rc), r.len);
    r = run_cap(f, ctx, sz.len + CANARY, big);
    FZ_CHECK(r.rc == PCQ_OK && r.len == sz.len && memcmp(full, big, sz.len) == 0,
             "into %zu bytes: %s, %zu, or different bytes", sz.len + CANARY, pcq_status_name(r.rc), r.len);
    if (sz.len > 0) {
        caps[0] = sz.len - 1;
        caps[1] = (size_t)((uint64_t)sz.len * cut / 256);
        caps[2] = 0;
        for (i = 0; i < 3; i++) {
            r = run_cap(f, ctx, caps[i], NULL);
            FZ_CHECK(r.rc == PCQ_ERR_BUFFER_TOO_SMALL && r.len == sz.len,
                     "cap %zu of %zu needed: %s, size %zu", caps[i], sz.len, pcq_status_name(r.rc), r.len);
        }
    }
    free(full);
    free(big);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t sel, cut;
    if (size < 2) return 0;
    sel = data[0];
    cut = data[1];
    if (cut == 0xFF) check_huge(data, size);
    if (cut == 0xFE) check_limits(data, size);
    if (sel & 0x80) {
        sc_ctx c;
        c.p = data + 2;
        c.n = size - 2;
        check_caps(run_script, &c, cut, 1);
    } else if (sel & 0x40) {
        sc_ctx c;
        c.p = data + 2;
        c.n = size - 2;
        check_caps(run_chaos, &c, cut, 0);
    } else {
        re_ctx c;
        c.kind = fz_kind_of(sel);
        c.buf = data + 2;
        c.len = size - 2;
        if (pcq_validate(c.kind, c.buf, c.len, NULL, NULL) != PCQ_OK) return 0;
        check_caps(run_reencode, &c, cut, 1);
    }
    return 0;
}
