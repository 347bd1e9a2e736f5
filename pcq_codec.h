/*
 * pcq_codec.h - codec for the data buffers of [MS-PCQ], the Performance Counter
 * Query Protocol (PerflibV2, RPC interface da5a86c5-12c2-4943-ab30-7f74a813d853).
 *
 * This header is the whole contract. Vendor pcq_codec.h + pcq_codec.c (and
 * pcq_calc.c for the counter-type evaluator) into your tree; C99, libc only.
 *
 * Guarantees, for every function taking (buf, len):
 *   - never reads outside [buf, buf + len), whatever the bytes say;
 *   - never allocates, keeps no global or static mutable state (thread-safe);
 *   - malformed input returns an error with the byte offset of the offending
 *     field; it never asserts, aborts or exits;
 *   - no alignment is assumed: buf may start at any address; results are the
 *     same on little- and big-endian hosts.
 * Encoders (pcq_writer) never write outside [dst, dst + cap) and report the
 * size they need when cap is too small; dst == NULL is a sizing pass.
 *
 * Knobs (define before compiling pcq_codec.c, all optional):
 *   PCQ_NO_ENCODER      leave out pcq_writer and pcq_reencode
 *   PCQ_MAX_COUNTERS    cap on any counter count          (default 1 << 20)
 *   PCQ_MAX_INSTANCES   cap on any instance count         (default 1 << 24)
 *   PCQ_API             decoration for exported functions (default empty)
 *   PCQ_PAIR_CHECK_MAX  counterset-info's pairwise checks up to this many
 *                       counters                          (default 1024)
 * and for pcq_calc.c: PCQ_NO_CALC (leave the evaluator out), and
 * PCQ_COOK_WORK_MIN / PCQ_COOK_WORK_PER_BYTE, pcq_calc_cook's search budget.
 */
#ifndef PCQ_CODEC_H
#define PCQ_CODEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCQ_VERSION_MAJOR 0
#define PCQ_VERSION_MINOR 1
#define PCQ_VERSION_PATCH 0
#define PCQ_VERSION_STRING "0.1.0"
#define PCQ_VERSION_NUMBER \
    (PCQ_VERSION_MAJOR * 10000 + PCQ_VERSION_MINOR * 100 + PCQ_VERSION_PATCH)

#ifndef PCQ_API
#define PCQ_API
#endif

#ifndef PCQ_MAX_COUNTERS
#define PCQ_MAX_COUNTERS (1u << 20)
#endif
#ifndef PCQ_MAX_INSTANCES
#define PCQ_MAX_INSTANCES (1u << 24)
#endif
#if PCQ_MAX_COUNTERS < 1 || PCQ_MAX_COUNTERS > 0x7fffffff
#error "PCQ_MAX_COUNTERS must be in 1..0x7fffffff"
#endif
#if PCQ_MAX_INSTANCES < 1 || PCQ_MAX_INSTANCES > 0x7fffffff
#error "PCQ_MAX_INSTANCES must be in 1..0x7fffffff"
#endif

/* Runtime version: PCQ_VERSION_NUMBER of the compiled library. */
PCQ_API unsigned pcq_version(void);
PCQ_API const char *pcq_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes. Pinned values, banded by family:                           */
/*   0 ok; -1..-19 the input is malformed; -20 a compile-time limit;        */
/*   -30 non-conformant input rejected in strict mode; -40.. caller errors. */
/* One table yields the enum and pcq_strerror()/pcq_status_name().          */
/* ------------------------------------------------------------------------ */
#define PCQ_STATUS_TABLE(X)                                                       \
    X(PCQ_OK,                     0, "ok")                                        \
    X(PCQ_ERR_TRUNCATED,         -1, "buffer ends inside a structure or a declared size") \
    X(PCQ_ERR_EXCEEDS_CONTAINER, -2, "contained item exceeds its container")      \
    X(PCQ_ERR_SIZE_TOO_SMALL,    -3, "size field smaller than its structure")     \
    X(PCQ_ERR_COUNT_MISMATCH,    -4, "count or total disagrees with the content") \
    X(PCQ_ERR_NO_NUL,            -5, "string has no NUL terminator inside its size") \
    X(PCQ_ERR_BAD_BLOCK_TYPE,    -6, "dwType is not 0, 1, 2, 4 or 6")             \
    X(PCQ_ERR_BAD_LENGTH,        -7, "length is not a multiple of the element size") \
    X(PCQ_ERR_OVERFLOW,          -8, "arithmetic overflow")                       \
    X(PCQ_ERR_LIMIT,            -20, "count above a compile-time limit")          \
    X(PCQ_ERR_NONCONFORMANT,    -30, "non-conformant input (strict mode)")        \
    X(PCQ_ERR_BUFFER_TOO_SMALL, -40, "caller buffer too small")                   \
    X(PCQ_ERR_INVALID_ARG,      -41, "invalid argument")                          \
    X(PCQ_ERR_STATE,            -42, "writer call out of order")

typedef enum pcq_status {
#define PCQ_X_(name, value, text) name = value,
    PCQ_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    PCQ_STATUS_END_ = 1
} pcq_status;

/* Families a host analyzer can map onto its own exceptions. */
typedef enum pcq_family {
    PCQ_FAMILY_OK = 0,
    PCQ_FAMILY_TRUNCATED,   /* the input ends early (e.g. a cut capture)   */
    PCQ_FAMILY_CONTAINER,   /* contained item exceeds its container        */
    PCQ_FAMILY_MALFORMED,   /* any other malformed input                   */
    PCQ_FAMILY_LIMIT,
    PCQ_FAMILY_NONCONFORMANT,
    PCQ_FAMILY_CALLER       /* buffer too small, invalid argument, state   */
} pcq_family;

