/* SPDX-License-Identifier: MIT */
/*
 * bench/hostile.c - the worst inputs we know of, in every mode that reads
 * them, timed against memcpy of the same bytes (and counted by callgrind,
 * bench/callgrind.sh --hostile). Each case is a shape that made a decoder, the
 * walk or the cook superlinear, or costly per byte, before it was bounded by
 * design (docs/decisions.md D11, D12): the work of every mode must stay a
 * small multiple of the input (the goal: at most 50 instructions a byte from
 * 16 KiB to 1 MiB), and a ratio that grows with the size is a regression to
 * quadratic.
 *
 *   build/bench/pcq_hostile [--sizes 16KiB,128KiB,1MiB] [--check]
 *   build/bench/pcq_hostile --cg CASE MODE --size Z [--passes N]
 *
 * Modes: decode (pcq_validate, no options), diags (a callback counting the
 * diagnostics), strict (PCQ_STRICT), walk (pcq_walk_next over every item),
 * bulk (the same with PCQ_BULK), cook (pcq_calc_cook of two samples; its
 * rows allocated before, from a sizing call), iter (the README's way:
 * decode, then the typed iterators over every block, instance, name and
 * value, every opnum 2 instance, every counter of a counterset-info; a string
 * block is read through the walk, as D11 says, not pcq_strings_get, which
 * costs its text a call). --check (make check's smoke
 * run): small sizes, one pass, and only the results are checked (what each
 * call returns), never the times. Exit status 1 when a call returns
 * something unexpected.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "pcq_codec.h"
#include "bench/readme_walk.h"
#include "test/cook_hashes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "pcq_hostile: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* Mode bits of a case. */
enum {
    M_DECODE = 1,
    M_DIAGS = 2,
    M_STRICT = 4,
    M_WALK = 8,
    M_BULK = 16,
    M_COOK = 32,
    M_ITER = 64,
    M_FIELDS = 128
};
static const char *const mode_names[] = {"decode", "diags", "strict", "walk",
                                         "bulk",   "cook",  "iter",   "fields"};
#define NMODES 8

/* One case at one size: its buffers, and what each mode must return. */
typedef struct hcase {
    const char *name;
    pcq_kind kind;
    unsigned modes;
    int (*build)(struct hcase *h, size_t size);
    int expect;         /* decode, diags, walk, bulk (and cook) */
    int expect_strict;  /* strict */
    uint8_t *a, *b, *c; /* the buffer (a); cook: counterset-info (a), older (b), newer (c) */
    size_t alen, blen, clen;
    pcq_counterset_info info;
    pcq_data older, newer;
    pcq_identifier *ids;
    size_t n_ids;
    pcq_calc_row *rows;
    size_t cap;
    uint32_t *scratch;
    size_t scratch_size;
} hcase;

static unsigned long ndiags;

static void count_diag(void *ctx, const pcq_diag *d)
{
    (void)ctx;
    (void)d;
    ndiags++;
}

/* ---- buffers ------------------------------------------------------------- */

/* A string block of n entries (dwCounterId i), entry i starting at
 * start[i % 2], and `text` zero bytes after the entries for the caller's
 * texts; returns where they begin. */
static size_t strings_block(hcase *h, size_t n, size_t text, const size_t start[2])
{
    size_t hdr = 8 + 8 * n, i;
    h->alen = (hdr + text + 7) & ~(size_t)7;
    h->a = (uint8_t *)xmalloc(h->alen);
    memset(h->a, 0, h->alen);
    st32(h->a, (uint32_t)h->alen);
    st32(h->a + 4, (uint32_t)n);
    for (i = 0; i < n; i++) {
        st32(h->a + 8 + 8 * i, (uint32_t)i);
        st32(h->a + 12 + 8 * i, (uint32_t)start[i % 2]);
    }
    return hdr;
}

/* n entries alternating between two texts of size/4 bytes each, of one
 * parity: more entries than the walk's own table, out of order, and no
 * scratch, so the walk measures them through its NUL map (D11). */
static int build_strings_interleaved(hcase *h, size_t size)
{
    size_t n = size / 16, hdr = 8 + 8 * n, text = ((size - hdr) / 2 - 8) & ~(size_t)1, i;
    size_t start[2] = {hdr, hdr + text + 2};
    strings_block(h, n, 2 * (text + 2), start);
    for (i = 0; i < text; i += 2) h->a[hdr + i] = h->a[hdr + text + 2 + i] = 'A';
    return 0;
}

/* n entries alternating between an even and an odd start in one text of
 * size/2 bytes with no NUL of either parity before its end: each entry's
 * NUL is as far as it can be at its parity, and both parities are measured
 * (D11). */
static int build_strings_parity(hcase *h, size_t size)
{
    size_t n = size / 16, hdr = 8 + 8 * n, text = (size - hdr - 8) & ~(size_t)1, i;
    size_t start[2] = {hdr, hdr + 1};
    strings_block(h, n, text + 4, start);
    for (i = 0; i < text; i += 2) h->a[hdr + i] = 'A'; /* 'A' 0 'A' 0 ...: no zero unit at either parity */
    return 0;
}

/* As many entries as the block holds, alternating between two texts of
 * 254 bytes: each entry starts outside the last text measured of its
 * parity, so each text is measured anew through the NUL map, and the
 * entries, 8 bytes each, leave almost no bytes to pay for it. The worst
 * string block found for the walk without scratch (D11). */
static int build_strings_dense(hcase *h, size_t size)
{
    size_t text = 254, n = size / 8 - 8 - (2 * text + 8) / 8, hdr = 8 + 8 * n, i;
    size_t start[2] = {hdr, hdr + text + 2};
    strings_block(h, n, 2 * text + 4, start);
    for (i = 0; i < text; i += 2) h->a[hdr + i] = h->a[hdr + text + 2 + i] = 'A';
    return 0;
}

/* As many entries as the block holds, alternating between two texts of
 * 126 bytes, the last entry's start outside the block (0xFFFFFF00), with
 * scratch (as pcqdump, the tests and the Wireshark plugin give it, D9): the
 * entries are sorted by start (radix passes, one a byte the starts do not
 * share), each text measured once, then every entry walked until the last
 * one's error. Found by the cost search of 2026-12-03: its out-of-block key
 * was 0xFFFFFFFF, so every pass ran, 52.0 Ir/B at 128 KiB (the bulk walk). */
static int build_strings_sorted(hcase *h, size_t size)
{
    size_t text = 126, n = (size - 8 - 2 * (text + 2) - 8) / 8, hdr = 8 + 8 * n, i;
    size_t start[2] = {hdr, hdr + text + 2};
    strings_block(h, n, 2 * text + 4, start);
    for (i = 0; i < text; i += 2) h->a[hdr + i] = h->a[hdr + text + 2 + i] = 'A';
    st32(h->a + 8 + 8 * (n - 1) + 4, 0xFFFFFF00u);
    h->scratch_size = n * PCQ_SCRATCH_PER_ENTRY;
    h->scratch = (uint32_t *)xmalloc(h->scratch_size);
    return 0;
}

/* n entries all pointing at one text of size/2 bytes (D11). */
static int build_strings(hcase *h, size_t size)
{
    size_t n = size / 16, hdr = 8 + 8 * n, text = (size - hdr - 8) & ~(size_t)1, i;
    size_t start[2] = {hdr, hdr};
    strings_block(h, n, text + 2, start);
    for (i = 0; i < text; i += 2) h->a[hdr + i] = 'A';
    return 0;
}

/* A counterset-info of n counters, multiple instances, begun in a buffer of
 * its own (w writes it; the caller puts the n counters and finishes). */
static uint8_t *info_start(pcq_writer *w, uint32_t n)
{
    size_t cap = 64 + 48 * (size_t)n;
    uint8_t *b = (uint8_t *)xmalloc(cap);
    pcq_counterset_reg set;
    memset(&set, 0, sizeof set);
    set.detail_level = 100;
    set.num_counters = n;
    set.instance_type = 2;
    pcq_writer_init(w, b, cap);
    pcq_put_counterset_reg(w, &set);
    return b;
}

/* A counterset-info of n counters of one type (ids from 1; base: the id of
 * each one's base, 0 for none, or `next` for the counter after it). */
#define NEXT 0xFFFFFFFEu
static uint8_t *info_buf(uint32_t n, uint32_t type, uint32_t base, int reversed, size_t *len)
{
    pcq_counter_reg c;
    pcq_writer w;
    uint8_t *b = info_start(&w, n);
    uint32_t k;
    for (k = 0; k < n; k++) {
        memset(&c, 0, sizeof c);
        c.counter_id = reversed ? n - k : k + 1;
        c.type = type;
        c.detail_level = 100;
        c.base_counter_id = base == NEXT ? c.counter_id + 1 : base;
        c.perf_time_id = c.perf_freq_id = c.multi_id = 0xFFFFFFFFu;
        pcq_put_counter_reg(&w, &c);
    }
    if (pcq_writer_finish(&w, len) != PCQ_OK) return NULL;
    return b;
}

/* A counterset-info of as many counters as `size` holds, counter k as
 * fill() makes it (from zeros), with scratch for the set-wide checks (D9). */
