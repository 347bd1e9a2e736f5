/* SPDX-License-Identifier: MIT */
/*
 * cook_metrics.c - pcqdump --cook --format prometheus | influx: the cooked
 * rows for monitoring systems. The names, units, labels and escapes are
 * decision D17 (docs/decisions.md); in short:
 *
 *   Prometheus (text exposition format 0.0.4): one gauge family per counter,
 *   windows_<counterset>_<counter>[_ratio|_seconds|_per_second] in lower snake
 *   case as windows_exporter derives it, words promtool would flag joined to
 *   their neighbour, labels counterset and instance (aggregate rows: instance
 *   "_Total"... and aggregate="total"...); a percentage is written as a ratio.
 *   Influx (line protocol, InfluxDB 1.x): a line per instance, measurement =
 *   the counterset, tag instance, a float field per counter, the newer
 *   sample's PerfTime100NSec as the time in ns.
 *
 * Both write the rows --csv shows whose status is ok, once per series (a
 * counter queried twice for one instance is written from its first row).
 * Work: sorts of the rows, O(n log n); no name is ever compared with more
 * than the sort's neighbours.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook.h"

#define NAME_CAP (2 * PCQ_COOK_LABEL + 64) /* set and counter words, id, unit */

/* One counter of the output: its rows are a run of the sorted rows. */
typedef struct fam {
    uint32_t counter_id, type;
    size_t first, count; /* in the rows sorted by (counter, row) */
    char name[NAME_CAP]; /* metric name without its unit suffix, or field key */
    const char *suffix;  /* "_ratio", "_seconds", "_per_second" or "" */
} fam;

typedef struct sel {
    const pcq_cooked *c;
    size_t *ix; /* row indices written, sorted by (counter, row) */
    size_t n;
    fam *fams;
    size_t nfams;
} sel;

/* ------------------------------------------------------------------------ */
/* Choosing the rows                                                         */
/* ------------------------------------------------------------------------ */

/* The series a row belongs to, besides its counter: aggregate, instance
 * name, name#n. 0 when equal. */
static int cmp_series(const pcq_calc_row *a, const pcq_calc_row *b)
{
    size_t n;
    int d;
    if (a->is_aggregate != b->is_aggregate) return a->is_aggregate < b->is_aggregate ? -1 : 1;
    if (a->is_aggregate)
        return a->aggregate_func < b->aggregate_func ? -1 : a->aggregate_func > b->aggregate_func;
    if (a->has_instance != b->has_instance) return a->has_instance < b->has_instance ? -1 : 1;
    n = a->instance.len < b->instance.len ? a->instance.len : b->instance.len;
    d = n ? memcmp(a->instance.ptr, b->instance.ptr, n) : 0;
    if (d) return d;
    if (a->instance.len != b->instance.len) return a->instance.len < b->instance.len ? -1 : 1;
    return a->dup_index < b->dup_index ? -1 : a->dup_index > b->dup_index;
}

/* qsort's elements carry the rows they compare: no global context. */
typedef struct ent {
    const pcq_calc_row *r;
    size_t ix;
} ent;

static int cmp_counter_series(const void *x, const void *y)
{
    const ent *a = x, *b = y;
    int d;
    if (a->r->counter_id != b->r->counter_id) return a->r->counter_id < b->r->counter_id ? -1 : 1;
    if ((d = cmp_series(a->r, b->r)) != 0) return d;
    return a->ix < b->ix ? -1 : a->ix > b->ix;
}

static int cmp_counter_row(const void *x, const void *y)
{
    const ent *a = x, *b = y;
    if (a->r->counter_id != b->r->counter_id) return a->r->counter_id < b->r->counter_id ? -1 : 1;
    return a->ix < b->ix ? -1 : a->ix > b->ix;
}

/* The rows to write, once per (counter, series), grouped by counter in row
 * order; a family per counter. 0, or -1 out of memory. */
