/*
 * pcq_writer.c - the encoder half of pcq_codec.h: pcq_writer and pcq_reencode.
 *
 * Writes the canonical layout Windows produces (NOTES §2): every structure
 * starts on an 8-byte boundary and ends with zero padding, size fields count
 * that padding, and sizes and counts that depend on what follows are
 * back-patched once it is known. All stores are byte-wise little-endian, so
 * neither the host's byte order nor the alignment of dst matters.
 *
 * Capacity: nothing is ever stored at or past dst + cap. w->len still counts
 * every byte, so pcq_writer_finish() can report the size needed; with
 * dst == NULL the whole run is a sizing pass. Source bytes (names, values)
 * are only read for the part that is actually stored, or to validate a name.
 *
 * This file will be folded into pcq_codec.c: every file-local name starts
 * with wr_ / WR_, and nothing non-static exists that the header does not
 * declare.
 */
#include "pcq_codec.h"

#ifndef PCQ_NO_ENCODER

#include <string.h>

/* Fixed structure sizes: [MS-PCQ] appendix "computed structure sizes". */
#define WR_GUID_SIZE         16u
#define WR_COUNTERSET_REG    32u   /* _PERF_COUNTERSET_REG_INFO, §2.2.4.1 */
#define WR_COUNTER_REG       48u   /* _PERF_COUNTER_REG_INFO, §2.2.4.2 */
#define WR_STRING_HDR         8u   /* _STRING_BUFFER_HEADER, §2.2.4.3 */
#define WR_STRING_ENTRY       8u   /* _STRING_COUNTER_HEADER, §2.2.4.4 */
#define WR_INSTANCE_HDR       8u   /* _PERF_INSTANCE_HEADER, §2.2.4.5 */
#define WR_IDENTIFIER        40u   /* _PERF_COUNTER_IDENTIFIER, §2.2.4.6 */
#define WR_COUNTER_HDR       16u   /* _PERF_COUNTER_HEADER, §2.2.4.8 */
#define WR_COUNTER_DATA       8u   /* _PERF_COUNTER_DATA, §2.2.4.9 */
#define WR_MULTI              8u   /* _PERF_MULTI_INSTANCES / _COUNTERS, §2.2.4.10-11 */
#define WR_MIN_VALUE_AREA    16u   /* NOTES §2: _PERF_COUNTER_DATA.dwSize >= 8 + 8 */
#define WR_NUL                2u   /* a UTF-16 NUL */
#define WR_ABSENT    PCQ_STRING_ABSENT

/* w->state: what is open. Top-level structures only go in WR_TOP. */
#define WR_TOP   0   /* nothing open */
#define WR_DATA  1   /* a _PERF_DATA_HEADER is open, between blocks */
#define WR_BLOCK 2   /* a _PERF_COUNTER_HEADER block is open */

/* ---- status and checked arithmetic ------------------------------------ */

/* Records the first error only (errors are sticky) and returns it. */
static int wr_fail(pcq_writer *w, int code)
{
    if (w->err == PCQ_OK)
        w->err = code;
    return w->err;
}

/* The entry check of every call: a writer, no earlier error, right state. */
static int wr_enter(pcq_writer *w, int state)
{
    if (w == NULL)
        return PCQ_ERR_INVALID_ARG;
    if (w->err != PCQ_OK)
        return w->err;
    if (w->state != state)
        return wr_fail(w, PCQ_ERR_STATE);
    return PCQ_OK;
}

static int wr_add(size_t a, size_t b, size_t *sum)
{
    if (a > SIZE_MAX - b)
        return 0;
    *sum = a + b;
    return 1;
}

static int wr_mul(size_t a, size_t b, size_t *product)
{
    if (b != 0 && a > SIZE_MAX / b)
        return 0;
    *product = a * b;
    return 1;
}

/* Rounds up to the next multiple of 8 (§2.2.4: structures begin on 8-byte
 * boundaries, so every padded size is a multiple of 8). */
static int wr_round8(size_t a, size_t *out)
{
    if (a > SIZE_MAX - 7)
        return 0;
    *out = (a + 7) & ~(size_t)7;
    return 1;
}

/* Whether v fits a 32-bit wire field. The cast keeps a 32-bit size_t from
 * turning this into an always-true comparison warning. */
static int wr_fits32(size_t v)
{
    return (uint64_t)v <= 0xFFFFFFFFu;
}

/* ---- raw output --------------------------------------------------------- */

/* Stores one byte at offset at, unless that lies outside [dst, dst + cap). */
static void wr_store(pcq_writer *w, size_t at, uint8_t b)
{
    if (w->dst != NULL && at < w->cap)
        w->dst[at] = b;
}

/* Little-endian 32-bit store at an offset already reserved; used both for
 * appending and for back-patching (a patch past cap is thus skipped). */
