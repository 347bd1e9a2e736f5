#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""gen_hostile.py - writes the hostile cook case of test/cli/monitoring/ (hostile-*.hex): a counterset of 10
counters whose names carry what the Prometheus and Influx formats must escape or cannot carry (quotes,
backslashes, a line feed, commas, equals signs, spaces, non-ASCII, words promtool flags, two names that
sanitize alike, "time"), two data samples 1 s apart of 8 instances with such names (a trailing backslash, a
leading '#', a duplicate, an empty name), and the counter names (Win32 dwOffset convention).

    /usr/bin/python3 test/cli/monitoring/gen_hostile.py     # rewrites the three .hex files (deterministic)

The bytes are built with struct, field by field, not with pcq's encoder; each line of the .hex names its field.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
GUID = bytes.fromhex("78563412" "3412" "7856" "0102030405060708")   # {12345678-1234-5678-0102-030405060708}

# id, type, attrib, base, aggregate, name
COUNTERS = [
    (1, 0x00010000, 0, 0xFFFFFFFF, 1, 'Queue, "Length"=x\\y'),       # RAWCOUNT, with an aggregate (total)
    (2, 0x10410400, 0, 0xFFFFFFFF, 0, "Bytes/sec"),                  # COUNTER_COUNTER: per second
    (3, 0x20510500, 0, 0xFFFFFFFF, 0, "% Idle Time"),                # 100NSEC_TIMER: a percentage
    (4, 0x00010100, 0, 0xFFFFFFFF, 0, "Größe\nzwei ✓"),              # LARGE_RAWCOUNT
    (5, 0x00010000, 0, 0xFFFFFFFF, 0, "Handle Count"),               # ends in a reserved suffix
    (6, 0x00010000, 0, 0xFFFFFFFF, 0, "Avg. Disk sec/Read ms"),      # abbreviated units
    (7, 0x00010000, 0, 0xFFFFFFFF, 0, "time"),                       # an Influx field cannot be "time"
    (8, 0x00010000, 0, 0xFFFFFFFF, 0, "Queue: Length x-y"),          # sanitizes like counter 1
    (9, 0x30020400, 0, 10, 0, "Avg. sec/Transfer"),                  # AVERAGE_TIMER: seconds
    (10, 0x40030402, 0, 0xFFFFFFFF, 0, "Avg. sec/Transfer Base"),    # AVERAGE_BASE: not shown
]
INSTANCES = [(1, "C:\\"), (2, 'a "b", c=d'), (3, "line1\nline2"), (4, "Ünïcödé ✓"), (5, "#hash"), (6, "dup"),
             (7, "dup"), (8, "")]
T0, FREQ, T100 = 10 ** 12, 10 ** 7, 133604154152500000   # 2024-05-17 10:30:15.250 UTC


class Hex:
    def __init__(self):
        self.lines, self.off = [], 0

    def comment(self, text):
        self.lines.append("# " + text)

    def put(self, data, what):
        self.lines.append("%-20s# +0x%02x %s" % (data.hex(), self.off, what.replace("\n", "\\n")))
        self.off += len(data)

    def u32(self, v, what):
        self.put(struct.pack("<I", v), "%s = %d" % (what, v))

    def u64(self, v, what):
        self.put(struct.pack("<Q", v), "%s = %d" % (what, v))

    def text(self):
        return "\n".join(self.lines) + "\n"


def utf16z(s):
    return s.encode("utf-16-le") + b"\0\0"


def pad8(n):
    return (-n) % 8


def counterset_info():
    h = Hex()
    h.comment("counterset-info: the hostile monitoring case (gen_hostile.py); multiple instances with aggregates")
    h.put(GUID, "CounterSetGuid {12345678-1234-5678-0102-030405060708}")
    h.u32(0, "CounterSetType")
    h.u32(100, "DetailLevel")
    h.u32(len(COUNTERS), "NumCounters")
    h.u32(6, "InstanceType (PERF_COUNTERSET_MULTI_AGGREGATE)")
    for cid, ctype, attrib, base, agg, name in COUNTERS:
        h.comment("_PERF_COUNTER_REG_INFO: counter %d %r" % (cid, name))
        h.u32(cid, "CounterId")
        h.put(struct.pack("<I", ctype), "Type = 0x%08x" % ctype)
        h.u64(attrib, "Attrib")
        h.u32(100, "DetailLevel")
        h.u32(0, "DefaultScale")
        h.put(struct.pack("<I", base), "BaseCounterId = 0x%x" % base)
        h.put(struct.pack("<I", 0xFFFFFFFF), "PerfTimeId (unused)")
        h.put(struct.pack("<I", 0xFFFFFFFF), "PerfFreqId (unused)")
        h.put(struct.pack("<I", 0xFFFFFFFF), "MultiId (unused)")
        h.u32(agg, "AggregateFunc")
        h.u32(0, "Reserved")
    return h


