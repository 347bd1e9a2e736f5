#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""perflib_typeperf.py - typeperf over PerflibV2 ([MS-PCQ]) with Impacket's DCE/RPC and pcq.

    perflib_typeperf.py -s TARGET [options] COUNTER_PATH...

TARGET is a string binding, ncacn_np:HOST[\\pipe\\winreg] (SMB) or ncacn_ip_tcp:HOST[PORT], or a host name (then
ncacn_np:HOST[\\pipe\\winreg]). COUNTER_PATH is typeperf's \\Set(Instance)\\Counter, without the machine: Set is
a counterset name or its GUID in braces, Instance a name or * (every instance; no parentheses for a
single-instance set), Counter a name, #ID or * (every counter). All paths name one counterset.

The calls, in order: opnum 0 (enumerate the countersets; with a set name, opnum 1 RequestCode 3 for each
until one matches), opnum 1 RequestCode 1 (registration info) and 5 (counter names, --lcid), opnum 2
(instances: a named instance's InstanceId), opnum 3 (open a query), opnum 7 (add the counters), opnum 5 (the
query's identifiers, with the Index of each data block), opnum 6 (a sample), then every -si seconds opnum 6
again and one cooked row (pcq.cook), -sc times, then opnum 4 (close). Each call with a buffer starts at a
default size and is repeated with *pdwRtnSize when the server says ERROR_NOT_ENOUGH_MEMORY.

Output (stdout): typeperf's CSV, "(PDH-CSV 4.0)" and a row of counter paths, then a row of values per
sample, exactly as `pcqdump --cook --csv --host HOST` prints them for the same buffers; --format json,
prometheus, influx or table instead. Counters whose status is not ok are listed on stderr.

Authentication: -u/-p/-d (NTLM; for ncacn_np also the SMB logon), --privacy for RPC_C_AUTHN_LEVEL_PKT_PRIVACY
(sealed), --integrity for PKT_INTEGRITY. Needs Impacket (python3-impacket) and pcq (pip install
--no-build-isolation ./python); pcq's decoder checks every buffer before it is used.
"""
import argparse
import os
import re
import struct
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from impacket.dcerpc.v5 import rpcrt, transport  # noqa: E402

import pcq  # noqa: E402
import perflib_ndr as ndr  # noqa: E402

ERROR_NOT_ENOUGH_MEMORY = 8
ERROR_MORE_DATA = 234
WILDCARD = 0xFFFFFFFF
MAX_BUFFER = 1 << 30   # the protocol's dwInSize range


class Fail(Exception):
    pass


# ---- counter paths ----
PATH = re.compile(r"^\\(?P<set>[^\\(]+)(\((?P<inst>.*)\))?\\(?P<ctr>[^\\]+)$")


def parse_path(text):
    """\\Set(Instance)\\Counter -> (set, instance or None, counter)."""
    m = PATH.match(text)
    if not m:
        raise Fail("not a counter path \\Set(Instance)\\Counter: %r" % text)
    return m.group("set"), m.group("inst"), m.group("ctr")


def as_guid(text):
    """The GUID of "{b4fc721a-...}" (or without braces), else None."""
    try:
        return uuid.UUID(text.strip("{}")) if re.match(r"^\{?[0-9a-fA-F-]{36}\}?$", text) else None
    except ValueError:
        return None


# ---- the RPC calls ----
class Perflib:
    def __init__(self, args):
        self.args = args
        binding = args.server if ":" in args.server else r"ncacn_np:%s[\pipe\winreg]" % args.server
        self.host = re.match(r"^[^:]+:([^\[]+)", binding).group(1)
        self.machine = args.machine or "\\\\" + self.host
        t = transport.DCERPCTransportFactory(binding)
        if args.user is not None:
            t.set_credentials(args.user, args.password or "", args.domain or "")
        self.dce = t.get_dce_rpc()
        if args.privacy or args.integrity:
            self.dce.set_credentials(args.user or "", args.password or "", args.domain or "")
            self.dce.set_auth_type(rpcrt.RPC_C_AUTHN_WINNT)
            self.dce.set_auth_level(rpcrt.RPC_C_AUTHN_LEVEL_PKT_PRIVACY if args.privacy
                                    else rpcrt.RPC_C_AUTHN_LEVEL_PKT_INTEGRITY)
        self.dce.connect()
        self.dce.bind(ndr.MSRPC_UUID_PERFLIBV2)

    def call(self, req):
        return self.dce.request(req, checkError=False)

    def sized(self, make, start, what, unit=1):
        """Calls make(dwInSize) until the buffer is large enough; the reply's lpData bytes."""
        size = self.args.in_size or start
        while True:
            resp = self.call(make(size))
            status = resp["ErrorCode"]
            if status in (ERROR_NOT_ENOUGH_MEMORY, ERROR_MORE_DATA) and size < MAX_BUFFER // unit:
                size = max(resp["pdwRtnSize"], size + 1)
                continue
            if status != 0:
                raise Fail("%s: error 0x%x (%s)" % (what, status, ndr.DCERPCSessionError(error_code=status)))
            return ndr.array_bytes(resp, "lpData")

    def enumerate(self):
        def make(n):
            r = ndr.PerflibV2EnumerateCounterSet()
            r["szMachine"] = ndr.wstr(self.machine)
            r["dwInSize"] = n
            return r
        data = self.sized(make, 256, "PerflibV2EnumerateCounterSet (opnum 0)", unit=16)
        return [g for g in pcq.decode("guids", data)["guids"]]

    def reg_info(self, guid, code, lcid, kind):
        def make(n):
            r = ndr.PerflibV2QueryCounterSetRegistrationInfo()
            r["szMachine"] = ndr.wstr(self.machine)
            r["CounterSetGuid"] = guid.bytes_le
            r["RequestCode"] = code
            r["RequestLCID"] = lcid
            r["dwInSize"] = n
            return r
        data = self.sized(make, 1 << 16, "PerflibV2QueryCounterSetRegistrationInfo (opnum 1, RequestCode %d)" % code)
        pcq.decode(kind, data)   # checked before use: a malformed reply raises pcq.PcqError
        return data

    def instances(self, guid):
        def make(n):
            r = ndr.PerflibV2EnumerateCounterSetInstances()
            r["szMachine"] = ndr.wstr(self.machine)
            r["CounterSetGuid"] = guid.bytes_le
            r["dwInSize"] = n
            return r
        data = self.sized(make, 1 << 16, "PerflibV2EnumerateCounterSetInstances (opnum 2)")
        return pcq.decode("instances", data)["instances"]

    def open_query(self):
        r = ndr.PerflibV2OpenQueryHandle()
        r["szMachine"] = ndr.wstr(self.machine)
        resp = self.call(r)
        if resp["ErrorCode"] != 0:
            raise Fail("PerflibV2OpenQueryHandle (opnum 3): error 0x%x" % resp["ErrorCode"])
        return resp.fields["phQuery"]

    def add(self, handle, idents):
        r = ndr.PerflibV2ValidateCounters()
        r["hQuery"] = handle
        r["dwInSize"] = len(idents)
        r["lpData"] = idents
        r["dwAdd"] = 1
        resp = self.call(r)
        if resp["ErrorCode"] != 0:
            raise Fail("PerflibV2ValidateCounters (opnum 7): error 0x%x" % resp["ErrorCode"])
        for i in pcq.decode("identifiers", ndr.array_bytes(resp, "lpData"))["identifiers"]:
            if i["status"] != 0:
                raise Fail("the server refused counter %d of instance %r: error 0x%x" % (
                    i["counter_id"], i["name"], i["status"]))

    def counter_info(self, handle):
        def make(n):
            r = ndr.PerflibV2QueryCounterInfo()
            r["hQuery"] = handle
            r["dwInSize"] = n
            return r
        data = self.sized(make, 1 << 16, "PerflibV2QueryCounterInfo (opnum 5)")
        pcq.decode("identifiers", data)
        return data

    def sample(self, handle):
        def make(n):
            r = ndr.PerflibV2QueryCounterData()
            r["hQuery"] = handle
            r["dwInSize"] = n
            return r
        data = self.sized(make, 1 << 20, "PerflibV2QueryCounterData (opnum 6)")
        pcq.decode("data", data)
        return data

    def close(self, handle):
        r = ndr.PerflibV2CloseQueryHandle()
        r["phQuery"] = handle
        self.call(r)

    def disconnect(self):
        self.dce.disconnect()


# ---- building the query ----
def identifier(guid, counter_id, instance_id, name):
    """A _PERF_COUNTER_IDENTIFIER (§2.2.4.6) for opnum 7: Status 0, Index 0 (the server assigns it), the
    instance name NUL-terminated, the size padded to 8 with zeros."""
    text = name.encode("utf-16-le") + b"\0\0"
    size = 40 + len(text)
    size += (-size) % 8
    return (guid.bytes_le + struct.pack("<IIIIII", 0, size, counter_id, instance_id, 0, 0) + text
            + b"\0" * (size - 40 - len(text)))


def find_set(perflib, set_text, lcid):
    guids = [uuid.UUID(g) for g in perflib.enumerate()]
    g = as_guid(set_text)
    if g is not None:
        if g not in guids:
            print("perflib_typeperf: warning: %s is not among the server's countersets" % set_text, file=sys.stderr)
        return g, None
    for g in guids:   # RequestCode 3: the counterset's name in lcid
        name = pcq.decode("string", perflib.reg_info(g, 3, lcid, "string"))["text"]
        if name.lower() == set_text.lower():
            return g, name
    raise Fail("no counterset named %r on the server" % set_text)


def counter_ids(info, names, wanted):
    """The CounterId of a counter name, #ID or * (0xFFFFFFFF: every counter)."""
    if wanted == "*":
        return WILDCARD
    if wanted.startswith("#") and wanted[1:].isdigit():
        return int(wanted[1:])
    for s in names["strings"]:
        if s["text"] is not None and s["text"].lower() == wanted.lower():
            return s["counter_id"]
    raise Fail("no counter %r in the counterset" % wanted)


def run(args):
    paths = [parse_path(p) for p in args.counters]
    sets = {p[0].lower() for p in paths}
    if len(sets) != 1:
        raise Fail("all counter paths must name one counterset (pcq cooks one counterset at a time)")
    perflib = Perflib(args)
    handle = None
    try:
        guid, set_name = find_set(perflib, paths[0][0], args.lcid)
        info = perflib.reg_info(guid, 1, 0, "counterset-info")
        names = perflib.reg_info(guid, 5, args.lcid, "strings")
        decoded_names = pcq.decode("strings", names)
        known = {i["name"]: i["instance_id"] for i in perflib.instances(guid)}
        idents = b""
        for _, inst, ctr in paths:
            inst = inst if inst is not None else ""
            if inst not in ("*", "") and inst not in known:
                raise Fail("no instance %r in the counterset" % inst)
            iid = 0 if inst in ("*", "") else known[inst]
            idents += identifier(guid, counter_ids(info, decoded_names, ctr), iid, inst)
        pcq.decode("identifiers", idents)
        handle = perflib.open_query()
        perflib.add(handle, idents)
        ids = perflib.counter_info(handle)
        older = perflib.sample(handle)
        for k in range(args.sample_count):
            time.sleep(args.interval)
            newer = perflib.sample(handle)
            report(args, info, older, newer, names, ids, set_name or args.set_name, perflib.host, first=(k == 0))
            older = newer
    finally:
        if handle is not None:
            perflib.close(handle)
        perflib.disconnect()


def report(args, info, older, newer, names, ids, set_name, host, first):
    text = pcq.cook_text(info, older, newer, format=args.format, names=names, ids=ids, set_name=set_name,
                         host=host, cap100=args.cap100)
    if args.format == "csv" and not first:
        text = text.split("\n", 1)[1]   # the row of paths once, as typeperf
    sys.stdout.write(text)
    sys.stdout.flush()
    for r in pcq.cook(info, older, newer, names=names, ids=ids, cap100=args.cap100):
        if r["status"] not in ("ok", "PCQ_CALC_NOT_DISPLAYABLE"):
            print("perflib_typeperf: %s (%s): %s" % (r.get("name", "#%d" % r["counter_id"]),
                                                     r.get("label") or r.get("instance") or "-", r["status"]),
                  file=sys.stderr)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog="See the module's docstring.")
    ap.add_argument("counters", nargs="+", metavar="COUNTER_PATH", help=r"\Set(Instance)\Counter")
    ap.add_argument("-s", "--server", required=True, help="string binding or host name")
    ap.add_argument("-u", "--user")
    ap.add_argument("-p", "--password")
    ap.add_argument("-d", "--domain")
    ap.add_argument("--privacy", action="store_true", help="NTLM, RPC_C_AUTHN_LEVEL_PKT_PRIVACY")
    ap.add_argument("--integrity", action="store_true", help="NTLM, RPC_C_AUTHN_LEVEL_PKT_INTEGRITY")
    ap.add_argument("--machine", help=r"szMachine (default \\HOST)")
    ap.add_argument("-si", "--interval", type=float, default=1.0, help="seconds between samples (1)")
    ap.add_argument("-sc", "--sample-count", type=int, default=1, help="cooked rows (1)")
    ap.add_argument("--lcid", type=lambda s: int(s, 0), default=0x409, help="names' language (0x409)")
    ap.add_argument("--set-name", help="counterset name in the paths when given by GUID (default: the GUID)")
    ap.add_argument("--format", default="csv", choices=["csv", "json", "prometheus", "influx", "table"])
    ap.add_argument("--cap100", action="store_true", help="hold percentages to 0..100")
    ap.add_argument("--in-size", type=int, help="first dwInSize of every call (default: 64 KiB, 1 MiB for data)")
    args = ap.parse_args(argv)
    try:
        run(args)
    except (Fail, pcq.PcqError) as e:
        print("perflib_typeperf: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