static void wr_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void wr_store32(pcq_writer *w, size_t at, uint32_t v)
{
    if (w->dst != NULL && at < w->cap && w->cap - at >= 4) {
        wr_le32(w->dst + at, v);     /* the common case: all four bytes fit */
        return;
    }
    wr_store(w, at, (uint8_t)v);
    wr_store(w, at + 1, (uint8_t)(v >> 8));
    wr_store(w, at + 2, (uint8_t)(v >> 16));
    wr_store(w, at + 3, (uint8_t)(v >> 24));
}

/* Reserves n bytes at the end of the output; 0 if an earlier error stands
 * or if w->len would wrap (PCQ_ERR_OVERFLOW). */
static int wr_reserve(pcq_writer *w, size_t n, size_t *at)
{
    size_t end;

    if (w->err != PCQ_OK)
        return 0;
    if (!wr_add(w->len, n, &end)) {
        wr_fail(w, PCQ_ERR_OVERFLOW);
        return 0;
    }
    *at = w->len;
    w->len = end;
    return 1;
}

/* Appends n bytes from p, or n zeros when p is NULL. Only the part below cap
 * is copied, so p is never read for bytes that are not stored. */
static void wr_bytes(pcq_writer *w, const uint8_t *p, size_t n)
{
    size_t at, room;

    if (!wr_reserve(w, n, &at) || w->dst == NULL || at >= w->cap)
        return;
    room = w->cap - at;
    if (room > n)
        room = n;
    if (room == 0)
        return;
    if (p != NULL)
        memcpy(w->dst + at, p, room);
    else
        memset(w->dst + at, 0, room);
}

static void wr_u16(pcq_writer *w, uint16_t v)
{
    size_t at;

    if (!wr_reserve(w, 2, &at))
        return;
    wr_store(w, at, (uint8_t)v);
    wr_store(w, at + 1, (uint8_t)(v >> 8));
}

static void wr_u32(pcq_writer *w, uint32_t v)
{
    size_t at;

    if (wr_reserve(w, 4, &at))
        wr_store32(w, at, v);
}

static void wr_u64(pcq_writer *w, uint64_t v)
{
    wr_u32(w, (uint32_t)v);
    wr_u32(w, (uint32_t)(v >> 32));
}

/* [MS-DTYP] GUID: Data1..Data3 little-endian, Data4 as-is. */
static void wr_guid(pcq_writer *w, const pcq_guid *g)
{
    wr_u32(w, g->data1);
    wr_u16(w, g->data2);
    wr_u16(w, g->data3);
    wr_bytes(w, g->data4, sizeof g->data4);
}

/* ---- names -------------------------------------------------------------- */

/* A UTF-16LE text handed in without its NUL must be whole code units and
 * hold no U+0000: a reader stops at the first one (docs/validation.md,
 * PCQ_ERR_NO_NUL), so the text would not come back as written. */
static int wr_check_text(const uint8_t *p, size_t n)
{
    size_t i;

    if ((p == NULL && n != 0) || n % 2 != 0)
        return PCQ_ERR_INVALID_ARG;
    for (i = 0; i < n; i += 2)
        if (p[i] == 0 && p[i + 1] == 0)
            return PCQ_ERR_INVALID_ARG;
    return PCQ_OK;
}

/* Size of a header of `header` bytes, a name, its NUL and zero padding to 8:
 * _PERF_INSTANCE_HEADER.Size (§3.1.4.1.3) and _PERF_COUNTER_IDENTIFIER.Size
 * (§3.1.4.1.5) MUST be 8-byte multiples that cover the name. */
static int wr_named_size(pcq_writer *w, size_t header, const uint8_t *name, size_t n,
                         uint32_t *size)
{
    size_t s;
    int rc;

    if (!wr_add(header, n, &s) || !wr_add(s, WR_NUL, &s) || !wr_round8(s, &s) ||
        !wr_fits32(s))
        return wr_fail(w, PCQ_ERR_OVERFLOW);
    rc = wr_check_text(name, n);
    if (rc != PCQ_OK)
        return wr_fail(w, rc);
    *size = (uint32_t)s;
    return PCQ_OK;
}

/* The name, then its NUL and the zero padding: `room` bytes in all. The
 * spec wants zeros after identifiers and data-block instance names (§3.1.4.1.5,
 * Figure 8) and leaves opnum-2 padding uninitialized; zeros everywhere. */
static void wr_name(pcq_writer *w, const uint8_t *name, size_t n, size_t room)
{
    wr_bytes(w, name, n);
    wr_bytes(w, NULL, room - n);
}

/* ---- writer lifecycle --------------------------------------------------- */

void pcq_writer_init(pcq_writer *w, void *dst, size_t cap)
{
    if (w == NULL)
        return;
    memset(w, 0, sizeof *w);
    w->dst = (uint8_t *)dst;
    w->cap = dst != NULL ? cap : 0;   /* no buffer: a sizing pass */
    w->err = PCQ_OK;
    w->state = WR_TOP;
}

