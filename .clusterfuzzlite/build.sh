#!/bin/bash -eu
# SPDX-License-Identifier: MIT
# .clusterfuzzlite/build.sh - builds pcq's libFuzzer targets the OSS-Fuzz way
# (ClusterFuzzLite and fuzz/oss-fuzz/build.sh run it in the base-builder image;
# ci/cflite-emulate.sh runs it on a plain machine).
#
# Uses what the builder sets: CC, CFLAGS (with the sanitizer and
# -fsanitize=fuzzer-no-link), CXX, CXXFLAGS, LIB_FUZZING_ENGINE, SRC, OUT, WORK.
# For every fuzz/fuzz_<t>.c (found by pattern, so new targets need no change
# here) it writes
#   $OUT/fuzz_<t>                  the target: fuzz_<t>.c + the shared checks
#                                  (fuzz/fz_*.c) + the library
#   $OUT/fuzz_<t>_seed_corpus.zip  fuzz/corpus/<t>/ and the regression inputs
#                                  of fuzz/crashers/<t>/
#   $OUT/fuzz_<t>.dict             fuzz/pcq.dict
#   $OUT/fuzz_<t>.options          max_len = 4096, as `make fuzz-run` uses
# C files are compiled with $CC $CFLAGS -DPCQ_CHECK_NEVER (a "never" an input
# reaches traps, a finding); the link uses $CXX $CXXFLAGS, since
# LIB_FUZZING_ENGINE may be a C++ library (AFL++, honggfuzz on OSS-Fuzz).
cd "${SRC}/pcq"
: "${WORK:=$(mktemp -d)}"
obj="${WORK}/pcq-obj"
mkdir -p "$obj" "$OUT"

common=()
for src in fuzz/fz_*.c pcq_codec.c pcq_calc.c; do
  o="${obj}/$(basename "${src%.c}").o"
  $CC $CFLAGS -DPCQ_CHECK_NEVER -I. -Ifuzz -c "$src" -o "$o"
  common+=("$o")
done

built=0
for src in fuzz/fuzz_*.c; do
  name=$(basename "${src%.c}")
  t=${name#fuzz_}
  $CC $CFLAGS -DPCQ_CHECK_NEVER -I. -Ifuzz -c "$src" -o "${obj}/${name}.o"
  $CXX $CXXFLAGS "${obj}/${name}.o" "${common[@]}" $LIB_FUZZING_ENGINE -lm -o "${OUT}/${name}"

  # Seeds: the corpus, and the past crashers as regression inputs (prefixed,
  # so that a name cannot clash).
  seeds="${WORK}/seeds/${t}"
  rm -rf "$seeds" "${OUT}/${name}_seed_corpus.zip"
  mkdir -p "$seeds"
  if [ -d "fuzz/corpus/${t}" ]; then
    find "fuzz/corpus/${t}" -maxdepth 1 -type f -exec cp -t "$seeds" {} +
  fi
  if [ -d "fuzz/crashers/${t}" ]; then
    for f in "fuzz/crashers/${t}"/*; do
      if [ -f "$f" ]; then cp "$f" "${seeds}/crasher-$(basename "$f")"; fi
    done
  fi
  if [ -n "$(ls -A "$seeds")" ]; then
    (cd "$seeds" && find . -type f -print | zip -q -j -@ "${OUT}/${name}_seed_corpus.zip")
  fi
  cp fuzz/pcq.dict "${OUT}/${name}.dict"
  printf '[libfuzzer]\nmax_len = 4096\n' > "${OUT}/${name}.options"
  built=$((built + 1))
done
echo "build.sh: ${built} fuzz targets in ${OUT}"
[ "$built" -gt 0 ]
