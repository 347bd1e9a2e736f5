#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
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
#   walk/v-<kind>-<name>             sel = k-1, then the buffer
#   capacity/v-<kind>-<name>         sel = k-1, cut = 0x80, then the buffer
# where k is the pcq_kind of the directory (1 counterset-info .. 9 data).
#   cook/v-<counterset>-<data>       flags 0, lengths, info, data twice (older =
#                                    newer), no identifiers; and one with fig4
#                                    identifiers; plus script-mode seeds s-*
#   capacity/s-huge-value            a value too big for the 32-bit sizes
#   capacity/s-limits-*              one block / instance past the caps
#   calc/v-type-<i>                  entry i of the evaluator's table with sane
#                                    samples (fuzz/fuzz_calc.c's layout)
# Only files named v-* and s-* are replaced; what the fuzzers found stays.
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
le16() { byte $(($1 & 255)); byte $((($1 >> 8) & 255)); }
le32() { le16 $(($1 & 65535)); le16 $((($1 >> 16) & 65535)); }
le64() { le32 $(($1 & 4294967295)); le32 $((($1 >> 32) & 4294967295)); }

for t in decode strict roundtrip capacity cook calc walk; do
  mkdir -p "fuzz/corpus/$t"
  find "fuzz/corpus/$t" -maxdepth 1 \( -name 'v-*' -o -name 's-*' \) -type f -delete
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
    { byte "$sel"; cat "$tmp"; } > "fuzz/corpus/walk/v-$kind-$name"
    { byte "$sel"; byte 128; cat "$tmp"; } > "fuzz/corpus/capacity/v-$kind-$name"
    rm -f "$tmp"
    n=$((n + 1))
  done
done
echo "seed: $n vectors into fuzz/corpus/{decode,strict,roundtrip,capacity,walk}"

# cook: every good counterset-info with every good data buffer.
good() { for h in vectors/"$1"/*.hex; do
           b=$(basename "$h" .hex); case $b in bad-*|nc-*) ;; *) echo "$h" ;; esac; done; }
tmpdir=$(mktemp -d)
c=0
for info in $(good counterset-info); do
  hex2bin "$info" > "$tmpdir/info"
  for data in $(good data); do
    hex2bin "$data" > "$tmpdir/data"
    li=$(wc -c < "$tmpdir/info"); ld=$(wc -c < "$tmpdir/data")
    out="fuzz/corpus/cook/v-$(basename "$info" .hex)-$(basename "$data" .hex)"
    { byte 0; le16 "$li"; le16 "$ld"; le16 "$ld"; le16 0
      cat "$tmpdir/info" "$tmpdir/data" "$tmpdir/data"; } > "$out"
    c=$((c + 1))
  done
done
if [ -f vectors/counterset-info/processor-information.hex ] && \
   [ -f vectors/data/processor-information.hex ] && [ -f vectors/identifiers/fig4.hex ]; then
  hex2bin vectors/counterset-info/processor-information.hex > "$tmpdir/info"
  hex2bin vectors/data/processor-information.hex > "$tmpdir/data"
  hex2bin vectors/identifiers/fig4.hex > "$tmpdir/ids"
  li=$(wc -c < "$tmpdir/info"); ld=$(wc -c < "$tmpdir/data"); lx=$(wc -c < "$tmpdir/ids")
  { byte 0; le16 "$li"; le16 "$ld"; le16 "$ld"; le16 "$lx"
    cat "$tmpdir/info" "$tmpdir/data" "$tmpdir/data" "$tmpdir/ids"; } \
    > fuzz/corpus/cook/v-processor-information-fig4-ids
  c=$((c + 1))
fi
# Script mode (byte 0 bit 7): a fixed pseudo-random script per seed.
for i in 1 2 3 4 5 6 7 8; do
  { byte $((0x80 | i)); LC_ALL=C awk -v seed="$i" 'BEGIN { srand(seed); for (k = 0; k < 300; k++)
      printf "%c", int(rand() * 256) }' | LC_ALL=C tr -d '\n' ; } > "fuzz/corpus/cook/s-script-$i" 2>/dev/null
  c=$((c + 1))
done
rm -rf "$tmpdir"
echo "seed: $c inputs into fuzz/corpus/cook"

# capacity: the oversized-value check (byte 1 = 0xFF), chaos mode.
{ byte 64; byte 255; byte 0; } > fuzz/corpus/capacity/s-huge-value
{ byte 64; byte 254; byte 0; } > fuzz/corpus/capacity/s-limits-blocks
{ byte 64; byte 254; byte 1; } > fuzz/corpus/capacity/s-limits-error-blocks

# calc: each entry of the evaluator's table (tsel = i), scale 0, flags 0, both
# samples with every related value present and sane deltas.
sample() {   # value base obj_time obj_freq multi time time_100ns freq
  for v in "$@"; do le64 "$v"; done; byte 0; byte 0; byte 15
}
for i in $(seq 0 39); do
  { byte "$i"; le32 0; byte 12; byte 0; byte 1
    sample 100 10 1000 10 2 1000 10000 100
    sample 250 20 2000 10 2 2000 20000 100
    le64 0; byte 64; le64 4609434218613702656; } > "fuzz/corpus/calc/v-type-$i"
done
echo "seed: 40 inputs into fuzz/corpus/calc"
