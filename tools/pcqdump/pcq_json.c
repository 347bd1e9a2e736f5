/* SPDX-License-Identifier: MIT */
/*
 * pcq_json.c - JSON for every buffer kind; see pcq_json.h.
 *
 * The buffer is walked step by step (pcq_walk_next) and each structure is
 * written as it comes, its fields taken from the library's layout
 * (pcq_struct_info_of, pcq_item_field): nothing here lists a structure's
 * fields. What is local is where a structure goes in its parent's object
 * (place_of) and which lists an object holds (lists_of), so that the shape
 * is the same for a whole buffer and for one the walk stopped in.
 */
#include "pcq_json.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

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

/* Code points that must never reach a terminal raw: C0 and C1 controls, DEL,
 * and the bidirectional formatting characters (Trojan Source, CVE-2021-42574).
 * JSON escapes them too: the value is the same, and JSON gets printed. */
static int must_escape(uint32_t cp, int style)
{
    (void)style;
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) return 1;
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

/* Writes well-formed UTF-8 (from pcq_utf16_to_utf8), escaping as above. */
static void put_escaped(FILE *out, const char *s, size_t n, int style)
{
    size_t i = 0, len;
    uint32_t cp;
    unsigned c;

    while (i < n) {
        c = (unsigned char)s[i];
        len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        cp = len == 1 ? c : c & (0x3Fu >> (len - 1));
        for (size_t k = 1; k < len && i + k < n; k++) cp = cp << 6 | ((unsigned char)s[i + k] & 0x3Fu);
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
        } else if (must_escape(cp, style)) {
            fprintf(out, "\\u%04" PRIx32, cp);
        } else {
            fwrite(s + i, 1, len <= n - i ? len : n - i, out);
        }
        i += len;
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
        assert(need < sizeof utf8); /* by the bound above: nothing is cut */
        put_escaped(out, utf8, need, style);
        pos += take;
    }
    fputc('"', out);
}

/* ------------------------------------------------------------------------ */
/* A writer that knows its open objects and lists                           */
/* ------------------------------------------------------------------------ */

#define JW_DEPTH 16 /* root, blocks, block, instances, instance, values, value, ... */
#define JW_LISTS 2  /* lists an object holds at most (a type 6 block) */

typedef struct jlevel {
    int object;                  /* '{' or, when 0, '[' */
    const char *key;             /* a list: its key in the parent object */
    int more;                    /* has an element or member already */
    const char *lists[JW_LISTS]; /* an object: lists not yet written */
} jlevel;

typedef struct jw {
    FILE *f;
    int depth; /* levels open */
    jlevel lv[JW_DEPTH];
    int ctx[JW_DEPTH]; /* walk depth d: the level its items go in */
    pcq_kind kind;
    uint32_t block_type; /* of the block being written */
    const uint8_t *buf;
    size_t len;
} jw;

/* The separator and "key": before a member (key NULL: an element). */
static void jw_key(jw *w, const char *key)
{
    jlevel *l = &w->lv[w->depth - 1];
    if (l->more) fputs(", ", w->f);
    l->more = 1;
    if (key) fprintf(w->f, "\"%s\": ", key);
}

static void jw_open(jw *w, const char *key, int object)
{
    jlevel *l;
    assert(w->depth < JW_DEPTH);
    if (w->depth > 0) jw_key(w, key);
    fputc(object ? '{' : '[', w->f);
    l = &w->lv[w->depth++];
    memset(l, 0, sizeof *l);
    l->object = object;
    l->key = key;
}

/* Writes, empty, the lists level k owes before list `key` (they can no
 * longer come) and, with `take`, drops `key` too (it is being written).
 * The caller has closed every level above k. */
