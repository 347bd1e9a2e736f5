# SPDX-License-Identifier: MIT
"""The shared library _pcqlib (built from python/pcq/_pcqlib.c and pcq's C sources) through ctypes.

The library has no Python.h in it: it is a plain shared object named like an extension module
(``_pcqlib`` + one of ``importlib.machinery.EXTENSION_SUFFIXES``) so that setuptools builds and installs it,
and it is loaded with ``ctypes.CDLL`` from this package's directory.
"""
import ctypes
import importlib.machinery
import os
from typing import Optional


class Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int32), ("diag", ctypes.c_int32), ("offset", ctypes.c_uint64),
                ("field", ctypes.c_char_p)]


class Item(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("depth", ctypes.c_uint32), ("index", ctypes.c_uint32),
                ("partial", ctypes.c_int32), ("offset", ctypes.c_uint64), ("size", ctypes.c_uint64),
                ("extent", ctypes.c_uint64), ("nfields", ctypes.c_uint32), ("has_counter_id", ctypes.c_int32),
                ("counter_id", ctypes.c_uint32), ("type_name", ctypes.c_char_p)]


GUID_TEXT_SIZE = 37   # PCQ_GUID_TEXT_SIZE: 36 characters and the NUL


class Field(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("name", ctypes.c_char_p), ("kind", ctypes.c_int32),
                ("u", ctypes.c_uint64), ("i", ctypes.c_int64), ("guid", ctypes.c_char * GUID_TEXT_SIZE),
                ("offset", ctypes.c_uint64), ("bytes_at", ctypes.c_uint64), ("bytes_len", ctypes.c_uint64),
                ("word", ctypes.c_char_p)]


class Buf(ctypes.Structure):
    _fields_ = [("p", ctypes.c_char_p), ("len", ctypes.c_size_t), ("given", ctypes.c_int32)]


# pcq_value_kind
V_NONE, V_UNSIGNED, V_SIGNED, V_GUID, V_TEXT, V_ABSENT, V_BYTES, V_WORD = range(8)


def _find() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(here, "_pcqlib" + suffix)
        if os.path.exists(path):
            return path
    raise ImportError("pcq: the compiled library _pcqlib is missing from %s; build the package with "
                      "'pip install --no-build-isolation ./python' from pcq's source tree" % here)


def _load(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    P = ctypes.POINTER
    c_char_pp = P(ctypes.c_void_p)
    lib.pcqpy_free.argtypes = [ctypes.c_void_p]
    lib.pcqpy_free.restype = None
    lib.pcqpy_decode.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, c_char_pp, P(ctypes.c_size_t),
                                 c_char_pp, P(ctypes.c_size_t), P(ctypes.c_ulong), P(Err)]
    lib.pcqpy_decode.restype = ctypes.c_int
    lib.pcqpy_walk_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    lib.pcqpy_walk_new.restype = ctypes.c_void_p
    lib.pcqpy_walk_free.argtypes = [ctypes.c_void_p]
    lib.pcqpy_walk_free.restype = None
    lib.pcqpy_walk_next.argtypes = [ctypes.c_void_p, P(Item), P(Err)]
    lib.pcqpy_walk_next.restype = ctypes.c_int
    lib.pcqpy_walk_field.argtypes = [ctypes.c_void_p, ctypes.c_uint32, P(Field)]
    lib.pcqpy_walk_field.restype = ctypes.c_int
    lib.pcqpy_cook.argtypes = [P(Buf), ctypes.c_uint, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, c_char_pp,
                               P(ctypes.c_size_t), c_char_pp, P(ctypes.c_size_t), P(Err), P(ctypes.c_int32)]
    lib.pcqpy_cook.restype = ctypes.c_int
    for name in ("pcq_strerror", "pcq_status_name", "pcq_diag_name", "pcq_diag_text", "pcq_calc_status_name"):
        getattr(lib, name).argtypes = [ctypes.c_int]
        getattr(lib, name).restype = ctypes.c_char_p
    lib.pcq_kind_name.argtypes = [ctypes.c_int]
    lib.pcq_kind_name.restype = ctypes.c_char_p
    lib.pcq_kind_from_name.argtypes = [ctypes.c_char_p]
    lib.pcq_kind_from_name.restype = ctypes.c_int
    lib.pcq_version_string.argtypes = []
    lib.pcq_version_string.restype = ctypes.c_char_p
    lib.pcq_utf16_to_utf8.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t,
                                      ctypes.c_void_p]
    lib.pcq_utf16_to_utf8.restype = ctypes.c_size_t
    return lib


LIB = _load(_find())


def take_text(p: ctypes.c_void_p, n: ctypes.c_size_t) -> str:
    """The n bytes the library allocated at p, as text; released."""
    if not p.value:
        return ""
    try:
        return ctypes.string_at(p.value, n.value).decode("utf-8")
    finally:
        LIB.pcqpy_free(p)


def cstr(p: Optional[bytes]) -> Optional[str]:
    return None if p is None else p.decode("ascii", "replace")


def utf16(data: bytes) -> str:
    """UTF-16LE to str as the library converts it (an unpaired surrogate becomes U+FFFD)."""
    need = LIB.pcq_utf16_to_utf8(data, len(data), None, 0, None)
    out = ctypes.create_string_buffer(need + 1)
    LIB.pcq_utf16_to_utf8(data, len(data), out, need + 1, None)
    return out.raw[:need].decode("utf-8")
