/* SPDX-License-Identifier: MIT */
/*
 * test_writer.c - pcq_writer and pcq_reencode against bytes written by hand.
 *
 * Every expected buffer below is spelled out in hex, one structure per line
 * with what it is, from [MS-PCQ] §2.2.4 / §3.1.4.1 and the canonical layout
 * of NOTES §2 (structures padded to 8 with zeros, sizes include the padding,
 * a value area of at least 8 bytes). Each case is then also checked as:
 *   - a sizing pass (dst == NULL) giving the same length;
 *   - every cap from 0 to needed-1: PCQ_ERR_BUFFER_TOO_SMALL with the size
 *     needed, the bytes below cap already final, nothing at or past cap
 *     touched (canary);
 *   - pcq_reencode of the expected bytes reproducing them exactly (also with
 *     every short cap).
 * Then the out-of-order sequences (PCQ_ERR_STATE), bad arguments, overflow
 * and limits.
 *
 * Build: cc -std=c99 -I. test/test_writer.c pcq_codec.c
 */
#include "pcq_codec.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

#define BUF_MAX 1024
#define CANARY  0xA5

/* ---- helpers ----------------------------------------------------------- */

/* Hex pairs, whitespace ignored. Returns the byte count; aborts the test
 * program on a malformed literal (a bug in this file, not in the writer). */
static size_t hex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;

    for (; *s != '\0'; s++) {
        int v;
        if (*s == ' ' || *s == '\n' || *s == '\t') continue;
        if (*s >= '0' && *s <= '9')
            v = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            v = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F')
            v = *s - 'A' + 10;
        else
            v = -1;
        if (v < 0 || (hi < 0 && n >= cap)) {
            printf("bad hex literal near \"%.16s\"\n", s);
            exit(2);
        }
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (uint8_t)(hi * 16 + v);
            hi = -1;
        }
    }
    if (hi >= 0) {
        printf("odd hex digit count\n");
        exit(2);
    }
    return n;
}

/* ASCII to UTF-16LE; returns the byte count (no NUL). */
static size_t u16(const char *ascii, uint8_t *out)
{
    size_t n = 0;

    for (; *ascii != '\0'; ascii++) {
        out[n++] = (uint8_t)*ascii;
        out[n++] = 0;
    }
    return n;
}

static void put_instance_a(pcq_writer *w, uint32_t id, const char *name)
{
    uint8_t b[64];
    pcq_put_instance(w, id, b, u16(name, b));
}

static void put_data_instance_a(pcq_writer *w, uint32_t id, const char *name)
{
    uint8_t b[64];
    pcq_put_data_instance(w, id, b, u16(name, b));
}

/* n instances for pcq_put_data_instances_u64: InstanceIds id0, id0 + 1, ...
 * and the ASCII names as UTF-16LE in buf (32 bytes each). */
static void instances_a(pcq_instance *inst, uint8_t (*buf)[32], const char *const *names, uint32_t n,
                        uint32_t id0)
{
    uint32_t i;
    memset(inst, 0, n * sizeof *inst);
    for (i = 0; i < n; i++) {
        inst[i].instance_id = id0 + i;
        inst[i].name.ptr = buf[i];
        inst[i].name.len = u16(names[i], buf[i]);
    }
}

static const pcq_guid guid_pcq = {/* da5a86c5-12c2-4943-ab30-7f74a813d853 */
                                  0xda5a86c5u,
                                  0x12c2,
                                  0x4943,
                                  {0xab, 0x30, 0x7f, 0x74, 0xa8, 0x13, 0xd8, 0x53}};
static const pcq_guid guid_proc = {/* b4fc721a-0378-476f-89ba-a5a79f810b36 */
                                   0xb4fc721au,
                                   0x0378,
                                   0x476f,
                                   {0x89, 0xba, 0xa5, 0xa7, 0x9f, 0x81, 0x0b, 0x36}};
#define HEX_GUID_PCQ  "c5 86 5a da c2 12 43 49 ab 30 7f 74 a8 13 d8 53"
#define HEX_GUID_PROC "1a 72 fc b4 78 03 6f 47 89 ba a5 a7 9f 81 0b 36"

/* The _PERF_DATA_HEADER every data case uses; its first 8 bytes
 * (dwTotalSize, dwNumCounter) are written out per case. */
static void begin_hdr(pcq_writer *w)
{
    pcq_data d;

    memset(&d, 0, sizeof d);
    d.perf_time_stamp = 0x12345678u;
    d.perf_time_100nsec = 0x01DA1B2C3D4E5F60u;
    d.perf_freq = 10000000u;
    d.system_time.year = 2024;
    d.system_time.month = 11;
    d.system_time.day_of_week = 4;
    d.system_time.day = 21;
    d.system_time.hour = 12;
    d.system_time.minute = 29;
    d.system_time.second = 30;
    d.system_time.milliseconds = 500;
    pcq_begin_data(w, &d);
}
#define HDR_TAIL                                                \
    "78 56 34 12 00 00 00 00" /* PerfTimeStamp 0x12345678 */    \
    "60 5f 4e 3d 2c 1b da 01" /* PerfTime100NSec */             \
    "80 96 98 00 00 00 00 00" /* PerfFreq 10 MHz */             \
    "e8 07 0b 00 04 00 15 00" /* SystemTime 2024-11 (Thu) 21 */ \
    "0c 00 1d 00 1e 00 f4 01" /* 12:29:30.500 */

/* ---- the cases: builder + hand-written bytes --------------------------- */

typedef void (*build_fn)(pcq_writer *w);

static void b_instance_ab(pcq_writer *w)
{
    put_instance_a(w, 1, "ab");
}
static const char x_instance_ab[] =
    "10 00 00 00 01 00 00 00"  /* _PERF_INSTANCE_HEADER: Size 16, InstanceId 1 */
    "61 00 62 00 00 00 00 00"; /* "ab", NUL, 2 bytes of padding */

/* Figure 3: names of 6 and 8 bytes (NUL included), both Size 16. */
static void b_fig3(pcq_writer *w)
{
    put_instance_a(w, 1, "ab");
    put_instance_a(w, 2, "abc");
}
static const char x_fig3[] = "10 00 00 00 01 00 00 00"  /* [0] Size 16, InstanceId 1 */
                             "61 00 62 00 00 00 00 00"  /* "ab" NUL, padding */
                             "10 00 00 00 02 00 00 00"  /* [1] Size 16, InstanceId 2 */
                             "61 00 62 00 63 00 00 00"; /* "abc" NUL, no padding */

/* Sizes that round up, an empty name, a surrogate pair with a 00 byte. */
static void b_instances_more(pcq_writer *w)
{
    static const uint8_t smile[] = {0x3d, 0xd8, 0x00, 0xde}; /* U+1F600 */
    put_instance_a(w, 3, "abcd");
    put_instance_a(w, 4, "");
    pcq_put_instance(w, 0xFFFFFFFFu, smile, sizeof smile);
}
static const char x_instances_more[] =
    "18 00 00 00 03 00 00 00"  /* Size 24 = 8 + 8 + 2 + 6, InstanceId 3 */
    "61 00 62 00 63 00 64 00"  /* "abcd" */
    "00 00 00 00 00 00 00 00"  /* NUL, 6 bytes of padding */
    "10 00 00 00 04 00 00 00"  /* Size 16, InstanceId 4 */
    "00 00 00 00 00 00 00 00"  /* "" NUL, padding */
    "10 00 00 00 ff ff ff ff"  /* Size 16, InstanceId 0xFFFFFFFF */
    "3d d8 00 de 00 00 00 00"; /* U+1F600 as a surrogate pair, NUL, padding */

/* Figure 2, both dwOffset conventions: names of 6 and 8 bytes (NUL included). */
static pcq_string_entry fig2_entries[2];
static uint8_t fig2_text[2][8];
static void fig2_setup(void)
{
    memset(fig2_entries, 0, sizeof fig2_entries);
    fig2_entries[0].counter_id = 0;
    fig2_entries[0].present = 1;
    fig2_entries[0].text.ptr = fig2_text[0];
    fig2_entries[0].text.len = u16("ab", fig2_text[0]);
    fig2_entries[1].counter_id = 2;
    fig2_entries[1].present = 1;
    fig2_entries[1].text.ptr = fig2_text[1];
    fig2_entries[1].text.len = u16("abc", fig2_text[1]);
}
static void b_fig2_spec(pcq_writer *w)
{
    fig2_setup();
    pcq_put_strings(w, fig2_entries, 2, PCQ_STROFF_SPEC);
}
static const char x_fig2_spec[] =
    "28 00 00 00 02 00 00 00"  /* _STRING_BUFFER_HEADER: dwSize 40, dwCounters 2 */
    "00 00 00 00 00 00 00 00"  /* [0] dwCounterId 0, dwOffset 0 (from the array end) */
    "02 00 00 00 06 00 00 00"  /* [1] dwCounterId 2, dwOffset 6 */
    "61 00 62 00 00 00 61 00"  /* "ab" NUL, "a... */
    "62 00 63 00 00 00 00 00"; /* ...bc" NUL, 2 bytes of padding */
static void b_fig2_win32(pcq_writer *w)
{
    fig2_setup();
    pcq_put_strings(w, fig2_entries, 2, PCQ_STROFF_WIN32);
}
static const char x_fig2_win32[] =
    "28 00 00 00 02 00 00 00"  /* dwSize 40, dwCounters 2 */
    "00 00 00 00 18 00 00 00"  /* [0] id 0, dwOffset 24 (from the block start) */
    "02 00 00 00 1e 00 00 00"  /* [1] id 2, dwOffset 30 */
    "61 00 62 00 00 00 61 00"  /* "ab" NUL, "a... */
    "62 00 63 00 00 00 00 00"; /* ...bc" NUL, padding */

/* An absent entry between two strings; NONE writes the Win32 convention. */
static void b_strings_absent(pcq_writer *w)
{
    uint8_t ab[8], x[4];
    pcq_string_entry e[3];

    memset(e, 0, sizeof e);
    e[0].counter_id = 1;
    e[0].present = 1;
    e[0].text.ptr = ab;
    e[0].text.len = u16("ab", ab);
    e[1].counter_id = 3;
    e[1].offset = 1234; /* ignored: offsets are computed */
    e[2].counter_id = 5;
    e[2].present = 1;
    e[2].text.ptr = x;
    e[2].text.len = u16("x", x);
    pcq_put_strings(w, e, 3, PCQ_STROFF_NONE);
}
static const char x_strings_absent[] = "30 00 00 00 03 00 00 00"  /* dwSize 48, dwCounters 3 */
                                       "01 00 00 00 20 00 00 00"  /* [0] id 1, dwOffset 32 */
                                       "03 00 00 00 ff ff ff ff"  /* [1] id 3, absent */
                                       "05 00 00 00 26 00 00 00"  /* [2] id 5, dwOffset 38 */
                                       "61 00 62 00 00 00 78 00"  /* "ab" NUL, "x" */
                                       "00 00 00 00 00 00 00 00"; /* NUL, 6 bytes of padding */

static void b_strings_empty(pcq_writer *w)
{
    pcq_put_strings(w, NULL, 0, PCQ_STROFF_NONE);
}
static const char x_strings_empty[] = "08 00 00 00 00 00 00 00"; /* dwSize 8, dwCounters 0 */

static void b_strings_all_absent(pcq_writer *w)
{
    pcq_string_entry e;
    memset(&e, 0, sizeof e);
    e.counter_id = 7;
    pcq_put_strings(w, &e, 1, PCQ_STROFF_SPEC);
}
static const char x_strings_all_absent[] = "10 00 00 00 01 00 00 00"  /* dwSize 16, dwCounters 1 */
                                           "07 00 00 00 ff ff ff ff"; /* id 7, absent */

/* Figure 4: identifiers with names of 6 and 8 bytes (NUL included), Size 48. */
static void b_fig4(pcq_writer *w)
{
    uint8_t n0[8], n1[8];
    pcq_identifier id;

    memset(&id, 0, sizeof id);
    id.guid = guid_pcq;
    id.counter_id = 3;
    id.instance_id = 1;
    id.size = 999; /* ignored: Size is computed */
    id.name.ptr = n0;
    id.name.len = u16("ab", n0);
    pcq_put_identifier(w, &id);
    id.status = 0x1068; /* ERROR_WMI_GUID_NOT_FOUND */
    id.counter_id = PCQ_WILDCARD_COUNTER;
    id.instance_id = 2;
    id.index = 1;
    id.reserved = 0x55; /* kept as given */
    id.name.ptr = n1;
    id.name.len = u16("abc", n1);
    pcq_put_identifier(w, &id);
}
static const char x_fig4[] = HEX_GUID_PCQ /* [0] CounterSetGuid */
    "00 00 00 00 30 00 00 00"             /* Status 0, Size 48 */
    "03 00 00 00 01 00 00 00"             /* CounterId 3, InstanceId 1 */
    "00 00 00 00 00 00 00 00"             /* Index 0, Reserved 0 */
    "61 00 62 00 00 00 00 00"             /* "ab" NUL, 2 bytes of padding (MUST be 0) */
    HEX_GUID_PCQ                          /* [1] CounterSetGuid */
    "68 10 00 00 30 00 00 00"             /* Status 0x1068, Size 48 */
    "ff ff ff ff 02 00 00 00"             /* CounterId wildcard, InstanceId 2 */
    "01 00 00 00 55 00 00 00"             /* Index 1, Reserved 0x55 */
    "61 00 62 00 63 00 00 00";            /* "abc" NUL */

