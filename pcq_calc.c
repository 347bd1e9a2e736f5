/* SPDX-License-Identifier: MIT */
/*
 * pcq_calc.c - the evaluator: raw counter samples of [MS-PCQ] data buffers to
 * the values people read, computed the way Windows PDH computes them.
 *
 * Sources and every decision where they disagree: docs/formulas.md.
 * C99, libc + libm; no allocation, no static mutable state. Every division is
 * guarded, every result is checked with isfinite() before it is returned.
 */
#include "pcq_codec.h"

/* The cook's walkers keep their block in their own state, which calls see
 * anyway: the header's inline block step (for the README's loop, whose
 * block is its own) would only add its copy on a buffer that is not
 * canonical (bench/hostile.c cook-tiny-lists 43.7 -> 46.5 Ir/B). */
#undef pcq_blocks_next

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
 * validated every block, instance and value, so the iterators cannot fail.
 * With PCQ_CHECK_NEVER (make fuzz-replay) a claim an input breaks traps. */
#if defined(PCQ_CHECK_NEVER) && defined(__GNUC__)
#define PCQ_NEVER(x)  ((x) ? (__builtin_trap(), 1) : 0)
#define PCQ_ALWAYS(x) ((x) ? 1 : (__builtin_trap(), 0))
#else
#define PCQ_NEVER(x)  (x)
#define PCQ_ALWAYS(x) (x)
#endif

/* C99 inline for the column kernels' per-row steps; plain static otherwise. */
#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define CALC_INLINE inline
#else
#define CALC_INLINE
#endif
#if defined(__GNUC__)
#define CALC_FORCE_INLINE __inline__ __attribute__((always_inline)) /* a kernel, once a stride */
#else
#define CALC_FORCE_INLINE CALC_INLINE
#endif
#if defined(__GNUC__)
#define CALC_NOINLINE __attribute__((noinline)) /* a rare path kept out of its caller's frame */
#else
#define CALC_NOINLINE
#endif

/* ------------------------------------------------------------------------ */
/* Statuses                                                                 */
/* ------------------------------------------------------------------------ */
const char *pcq_calc_status_name(int status)
{
    switch (status) {
#define PCQ_X_(name, value, text) \
    case value: return #name;
        PCQ_CALC_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "PCQ_CALC_UNKNOWN_STATUS";
    }
}

const char *pcq_calc_status_text(int status)
{
    switch (status) {
#define PCQ_X_(name, value, text) \
    case value: return text;
        PCQ_CALC_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "unknown evaluator status";
    }
}

/* ------------------------------------------------------------------------ */
/* One table describes every type (§2.2.4.2; winperf.h for the extra four). */
/* ------------------------------------------------------------------------ */
enum calc_op {
    OP_RAW = 1,      /* N                                   */
    OP_DELTA,        /* dN                                  */
    OP_RATE,         /* dN / (dT / F)                       */
    OP_QUEUE,        /* dN / dD   (D: T, T100 or To)        */
    OP_TIMER,        /* 100 dN / dD                         */
    OP_TIMER_INV,    /* 100 (1 - dN / dD)                   */
    OP_MULTI,        /* 100 (dN / dD) / M                   */
    OP_MULTI_INV,    /* 100 (M - dN / dD) / M               */
    OP_FRACTION,     /* 100 dN / dB   (B counts events)     */
    OP_RAW_FRACTION, /* 100 N / B     (one sample)          */
    OP_AVG_TIMER,    /* (dN / F) / dB                       */
    OP_AVG_BULK,     /* dN / dB                             */
    OP_ELAPSED,      /* (To - N) / Fo (one sample)          */
    OP_BASE,         /* bases and NODATA: no value of their own */
    OP_TEXT
};

/* The evaluator's columns of PCQ_COUNTER_TYPE_TABLE (pcq_codec.h), in its
 * order (ascending by type: pcq_calc_type_info() searches it by halves). A
 * type the evaluator does not know (op NONE, the histogram) ends the table
 * and is not one of its entries. */
#define OP_NONE 0
/* clang-format off */
static const pcq_calc_type calc_types[] = {
#define PCQ_X_(name, value, spec, size, samples, req, base, needs, tb, unit, disp, hex, op, formula) \
    {value, formula, size, samples, needs, PCQ_CALC_TB_##tb, PCQ_CALC_UNIT_##unit, disp, hex, OP_##op},
    PCQ_COUNTER_TYPE_TABLE(PCQ_X_)
#undef PCQ_X_
};
/* clang-format on */

/* Entries the evaluator knows: all but the last, PERF_COUNTER_HISTOGRAM_TYPE. */
#define CALC_NTYPES (sizeof calc_types / sizeof calc_types[0] - 1)

const pcq_calc_type *pcq_calc_type_info(uint32_t type)
{
    size_t lo = 0, hi = CALC_NTYPES;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (calc_types[mid].type == type) return &calc_types[mid];
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
    if (scale >= 0 && scale <= 10) return pos[scale];
    if (scale < 0 && scale >= -10) return 1.0 / pos[-scale]; /* correctly rounded: 1/10^k, both exact */
    return 0.0;
}

/* v x 10^scale; dividing for negative scales keeps 10 x 10^-1 exactly 1. */
static double apply_scale(double v, int32_t scale)
{
    if (scale < 0) return v / pcq_calc_scale_factor(-scale);
    return v * pcq_calc_scale_factor(scale);
}

/* ------------------------------------------------------------------------ */
/* The low-level calculation                                                */
/* ------------------------------------------------------------------------ */

/* Effective width of a value: its dwDataSize, else the type's size bits. */
static unsigned value_width(unsigned given, const pcq_calc_type *d)
{
    if (given != 0) return given;
    return d->size == 4 ? 4u : 8u;
}

/* newer - older of a counter or base, as the value travels. A 4-byte value
 * that decreased is taken modulo 2^32 when the modular delta is below 2^31
 * (serial-number arithmetic, RFC 1982): a wrap moves forward by less than half
 * the range, a reset to a small value "moves" by more. Returns 0, or -1 for a
 * decrease that is not a wrap. */
static CALC_INLINE int raw_delta(uint64_t older, uint64_t newer, unsigned width, unsigned flags, uint64_t *d,
                                 unsigned *notes)
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
        uint64_t m = (newer - older) & 0xFFFFFFFFu; /* unsigned: well defined */
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
    if (newer < older) return PCQ_CALC_NEGATIVE_DENOMINATOR;
    if (newer == older) return PCQ_CALC_ZERO_DENOMINATOR;
    *d = newer - older;
    return PCQ_CALC_OK;
}

/* Width of the base delta when the sample does not say: the base types of the
 * §2.2.4.2 table (AVERAGE_BASE, SAMPLE_BASE are 32-bit; LARGE_RAW_BASE is
 * 64-bit, the clock of the PRECISION types). Raw fractions (RAW_BASE) take
 * no delta and never come here. */
static unsigned base_width(unsigned given, const pcq_calc_type *d)
{
    if (given != 0) return given;
    if (d->op == OP_TIMER) return 8;
    return 4;
}

/* Which related values are missing from sample s for descriptor d. */
static int related_missing(const pcq_calc_type *d, const pcq_calc_sample *s)
{
    unsigned need = d->needs;
    unsigned have = s->have;
    if (d->op == OP_TIMER && d->timebase == PCQ_CALC_TB_OBJECT && d->type == 0x20670500u &&
        !(have & PCQ_CALC_HAVE_TIME))
        /* PRECISION_OBJECT_TIMER: the spec's PerfTimeId, else PDH's base. */
        need = PCQ_CALC_NEEDS_BASE;
    if ((need & PCQ_CALC_NEEDS_BASE) && !(have & PCQ_CALC_HAVE_BASE)) return 1;
    if ((need & PCQ_CALC_NEEDS_TIME) && !(have & PCQ_CALC_HAVE_TIME)) return 1;
    if ((need & PCQ_CALC_NEEDS_FREQ) && !(have & PCQ_CALC_HAVE_FREQ)) return 1;
    if ((need & PCQ_CALC_NEEDS_MULTI) && !(have & PCQ_CALC_HAVE_MULTI)) return 1;
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
    case PCQ_CALC_TB_TICK: st = clock_delta(o->time, n->time, &v); break;
    case PCQ_CALC_TB_100NS: st = clock_delta(o->time_100ns, n->time_100ns, &v); break;
    case PCQ_CALC_TB_OBJECT: st = clock_delta(o->obj_time, n->obj_time, &v); break;
    default:
        if (raw_delta(o->base, n->base, base_width(n->base_size, d), flags, &v, notes) != 0)
            return PCQ_CALC_NEGATIVE_DENOMINATOR;
        if (v == 0) return PCQ_CALC_ZERO_DENOMINATOR;
        break;
    }
    *dd = (double)v;
    return st;
}

/* The formula itself, once every input is known to be present and sane. */
static int formula(const pcq_calc_type *d, const pcq_calc_sample *o, const pcq_calc_sample *n, unsigned flags,
                   double *out, unsigned *notes)
{
    uint64_t dn = 0, db = 0;
    double dd = 0.0, m;
    int st;

    switch (d->op) {
    case OP_RAW: *out = (double)n->value; return PCQ_CALC_OK;
    case OP_RAW_FRACTION:
        /* B == 0: nothing to be a fraction of; PDH shows 0 (formulas.md). */
        *out = n->base == 0 ? 0.0 : 100.0 * ((double)n->value / (double)n->base);
        return PCQ_CALC_OK;
    case OP_ELAPSED:
        if (n->obj_freq == 0) return PCQ_CALC_BAD_TIME_BASE;
        if (n->value == 0) { /* no start time recorded: PDH shows 0 */
            *out = 0.0;
            return PCQ_CALC_OK;
        }
        if (n->value > n->obj_time) return PCQ_CALC_NEGATIVE_VALUE;
        *out = (double)(n->obj_time - n->value) / (double)n->obj_freq;
        return PCQ_CALC_OK;
    default: break;
    }

    /* Two-sample types from here on. */
    if (raw_delta(o->value, n->value, value_width(n->value_size, d), flags, &dn, notes) != 0)
        return PCQ_CALC_WENT_BACKWARDS;

    switch (d->op) {
    case OP_DELTA: *out = (double)dn; return PCQ_CALC_OK;
    case OP_RATE:
        if (n->freq == 0) return PCQ_CALC_BAD_TIME_BASE;
        st = clock_delta(o->time, n->time, &db);
        if (st != PCQ_CALC_OK) return st;
        dd = (double)db / (double)n->freq; /* rounded to a double here, as the column cook's is (x87) */
        *out = (double)dn / dd;
        return PCQ_CALC_OK;
    case OP_FRACTION:
    case OP_AVG_BULK:
    case OP_AVG_TIMER:
        if (d->op == OP_AVG_TIMER && n->freq == 0) return PCQ_CALC_BAD_TIME_BASE;
        if (raw_delta(o->base, n->base, base_width(n->base_size, d), flags, &db, notes) != 0)
            return PCQ_CALC_NEGATIVE_DENOMINATOR;
        if (db == 0) { /* no events in the interval: PDH shows 0 */
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
    default: break;
    }

    /* Timer and queue types: dN over an interval. precheck took OP_TEXT and
     * OP_BASE, the cases above every other op: only these five are left. */
    if (PCQ_NEVER(d->op < OP_QUEUE || d->op > OP_MULTI_INV)) return PCQ_CALC_UNKNOWN_TYPE;
    st = interval(d, o, n, flags, &dd, notes);
    if (st != PCQ_CALC_OK) return st;
    m = (double)n->multi;
    if ((d->op == OP_MULTI || d->op == OP_MULTI_INV) && n->multi == 0) return PCQ_CALC_ZERO_DENOMINATOR;
    switch (d->op) {
    case OP_QUEUE: *out = (double)dn / dd; break;
    case OP_TIMER: *out = 100.0 * ((double)dn / dd); break;
    case OP_TIMER_INV: *out = 100.0 * (1.0 - (double)dn / dd); break;
    case OP_MULTI: *out = 100.0 * ((double)dn / dd) / m; break;
    default: /* OP_MULTI_INV, the one op left (the guard above) */
        *out = 100.0 * (m - (double)dn / dd) / m;
        break;
    }
    return PCQ_CALC_OK;
}

/* Status checks that come before any arithmetic, in a fixed order. */
static int precheck(const pcq_calc_type *d, int32_t scale, const pcq_calc_sample *o, const pcq_calc_sample *n,
                    unsigned flags)
{
    if (d == NULL) return PCQ_CALC_UNKNOWN_TYPE;
    if (d->op == OP_TEXT) return PCQ_CALC_NOT_NUMERIC;
    if (d->op == OP_BASE) return PCQ_CALC_NOT_DISPLAYABLE;
    if (!(flags & PCQ_CALC_NOSCALE) && (scale < -10 || scale > 10)) return PCQ_CALC_BAD_SCALE;
    if (n == NULL) return PCQ_CALC_NEED_SECOND_SAMPLE; /* nothing at all to compute from */
    if ((n->value_size != 0 && n->value_size != 4 && n->value_size != 8) ||
        (n->base_size != 0 && n->base_size != 4 && n->base_size != 8))
        return PCQ_CALC_BAD_VALUE_SIZE;
    if (d->needs != 0 && related_missing(d, n)) return PCQ_CALC_MISSING_RELATED;
    if (d->samples == 2) {
        if (o == NULL) return PCQ_CALC_NEED_SECOND_SAMPLE;
        if ((o->value_size != 0 && o->value_size != 4 && o->value_size != 8) ||
            (o->base_size != 0 && o->base_size != 4 && o->base_size != 8))
            return PCQ_CALC_BAD_VALUE_SIZE;
        if (d->needs != 0 && related_missing(d, o)) return PCQ_CALC_MISSING_RELATED;
    }
    return PCQ_CALC_OK;
}

/* A status without a value: only the wrap note stays. */
static CALC_INLINE void kstatus(pcq_calc_cell *out, int st, unsigned nb)
{
    out->value = 0.0;
    out->status = st;
    out->notes = nb & PCQ_CALC_NOTE_WRAPPED;
}

/* What follows a formula that gave v, for pcq_calc_value and the column
 * cook alike (one code, so the two agree bit for bit): the cap at 100 of a
 * percentage, a negative value refused, then 10^scale, then x1000. */
static CALC_INLINE void finish(const pcq_calc_type *d, int32_t scale, unsigned flags, double v, unsigned nb,
                               pcq_calc_cell *out)
{
    if (d->unit == PCQ_CALC_UNIT_PERCENT && !(flags & PCQ_CALC_NOCAP100)) {
        if (v > 100.0) {
            v = 100.0;
            nb |= PCQ_CALC_NOTE_CAPPED;
        }
        if (v < 0.0) {
            v = 0.0;
            nb |= PCQ_CALC_NOTE_CAPPED;
        }
    }
    if (v < 0.0) {
        kstatus(out, PCQ_CALC_NEGATIVE_VALUE, nb);
        return;
    }
    if (!(flags & PCQ_CALC_NOSCALE) && scale != 0) v = apply_scale(v, scale); /* x 10^0 is x, bit for bit */
    if (flags & PCQ_CALC_X1000) v *= 1000.0;
    out->value = v == 0.0 ? 0.0 : v; /* no "-0" in any output */
    out->status = PCQ_CALC_OK;
    out->notes = nb;
}

/* pcq_calc_value for a type already looked up (d NULL: unknown type); the
 * cook looks each counter's type up once per block, not once per value. */
static int calc_eval(const pcq_calc_type *d, int32_t scale, const pcq_calc_sample *older,
                     const pcq_calc_sample *newer, unsigned flags, double *out, unsigned *notes)
{
    unsigned nb = 0;
    double v = 0.0;
    int st = precheck(d, scale, older, newer, flags);
    pcq_calc_cell c;

    if (st == PCQ_CALC_OK) st = formula(d, older, newer, flags, &v, &nb);
    /* Inputs are 64-bit integers and every divisor is 1 or more (or a
     * frequency, itself an integer): |v| < 2^128, far inside a double. */
    if (st == PCQ_CALC_OK && PCQ_NEVER(!isfinite(v))) st = PCQ_CALC_OUT_OF_RANGE;
    if (st != PCQ_CALC_OK)
        kstatus(&c, st, nb);
    else
        finish(d, scale, flags, v, nb, &c);
    if (c.status == PCQ_CALC_OK && PCQ_NEVER(!isfinite(c.value))) /* < 2^128 x 10^10 x 1000: finite */
        kstatus(&c, PCQ_CALC_OUT_OF_RANGE, c.notes);
    if (c.status == PCQ_CALC_OK && out != NULL) *out = c.value;
    if (notes != NULL) *notes = c.notes;
    return c.status;
}

int pcq_calc_value(uint32_t type, int32_t scale, const pcq_calc_sample *older, const pcq_calc_sample *newer,
                   unsigned flags, double *out, unsigned *notes)
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
    if (src[0] == '-') dst[n++] = src[i++];
    while (src[i + ip] >= '0' && src[i + ip] <= '9') ip++;
    for (k = 0; k < ip && n + 2 < cap; k++) {
        if (k > 0 && (ip - k) % 3 == 0) dst[n++] = ',';
        dst[n++] = src[i + k];
    }
    for (i += ip; src[i] != '\0' && n + 1 < cap; i++) dst[n++] = src[i];
    dst[n] = '\0';
}

