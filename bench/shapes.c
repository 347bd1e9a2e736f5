/* SPDX-License-Identifier: MIT */
/*
 * bench/shapes.c - content and buffers for the benchmark (see shapes.h).
 * Deterministic: a fixed-seed xorshift generator, so every run measures the
 * same bytes.
 */
#include "shapes.h"

#include <stdlib.h>
#include <string.h>

/* Counter types (winperf.h; NOTES §5, §8). */
#define T_100NS_TIMER     0x20510500u /* PERF_100NSEC_TIMER */
#define T_100NS_TIMER_INV 0x21510500u /* PERF_100NSEC_TIMER_INV */
#define T_COUNTER_COUNTER 0x10410400u /* 32-bit rate */
#define T_BULK_COUNT      0x10410500u /* 64-bit rate */
#define T_RAWCOUNT        0x00010000u
#define T_LARGE_RAWCOUNT  0x00010100u
#define T_PRECISION_100NS 0x20570500u /* PERF_PRECISION_100NS_TIMER */
#define T_LARGE_RAW_BASE  0x40030500u
#define T_AVERAGE_BULK    0x40020500u
#define T_AVERAGE_BASE    0x40030402u /* 32-bit */
#define T_RAW_FRACTION    0x20020400u
#define T_RAW_BASE        0x40030403u
#define NOBASE            0xFFFFFFFFu

/* "Processor Information" {b4fc721a-0378-476f-89ba-a5a79f810b36}, NOTES §8:
 * ids 0-31 except 29. NOTES gives two AVERAGE_BASE counters (25, 27) for
 * three AVERAGE_BULK counters (24, 26, 28): 28 shares base 27 here. */
/* clang-format off */
static const bench_counter procinfo_counters[] = {
    {0, T_100NS_TIMER_INV, 8, NOBASE, "% Processor Time"},
    {1, T_100NS_TIMER, 8, NOBASE, "% User Time"},
    {2, T_100NS_TIMER, 8, NOBASE, "% Privileged Time"},
    {3, T_COUNTER_COUNTER, 4, NOBASE, "Interrupts/sec"},
    {4, T_100NS_TIMER, 8, NOBASE, "% DPC Time"},
    {5, T_100NS_TIMER, 8, NOBASE, "% Interrupt Time"},
    {6, T_COUNTER_COUNTER, 4, NOBASE, "DPCs Queued/sec"},
    {7, T_RAWCOUNT, 4, NOBASE, "DPC Rate"},
    {8, T_100NS_TIMER, 8, NOBASE, "% Idle Time"},
    {9, T_100NS_TIMER, 8, NOBASE, "% C1 Time"},
    {10, T_100NS_TIMER, 8, NOBASE, "% C2 Time"},
    {11, T_100NS_TIMER, 8, NOBASE, "% C3 Time"},
    {12, T_BULK_COUNT, 8, NOBASE, "C1 Transitions/sec"},
    {13, T_BULK_COUNT, 8, NOBASE, "C2 Transitions/sec"},
    {14, T_BULK_COUNT, 8, NOBASE, "C3 Transitions/sec"},
    {15, T_100NS_TIMER_INV, 8, NOBASE, "% Priority Time"},
    {16, T_RAWCOUNT, 4, NOBASE, "Parking Status"},
    {17, T_RAWCOUNT, 4, NOBASE, "Processor Frequency"},
    {18, T_RAWCOUNT, 4, NOBASE, "% of Maximum Frequency"},
    {19, T_RAWCOUNT, 4, NOBASE, "Processor State Flags"},
    {20, T_COUNTER_COUNTER, 4, NOBASE, "Clock Interrupts/sec"},
    {21, T_PRECISION_100NS, 8, 22, "Average Idle Time"},
    {22, T_LARGE_RAW_BASE, 8, NOBASE, "Average Idle Time Base"},
    {23, T_BULK_COUNT, 8, NOBASE, "Idle Break Events/sec"},
    {24, T_AVERAGE_BULK, 8, 25, "Processor Performance"},
    {25, T_AVERAGE_BASE, 4, NOBASE, "Processor Performance Base"},
    {26, T_AVERAGE_BULK, 8, 27, "% Processor Utility"},
    {27, T_AVERAGE_BASE, 4, NOBASE, "Utility Base"},
    {28, T_AVERAGE_BULK, 8, 27, "% Privileged Utility"},
    {30, T_RAWCOUNT, 4, NOBASE, "% Performance Limit"},
    {31, T_RAWCOUNT, 4, NOBASE, "Performance Limit Flags"},
};
/* clang-format on */

