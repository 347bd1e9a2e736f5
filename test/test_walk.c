/* SPDX-License-Identifier: MIT */
/*
 * test_walk.c - the step-by-step walk (pcq_walk_next) on every vector in
 * vectors/ and on single-byte mutations of each (fuzz/fz_props.c):
 *   (a) a buffer that decodes walks to exactly the typed iterators' items;
 *   (b) every prefix of such a buffer (of a buffer over 4 KiB, a sample)
 *       yields every item of the whole buffer
 *       that lies inside it, unchanged, then an error at an offset inside it
 *       (a data header whose dwTotalSize passes the prefix included: the
 *       blocks that are there come first);
 *   (c) pcq_validate succeeds exactly when the walk ends without error, with
 *       the same error and the same diagnostics in wire order, lenient and
 *       strict; on the vectors and on every byte of each set to 0x00, 0xFF
 *       and its value with the low bit flipped.
 * And a few walks checked by hand: what a cut reply shows, what a partial
 * item holds, that the walk stays at its end.
 *
 * Usage: test_walk [VECTORS_DIR]   (default: vectors). A broken property
 * aborts with its message (FZ_CHECK); the last line is `N passed, N failed`.
 */
#define _POSIX_C_SOURCE 200809L
/* readdir() and stat() with 64-bit offsets on 32-bit hosts (fuzz/replay_main.c says why). */
#define _FILE_OFFSET_BITS 64

#include "fuzz_util.h"
#include "hexread.h"
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_dirs[PCQ_KIND_END_] = {
    NULL,   "counterset-info", "counter-info", "strings",     "string",
    "guid", "guids",           "instances",    "identifiers", "data",
};

static uint8_t *load_hex(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text;
    uint8_t *bytes;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = (char *)malloc((size_t)n + 1);
    bytes = (uint8_t *)malloc((size_t)n / 2 + 1);
    if (!text || !bytes || fread(text, 1, (size_t)n, f) != (size_t)n ||
        pcq_hex_parse(text, (size_t)n, bytes, (size_t)n / 2 + 1, len) != 0) {
        free(text);
        free(bytes);
        fclose(f);
        return NULL;
    }
    free(text);
    fclose(f);
    return bytes;
}

/* Under a slow runner (valgrind, qemu-user: ci/run-suite.sh --runner sets
 * PCQ_TEST_SPARSE) every buffer is still checked whole, but its prefixes and
 * mutations are sampled: about 64 of each, not one per byte. */
static size_t sparse_step(size_t len, size_t dense)
{
    if (!getenv("PCQ_TEST_SPARSE")) return dense;
    return len / 64 > dense ? len / 64 : dense;
}

/* The three properties on one buffer, and (c) on its mutations. */
static void check_buffer(pcq_kind kind, const uint8_t *buf, size_t len, int mutate)
{
    uint8_t *m;
    size_t i;
    unsigned k;
    static const int change[3] = {0x00, 0xFF, -1};

    fz_prop_decode_is_walk(kind, buf, len, 0);
    fz_prop_decode_is_walk(kind, buf, len, 1);
    fz_prop_iterators(kind, buf, len);
    fz_prop_iterators_unvalidated(kind, buf, len);
    fz_prop_bulk(kind, buf, len, 0);
    fz_prop_bulk(kind, buf, len, 1);
    if (kind == PCQ_KIND_DATA) {
        fz_prop_canonical(buf, len);
        fz_prop_batch(buf, len);
    }
    fz_prop_prefixes(kind, buf, len, sparse_step(len, len <= 4096 ? 1 : len / 1024)); /* large: a sample */
    tl_pass();
    if (!mutate || len == 0) return;
    m = (uint8_t *)malloc(len);
    TL_CHECK(m != NULL, "out of memory");
    if (!m) return;
    for (i = 0; i < len; i += sparse_step(len, len <= 4096 ? 1 : len / 512)) {
        for (k = 0; k < 3; k++) {
            memcpy(m, buf, len);
            m[i] = change[k] < 0 ? (uint8_t)(buf[i] ^ 1u) : (uint8_t)change[k];
            fz_prop_decode_is_walk(kind, m, len, 0);
            fz_prop_decode_is_walk(kind, m, len, 1);
            fz_prop_iterators(kind, m, len);
            fz_prop_iterators_unvalidated(kind, m, len);
            fz_prop_bulk(kind, m, len, 0);
            if (kind == PCQ_KIND_DATA) {
                fz_prop_canonical(m, len);
                fz_prop_batch(m, len);
            }
        }
    }
    free(m);
    tl_pass();
}

static size_t run_dir(const char *dir, pcq_kind kind)
{
    char path[2048];
    struct dirent *e;
    DIR *d = opendir(dir);
    size_t n = 0, len;
    uint8_t *buf;
    if (!d) return 0;
    while ((errno = 0, e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".hex") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        buf = load_hex(path, &len);
        TL_CHECK(buf != NULL, "%s: cannot read", path);
        if (!buf) continue;
        check_buffer(kind, buf, len, 1);
        free(buf);
        n++;
    }
    TL_CHECK(errno == 0, "%s: listing failed: %s", dir, strerror(errno));
    closedir(d);
    return n;
}

/* A reply cut inside its second instance: the header, the block, its lists
 * and the first instance with its values come first, then TRUNCATED inside
 * the cut, though dwTotalSize and the block's dwSize reach past it. */
static void test_cut_reply(const char *vectors)
{
    char path[1024];
    size_t len, cut, n = 0, last_offset = 0;
    uint8_t *buf;
    pcq_walk w;
    pcq_item it;
    int rc, saw_value = 0;

    snprintf(path, sizeof path, "%s/data/processor-information.hex", vectors);
    buf = load_hex(path, &len);
    TL_CHECK(buf != NULL && len == 312, "%s: 312 bytes", path);
    if (!buf) return;
    cut = 0xb0; /* inside instance "0,_Total" (0xa0..0x108) */
    pcq_walk_begin(&w, PCQ_KIND_DATA, buf, cut, NULL);
    while ((rc = pcq_walk_next(&w, &it)) == 1) {
        n++;
        last_offset = it.offset;
        saw_value |= it.type == PCQ_S_COUNTER_DATA && it.offset == 0x90;
    }
    TL_CHECK(rc == PCQ_ERR_TRUNCATED && w.err.offset < cut && w.err.offset >= 0xa0, "cut reply: %s at 0x%zx",
             pcq_status_name(rc), w.err.offset);
    TL_CHECK(saw_value && last_offset == 0x90 && n == 11,
             "cut reply: %zu items, the last at 0x%zx; the first instance's last value %s", n, last_offset,
             saw_value ? "seen" : "missing");
    TL_CHECK(it.type == PCQ_S_DATA_INSTANCE && it.partial && it.offset == 0xa0 && it.size == 8,
             "cut reply: the partial item is the cut instance's header (type %d, 0x%zx, %zu bytes)", it.type,
             it.offset, it.size);
    TL_CHECK(pcq_walk_next(&w, &it) == rc && it.type == PCQ_S_NONE, "the walk stays at its error");
    free(buf);
}

/* A block with a bad dwType: the partial item shows dwStatus only. */
static void test_partial_item(void)
{
    uint8_t buf[64];
    pcq_walk w;
    pcq_item it;
    pcq_field_value v;
    const pcq_struct_info *s = pcq_struct_info_of(PCQ_S_COUNTER_HEADER);
    int rc;

    memset(buf, 0, sizeof buf);
    buf[0] = 64;  /* dwTotalSize */
    buf[4] = 1;   /* dwNumCounter */
    buf[48] = 7;  /* dwStatus */
    buf[52] = 3;  /* dwType 3: no such type */
    buf[56] = 16; /* dwSize */
    pcq_walk_begin(&w, PCQ_KIND_DATA, buf, sizeof buf, NULL);
    TL_CHECK(pcq_walk_next(&w, &it) == 1 && it.type == PCQ_S_DATA_HEADER, "the header comes first");
    rc = pcq_walk_next(&w, &it);
    TL_CHECK(rc == PCQ_ERR_BAD_BLOCK_TYPE && w.err.offset == 52 && it.partial && it.size == 4,
             "bad dwType: %s at %zu, partial %d of %zu bytes", pcq_status_name(rc), w.err.offset, it.partial,
             it.size);
    TL_CHECK(pcq_item_field(&it, &s->fields[0], buf, sizeof buf, &v) == PCQ_V_UNSIGNED && v.u == 7,
             "its dwStatus is shown");
    TL_CHECK(pcq_item_field(&it, &s->fields[1], buf, sizeof buf, &v) == PCQ_V_NONE,
             "its dwType (the blamed field) is not");
}

