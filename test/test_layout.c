/* SPDX-License-Identifier: MIT */
/*
 * test_layout.c - the layout description (pcq_struct_info_of), the field
 * accessors (pcq_field_get, pcq_field_value_name, pcq_item_field), and the
 * small public helpers' argument checks: what a tool built on the layout
 * (pcqdump, the Wireshark plugin, the Python binding) relies on.
 */
#include "pcq_codec.h"
#include "testlib.h"

#include <string.h>

static int numeric(int type)
{
    return type == PCQ_FT_U16 || type == PCQ_FT_U32 || type == PCQ_FT_I32 || type == PCQ_FT_U64;
}

static size_t size_of_type(int type)
{
    switch (type) {
    case PCQ_FT_U16: return 2;
    case PCQ_FT_U32:
    case PCQ_FT_I32: return 4;
    case PCQ_FT_U64: return 8;
    case PCQ_FT_GUID: return 16;
    default: return 0;
    }
}

/* Every structure: its fields in wire order inside its fixed part, the
 * variable parts last, every name present, every `what` naming the field. */
static void test_descriptions(void)
{
    int t;
    size_t i, end;
    TL_CHECK(pcq_struct_info_of(PCQ_S_NONE) == NULL && pcq_struct_info_of(PCQ_S_END_) == NULL &&
                 pcq_struct_info_of(-1) == NULL,
             "no description outside the types");
    for (t = PCQ_S_NONE + 1; t < PCQ_S_END_; t++) {
        const pcq_struct_info *s = pcq_struct_info_of(t);
        int variable = 0;
        TL_CHECK(s && s->type == t && s->name[0] && strncmp(s->section, "§", 2) == 0 && s->nfields > 0,
                 "structure %d described", t);
        if (!s) continue;
        for (i = 0, end = 0; i < s->nfields; i++) {
            const pcq_field *f = &s->fields[i];
            TL_CHECK(f->name && f->key && f->abbrev && f->what && f->name[0] && f->abbrev[0],
                     "%s field %zu named", s->name, i);
            TL_CHECK(strstr(f->what, f->name) != NULL && strncmp(f->what, s->name, strlen(s->name)) == 0,
                     "%s.%s: what is %s", s->name, f->name, f->what);
            if (f->size == 0) {
                variable = 1;
                TL_CHECK(!numeric(f->type) && f->type != PCQ_FT_GUID, "%s.%s variable", s->name, f->name);
                continue;
            }
            TL_CHECK(!variable, "%s.%s: a fixed field after a variable part", s->name, f->name);
            TL_CHECK(f->size == size_of_type(f->type), "%s.%s: %u bytes for its type", s->name, f->name,
                     f->size);
            TL_CHECK(f->offset >= end && f->offset + (size_t)f->size <= s->size,
                     "%s.%s at %u + %u, after %zu, inside %zu", s->name, f->name, f->offset, f->size, end,
                     s->size);
            end = f->offset + (size_t)f->size;
        }
        TL_CHECK(s->size == 0 || end == s->size, "%s: fields cover %zu of %zu bytes", s->name, end, s->size);
    }
}

static const pcq_field *field(int type, const char *name)
{
    const pcq_struct_info *s = pcq_struct_info_of(type);
    size_t i;
    for (i = 0; s && i < s->nfields; i++)
        if (strcmp(s->fields[i].name, name) == 0) return &s->fields[i];
    tl_fail("no field %s", name);
    return &pcq_struct_info_of(PCQ_S_COUNTER_HEADER)->fields[0];
}

