/*
 * pcq_json.c - JSON for every buffer kind; see pcq_json.h.
 *
 * Each kind first runs its pcq_decode_* with the caller's options, so that a
 * malformed buffer prints nothing at all; only then is the opening brace
 * written and the buffer walked with the library's iterators. Those cannot
 * fail on bytes that just decoded; if one ever does (a library bug), its error
 * is returned and the output is left unfinished.
 */
#include "pcq_json.h"

#include <assert.h>
#include <inttypes.h>

/* ------------------------------------------------------------------------ */
/* Text                                                                     */
/* ------------------------------------------------------------------------ */

/* UTF-16 code units converted per step. Each unit gives at most 3 UTF-8
 * bytes (a surrogate pair gives 4 for 2 units), hence the buffer below. */
#define QUOTE_UNITS 64

/* Bytes of the next chunk: whole code units, never ending between the two
 * halves of a surrogate pair (the high half waits for the next chunk). */
static size_t quote_chunk(const uint8_t *p, size_t n)
{
    size_t take = n < 2 * QUOTE_UNITS ? n : 2 * QUOTE_UNITS;
    unsigned last;

    if (take == n) return take;
    last = (unsigned)p[take - 2] | (unsigned)p[take - 1] << 8;
    if (last >= 0xD800u && last <= 0xDBFFu) take -= 2;
    return take;
}

static void put_escaped(FILE *out, const char *s, size_t n, int style)
{
    size_t i;
    unsigned c, next;

    for (i = 0; i < n; i++) {
        c = (unsigned char)s[i];
        next = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
        } else if (c < 0x20 || (style == PCQ_QUOTE_TERMINAL && c == 0x7F)) {
            fprintf(out, "\\u%04x", c);
        } else if (style == PCQ_QUOTE_TERMINAL && c == 0xC2 && next >= 0x80 && next <= 0x9F) {
            fprintf(out, "\\u%04x", next);   /* U+0080..U+009F, C1 controls */
            i++;
        } else {
            fputc((int)c, out);
        }
    }
}

void pcq_quote_utf16(FILE *out, const uint8_t *text, size_t nbytes, int style)
{
    char utf8[3 * QUOTE_UNITS + 1];
    size_t pos = 0, take, need;

    nbytes &= ~(size_t)1;
    fputc('"', out);
    while (pos < nbytes) {
        take = quote_chunk(text + pos, nbytes - pos);
        need = pcq_utf16_to_utf8(text + pos, take, utf8, sizeof utf8, NULL);
        assert(need < sizeof utf8);   /* by the bound above: nothing is cut */
        put_escaped(out, utf8, need, style);
        pos += take;
    }
    fputc('"', out);
}

/* ------------------------------------------------------------------------ */
/* A minimal writer: it only places commas and keys.                        */
/* ------------------------------------------------------------------------ */

#define JW_DEPTH 12   /* the deepest nesting, data, is 7 */

typedef struct jw {
    FILE *f;
    int depth;
    unsigned char more[JW_DEPTH];   /* the container at that depth has an item */
} jw;

/* The separator and "key": before a value (key is NULL inside arrays). */
static void jw_key(jw *w, const char *key)
{
    if (w->depth > 0) {
        if (w->more[w->depth - 1]) fputs(", ", w->f);
        w->more[w->depth - 1] = 1;
    }
    if (key) fprintf(w->f, "\"%s\": ", key);
}

static void jw_open(jw *w, const char *key, int bracket)
{
    assert(w->depth < JW_DEPTH);
    jw_key(w, key);
    fputc(bracket, w->f);
    w->more[w->depth++] = 0;
}

static void jw_close(jw *w, int bracket)
{
    assert(w->depth > 0);
    w->depth--;
    fputc(bracket, w->f);
}

static void jw_u64(jw *w, const char *key, uint64_t v)
{
    jw_key(w, key);
    fprintf(w->f, "%" PRIu64, v);
}

static void jw_i64(jw *w, const char *key, int64_t v)
{
    jw_key(w, key);
    fprintf(w->f, "%" PRId64, v);
}

/* A string known to need no escaping (a kind or convention name). */
static void jw_word(jw *w, const char *key, const char *s)
{
    jw_key(w, key);
    fprintf(w->f, "\"%s\"", s);
}

static void jw_guid(jw *w, const char *key, const pcq_guid *g)
{
    char text[PCQ_GUID_TEXT_SIZE];
    pcq_guid_to_text(g, text);
    jw_word(w, key, text);
}

static void jw_text(jw *w, const char *key, pcq_bytes s)
{
    jw_key(w, key);
    pcq_quote_utf16(w->f, s.ptr, s.len, PCQ_QUOTE_JSON);
}

static void jw_null(jw *w, const char *key)
{
    jw_key(w, key);
    fputs("null", w->f);
}

