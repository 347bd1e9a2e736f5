#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""compare.py - check what tshark with the pcq plugin shows of each capture against pcqdump.

    compare.py --tshark "CMD" --pcqdump PATH [--two-pass] [--manifest M] [--stderr-log F] [CAPTURE.pcap ...]

For every call of every capture in manifest.json (wireshark/captures/), tshark's PDML is read and, for
each lpData buffer (the reply's; opnum 7: the request's too), the pcq.* fields in wire order are compared
with `pcqdump --json` run on the exact lpData bytes of the manifest: every counter id, counter type, raw
value, instance name and id, string, counterset GUID, and the RequestCode of opnum 1 (request and, tracked,
reply). A malformed buffer must show pcq.malformed at the codec's error offset (its position minus
lpData's), after the fields before the error; each diagnostic pcqdump reports must show as
pcq.nonconformant at its offset. For each opnum 6 reply with an earlier sample of the same query handle,
pcq.counter.cooked must equal `pcqdump --cook --json` (info, older, newer, ids: what the capture holds
before it) at tshark's precision (%.15g); the first sample of a handle must have none.

stdlib only. Prints one line per failure and ends with `compare: N passed, N failed`; exit 1 on a failure.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MANIFEST = os.path.join(HERE, "..", "captures", "manifest.json")
STDERR_LOG = None  # --stderr-log: tshark's standard error is appended there (sanitizer reports)

# The public fields compared with pcqdump's JSON.
FIELDS = ("pcq.counter.id", "pcq.counter.type", "pcq.counter.value", "pcq.counter.data", "pcq.instance.name",
          "pcq.instance.id", "pcq.string", "pcq.counterset")


class Checks:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s" % what)
        return ok


# ---------------------------------------------------------------------------------------------------------
# pcqdump
# ---------------------------------------------------------------------------------------------------------
def must_escape(cp):
    """The code points the plugin (and pcqdump) never shows raw: controls, DEL, bidi formatting."""
    return (cp < 0x20 or cp == 0x7F or 0x80 <= cp <= 0x9F or cp in (0x061C, 0x200E, 0x200F)
            or 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069)


def escaped(s):
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif must_escape(ord(ch)):
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def json_fields(kind, doc):
    """pcqdump's JSON as (abbrev, value) in document order, which is wire order."""
    out = []

    def walk(node, parent_key):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "error":
                    continue
                if isinstance(v, (dict, list)):
                    walk(v, k)
                    continue
                ab = None
                if k == "counter_id":
                    ab = "pcq.counter.id"
                elif k == "type" and parent_key in ("counters", "counter"):
                    ab = "pcq.counter.type"
                elif k == "value" and parent_key in ("value", "values"):
                    ab = "pcq.counter.value"
                elif k == "hex" and parent_key in ("value", "values"):
                    ab = "pcq.counter.data"
                elif k == "instance_id":
                    ab = "pcq.instance.id"
                elif k == "name" and parent_key in ("instances", "identifiers"):
                    ab = "pcq.instance.name"
                elif k == "text":
                    ab = "pcq.string"
                elif k == "guid" and kind != "guid":
                    ab = "pcq.counterset"
                if ab and v is not None:
                    out.append((ab, v))
        elif isinstance(node, list):
            for v in node:
                if isinstance(v, (dict, list)):
                    walk(v, parent_key)
                elif parent_key == "counter_ids":
                    out.append(("pcq.counter.id", v))
                elif parent_key == "guids":
                    out.append(("pcq.counterset", v))

    walk(doc, None)
    return out


def run_pcqdump(pcqdump, kind, data):
    p = subprocess.run([pcqdump, "--json", "--kind", kind, "-"], input=data, capture_output=True)
    doc = json.loads(p.stdout.decode("utf-8"))
    diags = [int(m.group(1), 16) for m in re.finditer(r"offset 0x([0-9a-f]+): warning:", p.stderr.decode())]
    return doc, diags


