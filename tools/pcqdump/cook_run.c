/* SPDX-License-Identifier: MIT */
/*
 * cook_run.c - pcq_cook_print (cook.h): decode the buffers, cook them with
 * pcq_calc_cook, print the rows as a table, CSV or JSON (the Prometheus and
 * Influx formats are in cook_metrics.c). Formulas: docs/formulas.md; the
 * output formats: its section "pcqdump --cook output".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook.h"
#include "pcq_json.h"

/* The decoder's error format: "pcqdump: FILE: offset 0x...: message (field)",
 * and what to do about it when we know. Records the failure for the caller. */
static int bad_input(pcq_cooked *c, int input, int rc, const pcq_error *e, const char *hint)
{
    const char *path = c->req->in[input].name ? c->req->in[input].name : "-";
    fprintf(c->msg, "pcqdump: %s: offset 0x%zx: %s", path, e->offset, pcq_strerror(rc));
    if (e->what) fprintf(c->msg, " (%s)", e->what);
    if (hint) fprintf(c->msg, "; %s", hint);
    fputc('\n', c->msg);
    if (c->fail) {
        c->fail->input = input;
        c->fail->err = *e;
        c->fail->err.code = rc;
    }
    return 1;
}

static int out_of_memory(pcq_cooked *c)
{
    fprintf(c->msg, "pcqdump --cook: out of memory\n");
    return 2;
}

static int decode_ids(pcq_cooked *c)
{
    const pcq_cook_input *f = &c->req->in[PCQ_COOK_IDS];
    pcq_error e;
    pcq_iter it;
    size_t count = 0, i = 0;
    int rc = pcq_decode_identifiers(f->buf, f->len, NULL, &count, &e);
    if (rc != PCQ_OK) return bad_input(c, PCQ_COOK_IDS, rc, &e, NULL);
    c->ids = calloc(count ? count : 1, sizeof *c->ids);
    if (!c->ids) return out_of_memory(c);
    pcq_identifiers_begin(f->buf, f->len, &it);
    while (i < count && pcq_identifiers_next(&it, &c->ids[i]) == 1) i++;
    c->n_ids = i;
    return 0;
}