static int select_rows(const pcq_cooked *c, sel *s)
{
    ent *e = malloc(sizeof *e * (c->n_rows ? c->n_rows : 1));
    size_t i, n = 0, k = 0;
    memset(s, 0, sizeof *s);
    s->c = c;
    if (!e) return -1;
    for (i = 0; i < c->n_rows; i++)
        if (c->rows[i].status == PCQ_CALC_OK && pcq_cook_shown(&c->rows[i])) {
            e[n].r = &c->rows[i];
            e[n++].ix = i;
        }
    qsort(e, n, sizeof *e, cmp_counter_series);
    for (i = 0; i < n; i++) /* the first row of each series stays */
        if (k == 0 || e[k - 1].r->counter_id != e[i].r->counter_id || cmp_series(e[k - 1].r, e[i].r) != 0)
            e[k++] = e[i];
    qsort(e, k, sizeof *e, cmp_counter_row);
    s->ix = malloc(sizeof *s->ix * (k ? k : 1));
    s->fams = calloc(k ? k : 1, sizeof *s->fams);
    if (!s->ix || !s->fams) {
        free(e);
        return -1;
    }
    for (i = 0; i < k; i++) {
        s->ix[i] = e[i].ix;
        if (i == 0 || e[i].r->counter_id != e[i - 1].r->counter_id) {
            fam *f = &s->fams[s->nfams++];
            f->counter_id = e[i].r->counter_id;
            f->type = e[i].r->type;
            f->first = i;
            f->suffix = "";
        }
        s->fams[s->nfams - 1].count++;
    }
    s->n = k;
    free(e);
    return 0;
}

static void free_sel(sel *s)
{
    free(s->ix);
    free(s->fams);
}

/* ------------------------------------------------------------------------ */
/* Unique names                                                              */
/* ------------------------------------------------------------------------ */

static int cmp_fam_name(const void *x, const void *y)
{
    const fam *a = *(fam *const *)x, *b = *(fam *const *)y;
    int d = strcmp(a->name, b->name);
    if (d == 0) d = strcmp(a->suffix, b->suffix);
    if (d) return d;
    return a->counter_id < b->counter_id ? -1 : a->counter_id > b->counter_id;
}

/* Two counters may get one name (names cut alike, names that sanitize
 * alike, two unnamed...): each but the lowest id of a group gets
 * <sep>id<N> (or <sep><N>) appended, until every name differs. A renamed
 * name only grows, and ids are unique, so this ends. 0, or -1. */
static int unique_names(sel *s, const char *sep)
{
    fam **p = malloc(sizeof *p * (s->nfams ? s->nfams : 1));
    size_t i, renamed;
    if (!p) return -1;
    for (i = 0; i < s->nfams; i++) p[i] = &s->fams[i];
    do {
        renamed = 0;
        qsort(p, s->nfams, sizeof *p, cmp_fam_name);
        for (i = 1; i < s->nfams; i++)
            if (strcmp(p[i]->name, p[i - 1]->name) == 0 && strcmp(p[i]->suffix, p[i - 1]->suffix) == 0) {
                size_t len = strlen(p[i]->name);
                if (len + 16 < sizeof p[i]->name) {
                    snprintf(p[i]->name + len, sizeof p[i]->name - len, "%s%u", sep,
                             (unsigned)p[i]->counter_id);
                } else { /* no room: keep the end, which holds the ids */
                    memmove(p[i]->name, p[i]->name + 16, len - 16 + 1);
                    len -= 16;
                    snprintf(p[i]->name + len, sizeof p[i]->name - len, "%s%u", sep,
                             (unsigned)p[i]->counter_id);
                }
                renamed++;
            }
    } while (renamed > 0);
    free(p);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Text: valid UTF-8, escaped per format                                      */
/* ------------------------------------------------------------------------ */

enum {
    ESC_PROM_LABEL,
    ESC_PROM_HELP,
    ESC_INFLUX_KEY,
    ESC_INFLUX_MEASUREMENT
};

typedef struct esc {
    FILE *out;
    int style;
    int started;        /* something was written (a measurement's first '#') */
    int held_backslash; /* influx: a '\' waits to see what follows it */
} esc;

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len, k;
    if (s[0] < 0x80) return 1;
    len = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
    if (len == 0 || len > n) return 0;
    for (k = 1; k < len; k++)
        if ((s[k] & 0xC0) != 0x80) return 0;
    if (len == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))) return 0;
    if (len == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))) return 0;
    return len;
}

