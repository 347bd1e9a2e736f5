#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/check-cli-vectors.sh - pcqdump on every vector, as the Makefile's check-cli
# runs it, for the CMake and Meson builds (ctest, meson test), which have no
# make. Each vectors/<kind>/<name>.hex is decoded three ways (tree, --json,
# --strict --json): a good vector exits 0 with output on stdout (3 under
# --strict when it has a .diag); a malformed one (with a .err) exits 1 with a
# message on stderr, having printed what it read before the error (the tree's
# "** malformed" line, the JSON's "error" member). The --cook comparisons with
# test/cli/*.csv stay in `make check` (their arguments are in the Makefile).
#
#   sh ci/check-cli-vectors.sh PCQDUMP
#
# Runs from the top of the tree; prints `pcqdump: N passed, N failed` last and
# exits 1 when anything failed.
set -u
pcqdump=$1
case $pcqdump in /*) ;; *) pcqdump=$(pwd)/$pcqdump ;; esac
cd "$(dirname "$0")/.." || exit 2
[ -x "$pcqdump" ] || { echo "check-cli-vectors: no program $pcqdump"; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for hex in vectors/*/*.hex; do
  [ -f "$hex" ] || continue
  kind=$(basename "$(dirname "$hex")"); base=${hex%.hex}
  for mode in tree json strict; do
    case $mode in tree) opt= ;; json) opt=--json ;; strict) opt="--strict --json" ;; esac
    if [ -f "$base.err" ]; then want=1
    elif [ $mode = strict ] && [ -f "$base.diag" ]; then want=3
    else want=0; fi
    # shellcheck disable=SC2086
    "$pcqdump" $opt --hex --kind "$kind" "$hex" > "$tmp/out" 2> "$tmp/err"; rc=$?
    why=
    if [ $rc != $want ]; then why="exit status $rc, expected $want"
    elif [ $want = 0 ] && [ ! -s "$tmp/out" ]; then why="printed nothing"
    elif [ $want != 0 ] && [ ! -s "$tmp/err" ]; then why="no message on stderr"
    elif [ $want = 1 ] && [ $mode = tree ] && ! grep -q '\*\* malformed: ' "$tmp/out"; then
      why="the tree does not end with the error"
    elif [ $want = 1 ] && [ $mode != tree ] && ! grep -q '"error": {"code": ' "$tmp/out"; then
      why="the JSON has no error member"
    fi
    if [ -z "$why" ]; then pass=$((pass + 1)); else
      fail=$((fail + 1))
      echo "FAIL: pcqdump $opt --hex --kind $kind $hex: $why"
      head -n 3 "$tmp/err" | sed 's/^/    /'
    fi
  done
done
echo "pcqdump: $pass passed, $fail failed"
[ $fail = 0 ]
