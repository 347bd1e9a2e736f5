/*
 * fuzz_decode.c - every decoder entry point on hostile bytes.
 *
 * Input: byte 0 selects the kind (low 4 bits) and the options mode (bits 4-5:
 * NULL opts, lenient with diagnostics, strict, strict without a callback);
 * the rest is the buffer. fz_walk() decodes it and walks every view it gets,
 * checking that views lie inside the input, counts match what was iterated,
 * fields equal their bytes, iteration after a successful decode never fails,
 * error and diagnostic offsets lie inside the input, and pcq_validate agrees.
 * The buffer is also decoded at an odd address (alignment must not matter).
 */
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcq_opts o;
    fz_diags ds;
    const pcq_opts *opts;
    pcq_error e1, e2;
    fz_rec r1, r2;
    uint8_t *shifted;
    pcq_kind kind;
    size_t len, at;
    int rc1, rc2;

    if (size < 1) return 0;
    kind = fz_kind_of(data[0]);
    len = size - 1;
    opts = fz_make_opts(fz_opts_mode(data[0]), &o, &ds, len);
    fz_rec_init(&r1);
    fz_rec_init(&r2);
    rc1 = fz_walk(kind, data + 1, len, opts, &r1, &e1);

    /* The same bytes one byte further on: the same result, field for field. */
    shifted = (uint8_t *)malloc(len + 1);
    if (!shifted) abort();
    memcpy(shifted + 1, data + 1, len);
    opts = fz_make_opts(fz_opts_mode(data[0]), &o, &ds, len);
    rc2 = fz_walk(kind, shifted + 1, len, opts, &r2, &e2);
    FZ_CHECK(rc1 == rc2 && e1.offset == e2.offset,
             "%s: %s at %zu, and %s at %zu one byte further on", pcq_kind_name(kind),
             pcq_status_name(rc1), e1.offset, pcq_status_name(rc2), e2.offset);
    at = fz_buf_diff(&r1.all, &r2.all);
    FZ_CHECK(at == (size_t)-1, "%s: decoded fields differ (record byte %zu) at another address",
             pcq_kind_name(kind), at);
    free(shifted);
    fz_rec_free(&r1);
    fz_rec_free(&r2);
    return 0;
}
