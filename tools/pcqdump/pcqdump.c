/*
 * pcqdump - decode one [MS-PCQ] (PerflibV2) data buffer and show it: a field
 * tree with byte offsets for people, or one JSON object for scripts (--json).
 *
 *   pcqdump --kind KIND [--json] [--strict] [--hex] FILE|-
 *
 * The library never allocates; this tool does: it reads the whole input into
 * one malloc'd buffer and hands it to the decoders. Every printer decodes (and
 * so validates) before it prints, so a malformed buffer prints no partial tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hexread.h"
#include "pcq_codec.h"
#include "pcq_json.h"

/* tools/pcqdump/cook.c: counter values computed from two data samples. */
extern int pcqdump_cook_main(int argc, char **argv);

enum {
    EXIT_DECODED = 0,
    EXIT_MALFORMED = 1,
    EXIT_USAGE = 2,          /* also: unreadable file, bad hex, write error */
    EXIT_NONCONFORMANT = 3   /* --strict only */
};

typedef struct args {
    pcq_kind kind;
    int json, strict, hex;
    const char *file;        /* "-" is standard input */
    const char *name;        /* the input, as messages call it */
} args;

/* ======================================================================== */
/* Command line                                                             */
/* ======================================================================== */

static const char usage_text[] =
    "usage: pcqdump --kind KIND [--json] [--strict] [--hex] FILE|-\n"
    "       pcqdump --cook --info INFO OLD NEW ...   (counter values: pcqdump --cook --help)\n"
    "       pcqdump --help | --version\n"
    "\n"
    "Decodes one [MS-PCQ] (PerflibV2) data buffer, lpData, and prints it as a\n"
    "field tree with the byte offset of each field, or as one JSON object.\n"
    "\n"
    "  --kind KIND  what the buffer holds:\n"
    "                 counterset-info  opnum 1 reply, RequestCode 1\n"
    "                 counter-info     opnum 1 reply, RequestCode 2\n"
    "                 strings          opnum 1 reply, RequestCode 5, 6, 10\n"
    "                 string           opnum 1 reply, RequestCode 3, 4, 7, 9\n"
    "                 guid             opnum 1 reply, RequestCode 8\n"
    "                 guids            opnum 0 reply\n"
    "                 instances        opnum 2 reply\n"
    "                 identifiers      opnum 5 reply; opnum 7 request and reply\n"
    "                 data             opnum 6 reply\n"
    "  --json       print one JSON object (for scripts) instead of the tree\n"
    "  --strict     input that breaks a MUST of the spec is an error\n"
    "  --hex        FILE is hex text (xxd -p; whitespace and # comments ignored)\n"
    "  FILE         the buffer; - reads standard input\n"
    "\n"
    "Non-conformant input (walkable, but breaking a MUST of the spec) is reported\n"
    "on standard error, one warning per finding, and still decoded.\n"
    "\n"
    "Exit status:\n"
    "  0  decoded\n"
    "  1  malformed input (the offset and field are on standard error)\n"
    "  2  usage error, unreadable file, bad hex text or write error\n"
    "  3  non-conformant input under --strict\n";

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("pcqdump: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'pcqdump --help'.\n", stderr);
    return EXIT_USAGE;
}

static int wants_cook(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)   /* after --: file names */
        if (strcmp(argv[i], "--cook") == 0) return 1;
    return 0;
}

/* One option; *i moves past a separate value. -1 to go on, else an exit status. */
static int parse_option(int argc, char **argv, int *i, args *a, const char **kind)
{
    const char *s = argv[*i];

    if (strcmp(s, "--json") == 0) a->json = 1;
    else if (strcmp(s, "--strict") == 0) a->strict = 1;
    else if (strcmp(s, "--hex") == 0) a->hex = 1;
    else if (strncmp(s, "--kind=", 7) == 0) *kind = s + 7;
    else if (strcmp(s, "--kind") == 0) {
        if (++*i == argc) return usage_error("--kind needs a value");
        *kind = argv[*i];
    } else if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
        fputs(usage_text, stdout);
        return EXIT_DECODED;
    } else if (strcmp(s, "--version") == 0) {
        printf("pcqdump %s (library %s)\n", PCQ_VERSION_STRING, pcq_version_string());
        return EXIT_DECODED;
    } else {
        return usage_error("unknown option '%s'", s);
    }
    return -1;
}

