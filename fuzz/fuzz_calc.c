/* SPDX-License-Identifier: MIT */
/*
 * fuzz_calc.c - the evaluator on arbitrary types, samples, flags and scales.
 *
 * Input (fz_src, zeros past the end): a type selector (bit 7: a raw 32-bit
 * type; else entry sel % 64 of the evaluator's table, or the raw type past
 * its end), the raw type, a scale selector (bit 7: a raw int32; else
 * -12..12), flags (every bit, unknown ones too), whether the older sample is
 * there, two pcq_calc_sample, an attrib, a format capacity and a double.
 * pcq_calc_value:
 *   - always returns a known status; *out is written only on PCQ_CALC_OK and
 *     is then finite, >= 0 and not -0; notes carry known bits only, CAPPED
 *     only for percent types without NOCAP100;
 *   - the same call gives the same bits again, and with out/notes NULL;
 *   - unknown types give UNKNOWN_TYPE; two-sample types never compute
 *     without the older sample; one-sample types ignore it;
 *   - X1000 multiplies by exactly 1000, DefaultScale multiplies by exactly
 *     pcq_calc_scale_factor(scale) (or OUT_OF_RANGE when that overflows);
 *     percent types without NOCAP100 stay within 0..100 before scaling;
 *     a scale outside -10..10 without NOSCALE is BAD_SCALE (or an earlier
 *     status of the type itself);
 * pcq_calc_cook_column: each row of a column equals pcq_calc_value on that
 *   row's samples (status, value bits, notes);
 * pcq_calc_format (on the value, and on any double, NaN and infinities too):
 *   - needs less than PCQ_CALC_TEXT_SIZE, prints ASCII only, NUL-terminates
 *     within cap, writes nothing past cap, and a short cap gives a prefix.
 */
#include "fuzz_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SENTINEL (-1234.5)

static void read_sample(fz_src *s, pcq_calc_sample *p)
{
    memset(p, 0, sizeof *p);
    p->value = fz_u64(s);
    p->base = fz_u64(s);
    p->obj_time = fz_u64(s);
    p->obj_freq = fz_u64(s);
    p->multi = fz_u64(s);
    p->time = fz_u64(s);
    p->time_100ns = fz_u64(s);
    p->freq = fz_u64(s);
    p->value_size = fz_u8(s);
    p->base_size = fz_u8(s);
    p->have = fz_u8(s);
}

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

typedef struct res {
    int st;
    double v;
    unsigned notes;
} res;

static res calc(uint32_t type, int32_t scale, const pcq_calc_sample *o, const pcq_calc_sample *n,
                unsigned flags)
{
    res r;
    r.v = SENTINEL;
    r.notes = 0xDEADu;
    r.st = pcq_calc_value(type, scale, o, n, flags, &r.v, &r.notes);
    FZ_CHECK(r.st >= 0 && r.st < PCQ_CALC_STATUS_END_, "type 0x%08x: status %d", type, r.st);
    FZ_CHECK(strcmp(pcq_calc_status_name(r.st), "PCQ_CALC_UNKNOWN_STATUS") != 0 &&
                 pcq_calc_status_text(r.st) != NULL,
             "status %d has no name", r.st);
    FZ_CHECK((r.notes & ~(unsigned)(PCQ_CALC_NOTE_WRAPPED | PCQ_CALC_NOTE_CAPPED)) == 0,
             "type 0x%08x: notes 0x%x", type, r.notes);
    if (r.st == PCQ_CALC_OK) {
        FZ_CHECK(isfinite(r.v), "type 0x%08x: OK with a value that is not finite", type);
        FZ_CHECK(r.v >= 0.0 && !signbit(r.v), "type 0x%08x: OK with %g", type, r.v);
    } else {
        FZ_CHECK(same_double(r.v, SENTINEL), "type 0x%08x: %s, but *out was written", type,
                 pcq_calc_status_name(r.st));
    }
    return r;
}