int pcq_writer_finish(pcq_writer *w, size_t *len)
{
    if (len != NULL)
        *len = 0;
    if (w == NULL)
        return PCQ_ERR_INVALID_ARG;
    if (w->err != PCQ_OK)
        return w->err;
    if (w->state != WR_TOP)            /* a data buffer or block still open */
        return PCQ_ERR_STATE;
    if (len != NULL)
        *len = w->len;
    if (w->dst != NULL && w->len > w->cap)
        return PCQ_ERR_BUFFER_TOO_SMALL;
    return PCQ_OK;
}

/* ---- registration info, strings, GUIDs, instances, identifiers ---------- */

/* §2.2.4.1, 32 bytes (Figure 1). NumCounters is written as given. */
int pcq_put_counterset_reg(pcq_writer *w, const pcq_counterset_reg *set)
{
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK)
        return rc;
    if (set == NULL)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    wr_guid(w, &set->guid);
    wr_u32(w, set->counterset_type);
    wr_u32(w, set->detail_level);
    wr_u32(w, set->num_counters);
    wr_u32(w, set->instance_type);
    return w->err;
}

/* §2.2.4.2, 48 bytes; Attrib is the 64-bit field at offset 8. */
int pcq_put_counter_reg(pcq_writer *w, const pcq_counter_reg *c)
{
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK)
        return rc;
    if (c == NULL)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    wr_u32(w, c->counter_id);
    wr_u32(w, c->type);
    wr_u64(w, c->attrib);
    wr_u32(w, c->detail_level);
    wr_u32(w, (uint32_t)c->default_scale);   /* two's complement, -10..10 */
    wr_u32(w, c->base_counter_id);
    wr_u32(w, c->perf_time_id);
    wr_u32(w, c->perf_freq_id);
    wr_u32(w, c->multi_id);
    wr_u32(w, c->aggregate_func);
    wr_u32(w, c->reserved);
    return w->err;
}

/* §3.1.4.1.2 RequestCode 3, 4, 7, 9: a NUL-terminated string, nothing after. */
int pcq_put_string(pcq_writer *w, const uint8_t *utf16, size_t nbytes)
{
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK)
        return rc;
    rc = wr_check_text(utf16, nbytes);
    if (rc != PCQ_OK)
        return wr_fail(w, rc);
    wr_bytes(w, utf16, nbytes);
    wr_bytes(w, NULL, WR_NUL);
    return w->err;
}

int pcq_put_guid(pcq_writer *w, const pcq_guid *g)
{
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK)
        return rc;
    if (g == NULL)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    wr_guid(w, g);
    return w->err;
}

/* One element of the opnum-2 instance array (§3.1.4.1.3, Figure 3). */
int pcq_put_instance(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                             size_t nbytes)
{
    uint32_t size;
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK)
        return rc;
    if (wr_named_size(w, WR_INSTANCE_HDR, name16, nbytes, &size) != PCQ_OK)
        return w->err;
    wr_u32(w, size);
    wr_u32(w, instance_id);
    wr_name(w, name16, nbytes, size - WR_INSTANCE_HDR);
    return w->err;
}

/* One _PERF_COUNTER_IDENTIFIER and its name (§2.2.4.6, §3.1.4.1.5 Figure 4).
 * id->size is ignored: Size is computed. Status, Index and Reserved are
 * written as given (opnum 7 echoes them back). */
int pcq_put_identifier(pcq_writer *w, const pcq_identifier *id)
{
    uint32_t size;
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK)
        return rc;
    if (id == NULL)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (wr_named_size(w, WR_IDENTIFIER, id->name.ptr, id->name.len, &size) != PCQ_OK)
        return w->err;
    wr_guid(w, &id->guid);
    wr_u32(w, id->status);
    wr_u32(w, size);
    wr_u32(w, id->counter_id);
    wr_u32(w, id->instance_id);
    wr_u32(w, id->index);
    wr_u32(w, id->reserved);
    wr_name(w, id->name.ptr, id->name.len, size - WR_IDENTIFIER);
    return w->err;
}

/* ---- string blocks (§2.2.4.3, §2.2.4.4, §3.1.4.1.2 Figure 2, NOTES §3) --- */

/* Entries come through a getter so pcq_reencode can feed them straight from
 * a decoded block without an array of its own (no allocation). */
typedef int (*wr_entry_fn)(const void *ctx, uint32_t i, pcq_string_entry *out);

static int wr_entry_from_array(const void *ctx, uint32_t i, pcq_string_entry *out)
{
    *out = ((const pcq_string_entry *)ctx)[i];
    return PCQ_OK;
}

/* Bytes taken by the present strings, each with its NUL; checks each text. */
static int wr_strings_text_size(pcq_writer *w, wr_entry_fn get, const void *ctx, uint32_t n,
                                size_t *sum)
{
    pcq_string_entry e;
    uint32_t i;
    int rc;

    *sum = 0;
    for (i = 0; i < n; i++) {
        rc = get(ctx, i, &e);
        if (rc != PCQ_OK)
            return wr_fail(w, rc);
        if (!e.present)
            continue;
        /* Sizes first: a text too long for dwSize is refused unread. */
        if (!wr_add(*sum, e.text.len, sum) || !wr_add(*sum, WR_NUL, sum) || !wr_fits32(*sum))
            return wr_fail(w, PCQ_ERR_OVERFLOW);
        rc = wr_check_text(e.text.ptr, e.text.len);
        if (rc != PCQ_OK)
            return wr_fail(w, rc);
    }
    return PCQ_OK;
}

