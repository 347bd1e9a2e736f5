#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perflib_server.py - a PerflibV2 ([MS-PCQ]) test server that answers the calls of one capture of manifest.json.

    perflib_server.py --capture NAME [--manifest manifest.json] [--ready FILE] [--any-in-size] [--port N] [-v]

It speaks connection-oriented DCE/RPC ([C706] chapter 12, [MS-RPCE]) itself, over ncacn_ip_tcp:
  - bind / alter_context -> bind_ack / alter_context_resp (PerflibV2 1.0 over NDR 2.0 accepted, anything else
    rejected per context), with the NTLM CHALLENGE when the client asks for NTLM;
  - rpc_auth_3 -> NTLMv2 checked (NTProofStr), session keys derived;
  - request fragments reassembled per call_id (every fragment unsealed and its signature checked when the call
    is sealed), then the call answered from the scenario;
  - responses split into fragments of at most server.max_frag bytes (bind_ack's max_xmit_frag says so), each
    sealed on its own under NTLM packet privacy, and each fragment written to the socket in
    server.tcp_segments separate send() calls (TCP_NODELAY plus a short sleep, so that they leave as separate
    TCP segments).
For ncacn_np the capture's transport is "np": impacket.smbserver.SimpleSMBServer listens on 127.0.0.1:445
(SMB2 2.0.2) and relays the named pipe "winreg" to this DCE/RPC server on server.inner_port.

With --any-in-size (for clients that size their buffers themselves, such as python/examples/
perflib_typeperf.py) dwInSize is not checked against the scenario: a call whose dwInSize is too small for its
lpData is answered with ERROR_NOT_ENOUGH_MEMORY and the size needed in *pdwRtnSize, and does not count as the
scenario's call; a large enough one gets the data with the max count it asked for.  --port overrides the
capture's port.  Without them the server behaves as the captures were recorded.

Connections are numbered in the order they are accepted: connection k plays conversation k of the capture,
answering that conversation's calls in order.  A request that does not match the scenario (opnum, handle,
dwInSize, RequestCode, the opnum 7 lpData) is answered with a fault and counted as an error.  The process runs
until SIGTERM/SIGINT; it exits 0 only if every call of every conversation was answered and nothing mismatched.

NTLM ([MS-NLMP] 3.2.5, 3.4): NTLMv2 only.  The server keeps the CHALLENGE, recomputes NTProofStr from the
password of manifest.json, takes the exported session key (decrypted with the key exchange key when
NTLMSSP_NEGOTIATE_KEY_EXCH is set), derives SIGNKEY/SEALKEY for both directions, and seals with one RC4 state
per direction: first the stub (and its auth padding), then the 8-byte checksum (key exchange).  Its own
sequence number counts its PDUs from 0; the client's is checked against the client's PDUs.
"""
import argparse
import hashlib
import hmac
import json
import logging
import os
import signal
import socket
import struct
import sys
import threading
import time
import uuid

from Cryptodome.Cipher import ARC4
from impacket import ntlm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcq_idl  # noqa: E402

LOG = logging.getLogger("perflib_server")

# PDU types ([C706] 12.6.4)
REQUEST, RESPONSE, FAULT, BIND, BIND_ACK, BIND_NAK = 0, 2, 3, 11, 12, 13
ALTER_CONTEXT, ALTER_CONTEXT_RESP, AUTH3, SHUTDOWN, CO_CANCEL, ORPHANED = 14, 15, 16, 17, 18, 19
PFC_FIRST_FRAG, PFC_LAST_FRAG, PFC_OBJECT_UUID = 0x01, 0x02, 0x80

NDR_SYNTAX = uuid.UUID("8a885d04-1ceb-11c9-9fe8-08002b104860").bytes_le + struct.pack("<HH", 2, 0)
PERFLIB_ABSTRACT = uuid.UUID(pcq_idl.PERFLIBV2_UUID).bytes_le + struct.pack("<HH", 1, 0)

RPC_C_AUTHN_WINNT = 10
RPC_C_AUTHN_LEVEL_PKT_PRIVACY = 6
NCA_S_OP_RNG_ERROR = 0x1C010002
NCA_S_FAULT_NDR = 0x000006F7   # rpc_x_bad_stub_data

MAX_RECV_FRAG = 4280


def hmac_md5(key, data):
    return hmac.new(key, data, hashlib.md5).digest()



def ragged_guids_stub(call, data):
    """Opnum 0's reply for a vector that is not a whole number of GUIDs (guids/bad-length-*): NDR cannot
    carry it, so the stub is framed by hand: pdwOutSize, pdwRtnSize, the array's max count, offset 0 and
    actual count (the GUIDs rounded up), the bytes as they are, and the status right after them, unaligned.
    A dissector that takes the status as the stub's last 4 bytes gets the vector's exact bytes as lpData."""
    return struct.pack("<5I", call["out_size"], call["rtn_size"], call["in_size"], 0, call["out_size"]) + data + \
        struct.pack("<I", call["status"])

class ScenarioError(Exception):
    pass


class TooSmall(Exception):
    """--any-in-size: the call's dwInSize is too small; the stub answers it without using up the call."""

    def __init__(self, stub):
        Exception.__init__(self)
        self.stub = stub


