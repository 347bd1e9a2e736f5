/*
 * bench/shapes.c - content and buffers for the benchmark (see shapes.h).
 * Deterministic: a fixed-seed xorshift generator, so every run measures the
 * same bytes.
 */
#include "shapes.h"

#include <stdlib.h>
#include <string.h>

/* Counter types (winperf.h; NOTES §5, §8). */
#define T_100NS_TIMER      0x20510500u  /* PERF_100NSEC_TIMER */
#define T_100NS_TIMER_INV  0x21510500u  /* PERF_100NSEC_TIMER_INV */
#define T_COUNTER_COUNTER  0x10410400u  /* 32-bit rate */
#define T_BULK_COUNT       0x10410500u  /* 64-bit rate */
#define T_RAWCOUNT         0x00010000u
#define T_LARGE_RAWCOUNT   0x00010100u
#define T_PRECISION_100NS  0x20570500u  /* PERF_PRECISION_100NS_TIMER */
#define T_LARGE_RAW_BASE   0x40030500u
#define T_AVERAGE_BULK     0x40020500u
#define T_AVERAGE_BASE     0x40030402u  /* 32-bit */
#define T_RAW_FRACTION     0x20020400u
#define T_RAW_BASE         0x40030403u
#define NOBASE 0xFFFFFFFFu

/* "Processor Information" {b4fc721a-0378-476f-89ba-a5a79f810b36}, NOTES §8:
 * ids 0-31 except 29. NOTES gives two AVERAGE_BASE counters (25, 27) for
 * three AVERAGE_BULK counters (24, 26, 28): 28 shares base 27 here. */
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

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const bench_shape bench_shapes[] = {
    {"procinfo", "Processor Information (PERF_COUNTERSET)", PCQ_PERF_COUNTERSET, 2,
     {0xb4fc721au, 0x0378, 0x476f, {0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0x0b, 0x36}},
     procinfo_counters, (uint32_t)NELEM(procinfo_counters), 256},
    {"process", "Process-like (PERF_COUNTERSET)", PCQ_PERF_COUNTERSET, 2,
     {0x7a4e8c21u, 0x1d2b, 0x4c5e, {0x9a, 0x01, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77}},
     process_counters, (uint32_t)NELEM(process_counters), 5000},
    {"multi", "single instance (PERF_MULTI_COUNTERS)", PCQ_PERF_MULTI_COUNTERS, 0,
     {0x3c1f0e5bu, 0x5a6b, 0x4d7c, {0x8e, 0x9f, 0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5}},
     multi_counters, (uint32_t)NELEM(multi_counters), 1},
};
const size_t bench_nshapes = NELEM(bench_shapes);

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static uint64_t rng_below(uint64_t *s, uint64_t n) { return n ? rng_next(s) % n : 0; }

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
    "svchost", "RuntimeBroker", "msedgewebview2", "SearchHost", "explorer",
    "MsMpEng", "conhost", "dllhost", "WmiPrvSE", "sqlservr",
    "ShellExperienceHost", "backgroundTaskHost", "ApplicationFrameHost",
    "StartMenuExperienceHost", "Microsoft.Photos", "TextInputHost",
};

/* The instance names of a shape, 8-40 characters for `process`. */
static size_t make_name(const bench_shape *s, uint32_t i, uint32_t n, uint64_t *rng, char *out)
{
    size_t len;
    if (s == &bench_shapes[0]) {
        if (i + 1 == n) return (size_t)strlen(strcpy(out, "_Total"));
        if (i + 2 == n) return (size_t)strlen(strcpy(out, "0,_Total"));
        len = 0;
        {
            /* "group,cpu": 64 logical processors per group */
            unsigned g = i / 64, k = i % 64;
            char tmp[24];
            size_t t = 0;
            unsigned parts[2];
            int p;
            parts[0] = g;
            parts[1] = k;
            for (p = 0; p < 2; p++) {
                unsigned v = parts[p];
                t = 0;
                do {
                    tmp[t++] = (char)('0' + v % 10);
                    v /= 10;
                } while (v);
                while (t) out[len++] = tmp[--t];
                if (p == 0) out[len++] = ',';
            }
            out[len] = 0;
        }
        return len;
    }
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
    const uint64_t sec100ns = 10000000u;   /* one second in 100 ns units */
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
    free(c->vals);
    free(c->old_vals);
    memset(c, 0, sizeof *c);
}

