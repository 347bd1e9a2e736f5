/* SPDX-License-Identifier: MIT */
/*
 * pcqdump - decode one [MS-PCQ] (PerflibV2) data buffer and show it: a field
 * tree with byte offsets for people, or one JSON object for scripts (--json).
 *
 *   pcqdump --kind KIND [--json] [--strict] [--hex] [--max-input SIZE] FILE|-
 *
 * The buffer is walked step by step (pcq_walk_next), so everything before a
 * malformed part is shown, then the error. The library never allocates; this
 * tool does: it reads the input (up to --max-input bytes) into one malloc'd
 * buffer, and gives the walk scratch memory for the set-wide checks.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
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
    EXIT_USAGE = 2,        /* also: unreadable file, input over the cap, bad hex, write error */
    EXIT_NONCONFORMANT = 3 /* --strict only */
};

#define DEFAULT_MAX_INPUT ((size_t)256 << 20) /* 256 MiB */

typedef struct args {
    pcq_kind kind;
    int json, strict, hex;
    size_t max_input;
    const char *file; /* "-" is standard input */
    const char *name; /* the input, as messages call it */
} args;

/* ======================================================================== */
/* Command line                                                             */
/* ======================================================================== */

static const char usage_text[] =
    "usage: pcqdump --kind KIND [--json] [--strict] [--hex] [--max-input SIZE] FILE|-\n"
    "       pcqdump --cook --info INFO OLD NEW ...   (counter values: pcqdump --cook --help)\n"
    "       pcqdump --help | --version\n"
    "\n"
    "Decodes one [MS-PCQ] (PerflibV2) data buffer, lpData, and prints it as a\n"
    "field tree with the byte offset of each field, or as one JSON object. A\n"
    "malformed buffer is shown up to the error, then the error.\n"
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
    "  --strict     input that breaks a MUST of the spec is an error (exit 3)\n"
    "  --hex        FILE is hex text (xxd -p; whitespace and # comments ignored)\n"
    "  --max-input SIZE  read at most SIZE bytes of FILE (default 256M; K, M, G)\n"
    "  FILE         the buffer; - reads standard input\n"
    "\n"
    "Non-conformant input (walkable, but breaking a MUST of the spec) is reported\n"
    "on standard error, one line per finding, and still decoded.\n"
    "\n"
    "Exit status:\n"
    "  0  decoded\n"
    "  1  malformed input (the offset and field are on standard error)\n"
    "  2  usage error, unreadable file, input over --max-input, bad hex text or\n"
    "     write error\n"
    "  3  non-conformant input under --strict, and nothing malformed\n";

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

/* Standard output could not be written (full disk, closed pipe): exit 2. */
static int flush_out(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "pcqdump: write error on standard output: %s\n",
                errno ? strerror(errno) : "unknown error");
        return EXIT_USAGE;
    }
    return EXIT_DECODED;
}

static int wants_cook(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) /* after --: file names */
        if (strcmp(argv[i], "--cook") == 0) return 1;
    return 0;
}

/* "256M", "4096", "1G": bytes. 0 on success, -1 if not a size. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;
    unsigned shift = 0;
    errno = 0;
    if (*s < '0' || *s > '9') return -1;
    v = strtoull(s, &end, 10);
    if (errno) return -1;
    switch (*end) {
    case 'K':
    case 'k':
        shift = 10;
        end++;
        break;
    case 'M':
    case 'm':
        shift = 20;
        end++;
        break;
    case 'G':
    case 'g':
        shift = 30;
        end++;
        break;
    default: break;
    }
    if (*end || v == 0 || v > (unsigned long long)(SIZE_MAX >> shift)) return -1;
    *out = (size_t)v << shift;
    return 0;
}

/* A flag given twice is a usage error, like a second --kind. */
static int set_once(int *flag, const char *name)
{
    if (*flag) return usage_error("%s given twice", name);
    *flag = 1;
    return -1;
}

