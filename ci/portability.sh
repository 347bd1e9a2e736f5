#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ci/portability.sh - the test suite and the fuzz corpus replay on other
# platforms: a 32-bit build, big-endian s390x under qemu-user, the library
# compiled as C++, and valgrind. Installs what each needs (ci/deps.sh), runs
# every requested run even when one fails, prints `<run>: N passed, N failed`
# for each, and exits 1 if any failed.
#
#   bash ci/portability.sh                   all four: m32 s390x cxx valgrind
#   bash ci/portability.sh m32 s390x         some of them
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(m32 s390x cxx valgrind)
bash ci/deps.sh "${runs[@]}" || exit 1

# The Makefile includes mk/*.mk; without it, the fragment runs alone.
if grep -q 'mk/\*\.mk\|mk/hardening\.mk' Makefile 2>/dev/null; then mk=(make); else mk=(make -f mk/hardening.mk); fi
failed=()
for r in "${runs[@]}"; do
  case $r in
    m32) target=check-m32 ;;
    s390x) target=check-s390x ;;
    cxx) target=check-cxx-tests ;;
    valgrind) target=check-valgrind ;;
    *) echo "portability: unknown run '$r'"; failed+=("$r"); continue ;;
  esac
  echo "== portability: $r ($target)"
  start=$(date +%s)
  if ! "${mk[@]}" --no-print-directory "$target"; then failed+=("$r"); fi
  echo "   ($(( $(date +%s) - start )) s)"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "portability: FAILED: ${failed[*]}"
  exit 1
fi
echo "portability: ${runs[*]} passed"
