/*
 * pcq_calc.c - the evaluator: raw counter samples of [MS-PCQ] data buffers to
 * the values people read, computed the way Windows PDH computes them.
 *
 * Sources and every decision where they disagree: docs/formulas.md.
 * C99, libc + libm; no allocation, no static mutable state. Every division is
 * guarded, every result is checked with isfinite() before it is returned.
 */
#include "pcq_codec.h"

#ifndef PCQ_NO_CALC

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <inttypes.h>

/* Defensive checks that no input can reach, in SQLite's manner (as in
 * pcq_codec.c): PCQ_NEVER(x) is a condition no input makes true, PCQ_ALWAYS(x)
 * one no input makes false. The check still runs in every build; the coverage
 * gate (ci/coverage-gate.sh) leaves the branches of such a line and its
 * never-run body out. Each use says why it cannot be reached. The cook's
 * buffers come from pcq_decode_data and pcq_decode_counterset_info, which have
 * validated every block, instance and value, so the iterators cannot fail. */
#ifndef PCQ_NEVER
#define PCQ_NEVER(x) (x)
#endif
#ifndef PCQ_ALWAYS
#define PCQ_ALWAYS(x) (x)
#endif

/* ------------------------------------------------------------------------ */
/* Statuses                                                                 */
/* ------------------------------------------------------------------------ */
const char *pcq_calc_status_name(int status)
{
    switch (status) {
#define PCQ_X_(name, value, text) case value: return #name;
        PCQ_CALC_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "PCQ_CALC_UNKNOWN_STATUS";
    }
}

const char *pcq_calc_status_text(int status)
{
    switch (status) {
#define PCQ_X_(name, value, text) case value: return text;
        PCQ_CALC_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "unknown evaluator status";
    }
}

/* ------------------------------------------------------------------------ */
/* One table describes every type (§2.2.4.2; winperf.h for the extra four). */
/* ------------------------------------------------------------------------ */
enum calc_op {
    OP_RAW = 1,       /* N                                   */
    OP_DELTA,         /* dN                                  */
    OP_RATE,          /* dN / (dT / F)                       */
    OP_QUEUE,         /* dN / dD   (D: T, T100 or To)        */
    OP_TIMER,         /* 100 dN / dD                         */
    OP_TIMER_INV,     /* 100 (1 - dN / dD)                   */
    OP_MULTI,         /* 100 (dN / dD) / M                   */
    OP_MULTI_INV,     /* 100 (M - dN / dD) / M               */
    OP_FRACTION,      /* 100 dN / dB   (B counts events)     */
    OP_RAW_FRACTION,  /* 100 N / B     (one sample)          */
    OP_AVG_TIMER,     /* (dN / F) / dB                       */
    OP_AVG_BULK,      /* dN / dB                             */
    OP_ELAPSED,       /* (To - N) / Fo (one sample)          */
    OP_BASE,          /* bases and NODATA: no value of their own */
    OP_TEXT
};

#define U_NONE PCQ_CALC_UNIT_NONE
#define U_SEC  PCQ_CALC_UNIT_PER_SEC
#define U_PCT  PCQ_CALC_UNIT_PERCENT
#define U_S    PCQ_CALC_UNIT_SECONDS
#define U_TXT  PCQ_CALC_UNIT_TEXT
#define TB_NO  PCQ_CALC_TB_NONE
#define TB_TK  PCQ_CALC_TB_TICK
#define TB_NS  PCQ_CALC_TB_100NS
#define TB_OB  PCQ_CALC_TB_OBJECT
#define TB_BS  PCQ_CALC_TB_BASE
#define N_B PCQ_CALC_NEEDS_BASE
#define N_T PCQ_CALC_NEEDS_TIME
#define N_F PCQ_CALC_NEEDS_FREQ
#define N_M PCQ_CALC_NEEDS_MULTI

/* type, formula, size, samples, needs, timebase, unit, displayable, hex, op.
 * Kept in ascending order of type: pcq_calc_type_info() searches it by halves. */
static const pcq_calc_type calc_types[] = {
    {0x00000000u, "N (hex)",                  4, 1, 0,   TB_NO, U_NONE, 1, 1, OP_RAW},       /* RAWCOUNT_HEX */
    {0x00000100u, "N (hex)",                  8, 1, 0,   TB_NO, U_NONE, 1, 1, OP_RAW},       /* LARGE_RAWCOUNT_HEX */
    {0x00000B00u, "text",                     0, 1, 0,   TB_NO, U_TXT,  0, 0, OP_TEXT},      /* COUNTER_TEXT */
    {0x00010000u, "N",                        4, 1, 0,   TB_NO, U_NONE, 1, 0, OP_RAW},       /* RAWCOUNT */
    {0x00010100u, "N",                        8, 1, 0,   TB_NO, U_NONE, 1, 0, OP_RAW},       /* LARGE_RAWCOUNT */
    {0x00400400u, "dN",                       4, 2, 0,   TB_NO, U_NONE, 1, 0, OP_DELTA},     /* COUNTER_DELTA */
    {0x00400500u, "dN",                       8, 2, 0,   TB_NO, U_NONE, 1, 0, OP_DELTA},     /* COUNTER_LARGE_DELTA */
    {0x00410400u, "dN / (dT / F)",            4, 2, 0,   TB_TK, U_NONE, 1, 0, OP_RATE},      /* SAMPLE_COUNTER */
    {0x00450400u, "dN / dT",                  4, 2, 0,   TB_TK, U_NONE, 1, 0, OP_QUEUE},     /* COUNTER_QUEUELEN_TYPE */
    {0x00450500u, "dN / dT",                  8, 2, 0,   TB_TK, U_NONE, 1, 0, OP_QUEUE},     /* COUNTER_LARGE_QUEUELEN_TYPE */
    {0x00550500u, "dN / dT100",               8, 2, 0,   TB_NS, U_NONE, 1, 0, OP_QUEUE},     /* COUNTER_100NS_QUEUELEN_TYPE */
    {0x00650500u, "dN / dTo",                 8, 2, N_T, TB_OB, U_NONE, 1, 0, OP_QUEUE},     /* COUNTER_OBJ_TIME_QUEUELEN_TYPE */
    {0x10410400u, "dN / (dT / F)",            4, 2, 0,   TB_TK, U_SEC,  1, 0, OP_RATE},      /* COUNTER_COUNTER */
    {0x10410500u, "dN / (dT / F)",            8, 2, 0,   TB_TK, U_SEC,  1, 0, OP_RATE},      /* COUNTER_BULK_COUNT */
    {0x20020400u, "100 N / B",                4, 1, N_B, TB_NO, U_PCT,  1, 0, OP_RAW_FRACTION}, /* RAW_FRACTION */
    {0x20020500u, "100 N / B",                8, 1, N_B, TB_NO, U_PCT,  1, 0, OP_RAW_FRACTION}, /* LARGE_RAW_FRACTION */
    {0x20410500u, "100 dN / dT",              8, 2, 0,   TB_TK, U_PCT,  1, 0, OP_TIMER},     /* COUNTER_TIMER */
    {0x20470500u, "100 dN / dB",              8, 2, N_B, TB_BS, U_PCT,  1, 0, OP_TIMER},     /* PRECISION_SYSTEM_TIMER */
    {0x20510500u, "100 dN / dT100",           8, 2, 0,   TB_NS, U_PCT,  1, 0, OP_TIMER},     /* 100NSEC_TIMER */
    {0x20570500u, "100 dN / dB",              8, 2, N_B, TB_BS, U_PCT,  1, 0, OP_TIMER},     /* PRECISION_100NS_TIMER */
    {0x20610500u, "100 dN / dTo",             8, 2, N_T, TB_OB, U_PCT,  1, 0, OP_TIMER},     /* OBJ_TIME_TIMER */
    {0x20670500u, "100 dN / dTo",             8, 2, N_T, TB_OB, U_PCT,  1, 0, OP_TIMER},     /* PRECISION_OBJECT_TIMER */
    {0x20C20400u, "100 dN / dB",              4, 2, N_B, TB_NO, U_PCT,  1, 0, OP_FRACTION},  /* SAMPLE_FRACTION */
    {0x21410500u, "100 (1 - dN / dT)",        8, 2, 0,   TB_TK, U_PCT,  1, 0, OP_TIMER_INV}, /* COUNTER_TIMER_INV */
    {0x21510500u, "100 (1 - dN / dT100)",     8, 2, 0,   TB_NS, U_PCT,  1, 0, OP_TIMER_INV}, /* 100NSEC_TIMER_INV */
    {0x22410500u, "100 (dN / dT) / M",        8, 2, N_M, TB_TK, U_PCT,  1, 0, OP_MULTI},     /* COUNTER_MULTI_TIMER */
    {0x22510500u, "100 (dN / dT100) / M",     8, 2, N_M, TB_NS, U_PCT,  1, 0, OP_MULTI},     /* 100NSEC_MULTI_TIMER */
    {0x23410500u, "100 (M - dN / dT) / M",    8, 2, N_M, TB_TK, U_PCT,  1, 0, OP_MULTI_INV}, /* COUNTER_MULTI_TIMER_INV */
    {0x23510500u, "100 (M - dN / dT100) / M", 8, 2, N_M, TB_NS, U_PCT,  1, 0, OP_MULTI_INV}, /* 100NSEC_MULTI_TIMER_INV */
    {0x30020400u, "(dN / F) / dB",            4, 2, N_B, TB_TK, U_S,    1, 0, OP_AVG_TIMER}, /* AVERAGE_TIMER */
    {0x30240500u, "(To - N) / Fo",            8, 1, N_T | N_F, TB_OB, U_S, 1, 0, OP_ELAPSED}, /* ELAPSED_TIME */
    {0x40000200u, "none",                     0, 1, 0,   TB_NO, U_NONE, 0, 0, OP_BASE},      /* COUNTER_NODATA */
    {0x40020500u, "dN / dB",                  8, 2, N_B, TB_NO, U_NONE, 1, 0, OP_AVG_BULK},  /* AVERAGE_BULK */
    {0x40030401u, "base",                     4, 1, 0,   TB_NO, U_NONE, 0, 0, OP_BASE},      /* SAMPLE_BASE */
    {0x40030402u, "base",                     4, 1, 0,   TB_NO, U_NONE, 0, 0, OP_BASE},      /* AVERAGE_BASE */
    {0x40030403u, "base",                     4, 1, 0,   TB_NO, U_NONE, 0, 0, OP_BASE},      /* RAW_BASE */
    {0x40030500u, "base",                     8, 1, 0,   TB_NO, U_NONE, 0, 0, OP_BASE},      /* LARGE_RAW_BASE */
    {0x42030500u, "base",                     8, 1, 0,   TB_NO, U_NONE, 0, 0, OP_BASE},      /* COUNTER_MULTI_BASE */
};

