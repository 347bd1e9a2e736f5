/*
 * bench/hostile.c - the worst inputs we know of, timed against memcpy of the
 * same bytes: shapes that made a decoder or the cook superlinear before they
 * were bounded (docs/decisions.md D11, D12). Each shape is built at the sizes
 * asked for; the table gives ns per input byte and the ratio to memcpy, so a
 * regression to quadratic shows as a ratio that grows with the size.
 *
 *   build/bench/pcq_hostile [--sizes 256KiB,1MiB,8MiB] [--check]
 *
 * --check (make check's smoke run): small sizes, one pass, and only the
 * results are checked (what each call returns), never the times.
 * Exit status 1 when a call returns something unexpected.
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include "pcq_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "pcq_hostile: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* One shape at one size: the buffers, and the call to time. */
typedef struct shape {
    const char *name;
    int (*build)(struct shape *s, size_t size);
    int (*run)(struct shape *s);   /* returns the status of the call */
    int expect;                    /* the status it must return */
    uint8_t *a, *b, *c;
    size_t alen, blen, clen;
    uint32_t n;
    int single_id;                 /* block 1 is a type 1 block of counter 1 */
    pcq_counterset_info info;
    pcq_data older, newer;
    pcq_calc_row *rows;
} shape;

/* ---- strings: n entries all pointing at one text of size/2 bytes (D11) ---- */
static int build_strings(shape *s, size_t size)
{
    size_t n = size / 16, text = size - 8 - 8 * n - 8, i, hdr = 8 + 8 * n;
    text &= ~(size_t)1;
    s->alen = hdr + text + 2;
    s->alen = (s->alen + 7) & ~(size_t)7;
    s->a = (uint8_t *)xmalloc(s->alen);
    memset(s->a, 0, s->alen);
    st32(s->a, (uint32_t)s->alen);
    st32(s->a + 4, (uint32_t)n);
    for (i = 0; i < n; i++) {
        st32(s->a + 8 + 8 * i, (uint32_t)i);
        st32(s->a + 12 + 8 * i, (uint32_t)hdr);
    }
    for (i = 0; i < text; i += 2) s->a[hdr + i] = 'A';
    s->n = (uint32_t)n;
    return 0;
}

static int run_strings(shape *s)
{
    return pcq_decode_strings(s->a, s->alen, NULL, NULL, NULL);
}

/* ---- cook: a counterset-info of `counters` counters of one type ---- */
static uint8_t *info_buf(uint32_t counters, uint32_t type, uint32_t base, size_t *len)
{
    size_t cap = 64 + 48 * (size_t)counters;
    uint8_t *b = (uint8_t *)xmalloc(cap);
    pcq_counterset_reg set;
    pcq_counter_reg c;
    pcq_writer w;
    uint32_t k;
    memset(&set, 0, sizeof set);
    set.detail_level = 100;
    set.num_counters = counters;
    set.instance_type = 2;
    pcq_writer_init(&w, b, cap);
    pcq_put_counterset_reg(&w, &set);
    for (k = 0; k < counters; k++) {
        memset(&c, 0, sizeof c);
        c.counter_id = k + 1;
        c.type = type;
        c.detail_level = 100;
        c.base_counter_id = base;
        pcq_put_counter_reg(&w, &c);
    }
    if (pcq_writer_finish(&w, len) != PCQ_OK) return NULL;
    return b;
}

/* One PERF_COUNTERSET block of n instances of counter 1, in order or reversed,
 * after `empty` PERF_ERROR_RETURN blocks. */
static uint8_t *instances_buf(uint32_t n, int reversed, uint32_t empty, uint32_t step,
                              size_t *len)
{
    size_t cap = (size_t)n * 64 + (size_t)empty * 16 + 4096;
    uint8_t *b = (uint8_t *)xmalloc(cap), name[32];
    const uint32_t ids[1] = {1};
    pcq_writer w;
    pcq_data hdr;
    uint32_t k, i;
    memset(&hdr, 0, sizeof hdr);
    hdr.perf_freq = 1000;
    pcq_writer_init(&w, b, cap);
    pcq_begin_data(&w, &hdr);
    for (k = 0; k < empty; k++) pcq_put_error_block(&w, 0);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 1);
    for (k = 0; k < n; k++) {
        char text[16];
        int len16, j;
        i = reversed ? n - 1 - k : k;
        len16 = snprintf(text, sizeof text, "i%u", (unsigned)i);
        for (j = 0; j < len16; j++) {
            name[2 * j] = (uint8_t)text[j];
            name[2 * j + 1] = 0;
        }
        pcq_put_data_instance(&w, i, name, (size_t)(2 * len16));
        pcq_put_value_u32(&w, 1000 + step * i);
    }
    pcq_end_block(&w);
    pcq_end_data(&w);
    if (pcq_writer_finish(&w, len) != PCQ_OK) return NULL;
    return b;
}