/* The walk measures each entry's text whatever the order of the entries
 * (in order of their starts, with its own table or the caller's scratch, or
 * PCQ_PAIR_CHECK_MAX entries at a time when neither holds them: no scratch,
 * scratch one entry short, no options at all): every text.len is the
 * distance from its start to the first UTF-16 NUL of its parity. Texts of
 * both parities, entries pointing into them anywhere, in an order mixed by
 * `seed`, every seventh entry absent, and orders that revisit an earlier
 * text (regression: measuring backwards from the last text measured took a
 * NUL that was not there); order 3: long texts (a NUL every ~2,500 bytes),
 * so that the NUL map (D11) skips whole words of them. With `bad_last` the
 * last entry starts past the block: the walk gives every entry before it,
 * then its error. */
static void count_diag(void *ctx, const pcq_diag *d)
{
    (void)ctx;
    (void)d;
}

static size_t first_nul16(const uint8_t *b, size_t at, size_t end)
{
    for (; at + 2 <= end; at += 2)
        if (b[at] == 0 && b[at + 1] == 0) return at;
    return end;
}

enum {
    SCRATCH_NONE,
    SCRATCH_ENOUGH,
    SCRATCH_SHORT,
    NO_OPTS
};

static void check_texts(uint32_t n, uint32_t seed, int order, int with_diags, int scratch_mode, int bad_last)
{
    size_t hdr = 8 + 8 * (size_t)n, area = 64 + 24 * (size_t)n, size = (hdr + area + 7) & ~(size_t)7, i,
           got = 0, want = 0;
    uint8_t *b = (uint8_t *)calloc(size, 1);
    uint32_t *scratch = (uint32_t *)malloc((size_t)n * PCQ_SCRATCH_PER_ENTRY);
    uint32_t x = seed * 2654435761u + 1u, off;
    pcq_opts o;
    pcq_walk w;
    pcq_item it;
    int rc;
    if (!b || !scratch) abort();
    /* texts: runs of 'a'..'z' units, a NUL unit every few units, at even
     * and odd byte offsets (a lone byte shifts the parity now and then) */
    for (i = hdr; i + 4 < size; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (x >> 16) % 11 == 0 && order != 3 ? 0 : (uint8_t)('a' + (x >> 20) % 26);
        if (order == 3 && i > hdr && (x >> 8) % 2500 == 0) b[i - 1] = b[i] = 0; /* texts of ~2,500 bytes */
    }
    for (i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        if (order == 0 || order == 3)
            off = (uint32_t)(hdr + (x >> 8) % area); /* anywhere */
        else if (order == 1)
            off = (uint32_t)(size - 6 - 2 * i % area); /* descending */
        else
            off = (uint32_t)(hdr + (i % 2 ? (x >> 8) % 64 : area - 64 + (x >> 8) % 60)); /* two far texts */
        if (off < hdr) off = (uint32_t)hdr;
        if (i % 7 == 3) off = 0xFFFFFFFFu; /* absent */
        if (bad_last && i == n - 1) off = (uint32_t)size + 8;
        want += off != 0xFFFFFFFFu && !(bad_last && i == n - 1);
        b[8 + 8 * i] = (uint8_t)i;
        b[9 + 8 * i] = (uint8_t)(i >> 8);
        b[10 + 8 * i] = (uint8_t)(i >> 16);
        b[12 + 8 * i] = (uint8_t)off;
        b[13 + 8 * i] = (uint8_t)(off >> 8);
        b[14 + 8 * i] = (uint8_t)(off >> 16);
        b[15 + 8 * i] = (uint8_t)(off >> 24);
    }
    b[0] = (uint8_t)size;
    b[1] = (uint8_t)(size >> 8);
    b[2] = (uint8_t)(size >> 16);
    b[4] = (uint8_t)n;
    b[5] = (uint8_t)(n >> 8);
    b[6] = (uint8_t)(n >> 16);
    memset(&o, 0, sizeof o);
    o.on_diag = with_diags ? count_diag : NULL;
    o.scratch = scratch_mode == SCRATCH_ENOUGH || scratch_mode == SCRATCH_SHORT ? scratch : NULL;
    o.scratch_size = scratch_mode == SCRATCH_ENOUGH  ? (size_t)n * PCQ_SCRATCH_PER_ENTRY
                     : scratch_mode == SCRATCH_SHORT ? (size_t)(n - 1) * PCQ_SCRATCH_PER_ENTRY
                                                     : 0;
    pcq_walk_begin(&w, PCQ_KIND_STRINGS, b, size, scratch_mode == NO_OPTS ? NULL : &o);
    while ((rc = pcq_walk_next(&w, &it)) == 1) {
        const pcq_string_entry *e = &it.u.entry;
        if (it.type != PCQ_S_STRING_COUNTER_HEADER || !e->present) continue;
        got++;
        TL_CHECK(e->text.len == first_nul16(b, e->text_offset, size) - e->text_offset,
                 "%u entries (order %d, diags %d, scratch %d): entry %u at 0x%zx measured %zu bytes, not %zu",
                 n, order, with_diags, scratch_mode, e->counter_id, e->text_offset, e->text.len,
                 first_nul16(b, e->text_offset, size) - e->text_offset);
    }
    if (bad_last)
        TL_CHECK(rc < 0 && got == want && w.err.offset == 12 + 8 * ((size_t)n - 1),
                 "%u entries, the last past the block: %s at 0x%zx after %zu entries", n, pcq_status_name(rc),
                 w.err.offset, got);
    else
        TL_CHECK(rc == 0 && got == want, "%u entries (order %d): the walk ends with %s after %zu entries", n,
                 order, pcq_status_name(rc), got);
    free(b);
    free(scratch);
}

static void test_string_texts(void)
{
    uint32_t sizes[] = {3, 40, PCQ_PAIR_CHECK_MAX, PCQ_PAIR_CHECK_MAX + 1, 3000}, seed;
    int order, diags, scratch;
    size_t k;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (order = 0; order < 4; order++)
            for (diags = 0; diags < 2; diags++)
                for (scratch = SCRATCH_NONE; scratch <= NO_OPTS; scratch++)
                    for (seed = 1; seed <= 3; seed++) check_texts(sizes[k], seed, order, diags, scratch, 0);
    /* The last entry of a batch starts past the block: the batch measures
     * the others (it was made at the first of them) and leaves it to the
     * walk's error. */
    for (seed = 1; seed <= 3; seed++) check_texts(PCQ_PAIR_CHECK_MAX + 3, seed, 0, 0, SCRATCH_NONE, 1);
}

/* Two string blocks built by hand for the dwOffset convention (D4):
 * - one entry whose offset reads well both ways: from the block (16, the
 *   area's start) and from the area (32); both texts end at one NUL at
 *   dwSize. The reading whose strings start at the area wins: Win32.
 * - 257 entries (so that no count or size byte pair is zero at an odd
 *   offset), all absent but the first, its text of U+0101 units: not one
 *   UTF-16 NUL at an odd offset in the whole block. It decodes; with the
 *   second entry at an odd offset, the walk stops there with NO_NUL. */
static void test_string_conventions(void)
{
    static uint8_t b[2072];
    pcq_strings s;
    pcq_string_entry e;
    pcq_error err;
    size_t i;
    int rc;

    memset(b, 0, sizeof b);
    tl_put32le(b, 40);
    tl_put32le(b + 4, 1);
    tl_put32le(b + 8, 1);
    tl_put32le(b + 12, 16);
    for (i = 16; i < 38; i += 2) b[i] = 'a'; /* 11 units, then the NUL at 38 */
    rc = pcq_decode_strings(b, 40, NULL, &s, &err);
    TL_CHECK(rc == PCQ_OK && s.convention == PCQ_STROFF_WIN32 && pcq_strings_get(&s, 0, &e) == PCQ_OK &&
                 e.text_offset == 16 && e.text.len == 22,
             "both readings hold: %s, convention %d", pcq_status_name(rc),
             rc == PCQ_OK ? (int)s.convention : -1);
    TL_CHECK(pcq_decode_strings(b, 40, NULL, NULL, NULL) == PCQ_OK, "the same without an out-parameter");

    memset(b, 0, sizeof b);
    tl_put32le(b, sizeof b);
    tl_put32le(b + 4, 257);
    for (i = 0; i < 257; i++) {
        tl_put32le(b + 8 + 8 * i, 0x01010101u);
        tl_put32le(b + 12 + 8 * i, i == 0 ? 2064u : 0xFFFFFFFFu); /* 2064: the area's end (8 + 257 x 8) */
    }
    memset(b + 2064, 1, 6); /* three U+0101, then the NUL */
    rc = pcq_decode_strings(b, sizeof b, NULL, &s, &err);
    TL_CHECK(rc == PCQ_OK && s.convention == PCQ_STROFF_WIN32 && pcq_strings_get(&s, 0, &e) == PCQ_OK &&
                 e.text_offset == 2064 && e.text.len == 6,
             "no NUL at an odd offset: %s at %zu", pcq_status_name(rc), err.offset);
    tl_put32le(b + 20, 2065u);
    rc = pcq_decode_strings(b, sizeof b, NULL, &s, &err);
    TL_CHECK(rc == PCQ_ERR_NO_NUL && err.offset == 2065, "a text at an odd offset: %s at %zu",
             pcq_status_name(rc), err.offset);
}

