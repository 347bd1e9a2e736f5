/* SPDX-License-Identifier: MIT */
/*
 * bench/bench.c - speed of the pcq codec against memcpy, in one run.
 *
 * For each shape (bench/shapes.h) at its native size and scaled to about
 * 4 KiB, 1 MiB and 256 MiB, built at start-up with pcq_writer:
 *   validate  pcq_decode_data alone (every block, instance and value checked);
 *   handval   the canonical layout's rules as one hand-written loop
 *             (bench/hand_check.h): validation's yardstick (--cg only);
 *   handwalk  the walk's reading as one hand-written loop that trusts the
 *             bytes (bench/hand_walk.h): the walk's yardstick; timed for the
 *             line under the timed walk's goal (validation + handwalk, the
 *             floor under any walk after validation), not in the table;
 *   walk      the README's walk: pcq_decode_data, then the typed iterators
 *             over every block, instance (its name) and value, summing them;
 *   walk8     the README's example as written, less its printf: the walk,
 *             every name converted to UTF-8 (pcq_utf16_to_utf8) and every
 *             value's counter id taken (pcq_block_counter_id) (--cg only);
 *   batch     the same, a type 2 or 6 block's values in one call of the batch
 *             reader pcq_block_rows_u64 (a type 1 block's through
 *             pcq_values_read_u64, a type 4 instance's with the instance);
 *   scan      one pass that validates as it goes: pcq_walk_next with
 *             PCQ_BULK over every structure (values checked, not read);
 *   pass      the same reading every value (pcq_item_values +
 *             pcq_values_next, as the README's loop) and summing them;
 *   handpass  the same checks and reads as one hand-written loop, no API
 *             (bench/hand_pass.h): the single pass's yardstick;
 *   memcpy    the same buffer copied into another one (yardstick);
 *   sum       the same buffer read by a plain loop summing 64-bit words;
 *   encode    the same content written by pcq_writer, a call a value;
 *   enci      the same an instance a call (pcq_put_data_instance_u64);
 *   encb      the same through the batch writer (a block's instances a call:
 *             pcq_put_data_instances_u64);
 *   handenc   the same bytes by plain hand-written stores (bench/hand_encode.h):
 *             the writers' yardstick (--cg only);
 *   cook      pcq_calc_cook over two samples (every counter of every instance);
 *   column    the same values by pcq_calc_cook_column, a counter at a time
 *             (the columns read with pcq_values_read_u64);
 *   hand      the same formulas written inline over the raw bytes (yardstick).
 * Timings are noisy on a shared machine: the operations of one buffer run in
 * interleaved batches, `reps` times, and each keeps its fastest batch, so
 * the ratios compare figures taken side by side. Heap calls are counted
 * (bench/allocs.c) inside every measured batch and must be 0.
 *
 * Modes:
 *   pcq_bench [--reps N] [--big-reps N] [--batch-ms MS] [--sizes LIST]
 *             [--shapes LIST] [--markdown]
 *   pcq_bench --cg OP --shape S --size Z [--passes N]
 *       runs OP N times inside bench_cg_region() for valgrind
 *       --toggle-collect (see bench/callgrind.sh), and prints the bytes,
 *       values and instances.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "../pcq_codec.h"
#include "allocs.h"
#include "hand_check.h"
#include "hand_encode.h"
#include "hand_walk.h"
#include "hand_pass.h"
#include "readme_walk.h"
#include "shapes.h"

#ifndef BENCH_COOK
#define BENCH_COOK 1
#endif
#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif

#define KiB ((size_t)1024)
#define MiB (KiB * KiB)

/* ------------------------------------------------------------------------ */
/* Small helpers.                                                           */
/* ------------------------------------------------------------------------ */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4); /* the bench runs on little-endian hosts only */
    return v;
}

static uint64_t ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void die(const char *what)
{
    fprintf(stderr, "pcq_bench: %s\n", what);
    exit(2);
}

/* An allocation the size of `n`, every page touched (no faults inside a
 * measurement). */
static uint8_t *alloc_touched(size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    memset(p, 0, n);
    return p;
}

volatile uint64_t bench_sink; /* results go here so nothing is optimised away */

/* ------------------------------------------------------------------------ */
/* The measured operations.                                                 */
/* ------------------------------------------------------------------------ */
/* The same through the batch readers: a type 2 or 6 block's values in one
 * call (pcq_block_rows_u64 into `cols`, room for cap values: enough for the
 * largest block), the instances still walked for their names; a type 1
 * block's value through pcq_values_read_u64; a type 4 instance's one value
 * comes with it, as in the walk. */
static void batch_data(const uint8_t *buf, size_t len, uint64_t *cols, size_t cap, walk_result *r)
{
    pcq_data d;
    pcq_iter bi, ii, vi;
    pcq_block b;
    pcq_data_instance in;
    uint64_t v[64], sum = 0, ninst = 0, nval = 0, names = 0;
    size_t n, k;
    int rc;

    r->rc = pcq_decode_data(buf, len, NULL, &d, NULL);
    if (r->rc != PCQ_OK) return;
    pcq_data_blocks(&d, &bi);
    while ((rc = pcq_blocks_next(&bi, &b)) == 1) {
        if (b.type == PCQ_PERF_MULTI_INSTANCES) { /* one value an instance: it comes with the instance */
            pcq_block_instances(&d, &b, &ii);
            while ((rc = pcq_instances_of_block_next(&ii, &in)) == 1) {
                ninst++;
                names += in.name.len;
                sum += in.value.u64;
                nval++;
            }
        } else if (b.type == PCQ_PERF_COUNTERSET) {
            pcq_block_instances(&d, &b, &ii);
            while ((rc = pcq_instances_of_block_next(&ii, &in)) == 1) {
                ninst++;
                names += in.name.len;
            }
            if (rc < 0 || (rc = pcq_block_rows_u64(&d, &b, cols, cap, &n)) != PCQ_OK) break;
            for (k = 0; k < n; k++) sum += cols[k];
            nval += n;
        } else if (b.type == PCQ_PERF_MULTI_COUNTERS) {
            ninst++;
            if ((rc = pcq_block_rows_u64(&d, &b, cols, cap, &n)) != PCQ_OK) break;
            for (k = 0; k < n; k++) sum += cols[k];
            nval += n;
        } else if (b.type == PCQ_PERF_SINGLE_COUNTER) {
            ninst++;
            pcq_block_values(&d, &b, &vi);
            while ((n = pcq_values_read_u64(&vi, v, 64)) > 0) {
                for (k = 0; k < n; k++) sum += v[k];
                nval += n;
            }
        }
        if (rc < 0) break;
    }
    r->rc = rc < 0 ? rc : PCQ_OK;
    r->sum = sum;
    r->instances = ninst;
    r->values = nval;
    bench_sink += names;
}

/* One pass that validates as it goes (PCQ_BULK): every structure, and each
 * item's values either only counted (scan) or read and summed (pass), a
 * value a step as the README's loop reads them (pcq_values_read_u64 into
 * an array, then a loop over it, cost more: small 2.76 -> 2.00 Ir/B, mix
 * 3.66 -> 3.10, procinfo 1.14 -> 0.98, gcc 12). */
static void bulk_data(const uint8_t *buf, size_t len, walk_result *r, int read)
{
    pcq_walk w;
    pcq_item it;
    pcq_opts o;
    pcq_iter vi;
    pcq_value v;
    uint64_t sum = 0, ninst = 0, nval = 0;
    int rc;

    memset(&o, 0, sizeof o);
    o.flags = PCQ_BULK;
    pcq_walk_begin(&w, PCQ_KIND_DATA, buf, len, &o);
    while ((rc = pcq_walk_next(&w, &it)) == 1) {
        if (it.type == PCQ_S_DATA_INSTANCE ||
            (it.type == PCQ_S_COUNTER_HEADER && (it.u.block.type == 1 || it.u.block.type == 2)))
            ninst++;
        if (!it.nvalues) continue;
        if (!read) {
            nval += it.nvalues;
            continue;
        }
        pcq_item_values(&w, &it, &vi);
        while (pcq_values_next(&vi, &v) == 1) { /* as the README's loop */
            sum += v.u64;
            nval++;
        }
    }
    r->rc = rc;
    r->sum = sum;
    r->instances = ninst;
    r->values = nval;
}

/* Yardstick: a plain loop summing the buffer as 64-bit words. */
static uint64_t sum_words(const uint8_t *p, size_t len)
{
    uint64_t s = 0;
    size_t i, n = len / 8;
    for (i = 0; i < n; i++) s += ld64(p + 8 * i);
    for (i = n * 8; i < len; i++) s += p[i];
    return s;
}