class State:
    """What every connection shares: the capture, the conversations handed out, the error count."""

    def __init__(self, capture):
        self.capture = capture
        self.lock = threading.Lock()
        self.next_conv = 0
        self.errors = 0
        self.answered = {}       # conversation -> calls answered
        convs = sorted({c["conversation"] for c in capture["calls"]})
        self.calls = {k: [c for c in capture["calls"] if c["conversation"] == k] for k in convs}

    def take_conversation(self):
        with self.lock:
            k = self.next_conv
            self.next_conv += 1
            return k

    def error(self, msg):
        with self.lock:
            self.errors += 1
        LOG.error(msg)

    def complete(self):
        return all(self.answered.get(k, 0) == len(v) for k, v in self.calls.items())


class NTLMServer:
    """The server half of NTLMv2 with session security for one DCE/RPC association."""

    def __init__(self, auth):
        self.user, self.password, self.domain = auth["user"], auth["password"], auth["domain"]
        self.challenge = None
        self.negotiate = None
        self.flags = 0
        self.ready = False

    def challenge_message(self, negotiate_bytes):
        neg = ntlm.NTLMAuthNegotiate()
        neg.fromString(negotiate_bytes)
        self.negotiate = neg
        nflags = neg["flags"]
        flags = (ntlm.NTLMSSP_NEGOTIATE_VERSION | ntlm.NTLMSSP_NEGOTIATE_TARGET_INFO |
                 ntlm.NTLMSSP_TARGET_TYPE_DOMAIN | ntlm.NTLMSSP_NEGOTIATE_NTLM | ntlm.NTLMSSP_REQUEST_TARGET)
        for f in (ntlm.NTLMSSP_NEGOTIATE_56, ntlm.NTLMSSP_NEGOTIATE_128, ntlm.NTLMSSP_NEGOTIATE_KEY_EXCH,
                  ntlm.NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY, ntlm.NTLMSSP_NEGOTIATE_UNICODE,
                  ntlm.NTLMSSP_NEGOTIATE_SIGN, ntlm.NTLMSSP_NEGOTIATE_SEAL, ntlm.NTLMSSP_NEGOTIATE_ALWAYS_SIGN):
            if nflags & f:
                flags |= f
        self.challenge = os.urandom(8)
        server_name = "PCQTEST-SRV".encode("utf-16le")
        domain = self.domain.encode("utf-16le")
        av = ntlm.AV_PAIRS()
        av[ntlm.NTLMSSP_AV_HOSTNAME] = server_name
        av[ntlm.NTLMSSP_AV_DOMAINNAME] = domain
        av[ntlm.NTLMSSP_AV_DNS_HOSTNAME] = ("pcqtest-srv." + self.domain.lower() + ".test").encode("utf-16le")
        av[ntlm.NTLMSSP_AV_DNS_DOMAINNAME] = (self.domain.lower() + ".test").encode("utf-16le")
        av[ntlm.NTLMSSP_AV_TIME] = struct.pack("<q", 116444736000000000 + int(time.time()) * 10000000)
        msg = ntlm.NTLMAuthChallenge()
        msg["flags"] = flags
        msg["domain_len"] = len(domain)
        msg["domain_max_len"] = len(domain)
        msg["domain_offset"] = 40 + 16
        msg["challenge"] = self.challenge
        msg["domain_name"] = domain
        av_raw = av.getData()
        msg["TargetInfoFields_len"] = len(av_raw)
        msg["TargetInfoFields_max_len"] = len(av_raw)
        msg["TargetInfoFields"] = av_raw
        msg["TargetInfoFields_offset"] = 40 + 16 + len(domain)
        msg["Version"] = struct.pack("<BBH3sB", 10, 0, 20348, b"\0\0\0", 15)   # Windows Server 2022, rev 15
        msg["VersionLen"] = 8
        self.flags = flags
        return msg.getData()

    def authenticate(self, auth_bytes):
        msg = ntlm.NTLMAuthChallengeResponse()
        msg.fromString(auth_bytes)
        user = msg["user_name"].decode("utf-16le")
        domain = msg["domain_name"].decode("utf-16le")
        nt = msg["ntlm"]
        if user.upper() != self.user.upper() or len(nt) <= 24:
            raise ScenarioError("AUTHENTICATE for %r\\%r, not an NTLMv2 response for the scenario's user"
                                % (domain, user))
        response_key = ntlm.NTOWFv2(user, self.password, domain)
        proof = hmac_md5(response_key, self.challenge + nt[16:])
        if proof != nt[:16]:
            raise ScenarioError("NTProofStr mismatch: wrong password for %s\\%s" % (domain, user))
        session_base_key = hmac_md5(response_key, proof)
        flags = msg["flags"]
        if flags & ntlm.NTLMSSP_NEGOTIATE_KEY_EXCH and msg["session_key"]:
            exported = ARC4.new(session_base_key).decrypt(msg["session_key"])
        else:
            exported = session_base_key
        self.flags = flags
        if not flags & ntlm.NTLMSSP_NEGOTIATE_EXTENDED_SESSIONSECURITY:
            raise ScenarioError("the client did not negotiate extended session security")
        self.client_sign = ntlm.SIGNKEY(flags, exported, "Client")
        self.server_sign = ntlm.SIGNKEY(flags, exported, "Server")
        self.client_seal = ARC4.new(ntlm.SEALKEY(flags, exported, "Client")).encrypt
        self.server_seal = ARC4.new(ntlm.SEALKEY(flags, exported, "Server")).encrypt
        self.client_seq = 0
        self.server_seq = 0
        self.ready = True
        LOG.info("NTLMv2 authenticated %s\\%s, flags 0x%08x", domain, user, flags)

    def unseal(self, header_and_plain_prefix, sealed, trailer, verifier):
        """Decrypt a request's stub+pad and check its signature. Returns the plaintext."""
        plain = self.client_seal(sealed)
        version, checksum, seq = struct.unpack("<I8sI", verifier)
        if self.flags & ntlm.NTLMSSP_NEGOTIATE_KEY_EXCH:
            checksum = self.client_seal(checksum)
        expect = hmac_md5(self.client_sign, struct.pack("<I", seq) + header_and_plain_prefix + plain + trailer)[:8]
        if version != 1 or checksum != expect or seq != self.client_seq:
            raise ScenarioError("bad NTLM signature on a request (seq %d, expected %d)" % (seq, self.client_seq))
        self.client_seq += 1
        return plain

    def seal(self, header, stub_and_pad, trailer):
        """Encrypt a response's stub+pad and build its 16-byte verifier."""
        sealed = self.server_seal(stub_and_pad)
        checksum = hmac_md5(self.server_sign, struct.pack("<I", self.server_seq) + header + stub_and_pad + trailer)[:8]
        if self.flags & ntlm.NTLMSSP_NEGOTIATE_KEY_EXCH:
            checksum = self.server_seal(checksum)
        verifier = struct.pack("<I8sI", 1, checksum, self.server_seq)
        self.server_seq += 1
        return sealed, verifier


