#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci/deps.sh - installs (apt-get, Debian 12, as root) what the hardening runs
# need, only when it is missing. Run from anywhere.
#
#   bash ci/deps.sh fuzz coverage m32 s390x cxx valgrind    (any subset)
#
#   fuzz      clang and its runtimes (libFuzzer, ASan, UBSan): clang, libclang-rt-dev
#   coverage  clang and llvm-profdata / llvm-cov: clang, llvm
#   m32       gcc able to build and link -m32: gcc-multilib; where the kernel
#             does not run i386 programs (no IA32 emulation), qemu-user-static
#   s390x     cross gcc and libc for s390x, qemu-user: gcc-s390x-linux-gnu,
#             libc6-dev-s390x-cross, qemu-user-static
#   cxx       g++
#   valgrind  valgrind
set -euo pipefail
need=()
have() { command -v "$1" >/dev/null 2>&1; }
add() { local p; for p in "$@"; do case " ${need[*]:-} " in *" $p "*) ;; *) need+=("$p") ;; esac; done; }
rt_ok() { ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; }
# -m32 links a program that uses libm (the asm headers are mk/hardening.mk's
# business: gcc-multilib, which provides /usr/include/asm, conflicts with the
# s390x cross compiler, so gcc-N-multilib is installed instead).
m32_ok() {
  local d rc; d=$(mktemp -d)
  printf '#include <math.h>\nint main(void) { return (int)sqrt(0.0); }\n' > "$d/t.c"
  ${CC:-cc} -m32 "$d/t.c" -o "$d/t" -lm >/dev/null 2>&1; rc=$?
  rm -rf "$d"; return $rc
}
# Whether the kernel runs a 32-bit x86 program itself (mk/hardening.mk asks the
# same and runs the m32 tests under qemu-i386 when it does not).
m32_runs() {
  local d rc; d=$(mktemp -d)
  printf 'int main(void) { return 0; }\n' > "$d/t.c"
  ${CC:-cc} -m32 "$d/t.c" -o "$d/t" >/dev/null 2>&1 && "$d/t" 2>/dev/null; rc=$?
  rm -rf "$d"; return $rc
}
gcc_major() { gcc -dumpversion 2>/dev/null | cut -d. -f1; }
for what in "$@"; do
  case $what in
    fuzz) have clang || add clang; rt_ok || add libclang-rt-dev ;;
    coverage) have clang || add clang
              have llvm-profdata || ls /usr/lib/llvm-*/bin/llvm-profdata >/dev/null 2>&1 || add llvm ;;
    m32) m32_ok || add "gcc-$(gcc_major)-multilib"
         m32_runs || have qemu-i386-static || have qemu-i386 || add qemu-user-static ;;
    s390x) have s390x-linux-gnu-gcc || add gcc-s390x-linux-gnu libc6-dev-s390x-cross
           [ -e /usr/s390x-linux-gnu/lib/libc.a ] || add libc6-dev-s390x-cross
           have qemu-s390x-static || have qemu-s390x || add qemu-user-static ;;
    cxx) have g++ || have c++ || add g++ ;;
    valgrind) have valgrind || add valgrind ;;
    *) echo "deps: unknown run '$what'" >&2; exit 2 ;;
  esac
done
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
echo "deps: ready for $*"