#define CALC_NTYPES (sizeof calc_types / sizeof calc_types[0])

const pcq_calc_type *pcq_calc_type_info(uint32_t type)
{
    size_t lo = 0, hi = CALC_NTYPES;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (calc_types[mid].type == type)
            return &calc_types[mid];
        if (calc_types[mid].type < type)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const pcq_calc_type *pcq_calc_type_at(size_t i)
{
    return i < CALC_NTYPES ? &calc_types[i] : NULL;
}

/* ------------------------------------------------------------------------ */
/* Scale                                                                    */
/* ------------------------------------------------------------------------ */
double pcq_calc_scale_factor(int32_t scale)
{
    /* Exact table: pow(10, s) is not exact on every libm. */
    static const double pos[11] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10};
    if (scale >= 0 && scale <= 10)
        return pos[scale];
    if (scale < 0 && scale >= -10)
        return 1.0 / pos[-scale];   /* correctly rounded: 1/10^k, both exact */
    return 0.0;
}

/* v x 10^scale; dividing for negative scales keeps 10 x 10^-1 exactly 1. */
static double apply_scale(double v, int32_t scale)
{
    if (scale < 0)
        return v / pcq_calc_scale_factor(-scale);
    return v * pcq_calc_scale_factor(scale);
}

/* ------------------------------------------------------------------------ */
/* The low-level calculation                                                */
/* ------------------------------------------------------------------------ */

/* Effective width of a value: its dwDataSize, else the type's size bits. */
static unsigned value_width(unsigned given, const pcq_calc_type *d)
{
    if (given != 0)
        return given;
    return d->size == 4 ? 4u : 8u;
}

/* newer - older of a counter or base, as the value travels. A 4-byte value
 * that decreased is taken modulo 2^32 when the modular delta is below 2^31
 * (serial-number arithmetic, RFC 1982): a wrap moves forward by less than half
 * the range, a reset to a small value "moves" by more. Returns 0, or -1 for a
 * decrease that is not a wrap. */
static int raw_delta(uint64_t older, uint64_t newer, unsigned width, unsigned flags,
                     uint64_t *d, unsigned *notes)
{
    if (width == 4) {
        older &= 0xFFFFFFFFu;
        newer &= 0xFFFFFFFFu;
    }
    if (newer >= older) {
        *d = newer - older;
        return 0;
    }
    if (width == 4 && !(flags & PCQ_CALC_NOWRAP32)) {
        uint64_t m = (newer - older) & 0xFFFFFFFFu;   /* unsigned: well defined */
        if (m < 0x80000000u) {
            *d = m;
            *notes |= PCQ_CALC_NOTE_WRAPPED;
            return 0;
        }
    }
    return -1;
}

/* A clock delta (PerfTimeStamp, PerfTime100NSec, PerfTimeId): 64-bit, never wraps. */
static int clock_delta(uint64_t older, uint64_t newer, uint64_t *d)
{
    if (newer < older)
        return PCQ_CALC_NEGATIVE_DENOMINATOR;
    if (newer == older)
        return PCQ_CALC_ZERO_DENOMINATOR;
    *d = newer - older;
    return PCQ_CALC_OK;
}

/* Width of the base delta when the sample does not say: the base types of the
 * §2.2.4.2 table (AVERAGE_BASE, SAMPLE_BASE are 32-bit; LARGE_RAW_BASE is
 * 64-bit, the clock of the PRECISION types). Raw fractions (RAW_BASE) take
 * no delta and never come here. */
static unsigned base_width(unsigned given, const pcq_calc_type *d)
{
    if (given != 0)
        return given;
    if (d->op == OP_TIMER)
        return 8;
    return 4;
}

/* Which related values are missing from sample s for descriptor d. */
static int related_missing(const pcq_calc_type *d, const pcq_calc_sample *s)
{
    unsigned need = d->needs;
    unsigned have = s->have;
    if (d->op == OP_TIMER && d->timebase == PCQ_CALC_TB_OBJECT &&
        d->type == 0x20670500u && !(have & PCQ_CALC_HAVE_TIME))
        /* PRECISION_OBJECT_TIMER: the spec's PerfTimeId, else PDH's base. */
        need = PCQ_CALC_NEEDS_BASE;
    if ((need & PCQ_CALC_NEEDS_BASE) && !(have & PCQ_CALC_HAVE_BASE))
        return 1;
    if ((need & PCQ_CALC_NEEDS_TIME) && !(have & PCQ_CALC_HAVE_TIME))
        return 1;
    if ((need & PCQ_CALC_NEEDS_FREQ) && !(have & PCQ_CALC_HAVE_FREQ))
        return 1;
    if ((need & PCQ_CALC_NEEDS_MULTI) && !(have & PCQ_CALC_HAVE_MULTI))
        return 1;
    return 0;
}

/* The interval dD of a timer or queue type: T, T100, To or B per time base. */
static int interval(const pcq_calc_type *d, const pcq_calc_sample *o, const pcq_calc_sample *n,
                    unsigned flags, double *dd, unsigned *notes)
{
    uint64_t v = 0;
    int st = PCQ_CALC_OK;
    int tb = d->timebase;
    if (tb == PCQ_CALC_TB_OBJECT && d->type == 0x20670500u && !(n->have & PCQ_CALC_HAVE_TIME))
        tb = PCQ_CALC_TB_BASE;
    switch (tb) {
    case PCQ_CALC_TB_TICK:   st = clock_delta(o->time, n->time, &v); break;
    case PCQ_CALC_TB_100NS:  st = clock_delta(o->time_100ns, n->time_100ns, &v); break;
    case PCQ_CALC_TB_OBJECT: st = clock_delta(o->obj_time, n->obj_time, &v); break;
    default:
        if (raw_delta(o->base, n->base, base_width(n->base_size, d), flags, &v, notes) != 0)
            return PCQ_CALC_NEGATIVE_DENOMINATOR;
        if (v == 0)
            return PCQ_CALC_ZERO_DENOMINATOR;
        break;
    }
    *dd = (double)v;
    return st;
}

/* The formula itself, once every input is known to be present and sane. */
static int formula(const pcq_calc_type *d, const pcq_calc_sample *o, const pcq_calc_sample *n,
                   unsigned flags, double *out, unsigned *notes)
{
    uint64_t dn = 0, db = 0;
    double dd = 0.0, m;
    int st;

    switch (d->op) {
    case OP_RAW:
        *out = (double)n->value;
        return PCQ_CALC_OK;
    case OP_RAW_FRACTION:
        /* B == 0: nothing to be a fraction of; PDH shows 0 (formulas.md). */
        *out = n->base == 0 ? 0.0 : 100.0 * ((double)n->value / (double)n->base);
        return PCQ_CALC_OK;
    case OP_ELAPSED:
        if (n->obj_freq == 0)
            return PCQ_CALC_BAD_TIME_BASE;
        if (n->value == 0) {          /* no start time recorded: PDH shows 0 */
            *out = 0.0;
            return PCQ_CALC_OK;
        }
        if (n->value > n->obj_time)
            return PCQ_CALC_NEGATIVE_VALUE;
        *out = (double)(n->obj_time - n->value) / (double)n->obj_freq;
        return PCQ_CALC_OK;
    default:
        break;
    }

    /* Two-sample types from here on. */
    if (raw_delta(o->value, n->value, value_width(n->value_size, d), flags, &dn, notes) != 0)
        return PCQ_CALC_WENT_BACKWARDS;

    switch (d->op) {
    case OP_DELTA:
        *out = (double)dn;
        return PCQ_CALC_OK;
    case OP_RATE:
        if (n->freq == 0)
            return PCQ_CALC_BAD_TIME_BASE;
        st = clock_delta(o->time, n->time, &db);
        if (st != PCQ_CALC_OK)
            return st;
        *out = (double)dn / ((double)db / (double)n->freq);
        return PCQ_CALC_OK;
    case OP_FRACTION:
    case OP_AVG_BULK:
    case OP_AVG_TIMER:
        if (d->op == OP_AVG_TIMER && n->freq == 0)
            return PCQ_CALC_BAD_TIME_BASE;
        if (raw_delta(o->base, n->base, base_width(n->base_size, d), flags, &db, notes) != 0)
            return PCQ_CALC_NEGATIVE_DENOMINATOR;
        if (db == 0) {                /* no events in the interval: PDH shows 0 */
            *out = 0.0;
            return PCQ_CALC_OK;
        }
        if (d->op == OP_FRACTION)
            *out = 100.0 * ((double)dn / (double)db);
        else if (d->op == OP_AVG_BULK)
            *out = (double)dn / (double)db;
        else
            *out = ((double)dn / (double)n->freq) / (double)db;
        return PCQ_CALC_OK;
    default:
        break;
    }

    /* Timer and queue types: dN over an interval. precheck took OP_TEXT and
     * OP_BASE, the cases above every other op: only these five are left. */
    if (PCQ_NEVER(d->op < OP_QUEUE || d->op > OP_MULTI_INV))
        return PCQ_CALC_UNKNOWN_TYPE;
    st = interval(d, o, n, flags, &dd, notes);
    if (st != PCQ_CALC_OK)
        return st;
    m = (double)n->multi;
    if ((d->op == OP_MULTI || d->op == OP_MULTI_INV) && n->multi == 0)
        return PCQ_CALC_ZERO_DENOMINATOR;
    switch (d->op) {
    case OP_QUEUE:     *out = (double)dn / dd; break;
    case OP_TIMER:     *out = 100.0 * ((double)dn / dd); break;
    case OP_TIMER_INV: *out = 100.0 * (1.0 - (double)dn / dd); break;
    case OP_MULTI:     *out = 100.0 * ((double)dn / dd) / m; break;
    default:           /* OP_MULTI_INV, the one op left (the guard above) */
                       *out = 100.0 * (m - (double)dn / dd) / m; break;
    }
    return PCQ_CALC_OK;
}