/* Returns -1 to go on, else the exit status (help, version, usage error). */
static int parse_args(int argc, char **argv, args *a)
{
    const char *kind = NULL;
    int i, rc, files_only = 0;

    memset(a, 0, sizeof *a);
    for (i = 1; i < argc; i++) {
        if (!files_only && strcmp(argv[i], "--") == 0) {
            files_only = 1;
        } else if (files_only || argv[i][0] != '-' || argv[i][1] == '\0') {
            if (a->file) return usage_error("more than one FILE ('%s')", argv[i]);
            a->file = argv[i];
        } else if ((rc = parse_option(argc, argv, &i, a, &kind)) >= 0) {
            return rc;
        }
    }
    if (!kind) return usage_error("--kind is required");
    a->kind = pcq_kind_from_name(kind);
    if (a->kind == PCQ_KIND_NONE) return usage_error("unknown kind '%s'", kind);
    if (!a->file) return usage_error("no FILE (use - for standard input)");
    a->name = strcmp(a->file, "-") == 0 ? "<stdin>" : a->file;
    return -1;
}

/* ======================================================================== */
/* Input                                                                    */
/* ======================================================================== */

/* Reads all of f into a malloc'd buffer. 0, or -1 with errno (when set). */
static int read_stream(FILE *f, uint8_t **out, size_t *len)
{
    size_t cap = 1u << 16, n = 0;
    uint8_t *buf = malloc(cap), *bigger;

    if (!buf) return -1;
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;                      /* end of file, or an error */
        if (cap > SIZE_MAX / 2 || !(bigger = realloc(buf, cap * 2))) {
            free(buf);
            errno = ENOMEM;
            return -1;
        }
        buf = bigger;
        cap *= 2;
    }
    if (ferror(f)) {
        free(buf);
        return -1;
    }
    *out = buf;
    *len = n;
    return 0;
}

/* Where the hex text went wrong, as line and column (both from 1). */
static void hex_complain(const char *name, const char *text, size_t at, int why)
{
    size_t line = 1, col = 1, i;
    unsigned char c = (unsigned char)text[at];

    for (i = 0; i < at; i++) {
        col++;
        if (text[i] == '\n') {
            line++;
            col = 1;
        }
    }
    fprintf(stderr, "pcqdump: %s: line %zu, column %zu: ", name, line, col);
    if (why == PCQ_HEX_ODD)
        fputs("odd number of hex digits in a run\n", stderr);
    else if (c > 0x20 && c < 0x7F)
        fprintf(stderr, "'%c' is not a hex digit\n", c);
    else
        fprintf(stderr, "byte 0x%02x is not a hex digit\n", c);
}

static int hex_to_bytes(const char *name, uint8_t *text, size_t n, uint8_t **out, size_t *len)
{
    size_t cap = n / 2 + 1, where = 0;         /* two digits a byte at least */
    uint8_t *bytes = malloc(cap);
    int rc;

    if (!bytes) {
        fprintf(stderr, "pcqdump: %s: out of memory\n", name);
        return -1;
    }
    rc = pcq_hex_parse_ex((const char *)text, n, bytes, cap, len, &where);
    if (rc != 0) {
        hex_complain(name, (const char *)text, where, rc);
        free(bytes);
        return -1;
    }
    *out = bytes;
    return 0;
}

/* The whole input as bytes in a malloc'd buffer. 0, or -1 with a message. */
static int load_input(const args *a, uint8_t **buf, size_t *len)
{
    FILE *f = stdin;
    uint8_t *raw;
    size_t n;
    int rc;

    if (strcmp(a->file, "-") != 0 && !(f = fopen(a->file, "rb"))) {
        fprintf(stderr, "pcqdump: %s: %s\n", a->name, strerror(errno));
        return -1;
    }
    errno = 0;
    rc = read_stream(f, &raw, &n);
    if (rc != 0)
        fprintf(stderr, "pcqdump: %s: %s\n", a->name, errno ? strerror(errno) : "read error");
    if (f != stdin) fclose(f);
    if (rc != 0) return -1;
    if (!a->hex) {
        *buf = raw;
        *len = n;
        return 0;
    }
    rc = hex_to_bytes(a->name, raw, n, buf, len);
    free(raw);
    return rc;
}