/* Yardstick for cooking: the formulas of the shape's counter types written
 * inline over two canonical buffers of the same layout (what a collector
 * that trusts the layout would write by hand). One column per counter. */
enum {
    H_SKIP,
    H_RAW,
    H_RATE32,
    H_RATE64,
    H_T100,
    H_T100_INV,
    H_PREC100,
    H_AVG_BULK32,
    H_FRACTION
};

typedef struct hand_col {
    uint8_t op;
    uint32_t base; /* column of the base counter */
} hand_col;

typedef struct hand_ctx {
    const uint8_t *older, *newer;
    hand_col cols[64];
    uint32_t ncols;
    double *out;
} hand_ctx;

static uint64_t hval(const uint8_t *cd)
{
    /* _PERF_COUNTER_DATA: dwDataSize, dwSize, value */
    return ld32(cd) == 8 ? ld64(cd + 8) : ld32(cd + 8);
}

static double clamp100(double v)
{
    return v < 0 ? 0 : v > 100 ? 100 : v;
}

static double hand_one(const hand_col *c, const uint8_t *vo, const uint8_t *vn, uint32_t j, double dt,
                       double dt100)
{
    uint64_t n1 = hval(vn + 16 * (size_t)j), n0 = hval(vo + 16 * (size_t)j), b1, b0;
    switch (c->op) {
    case H_RAW: return (double)n1;
    case H_RATE32: return dt > 0 ? (double)(uint32_t)(n1 - n0) / dt : 0;
    case H_RATE64: return dt > 0 && n1 >= n0 ? (double)(n1 - n0) / dt : 0;
    case H_T100: return dt100 > 0 && n1 >= n0 ? clamp100(100.0 * (double)(n1 - n0) / dt100) : 0;
    case H_T100_INV: return dt100 > 0 && n1 >= n0 ? clamp100(100.0 * (1.0 - (double)(n1 - n0) / dt100)) : 0;
    case H_PREC100:
        b1 = hval(vn + 16 * (size_t)c->base);
        b0 = hval(vo + 16 * (size_t)c->base);
        return b1 > b0 && n1 >= n0 ? clamp100(100.0 * (double)(n1 - n0) / (double)(b1 - b0)) : 0;
    case H_AVG_BULK32:
        b1 = hval(vn + 16 * (size_t)c->base);
        b0 = hval(vo + 16 * (size_t)c->base);
        return (uint32_t)(b1 - b0) && n1 >= n0 ? (double)(n1 - n0) / (double)(uint32_t)(b1 - b0) : 0;
    case H_FRACTION:
        b1 = hval(vn + 16 * (size_t)c->base);
        return b1 ? clamp100(100.0 * (double)n1 / (double)b1) : 0;
    default: return 0;
    }
}

static size_t hand_cook(const hand_ctx *h)
{
    const uint8_t *o = h->older, *n = h->newer;
    uint32_t nblocks = ld32(n + 4), blk, i, j;
    double dt = (double)(ld64(n + 8) - ld64(o + 8)) / (double)ld64(n + 24); /* seconds */
    double dt100 = (double)(ld64(n + 16) - ld64(o + 16));
    size_t po = 48, pn = 48, k = 0;
    double *out = h->out;

    for (blk = 0; blk < nblocks; blk++) {
        uint32_t type = ld32(n + pn + 4);
        size_t mo = po + 16, mn = pn + 16; /* _PERF_MULTI_COUNTERS */
        uint32_t nc = ld32(n + mn + 4);
        size_t bo = mo + ld32(o + mo), bn = mn + ld32(n + mn);
        if (type == PCQ_PERF_COUNTERSET) {
            uint32_t ninst = ld32(n + bn + 4);
            size_t io = bo + 8, in = bn + 8; /* first _PERF_INSTANCE_HEADER */
            for (i = 0; i < ninst; i++) {
                const uint8_t *vo = o + io + ld32(o + io), *vn = n + in + ld32(n + in);
                for (j = 0; j < nc; j++) out[k++] = hand_one(&h->cols[j], vo, vn, j, dt, dt100);
                io += ld32(o + io) + 16 * (size_t)nc;
                in += ld32(n + in) + 16 * (size_t)nc;
            }
        } else {
            for (j = 0; j < nc; j++) out[k++] = hand_one(&h->cols[j], o + bo, n + bn, j, dt, dt100);
        }
        po += ld32(o + po + 8);
        pn += ld32(n + pn + 8);
    }
    return k;
}

static void hand_setup(hand_ctx *h, const bench_shape *s)
{
    uint32_t j, k;
    h->ncols = s->ncounters;
    for (j = 0; j < s->ncounters; j++) {
        const bench_counter *c = &s->counters[j];
        hand_col *hc = &h->cols[j];
        hc->base = 0;
        for (k = 0; k < s->ncounters; k++)
            if (s->counters[k].id == c->base_id) hc->base = k;
        switch (c->type) {
        case 0x20510500u: hc->op = H_T100; break;
        case 0x21510500u: hc->op = H_T100_INV; break;
        case 0x10410400u: hc->op = H_RATE32; break;
        case 0x10410500u: hc->op = H_RATE64; break;
        case 0x00010000u:
        case 0x00010100u: hc->op = H_RAW; break;
        case 0x20570500u: hc->op = H_PREC100; break;
        case 0x40020500u: hc->op = H_AVG_BULK32; break;
        case 0x20020400u: hc->op = H_FRACTION; break;
        default: hc->op = H_SKIP; break; /* bases: no value of their own */
        }
    }
}

/* ------------------------------------------------------------------------ */
/* One buffer under test and everything its operations need.               */
/* ------------------------------------------------------------------------ */
typedef struct case_ctx {
    bench_content content;
    uint8_t *buf, *dst, *older;
    size_t len, dst_cap;
    uint64_t *cols; /* batch: a block's values (every value takes 16 bytes or more) */
    size_t cols_cap;
    walk_result wr;
    hand_ctx hand;
    uint8_t info_buf[32 + 48 * 64];
    pcq_counterset_info info;
    pcq_data dn, dold;
#if BENCH_COOK
    pcq_calc_row *rows;
    pcq_calc_cell *cells;  /* column: nvalues cells, counter-major per block */
    uint64_t *colbuf;      /* column: both samples' values, counter-major */
    uint32_t base_col[64]; /* column: the base counter's column, or NO_BASE */
#endif
    size_t nrows;
    int have_cook;
} case_ctx;

#define NO_BASE 0xFFFFFFFFu

/* The counter ids of every value, summed, taken from the blocks' lists by
 * position (pcq_block_counter_id): what walk8's v.counter_id must add up to. */
static uint64_t ids_by_position(const uint8_t *buf, size_t len)
{
    pcq_data d;
    pcq_iter bi, ii, vi;
    pcq_block b;
    pcq_data_instance in;
    pcq_value v;
    uint64_t ids = 0;
    uint32_t k;
    if (pcq_decode_data(buf, len, NULL, &d, NULL) != PCQ_OK) return 0;
    pcq_data_blocks(&d, &bi);
    while (pcq_blocks_next(&bi, &b) == 1) {
        if (b.type == PCQ_PERF_MULTI_COUNTERS) {
            pcq_block_values(&d, &b, &vi);
            for (k = 0; pcq_values_next(&vi, &v) == 1; k++) ids += pcq_block_counter_id(&b, k);
        } else if (b.type == PCQ_PERF_COUNTERSET) {
            pcq_block_instances(&d, &b, &ii);
            while (pcq_instances_of_block_next(&ii, &in) == 1) {
                pcq_instance_values(&d, &in, &vi);
                for (k = 0; pcq_values_next(&vi, &v) == 1; k++) ids += pcq_block_counter_id(&b, k);
            }
        }
    }
    return ids;
}

static void op_walk(case_ctx *c)
{
    walk_data(c->buf, c->len, &c->wr);
    bench_sink += c->wr.sum + c->wr.names;
}

/* walk8, for --cg alone: the README's example (names to UTF-8, counter ids) */
static void op_walk8(case_ctx *c)
{
    walk_data_utf8(c->buf, c->len, &c->wr);
    bench_sink += c->wr.sum + c->wr.names + c->wr.ids;
}

/* handval, for --cg alone: the canonical layout's rules as one hand-written
 * loop (bench/hand_check.h), validation's yardstick */
static void op_handval(case_ctx *c)
{
    bench_sink += (uint64_t)hand_check(c->buf, c->len);
}

/* handwalk: the walk's reading as one hand-written loop (bench/hand_walk.h),
 * the walk's yardstick; timed too, for the floor under the timed walk
 * (validation, then this loop: no goal line of its own) */
static void op_handwalk(case_ctx *c)
{
    hand_walk_result r;
    hand_walk(c->buf, &r);
    bench_sink += r.sum + r.instances + r.values + r.names;
}

