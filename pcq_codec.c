/* SPDX-License-Identifier: MIT */
/*
 * pcq_codec.c - the layout, the walker, the decoders, helpers and the encoder
 * for [MS-PCQ] data buffers.
 * See pcq_codec.h for the contract and docs/validation.md for the rules.
 *
 * Reading order:
 *   1. loads, errors and diagnostics (one way to raise each);
 *   2. the layout: every wire structure described once (LAYOUT_*), which
 *      gives the offsets this file uses, the public descriptors that
 *      pcqdump and the Wireshark plugin read, and the per-field checks;
 *   3. names of the spec's constants, counter types, kinds;
 *   4. checks: per field (from the layout), set-wide (counterset-info,
 *      string blocks), the string block's dwOffset convention;
 *   5. the parsers: one function per structure, shared by the walk and the
 *      typed iterators;
 *   6. the walk (pcq_walk_next): frames and their steps, one per kind;
 *   7. decoders (the walk to its end), the typed iterators, accessors;
 *   8. text helpers; 9. the encoder (pcq_writer, pcq_reencode).
 *
 * Every position is a size_t offset into the input, never a pointer, and
 * every check is written as `n <= end - pos` with pos <= end known, so no
 * untrusted number is ever added to a pointer before it has been checked.
 */
#include "pcq_codec.h"

#include <string.h>

/* The header routes these through inline fast paths (macros of the same
 * names); here they are the functions themselves. */
#undef pcq_values_next
#undef pcq_blocks_next
#undef pcq_utf16_to_utf8
#undef pcq_block_counter_id
#undef pcq_instance_values
#undef pcq_instances_of_block_next
#undef pcq_block_values
#undef pcq_block_instances
#undef pcq_values_read_u64
#undef pcq_item_values
#undef pcq_walk_next
#undef pcq_put_value_u64
#undef pcq_put_value_u32
#undef pcq_put_data_instance
#undef pcq_put_data_instance_u64
#undef pcq_begin_block
#undef pcq_end_block

/* Defensive checks that no input can reach, in SQLite's manner: the test
 * runs in every build, and the coverage gate (ci/coverage-gate.sh) leaves
 * the branches of a PCQ_NEVER/PCQ_ALWAYS line and its guarded body out, so
 * an unreachable guard is declared as one rather than left uncovered. The
 * sanitizer replay of the fuzz corpora (make fuzz-replay) builds with
 * PCQ_CHECK_NEVER: a claim an input breaks stops it there. */
#if defined(PCQ_CHECK_NEVER) && defined(__GNUC__)
#define PCQ_NEVER(x)  ((x) ? (__builtin_trap(), 1) : 0)
#define PCQ_ALWAYS(x) ((x) ? 1 : (__builtin_trap(), 0))
#else
#define PCQ_NEVER(x)  (x)
#define PCQ_ALWAYS(x) (x)
#endif

/* C99 inline; C++ and older compilers get a plain static function.
 * PCQ_FORCE_INLINE: a loop written once and specialized where it is called
 * with constants (gcc and clang inline it; others may not). */
#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L)
#define PCQ_INLINE inline
#else
#define PCQ_INLINE
#endif
#if defined(__GNUC__)
#define PCQ_FORCE_INLINE PCQ_INLINE __attribute__((always_inline))
#define PCQ_NOINLINE     __attribute__((noinline)) /* a slow path kept out of its caller's frame */
#else
#define PCQ_FORCE_INLINE PCQ_INLINE
#define PCQ_NOINLINE
#endif

/* Reading ahead. Out of cache, a loop that reads a buffer once is bound by
 * how far ahead the hardware fetches for it: on the Xeon guest of
 * bench/RESULTS.md a plain loop summing 256 MiB ran at 68-74% of memcpy's
 * speed, 98-106% with a prefetch AHEAD bytes ahead. The checks of the
 * canonical layout (validation's and the single pass's) prefetch a line an
 * instance or four values, of bytes inside the input only: no address
 * outside it is formed (docs/decisions.md D19). A hint: it reads nothing.
 * Not in an input under AHEAD_FROM bytes, which is most often read from
 * cache (a reply just received): there a prefetch is an instruction for
 * nothing (validation of mix 0.467 -> 0.489 Ir/B at 1 MiB). */
#define AHEAD       ((size_t)PCQ_AHEAD)
#define AHEAD_FROM  ((size_t)(PCQ_AHEAD_FROM))
#define PREFETCH(p) PCQ_PREFETCH_(p) /* the header's (make check-ahead: a read, which ASan checks) */

unsigned pcq_version(void)
{
    return PCQ_VERSION_NUMBER;
}
const char *pcq_version_string(void)
{
    return PCQ_VERSION_STRING;
}

/* ======================================================================== */
/* 1. Loads, errors and diagnostics                                         */
/* ======================================================================== */

/* Byte-wise little-endian loads and a store, so alignment and host order
 * never matter. The caller has already checked that the bytes exist. */
static PCQ_INLINE uint16_t ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* One load where the host order is the wire's: memcpy is no type pun and no
 * unaligned access, and gcc and clang make it one instruction (clang does not
 * always merge the bytes below into one: 9 instructions a value more, D11). */
static PCQ_INLINE uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static PCQ_INLINE uint64_t ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static PCQ_INLINE void st32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4); /* one store (gcc 12 makes four byte stores of a computed v a byte at a time) */
}
#else
static PCQ_INLINE uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static PCQ_INLINE uint64_t ld64(const uint8_t *p)
{
    return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

static PCQ_INLINE void st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
#endif

/* Two's complement reinterpretation without implementation-defined casts. */
static int32_t to_i32(uint32_t u)
{
    return u <= (uint32_t)INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

const char *pcq_strerror(int status)
{
    switch (status) {
#define PCQ_X_(name, value, text) \
    case value: return text;
        PCQ_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "unknown status";
    }
}

const char *pcq_status_name(int status)
{
    switch (status) {
#define PCQ_X_(name, value, text) \
    case value: return #name;
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
#define PCQ_X_(name, value, text) \
    case value: return #name;
        PCQ_DIAG_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "PCQ_DIAG_UNKNOWN";
    }
}

const char *pcq_diag_text(int code)
{
    switch (code) {
#define PCQ_X_(name, value, text) \
    case value: return text;
        PCQ_DIAG_TABLE(PCQ_X_)
#undef PCQ_X_
    default: return "unknown diagnostic";
    }
}

/* The one way to raise an error. */
int pcq_error_set(pcq_error *e, int code, size_t offset, const char *what)
{
    if (e) {
        e->code = code;
        e->offset = offset;
        e->what = what;
        e->diag = 0;
    }
    return code;
}

/* What a parser reads from: the input, where its errors go, and the walk
 * (NULL for the typed iterators, which raise no diagnostics). */
typedef struct rd {
    const uint8_t *b;
    size_t len;
    pcq_error *err;
    pcq_walk *w;
} rd;

/* What a walk's steps read from: its input and its error. */
static PCQ_FORCE_INLINE void rd_walk(rd *r, pcq_walk *w)
{
    r->b = w->buf;
    r->len = w->len;
    r->err = &w->err;
    r->w = w;
}

static int rd_fail(rd *r, int code, size_t offset, const char *what)
{
    return pcq_error_set(r->err, code, offset, what);
}

#define WALK_QUICK 1u /* decoders: do not measure string texts */
#define WALK_BULK  2u /* pcq_opts.flags has PCQ_BULK */
#define WALK_DIAGS 4u /* someone listens for diagnostics (on_diag), or PCQ_STRICT */
#define WALK_PASS  8u /* decoders: canonical blocks passed whole (pass_blocks) */

/* Whether the walk looks for diagnostics at all: decided once, by
 * pcq_walk_begin (it is asked for every field that has a rule). */
static PCQ_INLINE int diags_on(const pcq_walk *w)
{
    return w && (w->mode & WALK_DIAGS);
}

/* The one way to raise a diagnostic: to on_diag, then, under PCQ_STRICT,
 * the error (but for CHECK_SKIPPED, which is not a finding). */
static int rd_diag(rd *r, int code, size_t offset, const char *what)
{
    const pcq_opts *o;
    pcq_diag d;
    if (!diags_on(r->w)) return PCQ_OK;
    o = r->w->opts;
    d.code = code;
    d.offset = offset;
    d.what = what;
    if (o->on_diag) o->on_diag(o->ctx, &d);
    if (!(o->flags & PCQ_STRICT) || code == PCQ_DIAG_CHECK_SKIPPED) return PCQ_OK;
    rd_fail(r, PCQ_ERR_NONCONFORMANT, offset, what);
    r->err->diag = code;
    return PCQ_ERR_NONCONFORMANT;
}

#define LANES_LO 0x0001000100010001u /* the low bit of each UTF-16 unit of 8 bytes */
#define LANES_HI 0x8000800080008000u /* the high bit of each */

/* Non-zero when one of the four UTF-16 units of w is 0 (exact as a whole:
 * a borrow can only flag a unit above a zero one). */
static PCQ_INLINE uint64_t has_nul16(uint64_t w)
{
    return (w - LANES_LO) & ~w & LANES_HI;
}

#define VALUE_16 ((uint64_t)16 << 32) /* dwDataSize 0, dwSize 16 */

/* A canonical name (§2.2.4.6's InstanceName, padded with zeros to a multiple
 * of 8) has no unit 0 before its last 8 bytes, and there a non-empty tail of
 * zero units: the NUL and the padding (a NUL earlier leaves 8 unused bytes
 * or more, malformed: D6). The fast checkers (canonical_instances,
 * bulk_instance) test the words before the last with name_zeros, which
 * gathers their zero units' flags in a zeros value (any_zero: one or more),
 * and the last word with bad_name_end. With SSE2, 16 bytes a turn: a name of
 * 12 units took ~24 instructions as 8-byte words, ~10 so. */
#if PCQ_SSE2_
typedef __m128i zeros; /* 16-bit lanes, all ones where a unit was 0 */
#define ZEROS_NONE _mm_setzero_si128()

static PCQ_INLINE zeros zero_units16(const uint8_t *p)
{
    return pcq_zero_units_(pcq_load16_(p));
}

/* The words in [p, q), q - p a multiple of 8 (else reads nothing past q):
 * 16 bytes from each end, then any between; one word, taken twice. */
static PCQ_FORCE_INLINE zeros name_zeros(const uint8_t *b, size_t p, size_t q, zeros z)
{
    /* names of 8 to 11 characters: the likely case (one jump fewer with gcc 12 for them, one more for
     * longer ones, which have more bytes to pay it); one compare serves the tests of the first two cases */
    if (PCQ_LIKELY_(q - p == 16)) {
        z = _mm_or_si128(z, zero_units16(b + q - 16)); /* from q: from p, gcc 12 kept p in a register */
    } else if (q - p > 16) {
        z = _mm_or_si128(z, zero_units16(b + p));
        z = _mm_or_si128(z, zero_units16(b + q - 16));
        for (p += 16, q -= 16; p < q; p += 16) z = _mm_or_si128(z, zero_units16(b + p));
    } else if (q - p == 8) {
        __m128i w = _mm_loadl_epi64((const __m128i *)(const void *)(b + p));
        z = _mm_or_si128(z, pcq_zero_units_(_mm_unpacklo_epi64(w, w)));
    }
    return z;
}

static PCQ_INLINE uint32_t any_zero(zeros z)
{
    return (uint32_t)_mm_movemask_epi8(z);
}

/* Non-zero unless the zero units of the 8 bytes at p are a non-empty tail.
 * The four units' flags, one bit each, are bits 0-3 of m; bits 4-7 are set
 * (the load's zero upper half), so m & 31 is 16 + the flags, and the tails
 * 1111, 1110, 1100 and 1000 (unit 3 is always 0) are bits 31, 30, 28 and 24
 * of 0xD1000000. */
static PCQ_INLINE uint32_t bad_name_end(const uint8_t *p)
{
    __m128i z = pcq_zero_units_(_mm_loadl_epi64((const __m128i *)(const void *)p));
    uint32_t m = (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(z, z));
    return ~(0xD1000000u >> (m & 31)) & 1;
}
#else
typedef uint64_t zeros; /* has_nul16's flags, unmasked: LANES_HI is taken once */
#define ZEROS_NONE 0

/* The words in [p, q): the first and the last, then any between. */
static PCQ_FORCE_INLINE zeros name_zeros(const uint8_t *b, size_t p, size_t q, zeros z)
{
    if (q - p >= 8) {
        uint64_t w1 = ld64(b + p), w2 = ld64(b + q - 8);
        z |= ((w1 - LANES_LO) & ~w1) | ((w2 - LANES_LO) & ~w2);
        if (q - p > 16) /* names of up to 11 characters have no word between (and no loop to enter) */
            for (p += 8; p < q - 8; p += 8) {
                uint64_t w = ld64(b + p);
                z |= (w - LANES_LO) & ~w;
            }
    }
    return z;
}

static PCQ_INLINE uint64_t any_zero(zeros z)
{
    return z & LANES_HI;
}

/* Non-zero unless the zero units of the 8 bytes at p are a non-empty tail.
 * The lowest flag of has_nul16 is exact: it is the NUL, unit k, and the
 * units from it on are all 0 iff w < 2^(16 k); with no flag, low is 0 and
 * w >= 0. */
static PCQ_INLINE uint64_t bad_name_end(const uint8_t *p)
{
    uint64_t w = ld64(p), z = has_nul16(w), low = z & (0 - z);
    return w >= (low >> 15);
}
#endif

/* Non-zero unless w, the first 8 bytes of a _PERF_COUNTER_DATA, say dwSize
 * 16 and dwDataSize 4 or 8: w - (VALUE_16 + 4) is then 0 or 4, and nothing
 * else is (subtracting a constant is one-to-one), so & ~4 is 0 for those two
 * words alone. */
static PCQ_INLINE uint64_t bad_value(uint64_t w)
{
    return (w - (VALUE_16 + 4)) & ~(uint64_t)4;
}

/* bad_value's test of many values, unmasked: each first word minus
 * VALUE_16 + 4 or-ed into a diffs value (any_bad: one or more not
 * canonical, the & ~4 taken once at the end). With SSE2 (as zeros) two
 * values' words a register, by one 8-byte load each, then one subtract and
 * one or for both: 8 instructions for four values where words take 12
 * (gcc 12, validation: the counter sets 0.28 -> 0.23 Ir/B, mix 0.58 ->
 * 0.55). Loads of __m128i and __m64, which the intrinsics' headers declare
 * may_alias: no type punning. Else (PCQ_NO_SIMD, -m32, s390x) words. */
#if PCQ_SSE2_
typedef __m128i diffs; /* two 64-bit lanes */
#define DIFFS_NONE _mm_setzero_si128()

/* The first words of the values at p and p + 16, in one register. */
static PCQ_FORCE_INLINE __m128i two_words(const uint8_t *p)
{
    __m128 lo = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p));
    return _mm_castps_si128(_mm_loadh_pi(lo, (const __m64 *)(const void *)(p + 16)));
}

static PCQ_FORCE_INLINE diffs one_diff(const uint8_t *p, diffs d)
{
    __m128i w = _mm_loadl_epi64((const __m128i *)(const void *)p); /* the upper lane 0, kept 0 */
    return _mm_or_si128(d, _mm_sub_epi64(w, _mm_set_epi64x(0, (long long)(VALUE_16 + 4))));
}

/* The values at p and p + 16, and at q and q + 16 (the same ones again,
 * or some of them, changes nothing). */
static PCQ_FORCE_INLINE diffs pairs_diff(const uint8_t *p, const uint8_t *q, diffs d)
{
    const __m128i c = _mm_set1_epi64x((long long)(VALUE_16 + 4));
    return _mm_or_si128(d, _mm_or_si128(_mm_sub_epi64(two_words(p), c), _mm_sub_epi64(two_words(q), c)));
}

static PCQ_INLINE int any_bad(diffs d)
{
    __m128i z = _mm_cmpeq_epi8(_mm_andnot_si128(_mm_set1_epi64x(4), d), _mm_setzero_si128());
    return _mm_movemask_epi8(z) != 0xFFFF;
}

/* any_bad(d) || any_zero(z), in one test */
static PCQ_INLINE int any_bad_zero(diffs d, zeros z)
{
    __m128i y = _mm_cmpeq_epi8(_mm_or_si128(_mm_andnot_si128(_mm_set1_epi64x(4), d), z), _mm_setzero_si128());
    return _mm_movemask_epi8(y) != 0xFFFF;
}
#else
typedef uint64_t diffs;
#define DIFFS_NONE 0

static PCQ_FORCE_INLINE diffs one_diff(const uint8_t *p, diffs d)
{
    return d | (ld64(p) - (VALUE_16 + 4));
}

static PCQ_FORCE_INLINE diffs pairs_diff(const uint8_t *p, const uint8_t *q, diffs d)
{
    return d | (ld64(p) - (VALUE_16 + 4)) | (ld64(p + 16) - (VALUE_16 + 4)) | (ld64(q) - (VALUE_16 + 4)) |
           (ld64(q + 16) - (VALUE_16 + 4));
}

static PCQ_INLINE int any_bad(diffs d)
{
    return (d & ~(uint64_t)4) != 0;
}

static PCQ_INLINE int any_bad_zero(diffs d, zeros z)
{
    return ((d & ~(uint64_t)4) | any_zero(z)) != 0;
}
#endif

/* The four values at p. */
static PCQ_FORCE_INLINE diffs four_diff(const uint8_t *p, diffs d)
{
    return pairs_diff(p, p + 32, d);
}

/* The same for n values from p, n >= 4: four a turn, and the last four
 * again where n is not a multiple of 4 (a value or-ed twice changes
 * nothing), where a loop of one at a time cost a type 6 block of 4 counters
 * ~6 instructions an instance. */
static PCQ_FORCE_INLINE diffs many_diff(const uint8_t *p, size_t n, diffs d, size_t ahead)
{
    const uint8_t *last4 = p + 16 * (n - 4);
    for (; p < last4; p += 64) {
        if (ahead) PREFETCH(p + ahead); /* a line a turn (the caller found p + AHEAD in the input) */
        d = four_diff(p, d);
    }
    return four_diff(last4, d);
}

/* Any n: two to four values by their first two and their last two, with
 * no loop to test (many_diff's test of four values was 3 instructions of a
 * type 6 instance's 32, with gcc 12). */
static PCQ_FORCE_INLINE diffs values_diff(const uint8_t *p, size_t n, diffs d, size_t ahead)
{
    if (n > 4) return many_diff(p, n, d, ahead);
    if (n >= 2) return pairs_diff(p, p + 16 * (n - 2), d);
    return n ? one_diff(p, d) : d;
}

/* The same for n values from at: non-zero if one is not canonical. */
static PCQ_FORCE_INLINE int bad_values(const uint8_t *b, size_t at, size_t n, size_t ahead)
{
    return any_bad(values_diff(b + at, n, DIFFS_NONE, ahead));
}

/* The first zero unit of a word that has one (has_nul16(w) = z != 0): the
 * lowest flag of z is exact (borrows only flag units above a zero one), so
 * its unit index is the count of trailing zero bits / 16. */
static size_t zero_unit(uint64_t z)
{
#if defined(__GNUC__)
    return (size_t)__builtin_ctzll(z) >> 4;
#else
    return (size_t) !(z & 0x8000u) + !(z & 0x80008000u) + !(z & 0x800080008000u);
#endif
}

/* Finds the UTF-16 NUL of a name in [pos, end): 2-byte units from pos, 8
 * bytes at a time, the NUL in the word that has it by its flag, then the
 * last units one at a time. Returns the offset of the NUL, or end when
 * there is none. pos <= end. Inline where a text is measured per entry
 * (map_text_end), a call elsewhere. */
static PCQ_FORCE_INLINE size_t find_nul16_inline(const uint8_t *b, size_t pos, size_t end)
{
    uint64_t z;
    while (end - pos >= 16) { /* 16 bytes a turn while neither word has a zero unit */
        uint64_t x = ld64(b + pos), y = ld64(b + pos + 8);
        if ((((x - LANES_LO) & ~x) | ((y - LANES_LO) & ~y)) & LANES_HI) break;
        pos += 16;
    }
    for (; end - pos >= 8; pos += 8)
        if ((z = has_nul16(ld64(b + pos))) != 0) return pos + 2 * zero_unit(z);
    while (end - pos >= 2) {
        if (b[pos] == 0 && b[pos + 1] == 0) return pos;
        pos += 2;
    }
    return end;
}