static int counters_info(hcase *h, size_t size, void (*fill)(pcq_counter_reg *c, uint32_t k))
{
    uint32_t n = (uint32_t)((size - 32) / 48), k;
    pcq_counterset_reg set;
    pcq_counter_reg c;
    pcq_writer w;
    h->alen = 32 + 48 * (size_t)n;
    h->a = (uint8_t *)xmalloc(h->alen);
    memset(&set, 0, sizeof set);
    set.detail_level = 100;
    set.num_counters = n;
    pcq_writer_init(&w, h->a, h->alen);
    pcq_put_counterset_reg(&w, &set);
    for (k = 0; k < n; k++) {
        memset(&c, 0, sizeof c);
        fill(&c, k);
        pcq_put_counter_reg(&w, &c);
    }
    h->scratch_size = (size_t)n * PCQ_SCRATCH_PER_ENTRY;
    h->scratch = (uint32_t *)xmalloc(h->scratch_size);
    return pcq_writer_finish(&w, &h->alen) == PCQ_OK ? 0 : -1;
}

/* AVERAGE_BULK counters each over the next (an AVERAGE_BASE, the last over
 * counter 1's base): the set-wide checks of every counter (D9). */
static void fill_related(pcq_counter_reg *c, uint32_t k)
{
    c->counter_id = k + 1;
    c->type = k % 2 ? 0x40030402u : 0x40020500u; /* AVERAGE_BASE, AVERAGE_BULK over the next */
    c->detail_level = 100;
    c->base_counter_id = k % 2 ? 0xFFFFFFFFu : k + 2;
    c->perf_time_id = c->perf_freq_id = c->multi_id = 0xFFFFFFFFu;
}

static int build_related(hcase *h, size_t size)
{
    return counters_info(h, size, fill_related);
}

/* Counters 1 and 2 PERF_COUNTER_LARGE_RAWCOUNT, every other one a
 * PERF_OBJ_TIME_TIMER whose PerfTimeId and PerfFreqId name them: three
 * set-wide lookups a counter (its id unique, its time, its frequency; D9),
 * the most a counter can ask for. */
static void fill_related_time(pcq_counter_reg *c, uint32_t k)
{
    c->counter_id = k + 1;
    c->type = k < 2 ? 0x00010100u : 0x20610500u; /* LARGE_RAWCOUNT, OBJ_TIME_TIMER */
    c->detail_level = 100;
    c->base_counter_id = c->multi_id = 0xFFFFFFFFu;
    c->perf_time_id = k < 2 ? 0xFFFFFFFFu : 1;
    c->perf_freq_id = k < 2 ? 0xFFFFFFFFu : 2;
}

static int build_related_time(hcase *h, size_t size)
{
    return counters_info(h, size, fill_related_time);
}

/* Every counter breaks every rule it has: eight diagnostics a 48-byte
 * counter (its id a duplicate, no time or frequency counter, Attrib,
 * DetailLevel, DefaultScale, AggregateFunc, Reserved): a storm in a
 * counterset-info. */
static void fill_storm(pcq_counter_reg *c, uint32_t k)
{
    (void)k;
    c->counter_id = 1;
    c->type = 0x20610500u; /* PERF_OBJ_TIME_TIMER: a time and a frequency counter, here none */
    c->attrib = 0x100;
    c->detail_level = 300;
    c->default_scale = 50;
    c->base_counter_id = c->multi_id = 0xFFFFFFFFu;
    c->perf_time_id = c->perf_freq_id = 7;
    c->aggregate_func = 9;
    c->reserved = 1;
}

static int build_info_storm(hcase *h, size_t size)
{
    return counters_info(h, size, fill_storm);
}

/* An opnum 2 reply of 10-byte instances (a header and a NUL, §2.2.4.3):
 * the most instances a byte, every other one unaligned. */
static int build_tiny_instances(hcase *h, size_t size)
{
    size_t n = size / 10, i;
    h->alen = n * 10;
    h->a = (uint8_t *)xmalloc(h->alen);
    memset(h->a, 0, h->alen);
    for (i = 0; i < n; i++) {
        st32(h->a + 10 * i, 10); /* Size */
        st32(h->a + 10 * i + 4, (uint32_t)i);
    }
    return 0;
}

/* An opnum 5 reply of 43-byte _PERF_COUNTER_IDENTIFIERs (§2.2.4.4): an
 * empty name, a byte of padding not zero, Reserved 1: unaligned after the
 * first, three diagnostics each, the most a byte (the probe that found
 * empty-lists: 14.3 Ir/B at most, the kind the table had not held). */
static int build_identifiers(hcase *h, size_t size)
{
    size_t n = size / 43, i;
    h->alen = n * 43;
    h->a = (uint8_t *)xmalloc(h->alen);
    memset(h->a, 0, h->alen);
    for (i = 0; i < n; i++) {
        uint8_t *p = h->a + 43 * i;
        st32(p, 0x12345678u + (uint32_t)i); /* CounterSetGuid.Data1 */
        st32(p + 20, 43);                   /* Size */
        st32(p + 24, (uint32_t)i);          /* CounterId, InstanceId, Index */
        st32(p + 28, (uint32_t)i);
        st32(p + 32, (uint32_t)i);
        st32(p + 36, 1); /* Reserved MUST be 0 */
        p[42] = 0xFF;    /* padding after the NUL MUST be 0 */
    }
    return 0;
}

/* A zeroed data buffer of `total` bytes, its header filled: dwTotalSize,
 * `nblocks` blocks, PerfFreq 1000; the blocks are the caller's. */
static uint8_t *data_alloc(size_t total, uint32_t nblocks)
{
    uint8_t *b = (uint8_t *)xmalloc(total);
    memset(b, 0, total);
    st32(b, (uint32_t)total);
    st32(b + 4, nblocks);
    st32(b + 24, 1000); /* PerfFreq */
    return b;
}

/* A 32-byte PERF_SINGLE_COUNTER block at p, of the 4-byte value v. */
static void single_block(uint8_t *p, uint32_t v)
{
    st32(p + 4, PCQ_PERF_SINGLE_COUNTER);
    st32(p + 8, 32);
    st32(p + 16, 4); /* dwDataSize, dwSize */
    st32(p + 20, 16);
    st32(p + 24, v);
}

/* A data header and n blocks of `block` bytes from fill(). */
static uint8_t *data_buf(uint32_t n, size_t block, void (*fill)(uint8_t *p, uint32_t i, size_t block),
                         size_t *len)
{
    size_t total = 48 + (size_t)n * block, i;
    uint8_t *b = data_alloc(total, n);
    for (i = 0; i < n; i++) fill(b + 48 + i * block, (uint32_t)i, block);
    *len = total;
    return b;
}

/* A data buffer of `size` bytes or a little less: blocks of `block` bytes,
 * each from fill(). */
static int blocks_of(hcase *h, size_t size, size_t block, void (*fill)(uint8_t *p, uint32_t i, size_t block))
{
    h->a = data_buf((uint32_t)((size - 48) / block), block, fill, &h->alen);
    return 0;
}

static void fill_error(uint8_t *p, uint32_t i, size_t block)
{
    (void)i;
    st32(p, 0x3E5); /* dwStatus */
    st32(p + 8, (uint32_t)block);
}

/* Every block a 16-byte PERF_ERROR_RETURN: the most blocks a byte. */
static int build_tiny_blocks(hcase *h, size_t size)
{
    return blocks_of(h, size, 16, fill_error);
}

static void fill_reserved(uint8_t *p, uint32_t i, size_t block)
{
    fill_error(p, i, block);
    st32(p + 12, 1); /* Reserved MUST be 0: a diagnostic a block */
}

/* A PERF_MULTI_COUNTERS block of no counter (24 bytes: the most items a
 * byte, a header and a _PERF_MULTI_COUNTERS) with Reserved set. */
static void fill_empty_mc(uint8_t *p, uint32_t i, size_t block)
{
    (void)i;
    st32(p + 4, PCQ_PERF_MULTI_COUNTERS);
    st32(p + 8, (uint32_t)block);
    st32(p + 12, 1); /* Reserved MUST be 0 */
    st32(p + 16, 8); /* _PERF_MULTI_COUNTERS.dwSize; dwCounters 0 */
}

/* Blocks of two items and a diagnostic in 24 bytes: the walk's cost a
 * structure, with a diagnostic each block. */
static int build_tiny_storm(hcase *h, size_t size)
{
    return blocks_of(h, size, 24, fill_empty_mc);
}

/* A PERF_MULTI_INSTANCES block of no instance (24 bytes: a header and a
 * _PERF_MULTI_INSTANCES) with Reserved set; and a PERF_COUNTERSET block of
 * no counter and no instance (32 bytes: both lists' headers). Found by an
 * attacker's probe of every block type with a diagnostic: the README's walk
 * of the first cost 53.2 Ir/B (a frame a list, the instances iterator of
 * an empty list through the checking calls). */
static void fill_empty_mi(uint8_t *p, uint32_t i, size_t block)
{
    (void)i;
    st32(p + 4, PCQ_PERF_MULTI_INSTANCES);
    st32(p + 8, (uint32_t)block);
    st32(p + 12, 1); /* Reserved MUST be 0 */
    st32(p + 16, 8); /* _PERF_MULTI_INSTANCES.dwTotalSize; dwInstances 0 */
}

static void fill_empty_set0(uint8_t *p, uint32_t i, size_t block)
{
    (void)i;
    st32(p + 4, PCQ_PERF_COUNTERSET);
    st32(p + 8, (uint32_t)block);
    st32(p + 12, 1); /* Reserved MUST be 0 */
    st32(p + 16, 8); /* _PERF_MULTI_COUNTERS.dwSize; dwCounters 0 */
    st32(p + 24, 8); /* _PERF_MULTI_INSTANCES.dwTotalSize; dwInstances 0 */
}

static int build_empty_lists(hcase *h, size_t size)
{
    return blocks_of(h, size, 24, fill_empty_mi);
}

static int build_empty_sets(hcase *h, size_t size)
{
    return blocks_of(h, size, 32, fill_empty_set0);
}