/* Walks buf as data (flags: 0 or PCQ_BULK) to its end; the last item
 * (the cut one after an error) into *last, the items into *n. */
static int walk_data(const uint8_t *buf, size_t len, unsigned flags, pcq_walk *w, pcq_item *last, size_t *n)
{
    pcq_opts o;
    pcq_item it;
    int rc;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    *n = 0;
    pcq_walk_begin(w, PCQ_KIND_DATA, buf, len, &o);
    while ((rc = pcq_walk_next(w, &it)) == 1) {
        *last = it;
        ++*n;
    }
    if (rc < 0) *last = it;
    return rc;
}

/* PCQ_BULK at its edges, each against the plain walk:
 * - a type 2 block cut inside its ids: the ids are drained ahead, the
 *   error comes as the plain walk gives it (code, offset, the cut item);
 * - at the end the walk stays there;
 * - a canonical value record at an offset that is not a multiple of 8 (the
 *   block before it has a 12-byte record): not values_fast, read right;
 * - an instance name of 40 bytes (its words between the first and the one
 *   before the last checked for a NUL too): the same name. */
static void test_bulk_edges(void)
{
    static uint8_t b[256];
    pcq_walk w, wb;
    pcq_item a, c;
    pcq_iter vals;
    uint64_t v[2];
    size_t k, na, nc;
    int ra, rc;

    memset(b, 0, sizeof b); /* type 2: 4 ids, 4 values */
    tl_put32le(b, 152);
    tl_put32le(b + 4, 1);
    tl_put32le(b + 52, 2);
    tl_put32le(b + 56, 104);
    tl_put32le(b + 64, 24);
    tl_put32le(b + 68, 4);
    for (k = 0; k < 4; k++) {
        tl_put32le(b + 72 + 4 * k, (uint32_t)k + 1);
        tl_put32le(b + 88 + 16 * k, 4);
        tl_put32le(b + 92 + 16 * k, 16);
        tl_put32le(b + 96 + 16 * k, (uint32_t)k * 10);
    }
    ra = walk_data(b, 82, 0, &w, &a, &na); /* cut in the third id */
    rc = walk_data(b, 82, PCQ_BULK, &wb, &c, &nc);
    TL_CHECK(ra == PCQ_ERR_TRUNCATED && rc == ra && w.err.offset == 80 && wb.err.offset == 80 &&
                 a.type == PCQ_S_COUNTER_ID && c.type == a.type && c.offset == a.offset && c.partial &&
                 a.partial,
             "cut in the ids: %s at %zu, bulk %s at %zu", pcq_status_name(ra), w.err.offset,
             pcq_status_name(rc), wb.err.offset);
    rc = walk_data(b, 152, PCQ_BULK, &wb, &c, &nc);
    TL_CHECK(rc == 0 && nc == 3 && c.type == PCQ_S_MULTI_COUNTERS && c.nvalues == 4 && c.values_fast,
             "bulk: %s, %zu items, the last with %u values", pcq_status_name(rc), nc, c.nvalues);
    TL_CHECK(pcq_walk_next(&wb, &c) == 0 && pcq_walk_next(&wb, &c) == 0, "bulk: the walk stays at its end");

    memset(b, 0, sizeof b); /* type 1, a 4-byte value in a 12-byte record; type 1, a canonical record */
    tl_put32le(b, 108);
    tl_put32le(b + 4, 2);
    tl_put32le(b + 52, 1);
    tl_put32le(b + 56, 28);
    tl_put32le(b + 64, 4);
    tl_put32le(b + 68, 12);
    tl_put32le(b + 72, 7);
    tl_put32le(b + 80, 1);
    tl_put32le(b + 84, 32);
    tl_put32le(b + 92, 8);
    tl_put32le(b + 96, 16);
    tl_put32le(b + 100, 9);
    rc = walk_data(b, 108, PCQ_BULK, &wb, &c, &nc);
    if (TL_CHECK(rc == 0 && nc == 3 && c.type == PCQ_S_COUNTER_HEADER && c.offset == 76 && c.values == 92 &&
                     c.nvalues == 1 && !c.values_fast,
                 "an unaligned record: %s, values at %zu, fast %d", pcq_status_name(rc), c.values,
                 c.values_fast)) {
        pcq_item_values(&wb, &c, &vals);
        TL_CHECK(pcq_values_read_u64(&vals, v, 2) == 1 && v[0] == 9, "its value read");
    }

    memset(b, 0, sizeof b); /* type 6, one counter, one instance of a 20-unit name */
    tl_put32le(b, 160);
    tl_put32le(b + 4, 1);
    tl_put32le(b + 52, 6);
    tl_put32le(b + 56, 112);
    tl_put32le(b + 64, 16);
    tl_put32le(b + 68, 1);
    tl_put32le(b + 72, 5);  /* the counter id, 4 bytes of padding */
    tl_put32le(b + 80, 80); /* _PERF_MULTI_INSTANCES */
    tl_put32le(b + 84, 1);
    tl_put32le(b + 88, 56); /* Size: 8 + 40 + 2, padded */
    tl_put32le(b + 92, 3);
    for (k = 0; k < 20; k++) b[96 + 2 * k] = (uint8_t)('a' + k);
    tl_put32le(b + 144, 4);
    tl_put32le(b + 148, 16);
    tl_put32le(b + 152, 77);
    ra = walk_data(b, 160, 0, &w, &a, &na);
    rc = walk_data(b, 160, PCQ_BULK, &wb, &c, &nc);
    TL_CHECK(ra == 0 && rc == 0 && a.type == PCQ_S_COUNTER_DATA && c.type == PCQ_S_DATA_INSTANCE &&
                 c.u.data_instance.name.len == 40 && c.u.data_instance.name.ptr == b + 96 && c.values_fast &&
                 c.nvalues == 1,
             "a 40-byte name in bulk: %s %s, name %zu bytes", pcq_status_name(ra), pcq_status_name(rc),
             c.u.data_instance.name.len);
}

/* A type 4 block of n instances (a 2-unit name, its NUL and 2 bytes of
 * padding, a 16-byte record of an 8-byte value: 32 bytes each) in b: the
 * buffer's length. */
static size_t runs_buffer(uint8_t *b, uint32_t n)
{
    size_t len = 72 + 32 * (size_t)n, at;
    uint32_t i;
    memset(b, 0, len);
    tl_put32le(b, (uint32_t)len);
    tl_put32le(b + 4, 1);
    tl_put32le(b + 52, 4);                    /* PERF_MULTI_INSTANCES */
    tl_put32le(b + 56, (uint32_t)(len - 48)); /* dwSize */
    tl_put32le(b + 64, (uint32_t)(len - 64)); /* _PERF_MULTI_INSTANCES.dwTotalSize */
    tl_put32le(b + 68, n);                    /* dwInstances */
    for (i = 0, at = 72; i < n; i++, at += 32) {
        tl_put32le(b + at, 16);    /* Size: header, 3 units and the NUL */
        tl_put32le(b + at + 4, i); /* InstanceId */
        b[at + 8] = 'a';
        b[at + 10] = (uint8_t)('a' + i % 26);
        tl_put32le(b + at + 16, 8);        /* dwDataSize */
        tl_put32le(b + at + 20, 16);       /* dwSize */
        tl_put32le(b + at + 24, 1000 + i); /* the value */
    }
    return len;
}

/* The instances of a walk of b, as offsets and name lengths, by the
 * header's inline step or (every other call, by_call) the function. */
static int runs_walk(const uint8_t *b, size_t len, unsigned flags, int by_call, uint32_t nv, size_t *off,
                     size_t *name, uint32_t *idx, size_t *n, pcq_walk *w)
{
    pcq_opts o;
    pcq_item it;
    int rc, turn = 0;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    *n = 0;
    pcq_walk_begin(w, PCQ_KIND_DATA, b, len, &o);
    while ((rc = by_call && turn++ % 2 ? (pcq_walk_next)(w, &it) : pcq_walk_next(w, &it)) == 1)
        if (it.type == PCQ_S_DATA_INSTANCE && *n < 80) {
            TL_CHECK(!(flags & PCQ_BULK) || (it.nvalues == nv && it.values == it.offset + 16),
                     "instance at %zu: %u values at %zu", it.offset, it.nvalues, it.values);
            off[*n] = it.offset;
            name[*n] = it.u.data_instance.name.len;
            idx[*n] = it.index;
            ++*n;
        }
    return rc;
}

/* PCQ_BULK checks up to 64 canonical instances at once and yields them
 * inline (pcq_walk_next_fast_): the same instances as the plain walk, by
 * the macro or the function in turn, across a run's end (70 instances),
 * with a non-canonical instance in the middle of a run (padding after its
 * NUL: the rest one at a time) and with an error after the first run (the
 * same error at the same offset). */
