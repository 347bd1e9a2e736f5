# SPDX-License-Identifier: MIT
"""pcq.decode against pcqdump --json on every vector; errors, diagnostics, strict mode, arguments."""
import os
import re

import pytest

import pcq
from conftest import (TOP, expected_diags, expected_error, hexread, pcqdump_json, vector_id,
                      vectors)

VECTORS = vectors()


def test_every_vector_is_found():
    assert len(VECTORS) >= 148


@pytest.mark.parametrize("vec", VECTORS, ids=vector_id)
def test_decode_equals_pcqdump_json(vec):
    kind, path = vec
    rc, want = pcqdump_json(kind, path)
    data = hexread(path)
    err = expected_error(path)
    if err is None:
        assert rc == 0
        assert pcq.decode(kind, data) == want
        return
    assert rc == 1
    with pytest.raises(pcq.PcqError) as e:
        pcq.decode(kind, data)
    code, offset, field = err
    assert (e.value.code, e.value.offset) == (code, offset)
    if field is not None:
        assert e.value.field == field
    assert e.value.partial == want                      # pcqdump's partial object, "error" member and all
    assert want["error"] == {"code": e.value.code, "offset": e.value.offset, "field": e.value.field,
                             "message": e.value.message}


@pytest.mark.parametrize("vec", VECTORS, ids=vector_id)
def test_diagnostics_and_strict(vec):
    kind, path = vec
    if expected_error(path) is not None:
        return
    data = hexread(path)
    want = expected_diags(path)
    found = []
    obj = pcq.decode(kind, data, diagnostics=found)
    assert sorted((d["code"], d["offset"]) for d in found) == sorted(want)
    assert pcq.validate(kind, data) == found
    rc, strict_json = pcqdump_json(kind, path, strict=True)
    if not want:
        assert rc == 0 and pcq.decode(kind, data, strict=True) == obj
        return
    assert rc == 3
    with pytest.raises(pcq.PcqError) as e:
        pcq.decode(kind, data, strict=True)
    assert e.value.code == "PCQ_ERR_NONCONFORMANT"
    assert (found[0]["code"], e.value.offset) in want
    assert e.value.field == found[0]["field"]
    assert e.value.partial == strict_json == obj       # --strict --json prints the whole object
    for d in found:
        assert set(d) == {"code", "offset", "field", "message"} and d["code"].startswith("PCQ_DIAG_")


def test_kinds_and_version():
    assert pcq.kinds() == ["counterset-info", "counter-info", "strings", "string", "guid", "guids", "instances",
                           "identifiers", "data"]
    with open(os.path.join(TOP, "pcq_codec.h"), encoding="utf-8") as f:
        version = re.search(r'#define PCQ_VERSION_STRING "([^"]+)"', f.read()).group(1)
    assert pcq.__version__ == version


def test_buffers_of_any_kind():
    data = hexread(os.path.join(TOP, "vectors", "data", "counterset-2x3.hex"))
    want = pcq.decode("data", data)
    assert pcq.decode("data", bytearray(data)) == want
    assert pcq.decode("data", memoryview(data)) == want


def test_bad_arguments():
    with pytest.raises(ValueError):
        pcq.decode("nonsense", b"")
    with pytest.raises(TypeError):
        pcq.decode("data", "not bytes")
    with pytest.raises(TypeError):
        pcq.decode(1, b"")


def test_empty_and_truncated_input():
    with pytest.raises(pcq.PcqError) as e:
        pcq.decode("data", b"")
    assert e.value.code == "PCQ_ERR_TRUNCATED" and e.value.offset == 0
    assert e.value.partial["kind"] == "data" and "error" in e.value.partial
    assert str(e.value).startswith("offset 0x0: ")
    assert isinstance(e.value, ValueError)