/* clang-format off */
static const bench_counter process_counters[] = {
    {0, T_100NS_TIMER, 8, NOBASE, "% Processor Time"},
    {1, T_100NS_TIMER, 8, NOBASE, "% User Time"},
    {2, T_100NS_TIMER, 8, NOBASE, "% Privileged Time"},
    {3, T_LARGE_RAWCOUNT, 8, NOBASE, "Virtual Bytes Peak"},
    {4, T_LARGE_RAWCOUNT, 8, NOBASE, "Virtual Bytes"},
    {5, T_COUNTER_COUNTER, 4, NOBASE, "Page Faults/sec"},
    {6, T_LARGE_RAWCOUNT, 8, NOBASE, "Working Set Peak"},
    {7, T_LARGE_RAWCOUNT, 8, NOBASE, "Working Set"},
    {8, T_LARGE_RAWCOUNT, 8, NOBASE, "Page File Bytes Peak"},
    {9, T_LARGE_RAWCOUNT, 8, NOBASE, "Page File Bytes"},
    {10, T_LARGE_RAWCOUNT, 8, NOBASE, "Private Bytes"},
    {11, T_RAWCOUNT, 4, NOBASE, "Thread Count"},
    {12, T_RAWCOUNT, 4, NOBASE, "Priority Base"},
    {13, T_LARGE_RAWCOUNT, 8, NOBASE, "Create Time"},
    {14, T_RAWCOUNT, 4, NOBASE, "ID Process"},
    {15, T_RAWCOUNT, 4, NOBASE, "Creating Process ID"},
    {16, T_RAWCOUNT, 4, NOBASE, "Pool Paged Bytes"},
    {17, T_RAWCOUNT, 4, NOBASE, "Pool Nonpaged Bytes"},
    {18, T_RAWCOUNT, 4, NOBASE, "Handle Count"},
    {19, T_BULK_COUNT, 8, NOBASE, "IO Read Operations/sec"},
    {20, T_BULK_COUNT, 8, NOBASE, "IO Write Operations/sec"},
    {21, T_BULK_COUNT, 8, NOBASE, "IO Data Operations/sec"},
    {22, T_BULK_COUNT, 8, NOBASE, "IO Other Operations/sec"},
    {23, T_BULK_COUNT, 8, NOBASE, "IO Read Bytes/sec"},
    {24, T_BULK_COUNT, 8, NOBASE, "IO Write Bytes/sec"},
    {25, T_BULK_COUNT, 8, NOBASE, "IO Data Bytes/sec"},
    {26, T_BULK_COUNT, 8, NOBASE, "IO Other Bytes/sec"},
    {27, T_LARGE_RAWCOUNT, 8, NOBASE, "Working Set - Private"},
};
/* clang-format on */

