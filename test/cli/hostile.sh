#!/bin/sh
# SPDX-License-Identifier: MIT
# test/cli/hostile.sh - pcqdump as a tool people run on hostile files: what it
# prints and its exit status (0 decoded, 1 malformed, 2 usage or I/O, 3
# non-conformant under --strict).
#
#   sh test/cli/hostile.sh PCQDUMP        from the top of the tree
#
# Prints one line per failure and ends with `hostile: N passed, N failed`.
set -u
dump=$1
tmp=${TMPDIR:-/tmp}/pcq-hostile.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS DESCRIPTION COMMAND...: runs it (stdout and stderr to files)
expect() {
  want=$1; what=$2; shift 2
  "$@" > "$tmp/out" 2> "$tmp/err"
  got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, expected $want"; head -n 3 "$tmp/err"; fi
}
has() {   # has FILE PATTERN DESCRIPTION
  if grep -q -- "$2" "$1"; then ok; else bad "$3: no '$2' in $(basename "$1")"; fi
}
lacks() {
  if grep -q -- "$2" "$1"; then bad "$3: '$2' in $(basename "$1")"; else ok; fi
}

v=vectors

# ---- failed writes: exit 2 with a message --------------------------------
if [ -w /dev/full ]; then
  "$dump" --help > /dev/full 2> "$tmp/err"; st=$?
  if [ $st = 2 ] && grep -q "write error" "$tmp/err"; then ok; else bad "--help > /dev/full: exit $st"; fi
  "$dump" --version > /dev/full 2> "$tmp/err"; st=$?
  if [ $st = 2 ] && grep -q "write error" "$tmp/err"; then ok; else bad "--version > /dev/full: exit $st"; fi
  "$dump" --hex --kind data $v/data/processor-information.hex > /dev/full 2> "$tmp/err"; st=$?
  if [ $st = 2 ] && grep -q "write error" "$tmp/err"; then ok; else bad "tree > /dev/full: exit $st"; fi
  "$dump" --json --hex --kind data $v/data/bad-cut-reply.hex > /dev/full 2> "$tmp/err"; st=$?
  if [ $st = 2 ]; then ok; else bad "malformed JSON > /dev/full: exit $st (the write error wins)"; fi
fi
# a closed pipe: more output than a pipe holds, a reader that stops at once
st=$( { "$dump" --hex --kind counterset-info $v/counterset-info/nc-large-set.hex 2> "$tmp/err"; echo $? > "$tmp/st"; } | head -c 1 > /dev/null; cat "$tmp/st")
if [ "$st" = 2 ] && grep -q "write error" "$tmp/err"; then ok; else bad "closed pipe: exit $st"; fi

# ---- options ---------------------------------------------------------------
expect 2 "--kind twice" "$dump" --kind data --kind strings --hex $v/data/empty-query.hex
has "$tmp/err" "given twice" "--kind twice"
expect 2 "--json twice" "$dump" --json --json --kind data --hex $v/data/empty-query.hex
expect 2 "--hex twice" "$dump" --hex --hex --kind data $v/data/empty-query.hex
expect 2 "--strict twice" "$dump" --strict --strict --kind data --hex $v/data/empty-query.hex
expect 2 "--max-input twice" "$dump" --max-input 1K --max-input=2K --kind data --hex $v/data/empty-query.hex
expect 2 "--max-input bad" "$dump" --max-input 12Q --kind data --hex $v/data/empty-query.hex
expect 2 "no file" "$dump" --kind data
expect 2 "two files" "$dump" --kind data a b

# ---- the input cap ---------------------------------------------------------
expect 2 "input over --max-input" "$dump" --max-input 100 --hex --kind data $v/data/processor-information.hex
has "$tmp/err" "input cap" "input over --max-input"
expect 0 "input within --max-input" "$dump" --max-input 64K --hex --kind data $v/data/processor-information.hex
head -c 300000 /dev/zero > "$tmp/zeros"
expect 2 "raw input over the cap" "$dump" --max-input 256K --kind data "$tmp/zeros"
expect 1 "raw input under the cap" "$dump" --max-input 512K --kind data "$tmp/zeros"