static int decode_cook_inputs(shape *s)
{
    if (s->a == NULL || s->b == NULL || s->c == NULL ||
        pcq_decode_counterset_info(s->a, s->alen, NULL, &s->info, NULL) != PCQ_OK ||
        pcq_decode_data(s->b, s->blen, NULL, &s->older, NULL) != PCQ_OK ||
        pcq_decode_data(s->c, s->clen, NULL, &s->newer, NULL) != PCQ_OK)
        return -1;
    s->rows = (pcq_calc_row *)xmalloc(sizeof *s->rows * (s->n + 1));
    return 0;
}

/* The older sample lists every instance in reverse: each match a search (D12). */
static int build_reversed(shape *s, size_t size)
{
    s->n = (uint32_t)(size / 2 / 48);
    s->a = info_buf(1, 0x00400400u, 0, &s->alen);   /* PERF_COUNTER_DELTA */
    s->b = instances_buf(s->n, 1, 0, 1, &s->blen);
    s->c = instances_buf(s->n, 0, 0, 3, &s->clen);
    return decode_cook_inputs(s);
}

/* The older sample: many empty blocks and none of the newer's instances, so
 * every instance's search passes every block (D12). */
static int build_empty_blocks(shape *s, size_t size)
{
    uint32_t k;
    s->n = (uint32_t)(size / 2 / 48);
    s->a = info_buf(1, 0x00400400u, 0, &s->alen);
    s->b = instances_buf(1, 0, (uint32_t)(size / 2 / 16), 1, &s->blen);
    s->c = instances_buf(s->n, 0, 0, 3, &s->clen);
    /* the older's one instance must not match: rename it */
    for (k = 0; k + 6 <= s->blen; k++)
        if (memcmp(s->b + k, "i\0" "0\0" "\0\0", 6) == 0) s->b[k] = 'z';
    return decode_cook_inputs(s);
}

/* A RAW_FRACTION counter whose base is in no block, with one single-counter
 * block beside: every value searches the whole sample for its base (D12). */
static int build_missing_base(shape *s, size_t size)
{
    size_t cap;
    uint8_t *b;
    pcq_writer w;
    pcq_data hdr;
    const uint32_t ids[1] = {1};
    uint32_t k;
    s->n = (uint32_t)(size / 48);
    s->a = info_buf(2, 0x20020400u, 2, &s->alen);   /* RAW_FRACTION over counter 2 */
    cap = (size_t)s->n * 64 + 4096;
    b = (uint8_t *)xmalloc(cap);
    memset(&hdr, 0, sizeof hdr);
    hdr.perf_freq = 1000;
    pcq_writer_init(&w, b, cap);
    pcq_begin_data(&w, &hdr);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 1);
    for (k = 0; k < s->n; k++) {
        uint8_t name[4] = {'x', 0, 0, 0};
        name[2] = (uint8_t)('a' + k % 26);
        pcq_put_data_instance(&w, k, name, 4);
        pcq_put_value_u32(&w, k);
    }
    pcq_end_block(&w);
    pcq_begin_block(&w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
    pcq_put_value_u32(&w, 7);
    pcq_end_block(&w);
    pcq_end_data(&w);
    s->single_id = 1;
    if (pcq_writer_finish(&w, &s->clen) != PCQ_OK) return -1;
    s->c = b;
    s->b = (uint8_t *)xmalloc(s->clen);   /* older = newer */
    memcpy(s->b, s->c, s->clen);
    s->blen = s->clen;
    return decode_cook_inputs(s);
}

static int run_cook(shape *s)
{
    size_t count = 0;
    pcq_identifier id;
    memset(&id, 0, sizeof id);
    id.counter_id = 1;
    id.index = 1;
    return pcq_calc_cook(&s->info, &s->older, &s->newer, s->single_id ? &id : NULL,
                         s->single_id ? 1 : 0, 0, s->rows, s->n + 1, &count, NULL);
}