PCQ_API const char *pcq_strerror(int status);      /* never NULL */
PCQ_API const char *pcq_status_name(int status);   /* "PCQ_ERR_TRUNCATED" */
PCQ_API pcq_family pcq_status_family(int status);

/* The first error of a call. offset: byte offset into the input; what: the
 * field, e.g. "_PERF_COUNTER_HEADER.dwSize" (static string); diag: with
 * PCQ_ERR_NONCONFORMANT, the pcq_diag_code of the rule broken (else 0). */
typedef struct pcq_error {
    int code;
    size_t offset;
    const char *what;
    int diag;
} pcq_error;

/* ------------------------------------------------------------------------ */
/* Diagnostics: walkable input that breaks a MUST of the spec.              */
/* ------------------------------------------------------------------------ */
#define PCQ_DIAG_TABLE(X)                                                               \
    X(PCQ_DIAG_UNALIGNED,             1, "structure does not start on an 8-byte boundary") \
    X(PCQ_DIAG_SIZE_NOT_MULTIPLE_OF_8, 2, "size is not a multiple of 8")                  \
    X(PCQ_DIAG_DETAIL_LEVEL,          3, "DetailLevel is not 100 or 200")                 \
    X(PCQ_DIAG_INSTANCE_TYPE,         4, "unknown InstanceType")                          \
    X(PCQ_DIAG_AGGREGATE_FUNC,        5, "AggregateFunc is above 4")                      \
    X(PCQ_DIAG_DEFAULT_SCALE,         6, "DefaultScale outside -10..10")                  \
    X(PCQ_DIAG_ATTRIB,                7, "unknown or forbidden Attrib combination")       \
    X(PCQ_DIAG_RESERVED,              8, "Reserved field is not 0")                       \
    X(PCQ_DIAG_COUNTERSET_TYPE,       9, "CounterSetType is not 0")                       \
    X(PCQ_DIAG_PADDING,              10, "padding is not 0 where the spec requires 0")    \
    X(PCQ_DIAG_COUNTER_TYPE,         11, "counter Type is not one of the spec's types")   \
    X(PCQ_DIAG_TRAILING_BYTES,       12, "bytes after the last structure")                \
    X(PCQ_DIAG_DUPLICATE_ID,         13, "CounterId is not unique in the counterset")     \
    X(PCQ_DIAG_RELATED_COUNTER,      14, "related counter missing or of the wrong type")

typedef enum pcq_diag_code {
#define PCQ_X_(name, value, text) name = value,
    PCQ_DIAG_TABLE(PCQ_X_)
#undef PCQ_X_
    PCQ_DIAG_END_
} pcq_diag_code;

PCQ_API const char *pcq_diag_name(int code);   /* "PCQ_DIAG_UNALIGNED" */
PCQ_API const char *pcq_diag_text(int code);   /* human sentence       */

typedef struct pcq_diag {
    int code;           /* pcq_diag_code */
    size_t offset;
    const char *what;   /* the field or structure, static string */
} pcq_diag;

/* Decoding options. NULL means: lenient, diagnostics not reported.
 * on_diag is called for every diagnostic, in walk order, before PCQ_STRICT
 * turns the first one into the error. */
#define PCQ_STRICT 1u   /* the first diagnostic becomes PCQ_ERR_NONCONFORMANT */
typedef struct pcq_opts {
    unsigned flags;
    void (*on_diag)(void *ctx, const pcq_diag *d);  /* may be NULL */
    void *ctx;
} pcq_opts;

/* ------------------------------------------------------------------------ */
/* Buffer kinds and where they travel (§3.1.4.1).                           */
/* ------------------------------------------------------------------------ */
typedef enum pcq_kind {
    PCQ_KIND_NONE = 0,          /* the message carries no such buffer      */
    PCQ_KIND_COUNTERSET_INFO,   /* opnum 1 reply, RequestCode 1            */
    PCQ_KIND_COUNTER_INFO,      /* opnum 1 reply, RequestCode 2            */
    PCQ_KIND_STRINGS,           /* opnum 1 reply, RequestCode 5, 6, 10     */
    PCQ_KIND_STRING,            /* opnum 1 reply, RequestCode 3, 4, 7, 9   */
    PCQ_KIND_GUID,              /* opnum 1 reply, RequestCode 8            */
    PCQ_KIND_GUIDS,             /* opnum 0 reply (lpData)                  */
    PCQ_KIND_INSTANCES,         /* opnum 2 reply                           */
    PCQ_KIND_IDENTIFIERS,       /* opnum 5 reply; opnum 7 request + reply  */
    PCQ_KIND_DATA,              /* opnum 6 reply                           */
    PCQ_KIND_END_
} pcq_kind;

/* Which buffer lpData holds for (opnum, RequestCode, direction). request_code
 * matters for opnum 1 only. is_reply: 0 for the request, 1 for the reply. */
PCQ_API pcq_kind pcq_kind_for(uint32_t opnum, uint32_t request_code, int is_reply);
PCQ_API const char *pcq_kind_name(pcq_kind kind);          /* "counterset-info" */
PCQ_API pcq_kind pcq_kind_from_name(const char *name);     /* PCQ_KIND_NONE if unknown */

/* ------------------------------------------------------------------------ */
/* Plain values.                                                            */
/* ------------------------------------------------------------------------ */