static size_t find_nul16(const uint8_t *b, size_t pos, size_t end)
{
    return find_nul16_inline(b, pos, end);
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

/* ======================================================================== */
/* 2. The layout: every wire structure described once.                      */
/*                                                                          */
/* One line a field: struct, field, name (as the spec writes it), JSON key, */
/* filter abbreviation, offset, size, storage, how it is shown, and the     */
/* rule it must keep (CK_*, checked in field order, so diagnostics come in  */
/* wire order). From these lines come the offsets used below               */
/* (<STRUCT>_<field>, e.g. COUNTER_HEADER_dwSize; <STRUCT>_SIZE is the     */
/* fixed part), the public pcq_field arrays (pcq_struct_info_of) and the    */
/* check columns.                                                           */
/* ======================================================================== */
enum {
    CK_NONE = 0,
    CK_RESERVED,      /* MUST be 0: PCQ_DIAG_RESERVED                             */
    CK_CSET_TYPE,     /* CounterSetType MUST be 0: PCQ_DIAG_COUNTERSET_TYPE       */
    CK_DETAIL,        /* 100 or 200                                               */
    CK_INSTANCE_TYPE, /* 0, 2, 4, 6, 0xC, 0x16                                    */
    CK_COUNTER_TYPE,  /* one of the 34                                            */
    CK_ATTRIB,        /* the allowed Attrib combinations                          */
    CK_SCALE,         /* -10..10                                                  */
    CK_AGGREGATE,     /* 0..4                                                     */
    CK_SIZE8,         /* an 8-byte multiple (opnum 2 and 5 arrays, string blocks) */
    CK_UNIQUE,        /* CounterId unique in the counterset (set-wide)            */
    CK_REL_BASE,      /* BaseCounterId names a counter of the base type           */
    CK_REL_TIME,      /* PerfTimeId names a PERF_COUNTER_LARGE_RAWCOUNT           */
    CK_REL_FREQ,      /* PerfFreqId names a PERF_COUNTER_LARGE_RAWCOUNT           */
    CK_REL_MULTI,     /* MultiId names a PERF_COUNTER_RAWCOUNT                    */
    CK_SET            /* a set's count: prepare its set-wide checks (here, so that */
                      /* a CHECK_SKIPPED comes in wire order)                      */
};

#define COUNTERSET_REG_INFO_NAME   "_PERF_COUNTERSET_REG_INFO"
#define COUNTER_REG_INFO_NAME      "_PERF_COUNTER_REG_INFO"
#define STRING_BUFFER_HEADER_NAME  "_STRING_BUFFER_HEADER"
#define STRING_COUNTER_HEADER_NAME "_STRING_COUNTER_HEADER"
#define STRING_NAME                "String"
#define GUID_NAME                  "GUID"
#define INSTANCE_HEADER_NAME       "_PERF_INSTANCE_HEADER"
#define COUNTER_IDENTIFIER_NAME    "_PERF_COUNTER_IDENTIFIER"
#define DATA_HEADER_NAME           "_PERF_DATA_HEADER"
#define COUNTER_HEADER_NAME        "_PERF_COUNTER_HEADER"
#define MULTI_COUNTERS_NAME        "_PERF_MULTI_COUNTERS"
#define COUNTER_ID_NAME            "CounterId"
#define MULTI_INSTANCES_NAME       "_PERF_MULTI_INSTANCES"
#define COUNTER_DATA_NAME          "_PERF_COUNTER_DATA"

/* Fixed parts, [MS-PCQ] appendix "computed structure sizes". */
enum {
    COUNTERSET_REG_INFO_SIZE = 32,
    COUNTER_REG_INFO_SIZE = 48,
    STRING_BUFFER_HEADER_SIZE = 8,
    STRING_COUNTER_HEADER_SIZE = 8,
    STRING_SIZE = 0,
    GUID_SIZE = 16,
    INSTANCE_HEADER_SIZE = 8,
    COUNTER_IDENTIFIER_SIZE = 40,
    DATA_HEADER_SIZE = 48,
    COUNTER_HEADER_SIZE = 16,
    MULTI_COUNTERS_SIZE = 8,
    COUNTER_ID_SIZE = 4,
    MULTI_INSTANCES_SIZE = 8,
    COUNTER_DATA_SIZE = 8,
    NUL16_SIZE = 2 /* a UTF-16 NUL */
};

/* §2.2.4.1 */
/* clang-format off */
#define LAYOUT_COUNTERSET_REG_INFO(X)                                                                   \
    X(COUNTERSET_REG_INFO, CounterSetGuid, "CounterSetGuid", "guid", "counterset", 0, 16, GUID, DEC, NONE) \
    X(COUNTERSET_REG_INFO, CounterSetType, "CounterSetType", "counterset_type", "counterset.type", 16, 4, \
      U32, DEC, CSET_TYPE)                                                                              \
    X(COUNTERSET_REG_INFO, DetailLevel, "DetailLevel", "detail_level", "counterset.detail_level", 20, 4, \
      U32, DETAIL_LEVEL, DETAIL)                                                                        \
    X(COUNTERSET_REG_INFO, NumCounters, "NumCounters", "num_counters", "counterset.num_counters", 24, 4, \
      U32, DEC, SET)                                                                                   \
    X(COUNTERSET_REG_INFO, InstanceType, "InstanceType", "instance_type", "counterset.instance_type", 28, \
      4, U32, INSTANCE_TYPE, INSTANCE_TYPE)
/* clang-format on */

/* §2.2.4.2 */
/* clang-format off */
#define LAYOUT_COUNTER_REG_INFO(X)                                                                      \
    X(COUNTER_REG_INFO, CounterId, "CounterId", "counter_id", "counter.id", 0, 4, U32, DEC, UNIQUE)     \
    X(COUNTER_REG_INFO, Type, "Type", "type", "counter.type", 4, 4, U32, COUNTER_TYPE, COUNTER_TYPE)     \
    X(COUNTER_REG_INFO, Attrib, "Attrib", "attrib", "counter.attrib", 8, 8, U64, ATTRIB, ATTRIB)         \
    X(COUNTER_REG_INFO, DetailLevel, "DetailLevel", "detail_level", "counter.detail_level", 16, 4, U32,  \
      DETAIL_LEVEL, DETAIL)                                                                             \
    X(COUNTER_REG_INFO, DefaultScale, "DefaultScale", "default_scale", "counter.default_scale", 20, 4,   \
      I32, DEC, SCALE)                                                                                  \
    X(COUNTER_REG_INFO, BaseCounterId, "BaseCounterId", "base_counter_id", "counter.base_id", 24, 4,     \
      U32, ID, REL_BASE)                                                                                \
    X(COUNTER_REG_INFO, PerfTimeId, "PerfTimeId", "perf_time_id", "counter.time_id", 28, 4, U32, ID,     \
      REL_TIME)                                                                                         \
    X(COUNTER_REG_INFO, PerfFreqId, "PerfFreqId", "perf_freq_id", "counter.freq_id", 32, 4, U32, ID,     \
      REL_FREQ)                                                                                         \
    X(COUNTER_REG_INFO, MultiId, "MultiId", "multi_id", "counter.multi_id", 36, 4, U32, ID, REL_MULTI)   \
    X(COUNTER_REG_INFO, AggregateFunc, "AggregateFunc", "aggregate_func", "counter.aggregate_func", 40, \
      4, U32, AGGREGATE, AGGREGATE)                                                                     \
    X(COUNTER_REG_INFO, Reserved, "Reserved", "reserved", "counter.reserved", 44, 4, U32, DEC, RESERVED)
/* clang-format on */

/* §2.2.4.3; Convention is what the decoder makes of dwOffset (D4). */
/* clang-format off */
#define LAYOUT_STRING_BUFFER_HEADER(X)                                                                  \
    X(STRING_BUFFER_HEADER, dwSize, "dwSize", "size", "strings.size", 0, 4, U32, DEC, SIZE8)            \
    X(STRING_BUFFER_HEADER, dwCounters, "dwCounters", "num_counters", "strings.num_counters", 4, 4, U32, \
      DEC, SET)                                                                                        \
    X(STRING_BUFFER_HEADER, Convention, "Convention", "convention", "strings.convention", 0, 0,          \
      CONVENTION, DEC, NONE)
/* clang-format on */

/* §2.2.4.4; String is the text dwOffset names, elsewhere in the block. */
/* clang-format off */
#define LAYOUT_STRING_COUNTER_HEADER(X)                                                                 \
    X(STRING_COUNTER_HEADER, dwCounterId, "dwCounterId", "counter_id", "counter.id", 0, 4, U32, DEC,    \
      NONE)                                                                                             \
    X(STRING_COUNTER_HEADER, dwOffset, "dwOffset", "offset", "string.offset", 4, 4, U32, ID, NONE)      \
    X(STRING_COUNTER_HEADER, String, "String", "text", "string", 0, 0, TEXT, DEC, NONE)
/* clang-format on */

/* §3.1.4.1.2 RequestCode 3, 4, 7, 9: a NUL-terminated string. */
#define LAYOUT_STRING(X) X(STRING, Text, "String", "text", "string", 0, 0, TEXT, DEC, NONE)

/* §2.2.4.5; Size is checked for opnum 2 only (§3.1.4.1.3). */
/* clang-format off */
#define LAYOUT_INSTANCE_HEADER(X)                                                                       \
    X(INSTANCE_HEADER, Size, "Size", "size", "instance.size", 0, 4, U32, DEC, SIZE8)                    \
    X(INSTANCE_HEADER, InstanceId, "InstanceId", "instance_id", "instance.id", 4, 4, U32, DEC, NONE)    \
    X(INSTANCE_HEADER, InstanceName, "InstanceName", "name", "instance.name", 8, 0, NAME, DEC, NONE)
/* clang-format on */

/* §2.2.4.6 */
/* clang-format off */
#define LAYOUT_COUNTER_IDENTIFIER(X)                                                                    \
    X(COUNTER_IDENTIFIER, CounterSetGuid, "CounterSetGuid", "guid", "counterset", 0, 16, GUID, DEC, NONE) \
    X(COUNTER_IDENTIFIER, Status, "Status", "status", "identifier.status", 16, 4, U32, STATUS, NONE)    \
    X(COUNTER_IDENTIFIER, Size, "Size", "size", "identifier.size", 20, 4, U32, DEC, SIZE8)              \
    X(COUNTER_IDENTIFIER, CounterId, "CounterId", "counter_id", "counter.id", 24, 4, U32, ID, NONE)     \
    X(COUNTER_IDENTIFIER, InstanceId, "InstanceId", "instance_id", "instance.id", 28, 4, U32, DEC, NONE) \
    X(COUNTER_IDENTIFIER, Index, "Index", "index", "identifier.index", 32, 4, U32, DEC, NONE)           \
    X(COUNTER_IDENTIFIER, Reserved, "Reserved", "reserved", "identifier.reserved", 36, 4, U32, DEC,     \
      RESERVED)                                                                                         \
    X(COUNTER_IDENTIFIER, InstanceName, "InstanceName", "name", "instance.name", 40, 0, NAME, DEC, NONE)
/* clang-format on */

/* §2.2.4.7; SystemTime is a [MS-DTYP] SYSTEMTIME, 8 WORDs (D1). */
/* clang-format off */
#define LAYOUT_DATA_HEADER(X)                                                                           \
    X(DATA_HEADER, dwTotalSize, "dwTotalSize", "total_size", "data.total_size", 0, 4, U32, DEC, NONE)   \
    X(DATA_HEADER, dwNumCounter, "dwNumCounter", "num_counters", "data.num_counters", 4, 4, U32, DEC,   \
      NONE)                                                                                             \
    X(DATA_HEADER, PerfTimeStamp, "PerfTimeStamp", "perf_time_stamp", "data.time_stamp", 8, 8, U64,     \
      DEC, NONE)                                                                                        \
    X(DATA_HEADER, PerfTime100NSec, "PerfTime100NSec", "perf_time_100nsec", "data.time_100ns", 16, 8,   \
      U64, FILETIME, NONE)                                                                              \
    X(DATA_HEADER, PerfFreq, "PerfFreq", "perf_freq", "data.freq", 24, 8, U64, DEC, NONE)               \
    X(DATA_HEADER, wYear, "SystemTime.wYear", "system_time.year", "data.system_time.year", 32, 2, U16,  \
      DEC, NONE)                                                                                        \
    X(DATA_HEADER, wMonth, "SystemTime.wMonth", "system_time.month", "data.system_time.month", 34, 2,   \
      U16, DEC, NONE)                                                                                   \
    X(DATA_HEADER, wDayOfWeek, "SystemTime.wDayOfWeek", "system_time.day_of_week",                      \
      "data.system_time.day_of_week", 36, 2, U16, DEC, NONE)                                            \
    X(DATA_HEADER, wDay, "SystemTime.wDay", "system_time.day", "data.system_time.day", 38, 2, U16, DEC, \
      NONE)                                                                                             \
    X(DATA_HEADER, wHour, "SystemTime.wHour", "system_time.hour", "data.system_time.hour", 40, 2, U16,  \
      DEC, NONE)                                                                                        \
    X(DATA_HEADER, wMinute, "SystemTime.wMinute", "system_time.minute", "data.system_time.minute", 42, \
      2, U16, DEC, NONE)                                                                                \
    X(DATA_HEADER, wSecond, "SystemTime.wSecond", "system_time.second", "data.system_time.second", 44, \
      2, U16, DEC, NONE)                                                                                \
    X(DATA_HEADER, wMilliseconds, "SystemTime.wMilliseconds", "system_time.milliseconds",               \
      "data.system_time.milliseconds", 46, 2, U16, DEC, NONE)
/* clang-format on */

/* §2.2.4.8 */
/* clang-format off */
#define LAYOUT_COUNTER_HEADER(X)                                                                        \
    X(COUNTER_HEADER, dwStatus, "dwStatus", "status", "block.status", 0, 4, U32, STATUS, NONE)          \
    X(COUNTER_HEADER, dwType, "dwType", "type", "block.type", 4, 4, U32, BLOCK_TYPE, NONE)              \
    X(COUNTER_HEADER, dwSize, "dwSize", "size", "block.size", 8, 4, U32, DEC, NONE)                     \
    X(COUNTER_HEADER, Reserved, "Reserved", "reserved", "block.reserved", 12, 4, U32, DEC, RESERVED)
/* clang-format on */

/* §2.2.4.11; the counter ID array follows, one COUNTER_ID each. */
/* clang-format off */
#define LAYOUT_MULTI_COUNTERS(X)                                                                        \
    X(MULTI_COUNTERS, dwSize, "dwSize", "multi_size", "multi_counters.size", 0, 4, U32, DEC, NONE)      \
    X(MULTI_COUNTERS, dwCounters, "dwCounters", "num_counters", "multi_counters.count", 4, 4, U32, DEC, \
      NONE)
/* clang-format on */

#define LAYOUT_COUNTER_ID(X) X(COUNTER_ID, Id, "CounterId", "", "counter.id", 0, 4, U32, DEC, NONE)

/* §2.2.4.10 */
/* clang-format off */
#define LAYOUT_MULTI_INSTANCES(X)                                                                       \
    X(MULTI_INSTANCES, dwTotalSize, "dwTotalSize", "instances_size", "multi_instances.size", 0, 4, U32, \
      DEC, NONE)                                                                                        \
    X(MULTI_INSTANCES, dwInstances, "dwInstances", "num_instances", "multi_instances.count", 4, 4, U32, \
      DEC, NONE)
/* clang-format on */

/* §2.2.4.9; Value is the dwDataSize bytes after the structure. */
/* clang-format off */
#define LAYOUT_COUNTER_DATA(X)                                                                          \
    X(COUNTER_DATA, dwDataSize, "dwDataSize", "data_size", "value.data_size", 0, 4, U32, DEC, NONE)     \
    X(COUNTER_DATA, dwSize, "dwSize", "size", "value.size", 4, 4, U32, DEC, NONE)                       \
    X(COUNTER_DATA, Value, "Value", "value", "counter.value", 8, 0, VALUE, DEC, NONE)
/* clang-format on */

#define GEN_OFFSET(S, F, name, key, abbrev, off, size, type, show, check) S##_##F = off,
#define GEN_FIELD(S, F, name, key, abbrev, off, size, type, show, check) \
    {name, key, abbrev, S##_NAME "." name, off, size, PCQ_FT_##type, PCQ_SHOW_##show},
#define GEN_CHECK(S, F, name, key, abbrev, off, size, type, show, check) CK_##check,

/* clang-format off */
#define LAYOUT_ALL(X)                                                                          \
    X(COUNTERSET_REG_INFO) X(COUNTER_REG_INFO) X(STRING_BUFFER_HEADER)                         \
    X(STRING_COUNTER_HEADER) X(STRING) X(INSTANCE_HEADER) X(COUNTER_IDENTIFIER)        \
    X(DATA_HEADER) X(COUNTER_HEADER) X(MULTI_COUNTERS) X(COUNTER_ID) X(MULTI_INSTANCES)        \
    X(COUNTER_DATA)
/* clang-format on */

#define GEN_OFFSETS(W)                      \
    enum {                                  \
        LAYOUT_##W(GEN_OFFSET) W##_NFIELDS_ \
    };
LAYOUT_ALL(GEN_OFFSETS)
/* clang-format off */
#define GEN_TABLES(W)                                                                 \
    static const pcq_field W##_fields[] = {LAYOUT_##W(GEN_FIELD)};                     \
    static const unsigned char W##_checks[] = {LAYOUT_##W(GEN_CHECK)};
/* clang-format on */
LAYOUT_ALL(GEN_TABLES)

/* A [MS-DTYP] GUID shows as what it names: a counterset (opnum 0 array) or
 * a provider (RequestCode 8). */
/* clang-format off */
static const pcq_field COUNTERSET_GUID_fields[] = {
    {"GUID", "", "counterset", GUID_NAME, 0, 16, PCQ_FT_GUID, PCQ_SHOW_DEC},
};
/* clang-format on */
/* clang-format off */
static const pcq_field PROVIDER_GUID_fields[] = {
    {"GUID", "guid", "provider", GUID_NAME, 0, 16, PCQ_FT_GUID, PCQ_SHOW_DEC},
};
/* clang-format on */

/* Each structure type: its public description and its check column. */
typedef struct layout {
    pcq_struct_info info;
    const unsigned char *checks; /* NULL: no rules */
} layout;

#define NFIELDS(a) (sizeof a / sizeof a[0])
#define LAYOUT(T, W, section, fields, checks)                                     \
    {                                                                             \
        {PCQ_S_##T, W##_NAME, section, W##_SIZE, NFIELDS(fields), fields}, checks \
    }

/* clang-format off */
static const layout layouts[PCQ_S_END_] = {
    {{PCQ_S_NONE, "", "", 0, 0, NULL}, NULL},
    LAYOUT(COUNTERSET_REG_INFO, COUNTERSET_REG_INFO, "§2.2.4.1", COUNTERSET_REG_INFO_fields,
           COUNTERSET_REG_INFO_checks),
    LAYOUT(COUNTER_REG_INFO, COUNTER_REG_INFO, "§2.2.4.2", COUNTER_REG_INFO_fields,
           COUNTER_REG_INFO_checks),
    LAYOUT(STRING_BUFFER_HEADER, STRING_BUFFER_HEADER, "§2.2.4.3", STRING_BUFFER_HEADER_fields,
           STRING_BUFFER_HEADER_checks),
    LAYOUT(STRING_COUNTER_HEADER, STRING_COUNTER_HEADER, "§2.2.4.4", STRING_COUNTER_HEADER_fields,
           STRING_COUNTER_HEADER_checks),
    LAYOUT(STRING, STRING, "§3.1.4.1.2", STRING_fields, STRING_checks),
    LAYOUT(PROVIDER_GUID, GUID, "§3.1.4.1.2", PROVIDER_GUID_fields, NULL),
    LAYOUT(COUNTERSET_GUID, GUID, "§3.1.4.1.1", COUNTERSET_GUID_fields, NULL),
    LAYOUT(INSTANCE, INSTANCE_HEADER, "§2.2.4.5, §3.1.4.1.3", INSTANCE_HEADER_fields,
           INSTANCE_HEADER_checks),
    LAYOUT(COUNTER_IDENTIFIER, COUNTER_IDENTIFIER, "§2.2.4.6", COUNTER_IDENTIFIER_fields,
           COUNTER_IDENTIFIER_checks),
    LAYOUT(DATA_HEADER, DATA_HEADER, "§2.2.4.7", DATA_HEADER_fields, DATA_HEADER_checks),
    LAYOUT(COUNTER_HEADER, COUNTER_HEADER, "§2.2.4.8", COUNTER_HEADER_fields, COUNTER_HEADER_checks),
    LAYOUT(MULTI_COUNTERS, MULTI_COUNTERS, "§2.2.4.11", MULTI_COUNTERS_fields, MULTI_COUNTERS_checks),
    LAYOUT(COUNTER_ID, COUNTER_ID, "§2.2.4.11", COUNTER_ID_fields, COUNTER_ID_checks),
    LAYOUT(MULTI_INSTANCES, MULTI_INSTANCES, "§2.2.4.10", MULTI_INSTANCES_fields,
           MULTI_INSTANCES_checks),
    /* Figure 9's padding rule (MUST be 0) is checked by its parser; Size is
     * not: §3.1.4.1.3's "MUST be an 8-byte multiple" is about opnum 2. */
    LAYOUT(DATA_INSTANCE, INSTANCE_HEADER, "§2.2.4.5, §3.1.4.1.6", INSTANCE_HEADER_fields, NULL),
    LAYOUT(COUNTER_DATA, COUNTER_DATA, "§2.2.4.9", COUNTER_DATA_fields, COUNTER_DATA_checks),
};
/* clang-format on */

const pcq_struct_info *pcq_struct_info_of(int type)
{
    return type > PCQ_S_NONE && type < PCQ_S_END_ ? &layouts[type].info : NULL;
}

/* The value of integer field f (U16, U32, I32 or U64: the callers pass no
 * other) whose bytes start at p, checked by the caller. */
static uint64_t field_at(const pcq_field *f, const uint8_t *p)
{
    switch (f->type) {
    case PCQ_FT_U16: return ld16(p);
    case PCQ_FT_U64: return ld64(p);
    case PCQ_FT_I32: return ld32(p) | (ld32(p) & 0x80000000u ? 0xFFFFFFFF00000000u : 0u);
    default: return ld32(p); /* PCQ_FT_U32 */
    }
}

/* 1 when f is a fixed field whose size is its type's, the only fields whose
 * bytes the accessors read: a field a caller made with a U64 type and a size
 * of 2 must not make them read 8 bytes where 2 were checked. */
static int fixed_field_ok(const pcq_field *f)
{
    static const uint8_t sizes[] = {0, 2, 4, 4, 8, 16}; /* by pcq_field_type, to PCQ_FT_GUID */
    return f->type < sizeof sizes && f->size != 0 && f->size == sizes[f->type];
}

int pcq_field_get(const pcq_field *f, const void *buf, size_t len, size_t at, uint64_t *v)
{
    const uint8_t *b = (const uint8_t *)buf;
    if (!f || !v || (!b && len) || f->type == PCQ_FT_GUID || !fixed_field_ok(f)) return PCQ_ERR_INVALID_ARG;
    if (at > len || f->offset > len - at || f->size > len - at - f->offset) return PCQ_ERR_TRUNCATED;
    *v = field_at(f, b + at + f->offset);
    return PCQ_OK;
}

/* The variable part f of a complete item: a name, a text, a value, the
 * convention, each from the union member of the structure that has it.
 * Another structure's part (a caller's mistake) is PCQ_V_NONE: read from
 * another member, it would be a view of whatever that member holds, which
 * need not point into the input at all. */
static int variable_field(const pcq_item *it, const pcq_field *f, pcq_field_value *out)
{
    static const char *const conventions[] = {"none", "spec", "win32"};
    int t = it->type;
    out->offset = it->offset + f->offset;
    switch (f->type) {
    case PCQ_FT_NAME:
        if (t == PCQ_S_INSTANCE)
            out->bytes = it->u.instance.name;
        else if (t == PCQ_S_COUNTER_IDENTIFIER)
            out->bytes = it->u.identifier.name;
        else if (t == PCQ_S_DATA_INSTANCE)
            out->bytes = it->u.data_instance.name;
        else
            break;
        return out->kind = PCQ_V_TEXT;
    case PCQ_FT_TEXT:
        if (t == PCQ_S_STRING_COUNTER_HEADER) {
            if (!it->u.entry.present) return out->kind = PCQ_V_ABSENT;
            out->bytes = it->u.entry.text, out->offset = it->u.entry.text_offset;
            return out->kind = PCQ_V_TEXT;
        }
        if (t != PCQ_S_STRING) break;
        out->bytes = it->u.text;
        return out->kind = PCQ_V_TEXT;
    case PCQ_FT_VALUE:
        if (t != PCQ_S_COUNTER_DATA) break;
        out->u = it->u.value.u64;
        out->bytes = it->u.value.data;
        return out->kind = it->u.value.is_int ? PCQ_V_UNSIGNED : PCQ_V_BYTES;
    case PCQ_FT_CONVENTION:
        if (t != PCQ_S_STRING_BUFFER_HEADER) break;
        out->word = conventions[it->u.strings.convention % 3u];
        return out->kind = PCQ_V_WORD;
    default: break; /* a fixed type of size 0: no field of ours */
    }
    out->offset = 0;
    return PCQ_V_NONE;
}

int pcq_item_is_element(const pcq_item *it, pcq_kind kind)
{
    switch (it->type) {
    case PCQ_S_COUNTER_REG_INFO: return kind == PCQ_KIND_COUNTERSET_INFO;
    case PCQ_S_STRING_COUNTER_HEADER:
    case PCQ_S_COUNTERSET_GUID:
    case PCQ_S_INSTANCE:
    case PCQ_S_COUNTER_IDENTIFIER:
    case PCQ_S_COUNTER_HEADER:
    case PCQ_S_COUNTER_ID:
    case PCQ_S_DATA_INSTANCE: return 1;
    case PCQ_S_COUNTER_DATA: return !it->single;
    default: return 0;
    }
}

int pcq_item_field(const pcq_item *it, const pcq_field *f, const void *buf, size_t len, pcq_field_value *out)
{
    const uint8_t *b = (const uint8_t *)buf;
    size_t end;
    if (!out) return PCQ_V_NONE;
    memset(out, 0, sizeof *out);
    if (!it || !f || (!b && len)) return PCQ_V_NONE;
    if (f->size == 0) return it->partial ? PCQ_V_NONE : variable_field(it, f, out);
    end = (size_t)f->offset + f->size; /* both small: no overflow */
    if (!fixed_field_ok(f) || end > it->size || it->offset > len || end > len - it->offset) return PCQ_V_NONE;
    /* Read here, not through pcq_field_get: tools call this for every field
     * of every item, and its checks again cost more than the read (D11, "A caller
     * that reads every field"). */
    out->offset = it->offset + f->offset;
    b += out->offset;
    if (f->type == PCQ_FT_GUID) {
        read_guid_at(b, &out->guid);
        return out->kind = PCQ_V_GUID;
    }
    out->u = field_at(f, b); /* an I32 sign-extended, as pcq_field_get gives it */
    if (f->type != PCQ_FT_I32) return out->kind = PCQ_V_UNSIGNED;
    out->i = to_i32((uint32_t)out->u);
    return out->kind = PCQ_V_SIGNED;
}

/* ======================================================================== */
/* 3. Names of the spec's constants, counter types, kinds                   */
/* ======================================================================== */
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

/* The codec's columns of PCQ_COUNTER_TYPE_TABLE (pcq_codec.h). */
typedef struct ctype {
    uint32_t value;
    const char *name;
    uint8_t spec, req;
    uint32_t base;
} ctype;

/* clang-format off */
static const ctype ctypes[] = {
#define PCQ_X_(name, value, spec, size, samples, req, base, needs, tb, unit, disp, hex, op, f) \
    {value, #name, spec, req, base},
    PCQ_COUNTER_TYPE_TABLE(PCQ_X_)
#undef PCQ_X_
};
/* clang-format on */

/* The table is in ascending order of value (test_calc checks it). */
static const ctype *ctype_of(uint32_t type)
{
    const ctype *at = ctypes; /* the last entry <= type is in [at, at + n): halve without a branch */
    size_t n = sizeof ctypes / sizeof ctypes[0], half;
    while (n > 1) {
        half = n / 2;
        at = at[half].value <= type ? at + half : at;
        n -= half;
    }
    return at->value == type ? at : NULL;
}

const char *pcq_counter_type_name(uint32_t type)
{
    const ctype *c = ctype_of(type);
    return c ? c->name : NULL;
}

int pcq_counter_type_is_known(uint32_t type)
{
    const ctype *c = ctype_of(type);
    return c && c->spec;
}

unsigned pcq_counter_type_requires(uint32_t type, uint32_t *base_type)
{
    const ctype *c = ctype_of(type);
    if (base_type) *base_type = c ? c->base : 0;
    return c ? c->req : 0u;
}

const char *pcq_detail_level_name(uint32_t level)
{
    static const name_entry t[] = {
        {100, "PERF_DETAIL_NOVICE"},
        {200, "PERF_DETAIL_ADVANCED"},
    };
    return LOOKUP(t, level);
}

/* §2.2.4.1 InstanceType; names from perflib.h. */
/* clang-format off */
static const name_entry instance_types[] = {
    {0x00, "PERF_COUNTERSET_SINGLE_INSTANCE"},
    {0x02, "PERF_COUNTERSET_MULTI_INSTANCES"},
    {0x04, "PERF_COUNTERSET_SINGLE_AGGREGATE"},
    {0x06, "PERF_COUNTERSET_MULTI_AGGREGATE"},
    {0x0C, "PERF_COUNTERSET_SINGLE_AGGREGATE_HISTORY"},
    {0x16, "PERF_COUNTERSET_INSTANCE_AGGREGATE"},
};
/* clang-format on */

const char *pcq_instance_type_name(uint32_t type)
{
    return LOOKUP(instance_types, type);
}

const char *pcq_aggregate_name(uint32_t func)
{
    static const name_entry t[] = {
        {0, "PERF_AGGREGATE_UNDEFINED"}, {1, "PERF_AGGREGATE_TOTAL"}, {2, "PERF_AGGREGATE_AVG"},
        {3, "PERF_AGGREGATE_MIN"},       {4, "PERF_AGGREGATE_MAX"},
    };
    return LOOKUP(t, func);
}

const char *pcq_block_type_name(uint32_t type)
{
    static const name_entry t[] = {
        {0, "PERF_ERROR_RETURN"},    {1, "PERF_SINGLE_COUNTER"}, {2, "PERF_MULTI_COUNTERS"},
        {4, "PERF_MULTI_INSTANCES"}, {6, "PERF_COUNTERSET"},
    };
    return LOOKUP(t, type);
}

/* §3.1.4.1.2 RequestCode. The spec gives meanings, not names; these are ours. */
const char *pcq_request_code_name(uint32_t code)
{
    static const name_entry t[] = {
        {1, "COUNTERSET_INFO"},        {2, "COUNTER_INFO"},  {3, "COUNTERSET_NAME"},
        {4, "COUNTERSET_HELP"},        {5, "COUNTER_NAMES"}, {6, "COUNTER_HELP"},
        {7, "PROVIDER_NAME"},          {8, "PROVIDER_GUID"}, {9, "COUNTERSET_ENGLISH_NAME"},
        {10, "COUNTER_ENGLISH_NAMES"},
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
        "PERF_ATTRIB_BY_REFERENCE",    "PERF_ATTRIB_NO_DISPLAYABLE", "PERF_ATTRIB_NO_GROUP_SEPARATOR",
        "PERF_ATTRIB_DISPLAY_AS_REAL", "PERF_ATTRIB_DISPLAY_AS_HEX",
    };
    return bit < 5 ? t[bit] : NULL;
}

const char *pcq_field_value_name(const pcq_field *f, uint64_t v)
{
    uint32_t u = (uint32_t)v;
    if (!f || v > 0xFFFFFFFFu) return NULL;
    switch (f->show) {
    case PCQ_SHOW_ID:
        if (u != 0xFFFFFFFFu) return NULL;
        if (strcmp(f->abbrev, "string.offset") == 0) return "absent";
        return strcmp(f->what, COUNTER_IDENTIFIER_NAME ".CounterId") == 0 ? "wildcard" : "none";
    case PCQ_SHOW_STATUS: return pcq_win32_status_name(u);
    case PCQ_SHOW_BLOCK_TYPE: return pcq_block_type_name(u);
    case PCQ_SHOW_COUNTER_TYPE: return pcq_counter_type_name(u);
    case PCQ_SHOW_DETAIL_LEVEL: return pcq_detail_level_name(u);
    case PCQ_SHOW_INSTANCE_TYPE: return pcq_instance_type_name(u);
    case PCQ_SHOW_AGGREGATE: return pcq_aggregate_name(u);
    default: return NULL;
    }
}

/* ---- kinds (§3.1.4.1) ---- */
static const char *const kind_names[PCQ_KIND_END_] = {
    "none", "counterset-info", "counter-info", "strings",     "string",
    "guid", "guids",           "instances",    "identifiers", "data",
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
    case 3:
    case 4:
    case 7:
    case 9: return PCQ_KIND_STRING;
    case 5:
    case 6:
    case 10: return PCQ_KIND_STRINGS;
    case 8: return PCQ_KIND_GUID;
    default: return PCQ_KIND_NONE;
    }
}

/* ======================================================================== */
/* 4. Checks                                                                */
/* ======================================================================== */

/* §2.2.4.2 Attrib: bits 0x01..0x10 only; "no display" (0x2) not with 0x4,
 * 0x8 or 0x10; "no group separator" (0x4) or "real" (0x8) not with hex (0x10). */
static int attrib_ok(uint64_t a)
{
    if (a & ~(uint64_t)0x1F) return 0;
    if ((a & 0x2) && (a & 0x1C)) return 0;
    if ((a & 0x10) && (a & 0x0C)) return 0;
    return 1;
}

/* ---- set-wide: a table of entry indexes sorted by a key ----------------- */
/* A counterset's counters by (CounterId, index), a string block's present
 * entries by (start, index), in the walk's own table for up to
 * PCQ_PAIR_CHECK_MAX entries, else in the caller's scratch. The keys are read
 * from the buffer, so the table holds nothing but indexes. The sort is a
 * stable LSD radix sort on the 32-bit key (ties keep their index order): four
 * passes of one byte, each linear, through the second half of the table (the
 * lens, unused until the entries are sorted); O(n) whatever the keys are,
 * where a comparison sort was O(n log n) (D11). */
typedef struct set_ctx {
    const uint8_t *b;
    int strings; /* keys: string starts; else counter ids */
    size_t base; /* strings: the convention's base */
    size_t size; /* strings: dwSize; a start at or past it sorts last */
} set_ctx;

static uint32_t *tab_of(pcq_walk *w)
{
    return w->scratch ? w->scratch : w->table;
}

static uint32_t tab_get(const pcq_walk *w, size_t i)
{
    return w->scratch ? w->scratch[i] : w->table[i];
}

static void tab_put(pcq_walk *w, size_t i, uint32_t v)
{
    tab_of(w)[i] = v;
}

static uint64_t set_key(const set_ctx *c, uint32_t i)
{
    if (c->strings)
        return c->base + ld32(c->b + STRING_BUFFER_HEADER_SIZE + (size_t)i * STRING_COUNTER_HEADER_SIZE +
                              STRING_COUNTER_HEADER_dwOffset);
    return ld32(c->b + COUNTERSET_REG_INFO_SIZE + (size_t)i * COUNTER_REG_INFO_SIZE);
}

/* The key the sort orders by: a start inside the block (< dwSize, so
 * 32-bit), or dwSize for one outside it (the walk's error when it reaches
 * the entry): no key of a block has more bytes than its dwSize, so the sort
 * passes over the bytes they all share (one entry out of the block made it
 * 0xFFFFFFFF, and every pass run: bench/hostile.c `strings-sorted`); a
 * CounterId as is. */
static uint32_t sort_key(const set_ctx *c, uint32_t i)
{
    uint64_t k = set_key(c, i);
    return c->strings && k >= c->size ? (uint32_t)c->size : (uint32_t)k;
}

/* Sorts tab[0..n) by sort_key, stably, through aux[0..n). */
static void set_sort(const set_ctx *c, uint32_t *tab, uint32_t *aux, size_t n)
{
    uint32_t count[4][256], *from = tab, *to = aux, *t, sum, x;
    size_t i;
    unsigned d, k;
    if (n < 32) { /* a few: an insertion sort (stable), without clearing the counts */
        for (i = 1; i < n; i++) {
            size_t j = i;
            uint32_t e = tab[i], ke = sort_key(c, e);
            for (; j > 0 && sort_key(c, tab[j - 1]) > ke; j--) tab[j] = tab[j - 1];
            tab[j] = e;
        }
        return;
    }
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++) {
        uint32_t key = sort_key(c, tab[i]);
        for (d = 0; d < 4; d++) count[d][(key >> (8 * d)) & 0xFF]++;
    }
    for (d = 0; d < 4; d++) {
        if (count[d][(sort_key(c, tab[0]) >> (8 * d)) & 0xFF] == n) continue; /* one digit: nothing moves */
        for (k = 0, sum = 0; k < 256; k++) {
            x = count[d][k];
            count[d][k] = sum;
            sum += x;
        }
        for (i = 0; i < n; i++) to[count[d][(sort_key(c, from[i]) >> (8 * d)) & 0xFF]++] = from[i];
        t = from;
        from = to;
        to = t;
    }
    if (from != tab) memcpy(tab, from, n * sizeof *tab);
}

/* Gets room for a set of n entries (2 words each: the sorted indexes, and
 * what is kept of each): the walk's table, else the caller's scratch. 1, or
 * 0 after PCQ_DIAG_CHECK_SKIPPED at `at`. */
static int set_room(rd *r, size_t n, size_t at, const char *what)
{
    pcq_walk *w = r->w;
    const pcq_opts *o = w->opts;
    w->scratch = NULL;
    w->lens = w->table + PCQ_PAIR_CHECK_MAX;
    if (n <= PCQ_PAIR_CHECK_MAX) return 1;
    if (o && o->scratch && o->scratch_size / PCQ_SCRATCH_PER_ENTRY >= n) {
        w->scratch = (uint32_t *)o->scratch;
        w->lens = w->scratch + n;
        return 1;
    }
    rd_diag(r, PCQ_DIAG_CHECK_SKIPPED, at, what);
    return 0;
}

/* The first counter (lowest index) whose CounterId is id: its index, or -1. */
static long counter_find(const pcq_walk *w, uint32_t id)
{
    const uint32_t *keys = w->lens, *at = keys; /* the sorted CounterIds (counters_prepare) */
    size_t n = w->nsorted, half;
    if (PCQ_NEVER(n == 0)) return -1; /* a counter is being checked: the set has one */
    while (n > 1) { /* the first key >= id is in [at, at + n]: halve without a branch to mispredict */
        half = n / 2;
        at = at[half] < id ? at + half : at;
        n -= half;
    }
    n = (size_t)(at - keys) + (*at < id);
    return n < w->nsorted && keys[n] == id ? (long)tab_get(w, n) : -1;
}

/* Prepares the set-wide checks of a counterset whose n counters are all in
 * the input: sorted by CounterId. */
static void counters_prepare(rd *r, uint32_t n)
{
    pcq_walk *w = r->w;
    set_ctx c;
    uint32_t i;
    w->set_checks = 0;
    w->nsorted = 0;
    if (!set_room(r, n, COUNTERSET_REG_INFO_NumCounters, COUNTERSET_REG_INFO_NAME ".NumCounters")) {
        w->set_checks = -1;
        return;
    }
    c.b = r->b;
    c.strings = 0;
    c.base = 0;
    c.size = 0;
    for (i = 0; i < n; i++) tab_put(w, i, i);
    if (n) set_sort(&c, tab_of(w), w->lens, n);
    for (i = 0; i < n; i++)
        w->lens[i] = (uint32_t)set_key(&c, tab_get(w, i)); /* the keys, for counter_find */
    w->nsorted = n;
    w->set_checks = 1;
}

/* Counter `id` exists (its first occurrence) with type `type`? */
static int related_ok(rd *r, uint32_t id, uint32_t type)
{
    long k = counter_find(r->w, id);
    return k >= 0 && ld32(r->b + COUNTERSET_REG_INFO_SIZE + (size_t)k * COUNTER_REG_INFO_SIZE +
                          COUNTER_REG_INFO_Type) == type;
}

/* The set-wide rule of field CK_UNIQUE / CK_REL_* of counter i at `at`. */
static int set_rule_ok(rd *r, int check, uint32_t i, size_t at)
{
    const uint8_t *p = r->b + at;
    uint32_t base_type;
    unsigned req;
    if (check == CK_UNIQUE) return counter_find(r->w, ld32(p)) == (long)i;
    req = pcq_counter_type_requires(ld32(p + COUNTER_REG_INFO_Type), &base_type);
    switch (check) {
    case CK_REL_BASE:
        return !(req & PCQ_REQ_BASE) || related_ok(r, ld32(p + COUNTER_REG_INFO_BaseCounterId), base_type);
    case CK_REL_TIME:
        return !(req & PCQ_REQ_TIME) ||
               related_ok(r, ld32(p + COUNTER_REG_INFO_PerfTimeId), 0x00010100u); /* LARGE_RAWCOUNT */
    case CK_REL_FREQ:
        return !(req & PCQ_REQ_TIME) || related_ok(r, ld32(p + COUNTER_REG_INFO_PerfFreqId), 0x00010100u);
    default:
        return !(req & PCQ_REQ_MULTI) ||
               related_ok(r, ld32(p + COUNTER_REG_INFO_MultiId), 0x00010000u); /* RAWCOUNT */
    }
}

/* ---- per field: the check column of the layout ------------------------- */
/* The diagnostic of one field's rule, or 0 when it holds. */
static int field_rule(rd *r, int check, const pcq_field *f, size_t at, uint32_t index)
{
    uint64_t v = field_at(f, r->b + at + f->offset); /* the caller checked the bytes are there */
    switch (check) {
    case CK_RESERVED: return v ? PCQ_DIAG_RESERVED : 0;
    case CK_CSET_TYPE: return v ? PCQ_DIAG_COUNTERSET_TYPE : 0;
    case CK_DETAIL: return v != 100 && v != 200 ? PCQ_DIAG_DETAIL_LEVEL : 0;
    case CK_INSTANCE_TYPE: return pcq_instance_type_name((uint32_t)v) ? 0 : PCQ_DIAG_INSTANCE_TYPE;
    case CK_COUNTER_TYPE: return pcq_counter_type_is_known((uint32_t)v) ? 0 : PCQ_DIAG_COUNTER_TYPE;
    case CK_ATTRIB: return attrib_ok(v) ? 0 : PCQ_DIAG_ATTRIB;
    case CK_SCALE: return v + 10 > 20 ? PCQ_DIAG_DEFAULT_SCALE : 0; /* -10..10, sign-extended */
    case CK_AGGREGATE: return v > 4 ? PCQ_DIAG_AGGREGATE_FUNC : 0;
    case CK_SIZE8: return v % 8 ? PCQ_DIAG_SIZE_NOT_MULTIPLE_OF_8 : 0;
    case CK_UNIQUE:
        return r->w->set_checks > 0 && !set_rule_ok(r, check, index, at) ? PCQ_DIAG_DUPLICATE_ID : 0;
    default: /* CK_REL_* */
        return r->w->set_checks > 0 && !set_rule_ok(r, check, index, at) ? PCQ_DIAG_RELATED_COUNTER : 0;
    }
}

static void set_prepare(rd *r, int type);

/* Every rule of the structure of `type` at `at`, in wire order: where it
 * starts, then its fields' rules in field order. Its fixed part is in the
 * input. */
static PCQ_NOINLINE int field_checks(rd *r, int type, size_t at, uint32_t index)
{
    const pcq_struct_info *s = &layouts[type].info;
    const unsigned char *checks = layouts[type].checks;
    size_t i;
    int code, rc;
    /* §2.2.4: "All the structures MUST begin on 8-byte boundaries." */
    if ((at & 7u) && (rc = rd_diag(r, PCQ_DIAG_UNALIGNED, at, s->name)) != 0) return rc;
    for (i = 0; checks && i < s->nfields; i++) {
        if (checks[i] == CK_SET) {
            set_prepare(r, type);
            continue;
        }
        if (!checks[i] || !(code = field_rule(r, checks[i], &s->fields[i], at, index))) continue;
        if ((rc = rd_diag(r, code, at + s->fields[i].offset, s->fields[i].what)) != 0) return rc;
    }
    return PCQ_OK;
}

/* The field checks when diagnostics are looked for: without them (decode
 * without a callback, the iterators) a test, not a call. */
static PCQ_INLINE int check_fields(rd *r, int type, size_t at, uint32_t index)
{
    return diags_on(r->w) ? field_checks(r, type, at, index) : PCQ_OK;
}

/* Non-zero padding where the spec says 0: offset of the first such byte. */
static int check_zero(rd *r, size_t pos, size_t end, const char *what)
{
    if (!diags_on(r->w)) return PCQ_OK;
    for (; pos < end; pos++)
        if (r->b[pos]) return rd_diag(r, PCQ_DIAG_PADDING, pos, what);
    return PCQ_OK;
}

/* ---- string blocks: where strings end, and the dwOffset convention ------ */

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

typedef struct sblock {
    const uint8_t *b;
    size_t size;     /* dwSize (<= the input) */
    uint32_t n;      /* dwCounters */
    size_t area;     /* 8 + 8 n: where the strings may start */
    size_t after[2]; /* last_nuls() */
    int ascending;   /* read_entries(): the offsets never decrease; -1: not known */
} sblock;

static uint32_t entry_offset(const sblock *s, uint32_t i)
{
    return ld32(s->b + STRING_BUFFER_HEADER_SIZE + (size_t)i * STRING_COUNTER_HEADER_SIZE +
                STRING_COUNTER_HEADER_dwOffset);
}

/* Where the last string ends (after its NUL), from the greatest start of
 * each parity (+ 1; 0: none), or the area start when no string is present.
 * The NUL of a string starting at s is the first of its parity at or after
 * s, so the string with the greatest start of each parity ends last: two
 * scans. */
static size_t last_end(const sblock *s, const size_t maxs[2])
{
    size_t end = s->area, e, k;
    for (k = 0; k < 2; k++) {
        if (!maxs[k]) continue;
        e = find_nul16(s->b, maxs[k] - 1, s->size) + NUL16_SIZE;
        if (e > end) end = e;
    }
    return end;
}

/* Where the last string ends when dwOffset counts from `base`. Every
 * present entry must have been checked (read_entries). */
static size_t strings_end(const sblock *s, size_t base)
{
    size_t maxs[2] = {0, 0}, k;
    uint32_t i, off;
    for (i = 0; i < s->n; i++) {
        if ((off = entry_offset(s, i)) == PCQ_STRING_ABSENT) continue;
        k = (base + off) % 2;
        if (base + off + 1 > maxs[k]) maxs[k] = base + off + 1;
    }
    return last_end(s, maxs);
}

/* The two readings of dwOffset, from the block ([0], Win32) and from the
 * area ([1], the spec), and what else the entries say, in one pass over
 * them. A reading is consistent (ok) when every present entry's string
 * starts inside the string area and has its NUL before dwSize, and the last
 * string ends within 8 bytes of dwSize (D6). */
typedef struct readings {
    int ok[2];
    size_t min_start[2]; /* the smallest start */
    size_t end[2];       /* where the last string ends, when ok */
    uint32_t min;        /* the smallest dwOffset (PCQ_STRING_ABSENT: none present) */
    int ascending;       /* the present entries' dwOffsets never decrease */
} readings;

/* One reading's check of an entry at off (from base), for read_entries. */
static PCQ_FORCE_INLINE void read_entry(const sblock *s, uint32_t off, size_t base, int *ok,
                                        size_t *min_start, size_t maxs[2])
{
    size_t start = base + off;
    if (off >= s->size - base || start < s->area || start >= s->after[start % 2]) {
        *ok = 0;
        return;
    }
    if (start < *min_start) *min_start = start;
    if (start + 1 > maxs[start % 2]) maxs[start % 2] = start + 1; /* + 1: 0 is "none" */
}

static void read_entries(const sblock *s, readings *rs)
{
    size_t maxs0[2] = {0, 0}, maxs1[2] = {0, 0}, min0 = (size_t)-1, min1 = (size_t)-1;
    uint32_t i, off, prev = 0, min = PCQ_STRING_ABSENT;
    int ok0 = 1, ok1 = 1, ascending = 1;
    for (i = 0; i < s->n; i++) {
        if ((off = entry_offset(s, i)) == PCQ_STRING_ABSENT) continue;
        ascending &= off >= prev;
        prev = off;
        if (off < min) min = off;
        if (ok0) read_entry(s, off, 0, &ok0, &min0, maxs0);
        if (ok1) read_entry(s, off, s->area, &ok1, &min1, maxs1);
    }
    rs->min = min;
    rs->ascending = ascending;
    rs->min_start[0] = min0;
    rs->min_start[1] = min1;
    rs->end[0] = ok0 ? last_end(s, maxs0) : 0;
    rs->end[1] = ok1 ? last_end(s, maxs1) : 0;
    rs->ok[0] = ok0 && s->size - rs->end[0] < 8;
    rs->ok[1] = ok1 && s->size - rs->end[1] < 8;
}

/* The convention of a block (docs/decisions.md D4). Both readings are
 * checked against every entry, the NULs and dwSize; the one that holds wins
 * (both cannot, but the one that starts its strings at the area would). When
 * neither holds, the smallest offset decides as before (spec iff below the
 * area), and the walk then reports what breaks under that reading. */
static pcq_str_convention decide_convention(const sblock *s, const readings *rs)
{
    if (rs->min == PCQ_STRING_ABSENT) return PCQ_STROFF_NONE;
    if (rs->ok[0] && rs->ok[1])
        return rs->min_start[1] == s->area && rs->min_start[0] != s->area ? PCQ_STROFF_SPEC
                                                                          : PCQ_STROFF_WIN32;
    if (rs->ok[0] || rs->ok[1]) return rs->ok[0] ? PCQ_STROFF_WIN32 : PCQ_STROFF_SPEC;
    return (size_t)rs->min < s->area ? PCQ_STROFF_SPEC : PCQ_STROFF_WIN32;
}

static size_t convention_base(const sblock *s, pcq_str_convention c)
{
    return c == PCQ_STROFF_SPEC ? s->area : 0;
}

/* The NUL that ends the text at `start`: the first at or after it, of its
 * parity. Callers go in ascending order of start (the entries sorted, or
 * ascending already), so a text that starts inside the last one measured of
 * its parity ends where it ended, and the texts cost their bytes once in
 * all however they share them (D11). */
static size_t text_end(pcq_walk *w, const uint8_t *b, size_t size, size_t start)
{
    size_t p = start % 2, *from = &w->memo[p], *nul = &w->memo[2 + p];
    if (*nul && PCQ_ALWAYS(start >= *from) && start <= *nul) return *nul;
    *from = start;
    return *nul = find_nul16(b, start, size);
}

/* Prepares what needs the entries in order of their starts: the
 * unreferenced-bytes check, and the walk's measure of each text (lens[i]:
 * the NUL of entry i's text), in one sweep. Entries whose starts already
 * ascend need no table: the sweep is the walk's own. */
static void strings_prepare(rd *r, const sblock *s, size_t base)
{
    pcq_walk *w = r->w;
    set_ctx c;
    uint32_t i, n = 0, k, off, prev = 0;
    int ascending = s->ascending;
    w->set_checks = 0;
    w->nsorted = 0;
    w->chunk = 0;
    w->memo[0] = w->memo[1] = w->memo[2] = w->memo[3] = 0;
    if (ascending < 0) { /* not known yet (set_prepare): do the present entries' offsets ascend? */
        for (i = 0; i < s->n; i++) {
            if ((off = entry_offset(s, i)) == PCQ_STRING_ABSENT) continue;
            if (off < prev) break;
            prev = off;
        }
        ascending = i == s->n;
    }
    w->set_checks = 2; /* 2: ascending, no table */
    if (ascending) return;
    if (!set_room(r, s->n, STRING_BUFFER_HEADER_dwCounters, STRING_BUFFER_HEADER_NAME ".dwCounters")) {
        w->set_checks = -1;
        return;
    }
    c.b = s->b;
    c.strings = 1;
    c.base = base;
    c.size = s->size;
    for (i = 0, n = 0; i < s->n; i++)
        if (entry_offset(s, i) != PCQ_STRING_ABSENT) tab_put(w, n++, i);
    if (n) set_sort(&c, tab_of(w), w->lens, n);
    for (k = 0; k < n; k++) { /* in order of start: each text's bytes scanned once */
        i = tab_get(w, k);
        /* A start outside the block is the walk's error when it reaches the
         * entry; only starts inside it are measured (base <= size). */
        w->lens[i] = (uint32_t)(entry_offset(s, i) < s->size - base
                                    ? text_end(w, s->b, s->size, base + entry_offset(s, i))
                                    : s->size);
    }
    w->memo[0] = w->memo[1] = w->memo[2] = w->memo[3] = 0;
    w->nsorted = n;
    w->set_checks = 1;
}

/* ---- the NUL map: texts measured without room to sort their entries ---- */

/* A string block of more entries than the walk's table, out of order, and no
 * scratch: the walk measures each text with a map of where the NULs are,
 * made in one pass the first time it needs it. The block from where its
 * texts can start (map_from: the header array holds none, and a block of
 * many entries is mostly header array) is cut into chunks of `chunk` bytes
 * (a multiple of 8: the smallest for which the table has a bit a chunk);
 * for each parity, bit c says that a NUL of that parity starts in chunk c,
 * and a summary bit says which words of those bits are not zero. A text's
 * NUL is then found by scanning the rest of its chunk, then the summary and
 * two words of the map, and the chunk that has it: at most two chunks and
 * 1/33 of the table an entry, however the entries share text (D11). Per
 * parity the table holds n1 words of chunk bits, then n2 summary words
 * (n1 <= 32 n2). */
#define MAP_NONE ((size_t)-1)

static void map_geometry(size_t *n1, size_t *n2)
{
    *n2 = PCQ_PAIR_CHECK_MAX >= 2 ? (PCQ_PAIR_CHECK_MAX + 32) / 33 : 0;
    *n1 = PCQ_PAIR_CHECK_MAX - *n2;
}

static unsigned ctz32(uint32_t x) /* x != 0 */
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(x);
#else
    unsigned n = 0;
    for (; !(x & 1u); x >>= 1) n++;
    return n;
#endif
}

/* Where a scan of the chunk from at stops: its end, or the block's. */
static size_t chunk_end(size_t at, size_t chunk, size_t size)
{
    return size - at > chunk ? at + chunk : size;
}

/* One pass from map_from (8-aligned, at or before every start the walk
 * measures; the header array before it holds no text): each chunk's words
 * give its even units, and with the next byte its odd ones (a unit must fit
 * before size); then the summary. */
static void map_build(pcq_walk *w, const uint8_t *b, size_t size)
{
    uint32_t *l1 = w->table;
    size_t n1, n2, c, i, p, at = w->map_from, end, chunk;
    uint64_t even, odd, x;
    map_geometry(&n1, &n2);
    chunk = ((size - at) / (32 * n1) + 8) & ~(size_t)7; /* > (size - at) / bits: chunk c < bits */
    memset(w->table, 0, sizeof w->table);
    for (c = 0; at < size; c++, at = end) {
        end = chunk_end(at, chunk, size);
        for (even = odd = 0; end - at >= 8 && size - at >= 9; at += 8) {
            x = ld64(b + at);
            even |= has_nul16(x);
            odd |= has_nul16(x >> 8 | (uint64_t)b[at + 8] << 56);
        }
        for (; at < end && size - at >= 2; at++) /* the block's last bytes */
            if (b[at] == 0 && b[at + 1] == 0) *(at % 2 ? &odd : &even) = 1;
        l1[c / 32] |= (uint32_t)(even != 0) << (c % 32);
        l1[PCQ_PAIR_CHECK_MAX + c / 32] |= (uint32_t)(odd != 0) << (c % 32);
    }
    for (p = 0; p < 2 * PCQ_PAIR_CHECK_MAX && n2; p += PCQ_PAIR_CHECK_MAX)
        for (i = 0; i < (c + 31) / 32; i++) l1[p + n1 + i / 32] |= (uint32_t)(l1[p + i] != 0) << (i % 32);
    w->chunk = chunk;
}

/* The first chunk at or after c with its bit set, or MAP_NONE: the rest
 * of c's word, then the summary (a bit a word; n1 > 1 means n2 > 0). */
static size_t map_next(const uint32_t *l1, size_t n1, size_t c)
{
    size_t i = c / 32;
    uint32_t x = i < n1 ? l1[i] >> (c % 32) : 0;
    if (x) return c + ctz32(x);
    for (i++; i < n1 && (x = l1[n1 + i / 32] >> (i % 32)) == 0;) i = (i / 32 + 1) * 32;
    if (PCQ_NEVER(i >= n1)) return MAP_NONE;
    i += ctz32(x);
    return i * 32 + ctz32(l1[i]);
}

/* What text_end says (the first NUL at or after start, of its parity, or
 * size), from the map, in any order of start. The last text measured of each
 * parity is remembered, as text_end does: a start inside it ends where it
 * ends, and a start a little before it needs only the bytes up to it. */
static size_t map_text_end(pcq_walk *w, const uint8_t *b, size_t size, size_t start)
{
    size_t p = start % 2, *from = &w->memo[p], *nul = &w->memo[2 + p], n1, n2, at, c, end, q;
    if (*nul && start <= *nul && start < *from && *from - start <= 2 * w->chunk) {
        q = find_nul16_inline(b, start, *from); /* just before the last text of its parity: the gap decides */
        if (q < *from) *nul = q;
        *from = start;
        return *nul;
    }
    if (*nul && start >= *from && start <= *nul) return *nul; /* inside the last text of its parity */
    *from = start;
    if (PCQ_NEVER(start < w->map_from)) return *nul = find_nul16(b, start, size);
    if (!w->chunk) map_build(w, b, size);
    map_geometry(&n1, &n2);
    c = (start - w->map_from) / w->chunk;
    at = w->map_from + c * w->chunk + p; /* <= start: chunks start even */
    end = chunk_end(at, w->chunk, size);
    if ((*nul = find_nul16_inline(b, start, end)) < end) return *nul;
    c = map_next(w->table + p * PCQ_PAIR_CHECK_MAX, n1, c + 1); /* not MAP_NONE: start has a NUL (aux) */
    if (PCQ_NEVER(c == MAP_NONE)) return *nul = size;
    at = w->map_from + c * w->chunk + p;
    return *nul = find_nul16_inline(b, at, chunk_end(at, w->chunk, size));
}

/* The set-wide checks of a counterset (its counters must all be in the
 * input) or a string block (whole, its convention decided): the CK_SET rule
 * of their count field. */
static void set_prepare(rd *r, int type)
{
    sblock sb;
    uint32_t n;
    if (type == PCQ_S_COUNTERSET_REG_INFO) {
        n = ld32(r->b + COUNTERSET_REG_INFO_NumCounters);
        if (n <= (r->len - COUNTERSET_REG_INFO_SIZE) / COUNTER_REG_INFO_SIZE) counters_prepare(r, n);
        return;
    }
    sb.b = r->b;
    sb.size = ld32(r->b + STRING_BUFFER_HEADER_dwSize);
    sb.n = ld32(r->b + STRING_BUFFER_HEADER_dwCounters);
    sb.area = STRING_BUFFER_HEADER_SIZE + (size_t)sb.n * STRING_COUNTER_HEADER_SIZE;
    sb.ascending = -1;
    strings_prepare(r, &sb, r->w->aux[2]);
}

/* The next present entry in order of start (after *k), or 0 at the end. */
static int strings_next(const pcq_walk *w, const sblock *s, uint32_t *k, uint32_t *entry)
{
    if (w->set_checks == 1) {
        if (*k >= w->nsorted) return 0;
        *entry = tab_get(w, (*k)++);
        return 1;
    }
    while (*k < s->n && entry_offset(s, *k) == PCQ_STRING_ABSENT) (*k)++;
    if (*k >= s->n) return 0;
    *entry = (*k)++;
    return 1;
}

/* Bytes of the string area that no string covers, each run reported at its
 * first byte (§3.1.4.1.2: the headers are followed by the strings; only the
 * padding to 8 at the end may be left). Linear: strings in order of start,
 * and the NUL of each parity remembered, so no byte is scanned twice. */
static int strings_unreferenced(rd *r, const sblock *s, size_t base)
{
    pcq_walk *w = r->w;
    size_t covered = s->area, start, end;
    uint32_t k = 0, i;
    int rc;
    if (w->set_checks < 1) return PCQ_OK;
    w->memo[0] = w->memo[1] = w->memo[2] = w->memo[3] = 0;
    while (strings_next(w, s, &k, &i)) {
        start = base + entry_offset(s, i);
        end = (w->set_checks == 1 ? w->lens[i] : text_end(w, s->b, s->size, start)) + NUL16_SIZE;
        if (start > covered && (rc = rd_diag(r, PCQ_DIAG_UNREFERENCED, covered, "string area")) != 0)
            return rc;
        if (end > covered) covered = end;
    }
    return PCQ_OK;
}

/* ======================================================================== */
/* 5. The parsers: one a structure, shared by the walk and the iterators.   */
/*                                                                          */
/* A frame is the container a structure sits in: [pos, end), where end is   */
/* the declared end and may lie past the input while the walk is lazily      */
/* reading a container that was cut (the prefix of a reply). Invariants:     */
/* pos <= end and pos <= len whenever a parser runs. A parser checks its     */
/* structure's fixed part and declared sizes against the frame and the      */
/* input, raises its diagnostics in wire order, fills its struct, and says  */
/* where it ends; it never steps into what the structure contains.          */
/* ======================================================================== */
typedef pcq_walk_frame_ frame;

/* Frame kinds: what a frame holds. */
enum {
    FR_ROOT = 1,      /* the buffer: its first structure, then its end checks */
    FR_COUNTERS,      /* counterset-info: NumCounters _PERF_COUNTER_REG_INFO   */
    FR_ENTRIES,       /* string block: dwCounters _STRING_COUNTER_HEADER       */
    FR_GUIDS,         /* opnum 0: GUIDs to the end of the input                */
    FR_INSTANCES,     /* opnum 2: _PERF_INSTANCE_HEADER + name to the end      */
    FR_IDENTIFIERS,   /* _PERF_COUNTER_IDENTIFIER + name to the end            */
    FR_BLOCKS,        /* data: dwNumCounter blocks inside dwTotalSize          */
    FR_BODY,          /* one block after its header (phases by dwType)         */
    FR_IDS,           /* a _PERF_MULTI_COUNTERS's counter ID array             */
    FR_VALUES,        /* _PERF_COUNTER_DATA: of a block, or of an instance     */
    FR_DATA_INSTANCES /* a _PERF_MULTI_INSTANCES's instances                   */
};

/* Frame flags. */
enum {
    /* `left` items; running dry blames count_at (the header's inline steps test it too) */
    FL_COUNTED = PCQ_FRAME_COUNTED_,
    /* after the last item, >= 8 unused bytes blame size_at */
    FL_EXACT = 2,
    /* bounded by the input (no size field): a count that runs past it is TRUNCATED at count_at */
    FL_INPUT = 4,
    /* its parent goes on where it ends (instance values) */
    FL_CONT = 8,
    /* PCQ_BULK: an instance was not canonical; the rest of the block is walked without the fast path */
    FL_SLOW = 16
};

/* [pos, pos + n), a fixed part, lies inside the frame and the input? Else
 * TRUNCATED (past the input) or EXCEEDS_CONTAINER at pos; a structure that
 * would start at the very end of the input blames the frame's size field,
 * so that every offset reported is inside the input. */
static PCQ_NOINLINE int need_fail(rd *r, const frame *f, size_t pos, size_t n, const char *what)
{
    int in = n <= r->len - pos;
    if (pos == r->len) return rd_fail(r, PCQ_ERR_TRUNCATED, f->size_at, f->size_what);
    return rd_fail(r, in ? PCQ_ERR_EXCEEDS_CONTAINER : PCQ_ERR_TRUNCATED, pos, what);
}

/* n bytes at pos inside the frame and the input (the test inline, the
 * error apart). */
static PCQ_INLINE int need(rd *r, const frame *f, size_t pos, size_t n, const char *what)
{
    return n <= r->len - pos && n <= f->end - pos ? PCQ_OK : need_fail(r, f, pos, n, what);
}

/* A size field at `at` declares `size` bytes from `start` (start <= end of
 * the frame): they must stay inside the frame. Past the input but inside
 * the frame is for the caller to judge (containers are read lazily, leaves
 * must be whole). */
static int sized(rd *r, const frame *f, size_t start, size_t size, size_t at, const char *what)
{
    if (size <= f->end - start) return PCQ_OK;
    return rd_fail(r, size > r->len - start ? PCQ_ERR_TRUNCATED : PCQ_ERR_EXCEEDS_CONTAINER, at, what);
}

/* A count at `at` of items of at least `min` bytes in [start, end), a
 * container: one it cannot hold is malformed, TRUNCATED when the input
 * cannot hold it either, else EXCEEDS_CONTAINER; one above the cap is LIMIT
 * when the bytes present could hold it, else TRUNCATED (docs/validation.md,
 * "Counts"). A count the container holds but the input does not is read
 * lazily: what is there is yielded first. */
static int count_ok(rd *r, size_t start, size_t end, uint32_t count, size_t min, uint32_t cap, size_t at,
                    const char *what)
{
    size_t have = end < r->len ? end : r->len;
    size_t in_input = r->len > start ? (r->len - start) / min : 0;
    if (count > (end - start) / min)
        return rd_fail(r, count > in_input ? PCQ_ERR_TRUNCATED : PCQ_ERR_EXCEEDS_CONTAINER, at, what);
    if (count <= cap) return PCQ_OK;
    return rd_fail(r, count > (have > start ? have - start : 0) / min ? PCQ_ERR_TRUNCATED : PCQ_ERR_LIMIT, at,
                   what);
}

/* _PERF_COUNTER_REG_INFO (§2.2.4.2). */
static void read_counter_reg(const uint8_t *p, pcq_counter_reg *c)
{
    c->counter_id = ld32(p + COUNTER_REG_INFO_CounterId);
    c->type = ld32(p + COUNTER_REG_INFO_Type);
    c->attrib = ld64(p + COUNTER_REG_INFO_Attrib);
    c->detail_level = ld32(p + COUNTER_REG_INFO_DetailLevel);
    c->default_scale = to_i32(ld32(p + COUNTER_REG_INFO_DefaultScale));
    c->base_counter_id = ld32(p + COUNTER_REG_INFO_BaseCounterId);
    c->perf_time_id = ld32(p + COUNTER_REG_INFO_PerfTimeId);
    c->perf_freq_id = ld32(p + COUNTER_REG_INFO_PerfFreqId);
    c->multi_id = ld32(p + COUNTER_REG_INFO_MultiId);
    c->aggregate_func = ld32(p + COUNTER_REG_INFO_AggregateFunc);
    c->reserved = ld32(p + COUNTER_REG_INFO_Reserved);
}

/* A header of `hdr` bytes whose Size field (at +size_off) covers the header,
 * a NUL-terminated UTF-16 name and padding (§2.2.4.5, §2.2.4.6): the header
 * fits; Size holds at least the header and the NUL, stays inside the frame
 * and the input; the NUL lies inside it; and fewer than 8 bytes follow the
 * NUL (D6: more would be room for a structure, not padding). *nul: the NUL. */
static int parse_named(rd *r, const frame *f, size_t at, int type, size_t hdr, const pcq_field *size_field,
                       uint32_t *size, size_t *nul)
{
    const pcq_struct_info *s = &layouts[type].info;
    const char *size_what = size_field->what;
    size_t size_off = size_field->offset;
    int rc;
    if ((rc = need(r, f, at, hdr, s->name)) != 0) return rc;
    *size = ld32(r->b + at + size_off);
    if (*size < hdr + NUL16_SIZE) return rd_fail(r, PCQ_ERR_SIZE_TOO_SMALL, at + size_off, size_what);
    if ((rc = sized(r, f, at, *size, at + size_off, size_what)) != 0) return rc;
    if (*size > r->len - at) return rd_fail(r, PCQ_ERR_TRUNCATED, at + size_off, size_what);
    *nul = find_nul16(r->b, at + hdr, at + *size);
    if (*nul == at + *size) /* the name comes last */
        return rd_fail(r, PCQ_ERR_NO_NUL, at + hdr, s->fields[s->nfields - 1].what);
    if (at + *size - *nul - NUL16_SIZE >= 8)
        return rd_fail(r, PCQ_ERR_COUNT_MISMATCH, at + size_off, size_what);
    return PCQ_OK;
}

/* _PERF_INSTANCE_HEADER + name of the opnum 2 array (Figure 3; its padding
 * is "uninitialized": unchecked). */
static int parse_instance(rd *r, const frame *f, size_t at, pcq_instance *out)
{
    uint32_t size;
    size_t nul;
    int rc;
    if ((rc = parse_named(r, f, at, PCQ_S_INSTANCE, INSTANCE_HEADER_SIZE, &INSTANCE_HEADER_fields[0], &size,
                          &nul)) != 0 ||
        (rc = check_fields(r, PCQ_S_INSTANCE, at, 0)) != 0)
        return rc;
    out->size = size;
    out->instance_id = ld32(r->b + at + INSTANCE_HEADER_InstanceId);
    out->name.ptr = r->b + at + INSTANCE_HEADER_InstanceName;
    out->name.len = nul - at - INSTANCE_HEADER_InstanceName;
    out->offset = at;
    return PCQ_OK;
}

/* _PERF_COUNTER_IDENTIFIER + name (Figure 4; padding MUST be 0, §3.1.4.1.5). */
static int parse_identifier(rd *r, const frame *f, size_t at, pcq_identifier *out)
{
    const uint8_t *p = r->b + at;
    uint32_t size;
    size_t nul;
    int rc;
    if ((rc = parse_named(r, f, at, PCQ_S_COUNTER_IDENTIFIER, COUNTER_IDENTIFIER_SIZE,
                          &COUNTER_IDENTIFIER_fields[2], &size, &nul)) != 0 ||
        (rc = check_fields(r, PCQ_S_COUNTER_IDENTIFIER, at, 0)) != 0 ||
        (rc = check_zero(r, nul + NUL16_SIZE, at + size, COUNTER_IDENTIFIER_NAME " name padding")) != 0)
        return rc;
    read_guid_at(p, &out->guid);
    out->status = ld32(p + COUNTER_IDENTIFIER_Status);
    out->size = size;
    out->counter_id = ld32(p + COUNTER_IDENTIFIER_CounterId);
    out->instance_id = ld32(p + COUNTER_IDENTIFIER_InstanceId);
    out->index = ld32(p + COUNTER_IDENTIFIER_Index);
    out->reserved = ld32(p + COUNTER_IDENTIFIER_Reserved);
    out->name.ptr = p + COUNTER_IDENTIFIER_InstanceName;
    out->name.len = nul - at - COUNTER_IDENTIFIER_InstanceName;
    out->offset = at;
    return PCQ_OK;
}

/* _PERF_DATA_HEADER (§2.2.4.7) at 0, the input's own frame. */
static void read_data_header(const uint8_t *b, size_t len, pcq_data *d)
{
    d->total_size = ld32(b + DATA_HEADER_dwTotalSize);
    d->num_counters = ld32(b + DATA_HEADER_dwNumCounter);
    d->perf_time_stamp = ld64(b + DATA_HEADER_PerfTimeStamp);
    d->perf_time_100nsec = ld64(b + DATA_HEADER_PerfTime100NSec);
    d->perf_freq = ld64(b + DATA_HEADER_PerfFreq);
    d->system_time.year = ld16(b + DATA_HEADER_wYear);
    d->system_time.month = ld16(b + DATA_HEADER_wMonth);
    d->system_time.day_of_week = ld16(b + DATA_HEADER_wDayOfWeek);
    d->system_time.day = ld16(b + DATA_HEADER_wDay);
    d->system_time.hour = ld16(b + DATA_HEADER_wHour);
    d->system_time.minute = ld16(b + DATA_HEADER_wMinute);
    d->system_time.second = ld16(b + DATA_HEADER_wSecond);
    d->system_time.milliseconds = ld16(b + DATA_HEADER_wMilliseconds);
    d->buf = b;
    d->buf_len = len;
    d->flags = 0;
}

/* dwTotalSize covers at least the header; dwNumCounter blocks of at least 16
 * bytes fit it. dwTotalSize past the input is read lazily. */
static int parse_data_header(rd *r, const frame *f, pcq_data *d)
{
    int rc;
    if ((rc = need(r, f, 0, DATA_HEADER_SIZE, DATA_HEADER_NAME)) != 0) return rc;
    read_data_header(r->b, r->len, d);
    if (d->total_size < DATA_HEADER_SIZE)
        return rd_fail(r, PCQ_ERR_SIZE_TOO_SMALL, 0, DATA_HEADER_NAME ".dwTotalSize");
    return count_ok(r, DATA_HEADER_SIZE, d->total_size, d->num_counters, COUNTER_HEADER_SIZE,
                    PCQ_MAX_COUNTERS, DATA_HEADER_dwNumCounter, DATA_HEADER_NAME ".dwNumCounter");
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
    return t == 0   ? COUNTER_HEADER_SIZE
           : t == 6 ? COUNTER_HEADER_SIZE + MULTI_COUNTERS_SIZE + MULTI_INSTANCES_SIZE
                    : COUNTER_HEADER_SIZE + 8;
}

/* Every field of a block 0, one by one: gcc 12 makes a memset of more than
 * 80 bytes (this is 136) a `rep stos`, whose start costs tens of cycles, and
 * the walk clears a block each step. */
static void block_clear(pcq_block *b)
{
    b->status = b->type = b->size = b->reserved = 0;
    b->offset = 0;
    pcq_value_none_(&b->value);
    b->multi_size = b->num_counters = 0;
    b->counter_ids.ptr = NULL;
    b->counter_ids.len = 0;
    b->instances_size = b->num_instances = 0;
    b->multi_at = b->instances_at = 0;
    b->body = b->body_end = 0;
}

/* _PERF_COUNTER_HEADER (§2.2.4.8): a known dwType, a dwSize that holds what
 * the type requires and stays inside dwTotalSize. */
static int parse_block(rd *r, const frame *f, size_t at, pcq_block *b)
{
    const uint8_t *p = r->b + at;
    int rc;
    if ((rc = need(r, f, at, COUNTER_HEADER_SIZE, COUNTER_HEADER_NAME)) != 0) return rc;
    block_clear(b);
    b->offset = at;
    b->status = ld32(p + COUNTER_HEADER_dwStatus);
    b->type = ld32(p + COUNTER_HEADER_dwType);
    b->size = ld32(p + COUNTER_HEADER_dwSize);
    b->reserved = ld32(p + COUNTER_HEADER_Reserved);
    if (!block_type_ok(b->type))
        return rd_fail(r, PCQ_ERR_BAD_BLOCK_TYPE, at + COUNTER_HEADER_dwType, COUNTER_HEADER_NAME ".dwType");
    if (b->size < block_min_size(b->type))
        return rd_fail(r, PCQ_ERR_SIZE_TOO_SMALL, at + COUNTER_HEADER_dwSize, COUNTER_HEADER_NAME ".dwSize");
    if ((rc = sized(r, f, at, b->size, at + COUNTER_HEADER_dwSize, COUNTER_HEADER_NAME ".dwSize")) != 0)
        return rc;
    if ((rc = check_fields(r, PCQ_S_COUNTER_HEADER, at, 0)) != 0) return rc;
    b->body = b->body_end = at + COUNTER_HEADER_SIZE;
    return PCQ_OK;
}

/* _PERF_MULTI_COUNTERS (§2.2.4.11, Figure 7): dwSize holds the ID array,
 * and beyond it only padding to 8 (D6). The array is read lazily. */
static int parse_multi_counters(rd *r, const frame *f, size_t at, uint32_t *size, uint32_t *count)
{
    const char *size_what = MULTI_COUNTERS_NAME ".dwSize";
    const char *count_what = MULTI_COUNTERS_NAME ".dwCounters";
    int rc;
    if ((rc = need(r, f, at, MULTI_COUNTERS_SIZE, MULTI_COUNTERS_NAME)) != 0) return rc;
    *size = ld32(r->b + at + MULTI_COUNTERS_dwSize);
    *count = ld32(r->b + at + MULTI_COUNTERS_dwCounters);
    if (*size < MULTI_COUNTERS_SIZE) return rd_fail(r, PCQ_ERR_SIZE_TOO_SMALL, at, size_what);
    if ((rc = sized(r, f, at, *size, at, size_what)) != 0) return rc;
    if ((rc = count_ok(r, at + MULTI_COUNTERS_SIZE, at + *size, *count, COUNTER_ID_SIZE, PCQ_MAX_COUNTERS,
                       at + MULTI_COUNTERS_dwCounters, count_what)) != 0)
        return rc;
    if (*size - MULTI_COUNTERS_SIZE - (size_t)*count * COUNTER_ID_SIZE >= 8)
        return rd_fail(r, PCQ_ERR_COUNT_MISMATCH, at, size_what);
    return check_fields(r, PCQ_S_MULTI_COUNTERS, at, 0);
}

/* _PERF_MULTI_INSTANCES (§2.2.4.10): dwTotalSize bounds the instances, each
 * at least a header, a NUL and `nvalues` 8-byte _PERF_COUNTER_DATA. */
static int parse_multi_instances(rd *r, const frame *f, size_t at, uint32_t nvalues, uint32_t *size,
                                 uint32_t *count)
{
    const char *size_what = MULTI_INSTANCES_NAME ".dwTotalSize";
    size_t min = INSTANCE_HEADER_SIZE + NUL16_SIZE + (size_t)nvalues * COUNTER_DATA_SIZE;
    int rc;
    if ((rc = need(r, f, at, MULTI_INSTANCES_SIZE, MULTI_INSTANCES_NAME)) != 0) return rc;
    *size = ld32(r->b + at + MULTI_INSTANCES_dwTotalSize);
    *count = ld32(r->b + at + MULTI_INSTANCES_dwInstances);
    if (*size < MULTI_INSTANCES_SIZE) return rd_fail(r, PCQ_ERR_SIZE_TOO_SMALL, at, size_what);
    if ((rc = sized(r, f, at, *size, at, size_what)) != 0) return rc;
    if ((rc = count_ok(r, at + MULTI_INSTANCES_SIZE, at + *size, *count, min, PCQ_MAX_INSTANCES,
                       at + MULTI_INSTANCES_dwInstances, MULTI_INSTANCES_NAME ".dwInstances")) != 0)
        return rc;
    return check_fields(r, PCQ_S_MULTI_INSTANCES, at, 0);
}

/* An instance inside a type 4 or 6 block (Figures 8, 9; D3): a header and a
 * name whose padding MUST be 0; its values follow Size. */
static int parse_data_instance(rd *r, const frame *f, size_t at, pcq_data_instance *out)
{
    uint32_t size;
    size_t nul;
    int rc;
    if ((rc = parse_named(r, f, at, PCQ_S_DATA_INSTANCE, INSTANCE_HEADER_SIZE, &INSTANCE_HEADER_fields[0],
                          &size, &nul)) != 0 ||
        (rc = check_fields(r, PCQ_S_DATA_INSTANCE, at, 0)) != 0 ||
        (rc = check_zero(r, nul + NUL16_SIZE, at + size, "instance name padding")) != 0)
        return rc;
    out->size = size; /* every field (not a memset: see block_clear) */
    out->instance_id = ld32(r->b + at + INSTANCE_HEADER_InstanceId);
    pcq_value_none_(&out->value);
    out->name.ptr = r->b + at + INSTANCE_HEADER_InstanceName;
    out->name.len = nul - at - INSTANCE_HEADER_InstanceName;
    out->offset = at;
    out->num_values = f->nvalues;
    out->ids_at = (uint32_t)f->ids_at; /* the instances' frame's: its block's ids (type 6), or 0 */
    out->values = out->values_end = at + size;
    return PCQ_OK;
}

static PCQ_INLINE void fill_value(const uint8_t *b, size_t at, pcq_value *v)
{
    pcq_value_any_(b, at, ld32(b + at + COUNTER_DATA_dwDataSize), ld32(b + at + COUNTER_DATA_dwSize), v);
}

/* The common value, checked in a few instructions (pcq_value_size_, in the
 * header, where the inline steps use the same rules): the structure fits
 * the frame and the input, 8 <= dwSize <= what is left, dwDataSize fits,
 * and no slack (below). parse_value works out which rule broke. */
static PCQ_INLINE int value_ok(const uint8_t *b, size_t len, size_t at, size_t end)
{
    return pcq_value_size_(b, at, end < len ? end : len) != 0;
}

/* _PERF_COUNTER_DATA and its value (§2.2.4.9): 8 <= dwSize inside the frame
 * and the input (a leaf is read whole), dwDataSize <= dwSize - 8, and no
 * slack: the value area is at least 8 bytes (NOTES §2), 8 more unused bytes
 * are a COUNT_MISMATCH (D6). */
static int parse_value(rd *r, const frame *f, size_t at, pcq_value *v)
{
    const uint8_t *b = r->b;
    const char *size_what = COUNTER_DATA_NAME ".dwSize";
    uint32_t size, data_size;
    int rc;
    if (!value_ok(b, r->len, at, f->end)) {
        if ((rc = need(r, f, at, COUNTER_DATA_SIZE, COUNTER_DATA_NAME)) != 0) return rc;
        size = ld32(b + at + COUNTER_DATA_dwSize);
        data_size = ld32(b + at + COUNTER_DATA_dwDataSize);
        if (size < COUNTER_DATA_SIZE)
            return rd_fail(r, PCQ_ERR_SIZE_TOO_SMALL, at + COUNTER_DATA_dwSize, size_what);
        if ((rc = sized(r, f, at, size, at + COUNTER_DATA_dwSize, size_what)) != 0) return rc;
        if (data_size > size - COUNTER_DATA_SIZE)
            return rd_fail(r, PCQ_ERR_EXCEEDS_CONTAINER, at, COUNTER_DATA_NAME ".dwDataSize");
        if (size > r->len - at) return rd_fail(r, PCQ_ERR_TRUNCATED, at + COUNTER_DATA_dwSize, size_what);
        return rd_fail(r, PCQ_ERR_COUNT_MISMATCH, at + COUNTER_DATA_dwSize, size_what);
    }
    if ((at & 7) && (rc = check_fields(r, PCQ_S_COUNTER_DATA, at, 0)) != 0) return rc;
    fill_value(b, at, v);
    return PCQ_OK;
}

/* ---- the fast path: data in the canonical layout ------------------------ */
/* Most replies are written the way Windows writes them (NOTES §2): every
 * structure 8-aligned, sizes exact, every _PERF_COUNTER_DATA 16 bytes with a
 * 4- or 8-byte value, names padded with zeros. canonical_data() recognises
 * that layout in about one load and compare per value, and decides nothing
 * else: 1 promises that the walk (the one checker that reports errors and
 * diagnostics) would end without an error and without a diagnostic; 0
 * promises nothing, and the walk runs from the start. The fuzzers check the
 * promise on every input (fz_props.c). */
/* *slack -= t when t <= *slack; else 1 (*slack is then of no use). The
 * builtin (gcc 5, clang 3.8) is one subtract whose borrow decides, where a
 * compare came first. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_sub_overflow)
#define PCQ_SUB_OVERFLOW_ 1
#endif
#elif defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 5
#define PCQ_SUB_OVERFLOW_ 1
#endif
static PCQ_INLINE int take(size_t *slack, size_t t)
{
#ifdef PCQ_SUB_OVERFLOW_
    return __builtin_sub_overflow(*slack, t, slack);
#else
    if (t > *slack) return 1;
    *slack -= t;
    return 0;
#endif
}

/* The forms of an instance's values: none, one, two to four, five or more. */
enum {
    VALUES_NONE,
    VALUES_ONE,
    VALUES_FEW,
    VALUES_MANY
};

/* The canonical layout's checks (canonical_instances) */
typedef struct inst_state {
    const uint8_t *p; /* the next instance's header: on a pointer, an addition fewer an instance */
    size_t slack;     /* what the container holds beyond the least size of the instances not yet read */
    diffs bad;        /* the values' first words, less VALUE_16 + 4 */
    zeros nul;        /* every name word's but the last */
} inst_state;

/* n instances at s->p, each followed by nv values (of the form that nv
 * has), prefetching `ahead` bytes ahead (0: none): 0 when one breaks the
 * layout. One test an instance (its Size within the slack) keeps the next
 * one's header inside the container. */
static PCQ_FORCE_INLINE int instances_run(inst_state *s, size_t n, size_t nv, int form, size_t ahead)
{
    const uint8_t *p = s->p, *v;
    size_t slack = s->slack, t, last;
    diffs bad = s->bad;
    zeros nul = s->nul;
    for (; n > 0; n--) {
        if (ahead) PREFETCH(p + ahead);
        t = (size_t)ld32(p + INSTANCE_HEADER_Size) - 16; /* Size below 16 wraps and fails */
        if (take(&slack, t)) return 0;
        last = INSTANCE_HEADER_SIZE + t;      /* the name's last 8 bytes, from p */
        if (bad_name_end(p + last)) return 0; /* a branch: fewer instructions than keeping a flag */
        /* a name of 8 to 11 characters (24 bytes), the likely case, is a multiple of 8 as it is: the
         * test of Size's alignment only on the other path (small 0.46 -> 0.44 Ir/B, mix 0.49 -> 0.47,
         * where an or an instance and a test a list kept Size's low bits; gcc 12) */
        if (PCQ_LIKELY_(t == 16)) {
            nul = name_zeros(p, INSTANCE_HEADER_InstanceName, INSTANCE_HEADER_SIZE + 16, nul);
        } else if (t > 16) { /* 12 characters or more */
            if (t & 7) return 0;
            nul = name_zeros(p, INSTANCE_HEADER_InstanceName, last, nul);
        } else if (t == 8) { /* 4 to 7 ("_Total"): one word (the compare above told it from the longer) */
            nul = name_zeros(p, INSTANCE_HEADER_InstanceName, INSTANCE_HEADER_SIZE + 8, nul);
        } else if (t != 0) { /* 0: up to 3, the last word alone */
            return 0;
        }
        /* a good value's first word minus VALUE_16 + 4 is 0 or 4 (bad_value): & ~4 once, at the end */
        if (form == VALUES_ONE) {
            bad = one_diff(p + last + 8, bad);
            p += last + 8 + 16;
        } else {
            v = p + last + 8; /* the values */
            p = v + 16 * nv;
            if (form == VALUES_FEW) bad = pairs_diff(v, p - 32, bad);
            if (form == VALUES_MANY) bad = many_diff(v, nv, bad, ahead);
        }
    }
    s->p = p;
    s->slack = slack;
    s->bad = bad;
    s->nul = nul;
    return 1;
}

/* n canonical instances from `at`, each followed by nv values (of the
 * form that nv has), with room left for `more` after them in [at, end)
 * (their least size each; a run of a container's instances: the rest of
 * its count): where the last of the n ends, or 0. The input is [0, lim),
 * end <= lim. `near` (a constant): -1, no reading ahead; 0, end + AHEAD
 * <= lim (read ahead for all); 1, either. */
static PCQ_FORCE_INLINE size_t canonical_instances_nv(const uint8_t *b, size_t at, size_t end, size_t lim,
                                                      size_t n, size_t more, size_t nv, int form, int near)
{
    size_t k = INSTANCE_HEADER_SIZE + 8 + 16 * nv; /* the least an instance takes */
    size_t all = n + more, need, rest;
    inst_state s;
    /* n + more and k below 2^32: their product fits */
    if (nv >= 0x0FFFFFFFu || (uint64_t)all * k > end - at) return 0; /* k < 2^32 */
    s.p = b + at;
    s.slack = end - at - all * k;
    s.bad = DIFFS_NONE;
    s.nul = ZEROS_NONE;
    /* Read ahead but for the last `rest` instances. Before the j-th (from 0),
     * end - p >= (all - j) k (the slack is what is beyond), so it ends at
     * least (all - j - 1) k before end: when that is `need` instances (more
     * than AHEAD), or end + AHEAD <= lim, every byte it has is more than
     * AHEAD from the input's end. Two loops, not a test an instance. */
    if (near < 0) {
        if (!instances_run(&s, n, nv, form, 0)) return 0;
    } else if (!near || lim - end >= AHEAD || (need = AHEAD / k + 1) <= more) { /* all of them: one loop */
        if (!instances_run(&s, n, nv, form, AHEAD)) return 0;
    } else {
        rest = need - more < n ? need - more : n;
        if (!instances_run(&s, n - rest, nv, form, AHEAD) || !instances_run(&s, rest, nv, form, 0)) return 0;
    }
    return any_bad_zero(s.bad, s.nul) ? 0 : (size_t)(s.p - b);
}

/* The same; each form of values has a loop of its own, where the form is
 * known and values_diff's tests of nv go from the loop: a type 4 block's
 * instances (one value each), two to four values (pairs_diff, no loop: a
 * type 6 instance of four values 32 -> 28 instructions, gcc 12), five or
 * more (many_diff, its test of nv >= 4 gone: ~4 instructions a type 6
 * instance and a spilled register before), and none (a counter set of no
 * counters). Validation of mix 0.532 -> 0.494 Ir/B with the loop of two to
 * four; 0.614 -> 0.580 with the loop of four or more. n and nv are size_t:
 * the callers' 32-bit loads widen them, not a move here (0.491 -> 0.488). */
static size_t canonical_instances(const uint8_t *b, size_t at, size_t end, size_t n, size_t nv)
{
    /* that their values fit the container (16 nv wrapping no size_t, even a 32-bit one with
     * PCQ_MAX_COUNTERS raised) is canonical_instances_nv's test of nv and of n k */
    if (n > PCQ_MAX_INSTANCES || nv > PCQ_MAX_COUNTERS) return 0;
    if (nv == 1) return canonical_instances_nv(b, at, end, 0, n, 0, 1, VALUES_ONE, -1);
    if (nv - 2 <= 2) return canonical_instances_nv(b, at, end, 0, n, 0, nv, VALUES_FEW, -1);
    if (nv == 0) return canonical_instances_nv(b, at, end, 0, n, 0, 0, VALUES_NONE, -1);
    return canonical_instances_nv(b, at, end, 0, n, 0, nv, VALUES_MANY, -1);
}

/* The same, reading ahead in an input of lim bytes, with room for `more`
 * after them (canonical_instances_nv): validation's test of a container's
 * instances near the end of a large input, and the runs of instances of
 * the single pass (bulk_step) and of a decoder's walk (pass_instances). */
static PCQ_NOINLINE size_t canonical_instances_near(const uint8_t *b, size_t at, size_t end, size_t lim,
                                                    size_t n, size_t more, size_t nv)
{
    if (n > PCQ_MAX_INSTANCES || more > PCQ_MAX_INSTANCES || nv > PCQ_MAX_COUNTERS) return 0;
    if (lim < AHEAD_FROM) return canonical_instances(b, at, end, n, nv); /* (a run's input may be small) */
    if (nv == 1) return canonical_instances_nv(b, at, end, lim, n, more, 1, VALUES_ONE, 1);
    if (nv - 2 <= 2) return canonical_instances_nv(b, at, end, lim, n, more, nv, VALUES_FEW, 1);
    if (nv == 0) return canonical_instances_nv(b, at, end, lim, n, more, 0, VALUES_NONE, 1);
    return canonical_instances_nv(b, at, end, lim, n, more, nv, VALUES_MANY, 1);
}

/* Validation's test of a container's instances in an input of at least
 * AHEAD_FROM bytes: one far from its end (the most) reads ahead in one
 * loop, a function of six arguments (a seventh, on the stack, and the
 * registers of canonical_instances_near's two loops cost validation of mix
 * 0.47 -> 0.52 Ir/B). */
static size_t canonical_instances_ahead(const uint8_t *b, size_t at, size_t end, size_t lim, size_t n,
                                        size_t nv)
{
    if (lim - end < AHEAD) return canonical_instances_near(b, at, end, lim, n, 0, nv);
    if (n > PCQ_MAX_INSTANCES || nv > PCQ_MAX_COUNTERS) return 0;
    if (nv == 1) return canonical_instances_nv(b, at, end, lim, n, 0, 1, VALUES_ONE, 0);
    if (nv - 2 <= 2) return canonical_instances_nv(b, at, end, lim, n, 0, nv, VALUES_FEW, 0);
    if (nv == 0) return canonical_instances_nv(b, at, end, lim, n, 0, 0, VALUES_NONE, 0);
    return canonical_instances_nv(b, at, end, lim, n, 0, nv, VALUES_MANY, 0);
}

/* A canonical _PERF_MULTI_COUNTERS at `at` (dwSize 8 + 4 n, padded to 8)
 * inside [at, end): its dwSize, or 0. */
static size_t canonical_multi_counters(const uint8_t *b, size_t at, size_t end, uint32_t *n)
{
    size_t size;
    if (end - at < MULTI_COUNTERS_SIZE) return 0;
    size = ld32(b + at + MULTI_COUNTERS_dwSize);
    *n = ld32(b + at + MULTI_COUNTERS_dwCounters);
    if (*n > PCQ_MAX_COUNTERS || size != ((MULTI_COUNTERS_SIZE + 4 * (size_t)*n + 7) & ~(size_t)7) ||
        size > end - at)
        return 0;
    return size;
}

/* A canonical _PERF_MULTI_INSTANCES at `at` filling [at, end) exactly, its
 * instances with nv values each; `ahead` (a constant): reading ahead in an
 * input of lim bytes, at least AHEAD_FROM. */
static PCQ_FORCE_INLINE int canonical_multi_instances(const uint8_t *b, size_t at, size_t end, size_t lim,
                                                      uint32_t nv, int ahead)
{
    if (end - at < MULTI_INSTANCES_SIZE || ld32(b + at + MULTI_INSTANCES_dwTotalSize) != end - at) return 0;
    if (ahead)
        return canonical_instances_ahead(b, at + MULTI_INSTANCES_SIZE, end, lim,
                                         ld32(b + at + MULTI_INSTANCES_dwInstances), nv) == end;
    return canonical_instances(b, at + MULTI_INSTANCES_SIZE, end, ld32(b + at + MULTI_INSTANCES_dwInstances),
                               nv) == end;
}

/* A canonical block at `at` of dwSize `size` (a multiple of 8 inside the
 * input): its body, by dwType (Figures 5-9). `ahead` (a constant): reading
 * ahead in an input of lim bytes, at least AHEAD_FROM. */
static PCQ_FORCE_INLINE int canonical_block(const uint8_t *b, size_t at, size_t size, uint32_t type,
                                            size_t lim, int ahead)
{
    size_t body = at + COUNTER_HEADER_SIZE, end = at + size, mcs;
    uint32_t n = 1;
    int far = ahead && lim - end >= AHEAD; /* every byte of the block more than AHEAD before the end */
    if (far) PREFETCH(b + at + AHEAD);     /* its header's line (its instances and values: theirs) */
    /* tests, not a switch: its jump table cost a type 2 block ~4 instructions more */
    if (type == PCQ_PERF_MULTI_COUNTERS || type == PCQ_PERF_COUNTERSET) {
        if (!(mcs = canonical_multi_counters(b, body, end, &n))) return 0;
        body += mcs;
        if (type == PCQ_PERF_COUNTERSET) return canonical_multi_instances(b, body, end, lim, n, ahead);
        if ((uint64_t)(end - body) != 16 * (uint64_t)n) return 0; /* n < 2^32 */
        return far ? !bad_values(b, body, n, AHEAD) : !bad_values(b, body, n, 0);
    }
    if (type == PCQ_PERF_MULTI_INSTANCES) return canonical_multi_instances(b, body, end, lim, 1, ahead);
    if (type == PCQ_PERF_SINGLE_COUNTER)
        return size == COUNTER_HEADER_SIZE + 16 && !bad_value(ld64(b + body));
    return type == PCQ_PERF_ERROR_RETURN && size == COUNTER_HEADER_SIZE;
}

/* w, a block header's dwSize and Reserved (one load), as a canonical
 * block has them: Reserved 0, dwSize a multiple of 8. The first look of
 * every test of a block's header below; dwSize's range is the caller's. */
static PCQ_INLINE int canonical_size_word(uint64_t w)
{
    return !(w & ~(uint64_t)0xFFFFFFF8u);
}

/* A canonical block, header and body, at `at` (8-aligned) inside [at, lim),
 * lim - at >= 16; w is its dwSize and Reserved (Reserved 0, dwSize a
 * multiple of 8 from 16 to what is left). `ahead` (a constant): reading
 * ahead in an input of len bytes, at least AHEAD_FROM (canonical_block). */
static PCQ_FORCE_INLINE int canonical_block_at(const uint8_t *b, size_t at, size_t lim, uint64_t w,
                                               size_t len, int ahead)
{
    return canonical_size_word(w) && (uint32_t)w - COUNTER_HEADER_SIZE <= lim - at - COUNTER_HEADER_SIZE &&
           canonical_block(b, at, (uint32_t)w, ld32(b + at + COUNTER_HEADER_dwType), len, ahead);
}

/* Up to *n canonical blocks from `at` inside [at, lim): where they end; *n
 * less the blocks passed. */
static size_t canonical_blocks(const uint8_t *b, size_t at, size_t lim, uint32_t *n)
{
    uint64_t w;
    for (; *n > 0 && lim - at >= COUNTER_HEADER_SIZE &&
           canonical_block_at(b, at, lim, w = ld64(b + at + COUNTER_HEADER_dwSize), 0, 0);
         --*n)
        at += (uint32_t)w;
    return at;
}

/* The whole buffer: dwTotalSize is the input, dwNumCounter blocks fill it.
 * `ahead` (a constant): reading ahead, len at least AHEAD_FROM. */
static PCQ_FORCE_INLINE int canonical_data_at(const uint8_t *b, size_t len, int ahead)
{
    size_t at = DATA_HEADER_SIZE, slack;
    uint32_t n, i;
    if (!b || len < DATA_HEADER_SIZE || ld32(b + DATA_HEADER_dwTotalSize) != len) return 0;
    n = ld32(b + DATA_HEADER_dwNumCounter);
    /* slack: what the input holds beyond 16 bytes a block not yet read (as
     * canonical_instances' for instances), so that one test a block (its
     * dwSize - 16 within the slack) keeps it and the next one's header inside */
    if (n > (len - DATA_HEADER_SIZE) / COUNTER_HEADER_SIZE) return 0;
    slack = len - DATA_HEADER_SIZE - (size_t)n * COUNTER_HEADER_SIZE;
    for (i = n; i > 0; i--) { /* canonical_blocks' test written out: through canonical_block_at, or with
                                * that loop's result, gcc 12 spent one or two instructions a block more */
        uint64_t w = ld64(b + at + COUNTER_HEADER_dwSize); /* dwSize and Reserved: Reserved 0, dwSize a
                                                             multiple of 8, 16 or more (below wraps) */
        size_t size = (size_t)w; /* when the test below passes, w's upper half (Reserved) is 0 */
        if (!canonical_size_word(w) || take(&slack, size - COUNTER_HEADER_SIZE) ||
            !canonical_block(b, at, size, ld32(b + at + COUNTER_HEADER_dwType), len, ahead))
            return 0;
        at += size;
    }
    return at == len && n <= PCQ_MAX_COUNTERS;
}

/* Each its own function: gcc 12 compiled the two in one worse (validation
 * of mix 0.467 -> 0.478 Ir/B) */
static PCQ_NOINLINE int canonical_data_cached(const uint8_t *b, size_t len)
{
    return canonical_data_at(b, len, 0);
}

static PCQ_NOINLINE int canonical_data_ahead(const uint8_t *b, size_t len)
{
    return canonical_data_at(b, len, 1);
}

static int canonical_data(const uint8_t *b, size_t len)
{
    return len < AHEAD_FROM ? canonical_data_cached(b, len) : canonical_data_ahead(b, len);
}

/* A buffer canonical_data did not take: where the canonical blocks it
 * starts with end, and a block that is not starts (48: the first is not; 0:
 * the header is not), which the walk that runs next passes without a
 * second look (pass_blocks). A loop of its own, run only then: a result
 * from canonical_data's loop cost it an instruction a block (and so did the
 * header test below as a helper both call, with gcc 12). */
static size_t canonical_prefix(const uint8_t *b, size_t len)
{
    uint32_t n;
    if (!b || len < DATA_HEADER_SIZE || ld32(b + DATA_HEADER_dwTotalSize) != len) return 0;
    n = ld32(b + DATA_HEADER_dwNumCounter);
    return canonical_blocks(b, DATA_HEADER_SIZE, len, &n);
}

/* ======================================================================== */
/* 6. The walk                                                              */
/*                                                                          */
/* A stack of frames, one per container the walk is inside. Each call of    */
/* pcq_walk_next steps the top frame: a list frame yields its next item (or */
/* ends: its count and size are checked, it is popped); a block's body and   */
/* the buffer's root go through phases. Items are yielded before what they  */
/* contain, so an error inside a structure comes after the structure.       */
/* ======================================================================== */
enum {
    STEP_ITEM = 1,
    STEP_DONE = 0,
    STEP_ON = 2
}; /* and < 0: an error */

/* Phases of a block's body (FR_BODY) and of a root. */
enum {
    B_VALUE1 = 1,
    B_MC,
    B_MC_BULK, /* PCQ_BULK: a canonical block's _PERF_MULTI_COUNTERS (type 2: and its values) */
    B_VALUES,
    B_MI,
    B_MI_BULK, /* PCQ_BULK: a canonical block's _PERF_MULTI_INSTANCES, its instances one run */
    B_END
};
enum {
    R_FIRST = 0,
    R_END,
    R_DONE
};

static frame *push(pcq_walk *w, int kind, size_t pos, size_t end, unsigned depth)
{
    frame *f = &w->frames[w->nframes++];
    /* every field, one by one (not a memset: see block_clear) */
    f->pos = pos;
    f->end = end;
    f->count_at = f->size_at = f->ids_at = 0;
    f->count_what = f->size_what = NULL;
    f->left = f->index = f->nvalues = f->vbytes = 0;
    f->kind = (uint8_t)kind;
    f->phase = f->flags = f->btype = 0;
    f->depth = (uint8_t)depth;
    return f;
}

/* A counted frame: `left` items at [pos, end) whose count is at count_at. */
static void counted(frame *f, uint32_t left, unsigned flags, size_t count_at, const char *count_what,
                    size_t size_at, const char *size_what)
{
    f->left = left;
    f->flags = (uint8_t)(flags | FL_COUNTED);
    f->count_at = count_at;
    f->count_what = count_what;
    f->size_at = size_at;
    f->size_what = size_what;
}

/* Before each item of a list frame: 1 if one follows, 0 when the frame is
 * done (its count met, its unused tail checked), < 0 on error.
 * A counted container that runs dry before its count blames the count (or,
 * when the input ran out first, its size: TRUNCATED); 8 or more unused bytes
 * after its last item blame its size (D6). Frames without a count run to
 * their end. */
static PCQ_FORCE_INLINE int frame_more(rd *r, const frame *f)
{
    if (!(f->flags & FL_COUNTED)) return f->pos < f->end;
    if (f->left > 0) {
        if (f->pos < f->end && f->pos < r->len) return 1;
        if (f->pos == f->end)
            return rd_fail(r, f->flags & FL_INPUT ? PCQ_ERR_TRUNCATED : PCQ_ERR_COUNT_MISMATCH, f->count_at,
                           f->count_what);
        return rd_fail(r, PCQ_ERR_TRUNCATED, f->size_at, f->size_what);
    }
    if (f->flags & FL_EXACT) {
        if (f->end > r->len) return rd_fail(r, PCQ_ERR_TRUNCATED, f->size_at, f->size_what);
        if (f->end - f->pos >= 8) return rd_fail(r, PCQ_ERR_COUNT_MISMATCH, f->size_at, f->size_what);
    }
    return 0;
}

/* No structure yet: what an error about a container leaves in *it. */
static void item_clear(pcq_item *it)
{
    pcq_item_begin_(it, PCQ_S_NONE, 0, 0, 0, 0, 0);
}

/* An item of `type` at `at`, yielded by frame f. */
static void item_begin(pcq_item *it, int type, const frame *f, size_t at)
{
    pcq_item_begin_(it, type, f->depth, f->index, at, layouts[type].info.size, layouts[type].info.size);
}

/* The item was yielded: the frame moves past it. */
static int item_done(frame *f, size_t next)
{
    f->pos = next;
    f->index++;
    if (f->left) f->left--;
    return STEP_ITEM;
}

/* ---- PCQ_BULK: a frame's items passed without yielding them ---- */

static int step_list(rd *r, frame *f, pcq_item *it);
static int step_body(rd *r, frame *f, pcq_item *it);

static void item_cut(const pcq_walk *w, pcq_item *it);

/* An error found ahead: the item it cut, for the next pcq_walk_next. */
static void keep_cut(pcq_walk *w, pcq_item *it)
{
    item_cut(w, it);
    w->cut = *it;
}

static int bulk_on(const pcq_walk *w)
{
    return (w->mode & WALK_BULK) != 0;
}

/* A values or ids frame whose items all lie whole in the frame and the
 * input, 8-aligned values canonical: nothing in them can be an error or a
 * diagnostic (a value has no rule but its layout and where it starts), so
 * they are passed at once. */
static int frame_canonical(const rd *r, const frame *f)
{
    size_t room = (f->end < r->len ? f->end : r->len) - f->pos;
    if (f->kind == FR_IDS) return (size_t)f->left <= room / COUNTER_ID_SIZE;
    return !(f->pos & 7) && (size_t)f->left <= room / 16 && !bad_values(r->b, f->pos, f->left, 0);
}

/* Steps the frame on top (counter ids or values) to its end without
 * yielding its items: *n of them passed, *fast when they were canonical.
 * The frame is popped as pcq_walk_next pops it. An error stays in w->err,
 * with the item it cut, for the next call of pcq_walk_next. */
static void drain(rd *r, uint32_t *n, int *fast)
{
    pcq_walk *w = r->w;
    frame *f = &w->frames[w->nframes - 1];
    pcq_item tmp;
    int rc;
    *n = 0;
    if ((*fast = frame_canonical(r, f)) != 0) {
        *n = f->left;
        f->pos += (f->kind == FR_IDS ? COUNTER_ID_SIZE : 16) * (size_t)f->left;
        f->index += f->left;
        f->left = 0;
    }
    for (;;) { /* the rest one at a time; a count all passed needs only its end checked (0 or an error) */
        tmp.type = PCQ_S_NONE; /* every step begins its item (item_begin) before it writes to it */
        rc = (f->flags & FL_COUNTED) && !f->left ? frame_more(r, f) : step_list(r, f, &tmp);
        if (rc != STEP_ITEM) break;
        ++*n;
    }
    if (rc < 0) {
        keep_cut(w, &tmp);
        return;
    }
    w->nframes--;
    if ((f->flags & FL_CONT) && w->nframes > 0) w->frames[w->nframes - 1].pos = f->pos;
}

/* ---- list frames ---- */

static int step_counter(rd *r, frame *f, pcq_item *it)
{
    size_t at = f->pos;
    int rc;
    item_begin(it, PCQ_S_COUNTER_REG_INFO, f, at);
    if (r->len - at < COUNTER_REG_INFO_SIZE) /* the input holds fewer than NumCounters */
        return rd_fail(r, PCQ_ERR_TRUNCATED, f->count_at, f->count_what);
    if ((rc = check_fields(r, PCQ_S_COUNTER_REG_INFO, at, f->index)) != 0) return rc;
    read_counter_reg(r->b + at, &it->u.counter);
    return item_done(f, at + COUNTER_REG_INFO_SIZE);
}

/* A _STRING_COUNTER_HEADER and the text it names (§2.2.4.4, D4). */
static int step_entry(rd *r, frame *f, pcq_item *it)
{
    pcq_walk *w = r->w;
    pcq_string_entry *e = &it->u.entry;
    size_t at = f->pos, base = w->aux[2], size = ld32(r->b), start;
    item_begin(it, PCQ_S_STRING_COUNTER_HEADER, f, at);
    e->counter_id = ld32(r->b + at + STRING_COUNTER_HEADER_dwCounterId);
    e->offset = ld32(r->b + at + STRING_COUNTER_HEADER_dwOffset);
    e->present = e->offset != PCQ_STRING_ABSENT;
    e->text.ptr = NULL;
    e->text.len = 0;
    e->text_offset = 0;
    if (e->present) {
        if (e->offset >= size - base) /* base <= size: the block holds the header array */
            return rd_fail(r, e->offset >= r->len - base ? PCQ_ERR_TRUNCATED : PCQ_ERR_EXCEEDS_CONTAINER,
                           at + STRING_COUNTER_HEADER_dwOffset, STRING_COUNTER_HEADER_fields[1].what);
        start = base + e->offset;
        if (start >= w->aux[start % 2])
            return rd_fail(r, PCQ_ERR_NO_NUL, start, STRING_COUNTER_HEADER_fields[2].what);
        e->text.ptr = r->b + start;
        e->text_offset = start;
        if (!(w->mode & WALK_QUICK))
            e->text.len = (w->set_checks == 1    ? w->lens[f->index]
                           : w->set_checks == -1 ? map_text_end(w, r->b, size, start)
                                                 : text_end(w, r->b, size, start)) -
                          start;
    }
    return item_done(f, at + STRING_COUNTER_HEADER_SIZE);
}

static int step_guid(rd *r, frame *f, pcq_item *it)
{
    size_t at = f->pos;
    item_begin(it, PCQ_S_COUNTERSET_GUID, f, at);
    if (r->len - at < GUID_SIZE) return rd_fail(r, PCQ_ERR_BAD_LENGTH, at, "GUID array");
    read_guid_at(r->b + at, &it->u.guid);
    return item_done(f, at + GUID_SIZE);
}

/* PCQ_BULK: a type 1 block's value, read with its header (Figure 6). */
static void bulk_value1(rd *r, frame *body, pcq_item *it)
{
    pcq_item v;
    item_clear(&v);
    it->values = body->pos;
    if (step_body(r, body, &v) < 0) {
        keep_cut(r->w, &v);
        return;
    }
    it->u.block.value = v.u.value;
    it->nvalues = 1;
    it->values_fast = !(it->values & 7) && !bad_value(ld64(r->b + it->values));
}

/* PCQ_BULK: a canonical block (what canonical_block accepts: nothing in it
 * can be an error or a diagnostic) needs no parser. A list's blocks are
 * checked so a run at a time (brun_start): up to BRUN_MAX blocks in
 * BRUN_BYTES (AHEAD in a large input, where the run's checks run ahead of
 * the items), the first whatever its size but a block of instances only up
 * to BULK_BLOCK_MAX (a larger one's instances go to bulk_step's runs, each
 * checked just before it is read). The run is then taken inline, read
 * again from L1 (pcq_walk_block_item_): each block's header item, its
 * body's items (pcq_walk_pend_item_), its instances as a run. No frame is
 * made for a block or its instances while the run goes on; brun_stop
 * brings the list's frame up to date and makes the last block's instances'
 * when pcq_walk_next is called and cannot go on with it (none when they
 * ended with the run: brun_next goes to the next block). A single pass over
 * blocks of a few instances each (the bench's mix) spent ~450 instructions
 * an item on the parsers and frames, then ~240 a block on the calls, frames
 * and checks of one block at a time (bulk_block, 0.2.0's development). */
enum {
    BULK_BLOCK_MAX = 4096,
    BRUN_MAX = 64,
    BRUN_BYTES = 4096 /* at most BULK_BLOCK_MAX (brun_start) */
};

/* A first look at the block header at `at` (frame_more said a block
 * starts there): 8-aligned, its 16 bytes inside the input, its dwSize and
 * Reserved as a canonical block has them. Cheap enough for every block a
 * walk steps: the checks of a run (brun_item) or a pass (pass_worth) are
 * made only behind it. */
static PCQ_INLINE int header_looks_canonical(const rd *r, size_t at)
{
    return !(at & 7) && r->len - at >= COUNTER_HEADER_SIZE &&
           canonical_size_word(ld64(r->b + at + COUNTER_HEADER_dwSize));
}

/* A run of canonical blocks from the list f's position, for the inline
 * step: 1 when it has one or more. */
static int brun_start(rd *r, const frame *f)
{
    pcq_walk *w = r->w;
    const uint8_t *b = r->b;
    size_t at = f->pos, len = r->len, lim = f->end < len ? f->end : len, size, ext;
    /* in a large input, a run no longer than the reading ahead: its checks, which run through it far
     * faster than its items are then taken, would else reach lines not yet asked for (D19); never
     * longer than BULK_BLOCK_MAX, so that the blocks after the first need no test of their own */
    size_t span = len < AHEAD_FROM || AHEAD > BRUN_BYTES ? (size_t)BRUN_BYTES : AHEAD;
    uint32_t n, most = f->left < (uint32_t)BRUN_MAX ? f->left : (uint32_t)BRUN_MAX, type;
    uint64_t sw;
    if ((at & 7) || at > lim || !(f->flags & FL_COUNTED) || w->run || w->pend_at) return 0;
    for (n = 0; n < most && lim - at >= COUNTER_HEADER_SIZE; n++, at += size) {
        sw = ld64(b + at + COUNTER_HEADER_dwSize);
        size = (uint32_t)sw;
        if (!n && size > BULK_BLOCK_MAX) { /* its instances go to bulk_step's runs */
            type = ld32(b + at + COUNTER_HEADER_dwType);
            if (type == PCQ_PERF_MULTI_INSTANCES || type == PCQ_PERF_COUNTERSET) break;
        }
        if (!(len < AHEAD_FROM ? canonical_block_at(b, at, lim, sw, 0, 0)
                               : canonical_block_at(b, at, lim, sw, len, 1)))
            break;
        /* the first block whatever its size, the others inside the span (none after a longer first):
         * lim is then where the span ends, if before (one test a block, where a test of the span
         * was a second); the first fits lim (size <= lim - at), so at + ext < lim does not wrap */
        if (!n) {
            ext = size > span ? size : span;
            if (lim - at > ext) lim = at + ext;
        }
    }
    if (n == 0) return 0;
    w->brun = n;
    w->brun_base = f->index + n;
    w->brun_pos = f->pos;
    w->brun_lim = at;
    w->brun_depth = f->depth;
    w->brun_mi = 0;
    w->brun_on = 1;
    return 1;
}

/* The last block's instances' frame, which the run did not make: as
 * bulk_multi_instances makes it from a body frame, its count and bytes as
 * read with the block's header (pcq_walk_block_body_). */
static void brun_frame(pcq_walk *w)
{
    size_t mi = w->brun_mi;
    frame *insts = push(w, FR_DATA_INSTANCES, mi + MULTI_INSTANCES_SIZE, w->pend_end, w->pend_depth + 1u);
    counted(insts, w->brun_count, FL_EXACT, mi + MULTI_INSTANCES_dwInstances,
            MULTI_INSTANCES_NAME ".dwInstances", mi, MULTI_INSTANCES_NAME ".dwTotalSize");
    insts->nvalues = w->run_nv;
    insts->btype = w->pend_btype;
    insts->ids_at = w->run_ids;
    w->run_skip = 0;
}

/* The run of blocks ends: the list's frame (on top: none is made while the
 * run is on) brought up to date, as run_sync brings an instances' frame,
 * and the last block's instances' frame made when it has one; pcq_walk_next
 * then steps it (bulk_done: where its instances end), or the pending item's
 * body (pend_body). */
static void brun_stop(pcq_walk *w)
{
    frame *f = &w->frames[w->nframes - 1];
    uint32_t taken = w->brun_base - w->brun - f->index;
    f->pos = w->brun_pos;
    f->index += taken;
    f->left -= taken;
    if (w->brun_mi) brun_frame(w);
    w->brun = 0;
    w->brun_on = 0;
    w->brun_mi = 0;
}

/* The bytes of a pending _PERF_MULTI_COUNTERS or _PERF_MULTI_INSTANCES
 * changed after its block's header item: the block's body frame, as
 * block_header pushes it, in a bulk phase whose steps find them changed and
 * give the parsers' error (the run of blocks stopped: its frames made). */
static void pend_body(pcq_walk *w)
{
    uint8_t bt = w->pend_btype;
    int mc = w->pend_type == PCQ_S_MULTI_COUNTERS;
    const frame *insts = bt != PCQ_PERF_MULTI_COUNTERS ? &w->frames[w->nframes - 1] : NULL;
    size_t ids_at = insts ? insts->ids_at : 0; /* a type 6 block's: its _PERF_MULTI_COUNTERS' + 8 */
    uint32_t nv = insts ? insts->nvalues : 0;
    size_t at = bt == PCQ_PERF_COUNTERSET && !mc ? ids_at - MULTI_COUNTERS_SIZE - COUNTER_HEADER_SIZE
                                                 : w->pend_at - COUNTER_HEADER_SIZE;
    frame *body;
    if (insts) w->nframes--; /* the instances' frame, made early: bulk_multi_instances makes it again */
    body = push(w, FR_BODY, w->pend_at, w->pend_end, w->pend_depth);
    body->btype = bt;
    body->size_at = at + COUNTER_HEADER_dwSize;
    body->size_what = COUNTER_HEADER_NAME ".dwSize";
    body->phase = mc ? B_MC_BULK : B_MI_BULK;
    if (bt == PCQ_PERF_COUNTERSET && !mc) { /* as bulk_multi_counters leaves a type 6 block's body */
        body->ids_at = ids_at;
        body->nvalues = nv;
        body->count_at = ids_at - 4;
    }
    w->pend_at = 0;
}

/* A list of blocks' next item (f, on top) from a run of canonical blocks
 * that begins there: 0 when the block there is not one. */
static PCQ_NOINLINE int brun_first(rd *r, const frame *f, pcq_item *it)
{
    if (!brun_start(r, f)) return 0;
    if (pcq_walk_block_item_(r->w, it)) return 1;
    brun_stop(r->w); /* LCOV_EXCL_LINE: its bytes changed since brun_start read them, in this call (a buffer
                        another thread writes): no test of one thread makes that */
    return 0;        /* LCOV_EXCL_LINE */
}

/* The same, after a first look at the block's header (header_looks_canonical;
 * frame_more said the block starts inside the input): blocks
 * of 16 bytes each with a diagnostic paid brun_first's registers and tests,
 * ~25 instructions a block more than this look (diag-storm, PCQ_BULK). */
static PCQ_INLINE int brun_item(rd *r, const frame *f, pcq_item *it)
{
    if (!header_looks_canonical(r, f->pos)) return 0;
    return brun_first(r, f, it);
}

/* B_MC_BULK: the _PERF_MULTI_COUNTERS of a canonical block. In a type 2
 * block its values follow (Figure 7), passed with it, and the block ends
 * there: its body frame goes. Its fields are read again, so they are held
 * inside the block (f->end, inside the input) as the run found them:
 * bytes changed since (a buffer shared with a writer) are never followed
 * outside it. 0 when they are not (step_body: the parsers say what is
 * wrong). */
static int bulk_multi_counters(rd *r, frame *f, pcq_item *it)
{
    size_t at = f->pos, size;
    uint32_t count;
    if ((size = canonical_multi_counters(r->b, at, f->end, &count)) == 0 ||
        (f->btype == PCQ_PERF_MULTI_COUNTERS && 16 * (uint64_t)count != f->end - at - size))
        return 0;
    item_begin(it, PCQ_S_MULTI_COUNTERS, f, at);
    it->extent = size;
    it->u.multi.size = (uint32_t)size;
    it->u.multi.count = count;
    it->u.multi.ids.ptr = r->b + at + MULTI_COUNTERS_SIZE;
    it->u.multi.ids.len = (size_t)count * COUNTER_ID_SIZE;
    if (f->btype == PCQ_PERF_MULTI_COUNTERS) {
        /* LCOV_EXCL_START: a type 2 block's body frame comes from pend_body (its bytes changed: its
         * values' room no longer fits its count) */
        it->values = at + size;
        it->values_ids = at + MULTI_COUNTERS_SIZE;
        it->nvalues = count;
        it->values_fast = 1;
        r->w->nframes--; /* f, on top */
        return STEP_ITEM;
    }                                     /* LCOV_EXCL_STOP */
    f->ids_at = at + MULTI_COUNTERS_SIZE; /* a PERF_COUNTERSET block: its instances next (Figure 9) */
    f->nvalues = count;
    f->count_at = at + MULTI_COUNTERS_dwCounters;
    f->pos = at + size;
    f->phase = B_MI_BULK;
    return STEP_ITEM;
}

/* PCQ_BULK: a run of `count` instances checked canonical from the top
 * frame f's position to `end`, for the inline step (pcq_walk_run_item_),
 * which keeps the run's position in the walk itself (a frame's address, its
 * index and count cost it ~11 instructions an instance); run_sync brings
 * the frame up to date from it (pcq_walk_next does, before any other step),
 * run_stop ends the run there. */
static void run_start(pcq_walk *w, const frame *f, uint32_t count, size_t end)
{
    w->run_vb = 16 * (size_t)f->nvalues;
    /* checked: count (16 + vb) bytes or more from f->pos (bytes changed since: an empty run, and the
     * walk's checks take the instances) */
    if (end - f->pos < 16 + w->run_vb) count = 0;
    w->run = count;
    w->run_lim = count ? end - 16 - w->run_vb : 0;
    w->run_pos = f->pos;
    w->run_base = f->index + count;
    w->run_nv = f->nvalues;
    w->run_ids = f->ids_at;
    w->run_depth = f->depth;
    w->run_on = 1;
}

static void run_sync(pcq_walk *w)
{
    frame *f = &w->frames[w->nframes - 1]; /* the run's: nothing else moves while it is on */
    uint32_t taken = w->run_base - w->run - f->index;
    f->pos = w->run_pos;
    f->index += taken;
    f->left -= taken;
    if (!w->run) w->run_on = 0;
}

static void run_stop(pcq_walk *w)
{
    if (w->run_on) run_sync(w);
    w->run = 0;
    w->run_on = 0;
}

/* B_MI_BULK: the _PERF_MULTI_INSTANCES of a canonical block, which ends the
 * block: its instances' frame takes the place of the body's, and they are
 * one run (pcq_walk_run_item_ takes them inline, each held inside the
 * run). dwTotalSize is read again and held to the block's end, as
 * bulk_multi_counters holds its fields (0: the parsers run). */
static int bulk_multi_instances(rd *r, frame *f, pcq_item *it)
{
    pcq_walk *w = r->w;
    size_t at = f->pos, size, ids_at = f->ids_at;
    uint32_t count, nvalues = f->btype == PCQ_PERF_COUNTERSET ? f->nvalues : 1;
    unsigned depth = f->depth + 1u;
    uint8_t btype = f->btype;
    frame *insts;
    if (f->end - at < MULTI_INSTANCES_SIZE || ld32(r->b + at + MULTI_INSTANCES_dwTotalSize) != f->end - at)
        return 0;
    size = f->end - at;
    count = ld32(r->b + at + MULTI_INSTANCES_dwInstances);
    item_begin(it, PCQ_S_MULTI_INSTANCES, f, at);
    it->extent = size;
    it->u.instances.size = (uint32_t)size;
    it->u.instances.count = count;
    w->nframes--; /* f, on top */
    insts = push(w, FR_DATA_INSTANCES, at + MULTI_INSTANCES_SIZE, at + size, depth);
    counted(insts, count, FL_EXACT, at + MULTI_INSTANCES_dwInstances, MULTI_INSTANCES_NAME ".dwInstances", at,
            MULTI_INSTANCES_NAME ".dwTotalSize");
    insts->nvalues = nvalues;
    insts->btype = btype;
    insts->ids_at = btype == PCQ_PERF_COUNTERSET ? ids_at : 0;
    run_start(w, insts, count, at + size); /* canonical_block checked them all */
    w->run_skip = 0;
    return STEP_ITEM;
}

/* A decoder (WALK_PASS) steps over the canonical blocks that come next
 * without an item each (canonical_data's test of a block, at an 8-aligned
 * offset): such a block has no error and no diagnostic, so only the count
 * the frame keeps changes. On a buffer that is not canonical (a diagnostic
 * in one block), a _PERF_MULTI_COUNTERS reply's blocks cost the walk ~300
 * instructions a value each before (18.7 Ir/B). 1 when it passed any. Out
 * of line, and only where the blocks canonical_prefix found are, or where a
 * block's dwSize and Reserved look canonical (pass_worth): blocks of 16
 * bytes each with a diagnostic paid ~70 instructions a block more. */
static PCQ_NOINLINE int pass_blocks(rd *r, frame *f)
{
    size_t at = f->pos, lim = f->end < r->len ? f->end : r->len;
    uint32_t n = f->left;
    /* blocks canonical_prefix found so, read again in this call; the bound
     * as an integer all the same (aux[0] <= len) */
    for (; n > 0 && at < r->w->aux[0] && r->w->aux[0] - at >= COUNTER_HEADER_SIZE; n--)
        at += ld32(r->b + at + COUNTER_HEADER_dwSize);
    if (at <= lim && at != r->w->aux[0]) /* (the one canonical_prefix stopped at is not) */
        at = canonical_blocks(r->b, at, lim, &n);
    if (n == f->left) return 0;
    f->index += f->left - n;
    f->left = n;
    f->pos = at;
    return 1;
}

/* Whether pass_blocks may pass the block at f->pos (frame_more said it is
 * there: f->pos < the input's length): one canonical_prefix found, or one
 * at an 8-aligned offset (after a block of a packed layout it may not be,
 * and says so: PCQ_DIAG_UNALIGNED) whose dwSize and Reserved look right. */
static PCQ_INLINE int pass_worth(const rd *r, const frame *f)
{
    size_t at = f->pos;
    return at < r->w->aux[0] || (at != r->w->aux[0] && header_looks_canonical(r, at));
}

/* A block's header, checked field by field; its body becomes a frame of
 * its own. */
static PCQ_FORCE_INLINE int block_header(rd *r, frame *f, pcq_item *it)
{
    pcq_block *b = &it->u.block;
    frame *body;
    size_t at = f->pos;
    int rc;
    item_begin(it, PCQ_S_COUNTER_HEADER, f, at);
    if ((rc = parse_block(r, f, at, b)) != 0) return rc;
    it->extent = b->size;
    body = push(r->w, FR_BODY, at + COUNTER_HEADER_SIZE, at + b->size, f->depth + 1u);
    body->btype = (uint8_t)b->type;
    body->size_at = at + COUNTER_HEADER_dwSize;
    body->size_what = COUNTER_HEADER_NAME ".dwSize";
    body->phase = b->type == PCQ_PERF_ERROR_RETURN      ? B_END
                  : b->type == PCQ_PERF_SINGLE_COUNTER  ? B_VALUE1
                  : b->type == PCQ_PERF_MULTI_INSTANCES ? B_MI
                                                        : B_MC;
    rc = item_done(f, at + b->size);
    if (b->type == PCQ_PERF_SINGLE_COUNTER && bulk_on(r->w)) bulk_value1(r, body, it);
    return rc;
}

/* A block: a decoder passes the canonical ones (pass_blocks); under
 * PCQ_BULK the canonical ones from it are checked as a run (brun_item); any other, by its
 * header's fields. */
static int step_block(rd *r, frame *f, pcq_item *it)
{
    int rc;
    if ((r->w->mode & WALK_PASS) && pass_worth(r, f) && pass_blocks(r, f) && (rc = frame_more(r, f)) <= 0)
        return rc; /* the blocks passed were the last */
    /* (a decoder's pass_blocks passed the canonical blocks: this one is not) */
    if (bulk_on(r->w) && !(r->w->mode & WALK_PASS) && brun_item(r, f, it)) return STEP_ITEM;
    return block_header(r, f, it);
}

static int step_id(rd *r, frame *f, pcq_item *it)
{
    size_t at = f->pos;
    int rc;
    item_begin(it, PCQ_S_COUNTER_ID, f, at);
    if ((rc = need(r, f, at, COUNTER_ID_SIZE, MULTI_COUNTERS_NAME ".CounterId")) != 0) return rc;
    it->u.id = ld32(r->b + at);
    return item_done(f, at + COUNTER_ID_SIZE);
}

static int step_value(rd *r, frame *f, pcq_item *it)
{
    size_t at = f->pos;
    int rc;
    item_begin(it, PCQ_S_COUNTER_DATA, f, at);
    it->single = f->btype == PCQ_PERF_MULTI_INSTANCES;
    if (f->ids_at) {
        it->has_counter_id = 1;
        it->counter_id = ld32(r->b + f->ids_at + (size_t)f->index * COUNTER_ID_SIZE);
    }
    if ((rc = parse_value(r, f, at, &it->u.value)) != 0) return rc;
    it->u.value.counter_id = it->counter_id; /* as the iterators give it */
    it->size = it->extent = it->u.value.size;
    return item_done(f, at + it->u.value.size);
}

/* An instance of a type 4 or 6 block; its values become a frame. */
/* PCQ_BULK: an instance and its values in the canonical layout (what
 * canonical_instances accepts) need no parser: nothing in them can be an
 * error or a diagnostic. Reads it as parse_data_instance would and moves
 * past its values; 0 when it is not canonical (the parsers then run). */
static int bulk_instance(rd *r, frame *f, pcq_item *it)
{
    const uint8_t *b = r->b;
    size_t at = f->pos, room = (f->end < r->len ? f->end : r->len) - at, vb;
    size_t size, last;
    if ((at & 7) || room < 16 || f->nvalues > room / 16) return 0;
    vb = 16 * (size_t)f->nvalues;
    size = ld32(b + at + INSTANCE_HEADER_Size);
    if (size < 16 || (size & 7) || size > room || vb > room - size) return 0;
    last = at + size - 8; /* as canonical_instances */
    if (any_zero(name_zeros(b, at + INSTANCE_HEADER_InstanceName, last, ZEROS_NONE)) | bad_name_end(b + last))
        return 0;
    if (f->nvalues == 1 ? bad_value(ld64(b + last + 8)) != 0 : bad_values(b, last + 8, f->nvalues, 0))
        return 0;
    run_start(r->w, f, 1, at + size + vb); /* f is the top frame: a run of one, taken at once */
    pcq_walk_item_at_(r->w, b, it, at, size);
    run_sync(r->w);
    return STEP_ITEM;
}

static int step_data_instance(rd *r, frame *f, pcq_item *it)
{
    pcq_data_instance *d = &it->u.data_instance;
    frame *v;
    size_t at = f->pos;
    int rc;
    item_begin(it, PCQ_S_DATA_INSTANCE, f, at); /* PCQ_BULK: pcq_walk_next tried the fast path */
    if ((rc = parse_data_instance(r, f, at, d)) != 0) return rc;
    it->size = it->extent = d->size;
    if (f->nvalues == 0) {   /* no values frame to step */
        if (bulk_on(r->w)) { /* what drain() says of an empty one */
            it->values = at + d->size;
            it->values_fast = !(it->values & 7);
        }
        return item_done(f, at + d->size);
    }
    v = push(r->w, FR_VALUES, at + d->size, f->end, f->depth + 1u);
    counted(v, f->nvalues, FL_CONT, f->btype == PCQ_PERF_COUNTERSET ? f->ids_at - 4 : f->size_at,
            f->btype == PCQ_PERF_COUNTERSET ? MULTI_COUNTERS_NAME ".dwCounters"
                                            : MULTI_INSTANCES_NAME ".dwTotalSize",
            f->size_at, f->size_what);
    v->btype = f->btype;
    v->ids_at = f->btype == PCQ_PERF_COUNTERSET ? f->ids_at : 0;
    rc = item_done(f, at + d->size);
    if (bulk_on(r->w)) {
        it->values = at + d->size;
        it->values_ids = v->ids_at;
        drain(r, &it->nvalues, &it->values_fast);
    }
    return rc;
}

static int step_list(rd *r, frame *f, pcq_item *it)
{
    int rc = frame_more(r, f);
    if (rc <= 0) return rc;
    switch (f->kind) {
    case FR_COUNTERS: return step_counter(r, f, it);
    case FR_ENTRIES: return step_entry(r, f, it);
    case FR_GUIDS: return step_guid(r, f, it);
    case FR_INSTANCES:
        item_begin(it, PCQ_S_INSTANCE, f, f->pos);
        if ((rc = parse_instance(r, f, f->pos, &it->u.instance)) != 0) return rc;
        it->size = it->extent = it->u.instance.size;
        return item_done(f, f->pos + it->u.instance.size);
    case FR_IDENTIFIERS:
        item_begin(it, PCQ_S_COUNTER_IDENTIFIER, f, f->pos);
        if ((rc = parse_identifier(r, f, f->pos, &it->u.identifier)) != 0) return rc;
        it->size = it->extent = it->u.identifier.size;
        return item_done(f, f->pos + it->u.identifier.size);
    case FR_BLOCKS: return step_block(r, f, it);
    case FR_IDS: return step_id(r, f, it);
    case FR_VALUES: return step_value(r, f, it);
    default: return step_data_instance(r, f, it); /* FR_DATA_INSTANCES */
    }
}

/* ---- a block's body (§3.1.4.1.6, Figures 6-9) ---- */

/* In a PERF_COUNTERSET block, _PERF_MULTI_COUNTERS.dwSize (at mc) must
 * leave room in the block for the _PERF_MULTI_INSTANCES that follows. */
static int mi_room(rd *r, const frame *body, size_t mc)
{
    size_t claim = ld32(r->b + mc) + (size_t)MULTI_INSTANCES_SIZE;
    if (body->end - body->pos >= MULTI_INSTANCES_SIZE) return PCQ_OK;
    return rd_fail(r, claim > r->len - mc ? PCQ_ERR_TRUNCATED : PCQ_ERR_EXCEEDS_CONTAINER, mc,
                   MULTI_COUNTERS_NAME ".dwSize");
}

/* PCQ_BULK: a _PERF_MULTI_COUNTERS's ids (on top when it has a frame), and
 * in a type 2 block the values after them (Figure 7), passed with it. */
static void bulk_counters(rd *r, frame *body, pcq_item *it, int ids)
{
    pcq_item v;
    uint32_t n;
    int fast;
    if (ids) drain(r, &n, &fast);
    if (r->w->err.code || body->btype != PCQ_PERF_MULTI_COUNTERS) return;
    it->values = body->pos;
    it->values_ids = body->ids_at;
    step_body(r, body, &v); /* B_VALUES: pushes the values frame, unless no value can be there */
    if (r->w->frames[r->w->nframes - 1].kind == FR_VALUES) {
        drain(r, &it->nvalues, &it->values_fast);
        return;
    }
    it->nvalues = 0;
    it->values_fast = !(body->pos & 7); /* what drain says of an empty list */
}

/* _PERF_MULTI_COUNTERS, then its ID array as a frame. */
static int body_multi_counters(rd *r, frame *f, pcq_item *it)
{
    uint32_t size, count;
    size_t at = f->pos;
    frame *ids;
    int rc;
    item_begin(it, PCQ_S_MULTI_COUNTERS, f, at);
    if ((rc = parse_multi_counters(r, f, at, &size, &count)) != 0) return rc;
    it->extent = size;
    it->u.multi.size = size;
    it->u.multi.count = count;
    it->u.multi.ids.ptr = r->b + at + MULTI_COUNTERS_SIZE;
    it->u.multi.ids.len = (size_t)count * COUNTER_ID_SIZE;
    f->ids_at = at + MULTI_COUNTERS_SIZE;
    f->nvalues = count;
    f->count_at = at + MULTI_COUNTERS_dwCounters;
    f->pos = at + size;
    f->phase = f->btype == PCQ_PERF_MULTI_COUNTERS ? B_VALUES : B_MI;
    /* The frame is the whole dwSize, so that its end is checked against the
     * input (its slack has been: parse_multi_counters). An empty array that
     * ends inside the input has nothing such a frame could find: no frame. */
    ids = NULL;
    if (count || size > r->len - at) {
        ids = push(r->w, FR_IDS, at + MULTI_COUNTERS_SIZE, at + size, f->depth + 1u);
        counted(ids, count, FL_EXACT, at + MULTI_COUNTERS_dwCounters, MULTI_COUNTERS_NAME ".dwCounters", at,
                MULTI_COUNTERS_NAME ".dwSize");
    }
    if (bulk_on(r->w)) bulk_counters(r, f, it, ids != NULL);
    return STEP_ITEM;
}

/* _PERF_MULTI_INSTANCES, then its instances as a frame. In a PERF_COUNTERSET
 * block, _PERF_MULTI_COUNTERS.dwSize must have left room for it. */
static int body_multi_instances(rd *r, frame *f, pcq_item *it)
{
    uint32_t size, count, nvalues = f->btype == PCQ_PERF_COUNTERSET ? f->nvalues : 1;
    size_t at = f->pos, mc = f->ids_at - MULTI_COUNTERS_SIZE;
    frame *insts;
    int rc;
    if (f->btype == PCQ_PERF_COUNTERSET && (rc = mi_room(r, f, mc)) != 0) return rc;
    item_begin(it, PCQ_S_MULTI_INSTANCES, f, at);
    if ((rc = parse_multi_instances(r, f, at, nvalues, &size, &count)) != 0) return rc;
    it->extent = size;
    it->u.instances.size = size;
    it->u.instances.count = count;
    f->pos = at + size;
    f->phase = B_END;
    insts = push(r->w, FR_DATA_INSTANCES, at + MULTI_INSTANCES_SIZE, at + size, f->depth + 1u);
    r->w->run_skip = 0; /* PCQ_BULK: bulk_step tries a run at the first instance */
    counted(insts, count, FL_EXACT, at + MULTI_INSTANCES_dwInstances, MULTI_INSTANCES_NAME ".dwInstances", at,
            MULTI_INSTANCES_NAME ".dwTotalSize");
    insts->nvalues = nvalues;
    insts->btype = f->btype;
    insts->ids_at = f->btype == PCQ_PERF_COUNTERSET ? f->ids_at : 0;
    return STEP_ITEM;
}

/* The end of a block: its dwSize is all in the input, and fewer than 8 of
 * its bytes are unused (D6); a PERF_ERROR_RETURN block "MUST contain one
 * _PERF_COUNTER_HEADER" and nothing else, a diagnostic (D6). */
static int body_end(rd *r, frame *f)
{
    size_t block = f->size_at - COUNTER_HEADER_dwSize;
    if (f->end > r->len) return rd_fail(r, PCQ_ERR_TRUNCATED, f->size_at, f->size_what);
    if (f->btype == PCQ_PERF_ERROR_RETURN) {
        if (f->end > block + COUNTER_HEADER_SIZE)
            return rd_diag(r, PCQ_DIAG_TRAILING_BYTES, block + COUNTER_HEADER_SIZE,
                           "inside a PERF_ERROR_RETURN block");
        return STEP_DONE;
    }
    if (f->end - f->pos >= 8) return rd_fail(r, PCQ_ERR_COUNT_MISMATCH, f->size_at, f->size_what);
    return STEP_DONE;
}

static int step_body(rd *r, frame *f, pcq_item *it)
{
    frame *v;
    int rc;
    switch (f->phase) {
    case B_VALUE1: /* Figure 6: one value */
        f->phase = B_END;
        item_begin(it, PCQ_S_COUNTER_DATA, f, f->pos);
        it->single = 1;
        if ((rc = parse_value(r, f, f->pos, &it->u.value)) != 0) return rc;
        it->size = it->extent = it->u.value.size;
        f->pos += it->u.value.size;
        return STEP_ITEM;
    case B_MC: return body_multi_counters(r, f, it);
    case B_MC_BULK: /* the parsers when the bytes changed since brun_start checked them */
        if (bulk_multi_counters(r, f, it)) return STEP_ITEM;
        f->phase = B_MC;
        return body_multi_counters(r, f, it);
    case B_VALUES: /* Figure 7: dwCounters values */
        f->phase = B_END;
        if (!f->nvalues && f->end <= r->len && f->end - f->pos < 8)
            return STEP_ON; /* none, and nothing else in the block: the frame would end at once */
        v = push(r->w, FR_VALUES, f->pos, f->end, f->depth);
        counted(v, f->nvalues, FL_EXACT | FL_CONT, f->count_at, MULTI_COUNTERS_NAME ".dwCounters", f->size_at,
                f->size_what);
        v->btype = f->btype;
        v->ids_at = f->ids_at;
        return STEP_ON;
    case B_MI: return body_multi_instances(r, f, it);
    case B_MI_BULK:
        if (bulk_multi_instances(r, f, it)) return STEP_ITEM;
        f->phase = B_MI;
        return body_multi_instances(r, f, it);
    default: rc = body_end(r, f); return rc != 0 ? rc : STEP_DONE;
    }
}

/* ---- the root of each kind ---- */

/* counterset-info (§3.1.4.1.2, Figure 1): the header, NumCounters counters
 * (whose set-wide checks are prepared once all are in the input), then at
 * most 47 trailing bytes, a diagnostic (48 or more would be a counter). */
static int root_counterset(rd *r, frame *f, pcq_item *it)
{
    uint32_t n;
    size_t room;
    frame *c;
    int rc;
    if (f->phase == R_END) {
        room = r->len - f->pos;
        f->phase = R_DONE;
        if (room >= COUNTER_REG_INFO_SIZE)
            return rd_fail(r, PCQ_ERR_COUNT_MISMATCH, COUNTERSET_REG_INFO_NumCounters,
                           COUNTERSET_REG_INFO_NAME ".NumCounters");
        if (room > 0) return rd_diag(r, PCQ_DIAG_TRAILING_BYTES, f->pos, "after the last counter");
        return STEP_DONE;
    }
    item_begin(it, PCQ_S_COUNTERSET_REG_INFO, f, 0);
    if ((rc = need(r, f, 0, COUNTERSET_REG_INFO_SIZE, COUNTERSET_REG_INFO_NAME)) != 0) return rc;
    n = ld32(r->b + COUNTERSET_REG_INFO_NumCounters);
    room = (r->len - COUNTERSET_REG_INFO_SIZE) / COUNTER_REG_INFO_SIZE;
    if (n > PCQ_MAX_COUNTERS)
        return rd_fail(r, n > room ? PCQ_ERR_TRUNCATED : PCQ_ERR_LIMIT, COUNTERSET_REG_INFO_NumCounters,
                       COUNTERSET_REG_INFO_NAME ".NumCounters");
    if ((rc = check_fields(r, PCQ_S_COUNTERSET_REG_INFO, 0, 0)) != 0) return rc;
    read_guid_at(r->b, &it->u.set.guid);
    it->u.set.counterset_type = ld32(r->b + COUNTERSET_REG_INFO_CounterSetType);
    it->u.set.detail_level = ld32(r->b + COUNTERSET_REG_INFO_DetailLevel);
    it->u.set.num_counters = n;
    it->u.set.instance_type = ld32(r->b + COUNTERSET_REG_INFO_InstanceType);
    it->extent = COUNTERSET_REG_INFO_SIZE + (size_t)n * COUNTER_REG_INFO_SIZE;
    f->phase = R_END;
    c = push(r->w, FR_COUNTERS, COUNTERSET_REG_INFO_SIZE, r->len, 0);
    counted(c, n, FL_INPUT | FL_CONT, COUNTERSET_REG_INFO_NumCounters,
            COUNTERSET_REG_INFO_NAME ".NumCounters", 0, COUNTERSET_REG_INFO_NAME);
    return STEP_ITEM;
}

/* The string block's header: dwSize inside the input (a dwOffset means
 * nothing without its whole block, D4), the header array inside dwSize;
 * then the convention, decided once. */
static int root_strings_head(rd *r, frame *f, pcq_item *it)
{
    pcq_strings *s = &it->u.strings;
    const char *size_what = STRING_BUFFER_HEADER_NAME ".dwSize";
    const char *count_what = STRING_BUFFER_HEADER_NAME ".dwCounters";
    sblock sb;
    readings rs;
    frame *e;
    int rc;
    item_begin(it, PCQ_S_STRING_BUFFER_HEADER, f, 0);
    if ((rc = need(r, f, 0, STRING_BUFFER_HEADER_SIZE, STRING_BUFFER_HEADER_NAME)) != 0) return rc;
    s->size = ld32(r->b + STRING_BUFFER_HEADER_dwSize);
    s->num_counters = ld32(r->b + STRING_BUFFER_HEADER_dwCounters);
    if (s->size < STRING_BUFFER_HEADER_SIZE) return rd_fail(r, PCQ_ERR_SIZE_TOO_SMALL, 0, size_what);
    if (s->size > r->len) return rd_fail(r, PCQ_ERR_TRUNCATED, 0, size_what);
    /* §3.1.4.1.2: dwCounters _STRING_COUNTER_HEADER MUST follow. Compare
     * counts, never products: dwCounters * 8 wraps a 32-bit size_t. */
    if (s->num_counters > (s->size - STRING_BUFFER_HEADER_SIZE) / STRING_COUNTER_HEADER_SIZE)
        return rd_fail(r,
                       s->num_counters > (r->len - STRING_BUFFER_HEADER_SIZE) / STRING_COUNTER_HEADER_SIZE
                           ? PCQ_ERR_TRUNCATED
                           : PCQ_ERR_EXCEEDS_CONTAINER,
                       STRING_BUFFER_HEADER_dwCounters, count_what);
    if (s->num_counters > PCQ_MAX_COUNTERS)
        return rd_fail(r, PCQ_ERR_LIMIT, STRING_BUFFER_HEADER_dwCounters, count_what);
    sb.b = r->b;
    sb.size = s->size;
    sb.n = s->num_counters;
    sb.area = STRING_BUFFER_HEADER_SIZE + (size_t)sb.n * STRING_COUNTER_HEADER_SIZE;
    last_nuls(r->b, sb.size, sb.after);
    read_entries(&sb, &rs);
    sb.ascending = rs.ascending;
    s->convention = decide_convention(&sb, &rs);
    s->block.ptr = r->b;
    s->block.len = s->size;
    it->extent = s->size;
    r->w->aux[0] = sb.after[0];
    r->w->aux[1] = sb.after[1];
    r->w->aux[2] = convention_base(&sb, s->convention);
    r->w->aux[3] = rs.ok[r->w->aux[2] != 0] ? rs.end[r->w->aux[2] != 0] : 0; /* root_strings_end needs it */
    /* the NUL map (map_build) need not cover what is before the first text: no start is below base + min */
    r->w->map_from = rs.min < sb.size - r->w->aux[2] ? (r->w->aux[2] + rs.min) & ~(size_t)7 : 0;
    /* the texts' ends (and with diagnostics the set-wide check) in linear
     * time: check_fields prepares them at dwCounters when it raises
     * diagnostics, here when it does not and the walk measures texts */
    r->w->set_checks = 0;
    r->w->memo[0] = r->w->memo[1] = r->w->memo[2] = r->w->memo[3] = 0;
    if (!diags_on(r->w) && !(r->w->mode & WALK_QUICK)) strings_prepare(r, &sb, r->w->aux[2]);
    if ((rc = check_fields(r, PCQ_S_STRING_BUFFER_HEADER, 0, 0)) != 0) return rc;
    f->phase = R_END;
    e = push(r->w, FR_ENTRIES, STRING_BUFFER_HEADER_SIZE, sb.area, 1);
    counted(e, sb.n, 0, STRING_BUFFER_HEADER_dwCounters, count_what, 0, size_what);
    return STEP_ITEM;
}

/* After the entries: bytes no string covers (a diagnostic), 8 or more
 * unused at the end of dwSize (D6), and bytes after dwSize (a diagnostic). */
static int root_strings_end(rd *r, frame *f)
{
    sblock sb;
    int rc;
    sb.b = r->b;
    sb.size = ld32(r->b + STRING_BUFFER_HEADER_dwSize);
    sb.n = ld32(r->b + STRING_BUFFER_HEADER_dwCounters);
    sb.area = STRING_BUFFER_HEADER_SIZE + (size_t)sb.n * STRING_COUNTER_HEADER_SIZE;
    sb.ascending = -1;
    f->phase = R_DONE;
    if ((rc = strings_unreferenced(r, &sb, r->w->aux[2])) != 0) return rc;
    if (sb.size - (r->w->aux[3] ? r->w->aux[3] : strings_end(&sb, r->w->aux[2])) >= 8)
        return rd_fail(r, PCQ_ERR_COUNT_MISMATCH, 0, STRING_BUFFER_HEADER_NAME ".dwSize");
    if (r->len > sb.size) return rd_diag(r, PCQ_DIAG_TRAILING_BYTES, sb.size, "after the string block");
    return STEP_DONE;
}

/* string (D10), guid, counter-info: one structure, then trailing bytes. */
static int root_single(rd *r, frame *f, pcq_item *it)
{
    pcq_walk *w = r->w;
    size_t nul;
    int rc;
    if (f->phase == R_END) {
        f->phase = R_DONE;
        if (r->len > w->aux[0])
            return rd_diag(r, PCQ_DIAG_TRAILING_BYTES, w->aux[0],
                           w->kind == PCQ_KIND_STRING ? "after the string"
                           : w->kind == PCQ_KIND_GUID ? "after the GUID"
                                                      : "after " COUNTER_REG_INFO_NAME);
        return STEP_DONE;
    }
    f->phase = R_END;
    if (w->kind == PCQ_KIND_STRING) {
        item_begin(it, PCQ_S_STRING, f, 0);
        nul = find_nul16(r->b, 0, r->len);
        if (nul == r->len) return rd_fail(r, PCQ_ERR_NO_NUL, 0, STRING_fields[0].what);
        it->u.text.ptr = r->b;
        it->u.text.len = nul;
        it->size = it->extent = w->aux[0] = nul + NUL16_SIZE;
        return STEP_ITEM;
    }
    if (w->kind == PCQ_KIND_GUID) {
        item_begin(it, PCQ_S_PROVIDER_GUID, f, 0);
        if ((rc = need(r, f, 0, GUID_SIZE, GUID_NAME)) != 0) return rc;
        read_guid_at(r->b, &it->u.guid);
        w->aux[0] = GUID_SIZE;
        return STEP_ITEM;
    }
    item_begin(it, PCQ_S_COUNTER_REG_INFO, f, 0);
    if ((rc = need(r, f, 0, COUNTER_REG_INFO_SIZE, COUNTER_REG_INFO_NAME)) != 0 ||
        (rc = check_fields(r, PCQ_S_COUNTER_REG_INFO, 0, 0)) != 0)
        return rc;
    read_counter_reg(r->b, &it->u.counter);
    w->aux[0] = COUNTER_REG_INFO_SIZE;
    return STEP_ITEM;
}

/* data (§3.1.4.1.6, Figure 5): the header, dwNumCounter blocks inside
 * dwTotalSize, then trailing bytes (a diagnostic: D6). */
static int root_data(rd *r, frame *f, pcq_item *it)
{
    pcq_data *d = &it->u.data;
    frame *b;
    int rc;
    if (f->phase == R_END) {
        f->phase = R_DONE;
        if (r->len > f->pos) return rd_diag(r, PCQ_DIAG_TRAILING_BYTES, f->pos, "after dwTotalSize");
        return STEP_DONE;
    }
    item_begin(it, PCQ_S_DATA_HEADER, f, 0);
    if ((rc = parse_data_header(r, f, d)) != 0) return rc;
    it->extent = d->total_size;
    f->phase = R_END;
    f->pos = d->total_size;
    b = push(r->w, FR_BLOCKS, DATA_HEADER_SIZE, d->total_size, 1);
    counted(b, d->num_counters, FL_EXACT, DATA_HEADER_dwNumCounter, DATA_HEADER_NAME ".dwNumCounter", 0,
            DATA_HEADER_NAME ".dwTotalSize");
    return STEP_ITEM;
}

static PCQ_NOINLINE int step_root(rd *r, frame *f, pcq_item *it)
{
    pcq_walk *w = r->w;
    if (f->phase == R_DONE) return STEP_DONE;
    switch (w->kind) {
    case PCQ_KIND_COUNTERSET_INFO: return root_counterset(r, f, it);
    case PCQ_KIND_STRINGS: return f->phase == R_FIRST ? root_strings_head(r, f, it) : root_strings_end(r, f);
    case PCQ_KIND_DATA: return root_data(r, f, it);
    case PCQ_KIND_GUIDS:
    case PCQ_KIND_INSTANCES:
    case PCQ_KIND_IDENTIFIERS:
        /* arrays to the end of the input: a list frame of its own */
        f->phase = R_DONE;
        push(w,
             w->kind == PCQ_KIND_GUIDS       ? FR_GUIDS
             : w->kind == PCQ_KIND_INSTANCES ? FR_INSTANCES
                                             : FR_IDENTIFIERS,
             0, r->len, 0);
        return STEP_ON;
    default: return root_single(r, f, it);
    }
}

void pcq_walk_begin(pcq_walk *w, pcq_kind kind, const void *buf, size_t len, const pcq_opts *opts)
{
    frame *root;
    w->buf = (const uint8_t *)buf;
    w->len = buf ? len : 0;
    w->opts = opts;
    w->kind = (int)kind;
    w->nframes = 0;
    w->scratch = NULL;
    w->nsorted = 0;
    w->set_checks = 0;
    w->cut.type = PCQ_S_NONE;
    w->run = w->run_skip = w->run_base = w->run_nv = 0;
    w->run_lim = w->run_pos = w->run_ids = w->run_vb = 0;
    w->run_on = w->run_depth = 0;
    w->pend_at = w->pend_end = 0;
    w->pend_size = w->pend_count = w->pend_run = w->pend_count2 = 0;
    w->pend_depth = w->pend_type = w->pend_btype = 0;
    w->brun_pos = w->brun_lim = w->brun_mi = 0;
    w->brun = w->brun_base = w->brun_count = 0;
    w->brun_on = w->brun_depth = 0;
    w->mode = (opts && (opts->flags & PCQ_BULK) ? WALK_BULK : 0u) |
              (opts && (opts->on_diag || (opts->flags & PCQ_STRICT)) ? WALK_DIAGS : 0u);
    w->aux[0] = w->aux[1] = w->aux[2] = w->aux[3] = 0;
    pcq_error_set(&w->err, PCQ_OK, 0, NULL);
    if (!buf && len) {
        pcq_error_set(&w->err, PCQ_ERR_INVALID_ARG, 0, "buf");
        return;
    }
    if (kind <= PCQ_KIND_NONE || kind >= PCQ_KIND_END_) {
        pcq_error_set(&w->err, PCQ_ERR_INVALID_ARG, 0, "kind");
        return;
    }
    root = push(w, FR_ROOT, 0, w->len, 0);
    root->size_at = 0;
    root->size_what = kind == PCQ_KIND_COUNTERSET_INFO ? COUNTERSET_REG_INFO_NAME
                      : kind == PCQ_KIND_COUNTER_INFO  ? COUNTER_REG_INFO_NAME
                      : kind == PCQ_KIND_STRINGS       ? STRING_BUFFER_HEADER_NAME
                      : kind == PCQ_KIND_DATA          ? DATA_HEADER_NAME
                                                       : GUID_NAME;
}

/* On an error: how much of the structure being read can be shown. A step
 * sets it->type only when it begins its item (item_begin), so an item still
 * of no type is a container's error: nothing of it is shown. */
static void item_cut(const pcq_walk *w, pcq_item *it)
{
    size_t n = 0;
    if (it->type == PCQ_S_NONE) item_clear(it);
    if (it->type != PCQ_S_NONE && it->offset < w->len) {
        n = layouts[it->type].info.size;
        if (n > w->len - it->offset) n = w->len - it->offset;
        if (w->err.offset > it->offset && n > w->err.offset - it->offset) n = w->err.offset - it->offset;
    }
    it->size = n;
    it->extent = 0;
    it->partial = it->type != PCQ_S_NONE;
}

static int walk_step(pcq_walk *w, pcq_item *it);

static int list_step(pcq_walk *w, frame *f, pcq_item *it);

/* A list that ended (on top), popped as walk_step's loop pops it; its
 * parent, when a list too, stepped by list_step (an instance's values end,
 * then the next instance: a packed instance with a diagnostic, 19 bytes,
 * bench/hostile.c packed-pad, paid the loop's entry for it, 48.6 -> 45.3
 * Ir/B). Apart from list_step, so that its own step keeps its code: in it,
 * a loop cost every list's item ~9 instructions. */
static PCQ_NOINLINE int list_pop(pcq_walk *w, pcq_item *it)
{
    frame *f = &w->frames[--w->nframes]; /* the list, on top; nframes >= 2: it has a parent */
    if (f->flags & FL_CONT) w->frames[w->nframes - 1].pos = f->pos;
    f = &w->frames[w->nframes - 1];
    if (f->kind == FR_ROOT || f->kind == FR_BODY) return walk_step(w, it);
    return list_step(w, f, it); /* one frame fewer each time: at most PCQ_WALK_FRAMES_ deep */
}

/* What a list's step (its frame on top) returned: 1 for an item, an error
 * (the item cut), or at the list's end the next item after it. A list's
 * step yields, ends or fails (only a root or a body pushes a frame:
 * STEP_ON), and a list has a parent, the root at least. */
static PCQ_FORCE_INLINE int list_result(pcq_walk *w, pcq_item *it, int rc)
{
    if (rc == STEP_ITEM) return 1;
    if (rc < 0) {
        item_cut(w, it);
        return rc;
    }
    if (PCQ_NEVER(rc != STEP_DONE || w->nframes < 2)) return walk_step(w, it);
    return list_pop(w, it); /* the list, on top */
}

/* The next item of a list frame, as walk_step's loop would step it, without
 * that loop's large stack frame; a list's end is popped by list_pop. */
static PCQ_NOINLINE int list_step(pcq_walk *w, frame *f, pcq_item *it)
{
    rd r;
    rd_walk(&r, w);
    it->type = PCQ_S_NONE;
    return list_result(w, it, step_list(&r, f, it));
}

/* PCQ_BULK: the next instance of a canonical block, checked and passed
 * with its values in one go (a single pass's common case); one try a block,
 * so that a hostile block pays it once, not an instance. */
static PCQ_NOINLINE int bulk_step(pcq_walk *w, frame *f, pcq_item *it)
{
    rd r;
    size_t lim = f->end < w->len ? f->end : w->len;
    /* A run of instances checked as canonical_data checks them, then taken
     * inline (pcq_walk_next_fast_); a run that is not is taken one at a time,
     * so that no instance is checked more than twice. A run is read twice:
     * up to 64 instances, fewer when 64 of the least size would not stay in
     * 4 KiB of L1 (64 of a 31-value "Processor Information" instance, 36 KiB,
     * made a single pass of 256 MiB ~20% slower). */
    uint64_t least = INSTANCE_HEADER_SIZE + 8 + 16 * (uint64_t)f->nvalues;
    uint32_t k;
    size_t next;
    if (w->run) { /* pcq_walk_next_fast_'s step, for a caller of the function itself */
        if (pcq_walk_run_item_(w, it)) return 1;
        run_stop(w); /* the bytes changed since the run was checked: check them again */
    }
    k = least > 4096 / 64 ? (uint32_t)(4096 / least) : 64;
    if (k == 0) k = 1;
    if (k > f->left) k = f->left;
    rd_walk(&r, w);
    if (w->run_skip == 0) {
        if (!(f->pos & 7) && f->pos <= lim &&
            (next = canonical_instances_near(w->buf, f->pos, lim, w->len, k, f->left - k, f->nvalues)) != 0) {
            run_start(w, f, k, next);
            if (PCQ_ALWAYS(pcq_walk_run_item_(w, it))) return 1;
        }
        run_stop(w);
        w->run_skip = k;
    }
    w->run_skip--;
    if (bulk_instance(&r, f, it)) return 1;
    f->flags |= FL_SLOW;
    return list_step(w, f, it);
}

/* A list of blocks' next item (f, on top), as list_step and step_block
 * step it, without step_list's dispatch: under PCQ_BULK, not in a decoder
 * (WALK_PASS), where blocks of a few instances come one after another (the
 * "mix" shape). */
static PCQ_NOINLINE int blocks_step(pcq_walk *w, frame *f, pcq_item *it)
{
    rd r;
    int rc;
    rd_walk(&r, w);
    it->type = PCQ_S_NONE;
    if ((rc = frame_more(&r, f)) > 0) rc = brun_item(&r, f, it) ? STEP_ITEM : block_header(&r, f, it);
    return list_result(w, it, rc);
}

/* PCQ_BULK: a block's instances (f, on top) all taken. When they end as a
 * canonical block's do (a counted list, nothing after the last but fewer
 * than 8 bytes, inside the input: frame_more's end, no error) in a list of
 * blocks, that frame goes and the next block comes straight from
 * blocks_step: list_step's, step_list's and list_pop's frames for the end
 * of the instances cost a pass over mix ~45 instructions a block. Else
 * list_step, whose frame_more says what is wrong. */
static PCQ_NOINLINE int bulk_done(pcq_walk *w, frame *f, pcq_item *it)
{
    if ((f->flags & (FL_COUNTED | FL_EXACT | FL_CONT)) != (FL_COUNTED | FL_EXACT) ||
        !pcq_list_end_ok_(f->pos, f->end, w->len) || w->nframes < 2 || f[-1].kind != FR_BLOCKS ||
        (w->mode & WALK_PASS))
        return list_step(w, f, it);
    w->nframes--;
    return blocks_step(w, f - 1, it);
}

/* PCQ_BULK: the _PERF_MULTI_COUNTERS or _PERF_MULTI_INSTANCES of a block
 * brun_start found canonical (the top frame f, its body), without
 * walk_step's loop and step_body's dispatch: a type 2 block's second item,
 * two of a type 6 block's (~40 instructions each). When the bytes changed
 * since, walk_step runs: step_body's same phase finds it again and the
 * parsers say what is wrong. */
static PCQ_NOINLINE int bulk_body(pcq_walk *w, frame *f, pcq_item *it)
{
    rd r;
    rd_walk(&r, w);
    if (f->phase == B_MC_BULK ? bulk_multi_counters(&r, f, it) : bulk_multi_instances(&r, f, it)) return 1;
    return walk_step(w, it);
}

/* The item a run's block left (pcq_walk_pend_item_), or when its bytes changed
 * the block's frame and its steps. Out of line: in pcq_walk_next it cost
 * every other step ~5 instructions (registers saved), the walks of the
 * hostile inputs ~0.6 Ir/B. */
static PCQ_NOINLINE int pend_next(pcq_walk *w, pcq_item *it)
{
    if (pcq_walk_pend_item_(w, it)) return 1;
    brun_stop(w); /* (a run's block left it: the run is on) */
    pend_body(w);
    return pcq_walk_next(w, it);
}

/* A run of blocks is on (brun_on): its next item as the inline step takes
 * it, for a caller of the function itself; else the run ends, its frames
 * made, and the walk goes on from them. Out of line, as pend_next. When
 * the run ends with its last block, whose instances (if any) were all
 * taken and end where the block does (bulk_done's test, on the same
 * fields), the list's next block comes straight from blocks_step: making
 * the instances' frame only for bulk_done to pop it cost a run ~130
 * instructions (at 256 MiB, where a run is up to PCQ_AHEAD bytes, mix has
 * a run a group). */
static PCQ_NOINLINE int brun_next(pcq_walk *w, pcq_item *it)
{
    frame *f = &w->frames[w->nframes - 1]; /* the list of blocks: no frame is made while a run is on */
    if (w->run ? pcq_walk_run_item_(w, it) : w->brun && pcq_walk_block_item_(w, it)) return 1;
    if (!w->run && !w->brun && f->kind == FR_BLOCKS &&
        (!w->brun_mi || pcq_list_end_ok_(w->run_pos, w->pend_end, w->len))) {
        w->brun_mi = 0; /* no frame for its instances */
        w->run_on = 0;
        brun_stop(w);
        return blocks_step(w, f, it);
    }
    brun_stop(w);
    return pcq_walk_next(w, it);
}

/* Straight to the step the top frame needs: the root and a block's body
 * through walk_step's loop (a canonical block's under PCQ_BULK through
 * bulk_body), a list's item (the most of them) through list_step, a
 * canonical instance under PCQ_BULK through bulk_step. */
int pcq_walk_next(pcq_walk *w, pcq_item *it)
{
    frame *f;
    if (w->pend_at) return pend_next(w, it); /* what a run's block left for the inline step */
    if (w->brun_on) return brun_next(w, it); /* a run of blocks, which the inline step took */
    if (w->run_on) run_sync(w);              /* what the inline step took */
    f = w->nframes > 0 ? &w->frames[w->nframes - 1] : NULL;
    if (w->err.code || !f || f->kind == FR_ROOT) return walk_step(w, it);
    if (f->kind == FR_BODY)
        return f->phase == B_MC_BULK || f->phase == B_MI_BULK ? bulk_body(w, f, it) : walk_step(w, it);
    if (w->mode & WALK_BULK) {
        if (f->kind == FR_DATA_INSTANCES && !(f->flags & FL_SLOW))
            return f->left ? bulk_step(w, f, it) : bulk_done(w, f, it);
        if (f->kind == FR_BLOCKS && !(w->mode & WALK_PASS)) return blocks_step(w, f, it);
    }
    return list_step(w, f, it);
}

static PCQ_NOINLINE int walk_step(pcq_walk *w, pcq_item *it)
{
    rd r;
    frame *f;
    int rc;
    rd_walk(&r, w);
    if (w->err.code) {
        item_clear(it);
        if (w->cut.type != PCQ_S_NONE) { /* PCQ_BULK: found ahead, reported now */
            *it = w->cut;
            w->cut.type = PCQ_S_NONE;
        }
        return w->err.code;
    }
    while (w->nframes > 0) {
        f = &w->frames[w->nframes - 1];
        it->type = PCQ_S_NONE; /* every step begins its item (item_begin) before it writes to it */
        rc = f->kind == FR_ROOT   ? step_root(&r, f, it)
             : f->kind == FR_BODY ? step_body(&r, f, it)
                                  : step_list(&r, f, it);
        if (rc == STEP_ITEM) return 1;
        if (rc < 0) {
            item_cut(w, it);
            return rc;
        }
        if (rc == STEP_DONE) {
            w->nframes--;
            if ((f->flags & FL_CONT) && w->nframes > 0) w->frames[w->nframes - 1].pos = f->pos;
        }
    }
    item_clear(it);
    return 0;
}

/* ======================================================================== */
/* 7. Decoders: the walk, run to its end                                    */
/* ======================================================================== */

/* A decoder that looks for no diagnostic passes the instances of a block
 * that the lean step takes (pcq_instance_lean_: the checking step's rules,
 * inline) without making an item of each: on data that is walkable but not
 * canonical, a packed instance of 18 bytes cost the walk ~700 instructions
 * (bench/hostile.c `packed`). The first instance it does not take, and the
 * rest of the block, go through the checking step, which says what is
 * wrong: the result and the error are the walk's. Runs of up to 64
 * canonical instances (canonical_instances: the lean step would take each)
 * are passed by that check, a few instructions a word, as the walk of a
 * canonical buffer does: one structure that is not in a block of thousands
 * cost the decode 5x before. A run that is not goes to the lean step whole,
 * so no instance is looked at more than twice. */
static void pass_instances(pcq_walk *w)
{
    frame *f = &w->frames[w->nframes - 1];
    pcq_iter it;
    pcq_data_instance d;
    size_t lim = f->end < w->len ? f->end : w->len, next;
    uint32_t k;
    it.buf = w->buf;
    it.len = w->len;
    it.f = *f;
    it.fast = it.ids_mask = 0;
    pcq_error_set(&it.err, PCQ_OK, 0, NULL);
    while (it.f.left) {
        k = it.f.left < 64 ? it.f.left : 64;
        if (it.f.pos <= lim && (next = canonical_instances_near(w->buf, it.f.pos, lim, w->len, k,
                                                                it.f.left - k, it.f.nvalues)) != 0) {
            it.f.pos = next;
            it.f.index += k;
            it.f.left -= k;
            continue;
        }
        for (; k > 0 && pcq_instance_lean_(&it, &d); k--) continue;
        if (k) break;
    }
    f->pos = it.f.pos;
    f->index = it.f.index;
    f->left = it.f.left;
    w->run = 0; /* a run bulk_multi_instances set up is passed too (none of it taken yet) */
    w->run_on = 0;
}

/* Walks buf whole; *first (may be NULL) gets the first item, *count the
 * number of items at depth 0. The error, if any, goes to *err. */
static int walk_known(pcq_kind kind, const void *buf, size_t len, const pcq_opts *opts, size_t known,
                      pcq_item *first, size_t *count, pcq_error *err)
{
    pcq_walk w;
    pcq_item it;
    size_t n = 0;
    int rc, lean;
    pcq_walk_begin(&w, kind, buf, len, opts);
    w.aux[0] = known; /* data: where the canonical blocks canonical_prefix found end */
    /* only the first item leaves here: PCQ_BULK's checks, which report what
     * the walk reports (fz_props), pass a canonical type 1 or 2 block's
     * values in a few instructions each, not ~300 an item */
    w.mode |= WALK_QUICK | (kind == PCQ_KIND_DATA ? WALK_BULK | WALK_PASS : 0u);
    lean = kind == PCQ_KIND_DATA && !diags_on(&w);
    while ((rc = pcq_walk_next(&w, &it)) == 1) {
        if (n == 0 && first) *first = it;
        n += it.depth == 0;
        if (lean && it.type == PCQ_S_MULTI_INSTANCES && /* its instances' frame is on top: always */
            PCQ_ALWAYS(w.nframes > 0 && w.frames[w.nframes - 1].kind == FR_DATA_INSTANCES))
            pass_instances(&w);
    }
    if (rc < 0) {
        if (err) *err = w.err;
        return rc;
    }
    if (count) *count = n;
    return PCQ_OK;
}

static int walk_all(pcq_kind kind, const void *buf, size_t len, const pcq_opts *opts, pcq_item *first,
                    size_t *count, pcq_error *err)
{
    return walk_known(kind, buf, len, opts, 0, first, count, err);
}

int pcq_validate(pcq_kind kind, const void *buf, size_t len, const pcq_opts *opts, pcq_error *err)
{
    pcq_error_set(err, PCQ_OK, 0, NULL);
    if (kind != PCQ_KIND_DATA) return walk_all(kind, buf, len, opts, NULL, NULL, err);
    if (canonical_data((const uint8_t *)buf, len)) return PCQ_OK;
    return walk_known(kind, buf, len, opts, canonical_prefix((const uint8_t *)buf, len), NULL, NULL, err);
}

int pcq_decode_counterset_info(const void *buf, size_t len, const pcq_opts *opts, pcq_counterset_info *out,
                               pcq_error *err)
{
    pcq_item first;
    int rc = walk_all(PCQ_KIND_COUNTERSET_INFO, buf, len, opts, &first, NULL, err);
    if (rc || !out) return rc;
    out->set = first.u.set;
    out->counters.ptr = (const uint8_t *)buf + COUNTERSET_REG_INFO_SIZE;
    out->counters.len = (size_t)first.u.set.num_counters * COUNTER_REG_INFO_SIZE;
    out->counters_offset = COUNTERSET_REG_INFO_SIZE;
    return PCQ_OK;
}

int pcq_counterset_counter(const pcq_counterset_info *csi, uint32_t i, pcq_counter_reg *out)
{
    if (!csi || !out || i >= csi->counters.len / COUNTER_REG_INFO_SIZE) return PCQ_ERR_INVALID_ARG;
    read_counter_reg(csi->counters.ptr + (size_t)i * COUNTER_REG_INFO_SIZE, out);
    return PCQ_OK;
}

int pcq_decode_counter_info(const void *buf, size_t len, const pcq_opts *opts, pcq_counter_reg *out,
                            pcq_error *err)
{
    pcq_item first;
    int rc = walk_all(PCQ_KIND_COUNTER_INFO, buf, len, opts, &first, NULL, err);
    if (!rc && out) *out = first.u.counter;
    return rc;
}

int pcq_decode_strings(const void *buf, size_t len, const pcq_opts *opts, pcq_strings *out, pcq_error *err)
{
    pcq_item first;
    int rc = walk_all(PCQ_KIND_STRINGS, buf, len, opts, &first, NULL, err);
    if (!rc && out) *out = first.u.strings;
    return rc;
}

/* Entry i of a decoded block: where its text starts (the block was
 * validated, so the start is inside it and has its NUL). */
static void entry_at(const pcq_strings *s, uint32_t i, pcq_string_entry *e)
{
    const uint8_t *p = s->block.ptr + STRING_BUFFER_HEADER_SIZE + (size_t)i * STRING_COUNTER_HEADER_SIZE;
    size_t base = s->convention == PCQ_STROFF_SPEC
                      ? STRING_BUFFER_HEADER_SIZE + (size_t)s->num_counters * STRING_COUNTER_HEADER_SIZE
                      : 0;
    e->counter_id = ld32(p + STRING_COUNTER_HEADER_dwCounterId);
    e->offset = ld32(p + STRING_COUNTER_HEADER_dwOffset);
    e->present = e->offset != PCQ_STRING_ABSENT;
    e->text.ptr = e->present ? s->block.ptr + base + e->offset : NULL;
    e->text.len = 0;
    e->text_offset = e->present ? base + e->offset : 0;
}

int pcq_strings_peek(const pcq_strings *s, uint32_t i, pcq_string_entry *out)
{
    if (!s || !out || i >= s->num_counters) return PCQ_ERR_INVALID_ARG;
    entry_at(s, i, out);
    return PCQ_OK;
}

int pcq_strings_get(const pcq_strings *s, uint32_t i, pcq_string_entry *out)
{
    if (!s || !out || i >= s->num_counters) return PCQ_ERR_INVALID_ARG;
    entry_at(s, i, out);
    if (out->present)
        out->text.len = find_nul16(s->block.ptr, out->text_offset, s->block.len) - out->text_offset;
    return PCQ_OK;
}

int pcq_decode_string(const void *buf, size_t len, const pcq_opts *opts, pcq_bytes *out, pcq_error *err)
{
    pcq_item first;
    int rc = walk_all(PCQ_KIND_STRING, buf, len, opts, &first, NULL, err);
    if (!rc && out) *out = first.u.text;
    return rc;
}

int pcq_decode_guid(const void *buf, size_t len, const pcq_opts *opts, pcq_guid *out, pcq_error *err)
{
    pcq_item first;
    int rc = walk_all(PCQ_KIND_GUID, buf, len, opts, &first, NULL, err);
    if (!rc && out) *out = first.u.guid;
    return rc;
}

int pcq_decode_guids(const void *buf, size_t len, const pcq_opts *opts, pcq_guid_array *out, pcq_error *err)
{
    size_t n;
    int rc = walk_all(PCQ_KIND_GUIDS, buf, len, opts, NULL, &n, err);
    if (!rc && out) {
        out->ptr = (const uint8_t *)buf;
        out->count = n;
    }
    return rc;
}

int pcq_guids_get(const pcq_guid_array *a, size_t i, pcq_guid *out)
{
    if (!a || !out || i >= a->count) return PCQ_ERR_INVALID_ARG;
    read_guid_at(a->ptr + i * GUID_SIZE, out);
    return PCQ_OK;
}

int pcq_decode_instances(const void *buf, size_t len, const pcq_opts *opts, size_t *count, pcq_error *err)
{
    return walk_all(PCQ_KIND_INSTANCES, buf, len, opts, NULL, count, err);
}

int pcq_decode_identifiers(const void *buf, size_t len, const pcq_opts *opts, size_t *count, pcq_error *err)
{
    return walk_all(PCQ_KIND_IDENTIFIERS, buf, len, opts, NULL, count, err);
}

int pcq_decode_data(const void *buf, size_t len, const pcq_opts *opts, pcq_data *out, pcq_error *err)
{
    pcq_item first;
    size_t known;
    int rc;
    if (canonical_data((const uint8_t *)buf, len)) {
        if (out) {
            read_data_header((const uint8_t *)buf, len, out);
            out->flags = PCQ_DATA_CANONICAL_;
        }
        return PCQ_OK;
    }
    known = canonical_prefix((const uint8_t *)buf, len);
    rc = walk_known(PCQ_KIND_DATA, buf, len, opts, known, &first, NULL, err);
    if (!rc && out) *out = first.u.data;
    return rc;
}

/* ---- the typed iterators: one frame of the walk, stepped by the same ---- */
/* parsers, without diagnostics and without stepping into what they yield.  */

static void iter_init(pcq_iter *it, const uint8_t *buf, size_t len, int kind, size_t pos, size_t end)
{
    memset(&it->f, 0, sizeof it->f);
    it->buf = buf;
    it->len = buf ? len : 0;
    it->fast_end = 0;
    it->f.kind = (uint8_t)kind;
    it->f.pos = pos;
    it->f.end = end;
    it->fast = 0;
    it->ids_mask = 0;
    pcq_error_set(&it->err, PCQ_OK, 0, NULL);
}

static rd iter_rd(pcq_iter *it)
{
    rd r;
    r.b = it->buf;
    r.len = it->len;
    r.err = &it->err;
    r.w = NULL;
    return r;
}

/* 1 if an item follows, 0 at the end, or the error (sticky). */
static int iter_more(pcq_iter *it, rd *r)
{
    if (it->err.code) return it->err.code;
    return frame_more(r, &it->f);
}

void pcq_item_values(const pcq_walk *w, const pcq_item *item, pcq_iter *it)
{
    iter_init(it, w->buf, w->len, FR_VALUES, item->values, w->len);
    counted(&it->f, item->nvalues, 0, item->offset, "values", item->offset, "values");
    it->f.ids_at = item->values_ids;
    it->fast = item->values_fast ? PCQ_ITER_FAST_ : 0;
    if (it->fast) { /* as the header's inline step makes it (its ids: none, or the walk's checked list) */
        pcq_values_fast_ids_(w->buf, w->len, item->values, item->nvalues, item->values_ids,
                             item->values_ids != 0, it);
        pcq_item_ahead_(w->buf, item->values, item->nvalues, w->len);
    }
}

void pcq_instances_begin(const void *buf, size_t len, pcq_iter *it)
{
    iter_init(it, (const uint8_t *)buf, len, FR_INSTANCES, 0, buf ? len : 0);
}

int pcq_instances_next(pcq_iter *it, pcq_instance *out)
{
    rd r = iter_rd(it);
    int rc = iter_more(it, &r);
    if (rc <= 0) return rc;
    if ((rc = parse_instance(&r, &it->f, it->f.pos, out)) != 0) return rc;
    return item_done(&it->f, it->f.pos + out->size);
}

void pcq_identifiers_begin(const void *buf, size_t len, pcq_iter *it)
{
    iter_init(it, (const uint8_t *)buf, len, FR_IDENTIFIERS, 0, buf ? len : 0);
}

int pcq_identifiers_next(pcq_iter *it, pcq_identifier *out)
{
    rd r = iter_rd(it);
    int rc = iter_more(it, &r);
    if (rc <= 0) return rc;
    if ((rc = parse_identifier(&r, &it->f, it->f.pos, out)) != 0) return rc;
    return item_done(&it->f, it->f.pos + out->size);
}

void pcq_data_blocks(const pcq_data *d, pcq_iter *it)
{
    iter_init(it, d->buf, d->buf_len, FR_BLOCKS, DATA_HEADER_SIZE, d->total_size);
    counted(&it->f, d->num_counters, FL_EXACT, DATA_HEADER_dwNumCounter, DATA_HEADER_NAME ".dwNumCounter", 0,
            DATA_HEADER_NAME ".dwTotalSize");
    it->fast = d->flags & PCQ_DATA_CANONICAL_ ? PCQ_ITER_FAST_ : 0;
}

/* The fixed structures after a block's header, into *b (what the walk
 * yields as items of their own). */
static int block_body(rd *r, pcq_block *b)
{
    frame body;
    uint32_t size, count;
    int rc;
    memset(&body, 0, sizeof body);
    body.pos = b->body;
    body.end = b->offset + b->size;
    body.size_at = b->offset + COUNTER_HEADER_dwSize;
    body.size_what = COUNTER_HEADER_NAME ".dwSize";
    b->body_end = body.end;
    if (b->type == PCQ_PERF_SINGLE_COUNTER) return parse_value(r, &body, body.pos, &b->value);
    if (b->type == PCQ_PERF_MULTI_COUNTERS || b->type == PCQ_PERF_COUNTERSET) {
        if ((rc = parse_multi_counters(r, &body, body.pos, &size, &count)) != 0) return rc;
        b->multi_at = body.pos;
        b->multi_size = size;
        b->num_counters = count;
        b->counter_ids.ptr = r->b + body.pos + MULTI_COUNTERS_SIZE;
        b->counter_ids.len = (size_t)count * COUNTER_ID_SIZE;
        b->body = body.pos += size;
    }
    if (b->type == PCQ_PERF_MULTI_INSTANCES || b->type == PCQ_PERF_COUNTERSET) {
        if ((rc = mi_room(r, &body, b->multi_at)) != 0) return rc;
        if ((rc = parse_multi_instances(r, &body, body.pos,
                                        b->type == PCQ_PERF_COUNTERSET ? b->num_counters : 1, &size,
                                        &count)) != 0)
            return rc;
        b->instances_at = body.pos;
        b->instances_size = size;
        b->num_instances = count;
        b->body = body.pos + MULTI_INSTANCES_SIZE;
        b->body_end = body.pos + size;
    }
    return PCQ_OK;
}

static int blocks_next_checked(pcq_iter *it, pcq_block *out);

int pcq_blocks_next(pcq_iter *it, pcq_block *out)
{
    if (!it->fast) return blocks_next_checked(it, out); /* kept apart: the fast step needs no stack frame */
    if (!it->f.left) return 0;
    pcq_block_at_(it->buf, it->f.pos, out);
    return item_done(&it->f, it->f.pos + out->size);
}

/* A block of a buffer that is not canonical, checked by the rules of the
 * checking step as the iterators run it (frame_more, parse_block, then
 * block_body: no diagnostic looked for): 1 and the block when it breaks
 * none, or 0, *it and *out untouched, for the checking step to say what is
 * wrong. The block must lie in the input as well as in the buffer's
 * dwTotalSize (the checking step reads a part past the input only to fail).
 * A 40-byte block cost the checking step ~330 instructions, in each pass a
 * cook makes over a sample (bench/hostile.c cook-tiny-lists). */
static int block_lean(pcq_iter *it, pcq_block *out)
{
    const uint8_t *b = it->buf;
    size_t at = it->f.pos, lim = it->f.end < it->len ? it->f.end : it->len, end, body, mc = 0, mi = 0;
    uint32_t type, size, msize = 0, nc = 0, tsize = 0, ni = 0;
    if (it->err.code || !it->f.left || at >= lim || lim - at < COUNTER_HEADER_SIZE) return 0;
    type = ld32(b + at + COUNTER_HEADER_dwType);
    size = ld32(b + at + COUNTER_HEADER_dwSize);
    if (!block_type_ok(type) || size < block_min_size(type) || size > lim - at) return 0;
    end = at + size;
    body = at + COUNTER_HEADER_SIZE;
    if (type == PCQ_PERF_SINGLE_COUNTER && !pcq_value_size_(b, body, end)) return 0;
    if (type == PCQ_PERF_MULTI_COUNTERS || type == PCQ_PERF_COUNTERSET) {
        mc = body; /* parse_multi_counters; end - mc >= 8 (block_min_size) */
        msize = ld32(b + mc + MULTI_COUNTERS_dwSize);
        nc = ld32(b + mc + MULTI_COUNTERS_dwCounters);
        if (msize < MULTI_COUNTERS_SIZE || msize > end - mc ||
            nc > (msize - MULTI_COUNTERS_SIZE) / COUNTER_ID_SIZE || nc > PCQ_MAX_COUNTERS ||
            msize - MULTI_COUNTERS_SIZE - (size_t)nc * COUNTER_ID_SIZE >= 8)
            return 0;
        body = mc + msize;
    }
    if (type == PCQ_PERF_MULTI_INSTANCES || type == PCQ_PERF_COUNTERSET) {
        /* mi_room, parse_multi_instances */
        size_t min = INSTANCE_HEADER_SIZE + NUL16_SIZE +
                     (type == PCQ_PERF_COUNTERSET ? (size_t)nc : 1) * COUNTER_DATA_SIZE; /* nc capped above */
        mi = body;
        if (end - mi < MULTI_INSTANCES_SIZE) return 0;
        tsize = ld32(b + mi + MULTI_INSTANCES_dwTotalSize);
        ni = ld32(b + mi + MULTI_INSTANCES_dwInstances);
        if (tsize < MULTI_INSTANCES_SIZE || tsize > end - mi || ni > (tsize - MULTI_INSTANCES_SIZE) / min ||
            ni > PCQ_MAX_INSTANCES)
            return 0;
    }
    block_clear(out); /* then what parse_block and block_body set */
    out->offset = at;
    out->status = ld32(b + at + COUNTER_HEADER_dwStatus);
    out->type = type;
    out->size = size;
    out->reserved = ld32(b + at + COUNTER_HEADER_Reserved);
    out->body = body;
    out->body_end = end;
    if (type == PCQ_PERF_SINGLE_COUNTER) fill_value(b, body, &out->value);
    if (mc) {
        out->multi_at = mc;
        out->multi_size = msize;
        out->num_counters = nc;
        out->counter_ids.ptr = b + mc + MULTI_COUNTERS_SIZE;
        out->counter_ids.len = (size_t)nc * COUNTER_ID_SIZE;
    }
    if (mi) {
        out->instances_at = mi;
        out->instances_size = tsize;
        out->num_instances = ni;
        out->body = mi + MULTI_INSTANCES_SIZE;
        out->body_end = mi + tsize;
    }
    return item_done(&it->f, end);
}

static PCQ_NOINLINE int blocks_next_checked(pcq_iter *it, pcq_block *out)
{
    rd r;
    int rc;
    if (block_lean(it, out)) return STEP_ITEM;
    r = iter_rd(it);
    rc = iter_more(it, &r);
    if (rc <= 0) return rc;
    if ((rc = parse_block(&r, &it->f, it->f.pos, out)) != 0 || (rc = block_body(&r, out)) != 0) return rc;
    return item_done(&it->f, it->f.pos + out->size);
}

/* Values of a buffer that is not canonical (a diagnostic somewhere, or a
 * layout of its own) that are canonical themselves: n 16-byte records
 * filling [at, end) inside the input, each with a 4- or 8-byte value. Their
 * iterator then takes the inline step, as on a canonical buffer (one
 * structure that was not made the README's walk of every other value cost
 * ~3x), checked here when it is made: a byte changed after that is read as
 * it is, inside [at, end). The callers ask for 4 or more values: fewer are
 * stepped by the checks, which cost them less than this test and its call
 * (bench/hostile.c cook-tiny-lists). */
static int canonical_values(const pcq_data *d, size_t at, size_t end, uint32_t n)
{
    return d->buf && at <= end && end <= d->buf_len && (end - at) / 16 == n && (end - at) % 16 == 0 &&
           !bad_values(d->buf, at, n, 0);
}

uint32_t pcq_block_counter_id(const pcq_block *b, uint32_t i)
{
    return b ? pcq_block_counter_id_(b, i) : 0;
}

void pcq_block_values(const pcq_data *d, const pcq_block *b, pcq_iter *it)
{
    int has = b->type == PCQ_PERF_MULTI_COUNTERS || b->type == PCQ_PERF_SINGLE_COUNTER;
    size_t start = b->type == PCQ_PERF_SINGLE_COUNTER ? b->offset + COUNTER_HEADER_SIZE : b->body;
    iter_init(it, d->buf, d->buf_len, FR_VALUES, has ? start : b->body_end, b->body_end);
    counted(&it->f,
            !has                                 ? 0
            : b->type == PCQ_PERF_MULTI_COUNTERS ? b->num_counters
                                                 : 1,
            FL_EXACT, b->multi_at + MULTI_COUNTERS_dwCounters, MULTI_COUNTERS_NAME ".dwCounters",
            b->offset + COUNTER_HEADER_dwSize, COUNTER_HEADER_NAME ".dwSize");
    it->f.ids_at = b->type == PCQ_PERF_MULTI_COUNTERS ? b->multi_at + MULTI_COUNTERS_SIZE : 0;
    it->fast = d->flags & PCQ_DATA_CANONICAL_ ? PCQ_ITER_FAST_ : 0;
    if (it->fast || (it->f.left >= 4 && b->type == PCQ_PERF_MULTI_COUNTERS &&
                     canonical_values(d, start, b->body_end, it->f.left)))
        pcq_values_fast_at_(d->buf, d->buf_len, start, it->f.left, it->f.ids_at, it); /* as the header's */
}

/* A block with no instance (none listed, or none of its type) whose
 * checking iterator would end at once, as pcq_block_no_values_ says for
 * values (frame_more's end test of a count of 0). */
static int block_no_instances(const pcq_data *d, const pcq_block *b)
{
    int has = b->type == PCQ_PERF_MULTI_INSTANCES || b->type == PCQ_PERF_COUNTERSET;
    return (!has || b->num_instances == 0) &&
           pcq_list_end_ok_(has ? b->body : b->body_end, b->body_end, d->buf_len);
}

/* A block of no instance gets an iterator that ends at once, as the header's
 * step of a canonical one does, with no call a next(): 24-byte blocks of an
 * empty list with a diagnostic each (bench/hostile.c empty-lists) paid the
 * checking step and its copies, ~155 instructions a block (the README's walk
 * 52.9 -> 46.4 Ir/B, over the goal of 50 before; test_layout's
 * test_empty_instance_lists). Here, not in the header: there the test moved
 * the canonical shapes' loops (the walk of mix 1.754 -> 1.765). */
void pcq_block_instances(const pcq_data *d, const pcq_block *b, pcq_iter *it)
{
    int has;
    if (!(d->flags & PCQ_DATA_CANONICAL_) && block_no_instances(d, b)) {
        pcq_values_fast_ids_(d->buf, d->buf_len, b->body_end, 0, 0, 0, it); /* left 0: next() ends */
        return;
    }
    has = b->type == PCQ_PERF_MULTI_INSTANCES || b->type == PCQ_PERF_COUNTERSET;
    iter_init(it, d->buf, d->buf_len, FR_DATA_INSTANCES, has ? b->body : b->body_end, b->body_end);
    counted(&it->f, has ? b->num_instances : 0, FL_EXACT, b->instances_at + MULTI_INSTANCES_dwInstances,
            MULTI_INSTANCES_NAME ".dwInstances", b->instances_at, MULTI_INSTANCES_NAME ".dwTotalSize");
    it->f.btype = (uint8_t)b->type;
    it->f.nvalues = b->type == PCQ_PERF_COUNTERSET ? b->num_counters : 1;
    it->f.vbytes = 16u * it->f.nvalues; /* read when canonical: then below 2^32 */
    it->f.ids_at = b->type == PCQ_PERF_COUNTERSET ? b->multi_at + MULTI_COUNTERS_SIZE : 0;
    it->fast = d->flags & PCQ_DATA_CANONICAL_ ? PCQ_ITER_FAST_ : 0;
}

/* The loops of pcq_instance_lean_ (pcq_codec.h): the rules frame_more and
 * parse_value apply to each value, in the same order. */
size_t pcq_nul16_(const uint8_t *b, size_t name, size_t end)
{
    return find_nul16_inline(b, name, end); /* one call a name, not two */
}

/* Where the last of n values from at starts, each stepped as the checking
 * step takes it, inside lim (else (size_t)-1). */
static size_t last_value_steps(const uint8_t *b, size_t at, size_t lim, uint32_t n)
{
    size_t last = at;
    uint32_t size;
    for (; n > 0; n--) {
        if (!(size = pcq_value_size_(b, at, lim))) return (size_t)-1;
        last = at;
        at += size; /* at least 8, inside lim */
    }
    return last;
}

/* The same for n >= 4 values that are canonical records (what the steps
 * take too): one load a value, not a record stepped at a time. An instance
 * of a canonical layout in a buffer that is not (a diagnostic elsewhere)
 * made the README's walk ~1.5x slower. Not for fewer values, which the
 * test would cost more than it saves where records are packed
 * (bench/hostile.c cook-average-loose: two a 26-byte instance). */
static PCQ_NOINLINE size_t last_value_canonical(const uint8_t *b, size_t at, size_t lim, uint32_t n)
{
    if (n <= (lim - at) / 16 && !bad_values(b, at, n, 0)) return at + 16 * ((size_t)n - 1);
    return last_value_steps(b, at, lim, n);
}

size_t pcq_last_value_(const uint8_t *b, size_t len, size_t at, size_t end, uint32_t n)
{
    size_t lim = end < len ? end : len;
    if (n >= 4 && at <= lim) return last_value_canonical(b, at, lim, n);
    return last_value_steps(b, at, lim, n);
}

/* An instance and its values, stepped over to find where the next one
 * starts; the last value is kept (a type 4 instance has one). */
int pcq_instances_of_block_next(pcq_iter *it, pcq_data_instance *out)
{
    rd r;
    frame v;
    uint32_t j;
    int rc;
    if (it->fast) return it->f.left ? pcq_instances_of_block_next_fast_(it, out) : 0;
    if (it->f.left && pcq_instance_lean_(it, out)) return 1; /* checked here, reported below */
    r = iter_rd(it);
    if ((rc = iter_more(it, &r)) <= 0) return rc;
    if ((rc = parse_data_instance(&r, &it->f, it->f.pos, out)) != 0) return rc;
    memset(&v, 0, sizeof v);
    v.pos = out->values;
    v.end = it->f.end;
    counted(&v, out->num_values, FL_CONT,
            it->f.btype == PCQ_PERF_COUNTERSET ? it->f.ids_at - 4 : it->f.size_at,
            it->f.btype == PCQ_PERF_COUNTERSET ? MULTI_COUNTERS_NAME ".dwCounters"
                                               : MULTI_INSTANCES_NAME ".dwTotalSize",
            it->f.size_at, it->f.size_what);
    for (j = 0; j < out->num_values; j++) { /* frame_more is 1 or an error: j < the count */
        if ((rc = frame_more(&r, &v)) < 0 || (rc = parse_value(&r, &v, v.pos, &out->value)) != 0) return rc;
        item_done(&v, v.pos + out->value.size);
    }
    /* pcq_instance_lean_ takes every instance these rules take: only an error
     * comes here (test_layout's test_lean_steps, fz_props) */
    out->values_end = v.pos;         /* LCOV_EXCL_LINE */
    return item_done(&it->f, v.pos); /* LCOV_EXCL_LINE */
}

void pcq_instance_values(const pcq_data *d, const pcq_data_instance *inst, pcq_iter *it)
{
    if (d->flags & PCQ_DATA_CANONICAL_) {
        pcq_instance_values_fast_(d, inst, it);
        return;
    }
    iter_init(it, d->buf, d->buf_len, FR_VALUES, inst->values, inst->values_end);
    counted(&it->f, inst->num_values, FL_CONT, inst->offset, INSTANCE_HEADER_NAME, inst->offset,
            INSTANCE_HEADER_NAME);
    it->f.ids_at = inst->ids_at;
    if (inst->num_values >= 4 && canonical_values(d, inst->values, inst->values_end, inst->num_values))
        pcq_values_fast_at_(d->buf, d->buf_len, inst->values, inst->num_values, inst->ids_at, it);
}

int pcq_values_next(pcq_iter *it, pcq_value *out)
{
    rd r;
    int rc;
    if (it->fast) return pcq_values_next_fast_(it, out); /* it ends them too */
    if (pcq_value_lean_(it, out)) return 1;              /* checked here, reported below */
    r = iter_rd(it);
    if ((rc = iter_more(it, &r)) <= 0) return rc;
    if ((rc = parse_value(&r, &it->f, it->f.pos, out)) != 0) return rc;
    out->counter_id = pcq_iter_counter_id_(it);      /* LCOV_EXCL_LINE: pcq_value_lean_ took it */
    return item_done(&it->f, it->f.pos + out->size); /* LCOV_EXCL_LINE */
}

size_t pcq_values_read(pcq_iter *it, pcq_vref *out, size_t cap)
{
    pcq_value v;
    size_t n = 0;
    if (!it || !out) return 0;
    while (n < cap && pcq_values_next(it, &v) == 1) {
        out[n].u64 = v.u64;
        out[n].offset = (uint32_t)v.offset;
        out[n].data_size = v.data_size;
        n++;
    }
    return n;
}

/* Canonical values from `at`: 16 bytes each, the value 4 or 8 bytes. */
/* The value of a canonical _PERF_COUNTER_DATA at p (16 bytes, 4 or 8). */
static PCQ_INLINE uint64_t fast_value(const uint8_t *p)
{
    uint64_t v = ld64(p + COUNTER_DATA_SIZE);
    return ld32(p + COUNTER_DATA_dwDataSize) == 4 ? (uint32_t)v : v;
}

size_t pcq_values_read_u64(pcq_iter *it, uint64_t *out, size_t cap)
{
    pcq_value v;
    size_t n = 0;
    if (!it || !out) return 0;
    if (it->fast) return pcq_values_read_u64_fast_(it, out, cap); /* the header's loop */
    while (n < cap && pcq_values_next(it, &v) == 1) out[n++] = v.u64;
    return n;
}

/* nc canonical records from p (16 bytes each, nothing to check: the buffer
 * was found canonical) into o[0], o[js], ...: eight a turn, then four, then
 * one, so the loop's own instructions (a pointer each, a compare) are spread
 * over eight values. Returns where the records end. */
static PCQ_FORCE_INLINE const uint8_t *row_fast(const uint8_t *p, size_t nc, uint64_t *o, size_t js)
{
    size_t k;
    for (k = nc >> 3; k; k--, p += 128, o += 8 * js) {
        o[0] = fast_value(p);
        o[js] = fast_value(p + 16);
        o[2 * js] = fast_value(p + 32);
        o[3 * js] = fast_value(p + 48);
        o[4 * js] = fast_value(p + 64);
        o[5 * js] = fast_value(p + 80);
        o[6 * js] = fast_value(p + 96);
        o[7 * js] = fast_value(p + 112);
    }
    if (nc & 4) {
        o[0] = fast_value(p);
        o[js] = fast_value(p + 16);
        o[2 * js] = fast_value(p + 32);
        o[3 * js] = fast_value(p + 48);
        p += 64;
        o += 4 * js;
    }
    for (k = nc & 3; k; k--, p += 16, o += js) *o = fast_value(p);
    return p;
}

/* The values of ninst canonical instances from `at` (each: Size bytes of
 * header and name, then nc records of 16 bytes) into out[i * is + j * js]
 * (value j of instance i): the fast path of the block readers, with nothing
 * to check and no instance struct filled. */
static PCQ_FORCE_INLINE void matrix_fast(const uint8_t *b, size_t at, size_t ninst, size_t nc, uint64_t *out,
                                         size_t is, size_t js)
{
    const uint8_t *p = b + at;
    size_t i;
    for (i = 0; i < ninst; i++) p = row_fast(p + ld32(p + INSTANCE_HEADER_Size), nc, out + i * is, js);
}

/* By counter, eight instances at a time: their values j fill one 64-byte
 * line of column j. Stored an instance at a time, a column's stride of
 * ninst values would send the stores of one instance to a few cache sets
 * when ninst is a power of two, and they would evict each other. */
static void columns_fast(const uint8_t *b, size_t at, size_t ninst, size_t nc, uint64_t *out)
{
    size_t i = 0, j, t, p[8];
    for (; ninst - i >= 8; i += 8) {
        for (t = 0; t < 8; t++) { /* where each instance's values start */
            at += ld32(b + at + INSTANCE_HEADER_Size);
            p[t] = at;
            at += 16 * nc;
        }
        for (j = 0; j < nc; j++) {
            uint64_t *o = out + j * ninst + i;
            size_t v = 16 * j;
            o[0] = fast_value(b + p[0] + v);
            o[1] = fast_value(b + p[1] + v);
            o[2] = fast_value(b + p[2] + v);
            o[3] = fast_value(b + p[3] + v);
            o[4] = fast_value(b + p[4] + v);
            o[5] = fast_value(b + p[5] + v);
            o[6] = fast_value(b + p[6] + v);
            o[7] = fast_value(b + p[7] + v);
        }
    }
    matrix_fast(b, at, ninst - i, nc, out + i, 1, ninst);
}

/* pcq_block_columns_u64 (by_row 0) and pcq_block_rows_u64 (1). */
static int block_matrix(const pcq_data *d, const pcq_block *b, uint64_t *out, size_t cap, size_t *count,
                        int by_row)
{
    pcq_iter it, vals;
    pcq_data_instance in;
    pcq_value v;
    size_t ninst, nc, i = 0, j, is, js;
    int rc;
    if (count) *count = 0;
    if (!d || !b || !count || (!out && cap) ||
        (b->type != PCQ_PERF_MULTI_COUNTERS && b->type != PCQ_PERF_MULTI_INSTANCES &&
         b->type != PCQ_PERF_COUNTERSET))
        return PCQ_ERR_INVALID_ARG;
    ninst = b->type == PCQ_PERF_MULTI_COUNTERS ? 1 : b->num_instances;
    nc = b->type == PCQ_PERF_MULTI_INSTANCES ? 1 : b->num_counters;
    if (nc && ninst > SIZE_MAX / nc) return PCQ_ERR_OVERFLOW; /* LCOV_EXCL_LINE: only with a 32-bit size_t */
    if (cap < ninst * nc) {
        *count = ninst * nc;
        return PCQ_ERR_BUFFER_TOO_SMALL;
    }
    if (b->type == PCQ_PERF_MULTI_COUNTERS) { /* one instance: a row and a column are the same (a canonical
                                                  buffer's: block_row_fast) */
        pcq_block_values_fast_(d, b, &vals);
        if (pcq_values_read_u64_fast_(&vals, out, nc) < nc) return vals.err.code; /* bytes not validated */
        *count = nc;
        return PCQ_OK;
    }
    is = by_row ? nc : 1;
    js = by_row ? 1 : ninst;
    if (d->flags & PCQ_DATA_CANONICAL_) { /* canonical: Size to the values, then 16 bytes a value */
        if (nc == 1)
            matrix_fast(d->buf, b->body, ninst, 1, out, 1, 1);
        else if (by_row)
            matrix_fast(d->buf, b->body, ninst, nc, out, nc, 1);
        else
            columns_fast(d->buf, b->body, ninst, nc, out);
        *count = ninst * nc;
        return PCQ_OK;
    }
    pcq_block_instances(d, b, &it);
    while ((rc = pcq_instances_of_block_next(&it, &in)) == 1) {
        pcq_instance_values(d, &in, &vals);
        for (j = 0; j < nc && pcq_values_next(&vals, &v) == 1; j++) out[i * is + j * js] = v.u64;
        i++;
    }
    if (rc < 0) return rc;
    *count = ninst * nc;
    return PCQ_OK;
}

/* A type 2 block of a canonical buffer, its one instance's values (a row
 * and a column are the same), the records from the body on (§2.2.4.9):
 * ahead of block_matrix, whose stack frame and tests cost ~45 instructions
 * a block where a _PERF_MULTI_COUNTERS reply has a block every ~500 bytes.
 * 0: not this case, block_matrix says what it is. */
static PCQ_FORCE_INLINE int block_row_fast(const pcq_data *d, const pcq_block *b, uint64_t *out, size_t cap,
                                           size_t *count)
{
    if (!d || !b || !count || (!out && cap) || b->type != PCQ_PERF_MULTI_COUNTERS ||
        !(d->flags & PCQ_DATA_CANONICAL_) || b->num_counters > cap)
        return 0;
    row_fast(d->buf + b->body, b->num_counters, out, 1);
    *count = b->num_counters;
    return 1;
}

int pcq_block_columns_u64(const pcq_data *d, const pcq_block *b, uint64_t *out, size_t cap, size_t *count)
{
    if (block_row_fast(d, b, out, cap, count)) return PCQ_OK;
    return block_matrix(d, b, out, cap, count, 0);
}

int pcq_block_rows_u64(const pcq_data *d, const pcq_block *b, uint64_t *out, size_t cap, size_t *count)
{
    if (block_row_fast(d, b, out, cap, count)) return PCQ_OK;
    return block_matrix(d, b, out, cap, count, 1);
}

int pcq_block_column_u64(const pcq_data *d, const pcq_block *b, uint32_t j, uint64_t *out, size_t cap,
                         size_t *count)
{
    pcq_iter insts, vals;
    pcq_data_instance in;
    pcq_value v;
    size_t n = 0;
    uint32_t k;
    int rc;
    if (count) *count = 0;
    if (!d || !b || !count || (!out && cap) ||
        (b->type != PCQ_PERF_MULTI_INSTANCES && b->type != PCQ_PERF_COUNTERSET) ||
        j >= (b->type == PCQ_PERF_COUNTERSET ? b->num_counters : 1u))
        return PCQ_ERR_INVALID_ARG;
    if (cap < b->num_instances) {
        *count = b->num_instances;
        return PCQ_ERR_BUFFER_TOO_SMALL;
    }
    if (d->flags & PCQ_DATA_CANONICAL_) { /* as in columns_fast */
        size_t at = b->body, step = 16 * (size_t)(b->type == PCQ_PERF_COUNTERSET ? b->num_counters : 1);
        for (; n < b->num_instances; n++) {
            at += ld32(d->buf + at + INSTANCE_HEADER_Size);
            out[n] = fast_value(d->buf + at + 16 * (size_t)j);
            at += step;
        }
        *count = n;
        return PCQ_OK;
    }
    pcq_block_instances(d, b, &insts);
    while ((rc = pcq_instances_of_block_next(&insts, &in)) == 1) {
        pcq_instance_values(d, &in, &vals);
        for (k = 0; k <= j; k++) pcq_values_next(&vals, &v); /* the instance's step checked them */
        out[n++] = v.u64;
    }
    *count = n;
    return rc;
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

#define ASCII16_4  PCQ_ASCII16_4_ /* the header's: its inline conversion shares these two */
#define put_ascii4 pcq_put_ascii4_

/* pcq_utf16_to_utf8 from pos on, `written` bytes of `room` written (room 0:
 * none will be): ASCII four units a turn, then the few before a unit that is
 * not, a byte each; where fewer than four bytes of room are left, a unit at
 * a time writes what fits. */
static PCQ_NOINLINE size_t utf16_to_utf8_rest(const uint8_t *src, size_t nbytes, size_t pos, char *dst,
                                              size_t room, size_t written, size_t *replaced)
{
    size_t need = written, bad = 0, t, k, n;
    int full = room == 0 || written == room; /* nothing more is written once a character did not fit */
    uint8_t enc[4];
    uint64_t w;
    while (pos < nbytes) {
        t = (nbytes - pos) / 8;
        if (!full && (room - written) / 4 < t) t = (room - written) / 4;
        for (k = t; k && !((w = ld64(src + pos)) & ASCII16_4); k--, pos += 8)
            if (!full) put_ascii4(dst + written + 4 * (t - k), w);
        need += 4 * (t - k);
        if (!full) written += 4 * (t - k);
        for (; pos < nbytes && !full && (w = ld16(src + pos)) < 0x80; pos += 2, need++) {
            if (written == room)
                full = 1;
            else
                dst[written++] = (char)w;
        }
        if (pos == nbytes) break;
        n = utf8_encode(next_code_point(src, nbytes, &pos, &bad), enc);
        need += n;
        if (!full && n <= room - written) /* never split a character */
            for (k = 0; k < n; k++) dst[written++] = (char)enc[k];
        else
            full = 1;
    }
    if (room) dst[written] = '\0';
    if (replaced) *replaced = bad;
    return need;
}

size_t pcq_utf16_to_utf8(const uint8_t *src, size_t nbytes, char *dst, size_t cap, size_t *replaced)
{
    size_t pos = 0, written = 0, room;
    uint64_t w;
    if (!src) nbytes = 0;
    nbytes &= ~(size_t)1;
    room = dst && cap > 0 ? cap - 1 : 0; /* text bytes: one is kept for the NUL */
    /* Names are mostly ASCII, and the general step costs ~38 instructions a
     * unit (the README's walk converts every instance's name): where an
     * ASCII prefix fits whole there is no room to test, and a name that is
     * all ASCII is done here, four units a turn, then the last few. */
    if (room >= nbytes / 2 && room) {
        if (nbytes >= 8) written = (pos = pcq_ascii16_prefix_(src, nbytes, dst)) / 2; /* the header's */
        for (; pos < nbytes && (w = ld16(src + pos)) < 0x80; pos += 2) dst[written++] = (char)w;
        if (pos == nbytes) {
            dst[written] = '\0';
            if (replaced) *replaced = 0;
            return written;
        }
    }
    if (!room && dst && cap > 0) dst[0] = '\0';
    return utf16_to_utf8_rest(src, nbytes, pos, dst, room, written, replaced);
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

/* Structure sizes and offsets: the layout's (section 2); one more rule of
 * the canonical form: */
#define WR_MIN_VALUE_AREA 16u /* NOTES §2: _PERF_COUNTER_DATA.dwSize >= 8 + 8 */

static void wr_sync(pcq_writer *w);

/* w->state: what is open. Top-level structures only go in WR_TOP. */
#define WR_TOP   PCQ_WR_TOP_   /* nothing open */
#define WR_DATA  PCQ_WR_DATA_  /* a _PERF_DATA_HEADER is open, between blocks */
#define WR_BLOCK PCQ_WR_BLOCK_ /* a _PERF_COUNTER_HEADER block is open */

/* ---- status and checked arithmetic ------------------------------------ */

/* The writer's one way to fail: the first error of the sequence is kept
 * (sticky) and returned. A status of the calls, not of input bytes, so it
 * has no offset; pcq_reencode hands it on through pcq_error_set. */
static int wr_fail(pcq_writer *w, int code)
{
    if (w->err == PCQ_OK) w->err = code;
    w->rest += w->fast;
    w->fast = 0;
    w->inst_lim = 0;
    return w->err;
}

/* The entry check of every call: a writer, no earlier error, right state. */
static PCQ_INLINE int wr_enter(pcq_writer *w, int state)
{
    if (w == NULL) return PCQ_ERR_INVALID_ARG;
    if (w->err != PCQ_OK) return w->err;
    if (w->state != state) return wr_fail(w, PCQ_ERR_STATE);
    return PCQ_OK;
}

static PCQ_INLINE int wr_add(size_t a, size_t b, size_t *sum)
{
    /* With a 64-bit size_t no sum of caller sizes gets here; with a 32-bit
     * one a sizing pass that reuses a large name can. */
    if (a > SIZE_MAX - b) return 0; /* LCOV_EXCL_LINE: reachable only where size_t is 32 bits */
    *sum = a + b;
    return 1;
}

static int wr_mul(size_t a, size_t b, size_t *product)
{
    /* Counts are capped by PCQ_MAX_* before they are multiplied. */
    if (b != 0 && a > SIZE_MAX / b) return 0; /* LCOV_EXCL_LINE: reachable only where size_t is 32 bits */
    *product = a * b;
    return 1;
}

/* Rounds up to the next multiple of 8 (§2.2.4: structures begin on 8-byte
 * boundaries, so every padded size is a multiple of 8). */
static PCQ_INLINE int wr_round8(size_t a, size_t *out)
{
    if (a > SIZE_MAX - 7) return 0; /* LCOV_EXCL_LINE: reachable only where size_t is 32 bits */
    *out = (a + 7) & ~(size_t)7;
    return 1;
}

/* Whether v fits a 32-bit wire field; always, where size_t is 32 bits. */
static PCQ_INLINE int wr_fits32(size_t v)
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
    if (w->dst != NULL && at < w->cap) w->dst[at] = b;
}

/* Little-endian 32-bit store at an offset already reserved; used both for
 * appending and for back-patching (a patch past cap is thus skipped). */
static PCQ_INLINE void wr_le32(uint8_t *p, uint32_t v)
{
    st32(p, v);
}

static PCQ_INLINE void wr_le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    wr_le32(p, (uint32_t)v);
    wr_le32(p + 4, (uint32_t)(v >> 32));
#endif
}

/* wr_store32 near cap or in a sizing pass: the bytes that fit (out of line). */
static PCQ_NOINLINE void wr_store32_bytes(pcq_writer *w, size_t at, uint32_t v)
{
    wr_store(w, at, (uint8_t)v);
    wr_store(w, at + 1, (uint8_t)(v >> 8));
    wr_store(w, at + 2, (uint8_t)(v >> 16));
    wr_store(w, at + 3, (uint8_t)(v >> 24));
}

static PCQ_INLINE void wr_store32(pcq_writer *w, size_t at, uint32_t v)
{
    if (w->dst != NULL && at < w->cap && w->cap - at >= 4)
        wr_le32(w->dst + at, v); /* the common case: all four bytes fit */
    else
        wr_store32_bytes(w, at, v);
}

/* Reserves n bytes at the end of the output; 0 if an earlier error stands
 * or if w->len would wrap (PCQ_ERR_OVERFLOW). */
static int wr_reserve(pcq_writer *w, size_t n, size_t *at)
{
    size_t end;

    if (PCQ_NEVER(w->err != PCQ_OK)) /* every caller has checked */
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

    if (PCQ_NEVER(!wr_reserve(w, n, &at))) return;
    if (w->dst == NULL || at >= w->cap) return;
    room = w->cap - at;
    if (room > n) room = n;
    if (room == 0) return;
    if (p != NULL)
        memcpy(w->dst + at, p, room);
    else
        memset(w->dst + at, 0, room);
}

static void wr_u16(pcq_writer *w, uint16_t v)
{
    size_t at;

    if (PCQ_NEVER(!wr_reserve(w, 2, &at))) return;
    wr_store(w, at, (uint8_t)v);
    wr_store(w, at + 1, (uint8_t)(v >> 8));
}

static void wr_u32(pcq_writer *w, uint32_t v)
{
    size_t at;

    if (PCQ_ALWAYS(wr_reserve(w, 4, &at))) wr_store32(w, at, v);
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
static PCQ_INLINE int wr_check_text(const uint8_t *p, size_t n)
{
    size_t i;
    uint64_t nul = 0;

    if ((p == NULL && n != 0) || n % 2 != 0) return PCQ_ERR_INVALID_ARG;
    if (n < 8) return n && find_nul16(p, 0, n) != n ? PCQ_ERR_INVALID_ARG : PCQ_OK;
    for (i = 0; n - i > 8; i += 8) nul |= has_nul16(ld64(p + i));
    nul |= has_nul16(ld64(p + n - 8)); /* the last 8 bytes, overlapping: n is even, units line up */
    return nul ? PCQ_ERR_INVALID_ARG : PCQ_OK;
}

/* Copies a name of n bytes (even, at least 8) to dst, looking for a U+0000
 * in the same pass: non-zero when there is one. Its ends first, as the
 * header's inline instance step copies them (pcq_copy_name_ends_: the whole
 * of a name of up to 32 bytes, most names, with no loop), then the bytes
 * between, 16 a turn with SSE2, else 8. */
static PCQ_INLINE uint64_t wr_copy_name8(uint8_t *dst, const uint8_t *src, size_t n)
{
    uint64_t nul = pcq_copy_name_ends_(dst, src, n);
    size_t i;
#if PCQ_SSE2_
    for (i = 16; i + 16 < n; i += 16) {
        __m128i v = pcq_load16_(src + i);
        _mm_storeu_si128((__m128i *)(void *)(dst + i), v);
        nul |= (uint64_t)_mm_movemask_epi8(pcq_zero_units_(v));
    }
#else
    for (i = 16; i + 16 < n; i += 8) {
        uint64_t x = ld64(src + i);
        memcpy(dst + i, src + i, 8); /* bytes as they are: x is a value (ld64) */
        nul |= has_nul16(x);
    }
#endif
    return nul;
}

/* Size of a header of `header` bytes, a name, its NUL and zero padding to 8:
 * _PERF_INSTANCE_HEADER.Size (§3.1.4.1.3) and _PERF_COUNTER_IDENTIFIER.Size
 * (§3.1.4.1.5) MUST be 8-byte multiples that cover the name. */
static PCQ_INLINE int wr_named_size(pcq_writer *w, size_t header, const uint8_t *name, size_t n,
                                    uint32_t *size)
{
    size_t s;
    int rc;

    if (!wr_add(header, n, &s) || !wr_add(s, NUL16_SIZE, &s) || !wr_round8(s, &s) || !wr_fits32(s))
        return wr_fail(w, PCQ_ERR_OVERFLOW);
    rc = wr_check_text(name, n);
    if (rc != PCQ_OK) return wr_fail(w, rc);
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
    if (w == NULL) return;
    memset(w, 0, sizeof *w);
    w->dst = (uint8_t *)dst;
    w->cap = dst != NULL ? cap : 0; /* no buffer: a sizing pass */
    w->err = PCQ_OK;
    w->state = WR_TOP;
}

int pcq_writer_finish(pcq_writer *w, size_t *len)
{
    if (len != NULL) *len = 0;
    if (w == NULL) return PCQ_ERR_INVALID_ARG;
    if (w->err != PCQ_OK) return w->err;
    if (w->state != WR_TOP) /* a data buffer or block still open */
        return PCQ_ERR_STATE;
    if (len != NULL) *len = w->len;
    if (w->dst != NULL && w->len > w->cap) return PCQ_ERR_BUFFER_TOO_SMALL;
    return PCQ_OK;
}

/* ---- registration info, strings, GUIDs, instances, identifiers ---------- */

/* §2.2.4.1, 32 bytes (Figure 1). NumCounters is written as given. */
int pcq_put_counterset_reg(pcq_writer *w, const pcq_counterset_reg *set)
{
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK) return rc;
    if (set == NULL) return wr_fail(w, PCQ_ERR_INVALID_ARG);
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

    if (rc != PCQ_OK) return rc;
    if (c == NULL) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    wr_u32(w, c->counter_id);
    wr_u32(w, c->type);
    wr_u64(w, c->attrib);
    wr_u32(w, c->detail_level);
    wr_u32(w, (uint32_t)c->default_scale); /* two's complement, -10..10 */
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

    if (rc != PCQ_OK) return rc;
    rc = wr_check_text(utf16, nbytes);
    if (rc != PCQ_OK) return wr_fail(w, rc);
    wr_bytes(w, utf16, nbytes);
    wr_bytes(w, NULL, NUL16_SIZE);
    return w->err;
}

int pcq_put_guid(pcq_writer *w, const pcq_guid *g)
{
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK) return rc;
    if (g == NULL) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    wr_guid(w, g);
    return w->err;
}