static void jw_hex(jw *w, const char *key, pcq_bytes s)
{
    size_t i;
    jw_key(w, key);
    fputc('"', w->f);
    for (i = 0; i < s.len; i++) fprintf(w->f, "%02x", s.ptr[i]);
    fputc('"', w->f);
}

/* {"kind": "<kind>", ... : the opening, once the buffer has decoded. */
static void json_head(jw *w, pcq_kind kind)
{
    jw_open(w, NULL, '{');
    jw_word(w, "kind", pcq_kind_name(kind));
}

static int json_tail(jw *w)
{
    jw_close(w, '}');
    fputc('\n', w->f);
    return PCQ_OK;
}

/* An iterator failed after the buffer had decoded: hand its error on. */
static int iter_failed(const pcq_iter *it, int rc, pcq_error *err)
{
    *err = it->err;
    return rc;
}

/* An indexed getter failed after the buffer had decoded (a library bug). */
static int get_failed(int rc, size_t offset, const char *what, pcq_error *err)
{
    err->code = rc;
    err->offset = offset;
    err->what = what;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Shared pieces                                                            */
/* ------------------------------------------------------------------------ */

static void json_counter(jw *w, const char *key, const pcq_counter_reg *c)
{
    jw_open(w, key, '{');
    jw_u64(w, "counter_id", c->counter_id);
    jw_u64(w, "type", c->type);
    jw_u64(w, "attrib", c->attrib);
    jw_u64(w, "detail_level", c->detail_level);
    jw_i64(w, "default_scale", c->default_scale);
    jw_u64(w, "base_counter_id", c->base_counter_id);
    jw_u64(w, "perf_time_id", c->perf_time_id);
    jw_u64(w, "perf_freq_id", c->perf_freq_id);
    jw_u64(w, "multi_id", c->multi_id);
    jw_u64(w, "aggregate_func", c->aggregate_func);
    jw_u64(w, "reserved", c->reserved);
    jw_close(w, '}');
}

/* A _PERF_COUNTER_DATA: an integer when it is 4 or 8 bytes, else hex. */
static void json_value(jw *w, const char *key, const pcq_value *v)
{
    jw_open(w, key, '{');
    jw_u64(w, "data_size", v->data_size);
    jw_u64(w, "size", v->size);
    if (v->is_int)
        jw_u64(w, "value", v->u64);
    else
        jw_hex(w, "hex", v->data);
    jw_close(w, '}');
}

static int json_values(jw *w, pcq_iter *it, pcq_error *err)
{
    pcq_value v;
    int rc;

    jw_open(w, "values", '[');
    while ((rc = pcq_values_next(it, &v)) == 1) json_value(w, NULL, &v);
    if (rc < 0) return iter_failed(it, rc, err);
    jw_close(w, ']');
    return PCQ_OK;
}

static void json_counter_ids(jw *w, const pcq_block *b)
{
    uint32_t i;

    jw_u64(w, "multi_size", b->multi_size);
    jw_u64(w, "num_counters", b->num_counters);
    jw_open(w, "counter_ids", '[');
    for (i = 0; i < b->num_counters; i++) jw_u64(w, NULL, pcq_block_counter_id(b, i));
    jw_close(w, ']');
}

/* ------------------------------------------------------------------------ */
/* One function per kind                                                    */
/* ------------------------------------------------------------------------ */

static int json_counterset_info(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                                pcq_error *err)
{
    pcq_counterset_info csi;
    pcq_counter_reg c;
    uint32_t i;
    int rc = pcq_decode_counterset_info(buf, len, opts, &csi, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_COUNTERSET_INFO);
    jw_open(w, "counterset", '{');
    jw_guid(w, "guid", &csi.set.guid);
    jw_u64(w, "counterset_type", csi.set.counterset_type);
    jw_u64(w, "detail_level", csi.set.detail_level);
    jw_u64(w, "num_counters", csi.set.num_counters);
    jw_u64(w, "instance_type", csi.set.instance_type);
    jw_close(w, '}');
    jw_open(w, "counters", '[');
    for (i = 0; i < csi.set.num_counters; i++) {
        rc = pcq_counterset_counter(&csi, i, &c);
        if (rc != PCQ_OK)
            return get_failed(rc, csi.counters_offset + 48u * (size_t)i,
                              "_PERF_COUNTER_REG_INFO", err);
        json_counter(w, NULL, &c);
    }
    jw_close(w, ']');
    return json_tail(w);
}

static int json_counter_info(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                             pcq_error *err)
{
    pcq_counter_reg c;
    int rc = pcq_decode_counter_info(buf, len, opts, &c, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_COUNTER_INFO);
    json_counter(w, "counter", &c);
    return json_tail(w);
}

static const char *convention_word(pcq_str_convention c)
{
    switch (c) {
    case PCQ_STROFF_WIN32: return "win32";
    case PCQ_STROFF_SPEC: return "spec";
    default: return "none";
    }
}

static int json_strings(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                        pcq_error *err)
{
    pcq_strings s;
    pcq_string_entry e;
    uint32_t i;
    int rc = pcq_decode_strings(buf, len, opts, &s, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_STRINGS);
    jw_u64(w, "size", s.size);
    jw_u64(w, "num_counters", s.num_counters);
    jw_word(w, "convention", convention_word(s.convention));
    jw_open(w, "strings", '[');
    for (i = 0; i < s.num_counters; i++) {
        rc = pcq_strings_get(&s, i, &e);
        if (rc != PCQ_OK)
            return get_failed(rc, 8u + 8u * (size_t)i, "_STRING_COUNTER_HEADER", err);
        jw_open(w, NULL, '{');
        jw_u64(w, "counter_id", e.counter_id);
        jw_u64(w, "offset", e.offset);
        if (e.present)
            jw_text(w, "text", e.text);
        else
            jw_null(w, "text");
        jw_close(w, '}');
    }
    jw_close(w, ']');
    return json_tail(w);
}

static int json_string(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                       pcq_error *err)
{
    pcq_bytes text;
    int rc = pcq_decode_string(buf, len, opts, &text, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_STRING);
    jw_text(w, "text", text);
    return json_tail(w);
}

static int json_guid(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                     pcq_error *err)
{
    pcq_guid g;
    int rc = pcq_decode_guid(buf, len, opts, &g, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_GUID);
    jw_guid(w, "guid", &g);
    return json_tail(w);
}

static int json_guids(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                      pcq_error *err)
{
    pcq_guid_array a;
    pcq_guid g;
    size_t i;
    int rc = pcq_decode_guids(buf, len, opts, &a, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_GUIDS);
    jw_open(w, "guids", '[');
    for (i = 0; i < a.count; i++) {
        rc = pcq_guids_get(&a, i, &g);
        if (rc != PCQ_OK) return get_failed(rc, 16u * i, "GUID", err);
        jw_guid(w, NULL, &g);
    }
    jw_close(w, ']');
    return json_tail(w);
}

static int json_instances(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                          pcq_error *err)
{
    pcq_iter it;
    pcq_instance inst;
    size_t count;
    int rc = pcq_decode_instances(buf, len, opts, &count, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_INSTANCES);
    jw_open(w, "instances", '[');
    pcq_instances_begin(buf, len, &it);
    while ((rc = pcq_instances_next(&it, &inst)) == 1) {
        jw_open(w, NULL, '{');
        jw_u64(w, "size", inst.size);
        jw_u64(w, "instance_id", inst.instance_id);
        jw_text(w, "name", inst.name);
        jw_close(w, '}');
    }
    if (rc < 0) return iter_failed(&it, rc, err);
    jw_close(w, ']');
    return json_tail(w);
}

static void json_identifier(jw *w, const pcq_identifier *id)
{
    jw_open(w, NULL, '{');
    jw_guid(w, "guid", &id->guid);
    jw_u64(w, "status", id->status);
    jw_u64(w, "size", id->size);
    jw_u64(w, "counter_id", id->counter_id);
    jw_u64(w, "instance_id", id->instance_id);
    jw_u64(w, "index", id->index);
    jw_u64(w, "reserved", id->reserved);
    jw_text(w, "name", id->name);
    jw_close(w, '}');
}

static int json_identifiers(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                            pcq_error *err)
{
    pcq_iter it;
    pcq_identifier id;
    size_t count;
    int rc = pcq_decode_identifiers(buf, len, opts, &count, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_IDENTIFIERS);
    jw_open(w, "identifiers", '[');
    pcq_identifiers_begin(buf, len, &it);
    while ((rc = pcq_identifiers_next(&it, &id)) == 1) json_identifier(w, &id);
    if (rc < 0) return iter_failed(&it, rc, err);
    jw_close(w, ']');
    return json_tail(w);
}

/* ------------------------------------------------------------------------ */
/* data                                                                     */
/* ------------------------------------------------------------------------ */

static void json_systemtime(jw *w, const pcq_systemtime *t)
{
    jw_open(w, "system_time", '{');
    jw_u64(w, "year", t->year);
    jw_u64(w, "month", t->month);
    jw_u64(w, "day_of_week", t->day_of_week);
    jw_u64(w, "day", t->day);
    jw_u64(w, "hour", t->hour);
    jw_u64(w, "minute", t->minute);
    jw_u64(w, "second", t->second);
    jw_u64(w, "milliseconds", t->milliseconds);
    jw_close(w, '}');
}

/* One instance of a type 4 block (its value) or a type 6 block (its values). */
static int json_data_instance(jw *w, const pcq_data *d, const pcq_block *b,
                              const pcq_data_instance *inst, pcq_error *err)
{
    pcq_iter it;
    int rc = PCQ_OK;

    jw_open(w, NULL, '{');
    jw_u64(w, "size", inst->size);
    jw_u64(w, "instance_id", inst->instance_id);
    jw_text(w, "name", inst->name);
    if (b->type == PCQ_PERF_MULTI_INSTANCES) {
        json_value(w, "value", &inst->value);
    } else {
        pcq_instance_values(d, inst, &it);
        rc = json_values(w, &it, err);
    }
    jw_close(w, '}');
    return rc;
}

static int json_block_instances(jw *w, const pcq_data *d, const pcq_block *b, pcq_error *err)
{
    pcq_iter it;
    pcq_data_instance inst;
    int rc;

    jw_u64(w, "instances_size", b->instances_size);
    jw_u64(w, "num_instances", b->num_instances);
    jw_open(w, "instances", '[');
    pcq_block_instances(d, b, &it);
    while ((rc = pcq_instances_of_block_next(&it, &inst)) == 1) {
        rc = json_data_instance(w, d, b, &inst, err);
        if (rc != PCQ_OK) return rc;
    }
    if (rc < 0) return iter_failed(&it, rc, err);
    jw_close(w, ']');
    return PCQ_OK;
}

static int json_block(jw *w, const pcq_data *d, const pcq_block *b, pcq_error *err)
{
    pcq_iter it;
    int rc = PCQ_OK;

    jw_open(w, NULL, '{');
    jw_u64(w, "status", b->status);
    jw_u64(w, "type", b->type);
    jw_u64(w, "size", b->size);
    jw_u64(w, "reserved", b->reserved);
    switch (b->type) {
    case PCQ_PERF_SINGLE_COUNTER:
        json_value(w, "value", &b->value);
        break;
    case PCQ_PERF_MULTI_COUNTERS:
        json_counter_ids(w, b);
        pcq_block_values(d, b, &it);
        rc = json_values(w, &it, err);
        break;
    case PCQ_PERF_MULTI_INSTANCES:
        rc = json_block_instances(w, d, b, err);
        break;
    case PCQ_PERF_COUNTERSET:
        json_counter_ids(w, b);
        rc = json_block_instances(w, d, b, err);
        break;
    default:   /* PERF_ERROR_RETURN: the header is all there is */
        break;
    }
    jw_close(w, '}');
    return rc;
}

static int json_data(jw *w, const uint8_t *buf, size_t len, const pcq_opts *opts,
                     pcq_error *err)
{
    pcq_data d;
    pcq_iter it;
    pcq_block b;
    int rc = pcq_decode_data(buf, len, opts, &d, err);

    if (rc != PCQ_OK) return rc;
    json_head(w, PCQ_KIND_DATA);
    jw_u64(w, "total_size", d.total_size);
    jw_u64(w, "num_counters", d.num_counters);
    jw_u64(w, "perf_time_stamp", d.perf_time_stamp);
    jw_u64(w, "perf_time_100nsec", d.perf_time_100nsec);
    jw_u64(w, "perf_freq", d.perf_freq);
    json_systemtime(w, &d.system_time);
    jw_open(w, "blocks", '[');
    pcq_data_blocks(&d, &it);
    while ((rc = pcq_blocks_next(&it, &b)) == 1) {
        rc = json_block(w, &d, &b, err);
        if (rc != PCQ_OK) return rc;
    }
    if (rc < 0) return iter_failed(&it, rc, err);
    jw_close(w, ']');
    return json_tail(w);
}

/* ------------------------------------------------------------------------ */

int pcq_json_emit(FILE *out, pcq_kind kind, const uint8_t *buf, size_t len,
                  const pcq_opts *opts, pcq_error *err)
{
    pcq_error scratch;
    jw w;

    w.f = out;
    w.depth = 0;
    if (!err) err = &scratch;
    switch (kind) {
    case PCQ_KIND_COUNTERSET_INFO: return json_counterset_info(&w, buf, len, opts, err);
    case PCQ_KIND_COUNTER_INFO: return json_counter_info(&w, buf, len, opts, err);
    case PCQ_KIND_STRINGS: return json_strings(&w, buf, len, opts, err);
    case PCQ_KIND_STRING: return json_string(&w, buf, len, opts, err);
    case PCQ_KIND_GUID: return json_guid(&w, buf, len, opts, err);
    case PCQ_KIND_GUIDS: return json_guids(&w, buf, len, opts, err);
    case PCQ_KIND_INSTANCES: return json_instances(&w, buf, len, opts, err);
    case PCQ_KIND_IDENTIFIERS: return json_identifiers(&w, buf, len, opts, err);
    case PCQ_KIND_DATA: return json_data(&w, buf, len, opts, err);
    default: return get_failed(PCQ_ERR_INVALID_ARG, 0, "kind", err);
    }
}
