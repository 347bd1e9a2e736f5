#!/bin/sh
# SPDX-License-Identifier: MIT
# test/cli/monitoring.sh PCQDUMP - pcqdump --cook --format prometheus|influx
# against the expected outputs in test/cli/monitoring/ (make check, through
# make check-monitoring-unit; no tool needed). The real parsers (promtool, a
# throwaway influxd) are ci/check-monitoring.sh's.
# Last line: `monitoring: N passed, N failed`.
set -u
cd "$(dirname "$0")/../.." || exit 2
dump=$1
M=test/cli/monitoring
V=vectors
info=$V/counterset-info/small-raw-fraction-pair.hex
d=$V/data/counterset-2x3.hex
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
pass=0 fail=0
check() {   # check EXPECTED FORMAT ARGS...: pcqdump --cook --hex --format FORMAT ARGS... is EXPECTED
  want=$1 fmt=$2
  shift 2
  if "$dump" --cook --hex --format "$fmt" "$@" > "$out" 2>/dev/null && cmp -s "$out" "$want"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: pcqdump --cook --hex --format $fmt $*: not $want"
    diff "$want" "$out" | head -n 6 | sed 's/^/    /'
  fi
}
for fmt in prom:prometheus influx:influx; do
  ext=${fmt%%:*} f=${fmt#*:}
  check $M/cook-2x3.$ext "$f" --info $info $d $d
  check $M/cook-path-chars.$ext "$f" --info $info $V/data/instance-name-path-chars.hex
  check $M/cook-names-spec-set.$ext "$f" --info $info --names $V/strings/spec-counter-names.hex \
    --set-name "My Set" $d $d
  check $M/hostile.$ext "$f" --info $M/hostile-info.hex --names $M/hostile-names.hex \
    --set-name 'Disk, "Hostile"=Set\' $M/hostile-data-1.hex $M/hostile-data-2.hex
done
# --format and the old options: csv and json are --csv and --json; two formats are a usage error
"$dump" --cook --hex --csv --info $info $d $d > "$out.a" 2>/dev/null
"$dump" --cook --hex --format csv --info $info $d $d > "$out.b" 2>/dev/null
if cmp -s "$out.a" "$out.b" && cmp -s "$out.a" test/cli/cook-2x3.csv; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: --format csv is not --csv"; fi
"$dump" --cook --hex --json --info $info $d $d > "$out.a" 2>/dev/null
"$dump" --cook --hex --format=json --info $info $d $d > "$out.b" 2>/dev/null
if cmp -s "$out.a" "$out.b" && [ -s "$out.a" ]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: --format=json is not --json"; fi
rm -f "$out.a" "$out.b"
for bad in "--json --format prometheus" "--format xml" "--csv --json" "--format"; do
  # shellcheck disable=SC2086
  "$dump" --cook --hex $bad --info $info $d $d > /dev/null 2>&1
  if [ $? = 2 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --cook $bad: not a usage error"; fi
done
echo "monitoring: $pass passed, $fail failed"
[ $fail = 0 ]
