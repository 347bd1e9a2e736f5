#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci/wireshark-check.sh - the Wireshark plugin against the captures of
# wireshark/captures/ (make wireshark-check; .ci/run's `wireshark` step).
#
#   1. installs what is missing when run as root (apt-get: tshark,
#      libwireshark-dev, libglib2.0-dev, tcpdump, python3-impacket,
#      python3-scapy), builds pcqdump, wireshark/pcq.so and its ASan + UBSan
#      twin wireshark/pcq-asan.so;
#   2. asserts the plugin loads (tshark -G plugins / protocols / fields: a
#      plugin that fails to load does not fail tshark) and that the public
#      fields exist with their types;
#   3. wireshark/test/compare.py: every call of every capture, tshark's pcq.*
#      fields against pcqdump --json on the manifest's lpData bytes, the
#      expert infos, the cooked values against pcqdump --cook; in one pass
#      and with -2;
#   4. robustness: editcap -E copies of every capture (several seeds)
#      dissected with -V (and -2): no "Dissector bug", no crash;
#   5. steps 3 and 4 once more with the ASan + UBSan plugin, without a report.
# tshark runs as a user other than root (as root it ignores the personal
# plugin folder) with HOME in a temporary folder. Ends with one line
# `wireshark: N passed, N failed`; exits 1 on any failure. About 2 minutes.
# `bash ci/wireshark-check.sh --deps-only` only does the installing of step 1.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
PY=/usr/bin/python3
SEEDS=${WIRESHARK_SEEDS:-"1 2 3"}
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "wireshark-check: FAIL: $*"; }
finish() {
  echo "wireshark: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

# ---- 1. packages and builds --------------------------------------------------
pkgs=(tshark libwireshark-dev libglib2.0-dev tcpdump python3-impacket python3-scapy pkg-config)
mkdir -p build
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "wireshark-check: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null
    { apt-get update -q && apt-get install -y -q "${missing[@]}"; } >build/wireshark-apt.log 2>&1 ||
      { tail -n 20 build/wireshark-apt.log; bad "apt-get install ${missing[*]}"; finish; }
  else
    bad "missing packages (run as root to install them): ${missing[*]}"
    finish
  fi
fi
[ "${1:-}" = --deps-only ] && exit 0   # .ci/run installs every step's packages first
make --no-print-directory build >/dev/null || { bad "make build"; finish; }
make --no-print-directory wireshark || { bad "make wireshark"; finish; }
make --no-print-directory wireshark-asan || { bad "make wireshark-asan"; finish; }
ok

WORK=$(mktemp -d /tmp/pcq-wireshark.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK"
abi=$(pkg-config --modversion wireshark | cut -d. -f1,2)
mkdir -p "$WORK/caps"
cp wireshark/captures/*.pcap wireshark/captures/manifest.json "$WORK/caps/" # readable by the tshark user
for v in plain asan; do
  d="$WORK/home-$v/.local/lib/wireshark/plugins/$abi/epan"
  mkdir -p "$d"
  if [ $v = plain ]; then cp wireshark/pcq.so "$d/pcq.so"; else cp wireshark/pcq-asan.so "$d/pcq.so"; fi
done
chmod -R a+rX "$WORK"

# tshark_cmd VARIANT: the command line that runs tshark with that plugin.
tshark_cmd() {
  local env="HOME=$WORK/home-$1"
  if [ "$1" = asan ]; then
    env="$env LD_PRELOAD=$(gcc -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0:abort_on_error=0"
    env="$env UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
  fi
  if [ "$(id -u)" = 0 ]; then echo "runuser -u nobody -- env $env tshark"; else echo "env $env tshark"; fi
}
TS=$(tshark_cmd plain)

# ---- 2. the plugin loads, the public fields exist ------------------------------
if $TS -G plugins 2>/dev/null | grep -q 'pcq\.so'; then ok; else bad "tshark -G plugins does not list pcq.so"; fi
if $TS -G protocols 2>/dev/null | grep -qP '\tpcq$'; then ok; else bad "tshark -G protocols has no pcq"; fi
$TS -G fields 2>/dev/null >"$WORK/fields"
for f in pcq.request_code:FT_UINT32 pcq.counterset:FT_GUID pcq.counter.id:FT_UINT32 pcq.counter.type:FT_UINT32 \
         pcq.counter.value:FT_UINT64 pcq.instance.name:FT_STRING pcq.instance.id:FT_UINT32 pcq.string:FT_STRING \
         pcq.counter.cooked:FT_DOUBLE pcq.malformed: pcq.nonconformant:; do
  name=${f%%:*} type=${f#*:}
  if grep -qP "^[FE]\t[^\t]*\t\Q$name\E\t${type}" "$WORK/fields"; then ok; else bad "field $name ${type:-(expert)} not registered"; fi
done

# every registered field is in wireshark/README.md's list (generated from -G fields)
undocumented=$(awk -F'\t' '$3 ~ /^pcq\./ {print $3}' "$WORK/fields" | while read -r f; do
  grep -qF "\`$f\`" wireshark/README.md || echo "$f"; done)
if [ -z "$undocumented" ]; then ok; else bad "fields missing from wireshark/README.md: $undocumented"; fi

# ---- 3. fields against pcqdump, one pass and two ------------------------------
compare() { # compare VARIANT [--two-pass]
  local v=$1 out
  shift
  out=$("$PY" wireshark/test/compare.py --tshark "$(tshark_cmd "$v")" --pcqdump ./pcqdump \
    --manifest "$WORK/caps/manifest.json" --stderr-log "$WORK/stderr-$v" "$@")
  echo "$out" | grep -v '^compare: ' | head -n 40
  local line
  line=$(echo "$out" | tail -n 1)
  echo "wireshark-check: $v ${1:-one pass}: $line"
  passed=$((passed + $(echo "$line" | sed -n 's/^compare: \([0-9]*\) passed.*/\1/p')))
  failed=$((failed + $(echo "$line" | sed -n 's/.* \([0-9]*\) failed$/\1/p')))
  [ -n "$(echo "$line" | sed -n 's/^compare: \([0-9]*\) passed.*/\1/p')" ] || bad "compare.py ($v $*) did not finish"
}

# ---- 4. corrupted captures ----------------------------------------------------
robust() { # robust VARIANT
  local v=$1 cap seed opts out rc tsv
  tsv=$(tshark_cmd "$v")
  for cap in "$WORK"/caps/*.pcap; do
    opts=$("$PY" -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(" ".join(x for c in m["captures"] if c["file"] == sys.argv[2] for x in c["tshark"]))' \
      "$WORK/caps/manifest.json" "$(basename "$cap")")
    for seed in $SEEDS; do
      editcap -E 0.05 --seed "$seed" "$cap" "$WORK/bad.pcap" >/dev/null 2>&1 || { bad "editcap $cap"; continue; }
      chmod a+r "$WORK/bad.pcap"
      for pass in "" -2; do
        out=$($tsv -n -r "$WORK/bad.pcap" $opts $pass -V 2>>"$WORK/stderr-$v")
        rc=$?
        if [ $rc -ge 128 ] || echo "$out" | grep -q 'Dissector bug'; then
          bad "$v: $(basename "$cap") seed $seed ${pass:-one pass}: exit $rc$(echo "$out" | grep -m1 'Dissector bug')"
        else
          ok
        fi
      done
    done
  done
}

# sanitizer reports in what tshark printed on standard error
no_reports() { # no_reports VARIANT
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer' "$WORK/stderr-$1" 2>/dev/null; then
    grep -m5 -E 'AddressSanitizer|runtime error:|UndefinedBehaviorSanitizer' "$WORK/stderr-$1"
    bad "$1: sanitizer report"
  else
    ok
  fi
}

t0=$(date +%s)
compare plain
compare plain --two-pass
robust plain
echo "wireshark-check: plain build done ($(( $(date +%s) - t0 )) s)"
# ---- 5. the whole set under ASan + UBSan ----------------------------------------
# (-G plugins hangs under the ASan runtime here: -G protocols tells as well)
if timeout 120 $(tshark_cmd asan) -G protocols 2>/dev/null | grep -qP '\tpcq$'; then ok; else bad "the ASan plugin does not load"; fi
compare asan
compare asan --two-pass
robust asan
no_reports asan
echo "wireshark-check: ASan + UBSan build done ($(( $(date +%s) - t0 )) s)"
finish