/* handpass: validation's rules and the walk's reading as one hand-written
 * loop over the bytes, read once (bench/hand_pass.h), the single pass's
 * yardstick, timed beside it */
static void op_handpass(case_ctx *c)
{
    hand_walk_result r;
    bench_sink += (uint64_t)hand_pass(c->buf, c->len, &r) + r.sum + r.names;
}

/* handenc, for --cg alone: the same bytes by hand-written stores
 * (bench/hand_encode.h), the writers' yardstick */
static void op_handenc(case_ctx *c)
{
    size_t n = 0;
    bench_sink += (uint64_t)hand_encode(&c->content, c->dst, c->dst_cap, &n) + n;
}

static void op_validate(case_ctx *c)
{
    pcq_data d;
    bench_sink += (uint64_t)pcq_decode_data(c->buf, c->len, NULL, &d, NULL) + d.total_size;
}

static void op_batch(case_ctx *c)
{
    walk_result r;
    batch_data(c->buf, c->len, c->cols, c->cols_cap, &r);
    bench_sink += r.sum;
}

static void op_scan(case_ctx *c)
{
    walk_result r;
    bulk_data(c->buf, c->len, &r, 0);
    bench_sink += r.values;
}

static void op_pass(case_ctx *c)
{
    walk_result r;
    bulk_data(c->buf, c->len, &r, 1);
    bench_sink += r.sum;
}

static void op_memcpy(case_ctx *c)
{
    memcpy(c->dst, c->buf, c->len);
    bench_sink += c->dst[c->len / 2];
}

static void op_sum(case_ctx *c)
{
    bench_sink += sum_words(c->buf, c->len);
}

static void op_encode(case_ctx *c)
{
    size_t n = 0;
    bench_sink += (uint64_t)bench_encode(&c->content, c->dst, c->dst_cap, &n) + n;
}

static void op_enci(case_ctx *c)
{
    size_t n = 0;
    bench_sink += (uint64_t)bench_encode_instances(&c->content, c->dst, c->dst_cap, &n) + n;
}

static void op_encb(case_ctx *c)
{
    size_t n = 0;
    bench_sink += (uint64_t)bench_encode_batch(&c->content, c->dst, c->dst_cap, &n) + n;
}

#if BENCH_COOK
static void op_cook(case_ctx *c)
{
    size_t count = 0;
    int rc = pcq_calc_cook(&c->info, &c->dold, &c->dn, NULL, 0, 0, c->rows, c->nrows, &count, NULL);
    bench_sink += (uint64_t)rc + count + (uint64_t)c->rows[count / 2].status;
}
#endif

#if BENCH_COOK
/* One counter's column of both samples into pcq_calc_cook_column: counter
 * j's values from nv + j * jstep, `stride` apart (columns: jstep ninst,
 * stride 1; rows of nc values: jstep 1, stride nc). */
static void cook_one(case_ctx *c, uint32_t j, const uint64_t *nv, const uint64_t *ov, size_t ninst,
                     size_t jstep, size_t stride, pcq_calc_cell *out)
{
    const bench_shape *s = c->content.shape;
    pcq_calc_column o, n;
    memset(&n, 0, sizeof n);
    n.stride = stride;
    n.value = nv + (size_t)j * jstep;
    n.value_size = s->counters[j].size;
    n.time = c->dn.perf_time_stamp;
    n.time_100ns = c->dn.perf_time_100nsec;
    n.freq = c->dn.perf_freq;
    o = n;
    o.value = ov + (size_t)j * jstep;
    o.time = c->dold.perf_time_stamp;
    o.time_100ns = c->dold.perf_time_100nsec;
    o.freq = c->dold.perf_freq;
    if (c->base_col[j] != NO_BASE) {
        n.base = nv + (size_t)c->base_col[j] * jstep;
        o.base = ov + (size_t)c->base_col[j] * jstep;
        n.base_size = o.base_size = s->counters[c->base_col[j]].size;
    }
    pcq_calc_cook_column(s->counters[j].type, 0, 0, &o, &n, ninst, out);
}

/* The column cook, as a collector would: each block's values by counter
 * (pcq_block_columns_u64, both samples; a reply of repeated single-instance
 * blocks is one table, a block a row, pcq_block_rows_u64 of each block in
 * place, its columns cooked with a stride: no copy into columns, ~17
 * instructions a value before), then one pcq_calc_cook_column call a
 * counter. Cells come counter-major per block (per reply for repeated
 * blocks); the two samples list the same blocks, instances and counters in
 * the same order. */
/* column_cook: rows of a reply of single-instance blocks a tile (24 counters: 192 KiB a sample, in L2; 256
 * rows a tile cost 2.754 Ir/B on multi, 1024 rows 2.700) */
enum {
    MULTI_TILE = 1024
};

static size_t column_cook(case_ctx *c)
{
    const bench_shape *s = c->content.shape;
    uint32_t nc = s->ncounters, j;
    pcq_iter bn, bo;
    pcq_block b, ob;
    pcq_calc_cell *out = c->cells;
    size_t k = 0, got;
    pcq_data_blocks(&c->dn, &bn);
    pcq_data_blocks(&c->dold, &bo);
    if (s->layout == BENCH_MULTI) { /* a row a block */
        size_t rows = c->content.units, tile = rows < MULTI_TILE ? rows : MULTI_TILE, r0, r, t;
        uint64_t *nv = c->colbuf, *ov = c->colbuf + (size_t)nc * tile; /* colbuf: 2 nc rows values */
        for (r0 = 0; r0 < rows; r0 += t) { /* a tile of rows at a time, so that the columns' strided reads
                                              * stay in cache (the whole table, 200 MB at 256 MiB, took a
                                              * pass over memory a counter: 4.4x the hand formula) */
            t = rows - r0 < tile ? rows - r0 : tile;
            for (r = 0; r < t && pcq_blocks_next(&bn, &b) == 1 && pcq_blocks_next(&bo, &ob) == 1; r++) {
                pcq_block_rows_u64(&c->dn, &b, nv + r * nc, nc, &got);
                pcq_block_rows_u64(&c->dold, &ob, ov + r * nc, nc, &got);
            }
            for (j = 0; j < nc; j++) cook_one(c, j, nv, ov, r, 1, nc, out + j * rows + r0);
            if (r < t) break; /* (the samples list the same blocks) */
        }
        return (size_t)nc * rows;
    }
    while (pcq_blocks_next(&bn, &b) == 1 && pcq_blocks_next(&bo, &ob) == 1) {
        size_t ninst = b.num_instances, cap = (size_t)nc * ninst;
        uint64_t *nv = c->colbuf, *ov = c->colbuf + cap;
        pcq_block_columns_u64(&c->dn, &b, nv, cap, &got);
        pcq_block_columns_u64(&c->dold, &ob, ov, cap, &got);
        for (j = 0; j < nc; j++, k += ninst) cook_one(c, j, nv, ov, ninst, ninst, 1, out + k);
    }
    return k;
}

static void op_column(case_ctx *c)
{
    size_t k = column_cook(c);
    bench_sink += k + (uint64_t)c->cells[k / 2].status;
}
#endif

static void op_hand(case_ctx *c)
{
    size_t k = hand_cook(&c->hand);
    bench_sink += k + (uint64_t)c->hand.out[k / 2];
}

typedef void (*op_fn)(case_ctx *);

/* ------------------------------------------------------------------------ */
/* Building a case.                                                         */
/* ------------------------------------------------------------------------ */
typedef struct size_def {
    const char *name;
    size_t target; /* 0: the shape's native size */
} size_def;

