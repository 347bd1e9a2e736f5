#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/fuzz-one.sh - one libFuzzer target for a bounded time. `make fuzz-run`
# calls it once per target, FUZZ_JOBS at a time; run it by hand the same way.
#
#   sh ci/fuzz-one.sh TARGET SECONDS BIN_DIR OUT_DIR MAX_LEN [LIBFUZZER_FLAGS...]
#
# Reads fuzz/corpus/TARGET/ and OUT_DIR/corpus/TARGET/, writes new inputs
# only to the latter (`make fuzz-merge` keeps what adds coverage), a finding
# to OUT_DIR/artifacts/TARGET-*, everything libFuzzer says to
# OUT_DIR/fuzz-TARGET.log. Prints one line when done (several on a finding,
# printed at once so parallel jobs do not interleave) and exits non-zero on a
# finding. Run from the top of the tree.
set -u
cd "$(dirname "$0")/.." || exit 2
t=$1 secs=$2 bin=$3 out=$4 maxlen=$5
shift 5
log=$out/fuzz-$t.log
mkdir -p "$out/corpus/$t" "$out/artifacts"
start=$(date +%s)
"$bin/fuzz_$t" -max_total_time="$secs" -max_len="$maxlen" -dict=fuzz/pcq.dict "$@" \
  -artifact_prefix="$out/artifacts/$t-" "$out/corpus/$t" "fuzz/corpus/$t" > "$log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
cov=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -n 1 | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1, ft \2, corpus \3/p')
if [ "$rc" = 0 ]; then
  echo "fuzz-run: $t: $took s, ${runs:-?} inputs, ${cov:-no stats}, peak ${rss:-?} MB, no finding"
else
  msg=$(grep -E 'PROPERTY FAILED|ERROR: |SUMMARY: |runtime error|Test unit written' "$log" | head -n 20)
  printf 'fuzz-run: %s: FINDING after %s s (exit %s); log: %s\n%s\n' "$t" "$took" "$rc" "$log" "$msg"
fi
exit "$rc"
