# SPDX-License-Identifier: MIT
"""pcq.decode, pcq.validate, pcq.kinds: pcqdump --json through the library's own emitter."""
import ctypes
import json
from typing import Any, Dict, List, Optional, Tuple, Union

from ._errors import PcqError
from ._lib import LIB, Err, cstr, take_text

Buffer = Union[bytes, bytearray, memoryview]

PCQ_ERR_NONCONFORMANT = -30
PCQ_ERR_INVALID_ARG = -41


def kinds() -> List[str]:
    """The buffer kinds, as pcqdump's --kind names them: "counterset-info", ..., "data"."""
    out: List[str] = []
    k = 1
    while True:
        name = LIB.pcq_kind_name(k).decode("ascii")
        if name == "none":
            return out
        out.append(name)
        k += 1


def kind_number(kind: str) -> int:
    if not isinstance(kind, str):
        raise TypeError("kind must be a str such as 'data', not %s" % type(kind).__name__)
    k = LIB.pcq_kind_from_name(kind.encode("ascii", "replace"))
    if k == 0:
        raise ValueError("unknown kind %r; one of %s" % (kind, ", ".join(kinds())))
    return k


def as_bytes(data: Buffer, what: str = "data") -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    raise TypeError("%s must be bytes, bytearray or memoryview, not %s" % (what, type(data).__name__))


def status_name(code: int) -> str:
    return LIB.pcq_status_name(code).decode("ascii")


def status_text(code: int) -> str:
    return LIB.pcq_strerror(code).decode("ascii")


def _run(kind: str, data: Buffer) -> Tuple[int, Dict[str, Any], List[Dict[str, Any]], int, Err]:
    k = kind_number(kind)
    buf = as_bytes(data)
    js, jn = ctypes.c_void_p(), ctypes.c_size_t()
    ds, dn = ctypes.c_void_p(), ctypes.c_size_t()
    count = ctypes.c_ulong()
    err = Err()
    rc = LIB.pcqpy_decode(k, buf, len(buf), ctypes.byref(js), ctypes.byref(jn), ctypes.byref(ds),
                          ctypes.byref(dn), ctypes.byref(count), ctypes.byref(err))
    text, diag_text = take_text(js, jn), take_text(ds, dn)
    if rc == -40 and not text:   # PCQ_ERR_BUFFER_TOO_SMALL: the memory stream failed
        raise MemoryError("pcq: out of memory")
    obj = json.loads(text)
    diags = [json.loads(line) for line in diag_text.splitlines() if line]
    return rc, obj, diags, count.value, err


def decode(kind: str, data: Buffer, *, strict: bool = False,
           diagnostics: Optional[List[Dict[str, Any]]] = None) -> Dict[str, Any]:
    """The object ``pcqdump --kind KIND --json [--strict]`` prints for data.

    Malformed input raises PcqError (.code, .offset, .field, .message; .partial is pcqdump's partial
    object, "error" member included). Non-conformant input is decoded; each finding is appended to
    `diagnostics` (when a list is given) as {"code": "PCQ_DIAG_...", "offset", "field", "message"}; with
    strict=True the first finding raises PcqError with code "PCQ_ERR_NONCONFORMANT" instead (a malformed
    part later in the buffer wins, as pcqdump's exit status 1 does over 3).
    """
    rc, obj, diags, count, err = _run(kind, data)
    if diagnostics is not None:
        diagnostics.extend(diags)
    if rc < 0:
        raise PcqError(status_name(rc), int(err.offset), cstr(err.field), status_text(rc), partial=obj,
                       diagnostics=diags)
    if strict and count > 0:
        first = [d for d in diags if d["code"] != "PCQ_DIAG_CHECK_SKIPPED"][0]
        raise PcqError(status_name(PCQ_ERR_NONCONFORMANT), first["offset"], first["field"],
                       status_text(PCQ_ERR_NONCONFORMANT), partial=obj, diagnostics=diags)
    return obj


def validate(kind: str, data: Buffer, *, strict: bool = False) -> List[Dict[str, Any]]:
    """The non-conformance findings of data (an empty list for a conformant buffer), as pcq.decode reports
    them; raises PcqError as pcq.decode does."""
    found: List[Dict[str, Any]] = []
    decode(kind, data, strict=strict, diagnostics=found)
    return found
