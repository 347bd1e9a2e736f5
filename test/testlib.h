/* SPDX-License-Identifier: MIT */
/*
 * testlib.h - the few helpers every test/test_*.c program shares. No framework.
 *
 * A test program counts checks with tl_pass()/tl_fail() (or TL_CHECK), prints
 * one line per failure, and ends with tl_finish(), which prints
 * `N passed, N failed` on its own line and returns the exit status
 * (0 when nothing failed):
 *
 *     int main(void) {
 *         TL_CHECK(pcq_version() == PCQ_VERSION_NUMBER, "version %u", pcq_version());
 *         return tl_finish();
 *     }
 *
 * Everything is static inline so that a program uses what it needs without
 * unused-function warnings. One translation unit per program uses the counters.
 */
#ifndef PCQ_TESTLIB_H
#define PCQ_TESTLIB_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#if defined(__GNUC__) || defined(__clang__)
#define TL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TL_PRINTF(fmt, args)
#endif

/* Buffers built by hand, byte by byte: a 32-bit field in the wire's order
 * (little-endian), on any host. */
static inline void tl_put32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t tl_ld32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct tl_state {
    unsigned long passed, failed;
} tl_state;

static inline tl_state *tl_state_get(void)
{
    static tl_state s;
    return &s;
}

static inline void tl_pass(void)
{
    tl_state_get()->passed++;
}

/* Counts one failed check and prints "FAIL: <message>" on stdout. */
static inline void tl_vfail(const char *fmt, va_list ap)
{
    tl_state_get()->failed++;
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
}

static inline void tl_fail(const char *fmt, ...) TL_PRINTF(1, 2);
static inline void tl_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_vfail(fmt, ap);
    va_end(ap);
}

/* Counts a check: passes when ok, else fails with the message. Returns ok. */
static inline int tl_check(int ok, const char *fmt, ...) TL_PRINTF(2, 3);
static inline int tl_check(int ok, const char *fmt, ...)
{
    if (ok) {
        tl_pass();
    } else {
        va_list ap;
        va_start(ap, fmt);
        tl_vfail(fmt, ap);
        va_end(ap);
    }
    return ok;
}

/* TL_CHECK(cond, fmt, ...): the message also names the condition and line. */
#define TL_CHECK(cond, ...) tl_check_at(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)

static inline int tl_check_at(int ok, const char *expr, const char *file, int line, const char *fmt, ...)
    TL_PRINTF(5, 6);
static inline int tl_check_at(int ok, const char *expr, const char *file, int line, const char *fmt, ...)
{
    if (ok) {
        tl_pass();
    } else {
        va_list ap;
        tl_state_get()->failed++;
        printf("FAIL: %s:%d: %s: ", file, line, expr);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
        fflush(stdout);
    }
    return ok;
}

/* Prints the closing `N passed, N failed` line; returns the exit status. */
static inline int tl_finish(void)
{
    const tl_state *s = tl_state_get();
    printf("%lu passed, %lu failed\n", s->passed, s->failed);
    fflush(stdout);
    return s->failed ? 1 : 0;
}

#endif /* PCQ_TESTLIB_H */