/* One element of the opnum-2 instance array (§3.1.4.1.3, Figure 3). */
int pcq_put_instance(pcq_writer *w, uint32_t instance_id, const uint8_t *name16, size_t nbytes)
{
    uint32_t size = 0; /* set by wr_named_size (gcc -m32 -O1 cannot tell) */
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK) return rc;
    if (wr_named_size(w, INSTANCE_HEADER_SIZE, name16, nbytes, &size) != PCQ_OK) return w->err;
    wr_u32(w, size);
    wr_u32(w, instance_id);
    wr_name(w, name16, nbytes, size - INSTANCE_HEADER_SIZE);
    return w->err;
}

/* One _PERF_COUNTER_IDENTIFIER and its name (§2.2.4.6, §3.1.4.1.5 Figure 4).
 * id->size is ignored: Size is computed. Status, Index and Reserved are
 * written as given (opnum 7 echoes them back). */
int pcq_put_identifier(pcq_writer *w, const pcq_identifier *id)
{
    uint32_t size = 0; /* set by wr_named_size (gcc -m32 -O1 cannot tell) */
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK) return rc;
    if (id == NULL) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (wr_named_size(w, COUNTER_IDENTIFIER_SIZE, id->name.ptr, id->name.len, &size) != PCQ_OK) return w->err;
    wr_guid(w, &id->guid);
    wr_u32(w, id->status);
    wr_u32(w, size);
    wr_u32(w, id->counter_id);
    wr_u32(w, id->instance_id);
    wr_u32(w, id->index);
    wr_u32(w, id->reserved);
    wr_name(w, id->name.ptr, id->name.len, size - COUNTER_IDENTIFIER_SIZE);
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
static int wr_strings_text_size(pcq_writer *w, wr_entry_fn get, const void *ctx, uint32_t n, size_t *sum)
{
    pcq_string_entry e;
    uint32_t i;
    int rc;

    *sum = 0;
    for (i = 0; i < n; i++) {
        rc = get(ctx, i, &e); /* an array, or a validated string block */
        if (PCQ_NEVER(rc != PCQ_OK)) return wr_fail(w, rc);
        if (!e.present) continue;
        /* Sizes first: a text too long for dwSize is refused unread. */
        if (!wr_add(*sum, e.text.len, sum) || !wr_add(*sum, NUL16_SIZE, sum) || !wr_fits32(*sum))
            return wr_fail(w, PCQ_ERR_OVERFLOW);
        rc = wr_check_text(e.text.ptr, e.text.len);
        if (rc != PCQ_OK) return wr_fail(w, rc);
    }
    return PCQ_OK;
}

