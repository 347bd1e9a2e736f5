/* SPDX-License-Identifier: MIT */
/*
 * test_calc.c - the evaluator (pcq_calc.c): the type table, every formula with
 * its arithmetic worked out by hand, every status, scale and format flags, the
 * 32-bit wrap, display text, and cooking whole data buffers (instance matching,
 * name#n, aggregation, a realistic "Processor Information" pair).
 *
 * Build: cc -std=c99 -I. test/test_calc.c pcq_calc.c pcq_codec.c -lm
 */
#include "pcq_codec.h"
#include "testlib.h"
#include "cook_hashes.h"

#include <math.h>
#include <string.h>

#define CAP(a) (sizeof(a) / sizeof((a)[0]))

/* Relative 1e-12 (absolute near 0). */
static int near(double a, double b)
{
    double m = fabs(b) > 1.0 ? fabs(b) : 1.0;
    return fabs(a - b) <= 1e-12 * m;
}

/* ------------------------------------------------------------------------ */
/* Type table                                                               */
/* ------------------------------------------------------------------------ */
static void test_table(void)
{
    /* The 34 types of §2.2.4.2. */
    static const uint32_t spec[34] = {0x10410400, 0x20410500, 0x00450400, 0x00450500, 0x00550500, 0x00650500,
                                      0x10410500, 0x00000B00, 0x00010000, 0x00010100, 0x00000000, 0x00000100,
                                      0x20C20400, 0x00410400, 0x21410500, 0x30240500, 0x40030401, 0x30020400,
                                      0x40030402, 0x40020500, 0x20610500, 0x20570500, 0x20470500, 0x20670500,
                                      0x20510500, 0x21510500, 0x22410500, 0x23410500, 0x22510500, 0x23510500,
                                      0x20020400, 0x40030403, 0x20020500, 0x40030500};
    size_t i, n = 0, known = 0;
    const pcq_calc_type *d;

    for (i = 0; i < 34; i++) {
        d = pcq_calc_type_info(spec[i]);
        TL_CHECK(d != NULL && d->type == spec[i], "spec type 0x%08x in the table", (unsigned)spec[i]);
    }
    for (i = 0; (d = pcq_calc_type_at(i)) != NULL; i++) {
        uint32_t t = d->type, sz = PCQ_CALC_SIZE_FIELD(t), disp = PCQ_CALC_DISPLAY_FIELD(t);
        n++;
        if (pcq_counter_type_is_known(t)) known++;
        /* Size bits (NOTES §5): 0 DWORD, 0x100 LARGE, 0x200 ZERO, 0x300 variable. */
        TL_CHECK(d->size == (sz == 0 ? 4 : sz == 0x100 ? 8 : 0), "size of 0x%08x", (unsigned)t);
        /* Display bits: 1 /sec, 2 %, 3 secs. AVERAGE_BULK is 4 (no-show) yet shown:
         * PDH computes it ("% Processor Utility"), so it is displayable. */
        if (disp == 0x10000000u) TL_CHECK(d->unit == PCQ_CALC_UNIT_PER_SEC, "unit 0x%08x", (unsigned)t);
        if (disp == 0x20000000u) TL_CHECK(d->unit == PCQ_CALC_UNIT_PERCENT, "unit 0x%08x", (unsigned)t);
        if (disp == 0x30000000u) TL_CHECK(d->unit == PCQ_CALC_UNIT_SECONDS, "unit 0x%08x", (unsigned)t);
        /* Time-base bits agree with the clock the formula uses. */
        if (d->timebase == PCQ_CALC_TB_100NS)
            TL_CHECK(PCQ_CALC_TIMEBASE_FIELD(t) == 0x00100000u, "timebase 0x%08x", (unsigned)t);
        if (d->timebase == PCQ_CALC_TB_OBJECT)
            TL_CHECK(PCQ_CALC_TIMEBASE_FIELD(t) == 0x00200000u, "timebase 0x%08x", (unsigned)t);
        if (d->timebase == PCQ_CALC_TB_TICK)
            TL_CHECK(PCQ_CALC_TIMEBASE_FIELD(t) == 0, "timebase 0x%08x", (unsigned)t);
        /* Every DELTA_COUNTER type needs two samples (AVERAGE_* too, without the bit). */
        if (t & PCQ_CALC_DELTA_COUNTER) TL_CHECK(d->samples == 2, "two samples for 0x%08x", (unsigned)t);
        /* Bases (subtype 3 of COUNTER) are not displayable. The subtype is compared
         * with ==: PRECISION (7) contains the BASE bits (3). */
        if (PCQ_CALC_TYPE_FIELD(t) == 0x400u && PCQ_CALC_SUBTYPE_FIELD(t) == 0x00030000u)
            TL_CHECK(!d->displayable, "base 0x%08x not displayable", (unsigned)t);
        if (PCQ_CALC_SUBTYPE_FIELD(t) == 0x00070000u)
            TL_CHECK(d->displayable && (d->needs & (PCQ_CALC_NEEDS_BASE | PCQ_CALC_NEEDS_TIME)),
                     "PRECISION 0x%08x is a timer over a base, not a base", (unsigned)t);
    }
    TL_CHECK(n == 38, "34 spec types + 4 winperf.h types, got %zu", n);
    /* pcq_calc_type_info() searches the table by halves: it must ascend, and
     * every entry must be found again (the first, the last, the middle). */
    for (i = 0; (d = pcq_calc_type_at(i)) != NULL; i++) {
        if (i > 0) TL_CHECK(pcq_calc_type_at(i - 1)->type < d->type, "table ascends at %zu", i);
        TL_CHECK(pcq_calc_type_info(d->type) == d, "entry %zu (0x%08x) found", i, (unsigned)d->type);
        TL_CHECK(pcq_calc_type_info(d->type + 1) == NULL ||
                     pcq_calc_type_info(d->type + 1)->type == d->type + 1,
                 "no false hit after 0x%08x", (unsigned)d->type);
    }
    TL_CHECK(pcq_calc_type_info(0xFFFFFFFFu) == NULL && pcq_calc_type_info(0x00000001u) == NULL,
             "types outside the table");
    TL_CHECK(known == 34, "all 34 spec types known to the codec, got %zu", known);
    TL_CHECK(pcq_calc_type_info(0x40030503u) == NULL, "0x40030503 is not PERF_LARGE_RAW_BASE");
    d = pcq_calc_type_info(0x40030500u);
    TL_CHECK(d != NULL && d->size == 8 && !d->displayable, "PERF_LARGE_RAW_BASE is 0x40030500");
    d = pcq_calc_type_info(0x40020500u);
    TL_CHECK(d != NULL && d->samples == 2, "AVERAGE_BULK needs two samples without the DELTA bit");
    d = pcq_calc_type_info(0x30020400u);
    TL_CHECK(d != NULL && d->samples == 2, "AVERAGE_TIMER needs two samples without the DELTA bit");
    TL_CHECK(strcmp(pcq_calc_status_name(PCQ_CALC_OK), "PCQ_CALC_OK") == 0, "status name");
    TL_CHECK(strcmp(pcq_calc_status_name(PCQ_CALC_NEED_SECOND_SAMPLE), "PCQ_CALC_NEED_SECOND_SAMPLE") == 0,
             "status name");
    TL_CHECK(pcq_calc_status_name(-7) != NULL && pcq_calc_status_text(99) != NULL, "never NULL");
}

/* ------------------------------------------------------------------------ */
/* Formulas, one type at a time                                             */
/* ------------------------------------------------------------------------ */
static pcq_calc_sample S(uint64_t n, uint64_t t, uint64_t t100, uint64_t f)
{
    pcq_calc_sample s;
    memset(&s, 0, sizeof s);
    s.value = n;
    s.time = t;
    s.time_100ns = t100;
    s.freq = f;
    return s;
}

static pcq_calc_sample SB(uint64_t n, uint64_t b, uint64_t t, uint64_t f)
{
    pcq_calc_sample s = S(n, t, 0, f);
    s.base = b;
    s.have = PCQ_CALC_HAVE_BASE;
    return s;
}

static void expect(int line, uint32_t type, int32_t scale, const pcq_calc_sample *o, const pcq_calc_sample *n,
                   unsigned flags, int status, double value)
{
    double v = -12345.0;
    int st = pcq_calc_value(type, scale, o, n, flags, &v, NULL);
    tl_check(st == status, "line %d: type 0x%08x: status %s, want %s", line, (unsigned)type,
             pcq_calc_status_name(st), pcq_calc_status_name(status));
    if (status == PCQ_CALC_OK)
        tl_check(near(v, value) && isfinite(v), "line %d: type 0x%08x: %.17g, want %.17g", line,
                 (unsigned)type, v, value);
    else
        tl_check(v == -12345.0, "line %d: value written with status %s", line, pcq_calc_status_name(st));
}
#define EXPECT(type, o, n, st, val) expect(__LINE__, type, 0, o, n, PCQ_CALC_NOCAP100, st, val)

static void test_formulas(void)
{
    /* A one-second interval: F = 10,000,000 ticks/s, dT = 10,000,000 ticks,
     * dT100 = 10,000,000 (100 ns units). */
    const uint64_t F = 10000000u, T0 = 5000000000u, T1 = T0 + 10000000u;
    const uint64_t N0 = 133000000000000000u, N1 = N0 + 10000000u; /* T100 */
    pcq_calc_sample o, n;

    /* RAWCOUNT: N = 42 (one sample suffices). */
    n = S(42, T1, N1, F);
    EXPECT(0x00010000, NULL, &n, PCQ_CALC_OK, 42.0);
    EXPECT(0x00010100, NULL, &n, PCQ_CALC_OK, 42.0);
    EXPECT(0x00000000, NULL, &n, PCQ_CALC_OK, 42.0);
    EXPECT(0x00000100, NULL, &n, PCQ_CALC_OK, 42.0);

    /* COUNTER_COUNTER: dN = 500 over dT/F = 1 s: 500 /sec. */
    o = S(1000, T0, N0, F);
    n = S(1500, T1, N1, F);
    EXPECT(0x10410400, &o, &n, PCQ_CALC_OK, 500.0);
    /* BULK_COUNT, same: 500. SAMPLE_COUNTER (decision: no SAMPLE_BASE): 500. */
    EXPECT(0x10410500, &o, &n, PCQ_CALC_OK, 500.0);
    EXPECT(0x00410400, &o, &n, PCQ_CALC_OK, 500.0);
    /* Half a second: dT = 5,000,000; 500 / 0.5 = 1000 /sec. */
    n.time = T0 + 5000000u;
    EXPECT(0x10410400, &o, &n, PCQ_CALC_OK, 1000.0);

    /* COUNTER_DELTA / LARGE_DELTA: dN = 1500 - 1000 = 500. */
    n = S(1500, T1, N1, F);
    EXPECT(0x00400400, &o, &n, PCQ_CALC_OK, 500.0);
    EXPECT(0x00400500, &o, &n, PCQ_CALC_OK, 500.0);

    /* COUNTER_TIMER: dN = 2,500,000 ticks busy of dT = 10,000,000: 25 %. */
    o = S(7000000, T0, N0, F);
    n = S(9500000, T1, N1, F);
    EXPECT(0x20410500, &o, &n, PCQ_CALC_OK, 25.0);
    /* COUNTER_TIMER_INV: 100 (1 - 0.25) = 75 %. */
    EXPECT(0x21410500, &o, &n, PCQ_CALC_OK, 75.0);
    /* 100NSEC_TIMER: dN / dT100 = 2.5e6 / 1e7: 25 %; _INV 75 %. */
    EXPECT(0x20510500, &o, &n, PCQ_CALC_OK, 25.0);
    EXPECT(0x21510500, &o, &n, PCQ_CALC_OK, 75.0);

    /* QUEUELEN: dN / dT = 30,000,000 / 10,000,000 = 3 (no F: the numerator
     * sums the queue length once per tick). LARGE_QUEUELEN the same. */
    o = S(10000000, T0, N0, F);
    n = S(40000000, T1, N1, F);
    EXPECT(0x00450400, &o, &n, PCQ_CALC_OK, 3.0);
    EXPECT(0x00450500, &o, &n, PCQ_CALC_OK, 3.0);
    /* 100NS_QUEUELEN: dN / dT100 = 3e7 / 1e7 = 3. */
    EXPECT(0x00550500, &o, &n, PCQ_CALC_OK, 3.0);
    /* OBJ_TIME_QUEUELEN: dN / dTo = 3e7 / (6e6 - 1e6 = 5e6) = 6. */
    o.obj_time = 1000000;
    n.obj_time = 6000000;
    o.have = n.have = PCQ_CALC_HAVE_TIME;
    EXPECT(0x00650500, &o, &n, PCQ_CALC_OK, 6.0);
    /* OBJ_TIME_TIMER: 100 dN / dTo with dN = 1e6, dTo = 4e6: 25 %. */
    o.value = 0;
    n.value = 1000000;
    n.obj_time = 5000000;
    EXPECT(0x20610500, &o, &n, PCQ_CALC_OK, 25.0);
    /* PRECISION_OBJECT_TIMER: the spec's PerfTimeId: the same 25 %. Without a
     * PerfTimeId value, PDH's base: dB = 2e6 -> 100 * 1e6 / 2e6 = 50 %. */
    EXPECT(0x20670500, &o, &n, PCQ_CALC_OK, 25.0);
    o.have = n.have = PCQ_CALC_HAVE_BASE;
    o.base = 3000000;
    n.base = 5000000;
    EXPECT(0x20670500, &o, &n, PCQ_CALC_OK, 50.0);

    /* PRECISION_SYSTEM_TIMER / PRECISION_100NS_TIMER: 100 dN / dB,
     * dN = 300, dB = 1200: 25 %. */
    o = SB(100, 10000, T0, F);
    n = SB(400, 11200, T1, F);
    EXPECT(0x20470500, &o, &n, PCQ_CALC_OK, 25.0);
    EXPECT(0x20570500, &o, &n, PCQ_CALC_OK, 25.0);
    /* SAMPLE_FRACTION: 100 dN / dB = 100 * 300 / 1200 = 25 %. */
    EXPECT(0x20C20400, &o, &n, PCQ_CALC_OK, 25.0);
    /* AVERAGE_BULK: dN / dB = 300 / 1200 = 0.25. */
    EXPECT(0x40020500, &o, &n, PCQ_CALC_OK, 0.25);
    /* AVERAGE_TIMER: (dN / F) / dB = (300 / 1e7) / 1200 = 2.5e-8 s. */
    EXPECT(0x30020400, &o, &n, PCQ_CALC_OK, 2.5e-8);
    /* AVERAGE_TIMER, a disk: 80 transfers took 2,000,000 ticks = 0.2 s: 2.5 ms each. */
    o = SB(0, 100, T0, F);
    n = SB(2000000, 180, T1, F);
    EXPECT(0x30020400, &o, &n, PCQ_CALC_OK, 0.0025);

    /* RAW_FRACTION / LARGE_RAW_FRACTION: 100 N / B = 100 * 30 / 120 = 25 %,
     * from the newer sample alone. */
    n = SB(30, 120, T1, F);
    EXPECT(0x20020400, NULL, &n, PCQ_CALC_OK, 25.0);
    EXPECT(0x20020500, NULL, &n, PCQ_CALC_OK, 25.0);

    /* MULTI_TIMER (decision: no F term, as PDH): 100 (dN / dT) / M, with
     * dN = 15e6 busy ticks over 4 CPUs in dT = 1e7: 100 * 1.5 / 4 = 37.5 %. */
    o = S(0, T0, N0, F);
    n = S(15000000, T1, N1, F);
    o.multi = n.multi = 4;
    o.have = n.have = PCQ_CALC_HAVE_MULTI;
    EXPECT(0x22410500, &o, &n, PCQ_CALC_OK, 37.5);
    EXPECT(0x22510500, &o, &n, PCQ_CALC_OK, 37.5);
    /* MULTI_TIMER_INV (decision: divided by M): 15e6 idle ticks over 4 CPUs:
     * 100 (4 - 1.5) / 4 = 62.5 %. */
    EXPECT(0x23410500, &o, &n, PCQ_CALC_OK, 62.5);
    EXPECT(0x23510500, &o, &n, PCQ_CALC_OK, 62.5);

    /* ELAPSED_TIME: (To - N) / Fo: started at tick 1,000,000; now 31,000,000
     * at Fo = 10,000,000/s: 3 s. One sample. */
    n = S(1000000, T1, N1, F);
    n.obj_time = 31000000;
    n.obj_freq = 10000000;
    n.have = PCQ_CALC_HAVE_TIME | PCQ_CALC_HAVE_FREQ;
    EXPECT(0x30240500, NULL, &n, PCQ_CALC_OK, 3.0);
}