/* A PERF_SINGLE_COUNTER block of 24 bytes whose value has no data (dwSize
 * 8): conformant, every block a value, none canonical (found by the same
 * probe: 46.1 Ir/B for the README's walk, each block's values iterator
 * ended by the checking call and its copies). */
static void fill_tiny_single(uint8_t *p, uint32_t i, size_t block)
{
    (void)i;
    st32(p + 4, PCQ_PERF_SINGLE_COUNTER);
    st32(p + 8, (uint32_t)block);
    st32(p + 20, 8); /* the value's dwSize; dwDataSize 0 */
}

static int build_tiny_singles(hcase *h, size_t size)
{
    return blocks_of(h, size, 24, fill_tiny_single);
}

/* A diagnostic every 16 bytes (a storm): lenient walks on, strict stops. */
static int build_storm(hcase *h, size_t size)
{
    return blocks_of(h, size, 16, fill_reserved);
}

/* A PERF_MULTI_COUNTERS block of n counters whose values are 8-byte
 * _PERF_COUNTER_DATA with no value (dwDataSize 0, dwSize 8): the most values
 * a byte (12 with the id). n from the block's size. */
static void fill_tiny_values(uint8_t *p, uint32_t unused, size_t block)
{
    uint32_t n = (uint32_t)((block - 24) / 12), i;
    size_t ids = (8 + 4 * (size_t)n + 7) & ~(size_t)7, at = 16 + ids;
    (void)unused;
    st32(p + 4, PCQ_PERF_MULTI_COUNTERS);
    st32(p + 8, (uint32_t)block);
    st32(p + 16, (uint32_t)ids);
    st32(p + 20, n);
    for (i = 0; i < n; i++) st32(p + 24 + 4 * (size_t)i, i + 1);
    for (i = 0; i < n; i++, at += 8) st32(p + at + 4, 8);
}

static int build_tiny_values(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)((size - 48 - 24) / 12);
    h->a = data_buf(1, 16 + ((8 + 4 * (size_t)n + 7) & ~(size_t)7) + 8 * (size_t)n, fill_tiny_values,
                    &h->alen);
    return 0;
}

/* A PERF_COUNTERSET block with no counters and 10-byte instances (a header
 * and a NUL): the most instances a byte, every one unaligned after the first.
 * n from the block's size. */
static void fill_empty_set(uint8_t *p, uint32_t unused, size_t block)
{
    uint32_t n = (uint32_t)((block - 32) / 10), i;
    size_t at = 32;
    (void)unused;
    st32(p + 4, PCQ_PERF_COUNTERSET);
    st32(p + 8, (uint32_t)block);
    st32(p + 16, 8);                      /* _PERF_MULTI_COUNTERS: dwSize 8, no counter */
    st32(p + 24, (uint32_t)(block - 24)); /* _PERF_MULTI_INSTANCES */
    st32(p + 28, n);
    for (i = 0; i < n; i++, at += 10) {
        st32(p + at, 10);
        st32(p + at + 4, i);
    }
}

static int build_empty_set(hcase *h, size_t size)
{
    h->a = data_buf(1, 32 + (size - 48 - 32) / 10 * 10, fill_empty_set, &h->alen);
    return 0;
}

/* A PERF_COUNTERSET block of one counter and n packed instances of 18 bytes:
 * Size 10 (the header and a NUL name), then a _PERF_COUNTER_DATA of 8 bytes
 * with no value (dwDataSize 0): two items in 18 bytes, each unaligned
 * (lenient: walkable, a diagnostic each; strict: NONCONFORMANT). `older`
 * and `how` (PACK_*) make the cook's samples: InstanceIds reversed in the
 * older one, or all one but the older's last (as many groups, the same
 * until the last: the lockstep test walks both whole) or middle one; with
 * PACK_LOOSE a single-counter block after it (a value outside every
 * instance: the cook indexes every value to find related ones). */
enum {
    PACK_REVERSED = 1,
    PACK_ONE_ID = 2,
    PACK_LOOSE = 4,
    PACK_MIDDLE = 8,    /* with PACK_ONE_ID: the older's instance that differs is its middle one */
    PACK_PRECISION = 16 /* with PACK_LOOSE: PRECISION_OBJECT_TIMER, not RAW_FRACTION */
};
/* A zeroed data buffer of `total` bytes and `nblocks` blocks whose first, at
 * 48, is a PERF_COUNTERSET of `block` bytes: counter 1 and n instances, from
 * 48 + 40. */
static uint8_t *one_set_buf(size_t total, uint32_t nblocks, size_t block, uint32_t n)
{
    uint8_t *b = data_alloc(total, nblocks);
    st32(b + 48 + 4, PCQ_PERF_COUNTERSET);
    st32(b + 48 + 8, (uint32_t)block);
    st32(b + 48 + 16, 16); /* _PERF_MULTI_COUNTERS: dwSize, 1 counter, id 1 */
    st32(b + 48 + 20, 1);
    st32(b + 48 + 24, 1);
    st32(b + 48 + 32, (uint32_t)(block - 32)); /* _PERF_MULTI_INSTANCES */
    st32(b + 48 + 36, n);
    return b;
}

static uint8_t *packed_buf(uint32_t n, unsigned how, int older, size_t *len)
{
    size_t block = 40 + 18 * (size_t)n, total = 48 + block + ((how & PACK_LOOSE) ? 32 : 0), at;
    uint8_t *b = one_set_buf(total, (how & PACK_LOOSE) ? 2 : 1, block, n);
    uint32_t k;
    for (at = 48 + 40, k = 0; k < n; k++, at += 18) {
        st32(b + at, 10);
        st32(b + at + 4, (how & PACK_ONE_ID) ? (older && k == ((how & PACK_MIDDLE) ? n / 2 : n - 1) ? 8 : 7)
                         : (older && (how & PACK_REVERSED)) ? n - 1 - k
                                                            : k);
        st32(b + at + 14, 8); /* the value's dwSize; dwDataSize 0 */
    }
    if (how & PACK_LOOSE) single_block(b + at, 7);
    *len = total;
    return b;
}

static int build_packed(hcase *h, size_t size)
{
    h->a = packed_buf((uint32_t)((size - 88) / 18), 0, 0, &h->alen);
    return 0;
}

/* The same with a byte of padding after each NUL, not zero (19-byte
 * instances: a third diagnostic an instance). Found by the attacker's probe
 * that found empty-lists: 48.8 Ir/B for the step-by-step walk, the most of
 * any input in that mode. */
static int build_packed_pad(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)((size - 88) / 19), k;
    size_t block = 40 + 19 * (size_t)n, at;
    h->a = one_set_buf(48 + block, 1, block, n);
    for (at = 48 + 40, k = 0; k < n; k++, at += 19) {
        st32(h->a + at, 11); /* Size: the header, a NUL, a byte of padding */
        st32(h->a + at + 4, k);
        h->a[at + 10] = 0xFF;    /* padding MUST be 0 */
        st32(h->a + at + 15, 8); /* the value's dwSize; dwDataSize 0 */
    }
    h->alen = 48 + block;
    return 0;
}

/* Replies in the canonical layout but for one structure, which costs a
 * diagnostic: the decoder passes the canonical blocks and runs of instances
 * around it whole, and the iterators read the canonical values of the
 * others inline (D11). one-reserved: PERF_MULTI_COUNTERS blocks of 24
 * counters, the last with a Reserved of 1; one-padding: a PERF_COUNTERSET
 * of 20 counters, the padding after the last instance's name not zero. At
 * 1 MiB they cost 18.6 and 1.9 Ir/B to decode, 21.4 and 6.8 in iter, before
 * (0.6 and 1.1, 1.8 and 3.0 since). */
static int build_one_off(hcase *h, size_t size, int set)
{
    size_t cap = size + 4096, last = 0, pad = 0;
    uint32_t ids[24], k, n = set ? (uint32_t)(size / 352) : (uint32_t)(size / 504), i;
    uint8_t name[18];
    pcq_writer w;
    pcq_data hdr;
    h->a = (uint8_t *)xmalloc(cap);
    n = n ? n : 1;
    for (k = 0; k < 24; k++) ids[k] = 2 * k + 2;
    memset(&hdr, 0, sizeof hdr);
    pcq_writer_init(&w, h->a, cap);
    pcq_begin_data(&w, &hdr);
    if (set) pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 20);
    for (i = 0; i < n; i++) {
        if (set) { /* "inst_NNNN": 9 units and the NUL, 4 bytes of padding */
            char text[16];
            snprintf(text, sizeof text, "inst_%04u", (unsigned)(i % 10000));
            for (k = 0; k < 9; k++) {
                name[2 * k] = (uint8_t)text[k];
                name[2 * k + 1] = 0;
            }
            pad = w.len + 8 + 20;
            pcq_put_data_instance(&w, i, name, 18);
            for (k = 0; k < 20; k++) pcq_put_value_u64(&w, (uint64_t)i * k);
        } else {
            last = w.len;
            pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 24);
            for (k = 0; k < 24; k++) pcq_put_value_u64(&w, (uint64_t)i * k);
            pcq_end_block(&w);
        }
    }
    if (set) pcq_end_block(&w);
    pcq_end_data(&w);
    if (pcq_writer_finish(&w, &h->alen) != PCQ_OK) return -1;
    h->a[set ? pad : last + 12] = 1;
    return 0;
}

static int build_one_reserved(hcase *h, size_t size)
{
    return build_one_off(h, size, 0);
}

static int build_one_padding(hcase *h, size_t size)
{
    return build_one_off(h, size, 1);
}

/* One PERF_COUNTERSET block of n instances of counter 1, in order or reversed,
 * named "x" (all one name) or "i<number>", after `empty` error blocks. */