static void test_bulk_runs(void)
{
    static uint8_t b[72 + 32 * 70];
    size_t len = runs_buffer(b, 70), oa[80], ob[80], na[80], nb[80], ka, kb, k;
    uint32_t ia[80], ib[80];
    pcq_walk w, wb;
    int ra, rb, pass;

    for (pass = 0; pass < 3; pass++) {
        if (pass == 1) b[72 + 32 * 5 + 14] = 1; /* instance 5: a padding byte not 0 (a diagnostic) */
        if (pass == 2) tl_put32le(b + 72 + 32 * 66, 0x1000); /* instance 66: Size past the block */
        ra = runs_walk(b, len, 0, 0, 1, oa, na, ia, &ka, &w);
        rb = runs_walk(b, len, PCQ_BULK, pass == 0, 1, ob, nb, ib, &kb, &wb);
        TL_CHECK(ra == rb && ka == kb && ka == (pass == 2 ? 66u : 70u) && w.err.offset == wb.err.offset,
                 "pass %d: %s, %zu instances; bulk %s, %zu", pass, pcq_status_name(ra), ka,
                 pcq_status_name(rb), kb);
        for (k = 0; k < ka && k < kb; k++)
            if (!TL_CHECK(oa[k] == ob[k] && na[k] == nb[k] && ia[k] == ib[k] && nb[k] == 4,
                          "pass %d, instance %zu: at %zu, %zu, bulk at %zu, %zu", pass, k, oa[k], na[k],
                          ob[k], nb[k]))
                break;
    }

    /* bytes changed during a run (a buffer shared with a writer): the next
     * instance's Size set past the block after the run was checked; the walk
     * reads nothing outside what it checked and reports what the checks find,
     * as the plain walk of the changed bytes does, by the macro or the function */
    len = runs_buffer(b, 70);
    tl_put32le(b + 72 + 32 * 3, 0x1000);
    ra = runs_walk(b, len, 0, 0, 1, oa, na, ia, &ka, &w);
    for (pass = 0; pass < 2; pass++) {
        pcq_opts o;
        pcq_item it;
        memset(&o, 0, sizeof o);
        o.flags = PCQ_BULK;
        len = runs_buffer(b, 70);
        pcq_walk_begin(&wb, PCQ_KIND_DATA, b, len, &o);
        kb = 0;
        while ((rb = pass ? (pcq_walk_next)(&wb, &it) : pcq_walk_next(&wb, &it)) == 1)
            if (it.type == PCQ_S_DATA_INSTANCE && ++kb == 1) tl_put32le(b + 72 + 32 * 3, 0x1000);
        TL_CHECK(ra == PCQ_ERR_TRUNCATED && rb == ra && ka == 3 && kb == 3 && wb.err.offset == w.err.offset,
                 "changed in a run, %s: %s at %zu, %zu instances; bulk %s at %zu, %zu",
                 pass ? "by the function" : "by the macro", pcq_status_name(ra), w.err.offset, ka,
                 pcq_status_name(rb), wb.err.offset, kb);
    }

    /* changed so that an instance ends where the run ends, at the input's end, with
     * one instance of the run left: no read there (an exact heap copy, for ASan);
     * the walk ends in an error, by the macro or the function */
    for (pass = 0; pass < 2; pass++) {
        pcq_opts o;
        pcq_item it;
        size_t n3 = runs_buffer(b, 3);
        uint8_t *h = (uint8_t *)malloc(n3);
        if (!TL_CHECK(h != NULL, "malloc")) break;
        memcpy(h, b, n3);
        memset(&o, 0, sizeof o);
        o.flags = PCQ_BULK;
        pcq_walk_begin(&wb, PCQ_KIND_DATA, h, n3, &o);
        kb = 0;
        while ((rb = pass ? (pcq_walk_next)(&wb, &it) : pcq_walk_next(&wb, &it)) == 1)
            if (it.type == PCQ_S_DATA_INSTANCE && ++kb == 1)
                tl_put32le(h + 104, 48); /* 104 + 48 + 16: the end */
        TL_CHECK(rb < 0 && kb == 2, "an instance to the run's end, %s: %s after %zu instances",
                 pass ? "by the function" : "by the macro", pcq_status_name(rb), kb);
        free(h);
    }

    /* a type 6 block of 256 counters: an instance of 4,112 bytes, more than a
     * run's 4 KiB, so runs of one instance */
    {
        static uint8_t c[13440];
        size_t at = 1104;
        uint32_t i, j;
        memset(c, 0, sizeof c);
        tl_put32le(c, sizeof c);
        tl_put32le(c + 4, 1);
        tl_put32le(c + 52, 6);             /* PERF_COUNTERSET */
        tl_put32le(c + 56, sizeof c - 48); /* dwSize */
        tl_put32le(c + 64, 1032);          /* _PERF_MULTI_COUNTERS.dwSize: 8 + 4 x 256 */
        tl_put32le(c + 68, 256);           /* dwCounters */
        for (j = 0; j < 256; j++) tl_put32le(c + 72 + 4 * j, j + 1);
        tl_put32le(c + 1096, sizeof c - 1096); /* _PERF_MULTI_INSTANCES.dwTotalSize */
        tl_put32le(c + 1100, 3);               /* dwInstances */
        for (i = 0; i < 3; i++, at += 4112) {
            tl_put32le(c + at, 16);
            tl_put32le(c + at + 4, i);
            c[at + 8] = 'w';
            c[at + 10] = (uint8_t)('0' + i);
            for (j = 0; j < 256; j++) {
                tl_put32le(c + at + 16 + 16 * j, 4);
                tl_put32le(c + at + 20 + 16 * j, 16);
                tl_put32le(c + at + 24 + 16 * j, i * 1000 + j);
            }
        }
        ra = runs_walk(c, sizeof c, 0, 0, 256, oa, na, ia, &ka, &w);
        for (pass = 0; pass < 2; pass++) {
            rb = runs_walk(c, sizeof c, PCQ_BULK, pass, 256, ob, nb, ib, &kb, &wb);
            TL_CHECK(ra == 0 && rb == 0 && ka == 3 && kb == 3 && ob[2] == 1104 + 2 * 4112 && nb[2] == 4 &&
                         ib[2] == 2,
                     "256 counters, %s: %s, %zu instances; bulk %s, %zu, the last at %zu",
                     pass ? "by the function in turn" : "by the macro", pcq_status_name(ra), ka,
                     pcq_status_name(rb), kb, kb == 3 ? ob[2] : 0);
        }
    }
}

/* The five block types in turn, canonical (each as PCQ_BULK takes a
 * canonical block whole: a run of blocks, brun_start), 384 bytes:
 *    48 type 0, its header only;
 *    64 type 1, one 8-byte value (record at 80);
 *    96 type 2, _PERF_MULTI_COUNTERS at 112 (ids 1, 2), values at 128, 144;
 *   160 type 4, _PERF_MULTI_INSTANCES at 176, instances at 184, 216
 *       (Size 16: name "a" or "b"), each with its value after it;
 *   248 type 6, _PERF_MULTI_COUNTERS at 264 (ids 3, 4), _PERF_MULTI_INSTANCES
 *       at 280, instances at 288, 336, each with two values. */
static size_t five_types(uint8_t *b)
{
    size_t k, j, at;
    memset(b, 0, 384);
    tl_put32le(b, 384);
    tl_put32le(b + 4, 5);
    tl_put32le(b + 56, 16); /* type 0 */
    tl_put32le(b + 68, 1);  /* type 1 */
    tl_put32le(b + 72, 32);
    tl_put32le(b + 80, 8);
    tl_put32le(b + 84, 16);
    tl_put32le(b + 88, 1001);
    tl_put32le(b + 100, 2); /* type 2 */
    tl_put32le(b + 104, 64);
    tl_put32le(b + 112, 16);
    tl_put32le(b + 116, 2);
    tl_put32le(b + 120, 1);
    tl_put32le(b + 124, 2);
    for (k = 0; k < 2; k++) {
        tl_put32le(b + 128 + 16 * k, 4);
        tl_put32le(b + 132 + 16 * k, 16);
        tl_put32le(b + 136 + 16 * k, 2000 + (uint32_t)k);
    }
    tl_put32le(b + 164, 4); /* type 4 */
    tl_put32le(b + 168, 88);
    tl_put32le(b + 176, 72);
    tl_put32le(b + 180, 2);
    for (k = 0, at = 184; k < 2; k++, at += 32) {
        tl_put32le(b + at, 16);
        tl_put32le(b + at + 4, (uint32_t)k);
        b[at + 8] = (uint8_t)('a' + k);
        tl_put32le(b + at + 16, 8);
        tl_put32le(b + at + 20, 16);
        tl_put32le(b + at + 24, 4000 + (uint32_t)k);
    }
    tl_put32le(b + 252, 6); /* type 6 */
    tl_put32le(b + 256, 136);
    tl_put32le(b + 264, 16);
    tl_put32le(b + 268, 2);
    tl_put32le(b + 272, 3);
    tl_put32le(b + 276, 4);
    tl_put32le(b + 280, 104);
    tl_put32le(b + 284, 2);
    for (k = 0, at = 288; k < 2; k++, at += 48) {
        tl_put32le(b + at, 16);
        tl_put32le(b + at + 4, (uint32_t)k);
        b[at + 8] = (uint8_t)('a' + k);
        for (j = 0; j < 2; j++) {
            tl_put32le(b + at + 16 + 16 * j, 4);
            tl_put32le(b + at + 20 + 16 * j, 16);
            tl_put32le(b + at + 24 + 16 * j, 6000 + 10 * (uint32_t)k + (uint32_t)j);
        }
    }
    return 384;
}