/* ======================================================================== */
/* Tree output: one field a line, its byte offset first.                    */
/* ======================================================================== */

typedef struct tree {
    FILE *out;
    const uint8_t *buf;
    size_t len;
    int width;               /* hex digits of the offset column */
} tree;

#define HEX 1                /* f_named: show the value in hex */
#define DEC 0

/* The offset column and the indentation of a line. */
static void lead(const tree *t, size_t off, int depth)
{
    fprintf(t->out, "0x%0*zx  %*s", t->width, off, 2 * depth, "");
}

static void f_title(const tree *t, size_t off, int depth, const char *title, long index)
{
    lead(t, off, depth);
    if (index >= 0)
        fprintf(t->out, "%s[%ld]\n", title, index);
    else
        fprintf(t->out, "%s\n", title);
}

static void f_u(const tree *t, size_t off, int depth, const char *label, uint64_t v)
{
    lead(t, off, depth);
    fprintf(t->out, "%s: %" PRIu64 "\n", label, v);
}

static void f_i(const tree *t, size_t off, int depth, const char *label, int64_t v)
{
    lead(t, off, depth);
    fprintf(t->out, "%s: %" PRId64 "\n", label, v);
}

/* "label: value (NAME)", "(unknown)" when the value has no name. */
static void f_named(const tree *t, size_t off, int depth, const char *label, uint32_t v,
                    int hex, const char *name)
{
    lead(t, off, depth);
    if (hex)
        fprintf(t->out, "%s: 0x%08" PRIx32, label, v);
    else
        fprintf(t->out, "%s: %" PRIu32, label, v);
    fprintf(t->out, " (%s)\n", name ? name : "unknown");
}

/* A Win32 status: decimal and its name, or its hex form (codes are open-ended). */
static void f_status(const tree *t, size_t off, int depth, const char *label, uint32_t v)
{
    const char *name = pcq_win32_status_name(v);
    lead(t, off, depth);
    if (name)
        fprintf(t->out, "%s: %" PRIu32 " (%s)\n", label, v, name);
    else
        fprintf(t->out, "%s: %" PRIu32 " (0x%08" PRIx32 ")\n", label, v, v);
}

/* A counter id; 0xFFFFFFFF is shown in hex with what it means there. */
static void f_id(const tree *t, size_t off, int depth, const char *label, uint32_t v,
                 const char *all_ones)
{
    lead(t, off, depth);
    if (v != 0xFFFFFFFFu)
        fprintf(t->out, "%s: %" PRIu32 "\n", label, v);
    else
        fprintf(t->out, "%s: 0xffffffff (%s)\n", label, all_ones);
}

static void f_attrib(const tree *t, size_t off, int depth, uint64_t a)
{
    const char *sep = " (";
    unsigned bit;

    lead(t, off, depth);
    fprintf(t->out, "Attrib: 0x%" PRIx64, a);
    for (bit = 0; bit < 5; bit++) {
        if (!(a >> bit & 1u)) continue;
        fprintf(t->out, "%s%s", sep, pcq_attrib_bit_name(bit));
        sep = " | ";
    }
    if (a >> 5) fprintf(t->out, "%sunknown 0x%" PRIx64, sep, a & ~(uint64_t)0x1F);
    fputs(a ? ")\n" : "\n", t->out);
}

static void f_guid(const tree *t, size_t off, int depth, const char *label, const pcq_guid *g)
{
    char text[PCQ_GUID_TEXT_SIZE];
    pcq_guid_to_text(g, text);
    lead(t, off, depth);
    fprintf(t->out, "%s: %s\n", label, text);
}

/* UTF-16LE text as quoted UTF-8, escaped so that it cannot drive a terminal. */
static void f_text(const tree *t, size_t off, int depth, const char *label, pcq_bytes s)
{
    lead(t, off, depth);
    fprintf(t->out, "%s: ", label);
    pcq_quote_utf16(t->out, s.ptr, s.len, PCQ_QUOTE_TERMINAL);
    fputc('\n', t->out);
}

