/* SPDX-License-Identifier: MIT */
/*
 * fuzz_strict.c - strict mode against lenient mode on the same bytes.
 *
 * Input: byte 0 selects the kind (low 4 bits); the rest is the buffer. It is
 * decoded (fz_walk, with all of its checks) four times: opts NULL, lenient
 * with a diagnostics callback, strict with one, strict without one. Then:
 *   - NULL and lenient agree exactly (diagnostics never change an outcome);
 *   - whatever strict accepts, lenient accepts with the same fields, and
 *     reported no diagnostic;
 *   - lenient OK without diagnostics means strict OK;
 *   - lenient OK with diagnostics means strict PCQ_ERR_NONCONFORMANT at the
 *     offset and field of the first one, and strict's callback saw that one;
 *   - a malformed error in strict mode is lenient's error too, and lenient
 *     reported no diagnostic before it;
 *   - the callback does not change strict mode's answer.
 */
#include "fuzz_util.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct run {
    pcq_opts o;
    fz_diags ds;
    fz_rec rec;
    pcq_error e;
    int rc;
} run;

static void run_mode(run *r, pcq_kind kind, const uint8_t *buf, size_t len, int mode)
{
    const pcq_opts *opts = fz_make_opts(mode, &r->o, &r->ds, len);
    fz_rec_init(&r->rec);
    r->rc = fz_walk(kind, buf, len, opts, &r->rec, &r->e);
}

static void same(const char *what, const run *a, const run *b, const char *an, const char *bn)
{
    size_t at;
    FZ_CHECK(a->rc == b->rc && a->e.code == b->e.code && a->e.offset == b->e.offset,
             "%s: %s says %s at %zu, %s says %s at %zu", what, an, pcq_status_name(a->rc), a->e.offset, bn,
             pcq_status_name(b->rc), b->e.offset);
    if (a->rc != PCQ_OK) return;
    at = fz_buf_diff(&a->rec.all, &b->rec.all);
    FZ_CHECK(at == (size_t)-1, "%s: %s and %s decode different fields (record byte %zu)", what, an, bn, at);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static run n, l, s, q; /* large (diagnostics): not on the stack */
    const char *k;
    pcq_kind kind;
    const uint8_t *buf;
    size_t len;

    if (size < 1) return 0;
    kind = fz_kind_of(data[0]);
    k = pcq_kind_name(kind);
    buf = data + 1;
    len = size - 1;
    run_mode(&n, kind, buf, len, FZ_OPTS_NULL);
    run_mode(&l, kind, buf, len, FZ_OPTS_LENIENT);
    run_mode(&s, kind, buf, len, FZ_OPTS_STRICT);
    run_mode(&q, kind, buf, len, FZ_OPTS_STRICT_QUIET);

    same(k, &n, &l, "opts NULL", "lenient");
    same(k, &s, &q, "strict", "strict without a callback");

    if (s.rc == PCQ_OK) {
        same(k, &s, &l, "strict", "lenient");
        FZ_CHECK(l.ds.n == 0, "%s: strict accepts, lenient reports %zu diagnostics (first %s at %zu)", k,
                 l.ds.n, pcq_diag_name(l.ds.d[0].code), l.ds.d[0].offset);
    } else if (s.rc == PCQ_ERR_NONCONFORMANT) {
        FZ_CHECK(l.ds.n >= 1,
                 "%s: strict says PCQ_ERR_NONCONFORMANT at %zu, lenient reports "
                 "no diagnostic (%s)",
                 k, s.e.offset, pcq_status_name(l.rc));
        FZ_CHECK(s.e.offset == l.ds.d[0].offset && strcmp(s.e.what, l.ds.d[0].what) == 0,
                 "%s: strict fails at %zu (%s), lenient's first diagnostic is at %zu (%s)", k, s.e.offset,
                 s.e.what, l.ds.d[0].offset, l.ds.d[0].what);
        FZ_CHECK(s.ds.n == 1 && s.ds.d[0].code == l.ds.d[0].code,
                 "%s: strict's callback saw %zu diagnostics, not lenient's first (%s)", k, s.ds.n,
                 pcq_diag_name(l.ds.d[0].code));
    } else {
        same(k, &s, &l, "strict", "lenient");
        FZ_CHECK(l.ds.n == 0, "%s: strict fails with %s, lenient reported %zu diagnostics first", k,
                 pcq_status_name(s.rc), l.ds.n);
    }
    if (l.rc == PCQ_OK)
        FZ_CHECK(s.rc == (l.ds.n ? PCQ_ERR_NONCONFORMANT : PCQ_OK),
                 "%s: lenient OK with %zu diagnostics, strict says %s", k, l.ds.n, pcq_status_name(s.rc));

    fz_rec_free(&n.rec);
    fz_rec_free(&l.rec);
    fz_rec_free(&s.rec);
    fz_rec_free(&q.rec);
    return 0;
}