/* clang-format off */
static const bench_counter multi_counters[] = {
    {0, T_COUNTER_COUNTER, 4, NOBASE, "Page Faults/sec"},
    {1, T_LARGE_RAWCOUNT, 8, NOBASE, "Available Bytes"},
    {2, T_LARGE_RAWCOUNT, 8, NOBASE, "Committed Bytes"},
    {3, T_LARGE_RAWCOUNT, 8, NOBASE, "Commit Limit"},
    {4, T_COUNTER_COUNTER, 4, NOBASE, "Write Copies/sec"},
    {5, T_COUNTER_COUNTER, 4, NOBASE, "Transition Faults/sec"},
    {6, T_COUNTER_COUNTER, 4, NOBASE, "Cache Faults/sec"},
    {7, T_COUNTER_COUNTER, 4, NOBASE, "Demand Zero Faults/sec"},
    {8, T_COUNTER_COUNTER, 4, NOBASE, "Pages/sec"},
    {9, T_COUNTER_COUNTER, 4, NOBASE, "Pages Input/sec"},
    {10, T_COUNTER_COUNTER, 4, NOBASE, "Page Reads/sec"},
    {11, T_COUNTER_COUNTER, 4, NOBASE, "Pages Output/sec"},
    {12, T_RAWCOUNT, 4, NOBASE, "Pool Paged Bytes"},
    {13, T_RAWCOUNT, 4, NOBASE, "Pool Nonpaged Bytes"},
    {14, T_COUNTER_COUNTER, 4, NOBASE, "Page Writes/sec"},
    {15, T_RAWCOUNT, 4, NOBASE, "Pool Paged Allocs"},
    {16, T_RAWCOUNT, 4, NOBASE, "Pool Nonpaged Allocs"},
    {17, T_RAWCOUNT, 4, NOBASE, "Free System Page Table Entries"},
    {18, T_LARGE_RAWCOUNT, 8, NOBASE, "Cache Bytes"},
    {19, T_LARGE_RAWCOUNT, 8, NOBASE, "Cache Bytes Peak"},
    {20, T_RAW_FRACTION, 4, 21, "% Committed Bytes In Use"},
    {21, T_RAW_BASE, 4, NOBASE, "% Committed Bytes In Use Base"},
    {22, T_LARGE_RAWCOUNT, 8, NOBASE, "Available KBytes"},
    {23, T_BULK_COUNT, 8, NOBASE, "Cache Faults Bytes/sec"},
};
/* clang-format on */

/* A "wide" counterset (the "PERF_COUNTERSET reply of 3,000
 * instances x 20 counters, mixed 4- and 8-byte values"). */
/* clang-format off */
static const bench_counter wide_counters[] = {
    {0, T_RAWCOUNT, 4, NOBASE, "Requests"},
    {1, T_LARGE_RAWCOUNT, 8, NOBASE, "Bytes"},
    {2, T_COUNTER_COUNTER, 4, NOBASE, "Requests/sec"},
    {3, T_BULK_COUNT, 8, NOBASE, "Bytes/sec"},
    {4, T_100NS_TIMER, 8, NOBASE, "% Busy"},
    {5, T_RAWCOUNT, 4, NOBASE, "Queue"},
    {6, T_LARGE_RAWCOUNT, 8, NOBASE, "Allocated"},
    {7, T_COUNTER_COUNTER, 4, NOBASE, "Errors/sec"},
    {8, T_BULK_COUNT, 8, NOBASE, "Reads/sec"},
    {9, T_RAWCOUNT, 4, NOBASE, "Threads"},
    {10, T_LARGE_RAWCOUNT, 8, NOBASE, "Peak"},
    {11, T_COUNTER_COUNTER, 4, NOBASE, "Retries/sec"},
    {12, T_BULK_COUNT, 8, NOBASE, "Writes/sec"},
    {13, T_100NS_TIMER_INV, 8, NOBASE, "% Idle"},
    {14, T_RAWCOUNT, 4, NOBASE, "Sessions"},
    {15, T_LARGE_RAWCOUNT, 8, NOBASE, "Committed"},
    {16, T_COUNTER_COUNTER, 4, NOBASE, "Timeouts/sec"},
    {17, T_BULK_COUNT, 8, NOBASE, "Ops/sec"},
    {18, T_RAWCOUNT, 4, NOBASE, "State"},
    {19, T_LARGE_RAWCOUNT, 8, NOBASE, "Total"},
};
/* clang-format on */

/* One counter per PERF_MULTI_INSTANCES block (the "Thread"-like reply of
 * many small instances), and the counters of the mixed reply. */
