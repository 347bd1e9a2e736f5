/* SPDX-License-Identifier: MIT */
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
 * The small helpers (kinds, names of constants, status texts) get numbers
 * from the input too: total functions, names exactly for known values.
 */
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Caller errors are PCQ_ERR_INVALID_ARG (offset 0), never a fault: a NULL
 * buffer with a length, NULL handles and outputs. A NULL buffer of length 0
 * is an empty input. */
static void check_caller_errors(void)
{
    pcq_error e;
    pcq_counterset_info csi;
    pcq_counter_reg c;
    pcq_strings st;
    pcq_string_entry se;
    pcq_guid_array ga;
    pcq_guid g;
    pcq_iter it;
    pcq_instance in;
    pcq_identifier id;
    char out[4];
    unsigned k;
    for (k = 1; k < PCQ_KIND_END_; k++) {
        int rc;
        memset(&e, 0x5A, sizeof e);
        rc = pcq_validate((pcq_kind)k, NULL, 1, NULL, &e);
        FZ_CHECK(rc == PCQ_ERR_INVALID_ARG && e.code == rc && e.offset == 0,
                 "%s: a NULL buffer of 1 byte gives %s", pcq_kind_name((pcq_kind)k), pcq_status_name(rc));
        rc = pcq_validate((pcq_kind)k, NULL, 0, NULL, &e);
        FZ_CHECK(rc == PCQ_OK || (rc < 0 && rc > PCQ_ERR_BUFFER_TOO_SMALL && e.offset == 0),
                 "%s: an empty NULL buffer gives %s", pcq_kind_name((pcq_kind)k), pcq_status_name(rc));
    }
    FZ_CHECK(pcq_decode_counterset_info(NULL, 1, NULL, &csi, NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_decode_counter_info(NULL, 1, NULL, &c, NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_decode_strings(NULL, 1, NULL, &st, NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_decode_guids(NULL, 16, NULL, &ga, NULL) == PCQ_ERR_INVALID_ARG,
             "a decoder accepts a NULL buffer with a length");
    memset(&csi, 0, sizeof csi);
    memset(&st, 0, sizeof st);
    memset(&ga, 0, sizeof ga);
    FZ_CHECK(pcq_counterset_counter(NULL, 0, &c) == PCQ_ERR_INVALID_ARG &&
                 pcq_counterset_counter(&csi, 0, NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_strings_get(NULL, 0, &se) == PCQ_ERR_INVALID_ARG &&
                 pcq_strings_get(&st, 0, NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_guids_get(NULL, 0, &g) == PCQ_ERR_INVALID_ARG &&
                 pcq_guids_get(&ga, 0, NULL) == PCQ_ERR_INVALID_ARG && pcq_block_counter_id(NULL, 0) == 0,
             "an accessor accepts NULL");
    pcq_instances_begin(NULL, 8, &it);
    FZ_CHECK(pcq_instances_next(&it, &in) == 0, "instances of a NULL buffer");
    pcq_identifiers_begin(NULL, 40, &it);
    FZ_CHECK(pcq_identifiers_next(&it, &id) == 0, "identifiers of a NULL buffer");
    FZ_CHECK(pcq_decode_instances((const uint8_t *)"\x0c\0\0\0\0\0\0\0a\0\0\0", 12, NULL, NULL, NULL) ==
                 PCQ_OK,
             "pcq_decode_instances without a count");
    memcpy(out, "xyz", 4);
    FZ_CHECK(pcq_utf16_to_utf8(NULL, 4, out, sizeof out, NULL) == 0 && out[0] == '\0',
             "pcq_utf16_to_utf8 of NULL");
    FZ_CHECK(pcq_utf16_to_utf8((const uint8_t *)"a\0b\0", 4, NULL, 8, NULL) == 2 &&
                 pcq_utf16_to_utf8((const uint8_t *)"a\0b\0", 4, out, 0, NULL) == 2,
             "pcq_utf16_to_utf8 sizing");
}

/* Every status of the table: its name, its text, its family. */
static void check_status_table(void)
{
    static const struct {
        int value;
        const char *name;
    } t[] = {
#define PCQ_X_(name, value, text) {value, #name},
        PCQ_STATUS_TABLE(PCQ_X_)
#undef PCQ_X_
    };
    size_t i;
    for (i = 0; i < sizeof t / sizeof t[0]; i++) {
        int v = t[i].value;
        pcq_family want = v == PCQ_OK                      ? PCQ_FAMILY_OK
                          : v == PCQ_ERR_TRUNCATED         ? PCQ_FAMILY_TRUNCATED
                          : v == PCQ_ERR_EXCEEDS_CONTAINER ? PCQ_FAMILY_CONTAINER
                          : v == PCQ_ERR_LIMIT             ? PCQ_FAMILY_LIMIT
                          : v == PCQ_ERR_NONCONFORMANT     ? PCQ_FAMILY_NONCONFORMANT
                          : v <= PCQ_ERR_BUFFER_TOO_SMALL  ? PCQ_FAMILY_CALLER
                                                           : PCQ_FAMILY_MALFORMED;
        FZ_CHECK(strcmp(pcq_status_name(v), t[i].name) == 0, "pcq_status_name(%d)", v);
        FZ_CHECK(strcmp(pcq_strerror(v), "unknown status") != 0, "pcq_strerror(%d)", v);
        FZ_CHECK(pcq_status_family(v) == want, "pcq_status_family(%s) = %d", t[i].name,
                 (int)pcq_status_family(v));
    }
}

#ifndef PCQ_NO_ENCODER
/* Every writer call on a NULL writer: PCQ_ERR_INVALID_ARG. */
static void check_null_writer(void)
{
    static const uint8_t name[2] = {'a', 0};
    static const uint32_t ids[1] = {1};
    pcq_counterset_reg set;
    pcq_counter_reg c;
    pcq_guid g;
    pcq_identifier id;
    pcq_string_entry e;
    pcq_data h;
    size_t len = 7;
    memset(&set, 0, sizeof set);
    memset(&c, 0, sizeof c);
    memset(&g, 0, sizeof g);
    memset(&id, 0, sizeof id);
    memset(&e, 0, sizeof e);
    memset(&h, 0, sizeof h);
    pcq_writer_init(NULL, NULL, 0);
    FZ_CHECK(pcq_writer_finish(NULL, &len) == PCQ_ERR_INVALID_ARG && len == 0 &&
                 pcq_put_counterset_reg(NULL, &set) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_counter_reg(NULL, &c) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_string(NULL, name, 2) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_guid(NULL, &g) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_instance(NULL, 0, name, 2) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_identifier(NULL, &id) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_strings(NULL, &e, 1, PCQ_STROFF_WIN32) == PCQ_ERR_INVALID_ARG &&
                 pcq_begin_data(NULL, &h) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_error_block(NULL, 0) == PCQ_ERR_INVALID_ARG &&
                 pcq_begin_block(NULL, PCQ_PERF_MULTI_COUNTERS, 0, ids, 1) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_data_instance(NULL, 0, name, 2) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_value(NULL, name, 2) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_value_u32(NULL, 0) == PCQ_ERR_INVALID_ARG &&
                 pcq_put_value_u64(NULL, 0) == PCQ_ERR_INVALID_ARG &&
                 pcq_end_block(NULL) == PCQ_ERR_INVALID_ARG && pcq_end_data(NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_reencode(PCQ_KIND_GUID, name, 2, NULL, 0, NULL, NULL) == PCQ_ERR_INVALID_ARG,
             "a writer call accepts a NULL writer (or pcq_reencode a NULL out_len)");
}
#endif

/* The small helpers, on numbers taken from the input: kinds, names, codes. */
static void check_helpers(const uint8_t *data, size_t size)
{
    uint32_t a = 0, b = 0;
    unsigned k;
    int code;
    const char *n;
    pcq_kind kind;
    size_t i;
    for (i = 0; i < 4 && i + 1 < size; i++) a |= (uint32_t)data[i + 1] << (8 * i);
    for (i = 0; i < 4 && i + 5 < size; i++) b |= (uint32_t)data[i + 5] << (8 * i);
    FZ_CHECK(pcq_version() == PCQ_VERSION_NUMBER && strcmp(pcq_version_string(), PCQ_VERSION_STRING) == 0,
             "version");
    /* Which buffer travels where: a kind, NONE for what carries none; every
     * opnum and RequestCode of the spec, both directions, then any numbers. */
    for (i = 0; i < 9 * 12 * 2; i++) {
        uint32_t op = (uint32_t)(i / 24), rq = (uint32_t)(i / 2 % 12);
        kind = pcq_kind_for(op, rq, (int)(i & 1));
        FZ_CHECK((unsigned)kind < PCQ_KIND_END_, "pcq_kind_for(%u, %u): %d", op, rq, (int)kind);
        if (!(i & 1) && op != 7)
            FZ_CHECK(kind == PCQ_KIND_NONE, "a request of opnum %u carries %s", op, pcq_kind_name(kind));
    }
    kind = pcq_kind_for(a, b, (int)(data[0] & 1));
    FZ_CHECK((unsigned)kind < PCQ_KIND_END_, "pcq_kind_for(%u, %u): %d", a, b, (int)kind);
    for (k = 0; k <= PCQ_KIND_END_; k++) {
        n = pcq_kind_name((pcq_kind)k);
        FZ_CHECK(n != NULL, "kind %u unnamed", k);
        FZ_CHECK(pcq_kind_from_name(n) == (k < PCQ_KIND_END_ ? (pcq_kind)k : PCQ_KIND_NONE),
                 "kind %u: %s does not read back", k, n);
    }
    FZ_CHECK(pcq_kind_from_name(NULL) == PCQ_KIND_NONE && pcq_kind_from_name("Data") == PCQ_KIND_NONE,
             "pcq_kind_from_name accepts NULL or \"Data\"");
    n = pcq_opnum_name(a);
    FZ_CHECK((n != NULL) == (a <= 7) && (n == NULL || strncmp(n, "PerflibV2", 9) == 0), "opnum %u named %s",
             a, n ? n : "NULL");
    n = pcq_request_code_name(b);
    FZ_CHECK((n != NULL) == (b >= 1 && b <= 10), "RequestCode %u named %s", b, n ? n : "NULL");
    n = pcq_win32_status_name(a);
    FZ_CHECK(n == NULL || strncmp(n, "ERROR_", 6) == 0, "status 0x%x named %s", a, n);
    /* Every int has a status text and name, a diagnostic name and text. */
    code = (int)a;
    FZ_CHECK(pcq_strerror(code) && pcq_status_name(code) && pcq_diag_name(code) && pcq_diag_text(code),
             "a name function returned NULL for %d", code);
    FZ_CHECK(pcq_validate(PCQ_KIND_NONE, data, size, NULL, NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_validate(PCQ_KIND_END_, data, size, NULL, NULL) == PCQ_ERR_INVALID_ARG,
             "pcq_validate accepts a kind that is none");
    check_caller_errors();
    check_status_table();
#ifndef PCQ_NO_ENCODER
    check_null_writer();
#endif
}

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
    check_helpers(data, size);
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
    FZ_CHECK(rc1 == rc2 && e1.offset == e2.offset, "%s: %s at %zu, and %s at %zu one byte further on",
             pcq_kind_name(kind), pcq_status_name(rc1), e1.offset, pcq_status_name(rc2), e2.offset);
    at = fz_buf_diff(&r1.all, &r2.all);
    FZ_CHECK(at == (size_t)-1, "%s: decoded fields differ (record byte %zu) at another address",
             pcq_kind_name(kind), at);
    free(shifted);
    fz_rec_free(&r1);
    fz_rec_free(&r2);
    return 0;
}