static const char *unit_suffix(const pcq_calc_type *d)
{
    if (d == NULL) return "";
    switch (d->unit) {
    case PCQ_CALC_UNIT_PER_SEC: return " /sec";
    case PCQ_CALC_UNIT_PERCENT: return " %";
    case PCQ_CALC_UNIT_SECONDS: return " s";
    default: return "";
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
        snprintf(num, PCQ_CALC_TEXT_SIZE, "%.6e", v); /* too long for digits */
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
/* Cooking a column: one counter type, n values                             */
/* ------------------------------------------------------------------------ */

/* The parts of a sample that are the same for every row of a column. */
static void column_sample(const pcq_calc_column *c, pcq_calc_sample *s)
{
    memset(s, 0, sizeof *s);
    s->time = c->time;
    s->time_100ns = c->time_100ns;
    s->freq = c->freq;
    s->value_size = c->value_size;
    s->base_size = c->base_size;
    s->have = (uint8_t)((c->base ? PCQ_CALC_HAVE_BASE : 0u) | (c->obj_time ? PCQ_CALC_HAVE_TIME : 0u) |
                        (c->obj_freq ? PCQ_CALC_HAVE_FREQ : 0u) | (c->multi ? PCQ_CALC_HAVE_MULTI : 0u));
}

/* From one row's values to the next in column c's arrays (stride 0 is 1). */
static size_t column_stride(const pcq_calc_column *c)
{
    return c->stride > 1 ? c->stride : 1;
}

/* Row i of column c into s (set up by column_sample). */
static void column_row(const pcq_calc_column *c, size_t i, pcq_calc_sample *s)
{
    size_t at = i * column_stride(c);
    s->value = c->value[at];
    if (c->base) s->base = c->base[at];
    if (c->obj_time) s->obj_time = c->obj_time[at];
    if (c->obj_freq) s->obj_freq = c->obj_freq[at];
    if (c->multi) s->multi = c->multi[at];
}

/* What every row of a column shares, worked out once for the kernels. */
typedef struct kcol {
    const pcq_calc_type *d;
    int32_t scale;
    unsigned flags, width, bwidth; /* value and base delta widths */
    int st;                        /* the interval's or the time base's status (kernels that have one) */
    double q;                      /* RATE: dT / F; TIMER, QUEUE on a clock: dD; AVG_TIMER: F */
} kcol;

/* The end of calc_eval for a row whose formula gave v (finish()). */
static CALC_INLINE void kfinish(const kcol *k, double v, unsigned nb, pcq_calc_cell *out)
{
    finish(k->d, k->scale, k->flags, v, nb, out);
}

/* Kernels: formula() a column at a time for the common ops, the dispatch
 * and everything a column shares out of the loop. The operations and their
 * order are formula()'s, so every row is what calc_eval gives (fuzz_calc and
 * test_calc compare them). 0 when the op has no kernel. Row i's values at
 * [i * ns] (newer) and [i * os] (older): kernel() inlines it for columns of
 * their own (1, 1: the loops as before) and for strided ones. */
static CALC_FORCE_INLINE int kernel_at(const kcol *k, const pcq_calc_column *oc, const pcq_calc_column *nc,
                                       size_t n, pcq_calc_cell *out, size_t ns, size_t os)
{
    const uint64_t *nv = nc->value, *ov = oc != NULL ? oc->value : NULL, *nb_ = nc->base;
    const uint64_t *ob_ = oc != NULL ? oc->base : NULL;
    uint64_t dn, db;
    unsigned nb;
    size_t i;
    switch (k->d->op) {
    case OP_RAW:
        for (i = 0; i < n; i++) kfinish(k, (double)nv[i * ns], 0, &out[i]);
        return 1;
    case OP_RAW_FRACTION:
        for (i = 0; i < n; i++)
            kfinish(k, nb_[i * ns] == 0 ? 0.0 : 100.0 * ((double)nv[i * ns] / (double)nb_[i * ns]), 0,
                    &out[i]);
        return 1;
    case OP_DELTA:
    case OP_RATE:
    case OP_QUEUE:
    case OP_TIMER:
    case OP_TIMER_INV:
        if (k->d->op != OP_DELTA && k->d->op != OP_RATE && k->d->timebase != PCQ_CALC_TB_TICK &&
            k->d->timebase != PCQ_CALC_TB_100NS)
            return 0; /* the interval comes from another counter: a row at a time */
        for (i = 0; i < n; i++) {
            nb = 0;
            if (raw_delta(ov[i * os], nv[i * ns], k->width, k->flags, &dn, &nb) != 0)
                kstatus(&out[i], PCQ_CALC_WENT_BACKWARDS, nb);
            else if (k->d->op == OP_DELTA)
                kfinish(k, (double)dn, nb, &out[i]);
            else if (k->st != PCQ_CALC_OK)
                kstatus(&out[i], k->st, nb);
            else if (k->d->op == OP_RATE)
                kfinish(k, (double)dn / k->q, nb, &out[i]);
            else if (k->d->op == OP_QUEUE)
                kfinish(k, (double)dn / k->q, nb, &out[i]);
            else if (k->d->op == OP_TIMER)
                kfinish(k, 100.0 * ((double)dn / k->q), nb, &out[i]);
            else
                kfinish(k, 100.0 * (1.0 - (double)dn / k->q), nb, &out[i]);
        }
        return 1;
    case OP_FRACTION:
    case OP_AVG_BULK:
    case OP_AVG_TIMER:
        for (i = 0; i < n; i++) {
            nb = 0;
            if (raw_delta(ov[i * os], nv[i * ns], k->width, k->flags, &dn, &nb) != 0)
                kstatus(&out[i], PCQ_CALC_WENT_BACKWARDS, nb);
            else if (k->st != PCQ_CALC_OK)
                kstatus(&out[i], k->st, nb);
            else if (raw_delta(ob_[i * os], nb_[i * ns], k->bwidth, k->flags, &db, &nb) != 0)
                kstatus(&out[i], PCQ_CALC_NEGATIVE_DENOMINATOR, nb);
            else if (db == 0)
                kfinish(k, 0.0, nb, &out[i]);
            else if (k->d->op == OP_FRACTION)
                kfinish(k, 100.0 * ((double)dn / (double)db), nb, &out[i]);
            else if (k->d->op == OP_AVG_BULK)
                kfinish(k, (double)dn / (double)db, nb, &out[i]);
            else
                kfinish(k, ((double)dn / k->q) / (double)db, nb, &out[i]);
        }
        return 1;
    default: return 0;
    }
}

static int kernel(const kcol *k, const pcq_calc_column *oc, const pcq_calc_column *nc, size_t n,
                  pcq_calc_cell *out)
{
    size_t ns = column_stride(nc), os = oc != NULL ? column_stride(oc) : 1;
    if (ns == 1 && os == 1) return kernel_at(k, oc, nc, n, out, 1, 1);
    return kernel_at(k, oc, nc, n, out, ns, os);
}

/* The column's constants for kernel(): those formula() and interval() would
 * work out for each row, from the newer and older column's clocks. */
static void kprepare(kcol *k, const pcq_calc_sample *o, const pcq_calc_sample *s)
{
    uint64_t v = 0;
    const pcq_calc_type *d = k->d;
    k->width = value_width(s->value_size, d);
    k->bwidth = base_width(s->base_size, d);
    k->st = PCQ_CALC_OK;
    k->q = 0.0;
    if (d->samples != 2) return;
    if (d->op == OP_RATE) {
        if (s->freq == 0) {
            k->st = PCQ_CALC_BAD_TIME_BASE;
            return;
        }
        k->st = clock_delta(o->time, s->time, &v);
        k->q = (double)v / (double)s->freq;
    } else if (d->op == OP_AVG_TIMER) {
        k->st = s->freq == 0 ? PCQ_CALC_BAD_TIME_BASE : PCQ_CALC_OK;
        k->q = (double)s->freq;
    } else if ((d->op == OP_QUEUE || d->op == OP_TIMER || d->op == OP_TIMER_INV) &&
               (d->timebase == PCQ_CALC_TB_TICK || d->timebase == PCQ_CALC_TB_100NS)) {
        k->st = d->timebase == PCQ_CALC_TB_TICK ? clock_delta(o->time, s->time, &v)
                                                : clock_delta(o->time_100ns, s->time_100ns, &v);
        k->q = (double)v;
    }
}

int pcq_calc_cook_column(uint32_t type, int32_t scale, unsigned flags, const pcq_calc_column *older,
                         const pcq_calc_column *newer, size_t n, pcq_calc_cell *out)
{
    kcol k;
    pcq_calc_sample o, s;
    unsigned notes;
    size_t i;
    int st;
    if (newer == NULL || (n > 0 && (out == NULL || newer->value == NULL || (older && older->value == NULL))))
        return PCQ_ERR_INVALID_ARG;
    if (n == 0) return PCQ_OK;
    k.d = pcq_calc_type_info(type); /* once for the column */
    k.scale = scale;
    k.flags = flags;
    column_sample(newer, &s);
    if (older != NULL) column_sample(older, &o);
    column_row(newer, 0, &s);
    if (older != NULL) column_row(older, 0, &o);
    /* precheck() depends on nothing a row holds: once for the column */
    if ((st = precheck(k.d, scale, older != NULL ? &o : NULL, &s, flags)) != PCQ_CALC_OK) {
        for (i = 0; i < n; i++) kstatus(&out[i], st, 0);
        return PCQ_OK;
    }
    kprepare(&k, &o, &s);
    if (kernel(&k, older, newer, n, out)) return PCQ_OK;
    for (i = 0; i < n; i++) { /* the other ops: a row at a time */
        column_row(newer, i, &s);
        if (older != NULL) column_row(older, i, &o);
        out[i].value = 0.0;
        out[i].status = calc_eval(k.d, scale, older != NULL ? &o : NULL, &s, flags, &out[i].value, &notes);
        out[i].notes = notes;
    }
    return PCQ_OK;
}

/* ------------------------------------------------------------------------ */
/* Cooking two data buffers of one query (§3.1.4.1.6)                       */
/* ------------------------------------------------------------------------ */

/* The cook's time is linear in its input whatever the buffers say, up to a
 * log factor (docs/decisions.md D12). What two samples listing the same
 * things in the same order never need (an identifier or a counter out of
 * place, an instance that moved, a related counter in another group, a
 * counter list longer than COOK_COLS) goes through indexes sorted by radix
 * passes (linear, whatever the keys: names that collide too) and looked up
 * by binary search (the log factor), never through scans: they are built in
 * the caller's rows, past the rows the cook returns (*count of a sizing call
 * counts them). */
#define COOK_COLS 64 /* a counter list this long or shorter: its columns on the stack */
#define NO_POS    0xFFFFFFFFu
#define NREL      4 /* base, PerfTimeId, PerfFreqId, MultiId: bit k of PCQ_CALC_NEEDS_* */

/* ---- sorting in working memory ------------------------------------------ */

/* The first place in a[0..n) whose entry is not below `key` (cmp: the sign
 * of entry - key). */
typedef int (*cmp_fn)(const void *ctx, uint32_t entry, const void *key);

static size_t lower_bound(const uint32_t *a, size_t n, cmp_fn cmp, const void *ctx, const void *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(ctx, a[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Working memory carved from the rows past the result rows; the plan has
 * sized it (cook_plan), so it never runs out. */
typedef struct cmem {
    uint8_t *p;
    size_t left;
} cmem;

static size_t mem_bytes(size_t n, size_t size)
{
    return (n * size + 7) & ~(size_t)7;
}

static void *take(cmem *m, size_t n, size_t size)
{
    void *p = m->p;
    size_t k = mem_bytes(n, size);
    if (PCQ_NEVER(k > m->left)) return NULL; /* the plan counted it */
    m->p += k;
    m->left -= k;
    return p;
}

/* idx[0..n) by key[idx[i]], stably, for a few: an insertion sort. */
static void insertion_idx(uint32_t *idx, size_t n, const uint64_t *key)
{
    size_t i, j;
    for (i = 1; i < n; i++) {
        uint32_t e = idx[i];
        for (j = i; j > 0 && key[idx[j - 1]] > key[e]; j--) idx[j] = idx[j - 1];
        idx[j] = e;
    }
}

/* idx[0..n) by key, stably: runs of 8 by insertion, then merged by twos
 * from idx to tmp and back (n log n steps of two loads and a store, where
 * a radix pass clears, sums and reads 256 counts: radix_idx's choice). */
static void merge_idx(uint32_t *idx, uint32_t *tmp, size_t n, const uint64_t *key)
{
    uint32_t *src = idx, *dst = tmp, *x;
    size_t w, o, l, le, r, re, i;
    for (o = 0; o < n; o += 8) insertion_idx(idx + o, n - o < 8 ? n - o : 8, key);
    for (w = 8; w < n; w *= 2) {
        for (o = 0; o < n; o = re) {
            l = o;
            le = r = n - o > w ? o + w : n;
            re = n - r > w ? r + w : n;
            for (i = o; l < le && r < re;) dst[i++] = key[src[r]] < key[src[l]] ? src[r++] : src[l++];
            while (l < le) dst[i++] = src[l++];
            while (r < re) dst[i++] = src[r++];
        }
        x = src;
        src = dst;
        dst = x;
    }
    if (src != idx) memcpy(idx, src, n * sizeof *idx);
}

/* The indexes are sorted by a stable least-significant-digit radix sort on
 * 64-bit keys, a byte a pass, passes over bytes every key shares left out:
 * linear in n whatever the keys (at most eight passes; a comparison sort
 * was n log n comparisons, each reading the buffers: D12); under 32 entries
 * by insertion, and a few dozen by merge_idx when that costs less than the
 * passes the keys need. idx[0..n) holds n entries (numbers below the size
 * of key), key[e] is entry e's key, tmp has room for n entries. */
static void radix_idx(uint32_t *idx, uint32_t *tmp, size_t n, const uint64_t *key)
{
    uint32_t count[256], sum, x, *from = idx, *to = tmp, *t;
    uint64_t any = 0, all = ~(uint64_t)0;
    size_t i, passes = 0, levels = 0;
    unsigned d, k;
    if (n < 32) { /* a few: an insertion sort (stable), without clearing 256 counts a pass */
        insertion_idx(idx, n, key);
        return;
    }
    for (i = 0; i < n; i++) {
        any |= key[idx[i]];
        all &= key[idx[i]];
    }
    /* a few dozen: a merge sort when its n log n steps cost less than the
     * passes' 256 counts each (measured: ~10 Ir a step, ~1,100 + 12 n a pass;
     * bench/hostile.c cook-split-names, runs of 30-40 groups of one instance) */
    for (d = 0; d < 64; d += 8) passes += ((any ^ all) >> d & 0xFFu) != 0;
    for (i = 8; i < n; i *= 2) levels++;
    if (n < 1024 && n * (levels + 2) * 10 < passes * (1100 + 12 * n)) { /* products far below 2^32 */
        merge_idx(idx, tmp, n, key);
        return;
    }
    for (d = 0; d < 64; d += 8) {
        if (((any ^ all) >> d & 0xFFu) == 0) continue; /* every key has this byte */
        memset(count, 0, sizeof count);
        for (i = 0; i < n; i++) count[key[from[i]] >> d & 0xFFu]++;
        for (k = 0, sum = 0; k < 256; k++) {
            x = count[k];
            count[k] = sum;
            sum += x;
        }
        for (i = 0; i < n; i++) to[count[key[from[i]] >> d & 0xFFu]++] = from[i];
        t = from;
        from = to;
        to = t;
    }
    if (from != idx) memcpy(idx, from, n * sizeof *idx);
}

/* idx[0..n) by key[idx[i]] < 2^24, stably, from the counts of each of its
 * three bytes, which the caller made as it computed the keys (the counting
 * passes of radix_idx, and its test of which bytes differ, done there: a
 * byte all n keys share has one count of n, and is passed over). n >= 32. */
static void radix_hash(uint32_t *idx, uint32_t *tmp, size_t n, const uint64_t *key, uint32_t (*count)[256])
{
    uint32_t *from = idx, *to = tmp, *t, sum, x;
    size_t i;
    unsigned d, k;
    for (d = 0; d < 3; d++) {
        uint32_t *c = count[d];
        if (c[key[idx[0]] >> 8 * d & 0xFFu] == n) continue; /* every key has this byte */
        for (k = 0, sum = 0; k < 256; k++) {
            x = c[k];
            c[k] = sum;
            sum += x;
        }
        for (i = 0; i < n; i++) to[c[key[from[i]] >> 8 * d & 0xFFu]++] = from[i];
        t = from;
        from = to;
        to = t;
    }
    if (from != idx) memcpy(idx, from, n * sizeof *idx);
}

static size_t max4(size_t a, size_t b, size_t c, size_t d)
{
    size_t m = a > b ? a : b;
    if (c > m) m = c;
    return d > m ? d : m;
}

/* Room a sort of n entries takes for a while: its keys and second array. */
static size_t sort_bytes(size_t n)
{
    return mem_bytes(n, 8) + mem_bytes(n, 4);
}

typedef uint64_t (*key_fn)(const void *ctx, uint32_t e);

/* idx[e] = e for e < n, then sorted by key(ctx, e) and e, in room taken
 * from m and given back. */
static void sort_by_key(cmem *m, uint32_t *idx, size_t n, key_fn key, const void *ctx)
{
    cmem keep = *m;
    uint64_t *k;
    uint32_t *tmp, e;
    for (e = 0; e < n; e++) idx[e] = e;
    if (n < 2) return;
    k = (uint64_t *)take(m, n, 8);
    tmp = (uint32_t *)take(m, n, 4);
    if (PCQ_NEVER(k == NULL || tmp == NULL)) return; /* the plan counted them (sort_bytes) */
    for (e = 0; e < n; e++) k[e] = key(ctx, e);
    radix_idx(idx, tmp, n, k);
    *m = keep;
}

/* ---- counter-info and identifiers, by id --------------------------------- */

/* What every walk of a sample shares. */
typedef struct ccommon {
    const pcq_counterset_info *info;
    const pcq_identifier *ids;
    size_t n_ids;
    uint32_t *info_idx; /* counter-info indexes by CounterId, then index (NULL: none) */
    uint32_t *ids_map;  /* block i: the first identifier whose Index is i, or NO_POS (NULL: none) */
    uint32_t ids_map_n; /* blocks it covers: the most either sample has */
    int ids_ordered;    /* ids[i].Index is i for every i: no index needed */
    int multi_set;      /* the counterset is not single-instance */
} ccommon;

static uint32_t info_id(const pcq_counterset_info *info, uint32_t i)
{
    pcq_counter_reg r;
    return PCQ_ALWAYS(pcq_counterset_counter(info, i, &r) == PCQ_OK) ? r.counter_id : 0; /* i < num */
}

static int info_cmp(const void *ctx, uint32_t e, const void *key)
{
    uint32_t id = info_id((const pcq_counterset_info *)ctx, e), k = *(const uint32_t *)key;
    return id < k ? -1 : id > k;
}

/* Whether counter-info entry `hint` is the first with counter id. */
static int hint_ok(const pcq_counterset_info *info, uint32_t id, uint32_t hint)
{
    return hint < info->set.num_counters && info_id(info, hint) == id &&
           (hint == 0 || info_id(info, hint - 1) != id); /* ids are unique (D9), but not always */
}

/* The counter-info entry of counter id: the first with that id (the hint
 * index first: values usually come in the order of the counterset). */
static int find_reg(const ccommon *cc, uint32_t id, uint32_t hint, pcq_counter_reg *r, uint32_t *index)
{
    const pcq_counterset_info *info = cc->info;
    uint32_t n = info->set.num_counters;
    size_t k;
    if (hint_ok(info, id, hint)) {
        k = hint;
    } else if (cc->info_idx != NULL) {
        k = lower_bound(cc->info_idx, n, info_cmp, info, &id);
        if (k == n || info_id(info, cc->info_idx[k]) != id) return 0;
        k = cc->info_idx[k];
    } else { /* no index: the plan found every lookup at its hint, or the set has no counter */
        return 0;
    }
    *index = (uint32_t)k;
    return PCQ_ALWAYS(pcq_counterset_counter(info, *index, r) == PCQ_OK); /* k < n */
}

/* The identifier whose Index is block i (§2.2.4.6: "the position in which the
 * corresponding counter data is returned"): the i-th when its Index is i (an
 * opnum 5 reply lists them in that order), else the first with Index i. */
static const pcq_identifier *ident_for_block(const ccommon *cc, uint32_t i)
{
    size_t k;
    if (i < cc->n_ids && cc->ids[i].index == i) return &cc->ids[i];
    if (cc->n_ids == 0 || cc->ids_ordered) return NULL; /* in order: block i has the i-th, or none */
    if (cc->ids_map != NULL) {
        k = i < cc->ids_map_n ? cc->ids_map[i] : NO_POS;
        return k != NO_POS ? &cc->ids[k] : NULL;
    }
    return NULL; /* LCOV_EXCL_LINE: out of order, they are always indexed before a lookup */
}

/* The counter of single-counter block i: its identifier's; without any
 * identifiers, counter i of the counterset (a query that added every counter
 * in order; docs/formulas.md, "Blocks without identifiers"). 0: none. */
static int block_counter(const ccommon *cc, uint32_t i, uint32_t *id, const pcq_identifier **ident)
{
    pcq_counter_reg r;
    *ident = ident_for_block(cc, i);
    if (*ident != NULL) {
        *id = (*ident)->counter_id;
        return 1;
    }
    if (cc->n_ids > 0 || pcq_counterset_counter(cc->info, i, &r) != PCQ_OK) return 0;
    *id = r.counter_id;
    return 1;
}

/* ---- groups -------------------------------------------------------------- */

/* A group: the values of one instance, or of one single-instance block. */
typedef struct cgroup {
    const pcq_block *blk; /* the walk's (or group_at's): it stays while the group is cooked */
    uint32_t block_index;
    pcq_data_instance inst; /* types 4 and 6 */
    int has_instance;
    uint32_t instance_id;
    pcq_bytes name;
    size_t inst_offset; /* 0 for types 1 and 2 */
    uint32_t one_id;    /* types 1 and 4: the counter */
    int single;         /* types 1 and 4: one value, of counter one_id */
} cgroup;

/* A group's key and where it is, in working memory: what the indexes sort by,
 * and what finds the group again. */
typedef struct gref {
    const uint8_t *name; /* its instance name, when has_instance */
    uint32_t name_len, instance_id;
    uint32_t block_off, inst_off, block_index, one_id;
    uint32_t values, values_end; /* an instance's values, as the walk found them (0: not an instance) */
    uint32_t rank;               /* its instance's rank among the sample's (values indexed) */
    uint32_t vfirst, vend;       /* values indexed: where its own start and end in vval */
    uint32_t hash;               /* of its instance (has_instance, InstanceId, name): the sort's first key */
    uint8_t has_instance, single;
    uint8_t new_key; /* sorted: not the key of the group before it (sort_groups) */
    uint8_t alone;   /* sorted: no other group of the sample is of its instance (its values are its own) */
} gref;

/* Walks the groups of one data buffer, block after block. */
typedef struct gwalk {
    const pcq_data *d;
    const ccommon *cc;
    pcq_iter blocks, insts;
    pcq_block blk;
    uint32_t blk_id; /* a type 4 block: its counter (0 in a type 6 block) */
    uint32_t next_block;
    int in_block, single; /* single: the block is of type 4 */
} gwalk;

static void gwalk_begin(gwalk *w, const pcq_data *d, const ccommon *cc)
{
    memset(w, 0, sizeof *w);
    w->d = d;
    w->cc = cc;
    pcq_data_blocks(d, &w->blocks);
}

/* Group g, an instance of w's block, from g->inst: single and one_id are
 * its block's (a type 4 block and its counter; 0 and 0 for type 6), found
 * once a block rather than once an instance. */
static void instance_group(const pcq_block *blk, uint32_t block_index, uint32_t one_id, int single, cgroup *g)
{
    g->blk = blk;
    g->block_index = block_index;
    g->has_instance = 1;
    g->instance_id = g->inst.instance_id;
    g->name = g->inst.name;
    g->inst_offset = g->inst.offset;
    g->single = single;
    g->one_id = one_id;
}

/* Group g, the single-counter block blk (index i) of counter id, named by
 * its identifier (if any). */
static void block_group(const ccommon *cc, const pcq_block *blk, uint32_t i, uint32_t id,
                        const pcq_identifier *ident, cgroup *g)
{
    g->blk = blk;
    g->block_index = i;
    g->single = 1;
    g->one_id = id;
    if (ident != NULL) {
        g->has_instance = cc->multi_set;
        g->instance_id = ident->instance_id;
        g->name = ident->name;
    }
}

/* The next group: 1, or 0 at the end. A block of type 1 or 4 without a
 * counter is passed over (cook_plan refuses one in the newer sample), and a
 * block of type 2 or 6 that lists no counter: its instances have no value
 * to cook, nor to pair (D12; bench/hostile.c cook-empty-set). The buffers
 * were validated: no step can fail. */
static int gwalk_next(gwalk *w, cgroup *g)
{
    const pcq_identifier *ident;
    uint32_t id;
    for (;;) {
        if (w->in_block) { /* instance_group sets every field but inst, which this fills */
            if (pcq_instances_of_block_next(&w->insts, &g->inst) == 1) {
                instance_group(&w->blk, w->next_block - 1, w->blk_id, w->single, g);
                return 1;
            }
            w->in_block = 0;
        }
        if (pcq_blocks_next(&w->blocks, &w->blk) != 1) return 0;
        w->next_block++;
        if (w->blk.type == PCQ_PERF_MULTI_INSTANCES || w->blk.type == PCQ_PERF_COUNTERSET) {
            pcq_block_instances(w->d, &w->blk, &w->insts);
            w->single = w->blk.type == PCQ_PERF_MULTI_INSTANCES;
            w->blk_id = 0;
            w->in_block = !w->single ? w->blk.num_counters > 0
                                     : block_counter(w->cc, w->next_block - 1, &w->blk_id, &ident);
            continue;
        }
        if (w->blk.type == PCQ_PERF_MULTI_COUNTERS && w->blk.num_counters > 0) {
            memset(g, 0, sizeof *g);
            g->blk = &w->blk;
            g->block_index = w->next_block - 1;
            return 1;
        }
        if (w->blk.type == PCQ_PERF_SINGLE_COUNTER && block_counter(w->cc, w->next_block - 1, &id, &ident)) {
            memset(g, 0, sizeof *g);
            block_group(w->cc, &w->blk, w->next_block - 1, id, ident, g);
            return 1;
        }
        /* PERF_ERROR_RETURN, or a type 1 block without a counter: nothing */
    }
}

/* gwalk_next with the step to the next instance of the block inline (the
 * index's walk of every group: the call cost ~17 instructions a group,
 * bench/hostile.c cook-packed*). */
static CALC_INLINE int gwalk_step(gwalk *w, cgroup *g)
{
    if (w->in_block && pcq_instances_of_block_next(&w->insts, &g->inst) == 1) {
        instance_group(&w->blk, w->next_block - 1, w->blk_id, w->single, g);
        return 1;
    }
    w->in_block = 0; /* the block's last instance was handed out */
    return gwalk_next(w, g);
}

/* A 24-bit hash of an instance: equal instances hash alike, so the groups of
 * one instance sort together; two that differ and hash alike are put in
 * order by key_cmp (sort_groups). 24 bits are three passes of the radix sort
 * (32 were four): a sample of 1 MiB holds at most ~58,000 instances (18
 * bytes each), among which ~100 pairs share a hash by chance, each a run of
 * two. The name 8 bytes a step (a multiply and a shift each), its tail a
 * byte at a time. */
static uint32_t instance_hash(int has_instance, uint32_t instance_id, const uint8_t *name, size_t n)
{
    const uint64_t mul = 0x9E3779B97F4A7C15u;
    uint64_t h = ((uint64_t)instance_id << 32 | (uint32_t)n) ^ (has_instance ? 0xD6E8FEB86659FD93u : 0), x;
    size_t i;
    if (!has_instance) return 0;
    for (i = 0; n - i >= 8; i += 8) {
        memcpy(&x, name + i, 8); /* any byte order: only equality matters, and this host's is fixed */
        h = (h ^ x) * mul;
        h ^= h >> 29;
    }
    for (x = 0; i < n; i++) x = x << 8 | name[i];
    h = (h ^ x) * mul;
    h ^= h >> 32;
    return (uint32_t)h & 0xFFFFFFu;
}

static void gref_of(const cgroup *g, gref *r)
{
    r->hash = instance_hash(g->has_instance, g->instance_id, g->name.ptr, g->name.len);
    r->name = g->name.ptr;
    r->name_len = (uint32_t)g->name.len;
    r->instance_id = g->instance_id;
    r->block_off = (uint32_t)g->blk->offset;
    r->inst_off = (uint32_t)g->inst_offset;
    r->values = r->inst_off ? (uint32_t)g->inst.values : 0;
    r->values_end = r->inst_off ? (uint32_t)g->inst.values_end : 0;
    r->block_index = g->block_index;
    r->one_id = g->one_id;
    r->has_instance = (uint8_t)g->has_instance;
    r->single = (uint8_t)g->single;
    r->rank = 0;
}

/* The block group_at read last: groups of one block come one after
 * another, and reading the block again for each cost more than the group
 * (bench/hostile.c `cook-packed-reversed`). off 0: none yet (a block never
 * starts at 0). */
typedef struct gcache {
    size_t off;
    pcq_block blk;
    pcq_iter it; /* reads it (here, not on group_at's stack: a large local costs each call) */
} gcache;

/* The group a gref names, as the walk made it; g->blk points into *c. An
 * instance is not stepped again: its name and values are where the walk
 * found them (these bytes, this call), its values read in place (gv_read). */
PCQ_INLINE_ void group_at(const pcq_data *d, const ccommon *cc, const gref *r, cgroup *g, gcache *c)
{
    if (c->off != r->block_off) {
        pcq_data_blocks(d, &c->it);
        c->it.f.pos = r->block_off; /* the walk met a block there: read it again */
        pcq_blocks_next(&c->it, &c->blk);
        c->off = r->block_off;
    }
    if (r->inst_off == 0) {
        memset(g, 0, sizeof *g);
        if (!r->single) {
            g->blk = &c->blk;
            g->block_index = r->block_index;
            return;
        }
        block_group(cc, &c->blk, r->block_index, r->one_id, ident_for_block(cc, r->block_index), g);
        return;
    }
    g->inst.size = r->values - r->inst_off; /* instance_group sets every field but inst */
    g->inst.instance_id = r->instance_id;
    g->inst.name.ptr = r->name;
    g->inst.name.len = r->name_len;
    g->inst.offset = r->inst_off;
    g->inst.num_values = c->blk.type == PCQ_PERF_COUNTERSET ? c->blk.num_counters : 1u;
    g->inst.values = r->values;
    g->inst.values_end = r->values_end; /* inst.value is not set: a group of type 4 is in an index,
                                           its value too (cook_single) */
    instance_group(&c->blk, r->block_index, r->one_id, r->single, g);
}

/* Word w of a name of n bytes: 8 bytes as a big-endian number, the last
 * padded with zeros, so that names of one length are ordered by their
 * words, the first first, as memcmp orders them (sort_run's radix keys). */
static uint64_t name_word(const uint8_t *p, size_t n, size_t w)
{
    uint8_t t[8] = {0};
    size_t at = 8 * w;
    uint64_t x;
    if (n - at >= 8)
        x = pcq_ld64_(p + at);
    else {
        memcpy(t, p + at, n - at);
        x = pcq_ld64_(t);
    }
    x = x >> 32 | x << 32; /* to big-endian: a byte swap (gcc and clang make it one) */
    x = (x & 0xFFFF0000FFFF0000u) >> 16 | (x & 0x0000FFFF0000FFFFu) << 16;
    return (x & 0xFF00FF00FF00FF00u) >> 8 | (x & 0x00FF00FF00FF00FFu) << 8;
}

/* Group keys: the instance (has_instance, InstanceId, name length, name),
 * then the kind and the counter (with_counter). Equal keys: the same
 * counters of the same instance. */
static CALC_INLINE int key_cmp(const gref *a, const gref *b, int with_counter)
{
    int c;
    if (a->has_instance != b->has_instance) return a->has_instance < b->has_instance ? -1 : 1;
    if (a->has_instance) {
        if (a->instance_id != b->instance_id) return a->instance_id < b->instance_id ? -1 : 1;
        if (a->name_len != b->name_len) return a->name_len < b->name_len ? -1 : 1;
        if (a->name_len > 0 && (c = memcmp(a->name, b->name, a->name_len)) != 0) return c;
    }
    if (!with_counter) return 0;
    if (a->single != b->single) return a->single < b->single ? -1 : 1;
    if (a->single && a->one_id != b->one_id) return a->one_id < b->one_id ? -1 : 1;
    return 0;
}

static int same_instance(const cgroup *a, const cgroup *b)
{
    if (a->has_instance != b->has_instance) return 0;
    if (!a->has_instance) return 1;
    return a->instance_id == b->instance_id && a->name.len == b->name.len &&
           (a->name.len == 0 || memcmp(a->name.ptr, b->name.ptr, a->name.len) == 0);
}

/* Groups that hold the same counters of the same instance (equal keys). */
static int same_group(const cgroup *a, const cgroup *b)
{
    if (a->single != b->single || (a->single && a->one_id != b->one_id)) return 0;
    return same_instance(a, b);
}

/* ---- a sample and its indexes --------------------------------------------- */

/* One value as the cook reads it. */
typedef struct cval {
    uint64_t u64;    /* the value when size is 4 or 8, else 0 */
    uint32_t offset; /* inside dwTotalSize, a 32-bit size */
    uint8_t size;    /* dwDataSize if 4 or 8, else 0xFF (as pcq_calc_sample) */
} cval;

typedef struct csample {
    const pcq_data *d;
    const ccommon *cc;
    int loose;         /* groups of type 1 or 4: a related value may sit in another group */
    uint32_t ngroups;  /* groups with a counter */
    size_t nvalues;    /* their values */
    uint32_t max_list; /* the longest counter list */
    gref *refs;        /* when indexed: its groups in wire order */
    uint32_t *ord;     /* ... in key order */
    cval *vval;        /* loose: its values, group by group in wire order, */
    uint32_t *vid;     /* ... their counter ids (value_index: the kept ones, in vord's order), */
    uint32_t *vord;    /* ... by (rank, counter id, wire order) */
    uint32_t *rank_at; /* ... where each rank starts in vord (and one past the last) */
} csample;

/* The order of the group index: the instance's hash, then key_cmp. */
static int gkey_cmp(const gref *a, const gref *b)
{
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    return key_cmp(a, b, 1);
}

/* The instance of a group as one number, in key_cmp's order but for the
 * name: none first, then InstanceId, then the name's length (+ 1: a name
 * is shorter than its buffer, below 2^32 - 1). */
static uint64_t instance_key(const gref *r)
{
    return r->has_instance ? (uint64_t)r->instance_id << 32 | (r->name_len + 1u) : 0;
}

/* A run of n groups (in wire order) of one hash that holds more than one
 * instance, into gkey_cmp order. Hashes collide by chance (about 100 pairs
 * in 1 MiB), or because names were made to collide: the hash has no secret,
 * and a name of one 8-byte word can be computed back from any hash
 * (bench/hostile.c `cook-collide`). So no comparison sort (n log n
 * comparisons, each reading two names: 117 Ir/B at 1 MiB); stable radix
 * passes instead, least significant first: the counter, then the instance
 * without its name, then each stretch of one InstanceId and length whose
 * names differ by its names' words, the last first. Work: the run's groups
 * times their names' words, linear in the input whatever the names. */
/* A group's key after its instance: its kind, then (single) its counter. */
static CALC_INLINE uint64_t counter_key(const gref *r)
{
    return (uint64_t)r->single << 32 | r->one_id;
}

static CALC_NOINLINE void sort_run(const gref *r, uint32_t *ord, uint32_t n, uint32_t *tmp, uint64_t *k)
{
    uint32_t a, i, j;
    size_t w;
    for (a = 0; a < n; a++) k[ord[a]] = counter_key(&r[ord[a]]);
    radix_idx(ord, tmp, n, k);
    for (a = 0; a < n; a++) k[ord[a]] = instance_key(&r[ord[a]]);
    radix_idx(ord, tmp, n, k);
    for (i = 0; i < n; i = j) {
        const gref *f = &r[ord[i]];
        int differ = 0;
        for (j = i + 1; j < n && k[ord[j]] == k[ord[i]]; j++)
            differ |= f->name_len > 0 && memcmp(r[ord[j]].name, f->name, f->name_len) != 0;
        for (w = differ ? (f->name_len + (size_t)7) / 8 : 0; w > 0; w--) {
            for (a = i; a < j; a++) k[ord[a]] = name_word(r[ord[a]].name, f->name_len, w - 1);
            radix_idx(ord + i, tmp, j - i, k);
        }
    }
}

/* The n >= 2 groups ord[0..n) of one instance (a run of one hash that holds
 * no other), rank `rank`: by counter, stably, when single groups are among
 * them (those of types 2 and 6 share the key 0, and stay in wire order),
 * then marked (none alone, a new key where the kind or counter changes). */
static void one_instance(gref *r, uint32_t *o, uint32_t n, uint32_t *tmp, uint64_t *k, uint32_t rank)
{
    uint32_t a, c, e, singles = 0;
    for (a = 0; a < n; a++) singles |= r[o[a]].single;
    if (singles && n < 32) { /* a few: by insertion */
        for (a = 1; a < n; a++) {
            uint64_t x = counter_key(&r[e = o[a]]);
            for (c = a; c > 0 && counter_key(&r[o[c - 1]]) > x; c--) o[c] = o[c - 1];
            o[c] = e;
        }
    } else if (singles) { /* those of types 2 and 6 (key 0) first, then the singles by counter */
        for (a = c = 0; a < n; a++)
            if (!r[o[a]].single)
                o[c++] = o[a];
            else
                tmp[a - c] = o[a];
        for (e = 0; e < n - c; e++) {
            o[c + e] = tmp[e];
            k[tmp[e]] = r[tmp[e]].one_id;
        }
        radix_idx(o + c, tmp, n - c, k);
    }
    r[o[0]].new_key = 1;
    for (a = 0; a < n; a++) {
        gref *q = &r[o[a]];
        q->rank = rank;
        q->alone = 0;
        if (a > 0) {
            const gref *p = &r[o[a - 1]];
            q->new_key = (uint8_t)(p->single != q->single || (q->single && p->one_id != q->one_id));
        }
    }
}

/* Sorts s->ord by (hash, single, counter, wire order), k[i] holding group
 * i's hash (and then the sort's keys): a radix sort by hash, then each run of one hash by the rest, alone; a run that holds more
 * than one instance (a collision) by sort_run. The groups end in gkey_cmp
 * order, those of one key in wire order, each marked where a new instance
 * and a new key begin (the join's runs) and numbered by its instance (its
 * rank: the instances in that order). Returns how many instances. */
static uint32_t sort_groups(csample *s, cmem *m, uint64_t *k, uint32_t (*count)[256])
{
    cmem keep = *m;
    uint32_t n = s->ngroups, i, j, a, *tmp, rank = 0;
    int first;
    gref *r = s->refs;
    if (n == 1) r[0].alone = r[0].new_key = 1; /* rank 0 (gref_of) */
    if (n < 2) return n;
    tmp = (uint32_t *)take(m, n, 4);
    if (PCQ_NEVER(k == NULL || tmp == NULL)) return 0; /* the plan counted them (sort_bytes) */
    if (n >= 32)
        radix_hash(s->ord, tmp, n, k, count);
    else
        radix_idx(s->ord, tmp, n, k);
    for (i = 0; i < n; i = j) {
        uint32_t h = r[s->ord[i]].hash;
        int mixed = 0;
        for (j = i + 1; j < n && r[s->ord[j]].hash == h; j++)
            ;
        if (j - i < 2) { /* another hash: another instance */
            r[s->ord[i]].alone = r[s->ord[i]].new_key = 1;
            r[s->ord[i]].rank = rank++;
            continue;
        }
        for (a = i + 1; a < j; a++) mixed |= key_cmp(&r[s->ord[a]], &r[s->ord[i]], 0) != 0;
        if (mixed) { /* instances that hash alike: sorted apart, then ranked */
            sort_run(r, s->ord + i, j - i, tmp, k);
            r[s->ord[i]].new_key = 1;
            r[s->ord[i]].rank = rank++;
            for (first = 1, a = i + 1; a < j; a++) { /* first: the group before q began its instance */
                gref *p = &r[s->ord[a - 1]], *q = &r[s->ord[a]];
                int new_inst = key_cmp(p, q, 0) != 0;
                p->alone = (uint8_t)(first && new_inst);
                q->new_key = (uint8_t)(new_inst || p->single != q->single ||
                                       (q->single && p->one_id != q->one_id));
                q->rank = new_inst ? rank++ : rank - 1;
                first = new_inst;
            }
            r[s->ord[j - 1]].alone = (uint8_t)first;
            continue;
        }
        one_instance(r, s->ord + i, j - i, tmp, k, rank++);
    }
    *m = keep;
    return rank;
}


/* Counts the sample's groups and values and whether it is loose, from the
 * block headers alone. */
static void sample_scan(csample *s)
{
    const pcq_identifier *ident;
    pcq_iter it;
    pcq_block b;
    uint32_t i = 0, one;
    pcq_data_blocks(s->d, &it);
    while (pcq_blocks_next(&it, &b) == 1) {
        if ((b.type == PCQ_PERF_MULTI_COUNTERS || b.type == PCQ_PERF_COUNTERSET) &&
            b.num_counters > s->max_list)
            s->max_list = b.num_counters;
        /* a list of no counter holds no group (gwalk_next) */
        if (b.type == PCQ_PERF_MULTI_COUNTERS && b.num_counters > 0) {
            s->ngroups++;
            s->nvalues += b.num_counters;
        } else if (b.type == PCQ_PERF_COUNTERSET && b.num_counters > 0) {
            s->ngroups += b.num_instances;
            s->nvalues += (size_t)b.num_instances * b.num_counters;
        } else if ((b.type == PCQ_PERF_SINGLE_COUNTER ||
                    (b.type == PCQ_PERF_MULTI_INSTANCES && b.num_instances)) &&
                   block_counter(s->cc, i, &one, &ident)) {
            uint32_t n = b.type == PCQ_PERF_SINGLE_COUNTER ? 1 : b.num_instances;
            s->loose = 1;
            s->ngroups += n;
            s->nvalues += n;
        }
        i++;
    }
}

static CALC_INLINE void to_cval(const pcq_value *x, cval *v)
{
    v->u64 = x->u64;
    v->offset = (uint32_t)x->offset;
    v->size = x->is_int ? (uint8_t)x->data_size : 0xFFu; /* 0xFF: not 4 or 8 */
}

/* Up to n values of group g, in wire order, into v, and their counter ids
 * into id when not NULL: how many. An instance's values are read in place,
 * from the extent the instance's step found for them (values .. values_end:
 * every value checked there as the walk checks it, on these bytes), each
 * bounded again by that extent: the checking iterator's setup and end, out
 * of line, cost more than the value (bench/hostile.c `cook-packed`). */
PCQ_INLINE_ uint32_t gv_read(const pcq_data *d, const cgroup *g, uint32_t n, cval *v, uint32_t *id)
{
    pcq_iter it;
    pcq_value val;
    size_t at = g->inst.values, size;
    uint32_t k = 0;
    if (g->single) { /* types 1 and 4: their one value */
        if (n == 0) return 0;
        to_cval(g->blk->type == PCQ_PERF_SINGLE_COUNTER ? &g->blk->value : &g->inst.value, v);
        if (id != NULL) id[0] = g->one_id;
        return 1;
    }
    if (g->blk->type == PCQ_PERF_MULTI_COUNTERS) {
        pcq_block_values(d, g->blk, &it);
        for (; k < n && pcq_values_next(&it, &val) == 1; k++) { /* validated: 1 or 0 */
            to_cval(&val, &v[k]);
            if (id != NULL) id[k] = pcq_block_counter_id_(g->blk, k);
        }
        return k;
    }
    if (n > g->inst.num_values) n = g->inst.num_values;
    for (; k < n; k++, at += size) {
        uint32_t ds;
        /* the instance's step checked each of them by these rules: never */
        if (PCQ_NEVER(!(size = pcq_value_size_(d->buf, at, g->inst.values_end)))) break;
        ds = pcq_ld32_(d->buf + at); /* fits size: pcq_value_any_'s value, without its pcq_value */
        v[k].u64 = pcq_value_u64_(d->buf, at, ds);
        v[k].offset = (uint32_t)at;
        v[k].size = ds == 4 || ds == 8 ? (uint8_t)ds : 0xFFu;
        if (id != NULL) id[k] = pcq_block_counter_id_(g->blk, k);
    }
    return k;
}

/* idx[0..n) by vid[idx[i]], stable: radix_idx's insertion sort for a few
 * entries, on the ids themselves (an instance's values, two in the worst
 * case: bench/hostile.c cook-average-loose), without their keys filled. */
static void ids_insertion(uint32_t *idx, size_t n, const uint32_t *vid)
{
    size_t i, j;
    for (i = 1; i < n; i++) {
        uint32_t e = idx[i];
        for (j = i; j > 0 && vid[idx[j - 1]] > vid[e]; j--) idx[j] = idx[j - 1];
        idx[j] = e;
    }
}

/* vord: the k values of s (vval; group i's from refs[i].vfirst to vend)
 * by (instance rank, counter id), the first in wire order of each id of an
 * instance alone (the one find_loose returns), and rank_at[r] where rank r
 * starts (nranks + 1 entries): a counting sort by rank, group by group in
 * wire order, then each instance's values by id alone (a stable radix sort,
 * or insertion for a few), and the later values of an id left out, so that
 * a search among an instance's values costs the log of its counters, not of
 * its values (bench/hostile.c `cook-packed-loose-one`). Linear: the ranks
 * are below the groups. */
static void value_index(csample *s, cmem *m, size_t k, uint32_t nranks)
{
    cmem keep = *m;
    uint64_t *key = (uint64_t *)take(m, k, 8); /* for a while: a sort's room (sort_bytes) */
    uint32_t *at = s->rank_at, *vord = s->vord, *tmp = (uint32_t *)take(m, k, 4), r, out, i, e;
    const uint32_t *vid = s->vid;
    const gref *g = s->refs;
    if (PCQ_NEVER(at == NULL || key == NULL || tmp == NULL || nranks > s->ngroups))
        return; /* the plan counted them */
    memset(at, 0, ((size_t)nranks + 2) * 4);
    for (i = 0; i < s->ngroups; i++) at[g[i].rank + 2] += g[i].vend - g[i].vfirst;
    for (r = 2; r < nranks + 2; r++) at[r] += at[r - 1]; /* at[r + 1]: where rank r starts */
    for (i = 0; i < s->ngroups; i++)                     /* ... then where it ends */
        for (e = g[i].vfirst; e < g[i].vend; e++) vord[at[g[i].rank + 1]++] = e;
    for (r = 0, out = 0; r < nranks; r++) { /* each instance's: by id, the first of each id alone */
        uint32_t b = at[r], n = at[r + 1] - b, id;
        if (n < 2 && out == b) { /* nothing left out before it: it stays */
            out += n;
            continue;
        }
        at[r] = out; /* where it starts now (at[r + 1] still where the next started) */
        if (n == 0) continue;
        if (n == 2) { /* an instance that two blocks list: one compare (bench/hostile.c cook-split) */
            uint32_t x = vord[b], y = vord[b + 1];
            if (vid[x] > vid[y]) {
                x = y;
                y = vord[b];
            }
            vord[out++] = x;
            if (vid[y] != vid[x]) vord[out++] = y;
            continue;
        }
        if (n >= 32) {
            for (i = 0; i < n; i++) key[vord[b + i]] = vid[vord[b + i]];
            radix_idx(vord + b, tmp, n, key);
        } else {
            ids_insertion(vord + b, n, vid);
        }
        vord[out++] = vord[b];
        for (id = vid[vord[b]], i = 1; i < n; i++)
            if (vid[vord[b + i]] != id) id = vid[vord[out++] = vord[b + i]];
    }
    at[nranks] = out;
    /* the kept values' ids side by side, where the searches read them
     * (find_loose: one load a step, not two); tmp holds k ids */
    memcpy(tmp, s->vid, k * 4);
    for (i = 0; i < out; i++) s->vid[i] = tmp[vord[i]];
    *m = keep;
}

/* Indexes the sample: its groups by key (the join, and the ranks of their
 * instances), and when `values` every value by (instance, counter, wire
 * order), for related counters outside their group. From its first group,
 * or (from, first: values 0) its s->ngroups groups from `first`, which the
 * walker `from` has just handed out. */
static void sample_index(csample *s, cmem *m, int values, gwalk *from, const cgroup *first)
{
    gwalk w, *wp = from != NULL ? from : &w;
    cgroup g;
    cmem keep;
    uint64_t *hk;
    uint32_t i, nranks, h, count[3][256]; /* the hashes' bytes counted as they come (radix_hash) */
    int more;
    size_t k = 0;
    memset(count, 0, sizeof count);
    s->refs = (gref *)take(m, s->ngroups, sizeof *s->refs);
    s->ord = (uint32_t *)take(m, s->ngroups, sizeof *s->ord);
    if (values) {
        s->vval = (cval *)take(m, s->nvalues, sizeof *s->vval);
        s->vid = (uint32_t *)take(m, s->nvalues, 4);
        s->vord = (uint32_t *)take(m, s->nvalues, 4);
        s->rank_at = (uint32_t *)take(m, (size_t)s->ngroups + 2, 4); /* ranks < groups, and one past */
    }
    keep = *m;
    hk = (uint64_t *)take(m, s->ngroups, 8); /* for a while: the groups' hashes, the sort's keys */
    if (from == NULL) {
        gwalk_begin(&w, s->d, s->cc);
        more = s->ngroups > 0 && gwalk_next(&w, &g) == 1;
    } else {
        g = *first; /* where the lockstep test stopped: its blk is still the walker's */
        more = PCQ_ALWAYS(s->ngroups > 0);
    }
    for (i = 0; more; more = ++i < s->ngroups && gwalk_step(wp, &g) == 1) { /* one walk: groups and values */
        gref_of(&g, &s->refs[i]);
        s->ord[i] = i;
        hk[i] = h = s->refs[i].hash; /* below 2^24 */
        count[0][h & 0xFFu]++;
        count[1][h >> 8 & 0xFFu]++;
        count[2][h >> 16 & 0xFFu]++;
        if (!values) continue;
        s->refs[i].vfirst = (uint32_t)k; /* the scan counted every value: room for them all */
        if (g.inst.num_values == 1 && !g.single && k < s->nvalues) { /* the value the walk's step filled in */
            to_cval(&g.inst.value, &s->vval[k]);
            s->vid[k++] = pcq_block_counter_id_(g.blk, 0);
        } else {
            k += gv_read(s->d, &g, (uint32_t)(s->nvalues - k), &s->vval[k], &s->vid[k]);
        }
        s->refs[i].vend = (uint32_t)k;
    }
    if (PCQ_NEVER(i < s->ngroups))
        s->ngroups = i; /* validated: the walk finds every group the scan counted */
    nranks = sort_groups(s, m, hk, count);
    *m = keep;
    if (!values) return;
    value_index(s, m, k, nranks);
}

/* The values a related counter is searched among: the first in wire order
 * of each counter id of one instance of a loose sample, by id (value_index),
 * found once a group rather than once a search. */
typedef struct lrange {
    const csample *s;
    const uint32_t *a;   /* into s->vord */
    const uint32_t *ids; /* into s->vid: a's ids, rising */
    uint32_t n;
    uint32_t min, max; /* the least and the greatest id of the n (n 0: min 1, max 0) */
} lrange;

/* The instance of group `ordinal` of sample s: none when s is not loose. */
static CALC_INLINE void loose_range(const csample *s, uint32_t ordinal, lrange *r)
{
    uint32_t rank;
    r->s = s;
    r->a = r->ids = NULL;
    r->n = 0;
    r->min = 1;
    r->max = 0;
    /* a group alone in its instance: every value of the instance is in its
     * own list, where the cook looked first (bench/hostile.c
     * cook-precision-loose) */
    if (!s->loose || s->refs[ordinal].alone) return;
    rank = s->refs[ordinal].rank;
    r->a = s->vord + s->rank_at[rank];
    r->ids = s->vid + s->rank_at[rank];
    r->n = s->rank_at[rank + 1] - s->rank_at[rank];
    if (r->n == 0) return;
    r->min = r->ids[0];
    r->max = r->ids[r->n - 1];
}

/* The value of counter id in r, by halves: 1, or 0. An id outside the
 * instance's least and greatest, as a related counter in no block is (an
 * attacker's: bench/hostile.c cook-precision-loose), is not searched. */
PCQ_INLINE_ int find_loose(const lrange *r, uint32_t id, cval *out)
{
    const uint32_t *ids = r->ids;
    size_t lo = 0, hi = r->n;
    if (id < r->min || id > r->max) return 0;
    if (hi <= 8) { /* a few: one step each, ended by max >= id */
        while (ids[lo] < id) lo++;
    } else {
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ids[mid] < id)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    if (ids[lo] != id) return 0; /* lo < n: ids[n - 1] = max >= id */
    *out = r->s->vval[r->a[lo]];
    return 1;
}

/* match[i]: the older group of newer group i (ordinals), or NO_POS. The k-th
 * newer group of a key takes the k-th older group of that key, both in wire
 * order ("occurrence"): one merge of the two samples' groups in key order. */
static void join(const csample *n, const csample *o, uint32_t *match)
{
    size_t a = 0, b = 0, a1, b1, k;
    uint32_t i;
    for (i = 0; i < n->ngroups; i++) match[i] = NO_POS;
    while (a < n->ngroups && b < o->ngroups) {
        int c = gkey_cmp(&n->refs[n->ord[a]], &o->refs[o->ord[b]]);
        if (c != 0) {
            if (c < 0)
                a++;
            else
                b++;
            continue;
        }
        /* the run of this key in each (marked by sort_groups) */
        for (a1 = a + 1; a1 < n->ngroups && !n->refs[n->ord[a1]].new_key; a1++)
            ;
        for (b1 = b + 1; b1 < o->ngroups && !o->refs[o->ord[b1]].new_key; b1++)
            ;
        for (k = 0; a + k < a1 && b + k < b1; k++) match[n->ord[a + k]] = o->ord[b + k];
        a = a1;
        b = b1;
    }
}

/* ---- columns: what every instance of a counter list shares -------------- */

/* A PERF_MULTI_COUNTERS or PERF_COUNTERSET block lists its counter ids once,
 * and every instance holds one value per id in that order. Everything a value
 * needs besides its own bytes (its counter-info entry and type, where its
 * related counters sit, where the same counter sits in the older sample's
 * list) depends only on its position in the list: it is worked out once per
 * list and kept in a colset. */
typedef struct ccol {
    const pcq_calc_type *t; /* NULL: a type unknown to the evaluator */
    uint64_t attrib;
    uint32_t id, type, index; /* counter id, its Type, its counter-info index */
    int32_t scale;
    uint32_t rid[NREL];        /* the related counters' ids (those need asks for) */
    uint32_t rel[NREL];        /* their first positions in the newer list, or NO_POS */
    uint32_t opos, orel[NREL]; /* this id's and the related ids' in the older list */
    uint8_t found;             /* the id is in the counterset-info */
    uint8_t need;              /* PCQ_CALC_NEEDS_* to look up */
    uint8_t two;               /* a two-sample type: the older sample is used */
} ccol;

typedef struct colset {
    int have, ohave;     /* ids / oids describe the columns */
    pcq_bytes ids, oids; /* the newer and older lists the columns were made for */
    uint32_t n;
    ccol *col;              /* local, or working memory for lists past COOK_COLS */
    cval *nv, *ov;          /* a group's values, newer and older */
    uint32_t *lidx, *olidx; /* lists past COOK_COLS: positions by (id, position) */
    uint64_t *lkey;         /* ... and room to sort them */
    uint32_t *ltmp;
    ccol col_local[COOK_COLS];
    cval nv_local[COOK_COLS], ov_local[COOK_COLS];
} colset;

static int pos_cmp(const void *ctx, uint32_t e, const void *key)
{
    uint32_t id = pcq_block_counter_id((const pcq_block *)ctx, e), k = *(const uint32_t *)key;
    return id < k ? -1 : id > k;
}

/* Sorts the positions of b's list by counter id when it is long (idx). */
static void list_index(const colset *cs, const pcq_block *b, uint32_t *idx)
{
    uint32_t k;
    if (b->num_counters <= COOK_COLS) return;
    for (k = 0; k < b->num_counters; k++) {
        idx[k] = k;
        cs->lkey[k] = pcq_block_counter_id(b, k);
    }
    radix_idx(idx, cs->ltmp, b->num_counters, cs->lkey);
}

/* The first position of counter id in b's list, or NO_POS. */
static uint32_t list_pos(const pcq_block *b, const uint32_t *idx, uint32_t id)
{
    uint32_t k;
    size_t p;
    if (b->num_counters <= COOK_COLS) {
        for (k = 0; k < b->num_counters; k++)
            if (pcq_block_counter_id(b, k) == id) return k;
        return NO_POS;
    }
    p = lower_bound(idx, b->num_counters, pos_cmp, b, &id);
    return p < b->num_counters && pcq_block_counter_id(b, idx[p]) == id ? idx[p] : NO_POS;
}

/* Whether column col looks up related counter k. */
static int col_needs(const ccol *col, unsigned k)
{
    return ((unsigned)col->need >> k & 1u) != 0;
}

/* Related counter id k (base, PerfTimeId, PerfFreqId, MultiId) of r. */
static uint32_t related_id(const pcq_counter_reg *r, unsigned k)
{
    return k == 0 ? r->base_counter_id : k == 1 ? r->perf_time_id : k == 2 ? r->perf_freq_id : r->multi_id;
}

/* What a counter type looks up: its needs, and for PRECISION_OBJECT_TIMER
 * the base too (PerfTimeId, else the base; formulas.md). */
static uint8_t needs_of(const pcq_calc_type *t, uint32_t type)
{
    unsigned need = t != NULL ? t->needs : 0;
    if (type == 0x20670500u) need |= PCQ_CALC_NEEDS_BASE;
    return (uint8_t)need;
}

static int same_list(int have, pcq_bytes a, pcq_bytes b)
{
    return have && a.len == b.len && (a.ptr == b.ptr || memcmp(a.ptr, b.ptr, a.len) == 0);
}

/* The columns of block b's counter list (the older list is made anew). */
static void columns_make(colset *cs, const ccommon *cc, const pcq_block *b)
{
    uint32_t j, k, n = b->num_counters;
    pcq_counter_reg r;
    list_index(cs, b, cs->lidx);
    for (j = 0; j < n; j++) {
        ccol *col = &cs->col[j];
        memset(col, 0, sizeof *col);
        col->id = pcq_block_counter_id(b, j);
        col->found = (uint8_t)find_reg(cc, col->id, j, &r, &col->index);
        if (!col->found) continue; /* an error once a value gets here */
        col->t = pcq_calc_type_info(r.type);
        col->two = (uint8_t)(col->t != NULL && col->t->samples == 2);
        col->type = r.type;
        col->attrib = r.attrib;
        col->scale = r.default_scale;
        col->need = needs_of(col->t, r.type);
        for (k = 0; k < NREL; k++) {
            col->rid[k] = related_id(&r, k);
            col->rel[k] = col_needs(col, k) ? list_pos(b, cs->lidx, col->rid[k]) : NO_POS;
        }
    }
    cs->ids = b->counter_ids;
    cs->n = n;
    cs->have = 1;
    cs->ohave = 0;
}

/* Where each column's counter and its related counters sit in the older
 * sample's list ob. */
static void columns_older(colset *cs, const pcq_block *ob)
{
    uint32_t j, k;
    list_index(cs, ob, cs->olidx);
    for (j = 0; j < cs->n; j++) {
        ccol *col = &cs->col[j];
        col->opos = list_pos(ob, cs->olidx, col->id);
        for (k = 0; k < NREL; k++)
            col->orel[k] = col_needs(col, k) ? list_pos(ob, cs->olidx, col->rid[k]) : NO_POS;
    }
    cs->oids = ob->counter_ids;
    cs->ohave = 1;
}

/* ---- cooking -------------------------------------------------------------- */

typedef struct cook_ctx {
    ccommon cc;
    csample nw, old;
    const pcq_data *newer;
    const pcq_data *older; /* NULL: one sample */
    uint32_t *match;       /* not lockstep: older ordinal of each newer group past `agree` */
    int lockstep;          /* the samples list the same groups in the same order, neither loose */
    int planned;           /* what cook_plan found of lockstep (1 or 0), or -1 when it did not look */
    uint32_t agree;        /* not lockstep: the leading groups the samples list alike, cooked in lockstep */
    unsigned flags;
    pcq_error *err;
    struct {                /* the counter of the last single group cooked (cook_single), */
        int have;           /* ... looked up once for a run of groups of one counter */
        uint32_t id, index; /* ... (a type 4 block's instances) */
        pcq_counter_reg r;
        const pcq_calc_type *t;
        unsigned need;
        uint32_t rid[NREL]; /* its related counters' ids */
    } one;
    colset cols;
    gwalk wn, wo;  /* where the lockstep test stopped (agree < groups): past the first groups that differ, */
    cgroup xn, xo; /* ... which these are (the first the join takes) */
} cook_ctx;

/* The lowest set bit of a need (PCQ_CALC_NEEDS_*, four bits): k of its
 * related value. */
static const uint8_t need_low[16] = {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};

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

static void sample_clocks(const pcq_data *d, pcq_calc_sample *s)
{
    memset(s, 0, sizeof *s);
    s->time = d->perf_time_stamp;
    s->time_100ns = d->perf_time_100nsec;
    s->freq = d->perf_freq;
}

/* Where a value's counter id travels, for the error offset. */
static size_t id_offset(const pcq_data *d, const cgroup *g, uint32_t j)
{
    if (!g->single) return (size_t)(g->blk->counter_ids.ptr - d->buf) + (size_t)j * 4;
    return g->blk->offset;
}

/* §2.2.4.2: a PERF_SAMPLE_BASE value "MUST be greater than 0". The data
 * buffer does not say which value is one; the cook, with the counterset's
 * types, does, and notes it on the row (docs/validation.md). */
static void base_zero(pcq_calc_row *row, uint64_t value)
{
    if (row->type == 0x40030401u && value == 0) /* PERF_SAMPLE_BASE */
        row->notes |= PCQ_CALC_NOTE_BASE_ZERO;
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


/* gv_read's values of group gi of an indexed loose sample, in place in
 * its index (wire order, as the group holds them): at most n, *m of them. */
static CALC_INLINE const cval *indexed_group(const csample *s, uint32_t gi, uint32_t n, uint32_t *m)
{
    uint32_t at = s->refs[gi].vfirst, k = s->refs[gi].vend - at;
    *m = k < n ? k : n;
    return &s->vval[at];
}

/* The related values col needs, into s: at positions rel of the group's
 * values v (m of them); one outside the group, in a loose sample, from its
 * index (the first in wire order of the group's instance). */
PCQ_INLINE_ void col_related(const lrange *lr, const cval *v, uint32_t m, const ccol *col,
                             const uint32_t *rel, pcq_calc_sample *s)
{
    unsigned need, k;
    cval x;
    for (need = col->need & 15u; need != 0; need &= need - 1u) {
        k = need_low[need];
        if (rel[k] != NO_POS && PCQ_ALWAYS(rel[k] < m)) { /* m: every value of the list */
            set_related(s, k, &v[rel[k]]);
            continue;
        }
        if (find_loose(lr, col->rid[k], &x)) set_related(s, k, &x);
    }
}

/* Cooks listed group g (newer ordinal gi) against og (older ordinal ogi), by
 * columns: each group's values read once, every lookup an index into them. */
static int cook_columns(cook_ctx *c, const cgroup *g, uint32_t gi, const cgroup *og, uint32_t ogi,
                        pcq_calc_row *rows, size_t *n)
{
    colset *cs = &c->cols;
    const cval *nv = cs->nv, *ov = cs->ov; /* a group's values: read there, or in place in an index */
    pcq_calc_sample ns, os;
    pcq_calc_row tmpl;
    lrange nl, ol = {NULL, NULL, NULL, 0, 1, 0};
    uint32_t j, m, om = 0;
    if (!same_list(cs->have, cs->ids, g->blk->counter_ids)) columns_make(cs, &c->cc, g->blk);
    if (og != NULL && !same_list(cs->ohave, cs->oids, og->blk->counter_ids)) columns_older(cs, og->blk);
    if (c->nw.loose)
        nv = indexed_group(&c->nw, gi, cs->n, &m);
    else
        m = gv_read(c->nw.d, g, cs->n, cs->nv, NULL);
    if (og != NULL && c->old.loose)
        ov = indexed_group(&c->old, ogi, og->blk->num_counters, &om);
    else if (og != NULL)
        om = gv_read(c->older, og, og->blk->num_counters, cs->ov, NULL);
    sample_clocks(c->nw.d, &ns);
    if (og != NULL) sample_clocks(c->older, &os);
    loose_range(&c->nw, gi, &nl);
    if (og != NULL) loose_range(&c->old, ogi, &ol);
    row_start(&tmpl, g, 0, 0);
    for (j = 0; j < m; j++) {
        const ccol *col = &cs->col[j];
        pcq_calc_row *row = &rows[*n];
        int have_old;
        if (!col->found)
            return pcq_error_set(c->err, PCQ_ERR_INVALID_ARG, id_offset(c->nw.d, g, j),
                                 "counter id not in the counterset-info");
        ns.value = nv[j].u64;
        ns.value_size = nv[j].size;
        if (col->need) col_related(&nl, nv, m, col, col->rel, &ns);
        /* A one-sample type never looks at the older sample (precheck,
         * formula): its related counters are not looked up there either
         * (bench/hostile.c cook-elapsed-loose). */
        have_old = og != NULL && col->two && col->opos != NO_POS && PCQ_ALWAYS(col->opos < om);
        if (have_old) {
            os.value = ov[col->opos].u64;
            os.value_size = ov[col->opos].size;
            if (col->need) col_related(&ol, ov, om, col, col->orel, &os);
        }
        *row = tmpl;
        row->counter_id = col->id;
        row->offset = nv[j].offset;
        row->type = col->type;
        row->info_index = col->index;
        row->attrib = col->attrib;
        row->status = calc_eval(col->t, col->scale, have_old ? &os : NULL, &ns, c->flags, &row->value,
                                &row->notes);
        base_zero(row, ns.value);
        ns.have = os.have = 0; /* the related values go with the column */
        ns.base_size = os.base_size = 0;
        (*n)++;
    }
    return 0;
}

/* One sample of single group g (ordinal gi) of counter id, which needs
 * `need` of the related counters rid: its value, and its related values (the
 * value itself when it is one, else from the loose index: a single group
 * only exists in a loose sample). */
static void single_sample(const csample *smp, const pcq_data *d, uint32_t gi, const cval *v, uint32_t id,
                          const uint32_t *rid, unsigned need, pcq_calc_sample *s)
{
    unsigned k;
    lrange lr;
    cval x;
    loose_range(smp, gi, &lr);
    sample_clocks(d, s);
    s->value = v->u64;
    s->value_size = v->size;
    for (need &= 15u; need != 0; need &= need - 1u) {
        k = need_low[need];
        if (rid[k] == id)
            set_related(s, k, v);
        else if (find_loose(&lr, rid[k], &x))
            set_related(s, k, &x);
    }
}

/* Cooks single group g (a type 1 block, or an instance of a type 4 block). */
static int cook_single(cook_ctx *c, const cgroup *g, uint32_t gi, const cgroup *og, uint32_t ogi,
                       pcq_calc_row *rows, size_t *n)
{
    pcq_calc_row *row = &rows[*n];
    pcq_calc_sample ns, os;
    const cval *v, *ov;
    uint32_t m, om, k;
    int have_old;
    /* a single group is in a loose sample, indexed with its value: read it there */
    v = indexed_group(&c->nw, gi, 1, &m);
    if (!c->one.have || c->one.id != g->one_id) { /* its counter: once for a run of one counter's groups */
        c->one.have = 0;
        if (!find_reg(&c->cc, g->one_id, 0, &c->one.r, &c->one.index))
            return pcq_error_set(c->err, PCQ_ERR_INVALID_ARG, id_offset(c->nw.d, g, 0),
                                 "counter id not in the counterset-info");
        c->one.have = 1;
        c->one.id = g->one_id;
        c->one.t = pcq_calc_type_info(c->one.r.type);
        c->one.need = needs_of(c->one.t, c->one.r.type);
        for (k = 0; k < NREL; k++) c->one.rid[k] = related_id(&c->one.r, k);
    }
    if (PCQ_NEVER(m == 0)) return 0;
    single_sample(&c->nw, c->nw.d, gi, v, g->one_id, c->one.rid, c->one.need, &ns);
    /* as cook_columns: a one-sample type never looks at the older sample */
    have_old = og != NULL && c->one.t != NULL && c->one.t->samples == 2;
    if (have_old) { /* the same counter: same_group */
        ov = indexed_group(&c->old, ogi, 1, &om);
        if (PCQ_NEVER(om == 0)) return 0;
        single_sample(&c->old, c->older, ogi, ov, g->one_id, c->one.rid, c->one.need, &os);
    }
    row_start(row, g, g->one_id, v->offset);
    row->type = c->one.r.type;
    row->info_index = c->one.index;
    row->attrib = c->one.r.attrib;
    row->status = calc_eval(c->one.t, c->one.r.default_scale, have_old ? &os : NULL, &ns, c->flags,
                            &row->value, &row->notes);
    base_zero(row, ns.value);
    (*n)++;
    return 0;
}

/* Cooks every group of the newer sample into rows (*n of them so far); the
 * first row of each group keeps the group's length in instances_used, for
 * name#n. */
static int cook_groups(cook_ctx *c, pcq_calc_row *rows, size_t *n)
{
    gwalk w, ow;
    cgroup g, og;
    gcache nc, oc;
    const gref *refs = c->agree > 0 ? NULL : c->nw.refs; /* NULL: the newer groups by a walk */
    uint32_t j, stop = c->agree > 0 ? c->agree : NO_POS;
    int rc, found, lock = c->lockstep || c->agree > 0; /* the older groups by a walk, in lockstep */
    nc.off = oc.off = 0;
    gwalk_begin(&w, c->nw.d, &c->cc);
    if (lock) gwalk_begin(&ow, c->older, &c->cc);
    for (j = 0;; j++) { /* indexed samples: their groups from the index (entry j), not another walk */
        size_t first = *n;
        uint32_t oi;
        if (refs == NULL) {
            if (j == stop) { /* past the groups that agree (cook_prepare): the join, from entry 0 */
                refs = c->nw.refs;
                lock = 0;
                j = 0;
            } else if (gwalk_next(&w, &g) != 1)
                break;
        }
        if (refs != NULL) {
            if (j >= c->nw.ngroups) break;
            group_at(c->nw.d, &c->cc, &refs[j], &g, &nc);
        }
        found = 0;
        oi = j;
        if (c->older != NULL && lock) {
            found = PCQ_ALWAYS(gwalk_next(&ow, &og) == 1);
        } else if (c->older != NULL && (oi = c->match[j]) != NO_POS) {
            group_at(c->older, &c->cc, &c->old.refs[oi], &og, &oc);
            found = 1;
        }
        rc = g.single ? cook_single(c, &g, j, found ? &og : NULL, oi, rows, n)
                      : cook_columns(c, &g, j, found ? &og : NULL, oi, rows, n);
        if (rc < 0) return rc;
        if (*n > first) rows[first].instances_used = (uint32_t)(*n - first);
    }
    return 0;
}

/* How many groups the two samples list alike from their first (the common
 * case: all n, and then the i-th matches the i-th and no index is needed).
 * Asked only of samples with as many groups, n (sample_scan counts them
 * from the block headers): samples that differ in that are told apart
 * without a walk (bench/hostile.c: an older sample of one instance more).
 * Below n, the walkers are left past the first groups that differ, which
 * c->xn and c->xo hold: the groups before them are cooked in lockstep, and
 * only the rest is joined (cook_prepare). */
static uint32_t agree(cook_ctx *c, uint32_t n)
{
    uint32_t i;
    int ra, rb;
    gwalk_begin(&c->wn, c->newer, &c->cc);
    gwalk_begin(&c->wo, c->older, &c->cc);
    for (i = 0;; i++) {
        ra = gwalk_next(&c->wn, &c->xn);
        rb = gwalk_next(&c->wo, &c->xo);
        if (PCQ_NEVER(ra != rb)) return 0; /* as many groups in each (sample_scan): nothing agrees */
        if (ra == 0) return PCQ_ALWAYS(i == n) ? n : 0;
        if (!same_group(&c->xn, &c->xo)) return i;
    }
}

/* The leading groups to cook in lockstep: agree's count, asked only of
 * samples with as many groups and neither loose. A loose sample (a related
 * value may sit in another group) is indexed whole, values and all, and so
 * joined whole: its groups are sorted for that index anyway, the join is
 * one merge, and it pairs what lockstep would (D12); the test's two walks
 * would buy nothing but the join's 4 bytes a group of working memory. */
static uint32_t lead(cook_ctx *c, const csample *n, const csample *o)
{
    return n->ngroups == o->ngroups && !n->loose && !o->loose ? agree(c, n->ngroups) : 0;
}

/* Whether the samples are cooked in lockstep throughout (no index): lead
 * found all their groups alike (a loose sample has a group, and lead 0). */
static int lockstep_of(const csample *n, const csample *o, uint32_t lead_groups)
{
    return n->ngroups == o->ngroups && lead_groups == n->ngroups;
}

/* Name order of two leaders (both with an instance): first counter id, the
 * group's length, name length, name bytes. 0 iff they stand for the same
 * counters under the same name (a PERF_COUNTERSET block lists the same
 * counters for every instance; a single-counter group has just the one, and
 * is no duplicate of an instance whose list starts with it: formulas.md). */
static int name_cmp(const pcq_calc_row *a, const pcq_calc_row *b)
{
    if (a->counter_id != b->counter_id) return a->counter_id < b->counter_id ? -1 : 1;
    if (a->instances_used != b->instances_used) return a->instances_used < b->instances_used ? -1 : 1;
    if (a->instance.len != b->instance.len) return a->instance.len < b->instance.len ? -1 : 1;
    return a->instance.len == 0 ? 0 : memcmp(a->instance.ptr, b->instance.ptr, a->instance.len);
}

/* name_cmp(a, b) == 0, a short name's bytes compared inline: most names
 * that repeat are a few units ("0", "_Total", a process's), where a
 * memcmp call cost more than the bytes (bench/hostile.c cook-split-names:
 * ~40 instructions a leader). */
static CALC_INLINE int name_eq(const pcq_calc_row *a, const pcq_calc_row *b)
{
    size_t i, n = a->instance.len;
    if (a->counter_id != b->counter_id || a->instances_used != b->instances_used || n != b->instance.len)
        return 0;
    if (n > 16) return memcmp(a->instance.ptr, b->instance.ptr, n) == 0;
    for (i = 0; i < n; i++)
        if (a->instance.ptr[i] != b->instance.ptr[i]) return 0;
    return 1;
}

/* 64-bit mix of a leader's first counter id and name bytes. Inline in
 * both its callers: a call cost number_hashed's loop, which hashes every
 * leader, ~0.1 Ir/B (bench/hostile.c cooks). */
static CALC_FORCE_INLINE uint32_t name_hash(const pcq_calc_row *r)
{
    const uint8_t *p = r->instance.ptr;
    size_t n = r->instance.len, i;
    uint64_t h = 0x9E3779B97F4A7C15u ^ r->counter_id, w;
    for (i = 0; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8); /* host order: the hash only sorts into buckets */
        h = (h ^ w) * 0xFF51AFD7ED558CCDu;
        h ^= h >> 32;
    }
    for (w = 0; i < n; i++) w = w << 8 | p[i];
    h = (h ^ w ^ (uint64_t)n << 56) * 0xC4CEB9FE1A85EC53u;
    /* a name under 8 bytes meets one multiply, whose top bits keep the
     * input's linear steps: names of one letter under counters 1, 3, 5 and
     * 7 fell into 75 buckets of 884, not ~98, each pair a sort_short
     * (bench/hostile.c cook-split-names, 20 KiB) */
    h ^= h >> 32;
    h *= 0xFF51AFD7ED558CCDu;
    return (uint32_t)(h >> 32);
}

/* While name#n runs, three fields that are 0 in every instance row hold its
 * state, as row index + 1 where they link (0 ends a list): a leader's
 * instances_used holds its group's length (set as the group was cooked), its
 * is_aggregate the next leader of its list (once its bucket is numbered: its
 * n), and a row's aggregate_func the head of bucket <row>; a leader's
 * dup_index holds its bucket until its n is put there, last. So the passes
 * touch leaders, not every row, and a name is hashed once (but in a short
 * bucket of several names: sort_short). */
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

/* Leader a sorts before leader b in name#n order: by name (name_cmp), then
 * InstanceId, then row. */
static int numbered_before(const pcq_calc_row *rows, size_t a, size_t b)
{
    const pcq_calc_row *x = &rows[a - 1], *y = &rows[b - 1];
    int c = name_cmp(x, y);
    if (c != 0) return c < 0;
    return x->instance_id < y->instance_id || (x->instance_id == y->instance_id && a < b);
}

/* Lists a and b, each in numbered_before's order, as one (a's first on a
 * tie, which numbered_before never has: its last key is the row). */
static size_t list_merge(pcq_calc_row *rows, size_t a, size_t b)
{
    size_t head = 0, tail = 0, k;
    while (a != 0 && b != 0) {
        if (numbered_before(rows, b, a)) {
            k = b;
            b = link_next(rows, b);
        } else {
            k = a;
            a = link_next(rows, a);
        }
        if (tail != 0)
            link_set(rows, tail, k);
        else
            head = k;
        tail = k;
    }
    if (PCQ_NEVER(tail == 0)) return a != 0 ? a : b; /* neither empty: the loop took one */
    link_set(rows, tail, a != 0 ? a : b);
    return head;
}

/* A short list (under 32 leaders) in numbered_before's order: a merge sort
 * (bin i holds a sorted list of 2^i leaders, as a binary counter), at most 5
 * comparisons a leader, each reading two names. For names that differ and
 * hash alike (sort_short). */
static size_t list_merge_sort(pcq_calc_row *rows, size_t head)
{
    size_t bin[6] = {0, 0, 0, 0, 0, 0}, k, nx, i;
    for (k = head; k != 0; k = nx) {
        nx = link_next(rows, k);
        link_set(rows, k, 0);
        for (i = 0; i < 5 && bin[i] != 0; i++) { /* carry: 2^i and 2^i make 2^(i+1) */
            k = list_merge(rows, bin[i], k);
            bin[i] = 0;
        }
        bin[i] = i < 5 ? k : list_merge(rows, bin[5], k); /* 32 or more: not asked */
    }
    for (k = 0, i = 0; i < 6; i++)
        if (bin[i] != 0) k = k != 0 ? list_merge(rows, bin[i], k) : bin[i];
    return k;
}

/* a[0..m) (m <= 32) in ascending order: merge_idx over their positions
 * (runs of 8 by insertion, then at most two merges), then the keys moved
 * once; an insertion sort of all m moved an entry up to 31 times. */
static void sort_keys(uint64_t *a, size_t m)
{
    uint64_t t[32];
    uint32_t idx[32], tmp[32], i;
    for (i = 0; i < m; i++) idx[i] = i;
    merge_idx(idx, tmp, m, a);
    for (i = 0; i < m; i++) t[i] = a[idx[i]];
    memcpy(a, t, m * sizeof *a);
}

/* A short list (under 32 leaders) whose names differ, put in an order that
 * keeps each name's leaders side by side in name#n order (InstanceId, then
 * row): by the names' hash (again: a bucket does not keep it) and row, as
 * integers in an array, then each run of one name by InstanceId and row.
 * Comparing names instead, an insertion sort of up to 31 comparisons a
 * leader cost 78.6 Ir/B (bench/hostile.c `cook-short-buckets`, 16 KiB). Names crafted to hash alike whose
 * run holds another name are put in numbered_before's order, a run at a time
 * (list_merge_sort: a few comparisons a leader of names that long). */
static CALC_NOINLINE size_t sort_short(pcq_calc_row *rows, size_t head)
{
    uint64_t a[32];
    size_t m = 0, i, j, r, k, out = 0, tail = 0;
    int one;
    for (k = head; k != 0 && m < 32; k = link_next(rows, k))
        a[m++] = (uint64_t)name_hash(&rows[k - 1]) << 32 | k;
    sort_keys(a, m);
    for (i = 0; i < m; i = j) {
        for (j = i + 1; j < m && a[j] >> 32 == a[i] >> 32; j++)
            ;
        for (one = 1, r = i + 1; r < j && one; r++)
            one = name_eq(&rows[(uint32_t)a[i] - 1], &rows[(uint32_t)a[r] - 1]);
        if (j - i > 1 && one) { /* one name: by InstanceId, then row */
            for (r = i; r < j; r++)
                a[r] = (uint64_t)rows[(uint32_t)a[r] - 1].instance_id << 32 | (uint32_t)a[r];
            sort_keys(a + i, j - i);
        }
        for (k = (uint32_t)a[i], r = i + 1; r < j; k = (uint32_t)a[r++]) link_set(rows, k, (uint32_t)a[r]);
        link_set(rows, k, 0); /* the run, alone */
        k = (uint32_t)a[i];
        if (!one) {
            k = list_merge_sort(rows, k);
            for (r = k; link_next(rows, r) != 0; r = link_next(rows, r))
                ;
        }
        if (tail != 0)
            link_set(rows, tail, k);
        else
            out = k;
        tail = one ? (uint32_t)a[j - 1] : r;
    }
    return out;
}

/* The orders the numbering sorts leaders by, a pass each, by a 64-bit key:
 * its InstanceId; its name's length; its first counter and its group's
 * length, name_cmp's other fields; word w of its name, LK_WORD + w. */
enum {
    LK_ID,
    LK_LEN,
    LK_COUNTER,
    LK_WORD
};
static CALC_INLINE uint64_t leader_key(const pcq_calc_row *r, size_t pass)
{
    switch (pass) { /* LK_ID is read where it is sorted (list_radix_of, list_insert) */
    case LK_LEN: return r->instance.len;
    case LK_COUNTER: return (uint64_t)r->counter_id << 32 | r->instances_used;
    default: return name_word(r->instance.ptr, r->instance.len, pass - LK_WORD);
    }
}

/* A short list (under 32 leaders) sorted by InstanceId, stably, or (by_name)
 * in numbered_before's order: an insertion sort, at most 31 comparisons a
 * leader, of two integers; by name only for a few (number_bucket). By
 * InstanceId a leader not below the last goes after it in one step: rising
 * ids (PIDs) and one id (bench/hostile.c cook-split-names, cook-missing-base)
 * made every insertion walk the whole list. */
static size_t list_insert(pcq_calc_row *rows, size_t head, int by_name)
{
    size_t out = 0, tail = 0, k, nx, p, q;
    uint32_t x;
    for (k = head; k != 0; k = nx) {
        nx = link_next(rows, k);
        x = rows[k - 1].instance_id;
        /* after the last leader that may stay before k: equal ones keep their order */
        if (by_name)
            for (p = 0, q = out; q != 0 && numbered_before(rows, q, k); p = q, q = link_next(rows, q))
                ;
        else if (tail != 0 && rows[tail - 1].instance_id <= x) { /* equal or rising ids: at the end */
            p = tail;
            q = 0;
        } else
            for (p = 0, q = out; q != 0 && rows[q - 1].instance_id <= x; p = q, q = link_next(rows, q))
                ;
        link_set(rows, k, q);
        if (p != 0)
            link_set(rows, p, k);
        else
            out = k;
        if (q == 0) tail = k;
    }
    return out;
}

static size_t list_radix_of(pcq_calc_row *rows, size_t head, size_t pass, size_t count, uint64_t any,
                            uint64_t all);

/* The list at head sorted by leader_key, stably: a byte a pass into 256
 * lists (bytes every key shares skipped); a short list by insertion. Linear
 * in the leaders; row numbers fit 31 bits (number_hashed). */
static size_t list_radix(pcq_calc_row *rows, size_t head, size_t pass)
{
    uint64_t any = 0, all = ~(uint64_t)0, x;
    size_t k, count = 0;
    for (k = head; k != 0; k = link_next(rows, k), count++) {
        x = leader_key(&rows[k - 1], pass);
        any |= x;
        all &= x;
    }
    return list_radix_of(rows, head, pass, count, any, all);
}

/* The same, given how many leaders the list holds and the | and & of their
 * keys. */
static size_t list_radix_of(pcq_calc_row *rows, size_t head, size_t pass, size_t count, uint64_t any,
                            uint64_t all)
{
    uint32_t hd[256], tl[256];
    uint64_t x;
    size_t k, nx, last;
    unsigned d, b;
    /* a short list of one name (a list of names is short only there) by
     * insertion: no 256 lists to clear */
    if (count < 32 && pass == LK_ID) return list_insert(rows, head, 0);
    for (d = 0; d < 64; d += 8) {
        if (((any ^ all) >> d & 0xFFu) == 0) continue;
        memset(hd, 0, sizeof hd);
        memset(tl, 0, sizeof tl);
        for (k = head; k != 0; k = nx) {
            nx = link_next(rows, k);
            x = pass == LK_ID ? rows[k - 1].instance_id : leader_key(&rows[k - 1], pass); /* LK_ID inline */
            b = (unsigned)(x >> d & 0xFFu);
            link_set(rows, k, 0);
            if (tl[b] != 0)
                link_set(rows, tl[b], k);
            else
                hd[b] = (uint32_t)k;
            tl[b] = (uint32_t)k;
        }
        for (head = last = 0, b = 0; b < 256; b++) {
            if (hd[b] == 0) continue;
            if (last != 0)
                link_set(rows, last, hd[b]);
            else
                head = hd[b];
            last = tl[b];
        }
    }
    return head;
}

/* Leaders a and b have names of one counter, group length and name length. */
static int same_shape(const pcq_calc_row *a, const pcq_calc_row *b)
{
    return a->counter_id == b->counter_id && a->instances_used == b->instances_used &&
           a->instance.len == b->instance.len;
}

/* The leaders of a large bucket of more than one name (in name#n order:
 * InstanceId, then row), each name's side by side and still in that order:
 * stable passes, by name length, then counter and group length, then each
 * stretch of leaders alike in those whose names differ by its names' bytes
 * (sort_short when short, else a radix pass a word, the last first).
 * Names crafted to share a bucket (the hash has no secret: bench/hostile.c
 * `cook-collide-names`) cost their words, where a merge sort cost d log d
 * comparisons of names. */
static size_t sort_names(pcq_calc_row *rows, size_t head)
{
    size_t out = 0, tail = 0, k, e, nx, w, count;
    int differ;
    head = list_radix(rows, head, LK_LEN);
    head = list_radix(rows, head, LK_COUNTER);
    for (k = head; k != 0; k = nx) {
        const pcq_calc_row *f = &rows[k - 1];
        for (differ = 0, count = 1, e = k; (nx = link_next(rows, e)) != 0 && same_shape(f, &rows[nx - 1]);
             e = nx, count++)
            differ |= f->instance.len > 0 &&
                      memcmp(f->instance.ptr, rows[nx - 1].instance.ptr, f->instance.len);
        link_set(rows, e, 0); /* the stretch k..e, alone */
        e = k;
        if (differ && count < 32)
            e = sort_short(rows, e);
        else
            for (w = differ ? (f->instance.len + 7) / 8 : 0; w > 0; w--)
                e = list_radix(rows, e, LK_WORD + w - 1);
        if (tail != 0)
            link_set(rows, tail, e);
        else
            out = e;
        for (tail = e; link_next(rows, tail) != 0; tail = link_next(rows, tail))
            ;
    }
    return out;
}

/* Numbers the leaders of one bucket, put in name#n order (by name, then
 * InstanceId, then row): a bucket of one name by a stable sort by
 * InstanceId; of more (names collide), a few by insertion, a short one
 * by sort_short, a large one by InstanceId, then sort_names. Each one's
 * n counts those of its name before it (the pair rule). Linear in the
 * leaders and their names' words, whatever the names. */
static void number_bucket(pcq_calc_row *rows, size_t list)
{
    size_t k, nx, prev, head, count;
    uint32_t n = 0;
    uint64_t any = 0, all = ~(uint64_t)0;
    int one = 1;
    if (link_next(rows, list) == 0) return; /* one leader (most buckets): n 0, its link */
    /* rows' order; in the same pass, whether all have the name of the list's
     * first (its last row) and the | and & of their InstanceIds (list_radix's
     * own pass) */
    for (head = 0, count = 0, k = list; k != 0; k = nx, count++) {
        nx = link_next(rows, k);
        link_set(rows, k, head);
        head = k;
        if (one) one = name_eq(&rows[list - 1], &rows[k - 1]);
        any |= rows[k - 1].instance_id;
        all &= rows[k - 1].instance_id;
    }
    if (one) { /* one name (a bucket of many holds one but when names collide) */
        for (k = list_radix_of(rows, head, LK_ID, count, any, all); k != 0; k = nx) {
            nx = link_next(rows, k);
            link_set(rows, k, n++);
        }
        return;
    }
    /* a few (names that fall together by chance, most often): a comparison or two a leader */
    head = count <= 4   ? list_insert(rows, head, 1)
           : count < 32 ? sort_short(rows, head)
                        : sort_names(rows, list_radix_of(rows, head, LK_ID, count, any, all));
    for (prev = 0, k = head; k != 0; prev = k, k = nx) {
        nx = link_next(rows, k);
        n = prev != 0 && name_eq(&rows[prev - 1], &rows[k - 1]) ? n + 1 : 0;
        link_set(rows, k, n);
    }
}

/* The bucket of a leader's name among n. */
static size_t bucket_of(const pcq_calc_row *r, size_t n)
{
    return (size_t)(((uint64_t)name_hash(r) * n) >> 32);
}

/* Chains the leaders with a name by hash into as many buckets as there are
 * rows (n < 2^31 - 1), then numbers each bucket once (number_bucket):
 * linear in the groups and their names' words, whatever shares a bucket (one
 * name, or names crafted to collide: the hash has no secret). */
static void number_hashed(pcq_calc_row *rows, size_t n)
{
    size_t i, b, k, len;
    for (i = 0; i < n; i += group_len(rows, i)) {
        if (!rows[i].has_instance) continue;
        b = bucket_of(&rows[i], n);
        rows[i].dup_index = (uint32_t)b;
        link_set(rows, i + 1, rows[b].aggregate_func);
        rows[b].aggregate_func = (uint32_t)(i + 1);
    }
    /* A bucket is numbered at its first leader in row order, so a leader's n
     * is known when the pass comes to it: it goes to its group's rows and the
     * borrowed fields are cleared there, in the same pass. A later bucket's
     * numbering reads only its own leaders (all after this one) and its
     * head's aggregate_func, which this does not touch. */
    for (i = 0; i < n; i += len) {
        uint32_t dup = 0;
        len = group_len(rows, i);
        if (rows[i].has_instance) {
            b = rows[i].dup_index;
            if (rows[b].aggregate_func != 0) {
                number_bucket(rows, rows[b].aggregate_func);
                rows[b].aggregate_func = 0;
            }
            rows[i].dup_index = dup = (uint32_t)rows[i].is_aggregate; /* its n */
        }
        rows[i].instances_used = 0;
        rows[i].is_aggregate = 0;
        for (k = 1; dup != 0 && k < len; k++) rows[i + k].dup_index = dup;
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
 * each bucket sorted by name (stable radix passes over linked lists):
 * linear; no memory of its own, no recursion. Then every row of a group takes
 * its leader's n, and the fields borrowed are 0 again. Out of line:
 * inlined into pcq_calc_cook, it cost the cooks of bench/hostile.c 0.05-0.1
 * Ir/B more, in the code around it. */
static CALC_NOINLINE void number_duplicates(pcq_calc_row *rows, size_t n)
{
    /* n < 2^29: every row is a value of the newer buffer, and a value takes
     * 8 bytes or more of a buffer whose size is the 32-bit dwTotalSize. So a
     * link (row index + 1) always fits in is_aggregate. */
    if (PCQ_NEVER(n >= 0x7FFFFFFFu)) {
        clear_lengths(rows, n);
        return;
    }
    number_hashed(rows, n);
}

static int aggregates(const pcq_counterset_info *info)
{
    uint32_t t = info->set.instance_type;
    return t == 0x4u || t == 0x6u || t == 0xCu; /* §2.2.4.1 */
}

static int aggregate_counter(const pcq_counter_reg *r)
{
    return r->aggregate_func >= 1 && r->aggregate_func <= 4;
}

/* The aggregate row of counter i, before any instance is added: its value
 * field holds the running total, min or max, instances_used the count. */
static void aggregate_begin(uint32_t i, const pcq_counter_reg *r, unsigned flags, pcq_calc_row *out)
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
    if (PCQ_NEVER(out->status != PCQ_CALC_OK)) return;
    if (out->instances_used == 0 || out->aggregate_func <= 2)
        out->value = out->instances_used == 0 ? v : out->value + v;
    else if (out->aggregate_func == 3 ? v < out->value : v > out->value)
        out->value = v;
    out->instances_used++;
}

static void aggregate_end(pcq_calc_row *out)
{
    double acc = out->value;
    if (out->status == PCQ_CALC_OK && out->instances_used == 0) out->status = PCQ_CALC_NO_INSTANCE;
    if (out->status == PCQ_CALC_OK && out->aggregate_func == 2) acc /= (double)out->instances_used;
    /* Fewer than 2^29 values of less than 2^180 each: the sum is finite. */
    if (out->status == PCQ_CALC_OK && PCQ_NEVER(!isfinite(acc))) out->status = PCQ_CALC_OUT_OF_RANGE;
    out->value = out->status == PCQ_CALC_OK && acc != 0.0 ? acc : 0.0;
}

/* The aggregate row of counter-info index i among agg[0..na), which are in
 * counter-info order: the one after the previous (*a) when it is, as
 * instance rows come in the counterset's order; else by halves. */
static int aggregate_find(const pcq_calc_row *agg, size_t na, uint32_t i, size_t *a)
{
    size_t lo = 0, hi = na;
    if (*a < na && agg[*a].info_index == i) return 1;
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
static size_t aggregate_rows(const pcq_counterset_info *info, unsigned flags, pcq_calc_row *rows, size_t n)
{
    pcq_calc_row *agg;
    pcq_counter_reg r;
    size_t na = 0, k, a = 0;
    uint32_t i;
    for (i = 0; i < info->set.num_counters; i++)
        if (PCQ_ALWAYS(pcq_counterset_counter(info, i, &r) == PCQ_OK) && /* validated */
            aggregate_counter(&r))
            aggregate_begin(i, &r, flags, &rows[n + na++]);
    if (na == 0) return 0; /* rows may be NULL: nothing was needed */
    agg = rows + n;
    for (k = 0; k < n; k++) {
        if (!rows[k].has_instance || rows[k].status != PCQ_CALC_OK ||
            !aggregate_find(agg, na, rows[k].info_index, &a))
            continue;
        aggregate_add(&agg[a], rows[k].value);
        a++;
    }
    for (a = 0; a < na; a++) aggregate_end(&agg[a]);
    return na;
}

/* ---- the plan: rows and working memory, from the block headers ------------ */

/* Groups and values of sample d, counting every block of type 1 or 4 as
 * if it had a counter (an upper bound), and its longest list; whether it
 * may be loose. No lookup: the indexes do not exist yet. */
static void plan_scan(const pcq_data *d, size_t *groups, size_t *values, int *loose, uint32_t *max_list)
{
    pcq_iter it;
    pcq_block b;
    *groups = *values = 0;
    *loose = 0;
    pcq_data_blocks(d, &it);
    while (pcq_blocks_next(&it, &b) == 1) {
        switch (b.type) {
        case PCQ_PERF_SINGLE_COUNTER:
            *loose = 1;
            *groups += 1;
            *values += 1;
            break;
        case PCQ_PERF_MULTI_INSTANCES:
            *loose |= b.num_instances > 0;
            *groups += b.num_instances;
            *values += b.num_instances;
            break;
        case PCQ_PERF_MULTI_COUNTERS:
        case PCQ_PERF_COUNTERSET:
            if (b.num_counters == 0) break; /* no group (gwalk_next) */
            if (b.num_counters > *max_list) *max_list = b.num_counters;
            *groups += b.type == PCQ_PERF_COUNTERSET ? b.num_instances : 1u;
            *values += (size_t)(b.type == PCQ_PERF_COUNTERSET ? b.num_instances : 1u) * b.num_counters;
            break;
        default: break; /* PERF_ERROR_RETURN: no value */
        }
    }
}

/* Working memory for a sample's indexes: its groups (always when `groups`),
 * its values (when it may be loose). */
static size_t index_bytes(size_t groups, size_t values, int with_groups, int loose)
{
    size_t m = 0;
    if (with_groups || loose) m += mem_bytes(groups, sizeof(gref)) + mem_bytes(groups, 4);
    if (loose) m += mem_bytes(values, sizeof(cval)) + 2 * mem_bytes(values, 4) + mem_bytes(groups + 2, 4);
    return m;
}

/* Whether every counter list of the newer sample finds its counters at
 * their hints in the counterset-info (the common case: no index needed). */
static int hints_ok(const pcq_counterset_info *info, const pcq_data *d)
{
    pcq_iter it;
    pcq_block b;
    uint32_t j;
    pcq_data_blocks(d, &it);
    while (pcq_blocks_next(&it, &b) == 1)
        if (b.type == PCQ_PERF_MULTI_COUNTERS || b.type == PCQ_PERF_COUNTERSET)
            for (j = 0; j < b.num_counters; j++)
                if (!hint_ok(info, pcq_block_counter_id(&b, j), j)) return 0;
    return 1;
}

/* The blocks an identifier map covers: the most either sample has. */
static uint32_t ids_blocks(const cook_ctx *c)
{
    uint32_t n = c->newer->num_counters;
    return c->older != NULL && c->older->num_counters > n ? c->older->num_counters : n;
}

/* Rows the cook returns (one per value of the newer sample, then the
 * aggregates) and the bytes of working memory it needs past them. With the
 * identifiers in order (or none) the plan looks at the samples: nothing in
 * the common case (the samples in lockstep, no single-counter block, lists of
 * at most COOK_COLS counters in counterset order); with them out of order it
 * counts the most the indexes can take. */
static size_t cook_plan(cook_ctx *c, size_t *rows, size_t *nagg)
{
    const pcq_counterset_info *info = c->cc.info;
    csample sn, so;
    size_t gn, vn, go = 0, vo = 0, mem = 0;
    int ln, lo = 0, exact = c->cc.ids_ordered, step = 0;
    uint32_t max_list = 0, i, p;
    pcq_counter_reg r;
    c->planned = -1;
    c->agree = 0;
    plan_scan(c->newer, &gn, &vn, &ln, &max_list);
    if (c->older != NULL) plan_scan(c->older, &go, &vo, &lo, &max_list);
    *rows = vn;
    *nagg = 0;
    if (aggregates(info))
        for (i = 0; i < info->set.num_counters; i++)
            if (PCQ_ALWAYS(pcq_counterset_counter(info, i, &r) == PCQ_OK) && aggregate_counter(&r)) (*nagg)++;
    if (exact) { /* every lookup costs O(1) here: see what the cook will need */
        memset(&sn, 0, sizeof sn);
        sn.d = c->newer;
        sn.cc = &c->cc;
        sample_scan(&sn);
        ln = sn.loose;
        if (c->older != NULL) {
            memset(&so, 0, sizeof so);
            so.d = c->older;
            so.cc = &c->cc;
            sample_scan(&so);
            lo = so.loose;
            p = lead(c, &sn, &so);
            step = lockstep_of(&sn, &so, p);
            c->planned = step; /* cook_prepare would find the same: the identifiers are in order */
            c->agree = step ? 0 : p;
        }
    }
    if (!exact || ln || !hints_ok(info, c->newer)) mem += mem_bytes(info->set.num_counters, 4);
    if (!exact) mem += mem_bytes(ids_blocks(c), 4);
    if (c->older != NULL && !step) /* the join, of the groups past those that agree */
        mem += index_bytes(gn - c->agree, vn, 1, ln) + index_bytes(go - c->agree, vo, 1, lo) +
               mem_bytes(gn - c->agree, 4);
    else
        mem += index_bytes(gn, vn, 0, ln) + (c->older != NULL ? index_bytes(go, vo, 0, lo) : 0);
    if (max_list > COOK_COLS)
        mem += mem_bytes(max_list, sizeof(ccol)) + 2 * mem_bytes(max_list, sizeof(cval)) +
               2 * mem_bytes(max_list, 4) + sort_bytes(max_list);
    if (mem > 0) /* an index is made: the room its sort takes for a while (the largest) */
        mem += sort_bytes(max4(info->set.num_counters, 0, gn > go ? gn : go, vn > vo ? vn : vo));
    return mem;
}

/* The indexes of the counterset-info (by CounterId) and of the identifiers
 * (by Index). */
static uint64_t info_key(const void *ctx, uint32_t e)
{
    return info_id((const pcq_counterset_info *)ctx, e);
}

static void info_index(ccommon *cc, cmem *m)
{
    uint32_t n = cc->info->set.num_counters;
    if (n == 0) return;
    cc->info_idx = (uint32_t *)take(m, n, 4);
    sort_by_key(m, cc->info_idx, n, info_key, cc->info);
}

/* Identifiers out of order: block i's is found in one step through a map
 * by Index over the blocks (the first identifier with that Index), made in
 * one pass; an Index past the last block names no block. */
static void ids_index(ccommon *cc, cmem *m, uint32_t nblocks)
{
    size_t k;
    uint32_t i;
    cc->ids_map = (uint32_t *)take(m, nblocks, 4);
    cc->ids_map_n = nblocks;
    if (PCQ_NEVER(cc->ids_map == NULL && nblocks > 0)) return; /* the plan counted it */
    for (i = 0; i < nblocks; i++) cc->ids_map[i] = NO_POS;
    for (k = 0; k < cc->n_ids; k++) {
        i = cc->ids[k].index;
        if (i < nblocks && cc->ids_map[i] == NO_POS) cc->ids_map[i] = (uint32_t)k;
    }
}

/* A block of type 1, or of type 4 with instances, without a counter: an
 * error in the newer sample (in the older one it is passed over, its
 * values unmatched). */
static int check_counters(const ccommon *cc, const pcq_data *d, pcq_error *err)
{
    const pcq_identifier *ident;
    pcq_iter it;
    pcq_block b;
    uint32_t i = 0, id;
    pcq_data_blocks(d, &it);
    for (; pcq_blocks_next(&it, &b) == 1; i++) {
        if (b.type == PCQ_PERF_SINGLE_COUNTER && !block_counter(cc, i, &id, &ident))
            return pcq_error_set(err, PCQ_ERR_INVALID_ARG, b.offset,
                                 "PERF_SINGLE_COUNTER block without an identifier");
        if (b.type == PCQ_PERF_MULTI_INSTANCES && b.num_instances > 0 && !block_counter(cc, i, &id, &ident))
            return pcq_error_set(err, PCQ_ERR_INVALID_ARG, b.offset,
                                 "PERF_MULTI_INSTANCES block without an identifier");
    }
    return 0;
}

/* The colset's arrays: on its own stack for lists up to COOK_COLS, else in
 * working memory. */
static void cols_setup(colset *cs, cmem *m, uint32_t max_list)
{
    memset(cs, 0, offsetof(colset, col_local));
    if (max_list <= COOK_COLS) {
        cs->col = cs->col_local;
        cs->nv = cs->nv_local;
        cs->ov = cs->ov_local;
        return;
    }
    cs->col = (ccol *)take(m, max_list, sizeof(ccol));
    cs->nv = (cval *)take(m, max_list, sizeof(cval));
    cs->ov = (cval *)take(m, max_list, sizeof(cval));
    cs->lidx = (uint32_t *)take(m, max_list, 4);
    cs->olidx = (uint32_t *)take(m, max_list, 4);
    cs->lkey = (uint64_t *)take(m, max_list, 8);
    cs->ltmp = (uint32_t *)take(m, max_list, 4);
}

/* Everything but the rows: the indexes a cook needs, in working memory. */
static int cook_prepare(cook_ctx *c, cmem *m)
{
    int rc;
    memset(&c->nw, 0, sizeof c->nw);
    c->nw.d = c->newer;
    c->nw.cc = &c->cc;
    memset(&c->old, 0, sizeof c->old);
    c->old.d = c->older;
    c->old.cc = &c->cc;
    if (!c->cc.ids_ordered) ids_index(&c->cc, m, ids_blocks(c)); /* first: the scans look them up */
    sample_scan(&c->nw);
    if (c->older != NULL) sample_scan(&c->old);
    if (!c->cc.ids_ordered || c->nw.loose || !hints_ok(c->cc.info, c->newer)) info_index(&c->cc, m);
    if ((rc = check_counters(&c->cc, c->newer, c->err)) < 0) return rc;
    cols_setup(&c->cols, m, c->nw.max_list > c->old.max_list ? c->nw.max_list : c->old.max_list);
    if (c->older != NULL && c->planned < 0) { /* the plan did not look (identifiers out of order) */
        uint32_t p = lead(c, &c->nw, &c->old);
        c->planned = lockstep_of(&c->nw, &c->old, p);
        c->agree = c->planned ? 0 : p;
    }
    c->lockstep = c->older != NULL && c->planned > 0;
    if (c->older != NULL && !c->lockstep) {
        if (c->agree > 0) { /* only the groups past those that agree, from where the test stopped */
            c->nw.ngroups -= c->agree;
            c->old.ngroups -= c->agree;
            sample_index(&c->nw, m, 0, &c->wn, &c->xn);
            sample_index(&c->old, m, 0, &c->wo, &c->xo);
        } else {
            sample_index(&c->nw, m, c->nw.loose, NULL, NULL);
            sample_index(&c->old, m, c->old.loose, NULL, NULL);
        }
        c->match = (uint32_t *)take(m, c->nw.ngroups, 4);
        join(&c->nw, &c->old, c->match);
        return 0;
    }
    if (c->nw.loose) sample_index(&c->nw, m, 1, NULL, NULL); /* one sample (lockstep: neither is loose) */
    return 0;
}

int pcq_calc_cook(const pcq_counterset_info *info, const pcq_data *older, const pcq_data *newer,
                  const pcq_identifier *ids, size_t n_ids, unsigned flags, pcq_calc_row *rows, size_t cap,
                  size_t *count, pcq_error *err)
{
    cook_ctx c;
    cmem m;
    size_t nrows, nagg, mem, need, n = 0, i;
    int rc;

    if (info == NULL || newer == NULL || count == NULL || (cap > 0 && rows == NULL) ||
        (n_ids > 0 && ids == NULL))
        return pcq_error_set(err, PCQ_ERR_INVALID_ARG, 0, "pcq_calc_cook arguments");
    *count = 0;
    memset(&c, 0, offsetof(cook_ctx, cols));
    c.cc.info = info;
    c.cc.ids = ids;
    c.cc.n_ids = n_ids;
    c.cc.multi_set = info->set.instance_type != 0;
    for (c.cc.ids_ordered = 1, i = 0; i < n_ids && c.cc.ids_ordered; i++)
        c.cc.ids_ordered = ids[i].index == i;
    c.newer = newer;
    c.older = older;
    c.flags = flags;
    c.err = err;
    /* A block of type 1 or 4 without a counter: refused before any sizing,
     * when the identifiers are in order (out of order, once they are indexed). */
    if (c.cc.ids_ordered && (rc = check_counters(&c.cc, newer, err)) < 0) return rc;
    mem = cook_plan(&c, &nrows, &nagg);
    need = nrows + nagg + (mem + sizeof(pcq_calc_row) - 1) / sizeof(pcq_calc_row);
    if (need > cap) {
        *count = need;
        return pcq_error_set(err, PCQ_ERR_BUFFER_TOO_SMALL, 0, "pcq_calc_row array");
    }
    m.p = need ? (uint8_t *)(rows + nrows + nagg) : NULL; /* rows may be NULL when nothing is needed */
    m.left = (cap - nrows - nagg) * sizeof(pcq_calc_row);
    if ((rc = cook_prepare(&c, &m)) < 0 || (rc = cook_groups(&c, rows, &n)) < 0) {
        clear_lengths(rows, n);
        return rc;
    }
    number_duplicates(rows, n);
    if (aggregates(info)) n += aggregate_rows(info, flags, rows, n);
    *count = n;
    return PCQ_OK;
}

#endif /* PCQ_NO_CALC */