/* A view into the caller's input: never owned, never NUL-terminated. */
typedef struct pcq_bytes {
    const uint8_t *ptr;
    size_t len;
} pcq_bytes;

/* GUID, [MS-DTYP]: Data1..3 little-endian on the wire, Data4 as-is. */
typedef struct pcq_guid {
    uint32_t data1;
    uint16_t data2, data3;
    uint8_t data4[8];
} pcq_guid;

typedef struct pcq_systemtime {
    uint16_t year, month, day_of_week, day, hour, minute, second, milliseconds;
} pcq_systemtime;

/* ------------------------------------------------------------------------ */
/* counterset-info and counter-info (§2.2.4.1, §2.2.4.2, Figure 1).         */
/* ------------------------------------------------------------------------ */
typedef struct pcq_counterset_reg {
    pcq_guid guid;
    uint32_t counterset_type, detail_level, num_counters, instance_type;
} pcq_counterset_reg;

typedef struct pcq_counter_reg {
    uint32_t counter_id, type;
    uint64_t attrib;
    uint32_t detail_level;
    int32_t default_scale;
    uint32_t base_counter_id, perf_time_id, perf_freq_id, multi_id;
    uint32_t aggregate_func, reserved;
} pcq_counter_reg;

typedef struct pcq_counterset_info {
    pcq_counterset_reg set;
    pcq_bytes counters;          /* num_counters x 48 bytes */
    size_t counters_offset;      /* 32 */
} pcq_counterset_info;

PCQ_API int pcq_decode_counterset_info(const void *buf, size_t len, const pcq_opts *opts,
                                       pcq_counterset_info *out, pcq_error *err);
/* Counter i (0 <= i < num_counters) of a decoded counterset-info. */
PCQ_API int pcq_counterset_counter(const pcq_counterset_info *csi, uint32_t i,
                                   pcq_counter_reg *out);
PCQ_API int pcq_decode_counter_info(const void *buf, size_t len, const pcq_opts *opts,
                                    pcq_counter_reg *out, pcq_error *err);

/* ------------------------------------------------------------------------ */
/* strings (§2.2.4.3, §2.2.4.4, §3.1.4.1.2 Figure 2; NOTES §3).             */
/* ------------------------------------------------------------------------ */
typedef enum pcq_str_convention {
    PCQ_STROFF_NONE = 0,   /* no string present: nothing to tell            */
    PCQ_STROFF_SPEC,       /* dwOffset from the end of the header array      */
    PCQ_STROFF_WIN32       /* dwOffset from the start of the block (perflib.h) */
} pcq_str_convention;

#define PCQ_STRING_ABSENT 0xFFFFFFFFu

typedef struct pcq_strings {
    uint32_t size, num_counters;
    pcq_str_convention convention;
    pcq_bytes block;             /* the first `size` bytes of the input */
} pcq_strings;

typedef struct pcq_string_entry {
    uint32_t counter_id, offset;  /* raw dwOffset */
    int present;                  /* 0 when dwOffset is 0xFFFFFFFF */
    pcq_bytes text;               /* UTF-16LE, without the NUL */
    size_t text_offset;           /* byte offset of the text in the input */
} pcq_string_entry;

/* Validates every entry in time linear in len, also when entries share text. */
PCQ_API int pcq_decode_strings(const void *buf, size_t len, const pcq_opts *opts,
                               pcq_strings *out, pcq_error *err);
/* Entry i of a decoded block; costs the length of its string. */
PCQ_API int pcq_strings_get(const pcq_strings *s, uint32_t i, pcq_string_entry *out);

/* ------------------------------------------------------------------------ */
/* string, guid, guids.                                                     */
/* ------------------------------------------------------------------------ */
/* One NUL-terminated UTF-16LE string; *out is the text without the NUL. */
PCQ_API int pcq_decode_string(const void *buf, size_t len, const pcq_opts *opts,
                              pcq_bytes *out, pcq_error *err);
PCQ_API int pcq_decode_guid(const void *buf, size_t len, const pcq_opts *opts,
                            pcq_guid *out, pcq_error *err);

typedef struct pcq_guid_array {
    const uint8_t *ptr;
    size_t count;
} pcq_guid_array;

PCQ_API int pcq_decode_guids(const void *buf, size_t len, const pcq_opts *opts,
                             pcq_guid_array *out, pcq_error *err);
PCQ_API int pcq_guids_get(const pcq_guid_array *a, size_t i, pcq_guid *out);
/* Reads the 16 bytes at p. */
PCQ_API void pcq_guid_read(const uint8_t *p, pcq_guid *out);

/* ------------------------------------------------------------------------ */
/* Iterators. One type for every sequence; it lives on the caller's stack.  */
/* next() returns 1 with an item, 0 at a clean end, or a negative status    */
/* (details in it->err). After a successful pcq_decode_*, iteration over    */
/* the same unchanged bytes never fails. Fields are private.                */
/* ------------------------------------------------------------------------ */
typedef struct pcq_iter {
    const uint8_t *buf;
    size_t buf_len;          /* the whole input */
    size_t pos, end;         /* current position and end of the container */
    size_t count_at, size_at;/* offsets of the count and size fields */
    size_t aux_at;           /* offset blamed when an instance lacks values */
    const char *count_what, *size_what, *aux_what;  /* their field names */
    uint32_t left, index;    /* items still expected, items returned */
    uint32_t nvalues;        /* values per instance (PERF_COUNTERSET) */
    int mode, bounded;       /* what is iterated; count known? */
    const pcq_opts *opts;    /* diagnostics while validating, else NULL */
    pcq_error err;
} pcq_iter;

