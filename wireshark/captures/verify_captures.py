#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""verify_captures.py - check every capture against manifest.json with stock tshark (and, for the plain TCP
captures, with an independent TCP/DCE-RPC reassembly done here with scapy).

    verify_captures.py [CAPTURE.pcap ...]      (default: every capture of manifest.json)

For each capture, tshark is run twice (one pass, and two passes with -2) with the manifest's options
(-d tcp.port==N,dcerpc; -o ntlmssp.nt_password:... for NTLM packet privacy) and its PDML is read:
  - no frame carries _ws.malformed, and no expert info of severity "error" on any layer;
  - each conversation (TCP stream, in order of appearance) has a bind of the PerflibV2 UUID
    da5a86c5-12c2-4943-ab30-7f74a813d853 v1.0 that the bind_ack accepts;
  - its requests, in order, have the opnums of the manifest's calls of that conversation; each has a response
    with the same call_id; multi-fragment PDUs are reassembled by tshark;
  - the request and response stubs (tshark's reassembled or decrypted stub) are parsed here, by hand, as NDR of
    the PerflibV2 IDL, and every field the manifest gives must match: lpData bytes (reply; request too for
    opnum 7), max count (= dwInSize), pdwOutSize, pdwRtnSize, status, context handles, RequestCode,
    RequestLCID, CounterSetGuid, szMachine, dwAdd;
  - for an NTLM capture, every request and response stub is tshark's decrypted stub.
Exit status 0 if every capture passes.
"""
import json
import os
import struct
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
PERFLIB = "da5a86c5-12c2-4943-ab30-7f74a813d853"
SEV_ERROR = 0x00800000


class Fail(Exception):
    pass


###############################################################################################################
# NDR of the PerflibV2 stubs, by hand
###############################################################################################################
class Reader:
    def __init__(self, data):
        self.d, self.o = data, 0

    def align(self, n):
        self.o += (-self.o) % n

    def u32(self):
        self.align(4)
        if self.o + 4 > len(self.d):
            raise Fail("stub too short for a uint32 at %d" % self.o)
        v = struct.unpack_from("<I", self.d, self.o)[0]
        self.o += 4
        return v

    def raw(self, n):
        if self.o + n > len(self.d):
            raise Fail("stub too short for %d bytes at %d" % (n, self.o))
        v = self.d[self.o:self.o + n]
        self.o += n
        return v

    def end(self):
        if self.o != len(self.d):
            raise Fail("%d stub bytes left over" % (len(self.d) - self.o))


def parse_request(opnum, stub):
    r = Reader(stub)
    out = {}
    if opnum in (0, 1, 2, 3):
        mx, off, act = r.u32(), r.u32(), r.u32()
        s = r.raw(2 * act).decode("utf-16le")
        if off != 0 or mx != act or not s.endswith("\0"):
            raise Fail("szMachine is not a NUL-terminated conformant varying string")
        out["szMachine"] = s[:-1]
    if opnum in (1, 2):
        r.align(4)
        out["counterset_guid"] = str(uuid.UUID(bytes_le=r.raw(16)))
    if opnum == 1:
        out["request_code"], out["request_lcid"] = r.u32(), r.u32()
    if opnum in (4, 5, 6, 7):
        r.align(4)
        out["handle_hex"] = r.raw(20).hex()
    if opnum in (0, 1, 2, 5, 6, 7):
        out["in_size"] = r.u32()
    if opnum == 7:
        mx = r.u32()
        out["lpdata_hex"] = r.raw(mx).hex()
        if mx != out["in_size"]:
            raise Fail("opnum 7 request: max count %d != dwInSize %d" % (mx, out["in_size"]))
        out["add"] = r.u32()
    r.end()
    return out


def parse_response(opnum, stub):
    r = Reader(stub)
    out = {}
    if opnum in (0, 1, 2, 5, 6):
        out["out_size"], out["rtn_size"] = r.u32(), r.u32()
        out["max_count"], off, act = r.u32(), r.u32(), r.u32()
        if off != 0:
            raise Fail("lpData offset %d" % off)
        if act != out["out_size"]:
            raise Fail("lpData actual count %d != *pdwOutSize %d" % (act, out["out_size"]))
        n = act * (16 if opnum == 0 else 1)
        if opnum == 0 and n > len(r.d) - 4 - r.o:     # a ragged GUID array: its bytes end at the status
            n = max(len(r.d) - 4 - r.o, 0)
            out["lpdata_hex"] = r.raw(n).hex()
            out["status"] = struct.unpack_from("<I", r.d, r.o)[0]
            r.o += 4
            r.end()
            return out
        out["lpdata_hex"] = r.raw(n).hex()
    elif opnum == 7:
        out["max_count"] = r.u32()
        out["lpdata_hex"] = r.raw(out["max_count"]).hex()
    elif opnum in (3, 4):
        r.align(4)
        out["handle_hex"] = r.raw(20).hex()
    out["status"] = r.u32()
    r.end()
    return out


def check_call(call, req, resp):
    op = call["opnum"]
    errs = []

    def eq(what, got, want):
        if got == want:
            return
        if isinstance(got, str) and isinstance(want, str) and (len(got) > 40 or len(want) > 40):
            k = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
            errs.append("%s differs from the manifest: %d bytes vs %d, first difference at byte %d" % (
                what, len(got) // 2, len(want) // 2, k // 2))
        else:
            errs.append("%s %r != manifest %r" % (what, got, want))

    q = parse_request(op, req)
    p = parse_response(op, resp)
    for k in ("szMachine", "counterset_guid", "request_code", "request_lcid", "in_size", "add"):
        if k in q:
            eq("request " + k, q[k], call[k])
    if op in (4, 5, 6, 7):
        eq("request handle", q["handle_hex"], call["handle_hex"])
    if op == 7:
        eq("request lpData", q["lpdata_hex"], call["lpdata_hex"])
        eq("reply lpData", p["lpdata_hex"], call["lpdata_hex"])
        eq("reply max count", p["max_count"], call["in_size"])
    if op in (0, 1, 2, 5, 6):
        eq("reply lpData", p["lpdata_hex"], call["lpdata_hex"])
        eq("reply max count", p["max_count"], call["in_size"])
        eq("reply pdwOutSize", p["out_size"], call["out_size"])
        eq("reply pdwRtnSize", p["rtn_size"], call["rtn_size"])
    if op == 3:
        eq("reply handle", p["handle_hex"], call["handle_hex"])
    if op == 4:
        eq("reply handle", p["handle_hex"], "00" * 20)
    eq("reply status", p["status"], call["status"])
    return errs


###############################################################################################################
# tshark
###############################################################################################################
def field_bytes(f):
    v = f.get("value")
    if v is not None and len(v) == 2 * int(f.get("size", "0")):
        return bytes.fromhex(v)
    show = f.get("show", "")
    return bytes.fromhex(show.replace(":", ""))


def tshark_pdus(path, opts, two_pass):
    cmd = ["tshark", "-n", "-r", path, "-T", "pdml"] + (["-2"] if two_pass else []) + opts
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if res.returncode != 0:
        raise Fail("tshark failed: %s" % res.stderr.decode(errors="replace"))
    root = ET.fromstring(res.stdout)
    pdus, problems = [], []
    for pkt in root.iter("packet"):
        frame = stream = None
        for proto in pkt.findall("proto"):
            name = proto.get("name")
            if name == "frame":
                for f in proto.iter("field"):
                    if f.get("name") == "frame.number":
                        frame = int(f.get("show"))
            if name == "tcp":
                for f in proto.iter("field"):
                    if f.get("name") == "tcp.stream":
                        stream = int(f.get("show"))
            if name == "_ws.malformed":
                problems.append("frame %s: malformed packet (%s)" % (frame, proto.get("showname")))
            for f in proto.iter("field"):
                if f.get("name") == "_ws.expert.severity" and int(f.get("show")) >= SEV_ERROR:
                    problems.append("frame %s: expert error in %s" % (frame, name))
                if f.get("name") == "_ws.malformed":
                    problems.append("frame %s: malformed (%s)" % (frame, name))
            if name != "dcerpc":
                continue
            pdu = {"frame": frame, "stream": stream, "stub": None, "decrypted": False, "bind_uuids": [],
                   "ack_results": [], "encrypted": False}
            for f in proto.iter("field"):
                n = f.get("name")
                if n == "dcerpc.pkt_type":
                    pdu["type"] = int(f.get("show"))
                elif n == "dcerpc.cn_call_id":
                    pdu["call_id"] = int(f.get("show"))
                elif n == "dcerpc.cn_flags":
                    pdu["flags"] = int(f.get("show"), 16)
                elif n == "dcerpc.opnum":
                    pdu["opnum"] = int(f.get("show"))
                elif n == "dcerpc.stub_data":
                    pdu["stub"] = field_bytes(f)
                elif n == "dcerpc.decrypted_stub_data":
                    pdu["stub"] = field_bytes(f)
                    pdu["decrypted"] = True
                elif n == "dcerpc.encrypted_stub_data":
                    pdu["encrypted"] = True
                elif n == "dcerpc.cn_bind_to_uuid":
                    pdu["bind_uuids"].append(f.get("show"))
                elif n == "dcerpc.cn_bind_if_ver":
                    pdu["bind_ver"] = int(f.get("show"))
                elif n == "dcerpc.cn_ack_result":
                    pdu["ack_results"].append(int(f.get("show")))
            pdus.append(pdu)
    return pdus, problems


def check_with_tshark(cap, two_pass):
    path = os.path.join(HERE, cap["file"])
    pdus, problems = tshark_pdus(path, cap["tshark"], two_pass)
    errs = list(problems)
    ntlm = cap["auth"]["type"] == "ntlm-privacy"
    streams = []
    for p in pdus:
        if p["stream"] not in streams:
            streams.append(p["stream"])
    convs = cap["conversations"]
    if len(streams) != len(convs):
        errs.append("%d TCP streams carry DCE/RPC, the manifest has %d conversations" % (len(streams), len(convs)))
        return errs, 0
    checked = 0
    for conv, stream in zip(convs, streams):
        sp = [p for p in pdus if p["stream"] == stream]
        binds = [p for p in sp if p.get("type") == 11]
        acks = [p for p in sp if p.get("type") == 12]
        if not binds or PERFLIB not in binds[0]["bind_uuids"] or binds[0].get("bind_ver") != 1:
            errs.append("conversation %d: no bind of PerflibV2 1.0" % conv)
        if not acks or acks[0]["ack_results"][:1] != [0]:
            errs.append("conversation %d: the bind is not accepted" % conv)
        reqs = [p for p in sp if p.get("type") == 0 and p.get("flags", 0) & 0x02]
        resps = {p["call_id"]: p for p in sp if p.get("type") == 2 and p.get("flags", 0) & 0x02}
        calls = [c for c in cap["calls"] if c["conversation"] == conv]
        if len(reqs) != len(calls):
            errs.append("conversation %d: %d complete requests, manifest has %d calls" % (conv, len(reqs), len(calls)))
        for call, rq in zip(calls, reqs):
            where = "call %d (conversation %d, opnum %d, frame %s)" % (call["index"], conv, call["opnum"], rq["frame"])
            if rq.get("opnum") != call["opnum"]:
                errs.append("%s: tshark shows opnum %s" % (where, rq.get("opnum")))
                continue
            rs = resps.get(rq["call_id"])
            if rs is None:
                errs.append("%s: no response for call_id %d" % (where, rq["call_id"]))
                continue
            if rq["stub"] is None or rs["stub"] is None:
                errs.append("%s: tshark shows no (reassembled%s) stub" % (where, "/decrypted" if ntlm else ""))
                continue
            if ntlm and not (rq["decrypted"] and rs["decrypted"]):
                errs.append("%s: stub not decrypted by tshark" % where)
            try:
                e = check_call(call, rq["stub"], rs["stub"])
            except Fail as x:
                e = [str(x)]
            errs += ["%s: %s" % (where, m) for m in e]
            checked += 1
    return errs, checked


###############################################################################################################
# scapy: an independent reassembly of plain TCP captures
###############################################################################################################
def check_with_scapy(cap):
    from scapy.all import rdpcap, TCP, IP   # noqa: F401
    pkts = rdpcap(os.path.join(HERE, cap["file"]))
    port = cap["port"]
    flows = {}      # (client port) -> {"c2s": {seq: payload}, "s2c": ...}
    order = []
    for p in pkts:
        if TCP not in p:
            continue
        t = p[TCP]
        client = t.sport if t.dport == port else t.dport
        if client not in flows:
            flows[client] = {"c2s": {}, "s2c": {}, "isn": {}}
            order.append(client)
        d = "c2s" if t.dport == port else "s2c"
        if t.flags & 0x02:   # SYN
            flows[client]["isn"][d] = t.seq + 1
        payload = bytes(t.payload)
        if payload:
            flows[client][d][t.seq] = payload
    errs = []
    checked = 0
    convs = cap["conversations"]
    if len(order) != len(convs):
        return ["scapy: %d TCP connections, manifest has %d conversations" % (len(order), len(convs))], 0
    for conv, client in zip(convs, order):
        streams = {}
        for d in ("c2s", "s2c"):
            seq = flows[client]["isn"][d]
            data = b""
            segs = flows[client][d]
            while seq in segs:
                data += segs[seq]
                seq += len(segs[seq])
            if sum(len(v) for v in segs.values()) != len(data):
                errs.append("scapy: conversation %d %s: a gap in the TCP stream" % (conv, d))
            streams[d] = data

        def pdus(data):
            out, o = [], 0
            while o + 16 <= len(data):
                ptype, flags = data[o + 2], data[o + 3]
                flen, alen, cid = struct.unpack_from("<HHI", data, o + 8)
                out.append((ptype, flags, cid, data[o:o + flen]))
                o += flen
            if o != len(data):
                errs.append("scapy: conversation %d: %d bytes after the last PDU" % (conv, len(data) - o))
            return out

        def calls_of(pl, ptype):
            got, cur = [], {}
            for t, flags, cid, pdu in pl:
                if t != ptype:
                    continue
                hdr = 24 + (16 if flags & 0x80 else 0)
                opnum = struct.unpack_from("<H", pdu, 22)[0] if ptype == 0 else None
                if flags & 0x01:
                    cur[cid] = [opnum, b"", 0]
                cur[cid][1] += pdu[hdr:]
                cur[cid][2] += 1
                if flags & 0x02:
                    got.append((cid, cur[cid][0], cur[cid][1], cur[cid][2]))
            return got

        reqs = calls_of(pdus(streams["c2s"]), 0)
        resps = {cid: (stub, n) for cid, _, stub, n in calls_of(pdus(streams["s2c"]), 2)}
        calls = [c for c in cap["calls"] if c["conversation"] == conv]
        if len(reqs) != len(calls):
            errs.append("scapy: conversation %d: %d requests, manifest %d calls" % (conv, len(reqs), len(calls)))
        for call, (cid, opnum, stub, nreq) in zip(calls, reqs):
            if opnum != call["opnum"] or cid not in resps:
                errs.append("scapy: call %d: opnum %s / no response" % (call["index"], opnum))
                continue
            try:
                e = check_call(call, stub, resps[cid][0])
            except Fail as x:
                e = [str(x)]
            errs += ["scapy: call %d: %s" % (call["index"], m) for m in e]
            checked += 1
    return errs, checked


def main(argv):
    with open(os.path.join(HERE, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    caps = manifest["captures"]
    if argv:
        caps = [c for c in caps if c["file"] in argv]
        missing = set(argv) - {c["file"] for c in caps}
        if missing:
            print("verify_captures: not in the manifest: %s" % ", ".join(sorted(missing)), file=sys.stderr)
            return 2
    bad = 0
    for cap in caps:
        path = os.path.join(HERE, cap["file"])
        if not os.path.exists(path):
            print("FAIL %s: missing" % cap["file"])
            bad += 1
            continue
        errs = []
        n1 = n2 = n3 = 0
        try:
            e, n1 = check_with_tshark(cap, False)
            errs += e
            e, n2 = check_with_tshark(cap, True)
            errs += ["(-2) " + m for m in e]
            if cap["transport"] == "tcp" and cap["auth"]["type"] == "none":
                e, n3 = check_with_scapy(cap)
                errs += e
        except Fail as x:
            errs.append(str(x))
        if errs:
            bad += 1
            print("FAIL %s:" % cap["file"])
            for m in errs[:40]:
                print("   ", m)
        else:
            extra = ", scapy %d" % n3 if n3 else ""
            print("ok   %s: %d calls (tshark %d, tshark -2 %d%s), %d bytes" % (
                cap["file"], len(cap["calls"]), n1, n2, extra, os.path.getsize(path)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