/* ------------------------------------------------------------------------ */
/* Statuses                                                                 */
/* ------------------------------------------------------------------------ */
static void test_statuses(void)
{
    const uint64_t F = 10000000u, T0 = 5000000000u, T1 = T0 + 10000000u;
    pcq_calc_sample o = S(1000, T0, 100, F), n = S(1500, T1, 200, F), x;
    double v = 0.0;
    unsigned notes = 0;

    /* Needs a second sample. */
    EXPECT(0x10410400, NULL, &n, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    x = SB(1500, 10, T1, F);
    EXPECT(0x40020500, NULL, &x, PCQ_CALC_NEED_SECOND_SAMPLE, 0);   /* no DELTA bit */
    EXPECT(0x00010000, NULL, NULL, PCQ_CALC_NEED_SECOND_SAMPLE, 0); /* nothing at all */
    /* The time went backwards: negative denominator; no time elapsed: zero. */
    x = n;
    x.time = T0 - 1;
    EXPECT(0x10410400, &o, &x, PCQ_CALC_NEGATIVE_DENOMINATOR, 0);
    x = n;
    x.time = T0;
    EXPECT(0x10410400, &o, &x, PCQ_CALC_ZERO_DENOMINATOR, 0);
    x = n;
    x.time_100ns = 100;
    EXPECT(0x20510500, &o, &x, PCQ_CALC_ZERO_DENOMINATOR, 0);
    /* A base that went backwards (64-bit: no wrap). */
    o = SB(100, 5000, T0, F);
    n = SB(200, 4000, T1, F);
    o.base_size = n.base_size = 8;
    EXPECT(0x20570500, &o, &n, PCQ_CALC_NEGATIVE_DENOMINATOR, 0);
    EXPECT(0x40020500, &o, &n, PCQ_CALC_NEGATIVE_DENOMINATOR, 0);
    /* A count base that did not move: no events, 0 (as PDH shows an idle disk). */
    n.base = 5000;
    EXPECT(0x40020500, &o, &n, PCQ_CALC_OK, 0.0);
    EXPECT(0x30020400, &o, &n, PCQ_CALC_OK, 0.0);
    /* A clock base that did not move: no interval. */
    EXPECT(0x20570500, &o, &n, PCQ_CALC_ZERO_DENOMINATOR, 0);
    /* Zero frequency: bad time base. */
    o = S(1000, T0, 100, 0);
    n = S(1500, T1, 200, 0);
    EXPECT(0x10410400, &o, &n, PCQ_CALC_BAD_TIME_BASE, 0);
    n = SB(100, 10, T1, 0);
    o = SB(0, 0, T0, 0);
    EXPECT(0x30020400, &o, &n, PCQ_CALC_BAD_TIME_BASE, 0);
    n = S(5, T1, 0, F);
    n.obj_time = 10;
    n.obj_freq = 0;
    n.have = PCQ_CALC_HAVE_TIME | PCQ_CALC_HAVE_FREQ;
    EXPECT(0x30240500, NULL, &n, PCQ_CALC_BAD_TIME_BASE, 0);
    /* ELAPSED_TIME started after "now": negative, a status, not a number. */
    n.obj_freq = 10;
    n.value = 20;
    EXPECT(0x30240500, NULL, &n, PCQ_CALC_NEGATIVE_VALUE, 0);
    /* The counter went backwards (a reset of a 64-bit counter). */
    o = S(1000, T0, 100, F);
    n = S(999, T1, 200, F);
    o.value_size = n.value_size = 8;
    EXPECT(0x10410500, &o, &n, PCQ_CALC_WENT_BACKWARDS, 0);
    EXPECT(0x20510500, &o, &n, PCQ_CALC_WENT_BACKWARDS, 0);
    /* Missing related counters: base, PerfTimeId, PerfFreqId, MultiId. */
    o = S(1, T0, 100, F);
    n = S(2, T1, 200, F);
    EXPECT(0x40020500, &o, &n, PCQ_CALC_MISSING_RELATED, 0);
    EXPECT(0x20020400, NULL, &n, PCQ_CALC_MISSING_RELATED, 0);
    EXPECT(0x20610500, &o, &n, PCQ_CALC_MISSING_RELATED, 0);
    EXPECT(0x20670500, &o, &n, PCQ_CALC_MISSING_RELATED, 0);
    EXPECT(0x22510500, &o, &n, PCQ_CALC_MISSING_RELATED, 0);
    n.have = PCQ_CALC_HAVE_TIME;
    EXPECT(0x30240500, NULL, &n, PCQ_CALC_MISSING_RELATED, 0);
    n.have = PCQ_CALC_HAVE_MULTI; /* present in the newer only */
    EXPECT(0x22510500, &o, &n, PCQ_CALC_MISSING_RELATED, 0);
    /* MultiId of 0. */
    o.have = PCQ_CALC_HAVE_MULTI;
    n.multi = 0;
    EXPECT(0x22510500, &o, &n, PCQ_CALC_ZERO_DENOMINATOR, 0);
    /* Not displayable (bases, NODATA), not numeric, unknown. */
    EXPECT(0x40030402, &o, &n, PCQ_CALC_NOT_DISPLAYABLE, 0);
    EXPECT(0x40030500, &o, &n, PCQ_CALC_NOT_DISPLAYABLE, 0);
    EXPECT(0x42030500, &o, &n, PCQ_CALC_NOT_DISPLAYABLE, 0);
    EXPECT(0x40000200, &o, &n, PCQ_CALC_NOT_DISPLAYABLE, 0);
    EXPECT(0x00000B00, &o, &n, PCQ_CALC_NOT_NUMERIC, 0);
    EXPECT(0x12345678, &o, &n, PCQ_CALC_UNKNOWN_TYPE, 0);
    EXPECT(0x40030503, &o, &n, PCQ_CALC_UNKNOWN_TYPE, 0);
    /* A value that is not 4 or 8 bytes. */
    n = S(2, T1, 200, F);
    n.value_size = 2;
    EXPECT(0x00010000, NULL, &n, PCQ_CALC_BAD_VALUE_SIZE, 0);
    /* DefaultScale out of range, unless NOSCALE. */
    n.value_size = 4;
    TL_CHECK(pcq_calc_value(0x00010000, 11, NULL, &n, 0, &v, NULL) == PCQ_CALC_BAD_SCALE, "scale 11");
    TL_CHECK(pcq_calc_value(0x00010000, -2147483647 - 1, NULL, &n, 0, &v, NULL) == PCQ_CALC_BAD_SCALE,
             "scale INT32_MIN");
    TL_CHECK(pcq_calc_value(0x00010000, 11, NULL, &n, PCQ_CALC_NOSCALE, &v, NULL) == PCQ_CALC_OK && v == 2.0,
             "scale 11 ignored with NOSCALE");
    /* Inverse timer where idle > elapsed (skew): capped to 0 by default,
     * a negative-value status with NOCAP100. */
    o = S(0, T0, 100, F);
    n = S(11000000, T1, 10000100, F);
    TL_CHECK(pcq_calc_value(0x21510500, 0, &o, &n, 0, &v, &notes) == PCQ_CALC_OK && v == 0.0 &&
                 (notes & PCQ_CALC_NOTE_CAPPED),
             "INV below 0 capped to 0: %g", v);
    EXPECT(0x21510500, &o, &n, PCQ_CALC_NEGATIVE_VALUE, 0);
}

/* ------------------------------------------------------------------------ */
/* Scale and format flags                                                   */
/* ------------------------------------------------------------------------ */
static void test_flags(void)
{
    const uint64_t F = 10000000u, T0 = 5000000000u, T1 = T0 + 10000000u;
    pcq_calc_sample o, n = S(10, T1, 0, F);
    double v = 0.0;
    unsigned notes = 0;

    /* §2.2.4.2: 10 with DefaultScale 2 gives 1000. */
    TL_CHECK(pcq_calc_value(0x00010000, 2, NULL, &n, 0, &v, NULL) == PCQ_CALC_OK && v == 1000.0,
             "10 x 10^2 = 1000, got %g", v);
    /* NOSCALE: 10. x1000: 10 x 10^2 x 1000 = 1e6. */
    TL_CHECK(pcq_calc_value(0x00010000, 2, NULL, &n, PCQ_CALC_NOSCALE, &v, NULL) == PCQ_CALC_OK && v == 10.0,
             "NOSCALE: %g", v);
    TL_CHECK(pcq_calc_value(0x00010000, 2, NULL, &n, PCQ_CALC_X1000, &v, NULL) == PCQ_CALC_OK && v == 1e6,
             "x1000: %g", v);
    /* Negative scale: 10 x 10^-1 = 1 exactly; 10 x 10^-10 = 1e-9. */
    TL_CHECK(pcq_calc_value(0x00010000, -1, NULL, &n, 0, &v, NULL) == PCQ_CALC_OK && v == 1.0,
             "10 x 10^-1: %.17g", v);
    TL_CHECK(pcq_calc_value(0x00010000, -10, NULL, &n, 0, &v, NULL) == PCQ_CALC_OK && near(v, 1e-9),
             "10 x 10^-10: %.17g", v);
    TL_CHECK(pcq_calc_scale_factor(10) == 1e10 && pcq_calc_scale_factor(11) == 0.0, "factor");

    /* Cap at 100: 4 CPUs of busy time over one second in a 100NSEC_TIMER
     * (a process): 100 * 4e7 / 1e7 = 400 %; capped to 100 unless NOCAP100. */
    o = S(0, T0, 0, F);
    n = S(40000000, T1, 10000000, F);
    TL_CHECK(pcq_calc_value(0x20510500, 0, &o, &n, 0, &v, &notes) == PCQ_CALC_OK && v == 100.0 &&
                 notes == PCQ_CALC_NOTE_CAPPED,
             "capped: %g", v);
    TL_CHECK(pcq_calc_value(0x20510500, 0, &o, &n, PCQ_CALC_NOCAP100, &v, &notes) == PCQ_CALC_OK &&
                 v == 400.0 && notes == 0,
             "NOCAP100: %g", v);
    /* The cap comes before the scale: 400 % capped to 100, x 10^1 = 1000. */
    TL_CHECK(pcq_calc_value(0x20510500, 1, &o, &n, 0, &v, NULL) == PCQ_CALC_OK && v == 1000.0,
             "cap then scale: %g", v);
    /* Non-percent types are never capped: 4e7 / 1 s = 4e7 /sec. */
    TL_CHECK(pcq_calc_value(0x10410500, 0, &o, &n, 0, &v, NULL) == PCQ_CALC_OK && v == 4e7, "rate");
}

/* ------------------------------------------------------------------------ */
/* 32-bit wrap and reset (NOTES §7)                                          */
/* ------------------------------------------------------------------------ */
static void test_wrap(void)
{
    const uint64_t F = 10000000u, T0 = 5000000000u, T1 = T0 + 10000000u;
    pcq_calc_sample o, n;
    double v = 0.0;
    unsigned notes = 0;

    /* COUNTER_COUNTER (4 bytes) from 4,294,967,000 to 704 in 1 s: modulo 2^32
     * the delta is 4,294,967,296 - 4,294,967,000 + 704 = 1000 -> 1000 /sec. */
    o = S(4294967000u, T0, 0, F);
    n = S(704, T1, 0, F);
    TL_CHECK(pcq_calc_value(0x10410400, 0, &o, &n, 0, &v, &notes) == PCQ_CALC_OK && v == 1000.0 &&
                 (notes & PCQ_CALC_NOTE_WRAPPED),
             "wrap: %g notes %u", v, notes);
    /* With NOWRAP32 the same pair is a reset. */
    TL_CHECK(pcq_calc_value(0x10410400, 0, &o, &n, PCQ_CALC_NOWRAP32, &v, &notes) == PCQ_CALC_WENT_BACKWARDS,
             "NOWRAP32: reset");
    /* A reset: 5,000,000 down to 1,000. Modulo 2^32 that would be a forward move
     * of 4,290,968,296 >= 2^31: not a wrap. */
    o = S(5000000, T0, 0, F);
    n = S(1000, T1, 0, F);
    TL_CHECK(pcq_calc_value(0x10410400, 0, &o, &n, 0, &v, &notes) == PCQ_CALC_WENT_BACKWARDS,
             "reset, not wrap");
    /* Only 4-byte values wrap: the same numbers in an 8-byte value are a reset. */
    o = S(4294967000u, T0, 0, F);
    n = S(704, T1, 0, F);
    o.value_size = n.value_size = 8;
    TL_CHECK(pcq_calc_value(0x10410400, 0, &o, &n, 0, &v, NULL) == PCQ_CALC_WENT_BACKWARDS,
             "8-byte values never wrap");
    /* A value_size of 0 takes the width from the type: BULK_COUNT is 8 bytes. */
    o.value_size = n.value_size = 0;
    TL_CHECK(pcq_calc_value(0x10410500, 0, &o, &n, 0, &v, NULL) == PCQ_CALC_WENT_BACKWARDS,
             "BULK_COUNT is 64-bit");
    /* A 32-bit AVERAGE_BASE under a 64-bit AVERAGE_BULK ("% Processor Utility"):
     * base from 4,294,800,000 to 457,704: 457,704 + 2^32 - 4,294,800,000 = 625,000;
     * dN = 46,875,000; 46,875,000 / 625,000 = 75. */
    o = SB(1000000000000u, 4294800000u, T0, F);
    n = SB(1000046875000u, 457704, T1, F);
    o.base_size = n.base_size = 4;
    TL_CHECK(pcq_calc_value(0x40020500, 0, &o, &n, 0, &v, &notes) == PCQ_CALC_OK && v == 75.0 &&
                 notes == PCQ_CALC_NOTE_WRAPPED,
             "base wrap: %g", v);
    /* base_size 0: AVERAGE_BASE is 32-bit by the §2.2.4.2 table. */
    o.base_size = n.base_size = 0;
    TL_CHECK(pcq_calc_value(0x40020500, 0, &o, &n, 0, &v, NULL) == PCQ_CALC_OK && v == 75.0,
             "base width from the table: %g", v);
    TL_CHECK(pcq_calc_value(0x40020500, 0, &o, &n, PCQ_CALC_NOWRAP32, &v, NULL) ==
                 PCQ_CALC_NEGATIVE_DENOMINATOR,
             "base reset with NOWRAP32");
}

/* ------------------------------------------------------------------------ */
/* Never NaN or infinity, whatever the input                                 */
/* ------------------------------------------------------------------------ */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s ^ (*s >> 29);
}

static uint64_t pick(uint64_t *s)
{
    static const uint64_t edge[] = {0,
                                    1,
                                    2,
                                    0x7FFFFFFFu,
                                    0x80000000u,
                                    0xFFFFFFFFu,
                                    0x100000000u,
                                    0x7FFFFFFFFFFFFFFFu,
                                    0x8000000000000000u,
                                    0xFFFFFFFFFFFFFFFFu};
    uint64_t r = lcg(s);
    return (r & 3) == 0 ? lcg(s) : edge[(r >> 8) % (sizeof edge / sizeof edge[0])];
}

static void test_never_nan(void)
{
    uint64_t seed = 12345;
    unsigned long bad = 0, i;
    static const unsigned flags[] = {0, PCQ_CALC_NOCAP100, PCQ_CALC_X1000 | PCQ_CALC_NOCAP100,
                                     PCQ_CALC_NOWRAP32};
    for (i = 0; i < 200000; i++) {
        const pcq_calc_type *d = pcq_calc_type_at((size_t)(lcg(&seed) % 38));
        pcq_calc_sample o, n;
        double v = 0.0;
        int32_t scale = (int32_t)(lcg(&seed) % 23) - 11;
        int st;
        memset(&o, 0, sizeof o);
        memset(&n, 0, sizeof n);
        o.value = pick(&seed);
        n.value = pick(&seed);
        o.base = pick(&seed);
        n.base = pick(&seed);
        o.obj_time = pick(&seed);
        n.obj_time = pick(&seed);
        o.obj_freq = n.obj_freq = pick(&seed);
        o.multi = n.multi = pick(&seed);
        o.time = pick(&seed);
        n.time = pick(&seed);
        o.time_100ns = pick(&seed);
        n.time_100ns = pick(&seed);
        o.freq = n.freq = pick(&seed);
        o.value_size = n.value_size = (uint8_t)((lcg(&seed) % 3) * 4);
        o.base_size = n.base_size = (uint8_t)((lcg(&seed) % 3) * 4);
        o.have = n.have = (uint8_t)(lcg(&seed) & 15);
        st = pcq_calc_value(d->type, scale, (lcg(&seed) & 7) ? &o : NULL, &n, flags[lcg(&seed) % 4], &v,
                            NULL);
        if (st == PCQ_CALC_OK && !isfinite(v)) bad++;
        if (st < 0 || st >= PCQ_CALC_STATUS_END_) bad++;
    }
    TL_CHECK(bad == 0, "%lu non-finite results or bad statuses", bad);
}

/* ------------------------------------------------------------------------ */
/* Display                                                                  */
/* ------------------------------------------------------------------------ */
static void fmt_is(int line, double v, uint32_t type, uint64_t attrib, const char *want)
{
    char got[PCQ_CALC_TEXT_SIZE];
    size_t n = pcq_calc_format(v, type, attrib, got, sizeof got);
    tl_check(strcmp(got, want) == 0 && n == strlen(want), "line %d: format %g: \"%s\", want \"%s\"", line, v,
             got, want);
}
#define FMT(v, type, attrib, want) fmt_is(__LINE__, v, type, attrib, want)

static void test_format(void)
{
    char small[6];
    size_t n;
    FMT(1234567.0, 0x00010000, 0, "1,234,567");       /* RAWCOUNT */
    FMT(1234567.0, 0x00010000, 0x4, "1234567");       /* no group separator */
    FMT(1234567.0, 0x00010000, 0x8, "1,234,567.000"); /* display as real */
    FMT(255.0, 0x00010000, 0x10, "0xff");             /* display as hex */
    FMT(255.0, 0x00000000, 0, "0xff");                /* RAWCOUNT_HEX */
    FMT(75.0, 0x21510500, 0, "75.000 %");
    FMT(1500.5, 0x10410400, 0, "1,500.500 /sec");
    FMT(0.0025, 0x30020400, 0, "0.003 s");
    FMT(-1234.5, 0x40020500, 0, "-1,234.500");
    FMT(999.0, 0x00010000, 0, "999");
    FMT(1000.0, 0x00010000, 0, "1,000");
    FMT(0.5, 0x00010000, 0, "0.500"); /* scaled: no longer integral */
    FMT(12.0, 0x00010000, 0x2, "");   /* no display */
    FMT(1e300, 0x10410500, 0, "1.000000e+300 /sec");
    n = pcq_calc_format(1234567.0, 0x00010000, 0, small, sizeof small);
    TL_CHECK(n == 9 && strcmp(small, "1,234") == 0, "truncated: \"%s\" %zu", small, n);
    TL_CHECK(pcq_calc_format(1.0, 0x00010000, 0, NULL, 0) == 1, "sizing with cap 0");
}

/* ------------------------------------------------------------------------ */
/* Buffers for cooking, laid out as Windows writes them (NOTES §2; Figures   */
/* 5-9 of §3.1.4.1.6): every structure padded to 8, a _PERF_COUNTER_DATA of  */
/* 16 bytes for a 4- or 8-byte value, sizes that include the padding.        */
/* ------------------------------------------------------------------------ */
#ifndef WBUF_SIZE
#define WBUF_SIZE 16384
#endif
typedef struct wbuf {
    uint8_t b[WBUF_SIZE];
    size_t n;
} wbuf;