static void jw_owed(jw *w, int k, const char *key, int take)
{
    jlevel *l = &w->lv[k];
    int i, at = -1, n = 0;
    for (i = 0; i < JW_LISTS && l->lists[i]; i++)
        if (at < 0 && strcmp(l->lists[i], key) == 0) at = i;
    if (at < 0) return;
    for (i = 0; i < JW_LISTS && l->lists[i]; i++) {
        if (i < at) {
            jw_key(w, l->lists[i]);
            fputs("[]", w->f);
        } else if (i > at || !take) {
            l->lists[n++] = l->lists[i];
        }
    }
    while (n < JW_LISTS) l->lists[n++] = NULL;
}

static void jw_close(jw *w)
{
    jlevel *l = &w->lv[w->depth - 1];
    int i;
    for (i = 0; l->object && i < JW_LISTS && l->lists[i]; i++) { /* owed lists, empty */
        jw_key(w, l->lists[i]);
        fputs("[]", w->f);
    }
    fputc(l->object ? '}' : ']', w->f);
    w->depth--;
}

/* Closes every level above k. */
static void jw_close_to(jw *w, int k)
{
    while (w->depth > k + 1) jw_close(w);
}

static void jw_owe(jw *w, int k, const char *a, const char *b)
{
    w->lv[k].lists[0] = a;
    w->lv[k].lists[1] = b;
}

/* ------------------------------------------------------------------------ */
/* Values, from the layout                                                  */
/* ------------------------------------------------------------------------ */

static void jw_guid(jw *w, const pcq_guid *g)
{
    char text[PCQ_GUID_TEXT_SIZE];
    pcq_guid_to_text(g, text);
    fprintf(w->f, "\"%s\"", text);
}

/* One field's value (key already written). The value of a _PERF_COUNTER_DATA
 * that is not 4 or 8 bytes is written as "hex" instead of "value". */
static void jw_value(jw *w, const pcq_field_value *v)
{
    size_t i;
    switch (v->kind) {
    case PCQ_V_UNSIGNED: fprintf(w->f, "%" PRIu64, v->u); break;
    case PCQ_V_SIGNED: fprintf(w->f, "%" PRId64, v->i); break;
    case PCQ_V_GUID: jw_guid(w, &v->guid); break;
    case PCQ_V_TEXT: pcq_quote_utf16(w->f, v->bytes.ptr, v->bytes.len, PCQ_QUOTE_JSON); break;
    case PCQ_V_ABSENT: fputs("null", w->f); break;
    case PCQ_V_WORD: fprintf(w->f, "\"%s\"", v->word); break;
    default: /* PCQ_V_BYTES */
        fputc('"', w->f);
        for (i = 0; i < v->bytes.len; i++) fprintf(w->f, "%02x", v->bytes.ptr[i]);
        fputc('"', w->f);
        break;
    }
}

/* Writes the fields of an item into the object open at the top. A dotted
 * key ("system_time.year") goes into a nested object of that name. */
static void jw_fields(jw *w, const pcq_item *it)
{
    const pcq_struct_info *s = pcq_struct_info_of(it->type);
    pcq_field_value v;
    const char *dot, *group = NULL;
    size_t i, glen = 0;

    for (i = 0; i < s->nfields; i++) {
        const pcq_field *f = &s->fields[i];
        const char *key = f->key;
        if (pcq_item_field(it, f, w->buf, w->len, &v) == PCQ_V_NONE) continue;
        dot = strchr(key, '.');
        if (group && (!dot || (size_t)(dot - key) != glen || strncmp(key, group, glen) != 0)) {
            jw_close(w);
            group = NULL;
        }
        if (dot && !group) { /* the group's object; closed before we return */
            char name[32];
            glen = (size_t)(dot - key) < sizeof name - 1 ? (size_t)(dot - key) : sizeof name - 1;
            memcpy(name, key, glen);
            name[glen] = '\0';
            jw_open(w, name, 1);
            w->lv[w->depth - 1].key = NULL;
            group = key;
        }
        if (dot) key = dot + 1;
        jw_key(w, f->type == PCQ_FT_VALUE && v.kind == PCQ_V_BYTES ? "hex" : key);
        jw_value(w, &v);
    }
    if (group) jw_close(w);
}

