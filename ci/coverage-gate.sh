#!/bin/sh
# ci/coverage-gate.sh - line and branch coverage of chosen files from an
# `llvm-cov report` table (mk/hardening.mk: make coverage / coverage-gate).
#
#   sh ci/coverage-gate.sh [--report-only] REPORT FILE...
#   sh ci/coverage-gate.sh --uncovered SHOW.txt     lines and branches never taken
#
# For each FILE (matched by the end of its path in the report) prints
#   coverage: pcq_codec.c lines 1234/1234 (100.00%) branches 567/590 (96.10%)
# and, unless --report-only, exits 1 when a file has any line under
# COV_MIN_LINES percent (default 100: every line) or branches under
# COV_MIN_BRANCHES percent (default 95). The numbers come from the counts,
# not the rounded percentages. A file missing from the report fails.
set -u
if [ "${1:-}" = --uncovered ]; then
  # llvm-cov show output: "  NN|      0|code" is a line never run; "Branch (L:C): [True: 0, ..."
  awk -F'|' '
    /^\/.*:$/ || /^[^ |].*\.c:$/ { file = $0; next }
    $2 ~ /^ *0$/ { printf "%s %s: never run:%s\n", file, $1, $3; next }
    /Branch \(/ && (/True: 0[,\]]/ || /False: 0[,\]]/) { printf "%s %s\n", file, $0 }
  ' "$2"
  exit 0
fi
gate=1
if [ "${1:-}" = --report-only ]; then gate=0; shift; fi
report=$1; shift
min_lines=${COV_MIN_LINES:-100}
min_branches=${COV_MIN_BRANCHES:-95}
bad=0
for f in "$@"; do
  # Columns: Filename, Regions, Missed, Cover, Functions, Missed, Executed,
  #          Lines, Missed, Cover, Branches, Missed, Cover
  row=$(awk -v f="$f" '
    { n = length($1); m = length(f) }
    NF >= 13 && ($1 == f || (n > m && substr($1, n - m) == "/" f)) { print $8, $9, $11, $12; exit }
  ' "$report")
  if [ -z "$row" ]; then
    echo "coverage: $f is not in $report"
    bad=1
    continue
  fi
  set -- $row "$@"
  lines=$1 lmiss=$2 br=$3 bmiss=$4
  shift 4
  out=$(awk -v f="$f" -v l="$lines" -v lm="$lmiss" -v b="$br" -v bm="$bmiss" \
            -v ml="$min_lines" -v mb="$min_branches" 'BEGIN {
    lp = l ? 100 * (l - lm) / l : 100; bp = b ? 100 * (b - bm) / b : 100;
    ok = (100 * (l - lm) >= ml * l) && (100 * (b - bm) >= mb * b);
    printf "coverage: %s lines %d/%d (%.2f%%) branches %d/%d (%.2f%%)%s\n", f, l - lm, l, lp,
           b - bm, b, bp, ok ? "" : " BELOW the gate";
    exit !ok }')
  st=$?
  echo "$out"
  [ $st = 0 ] || bad=1
done
if [ $gate = 1 ]; then
  if [ $bad = 0 ]; then
    echo "coverage-gate: 1 passed, 0 failed (lines >= $min_lines%, branches >= $min_branches%)"
  else
    echo "coverage-gate: 0 passed, 1 failed (lines >= $min_lines%, branches >= $min_branches%)"
    exit 1
  fi
fi
exit 0