static void put32(wbuf *w, uint32_t v)
{
    int i;
    for (i = 0; i < 4; i++) w->b[w->n++] = (uint8_t)(v >> (8 * i));
}
static void put64(wbuf *w, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++) w->b[w->n++] = (uint8_t)(v >> (8 * i));
}
static void pad8(wbuf *w)
{
    while (w->n % 8) w->b[w->n++] = 0;
}
static void patch32(wbuf *w, size_t at, uint32_t v)
{
    int i;
    for (i = 0; i < 4; i++) w->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* _PERF_COUNTERSET_REG_INFO (§2.2.4.1): GUID of "Processor Information". */
static void info_begin(wbuf *w, uint32_t ncounters, uint32_t instance_type)
{
    static const uint8_t guid[16] = {0x1a, 0x72, 0xfc, 0xb4, 0x78, 0x03, 0x6f, 0x47,
                                     0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0x0b, 0x36};
    w->n = 0;
    memcpy(w->b, guid, 16);
    w->n = 16;
    put32(w, 0);   /* CounterSetType */
    put32(w, 100); /* DetailLevel */
    put32(w, ncounters);
    put32(w, instance_type);
}

/* _PERF_COUNTER_REG_INFO (§2.2.4.2), 48 bytes. */
static void info_counter(wbuf *w, uint32_t id, uint32_t type, uint64_t attrib, int32_t scale, uint32_t base,
                         uint32_t time, uint32_t freq, uint32_t multi, uint32_t agg)
{
    put32(w, id);
    put32(w, type);
    put64(w, attrib);
    put32(w, 100);
    put32(w, (uint32_t)scale);
    put32(w, base);
    put32(w, time);
    put32(w, freq);
    put32(w, multi);
    put32(w, agg);
    put32(w, 0);
}

/* _PERF_DATA_HEADER (§2.2.4.7): sizes patched by data_end. */
static void data_begin(wbuf *w, uint64_t t, uint64_t t100, uint64_t f)
{
    int i;
    w->n = 0;
    put32(w, 0);
    put32(w, 0);
    put64(w, t);
    put64(w, t100);
    put64(w, f);
    for (i = 0; i < 8; i++) {
        w->b[w->n++] = (uint8_t)(i == 0 ? 0xe8 : i == 1 ? 0x07 : 1);
        w->b[w->n++] = 0;
    }
}
static void data_end(wbuf *w, uint32_t nblocks)
{
    patch32(w, 0, (uint32_t)w->n);
    patch32(w, 4, nblocks);
}
static size_t block_begin(wbuf *w, uint32_t type)
{
    size_t at = w->n;
    put32(w, 0); /* dwStatus */
    put32(w, type);
    put32(w, 0); /* dwSize, patched */
    put32(w, 0);
    return at;
}
static void block_end(wbuf *w, size_t at)
{
    pad8(w);
    patch32(w, at + 8, (uint32_t)(w->n - at));
}
/* _PERF_MULTI_COUNTERS + ids, dwSize including the padding. */
static void multi_counters(wbuf *w, const uint32_t *ids, uint32_t n)
{
    size_t at = w->n;
    uint32_t i;
    put32(w, 0);
    put32(w, n);
    for (i = 0; i < n; i++) put32(w, ids[i]);
    pad8(w);
    patch32(w, at, (uint32_t)(w->n - at));
}
static size_t multi_instances_begin(wbuf *w)
{
    size_t at = w->n;
    put32(w, 0);
    put32(w, 0);
    return at;
}
static void multi_instances_end(wbuf *w, size_t at, uint32_t n)
{
    patch32(w, at, (uint32_t)(w->n - at));
    patch32(w, at + 4, n);
}
/* _PERF_INSTANCE_HEADER + UTF-16LE name + NUL, padded to 8. */
static void instance(wbuf *w, uint32_t id, const char *name)
{
    size_t at = w->n, i;
    put32(w, 0);
    put32(w, id);
    for (i = 0; i <= strlen(name); i++) {
        w->b[w->n++] = (uint8_t)name[i];
        w->b[w->n++] = 0;
    }
    pad8(w);
    patch32(w, at, (uint32_t)(w->n - at));
}
static void value32(wbuf *w, uint32_t v)
{
    put32(w, 4);
    put32(w, 16);
    put32(w, v);
    put32(w, 0);
}
static void value64(wbuf *w, uint64_t v)
{
    put32(w, 8);
    put32(w, 16);
    put64(w, v);
}

static int decode_info(const wbuf *w, pcq_counterset_info *info)
{
    pcq_error e;
    int rc = pcq_decode_counterset_info(w->b, w->n, NULL, info, &e);
    TL_CHECK(rc == PCQ_OK, "info decodes: %s at %zu (%s)", pcq_status_name(rc), e.offset,
             e.what ? e.what : "");
    return rc;
}
static int decode_data(const wbuf *w, pcq_data *d)
{
    pcq_error e;
    int rc = pcq_decode_data(w->b, w->n, NULL, d, &e);
    TL_CHECK(rc == PCQ_OK, "data decodes: %s at %zu (%s)", pcq_status_name(rc), e.offset,
             e.what ? e.what : "");
    return rc;
}

/* The row of counter id for instance name (NULL: single instance; "" with
 * aggregate: the aggregate row), dup n. */
static const pcq_calc_row *row_of(const pcq_calc_row *rows, size_t n, uint32_t id, const char *name,
                                  uint32_t dup, int aggregate)
{
    size_t i, k;
    for (i = 0; i < n; i++) {
        const pcq_calc_row *r = &rows[i];
        if (r->counter_id != id || r->is_aggregate != aggregate) continue;
        if (aggregate) return r;
        if (name == NULL ? r->has_instance : !r->has_instance) continue;
        if (name != NULL) {
            if (r->instance.len != 2 * strlen(name) || r->dup_index != dup) continue;
            for (k = 0; k < strlen(name); k++)
                if (r->instance.ptr[2 * k] != (uint8_t)name[k] || r->instance.ptr[2 * k + 1] != 0) break;
            if (k != strlen(name)) continue;
        }
        return r;
    }
    return NULL;
}

static void row_is(int line, const pcq_calc_row *rows, size_t n, uint32_t id, const char *name, uint32_t dup,
                   int aggregate, int status, double value)
{
    const pcq_calc_row *r = row_of(rows, n, id, name, dup, aggregate);
    if (!tl_check(r != NULL, "line %d: no row for counter %u instance %s#%u", line, (unsigned)id,
                  name ? name : "(none)", (unsigned)dup))
        return;
    tl_check(r->status == status, "line %d: counter %u %s: status %s, want %s", line, (unsigned)id,
             name ? name : "", pcq_calc_status_name(r->status), pcq_calc_status_name(status));
    if (status == PCQ_CALC_OK)
        tl_check(near(r->value, value), "line %d: counter %u %s: %.17g, want %.17g", line, (unsigned)id,
                 name ? name : "", r->value, value);
}
#define ROW(id, name, dup, st, val) row_is(__LINE__, rows, n, id, name, dup, 0, st, val)
#define AGG(id, st, val)            row_is(__LINE__, rows, n, id, NULL, 0, 1, st, val)

/* ------------------------------------------------------------------------ */
/* Cooking: "Processor Information" (NOTES §8), two samples one second apart */
/* ------------------------------------------------------------------------ */
enum {
    PI_N = 7
};
static const uint32_t pi_ids[PI_N] = {0, 3, 7, 21, 22, 24, 25};

static void pi_info(wbuf *w)
{
    info_begin(w, PI_N, 2);                                /* multiple instances */
    info_counter(w, 0, 0x21510500, 0, 0, 0, 0, 0, 0, 0);   /* % Processor Time */
    info_counter(w, 3, 0x10410400, 0, 0, 0, 0, 0, 0, 0);   /* Interrupts/sec */
    info_counter(w, 7, 0x00010000, 0, 0, 0, 0, 0, 0, 0);   /* Parking Status */
    info_counter(w, 21, 0x20570500, 0, 0, 22, 0, 0, 0, 0); /* % Idle Time (precision) */
    info_counter(w, 22, 0x40030500, 0, 0, 0, 0, 0, 0, 0);  /* its LARGE_RAW_BASE */
    info_counter(w, 24, 0x40020500, 0, 0, 25, 0, 0, 0, 0); /* % Processor Utility */
    info_counter(w, 25, 0x40030402, 0, 0, 0, 0, 0, 0, 0);  /* % Utility Base (32-bit) */
}

typedef struct pi_inst {
    const char *name;
    uint32_t id;
    uint64_t idle, intr, raw, prec, prec_base, util;
    uint32_t util_base;
} pi_inst;

static void pi_data(wbuf *w, uint64_t t, uint64_t t100, const pi_inst *in, size_t count)
{
    size_t b, mi, i;
    data_begin(w, t, t100, 10000000u);
    b = block_begin(w, 6); /* PERF_COUNTERSET */
    multi_counters(w, pi_ids, PI_N);
    mi = multi_instances_begin(w);
    for (i = 0; i < count; i++) {
        instance(w, in[i].id, in[i].name);
        value64(w, in[i].idle);
        value32(w, (uint32_t)in[i].intr);
        value32(w, (uint32_t)in[i].raw);
        value64(w, in[i].prec);
        value64(w, in[i].prec_base);
        value64(w, in[i].util);
        value32(w, in[i].util_base);
    }
    multi_instances_end(w, mi, (uint32_t)count);
    block_end(w, b);
    data_end(w, 1);
}

static void test_cook_processor_information(void)
{
    /* The older sample lists "0,1" first: matching must not rely on order. */
    static const pi_inst old_in[3] = {
        {"0,1", 1, 6000000000u, 2000, 4, 2000000000u, 8000000000u, 2000000000000u, 4294800000u},
        {"0,0", 0, 5000000000u, 1000, 3, 1000000000u, 8000000000u, 1000000000000u, 4294800000u},
        {"_Total", 2, 11000000000u, 3000, 7, 3000000000u, 8000000000u, 3000000000000u, 4294800000u}};
    /* One second later: dT100 = 10,000,000; the 32-bit utility base wrapped:
     * 4,294,800,000 + 625,000 - 2^32 = 457,704 (dB = 625,000). */
    static const pi_inst new_in[3] = {
        {"0,0", 0, 5002500000u, 1500, 3, 1006000000u, 8010000000u, 1000046875000u, 457704},
        {"0,1", 1, 6005000000u, 2250, 4, 2003000000u, 8010000000u, 2000031250000u, 457704},
        {"_Total", 2, 11003750000u, 3750, 7, 3004500000u, 8010000000u, 3000039062500u, 457704}};
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[128]; /* with room for working memory */
    size_t n = 0, need = 0;
    pcq_error e;
    int rc;

    pi_info(&wi);
    pi_data(&wo, 5000000000u, 133000000000000000u, old_in, 3);
    pi_data(&wn, 5010000000u, 133000000010000000u, new_in, 3);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, PCQ_CALC_NOCAP100, rows, CAP(rows), &n, &e);
    TL_CHECK(rc == PCQ_OK && n == 21, "cook: %s, %zu rows", pcq_status_name(rc), n);
    /* % Processor Time = 100 (1 - d idle / dT100):
     * 0,0: 100 (1 - 2,500,000 / 10,000,000) = 75; 0,1: 1 - 0.5 -> 50;
     * _Total: 1 - 0.375 -> 62.5. */
    ROW(0, "0,0", 0, PCQ_CALC_OK, 75.0);
    ROW(0, "0,1", 0, PCQ_CALC_OK, 50.0);
    ROW(0, "_Total", 0, PCQ_CALC_OK, 62.5);
    /* Interrupts/sec = dN / (dT / F), dT / F = 10,000,000 / 10,000,000 = 1 s. */
    ROW(3, "0,0", 0, PCQ_CALC_OK, 500.0);
    ROW(3, "0,1", 0, PCQ_CALC_OK, 250.0);
    ROW(3, "_Total", 0, PCQ_CALC_OK, 750.0);
    ROW(7, "0,1", 0, PCQ_CALC_OK, 4.0);
    /* PRECISION_100NS_TIMER over its LARGE_RAW_BASE: 100 * 6e6 / 1e7 = 60. */
    ROW(21, "0,0", 0, PCQ_CALC_OK, 60.0);
    ROW(21, "0,1", 0, PCQ_CALC_OK, 30.0);
    ROW(22, "0,0", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);
    /* % Processor Utility = dN / dB over the wrapped 32-bit base:
     * 46,875,000 / 625,000 = 75; 31,250,000 / 625,000 = 50; 39,062,500 / 625,000 = 62.5. */
    ROW(24, "0,0", 0, PCQ_CALC_OK, 75.0);
    ROW(24, "0,1", 0, PCQ_CALC_OK, 50.0);
    ROW(24, "_Total", 0, PCQ_CALC_OK, 62.5);
    ROW(25, "_Total", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);
    TL_CHECK(row_of(rows, n, 24, "0,0", 0, 0) != NULL &&
                 (row_of(rows, n, 24, "0,0", 0, 0)->notes & PCQ_CALC_NOTE_WRAPPED),
             "wrap noted");

    /* One sample only: rates need a second; raw counts do not. */
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, &e);
    TL_CHECK(rc == PCQ_OK && n == 21, "one sample: %s", pcq_status_name(rc));
    ROW(0, "0,0", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    ROW(24, "0,1", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    ROW(7, "_Total", 0, PCQ_CALC_OK, 7.0);

    /* Capacity: too small reports the rows needed (the 21 it returns, and the
     * working memory its indexes take past them: the data lists the counters
     * out of counterset order); a sizing call with NULL; one row short. */
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, 5, &n, &e);
    TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && n >= 21, "too small: %s %zu", pcq_status_name(rc), n);
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, NULL, 0, &need, NULL);
    TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && need == n, "sizing: %s %zu", pcq_status_name(rc), need);
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, need - 1, &n, NULL);
    TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && n == need, "one row short: %s %zu", pcq_status_name(rc), n);
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, need, &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 21, "what sizing said: %s %zu rows", pcq_status_name(rc), n);
}

/* ------------------------------------------------------------------------ */
/* Cooking: duplicate names and aggregation (InstanceType 4, §2.2.4.1)       */
/* ------------------------------------------------------------------------ */
typedef struct ag_inst {
    const char *name;
    uint32_t id, c1, c2, c3, c4, c5;
} ag_inst;

static void ag_data(wbuf *w, uint64_t t, const ag_inst *in, size_t count)
{
    static const uint32_t ids[5] = {1, 2, 3, 4, 5};
    size_t b, mi, i;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, ids, 5);
    mi = multi_instances_begin(w);
    for (i = 0; i < count; i++) {
        instance(w, in[i].id, in[i].name);
        value32(w, in[i].c1);
        value32(w, in[i].c2);
        value32(w, in[i].c3);
        value32(w, in[i].c4);
        value32(w, in[i].c5);
    }
    multi_instances_end(w, mi, (uint32_t)count);
    block_end(w, b);
    data_end(w, 1);
}

static void test_cook_duplicates_and_aggregates(void)
{
    /* Two "java" instances (ids 100 and 200), listed in another order in each
     * sample; "new" appears only in the newer sample. */
    static const ag_inst old_in[3] = {{"java", 100, 0, 100, 0, 0, 0},
                                      {"java", 200, 0, 1000, 0, 0, 0},
                                      {"svc", 5, 0, 0, 0, 0, 0}};
    static const ag_inst new_in[4] = {{"java", 200, 10, 1100, 6, 1, 0},
                                      {"svc", 5, 20, 30, 7, 2, 0},
                                      {"java", 100, 30, 150, 5, 3, 0},
                                      {"new", 9, 40, 7, 8, 4, 0}};
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[128]; /* with room for working memory */
    size_t n = 0;
    int rc;

    info_begin(&wi, 5, 4);                                 /* global aggregate */
    info_counter(&wi, 1, 0x00010000, 0, 0, 0, 0, 0, 0, 1); /* total */
    info_counter(&wi, 2, 0x10410400, 0, 0, 0, 0, 0, 0, 2); /* average */
    info_counter(&wi, 3, 0x00010000, 0, 0, 0, 0, 0, 0, 3); /* minimum */
    info_counter(&wi, 4, 0x00010000, 0, 1, 0, 0, 0, 0, 4); /* maximum, DefaultScale 1 */
    info_counter(&wi, 5, 0x00010000, 0, 0, 0, 0, 0, 0, 0); /* undefined: no aggregate */
    ag_data(&wo, 1000000, old_in, 3);
    ag_data(&wn, 1001000, new_in, 4); /* dT / F = 1000 / 1000 = 1 s */
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 4 * 5 + 4, "cook: %s, %zu rows", pcq_status_name(rc), n);
    /* name#n ordered by InstanceId: java (100) is java#0, java (200) is java#1,
     * although the newer sample lists id 200 first. */
    ROW(1, "java", 0, PCQ_CALC_OK, 30.0);
    ROW(1, "java", 1, PCQ_CALC_OK, 10.0);
    /* Matched by (InstanceId, name): java 100: (150 - 100) / 1 s = 50 /sec;
     * java 200: (1100 - 1000) / 1 s = 100 /sec; svc: 30 /sec; new: no older. */
    ROW(2, "java", 0, PCQ_CALC_OK, 50.0);
    ROW(2, "java", 1, PCQ_CALC_OK, 100.0);
    ROW(2, "svc", 0, PCQ_CALC_OK, 30.0);
    ROW(2, "new", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    /* Aggregates of the computed values: total 10 + 20 + 30 + 40 = 100;
     * average of the three OK rates (50 + 100 + 30) / 3 = 60; min of 6, 7, 5, 8 = 5;
     * max of 1, 2, 3, 4 with DefaultScale 1: 40. */
    AGG(1, PCQ_CALC_OK, 100.0);
    AGG(2, PCQ_CALC_OK, 60.0);
    AGG(3, PCQ_CALC_OK, 5.0);
    AGG(4, PCQ_CALC_OK, 40.0);
    TL_CHECK(row_of(rows, n, 5, NULL, 0, 1) == NULL, "no aggregate for AggregateFunc 0");
    TL_CHECK(row_of(rows, n, 2, NULL, 0, 1)->instances_used == 3, "3 instances averaged");
    /* No older sample: the average has no instance to work with. */
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    AGG(2, PCQ_CALC_NO_INSTANCE, 0);
    AGG(1, PCQ_CALC_OK, 100.0);
}

/* ------------------------------------------------------------------------ */
/* Cooking: a single-instance PERF_MULTI_COUNTERS block with related         */
/* counters (PerfTimeId, PerfFreqId, MultiId) and a missing base             */
/* ------------------------------------------------------------------------ */
static void related_data(wbuf *w, uint64_t t100, uint64_t to, uint64_t n13, uint64_t n15)
{
    static const uint32_t ids[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    size_t b;
    data_begin(w, 777, t100, 1000u);
    b = block_begin(w, 2); /* PERF_MULTI_COUNTERS */
    multi_counters(w, ids, 8);
    value64(w, to);      /* 10: object time */
    value64(w, 1000000); /* 11: object frequency */
    value64(w, 1000000); /* 12: start time */
    value64(w, n13);     /* 13: OBJ_TIME_TIMER */
    value32(w, 2);       /* 14: MultiId count */
    value64(w, n15);     /* 15: 100NSEC_MULTI_TIMER */
    value64(w, 5);       /* 16: AVERAGE_BULK, base 99 */
    /* 17: a text value of 6 bytes ("abc" in UTF-16LE), padded to 8. */
    put32(w, 6);
    put32(w, 16);
    put32(w, 0x00620061);
    put32(w, 0x00000063);
    block_end(w, b);
    data_end(w, 1);
}

static void test_cook_related(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[80]; /* with room for working memory */
    size_t n = 0;
    int rc;

    info_begin(&wi, 8, 0); /* single instance */
    info_counter(&wi, 10, 0x00010100, 0, 0, 0, 0, 0, 0, 0);
    info_counter(&wi, 11, 0x00010100, 0, 0, 0, 0, 0, 0, 0);
    info_counter(&wi, 12, 0x30240500, 0, 0, 0, 10, 11, 0, 0); /* ELAPSED_TIME */
    info_counter(&wi, 13, 0x20610500, 0, 0, 0, 10, 11, 0, 0); /* OBJ_TIME_TIMER */
    info_counter(&wi, 14, 0x00010000, 0, 0, 0, 0, 0, 0, 0);
    info_counter(&wi, 15, 0x22510500, 0, 0, 0, 0, 0, 14, 0); /* 100NSEC_MULTI_TIMER */
    info_counter(&wi, 16, 0x40020500, 0, 0, 99, 0, 0, 0, 0); /* base 99 does not exist */
    info_counter(&wi, 17, 0x00000B00, 0, 0, 0, 0, 0, 0, 0);  /* text */
    related_data(&wo, 100000000, 1000000, 0, 0);
    related_data(&wn, 110000000, 5000000, 1000000, 10000000);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 8, "cook: %s, %zu rows", pcq_status_name(rc), n);
    /* ELAPSED_TIME: (To - N) / Fo = (5,000,000 - 1,000,000) / 1,000,000 = 4 s. */
    ROW(12, NULL, 0, PCQ_CALC_OK, 4.0);
    /* OBJ_TIME_TIMER: 100 dN / dTo = 100 * 1,000,000 / 4,000,000 = 25 %. */
    ROW(13, NULL, 0, PCQ_CALC_OK, 25.0);
    /* 100NSEC_MULTI_TIMER: 100 (dN / dT100) / M = 100 (1e7 / 1e7) / 2 = 50 %. */
    ROW(15, NULL, 0, PCQ_CALC_OK, 50.0);
    ROW(16, NULL, 0, PCQ_CALC_MISSING_RELATED, 0);
    ROW(17, NULL, 0, PCQ_CALC_NOT_NUMERIC, 0);
    ROW(10, NULL, 0, PCQ_CALC_OK, 5000000.0);
}

/* ------------------------------------------------------------------------ */
/* Cooking: PERF_SINGLE_COUNTER blocks take their counter from the query's   */
/* identifiers (§2.2.4.6 Index), else block i is counter i of the info; a    */
/* counter the info lacks is an error                                        */
/* ------------------------------------------------------------------------ */
static void single_data(wbuf *w, uint64_t t, uint32_t v1, uint32_t v2)
{
    size_t b;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 1);
    value32(w, v1);
    block_end(w, b);
    b = block_begin(w, 0); /* PERF_ERROR_RETURN */
    patch32(w, b, 232);
    block_end(w, b);
    b = block_begin(w, 1);
    value32(w, v2);
    block_end(w, b);
    data_end(w, 3);
}

static void two_singles(wbuf *w, uint64_t t, uint32_t v1, uint32_t v2)
{
    size_t b;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 1);
    value32(w, v1);
    block_end(w, b);
    b = block_begin(w, 1);
    value32(w, v2);
    block_end(w, b);
    data_end(w, 2);
}

static void test_cook_single_blocks(void)
{
    wbuf wi, wo, wn, wbad;
    pcq_counterset_info info;
    pcq_data od, nd, bd;
    pcq_calc_row rows[72]; /* with room for working memory */
    pcq_identifier ids[2];
    size_t n = 0;
    pcq_error e;
    int rc;
    static const uint32_t bad_ids[2] = {1, 42};

    info_begin(&wi, 2, 0);
    info_counter(&wi, 1, 0x10410400, 0, 0, 0, 0, 0, 0, 0);
    info_counter(&wi, 2, 0x00010000, 0, 0, 0, 0, 0, 0, 0);
    single_data(&wo, 5000, 100, 7);
    single_data(&wn, 7000, 300, 9); /* 2 s later */
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    memset(ids, 0, sizeof ids);
    ids[0].counter_id = 1;
    ids[0].index = 0;
    ids[1].counter_id = 2;
    ids[1].index = 2; /* block 1 is the error */
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, rows, CAP(rows), &n, &e);
    TL_CHECK(rc == PCQ_OK && n == 2, "cook: %s, %zu rows", pcq_status_name(rc), n);
    /* (300 - 100) / (2000 / 1000 s) = 100 /sec. */
    ROW(1, NULL, 0, PCQ_CALC_OK, 100.0);
    ROW(2, NULL, 0, PCQ_CALC_OK, 9.0);
    /* Without identifiers, block i holds counter i of the info: block 0 is
     * counter 1, block 1 is the error block, block 2 would be a third counter
     * that the info does not have: error at that block (48 + 32 + 16). */
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, &e);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG && e.offset == 96, "no ids: %s at %zu", pcq_status_name(rc), e.offset);
    /* Two single blocks and no identifiers: counters 1 and 2 in order. */
    two_singles(&wo, 5000, 100, 7);
    two_singles(&wn, 7000, 300, 9);
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, &e);
    TL_CHECK(rc == PCQ_OK && n == 2, "cook without ids: %s, %zu rows", pcq_status_name(rc), n);
    /* (300 - 100) / (2000 / 1000 s) = 100 /sec; RAWCOUNT 9. */
    ROW(1, NULL, 0, PCQ_CALC_OK, 100.0);
    ROW(2, NULL, 0, PCQ_CALC_OK, 9.0);
    /* Regression (fuzz_cook): a block of the older sample that no identifier
     * names is passed over, not an error (the error's offset was in the
     * older buffer, though documented in the newer). Here the older's block 2
     * has no identifier: counter 1 (block 1 of the newer) meets no older
     * value; counter 2 is block 0 of both. */
    ids[0].counter_id = 2;
    ids[0].index = 0;
    ids[1].counter_id = 1;
    ids[1].index = 1;
    single_data(&wo, 5000, 100, 7);
    if (decode_data(&wo, &od)) return;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, rows, CAP(rows), &n, &e);
    TL_CHECK(rc == PCQ_OK && n == 2, "older block without an identifier: %s at %zu, %zu rows",
             pcq_status_name(rc), e.offset, n);
    ROW(2, NULL, 0, PCQ_CALC_OK, 300.0);
    ROW(1, NULL, 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0.0);
    /* A counter id the counterset-info does not have: error at that id. */
    data_begin(&wbad, 1, 0, 1000u);
    rc = (int)block_begin(&wbad, 2);
    multi_counters(&wbad, bad_ids, 2);
    value32(&wbad, 1);
    value32(&wbad, 2);
    block_end(&wbad, (size_t)rc);
    data_end(&wbad, 1);
    if (decode_data(&wbad, &bd)) return;
    rc = pcq_calc_cook(&info, NULL, &bd, NULL, 0, 0, rows, CAP(rows), &n, &e);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG && e.offset == 48 + 16 + 8 + 4, "unknown counter: %s at %zu",
             pcq_status_name(rc), e.offset);
    /* Regression (a false "never" found by fuzz_cook's corpus with the
     * never-reached checks made to trap): a counterset-info of no counters
     * has no index; every id is then unknown, the first at its place. */
    info_begin(&wi, 0, 0);
    if (decode_info(&wi, &info)) return;
    rc = pcq_calc_cook(&info, NULL, &bd, NULL, 0, 0, rows, CAP(rows), &n, &e);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG && e.offset == 48 + 16 + 8, "no counter in the set: %s at %zu",
             pcq_status_name(rc), e.offset);
}