/* The _STRING_COUNTER_HEADER array. Strings are packed in entry order, so
 * each dwOffset is the running text size plus the convention's base: the
 * block start (Win32, perflib.h) or the end of this array (§2.2.4.4). */
static void wr_strings_entries(pcq_writer *w, wr_entry_fn get, const void *ctx, uint32_t n, size_t base)
{
    pcq_string_entry e;
    size_t at = base;
    uint32_t i;

    for (i = 0; i < n && w->err == PCQ_OK; i++) {
        if (PCQ_NEVER(get(ctx, i, &e) != PCQ_OK)) return; /* the sizing pass saw every entry */
        wr_u32(w, e.counter_id);
        wr_u32(w, e.present ? (uint32_t)at : PCQ_STRING_ABSENT);
        if (e.present) at += e.text.len + NUL16_SIZE; /* bounded by the checked total */
    }
}

static void wr_strings_texts(pcq_writer *w, wr_entry_fn get, const void *ctx, uint32_t n)
{
    pcq_string_entry e;
    uint32_t i;

    for (i = 0; i < n && w->err == PCQ_OK; i++) {
        if (get(ctx, i, &e) != PCQ_OK || !e.present) continue;
        wr_bytes(w, e.text.ptr, e.text.len);
        wr_bytes(w, NULL, NUL16_SIZE);
    }
}

