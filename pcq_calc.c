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

/* type, formula, size, samples, needs, timebase, unit, displayable, hex, op */
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
    size_t i;
    for (i = 0; i < CALC_NTYPES; i++)
        if (calc_types[i].type == type)
            return &calc_types[i];
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

/* Width of the base when the sample does not say: the base types of the
 * §2.2.4.2 table (AVERAGE_BASE, SAMPLE_BASE, RAW_BASE are 32-bit; LARGE_RAW_BASE
 * is 64-bit, the clock of the PRECISION types). */
static unsigned base_width(unsigned given, const pcq_calc_type *d)
{
    if (given != 0)
        return given;
    if (d->op == OP_RAW_FRACTION)
        return d->size == 4 ? 4u : 8u;
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

    /* Timer and queue types: dN over an interval. */
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
    case OP_MULTI_INV: *out = 100.0 * (m - (double)dn / dd) / m; break;
    default:           return PCQ_CALC_UNKNOWN_TYPE;
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
    if (related_missing(d, n))
        return PCQ_CALC_MISSING_RELATED;
    if (d->samples == 2) {
        if (o == NULL)
            return PCQ_CALC_NEED_SECOND_SAMPLE;
        if ((o->value_size != 0 && o->value_size != 4 && o->value_size != 8) ||
            (o->base_size != 0 && o->base_size != 4 && o->base_size != 8))
            return PCQ_CALC_BAD_VALUE_SIZE;
        if (related_missing(d, o))
            return PCQ_CALC_MISSING_RELATED;
    }
    return PCQ_CALC_OK;
}

int pcq_calc_value(uint32_t type, int32_t scale, const pcq_calc_sample *older,
                   const pcq_calc_sample *newer, unsigned flags, double *out, unsigned *notes)
{
    const pcq_calc_type *d = pcq_calc_type_info(type);
    unsigned nb = 0;
    double v = 0.0;
    int st = precheck(d, scale, older, newer, flags);

    if (st == PCQ_CALC_OK)
        st = formula(d, older, newer, flags, &v, &nb);
    if (st == PCQ_CALC_OK && !isfinite(v))
        st = PCQ_CALC_OUT_OF_RANGE;
    if (st == PCQ_CALC_OK && d->unit == PCQ_CALC_UNIT_PERCENT && !(flags & PCQ_CALC_NOCAP100)) {
        if (v > 100.0) { v = 100.0; nb |= PCQ_CALC_NOTE_CAPPED; }
        if (v < 0.0)   { v = 0.0;   nb |= PCQ_CALC_NOTE_CAPPED; }
    }
    if (st == PCQ_CALC_OK && v < 0.0)
        st = PCQ_CALC_NEGATIVE_VALUE;
    if (st == PCQ_CALC_OK) {
        if (!(flags & PCQ_CALC_NOSCALE))
            v = apply_scale(v, scale);
        if (flags & PCQ_CALC_X1000)
            v *= 1000.0;
        if (!isfinite(v))
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

#endif /* PCQ_NO_CALC */
