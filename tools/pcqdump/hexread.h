/* SPDX-License-Identifier: MIT */
/*
 * hexread.h - read hex text into bytes (pcqdump --hex, the vector tests).
 *
 * The text is hex digits (either case) in pairs; whitespace separates runs and
 * `#` starts a comment that ends at the end of the line. That reads `xxd -p`
 * output, an analyzer's "copy as hex stream", and the annotated vectors/ files.
 * A byte never spans whitespace: every run of digits must be of even length, so
 * a mistyped field ("0000000  # dwStatus") is caught instead of shifting every
 * later byte by a nibble.
 */
#ifndef PCQ_HEXREAD_H
#define PCQ_HEXREAD_H

#include <stddef.h>
#include <stdint.h>

/* Failure reasons of pcq_hex_parse_ex (pcq_hex_parse returns -1 for all). */
#define PCQ_HEX_BAD_CHAR (-1) /* not a hex digit, whitespace or comment */
#define PCQ_HEX_ODD      (-2) /* a run of digits of odd length          */
#define PCQ_HEX_TOO_LONG (-3) /* more than cap bytes                    */

/* Parses text[0..n) into out[0..cap). Returns 0 with *out_len = bytes written,
 * or -1 (odd digit count, bad character, more than cap bytes). out may be NULL
 * to count only: cap is then ignored. Never reads past text + n (no NUL needed)
 * and never writes past out + cap. */
int pcq_hex_parse(const char *text, size_t n, uint8_t *out, size_t cap, size_t *out_len);

/* The same, returning PCQ_HEX_* on failure and, in *where (may be NULL), the
 * offset in text of the offending character. */
int pcq_hex_parse_ex(const char *text, size_t n, uint8_t *out, size_t cap, size_t *out_len, size_t *where);

#endif /* PCQ_HEXREAD_H */