/* Bytes in hex, 16 a line, each line at its own offset. */
static void f_hex(const tree *t, size_t off, int depth, const char *label, pcq_bytes s)
{
    size_t i;

    lead(t, off, depth);
    fprintf(t->out, "%s (%zu bytes):", label, s.len);
    for (i = 0; i < s.len; i++) {
        if (i > 0 && i % 16 == 0) {
            fputc('\n', t->out);
            lead(t, off + i, depth + 1);
        }
        fprintf(t->out, " %02x", s.ptr[i]);
    }
    fputc('\n', t->out);
}

/* The first line: what was decoded, printed once the decode succeeded. */
static void tree_head(const tree *t, pcq_kind kind)
{
    fprintf(t->out, "%s: %zu bytes\n", pcq_kind_name(kind), t->len);
}

/* An iterator or getter failed on bytes that had decoded: a library bug. */
static int walk_failed(int rc, const pcq_error *e, pcq_error *err)
{
    *err = *e;
    return rc;
}

/* ---- counterset-info, counter-info ------------------------------------- */

static void tree_counter(const tree *t, size_t at, int depth, const pcq_counter_reg *c)
{
    f_u(t, at, depth, "CounterId", c->counter_id);
    f_named(t, at + 4, depth, "Type", c->type, HEX, pcq_counter_type_name(c->type));
    f_attrib(t, at + 8, depth, c->attrib);
    f_named(t, at + 16, depth, "DetailLevel", c->detail_level, DEC,
            pcq_detail_level_name(c->detail_level));
    f_i(t, at + 20, depth, "DefaultScale", c->default_scale);
    f_id(t, at + 24, depth, "BaseCounterId", c->base_counter_id, "none");
    f_id(t, at + 28, depth, "PerfTimeId", c->perf_time_id, "none");
    f_id(t, at + 32, depth, "PerfFreqId", c->perf_freq_id, "none");
    f_id(t, at + 36, depth, "MultiId", c->multi_id, "none");
    f_named(t, at + 40, depth, "AggregateFunc", c->aggregate_func, DEC,
            pcq_aggregate_name(c->aggregate_func));
    f_u(t, at + 44, depth, "Reserved", c->reserved);
}

static int tree_counterset_info(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_counterset_info csi;
    pcq_counter_reg c;
    pcq_error e = {0, 0, "_PERF_COUNTER_REG_INFO", 0};
    uint32_t i;
    size_t at;
    int rc = pcq_decode_counterset_info(t->buf, t->len, opts, &csi, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_COUNTERSET_INFO);
    f_title(t, 0, 0, "_PERF_COUNTERSET_REG_INFO", -1);
    f_guid(t, 0, 1, "CounterSetGuid", &csi.set.guid);
    f_u(t, 16, 1, "CounterSetType", csi.set.counterset_type);
    f_named(t, 20, 1, "DetailLevel", csi.set.detail_level, DEC,
            pcq_detail_level_name(csi.set.detail_level));
    f_u(t, 24, 1, "NumCounters", csi.set.num_counters);
    f_named(t, 28, 1, "InstanceType", csi.set.instance_type, HEX,
            pcq_instance_type_name(csi.set.instance_type));
    for (i = 0; i < csi.set.num_counters; i++) {
        at = csi.counters_offset + 48u * (size_t)i;
        if ((rc = pcq_counterset_counter(&csi, i, &c)) != PCQ_OK) {
            e.code = rc;
            e.offset = at;
            return walk_failed(rc, &e, err);
        }
        f_title(t, at, 0, "_PERF_COUNTER_REG_INFO", (long)i);
        tree_counter(t, at, 1, &c);
    }
    return PCQ_OK;
}

static int tree_counter_info(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_counter_reg c;
    int rc = pcq_decode_counter_info(t->buf, t->len, opts, &c, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_COUNTER_INFO);
    f_title(t, 0, 0, "_PERF_COUNTER_REG_INFO", -1);
    tree_counter(t, 0, 1, &c);
    return PCQ_OK;
}

/* ---- strings, string, guid, guids --------------------------------------- */

static const char *convention_text(pcq_str_convention c)
{
    switch (c) {
    case PCQ_STROFF_WIN32: return "win32, from the start of the block";
    case PCQ_STROFF_SPEC: return "spec, from the end of the header array";
    default: return "none, no string present";
    }
}