/* ------------------------------------------------------------------------ */
/* instances (§2.2.4.5, §3.1.4.1.3 Figure 3).                               */
/* ------------------------------------------------------------------------ */
typedef struct pcq_instance {
    uint32_t size, instance_id;
    pcq_bytes name;              /* UTF-16LE, without the NUL */
    size_t offset;               /* of the _PERF_INSTANCE_HEADER */
} pcq_instance;

/* Validates the whole array; *count (may be NULL) receives the number of instances. */
PCQ_API int pcq_decode_instances(const void *buf, size_t len, const pcq_opts *opts,
                                 size_t *count, pcq_error *err);
PCQ_API void pcq_instances_begin(const void *buf, size_t len, pcq_iter *it);
PCQ_API int pcq_instances_next(pcq_iter *it, pcq_instance *out);

/* ------------------------------------------------------------------------ */
/* identifiers (§2.2.4.6, §3.1.4.1.5 Figure 4, §3.1.4.1.7).                 */
/* ------------------------------------------------------------------------ */
typedef struct pcq_identifier {
    pcq_guid guid;
    uint32_t status, size, counter_id, instance_id, index, reserved;
    pcq_bytes name;              /* UTF-16LE, without the NUL */
    size_t offset;
} pcq_identifier;

#define PCQ_WILDCARD_COUNTER 0xFFFFFFFFu   /* §3.1.4.1.7 */

/* Validates the whole array; *count (may be NULL) receives the number of identifiers. */
PCQ_API int pcq_decode_identifiers(const void *buf, size_t len, const pcq_opts *opts,
                                   size_t *count, pcq_error *err);
PCQ_API void pcq_identifiers_begin(const void *buf, size_t len, pcq_iter *it);
PCQ_API int pcq_identifiers_next(pcq_iter *it, pcq_identifier *out);

/* ------------------------------------------------------------------------ */
/* data (§2.2.4.7-2.2.4.11, §3.1.4.1.6 Figures 5-9).                         */
/* ------------------------------------------------------------------------ */
#define PCQ_PERF_ERROR_RETURN    0u
#define PCQ_PERF_SINGLE_COUNTER  1u
#define PCQ_PERF_MULTI_COUNTERS  2u
#define PCQ_PERF_MULTI_INSTANCES 4u
#define PCQ_PERF_COUNTERSET      6u

typedef struct pcq_data {
    uint32_t total_size, num_counters;
    uint64_t perf_time_stamp, perf_time_100nsec, perf_freq;
    pcq_systemtime system_time;
    const uint8_t *buf;          /* the input */
    size_t buf_len;
} pcq_data;

/* One _PERF_COUNTER_DATA and its value. */
typedef struct pcq_value {
    uint32_t data_size, size;    /* dwDataSize, dwSize */
    pcq_bytes data;              /* the dwDataSize value bytes */
    uint64_t u64;                /* the value when is_int */
    int is_int;                  /* data_size is 4 or 8 */
    size_t offset;               /* of the _PERF_COUNTER_DATA */
} pcq_value;

/* One _PERF_COUNTER_HEADER block. Which fields mean something depends on type. */
typedef struct pcq_block {
    uint32_t status, type, size, reserved;
    size_t offset;               /* of the _PERF_COUNTER_HEADER */
    pcq_value value;             /* type 1 */
    uint32_t multi_size, num_counters;  /* types 2, 6: _PERF_MULTI_COUNTERS */
    pcq_bytes counter_ids;       /* types 2, 6: num_counters x 4 bytes */
    uint32_t instances_size, num_instances; /* types 4, 6: _PERF_MULTI_INSTANCES */
    size_t multi_at, instances_at; /* offsets of those two structures (0: none) */
    size_t body;                 /* private: where values or instances start */
    size_t body_end;             /* private */
} pcq_block;

/* An instance inside a PERF_MULTI_INSTANCES or PERF_COUNTERSET block. */
typedef struct pcq_data_instance {
    uint32_t size, instance_id;
    pcq_bytes name;              /* UTF-16LE, without the NUL */
    size_t offset;               /* of the _PERF_INSTANCE_HEADER */
    pcq_value value;             /* type 4: its one value */
    uint32_t num_values;         /* type 6: values that follow */
    size_t values;               /* private */
    size_t values_end;           /* private */
} pcq_data_instance;

/* Validates the whole buffer (every block, instance and value). */
PCQ_API int pcq_decode_data(const void *buf, size_t len, const pcq_opts *opts,
                            pcq_data *out, pcq_error *err);
PCQ_API void pcq_data_blocks(const pcq_data *d, pcq_iter *it);
PCQ_API int pcq_blocks_next(pcq_iter *it, pcq_block *out);
/* Counter id i of a type 2 or 6 block (0 if out of range). */
PCQ_API uint32_t pcq_block_counter_id(const pcq_block *b, uint32_t i);
/* Values of a block: dwCounters of a type 2 block, the one of a type 1 block
 * (also in out->value), none for the other types. */
PCQ_API void pcq_block_values(const pcq_data *d, const pcq_block *b, pcq_iter *it);
/* Instances of a type 4 or 6 block. */
PCQ_API void pcq_block_instances(const pcq_data *d, const pcq_block *b, pcq_iter *it);
PCQ_API int pcq_instances_of_block_next(pcq_iter *it, pcq_data_instance *out);
/* Values of one instance of a type 6 block. */
PCQ_API void pcq_instance_values(const pcq_data *d, const pcq_data_instance *inst, pcq_iter *it);
PCQ_API int pcq_values_next(pcq_iter *it, pcq_value *out);