static int wr_strings(pcq_writer *w, wr_entry_fn get, const void *ctx, uint32_t n,
                      pcq_str_convention convention)
{
    size_t head, text, total;
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK) return rc;
    if (convention != PCQ_STROFF_NONE && convention != PCQ_STROFF_SPEC && convention != PCQ_STROFF_WIN32)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (n > PCQ_MAX_COUNTERS) return wr_fail(w, PCQ_ERR_LIMIT);
    if (!wr_mul(n, STRING_COUNTER_HEADER_SIZE, &head) || !wr_add(head, STRING_BUFFER_HEADER_SIZE, &head))
        return wr_fail(w, PCQ_ERR_OVERFLOW); /* LCOV_EXCL_LINE: reachable only where size_t is 32 bits */
    if (wr_strings_text_size(w, get, ctx, n, &text) != PCQ_OK) return w->err;
    /* §3.1.4.1.2: the block "MUST be 8-byte aligned"; dwSize counts the padding. */
    if (!wr_add(head, text, &total) || !wr_round8(total, &total) || !wr_fits32(total))
        return wr_fail(w, PCQ_ERR_OVERFLOW); /* only past 4 GiB of strings */ /* LCOV_EXCL_LINE */
    wr_u32(w, (uint32_t)total);
    wr_u32(w, n);
    wr_strings_entries(w, get, ctx, n, convention == PCQ_STROFF_SPEC ? 0 : head);
    wr_strings_texts(w, get, ctx, n);
    wr_bytes(w, NULL, total - head - text);
    return w->err;
}