class Connection(threading.Thread):
    def __init__(self, state, sock, peer, opts):
        threading.Thread.__init__(self, daemon=True)
        self.state, self.sock, self.peer, self.opts = state, sock, peer, opts
        self.conv = None
        self.calls = []
        self.next_call = 0
        self.auth = None            # NTLMServer once a bind asked for NTLM
        self.auth_ctx_id = 0
        self.auth_level = 0
        self.contexts = {}          # p_cont_id -> accepted?
        self.max_xmit = opts["max_frag"]
        self.pending = {}           # call_id -> [opnum, ctx_id, stub bytes]
        self.assoc_group = 0

    # -- socket ---------------------------------------------------------------------------------------------
    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                return None
            buf += chunk
        return buf

    def recv_pdu(self):
        head = self.recv_exact(16)
        if head is None:
            return None
        if head[0] != 5 or head[4] != 0x10:
            raise ScenarioError("not a little-endian DCE/RPC v5 PDU: %s" % head.hex())
        frag_len = struct.unpack_from("<H", head, 8)[0]
        rest = self.recv_exact(frag_len - 16)
        if rest is None:
            return None
        return head + rest

    def send_pdu(self, pdu, segmented=False):
        """Send one PDU; a response fragment (segmented=True) in tcp_segments separate send() calls.
        Binds are never cut: Impacket's client reads its bind_ack with one recv()."""
        segments = max(1, int(self.opts.get("tcp_segments", 1))) if segmented else 1
        if segments == 1:
            self.sock.sendall(pdu)
            return
        # cut the PDU in `segments` pieces; the first cut falls inside the 16-byte common header
        cuts = [0, min(10, len(pdu))]
        step = max(1, (len(pdu) - cuts[1]) // (segments - 1)) if segments > 1 else len(pdu)
        while len(cuts) < segments and cuts[-1] + step < len(pdu):
            cuts.append(cuts[-1] + step)
        cuts.append(len(pdu))
        for a, b in zip(cuts, cuts[1:]):
            if a < b:
                self.sock.sendall(pdu[a:b])
                time.sleep(self.opts.get("segment_delay", 0.01))

    # -- PDU building ---------------------------------------------------------------------------------------
    @staticmethod
    def header(ptype, flags, frag_len, auth_len, call_id):
        return struct.pack("<BBBB4sHHI", 5, 0, ptype, flags, b"\x10\x00\x00\x00", frag_len, auth_len, call_id)

    def sec_trailer(self, pad_len):
        return struct.pack("<BBBBI", RPC_C_AUTHN_WINNT, self.auth_level, pad_len, 0, self.auth_ctx_id)

    # -- main loop ------------------------------------------------------------------------------------------
    def run(self):
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while True:
                pdu = self.recv_pdu()
                if pdu is None:
                    break
                self.handle(pdu)
        except ScenarioError as e:
            self.state.error("conversation %s: %s" % (self.conv, e))
        except (ConnectionError, OSError) as e:
            LOG.info("conversation %s: connection ended: %s", self.conv, e)
        except Exception as e:   # a bug: report it, do not hide it
            import traceback
            traceback.print_exc()
            self.state.error("conversation %s: %r" % (self.conv, e))
        finally:
            try:
                self.sock.close()
            except OSError:
                pass
            if self.conv is not None and self.next_call != len(self.calls):
                self.state.error("conversation %d ended after %d of %d calls"
                                 % (self.conv, self.next_call, len(self.calls)))
            LOG.info("conversation %s closed", self.conv)

    def handle(self, pdu):
        ptype, flags = pdu[2], pdu[3]
        frag_len, auth_len, call_id = struct.unpack_from("<HHI", pdu, 8)
        if ptype in (BIND, ALTER_CONTEXT):
            self.on_bind(pdu, ptype, call_id, auth_len)
        elif ptype == AUTH3:
            self.on_auth3(pdu, auth_len)
        elif ptype == REQUEST:
            self.on_request(pdu, flags, call_id, auth_len)
        elif ptype in (CO_CANCEL, ORPHANED, SHUTDOWN):
            LOG.info("conversation %s: PDU type %d ignored", self.conv, ptype)
        else:
            raise ScenarioError("unexpected PDU type %d" % ptype)

    def split_auth(self, pdu, auth_len):
        """(body without auth, sec_trailer fields, auth_value) of a PDU with an auth verifier."""
        frag_len = len(pdu)
        st = frag_len - auth_len - 8
        auth_type, level, pad_len, _, ctx_id = struct.unpack_from("<BBBBI", pdu, st)
        return st, (auth_type, level, pad_len, ctx_id), pdu[st + 8:]

    def on_bind(self, pdu, ptype, call_id, auth_len):
        if self.conv is None:
            self.conv = self.state.take_conversation()
            if self.conv not in self.state.calls:
                raise ScenarioError("connection %d has no conversation in the scenario" % self.conv)
            self.calls = self.state.calls[self.conv]
            self.assoc_group = 0x4a10 + self.conv
            LOG.info("connection from %s plays conversation %d (%d calls)", self.peer, self.conv, len(self.calls))
        max_xmit, max_recv, assoc = struct.unpack_from("<HHI", pdu, 16)
        n_ctx = pdu[24]
        off = 28
        results = b""
        for _ in range(n_ctx):
            ctx_id, n_ts = struct.unpack_from("<HB", pdu, off)
            abstract = pdu[off + 4:off + 24]
            transfers = [pdu[off + 24 + 20 * k:off + 44 + 20 * k] for k in range(n_ts)]
            off += 24 + 20 * n_ts
            if abstract != PERFLIB_ABSTRACT:
                results += struct.pack("<HH", 2, 1) + b"\0" * 20          # provider rejection, abstract syntax
                self.contexts[ctx_id] = False
            elif NDR_SYNTAX not in transfers:
                results += struct.pack("<HH", 2, 2) + b"\0" * 20          # proposed transfer syntaxes
                self.contexts[ctx_id] = False
            else:
                results += struct.pack("<HH", 0, 0) + NDR_SYNTAX
                self.contexts[ctx_id] = True
        self.max_xmit = min(self.opts["max_frag"], max_recv)
        auth_value = b""
        if auth_len:
            _, (atype, level, _, ctx_id), token = self.split_auth(pdu, auth_len)
            if atype != RPC_C_AUTHN_WINNT:
                raise ScenarioError("bind asks for auth type %d, only NTLM (10) is served" % atype)
            if self.opts.get("auth") is None:
                raise ScenarioError("the client asked for NTLM, the scenario has no credentials")
            self.auth = NTLMServer(self.opts["auth"])
            self.auth_level, self.auth_ctx_id = level, ctx_id
            auth_value = self.auth.challenge_message(token)
        elif self.opts.get("auth") is not None and ptype == BIND:
            raise ScenarioError("the scenario wants NTLM, the bind has no auth verifier")

        if ptype == BIND:
            sec_addr = self.opts["secondary_address"].encode("ascii") + b"\0"
            body = struct.pack("<HHIH", self.max_xmit, MAX_RECV_FRAG, self.assoc_group, len(sec_addr)) + sec_addr
        else:   # alter_context_resp: empty secondary address
            body = struct.pack("<HHIH", self.max_xmit, MAX_RECV_FRAG, self.assoc_group, 0)
        body += b"\0" * ((-(16 + len(body))) % 4)
        body += struct.pack("<BBH", n_ctx, 0, 0) + results
        rtype = BIND_ACK if ptype == BIND else ALTER_CONTEXT_RESP
        if auth_value:
            pad = (-(16 + len(body))) % 4
            body += b"\0" * pad + self.sec_trailer(pad) + auth_value
        pdu_out = self.header(rtype, PFC_FIRST_FRAG | PFC_LAST_FRAG, 16 + len(body), len(auth_value), call_id) + body
        self.send_pdu(pdu_out)

    def on_auth3(self, pdu, auth_len):
        if self.auth is None or not auth_len:
            raise ScenarioError("rpc_auth_3 without an NTLM bind")
        _, _, token = self.split_auth(pdu, auth_len)
        self.auth.authenticate(token)

    def on_request(self, pdu, flags, call_id, auth_len):
        alloc_hint, ctx_id, opnum = struct.unpack_from("<IHH", pdu, 16)
        stub_at = 24 + (16 if flags & PFC_OBJECT_UUID else 0)
        if auth_len:
            if self.auth is None or not self.auth.ready:
                raise ScenarioError("an authenticated request before the NTLM handshake ended")
            st, (atype, level, pad_len, actx), verifier = self.split_auth(pdu, auth_len)
            if level != RPC_C_AUTHN_LEVEL_PKT_PRIVACY:
                raise ScenarioError("request at auth level %d, the scenario wants packet privacy" % level)
            plain = self.auth.unseal(pdu[:stub_at], pdu[stub_at:st], pdu[st:st + 8], verifier)
            stub = plain[:len(plain) - pad_len]
        else:
            if self.opts.get("auth") is not None:
                raise ScenarioError("an unauthenticated request on an NTLM association")
            stub = pdu[stub_at:]
        if flags & PFC_FIRST_FRAG:
            self.pending[call_id] = [opnum, ctx_id, b"", 0]
        if call_id not in self.pending:
            raise ScenarioError("request fragment of call %d without a first fragment" % call_id)
        ent = self.pending[call_id]
        ent[2] += stub
        ent[3] += 1
        if flags & PFC_LAST_FRAG:
            del self.pending[call_id]
            self.dispatch(call_id, ent[0], ent[1], ent[2], ent[3])

    # -- calls ----------------------------------------------------------------------------------------------
    def fault(self, call_id, ctx_id, status):
        body = struct.pack("<IHBBI", 0, ctx_id, 0, 0, status) + b"\0" * 4
        self.send_pdu(self.header(FAULT, PFC_FIRST_FRAG | PFC_LAST_FRAG, 16 + len(body), 0, call_id) + body)

    def dispatch(self, call_id, opnum, ctx_id, stub, nfrags):
        if not self.contexts.get(ctx_id):
            raise ScenarioError("request on presentation context %d, which was not accepted" % ctx_id)
        if self.next_call >= len(self.calls):
            self.fault(call_id, ctx_id, NCA_S_OP_RNG_ERROR)
            raise ScenarioError("a request beyond the scenario (opnum %d)" % opnum)
        call = self.calls[self.next_call]
        try:
            reply = self.answer(call, opnum, stub)
        except TooSmall as e:
            LOG.info("conversation %d call %d: opnum %d: dwInSize too small, ERROR_NOT_ENOUGH_MEMORY",
                     self.conv, call["index"], opnum)
            self.send_response(call_id, ctx_id, e.stub)
            return
        except ScenarioError as e:
            self.fault(call_id, ctx_id, NCA_S_FAULT_NDR)
            raise ScenarioError("call %d (opnum %d): %s" % (call["index"], opnum, e))
        self.next_call += 1
        with self.state.lock:
            self.state.answered[self.conv] = self.state.answered.get(self.conv, 0) + 1
        LOG.info("conversation %d call %d: opnum %d (%d request fragment(s), %d stub bytes) -> %d stub bytes",
                 self.conv, call["index"], opnum, nfrags, len(stub), len(reply))
        self.send_response(call_id, ctx_id, reply)

    def answer(self, call, opnum, stub):
        if opnum != call["opnum"]:
            raise ScenarioError("opnum %d, the scenario expects %d" % (opnum, call["opnum"]))
        req_cls, resp_cls = pcq_idl.OPNUMS[opnum]
        try:
            req = req_cls(stub)
        except Exception as e:
            raise ScenarioError("cannot decode the request stub: %r" % e)
        in_size = call.get("in_size")
        if in_size is not None and req["dwInSize"] != in_size:
            if not self.opts.get("any_in_size") or opnum == 7:
                raise ScenarioError("dwInSize %d, the scenario says %d" % (req["dwInSize"], in_size))
            in_size = req["dwInSize"]
            if in_size < call["rtn_size"]:
                raise TooSmall(self.too_small(resp_cls, call, in_size))
        if opnum in (0, 1, 2, 3) and req["szMachine"] != pcq_idl.wstr(call["szMachine"]):
            raise ScenarioError("szMachine %r, the scenario says %r" % (req["szMachine"], call["szMachine"]))
        if opnum in (1, 2) and req["CounterSetGuid"] != uuid.UUID(call["counterset_guid"]).bytes_le:
            raise ScenarioError("CounterSetGuid differs from the scenario")
        if opnum == 1 and (req["RequestCode"], req["RequestLCID"]) != (call["request_code"], call["request_lcid"]):
            raise ScenarioError("RequestCode/LCID %d/%d, the scenario says %d/%d" % (
                req["RequestCode"], req["RequestLCID"], call["request_code"], call["request_lcid"]))
        if opnum in (4, 5, 6, 7):
            field = "phQuery" if opnum == 4 else "hQuery"
            got = req.fields[field].getData()
            if got.hex() != call["handle_hex"]:
                raise ScenarioError("handle %s, the scenario says %s (%s)" % (got.hex(), call["handle_hex"],
                                                                                call["handle"]))
        data = bytes.fromhex(call["lpdata_hex"]) if call.get("lpdata_hex") is not None else b""
        if opnum == 7:
            sent = pcq_idl.array_bytes(req, "lpData")
            if sent != data:
                raise ScenarioError("opnum 7 request lpData differs from the scenario")
            if req["dwAdd"] != call["add"]:
                raise ScenarioError("dwAdd %d, the scenario says %d" % (req["dwAdd"], call["add"]))

        if opnum == 0 and len(data) % 16:
            return ragged_guids_stub(call, data)
        resp = resp_cls()
        if opnum in (0, 1, 2, 5, 6):
            resp["pdwOutSize"] = call["out_size"]
            resp["pdwRtnSize"] = call["rtn_size"]
            items = pcq_idl.guid_items(data) if opnum == 0 else data
            pcq_idl.set_cv_array(resp, "lpData", items, in_size)
        elif opnum == 3:
            resp["phQuery"] = pcq_idl.make_handle(bytes.fromhex(call["handle_hex"]))
        elif opnum == 4:
            resp["phQuery"] = pcq_idl.make_handle(b"\0" * 20)      # "phQuery MUST be set to NULL"
        elif opnum == 7:
            resp["lpData"] = data
        resp["ErrorCode"] = call["status"]
        stub = resp.getData()
        if opnum in (1, 2, 5, 6, 7) and len(data) % 4:
            # Impacket fills NDR alignment padding with 0xbf; send zeros, as an NDR engine that clears its
            # buffer would (the padding before the error_status_t that ends the stub)
            pad = (-len(data)) % 4
            stub = stub[:-4 - pad] + b"\0" * pad + stub[-4:]
        return stub

    @staticmethod
    def too_small(resp_cls, call, in_size):
        """The reply to a dwInSize below the data's size: no data, the size needed, ERROR_NOT_ENOUGH_MEMORY."""
        resp = resp_cls()
        resp["pdwOutSize"] = 0
        resp["pdwRtnSize"] = call["rtn_size"]
        pcq_idl.set_cv_array(resp, "lpData", [] if call["opnum"] == 0 else b"", in_size)
        resp["ErrorCode"] = pcq_idl.ERROR_NOT_ENOUGH_MEMORY
        return resp.getData()

    def send_response(self, call_id, ctx_id, stub):
        sealed = self.auth is not None and self.auth.ready
        overhead = 24 + (8 + 16 if sealed else 0)
        room = self.max_xmit - overhead
        room -= room % (16 if sealed else 8)
        if room <= 0:
            raise ScenarioError("max_xmit_frag %d leaves no room for stub data" % self.max_xmit)
        offset = 0
        while True:
            chunk = stub[offset:offset + room]
            flags = (PFC_FIRST_FRAG if offset == 0 else 0)
            alloc_hint = len(stub) - offset
            offset += len(chunk)
            if offset >= len(stub):
                flags |= PFC_LAST_FRAG
            if sealed:
                pad = (-len(chunk)) % 16
                frag_len = 24 + len(chunk) + pad + 8 + 16
                head = self.header(RESPONSE, flags, frag_len, 16, call_id) + struct.pack("<IHBB", alloc_hint,
                                                                                         ctx_id, 0, 0)
                trailer = self.sec_trailer(pad)
                enc, verifier = self.auth.seal(head, chunk + b"\0" * pad, trailer)
                pdu = head + enc + trailer + verifier
            else:
                frag_len = 24 + len(chunk)
                pdu = self.header(RESPONSE, flags, frag_len, 0, call_id) + struct.pack("<IHBB", alloc_hint,
                                                                                       ctx_id, 0, 0) + chunk
            self.send_pdu(pdu, segmented=True)
            if flags & PFC_LAST_FRAG:
                break


def serve(capture, opts, port, ready_file):
    state = State(capture)
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(8)

    def acceptor():
        while True:
            try:
                s, peer = lsock.accept()
            except OSError:
                return
            Connection(state, s, peer, opts).start()

    threading.Thread(target=acceptor, daemon=True).start()
    LOG.info("DCE/RPC server for %s on 127.0.0.1:%d", capture["file"], port)
    return state, lsock


def start_smb(capture, inner_port):
    from impacket import smbserver
    server = smbserver.SimpleSMBServer(listenAddress="127.0.0.1", listenPort=445)
    server.setSMB2Support(True)
    server.setSMBChallenge("")
    server.registerNamedPipe("winreg", ("127.0.0.1", inner_port))
    t = threading.Thread(target=server.start, daemon=True)
    t.start()
    LOG.info("SMB server on 127.0.0.1:445, pipe winreg -> 127.0.0.1:%d", inner_port)
    return server


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifest.json"))
    ap.add_argument("--capture", required=True, help="file name of the capture in manifest.json")
    ap.add_argument("--ready", help="write this file once listening")
    ap.add_argument("--any-in-size", action="store_true",
                    help="answer any dwInSize (too small: ERROR_NOT_ENOUGH_MEMORY and the size needed)")
    ap.add_argument("--port", type=int, help="listen on this TCP port instead of the capture's")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="server: %(levelname)s %(message)s")
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    caps = [c for c in manifest["captures"] if c["file"] == args.capture]
    if not caps:
        sys.exit("perflib_server: no capture %r in %s" % (args.capture, args.manifest))
    cap = caps[0]
    srv = cap["server"]
    opts = {
        "max_frag": srv.get("max_frag", MAX_RECV_FRAG),
        "tcp_segments": srv.get("tcp_segments", 1),
        "segment_delay": srv.get("segment_delay", 0.01),
        "auth": cap["auth"] if cap["auth"]["type"] == "ntlm-privacy" else None,
        "any_in_size": args.any_in_size,
    }
    if cap["transport"] == "np":
        port = srv["inner_port"]
        opts["secondary_address"] = "\\PIPE\\winreg"
    else:
        port = args.port or cap["port"]
        opts["secondary_address"] = str(port)
    # The handlers only append to a list. They had set a threading.Event that the main thread waited on,
    # and a CI run hung after SIGTERM with the main thread blocked on a lock: a handler runs in the main
    # thread, between two steps of whatever it was doing, so taking a lock that the interrupted code may
    # hold (the Event's, inside wait()) can deadlock (python/cpython#126434 shows it with
    # multiprocessing.Event). Installed before the ready file, so that the server may be stopped as soon
    # as it says it is ready.
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(a[0]))
    signal.signal(signal.SIGINT, lambda *a: stop.append(a[0]))
    state, lsock = serve(cap, opts, port, args.ready)
    smb = start_smb(cap, port) if cap["transport"] == "np" else None
    # (SimpleSMBServer binds and listens in its constructor: no probe connection, which the capture would show)
    if args.ready:
        with open(args.ready, "w") as f:
            f.write("%d\n" % os.getpid())

    while not stop:
        time.sleep(0.2)
    lsock.close()
    ok = state.errors == 0 and state.complete()
    if not state.complete():
        LOG.error("not every call was answered: %s of %s",
                  state.answered, {k: len(v) for k, v in state.calls.items()})
    os._exit(0 if ok else 1)


if __name__ == "__main__":
    main()