/* Figure 1: a counterset and two counters. */
static void b_counterset(pcq_writer *w)
{
    pcq_counterset_reg set;
    pcq_counter_reg c;

    memset(&set, 0, sizeof set);
    set.guid = guid_proc;
    set.detail_level = 100;
    set.num_counters = 2;
    set.instance_type = 2;
    pcq_put_counterset_reg(w, &set);
    memset(&c, 0, sizeof c);
    c.counter_id = 0;
    c.type = 0x21510500u; /* PERF_100NSEC_TIMER_INV */
    c.attrib = 1;
    c.detail_level = 100;
    c.aggregate_func = 2;
    pcq_put_counter_reg(w, &c);
    memset(&c, 0, sizeof c);
    c.counter_id = 22;
    c.type = 0x40030500u; /* PERF_LARGE_RAW_BASE */
    c.attrib = 2;
    c.detail_level = 200;
    c.default_scale = -2;
    pcq_put_counter_reg(w, &c);
}
static const char x_counterset[] = HEX_GUID_PROC /* _PERF_COUNTERSET_REG_INFO.CounterSetGuid */
    "00 00 00 00 64 00 00 00"                    /* CounterSetType 0, DetailLevel 100 */
    "02 00 00 00 02 00 00 00"                    /* NumCounters 2, InstanceType 2 */
    "00 00 00 00 00 05 51 21"                    /* [0] CounterId 0, Type 0x21510500 */
    "01 00 00 00 00 00 00 00"                    /*     Attrib 1 */
    "64 00 00 00 00 00 00 00"                    /*     DetailLevel 100, DefaultScale 0 */
    "00 00 00 00 00 00 00 00"                    /*     BaseCounterId, PerfTimeId */
    "00 00 00 00 00 00 00 00"                    /*     PerfFreqId, MultiId */
    "02 00 00 00 00 00 00 00"                    /*     AggregateFunc 2, Reserved */
    "16 00 00 00 00 05 03 40"                    /* [1] CounterId 22, Type 0x40030500 */
    "02 00 00 00 00 00 00 00"                    /*     Attrib 2 */
    "c8 00 00 00 fe ff ff ff"                    /*     DetailLevel 200, DefaultScale -2 */
    "00 00 00 00 00 00 00 00"
    "00 00 00 00 00 00 00 00"
    "00 00 00 00 00 00 00 00";

/* One counter (RequestCode 2): every field distinct, Attrib high half set. */
static void b_counter(pcq_writer *w)
{
    pcq_counter_reg c;

    c.counter_id = 0x01020304u;
    c.type = 0x20570500u; /* PERF_PRECISION_100NS_TIMER */
    c.attrib = 0x0000000100000004u;
    c.detail_level = 200;
    c.default_scale = -10;
    c.base_counter_id = 0x16;
    c.perf_time_id = 0x11;
    c.perf_freq_id = 0x12;
    c.multi_id = 0x13;
    c.aggregate_func = 4;
    c.reserved = 0;
    pcq_put_counter_reg(w, &c);
}
static const char x_counter[] = "04 03 02 01 00 05 57 20"  /* CounterId 0x01020304, Type 0x20570500 */
                                "04 00 00 00 01 00 00 00"  /* Attrib 0x0000000100000004 */
                                "c8 00 00 00 f6 ff ff ff"  /* DetailLevel 200, DefaultScale -10 */
                                "16 00 00 00 11 00 00 00"  /* BaseCounterId 22, PerfTimeId 0x11 */
                                "12 00 00 00 13 00 00 00"  /* PerfFreqId 0x12, MultiId 0x13 */
                                "04 00 00 00 00 00 00 00"; /* AggregateFunc 4, Reserved 0 */

static void b_string(pcq_writer *w)
{
    uint8_t b[16];
    pcq_put_string(w, b, u16("ab", b));
}
static const char x_string[] = "61 00 62 00 00 00"; /* "ab" NUL, no padding */

static void b_string_empty(pcq_writer *w)
{
    pcq_put_string(w, NULL, 0);
}
static const char x_string_empty[] = "00 00";

static void b_guid(pcq_writer *w)
{
    pcq_put_guid(w, &guid_pcq);
}
static const char x_guid[] = HEX_GUID_PCQ; /* appendix example, Data1-3 LE */

static void b_guids(pcq_writer *w)
{
    pcq_put_guid(w, &guid_pcq);
    pcq_put_guid(w, &guid_proc);
}
static const char x_guids[] = HEX_GUID_PCQ HEX_GUID_PROC;

static void b_nothing(pcq_writer *w)
{
    (void)w;
}

/* ---- data buffers ---- */

static void b_data_empty(pcq_writer *w)
{
    begin_hdr(w);
    pcq_end_data(w);
}
static const char x_data_empty[] = "30 00 00 00 00 00 00 00" /* dwTotalSize 48, dwNumCounter 0 */
    HDR_TAIL;

static void b_data_error(pcq_writer *w)
{
    begin_hdr(w);
    pcq_put_error_block(w, 232); /* ERROR_NO_DATA */
    pcq_end_data(w);
}
static const char x_data_error[] = "40 00 00 00 01 00 00 00" /* dwTotalSize 64, dwNumCounter 1 */
    HDR_TAIL "e8 00 00 00 00 00 00 00" /* _PERF_COUNTER_HEADER: dwStatus 232, dwType 0 */
                                   "10 00 00 00 00 00 00 00"; /* dwSize 16, Reserved */

/* Type 1 twice: an 8-byte and a 4-byte value; both blocks are 32 bytes and
 * both _PERF_COUNTER_DATA.dwSize are 16 (NOTES §2). */
static void b_data_single(pcq_writer *w)
{
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
    pcq_put_value_u64(w, 0x1122334455667788u);
    pcq_end_block(w);
    pcq_begin_block(w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
    pcq_put_value_u32(w, 0xAABBCCDDu);
    pcq_end_block(w);
    pcq_end_data(w);
}
static const char x_data_single[] =
    "70 00 00 00 02 00 00 00"          /* dwTotalSize 112, dwNumCounter 2 */
    HDR_TAIL "00 00 00 00 01 00 00 00" /* dwStatus 0, dwType 1 */
    "20 00 00 00 00 00 00 00"          /* dwSize 32, Reserved */
    "08 00 00 00 10 00 00 00"          /* _PERF_COUNTER_DATA: dwDataSize 8, dwSize 16 */
    "88 77 66 55 44 33 22 11"          /* value */
    "00 00 00 00 01 00 00 00"          /* dwStatus 0, dwType 1 */
    "20 00 00 00 00 00 00 00"          /* dwSize 32, Reserved */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "dd cc bb aa 00 00 00 00";         /* value, 4 zero bytes */

/* Type 2 with N = 3: 4 zero bytes after the id array, counted in dwSize. */
static void b_data_multi3(pcq_writer *w)
{
    static const uint32_t ids[3] = {7, 8, 9};
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 3);
    pcq_put_value_u32(w, 1);
    pcq_put_value_u64(w, 2);
    pcq_put_value_u32(w, 3);
    pcq_end_block(w);
    pcq_end_data(w);
}
static const char x_data_multi3[] =
    "88 00 00 00 01 00 00 00"          /* dwTotalSize 136, dwNumCounter 1 */
    HDR_TAIL "00 00 00 00 02 00 00 00" /* dwStatus 0, dwType 2 */
    "58 00 00 00 00 00 00 00"          /* dwSize 88, Reserved */
    "18 00 00 00 03 00 00 00"          /* _PERF_MULTI_COUNTERS: dwSize 24, dwCounters 3 */
    "07 00 00 00 08 00 00 00"          /* ids 7, 8 */
    "09 00 00 00 00 00 00 00"          /* id 9, 4 bytes of padding */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "01 00 00 00 00 00 00 00"          /* 1 */
    "08 00 00 00 10 00 00 00"          /* dwDataSize 8, dwSize 16 */
    "02 00 00 00 00 00 00 00"          /* 2 */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "03 00 00 00 00 00 00 00";         /* 3 */

/* The same through the batch writer: the bytes are the same. */
static void b_data_multi3_batch(pcq_writer *w)
{
    static const uint32_t ids[3] = {7, 8, 9};
    static const uint64_t v[3] = {1, 2, 3};
    static const uint8_t sz[3] = {4, 8, 4};
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 3);
    pcq_put_values_u64(w, v, sz, 1); /* in two calls: the count is per block */
    pcq_put_values_u64(w, v + 1, sz + 1, 2);
    pcq_end_block(w);
    pcq_end_data(w);
}

/* Type 4: two instances, one value each. */
static void b_data_instances(pcq_writer *w)
{
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
    put_data_instance_a(w, 0, "0,0");
    pcq_put_value_u64(w, 0x100);
    put_data_instance_a(w, 1, "_Total");
    pcq_put_value_u32(w, 5);
    pcq_end_block(w);
    pcq_end_data(w);
}
static void b_data_instances_batch(pcq_writer *w)
{
    static const uint64_t v0 = 0x100, v1 = 5;
    static const uint8_t s8 = 8, s4 = 4;
    uint8_t b[64];
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
    pcq_put_data_instance_u64(w, 0, b, u16("0,0", b), &v0, &s8, 1);
    pcq_put_data_instance_u64(w, 1, b, u16("_Total", b), &v1, &s4, 1);
    pcq_end_block(w);
    pcq_end_data(w);
}
static const char x_data_instances[] =
    "90 00 00 00 01 00 00 00"          /* dwTotalSize 144, dwNumCounter 1 */
    HDR_TAIL "00 00 00 00 04 00 00 00" /* dwStatus 0, dwType 4 */
    "60 00 00 00 00 00 00 00"          /* dwSize 96, Reserved */
    "50 00 00 00 02 00 00 00"          /* _PERF_MULTI_INSTANCES: dwTotalSize 80, dwInstances 2 */
    "10 00 00 00 00 00 00 00"          /* _PERF_INSTANCE_HEADER: Size 16, InstanceId 0 */
    "30 00 2c 00 30 00 00 00"          /* "0,0" NUL */
    "08 00 00 00 10 00 00 00"          /* dwDataSize 8, dwSize 16 */
    "00 01 00 00 00 00 00 00"          /* 0x100 */
    "18 00 00 00 01 00 00 00"          /* Size 24, InstanceId 1 */
    "5f 00 54 00 6f 00 74 00"          /* "_Tot" */
    "61 00 6c 00 00 00 00 00"          /* "al" NUL, 2 bytes of padding */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "05 00 00 00 00 00 00 00";         /* 5 */

/* Type 6: two counters, two instances with two values each. */
static void b_data_counterset(pcq_writer *w)
{
    static const uint32_t ids[2] = {0, 15};
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    put_data_instance_a(w, 0, "0,0");
    pcq_put_value_u64(w, 1000);
    pcq_put_value_u64(w, 2000);
    put_data_instance_a(w, 1, "_Total");
    pcq_put_value_u32(w, 7);
    pcq_put_value_u64(w, 9);
    pcq_end_block(w);
    pcq_end_data(w);
}
static void b_data_counterset_batch(pcq_writer *w)
{
    static const uint32_t ids[2] = {0, 15};
    static const uint64_t v[4] = {1000, 2000, 7, 9};
    static const uint8_t sz[2] = {4, 8};
    uint8_t b[64];
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instance_u64(w, 0, b, u16("0,0", b), v, NULL, 2); /* NULL: all 8 bytes */
    pcq_put_data_instance_u64(w, 1, b, u16("_Total", b), v + 2, sz, 2);
    pcq_end_block(w);
    pcq_end_data(w);
}
static const char x_data_counterset[] =
    "c0 00 00 00 01 00 00 00"          /* dwTotalSize 192, dwNumCounter 1 */
    HDR_TAIL "00 00 00 00 06 00 00 00" /* dwStatus 0, dwType 6 */
    "90 00 00 00 00 00 00 00"          /* dwSize 144, Reserved */
    "10 00 00 00 02 00 00 00"          /* _PERF_MULTI_COUNTERS: dwSize 16, dwCounters 2 */
    "00 00 00 00 0f 00 00 00"          /* ids 0, 15 */
    "70 00 00 00 02 00 00 00"          /* _PERF_MULTI_INSTANCES: dwTotalSize 112, dwInstances 2 */
    "10 00 00 00 00 00 00 00"          /* Size 16, InstanceId 0 */
    "30 00 2c 00 30 00 00 00"          /* "0,0" NUL */
    "08 00 00 00 10 00 00 00"          /* dwDataSize 8, dwSize 16 */
    "e8 03 00 00 00 00 00 00"          /* 1000 */
    "08 00 00 00 10 00 00 00"
    "d0 07 00 00 00 00 00 00" /* 2000 */
    "18 00 00 00 01 00 00 00" /* Size 24, InstanceId 1 */
    "5f 00 54 00 6f 00 74 00" /* "_Tot" */
    "61 00 6c 00 00 00 00 00" /* "al" NUL, padding */
    "04 00 00 00 10 00 00 00" /* dwDataSize 4, dwSize 16 */
    "07 00 00 00 00 00 00 00" /* 7 */
    "08 00 00 00 10 00 00 00"
    "09 00 00 00 00 00 00 00"; /* 9 */

/* Edge blocks: type 2 with no counter, type 4 with no instance, type 6 with
 * N = 1 and an empty name, an error block, a 12-byte value. */