int pcq_put_strings(pcq_writer *w, const pcq_string_entry *entries, uint32_t n, pcq_str_convention convention)
{
    if (w != NULL && w->err == PCQ_OK && entries == NULL && n != 0) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    return wr_strings(w, wr_entry_from_array, entries, n, convention);
}

/* ---- data buffers (§2.2.4.7-11, §3.1.4.1.6 Figures 5-9) ------------------ */

/* _PERF_DATA_HEADER, 48 bytes; dwTotalSize and dwNumCounter are patched by
 * pcq_end_data. */
int pcq_begin_data(pcq_writer *w, const pcq_data *hdr)
{
    const pcq_systemtime *t;
    int rc = wr_enter(w, WR_TOP);

    if (rc != PCQ_OK) return rc;
    if (hdr == NULL) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    t = &hdr->system_time;
    w->data_at = w->len;
    w->nblocks = 0;
    wr_u32(w, 0); /* dwTotalSize, patched */
    wr_u32(w, 0); /* dwNumCounter, patched */
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
    if (w->err == PCQ_OK) w->state = WR_DATA;
    return w->err;
}

/* dwNumCounter counts blocks; kept within the decoder's counter cap. */
static int wr_count_block(pcq_writer *w)
{
    if (w->nblocks >= PCQ_MAX_COUNTERS) return wr_fail(w, PCQ_ERR_LIMIT);
    w->nblocks++;
    return PCQ_OK;
}

