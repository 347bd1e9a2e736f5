/*
 * pcq_codec.c - decoders, validation, helpers and the encoder for [MS-PCQ]
 * data buffers.
 * See pcq_codec.h for the contract and docs/validation.md for the rules.
 *
 * Reading order: loads and errors; names; the small kinds (counterset-info,
 * counter-info, strings, string, guid, guids); the arrays with names
 * (instances, identifiers); data (header, blocks, instances, values);
 * text helpers; then the encoder (pcq_writer, pcq_reencode).
 *
 * Every position is a size_t offset into the input, never a pointer, and
 * every check is written as `n <= end - pos` with pos <= end known, so no
 * untrusted number is ever added to a pointer before it has been checked.
 */
#include "pcq_codec.h"

#include <string.h>

/* Defensive checks that no input can reach, in SQLite's manner: the test
 * runs in every build, and the coverage gate (ci/coverage-gate.sh) leaves
 * the branches of a PCQ_NEVER/PCQ_ALWAYS line and its guarded body out, so
 * an unreachable guard is declared as one rather than left uncovered. */
#define PCQ_NEVER(x) (x)
#define PCQ_ALWAYS(x) (x)

/* C99 inline; C++ and older compilers get a plain static function. */
#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define PCQ_INLINE inline
#else
#define PCQ_INLINE
#endif

unsigned pcq_version(void) { return PCQ_VERSION_NUMBER; }
const char *pcq_version_string(void) { return PCQ_VERSION_STRING; }

/* ------------------------------------------------------------------------ */
/* Loads: byte-wise little-endian, so alignment and host order never matter. */
/* The caller has already checked that the bytes exist.                     */
/* ------------------------------------------------------------------------ */
static PCQ_INLINE uint16_t ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static PCQ_INLINE uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static PCQ_INLINE uint64_t ld64(const uint8_t *p)
{
    return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

/* ------------------------------------------------------------------------ */
/* Status and diagnostic names, from the tables in the header.              */
/* ------------------------------------------------------------------------ */
const char *pcq_strerror(int status)
{
    switch (status) {
#define PCQ_X_(name, value, text) case value: return text;
    PCQ_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "unknown status";
    }
}

const char *pcq_status_name(int status)
{
    switch (status) {
#define PCQ_X_(name, value, text) case value: return #name;
    PCQ_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "PCQ_ERR_UNKNOWN";
    }
}

pcq_family pcq_status_family(int status)
{
    if (status == PCQ_OK) return PCQ_FAMILY_OK;
    if (status == PCQ_ERR_TRUNCATED) return PCQ_FAMILY_TRUNCATED;
    if (status == PCQ_ERR_EXCEEDS_CONTAINER) return PCQ_FAMILY_CONTAINER;
    if (status == PCQ_ERR_LIMIT) return PCQ_FAMILY_LIMIT;
    if (status == PCQ_ERR_NONCONFORMANT) return PCQ_FAMILY_NONCONFORMANT;
    if (status <= PCQ_ERR_BUFFER_TOO_SMALL) return PCQ_FAMILY_CALLER;
    return PCQ_FAMILY_MALFORMED;
}

const char *pcq_diag_name(int code)
{
    switch (code) {
#define PCQ_X_(name, value, text) case value: return #name;
    PCQ_DIAG_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "PCQ_DIAG_UNKNOWN";
    }
}

const char *pcq_diag_text(int code)
{
    switch (code) {
#define PCQ_X_(name, value, text) case value: return text;
    PCQ_DIAG_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "unknown diagnostic";
    }
}

/* ------------------------------------------------------------------------ */
/* Errors and diagnostics. The first error wins: callers return at once.    */
/* ------------------------------------------------------------------------ */
static int fail(pcq_error *err, int code, size_t offset, const char *what)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        err->what = what;
        err->diag = 0;
    }
    return code;
}

/* `n` bytes were declared (or are needed) from `start` (<= buf_len), but
 * fewer remain in the container. Past the end of the input the buffer is
 * cut (truncated); otherwise the item leaves its container. Reported at `at`. */
static int range_fail(pcq_error *err, size_t buf_len, size_t start, size_t n,
                      size_t at, const char *what)
{
    int code = n > buf_len - start ? PCQ_ERR_TRUNCATED : PCQ_ERR_EXCEEDS_CONTAINER;
    return fail(err, code, at, what);
}

/* Reports a diagnostic; under PCQ_STRICT it becomes the error. */
static int diag(const pcq_opts *o, pcq_error *err, int code, size_t offset, const char *what)
{
    pcq_diag d;
    if (!o) return PCQ_OK;
    d.code = code;
    d.offset = offset;
    d.what = what;
    if (o->on_diag) o->on_diag(o->ctx, &d);
    if (!(o->flags & PCQ_STRICT)) return PCQ_OK;
    fail(err, PCQ_ERR_NONCONFORMANT, offset, what);
    if (err) err->diag = code;
    return PCQ_ERR_NONCONFORMANT;
}

/* §2.2.4: "All the structures MUST begin on 8-byte boundaries." */
static int check_aligned(const pcq_opts *o, pcq_error *err, size_t pos, const char *what)
{
    return (pos & 7u) ? diag(o, err, PCQ_DIAG_UNALIGNED, pos, what) : PCQ_OK;
}

/* Finds the UTF-16 NUL of a name in [pos, end): 2-byte units from pos.
 * Returns the offset of the NUL, or end when there is none. */
static size_t find_nul16(const uint8_t *b, size_t pos, size_t end)
{
    while (end - pos >= 2) {
        if (b[pos] == 0 && b[pos + 1] == 0) return pos;
        pos += 2;
    }
    return end;
}

/* Non-zero padding where the spec says 0: offset of the first such byte. */
static int check_zero(const pcq_opts *o, pcq_error *err, const uint8_t *b, size_t pos,
                      size_t end, const char *what)
{
    for (; pos < end; pos++)
        if (b[pos]) return diag(o, err, PCQ_DIAG_PADDING, pos, what);
    return PCQ_OK;
}

static void read_guid_at(const uint8_t *p, pcq_guid *g)
{
    g->data1 = ld32(p);
    g->data2 = ld16(p + 4);
    g->data3 = ld16(p + 6);
    memcpy(g->data4, p + 8, 8);
}

void pcq_guid_read(const uint8_t *p, pcq_guid *out)
{
    read_guid_at(p, out);
}

/* ------------------------------------------------------------------------ */
/* Names of the spec's constants.                                           */
/* ------------------------------------------------------------------------ */
typedef struct name_entry {
    uint32_t value;
    const char *name;
} name_entry;

static const char *lookup(const name_entry *t, size_t n, uint32_t value)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (t[i].value == value) return t[i].name;
    return NULL;
}
#define LOOKUP(table, v) lookup(table, sizeof table / sizeof table[0], v)

/* §2.2.4.2: the 34 types a server MUST use. */
static const name_entry spec_counter_types[] = {
    {0x10410400u, "PERF_COUNTER_COUNTER"},
    {0x20410500u, "PERF_COUNTER_TIMER"},
    {0x00450400u, "PERF_COUNTER_QUEUELEN_TYPE"},
    {0x00450500u, "PERF_COUNTER_LARGE_QUEUELEN_TYPE"},
    {0x00550500u, "PERF_COUNTER_100NS_QUEUELEN_TYPE"},
    {0x00650500u, "PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE"},
    {0x10410500u, "PERF_COUNTER_BULK_COUNT"},
    {0x00000B00u, "PERF_COUNTER_TEXT"},
    {0x00010000u, "PERF_COUNTER_RAWCOUNT"},
    {0x00010100u, "PERF_COUNTER_LARGE_RAWCOUNT"},
    {0x00000000u, "PERF_COUNTER_RAWCOUNT_HEX"},
    {0x00000100u, "PERF_COUNTER_LARGE_RAWCOUNT_HEX"},
    {0x20C20400u, "PERF_SAMPLE_FRACTION"},
    {0x00410400u, "PERF_SAMPLE_COUNTER"},
    {0x21410500u, "PERF_COUNTER_TIMER_INV"},
    {0x30240500u, "PERF_ELAPSED_TIME"},
    {0x40030401u, "PERF_SAMPLE_BASE"},
    {0x30020400u, "PERF_AVERAGE_TIMER"},
    {0x40030402u, "PERF_AVERAGE_BASE"},
    {0x40020500u, "PERF_AVERAGE_BULK"},
    {0x20610500u, "PERF_OBJ_TIME_TIMER"},
    {0x20570500u, "PERF_PRECISION_100NS_TIMER"},
    {0x20470500u, "PERF_PRECISION_SYSTEM_TIMER"},
    {0x20670500u, "PERF_PRECISION_OBJECT_TIMER"},
    {0x20510500u, "PERF_100NSEC_TIMER"},
    {0x21510500u, "PERF_100NSEC_TIMER_INV"},
    {0x22410500u, "PERF_COUNTER_MULTI_TIMER"},
    {0x23410500u, "PERF_COUNTER_MULTI_TIMER_INV"},
    {0x22510500u, "PERF_100NSEC_MULTI_TIMER"},
    {0x23510500u, "PERF_100NSEC_MULTI_TIMER_INV"},
    {0x20020400u, "PERF_RAW_FRACTION"},
    {0x40030403u, "PERF_RAW_BASE"},
    {0x20020500u, "PERF_LARGE_RAW_FRACTION"},
    {0x40030500u, "PERF_LARGE_RAW_BASE"},
};

/* winperf.h types outside the spec's list that servers are known to report. */
static const name_entry other_counter_types[] = {
    {0x00400400u, "PERF_COUNTER_DELTA"},
    {0x00400500u, "PERF_COUNTER_LARGE_DELTA"},
    {0x40000200u, "PERF_COUNTER_NODATA"},
    {0x42030500u, "PERF_COUNTER_MULTI_BASE"},
    {0x80000000u, "PERF_COUNTER_HISTOGRAM_TYPE"},
};

int pcq_counter_type_is_known(uint32_t type)
{
    return LOOKUP(spec_counter_types, type) != NULL;
}

const char *pcq_counter_type_name(uint32_t type)
{
    const char *n = LOOKUP(spec_counter_types, type);
    return n ? n : LOOKUP(other_counter_types, type);
}