/* clang-format off */
static const bench_counter small_counters[] = {
    {0, T_RAWCOUNT, 4, NOBASE, "Priority"},
    {1, T_LARGE_RAWCOUNT, 8, NOBASE, "Start Address"},
    {2, T_COUNTER_COUNTER, 4, NOBASE, "Context Switches/sec"},
    {3, T_100NS_TIMER, 8, NOBASE, "% Processor Time"},
};
/* clang-format on */

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* clang-format off */
const bench_shape bench_shapes[] = {
    {"procinfo", "Processor Information (PERF_COUNTERSET)", BENCH_SET, 2,
     {0xb4fc721au, 0x0378, 0x476f, {0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0x0b, 0x36}},
     procinfo_counters, (uint32_t)NELEM(procinfo_counters), 256, 1},
    {"process", "Process-like (PERF_COUNTERSET)", BENCH_SET, 2,
     {0x7a4e8c21u, 0x1d2b, 0x4c5e, {0x9a, 0x01, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77}},
     process_counters, (uint32_t)NELEM(process_counters), 5000, 1},
    {"multi", "single instance (PERF_MULTI_COUNTERS)", BENCH_MULTI, 0,
     {0x3c1f0e5bu, 0x5a6b, 0x4d7c, {0x8e, 0x9f, 0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5}},
     multi_counters, (uint32_t)NELEM(multi_counters), 1, 1},
    {"wide", "3,000 instances x 20 mixed counters (PERF_COUNTERSET)", BENCH_SET, 2,
     {0x5e1d2c3bu, 0x4a59, 0x4687, {0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0, 0x0f}},
     wide_counters, (uint32_t)NELEM(wide_counters), 3000, 1},
    {"small", "48-byte instances (PERF_MULTI_INSTANCES, one block a counter)", BENCH_INSTANCES, 2,
     {0x6f2e3d4cu, 0x5b6a, 0x4798, {0xa7, 0xb6, 0xc5, 0xd4, 0xe3, 0xf2, 0x01, 0x10}},
     small_counters, (uint32_t)NELEM(small_counters), 1000, 0},
    {"mix", "all five dwTypes (error, 1, 2, 4, 6 blocks in turn)", BENCH_MIX, 2,
     {0x70314e5du, 0x6c7b, 0x48a9, {0xb8, 0xc7, 0xd6, 0xe5, 0xf4, 0x03, 0x12, 0x21}},
     small_counters, (uint32_t)NELEM(small_counters), 8, 0},
};
/* clang-format on */
const size_t bench_nshapes = NELEM(bench_shapes);

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static uint64_t rng_below(uint64_t *s, uint64_t n)
{
    return n ? rng_next(s) % n : 0;
}

/* Puts an ASCII string as UTF-16LE at p; returns the bytes written. */
static size_t put_ascii16(uint8_t *p, const char *a, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        p[2 * i] = (uint8_t)a[i];
        p[2 * i + 1] = 0;
    }
    return 2 * n;
}

static const char *const process_stems[] = {
    "svchost",
    "RuntimeBroker",
    "msedgewebview2",
    "SearchHost",
    "explorer",
    "MsMpEng",
    "conhost",
    "dllhost",
    "WmiPrvSE",
    "sqlservr",
    "ShellExperienceHost",
    "backgroundTaskHost",
    "ApplicationFrameHost",
    "StartMenuExperienceHost",
    "Microsoft.Photos",
    "TextInputHost",
};

