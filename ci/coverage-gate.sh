#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/coverage-gate.sh - line and branch coverage of chosen source files, from
# `llvm-cov show -show-line-counts -show-branches=count` of each file
# (mk/hardening.mk writes build/hardening/cov/show-<file>.txt).
#
#   sh ci/coverage-gate.sh [--report-only] DIR FILE...   gate (or just print)
#   sh ci/coverage-gate.sh --uncovered DIR FILE...       what was never run
#
# For each FILE (DIR/show-FILE.txt) prints
#   coverage: pcq_codec.c lines 1234/1234 (100.00%) branches 567/590 (96.10%) [excluded ...]
# and, unless --report-only, exits 1 when a file has lines under COV_MIN_LINES
# percent (default 100: every line) or branches under COV_MIN_BRANCHES percent
# (default 95). Counted from the counts, not rounded percentages.
#
# Not counted, because no input can run them or they are not code:
#   - preprocessor lines (`#define`, `#undef` inside a switch: llvm-cov gives
#     them the gap after a macro expansion);
#   - a defensive check marked in the source: the branches of a line that
#     uses NEVER( or ALWAYS( (SQLite's convention: a condition no input can
#     make true / false), and the lines never run right after it (its body);
#   - lines marked LCOV_EXCL_LINE, or between LCOV_EXCL_START and LCOV_EXCL_STOP.
# Everything excluded is counted and printed, so the gate hides nothing silently.
set -u
mode=gate
case ${1:-} in
  --report-only) mode=report; shift ;;
  --uncovered) mode=uncovered; shift ;;
esac
dir=$1; shift
min_lines=${COV_MIN_LINES:-100}
min_branches=${COV_MIN_BRANCHES:-95}
bad=0
for f in "$@"; do
  show="$dir/show-$(basename "$f").txt"
  if [ ! -s "$show" ]; then
    echo "coverage: no $show"
    bad=1
    continue
  fi
  awk -v f="$f" -v mode="$mode" -v ml="$min_lines" -v mb="$min_branches" '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    function zero(c) { return c == "0" }
    /^  -+$/ { group++; next }                        # separates the copies of a line
    /^  \|  Branch \(/ {                              # "  |  Branch (L:C): [True: a, False: b]"
      s = $0; sub(/.*Branch \(/, "", s); lc = s; sub(/\).*/, "", lc); bl = lc; sub(/:.*/, "", bl)
      if (s !~ /True: /) next                          # folded constant condition
      t = s; sub(/.*True: /, "", t); sub(/,.*/, "", t)
      u = s; sub(/.*False: /, "", u); sub(/\].*/, "", u)
      # The k-th branch at L:C in a group: the same branch in every copy of the
      # function (a copy per build with other knobs), another one (a case of a
      # macro-expanded switch) within a group.
      g = lc SUBSEP group; k = ++seen[g]; key = lc SUBSEP k
      if (!(key in bline)) { nb++; keys[nb] = key; bline[key] = bl + 0 }
      if (!zero(trim(t))) btrue[key] = 1
      if (!zero(trim(u))) bfalse[key] = 1
      next
    }
    {
      p = index($0, "|")
      if (p == 0) next
      head = trim(substr($0, 1, p - 1)); rest = substr($0, p + 1)
      if (head ~ /^[0-9]+$/) {                     # "  NN|  count|source"
        q = index(rest, "|")
        n = head + 0; cnt[n] = trim(substr(rest, 1, q - 1)); src[n] = substr(rest, q + 1)
        if (n > last) last = n
      }
    }
    END {
      excl = 0
      for (n = 1; n <= last; n++) {
        s = (n in src) ? src[n] : ""
        if (s ~ /LCOV_EXCL_START/) excl = 1
        marked[n] = excl || s ~ /LCOV_EXCL_LINE/
        if (s ~ /LCOV_EXCL_STOP/) excl = 0
        guard[n] = s ~ /(NEVER|ALWAYS)\(/ && s !~ /^[ \t]*#/
        if (guard[n]) marked[n] = 1
        else if (n > 1 && guard[n - 1] && zero(cnt[n])) { marked[n] = 1; guard[n] = 1; body[n] = 1 }
        else if (n > 1 && body[n - 1] && zero(cnt[n])) { marked[n] = 1; guard[n] = 1; body[n] = 1 }
      }
      for (n = 1; n <= last; n++) {
        if (!(n in cnt) || cnt[n] == "") continue        # not code
        if (src[n] ~ /^[ \t]*#/) { pre++; continue }      # preprocessor line
        if (marked[n]) { xl++; continue }
        lines++
        if (zero(cnt[n])) { lmiss++; if (mode == "uncovered") printf "%s:%d: never run:%s\n", f, n, src[n] }
      }
      for (i = 1; i <= nb; i++) {
        key = keys[i]; L = bline[key]
        if (marked[L]) { xb += 2; continue }
        br += 2
        if (!(key in btrue)) { bmiss++; if (mode == "uncovered") printf "%s:%d: branch never true:%s\n", f, L, src[L] }
        if (!(key in bfalse)) { bmiss++; if (mode == "uncovered") printf "%s:%d: branch never false:%s\n", f, L, src[L] }
      }
      if (mode == "uncovered") exit 0
      lp = lines ? 100 * (lines - lmiss) / lines : 100
      bp = br ? 100 * (br - bmiss) / br : 100
      ok = (100 * (lines - lmiss) >= ml * lines) && (100 * (br - bmiss) >= mb * br)
      printf "coverage: %s lines %d/%d (%.2f%%) branches %d/%d (%.2f%%)%s [not counted: %d preprocessor lines; marked: %d lines, %d branches]\n",
             f, lines - lmiss, lines, lp, br - bmiss, br, bp, ok ? "" : " BELOW the gate", pre, xl, xb
      exit !ok
    }' "$show"
  [ $? = 0 ] || bad=1
done
if [ "$mode" = gate ]; then
  if [ $bad = 0 ]; then
    echo "coverage-gate: 1 passed, 0 failed (lines >= $min_lines%, branches >= $min_branches%)"
  else
    echo "coverage-gate: 0 passed, 1 failed (lines >= $min_lines%, branches >= $min_branches%)"
    exit 1
  fi
fi
exit 0
