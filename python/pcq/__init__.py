# SPDX-License-Identifier: MIT
"""pcq: [MS-PCQ] (PerflibV2) data buffers from Python, through pcq's C library.

    pcq.decode(kind, data, *, strict=False, diagnostics=None) -> dict   # == pcqdump --kind KIND --json
    pcq.validate(kind, data, *, strict=False) -> list                   # non-conformance findings
    pcq.walk(kind, data) -> iterator of WalkItem                         # step by step, then PcqError
    pcq.cook(info, older, newer, *, names=None, ids=None, ...) -> list  # == pcqdump --cook --json rows
    pcq.cook_text(info, older, newer, *, format="csv", ...) -> str      # == pcqdump --cook --format F
    pcq.PcqError, pcq.kinds(), pcq.__version__

Standard library only at run time; the C library is built by setuptools with the package.
"""
from ._cook import cook, cook_text
from ._decode import decode, kinds, validate
from ._errors import PcqError
from ._lib import LIB as _LIB
from ._walk import WalkItem, walk

__version__: str = _LIB.pcq_version_string().decode("ascii")

__all__ = ["PcqError", "WalkItem", "cook", "cook_text", "decode", "kinds", "validate", "walk", "__version__"]
