/* SPDX-License-Identifier: MIT */
/*
 * cook_hashes.h - pcq_calc.c's two cook hashes run backwards (and name_hash
 * forward for short names), for inputs whose names collide (test/test_calc.c test_cook_crafted_collisions,
 * bench/hostile.c cook-collide*; docs/decisions.md D12).
 *
 * instance_hash (the join's order) and name_hash (name#n's buckets) take a
 * name 8 bytes a step with a multiply and a xorshift, each one-to-one and
 * with no secret: for a chosen final value, the last word of a name can be
 * computed back. A name here is one or two 8-byte words (`first`, then the
 * word returned), its length a multiple of 8, so that no tail step comes
 * in. The words are host order, as the hashes load them, so the names
 * collide on any host. If pcq_calc.c's hashes change, these must follow;
 * the names then stop colliding, and what uses them still checks its
 * results (not the path).
 */
#ifndef PCQ_COOK_HASHES_H
#define PCQ_COOK_HASHES_H

#include <stdint.h>

static uint64_t ch_unxorshift(uint64_t y, unsigned s) /* x ^= x >> s, undone */
{
    uint64_t x = y;
    unsigned i;
    for (i = 0; i < 64 / s + 1; i++) x = y ^ (x >> s);
    return x;
}

static uint64_t ch_inverse(uint64_t m) /* m odd: its inverse mod 2^64 (Newton) */
{
    uint64_t x = m;
    int i;
    for (i = 0; i < 5; i++) x *= 2 - m * x;
    return x;
}

/* The last word of a name of `words` words (1 or 2; the first `first`)
 * whose instance_hash under InstanceId id, before its cut to 24 bits, is v. */
static uint64_t ch_instance_word(uint32_t id, int words, uint64_t first, uint64_t v)
{
    const uint64_t mul = 0x9E3779B97F4A7C15u, m = ch_inverse(mul);
    uint64_t h = ((uint64_t)id << 32 | (uint32_t)(8 * words)) ^ 0xD6E8FEB86659FD93u;
    if (words == 2) {
        h = (h ^ first) * mul;
        h ^= h >> 29;
    }
    return (ch_unxorshift(ch_unxorshift(v, 32) * m, 29) * m) ^ h;
}

/* The same for name_hash of a leader of counter `counter`: its 64-bit
 * state before the top 32 bits are taken is v (the finishing xorshift and
 * multiply undone first). */
static uint64_t ch_bucket_word(uint32_t counter, int words, uint64_t first, uint64_t v)
{
    const uint64_t c1 = 0xFF51AFD7ED558CCDu, c2 = 0xC4CEB9FE1A85EC53u;
    uint64_t h = 0x9E3779B97F4A7C15u ^ counter;
    if (words == 2) {
        h = (h ^ first) * c1;
        h ^= h >> 32;
    }
    v = ch_unxorshift(v * ch_inverse(c1), 32);
    return (ch_unxorshift((v * ch_inverse(c2)) ^ (uint64_t)(8 * words) << 56, 32) * ch_inverse(c1)) ^ h;
}

/* name_hash itself, forward, for a name of under 8 bytes (p, n): its tail
 * step alone, whose word takes the bytes in order whatever the host. For
 * names that share a bucket among a count of buckets not known in advance
 * (bench/hostile.c cook-short-buckets). */
static uint32_t ch_name_hash_short(uint32_t counter, const uint8_t *p, unsigned n)
{
    uint64_t w = 0;
    unsigned i;
    uint64_t h;
    for (i = 0; i < n; i++) w = w << 8 | p[i];
    h = (0x9E3779B97F4A7C15u ^ counter ^ w ^ (uint64_t)n << 56) * 0xC4CEB9FE1A85EC53u;
    h ^= h >> 32;
    return (uint32_t)((h * 0xFF51AFD7ED558CCDu) >> 32);
}

/* A word that holds a U+0000 unit (in either byte order: a unit is two
 * bytes at an even offset either way), which would end the name early. */
static int ch_has_nul_unit(uint64_t x)
{
    const uint64_t units = 0x0001000100010001u;
    return ((x - units) & ~x & (units << 15)) != 0;
}

#endif