/* ------------------------------------------------------------------------ */
/* One entry point for every kind (validates; for tools and fuzzers).        */
/* ------------------------------------------------------------------------ */
PCQ_API int pcq_validate(pcq_kind kind, const void *buf, size_t len, const pcq_opts *opts,
                         pcq_error *err);

/* ------------------------------------------------------------------------ */
/* Text helpers.                                                            */
/* ------------------------------------------------------------------------ */
/* UTF-16LE (nbytes; an odd last byte is ignored) to UTF-8. Convert a name in
 * one call; converting it in pieces is safe only at even offsets that do not
 * split a surrogate pair (a piece ending on 0xD800..0xDBFF would give two
 * U+FFFD instead of one character). Writes at most cap
 * bytes and always NUL-terminates when cap > 0 (truncating at a character
 * boundary). Returns the bytes the full conversion needs, without the NUL.
 * *replaced (may be NULL) receives the number of unpaired surrogates that
 * became U+FFFD. */
PCQ_API size_t pcq_utf16_to_utf8(const uint8_t *src, size_t nbytes, char *dst, size_t cap,
                                 size_t *replaced);
/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lowercase, 36 chars + NUL. */
#define PCQ_GUID_TEXT_SIZE 37
PCQ_API void pcq_guid_to_text(const pcq_guid *g, char out[PCQ_GUID_TEXT_SIZE]);
/* Accepts that form, optionally in braces, either case. PCQ_OK or PCQ_ERR_INVALID_ARG. */
PCQ_API int pcq_guid_from_text(const char *text, size_t len, pcq_guid *out);

/* Names of the spec's constants; NULL when the value is not a known one. */
PCQ_API const char *pcq_counter_type_name(uint32_t type);      /* "PERF_COUNTER_COUNTER" */
PCQ_API const char *pcq_detail_level_name(uint32_t level);     /* "PERF_DETAIL_NOVICE" */
PCQ_API const char *pcq_instance_type_name(uint32_t type);     /* "PERF_COUNTERSET_MULTI_INSTANCES" */
PCQ_API const char *pcq_aggregate_name(uint32_t func);         /* "PERF_AGGREGATE_TOTAL" */
PCQ_API const char *pcq_block_type_name(uint32_t type);        /* "PERF_SINGLE_COUNTER" */
PCQ_API const char *pcq_request_code_name(uint32_t code);      /* "COUNTERSET_INFO" */
PCQ_API const char *pcq_win32_status_name(uint32_t status);    /* "ERROR_NO_DATA" */
PCQ_API const char *pcq_opnum_name(uint32_t opnum);            /* "PerflibV2QueryCounterData" */
/* Attrib bit i (0..4): "PERF_ATTRIB_BY_REFERENCE", ... */
PCQ_API const char *pcq_attrib_bit_name(unsigned bit);

/* Counter-type predicates used by validation and the evaluator (§2.2.4.2). */
PCQ_API int pcq_counter_type_is_known(uint32_t type);   /* one of the 34 spec types */

#ifndef PCQ_NO_ENCODER
/* ------------------------------------------------------------------------ */
/* Encoding: a writer into (dst, cap). Every call appends the canonical form */
/* Windows produces (NOTES §2: structures padded to 8 with zeros; a          */
/* _PERF_COUNTER_DATA value area of at least 8 bytes; _PERF_MULTI_COUNTERS   */
/* dwSize including its padding). Sizes and counts are back-patched. Errors  */
/* are sticky: after one, calls do nothing and finish() returns it. Bytes    */
/* past cap are counted, never written; dst == NULL sizes.                   */
/* ------------------------------------------------------------------------ */
typedef struct pcq_writer {
    uint8_t *dst;
    size_t cap, len;             /* len: bytes produced so far (may exceed cap) */
    int err;
    int state;                   /* private */
    size_t data_at, block_at, multi_at, inst_at;   /* private */
    uint32_t nblocks, ninstances, nvalues, want_values;  /* private */
    uint32_t block_type;         /* private */
} pcq_writer;

PCQ_API void pcq_writer_init(pcq_writer *w, void *dst, size_t cap);
/* PCQ_OK and *len = bytes written (with dst == NULL: bytes needed, cap
 * ignored); PCQ_ERR_BUFFER_TOO_SMALL and *len = bytes needed; or the first
 * error of the sequence with *len = 0. len may be NULL.
 * Errors of the put/begin/end calls:
 *   PCQ_ERR_INVALID_ARG  odd nbytes, NULL with a non-zero length, a U+0000
 *                        inside a name (it would not survive decoding),
 *                        counter ids given for type 1 or 4, bad convention;
 *   PCQ_ERR_LIMIT        more than PCQ_MAX_COUNTERS entries, ids or blocks,
 *                        more than PCQ_MAX_INSTANCES instances;
 *   PCQ_ERR_OVERFLOW     a size that does not fit its 32-bit wire field;
 *   PCQ_ERR_STATE        a call out of order (a value outside a block, the
 *                        wrong number of values, begin_block with type 0 or
 *                        an unknown type, finish with a block still open). */
PCQ_API int pcq_writer_finish(pcq_writer *w, size_t *len);

