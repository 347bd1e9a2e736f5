/*
 * cook.c - pcqdump --cook: the values people read, computed from two data
 * samples of one query (pcq_calc_cook; formulas in docs/formulas.md).
 *
 *   pcqdump --cook --info INFO.bin OLD.bin NEW.bin [--names NAMES.bin]
 *           [--ids IDS.bin] [--json|--csv] [--hex] [--set-name NAME] [--host HOST]
 *           [--cap100] [--noscale] [--x1000] [--nowrap32]
 *
 * Exit status: 0 cooked (whatever each counter's status); 1 unusable input
 * (a malformed buffer, a counter missing from the info); 2 usage error,
 * unreadable file or bad hex text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcq_codec.h"
#include "pcq_json.h"
#include "hexread.h"

int pcqdump_cook_main(int argc, char **argv);

#define COOK_MAX_FILE (1u << 30)   /* the protocol's own dwInSize range cap */

typedef struct cook_args {
    const char *info, *older, *newer, *names, *ids, *set_name, *host;
    int json, csv, hex;
    unsigned flags;
} cook_args;

typedef struct cook_file {
    uint8_t *buf;
    size_t len;
} cook_file;

static const char cook_usage[] =
    "usage: pcqdump --cook --info INFO OLD NEW [--names NAMES] [--ids IDS] [--json|--csv]\n"
    "  INFO        counterset-info buffer (opnum 1 reply, RequestCode 1)\n"
    "  OLD NEW     two data buffers of the same query (opnum 6 replies), older first;\n"
    "              NEW alone computes the one-sample types only\n"
    "  --names F   strings buffer with the counter names (RequestCode 5, 6 or 10)\n"
    "  --ids F     identifiers buffer of the query (opnum 5 reply): says which counter\n"
    "              a PERF_SINGLE_COUNTER or PERF_MULTI_INSTANCES block holds; without\n"
    "              it, block i holds counter i of INFO\n"
    "  --json      {\"kind\": \"cooked\", \"values\": [...]}\n"
    "  --csv       the layout of typeperf: a row of counter paths, a row of values;\n"
    "              in instance names ( ) become [ ] and # \\ / become _, and a name\n"
    "              cut to fit ends in ~ and a hash of the whole name\n"
    "  --hex       the files are hex text instead of raw bytes\n"
    "  --set-name NAME  counterset name for --csv paths (default: its GUID)\n"
    "  --host HOST      machine for --csv paths (\\\\HOST\\Set(instance)\\Counter)\n"
    "  --cap100    hold percentages to 0..100 as PDH does by default\n"
    "  --noscale   do not apply DefaultScale;  --x1000  multiply by 1000\n"
    "  --nowrap32  a 4-byte counter that decreased is a reset, never a wrap\n"
    "Exit status: 0 cooked, 1 unusable input, 2 usage error or unreadable file.\n";

static int cook_usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "pcqdump --cook: %s%s%s\n", what, arg ? " " : "", arg ? arg : "");
    fputs(cook_usage, stderr);
    return 2;
}

