# SPDX-License-Identifier: MIT
"""pcq.cook and pcq.cook_text against pcqdump --cook: the test/cli cases and the captures' session."""
import json
import os

import pytest

import pcq
from conftest import SESSION, TOP, hexread, run_pcqdump

V = os.path.join(TOP, "vectors")
INFO = os.path.join(V, "counterset-info", "small-raw-fraction-pair.hex")
D2X3 = os.path.join(V, "data", "counterset-2x3.hex")

# The cases of the Makefile's check-cli: name, extra options, data files.
CLI = [
    ("cook-2x3", [], [D2X3, D2X3]),
    ("cook-path-chars", [], [os.path.join(V, "data", "instance-name-path-chars.hex")]),
    ("cook-names-spec", ["--names", os.path.join(V, "strings", "spec-counter-names.hex")], [D2X3, D2X3]),
    ("cook-names-win32", ["--names", os.path.join(V, "strings", "shared-text.hex")], [D2X3, D2X3]),
]
S = SESSION
SESSIONS = [
    ("session", os.path.join(S, "counterset-info.hex"), [os.path.join(S, "data-1.hex"), os.path.join(S, "data-2.hex")],
     os.path.join(S, "counter-names.hex"), os.path.join(S, "counter-info.hex")),
    ("handle-a", os.path.join(S, "counterset-info.hex"),
     [os.path.join(S, "handle-a-data-1.hex"), os.path.join(S, "handle-a-data-2.hex")],
     os.path.join(S, "counter-names.hex"), os.path.join(S, "handle-a-counter-info.hex")),
    ("handle-b", os.path.join(S, "counterset-info.hex"),
     [os.path.join(S, "handle-b-data-1.hex"), os.path.join(S, "handle-b-data-2.hex")],
     os.path.join(S, "counter-names.hex"), os.path.join(S, "handle-b-counter-info.hex")),
]


def call(info, files, names=None, ids=None, **kw):
    data = [hexread(f) for f in files]
    older, newer = (None, data[0]) if len(data) == 1 else (data[0], data[1])
    return (hexread(info), older, newer), dict(names=hexread(names) if names else None,
                                               ids=hexread(ids) if ids else None, **kw)


@pytest.mark.parametrize("case", CLI, ids=[c[0] for c in CLI])
def test_cli_cases(case):
    name, opts, files = case
    names = opts[1] if opts else None
    rc, out, _ = run_pcqdump("--cook", "--hex", "--json", "--info", INFO, *opts, *files)
    assert rc == 0
    args, kw = call(INFO, files, names)
    assert pcq.cook(*args, **kw) == json.loads(out)["values"]
    with open(os.path.join(TOP, "test", "cli", name + ".csv"), encoding="utf-8") as f:
        assert pcq.cook_text(*args, format="csv", **kw) == f.read()


@pytest.mark.parametrize("case", SESSIONS, ids=[c[0] for c in SESSIONS])
@pytest.mark.parametrize("fmt", ["json", "csv", "table", "prometheus", "influx"])
def test_session(case, fmt):
    _, info, files, names, ids = case
    opts = ["--names", names, "--ids", ids, "--set-name", "Processor Information"]
    rc, out, _ = run_pcqdump("--cook", "--hex", "--format", fmt, "--info", info, *opts, *files)
    assert rc == 0
    args, kw = call(info, files, names, ids)
    assert pcq.cook_text(*args, format=fmt, set_name="Processor Information", **kw) == out
    if fmt == "json":
        assert pcq.cook(*args, **kw) == json.loads(out)["values"]


def test_session_values():
    """The round numbers of wireshark/captures/README.md."""
    _, info, files, names, ids = SESSIONS[0]
    args, kw = call(info, files, names, ids)
    rows = pcq.cook(*args, **kw)
    got = {(r.get("name"), r.get("label") or r.get("instance")): r.get("value") for r in rows if r["status"] == "ok"}
    assert got[("% Processor Time", "0,0")] == pytest.approx(30)
    assert got[("% Processor Time", "_Total")] == pytest.approx(37.5)
    assert got[("Interrupts/sec", "0,1")] == pytest.approx(980)
    assert got[("Processor Frequency", "_Total")] == pytest.approx(3195)


def test_flags_and_one_sample():
    _, info, files, names, ids = SESSIONS[0]
    args, kw = call(info, files[1:], names, ids)
    rows = pcq.cook(*args, **kw)
    assert any(r["status"] == "PCQ_CALC_NEED_SECOND_SAMPLE" for r in rows)
    rc, out, _ = run_pcqdump("--cook", "--hex", "--json", "--cap100", "--noscale", "--x1000", "--nowrap32",
                             "--info", info, "--names", names, "--ids", ids, *files)
    args, kw = call(info, files, names, ids, cap100=True, noscale=True, x1000=True, nowrap32=True)
    assert pcq.cook(*args, **kw) == json.loads(out)["values"]


def test_unusable_input():
    bad = os.path.join(V, "data", "bad-cut-reply.hex")
    with pytest.raises(pcq.PcqError) as e:
        pcq.cook(hexread(INFO), None, hexread(bad))
    assert (e.value.input, e.value.code, e.value.offset, e.value.field) == \
        ("newer", "PCQ_ERR_TRUNCATED", 0xa0, "_PERF_INSTANCE_HEADER.Size")
    with pytest.raises(pcq.PcqError) as e:
        pcq.cook(hexread(os.path.join(V, "counterset-info", "zero-counters.hex")), None,
                 hexread(os.path.join(V, "data", "single-counter-u32.hex")))
    assert (e.value.input, e.value.code, e.value.offset) == ("newer", "PCQ_ERR_INVALID_ARG", 0x30)
    with pytest.raises(pcq.PcqError) as e:
        pcq.cook(b"\0" * 3, None, hexread(D2X3))
    assert e.value.input == "info"
    with pytest.raises(ValueError):
        pcq.cook_text(hexread(INFO), None, hexread(D2X3), format="xml")