/* The _STRING_COUNTER_HEADER array. Strings are packed in entry order, so
 * each dwOffset is the running text size plus the convention's base: the
 * block start (Win32, perflib.h) or the end of this array (§2.2.4.4). */
static void wr_strings_entries(pcq_writer *w, wr_entry_fn get, const void *ctx, uint32_t n,
                               size_t base)
{
    pcq_string_entry e;
    size_t at = base;
    uint32_t i;

    for (i = 0; i < n && w->err == PCQ_OK; i++) {
        if (get(ctx, i, &e) != PCQ_OK)
            return;   /* cannot happen: the sizing pass saw every entry */
        wr_u32(w, e.counter_id);
        wr_u32(w, e.present ? (uint32_t)at : WR_ABSENT);
        if (e.present)
            at += e.text.len + WR_NUL;   /* bounded by the checked total */
    }
}

static void wr_strings_texts(pcq_writer *w, wr_entry_fn get, const void *ctx, uint32_t n)
{
    pcq_string_entry e;
    uint32_t i;

    for (i = 0; i < n && w->err == PCQ_OK; i++) {
        if (get(ctx, i, &e) != PCQ_OK || !e.present)
            continue;
        wr_bytes(w, e.text.ptr, e.text.len);
        wr_bytes(w, NULL, WR_NUL);
    }
}

static int wr_strings(pcq_writer *w, wr_entry_fn get, const void *ctx, uint32_t n,
                      pcq_str_convention convention)
{
    size_t head, text, total;
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK)
        return rc;
    if (convention != PCQ_STROFF_NONE && convention != PCQ_STROFF_SPEC &&
        convention != PCQ_STROFF_WIN32)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (n > PCQ_MAX_COUNTERS)
        return wr_fail(w, PCQ_ERR_LIMIT);
    if (!wr_mul(n, WR_STRING_ENTRY, &head) || !wr_add(head, WR_STRING_HDR, &head))
        return wr_fail(w, PCQ_ERR_OVERFLOW);
    if (wr_strings_text_size(w, get, ctx, n, &text) != PCQ_OK)
        return w->err;
    /* §3.1.4.1.2: the block "MUST be 8-byte aligned"; dwSize counts the padding. */
    if (!wr_add(head, text, &total) || !wr_round8(total, &total) || !wr_fits32(total))
        return wr_fail(w, PCQ_ERR_OVERFLOW);
    wr_u32(w, (uint32_t)total);
    wr_u32(w, n);
    wr_strings_entries(w, get, ctx, n, convention == PCQ_STROFF_SPEC ? 0 : head);
    wr_strings_texts(w, get, ctx, n);
    wr_bytes(w, NULL, total - head - text);
    return w->err;
}

int pcq_put_strings(pcq_writer *w, const pcq_string_entry *entries, uint32_t n,
                            pcq_str_convention convention)
{
    if (w != NULL && w->err == PCQ_OK && entries == NULL && n != 0)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    return wr_strings(w, wr_entry_from_array, entries, n, convention);
}

/* ---- data buffers (§2.2.4.7-11, §3.1.4.1.6 Figures 5-9) ------------------ */

/* _PERF_DATA_HEADER, 48 bytes; dwTotalSize and dwNumCounter are patched by
 * pcq_end_data. */
int pcq_begin_data(pcq_writer *w, const pcq_data *hdr)
{
    const pcq_systemtime *t;
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK)
        return rc;
    if (hdr == NULL)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    t = &hdr->system_time;
    w->data_at = w->len;
    w->nblocks = 0;
    wr_u32(w, 0);                      /* dwTotalSize, patched */
    wr_u32(w, 0);                      /* dwNumCounter, patched */
    wr_u64(w, hdr->perf_time_stamp);
    wr_u64(w, hdr->perf_time_100nsec);
    wr_u64(w, hdr->perf_freq);
    wr_u16(w, t->year);
    wr_u16(w, t->month);
    wr_u16(w, t->day_of_week);
    wr_u16(w, t->day);
    wr_u16(w, t->hour);
    wr_u16(w, t->minute);
    wr_u16(w, t->second);
    wr_u16(w, t->milliseconds);
    if (w->err == PCQ_OK)
        w->state = WR_DATA;
    return w->err;
}

/* dwNumCounter counts blocks; kept within the decoder's counter cap. */
static int wr_count_block(pcq_writer *w)
{
    if (w->nblocks >= PCQ_MAX_COUNTERS)
        return wr_fail(w, PCQ_ERR_LIMIT);
    w->nblocks++;
    return PCQ_OK;
}

