#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make_captures.sh - regenerate the PerflibV2 test captures of wireshark/captures/.
#
#   bash wireshark/captures/make_captures.sh [CAPTURE.pcap ...]
#
# Needs root (tcpdump on lo, SMB on port 445) on Debian 12 with:
#   apt-get install -y tshark tcpdump python3-impacket python3-scapy
# Steps: session/*.hex and manifest.json are rewritten from session.py and build_manifest.py (deterministic);
# then, for each capture: tcpdump -i lo --immediate-mode -s 0 -w FILE 'tcp port N' (until it listens), the
# server (perflib_server.py), the client (perflib_client.py), tcpdump stopped with SIGINT; last,
# verify_captures.py checks every capture against manifest.json with tshark.
# Idempotent: run it again and the same files are rewritten (timestamps and NTLM randomness differ).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY=/usr/bin/python3
cd "$HERE"

die() { echo "make_captures: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (tcpdump on lo, SMB on port 445)"
for tool in tcpdump tshark "$PY"; do command -v "$tool" >/dev/null || die "$tool not found"; done
"$PY" -c 'import impacket, scapy' 2>/dev/null || die "python3-impacket and python3-scapy are needed"

WORK="$(mktemp -d /tmp/pcq-captures.XXXXXX)"
TCPDUMP_PID=""
SERVER_PID=""
cleanup() {
    # stop only what this script started, by pid
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -TERM "$SERVER_PID" 2>/dev/null || true; fi
    if [ -n "$TCPDUMP_PID" ] && kill -0 "$TCPDUMP_PID" 2>/dev/null; then kill -INT "$TCPDUMP_PID" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

"$PY" session.py
"$PY" build_manifest.py

ALL=$("$PY" -c 'import json; print(" ".join(c["file"] for c in json.load(open("manifest.json"))["captures"]))')
CAPTURES=("$@")
[ ${#CAPTURES[@]} -gt 0 ] || read -r -a CAPTURES <<< "$ALL"

field() {   # field CAPTURE EXPR: a value of the capture's manifest entry (c = the entry)
    "$PY" -c 'import json,sys; c=[c for c in json.load(open("manifest.json"))["captures"] if c["file"]==sys.argv[1]][0]; print(eval(sys.argv[2]))' "$1" "$2"
}

listening() {   # is some socket listening on TCP port $1? (read from /proc/net/tcp*, no iproute2 needed)
    "$PY" - "$1" <<'EOF'
import sys
port = "%04X" % int(sys.argv[1])
for f in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        lines = open(f).read().splitlines()[1:]
    except OSError:
        continue
    for l in lines:
        p = l.split()
        if p[1].rsplit(":", 1)[1] == port and p[3] == "0A":
            sys.exit(0)
sys.exit(1)
EOF
}

wait_port_free() {   # no listener left from a previous run on this port
    local port=$1 n=0
    while listening "$port"; do
        n=$((n + 1)); [ $n -lt 100 ] || die "port $port stays busy"; sleep 0.1
    done
}

for cap in "${CAPTURES[@]}"; do
    port=$(field "$cap" 'c["port"]')
    transport=$(field "$cap" 'c["transport"]')
    echo "== $cap ($transport, port $port)"
    wait_port_free "$port"
    [ "$transport" = np ] && wait_port_free "$(field "$cap" 'c["server"]["inner_port"]')"
    out="$HERE/$cap"
    rm -f "$out"

    # 1. tcpdump, until it listens
    tcpdump -i lo --immediate-mode -s 0 -U -w "$WORK/$cap" "tcp port $port" 2>"$WORK/tcpdump.err" &
    TCPDUMP_PID=$!
    n=0
    until grep -q "listening on" "$WORK/tcpdump.err"; do
        kill -0 "$TCPDUMP_PID" 2>/dev/null || { cat "$WORK/tcpdump.err" >&2; die "tcpdump did not start"; }
        n=$((n + 1)); [ $n -lt 100 ] || die "tcpdump does not listen"; sleep 0.1
    done

    # 2. the server, until it listens
    rm -f "$WORK/ready"
    "$PY" perflib_server.py --capture "$cap" --ready "$WORK/ready" -v >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    n=0
    until [ -s "$WORK/ready" ]; do
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; die "server did not start"; }
        n=$((n + 1)); [ $n -lt 150 ] || die "server does not listen"; sleep 0.1
    done

    # 3. the client
    if ! "$PY" perflib_client.py --capture "$cap" >"$WORK/client.log" 2>&1; then
        cat "$WORK/client.log" "$WORK/server.log" >&2
        die "client failed for $cap"
    fi
    sleep 0.5

    # 4. stop the server (exit status: every call answered as the manifest says), then tcpdump
    kill -TERM "$SERVER_PID"
    if ! wait "$SERVER_PID"; then cat "$WORK/server.log" >&2; die "server reported errors for $cap"; fi
    SERVER_PID=""
    sleep 0.3
    kill -INT "$TCPDUMP_PID"
    wait "$TCPDUMP_PID" || true
    TCPDUMP_PID=""
    grep -q "packets captured" "$WORK/tcpdump.err" || { cat "$WORK/tcpdump.err" >&2; die "tcpdump did not finish"; }
    grep -E "packets (captured|dropped by kernel)" "$WORK/tcpdump.err" | tr '\n' ' '; echo
    mv "$WORK/$cap" "$out"
    chown "$(stat -c %u:%g "$HERE")" "$out"   # tcpdump wrote it as user tcpdump
    chmod 644 "$out"
    ls -l "$out"
done

"$PY" verify_captures.py "${CAPTURES[@]}"
