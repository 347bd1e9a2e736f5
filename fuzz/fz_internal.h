/* SPDX-License-Identifier: MIT */
/*
 * fz_internal.h - what the fuzz support files (fuzz/fz_*.c) share with each
 * other; fuzz targets use fuzz_util.h only.
 *   fz_core.c    bytes, records of decoded fields, diagnostics and errors
 *   fz_checks.c  views, names of constants, UTF-16 -> UTF-8
 *   fz_walk.c    every kind walked with the typed iterators, every field checked
 *   fz_script.c  the writer driven by a script of fuzz bytes
 *   fz_props.c   the properties of the step-by-step walk (pcq_walk_next)
 */
#ifndef PCQ_FZ_INTERNAL_H
#define PCQ_FZ_INTERNAL_H

#include "fuzz_util.h"

/* The input of fz_walk and where its fields are recorded. */
typedef struct fz_ctx {
    const uint8_t *buf;
    size_t len;
    fz_rec *rec;
} fz_ctx;

void fz_rec_u(fz_rec *r, uint64_t v);
void fz_rec_lay(fz_rec *r, uint64_t v);
void fz_rec_bytes(fz_rec *r, const uint8_t *p, size_t n);
void fz_rec_guid(fz_rec *r, const pcq_guid *g);
void fz_rec_cset(fz_rec *r, const pcq_counterset_reg *s);
void fz_rec_creg(fz_rec *r, const pcq_counter_reg *c);
void fz_rec_ident(fz_rec *r, const pcq_identifier *id);
void fz_rec_data_header(fz_rec *r, const pcq_data *d);
void fz_on_diag(void *ctx, const pcq_diag *d);
int fz_is_strict(const pcq_opts *o);
void fz_check_error(const char *who, int rc, const pcq_error *e, size_t len, const pcq_opts *o);
void fz_same_error(const char *a, const pcq_error *ea, const char *b, const pcq_error *eb);
void fz_check_view_in(const fz_ctx *w, const char *what, const uint8_t *p, size_t n, size_t lo, size_t hi);
void fz_check_name(const fz_ctx *w, const char *what, const pcq_bytes *v, size_t at, size_t lo, size_t hi);
void fz_read_guid(const uint8_t *p, pcq_guid *g);
int fz_guid_eq(const pcq_guid *a, const pcq_guid *b);
void fz_check_guid_text(const pcq_guid *g);
int fz_starts(const char *s, const char *prefix);
void fz_check_type_name(uint32_t type);
void fz_check_creg_names(const pcq_counter_reg *c);
void fz_check_instance_type_name(uint32_t t);
void fz_check_status_name(uint32_t st);
void fz_check_creg_bytes(const pcq_counter_reg *c, const uint8_t *p, size_t at);

#endif /* PCQ_FZ_INTERNAL_H */
