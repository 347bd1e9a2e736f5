/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcq-track.c - state across frames for the PerflibV2 dissector; see
 * pcq-track.h. Buffers are kept as copies in wmem_file_scope(); the codec
 * decodes them again when they are needed (it never allocates).
 */
#include "pcq-track.h"

#include <string.h>

/* A buffer seen in a reply, kept for later frames. */
typedef struct kept {
    const guint8 *buf;
    size_t len;
} kept;

/* One query handle (§3.1.1.5): opnum 3 opens it, 7 adds counters, 5 lists
 * them with their Index, 6 samples them, 4 closes it. */
typedef struct handle_state {
    wmem_array_t *added; /* pcq_identifier from opnum 7 replies, in order */
    kept info;           /* the latest opnum 5 reply */
    kept last;           /* the latest well-formed opnum 6 reply */
} handle_state;

static wmem_map_t *handles; /* 20-byte handle -> handle_state */
static wmem_map_t *csinfo;  /* pcq_guid -> kept counterset-info (RequestCode 1) */
static wmem_map_t *csnames; /* pcq_guid -> kept counter names (RequestCode 5 or 10) */

/* ------------------------------------------------------------------------ */
/* Text                                                                     */
/* ------------------------------------------------------------------------ */

/* The code points pcqdump escapes too (tools/pcqdump/pcq_json.c): controls,
 * DEL and the bidi formatting characters (CVE-2021-42574). */
static gboolean must_escape(guint32 cp)
{
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) return TRUE;
    return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

char *pcq_text_escaped(wmem_allocator_t *pool, const guint8 *p, size_t n)
{
    size_t need = pcq_utf16_to_utf8(p, n, NULL, 0, NULL), i = 0, len, k;
    char *u = (char *)wmem_alloc(pool, need + 1);
    wmem_strbuf_t *sb = wmem_strbuf_sized_new(pool, need + 1, 0);
    guint32 cp;

    pcq_utf16_to_utf8(p, n, u, need + 1, NULL);
    while (i < need) { /* u is well-formed UTF-8: the codec made it */
        unsigned c = (unsigned char)u[i];
        len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (len > need - i) len = need - i;
        cp = len == 1 ? c : c & (0x3Fu >> (len - 1));
        for (k = 1; k < len; k++) cp = cp << 6 | ((unsigned char)u[i + k] & 0x3Fu);
        if (c == '\\')
            wmem_strbuf_append(sb, "\\\\");
        else if (must_escape(cp))
            wmem_strbuf_append_printf(sb, "\\u%04x", cp);
        else
            wmem_strbuf_append_len(sb, u + i, len);
        i += len;
    }
    return wmem_strbuf_finalize(sb);
}

/* ------------------------------------------------------------------------ */
/* Maps                                                                     */
/* ------------------------------------------------------------------------ */

static guint handle_hash(gconstpointer k)
{
    const guint8 *p = (const guint8 *)k;
    guint h = 2166136261u, i;
    for (i = 0; i < PCQ_HANDLE_SIZE; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static gboolean handle_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, PCQ_HANDLE_SIZE) == 0;
}

static guint guid_hash(gconstpointer k)
{
    const pcq_guid *g = (const pcq_guid *)k;
    return g->data1 ^ ((guint)g->data2 << 16 | g->data3) ^ ((guint)g->data4[4] << 24 | g->data4[7]);
}

static gboolean guid_equal(gconstpointer a, gconstpointer b)
{
    const pcq_guid *x = (const pcq_guid *)a, *y = (const pcq_guid *)b;
    return x->data1 == y->data1 && x->data2 == y->data2 && x->data3 == y->data3 &&
           memcmp(x->data4, y->data4, 8) == 0;
}

void pcq_track_init(void)
{
    /* emptied when a capture file is closed */
    handles = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), handle_hash, handle_equal);
    csinfo = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), guid_hash, guid_equal);
    csnames = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), guid_hash, guid_equal);
}

static handle_state *handle_of(const pcq_call *call, gboolean create)
{
    handle_state *h;
    if (!call || !call->has_handle) return NULL;
    h = (handle_state *)wmem_map_lookup(handles, call->handle);
    if (h || !create) return h;
    h = wmem_new0(wmem_file_scope(), handle_state);
    h->added = wmem_array_new(wmem_file_scope(), sizeof(pcq_identifier));
    wmem_map_insert(handles, wmem_memdup(wmem_file_scope(), call->handle, PCQ_HANDLE_SIZE), h);
    return h;
}

static kept keep(const guint8 *buf, size_t len)
{
    kept k;
    k.buf = (const guint8 *)wmem_memdup(wmem_file_scope(), len ? buf : (const guint8 *)"", len ? len : 1);
    k.len = len;
    return k;
}