static void check_format(double v, uint32_t type, uint64_t attrib, size_t cap)
{
    char full[PCQ_CALC_TEXT_SIZE + 8];
    char *small;
    size_t need, got, i, k;
    memset(full, 'x', sizeof full);
    need = pcq_calc_format(v, type, attrib, full, PCQ_CALC_TEXT_SIZE);
    FZ_CHECK(need < PCQ_CALC_TEXT_SIZE, "pcq_calc_format(%g, 0x%08x, 0x%llx) needs %zu bytes", v, type,
             (unsigned long long)attrib, need);
    FZ_CHECK(strlen(full) == need, "pcq_calc_format: returns %zu, printed %zu", need, strlen(full));
    for (i = 0; i < need; i++)
        FZ_CHECK(full[i] >= 0x20 && full[i] < 0x7F, "pcq_calc_format printed byte 0x%02x",
                 (unsigned)(unsigned char)full[i]);
    for (i = PCQ_CALC_TEXT_SIZE; i < sizeof full; i++)
        FZ_CHECK(full[i] == 'x', "pcq_calc_format wrote past its capacity");
    if (attrib & 0x2) FZ_CHECK(need == 0, "no-display attrib printed \"%s\"", full);
    FZ_CHECK(pcq_calc_format(v, type, attrib, NULL, 0) == need, "sizing pass differs");
    small = (char *)malloc(cap ? cap : 1);
    FZ_CHECK(small != NULL, "out of memory");
    got = pcq_calc_format(v, type, attrib, small, cap);
    FZ_CHECK(got == need, "pcq_calc_format with cap %zu returns %zu, not %zu", cap, got, need);
    if (cap > 0) {
        k = strlen(small); /* within cap, or ASan reports the over-read */
        FZ_CHECK(k == (need < cap - 1 ? need : cap - 1) && memcmp(small, full, k) == 0,
                 "pcq_calc_format with cap %zu: \"%s\" is not the prefix of \"%s\"", cap, small, full);
    }
    free(small);
}

/* Column c read from table t instead: value, base, obj_time, obj_freq and
 * multi at 0 to 4 of each row of `stride` values (those c has). */
static void as_table(pcq_calc_column *s, const pcq_calc_column *c, const uint64_t *t, size_t stride)
{
    *s = *c;
    s->stride = stride;
    s->value = t;
    s->base = c->base ? t + 1 : NULL;
    s->obj_time = c->obj_time ? t + 2 : NULL;
    s->obj_freq = c->obj_freq ? t + 3 : NULL;
    s->multi = c->multi ? t + 4 : NULL;
}

/* The same columns as tables of rows (pcq_calc_column.stride): the newer's
 * 5 values a row, the older's 7 (two more of any value between rows, which
 * no row may read); the cells the same as the columns' (out), bit for bit. */
static void check_strided(uint32_t type, int32_t scale, unsigned flags, const pcq_calc_column *oc,
                          const pcq_calc_column *nc, uint64_t nv[5][3], uint64_t ov[5][3],
                          const pcq_calc_cell *out)
{
    uint64_t tn[3 * 5], to[3 * 7];
    pcq_calc_column sn, so;
    pcq_calc_cell t[3];
    size_t i, k;
    for (i = 0; i < 3; i++) {
        for (k = 0; k < 5; k++) {
            tn[i * 5 + k] = nv[k][i];
            to[i * 7 + k] = ov[k][i];
        }
        to[i * 7 + 5] = to[i * 7 + 6] = ~(uint64_t)i;
    }
    as_table(&sn, nc, tn, 5);
    if (oc) as_table(&so, oc, to, 7);
    FZ_CHECK(pcq_calc_cook_column(type, scale, flags, oc ? &so : NULL, &sn, 3, t) == PCQ_OK,
             "pcq_calc_cook_column refused strided columns");
    for (i = 0; i < 3; i++)
        FZ_CHECK(t[i].status == out[i].status && t[i].notes == out[i].notes &&
                     same_double(t[i].value, out[i].value),
                 "type 0x%08x row %zu: strided %s %.17g 0x%x, columns %s %.17g 0x%x", type, i,
                 pcq_calc_status_name(t[i].status), t[i].value, t[i].notes,
                 pcq_calc_status_name(out[i].status), out[i].value, out[i].notes);
}

