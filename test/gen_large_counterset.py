#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes vectors/counterset-info/nc-large-set.hex: a counterset-info buffer too
large to type by hand (1030 counters, past PCQ_PAIR_CHECK_MAX = 1024), laid out
field by field from [MS-PCQ] §2.2.4.1 and §2.2.4.2 by this script (not by the
project's encoder), one line per counter, each annotated.

    /usr/bin/python3 test/gen_large_counterset.py      (from the top of the tree)

Counter i has CounterId i and type PERF_COUNTER_RAWCOUNT, but for:
  - counter 1028: PERF_RAW_FRACTION whose BaseCounterId 5000 names no counter
    -> PCQ_DIAG_RELATED_COUNTER at its BaseCounterId;
  - counter 1029: CounterId 5, a duplicate of counter 5
    -> PCQ_DIAG_DUPLICATE_ID at its CounterId.
Before 0.2 neither was found: pairwise checks stopped above 1024 counters (D9).
"""
import struct

N = 1030
out = []
out.append("# counterset-info (Opnum 1, RequestCode 1, §3.1.4.1.2, Figure 1), NON-CONFORMANT (regression: before 0.2")
out.append("# sets of more than 1024 counters skipped the pairwise checks, D9): 1030 counters; counter 1028 is a")
out.append("# PERF_RAW_FRACTION whose base 5000 does not exist, counter 1029 repeats CounterId 5. Written by")
out.append("# test/gen_large_counterset.py (too long to type), field by field from §2.2.4.1-2.")
out.append("#")
out.append("# _PERF_COUNTERSET_REG_INFO (§2.2.4.1) at 0x00")
out.append("44332211 6655 8877 99aabbccddeeff00  # +0x00 CounterSetGuid = 11223344-5566-7788-99aa-bbccddeeff00")
out.append("00000000 64000000 %s 02000000  # +0x10 CounterSetType 0, DetailLevel 100, NumCounters %d, InstanceType 2"
           % (struct.pack('<I', N).hex(), N))
out.append("# _PERF_COUNTER_REG_INFO[0..%d] (§2.2.4.2), 48 bytes each from 0x20: CounterId, Type, Attrib (8 bytes)," % (N - 1))
out.append("# DetailLevel, DefaultScale, BaseCounterId, PerfTimeId, PerfFreqId, MultiId, AggregateFunc, Reserved")
for i in range(N):
    cid, typ, base, note = i, 0x00010000, 0xFFFFFFFF, "RAWCOUNT"
    if i == 1028:
        typ, base, note = 0x20020400, 5000, "PERF_RAW_FRACTION, base 5000 missing  <-- RELATED_COUNTER at +24"
    if i == 1029:
        cid, note = 5, "CounterId 5 again  <-- DUPLICATE_ID at +0"
    fields = struct.pack('<IIQIiIIIIII', cid, typ, 0, 100, 0, base, 0xFFFFFFFF, 0xFFFFFFFF,
                         0xFFFFFFFF, 0, 0)
    h = fields.hex()
    groups = ' '.join([h[0:8], h[8:16], h[16:32], h[32:40], h[40:48], h[48:56], h[56:64], h[64:72],
                       h[72:80], h[80:88], h[88:96]])
    out.append("%s  # +0x%04x [%d] id %d, %s" % (groups, 32 + 48 * i, i, cid, note))
out.append("# end of input at 0x%04x (%d bytes)" % (32 + 48 * N, 32 + 48 * N))
open("vectors/counterset-info/nc-large-set.hex", "w").write("\n".join(out) + "\n")
with open("vectors/counterset-info/nc-large-set.diag", "w") as f:
    f.write("PCQ_DIAG_RELATED_COUNTER 0x%x\n" % (32 + 48 * 1028 + 24))
    f.write("PCQ_DIAG_DUPLICATE_ID 0x%x\n" % (32 + 48 * 1029))
with open("vectors/counterset-info/nc-large-set.json", "w") as f:
    f.write('{"kind": "counterset-info", "counterset": {"num_counters": %d, "instance_type": 2}}\n' % N)