const char *pcq_detail_level_name(uint32_t level)
{
    static const name_entry t[] = {
        {100, "PERF_DETAIL_NOVICE"}, {200, "PERF_DETAIL_ADVANCED"},
    };
    return LOOKUP(t, level);
}

/* §2.2.4.1 InstanceType; names from perflib.h. */
const char *pcq_instance_type_name(uint32_t type)
{
    static const name_entry t[] = {
        {0x00, "PERF_COUNTERSET_SINGLE_INSTANCE"},
        {0x02, "PERF_COUNTERSET_MULTI_INSTANCES"},
        {0x04, "PERF_COUNTERSET_SINGLE_AGGREGATE"},
        {0x06, "PERF_COUNTERSET_MULTI_AGGREGATE"},
        {0x0C, "PERF_COUNTERSET_SINGLE_AGGREGATE_HISTORY"},
        {0x16, "PERF_COUNTERSET_INSTANCE_AGGREGATE"},
    };
    return LOOKUP(t, type);
}

const char *pcq_aggregate_name(uint32_t func)
{
    static const name_entry t[] = {
        {0, "PERF_AGGREGATE_UNDEFINED"}, {1, "PERF_AGGREGATE_TOTAL"},
        {2, "PERF_AGGREGATE_AVG"},       {3, "PERF_AGGREGATE_MIN"},
        {4, "PERF_AGGREGATE_MAX"},
    };
    return LOOKUP(t, func);
}

const char *pcq_block_type_name(uint32_t type)
{
    static const name_entry t[] = {
        {0, "PERF_ERROR_RETURN"},    {1, "PERF_SINGLE_COUNTER"},
        {2, "PERF_MULTI_COUNTERS"},  {4, "PERF_MULTI_INSTANCES"},
        {6, "PERF_COUNTERSET"},
    };
    return LOOKUP(t, type);
}

/* §3.1.4.1.2 RequestCode. The spec gives meanings, not names; these are ours. */
const char *pcq_request_code_name(uint32_t code)
{
    static const name_entry t[] = {
        {1, "COUNTERSET_INFO"},         {2, "COUNTER_INFO"},
        {3, "COUNTERSET_NAME"},         {4, "COUNTERSET_HELP"},
        {5, "COUNTER_NAMES"},           {6, "COUNTER_HELP"},
        {7, "PROVIDER_NAME"},           {8, "PROVIDER_GUID"},
        {9, "COUNTERSET_ENGLISH_NAME"}, {10, "COUNTER_ENGLISH_NAMES"},
    };
    return LOOKUP(t, code);
}

/* The Win32 codes [MS-PCQ] lists (§3.1.4.1.*), plus ERROR_NO_DATA (NOTES §2). */
const char *pcq_win32_status_name(uint32_t status)
{
    static const name_entry t[] = {
        {0x0000, "ERROR_SUCCESS"},
        {0x0003, "ERROR_PATH_NOT_FOUND"},
        {0x0005, "ERROR_ACCESS_DENIED"},
        {0x0008, "ERROR_NOT_ENOUGH_MEMORY"},
        {0x000E, "ERROR_OUTOFMEMORY"},
        {0x0057, "ERROR_INVALID_PARAMETER"},
        {0x00B7, "ERROR_ALREADY_EXISTS"},
        {0x00E8, "ERROR_NO_DATA"},
        {0x05AA, "ERROR_NO_SYSTEM_RESOURCES"},
        {0x1068, "ERROR_WMI_GUID_NOT_FOUND"},
        {0x1069, "ERROR_WMI_INSTANCE_NOT_FOUND"},
        {0x106A, "ERROR_WMI_ITEMID_NOT_FOUND"},
        {0x1073, "ERROR_WMI_INVALID_REGINFO"},
    };
    return LOOKUP(t, status);
}

const char *pcq_opnum_name(uint32_t opnum)
{
    static const name_entry t[] = {
        {0, "PerflibV2EnumerateCounterSet"},
        {1, "PerflibV2QueryCounterSetRegistrationInfo"},
        {2, "PerflibV2EnumerateCounterSetInstances"},
        {3, "PerflibV2OpenQueryHandle"},
        {4, "PerflibV2CloseQueryHandle"},
        {5, "PerflibV2QueryCounterInfo"},
        {6, "PerflibV2QueryCounterData"},
        {7, "PerflibV2ValidateCounters"},
    };
    return LOOKUP(t, opnum);
}

const char *pcq_attrib_bit_name(unsigned bit)
{
    static const char *const t[] = {
        "PERF_ATTRIB_BY_REFERENCE", "PERF_ATTRIB_NO_DISPLAYABLE",
        "PERF_ATTRIB_NO_GROUP_SEPARATOR", "PERF_ATTRIB_DISPLAY_AS_REAL",
        "PERF_ATTRIB_DISPLAY_AS_HEX",
    };
    return bit < 5 ? t[bit] : NULL;
}

/* ------------------------------------------------------------------------ */
/* Buffer kinds (§3.1.4.1).                                                  */
/* ------------------------------------------------------------------------ */
static const char *const kind_names[PCQ_KIND_END_] = {
    "none", "counterset-info", "counter-info", "strings", "string",
    "guid", "guids", "instances", "identifiers", "data",
};

const char *pcq_kind_name(pcq_kind kind)
{
    return ((unsigned)kind < PCQ_KIND_END_) ? kind_names[kind] : "none";
}

pcq_kind pcq_kind_from_name(const char *name)
{
    unsigned k;
    if (!name) return PCQ_KIND_NONE;
    for (k = 1; k < PCQ_KIND_END_; k++)
        if (strcmp(name, kind_names[k]) == 0) return (pcq_kind)k;
    return PCQ_KIND_NONE;
}

/* Opnum 1's reply depends on RequestCode (§3.1.4.1.2); opnum 7 sends and
 * returns the same identifier array (§3.1.4.1.7); 3 and 4 carry no buffer. */
pcq_kind pcq_kind_for(uint32_t opnum, uint32_t request_code, int is_reply)
{
    if (opnum == 7) return PCQ_KIND_IDENTIFIERS;
    if (!is_reply) return PCQ_KIND_NONE;
    switch (opnum) {
    case 0: return PCQ_KIND_GUIDS;
    case 2: return PCQ_KIND_INSTANCES;
    case 5: return PCQ_KIND_IDENTIFIERS;
    case 6: return PCQ_KIND_DATA;
    case 1: break;
    default: return PCQ_KIND_NONE;
    }
    switch (request_code) {
    case 1: return PCQ_KIND_COUNTERSET_INFO;
    case 2: return PCQ_KIND_COUNTER_INFO;
    case 3: case 4: case 7: case 9: return PCQ_KIND_STRING;
    case 5: case 6: case 10: return PCQ_KIND_STRINGS;
    case 8: return PCQ_KIND_GUID;
    default: return PCQ_KIND_NONE;
    }
}

/* ------------------------------------------------------------------------ */
/* counterset-info and counter-info (§2.2.4.1, §2.2.4.2, Figure 1).          */
/* ------------------------------------------------------------------------ */
enum {
    CSET_SIZE = 32,     /* _PERF_COUNTERSET_REG_INFO */
    CSET_TYPE = 16, CSET_DETAIL = 20, CSET_NUM = 24, CSET_INSTANCE = 28,
    CREG_SIZE = 48,     /* _PERF_COUNTER_REG_INFO */
    CREG_ID = 0, CREG_TYPE = 4, CREG_ATTRIB = 8, CREG_DETAIL = 16, CREG_SCALE = 20,
    CREG_BASE = 24, CREG_TIME = 28, CREG_FREQ = 32, CREG_MULTI = 36,
    CREG_AGG = 40, CREG_RESERVED = 44
};