static uint8_t *instances_buf(uint32_t n, int reversed, int one_name, uint32_t empty, uint32_t step,
                              size_t *len)
{
    size_t cap = (size_t)n * 64 + (size_t)empty * 16 + 4096;
    uint8_t *b = (uint8_t *)xmalloc(cap), name[32];
    const uint32_t ids[1] = {1};
    pcq_writer w;
    pcq_data hdr;
    uint32_t k, i;
    memset(&hdr, 0, sizeof hdr);
    hdr.perf_freq = 1000;
    pcq_writer_init(&w, b, cap);
    pcq_begin_data(&w, &hdr);
    for (k = 0; k < empty; k++) pcq_put_error_block(&w, 0);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 1);
    for (k = 0; k < n; k++) {
        char text[16];
        int len16, j;
        i = reversed ? n - 1 - k : k;
        len16 = one_name ? snprintf(text, sizeof text, "x") : snprintf(text, sizeof text, "i%u", (unsigned)i);
        /* never ("i" and at most 10 digits): for gcc -O3's -Wstringop-overflow, which cannot tell */
        if (len16 < 0 || len16 >= (int)sizeof text) len16 = 0;
        for (j = 0; j < len16; j++) {
            name[2 * j] = (uint8_t)text[j];
            name[2 * j + 1] = 0;
        }
        pcq_put_data_instance(&w, one_name ? 7 : i, name, (size_t)(2 * len16));
        pcq_put_value_u32(&w, 1000 + step * i);
    }
    pcq_end_block(&w);
    pcq_end_data(&w);
    if (pcq_writer_finish(&w, len) != PCQ_OK) return NULL;
    return b;
}

/* The cook's inputs decoded, and its rows from a sizing call. */
static int cook_inputs(hcase *h)
{
    pcq_error e;
    int rc;
    if (h->a == NULL || h->b == NULL || h->c == NULL ||
        pcq_decode_counterset_info(h->a, h->alen, NULL, &h->info, NULL) != PCQ_OK ||
        pcq_decode_data(h->b, h->blen, NULL, &h->older, NULL) != PCQ_OK ||
        pcq_decode_data(h->c, h->clen, NULL, &h->newer, NULL) != PCQ_OK)
        return -1;
    rc = pcq_calc_cook(&h->info, &h->older, &h->newer, h->ids, h->n_ids, 0, NULL, 0, &h->cap, &e);
    if (rc != PCQ_ERR_BUFFER_TOO_SMALL && rc != PCQ_OK) return -1;
    h->rows = (pcq_calc_row *)xmalloc(sizeof *h->rows * (h->cap + 1));
    return 0;
}

/* One identifier: block 1 (a single-counter block) is counter 1. */
static void block1_counter1(hcase *h)
{
    h->ids = (pcq_identifier *)xmalloc(sizeof *h->ids);
    memset(h->ids, 0, sizeof *h->ids);
    h->ids->counter_id = 1;
    h->ids->index = 1;
    h->n_ids = 1;
}

/* The older sample lists every instance in reverse: the join, not searches. */
static int build_reversed(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)(size / 2 / 32);
    h->a = info_buf(1, 0x00400400u, 0, 0, &h->alen); /* PERF_COUNTER_DELTA */
    h->b = instances_buf(n, 1, 0, 0, 1, &h->blen);
    h->c = instances_buf(n, 0, 0, 0, 3, &h->clen);
    return cook_inputs(h);
}

/* Every instance has one name and InstanceId, and the older sample one
 * instance more at its front: name#n and the occurrence matching. */
static int build_one_name(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)(size / 2 / 32);
    h->a = info_buf(1, 0x00400400u, 0, 0, &h->alen);
    h->b = instances_buf(n + 1, 0, 1, 0, 1, &h->blen);
    h->c = instances_buf(n, 0, 1, 0, 3, &h->clen);
    return cook_inputs(h);
}

/* The older sample: many empty blocks and none of the newer's instances. */
static int build_empty_blocks(hcase *h, size_t size)
{
    uint32_t k;
    h->a = info_buf(1, 0x00400400u, 0, 0, &h->alen);
    h->b = instances_buf(1, 0, 0, (uint32_t)(size / 2 / 16), 1, &h->blen);
    h->c = instances_buf((uint32_t)(size / 2 / 32), 0, 0, 0, 3, &h->clen);
    /* the older's one instance must not match: rename it */
    for (k = 0; h->b && k + 6 <= h->blen; k++)
        if (memcmp(h->b + k,
                   "i\0"
                   "0\0"
                   "\0\0",
                   6) == 0)
            h->b[k] = 'z';
    return cook_inputs(h);
}

/* A RAW_FRACTION counter whose base is in no block, with single-counter
 * blocks beside: every value looks for its base among the other groups. */
static int build_missing_base(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)(size / 40), k;
    size_t cap = (size_t)n * 64 + 4096;
    uint8_t *b = (uint8_t *)xmalloc(cap);
    const uint32_t ids[1] = {1};
    pcq_writer w;
    pcq_data hdr;
    h->a = info_buf(2, 0x20020400u, 2, 0, &h->alen); /* RAW_FRACTION over counter 2 */
    memset(&hdr, 0, sizeof hdr);
    hdr.perf_freq = 1000;
    pcq_writer_init(&w, b, cap);
    pcq_begin_data(&w, &hdr);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 1);
    for (k = 0; k < n; k++) {
        uint8_t name[4] = {'x', 0, 0, 0};
        name[2] = (uint8_t)('a' + k % 26);
        pcq_put_data_instance(&w, k, name, 4);
        pcq_put_value_u32(&w, k);
    }
    pcq_end_block(&w);
    pcq_begin_block(&w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
    pcq_put_value_u32(&w, 7);
    pcq_end_block(&w);
    pcq_end_data(&w);
    if (pcq_writer_finish(&w, &h->clen) != PCQ_OK) return -1;
    h->c = b;
    h->b = (uint8_t *)xmalloc(h->clen); /* older = newer */
    memcpy(h->b, h->c, h->clen);
    h->blen = h->clen;
    block1_counter1(h);
    return cook_inputs(h);
}

/* One PERF_MULTI_COUNTERS block listing n counters, each a RAW_FRACTION over
 * the next, in the reverse of the counterset's order: the long list's
 * columns, every related counter and counter-info entry found by index. */
static int build_long_list(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)(size / 2 / 20), k, *ids = (uint32_t *)xmalloc(sizeof(uint32_t) * n);
    size_t cap = (size_t)n * 24 + 4096;
    uint8_t *b[2];
    pcq_writer w;
    pcq_data hdr;
    int s;
    h->a = info_buf(n, 0x20020400u, NEXT, 1, &h->alen);
    for (k = 0; k < n; k++) ids[k] = k + 1;
    for (s = 0; s < 2; s++) {
        b[s] = (uint8_t *)xmalloc(cap);
        memset(&hdr, 0, sizeof hdr);
        hdr.perf_freq = 1000;
        pcq_writer_init(&w, b[s], cap);
        pcq_begin_data(&w, &hdr);
        pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, n);
        for (k = 0; k < n; k++) pcq_put_value_u32(&w, 10 + k + (uint32_t)s);
        pcq_end_block(&w);
        pcq_end_data(&w);
        if (pcq_writer_finish(&w, s ? &h->clen : &h->blen) != PCQ_OK) return -1;
    }
    free(ids);
    h->b = b[0];
    h->c = b[1];
    return cook_inputs(h);
}

/* Single-counter blocks whose identifiers come in the reverse order: each
 * block's identifier found by index, each related value too. */
static int build_ids_reversed(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)(size / 2 / 32), k;
    size_t cap = (size_t)n * 40 + 4096;
    uint8_t *b[2];
    pcq_writer w;
    pcq_data hdr;
    int s;
    h->a = info_buf(2, 0x00400400u, 0, 0, &h->alen);
    h->ids = (pcq_identifier *)xmalloc(sizeof *h->ids * n);
    memset(h->ids, 0, sizeof *h->ids * n);
    for (k = 0; k < n; k++) {
        h->ids[k].counter_id = 1 + k % 2;
        h->ids[k].index = n - 1 - k;
        h->ids[k].instance_id = k / 2;
    }
    h->n_ids = n;
    for (s = 0; s < 2; s++) {
        b[s] = (uint8_t *)xmalloc(cap);
        memset(&hdr, 0, sizeof hdr);
        hdr.perf_freq = 1000;
        pcq_writer_init(&w, b[s], cap);
        pcq_begin_data(&w, &hdr);
        for (k = 0; k < n; k++) {
            pcq_begin_block(&w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
            pcq_put_value_u32(&w, 100 + k + (uint32_t)s);
            pcq_end_block(&w);
        }
        pcq_end_data(&w);
        if (pcq_writer_finish(&w, s ? &h->clen : &h->blen) != PCQ_OK) return -1;
    }
    h->b = b[0];
    h->c = b[1];
    return cook_inputs(h);
}

/* The cooks on packed instances (packed_buf): the most groups a byte, each
 * one checked again by the iterators (not canonical), in the samples' order,
 * reversed, all of one name and id but the older's last (or middle), or
 * (loose) a RAW_FRACTION whose base is in no block, with a single-counter
 * block beside, its instances all of one name and id or not (loose-one:
 * each row's base is searched among all the values of one instance). */