/* Writes the decimal digits of v at out + len; returns the new length. */
static size_t put_uint(char *out, size_t len, unsigned v, unsigned width)
{
    char tmp[16];
    size_t t = 0;
    do {
        tmp[t++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || t < width);
    while (t) out[len++] = tmp[--t];
    out[len] = 0;
    return len;
}

/* Instance name i of n: "group,cpu" for procinfo, 8-40 characters for
 * process, "thread_NNNN" (11 characters: 48-byte instances; another stem
 * with BENCH_NAME_STEM, fewer digits with BENCH_NAME_DIGITS) for small and
 * mix, "pool_NNNNN" for wide. */
static size_t make_name(const bench_shape *s, uint32_t i, uint32_t n, uint64_t *rng, char *out)
{
    size_t len;
    if (s == &bench_shapes[0]) {
        if (i + 1 == n) return (size_t)strlen(strcpy(out, "_Total"));
        if (i + 2 == n) return (size_t)strlen(strcpy(out, "0,_Total"));
        len = put_uint(out, 0, i / 64, 1); /* 64 logical processors per group */
        out[len++] = ',';
        return put_uint(out, len, i % 64, 1);
    }
    if (s->layout == BENCH_INSTANCES || s->layout == BENCH_MIX)
        return put_uint(out, strlen(strcpy(out, BENCH_NAME_STEM)),
                        i % (BENCH_NAME_DIGITS == 1   ? 10u
                             : BENCH_NAME_DIGITS == 2 ? 100u
                             : BENCH_NAME_DIGITS == 3 ? 1000u
                                                      : 10000u),
                        BENCH_NAME_DIGITS);
    if (s->layout == BENCH_SET && s->ncounters == 20)
        return put_uint(out, strlen(strcpy(out, "pool_")), i, 5);
    {
        /* a stem, then letters or digits up to 8..40 characters */
        const char *stem = process_stems[rng_below(rng, NELEM(process_stems))];
        size_t want = 8 + (size_t)rng_below(rng, 33), stem_len = strlen(stem);
        if (stem_len > want) stem_len = want;
        memcpy(out, stem, stem_len);
        len = stem_len;
        if (len < want) out[len++] = '_';
        while (len < want) out[len++] = "abcdefghijklmnopqrstuvwxyz0123456789"[rng_below(rng, 36)];
        out[len] = 0;
        return len;
    }
}

/* A newer and an older value one second apart, by counter type. */
static void make_values(const bench_counter *k, uint64_t *rng, uint64_t *newer, uint64_t *older)
{
    const uint64_t sec100ns = 10000000u; /* one second in 100 ns units */
    uint64_t n, d;
    switch (k->type) {
    case T_100NS_TIMER:
    case T_100NS_TIMER_INV:
    case T_PRECISION_100NS:
        n = 100000000000ull + rng_below(rng, 1000000000000ull);
        d = rng_below(rng, sec100ns);
        break;
    case T_LARGE_RAW_BASE:
        n = 130000000000000000ull + rng_below(rng, 1000000);
        d = sec100ns;
        break;
    case T_COUNTER_COUNTER:
        n = rng_next(rng) & 0xFFFFFFFFu;
        d = rng_below(rng, 20000);
        break;
    case T_BULK_COUNT:
    case T_AVERAGE_BULK:
        n = 1000000000ull + rng_below(rng, 1000000000000ull);
        d = rng_below(rng, 10000000);
        break;
    case T_AVERAGE_BASE:
        n = rng_next(rng) & 0xFFFFFFFFu;
        d = 1 + rng_below(rng, 1000);
        break;
    case T_RAW_FRACTION:
        n = rng_below(rng, 1u << 30);
        d = 0;
        break;
    case T_RAW_BASE:
        n = (1u << 30) + rng_below(rng, 1u << 30);
        d = 0;
        break;
    default: /* raw counts: the same in both samples */
        n = k->size == 4 ? rng_below(rng, 100000) : rng_below(rng, 1ull << 40);
        d = 0;
        break;
    }
    if (k->size == 4) {
        *newer = n & 0xFFFFFFFFu;
        *older = (n - d) & 0xFFFFFFFFu;
    } else {
        *newer = n;
        *older = n - d;
    }
}

void bench_content_free(bench_content *c)
{
    free(c->ids);
    free(c->sizes);
    free(c->inst_id);
    free(c->name_off);
    free(c->name_len);
    free(c->names16);
    free(c->insts);
    free(c->vals);
    free(c->old_vals);
    memset(c, 0, sizeof *c);
}

/* The counter of each value in wire order (into k, when not NULL), as
 * encode_with writes them; returns how many values there are. */
static size_t layout_values(const bench_shape *s, uint32_t units, uint32_t *k)
{
    uint32_t nc = s->ncounters, u, i, j;
    size_t n = 0;
#define PUT(c)                       \
    do {                             \
        if (k) k[n] = (uint32_t)(c); \
        n++;                         \
    } while (0)
    switch (s->layout) {
    case BENCH_SET:
    case BENCH_MULTI:
        for (u = 0; u < units; u++)
            for (j = 0; j < nc; j++) PUT(j);
        break;
    case BENCH_INSTANCES:
        for (j = 0; j < nc; j++)
            for (i = 0; i < units; i++) PUT(j);
        break;
    default: /* BENCH_MIX: a type 1, 2, 4 and 6 block a group */
        for (u = 0; u < units; u++) {
            PUT(0);
            for (j = 0; j < nc; j++) PUT(j);
            for (i = 0; i < BENCH_MIX_INST; i++) PUT(1);
            for (i = 0; i < BENCH_MIX_INST; i++)
                for (j = 0; j < nc; j++) PUT(j);
        }
        break;
    }
#undef PUT
    return n;
}

static uint64_t layout_instances(const bench_shape *s, uint32_t units)
{
    switch (s->layout) {
    case BENCH_SET:
    case BENCH_MULTI: return units;
    case BENCH_INSTANCES: return (uint64_t)units * s->ncounters;
    default: return (uint64_t)units * (2 + 2 * BENCH_MIX_INST);
    }
}

int bench_content_make(bench_content *c, const bench_shape *s, uint32_t units)
{
    uint32_t nc = s->ncounters, i, *kof;
    uint32_t ninst = s->layout == BENCH_SET || s->layout == BENCH_INSTANCES ? units
                     : s->layout == BENCH_MIX                               ? BENCH_MIX_INST
                                                                            : 0;
    uint64_t rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)units;
    size_t names_at = 0, k;
    char name[64];

    memset(c, 0, sizeof *c);
    c->shape = s;
    c->units = units;
    c->ninst = ninst;
    c->nvalues = layout_values(s, units, NULL);
    c->instances = layout_instances(s, units);
    c->ids = malloc(nc * sizeof *c->ids);
    c->sizes = malloc(nc);
    c->inst_id = malloc((ninst + 1) * sizeof *c->inst_id);
    c->name_off = malloc((ninst + 1) * sizeof *c->name_off);
    c->name_len = malloc((ninst + 1) * sizeof *c->name_len);
    c->names16 = malloc((size_t)(ninst + 1) * 2 * 48);
    c->insts = malloc((ninst + 1) * sizeof *c->insts);
    c->vals = malloc(c->nvalues * sizeof *c->vals);
    c->old_vals = malloc(c->nvalues * sizeof *c->old_vals);
    kof = malloc((c->nvalues + 1) * sizeof *kof);
    if (!c->ids || !c->sizes || !c->inst_id || !c->name_off || !c->name_len || !c->names16 || !c->insts ||
        !c->vals || !c->old_vals || !kof) {
        free(kof);
        bench_content_free(c);
        return 0;
    }
    for (i = 0; i < nc; i++) {
        c->ids[i] = s->counters[i].id;
        c->sizes[i] = s->counters[i].size;
    }
    for (i = 0; i < ninst; i++) {
        size_t n = make_name(s, i, ninst, &rng, name);
        c->inst_id[i] = s == &bench_shapes[0] ? i : 4 + 4 * i; /* PIDs, thread ids */
        c->name_off[i] = names_at;
        c->name_len[i] = (uint32_t)(2 * n);
        names_at += put_ascii16(c->names16 + names_at, name, n);
    }
    for (i = 0; i < ninst; i++) { /* names16 is complete: pointers into it */
        memset(&c->insts[i], 0, sizeof c->insts[i]);
        c->insts[i].instance_id = c->inst_id[i];
        c->insts[i].name.ptr = c->names16 + c->name_off[i];
        c->insts[i].name.len = c->name_len[i];
    }
    layout_values(s, units, kof);
    for (k = 0; k < c->nvalues; k++) {
        make_values(&s->counters[kof[k]], &rng, &c->vals[k], &c->old_vals[k]);
        c->sum += c->vals[k];
    }
    free(kof);
    /* The newer sample; the older one is one second earlier. */
    c->hdr.perf_freq = 10000000u;
    c->hdr.perf_time_stamp = 8640000000000ull;
    c->hdr.perf_time_100nsec = 133800000000000000ull;
    c->hdr.system_time.year = 2025;
    c->hdr.system_time.month = 11;
    c->hdr.system_time.day_of_week = 5;
    c->hdr.system_time.day = 21;
    c->hdr.system_time.hour = 12;
    c->hdr.system_time.minute = 30;
    c->hdr.system_time.second = 1;
    c->old_hdr = c->hdr;
    c->old_hdr.perf_time_stamp -= c->hdr.perf_freq;
    c->old_hdr.perf_time_100nsec -= 10000000u;
    c->old_hdr.system_time.second = 0;
    return 1;
}