/* An item as the test compares it: where it is, and under PCQ_BULK its
 * values (read through pcq_item_values and summed). */
typedef struct bulk_rec {
    int type;
    unsigned depth;
    uint32_t index, nvalues;
    size_t offset, size, extent;
    uint64_t sum;
    uint64_t multi[2]; /* a _PERF_MULTI_COUNTERS's fields: dwSize, dwCounters; its ids' offset and bytes
                          (a _PERF_MULTI_INSTANCES's: dwTotalSize, dwInstances; a block header's: dwSize,
                          dwType, Reserved, dwStatus) */
} bulk_rec;

/* Walks buf (plain, or PCQ_BULK by the macro, the function (1) or both in
 * turn (2): the function in the middle of the macro's run); a plain
 * walk's COUNTER_ID and COUNTER_DATA items are folded into the item before
 * them, as PCQ_BULK folds them. Returns the walk's result. */
static int bulk_recs(const uint8_t *buf, size_t len, unsigned flags, int by_function, bulk_rec *r, size_t cap,
                     size_t *n, size_t *err_at)
{
    pcq_walk w;
    pcq_item it;
    pcq_opts o;
    int rc;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    *n = 0;
    pcq_walk_begin(&w, PCQ_KIND_DATA, buf, len, &o);
    while ((rc = by_function == 1 || (by_function == 2 && (*n & 1)) ? (pcq_walk_next)(&w, &it)
                                                                    : pcq_walk_next(&w, &it)) == 1) {
        if (it.type == PCQ_S_COUNTER_ID) continue;
        if (it.type == PCQ_S_COUNTER_DATA) {
            if (*n) {
                r[*n - 1].nvalues++;
                r[*n - 1].sum += it.u.value.u64;
            }
            continue;
        }
        if (*n == cap) return -100;
        r[*n].type = it.type;
        r[*n].depth = it.depth;
        r[*n].index = it.index;
        r[*n].offset = it.offset;
        r[*n].size = it.size;
        r[*n].extent = it.extent;
        r[*n].nvalues = 0;
        r[*n].sum = 0;
        r[*n].multi[0] = r[*n].multi[1] = 0;
        if (it.type == PCQ_S_MULTI_COUNTERS) {
            r[*n].multi[0] = (uint64_t)it.u.multi.count << 32 | it.u.multi.size;
            r[*n].multi[1] = (uint64_t)it.u.multi.ids.len << 32 | (uint64_t)(it.u.multi.ids.ptr - buf);
        } else if (it.type == PCQ_S_MULTI_INSTANCES) {
            r[*n].multi[0] = (uint64_t)it.u.instances.count << 32 | it.u.instances.size;
        } else if (it.type == PCQ_S_COUNTER_HEADER) {
            r[*n].multi[0] = (uint64_t)it.u.block.type << 32 | it.u.block.size;
            r[*n].multi[1] = (uint64_t)it.u.block.status << 32 | it.u.block.reserved;
        }
        if (flags & PCQ_BULK) {
            pcq_iter vals;
            uint64_t v[8];
            size_t k, m;
            pcq_item_values(&w, &it, &vals);
            while ((m = pcq_values_read_u64(&vals, v, 8)) > 0)
                for (k = 0; k < m; k++) {
                    r[*n].nvalues++;
                    r[*n].sum += v[k];
                }
        }
        ++*n;
    }
    if (err_at) *err_at = rc < 0 ? w.err.offset : 0;
    return rc;
}

static const char *const bulk_how[3] = {"by the macro", "by the function", "by both in turn"};

/* PCQ_BULK's walk (c, rb, nb items, eb: the error's offset) gave the plain
 * walk's (a, ra, na, ea): its result, its items and their values. */
static void bulk_same(int pass, int fn, int a, const bulk_rec *ra, size_t na, size_t ea, int c,
                      const bulk_rec *rb, size_t nb, size_t eb)
{
    size_t k;
    if (!TL_CHECK(c == a && nb == na && eb == ea, "pass %d, %s: %s at %zu, %zu items; plain %s at %zu, %zu",
                  pass, bulk_how[fn], pcq_status_name(c), eb, nb, pcq_status_name(a), ea, na))
        return;
    for (k = 0; k < na; k++)
        if (!TL_CHECK(ra[k].type == rb[k].type && ra[k].depth == rb[k].depth && ra[k].index == rb[k].index &&
                          ra[k].offset == rb[k].offset && ra[k].size == rb[k].size &&
                          ra[k].extent == rb[k].extent && ra[k].nvalues == rb[k].nvalues &&
                          ra[k].sum == rb[k].sum && ra[k].multi[0] == rb[k].multi[0] &&
                          ra[k].multi[1] == rb[k].multi[1],
                      "pass %d, %s, item %zu: type %d d%u i%u @%zu +%zu ext %zu, %u values (sum %llu); "
                      "bulk: type %d d%u i%u @%zu +%zu ext %zu, %u values (sum %llu)",
                      pass, bulk_how[fn], k, ra[k].type, ra[k].depth, ra[k].index, ra[k].offset, ra[k].size,
                      ra[k].extent, ra[k].nvalues, (unsigned long long)ra[k].sum, rb[k].type, rb[k].depth,
                      rb[k].index, rb[k].offset, rb[k].size, rb[k].extent, rb[k].nvalues,
                      (unsigned long long)rb[k].sum))
            return;
}

/* PCQ_BULK takes a canonical block whole (no body frame for types 0 and 1;
 * a type 2 block's _PERF_MULTI_COUNTERS and a type 4 block's
 * _PERF_MULTI_INSTANCES left for the inline step; a type 4 or 6 block's
 * instances one run): the same items (those two's fields too), values and
 * end
 * as the plain walk, by the macro or the function, on the five types in
 * turn; with one instance's padding not zero (a diagnostic: that block is
 * not canonical), on the parsers' path for that block alone; and with the
 * block after the type 4 block's instances (the type 6 block) claiming
 * more bytes than the buffer has, the error the plain walk gives there (a
 * canonical block's instances end straight into the next block's step,
 * bulk_done). */
static void test_bulk_blocks(void)
{
    static uint8_t b[384];
    bulk_rec ra[40], rb[40];
    size_t len, na, nb, ea, eb;
    int a, c, pass, fn;

    for (pass = 0; pass < 3; pass++) {
        len = five_types(b);
        if (pass == 1) b[184 + 32 + 12] = 1; /* the type 4 block's second instance: padding after its NUL */
        if (pass == 2) tl_put32le(b + 256, 144); /* the type 6 block's dwSize: 8 bytes past the buffer */
        a = bulk_recs(b, len, 0, 0, ra, 40, &na, &ea);
        TL_CHECK(pass == 2 ? a == PCQ_ERR_TRUNCATED && na == 9 && ea == 256 : a == 0 && na == 14,
                 "pass %d: the plain walk %s at %zu, %zu items", pass, pcq_status_name(a), ea, na);
        for (fn = 0; fn < 3; fn++) {
            c = bulk_recs(b, len, PCQ_BULK, fn, rb, 40, &nb, &eb);
            bulk_same(pass, fn, a, ra, na, ea, c, rb, nb, eb);
        }
    }
    /* the values where the layout puts them (pass 0, walked again): type 1 1001; type 2 2000 + 2001; the
     * type 6 block's second instance 6010 + 6011 */
    len = five_types(b);
    c = bulk_recs(b, len, PCQ_BULK, 0, rb, 40, &nb, NULL);
    TL_CHECK(c == 0 && nb == 14 && rb[2].type == PCQ_S_COUNTER_HEADER && rb[2].sum == 1001 &&
                 rb[4].sum == 4001 && rb[13].type == PCQ_S_DATA_INSTANCE && rb[13].offset == 336 &&
                 rb[13].sum == 12021,
             "the values: %llu, %llu, %llu", (unsigned long long)rb[2].sum, (unsigned long long)rb[4].sum,
             (unsigned long long)rb[13].sum);
}

