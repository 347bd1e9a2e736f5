#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perflib_client.py - play the calls of one capture of manifest.json with Impacket's DCE/RPC client.

    perflib_client.py --capture NAME [--manifest manifest.json] [-v]

Transports: transport.DCERPCTransportFactory("ncacn_ip_tcp:127.0.0.1[PORT]") or
"ncacn_np:127.0.0.1[\\pipe\\winreg]" (SMB2 2.0.2, the only dialect impacket.smbserver speaks), bound to PerflibV2
1.0 with rpcrt.DCERPC_v5; with the capture's auth "ntlm-privacy", RPC_C_AUTHN_WINNT at
RPC_C_AUTHN_LEVEL_PKT_PRIVACY.  One connection per conversation, opened in conversation order; then the calls in
manifest order.  Every reply is checked against the manifest (lpData bytes, max count, pdwOutSize, pdwRtnSize,
status, handle); the exit status is 0 only if all match.

An SMB connection is closed by hand (close the pipe, disconnect the tree, log off once, close the socket):
SMBTransport.disconnect() would log off twice, and the server's answer to the second LOGOFF is malformed.
"""
import argparse
import json
import logging
import os
import struct
import sys
import time

from impacket.dcerpc.v5 import rpcrt, transport
from impacket.smb3structs import SMB2_DIALECT_002

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcq_idl  # noqa: E402

LOG = logging.getLogger("perflib_client")


class Mismatch(Exception):
    pass


def connect(cap, conv):
    if cap["transport"] == "np":
        t = transport.DCERPCTransportFactory(r"ncacn_np:127.0.0.1[\pipe\winreg]")
        t.preferred_dialect(SMB2_DIALECT_002)
        login = cap["smb_login"]
        t.set_credentials(login["user"], login["password"], login["domain"])
    else:
        t = transport.DCERPCTransportFactory("ncacn_ip_tcp:127.0.0.1[%d]" % cap["port"])
    auth = cap["auth"]
    if auth["type"] == "ntlm-privacy":
        t.set_credentials(auth["user"], auth["password"], auth["domain"])
    dce = t.get_dce_rpc()
    if auth["type"] == "ntlm-privacy":
        dce.set_auth_type(rpcrt.RPC_C_AUTHN_WINNT)
        dce.set_auth_level(rpcrt.RPC_C_AUTHN_LEVEL_PKT_PRIVACY)
    if cap["client"].get("max_frag"):
        dce.set_max_fragment_size(cap["client"]["max_frag"])
    dce.connect()
    dce.bind(pcq_idl.MSRPC_UUID_PERFLIBV2)
    LOG.info("conversation %d bound over %s", conv, cap["transport"])
    return t, dce


def disconnect(cap, t, dce):
    if cap["transport"] == "np":
        smb = t.get_smb_connection()
        tid, fid = t._SMBTransport__tid, t._SMBTransport__handle
        smb.closeFile(tid, fid)
        smb.disconnectTree(tid)
        smb.logoff()
        smb.getSMBServer().close_session()
    else:
        dce.disconnect()


def build_request(call, handles):
    req_cls, _ = pcq_idl.OPNUMS[call["opnum"]]
    req = req_cls()
    op = call["opnum"]
    if op in (0, 1, 2, 3):
        req["szMachine"] = pcq_idl.wstr(call["szMachine"])
    if op in (1, 2):
        import uuid
        req["CounterSetGuid"] = uuid.UUID(call["counterset_guid"]).bytes_le
    if op == 1:
        req["RequestCode"] = call["request_code"]
        req["RequestLCID"] = call["request_lcid"]
    if op in (0, 1, 2, 5, 6, 7):
        req["dwInSize"] = call["in_size"]
    if op == 4:
        req["phQuery"] = handles[call["handle"]]
    if op in (5, 6, 7):
        req["hQuery"] = handles[call["handle"]]
    if op == 7:
        req["lpData"] = bytes.fromhex(call["lpdata_hex"])
        req["dwAdd"] = call["add"]
    return req


def check_reply(call, resp, handles):
    op = call["opnum"]

    def expect(what, got, want):
        if got != want:
            raise Mismatch("call %d (opnum %d): %s is %r, manifest says %r" % (call["index"], op, what, got, want))

    expect("status", resp["ErrorCode"], call["status"])
    if op in (0, 1, 2, 5, 6):
        expect("pdwOutSize", resp["pdwOutSize"], call["out_size"])
        expect("pdwRtnSize", resp["pdwRtnSize"], call["rtn_size"])
        expect("lpData max count", pcq_idl.max_count(resp, "lpData"), call["in_size"])
        expect("lpData", pcq_idl.array_bytes(resp, "lpData").hex(), call["lpdata_hex"])
    elif op == 7:
        expect("lpData", pcq_idl.array_bytes(resp, "lpData").hex(), call["lpdata_hex"])
    elif op == 3:
        h = resp.fields["phQuery"]
        expect("handle", h.getData().hex(), call["handle_hex"])
        handles[call["handle"]] = h
    elif op == 4:
        expect("closed handle", resp.fields["phQuery"].getData(), b"\0" * 20)
        del handles[call["handle"]]


def check_ragged_reply(call, stub):
    """Opnum 0's hand-framed reply of a vector that is not a whole number of GUIDs (perflib_server.py)."""
    want = struct.pack("<5I", call["out_size"], call["rtn_size"], call["in_size"], 0, call["out_size"]) + \
        bytes.fromhex(call["lpdata_hex"]) + struct.pack("<I", call["status"])
    if stub != want:
        raise Mismatch("call %d (opnum 0): the ragged GUID array reply differs from the manifest" % call["index"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifest.json"))
    ap.add_argument("--capture", required=True)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="client: %(levelname)s %(message)s")
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    caps = [c for c in manifest["captures"] if c["file"] == args.capture]
    if not caps:
        sys.exit("perflib_client: no capture %r in %s" % (args.capture, args.manifest))
    cap = caps[0]
    conns = {}
    for conv in cap["conversations"]:
        conns[conv] = connect(cap, conv)
    handles = {}
    failed = 0
    for call in cap["calls"]:
        if call.get("delay_before"):
            time.sleep(call["delay_before"])
        t, dce = conns[call["conversation"]]
        req = build_request(call, handles)
        try:
            if call["opnum"] == 0 and call["lpdata_len"] % 16:
                dce.call(req.opnum, req)
                check_ragged_reply(call, dce.recv())
            else:
                check_reply(call, dce.request(req, checkError=False), handles)
        except Mismatch as e:
            LOG.error("%s", e)
            failed += 1
        else:
            LOG.info("call %d conversation %d opnum %d ok", call["index"], call["conversation"], call["opnum"])
    for conv in sorted(conns, reverse=True):
        disconnect(cap, *conns[conv])
    if failed:
        LOG.error("%d call(s) did not match the manifest", failed)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