uint32_t bench_units_for(const bench_shape *s, size_t target)
{
    /* Bytes a unit takes (values 16 bytes each, NOTES §2; a name's area)
     * and the fixed part. */
    size_t nc = s->ncounters, ids = (4 * nc + 7) & ~(size_t)7, per, fixed = 48;
    size_t name = s == &bench_shapes[0] ? 16 : s->layout == BENCH_SET && nc == 28 ? 56 : 24;
    switch (s->layout) {
    case BENCH_SET:
        per = 16 * nc + 8 + name;
        fixed += 16 + 8 + ids + 8;
        break;
    case BENCH_MULTI: per = 16 * nc + 16 + 8 + ids; break;
    case BENCH_INSTANCES:
        per = nc * (8 + name + 16);
        fixed += nc * (16 + 8);
        break;
    default:
        per = 16 + 32 + (16 + 8 + ids + 16 * nc) + (16 + 8 + BENCH_MIX_INST * (8 + name + 16)) +
              (16 + 8 + ids + 8 + BENCH_MIX_INST * (8 + name + 16 * nc));
        break;
    }
    if (target <= fixed + per) return 1;
    target = (target - fixed + per / 2) / per;
    return target > 0xFFFFFFu ? 0xFFFFFFu : (uint32_t)target;
}