/* PERF_ERROR_RETURN: the 16-byte _PERF_COUNTER_HEADER alone (NOTES §2). */
int pcq_put_error_block(pcq_writer *w, uint32_t status)
{
    int rc = wr_enter(w, WR_DATA);

    if (rc != PCQ_OK)
        return rc;
    if (wr_count_block(w) != PCQ_OK)
        return w->err;
    wr_u32(w, status);
    wr_u32(w, PCQ_PERF_ERROR_RETURN);
    wr_u32(w, WR_COUNTER_HDR);        /* dwSize */
    wr_u32(w, 0);                     /* Reserved, MUST be 0 (§2.2.4.8) */
    return w->err;
}

/* Counter ids come through a getter for the same reason as string entries. */
typedef uint32_t (*wr_id_fn)(const void *ctx, uint32_t i);

static uint32_t wr_id_from_array(const void *ctx, uint32_t i)
{
    return ((const uint32_t *)ctx)[i];
}

/* _PERF_MULTI_COUNTERS and its id array. dwSize includes the 4 zero bytes
 * that follow an odd count, so the next structure stays 8-aligned (§2.2.4,
 * appendix "Where a 64-bit field would not be 8-aligned"; NOTES §2). */
static void wr_multi_counters(pcq_writer *w, wr_id_fn id, const void *ctx, uint32_t n)
{
    size_t size;
    uint32_t i;

    if (!wr_mul(n, 4, &size) || !wr_add(size, WR_MULTI, &size) || !wr_round8(size, &size) ||
        !wr_fits32(size)) {
        wr_fail(w, PCQ_ERR_OVERFLOW);
        return;
    }
    wr_u32(w, (uint32_t)size);
    wr_u32(w, n);
    for (i = 0; i < n && w->err == PCQ_OK; i++)
        wr_u32(w, id(ctx, i));
    wr_bytes(w, NULL, size - WR_MULTI - (size_t)n * 4);
}

static int wr_begin_block(pcq_writer *w, uint32_t type, uint32_t status, wr_id_fn id,
                          const void *ctx, uint32_t n)
{
    int has_ids = type == PCQ_PERF_MULTI_COUNTERS || type == PCQ_PERF_COUNTERSET;
    int has_instances = type == PCQ_PERF_MULTI_INSTANCES || type == PCQ_PERF_COUNTERSET;
    int rc = wr_enter(w, WR_DATA);

    if (rc != PCQ_OK)
        return rc;
    /* Type 0 has its own call (pcq_put_error_block); others are unknown. */
    if (type != PCQ_PERF_SINGLE_COUNTER && !has_ids && !has_instances)
        return wr_fail(w, PCQ_ERR_STATE);
    if (!has_ids && n != 0)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (n > PCQ_MAX_COUNTERS)
        return wr_fail(w, PCQ_ERR_LIMIT);
    if (wr_count_block(w) != PCQ_OK)
        return w->err;
    w->block_at = w->len;
    wr_u32(w, status);
    wr_u32(w, type);
    wr_u32(w, 0);                     /* dwSize, patched by pcq_end_block */
    wr_u32(w, 0);                     /* Reserved, MUST be 0 (§2.2.4.8) */
    if (has_ids)
        wr_multi_counters(w, id, ctx, n);
    if (has_instances) {
        w->multi_at = w->len;
        wr_u32(w, 0);                 /* _PERF_MULTI_INSTANCES.dwTotalSize, patched */
        wr_u32(w, 0);                 /* dwInstances, patched */
    }
    w->block_type = type;
    w->want_values = has_ids ? n : 1; /* per block (1, 2) or per instance (4, 6) */
    w->nvalues = 0;
    w->ninstances = 0;
    if (w->err == PCQ_OK)
        w->state = WR_BLOCK;
    return w->err;
}

int pcq_begin_block(pcq_writer *w, uint32_t type, uint32_t status,
                            const uint32_t *counter_ids, uint32_t num_counters)
{
    if (w != NULL && w->err == PCQ_OK && counter_ids == NULL && num_counters != 0)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    return wr_begin_block(w, type, status, wr_id_from_array, counter_ids, num_counters);
}

static int wr_block_has_instances(const pcq_writer *w)
{
    return w->block_type == PCQ_PERF_MULTI_INSTANCES || w->block_type == PCQ_PERF_COUNTERSET;
}

/* The current unit (the block for types 1 and 2, the last instance for 4 and
 * 6; a type 4/6 block with no instance yet) has all its values. */
static int wr_unit_complete(const pcq_writer *w)
{
    if (wr_block_has_instances(w) && w->ninstances == 0)
        return 1;
    return w->nvalues == w->want_values;
}

/* A _PERF_INSTANCE_HEADER inside a type 4 or 6 block (Figure 8, NOTES §2):
 * Size covers header, name, NUL and padding; the values follow it. */