/* One character in Influx line protocol 1.x: ',' ' ' (and '=' outside a
 * measurement) escaped with '\'. A line feed cannot be carried, nor a '\'
 * that ends the text (it would escape the separator after it): both become
 * '?'. A '\' elsewhere is literal; before an escaped character the parser
 * still reads it so (it looks one character back). */
static void influx_char(esc *e, unsigned char ch)
{
    if (e->held_backslash) {
        fputc('\\', e->out);
        e->held_backslash = 0;
    }
    if (ch == '\\') {
        e->held_backslash = 1;
    } else if (ch == '\n' || (ch == '#' && !e->started && e->style == ESC_INFLUX_MEASUREMENT)) {
        fputc('?', e->out); /* a line feed ends the line; '#' first: a comment */
    } else {
        if (ch == ',' || ch == ' ' || (ch == '=' && e->style == ESC_INFLUX_KEY)) fputc('\\', e->out);
        fputc(ch, e->out);
    }
    e->started = 1;
}

static void esc_char(esc *e, unsigned char ch)
{
    if (e->style == ESC_INFLUX_KEY || e->style == ESC_INFLUX_MEASUREMENT) {
        influx_char(e, ch);
        return;
    }
    if (ch == '\\')
        fputs("\\\\", e->out);
    else if (ch == '\n')
        fputs("\\n", e->out);
    else if (ch == '"' && e->style == ESC_PROM_LABEL)
        fputs("\\\"", e->out);
    else
        fputc(ch, e->out);
    e->started = 1;
}

/* Writes n bytes of text escaped; an invalid UTF-8 byte (only --set-name
 * can have one) becomes '?'. */
static void esc_put(void *ctx, const char *s, size_t n)
{
    esc *e = ctx;
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, len, k;
    while (i < n) {
        len = utf8_len(u + i, n - i);
        if (len == 0) {
            esc_char(e, '?');
            i++;
        } else if (len == 1) {
            esc_char(e, u[i++]);
        } else {
            if (e->held_backslash) { /* a '\\' before a letter is literal */
                fputc('\\', e->out);
                e->held_backslash = 0;
            }
            for (k = 0; k < len; k++) fputc(u[i + k], e->out);
            e->started = 1;
            i += len;
        }
    }
}

/* The end of an escaped text: a held '\' cannot end it (influx). */
static void esc_end(esc *e)
{
    if (e->held_backslash) fputc('?', e->out);
    e->held_backslash = 0;
}

static void esc_text(FILE *out, int style, const char *s)
{
    esc e;
    memset(&e, 0, sizeof e);
    e.out = out;
    e.style = style;
    esc_put(&e, s, strlen(s));
    esc_end(&e);
}

static void esc_utf16(FILE *out, int style, const pcq_bytes *b, const char *tail)
{
    esc e;
    memset(&e, 0, sizeof e);
    e.out = out;
    e.style = style;
    pcq_cook_utf16(b->ptr, b->len, esc_put, &e);
    if (tail) esc_put(&e, tail, strlen(tail));
    esc_end(&e);
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v: 0.3, not
 * 0.30000000000000004 (both formats parse any of them as a float64). */
static void put_double(FILE *out, double v)
{
    char buf[40];
    int p;
    for (p = 15; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v) break;
    }
    fputs(buf, out);
}

/* ------------------------------------------------------------------------ */
/* Prometheus names                                                           */
/* ------------------------------------------------------------------------ */

/* Words promtool's lint rejects in a metric name (client_golang promlint):
 * abbreviated units, metric types, and units other than base units (with
 * any SI prefix). */
