/*
 * pcq_json.h - one decoded [MS-PCQ] buffer as one JSON object (pcqdump --json,
 * test/test_vectors.c). The fields per kind are listed in tools/pcqdump/README.md.
 */
#ifndef PCQ_JSON_H
#define PCQ_JSON_H

#include <stdint.h>
#include <stdio.h>
#include "pcq_codec.h"

/* Validates buf as `kind` with the caller's opts (diagnostics go to
 * opts->on_diag) and, only if that succeeds, prints one JSON object and a
 * newline to out. Returns PCQ_OK, or the decoder's error in *err (err may be
 * NULL) having printed nothing. Integers are exact, GUIDs lowercase, names
 * UTF-8 (unpaired surrogates as U+FFFD). Write errors are left in ferror(out). */
int pcq_json_emit(FILE *out, pcq_kind kind, const uint8_t *buf, size_t len,
                  const pcq_opts *opts, pcq_error *err);

/* Quoting styles for pcq_quote_utf16. */
#define PCQ_QUOTE_JSON     0   /* escapes '"', '\\' and C0 controls as \u00XX        */
#define PCQ_QUOTE_TERMINAL 1   /* also DEL and C1 controls, so that an untrusted name
                                  cannot drive the terminal it is printed on        */

/* Prints UTF-16LE text (nbytes; an odd last byte is ignored) as a double-quoted
 * UTF-8 string. Converts in small chunks on the stack: any length, no malloc,
 * never truncated. */
void pcq_quote_utf16(FILE *out, const uint8_t *text, size_t nbytes, int style);

#endif /* PCQ_JSON_H */
