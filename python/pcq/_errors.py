# SPDX-License-Identifier: MIT
"""PcqError: malformed or (in strict mode) non-conformant input."""
from typing import Any, Dict, List, Optional


class PcqError(ValueError):
    """A buffer pcq cannot decode.

    code     the pcq_status name, e.g. "PCQ_ERR_TRUNCATED" (see pcq_codec.h)
    offset   byte offset of the field blamed, in the buffer (for pcq.cook: in the input named by .input)
    field    the structure and field blamed, e.g. "_PERF_INSTANCE_HEADER.Size", or None
    message  the status text ("buffer ends inside a structure or a declared size")
    partial  pcq.decode: the object read before the error, exactly what ``pcqdump --json`` prints (with its
             "error" member); under strict=True for non-conformant input, the whole object
    partial_item  pcq.walk: the structure the error cut, with the fields read before it (a WalkItem), or None
    diagnostics   the non-conformance findings met before (a list of dicts, see pcq.decode)
    input    pcq.cook: which buffer ("info", "older", "newer", "names", "ids"), else None
    """

    def __init__(self, code: str, offset: int, field: Optional[str], message: str,
                 partial: Optional[Dict[str, Any]] = None, partial_item: Any = None,
                 diagnostics: Optional[List[Dict[str, Any]]] = None, input: Optional[str] = None) -> None:
        where = " (%s)" % field if field else ""
        prefix = "%s: " % input if input else ""
        super().__init__("%soffset 0x%x: %s%s [%s]" % (prefix, offset, message, where, code))
        self.code = code
        self.offset = offset
        self.field = field
        self.message = message
        self.partial = partial
        self.partial_item = partial_item
        self.diagnostics = diagnostics if diagnostics is not None else []
        self.input = input