/* The loops below are one function, as a caller writes them: the helpers
 * are inlined into encode_with. As calls, with their saved registers, they
 * cost the bench ~73 instructions a 48-byte instance (a call a value, small:
 * 4.11 -> 2.59 Ir/B), nearly what the writer's own call costs (91). And
 * encode_with is inlined into each entry below, so that each runs the loop
 * of its one way of writing, as a caller's does: one function for all three
 * tested the way at every instance and value, and held registers for all of
 * them (a call a value small 1.89 -> 1.80 Ir/B, mix 2.23 -> 2.16). */
#if defined(__GNUC__)
#define BENCH_INLINE static inline __attribute__((always_inline))
#else
#define BENCH_INLINE static inline
#endif

/* n values of the counters from j0 (j0 + k, or all j0 when one), per value
 * or in one batch; *at moves past them. */
BENCH_INLINE void put_values(pcq_writer *w, const bench_content *c, const uint64_t *vals, size_t *at,
                             uint32_t j0, uint32_t n, int one, int batch)
{
    /* the arrays in locals, as a caller's loop has them: the writer's stores
     * are bytes, which the compiler must assume may change c and *at */
    const uint64_t *v = vals + *at;
    const uint8_t *sizes = c->sizes + j0;
    uint32_t k;
    *at += n;
    if (batch && !one) {
        pcq_put_values_u64(w, v, sizes, n);
        return;
    }
    for (k = 0; k < n; k++) {
        if (sizes[k] == 8)
            pcq_put_value_u64(w, v[k]);
        else
            pcq_put_value_u32(w, (uint32_t)v[k]);
    }
}

#define BENCH_PUT_BLOCK 2 /* encode_with's batch: a block's instances in one call */

/* An instance of a type 4 or 6 block and its values. */
BENCH_INLINE void put_instance(pcq_writer *w, const bench_content *c, const uint64_t *vals, size_t *at,
                               uint32_t i, uint32_t j0, uint32_t n, int batch)
{
    const uint8_t *name = c->names16 + c->name_off[i];
    if (batch) {
        pcq_put_data_instance_u64(w, c->inst_id[i], name, c->name_len[i], vals + *at, c->sizes + j0, n);
        *at += n;
        return;
    }
    pcq_put_data_instance(w, c->inst_id[i], name, c->name_len[i]);
    put_values(w, c, vals, at, j0, n, n == 1, batch);
}

/* Instances 0 to ninst - 1 of a type 4 or 6 block, each with nv values of
 * the counters from j0, in one call (the batch writer, BENCH_PUT_BLOCK). */
BENCH_INLINE void put_block_instances(pcq_writer *w, const bench_content *c, const uint64_t *vals, size_t *at,
                                      uint32_t ninst, uint32_t j0, uint32_t nv)
{
    pcq_put_data_instances_u64(w, c->insts, ninst, vals + *at, c->sizes + j0, nv);
    *at += (size_t)ninst * nv;
}