/* ------------------------------------------------------------------------ */
/* Cooking: the older sample lists the counters in another order, lacks     */
/* some or repeats one; instances only in one of the samples                */
/* ------------------------------------------------------------------------ */
typedef struct co_inst {
    const char *name;
    uint32_t id;
    uint32_t v[5]; /* the value of counter id k + 1 */
} co_inst;

static void co_info(wbuf *w)
{
    info_begin(w, 5, 2);                                 /* multiple instances */
    info_counter(w, 1, 0x10410400, 0, 0, 0, 0, 0, 0, 0); /* COUNTER_COUNTER */
    info_counter(w, 2, 0x00010000, 0, 0, 0, 0, 0, 0, 0); /* RAWCOUNT */
    info_counter(w, 3, 0x40020500, 0, 0, 4, 0, 0, 0, 0); /* AVERAGE_BULK over 4 */
    info_counter(w, 4, 0x40030402, 0, 0, 0, 0, 0, 0, 0); /* AVERAGE_BASE */
    info_counter(w, 5, 0x00400400, 0, 0, 0, 0, 0, 0, 0); /* COUNTER_DELTA */
}

/* One PERF_COUNTERSET block listing ids[0..nids); each instance's values in
 * that order (counter 3 in 8 bytes). A repeated id carries 1000 more at each
 * repetition, so the occurrences can be told apart. */
static void co_data(wbuf *w, uint64_t t, const uint32_t *ids, uint32_t nids, const co_inst *in, size_t count)
{
    size_t b, mi, i;
    uint32_t j, k, rep;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, ids, nids);
    mi = multi_instances_begin(w);
    for (i = 0; i < count; i++) {
        instance(w, in[i].id, in[i].name);
        for (j = 0; j < nids; j++) {
            for (k = 0, rep = 0; k < j; k++) rep += ids[k] == ids[j];
            if (ids[j] == 3)
                value64(w, in[i].v[2] + 1000u * rep);
            else
                value32(w, in[i].v[ids[j] - 1] + 1000u * rep);
        }
    }
    multi_instances_end(w, mi, (uint32_t)count);
    block_end(w, b);
    data_end(w, 1);
}

static void test_cook_counter_order(void)
{
    static const uint32_t in_order[5] = {1, 2, 3, 4, 5}, reversed[5] = {5, 4, 3, 2, 1};
    static const uint32_t fewer[3] = {5, 4, 3}, twice_new[3] = {1, 2, 1}, twice_old[3] = {2, 1, 1};
    static const co_inst old_in[3] = {{"a", 1, {100, 7, 1000, 50, 10}},
                                      {"b", 2, {0, 3, 0, 0, 0}},
                                      {"gone", 3, {1, 1, 1, 1, 1}}};
    static const co_inst new_in[3] = {{"a", 1, {700, 9, 1600, 80, 25}},
                                      {"b", 2, {50, 4, 90, 45, 1}},
                                      {"new", 4, {5, 6, 7, 8, 9}}};
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[128]; /* with room for working memory */
    size_t n = 0;
    int rc;

    co_info(&wi);
    co_data(&wo, 1000000, reversed, 5, old_in, 3); /* dT / F = 2000 / 1000 = 2 s */
    co_data(&wn, 1002000, in_order, 5, new_in, 3);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    /* Rows follow the newer sample: 3 instances x 5; "gone" gets none. */
    TL_CHECK(rc == PCQ_OK && n == 15, "reversed: %s, %zu rows", pcq_status_name(rc), n);
    /* The older values travel in the reverse order and are found by id:
     * a: (700 - 100) / 2 s = 300 /sec; RAWCOUNT 9; AVERAGE_BULK over its base
     * (1600 - 1000) / (80 - 50) = 20; the base has no value of its own;
     * COUNTER_DELTA 25 - 10 = 15. */
    ROW(1, "a", 0, PCQ_CALC_OK, 300.0);
    ROW(2, "a", 0, PCQ_CALC_OK, 9.0);
    ROW(3, "a", 0, PCQ_CALC_OK, 20.0);
    ROW(4, "a", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);
    ROW(5, "a", 0, PCQ_CALC_OK, 15.0);
    /* b: 50 / 2 = 25 /sec; 4; 90 / 45 = 2; 1 - 0 = 1. */
    ROW(1, "b", 0, PCQ_CALC_OK, 25.0);
    ROW(2, "b", 0, PCQ_CALC_OK, 4.0);
    ROW(3, "b", 0, PCQ_CALC_OK, 2.0);
    ROW(5, "b", 0, PCQ_CALC_OK, 1.0);
    /* "new" is only in the newer sample: RAWCOUNT 6; the others need a second. */
    ROW(1, "new", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    ROW(2, "new", 0, PCQ_CALC_OK, 6.0);
    ROW(3, "new", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    ROW(5, "new", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    TL_CHECK(row_of(rows, n, 2, "gone", 0, 0) == NULL, "an instance only in the older sample");

    /* The older sample lacks counters 1 and 2 (and "gone"): a's rate needs a
     * second sample; RAWCOUNT 9 needs none; 3 and its base are still there: 20. */
    co_data(&wo, 1000000, fewer, 3, old_in, 2);
    if (decode_data(&wo, &od)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 15, "fewer: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, "a", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    ROW(2, "a", 0, PCQ_CALC_OK, 9.0);
    ROW(3, "a", 0, PCQ_CALC_OK, 20.0);
    ROW(5, "a", 0, PCQ_CALC_OK, 15.0);
    ROW(1, "b", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);

    /* Counter 1 listed twice: newer {1, 2, 1}, older {2, 1, 1}. Each value is
     * compared with the first counter 1 of the older instance, as a scan from
     * the start finds it: a: 700 and 1700 against 100: (700 - 100) / 2 = 300,
     * (1700 - 100) / 2 = 800 /sec; b: 50 and 1050 against 0: 25 and 525. The
     * second 1 is not counter 3 (index 2 of the info): its info_index is 0. */
    co_data(&wo, 1000000, twice_old, 3, old_in, 2);
    co_data(&wn, 1002000, twice_new, 3, new_in, 2);
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 6, "twice: %s, %zu rows", pcq_status_name(rc), n);
    if (n == 6) {
        TL_CHECK(rows[0].status == PCQ_CALC_OK && near(rows[0].value, 300.0), "a, first 1: %g",
                 rows[0].value);
        TL_CHECK(rows[1].counter_id == 2 && near(rows[1].value, 9.0), "a, 2: %g", rows[1].value);
        TL_CHECK(rows[2].status == PCQ_CALC_OK && near(rows[2].value, 800.0) && rows[2].info_index == 0,
                 "a, second 1: %g (info %u)", rows[2].value, (unsigned)rows[2].info_index);
        TL_CHECK(near(rows[3].value, 25.0) && near(rows[5].value, 525.0), "b: %g %g", rows[3].value,
                 rows[5].value);
    }
}

/* ------------------------------------------------------------------------ */
/* Cooking: a related counter outside the group (in a block of type 1 or 4   */
/* of the same instance) and a list longer than the cook's columns          */
/* ------------------------------------------------------------------------ */
static void loose_single(wbuf *w, uint64_t t, uint64_t n1, uint32_t b2, int with_base)
{
    static const uint32_t one[1] = {1};
    size_t b;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 2); /* counter 1 */
    multi_counters(w, one, 1);
    value64(w, n1);
    block_end(w, b);
    if (with_base) {
        b = block_begin(w, 1); /* block 1: counter 2 */
        value32(w, b2);
        block_end(w, b);
    }
    data_end(w, with_base ? 2 : 1);
}

/* Counter 1 of "x" (7) and "y" (8) in a PERF_COUNTERSET block; their base,
 * counter 2, in a PERF_MULTI_INSTANCES block listing "y" first. */
static void loose_multi(wbuf *w, uint64_t t, uint64_t nx, uint64_t ny, uint32_t bx, uint32_t by)
{
    static const uint32_t one[1] = {1};
    size_t b, mi;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, one, 1);
    mi = multi_instances_begin(w);
    instance(w, 7, "x");
    value64(w, nx);
    instance(w, 8, "y");
    value64(w, ny);
    multi_instances_end(w, mi, 2);
    block_end(w, b);
    b = block_begin(w, 4);
    mi = multi_instances_begin(w);
    instance(w, 8, "y");
    value32(w, by);
    instance(w, 7, "x");
    value32(w, bx);
    multi_instances_end(w, mi, 2);
    block_end(w, b);
    data_end(w, 2);
}

/* LT_N instances "a".."l" with counter 1 in a PERF_COUNTERSET block (block
 * 0). The even ones hold their base, counter 2, twice: in a
 * PERF_MULTI_INSTANCES block (block 1, first in wire order) and in a
 * PERF_COUNTERSET block listing counter 2 (block 2). The index keeps an
 * instance's groups by key (listed groups before single ones), so the later
 * value comes first there; the first in wire order must win, and the index
 * keeps only it. The odd ones hold counter 1 alone (no base): instances of
 * one value among instances whose later values were left out. */
enum {
    LT_N = 12
};
static void loose_twice(wbuf *w, uint64_t t, const uint64_t *n1, const uint32_t *first, uint64_t later)
{
    static const uint32_t one[1] = {1}, two[1] = {2};
    char name[2] = {0, 0};
    size_t b, mi;
    uint32_t k, blk;
    data_begin(w, t, 0, 1000u);
    for (blk = 0; blk < 3; blk++) {
        b = block_begin(w, blk == 1 ? 4 : 6); /* block 1: counter 2 */
        if (blk != 1) multi_counters(w, blk == 0 ? one : two, 1);
        mi = multi_instances_begin(w);
        for (k = 0; k < LT_N; k++) {
            if (blk > 0 && (k & 1u)) continue;
            name[0] = (char)('a' + k);
            instance(w, 7 + k, name);
            if (blk == 0)
                value64(w, n1[k]);
            else if (blk == 1)
                value32(w, first[k]);
            else
                value64(w, later);
        }
        multi_instances_end(w, mi, blk == 0 ? LT_N : LT_N / 2);
        block_end(w, b);
    }
    data_end(w, 3);
}

static void test_cook_related_elsewhere(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    static pcq_calc_row rows[160]; /* with room for working memory */
    pcq_identifier ids[1];
    size_t n = 0;
    int rc;

    info_begin(&wi, 2, 0);                                 /* single instance */
    info_counter(&wi, 1, 0x40020500, 0, 0, 2, 0, 0, 0, 0); /* AVERAGE_BULK over 2 */
    info_counter(&wi, 2, 0x40030402, 0, 0, 0, 0, 0, 0, 0); /* AVERAGE_BASE */
    loose_single(&wo, 1000, 1000, 100, 1);
    loose_single(&wn, 2000, 1600, 130, 1);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    /* Without identifiers block 1 holds counter 2 of the info. The base is
     * not in counter 1's block: it is found in block 1 of each sample:
     * (1600 - 1000) / (130 - 100) = 20. */
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "single: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, NULL, 0, PCQ_CALC_OK, 20.0);
    ROW(2, NULL, 0, PCQ_CALC_NOT_DISPLAYABLE, 0);
    /* The same through an identifier naming block 1. */
    memset(ids, 0, sizeof ids);
    ids[0].counter_id = 2;
    ids[0].index = 1;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 1, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "single with ids: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, NULL, 0, PCQ_CALC_OK, 20.0);
    /* An older sample without block 1 has no base for counter 1. */
    loose_single(&wo, 1000, 1000, 100, 0);
    if (decode_data(&wo, &od)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "no older base: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, NULL, 0, PCQ_CALC_MISSING_RELATED, 0);

    /* Multiple instances: each instance's base is the PERF_MULTI_INSTANCES
     * value of the same (InstanceId, name), whatever its position:
     * x (1600 - 1000) / (130 - 100) = 20; y (500 - 0) / (50 - 0) = 10. */
    info_begin(&wi, 2, 2);
    info_counter(&wi, 1, 0x40020500, 0, 0, 2, 0, 0, 0, 0);
    info_counter(&wi, 2, 0x40030402, 0, 0, 0, 0, 0, 0, 0);
    loose_multi(&wo, 1000, 1000, 0, 100, 0);
    loose_multi(&wn, 2000, 1600, 500, 130, 50);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 4, "multi: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, "x", 0, PCQ_CALC_OK, 20.0);
    ROW(1, "y", 0, PCQ_CALC_OK, 10.0);
    ROW(2, "y", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);

    /* The base twice in each even instance: block 1's (first in wire order)
     * is taken, not block 2's: (n1 - 1000) / (first - 100), where block 2's
     * would give (n1 - 1000) / 998. The odd ones have no base. */
    {
        uint64_t o1[LT_N], n1[LT_N];
        uint32_t ofirst[LT_N], nfirst[LT_N], k;
        char name[2] = {0, 0};
        for (k = 0; k < LT_N; k++) {
            o1[k] = 1000;
            n1[k] = 1000 + 60 * (k + 1);
            ofirst[k] = 100;
            nfirst[k] = 100 + 3 * (k + 1);
        }
        loose_twice(&wo, 1000, o1, ofirst, 1);
        loose_twice(&wn, 2000, n1, nfirst, 999);
        if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
        rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
        if (!TL_CHECK(rc == PCQ_OK && n == LT_N * 2, "twice: %s, %zu rows", pcq_status_name(rc), n)) return;
        for (k = 0; k < LT_N; k++) {
            name[0] = (char)('a' + k);
            if (k & 1u)
                row_is(__LINE__, rows, n, 1, name, 0, 0, PCQ_CALC_MISSING_RELATED, 0);
            else
                row_is(__LINE__, rows, n, 1, name, 0, 0, PCQ_CALC_OK, 20.0); /* 60 (k + 1) / 3 (k + 1) */
        }
    }
}

/* Instances split over four blocks (bench/hostile.c cook-split*): x (7) and
 * y (8) hold counter 30 in a PERF_MULTI_INSTANCES block (block 0,
 * identifier 0; the older sample lists y alone there), counters 10..21 in a
 * PERF_COUNTERSET block (block 1; the older sample lists x first, the newer
 * y), their base, counter 5, in another PERF_MULTI_INSTANCES block (block 2,
 * identifier 2), and counter 6, a base too, in a PERF_COUNTERSET block of
 * that one counter (block 3): 15 counter ids an instance, so a related
 * counter is searched for by halves (more than 8), and x's groups are sorted
 * by counter before the join (block 0's comes first in the wire, last by
 * counter, and is missing from the older sample). z (9) is in block 1 alone:
 * its base is nowhere, and its instance has no other group to search.
 * Counters 10..19 are AVERAGE_BULK over 5, 20 over 6, and 21 over 7, which
 * no block holds though 6 < 7 < 30 (searched, not found). */
static void split_sample(wbuf *w, uint64_t t, int older, const uint32_t base[2], uint64_t add)
{
    static const uint32_t six[1] = {6};
    uint32_t list[12], k, i;
    size_t b, mi;
    for (k = 0; k < 12; k++) list[k] = 10 + k;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 4); /* block 0: counter 30 */
    mi = multi_instances_begin(w);
    if (!older) {
        instance(w, 7, "x");
        value32(w, 77);
    }
    instance(w, 8, "y");
    value32(w, 88);
    multi_instances_end(w, mi, older ? 1 : 2);
    block_end(w, b);
    b = block_begin(w, 6);
    multi_counters(w, list, 12);
    mi = multi_instances_begin(w);
    for (i = 0; i < 3; i++) { /* y, x, z (older: x, y, z) */
        uint32_t id = i == 2 ? 9 : (i == 0) == !older ? 8 : 7;
        instance(w, id, id == 7 ? "x" : id == 8 ? "y" : "z");
        for (k = 0; k < 12; k++) /* x: 1000 + 30 c more, y: 500 + 10 c more (newer: add 1) */
            value64(w, (id == 8 ? 500 : 1000) + add * (id == 8 ? 10 : 30) * list[k]);
    }
    multi_instances_end(w, mi, 3);
    block_end(w, b);
    for (k = 2; k < 4; k++) { /* block 2: counter 5; block 3: counter 6 */
        b = block_begin(w, k == 2 ? 4 : 6);
        if (k == 3) multi_counters(w, six, 1);
        mi = multi_instances_begin(w);
        instance(w, 7, "x");
        value32(w, base[0]);
        instance(w, 8, "y");
        value32(w, base[1]);
        multi_instances_end(w, mi, 2);
        block_end(w, b);
    }
    data_end(w, 4);
}

static void test_cook_split_instances(void)
{
    static const uint32_t obase[2] = {100, 200}, nbase[2] = {130, 210};
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    static pcq_calc_row rows[400];
    pcq_identifier ids[2];
    size_t n = 0;
    uint32_t c;
    int rc;
    const char *const names[3] = {"x", "y", "z"};
    unsigned k;

    info_begin(&wi, 15, 2);
    info_counter(&wi, 5, 0x40030402, 0, 0, 0, 0, 0, 0, 0); /* AVERAGE_BASE */
    info_counter(&wi, 6, 0x40030402, 0, 0, 0, 0, 0, 0, 0);
    for (c = 10; c <= 21; c++)
        info_counter(&wi, c, 0x40020500, 0, 0, c < 20 ? 5 : c == 20 ? 6 : 7, 0, 0, 0, 0);
    info_counter(&wi, 30, 0x00010000, 0, 0, 0, 0, 0, 0, 0); /* RAWCOUNT */
    split_sample(&wo, 1000, 1, obase, 0);
    split_sample(&wn, 2000, 0, nbase, 1);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    memset(ids, 0, sizeof ids);
    ids[0].counter_id = 30;
    ids[0].index = 0;
    ids[1].counter_id = 5;
    ids[1].index = 2;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, rows, CAP(rows), &n, NULL);
    if (!TL_CHECK(rc == PCQ_OK && n == 2 + 36 + 4, "split: %s, %zu rows", pcq_status_name(rc), n)) return;
    /* x: 30 c / (130 - 100) = c; y: 10 c / (210 - 200) = c */
    for (k = 0; k < 3; k++)
        for (c = 10; c <= 21; c++)
            row_is(__LINE__, rows, n, c, names[k], 0, 0,
                   k < 2 && c < 21 ? PCQ_CALC_OK : PCQ_CALC_MISSING_RELATED, k < 2 && c < 21 ? c : 0);
    ROW(5, "x", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);
    ROW(6, "y", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);
    ROW(30, "x", 0, PCQ_CALC_OK, 77);
    ROW(30, "y", 0, PCQ_CALC_OK, 88);
}

/* An instance that 33 PERF_MULTI_INSTANCES blocks list (block i: the info's
 * counter i, whose id falls as i rises): its 33 groups, single ones, are
 * sorted by counter in the cook's index by a radix sort (32 or more), where
 * the wire order is the reverse; the older sample lists y alone in block 0,
 * so a group left in wire order would pair with the wrong older group. */
