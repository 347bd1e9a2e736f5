# SPDX-License-Identifier: MIT
"""pcq.walk: the buffer one structure at a time, in wire order (pcq_walk_next)."""
import ctypes
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, Optional

from . import _lib
from ._decode import Buffer, as_bytes, kind_number, status_name, status_text
from ._errors import PcqError
from ._lib import LIB, Err, Field, Item, cstr


@dataclass(frozen=True)
class WalkItem:
    """One structure: `type` is the layout's name ("_PERF_COUNTER_HEADER", "CounterId"), `fields` its fields
    keyed by the layout's JSON key ("total_size", "system_time.year", "name", "value"; "value" too for the
    elements of a list, a GUID of the opnum 0 array or a counter ID, whose key is empty); a partial item (the structure an
    error cut) holds only the fields read before the error. Values: int, str (GUIDs lowercase, names),
    None (an absent string), bytes (a value that is not 4 or 8 bytes)."""
    type: str
    offset: int
    size: int
    extent: int
    depth: int
    index: int
    fields: Dict[str, Any] = field(default_factory=dict)
    partial: bool = False
    counter_id: Optional[int] = None   # a value in a type 2 or 6 block: the counter at its position

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def as_dict(self) -> Dict[str, Any]:
        return {"type": self.type, "offset": self.offset, "size": self.size, "extent": self.extent,
                "depth": self.depth, "index": self.index, "fields": dict(self.fields), "partial": self.partial,
                "counter_id": self.counter_id}


def _value(f: Field, data: bytes) -> Any:
    k = f.kind
    if k == _lib.V_UNSIGNED:
        return int(f.u)
    if k == _lib.V_SIGNED:
        return int(f.i)
    if k == _lib.V_GUID:
        return f.guid.decode("ascii")
    if k == _lib.V_TEXT:
        return _lib.utf16(data[f.bytes_at:f.bytes_at + f.bytes_len])
    if k == _lib.V_ABSENT:
        return None
    if k == _lib.V_BYTES:
        return data[f.bytes_at:f.bytes_at + f.bytes_len]
    if k == _lib.V_WORD:
        return cstr(f.word)
    raise AssertionError("no value")


def _item(handle: int, it: Item, data: bytes) -> WalkItem:
    fields: Dict[str, Any] = {}
    f = Field()
    for i in range(it.nfields):
        if LIB.pcqpy_walk_field(handle, i, ctypes.byref(f)) != _lib.V_NONE:
            fields[cstr(f.key) or "value"] = _value(f, data)   # a list element's key is empty
    return WalkItem(type=cstr(it.type_name) or "", offset=int(it.offset), size=int(it.size),
                    extent=int(it.extent), depth=int(it.depth), index=int(it.index), fields=fields,
                    partial=bool(it.partial), counter_id=int(it.counter_id) if it.has_counter_id else None)


def walk(kind: str, data: Buffer) -> Iterator[WalkItem]:
    """Yields each structure of data in wire order, each checked before anything inside it; when the bytes go
    wrong, raises PcqError (code, offset, field as pcq.decode; .partial_item: the structure the error cut, or
    None) after everything before the error was yielded."""
    k = kind_number(kind)
    buf = as_bytes(data)
    keep = ctypes.create_string_buffer(buf, max(len(buf), 1))   # the walk reads it until it ends
    handle = LIB.pcqpy_walk_new(k, ctypes.cast(keep, ctypes.c_void_p), len(buf))
    if not handle:
        raise MemoryError("pcq: out of memory")
    try:
        it, err = Item(), Err()
        while True:
            rc = LIB.pcqpy_walk_next(handle, ctypes.byref(it), ctypes.byref(err))
            if rc == 0:
                return
            if rc < 0:
                partial = _item(handle, it, buf) if it.type != 0 else None
                raise PcqError(status_name(rc), int(err.offset), cstr(err.field), status_text(rc),
                               partial_item=partial)
            yield _item(handle, it, buf)
    finally:
        LIB.pcqpy_walk_free(handle)
