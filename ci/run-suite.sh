#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/run-suite.sh - runs test binaries and fuzz replays of one build variant
# (called by mk/hardening.mk; run from anywhere, it works from the top of the tree).
#
#   sh ci/run-suite.sh NAME [--results FILE] [--runner "CMD"] [--quiet]
#                      [TEST_BIN...] [--replay DIR [--compare REF_DIR]]
#
# Each TEST_BIN runs from the top of the tree (as `CMD TEST_BIN` with a runner,
# e.g. qemu or valgrind); it passes when it exits 0 and its last line is
# `N passed, 0 failed`; its counts are added up. A test that dies without that
# line counts as one failure.
# --replay DIR: every DIR/fuzz_<t> replays fuzz/corpus/<t>/ in one run (one
# check) and each file of fuzz/crashers/<t>/ in a run of its own (one check
# each), so one bad input cannot hide the others.
# --compare REF_DIR: the corpus replay also records, input by input, a digest
# of what the decoders returned (PCQ_REPLAY_DIGEST), and REF_DIR/fuzz_<t> (a
# native build, run without the runner) must record the same: one more check
# per target ("the same results on this platform").
# Prints `NAME: N passed, N failed`, appends that line to FILE when given, and
# exits 1 when anything failed.
set -u
cd "$(dirname "$0")/.." || exit 2

name=$1; shift
results= runner= quiet=0 replay= compare= tests=
while [ $# -gt 0 ]; do
  case $1 in
    --results) results=$2; shift 2 ;;
    --runner) runner=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    --replay) replay=$2; shift 2 ;;
    --compare) compare=$2; shift 2 ;;
    *) tests="$tests $1"; shift ;;
  esac
done

passed=0 failed=0
log=$(mktemp)
dig=$(mktemp)
ref=$(mktemp)
trap 'rm -f "$log" "$dig" "$ref"' EXIT

show() { [ "$quiet" = 1 ] || cat "$log"; }

# Under a slow runner the tests sample their prefixes and mutations
# (test/test_walk.c); natively they take every one.
[ -n "$runner" ] && export PCQ_TEST_SPARSE=1

for t in $tests; do
  [ "$quiet" = 1 ] || echo "== $name: $t"
  $runner "$t" > "$log" 2>&1
  rc=$?
  show
  line=$(tail -n 1 "$log")
  p=$(echo "$line" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\1/p')
  f=$(echo "$line" | sed -n 's/^\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed$/\2/p')
  if [ -z "$p" ]; then
    echo "FAIL: $name: $t died without a summary line (exit status $rc)"
    [ "$quiet" = 1 ] && tail -n 20 "$log"
    failed=$((failed + 1))
    continue
  fi
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    echo "FAIL: $name: $t exited with status $rc"
    [ "$quiet" = 1 ] && tail -n 20 "$log"
    f=1
  fi
  passed=$((passed + p)); failed=$((failed + f))
done

replay_one() {   # binary, inputs...
  $runner "$@" > "$log" 2>&1
  rc=$?
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1))
    [ "$quiet" = 1 ] || tail -n 1 "$log"
  else
    failed=$((failed + 1))
    echo "FAIL: $name: $* (exit status $rc)"
    grep -E 'PROPERTY FAILED|ERROR: |SUMMARY: |runtime error|Invalid|uninitialised|definitely lost' \
      "$log" | head -n 10
  fi
}

if [ -n "$replay" ]; then
  for bin in "$replay"/fuzz_*; do
    [ -x "$bin" ] || continue
    t=${bin##*/fuzz_}
    if [ -d "fuzz/corpus/$t" ]; then
      : > "$dig"
      PCQ_REPLAY_DIGEST=$dig replay_one "$bin" "fuzz/corpus/$t"
      if [ -n "$compare" ]; then
        : > "$ref"
        PCQ_REPLAY_DIGEST=$ref "$compare/fuzz_$t" "fuzz/corpus/$t" > /dev/null 2>&1
        if [ -s "$ref" ] && [ "$(sort "$dig")" = "$(sort "$ref")" ]; then
          passed=$((passed + 1))
          [ "$quiet" = 1 ] || echo "$bin: the same results as $compare/fuzz_$t ($(wc -l < "$ref") inputs)"
        else
          failed=$((failed + 1))
          echo "FAIL: $name: $bin and $compare/fuzz_$t disagree on:"
          sort "$dig" > "$log.a"; sort "$ref" > "$log.b"
          diff "$log.a" "$log.b" | grep '^[<>]' | head -n 6
          rm -f "$log.a" "$log.b"
        fi
      fi
    fi
    if [ -d "fuzz/crashers/$t" ]; then
      for c in "fuzz/crashers/$t"/*; do
        [ -f "$c" ] && replay_one "$bin" "$c"
      done
    fi
  done
fi

summary="$name: $passed passed, $failed failed"
echo "$summary"
if [ -n "$results" ] && [ -d "$(dirname "$results")" ]; then
  echo "$summary" >> "$results"
fi
[ "$failed" = 0 ]