/* A _PERF_COUNTER_HEADER (§2.2.4.8; Reserved MUST be 0): its 16 bytes stored
 * directly when they fit, where four wr_u32 calls took ~80 instructions;
 * else through wr_u32, which counts what does not fit. */
static PCQ_FORCE_INLINE void wr_counter_header(pcq_writer *w, uint32_t status, uint32_t type, uint32_t size)
{
    if (w->dst && w->len <= w->cap && COUNTER_HEADER_SIZE <= w->cap - w->len) {
        uint8_t *p = w->dst + w->len;
        wr_le32(p + COUNTER_HEADER_dwStatus, status);
        wr_le32(p + COUNTER_HEADER_dwType, type);
        wr_le64(p + COUNTER_HEADER_dwSize, size); /* dwSize and Reserved */
        w->len += COUNTER_HEADER_SIZE;
    } else {
        wr_u32(w, status);
        wr_u32(w, type);
        wr_u32(w, size);
        wr_u32(w, 0);
    }
}

/* PERF_ERROR_RETURN: the 16-byte _PERF_COUNTER_HEADER alone (NOTES §2). */
int pcq_put_error_block(pcq_writer *w, uint32_t status)
{
    int rc = wr_enter(w, WR_DATA);

    if (rc != PCQ_OK) return rc;
    if (wr_count_block(w) != PCQ_OK) return w->err;
    wr_counter_header(w, status, PCQ_PERF_ERROR_RETURN, COUNTER_HEADER_SIZE);
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
     * cap raised (to 2^30 or more the array passes a 32-bit dwSize). */
    ok = wr_mul(n, COUNTER_ID_SIZE, &size) && wr_add(size, MULTI_COUNTERS_SIZE, &size) &&
         wr_round8(size, &size);
    if (!ok || !wr_fits32(size)) {
        /* LCOV_EXCL_START: reachable only with PCQ_MAX_COUNTERS >= 2^30, or a 32-bit size_t */
        wr_fail(w, PCQ_ERR_OVERFLOW);
        return;
    }                                                                                /* LCOV_EXCL_STOP */
    if (w->err == PCQ_OK && w->dst && w->len <= w->cap && size <= w->cap - w->len) { /* stored directly */
        uint8_t *p = w->dst + w->len;
        wr_le32(p + MULTI_COUNTERS_dwSize, (uint32_t)size);
        wr_le32(p + MULTI_COUNTERS_dwCounters, n);
        if (id == wr_id_from_array) /* an array (pcq_begin_block): no call an id */
            pcq_st32_array_(p + MULTI_COUNTERS_SIZE, (const uint32_t *)ctx, n);
        else
            for (i = 0; i < n; i++) wr_le32(p + MULTI_COUNTERS_SIZE + 4 * (size_t)i, id(ctx, i));
        if (n & 1) wr_le32(p + MULTI_COUNTERS_SIZE + 4 * (size_t)n, 0);
        w->len += size;
        return;
    }
    wr_u32(w, (uint32_t)size);
    wr_u32(w, n);
    for (i = 0; i < n && w->err == PCQ_OK; i++) wr_u32(w, id(ctx, i));
    wr_bytes(w, NULL, size - MULTI_COUNTERS_SIZE - (size_t)n * COUNTER_ID_SIZE);
}