int pcq_put_data_instance(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                  size_t nbytes)
{
    uint32_t size;
    int rc = wr_enter(w, WR_BLOCK);

    if (rc != PCQ_OK)
        return rc;
    if (!wr_block_has_instances(w) || !wr_unit_complete(w))
        return wr_fail(w, PCQ_ERR_STATE);
    if (w->ninstances >= PCQ_MAX_INSTANCES)
        return wr_fail(w, PCQ_ERR_LIMIT);
    if (wr_named_size(w, WR_INSTANCE_HDR, name16, nbytes, &size) != PCQ_OK)
        return w->err;
    wr_u32(w, size);
    wr_u32(w, instance_id);
    wr_name(w, name16, nbytes, size - WR_INSTANCE_HDR);
    w->ninstances++;
    w->nvalues = 0;
    return w->err;
}

/* A _PERF_COUNTER_DATA and its value. NOTES §2: dwSize counts the structure,
 * the value and the zero padding to 8, and is at least 16 (so a 4-byte value
 * is followed by 4 zero bytes). */
int pcq_put_value(pcq_writer *w, const uint8_t *bytes, uint32_t data_size)
{
    size_t size;
    int rc = wr_enter(w, WR_BLOCK);

    if (rc != PCQ_OK)
        return rc;
    if (wr_unit_complete(w))   /* also: no instance yet in a type 4/6 block */
        return wr_fail(w, PCQ_ERR_STATE);
    if (bytes == NULL && data_size != 0)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (!wr_add(data_size, WR_COUNTER_DATA, &size) || !wr_round8(size, &size) ||
        !wr_fits32(size))
        return wr_fail(w, PCQ_ERR_OVERFLOW);
    if (size <= WR_MIN_VALUE_AREA) {
        /* Values of up to 8 bytes (nearly all): the whole 16-byte record,
         * padding included, is built here and appended in one go. */
        uint8_t rec[WR_MIN_VALUE_AREA];
        memset(rec, 0, sizeof rec);
        wr_le32(rec, data_size);
        wr_le32(rec + 4, WR_MIN_VALUE_AREA);
        if (data_size > 0)
            memcpy(rec + WR_COUNTER_DATA, bytes, data_size);
        wr_bytes(w, rec, sizeof rec);
    } else {
        wr_u32(w, data_size);
        wr_u32(w, (uint32_t)size);
        wr_bytes(w, bytes, data_size);
        wr_bytes(w, NULL, size - WR_COUNTER_DATA - data_size);
    }
    w->nvalues++;
    return w->err;
}

int pcq_put_value_u32(pcq_writer *w, uint32_t v)
{
    uint8_t b[4];

    wr_le32(b, v);
    return pcq_put_value(w, b, sizeof b);
}

int pcq_put_value_u64(pcq_writer *w, uint64_t v)
{
    uint8_t b[8];

    wr_le32(b, (uint32_t)v);
    wr_le32(b + 4, (uint32_t)(v >> 32));
    return pcq_put_value(w, b, sizeof b);
}

/* Patches a size measured from `at` to the current end into the field at. */
static void wr_patch_size(pcq_writer *w, size_t field, size_t from)
{
    size_t size = w->len - from;

    if (!wr_fits32(size)) {
        wr_fail(w, PCQ_ERR_OVERFLOW);
        return;
    }
    wr_store32(w, field, (uint32_t)size);
}

/* Closes a block: _PERF_COUNTER_HEADER.dwSize is the exact block size
 * (§2.2.4.8); _PERF_MULTI_INSTANCES gets its size and count (§2.2.4.10). */
int pcq_end_block(pcq_writer *w)
{
    int rc = wr_enter(w, WR_BLOCK);

    if (rc != PCQ_OK)
        return rc;
    if (!wr_unit_complete(w))
        return wr_fail(w, PCQ_ERR_STATE);
    if (wr_block_has_instances(w)) {
        wr_patch_size(w, w->multi_at, w->multi_at);
        wr_store32(w, w->multi_at + 4, w->ninstances);
    }
    wr_patch_size(w, w->block_at + 8, w->block_at);
    if (w->err == PCQ_OK)
        w->state = WR_DATA;
    return w->err;
}

/* Closes the data buffer: _PERF_DATA_HEADER.dwTotalSize and dwNumCounter. */
int pcq_end_data(pcq_writer *w)
{
    int rc = wr_enter(w, WR_DATA);

    if (rc != PCQ_OK)
        return rc;
    wr_patch_size(w, w->data_at, w->data_at);
    wr_store32(w, w->data_at + 4, w->nblocks);
    if (w->err == PCQ_OK)
        w->state = WR_TOP;
    return w->err;
}

/* ---- pcq_reencode -------------------------------------------------------- */

/* Iterators report failures in it->err; hand that on to the caller. */
static int wr_iter_fail(const pcq_iter *it, int rc, pcq_error *err)
{
    *err = it->err;
    if (err->code == PCQ_OK)
        err->code = rc;
    return err->code;
}

static int wr_re_counterset(pcq_writer *w, const void *src, size_t len, pcq_error *err)
{
    pcq_counterset_info csi;
    pcq_counter_reg c;
    uint32_t i;
    int rc = pcq_decode_counterset_info(src, len, NULL, &csi, err);

    if (rc != PCQ_OK)
        return rc;
    pcq_put_counterset_reg(w, &csi.set);
    for (i = 0; i < csi.set.num_counters && w->err == PCQ_OK; i++) {
        rc = pcq_counterset_counter(&csi, i, &c);
        if (rc != PCQ_OK) {
            err->code = rc;
            err->offset = csi.counters_offset + (size_t)i * WR_COUNTER_REG;
            err->what = "_PERF_COUNTER_REG_INFO";
            return rc;
        }
        pcq_put_counter_reg(w, &c);
    }
    return PCQ_OK;
}