/* A run of canonical blocks (brun_start) holds up to 64 blocks in 4 KiB,
 * taken inline with no frame for each: five_types' five blocks 40 times
 * over (200 blocks of 0, 1, 2, 4 and 6 in turn, 13,488 bytes), walked with
 * PCQ_BULK by the macro, the function and both in turn, give the plain
 * walk's items, values and end (runs end at 64 blocks, at 4 KiB and at the
 * list's end); with block 130's Reserved not 0 (a diagnostic: not
 * canonical, a run ends before it and the next begins after it); and with
 * block 197's dwSize past the input (the plain walk's error, offset and
 * items: the last run ends before it). */
static void test_bulk_many_blocks(void)
{
    enum {
        NB = 200,
        GROUP = 336,
        CAP = 600
    };
    static const size_t off[5] = {0, 16, 48, 112, 200}; /* five_types' blocks, from 48 */
    static uint8_t one[384], b[48 + NB / 5 * GROUP];
    static bulk_rec ra[CAP], rb[CAP];
    size_t len = sizeof b, na, nb, ea, eb, j;
    int a, c, pass, fn;

    five_types(one);
    for (pass = 0; pass < 3; pass++) {
        memcpy(b, one, 48);
        tl_put32le(b, (uint32_t)len);
        tl_put32le(b + 4, NB);
        for (j = 0; j < NB / 5; j++) memcpy(b + 48 + j * GROUP, one + 48, GROUP);
        j = 48 + (130 / 5) * GROUP + off[130 % 5];
        if (pass == 1) tl_put32le(b + j + 12, 1); /* Reserved */
        j = 48 + (197 / 5) * GROUP + off[197 % 5];
        if (pass == 2) tl_put32le(b + j + 8, 0x10000); /* dwSize */
        a = bulk_recs(b, len, 0, 0, ra, CAP, &na, &ea);
        TL_CHECK(pass == 2 ? a == PCQ_ERR_TRUNCATED && ea == j + 8 && na == 1 + 39 * 13 + 2
                           : a == 0 && na == 521,
                 "many blocks, pass %d: the plain walk %s at %zu, %zu items", pass, pcq_status_name(a), ea,
                 na);
        for (fn = 0; fn < 3; fn++) {
            c = bulk_recs(b, len, PCQ_BULK, fn, rb, CAP, &nb, &eb);
            bulk_same(pass, fn, a, ra, na, ea, c, rb, nb, eb);
        }
    }
}

/* PCQ_BULK reads a canonical block's _PERF_MULTI_COUNTERS and
 * _PERF_MULTI_INSTANCES again after its header item: bytes changed in
 * between (a buffer shared with a writer) are held inside the block, and
 * the walk ends in the error the plain walk of the changed bytes gives, at
 * the same offset, reading nothing outside the input (an exact heap copy,
 * for ASan and valgrind): a type 2 block's dwCounters, a type 4 block's
 * dwTotalSize, a type 6 block's _PERF_MULTI_COUNTERS.dwSize, each set past
 * the input once the block's header item is out; that block's
 * _PERF_MULTI_INSTANCES' dwTotalSize and dwInstances once its
 * _PERF_MULTI_COUNTERS item is out (the inline step left it for the next
 * item too); and the Size of the last
 * instance of a run that ends the input (the same error), or of its first
 * (an error: the inline step has yielded that instance as its bytes read
 * inside the run, where the plain walk stops at it); and, the blocks being
 * checked as one run before the first one's item (brun_start), a later
 * block's dwSize, dwType, dwInstances or _PERF_MULTI_COUNTERS.dwSize once
 * an earlier block's header item is out (the same error). */
static void test_bulk_blocks_changed(void)
{
    static const struct {
        size_t block, field; /* field changes after the item at block (a header, a _PERF_MULTI_COUNTERS) */
        uint32_t value;
        int same; /* the plain walk's error and offset (0: an error; an instance already yielded is not
                     taken back: the inline step reads an instance's bytes as they are, inside its run) */
    } cases[] = { /* a block later in the run of blocks than the header item just out (the run checked it
                    * before that item, and reads its fields again when it is next): the type 2 block's
                    * dwSize past the input, the type 4 block's dwType not a type, its dwInstances one more,
                    * the type 6 block's _PERF_MULTI_COUNTERS.dwSize past the input */
                 {48, 104, 0x1000, 1},
                 {64, 164, 7, 1},
                 {48, 180, 3, 1},
                 {48, 264, 0x1000, 1},
                 {96, 116, 1000, 1},
                 {160, 176, 0x10000, 1},
                 {248, 264, 0x1000, 1},
                 /* after the type 6 block's _PERF_MULTI_COUNTERS item (at 264): its
                   * _PERF_MULTI_INSTANCES' dwTotalSize past the input, its dwInstances one more */
                 {264, 280, 0x1000, 1},
                 {264, 284, 3, 1},
                 /* its dwCounters 1 after its header item: a _PERF_MULTI_COUNTERS canonical again (dwSize
                   * 16 fits one id), read as it is now; its instances then hold a value too many */
                 {248, 268, 1, 0},
                 /* the last instance of the input's last run 8 bytes longer: its values would pass the
                   * input's end (the inline step's bound, pcq_walk_run_item_) */
                 {248, 336, 24, 1},
                 /* the first 8 bytes longer: the next one less than an instance from the run's end */
                 {248, 288, 24, 0},
                 /* the type 6 block, the run's last, one instance fewer before its header item: its
                    * run takes one and ends 48 bytes before the block, which the run's end must not
                    * take for the block's end (brun_next: the plain walk's error) */
                 {48, 284, 1, 1}};
    static uint8_t b[384];
    size_t len = five_types(b), k, n, err_at;
    pcq_walk w;
    pcq_item it, last;
    pcq_opts o;
    pcq_iter vals;
    uint64_t v[8];
    int pass, rc, plain;

    for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (pass = 0; pass < 2; pass++) {
            uint8_t *h = (uint8_t *)malloc(len);
            if (!TL_CHECK(h != NULL, "malloc")) return;
            memcpy(h, b, len);
            tl_put32le(h + cases[k].field, cases[k].value);
            plain = walk_data(h, len, 0, &w, &last, &n); /* the plain walk of the changed bytes */
            err_at = w.err.offset;
            memcpy(h, b, len);
            memset(&o, 0, sizeof o);
            o.flags = PCQ_BULK;
            pcq_walk_begin(&w, PCQ_KIND_DATA, h, len, &o);
            while ((rc = pass ? (pcq_walk_next)(&w, &it) : pcq_walk_next(&w, &it)) == 1) {
                if ((it.type == PCQ_S_COUNTER_HEADER || it.type == PCQ_S_MULTI_COUNTERS) &&
                    it.offset == cases[k].block)
                    tl_put32le(h + cases[k].field, cases[k].value);
                pcq_item_values(&w, &it, &vals); /* every value read: none outside the input */
                while (pcq_values_read_u64(&vals, v, 8) > 0) continue;
            }
            TL_CHECK(plain < 0 && rc < 0 && (!cases[k].same || (rc == plain && w.err.offset == err_at)),
                     "field at %zu changed after the item at %zu, %s: %s at %zu; the plain walk %s at %zu",
                     cases[k].field, cases[k].block, pass ? "by the function" : "by the macro",
                     pcq_status_name(rc), w.err.offset, pcq_status_name(plain), err_at);
            free(h);
        }
}

/* Diagnostics as the decoder reports them, up to 8. */
typedef struct diag_list {
    size_t n, offset[8];
    int code[8];
} diag_list;

static void keep_diag(void *ctx, const pcq_diag *d)
{
    diag_list *l = (diag_list *)ctx;
    if (l->n < 8) {
        l->code[l->n] = d->code;
        l->offset[l->n] = d->offset;
    }
    l->n++;
}

/* Five blocks from offset 48: type 1 (32 bytes), type 2 with four counters
 * (104), type 1, type 2, type 1; block k's values are 10 k + j. Returns the
 * size; at[k] gets each block's offset. */
static size_t five_blocks(uint8_t *b, size_t at[5])
{
    size_t p = 48, k, j;
    memset(b, 0, 512);
    tl_put32le(b + 4, 5);
    for (k = 0; k < 5; k++) {
        at[k] = p;
        tl_put32le(b + p + 4, k % 2 ? 2 : 1);
        tl_put32le(b + p + 8, k % 2 ? 104 : 32);
        if (k % 2) { /* _PERF_MULTI_COUNTERS: 8 + four ids */
            tl_put32le(b + p + 16, 24);
            tl_put32le(b + p + 20, 4);
            for (j = 0; j < 4; j++) tl_put32le(b + p + 24 + 4 * j, 100 * (uint32_t)j + (uint32_t)k);
        }
        for (j = 0; j < (k % 2 ? 4u : 1u); j++) { /* 16-byte records, 8-byte values */
            size_t v = p + (k % 2 ? 40 : 16) + 16 * j;
            tl_put32le(b + v, 8);
            tl_put32le(b + v + 4, 16);
            tl_put32le(b + v + 8, (uint32_t)(10 * k + j));
        }
        p += k % 2 ? 104 : 32;
    }
    tl_put32le(b, (uint32_t)p);
    return p;
}

