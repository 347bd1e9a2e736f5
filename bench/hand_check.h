/* SPDX-License-Identifier: MIT */
/*
 * bench/hand_check.h - a hand-written check of a data buffer (the opnum 6
 * reply) in the canonical layout, as a yardstick for validation
 * (pcq_bench's "handval", --cg only): the rules pcq_decode_data's fast path
 * takes a buffer by (pcq_codec.c, canonical_data), written as one plain
 * loop over the bytes, with no API, no error to report and nothing kept.
 * It answers what those rules cost on a shape at the least, where the goal
 * (0.5 instructions a byte) is missed: it is not the codec's check, and it
 * says nothing of a buffer that is not canonical (0 then).
 *
 * The rules ([MS-PCQ] §2.2.4.7-§2.2.4.14, and NOTES §2 for the layout
 * Windows writes):
 *   - _PERF_DATA_HEADER: dwTotalSize is the input; dwNumCounter blocks fill
 *     it, each a _PERF_COUNTER_HEADER (dwType, dwSize a multiple of 8,
 *     Reserved 0) and its body by dwType:
 *       0 (error)  nothing;                 1  one value;
 *       2  _PERF_MULTI_COUNTERS (dwSize 8 + 4 n, padded to 8), n values;
 *       4  _PERF_MULTI_INSTANCES (dwTotalSize: the rest of the block),
 *          instances of one value;
 *       6  the counters as in 2, then instances of n values as in 4;
 *   - an instance: Size a multiple of 8, the name (UTF-16LE) from byte 8 to
 *     Size, its NUL in its last 8 bytes and every unit after it 0, none
 *     before it;
 *   - a value (_PERF_COUNTER_DATA): dwDataSize 4 or 8, dwSize 16.
 */
#ifndef PCQ_BENCH_HAND_CHECK_H
#define PCQ_BENCH_HAND_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Little-endian loads on any host: one load where the host is
 * little-endian, as the codec's (clang 14 left the bytes of a 64-bit one
 * as eight loads, shifts and ors) */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint32_t hc_ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t hc_ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
#else
static inline uint32_t hc_ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t hc_ld64(const uint8_t *p)
{
    return hc_ld32(p) | (uint64_t)hc_ld32(p + 4) << 32;
}
#endif

static inline unsigned hc_ctz(uint64_t z) /* z != 0 */
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(z);
#else
    unsigned k = 0;
    while (!(z & 1)) z >>= 1, k++;
    return k;
#endif
}

#define HC_LO       0x0001000100010001u
#define HC_HI       0x8000800080008000u
#define HC_VALUE(w) (((w) - ((uint64_t)16 << 32 | 4)) & ~(uint64_t)4) /* 0: dwDataSize 4 or 8, dwSize 16 */

/* n values from p: non-zero if one is not 16 bytes of 4 or 8 */
static inline uint64_t hc_values(const uint8_t *p, size_t n)
{
    uint64_t bad = 0;
    for (; n > 0; n--, p += 16) bad |= hc_ld64(p) - ((uint64_t)16 << 32 | 4);
    return bad & ~(uint64_t)4;
}

/* The instance at `at` of nv values in [at, end): its Size, or 0 if it
 * breaks a rule. A unit 0 before its last word is only flagged in *z (one
 * test for all, at the end); *nul: the bit of its NUL's flag in that word
 * (the lowest flag is exact: bit 16 k + 15 for unit k), zeros after it. */
static inline size_t hc_instance(const uint8_t *b, size_t at, size_t end, uint32_t nv, uint64_t *z,
                                 unsigned *nul)
{
    size_t size, p, last;
    uint64_t w, z1, zz = *z;
    if (end - at < 16) return 0;
    size = hc_ld32(b + at);
    if ((size & 7) || size < 16 || size > end - at || (end - at - size) / 16 < nv) return 0;
    last = at + size - 8;
    for (p = at + 8; p < last; p += 8) { /* no unit 0 before the last word */
        w = hc_ld64(b + p);
        zz |= (w - HC_LO) & ~w;
    }
    *z = zz;
    w = hc_ld64(b + last); /* the NUL there, and zeros after it */
    z1 = (w - HC_LO) & ~w & HC_HI;
    if (!z1) return 0;
    *nul = hc_ctz(z1);
    return w >> (*nul - 15) ? 0 : size;
}

/* n instances of nv values from at, filling [at, end) */
static inline int hc_instances(const uint8_t *b, size_t at, size_t end, uint32_t n, uint32_t nv)
{
    uint64_t bad = 0, z = 0;
    for (; n > 0; n--) {
        unsigned nul;
        size_t size = hc_instance(b, at, end, nv, &z, &nul);
        if (!size) return 0;
        bad |= hc_values(b + at + size, nv);
        at += size + 16 * (size_t)nv;
    }
    return !(z & HC_HI) && !bad && at == end;
}

/* The block at `at` (its header, and the _PERF_MULTI_COUNTERS of a type 2
 * or 6 block): 0 if it breaks the rules; else its dwType, its end, where
 * what follows those starts (body) and its counters (k, 0 for the others) */
static inline int hc_block(const uint8_t *b, size_t len, size_t at, uint32_t *type, size_t *end, size_t *body,
                           uint32_t *k)
{
    size_t size, ms;
    if (len - at < 16) return 0;
    *type = hc_ld32(b + at + 4);
    size = hc_ld32(b + at + 8);
    if ((size & 7) || size < 16 || size > len - at || hc_ld32(b + at + 12) != 0) return 0;
    *body = at + 16;
    *end = at + size;
    *k = 0;
    if (*type == 2 || *type == 6) { /* _PERF_MULTI_COUNTERS */
        if (*end - *body < 8) return 0;
        ms = hc_ld32(b + *body);
        *k = hc_ld32(b + *body + 4);
        if (*k > (1u << 20) || ms != ((8 + 4 * (size_t)*k + 7) & ~(size_t)7) || ms > *end - *body) return 0;
        *body += ms;
    }
    return 1;
}

static inline int hand_check(const uint8_t *b, size_t len)
{
    size_t at = 48;
    uint32_t n;
    if (len < 48 || hc_ld32(b) != len) return 0;
    for (n = hc_ld32(b + 4); n > 0; n--) {
        size_t body, end;
        uint32_t type, k;
        if (!hc_block(b, len, at, &type, &end, &body, &k)) return 0;
        if (type == 0) {
            if (end - at != 16) return 0;
        } else if (type == 1) {
            if (end - at != 32 || HC_VALUE(hc_ld64(b + body))) return 0;
        } else if (type == 2) {
            if (end - body != 16 * (size_t)k || hc_values(b + body, k)) return 0;
        } else if (type == 4 || type == 6) { /* _PERF_MULTI_INSTANCES */
            if (end - body < 8 || hc_ld32(b + body) != end - body ||
                !hc_instances(b, body + 8, end, hc_ld32(b + body + 4), type == 4 ? 1 : k))
                return 0;
        } else {
            return 0;
        }
        at = end;
    }
    return at == len;
}

#endif