enum {
    MB_N = 33
};
static void many_blocks(wbuf *w, uint64_t t, int older, int with_set)
{
    static const uint32_t set_id = 300;
    uint32_t i;
    size_t b, mi;
    data_begin(w, t, 0, 1000u);
    for (i = 0; i < MB_N; i++) {
        b = block_begin(w, 4);
        mi = multi_instances_begin(w);
        if (!(older && i == 0)) {
            instance(w, 7, "x");
            value32(w, 1000 + 10 * i + (older ? 0 : 5));
        }
        instance(w, 8, "y");
        value32(w, 2000 + i + (older ? 0 : 7));
        multi_instances_end(w, mi, older && i == 0 ? 1 : 2);
        block_end(w, b);
    }
    if (with_set) { /* a PERF_COUNTERSET block of counter 300 after them: x and y */
        b = block_begin(w, 6);
        multi_counters(w, &set_id, 1);
        mi = multi_instances_begin(w);
        instance(w, 7, "x");
        value32(w, older ? 1 : 70);
        instance(w, 8, "y");
        value32(w, older ? 2 : 80);
        multi_instances_end(w, mi, 2);
        block_end(w, b);
    }
    data_end(w, MB_N + (with_set ? 1u : 0u));
}

/* with_set: a PERF_COUNTERSET block of counter 300 (COUNTER_DELTA) follows,
 * listing x and y: each instance's 34 groups are of both kinds, and the
 * index puts the set's group first, then the single ones by counter (a
 * partition, then a sort of the singles). */
static void test_cook_many_blocks(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    static pcq_calc_row rows[600];
    size_t n = 0;
    uint32_t i;
    int rc, with_set;
    for (with_set = 0; with_set < 2; with_set++) {
        info_begin(&wi, MB_N + 1, 2);
        for (i = 0; i < MB_N; i++)
            info_counter(&wi, 200 - i, 0x00400400, 0, 0, 0, 0, 0, 0, 0); /* COUNTER_DELTA */
        info_counter(&wi, 300, 0x00400400, 0, 0, 0, 0, 0, 0, 0);
        many_blocks(&wo, 1000, 1, with_set);
        many_blocks(&wn, 2000, 0, with_set);
        if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
        rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
        if (!TL_CHECK(rc == PCQ_OK && n == 2 * MB_N + 2u * (unsigned)with_set,
                      "many blocks (set %d): %s, %zu rows", with_set, pcq_status_name(rc), n))
            return;
        for (i = 0; i < MB_N; i++) {
            row_is(__LINE__, rows, n, 200 - i, "x", 0, 0, i == 0 ? PCQ_CALC_NEED_SECOND_SAMPLE : PCQ_CALC_OK,
                   5);
            row_is(__LINE__, rows, n, 200 - i, "y", 0, 0, PCQ_CALC_OK, 7);
        }
        if (with_set) {
            row_is(__LINE__, rows, n, 300, "x", 0, 0, PCQ_CALC_OK, 69);
            row_is(__LINE__, rows, n, 300, "y", 0, 0, PCQ_CALC_OK, 78);
        }
    }
}

/* Instances x (7) and y (8): counters 40, 3, 1 and 4, in that order, in a
 * PERF_COUNTERSET block (block 0); counter 2 (a time) in a type 4 block
 * (block 1) listing y first; with `base`, counter 5 in another (block 2).
 * Counters 1 and 4 are one-sample types whose related counters are outside
 * block 0's list for some of them. */
static void one_sample_data(wbuf *w, uint64_t time, int base, const uint64_t *n1, const uint32_t *n4)
{
    static const uint32_t list[4] = {40, 3, 1, 4};
    static const char *const names[2] = {"x", "y"};
    size_t b, mi;
    uint32_t k, j;
    data_begin(w, 1000, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, list, 4);
    mi = multi_instances_begin(w);
    for (k = 0; k < 2; k++) {
        instance(w, 7 + k, names[k]);
        value32(w, 99);      /* 40 */
        value64(w, 1000000); /* 3: Fo */
        value64(w, n1[k]);   /* 1 */
        value32(w, n4[k]);   /* 4 */
    }
    multi_instances_end(w, mi, 2);
    block_end(w, b);
    for (j = 1; j <= (base ? 2u : 1u); j++) {
        b = block_begin(w, 4);
        mi = multi_instances_begin(w);
        for (k = 2; k-- > 0;) { /* y, then x */
            instance(w, 7 + k, names[k]);
            if (j == 1)
                value64(w, time); /* 2: To */
            else
                value32(w, k ? 40 : 120); /* 5: the base */
        }
        multi_instances_end(w, mi, 2);
        block_end(w, b);
    }
    data_end(w, base ? 3 : 2);
}

/* One-sample types (PERF_ELAPSED_TIME, PERF_RAW_FRACTION) whose related
 * counters sit in other blocks of the instance (a loose sample): their rows
 * come from the newer sample alone, whatever the older one holds (another
 * time; no base at all), as pcq_calc_value's. The instances' values are
 * found by id in a list out of id order. */
static void test_cook_one_sample_related(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    static pcq_calc_row rows[160];
    pcq_identifier ids[2];
    static const uint64_t n1[2] = {1000000, 2000000}, o1[2] = {1, 1};
    static const uint32_t n4[2] = {30, 30}, o4[2] = {1, 1};
    size_t n = 0;
    int rc;
    info_begin(&wi, 6, 2);
    info_counter(&wi, 1, 0x30240500, 0, 0, 0, 2, 3, 0, 0); /* ELAPSED_TIME: To 2, Fo 3 */
    info_counter(&wi, 2, 0x00010100, 0, 0, 0, 0, 0, 0, 0); /* LARGE_RAWCOUNT */
    info_counter(&wi, 3, 0x00010100, 0, 0, 0, 0, 0, 0, 0);
    info_counter(&wi, 4, 0x20020400, 0, 0, 5, 0, 0, 0, 0);  /* RAW_FRACTION over 5 */
    info_counter(&wi, 5, 0x40030403, 0, 0, 0, 0, 0, 0, 0);  /* RAW_BASE */
    info_counter(&wi, 40, 0x00010000, 0, 0, 0, 0, 0, 0, 0); /* RAWCOUNT */
    memset(ids, 0, sizeof ids);
    ids[0].counter_id = 2;
    ids[0].index = 1;
    ids[1].counter_id = 5;
    ids[1].index = 2;
    one_sample_data(&wo, 1, 0, o1, o4);
    one_sample_data(&wn, 5000000, 1, n1, n4);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 12, "one-sample: %s, %zu rows", pcq_status_name(rc), n);
    /* (To - N) / Fo: x (5,000,000 - 1,000,000) / 1,000,000, y (5,000,000 - 2,000,000) / 1,000,000 */
    ROW(1, "x", 0, PCQ_CALC_OK, 4.0);
    ROW(1, "y", 0, PCQ_CALC_OK, 3.0);
    /* 100 N / B: x 100 x 30 / 120, y 100 x 30 / 40; the older has no base */
    ROW(4, "x", 0, PCQ_CALC_OK, 25.0);
    ROW(4, "y", 0, PCQ_CALC_OK, 75.0);
    ROW(2, "y", 0, PCQ_CALC_OK, 5000000.0);
    /* Without an older sample: the same. */
    rc = pcq_calc_cook(&info, NULL, &nd, ids, 2, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 12, "one-sample, no older: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, "x", 0, PCQ_CALC_OK, 4.0);
    ROW(4, "y", 0, PCQ_CALC_OK, 75.0);
    /* The newer without its base: 4 misses it, whatever the older holds. */
    one_sample_data(&wn, 5000000, 0, n1, n4);
    one_sample_data(&wo, 1, 1, o1, o4);
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 10, "one-sample, newer without base: %s, %zu rows", pcq_status_name(rc), n);
    ROW(4, "x", 0, PCQ_CALC_MISSING_RELATED, 0);
    ROW(1, "y", 0, PCQ_CALC_OK, 3.0);
}

/* Instance x (7) in a PERF_COUNTERSET block of counter 1 (value v), and,
 * before it (empty 1) or after it (2), in a PERF_COUNTERSET block that lists
 * no counter. */
static void empty_list_data(wbuf *w, uint64_t t, uint64_t v, int empty)
{
    static const uint32_t one[1] = {1};
    size_t b, mi;
    int k;
    data_begin(w, t, 0, 1000u);
    for (k = 1; k <= (empty ? 2 : 1); k++) {
        int listed = k != empty;
        b = block_begin(w, 6);
        multi_counters(w, one, listed ? 1u : 0u);
        mi = multi_instances_begin(w);
        instance(w, 7, "x");
        if (listed) value64(w, v);
        multi_instances_end(w, mi, 1);
        block_end(w, b);
    }
    data_end(w, empty ? 2 : 1);
}

/* A block that lists no counter holds no group (D12): its instances have no
 * value to cook and are not paired, so x's values pair across the samples
 * wherever such a block stands, in lockstep or joined. (Counted among x's
 * occurrences, as they were, the newer x would take the older's empty one
 * in the last two: no older value.) */
static void test_cook_empty_lists(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    static pcq_calc_row rows[64];
    static const int older_empty[4] = {1, 0, 1, 1}, newer_empty[4] = {0, 1, 2, 1};
    size_t n = 0;
    int k, rc;
    info_begin(&wi, 1, 2);
    info_counter(&wi, 1, 0x00400400, 0, 0, 0, 0, 0, 0, 0); /* COUNTER_DELTA: N1 - N0 */
    if (decode_info(&wi, &info)) return;
    for (k = 0; k < 4; k++) {
        empty_list_data(&wo, 1000, 100, older_empty[k]);
        empty_list_data(&wn, 2000, 130, newer_empty[k]);
        if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
        rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
        TL_CHECK(rc == PCQ_OK && n == 1, "empty lists %d: %s, %zu rows", k, pcq_status_name(rc), n);
        ROW(1, "x", 0, PCQ_CALC_OK, 30.0);
    }
}

/* 70 counters: more than the cook keeps columns for (the general path).
 * Id 0 is an AVERAGE_BASE, 68 an AVERAGE_BULK over it, 69 a COUNTER_COUNTER,
 * the others RAWCOUNT with value k (older) and 2k (newer). */
enum {
    LONG_N = 70
};

static void long_data(wbuf *w, uint64_t t, int newer, int reverse)
{
    uint32_t ids[LONG_N], j, k;
    size_t b, mi;
    for (j = 0; j < LONG_N; j++) ids[j] = reverse ? LONG_N - 1 - j : j;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, ids, LONG_N);
    mi = multi_instances_begin(w);
    instance(w, 1, "x");
    for (j = 0; j < LONG_N; j++) {
        k = ids[j];
        if (k == 0)
            value32(w, newer ? 13 : 10);
        else if (k == 68)
            value64(w, newer ? 800 : 500);
        else if (k == 69)
            value32(w, newer ? 25 : 5);
        else
            value32(w, newer ? 2 * k : k);
    }
    multi_instances_end(w, mi, 1);
    block_end(w, b);
    data_end(w, 1);
}

static void test_cook_long_list(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[LONG_N + 160]; /* with room for working memory */
    size_t n = 0;
    uint32_t k;
    int rc;

    info_begin(&wi, LONG_N, 2);
    for (k = 0; k < LONG_N; k++)
        info_counter(&wi, k,
                     k == 0    ? 0x40030402u
                     : k == 68 ? 0x40020500u
                     : k == 69 ? 0x10410400u
                               : 0x00010000u,
                     0, 0, k == 68 ? 0 : 0xFFFFFFFFu, 0, 0, 0, 0);
    long_data(&wo, 1000000, 0, 1); /* older: reverse order */
    long_data(&wn, 1002000, 1, 0); /* 2 s later */
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == LONG_N, "long: %s, %zu rows", pcq_status_name(rc), n);
    /* RAWCOUNT 37: 74; AVERAGE_BULK (800 - 500) / (13 - 10) = 100; the rate
     * (25 - 5) / 2 s = 10 /sec; the base has no value of its own. */
    ROW(37, "x", 0, PCQ_CALC_OK, 74.0);
    ROW(67, "x", 0, PCQ_CALC_OK, 134.0);
    ROW(68, "x", 0, PCQ_CALC_OK, 100.0);
    ROW(69, "x", 0, PCQ_CALC_OK, 10.0);
    ROW(0, "x", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);
}

/* A short list of the same counters, instance "x", values as long_data's. */
static void short_data(wbuf *w, uint64_t t, int newer, const uint32_t *ids, uint32_t nids)
{
    uint32_t j, k;
    size_t b, mi;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, ids, nids);
    mi = multi_instances_begin(w);
    instance(w, 1, "x");
    for (j = 0; j < nids; j++) {
        k = ids[j];
        if (k == 0)
            value32(w, newer ? 13 : 10);
        else if (k == 68)
            value64(w, newer ? 800 : 500);
        else if (k == 69)
            value32(w, newer ? 25 : 5);
        else
            value32(w, newer ? 2 * k : k);
    }
    multi_instances_end(w, mi, 1);
    block_end(w, b);
    data_end(w, 1);
}

/* A long list on one side only: the general path all the same. */
static void test_cook_long_list_one_side(void)
{
    static const uint32_t four[4] = {0, 68, 69, 37};
    static const uint32_t two[2] = {69, 68};
    uint32_t gaps[LONG_N];
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[LONG_N + 160]; /* with room for working memory */
    size_t n = 0;
    uint32_t k;
    int rc;

    info_begin(&wi, LONG_N, 2);
    for (k = 0; k < LONG_N; k++)
        info_counter(&wi, k,
                     k == 0    ? 0x40030402u
                     : k == 68 ? 0x40020500u
                     : k == 69 ? 0x10410400u
                               : 0x00010000u,
                     0, 0, k == 68 ? 0 : 0xFFFFFFFFu, 0, 0, 0, 0);
    if (decode_info(&wi, &info)) return;

    /* Older: all 70 counters; newer: 4 of them. Same values as the long
     * test: RAWCOUNT 37 gives 74, AVERAGE_BULK (800 - 500) / (13 - 10) = 100,
     * the rate (25 - 5) / 2 s = 10 /sec. */
    long_data(&wo, 1000000, 0, 0);
    short_data(&wn, 1002000, 1, four, 4);
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 4, "long older: %s, %zu rows", pcq_status_name(rc), n);
    ROW(37, "x", 0, PCQ_CALC_OK, 74.0);
    ROW(68, "x", 0, PCQ_CALC_OK, 100.0);
    ROW(69, "x", 0, PCQ_CALC_OK, 10.0);
    ROW(0, "x", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);

    /* Newer: all 70; older: only 69 and 68, without 68's base 0. RAWCOUNT
     * 37 needs no older value: 74. The rate: 10 /sec as before. AVERAGE_BULK:
     * the older sample has no base (not in its group, and no single-counter
     * block to look in): MISSING_RELATED. */
    short_data(&wo, 1000000, 0, two, 2);
    long_data(&wn, 1002000, 1, 0);
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == LONG_N, "long newer: %s, %zu rows", pcq_status_name(rc), n);
    ROW(37, "x", 0, PCQ_CALC_OK, 74.0);
    ROW(69, "x", 0, PCQ_CALC_OK, 10.0);
    ROW(68, "x", 0, PCQ_CALC_MISSING_RELATED, 0);
    ROW(0, "x", 0, PCQ_CALC_NOT_DISPLAYABLE, 0);

    /* Both long; the older lacks 37 (among its ids) and 69 (past its
     * largest): found by a search of its sorted list, or not. RAWCOUNT 37
     * needs no older value: 74; the rate of 69 has none: NEED_SECOND_SAMPLE;
     * the others as before. */
    for (k = 0, n = 0; k < LONG_N; k++)
        if (k != 37 && k != 69) gaps[n++] = k;
    short_data(&wo, 1000000, 0, gaps, (uint32_t)n);
    long_data(&wn, 1002000, 1, 0);
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == LONG_N, "long, older lacks two: %s, %zu rows", pcq_status_name(rc), n);
    ROW(37, "x", 0, PCQ_CALC_OK, 74.0);
    ROW(36, "x", 0, PCQ_CALC_OK, 72.0);
    ROW(69, "x", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0);
    ROW(68, "x", 0, PCQ_CALC_OK, 100.0);
}

/* A PERF_MULTI_COUNTERS block that lists no counters: no rows, no error. */
static void test_cook_empty_list(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[66]; /* with room for working memory */
    size_t n = 1, b;
    int rc, k;

    info_begin(&wi, 1, 0);
    info_counter(&wi, 1, 0x00010000u, 0, 0, 0xFFFFFFFFu, 0, 0, 0, 0);
    if (decode_info(&wi, &info)) return;
    for (k = 0; k < 2; k++) {
        wbuf *w = k == 0 ? &wo : &wn;
        data_begin(w, 1000000 + 2000 * (uint64_t)k, 0, 1000u);
        b = block_begin(w, 2);
        multi_counters(w, NULL, 0);
        block_end(w, b);
        data_end(w, 1);
    }
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 0, "empty list: %s, %zu rows", pcq_status_name(rc), n);
}

/* ------------------------------------------------------------------------ */
/* Cooking: name#n among many instances                                     */
/* ------------------------------------------------------------------------ */
static int named(const pcq_calc_row *r, const char *name)
{
    size_t k, len = strlen(name);
    if (r->instance.len != 2 * len) return 0;
    for (k = 0; k < len; k++)
        if (r->instance.ptr[2 * k] != (uint8_t)name[k] || r->instance.ptr[2 * k + 1] != 0) return 0;
    return 1;
}

/* Block 0 (counters 1, 2): 30 "svchost" whose InstanceIds fall (1000, 990, ...,
 * 710), each followed by 5 unique names "p<id>", then 3 "same" with one
 * InstanceId, 5. Block 1 (counter 2 alone): one more "svchost". */
static void dup_data(wbuf *w)
{
    static const uint32_t ids[2] = {1, 2}, two[1] = {2};
    char name[16];
    size_t b, mi;
    uint32_t i, k, count = 0;
    data_begin(w, 1000, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, ids, 2);
    mi = multi_instances_begin(w);
    for (i = 0; i < 30; i++) {
        instance(w, 1000 - 10 * i, "svchost");
        value32(w, 1);
        value32(w, 2);
        for (k = 0; k < 5; k++) {
            snprintf(name, sizeof name, "p%u", (unsigned)(100 + 5 * i + k));
            instance(w, 100 + 5 * i + k, name);
            value32(w, 1);
            value32(w, 2);
        }
        count += 6;
    }
    for (i = 0; i < 3; i++) {
        instance(w, 5, "same");
        value32(w, 1);
        value32(w, 2);
    }
    multi_instances_end(w, mi, count + 3);
    block_end(w, b);
    b = block_begin(w, 6);
    multi_counters(w, two, 1);
    mi = multi_instances_begin(w);
    instance(w, 1, "svchost");
    value32(w, 3);
    multi_instances_end(w, mi, 1);
    block_end(w, b);
    data_end(w, 2);
}

