#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hexvec.py - read a vectors/ .hex file (the format of vectors/README.md) into bytes.

The format: hex digits, whitespace ignored, '#' starts a comment to the end of the line (LF or CR), and lines
starting with '#!' are directives ('#! canonical', '#! prefix-ok', '#! convention: spec').  As in the
project's own reader (tools/pcqdump/hexread.c), every run of digits must have an even length, so a byte never
spans whitespace or a comment; anything else is an error.

    from hexvec import read_hex, read_hex_file
    data = read_hex_file("vectors/data/processor-information.hex")

Command line: hexvec.py FILE...  prints each file's length and bytes as one hex string.
"""
import re
import sys

_HEXDIGITS = set("0123456789abcdefABCDEF")
_SPACE = " \t\n\r\v\f"


class HexError(ValueError):
    pass


def read_hex(text, name="<text>"):
    """Bytes of a .hex text. Raises HexError (with line and column) on an odd run or a non-hex character."""
    out = bytearray()
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _SPACE:
            i += 1
        elif c == "#":
            while i < n and text[i] not in "\r\n":
                i += 1
        else:
            j = i
            while j < n and text[j] in _HEXDIGITS:
                j += 1
            if j == i or (j < n and text[j] not in _SPACE and text[j] != "#"):
                bad = j if j > i else i
                raise HexError("%s:%s: not a hex digit %r" % (name, _where(text, bad), text[bad]))
            if (j - i) % 2:
                raise HexError("%s:%s: odd number of hex digits" % (name, _where(text, i)))
            out += bytes.fromhex(text[i:j])
            i = j
    return bytes(out)


def directives(text):
    """The '#!' directive lines of a .hex text, without the '#!' and surrounding blanks."""
    return [m.group(1).strip() for m in re.finditer(r"^[ \t]*#!(.*)$", text, re.M)]


def read_hex_file(path):
    with open(path, "r", encoding="utf-8") as f:
        return read_hex(f.read(), path)


def _where(text, pos):
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return "%d:%d" % (line, col)


if __name__ == "__main__":
    rc = 0
    for p in sys.argv[1:]:
        try:
            b = read_hex_file(p)
            print("%s: %d bytes\n%s" % (p, len(b), b.hex()))
        except (OSError, HexError) as e:
            print("hexvec: %s" % e, file=sys.stderr)
            rc = 1
    sys.exit(rc)
