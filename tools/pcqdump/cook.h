/* SPDX-License-Identifier: MIT */
/*
 * cook.h - pcqdump --cook as a function on buffers: decode the inputs, cook
 * them (pcq_calc_cook) and print the rows in one of the formats. pcqdump's
 * --cook (cook.c: options and files) and the Python binding
 * (python/pcq/_pcqlib.c) both call pcq_cook_print, so they give the same
 * rows, labels, values and statuses.
 */
#ifndef PCQ_COOK_H
#define PCQ_COOK_H

#include <stdint.h>
#include <stdio.h>
#include "pcq_codec.h"

/* Output formats (pcqdump --cook --format NAME). */
typedef enum pcq_cook_format {
    PCQ_COOK_TABLE = 0, /* for people (the default) */
    PCQ_COOK_CSV,       /* typeperf's layout */
    PCQ_COOK_JSON,      /* {"kind": "cooked", "values": [...]} */
    PCQ_COOK_PROMETHEUS,
    PCQ_COOK_INFLUX
} pcq_cook_format;

/* "table", "csv", "json", "prometheus", "influx"; -1 for anything else. */
int pcq_cook_format_from_name(const char *name);

/* The inputs, by position in pcq_cook_req.in and pcq_cook_fail.input. */
enum {
    PCQ_COOK_INFO = 0,
    PCQ_COOK_OLDER,
    PCQ_COOK_NEWER,
    PCQ_COOK_NAMES,
    PCQ_COOK_IDS,
    PCQ_COOK_NINPUTS
};

typedef struct pcq_cook_input {
    const uint8_t *buf; /* NULL: not given (info and newer are required) */
    size_t len;
    const char *name; /* as messages call it: a file name, or "newer" */
} pcq_cook_input;

typedef struct pcq_cook_req {
    pcq_cook_input in[PCQ_COOK_NINPUTS];
    unsigned flags;       /* PCQ_CALC_* */
    int format;           /* pcq_cook_format */
    const char *set_name; /* counterset name (csv paths, metric names); NULL: its GUID */
    const char *host;     /* --csv paths */
} pcq_cook_req;

/* Why the inputs were unusable: which input, and the decoder's or the cook's
 * error (its offset is in that input). */
typedef struct pcq_cook_fail {
    int input; /* PCQ_COOK_INFO..PCQ_COOK_IDS; -1 when no input is to blame */
    pcq_error err;
} pcq_cook_fail;

/* Decodes every input, cooks, and prints the rows to out in r->format;
 * messages (errors, the PERF_SAMPLE_BASE warning) go to msg, one line each,
 * in pcqdump's form. Returns 0 (cooked, whatever each counter's status), 1
 * (unusable input: *fail says why; fail may be NULL) or 2 (out of memory).
 * Write errors are left in ferror(out). */
int pcq_cook_print(const pcq_cook_req *r, FILE *out, FILE *msg, pcq_cook_fail *fail);

/* ------------------------------------------------------------------------ */
/* Private to cook_*.c: the decoded inputs and the rows, and the labels the  */
/* formats share.                                                            */
/* ------------------------------------------------------------------------ */
typedef struct pcq_cook_name_ix {
    uint32_t counter_id, index; /* a present entry of the names block */
} pcq_cook_name_ix;

typedef struct pcq_cooked {
    const pcq_cook_req *req;
    FILE *msg;
    pcq_cook_fail *fail;
    pcq_counterset_info info;
    pcq_data older, newer;
    pcq_strings names;
    int have_names;
    pcq_cook_name_ix *name_ix; /* sorted by (dwCounterId, index) */
    size_t n_name_ix;
    pcq_identifier *ids;
    size_t n_ids;
    pcq_calc_row *rows;
    size_t n_rows;
} pcq_cooked;

#define PCQ_COOK_LABEL 300 /* bytes of a label, with its NUL */

/* Rows people (and typeperf) are shown: no bases, text or "no display". */
int pcq_cook_shown(const pcq_calc_row *r);
/* The counter's name as far as a label shows it (cap bytes), or "#id";
 * control and bidirectional formatting characters become '?'. */
void pcq_cook_counter_label(const pcq_cooked *c, uint32_t id, char *out, size_t cap);
/* The counter's name whole (a view into the names buffer), or NULL. */
const pcq_string_entry *pcq_cook_counter_name(const pcq_cooked *c, uint32_t id, pcq_string_entry *tmp);
/* The counterset as --csv and the metrics name it: --set-name, or its GUID
 * in braces. */
void pcq_cook_set_label(const pcq_cooked *c, char *out, size_t cap);
/* UTF-16LE text to UTF-8 in chunks, each chunk handed to put (no length
 * limit, no allocation; unpaired surrogates become U+FFFD). */
void pcq_cook_utf16(const uint8_t *p, size_t n, void (*put)(void *ctx, const char *s, size_t n), void *ctx);

/* cook_metrics.c */
int pcq_cook_print_prometheus(const pcq_cooked *c, FILE *out);
int pcq_cook_print_influx(const pcq_cooked *c, FILE *out, FILE *msg);

#endif /* PCQ_COOK_H */
