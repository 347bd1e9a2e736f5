/* SPDX-License-Identifier: MIT */
/*
 * fuzz_util.h - what the fuzz targets share: property checks that abort with
 * a message, a decoder walk that checks every view it gets, a record of the
 * decoded fields for comparing two decodes, and a writer driven by fuzz bytes.
 *
 * Each target is one file fuzz/fuzz_<name>.c defining LLVMFuzzerTestOneInput;
 * it links with the support files fuzz/fz_*.c (fz_internal.h says which does
 * what) and the library, and either with libFuzzer
 * (clang -fsanitize=fuzzer) or with fuzz/replay_main.c (any C compiler), which
 * runs the function on files and directories given on the command line.
 *
 * Input layout shared by the decoder targets: byte 0 selects, the rest is the
 * buffer. fz_kind_of(sel) = 1 + (sel & 0x0F) % 9 (a pcq_kind); bits 4-5 are the
 * options mode of fz_opts_mode(). fuzz/seed.sh writes corpora in this layout.
 */
#ifndef PCQ_FUZZ_UTIL_H
#define PCQ_FUZZ_UTIL_H

#include "pcq_codec.h"

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define FZ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define FZ_NORETURN     __attribute__((noreturn))
#else
#define FZ_PRINTF(a, b)
#define FZ_NORETURN
#endif

/* A broken property: prints "PROPERTY FAILED file:line: message" on stderr and
 * aborts, so libFuzzer (or the replay main) reports the input. */