static int build_packed_cook(hcase *h, size_t size, unsigned how)
{
    uint32_t n = (uint32_t)(size / 2 / 18);
    if (how & PACK_LOOSE) /* RAW_FRACTION over counter 2, or PRECISION_OBJECT_TIMER: its time, else it */
        h->a = info_buf(2, (how & PACK_PRECISION) ? 0x20670500u : 0x20020400u, 2, 0, &h->alen);
    else
        h->a = info_buf(1, 0x00400400u, 0, 0, &h->alen); /* PERF_COUNTER_DELTA */
    h->b = packed_buf(n, how, 1, &h->blen);
    h->c = packed_buf(n, how, 0, &h->clen);
    if (how & PACK_LOOSE) block1_counter1(h);
    return cook_inputs(h);
}

static int build_packed_lockstep(hcase *h, size_t size)
{
    return build_packed_cook(h, size, 0);
}
static int build_packed_reversed(hcase *h, size_t size)
{
    return build_packed_cook(h, size, PACK_REVERSED);
}
static int build_packed_one_id(hcase *h, size_t size)
{
    return build_packed_cook(h, size, PACK_ONE_ID);
}
static int build_packed_loose(hcase *h, size_t size)
{
    return build_packed_cook(h, size, PACK_LOOSE);
}
static int build_packed_middle(hcase *h, size_t size)
{
    return build_packed_cook(h, size, PACK_ONE_ID | PACK_MIDDLE);
}
static int build_packed_loose_one(hcase *h, size_t size)
{
    return build_packed_cook(h, size, PACK_LOOSE | PACK_ONE_ID);
}
/* PRECISION_OBJECT_TIMER looks up two related counters (PerfTimeId, then
 * the base), in each sample: 51.8 Ir/B before D12's "Instances split over blocks". */
static int build_precision_loose(hcase *h, size_t size)
{
    return build_packed_cook(h, size, PACK_LOOSE | PACK_PRECISION);
}

/* Instances split over nb blocks: the same n packed instances (18 bytes) in
 * a PERF_COUNTERSET block of counter 1, then in nb - 1 blocks more, of
 * counters 3, 5, ..., each a PERF_COUNTERSET block of one counter or (single)
 * a PERF_MULTI_INSTANCES block (its counter by an identifier), then a
 * single-counter block (counter 1 by an identifier: the samples are loose).
 * The older sample's InstanceIds reversed. Every instance is nb groups, one
 * row each, whose related counters (PRECISION_OBJECT_TIMER: PerfTimeId and
 * BaseCounterId 2, PerfFreqId 4) fall between the instance's counters and
 * are in no block: each searched among the instance's values and not found,
 * in both samples. 57.9 Ir/B at 128 KiB (55.3 single) before D12's "Instances
 * split over blocks". */
static uint8_t *split_buf(uint32_t n, uint32_t nb, int single, int older, size_t *len)
{
    size_t set = 40 + 18 * (size_t)n, inst = 24 + 18 * (size_t)n, at, base = 48;
    size_t total = 48 + set + (nb - 1) * (single ? inst : set) + 32;
    uint8_t *b = data_alloc(total, nb + 1);
    uint32_t k, x;
    for (x = 0; x < nb; x++) {
        int four = x > 0 && single;
        st32(b + base + 4, four ? PCQ_PERF_MULTI_INSTANCES : PCQ_PERF_COUNTERSET);
        st32(b + base + 8, (uint32_t)(four ? inst : set));
        at = base + 16;
        if (!four) {
            st32(b + at, 16); /* _PERF_MULTI_COUNTERS: one counter */
            st32(b + at + 4, 1);
            st32(b + at + 8, 2 * x + 1);
            at += 16;
        }
        st32(b + at, (uint32_t)(base + (four ? inst : set) - at)); /* _PERF_MULTI_INSTANCES */
        st32(b + at + 4, n);
        for (at += 8, k = 0; k < n; k++, at += 18) {
            st32(b + at, 10);
            st32(b + at + 4, older ? n - 1 - k : k);
            st32(b + at + 14, 8); /* the value's dwSize; dwDataSize 0 */
        }
        base = at;
    }
    single_block(b + base, 7);
    *len = total;
    return b;
}

static int build_split_cook(hcase *h, size_t size, uint32_t nb, int single)
{
    uint32_t n = (uint32_t)(size / 2 / nb / 18), x;
    pcq_counter_reg c;
    pcq_writer w;
    h->a = info_start(&w, nb);
    for (x = 0; x < nb; x++) {
        memset(&c, 0, sizeof c);
        c.counter_id = 2 * x + 1;
        c.type = 0x20670500u; /* PERF_PRECISION_OBJECT_TIMER */
        c.detail_level = 100;
        c.base_counter_id = c.perf_time_id = 2;
        c.perf_freq_id = c.multi_id = 4;
        pcq_put_counter_reg(&w, &c);
    }
    if (pcq_writer_finish(&w, &h->alen) != PCQ_OK) return -1;
    h->b = split_buf(n, nb, single, 1, &h->blen);
    h->c = split_buf(n, nb, single, 0, &h->clen);
    h->n_ids = single ? nb : 1; /* block x (single): counter 2 x + 1; block nb: counter 1 */
    h->ids = (pcq_identifier *)xmalloc(sizeof *h->ids * h->n_ids);
    memset(h->ids, 0, sizeof *h->ids * h->n_ids);
    for (x = 1; x < h->n_ids; x++) {
        h->ids[x - 1].counter_id = 2 * x + 1;
        h->ids[x - 1].index = x;
    }
    h->ids[h->n_ids - 1].counter_id = 1;
    h->ids[h->n_ids - 1].index = nb;
    return cook_inputs(h);
}
static int build_split(hcase *h, size_t size)
{
    return build_split_cook(h, size, 2, 0);
}
static int build_split_single(hcase *h, size_t size)
{
    return build_split_cook(h, size, 3, 1);
}

/* cook-split with an older sample of one instance: the newer sample's
 * groups pay alone for the cook of both (D12, "Samples of unequal size"). */
static int build_split_asym(hcase *h, size_t size)
{
    if (build_split_cook(h, size, 2, 0) != 0) return -1;
    free(h->b);
    free(h->c);
    free(h->rows);
    h->b = split_buf(1, 2, 0, 1, &h->blen);
    h->c = split_buf((uint32_t)(size / 2 / 18), 2, 0, 0, &h->clen);
    return cook_inputs(h);
}

/* Instances split over four blocks (a PERF_MULTI_INSTANCES block of counter
 * 1, by an identifier, then PERF_COUNTERSET blocks of counters 3, 5 and 7),
 * packed (20 bytes: Size 12, InstanceId 7, a one-letter name, a value of no
 * data), named in runs (n/50 instances a name, 26 letters);
 * PRECISION_OBJECT_TIMER whose related counters are all 7, the last block's,
 * and an average aggregate (InstanceType 0xC). The older sample lists every
 * other instance in its first block and none in the others. Found by the
 * cost search of 2026-12-03 (its parameters in D12): 71.5 Ir/B at 32 KiB. */
static uint8_t *split_names_buf(uint32_t n, int older, size_t *len)
{
    uint32_t run = n / 50 ? n / 50 : 1, x, i, cnt;
    size_t total = 48 + 24 + 3 * 40 + 20 * (older ? (size_t)(n / 2) : 4 * (size_t)n), at = 48, p, bsize;
    uint8_t *b = data_alloc(total, 4);
    for (x = 0; x < 4; x++, at += bsize) {
        cnt = older ? (x == 0 ? n / 2 : 0) : n;
        bsize = (x == 0 ? 24 : 40) + 20 * (size_t)cnt;
        st32(b + at + 4, x == 0 ? PCQ_PERF_MULTI_INSTANCES : PCQ_PERF_COUNTERSET);
        st32(b + at + 8, (uint32_t)bsize);
        p = at + 16;
        if (x > 0) { /* _PERF_MULTI_COUNTERS: one counter */
            st32(b + p, 16);
            st32(b + p + 4, 1);
            st32(b + p + 8, 2 * x + 1);
            p += 16;
        }
        st32(b + p, (uint32_t)(8 + 20 * (size_t)cnt)); /* _PERF_MULTI_INSTANCES */
        st32(b + p + 4, cnt);
        for (p += 8, i = 0; i < n; i++) {
            if (older && (x > 0 || i % 2 == 0)) continue;
            st32(b + p, 12);
            st32(b + p + 4, 7);
            b[p + 8] = (uint8_t)('A' + i / run % 26);
            st32(b + p + 16, 8); /* the value's dwSize; dwDataSize 0 */
            p += 20;
        }
    }
    *len = total;
    return b;
}

static int build_split_names(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)((size - 512) / 90), x; /* 80 bytes an instance in the newer, 10 in the older */
    pcq_counter_reg c;
    pcq_writer w;
    h->a = info_start(&w, 4);
    st32(h->a + 28, 0xC); /* InstanceType: PERF_COUNTERSET_MULTI_AGGREGATE_HISTORY */
    for (x = 0; x < 4; x++) {
        memset(&c, 0, sizeof c);
        c.counter_id = 2 * x + 1;
        c.type = 0x20670500u; /* PERF_PRECISION_OBJECT_TIMER */
        c.detail_level = 100;
        c.base_counter_id = c.perf_time_id = c.perf_freq_id = c.multi_id = 7;
        c.aggregate_func = 2; /* PERF_AGGREGATE_AVG */
        pcq_put_counter_reg(&w, &c);
    }
    if (pcq_writer_finish(&w, &h->alen) != PCQ_OK) return -1;
    h->b = split_names_buf(n, 1, &h->blen);
    h->c = split_names_buf(n, 0, &h->clen);
    h->n_ids = 1; /* block 0: counter 1 */
    h->ids = (pcq_identifier *)xmalloc(sizeof *h->ids);
    memset(h->ids, 0, sizeof *h->ids);
    h->ids[0].counter_id = 1;
    return cook_inputs(h);
}