static PCQ_NOINLINE int wr_begin_block(pcq_writer *w, uint32_t type, uint32_t status, wr_id_fn id,
                                       const void *ctx, uint32_t n)
{
    int has_ids = type == PCQ_PERF_MULTI_COUNTERS || type == PCQ_PERF_COUNTERSET;
    int has_instances = type == PCQ_PERF_MULTI_INSTANCES || type == PCQ_PERF_COUNTERSET;
    int rc = wr_enter(w, WR_DATA);

    if (rc != PCQ_OK) return rc;
    /* Type 0 has its own call (pcq_put_error_block); others are unknown. */
    if (type != PCQ_PERF_SINGLE_COUNTER && !has_ids && !has_instances) return wr_fail(w, PCQ_ERR_STATE);
    if (!has_ids && n != 0) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (n > PCQ_MAX_COUNTERS) return wr_fail(w, PCQ_ERR_LIMIT);
    if (wr_count_block(w) != PCQ_OK) return w->err;
    w->block_at = w->len;
    wr_counter_header(w, status, type, 0); /* dwSize patched by pcq_end_block */
    if (has_ids) wr_multi_counters(w, id, ctx, n);
    if (has_instances) {
        w->multi_at = w->len;
        if (w->err == PCQ_OK && w->dst && w->len <= w->cap && MULTI_INSTANCES_SIZE <= w->cap - w->len) {
            wr_le64(w->dst + w->len, 0); /* dwTotalSize and dwInstances, patched */
            w->len += MULTI_INSTANCES_SIZE;
        } else {
            wr_u32(w, 0); /* _PERF_MULTI_INSTANCES.dwTotalSize, patched */
            wr_u32(w, 0); /* dwInstances, patched */
        }
    }
    w->block_type = type;
    w->want_values = has_ids ? n : 1; /* per block (1, 2) or per instance (4, 6) */
    w->fast = 0;
    w->rest = has_instances ? 0 : w->want_values; /* an instance block wants an instance first */
    w->ninstances = 0;
    if (w->err == PCQ_OK) w->state = WR_BLOCK;
    wr_sync(w);
    return w->err;
}

/* Where an instance may end so that dst holds the want_values records after
 * it, and the block stays within PCQ_MAX_INSTANCES (0: nowhere). len <= cap
 * here (wr_sync's test).
 * - The instance limit in bytes: until the next wr_sync, each instance
 *   stored adds one to ninstances and 16 bytes or more to len (values only
 *   add bytes). So one that ends at or below len + 16 x (the instances left
 *   now) has fewer than that many before it: the header's inline step needs
 *   no count test. Where this bites first (past 256 MiB with the default
 *   limit), the checked call stores the instance and sets it again.
 * - 0 when cap is within 64 of SIZE_MAX (no real buffer), so that the
 *   inline step's len + size cannot wrap (len <= cap, size < 64).
 * The rule is pcq_codec.h's pcq_inst_lim_ (its inline pcq_begin_block_try_
 * uses it too). Out of line: inlined, it made wr_sync too long for clang 14
 * to inline, and every block paid a call (the batch writer on multi 1.37 ->
 * 1.43). */
static PCQ_NOINLINE size_t wr_inst_lim(const pcq_writer *w)
{
    return pcq_inst_lim_(w);
}

int pcq_begin_block(pcq_writer *w, uint32_t type, uint32_t status, const uint32_t *counter_ids,
                    uint32_t num_counters)
{
    if (w != NULL && pcq_begin_block_try_(w, type, status, counter_ids, num_counters)) return PCQ_OK;
    if (w != NULL && w->err == PCQ_OK && counter_ids == NULL && num_counters != 0)
        return wr_fail(w, PCQ_ERR_INVALID_ARG);
    return wr_begin_block(w, type, status, wr_id_from_array, counter_ids, num_counters);
}

static PCQ_INLINE int wr_block_has_instances(const pcq_writer *w)
{
    return w->block_type == PCQ_PERF_MULTI_INSTANCES || w->block_type == PCQ_PERF_COUNTERSET;
}

/* The current unit (the block for types 1 and 2, the last instance for 4 and
 * 6; a type 4/6 block with no instance yet) has all its values. */
static PCQ_INLINE int wr_unit_complete(const pcq_writer *w)
{
    if (wr_block_has_instances(w) && w->ninstances == 0) return 1;
    return w->rest == 0 && w->fast == 0;
}

/* A _PERF_INSTANCE_HEADER inside a type 4 or 6 block (Figure 8, NOTES §2):
 * Size covers header, name, NUL and padding; the values follow it. */
/* The 16-byte record of a 4- or 8-byte value (NOTES §2), at p: dwDataSize,
 * dwSize 16, the value and its zero padding. */
static PCQ_INLINE void wr_record(uint8_t *p, uint64_t v, uint32_t data_size)
{
    wr_le64(p, data_size | (uint64_t)WR_MIN_VALUE_AREA << 32);
    wr_le64(p + COUNTER_DATA_SIZE, data_size == 8 ? v : (uint32_t)v);
}

/* n records from p; non-zero when a size was not 4 or 8 (x - 4 & ~4 is 0
 * for those alone, in 8 bits): then they must not be appended. */
static PCQ_INLINE unsigned wr_records(uint8_t *p, const uint64_t *values, const uint8_t *sizes, uint32_t n)
{
    unsigned bad = 0;
    uint32_t j;
    if (sizes == NULL)
        for (j = 0; j < n; j++, p += WR_MIN_VALUE_AREA) wr_record(p, values[j], 8u);
    else
        for (j = 0; j < n; j++, p += WR_MIN_VALUE_AREA) {
            bad |= (uint8_t)(sizes[j] - 4u) & ~4u;
            wr_record(p, values[j], sizes[j]);
        }
    return bad;
}

/* A name of n < 8 bytes (n even) as the word it fills with its NUL and
 * padding at an instance's offset 8: its units, zeros above; all ones when
 * one of its units is U+0000 (no name of that word is a NUL-free text). */
static PCQ_INLINE uint64_t wr_short_name(const uint8_t *src, size_t n)
{
    uint64_t x = n >= 4 ? ld32(src) : 0;
    if (n & 2) x |= (uint64_t)ld16(src + n - 2) << (8 * (n - 2));
    /* has_nul16 over the n bytes alone: the zeros above them are not units,
     * and a borrow from them only flags the lanes above */
    if ((x - LANES_LO) & ~x & LANES_HI & (((uint64_t)1 << (8 * n)) - 1)) return ~(uint64_t)0;
    return x;
}

/* The common case of an instance, for pcq_put_data_instance and _u64: the
 * writer wants one now (w->inst_lim, and the open unit has its values), a
 * name that fits dst with room for its n values (n 0: they come later,
 * through w->fast; else all of them, n == w->want_values), no U+0000 in the
 * name. 1 when it was stored with its values; -1 when a size was not 4 or
 * 8; 0 to take the checked path, which says what is wrong. Nothing is
 * appended unless all is well (the bytes past w->len are scratch). */
static PCQ_INLINE int wr_fast_instance(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                       size_t nbytes, const uint64_t *values, const uint8_t *sizes,
                                       uint32_t n)
{
    size_t size, room;
    uint64_t x;
    uint8_t *p;
    /* inst_lim, the open unit has its values (fast and rest 0), below the limit */
    if (!w || !w->inst_lim || (w->fast | w->rest) || w->ninstances >= PCQ_MAX_INSTANCES || !name16 ||
        nbytes > 0x7FFFFFF0u || (nbytes & 1))
        return 0;
    size = (INSTANCE_HEADER_SIZE + nbytes + NUL16_SIZE + 7) & ~(size_t)7;
    room = w->cap - w->len; /* w->inst_lim: dst, and len <= cap */
    if (size > room || n > (room - size) / WR_MIN_VALUE_AREA) return 0;
    p = w->dst + w->len;
    if (nbytes < 8) { /* no call (a check and a copy): a function that makes none saves no registers */
        if ((x = wr_short_name(name16, nbytes)) == ~(uint64_t)0) return 0;
        wr_le64(p + INSTANCE_HEADER_InstanceName, x); /* size 16: the whole name area */
    } else {
        wr_le64(p + size - 8, 0); /* the NUL and the padding: the name's last 8 bytes */
        if (wr_copy_name8(p + INSTANCE_HEADER_InstanceName, name16, nbytes) != 0) return 0;
    }
    if (n && wr_records(p + size, values, sizes, n)) return -1;
    wr_le32(p + INSTANCE_HEADER_Size, (uint32_t)size);
    wr_le32(p + INSTANCE_HEADER_InstanceId, instance_id);
    w->len += size + (size_t)n * WR_MIN_VALUE_AREA;
    w->ninstances++;
    /* what wr_sync would say, from what is known here: n 0, its values come
     * next; else it is complete (n > 0 is all its values, the caller's test,
     * or it wants none) */
    if (n == 0 && w->want_values > 0) {
        room = (room - size) / WR_MIN_VALUE_AREA;
        w->fast = w->want_values < room ? w->want_values : (uint32_t)room;
        w->rest = w->want_values - w->fast;
    } else {
        w->fast = w->rest = 0;
    }
    return 1;
}

/* pcq_put_data_instance past its fast path: the checks that say what is
 * wrong, and an instance near the end of dst or of a sizing pass (out of
 * line, off the fast path's code: 1% fewer instructions for small
 * instances; the fast path keeps a frame of its own). */
static PCQ_NOINLINE int wr_data_instance(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                         size_t nbytes)
{
    uint32_t size = 0; /* set by wr_named_size (gcc -O1 cannot tell) */
    int rc = wr_enter(w, WR_BLOCK);

    if (rc != PCQ_OK) return rc;
    if (!wr_block_has_instances(w) || !wr_unit_complete(w)) return wr_fail(w, PCQ_ERR_STATE);
    if (w->ninstances >= PCQ_MAX_INSTANCES) return wr_fail(w, PCQ_ERR_LIMIT);
    if (wr_named_size(w, INSTANCE_HEADER_SIZE, name16, nbytes, &size) != PCQ_OK) return w->err;
    if (w->dst && w->len <= w->cap && size <= w->cap - w->len) { /* stored directly */
        uint8_t *p = w->dst + w->len;
        wr_le32(p + INSTANCE_HEADER_Size, size);
        wr_le32(p + INSTANCE_HEADER_InstanceId, instance_id);
        wr_le64(p + size - 8, 0); /* the NUL and the padding: the name's last 8 bytes */
        if (nbytes) memcpy(p + INSTANCE_HEADER_InstanceName, name16, nbytes);
        w->len += size;
    } else {
        wr_u32(w, size);
        wr_u32(w, instance_id);
        wr_name(w, name16, nbytes, size - INSTANCE_HEADER_SIZE);
    }
    w->ninstances++;
    w->fast = 0;
    w->rest = w->want_values;
    wr_sync(w);
    return w->err;
}

int pcq_put_data_instance(pcq_writer *w, uint32_t instance_id, const uint8_t *name16, size_t nbytes)
{
    if (wr_fast_instance(w, instance_id, name16, nbytes, NULL, NULL, 0) == 1) return PCQ_OK;
    return wr_data_instance(w, instance_id, name16, nbytes);
}

/* A _PERF_COUNTER_DATA and its value. NOTES §2: dwSize counts the structure,
 * the value and the zero padding to 8, and is at least 16 (so a 4-byte value
 * is followed by 4 zero bytes). */
int pcq_put_value(pcq_writer *w, const uint8_t *bytes, uint32_t data_size)
{
    size_t size;
    int rc = wr_enter(w, WR_BLOCK);

    if (rc != PCQ_OK) return rc;
    if (wr_unit_complete(w)) /* also: no instance yet in a type 4/6 block */
        return wr_fail(w, PCQ_ERR_STATE);
    if (bytes == NULL && data_size != 0) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (!wr_add(data_size, COUNTER_DATA_SIZE, &size) || !wr_round8(size, &size) || !wr_fits32(size))
        return wr_fail(w, PCQ_ERR_OVERFLOW);
    if (size <= WR_MIN_VALUE_AREA) {
        /* Values of up to 8 bytes (nearly all): the whole 16-byte record,
         * padding included, is built here and appended in one go. */
        uint8_t rec[WR_MIN_VALUE_AREA];
        memset(rec, 0, sizeof rec);
        wr_le32(rec + COUNTER_DATA_dwDataSize, data_size);
        wr_le32(rec + COUNTER_DATA_dwSize, WR_MIN_VALUE_AREA);
        if (data_size > 0) memcpy(rec + COUNTER_DATA_SIZE, bytes, data_size);
        wr_bytes(w, rec, sizeof rec);
    } else {
        wr_u32(w, data_size);
        wr_u32(w, (uint32_t)size);
        wr_bytes(w, bytes, data_size);
        wr_bytes(w, NULL, size - COUNTER_DATA_SIZE - data_size);
    }
    w->rest += w->fast - 1; /* the unit wanted rest + fast values, one more is stored */
    w->fast = 0;
    wr_sync(w);
    return w->err;
}


/* w->fast: how many value records the open block or instance still wants
 * that fit the caller's buffer, 0 unless the writer is in a block with no
 * error. While it is positive a value is stored with no other check (the
 * per-value fast path); every call that changes the state sets it again. */
static void wr_sync(pcq_writer *w)
{
    size_t room;
    w->rest += w->fast; /* the values the unit wants, all in rest until fast is set again */
    w->fast = 0;
    w->inst_lim = 0;
    if (w->err != PCQ_OK || w->state != WR_BLOCK || !w->dst || w->len > w->cap) return;
    /* an instance may come once the unit has its values (the header's fast
     * path stores the last one and calls nothing, so it is said now); the
     * fast paths test the instance limit themselves */
    if (wr_block_has_instances(w)) w->inst_lim = wr_inst_lim(w);
    if (wr_unit_complete(w)) return;
    room = (w->cap - w->len) / WR_MIN_VALUE_AREA;
    w->fast = room < w->rest ? (uint32_t)room : w->rest;
    w->rest -= w->fast;
}

/* w->fast ran out: when the unit has all its values, nothing changes (an
 * instance block's inst_lim was set with the fast path); else wr_sync
 * finds room for the rest. */
static PCQ_INLINE void wr_fast_done(pcq_writer *w)
{
    if (w->rest != 0) wr_sync(w);
}

/* One record on the fast path (w->fast > 0), as the header's inline step
 * stores it; after the unit's last an instance block takes an instance. */
static PCQ_INLINE void wr_fast_record(pcq_writer *w, uint64_t v, uint32_t data_size)
{
    wr_record(w->dst + w->len, v, data_size);
    w->len += WR_MIN_VALUE_AREA;
    if (--w->fast == 0) wr_fast_done(w); /* it counts the unit's values too (rest + fast) */
}

static int wr_value_int(pcq_writer *w, uint64_t v, uint32_t data_size)
{
    uint8_t b[8];

    if (w && w->fast) {
        wr_fast_record(w, v, data_size);
        return PCQ_OK;
    }
    wr_le32(b, (uint32_t)v);
    wr_le32(b + 4, (uint32_t)(v >> 32));
    return pcq_put_value(w, b, data_size);
}

int pcq_put_value_u32(pcq_writer *w, uint32_t v)
{
    if (w && w->fast) {
        wr_fast_record(w, v, 4);
        return PCQ_OK;
    }
    return wr_value_int(w, v, 4);
}

int pcq_put_value_u64(pcq_writer *w, uint64_t v)
{
    if (w && w->fast) {
        wr_fast_record(w, v, 8);
        return PCQ_OK;
    }
    return wr_value_int(w, v, 8);
}

int pcq_put_values_u64(pcq_writer *w, const uint64_t *values, const uint8_t *sizes, uint32_t n)
{
    uint32_t j;
    int rc;

    if (w && values && n > 0 && n <= w->fast) {
        /* the common case, w->fast vouching for the rest (as for one value):
         * written past w->len first, appended only when every size was good */
        if (wr_records(w->dst + w->len, values, sizes, n)) return wr_fail(w, PCQ_ERR_INVALID_ARG);
        w->len += (size_t)n * WR_MIN_VALUE_AREA;
        /* w->fast counts the unit's values too (it wants rest + fast) */
        w->fast -= n;
        if (w->fast == 0) wr_fast_done(w); /* as the per-value step: nothing to do once the unit is whole */
        return PCQ_OK;
    }
    rc = wr_enter(w, WR_BLOCK);
    if (rc != PCQ_OK) return rc;
    if ((values == NULL && n != 0)) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    if (n == 0) return PCQ_OK;
    if (wr_unit_complete(w) || n > w->rest + w->fast) return wr_fail(w, PCQ_ERR_STATE);
    for (j = 0; sizes && j < n; j++) /* near cap, or a sizing pass: check, then a value at a time */
        if (sizes[j] != 4 && sizes[j] != 8) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    for (j = 0; j < n && w->err == PCQ_OK; j++) wr_value_int(w, values[j], sizes ? sizes[j] : 8u);
    return w->err;
}

/* pcq_put_data_instance_u64 past its fast path: the two calls (out of line). */
static PCQ_NOINLINE int wr_data_instance_values(pcq_writer *w, uint32_t instance_id, const uint8_t *name16,
                                                size_t nbytes, const uint64_t *values, const uint8_t *sizes,
                                                uint32_t n)
{
    int rc = pcq_put_data_instance(w, instance_id, name16, nbytes);
    return rc != PCQ_OK ? rc : pcq_put_values_u64(w, values, sizes, n);
}

int pcq_put_data_instance_u64(pcq_writer *w, uint32_t instance_id, const uint8_t *name16, size_t nbytes,
                              const uint64_t *values, const uint8_t *sizes, uint32_t n)
{
    int rc;
    /* The common case in one go (wr_fast_instance); anything else takes the
     * two calls, which say what is wrong. */
    if (w && values && n > 0 && n == w->want_values &&
        (rc = wr_fast_instance(w, instance_id, name16, nbytes, values, sizes, n)) != 0)
        return rc > 0 ? PCQ_OK : wr_fail(w, PCQ_ERR_INVALID_ARG);
    return wr_data_instance_values(w, instance_id, name16, nbytes, values, sizes, n);
}

/* As many of the instances as the common case takes (wr_fast_instance's
 * rules: a name of whole units with no U+0000, room in dst), with the
 * writer's fields in locals: the stores are bytes, which may alias *w, so a
 * loop on w would load them again after each (out of line: the loop has the
 * registers to itself). The writer wants an instance (w->inst_lim), n ==
 * w->want_values > 0, every size is 4 or 8 (the caller checked them once).
 * Returns how many were stored; the caller sends the next one through the
 * checked call, which says what is wrong. It writes wr_fast_instance's name
 * rules again instead of sharing helpers with it: each equivalent sharing
 * tried (the name's checks, its Size, its store) changed gcc 12's register
 * use here and cost 3 to 8 instructions an instance (small 1.48 -> 1.52-1.65
 * Ir/B); test_writer's property test holds the two paths to the same bytes. */
#define WR_ROW_MAX 64 /* the counters of a row whose records wr_fast_instances builds from a table */
static PCQ_NOINLINE uint32_t wr_fast_instances(pcq_writer *w, const pcq_instance *inst, uint32_t ninst,
                                               const uint64_t *values, const uint8_t *sizes, uint32_t n)
{
    uint8_t *p = w->dst + w->len, *v;
    size_t room = w->cap - w->len, size, nbytes, vbytes = (size_t)n * WR_MIN_VALUE_AREA;
    const pcq_instance *at = inst, *end;
    const uint8_t *name;
    uint64_t x, head1, mask1, head[WR_ROW_MAX], mask[WR_ROW_MAX];
    uint32_t j;

#if PCQ_MAX_COUNTERS > (SIZE_MAX / 2) / 16
    if (n > (SIZE_MAX / 2) / WR_MIN_VALUE_AREA) return 0; /* vbytes + size must fit a size_t */
#endif
    if (ninst > PCQ_MAX_INSTANCES - w->ninstances) ninst = PCQ_MAX_INSTANCES - w->ninstances;
    head1 = (sizes != NULL ? sizes[0] : 8u) | (uint64_t)WR_MIN_VALUE_AREA << 32; /* n > 0 */
    mask1 = (head1 & 8) ? ~(uint64_t)0 : 0xFFFFFFFFu;             /* a 4-byte value's padding is zeros */
    for (j = 0; sizes != NULL && n <= WR_ROW_MAX && j < n; j++) { /* a row's records but for the values */
        head[j] = sizes[j] | (uint64_t)WR_MIN_VALUE_AREA << 32;
        mask[j] = sizes[j] == 8 ? ~(uint64_t)0 : 0xFFFFFFFFu;
    }
    for (end = inst + ninst; at != end; at++, values += n) {
        name = at->name.ptr;
        nbytes = at->name.len;
        if (!name || nbytes > 0x7FFFFFF0u || (nbytes & 1)) break;
        size = (INSTANCE_HEADER_SIZE + nbytes + NUL16_SIZE + 7) & ~(size_t)7;
        if (size + vbytes > room) break; /* both below 2^31 */
        if (nbytes < 8) {
            if ((x = wr_short_name(name, nbytes)) == ~(uint64_t)0) break;
            wr_le64(p + INSTANCE_HEADER_InstanceName, x); /* size 16: the whole name area */
        } else {
            wr_le64(p + size - 8, 0); /* the NUL and the padding: the name's last 8 bytes */
            if (wr_copy_name8(p + INSTANCE_HEADER_InstanceName, name, nbytes) != 0) break;
        }
        wr_le32(p + INSTANCE_HEADER_Size, (uint32_t)size);
        wr_le32(p + INSTANCE_HEADER_InstanceId, at->instance_id);
        v = p + size;
        if (n == 1) { /* a type 4 block's instance: its record, known but for the value */
            wr_le64(v, head1);
            wr_le64(v + COUNTER_DATA_SIZE, values[0] & mask1);
        } else if (sizes == NULL) {
            for (j = 0; j < n; j++) wr_record(v + (size_t)j * WR_MIN_VALUE_AREA, values[j], 8u);
        } else if (n <= WR_ROW_MAX) {
            for (j = 0; j < n; j++) {
                wr_le64(v + (size_t)j * WR_MIN_VALUE_AREA, head[j]);
                wr_le64(v + (size_t)j * WR_MIN_VALUE_AREA + COUNTER_DATA_SIZE, values[j] & mask[j]);
            }
        } else {
            for (j = 0; j < n; j++) wr_record(v + (size_t)j * WR_MIN_VALUE_AREA, values[j], sizes[j]);
        }
        p = v + vbytes;
        room -= size + vbytes;
    }
    if (at != inst) { /* the last one has all its values (a block's first had none: rest was n) */
        w->len = w->cap - room;
        w->ninstances += (uint32_t)(at - inst);
        w->fast = w->rest = 0;
    }
    return (uint32_t)(at - inst);
}

int pcq_put_data_instances_u64(pcq_writer *w, const pcq_instance *inst, uint32_t ninst,
                               const uint64_t *values, const uint8_t *sizes, uint32_t n)
{
    uint32_t i = 0, j;
    unsigned bad = 0;
    int rc = wr_enter(w, WR_BLOCK);

    if (rc != PCQ_OK) return rc;
    if (inst == NULL && ninst != 0) return wr_fail(w, PCQ_ERR_INVALID_ARG);
    /* the sizes once, for the fast loop; only when n is the block's count (else
     * the checked call refuses n before it reads an array of n) */
    for (j = 0; sizes != NULL && n == w->want_values && j < n; j++) bad |= (uint8_t)(sizes[j] - 4u) & ~4u;
    while (i < ninst && w->err == PCQ_OK) {
        /* values of instance i: n a row (values NULL only with n 0, which
         * the checked call takes and judges) */
        const uint64_t *v = values != NULL ? values + (size_t)i * n : NULL;
        if (v != NULL && !bad && n > 0 && n == w->want_values && w->inst_lim && !(w->fast | w->rest))
            i += wr_fast_instances(w, inst + i, ninst - i, v, sizes, n);
        if (i == ninst) break;
        v = values != NULL ? values + (size_t)i * n : NULL; /* the first the fast loop left */
        pcq_put_data_instance_u64(w, inst[i].instance_id, inst[i].name.ptr, inst[i].name.len, v, sizes, n);
        i++;
    }
    return w->err;
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
    int rc;

    if (w != NULL && pcq_end_block_try_(w)) return PCQ_OK; /* the common case (pcq_codec.h) */
    rc = wr_enter(w, WR_BLOCK);

    if (rc != PCQ_OK) return rc;
    if (!wr_unit_complete(w)) return wr_fail(w, PCQ_ERR_STATE);
    if (wr_block_has_instances(w)) {
        wr_patch_size(w, w->multi_at, w->multi_at);
        wr_store32(w, w->multi_at + MULTI_INSTANCES_dwInstances, w->ninstances);
    }
    wr_patch_size(w, w->block_at + COUNTER_HEADER_dwSize, w->block_at);
    if (w->err == PCQ_OK) w->state = WR_DATA;
    wr_sync(w);
    return w->err;
}

/* Closes the data buffer: _PERF_DATA_HEADER.dwTotalSize and dwNumCounter. */
int pcq_end_data(pcq_writer *w)
{
    int rc = wr_enter(w, WR_DATA);

    if (rc != PCQ_OK) return rc;
    wr_patch_size(w, w->data_at, w->data_at);
    wr_store32(w, w->data_at + DATA_HEADER_dwNumCounter, w->nblocks);
    if (w->err == PCQ_OK) w->state = WR_TOP;
    return w->err;
}

/* ---- pcq_reencode -------------------------------------------------------- */

/* Entries come through a getter so that a string block is written from the
 * decoded block itself, without an array of its own (no allocation). Its
 * offsets depend on every entry, so it is decoded whole first. */
static int wr_entry_from_strings(const void *ctx, uint32_t i, pcq_string_entry *out)
{
    return pcq_strings_get((const pcq_strings *)ctx, i, out);
}

static int wr_re_strings(pcq_writer *w, const void *src, size_t len, pcq_error *err)
{
    pcq_strings s;
    int rc = pcq_decode_strings(src, len, NULL, &s, err);

    if (rc != PCQ_OK) return rc;
    /* Keep the decoded dwOffset convention (NONE writes like WIN32). */
    wr_strings(w, wr_entry_from_strings, &s, s.num_counters, s.convention);
    return PCQ_OK;
}

static uint32_t wr_id_from_view(const void *ctx, uint32_t i)
{
    const pcq_bytes *ids = (const pcq_bytes *)ctx;
    return ld32(ids->ptr + (size_t)i * COUNTER_ID_SIZE);
}

/* One structure the walk yielded, written again. A block of type 2 or 6
 * begins once the walk has read its last counter id (the list is in the
 * input then), the others at their header; a block ends where the next one
 * (or the buffer) begins. */
typedef struct wr_pending {
    uint32_t type, status; /* of a type 2 or 6 block, until its ids come */
    pcq_bytes ids;
    uint32_t count;
} wr_pending;

static void wr_re_item(pcq_writer *w, const pcq_item *it, wr_pending *p)
{
    const pcq_block *b = &it->u.block;
    switch (it->type) {
    case PCQ_S_COUNTERSET_REG_INFO: pcq_put_counterset_reg(w, &it->u.set); break;
    case PCQ_S_COUNTER_REG_INFO: pcq_put_counter_reg(w, &it->u.counter); break;
    case PCQ_S_STRING: pcq_put_string(w, it->u.text.ptr, it->u.text.len); break;
    case PCQ_S_PROVIDER_GUID:
    case PCQ_S_COUNTERSET_GUID: pcq_put_guid(w, &it->u.guid); break;
    case PCQ_S_INSTANCE:
        pcq_put_instance(w, it->u.instance.instance_id, it->u.instance.name.ptr, it->u.instance.name.len);
        break;
    case PCQ_S_COUNTER_IDENTIFIER: pcq_put_identifier(w, &it->u.identifier); break;
    case PCQ_S_DATA_HEADER: pcq_begin_data(w, &it->u.data); break;
    case PCQ_S_COUNTER_HEADER:
        if (w->state == WR_BLOCK) pcq_end_block(w);
        p->type = b->type;
        p->status = b->status;
        if (b->type == PCQ_PERF_ERROR_RETURN)
            pcq_put_error_block(w, b->status);
        else if (b->type == PCQ_PERF_SINGLE_COUNTER || b->type == PCQ_PERF_MULTI_INSTANCES)
            pcq_begin_block(w, b->type, b->status, NULL, 0);
        break; /* types 2 and 6: once their ids are all read */
    case PCQ_S_MULTI_COUNTERS:
        p->ids = it->u.multi.ids;
        p->count = it->u.multi.count;
        if (p->count == 0) wr_begin_block(w, p->type, p->status, wr_id_from_view, &p->ids, 0);
        break;
    case PCQ_S_COUNTER_ID: /* the walk has read the whole list */
        if (it->index + 1 == p->count)
            wr_begin_block(w, p->type, p->status, wr_id_from_view, &p->ids, p->count);
        break;
    case PCQ_S_DATA_INSTANCE:
        pcq_put_data_instance(w, it->u.data_instance.instance_id, it->u.data_instance.name.ptr,
                              it->u.data_instance.name.len);
        break;
    case PCQ_S_COUNTER_DATA: pcq_put_value(w, it->u.value.data.ptr, it->u.value.data_size); break;
    default: break; /* _PERF_MULTI_INSTANCES: its sizes are patched */
    }
}

/* Walks src as `kind` and writes each structure as it comes; returns the
 * walk's error only (writer errors stay in w->err for pcq_writer_finish). */
static int wr_re_kind(pcq_writer *w, pcq_kind kind, const void *src, size_t len, pcq_error *err)
{
    pcq_walk walk;
    pcq_item it;
    wr_pending pending;
    int rc;

    if (kind == PCQ_KIND_STRINGS) return wr_re_strings(w, src, len, err);
    memset(&pending, 0, sizeof pending);
    pcq_walk_begin(&walk, kind, src, len, NULL);
    walk.mode |= WALK_QUICK;
    while ((rc = pcq_walk_next(&walk, &it)) == 1) wr_re_item(w, &it, &pending);
    if (rc < 0) return pcq_error_set(err, rc, walk.err.offset, walk.err.what);
    if (w->state == WR_BLOCK) pcq_end_block(w);
    if (w->state == WR_DATA) pcq_end_data(w);
    return PCQ_OK;
}

int pcq_reencode(pcq_kind kind, const void *src, size_t len, void *dst, size_t cap, size_t *out_len,
                 pcq_error *err)
{
    pcq_writer w;
    pcq_error local;
    int rc;

    if (err == NULL) err = &local;
    pcq_error_set(err, PCQ_OK, 0, NULL);
    if (out_len == NULL) return pcq_error_set(err, PCQ_ERR_INVALID_ARG, 0, "out_len");
    *out_len = 0;
    pcq_writer_init(&w, dst, cap);
    rc = wr_re_kind(&w, kind, src, len, err);
    if (rc != PCQ_OK) return rc;
    rc = pcq_writer_finish(&w, out_len);
    if (rc != PCQ_OK) {
        /* Not an input fault: offset 0, and `what` names the output side. */
        pcq_error_set(err, rc, 0, rc == PCQ_ERR_BUFFER_TOO_SMALL ? "output buffer" : "pcq_writer");
    }
    return rc;
}

#endif /* PCQ_NO_ENCODER */