static void tree_string_entry(const tree *t, uint32_t i, const pcq_string_entry *e)
{
    size_t at = 8u + 8u * (size_t)i;

    f_title(t, at, 0, "_STRING_COUNTER_HEADER", (long)i);
    f_u(t, at, 1, "dwCounterId", e->counter_id);
    if (!e->present) {
        f_id(t, at + 4, 1, "dwOffset", e->offset, "no string");
        return;
    }
    f_u(t, at + 4, 1, "dwOffset", e->offset);
    f_text(t, e->text_offset, 1, "String", e->text);
}

static int tree_strings(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_strings s;
    pcq_string_entry e;
    pcq_error fail = {0, 0, "_STRING_COUNTER_HEADER", 0};
    uint32_t i;
    int rc = pcq_decode_strings(t->buf, t->len, opts, &s, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_STRINGS);
    lead(t, 0, 0);
    fprintf(t->out, "_STRING_BUFFER_HEADER (dwOffset convention: %s)\n",
            convention_text(s.convention));
    f_u(t, 0, 1, "dwSize", s.size);
    f_u(t, 4, 1, "dwCounters", s.num_counters);
    for (i = 0; i < s.num_counters; i++) {
        if ((rc = pcq_strings_get(&s, i, &e)) != PCQ_OK) {
            fail.code = rc;
            fail.offset = 8u + 8u * (size_t)i;
            return walk_failed(rc, &fail, err);
        }
        tree_string_entry(t, i, &e);
    }
    return PCQ_OK;
}

static int tree_string(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_bytes text;
    int rc = pcq_decode_string(t->buf, t->len, opts, &text, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_STRING);
    f_text(t, 0, 0, "String", text);
    return PCQ_OK;
}

static int tree_guid(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_guid g;
    int rc = pcq_decode_guid(t->buf, t->len, opts, &g, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_GUID);
    f_guid(t, 0, 0, "GUID", &g);
    return PCQ_OK;
}

static int tree_guids(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_guid_array a;
    pcq_guid g;
    pcq_error fail = {0, 0, "GUID", 0};
    char label[32];
    size_t i;
    int rc = pcq_decode_guids(t->buf, t->len, opts, &a, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_GUIDS);
    for (i = 0; i < a.count; i++) {
        if ((rc = pcq_guids_get(&a, i, &g)) != PCQ_OK) {
            fail.code = rc;
            fail.offset = 16u * i;
            return walk_failed(rc, &fail, err);
        }
        sprintf(label, "GUID[%zu]", i);
        f_guid(t, 16u * i, 0, label, &g);
    }
    return PCQ_OK;
}

/* ---- instances, identifiers --------------------------------------------- */

/* A _PERF_INSTANCE_HEADER and its name (opnum 2, and inside data blocks). */
static void tree_instance_head(const tree *t, int depth, long index, size_t at, uint32_t size,
                               uint32_t id, pcq_bytes name)
{
    f_title(t, at, depth, "_PERF_INSTANCE_HEADER", index);
    f_u(t, at, depth + 1, "Size", size);
    f_u(t, at + 4, depth + 1, "InstanceId", id);
    f_text(t, at + 8, depth + 1, "Name", name);
}

static int tree_instances(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_iter it;
    pcq_instance inst;
    size_t count;
    long i = 0;
    int rc = pcq_decode_instances(t->buf, t->len, opts, &count, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_INSTANCES);
    pcq_instances_begin(t->buf, t->len, &it);
    while ((rc = pcq_instances_next(&it, &inst)) == 1)
        tree_instance_head(t, 0, i++, inst.offset, inst.size, inst.instance_id, inst.name);
    return rc < 0 ? walk_failed(rc, &it.err, err) : PCQ_OK;
}

static void tree_identifier(const tree *t, long index, const pcq_identifier *id)
{
    size_t at = id->offset;

    f_title(t, at, 0, "_PERF_COUNTER_IDENTIFIER", index);
    f_guid(t, at, 1, "CounterSetGuid", &id->guid);
    f_status(t, at + 16, 1, "Status", id->status);
    f_u(t, at + 20, 1, "Size", id->size);
    f_id(t, at + 24, 1, "CounterId", id->counter_id, "wildcard");
    f_u(t, at + 28, 1, "InstanceId", id->instance_id);
    f_u(t, at + 32, 1, "Index", id->index);
    f_u(t, at + 36, 1, "Reserved", id->reserved);
    f_text(t, at + 40, 1, "InstanceName", id->name);
}

