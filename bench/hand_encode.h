/* SPDX-License-Identifier: MIT */
/*
 * bench/hand_encode.h - a shape's content written as a data buffer by
 * plain hand-written stores (pcq_bench's "handenc", --cg only): the
 * writers' yardstick, as handval is validation's. It writes the bytes the
 * writers write (the bench checks it), with a room test a block and an
 * instance and nothing else: no state, no sizing pass, no error but "does
 * not fit" (-1). A name is copied by memcpy, as a hand-written encoder
 * would copy it, over a zeroed last word (its NUL and padding).
 *
 * The layout: bench/hand_walk.h; what each shape holds: encode_with in
 * bench/shapes.c.
 */
#ifndef PCQ_BENCH_HAND_ENCODE_H
#define PCQ_BENCH_HAND_ENCODE_H

#include <string.h>

#include "shapes.h"

/* Little-endian stores on any host: one store where the host is
 * little-endian (as the codec's; gcc 12 left the bytes of a zero-extended
 * byte as four stores) */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void he_st32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static inline void he_st64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
#else
static inline void he_st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void he_st64(uint8_t *p, uint64_t v)
{
    he_st32(p, (uint32_t)v);
    he_st32(p + 4, (uint32_t)(v >> 32));
}
#endif

/* A _PERF_COUNTER_HEADER of dwSize `size` (0: patched at the block's end). */
static inline size_t he_header(uint8_t *d, size_t at, uint32_t status, uint32_t type, uint32_t size)
{
    he_st32(d + at, status);
    he_st32(d + at + 4, type);
    he_st64(d + at + 8, size); /* dwSize, Reserved 0 */
    return at + 16;
}

/* n value records of sizes sz[0..n-1] (all sz[0] when one) */
static inline size_t he_values(uint8_t *d, size_t at, const uint64_t *v, const uint8_t *sz, uint32_t n,
                               int one)
{
    uint32_t k;
    for (k = 0; k < n; k++, at += 16) {
        uint32_t s = one ? sz[0] : sz[k];
        he_st64(d + at, (uint64_t)16 << 32 | s); /* dwDataSize, dwSize */
        he_st64(d + at + 8, s == 8 ? v[k] : (uint32_t)v[k]);
    }
    return at;
}

/* _PERF_MULTI_COUNTERS: dwSize, dwCounters, the ids, padded to 8 */
static inline size_t he_multi(uint8_t *d, size_t at, const uint32_t *ids, uint32_t n)
{
    size_t size = (8 + 4 * (size_t)n + 7) & ~(size_t)7;
    uint32_t k;
    he_st32(d + at, (uint32_t)size);
    he_st32(d + at + 4, n);
    he_st32(d + at + size - 4, 0);
    for (k = 0; k < n; k++) he_st32(d + at + 8 + 4 * (size_t)k, ids[k]);
    return at + size;
}

/* A _PERF_MULTI_INSTANCES of instances 0..n-1, nv values each (sizes from
 * sz), and the block's dwSize; the end, or 0 where it does not fit. */
static inline size_t he_instances(const bench_content *c, uint8_t *d, size_t cap, size_t block, size_t at,
                                  const uint64_t **v, uint32_t n, const uint8_t *sz, uint32_t nv)
{
    size_t list = at;
    uint32_t i;
    if (cap - at < 8) return 0;
    for (at += 8, i = 0; i < n; i++) {
        size_t len = c->name_len[i], size = 8 + ((len + 2 + 7) & ~(size_t)7);
        if (cap - at < size + 16 * (size_t)nv) return 0;
        he_st32(d + at, (uint32_t)size);
        he_st32(d + at + 4, c->inst_id[i]);
        he_st64(d + at + size - 8, 0);
        memcpy(d + at + 8, c->names16 + c->name_off[i], len);
        at = he_values(d, at + size, *v, sz, nv, 0);
        *v += nv;
    }
    he_st32(d + list, (uint32_t)(at - list)); /* dwTotalSize */
    he_st32(d + list + 4, n);
    he_st32(d + block + 8, (uint32_t)(at - block));
    return at;
}

