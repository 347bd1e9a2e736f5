/* SPDX-License-Identifier: MIT */
/*
 * hexread.c - hex text to bytes; see hexread.h for the accepted format.
 */
#include "hexread.h"

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The C locale's isspace(), without depending on the current locale. */
static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int hex_fail(int code, size_t at, size_t *where)
{
    if (where) *where = at;
    return code;
}

int pcq_hex_parse_ex(const char *text, size_t n, uint8_t *out, size_t cap, size_t *out_len, size_t *where)
{
    size_t i = 0, len = 0;
    int hi, lo;

    if (out_len) *out_len = 0;
    while (i < n) {
        if (is_space(text[i])) {
            i++;
        } else if (text[i] == '#') {
            /* to the end of the line, LF or a bare CR (old Mac text) */
            while (i < n && text[i] != '\n' && text[i] != '\r') i++;
        } else {
            hi = hex_digit(text[i]);
            if (hi < 0) return hex_fail(PCQ_HEX_BAD_CHAR, i, where);
            if (i + 1 == n || is_space(text[i + 1]) || text[i + 1] == '#')
                return hex_fail(PCQ_HEX_ODD, i, where); /* the lone last digit */
            lo = hex_digit(text[i + 1]);
            if (lo < 0) return hex_fail(PCQ_HEX_BAD_CHAR, i + 1, where);
            if (out) {
                if (len >= cap) return hex_fail(PCQ_HEX_TOO_LONG, i, where);
                out[len] = (uint8_t)(hi << 4 | lo);
            }
            len++;
            i += 2;
        }
    }
    if (out_len) *out_len = len;
    return 0;
}

int pcq_hex_parse(const char *text, size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
    return pcq_hex_parse_ex(text, n, out, cap, out_len, NULL) == 0 ? 0 : -1;
}