PCQ_API int pcq_put_counterset_reg(pcq_writer *w, const pcq_counterset_reg *set);
PCQ_API int pcq_put_counter_reg(pcq_writer *w, const pcq_counter_reg *c);
/* Text is UTF-16LE without a NUL; the writer adds the NUL. */
PCQ_API int pcq_put_string(pcq_writer *w, const uint8_t *utf16, size_t nbytes);
PCQ_API int pcq_put_guid(pcq_writer *w, const pcq_guid *g);
PCQ_API int pcq_put_instance(pcq_writer *w, uint32_t instance_id,
                             const uint8_t *name16, size_t nbytes);
PCQ_API int pcq_put_identifier(pcq_writer *w, const pcq_identifier *id); /* uses id->name; size computed */

/* A string block: n entries; an entry with present == 0 gets 0xFFFFFFFF.
 * convention: PCQ_STROFF_WIN32 (default for NONE) or PCQ_STROFF_SPEC. */
PCQ_API int pcq_put_strings(pcq_writer *w, const pcq_string_entry *entries, uint32_t n,
                            pcq_str_convention convention);

/* data: begin, blocks, end. Header sizes and counts are back-patched. */
PCQ_API int pcq_begin_data(pcq_writer *w, const pcq_data *hdr); /* uses the time fields */
PCQ_API int pcq_put_error_block(pcq_writer *w, uint32_t status);
PCQ_API int pcq_begin_block(pcq_writer *w, uint32_t type, uint32_t status,
                            const uint32_t *counter_ids, uint32_t num_counters);
PCQ_API int pcq_put_data_instance(pcq_writer *w, uint32_t instance_id,
                                  const uint8_t *name16, size_t nbytes);
PCQ_API int pcq_put_value(pcq_writer *w, const uint8_t *bytes, uint32_t data_size);
PCQ_API int pcq_put_value_u32(pcq_writer *w, uint32_t v);
PCQ_API int pcq_put_value_u64(pcq_writer *w, uint64_t v);
PCQ_API int pcq_end_block(pcq_writer *w);
PCQ_API int pcq_end_data(pcq_writer *w);

/* Decode src as `kind` (lenient) and write its canonical encoding. For a
 * canonical buffer the output equals the input byte for byte. Work is linear
 * in len and the output; string-block entries that share text are written
 * out one by one, so that output can be far larger than src (docs D11). Decoder errors
 * come back through err unchanged (*out_len = 0); output-side errors set
 * err->code with offset 0. dst == NULL sizes; a too-small dst gives
 * PCQ_ERR_BUFFER_TOO_SMALL with *out_len = bytes needed. */
PCQ_API int pcq_reencode(pcq_kind kind, const void *src, size_t len, void *dst, size_t cap,
                         size_t *out_len, pcq_error *err);
#endif /* PCQ_NO_ENCODER */

/* ==== BEGIN evaluator (pcq_calc.c) ==== */
#ifndef PCQ_NO_CALC
/* ------------------------------------------------------------------------ */
/* Evaluator: raw counter samples to the values people read, as Windows PDH */
/* computes them (§2.2.4.2; formulas and every decision: docs/formulas.md). */
/* No allocation, no global state; never NaN, infinity or UB on any input.  */
/* ------------------------------------------------------------------------ */

/* Counter-type bit fields (winperf.h; NOTES §5). Compare a field with ==,
 * never with (t & X) == X: PRECISION (7) contains BASE (3) and RATE (1). */
#define PCQ_CALC_SIZE_FIELD(t)     ((uint32_t)(t) & 0x00000300u) /* 0 DWORD, 0x100 LARGE, 0x200 ZERO, 0x300 VAR */
#define PCQ_CALC_TYPE_FIELD(t)     ((uint32_t)(t) & 0x00000C00u) /* 0 NUMBER, 0x400 COUNTER, 0x800 TEXT */
#define PCQ_CALC_SUBTYPE_FIELD(t)  ((uint32_t)(t) & 0x000F0000u)
#define PCQ_CALC_TIMEBASE_FIELD(t) ((uint32_t)(t) & 0x00300000u) /* 0 TICK, 0x100000 100NS, 0x200000 OBJECT */
#define PCQ_CALC_DISPLAY_FIELD(t)  ((uint32_t)(t) & 0xF0000000u) /* 0 none, 1 /sec, 2 %, 3 secs, 4 no-show */
#define PCQ_CALC_DELTA_COUNTER 0x00400000u
#define PCQ_CALC_DELTA_BASE    0x00800000u
#define PCQ_CALC_INVERSE       0x01000000u
#define PCQ_CALC_MULTI         0x02000000u

/* Statuses of one computed value (not errors of a call). */
#define PCQ_CALC_STATUS_TABLE(X)                                                              \
    X(PCQ_CALC_OK,                    0, "ok")                                                \
    X(PCQ_CALC_NEED_SECOND_SAMPLE,    1, "the type needs two samples; no older sample")      \
    X(PCQ_CALC_NEGATIVE_DENOMINATOR,  2, "the time or base went backwards between samples")  \
    X(PCQ_CALC_ZERO_DENOMINATOR,      3, "no time elapsed between the samples, or MultiId is 0") \
    X(PCQ_CALC_BAD_TIME_BASE,         4, "the frequency is 0")                               \
    X(PCQ_CALC_WENT_BACKWARDS,        5, "the counter went backwards (reset)")               \
    X(PCQ_CALC_NEGATIVE_VALUE,        6, "the formula gives a negative value")               \
    X(PCQ_CALC_MISSING_RELATED,       7, "a base, time, frequency or multi counter is missing") \
    X(PCQ_CALC_NOT_DISPLAYABLE,       8, "a base or no-data type: no value of its own")      \
    X(PCQ_CALC_NOT_NUMERIC,           9, "a text counter")                                   \
    X(PCQ_CALC_UNKNOWN_TYPE,         10, "counter type unknown to the evaluator")            \
    X(PCQ_CALC_BAD_VALUE_SIZE,       11, "the value is not 4 or 8 bytes")                    \
    X(PCQ_CALC_BAD_SCALE,            12, "DefaultScale outside -10..10")                     \
    X(PCQ_CALC_OUT_OF_RANGE,         13, "the result is not a finite number")                \
    X(PCQ_CALC_NO_INSTANCE,          14, "no instance to aggregate")

