# SPDX-License-Identifier: MIT
"""Shared helpers: the source tree, pcqdump (PCQDUMP, else ./pcqdump at the top), hex files."""
import glob
import json
import os
import re
import subprocess
from typing import Any, Dict, List, Optional, Tuple

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PCQDUMP = os.environ.get("PCQDUMP") or os.path.join(TOP, "pcqdump")
SESSION = os.path.join(TOP, "wireshark", "captures", "session")


def hexread(path: str) -> bytes:
    """A vectors/ hex file (vectors/README.md): hex digits in pairs, whitespace, # comments."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"#[^\n]*", "", f.read())
    return bytes.fromhex("".join(text.split()))


def vectors() -> List[Tuple[str, str]]:
    """(kind, path) of every vector: the folder name is pcqdump's --kind."""
    out = []
    for path in sorted(glob.glob(os.path.join(TOP, "vectors", "*", "*.hex"))):
        out.append((os.path.basename(os.path.dirname(path)), path))
    return out


def vector_id(v: Tuple[str, str]) -> str:
    return os.path.relpath(v[1], os.path.join(TOP, "vectors"))


def expected_error(path: str) -> Optional[Tuple[str, int, Optional[str]]]:
    """(code, offset, field or None) of a malformed vector's .err, or None for a good one."""
    err = path[:-4] + ".err"
    if not os.path.exists(err):
        return None
    with open(err, encoding="utf-8") as f:
        parts = f.read().split()
    return parts[0], int(parts[1], 16), parts[2] if len(parts) > 2 else None


def expected_diags(path: str) -> List[Tuple[str, int]]:
    diag = path[:-4] + ".diag"
    if not os.path.exists(diag):
        return []
    with open(diag, encoding="utf-8") as f:
        return [(p[0], int(p[1], 16)) for p in (line.split() for line in f) if p]


def run_pcqdump(*args: str) -> Tuple[int, str, str]:
    if not os.access(PCQDUMP, os.X_OK):
        pytest.skip("no pcqdump at %s (make, or set PCQDUMP)" % PCQDUMP)
    p = subprocess.run([PCQDUMP] + list(args), capture_output=True)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def pcqdump_json(kind: str, path: str, strict: bool = False) -> Tuple[int, Dict[str, Any]]:
    rc, out, _ = run_pcqdump(*(["--strict"] if strict else []), "--json", "--hex", "--kind", kind, path)
    return rc, json.loads(out)