static int parse_args(int argc, char **argv, cook_args *a)
{
    int i;
    memset(a, 0, sizeof *a);
    a->flags = PCQ_CALC_NOCAP100;        /* like perfmon and typeperf: 400 % is 400 % */
    for (i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char **slot = NULL;
        if (strcmp(s, "--cook") == 0) continue;
        else if (strcmp(s, "--json") == 0) a->json = 1;
        else if (strcmp(s, "--csv") == 0) a->csv = 1;
        else if (strcmp(s, "--hex") == 0) a->hex = 1;
        else if (strcmp(s, "--cap100") == 0) a->flags &= ~PCQ_CALC_NOCAP100;
        else if (strcmp(s, "--noscale") == 0) a->flags |= PCQ_CALC_NOSCALE;
        else if (strcmp(s, "--x1000") == 0) a->flags |= PCQ_CALC_X1000;
        else if (strcmp(s, "--nowrap32") == 0) a->flags |= PCQ_CALC_NOWRAP32;
        else if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            fputs(cook_usage, stdout);
            return 0;
        }
        else if (strcmp(s, "--info") == 0) slot = &a->info;
        else if (strcmp(s, "--names") == 0) slot = &a->names;
        else if (strcmp(s, "--ids") == 0) slot = &a->ids;
        else if (strcmp(s, "--set-name") == 0) slot = &a->set_name;
        else if (strcmp(s, "--host") == 0) slot = &a->host;
        else if (s[0] == '-' && s[1] != '\0') return cook_usage_error("unknown option", s);
        else if (!a->older) a->older = s;
        else if (!a->newer) a->newer = s;
        else return cook_usage_error("more than two data files:", s);
        if (slot) {
            if (++i == argc) return cook_usage_error(s, "needs a value");
            *slot = argv[i];
        }
    }
    if (a->json && a->csv) return cook_usage_error("--json and --csv exclude each other", NULL);
    if (!a->info) return cook_usage_error("--info is required", NULL);
    if (!a->older) return cook_usage_error("no data file", NULL);
    if (!a->newer) {                     /* one sample: it is the newer */
        a->newer = a->older;
        a->older = NULL;
    }
    return -1;
}

/* Reads a whole file (raw, or hex text with --hex). 0, or 2 with a message. */
static int read_file(const char *path, int hex, cook_file *f)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    const char *why = NULL;
    f->buf = NULL;
    f->len = 0;
    if (!fp || !buf) {
        fprintf(stderr, "pcqdump --cook: cannot read %s\n", path);
        free(buf);
        return 2;
    }
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (n < cap) break;
        if (cap >= COOK_MAX_FILE) { why = "is too large"; break; }
        cap *= 2;
        { uint8_t *nb = realloc(buf, cap); if (!nb) { why = "does not fit in memory"; break; } buf = nb; }
    }
    /* a directory, a read error: exit 2, never "malformed" */
    if (!why && ferror(fp)) why = "cannot be read";
    if (fp != stdin) fclose(fp);
    if (why) {
        fprintf(stderr, "pcqdump --cook: %s %s\n", path, why);
        free(buf);
        return 2;
    }
    if (hex) {
        size_t out = 0;
        if (pcq_hex_parse((const char *)buf, n, buf, n, &out) != 0) {
            fprintf(stderr, "pcqdump --cook: %s: bad hex text\n", path);
            free(buf);
            return 2;
        }
        n = out;                         /* in place: never more bytes than characters */
    }
    f->buf = buf;
    f->len = n;
    return 0;
}

/* Everything decoded, and the rows. */
typedef struct cooked {
    pcq_counterset_info info;
    pcq_data older, newer;
    pcq_strings names;
    int have_names;
    uint32_t *name_ix;         /* present entries of names, by (dwCounterId, index) */
    size_t n_name_ix;
    pcq_identifier *ids;
    size_t n_ids;
    pcq_calc_row *rows;
    size_t n_rows;
} cooked;

static int bad_input(const char *path, const char *kind, int rc, const pcq_error *e)
{
    fprintf(stderr, "pcqdump --cook: %s (%s): %s at offset %zu (0x%zx)%s%s\n", path, kind,
            pcq_strerror(rc), e->offset, e->offset, e->what ? ": " : "", e->what ? e->what : "");
    return 1;
}

static int decode_ids(const cook_file *f, const char *path, cooked *c)
{
    pcq_error e;
    pcq_iter it;
    size_t count = 0, i = 0;
    int rc = pcq_decode_identifiers(f->buf, f->len, NULL, &count, &e);
    if (rc != PCQ_OK)
        return bad_input(path, "identifiers", rc, &e);
    c->ids = calloc(count ? count : 1, sizeof *c->ids);
    if (!c->ids) return 2;
    pcq_identifiers_begin(f->buf, f->len, &it);
    while (i < count && pcq_identifiers_next(&it, &c->ids[i]) == 1)
        i++;
    c->n_ids = i;
    return 0;
}

