# SPDX-License-Identifier: MIT
"""pcq.walk: every vector; malformed ones yield and then raise; every prefix of a good one."""
import os

import pytest

import pcq
from conftest import TOP, expected_error, hexread, vector_id, vectors

VECTORS = vectors()
LAYOUT_NAMES = {"_PERF_COUNTERSET_REG_INFO", "_PERF_COUNTER_REG_INFO", "_STRING_BUFFER_HEADER", "_STRING_COUNTER_HEADER",
                "String", "GUID", "_PERF_INSTANCE_HEADER", "_PERF_COUNTER_IDENTIFIER", "_PERF_DATA_HEADER",
                "_PERF_COUNTER_HEADER", "_PERF_MULTI_COUNTERS", "CounterId", "_PERF_MULTI_INSTANCES",
                "_PERF_COUNTER_DATA"}


def walk_all(kind, data):
    items = []
    try:
        for it in pcq.walk(kind, data):
            items.append(it)
    except pcq.PcqError as e:
        return items, e
    return items, None


@pytest.mark.parametrize("vec", VECTORS, ids=vector_id)
def test_walk_vector(vec):
    kind, path = vec
    data = hexread(path)
    items, err = walk_all(kind, data)
    want = expected_error(path)
    if want is None:
        assert err is None
        assert not data or (items[0].offset == 0 and items[0].depth == 0)
    else:
        code, offset, field = want
        assert err is not None
        assert (err.code, err.offset) == (code, offset)
        if field is not None:
            assert err.field == field
        if err.partial_item is not None:
            assert err.partial_item.partial and err.partial_item.type in LAYOUT_NAMES
    for it in items:
        assert not it.partial
        assert it.type in LAYOUT_NAMES
        assert it.offset + it.size <= len(data)


def test_walk_fields_match_decode():
    data = hexread(os.path.join(TOP, "vectors", "data", "counterset-2x3.hex"))
    items = list(pcq.walk("data", data))
    obj = pcq.decode("data", data)
    head = items[0]
    assert head.type == "_PERF_DATA_HEADER" and head["depth"] == 0
    assert head.fields["total_size"] == obj["total_size"] == len(data)
    assert head.fields["system_time.year"] == obj["system_time"]["year"]
    blocks = [it for it in items if it.type == "_PERF_COUNTER_HEADER"]
    assert [b.fields["type"] for b in blocks] == [b["type"] for b in obj["blocks"]]
    names = [it.fields["name"] for it in items if it.type == "_PERF_INSTANCE_HEADER"]
    assert names == [i["name"] for b in obj["blocks"] for i in b.get("instances", [])]
    values = [it for it in items if it.type == "_PERF_COUNTER_DATA"]
    assert all(isinstance(v.fields["value"], int) for v in values)
    assert head.as_dict()["fields"] == head.fields


def prefix_lengths(n):
    if n <= 600:
        return range(n)
    step = max(1, n // 400)
    return sorted(set(range(0, n, step)) | set(range(max(0, n - 64), n)))


@pytest.mark.parametrize("vec", [v for v in VECTORS if expected_error(v[1]) is None], ids=vector_id)
def test_walk_prefixes(vec):
    """On a proper prefix of a good buffer the walk yields the whole buffer's items that come before the
    cut, unchanged, then raises with an offset inside the prefix (docs/decisions.md D13), the error
    pcq.decode raises; or, when the prefix is itself a whole buffer (an array cut between elements, trailing
    bytes cut off), ends cleanly where pcq.decode succeeds."""
    kind, path = vec
    data = hexread(path)
    full, err = walk_all(kind, data)
    assert err is None
    for n in prefix_lengths(len(data)):
        items, e = walk_all(kind, data[:n])
        assert items == full[:len(items)]
        if e is None:
            pcq.decode(kind, data[:n])
            continue
        assert e.offset < max(n, 1)
        with pytest.raises(pcq.PcqError) as d:
            pcq.decode(kind, data[:n])
        assert (d.value.code, d.value.offset, d.value.field) == (e.code, e.offset, e.field)