static void keep_by_guid(wmem_map_t *map, const pcq_guid *g, const guint8 *buf, size_t len)
{
    kept *k = wmem_new(wmem_file_scope(), kept);
    *k = keep(buf, len);
    wmem_map_insert(map, wmem_memdup(wmem_file_scope(), g, sizeof *g), k);
}

/* ------------------------------------------------------------------------ */
/* Replies                                                                  */
/* ------------------------------------------------------------------------ */

/* Two identifiers name the same counter of the same instance. */
static gboolean same_counter(const pcq_identifier *a, const pcq_identifier *b)
{
    return guid_equal(&a->guid, &b->guid) && a->counter_id == b->counter_id &&
           a->instance_id == b->instance_id && a->name.len == b->name.len &&
           memcmp(a->name.ptr, b->name.ptr, a->name.len) == 0;
}

/* Drops the first added identifier that names id's counter (dwAdd 0). */
static void remove_counter(handle_state *h, const pcq_identifier *id)
{
    wmem_array_t *left = wmem_array_new(wmem_file_scope(), sizeof(pcq_identifier));
    guint i, n = wmem_array_get_count(h->added);
    gboolean found = FALSE;

    for (i = 0; i < n; i++) {
        const pcq_identifier *a = (const pcq_identifier *)wmem_array_index(h->added, i);
        if (!found && same_counter(a, id))
            found = TRUE;
        else
            wmem_array_append_one(left, *a);
    }
    h->added = left;
}

/* Opnum 7 (§3.1.4.1.7): the reply's Status says, per identifier, whether
 * it was added (dwAdd 1) or removed (dwAdd 0). */
static void track_validate(handle_state *h, const pcq_call *call, const guint8 *buf, size_t len)
{
    pcq_iter it;
    pcq_identifier id;
    kept k;

    if (pcq_decode_identifiers(buf, len, NULL, NULL, NULL) != PCQ_OK) return;
    k = keep(buf, len); /* the names point into it */
    pcq_identifiers_begin(k.buf, k.len, &it);
    while (pcq_identifiers_next(&it, &id) == 1) {
        if (id.status != 0) continue;
        if (call->add) {
            wmem_array_append_one(h->added, id);
            continue;
        }
        remove_counter(h, &id);
    }
}