def norm(ab, v):
    """A value as both sides can be compared."""
    if ab in ("pcq.counter.id", "pcq.counter.type", "pcq.counter.value", "pcq.instance.id"):
        return int(v, 0) if isinstance(v, str) else int(v)
    if ab == "pcq.counter.data":
        return v.replace(":", "").lower()
    if ab == "pcq.counterset":
        return v.lower()
    return v


# ---------------------------------------------------------------------------------------------------------
# tshark
# ---------------------------------------------------------------------------------------------------------
def tshark_pdus(cmd, path, opts, two_pass):
    """The pcq protocol elements of the capture, in order: (frame, pkt_type, element)."""
    args = shlex.split(cmd) + ["-n", "-r", path] + opts + (["-2"] if two_pass else []) + ["-T", "pdml"]
    p = subprocess.run(args, capture_output=True)
    if STDERR_LOG:
        with open(STDERR_LOG, "ab") as f:
            f.write(p.stderr)
    if p.returncode != 0:
        raise RuntimeError("tshark exited %d: %s" % (p.returncode, p.stderr.decode()[-500:]))
    root = ET.fromstring(p.stdout)
    bad = [f.get("show") for f in root.iter("field") if f.get("name") == "_ws.expert.message"
           and any(w in (f.get("show") or "") for w in ("Exception occurred", "Dissector bug", "Long frame"))]
    if bad:
        raise RuntimeError("%d dissection exceptions or unparsed stub bytes, first: %s" % (len(bad), bad[0]))
    pdus = []
    for pkt in root.iter("packet"):
        frame, ptype = None, None
        for el in pkt.iter():
            name = el.get("name")
            if el.tag == "field" and name == "frame.number":
                frame = int(el.get("show"))
            elif el.tag == "field" and name == "dcerpc.pkt_type":
                ptype = int(el.get("show"))
            elif el.tag == "proto" and name == "pcq":
                pdus.append((frame, ptype, el))
    return pdus


def child_fields(el, name):
    return [f for f in el.iter("field") if f.get("name") == name]


def lpdata_of(pcq):
    """The pcq.lpdata element of a pcq proto (None if absent)."""
    found = child_fields(pcq, "pcq.lpdata")
    return found[0] if found else None


def tshark_fields(lp):
    out = []
    for f in lp.iter("field"):
        ab = f.get("name")
        if ab in FIELDS:
            v = f.get("show") if ab != "pcq.counter.data" else f.get("value")
            out.append((ab, v))
    return out


def experts(lp, name):
    """(position of the expert item) of each expert `name` under lp."""
    out = []
    for e in lp.iter("field"):
        if e.get("name") != "_ws.expert":
            continue
        if any(c.get("name") == name for c in e):
            out.append(int(e.get("pos")))
    return out


# ---------------------------------------------------------------------------------------------------------
# One buffer
# ---------------------------------------------------------------------------------------------------------
def compare_buffer(ck, where, lp, call, pcqdump):
    if not ck.check(lp is not None, "%s: no pcq.lpdata" % where):
        return
    data = bytes.fromhex(call["lpdata_hex"])
    doc, diags = run_pcqdump(pcqdump, call["kind"], data)
    want = [(ab, norm(ab, v)) for ab, v in json_fields(call["kind"], doc)]
    want = [(ab, escaped(v) if ab in ("pcq.string", "pcq.instance.name") else v) for ab, v in want]
    got = [(ab, norm(ab, v)) for ab, v in tshark_fields(lp)]
    if not ck.check(got == want, "%s (%s): fields differ from pcqdump --json" % (where, call["source"])):
        for k in range(max(len(got), len(want))):
            g = got[k] if k < len(got) else None
            w = want[k] if k < len(want) else None
            if g != w:
                print("    first difference at field %d: tshark %r, pcqdump %r" % (k, g, w))
                break
    base = int(lp.get("pos"))
    mal = experts(lp, "pcq.malformed")
    if "error" in doc:
        off = min(doc["error"]["offset"], len(data))
        ck.check(mal == [base + off], "%s (%s): pcq.malformed at %s, want lpData+%d" % (
            where, call["source"], [m - base for m in mal], off))
    else:
        ck.check(not mal, "%s (%s): pcq.malformed on a well-formed buffer" % (where, call["source"]))
    non = [p - base for p in experts(lp, "pcq.nonconformant")]
    ck.check(non == diags, "%s (%s): pcq.nonconformant at %s, pcqdump says %s" % (where, call["source"], non, diags))


