/* SPDX-License-Identifier: MIT */
/*
 * fuzz_roundtrip.c - decode, encode, decode, encode.
 *
 * Byte 0 selects. Bit 7 clear: bytes mode, the kind in the low 4 bits, the
 * rest is a buffer of that kind:
 *   - pcq_reencode fails exactly when the decoder does, with its error (also
 *     on the sizing pass, dst == NULL, which is otherwise PCQ_OK);
 *   - for a decodable buffer: its encoding enc1 decodes, to the same fields
 *     as the input (values, ids, names, counts; not sizes and offsets), with
 *     no layout diagnostic (alignment, size multiple of 8, padding, trailing
 *     bytes); and enc1 encodes to itself (enc2 == enc1, byte for byte).
 * Bit 7 set: script mode, the rest drives the writer API (fz_write_script):
 *   - the calls succeed; the sizing pass gives the same length;
 *   - the buffer decodes to exactly the fields that were written, with no
 *     layout diagnostic;
 *   - it is canonical: pcq_reencode gives back the same bytes.
 */
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_layout_diags(const fz_diags *ds, const char *what)
{
    size_t i;
    for (i = 0; i < ds->n && i < FZ_MAX_DIAGS; i++) {
        int c = ds->d[i].code;
        FZ_CHECK(c != PCQ_DIAG_UNALIGNED && c != PCQ_DIAG_SIZE_NOT_MULTIPLE_OF_8 && c != PCQ_DIAG_PADDING &&
                     c != PCQ_DIAG_TRAILING_BYTES,
                 "%s: the encoder's output has %s at %zu (%s)", what, pcq_diag_name(c), ds->d[i].offset,
                 ds->d[i].what);
    }
}

static uint8_t *encode(pcq_kind kind, const uint8_t *src, size_t len, size_t *out_len)
{
    pcq_error e;
    size_t need = 0, got = 0;
    uint8_t *dst;
    int rc = pcq_reencode(kind, src, len, NULL, 0, &need, &e);
    FZ_CHECK(rc == PCQ_OK, "%s: sizing pass of a decodable buffer: %s", pcq_kind_name(kind),
             pcq_status_name(rc));
    dst = (uint8_t *)malloc(need ? need : 1);
    FZ_CHECK(dst != NULL, "out of memory");
    rc = pcq_reencode(kind, src, len, dst, need, &got, &e);
    FZ_CHECK(rc == PCQ_OK && got == need,
             "%s: encoding into the %zu bytes the sizing pass asked "
             "for: %s, %zu bytes",
             pcq_kind_name(kind), need, pcq_status_name(rc), got);
    *out_len = got;
    return dst;
}

static void bytes_mode(pcq_kind kind, const uint8_t *buf, size_t len)
{
    const char *k = pcq_kind_name(kind);
    pcq_error e0, e, e1;
    pcq_opts o;
    fz_diags ds;
    fz_rec r0, r1;
    uint8_t *enc1, *enc2, one;
    size_t len1, len2, need = 12345, at;
    int rc0, rc;

    fz_rec_init(&r0);
    fz_rec_init(&r1);
    rc0 = fz_walk(kind, buf, len, NULL, &r0, &e0);
    /* pcq_reencode reports the decoder's error, on a sizing pass and a real one. */
    rc = pcq_reencode(kind, buf, len, NULL, 0, &need, &e);
    FZ_CHECK(rc == rc0, "%s: pcq_reencode sizing says %s, the decoder %s", k, pcq_status_name(rc),
             pcq_status_name(rc0));
    if (rc0 != PCQ_OK) {
        FZ_CHECK(e.code == e0.code && e.offset == e0.offset,
                 "%s: pcq_reencode fails with %s at %zu, the decoder at %zu", k, pcq_status_name(e.code),
                 e.offset, e0.offset);
        FZ_CHECK(need == 0, "%s: failed pcq_reencode reports %zu bytes", k, need);
        rc = pcq_reencode(kind, buf, len, &one, 1, &need, &e);
        FZ_CHECK(rc == rc0 && e.offset == e0.offset, "%s: pcq_reencode with a buffer: %s at %zu", k,
                 pcq_status_name(rc), e.offset);
        fz_rec_free(&r0);
        return;
    }
    enc1 = encode(kind, buf, len, &len1);
    FZ_CHECK(len1 == need, "%s: sizing said %zu, encoding took %zu", k, need, len1);
    rc = fz_walk(kind, enc1, len1, fz_make_opts(FZ_OPTS_LENIENT, &o, &ds, len1), &r1, &e1);
    FZ_CHECK(rc == PCQ_OK, "%s: the encoding of a decodable buffer does not decode: %s at %zu (%s)", k,
             pcq_status_name(rc), e1.offset, e1.what);
    no_layout_diags(&ds, k);
    at = fz_buf_diff(&r0.sem, &r1.sem);
    FZ_CHECK(at == (size_t)-1,
             "%s: the input and its encoding decode to different fields "
             "(record byte %zu)",
             k, at);
    enc2 = encode(kind, enc1, len1, &len2);
    FZ_CHECK(len2 == len1 && memcmp(enc1, enc2, len1) == 0,
             "%s: encoding is not a fixed point (%zu then %zu bytes)", k, len1, len2);
    free(enc1);
    free(enc2);
    fz_rec_free(&r0);
    fz_rec_free(&r1);
}

static void script_mode(const uint8_t *script, size_t n)
{
    fz_src s;
    pcq_kind kind;
    pcq_opts o;
    fz_diags ds;
    pcq_error e;
    fz_rec rw, rd;
    uint8_t *buf, *enc;
    size_t need, len, elen, at;
    const char *k;
    int rc;

    s.p = script;
    s.len = n;
    s.pos = 0;
    kind = fz_write_script(&s, NULL, 0, &rc, &need, NULL);
    k = pcq_kind_name(kind);
    FZ_CHECK(rc == PCQ_OK, "%s: a valid writer sequence fails its sizing pass: %s", k, pcq_status_name(rc));
    buf = (uint8_t *)malloc(need ? need : 1);
    FZ_CHECK(buf != NULL, "out of memory");
    fz_rec_init(&rw);
    fz_rec_init(&rd);
    s.pos = 0;
    fz_write_script(&s, buf, need, &rc, &len, &rw);
    FZ_CHECK(rc == PCQ_OK && len == need, "%s: writing into %zu bytes: %s, %zu bytes", k, need,
             pcq_status_name(rc), len);
    rc = fz_walk(kind, buf, len, fz_make_opts(FZ_OPTS_LENIENT, &o, &ds, len), &rd, &e);
    FZ_CHECK(rc == PCQ_OK, "%s: the writer's output does not decode: %s at %zu (%s)", k, pcq_status_name(rc),
             e.offset, e.what);
    no_layout_diags(&ds, k);
    at = fz_buf_diff(&rw.sem, &rd.sem);
    FZ_CHECK(at == (size_t)-1, "%s: decoded fields differ from the written ones (record byte %zu)", k, at);
    enc = encode(kind, buf, len, &elen);
    FZ_CHECK(elen == len && memcmp(enc, buf, len) == 0,
             "%s: the writer's output is not canonical: pcq_reencode gives %zu bytes for %zu", k, elen, len);
    free(enc);
    free(buf);
    fz_rec_free(&rw);
    fz_rec_free(&rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    if (data[0] & 0x80)
        script_mode(data + 1, size - 1);
    else
        bytes_mode(fz_kind_of(data[0]), data + 1, size - 1);
    return 0;
}