void pcq_track_reply(packet_info *pinfo, const pcq_call *call, guint32 opnum, guint32 status,
                     const guint8 *buf, size_t len)
{
    handle_state *h;
    pcq_counterset_info csi;

    if (PINFO_FD_VISITED(pinfo) || !call || status != 0) return;
    if (opnum == 1 && call->has_request_code && call->request_code == 1 &&
        pcq_decode_counterset_info(buf, len, NULL, &csi, NULL) == PCQ_OK)
        keep_by_guid(csinfo, &csi.set.guid, buf, len); /* keyed by the GUID it describes */
    if (opnum == 1 && call->has_request_code && (call->request_code == 5 || call->request_code == 10) &&
        call->has_counterset && pcq_decode_strings(buf, len, NULL, NULL, NULL) == PCQ_OK)
        keep_by_guid(csnames, &call->counterset, buf, len);
    if (opnum == 5 && (h = handle_of(call, TRUE)) &&
        pcq_decode_identifiers(buf, len, NULL, NULL, NULL) == PCQ_OK)
        h->info = keep(buf, len);
    if (opnum == 7 && call->has_add && (h = handle_of(call, TRUE))) track_validate(h, call, buf, len);
    if ((opnum == 3 || opnum == 4) && (h = handle_of(call, FALSE))) { /* opened or closed: starts afresh */
        h->added = wmem_array_new(wmem_file_scope(), sizeof(pcq_identifier));
        h->info.buf = h->last.buf = NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* Cooking (what pcqdump --cook does, tools/pcqdump/cook.c)                 */
/* ------------------------------------------------------------------------ */

typedef struct cook_inputs {
    pcq_counterset_info info;
    pcq_data older, newer;
    pcq_identifier *ids;
    size_t n_ids;
    pcq_strings names;
    gboolean have_names;
} cook_inputs;

/* The identifiers of the handle: the opnum 5 reply, which carries each
 * counter's Index (§3.1.4.1.5); else those opnum 7 added, Index being the
 * order they were added in (the order of the blocks of a data reply). */
static const char *cook_ids(packet_info *pinfo, handle_state *h, cook_inputs *in)
{
    pcq_iter it;
    size_t count = 0, i;

    if (h->info.buf && pcq_decode_identifiers(h->info.buf, h->info.len, NULL, &count, NULL) == PCQ_OK) {
        in->ids = wmem_alloc_array(pinfo->pool, pcq_identifier, count ? count : 1);
        pcq_identifiers_begin(h->info.buf, h->info.len, &it);
        while (in->n_ids < count && pcq_identifiers_next(&it, &in->ids[in->n_ids]) == 1) in->n_ids++;
    } else {
        count = wmem_array_get_count(h->added);
        in->ids = wmem_alloc_array(pinfo->pool, pcq_identifier, count ? count : 1);
        for (i = 0; i < count; i++) {
            in->ids[i] = *(const pcq_identifier *)wmem_array_index(h->added, (guint)i);
            in->ids[i].index = (uint32_t)i;
        }
        in->n_ids = count;
    }
    if (in->n_ids == 0) return "no counters added to this query handle earlier in the capture (opnum 7 or 5)";
    for (i = 1; i < in->n_ids; i++)
        if (!guid_equal(&in->ids[i].guid, &in->ids[0].guid))
            return "the query's counters belong to several countersets: not cooked";
    return NULL;
}

/* Gathers what cooking needs; NULL, or why it cannot be done. */
static const char *cook_gather(packet_info *pinfo, handle_state *h, const guint8 *buf, size_t len,
                               cook_inputs *in)
{
    const char *why;
    kept *k;

    if (pcq_decode_data(buf, len, NULL, &in->newer, NULL) != PCQ_OK) return "malformed data: not cooked";
    if (!h) return "the query handle's request was not seen";
    if ((why = cook_ids(pinfo, h, in)) != NULL) return why;
    k = (kept *)wmem_map_lookup(csinfo, &in->ids[0].guid);
    if (!k || pcq_decode_counterset_info(k->buf, k->len, NULL, &in->info, NULL) != PCQ_OK)
        return "no registration info (opnum 1, RequestCode 1) of the counterset earlier in the capture";
    if (!h->last.buf || pcq_decode_data(h->last.buf, h->last.len, NULL, &in->older, NULL) != PCQ_OK)
        return "first data sample of this query handle: cooked values need the previous one";
    k = (kept *)wmem_map_lookup(csnames, &in->ids[0].guid);
    in->have_names = k && pcq_decode_strings(k->buf, k->len, NULL, &in->names, NULL) == PCQ_OK;
    return NULL;
}

/* Label text of a UTF-16LE name: at most LABEL_UNITS code units, to its
 * NUL, so that labelling every value costs a bounded amount whatever the
 * names' lengths (a hostile block can share one long text; docs D11). */
#define LABEL_UNITS 256

static const char *label_text(packet_info *pinfo, const guint8 *p, size_t avail)
{
    size_t n = 0, max = avail / 2 < LABEL_UNITS ? avail / 2 : LABEL_UNITS;
    const char *t;

    while (n < max && (p[2 * n] | p[2 * n + 1])) n++;
    t = pcq_text_escaped(pinfo->pool, p, 2 * n);
    return n == LABEL_UNITS && avail > 2 * n ? wmem_strdup_printf(pinfo->pool, "%s...", t) : t;
}

/* The first present entry of the names reply for each counter id: one pass
 * over the entries without reading their texts (pcq_strings_peek). */
static wmem_map_t *name_index(packet_info *pinfo, const cook_inputs *in)
{
    wmem_map_t *m = wmem_map_new(pinfo->pool, g_direct_hash, g_direct_equal);
    pcq_string_entry e;
    uint32_t i;

    for (i = 0; in->have_names && i < in->names.num_counters; i++) {
        if (pcq_strings_peek(&in->names, i, &e) != PCQ_OK || !e.present) continue;
        if (!wmem_map_contains(m, GUINT_TO_POINTER(e.counter_id)))
            wmem_map_insert(m, GUINT_TO_POINTER(e.counter_id), GUINT_TO_POINTER(i + 1));
    }
    return m;
}

/* The counter's name from the names reply (its first entry), or NULL. */
static const char *counter_name(packet_info *pinfo, const cook_inputs *in, wmem_map_t *names, guint32 id)
{
    guint i = GPOINTER_TO_UINT(wmem_map_lookup(names, GUINT_TO_POINTER(id)));
    pcq_string_entry e;

    if (!i || pcq_strings_peek(&in->names, i - 1, &e) != PCQ_OK) return NULL;
    return label_text(pinfo, in->names.block.ptr + e.text_offset, in->names.block.len - e.text_offset);
}

static const char *instance_text(packet_info *pinfo, const pcq_calc_row *r)
{
    static const char *const agg[5] = {"", "_Total", "_Average", "_Minimum", "_Maximum"};
    const char *name;

    if (r->is_aggregate) return agg[r->aggregate_func <= 4 ? r->aggregate_func : 0];
    if (!r->has_instance) return NULL;
    name = label_text(pinfo, r->instance.ptr, r->instance.len);
    return r->dup_index ? wmem_strdup_printf(pinfo->pool, "%s#%u", name, (unsigned)r->dup_index) : name;
}

/* "37.5 % (% Processor Time, _Total)": pcq_calc_format's text, then the
 * counter (its name, or #id) and the instance. */
static const char *row_label(packet_info *pinfo, const cook_inputs *in, wmem_map_t *names,
                             const pcq_calc_row *r)
{
    char val[PCQ_CALC_TEXT_SIZE];
    const char *name = counter_name(pinfo, in, names, r->counter_id), *inst = instance_text(pinfo, r);
    char *who = name ? wmem_strdup(pinfo->pool, name) : wmem_strdup_printf(pinfo->pool, "#%u", r->counter_id);

    if (r->status == PCQ_CALC_OK)
        pcq_calc_format(r->value, r->type, r->attrib, val, sizeof val);
    else
        g_snprintf(val, sizeof val, "-");
    if (r->status != PCQ_CALC_OK)
        return wmem_strdup_printf(wmem_file_scope(), "%s%s%s: %s", who, inst ? ", " : "", inst ? inst : "",
                                  pcq_calc_status_text(r->status));
    return wmem_strdup_printf(wmem_file_scope(), "%s (%s%s%s)", val, who, inst ? ", " : "", inst ? inst : "");
}

static gint by_offset(gconstpointer a, gconstpointer b, gpointer unused)
{
    const pcq_cooked_value *x = (const pcq_cooked_value *)a, *y = (const pcq_cooked_value *)b;
    (void)unused;
    if (x->is_aggregate != y->is_aggregate) return x->is_aggregate - y->is_aggregate;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static pcq_cooked *cook_rows(packet_info *pinfo, const cook_inputs *in, pcq_cooked *out)
{
    pcq_calc_row *rows;
    wmem_map_t *names;
    size_t need = 0, i;
    pcq_error e;
    int rc;

    /* the flags of pcqdump --cook: percentages above 100 stay, as in perfmon */
    rc = pcq_calc_cook(&in->info, &in->older, &in->newer, in->ids, in->n_ids, PCQ_CALC_NOCAP100, NULL, 0,
                       &need, &e);
    if (rc != PCQ_ERR_BUFFER_TOO_SMALL && rc != PCQ_OK) {
        out->note = wmem_strdup_printf(wmem_file_scope(), "not cooked: %s (%s)", pcq_strerror(rc),
                                       e.what ? e.what : "");
        return out;
    }
    rows = wmem_alloc_array(pinfo->pool, pcq_calc_row, need ? need : 1);
    rc = pcq_calc_cook(&in->info, &in->older, &in->newer, in->ids, in->n_ids, PCQ_CALC_NOCAP100, rows, need,
                       &out->n, &e);
    if (rc != PCQ_OK) {
        out->n = 0;
        out->note = wmem_strdup_printf(wmem_file_scope(), "not cooked: %s", pcq_strerror(rc));
        return out;
    }
    out->v = wmem_alloc_array(wmem_file_scope(), pcq_cooked_value, out->n ? out->n : 1);
    names = name_index(pinfo, in);
    for (i = 0; i < out->n; i++) {
        out->v[i].offset = rows[i].is_aggregate ? 0 : rows[i].offset;
        out->v[i].status = rows[i].status;
        out->v[i].value = rows[i].value;
        out->v[i].is_aggregate = rows[i].is_aggregate;
        out->v[i].label = row_label(pinfo, in, names, &rows[i]);
    }
    /* wire order, aggregates last (g_qsort_with_data is stable) */
    g_qsort_with_data(out->v, (gint)out->n, sizeof *out->v, by_offset, NULL);
    return out;
}

pcq_cooked *pcq_track_cook(packet_info *pinfo, const pcq_call *call, const guint8 *buf, size_t len)
{
    pcq_cooked *out = wmem_new0(wmem_file_scope(), pcq_cooked);
    handle_state *h = handle_of(call, TRUE);
    cook_inputs in;
    const char *why;

    memset(&in, 0, sizeof in);
    why = cook_gather(pinfo, h, buf, len, &in);
    if (why)
        out->note = why;
    else
        cook_rows(pinfo, &in, out);
    /* this sample is the next one's older (only a well-formed one) */
    if (h && pcq_decode_data(buf, len, NULL, NULL, NULL) == PCQ_OK) h->last = keep(buf, len);
    return out;
}