static int tree_identifiers(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_iter it;
    pcq_identifier id;
    size_t count;
    long i = 0;
    int rc = pcq_decode_identifiers(t->buf, t->len, opts, &count, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_IDENTIFIERS);
    pcq_identifiers_begin(t->buf, t->len, &it);
    while ((rc = pcq_identifiers_next(&it, &id)) == 1) tree_identifier(t, i++, &id);
    return rc < 0 ? walk_failed(rc, &it.err, err) : PCQ_OK;
}

/* ---- data --------------------------------------------------------------- */

#define NO_COUNTER_ID (-1L)

/* A _PERF_COUNTER_DATA and its value; counter_id >= 0 names whose value it is. */
static void tree_value(const tree *t, int depth, const pcq_value *v, long counter_id)
{
    lead(t, v->offset, depth);
    if (counter_id >= 0)
        fprintf(t->out, "_PERF_COUNTER_DATA (CounterId %ld)\n", counter_id);
    else
        fputs("_PERF_COUNTER_DATA\n", t->out);
    f_u(t, v->offset, depth + 1, "dwDataSize", v->data_size);
    f_u(t, v->offset + 4, depth + 1, "dwSize", v->size);
    if (!v->is_int) {
        f_hex(t, v->offset + 8, depth + 1, "Value", v->data);
        return;
    }
    lead(t, v->offset + 8, depth + 1);
    fprintf(t->out, "Value: %" PRIu64 " (0x%" PRIx64 ")\n", v->u64, v->u64);
}

/* The values of a type 2 block or of one instance of a type 6 block. */
static int tree_values(const tree *t, int depth, const pcq_block *b, pcq_iter *it,
                       pcq_error *err)
{
    pcq_value v;
    uint32_t i = 0;
    int rc;

    while ((rc = pcq_values_next(it, &v)) == 1)
        tree_value(t, depth, &v, (long)pcq_block_counter_id(b, i++));
    return rc < 0 ? walk_failed(rc, &it->err, err) : PCQ_OK;
}

static void tree_multi_counters(const tree *t, const pcq_block *b)
{
    size_t at = b->offset + 16;
    uint32_t i;

    f_title(t, at, 1, "_PERF_MULTI_COUNTERS", -1);
    f_u(t, at, 2, "dwSize", b->multi_size);
    f_u(t, at + 4, 2, "dwCounters", b->num_counters);
    for (i = 0; i < b->num_counters; i++) {
        lead(t, at + 8 + 4u * (size_t)i, 2);
        fprintf(t->out, "CounterId[%" PRIu32 "]: %" PRIu32 "\n", i, pcq_block_counter_id(b, i));
    }
}

static int tree_data_instance(const tree *t, const pcq_data *d, const pcq_block *b, long index,
                              const pcq_data_instance *inst, pcq_error *err)
{
    pcq_iter it;

    tree_instance_head(t, 2, index, inst->offset, inst->size, inst->instance_id, inst->name);
    if (b->type == PCQ_PERF_MULTI_INSTANCES) {
        tree_value(t, 3, &inst->value, NO_COUNTER_ID);
        return PCQ_OK;
    }
    pcq_instance_values(d, inst, &it);
    return tree_values(t, 3, b, &it, err);
}

/* The _PERF_MULTI_INSTANCES at `at` and the instances that follow it. */
static int tree_block_instances(const tree *t, const pcq_data *d, const pcq_block *b, size_t at,
                                pcq_error *err)
{
    pcq_iter it;
    pcq_data_instance inst;
    long i = 0;
    int rc;

    f_title(t, at, 1, "_PERF_MULTI_INSTANCES", -1);
    f_u(t, at, 2, "dwTotalSize", b->instances_size);
    f_u(t, at + 4, 2, "dwInstances", b->num_instances);
    pcq_block_instances(d, b, &it);
    while ((rc = pcq_instances_of_block_next(&it, &inst)) == 1)
        if ((rc = tree_data_instance(t, d, b, i++, &inst, err)) != PCQ_OK) return rc;
    return rc < 0 ? walk_failed(rc, &it.err, err) : PCQ_OK;
}