/* Status checks that come before any arithmetic, in a fixed order. */
static int precheck(const pcq_calc_type *d, int32_t scale, const pcq_calc_sample *o,
                    const pcq_calc_sample *n, unsigned flags)
{
    if (d == NULL)
        return PCQ_CALC_UNKNOWN_TYPE;
    if (d->op == OP_TEXT)
        return PCQ_CALC_NOT_NUMERIC;
    if (d->op == OP_BASE)
        return PCQ_CALC_NOT_DISPLAYABLE;
    if (!(flags & PCQ_CALC_NOSCALE) && (scale < -10 || scale > 10))
        return PCQ_CALC_BAD_SCALE;
    if (n == NULL)
        return PCQ_CALC_NEED_SECOND_SAMPLE;   /* nothing at all to compute from */
    if ((n->value_size != 0 && n->value_size != 4 && n->value_size != 8) ||
        (n->base_size != 0 && n->base_size != 4 && n->base_size != 8))
        return PCQ_CALC_BAD_VALUE_SIZE;
    if (d->needs != 0 && related_missing(d, n))
        return PCQ_CALC_MISSING_RELATED;
    if (d->samples == 2) {
        if (o == NULL)
            return PCQ_CALC_NEED_SECOND_SAMPLE;
        if ((o->value_size != 0 && o->value_size != 4 && o->value_size != 8) ||
            (o->base_size != 0 && o->base_size != 4 && o->base_size != 8))
            return PCQ_CALC_BAD_VALUE_SIZE;
        if (d->needs != 0 && related_missing(d, o))
            return PCQ_CALC_MISSING_RELATED;
    }
    return PCQ_CALC_OK;
}

/* pcq_calc_value for a type already looked up (d NULL: unknown type); the
 * cook looks each counter's type up once per block, not once per value. */
static int calc_eval(const pcq_calc_type *d, int32_t scale, const pcq_calc_sample *older,
                     const pcq_calc_sample *newer, unsigned flags, double *out, unsigned *notes)
{
    unsigned nb = 0;
    double v = 0.0;
    int st = precheck(d, scale, older, newer, flags);

    if (st == PCQ_CALC_OK)
        st = formula(d, older, newer, flags, &v, &nb);
    /* Inputs are 64-bit integers and every divisor is 1 or more (or a
     * frequency, itself an integer): |v| < 2^128, far inside a double. */
    if (st == PCQ_CALC_OK && PCQ_NEVER(!isfinite(v)))
        st = PCQ_CALC_OUT_OF_RANGE;
    if (st == PCQ_CALC_OK && d->unit == PCQ_CALC_UNIT_PERCENT && !(flags & PCQ_CALC_NOCAP100)) {
        if (v > 100.0) { v = 100.0; nb |= PCQ_CALC_NOTE_CAPPED; }
        if (v < 0.0)   { v = 0.0;   nb |= PCQ_CALC_NOTE_CAPPED; }
    }
    if (st == PCQ_CALC_OK && v < 0.0)
        st = PCQ_CALC_NEGATIVE_VALUE;
    if (st == PCQ_CALC_OK) {
        if (!(flags & PCQ_CALC_NOSCALE) && scale != 0)
            v = apply_scale(v, scale);    /* x 10^0 is x, bit for bit */
        if (flags & PCQ_CALC_X1000)
            v *= 1000.0;
        if (PCQ_NEVER(!isfinite(v)))  /* < 2^128 x 10^10 x 1000: finite */
            st = PCQ_CALC_OUT_OF_RANGE;
    }
    if (st == PCQ_CALC_OK) {
        if (v == 0.0)
            v = 0.0;                  /* no "-0" in any output */
        if (out != NULL)
            *out = v;
    }
    if (notes != NULL)
        *notes = st == PCQ_CALC_OK ? nb : (nb & PCQ_CALC_NOTE_WRAPPED);
    return st;
}

int pcq_calc_value(uint32_t type, int32_t scale, const pcq_calc_sample *older,
                   const pcq_calc_sample *newer, unsigned flags, double *out, unsigned *notes)
{
    return calc_eval(pcq_calc_type_info(type), scale, older, newer, flags, out, notes);
}

/* ------------------------------------------------------------------------ */
/* Display (§2.2.4.2 Attrib)                                                */
/* ------------------------------------------------------------------------ */
#define ATTRIB_NO_DISPLAY   0x2u
#define ATTRIB_NO_GROUP_SEP 0x4u
#define ATTRIB_REAL         0x8u
#define ATTRIB_HEX          0x10u

/* Copies the digits of src into dst with a ',' every three integer digits.
 * src is what snprintf printed for %.0f or %.3f: [-]digits[.digits]. */
static void group_digits(const char *src, char *dst, size_t cap)
{
    size_t n = 0, i = 0, ip = 0, k;
    if (src[0] == '-')
        dst[n++] = src[i++];
    while (src[i + ip] >= '0' && src[i + ip] <= '9')
        ip++;
    for (k = 0; k < ip && n + 2 < cap; k++) {
        if (k > 0 && (ip - k) % 3 == 0)
            dst[n++] = ',';
        dst[n++] = src[i + k];
    }
    for (i += ip; src[i] != '\0' && n + 1 < cap; i++)
        dst[n++] = src[i];
    dst[n] = '\0';
}

static const char *unit_suffix(const pcq_calc_type *d)
{
    if (d == NULL)
        return "";
    switch (d->unit) {
    case PCQ_CALC_UNIT_PER_SEC: return " /sec";
    case PCQ_CALC_UNIT_PERCENT: return " %";
    case PCQ_CALC_UNIT_SECONDS: return " s";
    default:                    return "";
    }
}

/* The number alone, into num[PCQ_CALC_TEXT_SIZE]. */
static void format_number(double v, const pcq_calc_type *d, uint64_t attrib, char *num)
{
    char tmp[PCQ_CALC_TEXT_SIZE];
    int hex = (d != NULL && d->hex) || (attrib & ATTRIB_HEX);
    int integral = d != NULL && (d->op == OP_RAW || d->op == OP_DELTA) && !(attrib & ATTRIB_REAL);

    if (!isfinite(v)) {
        strcpy(num, "?");
        return;
    }
    if (hex && v >= 0.0 && v < 18446744073709551616.0 && v == floor(v)) {
        snprintf(num, PCQ_CALC_TEXT_SIZE, "0x%" PRIx64, (uint64_t)v);
        return;
    }
    if (fabs(v) >= 1e15 && !(integral && v == floor(v) && fabs(v) < 18446744073709551616.0)) {
        snprintf(num, PCQ_CALC_TEXT_SIZE, "%.6e", v);   /* too long for digits */
        return;
    }
    if (integral && v == floor(v))
        snprintf(tmp, sizeof tmp, "%.0f", v);
    else
        snprintf(tmp, sizeof tmp, "%.3f", v);
    if (attrib & ATTRIB_NO_GROUP_SEP)
        strcpy(num, tmp);
    else
        group_digits(tmp, num, PCQ_CALC_TEXT_SIZE);
}

size_t pcq_calc_format(double value, uint32_t type, uint64_t attrib, char *dst, size_t cap)
{
    const pcq_calc_type *d = pcq_calc_type_info(type);
    char num[PCQ_CALC_TEXT_SIZE], text[PCQ_CALC_TEXT_SIZE + 8];
    size_t len;

    if (attrib & ATTRIB_NO_DISPLAY)
        text[0] = '\0';
    else {
        format_number(value, d, attrib, num);
        snprintf(text, sizeof text, "%s%s", num, unit_suffix(d));
    }
    len = strlen(text);
    if (cap > 0) {
        size_t n = len < cap - 1 ? len : cap - 1;
        memcpy(dst, text, n);
        dst[n] = '\0';
    }
    return len;
}

/* ------------------------------------------------------------------------ */
/* Cooking two data buffers of one query (§3.1.4.1.6)                       */
/* ------------------------------------------------------------------------ */

/* The work the cook may spend on its slow paths: the searches that a pair of
 * samples listing the same things in the same order never needs (an
 * identifier or counter-info entry out of place, an instance that moved, a
 * related counter in another block). Each step of such a search costs one
 * unit of PCQ_COOK_WORK_MIN + PCQ_COOK_WORK_PER_BYTE x (bytes of both buffers,
 * the identifiers and the counterset-info); when they are gone the cook
 * stops with PCQ_ERR_LIMIT. So its time is linear in its input whatever the
 * buffers say, where hostile ones could otherwise make it quadratic or worse
 * (docs/decisions.md D12). */
#ifndef PCQ_COOK_WORK_MIN
#define PCQ_COOK_WORK_MIN (1u << 22)
#endif
#ifndef PCQ_COOK_WORK_PER_BYTE
#define PCQ_COOK_WORK_PER_BYTE 2u
#endif

typedef struct cfuel {
    uint64_t left;
    int out;                   /* ran out: the cook ends with PCQ_ERR_LIMIT */
} cfuel;

/* n steps of work: 1, or 0 (and from then on always 0) when the budget is
 * spent, and the search ends as if it found nothing. */
static int spend(cfuel *f, uint64_t n)
{
    if (f->left < n) {
        f->left = 0;
        f->out = 1;
        return 0;
    }
    f->left -= n;
    return 1;
}

static int burn(cfuel *f)
{
    return spend(f, 1);
}

/* A group: the values of one instance, or of one single-instance block. */
typedef struct cgroup {
    pcq_block blk;
    uint32_t block_index;
    pcq_data_instance inst;    /* types 4 and 6 */
    int has_instance;
    uint32_t instance_id;
    pcq_bytes name;
    size_t inst_offset;        /* 0 for types 1 and 2 */
    uint32_t one_id;           /* types 1 and 4: the identifier's counter id */
} cgroup;

/* Walks the groups of one data buffer, block after block. */
typedef struct gwalk {
    const pcq_data *d;
    const pcq_counterset_info *info;   /* for blocks without an identifier; never NULL */
    const pcq_identifier *ids;
    size_t n_ids;
    int multi_set;             /* the counterset is not single-instance */
    cfuel *fuel;               /* the cook's, shared by all its walks */
    pcq_iter blocks, insts;
    pcq_block blk;
    uint32_t blk_id;           /* a type 4 block: its counter */
    uint32_t next_block;
    int in_block;
} gwalk;