static int wr_entry_from_strings(const void *ctx, uint32_t i, pcq_string_entry *out)
{
    return pcq_strings_get((const pcq_strings *)ctx, i, out);
}

static int wr_re_strings(pcq_writer *w, const void *src, size_t len, pcq_error *err)
{
    pcq_strings s;
    int rc = pcq_decode_strings(src, len, NULL, &s, err);

    if (rc != PCQ_OK)
        return rc;
    /* Keep the decoded dwOffset convention (NONE writes like WIN32). */
    wr_strings(w, wr_entry_from_strings, &s, s.num_counters, s.convention);
    return PCQ_OK;
}

static int wr_re_guids(pcq_writer *w, const void *src, size_t len, pcq_error *err)
{
    pcq_guid_array a;
    pcq_guid g;
    size_t i;
    int rc = pcq_decode_guids(src, len, NULL, &a, err);

    if (rc != PCQ_OK)
        return rc;
    for (i = 0; i < a.count && w->err == PCQ_OK; i++) {
        rc = pcq_guids_get(&a, i, &g);
        if (rc != PCQ_OK) {
            err->code = rc;
            err->offset = i * WR_GUID_SIZE;
            err->what = "GUID";
            return rc;
        }
        pcq_put_guid(w, &g);
    }
    return PCQ_OK;
}

static int wr_re_instances(pcq_writer *w, const void *src, size_t len, pcq_error *err)
{
    pcq_iter it;
    pcq_instance inst;
    size_t count;
    int rc = pcq_decode_instances(src, len, NULL, &count, err);

    if (rc != PCQ_OK)
        return rc;
    pcq_instances_begin(src, len, &it);
    while (w->err == PCQ_OK && (rc = pcq_instances_next(&it, &inst)) == 1)
        pcq_put_instance(w, inst.instance_id, inst.name.ptr, inst.name.len);
    return rc < 0 ? wr_iter_fail(&it, rc, err) : PCQ_OK;
}

static int wr_re_identifiers(pcq_writer *w, const void *src, size_t len, pcq_error *err)
{
    pcq_iter it;
    pcq_identifier id;
    size_t count;
    int rc = pcq_decode_identifiers(src, len, NULL, &count, err);

    if (rc != PCQ_OK)
        return rc;
    pcq_identifiers_begin(src, len, &it);
    while (w->err == PCQ_OK && (rc = pcq_identifiers_next(&it, &id)) == 1)
        pcq_put_identifier(w, &id);
    return rc < 0 ? wr_iter_fail(&it, rc, err) : PCQ_OK;
}

/* A value as decoded: its dwDataSize bytes (the writer recomputes dwSize). */
static void wr_re_value(pcq_writer *w, const pcq_value *v)
{
    pcq_put_value(w, v->data.ptr, v->data_size);
}

/* Every remaining value of a values iterator. */
static int wr_re_values(pcq_writer *w, pcq_iter *it, pcq_error *err)
{
    pcq_value v;
    int rc = 0;

    while (w->err == PCQ_OK && (rc = pcq_values_next(it, &v)) == 1)
        wr_re_value(w, &v);
    return w->err == PCQ_OK && rc < 0 ? wr_iter_fail(it, rc, err) : PCQ_OK;
}

/* The instances of a type 4 block (one value each) or a type 6 block
 * (num_counters values each). */
static int wr_re_block_instances(pcq_writer *w, const pcq_data *d, const pcq_block *b,
                                 pcq_error *err)
{
    pcq_iter it, vit;
    pcq_data_instance inst;
    int rc = 0;

    pcq_block_instances(d, b, &it);
    while (w->err == PCQ_OK && (rc = pcq_instances_of_block_next(&it, &inst)) == 1) {
        pcq_put_data_instance(w, inst.instance_id, inst.name.ptr, inst.name.len);
        if (b->type == PCQ_PERF_MULTI_INSTANCES) {
            wr_re_value(w, &inst.value);
            continue;
        }
        pcq_instance_values(d, &inst, &vit);
        rc = wr_re_values(w, &vit, err);
        if (rc != PCQ_OK)
            return rc;
    }
    return w->err == PCQ_OK && rc < 0 ? wr_iter_fail(&it, rc, err) : PCQ_OK;
}

static uint32_t wr_id_from_block(const void *ctx, uint32_t i)
{
    return pcq_block_counter_id((const pcq_block *)ctx, i);
}