static int lint_word(const char *w)
{
    static const char *const abbrev[] = {"s",  "ms", "us",      "ns",    "sec",       "b",
                                         "kb", "mb", "gb",      "tb",    "pb",        "m",
                                         "h",  "d",  "counter", "gauge", "histogram", "summary"};
    static const char *const units[] = {"amperes", "bytes",  "celsius", "grams",      "joules",  "kelvin",
                                        "meters",  "metres", "seconds", "volts",      "minutes", "hours",
                                        "days",    "weeks",  "kelvins", "fahrenheit", "rankine", "inches",
                                        "yards",   "miles",  "bits",    "calories",   "pounds",  "ounces"};
    static const char *const prefixes[] = {"pico", "nano",  "micro", "milli", "centi", "deci",
                                           "deca", "hecto", "kilo",  "kibi",  "mega",  "mibi",
                                           "giga", "gibi",  "tera",  "tebi",  "peta",  "pebi"};
    size_t i, k, pl;
    for (i = 0; i < sizeof abbrev / sizeof abbrev[0]; i++)
        if (strcmp(w, abbrev[i]) == 0) return 1;
    for (i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(w, units[i]) == 0) return i >= 10; /* the first ten are base units */
        for (k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
            pl = strlen(prefixes[k]);
            if (strncmp(w, prefixes[k], pl) == 0 && strcmp(w + pl, units[i]) == 0) return 1;
        }
    }
    return 0;
}

/* A name's last word: these suffixes belong to counters and histograms. */
static int lint_last_word(const char *w)
{
    return strcmp(w, "total") == 0 || strcmp(w, "count") == 0 || strcmp(w, "sum") == 0 ||
           strcmp(w, "bucket") == 0;
}

#define MAX_WORDS (NAME_CAP / 2)

typedef struct words {
    char buf[NAME_CAP];
    char *w[MAX_WORDS];
    size_t n;
} words;

/* windows_exporter's sanitizing (performancecounter collector): '%' becomes
 * "percent", '(' and ')' go, letters are lowered, anything else but a-z 0-9
 * separates words. Appends the words of text to ws. */
static void add_words(words *ws, const char *text)
{
    size_t used = 0, i;
    int in_word = 0;
    const char *p;
    for (i = 0; i < ws->n; i++) used += strlen(ws->w[i]) + 1;
    for (p = text; *p && used + 9 < sizeof ws->buf; p++) {
        char ch = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        const char *put = NULL;
        if (ch == '(' || ch == ')') continue;
        if (ch == '%')
            put = "percent";
        else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))
            put = NULL;
        else {
            if (in_word) ws->buf[used++] = '\0';
            in_word = 0;
            continue;
        }
        if (!in_word) {
            if (ws->n == MAX_WORDS) break;
            ws->w[ws->n++] = ws->buf + used;
            in_word = 1;
        }
        if (put) {
            memcpy(ws->buf + used, put, strlen(put));
            used += strlen(put);
        } else {
            ws->buf[used++] = ch;
        }
        ws->buf[used] = '\0';
    }
    if (in_word) ws->buf[used] = '\0';
}

/* Joins word i + 1 to word i, in place. Words lie in ws->buf in order, each
 * after the one before (with one NUL or more between, after earlier joins),
 * so word i + 1's text moves down over the gap and nothing after it moves. */
static void join_words(words *ws, size_t i)
{
    char *a = ws->w[i], *b = ws->w[i + 1];
    size_t la = strlen(a), lb = strlen(b), k;
    memmove(a + la, b, lb + 1);
    for (k = i + 1; k + 1 < ws->n; k++) ws->w[k] = ws->w[k + 1];
    ws->n--;
}

/* Every word promtool would flag is joined to the word before it (to the one
 * after it when it comes right after "windows"): "avg_disk_sec_read" becomes
 * "avg_disksec_read". last: the words end the name (no unit suffix). */
