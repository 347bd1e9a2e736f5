/* SPDX-License-Identifier: MIT */
/* bench/allocs.h - heap-call counter (bench/allocs.c, via ld --wrap). */
#ifndef PCQ_BENCH_ALLOCS_H
#define PCQ_BENCH_ALLOCS_H

/* Every malloc, calloc, realloc, aligned_alloc, posix_memalign, strdup and
 * non-NULL free made by the bench binary or the library objects in it. */
extern volatile unsigned long bench_heap_calls;

/* The linker flags that route those calls through bench/allocs.c. */
#define BENCH_WRAP_FLAGS                                          \
    "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free," \
    "--wrap=aligned_alloc,--wrap=posix_memalign,--wrap=strdup"

#endif