static void b_data_edges(pcq_writer *w)
{
    static const uint32_t id3 = 3;
    static const uint8_t v12[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_COUNTERS, 0, NULL, 0);
    pcq_end_block(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_INSTANCES, 0x1069, NULL, 0);
    pcq_end_block(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, &id3, 1);
    pcq_put_data_instance(w, 4, NULL, 0);
    pcq_put_value_u32(w, 0xDEADBEEFu);
    pcq_end_block(w);
    pcq_put_error_block(w, 8);
    pcq_begin_block(w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
    pcq_put_value(w, v12, sizeof v12);
    pcq_end_block(w);
    pcq_end_data(w);
}
static const char x_data_edges[] =
    "e0 00 00 00 05 00 00 00"          /* dwTotalSize 224, dwNumCounter 5 */
    HDR_TAIL "00 00 00 00 02 00 00 00" /* type 2: dwStatus 0, dwType 2 */
    "18 00 00 00 00 00 00 00"          /* dwSize 24 */
    "08 00 00 00 00 00 00 00"          /* _PERF_MULTI_COUNTERS: dwSize 8, dwCounters 0 */
    "69 10 00 00 04 00 00 00"          /* type 4: dwStatus 0x1069, dwType 4 */
    "18 00 00 00 00 00 00 00"          /* dwSize 24 */
    "08 00 00 00 00 00 00 00"          /* _PERF_MULTI_INSTANCES: dwTotalSize 8, dwInstances 0 */
    "00 00 00 00 06 00 00 00"          /* type 6: dwStatus 0, dwType 6 */
    "48 00 00 00 00 00 00 00"          /* dwSize 72 */
    "10 00 00 00 01 00 00 00"          /* _PERF_MULTI_COUNTERS: dwSize 16, dwCounters 1 */
    "03 00 00 00 00 00 00 00"          /* id 3, 4 bytes of padding */
    "28 00 00 00 01 00 00 00"          /* _PERF_MULTI_INSTANCES: dwTotalSize 40, dwInstances 1 */
    "10 00 00 00 04 00 00 00"          /* Size 16, InstanceId 4 */
    "00 00 00 00 00 00 00 00"          /* "" NUL, 6 bytes of padding */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "ef be ad de 00 00 00 00"          /* 0xDEADBEEF */
    "08 00 00 00 00 00 00 00"          /* type 0: dwStatus 8, dwType 0 */
    "10 00 00 00 00 00 00 00"          /* dwSize 16 */
    "00 00 00 00 01 00 00 00"          /* type 1: dwStatus 0, dwType 1 */
    "28 00 00 00 00 00 00 00"          /* dwSize 40 */
    "0c 00 00 00 18 00 00 00"          /* dwDataSize 12, dwSize 24 */
    "01 02 03 04 05 06 07 08"
    "09 0a 0b 0c 00 00 00 00"; /* value, 4 bytes of padding */

/* Type 6, two counters (a 4- and an 8-byte value), instance names of 0, 2,
 * 8, 10 and 18 bytes: under 8 bytes a name is checked and copied whole, from
 * 8 bytes on a word at a time (wr_copy_name8: exactly one word; a word and
 * an overlapping last word; two words and an overlapping one). Five ways to
 * write it, the same bytes: values a call each (the header's inline path,
 * then the functions themselves), the batch calls, raw bytes (the checked
 * path of a value). */
static const char *const names_a[5] = {"", "a", "abcd", "abcde", "Processor"};
static void b_data_names(pcq_writer *w)
{
    static const uint32_t ids[2] = {2, 4};
    uint32_t i;
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    for (i = 0; i < 5; i++) {
        put_data_instance_a(w, 10 + i, names_a[i]);
        pcq_put_value_u32(w, i + 1);
        pcq_put_value_u64(w, 0x1000000000u + i);
    }
    pcq_end_block(w);
    pcq_end_data(w);
}
static void b_data_names_functions(pcq_writer *w)
{
    static const uint32_t ids[2] = {2, 4};
    uint32_t i;
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    for (i = 0; i < 5; i++) {
        put_data_instance_a(w, 10 + i, names_a[i]);
        (pcq_put_value_u32)(w, i + 1); /* not the header's macro: the function, with 2 records to go */
        (pcq_put_value_u64)(w, 0x1000000000u + i);
    }
    pcq_end_block(w);
    pcq_end_data(w);
}
static void b_data_names_batch(pcq_writer *w)
{
    static const uint32_t ids[2] = {2, 4};
    static const uint8_t sz[2] = {4, 8};
    uint8_t b[64];
    uint64_t v[2];
    uint32_t i;
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    for (i = 0; i < 5; i++) {
        v[0] = i + 1;
        v[1] = 0x1000000000u + i;
        pcq_put_data_instance_u64(w, 10 + i, b, u16(names_a[i], b), v, sz, 2);
    }
    pcq_end_block(w);
    pcq_end_data(w);
}
/* The five instances in one call: names of 0 and 2 bytes (one word with
 * the NUL), 8 (first and last word the same), 10 and 18 (a middle word). */
static void b_data_names_block(pcq_writer *w)
{
    static const uint32_t ids[2] = {2, 4};
    static const uint8_t sz[2] = {4, 8};
    static uint8_t b[5][32];
    pcq_instance inst[5];
    uint64_t v[10];
    uint32_t i;
    instances_a(inst, b, names_a, 5, 10);
    for (i = 0; i < 5; i++) {
        v[2 * i] = 0xFFFFFFFF00000000u + i + 1; /* a 4-byte value: the upper half is not written */
        v[2 * i + 1] = 0x1000000000u + i;
    }
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instances_u64(w, inst, 5, v, sz, 2);
    pcq_end_block(w);
    pcq_end_data(w);
}
static void b_data_names_values(pcq_writer *w)
{
    static const uint32_t ids[2] = {2, 4};
    static const uint8_t sz[2] = {4, 8};
    uint64_t v[2];
    uint32_t i;
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    for (i = 0; i < 5; i++) {
        v[0] = i + 1;
        v[1] = 0x1000000000u + i;
        put_data_instance_a(w, 10 + i, names_a[i]);
        pcq_put_values_u64(w, v, sz, 2);
    }
    pcq_end_block(w);
    pcq_end_data(w);
}
static void b_data_names_raw(pcq_writer *w)
{
    static const uint32_t ids[2] = {2, 4};
    uint8_t v4[4] = {0, 0, 0, 0}, v8[8] = {0, 0, 0, 0, 0x10, 0, 0, 0};
    uint32_t i;
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    for (i = 0; i < 5; i++) {
        v4[0] = (uint8_t)(i + 1);
        v8[0] = (uint8_t)i;
        put_data_instance_a(w, 10 + i, names_a[i]);
        pcq_put_value(w, v4, 4);
        pcq_put_value(w, v8, 8);
    }
    pcq_end_block(w);
    pcq_end_data(w);
}
static const char x_data_names[] =
    "68 01 00 00 01 00 00 00"          /* dwTotalSize 360, dwNumCounter 1 */
    HDR_TAIL "00 00 00 00 06 00 00 00" /* dwStatus 0, dwType 6 */
    "38 01 00 00 00 00 00 00"          /* dwSize 312, Reserved */
    "10 00 00 00 02 00 00 00"          /* _PERF_MULTI_COUNTERS: dwSize 16, dwCounters 2 */
    "02 00 00 00 04 00 00 00"          /* ids 2, 4 */
    "18 01 00 00 05 00 00 00"          /* _PERF_MULTI_INSTANCES: dwTotalSize 280, dwInstances 5 */
    "10 00 00 00 0a 00 00 00"          /* Size 16, InstanceId 10 */
    "00 00 00 00 00 00 00 00"          /* "" NUL, 6 bytes of padding */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "01 00 00 00 00 00 00 00"          /* 1 */
    "08 00 00 00 10 00 00 00"          /* dwDataSize 8, dwSize 16 */
    "00 00 00 00 10 00 00 00"          /* 0x1000000000 */
    "10 00 00 00 0b 00 00 00"          /* Size 16, InstanceId 11 */
    "61 00 00 00 00 00 00 00"          /* "a" NUL, 4 bytes of padding */
    "04 00 00 00 10 00 00 00"
    "02 00 00 00 00 00 00 00" /* 2 */
    "08 00 00 00 10 00 00 00"
    "01 00 00 00 10 00 00 00" /* 0x1000000001 */
    "18 00 00 00 0c 00 00 00" /* Size 24, InstanceId 12 */
    "61 00 62 00 63 00 64 00" /* "abcd" */
    "00 00 00 00 00 00 00 00" /* NUL, 6 bytes of padding */
    "04 00 00 00 10 00 00 00"
    "03 00 00 00 00 00 00 00" /* 3 */
    "08 00 00 00 10 00 00 00"
    "02 00 00 00 10 00 00 00" /* 0x1000000002 */
    "18 00 00 00 0d 00 00 00" /* Size 24, InstanceId 13 */
    "61 00 62 00 63 00 64 00" /* "abcd" */
    "65 00 00 00 00 00 00 00" /* "e" NUL, 4 bytes of padding */
    "04 00 00 00 10 00 00 00"
    "04 00 00 00 00 00 00 00" /* 4 */
    "08 00 00 00 10 00 00 00"
    "03 00 00 00 10 00 00 00" /* 0x1000000003 */
    "20 00 00 00 0e 00 00 00" /* Size 32, InstanceId 14 */
    "50 00 72 00 6f 00 63 00" /* "Proc" */
    "65 00 73 00 73 00 6f 00" /* "esso" */
    "72 00 00 00 00 00 00 00" /* "r" NUL, 4 bytes of padding */
    "04 00 00 00 10 00 00 00"
    "05 00 00 00 00 00 00 00" /* 5 */
    "08 00 00 00 10 00 00 00"
    "04 00 00 00 10 00 00 00"; /* 0x1000000004 */

/* pcq_put_data_instances_u64: a type 4 block of three instances in one
 * call (one 4-byte value each, the upper halves given non-zero: written as
 * zero padding), then a type 6 block of two (an 8- and a 4-byte value). The
 * names: 4 and 6 bytes (one word with the NUL and padding), 22 bytes (the
 * 48-byte instance of a "Thread" reply), 18 bytes, empty. */
static const uint32_t bc_ids[2] = {5, 6};
static const uint8_t bc_s4 = 4, bc_sz[2] = {8, 4};
static const uint64_t bc_v4[3] = {0xFFFFFFFF00000001u, 0xAAAAAAAA00000002u, 0x123456789ABCDEF0u};
static const uint64_t bc_v6[4] = {0x1122334455667788u, 0xFFFFFFFF00000003u, 5, 0x100000004u};
static const char *const bc_names[5] = {"ab", "0,0", "thread_0001", "Processor", ""};
static void b_data_block_call(pcq_writer *w)
{
    static uint8_t b[5][32];
    pcq_instance a[3], c[2];
    instances_a(a, b, bc_names, 3, 7);
    instances_a(c, b + 3, bc_names + 3, 2, 1);
    c[0].size = c[1].size = 0xDEAD; /* not read */
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
    pcq_put_data_instances_u64(w, a, 3, bc_v4, &bc_s4, 1);
    pcq_end_block(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, bc_ids, 2);
    pcq_put_data_instances_u64(w, c, 0, bc_v6, bc_sz, 2); /* none: no error, nothing written */
    pcq_put_data_instances_u64(w, c, 2, bc_v6, bc_sz, 2);
    pcq_end_block(w);
    pcq_end_data(w);
}
/* The same, an instance a call (pcq_put_data_instance_u64). */
static void b_data_block_call_each(pcq_writer *w)
{
    uint8_t b[32];
    uint32_t i;
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
    for (i = 0; i < 3; i++) pcq_put_data_instance_u64(w, 7 + i, b, u16(bc_names[i], b), bc_v4 + i, &bc_s4, 1);
    pcq_end_block(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, bc_ids, 2);
    for (i = 0; i < 2; i++)
        pcq_put_data_instance_u64(w, 1 + i, b, u16(bc_names[3 + i], b), bc_v6 + 2 * i, bc_sz, 2);
    pcq_end_block(w);
    pcq_end_data(w);
}
static const char x_data_block_call[] =
    "50 01 00 00 02 00 00 00"          /* dwTotalSize 336, dwNumCounter 2 */
    HDR_TAIL "00 00 00 00 04 00 00 00" /* dwStatus 0, dwType 4 */
    "88 00 00 00 00 00 00 00"          /* dwSize 136, Reserved */
    "78 00 00 00 03 00 00 00"          /* _PERF_MULTI_INSTANCES: dwTotalSize 120, dwInstances 3 */
    "10 00 00 00 07 00 00 00"          /* _PERF_INSTANCE_HEADER: Size 16, InstanceId 7 */
    "61 00 62 00 00 00 00 00"          /* "ab" NUL, 2 bytes of padding */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "01 00 00 00 00 00 00 00"          /* 1, 4 zero bytes of padding */
    "10 00 00 00 08 00 00 00"          /* Size 16, InstanceId 8 */
    "30 00 2c 00 30 00 00 00"          /* "0,0" NUL */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "02 00 00 00 00 00 00 00"          /* 2 */
    "20 00 00 00 09 00 00 00"          /* Size 32, InstanceId 9 */
    "74 00 68 00 72 00 65 00"          /* "thre" */
    "61 00 64 00 5f 00 30 00"          /* "ad_0" */
    "30 00 30 00 31 00 00 00"          /* "001" NUL */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "f0 de bc 9a 00 00 00 00"          /* 0x9abcdef0 */
    "00 00 00 00 06 00 00 00"          /* dwStatus 0, dwType 6 */
    "98 00 00 00 00 00 00 00"          /* dwSize 152, Reserved */
    "10 00 00 00 02 00 00 00"          /* _PERF_MULTI_COUNTERS: dwSize 16, dwCounters 2 */
    "05 00 00 00 06 00 00 00"          /* ids 5, 6 */
    "78 00 00 00 02 00 00 00"          /* _PERF_MULTI_INSTANCES: dwTotalSize 120, dwInstances 2 */
    "20 00 00 00 01 00 00 00"          /* Size 32, InstanceId 1 */
    "50 00 72 00 6f 00 63 00"          /* "Proc" */
    "65 00 73 00 73 00 6f 00"          /* "esso" */
    "72 00 00 00 00 00 00 00"          /* "r" NUL, 4 bytes of padding */
    "08 00 00 00 10 00 00 00"          /* dwDataSize 8, dwSize 16 */
    "88 77 66 55 44 33 22 11"          /* 0x1122334455667788 */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "03 00 00 00 00 00 00 00"          /* 3 */
    "10 00 00 00 02 00 00 00"          /* Size 16, InstanceId 2 */
    "00 00 00 00 00 00 00 00"          /* "" NUL, 6 bytes of padding */
    "08 00 00 00 10 00 00 00"          /* dwDataSize 8, dwSize 16 */
    "05 00 00 00 00 00 00 00"          /* 5 */
    "04 00 00 00 10 00 00 00"          /* dwDataSize 4, dwSize 16 */
    "04 00 00 00 00 00 00 00";         /* 4 */

/* Type 6 with no counters: instances and nothing else. After an instance
 * the next may follow at once (wr_fast_instance with no values wanted).
 * Through pcq_put_data_instance_u64 with no values: n 0, values given or
 * NULL. */
static void b_data_no_counters(pcq_writer *w)
{
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, NULL, 0);
    put_data_instance_a(w, 1, "abcd");
    put_data_instance_a(w, 2, "a");
    put_data_instance_a(w, 3, "Processor");
    pcq_end_block(w);
    pcq_end_data(w);
}
static void b_data_no_counters_batch(pcq_writer *w)
{
    static const uint64_t v[1] = {99}; /* never read: no value is wanted */
    uint8_t b[64];
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, NULL, 0);
    pcq_put_data_instance_u64(w, 1, b, u16("abcd", b), v, NULL, 0);
    pcq_put_data_instance_u64(w, 2, b, u16("a", b), NULL, NULL, 0);
    pcq_put_data_instance_u64(w, 3, b, u16("Processor", b), NULL, NULL, 0);
    pcq_end_block(w);
    pcq_end_data(w);
}
static void b_data_no_counters_block(pcq_writer *w)
{
    static uint8_t b[3][32];
    static const char *const names[3] = {"abcd", "a", "Processor"};
    pcq_instance inst[3];
    instances_a(inst, b, names, 3, 1);
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, NULL, 0);
    pcq_put_data_instances_u64(w, inst, 3, NULL, NULL, 0);
    pcq_end_block(w);
    pcq_end_data(w);
}
static const char x_data_no_counters[] =
    "98 00 00 00 01 00 00 00"          /* dwTotalSize 152, dwNumCounter 1 */
    HDR_TAIL "00 00 00 00 06 00 00 00" /* dwStatus 0, dwType 6 */
    "68 00 00 00 00 00 00 00"          /* dwSize 104, Reserved */
    "08 00 00 00 00 00 00 00"          /* _PERF_MULTI_COUNTERS: dwSize 8, dwCounters 0 */
    "50 00 00 00 03 00 00 00"          /* _PERF_MULTI_INSTANCES: dwTotalSize 80, dwInstances 3 */
    "18 00 00 00 01 00 00 00"          /* Size 24, InstanceId 1 */
    "61 00 62 00 63 00 64 00"          /* "abcd" */
    "00 00 00 00 00 00 00 00"          /* NUL, 6 bytes of padding */
    "10 00 00 00 02 00 00 00"          /* Size 16, InstanceId 2 */
    "61 00 00 00 00 00 00 00"          /* "a" NUL, 4 bytes of padding */
    "20 00 00 00 03 00 00 00"          /* Size 32, InstanceId 3 */
    "50 00 72 00 6f 00 63 00"          /* "Proc" */
    "65 00 73 00 73 00 6f 00"          /* "esso" */
    "72 00 00 00 00 00 00 00";         /* "r" NUL, 4 bytes of padding */