static int tree_block(const tree *t, const pcq_data *d, const pcq_block *b, long index,
                      pcq_error *err)
{
    size_t at = b->offset;
    pcq_iter it;

    lead(t, at, 0);
    fprintf(t->out, "Block %ld: _PERF_COUNTER_HEADER\n", index);
    f_status(t, at, 1, "dwStatus", b->status);
    f_named(t, at + 4, 1, "dwType", b->type, DEC, pcq_block_type_name(b->type));
    f_u(t, at + 8, 1, "dwSize", b->size);
    f_u(t, at + 12, 1, "Reserved", b->reserved);
    switch (b->type) {
    case PCQ_PERF_SINGLE_COUNTER:
        tree_value(t, 1, &b->value, NO_COUNTER_ID);
        return PCQ_OK;
    case PCQ_PERF_MULTI_COUNTERS:
        tree_multi_counters(t, b);
        pcq_block_values(d, b, &it);
        return tree_values(t, 1, b, &it, err);
    case PCQ_PERF_MULTI_INSTANCES:
        return tree_block_instances(t, d, b, at + 16, err);
    case PCQ_PERF_COUNTERSET:
        tree_multi_counters(t, b);
        return tree_block_instances(t, d, b, b->instances_at, err);
    default:
        return PCQ_OK;
    }
}

/* PerfTime100NSec counts 100 ns since 1601-01-01 UTC (a FILETIME): show the
 * date it names, so that it can be checked against SystemTime at a glance.
 * Days to a civil date after H. Hinnant's civil_from_days, counted from
 * 0000-03-01, which keeps every quantity non-negative. */
static void filetime_text(uint64_t ft, char out[80])
{
    uint64_t secs = ft / 10000000u, z = secs / 86400u + 584694u;   /* 1601-01-01 */
    uint64_t era = z / 146097u, doe = z - era * 146097u;
    uint64_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    uint64_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u), mp = (5u * doy + 2u) / 153u;
    uint64_t day = doy - (153u * mp + 2u) / 5u + 1u, month = mp < 10u ? mp + 3u : mp - 9u;
    uint64_t year = yoe + era * 400u + (month <= 2u), rem = secs % 86400u;

    snprintf(out, 80, "%04" PRIu64 "-%02" PRIu64 "-%02" PRIu64 " %02" PRIu64 ":%02" PRIu64
             ":%02" PRIu64 ".%07" PRIu64 " UTC", year, month, day, rem / 3600u,
             rem / 60u % 60u, rem % 60u, ft % 10000000u);
}

static void tree_data_header(const tree *t, const pcq_data *d)
{
    static const char *const days[7] = {
        "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
    };
    const pcq_systemtime *s = &d->system_time;
    char when[80];

    f_title(t, 0, 0, "_PERF_DATA_HEADER", -1);
    f_u(t, 0, 1, "dwTotalSize", d->total_size);
    f_u(t, 4, 1, "dwNumCounter", d->num_counters);
    f_u(t, 8, 1, "PerfTimeStamp", d->perf_time_stamp);
    filetime_text(d->perf_time_100nsec, when);
    lead(t, 16, 1);
    fprintf(t->out, "PerfTime100NSec: %" PRIu64 " (%s)\n", d->perf_time_100nsec, when);
    f_u(t, 24, 1, "PerfFreq", d->perf_freq);
    lead(t, 32, 1);
    fprintf(t->out, "SystemTime: %04u-%02u-%02u %02u:%02u:%02u.%03u (%s)\n", s->year, s->month,
            s->day, s->hour, s->minute, s->second, s->milliseconds,
            s->day_of_week < 7 ? days[s->day_of_week] : "bad wDayOfWeek");
}

static int tree_data(const tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_data d;
    pcq_iter it;
    pcq_block b;
    long i = 0;
    int rc = pcq_decode_data(t->buf, t->len, opts, &d, err);

    if (rc != PCQ_OK) return rc;
    tree_head(t, PCQ_KIND_DATA);
    tree_data_header(t, &d);
    pcq_data_blocks(&d, &it);
    while ((rc = pcq_blocks_next(&it, &b)) == 1)
        if ((rc = tree_block(t, &d, &b, i++, err)) != PCQ_OK) return rc;
    if (rc < 0) return walk_failed(rc, &it.err, err);
    if (d.total_size < t->len) {
        lead(t, d.total_size, 0);
        fprintf(t->out, "Trailing bytes after dwTotalSize: %zu\n", t->len - d.total_size);
    }
    return PCQ_OK;
}

