/* SPDX-License-Identifier: MIT */
/*
 * fuzz_walk.c - the step-by-step walk (pcq_walk_next) against the decoders
 * and the typed iterators, on any bytes and on every prefix.
 *
 * Input: byte 0 selects the kind (low 4 bits, fz_kind_of) and, with bit 4,
 * strict mode; the rest is the buffer. Then (fz_props.c):
 *   - pcq_validate succeeds exactly when the walk ends without error, with
 *     the same error and the same diagnostics, in wire order;
 *   - a buffer that decodes walks to exactly the typed iterators' items;
 *   - the typed iterators on the bytes never validated stay inside them;
 *   - every prefix of such a buffer (each one up to 64 bytes, then 64 of them)
 *     yields the items that lie inside it, unchanged, then an error inside it.
 */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pcq_kind kind;
    const uint8_t *buf;
    size_t len;

    if (size < 1) return 0;
    kind = fz_kind_of(data[0]);
    buf = data + 1;
    len = size - 1;
    fz_prop_decode_is_walk(kind, buf, len, (data[0] & 0x10) != 0);
    fz_prop_iterators(kind, buf, len);
    fz_prop_iterators_unvalidated(kind, buf, len);
    fz_prop_bulk(kind, buf, len, (data[0] & 0x10) != 0);
    if (kind == PCQ_KIND_DATA) {
        fz_prop_canonical(buf, len);
        fz_prop_batch(buf, len);
    }
    fz_prop_prefixes(kind, buf, len, len <= 64 ? 1 : len / 64);
    return 0;
}
