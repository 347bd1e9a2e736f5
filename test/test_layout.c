/* SPDX-License-Identifier: MIT */
/*
 * test_layout.c - the layout description (pcq_struct_info_of), the field
 * accessors (pcq_field_get, pcq_field_value_name, pcq_item_field), and the
 * small public helpers' argument checks: what a tool built on the layout
 * (pcqdump, the Wireshark plugin, the Python binding) relies on.
 */
#include "pcq_codec.h"
#include "testlib.h"

#include <stdlib.h>
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
    TL_CHECK(pcq_field_get(scale, NULL, 0, 0, &v) == PCQ_ERR_TRUNCATED,
             "no bytes at all: the field is past the end");
    {
        /* A field a caller made, whose type reads more bytes than its size
         * says: it was read whole (8 bytes where 2 were checked, past the
         * end of the 2 bytes given: ASan saw it). */
        uint8_t two[2] = {1, 2};
        pcq_field bad = *year;
        bad.offset = 0;
        bad.type = PCQ_FT_U64;
        TL_CHECK(pcq_field_get(&bad, two, sizeof two, 0, &v) == PCQ_ERR_INVALID_ARG,
                 "a U64 field of 2 bytes is refused, not read");
        bad.type = 200;
        TL_CHECK(pcq_field_get(&bad, two, sizeof two, 0, &v) == PCQ_ERR_INVALID_ARG, "an unknown type");
        bad.type = PCQ_FT_U16;
        TL_CHECK(pcq_field_get(&bad, two, sizeof two, 0, &v) == PCQ_OK && v == 0x0201,
                 "made right, it reads");
    }
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
    /* No bytes: no fixed field, but a variable part comes from the item. */
    TL_CHECK(pcq_item_field(&it, &s->fields[1], NULL, 0, &v) == PCQ_V_NONE, "no bytes, no InstanceId");
    TL_CHECK(pcq_item_field(&it, &s->fields[2], NULL, 0, &v) == PCQ_V_TEXT && v.bytes.ptr == inst + 8 &&
                 v.bytes.len == 4,
             "no bytes, the name from the item");
    {
        /* Fields a caller made from InstanceId: read by their type, and
         * refused when the type reads more than the size (a U64 of 4 bytes
         * at 12 read 4 bytes past the 16 given: ASan saw it). */
        static const uint8_t neg[16] = {16, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0};
        pcq_field f = s->fields[1];
        pcq_item n = it;
        f.type = PCQ_FT_I32;
        n.offset = 0;
        TL_CHECK(pcq_item_field(&n, &f, neg, sizeof neg, &v) == PCQ_V_SIGNED && v.i == -2 &&
                     v.u == (uint64_t)0 - 2 && v.offset == 4,
                 "an I32 read signed: %lld", (long long)v.i);
        f.offset = 12;
        f.type = PCQ_FT_U64;
        TL_CHECK(pcq_item_field(&n, &f, neg, sizeof neg, &v) == PCQ_V_NONE && v.u == 0 && v.offset == 0,
                 "a U64 field of 4 bytes is refused, not read");
        f.type = 0;
        TL_CHECK(pcq_item_field(&n, &f, neg, sizeof neg, &v) == PCQ_V_NONE, "no type");
        f.offset = 0;
        f.size = 16;
        f.type = PCQ_FT_GUID;
        TL_CHECK(pcq_item_field(&n, &f, neg, sizeof neg, &v) == PCQ_V_GUID && v.guid.data1 == 16 &&
                     v.guid.data2 == 0xFFFE,
                 "16 bytes read as a GUID");
    }
    {
        /* Another structure's variable part: a string's text or a value read
         * from an instance's union member was a view of whatever its bytes
         * held, not of the input. Refused, as is an item of no known type. */
        const pcq_struct_info *str = pcq_struct_info_of(PCQ_S_STRING);
        const pcq_struct_info *data = pcq_struct_info_of(PCQ_S_COUNTER_DATA);
        const pcq_struct_info *sbh = pcq_struct_info_of(PCQ_S_STRING_BUFFER_HEADER);
        pcq_item n = it;
        TL_CHECK(pcq_item_field(&it, &str->fields[0], inst, sizeof inst, &v) == PCQ_V_NONE &&
                     v.bytes.ptr == NULL && v.bytes.len == 0,
                 "no string text from an instance");
        TL_CHECK(pcq_item_field(&it, &data->fields[2], inst, sizeof inst, &v) == PCQ_V_NONE,
                 "no value from an instance");
        TL_CHECK(pcq_item_field(&it, &sbh->fields[sbh->nfields - 1], inst, sizeof inst, &v) == PCQ_V_NONE,
                 "no convention from an instance");
        n.type = PCQ_S_COUNTER_DATA;
        TL_CHECK(pcq_item_field(&n, &s->fields[2], inst, sizeof inst, &v) == PCQ_V_NONE,
                 "no instance name from a value");
        n.type = PCQ_S_END_;
        TL_CHECK(pcq_item_field(&n, &s->fields[2], inst, sizeof inst, &v) == PCQ_V_NONE, "no unknown type");
        n.type = PCQ_S_COUNTER_ID;
        TL_CHECK(pcq_item_field(&n, &s->fields[2], inst, sizeof inst, &v) == PCQ_V_NONE,
                 "no name from a structure without a variable part");
        {
            pcq_field z = s->fields[1];
            z.size = 0;
            TL_CHECK(pcq_item_field(&it, &z, inst, sizeof inst, &v) == PCQ_V_NONE && v.offset == 0,
                     "a U32 of no size is no field");
        }
    }
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

/* pcq_item_is_element, from its comment in pcq_codec.h: the items shown as
 * name[index] are string entries, opnum 0 GUIDs, instances, identifiers,
 * data blocks, counter ids, data instances, a counter's registration info in
 * a counterset-info reply (not the lone one of a counter-info reply), and a
 * value that is one of a list (of a type 2 or 6 block), not the only value a
 * type 1 block or a type 4 instance has. */
static int element_by_doc(int type, pcq_kind kind, uint32_t block_type)
{
    switch (type) {
    case PCQ_S_STRING_COUNTER_HEADER:
    case PCQ_S_COUNTERSET_GUID:
    case PCQ_S_INSTANCE:
    case PCQ_S_COUNTER_IDENTIFIER:
    case PCQ_S_COUNTER_HEADER:
    case PCQ_S_COUNTER_ID:
    case PCQ_S_DATA_INSTANCE: return 1;
    case PCQ_S_COUNTER_REG_INFO: return kind == PCQ_KIND_COUNTERSET_INFO;
    case PCQ_S_COUNTER_DATA:
        return block_type == PCQ_PERF_MULTI_COUNTERS || block_type == PCQ_PERF_COUNTERSET;
    default: return 0; /* the headers, a lone string or GUID, PCQ_S_NONE */
    }
}

/* Walks buf as kind: every item is an element or not as the comment says;
 * seen[t] counts the items of each structure type. */
static void check_elements(pcq_kind kind, const uint8_t *buf, size_t len, unsigned *seen)
{
    pcq_walk w;
    pcq_item it;
    uint32_t block_type = 0;
    int rc;
    pcq_walk_begin(&w, kind, buf, len, NULL);
    while ((rc = pcq_walk_next(&w, &it)) == 1) {
        int want;
        if (it.type == PCQ_S_COUNTER_HEADER) block_type = it.u.block.type;
        want = element_by_doc(it.type, kind, block_type);
        TL_CHECK(pcq_item_is_element(&it, kind) == want, "%s: %s at %zu (block type %u): element %d, want %d",
                 pcq_kind_name(kind), pcq_struct_info_of(it.type)->name, it.offset, (unsigned)block_type,
                 pcq_item_is_element(&it, kind), want);
        if (it.type > PCQ_S_NONE && it.type < PCQ_S_END_) seen[it.type]++;
    }
    TL_CHECK(rc == 0, "%s: the walk ends cleanly: %s", pcq_kind_name(kind), pcq_status_name(rc));
}

static size_t u16a(const char *ascii, uint8_t *out)
{
    size_t n = 0;
    for (; *ascii; ascii++) out[n++] = (uint8_t)*ascii, out[n++] = 0;
    return n;
}

/* Every structure type in buffers of every kind (the writer makes them),
 * then items made by hand: every type with every kind, a value with and
 * without `single`. */
