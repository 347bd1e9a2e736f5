/* SPDX-License-Identifier: MIT */
/*
 * fz_checks.c - views inside the input, names of the spec's constants, and
 * UTF-16 to UTF-8 (fz_internal.h).
 */
#include "fz_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* views                                                                     */
/* ------------------------------------------------------------------------ */
/* [p, p + n) lies inside [lo, hi) of the input. */
void fz_check_view_in(const fz_ctx *w, const char *what, const uint8_t *p, size_t n, size_t lo, size_t hi)
{
    size_t at;
    FZ_CHECK(p != NULL || n == 0, "%s: NULL view of %zu bytes", what, n);
    if (p == NULL) return;
    at = (size_t)((uintptr_t)p - (uintptr_t)w->buf);
    FZ_CHECK((uintptr_t)p >= (uintptr_t)w->buf && at <= w->len && n <= w->len - at,
             "%s: view (+%zu, %zu bytes) outside the input of %zu bytes", what, at, n, w->len);
    FZ_CHECK(at >= lo && at <= hi && n <= hi - at, "%s: view [%zu, %zu) outside its container [%zu, %zu)",
             what, at, at + n, lo, hi);
}

/* A UTF-16LE name or string at [at, at + n): even, no NUL inside, a NUL right
 * after it, all inside [lo, hi). */
void fz_check_name(const fz_ctx *w, const char *what, const pcq_bytes *v, size_t at, size_t lo, size_t hi)
{
    size_t i;
    FZ_CHECK(v->ptr == w->buf + at, "%s: starts at +%zu, expected +%zu", what, (size_t)(v->ptr - w->buf), at);
    fz_check_view_in(w, what, v->ptr, v->len, lo, hi);
    FZ_CHECK(v->len % 2 == 0, "%s: odd length %zu", what, v->len);
    FZ_CHECK(hi - at - v->len >= 2, "%s: no room for its NUL inside [%zu, %zu)", what, lo, hi);
    FZ_CHECK(w->buf[at + v->len] == 0 && w->buf[at + v->len + 1] == 0,
             "%s: no NUL after its %zu bytes at +%zu", what, v->len, at);
    for (i = 0; i < v->len; i += 2)
        FZ_CHECK(w->buf[at + i] != 0 || w->buf[at + i + 1] != 0, "%s: a NUL at +%zu inside the text", what,
                 at + i);
    fz_check_utf16(v->ptr, v->len);
}

void fz_read_guid(const uint8_t *p, pcq_guid *g)
{
    g->data1 = fz_le32(p);
    g->data2 = fz_le16(p + 4);
    g->data3 = fz_le16(p + 6);
    memcpy(g->data4, p + 8, 8);
}

int fz_guid_eq(const pcq_guid *a, const pcq_guid *b)
{
    return a->data1 == b->data1 && a->data2 == b->data2 && a->data3 == b->data3 &&
           memcmp(a->data4, b->data4, 8) == 0;
}