/* The scalar of a one-field structure (an element of "counter_ids", "guids"). */
static void jw_scalar(jw *w, const pcq_item *it)
{
    pcq_field_value v;
    if (pcq_item_field(it, &pcq_struct_info_of(it->type)->fields[0], w->buf, w->len, &v) == PCQ_V_NONE)
        return;
    jw_key(w, NULL);
    jw_value(w, &v);
}

/* ------------------------------------------------------------------------ */
/* Where each structure goes                                                */
/* ------------------------------------------------------------------------ */

enum {
    J_MERGE,
    J_OBJECT,
    J_LIST,
    J_SCALAR
};

typedef struct jplace {
    const char *key;
    int mode;
} jplace;

static jplace jp(const char *key, int mode)
{
    jplace p;
    p.key = key;
    p.mode = mode;
    return p;
}

/* Headers merge into the object that holds them (the buffer's, a block's);
 * repeated structures go in lists; a one-value structure is an object. */
static jplace place_of(const jw *w, const pcq_item *it)
{
    switch (it->type) {
    case PCQ_S_COUNTERSET_REG_INFO: return jp("counterset", J_OBJECT);
    case PCQ_S_COUNTER_REG_INFO:
        return w->kind == PCQ_KIND_COUNTER_INFO ? jp("counter", J_OBJECT) : jp("counters", J_LIST);
    case PCQ_S_STRING_COUNTER_HEADER: return jp("strings", J_LIST);
    case PCQ_S_COUNTERSET_GUID: return jp("guids", J_SCALAR);
    case PCQ_S_INSTANCE:
    case PCQ_S_DATA_INSTANCE: return jp("instances", J_LIST);
    case PCQ_S_COUNTER_IDENTIFIER: return jp("identifiers", J_LIST);
    case PCQ_S_COUNTER_HEADER: return jp("blocks", J_LIST);
    case PCQ_S_COUNTER_ID: return jp("counter_ids", J_SCALAR);
    case PCQ_S_COUNTER_DATA: return it->single ? jp("value", J_OBJECT) : jp("values", J_LIST);
    default: return jp(NULL, J_MERGE); /* the headers, _PERF_MULTI_*, a string, a GUID */
    }
}

/* The lists a whole structure's object holds, written empty if nothing
 * comes for them (so that the shape does not depend on the counts). */
static void lists_of(jw *w, const pcq_item *it, int k)
{
    if (it->partial) return;
    if (it->type == PCQ_S_COUNTER_HEADER) {
        w->block_type = it->u.block.type;
        switch (it->u.block.type) {
        case PCQ_PERF_MULTI_COUNTERS: jw_owe(w, k, "counter_ids", "values"); break;
        case PCQ_PERF_MULTI_INSTANCES: jw_owe(w, k, "instances", NULL); break;
        case PCQ_PERF_COUNTERSET: jw_owe(w, k, "counter_ids", "instances"); break;
        default: break;
        }
    }
    if (it->type == PCQ_S_DATA_INSTANCE && w->block_type == PCQ_PERF_COUNTERSET) jw_owe(w, k, "values", NULL);
}

/* The buffer's own lists, by kind. */
static void root_lists(jw *w)
{
    switch (w->kind) {
    case PCQ_KIND_COUNTERSET_INFO: jw_owe(w, 0, "counters", NULL); break;
    case PCQ_KIND_STRINGS: jw_owe(w, 0, "strings", NULL); break;
    case PCQ_KIND_GUIDS: jw_owe(w, 0, "guids", NULL); break;
    case PCQ_KIND_INSTANCES: jw_owe(w, 0, "instances", NULL); break;
    case PCQ_KIND_IDENTIFIERS: jw_owe(w, 0, "identifiers", NULL); break;
    case PCQ_KIND_DATA: jw_owe(w, 0, "blocks", NULL); break;
    default: break;
    }
}