/* The cooks whose every row looks its related counters up outside its
 * instance's values and finds none: a PERF_COUNTERSET block of k counters
 * (ids 1..k) and n packed instances of 10 + 8 k bytes (a NUL name, values of
 * no data), the older sample's InstanceIds reversed, and a single-counter
 * block after it (a value outside every instance: the sample is indexed,
 * D12). The counterset-info has k + 2 counters of `type`, whose BaseCounterId
 * and PerfTimeId are k + 1 and PerfFreqId and MultiId k + 2: two counters in
 * no block, each searched among an instance's values. */
static uint8_t *related_buf(uint32_t n, uint32_t k, int older, size_t *len)
{
    size_t inst = 10 + 8 * (size_t)k, ids = (8 + 4 * (size_t)k + 7) & ~(size_t)7;
    size_t block = 16 + ids + 8 + inst * n, total = 48 + block + 32, at;
    uint8_t *b = data_alloc(total, 2);
    uint32_t i, j;
    st32(b + 48 + 4, PCQ_PERF_COUNTERSET);
    st32(b + 48 + 8, (uint32_t)block);
    st32(b + 48 + 16, (uint32_t)ids); /* _PERF_MULTI_COUNTERS */
    st32(b + 48 + 20, k);
    for (j = 0; j < k; j++) st32(b + 48 + 24 + 4 * (size_t)j, j + 1);
    at = 48 + 16 + ids;
    st32(b + at, (uint32_t)(block - 16 - ids)); /* _PERF_MULTI_INSTANCES */
    st32(b + at + 4, n);
    for (at += 8, i = 0; i < n; i++, at += inst) {
        st32(b + at, 10);
        st32(b + at + 4, older ? n - 1 - i : i);
        for (j = 0; j < k; j++) st32(b + at + 10 + 8 * (size_t)j + 4, 8); /* dwSize 8, dwDataSize 0 */
    }
    single_block(b + at, 7);
    *len = total;
    return b;
}

/* The counterset-info of those cooks: k + 2 counters of `type`. */
static int related_info(hcase *h, uint32_t type, uint32_t k)
{
    pcq_counter_reg c;
    pcq_writer w;
    uint32_t i;
    h->a = info_start(&w, k + 2);
    for (i = 0; i < k + 2; i++) {
        memset(&c, 0, sizeof c);
        c.counter_id = i + 1;
        c.type = type;
        c.detail_level = 100;
        c.base_counter_id = c.perf_time_id = k + 1;
        c.perf_freq_id = c.multi_id = k + 2;
        pcq_put_counter_reg(&w, &c);
    }
    return pcq_writer_finish(&w, &h->alen) == PCQ_OK ? 0 : -1;
}

static int build_related_cook(hcase *h, size_t size, uint32_t type, uint32_t k)
{
    uint32_t n = (uint32_t)(size / 2 / (10 + 8 * (size_t)k));
    if (related_info(h, type, k) != 0) return -1;
    h->b = related_buf(n, k, 1, &h->blen);
    h->c = related_buf(n, k, 0, &h->clen);
    block1_counter1(h);
    return cook_inputs(h);
}

/* One PERF_MULTI_INSTANCES block (block 0: the info's first counter) of n
 * packed instances of 18 bytes (a NUL name, a value of no data), InstanceIds
 * reversed in the older sample: every instance a group of its own (cooked
 * one at a time, cook_single), the samples indexed. */
static uint8_t *single_buf(uint32_t n, int older, size_t *len)
{
    size_t block = 16 + 8 + 18 * (size_t)n, total = 48 + block, at;
    uint8_t *b = data_alloc(total, 1);
    uint32_t i;
    st32(b + 48 + 4, PCQ_PERF_MULTI_INSTANCES);
    st32(b + 48 + 8, (uint32_t)block);
    st32(b + 48 + 16, (uint32_t)(block - 16)); /* _PERF_MULTI_INSTANCES */
    st32(b + 48 + 20, n);
    for (at = 48 + 24, i = 0; i < n; i++, at += 18) {
        st32(b + at, 10);
        st32(b + at + 4, older ? n - 1 - i : i);
        st32(b + at + 14, 8); /* the value's dwSize; dwDataSize 0 */
    }
    *len = total;
    return b;
}

/* PERF_COUNTER_MULTI_TIMER (two samples) whose MultiId is in no block: a
 * type 4 block's instances, each one row and two searches (56.6-56.7 Ir/B
 * before the counter of a run of single groups was looked up once). */
static int build_single_packed(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)(size / 2 / 18);
    if (related_info(h, 0x22410500u, 1) != 0) return -1;
    h->b = single_buf(n, 1, &h->blen);
    h->c = single_buf(n, 0, &h->clen);
    return cook_inputs(h);
}

/* n PERF_MULTI_COUNTERS blocks of 40 bytes, each one counter and a value of
 * no data (dwSize 8): the most blocks a byte that the cook cooks, none
 * canonical (the value), so each is checked by the blocks iterator in every
 * pass the cook makes over a sample's blocks (~330 instructions a block
 * before its lean step, D11). */
static uint8_t *lists_buf(uint32_t n, int older, int alternate, size_t *len)
{
    size_t total = 48 + 40 * (size_t)n, at;
    uint8_t *b = data_alloc(total, n);
    uint32_t i;
    for (at = 48, i = 0; i < n; i++, at += 40) {
        st32(b + at + 4, PCQ_PERF_MULTI_COUNTERS);
        st32(b + at + 8, 40);
        st32(b + at + 16, 16); /* _PERF_MULTI_COUNTERS: dwSize, one counter */
        st32(b + at + 20, 1);
        /* its counter: 1, or (alternate) 1 and 2 in turn, the older shifted */
        st32(b + at + 24, alternate ? 1 + ((i + (uint32_t)older) & 1u) : 1);
        st32(b + at + 36, 8); /* the value's dwSize; dwDataSize 0 */
    }
    *len = total;
    return b;
}

/* PERF_AVERAGE_TIMER over a base in no block (two samples, a search each)
 * in tiny lists: all of counter 1, the samples alike (lockstep), or
 * (alternate) of counters 1 and 2 in turn, a list unlike the one before at
 * every block, the older sample shifted by one (not in lockstep). */
static int build_lists_cook(hcase *h, size_t size, int alternate)
{
    uint32_t n = (uint32_t)(size / 2 / 40);
    if (related_info(h, 0x30020400u, 1) != 0) return -1;
    h->b = lists_buf(n, 1, alternate, &h->blen);
    h->c = lists_buf(n, 0, alternate, &h->clen);
    return cook_inputs(h);
}
static int build_tiny_lists(hcase *h, size_t size)
{
    return build_lists_cook(h, size, 0);
}
static int build_tiny_lists_alt(hcase *h, size_t size)
{
    return build_lists_cook(h, size, 1);
}

/* A PERF_COUNTERSET block that lists no counter, of n packed instances of
 * 10 bytes (a header and a NUL), InstanceIds reversed in the older sample,
 * and a single-counter block after it (the samples loose): the most
 * instances a byte, none with a value. */
static uint8_t *empty_set_buf(uint32_t n, int older, size_t *len)
{
    size_t block = 32 + 10 * (size_t)n, total = 48 + block + 32, at;
    uint8_t *b = data_alloc(total, 2);
    uint32_t i;
    st32(b + 48 + 4, PCQ_PERF_COUNTERSET);
    st32(b + 48 + 8, (uint32_t)block);
    st32(b + 48 + 16, 8);                      /* _PERF_MULTI_COUNTERS: dwSize 8, no counter */
    st32(b + 48 + 24, (uint32_t)(block - 24)); /* _PERF_MULTI_INSTANCES */
    st32(b + 48 + 28, n);
    for (at = 48 + 32, i = 0; i < n; i++, at += 10) {
        st32(b + at, 10);
        st32(b + at + 4, older ? n - 1 - i : i);
    }
    single_block(b + at, 0);
    *len = total;
    return b;
}

/* The cook of those: their instances were groups, each hashed, sorted,
 * joined and indexed, for no row (57.2-57.9 Ir/B). A list of no counter
 * holds no group now (D12). */
static int build_cook_empty_set(hcase *h, size_t size)
{
    uint32_t n = (uint32_t)(size / 2 / 10);
    if (related_info(h, 0x30020400u, 1) != 0) return -1;
    h->b = empty_set_buf(n, 1, &h->blen);
    h->c = empty_set_buf(n, 0, &h->clen);
    block1_counter1(h);
    return cook_inputs(h);
}

/* PERF_ELAPSED_TIME, a one-sample type of two related counters (PerfTimeId,
 * PerfFreqId), and PERF_AVERAGE_TIMER, a two-sample type of one (its base),
 * two counters an instance (the most rows a byte with their searches). */
static int build_elapsed_loose(hcase *h, size_t size)
{
    return build_related_cook(h, size, 0x30240500u, 2);
}
static int build_average_loose(hcase *h, size_t size)
{
    return build_related_cook(h, size, 0x30020400u, 2);
}

/* Instances whose names differ but whose cook hashes agree (D12), the names
 * computed back from the hashes (test/cook_hashes.h). Packed as packed_buf's
 * (Size 18: the header, 4 units and a NUL; a value of no data), one
 * InstanceId, the older sample reversed: both are indexed. cook-collide:
 * every instance hash ends in 0x5A5A5A, so every group of a sample falls into
 * one run of one hash; cook-collide-names: every name_hash (counter 1) has
 * the top 32 bits 0x5A5A5A5A, one name#n bucket. The k-th name of each: */