FZ_NORETURN void fz_fail(const char *file, int line, const char *fmt, ...) FZ_PRINTF(3, 4);
#define FZ_CHECK(cond, ...)                                    \
    do {                                                       \
        if (!(cond)) fz_fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

/* ---- selector ------------------------------------------------------------ */
#define FZ_NKINDS 9
pcq_kind fz_kind_of(uint8_t sel);

/* Options modes (selector bits 4-5). */
enum {
    FZ_OPTS_NULL = 0,        /* opts == NULL                               */
    FZ_OPTS_LENIENT = 1,     /* lenient, diagnostics collected             */
    FZ_OPTS_STRICT = 2,      /* PCQ_STRICT, diagnostics collected          */
    FZ_OPTS_STRICT_QUIET = 3 /* PCQ_STRICT, no callback                    */
};
int fz_opts_mode(uint8_t sel);

/* ---- collected diagnostics --------------------------------------------- */
#define FZ_MAX_DIAGS 64
typedef struct fz_diags {
    size_t len;     /* of the input: every diagnostic must lie in it */
    size_t n;       /* findings seen (may exceed FZ_MAX_DIAGS)       */
    size_t skipped; /* PCQ_DIAG_CHECK_SKIPPED: a check not made, not */
                    /* a finding (strict mode goes on after it)      */
    pcq_diag d[FZ_MAX_DIAGS];
} fz_diags;

/* Sets up *o for `mode` with a callback into *ds (ds->len = len). Returns o,
 * or NULL for FZ_OPTS_NULL. */
const pcq_opts *fz_make_opts(int mode, pcq_opts *o, fz_diags *ds, size_t len);

/* ---- a record of decoded fields ----------------------------------------- */
/* Two streams: `sem` holds what a canonical re-encoding keeps (values, ids,
 * names, counts); `all` also holds the layout (offsets, sizes, padding-bound
 * fields). Two decodes agree field by field when their streams are equal. */
typedef struct fz_buf {
    uint8_t *p;
    size_t len, cap;
} fz_buf;

typedef struct fz_rec {
    fz_buf sem, all;
} fz_rec;

void fz_rec_init(fz_rec *r);
void fz_rec_free(fz_rec *r);
/* The first byte offset where a and b differ in the chosen stream, or
 * (size_t)-1 when they are equal. */
size_t fz_buf_diff(const fz_buf *a, const fz_buf *b);

/* ---- the checked walk ----------------------------------------------------- */
/* Decodes buf as `kind` with opts (may be NULL) and checks, on success:
 *   every view lies inside [buf, buf + len); every count equals the items
 *   iterated; items follow each other as their sizes say; iteration after a
 *   successful decode never fails and ends cleanly (twice); decoded fields
 *   equal the bytes they come from (re-read here independently);
 * and on failure: a known malformed status (PCQ_ERR_NONCONFORMANT only when
 *   strict), err filled the same way, its offset inside the input.
 * Always: pcq_validate gives the same status and error as the decoder, every
 *   reported diagnostic lies inside the input, and for the arrays without a
 *   count, a plain iteration without decoding meets the same items and the
 *   same error as a lenient decode.
 * Fields go into *rec when rec is not NULL. Returns the status; *err gets the
 * error (code PCQ_OK on success). */
int fz_walk(pcq_kind kind, const uint8_t *buf, size_t len, const pcq_opts *opts, fz_rec *rec, pcq_error *err);

/* A digest of every fz_walk result since it was last zeroed: kind, status,
 * error offset and field, and the decoded fields. The replay main prints it
 * per input (PCQ_REPLAY_DIGEST), so a 32-bit or big-endian build can be
 * compared with the native one input by input. */
extern uint64_t fz_digest_value;

/* Checks the text helpers on one UTF-16LE view (names, strings). */
void fz_check_utf16(const uint8_t *p, size_t n);

/* ---- bytes ----------------------------------------------------------------- */
uint16_t fz_le16(const uint8_t *p);
uint32_t fz_le32(const uint8_t *p);
uint64_t fz_le64(const uint8_t *p);

/* A reader over fuzz bytes: takes what is there, zeros past the end. */
typedef struct fz_src {
    const uint8_t *p;
    size_t len, pos;
} fz_src;
uint8_t fz_u8(fz_src *s);
uint32_t fz_u32(fz_src *s);
uint64_t fz_u64(fz_src *s);
/* A view of up to n bytes of the source (fewer at its end). */
pcq_bytes fz_take(fz_src *s, size_t n);

#ifndef PCQ_NO_ENCODER
/* ---- writer driven by fuzz bytes ---------------------------------------- */
/* Builds one buffer with the writer API from the script in *s, into
 * (dst, cap). The script picks the kind and every field; names are made of
 * code units with no U+0000. Returns the kind built; *rc gets the status of
 * pcq_writer_finish and *out_len its length. The same script gives the same
 * calls, whatever dst and cap are. If rec is not NULL, it receives the `sem`
 * stream fz_walk would record for the buffer these calls describe. */
pcq_kind fz_write_script(fz_src *s, void *dst, size_t cap, int *rc, size_t *out_len, fz_rec *rec);
#endif

/* The step-by-step walk's properties (fz_props.c); each aborts on a failure.
 *   decode_is_walk: pcq_validate and pcq_walk_next agree (outcome, error,
 *                   diagnostics, which come in wire order), lenient or strict;
 *   iterators:      after a successful decode, the walk's items are the typed
 *                   iterators' (nothing to check when the buffer is malformed);
 *   prefixes:       every prefix (each step-th) of a buffer that decodes yields
 *                   the whole buffer's items that lie inside it, then an error
 *                   inside it (or ends cleanly if it decodes). */
void fz_prop_decode_is_walk(pcq_kind kind, const uint8_t *buf, size_t len, int strict);
void fz_prop_iterators(pcq_kind kind, const uint8_t *buf, size_t len);
void fz_prop_prefixes(pcq_kind kind, const uint8_t *buf, size_t len, size_t step);
/* The typed iterators on bytes never validated (a pcq_data made by hand):
 * every view in the input, every loop ends, every error offset in the input. */
void fz_prop_iterators_unvalidated(pcq_kind kind, const uint8_t *buf, size_t len);
/* canonical: when pcq_decode_data finds a data buffer canonical (its fast
 * path), the walk finds no error and no diagnostic, lenient or strict.
 * bulk: the walk with PCQ_BULK tells what the walk tells (items, every value
 * through pcq_item_values, error, cut item, diagnostics). */
void fz_prop_canonical(const uint8_t *buf, size_t len);
/* batch: the batch readers read what the iterators read (fast and checking). */
void fz_prop_batch(const uint8_t *buf, size_t len);
void fz_prop_bulk(pcq_kind kind, const uint8_t *buf, size_t len, int strict);

#endif /* PCQ_FUZZ_UTIL_H */
