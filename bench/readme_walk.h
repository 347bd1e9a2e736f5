/* SPDX-License-Identifier: MIT */
/*
 * bench/readme_walk.h - the README's walk of a data buffer, as the bench
 * measures it (pcq_bench's "walk") and as pcq_hostile runs it on the worst
 * inputs (its "iter" mode): pcq_decode_data, then the typed iterators over
 * every block, every instance (its name) and every value; and the same as
 * the README's example, every name converted to UTF-8 and every value's
 * counter id taken (v.counter_id; pcq_bench's "walk8").
 */
#ifndef PCQ_BENCH_README_WALK_H
#define PCQ_BENCH_README_WALK_H

#include "../pcq_codec.h"

typedef struct walk_result {
    uint64_t sum, instances, values, names; /* names: their bytes */
    uint64_t ids;                           /* walk8: the counter ids taken, summed */
    int rc;
} walk_result;

/* Validate, then walk every value with the iterators and sum them; with
 * utf8, as the README's example does to print them, every instance's name
 * converted into it (cap bytes) and every value's counter id taken
 * (v.counter_id, from a type 2 or 6 block's list), else the name's length
 * taken. Written once for both,
 * and inlined into each (a call of its own per use would move the walk's
 * figures). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
walk_core(const uint8_t *buf, size_t len, walk_result *r, char *utf8, size_t cap)
{
    pcq_data d;
    pcq_iter bi, ii, vi;
    pcq_block b;
    pcq_data_instance in;
    pcq_value v;
    uint64_t sum = 0, ninst = 0, nval = 0, names = 0, ids = 0;
    int rc;

    r->sum = r->instances = r->values = r->names = r->ids = 0;
    r->rc = pcq_decode_data(buf, len, NULL, &d, NULL);
    if (r->rc != PCQ_OK) return;
    pcq_data_blocks(&d, &bi);
    while ((rc = pcq_blocks_next(&bi, &b)) == 1) {
        if (b.type == PCQ_PERF_COUNTERSET) {
            pcq_block_instances(&d, &b, &ii);
            while ((rc = pcq_instances_of_block_next(&ii, &in)) == 1) {
                ninst++;
                names += utf8 ? pcq_utf16_to_utf8(in.name.ptr, in.name.len, utf8, cap, NULL) : in.name.len;
                pcq_instance_values(&d, &in, &vi);
                while ((rc = pcq_values_next(&vi, &v)) == 1) {
                    sum += v.u64;
                    nval++;
                    if (utf8) ids += v.counter_id;
                }
                if (rc < 0) break;
            }
        } else if (b.type == PCQ_PERF_MULTI_INSTANCES) {
            pcq_block_instances(&d, &b, &ii);
            while ((rc = pcq_instances_of_block_next(&ii, &in)) == 1) {
                ninst++;
                names += utf8 ? pcq_utf16_to_utf8(in.name.ptr, in.name.len, utf8, cap, NULL) : in.name.len;
                sum += in.value.u64;
                nval++;
            }
        } else if (b.type == PCQ_PERF_MULTI_COUNTERS || b.type == PCQ_PERF_SINGLE_COUNTER) {
            ninst++; /* one (implicit) instance per block */
            pcq_block_values(&d, &b, &vi);
            while ((rc = pcq_values_next(&vi, &v)) == 1) {
                sum += v.u64;
                nval++;
                if (utf8) ids += v.counter_id;
            }
        }
        if (rc < 0) break;
    }
    r->rc = rc < 0 ? rc : PCQ_OK;
    r->sum = sum;
    r->instances = ninst;
    r->values = nval;
    r->names = names; /* the walk looks at every instance's name */
    r->ids = ids;
}

static void walk_data(const uint8_t *buf, size_t len, walk_result *r)
{
    walk_core(buf, len, r, NULL, 0);
}

/* The same as the README's example: names converted to UTF-8
 * (pcq_utf16_to_utf8), each value's counter id taken (v.counter_id). */
static inline void walk_data_utf8(const uint8_t *buf, size_t len, walk_result *r)
{
    char utf8[256];
    walk_core(buf, len, r, utf8, sizeof utf8);
}

#endif
