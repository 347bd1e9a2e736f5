#!/bin/bash
# SPDX-License-Identifier: MIT
# ci/check-python-example.sh - the Impacket example (python/examples/perflib_typeperf.py)
# against the captures' test server (wireshark/captures/perflib_server.py) on
# loopback (make check-python-example; .ci/run's python step):
#   1. session-tcp.pcap's scenario over ncacn_ip_tcp, no authentication;
#   2. session-ntlm-privacy-tcp.pcap's: NTLMv2, RPC_C_AUTHN_LEVEL_PKT_PRIVACY.
# The server runs with --any-in-size (the example sizes its buffers itself) on a
# free port and must end with every call of the scenario answered; the
# example's CSV must be, byte for byte, pcqdump --cook --csv --host 127.0.0.1
# on the session's buffers, and its --format json the same rows.
# Needs python3-impacket (and pytest's setuptools/venv for pcq); installs
# python3-impacket when missing and root.
#
#   bash ci/check-python-example.sh [PYTHON [PCQDUMP]]
# Last line: `python-example: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
PY=${1:-/usr/bin/python3}
PCQDUMP=$(cd "$(dirname "${2:-./pcqdump}")" && pwd)/$(basename "${2:-./pcqdump}")
top=$(pwd)
tmp=$(mktemp -d) || exit 2
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then stop_server; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0
result() { echo "python-example: $pass passed, $fail failed"; [ $fail = 0 ]; exit $?; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if ! "$PY" -c 'import impacket' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-impacket >/dev/null \
      || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
           --no-install-recommends python3-impacket >/dev/null; }
  fi
  "$PY" -c 'import impacket' 2>/dev/null || { bad "no Impacket for $PY (apt-get install python3-impacket)"; result; }
fi
[ -x "$PCQDUMP" ] || make --no-print-directory build >/dev/null || exit 2

# pcq into a venv that sees the system's Impacket
"$PY" -m venv --system-site-packages "$tmp/venv" || { bad "$PY -m venv failed"; result; }
cp -R python "$tmp/src" && rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info "$tmp/src/pcq"/*.so
PCQ_SOURCE_DIR=$top "$tmp/venv/bin/python" -m pip install -q --no-index --no-build-isolation "$tmp/src" \
  > "$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; bad "pip install of python/ failed"; result; }
VPY=$tmp/venv/bin/python

S=wireshark/captures/session
GUID='{b4fc721a-0378-476f-89ba-a5a79f810b36}'
PATHS=("\\$GUID(*)\\*" "\\$GUID(_Total)\\% Processor Time" "\\$GUID(*)\\Processor Frequency")
"$PCQDUMP" --cook --hex --csv --host 127.0.0.1 --info $S/counterset-info.hex $S/data-1.hex $S/data-2.hex \
  --names $S/counter-names.hex --ids $S/counter-info.hex > "$tmp/want.csv" || { bad "pcqdump --cook failed"; result; }
"$PCQDUMP" --cook --hex --json --info $S/counterset-info.hex $S/data-1.hex $S/data-2.hex \
  --names $S/counter-names.hex --ids $S/counter-info.hex > "$tmp/want.json"

# stop_server: SIGTERM, then SIGKILL after 20 s (a server that does not stop must fail the step, not hang
# it); the server's exit status, 137 when it had to be killed.
stop_server() {
  local wd st
  kill -TERM "$SERVER_PID"
  ( sleep 20; kill -KILL "$SERVER_PID" 2>/dev/null ) &
  wd=$!
  wait "$SERVER_PID"
  st=$?
  kill "$wd" 2>/dev/null
  wait "$wd" 2>/dev/null
  return $st
}

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run CAPTURE FORMAT OUT [EXAMPLE OPTIONS...]: the server for CAPTURE, the example, the server's verdict
run() {
  local cap=$1 fmt=$2 out=$3 port n=0
  shift 3
  port=$(free_port)
  rm -f "$tmp/ready"
  "$VPY" wireshark/captures/perflib_server.py --capture "$cap" --any-in-size --port "$port" --ready "$tmp/ready" \
    -v > "$tmp/server.log" 2>&1 &
  SERVER_PID=$!
  until [ -s "$tmp/ready" ]; do
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$tmp/server.log"; bad "$cap: the server did not start"; return 1; }
    n=$((n + 1)); [ $n -lt 150 ] || { bad "$cap: the server does not listen"; return 1; }
    sleep 0.1
  done
  "$VPY" python/examples/perflib_typeperf.py -s "ncacn_ip_tcp:127.0.0.1[$port]" --machine '\\PCQTEST-SRV' \
    --format "$fmt" "$@" "${PATHS[@]}" > "$out" 2> "$tmp/example.err"
  local rc=$?
  sleep 0.3
  stop_server
  local src=$?
  SERVER_PID=
  if [ $rc != 0 ]; then cat "$tmp/example.err" "$tmp/server.log"; bad "$cap: the example exited $rc"; return 1; fi
  if [ $src = 137 ]; then cat "$tmp/server.log"; bad "$cap: the server did not stop on SIGTERM"; return 1; fi
  if [ $src != 0 ]; then cat "$tmp/server.log"; bad "$cap: the server saw a call missing or out of its scenario"; return 1; fi
  return 0
}

if run session-tcp.pcap csv "$tmp/got.csv" --in-size 16; then   # every buffer too small first
  if cmp -s "$tmp/want.csv" "$tmp/got.csv"; then pass=$((pass + 1)); else
    bad "session-tcp: the example's CSV is not pcqdump's"; diff "$tmp/want.csv" "$tmp/got.csv" | head -n 6; fi
fi
if run session-ntlm-privacy-tcp.pcap json "$tmp/got.json" -u pcquser -p Pcq-Test-2024 -d PCQLAB --privacy; then
  if cmp -s "$tmp/want.json" "$tmp/got.json"; then pass=$((pass + 1)); else
    bad "session-ntlm-privacy-tcp: the example's rows are not pcqdump's"; diff "$tmp/want.json" "$tmp/got.json" | head -n 6; fi
fi
if run session-ntlm-privacy-tcp.pcap csv "$tmp/got2.csv" -u pcquser -p Pcq-Test-2024 -d PCQLAB --privacy; then
  if cmp -s "$tmp/want.csv" "$tmp/got2.csv"; then pass=$((pass + 1)); else bad "session-ntlm-privacy-tcp: CSV differs"; fi
fi
result