/* pcq_calc_cook_column: every row is what pcq_calc_value gives for that
 * row's samples. Three rows from the fuzzed pair: as read, each value one
 * more, and the two samples' values swapped (a counter going backwards). The
 * columns share the samples' clocks and sizes; a related column is there
 * when the newer sample's `have` says so (in both samples, as in a reply). */
static void check_column(uint32_t type, int32_t scale, const pcq_calc_sample *o, const pcq_calc_sample *n,
                         unsigned flags)
{
    uint64_t nv[5][3], ov[5][3]; /* value, base, obj_time, obj_freq, multi; 3 rows each */
    pcq_calc_column nc, oc;
    pcq_calc_cell out[3];
    pcq_calc_sample rn, ro;
    size_t i, k;
    unsigned have = n->have & 15u;
    for (i = 0; i < 3; i++) {
        const uint64_t a[5] = {n->value, n->base, n->obj_time, n->obj_freq, n->multi};
        const uint64_t b[5] = {o ? o->value : 0, o ? o->base : 0, o ? o->obj_time : 0, o ? o->obj_freq : 0,
                               o ? o->multi : 0};
        for (k = 0; k < 5; k++) {
            nv[k][i] = i == 2 ? b[k] : a[k] + i;
            ov[k][i] = i == 2 ? a[k] : b[k];
        }
    }
    memset(&nc, 0, sizeof nc);
    nc.value = nv[0];
    nc.base = have & PCQ_CALC_HAVE_BASE ? nv[1] : NULL;
    nc.obj_time = have & PCQ_CALC_HAVE_TIME ? nv[2] : NULL;
    nc.obj_freq = have & PCQ_CALC_HAVE_FREQ ? nv[3] : NULL;
    nc.multi = have & PCQ_CALC_HAVE_MULTI ? nv[4] : NULL;
    nc.value_size = n->value_size;
    nc.base_size = n->base_size;
    nc.time = n->time;
    nc.time_100ns = n->time_100ns;
    nc.freq = n->freq;
    oc = nc;
    oc.value = ov[0];
    oc.base = nc.base ? ov[1] : NULL;
    oc.obj_time = nc.obj_time ? ov[2] : NULL;
    oc.obj_freq = nc.obj_freq ? ov[3] : NULL;
    oc.multi = nc.multi ? ov[4] : NULL;
    if (o) {
        oc.value_size = o->value_size;
        oc.base_size = o->base_size;
        oc.time = o->time;
        oc.time_100ns = o->time_100ns;
        oc.freq = o->freq;
    }
    FZ_CHECK(pcq_calc_cook_column(type, scale, flags, o ? &oc : NULL, &nc, 3, out) == PCQ_OK,
             "pcq_calc_cook_column refused its arguments");
    for (i = 0; i < 3; i++) {
        res r;
        memset(&rn, 0, sizeof rn);
        rn.value = nv[0][i];
        rn.base = nc.base ? nv[1][i] : 0;
        rn.obj_time = nc.obj_time ? nv[2][i] : 0;
        rn.obj_freq = nc.obj_freq ? nv[3][i] : 0;
        rn.multi = nc.multi ? nv[4][i] : 0;
        rn.time = nc.time;
        rn.time_100ns = nc.time_100ns;
        rn.freq = nc.freq;
        rn.value_size = nc.value_size;
        rn.base_size = nc.base_size;
        rn.have = (uint8_t)have;
        ro = rn;
        ro.value = ov[0][i];
        ro.base = nc.base ? ov[1][i] : 0;
        ro.obj_time = nc.obj_time ? ov[2][i] : 0;
        ro.obj_freq = nc.obj_freq ? ov[3][i] : 0;
        ro.multi = nc.multi ? ov[4][i] : 0;
        ro.time = oc.time;
        ro.time_100ns = oc.time_100ns;
        ro.freq = oc.freq;
        ro.value_size = oc.value_size;
        ro.base_size = oc.base_size;
        r = calc(type, scale, o ? &ro : NULL, &rn, flags);
        FZ_CHECK(out[i].status == r.st && out[i].notes == r.notes &&
                     same_double(out[i].value, r.st == PCQ_CALC_OK ? r.v : 0.0),
                 "type 0x%08x row %zu: column %s %.17g 0x%x, value %s %.17g 0x%x", type, i,
                 pcq_calc_status_name(out[i].status), out[i].value, out[i].notes, pcq_calc_status_name(r.st),
                 r.v, r.notes);
    }
    check_strided(type, scale, flags, o ? &oc : NULL, &nc, nv, ov, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_src s;
    pcq_calc_sample older, newer;
    const pcq_calc_type *d, *t;
    uint8_t tsel, ssel;
    uint32_t type, raw;
    int32_t scale;
    unsigned flags;
    int has_old;
    uint64_t attrib, bits;
    size_t cap, i;
    double any;
    res r, r2, alt;

    s.p = data;
    s.len = size;
    s.pos = 0;
    tsel = fz_u8(&s);
    raw = fz_u32(&s);
    t = pcq_calc_type_at(tsel % 64);
    type = (tsel & 0x80) || t == NULL ? raw : t->type;
    ssel = fz_u8(&s);
    scale = (ssel & 0x80) ? (int32_t)fz_u32(&s) : (int32_t)(ssel % 25) - 12;
    flags = fz_u8(&s);
    has_old = fz_u8(&s) & 1;
    read_sample(&s, &older);
    read_sample(&s, &newer);
    attrib = fz_u64(&s);
    cap = fz_u8(&s) % (PCQ_CALC_TEXT_SIZE + 8);
    bits = fz_u64(&s);
    memcpy(&any, &bits, sizeof any);

    /* The table and the descriptor of this type. */
    d = pcq_calc_type_info(type);
    for (i = 0; (t = pcq_calc_type_at(i)) != NULL; i++) {
        FZ_CHECK(i < 256, "pcq_calc_type_at does not end");
        FZ_CHECK(pcq_calc_type_info(t->type) == t, "type 0x%08x: two descriptors", t->type);
    }
    if (d) {
        FZ_CHECK(d->type == type && d->formula != NULL, "descriptor of 0x%08x", type);
        FZ_CHECK((d->size == 0 || d->size == 4 || d->size == 8) && (d->samples == 1 || d->samples == 2) &&
                     d->timebase <= PCQ_CALC_TB_BASE && d->unit <= PCQ_CALC_UNIT_TEXT &&
                     (d->needs & ~15u) == 0,
                 "descriptor of 0x%08x out of range", type);
    }

    check_column(type, scale, has_old ? &older : NULL, &newer, flags);
    r = calc(type, scale, has_old ? &older : NULL, &newer, flags);
    r2 = calc(type, scale, has_old ? &older : NULL, &newer, flags);
    FZ_CHECK(r.st == r2.st && same_double(r.v, r2.v) && r.notes == r2.notes,
             "type 0x%08x: two calls, two answers", type);
    FZ_CHECK(pcq_calc_value(type, scale, has_old ? &older : NULL, &newer, flags, NULL, NULL) == r.st,
             "type 0x%08x: out and notes NULL change the status", type);

    if (!d)
        FZ_CHECK(r.st == PCQ_CALC_UNKNOWN_TYPE, "unknown type 0x%08x: %s", type, pcq_calc_status_name(r.st));
    if (d && !d->displayable) FZ_CHECK(r.st != PCQ_CALC_OK, "type 0x%08x is not displayable", type);
    if (d && d->samples == 2 && !has_old)
        FZ_CHECK(r.st != PCQ_CALC_OK, "two-sample type 0x%08x computed from one sample", type);
    if (d && d->samples == 1) {
        alt = calc(type, scale, has_old ? NULL : &older, &newer, flags);
        FZ_CHECK(alt.st == r.st && same_double(alt.v, r.v),
                 "one-sample type 0x%08x depends on the older sample", type);
    }
    if (r.st == PCQ_CALC_OK && (r.notes & PCQ_CALC_NOTE_CAPPED))
        FZ_CHECK(d && d->unit == PCQ_CALC_UNIT_PERCENT && !(flags & PCQ_CALC_NOCAP100),
                 "type 0x%08x: CAPPED note", type);
    if ((scale < -10 || scale > 10) && !(flags & PCQ_CALC_NOSCALE))
        FZ_CHECK(r.st == PCQ_CALC_BAD_SCALE || r.st == PCQ_CALC_UNKNOWN_TYPE ||
                     r.st == PCQ_CALC_NOT_NUMERIC || r.st == PCQ_CALC_NOT_DISPLAYABLE,
                 "type 0x%08x, scale %d: %s", type, (int)scale, pcq_calc_status_name(r.st));

    /* x1000 */
    {
        res a = calc(type, scale, has_old ? &older : NULL, &newer, flags & ~PCQ_CALC_X1000);
        res b = calc(type, scale, has_old ? &older : NULL, &newer, flags | PCQ_CALC_X1000);
        if (a.st == PCQ_CALC_OK) {
            double m = a.v * 1000.0;
            FZ_CHECK((b.st == PCQ_CALC_OK && same_double(b.v, m == 0.0 ? 0.0 : m)) ||
                         (b.st == PCQ_CALC_OUT_OF_RANGE && !isfinite(m)),
                     "type 0x%08x: X1000 gives %s %.17g for %.17g", type, pcq_calc_status_name(b.st), b.v,
                     a.v);
        } else {
            FZ_CHECK(b.st == a.st, "type 0x%08x: %s, with X1000 %s", type, pcq_calc_status_name(a.st),
                     pcq_calc_status_name(b.st));
        }
    }
    /* DefaultScale, and the cap at 100 */
    if (scale >= -10 && scale <= 10) {
        unsigned base = flags & ~(unsigned)(PCQ_CALC_X1000 | PCQ_CALC_NOSCALE);
        res a = calc(type, scale, has_old ? &older : NULL, &newer, base | PCQ_CALC_NOSCALE);
        res b = calc(type, scale, has_old ? &older : NULL, &newer, base);
        double f = pcq_calc_scale_factor(scale);
        FZ_CHECK(f > 0.0 && isfinite(f), "scale factor of %d: %g", (int)scale, f);
        if (a.st == PCQ_CALC_OK) {
            double m = scale < 0 ? a.v / pcq_calc_scale_factor(-scale) : a.v * f;
            FZ_CHECK((b.st == PCQ_CALC_OK && same_double(b.v, m == 0.0 ? 0.0 : m)) ||
                         (b.st == PCQ_CALC_OUT_OF_RANGE && !isfinite(m)),
                     "type 0x%08x: scale %d gives %s %.17g for %.17g", type, (int)scale,
                     pcq_calc_status_name(b.st), b.v, a.v);
            if (d && d->unit == PCQ_CALC_UNIT_PERCENT && !(base & PCQ_CALC_NOCAP100))
                FZ_CHECK(a.v <= 100.0, "percent type 0x%08x: %.17g", type, a.v);
        } else {
            FZ_CHECK(b.st == a.st, "type 0x%08x: %s, scaled %s", type, pcq_calc_status_name(a.st),
                     pcq_calc_status_name(b.st));
        }
    } else {
        FZ_CHECK(pcq_calc_scale_factor(scale) == 0.0, "scale factor of %d is not 0", (int)scale);
    }

    if (r.st == PCQ_CALC_OK) check_format(r.v, type, attrib, cap);
    check_format(any, type, attrib, cap);
    check_format(any, raw, attrib, cap);
    return 0;
}
