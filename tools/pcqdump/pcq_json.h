/* SPDX-License-Identifier: MIT */
/*
 * pcq_json.h - one decoded [MS-PCQ] buffer as one JSON object (pcqdump --json,
 * test/test_vectors.c). The fields per kind are listed in tools/pcqdump/README.md.
 */
#ifndef PCQ_JSON_H
#define PCQ_JSON_H

#include <stdint.h>
#include <stdio.h>
#include "pcq_codec.h"

/* Walks buf as `kind` step by step with the caller's opts (diagnostics go
 * to opts->on_diag) and prints one JSON object and a newline to out: every
 * structure read, in the same shape whether the buffer is whole or not (the
 * lists hold what was read; a structure cut by the error keeps the fields
 * read before it), and, when the bytes go wrong, an "error" member
 * {"code", "offset", "field", "message"}. Returns PCQ_OK or the walk's error
 * (also in *err; err may be NULL); PCQ_ERR_INVALID_ARG prints nothing.
 * Integers are exact, GUIDs lowercase, names UTF-8 (unpaired surrogates as
 * U+FFFD). Write errors are left in ferror(out). */
int pcq_json_emit(FILE *out, pcq_kind kind, const uint8_t *buf, size_t len, const pcq_opts *opts,
                  pcq_error *err);

/* Quoting styles for pcq_quote_utf16. Both escape '"', '\\', the C0 and C1
 * controls, DEL and the bidirectional formatting characters (U+061C,
 * U+200E-F, U+202A-E, U+2066-9) as \uXXXX, so that an untrusted name can
 * neither drive nor reorder the terminal it is printed on; JSON too, since
 * JSON gets printed (the parsed value is the same). */
#define PCQ_QUOTE_JSON     0
#define PCQ_QUOTE_TERMINAL 1

/* Prints UTF-16LE text (nbytes; an odd last byte is ignored) as a double-quoted
 * UTF-8 string. Converts in small chunks on the stack: any length, no malloc,
 * never truncated. */
void pcq_quote_utf16(FILE *out, const uint8_t *text, size_t nbytes, int style);

#endif /* PCQ_JSON_H */