static void test_cook_many_duplicates(void)
{
    static pcq_calc_row rows[800]; /* with room for working memory */
    wbuf wi, wn;
    pcq_counterset_info info;
    pcq_data nd;
    size_t n = 0, i, bad = 0, scratch = 0;
    uint32_t same = 0;
    int rc;

    info_begin(&wi, 2, 2);
    info_counter(&wi, 1, 0x00010000, 0, 0, 0, 0, 0, 0, 0);
    info_counter(&wi, 2, 0x00010000, 0, 0, 0, 0, 0, 0, 0);
    dup_data(&wn);
    if (decode_info(&wi, &info) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    /* (30 + 150 + 3) instances x 2 counters + 1. */
    TL_CHECK(rc == PCQ_OK && n == 367, "duplicates: %s, %zu rows", pcq_status_name(rc), n);
    for (i = 0; i < n; i++) {
        const pcq_calc_row *r = &rows[i];
        uint32_t want = 0;
        /* svchost with InstanceId 1000 - 10 i: the 29 - i with smaller ids come
         * first. "same": equal ids, so by position: 0, 1, 2 (both rows of each).
         * The svchost of block 1 holds other counters: a name of its own (0). */
        if (r->block_index == 0 && named(r, "svchost"))
            want = 29 - (1000 - r->instance_id) / 10;
        else if (named(r, "same"))
            want = same++ / 2;
        if (r->dup_index != want) bad++;
        if (r->instances_used != 0 || r->is_aggregate != 0 || r->aggregate_func != 0) scratch++;
    }
    TL_CHECK(bad == 0, "%zu rows with the wrong name#n", bad);
    TL_CHECK(scratch == 0, "%zu instance rows keep numbering scratch", scratch);
    TL_CHECK(n == 367 && rows[0].instance_id == 1000 && rows[0].dup_index == 29 && rows[1].dup_index == 29 &&
                 rows[366].dup_index == 0,
             "svchost 1000 is svchost#29");
}

/* ------------------------------------------------------------------------ */
/* Cooking: the older sample lists every instance in reverse order. Each    */
/* match is a slow-path search (the work budget's business, docs D12); the  */
/* default budget covers this with room to spare, and every instance still  */
/* meets its own older value.                                               */
/* ------------------------------------------------------------------------ */
#define REV_N 300u

static void rev_data(wbuf *w, int reversed, uint32_t per_step)
{
    static const uint32_t ids[1] = {1};
    char name[16];
    size_t b, mi;
    uint32_t k, i;
    data_begin(w, 1000, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, ids, 1);
    mi = multi_instances_begin(w);
    for (k = 0; k < REV_N; k++) {
        i = reversed ? REV_N - 1 - k : k;
        snprintf(name, sizeof name, "i%u", (unsigned)i);
        instance(w, i, name);
        value32(w, 1000 + per_step * i);
    }
    multi_instances_end(w, mi, REV_N);
    block_end(w, b);
    data_end(w, 1);
}

static void test_cook_reversed(void)
{
    static pcq_calc_row rows[4 * REV_N]; /* with room for working memory (the join's indexes and sorts) */
    static wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    size_t n = 0, i, bad = 0, need = 0;
    int rc;

    info_begin(&wi, 1, 2);
    info_counter(&wi, 1, 0x00400400, 0, 0, 0, 0, 0, 0, 0); /* PERF_COUNTER_DELTA */
    rev_data(&wo, 1, 1);
    rev_data(&wn, 0, 3);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, NULL, 0, &need, NULL);
    TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && need > REV_N && need <= CAP(rows),
             "reversed: the sizing call asks for %zu rows (rows and working memory)", need);
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, need, &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == REV_N, "reversed: %s, %zu rows", pcq_status_name(rc), n);
    for (i = 0; i < n; i++) /* instance i: (1000 + 3 i) - (1000 + i) */
        if (rows[i].status != PCQ_CALC_OK || rows[i].value != 2.0 * rows[i].instance_id) bad++;
    TL_CHECK(bad == 0, "reversed: %zu rows not matched with their older value", bad);
}

/* ------------------------------------------------------------------------ */
/* Cooking: rows counted from the block headers; aggregates of counters     */
/* listed in another order than the info's                                  */
/* ------------------------------------------------------------------------ */
static void test_cook_counts_and_aggregate_order(void)
{
    static const uint32_t both[2] = {1, 2}, one[1] = {1}, rev[3] = {3, 2, 1};
    static const char *const names[3] = {"a", "b", "c"};
    static const uint32_t c1[3] = {5, 7, 6}, c3[3] = {9, 2, 4};
    wbuf wi, wn;
    pcq_counterset_info info;
    pcq_data nd;
    pcq_calc_row rows[80]; /* with room for working memory */
    size_t n = 0, b, mi, i;
    pcq_error e;
    int rc;

    info_begin(&wi, 2, 2);
    info_counter(&wi, 1, 0x00010000, 0, 0, 0, 0, 0, 0, 0);
    info_counter(&wi, 2, 0x00010000, 0, 0, 0, 0, 0, 0, 0);
    /* Block 0: counters 1 and 2, no instance (40 bytes); block 1: a
     * PERF_MULTI_INSTANCES block without instances (24 bytes), which needs no
     * identifier; block 2: counters 1 and 2 of 3 instances; block 3: a
     * PERF_MULTI_COUNTERS block of counter 1. Rows: 0 + 0 + 6 + 1 = 7. */
    data_begin(&wn, 1000, 0, 1000u);
    b = block_begin(&wn, 6);
    multi_counters(&wn, both, 2);
    mi = multi_instances_begin(&wn);
    multi_instances_end(&wn, mi, 0);
    block_end(&wn, b);
    b = block_begin(&wn, 4);
    mi = multi_instances_begin(&wn);
    multi_instances_end(&wn, mi, 0);
    block_end(&wn, b);
    b = block_begin(&wn, 6);
    multi_counters(&wn, both, 2);
    mi = multi_instances_begin(&wn);
    for (i = 0; i < 3; i++) {
        instance(&wn, (uint32_t)i, names[i]);
        value32(&wn, 10);
        value32(&wn, 20);
    }
    multi_instances_end(&wn, mi, 3);
    block_end(&wn, b);
    b = block_begin(&wn, 2);
    multi_counters(&wn, one, 1);
    value32(&wn, 30);
    block_end(&wn, b);
    data_end(&wn, 4);
    if (decode_info(&wi, &info) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, NULL, 0, &n, &e);
    TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && n == 7, "counted: %s, %zu", pcq_status_name(rc), n);
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, 7, &n, &e);
    TL_CHECK(rc == PCQ_OK && n == 7, "cooked: %s, %zu", pcq_status_name(rc), n);
    ROW(2, "c", 0, PCQ_CALC_OK, 20.0);
    ROW(1, NULL, 0, PCQ_CALC_OK, 30.0);

    /* A PERF_MULTI_INSTANCES block with an instance at position 2: without
     * identifiers it would hold counter 2 of an info that has two (0 and 1).
     * The error names the block, at 48 + 40 + 24, even when only sizing. */
    data_begin(&wn, 1000, 0, 1000u);
    b = block_begin(&wn, 6);
    multi_counters(&wn, both, 2);
    mi = multi_instances_begin(&wn);
    multi_instances_end(&wn, mi, 0);
    block_end(&wn, b);
    b = block_begin(&wn, 4);
    mi = multi_instances_begin(&wn);
    multi_instances_end(&wn, mi, 0);
    block_end(&wn, b);
    b = block_begin(&wn, 4);
    mi = multi_instances_begin(&wn);
    instance(&wn, 1, "a");
    value32(&wn, 1);
    multi_instances_end(&wn, mi, 1);
    block_end(&wn, b);
    data_end(&wn, 3);
    if (decode_data(&wn, &nd)) return;
    e.diag = 99;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, NULL, 0, &n, &e);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG && e.offset == 112 && e.diag == 0,
             "no counter for block 2: %s at %zu (diag %d)", pcq_status_name(rc), e.offset, e.diag);

    /* Aggregates (InstanceType 6) come in the info's order although the block
     * lists 3, 2, 1: counter 1 maximum of 5, 7, 6 = 7; counter 2 none; counter
     * 3 minimum of 9, 2, 4 = 2. */
    info_begin(&wi, 3, 6);
    info_counter(&wi, 1, 0x00010000, 0, 0, 0, 0, 0, 0, 4);
    info_counter(&wi, 2, 0x00010000, 0, 0, 0, 0, 0, 0, 0);
    info_counter(&wi, 3, 0x00010000, 0, 0, 0, 0, 0, 0, 3);
    data_begin(&wn, 1000, 0, 1000u);
    b = block_begin(&wn, 6);
    multi_counters(&wn, rev, 3);
    mi = multi_instances_begin(&wn);
    for (i = 0; i < 3; i++) {
        instance(&wn, (uint32_t)i, names[i]);
        value32(&wn, c3[i]);
        value32(&wn, 0);
        value32(&wn, c1[i]);
    }
    multi_instances_end(&wn, mi, 3);
    block_end(&wn, b);
    data_end(&wn, 1);
    if (decode_info(&wi, &info) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 11, "aggregates: %s, %zu rows", pcq_status_name(rc), n);
    TL_CHECK(n == 11 && rows[9].is_aggregate && rows[9].counter_id == 1 && rows[10].is_aggregate &&
                 rows[10].counter_id == 3,
             "aggregate rows in info order");
    AGG(1, PCQ_CALC_OK, 7.0);
    AGG(3, PCQ_CALC_OK, 2.0);
    TL_CHECK(row_of(rows, n, 3, NULL, 0, 1)->instances_used == 3, "3 instances in the minimum");

    /* An aggregating counterset (InstanceType 4) whose counters do not
     * aggregate and a block without instances: no row at all, so no array
     * (NULL, 0) is enough. */
    info_begin(&wi, 1, 4);
    info_counter(&wi, 1, 0x00010000, 0, 0, 0, 0, 0, 0, 0);
    data_begin(&wn, 1000, 0, 1000u);
    b = block_begin(&wn, 6);
    multi_counters(&wn, one, 1);
    mi = multi_instances_begin(&wn);
    multi_instances_end(&wn, mi, 0);
    block_end(&wn, b);
    data_end(&wn, 1);
    if (decode_info(&wi, &info) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, NULL, 0, &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 0, "nothing to cook: %s, %zu rows", pcq_status_name(rc), n);
}

/* ------------------------------------------------------------------------ */
/* Cooking: values that are not 16-byte records (a 2-byte value, an 8-byte  */
/* value in a 20-byte record) among ordinary ones                           */
/* ------------------------------------------------------------------------ */
static void layout_data(wbuf *w, uint64_t t, uint32_t n1, uint64_t n3)
{
    static const uint32_t ids[3] = {1, 2, 3};
    size_t b, mi;
    data_begin(w, t, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, ids, 3);
    mi = multi_instances_begin(w);
    instance(w, 1, "a");
    value32(w, n1); /* at 112 */
    put32(w, 2);
    put32(w, 16);
    put32(w, 0x1234);
    put32(w, 0); /* 2 bytes, at 128 */
    put32(w, 8);
    put32(w, 20);
    put64(w, n3);
    put32(w, 0); /* 20-byte record, at 144 */
    multi_instances_end(w, mi, 1);
    block_end(w, b);
    data_end(w, 1);
}

static void test_cook_value_layouts(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[68]; /* with room for working memory */
    size_t n = 0;
    int rc;

    info_begin(&wi, 3, 2);
    info_counter(&wi, 1, 0x10410400, 0, 0, 0, 0, 0, 0, 0); /* COUNTER_COUNTER */
    info_counter(&wi, 2, 0x00010000, 0, 0, 0, 0, 0, 0, 0); /* RAWCOUNT */
    info_counter(&wi, 3, 0x00010100, 0, 0, 0, 0, 0, 0, 0); /* LARGE_RAWCOUNT */
    layout_data(&wo, 1000000, 100, 5);
    layout_data(&wn, 1002000, 300, 77); /* 2 s later */
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 3, "layouts: %s, %zu rows", pcq_status_name(rc), n);
    /* (300 - 100) / 2 s = 100 /sec; a 2-byte value is no number; 77. Each row
     * points at its record: 48 + 16 + 24 + 8 + 16 = 112, then + 16, + 16. */
    ROW(1, "a", 0, PCQ_CALC_OK, 100.0);
    ROW(2, "a", 0, PCQ_CALC_BAD_VALUE_SIZE, 0);
    ROW(3, "a", 0, PCQ_CALC_OK, 77.0);
    TL_CHECK(n == 3 && rows[0].offset == 112 && rows[1].offset == 128 && rows[2].offset == 144,
             "value offsets %zu %zu %zu", rows[0].offset, rows[1].offset, rows[2].offset);
}

/* §2.2.4.2: a PERF_SAMPLE_BASE value "MUST be greater than 0"; the cook,
 * which knows the types, notes a 0 on the base's row, and only there. */
static void test_cook_base_zero(void)
{
    static const uint32_t ids[2] = {1, 2};
    wbuf wi, wn;
    pcq_counterset_info info;
    pcq_data nd;
    pcq_calc_row rows[68]; /* with room for working memory */
    size_t b, n = 0, i;
    int rc, noted = 0;

    info_begin(&wi, 2, 0);
    info_counter(&wi, 1, 0x20C20400u, 0, 0, 2, 0, 0, 0, 0); /* SAMPLE_FRACTION, base 2 */
    info_counter(&wi, 2, 0x40030401u, 0, 0, 0, 0, 0, 0, 0); /* SAMPLE_BASE */
    data_begin(&wn, 1000000, 0, 1000u);
    b = block_begin(&wn, 2);
    multi_counters(&wn, ids, 2);
    value32(&wn, 5);
    value32(&wn, 0); /* the base: 0 */
    block_end(&wn, b);
    data_end(&wn, 1);
    if (decode_info(&wi, &info) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "base zero: %s, %zu rows", pcq_status_name(rc), n);
    for (i = 0; i < n; i++) {
        int base = rows[i].type == 0x40030401u;
        TL_CHECK(!(rows[i].notes & PCQ_CALC_NOTE_BASE_ZERO) == !base, "row %zu (type 0x%08x): notes 0x%x", i,
                 rows[i].type, rows[i].notes);
        noted += base && (rows[i].notes & PCQ_CALC_NOTE_BASE_ZERO);
    }
    TL_CHECK(noted == 1, "the base's row is noted");

    /* A base of 4: no note. */
    patch32(&wn, wn.n - 8, 4);
    if (decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2 && rows[1].type == 0x40030401u && rows[1].notes == 0,
             "base 4: %s, %zu rows, notes 0x%x", pcq_status_name(rc), n, n == 2 ? rows[1].notes : 0);
}

/* ------------------------------------------------------------------------ */
/* Cooking a column: every row is what pcq_calc_value gives for its samples */
/* ------------------------------------------------------------------------ */

/* Row i of a column as the samples pcq_calc_value takes. */
static pcq_calc_sample col_sample(const pcq_calc_column *c, size_t i)
{
    pcq_calc_sample s;
    memset(&s, 0, sizeof s);
    s.value = c->value[i];
    s.value_size = c->value_size;
    s.time = c->time;
    s.time_100ns = c->time_100ns;
    s.freq = c->freq;
    return s;
}

/* The column of `type` over values ov -> nv (a 100 ns interval of 1000)
 * agrees row by row with pcq_calc_value: status, notes, the value bit for
 * bit. */
static void column_is_value(int line, uint32_t type, unsigned flags, const uint64_t *ov, const uint64_t *nv,
                            size_t n, pcq_calc_cell *out)
{
    pcq_calc_column oc, nc;
    pcq_calc_sample o, s;
    size_t i;
    memset(&oc, 0, sizeof oc);
    oc.value = ov;
    oc.value_size = 8;
    oc.time = 50000;
    oc.time_100ns = 1000;
    oc.freq = 10000000;
    nc = oc;
    nc.value = nv;
    nc.time = 60000;
    nc.time_100ns = 2000;
    if (!tl_check(pcq_calc_cook_column(type, 0, flags, &oc, &nc, n, out) == PCQ_OK, "line %d: column", line))
        return;
    for (i = 0; i < n; i++) {
        double v = 0.0;
        unsigned notes = 0;
        int st;
        o = col_sample(&oc, i);
        s = col_sample(&nc, i);
        st = pcq_calc_value(type, 0, &o, &s, flags, &v, &notes);
        tl_check(out[i].status == st && out[i].notes == notes &&
                     out[i].value == (st == PCQ_CALC_OK ? v : 0.0),
                 "line %d: type 0x%08x flags 0x%x row %zu: column %s %.17g 0x%x, value %s %.17g 0x%x", line,
                 (unsigned)type, flags, i, pcq_calc_status_name(out[i].status), out[i].value, out[i].notes,
                 pcq_calc_status_name(st), v, notes);
    }
}

/* pcq_calc_column.stride: the columns of `type` (value, base, obj_time,
 * obj_freq: 4 columns of n rows, n <= 4) cooked as they are and as tables of
 * rows (the newer's 4 values a row, the older's 6: two more between rows
 * that no row may read) give the same cells, bit for bit. */
static void strided_is_columns(int line, uint32_t type, const uint64_t ov[4][4], const uint64_t nv[4][4],
                               size_t n)
{
    uint64_t tn[4 * 4], to[4 * 6];
    pcq_calc_column oc, nc, so, sn;
    pcq_calc_cell a[4], b[4];
    size_t i, k;
    memset(&oc, 0, sizeof oc);
    oc.value_size = oc.base_size = 8;
    oc.time = 50000;
    oc.time_100ns = 1000;
    oc.freq = 10000000;
    nc = oc;
    nc.time = 60000;
    nc.time_100ns = 2000;
    so = oc;
    sn = nc;
    oc.value = ov[0], oc.base = ov[1], oc.obj_time = ov[2], oc.obj_freq = ov[3];
    nc.value = nv[0], nc.base = nv[1], nc.obj_time = nv[2], nc.obj_freq = nv[3];
    for (i = 0; i < n; i++) {
        for (k = 0; k < 4; k++) {
            tn[i * 4 + k] = nv[k][i];
            to[i * 6 + k] = ov[k][i];
        }
        to[i * 6 + 4] = to[i * 6 + 5] = 0xFFFFFFFFFFFFFFF0u; /* read, they would change the cells */
    }
    sn.stride = 4;
    so.stride = 6;
    sn.value = tn, sn.base = tn + 1, sn.obj_time = tn + 2, sn.obj_freq = tn + 3;
    so.value = to, so.base = to + 1, so.obj_time = to + 2, so.obj_freq = to + 3;
    if (!tl_check(pcq_calc_cook_column(type, 0, 0, &oc, &nc, n, a) == PCQ_OK &&
                      pcq_calc_cook_column(type, 0, 0, &so, &sn, n, b) == PCQ_OK,
                  "line %d: columns", line))
        return;
    for (i = 0, k = 0; i < n; i++) k += a[i].status == PCQ_CALC_OK && a[i].value != 0.0;
    tl_check(k > 0, "line %d: type 0x%08x: no row cooked to a value (the case would test nothing)", line,
             (unsigned)type);
    for (i = 0; i < n; i++)
        tl_check(a[i].status == b[i].status && a[i].notes == b[i].notes &&
                     memcmp(&a[i].value, &b[i].value, sizeof a[i].value) == 0,
                 "line %d: type 0x%08x row %zu: columns %s %.17g, strided %s %.17g", line, (unsigned)type, i,
                 pcq_calc_status_name(a[i].status), a[i].value, pcq_calc_status_name(b[i].status),
                 b[i].value);
}

static void test_cook_column(void)
{
    /* PERF_100NSEC_TIMER_INV: 100 (1 - dN / dT100), dT100 = 1000. Deltas of
     * 0, 250, 1000 and 1500: 100 %, 75 %, 0 %, and -50 %, which is held to
     * 0 (PCQ_CALC_NOTE_CAPPED), or with NOCAP100 a PCQ_CALC_NEGATIVE_VALUE. */
    static const uint64_t ov[4] = {7000, 7000, 7000, 7000}, nv[4] = {7000, 7250, 8000, 8500};
    static const uint64_t one[1] = {1};
    pcq_calc_cell out[4];
    pcq_calc_column c;

    column_is_value(__LINE__, 0x21510500u, 0, ov, nv, 4, out);
    TL_CHECK(out[0].value == 100.0 && out[1].value == 75.0 && out[2].status == PCQ_CALC_OK &&
                 out[2].value == 0.0 && out[2].notes == 0,
             "TIMER_INV: %g %g %g", out[0].value, out[1].value, out[2].value);
    TL_CHECK(out[3].status == PCQ_CALC_OK && out[3].value == 0.0 && out[3].notes == PCQ_CALC_NOTE_CAPPED,
             "TIMER_INV below 0: %s %g 0x%x", pcq_calc_status_name(out[3].status), out[3].value,
             out[3].notes);
    column_is_value(__LINE__, 0x21510500u, PCQ_CALC_NOCAP100, ov, nv, 4, out);
    TL_CHECK(out[3].status == PCQ_CALC_NEGATIVE_VALUE && out[3].value == 0.0 && out[3].notes == 0,
             "TIMER_INV below 0, NOCAP100: %s", pcq_calc_status_name(out[3].status));
    /* PERF_COUNTER_TIMER_INV (the tick clock, dT = 10000): the same kernel. */
    column_is_value(__LINE__, 0x21410500u, 0, ov, nv, 4, out);

    /* Strided columns (tables of rows): a kernel with a base column (PERF_SAMPLE_FRACTION), one
     * without (PERF_COUNTER_BULK_COUNT), a row at a time (PERF_OBJ_TIME_TIMER: obj_time and obj_freq) */
    {
        static const uint64_t sov[4][4] = {{100, 200, 300, 400},
                                           {10, 20, 30, 40},
                                           {5000, 5000, 6000, 7000},
                                           {1000, 1000, 1000, 1000}};
        static const uint64_t snv[4][4] = {{150, 260, 300, 900},
                                           {20, 20, 50, 90},
                                           {6000, 9000, 6000, 8000},
                                           {1000, 1000, 1000, 1000}};
        strided_is_columns(__LINE__, 0x20C20400u, sov, snv, 4);
        strided_is_columns(__LINE__, 0x10410500u, sov, snv, 4);
        strided_is_columns(__LINE__, 0x20610500u, sov, snv, 4);
        strided_is_columns(__LINE__, 0x21510500u, sov, snv, 3);
    }

    /* Arguments: a NULL array that the n rows need; n = 0 needs none. */
    memset(&c, 0, sizeof c);
    c.value = one;
    TL_CHECK(pcq_calc_cook_column(0x00010000u, 0, 0, NULL, NULL, 1, out) == PCQ_ERR_INVALID_ARG,
             "column: no newer column");
    TL_CHECK(pcq_calc_cook_column(0x00010000u, 0, 0, NULL, &c, 1, NULL) == PCQ_ERR_INVALID_ARG,
             "column: no out");
    TL_CHECK(pcq_calc_cook_column(0x00400400u, 0, 0, &c, &c, 1, out) == PCQ_OK && out[0].value == 0.0,
             "column: one row, delta 0");
    c.value = NULL;
    TL_CHECK(pcq_calc_cook_column(0x00010000u, 0, 0, NULL, &c, 1, out) == PCQ_ERR_INVALID_ARG,
             "column: no newer values");
    TL_CHECK(pcq_calc_cook_column(0x00010000u, 0, 0, NULL, &c, 0, NULL) == PCQ_OK,
             "column: no rows, no arrays");
    {
        pcq_calc_column nc = c;
        nc.value = one;
        TL_CHECK(pcq_calc_cook_column(0x00400400u, 0, 0, &c, &nc, 1, out) == PCQ_ERR_INVALID_ARG,
                 "column: no older values");
    }
}