typedef enum pcq_calc_status {
#define PCQ_X_(name, value, text) name = value,
    PCQ_CALC_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    PCQ_CALC_STATUS_END_
} pcq_calc_status;

PCQ_API const char *pcq_calc_status_name(int status);  /* "PCQ_CALC_OK"; never NULL */
PCQ_API const char *pcq_calc_status_text(int status);  /* human sentence; never NULL */

/* What each type needs and how it is shown. */
#define PCQ_CALC_NEEDS_BASE  1u   /* BaseCounterId */
#define PCQ_CALC_NEEDS_TIME  2u   /* PerfTimeId (To) */
#define PCQ_CALC_NEEDS_FREQ  4u   /* PerfFreqId (Fo) */
#define PCQ_CALC_NEEDS_MULTI 8u   /* MultiId (M) */

typedef enum pcq_calc_timebase {
    PCQ_CALC_TB_NONE = 0,    /* no time in the formula */
    PCQ_CALC_TB_TICK,        /* header PerfTimeStamp, PerfFreq */
    PCQ_CALC_TB_100NS,       /* header PerfTime100NSec */
    PCQ_CALC_TB_OBJECT,      /* PerfTimeId / PerfFreqId counters */
    PCQ_CALC_TB_BASE         /* the base counter is the clock (PRECISION_*) */
} pcq_calc_timebase;

typedef enum pcq_calc_unit {
    PCQ_CALC_UNIT_NONE = 0,
    PCQ_CALC_UNIT_PER_SEC,
    PCQ_CALC_UNIT_PERCENT,
    PCQ_CALC_UNIT_SECONDS,
    PCQ_CALC_UNIT_TEXT
} pcq_calc_unit;

typedef struct pcq_calc_type {
    uint32_t type;
    const char *formula;      /* e.g. "dN / (dT / F)"; see docs/formulas.md */
    uint8_t size;             /* value bytes the size bits give: 4, 8, 0 (none) */
    uint8_t samples;          /* 1 or 2 */
    uint8_t needs;            /* PCQ_CALC_NEEDS_* */
    uint8_t timebase;         /* pcq_calc_timebase */
    uint8_t unit;             /* pcq_calc_unit */
    uint8_t displayable;      /* 0 for bases, NODATA and TEXT */
    uint8_t hex;              /* shown in hexadecimal */
    uint8_t op;               /* private: formula selector */
} pcq_calc_type;

/* The descriptor of a type: the 34 of §2.2.4.2 and PERF_COUNTER_DELTA,
 * PERF_COUNTER_LARGE_DELTA, PERF_COUNTER_MULTI_BASE, PERF_COUNTER_NODATA.
 * NULL when unknown. pcq_calc_type_at(i) walks the table (NULL past its end). */
PCQ_API const pcq_calc_type *pcq_calc_type_info(uint32_t type);
PCQ_API const pcq_calc_type *pcq_calc_type_at(size_t i);

/* One raw sample of one counter with its related values. */
#define PCQ_CALC_HAVE_BASE  1u
#define PCQ_CALC_HAVE_TIME  2u
#define PCQ_CALC_HAVE_FREQ  4u
#define PCQ_CALC_HAVE_MULTI 8u
typedef struct pcq_calc_sample {
    uint64_t value;           /* N */
    uint64_t base;            /* B: the BaseCounterId value */
    uint64_t obj_time;        /* To: the PerfTimeId value */
    uint64_t obj_freq;        /* Fo: the PerfFreqId value */
    uint64_t multi;           /* M: the MultiId value */
    uint64_t time;            /* T: _PERF_DATA_HEADER.PerfTimeStamp */
    uint64_t time_100ns;      /* T100: PerfTime100NSec */
    uint64_t freq;            /* F: PerfFreq */
    uint8_t value_size;       /* 4 or 8 (dwDataSize); 0: from the type's size bits */
    uint8_t base_size;        /* the same for the base */
    uint8_t have;             /* PCQ_CALC_HAVE_*: which related values are present */
} pcq_calc_sample;

/* Format flags (PDH_FMT_NOSCALE, _NOCAP100, _1000) and the 32-bit rule. */
#define PCQ_CALC_NOSCALE  0x1u  /* do not apply DefaultScale */
#define PCQ_CALC_NOCAP100 0x2u  /* percentages are not held to 0..100 */
#define PCQ_CALC_X1000    0x4u  /* multiply the result by 1000 */
#define PCQ_CALC_NOWRAP32 0x8u  /* a 4-byte value that decreased is a reset, never a wrap */

/* Notes on a result (bits of *notes). */
#define PCQ_CALC_NOTE_WRAPPED 0x1u  /* a 4-byte counter or base wrapped past 2^32 */
#define PCQ_CALC_NOTE_CAPPED  0x2u  /* the percentage was held to 0..100 */