/* Writes one item where it belongs. A partial item (the one the walk
 * stopped in) keeps the fields read before the error. */
static void json_item(jw *w, const pcq_item *it)
{
    jplace p = place_of(w, it);
    int parent = it->depth == 0 ? 0 : w->ctx[it->depth - 1];
    jlevel *top;

    if (it->type == PCQ_S_NONE || (it->partial && it->size == 0)) return; /* nothing of it read */
    top = w->depth > parent + 1 ? &w->lv[parent + 1] : NULL;              /* a list open in the parent */
    if (p.mode == J_LIST || p.mode == J_SCALAR) {
        if (top && !top->object && strcmp(top->key, p.key) == 0) { /* its list goes on */
            jw_close_to(w, parent + 1);
        } else {
            jw_close_to(w, parent);
            jw_owed(w, parent, p.key, 1);
            jw_open(w, p.key, 0);
        }
        if (p.mode == J_SCALAR) {
            jw_scalar(w, it);
            return;
        }
        jw_open(w, NULL, 1);
    } else {
        jw_close_to(w, parent);
        /* _PERF_MULTI_INSTANCES comes after the counter ids: those are done */
        if (it->type == PCQ_S_MULTI_INSTANCES) jw_owed(w, parent, "instances", 0);
        if (p.mode == J_OBJECT) jw_open(w, p.key, 1);
    }
    jw_fields(w, it);
    w->ctx[it->depth] = w->depth - 1;
    lists_of(w, it, w->depth - 1);
}

/* "error": {"code", "offset", "field", "message"} into the buffer's object. */
static void json_error(jw *w, const pcq_error *e)
{
    int i;
    jw_close_to(w, 0);
    for (i = 0; i < JW_LISTS && w->lv[0].lists[i]; i++) { /* the lists, empty, before it */
        jw_key(w, w->lv[0].lists[i]);
        fputs("[]", w->f);
    }
    w->lv[0].lists[0] = w->lv[0].lists[1] = NULL;
    jw_open(w, "error", 1);
    jw_key(w, "code");
    fprintf(w->f, "\"%s\"", pcq_status_name(e->code));
    jw_key(w, "offset");
    fprintf(w->f, "%zu", e->offset);
    jw_key(w, "field");
    if (e->what)
        fprintf(w->f, "\"%s\"", e->what);
    else
        fputs("null", w->f);
    jw_key(w, "message");
    fprintf(w->f, "\"%s\"", pcq_strerror(e->code));
    jw_close(w);
}

int pcq_json_emit(FILE *out, pcq_kind kind, const uint8_t *buf, size_t len, const pcq_opts *opts,
                  pcq_error *err)
{
    pcq_walk walk;
    pcq_item it;
    pcq_error scratch;
    jw w;
    int rc;

    if (!err) err = &scratch;
    memset(&w, 0, sizeof w);
    w.f = out;
    w.kind = kind;
    w.buf = buf;
    w.len = buf ? len : 0;
    pcq_walk_begin(&walk, kind, buf, len, opts);
    if (walk.err.code == PCQ_ERR_INVALID_ARG) {
        *err = walk.err;
        return walk.err.code;
    }
    jw_open(&w, NULL, 1);
    jw_key(&w, "kind");
    fprintf(out, "\"%s\"", pcq_kind_name(kind));
    root_lists(&w);
    while ((rc = pcq_walk_next(&walk, &it)) == 1) json_item(&w, &it);
    if (rc < 0) {
        json_item(&w, &it);
        json_error(&w, &walk.err);
        *err = walk.err;
    }
    jw_close_to(&w, 0);
    jw_close(&w);
    fputc('\n', out);
    return rc < 0 ? rc : PCQ_OK;
}