static int cook_fail(pcq_error *err, int code, size_t offset, const char *what)
{
    if (err != NULL) {
        err->code = code;
        err->offset = offset;
        err->what = what;
        err->diag = 0;                /* only PCQ_ERR_NONCONFORMANT names a rule */
    }
    return code;
}

static void gwalk_begin(gwalk *w, const pcq_data *d, const pcq_identifier *ids, size_t n_ids,
                        int multi_set, const pcq_counterset_info *info, cfuel *fuel)
{
    memset(w, 0, sizeof *w);
    w->d = d;
    w->info = info;
    w->ids = ids;
    w->n_ids = n_ids;
    w->multi_set = multi_set;
    w->fuel = fuel;
    pcq_data_blocks(d, &w->blocks);
}

/* The identifier whose Index is block i (§2.2.4.6: "the position in which the
 * corresponding counter data is returned"): the i-th when its Index is i (an
 * opnum 5 reply lists them in that order), else the first with Index i. */
static const pcq_identifier *ident_for_block(const gwalk *w, uint32_t i)
{
    size_t k;
    if (i < w->n_ids && w->ids[i].index == i)
        return &w->ids[i];
    for (k = 0; k < w->n_ids; k++) {
        /* Out of work: any identifier will do, the cook's rows are dropped. */
        if (!burn(w->fuel))
            return &w->ids[0];
        if (w->ids[k].index == i)
            return &w->ids[k];
    }
    return NULL;
}

/* The counter a type 1 or 4 block holds when the caller gave no identifiers
 * at all: block i holds counter i of the counterset (a query that added every
 * counter in order; docs/formulas.md, "Blocks without identifiers"). */
static int counter_for_block(const gwalk *w, uint32_t i, uint32_t *id)
{
    pcq_counter_reg r;
    if (w->n_ids > 0 || pcq_counterset_counter(w->info, i, &r) != PCQ_OK)
        return 0;
    *id = r.counter_id;
    return 1;
}

/* The next group; 1, 0 at the end, or a negative status (err filled). Every
 * block and instance it passes costs a step (a long name a step per 64
 * bytes: comparing it costs that much), so a walk ends early, as at the
 * end, once the budget is spent: searches are walks. */
static int gwalk_next(gwalk *w, cgroup *g, pcq_error *err)
{
    const pcq_identifier *id;
    int rc;
    for (;;) {
        if (!burn(w->fuel))
            return 0;
        if (w->in_block) {
            memset(g, 0, sizeof *g);
            rc = pcq_instances_of_block_next(&w->insts, &g->inst);
            if (PCQ_NEVER(rc < 0)) {  /* a validated buffer */
                if (err != NULL) *err = w->insts.err;
                return rc;
            }
            if (rc == 1) {
                g->blk = w->blk;
                g->block_index = w->next_block - 1;
                g->has_instance = 1;
                g->instance_id = g->inst.instance_id;
                g->name = g->inst.name;
                g->inst_offset = g->inst.offset;
                spend(w->fuel, g->name.len >> 6);
                if (w->blk.type == PCQ_PERF_MULTI_INSTANCES)
                    g->one_id = w->blk_id;
                return 1;
            }
            w->in_block = 0;
        }
        rc = pcq_blocks_next(&w->blocks, &w->blk);
        if (rc <= 0) {
            if (PCQ_NEVER(rc < 0) && err != NULL) *err = w->blocks.err;  /* validated */
            return rc;
        }
        w->next_block++;
        if (w->blk.type == PCQ_PERF_MULTI_INSTANCES || w->blk.type == PCQ_PERF_COUNTERSET) {
            pcq_block_instances(w->d, &w->blk, &w->insts);
            w->in_block = 1;
            if (w->blk.type == PCQ_PERF_MULTI_INSTANCES) {
                /* its counter, once for all its instances; a block without
                 * one (only in the older sample: scan_blocks has refused it
                 * in the newer) is passed over, its values unmatched */
                id = ident_for_block(w, w->next_block - 1);
                if (id != NULL)
                    w->blk_id = id->counter_id;
                else if (!counter_for_block(w, w->next_block - 1, &w->blk_id))
                    w->in_block = 0;
            }
            continue;
        }
        if (w->blk.type != PCQ_PERF_SINGLE_COUNTER && w->blk.type != PCQ_PERF_MULTI_COUNTERS)
            continue;                 /* PERF_ERROR_RETURN: no value to cook */
        memset(g, 0, sizeof *g);
        g->blk = w->blk;
        g->block_index = w->next_block - 1;
        if (w->blk.type == PCQ_PERF_SINGLE_COUNTER) {
            id = ident_for_block(w, g->block_index);
            if (id != NULL) {
                g->one_id = id->counter_id;
                g->has_instance = w->multi_set;
                g->instance_id = id->instance_id;
                g->name = id->name;
            } else if (!counter_for_block(w, g->block_index, &g->one_id)) {
                continue;             /* as a type 4 block without a counter, above */
            }
        }
        return 1;
    }
}

/* Values of a group, with their counter ids. */
typedef struct gvit {
    pcq_iter it;
    uint32_t j;
    int single;                /* types 1, 4: the one value, not yet returned */
} gvit;

static void gv_begin(const pcq_data *d, const cgroup *g, gvit *v)
{
    memset(v, 0, sizeof *v);
    if (g->blk.type == PCQ_PERF_SINGLE_COUNTER || g->blk.type == PCQ_PERF_MULTI_INSTANCES)
        v->single = 1;
    else if (g->blk.type == PCQ_PERF_MULTI_COUNTERS)
        pcq_block_values(d, &g->blk, &v->it);
    else
        pcq_instance_values(d, &g->inst, &v->it);
}

static int gv_next(gvit *v, const cgroup *g, uint32_t *id, pcq_value *val)
{
    int rc;
    if (g->blk.type == PCQ_PERF_SINGLE_COUNTER || g->blk.type == PCQ_PERF_MULTI_INSTANCES) {
        if (!v->single)
            return 0;
        v->single = 0;
        *id = g->one_id;
        *val = g->blk.type == PCQ_PERF_SINGLE_COUNTER ? g->blk.value : g->inst.value;
        return 1;
    }
    rc = pcq_values_next(&v->it, val);
    if (rc == 1)
        *id = pcq_block_counter_id(&g->blk, v->j++);
    return rc;
}

/* The value of counter `id` in group g: 1 found, 0 not, or a negative
 * status. A step of work per value passed: a long list searched once per
 * value would cost its length squared. */
static int group_find(const pcq_data *d, const cgroup *g, uint32_t id, pcq_value *out,
                      cfuel *fuel)
{
    gvit v;
    uint32_t cid = 0;
    int rc;
    gv_begin(d, g, &v);
    while ((rc = burn(fuel) ? gv_next(&v, g, &cid, out) : 0) == 1)
        if (cid == id)
            return 1;
    return rc;
}

static int same_instance(const cgroup *a, const cgroup *b)
{
    if (a->has_instance != b->has_instance)
        return 0;
    if (!a->has_instance)
        return 1;
    return a->instance_id == b->instance_id && a->name.len == b->name.len &&
           (a->name.len == 0 || memcmp(a->name.ptr, b->name.ptr, a->name.len) == 0);
}

/* Groups that hold the same counters of the same instance. */
static int same_group(const cgroup *a, const cgroup *b)
{
    int a1 = a->blk.type == PCQ_PERF_SINGLE_COUNTER || a->blk.type == PCQ_PERF_MULTI_INSTANCES;
    int b1 = b->blk.type == PCQ_PERF_SINGLE_COUNTER || b->blk.type == PCQ_PERF_MULTI_INSTANCES;
    if (a1 != b1 || (a1 && a->one_id != b->one_id))
        return 0;
    return same_instance(a, b);
}

/* ------------------------------------------------------------------------ */
/* Columns: what every instance of a block shares                           */
/* ------------------------------------------------------------------------ */

/* A PERF_MULTI_COUNTERS or PERF_COUNTERSET block lists its counter ids once,
 * and every instance holds one value per id in that order. Everything a value
 * needs besides its own bytes (its counter-info entry and type descriptor,
 * where its related counters sit, where the same counter sits in the older
 * sample's block) therefore depends only on its position in the list: it is
 * worked out once per list and kept in a colset. Lists of more than COOK_COLS
 * counters take the general path (cook_group), as do blocks of type 1 and 4. */
#define COOK_COLS 64
#define NO_POS 0xFFFFu
#define NREL 4       /* base, PerfTimeId, PerfFreqId, MultiId: bit k of PCQ_CALC_NEEDS_* */

typedef struct ccol {
    const pcq_calc_type *t;       /* NULL: a type unknown to the evaluator */
    uint64_t attrib;
    uint32_t id, type, index;     /* counter id, its Type, its counter-info index */
    int32_t scale;
    uint16_t rel[NREL];           /* their first positions in the newer list, or NO_POS */
    uint16_t opos, orel[NREL];    /* this id's and the related ids' in the older list */
    uint8_t found;                /* the id is in the counterset-info */
    uint8_t need;                 /* PCQ_CALC_NEEDS_* to look up */
    uint8_t two;                  /* a two-sample type: the older sample is used */
} ccol;

typedef struct colset {
    int have, ohave;              /* ids / oids describe the columns */
    pcq_bytes ids, oids;          /* the newer and older lists the columns were made for */
    uint32_t n;
    ccol col[COOK_COLS];
} colset;

/* One value as the cook reads it: once per instance and sample. */
typedef struct cval {
    uint64_t u64;                 /* the value when size is 4 or 8, else 0 */
    uint32_t offset;              /* inside dwTotalSize, a 32-bit size */
    uint8_t size;                 /* dwDataSize if 4 or 8, else 0xFF (as pcq_calc_sample) */
} cval;

typedef struct cook_ctx {
    const pcq_counterset_info *info;
    const pcq_data *older, *newer;
    const pcq_identifier *ids;
    size_t n_ids;
    int multi_set;
    int loose_new, loose_old;  /* types 1/4 present: related values may sit in other blocks */
    unsigned flags;
    gwalk hint;                /* older sample: just after the last matched group */
    cfuel *fuel;               /* work left for the slow paths */
    pcq_error *err;
    colset cols;
} cook_ctx;

