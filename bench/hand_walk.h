/* SPDX-License-Identifier: MIT */
/*
 * bench/hand_walk.h - the README walk's work on a data buffer in the
 * canonical layout, as one plain hand-written loop that trusts the bytes
 * (pcq_bench's "handwalk", --cg only): every block, every instance's name
 * length and every value, summed, with no API, no check and nothing kept.
 * It is the walk's yardstick as handval is validation's: what reading the
 * structures costs on a shape at the least, so that the README walk's
 * figure splits into validation, this floor, and what the iterators add.
 * Only for buffers hand_check takes (the bench checks that it finds what
 * the walk finds); on any other bytes it reads out of bounds.
 *
 * The layout ([MS-PCQ] §2.2.4.7-§2.2.4.14, NOTES §2): after the 48-byte
 * _PERF_DATA_HEADER, dwNumCounter blocks, each a 16-byte _PERF_COUNTER_HEADER
 * (dwType at 4, dwSize at 8) and its body by dwType: 1 one value; 2 a
 * _PERF_MULTI_COUNTERS (dwSize at 0, dwCounters at 4) and its values; 4 a
 * _PERF_MULTI_INSTANCES (dwInstances at 4, 8 bytes) and instances of one
 * value; 6 both, instances of dwCounters values. An instance: Size at 0,
 * the name from 8 to Size, its NUL in the last 8 bytes; a value: 16 bytes,
 * dwDataSize 4 or 8 at 0, the value at 8.
 */
#ifndef PCQ_BENCH_HAND_WALK_H
#define PCQ_BENCH_HAND_WALK_H

#include "hand_check.h"

typedef struct hand_walk_result {
    uint64_t sum, instances, values, names; /* as walk_result's: names in bytes */
} hand_walk_result;

/* The name's bytes before its NUL, which is in the last word, zeros after
 * it: the word's non-zero units, from the index of its top bit (as the
 * codec finds it; a loop over the units costs more). */
static inline size_t hw_name_len(const uint8_t *b, size_t name, size_t end)
{
    uint64_t w = hc_ld64(b + end - 8);
#if defined(__GNUC__)
    size_t k = (((unsigned)__builtin_clzll(2 * w + 1) ^ 63u) + 15u) >> 4;
#else
    size_t k = (size_t)(w != 0) + (w > 0xFFFFu) + (w > 0xFFFFFFFFu);
#endif
    return end - 8 - name + 2 * k;
}

/* A 16-byte _PERF_COUNTER_DATA's value: 4 bytes are the low half. */
static inline uint64_t hw_value(const uint8_t *p)
{
    uint64_t v = hc_ld64(p + 8);
    return hc_ld32(p) == 4 ? (uint32_t)v : v;
}

static inline void hand_walk(const uint8_t *b, hand_walk_result *r)
{
    uint64_t sum = 0, inst = 0, vals = 0, names = 0;
    size_t at = 48;
    uint32_t n;
    for (n = hc_ld32(b + 4); n > 0; n--) {
        uint32_t type = hc_ld32(b + at + 4), k = 0, i, j, nv;
        size_t body = at + 16;
        at += hc_ld32(b + at + 8);
        if (type == 2 || type == 6) {
            k = hc_ld32(b + body + 4);
            body += hc_ld32(b + body);
        }
        if (type == 1 || type == 2) { /* one instance, implicit */
            nv = type == 1 ? 1 : k;
            for (j = 0; j < nv; j++, body += 16) sum += hw_value(b + body);
            inst++;
            vals += nv;
        } else if (type == 4 || type == 6) {
            nv = type == 4 ? 1 : k;
            i = hc_ld32(b + body + 4);
            inst += i;
            vals += (uint64_t)i * nv;
            for (body += 8; i > 0; i--) {
                size_t v = body + hc_ld32(b + body);
                names += hw_name_len(b, body + 8, v);
                for (j = 0; j < nv; j++, v += 16) sum += hw_value(b + v);
                body = v;
            }
        }
    }
    r->sum = sum;
    r->instances = inst;
    r->values = vals;
    r->names = names;
}

#endif