static void test_item_is_element(void)
{
    static const uint32_t ids2[2] = {7, 9}, ids1[1] = {3};
    static uint8_t buf[4096];
    unsigned seen[PCQ_S_END_];
    pcq_writer wr;
    pcq_counterset_reg set;
    pcq_counter_reg c;
    pcq_string_entry e[2];
    pcq_identifier id;
    pcq_data hdr;
    pcq_item it;
    uint8_t name[16], text[8];
    size_t len, nn = u16a("ab", name);
    int t, k, single;
    const pcq_guid g = {1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11}};

    memset(seen, 0, sizeof seen);
    memset(&set, 0, sizeof set);
    memset(&c, 0, sizeof c);
    set.detail_level = 100;
    set.num_counters = 2;
    c.type = 0x10410400u; /* PERF_COUNTER_COUNTER */
    c.detail_level = 100;
    pcq_writer_init(&wr, buf, sizeof buf); /* counterset-info: the set and two counters */
    pcq_put_counterset_reg(&wr, &set);
    pcq_put_counter_reg(&wr, &c);
    c.counter_id = 1;
    pcq_put_counter_reg(&wr, &c);
    if (TL_CHECK(pcq_writer_finish(&wr, &len) == PCQ_OK, "counterset-info written"))
        check_elements(PCQ_KIND_COUNTERSET_INFO, buf, len, seen);
    pcq_writer_init(&wr, buf, sizeof buf); /* counter-info: one counter alone */
    pcq_put_counter_reg(&wr, &c);
    if (TL_CHECK(pcq_writer_finish(&wr, &len) == PCQ_OK, "counter-info written"))
        check_elements(PCQ_KIND_COUNTER_INFO, buf, len, seen);

    memset(e, 0, sizeof e);
    e[0].present = 1;
    e[0].text.ptr = text;
    e[0].text.len = u16a("xy", text);
    e[1].counter_id = 2; /* absent */
    pcq_writer_init(&wr, buf, sizeof buf);
    pcq_put_strings(&wr, e, 2, PCQ_STROFF_WIN32);
    if (TL_CHECK(pcq_writer_finish(&wr, &len) == PCQ_OK, "strings written"))
        check_elements(PCQ_KIND_STRINGS, buf, len, seen);
    pcq_writer_init(&wr, buf, sizeof buf);
    pcq_put_string(&wr, name, nn);
    if (TL_CHECK(pcq_writer_finish(&wr, &len) == PCQ_OK, "string written"))
        check_elements(PCQ_KIND_STRING, buf, len, seen);
    pcq_writer_init(&wr, buf, sizeof buf);
    pcq_put_guid(&wr, &g);
    if (TL_CHECK(pcq_writer_finish(&wr, &len) == PCQ_OK, "guid written")) {
        check_elements(PCQ_KIND_GUID, buf, len, seen);
        check_elements(PCQ_KIND_GUIDS, buf, len, seen); /* one GUID of an opnum 0 array */
    }
    pcq_writer_init(&wr, buf, sizeof buf);
    pcq_put_instance(&wr, 5, name, nn);
    if (TL_CHECK(pcq_writer_finish(&wr, &len) == PCQ_OK, "instance written"))
        check_elements(PCQ_KIND_INSTANCES, buf, len, seen);
    memset(&id, 0, sizeof id);
    id.name.ptr = name;
    id.name.len = nn;
    pcq_writer_init(&wr, buf, sizeof buf);
    pcq_put_identifier(&wr, &id);
    if (TL_CHECK(pcq_writer_finish(&wr, &len) == PCQ_OK, "identifier written"))
        check_elements(PCQ_KIND_IDENTIFIERS, buf, len, seen);

    /* Blocks of every type; type 2 and 6 blocks with one counter too: a
     * list of one is still a list. */
    memset(&hdr, 0, sizeof hdr);
    hdr.system_time.year = 2024;
    hdr.system_time.month = 1;
    hdr.system_time.day = 1;
    pcq_writer_init(&wr, buf, sizeof buf);
    pcq_begin_data(&wr, &hdr);
    pcq_put_error_block(&wr, 232);
    pcq_begin_block(&wr, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
    pcq_put_value_u32(&wr, 1);
    pcq_end_block(&wr);
    pcq_begin_block(&wr, PCQ_PERF_MULTI_COUNTERS, 0, ids2, 2);
    pcq_put_value_u32(&wr, 2);
    pcq_put_value_u64(&wr, 3);
    pcq_end_block(&wr);
    pcq_begin_block(&wr, PCQ_PERF_MULTI_COUNTERS, 0, ids1, 1);
    pcq_put_value_u32(&wr, 4);
    pcq_end_block(&wr);
    pcq_begin_block(&wr, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
    for (k = 0; k < 2; k++) {
        pcq_put_data_instance(&wr, (uint32_t)k, name, nn);
        pcq_put_value_u32(&wr, 5);
    }
    pcq_end_block(&wr);
    pcq_begin_block(&wr, PCQ_PERF_COUNTERSET, 0, ids2, 2);
    for (k = 0; k < 2; k++) {
        pcq_put_data_instance(&wr, (uint32_t)k, name, nn);
        pcq_put_value_u32(&wr, 6);
        pcq_put_value_u32(&wr, 7);
    }
    pcq_end_block(&wr);
    pcq_begin_block(&wr, PCQ_PERF_COUNTERSET, 0, ids1, 1);
    pcq_put_data_instance(&wr, 0, name, nn);
    pcq_put_value_u32(&wr, 8);
    pcq_end_block(&wr);
    pcq_end_data(&wr);
    if (TL_CHECK(pcq_writer_finish(&wr, &len) == PCQ_OK, "data written"))
        check_elements(PCQ_KIND_DATA, buf, len, seen);
    for (t = PCQ_S_NONE + 1; t < PCQ_S_END_; t++)
        TL_CHECK(seen[t] > 0, "a %s among the items walked", pcq_struct_info_of(t)->name);

    /* By hand: what the walk never gives (a counter's registration info
     * under another kind, PCQ_S_NONE), and `single` alone deciding a value. */
    memset(&it, 0, sizeof it);
    for (t = PCQ_S_NONE; t <= PCQ_S_END_; t++)
        for (k = PCQ_KIND_NONE; k <= PCQ_KIND_END_; k++)
            for (single = 0; single < 2; single++) {
                int want = t == PCQ_S_COUNTER_DATA ? !single : element_by_doc(t, (pcq_kind)k, 0);
                it.type = t;
                it.single = single;
                TL_CHECK(pcq_item_is_element(&it, (pcq_kind)k) == want,
                         "type %d, kind %d, single %d: element %d, want %d", t, k, single,
                         pcq_item_is_element(&it, (pcq_kind)k), want);
            }
}

/* ---- the iterators: the header's inline fast paths and their functions - */

/* A data buffer of blocks of type 1, 2 (3 counters), 4 (3 instances), 6 (3
 * counters x 3 instances) and 6 with no counters; `odd` adds a type 1 block
 * with a 12-byte value, which makes the buffer not canonical. Value k of
 * group g (a block of type 1 or 2, or an instance) is tw_value(g, k). */
#define TW_GROUPS 8 /* the type 1 block, the type 2 block, 3 + 3 instances */
static uint64_t tw_value(uint32_t g, uint32_t k)
{
    return k == 1 ? 0x100000000u * (g + 1) + k : 16u * g + k; /* the middle value of a list: 8 bytes */
}

static size_t tw_data(uint8_t *buf, size_t cap, int odd)
{
    static const uint32_t ids[3] = {1, 2, 3};
    static const uint8_t twelve[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    pcq_writer w;
    pcq_data hdr;
    uint8_t name[32];
    uint32_t g = 0, i, k;
    size_t len = 0;
    memset(&hdr, 0, sizeof hdr);
    hdr.system_time.year = 2024;
    hdr.system_time.month = 1;
    hdr.system_time.day = 1;
    pcq_writer_init(&w, buf, cap);
    pcq_begin_data(&w, &hdr);
    pcq_begin_block(&w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
    pcq_put_value_u32(&w, (uint32_t)tw_value(g++, 0));
    pcq_end_block(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, 3);
    for (k = 0; k < 3; k++)
        if (k == 1)
            pcq_put_value_u64(&w, tw_value(g, k));
        else
            pcq_put_value_u32(&w, (uint32_t)tw_value(g, k));
    g++;
    pcq_end_block(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_INSTANCES, 0, NULL, 0);
    for (i = 0; i < 3; i++) {
        pcq_put_data_instance(&w, 100 + i, name, u16a(i == 1 ? "_Total" : "cpu", name));
        pcq_put_value_u32(&w, (uint32_t)tw_value(g++, 0));
    }
    pcq_end_block(&w);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, 3);
    for (i = 0; i < 3; i++, g++) {
        pcq_put_data_instance(&w, 200 + i, name, u16a(i == 2 ? "Processor" : "a", name));
        for (k = 0; k < 3; k++)
            if (k == 1)
                pcq_put_value_u64(&w, tw_value(g, k));
            else
                pcq_put_value_u32(&w, (uint32_t)tw_value(g, k));
    }
    pcq_end_block(&w);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, NULL, 0);
    pcq_put_data_instance(&w, 7, name, u16a("none", name));
    pcq_put_data_instance(&w, 8, name, u16a("zero", name));
    pcq_end_block(&w);
    if (odd) {
        pcq_begin_block(&w, PCQ_PERF_SINGLE_COUNTER, 0, NULL, 0);
        pcq_put_value(&w, twelve, sizeof twelve);
        pcq_end_block(&w);
    }
    pcq_end_data(&w);
    return pcq_writer_finish(&w, &len) == PCQ_OK ? len : 0;
}

static int same_value(const pcq_value *a, const pcq_value *b)
{
    return a->data_size == b->data_size && a->size == b->size && a->data.ptr == b->data.ptr &&
           a->data.len == b->data.len && a->u64 == b->u64 && a->is_int == b->is_int && a->offset == b->offset;
}

/* Two iterators over the same values, a through the header's
 * pcq_values_next and b through the function itself, checked against group
 * g's n values: the same pcq_value both ways, the numbers written. */
static void tw_values(const char *what, pcq_iter *a, pcq_iter *b, uint32_t g, uint32_t n)
{
    pcq_value va, vb;
    uint32_t k;
    int ra = 1, rb = 1;
    memset(&va, 0, sizeof va);
    memset(&vb, 0, sizeof vb);
    for (k = 0; k <= n; k++) {
        ra = pcq_values_next(a, &va);
        rb = (pcq_values_next)(b, &vb);
        if (k == n) break;
        if (!TL_CHECK(ra == 1 && rb == 1 && same_value(&va, &vb) && va.u64 == tw_value(g, k),
                      "%s: value %u of group %u: %d %d, %llu", what, k, g, ra, rb,
                      (unsigned long long)va.u64))
            return;
    }
    TL_CHECK(ra == 0 && rb == 0, "%s: group %u ends after %u values: %d %d", what, g, n, ra, rb);
}

/* pcq_values_read_u64 two at a time, the header's and the function. */
static void tw_read_u64(const char *what, pcq_iter *a, pcq_iter *b, uint32_t g, uint32_t n)
{
    uint64_t oa[TW_GROUPS * 3], ob[TW_GROUPS * 3];
    size_t na = 0, nb = 0, r, k;
    while ((r = pcq_values_read_u64(a, oa + na, 2)) > 0) na += r;
    while ((r = (pcq_values_read_u64)(b, ob + nb, 2)) > 0) nb += r;
    for (k = 0; k < na && k < nb && oa[k] == ob[k] && oa[k] == tw_value(g, (uint32_t)k); k++)
        ;
    TL_CHECK(na == n && nb == n && k == n && a->err.code == 0 && b->err.code == 0,
             "%s: read_u64 of group %u: %zu and %zu values, %zu as written", what, g, na, nb, k);
}

static int same_instance(const pcq_data_instance *a, const pcq_data_instance *b)
{
    return a->size == b->size && a->instance_id == b->instance_id && a->name.ptr == b->name.ptr &&
           a->name.len == b->name.len && a->offset == b->offset && same_value(&a->value, &b->value) &&
           a->num_values == b->num_values && a->values == b->values && a->values_end == b->values_end;
}

/* Every block and instance of d through both forms of each iterator. */
static void tw_walk(const char *what, const pcq_data *d)
{
    pcq_iter blocks, a, b, ia, ib;
    pcq_block blk;
    pcq_data_instance xa, xb;
    uint64_t cols[9], col[3];
    size_t count;
    uint32_t g = 0, nblk = 0, i, j, n;
    int ra, rb;
    pcq_data_blocks(d, &blocks);
    while (pcq_blocks_next(&blocks, &blk) == 1 && nblk++ < 5) {
        n = blk.type == PCQ_PERF_SINGLE_COUNTER   ? 1
            : blk.type == PCQ_PERF_MULTI_COUNTERS ? blk.num_counters
                                                  : 0;
        pcq_block_values(d, &blk, &a);
        (pcq_block_values)(d, &blk, &b);
        tw_values(what, &a, &b, g, n);
        pcq_block_values(d, &blk, &a);
        (pcq_block_values)(d, &blk, &b);
        tw_read_u64(what, &a, &b, g, n);
        if (blk.type == PCQ_PERF_MULTI_COUNTERS) {
            TL_CHECK(pcq_block_columns_u64(d, &blk, cols, 9, &count) == PCQ_OK && count == 3 &&
                         cols[0] == tw_value(g, 0) && cols[1] == tw_value(g, 1) && cols[2] == tw_value(g, 2),
                     "%s: the type 2 block's columns", what);
        }
        if (n) g++;
        if (blk.type != PCQ_PERF_MULTI_INSTANCES && blk.type != PCQ_PERF_COUNTERSET) continue;
        pcq_block_instances(d, &blk, &ia);
        (pcq_block_instances)(d, &blk, &ib);
        for (i = 0;; i++) {
            ra = pcq_instances_of_block_next(&ia, &xa);
            rb = (pcq_instances_of_block_next)(&ib, &xb);
            if (ra != 1 || rb != 1) break;
            if (!TL_CHECK(same_instance(&xa, &xb), "%s: instance %u of block %u differs", what, i, nblk - 1))
                break;
            pcq_instance_values(d, &xa, &a);
            (pcq_instance_values)(d, &xa, &b);
            tw_values(what, &a, &b, g + i, xa.num_values);
            pcq_instance_values(d, &xa, &a);
            (pcq_instance_values)(d, &xa, &b);
            tw_read_u64(what, &a, &b, g + i, xa.num_values);
            if (xa.num_values == 0) continue;
            TL_CHECK(xa.value.u64 == tw_value(g + i, xa.num_values - 1), "%s: an instance's last value",
                     what);
            for (j = 0; j < xa.num_values; j++)
                TL_CHECK(pcq_block_columns_u64(d, &blk, cols, 9, &count) == PCQ_OK &&
                             count == (size_t)blk.num_instances * xa.num_values &&
                             cols[j * blk.num_instances + i] == tw_value(g + i, j) &&
                             pcq_block_column_u64(d, &blk, j, col, 3, &count) == PCQ_OK &&
                             count == blk.num_instances && col[i] == tw_value(g + i, j),
                         "%s: column %u, instance %u", what, j, i);
        }
        TL_CHECK(ra == 0 && rb == 0 && i == blk.num_instances, "%s: %u instances, then %d %d", what, i, ra,
                 rb);
        if (blk.num_counters || blk.type == PCQ_PERF_MULTI_INSTANCES) g += i;
    }
    TL_CHECK(g == TW_GROUPS, "%s: %u groups of values", what, g);
}

/* The header maps pcq_values_next and its kin to inline copies of the
 * canonical step, which call the functions for everything else; called by
 * their names in parentheses, the functions do it all, canonical or not, and
 * must agree value for value. Then the batch readers' refusals, and their
 * error on bytes changed after decoding (documented: not validated). */
static void test_iterator_twins(void)
{
    static uint8_t canon[2048], odd[2048];
    size_t nc = tw_data(canon, sizeof canon, 0), no = tw_data(odd, sizeof odd, 1), count = 7;
    uint64_t out[9];
    pcq_data dc, dn;
    pcq_iter it, blocks;
    pcq_block b1, b2, b4, b6, c1, c2;
    pcq_value v;
    pcq_data_instance x;
    size_t first, k;
    int rc;

    if (!TL_CHECK(nc && no && pcq_decode_data(canon, nc, NULL, &dc, NULL) == PCQ_OK &&
                      pcq_decode_data(odd, no, NULL, &dn, NULL) == PCQ_OK,
                  "the two buffers decode"))
        return;
    /* The point of the two: the canonical one takes the inline paths. */
    TL_CHECK((dc.flags & PCQ_DATA_CANONICAL_) && !(dn.flags & PCQ_DATA_CANONICAL_), "one canonical, one not");
    TL_CHECK(pcq_decode_data(odd, no, NULL, NULL, NULL) == PCQ_OK, "not canonical, without an out-parameter");
    tw_walk("canonical", &dc);
    tw_walk("not canonical", &dn);

    pcq_data_blocks(&dn, &blocks);
    pcq_blocks_next(&blocks, &b1);
    pcq_blocks_next(&blocks, &b2);
    pcq_blocks_next(&blocks, &b4);
    pcq_blocks_next(&blocks, &b6);
    TL_CHECK(pcq_values_read_u64(NULL, out, 2) == 0 && (pcq_values_read_u64)(NULL, out, 2) == 0,
             "no iterator");
    pcq_block_values(&dn, &b2, &it);
    TL_CHECK(pcq_values_read_u64(&it, NULL, 2) == 0 && (pcq_values_read_u64)(&it, NULL, 2) == 0, "no out");

    TL_CHECK(pcq_block_columns_u64(&dn, &b2, out, 9, NULL) == PCQ_ERR_INVALID_ARG, "columns: no count");
    TL_CHECK(pcq_block_columns_u64(NULL, &b2, out, 9, &count) == PCQ_ERR_INVALID_ARG && count == 0,
             "columns: no data");
    TL_CHECK(pcq_block_columns_u64(&dn, NULL, out, 9, &count) == PCQ_ERR_INVALID_ARG, "columns: no block");
    TL_CHECK(pcq_block_columns_u64(&dn, &b2, NULL, 9, &count) == PCQ_ERR_INVALID_ARG, "columns: no out");
    TL_CHECK(pcq_block_columns_u64(&dn, &b1, out, 9, &count) == PCQ_ERR_INVALID_ARG,
             "columns: a type 1 block");
    TL_CHECK(pcq_block_columns_u64(&dn, &b6, NULL, 0, &count) == PCQ_ERR_BUFFER_TOO_SMALL && count == 9,
             "columns: sized, %zu", count);
    TL_CHECK(pcq_block_rows_u64(&dn, &b6, out, 8, &count) == PCQ_ERR_BUFFER_TOO_SMALL && count == 9 &&
                 pcq_block_rows_u64(&dn, &b1, out, 9, &count) == PCQ_ERR_INVALID_ARG,
             "rows: one short, and a type 1 block");
    /* The same refusals of a canonical buffer's type 2 block, which a path of
     * its own reads ahead of the general one (block_row_fast); NULL out with
     * room 0 is a sizing call. Then its three values, and nothing past them. */
    pcq_data_blocks(&dc, &blocks);
    pcq_blocks_next(&blocks, &c1);
    pcq_blocks_next(&blocks, &c2);
    count = 7;
    TL_CHECK(c2.type == PCQ_PERF_MULTI_COUNTERS && c2.num_counters == 3 &&
                 pcq_block_rows_u64(&dc, &c2, out, 3, NULL) == PCQ_ERR_INVALID_ARG &&
                 pcq_block_rows_u64(NULL, &c2, out, 3, &count) == PCQ_ERR_INVALID_ARG && count == 0 &&
                 pcq_block_rows_u64(&dc, NULL, out, 3, &count) == PCQ_ERR_INVALID_ARG &&
                 pcq_block_rows_u64(&dc, &c2, NULL, 3, &count) == PCQ_ERR_INVALID_ARG,
             "canonical type 2: no count, data, block or out");
    count = 7;
    TL_CHECK(pcq_block_rows_u64(&dc, &c2, NULL, 0, &count) == PCQ_ERR_BUFFER_TOO_SMALL && count == 3 &&
                 pcq_block_columns_u64(&dc, &c2, out, 2, &count) == PCQ_ERR_BUFFER_TOO_SMALL && count == 3,
             "canonical type 2: sized, and one short: %zu", count);
    for (k = 0; k < 9; k++) out[k] = 7;
    TL_CHECK(pcq_block_columns_u64(&dc, &c2, out, 9, &count) == PCQ_OK && count == 3 &&
                 out[0] == tw_value(1, 0) && out[1] == tw_value(1, 1) && out[2] == tw_value(1, 2) &&
                 out[3] == 7,
             "canonical type 2: its three values, nothing past them");
    TL_CHECK(pcq_block_column_u64(&dn, &b6, 0, out, 3, NULL) == PCQ_ERR_INVALID_ARG, "column: no count");
    count = 7;
    TL_CHECK(pcq_block_column_u64(NULL, &b6, 0, out, 3, &count) == PCQ_ERR_INVALID_ARG && count == 0,
             "column: no data");
    TL_CHECK(pcq_block_column_u64(&dn, NULL, 0, out, 3, &count) == PCQ_ERR_INVALID_ARG, "column: no block");
    TL_CHECK(pcq_block_column_u64(&dn, &b6, 0, NULL, 3, &count) == PCQ_ERR_INVALID_ARG, "column: no out");
    TL_CHECK(pcq_block_column_u64(&dn, &b2, 0, out, 3, &count) == PCQ_ERR_INVALID_ARG,
             "column: a type 2 block");
    TL_CHECK(pcq_block_column_u64(&dn, &b4, 1, out, 3, &count) == PCQ_ERR_INVALID_ARG &&
                 pcq_block_column_u64(&dn, &b6, 3, out, 3, &count) == PCQ_ERR_INVALID_ARG,
             "column: j past the counters");
    TL_CHECK(pcq_block_column_u64(&dn, &b4, 0, NULL, 0, &count) == PCQ_ERR_BUFFER_TOO_SMALL && count == 3,
             "column: sized, %zu", count);

    /* A second value's dwSize set to 8 after decoding (under 16, where no
     * _PERF_COUNTER_DATA fits): the batch readers of the type 2 block and of
     * the type 6 block (its first instance) return the error the value
     * iterator meets there. */
    tl_put32le(odd + b2.body + 16 + 4, 8);
    pcq_block_values(&dn, &b2, &it);
    rc = pcq_values_next(&it, &v) == 1 ? pcq_values_next(&it, &v) : 1;
    TL_CHECK(rc < 0 && it.err.offset == b2.body + 16, "a changed value: %s at %zu", pcq_status_name(rc),
             it.err.offset);
    TL_CHECK(pcq_block_columns_u64(&dn, &b2, out, 9, &count) == rc, "columns of the type 2 block: %s",
             pcq_status_name(rc));
    first = b6.body + tl_ld32le(odd + b6.body); /* instance 0's values */
    tl_put32le(odd + first + 16 + 4, 8);
    pcq_block_instances(&dn, &b6, &it);
    rc = pcq_instances_of_block_next(&it, &x);
    TL_CHECK(rc < 0 && it.err.offset == first + 16, "a changed instance value: %s at %zu",
             pcq_status_name(rc), it.err.offset);
    TL_CHECK(pcq_block_columns_u64(&dn, &b6, out, 9, &count) == rc &&
                 pcq_block_rows_u64(&dn, &b6, out, 9, &count) == rc &&
                 pcq_block_column_u64(&dn, &b6, 2, out, 3, &count) == rc,
             "columns and rows of the type 6 block: %s", pcq_status_name(rc));

    /* That value back; then the last instance's Size grown by 16 (its name
     * longer by 7 units over what was its first value, the NUL and padding
     * after them): its values now run past the block's end, where the
     * iterator stops: fewer values there than dwCounters says. */
    tl_put32le(odd + first + 16 + 4, 16);
    memset(&x, 0, sizeof x);
    pcq_block_instances(&dn, &b6, &it);
    pcq_instances_of_block_next(&it, &x);
    pcq_instances_of_block_next(&it, &x);
    first = x.values_end; /* the last instance */
    tl_put32le(odd + first, tl_ld32le(odd + first) + 16);
    memset(odd + first + 26, 'x', 14);
    memset(odd + first + 40, 0, 8);
    pcq_block_instances(&dn, &b6, &it);
    for (k = 0; (rc = pcq_instances_of_block_next(&it, &x)) == 1; k++)
        ;
    TL_CHECK(k == 2 && rc == PCQ_ERR_COUNT_MISMATCH && it.err.offset == b6.multi_at + 4,
             "values past the block: %s at %zu after %zu instances", pcq_status_name(rc), it.err.offset, k);
}

/* The instances and values of a block that is not canonical are checked
 * inline first (pcq_instance_lean_, pcq_value_lean_), and the checking step
 * runs only when a rule breaks:
 * bytes changed after the decode must still give the error, at the offset,
 * that decoding them gives (the first structure broken is the instance).
 * Each change to an instance of the type 4 and the type 6 block of the odd
 * buffer: Size below the header, Size past the block, a name with no
 * NUL, a NUL early enough to leave 8 bytes of slack (in the longest name,
 * 14 bytes), a value's dwSize under its dwDataSize; then to the type 2
 * block's first value: dwSize under 8, dwDataSize past dwSize, 8 unused
 * bytes past its least value area; through the header's step and the
 * function. */
static void test_lean_steps(void)
{
    static uint8_t odd[2048], orig[2048];
    size_t no = tw_data(orig, sizeof orig, 1), at[3], k, m, i, n;
    pcq_data d;
    pcq_iter blocks, it;
    pcq_block b[4];
    pcq_data_instance x;
    pcq_value v;
    pcq_error err;
    int want, rc;
    if (!TL_CHECK(no && pcq_decode_data(orig, no, NULL, &d, NULL) == PCQ_OK, "the odd buffer decodes"))
        return;
    memcpy(odd, orig, no);
    d.buf = odd;
    pcq_data_blocks(&d, &blocks);
    for (k = 0; k < 4; k++) pcq_blocks_next(&blocks, &b[k]);
    for (k = 2; k < 4; k++) {
        pcq_block_instances(&d, &b[k], &it);
        for (i = 0; i < 3 && pcq_instances_of_block_next(&it, &x) == 1; i++) at[i] = x.offset;
        for (m = 0; m < 5; m++) {
            n = m != 3 ? 0 : k == 2 ? 1 : 2; /* "_Total" (Size 24), "Processor" (Size 32) */
            memcpy(odd, orig, no);
            if (m == 0) tl_put32le(odd + at[n], 4);
            if (m == 1) tl_put32le(odd + at[n], (uint32_t)(b[k].body_end - at[n] + 8));
            if (m == 2) memset(odd + at[n] + 8, 'x', tl_ld32le(odd + at[n]) - 8);
            if (m == 3) memset(odd + at[n] + tl_ld32le(odd + at[n]) - 16, 0, 2); /* 14 bytes after it */
            if (m == 4) tl_put32le(odd + at[n] + tl_ld32le(odd + at[n]) + 4, 8);
            want = pcq_decode_data(odd, no, NULL, NULL, &err);
            for (i = 0; i < 2; i++) {
                pcq_block_instances(&d, &b[k], &it);
                do rc = i ? (pcq_instances_of_block_next)(&it, &x) : pcq_instances_of_block_next(&it, &x);
                while (rc == 1);
                TL_CHECK(want < 0 && rc == want && it.err.offset == err.offset && it.err.offset >= at[n] &&
                             it.err.offset <= at[n] + tl_ld32le(orig + at[n]),
                         "type %u, change %zu (%s): %s at %zu, decoding says %s at %zu", (unsigned)b[k].type,
                         m, i ? "function" : "inline", pcq_status_name(rc), it.err.offset,
                         pcq_status_name(want), err.offset);
            }
        }
    }
    for (m = 0; m < 3; m++) {
        memcpy(odd, orig, no);
        k = b[1].body; /* value 0 of the type 2 block */
        if (m == 0) tl_put32le(odd + k + 4, 4);
        if (m == 1) tl_put32le(odd + k, 9);
        if (m == 2) tl_put32le(odd + k + 4, 24);
        want = pcq_decode_data(odd, no, NULL, NULL, &err);
        for (i = 0; i < 2; i++) {
            pcq_block_values(&d, &b[1], &it);
            rc = i ? (pcq_values_next)(&it, &v) : pcq_values_next(&it, &v);
            TL_CHECK(want < 0 && rc == want && it.err.offset == err.offset && err.offset >= k &&
                         err.offset < k + 8,
                     "type 2 value, change %zu (%s): %s at %zu, decoding says %s at %zu", m,
                     i ? "function" : "inline", pcq_status_name(rc), it.err.offset, pcq_status_name(want),
                     err.offset);
        }
    }
}

/* A zeroed data buffer of len bytes with its _PERF_DATA_HEADER (§2.2.4.7):
 * dwTotalSize len, nblocks blocks, PerfFreq 1000; the blocks are the
 * caller's, from offset 48. */
static void data_header(uint8_t *buf, size_t len, uint32_t nblocks)
{
    memset(buf, 0, len);
    tl_put32le(buf + 0, (uint32_t)len); /* dwTotalSize */
    tl_put32le(buf + 4, nblocks);       /* dwNumCounter */
    tl_put32le(buf + 24, 1000);         /* PerfFreq */
}

/* Blocks of no instance in a buffer that is not canonical get an instances
 * iterator that ends at once without the checking calls (the header's
 * pcq_block_no_instances_): it must end where the function's ends, and
 * every block the function would fault must still be faulted, with the same
 * error at the same offset, through the header's step. Hand-made: a data
 * header, a type 4 block of 24 bytes with Reserved 1 (a diagnostic: not
 * canonical), a type 6 block of 32 bytes of no counter and no instance, a
 * type 4 block of 31 bytes (7 unused bytes: fewer than 8, D6). Then each
 * block forged as a caller could: 8 unused bytes, an end past the input (3
 * bytes after its body too), a body after its end, an instance listed. */
static void test_empty_instance_lists(void)
{
    static uint8_t buf[48 + 24 + 32 + 31];
    size_t len = sizeof buf, k, m, i;
    pcq_data d;
    pcq_iter blocks, it;
    pcq_block b[3], f;
    pcq_data_instance x;
    int rc[2];
    data_header(buf, len, 3);
    tl_put32le(buf + 48 + 4, 4);  /* block 0: dwType PERF_MULTI_INSTANCES */
    tl_put32le(buf + 48 + 8, 24); /* dwSize */
    tl_put32le(buf + 48 + 12, 1); /* Reserved: MUST be 0 */
    tl_put32le(buf + 48 + 16, 8); /* _PERF_MULTI_INSTANCES.dwTotalSize; dwInstances 0 */
    tl_put32le(buf + 72 + 4, 6);  /* block 1: PERF_COUNTERSET */
    tl_put32le(buf + 72 + 8, 32);
    tl_put32le(buf + 72 + 16, 8); /* _PERF_MULTI_COUNTERS.dwSize; dwCounters 0 */
    tl_put32le(buf + 72 + 24, 8); /* _PERF_MULTI_INSTANCES.dwTotalSize; dwInstances 0 */
    tl_put32le(buf + 104 + 4, 4); /* block 2: PERF_MULTI_INSTANCES, 7 bytes unused */
    tl_put32le(buf + 104 + 8, 31);
    tl_put32le(buf + 104 + 16, 8);
    if (!TL_CHECK(pcq_decode_data(buf, len, NULL, &d, NULL) == PCQ_OK && !(d.flags & 1u),
                  "the empty lists decode, not canonical"))
        return;
    pcq_data_blocks(&d, &blocks);
    for (k = 0; k < 3; k++) TL_CHECK(pcq_blocks_next(&blocks, &b[k]) == 1, "block %zu", k);
    for (k = 0; k < 3; k++) {
        for (m = 0; m < 6; m++) {
            f = b[k];
            if (m == 1) f.body_end = f.body + 8; /* 8 unused bytes: dwTotalSize blamed */
            if (m == 2) f.body_end = len + 1;    /* past the input */
            if (m == 3) f.body = f.body_end + 1; /* a body after its end */
            if (m == 4) {                        /* past the input, 3 bytes after its body */
                f.body_end = len + 1;
                f.body = len - 2;
            }
            if (m == 5) f.num_instances = 1; /* one where none fits */
            for (i = 0; i < 2; i++) {
                memset(&it, 0xA5, sizeof it);
                if (i)
                    (pcq_block_instances)(&d, &f, &it);
                else
                    pcq_block_instances(&d, &f, &it);
                rc[i] = pcq_instances_of_block_next(&it, &x);
                if (rc[i] < 0) rc[i] = rc[i] * 1000 - (int)(it.err.offset % 1000);
            }
            TL_CHECK(rc[0] == rc[1] && (m == 0 ? rc[0] == 0 : rc[0] < 0),
                     "block %zu, change %zu: the header's step %d, the function's %d", k, m, rc[0], rc[1]);
        }
    }
}

/* A values iterator of a buffer that is not canonical ends inline where the
 * checking step would end it with no error (the header's pcq_values_ended_):
 * it must end where the function's ends, and a list the function faults at
 * its end must still be faulted, with the same error at the same offset,
 * again at the next call. Hand-made: a data header, a type 1 block of 24 bytes whose value has no
 * data (dwSize 8: not canonical), a type 2 block of one counter and such a
 * value (40 bytes), a type 2 block of two values of 12 and 8 bytes (52
 * bytes, none of them 8-aligned after the first). Then each block forged as a caller could: 8 unused bytes,
 * an end past the input, a value more listed than there is. */
static void test_values_end(void)
{
    static uint8_t buf[48 + 24 + 40 + 52];
    size_t len = sizeof buf, k, m, i, n;
    pcq_data d;
    pcq_iter blocks, it;
    pcq_block b[3], f;
    pcq_value v;
    int rc[2];
    data_header(buf, len, 3);
    tl_put32le(buf + 48 + 4, 1); /* block 0: PERF_SINGLE_COUNTER */
    tl_put32le(buf + 48 + 8, 24);
    tl_put32le(buf + 48 + 20, 8); /* its value: dwDataSize 0, dwSize 8 */
    tl_put32le(buf + 72 + 4, 2);  /* block 1: PERF_MULTI_COUNTERS, one counter */
    tl_put32le(buf + 72 + 8, 40);
    tl_put32le(buf + 72 + 16, 16); /* _PERF_MULTI_COUNTERS.dwSize */
    tl_put32le(buf + 72 + 20, 1);
    tl_put32le(buf + 72 + 24, 7); /* counter 7 */
    tl_put32le(buf + 72 + 36, 8); /* its value: dwSize 8 */
    tl_put32le(buf + 112 + 4, 2); /* block 2: two counters, 4 bytes unused */
    tl_put32le(buf + 112 + 8, 52);
    tl_put32le(buf + 112 + 16, 16);
    tl_put32le(buf + 112 + 20, 2);
    tl_put32le(buf + 112 + 24, 7);
    tl_put32le(buf + 112 + 28, 8);
    tl_put32le(buf + 112 + 32, 4); /* value 0: dwDataSize 4, dwSize 12 */
    tl_put32le(buf + 112 + 36, 12);
    tl_put32le(buf + 112 + 40, 0x11223344u);
    tl_put32le(buf + 112 + 48, 8); /* value 1: dwSize 8 */
    if (!TL_CHECK(pcq_decode_data(buf, len, NULL, &d, NULL) == PCQ_OK && !(d.flags & 1u),
                  "the short lists decode, not canonical"))
        return;
    pcq_data_blocks(&d, &blocks);
    for (k = 0; k < 3; k++) TL_CHECK(pcq_blocks_next(&blocks, &b[k]) == 1, "block %zu", k);
    for (k = 0; k < 3; k++) {
        for (m = 0; m < 4; m++) {
            f = b[k];
            if (m == 1) f.body_end += 8;                 /* 8 unused bytes: dwSize blamed */
            if (m == 2) f.body_end = len + 1;            /* past the input */
            if (m == 3 && f.type == 2) f.num_counters++; /* a value more than there is */
            if (m == 3 && f.type != 2) continue;
            for (i = 0; i < 2; i++) {
                if (i)
                    (pcq_block_values)(&d, &f, &it);
                else
                    pcq_block_values(&d, &f, &it);
                for (n = 0; (rc[i] = i ? (pcq_values_next)(&it, &v) : pcq_values_next(&it, &v)) == 1; n++)
                    ;
                if ((i ? (pcq_values_next)(&it, &v) : pcq_values_next(&it, &v)) != rc[i]) /* sticky */
                    rc[i] = 99;
                rc[i] = rc[i] < 0 ? rc[i] * 1000 - (int)(it.err.offset % 1000) : (int)n;
            }
            TL_CHECK(rc[0] == rc[1] && (m == 0 ? rc[0] == (k == 2 ? 2 : 1) : rc[0] < 0),
                     "block %zu, change %zu: the header's step %d, the function's %d", k, m, rc[0], rc[1]);
        }
    }
}

/* The blocks of a buffer that is not canonical are read by a lean step
 * first (block_lean, in pcq_codec.c), and the checking step runs only when a
 * rule breaks: after bytes are changed, the blocks iterator must end with
 * the error, at the offset, that decoding them gives, or end cleanly when
 * they decode. Each change to each block of the odd buffer (types 1, 2, 4,
 * 6, 6 with no counters, 1 with a 12-byte value), as an attacker would make
 * it at the edge of each rule: dwType not a type; dwSize under the type's
 * least, past the input, 8 short; a type 1 block's value: dwSize under 8,
 * dwDataSize past it; _PERF_MULTI_COUNTERS: dwSize under 8, past the block,
 * 8 bytes of slack, dwCounters past what dwSize holds and past every cap;
 * _PERF_MULTI_INSTANCES: dwTotalSize under 8, past the block, dwInstances
 * past what it holds. (The same results as before the lean step existed.) */
static void test_lean_blocks(void)
{
    static uint8_t odd[2048], orig[2048];
    size_t no = tw_data(orig, sizeof orig, 1), at[6], end[6], mc, mi, k, m, n;
    uint32_t type[6];
    pcq_data d;
    pcq_iter it;
    pcq_block b;
    pcq_error err;
    int want, rc;
    if (!TL_CHECK(no && pcq_decode_data(orig, no, NULL, &d, NULL) == PCQ_OK && !(d.flags & 1u),
                  "the odd buffer decodes, not canonical"))
        return;
    pcq_data_blocks(&d, &it);
    for (k = 0; k < 6 && pcq_blocks_next(&it, &b) == 1; k++) {
        at[k] = b.offset;
        end[k] = b.offset + b.size;
        type[k] = b.type;
    }
    d.buf = odd;
    for (k = 0; k < 6; k++) {
        mc = at[k] + 16;
        mi = type[k] == 4 ? mc : mc + tl_ld32le(orig + mc);
        for (m = 0; m < 14; m++) {
            memcpy(odd, orig, no);
            switch (m) {
            case 0: tl_put32le(odd + at[k] + 4, 3); break;
            case 1: tl_put32le(odd + at[k] + 8, 8); break;
            case 2: tl_put32le(odd + at[k] + 8, (uint32_t)(no - at[k] + 8)); break;
            case 3: tl_put32le(odd + at[k] + 8, (uint32_t)(end[k] - at[k] - 8)); break;
            case 4:
                if (type[k] != 1) continue;
                tl_put32le(odd + mc + 4, 4);
                break;
            case 5:
                if (type[k] != 1) continue;
                tl_put32le(odd + mc, 0xFFFFu);
                break;
            case 6:
                if (type[k] != 2 && type[k] != 6) continue;
                tl_put32le(odd + mc, 4);
                break;
            case 7:
                if (type[k] != 2 && type[k] != 6) continue;
                tl_put32le(odd + mc, (uint32_t)(end[k] - mc + 8));
                break;
            case 8:
                if (type[k] != 2 && type[k] != 6) continue;
                tl_put32le(odd + mc, tl_ld32le(orig + mc) + 8);
                break;
            case 9:
                if (type[k] != 2 && type[k] != 6) continue;
                tl_put32le(odd + mc + 4, tl_ld32le(orig + mc + 4) + 2);
                break;
            case 10:
                if (type[k] != 2 && type[k] != 6) continue;
                tl_put32le(odd + mc + 4, 0xFFFFFFFFu);
                break;
            case 11:
                if (type[k] != 4 && type[k] != 6) continue;
                tl_put32le(odd + mi, 4);
                break;
            case 12:
                if (type[k] != 4 && type[k] != 6) continue;
                tl_put32le(odd + mi, (uint32_t)(end[k] - mi + 8));
                break;
            default:
                if (type[k] != 4 && type[k] != 6) continue;
                tl_put32le(odd + mi + 4, 0xFFFFFFu);
                break;
            }
            want = pcq_decode_data(odd, no, NULL, NULL, &err);
            pcq_data_blocks(&d, &it);
            for (n = 0; (rc = pcq_blocks_next(&it, &b)) == 1; n++)
                ;
            if (m == 3 && type[k] == 2) { /* the blocks iterator does not read a type 2 block's values: */
                TL_CHECK(want < 0 && rc < 0 && n == 2 &&
                             it.err.offset >= end[k] - 8, /* the next block, early */
                         "type 2 block 8 short: %s at %zu after %zu blocks", pcq_status_name(rc),
                         it.err.offset, n);
                continue;
            }
            TL_CHECK(rc == want && (want == 0 ? n == 6 : it.err.offset == err.offset),
                     "block %zu (type %u), change %zu: %s at %zu after %zu blocks, decoding says %s at %zu",
                     k, (unsigned)type[k], m, pcq_status_name(rc), it.err.offset, n, pcq_status_name(want),
                     err.offset);
        }
    }
    /* The buffer cut inside block 3's instances, after its headers (a
     * truncated capture: dwTotalSize past the input): the lean step leaves the
     * block to the checking step, which hands it out; the next block is past
     * the input. */
    memcpy(odd, orig, no);
    mi = at[3] + 16 + tl_ld32le(orig + at[3] + 16);
    d.buf_len = mi + 8 + 4;
    memset(&b, 0, sizeof b); /* the inline step leaves it as it was when a step fails */
    pcq_data_blocks(&d, &it);
    for (n = 0; (rc = pcq_blocks_next(&it, &b)) == 1; n++)
        ;
    TL_CHECK(n == 4 && b.offset == at[3] && b.num_instances == 3 && rc == PCQ_ERR_TRUNCATED,
             "cut in block 3: %zu blocks, the last at %zu, %s", n, b.offset, pcq_status_name(rc));
    d.buf_len = no;

    /* A type 6 block, the buffer's last, whose _PERF_MULTI_COUNTERS fills it:
     * no room for its _PERF_MULTI_INSTANCES, whose fields are not read (the
     * buffer is exactly as long: the sanitizer builds would see a read). */
    {
        uint8_t *x = (uint8_t *)malloc(80);
        if (!TL_CHECK(x != NULL, "malloc")) return;
        memset(x, 0, 80);
        tl_put32le(x, 80);
        tl_put32le(x + 4, 1);
        tl_put32le(x + 52, 6);  /* dwType */
        tl_put32le(x + 56, 32); /* dwSize */
        tl_put32le(x + 64, 16); /* _PERF_MULTI_COUNTERS: dwSize, 2 counters */
        tl_put32le(x + 68, 2);
        want = pcq_decode_data(x, 80, NULL, NULL, &err);
        memset(&d, 0, sizeof d);
        d.total_size = 80;
        d.num_counters = 1;
        d.buf = x;
        d.buf_len = 80;
        pcq_data_blocks(&d, &it);
        rc = pcq_blocks_next(&it, &b);
        TL_CHECK(want < 0 && rc == want && it.err.offset == err.offset && err.offset == 64,
                 "no room for the instances: %s at %zu, decoding says %s at %zu", pcq_status_name(rc),
                 it.err.offset, pcq_status_name(want), err.offset);
        free(x);
    }
}

/* pcq_decode_data first tries the canonical layout in one quick pass, which
 * decides nothing when it fails: then the walk reports the error. Two
 * buffers that pass its first checks and not the rest: a type 4 block whose
 * _PERF_MULTI_INSTANCES claims more instances than PCQ_MAX_INSTANCES (and
 * holds none), a type 2 block whose _PERF_MULTI_COUNTERS has the dwSize of
 * its 4 ids, more than the block holds (another block follows). Then
 * dwNumCounter above the cap, with no input for the blocks or with them. */
static void test_not_canonical(void)
{
    uint8_t b[96];
    pcq_data d;
    pcq_error e;
    int rc;
    memset(b, 0, sizeof b);
    tl_put32le(b, 72);
    tl_put32le(b + 4, 1);
    tl_put32le(b + 52, 4);  /* dwType */
    tl_put32le(b + 56, 24); /* dwSize */
    tl_put32le(b + 64, 8);  /* _PERF_MULTI_INSTANCES.dwTotalSize: itself */
    tl_put32le(b + 68, PCQ_MAX_INSTANCES + 1u);
    rc = pcq_decode_data(b, 72, NULL, &d, &e);
    TL_CHECK(rc == PCQ_ERR_TRUNCATED && e.offset == 68, "instances past the cap: %s at %zu",
             pcq_status_name(rc), e.offset);

    memset(b, 0, sizeof b);
    tl_put32le(b, 96);
    tl_put32le(b + 4, 2);
    tl_put32le(b + 52, 2);  /* dwType */
    tl_put32le(b + 56, 32); /* dwSize */
    tl_put32le(b + 64, 24); /* _PERF_MULTI_COUNTERS.dwSize: 8 + 4 x 4 */
    tl_put32le(b + 68, 4);
    tl_put32le(b + 88, 16); /* an error block */
    rc = pcq_decode_data(b, sizeof b, NULL, &d, &e);
    TL_CHECK(rc == PCQ_ERR_EXCEEDS_CONTAINER && e.offset == 64, "ids past their block: %s at %zu",
             pcq_status_name(rc), e.offset);

    /* A count above the cap in a container the input does not reach at all
     * (a bare header claiming 4 GiB): TRUNCATED, not LIMIT (docs/validation.md,
     * "Counts"). */
    memset(b, 0, sizeof b);
    tl_put32le(b, 0xFFFFFFF0u);
    tl_put32le(b + 4, PCQ_MAX_COUNTERS + 1u);
    rc = pcq_decode_data(b, 48, NULL, &d, &e);
    TL_CHECK(rc == PCQ_ERR_TRUNCATED && e.offset == 4, "blocks past the cap, no input for them: %s at %zu",
             pcq_status_name(rc), e.offset);

#if PCQ_MAX_COUNTERS <= (1u << 20)
    /* One canonical error block more than PCQ_MAX_COUNTERS (16 MiB): the
     * quick pass reads them all and still says no; the walk: LIMIT. */
    {
        size_t nb = (size_t)PCQ_MAX_COUNTERS + 1, len = 48 + 16 * nb, i;
        uint8_t *big = (uint8_t *)calloc(len, 1);
        if (TL_CHECK(big != NULL, "%zu bytes", len)) {
            tl_put32le(big, (uint32_t)len);
            tl_put32le(big + 4, (uint32_t)nb);
            for (i = 0; i < nb; i++) tl_put32le(big + 48 + 16 * i + 8, 16); /* dwSize 16, dwType 0 */
            rc = pcq_decode_data(big, len, NULL, &d, &e);
            TL_CHECK(rc == PCQ_ERR_LIMIT && e.offset == 4, "blocks past the cap: %s at %zu",
                     pcq_status_name(rc), e.offset);
            free(big);
        }
    }
#endif
}

/* Ends the data buffer of w (over buf) and decodes it into d: 1 when the
 * writer finished and the decode found the buffer canonical. */
static int written_canonical(pcq_writer *w, const uint8_t *buf, size_t *len, pcq_data *d)
{
    pcq_end_data(w);
    return pcq_writer_finish(w, len) == PCQ_OK && pcq_decode_data(buf, *len, NULL, d, NULL) == PCQ_OK &&
           (d->flags & PCQ_DATA_CANONICAL_);
}

/* The batch readers' loops for canonical blocks: by row eight values a
 * turn, then four, then one at a time; by column eight instances at a time
 * and the rest one at a time. Blocks of 1 to 21 counters (4- and 8-byte
 * mixed) and eleven instances, each 4-byte value followed by non-zero
 * padding (the record is 16 bytes; §2.2.4.3 gives the padding no value),
 * checked value by value against what was written, and against the checking
 * path (the same pcq_data without its canonical flag). */
#define NI     11
#define NC_MAX 21
static void check_columns_wide(uint32_t nc)
{
    uint32_t ids[NC_MAX];
    uint8_t sizes[NC_MAX], name[32];
    static uint8_t buf[8192];
    uint64_t vals[NI][NC_MAX], cols[NI * NC_MAX], rows[NI * NC_MAX], col[NI];
    pcq_writer w;
    pcq_data hdr, d, slow;
    pcq_iter bi, ii, vi;
    pcq_block b;
    pcq_data_instance in;
    pcq_value v;
    size_t len = 0, count;
    uint32_t i, j, pass, poked = 0;
    for (j = 0; j < nc; j++) {
        ids[j] = 10 + j;
        sizes[j] = (j % 3 == 1 || j == 4) ? 4 : 8;
    }
    memset(&hdr, 0, sizeof hdr);
    pcq_writer_init(&w, buf, sizeof buf);
    pcq_begin_data(&w, &hdr);
    pcq_begin_block(&w, PCQ_PERF_COUNTERSET, 0, ids, nc);
    for (i = 0; i < NI; i++) {
        for (j = 0; j < nc; j++)
            vals[i][j] = sizes[j] == 4 ? 0xF0000000u + 32 * i + j : ((uint64_t)(i + 1) << 40) + j;
        pcq_put_data_instance_u64(&w, i, name, u16a(i == 1 ? "_Total" : "cpu", name), vals[i], sizes, nc);
    }
    pcq_end_block(&w);
    pcq_begin_block(&w, PCQ_PERF_MULTI_COUNTERS, 0, ids, nc); /* instance 3's values again, in a type 2 */
    pcq_put_values_u64(&w, vals[3], sizes, nc);
    pcq_end_block(&w);
    if (!TL_CHECK(written_canonical(&w, buf, &len, &d), "a canonical block of %u counters", nc)) return;
    pcq_data_blocks(&d, &bi); /* the padding after each 4-byte value: not part of it */
    if (pcq_blocks_next(&bi, &b) == 1)
        for (pcq_block_instances(&d, &b, &ii); pcq_instances_of_block_next(&ii, &in) == 1;)
            for (pcq_instance_values(&d, &in, &vi); pcq_values_next(&vi, &v) == 1; poked++)
                if (v.data_size == 4) memset(buf + v.offset + 12, 0xA5, 4);
    if (pcq_blocks_next(&bi, &b) == 1)
        for (pcq_block_values(&d, &b, &vi); pcq_values_next(&vi, &v) == 1; poked++)
            if (v.data_size == 4) memset(buf + v.offset + 12, 0x5A, 4);
    TL_CHECK(poked == (NI + 1) * nc, "%u counters: %u values", nc, poked);
    slow = d;
    slow.flags &= ~PCQ_DATA_CANONICAL_;
    for (pass = 0; pass < 2; pass++) {
        const pcq_data *dp = pass ? &slow : &d;
        pcq_data_blocks(dp, &bi);
        if (!TL_CHECK(pcq_blocks_next(&bi, &b) == 1 && b.num_instances == NI && b.num_counters == nc,
                      "%u counters, pass %u: the block", nc, pass))
            return;
        TL_CHECK(pcq_block_columns_u64(dp, &b, cols, NI * nc, &count) == PCQ_OK && count == NI * nc,
                 "%u counters, pass %u: columns", nc, pass);
        TL_CHECK(pcq_block_rows_u64(dp, &b, rows, NI * nc, &count) == PCQ_OK && count == NI * nc,
                 "%u counters, pass %u: rows", nc, pass);
        for (j = 0; j < nc; j++) {
            TL_CHECK(pcq_block_column_u64(dp, &b, j, col, NI, &count) == PCQ_OK && count == NI,
                     "%u counters, pass %u: column %u", nc, pass, j);
            for (i = 0; i < NI; i++)
                TL_CHECK(cols[j * NI + i] == vals[i][j] && col[i] == vals[i][j] &&
                             rows[i * nc + j] == vals[i][j],
                         "%u counters, pass %u: counter %u of instance %u: %llx %llx %llx, written %llx", nc,
                         pass, j, i, (unsigned long long)cols[j * NI + i], (unsigned long long)col[i],
                         (unsigned long long)rows[i * nc + j], (unsigned long long)vals[i][j]);
        }
        memset(rows, 0, sizeof rows); /* the type 2 block: a row and a column are the same */
        TL_CHECK(pcq_blocks_next(&bi, &b) == 1 && b.type == PCQ_PERF_MULTI_COUNTERS &&
                     pcq_block_rows_u64(dp, &b, rows, nc, &count) == PCQ_OK && count == nc &&
                     pcq_block_columns_u64(dp, &b, cols, nc, &count) == PCQ_OK && count == nc,
                 "%u counters, pass %u: the type 2 block", nc, pass);
        for (j = 0; j < nc; j++)
            TL_CHECK(rows[j] == vals[3][j] && cols[j] == vals[3][j],
                     "%u counters, pass %u: type 2, counter %u: %llx %llx, written %llx", nc, pass, j,
                     (unsigned long long)rows[j], (unsigned long long)cols[j],
                     (unsigned long long)vals[3][j]);
    }
}
static void test_columns_wide(void)
{
    uint32_t nc;
    for (nc = 1; nc <= NC_MAX; nc++) check_columns_wide(nc);
}
#undef NI
#undef NC_MAX

/* A data instance that does not start on an 8-byte boundary (the one
 * before it has Size 20; a type 6 block with no counters, so no value comes
 * between): PCQ_DIAG_UNALIGNED at it, which PCQ_STRICT makes an error. */
static unsigned unaligned_seen;
static void on_unaligned(void *ctx, const pcq_diag *d)
{
    (void)ctx;
    if (d->code == PCQ_DIAG_UNALIGNED && d->offset == 100) unaligned_seen++;
}

static void test_unaligned_instance(void)
{
    uint8_t b[120];
    pcq_opts o;
    pcq_data d;
    pcq_error e;
    int rc;
    memset(b, 0, sizeof b);
    tl_put32le(b, 120);
    tl_put32le(b + 4, 1);
    tl_put32le(b + 52, 6);
    tl_put32le(b + 56, 72);
    tl_put32le(b + 64, 8);  /* _PERF_MULTI_COUNTERS: no counters */
    tl_put32le(b + 72, 48); /* _PERF_MULTI_INSTANCES: 2 */
    tl_put32le(b + 76, 2);
    tl_put32le(b + 80, 20); /* "ab", Size 20 */
    tl_put32le(b + 84, 1);
    b[88] = 'a';
    b[90] = 'b';
    tl_put32le(b + 100, 16); /* "c" at 100 */
    tl_put32le(b + 104, 2);
    b[108] = 'c';
    memset(&o, 0, sizeof o);
    o.on_diag = on_unaligned;
    rc = pcq_decode_data(b, sizeof b, &o, &d, &e);
    TL_CHECK(rc == PCQ_OK && unaligned_seen == 1, "an unaligned instance: %s, diagnosed %u times",
             pcq_status_name(rc), unaligned_seen);
    o.flags = PCQ_STRICT;
    rc = pcq_decode_data(b, sizeof b, &o, &d, &e);
    TL_CHECK(rc == PCQ_ERR_NONCONFORMANT && e.offset == 100 && e.diag == PCQ_DIAG_UNALIGNED,
             "an unaligned instance, strict: %s at %zu", pcq_status_name(rc), e.offset);
}

/* A walk to its end, as a caller sees it: the status and the diagnostics
 * (their number, and a sum of their codes and offsets). */
typedef struct walk_end {
    int rc;
    unsigned diags;
    size_t sum;
} walk_end;

static void on_walk_end(void *ctx, const pcq_diag *dg)
{
    walk_end *we = (walk_end *)ctx;
    we->diags++;
    we->sum += dg->offset * 64 + (size_t)dg->code;
}

static walk_end walk_to_end(const uint8_t *b, size_t len, unsigned flags)
{
    pcq_walk w;
    pcq_item it;
    pcq_opts o;
    walk_end we;
    memset(&we, 0, sizeof we);
    memset(&o, 0, sizeof o);
    o.flags = flags;
    o.on_diag = on_walk_end;
    o.ctx = &we;
    pcq_walk_begin(&w, PCQ_KIND_DATA, b, len, &o);
    while ((we.rc = pcq_walk_next(&w, &it)) == 1) continue;
    return we;
}

/* The quick checks of an instance's name, which pcq_codec.c makes 16 bytes
 * at a time with SSE2 and 8 without: canonical_instances (pcq_decode_data's
 * canonical flag) and bulk_instance (PCQ_BULK). Names of 1 to 40 units in a
 * type 4 and a type 6 block (8 to 88 bytes padded: no word before the last,
 * one, and every count of 16-byte turns), then each unit of the padded name
 * flipped: a character made 0, a 0 made 'x'. A name is canonical when its
 * first 0 unit is in its last 8 bytes and every unit after it is 0 (D6), as
 * a plain loop over the units says here; the flag must say the same, and the
 * walk with PCQ_BULK must end as the walk without it does. */
static void check_name_flips(uint32_t type, size_t units)
{
    static const uint32_t ids[2] = {3, 5};
    static const uint64_t vals[2] = {11, 0x1122334455667788u};
    static const uint8_t sizes[2] = {4, 8};
    uint32_t nc = type == PCQ_PERF_COUNTERSET ? 2 : 1;
    uint8_t name[96], buf[512], flip[512];
    pcq_writer w;
    pcq_data hdr, d;
    pcq_iter bi, ii;
    pcq_block b;
    pcq_data_instance in;
    size_t len = 0, i, at = 0, end = 0, u;
    for (i = 0; i < units; i++) name[2 * i] = (uint8_t)('a' + i % 26), name[2 * i + 1] = (uint8_t)(i & 1);
    memset(&hdr, 0, sizeof hdr);
    pcq_writer_init(&w, buf, sizeof buf);
    pcq_begin_data(&w, &hdr);
    pcq_begin_block(&w, type, 0, type == PCQ_PERF_COUNTERSET ? ids : NULL,
                    type == PCQ_PERF_COUNTERSET ? 2 : 0);
    for (i = 0; i < 3; i++) /* the name under test is the middle instance's */
        pcq_put_data_instance_u64(&w, (uint32_t)i, name, i == 1 ? 2 * units : 2, vals, sizes, nc);
    pcq_end_block(&w);
    if (!TL_CHECK(written_canonical(&w, buf, &len, &d), "type %u, a name of %zu units: canonical", type,
                  units))
        return;
    pcq_data_blocks(&d, &bi);
    if (pcq_blocks_next(&bi, &b) == 1)
        for (pcq_block_instances(&d, &b, &ii); pcq_instances_of_block_next(&ii, &in) == 1;)
            if (in.instance_id == 1) at = (size_t)(in.name.ptr - buf), end = in.offset + in.size;
    if (!TL_CHECK(at && end - at == ((2 * units + 2 + 7) & ~(size_t)7), "type %u, %zu units: the name at %zu",
                  type, units, at))
        return;
    for (u = at; u < end; u += 2) {
        size_t first = end, k;
        int want = 1, got;
        walk_end plain, bulk;
        pcq_data fd;
        memcpy(flip, buf, len);
        flip[u] = (flip[u] | flip[u + 1]) ? 0 : 'x';
        flip[u + 1] = 0;
        for (k = at; k < end && first == end; k += 2)
            if (!flip[k] && !flip[k + 1]) first = k;
        for (k = first; k < end; k++) want &= !flip[k];
        want &= first != end && end - first <= 8;
        got = pcq_decode_data(flip, len, NULL, &fd, NULL) == PCQ_OK && (fd.flags & PCQ_DATA_CANONICAL_);
        plain = walk_to_end(flip, len, 0);
        bulk = walk_to_end(flip, len, PCQ_BULK);
        TL_CHECK(got == want && (want || plain.rc < 0 || plain.diags > 0),
                 "type %u, %zu units, unit %zu flipped: canonical %d, want %d (walk %s, %u diagnostics)",
                 type, units, (u - at) / 2, got, want, pcq_status_name(plain.rc), plain.diags);
        TL_CHECK(bulk.rc == plain.rc && bulk.diags == plain.diags && bulk.sum == plain.sum,
                 "type %u, %zu units, unit %zu flipped: PCQ_BULK %s, %u diagnostics; the walk %s, %u", type,
                 units, (u - at) / 2, pcq_status_name(bulk.rc), bulk.diags, pcq_status_name(plain.rc),
                 plain.diags);
    }
}

static void test_canonical_names(void)
{
    size_t units;
    for (units = 1; units <= 40; units++) {
        check_name_flips(PCQ_PERF_MULTI_INSTANCES, units);
        check_name_flips(PCQ_PERF_COUNTERSET, units);
    }
}

/* The quick checks of the value records (_PERF_COUNTER_DATA, §2.2.4.9):
 * two to four by the first two and the last two, more four a turn and the
 * last four again when the count is not a multiple of 4 (with SSE2 two
 * records a register: each lane must count): blocks of type 6 (three
 * instances) and type 2 of 0 to 21 counters, and of type 4 (three
 * instances of one value), each record's dwDataSize made 12 in turn. 12
 * is more than dwSize 16 leaves (EXCEEDS_CONTAINER at the record), so
 * decode must fail there, with and without the quick pass's word on it
 * (PCQ_BULK walks through the same checks); with no record touched the
 * buffer is canonical. */
static void check_value_flips(uint32_t type, uint32_t nc)
{
    uint32_t ids[21];
    uint64_t vals[21];
    uint8_t sizes[21], name[16], buf[2048], flip[2048];
    size_t offs[3 * 21], len = 0, i, nrec = 0;
    pcq_writer w;
    pcq_data hdr, d;
    pcq_error e;
    pcq_iter bi, ii, vi;
    pcq_block b;
    pcq_data_instance in;
    pcq_value v;
    int listed = type != PCQ_PERF_MULTI_INSTANCES, insts = type != PCQ_PERF_MULTI_COUNTERS;
    for (i = 0; i < nc; i++) ids[i] = 100 + (uint32_t)i, vals[i] = 1000 + i, sizes[i] = i % 3 ? 8 : 4;
    memset(&hdr, 0, sizeof hdr);
    pcq_writer_init(&w, buf, sizeof buf);
    pcq_begin_data(&w, &hdr);
    pcq_begin_block(&w, type, 0, listed ? ids : NULL, listed ? nc : 0);
    if (insts)
        for (i = 0; i < 3; i++)
            pcq_put_data_instance_u64(&w, (uint32_t)i, name, u16a("cpu", name), vals, sizes, nc);
    else
        pcq_put_values_u64(&w, vals, sizes, nc);
    pcq_end_block(&w);
    if (!TL_CHECK(written_canonical(&w, buf, &len, &d), "type %u, %u counters: canonical", type, nc)) return;
    pcq_data_blocks(&d, &bi);
    if (!TL_CHECK(pcq_blocks_next(&bi, &b) == 1, "type %u, %u counters: the block", type, nc)) return;
    if (type == PCQ_PERF_MULTI_INSTANCES)
        for (pcq_block_instances(&d, &b, &ii); pcq_instances_of_block_next(&ii, &in) == 1;)
            offs[nrec++] = in.value.offset;
    else if (insts)
        for (pcq_block_instances(&d, &b, &ii); pcq_instances_of_block_next(&ii, &in) == 1;)
            for (pcq_instance_values(&d, &in, &vi); pcq_values_next(&vi, &v) == 1;) offs[nrec++] = v.offset;
    else
        for (pcq_block_values(&d, &b, &vi); pcq_values_next(&vi, &v) == 1;) offs[nrec++] = v.offset;
    if (!TL_CHECK(nrec == (insts ? 3 : 1) * (size_t)nc, "type %u, %u counters: %zu records", type, nc, nrec))
        return;
    for (i = 0; i < nrec; i++) {
        int rc;
        walk_end plain, bulk;
        memcpy(flip, buf, len);
        tl_put32le(flip + offs[i], 12); /* dwDataSize */
        rc = pcq_decode_data(flip, len, NULL, &d, &e);
        TL_CHECK(rc == PCQ_ERR_EXCEEDS_CONTAINER && e.offset == offs[i],
                 "type %u, %u counters, record %zu: %s at %zu, want EXCEEDS_CONTAINER at %zu", type, nc, i,
                 pcq_status_name(rc), e.offset, offs[i]);
        plain = walk_to_end(flip, len, 0);
        bulk = walk_to_end(flip, len, PCQ_BULK);
        TL_CHECK(plain.rc == PCQ_ERR_EXCEEDS_CONTAINER && bulk.rc == plain.rc && bulk.diags == plain.diags,
                 "type %u, %u counters, record %zu: the walk %s, with PCQ_BULK %s", type, nc, i,
                 pcq_status_name(plain.rc), pcq_status_name(bulk.rc));
    }
}

static void test_canonical_values(void)
{
    uint32_t nc;
    for (nc = 0; nc <= 21; nc++) {
        check_value_flips(PCQ_PERF_COUNTERSET, nc);
        if (nc > 0) check_value_flips(PCQ_PERF_MULTI_COUNTERS, nc);
    }
    check_value_flips(PCQ_PERF_MULTI_INSTANCES, 1);
}

/* The quick pass's bounds on blocks (canonical_data: a slack of what the
 * input holds beyond 16 bytes a block not yet read): replies of one to four
 * blocks of every type, the last one's dwSize grown by 8 or 16 past the
 * input (dwTotalSize still the input's length), in a heap copy of exactly
 * the input's size, where a read past it is ASan's. §2.2.4.1: the blocks
 * fill the buffer, so the decode must fail, at the last block's dwSize. */
static void test_canonical_block_bounds(void)
{
    static const uint32_t ids[2] = {3, 5};
    static const uint64_t vals[2] = {7, 9};
    static const uint8_t sizes[2] = {4, 8};
    uint8_t name[16], buf[1024];
    unsigned nb, last, grow;
    for (nb = 1; nb <= 4; nb++)
        for (last = 0; last < 5; last++)
            for (grow = 8; grow <= 16; grow += 8) {
                pcq_writer w;
                pcq_data hdr, d;
                pcq_error e;
                size_t len = 0, at = 48, i;
                uint8_t *copy;
                int rc;
                memset(&hdr, 0, sizeof hdr);
                pcq_writer_init(&w, buf, sizeof buf);
                pcq_begin_data(&w, &hdr);
                for (i = 0; i < nb; i++) {
                    unsigned type = i + 1 == nb ? last : (unsigned)i % 5; /* 0: an error block, 3: type 4 */
                    if (type == 0) {
                        pcq_put_error_block(&w, 5);
                        continue;
                    }
                    type = type == 3 ? PCQ_PERF_MULTI_INSTANCES : type == 4 ? PCQ_PERF_COUNTERSET : type;
                    pcq_begin_block(&w, type, 0, type == 2 || type == 6 ? ids : NULL,
                                    type == 2 || type == 6 ? 2 : 0);
                    if (type == PCQ_PERF_SINGLE_COUNTER)
                        pcq_put_values_u64(&w, vals, sizes, 1);
                    else if (type == PCQ_PERF_MULTI_COUNTERS)
                        pcq_put_values_u64(&w, vals, sizes, 2);
                    else
                        pcq_put_data_instance_u64(&w, 1, name, u16a("cpu", name), vals, sizes,
                                                  type == PCQ_PERF_COUNTERSET ? 2 : 1);
                    pcq_end_block(&w);
                }
                if (!TL_CHECK(written_canonical(&w, buf, &len, &d),
                              "%u blocks, the last of kind %u: canonical", nb, last))
                    continue;
                for (i = 0; i + 1 < nb; i++) at += tl_ld32le(buf + at + 8);
                tl_put32le(buf + at + 8, tl_ld32le(buf + at + 8) + grow); /* dwSize */
                copy = (uint8_t *)malloc(len);
                if (!TL_CHECK(copy != NULL, "%zu bytes", len)) return;
                memcpy(copy, buf, len);
                rc = pcq_decode_data(copy, len, NULL, &d, &e);
                TL_CHECK(rc < 0 && e.offset == at + 8,
                         "%u blocks, the last of kind %u %u bytes past the input: %s at %zu, want at %zu", nb,
                         last, grow, pcq_status_name(rc), e.offset, at + 8);
                free(copy);
            }
}

/* v.counter_id of the two values of the type 2 block at 48 of data (ids 7
 * and 9), from every way to them: the header's inline step, the function,
 * after a batch read, and the same on the buffer made not canonical (a
 * Reserved of 1: a diagnostic), which the checking steps read. */
static void test_value_counter_ids(uint8_t *data, size_t len)
{
    pcq_data d;
    pcq_iter it;
    pcq_block b;
    pcq_value v;
    uint64_t u;
    int pass;
    for (pass = 0; pass < 2; pass++) {
        tl_put32le(data + 60, (uint32_t)pass); /* _PERF_COUNTER_HEADER.dwReserved */
        if (!TL_CHECK(pcq_decode_data(data, len, NULL, &d, NULL) == PCQ_OK &&
                          (d.flags & PCQ_DATA_CANONICAL_) == (pass ? 0u : PCQ_DATA_CANONICAL_),
                      "pass %d: decode", pass))
            return;
        pcq_data_blocks(&d, &it);
        memset(&b, 0, sizeof b); /* (gcc 12 -Wuninitialized could not tell the step sets it) */
        if (!TL_CHECK(pcq_blocks_next(&it, &b) == 1, "pass %d: the block", pass)) return;
        pcq_block_values(&d, &b, &it);
        TL_CHECK(pcq_values_next(&it, &v) == 1 && v.counter_id == 7 && v.u64 == 100 &&
                     pcq_values_next(&it, &v) == 1 && v.counter_id == 9 && v.u64 == 200 &&
                     pcq_values_next(&it, &v) == 0,
                 "pass %d: v.counter_id, inline", pass);
        pcq_block_values(&d, &b, &it);
        TL_CHECK((pcq_values_next)(&it, &v) == 1 && v.counter_id == 7 && (pcq_values_next)(&it, &v) == 1 &&
                     v.counter_id == 9,
                 "pass %d: v.counter_id, the function", pass);
        pcq_block_values(&d, &b, &it);
        TL_CHECK(pcq_values_read_u64(&it, &u, 1) == 1 && u == 100 && pcq_values_next(&it, &v) == 1 &&
                     v.counter_id == 9,
                 "pass %d: v.counter_id after a batch read", pass);
        TL_CHECK(b.value.counter_id == 0, "pass %d: a block's own value has none", pass);
    }
    tl_put32le(data + 60, 0);
}

/* A PERF_COUNTERSET of counters 5 and 6 and one instance, "cpu0" (InstanceId
 * 1), valued 100 (4 bytes) and 200 (8 bytes), its block ended: the buffer of
 * the two tests below. */
static void write_cpu0_set(pcq_writer *w, uint8_t *buf, size_t cap)
{
    static const uint32_t ids[2] = {5, 6};
    uint8_t name[16];
    pcq_data hdr;
    memset(&hdr, 0, sizeof hdr);
    pcq_writer_init(w, buf, cap);
    pcq_begin_data(w, &hdr);
    pcq_begin_block(w, PCQ_PERF_COUNTERSET, 0, ids, 2);
    pcq_put_data_instance(w, 1, name, u16a("cpu0", name));
    pcq_put_value_u32(w, 100);
    pcq_put_value_u64(w, 200);
    pcq_end_block(w);
}

/* An instance made by hand, its public fields right and its private
 * ids_at stale (D11, "The id by position"): on a canonical buffer, in an
 * exact-size heap copy (ASan sees a read past it), its values come out as
 * they are, with no counter id, by the header's inline step and by the
 * function, whether ids_at points past the input, at its last 4 bytes (the
 * first id inside, the second not) or at 0; the instance as the iterator
 * made it has its ids 5 and 6. */
static void test_stale_ids_at(void)
{
    uint8_t buf[256], *copy;
    size_t len = 0;
    pcq_writer w;
    pcq_data d;
    pcq_iter it;
    pcq_block b;
    pcq_data_instance in, hand;
    pcq_value v1, v2;
    uint32_t stale[4], k;
    int fn;
    write_cpu0_set(&w, buf, sizeof buf);
    if (!TL_CHECK(written_canonical(&w, buf, &len, &d), "a canonical set of one instance")) return;
    copy = (uint8_t *)malloc(len);
    if (!TL_CHECK(copy != NULL, "%zu bytes", len)) return;
    memcpy(copy, buf, len);
    if (!TL_CHECK(pcq_decode_data(copy, len, NULL, &d, NULL) == PCQ_OK && (d.flags & PCQ_DATA_CANONICAL_) &&
                      (pcq_data_blocks(&d, &it), pcq_blocks_next(&it, &b) == 1) &&
                      (pcq_block_instances(&d, &b, &it), pcq_instances_of_block_next(&it, &in) == 1),
                  "the copy: decode, its block and instance")) {
        free(copy);
        return;
    }
    pcq_instance_values(&d, &in, &it);
    TL_CHECK(pcq_values_next(&it, &v1) == 1 && pcq_values_next(&it, &v2) == 1 && v1.counter_id == 5 &&
                 v2.counter_id == 6,
             "as the iterator made it: ids %u %u", v1.counter_id, v2.counter_id);
    stale[0] = 0xFFFFFFF0u;
    stale[1] = (uint32_t)len - 4;
    stale[2] = (uint32_t)len;
    stale[3] = 0;
    for (k = 0; k < 4; k++)
        for (fn = 0; fn < 2; fn++) {
            hand = in;
            hand.ids_at = stale[k];
            pcq_instance_values(&d, &hand, &it);
            memset(&v1, 0xA5, sizeof v1);
            memset(&v2, 0xA5, sizeof v2);
            TL_CHECK((fn ? (pcq_values_next)(&it, &v1) : pcq_values_next(&it, &v1)) == 1 &&
                         (fn ? (pcq_values_next)(&it, &v2) : pcq_values_next(&it, &v2)) == 1 &&
                         v1.u64 == 100 && v2.u64 == 200 && v1.counter_id == 0 && v2.counter_id == 0,
                     "ids_at %u (%s): values %llu %llu, ids %u %u", stale[k], fn ? "the function" : "inline",
                     (unsigned long long)v1.u64, (unsigned long long)v2.u64, v1.counter_id, v2.counter_id);
        }
    free(copy);
}

/* An instance made by hand from one of a buffer that is not canonical,
 * with one value more than its block lists: its values iterator fails at
 * the instance, inline as through the function (the inline path hands the
 * function the fields it reads, pcq_instance_values_fast_). */
static void test_hand_instance_count(void)
{
    uint8_t buf[256];
    size_t len = 0;
    pcq_writer w;
    pcq_data d;
    pcq_iter it;
    pcq_block b;
    pcq_data_instance in, hand;
    pcq_value v;
    int fn, rc, k;
    write_cpu0_set(&w, buf, sizeof buf);
    pcq_end_data(&w);
    if (!TL_CHECK(pcq_writer_finish(&w, &len) == PCQ_OK, "the buffer")) return;
    buf[48 + 12] = 1; /* the block's Reserved: a diagnostic, so not canonical */
    if (!TL_CHECK(pcq_decode_data(buf, len, NULL, &d, NULL) == PCQ_OK && !(d.flags & PCQ_DATA_CANONICAL_) &&
                      (pcq_data_blocks(&d, &it), pcq_blocks_next(&it, &b) == 1) &&
                      (pcq_block_instances(&d, &b, &it), pcq_instances_of_block_next(&it, &in) == 1),
                  "decode, its block and instance"))
        return;
    for (fn = 0; fn < 2; fn++) {
        hand = in;
        hand.num_values = 3;
        if (fn)
            (pcq_instance_values)(&d, &hand, &it);
        else
            pcq_instance_values(&d, &hand, &it);
        for (k = 0; (rc = fn ? (pcq_values_next)(&it, &v) : pcq_values_next(&it, &v)) == 1; k++) continue;
        TL_CHECK(k == 2 && rc < 0 && it.err.code == rc && it.err.offset == in.offset,
                 "three values of two (%s): %d read, then %d at %zu (the instance at %zu)",
                 fn ? "the function" : "inline", k, rc, it.err.offset, in.offset);
    }
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
    tl_put32le(data, 112);
    tl_put32le(data + 4, 1);
    tl_put32le(data + 52, 2);  /* dwType */
    tl_put32le(data + 56, 64); /* dwSize */
    tl_put32le(data + 64, 16); /* _PERF_MULTI_COUNTERS.dwSize */
    tl_put32le(data + 68, 2);
    tl_put32le(data + 72, 7);
    tl_put32le(data + 76, 9);
    tl_put32le(data + 80, 4);
    tl_put32le(data + 84, 16);
    tl_put32le(data + 88, 100);
    tl_put32le(data + 96, 8);
    tl_put32le(data + 100, 16);
    tl_put32le(data + 104, 200);
    TL_CHECK(pcq_decode_data(data, sizeof data, NULL, NULL, NULL) == PCQ_OK, "decode without out");
    TL_CHECK(pcq_decode_data(data, sizeof data, NULL, &d, NULL) == PCQ_OK, "decode");
    pcq_data_blocks(&d, &it);
    TL_CHECK(pcq_blocks_next(&it, &b) == 1 && b.num_counters == 2, "the block");
    /* the header's inline copy and the function: an id, 0 past the list and without a block */
    TL_CHECK(pcq_block_counter_id(&b, 0) == 7 && pcq_block_counter_id(&b, 1) == 9 &&
                 pcq_block_counter_id(&b, 2) == 0 && pcq_block_counter_id(NULL, 0) == 0 &&
                 (pcq_block_counter_id)(&b, 1) == 9 && (pcq_block_counter_id)(&b, 2) == 0 &&
                 (pcq_block_counter_id)(NULL, 1) == 0,
             "counter ids");
    test_value_counter_ids(data, sizeof data);
    pcq_block_values(&d, &b, &it);
    TL_CHECK(pcq_values_read(&it, r, 1) == 1 && r[0].u64 == 100 && r[0].offset == 80 && r[0].data_size == 4,
             "a batch of one");
    TL_CHECK(pcq_values_read(&it, r, 4) == 1 && r[0].u64 == 200 && r[0].data_size == 8, "the rest");
    TL_CHECK(pcq_values_read(&it, r, 4) == 0 && it.err.code == 0, "then nothing");
    TL_CHECK(pcq_values_read(NULL, r, 4) == 0 && pcq_values_read(&it, NULL, 4) == 0, "NULL arguments");

    memset(cset, 0, sizeof cset);
    tl_put32le(cset + 20, 100); /* DetailLevel */
    TL_CHECK(pcq_decode_counterset_info(cset, sizeof cset, NULL, NULL, NULL) == PCQ_OK &&
                 pcq_decode_counter_info(data, 48, NULL, NULL, NULL) == PCQ_OK &&
                 pcq_decode_strings(data + 64, 16, NULL, NULL, NULL) == PCQ_ERR_TRUNCATED &&
                 pcq_decode_string(str, sizeof str, NULL, NULL, NULL) == PCQ_OK &&
                 pcq_decode_guid(g, sizeof g, NULL, NULL, NULL) == PCQ_OK &&
                 pcq_decode_guids(g, sizeof g, NULL, NULL, NULL) == PCQ_OK,
             "every decoder without an out-parameter");
}

/* ---- pcq_utf16_to_utf8 ---------------------------------------------- */

static uint64_t ut_rand(uint64_t *s) /* xorshift64 */
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint32_t ut_ld16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* The conversion a code point at a time, as the spec of the function says
 * (pcq_codec.h): a pair of surrogates is one character, any other surrogate
 * U+FFFD; at most cap - 1 bytes and a NUL, never a character split; the
 * result is what the whole conversion needs. */
static size_t ref_utf16_to_utf8(const uint8_t *s, size_t nbytes, char *dst, size_t cap, size_t *replaced)
{
    size_t pos = 0, need = 0, written = 0, bad = 0, n, k;
    int full = 0;
    uint8_t e[4];
    nbytes &= ~(size_t)1;
    while (pos < nbytes) {
        uint32_t c = ut_ld16(s + pos), lo;
        pos += 2;
        if (c >= 0xD800 && c <= 0xDFFF) {
            lo = pos + 2 <= nbytes ? ut_ld16(s + pos) : 0;
            if (c <= 0xDBFF && lo >= 0xDC00 && lo <= 0xDFFF) {
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                pos += 2;
            } else {
                c = 0xFFFD;
                bad++;
            }
        }
        if (c < 0x80) {
            e[0] = (uint8_t)c;
            n = 1;
        } else if (c < 0x800) {
            e[0] = (uint8_t)(0xC0 | c >> 6);
            e[1] = (uint8_t)(0x80 | (c & 0x3F));
            n = 2;
        } else if (c < 0x10000) {
            e[0] = (uint8_t)(0xE0 | c >> 12);
            e[1] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
            e[2] = (uint8_t)(0x80 | (c & 0x3F));
            n = 3;
        } else {
            e[0] = (uint8_t)(0xF0 | c >> 18);
            e[1] = (uint8_t)(0x80 | (c >> 12 & 0x3F));
            e[2] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
            e[3] = (uint8_t)(0x80 | (c & 0x3F));
            n = 4;
        }
        need += n;
        if (!full && dst && cap > 0 && written + n <= cap - 1)
            for (k = 0; k < n; k++) dst[written++] = (char)e[k];
        else
            full = 1;
    }
    if (dst && cap > 0) dst[written] = 0;
    if (replaced) *replaced = bad;
    return need;
}

/* ASCII is converted four units a turn, then a unit at a time, with a path
 * of its own where an ASCII prefix fits whole: random texts (mostly ASCII,
 * runs of every length, units from every range, lone and paired
 * surrogates, an odd last byte) at every cap up to past what they need,
 * against the reference: the result, every byte written and the byte after,
 * the count of replaced surrogates; and a NULL destination. */
static void test_utf16_to_utf8(void)
{
    static const uint16_t kinds[8] = {0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD800, 0xDC00, 0xFFFF};
    uint8_t src[81];
    char got[256], want[256];
    uint64_t rng = 0x9E3779B97F4A7C15u, r;
    uint32_t u;
    size_t len, cap, i, rg, rw, ng, nw, bad = 0, pairs = 0;
    unsigned round;
    for (round = 0; round < 3000; round++) {
        int ascii = round % 3 != 2;                 /* all ASCII: what the header's inline conversion takes */
        len = (size_t)(ut_rand(&rng) % sizeof src); /* odd lengths too: the last byte is ignored */
        for (i = 0; i < len; i += 2) {
            r = ut_rand(&rng);
            if (ascii) r &= ~(uint64_t)7;
            if ((r & 15) == 0 && len - i >= 4 && !ascii) { /* a surrogate pair */
                u = 0xD800 + (uint32_t)(r >> 8) % 0x400;
                src[i + 2] = (uint8_t)(r >> 24);
                src[i + 3] = (uint8_t)(0xDC + (r >> 32) % 4);
                pairs++;
            } else {
                u = (r & 7) < 5 ? 0x20 + (uint32_t)(r >> 8) % 0x5F /* ASCII, most often */
                                : kinds[(r >> 3) & 7] + (uint32_t)(r >> 16) % 3;
            }
            src[i] = (uint8_t)u;
            if (i + 1 < len) src[i + 1] = (uint8_t)(u >> 8);
            if (u >= 0xD800 && u < 0xDC00 && (r & 15) == 0) i += 2;
        }
        if (round % 3 == 1 && len >= 2) { /* ASCII but one unit anywhere: where eight or four a turn stop */
            r = ut_rand(&rng);
            i = 2 * (size_t)(r % (len / 2));
            u = kinds[2 + (r >> 16) % 6] + (uint32_t)(r >> 24) % 3;
            src[i] = (uint8_t)u;
            src[i + 1] = (uint8_t)(u >> 8);
        }
        nw = ref_utf16_to_utf8(src, len, NULL, 0, &rw);
        ng = pcq_utf16_to_utf8(src, len, NULL, 0, &rg);
        TL_CHECK(ng == nw && rg == rw, "round %u, no destination: %zu %zu, replaced %zu %zu", round, ng, nw,
                 rg, rw);
        for (cap = 0; cap <= nw + 2 && cap < sizeof got; cap++) {
            memset(got, 0x55, sizeof got);
            memset(want, 0x55, sizeof want);
            ng = pcq_utf16_to_utf8(src, len, got, cap, &rg); /* the header's, inline */
            nw = ref_utf16_to_utf8(src, len, want, cap, &rw);
            if (!TL_CHECK(ng == nw && rg == rw && memcmp(got, want, sizeof got) == 0,
                          "round %u, %zu bytes, cap %zu: %zu %zu, replaced %zu %zu, bytes %s", round, len,
                          cap, ng, nw, rg, rw, memcmp(got, want, sizeof got) ? "differ" : "the same"))
                return;
            memset(got, 0x55, sizeof got);
            ng = (pcq_utf16_to_utf8)(src, len, got, cap, &rg); /* the function, past the macro */
            if (!TL_CHECK(ng == nw && rg == rw && memcmp(got, want, sizeof got) == 0,
                          "round %u, %zu bytes, cap %zu, the function: %zu %zu, replaced %zu %zu", round, len,
                          cap, ng, nw, rg, rw))
                return;
        }
        bad += rw;
    }
    TL_CHECK(bad > 100 && pairs > 100, "the texts had lone surrogates (%zu) and pairs (%zu)", bad, pairs);
    TL_CHECK(pcq_utf16_to_utf8(NULL, 4, got, sizeof got, NULL) == 0 && got[0] == 0, "NULL source");
    /* Texts of 0 to 3 units (and an odd byte), which the inline conversion
     * takes by their first, middle and last unit: every unit of each, in
     * turn, of every kind above and U+0000, the others ASCII, at every cap. */
    for (len = 0; len <= 7; len++) {
        for (i = 0; i < len / 2 * 9 + 1; i++) {
            for (r = 0; r < 8; r++) src[r] = (uint8_t)(r % 2 ? 0 : '0' + r);
            if (len >= 2) {
                u = i % 9 == 8 ? 0 : kinds[i % 9];
                src[2 * (i / 9 % (len / 2))] = (uint8_t)u;
                src[2 * (i / 9 % (len / 2)) + 1] = (uint8_t)(u >> 8);
            }
            for (cap = 0; cap <= 6; cap++) {
                memset(got, 0x55, sizeof got);
                memset(want, 0x55, sizeof want);
                ng = pcq_utf16_to_utf8(src, len, got, cap, &rg);
                nw = ref_utf16_to_utf8(src, len, want, cap, &rw);
                if (!TL_CHECK(ng == nw && rg == rw && memcmp(got, want, sizeof got) == 0,
                              "%zu bytes, unit %zu of kind %zu, cap %zu: %zu %zu", len,
                              len >= 2 ? i / 9 % (len / 2) : 0, i % 9, cap, ng, nw))
                    return;
            }
        }
    }
}

int main(void)
{
    test_descriptions();
    test_field_get();
    test_value_names();
    test_item_field();
    test_strings_peek();
    test_item_is_element();
    test_iterator_twins();
    test_lean_steps();
    test_lean_blocks();
    test_empty_instance_lists();
    test_values_end();
    test_not_canonical();
    test_columns_wide();
    test_unaligned_instance();
    test_canonical_names();
    test_canonical_values();
    test_canonical_block_bounds();
    test_stale_ids_at();
    test_hand_instance_count();
    test_small_things();
    test_utf16_to_utf8();
    return tl_finish();
}
