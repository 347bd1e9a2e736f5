/* SPDX-License-Identifier: MIT */
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
 *     same on little- and big-endian hosts;
 *   - work is linear in len (docs/decisions.md D11).
 * Encoders (pcq_writer) never write outside [dst, dst + cap) and report the
 * size they need when cap is too small; dst == NULL is a sizing pass.
 *
 * Three ways to read a buffer, all built on one walker in pcq_codec.c:
 *   - pcq_walk_begin/pcq_walk_next: step by step through bytes that were not
 *     validated, one structure at a time, in wire order; on bad input the
 *     walk stops at the error with everything before it already yielded (for
 *     analyzers and dumpers);
 *   - pcq_decode_*: validate a whole buffer (the same walk, to its end) and
 *     fill a small struct;
 *   - the typed iterators (pcq_data_blocks, ...): walk a decoded buffer.
 *
 * Knobs (define before compiling pcq_codec.c and wherever this header is
 * included, all optional):
 *   PCQ_NO_ENCODER      leave out pcq_writer and pcq_reencode
 *   PCQ_MAX_COUNTERS    cap on any counter count          (default 1 << 20)
 *   PCQ_MAX_INSTANCES   cap on any instance count         (default 1 << 24)
 *   PCQ_API             decoration for exported functions (default empty)
 *   PCQ_PAIR_CHECK_MAX  set-wide checks (unique CounterId, related counters,
 *                       unreferenced string bytes) of sets up to this many
 *                       entries use the walker's own table, 8 bytes an entry
 *                       (default 1024); larger sets need pcq_opts.scratch
 *                       (without it: checks skipped, string texts measured
 *                       with a map of the block's NULs in that table, D11)
 *   PCQ_AHEAD_FROM      validation and PCQ_BULK's single pass of an input
 *                       of at least this many bytes prefetch PCQ_AHEAD
 *                       bytes ahead (1 or more; default 4 MiB; -1: never;
 *                       D19)
 *   PCQ_AHEAD           how far ahead, 1 to 65536         (default 2048);
 *                       the single pass's reading of an item's values
 *                       four times as far
 * and for pcq_calc.c: PCQ_NO_CALC (leave the evaluator out).
 */
#ifndef PCQ_CODEC_H
#define PCQ_CODEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCQ_VERSION_MAJOR  0
#define PCQ_VERSION_MINOR  2
#define PCQ_VERSION_PATCH  0
#define PCQ_VERSION_STRING "0.2.0"
#define PCQ_VERSION_NUMBER (PCQ_VERSION_MAJOR * 10000 + PCQ_VERSION_MINOR * 100 + PCQ_VERSION_PATCH)

/* PCQ_API decorates every public function. Defined before including this
 * header, it is used as is. Otherwise it is empty (a static library, or the
 * sources vendored into a program), except that
 *   - PCQ_BUILD_SHARED, defined while compiling the shared library (with
 *     -fvisibility=hidden), exports the function: visibility("default") with
 *     gcc and clang, __declspec(dllexport) on Windows;
 *   - PCQ_SHARED, defined by a Windows program using pcq as a DLL, gives
 *     __declspec(dllimport).
 * (docs/packaging.md) */
#ifndef PCQ_API
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(PCQ_BUILD_SHARED)
#define PCQ_API __declspec(dllexport)
#elif defined(PCQ_SHARED)
#define PCQ_API __declspec(dllimport)
#else
#define PCQ_API
#endif
#elif defined(PCQ_BUILD_SHARED) && defined(__GNUC__)
#define PCQ_API __attribute__((visibility("default")))
#else
#define PCQ_API
#endif
#endif

#ifndef PCQ_MAX_COUNTERS
#define PCQ_MAX_COUNTERS (1u << 20)
#endif
#ifndef PCQ_MAX_INSTANCES
#define PCQ_MAX_INSTANCES (1u << 24)
#endif
#ifndef PCQ_PAIR_CHECK_MAX
#define PCQ_PAIR_CHECK_MAX 1024u
#endif
#ifndef PCQ_AHEAD_FROM
#define PCQ_AHEAD_FROM (4u << 20)
#endif
#ifndef PCQ_AHEAD
#define PCQ_AHEAD 2048u
#endif
#if PCQ_AHEAD < 1 || PCQ_AHEAD > 65536
#error "PCQ_AHEAD must be in 1..65536"
#endif
#if PCQ_MAX_COUNTERS < 1 || PCQ_MAX_COUNTERS > 0x7fffffff
#error "PCQ_MAX_COUNTERS must be in 1..0x7fffffff"
#endif
#if PCQ_MAX_INSTANCES < 1 || PCQ_MAX_INSTANCES > 0x7fffffff
#error "PCQ_MAX_INSTANCES must be in 1..0x7fffffff"
#endif
#if PCQ_PAIR_CHECK_MAX < 1 || PCQ_PAIR_CHECK_MAX > 65535
#error "PCQ_PAIR_CHECK_MAX must be in 1..65535"
#endif

/* Runtime version: PCQ_VERSION_NUMBER of the compiled library. */
PCQ_API unsigned pcq_version(void);
/* PCQ_VERSION_STRING of the compiled library; never NULL. */
PCQ_API const char *pcq_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes. Pinned values, banded by family:                           */
/*   0 ok; -1..-19 the input is malformed; -20 a compile-time limit;        */
/*   -30 non-conformant input rejected in strict mode; -40.. caller errors. */
/* One table yields the enum and pcq_strerror()/pcq_status_name().          */
/* ------------------------------------------------------------------------ */
/* clang-format off */
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
/* clang-format on */

typedef enum pcq_status {
#define PCQ_X_(name, value, text) name = value,
    PCQ_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    PCQ_STATUS_END_ = 1
} pcq_status;

/* Families a host analyzer can map onto its own exceptions. */
typedef enum pcq_family {
    PCQ_FAMILY_OK = 0,
    PCQ_FAMILY_TRUNCATED, /* the input ends early (e.g. a cut capture)   */
    PCQ_FAMILY_CONTAINER, /* contained item exceeds its container        */
    PCQ_FAMILY_MALFORMED, /* any other malformed input                   */
    PCQ_FAMILY_LIMIT,
    PCQ_FAMILY_NONCONFORMANT,
    PCQ_FAMILY_CALLER /* buffer too small, invalid argument, state   */
} pcq_family;

/* A sentence for a status ("unknown status" for other values); never NULL. */
PCQ_API const char *pcq_strerror(int status);
/* The status's name, "PCQ_ERR_TRUNCATED" ("PCQ_ERR_UNKNOWN"); never NULL. */
PCQ_API const char *pcq_status_name(int status);
/* The family a status belongs to. */
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

/* The one way errors are raised, in the library and in its tools: when e is
 * not NULL, fills it with code, offset and what (diag 0). Returns code. */
PCQ_API int pcq_error_set(pcq_error *e, int code, size_t offset, const char *what);

/* ------------------------------------------------------------------------ */
/* Diagnostics: walkable input that breaks a MUST of the spec.              */
/* ------------------------------------------------------------------------ */
/* clang-format off */
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
    X(PCQ_DIAG_RELATED_COUNTER,      14, "related counter missing or of the wrong type")  \
    X(PCQ_DIAG_UNREFERENCED,         15, "string-area bytes that no entry references")    \
    X(PCQ_DIAG_CHECK_SKIPPED,        16, "set-wide check skipped: give pcq_opts.scratch")
/* clang-format on */

typedef enum pcq_diag_code {
#define PCQ_X_(name, value, text) name = value,
    PCQ_DIAG_TABLE(PCQ_X_)
#undef PCQ_X_
    PCQ_DIAG_END_
} pcq_diag_code;

/* "PCQ_DIAG_UNALIGNED" ("PCQ_DIAG_UNKNOWN" for other values); never NULL. */
PCQ_API const char *pcq_diag_name(int code);
/* A sentence for a diagnostic ("unknown diagnostic"); never NULL. */
PCQ_API const char *pcq_diag_text(int code);

/* One diagnostic, as pcq_opts.on_diag receives it. */
typedef struct pcq_diag {
    int code;         /* pcq_diag_code */
    size_t offset;    /* byte offset of the field or structure in the input */
    const char *what; /* the field or structure, static string */
} pcq_diag;

/* Decoding options. NULL means: lenient, diagnostics neither looked for nor
 * reported. Zero-initialize it (`pcq_opts o = {0};`): fields may be added.
 *
 * on_diag is called for every diagnostic, in wire order, as the walk reaches
 * it; with PCQ_STRICT the first one (other than PCQ_DIAG_CHECK_SKIPPED,
 * which says that a check was not made, not that a rule was broken) then
 * becomes the error PCQ_ERR_NONCONFORMANT at its offset.
 *
 * scratch: memory for the set-wide checks of counterset-info (CounterId
 * unique, BaseCounterId/PerfTimeId/PerfFreqId/MultiId present with the right
 * type) and of string blocks (bytes no entry references, and the walk's
 * measure of each text in linear time): 8 bytes an entry
 * (PCQ_SCRATCH_PER_ENTRY). Sets of up to PCQ_PAIR_CHECK_MAX entries need
 * none; a larger set without enough scratch gets PCQ_DIAG_CHECK_SKIPPED
 * instead. The library only writes it during a call that has it. */
#define PCQ_STRICT            1u /* the first diagnostic becomes PCQ_ERR_NONCONFORMANT */
#define PCQ_BULK              2u /* pcq_walk: values and counter ids in bulk (pcq_walk_next) */
#define PCQ_SCRATCH_PER_ENTRY 8u
typedef struct pcq_opts {
    unsigned flags;
    void (*on_diag)(void *ctx, const pcq_diag *d); /* may be NULL */
    void *ctx;
    void *scratch;       /* may be NULL */
    size_t scratch_size; /* bytes at scratch */
} pcq_opts;

/* ------------------------------------------------------------------------ */
/* Buffer kinds and where they travel (§3.1.4.1).                           */
/* ------------------------------------------------------------------------ */
typedef enum pcq_kind {
    PCQ_KIND_NONE = 0,        /* the message carries no such buffer      */
    PCQ_KIND_COUNTERSET_INFO, /* opnum 1 reply, RequestCode 1            */
    PCQ_KIND_COUNTER_INFO,    /* opnum 1 reply, RequestCode 2            */
    PCQ_KIND_STRINGS,         /* opnum 1 reply, RequestCode 5, 6, 10     */
    PCQ_KIND_STRING,          /* opnum 1 reply, RequestCode 3, 4, 7, 9   */
    PCQ_KIND_GUID,            /* opnum 1 reply, RequestCode 8            */
    PCQ_KIND_GUIDS,           /* opnum 0 reply (lpData)                  */
    PCQ_KIND_INSTANCES,       /* opnum 2 reply                           */
    PCQ_KIND_IDENTIFIERS,     /* opnum 5 reply; opnum 7 request + reply  */
    PCQ_KIND_DATA,            /* opnum 6 reply                           */
    PCQ_KIND_END_
} pcq_kind;

/* Which buffer lpData holds for (opnum, RequestCode, direction). request_code
 * matters for opnum 1 only. is_reply: 0 for the request, 1 for the reply. */
PCQ_API pcq_kind pcq_kind_for(uint32_t opnum, uint32_t request_code, int is_reply);
/* "counterset-info", ... ("none" for PCQ_KIND_NONE and other values). */
PCQ_API const char *pcq_kind_name(pcq_kind kind);
/* The kind named so; PCQ_KIND_NONE if unknown (or NULL). */
PCQ_API pcq_kind pcq_kind_from_name(const char *name);

/* ------------------------------------------------------------------------ */
/* Counter types: one table for the codec, the evaluator and the tools.      */
/* The 34 types of §2.2.4.2 (spec = 1) and five winperf.h types servers are  */
/* known to report (spec = 0). In ascending order of value. Columns:         */
/*   name, value, spec, size (value bytes the size bits give: 4, 8, 0),      */
/*   samples (1 or 2), req (related counters §2.2.4.2 requires: PCQ_REQ_*),  */
/*   base (the type its BaseCounterId must have, §2.2.4.2 table; 0 none),    */
/*   needs (what the formula reads: PCQ_CALC_NEEDS_*), timebase, unit,       */
/*   displayable, hex, op (the evaluator's formula), formula (docs/formulas). */
/* ------------------------------------------------------------------------ */
#define PCQ_REQ_BASE  1u /* a BaseCounterId of type `base` */
#define PCQ_REQ_TIME  2u /* PerfTimeId and PerfFreqId, PERF_COUNTER_LARGE_RAWCOUNT */
#define PCQ_REQ_MULTI 4u /* a MultiId of type PERF_COUNTER_RAWCOUNT */

/* clang-format off */
#define PCQ_COUNTER_TYPE_TABLE(X)                                                                     \
    X(PERF_COUNTER_RAWCOUNT_HEX,       0x00000000u, 1, 4, 1, 0, 0, 0, NONE, NONE, 1, 1, RAW, "N (hex)") \
    X(PERF_COUNTER_LARGE_RAWCOUNT_HEX, 0x00000100u, 1, 8, 1, 0, 0, 0, NONE, NONE, 1, 1, RAW, "N (hex)") \
    X(PERF_COUNTER_TEXT,               0x00000B00u, 1, 0, 1, 0, 0, 0, NONE, TEXT, 0, 0, TEXT, "text")   \
    X(PERF_COUNTER_RAWCOUNT,           0x00010000u, 1, 4, 1, 0, 0, 0, NONE, NONE, 1, 0, RAW, "N")       \
    X(PERF_COUNTER_LARGE_RAWCOUNT,     0x00010100u, 1, 8, 1, 0, 0, 0, NONE, NONE, 1, 0, RAW, "N")       \
    X(PERF_COUNTER_DELTA,              0x00400400u, 0, 4, 2, 0, 0, 0, NONE, NONE, 1, 0, DELTA, "dN")    \
    X(PERF_COUNTER_LARGE_DELTA,        0x00400500u, 0, 8, 2, 0, 0, 0, NONE, NONE, 1, 0, DELTA, "dN")    \
    X(PERF_SAMPLE_COUNTER,             0x00410400u, 1, 4, 2, 0, 0, 0, TICK, NONE, 1, 0, RATE, "dN / (dT / F)") \
    X(PERF_COUNTER_QUEUELEN_TYPE,      0x00450400u, 1, 4, 2, 0, 0, 0, TICK, NONE, 1, 0, QUEUE, "dN / dT") \
    X(PERF_COUNTER_LARGE_QUEUELEN_TYPE, 0x00450500u, 1, 8, 2, 0, 0, 0, TICK, NONE, 1, 0, QUEUE, "dN / dT") \
    X(PERF_COUNTER_100NS_QUEUELEN_TYPE, 0x00550500u, 1, 8, 2, 0, 0, 0, 100NS, NONE, 1, 0, QUEUE, "dN / dT100") \
    X(PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, 0x00650500u, 1, 8, 2, PCQ_REQ_TIME, 0, PCQ_CALC_NEEDS_TIME, \
      OBJECT, NONE, 1, 0, QUEUE, "dN / dTo")                                                          \
    X(PERF_COUNTER_COUNTER,            0x10410400u, 1, 4, 2, 0, 0, 0, TICK, PER_SEC, 1, 0, RATE, "dN / (dT / F)") \
    X(PERF_COUNTER_BULK_COUNT,         0x10410500u, 1, 8, 2, 0, 0, 0, TICK, PER_SEC, 1, 0, RATE, "dN / (dT / F)") \
    X(PERF_RAW_FRACTION,               0x20020400u, 1, 4, 1, PCQ_REQ_BASE, 0x40030403u, PCQ_CALC_NEEDS_BASE, \
      NONE, PERCENT, 1, 0, RAW_FRACTION, "100 N / B")                                                 \
    X(PERF_LARGE_RAW_FRACTION,         0x20020500u, 1, 8, 1, PCQ_REQ_BASE, 0x40030500u, PCQ_CALC_NEEDS_BASE, \
      NONE, PERCENT, 1, 0, RAW_FRACTION, "100 N / B")                                                 \
    X(PERF_COUNTER_TIMER,              0x20410500u, 1, 8, 2, 0, 0, 0, TICK, PERCENT, 1, 0, TIMER, "100 dN / dT") \
    X(PERF_PRECISION_SYSTEM_TIMER,     0x20470500u, 1, 8, 2, PCQ_REQ_BASE, 0x40030500u, PCQ_CALC_NEEDS_BASE, \
      BASE, PERCENT, 1, 0, TIMER, "100 dN / dB")                                                      \
    X(PERF_100NSEC_TIMER,              0x20510500u, 1, 8, 2, 0, 0, 0, 100NS, PERCENT, 1, 0, TIMER, "100 dN / dT100") \
    X(PERF_PRECISION_100NS_TIMER,      0x20570500u, 1, 8, 2, PCQ_REQ_BASE, 0x40030500u, PCQ_CALC_NEEDS_BASE, \
      BASE, PERCENT, 1, 0, TIMER, "100 dN / dB")                                                      \
    X(PERF_OBJ_TIME_TIMER,             0x20610500u, 1, 8, 2, PCQ_REQ_TIME, 0, PCQ_CALC_NEEDS_TIME,      \
      OBJECT, PERCENT, 1, 0, TIMER, "100 dN / dTo")                                                   \
    X(PERF_PRECISION_OBJECT_TIMER,     0x20670500u, 1, 8, 2, PCQ_REQ_TIME, 0, PCQ_CALC_NEEDS_TIME,      \
      OBJECT, PERCENT, 1, 0, TIMER, "100 dN / dTo")                                                   \
    X(PERF_SAMPLE_FRACTION,            0x20C20400u, 1, 4, 2, PCQ_REQ_BASE, 0x40030401u, PCQ_CALC_NEEDS_BASE, \
      NONE, PERCENT, 1, 0, FRACTION, "100 dN / dB")                                                   \
    X(PERF_COUNTER_TIMER_INV,          0x21410500u, 1, 8, 2, 0, 0, 0, TICK, PERCENT, 1, 0, TIMER_INV, "100 (1 - dN / dT)") \
    X(PERF_100NSEC_TIMER_INV,          0x21510500u, 1, 8, 2, 0, 0, 0, 100NS, PERCENT, 1, 0, TIMER_INV, \
      "100 (1 - dN / dT100)")                                                                         \
    X(PERF_COUNTER_MULTI_TIMER,        0x22410500u, 1, 8, 2, PCQ_REQ_MULTI, 0, PCQ_CALC_NEEDS_MULTI,    \
      TICK, PERCENT, 1, 0, MULTI, "100 (dN / dT) / M")                                                \
    X(PERF_100NSEC_MULTI_TIMER,        0x22510500u, 1, 8, 2, PCQ_REQ_MULTI, 0, PCQ_CALC_NEEDS_MULTI,    \
      100NS, PERCENT, 1, 0, MULTI, "100 (dN / dT100) / M")                                            \
    X(PERF_COUNTER_MULTI_TIMER_INV,    0x23410500u, 1, 8, 2, PCQ_REQ_MULTI, 0, PCQ_CALC_NEEDS_MULTI,    \
      TICK, PERCENT, 1, 0, MULTI_INV, "100 (M - dN / dT) / M")                                        \
    X(PERF_100NSEC_MULTI_TIMER_INV,    0x23510500u, 1, 8, 2, PCQ_REQ_MULTI, 0, PCQ_CALC_NEEDS_MULTI,    \
      100NS, PERCENT, 1, 0, MULTI_INV, "100 (M - dN / dT100) / M")                                    \
    X(PERF_AVERAGE_TIMER,              0x30020400u, 1, 4, 2, PCQ_REQ_BASE, 0x40030402u, PCQ_CALC_NEEDS_BASE, \
      TICK, SECONDS, 1, 0, AVG_TIMER, "(dN / F) / dB")                                                \
    X(PERF_ELAPSED_TIME,               0x30240500u, 1, 8, 1, PCQ_REQ_TIME, 0,                          \
      PCQ_CALC_NEEDS_TIME | PCQ_CALC_NEEDS_FREQ, OBJECT, SECONDS, 1, 0, ELAPSED, "(To - N) / Fo")     \
    X(PERF_COUNTER_NODATA,             0x40000200u, 0, 0, 1, 0, 0, 0, NONE, NONE, 0, 0, BASE, "none")   \
    X(PERF_AVERAGE_BULK,               0x40020500u, 1, 8, 2, PCQ_REQ_BASE, 0x40030402u, PCQ_CALC_NEEDS_BASE, \
      NONE, NONE, 1, 0, AVG_BULK, "dN / dB")                                                          \
    X(PERF_SAMPLE_BASE,                0x40030401u, 1, 4, 1, 0, 0, 0, NONE, NONE, 0, 0, BASE, "base")   \
    X(PERF_AVERAGE_BASE,               0x40030402u, 1, 4, 1, 0, 0, 0, NONE, NONE, 0, 0, BASE, "base")   \
    X(PERF_RAW_BASE,                   0x40030403u, 1, 4, 1, 0, 0, 0, NONE, NONE, 0, 0, BASE, "base")   \
    X(PERF_LARGE_RAW_BASE,             0x40030500u, 1, 8, 1, 0, 0, 0, NONE, NONE, 0, 0, BASE, "base")   \
    X(PERF_COUNTER_MULTI_BASE,         0x42030500u, 0, 8, 1, 0, 0, 0, NONE, NONE, 0, 0, BASE, "base")   \
    X(PERF_COUNTER_HISTOGRAM_TYPE,     0x80000000u, 0, 0, 1, 0, 0, 0, NONE, NONE, 0, 0, NONE, "none")
/* clang-format on */

/* What the evaluator's formulas read (the `needs` column). */
#define PCQ_CALC_NEEDS_BASE  1u /* BaseCounterId */
#define PCQ_CALC_NEEDS_TIME  2u /* PerfTimeId (To) */
#define PCQ_CALC_NEEDS_FREQ  4u /* PerfFreqId (Fo) */
#define PCQ_CALC_NEEDS_MULTI 8u /* MultiId (M) */

/* "PERF_COUNTER_COUNTER"; NULL when the type is not in the table. */
PCQ_API const char *pcq_counter_type_name(uint32_t type);
/* 1 when the type is one of the 34 of §2.2.4.2, else 0. */
PCQ_API int pcq_counter_type_is_known(uint32_t type);
/* The related counters §2.2.4.2 requires of a type (PCQ_REQ_*), and in
 * *base_type (may be NULL) the type its BaseCounterId must have (0: none). */
PCQ_API unsigned pcq_counter_type_requires(uint32_t type, uint32_t *base_type);

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

/* SYSTEMTIME, [MS-DTYP] §2.3.13: eight little-endian 16-bit fields. */
typedef struct pcq_systemtime {
    uint16_t year, month, day_of_week, day, hour, minute, second, milliseconds;
} pcq_systemtime;

/* ------------------------------------------------------------------------ */
/* The layout: every wire structure of §2.2.4 described once, field by      */
/* field. The decoder's offsets, pcqdump's tree and JSON and the Wireshark   */
/* plugin's fields all come from this one description (pcq_codec.c).         */
/* ------------------------------------------------------------------------ */
/* The structures a walk yields (pcq_item.type). */
typedef enum pcq_struct_type {
    PCQ_S_NONE = 0,              /* no structure (an error about a container)       */
    PCQ_S_COUNTERSET_REG_INFO,   /* _PERF_COUNTERSET_REG_INFO, 32 bytes, §2.2.4.1  */
    PCQ_S_COUNTER_REG_INFO,      /* _PERF_COUNTER_REG_INFO, 48 bytes, §2.2.4.2     */
    PCQ_S_STRING_BUFFER_HEADER,  /* _STRING_BUFFER_HEADER, 8 bytes, §2.2.4.3       */
    PCQ_S_STRING_COUNTER_HEADER, /* _STRING_COUNTER_HEADER, 8 bytes, and its text  */
    PCQ_S_STRING,                /* one NUL-terminated string (RequestCode 3,4,7,9) */
    PCQ_S_PROVIDER_GUID,         /* the provider's GUID (RequestCode 8)             */
    PCQ_S_COUNTERSET_GUID,       /* one GUID of the opnum 0 array                   */
    PCQ_S_INSTANCE,              /* _PERF_INSTANCE_HEADER + name, opnum 2 (§3.1.4.1.3) */
    PCQ_S_COUNTER_IDENTIFIER,    /* _PERF_COUNTER_IDENTIFIER + name, 40 bytes + name */
    PCQ_S_DATA_HEADER,           /* _PERF_DATA_HEADER, 48 bytes, §2.2.4.7          */
    PCQ_S_COUNTER_HEADER,        /* _PERF_COUNTER_HEADER (a block), 16, §2.2.4.8   */
    PCQ_S_MULTI_COUNTERS,        /* _PERF_MULTI_COUNTERS, 8, §2.2.4.11             */
    PCQ_S_COUNTER_ID,            /* one element of its counter ID array, 4 bytes    */
    PCQ_S_MULTI_INSTANCES,       /* _PERF_MULTI_INSTANCES, 8, §2.2.4.10            */
    PCQ_S_DATA_INSTANCE,         /* _PERF_INSTANCE_HEADER + name inside a block     */
    PCQ_S_COUNTER_DATA,          /* _PERF_COUNTER_DATA + its value, §2.2.4.9       */
    PCQ_S_END_
} pcq_struct_type;

/* How a field is stored. The variable parts (a name, a string's text, a
 * value's bytes, the dwOffset convention) have size 0: the walk's item
 * carries them. */
typedef enum pcq_field_type {
    PCQ_FT_U16 = 1,
    PCQ_FT_U32,
    PCQ_FT_I32,
    PCQ_FT_U64,
    PCQ_FT_GUID,
    PCQ_FT_NAME,      /* UTF-16LE name after the fixed part, to its NUL */
    PCQ_FT_TEXT,      /* a string entry's text (may be absent)          */
    PCQ_FT_VALUE,     /* dwDataSize value bytes: an integer if 4 or 8   */
    PCQ_FT_CONVENTION /* a string block's dwOffset convention           */
} pcq_field_type;

/* How people read a field's value. */
typedef enum pcq_field_show {
    PCQ_SHOW_DEC = 0,
    PCQ_SHOW_HEX,
    PCQ_SHOW_ID,            /* a counter id; 0xFFFFFFFF: none / wildcard / absent */
    PCQ_SHOW_STATUS,        /* a Win32 error code (pcq_win32_status_name)         */
    PCQ_SHOW_BLOCK_TYPE,    /* pcq_block_type_name                                */
    PCQ_SHOW_COUNTER_TYPE,  /* pcq_counter_type_name, in hex                      */
    PCQ_SHOW_DETAIL_LEVEL,  /* pcq_detail_level_name                              */
    PCQ_SHOW_INSTANCE_TYPE, /* pcq_instance_type_name, in hex                     */
    PCQ_SHOW_AGGREGATE,     /* pcq_aggregate_name                                 */
    PCQ_SHOW_ATTRIB,        /* bit flags, pcq_attrib_bit_name                     */
    PCQ_SHOW_FILETIME       /* 100 ns since 1601-01-01 UTC                        */
} pcq_field_show;

/* One field of a wire structure. */
typedef struct pcq_field {
    const char *name;   /* as the spec names it: "dwTotalSize"; "SystemTime.wYear" */
    const char *key;    /* JSON key: "total_size"; a dot nests: "system_time.year" */
    const char *abbrev; /* filter name, shared where the meaning is: "counter.id"  */
    const char *what;   /* as errors name it: "_PERF_DATA_HEADER.dwTotalSize"      */
    uint16_t offset;    /* from the structure's first byte                        */
    uint8_t size;       /* bytes: 2, 4, 8 or 16; 0 for a variable part            */
    uint8_t type;       /* pcq_field_type                                         */
    uint8_t show;       /* pcq_field_show                                         */
} pcq_field;

/* One wire structure: its name, section, fixed size and fields. */
typedef struct pcq_struct_info {
    int type;            /* pcq_struct_type */
    const char *name;    /* "_PERF_COUNTER_HEADER" */
    const char *section; /* "§2.2.4.8" */
    size_t size;         /* bytes of the fixed part */
    size_t nfields;
    const pcq_field *fields; /* in wire order; variable parts last */
} pcq_struct_info;

/* The description of a structure type; NULL for PCQ_S_NONE and unknown values. */
PCQ_API const pcq_struct_info *pcq_struct_info_of(int type);
/* Reads the numeric field f (U16, U32, I32 sign-extended to 64 bits in two's
 * complement, U64) of the structure that starts at `at` in buf. PCQ_OK;
 * PCQ_ERR_TRUNCATED when its bytes are not all inside [buf, buf + len);
 * PCQ_ERR_INVALID_ARG for a field that is not numeric, or whose size is not
 * its type's (a field made by the caller: the layout's always match). */
PCQ_API int pcq_field_get(const pcq_field *f, const void *buf, size_t len, size_t at, uint64_t *v);
/* The name of a field's value where it has one (counter and block types,
 * Win32 codes, levels, ...; "none" / "wildcard" / "absent" for an ID shown
 * field of 0xFFFFFFFF); NULL otherwise. */
PCQ_API const char *pcq_field_value_name(const pcq_field *f, uint64_t v);

/* ------------------------------------------------------------------------ */
/* counterset-info and counter-info (§2.2.4.1, §2.2.4.2, Figure 1).         */
/* ------------------------------------------------------------------------ */
/* _PERF_COUNTERSET_REG_INFO (§2.2.4.1), field by field. */
typedef struct pcq_counterset_reg {
    pcq_guid guid;
    uint32_t counterset_type, detail_level, num_counters, instance_type;
} pcq_counterset_reg;

/* _PERF_COUNTER_REG_INFO (§2.2.4.2), field by field (attrib is 64-bit). */
typedef struct pcq_counter_reg {
    uint32_t counter_id, type;
    uint64_t attrib;
    uint32_t detail_level;
    int32_t default_scale;
    uint32_t base_counter_id, perf_time_id, perf_freq_id, multi_id;
    uint32_t aggregate_func, reserved;
} pcq_counter_reg;

/* A decoded counterset-info: its header, and where its counters are. */
typedef struct pcq_counterset_info {
    pcq_counterset_reg set;
    pcq_bytes counters;     /* num_counters x 48 bytes */
    size_t counters_offset; /* 32 */
} pcq_counterset_info;

/* Validates a counterset-info buffer whole (the walk to its end) and fills
 * *out (may be NULL). PCQ_OK or the first error in *err (may be NULL). */
PCQ_API int pcq_decode_counterset_info(const void *buf, size_t len, const pcq_opts *opts,
                                       pcq_counterset_info *out, pcq_error *err);
/* Counter i (0 <= i < num_counters) of a decoded counterset-info; PCQ_OK or
 * PCQ_ERR_INVALID_ARG. */
PCQ_API int pcq_counterset_counter(const pcq_counterset_info *csi, uint32_t i, pcq_counter_reg *out);
/* Validates a counter-info buffer (one _PERF_COUNTER_REG_INFO). */
PCQ_API int pcq_decode_counter_info(const void *buf, size_t len, const pcq_opts *opts, pcq_counter_reg *out,
                                    pcq_error *err);

/* ------------------------------------------------------------------------ */
/* strings (§2.2.4.3, §2.2.4.4, §3.1.4.1.2 Figure 2; NOTES §3; D4).         */
/* ------------------------------------------------------------------------ */
typedef enum pcq_str_convention {
    PCQ_STROFF_NONE = 0, /* no string present: nothing to tell            */
    PCQ_STROFF_SPEC,     /* dwOffset from the end of the header array      */
    PCQ_STROFF_WIN32     /* dwOffset from the start of the block (perflib.h) */
} pcq_str_convention;

#define PCQ_STRING_ABSENT 0xFFFFFFFFu

/* A decoded string block: _STRING_BUFFER_HEADER (§2.2.4.3) and its convention. */
typedef struct pcq_strings {
    uint32_t size, num_counters;
    pcq_str_convention convention;
    pcq_bytes block; /* the first `size` bytes of the input */
} pcq_strings;

/* One _STRING_COUNTER_HEADER (§2.2.4.4) and the string it points at. */
typedef struct pcq_string_entry {
    uint32_t counter_id, offset; /* raw dwOffset */
    int present;                 /* 0 when dwOffset is 0xFFFFFFFF */
    pcq_bytes text;              /* UTF-16LE, without the NUL */
    size_t text_offset;          /* byte offset of the text in the input */
} pcq_string_entry;

/* Validates a string block whole, in time linear in len (also when entries
 * share text), deciding its dwOffset convention (docs/decisions.md D4). */
PCQ_API int pcq_decode_strings(const void *buf, size_t len, const pcq_opts *opts, pcq_strings *out,
                               pcq_error *err);
/* Entry i of a decoded block with its text; costs the length of its string
 * (random access: a loop of it over entries that share one long text is
 * quadratic; the walk reads every entry with its text in linear time, D11).
 * PCQ_OK or PCQ_ERR_INVALID_ARG. */
PCQ_API int pcq_strings_get(const pcq_strings *s, uint32_t i, pcq_string_entry *out);
/* Entry i without measuring its text (constant time): counter_id, offset,
 * present and text_offset; text.ptr points at the text, text.len is 0. */
PCQ_API int pcq_strings_peek(const pcq_strings *s, uint32_t i, pcq_string_entry *out);

/* ------------------------------------------------------------------------ */
/* string, guid, guids.                                                     */
/* ------------------------------------------------------------------------ */
/* One NUL-terminated UTF-16LE string; *out is the text without the NUL. */
PCQ_API int pcq_decode_string(const void *buf, size_t len, const pcq_opts *opts, pcq_bytes *out,
                              pcq_error *err);
/* One 16-byte GUID. */
PCQ_API int pcq_decode_guid(const void *buf, size_t len, const pcq_opts *opts, pcq_guid *out, pcq_error *err);

/* A decoded GUID array: count GUIDs of 16 bytes from ptr. */
typedef struct pcq_guid_array {
    const uint8_t *ptr;
    size_t count;
} pcq_guid_array;

/* An array of GUIDs (len a multiple of 16). */
PCQ_API int pcq_decode_guids(const void *buf, size_t len, const pcq_opts *opts, pcq_guid_array *out,
                             pcq_error *err);
/* GUID i of a decoded array; PCQ_OK or PCQ_ERR_INVALID_ARG. */
PCQ_API int pcq_guids_get(const pcq_guid_array *a, size_t i, pcq_guid *out);
/* Reads the 16 bytes at p. */
PCQ_API void pcq_guid_read(const uint8_t *p, pcq_guid *out);

/* ------------------------------------------------------------------------ */
/* instances (§2.2.4.5, §3.1.4.1.3 Figure 3) and identifiers (§2.2.4.6).    */
/* ------------------------------------------------------------------------ */
/* One _PERF_INSTANCE_HEADER of an opnum 2 reply (§2.2.4.5) and its name.
 * pcq_put_data_instances_u64 takes its instance_id and name. */
typedef struct pcq_instance {
    uint32_t size, instance_id;
    pcq_bytes name; /* UTF-16LE, without the NUL */
    size_t offset;  /* of the _PERF_INSTANCE_HEADER */
} pcq_instance;

/* One _PERF_COUNTER_IDENTIFIER (§2.2.4.6) and its instance name. */
typedef struct pcq_identifier {
    pcq_guid guid;
    uint32_t status, size, counter_id, instance_id, index, reserved;
    pcq_bytes name; /* UTF-16LE, without the NUL */
    size_t offset;  /* of the structure */
} pcq_identifier;

#define PCQ_WILDCARD_COUNTER 0xFFFFFFFFu /* §3.1.4.1.7 */

/* ------------------------------------------------------------------------ */
/* data (§2.2.4.7-2.2.4.11, §3.1.4.1.6 Figures 5-9).                         */
/* ------------------------------------------------------------------------ */
#define PCQ_PERF_ERROR_RETURN    0u
#define PCQ_PERF_SINGLE_COUNTER  1u
#define PCQ_PERF_MULTI_COUNTERS  2u
#define PCQ_PERF_MULTI_INSTANCES 4u
#define PCQ_PERF_COUNTERSET      6u

/* A decoded data buffer: _PERF_DATA_HEADER (§2.2.4.7) and the input. */
typedef struct pcq_data {
    uint32_t total_size, num_counters;
    uint64_t perf_time_stamp, perf_time_100nsec, perf_freq;
    pcq_systemtime system_time;
    const uint8_t *buf; /* the input */
    size_t buf_len;
    unsigned flags; /* private: what pcq_decode_data learned (PCQ_DATA_CANONICAL_) */
} pcq_data;

/* pcq_data.flags: every structure in the canonical layout (NOTES §2) and
 * conforming: 8-aligned, sizes exact, every _PERF_COUNTER_DATA 16 bytes with
 * a 4- or 8-byte value, every name's NUL in its last 8 bytes followed by
 * zeros. The iterators then step without checks. */
#define PCQ_DATA_CANONICAL_ 1u

/* One _PERF_COUNTER_DATA and its value. */
typedef struct pcq_value {
    uint32_t data_size, size; /* dwDataSize, dwSize */
    pcq_bytes data;           /* the dwDataSize value bytes */
    uint64_t u64;             /* the value when is_int */
    int is_int;               /* data_size is 4 or 8 */
    uint32_t counter_id;      /* a value of a type 2 block or a type 6 instance (the values iterators, the
                                 walk's COUNTER_DATA items): the CounterId at its place in its block's
                                 list (what pcq_block_counter_id gives); else 0 */
    size_t offset;            /* of the _PERF_COUNTER_DATA */
} pcq_value;

/* One _PERF_COUNTER_HEADER block, with the fixed structures that follow its
 * header (filled by pcq_blocks_next; the walk yields those as items of their
 * own). Which fields mean something depends on type. */
typedef struct pcq_block {
    uint32_t status, type, size, reserved;
    size_t offset;                          /* of the _PERF_COUNTER_HEADER */
    pcq_value value;                        /* type 1 */
    uint32_t multi_size, num_counters;      /* types 2, 6: _PERF_MULTI_COUNTERS */
    pcq_bytes counter_ids;                  /* types 2, 6: num_counters x 4 bytes */
    uint32_t instances_size, num_instances; /* types 4, 6: _PERF_MULTI_INSTANCES */
    size_t multi_at, instances_at;          /* offsets of those two structures (0: none) */
    size_t body;                            /* private: where values or instances start */
    size_t body_end;                        /* private */
} pcq_block;

/* An instance inside a PERF_MULTI_INSTANCES or PERF_COUNTERSET block. */
typedef struct pcq_data_instance {
    uint32_t size, instance_id;
    pcq_bytes name;      /* UTF-16LE, without the NUL */
    size_t offset;       /* of the _PERF_INSTANCE_HEADER */
    pcq_value value;     /* type 4: its one value (typed iterators) */
    uint32_t num_values; /* values that follow: 1 (type 4) or dwCounters (6) */
    uint32_t ids_at;     /* private: its block's counter ids (type 6), else 0 */
    size_t values;       /* offset of its first value */
    size_t values_end;   /* private: after its last value (typed iterators) */
} pcq_data_instance;

/* ------------------------------------------------------------------------ */
/* The walk: step by step through a buffer that was NOT validated first.    */
/*                                                                          */
/* Each pcq_walk_next yields the next structure in wire order, checked on   */
/* its own (its fixed part and declared sizes against its container and the */
/* input), with its offset, size and depth, before anything inside it. When  */
/* the bytes go wrong it stops with the error that pcq_decode_* reports for */
/* the same buffer (pcq_decode_* is this walk, run to its end), so every    */
/* structure before the error has been yielded. A container whose declared  */
/* size reaches past the input does not stop the walk: what lies inside the */
/* input is yielded, then PCQ_ERR_TRUNCATED at the first thing cut off.      */
/* Diagnostics go to opts->on_diag in wire order as they are reached.       */
/*                                                                          */
/*     pcq_walk w;                                                          */
/*     pcq_item it;                                                         */
/*     int rc;                                                              */
/*     pcq_walk_begin(&w, PCQ_KIND_DATA, buf, len, NULL);                   */
/*     while ((rc = pcq_walk_next(&w, &it)) == 1)                           */
/*         printf("%*s%s at 0x%zx\n", 2 * it.depth, "",                     */
/*                pcq_struct_info_of(it.type)->name, it.offset);            */
/*     if (rc < 0)   // it: what was being read when the bytes went wrong   */
/*         printf("0x%zx: %s (%s)\n", w.err.offset, pcq_strerror(rc),       */
/*                w.err.what);                                              */
/*                                                                          */
/* What comes, by kind (depth in brackets):                                 */
/*   counterset-info  COUNTERSET_REG_INFO [0], COUNTER_REG_INFO [0] x N     */
/*   counter-info     COUNTER_REG_INFO [0]                                  */
/*   strings          STRING_BUFFER_HEADER [0], STRING_COUNTER_HEADER [1]   */
/*                    x dwCounters (each with its text)                     */
/*   string           STRING [0];  guid  PROVIDER_GUID [0]                  */
/*   guids            COUNTERSET_GUID [0] x len / 16                        */
/*   instances        INSTANCE [0] ...;  identifiers  COUNTER_IDENTIFIER [0] */
/*   data             DATA_HEADER [0], then per block COUNTER_HEADER [1] and */
/*                    by dwType: 1 COUNTER_DATA [2]; 2 MULTI_COUNTERS [2],   */
/*                    COUNTER_ID [3] x n, COUNTER_DATA [2] x n; 4            */
/*                    MULTI_INSTANCES [2], then DATA_INSTANCE [3] each with  */
/*                    one COUNTER_DATA [4]; 6 MULTI_COUNTERS [2], COUNTER_ID */
/*                    [3] x n, MULTI_INSTANCES [2], DATA_INSTANCE [3] each   */
/*                    with n COUNTER_DATA [4].                              */
/* ------------------------------------------------------------------------ */
typedef struct pcq_item {
    int type;            /* pcq_struct_type */
    unsigned depth;      /* nesting, 0 at the top (see above) */
    uint32_t index;      /* position among its siblings */
    size_t offset;       /* first byte */
    size_t size;         /* its own bytes: fixed part (+ name, + value) */
    size_t extent;       /* bytes it declares with what it contains; from
                                  offset, may reach past the input when it is cut */
    int single;          /* COUNTER_DATA: the only value its block or instance
                                  has by layout (types 1 and 4), not one of a list */
    uint32_t counter_id; /* COUNTER_DATA in a type 2 or 6 block: the id at its
                                  position in the block's list (has_counter_id) */
    int has_counter_id;
    int partial;       /* 1: the structure the walk stopped in (see pcq_walk_next) */
    size_t values;     /* PCQ_BULK: offset of the first value that follows, checked */
    size_t values_ids; /* PCQ_BULK: their counter ids (a type 2 block's, a type 6 instance's), or 0 */
    uint32_t nvalues;  /* PCQ_BULK: how many (read them with pcq_item_values) */
    int values_fast;   /* PCQ_BULK: all canonical (16 bytes, a 4- or 8-byte value) */
    union {
        pcq_counterset_reg set;    /* COUNTERSET_REG_INFO */
        pcq_counter_reg counter;   /* COUNTER_REG_INFO */
        pcq_strings strings;       /* STRING_BUFFER_HEADER */
        pcq_string_entry entry;    /* STRING_COUNTER_HEADER */
        pcq_bytes text;            /* STRING */
        pcq_guid guid;             /* PROVIDER_GUID, COUNTERSET_GUID */
        pcq_instance instance;     /* INSTANCE */
        pcq_identifier identifier; /* COUNTER_IDENTIFIER */
        pcq_data data;             /* DATA_HEADER */
        pcq_block block;           /* COUNTER_HEADER: status, type, size, reserved, offset */
        struct {
            uint32_t size, count;
            pcq_bytes ids;
        } multi;     /* MULTI_COUNTERS */
        uint32_t id; /* COUNTER_ID */
        struct {
            uint32_t size, count;
        } instances;                     /* MULTI_INSTANCES */
        pcq_data_instance data_instance; /* DATA_INSTANCE (value, values_end unused) */
        pcq_value value;                 /* COUNTER_DATA */
    } u;
} pcq_item;

/* Private: one container the walk is inside. */
typedef struct pcq_walk_frame_ {
    size_t pos, end;          /* next item; declared end (may pass the input) */
    size_t count_at, size_at; /* the fields blamed when count or size disagree */
    size_t ids_at;            /* values of type 2/6: the counter id array */
    const char *count_what, *size_what;
    uint32_t left, index;              /* items still expected; items yielded */
    uint32_t nvalues;                  /* values per instance */
    uint8_t kind, phase, flags, btype; /* flags: PCQ_FRAME_COUNTED_, and pcq_codec.c's others */
    uint8_t depth;
    uint32_t vbytes; /* an iterator of canonical instances: their values' bytes (16 nvalues), which
                        its inline step adds without a multiply (in what was padding on LP64) */
} pcq_walk_frame_;

#define PCQ_WALK_FRAMES_   6
#define PCQ_FRAME_COUNTED_ 1u /* f.flags: a list of `left` items (pcq_codec.c's FL_COUNTED) */

/* The walk's state: on the caller's stack (about 9 KiB with the default
 * PCQ_PAIR_CHECK_MAX, 8 bytes an entry, plus 2 KiB); fields are
 * private but err, which holds the error once pcq_walk_next returned < 0. */
typedef struct pcq_walk {
    const uint8_t *buf;
    size_t len;
    const pcq_opts *opts;
    int kind;
    int nframes;
    pcq_walk_frame_ frames[PCQ_WALK_FRAMES_];
    size_t aux[4];     /* private, by kind */
    unsigned mode;     /* private */
    uint32_t *scratch; /* the caller's, when large enough */
    size_t nsorted;    /* entries in the set-wide table */
    int set_checks;    /* 1 checked, 0 none, -1 skipped */
    pcq_item cut;      /* PCQ_BULK: the item an error found ahead cut (type 0: none) */
    size_t memo[4];    /* private: the last texts measured, by parity: start, NUL */
    uint32_t *lens;    /* private: the NUL of each string entry's text (sorted sets) */
    size_t chunk;    /* private: without room to sort a string block, the bytes a bit of its NUL map covers */
    size_t map_from; /* private: where that map starts (no text of the block starts before) */
    uint32_t table[2 * PCQ_PAIR_CHECK_MAX];
    uint32_t run;      /* private: PCQ_BULK, instances ahead on the top frame checked canonical */
    uint32_t run_skip; /* private: PCQ_BULK, instances to take one at a time (a run that was not) */
    size_t run_lim;    /* private: PCQ_BULK, where the checked run ends, less an instance's least size
                          (16 and its values): no instance of it starts past it */
    /* private: PCQ_BULK, the run as its inline step keeps it (the top frame's pos, index and left
     * are brought up to date from it when pcq_walk_next is called: run_on) */
    size_t run_pos, run_ids, run_vb; /* the next instance; its values' counter ids; their bytes */
    uint32_t run_base, run_nv;       /* the index after the run's last; values an instance */
    uint8_t run_on, run_depth;
    /* private: PCQ_BULK, the next item when it is a canonical type 2 block's _PERF_MULTI_COUNTERS,
     * which the block's header checked whole: its offset (0: none), the block's end, its dwSize and
     * dwCounters as read then, its depth */
    size_t pend_at, pend_end;
    uint32_t pend_size, pend_count;
    uint32_t pend_run;    /* a _PERF_MULTI_INSTANCES: its run of instances, begun when it is taken */
    uint32_t pend_count2; /* a type 6 block's: its dwInstances, the item after its _PERF_MULTI_COUNTERS */
    uint8_t pend_depth, pend_type, pend_btype; /* the item's depth and type; its block's dwType */
    /* private: PCQ_BULK, a run of blocks on the top frame (a list of blocks) checked canonical, as
     * its inline step keeps it (pcq_walk_block_item_); the frame is brought up to date from it when
     * pcq_walk_next is called and cannot go on with it (brun_on) */
    size_t brun_pos, brun_lim; /* the next block; where the run ends */
    size_t brun_mi;            /* the last block's _PERF_MULTI_INSTANCES (0: none), its instances' frame
                                  not made (brun_stop makes it) */
    uint32_t brun, brun_base;  /* blocks left; the index after the run's last */
    uint32_t brun_count;       /* the last block's dwInstances */
    uint8_t brun_on, brun_depth;
    pcq_error err;
} pcq_walk;

/* Starts a walk of buf (len bytes, unvalidated) as `kind`. opts as for
 * pcq_decode_* (may be NULL); it and the bytes must outlive the walk. Its
 * flags, and whether it has an on_diag, are read here once: set them before
 * the walk begins. */
PCQ_API void pcq_walk_begin(pcq_walk *w, pcq_kind kind, const void *buf, size_t len, const pcq_opts *opts);
/* The next structure: 1 with *item; 0 at the end of a buffer that is whole
 * and well formed (pcq_decode_* would return PCQ_OK); or a negative status,
 * the error also in w->err. On an error *item describes the structure that
 * was being read (type, depth, index, offset; PCQ_S_NONE when the error is
 * about a container's count or size as a whole) and item->size says how many
 * of its first bytes can be shown: the fields that lie wholly inside them
 * (before the blamed field, or all that are in the input when the structure
 * itself is cut); its union is not filled. Later calls return the same
 * status. Work per call: constant, but for names, string texts and the
 * set-wide checks at a counterset's or string block's header (linear). */
PCQ_API int pcq_walk_next(pcq_walk *w, pcq_item *item);

/* PCQ_BULK (in pcq_opts.flags): for a single pass over large data buffers.
 * The walk yields no COUNTER_ID and no COUNTER_DATA items; it checks them
 * (in a few instructions a value when they are canonical) before it yields
 * the item they belong to: the COUNTER_HEADER of a type 1 block (its value),
 * the _PERF_MULTI_COUNTERS of a type 2 or 6 block (its ids, and for type 2
 * its values) and each DATA_INSTANCE (its values). That item's `values` and
 * `nvalues` say where they are; pcq_item_values gives an iterator over them
 * (which cannot fail) and pcq_values_read_u64 reads them in one call. When
 * the bytes go wrong among them, the item comes with the values before the
 * error (nvalues counts them) and the next call returns the error, with the
 * structure it cut as *item. Diagnostics among them come before the item.
 * Everything else (errors, offsets, diagnostics, their order) is the walk's.
 * A canonical block (the layout Windows writes) is checked whole when it
 * is reached, and a block of up to 4 KiB is then one run of instances; a
 * larger block's instances are checked in runs (as many as fit 4 KiB, at
 * most 64); a run's instances, and a canonical type 2 block's
 * _PERF_MULTI_COUNTERS, are yielded by an inline step (pcq_walk_next is a
 * macro for it, as the iterators' steps are): the same items, in fewer
 * instructions.
 *
 *     pcq_opts o = {0};
 *     uint64_t v[64];
 *     o.flags = PCQ_BULK;
 *     pcq_walk_begin(&w, PCQ_KIND_DATA, buf, len, &o);
 *     while (pcq_walk_next(&w, &it) == 1)
 *         if (it.nvalues) {
 *             pcq_iter vals;
 *             size_t n;
 *             pcq_item_values(&w, &it, &vals);
 *             while ((n = pcq_values_read_u64(&vals, v, 64)) > 0) use(v, n);
 *         }
 */
struct pcq_iter;
PCQ_API void pcq_item_values(const pcq_walk *w, const pcq_item *item, struct pcq_iter *it);

/* The value of one field of a walk's item, for tools that show items from
 * the layout (pcqdump, the Wireshark plugin, the Python binding). */
typedef enum pcq_value_kind {
    PCQ_V_NONE = 0, /* not available: a partial item's unread field or name */
    PCQ_V_UNSIGNED, /* u: U16, U32, U64; an integer value (4 or 8 bytes)     */
    PCQ_V_SIGNED,   /* i: I32                                                */
    PCQ_V_GUID,     /* guid                                                  */
    PCQ_V_TEXT,     /* bytes: UTF-16LE without its NUL                       */
    PCQ_V_ABSENT,   /* a string entry with no string (dwOffset 0xFFFFFFFF)   */
    PCQ_V_BYTES,    /* bytes: a value that is not 4 or 8 bytes               */
    PCQ_V_WORD      /* word: a static name (the dwOffset convention)         */
} pcq_value_kind;

/* A field's value; which member holds it depends on kind. */
typedef struct pcq_field_value {
    int kind;      /* pcq_value_kind */
    size_t offset; /* where it is in the input (a text: its first byte) */
    uint64_t u;
    int64_t i;
    pcq_guid guid;
    pcq_bytes bytes;
    const char *word;
} pcq_field_value;

/* Field f (of the structure type of it) of an item that pcq_walk_next gave
 * for the bytes buf, len: a fixed field from its bytes, when they lie in the
 * item's first it->size bytes and its size is its type's; a variable part
 * from the item, when it is the item's structure's own (never for a partial
 * item). Otherwise PCQ_V_NONE. Fills *out (zero but for the kind's member
 * and offset) and returns its kind. */
PCQ_API int pcq_item_field(const pcq_item *it, const pcq_field *f, const void *buf, size_t len,
                           pcq_field_value *out);

/* 1 when the item is an element of an array of its container, which tools
 * show as name[index] (string entries, GUIDs, instances, identifiers, data
 * blocks, counter ids, data instances; a counter's registration info in a
 * counterset-info reply, not the lone one of a counter-info reply; a value
 * unless it is its block's or instance's only one); else 0. */
PCQ_API int pcq_item_is_element(const pcq_item *it, pcq_kind kind);

/* ------------------------------------------------------------------------ */
/* Typed iterators over a decoded buffer. One type for every sequence; it   */
/* lives on the caller's stack. next() returns 1 with an item, 0 at a clean */
/* end, or a negative status (details in it->err). After a successful       */
/* pcq_decode_*, iteration over the same unchanged bytes never fails. On    */
/* bytes that were not validated they check what they read, but not what    */
/* they step over: use the walk for that (a run of 4 or more values is      */
/* checked when its iterator is made, and read inside what was checked).    */
/* Fields are private but err.                                              */
/* ------------------------------------------------------------------------ */
/* pcq_iter.fast on canonical bytes: every bit, so that an inline step of
 * blocks or instances tests f.left & fast, one test for both (a values
 * iterator's tests f.pos < fast_end: no count to step). */
#define PCQ_ITER_FAST_ 0xFFFFFFFFu
typedef struct pcq_iter {
    const uint8_t *buf; /* private: the whole input */
    size_t len;         /* private: its length */
    pcq_walk_frame_ f;  /* private: the sequence and where it stands */
    uint32_t fast;      /* private: canonical bytes, stepped without checks (PCQ_ITER_FAST_, or 0) */
    uint32_t ids_mask;  /* private: values stepped without checks: f.ids_at is the next value's counter
                           id (0xFFFFFFFF), or a byte of the values (0: they have none) */
    size_t fast_end;    /* private: where the values of a values iterator stepped without checks end
                           (f.left is not kept then); 0 for every other iterator */
    pcq_error err;      /* why next() returned a negative status */
} pcq_iter;

/* instances: the opnum 2 array. */
/* Validates the whole array; *count (may be NULL) receives the number of instances. */
PCQ_API int pcq_decode_instances(const void *buf, size_t len, const pcq_opts *opts, size_t *count,
                                 pcq_error *err);
/* Iterates the array (decoded or not); next() fills *out with one instance. */
PCQ_API void pcq_instances_begin(const void *buf, size_t len, pcq_iter *it);
PCQ_API int pcq_instances_next(pcq_iter *it, pcq_instance *out);

/* identifiers: opnum 5 reply, opnum 7 request and reply. */
/* Validates the whole array; *count (may be NULL) receives the number of identifiers. */
PCQ_API int pcq_decode_identifiers(const void *buf, size_t len, const pcq_opts *opts, size_t *count,
                                   pcq_error *err);
/* Iterates the array (decoded or not); next() fills *out with one identifier. */
PCQ_API void pcq_identifiers_begin(const void *buf, size_t len, pcq_iter *it);
PCQ_API int pcq_identifiers_next(pcq_iter *it, pcq_identifier *out);

/* data: validates the whole buffer (every block, instance and value). */
PCQ_API int pcq_decode_data(const void *buf, size_t len, const pcq_opts *opts, pcq_data *out, pcq_error *err);
/* The blocks of a decoded data buffer; next() fills *out with one block. */
PCQ_API void pcq_data_blocks(const pcq_data *d, pcq_iter *it);
PCQ_API int pcq_blocks_next(pcq_iter *it, pcq_block *out);
/* Counter id i of a type 2 or 6 block (0 if out of range). */
PCQ_API uint32_t pcq_block_counter_id(const pcq_block *b, uint32_t i);
/* Values of a block: dwCounters of a type 2 block, the one of a type 1 block
 * (also in out->value), none for the other types. */
PCQ_API void pcq_block_values(const pcq_data *d, const pcq_block *b, pcq_iter *it);
/* Instances of a type 4 or 6 block; next() fills *out with one instance. */
PCQ_API void pcq_block_instances(const pcq_data *d, const pcq_block *b, pcq_iter *it);
PCQ_API int pcq_instances_of_block_next(pcq_iter *it, pcq_data_instance *out);
/* Values of one instance of a type 6 block (or of a type 4 block: its one);
 * next() fills *out with one value (for either values iterator), with its
 * counter id (out->counter_id) when its block lists them (types 2 and 6). */
PCQ_API void pcq_instance_values(const pcq_data *d, const pcq_data_instance *inst, pcq_iter *it);
PCQ_API int pcq_values_next(pcq_iter *it, pcq_value *out);

/* A value in brief (16 bytes): what a collector keeps. */
typedef struct pcq_vref {
    uint64_t u64;       /* the value when data_size is 4 or 8, else 0 */
    uint32_t offset;    /* of its _PERF_COUNTER_DATA (dwTotalSize is 32-bit) */
    uint32_t data_size; /* dwDataSize */
} pcq_vref;

/* Batch accessor: up to cap values of a values iterator into out, in one
 * call. Returns how many it read; fewer than cap at the end of the sequence
 * or on an error (then it->err holds it, as pcq_values_next would). */
PCQ_API size_t pcq_values_read(pcq_iter *it, pcq_vref *out, size_t cap);
/* The same as plain integers (a value that is not 4 or 8 bytes reads as 0):
 * on a canonical buffer (pcq_decode_data found every value 16 bytes) a tight
 * loop, the fastest way to a block's or an instance's values. */
PCQ_API size_t pcq_values_read_u64(pcq_iter *it, uint64_t *out, size_t cap);
/* Value j (0-based) of every instance of a type 4 or 6 block, in instance
 * order: one counter across instances. PCQ_OK with *count values in out;
 * PCQ_ERR_BUFFER_TOO_SMALL with *count = the instances (out NULL and cap 0
 * ask for it); PCQ_ERR_INVALID_ARG for another block type or j too large; or
 * an iterator's error (bytes not validated). */
PCQ_API int pcq_block_column_u64(const pcq_data *d, const pcq_block *b, uint32_t j, uint64_t *out, size_t cap,
                                 size_t *count);
/* Every value of a type 2, 4 or 6 block by counter: out[j * ninst + i] is
 * value j of instance i (ninst: its instances; a type 2 block has one, a
 * type 4 block one value each), ready for pcq_calc_cook_column. PCQ_OK with
 * *count = all the values; PCQ_ERR_BUFFER_TOO_SMALL with *count = that (out
 * NULL and cap 0 ask for it); PCQ_ERR_INVALID_ARG for a type 0 or 1 block;
 * or an iterator's error (bytes not validated). */
PCQ_API int pcq_block_columns_u64(const pcq_data *d, const pcq_block *b, uint64_t *out, size_t cap,
                                  size_t *count);
/* The same by instance: out[i * nc + j] is value j of instance i (nc: the
 * block's counters; 1 for type 4), the order of the bytes, for a caller that
 * takes an instance's values together with its name (the instances
 * iterator). Reading a large block this way touches memory in order. */
PCQ_API int pcq_block_rows_u64(const pcq_data *d, const pcq_block *b, uint64_t *out, size_t cap,
                               size_t *count);

/* ---- the iterators' fast path (private) ---------------------------------- */
/* On a buffer pcq_decode_data found canonical (PCQ_DATA_CANONICAL_), the
 * value and instance iterators step without checks. These inline copies of
 * that step let a loop over millions of values cost a few instructions per
 * value; the macros below call them, and they call the functions of the same
 * names (which do the same out of line) for everything else. */
#if defined(__GNUC__)
#define PCQ_INLINE_ static __inline__ __attribute__((always_inline))
#elif defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define PCQ_INLINE_ static inline
#else
#define PCQ_INLINE_ static
#endif

/* SSE2 (every x86-64 compiler has it) converts eight ASCII units of a name
 * at a time; PCQ_NO_SIMD leaves it out. */
#if defined(__SSE2__) && defined(__GNUC__) && !defined(PCQ_NO_SIMD)
#include <emmintrin.h>
#define PCQ_SSE2_ 1
/* A step for long names, out of line: inline, gcc 12 took its loads on a
 * path a caller's short name array never takes for reads past that array
 * (-Warray-bounds, in the caller's code); the call costs such a name ~10
 * instructions. Unused in most files: no warning of that either. */
#define PCQ_NOINLINE_ static __attribute__((noinline, unused))
#else
#define PCQ_SSE2_ 0
#endif

#if defined(__GNUC__)
#define PCQ_LIKELY_(x) __builtin_expect(!!(x), 1) /* keeps the fast step's loop tight */
#else
#define PCQ_LIKELY_(x) (x)
#endif

/* A hint to fetch the line at p, which lies inside the input (D19): under
 * PCQ_AHEAD_CHECK a 1-byte read, so that ASan sees where each points. */
#if defined(PCQ_AHEAD_CHECK)
#define PCQ_PREFETCH_(p) ((void)*(const volatile uint8_t *)(p))
#elif defined(__GNUC__)
#define PCQ_PREFETCH_(p) __builtin_prefetch(p)
#else
#define PCQ_PREFETCH_(p) ((void)0)
#endif

/* PCQ_NONNULL_(p): tells the compiler that p, a pointer into a buffer the
 * caller gave, is not NULL, so that a later test of it (the name's, in
 * pcq_utf16_to_utf8_fast_) is dropped where the two meet inline. Only for
 * what is true by construction (an instance's name is b + at + 8 on every
 * path: fz_walk and fz_props check it). Every path that returns an instance
 * says so: the name reaches the caller's loop from all of them, and with
 * the fast step's alone (tried on 0c33d69) the test stayed. */
#if defined(__clang__)
#define PCQ_NONNULL_(p) __builtin_assume((p) != 0)
#elif defined(__GNUC__)
#define PCQ_NONNULL_(p) ((p) ? (void)0 : __builtin_unreachable())
#else
#define PCQ_NONNULL_(p) ((void)0)
#endif

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PCQ_HOST_LE_ 1 /* the host order is the wire's (and __builtin_memcpy is there) */
/* One load where the host order is the wire's (as ld32 in pcq_codec.c; the
 * builtin needs no <string.h> here). */
PCQ_INLINE_ uint32_t pcq_ld32_(const uint8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return v;
}

PCQ_INLINE_ uint64_t pcq_ld64_(const uint8_t *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    return v;
}

PCQ_INLINE_ unsigned pcq_ld16_(const uint8_t *p)
{
    uint16_t v;
    __builtin_memcpy(&v, p, 2);
    return v;
}

PCQ_INLINE_ void pcq_st32_(uint8_t *p, uint32_t v)
{
    __builtin_memcpy(p, &v, 4);
}
#else
PCQ_INLINE_ uint32_t pcq_ld32_(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

PCQ_INLINE_ uint64_t pcq_ld64_(const uint8_t *p)
{
    return (uint64_t)pcq_ld32_(p) | (uint64_t)pcq_ld32_(p + 4) << 32;
}

PCQ_INLINE_ unsigned pcq_ld16_(const uint8_t *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

PCQ_INLINE_ void pcq_st32_(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
#endif

/* A canonical _PERF_COUNTER_DATA at p (dwSize 16, dwDataSize 4 or 8): a
 * 4-byte value is the low half of the 8 bytes. Its size read as the low
 * half of the record's first word, the choice is a conditional move with
 * gcc 12, not a branch: a counter set's sizes (4 and 8 mixed) mispredict
 * in the pass, between the checks of a run (the pass of 256 MiB, timed:
 * procinfo 85-89% -> 91-95% of memcpy, wide 65-81% -> 86-90%; ~0.6
 * instructions a value more; D19). */
PCQ_INLINE_ void pcq_value_at_(const uint8_t *b, size_t at, pcq_value *out)
{
    uint64_t w = pcq_ld64_(b + at), v = pcq_ld64_(b + at + 8);
    uint32_t ds = (uint32_t)w;
    out->data_size = ds;
    out->size = 16;
    out->data.ptr = b + at + 8;
    out->data.len = ds;
    out->u64 = ds == 4 ? (uint32_t)v : v;
    out->is_int = 1;
    out->counter_id = 0;
    out->offset = at;
}

/* Any _PERF_COUNTER_DATA at `at` whose dwDataSize fits its dwSize (what
 * parse_value fills: a 4- or 8-byte value is read); and no value at all. */
/* The integer of such a record: its 4- or 8-byte value, else 0. */
PCQ_INLINE_ uint64_t pcq_value_u64_(const uint8_t *b, size_t at, uint32_t ds)
{
    return ds == 8 ? pcq_ld64_(b + at + 8) : ds == 4 ? pcq_ld32_(b + at + 8) : 0;
}

PCQ_INLINE_ void pcq_value_any_(const uint8_t *b, size_t at, uint32_t ds, uint32_t size, pcq_value *out)
{
    out->data_size = ds;
    out->size = size;
    out->data.ptr = b + at + 8;
    out->data.len = ds;
    out->u64 = pcq_value_u64_(b, at, ds);
    out->is_int = ds == 4 || ds == 8;
    out->counter_id = 0;
    out->offset = at;
}

PCQ_INLINE_ void pcq_value_none_(pcq_value *out)
{
    out->data_size = out->size = 0;
    out->data.ptr = 0;
    out->data.len = 0;
    out->u64 = 0;
    out->is_int = 0;
    out->counter_id = 0;
    out->offset = 0;
}

/* Counter id i of a block's list (pcq_block_counter_id without the call,
 * for the evaluator's loops): 0 past its end. */
PCQ_INLINE_ uint32_t pcq_block_counter_id_(const pcq_block *b, uint32_t i)
{
    return (size_t)i < b->counter_ids.len / 4 ? pcq_ld32_(b->counter_ids.ptr + 4 * (size_t)i) : 0;
}

/* A block of a canonical buffer at `at`, read without checks: what the
 * checking step (parse_block, block_body) fills. Every field is set, as a
 * memset would leave the ones a type has not (a memset of the whole struct
 * cost as much as the rest of the step), and a type 2 block's each once:
 * zeros stored for all and then overwritten cost ~10 instructions a block
 * more, where a _PERF_MULTI_COUNTERS reply has a block every ~500 bytes.
 * Offsets: _PERF_COUNTER_HEADER dwStatus 0, dwType 4, dwSize 8 (16 bytes,
 * §2.2.4.8); _PERF_MULTI_COUNTERS dwSize 0, dwCounters 4, the ids from 8
 * (§2.2.4.11); _PERF_MULTI_INSTANCES dwTotalSize 0, dwInstances 4 (8 bytes,
 * §2.2.4.10). */
PCQ_INLINE_ void pcq_block_at_(const uint8_t *b, size_t at, pcq_block *out)
{
    size_t body = at + 16;
    out->offset = at;
    out->status = pcq_ld32_(b + at);
    out->type = pcq_ld32_(b + at + 4);
    out->size = pcq_ld32_(b + at + 8);
    out->reserved = 0;
    pcq_value_none_(&out->value);
    out->instances_size = out->num_instances = 0;
    out->instances_at = 0;
    if (out->type == PCQ_PERF_MULTI_COUNTERS || out->type == PCQ_PERF_COUNTERSET) {
        out->multi_at = body;
        out->multi_size = pcq_ld32_(b + body);
        out->num_counters = pcq_ld32_(b + body + 4);
        out->counter_ids.ptr = b + body + 8;
        out->counter_ids.len = (size_t)out->num_counters * 4;
        body += out->multi_size;
        out->body = body;
        out->body_end = at + out->size;
        if (out->type == PCQ_PERF_MULTI_COUNTERS) return;
    } else {
        out->multi_size = out->num_counters = 0;
        out->counter_ids.ptr = 0;
        out->counter_ids.len = 0;
        out->multi_at = 0;
        out->body = body;
        out->body_end = out->type == PCQ_PERF_ERROR_RETURN ? body : at + out->size;
        if (out->type == PCQ_PERF_SINGLE_COUNTER) pcq_value_at_(b, body, &out->value);
        if (out->type != PCQ_PERF_MULTI_INSTANCES) return;
    }
    out->instances_at = body;
    out->instances_size = pcq_ld32_(b + body);
    out->num_instances = pcq_ld32_(b + body + 4);
    out->body = body + 8;
}

/* The rules a _PERF_COUNTER_DATA at `at` keeps (§2.2.4.9; parse_value says
 * which one broke): it starts before lim (the frame's end or the input's,
 * the nearer), 8 <= dwSize <= lim - at, dwDataSize <= dwSize - 8, and fewer
 * than 8 unused bytes past the least value area of 8 (D6). Its dwSize, or 0.
 * The one copy of these rules: the decoders (value_ok) and the inline steps
 * below use it. */
PCQ_INLINE_ uint32_t pcq_value_size_(const uint8_t *b, size_t at, size_t lim)
{
    uint32_t ds, size;
    if (at >= lim || lim - at < 8) return 0;
    ds = pcq_ld32_(b + at);
    size = pcq_ld32_(b + at + 4);
    if (size < 8 || size > lim - at || ds > size - 8 || (size >= 24 && size - 8 - ds >= 8)) return 0;
    return size;
}

/* The counter id of the value a checking values iterator is at: entry
 * f.index of its block's list at f.ids_at (0: none), read only inside the
 * input. */
PCQ_INLINE_ uint32_t pcq_iter_counter_id_(const pcq_iter *it)
{
    size_t at = it->f.ids_at;
    return at && at <= it->len && it->f.index < (it->len - at) / 4
               ? pcq_ld32_(it->buf + at + 4 * (size_t)it->f.index)
               : 0;
}

/* A value of a buffer that is not canonical, checked inline by the rules
 * of the checking step (frame_more, then parse_value: pcq_value_size_):
 * 1 and the value, or 0, *it untouched, for the checking step to say what
 * is wrong. */
PCQ_INLINE_ int pcq_value_lean_(pcq_iter *it, pcq_value *out)
{
    const uint8_t *b = it->buf;
    size_t at = it->f.pos, lim = it->f.end < it->len ? it->f.end : it->len;
    uint32_t size;
    if (it->err.code || !it->f.left || !(size = pcq_value_size_(b, at, lim))) return 0;
    pcq_value_any_(b, at, pcq_ld32_(b + at), size, out);
    out->counter_id = pcq_iter_counter_id_(it);
    it->f.pos = at + size;
    it->f.index++;
    it->f.left--;
    return 1;
}

/* A list whose count is met ends with no error where the checking step's
 * end test (pcq_codec.c's frame_more) passes: its end inside the input, and
 * fewer than 8 bytes from its last structure's end (pos) to its own (D6; a
 * pos past end wraps and fails). The one copy of that rule for the header's
 * steps and pcq_codec.c's shortcuts. */
PCQ_INLINE_ int pcq_list_end_ok_(size_t pos, size_t end, size_t len)
{
    return end <= len && end - pos < 8;
}

/* A values iterator of a buffer that is not canonical at its end, where
 * the checking step would end it with no error: its count met and its end
 * test passed. Inline, so that a list of a value or two (a type 1 block's)
 * ends without the checking call and its copies. */
PCQ_INLINE_ int pcq_values_ended_(const pcq_iter *it)
{
    return !it->err.code && !it->f.left && (it->f.flags & PCQ_FRAME_COUNTED_) &&
           pcq_list_end_ok_(it->f.pos, it->f.end, it->len);
}

PCQ_INLINE_ int pcq_values_next_fast_(pcq_iter *it, pcq_value *out)
{
    if (PCQ_LIKELY_(it->f.pos < it->fast_end)) { /* one test, no count: fast_end is 0 unless fast */
        pcq_value_at_(it->buf, it->f.pos, out);
        out->counter_id = pcq_ld32_(it->buf + it->f.ids_at) & it->ids_mask; /* no branch, one load */
        it->f.ids_at += 4;
        it->f.pos += 16;
        return 1;
    } else if (it->fast) { /* the end of canonical values */
        return 0;
    } else if (pcq_value_lean_(it, out)) {
        return 1;
    } else if (pcq_values_ended_(it)) {
        return 0;
    } else { /* on copies, so that *it and *out stay in registers on the fast path */
        pcq_iter t = *it;
        pcq_value v;
        int rc = pcq_values_next(&t, &v);
        *it = t;
        if (rc == 1) *out = v;
        return rc;
    }
}

/* The README's loop steps every block through here: inline, so that the
 * block it fills stays the caller's own (no call takes its address), and
 * its fields (the counter ids pcq_block_counter_id reads for every value)
 * stay in registers through the values' loop. */
PCQ_INLINE_ int pcq_blocks_next_fast_(pcq_iter *it, pcq_block *out)
{
    if (PCQ_LIKELY_(it->f.left & it->fast)) {
        pcq_block_at_(it->buf, it->f.pos, out);
        it->f.pos += out->size;
        it->f.left--; /* (f.index: no fast step reads or keeps it) */
        return 1;
    } else if (it->fast) {
        return 0;
    } else { /* the block on a copy, so that no call takes the caller's */
        pcq_block v;
        int rc = pcq_blocks_next(it, &v);
        if (rc == 1) *out = v;
        return rc;
    }
}

/* A values iterator over n canonical values from pos, stepped without
 * checks; their counter ids from ids when `has` (the n ids lie in the
 * input), else none: the step reads the values' own bytes, 4 a value, and
 * masks them to 0. */
PCQ_INLINE_ void pcq_values_fast_ids_(const uint8_t *buf, size_t len, size_t pos, uint32_t n, size_t ids,
                                      int has, pcq_iter *it)
{
    it->buf = buf;
    it->len = len;
    it->fast_end = pos + 16 * (size_t)n; /* inside the input: the caller's word */
    it->f.pos = pos;
    it->f.left = 0; /* (not kept: fast_end says where the values end) */
    it->f.index = 0;
    it->f.ids_at = has ? ids : pos;
    it->ids_mask = has ? 0xFFFFFFFFu : 0u;
    it->fast = PCQ_ITER_FAST_;
    it->err.code = 0;
    it->err.offset = 0;
    it->err.what = 0;
    it->err.diag = 0;
}

/* The same where the ids were not checked with the values: they are taken
 * when ids is not 0 and their n ids lie in the input. */
PCQ_INLINE_ void pcq_values_fast_at_(const uint8_t *buf, size_t len, size_t pos, uint32_t n, size_t ids,
                                     pcq_iter *it)
{
    pcq_values_fast_ids_(buf, len, pos, n, ids, ids && ids <= len && n <= (len - ids) / 4, it);
}

/* The iterators of canonical data (and of no values) below. A type 2
 * block's ids are its _PERF_MULTI_COUNTERS' list (at multi_at, public, of
 * num_counters), which validation found inside the input as it found the
 * values (at body): taken as they are. An instance's ids_at is private, and
 * an instance made by hand may carry a stale one while its public fields
 * are right: its ids are taken only when they lie in the input (D11, "The
 * id by position"). */
PCQ_INLINE_ void pcq_instance_values_fast_(const pcq_data *d, const pcq_data_instance *inst, pcq_iter *it)
{
    if (PCQ_LIKELY_(d->flags & PCQ_DATA_CANONICAL_) ||
        !inst->num_values) { /* none: nothing to check either */
        /* its ids when all lie in the input (ids_at and the count below 2^32: their sum in 64 bits) */
        pcq_values_fast_ids_(d->buf, d->buf_len, inst->values, inst->num_values, inst->ids_at,
                             inst->ids_at &&
                                 (uint64_t)inst->ids_at + 4 * (uint64_t)inst->num_values <= d->buf_len,
                             it);
    } else { /* on copies, so that *inst and *it stay in registers on the fast path; of what
              * pcq_instance_values reads alone, the rest zero (as pcq_block_lists_ and why) */
        pcq_data_instance c;
        pcq_iter t;
        c.size = c.instance_id = 0;
        c.name.ptr = 0;
        c.name.len = 0;
        c.offset = inst->offset;
        pcq_value_none_(&c.value);
        c.num_values = inst->num_values;
        c.ids_at = inst->ids_at;
        c.values = inst->values;
        c.values_end = inst->values_end;
        pcq_instance_values(d, &c, &t);
        *it = t;
    }
}

/* A block's steps read the fields of the caller's block. gcc 12 warns that
 * they may be unset (-Wmaybe-uninitialized) where the caller tests the
 * block step's result through a function of its own (a test macro's): the
 * step sets every field it returns 1 for, and only then may the block be
 * handed here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* A block with no value (no counter, or none of its type) whose checking
 * iterator would end at once: its end inside the input, and fewer than 8
 * bytes after its last structure (what the checking step's end test asks). */
PCQ_INLINE_ int pcq_block_no_values_(const pcq_data *d, const pcq_block *b)
{
    size_t from = b->type == 2 ? b->body : b->body_end;
    return (b->type == 2 ? b->num_counters == 0 : b->type != 1) &&
           pcq_list_end_ok_(from, b->body_end, d->buf_len);
}

/* The fields of a block that pcq_block_values and pcq_block_instances read
 * (where its lists are), the rest zero: the slow paths below copy these,
 * not the whole block, so that a caller's loop that reads none of the rest
 * (the README's reads the type) need not keep it (gcc 12 then drops its
 * stores: the walk of a block every ~275 bytes paid ~30 instructions a
 * block for them). */
PCQ_INLINE_ void pcq_block_lists_(const pcq_block *b, pcq_block *c)
{
    c->status = c->size = c->reserved = 0;
    c->type = b->type;
    c->offset = b->offset;
    pcq_value_none_(&c->value);
    c->multi_size = c->instances_size = 0;
    c->num_counters = b->num_counters;
    c->counter_ids.ptr = 0;
    c->counter_ids.len = 0;
    c->num_instances = b->num_instances;
    c->multi_at = b->multi_at;
    c->instances_at = b->instances_at;
    c->body = b->body;
    c->body_end = b->body_end;
}

PCQ_INLINE_ void pcq_block_values_fast_(const pcq_data *d, const pcq_block *b, pcq_iter *it)
{
    if (PCQ_LIKELY_(d->flags & PCQ_DATA_CANONICAL_) || pcq_block_no_values_(d, b)) {
        pcq_values_fast_ids_(d->buf, d->buf_len, b->type == 1 ? b->offset + 16 : b->body,
                             b->type == 1   ? 1u
                             : b->type == 2 ? b->num_counters
                                            : 0u,
                             b->type == 2 ? b->multi_at + 8 : 0, b->type == 2, it);
    } else { /* on copies: no call takes the caller's block (see pcq_blocks_next_fast_) */
        pcq_block c;
        pcq_iter t;
        pcq_block_lists_(b, &c);
        pcq_block_values(d, &c, &t);
        *it = t;
    }
}

/* A canonical block's instances: what the inline step reads, and nothing it
 * does not (the checking path's fields are for errors, which cannot come). */
PCQ_INLINE_ void pcq_block_instances_fast_(const pcq_data *d, const pcq_block *b, pcq_iter *it)
{
    if (PCQ_LIKELY_((d->flags & PCQ_DATA_CANONICAL_) && (b->type == 4 || b->type == 6))) {
        it->buf = d->buf;
        it->len = d->buf_len;
        it->fast_end = 0;
        it->f.pos = b->body;
        it->f.left = b->num_instances;
        it->f.index = 0;
        it->f.nvalues = b->type == 6 ? b->num_counters : 1u;
        it->f.vbytes = 16u * it->f.nvalues;                /* canonical: inside the input, below 2^32 */
        it->f.ids_at = b->type == 6 ? b->multi_at + 8 : 0; /* its _PERF_MULTI_COUNTERS' ids */
        it->ids_mask = 0;
        it->fast = PCQ_ITER_FAST_;
        it->err.code = 0;
        it->err.offset = 0;
        it->err.what = 0;
        it->err.diag = 0;
    } else { /* on copies, as in pcq_block_values_fast_ */
        pcq_block c;
        pcq_iter t;
        pcq_block_lists_(b, &c);
        pcq_block_instances(d, &c, &t);
        *it = t;
    }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* A canonical name's NUL is in its last 8 bytes, zeros after it, and no
 * unit before it is 0: the units of that word are k non-zero ones, then
 * zeros, so k (0..3) is the number of 16-bit units its bits span, (bits +
 * 15) / 16. bits(w) is the index of the top bit of 2w + 1, which is never 0
 * (a count of leading zeros is defined); else three compares. */
PCQ_INLINE_ size_t pcq_name_len_(const uint8_t *b, size_t name, size_t end)
{
    uint64_t w = pcq_ld64_(b + end - 8);
#if defined(__GNUC__)
    unsigned top = (unsigned)__builtin_clzll(2 * w + 1) ^ 63u; /* the top bit's index */
    size_t k = (top + 15u) >> 4; /* unsigned: as size_t, gcc 12 sign-extended it (an instruction) */
#else
    size_t k = (size_t)(w != 0) + (w > 0xFFFFu) + (w > 0xFFFFFFFFu);
#endif
    return end - 8 - name + 2 * k;
}

/* Private, for the step below: where the first U+0000 in [name, end) is
 * (end: none); where the last of n >= 1 values from `at` starts, each
 * taken as the checking step takes it, inside min(end, len) (else
 * (size_t)-1). */
PCQ_API size_t pcq_nul16_(const uint8_t *b, size_t name, size_t end);
PCQ_API size_t pcq_last_value_(const uint8_t *b, size_t len, size_t at, size_t end, uint32_t n);

/* An instance of a block that is not canonical, checked inline by the
 * rules of the checking step (Size holds the header and a NUL and stays in
 * the block and the input, fewer than 8 bytes after the NUL, each value as
 * parse_value takes it): 1 and the instance, or 0, *it untouched, for the
 * checking step to say what is wrong. Its calls take no pointer to *it or
 * *out, so these stay in registers (docs/decisions.md D11). */
PCQ_INLINE_ int pcq_instance_lean_(pcq_iter *it, pcq_data_instance *out)
{
    const uint8_t *b = it->buf;
    size_t at = it->f.pos, lim = it->f.end < it->len ? it->f.end : it->len, size, values, nul, end, last = 0;
    if (it->err.code || at >= lim || lim - at < 10) return 0;
    size = pcq_ld32_(b + at);
    if (size < 10 || size > lim - at) return 0;
    values = end = at + size;
    /* an empty name (a NUL first) without the call: the packed instances of
     * hostile replies have one (Size >= 10: the NUL is inside) */
    nul = (b[at + 8] | b[at + 9]) == 0 ? at + 8 : pcq_nul16_(b, at + 8, values);
    if (nul == values || values - nul - 2 >= 8) return 0;
    if (it->f.nvalues == 1) { /* one value (type 4, a set of one counter): without pcq_last_value_'s call */
        uint32_t size1 = pcq_value_size_(b, values, lim);
        if (!size1) return 0;
        last = values;
        end = values + size1;
    } else if (it->f.nvalues) {
        last = pcq_last_value_(b, it->len, values, it->f.end, it->f.nvalues);
        if (last == (size_t)-1) return 0;
        end = last + pcq_ld32_(b + last + 4);
    }
    out->size = (uint32_t)size;
    out->instance_id = pcq_ld32_(b + at + 4);
    out->name.ptr = b + at + 8;
    PCQ_NONNULL_(out->name.ptr);
    out->name.len = nul - (at + 8);
    out->offset = at;
    out->num_values = it->f.nvalues;
    out->ids_at = (uint32_t)it->f.ids_at; /* dwTotalSize is 32-bit: an offset inside fits */
    out->values = values;
    out->values_end = end;
    if (it->f.nvalues) /* the last value: a type 4 instance's one */
        pcq_value_any_(b, last, pcq_ld32_(b + last), (uint32_t)(end - last), &out->value);
    else
        pcq_value_none_(&out->value);
    it->f.pos = end;
    it->f.index++;
    it->f.left--;
    return 1;
}

PCQ_INLINE_ int pcq_instances_of_block_next_fast_(pcq_iter *it, pcq_data_instance *out)
{
    if (PCQ_LIKELY_(it->f.left & it->fast)) { /* one test: fast is every bit or none */
        const uint8_t *b = it->buf;
        size_t at = it->f.pos, size = pcq_ld32_(b + at), values = at + size;
        size_t end = values + it->f.vbytes;
        out->size = (uint32_t)size;
        out->instance_id = pcq_ld32_(b + at + 4);
        out->name.ptr = b + at + 8;
        PCQ_NONNULL_(out->name.ptr); /* inside the decoded buffer */
        out->name.len = pcq_name_len_(b, at + 8, values);
        out->offset = at;
        out->num_values = it->f.nvalues;
        out->ids_at = (uint32_t)it->f.ids_at; /* dwTotalSize is 32-bit: an offset inside fits */
        out->values = values;
        out->values_end = end;
        if (end != values) /* the last value: a type 4 instance's one */
            pcq_value_at_(b, end - 16, &out->value);
        else
            pcq_value_none_(&out->value);
        it->f.pos = end;
        it->f.left--;
        return 1;
    } else if (it->fast) { /* the end of a canonical block: no call, no copies (tested after the step:
                              * with the end tested first, gcc 12's loop ran the same instructions in twice
                              * the time) */
        return 0;
    } else if (it->f.left && pcq_instance_lean_(it, out)) {
        return 1;
    } else {
        pcq_iter t = *it;
        pcq_data_instance v;
        int rc = pcq_instances_of_block_next(&t, &v);
        *it = t;
        if (rc == 1) {
            *out = v;
            PCQ_NONNULL_(out->name.ptr); /* the function's: inside the buffer too */
        }
        return rc;
    }
}

/* How far ahead of a single pass's item its values are fetched. Out of
 * cache the pass checks a run of instances (up to 4 KiB, bulk_step) with
 * reading ahead, then yields them: the lines its checks fetched came in
 * while they ran, and the caller's reading of the values, the most of the
 * pass's time, fetched nothing. Fetching each item's values this far ahead
 * (past the next run) when the caller takes them keeps the lines coming
 * while values are read (a pass over 256 MiB of procinfo 68% -> 88-95% of
 * memcpy's speed, D19). */
#define PCQ_AHEAD_READ_ ((size_t)PCQ_AHEAD * 4u)

/* The values of a single pass's item, n at pos in an input of len bytes
 * (inside it: the walk found them so, and the iterator made with them reads
 * them unchecked all the same; checking them again here cost the pass of
 * small 2.00 -> 2.08 Ir/B), when the input is large: the lines PCQ_AHEAD_READ_ bytes
 * past them, where that is inside the input. Not for fewer than four
 * values: there the checks' reading ahead (a line an instance) is enough,
 * and the test an item cost a pass over 48-byte instances more than it
 * gained. */
PCQ_INLINE_ void pcq_item_ahead_(const uint8_t *buf, size_t pos, uint32_t n, size_t len)
{
    size_t at, end = pos + 16 * (size_t)n;
    if (len >= (size_t)(PCQ_AHEAD_FROM) && n >= 4 && len - end > PCQ_AHEAD_READ_)
        for (at = pos + PCQ_AHEAD_READ_; at < end + PCQ_AHEAD_READ_; at += 64) PCQ_PREFETCH_(buf + at);
}

PCQ_INLINE_ size_t pcq_values_read_u64_fast_(pcq_iter *it, uint64_t *out, size_t cap)
{
    if (it && out && it->fast) {
        const uint8_t *p = it->buf + it->f.pos;
        size_t left = (it->fast_end - it->f.pos) / 16, n = cap < left ? cap : left, i;
        if (!n) return 0;                          /* the call that ends a loop, in a few instructions */
        for (i = 0; i + 4 <= n; i += 4, p += 64) { /* four a turn: a quarter of the loop's own instructions */
            uint64_t v0 = pcq_ld64_(p + 8), v1 = pcq_ld64_(p + 24), v2 = pcq_ld64_(p + 40),
                     v3 = pcq_ld64_(p + 56);
            out[i] = pcq_ld32_(p) == 4 ? (uint32_t)v0 : v0;
            out[i + 1] = pcq_ld32_(p + 16) == 4 ? (uint32_t)v1 : v1;
            out[i + 2] = pcq_ld32_(p + 32) == 4 ? (uint32_t)v2 : v2;
            out[i + 3] = pcq_ld32_(p + 48) == 4 ? (uint32_t)v3 : v3;
        }
        for (; i < n; i++, p += 16) {
            uint64_t v = pcq_ld64_(p + 8);
            out[i] = pcq_ld32_(p) == 4 ? (uint32_t)v : v;
        }
        it->f.pos += 16 * n;
        it->f.ids_at += 4 * n; /* as n steps of pcq_values_next_fast_ (f.index: no fast step keeps it) */
        return n;
    } else if (it) { /* on a copy, as in pcq_values_next_fast_ */
        pcq_iter t = *it;
        size_t n = pcq_values_read_u64(&t, out, cap);
        *it = t;
        return n;
    }
    return pcq_values_read_u64(it, out, cap); /* 0 */
}

/* PCQ_BULK: the values the walk checked and found canonical (values_fast). */
PCQ_INLINE_ void pcq_item_values_fast_(const pcq_walk *w, const pcq_item *item, pcq_iter *it)
{
    if (item->values_fast) { /* its ids: none (0), or the list of nvalues ids the walk checked with them */
        pcq_values_fast_ids_(w->buf, w->len, item->values, item->nvalues, item->values_ids,
                             item->values_ids != 0, it);
        pcq_item_ahead_(w->buf, item->values, item->nvalues, w->len);
    } else { /* only the fields it reads, so that *item is not taken by a call (see below) */
        pcq_item c;
        pcq_iter t;
        c.offset = item->offset;
        c.values = item->values;
        c.values_ids = item->values_ids;
        c.nvalues = item->nvalues;
        c.values_fast = 0;
        pcq_item_values(w, &c, &t);
        *it = t;
    }
}

/* A value's counter id, as the README's loop takes it for every value: the
 * call cost ~20 instructions a value where the walk costs ~6 (registers
 * saved around it); inline, ~5; ~3 once the block is the caller's own
 * (pcq_blocks_next_fast_): no reload of its fields per value. */
PCQ_INLINE_ uint32_t pcq_block_counter_id_fast_(const pcq_block *b, uint32_t i)
{
    return b ? pcq_block_counter_id_(b, i) : 0;
}

/* Private: an item's common fields, the one list of them (pcq_codec.c's
 * item_begin and item_clear, and the inline steps below): what it is and
 * where, no value list (PCQ_BULK's steps set theirs after). */
PCQ_INLINE_ void pcq_item_begin_(pcq_item *it, int type, unsigned depth, uint32_t index, size_t at,
                                 size_t size, size_t extent)
{
    it->type = type;
    it->depth = depth;
    it->index = index;
    it->offset = at;
    it->size = size;
    it->extent = extent;
    it->single = 0;
    it->counter_id = 0;
    it->has_counter_id = 0;
    it->partial = 0;
    it->values = it->values_ids = 0;
    it->nvalues = 0;
    it->values_fast = 0;
}

/* PCQ_BULK: the item of a canonical instance of `size` bytes at `at`, the
 * next of the run (bulk_step in pcq_codec.c checked it), field by field;
 * the run moves past it (its frame, when pcq_walk_next is called next). The
 * run's fields are read into locals and written before the item: the
 * item's fields could alias them (size_t and uint32_t both), so each store
 * reloaded what came after. */
PCQ_INLINE_ void pcq_walk_item_at_(pcq_walk *w, const uint8_t *b, pcq_item *it, size_t at, size_t size)
{
    pcq_data_instance *d = &it->u.data_instance;
    size_t ids = w->run_ids;
    uint32_t nv = w->run_nv, index = w->run_base - w->run;
    unsigned depth = w->run_depth;
    w->run_pos = at + size + w->run_vb;
    w->run--;
    pcq_item_begin_(it, PCQ_S_DATA_INSTANCE, depth, index, at, size, size);
    it->values = at + size;
    it->values_ids = ids;
    it->nvalues = nv;
    it->values_fast = 1;
    d->value.data_size = d->value.size = 0; /* unused in a walk's item; field by field, not a memset */
    d->value.data.ptr = NULL;
    d->value.data.len = 0;
    d->value.u64 = 0;
    d->value.is_int = 0;
    d->value.counter_id = 0;
    d->value.offset = 0;
    d->size = (uint32_t)size;
    d->instance_id = pcq_ld32_(b + at + 4); /* InstanceId */
    d->name.ptr = b + at + 8;               /* InstanceName */
    d->name.len = pcq_name_len_(b, at + 8, at + size);
    d->offset = at;
    d->num_values = nv;
    d->ids_at = (uint32_t)ids;
    d->values = d->values_end = at + size;
}

/* PCQ_BULK: the next instance of a run the walk checked canonical as a
 * whole (a canonical block's instances, up to 4 KiB: its run of blocks,
 * pcq_walk_block_body_; else bulk_step's, as many as fit 4 KiB: a few
 * instructions a word), the
 * item bulk_step would make of it, without a call: for a single pass over
 * blocks of small instances, where the call and its checks cost ~185
 * instructions a 48-byte instance. Its Size is read again, so it is held
 * inside the run: bytes changed since are read as they are, never outside
 * what was checked (0: the walk's checks take it). */
PCQ_INLINE_ int pcq_walk_run_item_(pcq_walk *w, pcq_item *it)
{
    size_t at = w->run_pos, lim = w->run_lim, size; /* the run stays inside itself: pos <= its end */
    if (at > lim) return 0;                         /* (changed bytes may have ended an instance there) */
    size = pcq_ld32_(w->buf + at);                  /* _PERF_INSTANCE_HEADER.Size */
    if (size - 16 > lim - at) return 0;             /* at least 16 (less wraps), its values inside the run */
    pcq_walk_item_at_(w, w->buf, it, at, size);
    return 1;
}

/* PCQ_BULK: the _PERF_MULTI_COUNTERS of a canonical type 2 block, whose
 * header was the item before (its run of blocks checked it whole): the
 * item bulk_multi_counters made through a call and the block's frame,
 * which cost a reply of such blocks ~150 instructions a block (the "multi"
 * shape). Its dwSize and dwCounters are read again: as the header's step
 * read them (pcq_walk_block_body_), the item and its values (which follow its ids in the block, Figure
 * 7, checked) are the checked ones; changed since (a buffer shared with a
 * writer), 0, and pcq_walk_next gives the block's frame, whose steps read
 * them as they are now. */
PCQ_INLINE_ int pcq_walk_pend_item_(pcq_walk *w, pcq_item *it)
{
    size_t at = w->pend_at, size = w->pend_size;
    uint32_t n = w->pend_count;
    if (pcq_ld64_(w->buf + at) != ((uint64_t)n << 32 | size)) return 0; /* inside the block (as checked) */
    w->pend_at = 0;
    /* its size: the fixed part (§2.2.4.10, §2.2.4.11); its extent: dwSize */
    pcq_item_begin_(it, w->pend_type, w->pend_depth, 0, at, 8, size);
    if (w->pend_type == PCQ_S_MULTI_COUNTERS) {
        it->u.multi.size = (uint32_t)size;
        it->u.multi.count = n;
        it->u.multi.ids.ptr = w->buf + at + 8;
        it->u.multi.ids.len = 4 * (size_t)n;
        if (w->pend_btype == 2) { /* its values follow its ids (Figure 7) */
            it->values = at + size;
            it->values_ids = at + 8;
            it->nvalues = n;
            it->values_fast = 1;
        } else { /* type 6: its _PERF_MULTI_INSTANCES next (Figure 9) */
            w->pend_at = at + size;
            w->pend_size = (uint32_t)(w->pend_end - (at + size));
            w->pend_count = w->pend_count2;
            w->pend_type = PCQ_S_MULTI_INSTANCES;
        }
    } else { /* its instances next, a run the block's check took */
        it->u.instances.size = (uint32_t)size;
        it->u.instances.count = n;
        w->run = w->pend_run;
        w->run_on = 1;
    }
    return 1;
}

/* PCQ_BULK: what follows the header of a run's type 2, 4 or 6 block (the
 * body [body, end), checked with the run), left for the inline steps: its
 * _PERF_MULTI_COUNTERS (types 2 and 6) and _PERF_MULTI_INSTANCES (4 and 6)
 * as the next items (pcq_walk_pend_item_), read again now and held inside
 * the block, then its instances as a run whose frame is made only if the
 * walk needs it (brun_stop in pcq_codec.c). 0, nothing changed, when they
 * are not so (the bytes changed since the run was checked). Offsets as in
 * pcq_block_at_ (§2.2.4.10, §2.2.4.11). */
PCQ_INLINE_ int pcq_walk_block_body_(pcq_walk *w, const uint8_t *b, size_t body, size_t end, uint32_t type,
                                     unsigned depth)
{
    uint64_t mcs = 0, nc = 1, n, vb;
    size_t mi;
    if (type != 4) { /* dwSize: 8 and the ids, padded to 8; type 2: the values fill the rest (Figure 7) */
        if (end - body < 8) return 0;
        mcs = pcq_ld32_(b + body);
        nc = pcq_ld32_(b + body + 4);
        if (mcs != ((15 + 4 * nc) & ~(uint64_t)7) || mcs > end - body) return 0;
        if (type == 2) {
            if (mcs + 16 * nc != end - body) return 0;
            w->pend_count = (uint32_t)nc;
            w->pend_type = PCQ_S_MULTI_COUNTERS;
            w->brun_mi = 0;
        }
    }
    mi = body + (size_t)mcs;
    if (type != 2) { /* dwTotalSize: the rest of the block; n instances of 8 + 16 nc bytes or more */
        if (end - mi < 8 || pcq_ld32_(b + mi) != end - mi) return 0;
        n = pcq_ld32_(b + mi + 4);
        vb = 16 * nc;
        if (n && end - mi - 8 < 16 + vb) return 0;
        w->run = 0; /* the run begins when its _PERF_MULTI_INSTANCES is taken */
        w->pend_run = (uint32_t)n;
        w->run_pos = mi + 8;
        w->run_lim = n ? end - 16 - (size_t)vb : 0;
        w->run_base = (uint32_t)n;
        w->run_vb = (size_t)vb;
        w->run_nv = (uint32_t)nc;
        w->run_ids = type == 6 ? body + 8 : 0;
        w->run_depth = (uint8_t)(depth + 1);
        w->brun_mi = mi;
        w->brun_count = (uint32_t)n;
        w->pend_count = type == 6 ? (uint32_t)nc : (uint32_t)n;
        w->pend_count2 = (uint32_t)n;
        w->pend_type = type == 6 ? PCQ_S_MULTI_COUNTERS : PCQ_S_MULTI_INSTANCES;
    }
    w->pend_at = type == 4 ? mi : body;
    w->pend_end = end;
    w->pend_size = type == 4 ? (uint32_t)(end - mi) : (uint32_t)mcs;
    w->pend_depth = (uint8_t)depth;
    w->pend_btype = (uint8_t)type;
    return 1;
}

/* PCQ_BULK: the next block of a run the walk checked canonical (a list of
 * blocks' next ones, up to 64 in 4 KiB: brun_start in pcq_codec.c), the
 * header item the field-by-field step makes of it (block_header), without
 * a call or a frame: a single pass over blocks of a few instances each (the
 * "mix" shape) spent ~240 instructions a block on the calls, frames and
 * checks of one block at a time, ~175 so. Its dwType and dwSize are read
 * again, so it is held inside the run (0: the walk's checks take it). */
PCQ_INLINE_ int pcq_walk_block_item_(pcq_walk *w, pcq_item *it)
{
    const uint8_t *b = w->buf;
    size_t at = w->brun_pos, lim = w->brun_lim, size;
    uint32_t type, index = w->brun_base - w->brun;
    unsigned depth = w->brun_depth;
    pcq_block *o = &it->u.block;
    if (lim - at < 16) return 0; /* at <= lim: each block taken ends inside the run */
    type = pcq_ld32_(b + at + 4);
    size = pcq_ld32_(b + at + 8);
    if (size - 16 > lim - at - 16) return 0; /* 16 or more (less wraps), inside the run */
    if (type == 1 ? size < 32
                  : type != 0 && ((type != 2 && type != 4 && type != 6) ||
                                  !pcq_walk_block_body_(w, b, at + 16, at + size, type, depth + 1)))
        return 0;
    if (type < 2) w->brun_mi = 0;
    w->run_on = 0; /* the last block's run: done (its frame never made) */
    w->brun_pos = at + size;
    w->brun--;
    pcq_item_begin_(it, PCQ_S_COUNTER_HEADER, depth, index, at, 16, size);
    o->offset = at;
    o->status = pcq_ld32_(b + at);
    o->type = type;
    o->size = (uint32_t)size;
    o->reserved = 0;
    o->multi_size = o->num_counters = 0;
    o->counter_ids.ptr = NULL;
    o->counter_ids.len = 0;
    o->instances_size = o->num_instances = 0;
    o->multi_at = o->instances_at = 0;
    o->body = o->body_end = at + 16;
    if (type == 1) { /* Figure 6: its one value, canonical */
        pcq_value_at_(b, at + 16, &o->value);
        it->values = at + 16;
        it->nvalues = 1;
        it->values_fast = 1;
    } else {
        pcq_value_none_(&o->value);
    }
    return 1;
}

/* The call fills a copy, so that the caller's item is never taken by a
 * call (nor by pcq_item_values' above): where the caller does not take it
 * either, the compiler keeps in it only the fields the caller reads, and
 * drops the inline step's stores of the others (scan of small 2.36 -> 1.48
 * Ir/B, ~82 -> ~40 instructions a 48-byte instance; mix 2.99 -> 2.51; gcc
 * 12). A caller that takes &it pays the copy (216 bytes) a call, not an
 * inline step. */
PCQ_INLINE_ int pcq_walk_next_fast_(pcq_walk *w, pcq_item *it)
{
    pcq_item t;
    int rc;
    if (w->run && pcq_walk_run_item_(w, it)) return 1;
    if (w->brun && !w->run && !w->pend_at && pcq_walk_block_item_(w, it)) return 1;
    rc = w->pend_at && pcq_walk_pend_item_(w, &t) ? 1 : pcq_walk_next(w, &t);
    *it = t;
    return rc;
}

#define pcq_walk_next(w, it)                 pcq_walk_next_fast_((w), (it))
#define pcq_block_counter_id(b, i)           pcq_block_counter_id_fast_((b), (i))
#define pcq_values_next(it, out)             pcq_values_next_fast_((it), (out))
#define pcq_blocks_next(it, out)             pcq_blocks_next_fast_((it), (out))
#define pcq_item_values(w, item, it)         pcq_item_values_fast_((w), (item), (it))
#define pcq_values_read_u64(it, out, cap)    pcq_values_read_u64_fast_((it), (out), (cap))
#define pcq_instance_values(d, inst, it)     pcq_instance_values_fast_((d), (inst), (it))
#define pcq_instances_of_block_next(it, out) pcq_instances_of_block_next_fast_((it), (out))
#define pcq_block_values(d, b, it)           pcq_block_values_fast_((d), (b), (it))
#define pcq_block_instances(d, b, it)        pcq_block_instances_fast_((d), (b), (it))

/* ------------------------------------------------------------------------ */
/* One entry point for every kind (validates; for tools and fuzzers).        */
/* ------------------------------------------------------------------------ */
PCQ_API int pcq_validate(pcq_kind kind, const void *buf, size_t len, const pcq_opts *opts, pcq_error *err);

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
PCQ_API size_t pcq_utf16_to_utf8(const uint8_t *src, size_t nbytes, char *dst, size_t cap, size_t *replaced);

/* Four UTF-16LE units are all below U+0080 when these bits of their 8 bytes
 * (pcq_ld64_) are 0. */
#define PCQ_ASCII16_4_ 0xFF80FF80FF80FF80u

/* Four such units as their four bytes, in order, at d. */
PCQ_INLINE_ void pcq_put_ascii4_(char *d, uint64_t w)
{
    uint64_t x = w | w >> 8; /* bytes 0-1: units 0 and 1; bytes 4-5: units 2 and 3 */
    pcq_st32_((uint8_t *)d, (uint32_t)((x & 0xFFFFu) | (x >> 16 & 0xFFFF0000u)));
}

#if PCQ_SSE2_
/* SSE2 (pcq_codec.c's name checks use these too): 16 bytes at p, by SSE2's
 * own unaligned load; the 16-bit lanes of v that are 0 (all ones there); 1
 * when the eight UTF-16LE units of v are below U+0080; their eight bytes at
 * d (one instruction packs them). */
PCQ_INLINE_ __m128i pcq_load16_(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

PCQ_INLINE_ __m128i pcq_zero_units_(__m128i v)
{
    return _mm_cmpeq_epi16(v, _mm_setzero_si128());
}

/* 1 when the eight UTF-16 units of v are all below U+0080: a unit plus
 * 0x7F80, saturated, has its top bit set exactly when it is not (0x7F80 +
 * 0x80 = 0x8000), and the mask's odd bits are the units' top bits (one add
 * and a test, where an and and a compare with zero took a register more). */
PCQ_INLINE_ int pcq_ascii8_(__m128i v)
{
    return !(_mm_movemask_epi8(_mm_adds_epu16(v, _mm_set1_epi16(0x7F80))) & 0xAAAA);
}

PCQ_INLINE_ void pcq_st_ascii8_(char *d, __m128i v)
{
    _mm_storel_epi64((__m128i *)(void *)d, _mm_packus_epi16(v, v));
}

/* Eight UTF-16LE units at s, when all are below U+0080, as their eight bytes
 * at d: 1; else 0, nothing written. */
PCQ_INLINE_ int pcq_put_ascii8_(char *d, const uint8_t *s)
{
    __m128i v = pcq_load16_(s);
    if (!pcq_ascii8_(v)) return 0;
    pcq_st_ascii8_(d, v);
    return 1;
}

/* The same for a text of h units, 8 <= h <= 16, as its first and its last
 * eight (overlapping): one test for both, where two turns of the loop below
 * cost ~29 instructions with their set-up, ~14 so (a name of 9 to 16
 * characters). In units, so that the last eight's load and store share
 * h - 8 (as 2 (h - 8) bytes, gcc 12 masked a copy of the length). */
PCQ_INLINE_ int pcq_put_ascii_ends_(char *d, const uint8_t *s, size_t h)
{
    __m128i a = pcq_load16_(s), b = pcq_load16_(s + 2 * (h - 8));
    if (!pcq_ascii8_(_mm_or_si128(a, b))) return 0;
    pcq_st_ascii8_(d, a);
    pcq_st_ascii8_(d + (h - 8), b);
    return 1;
}

/* The same for 16 <= h <= 32 units (a network adapter's name), its first
 * and its last sixteen: one test for the four loads, where four turns of
 * the loop below took ~40 instructions (a walk of 80-byte instances of
 * 26-character names, converting each: 1.69 -> 1.46 Ir/B, 1.34 inline). */
PCQ_NOINLINE_ int pcq_put_ascii_ends16_(char *d, const uint8_t *s, size_t h)
{
    size_t m = h / 2 - 8; /* the second eight from unit m (0 to 8): with the last sixteen, all (h <= 32) */
    __m128i a = pcq_load16_(s), b = pcq_load16_(s + 2 * m), c = pcq_load16_(s + 2 * (h - 16)),
            e = pcq_load16_(s + 2 * (h - 8));
    if (!pcq_ascii8_(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, e)))) return 0;
    pcq_st_ascii8_(d, a);
    pcq_st_ascii8_(d + m, b);
    pcq_st_ascii8_(d + (h - 16), c);
    pcq_st_ascii8_(d + (h - 8), e);
    return 1;
}

/* The same for 4 <= h <= 7 units (a name such as "_Total" or "0,12"), its
 * first and its last four in one register: ~12 instructions, where the
 * loop of words below took ~40 with its set-up (a walk of 40-byte instances
 * of 5-character names, converting each: 2.66 -> 1.91 Ir/B). */
PCQ_INLINE_ int pcq_put_ascii_ends4_(char *d, const uint8_t *s, size_t h)
{
    __m128i v = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)s),
                                   _mm_loadl_epi64((const __m128i *)(const void *)(s + 2 * (h - 4))));
    if (!pcq_ascii8_(v)) return 0;
    v = _mm_packus_epi16(v, v); /* bytes 0-3: the first four units; 4-7: the last four */
    pcq_st32_((uint8_t *)d, (uint32_t)_mm_cvtsi128_si32(v));
    pcq_st32_((uint8_t *)d + (h - 4), (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(v, 4)));
    return 1;
}
#endif

/* The ASCII units from the start of n bytes of UTF-16LE (n even, at least
 * 8) as bytes at dst, which has room for n / 2: four units a turn (with
 * SSE2, eight, the last eight by the 16 bytes that end the text: a name of
 * 40 characters cost ~125 instructions four a turn, ~60 eight a turn), the
 * last one to four by the word that ends the text (again the units before
 * them). Returns the bytes of src done: n when all were ASCII, else where a
 * word that is not begins (a multiple of 8). */
PCQ_INLINE_ size_t pcq_ascii16_prefix_(const uint8_t *src, size_t n, char *dst)
{
    size_t pos = 0;
    uint64_t w;
#if PCQ_SSE2_
    if (n >= 16) { /* then four a turn from where eight were not all ASCII */
        if (n <= 32 && pcq_put_ascii_ends_(dst, src, n / 2)) return n;
        if (n - 32 <= 32 && pcq_put_ascii_ends16_(dst, src, n / 2)) return n; /* 16 to 32 units */
        while (n - pos > 16 && pcq_put_ascii8_(dst + pos / 2, src + pos)) pos += 16;
        if (n - pos <= 16 && pcq_put_ascii8_(dst + n / 2 - 8, src + n - 16)) return n;
    } else if (pcq_put_ascii_ends4_(dst, src, n / 2)) { /* 4 to 7 units: no word loop */
        return n;
    }
#endif
    for (; n - pos > 8 && !((w = pcq_ld64_(src + pos)) & PCQ_ASCII16_4_); pos += 8)
        pcq_put_ascii4_(dst + pos / 2, w);
    if (n - pos > 8 || ((w = pcq_ld64_(src + n - 8)) & PCQ_ASCII16_4_)) return pos;
    pcq_put_ascii4_(dst + n / 2 - 4, w);
    return n;
}

/* A text of h units, h <= 3 ("0", "12", "0,1": a processor's or a disk's
 * instance), when all are below U+0080, as its h bytes at d: 1; else 0,
 * nothing written. Its first, middle and last unit (the same one, when
 * fewer), each read as the two bytes it is: one test for the three, where
 * the function's call and its loop of a unit a turn cost ~69 instructions
 * a name of three (the README's example on the small shape with names of
 * 1 to 3 characters, 32-byte instances: 4.22 -> 2.44 Ir/B; mix 3.12 ->
 * 2.32; gcc 12). 0 units: nothing to test. */
PCQ_INLINE_ int pcq_put_ascii_short_(char *d, const uint8_t *s, size_t h)
{
    unsigned a, m, z;
    if (h == 0) return 1;
    a = pcq_ld16_(s);
    m = pcq_ld16_(s + (h & 2)); /* unit h / 2: 0, 1, 1 */
    z = pcq_ld16_(s + 2 * h - 2);
    if ((a | m | z) >= 0x80) return 0;
    d[0] = (char)a;
    d[h / 2] = (char)m;
    d[h - 1] = (char)z;
    return 1;
}

/* pcq_utf16_to_utf8 inline for the common name, as the README's loop takes
 * every instance's: all ASCII, with room for it and the NUL. Anything else
 * goes through the function. With SSE2 a name of 8 to 16 units is tested
 * by one compare (h - 8 <= 8) and converted by its two ends, ahead of
 * pcq_ascii16_prefix_'s tests (~5 instructions a name fewer); one of 0 to
 * 3, by its units (pcq_put_ascii_short_). */
PCQ_INLINE_ size_t pcq_utf16_to_utf8_fast_(const uint8_t *src, size_t nbytes, char *dst, size_t cap,
                                           size_t *replaced)
{
    size_t h = nbytes / 2; /* the units; 2 h bytes, addressed as such (no mask of the odd byte) */
#if PCQ_SSE2_
    if (src && dst && h < cap &&
        (h - 8 <= 8 ? pcq_put_ascii_ends_(dst, src, h)
         : h >= 4   ? pcq_ascii16_prefix_(src, 2 * h, dst) == 2 * h
                    : pcq_put_ascii_short_(dst, src, h))) {
#else
    if (src && dst && h < cap &&
        (h >= 4 ? pcq_ascii16_prefix_(src, 2 * h, dst) == 2 * h : pcq_put_ascii_short_(dst, src, h))) {
#endif
        dst[h] = '\0';
        if (replaced) *replaced = 0;
        return h;
    }
    return pcq_utf16_to_utf8(src, nbytes, dst, cap, replaced);
}

#define pcq_utf16_to_utf8(src, nbytes, dst, cap, replaced) \
    pcq_utf16_to_utf8_fast_((src), (nbytes), (dst), (cap), (replaced))

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lowercase, 36 chars + NUL. */
#define PCQ_GUID_TEXT_SIZE 37
/* Writes g in that form into out. */
PCQ_API void pcq_guid_to_text(const pcq_guid *g, char out[PCQ_GUID_TEXT_SIZE]);
/* Accepts that form, optionally in braces, either case. PCQ_OK or PCQ_ERR_INVALID_ARG. */
PCQ_API int pcq_guid_from_text(const char *text, size_t len, pcq_guid *out);

/* Names of the spec's constants; NULL when the value is not a known one. */
PCQ_API const char *pcq_detail_level_name(uint32_t level);  /* "PERF_DETAIL_NOVICE" */
PCQ_API const char *pcq_instance_type_name(uint32_t type);  /* "PERF_COUNTERSET_MULTI_INSTANCES" */
PCQ_API const char *pcq_aggregate_name(uint32_t func);      /* "PERF_AGGREGATE_TOTAL" */
PCQ_API const char *pcq_block_type_name(uint32_t type);     /* "PERF_SINGLE_COUNTER" */
PCQ_API const char *pcq_request_code_name(uint32_t code);   /* "COUNTERSET_INFO" */
PCQ_API const char *pcq_win32_status_name(uint32_t status); /* "ERROR_NO_DATA" */
PCQ_API const char *pcq_opnum_name(uint32_t opnum);         /* "PerflibV2QueryCounterData" */
/* Attrib bit i (0..4): "PERF_ATTRIB_BY_REFERENCE", ... */
PCQ_API const char *pcq_attrib_bit_name(unsigned bit);

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
    size_t cap, len; /* len: bytes produced so far (may exceed cap) */
    int err;
    int state;                                       /* private */
    size_t data_at, block_at, multi_at, inst_at;     /* private */
    uint32_t nblocks, ninstances, rest, want_values; /* private */
    uint32_t block_type;                             /* private */
    /* private: value records that may be stored now, with no other check; the
     * open unit still wants rest + fast values, so a record on the fast path
     * counts itself by fast alone */
    uint32_t fast;
    /* private: once fast and rest are 0, an instance may be stored on the
     * fast path if it ends at or below inst_lim (cap less the room of its
     * values, and within PCQ_MAX_INSTANCES; 0: none may) */
    size_t inst_lim;
} pcq_writer;

/* Starts a writer on dst (cap bytes; dst NULL: a sizing pass). */
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

/* Each put/begin/end call returns PCQ_OK or the writer's (first) error. */
/* Registration info: the counterset, then each counter (opnum 1, codes 1/2). */
PCQ_API int pcq_put_counterset_reg(pcq_writer *w, const pcq_counterset_reg *set);
PCQ_API int pcq_put_counter_reg(pcq_writer *w, const pcq_counter_reg *c);
/* Text is UTF-16LE without a NUL; the writer adds the NUL. */
PCQ_API int pcq_put_string(pcq_writer *w, const uint8_t *utf16, size_t nbytes);
/* One GUID (opnum 1 code 8; opnum 0 is a run of them). */
PCQ_API int pcq_put_guid(pcq_writer *w, const pcq_guid *g);
/* One opnum 2 instance; name16 as for pcq_put_string. */
PCQ_API int pcq_put_instance(pcq_writer *w, uint32_t instance_id, const uint8_t *name16, size_t nbytes);
/* One _PERF_COUNTER_IDENTIFIER: uses id->name (as name16); Size is computed. */
PCQ_API int pcq_put_identifier(pcq_writer *w, const pcq_identifier *id);

/* A string block: n entries; an entry with present == 0 gets 0xFFFFFFFF.
 * convention: PCQ_STROFF_WIN32 (default for NONE) or PCQ_STROFF_SPEC. */
PCQ_API int pcq_put_strings(pcq_writer *w, const pcq_string_entry *entries, uint32_t n,
                            pcq_str_convention convention);

/* data: begin, blocks, end. Header sizes and counts are back-patched. */
/* The header; uses hdr's time fields (sizes and counts are back-patched). */
PCQ_API int pcq_begin_data(pcq_writer *w, const pcq_data *hdr);
/* A PERF_ERROR_RETURN block with dwStatus = status. */
PCQ_API int pcq_put_error_block(pcq_writer *w, uint32_t status);
/* A block of type 1, 2, 4 or 6; counter_ids (num_counters) for types 2 and 6
 * only. Then its instances (4, 6) and values, then pcq_end_block. */
PCQ_API int pcq_begin_block(pcq_writer *w, uint32_t type, uint32_t status, const uint32_t *counter_ids,
                            uint32_t num_counters);
/* An instance of the open type 4 or 6 block; its values follow. A macro over
 * an inline step for the common case (below), as pcq_put_value_u32 / _u64. */
PCQ_API int pcq_put_data_instance(pcq_writer *w, uint32_t instance_id, const uint8_t *name16, size_t nbytes);
/* A value: data_size raw bytes (any size), or a 4- / 8-byte integer. */
PCQ_API int pcq_put_value(pcq_writer *w, const uint8_t *bytes, uint32_t data_size);
PCQ_API int pcq_put_value_u32(pcq_writer *w, uint32_t v);
PCQ_API int pcq_put_value_u64(pcq_writer *w, uint64_t v);
/* n values at once: values[j] as a 4- or 8-byte value, sizes[j] saying which
 * (4: its low 4 bytes; sizes NULL: all 8). PCQ_ERR_INVALID_ARG for another
 * size, PCQ_ERR_STATE for more than the block or instance still wants. */
PCQ_API int pcq_put_values_u64(pcq_writer *w, const uint64_t *values, const uint8_t *sizes, uint32_t n);
/* A whole instance of a type 4 or 6 block in one call: pcq_put_data_instance,
 * then pcq_put_values_u64. A macro over an inline step for an instance of
 * one value (below). */
PCQ_API int pcq_put_data_instance_u64(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                      size_t nbytes, const uint64_t *values, const uint8_t *sizes,
                                      uint32_t n);
/* ninst whole instances of the open type 4 or 6 block in one call, as
 * pcq_put_data_instance_u64 for each in turn: instance i is inst[i]
 * (instance_id and name, as name16; size and offset are not read), its n
 * values values[i * n] to values[i * n + n - 1], sizes as for
 * pcq_put_values_u64 (one array for every instance: the block's counters).
 * The fastest way to write many instances (no call each). */
PCQ_API int pcq_put_data_instances_u64(pcq_writer *w, const pcq_instance *inst, uint32_t ninst,
                                       const uint64_t *values, const uint8_t *sizes, uint32_t n);
/* Closes the open block (checks its value count), then the buffer. */
PCQ_API int pcq_end_block(pcq_writer *w);
PCQ_API int pcq_end_data(pcq_writer *w);

/* Decode src as `kind` (lenient) and write its canonical encoding. For a
 * canonical buffer the output equals the input byte for byte. Work is linear
 * in len and the output; string-block entries that share text are written
 * out one by one, so that output can be far larger than src (docs D11). Decoder errors
 * come back through err unchanged (*out_len = 0); output-side errors set
 * err->code with offset 0. dst == NULL sizes; a too-small dst gives
 * PCQ_ERR_BUFFER_TOO_SMALL with *out_len = bytes needed. */
PCQ_API int pcq_reencode(pcq_kind kind, const void *src, size_t len, void *dst, size_t cap, size_t *out_len,
                         pcq_error *err);
/* The writer's per-value fast path: while the open block or instance wants
 * values that fit dst (w->fast, kept by the writer), a 4- or 8-byte value
 * is its 16-byte record, stored here, the unit's last one too (the writer
 * said beforehand what may follow it); everything else goes through the
 * function. */
#ifdef PCQ_HOST_LE_
PCQ_INLINE_ void pcq_st64_(uint8_t *p, uint64_t v)
{
    __builtin_memcpy(p, &v, 8); /* one store: clang 14 stores a computed v's bytes one at a time */
}
#else
PCQ_INLINE_ void pcq_st64_(uint8_t *p, uint64_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    p[4] = (uint8_t)(v >> 32);
    p[5] = (uint8_t)(v >> 40);
    p[6] = (uint8_t)(v >> 48);
    p[7] = (uint8_t)(v >> 56);
}
#endif

/* The 16-byte record of a value of data_size bytes (4 or 8; v holds no
 * more) at p: dwDataSize, dwSize 16, the value and its zero padding. */
PCQ_INLINE_ void pcq_st_record_(uint8_t *p, uint64_t v, uint32_t data_size)
{
    pcq_st64_(p, data_size | (uint64_t)16 << 32);
    pcq_st64_(p + 8, v);
}

PCQ_INLINE_ int pcq_put_value_fast_(pcq_writer *w, uint64_t v, uint32_t data_size)
{
    pcq_st_record_(w->dst + w->len, v, data_size);
    w->len += 16;
    w->fast--; /* the unit's count too: it wants rest + fast values */
    return 0;
}

PCQ_INLINE_ int pcq_put_value_u64_fast_(pcq_writer *w, uint64_t v)
{
    if (w && w->fast) return pcq_put_value_fast_(w, v, 8);
    return pcq_put_value_u64(w, v);
}

PCQ_INLINE_ int pcq_put_value_u32_fast_(pcq_writer *w, uint32_t v)
{
    if (w && w->fast) return pcq_put_value_fast_(w, v, 4);
    return pcq_put_value_u32(w, v);
}

#define pcq_put_value_u64(w, v) pcq_put_value_u64_fast_((w), (v))
#define pcq_put_value_u32(w, v) pcq_put_value_u32_fast_((w), (v))

#if PCQ_SSE2_
/* The inline writer's copies by the name's length (pcq_put_instance_at_'s
 * form), each its own so that its caller tests the length once: 16 to 32
 * bytes as pcq_copy_name_ends_ copies them; 8 to 15 ("_Total") by their
 * first and last 8 in one register (~9 instructions, ~16 by words); 34 to
 * 64 (17 to 32 units, a network adapter's name) by their first and last
 * 32, four loads (through the function, ~60 instructions more). Non-zero
 * when a U+0000 is among them. (pcq_copy_name_ends_ below is the one
 * for any length of 8 or more, the batch writer's.) */
PCQ_INLINE_ uint64_t pcq_copy_name16_(uint8_t *dst, const uint8_t *src, size_t n)
{
    __m128i a = pcq_load16_(src), b = pcq_load16_(src + n - 16);
    _mm_storeu_si128((__m128i *)(void *)dst, a);
    _mm_storeu_si128((__m128i *)(void *)(dst + n - 16), b);
    return (uint64_t)_mm_movemask_epi8(_mm_or_si128(pcq_zero_units_(a), pcq_zero_units_(b)));
}

PCQ_INLINE_ uint64_t pcq_copy_name8_(uint8_t *dst, const uint8_t *src, size_t n)
{
    __m128i a = _mm_loadl_epi64((const __m128i *)(const void *)src),
            b = _mm_loadl_epi64((const __m128i *)(const void *)(src + n - 8));
    _mm_storel_epi64((__m128i *)(void *)dst, a);
    _mm_storel_epi64((__m128i *)(void *)(dst + n - 8), b);
    return (uint64_t)_mm_movemask_epi8(pcq_zero_units_(_mm_unpacklo_epi64(a, b)));
}

PCQ_NOINLINE_ uint64_t pcq_copy_name_wide_(uint8_t *dst, const uint8_t *src, size_t n)
{
    /* the second 16 bytes from m (0 to 16, even: the units' lanes stay whole): with the last 32, all */
    size_t m = (n / 2 - 16) & ~(size_t)1;
    __m128i a = pcq_load16_(src), b = pcq_load16_(src + m), c = pcq_load16_(src + n - 32),
            d = pcq_load16_(src + n - 16);
    _mm_storeu_si128((__m128i *)(void *)dst, a);
    _mm_storeu_si128((__m128i *)(void *)(dst + m), b);
    _mm_storeu_si128((__m128i *)(void *)(dst + n - 32), c);
    _mm_storeu_si128((__m128i *)(void *)(dst + n - 16), d);
    a = _mm_or_si128(_mm_or_si128(pcq_zero_units_(a), pcq_zero_units_(b)),
                     _mm_or_si128(pcq_zero_units_(c), pcq_zero_units_(d)));
    return (uint64_t)_mm_movemask_epi8(a);
}
#endif

/* A name of n bytes (even, 8 or more) copied to dst by its ends: [0, 16)
 * and [n - 16, n), overlapping (n < 16: its first and last 8 bytes), which
 * is all of a name of up to 32 bytes; with SSE2 16 bytes a load. Non-zero
 * when a U+0000 is among them (n even: the units line up). The stores come
 * first: the writer's callers store only into room past w->len, which is
 * scratch until they append (pcq_codec.c's wr_copy_name8 copies what is
 * between for longer names). */
PCQ_INLINE_ uint64_t pcq_copy_name_ends_(uint8_t *dst, const uint8_t *src, size_t n)
{
    uint64_t x, y, u, v;
#if PCQ_SSE2_
    if (PCQ_LIKELY_(n >= 16)) return pcq_copy_name16_(dst, src, n);
#endif
    x = pcq_ld64_(src);
    y = pcq_ld64_(src + n - 8);
    u = x; /* below 16 bytes, the first and last 8 are all (taken twice) */
    v = y;
    if (n >= 16) {
        u = pcq_ld64_(src + 8);
        v = pcq_ld64_(src + n - 16);
        pcq_st64_(dst + 8, u);
        pcq_st64_(dst + n - 16, v);
    }
    pcq_st64_(dst, x);
    pcq_st64_(dst + n - 8, y);
    /* a zero unit's lane borrows: its top bit set, and not the word's own */
    x = ((x - 0x0001000100010001u) & ~x) | ((y - 0x0001000100010001u) & ~y) |
        ((u - 0x0001000100010001u) & ~u) | ((v - 0x0001000100010001u) & ~v);
    return x & 0x8000800080008000u;
}

/* The writer's per-instance fast path, as the value's: an instance whose
 * name is 8 to 32 bytes (4 to 16 units: most names; no U+0000), and with
 * SSE2 up to 64, when the writer wants one (the open unit complete: fast
 * and rest 0) and it ends at or below w->inst_lim, so that dst has room for
 * it and all its values, which w->fast then vouches for, and the block
 * stays within PCQ_MAX_INSTANCES (pcq_codec.c's wr_inst_lim; 0: the writer
 * wants none, or none fits; len + size cannot wrap). Its Size, InstanceId,
 * name and zero NUL and padding (Figures 8, 9, §2.2.4.6) are stored, and
 * with value not NULL (a block of one value, want_values 1) its record of
 * vsize bytes (4 or 8) too: 1. Else 0, nothing appended, for the function,
 * which says what is wrong (a name with a U+0000) or stores it otherwise.
 * The call and its saved registers cost ~20 of ~110 instructions a 48-byte
 * instance. `form` (a constant): with SSE2 the copy of the name's length, 0
 * for 16 to 32 bytes, 1 for 8 to 15, 2 for 34 to 64 (pcq_copy_name16_ and
 * after); else pcq_copy_name_ends_'s 8 to 32. */
PCQ_INLINE_ int pcq_put_instance_at_(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                     size_t nbytes, const uint64_t *value, uint32_t vsize, int form)
{
    size_t size = (8 + nbytes + 2 + 7) & ~(size_t)7, len = w->len;
    if (len + size <= w->inst_lim) {
        uint8_t *p = w->dst + len;  /* inst_lim is not 0: dst is not NULL (a sizing pass's is) */
        pcq_st64_(p + size - 8, 0); /* the NUL and the padding: the name's last 8 bytes */
#if PCQ_SSE2_
        if (PCQ_LIKELY_(!(form == 0   ? pcq_copy_name16_(p + 8, name16, nbytes)
                          : form == 1 ? pcq_copy_name8_(p + 8, name16, nbytes)
                                      : pcq_copy_name_wide_(p + 8, name16, nbytes)))) {
#else
        (void)form;
        if (PCQ_LIKELY_(!pcq_copy_name_ends_(p + 8, name16, nbytes))) {
#endif
            pcq_st64_(p, size | (uint64_t)instance_id << 32); /* Size, InstanceId */
            w->ninstances++;
            if (value) { /* its record */
                pcq_st_record_(p + size, vsize == 4 ? (uint32_t)*value : *value, vsize);
                w->len = len + size + 16; /* the unit is complete: fast stays 0 */
            } else {
                w->len = len + size;
                w->fast = w->want_values; /* all of them fit: rest stays 0 */
            }
            return 1;
        }
    }
    return 0;
}

/* nbytes - 8 rotated right by one (an odd one's low bit goes to the top):
 * for even lengths, 0 to 3 for 8 to 14 bytes, 4 to 12 for 16 to 32, 13 to
 * 28 for 34 to 64; one compare a range, and the likely one first. */
PCQ_INLINE_ int pcq_put_instance_inline_(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                         size_t nbytes, const uint64_t *value, uint32_t vsize)
{
    size_t h = nbytes - 8, r = h >> 1 | h << (8 * sizeof h - 1);
    if (w && !(w->fast | w->rest) && name16) {
#if PCQ_SSE2_
        if (PCQ_LIKELY_(r - 4 <= 8))
            return pcq_put_instance_at_(w, instance_id, name16, nbytes, value, vsize, 0);
        if (r <= 3) return pcq_put_instance_at_(w, instance_id, name16, nbytes, value, vsize, 1);
        if (r <= 28) return pcq_put_instance_at_(w, instance_id, name16, nbytes, value, vsize, 2);
#else
        if (r <= 12) return pcq_put_instance_at_(w, instance_id, name16, nbytes, value, vsize, 0);
#endif
    }
    return 0;
}

PCQ_INLINE_ int pcq_put_data_instance_fast_(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                            size_t nbytes)
{
    if (pcq_put_instance_inline_(w, instance_id, name16, nbytes, NULL, 0)) return 0;
    return pcq_put_data_instance(w, instance_id, name16, nbytes);
}

/* A whole instance a call: one of one value (a type 4 block's, where the
 * call costs the most a byte) inline, its size checked first (4 or 8: 4 or
 * 8 less 4 has no bit but 4's), so that a bad one appends nothing, as in the
 * function; more values through the function, whose call they share. */
PCQ_INLINE_ int pcq_put_data_instance_u64_fast_(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                                size_t nbytes, const uint64_t *values, const uint8_t *sizes,
                                                uint32_t n)
{
    uint32_t size = 0; /* set in the test below, before it is read */
    if (n == 1 && values && (((size = sizes ? sizes[0] : 8u) - 4u) & ~4u) == 0 && w && w->want_values == 1 &&
        pcq_put_instance_inline_(w, instance_id, name16, nbytes, values, size))
        return 0;
    return pcq_put_data_instance_u64(w, instance_id, name16, nbytes, values, sizes, n);
}

#define pcq_put_data_instance(w, id, name16, nbytes) \
    pcq_put_data_instance_fast_((w), (id), (name16), (nbytes))
#define pcq_put_data_instance_u64(w, id, name16, nbytes, values, sizes, n) \
    pcq_put_data_instance_u64_fast_((w), (id), (name16), (nbytes), (values), (sizes), (n))

/* pcq_writer.state: nothing open, a _PERF_DATA_HEADER open between blocks,
 * a block open (pcq_codec.c's WR_TOP, WR_DATA, WR_BLOCK). */
#define PCQ_WR_TOP_   0
#define PCQ_WR_DATA_  1
#define PCQ_WR_BLOCK_ 2

/* Where an instance of the open type 4 or 6 block may end so that dst
 * holds the want_values records after it, and the block stays within
 * PCQ_MAX_INSTANCES (0: nowhere); len <= cap. The rule of w->inst_lim, in
 * one copy (pcq_codec.c's wr_inst_lim explains it). */
PCQ_INLINE_ size_t pcq_inst_lim_(const pcq_writer *w)
{
    uint64_t v = (uint64_t)w->want_values * 16u;                         /* below 2^36 */
    uint64_t left = (uint64_t)(PCQ_MAX_INSTANCES - w->ninstances) * 16u; /* below 2^35 */
    size_t lim;
    if (v >= w->cap || w->cap > SIZE_MAX - 64) return 0;
    lim = w->cap - (size_t)v;
    if (left < lim && lim - left > w->len) lim = w->len + (size_t)left; /* binds: len + left < lim */
    return lim;
}

/* n counter ids to p, little-endian: four a turn where the host's order is
 * the wire's, without a call (a block's ids: memcpy's call cost ~25
 * instructions a block). */
PCQ_INLINE_ void pcq_st32_array_(uint8_t *p, const uint32_t *v, size_t n)
{
    size_t i = 0;
#ifdef PCQ_HOST_LE_
    for (; i + 4 <= n; i += 4) __builtin_memcpy(p + 4 * i, v + i, 16);
    if (n & 2) __builtin_memcpy(p + 4 * i, v + i, 8), i += 2;
    if (n & 1) __builtin_memcpy(p + 4 * i, v + i, 4);
#else
    for (; i < n; i++) pcq_st32_(p + 4 * i, v[i]);
#endif
}

/* pcq_begin_block's common case, inline and in one copy (pcq_codec.c's
 * pcq_begin_block tries it first too): a writer between blocks with no
 * error, a type 1, 2, 4 or 6 block, its ids an array within the limits
 * (2^24 ids at most: the size fits 32 bits whatever PCQ_MAX_COUNTERS is),
 * the block's fixed part within dst. Its _PERF_COUNTER_HEADER (dwStatus 0,
 * dwType 4, dwSize 8 patched at the end, Reserved 12 zero: §2.2.4.8), a
 * type 2 or 6 block's _PERF_MULTI_COUNTERS (dwSize, dwCounters, the ids,
 * padded to 8: §2.2.4.11) and a type 4 or 6 block's _PERF_MULTI_INSTANCES
 * (8 bytes, patched: §2.2.4.10) are stored, and the writer's state set as
 * the checked path and its wr_sync set it: 1. Else 0, nothing changed. A
 * _PERF_MULTI_COUNTERS reply has a block every ~500 bytes: the checked
 * path cost ~160 instructions a block, this ~50. */
PCQ_INLINE_ int pcq_begin_block_try_(pcq_writer *w, uint32_t type, uint32_t status, const uint32_t *ids,
                                     uint32_t n)
{
    int has_ids = (type | 4) == 6;  /* 2 or 6 */
    int has_inst = (type | 2) == 6; /* 4 or 6 */
    size_t at = w->len, multi = has_ids ? (8 + 4 * (size_t)n + 7) & ~(size_t)7 : 0;
    size_t need = 16 + multi + (has_inst ? 8 : 0);
    uint8_t *p;
    if (w->err != 0 || w->state != PCQ_WR_DATA_ || w->nblocks >= PCQ_MAX_COUNTERS || !w->dst || at > w->cap ||
        need > w->cap - at)
        return 0;
    if (has_ids ? n > PCQ_MAX_COUNTERS || n > 0xFFFFFFu || (ids == NULL && n != 0)
                : n != 0 || (type != 1 && !has_inst))
        return 0;
    p = w->dst + at;
    pcq_st32_(p, status);
    pcq_st32_(p + 4, type);
    pcq_st64_(p + 8, 0);
    if (has_ids) {
        pcq_st32_(p + 16, (uint32_t)multi);
        pcq_st32_(p + 20, n);
        pcq_st32_array_(p + 24, ids, n);
        if (n & 1) pcq_st32_(p + 24 + 4 * (size_t)n, 0); /* the padding */
    }
    w->nblocks++;
    w->block_at = at;
    w->len = at + need;
    w->block_type = type;
    w->want_values = has_ids ? n : 1;
    w->ninstances = 0;
    w->state = PCQ_WR_BLOCK_;
    w->fast = 0;
    w->inst_lim = 0;
    if (has_inst) { /* an instance first */
        w->multi_at = w->len - 8;
        pcq_st64_(w->dst + w->multi_at, 0);
        w->rest = 0;
        w->inst_lim = pcq_inst_lim_(w);
    } else { /* the values that fit dst (16 bytes a record) */
        size_t room = (w->cap - w->len) / 16;
        w->fast = room < w->want_values ? (uint32_t)room : w->want_values;
        w->rest = w->want_values - w->fast;
    }
    return 1;
}

/* pcq_end_block's common case, the same way: a block with no error, all of
 * it in dst, its size within 32 bits, its last unit complete (fast and rest
 * 0; a type 4 or 6 block with no instance has them 0 too). Its sizes are
 * patched (a type 4 or 6 block's _PERF_MULTI_INSTANCES dwTotalSize and
 * dwInstances, then dwSize) and no instance may follow (inst_lim 0): 1. */
PCQ_INLINE_ int pcq_end_block_try_(pcq_writer *w)
{
    if (w->err != 0 || w->state != PCQ_WR_BLOCK_ || !w->dst || w->len > w->cap ||
        w->len - w->block_at > 0xFFFFFFFFu || (w->fast | w->rest))
        return 0;
    if ((w->block_type | 2) == 6) {
        pcq_st32_(w->dst + w->multi_at, (uint32_t)(w->len - w->multi_at));
        pcq_st32_(w->dst + w->multi_at + 4, w->ninstances);
    }
    pcq_st32_(w->dst + w->block_at + 8, (uint32_t)(w->len - w->block_at));
    w->state = PCQ_WR_DATA_;
    w->inst_lim = 0;
    return 1;
}

PCQ_INLINE_ int pcq_begin_block_fast_(pcq_writer *w, uint32_t type, uint32_t status, const uint32_t *ids,
                                      uint32_t n)
{
    if (w && pcq_begin_block_try_(w, type, status, ids, n)) return 0;
    return pcq_begin_block(w, type, status, ids, n);
}

PCQ_INLINE_ int pcq_end_block_fast_(pcq_writer *w)
{
    if (w && pcq_end_block_try_(w)) return 0;
    return pcq_end_block(w);
}

#define pcq_begin_block(w, type, status, ids, n) pcq_begin_block_fast_((w), (type), (status), (ids), (n))
#define pcq_end_block(w)                         pcq_end_block_fast_((w))

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
#define PCQ_CALC_SIZE_FIELD(t)     ((uint32_t)(t)&0x00000300u) /* 0 DWORD, 0x100 LARGE, 0x200 ZERO, 0x300 VAR */
#define PCQ_CALC_TYPE_FIELD(t)     ((uint32_t)(t)&0x00000C00u) /* 0 NUMBER, 0x400 COUNTER, 0x800 TEXT */
#define PCQ_CALC_SUBTYPE_FIELD(t)  ((uint32_t)(t)&0x000F0000u)
#define PCQ_CALC_TIMEBASE_FIELD(t) ((uint32_t)(t)&0x00300000u) /* 0 TICK, 0x100000 100NS, 0x200000 OBJECT */
#define PCQ_CALC_DISPLAY_FIELD(t)  ((uint32_t)(t)&0xF0000000u) /* 0 none, 1 /sec, 2 %, 3 secs, 4 no-show */
#define PCQ_CALC_DELTA_COUNTER     0x00400000u
#define PCQ_CALC_DELTA_BASE        0x00800000u
#define PCQ_CALC_INVERSE           0x01000000u
#define PCQ_CALC_MULTI             0x02000000u

/* Statuses of one computed value (not errors of a call). */
/* clang-format off */
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
/* clang-format on */

typedef enum pcq_calc_status {
#define PCQ_X_(name, value, text) name = value,
    PCQ_CALC_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    PCQ_CALC_STATUS_END_
} pcq_calc_status;

PCQ_API const char *pcq_calc_status_name(int status); /* "PCQ_CALC_OK"; never NULL */
PCQ_API const char *pcq_calc_status_text(int status); /* human sentence; never NULL */

/* Where a formula's time comes from (pcq_calc_type.timebase). */
typedef enum pcq_calc_timebase {
    PCQ_CALC_TB_NONE = 0, /* no time in the formula */
    PCQ_CALC_TB_TICK,     /* header PerfTimeStamp, PerfFreq */
    PCQ_CALC_TB_100NS,    /* header PerfTime100NSec */
    PCQ_CALC_TB_OBJECT,   /* PerfTimeId / PerfFreqId counters */
    PCQ_CALC_TB_BASE      /* the base counter is the clock (PRECISION_*) */
} pcq_calc_timebase;

/* What a cooked value is in (pcq_calc_type.unit), from the display bits. */
typedef enum pcq_calc_unit {
    PCQ_CALC_UNIT_NONE = 0,
    PCQ_CALC_UNIT_PER_SEC,
    PCQ_CALC_UNIT_PERCENT,
    PCQ_CALC_UNIT_SECONDS,
    PCQ_CALC_UNIT_TEXT
} pcq_calc_unit;

/* One counter type the evaluator knows (from PCQ_COUNTER_TYPE_TABLE). */
typedef struct pcq_calc_type {
    uint32_t type;
    const char *formula; /* e.g. "dN / (dT / F)"; see docs/formulas.md */
    uint8_t size;        /* value bytes the size bits give: 4, 8, 0 (none) */
    uint8_t samples;     /* 1 or 2 */
    uint8_t needs;       /* PCQ_CALC_NEEDS_* */
    uint8_t timebase;    /* pcq_calc_timebase */
    uint8_t unit;        /* pcq_calc_unit */
    uint8_t displayable; /* 0 for bases, NODATA and TEXT */
    uint8_t hex;         /* shown in hexadecimal */
    uint8_t op;          /* private: formula selector */
} pcq_calc_type;

/* The descriptor of a type the evaluator knows (every row of
 * PCQ_COUNTER_TYPE_TABLE but PERF_COUNTER_HISTOGRAM_TYPE): the 34 of
 * §2.2.4.2 and PERF_COUNTER_DELTA, PERF_COUNTER_LARGE_DELTA,
 * PERF_COUNTER_MULTI_BASE, PERF_COUNTER_NODATA. NULL when unknown.
 * pcq_calc_type_at(i) walks them in ascending order (NULL past the end). */
PCQ_API const pcq_calc_type *pcq_calc_type_info(uint32_t type);
PCQ_API const pcq_calc_type *pcq_calc_type_at(size_t i);

/* One raw sample of one counter with its related values. */
#define PCQ_CALC_HAVE_BASE  1u
#define PCQ_CALC_HAVE_TIME  2u
#define PCQ_CALC_HAVE_FREQ  4u
#define PCQ_CALC_HAVE_MULTI 8u
typedef struct pcq_calc_sample {
    uint64_t value;      /* N */
    uint64_t base;       /* B: the BaseCounterId value */
    uint64_t obj_time;   /* To: the PerfTimeId value */
    uint64_t obj_freq;   /* Fo: the PerfFreqId value */
    uint64_t multi;      /* M: the MultiId value */
    uint64_t time;       /* T: _PERF_DATA_HEADER.PerfTimeStamp */
    uint64_t time_100ns; /* T100: PerfTime100NSec */
    uint64_t freq;       /* F: PerfFreq */
    uint8_t value_size;  /* 4 or 8 (dwDataSize); 0: from the type's size bits */
    uint8_t base_size;   /* the same for the base */
    uint8_t have;        /* PCQ_CALC_HAVE_*: which related values are present */
} pcq_calc_sample;

/* Format flags (PDH_FMT_NOSCALE, _NOCAP100, _1000) and the 32-bit rule. */
#define PCQ_CALC_NOSCALE  0x1u /* do not apply DefaultScale */
#define PCQ_CALC_NOCAP100 0x2u /* percentages are not held to 0..100 */
#define PCQ_CALC_X1000    0x4u /* multiply the result by 1000 */
#define PCQ_CALC_NOWRAP32 0x8u /* a 4-byte value that decreased is a reset, never a wrap */

/* Notes on a result (bits of *notes). */
#define PCQ_CALC_NOTE_WRAPPED 0x1u /* a 4-byte counter or base wrapped past 2^32 */
#define PCQ_CALC_NOTE_CAPPED  0x2u /* the percentage was held to 0..100 */
#define PCQ_CALC_NOTE_BASE_ZERO \
    0x4u /* a PERF_SAMPLE_BASE value is 0: §2.2.4.2 says it
                                         MUST be greater than 0 (non-conformant) */

/* Computes the displayed value of `type` from an older and a newer sample
 * (older may be NULL: one-sample types still compute). Order: formula, then
 * the cap at 100 (percent types, unless NOCAP100), then 10^scale (unless
 * NOSCALE), then x1000. 4-byte deltas are taken modulo 2^32 when the modular
 * delta is below 2^31 (a wrap); otherwise, or with NOWRAP32, a decrease is a
 * reset. Returns a pcq_calc_status; *out (may be NULL) is written only on
 * PCQ_CALC_OK and is then finite; *notes (may be NULL) gets PCQ_CALC_NOTE_*. */
PCQ_API int pcq_calc_value(uint32_t type, int32_t scale, const pcq_calc_sample *older,
                           const pcq_calc_sample *newer, unsigned flags, double *out, unsigned *notes);

/* 10^scale for scale in -10..10 (exact powers from a table); 0 otherwise. */
PCQ_API double pcq_calc_scale_factor(int32_t scale);

/* Text for people: hex when the type is a HEX type or Attrib has 0x10;
 * group separators ("1,234") unless Attrib has 0x4; integers for integer-valued
 * types unless Attrib has 0x8 (display as real); the unit (" /sec", " %",
 * " s"). Attrib 0x2 (no display) gives "". Writes at most cap bytes, always
 * NUL-terminated when cap > 0; returns the length the full text needs. */
#define PCQ_CALC_TEXT_SIZE 64 /* always enough */
PCQ_API size_t pcq_calc_format(double value, uint32_t type, uint64_t attrib, char *dst, size_t cap);

/* ---- Cooking two data buffers of one query (§3.1.4.1.6). ---- */

/* One cooked value: a counter of an instance, or an aggregate over instances. */
typedef struct pcq_calc_row {
    uint32_t counter_id, type;
    uint32_t instance_id;
    int has_instance;        /* 0 for single-instance data */
    pcq_bytes instance;      /* UTF-16LE, no NUL: in the newer buffer (type 1: in ids) */
    uint32_t dup_index;      /* n of "name#n" among equal names; 0 for the first */
    int is_aggregate;        /* 1: aggregate row; instance fields unused */
    uint32_t aggregate_func; /* PERF_AGGREGATE_*: 1 total, 2 average, 3 min, 4 max */
    uint32_t instances_used; /* aggregate: instances whose status was OK */
    int status;              /* pcq_calc_status */
    unsigned notes;          /* PCQ_CALC_NOTE_* */
    double value;            /* when status is PCQ_CALC_OK; DefaultScale applied per flags */
    uint32_t info_index;     /* the counter's index in the counterset-info */
    uint64_t attrib;         /* the counter's Attrib */
    uint32_t block_index;    /* the block of the newer buffer (0-based) */
    size_t instance_offset;  /* of its _PERF_INSTANCE_HEADER (0: none) */
    size_t offset;           /* of the value's _PERF_COUNTER_DATA in the newer buffer */
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
 * all: it commutes with sum, average, min and max). A PERF_SAMPLE_BASE row
 * whose value is 0 gets PCQ_CALC_NOTE_BASE_ZERO.
 * Returns PCQ_OK and *count rows; PCQ_ERR_BUFFER_TOO_SMALL with *count = the
 * cap to pass (rows NULL and cap 0 size the call): the rows, plus, when the
 * samples need indexes (instances in another order, identifiers out of
 * order, blocks of one counter (type 1 or 4), related counters in other
 * blocks, counter lists over 64 or out of the counterset's order), the
 * working memory for them, counted in rows and used past the rows returned.
 * For replies whose two samples list the same instances in the same order it
 * is none: *count = one row per value of newer plus the aggregates; for
 * samples alike up to some instance, the indexes cover only the instances
 * from there (a sample with a block of type 1 or 4 is indexed whole). PCQ_ERR_INVALID_ARG
 * (err: offset in the newer buffer) for a counter id missing from info or a
 * type 1/4 block of the newer sample without an identifier (in the older one
 * such a block is passed over); or an iterator error of a buffer that
 * changed. Time and memory: linear in the input, whatever it says (indexes
 * sorted once, no search budget; docs D12). No heap; about 13 KiB of stack. */
PCQ_API int pcq_calc_cook(const pcq_counterset_info *info, const pcq_data *older, const pcq_data *newer,
                          const pcq_identifier *ids, size_t n_ids, unsigned flags, pcq_calc_row *rows,
                          size_t cap, size_t *count, pcq_error *err);

/* One counter's raw values across n instances of one sample, and that
 * sample's clocks: what pcq_calc_cook_column cooks. pcq_block_column_u64
 * reads a column of a reply, pcq_block_columns_u64 all of a block's. A
 * related column left NULL is not present. Zero-initialize it (stride 0).
 * Row i's values are at value[i * stride] (base[i * stride], ...): stride
 * 0 or 1 for columns of their own; for a table of rows, nc values a row (as
 * pcq_block_rows_u64 gives a block, or a reply of single-instance blocks a
 * block a row), counter j's column is value = table + j, stride = nc, and
 * no copy into columns is needed. */
typedef struct pcq_calc_column {
    const uint64_t *value;               /* N: n values */
    const uint64_t *base;                /* B: the base counter's values, or NULL */
    const uint64_t *obj_time, *obj_freq; /* To, Fo: PerfTimeId, PerfFreqId values, or NULL */
    const uint64_t *multi;               /* M: the MultiId values, or NULL */
    uint8_t value_size, base_size;       /* 4 or 8 (dwDataSize) for all; 0: from the type */
    uint64_t time, time_100ns, freq;     /* the data header's PerfTimeStamp, PerfTime100NSec, PerfFreq */
    size_t stride; /* values from one row to the next in every array: 0 (as 1) or more */
} pcq_calc_column;

/* A cooked value in 16 bytes. */
typedef struct pcq_calc_cell {
    double value;   /* when status is PCQ_CALC_OK, else 0 */
    int32_t status; /* pcq_calc_status */
    uint32_t notes; /* PCQ_CALC_NOTE_* */
} pcq_calc_cell;

/* The fast way to cook: n values of one counter in one call. out[i] is what
 * pcq_calc_value(type, scale, &o_i, &n_i, flags) gives, where n_i (o_i) is a
 * pcq_calc_sample of row i of newer (older: NULL for one sample). The type is
 * looked up and its formula chosen once for the column. For replies whose
 * instances come in the same order in both samples (the common case: check
 * InstanceId and name); pcq_calc_cook matches them in any order. PCQ_OK, or
 * PCQ_ERR_INVALID_ARG (a NULL array that n values need). */
PCQ_API int pcq_calc_cook_column(uint32_t type, int32_t scale, unsigned flags, const pcq_calc_column *older,
                                 const pcq_calc_column *newer, size_t n, pcq_calc_cell *out);

#endif /* PCQ_NO_CALC */
/* ==== END evaluator ==== */

#ifdef __cplusplus
}
#endif
#endif /* PCQ_CODEC_H */
