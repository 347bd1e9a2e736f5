/* SPDX-License-Identifier: MIT */
/*
 * jsoncmp.h - compare a JSON document with an expected one, field by field.
 *
 * Both documents are flattened into `path = value` pairs, one per value:
 *
 *     {"blocks": [{"type": 1, "name": "C:"}], "flags": []}
 *
 *                     = {...}        (an object: only says "an object is here")
 *     blocks          = [1 item]     (an array: its length)
 *     blocks[0]       = {...}
 *     blocks[0].type  = 1
 *     blocks[0].name  = "C:"
 *     flags           = [0 items]
 *
 * Every pair of the expected document must be present in the actual one with an
 * equal value; the actual document may have more object members, but its
 * arrays have the same lengths. Values compare by type and content: strings
 * after unescaping (so "\u0041" equals "A"), numbers exactly as text after
 * normalization (1.50 equals 1.5 and 15e-1; no floating-point rounding, so
 * 64-bit integers compare exactly), true, false, null. A document must be one
 * valid JSON value (RFC 8259) followed only by whitespace, and no object may
 * repeat a member name.
 */
#ifndef PCQ_JSONCMP_H
#define PCQ_JSONCMP_H

#include <stddef.h>

typedef struct json_pair {
    char *path;  /* "blocks[0].type" */
    char *value; /* type tag + normalized text: "s" string, "n" number,
                       "b" true/false, "z" null, "o" object, "a" array + length */
    char *shown; /* the value for messages, as JSON text (re-escaped) */
} json_pair;

typedef struct json_doc {
    json_pair *pairs; /* sorted by path after json_flatten */
    size_t n, cap;
} json_doc;

/* Parses text[0..len) into doc (which must be zeroed or freed). Returns 0, or
 * -1 with a message (including the byte offset) in err when err_cap > 0. */
int json_flatten(const char *text, size_t len, json_doc *doc, char *err, size_t err_cap);
void json_doc_free(json_doc *doc);

/* The pair with this path, or NULL. */
const json_pair *json_doc_find(const json_doc *doc, const char *path);

/* Called once per difference. actual is NULL when the path is missing. */
typedef void (*jsoncmp_report_fn)(void *ctx, const char *path, const char *expected, const char *actual);

/* Compares two documents. Returns the number of differences (each reported),
 * or -1 when a document is not valid JSON (message in err, naming which). */
int jsoncmp(const char *expected, size_t expected_len, const char *actual, size_t actual_len,
            jsoncmp_report_fn report, void *ctx, char *err, size_t err_cap);

#endif /* PCQ_JSONCMP_H */
