/* SPDX-License-Identifier: MIT */
/*
 * bench/allocs.c - counts heap calls made by the bench binary and the library
 * objects linked into it. Linked with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,
 *       --wrap=aligned_alloc,--wrap=posix_memalign,--wrap=strdup
 * so every such call in those objects lands here first. (Calls made inside
 * libc itself, e.g. by stdio, are not seen; the library calls none of it.)
 */
#include <stddef.h>
#include <string.h>

#include "allocs.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t a, size_t n);
int __real_posix_memalign(void **p, size_t a, size_t n);
char *__real_strdup(const char *s);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_aligned_alloc(size_t a, size_t n);
int __wrap_posix_memalign(void **p, size_t a, size_t n);
char *__wrap_strdup(const char *s);

/* Heap calls (allocations, reallocations and frees) so far. */
volatile unsigned long bench_heap_calls;

void *__wrap_malloc(size_t n)
{
    bench_heap_calls++;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    bench_heap_calls++;
    return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    bench_heap_calls++;
    return __real_realloc(p, n);
}

void __wrap_free(void *p)
{
    if (p) bench_heap_calls++;
    __real_free(p);
}

void *__wrap_aligned_alloc(size_t a, size_t n)
{
    bench_heap_calls++;
    return __real_aligned_alloc(a, n);
}

int __wrap_posix_memalign(void **p, size_t a, size_t n)
{
    bench_heap_calls++;
    return __real_posix_memalign(p, a, n);
}

char *__wrap_strdup(const char *s)
{
    bench_heap_calls++;
    return __real_strdup(s);
}