static void lint_fix(words *ws, int last)
{
    size_t i = 1;
    while (i < ws->n) {
        int bad = lint_word(ws->w[i]) || (last && i + 1 == ws->n && lint_last_word(ws->w[i]));
        if (!bad) {
            i++;
        } else if (i > 1) {
            join_words(ws, i - 1);
            i--; /* the joined word is checked again */
        } else if (i + 1 < ws->n) {
            join_words(ws, i);
        } else { /* windows_<one flagged word>: cannot happen with two parts */
            size_t len = strlen(ws->w[i]);
            if (len + 6 < sizeof ws->buf - (size_t)(ws->w[i] - ws->buf)) memcpy(ws->w[i] + len, "value", 6);
            i++;
        }
    }
}

/* The counter's name as a metric name's words see it: without '%' when the
 * unit says percent, without a trailing "/sec" when it says per second. */
static void counter_text(const pcq_cooked *c, const fam *f, int unit, char *out, size_t cap)
{
    pcq_string_entry tmp;
    size_t len, i, k;
    if (!pcq_cook_counter_name(c, f->counter_id, &tmp)) {
        snprintf(out, cap, "id%u", (unsigned)f->counter_id);
        return;
    }
    pcq_cook_counter_label(c, f->counter_id, out, cap);
    if (unit == PCQ_CALC_UNIT_PERCENT) {
        for (i = k = 0; out[i]; i++)
            if (out[i] != '%') out[k++] = out[i];
        out[k] = '\0';
    }
    len = strlen(out);
    while (len > 0 && out[len - 1] == ' ') out[--len] = '\0';
    if (unit == PCQ_CALC_UNIT_PER_SEC && len >= 4 && out[len - 4] == '/' && (out[len - 3] | 0x20) == 's' &&
        (out[len - 2] | 0x20) == 'e' && (out[len - 1] | 0x20) == 'c')
        out[len - 4] = '\0';
}

static void prom_name(const pcq_cooked *c, fam *f)
{
    const pcq_calc_type *d = pcq_calc_type_info(f->type);
    int unit = d ? d->unit : PCQ_CALC_UNIT_NONE;
    char text[PCQ_COOK_LABEL];
    words ws;
    size_t i, n0, used = 0;

    memset(&ws, 0, sizeof ws);
    add_words(&ws, "windows");
    pcq_cook_set_label(c, text, sizeof text);
    n0 = ws.n;
    add_words(&ws, text);
    if (ws.n == n0) { /* a set name with no letter or digit: its GUID */
        char g[PCQ_GUID_TEXT_SIZE];
        pcq_guid_to_text(&c->info.set.guid, g);
        add_words(&ws, g);
    }
    counter_text(c, f, unit, text, sizeof text);
    n0 = ws.n;
    add_words(&ws, text);
    if (ws.n == n0) {
        snprintf(text, sizeof text, "id%u", (unsigned)f->counter_id);
        add_words(&ws, text);
    }
    f->suffix = unit == PCQ_CALC_UNIT_PERCENT   ? "_ratio"
                : unit == PCQ_CALC_UNIT_SECONDS ? "_seconds"
                : unit == PCQ_CALC_UNIT_PER_SEC ? "_per_second"
                                                : "";
    lint_fix(&ws, f->suffix[0] == '\0');
    f->name[0] = '\0';
    for (i = 0; i < ws.n && used + strlen(ws.w[i]) + 2 < sizeof f->name; i++) {
        if (i) f->name[used++] = '_';
        memcpy(f->name + used, ws.w[i], strlen(ws.w[i]) + 1);
        used += strlen(ws.w[i]);
    }
}

/* ------------------------------------------------------------------------ */
/* Prometheus                                                                 */
/* ------------------------------------------------------------------------ */

static const char *aggregate_label(uint32_t f)
{
    static const char *const v[5][2] = {{"", ""},
                                        {"_Total", "total"},
                                        {"_Average", "average"},
                                        {"_Minimum", "minimum"},
                                        {"_Maximum", "maximum"}};
    return v[f <= 4 ? f : 0][0];
}

static const char *aggregate_value(uint32_t f)
{
    static const char *const v[5] = {"", "total", "average", "minimum", "maximum"};
    return v[f <= 4 ? f : 0];
}

