#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""build_manifest.py - write manifest.json: every capture, its transport, port, credentials and its calls in
order, each with the exact lpData bytes it carries (read from vectors/ and session/ with hexvec.py).

    build_manifest.py [--check]

manifest.json is the single scenario both perflib_server.py and perflib_client.py play, and what
verify_captures.py (and the dissector's tests) compare the captures with.
"""
import json
import os
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from hexvec import read_hex_file  # noqa: E402
import pcq_idl  # noqa: E402

MANIFEST = os.path.join(HERE, "manifest.json")

NTLM = {"type": "ntlm-privacy", "user": "pcquser", "password": "Pcq-Test-2024", "domain": "PCQLAB",
        "auth_type": 10, "auth_level": 6}
NO_AUTH = {"type": "none"}
SZ_MACHINE = "\\\\PCQTEST-SRV"
PI_GUID = "b4fc721a-0378-476f-89ba-a5a79f810b36"
LCID_EN_US = 0x0409

KIND_ORDER = ["guids", "counterset-info", "counter-info", "strings", "string", "guid", "instances",
              "identifiers", "data"]


def rel(path):
    return os.path.relpath(path, REPO).replace(os.sep, "/")


def handle_hex(capture, handle):
    """A context handle: attributes 0 and a UUID fixed by the capture and handle names (repeatable)."""
    u = uuid.uuid5(uuid.NAMESPACE_URL, "pcq-capture:%s:%s" % (capture, handle))
    return (b"\0\0\0\0" + u.bytes_le).hex()


def roundup(n, m):
    return (n + m - 1) // m * m


class Calls:
    """Collects the calls of one capture in order."""

    def __init__(self, capture):
        self.capture = capture
        self.calls = []

    def add(self, conv, opnum, **kw):
        c = {
            "index": len(self.calls),
            "conversation": conv,
            "opnum": opnum,
            "method": pcq_idl.OPNUM_NAMES[opnum],
            "request_code": None,
            "lpdata_direction": None,
            "kind": None,
            "source": None,
            "lpdata_hex": None,
            "lpdata_len": None,
            "handle": None,
            "handle_hex": None,
            "status": 0,
            "delay_before": 0,
        }
        if opnum in (0, 1, 2, 3):
            c["szMachine"] = SZ_MACHINE
        c.update(kw)
        if c["handle"] is not None:
            c["handle_hex"] = handle_hex(self.capture, c["handle"])
        self.calls.append(c)
        return c

    def with_data(self, conv, opnum, source, kind, in_size=None, **kw):
        data = read_hex_file(os.path.join(REPO, source))
        if opnum == 0:
            count = (len(data) + 15) // 16     # GUIDs; a ragged buffer's count is rounded up
            kw.setdefault("out_size", count)
            kw.setdefault("rtn_size", count)
            in_size = count + 1 if in_size is None else in_size
        elif opnum == 7:
            in_size = len(data)
        else:
            kw.setdefault("out_size", len(data))
            kw.setdefault("rtn_size", len(data))
            in_size = (roundup(len(data), 64) if len(data) else 64) if in_size is None else in_size
        return self.add(conv, opnum, lpdata_direction="request+reply" if opnum == 7 else "reply", kind=kind,
                        source=source, lpdata_hex=data.hex(), lpdata_len=len(data), in_size=in_size, **kw)


def vector_files(kind):
    d = os.path.join(REPO, "vectors", kind)
    return sorted(os.path.join("vectors", kind, f) for f in os.listdir(d) if f.endswith(".hex"))


def vectors_capture():
    name = "vectors-tcp.pcap"
    cs = Calls(name)
    skipped = []
    for src in vector_files("guids"):
        # A buffer that is not a whole number of GUIDs travels too (bad-length-20, -47): the actual count
        # is rounded up and the stub ends after its bytes with the status, unaligned (perflib_server.py).
        cs.with_data(0, 0, src, "guids")
    for src in vector_files("counterset-info"):
        data = read_hex_file(os.path.join(REPO, src))
        guid = str(uuid.UUID(bytes_le=data[:16])) if len(data) >= 16 else PI_GUID
        cs.with_data(0, 1, src, "counterset-info", request_code=1, request_lcid=0, counterset_guid=guid)
    for src in vector_files("counter-info"):
        data = read_hex_file(os.path.join(REPO, src))
        cid = int.from_bytes(data[:4], "little") if len(data) >= 4 else 0
        cs.with_data(0, 1, src, "counter-info", request_code=2, request_lcid=cid, counterset_guid=PI_GUID)
    for k, src in enumerate(vector_files("strings")):
        rc = [5, 6, 5, 10][k % 4]
        cs.with_data(0, 1, src, "strings", request_code=rc, request_lcid=0 if rc == 10 else LCID_EN_US,
                     counterset_guid=PI_GUID)
    for k, src in enumerate(vector_files("string")):
        rc = [3, 4, 7, 9][k % 4]
        cs.with_data(0, 1, src, "string", request_code=rc, request_lcid=LCID_EN_US if rc in (3, 4) else 0,
                     counterset_guid=PI_GUID)
    for src in vector_files("guid"):
        cs.with_data(0, 1, src, "guid", request_code=8, request_lcid=0, counterset_guid=PI_GUID)
    for src in vector_files("instances"):
        cs.with_data(0, 2, src, "instances", counterset_guid=PI_GUID)
    cs.add(0, 3, handle="H1")
    cs.with_data(0, 7, "vectors/identifiers/error-statuses.hex", "identifiers", handle="H1", add=1)
    for src in vector_files("identifiers"):
        cs.with_data(0, 5, src, "identifiers", handle="H1")
    for src in vector_files("data"):
        cs.with_data(0, 6, src, "data", handle="H1")
    cs.add(0, 4, handle="H1")
    return {
        "file": name,
        "description": "every vector under vectors/ as the lpData of a reply of its opnum (and "
                       "identifiers/error-statuses also as an opnum 7 request echoed in the reply), over "
                       "ncacn_ip_tcp, no authentication",
        "transport": "tcp", "port": 49152, "auth": NO_AUTH,
        "server": {"max_frag": 4280, "tcp_segments": 1},
        "client": {"max_frag": 0},
        "calls": cs.calls, "skipped": skipped,
    }


def session_calls(cs, conv=0, handle="H1", data_delay=1.0, query_info=True):
    S = "wireshark/captures/session/"
    cs.with_data(conv, 0, S + "enum-countersets.hex", "guids", in_size=256)
    ci = cs.with_data(conv, 1, S + "counterset-info.hex", "counterset-info", request_code=1, request_lcid=0,
                      counterset_guid=PI_GUID)
    ci["in_size"] = ci["lpdata_len"]
    nm = cs.with_data(conv, 1, S + "counter-names.hex", "strings", request_code=5, request_lcid=LCID_EN_US,
                      counterset_guid=PI_GUID)
    nm["in_size"] = nm["lpdata_len"]
    inst = cs.with_data(conv, 2, S + "instances.hex", "instances", counterset_guid=PI_GUID)
    inst["in_size"] = inst["lpdata_len"]
    cs.add(conv, 3, handle=handle)
    cs.with_data(conv, 7, S + "validate-counters.hex", "identifiers", handle=handle, add=1)
    if query_info:  # without opnum 5, a dissector must take the blocks' order from opnum 7
        cs.with_data(conv, 5, S + "counter-info.hex", "identifiers", handle=handle, in_size=4096)
    cs.with_data(conv, 6, S + "data-1.hex", "data", handle=handle, in_size=65536)
    cs.with_data(conv, 6, S + "data-2.hex", "data", handle=handle, in_size=65536, delay_before=data_delay)
    cs.add(conv, 4, handle=handle)


SESSION_DESC = ("a full monitoring session of \"Processor Information\": opnum 0, opnum 1 RequestCode 1 and 5, "
                "opnum 2, opnum 3 (handle H1), opnum 7 (add 3 identifiers), opnum 5, opnum 6 twice (1 s apart), "
                "opnum 4")


def session_capture(name, transport, port, auth, desc, server=None, client=None, inner_port=None,
                    query_info=True):
    cs = Calls(name)
    session_calls(cs, query_info=query_info)
    cap = {"file": name, "description": desc, "transport": transport, "port": port, "auth": auth,
           "server": dict(server or {"max_frag": 4280, "tcp_segments": 1}),
           "client": dict(client or {"max_frag": 0}),
           "calls": cs.calls, "skipped": []}
    if transport == "np":
        cap["pipe"] = "\\PIPE\\winreg"
        cap["server"]["inner_port"] = inner_port
        cap["smb_login"] = {"user": NTLM["user"], "password": NTLM["password"], "domain": NTLM["domain"],
                            "dialect": "2.0.2"}
    return cap


def interleaved_capture():
    name = "interleaved-tcp.pcap"
    S = "wireshark/captures/session/"
    c0, c1 = Calls(name), Calls(name)
    # conversation 0: two query handles whose opnum 7 / 5 / 6 calls interleave
    c0.add(0, 3, handle="A")
    c0.add(0, 3, handle="B")
    c0.with_data(0, 7, S + "handle-a-validate-counters.hex", "identifiers", handle="A", add=1)
    c0.with_data(0, 7, S + "handle-b-validate-counters.hex", "identifiers", handle="B", add=1)
    c0.with_data(0, 5, S + "handle-a-counter-info.hex", "identifiers", handle="A", in_size=4096)
    c0.with_data(0, 5, S + "handle-b-counter-info.hex", "identifiers", handle="B", in_size=4096)
    c0.with_data(0, 6, S + "handle-a-data-1.hex", "data", handle="A", in_size=65536)
    c0.with_data(0, 6, S + "handle-b-data-1.hex", "data", handle="B", in_size=65536, delay_before=0.25)
    c0.with_data(0, 6, S + "handle-a-data-2.hex", "data", handle="A", in_size=65536, delay_before=0.75)
    c0.with_data(0, 6, S + "handle-b-data-2.hex", "data", handle="B", in_size=65536, delay_before=0.25)
    c0.add(0, 4, handle="A")
    c0.add(0, 4, handle="B")
    # conversation 1: the session's browse calls and its own handle C
    session_calls(c1, conv=1, handle="C", data_delay=0)
    calls = []
    a, b = c0.calls, c1.calls
    for k in range(max(len(a), len(b))):
        if k < len(a):
            calls.append(a[k])
        if k < len(b):
            calls.append(b[k])
    for k, c in enumerate(calls):
        c["index"] = k
    return {"file": name,
            "description": "two TCP conversations at once, calls alternating between them; conversation 0 holds "
                           "two query handles A and B whose opnum 7, 5 and 6 calls interleave (A add, B add, A "
                           "info, B info, A data, B data, A data, B data) with different counters per handle; "
                           "conversation 1 runs the session's calls with its own handle C",
            "transport": "tcp", "port": 49156, "auth": NO_AUTH,
            "server": {"max_frag": 4280, "tcp_segments": 1}, "client": {"max_frag": 0},
            "calls": calls, "skipped": []}


def reopen_capture():
    """The session, then the same handle bytes opened again: what the closed handle held is forgotten."""
    name = "reopen-tcp.pcap"
    S = "wireshark/captures/session/"
    cs = Calls(name)
    session_calls(cs)
    cs.add(0, 3, handle="H1")  # handle_hex depends on the names only: the same 20 bytes as before
    cs.with_data(0, 7, S + "validate-counters.hex", "identifiers", handle="H1", add=1)
    cs.with_data(0, 6, S + "data-1.hex", "data", handle="H1", in_size=65536)
    cs.with_data(0, 6, S + "data-2.hex", "data", handle="H1", in_size=65536)
    cs.add(0, 4, handle="H1")
    return {"file": name,
            "description": SESSION_DESC + ", over ncacn_ip_tcp; then opnum 3 returns the same handle bytes "
                           "again, opnum 7, opnum 6 twice, opnum 4: the first sample of the reopened handle "
                           "has no cooked values, and its blocks follow opnum 7 of the new query alone",
            "transport": "tcp", "port": 49158, "auth": NO_AUTH,
            "server": {"max_frag": 4280, "tcp_segments": 1}, "client": {"max_frag": 0},
            "calls": cs.calls, "skipped": []}


def build():
    caps = [
        vectors_capture(),
        session_capture("session-tcp.pcap", "tcp", 49153, NO_AUTH, SESSION_DESC + ", over ncacn_ip_tcp"),
        session_capture("session-np.pcap", "np", 445, NO_AUTH,
                        SESSION_DESC + ", over ncacn_np (SMB2 2.0.2, \\PIPE\\winreg)", inner_port=49160),
        session_capture("session-ntlm-privacy-tcp.pcap", "tcp", 49154, NTLM,
                        SESSION_DESC + ", over ncacn_ip_tcp with NTLMv2 packet privacy "
                        "(RPC_C_AUTHN_WINNT, RPC_C_AUTHN_LEVEL_PKT_PRIVACY)"),
        session_capture("session-ntlm-privacy-np.pcap", "np", 445, NTLM,
                        SESSION_DESC + ", over ncacn_np (SMB2 2.0.2, \\PIPE\\winreg) with NTLMv2 packet privacy",
                        inner_port=49161),
        session_capture("no-counter-info-tcp.pcap", "tcp", 49157, NO_AUTH,
                        SESSION_DESC.replace("opnum 5, ", "") + ", over ncacn_ip_tcp, without the opnum 5 call: "
                        "the blocks of the data replies are in the order opnum 7 added their identifiers",
                        query_info=False),
        session_capture("fragmented-tcp.pcap", "tcp", 49155, NO_AUTH,
                        SESSION_DESC + ", over ncacn_ip_tcp with every response cut in DCE/RPC fragments of at "
                        "most 512 bytes, each written in 3 TCP segments, and every request in fragments of "
                        "64 stub bytes",
                        server={"max_frag": 512, "tcp_segments": 3, "segment_delay": 0.005},
                        client={"max_frag": 64}),
        interleaved_capture(),
        reopen_capture(),
    ]
    for c in caps:
        c["tshark"] = ["-d", "tcp.port==%d,dcerpc" % c["port"]] if c["transport"] == "tcp" else []
        if c["auth"]["type"] == "ntlm-privacy":
            c["tshark"] += ["-o", "ntlmssp.nt_password:%s" % c["auth"]["password"]]
        c["conversations"] = sorted({x["conversation"] for x in c["calls"]})
    return {
        "format": "pcq-captures/1",
        "interface": {"name": "PerflibV2", "uuid": pcq_idl.PERFLIBV2_UUID, "version": "1.0"},
        "notes": [
            "calls are in the order the client issued them; 'conversation' is the index of the TCP connection "
            "(in the order the client opened them); each call's request and reply belong to that conversation",
            "lpdata_hex is the exact lpData: of the reply ('reply'), or of both the request and the reply "
            "('request+reply', opnum 7, echoed unchanged); opnum 0 counts are in GUIDs",
            "in_size is the request's dwInSize, the max count of the reply's lpData; out_size and rtn_size are "
            "*pdwOutSize and *pdwRtnSize; status is the returned error_status_t",
            "handle names a query handle within a capture; handle_hex is its 20-byte context handle",
            "kind is the vectors/ folder name (the pcqdump --kind) of lpData; source the .hex it was read from",
        ],
        "captures": caps,
    }


def main(argv):
    text = json.dumps(build(), indent=1) + "\n"
    if "--check" in argv:
        old = open(MANIFEST, encoding="utf-8").read() if os.path.exists(MANIFEST) else None
        if old != text:
            print("build_manifest.py: manifest.json is not up to date", file=sys.stderr)
            return 1
        return 0
    with open(MANIFEST, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