/* One option; *i moves past a separate value. -1 to go on, else an exit status. */
static int parse_option(int argc, char **argv, int *i, args *a, const char **kind, int *seen_max)
{
    const char *s = argv[*i], *value = NULL;

    if (strcmp(s, "--json") == 0) return set_once(&a->json, s);
    if (strcmp(s, "--strict") == 0) return set_once(&a->strict, s);
    if (strcmp(s, "--hex") == 0) return set_once(&a->hex, s);
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
        fputs(usage_text, stdout);
        return flush_out();
    }
    if (strcmp(s, "--version") == 0) {
        printf("pcqdump %s (library %s)\n", PCQ_VERSION_STRING, pcq_version_string());
        return flush_out();
    }
    if (strncmp(s, "--kind=", 7) == 0 || strncmp(s, "--max-input=", 12) == 0) {
        value = strchr(s, '=') + 1;
    } else if (strcmp(s, "--kind") == 0 || strcmp(s, "--max-input") == 0) {
        if (++*i == argc) return usage_error("%s needs a value", s);
        value = argv[*i];
    } else {
        return usage_error("unknown option '%s'", s);
    }
    if (s[2] == 'k') {
        if (*kind) return usage_error("--kind given twice");
        *kind = value;
        return -1;
    }
    if (*seen_max) return usage_error("--max-input given twice");
    *seen_max = 1;
    if (parse_size(value, &a->max_input) != 0) return usage_error("--max-input: bad size '%s'", value);
    return -1;
}

