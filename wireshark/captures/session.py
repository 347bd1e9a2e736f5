#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""session.py - the buffers of a realistic "Processor Information" monitoring session, written with struct
(annotate.py) as annotated .hex files under session/.

    session.py [--check]     write (or, with --check, compare) session/*.hex

Model ([MS-PCQ] 2.2.4, NOTES.md section 8):
  counterset "Processor Information" {b4fc721a-0378-476f-89ba-a5a79f810b36}, multi-instance (InstanceType 2),
  its 32 counters 0..31 with the types of Microsoft's PerfLib sample; instances "0,0" (id 0), "0,1" (id 1),
  "0,_Total" (id 0x100) and "_Total" (id 0xFFFFFFFF), two CPUs in one processor group.
  Every counter value is base + rate * t, t in seconds after the first sample; data headers carry
  PerfTimeStamp = 10^12 + t * 10^7 at PerfFreq 10 MHz and PerfTime100NSec = 133604154152500000 + t * 10^7
  (2024-05-17 10:30:15.250 UTC + t), so two samples 1 s apart cook to the per-second rates of RATES below.

The session query (one handle) adds three identifiers, which become three data blocks in Index order:
  Index 0  CounterId 0xFFFFFFFF, instance "*"       -> PERF_COUNTERSET (type 6): 32 counters x 4 instances
  Index 1  CounterId 0 (% Processor Time), "_Total" -> PERF_SINGLE_COUNTER (type 1)
  Index 2  CounterId 17 (Processor Frequency), "*"  -> PERF_MULTI_INSTANCES (type 4): 4 instances
The interleaved capture's handles A and B (handle_a_* / handle_b_*) use other identifiers on the same model.
"""
import datetime
import os
import sys
from fractions import Fraction

from annotate import Buf, guid_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
SESSION_DIR = os.path.join(HERE, "session")

PI_GUID = "b4fc721a-0378-476f-89ba-a5a79f810b36"
OTHER_GUIDS = [   # made up, as in vectors/INDEX.md (byte order of each part easy to see), plus one more
    "11223344-5566-7788-99aa-bbccddeeff00",
    "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0",
    "c0ffee00-1234-4abc-8def-0123456789ab",
]

# Counter types ([MS-PCQ] 2.2.4.2)
T = {
    "PERF_100NSEC_TIMER_INV": 0x21510500,
    "PERF_100NSEC_TIMER": 0x20510500,
    "PERF_COUNTER_COUNTER": 0x10410400,
    "PERF_COUNTER_RAWCOUNT": 0x00010000,
    "PERF_COUNTER_BULK_COUNT": 0x10410500,
    "PERF_PRECISION_100NS_TIMER": 0x20570500,
    "PERF_LARGE_RAW_BASE": 0x40030500,
    "PERF_AVERAGE_BULK": 0x40020500,
    "PERF_AVERAGE_BASE": 0x40030402,
}
TYPE_NAME = {v: k for k, v in T.items()}
NONE = 0xFFFFFFFF
ATTRIB_NAMES = {0x1: "reference", 0x2: "no display", 0x4: "no group separator", 0x8: "display as real",
                0x10: "display as hexadecimal"}

# (id, name, type, Attrib, DetailLevel, BaseCounterId)
COUNTERS = [
    (0, "% Processor Time", "PERF_100NSEC_TIMER_INV", 0, 100, NONE),
    (1, "% User Time", "PERF_100NSEC_TIMER", 0, 100, NONE),
    (2, "% Privileged Time", "PERF_100NSEC_TIMER", 0, 100, NONE),
    (3, "Interrupts/sec", "PERF_COUNTER_COUNTER", 0, 100, NONE),
    (4, "% DPC Time", "PERF_100NSEC_TIMER", 0, 100, NONE),
    (5, "% Interrupt Time", "PERF_100NSEC_TIMER", 0, 100, NONE),
    (6, "DPCs Queued/sec", "PERF_COUNTER_COUNTER", 0, 100, NONE),
    (7, "DPC Rate", "PERF_COUNTER_RAWCOUNT", 0, 100, NONE),
    (8, "% Idle Time", "PERF_100NSEC_TIMER", 0, 200, NONE),
    (9, "% C1 Time", "PERF_100NSEC_TIMER", 0, 200, NONE),
    (10, "% C2 Time", "PERF_100NSEC_TIMER", 0, 200, NONE),
    (11, "% C3 Time", "PERF_100NSEC_TIMER", 0, 200, NONE),
    (12, "C1 Transitions/sec", "PERF_COUNTER_BULK_COUNT", 0, 200, NONE),
    (13, "C2 Transitions/sec", "PERF_COUNTER_BULK_COUNT", 0, 200, NONE),
    (14, "C3 Transitions/sec", "PERF_COUNTER_BULK_COUNT", 0, 200, NONE),
    (15, "% Priority Time", "PERF_100NSEC_TIMER_INV", 0, 100, NONE),
    (16, "Parking Status", "PERF_COUNTER_RAWCOUNT", 0, 200, NONE),
    (17, "Processor Frequency", "PERF_COUNTER_RAWCOUNT", 0x4, 100, NONE),
    (18, "% of Maximum Frequency", "PERF_COUNTER_RAWCOUNT", 0, 100, NONE),
    (19, "Processor State Flags", "PERF_COUNTER_RAWCOUNT", 0x10, 200, NONE),
    (20, "Clock Interrupts/sec", "PERF_COUNTER_COUNTER", 0, 200, NONE),
    (21, "Average Idle Time", "PERF_PRECISION_100NS_TIMER", 0, 200, 22),
    (22, "Average Idle Time Base", "PERF_LARGE_RAW_BASE", 0x2, 200, NONE),
    (23, "Idle Break Events/sec", "PERF_COUNTER_BULK_COUNT", 0, 200, NONE),
    (24, "% Processor Performance", "PERF_AVERAGE_BULK", 0, 100, 25),
    (25, "Processor Performance Base", "PERF_AVERAGE_BASE", 0x2, 100, NONE),
    (26, "% Processor Utility", "PERF_AVERAGE_BULK", 0, 100, 27),
    (27, "% Utility Base", "PERF_AVERAGE_BASE", 0x2, 100, NONE),
    (28, "% Privileged Utility", "PERF_AVERAGE_BULK", 0, 100, 27),
    (29, "Performance Limit Status", "PERF_COUNTER_RAWCOUNT", 0, 200, NONE),   # name made up (NOTES §8: no name)
    (30, "% Performance Limit", "PERF_COUNTER_RAWCOUNT", 0, 100, NONE),
    (31, "Performance Limit Flags", "PERF_COUNTER_RAWCOUNT", 0x10, 200, NONE),
]
COUNTER = {c[0]: c for c in COUNTERS}


def value_size(ctype):
    """4 or 8: the size bits of the counter type (NOTES §5; AVERAGE_BASE is 32-bit, LARGE_RAW_BASE 64-bit)."""
    return 8 if (T[ctype] & 0x300) == 0x100 else 4


# Instances: (name, InstanceId)
CPUS = [("0,0", 0), ("0,1", 1)]
TOTALS = [("0,_Total", 0x100), ("_Total", 0xFFFFFFFF)]
INSTANCES = CPUS + TOTALS

# Time base of the first sample (vectors/INDEX.md "common values"), and the clock
PERF_TIME_STAMP0 = 10 ** 12
PERF_TIME_100NS0 = 133604154152500000
PERF_FREQ = 10 ** 7
HUNDRED_NS = 10 ** 7        # 100-ns units per second

P = PERF_FREQ
# Per-CPU (cpu0, cpu1) rates per second, and how the two _Total instances combine them ("avg" or "sum").
# Percent timers count 100-ns units: fraction * 10^7 per second.
IDLE = (Fraction(70, 100), Fraction(55, 100))
RATES = {
    0: ((IDLE[0] * P, IDLE[1] * P), "avg"),                                    # idle time (inverse timer)
    1: ((Fraction(18, 100) * P, Fraction(30, 100) * P), "avg"),
    2: ((Fraction(12, 100) * P, Fraction(15, 100) * P), "avg"),
    3: ((1520, 980), "sum"),
    4: ((Fraction(1, 100) * P, Fraction(2, 100) * P), "avg"),
    5: ((Fraction(5, 1000) * P, Fraction(1, 100) * P), "avg"),
    6: ((312, 188), "sum"),
    7: ((0, 0), "sum"),
    8: ((IDLE[0] * P, IDLE[1] * P), "avg"),
    9: ((IDLE[0] * Fraction(6, 10) * P, IDLE[1] * Fraction(6, 10) * P), "avg"),
    10: ((IDLE[0] * Fraction(3, 10) * P, IDLE[1] * Fraction(3, 10) * P), "avg"),
    11: ((IDLE[0] * Fraction(1, 10) * P, IDLE[1] * Fraction(1, 10) * P), "avg"),
    12: ((900, 700), "sum"),
    13: ((300, 252), "sum"),
    14: ((40, 32), "sum"),
    15: (((1 - Fraction(22, 100)) * P, (1 - Fraction(31, 100)) * P), "avg"),     # inverse: 22 % and 31 %
    16: ((0, 0), "avg"),
    17: ((0, 0), "avg"),
    18: ((0, 0), "avg"),
    19: ((0, 0), "avg"),
    20: ((64, 16), "sum"),
    21: ((IDLE[0] * P, IDLE[1] * P), "sum"),
    22: ((HUNDRED_NS, HUNDRED_NS), "sum"),
    23: ((852, 640), "sum"),
    24: ((625000 * Fraction(985, 10), 625000 * Fraction(965, 10)), "sum"),
    25: ((625000, 625000), "sum"),
    26: ((625000 * Fraction(296, 10), 625000 * 44), "sum"),
    27: ((625000, 625000), "sum"),
    28: ((625000 * Fraction(118, 10), 625000 * Fraction(146, 10)), "sum"),
    29: ((0, 0), "avg"),
    30: ((0, 0), "avg"),
    31: ((0, 0), "avg"),
}
# Values at t = 0 per CPU.  Uptime about 2 days 3 hours; 32-bit counters chosen so that no value wraps.
UPTIME_100NS = 1834275 * 10 ** 6     # 183,427.5 s
BASES = {
    0: (UPTIME_100NS * 81 // 100, UPTIME_100NS * 77 // 100),
    1: (UPTIME_100NS * 11 // 100, UPTIME_100NS * 14 // 100),
    2: (UPTIME_100NS * 8 // 100, UPTIME_100NS * 9 // 100),
    3: (278654320, 190133208),
    4: (UPTIME_100NS * 6 // 1000, UPTIME_100NS * 11 // 1000),
    5: (UPTIME_100NS * 3 // 1000, UPTIME_100NS * 5 // 1000),
    6: (55123456, 31234568),
    7: (4, 2),
    8: (UPTIME_100NS * 81 // 100, UPTIME_100NS * 77 // 100),
    9: (UPTIME_100NS * 49 // 100, UPTIME_100NS * 46 // 100),
    10: (UPTIME_100NS * 24 // 100, UPTIME_100NS * 23 // 100),
    11: (UPTIME_100NS * 8 // 100, UPTIME_100NS * 8 // 100),
    12: (165087000, 128398000),
    13: (55026000, 46223000),
    14: (7336000, 5869000),
    15: (UPTIME_100NS * 74 // 100, UPTIME_100NS * 70 // 100),
    16: (0, 0),
    17: (2995, 3395),
    18: (100, 114),
    19: (0, 0),
    20: (11739360, 2934840),
    21: (UPTIME_100NS * 81 // 100, UPTIME_100NS * 77 // 100),
    22: (UPTIME_100NS, UPTIME_100NS),
    23: (156283000, 117393000),
    24: (625000 * 183427 * 97, 625000 * 183427 * 95),
    25: (1146418750, 1146418750),     # 32-bit, 625,000/s: wrapped many times since boot (NOTES §7)
    26: (625000 * 183427 * 19, 625000 * 183427 * 23),
    27: (1146418750, 1146418750),
    28: (625000 * 183427 * 8, 625000 * 183427 * 9),
    29: (0, 0),
    30: (100, 100),
    31: (0, 0),
}


def value(counter_id, instance_name, t):
    """The raw value of a counter of an instance at t seconds (t a Fraction or int)."""
    (r0, r1), how = RATES[counter_id]
    b0, b1 = BASES[counter_id]
    t = Fraction(t)
    v0 = b0 + Fraction(r0) * t
    v1 = b1 + Fraction(r1) * t
    if instance_name == "0,0":
        v = v0
    elif instance_name == "0,1":
        v = v1
    elif how == "sum":
        v = v0 + v1
    else:
        v = (v0 + v1) / 2
    if v.denominator != 1:
        raise ValueError("counter %d of %s at t=%s is not an integer" % (counter_id, instance_name, t))
    v = int(v)
    size = value_size(COUNTER[counter_id][2])
    if v >= 1 << (8 * size):
        raise ValueError("counter %d of %s at t=%s does not fit in %d bytes" % (counter_id, instance_name, t, size))
    return v


def instance_id(name):
    return dict(INSTANCES)[name]


###############################################################################################################
# Buffers
###############################################################################################################
def build_guids():
    guids = [PI_GUID] + OTHER_GUIDS
    b = Buf(width=2)
    for i, g in enumerate(guids):
        b.comment("GUID[%d] at %s: %s%s" % (i, b.o(), g, ' ("Processor Information")' if g == PI_GUID else
                                                  " (made up)"))
        b.guid(g, "GUID[%d]" % i, "(§3.1.4.1.1, [MS-DTYP] GUID)")
    head = ["guids: PerflibV2EnumerateCounterSet (Opnum 0, §3.1.4.1.1) reply lpData of the session: %d GUIDs," %
            len(guids),
            "%d bytes; the counts of this call are in GUIDs (pdwOutSize = %d)." % (16 * len(guids), len(guids)),
            "The first is \"Processor Information\"; the others are made up."]
    return b, head


def build_counterset_info():
    b = Buf()
    n = len(COUNTERS)
    b.comment("_PERF_COUNTERSET_REG_INFO (§2.2.4.1) at 0x000")
    b.guid(PI_GUID, "CounterSetGuid", "(§2.2.4.1)")
    b.u32(0, "CounterSetType", "(§2.2.4.1)")
    b.u32(100, "DetailLevel", "(novice) (§2.2.4.1)")
    b.u32(n, "NumCounters", "(§2.2.4.1)")
    b.u32(2, "InstanceType", "(multiple instances) (§2.2.4.1)")
    for k, (cid, name, ctype, attrib, detail, base) in enumerate(COUNTERS):
        b.comment('_PERF_COUNTER_REG_INFO[%d] (§2.2.4.2) at %s: "%s"' % (k, b.o(), name))
        b.u32(cid, "CounterId", "(§2.2.4.2)")
        b.u32(T[ctype], "Type", "%s (§2.2.4.2)" % ctype, hexval=True)
        an = ", ".join(v for m, v in ATTRIB_NAMES.items() if attrib & m)
        b.u64(attrib, "Attrib", ("(%s) (§2.2.4.2)" % an) if an else "(§2.2.4.2)", hexval=True)
        b.u32(detail, "DetailLevel", "(%s) (§2.2.4.2)" % ("novice" if detail == 100 else "advanced"))
        b.i32(0, "DefaultScale", "(§2.2.4.2)")
        if base == NONE:
            b.u32(NONE, "BaseCounterId", "(unused) (§2.2.4.2)", hexval=True)
        else:
            b.u32(base, "BaseCounterId", '("%s", %s) (§2.2.4.2)' % (COUNTER[base][1], COUNTER[base][2]))
        b.u32(NONE, "PerfTimeId", "(unused) (§2.2.4.2)", hexval=True)
        b.u32(NONE, "PerfFreqId", "(unused) (§2.2.4.2)", hexval=True)
        b.u32(NONE, "MultiId", "(unused) (§2.2.4.2)", hexval=True)
        b.u32(0, "AggregateFunc", "(undefined) (§2.2.4.2)")
        b.u32(0, "Reserved", "(§2.2.4.2)")
    head = ["counterset-info: PerflibV2QueryCounterSetRegistrationInfo (Opnum 1, RequestCode 1, §3.1.4.1.2",
            "Figure 1) reply lpData of the session: \"Processor Information\" {%s}," % PI_GUID,
            "multi-instance, its %d counters 0..%d with the types of NOTES §8. Base counters: 21 -> 22" % (n, n - 1),
            "(PERF_LARGE_RAW_BASE), 24 -> 25 and 26, 28 -> 27 (PERF_AVERAGE_BASE). DefaultScale 0 everywhere.",
            "Total 32 + %d*48 = %d bytes." % (n, 32 + 48 * n)]
    return b, head


def build_counter_names():
    """Counter names (RequestCode 5), Win32 dwOffset convention (from the start of the block, NOTES §3)."""
    n = len(COUNTERS)
    b = Buf()
    names = [(c[0], c[1]) for c in COUNTERS]
    raw_len = sum(2 * (len(nm) + 1) for _, nm in names)
    strings_at = 8 + 8 * n
    total = strings_at + raw_len
    total += (-total) % 8
    b.comment("_STRING_BUFFER_HEADER (§2.2.4.3) at 0x000")
    b.u32(total, "dwSize", "(§2.2.4.3)")
    b.u32(n, "dwCounters", "(§2.2.4.3)")
    off = strings_at
    for k, (cid, nm) in enumerate(names):
        b.comment("_STRING_COUNTER_HEADER[%d] (§2.2.4.4) at %s" % (k, b.o()))
        b.u32(cid, "dwCounterId", "(§2.2.4.4)")
        b.u32(off, "dwOffset", "(0x%x, Win32 convention: from the start of the block) (§2.2.4.4)" % off)
        off += 2 * (len(nm) + 1)
    b.comment("strings (UTF-16LE, NUL-terminated), packed in entry order")
    for cid, nm in names:
        b.utf16z(nm, "counter %d" % cid, "(§3.1.4.1.2 Fig. 2)")
    b.pad_to(8, what="padding", note="(uninitialized per §3.1.4.1.2; zero here)")
    assert b.off == total
    head = ["strings: PerflibV2QueryCounterSetRegistrationInfo (Opnum 1, RequestCode 5, §3.1.4.1.2 Figure 2)",
            "reply lpData of the session: the names of the %d counters of \"Processor Information\"," % n,
            "dwOffset in the Win32 convention (NOTES §3: counted from the start of the block, first string at",
            "8 + 8*%d = 0x%x). Strings packed in entry order, the block padded to a multiple of 8." % (n, strings_at),
            "Counter 29's name is made up (NOTES §8 does not name it). Total %d bytes." % total]
    return b, head


def build_instances():
    b = Buf(width=2)
    for k, (name, iid) in enumerate(INSTANCES):
        nb = 2 * (len(name) + 1)
        size = 8 + nb + ((-(8 + nb)) % 8)
        b.comment("_PERF_INSTANCE_HEADER[%d] (§2.2.4.5) at %s" % (k, b.o()))
        b.u32(size, "Size", "(8 + %d + %d padding) (§2.2.4.5)" % (nb, size - 8 - nb))
        b.u32(iid, "InstanceId", "(§2.2.4.5)", hexval=iid > 255)
        b.utf16z(name, "instance name", "(§3.1.4.1.3 Fig. 3)")
        b.pad(size - 8 - nb, "padding", "(uninitialized per §3.1.4.1.3; zero here)")
    head = ["instances: PerflibV2EnumerateCounterSetInstances (Opnum 2, §3.1.4.1.3 Figure 3) reply lpData of the",
            "session: the four instances of \"Processor Information\" on a two-CPU machine, one group:",
            ", ".join('"%s" (InstanceId 0x%x)' % (n, i) for n, i in INSTANCES) + ".",
            "Total %d bytes." % 0]   # fixed below
    head[-1] = "Total %d bytes." % sum(8 + 2 * (len(n) + 1) + ((-(8 + 2 * (len(n) + 1))) % 8) for n, _ in INSTANCES)
    return b, head


def build_identifiers(idents, head):
    """idents: list of (guid, status, counter_id, instance_id, index, name)."""
    b = Buf(width=2)
    for k, (guid, status, cid, iid, index, name) in enumerate(idents):
        nb = 2 * (len(name) + 1)
        size = 40 + nb + ((-(40 + nb)) % 8)
        b.comment("_PERF_COUNTER_IDENTIFIER[%d] (§2.2.4.6) at %s" % (k, b.o()))
        b.guid(guid, "CounterSetGuid", "(§2.2.4.6)")
        b.u32(status, "Status", "(ERROR_SUCCESS) (§2.2.4.6)" if status == 0 else "(§2.2.4.6)")
        b.u32(size, "Size", "(40 + name %d + padding %d) (§2.2.4.6)" % (nb, size - 40 - nb))
        if cid == NONE:
            b.u32(cid, "CounterId", "(wildcard: every counter, §3.1.4.1.7)", hexval=True)
        else:
            b.u32(cid, "CounterId", '("%s") (§2.2.4.6)' % COUNTER[cid][1])
        b.u32(iid, "InstanceId", "(§2.2.4.6)", hexval=iid > 255)
        b.u32(index, "Index", "(§2.2.4.6)")
        b.u32(0, "Reserved", "(§2.2.4.6)")
        b.utf16z(name, "instance name", "(wildcard, §3.1.4.1.7)" if name == "*" else "(§3.1.4.1.5 Fig. 4)")
        b.pad(size - 40 - nb, "padding", "(MUST be 0, §3.1.4.1.5)")
    return b, head + ["Total %d bytes." % b.off]


# Query layouts: a list of identifiers (counter_id or NONE, instance name) in Index order.
SESSION_QUERY = [(NONE, "*"), (0, "_Total"), (17, "*")]
HANDLE_A_QUERY = [(0, "_Total"), (3, "*")]          # single counter, then multi-instances
HANDLE_B_QUERY = [(26, "*"), (27, "*"), (17, "0,0")]  # two multi-instance blocks (value + base), one single


def identifiers_for(query, with_index):
    out = []
    for k, (cid, name) in enumerate(query):
        iid = 0 if name == "*" else instance_id(name)
        out.append((PI_GUID, 0, cid, iid, k if with_index else 0, name))
    return out


def systemtime(t100):
    dt = datetime.datetime(1601, 1, 1) + datetime.timedelta(microseconds=t100 // 10)
    return dt


def build_data(query, t, head):
    """A PerflibV2QueryCounterData reply for the query at t seconds after the first sample."""
    t = Fraction(t)
    ts = PERF_TIME_STAMP0 + int(t * PERF_FREQ)
    t100 = PERF_TIME_100NS0 + int(t * HUNDRED_NS)
    st = systemtime(t100)

    def inst_block_size(name, ncounters):
        nb = 2 * (len(name) + 1)
        return 8 + nb + ((-(8 + nb)) % 8) + 16 * ncounters

    sizes = []
    for cid, name in query:
        if cid == NONE and name == "*":        # PERF_COUNTERSET
            n = len(COUNTERS)
            mc = 8 + 4 * n + (4 if n % 2 else 0)
            mi = 8 + sum(inst_block_size(nm, n) for nm, _ in INSTANCES)
            sizes.append(16 + mc + mi)
        elif name == "*":                       # PERF_MULTI_INSTANCES
            sizes.append(16 + 8 + sum(inst_block_size(nm, 1) for nm, _ in INSTANCES))
        elif cid != NONE:                       # PERF_SINGLE_COUNTER
            sizes.append(32)
        else:
            raise ValueError("PERF_MULTI_COUNTERS is not used here")
    total = 48 + sum(sizes)

    b = Buf()
    b.comment("_PERF_DATA_HEADER (§2.2.4.7) at 0x000")
    b.u32(total, "dwTotalSize", "(§2.2.4.7)")
    b.u32(len(query), "dwNumCounter", "(blocks) (§2.2.4.7)")
    b.u64(ts, "PerfTimeStamp", "(§2.2.4.7)")
    b.u64(t100, "PerfTime100NSec", "(%s UTC) (§2.2.4.7)" % st.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3])
    b.u64(PERF_FREQ, "PerfFreq", "(§2.2.4.7)")
    b.comment("SystemTime (SYSTEMTIME) at 0x020")
    ref = "(§2.2.4.7, [MS-DTYP] SYSTEMTIME)"
    b.u16(st.year, "wYear", ref)
    b.u16(st.month, "wMonth", ref)
    b.u16((st.weekday() + 1) % 7, "wDayOfWeek", ref)
    b.u16(st.day, "wDay", ref)
    b.u16(st.hour, "wHour", ref)
    b.u16(st.minute, "wMinute", ref)
    b.u16(st.second, "wSecond", ref)
    b.u16(st.microsecond // 1000, "wMilliseconds", ref)

    def counter_data(cid, inst, label):
        ctype = COUNTER[cid][2]
        size = value_size(ctype)
        v = value(cid, inst, t)
        b.comment('%s: counter %d "%s" (%s) at %s' % (label, cid, COUNTER[cid][1], ctype, b.o()))
        b.u32(size, "dwDataSize", "(§2.2.4.9)")
        b.u32(16, "dwSize", "(8 + value area 8) (§2.2.4.9)")
        if size == 8:
            b.u64(v, "value (u64)", "(§3.1.4.1.6)")
        else:
            b.u32(v, "value (u32)", "(§3.1.4.1.6)", hexval=COUNTER[cid][3] & 0x10 != 0)
            b.pad(4, "padding", "(§3.1.4.1.6)")

    def instance_header(k, name, ncounters, where):
        nb = 2 * (len(name) + 1)
        size = 8 + nb + ((-(8 + nb)) % 8)
        b.comment("_PERF_INSTANCE_HEADER[%d] (§2.2.4.5) at %s%s" % (k, b.o(), where))
        b.u32(size, "Size", "(8 + %d + %d padding) (§2.2.4.5)" % (nb, size - 8 - nb))
        b.u32(instance_id(name), "InstanceId", "(§2.2.4.5)", hexval=instance_id(name) > 255)
        b.utf16z(name, "instance name", "(§3.1.4.1.6)")
        b.pad(size - 8 - nb, "padding", "(MUST be 0) (§3.1.4.1.6)")

    for blk, ((cid, name), size) in enumerate(zip(query, sizes)):
        if cid == NONE and name == "*":
            btype, tname = 6, "PERF_COUNTERSET"
        elif name == "*":
            btype, tname = 4, "PERF_MULTI_INSTANCES"
        else:
            btype, tname = 1, "PERF_SINGLE_COUNTER"
        b.comment("block %d (Index %d): _PERF_COUNTER_HEADER (§2.2.4.8) at %s, %s" % (blk, blk, b.o(), tname))
        b.u32(0, "dwStatus", "(ERROR_SUCCESS) (§2.2.4.8)")
        b.u32(btype, "dwType", "%s (§2.2.4.8)" % tname)
        b.u32(size, "dwSize", "(§2.2.4.8)")
        b.u32(0, "Reserved", "(§2.2.4.8)")
        if btype == 6:
            n = len(COUNTERS)
            mc = 8 + 4 * n + (4 if n % 2 else 0)
            b.comment("_PERF_MULTI_COUNTERS (§2.2.4.11) at %s" % b.o())
            b.u32(mc, "dwSize", "(8 + %d*4%s) (§2.2.4.11)" % (n, " + 4 padding" if n % 2 else ""))
            b.u32(n, "dwCounters", "(§2.2.4.11)")
            for k, c in enumerate(COUNTERS):
                b.u32(c[0], "counter id[%d]" % k, '("%s") (§2.2.4.11)' % c[1])
            if n % 2:
                b.pad(4, "padding", "(§3.1.4.1.6)")
            mi = 8 + sum(inst_block_size(nm, n) for nm, _ in INSTANCES)
            b.comment("_PERF_MULTI_INSTANCES (§2.2.4.10) at %s" % b.o())
            b.u32(mi, "dwTotalSize", "(§2.2.4.10)")
            b.u32(len(INSTANCES), "dwInstances", "(§2.2.4.10)")
            for k, (nm, _) in enumerate(INSTANCES):
                instance_header(k, nm, n, "")
                for c in COUNTERS:
                    counter_data(c[0], nm, 'instance "%s"' % nm)
        elif btype == 4:
            mi = 8 + sum(inst_block_size(nm, 1) for nm, _ in INSTANCES)
            b.comment("_PERF_MULTI_INSTANCES (§2.2.4.10) at %s" % b.o())
            b.u32(mi, "dwTotalSize", "(§2.2.4.10)")
            b.u32(len(INSTANCES), "dwInstances", "(§2.2.4.10)")
            for k, (nm, _) in enumerate(INSTANCES):
                instance_header(k, nm, 1, "")
                counter_data(cid, nm, 'instance "%s"' % nm)
        else:
            counter_data(cid, name, 'single counter, instance "%s"' % name)
    assert b.off == total, (b.off, total)
    head = head + ["PerfTimeStamp %d, PerfTime100NSec %d, PerfFreq %d: t = %s s after the first sample." %
                   (ts, t100, PERF_FREQ, float(t)), "Total %d bytes." % total]
    return b, head


def _query_lines(query):
    out = []
    for k, (cid, name) in enumerate(query):
        if cid == NONE:
            out.append("  block %d (Index %d): every counter, instance \"%s\" -> PERF_COUNTERSET (type 6)" %
                       (k, k, name))
        elif name == "*":
            out.append("  block %d (Index %d): counter %d \"%s\", instance \"*\" -> PERF_MULTI_INSTANCES (type 4)" %
                       (k, k, cid, COUNTER[cid][1]))
        else:
            out.append("  block %d (Index %d): counter %d \"%s\", instance \"%s\" -> PERF_SINGLE_COUNTER (type 1)"
                       % (k, k, cid, COUNTER[cid][1], name))
    return out


def all_buffers():
    """{file name: (kind, Buf, header lines)} of every session buffer."""
    out = {}

    def put(fname, kind, bh):
        out[fname] = (kind, bh[0], bh[1])

    put("enum-countersets.hex", "guids", build_guids())
    put("counterset-info.hex", "counterset-info", build_counterset_info())
    put("counter-names.hex", "strings", build_counter_names())
    put("instances.hex", "instances", build_instances())
    for tag, query, title in (("", SESSION_QUERY, "the session's query (handle H1)"),
                              ("handle-a-", HANDLE_A_QUERY, "handle A of the interleaved capture"),
                              ("handle-b-", HANDLE_B_QUERY, "handle B of the interleaved capture")):
        put(tag + "validate-counters.hex", "identifiers", build_identifiers(
            identifiers_for(query, False),
            ["identifiers: PerflibV2ValidateCounters (Opnum 7, §3.1.4.1.7) lpData of %s, sent by the" % title,
             "client (dwAdd = TRUE) and echoed by the server with every Status 0 (added). Index is 0: the client",
             "does not know it; PerflibV2QueryCounterInfo returns it. The identifiers, in order:"] +
            _query_lines(query)))
        put(tag + "counter-info.hex", "identifiers", build_identifiers(
            identifiers_for(query, True),
            ["identifiers: PerflibV2QueryCounterInfo (Opnum 5, §3.1.4.1.5 Figure 4) reply lpData of %s:" % title,
             "the identifiers added by PerflibV2ValidateCounters, Index = the position of the counter's block",
             "in every PerflibV2QueryCounterData reply of the handle:"] + _query_lines(query)))
    samples = {"": (0, 1), "handle-a-": (0, 1), "handle-b-": (Fraction(1, 4), Fraction(5, 4))}
    for tag, query in (("", SESSION_QUERY), ("handle-a-", HANDLE_A_QUERY), ("handle-b-", HANDLE_B_QUERY)):
        for k, t in enumerate(samples[tag]):
            title = {"": "the session's query (handle H1)", "handle-a-": "handle A of the interleaved capture",
                     "handle-b-": "handle B of the interleaved capture"}[tag]
            put("%sdata-%d.hex" % (tag, k + 1), "data", build_data(query, t, [
                "data: PerflibV2QueryCounterData (Opnum 6, §3.1.4.1.6 Figures 5-9) reply lpData, sample %d of %s."
                % (k + 1, title),
                "\"Processor Information\" values of the model in wireshark/captures/session.py; blocks in Index "
                "order:"] + _query_lines(query)))
    return out


def render(fname, kind, buf, head):
    return buf.hex_text(head)


def main(argv):
    check = "--check" in argv
    os.makedirs(SESSION_DIR, exist_ok=True)
    bad = 0
    for fname, (kind, buf, head) in sorted(all_buffers().items()):
        text = render(fname, kind, buf, head)
        path = os.path.join(SESSION_DIR, fname)
        if check:
            try:
                old = open(path, encoding="utf-8").read()
            except OSError:
                old = None
            if old != text:
                print("session.py: %s differs from what session.py writes" % path, file=sys.stderr)
                bad = 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