/* Computes the displayed value of `type` from an older and a newer sample
 * (older may be NULL: one-sample types still compute). Order: formula, then
 * the cap at 100 (percent types, unless NOCAP100), then 10^scale (unless
 * NOSCALE), then x1000. 4-byte deltas are taken modulo 2^32 when the modular
 * delta is below 2^31 (a wrap); otherwise, or with NOWRAP32, a decrease is a
 * reset. Returns a pcq_calc_status; *out (may be NULL) is written only on
 * PCQ_CALC_OK and is then finite; *notes (may be NULL) gets PCQ_CALC_NOTE_*. */
PCQ_API int pcq_calc_value(uint32_t type, int32_t scale, const pcq_calc_sample *older,
                           const pcq_calc_sample *newer, unsigned flags, double *out,
                           unsigned *notes);

/* 10^scale for scale in -10..10 (exact powers from a table); 0 otherwise. */
PCQ_API double pcq_calc_scale_factor(int32_t scale);

/* Text for people: hex when the type is a HEX type or Attrib has 0x10;
 * group separators ("1,234") unless Attrib has 0x4; integers for integer-valued
 * types unless Attrib has 0x8 (display as real); the unit (" /sec", " %",
 * " s"). Attrib 0x2 (no display) gives "". Writes at most cap bytes, always
 * NUL-terminated when cap > 0; returns the length the full text needs. */
#define PCQ_CALC_TEXT_SIZE 64   /* always enough */
PCQ_API size_t pcq_calc_format(double value, uint32_t type, uint64_t attrib, char *dst,
                               size_t cap);

/* ---- Cooking two data buffers of one query (§3.1.4.1.6). ---- */

/* One cooked value: a counter of an instance, or an aggregate over instances. */
typedef struct pcq_calc_row {
    uint32_t counter_id, type;
    uint32_t instance_id;
    int has_instance;          /* 0 for single-instance data */
    pcq_bytes instance;        /* UTF-16LE, no NUL: in the newer buffer (type 1: in ids) */
    uint32_t dup_index;        /* n of "name#n" among equal names; 0 for the first */
    int is_aggregate;          /* 1: aggregate row; instance fields unused */
    uint32_t aggregate_func;   /* PERF_AGGREGATE_*: 1 total, 2 average, 3 min, 4 max */
    uint32_t instances_used;   /* aggregate: instances whose status was OK */
    int status;                /* pcq_calc_status */
    unsigned notes;            /* PCQ_CALC_NOTE_* */
    double value;              /* when status is PCQ_CALC_OK; DefaultScale applied per flags */
    uint32_t info_index;       /* the counter's index in the counterset-info */
    uint64_t attrib;           /* the counter's Attrib */
    uint32_t block_index;      /* the block of the newer buffer (0-based) */
    size_t instance_offset;    /* of its _PERF_INSTANCE_HEADER (0: none) */
    size_t offset;             /* of the value's _PERF_COUNTER_DATA in the newer buffer */
} pcq_calc_row;

/* Cooks every counter of every instance of `newer` against `older` (may be
 * NULL: two-sample types get PCQ_CALC_NEED_SECOND_SAMPLE), both decoded by
 * pcq_decode_data from buffers that stay unchanged, with the counterset of
 * `info`. Blocks of type 2 and 6 name their counters; a block of type 1 or 4
 * takes its counter (and a type 1 block its instance) from the identifier
 * whose Index is the block's position (ids, n_ids: the opnum 5 reply; may be
 * NULL). Related counters (BaseCounterId, PerfTimeId, PerfFreqId, MultiId)
 * are looked up in the same instance of the same sample; instances are
 * matched between samples by (InstanceId, name, occurrence). Aggregate rows
 * (AggregateFunc 1..4, counterset InstanceType 4, 6 or 0xC) follow the
 * instance rows, in the order of the counters in info; they combine the
 * computed values of the instances whose status is OK (one DefaultScale for
 * all: it commutes with sum, average, min and max).
 * Returns PCQ_OK and *count rows; PCQ_ERR_BUFFER_TOO_SMALL with *count = rows
 * needed (cap 0 and rows NULL size); PCQ_ERR_INVALID_ARG (err: offset in the
 * newer buffer) for a counter id missing from info or a type 1/4 block
 * of the newer sample without an identifier (in the older one such a block
 * is passed over); PCQ_ERR_LIMIT (offset 0, no rows) when its searches
 * spent their budget; or an iterator error of a buffer that changed.
 * Time: O(values) when instances keep their order between samples and a
 * block lists at most 64 counters (longer lists: O(values x counters per
 * instance)); an identifier or counter out of place, a moved instance and a
 * related counter in another block cost searches, paid from a budget of
 * PCQ_COOK_WORK_MIN + PCQ_COOK_WORK_PER_BYTE x input bytes (knobs of
 * pcq_calc.c; default 2^22 + 2 per byte; docs D12), so the time is linear
 * in the input whatever it says; name#n sorts the d instances sharing a hash
 * bucket (d log d). About 10 KiB of stack. */
PCQ_API int pcq_calc_cook(const pcq_counterset_info *info, const pcq_data *older,
                          const pcq_data *newer, const pcq_identifier *ids, size_t n_ids,
                          unsigned flags, pcq_calc_row *rows, size_t cap, size_t *count,
                          pcq_error *err);
#endif /* PCQ_NO_CALC */
/* ==== END evaluator ==== */

#ifdef __cplusplus
}
#endif
#endif /* PCQ_CODEC_H */