/* clang-format off */
static const size_def sizes[] = {
    {"native", 0}, {"4KiB", 4 * KiB}, {"1MiB", MiB}, {"256MiB", 256 * MiB},
};
/* clang-format on */
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int case_build(case_ctx *c, const bench_shape *s, const size_def *z, int want_cook)
{
    uint32_t units = z->target ? bench_units_for(s, z->target) : s->native_units;
    size_t n = 0, info_len = 0;
    walk_result check;

    memset(c, 0, sizeof *c);
    if (!bench_content_make(&c->content, s, units)) die("out of memory");
    if (bench_encode(&c->content, NULL, 0, &n) != PCQ_OK) die("encoder: sizing failed");
    c->len = n;
    c->buf = alloc_touched(n);
    c->dst_cap = n;
    c->dst = alloc_touched(n);
    c->cols_cap = n / 16 + 1;
    c->cols = (uint64_t *)alloc_touched(c->cols_cap * sizeof *c->cols);
    if (bench_encode(&c->content, c->buf, n, &n) != PCQ_OK || n != c->len) die("encoder: encoding failed");
    /* The bench measures real work: the walk must see every value. */
    walk_data(c->buf, c->len, &check);
    if (check.rc != PCQ_OK) {
        fprintf(stderr, "pcq_bench: %s/%s does not decode: %s\n", s->name, z->name, pcq_strerror(check.rc));
        exit(2);
    }
    {
        /* every way to the values finds all of them, and both writers write the same bytes */
        walk_result r[4];
        const char *how[4] = {"walk", "batch", "pass", "scan"};
        int k;
        r[0] = check;
        batch_data(c->buf, c->len, c->cols, c->cols_cap, &r[1]);
        bulk_data(c->buf, c->len, &r[2], 1);
        bulk_data(c->buf, c->len, &r[3], 0);
        r[3].sum = c->content.sum; /* scan counts the values without reading them */
        for (k = 0; k < 4; k++)
            if (r[k].rc != PCQ_OK || r[k].sum != c->content.sum || r[k].values != c->content.nvalues ||
                r[k].instances != c->content.instances) {
                fprintf(stderr,
                        "pcq_bench: %s/%s: %s: %s, %llu values (sum %llu) in %llu instances, built %llu (sum "
                        "%llu) in %llu\n",
                        s->name, z->name, how[k], pcq_strerror(r[k].rc), (unsigned long long)r[k].values,
                        (unsigned long long)r[k].sum, (unsigned long long)r[k].instances,
                        (unsigned long long)c->content.nvalues, (unsigned long long)c->content.sum,
                        (unsigned long long)c->content.instances);
                exit(2);
            }
        walk_data_utf8(c->buf, c->len, &r[0]); /* the README's example: the same, and every counter id */
        if (r[0].rc != PCQ_OK || r[0].sum != check.sum || r[0].values != check.values ||
            r[0].ids != ids_by_position(c->buf, c->len))
            die("the README's example (walk8) reads other values or counter ids than the walk");
        if (!hand_check(c->buf, c->len)) die("the hand-written check (handval) does not take the buffer");
        {
            hand_walk_result h;
            hand_walk(c->buf, &h);
            if (h.sum != check.sum || h.instances != check.instances || h.values != check.values ||
                h.names != check.names)
                die("the hand-written walk (handwalk) finds other values or names than the walk");
            if (!hand_pass(c->buf, c->len, &h) || h.sum != check.sum || h.instances != check.instances ||
                h.values != check.values || h.names != check.names)
                die("the hand-written single pass (handpass) does not take the buffer or finds other values");
        }
        memset(c->dst, 0xA5, c->dst_cap);
        if (hand_encode(&c->content, c->dst, c->dst_cap, &n) != 0 || n != c->len ||
            memcmp(c->dst, c->buf, n) != 0)
            die("the hand-written encoder (handenc) writes other bytes than the writer");
        if (bench_encode_batch(&c->content, c->dst, c->dst_cap, &n) != PCQ_OK || n != c->len ||
            memcmp(c->dst, c->buf, n) != 0)
            die("the batch writer writes other bytes than the per-value one");
        if (bench_encode_instances(&c->content, c->dst, c->dst_cap, &n) != PCQ_OK || n != c->len ||
            memcmp(c->dst, c->buf, n) != 0)
            die("the writer an instance a call writes other bytes than the per-value one");
    }
    c->wr = check;

    if (want_cook < 1 || !s->cook) return 1; /* 1: the older sample and the hand formula; 2: cook too */
    c->older = alloc_touched(c->len);
    if (bench_encode_older(&c->content, c->older, c->len, &n) != PCQ_OK || n != c->len)
        die("encoder: older sample failed");
    if (bench_counterset_info(s, c->info_buf, sizeof c->info_buf, &info_len) != PCQ_OK)
        die("encoder: counterset-info failed");
    if (pcq_decode_counterset_info(c->info_buf, info_len, NULL, &c->info, NULL) != PCQ_OK ||
        pcq_decode_data(c->buf, c->len, NULL, &c->dn, NULL) != PCQ_OK ||
        pcq_decode_data(c->older, c->len, NULL, &c->dold, NULL) != PCQ_OK)
        die("decoder: the cook inputs do not decode");
    hand_setup(&c->hand, s);
#if BENCH_COOK
    {
        uint32_t j, k;
        for (j = 0; j < s->ncounters; j++) {
            c->base_col[j] = NO_BASE;
            for (k = 0; k < s->ncounters; k++)
                if (s->counters[k].id == s->counters[j].base_id) c->base_col[j] = k;
        }
        c->cells = malloc((size_t)c->content.nvalues * sizeof *c->cells);
        c->colbuf = malloc(2 * (size_t)units * s->ncounters * sizeof *c->colbuf);
        if (!c->cells || !c->colbuf) die("out of memory");
        memset(c->cells, 0, (size_t)c->content.nvalues * sizeof *c->cells);
    }
#endif
    c->hand.older = c->older;
    c->hand.newer = c->buf;
    c->hand.out = malloc((size_t)c->content.nvalues * sizeof(double));
    if (!c->hand.out) die("out of memory");
    memset(c->hand.out, 0, (size_t)c->content.nvalues * sizeof(double));
#if BENCH_COOK
    if (want_cook >= 2) {
        size_t need = 0;
        pcq_error err;
        int rc = pcq_calc_cook(&c->info, &c->dold, &c->dn, NULL, 0, 0, NULL, 0, &need, &err);
        if (rc != PCQ_OK && rc != PCQ_ERR_BUFFER_TOO_SMALL) {
            fprintf(stderr, "pcq_bench: %s/%s: pcq_calc_cook: %s at %zu (%s)\n", s->name, z->name,
                    pcq_strerror(rc), err.offset, err.what ? err.what : "");
            exit(2);
        }
        c->nrows = need ? need : 1;
        c->rows = malloc(c->nrows * sizeof *c->rows);
        if (!c->rows) die("out of memory");
        memset(c->rows, 0, c->nrows * sizeof *c->rows);
        c->have_cook = 1;
    }
#endif
    return 1;
}

static void case_free(case_ctx *c)
{
    free(c->buf);
    free(c->dst);
    free(c->cols);
    free(c->older);
    free(c->hand.out);
#if BENCH_COOK
    free(c->rows);
    free(c->cells);
    free(c->colbuf);
#endif
    bench_content_free(&c->content);
}

#if BENCH_COOK
/* The cooked values must be the yardstick's: the comparison is only fair if
 * both compute the same thing. Returns the rows that disagree. */
static size_t cook_check(case_ctx *c, size_t *ok_rows, double *worst)
{
    size_t count = 0, i, bad = 0, ok = 0;
    pcq_error err;
    int rc = pcq_calc_cook(&c->info, &c->dold, &c->dn, NULL, 0, 0, c->rows, c->nrows, &count, &err);
    *worst = 0;
    if (rc != PCQ_OK) {
        fprintf(stderr, "pcq_bench: pcq_calc_cook: %s at %zu\n", pcq_strerror(rc), err.offset);
        exit(2);
    }
    hand_cook(&c->hand);
    for (i = 0; i < count && i < c->content.nvalues; i++) {
        const pcq_calc_row *r = &c->rows[i];
        double h = c->hand.out[i], d;
        if (r->status != PCQ_CALC_OK) continue;
        ok++;
        d = fabs(r->value - h) / (fabs(h) > 1 ? fabs(h) : 1);
        if (d > *worst) *worst = d;
        if (d > 1e-9) bad++;
    }
    {
        /* the column cook: counter-major per block, the rows instance-major */
        /* a reply of repeated blocks is one table of `units` rows */
        uint32_t nc = c->content.shape->ncounters, j, ii;
        size_t per = c->content.units;
        size_t blocks = 1, bk, got = column_cook(c);
        if (got != c->content.nvalues) bad++;
        for (bk = 0; bk < blocks; bk++)
            for (j = 0; j < nc; j++)
                for (ii = 0; ii < per; ii++) {
                    size_t at = bk * nc * per;
                    const pcq_calc_cell *x = &c->cells[at + (size_t)j * per + ii];
                    const pcq_calc_row *r = &c->rows[at + (size_t)ii * nc + j];
                    if (x->status != r->status || (x->status == PCQ_CALC_OK && x->value != r->value)) bad++;
                }
    }
    *ok_rows = ok;
    return bad;
}
#endif

/* ------------------------------------------------------------------------ */
/* Interleaved timing.                                                      */
/* ------------------------------------------------------------------------ */
enum {
    OP_VALIDATE,
    OP_WALK,
    OP_BATCH,
    OP_SCAN,
    OP_PASS,
    OP_MEMCPY,
    OP_SUM,
    OP_HANDWALK,
    OP_ENCODE,
    OP_ENCI,
    OP_ENCB,
    OP_COOK,
    OP_COLUMN,
    OP_HAND,
    OP_HANDPASS,
    NOPS
};