static void prom_help(const pcq_cooked *c, const fam *f, const char *set, FILE *out)
{
    pcq_string_entry tmp;
    const pcq_string_entry *name = pcq_cook_counter_name(c, f->counter_id, &tmp);
    const char *tn = pcq_counter_type_name(f->type);
    fprintf(out, "# HELP %s%s ", f->name, f->suffix);
    if (name)
        esc_utf16(out, ESC_PROM_HELP, &name->text, NULL);
    else
        fprintf(out, "counter %u", (unsigned)f->counter_id);
    fputs(" (", out);
    esc_text(out, ESC_PROM_HELP, set);
    fprintf(out, ", counter %u, %s, cooked by pcq%s)\n", (unsigned)f->counter_id, tn ? tn : "unknown type",
            f->suffix[1] == 'r' ? "; a ratio: 1 is 100 %" : "");
    fprintf(out, "# TYPE %s%s gauge\n", f->name, f->suffix);
}

static void prom_sample(const fam *f, const pcq_calc_row *r, const char *set, FILE *out)
{
    double v = r->value;
    fprintf(out, "%s%s{counterset=\"", f->name, f->suffix);
    esc_text(out, ESC_PROM_LABEL, set);
    fputc('"', out);
    if (r->is_aggregate) {
        fprintf(out, ",instance=\"%s\",aggregate=\"%s\"", aggregate_label(r->aggregate_func),
                aggregate_value(r->aggregate_func));
    } else if (r->has_instance && r->instance.len >= 2) { /* an empty value is no label */
        char dup[16] = "";
        if (r->dup_index > 0) snprintf(dup, sizeof dup, "#%u", (unsigned)r->dup_index);
        fputs(",instance=\"", out);
        esc_utf16(out, ESC_PROM_LABEL, &r->instance, dup);
        fputc('"', out);
    }
    if (f->suffix[1] == 'r') v /= 100; /* a percentage as a ratio */
    fputs("} ", out);
    put_double(out, v);
    fputc('\n', out);
}

