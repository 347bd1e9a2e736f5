# SPDX-License-Identifier: MIT
"""pcq.cook and pcq.cook_text: pcqdump --cook on buffers (pcq_cook_print, the same C function)."""
import ctypes
import json
from typing import Any, Dict, List, Optional

from ._decode import Buffer, as_bytes, status_name, status_text
from ._errors import PcqError
from ._lib import LIB, Buf, Err, cstr, take_text

INPUTS = ("info", "older", "newer", "names", "ids")
FORMATS = ("table", "csv", "json", "prometheus", "influx")

# PCQ_CALC_* flags (pcq_codec.h)
NOSCALE, NOCAP100, X1000, NOWRAP32 = 0x1, 0x2, 0x4, 0x8


def _flags(cap100: bool, noscale: bool, x1000: bool, nowrap32: bool) -> int:
    f = 0 if cap100 else NOCAP100   # pcqdump's default: like perfmon, 400 % stays 400 %
    if noscale:
        f |= NOSCALE
    if x1000:
        f |= X1000
    if nowrap32:
        f |= NOWRAP32
    return f


def cook_text(info: Buffer, older: Optional[Buffer], newer: Buffer, *, format: str = "table",
              names: Optional[Buffer] = None, ids: Optional[Buffer] = None, set_name: Optional[str] = None,
              host: Optional[str] = None, cap100: bool = False, noscale: bool = False, x1000: bool = False,
              nowrap32: bool = False) -> str:
    """What ``pcqdump --cook --format FORMAT`` prints for these buffers: "table", "csv" (typeperf's
    "(PDH-CSV 4.0)" layout), "json", "prometheus" or "influx". Unusable input raises PcqError (.input names
    the buffer); the PERF_SAMPLE_BASE warnings pcqdump writes on standard error are dropped."""
    if format not in FORMATS:
        raise ValueError("unknown format %r; one of %s" % (format, ", ".join(FORMATS)))
    given = [info, older, newer, names, ids]
    data = [None if b is None else as_bytes(b, INPUTS[i]) for i, b in enumerate(given)]
    if data[0] is None or data[2] is None:
        raise TypeError("info and newer are required")
    bufs = (Buf * 5)()
    for i, b in enumerate(data):
        if b is not None:
            bufs[i].p, bufs[i].len, bufs[i].given = b, len(b), 1
    out, on = ctypes.c_void_p(), ctypes.c_size_t()
    msg, mn = ctypes.c_void_p(), ctypes.c_size_t()
    err, which = Err(), ctypes.c_int32()
    rc = LIB.pcqpy_cook(bufs, _flags(cap100, noscale, x1000, nowrap32), FORMATS.index(format),
                        None if set_name is None else set_name.encode("utf-8"),
                        None if host is None else host.encode("utf-8"), ctypes.byref(out), ctypes.byref(on),
                        ctypes.byref(msg), ctypes.byref(mn), ctypes.byref(err), ctypes.byref(which))
    text, _messages = take_text(out, on), take_text(msg, mn)
    if rc == 1:
        name = INPUTS[which.value] if 0 <= which.value < len(INPUTS) else None
        raise PcqError(status_name(err.code), int(err.offset), cstr(err.field), status_text(err.code),
                       input=name)
    if rc != 0:
        raise MemoryError("pcq: out of memory")
    return text


def cook(info: Buffer, older: Optional[Buffer], newer: Buffer, *, names: Optional[Buffer] = None,
         ids: Optional[Buffer] = None, cap100: bool = False, noscale: bool = False, x1000: bool = False,
         nowrap32: bool = False) -> List[Dict[str, Any]]:
    """The rows ``pcqdump --cook --json`` lists, as dicts: counter_id, name (with names), instance,
    instance_id, dup_index and label (duplicates), aggregate and instances (aggregate rows), type, status
    ("ok" or a PCQ_CALC_* name), value (when ok), wrapped / capped. older may be None (one sample)."""
    text = cook_text(info, older, newer, format="json", names=names, ids=ids, cap100=cap100, noscale=noscale,
                     x1000=x1000, nowrap32=nowrap32)
    rows: List[Dict[str, Any]] = json.loads(text)["values"]
    return rows