# ---- escapes: nothing raw reaches a terminal --------------------------------
esc=$(printf '\033')
del=$(printf '\177')
c1=$(printf '\302\205')
rlo=$(printf '\342\200\256')
for mode in tree json; do
  opt=; [ $mode = json ] && opt=--json
  expect 0 "name-controls ($mode)" "$dump" $opt --hex --kind instances $v/instances/name-controls.hex
  for raw in "$esc" "$del" "$c1" "$rlo"; do lacks "$tmp/out" "$raw" "name-controls ($mode): raw control"; done
  has "$tmp/out" '\\u001b' "name-controls ($mode)"
  has "$tmp/out" '\\u007f' "name-controls ($mode)"
  has "$tmp/out" '\\u0085' "name-controls ($mode)"
  has "$tmp/out" '\\u202e' "name-controls ($mode)"
done

# ---- malformed: the partial tree or JSON, then the error -------------------
expect 1 "cut reply (tree)" "$dump" --hex --kind data $v/data/bad-cut-reply.hex
has "$tmp/out" "InstanceName: \"0,0\"" "cut reply (tree): the first instance"
has "$tmp/out" "Value: 625000" "cut reply (tree): its last value"
has "$tmp/out" "\*\* malformed: " "cut reply (tree): the error line"
has "$tmp/err" "offset 0xa0: .*(_PERF_INSTANCE_HEADER.Size)" "cut reply: offset and field on stderr"
expect 1 "cut reply (json)" "$dump" --json --hex --kind data $v/data/bad-cut-reply.hex
has "$tmp/out" '"error": {"code": "PCQ_ERR_TRUNCATED", "offset": 160, "field": "_PERF_INSTANCE_HEADER.Size"' "cut reply (json)"
has "$tmp/out" '"name": "0,0"' "cut reply (json): the first instance"

# ---- --strict: every finding, then a later malformed part -----------------
expect 3 "--strict on a non-conformant buffer" "$dump" --strict --hex --kind counterset-info $v/counterset-info/nc-related-every-finding.hex
n=$(grep -c "non-conformant:" "$tmp/err")
if [ "$n" = 4 ]; then ok; else bad "--strict: $n findings reported, expected 4"; fi
has "$tmp/out" "_PERF_COUNTER_REG_INFO\[2\]" "--strict still shows the whole buffer"
expect 1 "--strict: malformed after non-conformant" "$dump" --strict --hex --kind data $v/data/bad-type-after-reserved.hex
has "$tmp/err" "offset 0x3c: non-conformant:" "--strict: the finding"
has "$tmp/err" "offset 0x44: dwType is not" "--strict: the malformed part after it"
expect 0 "lenient: the same finding is a warning" "$dump" --hex --kind counterset-info $v/counterset-info/nc-related-every-finding.hex
has "$tmp/err" "warning:" "lenient warnings"

# ---- --cook: the decoder's error format, and what to do ---------------------
expect 1 "--cook on a malformed sample" "$dump" --cook --hex --info $v/counterset-info/small-raw-fraction-pair.hex $v/data/bad-cut-reply.hex
has "$tmp/err" "bad-cut-reply.hex: offset 0xa0: .*(_PERF_INSTANCE_HEADER.Size)" "--cook error format"
expect 1 "--cook: more blocks than counters, no --ids" "$dump" --cook --hex --info $v/counterset-info/zero-counters.hex $v/data/single-counter-u32.hex
has "$tmp/err" "offset 0x30: " "--cook: the block's offset"
has "$tmp/err" "pass --ids" "--cook: the hint"
has "$tmp/err" "1 blocks and the counterset-info 0 counters" "--cook: the counts"

echo "hostile: $pass passed, $fail failed"
[ "$fail" = 0 ]