/* The GUID text helpers on one GUID: to text and back, with braces, upper case. */
void fz_check_guid_text(const pcq_guid *g)
{
    char t[PCQ_GUID_TEXT_SIZE], b[PCQ_GUID_TEXT_SIZE + 2];
    pcq_guid back;
    size_t i;
    memset(t, 'x', sizeof t);
    pcq_guid_to_text(g, t);
    FZ_CHECK(t[36] == '\0' && strlen(t) == 36, "pcq_guid_to_text: not 36 characters");
    FZ_CHECK(pcq_guid_from_text(t, 36, &back) == PCQ_OK && fz_guid_eq(g, &back), "GUID %s does not read back",
             t);
    b[0] = '{';
    for (i = 0; i < 36; i++) b[i + 1] = (char)(t[i] >= 'a' && t[i] <= 'f' ? t[i] - 32 : t[i]);
    b[37] = '}';
    b[38] = '\0';
    FZ_CHECK(pcq_guid_from_text(b, 38, &back) == PCQ_OK && fz_guid_eq(g, &back), "GUID %s does not read back",
             b);
    FZ_CHECK(pcq_guid_from_text(t, 35, &back) == PCQ_ERR_INVALID_ARG,
             "pcq_guid_from_text accepts 35 characters");
    /* One character wrong, where a digit or a dash belongs: refused. */
    for (i = 0; i < 36; i += 4) {
        char bad[PCQ_GUID_TEXT_SIZE];
        memcpy(bad, t, sizeof bad);
        bad[i] = (char)(i == 8 || i == 13 || i == 18 || i == 23 ? '0' : "g-G/"[i / 4 % 4]);
        FZ_CHECK(pcq_guid_from_text(bad, 36, &back) == PCQ_ERR_INVALID_ARG, "pcq_guid_from_text accepts %s",
                 bad);
    }
    b[37] = ')';
    FZ_CHECK(pcq_guid_from_text(b, 38, &back) == PCQ_ERR_INVALID_ARG, "pcq_guid_from_text accepts %s", b);
    b[0] = '(';
    b[37] = '}';
    FZ_CHECK(pcq_guid_from_text(b, 38, &back) == PCQ_ERR_INVALID_ARG, "pcq_guid_from_text accepts %s", b);
    FZ_CHECK(pcq_guid_from_text(NULL, 36, &back) == PCQ_ERR_INVALID_ARG &&
                 pcq_guid_from_text(t, 36, NULL) == PCQ_ERR_INVALID_ARG,
             "pcq_guid_from_text accepts NULL");
}

/* ---- names of the spec's constants ---- */
int fz_starts(const char *s, const char *prefix)
{
    return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0 && strlen(s) > strlen(prefix);
}

/* A counter type: named exactly when known (the spec's 34, or one of the
 * winperf.h types the evaluator also knows); the evaluator knows named ones. */
void fz_check_type_name(uint32_t type)
{
    const char *n = pcq_counter_type_name(type);
    FZ_CHECK(n == NULL || fz_starts(n, "PERF_"), "type 0x%08x named %s", type, n);
    if (pcq_counter_type_is_known(type)) FZ_CHECK(n != NULL, "spec type 0x%08x has no name", type);
#ifndef PCQ_NO_CALC
    if (pcq_calc_type_info(type) != NULL)
        FZ_CHECK(n != NULL, "the evaluator knows 0x%08x, which has no name", type);
#endif
}

void fz_check_creg_names(const pcq_counter_reg *c)
{
    const char *n;
    unsigned bit;
    fz_check_type_name(c->type);
    n = pcq_detail_level_name(c->detail_level);
    FZ_CHECK((n != NULL) == (c->detail_level == 100 || c->detail_level == 200) &&
                 (n == NULL || fz_starts(n, "PERF_DETAIL_")),
             "DetailLevel %u named %s", c->detail_level, n ? n : "NULL");
    n = pcq_aggregate_name(c->aggregate_func);
    FZ_CHECK((n != NULL) == (c->aggregate_func <= 4) && (n == NULL || fz_starts(n, "PERF_AGGREGATE_")),
             "AggregateFunc %u named %s", c->aggregate_func, n ? n : "NULL");
    for (bit = 0; bit < 6; bit++) {
        n = pcq_attrib_bit_name(bit);
        FZ_CHECK((n != NULL) == (bit < 5) && (n == NULL || fz_starts(n, "PERF_ATTRIB_")),
                 "Attrib bit %u named %s", bit, n ? n : "NULL");
    }
}

void fz_check_instance_type_name(uint32_t t)
{
    const char *n = pcq_instance_type_name(t);
    int known = t == 0 || t == 2 || t == 4 || t == 6 || t == 0xC || t == 0x16;
    FZ_CHECK((n != NULL) == known && (n == NULL || fz_starts(n, "PERF_COUNTERSET_")),
             "InstanceType 0x%x named %s", t, n ? n : "NULL");
}