static int wr_re_block(pcq_writer *w, const pcq_data *d, const pcq_block *b, pcq_error *err)
{
    pcq_iter it;
    int rc = PCQ_OK;

    switch (b->type) {
    case PCQ_PERF_ERROR_RETURN:
        pcq_put_error_block(w, b->status);
        return PCQ_OK;
    case PCQ_PERF_SINGLE_COUNTER:
        pcq_begin_block(w, b->type, b->status, NULL, 0);
        wr_re_value(w, &b->value);
        break;
    case PCQ_PERF_MULTI_COUNTERS:
        wr_begin_block(w, b->type, b->status, wr_id_from_block, b, b->num_counters);
        pcq_block_values(d, b, &it);
        rc = wr_re_values(w, &it, err);
        break;
    case PCQ_PERF_MULTI_INSTANCES:
        pcq_begin_block(w, b->type, b->status, NULL, 0);
        rc = wr_re_block_instances(w, d, b, err);
        break;
    default:   /* PERF_COUNTERSET, or a type the decoder should have refused */
        wr_begin_block(w, b->type, b->status, wr_id_from_block, b, b->num_counters);
        rc = wr_re_block_instances(w, d, b, err);
        break;
    }
    if (rc != PCQ_OK)
        return rc;
    pcq_end_block(w);
    return PCQ_OK;
}

static int wr_re_data(pcq_writer *w, const void *src, size_t len, pcq_error *err)
{
    pcq_data d;
    pcq_iter it;
    pcq_block b;
    int rc = pcq_decode_data(src, len, NULL, &d, err);

    if (rc != PCQ_OK)
        return rc;
    pcq_begin_data(w, &d);
    pcq_data_blocks(&d, &it);
    while (w->err == PCQ_OK && (rc = pcq_blocks_next(&it, &b)) == 1) {
        rc = wr_re_block(w, &d, &b, err);
        if (rc != PCQ_OK)
            return rc;
    }
    if (w->err == PCQ_OK && rc < 0)
        return wr_iter_fail(&it, rc, err);
    pcq_end_data(w);
    return PCQ_OK;
}

/* The one-structure kinds. */
static int wr_re_single(pcq_writer *w, pcq_kind kind, const void *src, size_t len,
                        pcq_error *err)
{
    pcq_counter_reg c;
    pcq_bytes text;
    pcq_guid g;
    int rc;

    switch (kind) {
    case PCQ_KIND_COUNTER_INFO:
        rc = pcq_decode_counter_info(src, len, NULL, &c, err);
        if (rc == PCQ_OK)
            pcq_put_counter_reg(w, &c);
        return rc;
    case PCQ_KIND_STRING:
        rc = pcq_decode_string(src, len, NULL, &text, err);
        if (rc == PCQ_OK)
            pcq_put_string(w, text.ptr, text.len);
        return rc;
    case PCQ_KIND_GUID:
        rc = pcq_decode_guid(src, len, NULL, &g, err);
        if (rc == PCQ_OK)
            pcq_put_guid(w, &g);
        return rc;
    default:
        err->code = PCQ_ERR_INVALID_ARG;
        err->what = "kind";
        return PCQ_ERR_INVALID_ARG;
    }
}

/* Decodes src and drives the writer; returns decoder errors only (writer
 * errors stay in w->err for pcq_writer_finish). */
static int wr_re_kind(pcq_writer *w, pcq_kind kind, const void *src, size_t len,
                      pcq_error *err)
{
    switch (kind) {
    case PCQ_KIND_COUNTERSET_INFO: return wr_re_counterset(w, src, len, err);
    case PCQ_KIND_STRINGS:         return wr_re_strings(w, src, len, err);
    case PCQ_KIND_GUIDS:           return wr_re_guids(w, src, len, err);
    case PCQ_KIND_INSTANCES:       return wr_re_instances(w, src, len, err);
    case PCQ_KIND_IDENTIFIERS:     return wr_re_identifiers(w, src, len, err);
    case PCQ_KIND_DATA:            return wr_re_data(w, src, len, err);
    default:                       return wr_re_single(w, kind, src, len, err);
    }
}

int pcq_reencode(pcq_kind kind, const void *src, size_t len, void *dst, size_t cap,
                         size_t *out_len, pcq_error *err)
{
    pcq_writer w;
    pcq_error local;
    int rc;

    if (err == NULL)
        err = &local;
    err->code = PCQ_OK;
    err->offset = 0;
    err->what = NULL;
    if (out_len != NULL)
        *out_len = 0;
    if (out_len == NULL) {
        err->code = PCQ_ERR_INVALID_ARG;
        err->what = "out_len";
        return PCQ_ERR_INVALID_ARG;
    }
    pcq_writer_init(&w, dst, cap);
    rc = wr_re_kind(&w, kind, src, len, err);
    if (rc != PCQ_OK)
        return rc;
    rc = pcq_writer_finish(&w, out_len);
    if (rc != PCQ_OK) {
        /* Not an input fault: offset 0, and `what` names the output side. */
        err->code = rc;
        err->what = rc == PCQ_ERR_BUFFER_TOO_SMALL ? "output buffer" : "pcq_writer";
    }
    return rc;
}

#endif /* PCQ_NO_ENCODER */
