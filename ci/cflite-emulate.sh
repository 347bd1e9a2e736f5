#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci/cflite-emulate.sh - proves .clusterfuzzlite/build.sh without Docker: sets
# the environment ClusterFuzzLite's (OSS-Fuzz's) base-builder gives build.sh,
# runs it once per sanitizer, then runs every target it built for a few seconds
# on its own seed corpus, as the PR-fuzzing job would. Fails on any error: a
# build error, a target, dictionary, options file or seed corpus missing, or a
# target that crashes, leaks, times out or reports undefined behaviour.
#
#   bash ci/cflite-emulate.sh [address] [undefined]      (default: both)
#   CFLITE_SECONDS=5   seconds per target (libFuzzer -max_total_time)
#   CFLITE_KEEP=1      keep the temporary directory (its path is printed)
#
# Emulated: SRC, OUT, WORK, CC=clang, CXX=clang++, SANITIZER, FUZZING_ENGINE,
# CFLAGS/CXXFLAGS as OSS-Fuzz sets them for ASan and for UBSan (with
# -fsanitize=fuzzer-no-link), LIB_FUZZING_ENGINE=-fsanitize=fuzzer, build.sh run
# from $SRC/pcq; the runtime options ClusterFuzz uses (UBSan halts on error and
# is silent on unsigned overflow, which is not undefined).
# Not emulated: base-builder's own clang (this is the distribution's clang), and
# -stdlib=libc++ in CXXFLAGS: clang 14 here has no libc++, so the C++ link of
# the targets uses libstdc++. pcq is C, so only the link step differs. Nor
# MemorySanitizer, which needs an instrumented libc++ for the C++ runtime.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
secs=${CFLITE_SECONDS:-5}
sans=("$@")
[ ${#sans[@]} -gt 0 ] || sans=(address undefined)

bash ci/deps.sh fuzz >/dev/null || exit 1
need=()
command -v zip >/dev/null 2>&1 || need+=(zip)
command -v unzip >/dev/null 2>&1 || need+=(unzip)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null && apt-get install -y -q -o DPkg::Lock::Timeout=600 \
    --no-install-recommends "${need[@]}" >/dev/null || exit 1
fi

tmp=$(mktemp -d) || exit 2
passed=0 failed=0
cleanup() {   # the logs stay when something failed, or with CFLITE_KEEP=1
  if [ "$failed" != 0 ] || [ "${CFLITE_KEEP:-0}" = 1 ]; then echo "cflite: logs and outputs kept in $tmp"
  else rm -rf "$tmp"; fi
}
trap cleanup EXIT
mkdir -p "$tmp/src"
ln -s "$root" "$tmp/src/pcq"      # the Dockerfile's COPY . $SRC/pcq
cp .clusterfuzzlite/build.sh "$tmp/src/build.sh"   # ... and COPY build.sh $SRC/
tree_before=$(git status --porcelain 2>/dev/null)

targets=()
for f in fuzz/fuzz_*.c; do
  t=$(basename "${f%.c}")
  [ "$t" = fuzz_util ] || targets+=("$t")
done

# OSS-Fuzz's flags (infra/base-images/base-builder), clang 14 spelling.
common="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
ubsan_checks=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr
ubsan_fatal=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: cflite: $*"; }

for san in "${sans[@]}"; do
  case $san in
    address) sflags="-fsanitize=address -fsanitize-address-use-after-scope" ;;
    undefined) sflags="-fsanitize=$ubsan_checks -fno-sanitize-recover=$ubsan_fatal" ;;
    *) bad "unknown sanitizer $san"; continue ;;
  esac
  out=$tmp/out-$san work=$tmp/work-$san
  mkdir -p "$out" "$work"
  start=$(date +%s)
  if ! (export SRC="$tmp/src" OUT="$out" WORK="$work" CC=clang CXX=clang++ \
          SANITIZER="$san" FUZZING_ENGINE=libfuzzer FUZZING_LANGUAGE=c ARCHITECTURE=x86_64 \
          CFLAGS="$common $sflags -fsanitize=fuzzer-no-link" \
          CXXFLAGS="$common $sflags -fsanitize=fuzzer-no-link" \
          LIB_FUZZING_ENGINE=-fsanitize=fuzzer
        cd "$SRC/pcq" && bash -eu "$SRC/build.sh") > "$tmp/build-$san.log" 2>&1; then
    bad "build.sh with SANITIZER=$san failed:"
    tail -n 20 "$tmp/build-$san.log"
    continue
  fi
  if grep -q 'warning:' "$tmp/build-$san.log"; then
    echo "cflite: build.sh ($san) warned:"; grep 'warning:' "$tmp/build-$san.log" | head -n 5
  fi
  echo "cflite: build.sh ($san): ${#targets[@]} targets in $(( $(date +%s) - start )) s"

  for t in "${targets[@]}"; do
    name=${t#fuzz_}
    missing=
    for f in "$t" "$t.dict" "$t.options"; do [ -s "$out/$f" ] || missing="$missing $f"; done
    if [ -d "fuzz/corpus/$name" ] && [ ! -s "$out/${t}_seed_corpus.zip" ]; then missing="$missing ${t}_seed_corpus.zip"; fi
    if [ -n "$missing" ]; then bad "$san: build.sh did not write$missing"; continue; fi
    corpus=$tmp/corpus-$san-$name
    mkdir -p "$corpus" "$tmp/artifacts"
    [ -f "$out/${t}_seed_corpus.zip" ] && unzip -q -o "$out/${t}_seed_corpus.zip" -d "$corpus"
    seeds=$(find "$corpus" -type f | wc -l)
    log=$tmp/run-$san-$name.log
    ASAN_OPTIONS=alloc_dealloc_mismatch=0:allocator_may_return_null=1:detect_leaks=1:detect_stack_use_after_return=1:symbolize=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:print_summary=1:silence_unsigned_overflow=1:symbolize=1 \
      "$out/$t" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
        -dict="$out/$t.dict" -max_len=4096 -artifact_prefix="$tmp/artifacts/$san-$name-" "$corpus" \
        > "$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ $rc = 0 ] && ! grep -qE '^==[0-9]+==ERROR|runtime error:|^SUMMARY: ' "$log"; then
      ok
      echo "cflite: $san $t: ${runs:-?} inputs in $secs s from $seeds seeds, no finding"
    else
      bad "$san $t: exit status $rc; log $log"
      grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -n 10
    fi
  done
done

if [ "$(git status --porcelain 2>/dev/null)" != "$tree_before" ]; then
  bad "build.sh changed the source tree (git status differs)"
fi
echo "cflite-emulate: $passed passed, $failed failed"
[ "$failed" = 0 ]