# ---------------------------------------------------------------------------------------------------------
# Cooked values
# ---------------------------------------------------------------------------------------------------------
_valid = {}


def valid(pcqdump, call):
    """pcqdump decodes the call's lpData without an error (diagnostics allowed)."""
    key = (call["kind"], call["lpdata_hex"])
    if key not in _valid:
        p = subprocess.run([pcqdump, "--kind", call["kind"], "-"], input=bytes.fromhex(call["lpdata_hex"]),
                           capture_output=True)
        _valid[key] = p.returncode == 0
    return _valid[key]


def added_ids(pcqdump, calls):
    """Without an opnum 5 reply: the identifiers the handle's opnum 7 calls added (dwAdd 1, Status 0), with
    Index set to the order they were added in (docs/decisions.md D18), as an opnum 5 reply would carry
    them. None when there are none, or a call removes counters (dwAdd 0), which this test does not model."""
    out = bytearray()
    n = 0
    for c in calls:
        if c["opnum"] != 7 or not valid(pcqdump, c):
            continue
        if not c["add"]:
            return None
        b, o = bytes.fromhex(c["lpdata_hex"]), 0
        while o + 40 <= len(b):
            status, size = int.from_bytes(b[o + 16:o + 20], "little"), int.from_bytes(b[o + 20:o + 24], "little")
            if status == 0:
                entry = bytearray(b[o:o + size])
                entry[32:36] = n.to_bytes(4, "little")
                n += 1
                out += entry
            o += size
    return bytes(out) if out else None


def expected_cooked(pcqdump, calls, k):
    """pcqdump --cook for call k (opnum 6) from what the capture holds before it, as the plugin gathers it:
    the handle's latest well-formed opnum 5 reply and data sample since it was opened, the latest
    well-formed counterset-info of the counterset. [] when it cannot be cooked, None when the inputs are
    not what this test models (no opnum 5 reply: the plugin then uses opnum 7's)."""
    call = calls[k]
    start = max([j for j in range(k) if calls[j]["opnum"] in (3, 4) and calls[j]["handle"] == call["handle"]],
                default=-1)
    mine = [c for c in calls[start + 1:k] if c["handle"] == call["handle"]]
    older = [c for c in mine if c["opnum"] == 6 and valid(pcqdump, c)]
    ids = [c for c in mine if c["opnum"] == 5 and valid(pcqdump, c) and c["lpdata_len"]]
    if ids:
        idb = bytes.fromhex(ids[-1]["lpdata_hex"])
    else:
        idb = added_ids(pcqdump, mine)
        if idb is None:
            return None
    if not older or not valid(pcqdump, call):
        return []
    guid = idb[:16].hex()
    infos = [c for c in calls[:k] if c["opnum"] == 1 and c["request_code"] == 1 and valid(pcqdump, c)
             and c["lpdata_hex"][:32] == guid]
    if not infos:
        return []
    with tempfile.TemporaryDirectory() as d:
        files = []
        for name, b in (("info", infos[-1]["lpdata_hex"]), ("old", older[-1]["lpdata_hex"]),
                        ("new", call["lpdata_hex"]), ("ids", idb.hex())):
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(bytes.fromhex(b))
            files.append(path)
        p = subprocess.run([pcqdump, "--cook", "--json", "--info", files[0], files[1], files[2], "--ids", files[3]],
                           capture_output=True)
    if p.returncode != 0:
        return []
    rows = json.loads(p.stdout.decode())["values"]
    return [r["value"] for r in rows if r["status"] == "ok"]