static uint64_t collide_name(uint64_t k)
{
    return ch_instance_word(0, 1, 0, k << 24 | 0x5A5A5Au);
}

static uint64_t bucket_name(uint64_t k)
{
    return ch_bucket_word(1, 1, 0, (uint64_t)0x5A5A5A5Au << 32 | k);
}

static uint8_t *collide_buf(uint32_t n, int older, uint64_t (*name)(uint64_t), size_t *len)
{
    size_t block = 40 + 26 * (size_t)n, total = 48 + block, at;
    uint8_t *b = one_set_buf(total, 1, block, n);
    uint32_t k;
    uint64_t key = 0, x;
    uint64_t *names = (uint64_t *)xmalloc(sizeof *names * ((size_t)n + 1));
    for (k = 0; k < n; k++) { /* names without a U+0000 unit */
        do x = name(++key);
        while (ch_has_nul_unit(x));
        names[k] = x;
    }
    for (at = 48 + 40, k = 0; k < n; k++, at += 26) {
        st32(b + at, 18); /* InstanceId 0 */
        memcpy(b + at + 8, &names[older ? n - 1 - k : k], 8);
        st32(b + at + 22, 8); /* the value's dwSize; dwDataSize 0 */
    }
    free(names);
    *len = total;
    return b;
}

static int build_collide_with(hcase *h, size_t size, uint64_t (*name)(uint64_t))
{
    uint32_t n = (uint32_t)(size / 2 / 26);
    h->a = info_buf(1, 0x00400400u, 0, 0, &h->alen); /* PERF_COUNTER_DELTA */
    h->b = collide_buf(n, 1, name, &h->blen);
    h->c = collide_buf(n, 0, name, &h->clen);
    return cook_inputs(h);
}
static int build_collide(hcase *h, size_t size)
{
    return build_collide_with(h, size, collide_name);
}
static int build_collide_names(hcase *h, size_t size)
{
    return build_collide_with(h, size, bucket_name);
}

/* Name#n buckets (pcq_calc.c number_hashed: as many as rows) of 31 names
 * each, the most a short bucket holds (D12), every name of one unit (two
 * from 64 KiB, where one-unit names fill too few buckets), found by running
 * name_hash forward (test/cook_hashes.h), each bucket's in ascending byte
 * order; packed instances (Size 12 or 14, InstanceId 0, a value of no data:
 * 20 or 22 bytes) of counter 1 in one PERF_COUNTERSET block. The older
 * sample has no block, so the newer one is indexed. Found by a search for
 * the costliest inputs (2026-12-03): a short bucket was sorted by insertion
 * comparing names, 86.7 Ir/B at 32 KiB; now by hash, as integers (D12). */
static int cmp_name4(const void *a, const void *b)
{
    return memcmp(a, b, 4);
}

static int build_short_buckets(hcase *h, size_t size)
{
    unsigned units = size < 65536 ? 1 : 2;
    size_t isz = 12 + 2 * units + 8, n = (size - 256) / isz / 31 * 31, nfull = 0, want = n / 31, at, i, j;
    uint8_t *count = (uint8_t *)xmalloc(n), *names = (uint8_t *)xmalloc(n * 31 * 4), *b, nm[4];
    uint32_t *full = (uint32_t *)xmalloc(sizeof *full * (want + 1)), u, v;
    memset(count, 0, n);
    for (v = units == 1 ? 0 : 1; nfull < want && v < 0x10000u && (units == 2 || v == 0); v++)
        for (u = 1; nfull < want && u < 0x10000u; u++) {
            size_t bk;
            nm[0] = (uint8_t)u;
            nm[1] = (uint8_t)(u >> 8);
            nm[2] = (uint8_t)v;
            nm[3] = (uint8_t)(v >> 8);
            bk = (size_t)(((uint64_t)ch_name_hash_short(1, nm, 2 * units) * n) >> 32);
            if (count[bk] == 31) continue;
            memcpy(names + (bk * 31 + count[bk]) * 4, nm, 4);
            if (++count[bk] == 31) full[nfull++] = (uint32_t)bk;
        }
    n = nfull * 31;
    b = one_set_buf(48 + 40 + isz * n, 1, 40 + isz * n, (uint32_t)n);
    for (at = 48 + 40, i = 0; i < nfull; i++) {
        uint8_t *bucket = names + (size_t)full[i] * 31 * 4;
        qsort(bucket, 31, 4, cmp_name4);
        for (j = 0; j < 31; j++, at += isz) {
            st32(b + at, (uint32_t)(isz - 8));             /* Size; InstanceId 0 */
            memcpy(b + at + 8, bucket + 4 * j, 2 * units); /* the name, then its NUL */
            st32(b + at + isz - 4, 8);                     /* the value's dwSize; dwDataSize 0 */
        }
    }
    free(count);
    free(names);
    free(full);
    h->a = info_buf(1, 0x00010000u, 0, 0, &h->alen); /* PERF_COUNTER_RAWCOUNT */
    h->b = data_alloc(48, 0);
    h->blen = 48;
    h->c = b;
    h->clen = at;
    return n > 0 ? cook_inputs(h) : -1;
}

/* ---- running a mode ------------------------------------------------------- */

static size_t input_len(const hcase *h)
{
    return h->alen + h->blen + h->clen + h->n_ids * 48; /* identifiers: their wire size */
}

volatile uint64_t hostile_sink;

/* The options every mode starts from: the case's scratch, nothing else. */
static pcq_opts case_opts(const hcase *h)
{
    pcq_opts o;
    memset(&o, 0, sizeof o);
    o.scratch = h->scratch;
    o.scratch_size = h->scratch_size;
    return o;
}

static int iter_kind(hcase *h)
{
    uint64_t sum = 0;
    uint32_t i;
    int rc;
    if (h->kind == PCQ_KIND_DATA) {
        walk_result r;
        walk_data(h->a, h->alen, &r);
        hostile_sink += r.sum + r.names;
        return r.rc;
    }
    if (h->kind == PCQ_KIND_INSTANCES) {
        pcq_iter it;
        pcq_instance in;
        if ((rc = pcq_decode_instances(h->a, h->alen, NULL, NULL, NULL)) != PCQ_OK) return rc;
        pcq_instances_begin(h->a, h->alen, &it);
        while ((rc = pcq_instances_next(&it, &in)) == 1) sum += in.name.len;
    } else if (h->kind == PCQ_KIND_IDENTIFIERS) {
        pcq_iter it;
        pcq_identifier id;
        if ((rc = pcq_decode_identifiers(h->a, h->alen, NULL, NULL, NULL)) != PCQ_OK) return rc;
        pcq_identifiers_begin(h->a, h->alen, &it);
        while ((rc = pcq_identifiers_next(&it, &id)) == 1) sum += id.counter_id + id.name.len;
    } else {
        pcq_counterset_info csi;
        pcq_counter_reg c;
        pcq_opts o = case_opts(h);
        if ((rc = pcq_decode_counterset_info(h->a, h->alen, &o, &csi, NULL)) != PCQ_OK) return rc;
        for (i = 0; i < csi.set.num_counters; i++) {
            pcq_counterset_counter(&csi, i, &c);
            sum += c.type;
        }
    }
    hostile_sink += sum;
    return rc < 0 ? rc : PCQ_OK;
}

/* The README's first example less its printf: the step-by-step walk with no
 * options, every field of every item read from the layout. Beside the goal:
 * the fields are the caller's reads (bench/RESULTS.md, "Hostile inputs"). */
static int fields_walk(hcase *h)
{
    pcq_walk w;
    pcq_item it;
    pcq_field_value v;
    uint64_t sum = 0;
    size_t i;
    int rc;
    pcq_walk_begin(&w, h->kind, h->a, h->alen, NULL);
    while ((rc = pcq_walk_next(&w, &it)) == 1) {
        const pcq_struct_info *s = pcq_struct_info_of(it.type);
        for (i = 0; i < s->nfields; i++)
            if (pcq_item_field(&it, &s->fields[i], h->a, h->alen, &v) == PCQ_V_UNSIGNED) sum += v.u;
    }
    hostile_sink += sum;
    return rc;
}

static int run(hcase *h, int mode)
{
    pcq_opts o = case_opts(h);
    pcq_walk w;
    pcq_item it;
    size_t count;
    int rc;
    switch (mode) {
    case M_DECODE: return pcq_validate(h->kind, h->a, h->alen, NULL, NULL);
    case M_DIAGS: o.on_diag = count_diag; return pcq_validate(h->kind, h->a, h->alen, &o, NULL);
    case M_STRICT: o.flags = PCQ_STRICT; return pcq_validate(h->kind, h->a, h->alen, &o, NULL);
    case M_WALK:
    case M_BULK:
        o.flags = mode == M_BULK ? PCQ_BULK : 0u;
        o.on_diag = count_diag;
        pcq_walk_begin(&w, h->kind, h->a, h->alen, &o);
        while ((rc = pcq_walk_next(&w, &it)) == 1)
            ;
        return rc;
    case M_ITER: return iter_kind(h);
    case M_FIELDS: return fields_walk(h);
    default:
        return pcq_calc_cook(&h->info, &h->older, &h->newer, h->ids, h->n_ids, 0, h->rows, h->cap, &count,
                             NULL);
    }
}

static void case_free(hcase *h)
{
    free(h->a);
    free(h->b);
    free(h->c);
    free(h->rows);
    free(h->ids);
    free(h->scratch);
    h->a = h->b = h->c = NULL;
    h->rows = NULL;
    h->ids = NULL;
    h->scratch = NULL;
    h->alen = h->blen = h->clen = h->n_ids = h->cap = h->scratch_size = 0;
}