static void test_field_get(void)
{
    uint8_t b[48];
    uint64_t v = 0;
    const pcq_field *scale = field(PCQ_S_COUNTER_REG_INFO, "DefaultScale");
    const pcq_field *attrib = field(PCQ_S_COUNTER_REG_INFO, "Attrib");
    const pcq_field *year = field(PCQ_S_DATA_HEADER, "SystemTime.wYear");
    const pcq_field *guid = field(PCQ_S_COUNTER_IDENTIFIER, "CounterSetGuid");
    memset(b, 0, sizeof b);
    b[20] = 0xF6;
    b[21] = 0xFF;
    b[22] = 0xFF;
    b[23] = 0xFF; /* DefaultScale -10 */
    b[8] = 1;
    b[15] = 0x80; /* Attrib, bit 63 and 0 */
    TL_CHECK(pcq_field_get(scale, b, sizeof b, 0, &v) == PCQ_OK && v == (uint64_t)0 - 10,
             "I32 sign-extended: 0x%llx", (unsigned long long)v);
    TL_CHECK(pcq_field_get(attrib, b, sizeof b, 0, &v) == PCQ_OK && v == 0x8000000000000001u,
             "U64 read whole");
    b[32] = 0xE8;
    b[33] = 0x07;
    TL_CHECK(pcq_field_get(year, b, sizeof b, 0, &v) == PCQ_OK && v == 2024, "U16 read");
    TL_CHECK(pcq_field_get(scale, b, 23, 0, &v) == PCQ_ERR_TRUNCATED, "a field past the end");
    TL_CHECK(pcq_field_get(scale, b, sizeof b, 49, &v) == PCQ_ERR_TRUNCATED, "a structure past the end");
    TL_CHECK(pcq_field_get(scale, b, sizeof b, 40, &v) == PCQ_ERR_TRUNCATED, "a structure cut");
    TL_CHECK(pcq_field_get(guid, b, sizeof b, 0, &v) == PCQ_ERR_INVALID_ARG, "a GUID is no number");
    TL_CHECK(pcq_field_get(NULL, b, sizeof b, 0, &v) == PCQ_ERR_INVALID_ARG &&
                 pcq_field_get(scale, b, sizeof b, 0, NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_field_get(scale, NULL, 4, 0, &v) == PCQ_ERR_INVALID_ARG,
             "NULL arguments");
}

static void test_value_names(void)
{
    struct {
        int type;
        const char *field;
        uint64_t v;
        const char *want;
    } c[] = {
        {PCQ_S_STRING_COUNTER_HEADER, "dwOffset", 0xFFFFFFFFu, "absent"},
        {PCQ_S_COUNTER_IDENTIFIER, "CounterId", 0xFFFFFFFFu, "wildcard"},
        {PCQ_S_COUNTER_REG_INFO, "BaseCounterId", 0xFFFFFFFFu, "none"},
        {PCQ_S_COUNTER_REG_INFO, "BaseCounterId", 7, NULL},
        {PCQ_S_COUNTER_HEADER, "dwStatus", 232, "ERROR_NO_DATA"},
        {PCQ_S_COUNTER_HEADER, "dwStatus", 12345, NULL},
        {PCQ_S_COUNTER_HEADER, "dwType", 6, "PERF_COUNTERSET"},
        {PCQ_S_COUNTER_REG_INFO, "Type", 0x10410400u, "PERF_COUNTER_COUNTER"},
        {PCQ_S_COUNTER_REG_INFO, "Type", 0x80000000u, "PERF_COUNTER_HISTOGRAM_TYPE"},
        {PCQ_S_COUNTER_REG_INFO, "DetailLevel", 200, "PERF_DETAIL_ADVANCED"},
        {PCQ_S_COUNTERSET_REG_INFO, "InstanceType", 2, "PERF_COUNTERSET_MULTI_INSTANCES"},
        {PCQ_S_COUNTER_REG_INFO, "AggregateFunc", 1, "PERF_AGGREGATE_TOTAL"},
        {PCQ_S_COUNTER_REG_INFO, "CounterId", 1, NULL},
        {PCQ_S_COUNTER_HEADER, "dwType", 0x100000000u, NULL},
    };
    size_t i;
    for (i = 0; i < sizeof c / sizeof c[0]; i++) {
        const char *got = pcq_field_value_name(field(c[i].type, c[i].field), c[i].v);
        TL_CHECK(c[i].want ? got && strcmp(got, c[i].want) == 0 : got == NULL, "%s of %llu: %s", c[i].field,
                 (unsigned long long)c[i].v, got ? got : "NULL");
    }
    TL_CHECK(pcq_field_value_name(NULL, 1) == NULL, "NULL field");
}

static void test_item_field(void)
{
    static const uint8_t inst[16] = {16, 0, 0, 0, 5, 0, 0, 0, 'a', 0, 'b', 0, 0, 0, 0, 0};
    pcq_walk w;
    pcq_item it;
    pcq_field_value v;
    const pcq_struct_info *s = pcq_struct_info_of(PCQ_S_INSTANCE);
    pcq_walk_begin(&w, PCQ_KIND_INSTANCES, inst, sizeof inst, NULL);
    TL_CHECK(pcq_walk_next(&w, &it) == 1 && it.type == PCQ_S_INSTANCE, "one instance");
    TL_CHECK(pcq_item_field(&it, &s->fields[1], inst, sizeof inst, &v) == PCQ_V_UNSIGNED && v.u == 5 &&
                 v.offset == 4,
             "InstanceId 5 at 4");
    TL_CHECK(pcq_item_field(&it, &s->fields[2], inst, sizeof inst, &v) == PCQ_V_TEXT && v.bytes.len == 4 &&
                 v.offset == 8,
             "its name, 4 bytes at 8");
    TL_CHECK(pcq_item_field(&it, &s->fields[1], inst, 6, &v) == PCQ_V_NONE, "a field past the input");
    TL_CHECK(pcq_item_field(NULL, &s->fields[1], inst, sizeof inst, &v) == PCQ_V_NONE &&
                 pcq_item_field(&it, NULL, inst, sizeof inst, &v) == PCQ_V_NONE &&
                 pcq_item_field(&it, &s->fields[1], NULL, 4, &v) == PCQ_V_NONE &&
                 pcq_item_field(&it, &s->fields[1], inst, sizeof inst, NULL) == PCQ_V_NONE,
             "NULL arguments");
    it.partial = 1;
    TL_CHECK(pcq_item_field(&it, &s->fields[2], inst, sizeof inst, &v) == PCQ_V_NONE,
             "no name from a partial item");
    it.size = 4;
    TL_CHECK(pcq_item_field(&it, &s->fields[1], inst, sizeof inst, &v) == PCQ_V_NONE,
             "no field past the bytes read");
    it.offset = 100;
    TL_CHECK(pcq_item_field(&it, &s->fields[0], inst, sizeof inst, &v) == PCQ_V_NONE,
             "an item past the input");
}

/* A string block: pcq_strings_peek gives each entry without its text. */
static void test_strings_peek(void)
{
    static const uint8_t blk[32] = {32, 0, 0, 0, 2,    0,    0,    0,    9,   0, 0,   0, 24, 0, 0, 0,
                                    4,  0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 'x', 0, 'y', 0, 0,  0, 0, 0};
    pcq_strings s;
    pcq_string_entry e, g;
    TL_CHECK(pcq_decode_strings(blk, sizeof blk, NULL, &s, NULL) == PCQ_OK, "decodes");
    TL_CHECK(pcq_strings_peek(&s, 0, &e) == PCQ_OK && e.counter_id == 9 && e.present && e.text_offset == 24 &&
                 e.text.len == 0 && e.text.ptr == blk + 24,
             "entry 0 peeked");
    TL_CHECK(pcq_strings_get(&s, 0, &g) == PCQ_OK && g.text.len == 4 && g.text.ptr == e.text.ptr,
             "entry 0 with its text");
    TL_CHECK(pcq_strings_peek(&s, 1, &e) == PCQ_OK && !e.present && e.text.ptr == NULL, "entry 1 absent");
    TL_CHECK(pcq_strings_peek(&s, 2, &e) == PCQ_ERR_INVALID_ARG &&
                 pcq_strings_peek(NULL, 0, &e) == PCQ_ERR_INVALID_ARG &&
                 pcq_strings_peek(&s, 0, NULL) == PCQ_ERR_INVALID_ARG,
             "bad arguments");
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Decoders with no out-parameter, the batch accessor, small helpers. */
static void test_small_things(void)
{
    uint8_t data[112], cset[32], g[16], str[4] = {'a', 0, 0, 0};
    pcq_data d;
    pcq_iter it;
    pcq_block b;
    pcq_vref r[4];
    pcq_item item;
    uint32_t base = 1;
    pcq_walk w;

    TL_CHECK(pcq_error_set(NULL, PCQ_ERR_TRUNCATED, 1, "x") == PCQ_ERR_TRUNCATED, "pcq_error_set(NULL)");
    TL_CHECK(pcq_counter_type_requires(0x20020400u, NULL) == PCQ_REQ_BASE, "requires, no base out");
    TL_CHECK(pcq_counter_type_requires(0x12345678u, &base) == 0 && base == 0, "unknown type");
    TL_CHECK(pcq_counter_type_requires(0x30240500u, &base) == PCQ_REQ_TIME && base == 0, "ELAPSED_TIME");
    pcq_walk_begin(&w, PCQ_KIND_DATA, NULL, 4, NULL);
    TL_CHECK(w.err.code == PCQ_ERR_INVALID_ARG && pcq_walk_next(&w, &item) == PCQ_ERR_INVALID_ARG,
             "NULL buffer with a length");
    pcq_walk_begin(&w, (pcq_kind)42, g, sizeof g, NULL);
    TL_CHECK(w.err.code == PCQ_ERR_INVALID_ARG && strcmp(w.err.what, "kind") == 0, "unknown kind");

    /* A PERF_MULTI_COUNTERS block with ids 7 and 9 and values 100 (4 bytes), 200 (8). */
    memset(data, 0, sizeof data);
    put32(data, 112);
    put32(data + 4, 1);
    put32(data + 52, 2);  /* dwType */
    put32(data + 56, 64); /* dwSize */
    put32(data + 64, 16); /* _PERF_MULTI_COUNTERS.dwSize */
    put32(data + 68, 2);
    put32(data + 72, 7);
    put32(data + 76, 9);
    put32(data + 80, 4);
    put32(data + 84, 16);
    put32(data + 88, 100);
    put32(data + 96, 8);
    put32(data + 100, 16);
    put32(data + 104, 200);
    TL_CHECK(pcq_decode_data(data, sizeof data, NULL, NULL, NULL) == PCQ_OK, "decode without out");
    TL_CHECK(pcq_decode_data(data, sizeof data, NULL, &d, NULL) == PCQ_OK, "decode");
    pcq_data_blocks(&d, &it);
    TL_CHECK(pcq_blocks_next(&it, &b) == 1 && b.num_counters == 2, "the block");
    pcq_block_values(&d, &b, &it);
    TL_CHECK(pcq_values_read(&it, r, 1) == 1 && r[0].u64 == 100 && r[0].offset == 80 && r[0].data_size == 4,
             "a batch of one");
    TL_CHECK(pcq_values_read(&it, r, 4) == 1 && r[0].u64 == 200 && r[0].data_size == 8, "the rest");
    TL_CHECK(pcq_values_read(&it, r, 4) == 0 && it.err.code == 0, "then nothing");
    TL_CHECK(pcq_values_read(NULL, r, 4) == 0 && pcq_values_read(&it, NULL, 4) == 0, "NULL arguments");

    memset(cset, 0, sizeof cset);
    put32(cset + 20, 100); /* DetailLevel */
    TL_CHECK(pcq_decode_counterset_info(cset, sizeof cset, NULL, NULL, NULL) == PCQ_OK &&
                 pcq_decode_counter_info(data, 48, NULL, NULL, NULL) == PCQ_OK &&
                 pcq_decode_strings(data + 64, 16, NULL, NULL, NULL) == PCQ_ERR_TRUNCATED &&
                 pcq_decode_string(str, sizeof str, NULL, NULL, NULL) == PCQ_OK &&
                 pcq_decode_guid(g, sizeof g, NULL, NULL, NULL) == PCQ_OK &&
                 pcq_decode_guids(g, sizeof g, NULL, NULL, NULL) == PCQ_OK,
             "every decoder without an out-parameter");
}

int main(void)
{
    test_descriptions();
    test_field_get();
    test_value_names();
    test_item_field();
    test_strings_peek();
    test_small_things();
    return tl_finish();
}