/* Returns -1 to go on, else the exit status (help, version, usage error). */
static int parse_args(int argc, char **argv, args *a)
{
    const char *kind = NULL;
    int i, rc, files_only = 0, seen_max = 0;

    memset(a, 0, sizeof *a);
    a->max_input = DEFAULT_MAX_INPUT;
    for (i = 1; i < argc; i++) {
        if (!files_only && strcmp(argv[i], "--") == 0) {
            files_only = 1;
        } else if (files_only || argv[i][0] != '-' || argv[i][1] == '\0') {
            if (a->file) return usage_error("more than one FILE ('%s')", argv[i]);
            a->file = argv[i];
        } else if ((rc = parse_option(argc, argv, &i, a, &kind, &seen_max)) >= 0) {
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

/* Reads f into a malloc'd buffer, at most `max` bytes. 0; 1 when f holds
 * more than max (nothing returned); -1 with errno (when set). */
static int read_stream(FILE *f, size_t max, uint8_t **out, size_t *len)
{
    size_t cap = 1u << 16, n = 0;
    uint8_t *buf = malloc(cap), *bigger;

    if (!buf) return -1;
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break; /* end of file, or an error */
        if (n > max) {      /* one byte past the cap tells */
            free(buf);
            return 1;
        }
        if (cap > SIZE_MAX / 2 || !(bigger = realloc(buf, cap > max ? max + 1 : cap * 2))) {
            free(buf);
            errno = ENOMEM;
            return -1;
        }
        buf = bigger;
        cap = cap > max ? max + 1 : cap * 2;
    }
    if (ferror(f)) {
        free(buf);
        return -1;
    }
    if (n > max) {
        free(buf);
        return 1;
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
    size_t cap = n / 2 + 1, where = 0; /* two digits a byte at least */
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
    rc = read_stream(f, a->max_input, &raw, &n);
    if (rc > 0)
        fprintf(stderr, "pcqdump: %s: larger than %zu bytes, the input cap (raise it with --max-input)\n",
                a->name, a->max_input);
    else if (rc < 0)
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
/* Tree output: one field a line, its byte offset first. Every field comes  */
/* from the library's layout (pcq_struct_info_of, pcq_item_field).          */
/* ======================================================================== */

#define TREE_QUEUE 16 /* diagnostics shown after the structure they are in */

typedef struct tree {
    FILE *out;
    const uint8_t *buf;
    size_t len;
    int width; /* hex digits of the offset column */
    pcq_kind kind;
    pcq_diag queue[TREE_QUEUE];
    int nqueued;
    int strict;
} tree;

/* The offset column and the indentation of a line. */
static void lead(const tree *t, size_t off, unsigned depth)
{
    fprintf(t->out, "0x%0*zx  %*s", t->width, off, (int)(2 * depth), "");
}

/* PerfTime100NSec counts 100 ns since 1601-01-01 UTC (a FILETIME): the date
 * it names, to check against SystemTime at a glance. Days to a civil date
 * after H. Hinnant's civil_from_days, counted from 0000-03-01, which keeps
 * every quantity non-negative. */
static void filetime_text(uint64_t ft, char out[80])
{
    uint64_t secs = ft / 10000000u, z = secs / 86400u + 584694u; /* 1601-01-01 */
    uint64_t era = z / 146097u, doe = z - era * 146097u;
    uint64_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    uint64_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u), mp = (5u * doy + 2u) / 153u;
    uint64_t day = doy - (153u * mp + 2u) / 5u + 1u, month = mp < 10u ? mp + 3u : mp - 9u;
    uint64_t year = yoe + era * 400u + (month <= 2u), rem = secs % 86400u;

    snprintf(out, 80,
             "%04" PRIu64 "-%02" PRIu64 "-%02" PRIu64 " %02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%07" PRIu64
             " UTC",
             year, month, day, rem / 3600u, rem / 60u % 60u, rem % 60u, ft % 10000000u);
}

static void show_attrib(const tree *t, uint64_t a)
{
    const char *sep = " (";
    unsigned bit;

    fprintf(t->out, "0x%" PRIx64, a);
    for (bit = 0; bit < 5; bit++) {
        if (!(a >> bit & 1u)) continue;
        fprintf(t->out, "%s%s", sep, pcq_attrib_bit_name(bit));
        sep = " | ";
    }
    if (a >> 5) fprintf(t->out, "%sunknown 0x%" PRIx64, sep, a & ~(uint64_t)0x1F);
    if (a) fputc(')', t->out);
}

static const char *convention_text(const char *word)
{
    if (strcmp(word, "win32") == 0) return "win32, from the start of the block";
    if (strcmp(word, "spec") == 0) return "spec, from the end of the header array";
    return "none, no string present";
}

/* Bytes in hex, 16 a line, each line at its own offset. */
static void show_hex(const tree *t, size_t off, unsigned depth, pcq_bytes s)
{
    size_t i;

    fprintf(t->out, "(%zu bytes):", s.len);
    for (i = 0; i < s.len; i++) {
        if (i > 0 && i % 16 == 0) {
            fputc('\n', t->out);
            lead(t, off + i, depth + 1);
        }
        fprintf(t->out, " %02x", s.ptr[i]);
    }
}

/* A number as its field's `show` says. */
static void show_number(const tree *t, const pcq_field *f, const pcq_field_value *v)
{
    const char *name = pcq_field_value_name(f, v->u);
    char when[80];

    if (v->kind == PCQ_V_SIGNED) {
        fprintf(t->out, "%" PRId64, v->i);
        return;
    }
    switch (f->show) {
    case PCQ_SHOW_HEX: fprintf(t->out, "0x%0*" PRIx64, 2 * f->size, v->u); return;
    case PCQ_SHOW_ATTRIB: show_attrib(t, v->u); return;
    case PCQ_SHOW_FILETIME:
        filetime_text(v->u, when);
        fprintf(t->out, "%" PRIu64 " (%s)", v->u, when);
        return;
    case PCQ_SHOW_ID:
        if (name)
            fprintf(t->out, "0x%08" PRIx64 " (%s)", v->u, name);
        else
            fprintf(t->out, "%" PRIu64, v->u);
        return;
    case PCQ_SHOW_STATUS:
        if (name)
            fprintf(t->out, "%" PRIu64 " (%s)", v->u, name);
        else
            fprintf(t->out, "%" PRIu64 " (0x%08" PRIx64 ")", v->u, v->u);
        return;
    case PCQ_SHOW_COUNTER_TYPE:
    case PCQ_SHOW_INSTANCE_TYPE:
        fprintf(t->out, "0x%08" PRIx64 " (%s)", v->u, name ? name : "unknown");
        return;
    case PCQ_SHOW_BLOCK_TYPE:
    case PCQ_SHOW_DETAIL_LEVEL:
    case PCQ_SHOW_AGGREGATE: fprintf(t->out, "%" PRIu64 " (%s)", v->u, name ? name : "unknown"); return;
    default:
        fprintf(t->out, "%" PRIu64, v->u);
        if (f->type == PCQ_FT_VALUE) fprintf(t->out, " (0x%" PRIx64 ")", v->u);
        return;
    }
}

static void show_value(const tree *t, const pcq_field *f, const pcq_field_value *v, unsigned depth)
{
    char text[PCQ_GUID_TEXT_SIZE];

    switch (v->kind) {
    case PCQ_V_GUID:
        pcq_guid_to_text(&v->guid, text);
        fputs(text, t->out);
        break;
    case PCQ_V_TEXT: pcq_quote_utf16(t->out, v->bytes.ptr, v->bytes.len, PCQ_QUOTE_TERMINAL); break;
    case PCQ_V_ABSENT: fputs("(no string)", t->out); break;
    case PCQ_V_BYTES: show_hex(t, v->offset, depth, v->bytes); break;
    case PCQ_V_WORD: fputs(convention_text(v->word), t->out); break;
    default: show_number(t, f, v); break;
    }
}

/* "Name[i]" and what else tells the structure apart. */
static void title(const tree *t, const pcq_item *it, const char *name)
{
    fputs(name, t->out);
    if (pcq_item_is_element(it, t->kind)) fprintf(t->out, "[%" PRIu32 "]", it->index);
    if (it->has_counter_id && !it->partial) fprintf(t->out, " (CounterId %" PRIu32 ")", it->counter_id);
}

/* One structure: a title line, then a line per field; a structure of one
 * field (a counter id, a GUID, a string) is one line. A dotted field name
 * ("SystemTime.wYear") is shown under a line of its group. */
static void tree_item(const tree *t, const pcq_item *it)
{
    const pcq_struct_info *s = pcq_struct_info_of(it->type);
    const char *group = NULL, *dot;
    pcq_field_value v;
    size_t i, glen = 0;
    unsigned d = it->depth;

    if (s->nfields == 1) {
        if (pcq_item_field(it, &s->fields[0], t->buf, t->len, &v) == PCQ_V_NONE) return;
        lead(t, it->offset, d);
        title(t, it, s->fields[0].name);
        fputs(": ", t->out);
        show_value(t, &s->fields[0], &v, d);
        fputc('\n', t->out);
        return;
    }
    lead(t, it->offset, d);
    title(t, it, s->name);
    fputc('\n', t->out);
    for (i = 0; i < s->nfields; i++) {
        const pcq_field *f = &s->fields[i];
        const char *name = f->name;
        if (pcq_item_field(it, f, t->buf, t->len, &v) == PCQ_V_NONE) continue;
        dot = strchr(name, '.');
        if (dot && !(group && (size_t)(dot - name) == glen && strncmp(name, group, glen) == 0)) {
            group = name;
            glen = (size_t)(dot - name);
            lead(t, v.offset, d + 1);
            fprintf(t->out, "%.*s\n", (int)glen, name);
        }
        if (!dot) group = NULL;
        lead(t, v.offset, d + 1 + (dot != NULL));
        fprintf(t->out, "%s: ", dot ? dot + 1 : name);
        show_value(t, f, &v, d + 1);
        fputc('\n', t->out);
    }
}

/* The diagnostics raised while a structure was read, after it. */
static void tree_diags(tree *t, unsigned depth)
{
    int i;
    for (i = 0; i < t->nqueued; i++) {
        const pcq_diag *d = &t->queue[i];
        lead(t, d->offset, depth + 1);
        fprintf(t->out, "! %s: %s (%s)\n", t->strict ? "non-conformant" : "warning", pcq_diag_text(d->code),
                d->what ? d->what : "");
    }
    t->nqueued = 0;
}

/* Same contract as pcq_json_emit, for the tree. */
static int tree_emit(tree *t, const pcq_opts *opts, pcq_error *err)
{
    pcq_walk w;
    pcq_item it;
    size_t max;
    int rc;

    t->width = 4;
    for (max = t->len >> 16; max; max >>= 4) t->width++; /* room for every offset */
    pcq_walk_begin(&w, t->kind, t->buf, t->len, opts);
    fprintf(t->out, "%s: %zu bytes\n", pcq_kind_name(t->kind), t->len);
    while ((rc = pcq_walk_next(&w, &it)) == 1) {
        tree_item(t, &it);
        tree_diags(t, it.depth);
    }
    if (rc < 0) {
        if (it.partial) tree_item(t, &it);
        tree_diags(t, it.depth);
        lead(t, w.err.offset, it.partial ? it.depth + 1 : 0);
        fprintf(t->out, "** malformed: %s (%s)\n", pcq_strerror(rc), w.err.what ? w.err.what : "");
        *err = w.err;
        return rc;
    }
    tree_diags(t, 0);
    return PCQ_OK;
}

/* ======================================================================== */
/* Running                                                                  */
/* ======================================================================== */

typedef struct diag_ctx {
    const char *name;
    int strict;
    unsigned long count;
    tree *tree; /* to show them in the tree too (NULL for JSON) */
} diag_ctx;

/* pcq_opts.on_diag: one line on stderr per finding (and one in the tree). */
static void print_diag(void *ctx, const pcq_diag *d)
{
    diag_ctx *c = ctx;

    if (d->code != PCQ_DIAG_CHECK_SKIPPED) c->count++;
    fprintf(stderr, "pcqdump: %s: offset 0x%zx: %s%s", c->name, d->offset,
            c->strict ? "non-conformant: " : "warning: ", pcq_diag_text(d->code));
    if (d->what) fprintf(stderr, " (%s)", d->what);
    fputc('\n', stderr);
    if (c->tree && c->tree->nqueued < TREE_QUEUE) c->tree->queue[c->tree->nqueued++] = *d;
}

/* Scratch for the set-wide checks of a large counterset or string block:
 * no entry is smaller than 8 bytes, so len / 8 entries is enough whatever
 * the header claims (the bytes are the library's to read, not ours). */
static void *scratch_for(pcq_kind kind, size_t len, size_t *size)
{
    size_t n = len / 8;
    *size = 0;
    if ((kind != PCQ_KIND_COUNTERSET_INFO && kind != PCQ_KIND_STRINGS) || n <= PCQ_PAIR_CHECK_MAX)
        return NULL;
    *size = n * PCQ_SCRATCH_PER_ENTRY;
    return malloc(*size);
}

static int run(const args *a, const uint8_t *buf, size_t len)
{
    diag_ctx dc;
    pcq_opts opts;
    pcq_error err = {0, 0, NULL, 0};
    tree t;
    int rc, wrc;

    memset(&opts, 0, sizeof opts);
    memset(&t, 0, sizeof t);
    dc.name = a->name;
    dc.strict = a->strict;
    dc.count = 0;
    dc.tree = a->json ? NULL : &t;
    /* Lenient walk even under --strict: every finding is reported, and a
     * later malformed part too; --strict decides the exit status. */
    opts.on_diag = print_diag;
    opts.ctx = &dc;
    opts.scratch = scratch_for(a->kind, len, &opts.scratch_size);
    t.out = stdout;
    t.buf = buf;
    t.len = len;
    t.kind = a->kind;
    t.strict = a->strict;
    if (a->json)
        rc = pcq_json_emit(stdout, a->kind, buf, len, &opts, &err);
    else
        rc = tree_emit(&t, &opts, &err);
    free(opts.scratch);
    if ((wrc = flush_out()) != EXIT_DECODED) return wrc;
    if (rc < 0) {
        fprintf(stderr, "pcqdump: %s: offset 0x%zx: %s", a->name, err.offset, pcq_strerror(rc));
        if (err.what) fprintf(stderr, " (%s)", err.what);
        fputc('\n', stderr);
        return EXIT_MALFORMED;
    }
    return a->strict && dc.count > 0 ? EXIT_NONCONFORMANT : EXIT_DECODED;
}

int main(int argc, char **argv)
{
    args a;
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc;

#ifdef SIGPIPE
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error (exit 2), not a kill */
#endif
    if (wants_cook(argc, argv)) return pcqdump_cook_main(argc, argv);
    if ((rc = parse_args(argc, argv, &a)) >= 0) return rc;
    if (load_input(&a, &buf, &len) != 0) return EXIT_USAGE;
    rc = run(&a, buf, len);
    free(buf);
    return rc;
}