/* Two structures written back to back: the writer does not care which kind. */
static void b_two_data(pcq_writer *w)
{
    b_data_empty(w);
    b_data_error(w);
}
static const char x_two_data[] = "30 00 00 00 00 00 00 00" HDR_TAIL
                                 "40 00 00 00 01 00 00 00" HDR_TAIL /* sizes are relative to its own header */
                                 "e8 00 00 00 00 00 00 00"
                                 "10 00 00 00 00 00 00 00";

struct wcase {
    const char *name;
    build_fn build;
    pcq_kind kind; /* PCQ_KIND_NONE: no reencode check */
    const char *hex;
    int strict; /* also passes pcq_validate with PCQ_STRICT */
};

/* clang-format off */
static const struct wcase cases[] = {
    {"instance ab", b_instance_ab, PCQ_KIND_INSTANCES, x_instance_ab, 1},
    {"figure 3", b_fig3, PCQ_KIND_INSTANCES, x_fig3, 1},
    {"instances rounding", b_instances_more, PCQ_KIND_INSTANCES, x_instances_more, 1},
    {"figure 2 spec offsets", b_fig2_spec, PCQ_KIND_STRINGS, x_fig2_spec, 1},
    {"figure 2 win32 offsets", b_fig2_win32, PCQ_KIND_STRINGS, x_fig2_win32, 1},
    {"strings absent entry", b_strings_absent, PCQ_KIND_STRINGS, x_strings_absent, 1},
    {"strings empty", b_strings_empty, PCQ_KIND_STRINGS, x_strings_empty, 1},
    {"strings all absent", b_strings_all_absent, PCQ_KIND_STRINGS, x_strings_all_absent, 1},
    {"figure 4", b_fig4, PCQ_KIND_IDENTIFIERS, x_fig4, 0},
    {"figure 1 counterset", b_counterset, PCQ_KIND_COUNTERSET_INFO, x_counterset, 1},
    {"counter info", b_counter, PCQ_KIND_COUNTER_INFO, x_counter, 0},
    {"string", b_string, PCQ_KIND_STRING, x_string, 1},
    {"string empty", b_string_empty, PCQ_KIND_STRING, x_string_empty, 1},
    {"guid", b_guid, PCQ_KIND_GUID, x_guid, 1},
    {"guids", b_guids, PCQ_KIND_GUIDS, x_guids, 1},
    {"nothing", b_nothing, PCQ_KIND_NONE, "", 1},
    {"data empty", b_data_empty, PCQ_KIND_DATA, x_data_empty, 1},
    {"data error block", b_data_error, PCQ_KIND_DATA, x_data_error, 1},
    {"data type 1", b_data_single, PCQ_KIND_DATA, x_data_single, 1},
    {"data type 2 N=3", b_data_multi3, PCQ_KIND_DATA, x_data_multi3, 1},
    {"data type 2 N=3, batch", b_data_multi3_batch, PCQ_KIND_DATA, x_data_multi3, 1},
    {"data type 4", b_data_instances, PCQ_KIND_DATA, x_data_instances, 1},
    {"data type 4, batch", b_data_instances_batch, PCQ_KIND_DATA, x_data_instances, 1},
    {"data type 6", b_data_counterset, PCQ_KIND_DATA, x_data_counterset, 1},
    {"data type 6, batch", b_data_counterset_batch, PCQ_KIND_DATA, x_data_counterset, 1},
    {"data edge blocks", b_data_edges, PCQ_KIND_DATA, x_data_edges, 1},
    {"data type 6 names", b_data_names, PCQ_KIND_DATA, x_data_names, 1},
    {"data type 6 names, functions", b_data_names_functions, PCQ_KIND_DATA, x_data_names, 1},
    {"data type 6 names, batch", b_data_names_batch, PCQ_KIND_DATA, x_data_names, 1},
    {"data type 6 names, one block call", b_data_names_block, PCQ_KIND_DATA, x_data_names, 1},
    {"data type 6 names, values_u64", b_data_names_values, PCQ_KIND_DATA, x_data_names, 1},
    {"data type 6 names, raw values", b_data_names_raw, PCQ_KIND_DATA, x_data_names, 1},
    {"data type 6 no counters", b_data_no_counters, PCQ_KIND_DATA, x_data_no_counters, 1},
    {"data type 6 no counters, batch", b_data_no_counters_batch, PCQ_KIND_DATA, x_data_no_counters, 1},
    {"data type 6 no counters, block call", b_data_no_counters_block, PCQ_KIND_DATA, x_data_no_counters, 1},
    {"data types 4 and 6, block calls", b_data_block_call, PCQ_KIND_DATA, x_data_block_call, 1},
    {"data types 4 and 6, an instance a call", b_data_block_call_each, PCQ_KIND_DATA, x_data_block_call, 1},
    {"two data buffers", b_two_data, PCQ_KIND_NONE, x_two_data, 1},
};
/* clang-format on */

/* ---- running a case ---------------------------------------------------- */

static int canary_intact(const uint8_t *buf, size_t from, size_t to)
{
    size_t i;
    for (i = from; i < to; i++)
        if (buf[i] != CANARY) return 0;
    return 1;
}

/* First differing offset, or n if equal. */
static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n && a[i] == b[i]; i++)
        ;
    return i;
}

static int run_writer(build_fn build, void *dst, size_t cap, size_t *len)
{
    pcq_writer w;
    pcq_writer_init(&w, dst, cap);
    build(&w);
    return pcq_writer_finish(&w, len);
}

/* Full buffer, sizing pass, every short cap. */
static void check_writer(const struct wcase *c, const uint8_t *exp, size_t n)
{
    uint8_t buf[BUF_MAX + 64];
    size_t len, cap;
    int rc;

    memset(buf, CANARY, sizeof buf);
    rc = run_writer(c->build, buf, BUF_MAX, &len);
    if (TL_CHECK(rc == PCQ_OK && len == n, "%s: rc %d len %zu, want %zu", c->name, rc, len, n))
        TL_CHECK(first_diff(buf, exp, n) == n && canary_intact(buf, n, sizeof buf),
                 "%s: bytes differ at offset %zu", c->name, first_diff(buf, exp, n));

    memset(buf, CANARY, sizeof buf); /* exactly the room it needs: the last record fills dst */
    rc = run_writer(c->build, buf, n, &len);
    TL_CHECK(rc == PCQ_OK && len == n && first_diff(buf, exp, n) == n && canary_intact(buf, n, sizeof buf),
             "%s: cap %zu exactly: rc %d len %zu, differs at %zu", c->name, n, rc, len,
             first_diff(buf, exp, n));

    rc = run_writer(c->build, NULL, 0, &len);
    TL_CHECK(rc == PCQ_OK && len == n, "%s: sizing pass rc %d len %zu", c->name, rc, len);
    rc = run_writer(c->build, NULL, 4096, &len); /* cap without dst: still sizing */
    TL_CHECK(rc == PCQ_OK && len == n, "%s: NULL dst rc %d len %zu", c->name, rc, len);

    for (cap = 0; cap < n; cap++) {
        memset(buf, CANARY, sizeof buf);
        rc = run_writer(c->build, buf, cap, &len);
        if (!TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && len == n, "%s: cap %zu: rc %d len %zu", c->name, cap,
                      rc, len) ||
            !TL_CHECK(canary_intact(buf, cap, n + 64), "%s: cap %zu: wrote past cap", c->name, cap) ||
            !TL_CHECK(first_diff(buf, exp, cap) == cap, "%s: cap %zu: prefix differs at %zu", c->name, cap,
                      first_diff(buf, exp, cap)))
            break; /* one report per case is enough */
    }
}

/* pcq_reencode of the expected bytes gives them back, with the same cap
 * behaviour as the writer. */
static void check_reencode(const struct wcase *c, const uint8_t *exp, size_t n)
{
    uint8_t buf[BUF_MAX + 64];
    pcq_error err;
    size_t len, cap;
    int rc;

    memset(buf, CANARY, sizeof buf);
    rc = pcq_reencode(c->kind, exp, n, buf, BUF_MAX, &len, &err);
    if (!TL_CHECK(rc == PCQ_OK && len == n, "%s: reencode rc %d (%s at %zu: %s) len %zu", c->name, rc,
                  pcq_status_name(rc), err.offset, err.what ? err.what : "-", len))
        return;
    TL_CHECK(first_diff(buf, exp, n) == n && canary_intact(buf, n, sizeof buf),
             "%s: reencode differs at offset %zu", c->name, first_diff(buf, exp, n));
    rc = pcq_reencode(c->kind, exp, n, NULL, 0, &len, NULL);
    TL_CHECK(rc == PCQ_OK && len == n, "%s: reencode sizing rc %d len %zu", c->name, rc, len);
    for (cap = 0; cap < n; cap++) {
        memset(buf, CANARY, sizeof buf);
        rc = pcq_reencode(c->kind, exp, n, buf, cap, &len, &err);
        if (!TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && len == n && err.code == rc &&
                          canary_intact(buf, cap, n + 64),
                      "%s: reencode cap %zu: rc %d len %zu", c->name, cap, rc, len))
            break;
    }
}

/* Canonical output is conformant: no diagnostic even in strict mode (the
 * cases marked 0 carry deliberate oddities: Reserved 0x55, Attrib bits). */
static void check_strict(const struct wcase *c, const uint8_t *exp, size_t n)
{
    pcq_opts opts;
    pcq_error err;
    int rc;

    memset(&opts, 0, sizeof opts);
    opts.flags = PCQ_STRICT;
    rc = pcq_validate(c->kind, exp, n, &opts, &err);
    TL_CHECK(rc == PCQ_OK, "%s: strict validation rc %d (%s at %zu: %s)", c->name, rc, pcq_status_name(rc),
             err.offset, err.what ? err.what : "-");
}