/* ------------------------------------------------------------------------ */
/* Cooking: two different instances whose 32-bit hashes collide             */
/* ------------------------------------------------------------------------ */
/* The join sorts the groups by a hash of their instance and sorts a run of
 * one hash that holds two instances by the instances themselves (sort_groups,
 * then heapsort by key_cmp). ("42y", 7) and ("dlI", 7) collide: found by a
 * throwaway program running pcq_calc.c's instance_hash over every 3-unit
 * name from a 64-character alphabet with InstanceId 7 (both hash to
 * 0x1a7059d9). Names under 8 bytes hash the same on every host (no word
 * loads). One short name cannot collide with itself under other InstanceIds:
 * for a fixed name under 8 bytes the hash is a bijection of the InstanceId.
 * ("dlJ", 7) hashes elsewhere (0x5d58e967): the same cook without the
 * collision. */
#define HC_A       "42y"
#define HC_B       "dlI"
#define HC_B_APART "dlJ"

typedef struct hc_inst {
    int tag; /* 1 A, 2 B, 3 ("x", 1), 4 ("y", 2) */
    int occ; /* its occurrence among equal instances, in wire order */
} hc_inst;

static void hc_name(int tag, const char *b, const char **name, uint32_t *id)
{
    *name = tag == 1 ? HC_A : tag == 2 ? b : tag == 3 ? "x" : "y";
    *id = tag <= 2 ? 7u : tag == 3 ? 1u : 2u;
}

/* Value of (tag, occ) for counter c: the newer's; the older's is that less
 * hc_delta, so a row matched with another instance's older value is off. */
static uint64_t hc_newer(int tag, int occ, uint32_t c)
{
    return 50000u + 1000u * (uint64_t)tag + 10u * (uint64_t)occ + 5000u * c;
}
static uint64_t hc_delta(int tag, int occ, uint32_t c)
{
    return 100u * (uint64_t)tag + (uint64_t)occ + 1u + 10u * c;
}

/* One block of type 6 (counter 1) or 4 (counter 2, by its identifier) with
 * the instances `list`, the newer's values or the older's. */
static void hc_block(wbuf *w, int newer, const char *b, int type, const hc_inst *list, size_t n)
{
    static const uint32_t id1[1] = {1};
    const uint32_t c = type == 6 ? 1u : 2u;
    const char *name;
    uint32_t id;
    size_t blk, mi, k;
    blk = block_begin(w, (uint32_t)type);
    if (type == 6) multi_counters(w, id1, 1);
    mi = multi_instances_begin(w);
    for (k = 0; k < n; k++) {
        uint64_t v = hc_newer(list[k].tag, list[k].occ, c);
        hc_name(list[k].tag, b, &name, &id);
        instance(w, id, name);
        value64(w, newer ? v : v - hc_delta(list[k].tag, list[k].occ, c));
    }
    multi_instances_end(w, mi, (uint32_t)n);
    block_end(w, blk);
}

/* Block 0: type 6, counter 1, the instances `six`; block 1: type 4 (its
 * identifier: counter 2), the instances `four`. */
static void hc_data(wbuf *w, int newer, const char *b, const hc_inst *six, size_t n6, const hc_inst *four,
                    size_t n4)
{
    data_begin(w, newer ? 2000 : 1000, 0, 1000u);
    hc_block(w, newer, b, 6, six, n6);
    hc_block(w, newer, b, 4, four, n4);
    data_end(w, 2);
}

/* Cook k (0 or 1) keeps its buffers: the rows point into them. */
static void hc_cook(int k, const char *b, pcq_calc_row *rows, size_t cap, size_t *n)
{
    /* Newer: A three times (the third has no older match), B, x, y; the
     * older lists them in another order, so the samples are joined. */
    static const hc_inst n6[6] = {{1, 0}, {2, 0}, {3, 0}, {1, 1}, {4, 0}, {1, 2}};
    static const hc_inst o6[5] = {{4, 0}, {2, 0}, {1, 0}, {3, 0}, {1, 1}};
    static const hc_inst n4[3] = {{1, 0}, {2, 0}, {3, 0}};
    static const hc_inst o4[3] = {{2, 0}, {3, 0}, {1, 0}};
    static wbuf wi, wo[2], wn[2];
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_identifier ids[2];
    size_t need = 0;
    int rc;

    *n = 0;
    info_begin(&wi, 2, 2);
    info_counter(&wi, 1, 0x00400400u, 0, 0, 0, 0, 0, 0, 0); /* PERF_COUNTER_DELTA */
    info_counter(&wi, 2, 0x00400400u, 0, 0, 0, 0, 0, 0, 0);
    hc_data(&wo[k], 0, b, o6, 5, o4, 3);
    hc_data(&wn[k], 1, b, n6, 6, n4, 3);
    if (decode_info(&wi, &info) || decode_data(&wo[k], &od) || decode_data(&wn[k], &nd)) return;
    memset(ids, 0, sizeof ids);
    ids[0].counter_id = 1; /* block 0 lists its counters */
    ids[1].counter_id = 2;
    ids[1].index = 1;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, NULL, 0, &need, NULL);
    if (!TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && need <= cap, "%s: sizing %s, %zu", b, pcq_status_name(rc),
                  need))
        return;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, rows, need, n, NULL);
    TL_CHECK(rc == PCQ_OK && *n == 9, "%s: %s, %zu rows", b, pcq_status_name(rc), *n);
}

static void test_cook_hash_collision(void)
{
    static const hc_inst want[9] = {{1, 0}, {2, 0}, {3, 0}, {1, 1}, {4, 0}, {1, 2}, {1, 0}, {2, 0}, {3, 0}};
    static pcq_calc_row rows[200], apart[200];
    size_t n = 0, na = 0, i, bad = 0, differ = 0;

    hc_cook(0, HC_B, rows, CAP(rows), &n);
    hc_cook(1, HC_B_APART, apart, CAP(apart), &na);
    if (n != 9 || na != 9) return;
    /* Rows in the newer's wire order; each the delta of its own instance and
     * occurrence, the third A none (no older); name#n by (InstanceId,
     * position) among equal names: A 0, 1, 2; the rest 0. */
    for (i = 0; i < n; i++) {
        const pcq_calc_row *r = &rows[i];
        uint32_t c = i < 6 ? 1 : 2;
        const char *name;
        uint32_t id;
        hc_name(want[i].tag, HC_B, &name, &id);
        if (r->counter_id != c || r->instance_id != id || !named(r, name) ||
            r->dup_index != (uint32_t)want[i].occ)
            bad++;
        else if (want[i].tag == 1 && want[i].occ == 2)
            bad += r->status != PCQ_CALC_NEED_SECOND_SAMPLE;
        else
            bad += r->status != PCQ_CALC_OK || r->value != (double)hc_delta(want[i].tag, want[i].occ, c);
        /* Without the collision: the same row, but for the name's bytes. */
        differ += r->status != apart[i].status || r->value != apart[i].value || r->notes != apart[i].notes ||
                  r->dup_index != apart[i].dup_index || r->counter_id != apart[i].counter_id ||
                  r->instance_id != apart[i].instance_id || r->block_index != apart[i].block_index ||
                  r->offset != apart[i].offset || r->instance.len != apart[i].instance.len;
    }
    TL_CHECK(bad == 0, "colliding instances: %zu rows wrong", bad);
    TL_CHECK(differ == 0, "colliding instances: %zu rows differ from the cook without the collision", differ);
}

/* ------------------------------------------------------------------------ */
/* Cooking: names crafted to collide                                        */
/* ------------------------------------------------------------------------ */
/* The cook's two hashes (pcq_calc.c instance_hash, which orders the join,
 * and name_hash, which buckets name#n) have no secret, and each step of
 * them is one-to-one, so a name's last 8-byte word can be computed back
 * from the hash it is to have (cook_hashes.h; bench/hostile.c does it at
 * 1 MiB). The names below are so computed; they collide on any host. If
 * the hashes change, the names stop colliding and this test still checks
 * every row (not the path). Newer sample, one type 6 block of counter 1, in wire order:
 *   - 40 names of one word, InstanceId 9, whose instance hashes share their
 *     low 24 bits, and 3 of two words (one run of the join's sort, two
 *     stretches of one InstanceId and length);
 *   - 40 names of one word and 3 of two whose name#n hashes share their top
 *     32 bits (one bucket, 86 leaders), each under InstanceId 2, then 1;
 *   - 3 names whose name#n hashes share other top bits (a short bucket),
 *     each under InstanceId 2, then 1.
 * The older sample lists the same instances in reverse, every value less
 * a delta of its own: each row must be its own instance's delta, and every
 * name's instance with InstanceId 1 is name#0, with 2 name#1. */
#define CN_RUN    43
#define CN_BUCKET 43
#define CN_SHORT  3
#define CN_ALL    (CN_RUN + 2 * CN_BUCKET + 2 * CN_SHORT)

typedef struct cn_inst {
    uint8_t name[16];
    size_t len;
    uint32_t id, dup;
} cn_inst;

/* 1 when the words make a name without a U+0000 unit. */
static int cn_set(cn_inst *c, uint64_t first, uint64_t last, int words, uint32_t id, uint32_t dup)
{
    memcpy(c->name, &first, 8);
    memcpy(c->name + 8 * (words - 1), &last, 8); /* host order, as the hashes load them */
    c->len = 8 * (size_t)words;
    c->id = id;
    c->dup = dup;
    return !ch_has_nul_unit(first) && !ch_has_nul_unit(last);
}

static void cn_names(cn_inst *all)
{
    const uint64_t first = 0x0062006100640063u; /* "cdab" on a little-endian host */
    uint64_t k = 0;
    size_t n = 0, i;
    cn_inst c;
    for (i = 0; i < CN_RUN; i++) {
        int words = i < CN_RUN - 3 ? 1 : 2;
        while (!cn_set(&c, first, ch_instance_word(9, words, first, ++k << 24 | 0xABCDEFu), words, 9, 0))
            ;
        all[n++] = c;
    }
    for (i = 0; i < CN_BUCKET + CN_SHORT; i++) {
        int words = i < CN_BUCKET - 3 || i >= CN_BUCKET ? 1 : 2;
        uint64_t top = i < CN_BUCKET ? 0x5A5A5A5Au : 0x3C3C3C3Cu;
        while (!cn_set(&c, first, ch_bucket_word(1, words, first, top << 32 | ++k), words, 2, 1))
            ;
        all[n++] = c;
        c.id = 1;
        c.dup = 0;
        all[n++] = c;
    }
}

static void cn_raw_instance(wbuf *w, const cn_inst *c)
{
    size_t at = w->n;
    put32(w, 0);
    put32(w, c->id);
    memcpy(w->b + w->n, c->name, c->len);
    w->n += c->len;
    w->b[w->n++] = 0;
    w->b[w->n++] = 0;
    pad8(w);
    patch32(w, at, (uint32_t)(w->n - at));
}

/* A sample of one type 6 block of counter 1 (a delta; newer: clock 2000,
 * else 1000): its instances come between these two. */
static size_t set1_begin(wbuf *w, int newer, size_t *blk)
{
    static const uint32_t id1[1] = {1};
    data_begin(w, newer ? 2000 : 1000, 0, 1000u);
    *blk = block_begin(w, 6);
    multi_counters(w, id1, 1);
    return multi_instances_begin(w);
}

static void set1_end(wbuf *w, size_t blk, size_t mi, uint32_t n)
{
    multi_instances_end(w, mi, n);
    block_end(w, blk);
    data_end(w, 1);
}

static void cn_data(wbuf *w, const cn_inst *all, int newer)
{
    size_t blk, mi = set1_begin(w, newer, &blk), k, i;
    for (k = 0; k < CN_ALL; k++) {
        i = newer ? k : CN_ALL - 1 - k;
        cn_raw_instance(w, &all[i]);
        value64(w, 1000000u - (newer ? 0 : 7 * i + 1));
    }
    set1_end(w, blk, mi, CN_ALL);
}

static void test_cook_crafted_collisions(void)
{
    static cn_inst all[CN_ALL];
    static wbuf wi, wo, wn;
    static pcq_calc_row rows[4 * CN_ALL + 64];
    pcq_counterset_info info;
    pcq_data od, nd;
    size_t n = 0, need = 0, i, bad = 0;
    int rc;

    cn_names(all);
    info_begin(&wi, 1, 2);
    info_counter(&wi, 1, 0x00400400u, 0, 0, 0, 0, 0, 0, 0); /* PERF_COUNTER_DELTA */
    cn_data(&wo, all, 0);
    cn_data(&wn, all, 1);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, NULL, 0, &need, NULL);
    if (!TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && need > CN_ALL && need <= CAP(rows),
                  "crafted collisions: sizing %s, %zu (the samples are joined: working memory)",
                  pcq_status_name(rc), need))
        return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, need, &n, NULL);
    if (!TL_CHECK(rc == PCQ_OK && n == CN_ALL, "crafted collisions: %s, %zu rows", pcq_status_name(rc), n))
        return;
    for (i = 0; i < n; i++) {
        const pcq_calc_row *r = &rows[i];
        bad += r->status != PCQ_CALC_OK || r->value != (double)(7 * i + 1) || r->instance_id != all[i].id ||
               r->instance.len != all[i].len || memcmp(r->instance.ptr, all[i].name, all[i].len) != 0 ||
               r->dup_index != all[i].dup;
    }
    TL_CHECK(bad == 0, "crafted collisions: %zu of %zu rows wrong", bad, n);
}

/* A short name#n bucket of several names (pcq_calc.c sort_short): 8
 * one-unit names whose name hashes put them in one bucket of the 40 the cook
 * makes (one a row), found by running the hash forward (cook_hashes.h), each
 * named three times with InstanceIds 3, 1, 2 in wire order, the names in
 * descending order; and 16 names of other buckets once each. One sample
 * (a raw count): every row's n is its InstanceId's rank among its name's. */
static void test_cook_short_bucket(void)
{
    static wbuf wi, wn;
    pcq_calc_row rows[64];
    pcq_counterset_info info;
    pcq_data nd;
    uint8_t in[8][2], out[16][2], nm[2];
    size_t n = 0, nin = 0, nout = 0, blk, mi, k, bad = 0;
    uint32_t u, id;
    int rc;
    for (u = 0xFFFF; u > 0 && (nin < 8 || nout < 16); u--) { /* descending: each insertion the farthest */
        nm[0] = (uint8_t)u;
        nm[1] = (uint8_t)(u >> 8);
        if (((uint64_t)ch_name_hash_short(1, nm, 2) * 40) >> 32 == 7) {
            if (nin < 8) memcpy(in[nin++], nm, 2);
        } else if (nout < 16 && u % 97 == 0) {
            memcpy(out[nout++], nm, 2);
        }
    }
    info_begin(&wi, 1, 2);
    info_counter(&wi, 1, 0x00010000u, 0, 0, 0, 0, 0, 0, 0); /* PERF_COUNTER_RAWCOUNT */
    mi = set1_begin(&wn, 1, &blk);
    for (k = 0; k < 40; k++) {
        cn_inst c;
        memset(&c, 0, sizeof c);
        c.len = 2;
        if (k < 24) {
            memcpy(c.name, in[k % 8], 2);
            c.id = k < 8 ? 3 : k < 16 ? 1 : 2;
        } else {
            memcpy(c.name, out[k - 24], 2);
            c.id = 5;
        }
        cn_raw_instance(&wn, &c);
        value64(&wn, 100 + k);
    }
    set1_end(&wn, blk, mi, 40);
    if (!TL_CHECK(nin == 8 && nout == 16, "short bucket: %zu and %zu names", nin, nout) ||
        decode_info(&wi, &info) || decode_data(&wn, &nd))
        return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    if (!TL_CHECK(rc == PCQ_OK && n == 40, "short bucket: %s, %zu rows", pcq_status_name(rc), n)) return;
    for (k = 0; k < n; k++) {
        id = k < 8 ? 3 : k < 16 ? 1 : k < 24 ? 2 : 5;
        bad += rows[k].status != PCQ_CALC_OK || rows[k].value != (double)(100 + k) ||
               rows[k].instance_id != id || rows[k].dup_index != (k < 24 ? id - 1 : 0);
    }
    TL_CHECK(bad == 0, "short bucket: %zu of %zu rows wrong", bad, n);
}

/* ------------------------------------------------------------------------ */
/* Cooking: samples alike up to a point, then not                           */
/* ------------------------------------------------------------------------ */
/* The cook walks the groups the two samples list alike from their first in
 * lockstep and joins only the rest (cook_prepare). The pairs must be the
 * join's: the k-th newer instance of a key with the k-th older one, in wire
 * order. Newer: AP_N instances of one type 6 block (counter 1, a delta),
 * keys from 3 names x 2 InstanceIds, so that each key comes back often. The
 * older lists the same up to `p`; past it, `how`: 0 the rest reversed, 1
 * the rest reversed less its last and with an instance of a key of its own
 * first, 2 the same list with one key changed at p. Each older instance's
 * value is the newer one of its key and occurrence less a delta of that key
 * and occurrence: the oracle below pairs them without the cook's code. */
#define AP_N 40

typedef struct ap_inst {
    const char *name;
    uint32_t id;
} ap_inst;

static void ap_newer(ap_inst *v)
{
    static const char *const names[3] = {"a", "bb", "c"};
    uint32_t k;
    for (k = 0; k < AP_N; k++) {
        v[k].name = names[k % 3];
        v[k].id = 1 + (k / 3) % 2;
    }
}

/* The older list; its length. */
static size_t ap_older(const ap_inst *nw, size_t p, int how, ap_inst *v)
{
    size_t k, n = 0;
    for (k = 0; k < p; k++) v[n++] = nw[k];
    if (how == 1) {
        v[n].name = "z";
        v[n++].id = 9;
    }
    if (how == 2) {
        for (k = p; k < AP_N; k++) v[n++] = nw[k];
        if (p < AP_N) v[p].id = 7; /* one key changed */
        return n;
    }
    for (k = AP_N; k > p + (how == 1); k--) v[n++] = nw[k - 1];
    return n;
}

static int ap_same(const ap_inst *a, const ap_inst *b)
{
    return a->id == b->id && strcmp(a->name, b->name) == 0;
}

/* Its occurrence among the instances of its key before it in list v. */
static size_t ap_occ(const ap_inst *v, size_t i)
{
    size_t k, o = 0;
    for (k = 0; k < i; k++) o += (size_t)ap_same(&v[k], &v[i]);
    return o;
}

/* The instance of v[0..n) with key *key and occurrence o, or n. */
static size_t ap_find(const ap_inst *v, size_t n, const ap_inst *key, size_t o)
{
    size_t k;
    for (k = 0; k < n; k++)
        if (ap_same(&v[k], key) && ap_occ(v, k) == o) return k;
    return n;
}