int pcq_cook_print_prometheus(const pcq_cooked *c, FILE *out)
{
    char set[PCQ_COOK_LABEL];
    sel s;
    size_t i, k;
    if (select_rows(c, &s) != 0) {
        free_sel(&s);
        return -1;
    }
    for (i = 0; i < s.nfams; i++) prom_name(c, &s.fams[i]);
    if (unique_names(&s, "_id") != 0) {
        free_sel(&s);
        return -1;
    }
    pcq_cook_set_label(c, set, sizeof set);
    for (i = 0; i < s.nfams; i++) {
        const fam *f = &s.fams[i];
        prom_help(c, f, set, out);
        for (k = 0; k < f->count; k++) prom_sample(f, &c->rows[s.ix[f->first + k]], set, out);
    }
    free_sel(&s);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Influx                                                                     */
/* ------------------------------------------------------------------------ */

/* Field keys: the counter's label ("#id" unnamed); "time" is refused by
 * InfluxDB, and an empty key cannot be written. */
static void influx_key(const pcq_cooked *c, fam *f)
{
    pcq_cook_counter_label(c, f->counter_id, f->name, sizeof f->name);
    if (f->name[0] == '\0' || strcmp(f->name, "time") == 0)
        snprintf(f->name + strlen(f->name), sizeof f->name - strlen(f->name), "#%u", (unsigned)f->counter_id);
}

static int cmp_series_row(const void *x, const void *y)
{
    const ent *a = x, *b = y;
    int d = cmp_series(a->r, b->r);
    if (d) return d;
    return a->ix < b->ix ? -1 : a->ix > b->ix;
}

static const fam *fam_of(const sel *s, uint32_t id)
{
    size_t lo = 0, hi = s->nfams;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->fams[mid].counter_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &s->fams[lo]; /* every row written has its family */
}

/* FILETIME (100 ns since 1601) as ns since 1970, when InfluxDB can store it
 * (|t| < 2^63 - 1). 0 when it cannot. */
static int influx_time(uint64_t ft, long long *ns)
{
    const long long epoch = 116444736000000000LL, lim = 9223372036854775806LL / 100;
    long long t;
    if (ft > (uint64_t)epoch + (uint64_t)lim) return 0;
    t = (long long)ft - epoch;
    if (t < -lim) return 0;
    *ns = t * 100;
    return 1;
}

static void influx_line(const sel *s, const ent *e, size_t n, const char *set, FILE *out, const char *ts)
{
    const pcq_calc_row *r = e[0].r;
    size_t i;
    esc_text(out, ESC_INFLUX_MEASUREMENT, set);
    if (r->is_aggregate) {
        fprintf(out, ",aggregate=%s,instance=%s", aggregate_value(r->aggregate_func),
                aggregate_label(r->aggregate_func));
    } else if (r->has_instance && r->instance.len >= 2) { /* no empty tag value */
        char dup[16] = "";
        if (r->dup_index > 0) snprintf(dup, sizeof dup, "#%u", (unsigned)r->dup_index);
        fputs(",instance=", out);
        esc_utf16(out, ESC_INFLUX_KEY, &r->instance, dup);
    }
    for (i = 0; i < n; i++) {
        fputc(i ? ',' : ' ', out);
        esc_text(out, ESC_INFLUX_KEY, fam_of(s, e[i].r->counter_id)->name);
        fputc('=', out);
        put_double(out, e[i].r->value);
    }
    fprintf(out, "%s\n", ts);
}

/* A line: the run e[start, end) of one series. */
typedef struct line {
    size_t start, end, first_row;
} line;

static int cmp_line(const void *x, const void *y)
{
    const line *a = x, *b = y;
    return a->first_row < b->first_row ? -1 : a->first_row > b->first_row;
}

/* The rows of each series, in row order, and the series in the order of
 * their first row. NULL when out of memory. */
static line *influx_lines(const sel *s, ent *e, size_t *nlines)
{
    line *l = malloc(sizeof *l * (s->n ? s->n : 1));
    size_t i, n = 0;
    if (!l) return NULL;
    for (i = 0; i < s->n; i++) {
        e[i].r = &s->c->rows[s->ix[i]];
        e[i].ix = s->ix[i];
    }
    qsort(e, s->n, sizeof *e, cmp_series_row);
    for (i = 0; i < s->n; i++) {
        if (i == 0 || cmp_series(e[i - 1].r, e[i].r) != 0) {
            l[n].start = i;
            l[n++].first_row = e[i].ix;
        }
        l[n - 1].end = i + 1;
    }
    qsort(l, n, sizeof *l, cmp_line);
    *nlines = n;
    return l;
}

int pcq_cook_print_influx(const pcq_cooked *c, FILE *out, FILE *msg)
{
    char set[PCQ_COOK_LABEL], ts[32] = "";
    long long ns;
    ent *e = NULL;
    line *l = NULL;
    sel s;
    size_t i, n = 0;
    int rc = -1;

    if (select_rows(c, &s) != 0) goto done;
    for (i = 0; i < s.nfams; i++) influx_key(c, &s.fams[i]);
    if (unique_names(&s, "#") != 0) goto done;
    e = malloc(sizeof *e * (s.n ? s.n : 1));
    if (!e || !(l = influx_lines(&s, e, &n))) goto done;
    if (influx_time(c->newer.perf_time_100nsec, &ns))
        snprintf(ts, sizeof ts, " %lld", ns);
    else
        fprintf(msg,
                "pcqdump --cook: PerfTime100NSec %llu is outside InfluxDB's time range: lines without time\n",
                (unsigned long long)c->newer.perf_time_100nsec);
    pcq_cook_set_label(c, set, sizeof set);
    for (i = 0; i < n; i++) influx_line(&s, e + l[i].start, l[i].end - l[i].start, set, out, ts);
    rc = 0;
done:
    free(e);
    free(l);
    free_sel(&s);
    return rc;
}