#define MAXREPS 64
typedef struct op_timing {
    int on, reps;
    unsigned long iters;
    double best, median; /* seconds per call */
    double t[MAXREPS];
    unsigned long heap_calls; /* inside the measured batches */
} op_timing;

static op_fn op_fns[NOPS];

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Each op: a warm-up call, then `reps` batches of >= batch_s, interleaved
 * with the other ops in a rotating order; its fastest batch counts. An op
 * whose single call is slow gets fewer batches (at least 2) so that it spends
 * about max_op_s in all. Returns the most rounds any op wants. */
static int time_setup(case_ctx *c, op_timing *t, int reps, double batch_s, double max_op_s)
{
    int k, most = 0;
    for (k = 0; k < NOPS; k++) {
        double t0, dt;
        if (!t[k].on) continue;
        t0 = now_s();
        op_fns[k](c); /* warm-up, and one call's time */
        dt = now_s() - t0;
        t[k].iters = dt >= batch_s ? 1 : (unsigned long)(batch_s / (dt > 1e-8 ? dt : 1e-8)) + 1;
        t[k].reps = reps;
        if (dt * (double)reps > max_op_s) t[k].reps = (int)(max_op_s / dt);
        if (t[k].reps < 2) t[k].reps = reps < 2 ? reps : 2;
        if (t[k].reps > most) most = t[k].reps;
        t[k].best = 1e30;
        t[k].heap_calls = 0;
    }
    return most;
}

/* Round r: one batch of every op that wants it. */
static void time_round(case_ctx *c, op_timing *t, int r)
{
    int i, k;
    for (i = 0; i < NOPS; i++) {
        unsigned long n, h0;
        double t0, dt;
        k = (i + r) % NOPS; /* rotate the order: no op always runs after the same one */
        if (!t[k].on || r >= t[k].reps) continue;
        h0 = bench_heap_calls;
        t0 = now_s();
        for (n = 0; n < t[k].iters; n++) op_fns[k](c);
        dt = (now_s() - t0) / (double)t[k].iters;
        t[k].heap_calls += bench_heap_calls - h0;
        t[k].t[r] = dt;
        if (dt < t[k].best) t[k].best = dt;
    }
}

static void time_finish(op_timing *t)
{
    int k;
    for (k = 0; k < NOPS; k++) {
        if (!t[k].on) continue;
        qsort(t[k].t, (size_t)t[k].reps, sizeof(double), cmp_double);
        t[k].median = t[k].t[t[k].reps / 2];
    }
}

/* ------------------------------------------------------------------------ */
/* Results and the table.                                                   */
/* ------------------------------------------------------------------------ */
typedef struct result {
    const bench_shape *shape;
    const size_def *size;
    size_t bytes;
    uint64_t instances, values;
    op_timing t[NOPS];
    int reps;
    size_t cook_bad, cook_ok;
    double cook_worst;
    double cook_skipped_est; /* > 0: cook not run here; estimated seconds per pass */
} result;

static double gbps(size_t bytes, double s)
{
    return s > 0 ? (double)bytes / s * 1e-9 : 0;
}

static void print_machine(FILE *f, const char *pre)
{
    char model[128] = "unknown", line[4096];
    FILE *ci = fopen("/proc/cpuinfo", "r");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    char l1[32] = "?", l2[32] = "?", l3[32] = "?";
    int i;
    char family[16] = "?", cmodel[16] = "?", mhz[16] = "?";
    int virt = 0;
    if (ci) {
        /* the first processor's block: model name, family, model, MHz, flags */
        while (fgets(line, sizeof line, ci) && line[0] != '\n') {
            char *p = strchr(line, ':');
            if (!p) continue;
            p += 1 + (p[1] == ' ');
            p[strcspn(p, "\n")] = 0;
            if (!strncmp(line, "model name", 10))
                snprintf(model, sizeof model, "%s", p);
            else if (!strncmp(line, "cpu family", 10))
                snprintf(family, sizeof family, "%s", p);
            else if (!strncmp(line, "model\t", 6))
                snprintf(cmodel, sizeof cmodel, "%s", p);
            else if (!strncmp(line, "cpu MHz", 7))
                snprintf(mhz, sizeof mhz, "%.0f", atof(p));
            else if (!strncmp(line, "flags", 5))
                virt = strstr(p, "hypervisor") != NULL;
        }
        fclose(ci);
    }
    for (i = 0; i < 8; i++) {
        char path[96], lvl[16] = "", typ[32] = "", sz[32] = "";
        FILE *x;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!(x = fopen(path, "r"))) break;
        if (!fgets(lvl, sizeof lvl, x)) lvl[0] = 0;
        fclose(x);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if ((x = fopen(path, "r"))) {
            if (!fgets(typ, sizeof typ, x)) typ[0] = 0;
            fclose(x);
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((x = fopen(path, "r"))) {
            if (!fgets(sz, sizeof sz, x)) sz[0] = 0;
            fclose(x);
        }
        sz[strcspn(sz, "\n")] = 0;
        if (lvl[0] == '1' && !strncmp(typ, "Data", 4)) snprintf(l1, sizeof l1, "%s", sz);
        if (lvl[0] == '2') snprintf(l2, sizeof l2, "%s", sz);
        if (lvl[0] == '3') snprintf(l3, sizeof l3, "%s", sz);
    }
    fprintf(f, "%smachine: %s (family %s model %s, %s MHz%s), %ld CPUs online, L1d %s, L2 %s, L3 %s\n", pre,
            model, family, cmodel, mhz, virt ? ", virtual machine" : "", ncpu, l1, l2, l3);
    fprintf(f, "%sbuild: %s %s; pcq %s\n", pre,
#ifdef __clang__
            "clang " __clang_version__,
#elif defined(__GNUC__)
            "gcc " __VERSION__,
#else
            "cc",
#endif
            BENCH_CFLAGS, pcq_version_string());
}

static double pct(const op_timing *t, int op)
{
    return t[op].on && t[op].best > 0 ? 100 * t[OP_MEMCPY].best / t[op].best : 0;
}

/* Two tables: reading (GB/s, and % of memcpy of the same buffer), then
 * writing and cooking. */
static void print_table(FILE *f, const result *res, size_t nres, int md)
{
    const char *pre = md ? "    " : "";
    size_t i;
    fprintf(f, "%s%-8s %-6s %10s %7s %9s | %6s | %11s | %11s | %11s | %11s | %11s | %11s | %11s | %6s\n", pre,
            "shape", "size", "bytes", "inst", "values", "memcpy", "validate", "walk", "batch", "scan", "pass",
            "handpass", "sum", "walk");
    fprintf(f, "%s%-8s %-6s %10s %7s %9s | %6s | %11s | %11s | %11s | %11s | %11s | %11s | %11s | %6s\n", pre,
            "", "", "", "", "", "GB/s", "GB/s mcpy", "GB/s mcpy", "GB/s mcpy", "GB/s mcpy", "GB/s mcpy",
            "GB/s mcpy", "GB/s mcpy", "ns/val");
    for (i = 0; i < nres; i++) {
        const result *r = &res[i];
        const op_timing *t = r->t;
        fprintf(
            f,
            "%s%-8s %-6s %10zu %7llu %9llu | %6.2f | %5.2f %4.0f%% | %5.2f %4.0f%% | %5.2f %4.0f%% | %5.2f "
            "%4.0f%% | %5.2f %4.0f%% | %5.2f %4.0f%% | %5.2f %4.0f%% | %6.2f\n",
            pre, r->shape->name, r->size->name, r->bytes, (unsigned long long)r->instances,
            (unsigned long long)r->values, gbps(r->bytes, t[OP_MEMCPY].best),
            gbps(r->bytes, t[OP_VALIDATE].best), pct(t, OP_VALIDATE), gbps(r->bytes, t[OP_WALK].best),
            pct(t, OP_WALK), gbps(r->bytes, t[OP_BATCH].best), pct(t, OP_BATCH),
            gbps(r->bytes, t[OP_SCAN].best), pct(t, OP_SCAN), gbps(r->bytes, t[OP_PASS].best),
            pct(t, OP_PASS), gbps(r->bytes, t[OP_HANDPASS].best), pct(t, OP_HANDPASS),
            gbps(r->bytes, t[OP_SUM].best), pct(t, OP_SUM), t[OP_WALK].best * 1e9 / (double)r->values);
    }
    fprintf(f, "\n%s%-8s %-6s | %11s | %11s | %11s | %8s %8s %8s %6s %6s | %5s\n", pre, "shape", "size",
            "encode", "enci", "encb", "cook", "column", "hand", "cook/", "col/", "heap");
    fprintf(f, "%s%-8s %-6s | %11s | %11s | %11s | %8s %8s %8s %6s %6s | %5s\n", pre, "", "", "GB/s mcpy",
            "GB/s mcpy", "GB/s mcpy", "ns/val", "ns/val", "ns/val", "hand", "hand", "calls");
    for (i = 0; i < nres; i++) {
        const result *r = &res[i];
        const op_timing *t = r->t;
        char cook[16] = "-", col[16] = "-", hand[16] = "-", rc[16] = "-", rcol[16] = "-";
        unsigned long heap = 0;
        int k;
        for (k = 0; k < NOPS; k++)
            if (t[k].on) heap += t[k].heap_calls;
        if (t[OP_HAND].on) snprintf(hand, sizeof hand, "%.2f", t[OP_HAND].best * 1e9 / (double)r->values);
        if (t[OP_COOK].on) {
            double x = t[OP_COOK].best / t[OP_HAND].best;
            snprintf(cook, sizeof cook, "%.2f", t[OP_COOK].best * 1e9 / (double)r->values);
            snprintf(rc, sizeof rc, x >= 100 ? "%.0fx" : x >= 10 ? "%.1fx" : "%.2fx", x);
        } else if (r->cook_skipped_est > 0) {
            snprintf(cook, sizeof cook, "skip");
        }
        if (t[OP_COLUMN].on) {
            double x = t[OP_COLUMN].best / t[OP_HAND].best;
            snprintf(col, sizeof col, "%.2f", t[OP_COLUMN].best * 1e9 / (double)r->values);
            snprintf(rcol, sizeof rcol, "%.2fx", x);
        }
        fprintf(f,
                "%s%-8s %-6s | %5.2f %4.0f%% | %5.2f %4.0f%% | %5.2f %4.0f%% | %8s %8s %8s %6s %6s | %5lu\n",
                pre, r->shape->name, r->size->name, gbps(r->bytes, t[OP_ENCODE].best), pct(t, OP_ENCODE),
                gbps(r->bytes, t[OP_ENCI].best), pct(t, OP_ENCI), gbps(r->bytes, t[OP_ENCB].best),
                pct(t, OP_ENCB), cook, col, hand, rc, rcol, heap);
    }
}

