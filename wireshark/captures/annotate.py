#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""annotate.py - build a byte buffer field by field with Python's struct, and write it as an annotated .hex file
in the format of vectors/README.md (one field a line: the field's bytes in hex, then '# +0xOFF name = value').

Used by session.py for the buffers under session/.  Nothing here knows the project's C encoder.
"""
import struct
import uuid as _uuid


def guid_bytes(s):
    """[MS-DTYP] GUID wire bytes of 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx': Data1-3 little-endian, Data4 as is."""
    return _uuid.UUID(s).bytes_le


class Buf:
    """A buffer and its annotation lines.  Offsets in comments are from the start of the buffer."""

    def __init__(self, width=3):
        self.data = bytearray()
        self.lines = []          # (kind, text, bytes): kind 'c' comment line, 'f' field line
        self.width = width       # hex digits of the offsets in comments

    # -- layout ---------------------------------------------------------------------------------------------
    @property
    def off(self):
        return len(self.data)

    def o(self, off=None):
        return "0x%0*x" % (self.width, self.off if off is None else off)

    def comment(self, text):
        self.lines.append(("c", text, b""))

    def field(self, raw, text, group=None):
        """Append raw bytes described by text ('name = value (§ref)'); group: hex digits per space group."""
        start = self.off
        self.data += raw
        h = raw.hex()
        if group:
            h = " ".join(h[i:i + group] for i in range(0, len(h), group))
        self.lines.append(("f", "+%s %s" % (self.o(start), text), h))
        return start

    # -- typed fields ---------------------------------------------------------------------------------------
    def u16(self, v, name, note=""):
        return self.field(struct.pack("<H", v), "%s = %s%s" % (name, v, _n(note)))

    def u32(self, v, name, note="", hexval=False):
        val = ("0x%X" % v) if hexval else str(v)
        return self.field(struct.pack("<I", v & 0xFFFFFFFF), "%s = %s%s" % (name, val, _n(note)))

    def i32(self, v, name, note=""):
        shown = str(v) if v >= 0 else "%d (0x%08X)" % (v, v & 0xFFFFFFFF)
        return self.field(struct.pack("<i", v), "%s = %s%s" % (name, shown, _n(note)))

    def u64(self, v, name, note="", hexval=False):
        val = ("0x%X" % v) if hexval else "%d (0x%x)" % (v, v) if v > 9 else str(v)
        return self.field(struct.pack("<Q", v), "%s = %s%s" % (name, val, _n(note)))

    def guid(self, s, name, note=""):
        b = guid_bytes(s)
        start = self.off
        self.field(b[0:4], "%s.Data1 = 0x%s (%s)%s" % (name, s[0:8], s, _n(note)))
        self.field(b[4:6], "%s.Data2 = 0x%s" % (name, s[9:13]))
        self.field(b[6:8], "%s.Data3 = 0x%s" % (name, s[14:18]))
        self.field(b[8:16], "%s.Data4 = %s" % (name, " ".join("%02x" % x for x in b[8:16])))
        return start

    def utf16z(self, s, name, note=""):
        raw = (s + "\x00").encode("utf-16-le")
        return self.field(raw, '%s = "%s" + NUL (%d bytes)%s' % (name, s, len(raw), _n(note)), group=4)

    def pad(self, n, what="padding", note=""):
        if n:
            self.field(b"\x00" * n, "%s (%d bytes, zero)%s" % (what, n, _n(note)))
        return n

    def pad_to(self, align, base=0, what="padding", note=""):
        n = (-(self.off - base)) % align
        return self.pad(n, what, note)

    # -- output ---------------------------------------------------------------------------------------------
    def hex_text(self, header_lines):
        out = ["# " + l if l else "#" for l in header_lines]
        out.append("#")
        for kind, text, h in self.lines:
            if kind == "c":
                out.append("# " + text)
            else:
                out.append("%-19s # %s" % (h, text) if len(h) <= 19 else "%s # %s" % (h, text))
        out.append("# end of buffer at %s (%d bytes)" % (self.o(), self.off))
        return "\n".join(out) + "\n"


def _n(note):
    return (" " + note) if note else ""