void fz_check_status_name(uint32_t st)
{
    const char *n = pcq_win32_status_name(st);
    FZ_CHECK(n == NULL || fz_starts(n, "ERROR_"), "status 0x%x named %s", st, n);
    if (st == 0) FZ_CHECK(n != NULL, "ERROR_SUCCESS unnamed");
}

void fz_check_creg_bytes(const pcq_counter_reg *c, const uint8_t *p, size_t at)
{
    FZ_CHECK(c->counter_id == fz_le32(p) && c->type == fz_le32(p + 4) && c->attrib == fz_le64(p + 8) &&
                 c->detail_level == fz_le32(p + 16) && (uint32_t)c->default_scale == fz_le32(p + 20) &&
                 c->base_counter_id == fz_le32(p + 24) && c->perf_time_id == fz_le32(p + 28) &&
                 c->perf_freq_id == fz_le32(p + 32) && c->multi_id == fz_le32(p + 36) &&
                 c->aggregate_func == fz_le32(p + 40) && c->reserved == fz_le32(p + 44),
             "_PERF_COUNTER_REG_INFO at +%zu: a field differs from its bytes", at);
}

/* ------------------------------------------------------------------------ */
/* UTF-16 to UTF-8                                                           */
/* ------------------------------------------------------------------------ */
/* Well-formed UTF-8 of n bytes (no overlong forms, no surrogates, <= U+10FFFF). */
static int utf8_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k, len;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            cp = c & 0x07;
        } else
            return 0;
        if (n - i < len) return 0;
        for (k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

void fz_check_utf16(const uint8_t *p, size_t n)
{
    size_t rep = (size_t)-1, rep2, need, got, cap, units = n / 2;
    char small[8], *full;
    need = pcq_utf16_to_utf8(p, n, NULL, 0, &rep);
    FZ_CHECK(need <= units * 3, "pcq_utf16_to_utf8: %zu bytes for %zu code units", need, units);
    FZ_CHECK(rep <= units, "pcq_utf16_to_utf8: %zu replacements for %zu code units", rep, units);
    full = (char *)malloc(need + 1);
    FZ_CHECK(full != NULL, "out of memory");
    memset(full, 'x', need + 1);
    got = pcq_utf16_to_utf8(p, n, full, need + 1, &rep2);
    FZ_CHECK(got == need && rep2 == rep, "pcq_utf16_to_utf8: sizing says %zu/%zu, writing %zu/%zu", need, rep,
             got, rep2);
    FZ_CHECK(full[need] == '\0', "pcq_utf16_to_utf8: no NUL at %zu", need);
    FZ_CHECK(utf8_ok((const unsigned char *)full, need), "pcq_utf16_to_utf8: ill-formed UTF-8");
    /* Too small: a NUL-terminated prefix of whole characters, nothing past cap. */
    for (cap = 1; cap <= sizeof small; cap++) {
        size_t k;
        memset(small, 'x', sizeof small);
        got = pcq_utf16_to_utf8(p, n, small, cap, NULL);
        FZ_CHECK(got == need, "pcq_utf16_to_utf8 with cap %zu returns %zu, not %zu", cap, got, need);
        k = strlen(small);
        FZ_CHECK(k < cap, "pcq_utf16_to_utf8 with cap %zu wrote %zu bytes and a NUL", cap, k);
        for (got = cap; got < sizeof small; got++)
            FZ_CHECK(small[got] == 'x', "pcq_utf16_to_utf8 with cap %zu wrote at %zu", cap, got);
        FZ_CHECK(k <= need && memcmp(small, full, k) == 0,
                 "pcq_utf16_to_utf8 with cap %zu: not a prefix of the full text", cap);
        FZ_CHECK(utf8_ok((const unsigned char *)small, k), "pcq_utf16_to_utf8 with cap %zu split a character",
                 cap);
        FZ_CHECK(k == need || cap - 1 - k < 4, "pcq_utf16_to_utf8 with cap %zu stopped at %zu of %zu", cap, k,
                 need);
    }
    free(full);
}