static void to_cval(const pcq_value *x, cval *v)
{
    v->u64 = x->u64;
    v->offset = (uint32_t)x->offset;
    v->size = x->is_int ? (uint8_t)x->data_size : 0xFFu;   /* 0xFF: not 4 or 8 */
}

/* Related value k (base, time, frequency, multi) into s. A base counts as
 * present whatever its size (a bad size is a status of its own). */
static void set_related(pcq_calc_sample *s, unsigned k, const cval *v)
{
    switch (k) {
    case 0:
        s->base = v->u64;
        s->base_size = v->size;
        s->have |= PCQ_CALC_HAVE_BASE;
        break;
    case 1:
        s->obj_time = v->u64;
        s->have |= v->size != 0xFFu ? PCQ_CALC_HAVE_TIME : 0u;
        break;
    case 2:
        s->obj_freq = v->u64;
        s->have |= v->size != 0xFFu ? PCQ_CALC_HAVE_FREQ : 0u;
        break;
    default:
        s->multi = v->u64;
        s->have |= v->size != 0xFFu ? PCQ_CALC_HAVE_MULTI : 0u;
        break;
    }
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The first position of counter id in the list of block b (at most
 * COOK_COLS ids, read from its counter_ids view): the value group_find
 * would find. */
static uint16_t first_pos(const pcq_block *b, uint32_t id)
{
    size_t k, n = b->counter_ids.len / 4;
    for (k = 0; k < n; k++)
        if (le32(b->counter_ids.ptr + 4 * k) == id)
            return (uint16_t)k;
    return NO_POS;
}

/* Whether column col looks up related counter k. */
static int col_needs(const ccol *col, unsigned k)
{
    return ((unsigned)col->need >> k & 1u) != 0;
}

/* Related counter id k (base, PerfTimeId, PerfFreqId, MultiId) of r. */
static uint32_t related_id(const pcq_counter_reg *r, unsigned k)
{
    return k == 0 ? r->base_counter_id : k == 1 ? r->perf_time_id
         : k == 2 ? r->perf_freq_id : r->multi_id;
}

static int same_list(int have, pcq_bytes a, pcq_bytes b)
{
    return have && a.len == b.len && (a.ptr == b.ptr || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* The counter-info entry of counter id (the hint index first: values usually
 * come in the order of the counterset). 1 found, 0 not. */
static int find_reg(const pcq_counterset_info *info, uint32_t id, uint32_t hint,
                    pcq_counter_reg *r, uint32_t *index, cfuel *fuel)
{
    uint32_t i;
    /* i < num_counters of a validated counterset-info: always found */
    if (hint < info->set.num_counters &&
        PCQ_ALWAYS(pcq_counterset_counter(info, hint, r) == PCQ_OK) &&
        r->counter_id == id) {
        *index = hint;
        return 1;
    }
    for (i = 0; i < info->set.num_counters && burn(fuel); i++)
        if (PCQ_ALWAYS(pcq_counterset_counter(info, i, r) == PCQ_OK) &&
            r->counter_id == id) {
            *index = i;
            return 1;
        }
    return 0;
}

/* The columns of block b's counter list (the older list is made anew). */
static void columns_make(colset *cs, const pcq_counterset_info *info, const pcq_block *b,
                         cfuel *fuel)
{
    uint32_t j, k, n = b->num_counters;
    pcq_counter_reg r;
    for (j = 0; j < n; j++) {
        ccol *col = &cs->col[j];
        memset(col, 0, sizeof *col);
        col->id = pcq_block_counter_id(b, j);
        col->found = (uint8_t)find_reg(info, col->id, j, &r, &col->index, fuel);
        if (!col->found)
            continue;                 /* an error once a value gets here */
        col->t = pcq_calc_type_info(r.type);
        col->two = (uint8_t)(col->t != NULL && col->t->samples == 2);
        col->type = r.type;
        col->attrib = r.attrib;
        col->scale = r.default_scale;
        col->need = col->t != NULL ? col->t->needs : 0;
        if (r.type == 0x20670500u)    /* PRECISION_OBJECT_TIMER: PerfTimeId, else the base */
            col->need |= PCQ_CALC_NEEDS_BASE;
        for (k = 0; k < NREL; k++)
            col->rel[k] = col_needs(col, k) ? first_pos(b, related_id(&r, k)) : NO_POS;
    }
    cs->ids = b->counter_ids;
    cs->n = n;
    cs->have = 1;
    cs->ohave = 0;
}

/* Where each column's counter and its related counters sit in the older
 * sample's block ob. */
static void columns_older(colset *cs, const pcq_counterset_info *info, const pcq_block *ob)
{
    uint32_t j, k;
    pcq_counter_reg r;
    for (j = 0; j < cs->n; j++) {
        ccol *col = &cs->col[j];
        col->opos = first_pos(ob, col->id);
        for (k = 0; k < NREL; k++)
            col->orel[k] = NO_POS;
        if (col->need == 0 ||
            PCQ_NEVER(pcq_counterset_counter(info, col->index, &r) != PCQ_OK))  /* index found */
            continue;
        for (k = 0; k < NREL; k++)
            if (col_needs(col, k))
                col->orel[k] = first_pos(ob, related_id(&r, k));
    }
    cs->oids = ob->counter_ids;
    cs->ohave = 1;
}

/* A related counter of g's instance in sample d: first in g itself, then (when
 * the sample has single-counter blocks) in any group of the same instance. */
static int find_related(const cook_ctx *c, const pcq_data *d, int loose, const cgroup *g,
                        uint32_t id, pcq_value *out)
{
    gwalk w;
    cgroup o;
    int rc = group_find(d, g, id, out, c->fuel);
    if (rc != 0 || !loose)
        return rc;
    gwalk_begin(&w, d, c->ids, c->n_ids, c->multi_set, c->info, c->fuel);
    while ((rc = gwalk_next(&w, &o, c->err)) == 1)
        if (same_instance(g, &o) && (rc = group_find(d, &o, id, out, c->fuel)) != 0)
            return rc;
    return rc;
}

/* How many groups before g (in its own sample d) have the same identity. */
static int occurrence(const cook_ctx *c, const pcq_data *d, const cgroup *g, uint32_t *occ)
{
    gwalk w;
    cgroup o;
    int rc;
    *occ = 0;
    gwalk_begin(&w, d, c->ids, c->n_ids, c->multi_set, c->info, c->fuel);
    for (;;) {
        /* g itself is one of d's groups: the walk meets it unless the work
         * runs out (then any count will do, the cook's rows are dropped) */
        rc = gwalk_next(&w, &o, c->err);
        if (rc != 1) return rc;
        if (o.block_index == g->block_index && o.inst_offset == g->inst_offset)
            return 0;
        if (same_group(g, &o))
            (*occ)++;
    }
}

/* The group of the older sample that matches g of the newer: 1, 0, or < 0.
 * First the group right after the previous match (instances usually keep
 * their order: O(1)); else a scan for the same occurrence of the same
 * (InstanceId, name) (O(groups)). */
static int match_older(cook_ctx *c, const cgroup *g, cgroup *og)
{
    gwalk w = c->hint;
    uint32_t occ, seen = 0;
    int rc = gwalk_next(&w, og, c->err);
    if (PCQ_NEVER(rc < 0))            /* a validated buffer */
        return rc;
    if (rc == 1 && same_group(g, og)) {
        c->hint = w;
        return 1;
    }
    if (PCQ_NEVER((rc = occurrence(c, c->newer, g, &occ)) < 0))
        return rc;
    gwalk_begin(&w, c->older, c->ids, c->n_ids, c->multi_set, c->info, c->fuel);
    while ((rc = gwalk_next(&w, og, c->err)) == 1) {
        if (same_group(g, og) && seen++ == occ) {
            c->hint = w;
            return 1;
        }
    }
    return rc;
}

/* A sample of counter r (value v) in group g of sample d, with its related values. */
static int fill_sample(const cook_ctx *c, const pcq_data *d, int loose, const cgroup *g,
                       const pcq_counter_reg *r, const pcq_value *v, pcq_calc_sample *s)
{
    const pcq_calc_type *t = pcq_calc_type_info(r->type);
    unsigned need = t != NULL ? t->needs : 0, k;
    pcq_value rv;
    cval x;
    int rc;

    memset(s, 0, sizeof *s);
    to_cval(v, &x);
    s->value = x.u64;
    s->value_size = x.size;
    s->time = d->perf_time_stamp;
    s->time_100ns = d->perf_time_100nsec;
    s->freq = d->perf_freq;
    if (r->type == 0x20670500u)       /* PRECISION_OBJECT_TIMER: PerfTimeId, else the base */
        need |= PCQ_CALC_NEEDS_BASE;
    for (k = 0; k < NREL; k++) {
        if (!(need >> k & 1u) || (rc = find_related(c, d, loose, g, related_id(r, k), &rv)) == 0)
            continue;
        if (PCQ_NEVER(rc < 0))        /* a validated buffer */
            return rc;
        to_cval(&rv, &x);
        set_related(s, k, &x);
    }
    return 0;
}

/* Where a value's counter id travels, for the error offset. */
static size_t id_offset(const pcq_data *d, const cgroup *g, uint32_t j)
{
    if (g->blk.type == PCQ_PERF_MULTI_COUNTERS || g->blk.type == PCQ_PERF_COUNTERSET)
        return (size_t)(g->blk.counter_ids.ptr - d->buf) + (size_t)j * 4;
    return g->blk.offset;
}

/* A row's fields that come from its group and value. */
static void row_start(pcq_calc_row *row, const cgroup *g, uint32_t id, size_t offset)
{
    memset(row, 0, sizeof *row);
    row->counter_id = id;
    row->instance_id = g->instance_id;
    row->has_instance = g->has_instance;
    row->instance = g->name;
    row->block_index = g->block_index;
    row->instance_offset = g->inst_offset;
    row->offset = offset;
}

/* One row per value of group g; og: the matching older group or NULL. The
 * general path: every lookup is a scan (blocks of type 1 and 4, long lists). */
static int cook_group(cook_ctx *c, const cgroup *g, const cgroup *og, pcq_calc_row *rows,
                      size_t *n)
{
    gvit v, ov;
    pcq_value val, oval;
    pcq_counter_reg r;
    pcq_calc_sample ns, os;
    uint32_t id = 0, oid = 0, index = 0, j = 0;
    int rc, have_old;

    gv_begin(c->newer, g, &v);
    if (og != NULL)
        gv_begin(c->older, og, &ov);
    for (; (rc = gv_next(&v, g, &id, &val)) == 1; j++) {
        pcq_calc_row *row = &rows[*n];
        if (!find_reg(c->info, id, j, &r, &index, c->fuel))
            return cook_fail(c->err, PCQ_ERR_INVALID_ARG, id_offset(c->newer, g, j),
                             "counter id not in the counterset-info");
        /* The buffers are validated: no walk below can fail. */
        if (PCQ_NEVER((rc = fill_sample(c, c->newer, c->loose_new, g, &r, &val, &ns)) < 0))
            return rc;
        /* The older group's value at the same place when the lists agree
         * there (they usually do), else a search. */
        have_old = og != NULL && ((rc = gv_next(&ov, og, &oid, &oval)) == 1 && oid == id);
        if (og != NULL && !have_old)
            have_old = (rc = group_find(c->older, og, id, &oval, c->fuel)) == 1;
        if (PCQ_NEVER(rc < 0))
            return rc;
        if (have_old &&
            PCQ_NEVER((rc = fill_sample(c, c->older, c->loose_old, og, &r, &oval, &os)) < 0))
            return rc;
        row_start(row, g, id, val.offset);
        row->type = r.type;
        row->info_index = index;
        row->attrib = r.attrib;
        row->status = pcq_calc_value(r.type, r.default_scale, have_old ? &os : NULL, &ns,
                                     c->flags, &row->value, &row->notes);
        (*n)++;
    }
    return rc;
}

/* The values of group g (n at most) into v through the iterator: *m of them,
 * then how the walk ended (*rc: 0, or the iterator's error at value *m). */
static void read_iter(const pcq_data *d, const cgroup *g, uint32_t n, cval *v, uint32_t *m,
                      int *rc)
{
    gvit it;
    pcq_value x;
    uint32_t id;
    gv_begin(d, g, &it);
    *m = 0;
    while ((*rc = gv_next(&it, g, &id, &x)) == 1) {
        /* Cannot be: the iterator counts n values. The loop runs only when
         * read_group's in-place read failed, which it cannot (see there). */
        if (PCQ_NEVER(*m == n)) {
            *rc = 0;
            break;
        }
        to_cval(&x, &v[(*m)++]);
    }
}

/* _PERF_COUNTER_DATA (§2.2.4.9): dwDataSize, dwSize (>= 8, covers the
 * structure and its value), then the value. */
enum { CD_DATA_SIZE = 0, CD_SIZE = 4, CD_HEADER = 8 };

/* Values 1..n-1 of group g in place, after the first (x, from the iterator):
 * each value starts where the previous one's dwSize ends, the chain the
 * iterator follows. 1 when every one passes the decoder's checks inside the
 * block (the walk that found g has just made them), else 0. */
static int read_in_place(const pcq_data *d, const cgroup *g, uint32_t n, const pcq_value *x,
                         cval *v)
{
    const uint8_t *b = d->buf;
    size_t at = x->offset + x->size, end = g->blk.offset + g->blk.size;
    uint32_t j, ds, sz;
    /* The decoder has made each of these checks on every value: none fails. */
    if (PCQ_NEVER(end < g->blk.offset || end > d->buf_len || at < x->offset))
        return 0;
    for (j = 1; j < n; j++) {
        if (PCQ_NEVER(at > end || end - at < CD_HEADER))
            return 0;
        ds = le32(b + at + CD_DATA_SIZE);
        sz = le32(b + at + CD_SIZE);
        if (PCQ_NEVER(sz < CD_HEADER || sz > end - at || ds > sz - CD_HEADER))
            return 0;
        v[j].u64 = ds == 4 ? le32(b + at + CD_HEADER)
                 : ds == 8 ? le32(b + at + CD_HEADER) | (uint64_t)le32(b + at + 12) << 32 : 0;
        v[j].size = ds == 4 || ds == 8 ? (uint8_t)ds : 0xFFu;
        v[j].offset = (uint32_t)at;
        at += sz;
    }
    /* Block values end with the block (IT_EXACT): 8 bytes more are an error. */
    return g->blk.type != PCQ_PERF_MULTI_COUNTERS || PCQ_ALWAYS(end - at < 8);
}

/* The values of group g (n at most) into v: *m of them, then how the walk
 * ended (*rc), as read_iter says. The first value comes from the iterator,
 * the rest are read in place; anything unexpected reads them all again
 * through the iterator, which then says what is wrong. */
static void read_group(const pcq_data *d, const cgroup *g, uint32_t n, cval *v, uint32_t *m,
                       int *rc)
{
    pcq_iter it;
    pcq_value x;
    if (n > 0 && (g->blk.type == PCQ_PERF_MULTI_COUNTERS || g->blk.type == PCQ_PERF_COUNTERSET)) {
        if (g->blk.type == PCQ_PERF_MULTI_COUNTERS)
            pcq_block_values(d, &g->blk, &it);
        else
            pcq_instance_values(d, &g->inst, &it);
        /* n > 0 values, validated by the decoder: both always hold. */
        if (PCQ_ALWAYS(pcq_values_next(&it, &x) == 1 && read_in_place(d, g, n, &x, v))) {
            to_cval(&x, &v[0]);
            *m = n;
            *rc = 0;
            return;
        }
    }
    read_iter(d, g, n, v, m, rc);
}

/* The value at position p of a group read as above, as group_find would meet
 * it scanning from the first value: 1 (*out set), 0 absent, or the error the
 * walk ran into before getting there. */
static int at_pos(const cval *v, uint32_t m, int rc, uint16_t p, const cval **out)
{
    if (p != NO_POS &&
        PCQ_ALWAYS(p < m)) {          /* m: every value (the read cannot fail) */
        *out = &v[p];
        return 1;
    }
    return PCQ_NEVER(rc < 0) ? rc : 0;
}

/* One group of one sample, read once: its values and how the walk ended. */
typedef struct cread {
    const pcq_data *d;
    const cgroup *g;
    int loose;
    cval v[COOK_COLS];
    uint32_t m;
    int rc;
} cread;

/* Reads group g of sample d into r, and sets s up as a sample of it with
 * its clocks and nothing else: the value and the related values are set
 * per column. */
static void cread_group(cread *r, const pcq_data *d, const cgroup *g, int loose,
                        pcq_calc_sample *s)
{
    r->d = d;
    r->g = g;
    r->loose = loose;
    read_group(d, g, g->blk.num_counters, r->v, &r->m, &r->rc);
    memset(s, 0, sizeof *s);
    s->time = d->perf_time_stamp;
    s->time_100ns = d->perf_time_100nsec;
    s->freq = d->perf_freq;
}

/* The related values col_related set, gone again before the next column. */
static void clear_related(pcq_calc_sample *s)
{
    s->base = s->obj_time = s->obj_freq = s->multi = 0;
    s->base_size = 0;
    s->have = 0;
}

/* The related values column col needs, into s: at positions rel of group r;
 * one outside the group is looked for as find_related does when the sample
 * has blocks of type 1 or 4. */
static int col_related(const cook_ctx *c, const cread *r, const ccol *col, const uint16_t *rel,
                       pcq_calc_sample *s)
{
    unsigned k;
    for (k = 0; k < NREL; k++) {
        const cval *y = NULL;
        pcq_counter_reg reg;
        pcq_value pv;
        cval tmp;
        int rc;
        if (!col_needs(col, k))
            continue;
        rc = at_pos(r->v, r->m, r->rc, rel[k], &y);
        if (rc == 0 && r->loose &&
            PCQ_ALWAYS(pcq_counterset_counter(c->info, col->index, &reg) == PCQ_OK) &&
            (rc = find_related(c, r->d, 1, r->g, related_id(&reg, k), &pv)) == 1) {
            to_cval(&pv, &tmp);
            y = &tmp;
        }
        if (PCQ_NEVER(rc < 0))        /* a validated buffer */
            return rc;
        if (rc == 1)
            set_related(s, k, y);
    }
    return 0;
}

/* cook_group by columns: each instance's values are read once per sample
 * and every lookup is an index into them. Same rows, statuses and errors. */
static int cook_columns(cook_ctx *c, const cgroup *g, const cgroup *og, pcq_calc_row *rows,
                        size_t *n)
{
    cread nr, orr;
    pcq_calc_sample ns, os;
    pcq_calc_row tmpl;
    uint32_t j;
    int rc;

    cread_group(&nr, c->newer, g, c->loose_new, &ns);
    if (og != NULL)
        cread_group(&orr, c->older, og, c->loose_old, &os);
    row_start(&tmpl, g, 0, 0);
    for (j = 0; j < nr.m; j++) {
        const ccol *col = &c->cols.col[j];
        const cval *ox = NULL;
        pcq_calc_row *row = &rows[*n];
        int have_old = 0;
        if (!col->found)
            return cook_fail(c->err, PCQ_ERR_INVALID_ARG, id_offset(c->newer, g, j),
                             "counter id not in the counterset-info");
        ns.value = nr.v[j].u64;
        ns.value_size = nr.v[j].size;
        /* The buffers are validated: no read below can fail. */
        if (col->need != 0 && PCQ_NEVER((rc = col_related(c, &nr, col, col->rel, &ns)) < 0))
            return rc;
        if (og != NULL &&
            PCQ_NEVER((have_old = at_pos(orr.v, orr.m, orr.rc, col->opos, &ox)) < 0))
            return have_old;
        /* A one-sample type never looks at the older sample: it is built
         * only to look up its related counters (which may still fail). */
        have_old = have_old && (col->two || col->need != 0);
        if (have_old) {
            os.value = ox->u64;
            os.value_size = ox->size;
            if (col->need != 0 &&
                PCQ_NEVER((rc = col_related(c, &orr, col, col->orel, &os)) < 0))
                return rc;
        }
        *row = tmpl;
        row->counter_id = col->id;
        row->offset = nr.v[j].offset;
        row->type = col->type;
        row->info_index = col->index;
        row->attrib = col->attrib;
        row->status = calc_eval(col->t, col->scale, have_old ? &os : NULL, &ns, c->flags,
                                &row->value, &row->notes);
        if (col->need != 0) {
            clear_related(&ns);
            clear_related(&os);
        }
        (*n)++;
    }
    return nr.rc;
}

/* Cooks group g: by columns when its list (and og's) fits, making the
 * columns when the list is not the one of the previous group. */
static int cook_any(cook_ctx *c, const cgroup *g, const cgroup *og, pcq_calc_row *rows,
                    size_t *n)
{
    colset *cs = &c->cols;
    int listed = g->blk.type == PCQ_PERF_MULTI_COUNTERS || g->blk.type == PCQ_PERF_COUNTERSET;
    if (!listed || g->blk.num_counters > COOK_COLS ||
        (og != NULL && (og->blk.type != g->blk.type || og->blk.num_counters > COOK_COLS)))
        return cook_group(c, g, og, rows, n);
    if (!same_list(cs->have, cs->ids, g->blk.counter_ids))
        columns_make(cs, c->info, &g->blk, c->fuel);
    if (og != NULL && !same_list(cs->ohave, cs->oids, og->blk.counter_ids))
        columns_older(cs, c->info, &og->blk);
    return cook_columns(c, g, og, rows, n);
}

/* Name order of two leaders (both with an instance): first counter id, name
 * length, name bytes. 0 iff they stand for the same counters under the same
 * name (a PERF_COUNTERSET block lists the same counters for every instance;
 * a single-counter group has just the one). */
static int name_cmp(const pcq_calc_row *a, const pcq_calc_row *b)
{
    if (a->counter_id != b->counter_id)
        return a->counter_id < b->counter_id ? -1 : 1;
    if (a->instance.len != b->instance.len)
        return a->instance.len < b->instance.len ? -1 : 1;
    return a->instance.len == 0 ? 0 : memcmp(a->instance.ptr, b->instance.ptr, a->instance.len);
}

/* 64-bit mix of a leader's first counter id and name bytes. */
static uint32_t name_hash(const pcq_calc_row *r)
{
    const uint8_t *p = r->instance.ptr;
    size_t n = r->instance.len, i;
    uint64_t h = 0x9E3779B97F4A7C15u ^ r->counter_id, w;
    for (i = 0; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);         /* host order: the hash only sorts into buckets */
        h = (h ^ w) * 0xFF51AFD7ED558CCDu;
        h ^= h >> 32;
    }
    for (w = 0; i < n; i++)
        w = w << 8 | p[i];
    h = (h ^ w ^ (uint64_t)n << 56) * 0xC4CEB9FE1A85EC53u;
    return (uint32_t)(h >> 32);
}

/* While name#n runs, three fields that are 0 in every instance row hold its
 * state, as row index + 1 where they link (0 ends a list): a leader's
 * instances_used holds its group's length (set as the group was cooked), its
 * is_aggregate the next leader of its list, and a row's aggregate_func the
 * head of bucket <row>. So the passes touch leaders, not every row. */
static size_t group_len(const pcq_calc_row *rows, size_t i)
{
    return rows[i].instances_used > 0 ? rows[i].instances_used : 1;
}

static size_t link_next(const pcq_calc_row *rows, size_t k)
{
    return (size_t)rows[k - 1].is_aggregate;
}

static void link_set(pcq_calc_row *rows, size_t k, size_t next)
{
    rows[k - 1].is_aggregate = (int)next;
}

/* Leader a sorts before leader b: by name (name_cmp), so each name's leaders
 * end up side by side, then in name#n order: InstanceId, then position. */
static int numbered_before(const pcq_calc_row *rows, size_t a, size_t b)
{
    int c = name_cmp(&rows[a - 1], &rows[b - 1]);
    if (c != 0)
        return c < 0;
    return rows[a - 1].instance_id < rows[b - 1].instance_id ||
           (rows[a - 1].instance_id == rows[b - 1].instance_id && a < b);
}

static size_t merge_lists(pcq_calc_row *rows, size_t a, size_t b)
{
    size_t head = 0, tail = 0, k;
    while (a != 0 && b != 0) {
        if (numbered_before(rows, a, b)) {
            k = a;
            a = link_next(rows, a);
        } else {
            k = b;
            b = link_next(rows, b);
        }
        if (tail != 0)
            link_set(rows, tail, k);
        else
            head = k;
        tail = k;
    }
    /* sort_list merges two lists of one leader or more: the loop ran. */
    if (PCQ_NEVER(tail == 0))
        return a != 0 ? a : b;
    link_set(rows, tail, a != 0 ? a : b);
    return head;
}

/* Merge sort of the list at head into name#n order (recursion depth log2). */
static size_t sort_list(pcq_calc_row *rows, size_t head)
{
    size_t slow = head, fast, second;
    if (PCQ_NEVER(head == 0) ||       /* a list holds its first leader */
        link_next(rows, head) == 0)
        return head;
    for (fast = link_next(rows, head); fast != 0 && link_next(rows, fast) != 0;
         fast = link_next(rows, link_next(rows, fast)))
        slow = link_next(rows, slow);
    second = link_next(rows, slow);
    link_set(rows, slow, 0);
    return merge_lists(rows, sort_list(rows, head), sort_list(rows, second));
}

/* Numbers the leaders of one bucket: one merge sort puts each name's leaders
 * side by side in name#n order, and each one's n counts those of its name
 * before it (the pair rule). O(d log d) comparisons for d leaders, whatever
 * their names: names crafted to share a bucket cost no more than equal names
 * (splitting a bucket name by name would cost d^2). */
static void number_bucket(pcq_calc_row *rows, size_t list)
{
    size_t k, prev = 0;
    uint32_t n = 0;
    for (k = sort_list(rows, list); k != 0; prev = k, k = link_next(rows, k)) {
        n = prev != 0 && name_cmp(&rows[prev - 1], &rows[k - 1]) == 0 ? n + 1 : 0;
        rows[k - 1].dup_index = n;
    }
}

/* The bucket of a leader's name among n. */
static size_t bucket_of(const pcq_calc_row *r, size_t n)
{
    return (size_t)(((uint64_t)name_hash(r) * n) >> 32);
}

/* Chains the leaders with a name by hash into as many buckets as there are
 * rows (n < 2^31 - 1), then numbers each bucket once: O(groups) when names
 * are unique, O(d log d) for d groups in one bucket (one name, or names
 * crafted to collide: the hash has no secret). */
static void number_hashed(pcq_calc_row *rows, size_t n)
{
    size_t i, b;
    for (i = 0; i < n; i += group_len(rows, i)) {
        if (!rows[i].has_instance)
            continue;
        b = bucket_of(&rows[i], n);
        link_set(rows, i + 1, rows[b].aggregate_func);
        rows[b].aggregate_func = (uint32_t)(i + 1);
    }
    for (i = 0; i < n; i += group_len(rows, i)) {
        if (!rows[i].has_instance)
            continue;
        b = bucket_of(&rows[i], n);
        if (rows[b].aggregate_func != 0) {
            number_bucket(rows, rows[b].aggregate_func);
            rows[b].aggregate_func = 0;
        }
    }
}

/* The group lengths back to 0 (a failed cook leaves them behind). */
static void clear_lengths(pcq_calc_row *rows, size_t n)
{
    size_t i, len;
    for (i = 0; i < n; i += len) {
        len = group_len(rows, i);
        rows[i].instances_used = 0;
    }
}

/* "name#n": n counts the groups of the same name ordered before this one by
 * (InstanceId, position), so the numbering does not depend on the order
 * the server happened to list instances in. Leaders are hashed by name and
 * each bucket sorted by name: O(groups) for unique names, O(d log d) for d
 * groups in one bucket; no memory of its own. Then every row of a group takes
 * its leader's n, and the fields borrowed are 0 again. */
static void number_duplicates(pcq_calc_row *rows, size_t n)
{
    size_t i, k, len;
    /* n < 2^29: every row is a value of the newer buffer, and a value takes
     * 8 bytes or more of a buffer whose size is the 32-bit dwTotalSize. So a
     * link (row index + 1) always fits in is_aggregate. */
    if (PCQ_NEVER(n >= 0x7FFFFFFFu)) {
        clear_lengths(rows, n);
        return;
    }
    number_hashed(rows, n);
    for (i = 0; i < n; i += len) {
        len = group_len(rows, i);
        rows[i].instances_used = 0;
        rows[i].is_aggregate = 0;
        for (k = 1; rows[i].dup_index != 0 && k < len; k++)
            rows[i + k].dup_index = rows[i].dup_index;
    }
}

static int aggregates(const pcq_counterset_info *info)
{
    uint32_t t = info->set.instance_type;
    return t == 0x4u || t == 0x6u || t == 0xCu;   /* §2.2.4.1 */
}

static int aggregate_counter(const pcq_counter_reg *r)
{
    return r->aggregate_func >= 1 && r->aggregate_func <= 4;
}

/* The aggregate row of counter i, before any instance is added: its value
 * field holds the running total, min or max, instances_used the count. */
static void aggregate_begin(uint32_t i, const pcq_counter_reg *r, unsigned flags,
                            pcq_calc_row *out)
{
    int st = pcq_calc_value(r->type, 0, NULL, NULL, flags | PCQ_CALC_NOSCALE, NULL, NULL);
    memset(out, 0, sizeof *out);
    out->counter_id = r->counter_id;
    out->type = r->type;
    out->is_aggregate = 1;
    out->aggregate_func = r->aggregate_func;
    out->info_index = i;
    out->attrib = r->attrib;
    out->status = st == PCQ_CALC_NEED_SECOND_SAMPLE ? PCQ_CALC_OK : st;
}

/* Adds one instance's computed value (DefaultScale already applied: a
 * positive factor commutes with sum, average, min and max). */
static void aggregate_add(pcq_calc_row *out, double v)
{
    /* A type whose aggregate is not OK from the start (unknown, text, base)
     * gives no instance row an OK status, and only those are added. */
    if (PCQ_NEVER(out->status != PCQ_CALC_OK))
        return;
    if (out->instances_used == 0 || out->aggregate_func <= 2)
        out->value = out->instances_used == 0 ? v : out->value + v;
    else if (out->aggregate_func == 3 ? v < out->value : v > out->value)
        out->value = v;
    out->instances_used++;
}

static void aggregate_end(pcq_calc_row *out)
{
    double acc = out->value;
    if (out->status == PCQ_CALC_OK && out->instances_used == 0)
        out->status = PCQ_CALC_NO_INSTANCE;
    if (out->status == PCQ_CALC_OK && out->aggregate_func == 2)
        acc /= (double)out->instances_used;
    /* Fewer than 2^29 values of less than 2^180 each: the sum is finite. */
    if (out->status == PCQ_CALC_OK && PCQ_NEVER(!isfinite(acc)))
        out->status = PCQ_CALC_OUT_OF_RANGE;
    out->value = out->status == PCQ_CALC_OK && acc != 0.0 ? acc : 0.0;
}

/* The aggregate row of counter-info index i among agg[0..na), which are in
 * counter-info order: the one after the previous (*a) when it is, as
 * instance rows come in the counterset's order; else by halves. */
static int aggregate_find(const pcq_calc_row *agg, size_t na, uint32_t i, size_t *a)
{
    size_t lo = 0, hi = na;
    if (*a < na && agg[*a].info_index == i)
        return 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (agg[mid].info_index == i) {
            *a = mid;
            return 1;
        }
        if (agg[mid].info_index < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Aggregate rows after the n instance rows, one per aggregating counter in
 * counter-info order, each combining the instance rows of its counter whose
 * status is OK, in row order: one pass over the rows for all of them. */
static size_t aggregate_rows(const pcq_counterset_info *info, unsigned flags, pcq_calc_row *rows,
                             size_t n)
{
    pcq_calc_row *agg;
    pcq_counter_reg r;
    size_t na = 0, k, a = 0;
    uint32_t i;
    for (i = 0; i < info->set.num_counters; i++)
        if (PCQ_ALWAYS(pcq_counterset_counter(info, i, &r) == PCQ_OK) &&  /* validated */
            aggregate_counter(&r))
            aggregate_begin(i, &r, flags, &rows[n + na++]);
    if (na == 0)
        return 0;                     /* rows may be NULL: nothing was needed */
    agg = rows + n;
    for (k = 0; k < n; k++) {
        if (!rows[k].has_instance || rows[k].status != PCQ_CALC_OK ||
            !aggregate_find(agg, na, rows[k].info_index, &a))
            continue;
        aggregate_add(&agg[a], rows[k].value);
        a++;
    }
    for (a = 0; a < na; a++)
        aggregate_end(&agg[a]);
    return na;
}

/* Whether block i of w's sample has a counter: an identifier, or counter i. */
static int block_has_counter(const gwalk *w, uint32_t i)
{
    uint32_t id;
    return ident_for_block(w, i) != NULL || counter_for_block(w, i, &id);
}

/* Rows of block b (index i) of w's sample, from its headers alone: a block of
 * instances holds instances x values-per-instance values (every value takes
 * 8 bytes or more, so a count beyond size / 8 is walked instead). Whether it
 * holds groups of type 1 or 4 goes to *loose; a block without a counter fails
 * as gwalk_next fails on its first group. */
static int block_rows(const gwalk *w, const pcq_block *b, uint32_t i, size_t *rows, int *loose,
                      pcq_error *err)
{
    uint32_t per = b->type == PCQ_PERF_COUNTERSET ? b->num_counters : 1;
    switch (b->type) {
    case PCQ_PERF_SINGLE_COUNTER:
        if (!block_has_counter(w, i))
            return cook_fail(err, PCQ_ERR_INVALID_ARG, b->offset,
                             "PERF_SINGLE_COUNTER block without an identifier");
        *loose = 1;
        *rows += 1;
        return 0;
    case PCQ_PERF_MULTI_COUNTERS:
        *rows += b->num_counters;
        return 0;
    case PCQ_PERF_MULTI_INSTANCES:
    case PCQ_PERF_COUNTERSET:
        /* The decoder has walked every instance and value of the block: its
         * counts are right, and each value takes 8 bytes or more. */
        if (PCQ_NEVER((uint64_t)b->num_instances * per > b->size / 8)) {
            pcq_iter it;              /* walk it: the walk meets the error gwalk_next would */
            pcq_data_instance inst;
            int rc;
            pcq_block_instances(w->d, b, &it);
            while ((rc = pcq_instances_of_block_next(&it, &inst)) == 1)
                *rows += inst.num_values;
            if (rc < 0 && err != NULL)
                *err = it.err;
            return rc;
        }
        if (b->type == PCQ_PERF_MULTI_INSTANCES && b->num_instances > 0) {
            if (!block_has_counter(w, i))
                return cook_fail(err, PCQ_ERR_INVALID_ARG, b->offset,
                                 "PERF_MULTI_INSTANCES block without an identifier");
            *loose = 1;
        }
        *rows += (size_t)b->num_instances * per;
        return 0;
    default:
        return 0;                     /* PERF_ERROR_RETURN: no value to cook */
    }
}

/* Rows of sample d (one per value) and whether it has groups of type 1 or 4,
 * block by block: the headers say it without walking the values. */
static int scan_blocks(const cook_ctx *c, const pcq_data *d, size_t *rows, int *loose)
{
    gwalk w;
    pcq_block b;
    uint32_t i = 0;
    int rc, newer = d == c->newer;
    gwalk_begin(&w, d, c->ids, c->n_ids, c->multi_set, c->info, c->fuel);
    /* A block without a counter fails in the newer sample (an offset there);
     * in the older one it is no error: gwalk_next passes it over, and its
     * values meet no newer value. */
    while ((rc = pcq_blocks_next(&w.blocks, &b)) == 1)
        if ((rc = block_rows(&w, &b, i++, rows, loose, newer ? c->err : NULL)) < 0 && newer)
            return rc;
    if (PCQ_NEVER(rc < 0) && c->err != NULL)  /* a validated buffer */
        *c->err = w.blocks.err;
    return rc;
}

/* Cooks every group of the newer sample into rows (*n of them so far); the
 * first row of each group keeps the group's length in instances_used, for
 * name#n. */
static int cook_groups(cook_ctx *c, pcq_calc_row *rows, size_t *n)
{
    gwalk w;
    cgroup g, og;
    int rc;
    gwalk_begin(&w, c->newer, c->ids, c->n_ids, c->multi_set, c->info, c->fuel);
    while ((rc = gwalk_next(&w, &g, c->err)) == 1) {
        size_t first = *n;
        int found = 0;
        if (c->older != NULL &&
            PCQ_NEVER((found = match_older(c, &g, &og)) < 0))  /* validated buffers */
            return found;
        if ((rc = cook_any(c, &g, found == 1 ? &og : NULL, rows, n)) < 0)
            return rc;
        if (*n > first)
            rows[first].instances_used = (uint32_t)(*n - first);
    }
    return rc;
}

/* The slow-path budget: linear in everything the cook is given (the
 * identifiers at 48 bytes each, their smallest wire size). */
static uint64_t cook_budget(const pcq_counterset_info *info, const pcq_data *older,
                            const pcq_data *newer, size_t n_ids)
{
    uint64_t bytes = (uint64_t)newer->total_size + (older != NULL ? older->total_size : 0) +
                     (uint64_t)info->set.num_counters * 48u +
                     (uint64_t)(n_ids < 0xFFFFFFFFu ? n_ids : 0xFFFFFFFFu) * 48u;
    return (uint64_t)PCQ_COOK_WORK_MIN + (uint64_t)PCQ_COOK_WORK_PER_BYTE * bytes;
}

/* A cook that ran out of work fails with PCQ_ERR_LIMIT and no rows,
 * whatever else its searches (which then found nothing) made of the buffers. */
static int cook_end(const cook_ctx *c, int rc, size_t *count)
{
    if (!c->fuel->out)
        return rc;
    *count = 0;
    return cook_fail(c->err, PCQ_ERR_LIMIT, 0, "pcq_calc_cook work (PCQ_COOK_WORK_*)");
}

int pcq_calc_cook(const pcq_counterset_info *info, const pcq_data *older, const pcq_data *newer,
                  const pcq_identifier *ids, size_t n_ids, unsigned flags, pcq_calc_row *rows,
                  size_t cap, size_t *count, pcq_error *err)
{
    cook_ctx c;
    cfuel fuel;
    pcq_counter_reg r;
    size_t need = 0, n = 0, old_rows = 0;
    uint32_t i;
    int rc;

    if (info == NULL || newer == NULL || count == NULL || (cap > 0 && rows == NULL) ||
        (n_ids > 0 && ids == NULL))
        return cook_fail(err, PCQ_ERR_INVALID_ARG, 0, "pcq_calc_cook arguments");
    memset(&c, 0, sizeof c);
    c.info = info;
    c.older = older;
    c.newer = newer;
    c.ids = ids;
    c.n_ids = n_ids;
    c.multi_set = info->set.instance_type != 0;
    c.flags = flags;
    c.err = err;
    c.fuel = &fuel;
    fuel.left = cook_budget(info, older, newer, n_ids);
    fuel.out = 0;
    *count = 0;
    if ((rc = scan_blocks(&c, newer, &need, &c.loose_new)) < 0)
        return cook_end(&c, rc, count);
    if (aggregates(info))
        for (i = 0; i < info->set.num_counters; i++)
            if (PCQ_ALWAYS(pcq_counterset_counter(info, i, &r) == PCQ_OK) &&  /* validated */
                aggregate_counter(&r))
                need++;
    *count = need;
    if (need > cap && !fuel.out)
        return cook_fail(err, PCQ_ERR_BUFFER_TOO_SMALL, 0, "pcq_calc_row array");
    if (older != NULL && !fuel.out) {
        /* the older sample fails on nothing: a validated buffer, and a block
         * without a counter is passed over */
        if (PCQ_NEVER((rc = scan_blocks(&c, older, &old_rows, &c.loose_old)) < 0))
            return cook_end(&c, rc, count);
        gwalk_begin(&c.hint, older, ids, n_ids, c.multi_set, info, c.fuel);
    }
    if (!fuel.out)
        rc = cook_groups(&c, rows, &n);
    if (rc < 0 || fuel.out) {
        clear_lengths(rows, n);
        return cook_end(&c, rc, count);
    }
    number_duplicates(rows, n);
    if (aggregates(info))
        n += aggregate_rows(info, flags, rows, n);
    *count = n;
    return PCQ_OK;
}

#endif /* PCQ_NO_CALC */