static uint64_t ap_delta(const ap_inst *key, size_t o)
{
    return 7u + 13u * (uint64_t)o + 100u * key->id + (uint64_t)(unsigned char)key->name[0];
}

/* loose: a PERF_SINGLE_COUNTER block after the set (counter 2: 500 newer,
 * 400 older), which makes the samples loose: indexed whole and joined,
 * never cooked in lockstep. */
static void ap_data(wbuf *w, const ap_inst *v, size_t n, const ap_inst *nw, int newer, int loose)
{
    size_t blk, mi = set1_begin(w, newer, &blk), k, j;
    for (k = 0; k < n; k++) {
        size_t o = ap_occ(v, k);
        instance(w, v[k].id, v[k].name);
        if (newer)
            value64(w, 1000000u + 1000u * k);
        else { /* the newer value of its key and occurrence (if any) less the delta */
            j = ap_find(nw, AP_N, &v[k], o);
            value64(w, (j < AP_N ? 1000000u + 1000u * j : 5000000u) - ap_delta(&v[k], o));
        }
    }
    if (!loose) {
        set1_end(w, blk, mi, (uint32_t)n);
        return;
    }
    multi_instances_end(w, mi, (uint32_t)n);
    block_end(w, blk);
    blk = block_begin(w, 1);
    value32(w, newer ? 500 : 400);
    block_end(w, blk);
    data_end(w, 2);
}

static void test_cook_agree_prefix(void)
{
    static const size_t ps[6] = {0, 1, 2, 17, AP_N - 1, AP_N};
    static wbuf wi, wo, wn;
    static pcq_calc_row rows[8 * AP_N + 64];
    ap_inst nw[AP_N], old[AP_N + 1];
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_identifier ids[2];
    size_t pi, n, need, i, no, bad = 0, runs = 0;
    int how, variant, out_of_order, loose, rc;

    ap_newer(nw);
    info_begin(&wi, 2, 2);
    info_counter(&wi, 1, 0x00400400u, 0, 0, 0, 0, 0, 0, 0); /* PERF_COUNTER_DELTA */
    info_counter(&wi, 2, 0x00400400u, 0, 0, 0, 0, 0, 0, 0); /* the loose block's (block 1: no identifiers) */
    if (decode_info(&wi, &info)) return;
    memset(ids, 0, sizeof ids); /* identifiers out of order: the plan does not look, the cook does */
    ids[0].index = 1;
    for (pi = 0; pi < 6; pi++)
        for (how = 0; how < 3; how++)
            for (variant = 0; variant < 3; variant++) { /* in order, identifiers out of order, loose */
                out_of_order = variant == 1;
                loose = variant == 2;
                no = ap_older(nw, ps[pi], how, old);
                ap_data(&wo, old, no, nw, 0, loose);
                ap_data(&wn, nw, AP_N, nw, 1, loose);
                if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
                need = 0;
                rc = pcq_calc_cook(&info, &od, &nd, out_of_order ? ids : NULL, out_of_order ? 2 : 0, 0, NULL,
                                   0, &need, NULL);
                if (rc != PCQ_ERR_BUFFER_TOO_SMALL || need > CAP(rows)) {
                    bad++;
                    continue;
                }
                rc = pcq_calc_cook(&info, &od, &nd, out_of_order ? ids : NULL, out_of_order ? 2 : 0, 0, rows,
                                   need, &n, NULL);
                if (rc != PCQ_OK || n != AP_N + (size_t)loose) {
                    bad++;
                    continue;
                }
                if (loose) /* the single-counter block's row, last: 500 - 400 */
                    bad += rows[AP_N].counter_id != 2 || rows[AP_N].status != PCQ_CALC_OK ||
                           rows[AP_N].value != 100.0;
                for (i = 0; i < AP_N; i++) {
                    size_t o = ap_occ(nw, i), j = ap_find(old, no, &nw[i], o);
                    bad += j < no
                               ? rows[i].status != PCQ_CALC_OK || rows[i].value != (double)ap_delta(&nw[i], o)
                               : rows[i].status != PCQ_CALC_NEED_SECOND_SAMPLE;
                }
                runs++;
            }
    TL_CHECK(bad == 0 && runs == 54, "samples alike up to a point: %zu wrong of %zu cooks", bad, runs);
}

/* ------------------------------------------------------------------------ */
/* Cooking: groups that are not in lockstep at the first one (a type 2      */
/* block against an instance; an instance of a type 6 block against one of  */
/* a type 4 block; two single-counter blocks of other counters), so the     */
/* samples are joined: each group meets its own older values, if any.       */
/* ------------------------------------------------------------------------ */
static void order_data(wbuf *w, int newer, int swapped)
{
    static const uint32_t id1[1] = {1};
    size_t b, mi, k;
    data_begin(w, newer ? 2000 : 1000, 0, 1000u);
    for (k = 0; k < 2; k++)
        if ((k == 0) != swapped) { /* block 2: counter 1, single instance */
            b = block_begin(w, 2);
            multi_counters(w, id1, 1);
            value32(w, newer ? 500 : 400);
            block_end(w, b);
        } else {
            b = block_begin(w, 6);
            multi_counters(w, id1, 1);
            mi = multi_instances_begin(w);
            instance(w, 3, "x");
            value32(w, newer ? 800 : 790);
            multi_instances_end(w, mi, 1);
            block_end(w, b);
        }
    data_end(w, 2);
}

/* n blocks of type 1, value v[k] in block k. */
static void singles_data(wbuf *w, uint64_t t, const uint32_t *v, uint32_t n)
{
    uint32_t k;
    size_t b;
    data_begin(w, t, 0, 1000u);
    for (k = 0; k < n; k++) {
        b = block_begin(w, 1);
        value32(w, v[k]);
        block_end(w, b);
    }
    data_end(w, n);
}

/* A type 6 block, then a type 4 block (its identifier: counter 2); the
 * older's type 6 block has no instance, and with `more` its type 4 block a
 * second one (as many groups as the newer's, the first of another kind). */
static void kinds_data(wbuf *w, int newer, int more)
{
    static const uint32_t id1[1] = {1};
    size_t b, mi;
    data_begin(w, newer ? 2000 : 1000, 0, 1000u);
    b = block_begin(w, 6);
    multi_counters(w, id1, 1);
    mi = multi_instances_begin(w);
    if (newer) {
        instance(w, 3, "x");
        value32(w, 800);
    }
    multi_instances_end(w, mi, newer ? 1 : 0);
    block_end(w, b);
    b = block_begin(w, 4);
    mi = multi_instances_begin(w);
    instance(w, 4, "z");
    value32(w, newer ? 70 : 63);
    if (more) {
        instance(w, 5, "y");
        value32(w, 50);
    }
    multi_instances_end(w, mi, more ? 2 : 1);
    block_end(w, b);
    data_end(w, 2);
}

static void test_cook_not_lockstep(void)
{
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[40];
    pcq_identifier ids[2];
    size_t n = 0;
    int rc;

    info_begin(&wi, 2, 2);
    info_counter(&wi, 1, 0x00400400u, 0, 0, 0, 0, 0, 0, 0); /* PERF_COUNTER_DELTA */
    info_counter(&wi, 2, 0x00400400u, 0, 0, 0, 0, 0, 0, 0);
    if (decode_info(&wi, &info)) return;
    order_data(&wo, 0, 1);
    order_data(&wn, 1, 0);
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "blocks swapped: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, NULL, 0, PCQ_CALC_OK, 100.0); /* 500 - 400 */
    ROW(1, "x", 0, PCQ_CALC_OK, 10.0);   /* 800 - 790 */

    memset(ids, 0, sizeof ids);
    ids[0].counter_id = 1;
    ids[1].counter_id = 2;
    ids[1].index = 1;
    kinds_data(&wo, 0, 0);
    kinds_data(&wn, 1, 0);
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "kinds: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, "x", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0); /* not in the older sample */
    ROW(2, "z", 0, PCQ_CALC_OK, 7.0);               /* 70 - 63 */
    /* as many groups (two), the first a type 6 instance against a type 4 one */
    kinds_data(&wo, 0, 1);
    if (decode_data(&wo, &od)) return;
    rc = pcq_calc_cook(&info, &od, &nd, ids, 2, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "kinds, as many groups: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, "x", 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0); /* not in the older sample */
    ROW(2, "z", 0, PCQ_CALC_OK, 7.0);

    /* Single-counter blocks with no identifiers (block i: counter i + 1);
     * the older's block 0 is an error block, so its first group is block 1's
     * (counter 2) against the newer's block 0 (counter 1). */
    {
        static const uint32_t nv[2] = {110, 230};
        size_t b;
        singles_data(&wn, 2000, nv, 2);
        data_begin(&wo, 1000, 0, 1000u);
        b = block_begin(&wo, 0);
        patch32(&wo, b, 232); /* ERROR_NO_DATA */
        block_end(&wo, b);
        b = block_begin(&wo, 1);
        value32(&wo, 200);
        block_end(&wo, b);
        data_end(&wo, 2);
    }
    if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "an error block first: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, NULL, 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0); /* the older's block 0 holds no value */
    ROW(2, NULL, 0, PCQ_CALC_OK, 30.0);              /* 230 - 200 */

    /* One group each, of other counters: the newer's block 0 (counter 1),
     * then an error block; the older's error block, then block 1 (counter 2). */
    {
        size_t b;
        data_begin(&wn, 2000, 0, 1000u);
        b = block_begin(&wn, 1);
        value32(&wn, 110);
        block_end(&wn, b);
        b = block_begin(&wn, 0);
        patch32(&wn, b, 232); /* ERROR_NO_DATA */
        block_end(&wn, b);
        data_end(&wn, 2);
    }
    if (decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 1, "one group each, other counters: %s, %zu rows", pcq_status_name(rc), n);
    ROW(1, NULL, 0, PCQ_CALC_NEED_SECOND_SAMPLE, 0); /* the older has no counter 1 */
}

/* ------------------------------------------------------------------------ */
/* Cooking: instances packed without padding (Size 12: the header and a     */
/* one-character name; then a 16-byte value: 28 bytes, so every instance    */
/* after the first is unaligned). Not canonical: the cook reads each value  */
/* where the instance's step found it. The older sample in the same order,  */
/* reversed (the join), and with a single-counter block after (loose).      */
/* ------------------------------------------------------------------------ */
static void packed_sample(wbuf *w, uint64_t t, int reversed, int loose, const uint32_t *v)
{
    uint32_t k, i, block = 40 + 3 * 28;
    w->n = 0;
    put32(w, 48 + block + (loose ? 32u : 0u)); /* dwTotalSize */
    put32(w, loose ? 2u : 1u);                 /* dwNumCounter */
    put64(w, t);                               /* PerfTimeStamp */
    put64(w, 0);                               /* PerfTime100NSec */
    put64(w, 1000);                            /* PerfFreq */
    put64(w, 0);                               /* SystemTime */
    put64(w, 0);
    put32(w, 0); /* block: dwStatus, dwType 6, dwSize, Reserved */
    put32(w, 6);
    put32(w, block);
    put32(w, 0);
    put32(w, 16); /* _PERF_MULTI_COUNTERS: dwSize, dwCounters, counter 1, padding */
    put32(w, 1);
    put32(w, 1);
    put32(w, 0);
    put32(w, block - 32); /* _PERF_MULTI_INSTANCES: dwTotalSize, dwInstances */
    put32(w, 3);
    for (k = 0; k < 3; k++) {
        i = reversed ? 2 - k : k;
        put32(w, 12);      /* Size */
        put32(w, i);       /* InstanceId */
        put32(w, 'a' + i); /* "a", "b" or "c", its NUL */
        put32(w, 4);       /* dwDataSize */
        put32(w, 16);      /* dwSize */
        put64(w, v[i]);    /* the value, 4 bytes of padding */
    }
    if (loose) { /* block 1, PERF_SINGLE_COUNTER: counter 2 (no identifiers) */
        put32(w, 0);
        put32(w, 1);
        put32(w, 32);
        put32(w, 0);
        put32(w, 4);
        put32(w, 16);
        put64(w, 7);
    }
}

static void test_cook_packed(void)
{
    static const uint32_t ov[3] = {100, 200, 300}, nv[3] = {150, 260, 390};
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[40];
    size_t n = 0;
    int rc, how;
    info_begin(&wi, 2, 2);
    info_counter(&wi, 1, 0x00400400u, 0, 0, 0, 0, 0, 0, 0); /* PERF_COUNTER_DELTA */
    info_counter(&wi, 2, 0x00400400u, 0, 0, 0, 0, 0, 0, 0);
    if (decode_info(&wi, &info)) return;
    for (how = 0; how < 3; how++) {
        packed_sample(&wo, 1000, how == 1, how == 2, ov);
        packed_sample(&wn, 2000, 0, how == 2, nv);
        if (decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
        TL_CHECK(!(nd.flags & PCQ_DATA_CANONICAL_), "packed instances: not canonical");
        rc = pcq_calc_cook(&info, &od, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
        TL_CHECK(rc == PCQ_OK && n == (how == 2 ? 4u : 3u), "packed %d: %s, %zu rows", how,
                 pcq_status_name(rc), n);
        ROW(1, "a", 0, PCQ_CALC_OK, 50.0); /* 150 - 100 */
        ROW(1, "b", 0, PCQ_CALC_OK, 60.0);
        ROW(1, "c", 0, PCQ_CALC_OK, 90.0);
        if (how == 2) ROW(2, NULL, 0, PCQ_CALC_OK, 0.0); /* 7 - 7 */
    }
}

/* ------------------------------------------------------------------------ */
/* Cooking: identifiers out of order. Block i's is the first whose Index is */
/* i; an Index past the last block names none; the older sample has a block */
/* more than the newer.                                                     */
/* ------------------------------------------------------------------------ */
static void test_cook_ids_out_of_order(void)
{
    static const uint32_t ov[3] = {100, 200, 300}, nv[2] = {110, 230};
    static const struct {
        uint32_t index, counter;
    } id_list[5] = {{2, 3}, {1, 2}, {9, 3}, {0, 1}, {0, 3}};
    wbuf wi, wo, wn;
    pcq_counterset_info info;
    pcq_data od, nd;
    pcq_calc_row rows[80];
    pcq_identifier ids[5];
    size_t n = 0, k;
    int rc;

    info_begin(&wi, 3, 0);
    for (k = 1; k <= 3; k++) info_counter(&wi, (uint32_t)k, 0x00400400u, 0, 0, 0, 0, 0, 0, 0);
    singles_data(&wo, 1000, ov, 3);
    singles_data(&wn, 2000, nv, 2);
    if (decode_info(&wi, &info) || decode_data(&wo, &od) || decode_data(&wn, &nd)) return;
    memset(ids, 0, sizeof ids);
    for (k = 0; k < 5; k++) {
        ids[k].index = id_list[k].index;
        ids[k].counter_id = id_list[k].counter;
    }
    rc = pcq_calc_cook(&info, &od, &nd, ids, 5, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 2, "ids out of order: %s, %zu rows", pcq_status_name(rc), n);
    /* Block 0: counter 1 (the first identifier with Index 0, not the
     * second), 110 - 100; block 1: counter 2, 230 - 200. */
    ROW(1, NULL, 0, PCQ_CALC_OK, 10.0);
    ROW(2, NULL, 0, PCQ_CALC_OK, 30.0);
    TL_CHECK(n == 2 && rows[0].counter_id == 1 && rows[0].block_index == 0 && rows[1].block_index == 1,
             "blocks in order");
}

/* name#n: two instances with one name and InstanceId among one more of that
 * name with a smaller InstanceId: numbered by (InstanceId, position). */
static void test_cook_equal_ids(void)
{
    static const uint32_t id1[1] = {1};
    static const uint32_t inst_id[4] = {5, 5, 3, 5};
    wbuf wi, wn;
    pcq_counterset_info info;
    pcq_data nd;
    pcq_calc_row rows[40];
    size_t n = 0, b, mi, k;
    int rc;

    info_begin(&wi, 1, 2);
    info_counter(&wi, 1, 0x00010000u, 0, 0, 0, 0, 0, 0, 0); /* RAWCOUNT */
    data_begin(&wn, 1000, 0, 1000u);
    b = block_begin(&wn, 6);
    multi_counters(&wn, id1, 1);
    mi = multi_instances_begin(&wn);
    for (k = 0; k < 4; k++) {
        instance(&wn, inst_id[k], "svc");
        value32(&wn, (uint32_t)k);
    }
    multi_instances_end(&wn, mi, 4);
    block_end(&wn, b);
    data_end(&wn, 1);
    if (decode_info(&wi, &info) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    TL_CHECK(rc == PCQ_OK && n == 4, "equal ids: %s, %zu rows", pcq_status_name(rc), n);
    /* svc 3 is svc#0, then the three svc 5 in wire order: #1, #2, #3. */
    TL_CHECK(n == 4 && rows[0].dup_index == 1 && rows[1].dup_index == 2 && rows[2].dup_index == 0 &&
                 rows[3].dup_index == 3,
             "name#n: %u %u %u %u", rows[0].dup_index, rows[1].dup_index, rows[2].dup_index,
             rows[3].dup_index);
}

/* name#n of many instances of one name (32 or more: sorted by InstanceId a
 * byte at a time): each one's n counts those with a smaller InstanceId, and
 * those with its own before it. The ids differ in bytes 0 and 2 and share
 * bytes 1 and 3; each comes up three or four times. */
#define ONE_NAME_N 100
static void test_cook_one_name_many(void)
{
    static const uint32_t id1[1] = {1};
    static wbuf wi, wn;
    static pcq_calc_row rows[ONE_NAME_N + 40];
    uint32_t ids[ONE_NAME_N];
    pcq_counterset_info info;
    pcq_data nd;
    size_t n = 0, b, mi, k, j, bad = 0;
    int rc;

    info_begin(&wi, 1, 2);
    info_counter(&wi, 1, 0x00010000u, 0, 0, 0, 0, 0, 0, 0); /* RAWCOUNT */
    data_begin(&wn, 1000, 0, 1000u);
    b = block_begin(&wn, 6);
    multi_counters(&wn, id1, 1);
    mi = multi_instances_begin(&wn);
    for (k = 0; k < ONE_NAME_N; k++) {
        ids[k] = (uint32_t)((k * 5 % 11) << 16 | k % 3);
        instance(&wn, ids[k], "w");
        value32(&wn, (uint32_t)k);
    }
    multi_instances_end(&wn, mi, ONE_NAME_N);
    block_end(&wn, b);
    data_end(&wn, 1);
    if (decode_info(&wi, &info) || decode_data(&wn, &nd)) return;
    rc = pcq_calc_cook(&info, NULL, &nd, NULL, 0, 0, rows, CAP(rows), &n, NULL);
    if (!TL_CHECK(rc == PCQ_OK && n == ONE_NAME_N, "one name: %s, %zu rows", pcq_status_name(rc), n)) return;
    for (k = 0; k < n; k++) {
        uint32_t want = 0;
        for (j = 0; j < ONE_NAME_N; j++) want += ids[j] < ids[k] || (ids[j] == ids[k] && j < k);
        bad += rows[k].instance_id != ids[k] || rows[k].value != (double)k || rows[k].dup_index != want;
    }
    TL_CHECK(bad == 0, "one name, %u instances: %zu rows with the wrong name#n", ONE_NAME_N, bad);
}

int main(void)
{
    test_table();
    test_formulas();
    test_statuses();
    test_flags();
    test_wrap();
    test_never_nan();
    test_format();
    test_cook_processor_information();
    test_cook_duplicates_and_aggregates();
    test_cook_related();
    test_cook_single_blocks();
    test_cook_counter_order();
    test_cook_related_elsewhere();
    test_cook_split_instances();
    test_cook_many_blocks();
    test_cook_one_sample_related();
    test_cook_empty_lists();
    test_cook_long_list();
    test_cook_long_list_one_side();
    test_cook_empty_list();
    test_cook_many_duplicates();
    test_cook_reversed();
    test_cook_counts_and_aggregate_order();
    test_cook_value_layouts();
    test_cook_base_zero();
    test_cook_column();
    test_cook_hash_collision();
    test_cook_crafted_collisions();
    test_cook_short_bucket();
    test_cook_agree_prefix();
    test_cook_not_lockstep();
    test_cook_packed();
    test_cook_ids_out_of_order();
    test_cook_equal_ids();
    test_cook_one_name_many();
    return tl_finish();
}
