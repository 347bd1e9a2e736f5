#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci/fuzz.sh - the fuzzing step of CI: installs clang's runtimes if missing,
# builds the libFuzzer targets, replays the committed corpora and crashers
# (ASan + UBSan, $CC and clang), then runs each target for FUZZ_SECONDS
# (default 60), FUZZ_JOBS at a time (default: one per core). Exits 1 on any
# finding; the input that broke a property is in build/hardening/artifacts/
# and its log in build/hardening/fuzz-<target>.log.
#
#   bash ci/fuzz.sh            FUZZ_SECONDS=60 by default
#   FUZZ_SECONDS=3600 bash ci/fuzz.sh     the "one hour each" run (3 hours on 2 cores)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bash ci/deps.sh fuzz || exit 1
if grep -q 'mk/\*\.mk\|mk/hardening\.mk' Makefile 2>/dev/null; then mk=(make); else mk=(make -f mk/hardening.mk); fi
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
rc=0
"${mk[@]}" --no-print-directory fuzz || exit 1
"${mk[@]}" --no-print-directory fuzz-replay || rc=1
"${mk[@]}" --no-print-directory fuzz-replay REPLAY_CC=clang HARDEN_OUT=build/hardening/clang || rc=1
"${mk[@]}" --no-print-directory fuzz-run FUZZ_SECONDS="$secs" FUZZ_JOBS="$jobs" || rc=1
exit $rc