/* Same contract as pcq_json_emit, for the tree. */
static int tree_emit(FILE *out, pcq_kind kind, const uint8_t *buf, size_t len,
                     const pcq_opts *opts, pcq_error *err)
{
    tree t;
    size_t max;

    t.out = out;
    t.buf = buf;
    t.len = len;
    t.width = 4;
    for (max = len >> 16; max; max >>= 4) t.width++;   /* room for every offset */
    switch (kind) {
    case PCQ_KIND_COUNTERSET_INFO: return tree_counterset_info(&t, opts, err);
    case PCQ_KIND_COUNTER_INFO: return tree_counter_info(&t, opts, err);
    case PCQ_KIND_STRINGS: return tree_strings(&t, opts, err);
    case PCQ_KIND_STRING: return tree_string(&t, opts, err);
    case PCQ_KIND_GUID: return tree_guid(&t, opts, err);
    case PCQ_KIND_GUIDS: return tree_guids(&t, opts, err);
    case PCQ_KIND_INSTANCES: return tree_instances(&t, opts, err);
    case PCQ_KIND_IDENTIFIERS: return tree_identifiers(&t, opts, err);
    case PCQ_KIND_DATA: return tree_data(&t, opts, err);
    default: return PCQ_ERR_INVALID_ARG;
    }
}

/* ======================================================================== */
/* Running                                                                  */
/* ======================================================================== */

typedef struct diag_ctx {
    const char *name;
    int strict;
    unsigned long count;
} diag_ctx;

/* pcq_opts.on_diag: one line on stderr per finding. */
static void print_diag(void *ctx, const pcq_diag *d)
{
    diag_ctx *c = ctx;

    c->count++;
    fprintf(stderr, "pcqdump: %s: offset 0x%zx: %s%s", c->name, d->offset,
            c->strict ? "non-conformant: " : "warning: ", pcq_diag_text(d->code));
    if (d->what) fprintf(stderr, " (%s)", d->what);
    fputc('\n', stderr);
}

static int report(const diag_ctx *dc, int rc, const pcq_error *err)
{
    if (rc == PCQ_OK) return EXIT_DECODED;
    /* Under --strict the diagnostic was printed by print_diag already. */
    if (rc == PCQ_ERR_NONCONFORMANT && dc->count > 0) return EXIT_NONCONFORMANT;
    fprintf(stderr, "pcqdump: %s: offset 0x%zx: %s", dc->name, err->offset, pcq_strerror(rc));
    if (err->what) fprintf(stderr, " (%s)", err->what);
    fputc('\n', stderr);
    return rc == PCQ_ERR_NONCONFORMANT ? EXIT_NONCONFORMANT : EXIT_MALFORMED;
}

static int run(const args *a, const uint8_t *buf, size_t len)
{
    diag_ctx dc;
    pcq_opts opts;
    pcq_error err = {0, 0, NULL, 0};
    int rc;

    dc.name = a->name;
    dc.strict = a->strict;
    dc.count = 0;
    opts.flags = a->strict ? PCQ_STRICT : 0u;
    opts.on_diag = print_diag;
    opts.ctx = &dc;
    if (a->json)
        rc = pcq_json_emit(stdout, a->kind, buf, len, &opts, &err);
    else
        rc = tree_emit(stdout, a->kind, buf, len, &opts, &err);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pcqdump: write error on standard output\n");
        return EXIT_USAGE;
    }
    return report(&dc, rc, &err);
}

int main(int argc, char **argv)
{
    args a;
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc;

    if (wants_cook(argc, argv)) return pcqdump_cook_main(argc, argv);
    if ((rc = parse_args(argc, argv, &a)) >= 0) return rc;
    if (load_input(&a, &buf, &len) != 0) return EXIT_USAGE;
    rc = run(&a, buf, len);
    free(buf);
    return rc;
}