static int cmp_name_ix(const void *a, const void *b)
{
    const pcq_cook_name_ix *x = a, *y = b;
    if (x->counter_id != y->counter_id) return x->counter_id < y->counter_id ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The present entries of the names block sorted by (dwCounterId, index):
 * one sort, then a binary search per row. Entries are peeked without their
 * text (constant time): rows are matched by dwCounterId and labelled without
 * scanning texts, which a hostile block can make long and shared
 * (docs/decisions.md D11). 0, or 2 (out of memory). */
static int index_names(pcq_cooked *c)
{
    uint32_t i;
    pcq_string_entry e;
    c->name_ix = malloc(sizeof *c->name_ix * (c->names.num_counters ? c->names.num_counters : 1));
    if (!c->name_ix) return out_of_memory(c);
    for (i = 0; i < c->names.num_counters; i++) {
        pcq_strings_peek(&c->names, i, &e);
        if (!e.present) continue;
        c->name_ix[c->n_name_ix].counter_id = e.counter_id;
        c->name_ix[c->n_name_ix++].index = i;
    }
    qsort(c->name_ix, c->n_name_ix, sizeof *c->name_ix, cmp_name_ix);
    return 0;
}

/* Decodes every input; 0, or the exit status. */
static int decode_all(pcq_cooked *c)
{
    const pcq_cook_input *in = c->req->in;
    pcq_error e;
    int rc;
    memset(&e, 0, sizeof e);
    rc = pcq_decode_counterset_info(in[PCQ_COOK_INFO].buf, in[PCQ_COOK_INFO].len, NULL, &c->info, &e);
    if (rc != PCQ_OK) return bad_input(c, PCQ_COOK_INFO, rc, &e, NULL);
    if (in[PCQ_COOK_OLDER].buf) {
        rc = pcq_decode_data(in[PCQ_COOK_OLDER].buf, in[PCQ_COOK_OLDER].len, NULL, &c->older, &e);
        if (rc != PCQ_OK) return bad_input(c, PCQ_COOK_OLDER, rc, &e, NULL);
    }
    rc = pcq_decode_data(in[PCQ_COOK_NEWER].buf, in[PCQ_COOK_NEWER].len, NULL, &c->newer, &e);
    if (rc != PCQ_OK) return bad_input(c, PCQ_COOK_NEWER, rc, &e, NULL);
    if (in[PCQ_COOK_NAMES].buf) {
        rc = pcq_decode_strings(in[PCQ_COOK_NAMES].buf, in[PCQ_COOK_NAMES].len, NULL, &c->names, &e);
        if (rc != PCQ_OK) return bad_input(c, PCQ_COOK_NAMES, rc, &e, NULL);
        c->have_names = 1;
        if (index_names(c) != 0) return 2;
    }
    if (in[PCQ_COOK_IDS].buf && (rc = decode_ids(c)) != 0) return rc;
    return 0;
}

/* A block of type 1 or 4 takes its counter from the identifier whose Index
 * is its position; without --ids, block i holds counter i of INFO, which
 * runs out when the data has more blocks than INFO has counters. */
static const char *cook_hint(const pcq_cooked *c, const pcq_error *e, char *buf, size_t cap)
{
    if (c->req->in[PCQ_COOK_IDS].buf || !e->what || !strstr(e->what, "without an identifier")) return NULL;
    if (c->newer.num_counters > c->info.set.num_counters)
        snprintf(buf, cap,
                 "the data has %u blocks and the counterset-info %u counters: pass --ids "
                 "with the query's identifiers (opnum 5 reply)",
                 (unsigned)c->newer.num_counters, (unsigned)c->info.set.num_counters);
    else
        snprintf(buf, cap, "pass --ids with the query's identifiers (opnum 5 reply)");
    return buf;
}

/* §2.2.4.2: a PERF_SAMPLE_BASE value MUST be greater than 0 (the cook,
 * which knows the types, notes it on the row). */
static void base_zero_warnings(const pcq_cooked *c)
{
    const char *path = c->req->in[PCQ_COOK_NEWER].name ? c->req->in[PCQ_COOK_NEWER].name : "-";
    size_t i;
    for (i = 0; i < c->n_rows; i++)
        if (c->rows[i].notes & PCQ_CALC_NOTE_BASE_ZERO)
            fprintf(c->msg,
                    "pcqdump: %s: offset 0x%zx: non-conformant: a PERF_SAMPLE_BASE value is 0, "
                    "which §2.2.4.2 forbids (counter %u)\n",
                    path, c->rows[i].offset, (unsigned)c->rows[i].counter_id);
}

static int cook_rows(pcq_cooked *c)
{
    char hint[160];
    pcq_error e;
    size_t need = 0;
    const pcq_data *older = c->req->in[PCQ_COOK_OLDER].buf ? &c->older : NULL;
    unsigned flags = c->req->flags;
    int rc;
    memset(&e, 0, sizeof e);
    rc = pcq_calc_cook(&c->info, older, &c->newer, c->ids, c->n_ids, flags, NULL, 0, &need, &e);
    if (rc == PCQ_ERR_BUFFER_TOO_SMALL) {
        c->rows = calloc(need ? need : 1, sizeof *c->rows);
        if (!c->rows) return out_of_memory(c);
        rc = pcq_calc_cook(&c->info, older, &c->newer, c->ids, c->n_ids, flags, c->rows, need, &c->n_rows,
                           &e);
    }
    if (rc != PCQ_OK) return bad_input(c, PCQ_COOK_NEWER, rc, &e, cook_hint(c, &e, hint, sizeof hint));
    base_zero_warnings(c);
    return 0;
}

/* The first present entry naming counter id, or -1. */
static long find_name(const pcq_cooked *c, uint32_t id)
{
    size_t lo = 0, hi = c->n_name_ix;
    if (!c->have_names) return -1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->name_ix[mid].counter_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n_name_ix && c->name_ix[lo].counter_id == id ? (long)c->name_ix[lo].index : -1;
}

const pcq_string_entry *pcq_cook_counter_name(const pcq_cooked *c, uint32_t id, pcq_string_entry *tmp)
{
    long i = find_name(c, id);
    if (i < 0 || pcq_strings_get(&c->names, (uint32_t)i, tmp) != PCQ_OK) return NULL;
    return tmp;
}

/* Bytes of a UTF-8 label that must not reach a terminal or a CSV cell raw:
 * C0 and C1 controls, DEL, and the bidirectional formatting characters
 * (U+061C, U+200E-F, U+202A-E, U+2066-9) become '?', byte for byte. */
static void text_of_utf8(char *out)
{
    size_t i, k, n;
    for (i = 0; out[i]; i++) {
        const unsigned char *u = (const unsigned char *)out + i;
        n = 0;
        if (u[0] < 0x20 || u[0] == 0x7f)
            n = 1;
        else if (u[0] == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f)
            n = 2;
        else if (u[0] == 0xd8 && u[1] == 0x9c)
            n = 2;
        else if (u[0] == 0xe2 && u[1] == 0x80 && u[2] &&
                 ((u[2] >= 0x8e && u[2] <= 0x8f) || (u[2] >= 0xaa && u[2] <= 0xae)))
            n = 3;
        else if (u[0] == 0xe2 && u[1] == 0x81 && u[2] >= 0xa6 && u[2] <= 0xa9)
            n = 3;
        for (k = 0; k < n; k++) out[i + k] = '?';
        if (n) i += n - 1;
    }
}

/* UTF-16LE to a UTF-8 label (cap bytes), made safe as above. Returns 1 when
 * the text did not fit in cap. */
static int text_of(const uint8_t *p, size_t n, char *out, size_t cap)
{
    int cut = 0;
    /* each UTF-16 unit gives a UTF-8 byte or more: 2 x cap bytes fill out */
    if (n > 2 * cap) {
        n = 2 * cap;
        cut = 1;
    }
    if (pcq_utf16_to_utf8(p, n, out, cap, NULL) >= cap) cut = 1;
    text_of_utf8(out);
    return cut;
}

void pcq_cook_utf16(const uint8_t *p, size_t n, void (*put)(void *ctx, const char *s, size_t n), void *ctx)
{
    char utf8[3 * 64 + 1]; /* 64 units: at most 3 bytes each (a pair gives 4 for 2) */
    size_t take, got;
    n &= ~(size_t)1;
    while (n > 0) {
        take = n < 128 ? n : 128;
        if (take < n) { /* never between the halves of a surrogate pair */
            unsigned last = (unsigned)p[take - 2] | (unsigned)p[take - 1] << 8;
            if (last >= 0xD800u && last <= 0xDBFFu) take -= 2;
        }
        got = pcq_utf16_to_utf8(p, take, utf8, sizeof utf8, NULL);
        put(ctx, utf8, got < sizeof utf8 ? got : sizeof utf8 - 1);
        p += take;
        n -= take;
    }
}

static const char *aggregate_word(uint32_t f)
{
    switch (f) {
    case 1: return "total";
    case 2: return "average";
    case 3: return "minimum";
    default: return "maximum";
    }
}

/* FNV-1a of a name's bytes: tells apart two long names cut alike. */
static uint32_t name_hash(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    while (n--) h = (h ^ *p++) * 16777619u;
    return h;
}

/* Instance text of a row: "name", "name#n", an aggregate's "_Total", or "".
 * The characters a counter path gives a meaning are replaced, as in Windows
 * instance names: ( ) become [ ], and # \ / become _, so no name can forge
 * another path or another name#n. A name cut to fit ends in "~" and a hash
 * of the whole name, so two long names cut alike still differ. */
static void instance_label(const pcq_calc_row *r, char *out, size_t cap)
{
    static const char *const agg[5] = {"", "_Total", "_Average", "_Minimum", "_Maximum"};
    size_t len, i;
    int cut;
    out[0] = '\0';
    if (r->is_aggregate) {
        snprintf(out, cap, "%s", agg[r->aggregate_func <= 4 ? r->aggregate_func : 0]);
        return;
    }
    if (!r->has_instance) return;
    cut = text_of(r->instance.ptr, r->instance.len, out, cap - 24);
    for (i = 0; out[i]; i++) {
        if (out[i] == '(')
            out[i] = '[';
        else if (out[i] == ')')
            out[i] = ']';
        else if (out[i] == '#' || out[i] == '\\' || out[i] == '/')
            out[i] = '_';
    }
    len = strlen(out);
    if (cut) {
        snprintf(out + len, cap - len, "~%08x", (unsigned)name_hash(r->instance.ptr, r->instance.len));
        len = strlen(out);
    }
    if (r->dup_index > 0) snprintf(out + len, cap - len, "#%u", (unsigned)r->dup_index);
}

/* At most 2 cap bytes of the text are converted; a UTF-16 NUL becomes the
 * UTF-8 NUL that ends the label. */
void pcq_cook_counter_label(const pcq_cooked *c, uint32_t id, char *out, size_t cap)
{
    pcq_string_entry e;
    long i = find_name(c, id);
    size_t n;
    if (i < 0 || pcq_strings_peek(&c->names, (uint32_t)i, &e) != PCQ_OK) {
        snprintf(out, cap, "#%u", (unsigned)id);
        return;
    }
    n = c->names.block.len - e.text_offset; /* the text lies inside the validated block */
    if (n > 2 * cap) n = 2 * cap;
    pcq_utf16_to_utf8(e.text.ptr, n, out, cap, NULL);
    text_of_utf8(out);
}

void pcq_cook_set_label(const pcq_cooked *c, char *out, size_t cap)
{
    char g[PCQ_GUID_TEXT_SIZE];
    if (c->req->set_name) {
        snprintf(out, cap, "%s", c->req->set_name);
        return;
    }
    pcq_guid_to_text(&c->info.set.guid, g);
    snprintf(out, cap, "{%s}", g);
}

int pcq_cook_shown(const pcq_calc_row *r)
{
    const pcq_calc_type *d = pcq_calc_type_info(r->type);
    return !(r->attrib & 0x2u) && (d == NULL || d->displayable);
}

/* ---- --json ---- */
/* A UTF-8 string from text_of (no controls left) as a JSON string. */
static void json_utf8(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* The instance members of a row. */
static void json_instance(const pcq_calc_row *r, FILE *out)
{
    if (r->is_aggregate) {
        fprintf(out, ", \"aggregate\": \"%s\", \"instance\": null, \"instance_id\": null, \"instances\": %u",
                aggregate_word(r->aggregate_func), (unsigned)r->instances_used);
    } else if (r->has_instance) {
        fputs(", \"instance\": ", out);
        pcq_quote_utf16(out, r->instance.ptr, r->instance.len, PCQ_QUOTE_JSON);
        fprintf(out, ", \"instance_id\": %u", (unsigned)r->instance_id);
        if (r->dup_index > 0) {
            char label[PCQ_COOK_LABEL];
            instance_label(r, label, sizeof label);
            fprintf(out, ", \"dup_index\": %u, \"label\": ", (unsigned)r->dup_index);
            json_utf8(out, label);
        }
    } else {
        fputs(", \"instance\": null, \"instance_id\": null", out);
    }
}

static void print_json(const pcq_cooked *c, FILE *out)
{
    size_t i;
    pcq_string_entry tmp;
    fputs("{\"kind\": \"cooked\", \"values\": [", out);
    for (i = 0; i < c->n_rows; i++) {
        const pcq_calc_row *r = &c->rows[i];
        const pcq_string_entry *name = pcq_cook_counter_name(c, r->counter_id, &tmp);
        fprintf(out, "%s\n  {\"counter_id\": %u", i ? "," : "", (unsigned)r->counter_id);
        if (name) {
            fputs(", \"name\": ", out);
            pcq_quote_utf16(out, name->text.ptr, name->text.len, PCQ_QUOTE_JSON);
        }
        json_instance(r, out);
        fprintf(out, ", \"type\": %u, \"status\": ", (unsigned)r->type);
        if (r->status == PCQ_CALC_OK)
            fprintf(out, "\"ok\", \"value\": %.17g", r->value);
        else
            fprintf(out, "\"%s\"", pcq_calc_status_name(r->status));
        if (r->notes & PCQ_CALC_NOTE_WRAPPED) fputs(", \"wrapped\": true", out);
        if (r->notes & PCQ_CALC_NOTE_CAPPED) fputs(", \"capped\": true", out);
        fputc('}', out);
    }
    fputs(c->n_rows ? "\n]}\n" : "]}\n", out);
}

/* ---- --csv: typeperf's layout ---- */
static void csv_cell(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* typeperf: \\HOST\Set(instance)\Counter; without a host, the form of the
 * issue: \\Set(instance)\\Counter. */
static void csv_path(const pcq_cooked *c, const pcq_calc_row *r, const char *set, char *path, size_t cap)
{
    const char *host = c->req->host;
    char inst[PCQ_COOK_LABEL], ctr[PCQ_COOK_LABEL];
    int paren;
    instance_label(r, inst, sizeof inst);
    pcq_cook_counter_label(c, r->counter_id, ctr, sizeof ctr);
    paren = inst[0] || r->has_instance || r->is_aggregate;
    snprintf(path, cap, "\\\\%s%s%s%s%s%s", host ? host : "", host ? "\\" : "", set, paren ? "(" : "", inst,
             paren ? ")" : "");
    snprintf(path + strlen(path), cap - strlen(path), "%s%s", host ? "\\" : "\\\\", ctr);
}

static void print_csv(const pcq_cooked *c, FILE *out)
{
    char set[PCQ_GUID_TEXT_SIZE + 2], path[1024], val[64];
    const pcq_systemtime *st = &c->newer.system_time;
    size_t i;

    pcq_cook_set_label(c, set, sizeof set);
    csv_cell(out, "(PDH-CSV 4.0)");
    for (i = 0; i < c->n_rows; i++) {
        if (!pcq_cook_shown(&c->rows[i])) continue;
        csv_path(c, &c->rows[i], set, path, sizeof path);
        fputc(',', out);
        csv_cell(out, path);
    }
    fputc('\n', out);
    snprintf(val, sizeof val, "%02u/%02u/%04u %02u:%02u:%02u.%03u", st->month, st->day, st->year, st->hour,
             st->minute, st->second, st->milliseconds);
    csv_cell(out, val);
    for (i = 0; i < c->n_rows; i++) {
        const pcq_calc_row *r = &c->rows[i];
        if (!pcq_cook_shown(r)) continue;
        if (r->status == PCQ_CALC_OK)
            snprintf(val, sizeof val, "%.6f", r->value);
        else
            snprintf(val, sizeof val, " "); /* typeperf's empty value */
        fputc(',', out);
        csv_cell(out, val);
    }
    fputc('\n', out);
}

/* ---- the table for people ---- */
static void print_table(const pcq_cooked *c, FILE *out)
{
    char inst[PCQ_COOK_LABEL], ctr[PCQ_COOK_LABEL], val[PCQ_CALC_TEXT_SIZE];
    size_t i, hidden = 0;
    fprintf(out, "%-24s %-40s %s\n", "INSTANCE", "COUNTER", "VALUE");
    for (i = 0; i < c->n_rows; i++) {
        const pcq_calc_row *r = &c->rows[i];
        if (!pcq_cook_shown(r)) {
            hidden++;
            continue;
        }
        instance_label(r, inst, sizeof inst);
        pcq_cook_counter_label(c, r->counter_id, ctr, sizeof ctr);
        if (r->status == PCQ_CALC_OK)
            pcq_calc_format(r->value, r->type, r->attrib, val, sizeof val);
        else
            snprintf(val, sizeof val, "- (%s)", pcq_calc_status_text(r->status));
        fprintf(out, "%-24s %-40s %s\n", inst[0] ? inst : "-", ctr, val);
    }
    if (hidden) fprintf(out, "(%zu base, text or no-display values not shown; --json lists them)\n", hidden);
}

int pcq_cook_format_from_name(const char *name)
{
    static const char *const names[] = {"table", "csv", "json", "prometheus", "influx"};
    int i;
    for (i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (name && strcmp(name, names[i]) == 0) return i;
    return -1;
}

int pcq_cook_print(const pcq_cook_req *r, FILE *out, FILE *msg, pcq_cook_fail *fail)
{
    pcq_cooked c;
    int rc;
    memset(&c, 0, sizeof c);
    c.req = r;
    c.msg = msg;
    c.fail = fail;
    if (fail) {
        memset(fail, 0, sizeof *fail);
        fail->input = -1;
    }
    rc = decode_all(&c);
    if (rc == 0) rc = cook_rows(&c);
    if (rc == 0) {
        switch (r->format) {
        case PCQ_COOK_JSON: print_json(&c, out); break;
        case PCQ_COOK_CSV: print_csv(&c, out); break;
        case PCQ_COOK_PROMETHEUS: rc = pcq_cook_print_prometheus(&c, out); break;
        case PCQ_COOK_INFLUX: rc = pcq_cook_print_influx(&c, out, msg); break;
        default: print_table(&c, out); break;
        }
        if (rc != 0) rc = out_of_memory(&c);
    }
    free(c.ids);
    free(c.rows);
    free(c.name_ix);
    return rc;
}
