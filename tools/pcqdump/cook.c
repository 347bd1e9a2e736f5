/* SPDX-License-Identifier: MIT */
/*
 * cook.c - pcqdump --cook: the values people read, computed from two data
 * samples of one query (pcq_calc_cook; formulas in docs/formulas.md).
 *
 *   pcqdump --cook --info INFO.bin OLD.bin NEW.bin [--names NAMES.bin]
 *           [--ids IDS.bin] [--format table|csv|json|prometheus|influx]
 *           [--json|--csv] [--hex] [--set-name NAME] [--host HOST]
 *           [--cap100] [--noscale] [--x1000] [--nowrap32]
 *
 * This file reads the options and the files; cook_run.c decodes, cooks and
 * prints (pcq_cook_print, shared with the Python binding), cook_metrics.c
 * writes the Prometheus and Influx formats.
 *
 * Exit status: 0 cooked (whatever each counter's status); 1 unusable input
 * (a malformed buffer, a counter missing from the info); 2 usage error,
 * unreadable file or bad hex text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcq_codec.h"
#include "cook.h"
#include "hexread.h"

int pcqdump_cook_main(int argc, char **argv);

#define COOK_MAX_FILE (1u << 30) /* the protocol's own dwInSize range cap */

typedef struct cook_args {
    const char *info, *older, *newer, *names, *ids, *set_name, *host;
    int format, hex;
    unsigned flags;
} cook_args;

typedef struct cook_file {
    uint8_t *buf;
    size_t len;
} cook_file;

static const char cook_usage[] =
    "usage: pcqdump --cook --info INFO OLD NEW [--names NAMES] [--ids IDS] [--format FORMAT]\n"
    "  INFO        counterset-info buffer (opnum 1 reply, RequestCode 1)\n"
    "  OLD NEW     two data buffers of the same query (opnum 6 replies), older first;\n"
    "              NEW alone computes the one-sample types only\n"
    "  --names F   strings buffer with the counter names (RequestCode 5, 6 or 10)\n"
    "  --ids F     identifiers buffer of the query (opnum 5 reply): says which counter\n"
    "              a PERF_SINGLE_COUNTER or PERF_MULTI_INSTANCES block holds; without\n"
    "              it, block i holds counter i of INFO\n"
    "  --format F  table (the default, for people), csv, json, prometheus or influx:\n"
    "    json        {\"kind\": \"cooked\", \"values\": [...]}, every row (also --json)\n"
    "    csv         the layout of typeperf: a row of counter paths, a row of values;\n"
    "                in instance names ( ) become [ ] and # \\ / become _, and a name\n"
    "                cut to fit ends in ~ and a hash of the whole name (also --csv)\n"
    "    prometheus  text exposition format 0.0.4: windows_<set>_<counter>[_unit]\n"
    "                gauges, labels instance and counterset; rows with a status\n"
    "                other than ok, bases and no-display counters left out\n"
    "    influx      InfluxDB line protocol: measurement = the counterset, tag\n"
    "                instance, a float field per counter, time = the newer\n"
    "                sample's PerfTime100NSec in ns (write with precision=ns)\n"
    "              (docs/decisions.md D17 has the names, units and escapes)\n"
    "  --hex       the files are hex text instead of raw bytes\n"
    "  --set-name NAME  counterset name for paths, metric names and the\n"
    "                   measurement (default: its GUID in braces)\n"
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

/* --json, --csv or --format NAME: one format, however it is asked for. 0, or
 * 2 with the message. */
static int set_format(cook_args *a, const char *name, const char *opt)
{
    int f = pcq_cook_format_from_name(name);
    if (f < 0) return cook_usage_error("unknown --format", name);
    if (a->format >= 0 && a->format != f)
        return cook_usage_error("one output format only: --json, --csv and --format exclude each other", opt);
    a->format = f;
    return 0;
}