static void test_cases(void)
{
    uint8_t exp[BUF_MAX];
    size_t i, n;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        n = hex(cases[i].hex, exp, sizeof exp);
        check_writer(&cases[i], exp, n);
        if (cases[i].kind == PCQ_KIND_NONE) continue;
        check_reencode(&cases[i], exp, n);
        if (cases[i].strict) check_strict(&cases[i], exp, n);
    }
}

/* ---- property: the output of pcq_reencode reencodes to itself ----------- */

static uint32_t rng_next(uint32_t *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

/* Random byte changes and cuts of every case. Whatever the decoder accepts,
 * pcq_reencode must turn into a buffer that decodes again and comes back
 * byte for byte (nanopb's round-trip property: encode(decode(x)) is a fixed
 * point after one step). */
static void test_reencode_fixed_point(void)
{
    static uint8_t exp[BUF_MAX], in[BUF_MAX], out1[4 * BUF_MAX], out2[4 * BUF_MAX];
    uint32_t seed = 12345;
    size_t i, n, len, len1, len2;
    unsigned k, m, accepted = 0, failures = 0;
    int rc;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].kind == PCQ_KIND_NONE) continue;
        n = hex(cases[i].hex, exp, sizeof exp);
        for (k = 0; k < 400 && n > 0 && failures < 5; k++) {
            memcpy(in, exp, n);
            len = n;
            for (m = 1 + rng_next(&seed) % 3; m > 0; m--) in[rng_next(&seed) % n] = (uint8_t)rng_next(&seed);
            if (rng_next(&seed) % 8 == 0) len = rng_next(&seed) % n;
            rc = pcq_reencode(cases[i].kind, in, len, out1, sizeof out1, &len1, NULL);
            if (rc != PCQ_OK) continue;
            accepted++;
            rc = pcq_reencode(cases[i].kind, out1, len1, out2, sizeof out2, &len2, NULL);
            if (!TL_CHECK(rc == PCQ_OK && len2 == len1 && memcmp(out1, out2, len1) == 0,
                          "%s: mutation %u: second reencode rc %d len %zu vs %zu", cases[i].name, k, rc, len2,
                          len1))
                failures++;
        }
    }
    TL_CHECK(accepted > 100, "only %u mutated inputs were accepted", accepted);
}

/* ---- pcq_reencode on non-canonical input ------------------------------- */

/* A type 2 block packed as Figure 7 draws it (no padding after an odd id
 * array, a 4-byte value with dwSize 12) comes out canonical. */
static void test_reencode_packed(void)
{
    static const char packed[] = "58 00 00 00 01 00 00 00" HDR_TAIL /* dwTotalSize 88 */
                                 "00 00 00 00 02 00 00 00"          /* dwStatus 0, dwType 2 */
                                 "28 00 00 00 00 00 00 00"          /* dwSize 40 */
                                 "0c 00 00 00 01 00 00 00"          /* _PERF_MULTI_COUNTERS: dwSize 12, 1 */
                                 "05 00 00 00"                      /* id 5, no padding */
                                 "04 00 00 00 0c 00 00 00"          /* dwDataSize 4, dwSize 12 */
                                 "09 00 00 00";                     /* 9, no padding */
    static const char canonical[] = "60 00 00 00 01 00 00 00" HDR_TAIL /* dwTotalSize 96 */
                                    "00 00 00 00 02 00 00 00"
                                    "30 00 00 00 00 00 00 00" /* dwSize 48 */
                                    "10 00 00 00 01 00 00 00" /* dwSize 16, 1 */
                                    "05 00 00 00 00 00 00 00" /* id 5, padding */
                                    "04 00 00 00 10 00 00 00" /* dwDataSize 4, dwSize 16 */
                                    "09 00 00 00 00 00 00 00";
    /* Instance padding that is not zero (opnum 2 leaves it uninitialized). */
    static const char dirty[] = "10 00 00 00 01 00 00 00"
                                "61 00 62 00 00 00 ee ee";
    uint8_t in[256], want[256], out[256];
    size_t n_in, n_want, len;
    int rc;

    n_in = hex(packed, in, sizeof in);
    n_want = hex(canonical, want, sizeof want);
    rc = pcq_reencode(PCQ_KIND_DATA, in, n_in, out, sizeof out, &len, NULL);
    TL_CHECK(rc == PCQ_OK && len == n_want && memcmp(out, want, n_want) == 0, "packed type 2: rc %d len %zu",
             rc, len);

    n_in = hex(dirty, in, sizeof in);
    n_want = hex(x_instance_ab, want, sizeof want);
    rc = pcq_reencode(PCQ_KIND_INSTANCES, in, n_in, out, sizeof out, &len, NULL);
    TL_CHECK(rc == PCQ_OK && len == n_want && memcmp(out, want, n_want) == 0,
             "dirty instance padding: rc %d len %zu", rc, len);
}

static void test_reencode_errors(void)
{
    static const uint8_t junk[4] = {1, 2, 3, 4};
    pcq_error err;
    size_t len = 99;
    int rc;

    rc = pcq_reencode(PCQ_KIND_DATA, junk, sizeof junk, NULL, 0, &len, &err);
    TL_CHECK(rc < 0 && rc != PCQ_ERR_BUFFER_TOO_SMALL && err.code == rc && len == 0,
             "truncated data: rc %d err %d len %zu", rc, err.code, len);
    rc = pcq_reencode(PCQ_KIND_NONE, junk, sizeof junk, NULL, 0, &len, &err);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG && err.code == rc, "kind none: rc %d", rc);
    rc = pcq_reencode(PCQ_KIND_END_, junk, sizeof junk, NULL, 0, &len, &err);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG, "kind end: rc %d", rc);
    rc = pcq_reencode(PCQ_KIND_GUID, junk, sizeof junk, NULL, 0, NULL, &err);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG, "NULL out_len: rc %d", rc);
}

/* ---- out-of-order sequences -------------------------------------------- */

static void block1(pcq_writer *w)
{
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
}
static void block2(pcq_writer *w)
{
    static const uint32_t ids[3] = {1, 2, 3};
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 3);
}
static void block4(pcq_writer *w)
{
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
}
static void block6(pcq_writer *w)
{
    static const uint32_t ids[2] = {1, 2};
    begin_hdr(w);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
}

/* Each sequence ends with the call that must fail; it returns its status. */
static int s_value_top(pcq_writer *w)
{
    return pcq_put_value_u32(w, 1);
}
static int s_value_no_block(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_put_value_u32(w, 1);
}
static int s_t1_no_value(pcq_writer *w)
{
    block1(w);
    return pcq_end_block(w);
}
static int s_t1_two_values(pcq_writer *w)
{
    block1(w);
    pcq_put_value_u32(w, 1);
    return pcq_put_value_u32(w, 2);
}
static int s_t1_instance(pcq_writer *w)
{
    block1(w);
    return pcq_put_data_instance(w, 1, NULL, 0);
}
static int s_t2_short(pcq_writer *w)
{
    block2(w);
    pcq_put_value_u32(w, 1);
    pcq_put_value_u32(w, 2);
    return pcq_end_block(w);
}
static int s_t2_long(pcq_writer *w)
{
    block2(w);
    pcq_put_value_u32(w, 1);
    pcq_put_value_u32(w, 2);
    pcq_put_value_u32(w, 3);
    return pcq_put_value_u32(w, 4);
}
static int s_t2_instance(pcq_writer *w)
{
    block2(w);
    return pcq_put_data_instance(w, 1, NULL, 0);
}
static int s_t4_value_first(pcq_writer *w)
{
    block4(w);
    return pcq_put_value_u32(w, 1);
}
static int s_t4_two_values(pcq_writer *w)
{
    block4(w);
    pcq_put_data_instance(w, 1, NULL, 0);
    pcq_put_value_u32(w, 1);
    return pcq_put_value_u32(w, 2);
}
static int s_t4_instance_twice(pcq_writer *w)
{
    block4(w);
    pcq_put_data_instance(w, 1, NULL, 0);
    return pcq_put_data_instance(w, 2, NULL, 0);
}
static int s_t4_end_no_value(pcq_writer *w)
{
    block4(w);
    pcq_put_data_instance(w, 1, NULL, 0);
    return pcq_end_block(w);
}
static int s_t6_value_first(pcq_writer *w)
{
    block6(w);
    return pcq_put_value_u32(w, 1);
}
static int s_t6_short_instance(pcq_writer *w)
{
    block6(w);
    pcq_put_data_instance(w, 1, NULL, 0);
    pcq_put_value_u32(w, 1);
    return pcq_put_data_instance(w, 2, NULL, 0);
}
static int s_t6_short_end(pcq_writer *w)
{
    block6(w);
    pcq_put_data_instance(w, 1, NULL, 0);
    pcq_put_value_u32(w, 1);
    return pcq_end_block(w);
}
static int s_t6_long(pcq_writer *w)
{
    block6(w);
    pcq_put_data_instance(w, 1, NULL, 0);
    pcq_put_value_u32(w, 1);
    pcq_put_value_u32(w, 2);
    return pcq_put_value_u32(w, 3);
}
static int s_end_data_open_block(pcq_writer *w)
{
    block1(w);
    pcq_put_value_u32(w, 1);
    return pcq_end_data(w);
}
static int s_type0(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_begin_block(w, PCQ_PERF_ERROR_RETURN, 0, NULL, 0);
}
static int s_type3(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_begin_block(w, 3, 0, NULL, 0);
}
static int s_type5(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_begin_block(w, 5, 0, NULL, 0);
}
static int s_type_max(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_begin_block(w, 0xFFFFFFFFu, 0, NULL, 0);
}
static int s_block_no_data(pcq_writer *w)
{
    return pcq_begin_block(w, 1, 0, NULL, 0);
}
static int s_error_no_data(pcq_writer *w)
{
    return pcq_put_error_block(w, 1);
}
static int s_error_in_block(pcq_writer *w)
{
    block1(w);
    return pcq_put_error_block(w, 1);
}
static int s_block_in_block(pcq_writer *w)
{
    block1(w);
    return pcq_begin_block(w, 1, 0, NULL, 0);
}
static int s_end_block_top(pcq_writer *w)
{
    return pcq_end_block(w);
}
static int s_end_block_data(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_end_block(w);
}
static int s_end_data_top(pcq_writer *w)
{
    return pcq_end_data(w);
}
static int s_end_data_twice(pcq_writer *w)
{
    b_data_empty(w);
    return pcq_end_data(w);
}
static int s_data_in_data(pcq_writer *w)
{
    begin_hdr(w);
    begin_hdr(w);
    return w->err;
}
static int s_instance_in_data(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_put_instance(w, 1, NULL, 0);
}
/* After a type 4 or 6 block has ended, a data instance is out of order
 * (pcq_end_block's inline path must leave no room for the header's
 * instance step: w->inst_lim): each of its three ways, a name of 8 bytes
 * or more (the inline step's). */
static const uint8_t name_after[16] = {'a', 0, 'f', 0, 't', 0, 'e', 0, 'r', 0};
static const uint64_t value_after[2] = {1, 2};
static void ended_block(pcq_writer *w, uint32_t type)
{
    static const uint32_t ids[2] = {7, 8};
    begin_hdr(w);
    pcq_begin_block(w, type, 0, type == PCQ_PERF_COUNTERSET ? ids : NULL,
                    type == PCQ_PERF_COUNTERSET ? 2 : 0);
    pcq_put_data_instance_u64(w, 1, name_after, 10, value_after, NULL, type == PCQ_PERF_COUNTERSET ? 2 : 1);
    pcq_end_block(w);
}
static int s_t4_instance_after_end(pcq_writer *w)
{
    ended_block(w, PCQ_PERF_MULTI_INSTANCES);
    return pcq_put_data_instance_u64(w, 2, name_after, 10, value_after, NULL, 1);
}
static int s_t6_instance_after_end(pcq_writer *w)
{
    ended_block(w, PCQ_PERF_COUNTERSET);
    return pcq_put_data_instance(w, 2, name_after, 10);
}
static int s_t6_instances_after_end(pcq_writer *w)
{
    pcq_instance in;
    memset(&in, 0, sizeof in);
    in.instance_id = 2;
    in.name.ptr = name_after;
    in.name.len = 10;
    ended_block(w, PCQ_PERF_COUNTERSET);
    return pcq_put_data_instances_u64(w, &in, 1, value_after, NULL, 2);
}
static int s_instance_in_block(pcq_writer *w)
{
    block4(w);
    return pcq_put_instance(w, 1, NULL, 0);
}
static int s_string_in_data(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_put_string(w, NULL, 0);
}
static int s_guid_in_data(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_put_guid(w, &guid_pcq);
}
static int s_strings_in_data(pcq_writer *w)
{
    begin_hdr(w);
    return pcq_put_strings(w, NULL, 0, PCQ_STROFF_WIN32);
}
static int s_set_in_data(pcq_writer *w)
{
    pcq_counterset_reg set;
    memset(&set, 0, sizeof set);
    begin_hdr(w);
    return pcq_put_counterset_reg(w, &set);
}
static int s_counter_in_block(pcq_writer *w)
{
    pcq_counter_reg c;
    memset(&c, 0, sizeof c);
    block6(w);
    return pcq_put_counter_reg(w, &c);
}
static int s_identifier_in_data(pcq_writer *w)
{
    pcq_identifier id;
    memset(&id, 0, sizeof id);
    begin_hdr(w);
    return pcq_put_identifier(w, &id);
}