/* Two's complement reinterpretation without implementation-defined casts. */
static int32_t to_i32(uint32_t u)
{
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

static void read_counter_reg(const uint8_t *p, pcq_counter_reg *c)
{
    c->counter_id = ld32(p + CREG_ID);
    c->type = ld32(p + CREG_TYPE);
    c->attrib = ld64(p + CREG_ATTRIB);
    c->detail_level = ld32(p + CREG_DETAIL);
    c->default_scale = to_i32(ld32(p + CREG_SCALE));
    c->base_counter_id = ld32(p + CREG_BASE);
    c->perf_time_id = ld32(p + CREG_TIME);
    c->perf_freq_id = ld32(p + CREG_FREQ);
    c->multi_id = ld32(p + CREG_MULTI);
    c->aggregate_func = ld32(p + CREG_AGG);
    c->reserved = ld32(p + CREG_RESERVED);
}

static int detail_ok(uint32_t level) { return level == 100 || level == 200; }

/* §2.2.4.2 Attrib: bits 0x01..0x10 only; "no display" (0x2) not with 0x4,
 * 0x8 or 0x10; "no group separator" (0x4) or "real" (0x8) not with hex (0x10). */
static int attrib_ok(uint64_t a)
{
    if (a & ~(uint64_t)0x1F) return 0;
    if ((a & 0x2) && (a & 0x1C)) return 0;
    if ((a & 0x10) && (a & 0x0C)) return 0;
    return 1;
}

/* The per-field MUSTs of one _PERF_COUNTER_REG_INFO at offset o. */
static int check_counter_reg(const pcq_opts *o, pcq_error *err, const pcq_counter_reg *c,
                             size_t at)
{
    int rc = PCQ_OK;
    if (!o) return PCQ_OK;
    if (!pcq_counter_type_is_known(c->type))
        rc = diag(o, err, PCQ_DIAG_COUNTER_TYPE, at + CREG_TYPE, "_PERF_COUNTER_REG_INFO.Type");
    if (!rc && !attrib_ok(c->attrib))
        rc = diag(o, err, PCQ_DIAG_ATTRIB, at + CREG_ATTRIB, "_PERF_COUNTER_REG_INFO.Attrib");
    if (!rc && !detail_ok(c->detail_level))
        rc = diag(o, err, PCQ_DIAG_DETAIL_LEVEL, at + CREG_DETAIL,
                  "_PERF_COUNTER_REG_INFO.DetailLevel");
    if (!rc && (c->default_scale < -10 || c->default_scale > 10))
        rc = diag(o, err, PCQ_DIAG_DEFAULT_SCALE, at + CREG_SCALE,
                  "_PERF_COUNTER_REG_INFO.DefaultScale");
    if (!rc && c->aggregate_func > 4)
        rc = diag(o, err, PCQ_DIAG_AGGREGATE_FUNC, at + CREG_AGG,
                  "_PERF_COUNTER_REG_INFO.AggregateFunc");
    if (!rc && c->reserved != 0)
        rc = diag(o, err, PCQ_DIAG_RESERVED, at + CREG_RESERVED,
                  "_PERF_COUNTER_REG_INFO.Reserved");
    return rc;
}

/* §2.2.4.2 tables: which related counter a type needs, and of what type. */
#define T_LARGE_RAWCOUNT 0x00010100u
#define T_RAWCOUNT       0x00010000u
static uint32_t required_base_type(uint32_t type)
{
    switch (type) {
    case 0x30020400u: case 0x40020500u: return 0x40030402u;  /* AVERAGE_* -> AVERAGE_BASE */
    case 0x20020500u: case 0x20470500u: case 0x20570500u:
        return 0x40030500u;                                  /* -> LARGE_RAW_BASE */
    case 0x20020400u: return 0x40030403u;                    /* RAW_FRACTION -> RAW_BASE */
    case 0x20C20400u: return 0x40030401u;                    /* SAMPLE_FRACTION -> SAMPLE_BASE */
    default: return 0;
    }
}

static int needs_time_and_freq(uint32_t type)
{
    return type == 0x00650500u || type == 0x30240500u || type == 0x20610500u ||
           type == 0x20670500u;
}

static int needs_multi(uint32_t type)
{
    return type == 0x22410500u || type == 0x23410500u || type == 0x22510500u ||
           type == 0x23510500u;
}

/* Pairwise checks cost n^2 without allocation: only up to this many counters. */
#ifndef PCQ_PAIR_CHECK_MAX
#define PCQ_PAIR_CHECK_MAX 1024u
#endif

/* Does counter `id` exist in the set with type `type`? */
static int has_counter(const uint8_t *set, uint32_t n, uint32_t id, uint32_t type)
{
    uint32_t i;
    for (i = 0; i < n; i++) {
        const uint8_t *p = set + (size_t)i * CREG_SIZE;
        if (ld32(p + CREG_ID) == id) return ld32(p + CREG_TYPE) == type;
    }
    return 0;
}

static int check_related(const pcq_opts *o, pcq_error *err, const uint8_t *set, uint32_t n,
                         const pcq_counter_reg *c, size_t at)
{
    uint32_t base = required_base_type(c->type);
    const char *what = "_PERF_COUNTER_REG_INFO.BaseCounterId";
    if (base && !has_counter(set, n, c->base_counter_id, base))
        return diag(o, err, PCQ_DIAG_RELATED_COUNTER, at + CREG_BASE, what);
    if (needs_time_and_freq(c->type)) {
        if (!has_counter(set, n, c->perf_time_id, T_LARGE_RAWCOUNT))
            return diag(o, err, PCQ_DIAG_RELATED_COUNTER, at + CREG_TIME,
                        "_PERF_COUNTER_REG_INFO.PerfTimeId");
        if (!has_counter(set, n, c->perf_freq_id, T_LARGE_RAWCOUNT))
            return diag(o, err, PCQ_DIAG_RELATED_COUNTER, at + CREG_FREQ,
                        "_PERF_COUNTER_REG_INFO.PerfFreqId");
    }
    if (needs_multi(c->type) && !has_counter(set, n, c->multi_id, T_RAWCOUNT))
        return diag(o, err, PCQ_DIAG_RELATED_COUNTER, at + CREG_MULTI,
                    "_PERF_COUNTER_REG_INFO.MultiId");
    return PCQ_OK;
}

/* Counter i: its own fields, a unique CounterId, its related counters. */
static int check_counter_in_set(const pcq_opts *o, pcq_error *err, const uint8_t *set,
                                uint32_t n, uint32_t i, size_t at)
{
    pcq_counter_reg c;
    uint32_t j;
    int rc;
    read_counter_reg(set + (size_t)i * CREG_SIZE, &c);
    rc = check_counter_reg(o, err, &c, at);
    if (rc || n > PCQ_PAIR_CHECK_MAX) return rc;
    for (j = 0; j < i; j++)
        if (ld32(set + (size_t)j * CREG_SIZE + CREG_ID) == c.counter_id)
            return diag(o, err, PCQ_DIAG_DUPLICATE_ID, at + CREG_ID,
                        "_PERF_COUNTER_REG_INFO.CounterId");
    return check_related(o, err, set, n, &c, at);
}

static int check_counterset_reg(const pcq_opts *o, pcq_error *err, const pcq_counterset_reg *s)
{
    static const uint32_t inst_types[] = {0x0, 0x2, 0x4, 0x6, 0xC, 0x16};
    size_t k;
    int known = 0, rc = PCQ_OK;
    for (k = 0; k < sizeof inst_types / sizeof inst_types[0]; k++)
        known |= s->instance_type == inst_types[k];
    if (s->counterset_type != 0)
        rc = diag(o, err, PCQ_DIAG_COUNTERSET_TYPE, CSET_TYPE,
                  "_PERF_COUNTERSET_REG_INFO.CounterSetType");
    if (!rc && !detail_ok(s->detail_level))
        rc = diag(o, err, PCQ_DIAG_DETAIL_LEVEL, CSET_DETAIL,
                  "_PERF_COUNTERSET_REG_INFO.DetailLevel");
    if (!rc && !known)
        rc = diag(o, err, PCQ_DIAG_INSTANCE_TYPE, CSET_INSTANCE,
                  "_PERF_COUNTERSET_REG_INFO.InstanceType");
    return rc;
}

int pcq_decode_counterset_info(const void *buf, size_t len, const pcq_opts *opts,
                               pcq_counterset_info *out, pcq_error *err)
{
    const uint8_t *b = (const uint8_t *)buf;
    pcq_counterset_info csi;
    size_t room, used;
    uint32_t i, n;
    int rc;

    if (!b && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    if (len < CSET_SIZE)
        return fail(err, PCQ_ERR_TRUNCATED, 0, "_PERF_COUNTERSET_REG_INFO");
    read_guid_at(b, &csi.set.guid);
    csi.set.counterset_type = ld32(b + CSET_TYPE);
    csi.set.detail_level = ld32(b + CSET_DETAIL);
    csi.set.num_counters = n = ld32(b + CSET_NUM);
    csi.set.instance_type = ld32(b + CSET_INSTANCE);

    /* §3.1.4.1.2: NumCounters structures MUST follow. Divide, never multiply. */
    room = len - CSET_SIZE;
    if (n > room / CREG_SIZE)
        return fail(err, PCQ_ERR_TRUNCATED, CSET_NUM, "_PERF_COUNTERSET_REG_INFO.NumCounters");
    if (n > PCQ_MAX_COUNTERS)
        return fail(err, PCQ_ERR_LIMIT, CSET_NUM, "_PERF_COUNTERSET_REG_INFO.NumCounters");
    used = (size_t)n * CREG_SIZE;
    if (room - used >= CREG_SIZE)
        return fail(err, PCQ_ERR_COUNT_MISMATCH, CSET_NUM,
                    "_PERF_COUNTERSET_REG_INFO.NumCounters");
    csi.counters.ptr = b + CSET_SIZE;
    csi.counters.len = used;
    csi.counters_offset = CSET_SIZE;

    rc = opts ? check_counterset_reg(opts, err, &csi.set) : PCQ_OK;
    for (i = 0; opts && !rc && i < n; i++)
        rc = check_counter_in_set(opts, err, csi.counters.ptr, n, i,
                                  CSET_SIZE + (size_t)i * CREG_SIZE);
    if (!rc && room > used)
        rc = diag(opts, err, PCQ_DIAG_TRAILING_BYTES, CSET_SIZE + used, "after the last counter");
    if (rc) return rc;
    if (out) *out = csi;
    return PCQ_OK;
}

int pcq_counterset_counter(const pcq_counterset_info *csi, uint32_t i, pcq_counter_reg *out)
{
    if (!csi || !out || i >= csi->counters.len / CREG_SIZE) return PCQ_ERR_INVALID_ARG;
    read_counter_reg(csi->counters.ptr + (size_t)i * CREG_SIZE, out);
    return PCQ_OK;
}

int pcq_decode_counter_info(const void *buf, size_t len, const pcq_opts *opts,
                            pcq_counter_reg *out, pcq_error *err)
{
    const uint8_t *b = (const uint8_t *)buf;
    pcq_counter_reg c;
    int rc;
    if (!b && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    if (len < CREG_SIZE) return fail(err, PCQ_ERR_TRUNCATED, 0, "_PERF_COUNTER_REG_INFO");
    read_counter_reg(b, &c);
    rc = check_counter_reg(opts, err, &c, 0);
    if (!rc && len > CREG_SIZE)
        rc = diag(opts, err, PCQ_DIAG_TRAILING_BYTES, CREG_SIZE, "after _PERF_COUNTER_REG_INFO");
    if (rc) return rc;
    if (out) *out = c;
    return PCQ_OK;
}

/* ------------------------------------------------------------------------ */
/* strings (§2.2.4.3, §2.2.4.4, §3.1.4.1.2 Figure 2; NOTES §3).              */
/* Two conventions for dwOffset: the spec counts from the end of the        */
/* _STRING_COUNTER_HEADER array, perflib.h from the start of the block.     */
/* ------------------------------------------------------------------------ */
enum { SBH_SIZE = 8, SBH_COUNTERS = 4, SCH_SIZE = 8, SCH_OFFSET = 4 };

/* Under the spec's convention the first string sits at dwOffset 0; under the
 * Win32 one every string lies past the header array. So the smallest present
 * offset tells them apart. */
static pcq_str_convention detect_convention(const uint8_t *b, uint32_t n)
{
    size_t headers = SBH_SIZE + (size_t)n * SCH_SIZE;
    uint32_t i, min = PCQ_STRING_ABSENT;
    for (i = 0; i < n; i++) {
        uint32_t off = ld32(b + SBH_SIZE + (size_t)i * SCH_SIZE + SCH_OFFSET);
        if (off < min) min = off;
    }
    if (min == PCQ_STRING_ABSENT) return PCQ_STROFF_NONE;
    return (size_t)min < headers ? PCQ_STROFF_SPEC : PCQ_STROFF_WIN32;
}

/* Entry i of a string block whose header array is known to fit in `size`:
 * its fields, and in *start where its text begins (when present). */
static int string_entry_start(const uint8_t *b, size_t len, size_t size, uint32_t n,
                              pcq_str_convention conv, uint32_t i, pcq_string_entry *e,
                              size_t *start, pcq_error *err)
{
    size_t at = SBH_SIZE + (size_t)i * SCH_SIZE;
    size_t base = conv == PCQ_STROFF_SPEC ? SBH_SIZE + (size_t)n * SCH_SIZE : 0;
    e->counter_id = ld32(b + at);
    e->offset = ld32(b + at + SCH_OFFSET);
    e->present = e->offset != PCQ_STRING_ABSENT;
    e->text.ptr = NULL;
    e->text.len = 0;
    e->text_offset = 0;
    *start = 0;
    if (!e->present) return PCQ_OK;
    /* base <= size is known; compare the offset with what is left. */
    if (e->offset >= size - base)
        return range_fail(err, len, base, (size_t)e->offset + 1, at + SCH_OFFSET,
                          "_STRING_COUNTER_HEADER.dwOffset");
    *start = base + e->offset;
    return PCQ_OK;
}

/* Entry i with its text: costs the length of that one string. */
static int string_entry(const uint8_t *b, size_t len, size_t size, uint32_t n,
                        pcq_str_convention conv, uint32_t i, pcq_string_entry *e,
                        pcq_error *err)
{
    size_t start, nul;
    int rc = string_entry_start(b, len, size, n, conv, i, e, &start, err);
    if (rc || !e->present) return rc;
    nul = find_nul16(b, start, size);
    if (nul == size) return fail(err, PCQ_ERR_NO_NUL, start, "counter string");
    e->text.ptr = b + start;
    e->text.len = nul - start;
    e->text_offset = start;
    return PCQ_OK;
}

/* Entries may share text (all of them can point at one long string), so
 * validating them by a scan each costs entries x text: quadratic in len.
 * Instead one backward pass finds, for each parity k of an offset, the last
 * UTF-16 NUL (bytes p and p + 1 zero, p + 1 < end, p % 2 == k): after[k] is
 * p + 1, or 0 if there is none. A string starting at s has its NUL inside
 * [s, end) iff s < after[s % 2], exactly when find_nul16 would find one. */
static void last_nuls(const uint8_t *b, size_t end, size_t after[2])
{
    size_t p;
    after[0] = after[1] = 0;
    for (p = end; p >= 2 && (after[0] == 0 || after[1] == 0); p--)
        if (b[p - 2] == 0 && b[p - 1] == 0 && after[p % 2] == 0) after[p % 2] = p - 1;
}

int pcq_decode_strings(const void *buf, size_t len, const pcq_opts *opts, pcq_strings *out,
                       pcq_error *err)
{
    const uint8_t *b = (const uint8_t *)buf;
    pcq_strings s;
    pcq_string_entry e;
    size_t after[2], start;
    uint32_t i;
    int rc = PCQ_OK;

    if (!b && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    if (len < SBH_SIZE) return fail(err, PCQ_ERR_TRUNCATED, 0, "_STRING_BUFFER_HEADER");
    s.size = ld32(b);
    s.num_counters = ld32(b + SBH_COUNTERS);
    if (s.size < SBH_SIZE)
        return fail(err, PCQ_ERR_SIZE_TOO_SMALL, 0, "_STRING_BUFFER_HEADER.dwSize");
    if (s.size > len) return fail(err, PCQ_ERR_TRUNCATED, 0, "_STRING_BUFFER_HEADER.dwSize");
    /* §3.1.4.1.2: dwCounters _STRING_COUNTER_HEADER structures MUST follow. */
    /* Compare counts, never products: dwCounters * 8 wraps a 32-bit size_t. */
    if (s.num_counters > (s.size - SBH_SIZE) / SCH_SIZE)
        return fail(err, s.num_counters > (len - SBH_SIZE) / SCH_SIZE ? PCQ_ERR_TRUNCATED
                                                                      : PCQ_ERR_EXCEEDS_CONTAINER,
                    SBH_COUNTERS, "_STRING_BUFFER_HEADER.dwCounters");
    if (s.num_counters > PCQ_MAX_COUNTERS)
        return fail(err, PCQ_ERR_LIMIT, SBH_COUNTERS, "_STRING_BUFFER_HEADER.dwCounters");
    s.convention = detect_convention(b, s.num_counters);
    s.block.ptr = b;
    s.block.len = s.size;
    last_nuls(b, s.size, after);
    for (i = 0; i < s.num_counters; i++) {
        rc = string_entry_start(b, len, s.size, s.num_counters, s.convention, i, &e, &start, err);
        if (rc) return rc;
        if (e.present && start >= after[start % 2])
            return fail(err, PCQ_ERR_NO_NUL, start, "counter string");
    }
    if (s.size % 8)
        rc = diag(opts, err, PCQ_DIAG_SIZE_NOT_MULTIPLE_OF_8, 0, "_STRING_BUFFER_HEADER.dwSize");
    if (!rc && len > s.size)
        rc = diag(opts, err, PCQ_DIAG_TRAILING_BYTES, s.size, "after the string block");
    if (rc) return rc;
    if (out) *out = s;
    return PCQ_OK;
}

int pcq_strings_get(const pcq_strings *s, uint32_t i, pcq_string_entry *out)
{
    if (!s || !out || i >= s->num_counters) return PCQ_ERR_INVALID_ARG;
    return string_entry(s->block.ptr, s->block.len, s->block.len, s->num_counters,
                        s->convention, i, out, NULL);
}

/* ------------------------------------------------------------------------ */
/* string (RequestCode 3, 4, 7, 9), guid (8), guids (opnum 0).               */
/* ------------------------------------------------------------------------ */
int pcq_decode_string(const void *buf, size_t len, const pcq_opts *opts, pcq_bytes *out,
                      pcq_error *err)
{
    const uint8_t *b = (const uint8_t *)buf;
    size_t nul;
    int rc = PCQ_OK;
    if (!b && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    nul = find_nul16(b, 0, len);
    if (nul == len) return fail(err, PCQ_ERR_NO_NUL, 0, "string");
    if (len - nul > 2)
        rc = diag(opts, err, PCQ_DIAG_TRAILING_BYTES, nul + 2, "after the string");
    if (rc) return rc;
    if (out) {
        out->ptr = b;
        out->len = nul;
    }
    return PCQ_OK;
}

int pcq_decode_guid(const void *buf, size_t len, const pcq_opts *opts, pcq_guid *out,
                    pcq_error *err)
{
    const uint8_t *b = (const uint8_t *)buf;
    int rc = PCQ_OK;
    if (!b && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    if (len < 16) return fail(err, PCQ_ERR_TRUNCATED, 0, "GUID");
    if (len > 16) rc = diag(opts, err, PCQ_DIAG_TRAILING_BYTES, 16, "after the GUID");
    if (rc) return rc;
    if (out) read_guid_at(b, out);
    return PCQ_OK;
}

int pcq_decode_guids(const void *buf, size_t len, const pcq_opts *opts, pcq_guid_array *out,
                     pcq_error *err)
{
    const uint8_t *b = (const uint8_t *)buf;
    (void)opts;
    if (!b && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    if (len % 16) return fail(err, PCQ_ERR_BAD_LENGTH, len - len % 16, "GUID array");
    if (out) {
        out->ptr = b;
        out->count = len / 16;
    }
    return PCQ_OK;
}

int pcq_guids_get(const pcq_guid_array *a, size_t i, pcq_guid *out)
{
    if (!a || !out || i >= a->count) return PCQ_ERR_INVALID_ARG;
    read_guid_at(a->ptr + i * 16, out);
    return PCQ_OK;
}

/* ------------------------------------------------------------------------ */
/* Iterators. One pcq_iter walks any sequence: [pos, end) is its container, */
/* `left` the items still expected when the container has a count.          */
/* ------------------------------------------------------------------------ */
enum {
    IT_COUNTED = 1,   /* `left` items, then the container's slack is checked  */
    IT_EXACT = 2,     /* after the last item, >= 8 unused bytes are an error  */
    IT_VALIDATE = 4   /* also walk nested content and report diagnostics       */
};
enum { M_INSTANCES = 1, M_IDENTIFIERS, M_BLOCKS, M_VALUES, M_DATA_INSTANCES };

static void iter_init(pcq_iter *it, const uint8_t *buf, size_t buf_len, size_t pos, size_t end,
                      int mode)
{
    memset(it, 0, sizeof *it);
    it->buf = buf;
    it->buf_len = buf_len;
    it->pos = pos;
    it->end = end;
    it->mode = mode;
}

static int iter_fail(pcq_iter *it, int code, size_t offset, const char *what)
{
    return fail(&it->err, code, offset, what);
}

/* Before each item: 1 if one should follow, 0 at a clean end, < 0 on error.
 * A counted container that runs dry before its count blames the count; one
 * with 8 or more bytes left after its count blames its size (validation.md). */
static PCQ_INLINE int iter_more(pcq_iter *it)
{
    size_t room;
    if (it->err.code) return it->err.code;
    room = it->end - it->pos;
    if (!(it->bounded & IT_COUNTED)) return room > 0;
    if (it->left > 0) {
        if (room == 0)
            return iter_fail(it, PCQ_ERR_COUNT_MISMATCH, it->count_at, it->count_what);
        return 1;
    }
    if ((it->bounded & IT_EXACT) && room >= 8)
        return iter_fail(it, PCQ_ERR_COUNT_MISMATCH, it->size_at, it->size_what);
    return 0;
}

/* The fixed-size header of an item at it->pos must fit in the container. */
static int iter_need(pcq_iter *it, size_t n, const char *what)
{
    if (n <= it->end - it->pos) return PCQ_OK;
    return range_fail(&it->err, it->buf_len, it->pos, n, it->pos, what);
}

/* A size field at `at` declares `size` bytes from `start`. */
static int iter_sized(pcq_iter *it, size_t start, size_t size, size_t at, const char *what)
{
    if (size <= it->end - start) return PCQ_OK;
    return range_fail(&it->err, it->buf_len, start, size, at, what);
}

static const pcq_opts *iter_opts(const pcq_iter *it)
{
    return (it->bounded & IT_VALIDATE) ? it->opts : NULL;
}

/* ------------------------------------------------------------------------ */
/* instances (§2.2.4.5, §3.1.4.1.3 Figure 3): header + name, repeated until */
/* the buffer ends. The padding after a name is "uninitialized": unchecked. */
/* ------------------------------------------------------------------------ */
enum { INST_SIZE = 8, INST_ID = 4 };

/* A header of `hdr` bytes whose Size field (at +size_off) covers the header
 * and a NUL-terminated UTF-16 name (§2.2.4.5, §2.2.4.6), at it->pos: the
 * header fits, Size holds at least the header and the NUL and stays inside
 * the container, and the NUL lies inside Size. *nul: the NUL's offset. */
static int read_named(pcq_iter *it, size_t hdr, size_t size_off, const char *what_hdr,
                      const char *what_size, uint32_t *size, size_t *nul)
{
    size_t at = it->pos;
    int rc;
    if ((rc = iter_need(it, hdr, what_hdr)) != 0) return rc;
    *size = ld32(it->buf + at + size_off);
    if (*size < hdr + 2)
        return iter_fail(it, PCQ_ERR_SIZE_TOO_SMALL, at + size_off, what_size);
    if ((rc = iter_sized(it, at, *size, at + size_off, what_size)) != 0) return rc;
    *nul = find_nul16(it->buf, at + hdr, at + *size);
    if (*nul == at + *size) return iter_fail(it, PCQ_ERR_NO_NUL, at + hdr, "instance name");
    return PCQ_OK;
}

void pcq_instances_begin(const void *buf, size_t len, pcq_iter *it)
{
    iter_init(it, (const uint8_t *)buf, buf ? len : 0, 0, buf ? len : 0, M_INSTANCES);
}

int pcq_instances_next(pcq_iter *it, pcq_instance *out)
{
    const uint8_t *b = it->buf;
    const pcq_opts *o = iter_opts(it);
    size_t at = it->pos, nul;
    uint32_t size;
    int rc = iter_more(it);
    if (rc <= 0) return rc;
    rc = read_named(it, INST_SIZE, 0, "_PERF_INSTANCE_HEADER", "_PERF_INSTANCE_HEADER.Size",
                    &size, &nul);
    if (rc) return rc;
    rc = check_aligned(o, &it->err, at, "_PERF_INSTANCE_HEADER");
    if (!rc && size % 8)
        rc = diag(o, &it->err, PCQ_DIAG_SIZE_NOT_MULTIPLE_OF_8, at, "_PERF_INSTANCE_HEADER.Size");
    if (rc) return rc;
    out->size = size;
    out->instance_id = ld32(b + at + INST_ID);
    out->name.ptr = b + at + INST_SIZE;
    out->name.len = nul - at - INST_SIZE;
    out->offset = at;
    it->pos = at + size;
    it->index++;
    return 1;
}

int pcq_decode_instances(const void *buf, size_t len, const pcq_opts *opts, size_t *count,
                         pcq_error *err)
{
    pcq_iter it;
    pcq_instance inst;
    int rc;
    if (!buf && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    pcq_instances_begin(buf, len, &it);
    it.opts = opts;
    it.bounded |= IT_VALIDATE;
    while ((rc = pcq_instances_next(&it, &inst)) == 1) {}
    if (rc < 0) return err ? (*err = it.err, rc) : rc;
    if (count) *count = it.index;
    return PCQ_OK;
}

/* ------------------------------------------------------------------------ */
/* identifiers (§2.2.4.6, §3.1.4.1.5 Figure 4, §3.1.4.1.7).                  */
/* ------------------------------------------------------------------------ */
enum {
    ID_SIZE = 40,
    ID_STATUS = 16, ID_SZ = 20, ID_COUNTER = 24, ID_INSTANCE = 28, ID_INDEX = 32,
    ID_RESERVED = 36
};

void pcq_identifiers_begin(const void *buf, size_t len, pcq_iter *it)
{
    iter_init(it, (const uint8_t *)buf, buf ? len : 0, 0, buf ? len : 0, M_IDENTIFIERS);
}

static int identifier_diags(pcq_iter *it, size_t at, uint32_t size, size_t nul)
{
    const pcq_opts *o = iter_opts(it);
    const uint8_t *b = it->buf;
    int rc;
    if (!o) return PCQ_OK;
    rc = check_aligned(o, &it->err, at, "_PERF_COUNTER_IDENTIFIER");
    if (!rc && size % 8)
        rc = diag(o, &it->err, PCQ_DIAG_SIZE_NOT_MULTIPLE_OF_8, at + ID_SZ,
                  "_PERF_COUNTER_IDENTIFIER.Size");
    if (!rc && ld32(b + at + ID_RESERVED) != 0)
        rc = diag(o, &it->err, PCQ_DIAG_RESERVED, at + ID_RESERVED,
                  "_PERF_COUNTER_IDENTIFIER.Reserved");
    /* §3.1.4.1.5: the padding after the name "MUST be set to 0". */
    if (!rc) rc = check_zero(o, &it->err, b, nul + 2, at + size, "identifier name padding");
    return rc;
}

int pcq_identifiers_next(pcq_iter *it, pcq_identifier *out)
{
    const uint8_t *b = it->buf;
    size_t at = it->pos, nul;
    uint32_t size;
    int rc = iter_more(it);
    if (rc <= 0) return rc;
    rc = read_named(it, ID_SIZE, ID_SZ, "_PERF_COUNTER_IDENTIFIER",
                    "_PERF_COUNTER_IDENTIFIER.Size", &size, &nul);
    if (rc) return rc;
    if ((rc = identifier_diags(it, at, size, nul)) != 0) return rc;
    read_guid_at(b + at, &out->guid);
    out->status = ld32(b + at + ID_STATUS);
    out->size = size;
    out->counter_id = ld32(b + at + ID_COUNTER);
    out->instance_id = ld32(b + at + ID_INSTANCE);
    out->index = ld32(b + at + ID_INDEX);
    out->reserved = ld32(b + at + ID_RESERVED);
    out->name.ptr = b + at + ID_SIZE;
    out->name.len = nul - at - ID_SIZE;
    out->offset = at;
    it->pos = at + size;
    it->index++;
    return 1;
}

int pcq_decode_identifiers(const void *buf, size_t len, const pcq_opts *opts, size_t *count,
                           pcq_error *err)
{
    pcq_iter it;
    pcq_identifier id;
    int rc;
    if (!buf && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    pcq_identifiers_begin(buf, len, &it);
    it.opts = opts;
    it.bounded |= IT_VALIDATE;
    while ((rc = pcq_identifiers_next(&it, &id)) == 1) {}
    if (rc < 0) return err ? (*err = it.err, rc) : rc;
    if (count) *count = it.index;
    return PCQ_OK;
}

/* ------------------------------------------------------------------------ */
/* data (§2.2.4.7-2.2.4.11, §3.1.4.1.6 Figures 5-9).                         */
/* A _PERF_DATA_HEADER, then dwNumCounter _PERF_COUNTER_HEADER blocks inside */
/* dwTotalSize. Each size bounds a child container; sizes are trusted as     */
/* sent (no rounding), misalignment is a diagnostic (docs/decisions.md).     */
/* ------------------------------------------------------------------------ */
enum { DH_SIZE = 48, DH_NUM = 4, DH_TIME = 8, DH_T100 = 16, DH_FREQ = 24, DH_SYSTIME = 32 };
enum { CH_SIZE = 16, CH_TYPE = 4, CH_SZ = 8, CH_RESERVED = 12 };  /* _PERF_COUNTER_HEADER */
enum { CD_SIZE = 8, CD_SZ = 4 };       /* _PERF_COUNTER_DATA: dwDataSize, dwSize */
enum { MC_SIZE = 8, MC_COUNT = 4 };    /* _PERF_MULTI_COUNTERS: dwSize, dwCounters */
enum { MI_SIZE = 8, MI_COUNT = 4 };    /* _PERF_MULTI_INSTANCES: dwTotalSize, dwInstances */

/* Child container [start, end) of `parent`, same input and mode. */
static void iter_child(pcq_iter *c, const pcq_iter *parent, size_t start, size_t end, int mode)
{
    iter_init(c, parent->buf, parent->buf_len, start, end, mode);
    c->opts = parent->opts;
    c->bounded = parent->bounded & IT_VALIDATE;
}

/* The child's first error becomes the parent's. */
static int iter_adopt(pcq_iter *parent, const pcq_iter *child, int rc)
{
    parent->err = child->err;
    return rc;
}

/* The checks every _PERF_COUNTER_DATA must pass (§2.2.4.9): the structure
 * fits, dwSize >= 8 stays inside the container, dwDataSize fits in dwSize.
 * This is the hot loop of every walk, so it is kept to a few instructions;
 * value_fail() works out which rule broke. */
static PCQ_INLINE int value_ok(const uint8_t *b, size_t at, size_t end)
{
    uint32_t data_size, size;
    if (end - at < CD_SIZE) return 0;
    data_size = ld32(b + at);
    size = ld32(b + at + CD_SZ);
    return size >= CD_SIZE && size <= end - at && data_size <= size - CD_SIZE;
}

static int value_fail(pcq_iter *it)
{
    const uint8_t *b = it->buf;
    size_t at = it->pos;
    uint32_t size;
    int rc;
    if ((rc = iter_need(it, CD_SIZE, "_PERF_COUNTER_DATA")) != 0) return rc;
    size = ld32(b + at + CD_SZ);
    if (size < CD_SIZE)
        return iter_fail(it, PCQ_ERR_SIZE_TOO_SMALL, at + CD_SZ, "_PERF_COUNTER_DATA.dwSize");
    if ((rc = iter_sized(it, at, size, at + CD_SZ, "_PERF_COUNTER_DATA.dwSize")) != 0)
        return rc;
    return iter_fail(it, PCQ_ERR_EXCEEDS_CONTAINER, at, "_PERF_COUNTER_DATA.dwDataSize");
}

/* Skips up to `n` values from it->pos while they are well formed and, when
 * diagnostics are wanted, aligned; returns how many it skipped. The caller
 * reads the rest one by one, so errors and diagnostics come out the same. */
static uint32_t skip_values(pcq_iter *it, uint32_t n)
{
    const uint8_t *b = it->buf;
    size_t pos = it->pos, end = it->end, misaligned = iter_opts(it) ? 7 : 0;
    uint32_t k = 0;
    while (k < n && value_ok(b, pos, end) && !(pos & misaligned)) {
        pos += ld32(b + pos + CD_SZ);
        k++;
    }
    it->pos = pos;
    it->left -= k;
    it->index += k;
    return k;
}

static PCQ_INLINE void fill_value(const uint8_t *b, size_t at, pcq_value *v)
{
    v->data_size = ld32(b + at);
    v->size = ld32(b + at + CD_SZ);
    v->data.ptr = b + at + CD_SIZE;
    v->data.len = v->data_size;
    v->is_int = v->data_size == 4 || v->data_size == 8;
    v->u64 = v->data_size == 8 ? ld64(v->data.ptr) : v->data_size == 4 ? ld32(v->data.ptr) : 0;
    v->offset = at;
}

/* One _PERF_COUNTER_DATA and its value at it->pos. */
static int read_value(pcq_iter *it, pcq_value *v)
{
    const uint8_t *b = it->buf;
    size_t at = it->pos;
    int rc;
    if (!value_ok(b, at, it->end)) return value_fail(it);
    if ((at & 7) && (rc = check_aligned(iter_opts(it), &it->err, at, "_PERF_COUNTER_DATA")))
        return rc;
    fill_value(b, at, v);
    it->pos = at + v->size;
    return PCQ_OK;
}

int pcq_values_next(pcq_iter *it, pcq_value *out)
{
    const uint8_t *b = it->buf;
    size_t at = it->pos;
    int rc;
    /* The common case first: a counted value, well formed, no diagnostic due.
     * Everything else (the end, slack, errors, diagnostics) takes the checked
     * path below, which decides the same way. */
    if (it->left > 0 && !it->err.code && value_ok(b, at, it->end) &&
        !((at & 7) && iter_opts(it))) {
        fill_value(b, at, out);
        it->pos = at + out->size;
        it->left--;
        it->index++;
        return 1;
    }
    rc = iter_more(it);
    if (rc <= 0) return rc;
    if ((rc = read_value(it, out)) != 0) return rc;
    it->left--;
    it->index++;
    return 1;
}

/* _PERF_MULTI_COUNTERS and the counter ID array (§2.2.4.11, Figure 7). */
static int read_multi_counters(pcq_iter *c, pcq_block *b)
{
    const uint8_t *p = c->buf;
    size_t at = c->pos;
    int rc;
    /* block_min_size() left room for it. */
    if (PCQ_NEVER((rc = iter_need(c, MC_SIZE, "_PERF_MULTI_COUNTERS")) != 0)) return rc;
    b->multi_size = ld32(p + at);
    b->num_counters = ld32(p + at + MC_COUNT);
    if (b->multi_size < MC_SIZE)
        return iter_fail(c, PCQ_ERR_SIZE_TOO_SMALL, at, "_PERF_MULTI_COUNTERS.dwSize");
    if ((rc = iter_sized(c, at, b->multi_size, at, "_PERF_MULTI_COUNTERS.dwSize")) != 0)
        return rc;
    /* The ID array lives inside dwSize: (dwSize - 8) / 4 >= dwCounters. */
    if (b->num_counters > (b->multi_size - MC_SIZE) / 4)
        return iter_fail(c, PCQ_ERR_EXCEEDS_CONTAINER, at + MC_COUNT,
                         "_PERF_MULTI_COUNTERS.dwCounters");
    if (b->num_counters > PCQ_MAX_COUNTERS)
        return iter_fail(c, PCQ_ERR_LIMIT, at + MC_COUNT, "_PERF_MULTI_COUNTERS.dwCounters");
    /* Beyond the IDs only padding to 8 may follow (docs/validation.md). */
    if (b->multi_size - MC_SIZE - (size_t)b->num_counters * 4 >= 8)
        return iter_fail(c, PCQ_ERR_COUNT_MISMATCH, at, "_PERF_MULTI_COUNTERS.dwSize");
    if ((rc = check_aligned(iter_opts(c), &c->err, at, "_PERF_MULTI_COUNTERS")) != 0) return rc;
    b->multi_at = at;
    b->counter_ids.ptr = p + at + MC_SIZE;
    b->counter_ids.len = (size_t)b->num_counters * 4;
    c->pos = at + b->multi_size;
    return PCQ_OK;
}

/* _PERF_MULTI_INSTANCES (§2.2.4.10): its dwTotalSize bounds the instances. */
static int read_multi_instances(pcq_iter *c, pcq_block *b)
{
    const uint8_t *p = c->buf;
    size_t at = c->pos;
    int rc;
    /* block_min_size() and the PERF_COUNTERSET check left room for it. */
    if (PCQ_NEVER((rc = iter_need(c, MI_SIZE, "_PERF_MULTI_INSTANCES")) != 0)) return rc;
    b->instances_size = ld32(p + at);
    b->num_instances = ld32(p + at + MI_COUNT);
    if (b->instances_size < MI_SIZE)
        return iter_fail(c, PCQ_ERR_SIZE_TOO_SMALL, at, "_PERF_MULTI_INSTANCES.dwTotalSize");
    if ((rc = iter_sized(c, at, b->instances_size, at, "_PERF_MULTI_INSTANCES.dwTotalSize")))
        return rc;
    if (b->num_instances > PCQ_MAX_INSTANCES)
        return iter_fail(c, PCQ_ERR_LIMIT, at + MI_COUNT, "_PERF_MULTI_INSTANCES.dwInstances");
    if ((rc = check_aligned(iter_opts(c), &c->err, at, "_PERF_MULTI_INSTANCES")) != 0) return rc;
    b->instances_at = at;
    b->body = at + MI_SIZE;
    b->body_end = at + b->instances_size;
    c->pos = b->body_end;
    return PCQ_OK;
}

static void block_instances(const uint8_t *buf, size_t buf_len, const pcq_block *b,
                            pcq_iter *it)
{
    size_t mi = b->body - MI_SIZE;
    iter_init(it, buf, buf_len, b->body, b->body_end, M_DATA_INSTANCES);
    it->bounded = IT_COUNTED | IT_EXACT;
    it->left = b->num_instances;
    it->count_at = mi + MI_COUNT;
    it->count_what = "_PERF_MULTI_INSTANCES.dwInstances";
    it->size_at = mi;
    it->size_what = "_PERF_MULTI_INSTANCES.dwTotalSize";
    /* PERF_COUNTERSET: dwCounters values per instance; PERF_MULTI_INSTANCES: one. */
    it->nvalues = b->type == PCQ_PERF_COUNTERSET ? b->num_counters : 1;
    it->aux_at = b->type == PCQ_PERF_COUNTERSET ? b->offset + CH_SIZE + MC_COUNT : mi;
    it->aux_what = b->type == PCQ_PERF_COUNTERSET ? "_PERF_MULTI_COUNTERS.dwCounters"
                                                  : "_PERF_MULTI_INSTANCES.dwTotalSize";
}

static void block_values(const uint8_t *buf, size_t buf_len, const pcq_block *b, pcq_iter *it)
{
    iter_init(it, buf, buf_len, b->body, b->body_end, M_VALUES);
    it->bounded = IT_COUNTED | IT_EXACT;
    it->left = b->type == PCQ_PERF_MULTI_COUNTERS ? b->num_counters
             : b->type == PCQ_PERF_SINGLE_COUNTER ? 1 : 0;
    it->count_at = b->offset + CH_SIZE + MC_COUNT;
    it->count_what = "_PERF_MULTI_COUNTERS.dwCounters";
    it->size_at = b->offset + CH_SZ;
    it->size_what = "_PERF_COUNTER_HEADER.dwSize";
    /* Blocks without values iterate nothing. A PERF_MULTI_COUNTERS block with
     * no counters still has its unused bytes checked (validation.md). */
    if (b->type != PCQ_PERF_MULTI_COUNTERS && b->type != PCQ_PERF_SINGLE_COUNTER)
        it->pos = it->end;
}

/* Walks a whole sequence (validation); returns its first error or 0. */
static int walk_values(pcq_iter *it)
{
    pcq_value v;
    int rc;
    skip_values(it, it->left);
    while ((rc = pcq_values_next(it, &v)) == 1) {}
    return rc;
}

static int walk_instances(pcq_iter *it)
{
    pcq_data_instance inst;
    int rc;
    while ((rc = pcq_instances_of_block_next(it, &inst)) == 1) {}
    return rc;
}

/* The content of one block after its _PERF_COUNTER_HEADER (§3.1.4.1.6). */
static int read_block_body(pcq_iter *it, pcq_block *b)
{
    size_t start = b->offset + CH_SIZE, end = b->offset + b->size;
    pcq_iter c, sub;
    int rc = PCQ_OK;

    iter_child(&c, it, start, end, M_VALUES);
    b->body = b->body_end = start;
    if (b->type == PCQ_PERF_ERROR_RETURN) {
        /* "MUST contain one _PERF_COUNTER_HEADER structure" and nothing else. */
        if (b->size > CH_SIZE)
            rc = diag(iter_opts(it), &it->err, PCQ_DIAG_TRAILING_BYTES, start,
                      "inside a PERF_ERROR_RETURN block");
        return rc;
    }
    if (b->type == PCQ_PERF_SINGLE_COUNTER) {
        b->body_end = end;   /* its one value, for pcq_block_values too */
        rc = read_value(&c, &b->value);
    }
    if (b->type == PCQ_PERF_MULTI_COUNTERS || b->type == PCQ_PERF_COUNTERSET)
        rc = read_multi_counters(&c, b);
    if (!rc && b->type == PCQ_PERF_MULTI_COUNTERS) {
        b->body = c.pos;
        b->body_end = end;
        block_values(it->buf, it->buf_len, b, &sub);
        sub.opts = it->opts;
        sub.bounded |= c.bounded;
        rc = walk_values(&sub);
        c.err = sub.err;
        c.pos = sub.pos;
    }
    /* PERF_COUNTERSET: _PERF_MULTI_COUNTERS.dwSize must leave room for the
     * _PERF_MULTI_INSTANCES that follows it. */
    if (!rc && b->type == PCQ_PERF_COUNTERSET && end - c.pos < MI_SIZE)
        rc = range_fail(&c.err, it->buf_len, b->multi_at, (size_t)b->multi_size + MI_SIZE,
                        b->multi_at, "_PERF_MULTI_COUNTERS.dwSize");
    if (!rc && (b->type == PCQ_PERF_MULTI_INSTANCES || b->type == PCQ_PERF_COUNTERSET)) {
        rc = read_multi_instances(&c, b);
        if (!rc && (c.bounded & IT_VALIDATE)) {
            block_instances(it->buf, it->buf_len, b, &sub);
            sub.opts = it->opts;
            sub.bounded |= IT_VALIDATE;
            rc = walk_instances(&sub);
            c.err = sub.err;
        }
    }
    if (rc) return iter_adopt(it, &c, rc);
    /* 8 or more unused bytes at the end of the block: its dwSize disagrees. */
    if (end - c.pos >= 8)
        return iter_fail(it, PCQ_ERR_COUNT_MISMATCH, b->offset + CH_SZ,
                         "_PERF_COUNTER_HEADER.dwSize");
    return PCQ_OK;
}

static int block_type_ok(uint32_t t)
{
    return t == 0 || t == 1 || t == 2 || t == 4 || t == 6;
}

/* The smallest block of each type: its header and the fixed structures that
 * MUST follow it (§3.1.4.1.6): a _PERF_COUNTER_DATA (1), _PERF_MULTI_COUNTERS
 * (2), _PERF_MULTI_INSTANCES (4), or both (6). */
static uint32_t block_min_size(uint32_t t)
{
    return t == 0 ? CH_SIZE : t == 6 ? CH_SIZE + MC_SIZE + MI_SIZE : CH_SIZE + 8;
}

int pcq_blocks_next(pcq_iter *it, pcq_block *b)
{
    const uint8_t *p = it->buf;
    const pcq_opts *o = iter_opts(it);
    size_t at = it->pos;
    int rc = iter_more(it);
    if (rc <= 0) return rc;
    if ((rc = iter_need(it, CH_SIZE, "_PERF_COUNTER_HEADER")) != 0) return rc;
    memset(b, 0, sizeof *b);
    b->offset = at;
    b->status = ld32(p + at);
    b->type = ld32(p + at + CH_TYPE);
    b->size = ld32(p + at + CH_SZ);
    b->reserved = ld32(p + at + CH_RESERVED);
    if (!block_type_ok(b->type))
        return iter_fail(it, PCQ_ERR_BAD_BLOCK_TYPE, at + CH_TYPE, "_PERF_COUNTER_HEADER.dwType");
    if (b->size < block_min_size(b->type))
        return iter_fail(it, PCQ_ERR_SIZE_TOO_SMALL, at + CH_SZ, "_PERF_COUNTER_HEADER.dwSize");
    if ((rc = iter_sized(it, at, b->size, at + CH_SZ, "_PERF_COUNTER_HEADER.dwSize")) != 0)
        return rc;
    rc = check_aligned(o, &it->err, at, "_PERF_COUNTER_HEADER");
    if (!rc && b->reserved != 0)
        rc = diag(o, &it->err, PCQ_DIAG_RESERVED, at + CH_RESERVED,
                  "_PERF_COUNTER_HEADER.Reserved");
    if (!rc) rc = read_block_body(it, b);
    if (rc) return rc;
    it->pos = at + b->size;
    it->left--;
    it->index++;
    return 1;
}

/* One _PERF_INSTANCE_HEADER + name, then its values (Figures 8 and 9). Size
 * covers the header, the name and its padding; the values follow it. */
int pcq_instances_of_block_next(pcq_iter *it, pcq_data_instance *out)
{
    const uint8_t *p = it->buf;
    const pcq_opts *o = iter_opts(it);
    size_t at = it->pos, nul;
    pcq_iter v;
    uint32_t size;
    int rc = iter_more(it);
    if (rc <= 0) return rc;
    rc = read_named(it, INST_SIZE, 0, "_PERF_INSTANCE_HEADER", "_PERF_INSTANCE_HEADER.Size",
                    &size, &nul);
    if (rc) return rc;
    rc = check_aligned(o, &it->err, at, "_PERF_INSTANCE_HEADER");
    /* Figure 8: the padding after the name "MUST be set to 0". */
    if (!rc) rc = check_zero(o, &it->err, p, nul + 2, at + size, "instance name padding");
    if (rc) return rc;

    memset(out, 0, sizeof *out);
    out->size = size;
    out->instance_id = ld32(p + at + INST_ID);
    out->name.ptr = p + at + INST_SIZE;
    out->name.len = nul - at - INST_SIZE;
    out->offset = at;
    out->num_values = it->nvalues;
    out->values = at + size;

    iter_child(&v, it, at + size, it->end, M_VALUES);
    v.bounded |= IT_COUNTED;            /* the container goes on: no slack check */
    v.left = it->nvalues;
    v.count_at = it->aux_at;
    v.count_what = it->aux_what;
    /* Only the last value is kept (a PERF_MULTI_INSTANCES instance has one). */
    if (v.left > 1) skip_values(&v, v.left - 1);
    while ((rc = pcq_values_next(&v, &out->value)) == 1) {}
    if (rc < 0) return iter_adopt(it, &v, rc);
    out->values_end = v.pos;
    it->pos = v.pos;
    it->left--;
    it->index++;
    return 1;
}

void pcq_data_blocks(const pcq_data *d, pcq_iter *it)
{
    iter_init(it, d->buf, d->buf_len, DH_SIZE, d->total_size, M_BLOCKS);
    it->bounded = IT_COUNTED | IT_EXACT;
    it->left = d->num_counters;
    it->count_at = DH_NUM;
    it->count_what = "_PERF_DATA_HEADER.dwNumCounter";
    it->size_at = 0;
    it->size_what = "_PERF_DATA_HEADER.dwTotalSize";
}

uint32_t pcq_block_counter_id(const pcq_block *b, uint32_t i)
{
    if (!b || (size_t)i >= b->counter_ids.len / 4) return 0;
    return ld32(b->counter_ids.ptr + (size_t)i * 4);
}

void pcq_block_values(const pcq_data *d, const pcq_block *b, pcq_iter *it)
{
    block_values(d->buf, d->buf_len, b, it);
}

void pcq_block_instances(const pcq_data *d, const pcq_block *b, pcq_iter *it)
{
    block_instances(d->buf, d->buf_len, b, it);
    if (b->type != PCQ_PERF_MULTI_INSTANCES && b->type != PCQ_PERF_COUNTERSET) {
        it->left = 0;
        it->pos = it->end;
    }
}

void pcq_instance_values(const pcq_data *d, const pcq_data_instance *inst, pcq_iter *it)
{
    iter_init(it, d->buf, d->buf_len, inst->values, inst->values_end, M_VALUES);
    it->bounded = IT_COUNTED;
    it->left = inst->num_values;
    it->count_at = inst->offset;
    it->count_what = "_PERF_INSTANCE_HEADER";
}

static void read_data_header(const uint8_t *b, size_t len, pcq_data *d)
{
    const uint8_t *st = b + DH_SYSTIME;
    d->total_size = ld32(b);
    d->num_counters = ld32(b + DH_NUM);
    d->perf_time_stamp = ld64(b + DH_TIME);
    d->perf_time_100nsec = ld64(b + DH_T100);
    d->perf_freq = ld64(b + DH_FREQ);
    d->system_time.year = ld16(st);
    d->system_time.month = ld16(st + 2);
    d->system_time.day_of_week = ld16(st + 4);
    d->system_time.day = ld16(st + 6);
    d->system_time.hour = ld16(st + 8);
    d->system_time.minute = ld16(st + 10);
    d->system_time.second = ld16(st + 12);
    d->system_time.milliseconds = ld16(st + 14);
    d->buf = b;
    d->buf_len = len;
}

int pcq_decode_data(const void *buf, size_t len, const pcq_opts *opts, pcq_data *out,
                    pcq_error *err)
{
    const uint8_t *b = (const uint8_t *)buf;
    pcq_data d;
    pcq_iter it;
    pcq_block blk;
    int rc;

    if (!b && len) return fail(err, PCQ_ERR_INVALID_ARG, 0, "buf");
    if (len < DH_SIZE) return fail(err, PCQ_ERR_TRUNCATED, 0, "_PERF_DATA_HEADER");
    read_data_header(b, len, &d);
    if (d.total_size < DH_SIZE)
        return fail(err, PCQ_ERR_SIZE_TOO_SMALL, 0, "_PERF_DATA_HEADER.dwTotalSize");
    if (d.total_size > len)
        return fail(err, PCQ_ERR_TRUNCATED, 0, "_PERF_DATA_HEADER.dwTotalSize");
    if (d.num_counters > PCQ_MAX_COUNTERS)
        return fail(err, PCQ_ERR_LIMIT, DH_NUM, "_PERF_DATA_HEADER.dwNumCounter");

    pcq_data_blocks(&d, &it);
    it.opts = opts;
    it.bounded |= IT_VALIDATE;
    while ((rc = pcq_blocks_next(&it, &blk)) == 1) {}
    if (rc < 0) return err ? (*err = it.err, rc) : rc;
    if (len > d.total_size) {
        rc = diag(opts, err, PCQ_DIAG_TRAILING_BYTES, d.total_size, "after dwTotalSize");
        if (rc) return rc;
    }
    if (out) *out = d;
    return PCQ_OK;
}

/* ------------------------------------------------------------------------ */
/* One entry point for every kind.                                          */
/* ------------------------------------------------------------------------ */
int pcq_validate(pcq_kind kind, const void *buf, size_t len, const pcq_opts *opts,
                 pcq_error *err)
{
    size_t n;
    fail(err, PCQ_OK, 0, NULL);
    switch (kind) {
    case PCQ_KIND_COUNTERSET_INFO: return pcq_decode_counterset_info(buf, len, opts, NULL, err);
    case PCQ_KIND_COUNTER_INFO: return pcq_decode_counter_info(buf, len, opts, NULL, err);
    case PCQ_KIND_STRINGS: return pcq_decode_strings(buf, len, opts, NULL, err);
    case PCQ_KIND_STRING: return pcq_decode_string(buf, len, opts, NULL, err);
    case PCQ_KIND_GUID: return pcq_decode_guid(buf, len, opts, NULL, err);
    case PCQ_KIND_GUIDS: return pcq_decode_guids(buf, len, opts, NULL, err);
    case PCQ_KIND_INSTANCES: return pcq_decode_instances(buf, len, opts, &n, err);
    case PCQ_KIND_IDENTIFIERS: return pcq_decode_identifiers(buf, len, opts, &n, err);
    case PCQ_KIND_DATA: return pcq_decode_data(buf, len, opts, NULL, err);
    default: return fail(err, PCQ_ERR_INVALID_ARG, 0, "kind");
    }
}

/* ------------------------------------------------------------------------ */
/* Text helpers.                                                            */
/* ------------------------------------------------------------------------ */

/* Next code point of UTF-16LE at *pos (2 or 4 bytes); an unpaired surrogate
 * becomes U+FFFD and counts in *replaced. */
static uint32_t next_code_point(const uint8_t *s, size_t nbytes, size_t *pos, size_t *replaced)
{
    uint32_t hi = ld16(s + *pos), lo;
    *pos += 2;
    if (hi < 0xD800 || hi > 0xDFFF) return hi;
    if (hi <= 0xDBFF && nbytes - *pos >= 2) {
        lo = ld16(s + *pos);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            *pos += 2;
            return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
        }
    }
    (*replaced)++;
    return 0xFFFD;
}

static size_t utf8_encode(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

size_t pcq_utf16_to_utf8(const uint8_t *src, size_t nbytes, char *dst, size_t cap,
                         size_t *replaced)
{
    size_t pos = 0, need = 0, written = 0, bad = 0, k, n;
    int full = 0;
    uint8_t enc[4];
    if (!src) nbytes = 0;
    nbytes &= ~(size_t)1;
    while (pos < nbytes) {
        n = utf8_encode(next_code_point(src, nbytes, &pos, &bad), enc);
        need += n;
        /* Keep room for the NUL; never split a character. */
        if (!full && dst && cap > 0 && n <= cap - 1 - written) {
            for (k = 0; k < n; k++) dst[written + k] = (char)enc[k];
            written += n;
        } else {
            full = 1;
        }
    }
    if (dst && cap > 0) dst[written] = '\0';
    if (replaced) *replaced = bad;
    return need;
}

void pcq_guid_to_text(const pcq_guid *g, char out[PCQ_GUID_TEXT_SIZE])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t b[16];
    size_t i, o = 0;
    b[0] = (uint8_t)(g->data1 >> 24);
    b[1] = (uint8_t)(g->data1 >> 16);
    b[2] = (uint8_t)(g->data1 >> 8);
    b[3] = (uint8_t)g->data1;
    b[4] = (uint8_t)(g->data2 >> 8);
    b[5] = (uint8_t)g->data2;
    b[6] = (uint8_t)(g->data3 >> 8);
    b[7] = (uint8_t)g->data3;
    memcpy(b + 8, g->data4, 8);
    for (i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = '\0';
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int pcq_guid_from_text(const char *text, size_t len, pcq_guid *out)
{
    uint8_t b[16];
    size_t i, o = 0;
    if (!text || !out) return PCQ_ERR_INVALID_ARG;
    if (len == 38 && text[0] == '{' && text[37] == '}') {
        text++;
        len -= 2;
    }
    if (len != 36) return PCQ_ERR_INVALID_ARG;
    for (i = 0; i < 36;) {
        int hi, lo;
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (text[i++] != '-') return PCQ_ERR_INVALID_ARG;
            continue;
        }
        hi = hex_digit(text[i]);
        lo = hex_digit(text[i + 1]);
        if (hi < 0 || lo < 0) return PCQ_ERR_INVALID_ARG;
        b[o++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    out->data1 = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    out->data2 = (uint16_t)(b[4] << 8 | b[5]);
    out->data3 = (uint16_t)(b[6] << 8 | b[7]);
    memcpy(out->data4, b + 8, 8);
    return PCQ_OK;
}

/* ======================================================================== */
/* Encoding: pcq_writer and pcq_reencode.                                   */
/*                                                                          */
/* Writes the canonical layout Windows produces (NOTES §2, docs/decisions.md */
/* D5): every structure starts on an 8-byte boundary and ends with zero     */
/* padding, size fields count that padding, and sizes and counts that depend */
/* on what follows are back-patched once it is known. Stores are byte-wise  */
/* little-endian, so neither host byte order nor the alignment of dst       */
/* matters.                                                                 */
/*                                                                          */
/* Capacity: nothing is ever stored at or past dst + cap. w->len still      */
/* counts every byte, so pcq_writer_finish() can report the size needed;    */
/* with dst == NULL the whole run is a sizing pass. Source bytes (names,    */
/* values) are only read for the part that is actually stored, or to        */
/* validate a name. File-local names of this half start with wr_ / WR_.     */
/* ======================================================================== */
#ifndef PCQ_NO_ENCODER

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
    /* With a 64-bit size_t no sum of caller sizes gets here; with a 32-bit
     * one a sizing pass that reuses a large name can. */
    if (a > SIZE_MAX - b)
        return 0; /* LCOV_EXCL_LINE: reachable only where size_t is 32 bits */
    *sum = a + b;
    return 1;
}

static int wr_mul(size_t a, size_t b, size_t *product)
{
    /* Counts are capped by PCQ_MAX_* before they are multiplied. */
    if (b != 0 && a > SIZE_MAX / b)
        return 0; /* LCOV_EXCL_LINE: reachable only where size_t is 32 bits */
    *product = a * b;
    return 1;
}

/* Rounds up to the next multiple of 8 (§2.2.4: structures begin on 8-byte
 * boundaries, so every padded size is a multiple of 8). */
static int wr_round8(size_t a, size_t *out)
{
    if (a > SIZE_MAX - 7)
        return 0; /* LCOV_EXCL_LINE: reachable only where size_t is 32 bits */
    *out = (a + 7) & ~(size_t)7;
    return 1;
}

/* Whether v fits a 32-bit wire field; always, where size_t is 32 bits. */
static int wr_fits32(size_t v)
{
#if SIZE_MAX > 0xFFFFFFFFu
    return v <= 0xFFFFFFFFu;
#else
    (void)v;
    return 1;
#endif
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

    if (PCQ_NEVER(w->err != PCQ_OK))   /* every caller has checked */
        return 0;
    if (!wr_add(w->len, n, &end)) {
        /* LCOV_EXCL_START: reachable only where size_t is 32 bits */
        wr_fail(w, PCQ_ERR_OVERFLOW);
        return 0;
    } /* LCOV_EXCL_STOP */
    *at = w->len;
    w->len = end;
    return 1;
}

/* Appends n bytes from p, or n zeros when p is NULL. Only the part below cap
 * is copied, so p is never read for bytes that are not stored. */
static void wr_bytes(pcq_writer *w, const uint8_t *p, size_t n)
{
    size_t at, room;

    if (PCQ_NEVER(!wr_reserve(w, n, &at)))
        return;
    if (w->dst == NULL || at >= w->cap)
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

    if (PCQ_NEVER(!wr_reserve(w, 2, &at)))
        return;
    wr_store(w, at, (uint8_t)v);
    wr_store(w, at + 1, (uint8_t)(v >> 8));
}

static void wr_u32(pcq_writer *w, uint32_t v)
{
    size_t at;

    if (PCQ_ALWAYS(wr_reserve(w, 4, &at)))
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
        rc = get(ctx, i, &e);   /* an array, or a validated string block */
        if (PCQ_NEVER(rc != PCQ_OK))
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
        if (PCQ_NEVER(get(ctx, i, &e) != PCQ_OK))
            return;   /* the sizing pass saw every entry */
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
        return wr_fail(w, PCQ_ERR_OVERFLOW); /* LCOV_EXCL_LINE: reachable only where size_t is 32 bits */
    if (wr_strings_text_size(w, get, ctx, n, &text) != PCQ_OK)
        return w->err;
    /* §3.1.4.1.2: the block "MUST be 8-byte aligned"; dwSize counts the padding. */
    if (!wr_add(head, text, &total) || !wr_round8(total, &total) || !wr_fits32(total))
        return wr_fail(w, PCQ_ERR_OVERFLOW);   /* only past 4 GiB of strings */ /* LCOV_EXCL_LINE */
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
    int ok;

    /* n <= PCQ_MAX_COUNTERS: 4 MiB of ids by default; more only with the
     * cap raised on a 32-bit size_t. */
    ok = wr_mul(n, 4, &size) && wr_add(size, WR_MULTI, &size) && wr_round8(size, &size);
    if (!ok || !wr_fits32(size)) {
        /* LCOV_EXCL_START: reachable only where size_t is 32 bits */
        wr_fail(w, PCQ_ERR_OVERFLOW);
        return;
    } /* LCOV_EXCL_STOP */
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

/* Iterators report failures in it->err; hand that on to the caller. The
 * input was validated just before, so this runs only if the caller changes
 * the bytes under us (another thread): defensive, not reachable by input. */
/* LCOV_EXCL_START */
static int wr_iter_fail(const pcq_iter *it, int rc, pcq_error *err)
{
    *err = it->err;
    if (err->code == PCQ_OK)
        err->code = rc;
    return err->code;
}
/* LCOV_EXCL_STOP */

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
        if (PCQ_NEVER(rc != PCQ_OK)) {   /* i < num_counters of a decoded set */
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
        if (PCQ_NEVER(rc != PCQ_OK)) {   /* i < count of a decoded array */
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
        if (PCQ_NEVER(rc != PCQ_OK))   /* validated: walking cannot fail */
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
    if (PCQ_NEVER(rc != PCQ_OK))   /* validated: walking cannot fail */
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
        if (PCQ_NEVER(rc != PCQ_OK))   /* validated: walking cannot fail */
            return rc;
    }
    if (PCQ_NEVER(w->err == PCQ_OK && rc < 0))
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