static int parse_args(int argc, char **argv, cook_args *a)
{
    int i;
    memset(a, 0, sizeof *a);
    a->format = -1;
    a->flags = PCQ_CALC_NOCAP100; /* like perfmon and typeperf: 400 % is 400 % */
    for (i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char **slot = NULL;
        if (strcmp(s, "--cook") == 0)
            continue;
        else if (strcmp(s, "--json") == 0 || strcmp(s, "--csv") == 0) {
            if (set_format(a, s + 2, s) != 0) return 2;
        } else if (strncmp(s, "--format=", 9) == 0) {
            if (set_format(a, s + 9, s) != 0) return 2;
        } else if (strcmp(s, "--format") == 0) {
            if (++i == argc) return cook_usage_error(s, "needs a value");
            if (set_format(a, argv[i], s) != 0) return 2;
        } else if (strcmp(s, "--hex") == 0)
            a->hex = 1;
        else if (strcmp(s, "--cap100") == 0)
            a->flags &= ~PCQ_CALC_NOCAP100;
        else if (strcmp(s, "--noscale") == 0)
            a->flags |= PCQ_CALC_NOSCALE;
        else if (strcmp(s, "--x1000") == 0)
            a->flags |= PCQ_CALC_X1000;
        else if (strcmp(s, "--nowrap32") == 0)
            a->flags |= PCQ_CALC_NOWRAP32;
        else if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            fputs(cook_usage, stdout);
            return 0;
        } else if (strcmp(s, "--info") == 0)
            slot = &a->info;
        else if (strcmp(s, "--names") == 0)
            slot = &a->names;
        else if (strcmp(s, "--ids") == 0)
            slot = &a->ids;
        else if (strcmp(s, "--set-name") == 0)
            slot = &a->set_name;
        else if (strcmp(s, "--host") == 0)
            slot = &a->host;
        else if (s[0] == '-' && s[1] != '\0')
            return cook_usage_error("unknown option", s);
        else if (!a->older)
            a->older = s;
        else if (!a->newer)
            a->newer = s;
        else
            return cook_usage_error("more than two data files:", s);
        if (slot) {
            if (++i == argc) return cook_usage_error(s, "needs a value");
            *slot = argv[i];
        }
    }
    if (!a->info) return cook_usage_error("--info is required", NULL);
    if (!a->older) return cook_usage_error("no data file", NULL);
    if (a->format < 0) a->format = PCQ_COOK_TABLE;
    if (!a->newer) { /* one sample: it is the newer */
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
        if (cap >= COOK_MAX_FILE) {
            why = "is too large";
            break;
        }
        cap *= 2;
        {
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                why = "does not fit in memory";
                break;
            }
            buf = nb;
        }
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
        n = out; /* in place: never more bytes than characters */
    }
    f->buf = buf;
    f->len = n;
    return 0;
}

int pcqdump_cook_main(int argc, char **argv)
{
    cook_args a;
    cook_file files[PCQ_COOK_NINPUTS];
    pcq_cook_req req;
    const char *paths[PCQ_COOK_NINPUTS];
    int rc, i;

    rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;
    memset(files, 0, sizeof files);
    memset(&req, 0, sizeof req);
    paths[PCQ_COOK_INFO] = a.info;
    paths[PCQ_COOK_OLDER] = a.older;
    paths[PCQ_COOK_NEWER] = a.newer;
    paths[PCQ_COOK_NAMES] = a.names;
    paths[PCQ_COOK_IDS] = a.ids;
    for (i = 0, rc = 0; i < PCQ_COOK_NINPUTS && rc == 0; i++)
        if (paths[i]) rc = read_file(paths[i], a.hex, &files[i]);
    if (rc == 0) {
        for (i = 0; i < PCQ_COOK_NINPUTS; i++) {
            /* an empty file is given all the same: a buffer of 0 bytes */
            req.in[i].buf = paths[i] ? (files[i].buf ? files[i].buf : (const uint8_t *)"") : NULL;
            req.in[i].len = files[i].len;
            req.in[i].name = paths[i];
        }
        req.flags = a.flags;
        req.format = a.format;
        req.set_name = a.set_name;
        req.host = a.host;
        rc = pcq_cook_print(&req, stdout, stderr, NULL);
        if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
            fprintf(stderr, "pcqdump --cook: write error\n");
            rc = 2;
        }
    }
    for (i = 0; i < PCQ_COOK_NINPUTS; i++) free(files[i].buf);
    return rc;
}