static void shape_free(shape *s)
{
    free(s->a);
    free(s->b);
    free(s->c);
    free(s->rows);
    s->a = s->b = s->c = NULL;
    s->rows = NULL;
    s->single_id = 0;
}

static size_t input_len(const shape *s)
{
    return s->alen + s->blen + s->clen;
}

/* The fastest of `reps` calls, in seconds. */
static double best_of(int (*fn)(shape *), shape *s, int reps, int *rc)
{
    double best = 1e30, t;
    int r;
    for (r = 0; r < reps; r++) {
        t = now_s();
        *rc = fn(s);
        t = now_s() - t;
        if (t < best) best = t;
    }
    return best;
}

static double memcpy_time(size_t n, int reps)
{
    uint8_t *x = (uint8_t *)xmalloc(n), *y = (uint8_t *)xmalloc(n);
    double best = 1e30, t;
    volatile uint8_t sink;
    int r;
    memset(x, 1, n);
    memcpy(y, x, n);                   /* warm: the pages exist before timing */
    for (r = 0; r < reps; r++) {
        t = now_s();
        memcpy(y, x, n);
        sink = y[n / 2];
        t = now_s() - t;
        if (t < best) best = t;
    }
    (void)sink;
    free(x);
    free(y);
    return best;
}

static size_t parse_size(const char *p, char **end)
{
    size_t v = (size_t)strtoul(p, end, 10);
    if (strncmp(*end, "KiB", 3) == 0) { v <<= 10; *end += 3; }
    else if (strncmp(*end, "MiB", 3) == 0) { v <<= 20; *end += 3; }
    return v;
}

int main(int argc, char **argv)
{
    static shape shapes[4];
    const char *list = "256KiB,1MiB,8MiB";
    size_t sizes[8], nsizes = 0, i, k;
    int check = 0, bad = 0, reps = 3;
    char *p;

    shapes[0].name = "strings-shared";
    shapes[0].build = build_strings;
    shapes[0].run = run_strings;
    shapes[0].expect = PCQ_OK;
    shapes[1].name = "cook-reversed";
    shapes[1].build = build_reversed;
    shapes[2].name = "cook-empty-blocks";
    shapes[2].build = build_empty_blocks;
    shapes[3].name = "cook-missing-base";
    shapes[3].build = build_missing_base;
    for (k = 1; k < 4; k++) {
        shapes[k].run = run_cook;
        shapes[k].expect = PCQ_ERR_LIMIT;
    }

    for (i = 1; i < (size_t)argc; i++) {
        if (strcmp(argv[i], "--check") == 0) check = 1;
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < (size_t)argc) list = argv[++i];
        else {
            fprintf(stderr, "usage: pcq_hostile [--sizes 256KiB,1MiB,8MiB] [--check]\n");
            return 2;
        }
    }
    if (check) {
        list = "1MiB";
        reps = 1;
    }
    for (p = (char *)list; *p && nsizes < 8;) {
        sizes[nsizes] = parse_size(p, &p);
        if (sizes[nsizes++] < 4096) {   /* the shapes' own headers need room */
            fprintf(stderr, "pcq_hostile: sizes from 4KiB\n");
            return 2;
        }
        if (*p == ',') p++;
        else if (*p) return 2;
    }
    printf("| shape | input | result | ns/byte | x memcpy |\n|---|---|---|---|---|\n");
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        for (i = 0; i < nsizes; i++) {
            shape *s = &shapes[k];
            double t, m;
            int rc = 0;
            if (s->build(s, sizes[i]) != 0) {
                printf("| %s | %zu | build failed | | |\n", s->name, sizes[i]);
                bad = 1;
                shape_free(s);
                continue;
            }
            t = best_of(s->run, s, reps, &rc);
            m = memcpy_time(input_len(s), reps);
            printf("| %s | %zu | %s | %.2f | %.0f |\n", s->name, input_len(s),
                   pcq_status_name(rc), t * 1e9 / (double)input_len(s), m > 0 ? t / m : 0);
            /* The shapes at 1 MiB and above exceed the cook's budget (D12). */
            if (rc != s->expect && !(s->expect == PCQ_ERR_LIMIT && rc == PCQ_OK &&
                                     input_len(s) < ((size_t)1 << 20))) {
                printf("  %s: expected %s\n", s->name, pcq_status_name(s->expect));
                bad = 1;
            }
            shape_free(s);
        }
    }
    if (check)
        printf("pcq_hostile --check: %d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
    return bad;
}
