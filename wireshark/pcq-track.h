/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcq-track.h - what the PerflibV2 dissector remembers across frames: the
 * RequestCode of each opnum 1 call, and per query handle the counters added,
 * the registration info and names of countersets, and the previous data
 * sample, so that the values of an opnum 6 reply can be cooked (§3.1.4.1).
 *
 * All state lives in wmem_file_scope() and is updated only on the first pass
 * over a frame (pinfo->fd->visited false); what a frame shows is computed then
 * and kept with the frame, so later passes show the same thing.
 */
#ifndef PCQ_TRACK_H
#define PCQ_TRACK_H

#include <epan/packet.h>

#include "../pcq_codec.h"

#define PCQ_HANDLE_SIZE 20 /* an NDR context handle: attributes + UUID */

/* What a request tells its reply (kept in dcerpc_call_value.se_data). */
typedef struct pcq_call {
    guint32 request_code; /* opnum 1 */
    gboolean has_request_code;
    pcq_guid counterset; /* opnums 1 and 2: CounterSetGuid */
    gboolean has_counterset;
    guint8 handle[PCQ_HANDLE_SIZE]; /* opnums 4 to 7 */
    gboolean has_handle;
    guint32 add; /* opnum 7: dwAdd */
    gboolean has_add;
} pcq_call;

/* One cooked value of an opnum 6 reply. */
typedef struct pcq_cooked_value {
    size_t offset; /* its _PERF_COUNTER_DATA in the reply's lpData (0: aggregate) */
    int status;    /* pcq_calc_status */
    double value;  /* when status is PCQ_CALC_OK */
    int is_aggregate;
    const char *label; /* "37.5 % (% Processor Time, _Total)", escaped */
} pcq_cooked_value;

/* What an opnum 6 reply shows of the cooking. */
typedef struct pcq_cooked {
    const char *note; /* why there are no cooked values, or NULL */
    size_t n;
    pcq_cooked_value *v; /* sorted by offset; aggregates last */
} pcq_cooked;

void pcq_track_init(void);

/* First pass only: remember a reply's lpData (a copy is kept when needed). */
void pcq_track_reply(packet_info *pinfo, const pcq_call *call, guint32 opnum, guint32 status,
                     const guint8 *buf, size_t len);

/* First pass only: cook an opnum 6 reply against what came before it (the
 * reply itself then becomes the handle's previous sample). Never NULL. */
pcq_cooked *pcq_track_cook(packet_info *pinfo, const pcq_call *call, const guint8 *buf, size_t len);

/* UTF-16LE to UTF-8 with C0/C1 controls, DEL and bidirectional formatting
 * characters as \uXXXX and a backslash as \\ (never raw: Trojan Source). */
char *pcq_text_escaped(wmem_allocator_t *pool, const guint8 *p, size_t n);

#endif