/* clang-format off */
#define READERS (M_DECODE | M_DIAGS | M_STRICT | M_WALK | M_BULK | M_ITER | M_FIELDS)
#define TEXT_READERS (M_DECODE | M_DIAGS | M_STRICT | M_WALK | M_BULK | M_FIELDS) /* iter: the walk (D11) */
static hcase cases[] = {
    {.name = "strings-shared", .kind = PCQ_KIND_STRINGS, .modes = TEXT_READERS, .build = build_strings,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "strings-interleaved", .kind = PCQ_KIND_STRINGS, .modes = TEXT_READERS, .build = build_strings_interleaved,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "strings-parity", .kind = PCQ_KIND_STRINGS, .modes = TEXT_READERS, .build = build_strings_parity,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "strings-dense", .kind = PCQ_KIND_STRINGS, .modes = TEXT_READERS, .build = build_strings_dense,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "strings-sorted", .kind = PCQ_KIND_STRINGS, .modes = TEXT_READERS, .build = build_strings_sorted,
     .expect = PCQ_ERR_TRUNCATED, .expect_strict = PCQ_ERR_TRUNCATED},
    {.name = "related-set", .kind = PCQ_KIND_COUNTERSET_INFO, .modes = READERS, .build = build_related,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "related-time", .kind = PCQ_KIND_COUNTERSET_INFO, .modes = READERS, .build = build_related_time,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "info-storm", .kind = PCQ_KIND_COUNTERSET_INFO, .modes = READERS, .build = build_info_storm,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "tiny-blocks", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_tiny_blocks,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "tiny-storm", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_tiny_storm,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "diag-storm", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_storm,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "empty-lists", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_empty_lists,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "empty-sets", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_empty_sets,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "tiny-singles", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_tiny_singles,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "tiny-values", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_tiny_values,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "empty-set", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_empty_set,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "packed", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_packed,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "packed-pad", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_packed_pad,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "one-reserved", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_one_reserved,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "one-padding", .kind = PCQ_KIND_DATA, .modes = READERS, .build = build_one_padding,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "tiny-instances", .kind = PCQ_KIND_INSTANCES, .modes = READERS, .build = build_tiny_instances,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "identifiers", .kind = PCQ_KIND_IDENTIFIERS, .modes = READERS, .build = build_identifiers,
     .expect = PCQ_OK, .expect_strict = PCQ_ERR_NONCONFORMANT},
    {.name = "cook-reversed", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_reversed,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-one-name", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_one_name,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-empty-blocks", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_empty_blocks,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-missing-base", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_missing_base,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-long-list", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_long_list,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-ids-reversed", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_ids_reversed,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-packed", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_packed_lockstep,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-packed-reversed", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_packed_reversed,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-packed-one-id", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_packed_one_id,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-packed-loose", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_packed_loose,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-packed-middle", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_packed_middle,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-packed-loose-one", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_packed_loose_one,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-precision-loose", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_precision_loose,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-split", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_split,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-split-single", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_split_single,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-split-asym", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_split_asym,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-split-names", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_split_names,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-elapsed-loose", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_elapsed_loose,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-average-loose", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_average_loose,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-single-packed", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_single_packed,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-tiny-lists", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_tiny_lists,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-tiny-lists-alt", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_tiny_lists_alt,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-empty-set", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_cook_empty_set,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-collide", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_collide,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-collide-names", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_collide_names,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
    {.name = "cook-short-buckets", .kind = PCQ_KIND_DATA, .modes = M_COOK, .build = build_short_buckets,
     .expect = PCQ_OK, .expect_strict = PCQ_OK},
};
/* clang-format on */
#define NCASES (sizeof cases / sizeof cases[0])

/* The fastest of `reps` calls, in seconds. */
static double best_of(hcase *h, int mode, int reps, int *rc)
{
    double best = 1e30, t;
    int r;
    for (r = 0; r < reps; r++) {
        t = now_s();
        *rc = run(h, mode);
        t = now_s() - t;
        if (t < best) best = t;
    }
    return best;
}

static double memcpy_time(size_t n, int reps)
{
    uint8_t *x = (uint8_t *)xmalloc(n), *y = (uint8_t *)xmalloc(n);
    double best = 1e30, t;
    volatile uint8_t sink;
    int r;
    memset(x, 1, n);
    memcpy(y, x, n); /* warm: the pages exist before timing */
    for (r = 0; r < reps; r++) {
        t = now_s();
        memcpy(y, x, n);
        sink = y[n / 2];
        t = now_s() - t;
        if (t < best) best = t;
    }
    (void)sink;
    free(x);
    free(y);
    return best;
}

static size_t parse_size(const char *p, char **end)
{
    size_t v = (size_t)strtoul(p, end, 10);
    if (strncmp(*end, "KiB", 3) == 0) {
        v <<= 10;
        *end += 3;
    } else if (strncmp(*end, "MiB", 3) == 0) {
        v <<= 20;
        *end += 3;
    }
    return v;
}

static int expected(const hcase *h, int mode)
{
    return mode == M_STRICT ? h->expect_strict : h->expect;
}

/* --cg CASE MODE: one case, one mode, inside bench_cg_region. */
#if defined(__clang__)
#define HOSTILE_NOINLINE __attribute__((noinline))
#else
#define HOSTILE_NOINLINE __attribute__((noinline, noclone))
#endif
HOSTILE_NOINLINE int hostile_cg_region(hcase *h, int mode, long passes);
HOSTILE_NOINLINE int hostile_cg_region(hcase *h, int mode, long passes)
{
    int rc = 0;
    long i;
    for (i = 0; i < passes; i++) rc = run(h, mode);
    return rc;
}

static int cg_main(const char *name, const char *mode_name, size_t size, long passes)
{
    size_t k;
    int mode, m, rc;
    for (k = 0; k < NCASES && strcmp(cases[k].name, name) != 0; k++)
        ;
    for (m = 0; m < NMODES && strcmp(mode_names[m], mode_name) != 0; m++)
        ;
    if (k == NCASES || m == NMODES || !(cases[k].modes & (1u << m))) {
        fprintf(stderr, "pcq_hostile: no case %s in mode %s\n", name, mode_name);
        return 2;
    }
    mode = 1 << m;
    if (cases[k].build(&cases[k], size) != 0) return 2;
    rc = hostile_cg_region(&cases[k], mode, passes);
    printf("case=%s mode=%s bytes=%zu result=%s\n", name, mode_name, input_len(&cases[k]),
           pcq_status_name(rc));
    rc = rc != expected(&cases[k], mode);
    case_free(&cases[k]);
    return rc;
}

int main(int argc, char **argv)
{
    const char *list = "16KiB,128KiB,1MiB", *cg_case = NULL, *cg_mode = NULL;
    size_t sizes[8], nsizes = 0, i, k, cg_size = (size_t)1 << 20;
    int check = 0, bad = 0, reps = 3, m;
    long passes = 1;
    char *p;

    for (i = 1; i < (size_t)argc; i++) {
        if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else if (strcmp(argv[i], "--list") == 0) { /* for bench/callgrind.sh --hostile */
            for (k = 0; k < NCASES; k++)
                for (m = 0; m < NMODES; m++)
                    if (cases[k].modes & (1u << m)) printf("%s %s\n", cases[k].name, mode_names[m]);
            return 0;
        } else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < (size_t)argc)
            list = argv[++i];
        else if (strcmp(argv[i], "--cg") == 0 && i + 2 < (size_t)argc) {
            cg_case = argv[++i];
            cg_mode = argv[++i];
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < (size_t)argc)
            cg_size = parse_size(argv[++i], &p);
        else if (strcmp(argv[i], "--passes") == 0 && i + 1 < (size_t)argc)
            passes = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: pcq_hostile [--sizes 16KiB,128KiB,1MiB] [--check] [--list]\n"
                            "       pcq_hostile --cg CASE MODE [--size Z] [--passes N]\n");
            return 2;
        }
    }
    if (cg_case) return cg_main(cg_case, cg_mode, cg_size, passes);
    if (check) {
        list = "16KiB";
        reps = 1;
    }
    for (p = (char *)list; *p && nsizes < 8;) {
        sizes[nsizes] = parse_size(p, &p);
        if (sizes[nsizes++] < 4096) { /* the shapes' own headers need room */
            fprintf(stderr, "pcq_hostile: sizes from 4KiB\n");
            return 2;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return 2;
    }
    printf("| case | mode | input | result | ns/byte | x memcpy |\n|---|---|---|---|---|---|\n");
    for (k = 0; k < NCASES; k++) {
        hcase *h = &cases[k];
        for (i = 0; i < nsizes; i++) {
            double mt;
            if (h->build(h, sizes[i]) != 0) {
                printf("| %s | | %zu | build failed | | |\n", h->name, sizes[i]);
                bad = 1;
                case_free(h);
                continue;
            }
            mt = memcpy_time(input_len(h), reps);
            for (m = 0; m < NMODES; m++) {
                int mode = 1 << m, rc = 0;
                double t;
                if (!(h->modes & (unsigned)mode)) continue;
                t = best_of(h, mode, reps, &rc);
                printf("| %s | %s | %zu | %s | %.2f | %.0f |\n", h->name, mode_names[m], input_len(h),
                       pcq_status_name(rc), t * 1e9 / (double)input_len(h), mt > 0 ? t / mt : 0);
                if (rc != expected(h, mode)) {
                    printf("  %s %s: expected %s\n", h->name, mode_names[m],
                           pcq_status_name(expected(h, mode)));
                    bad = 1;
                }
            }
            case_free(h);
        }
    }
    if (check) printf("pcq_hostile --check: %d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad;
}