/* A type 4 block (nv 0: one value an instance) or a type 6 block (nv
 * counters) at `at`, of n instances named by their index (1 to 20
 * characters, so names end in every position of their last word), the
 * values 4 or 8 bytes in turn (records of 16): its size, and where
 * instance `want` is. b is zeroed. */
static size_t put_instances_block(uint8_t *b, size_t at, uint32_t type, uint32_t nv, uint32_t n, size_t want,
                                  size_t *want_at)
{
    size_t p = at + 16, mi, k, c, j, chars, size;
    uint32_t nval = type == 4 ? 1 : nv;
    tl_put32le(b + at + 4, type);
    if (type == 6) { /* _PERF_MULTI_COUNTERS: dwSize, dwCounters, the ids, padded to 8 */
        size = (8 + 4 * (size_t)nv + 7) & ~(size_t)7;
        tl_put32le(b + p, (uint32_t)size);
        tl_put32le(b + p + 4, nv);
        for (j = 0; j < nv; j++) tl_put32le(b + p + 8 + 4 * j, 10 + (uint32_t)j);
        p += size;
    }
    mi = p;
    p += 8;
    for (k = 0; k < n; k++) {
        chars = 1 + k % 20;
        if (k == want) *want_at = p;
        size = 8 + ((2 * (chars + 1) + 7) & ~(size_t)7); /* the header, the name and its NUL, padded */
        tl_put32le(b + p, (uint32_t)size);
        tl_put32le(b + p + 4, (uint32_t)k);
        for (c = 0; c < chars; c++) b[p + 8 + 2 * c] = (uint8_t)('a' + (k + c) % 26);
        p += size;
        for (j = 0; j < nval; j++, p += 16) {
            tl_put32le(b + p, (k + j) % 2 ? 4 : 8);
            tl_put32le(b + p + 4, 16);
            tl_put32le(b + p + 8, (uint32_t)(k * 7 + j));
        }
    }
    tl_put32le(b + mi, (uint32_t)(p - mi));
    tl_put32le(b + mi + 4, n);
    tl_put32le(b + at + 8, (uint32_t)(p - at));
    return p - at;
}

/* The walk of buf (plain, or PCQ_BULK by the macro, the function or both in
 * turn) as bulk_recs records it, as one number; *n items, *err_at the
 * error's offset. */
static int walk_digest(const uint8_t *buf, size_t len, unsigned flags, int by_function, uint64_t *h,
                       size_t *n, size_t *err_at)
{
    size_t cap = 200000, k;
    bulk_rec *r = (bulk_rec *)malloc(cap * sizeof *r);
    int rc;
    *h = 0;
    *n = 0;
    if (!r) return -101;
    rc = bulk_recs(buf, len, flags, by_function, r, cap, n, err_at);
    for (k = 0; k < *n; k++) {
        uint64_t f[8];
        size_t j;
        f[0] = (uint64_t)r[k].type;
        f[1] = r[k].depth;
        f[2] = r[k].index;
        f[3] = r[k].offset;
        f[4] = r[k].size;
        f[5] = r[k].extent;
        f[6] = r[k].nvalues;
        f[7] = r[k].sum;
        for (j = 0; j < 8; j++) *h = (*h ^ f[j]) * 0x100000001B3u;
    }
    free(r);
    return rc;
}

/* An input of PCQ_AHEAD_FROM bytes or more: validation and the single pass
 * read ahead (pcq_codec.c, "Reading ahead"), and must find what they find
 * in a smaller one. 2,000 groups of the five block types; type 6 blocks of
 * 5 counters (the loop of many values), 3 (two to four) and none; a type 4
 * block to the input's end (its last instances, less than PCQ_AHEAD
 * bytes from it, checked without reading ahead). The plain walk, PCQ_BULK
 * by the macro and by the function, and pcq_decode_data agree, on the
 * buffer and with one byte changed in each part (a diagnostic, errors),
 * on an exact heap copy. */
static void test_read_ahead(void)
{
    static uint8_t five[384];
    size_t blocks = five_types(five) - 48, len = 48, at[6], k, j, n[4], e[4];
    uint32_t nblocks = 0;
    uint8_t *b = (uint8_t *)calloc(6u << 20, 1), *c;
    uint64_t h[4];
    pcq_data d;
    pcq_error err;
    int rc[4], drc;
    /* what changes: at[k] + off (at[0]: group 1000; the others: an instance of each big block) */
    const struct {
        size_t off;
        uint32_t value;
        const char *what;
    } changes[6] = {{184 - 48 + 32 + 12, 1, "padding after a NUL, in group 1000"},
                    {16 + 4, 12, "a value's dwSize, in the 5-counter block"},
                    {16 + 16 + 4, 0, "a value's dwSize, in the 3-counter block"},
                    {0, 0x100, "an instance's Size, in the block of no counters"},
                    {0, 0x7FFFFF, "the last instance's Size"},
                    /* more than the bytes hold: the single pass's runs of the block's instances leave no
                     * room for the rest (the last ones are read without reading ahead) */
                    {16 + 4, 41000, "the last block's dwInstances, 1,000 more"}};
    if (!TL_CHECK(b != NULL, "6 MiB")) return;
    for (k = 0; k < 2000; k++, len += blocks, nblocks += 5) memcpy(b + len, five + 48, blocks);
    at[0] = 48 + 1000 * blocks;
    len += put_instances_block(b, len, 6, 5, 9000, 4000, &at[1]);
    len += put_instances_block(b, len, 6, 3, 12000, 9000, &at[2]);
    len += put_instances_block(b, len, 6, 0, 1000, 1, &at[3]);
    at[5] = len;
    len += put_instances_block(b, len, 4, 0, 40000, 39999, &at[4]);
    nblocks += 4;
    tl_put32le(b, (uint32_t)len);
    tl_put32le(b + 4, nblocks);
    /* past the default PCQ_AHEAD_FROM (4 MiB); built with another, the paths are compared all the same */
    if (!TL_CHECK(len >= (4u << 20) && len <= 6u << 20, "%zu bytes", len)) {
        free(b);
        return;
    }
    for (k = 1; k <= 3; k++)
        at[k] += (size_t)tl_ld32le(b + at[k]); /* past the instance's name, to its values */
    for (k = 0; k <= 6; k++) {
        size_t where = 0;
        c = (uint8_t *)malloc(len);
        if (!TL_CHECK(c != NULL, "a copy")) break;
        memcpy(c, b, len);
        if (k > 0) { /* change k - 1 */
            where = at[k - 1] + changes[k - 1].off;
            tl_put32le(c + where, changes[k - 1].value);
        }
        for (j = 0; j < 4; j++)
            rc[j] = walk_digest(c, len, j ? PCQ_BULK : 0, j ? (int)j - 1 : 0, &h[j], &n[j], &e[j]);
        drc = pcq_decode_data(c, len, NULL, &d, &err);
        for (j = 1; j < 4; j++)
            TL_CHECK(rc[0] == rc[j] && h[0] == h[j] && n[0] == n[j] && e[0] == e[j],
                     "%s (at %zu): plain %s at %zu, %zu items; PCQ_BULK %s: %s at %zu, %zu items",
                     k ? changes[k - 1].what : "as written", where, pcq_status_name(rc[0]), e[0], n[0],
                     bulk_how[j - 1], pcq_status_name(rc[j]), e[j], n[j]);
        TL_CHECK(drc == rc[0] && (drc == 0 || err.offset == e[0]), "%s: plain %s at %zu; decode %s at %zu",
                 k ? changes[k - 1].what : "as written", pcq_status_name(rc[0]), e[0], pcq_status_name(drc),
                 drc ? err.offset : 0);
        if (k == 0) TL_CHECK(rc[0] == 0 && n[0] > 80000, "as written: %zu items", n[0]);
        if (k >= 2) TL_CHECK(rc[0] < 0, "%s: an error", changes[k - 1].what);
        free(c);
    }
    free(b);
}

/* The reading of a single pass's values prefetches ahead of them, inside
 * the input only (pcq_item_ahead_): a type 6 block of five counters to the
 * input's end, its last instances' values ending at every distance from it
 * (20 to 39 instances, names of 1 to 20 characters), read by PCQ_BULK as
 * the plain walk reads them, on an exact heap copy. The default build reads
 * ahead only from 4 MiB on; make check-ahead reads ahead in every input,
 * each prefetch a read ASan checks. */