/* One timed goal over the buffers of a size: the worst value of f among
 * them against the bound (a bound below 0: shown, not judged). */
typedef double (*goal_fn)(const result *r);

static int goal(FILE *f, const char *pre, const result *res, size_t nres, const char *size, const char *what,
                goal_fn fn, int at_least, double bound, const char *fmt)
{
    size_t i;
    int any = 0, ok = 1;
    double worst = 0;
    const char *worst_at = "";
    char line[64];
    fprintf(f, "%s  %-44s", pre, what);
    for (i = 0; i < nres; i++) {
        double v;
        if (strcmp(res[i].size->name, size) != 0) continue;
        v = fn(&res[i]);
        if (v < 0) continue; /* not measured there */
        if (!any || (at_least ? v < worst : v > worst)) {
            worst = v;
            worst_at = res[i].shape->name;
        }
        any = 1;
        ok &= at_least ? v >= bound : v <= bound;
    }
    snprintf(line, sizeof line, fmt, worst);
    if (any && bound < 0) /* a figure shown beside the goals, not judged */
        fprintf(f, " worst %s (%s)  -> reported\n", line, worst_at);
    else if (any)
        fprintf(f, " worst %s (%s)  -> %s\n", line, worst_at, ok ? "met" : "MISSED");
    else
        fprintf(f, " -> not run\n");
    return any && !ok && bound >= 0;
}

static double g_walk(const result *r)
{
    return r->t[OP_MEMCPY].best / r->t[OP_WALK].best;
}
static double g_batch(const result *r)
{
    return r->t[OP_MEMCPY].best / r->t[OP_BATCH].best;
}
static double g_scan(const result *r)
{
    return r->t[OP_MEMCPY].best / r->t[OP_SCAN].best;
}
static double g_pass(const result *r)
{
    return r->t[OP_MEMCPY].best / r->t[OP_PASS].best;
}
/* The hand-written single pass (the same checks and reads, one loop, no
 * API) against memcpy: the single pass's yardstick. */
static double g_handpass(const result *r)
{
    return r->t[OP_MEMCPY].best / r->t[OP_HANDPASS].best;
}
/* What validation and the hand-written walk (the walk's reading, trusting
 * the bytes) take together, against memcpy: the floor under any walk after
 * validation, measured in the same run. */
static double g_floor(const result *r)
{
    return r->t[OP_MEMCPY].best / (r->t[OP_VALIDATE].best + r->t[OP_HANDWALK].best);
}
/* Validation alone (pcq_decode_data) against memcpy: a single pass checks
 * what it checks, so it is a ceiling for any pass that validates. */
static double g_validate(const result *r)
{
    return r->t[OP_MEMCPY].best / r->t[OP_VALIDATE].best;
}
static double g_sum(const result *r)
{
    return r->t[OP_MEMCPY].best / r->t[OP_SUM].best;
}
static double g_encb(const result *r)
{
    return gbps(r->bytes, r->t[OP_ENCB].best);
}
static double g_memcpy(const result *r)
{
    return gbps(r->bytes, r->t[OP_MEMCPY].best);
}
static double g_column(const result *r)
{
    return r->t[OP_COLUMN].on ? r->t[OP_COLUMN].best / r->t[OP_HAND].best : -1;
}

/* Beside a timed goal of `size`: on the buffer where fn is lowest (the
 * furthest from memcpy, the slowest), a yardstick measured in the same run
 * (what the goal's work cannot beat), as "on SHAPE, WHAT: X" (fmt). */
static void floor_line(FILE *f, const char *pre, const result *res, size_t nres, const char *size, goal_fn fn,
                       goal_fn floor_fn, const char *what, const char *fmt)
{
    const result *w = NULL;
    size_t i;
    char line[64];
    for (i = 0; i < nres; i++)
        if (!strcmp(res[i].size->name, size) && (!w || fn(&res[i]) < fn(w))) w = &res[i];
    if (!w) return;
    snprintf(line, sizeof line, fmt, floor_fn(w));
    fprintf(f, "%s    on %s, %s: %s\n", pre, w->shape->name, what, line);
}

/* The timed goals of the speed issue, judged on this run (the instruction
 * goals are callgrind's: bench/callgrind.sh). Returns the number missed. */
static int print_goals(FILE *f, const result *res, size_t nres, const char *pre)
{
    size_t i;
    int missed = 0, k;
    unsigned long heap = 0;
    fprintf(f, "%stimed goals (this run; x memcpy = memcpy time / its time, higher is better):\n", pre);
    missed += goal(f, pre, res, nres, "1MiB", "README walk 1MiB >= 50% of memcpy:", g_walk, 1, 0.5, "%.2fx");
    floor_line(f, pre, res, nres, "1MiB", g_walk, g_floor,
               "validation + handwalk (the floor under a walk after validation)", "%.2fx");
    missed += goal(f, pre, res, nres, "1MiB", "batch walk 1MiB (no timed goal):", g_batch, 1, -1, "%.2fx");
    missed += goal(f, pre, res, nres, "256MiB", "single pass 256MiB >= 90% (scan):", g_scan, 1, 0.9, "%.2fx");
    floor_line(f, pre, res, nres, "256MiB", g_scan, g_sum,
               "a plain loop adding every word (sum; reads, no check)", "%.2fx");
    floor_line(f, pre, res, nres, "256MiB", g_scan, g_validate,
               "validation alone (pcq_decode_data: the checks any single pass makes)", "%.2fx");
    missed += goal(f, pre, res, nres, "256MiB", "single pass 256MiB >= 90% (pass, reads values):", g_pass, 1,
                   0.9, "%.2fx");
    floor_line(f, pre, res, nres, "256MiB", g_pass, g_handpass,
               "handpass (the same checks and reads as one hand-written loop)", "%.2fx");
    missed += goal(f, pre, res, nres, "256MiB", "handpass (hand-written single pass; no goal):", g_handpass,
                   1, -1, "%.2fx");
    missed += goal(f, pre, res, nres, "256MiB", "a plain loop reading every word (sum; no goal):", g_sum, 1,
                   -1, "%.2fx");
    /* the goals are on the 1 MiB buffers; at 256 MiB the writer and the cook run from memory
     * (the writer's output and the cook's columns), shown beside: memcpy's speed there */
    missed += goal(f, pre, res, nres, "1MiB", "encode 1MiB >= 5 GB/s (batch writer):", g_encb, 1, 5.0,
                   "%.2f GB/s");
    missed += goal(f, pre, res, nres, "256MiB", "encode 256MiB (batch writer; no goal):", g_encb, 1, -1,
                   "%.2f GB/s");
    floor_line(f, pre, res, nres, "256MiB", g_encb, g_memcpy, "memcpy of the same buffer", "%.2f GB/s");
    missed += goal(f, pre, res, nres, "1MiB", "cook 1MiB <= 2x hand (column cook):", g_column, 0, 2.0,
                   "%.2fx");
    missed += goal(f, pre, res, nres, "256MiB", "cook 256MiB (column cook / hand; no goal):", g_column, 0, -1,
                   "%.2fx");
    for (i = 0; i < nres; i++)
        for (k = 0; k < NOPS; k++)
            if (res[i].t[k].on) heap += res[i].t[k].heap_calls;
    fprintf(f, "%s  %-44s %lu heap calls  -> %s\n", pre, "zero allocations in every operation:", heap,
            heap ? "MISSED" : "met");
    missed += heap != 0;
    return missed;
}

