/* SPDX-License-Identifier: MIT */
/*
 * bench/hand_pass.h - a hand-written single pass over a data buffer in the
 * canonical layout, as the yardstick for the single pass (pcq_bench's
 * "handpass", timed and --cg): hand_check's rules and hand_walk's reading
 * in one loop, each instance checked and then its values summed while its
 * bytes are in the cache, the buffer read once. No API, no error to report,
 * no item, no offset kept: what a pass that validates and reads every value
 * costs on a shape at the least, written for the canonical layout alone.
 * It answers whether the goal of a single pass (90% of memcpy at 256 MiB)
 * can be met at all on a machine and shape, where PCQ_BULK's pass misses it.
 * On a buffer that is not canonical it returns 0 (and reads only inside it).
 * In an input of 4 MiB or more it fetches each line 2 KiB ahead, as the
 * codec does (PCQ_AHEAD_FROM, PCQ_AHEAD: D19); without it a plain loop that
 * only adds every word runs at 68-75% of memcpy at 256 MiB (the bench's
 * "sum"), so a yardstick without it would say nothing of what code can do.
 *
 * The rules and the layout are hand_check.h's and hand_walk.h's ([MS-PCQ]
 * §2.2.4.7-§2.2.4.14, NOTES §2).
 */
#ifndef PCQ_BENCH_HAND_PASS_H
#define PCQ_BENCH_HAND_PASS_H

#include "hand_walk.h"

#define HP_AHEAD      2048u      /* PCQ_AHEAD's default */
#define HP_AHEAD_FROM (4u << 20) /* PCQ_AHEAD_FROM's */

/* The lines up to `to` + HP_AHEAD not fetched yet (*pf: the first of them),
 * in an input of len bytes (0: not reading ahead) */
static inline void hp_ahead(const uint8_t *b, size_t len, size_t *pf, size_t to)
{
#if defined(__GNUC__)
    size_t q = *pf, lim = to + HP_AHEAD < len ? to + HP_AHEAD : len;
    for (; q < lim; q += 64) __builtin_prefetch(b + q);
    *pf = q;
#else
    (void)b, (void)len, (void)pf, (void)to;
#endif
}

/* n canonical values from p: their sum; *bad non-zero if one is not 16
 * bytes of 4 or 8 (the check and the read share the load of dwDataSize) */
static inline uint64_t hp_values(const uint8_t *p, size_t n, uint64_t *bad)
{
    uint64_t sum = 0, x = 0;
    for (; n > 0; n--, p += 16) {
        uint64_t w = hc_ld64(p), v = hc_ld64(p + 8);
        x |= w - ((uint64_t)16 << 32 | 4);
        sum += (uint32_t)w == 4 ? (uint32_t)v : v;
    }
    *bad |= x & ~(uint64_t)4;
    return sum;
}

/* n instances of nv values from at, filling [at, end): hc_instances, and
 * each one's name length and values into r */
static inline int hp_instances(const uint8_t *b, size_t ahead, size_t *pf, size_t at, size_t end, uint32_t n,
                               uint32_t nv, hand_walk_result *r)
{
    uint64_t bad = 0, z = 0, sum = 0;
    size_t names = 0;
    r->instances += n;
    r->values += (uint64_t)n * nv;
    for (; n > 0; n--) {
        unsigned nul;
        size_t size = hc_instance(b, at, end, nv, &z, &nul);
        if (!size) return 0;
        if (ahead) hp_ahead(b, ahead, pf, at + size + 16 * (size_t)nv);
        names += size - 16 + (nul - 15) / 8; /* the bytes before the NUL */
        sum += hp_values(b + at + size, nv, &bad);
        at += size + 16 * (size_t)nv;
    }
    r->sum += sum;
    r->names += names;
    return !(z & HC_HI) && !bad && at == end;
}

/* 1 and the sums in *r when b is canonical; 0 when it is not */
static inline int hand_pass(const uint8_t *b, size_t len, hand_walk_result *r)
{
    size_t at = 48, pf = 0, ahead = len >= HP_AHEAD_FROM ? len : 0;
    uint32_t n;
    uint64_t bad = 0;
    memset(r, 0, sizeof *r);
    if (len < 48 || hc_ld32(b) != len) return 0;
    for (n = hc_ld32(b + 4); n > 0; n--) {
        size_t body, end;
        uint32_t type, k;
        if (!hc_block(b, len, at, &type, &end, &body, &k)) return 0;
        if (type == 0) {
            if (end - at != 16) return 0;
        } else if (type == 1 || type == 2) { /* one instance, implicit */
            size_t nv = type == 1 ? 1 : k;
            if (end - body != 16 * nv) return 0;
            if (ahead) hp_ahead(b, ahead, &pf, end);
            r->sum += hp_values(b + body, nv, &bad);
            r->instances++;
            r->values += nv;
        } else if (type == 4 || type == 6) { /* _PERF_MULTI_INSTANCES */
            if (end - body < 8 || hc_ld32(b + body) != end - body ||
                !hp_instances(b, ahead, &pf, body + 8, end, hc_ld32(b + body + 4), type == 4 ? 1 : k, r))
                return 0;
        } else {
            return 0;
        }
        at = end;
    }
    return at == len && !bad;
}

#endif