int bench_content_make(bench_content *c, const bench_shape *s, uint32_t units)
{
    uint32_t nc = s->ncounters, i, j;
    uint32_t ninst = s->block_type == PCQ_PERF_COUNTERSET ? units : 0;
    uint64_t rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)units;
    size_t names_at = 0;
    char name[64];

    memset(c, 0, sizeof *c);
    c->shape = s;
    c->units = units;
    c->nvalues = (uint64_t)units * nc;
    c->ids = malloc(nc * sizeof *c->ids);
    c->sizes = malloc(nc);
    c->inst_id = malloc((ninst + 1) * sizeof *c->inst_id);
    c->name_off = malloc((ninst + 1) * sizeof *c->name_off);
    c->name_len = malloc((ninst + 1) * sizeof *c->name_len);
    c->names16 = malloc((size_t)(ninst + 1) * 2 * 48);
    c->vals = malloc(c->nvalues * sizeof *c->vals);
    c->old_vals = malloc(c->nvalues * sizeof *c->old_vals);
    if (!c->ids || !c->sizes || !c->inst_id || !c->name_off || !c->name_len || !c->names16 ||
        !c->vals || !c->old_vals) {
        bench_content_free(c);
        return 0;
    }
    for (j = 0; j < nc; j++) {
        c->ids[j] = s->counters[j].id;
        c->sizes[j] = s->counters[j].size;
    }
    for (i = 0; i < ninst; i++) {
        size_t n = make_name(s, i, ninst, &rng, name);
        c->inst_id[i] = s == &bench_shapes[0] ? i : 4 + 4 * i;   /* processes: PIDs */
        c->name_off[i] = names_at;
        c->name_len[i] = (uint32_t)(2 * n);
        names_at += put_ascii16(c->names16 + names_at, name, n);
    }
    for (i = 0; i < units; i++)
        for (j = 0; j < nc; j++) {
            uint64_t *nv = &c->vals[(size_t)i * nc + j], *ov = &c->old_vals[(size_t)i * nc + j];
            make_values(&s->counters[j], &rng, nv, ov);
            c->sum += *nv;
        }
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
    /* Per unit: the values (16 bytes each, NOTES §2) plus, for a counterset,
     * an instance header and an average name; for a multi-counters block,
     * its headers and id array. */
    size_t per, fixed = 48;
    if (s->block_type == PCQ_PERF_COUNTERSET) {
        size_t name = s == &bench_shapes[0] ? 16 : 56;
        per = 16 * (size_t)s->ncounters + 8 + name;
        fixed += 16 + 8 + ((4 * (size_t)s->ncounters + 7) & ~(size_t)7) + 8;
    } else {
        per = 16 * (size_t)s->ncounters + 16 + 8 + ((4 * (size_t)s->ncounters + 7) & ~(size_t)7);
    }
    if (target <= fixed + per) return 1;
    target = (target - fixed + per / 2) / per;
    return target > 0xFFFFFFu ? 0xFFFFFFu : (uint32_t)target;
}

static int encode_with(const bench_content *c, const uint64_t *vals, const pcq_data *hdr,
                       uint8_t *dst, size_t cap, size_t *len)
{
    const bench_shape *s = c->shape;
    const uint32_t nc = s->ncounters;
    const uint8_t *sizes = c->sizes;
    pcq_writer w;
    uint32_t i, j;

    pcq_writer_init(&w, dst, cap);
    pcq_begin_data(&w, hdr);
    if (s->block_type == PCQ_PERF_COUNTERSET) {
        pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, c->ids, nc);
        for (i = 0; i < c->units; i++) {
            const uint64_t *v = vals + (size_t)i * nc;
            pcq_put_data_instance(&w, c->inst_id[i], c->names16 + c->name_off[i], c->name_len[i]);
            for (j = 0; j < nc; j++) {
                if (sizes[j] == 8) pcq_put_value_u64(&w, v[j]);
                else pcq_put_value_u32(&w, (uint32_t)v[j]);
            }
        }
        pcq_end_block(&w);
    } else {
        for (i = 0; i < c->units; i++) {
            const uint64_t *v = vals + (size_t)i * nc;
            pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, c->ids, nc);
            for (j = 0; j < nc; j++) {
                if (sizes[j] == 8) pcq_put_value_u64(&w, v[j]);
                else pcq_put_value_u32(&w, (uint32_t)v[j]);
            }
            pcq_end_block(&w);
        }
    }
    pcq_end_data(&w);
    return pcq_writer_finish(&w, len);
}

int bench_encode(const bench_content *c, uint8_t *dst, size_t cap, size_t *len)
{
    return encode_with(c, c->vals, &c->hdr, dst, cap, len);
}

int bench_encode_older(const bench_content *c, uint8_t *dst, size_t cap, size_t *len)
{
    return encode_with(c, c->old_vals, &c->old_hdr, dst, cap, len);
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