/* ------------------------------------------------------------------------ */
/* Callgrind mode: one operation, N passes, inside bench_cg_region.         */
/* ------------------------------------------------------------------------ */
#if defined(__clang__)
#define BENCH_NOINLINE __attribute__((noinline))
#else
#define BENCH_NOINLINE __attribute__((noinline, noclone))
#endif
BENCH_NOINLINE void bench_cg_region(case_ctx *c, op_fn fn, long passes);
BENCH_NOINLINE void bench_cg_region(case_ctx *c, op_fn fn, long passes)
{
    long i;
    for (i = 0; i < passes; i++) fn(c);
}

static const bench_shape *shape_by_name(const char *n)
{
    size_t i;
    for (i = 0; i < bench_nshapes; i++)
        if (!strcmp(bench_shapes[i].name, n)) return &bench_shapes[i];
    return NULL;
}

static const size_def *size_by_name(const char *n)
{
    size_t i;
    for (i = 0; i < NSIZES; i++)
        if (!strcasecmp(sizes[i].name, n)) return &sizes[i];
    return NULL;
}

static const char *const op_names[NOPS] = {"validate", "walk", "batch",    "scan",   "pass",
                                           "memcpy",   "sum",  "handwalk", "encode", "enci",
                                           "encb",     "cook", "column",   "hand",   "handpass"};

static int cg_main(const char *op, const char *shape, const char *size, long passes)
{
    const bench_shape *s = shape_by_name(shape);
    const size_def *z = size_by_name(size);
    op_fn fn = NULL;
    case_ctx *c;
    int k, cook = !strcmp(op, "cook") || !strcmp(op, "column") ? 2 : !strcmp(op, "hand") ? 1 : 0;
    if (!s || !z) die("--cg: unknown --shape or --size");
    for (k = 0; k < NOPS; k++)
        if (!strcmp(op, op_names[k])) fn = op_fns[k];
    if (!strcmp(op, "walk8")) fn = op_walk8;
    if (!strcmp(op, "handval")) fn = op_handval;
    if (!strcmp(op, "handenc")) fn = op_handenc;
    if (cook && !s->cook) fn = NULL;
    if (!fn) die("--cg: unknown operation");
    c = malloc(sizeof *c);
    if (!c) die("out of memory");
    case_build(c, s, z, cook);
    bench_cg_region(c, fn, passes);
    printf("op=%s shape=%s size=%s passes=%ld bytes=%zu instances=%llu values=%llu\n", op, s->name, z->name,
           passes, c->len, (unsigned long long)c->wr.instances, (unsigned long long)c->wr.values);
    case_free(c);
    free(c);
    return 0;
}

/* Seconds one cook of `units` instances (or blocks) of shape sh would take,
 * from the two largest cooks of that shape measured so far: t = a * n^p with
 * p fitted between them and held to 1..2. 0 when nothing was measured. */