def compare_cooked(ck, where, lp, want):
    got = [float(f.get("show")) for f in child_fields(lp, "pcq.counter.cooked")]
    if want is None:
        return
    ok = len(got) == len(want) and all("%.15g" % g == "%.15g" % w for g, w in zip(got, want))
    if not ck.check(ok, "%s: %d cooked values, pcqdump --cook gives %d" % (
            where, len(got), len(want))):
        for g, w in zip(got, want):
            if "%.15g" % g != "%.15g" % w:
                print("    first difference: tshark %.17g, pcqdump %.17g" % (g, w))
                break


# ---------------------------------------------------------------------------------------------------------
# One capture
# ---------------------------------------------------------------------------------------------------------
def compare_capture(ck, args, cap, folder):
    path = os.path.join(folder, cap["file"])
    mode = "-2" if args.two_pass else "1 pass"
    try:
        pdus = tshark_pdus(args.tshark, path, cap["tshark"], args.two_pass)
    except (RuntimeError, ET.ParseError) as e:
        ck.check(False, "%s (%s): %s" % (cap["file"], mode, e))
        return
    reqs = [p for p in pdus if p[1] == 0]
    reps = [p for p in pdus if p[1] == 2]
    calls = cap["calls"]
    if not ck.check(len(reqs) == len(calls) and len(reps) == len(calls),
                    "%s (%s): %d requests and %d replies dissected, manifest has %d calls" % (
                        cap["file"], mode, len(reqs), len(reps), len(calls))):
        return
    for k, call in enumerate(calls):
        (qf, _, q), (rf, _, r) = reqs[k], reps[k]
        where = "%s (%s) call %d opnum %d frames %d/%d" % (cap["file"], mode, k, call["opnum"], qf, rf)
        ops = [int(f.get("show")) for f in child_fields(q, "pcq.opnum") + child_fields(r, "pcq.opnum")]
        if not ck.check(ops == [call["opnum"]] * 2, "%s: opnums %s" % (where, ops)):
            continue
        if call["opnum"] == 1:
            codes = [int(f.get("show")) for f in child_fields(q, "pcq.request_code") + child_fields(r, "pcq.request_code")]
            ck.check(codes == [call["request_code"]] * 2, "%s: pcq.request_code %s" % (where, codes))
        if call["kind"] is None:
            continue
        if call["opnum"] == 7:
            compare_buffer(ck, where + " request", lpdata_of(q), call, args.pcqdump)
        compare_buffer(ck, where + " reply", lpdata_of(r), call, args.pcqdump)
        if call["opnum"] == 6 and lpdata_of(r) is not None:
            compare_cooked(ck, where, lpdata_of(r), expected_cooked(args.pcqdump, calls, k))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tshark", required=True, help="the tshark command line (shell words)")
    ap.add_argument("--pcqdump", required=True)
    ap.add_argument("--manifest", default=DEFAULT_MANIFEST)
    ap.add_argument("--two-pass", action="store_true")
    ap.add_argument("--stderr-log", help="append tshark's standard error to this file")
    ap.add_argument("captures", nargs="*")
    args = ap.parse_args()
    global STDERR_LOG
    STDERR_LOG = args.stderr_log
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    folder = os.path.dirname(os.path.abspath(args.manifest))
    ck = Checks()
    for cap in manifest["captures"]:
        if args.captures and cap["file"] not in [os.path.basename(c) for c in args.captures]:
            continue
        compare_capture(ck, args, cap, folder)
    print("compare: %d passed, %d failed" % (ck.passed, ck.failed))
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