BENCH_INLINE int encode_with(const bench_content *c, const uint64_t *vals, const pcq_data *hdr, uint8_t *dst,
                             size_t cap, size_t *len, int batch)
{
    const bench_shape *s = c->shape;
    const uint32_t nc = s->ncounters;
    pcq_writer w;
    size_t at = 0;
    uint32_t u, i, j;

    pcq_writer_init(&w, dst, cap);
    pcq_begin_data(&w, hdr);
    switch (s->layout) {
    case BENCH_SET:
        pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, c->ids, nc);
        if (batch == BENCH_PUT_BLOCK)
            put_block_instances(&w, c, vals, &at, c->units, 0, nc);
        else
            for (i = 0; i < c->units; i++) put_instance(&w, c, vals, &at, i, 0, nc, batch);
        pcq_end_block(&w);
        break;
    case BENCH_MULTI:
        for (u = 0; u < c->units; u++) {
            pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, c->ids, nc);
            put_values(&w, c, vals, &at, 0, nc, 0, batch);
            pcq_end_block(&w);
        }
        break;
    case BENCH_INSTANCES:
        for (j = 0; j < nc; j++) {
            pcq_begin_block(&w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
            if (batch == BENCH_PUT_BLOCK)
                put_block_instances(&w, c, vals, &at, c->units, j, 1);
            else
                for (i = 0; i < c->units; i++) put_instance(&w, c, vals, &at, i, j, 1, batch);
            pcq_end_block(&w);
        }
        break;
    default: /* BENCH_MIX */
        for (u = 0; u < c->units; u++) {
            pcq_put_error_block(&w, 0x000003E5u); /* ERROR_IO_PENDING-like: any status */
            pcq_begin_block(&w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
            put_values(&w, c, vals, &at, 0, 1, 1, batch);
            pcq_end_block(&w);
            pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, c->ids, nc);
            put_values(&w, c, vals, &at, 0, nc, 0, batch);
            pcq_end_block(&w);
            pcq_begin_block(&w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
            if (batch == BENCH_PUT_BLOCK)
                put_block_instances(&w, c, vals, &at, BENCH_MIX_INST, 1, 1);
            else
                for (i = 0; i < BENCH_MIX_INST; i++) put_instance(&w, c, vals, &at, i, 1, 1, batch);
            pcq_end_block(&w);
            pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, c->ids, nc);
            if (batch == BENCH_PUT_BLOCK)
                put_block_instances(&w, c, vals, &at, BENCH_MIX_INST, 0, nc);
            else
                for (i = 0; i < BENCH_MIX_INST; i++) put_instance(&w, c, vals, &at, i, 0, nc, batch);
            pcq_end_block(&w);
        }
        break;
    }
    pcq_end_data(&w);
    return pcq_writer_finish(&w, len);
}

int bench_encode(const bench_content *c, uint8_t *dst, size_t cap, size_t *len)
{
    return encode_with(c, c->vals, &c->hdr, dst, cap, len, 0);
}

int bench_encode_instances(const bench_content *c, uint8_t *dst, size_t cap, size_t *len)
{
    return encode_with(c, c->vals, &c->hdr, dst, cap, len, 1);
}

int bench_encode_batch(const bench_content *c, uint8_t *dst, size_t cap, size_t *len)
{
    return encode_with(c, c->vals, &c->hdr, dst, cap, len, BENCH_PUT_BLOCK);
}

int bench_encode_older(const bench_content *c, uint8_t *dst, size_t cap, size_t *len)
{
    return encode_with(c, c->old_vals, &c->old_hdr, dst, cap, len, 1);
}

int bench_counterset_info(const bench_shape *s, uint8_t *dst, size_t cap, size_t *len)
{
    pcq_writer w;
    pcq_counterset_reg set;
    uint32_t j;

    memset(&set, 0, sizeof set);
    set.guid = s->guid;
    set.detail_level = 100;
    set.num_counters = s->ncounters;
    set.instance_type = s->instance_type;
    pcq_writer_init(&w, dst, cap);
    pcq_put_counterset_reg(&w, &set);
    for (j = 0; j < s->ncounters; j++) {
        const bench_counter *k = &s->counters[j];
        pcq_counter_reg r;
        memset(&r, 0, sizeof r);
        r.counter_id = k->id;
        r.type = k->type;
        r.detail_level = 100;
        r.base_counter_id = k->base_id;
        r.perf_time_id = r.perf_freq_id = r.multi_id = 0xFFFFFFFFu;
        pcq_put_counter_reg(&w, &r);
    }
    return pcq_writer_finish(&w, len);
}