static void test_read_ahead_end(void)
{
    static uint8_t five[384];
    uint8_t *b;
    size_t len, at, n[3], e[3], j;
    uint32_t ni;
    uint64_t h[3];
    int rc[3];
    five_types(five);
    for (ni = 20; ni < 40; ni++) {
        if (!TL_CHECK((b = (uint8_t *)calloc(8192, 1)) != NULL, "8 KiB")) return;
        memcpy(b, five, 48);
        len = 48 + put_instances_block(b, 48, 6, 5, ni, 0, &at);
        tl_put32le(b, (uint32_t)len);
        tl_put32le(b + 4, 1);
        b = (uint8_t *)realloc(b, len); /* exact: a byte past it is ASan's */
        if (!TL_CHECK(b != NULL, "a copy")) return;
        for (j = 0; j < 3; j++)
            rc[j] = walk_digest(b, len, j ? PCQ_BULK : 0, j ? (int)j - 1 : 0, &h[j], &n[j], &e[j]);
        for (j = 1; j < 3; j++)
            TL_CHECK(rc[0] == 0 && rc[j] == 0 && h[0] == h[j] && n[j] == n[0] && n[0] > ni,
                     "%u instances, PCQ_BULK %s: %s, %zu items", (unsigned)ni, bulk_how[j - 1],
                     pcq_status_name(rc[j]), n[j]);
        free(b);
    }
}

/* A buffer that is not canonical in one block: the decoder passes the
 * canonical blocks around it whole (pass_blocks: the ones before it as
 * canonical_data found them), and must still report what the one block
 * breaks, and what follows from it (an offset that is no longer a multiple
 * of 8), exactly as the walk does (check_buffer: the decoder against the
 * walk, and every byte changed). */
static void test_pass_blocks(void)
{
    static uint8_t b[512];
    size_t at[5], len, k, n;
    pcq_opts o;
    pcq_data d;
    pcq_error err;
    pcq_walk w;
    pcq_item last;
    diag_list l;
    int rc, ra;

    memset(&o, 0, sizeof o);
    o.on_diag = keep_diag;
    o.ctx = &l;
    for (k = 1; k < 5; k++) { /* a non-zero Reserved in block k: one diagnostic, there */
        len = five_blocks(b, at);
        tl_put32le(b + at[k] + 12, 1);
        memset(&l, 0, sizeof l);
        rc = pcq_decode_data(b, len, &o, &d, &err);
        TL_CHECK(rc == PCQ_OK && l.n == 1 && l.code[0] == PCQ_DIAG_RESERVED && l.offset[0] == at[k] + 12,
                 "Reserved in block %zu: %s, %zu diagnostics, the first at %zu", k, pcq_status_name(rc), l.n,
                 l.offset[0]);
        o.flags = PCQ_STRICT;
        rc = pcq_decode_data(b, len, &o, &d, &err);
        o.flags = 0;
        TL_CHECK(rc == PCQ_ERR_NONCONFORMANT && err.offset == at[k] + 12, "strict, block %zu: %s at %zu", k,
                 pcq_status_name(rc), err.offset);
        check_buffer(PCQ_KIND_DATA, b, len, k == 2);
    }
    /* Block 1's last record 12 bytes (a 4-byte value, packed as Figure 7
     * draws it): blocks 2-4 are canonical but for where they start. */
    len = five_blocks(b, at);
    tl_put32le(b + at[1] + 88, 4);
    tl_put32le(b + at[1] + 92, 12);
    tl_put32le(b + at[1] + 8, 100);
    memmove(b + at[2] - 4, b + at[2], len - at[2]);
    len -= 4;
    tl_put32le(b, (uint32_t)len);
    memset(&l, 0, sizeof l);
    rc = pcq_decode_data(b, len, &o, &d, &err);
    /* every structure after it off 8: blocks 2 and 4 a header and a value, block 3 a header, its
     * _PERF_MULTI_COUNTERS and four values */
    TL_CHECK(rc == PCQ_OK && l.n == 10 && l.code[0] == PCQ_DIAG_UNALIGNED && l.offset[0] == at[2] - 4,
             "blocks after a 12-byte record: %s, %zu diagnostics, the first %d at %zu", pcq_status_name(rc),
             l.n, l.code[0], l.offset[0]);
    check_buffer(PCQ_KIND_DATA, b, len, 0);
    /* Block 4's dwType 3, after four canonical blocks: the walk's error. */
    len = five_blocks(b, at);
    tl_put32le(b + at[4] + 4, 3);
    rc = pcq_decode_data(b, len, NULL, &d, &err);
    ra = walk_data(b, len, 0, &w, &last, &n);
    TL_CHECK(rc < 0 && rc == ra && err.offset == w.err.offset && err.offset >= at[4] &&
                 err.offset < at[4] + 16,
             "a bad block after four: %s at %zu, the walk %s at %zu", pcq_status_name(rc), err.offset,
             pcq_status_name(ra), w.err.offset);
    check_buffer(PCQ_KIND_DATA, b, len, 0);

    /* Block 1's dwSize 12 more after decoding (block 0 not canonical, so the
     * iterators check): its four values, then 12 unused bytes, which the
     * values' iterator must report (not read as canonical records). */
    len = five_blocks(b, at);
    tl_put32le(b + at[0] + 12, 1);
    if (!TL_CHECK(pcq_decode_data(b, len, NULL, &d, NULL) == PCQ_OK, "Reserved in block 0 decodes")) return;
    tl_put32le(b + at[1] + 8, 104 + 12);
    for (k = 0; k < 2; k++) {
        pcq_iter blocks, vals;
        pcq_block blk;
        pcq_value v;
        pcq_data_blocks(&d, &blocks);
        pcq_blocks_next(&blocks, &blk);
        rc = pcq_blocks_next(&blocks, &blk);
        if (k)
            (pcq_block_values)(&d, &blk, &vals);
        else
            pcq_block_values(&d, &blk, &vals);
        for (n = 0; (ra = pcq_values_next(&vals, &v)) == 1; n++)
            ;
        TL_CHECK(rc == 1 && n == 4 && ra == PCQ_ERR_COUNT_MISMATCH && vals.err.offset == at[1] + 8,
                 "12 bytes after a block's values (%s): %zu values, then %s at %zu",
                 k ? "function" : "inline", n, pcq_status_name(ra), vals.err.offset);
    }

    /* A type 6 block of one instance and four counters whose last value
     * record (16 bytes) ends 8 bytes past the block (in the next block's
     * header): the instance is not taken as canonical, and the error is the
     * walk's. */
    memset(b, 0, sizeof b);
    tl_put32le(b, 200);
    tl_put32le(b + 4, 2);
    tl_put32le(b + 52, 6);
    tl_put32le(b + 56, 120); /* ends at 168, in the last value record */
    tl_put32le(b + 64, 24);  /* _PERF_MULTI_COUNTERS: four ids */
    tl_put32le(b + 68, 4);
    for (k = 0; k < 4; k++) tl_put32le(b + 72 + 4 * k, 5 + (uint32_t)k);
    tl_put32le(b + 88, 80); /* _PERF_MULTI_INSTANCES, to the block's end */
    tl_put32le(b + 92, 1);
    tl_put32le(b + 96, 16); /* the instance: "a", NUL, padding */
    b[104] = 'a';
    for (k = 0; k < 4; k++) { /* its values: 8 bytes, records of 16 */
        tl_put32le(b + 112 + 16 * k, 8);
        tl_put32le(b + 116 + 16 * k, 16);
    }
    tl_put32le(b + 172, 1); /* block 1 at 168: type 1, a canonical record */
    tl_put32le(b + 176, 32);
    tl_put32le(b + 184, 8);
    tl_put32le(b + 188, 16);
    rc = pcq_decode_data(b, 200, NULL, &d, &err);
    ra = walk_data(b, 200, 0, &w, &last, &n);
    TL_CHECK(rc < 0 && rc == ra && err.offset == w.err.offset,
             "a value past its block: %s at %zu, the walk %s", pcq_status_name(rc), err.offset,
             pcq_status_name(ra));
    check_buffer(PCQ_KIND_DATA, b, 200, 1);
}

int main(int argc, char **argv)
{
    const char *vectors = argc > 1 ? argv[1] : "vectors";
    char dir[1024];
    size_t n = 0;
    unsigned k;

    for (k = 1; k < PCQ_KIND_END_; k++) {
        snprintf(dir, sizeof dir, "%s/%s", vectors, kind_dirs[k]);
        n += run_dir(dir, (pcq_kind)k);
    }
    TL_CHECK(n > 100, "only %zu vectors found under %s", n, vectors);
    test_cut_reply(vectors);
    test_partial_item();
    test_string_texts();
    test_string_conventions();
    test_bulk_edges();
    test_bulk_runs();
    test_bulk_blocks();
    test_bulk_many_blocks();
    test_bulk_blocks_changed();
    test_read_ahead();
    test_read_ahead_end();
    test_pass_blocks();
    printf("test_walk: %zu vectors, their prefixes and mutations\n", n);
    return tl_finish();
}
