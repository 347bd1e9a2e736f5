#!/bin/bash
# SPDX-License-Identifier: MIT
# ci/check-monitoring.sh - pcqdump --cook --format prometheus|influx checked with
# the real tools Debian packages (make check-monitoring; .ci/run's monitoring step):
#   - promtool check metrics (package prometheus) on the Prometheus output of
#     every cook case: it must parse and lint clean;
#   - a throwaway influxd (package influxdb, 1.x: temp config, data and meta
#     directories, a loopback port, no service manager) must answer HTTP 204 to
#     every line written with precision=ns, and a query must give back every
#     value, tag and time that was written (ci/check_monitoring.py).
# Installs prometheus and influxdb with apt-get when they are missing and this
# runs as root; otherwise says what to install and passes.
#
#   bash ci/check-monitoring.sh [PCQDUMP]
# Last line: `monitoring-tools: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
PCQDUMP=${1:-./pcqdump}
PY=${PYTHON:-/usr/bin/python3}

if ! command -v promtool >/dev/null 2>&1 || ! command -v influxd >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "check-monitoring: installing prometheus influxdb"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends prometheus influxdb >/dev/null \
      || { echo "check-monitoring: apt-get install prometheus influxdb failed"; echo "monitoring-tools: 0 passed, 1 failed"; exit 1; }
  else
    echo "check-monitoring: skipped (needs promtool and influxd: apt-get install prometheus influxdb, as root)"
    echo "monitoring-tools: 0 passed, 0 failed"
    exit 0
  fi
fi
[ -x "$PCQDUMP" ] || make --no-print-directory build >/dev/null || exit 2
exec "$PY" ci/check_monitoring.py "$PCQDUMP"