typedef int (*seq_fn)(pcq_writer *w);

static const struct {
    const char *name;
    seq_fn run;
} state_cases[] = {
    {"value outside data", s_value_top},
    {"value outside a block", s_value_no_block},
    {"type 1 without value", s_t1_no_value},
    {"type 1 with two values", s_t1_two_values},
    {"instance in type 1", s_t1_instance},
    {"type 2 short", s_t2_short},
    {"type 2 long", s_t2_long},
    {"instance in type 2", s_t2_instance},
    {"type 4 value before instance", s_t4_value_first},
    {"type 4 two values", s_t4_two_values},
    {"type 4 instance without value", s_t4_instance_twice},
    {"type 4 end without value", s_t4_end_no_value},
    {"type 6 value before instance", s_t6_value_first},
    {"type 6 instance short", s_t6_short_instance},
    {"type 6 end short", s_t6_short_end},
    {"type 6 long", s_t6_long},
    {"end_data with open block", s_end_data_open_block},
    {"begin_block type 0", s_type0},
    {"begin_block type 3", s_type3},
    {"begin_block type 5", s_type5},
    {"begin_block type 0xFFFFFFFF", s_type_max},
    {"begin_block outside data", s_block_no_data},
    {"error block outside data", s_error_no_data},
    {"error block inside a block", s_error_in_block},
    {"block inside a block", s_block_in_block},
    {"end_block at top", s_end_block_top},
    {"end_block without block", s_end_block_data},
    {"end_data at top", s_end_data_top},
    {"end_data twice", s_end_data_twice},
    {"begin_data twice", s_data_in_data},
    {"instance in data", s_instance_in_data},
    {"instance in block", s_instance_in_block},
    {"type 4 instance after its end", s_t4_instance_after_end},
    {"type 6 instance after its end", s_t6_instance_after_end},
    {"type 6 instances after their end", s_t6_instances_after_end},
    {"string in data", s_string_in_data},
    {"guid in data", s_guid_in_data},
    {"strings in data", s_strings_in_data},
    {"counterset in data", s_set_in_data},
    {"counter in block", s_counter_in_block},
    {"identifier in data", s_identifier_in_data},
};

static void test_state(void)
{
    uint8_t buf[BUF_MAX];
    pcq_writer w;
    size_t i, len, before;
    int rc;

    for (i = 0; i < sizeof state_cases / sizeof state_cases[0]; i++) {
        pcq_writer_init(&w, buf, sizeof buf);
        rc = state_cases[i].run(&w);
        TL_CHECK(rc == PCQ_ERR_STATE, "%s: rc %d", state_cases[i].name, rc);
        /* Sticky: a valid call now does nothing and returns the error. */
        before = w.len;
        rc = pcq_put_guid(&w, &guid_pcq);
        TL_CHECK(rc == PCQ_ERR_STATE && w.len == before, "%s: not sticky (rc %d)", state_cases[i].name, rc);
        rc = pcq_writer_finish(&w, &len);
        TL_CHECK(rc == PCQ_ERR_STATE && len == 0, "%s: finish rc %d len %zu", state_cases[i].name, rc, len);
    }

    /* finish with a data buffer or a block still open. */
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    rc = pcq_writer_finish(&w, &len);
    TL_CHECK(rc == PCQ_ERR_STATE, "finish with open data: rc %d", rc);
    pcq_writer_init(&w, NULL, 0);
    block4(&w);
    rc = pcq_writer_finish(&w, &len);
    TL_CHECK(rc == PCQ_ERR_STATE, "finish with open block (sizing): rc %d", rc);
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    put_data_instance_a(&w, 1, "a");
    pcq_put_value_u32(&w, 1);
    pcq_put_value_u32(&w, 2);
    rc = pcq_writer_finish(&w, &len);
    TL_CHECK(rc == PCQ_ERR_STATE, "finish with complete but open block: rc %d", rc);
}

/* ---- bad arguments, overflow, limits ----------------------------------- */

static int expect_after(const char *what, pcq_writer *w, int rc, int want)
{
    size_t len;
    int fin = pcq_writer_finish(w, &len);
    return TL_CHECK(rc == want && fin == want, "%s: rc %d finish %d, want %d", what, rc, fin, want);
}

/* The batch writer's refusals: the same errors as a value at a time, and
 * nothing appended. */
