#!/bin/bash -eu
# SPDX-License-Identifier: MIT
# DRAFT of projects/pcq/build.sh for google/oss-fuzz (docs/packaging.md): the
# repository's own build script, the one ClusterFuzzLite uses, builds every
# fuzz/fuzz_*.c target with its seed corpus, dictionary and options into $OUT.
# It links with $CXX, so AFL++ and honggfuzz (a C++ LIB_FUZZING_ENGINE) work too.
exec bash -eu "$SRC/pcq/.clusterfuzzlite/build.sh"