/* The names block's entry i, read from its _STRING_COUNTER_HEADER (§2.2.4.4:
 * 8 bytes each after the 8-byte block header, inside the validated block):
 * dwCounterId, and where its text starts. pcq_strings_get would scan the
 * whole text, and a hostile block can give every entry one long text
 * (docs/decisions.md D11): rows are matched and labelled without that.
 * To go when the library has an accessor for an entry without its text. */
static uint32_t name_field(const cooked *c, uint32_t i, size_t field)
{
    const uint8_t *h = c->names.block.ptr + 8 + (size_t)i * 8 + field;
    return (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
}

static uint32_t name_id(const cooked *c, uint32_t i)
{
    return name_field(c, i, 0);
}

static size_t name_start(const cooked *c, uint32_t i)
{
    size_t off = name_field(c, i, 4);
    /* the spec's convention counts from the end of the header array (D4) */
    return c->names.convention == PCQ_STROFF_SPEC ? 8 + 8 * (size_t)c->names.num_counters + off
                                                  : off;
}

/* qsort takes no context argument; pcqdump is one thread. */
static const cooked *sort_ctx;

static int cmp_name_ix(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t ix = name_id(sort_ctx, x), iy = name_id(sort_ctx, y);
    return ix != iy ? (ix < iy ? -1 : 1) : (x < y ? -1 : x > y);
}

/* The present entries sorted by (dwCounterId, index): one sort, then a
 * binary search per row. 0, or 2 (out of memory). */
static int index_names(cooked *c)
{
    uint32_t i;
    c->name_ix = malloc(sizeof *c->name_ix * (c->names.num_counters ? c->names.num_counters : 1));
    if (!c->name_ix) {
        fprintf(stderr, "pcqdump --cook: out of memory\n");
        return 2;
    }
    for (i = 0; i < c->names.num_counters; i++)
        if (name_field(c, i, 4) != PCQ_STRING_ABSENT)
            c->name_ix[c->n_name_ix++] = i;
    sort_ctx = c;
    qsort(c->name_ix, c->n_name_ix, sizeof *c->name_ix, cmp_name_ix);
    return 0;
}

/* Decodes every input; 0, or the exit status. */
static int decode_all(const cook_args *a, cook_file *files, cooked *c)
{
    pcq_error e;
    int rc;
    memset(&e, 0, sizeof e);
    rc = pcq_decode_counterset_info(files[0].buf, files[0].len, NULL, &c->info, &e);
    if (rc != PCQ_OK) return bad_input(a->info, "counterset-info", rc, &e);
    if (a->older) {
        rc = pcq_decode_data(files[1].buf, files[1].len, NULL, &c->older, &e);
        if (rc != PCQ_OK) return bad_input(a->older, "data", rc, &e);
    }
    rc = pcq_decode_data(files[2].buf, files[2].len, NULL, &c->newer, &e);
    if (rc != PCQ_OK) return bad_input(a->newer, "data", rc, &e);
    if (a->names) {
        rc = pcq_decode_strings(files[3].buf, files[3].len, NULL, &c->names, &e);
        if (rc != PCQ_OK) return bad_input(a->names, "strings", rc, &e);
        c->have_names = 1;
        if (index_names(c) != 0) return 2;
    }
    if (a->ids && (rc = decode_ids(&files[4], a->ids, c)) != 0)
        return rc;
    return 0;
}

static int cook_rows(const cook_args *a, cooked *c)
{
    pcq_error e;
    size_t need = 0;
    const pcq_data *older = a->older ? &c->older : NULL;
    int rc;
    memset(&e, 0, sizeof e);
    rc = pcq_calc_cook(&c->info, older, &c->newer, c->ids, c->n_ids, a->flags, NULL, 0, &need, &e);
    if (rc == PCQ_ERR_BUFFER_TOO_SMALL) {
        c->rows = calloc(need ? need : 1, sizeof *c->rows);
        if (!c->rows) return 2;
        rc = pcq_calc_cook(&c->info, older, &c->newer, c->ids, c->n_ids, a->flags, c->rows, need,
                           &c->n_rows, &e);
    }
    if (rc != PCQ_OK)
        return bad_input(a->newer, "data", rc, &e);
    return 0;
}

/* The first present entry naming counter id, or -1. */
static long find_name(const cooked *c, uint32_t id)
{
    size_t lo = 0, hi = c->n_name_ix;
    if (!c->have_names) return -1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (name_id(c, c->name_ix[mid]) < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->n_name_ix && name_id(c, c->name_ix[lo]) == id ? (long)c->name_ix[lo] : -1;
}

/* The counter's name from --names, whole (for --json), or NULL. */
static const pcq_string_entry *counter_name(const cooked *c, uint32_t id, pcq_string_entry *tmp)
{
    long i = find_name(c, id);
    if (i < 0 || pcq_strings_get(&c->names, (uint32_t)i, tmp) != PCQ_OK) return NULL;
    return tmp;
}

/* UTF-16LE to UTF-8 for a terminal or a CSV cell: controls become '?'.
 * Returns 1 when the text did not fit in cap. */
static int text_of(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t i;
    int cut = 0;
    /* each UTF-16 unit gives a UTF-8 byte or more: 2 x cap bytes fill out */
    if (n > 2 * cap) {
        n = 2 * cap;
        cut = 1;
    }
    if (pcq_utf16_to_utf8(p, n, out, cap, NULL) >= cap) cut = 1;
    for (i = 0; out[i]; i++) {
        unsigned char ch = (unsigned char)out[i];
        if (ch < 0x20 || ch == 0x7f) out[i] = '?';
        if (ch == 0xc2 && (unsigned char)out[i + 1] >= 0x80 && (unsigned char)out[i + 1] <= 0x9f) {
            out[i] = '?';
            out[i + 1] = '?';
        }
    }
    return cut;
}

static const char *aggregate_word(uint32_t f)
{
    switch (f) {
    case 1: return "total";
    case 2: return "average";
    case 3: return "minimum";
    default: return "maximum";
    }
}

/* FNV-1a of a name's bytes: tells apart two long names cut alike. */
static uint32_t name_hash(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    while (n--) h = (h ^ *p++) * 16777619u;
    return h;
}

/* Instance text of a row: "name", "name#n", an aggregate's "_Total", or "".
 * The characters a counter path gives a meaning are replaced, as in Windows
 * instance names: ( ) become [ ], and # \ / become _, so no name can forge
 * another path or another name#n. A name cut to fit ends in "~" and a hash
 * of the whole name, so two long names cut alike still differ. */
static void instance_label(const pcq_calc_row *r, char *out, size_t cap)
{
    static const char *const agg[5] = {"", "_Total", "_Average", "_Minimum", "_Maximum"};
    size_t len, i;
    int cut;
    out[0] = '\0';
    if (r->is_aggregate) {
        snprintf(out, cap, "%s", agg[r->aggregate_func <= 4 ? r->aggregate_func : 0]);
        return;
    }
    if (!r->has_instance) return;
    cut = text_of(r->instance.ptr, r->instance.len, out, cap - 24);
    for (i = 0; out[i]; i++) {
        if (out[i] == '(') out[i] = '[';
        else if (out[i] == ')') out[i] = ']';
        else if (out[i] == '#' || out[i] == '\\' || out[i] == '/') out[i] = '_';
    }
    len = strlen(out);
    if (cut) {
        snprintf(out + len, cap - len, "~%08x",
                 (unsigned)name_hash(r->instance.ptr, r->instance.len));
        len = strlen(out);
    }
    if (r->dup_index > 0)
        snprintf(out + len, cap - len, "#%u", (unsigned)r->dup_index);
}

/* The counter's name as far as a label shows it (cap bytes), or "#id". */
static void counter_label(const cooked *c, uint32_t id, char *out, size_t cap)
{
    long i = find_name(c, id);
    /* the start lies inside the validated block, and so does its NUL; the
     * start is checked here all the same, as the loop's bound needs it */
    size_t at = i < 0 ? 0 : name_start(c, (uint32_t)i), end = c->names.block.len, n = 0;
    if (i < 0 || at >= end) {
        snprintf(out, cap, "#%u", (unsigned)id);
        return;
    }
    while (n < 2 * cap && end - at - n >= 2 &&
           (c->names.block.ptr[at + n] != 0 || c->names.block.ptr[at + n + 1] != 0))
        n += 2;
    text_of(c->names.block.ptr + at, n, out, cap);
}

/* Rows people (and typeperf) are shown: no bases, text or "no display". */
static int shown(const pcq_calc_row *r)
{
    const pcq_calc_type *d = pcq_calc_type_info(r->type);
    return !(r->attrib & 0x2u) && (d == NULL || d->displayable);
}

/* ---- --json ---- */
/* A UTF-8 string from text_of (no controls left) as a JSON string. */
static void json_utf8(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void print_json(const cooked *c, FILE *out)
{
    size_t i;
    pcq_string_entry tmp;
    fputs("{\"kind\": \"cooked\", \"values\": [", out);
    for (i = 0; i < c->n_rows; i++) {
        const pcq_calc_row *r = &c->rows[i];
        const pcq_string_entry *name = counter_name(c, r->counter_id, &tmp);
        fprintf(out, "%s\n  {\"counter_id\": %u", i ? "," : "", (unsigned)r->counter_id);
        if (name) {
            fputs(", \"name\": ", out);
            pcq_quote_utf16(out, name->text.ptr, name->text.len, PCQ_QUOTE_JSON);
        }
        if (r->is_aggregate) {
            fprintf(out, ", \"aggregate\": \"%s\", \"instance\": null, \"instance_id\": null, "
                    "\"instances\": %u", aggregate_word(r->aggregate_func),
                    (unsigned)r->instances_used);
        } else if (r->has_instance) {
            fputs(", \"instance\": ", out);
            pcq_quote_utf16(out, r->instance.ptr, r->instance.len, PCQ_QUOTE_JSON);
            fprintf(out, ", \"instance_id\": %u", (unsigned)r->instance_id);
            if (r->dup_index > 0) {
                char label[300];
                instance_label(r, label, sizeof label);
                fprintf(out, ", \"dup_index\": %u, \"label\": ", (unsigned)r->dup_index);
                json_utf8(out, label);
            }
        } else {
            fputs(", \"instance\": null, \"instance_id\": null", out);
        }
        fprintf(out, ", \"type\": %u, \"status\": ", (unsigned)r->type);
        if (r->status == PCQ_CALC_OK)
            fprintf(out, "\"ok\", \"value\": %.17g", r->value);
        else
            fprintf(out, "\"%s\"", pcq_calc_status_name(r->status));
        if (r->notes & PCQ_CALC_NOTE_WRAPPED) fputs(", \"wrapped\": true", out);
        if (r->notes & PCQ_CALC_NOTE_CAPPED) fputs(", \"capped\": true", out);
        fputc('}', out);
    }
    fputs(c->n_rows ? "\n]}\n" : "]}\n", out);
}

/* ---- --csv: typeperf's layout ---- */
static void csv_cell(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void print_csv(const cook_args *a, const cooked *c, FILE *out)
{
    char set[PCQ_GUID_TEXT_SIZE + 2], inst[300], ctr[300], path[1024], val[64];
    const pcq_systemtime *st = &c->newer.system_time;
    size_t i;

    if (a->set_name)
        snprintf(set, sizeof set, "%s", a->set_name);
    else {
        char g[PCQ_GUID_TEXT_SIZE];
        pcq_guid_to_text(&c->info.set.guid, g);
        snprintf(set, sizeof set, "{%s}", g);
    }
    csv_cell(out, "(PDH-CSV 4.0)");
    for (i = 0; i < c->n_rows; i++) {
        const pcq_calc_row *r = &c->rows[i];
        if (!shown(r)) continue;
        instance_label(r, inst, sizeof inst);
        counter_label(c, r->counter_id, ctr, sizeof ctr);
        /* typeperf: \\HOST\Set(instance)\Counter; without a host, the form of
         * the issue: \\Set(instance)\\Counter. */
        snprintf(path, sizeof path, "%s%s%s%s%s%s%s", a->host ? "\\\\" : "\\\\",
                 a->host ? a->host : "", a->host ? "\\" : "", set,
                 inst[0] || r->has_instance || r->is_aggregate ? "(" : "", inst,
                 inst[0] || r->has_instance || r->is_aggregate ? ")" : "");
        snprintf(path + strlen(path), sizeof path - strlen(path), "%s%s",
                 a->host ? "\\" : "\\\\", ctr);
        fputc(',', out);
        csv_cell(out, path);
    }
    fputc('\n', out);
    snprintf(val, sizeof val, "%02u/%02u/%04u %02u:%02u:%02u.%03u", st->month, st->day, st->year,
             st->hour, st->minute, st->second, st->milliseconds);
    csv_cell(out, val);
    for (i = 0; i < c->n_rows; i++) {
        const pcq_calc_row *r = &c->rows[i];
        if (!shown(r)) continue;
        if (r->status == PCQ_CALC_OK) snprintf(val, sizeof val, "%.6f", r->value);
        else snprintf(val, sizeof val, " ");           /* typeperf's empty value */
        fputc(',', out);
        csv_cell(out, val);
    }
    fputc('\n', out);
}

/* ---- the table for people ---- */
static void print_table(const cooked *c, FILE *out)
{
    char inst[300], ctr[300], val[PCQ_CALC_TEXT_SIZE];
    size_t i, hidden = 0;
    fprintf(out, "%-24s %-40s %s\n", "INSTANCE", "COUNTER", "VALUE");
    for (i = 0; i < c->n_rows; i++) {
        const pcq_calc_row *r = &c->rows[i];
        if (!shown(r)) { hidden++; continue; }
        instance_label(r, inst, sizeof inst);
        counter_label(c, r->counter_id, ctr, sizeof ctr);
        if (r->status == PCQ_CALC_OK)
            pcq_calc_format(r->value, r->type, r->attrib, val, sizeof val);
        else
            snprintf(val, sizeof val, "- (%s)", pcq_calc_status_text(r->status));
        fprintf(out, "%-24s %-40s %s\n", inst[0] ? inst : "-", ctr, val);
    }
    if (hidden)
        fprintf(out, "(%zu base, text or no-display values not shown; --json lists them)\n", hidden);
}

int pcqdump_cook_main(int argc, char **argv)
{
    cook_args a;
    cook_file files[5];
    cooked c;
    const char *paths[5];
    int rc, i;

    rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;
    memset(files, 0, sizeof files);
    memset(&c, 0, sizeof c);
    paths[0] = a.info; paths[1] = a.older; paths[2] = a.newer; paths[3] = a.names; paths[4] = a.ids;
    for (i = 0, rc = 0; i < 5 && rc == 0; i++)
        if (paths[i]) rc = read_file(paths[i], a.hex, &files[i]);
    if (rc == 0) rc = decode_all(&a, files, &c);
    if (rc == 0) rc = cook_rows(&a, &c);
    if (rc == 0) {
        if (a.json) print_json(&c, stdout);
        else if (a.csv) print_csv(&a, &c, stdout);
        else print_table(&c, stdout);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "pcqdump --cook: write error\n");
            rc = 2;
        }
    }
    for (i = 0; i < 5; i++) free(files[i].buf);
    free(c.ids);
    free(c.rows);
    free(c.name_ix);
    return rc;
}
