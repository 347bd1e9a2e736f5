/* SPDX-License-Identifier: MIT */
/*
 * bench/shapes.h - the realistic buffers the benchmark measures, built at
 * start-up from plain in-memory content with the pcq_writer encoder.
 *
 * The shapes (see shapes.c for the counter lists), by layout:
 *   procinfo  "Processor Information" (NOTES §8): one PERF_COUNTERSET block,
 *             31 counters, 256 instances ("0,0" .. "0,_Total", "_Total");
 *   process   a "Process"-like PERF_COUNTERSET: 28 counters, 5,000 instances
 *             named with 8-40 characters;
 *   multi     a single-instance PERF_MULTI_COUNTERS reply ("Memory"-like,
 *             24 counters); scaled by repeating the block, as a query over
 *             several single-instance countersets does;
 *   wide      a PERF_COUNTERSET of 3,000 instances x 20 counters, 4- and
 *             8-byte values mixed;
 *   small     one PERF_MULTI_INSTANCES block per counter (4), each of many
 *             48-byte instances ("thread_NNNN"): the most structures a byte;
 *   mix       all five dwTypes in turn: an error block, a type 1 block, a
 *             type 2 block, a type 4 block of 8 instances, a type 6 block of
 *             8 instances; scaled by repeating the group.
 * Each is built at its native size or scaled to about a target number of
 * bytes. Cooking (and its hand-written yardstick) is measured on the shapes
 * whose every block lists its counters (cook = 1).
 */
#ifndef PCQ_BENCH_SHAPES_H
#define PCQ_BENCH_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "../pcq_codec.h"

typedef struct bench_counter {
    uint32_t id, type;
    uint8_t size;     /* value bytes: 4 or 8 */
    uint32_t base_id; /* BaseCounterId, or 0xFFFFFFFF */
    const char *name;
} bench_counter;

/* How a shape's reply is laid out; a unit is what it scales by. */
enum {
    BENCH_SET = 1,   /* one PERF_COUNTERSET block; unit: an instance */
    BENCH_MULTI,     /* PERF_MULTI_COUNTERS blocks; unit: a block */
    BENCH_INSTANCES, /* a PERF_MULTI_INSTANCES block per counter; unit: an instance of each */
    BENCH_MIX        /* error, 1, 2, 4, 6 blocks; unit: the group of five */
};
#ifndef BENCH_MIX_INST   /* -D for the block-size sweep (mk/bench.mk) */
#define BENCH_MIX_INST 8 /* instances of the type 4 and 6 blocks of a mix group */
#endif
#ifndef BENCH_NAME_STEM           /* -D for the name lengths of bench/RESULTS.md (mk/bench.mk) */
#define BENCH_NAME_STEM "thread_" /* small's and mix's names: the stem, then BENCH_NAME_DIGITS digits */
#endif
#ifndef BENCH_NAME_DIGITS   /* -D (1 to 4) with an empty stem for names of 1 to 3 characters */
#define BENCH_NAME_DIGITS 4 /* the instance's index modulo 10^digits */
#endif

typedef struct bench_shape {
    const char *name; /* "procinfo", "process", "multi", "wide", "small", "mix" */
    const char *title;
    int layout; /* BENCH_* */
    uint32_t instance_type;
    pcq_guid guid;
    const bench_counter *counters;
    uint32_t ncounters;
    uint32_t native_units;
    int cook; /* cooking measured (every block lists its counters) */
} bench_shape;

extern const bench_shape bench_shapes[];
extern const size_t bench_nshapes;

/* Plain content: what a collector holds before it encodes a reply. */
typedef struct bench_content {
    const bench_shape *shape;
    uint32_t units;     /* see the layouts */
    uint32_t ninst;     /* distinct instance names */
    uint32_t *ids;      /* ncounters counter ids */
    uint8_t *sizes;     /* ncounters value sizes */
    uint32_t *inst_id;  /* per instance name */
    size_t *name_off;   /* per instance: byte offset into names16 */
    uint32_t *name_len; /* per instance: bytes, without the NUL */
    uint8_t *names16;
    pcq_instance *insts;   /* per instance: its id and name (for the block writer) */
    uint64_t *vals;        /* every value in wire order: the newer sample */
    uint64_t *old_vals;    /* the older sample (one second before) */
    pcq_data hdr, old_hdr; /* header time fields of the two samples */
    uint64_t nvalues;      /* values of the reply */
    uint64_t instances;    /* instances (types 4, 6), plus one a type 1 or 2 block */
    uint64_t sum;          /* sum of vals (what a walk must find) */
} bench_content;

/* Content with `units` instances or blocks; 0 on out-of-memory. */
int bench_content_make(bench_content *c, const bench_shape *s, uint32_t units);
void bench_content_free(bench_content *c);

/* Units that give about `target` bytes (at least 1). */
uint32_t bench_units_for(const bench_shape *s, size_t target);

/* Encodes the content (vals, hdr) into (dst, cap): the measured encoder.
 * Returns a pcq status; *len receives the size (or the size needed). */
int bench_encode(const bench_content *c, uint8_t *dst, size_t cap, size_t *len);
/* The same an instance a call (pcq_put_data_instance_u64; pcq_put_values_u64
 * for a type 1 or 2 block's values). */
int bench_encode_instances(const bench_content *c, uint8_t *dst, size_t cap, size_t *len);
/* The same through the batch writer: a type 4 or 6 block's instances in one
 * call (pcq_put_data_instances_u64), a type 1 or 2 block's values in one. */
int bench_encode_batch(const bench_content *c, uint8_t *dst, size_t cap, size_t *len);
/* The same with the older sample (old_vals, old_hdr). */
int bench_encode_older(const bench_content *c, uint8_t *dst, size_t cap, size_t *len);

/* The counterset-info reply (opnum 1, RequestCode 1) of a shape. */
int bench_counterset_info(const bench_shape *s, uint8_t *dst, size_t cap, size_t *len);

#endif