static double cook_estimate(const result *res, size_t nres, const bench_shape *sh, uint32_t units)
{
    const result *a = NULL, *b = NULL; /* b: the largest; a: the largest of at most half its values */
    double n = (double)units * sh->ncounters, p = 1;
    size_t i;
    for (i = 0; i < nres; i++)
        if (res[i].shape == sh && res[i].t[OP_COOK].on && (!b || res[i].values > b->values)) b = &res[i];
    if (!b) return 0;
    /* two sizes of almost the same count (wide: native and 1 MiB) would make
     * the noise an exponent */
    for (i = 0; i < nres; i++)
        if (res[i].shape == sh && res[i].t[OP_COOK].on && 2 * res[i].values <= b->values &&
            (!a || res[i].values > a->values))
            a = &res[i];
    if (a) p = log(b->t[OP_COOK].best / a->t[OP_COOK].best) / log((double)b->values / (double)a->values);
    if (!(p >= 1)) p = 1;
    if (p > 2) p = 2;
    return b->t[OP_COOK].best * pow(n / (double)b->values, p);
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;
    if (!list) return 1;
    while ((p = strstr(p, name)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
        p += n;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int reps = 7, big_reps = 3, md = 0, i, missed;
    double batch_ms = 20, max_op_s = 3, cook_budget = 10;
    const char *want_sizes = NULL, *want_shapes = NULL;
    const char *cg = NULL, *cg_shape = "procinfo", *cg_size = "1MiB";
    long passes = 1;
    result *res;
    size_t nres = 0, s, z;
    unsigned long h0;
    double t_start = now_s();
    case_ctx *c, *cases;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--reps") && v)
            reps = atoi(argv[++i]);
        else if (!strcmp(a, "--big-reps") && v)
            big_reps = atoi(argv[++i]);
        else if (!strcmp(a, "--batch-ms") && v)
            batch_ms = atof(argv[++i]);
        else if (!strcmp(a, "--max-op-s") && v)
            max_op_s = atof(argv[++i]);
        else if (!strcmp(a, "--cook-budget") && v)
            cook_budget = atof(argv[++i]);
        else if (!strcmp(a, "--sizes") && v)
            want_sizes = argv[++i];
        else if (!strcmp(a, "--shapes") && v)
            want_shapes = argv[++i];
        else if (!strcmp(a, "--markdown"))
            md = 1;
        else if (!strcmp(a, "--cg") && v)
            cg = argv[++i];
        else if (!strcmp(a, "--shape") && v)
            cg_shape = argv[++i];
        else if (!strcmp(a, "--size") && v)
            cg_size = argv[++i];
        else if (!strcmp(a, "--passes") && v)
            passes = atol(argv[++i]);
        else {
            int help = !strcmp(a, "--help") || !strcmp(a, "-h");
            fprintf(help ? stdout : stderr,
                    "usage: pcq_bench [--reps N] [--big-reps N] [--batch-ms MS] [--max-op-s S] "
                    "[--cook-budget S]\n"
                    "                 [--sizes native,4KiB,1MiB,256MiB]\n"
                    "                 [--shapes procinfo,process,multi,wide,small,mix] [--markdown]\n"
                    "       pcq_bench --cg "
                    "validate|handval|walk|walk8|handwalk|batch|scan|pass|handpass|\n"
                    "                 memcpy|sum|encode|enci|encb|handenc|cook|column|hand\n"
                    "                 [--shape S] [--size Z] [--passes N]\n");
            return help ? 0 : 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > MAXREPS) reps = MAXREPS;
    if (big_reps < 1) big_reps = 1;
    if (big_reps > MAXREPS) big_reps = MAXREPS;

    op_fns[OP_VALIDATE] = op_validate;
    op_fns[OP_WALK] = op_walk;
    op_fns[OP_BATCH] = op_batch;
    op_fns[OP_SCAN] = op_scan;
    op_fns[OP_PASS] = op_pass;
    op_fns[OP_MEMCPY] = op_memcpy;
    op_fns[OP_SUM] = op_sum;
    op_fns[OP_HANDWALK] = op_handwalk;
    op_fns[OP_ENCODE] = op_encode;
    op_fns[OP_ENCI] = op_enci;
    op_fns[OP_ENCB] = op_encb;
#if BENCH_COOK
    op_fns[OP_COOK] = op_cook;
    op_fns[OP_COLUMN] = op_column;
#endif
    op_fns[OP_HAND] = op_hand;
    op_fns[OP_HANDPASS] = op_handpass;

    /* The heap-call counter must be live, or "0 allocations" means nothing. */
    h0 = bench_heap_calls;
    {
        void *volatile p = malloc(16);
        free(p);
    }
    if (bench_heap_calls - h0 != 2) die("heap-call counting is not linked in (ld --wrap)");

    if (cg) return cg_main(cg, cg_shape, cg_size, passes);

    res = calloc(bench_nshapes * NSIZES, sizeof *res);
    cases = calloc(bench_nshapes * NSIZES, sizeof *cases);
    c = malloc(sizeof *c);
    if (!res || !c || !cases) die("out of memory");
    print_machine(stdout, "");
    printf(
        "timing: each figure is the fastest of %d rounds of interleaved batches of >= %.0f ms, the rounds\n"
        "going across all buffers below 256MiB (at 256MiB: %d rounds of single passes, one buffer at a "
        "time)\n",
        reps, batch_ms, big_reps);
    fflush(stdout);
    /* Small buffers: all built at once, and the rounds go across all of them,
     * so a burst of load from other users of the machine spoils one round of
     * each buffer rather than every round of one. Big ones: one at a time. */
    {
        size_t nsmall = 0, k2;
        int most = 0, r;
        for (z = 0; z < NSIZES; z++) {
            if (want_sizes && !in_list(want_sizes, sizes[z].name)) continue;
            if (sizes[z].target >= 64 * MiB) continue;
            for (s = 0; s < bench_nshapes; s++) {
                const bench_shape *sh = &bench_shapes[s];
                result *r0 = &res[nres];
                case_ctx *cc = &cases[nsmall];
                int k, m;
                if (want_shapes && !in_list(want_shapes, sh->name)) continue;
                case_build(cc, sh, &sizes[z], BENCH_COOK ? 2 : 1);
                r0->shape = sh;
                r0->size = &sizes[z];
                r0->bytes = cc->len;
                r0->instances = cc->wr.instances;
                r0->values = cc->wr.values;
                for (k = 0; k < NOPS; k++) r0->t[k].on = op_fns[k] != NULL;
                r0->t[OP_COOK].on &= sh->cook;
                r0->t[OP_COLUMN].on &= sh->cook;
                r0->t[OP_HAND].on &= sh->cook;
                r0->reps = reps;
                m = time_setup(cc, r0->t, reps, batch_ms * 1e-3, max_op_s);
                if (m > most) most = m;
                nres++;
                nsmall++;
            }
        }
        for (r = 0; r < most; r++) {
            for (k2 = 0; k2 < nsmall; k2++) time_round(&cases[k2], res[k2].t, r);
            fprintf(stderr, "  round %d of %d over %zu small buffers at %.1f s\n", r + 1, most, nsmall,
                    now_s() - t_start);
        }
        for (k2 = 0; k2 < nsmall; k2++) {
            result *r0 = &res[k2];
            time_finish(r0->t);
#if BENCH_COOK
            if (r0->shape->cook) r0->cook_bad = cook_check(&cases[k2], &r0->cook_ok, &r0->cook_worst);
            if (r0->cook_bad)
                fprintf(stderr,
                        "pcq_bench: %s/%s: %zu of %zu cooked values differ from the hand formula (worst rel. "
                        "diff %.3g)\n",
                        r0->shape->name, r0->size->name, r0->cook_bad, r0->cook_ok, r0->cook_worst);
#endif
            case_free(&cases[k2]);
        }
    }
    for (z = 0; z < NSIZES; z++) {
        if (want_sizes && !in_list(want_sizes, sizes[z].name)) continue;
        if (sizes[z].target < 64 * MiB) continue;
        for (s = 0; s < bench_nshapes; s++) {
            const bench_shape *sh = &bench_shapes[s];
            result *r = &res[nres];
            int k, cook_on = BENCH_COOK && sh->cook, most, rr;
            double est = 0;
            if (want_shapes && !in_list(want_shapes, sh->name)) continue;
            if (cook_on) {
                /* pcq_calc_cook may grow faster than linearly: extrapolate from the
                 * smaller sizes of this shape and skip it past the budget. */
                est = cook_estimate(res, nres, sh, bench_units_for(sh, sizes[z].target));
                if (est > cook_budget) cook_on = 0;
            }
            case_build(c, sh, &sizes[z], cook_on ? 2 : 1);
            r->shape = sh;
            r->size = &sizes[z];
            r->bytes = c->len;
            r->instances = c->wr.instances;
            r->values = c->wr.values;
            for (k = 0; k < NOPS; k++) r->t[k].on = op_fns[k] != NULL;
            r->t[OP_COOK].on = cook_on;
            r->t[OP_COLUMN].on &= sh->cook;
            r->t[OP_HAND].on &= sh->cook;
            if (!cook_on && BENCH_COOK && sh->cook) r->cook_skipped_est = est;
            r->reps = big_reps;
            most = time_setup(c, r->t, big_reps, 0, 1e30);
            for (rr = 0; rr < most; rr++) time_round(c, r->t, rr);
            time_finish(r->t);
#if BENCH_COOK
            if (cook_on) {
                r->cook_bad = cook_check(c, &r->cook_ok, &r->cook_worst);
                if (r->cook_bad)
                    fprintf(stderr,
                            "pcq_bench: %s/%s: %zu of %zu cooked values differ from the hand formula (worst "
                            "rel. diff %.3g)\n",
                            sh->name, sizes[z].name, r->cook_bad, r->cook_ok, r->cook_worst);
            }
#endif
            case_free(c);
            fprintf(stderr, "  measured %s/%s (%zu bytes) at %.1f s\n", sh->name, sizes[z].name, r->bytes,
                    now_s() - t_start);
            nres++;
        }
    }
    printf("\n");
    print_table(stdout, res, nres, md);
    printf("\n");
    printf(
        "validate = pcq_decode_data; walk = the README's: decode, then the typed iterators over every\n"
        "block, instance and value (summed); batch = the same, a block's values by pcq_block_rows_u64;\n"
        "scan = one pass with PCQ_BULK over every structure (values checked, not read); pass = the same\n"
        "reading every value; handpass = the same checks and reads as one hand-written loop (no API);\n"
        "sum = a plain loop adding every 8-byte word (what reading the buffer\n"
        "costs, no check); mcpy = memcpy time / its time (100%% = as fast as memcpy of the same\n"
        "buffer); encode = pcq_writer a call a value, enci = an instance a call, encb = the batch writer\n"
        "(a block's instances a call); cook = pcq_calc_cook of two samples, column = pcq_calc_cook_column\n"
        "a counter at a time, hand = the same formulas inline over the raw bytes; heap calls inside\n"
        "measured batches.\n");
    {
        size_t k2, checked = 0, bad = 0;
        double worst = 0;
        int skipped = 0;
        for (k2 = 0; k2 < nres; k2++) {
            checked += res[k2].cook_ok;
            bad += res[k2].cook_bad;
            if (res[k2].cook_worst > worst) worst = res[k2].cook_worst;
            if (res[k2].cook_skipped_est > 0) {
                if (!skipped++)
                    printf("cook skipped (one pass would take longer than --cook-budget %.0f s):",
                           cook_budget);
                printf(" %s/%s est. %.0f s", res[k2].shape->name, res[k2].size->name,
                       res[k2].cook_skipped_est);
            }
        }
        if (skipped) printf("\n");
        {
            /* How noisy the run was: the median batch against the best one. */
            double spread = 0, sum = 0;
            int nsp = 0, k;
            for (k2 = 0; k2 < nres; k2++)
                for (k = 0; k < NOPS; k++)
                    if (res[k2].t[k].on && res[k2].t[k].reps > 1) {
                        double x = res[k2].t[k].median / res[k2].t[k].best - 1;
                        if (x > spread) spread = x;
                        sum += x;
                        nsp++;
                    }
            if (nsp)
                printf("noise: the median batch is %.0f%% slower than the best on average, %.0f%% at worst\n",
                       100 * sum / nsp, 100 * spread);
        }
        if (checked)
            printf("cook checked against hand: %zu cooked values compared, %zu differ (worst relative "
                   "difference %.1e)\n",
                   checked, bad, worst);
        printf("\n");
    }
    missed = print_goals(stdout, res, nres, "");
    printf("\ntotal %.1f s\n", now_s() - t_start);
    {
        unsigned long heap = 0;
        size_t k2;
        int k;
        for (k2 = 0; k2 < nres; k2++)
            for (k = 0; k < NOPS; k++)
                if (res[k2].t[k].on) heap += res[k2].t[k].heap_calls;
        size_t bad = 0;
        for (k2 = 0; k2 < nres; k2++) bad += res[k2].cook_bad;
        free(res);
        free(c);
        free(cases);
        (void)missed;
        /* Goals are reported, not asserted. Asserted: no heap call (the
         * library's promise), and cook computing what the yardstick does. */
        if (heap) fprintf(stderr, "pcq_bench: FAIL: %lu heap calls inside measured batches\n", heap);
        if (bad) fprintf(stderr, "pcq_bench: FAIL: %zu cooked values differ from the hand formula\n", bad);
        return heap ? 1 : bad ? 3 : 0;
    }
}