def names():
    h = Hex()
    n = len(COUNTERS)
    texts = [utf16z(c[5]) for c in COUNTERS]
    total = 8 + 8 * n + sum(len(t) for t in texts)
    total += pad8(total)
    h.comment("strings: the counter names (RequestCode 5), Win32 dwOffset convention")
    h.u32(total, "dwSize")
    h.u32(n, "dwCounters")
    off = 8 + 8 * n
    for c, t in zip(COUNTERS, texts):
        h.u32(c[0], "dwCounterId")
        h.u32(off, "dwOffset")
        off += len(t)
    for c, t in zip(COUNTERS, texts):
        h.put(t, "name %r" % c[5])
    h.put(b"\0" * pad8(off), "padding")
    return h


def value(cid, iid, k):
    """Counter cid of instance iid in sample k (0 older, 1 newer)."""
    if cid == 2:
        return 1000 * iid + k * 250 * iid              # 250 x iid bytes/s
    if cid == 3:
        return 10 ** 6 * iid + k * 10 ** 6 * iid       # 10 % x iid of the second idle
    if cid == 9:
        return 5000 * iid + k * FREQ // 1000 * iid     # x ticks over 1 event: iid ms a transfer
    if cid == 10:
        return 7 + k                                    # one transfer between the samples
    return 10 * cid + iid + k                           # raw counts


def data(k):
    h = Hex()
    ids = [c[0] for c in COUNTERS]
    sizes = {c[0]: (8 if c[1] & 0x300 == 0x100 else 4) for c in COUNTERS}
    insts = []
    for iid, name in INSTANCES:
        nb = len(utf16z(name))
        insts.append((iid, name, 8 + nb + pad8(8 + nb)))
    multi_size = 8 + 4 * len(ids) + pad8(8 + 4 * len(ids))
    inst_total = 8 + sum(s + 16 * len(ids) for _, _, s in insts)
    block = 16 + multi_size + inst_total
    total = 48 + block
    h.comment("data sample %d of the hostile monitoring case (gen_hostile.py): one PERF_COUNTERSET block" % (k + 1))
    h.u32(total, "dwTotalSize")
    h.u32(1, "dwNumCounter")
    h.u64(T0 + k * FREQ, "PerfTimeStamp")
    h.u64(T100 + k * 10 ** 7, "PerfTime100NSec")
    h.u64(FREQ, "PerfFreq")
    for v, what in ((2024, "wYear"), (5, "wMonth"), (5, "wDayOfWeek"), (17, "wDay"), (10, "wHour"), (30, "wMinute"),
                    (15 + k, "wSecond"), (250, "wMilliseconds")):
        h.put(struct.pack("<H", v), "SystemTime.%s = %d" % (what, v))
    h.u32(0, "dwStatus")
    h.u32(6, "dwType (PERF_COUNTERSET)")
    h.u32(block, "dwSize")
    h.u32(0, "Reserved")
    h.u32(multi_size, "_PERF_MULTI_COUNTERS.dwSize")
    h.u32(len(ids), "dwCounters")
    for cid in ids:
        h.u32(cid, "counter id")
    h.put(b"\0" * pad8(8 + 4 * len(ids)), "padding")
    h.u32(inst_total, "_PERF_MULTI_INSTANCES.dwTotalSize")
    h.u32(len(insts), "dwInstances")
    for iid, name, size in insts:
        h.u32(size, "_PERF_INSTANCE_HEADER.Size")
        h.u32(iid, "InstanceId")
        nb = utf16z(name)
        h.put(nb, "name %r" % name)
        h.put(b"\0" * (size - 8 - len(nb)), "padding")
        for cid in ids:
            h.u32(sizes[cid], "dwDataSize (counter %d)" % cid)
            h.u32(16, "dwSize")
            v = value(cid, iid, k)
            h.put(struct.pack("<Q" if sizes[cid] == 8 else "<I", v) + b"\0" * (8 - sizes[cid]), "value = %d" % v)
    assert h.off == total
    return h


def main():
    for fname, h in (("hostile-info.hex", counterset_info()), ("hostile-names.hex", names()),
                     ("hostile-data-1.hex", data(0)), ("hostile-data-2.hex", data(1))):
        with open(os.path.join(HERE, fname), "w", encoding="utf-8") as f:
            f.write(h.text())


if __name__ == "__main__":
    main()
