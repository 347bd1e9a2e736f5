#!/usr/bin/env bash
# fuzz/seed.sh - (re)writes the seed corpora of the fuzz targets from vectors/.
#
#   bash fuzz/seed.sh            from the top of the tree
#
# Each vectors/<kind>/<name>.hex becomes binary bytes (comments and whitespace
# stripped, as pcqdump --hex reads it) behind the selector bytes each target
# expects (fuzz/fuzz_util.h):
#   decode/v-<kind>-<name>-lenient   sel = (k-1) | 0x10, then the buffer
#   decode/v-<kind>-<name>-strict    sel = (k-1) | 0x20, then the buffer
#   strict/v-<kind>-<name>           sel = k-1, then the buffer
#   roundtrip/v-<kind>-<name>        sel = k-1, then the buffer
#   capacity/v-<kind>-<name>         sel = k-1, cut = 0x80, then the buffer
# where k is the pcq_kind of the directory (1 counterset-info .. 9 data).
# calc and cook seeds are written by fuzz/seed_calc.sh (structured inputs).
# Only files named v-* are replaced; what the fuzzers found stays.
set -euo pipefail
cd "$(dirname "$0")/.."

kinds=(none counterset-info counter-info strings string guid guids instances identifiers data)

hex2bin() {   # file -> raw bytes on stdout
  local hex
  hex=$(sed -e 's/#.*//' "$1" | tr -d ' \t\r\n')
  if [ $(( ${#hex} % 2 )) -ne 0 ]; then
    echo "seed: $1: odd number of hex digits" >&2
    return 1
  fi
  printf '%b' "$(printf '%s' "$hex" | sed 's/../\\x&/g')"
}

byte() { printf "\\x$(printf '%02x' "$1")"; }

for t in decode strict roundtrip capacity; do
  mkdir -p "fuzz/corpus/$t"
  find "fuzz/corpus/$t" -maxdepth 1 -name 'v-*' -type f -delete
done

n=0
for k in $(seq 1 9); do
  kind=${kinds[$k]}
  for hex in vectors/"$kind"/*.hex; do
    [ -f "$hex" ] || continue
    name=$(basename "$hex" .hex)
    tmp=$(mktemp)
    hex2bin "$hex" > "$tmp"
    sel=$((k - 1))
    { byte $((sel | 0x10)); cat "$tmp"; } > "fuzz/corpus/decode/v-$kind-$name-lenient"
    { byte $((sel | 0x20)); cat "$tmp"; } > "fuzz/corpus/decode/v-$kind-$name-strict"
    { byte "$sel"; cat "$tmp"; } > "fuzz/corpus/strict/v-$kind-$name"
    { byte "$sel"; cat "$tmp"; } > "fuzz/corpus/roundtrip/v-$kind-$name"
    { byte "$sel"; byte 128; cat "$tmp"; } > "fuzz/corpus/capacity/v-$kind-$name"
    rm -f "$tmp"
    n=$((n + 1))
  done
done
echo "seed: $n vectors into fuzz/corpus/{decode,strict,roundtrip,capacity}"