static void test_batch_errors(void)
{
    static const uint32_t ids[2] = {1, 2};
    static const uint64_t v[3] = {1, 2, 3};
    static const uint8_t bad[2] = {4, 3}, good[2] = {8, 4};
    static const uint8_t nul_inside[6] = {0x61, 0, 0, 0, 0x62, 0};
    uint8_t buf[512], name[16], name8[16];
    pcq_writer w;
    size_t n16 = u16("ab", name), n8 = u16("abcd", name8), len, at;

    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    at = w.len;
    TL_CHECK(pcq_put_values_u64(&w, v, bad, 2) == PCQ_ERR_INVALID_ARG && w.len == at,
             "a size of 3: INVALID_ARG, nothing appended (len %zu, was %zu)", w.len, at);
    expect_after("size 3", &w, PCQ_ERR_INVALID_ARG, PCQ_ERR_INVALID_ARG);

    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    expect_after("three values for two counters", &w, pcq_put_values_u64(&w, v, NULL, 3), PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    expect_after("NULL values", &w, pcq_put_values_u64(&w, NULL, NULL, 2), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    TL_CHECK(pcq_put_values_u64(&w, v, NULL, 0) == PCQ_OK, "no value is no error");
    pcq_put_values_u64(&w, v, good, 2);
    pcq_end_block(&w);
    pcq_end_data(&w);
    TL_CHECK(pcq_writer_finish(&w, &len) == PCQ_OK && len == 48 + 16 + 16 + 32,
             "two batched values: %zu bytes", len);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    expect_after("values outside a block", &w, pcq_put_values_u64(&w, v, NULL, 1), PCQ_ERR_STATE);

    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    expect_after("an instance in a type 2 block", &w, pcq_put_data_instance_u64(&w, 1, name, n16, v, NULL, 2),
                 PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instance_u64(&w, 1, name, n16, v, NULL, 2); /* the first: the two-call path */
    at = w.len;
    TL_CHECK(pcq_put_data_instance_u64(&w, 2, name, n16, v, bad, 2) == PCQ_ERR_INVALID_ARG && w.len == at,
             "a bad size on the direct path: INVALID_ARG, nothing appended");
    /* The same with a name of 8 bytes or more (copied a word at a time). */
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instance_u64(&w, 1, name8, n8, v, NULL, 2);
    at = w.len;
    TL_CHECK(pcq_put_data_instance_u64(&w, 2, name8, n8, v, bad, 2) == PCQ_ERR_INVALID_ARG && w.len == at,
             "a bad size on the direct path, a long name: INVALID_ARG, nothing appended");
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instance_u64(&w, 1, name, n16, v, NULL, 2);
    expect_after("a NUL inside the second name", &w,
                 pcq_put_data_instance_u64(&w, 2, nul_inside, 6, v, NULL, 2), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instance_u64(&w, 1, name, n16, v, NULL, 2);
    expect_after("one value short", &w,
                 (pcq_put_data_instance_u64(&w, 2, name, n16, v, NULL, 1), pcq_end_block(&w)), PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instance_u64(&w, 1, name, n16, v, NULL, 2);
    expect_after("three values for two counters", &w, pcq_put_data_instance_u64(&w, 2, name, n16, v, NULL, 3),
                 PCQ_ERR_STATE);
}

/* The one-pass instance (wr_fast_instance, taken in a buffer with room for
 * it) leaves to the checked path what that path refuses, with nothing
 * appended: a U+0000 anywhere in a name of 8 bytes or more (its first word,
 * the middle one, the overlapping last one), an odd name, a NULL name, a
 * name too long for Size (refused unread). The batch calls' other refusals. */
static void test_fast_path_errors(void)
{
    static const uint32_t ids[2] = {1, 2};
    static const uint64_t v[2] = {1, 2};
    static const uint8_t bad_size[2] = {8, 5};
    uint8_t buf[512], name[96], bad[96];
    size_t n = u16("abcdefghi", name), at, k, cap, len;
    pcq_instance one;
    pcq_writer w;
    int rc, batch;

    /* A U+0000 anywhere in a name of 4 to 40 units (the name copied 8 or,
     * with SSE2, 16 bytes a turn: both ends, then what is between), by the
     * checked call, an instance a call and a block's instances a call. */
    for (len = 8; len <= 80; len += 2)
        for (batch = 0; batch < 3; batch++)
            for (k = 0; k < len; k += 2) {
                for (at = 0; at < len; at += 2) bad[at] = (uint8_t)('a' + at / 2 % 26), bad[at + 1] = 1;
                bad[k] = bad[k + 1] = 0;
                memset(&one, 0, sizeof one);
                one.instance_id = 2;
                one.name.ptr = bad;
                one.name.len = len;
                pcq_writer_init(&w, buf, sizeof buf);
                begin_hdr(&w);
                pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 2);
                pcq_put_data_instance_u64(&w, 1, name, n, v, NULL, 2);
                at = w.len;
                rc = batch == 2   ? pcq_put_data_instances_u64(&w, &one, 1, v, NULL, 2)
                     : batch == 1 ? pcq_put_data_instance_u64(&w, 2, bad, len, v, NULL, 2)
                                  : pcq_put_data_instance(&w, 2, bad, len);
                TL_CHECK(rc == PCQ_ERR_INVALID_ARG && w.len == at,
                         "U+0000 at byte %zu of a %zu-byte name (batch %d): rc %d, len %zu, was %zu", k, len,
                         batch, rc, w.len, at);
                expect_after("U+0000 in a long name", &w, rc, PCQ_ERR_INVALID_ARG);
            }

    pcq_writer_init(&w, buf, sizeof buf);
    block4(&w);
    expect_after("an odd name of 9 bytes", &w, pcq_put_data_instance(&w, 1, name, 9), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    block4(&w);
    expect_after("a NULL name of 8 bytes", &w, pcq_put_data_instance(&w, 1, NULL, 8), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    block4(&w);
    expect_after("a name too long for Size, into a buffer", &w,
                 pcq_put_data_instance(&w, 1, name, (size_t)0xFFFFFFFEu), PCQ_ERR_OVERFLOW);

    /* The batch calls: no value is no error, values NULL are refused, and
     * so are values when no instance is open or the unit is complete. */
    pcq_writer_init(&w, buf, sizeof buf);
    block1(&w);
    at = w.len;
    TL_CHECK(pcq_put_values_u64(&w, NULL, NULL, 0) == PCQ_OK && w.err == PCQ_OK && w.len == at,
             "no value, values NULL: no error, nothing appended");
    TL_CHECK(pcq_put_value_u32(&w, 1) == PCQ_OK && pcq_end_block(&w) == PCQ_OK,
             "the block still wants its value");
    pcq_writer_init(&w, buf, sizeof buf);
    block4(&w);
    expect_after("values of an instance with NULL values", &w,
                 pcq_put_data_instance_u64(&w, 2, name, n, NULL, NULL, 1), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    expect_after("values before the first instance", &w, pcq_put_values_u64(&w, v, NULL, 2), PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    pcq_put_values_u64(&w, v, NULL, 2);
    expect_after("values after the block's last", &w, pcq_put_values_u64(&w, v, NULL, 1), PCQ_ERR_STATE);

    /* Near the end of dst (room for one of the two records) the batch
     * checks every size before it stores a value: a bad one appends
     * nothing there either. */
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    cap = w.len + 16;
    pcq_writer_init(&w, buf, cap);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    at = w.len;
    rc = pcq_put_values_u64(&w, v, bad_size, 2);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG && w.len == at, "near cap, a bad size: rc %d, len %zu, was %zu", rc,
             w.len, at);
    expect_after("near cap, a bad size", &w, rc, PCQ_ERR_INVALID_ARG);
}

/* Rows of many counters: the batch writer builds a row's records from a
 * table of up to 64 counters (pcq_codec.c's WR_ROW_MAX) and past it record
 * by record; either way the bytes of a call a value, 4- and 8-byte values
 * mixed, values wider than 32 bits cut to a 4-byte counter's low half. */
static void test_wide_rows(void)
{
    static const uint32_t widths[] = {2, 63, 64, 65, 100};
    static uint8_t a[8192], b[8192];
    uint32_t ids[100], k, j, i;
    uint64_t v[3 * 100];
    uint8_t sizes[100], name[16];
    pcq_instance inst[3];
    size_t n = u16("row", name), la = 0, lb = 0;
    pcq_writer w;

    for (j = 0; j < 100; j++) {
        ids[j] = 2 * j + 1;
        sizes[j] = (j % 3) ? 8 : 4;
    }
    for (j = 0; j < 300; j++) v[j] = 0x0102030405060708u * (j + 1);
    memset(inst, 0, sizeof inst);
    for (i = 0; i < 3; i++) {
        inst[i].instance_id = i;
        inst[i].name.ptr = name;
        inst[i].name.len = n;
    }
    for (k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        uint32_t nc = widths[k];
        memset(a, CANARY, sizeof a);
        memset(b, CANARY, sizeof b);
        pcq_writer_init(&w, a, sizeof a);
        begin_hdr(&w);
        pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, nc);
        pcq_put_data_instances_u64(&w, inst, 3, v, sizes, nc);
        pcq_end_block(&w);
        pcq_end_data(&w);
        TL_CHECK(pcq_writer_finish(&w, &la) == PCQ_OK, "%u counters: the batch writer failed", nc);
        pcq_writer_init(&w, b, sizeof b);
        begin_hdr(&w);
        pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, nc);
        for (i = 0; i < 3; i++) {
            pcq_put_data_instance(&w, i, name, n);
            for (j = 0; j < nc; j++) {
                if (sizes[j] == 8)
                    pcq_put_value_u64(&w, v[i * nc + j]);
                else
                    pcq_put_value_u32(&w, (uint32_t)v[i * nc + j]);
            }
        }
        pcq_end_block(&w);
        pcq_end_data(&w);
        TL_CHECK(pcq_writer_finish(&w, &lb) == PCQ_OK && la == lb &&
                     la == 48 + 16 + ((8 + 4 * nc + 7) & ~7u) + 8 + 3 * (16 + 16 * nc),
                 "%u counters: %zu and %zu bytes", nc, la, lb);
        TL_CHECK(first_diff(a, b, la) == la && canary_intact(a, la, sizeof a),
                 "%u counters: the batch writer differs at %zu", nc, first_diff(a, b, la));
    }
}

/* pcq_put_data_instances_u64 is pcq_put_data_instance_u64 for each
 * instance in turn: its refusals, and where it stops. */
static void test_block_call_errors(void)
{
    static const uint32_t ids[2] = {1, 2};
    static const uint64_t v[6] = {1, 2, 3, 4, 5, 6};
    static const uint8_t bad[2] = {8, 5}, two_sizes[2] = {8, 4};
    static const uint8_t nul_name[6] = {0x61, 0, 0, 0, 0x62, 0};
    uint8_t buf[512], name[16];
    pcq_instance inst[3];
    pcq_writer w;
    size_t n = u16("abcdefg", name), at, len = 0;
    int k;

    memset(inst, 0, sizeof inst);
    for (k = 0; k < 3; k++) {
        inst[k].instance_id = (uint32_t)k;
        inst[k].name.ptr = name;
        inst[k].name.len = n;
    }
    TL_CHECK(pcq_put_data_instances_u64(NULL, inst, 3, v, NULL, 2) == PCQ_ERR_INVALID_ARG, "NULL writer");
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    expect_after("instances outside a block", &w, pcq_put_data_instances_u64(&w, inst, 1, v, NULL, 2),
                 PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 2);
    expect_after("instances in a type 2 block", &w, pcq_put_data_instances_u64(&w, inst, 1, v, NULL, 2),
                 PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    expect_after("NULL instances", &w, pcq_put_data_instances_u64(&w, NULL, 2, v, NULL, 2),
                 PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    at = w.len;
    TL_CHECK(pcq_put_data_instances_u64(&w, NULL, 0, NULL, NULL, 0) == PCQ_OK && w.len == at,
             "no instance: no error, nothing appended");

    /* a bad size: refused before anything is appended */
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    at = w.len;
    TL_CHECK(pcq_put_data_instances_u64(&w, inst, 3, v, bad, 2) == PCQ_ERR_INVALID_ARG && w.len == at,
             "a bad size: INVALID_ARG, len %zu, was %zu", w.len, at);
    expect_after("a bad size", &w, PCQ_ERR_INVALID_ARG, PCQ_ERR_INVALID_ARG);

    /* a U+0000 in the third name: the first two are stored, then the error */
    inst[2].name.ptr = nul_name;
    inst[2].name.len = sizeof nul_name;
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    at = w.len;
    TL_CHECK(pcq_put_data_instances_u64(&w, inst, 3, v, NULL, 2) == PCQ_ERR_INVALID_ARG &&
                 w.len == at + 2 * (8 + 16 + 2 * 16) && w.ninstances == 2,
             "U+0000 in the third name: two instances stored (len %zu, was %zu), then INVALID_ARG", w.len,
             at);
    inst[2].name.ptr = name;
    inst[2].name.len = 7; /* odd */
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    expect_after("an odd third name", &w, pcq_put_data_instances_u64(&w, inst, 3, v, NULL, 2),
                 PCQ_ERR_INVALID_ARG);
    inst[2].name.ptr = NULL;
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    expect_after("a NULL third name", &w, pcq_put_data_instances_u64(&w, inst, 3, v, NULL, 2),
                 PCQ_ERR_INVALID_ARG);
    inst[2].name.ptr = name;
    inst[2].name.len = n;

    /* the count of values a row must be the block's */
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    expect_after("three values a row for two counters", &w,
                 pcq_put_data_instances_u64(&w, inst, 2, v, NULL, 3), PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    /* sizes for the block's two counters: a wrong n must not read a third
     * (the sanitizer builds see a read past the array) */
    expect_after("three values a row, two sizes", &w,
                 pcq_put_data_instances_u64(&w, inst, 2, v, two_sizes, 3), PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    expect_after("one value a row for two counters", &w,
                 (pcq_put_data_instances_u64(&w, inst, 2, v, NULL, 1), pcq_end_block(&w)), PCQ_ERR_STATE);
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    expect_after("values NULL", &w, pcq_put_data_instances_u64(&w, inst, 2, NULL, NULL, 2),
                 PCQ_ERR_INVALID_ARG);

    /* after an instance whose values are still to come, another is out of order */
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    pcq_put_data_instance(&w, 9, name, n);
    expect_after("instances while one wants its values", &w,
                 pcq_put_data_instances_u64(&w, inst, 1, v, NULL, 2), PCQ_ERR_STATE);

    /* a sizing pass and a writer after an error */
    pcq_writer_init(&w, NULL, 0);
    block6(&w);
    TL_CHECK(pcq_put_data_instances_u64(&w, inst, 3, v, NULL, 2) == PCQ_OK && pcq_end_block(&w) == PCQ_OK &&
                 pcq_end_data(&w) == PCQ_OK && pcq_writer_finish(&w, &len) == PCQ_OK &&
                 len == 48 + 16 + 16 + 8 + 3 * (8 + 16 + 2 * 16),
             "sizing pass: %zu bytes", len);
    pcq_writer_init(&w, buf, sizeof buf);
    block6(&w);
    pcq_put_value_u32(&w, 1); /* no instance yet: STATE */
    at = w.len;
    TL_CHECK(pcq_put_data_instances_u64(&w, inst, 3, v, NULL, 2) == PCQ_ERR_STATE && w.len == at,
             "after an error: the error, nothing appended");
}

/* Two writers (the two ways of a property test) on buffers a and b of
 * `size` bytes filled with 0xA5, to cap (NULL buffers: a sizing pass), each
 * with the data header and an open block: type 4, or type 6 of nc counters. */
static void begin_two(pcq_writer *wa, uint8_t *a, pcq_writer *wb, uint8_t *b, size_t size, size_t cap,
                      int sizing, int type4, uint32_t nc)
{
    static const uint32_t ids[3] = {1, 2, 3};
    pcq_writer *w[2];
    uint8_t *buf[2];
    int k;
    w[0] = wa, w[1] = wb, buf[0] = a, buf[1] = b;
    for (k = 0; k < 2; k++) {
        memset(buf[k], 0xA5, size);
        pcq_writer_init(w[k], sizing ? NULL : buf[k], cap);
        begin_hdr(w[k]);
        pcq_begin_block(w[k], type4 ? PCQ_PERF_MULTI_INSTANCES : PCQ_PERF_COUNTERSET, 0, type4 ? NULL : ids,
                        type4 ? 0 : nc);
    }
}

/* pcq_put_data_instances_u64 against pcq_put_data_instance_u64 for each
 * instance (by turns the header's macro, whose inline step takes an
 * instance of one value, and the function): random names (0 to 40 bytes,
 * sometimes odd, NULL or holding a U+0000), sizes (sometimes neither 4 nor
 * 8), values a row (sometimes not the block's) and caps; the two must agree
 * on the status, the length and every byte stored. */
static void test_block_call_property(void)
{
    static uint8_t names[8][48];
    uint8_t a[1024], b[1024], sizes[4]; /* up to 3 counters, one more value a row */
    uint32_t st = 99, nc, ninst, round, i, j;
    uint64_t v[8 * 4];
    pcq_instance inst[8];
    size_t cap, la, lb;
    int ra, rb, type4;

    for (round = 0; round < 4000; round++) {
        pcq_writer wa, wb;
        type4 = rng_next(&st) % 3 == 0;
        nc = type4 ? 1 : rng_next(&st) % 4;
        ninst = rng_next(&st) % 9;
        for (j = 0; j < 4; j++) sizes[j] = rng_next(&st) % 40 == 0 ? 5 : rng_next(&st) % 2 ? 4 : 8;
        for (j = 0; j < 8 * 4; j++) v[j] = ((uint64_t)rng_next(&st) << 40) ^ rng_next(&st);
        memset(inst, 0, sizeof inst);
        for (i = 0; i < ninst; i++) {
            size_t len = 2 * (rng_next(&st) % 21), k;
            for (k = 0; k < len; k++) names[i][k] = (uint8_t)(k % 2 ? 0 : 'a' + rng_next(&st) % 26);
            if (len && rng_next(&st) % 30 == 0) names[i][2 * (rng_next(&st) % (len / 2))] = 0; /* U+0000 */
            if (rng_next(&st) % 40 == 0) len++;                                                /* odd */
            inst[i].instance_id = rng_next(&st);
            inst[i].name.ptr = rng_next(&st) % 60 ? names[i] : NULL;
            inst[i].name.len = len;
        }
        cap = rng_next(&st) % 2 ? sizeof a : rng_next(&st) % 700;
        j = rng_next(&st) % 30 == 0 ? nc + 1 : nc; /* values a row: sometimes not the block's */
        begin_two(&wa, a, &wb, b, sizeof a, cap, 0, type4, nc);
        ra = pcq_put_data_instances_u64(&wa, inst, ninst, v, sizes, j);
        rb = PCQ_OK;
        for (i = 0; i < ninst && rb == PCQ_OK; i++)
            rb = round % 2 ? pcq_put_data_instance_u64(&wb, inst[i].instance_id, inst[i].name.ptr,
                                                       inst[i].name.len, v + (size_t)i * j, sizes, j)
                           : (pcq_put_data_instance_u64)(&wb, inst[i].instance_id, inst[i].name.ptr,
                                                         inst[i].name.len, v + (size_t)i * j, sizes, j);
        if (ninst == 0) rb = wb.err;
        pcq_end_block(&wa);
        pcq_end_block(&wb);
        pcq_end_data(&wa);
        pcq_end_data(&wb);
        la = lb = 0;
        if (!TL_CHECK(ra == rb && pcq_writer_finish(&wa, &la) == pcq_writer_finish(&wb, &lb) && la == lb &&
                          wa.len == wb.len && memcmp(a, b, sizeof a) == 0,
                      "round %u (%u instances, %u values a row of %u, cap %zu): rc %d/%d, len %zu/%zu", round,
                      ninst, j, nc, cap, ra, rb, la, lb))
            break;
    }
}

/* The header's inline instance step (pcq_put_data_instance, a macro) is
 * the function itself, (pcq_put_data_instance), with the values a call
 * each by the macros or by the functions: random names (0 to 80 bytes: the
 * inline step's 8 to 15, 16 to 32 and, with SSE2, 34 to 64, and either
 * side; sometimes odd, NULL or holding a U+0000), values an instance
 * (sometimes one too few or too many), caps
 * (the end of dst anywhere, where an instance fits but its values do not)
 * and sizing passes; the two must agree on every status, the length and
 * every byte of dst. */
static void test_instance_call_property(void)
{
    static uint8_t names[96];
    uint8_t a[1024], b[1024];
    uint32_t st = 7, nc, ninst, nv, round, i, j;
    size_t cap, la, lb, len, k;
    int ra, rb, fa, fb, type4, sizing;

    for (round = 0; round < 6000; round++) {
        pcq_writer wa, wb;
        type4 = rng_next(&st) % 3 == 0;
        nc = type4 ? 1 : rng_next(&st) % 4;
        ninst = rng_next(&st) % 9;
        sizing = rng_next(&st) % 20 == 0;
        cap = rng_next(&st) % 2 ? sizeof a : rng_next(&st) % 700;
        begin_two(&wa, a, &wb, b, sizeof a, cap, sizing, type4, nc);
        for (i = 0; i < ninst; i++) {
            const uint8_t *name = rng_next(&st) % 60 ? names : NULL;
            len = 2 * (rng_next(&st) % 41);
            for (k = 0; k < len; k++) names[k] = (uint8_t)(k % 2 ? 0 : 'a' + rng_next(&st) % 26);
            if (len && rng_next(&st) % 30 == 0) names[2 * (rng_next(&st) % (len / 2))] = 0; /* U+0000 */
            if (rng_next(&st) % 40 == 0) len++;                                             /* odd */
            j = rng_next(&st);
            ra = pcq_put_data_instance(&wa, j, name, len);
            rb = (pcq_put_data_instance)(&wb, j, name, len);
            if (!TL_CHECK(ra == rb && wa.len == wb.len,
                          "round %u instance %u (%zu bytes): rc %d/%d, len %zu/%zu", round, i, len, ra, rb,
                          wa.len, wb.len))
                return;
            nv = rng_next(&st) % 25 == 0 ? nc + 1 : rng_next(&st) % 25 == 0 && nc ? nc - 1 : nc;
            for (k = 0; k < nv; k++) {
                uint64_t v = ((uint64_t)rng_next(&st) << 40) ^ rng_next(&st);
                if (rng_next(&st) % 2) {
                    ra = pcq_put_value_u32(&wa, (uint32_t)v);
                    rb = (pcq_put_value_u32)(&wb, (uint32_t)v);
                } else {
                    ra = pcq_put_value_u64(&wa, v);
                    rb = (pcq_put_value_u64)(&wb, v);
                }
                if (!TL_CHECK(ra == rb && wa.len == wb.len, "round %u value %zu: rc %d/%d", round, k, ra, rb))
                    return;
            }
        }
        pcq_end_block(&wa);
        pcq_end_block(&wb);
        pcq_end_data(&wa);
        pcq_end_data(&wb);
        la = lb = 0;
        fa = pcq_writer_finish(&wa, &la);
        fb = pcq_writer_finish(&wb, &lb);
        if (!TL_CHECK(fa == fb && la == lb && memcmp(a, b, sizeof a) == 0,
                      "round %u (%u instances of %u values, cap %zu%s): finish %d/%d, len %zu/%zu", round,
                      ninst, nc, cap, sizing ? ", sizing" : "", fa, fb, la, lb))
            return;
    }
}

static void test_invalid_args(void)
{
    static const uint64_t v1 = 1;
    static const uint8_t odd[3] = {0x61, 0, 0x62};
    static const uint8_t nul_inside[6] = {0x61, 0, 0, 0, 0x62, 0};
    static const uint32_t ids[2] = {1, 2};
    uint8_t buf[256];
    pcq_string_entry e;
    pcq_identifier id;
    pcq_writer w;
    int rc;

    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("odd name", &w, pcq_put_instance(&w, 1, odd, 3), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NULL name", &w, pcq_put_instance(&w, 1, NULL, 2), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NUL inside name", &w, pcq_put_instance(&w, 1, nul_inside, 6), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NUL inside string", &w, pcq_put_string(&w, nul_inside, 6), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("odd string", &w, pcq_put_string(&w, odd, 3), PCQ_ERR_INVALID_ARG);

    memset(&id, 0, sizeof id);
    id.name.ptr = odd;
    id.name.len = 3;
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("odd identifier name", &w, pcq_put_identifier(&w, &id), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NULL identifier", &w, pcq_put_identifier(&w, NULL), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NULL guid", &w, pcq_put_guid(&w, NULL), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NULL counterset", &w, pcq_put_counterset_reg(&w, NULL), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NULL counter", &w, pcq_put_counter_reg(&w, NULL), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NULL data header", &w, pcq_begin_data(&w, NULL), PCQ_ERR_INVALID_ARG);

    memset(&e, 0, sizeof e);
    e.present = 1;
    e.text.ptr = nul_inside;
    e.text.len = 6;
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NUL inside string entry", &w, pcq_put_strings(&w, &e, 1, PCQ_STROFF_WIN32),
                 PCQ_ERR_INVALID_ARG);
    e.text.len = 1;
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("odd string entry", &w, pcq_put_strings(&w, &e, 1, PCQ_STROFF_WIN32), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("NULL entries", &w, pcq_put_strings(&w, NULL, 2, PCQ_STROFF_WIN32), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    expect_after("bad convention", &w, pcq_put_strings(&w, NULL, 0, (pcq_str_convention)7),
                 PCQ_ERR_INVALID_ARG);

    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    expect_after("ids for type 1", &w, pcq_begin_block(&w, 1, 0, ids, 2), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    expect_after("ids for type 4", &w, pcq_begin_block(&w, 4, 0, ids, 1), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    begin_hdr(&w);
    expect_after("NULL ids", &w, pcq_begin_block(&w, 2, 0, NULL, 2), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    block1(&w);
    expect_after("NULL value", &w, pcq_put_value(&w, NULL, 4), PCQ_ERR_INVALID_ARG);
    pcq_writer_init(&w, buf, sizeof buf);
    block4(&w);
    expect_after("odd data instance name", &w, pcq_put_data_instance(&w, 1, odd, 3), PCQ_ERR_INVALID_ARG);

    /* NULL writer: nothing to make sticky, just the status. */
    pcq_writer_init(NULL, buf, sizeof buf);
    rc = pcq_put_guid(NULL, &guid_pcq);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG, "NULL writer: rc %d", rc);
    rc = pcq_writer_finish(NULL, NULL);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG, "NULL writer finish: rc %d", rc);
    rc = pcq_put_data_instance_u64(NULL, 1, odd, 2, &v1, NULL, 1);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG, "NULL writer, a whole instance: rc %d", rc);

    /* The first error wins over later ones. */
    pcq_writer_init(&w, buf, sizeof buf);
    pcq_put_instance(&w, 1, odd, 3);
    rc = pcq_end_block(&w);
    TL_CHECK(rc == PCQ_ERR_INVALID_ARG && w.err == PCQ_ERR_INVALID_ARG, "first error kept: %d", rc);
    /* A zero-length value is legal: dwSize 16, 8 zero bytes. */
    pcq_writer_init(&w, buf, sizeof buf);
    block1(&w);
    rc = pcq_put_value(&w, NULL, 0);
    TL_CHECK(rc == PCQ_OK && w.len == 48 + 16 + 16, "empty value: rc %d len %zu", rc, w.len);
}

/* Sizes that do not fit the 32-bit wire fields. These run as sizing passes
 * (dst == NULL), in which the writer never reads name or value bytes, so a
 * small array can stand for a huge one. */
static void test_overflow(void)
{
    static const uint8_t dummy[16] = {0x61, 0};
    pcq_string_entry e;
    pcq_writer w;
    pcq_identifier id;
    int rc;

    pcq_writer_init(&w, NULL, 0);
    block1(&w);
    expect_after("value of 0xFFFFFFF9 bytes", &w, pcq_put_value(&w, dummy, 0xFFFFFFF9u), PCQ_ERR_OVERFLOW);

    /* dwSize of the value fits (0xFFFFFFF8), the block's does not. */
    pcq_writer_init(&w, NULL, 0);
    block1(&w);
    pcq_put_value(&w, dummy, 0xFFFFFFF0u);
    expect_after("block over 4 GiB", &w, pcq_end_block(&w), PCQ_ERR_OVERFLOW);

    pcq_writer_init(&w, NULL, 0);
    expect_after("name over 4 GiB", &w, pcq_put_instance(&w, 1, dummy, (size_t)0xFFFFFFF8u),
                 PCQ_ERR_OVERFLOW);
    memset(&id, 0, sizeof id);
    id.name.ptr = dummy;
    id.name.len = (size_t)0xFFFFFFD6u; /* 40 + this + 2 = 2^32 */
    pcq_writer_init(&w, NULL, 0);
    expect_after("identifier over 4 GiB", &w, pcq_put_identifier(&w, &id), PCQ_ERR_OVERFLOW);
    pcq_writer_init(&w, NULL, 0);
    block4(&w);
    expect_after("data instance over 4 GiB", &w, pcq_put_data_instance(&w, 1, dummy, (size_t)0xFFFFFFFEu),
                 PCQ_ERR_OVERFLOW);

    /* Two blocks that fit their dwSize, a buffer that does not fit dwTotalSize. */
    pcq_writer_init(&w, NULL, 0);
    block1(&w);
    pcq_put_value(&w, dummy, 0x80000000u);
    pcq_end_block(&w);
    pcq_begin_block(&w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
    pcq_put_value(&w, dummy, 0x80000000u);
    rc = pcq_end_block(&w);
#if SIZE_MAX > 0xFFFFFFFFu /* with a 32-bit size_t the length overflows first: the same error, earlier */
    TL_CHECK(rc == PCQ_OK, "two blocks of 2 GiB each: fine, rc %d", rc);
#endif
    expect_after("data buffer over 4 GiB", &w, pcq_end_data(&w), PCQ_ERR_OVERFLOW);
    /* A type 4 block over 4 GiB: _PERF_MULTI_INSTANCES.dwTotalSize does not
     * fit, then dwSize neither; the first error is the one kept. */
    pcq_writer_init(&w, NULL, 0);
    block4(&w);
    pcq_put_data_instance(&w, 1, dummy, 2);
    pcq_put_value(&w, dummy, 0xFFFFFFF0u);
    expect_after("type 4 block over 4 GiB", &w, pcq_end_block(&w), PCQ_ERR_OVERFLOW);

    memset(&e, 0, sizeof e);
    e.present = 1;
    e.text.ptr = dummy;
    e.text.len = (size_t)0xFFFFFFFEu;
    pcq_writer_init(&w, NULL, 0);
    expect_after("string block over 4 GiB", &w, pcq_put_strings(&w, &e, 1, PCQ_STROFF_WIN32),
                 PCQ_ERR_OVERFLOW);
}

static void test_limits(void)
{
    static const uint32_t ids[1] = {0};
    static const pcq_string_entry e[1];
    pcq_writer w;
    uint32_t i;
    int rc = PCQ_OK;

    /* Counts are refused before the arrays are read (one element here). */
    pcq_writer_init(&w, NULL, 0);
    begin_hdr(&w);
    expect_after("too many counter ids", &w,
                 pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, PCQ_MAX_COUNTERS + 1u), PCQ_ERR_LIMIT);
    pcq_writer_init(&w, NULL, 0);
    expect_after("too many string entries", &w,
                 pcq_put_strings(&w, e, PCQ_MAX_COUNTERS + 1u, PCQ_STROFF_WIN32), PCQ_ERR_LIMIT);

#if PCQ_MAX_COUNTERS <= (1u << 20)
    /* dwNumCounter: PCQ_MAX_COUNTERS blocks are fine, one more is not. */
    pcq_writer_init(&w, NULL, 0);
    begin_hdr(&w);
    for (i = 0; i < PCQ_MAX_COUNTERS && rc == PCQ_OK; i++) rc = pcq_put_error_block(&w, 0);
    TL_CHECK(rc == PCQ_OK, "PCQ_MAX_COUNTERS blocks: rc %d", rc);
    expect_after("one block too many", &w, pcq_put_error_block(&w, 0), PCQ_ERR_LIMIT);
#else
    (void)i;
    (void)rc;
#endif

#if PCQ_MAX_INSTANCES <= 64 /* the coverage build's caps (COV_KNOBS): a block of that many fits here */
    {
        /* dwInstances: PCQ_MAX_INSTANCES instances, then PCQ_ERR_LIMIT, an
         * instance a call, all in one (which stores as many first), or an
         * instance and its value a call each, the instance by the header's
         * inline step (a name of 8 bytes), or an instance of one value a
         * call by the inline step that stores both (the limit is in
         * inst_lim's bytes there: wr_inst_lim) */
        static uint8_t buf[48 + 32 + 68 * 40];
        static const uint64_t v[PCQ_MAX_INSTANCES + 2];
        static const uint8_t a16[8] = {0x61, 0, 0x62, 0, 0x63, 0, 0x64, 0};
        pcq_instance inst[PCQ_MAX_INSTANCES + 2];
        int block;
        memset(inst, 0, sizeof inst);
        for (i = 0; i < PCQ_MAX_INSTANCES + 2; i++) {
            inst[i].name.ptr = a16;
            inst[i].name.len = 2;
        }
        for (block = 0; block < 4; block++) {
            pcq_writer_init(&w, buf, sizeof buf);
            block4(&w);
            rc = PCQ_OK;
            for (i = 0; block != 1 && i < PCQ_MAX_INSTANCES + 2 && rc == PCQ_OK; i++) {
                if (block == 0) rc = pcq_put_data_instance_u64(&w, i, a16, 2, v, NULL, 1);
                if (block == 3) rc = pcq_put_data_instance_u64(&w, i, a16, 8, v, NULL, 1);
                if (block == 2 && (rc = pcq_put_data_instance(&w, i, a16, 8)) == PCQ_OK)
                    rc = pcq_put_value_u32(&w, i);
            }
            if (block == 1) rc = pcq_put_data_instances_u64(&w, inst, PCQ_MAX_INSTANCES + 2, v, NULL, 1);
            TL_CHECK(rc == PCQ_ERR_LIMIT && w.ninstances == PCQ_MAX_INSTANCES,
                     "PCQ_MAX_INSTANCES + 2 instances (block call %d): rc %d after %u", block, rc,
                     w.ninstances);
        }
    }
#endif
}

/* A writer into a buffer with no room at all, and a straddling structure. */
static void test_capacity_misc(void)
{
    uint8_t buf[32];
    pcq_writer w;
    size_t len;
    int rc;

    memset(buf, CANARY, sizeof buf);
    pcq_writer_init(&w, buf, 0);
    pcq_put_guid(&w, &guid_pcq);
    rc = pcq_writer_finish(&w, &len);
    TL_CHECK(rc == PCQ_ERR_BUFFER_TOO_SMALL && len == 16 && canary_intact(buf, 0, sizeof buf),
             "cap 0: rc %d len %zu", rc, len);

    /* Exactly enough room. */
    pcq_writer_init(&w, buf, 16);
    pcq_put_guid(&w, &guid_pcq);
    rc = pcq_writer_finish(&w, &len);
    TL_CHECK(rc == PCQ_OK && len == 16 && canary_intact(buf, 16, sizeof buf), "exact cap: rc %d len %zu", rc,
             len);

    /* An empty writer. */
    pcq_writer_init(&w, buf, sizeof buf);
    rc = pcq_writer_finish(&w, &len);
    TL_CHECK(rc == PCQ_OK && len == 0, "empty: rc %d len %zu", rc, len);
    rc = pcq_writer_finish(&w, NULL);
    TL_CHECK(rc == PCQ_OK, "finish with NULL len: rc %d", rc);
}

int main(void)
{
    test_batch_errors();
    test_cases();
    test_reencode_fixed_point();
    test_reencode_packed();
    test_reencode_errors();
    test_state();
    test_invalid_args();
    test_fast_path_errors();
    test_block_call_errors();
    test_wide_rows();
    test_block_call_property();
    test_instance_call_property();
    test_overflow();
    test_limits();
    test_capacity_misc();
    return tl_finish();
}