/* A type 1 or 2 block of n values; 0 where it does not fit. */
static inline size_t he_values_block(const bench_content *c, uint8_t *d, size_t cap, size_t at,
                                     const uint64_t **v, uint32_t type, uint32_t n)
{
    size_t block = at, multi = type == 2 ? (8 + 4 * (size_t)n + 7) & ~(size_t)7 : 0;
    if (cap - at < 16 + multi + 16 * (size_t)n) return 0;
    at = he_header(d, at, 0, type, 0);
    if (type == 2) at = he_multi(d, at, c->ids, n);
    at = he_values(d, at, *v, c->sizes, n, type == 1);
    *v += n;
    he_st32(d + block + 8, (uint32_t)(at - block));
    return at;
}

/* A type 4 or 6 block of n instances, nv values each from counter j0. */
static inline size_t he_instance_block(const bench_content *c, uint8_t *d, size_t cap, size_t at,
                                       const uint64_t **v, uint32_t type, uint32_t n, uint32_t j0,
                                       uint32_t nv)
{
    size_t block = at, multi = type == 6 ? (8 + 4 * (size_t)nv + 7) & ~(size_t)7 : 0;
    if (cap - at < 16 + multi) return 0;
    at = he_header(d, at, 0, type, 0);
    if (type == 6) at = he_multi(d, at, c->ids, nv);
    return he_instances(c, d, cap, block, at, v, n, c->sizes + j0, nv);
}

/* The content as encode_with writes it; 0 and *len, or -1. */
static inline int hand_encode(const bench_content *c, uint8_t *d, size_t cap, size_t *len)
{
    const bench_shape *s = c->shape;
    const pcq_systemtime *t = &c->hdr.system_time;
    const uint64_t *v = c->vals;
    uint32_t nc = s->ncounters, nb = 0, u, j;
    size_t at = 48;
    if (cap < 48) return -1;
    he_st64(d + 8, c->hdr.perf_time_stamp);
    he_st64(d + 16, c->hdr.perf_time_100nsec);
    he_st64(d + 24, c->hdr.perf_freq);
    he_st32(d + 32, (uint32_t)t->year | (uint32_t)t->month << 16);
    he_st32(d + 36, (uint32_t)t->day_of_week | (uint32_t)t->day << 16);
    he_st32(d + 40, (uint32_t)t->hour | (uint32_t)t->minute << 16);
    he_st32(d + 44, (uint32_t)t->second | (uint32_t)t->milliseconds << 16);
    switch (s->layout) {
    case BENCH_SET:
        at = he_instance_block(c, d, cap, at, &v, 6, c->units, 0, nc);
        nb = 1;
        break;
    case BENCH_MULTI:
        for (u = 0; u < c->units && at; u++, nb++) at = he_values_block(c, d, cap, at, &v, 2, nc);
        break;
    case BENCH_INSTANCES:
        for (j = 0; j < nc && at; j++, nb++) at = he_instance_block(c, d, cap, at, &v, 4, c->units, j, 1);
        break;
    default: /* BENCH_MIX */
        for (u = 0; u < c->units && at; u++, nb += 5) {
            if (cap - at < 16) return -1;
            at = he_header(d, at, 0x000003E5u, 0, 16); /* as encode_with's error block */
            if ((at = he_values_block(c, d, cap, at, &v, 1, 1)) == 0) break;
            if ((at = he_values_block(c, d, cap, at, &v, 2, nc)) == 0) break;
            if ((at = he_instance_block(c, d, cap, at, &v, 4, BENCH_MIX_INST, 1, 1)) == 0) break;
            at = he_instance_block(c, d, cap, at, &v, 6, BENCH_MIX_INST, 0, nc);
        }
        break;
    }
    if (!at) return -1;
    he_st32(d, (uint32_t)at); /* dwTotalSize */
    he_st32(d + 4, nb);
    *len = at;
    return 0;
}

#endif
