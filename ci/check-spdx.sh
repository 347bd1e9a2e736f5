#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/check-spdx.sh - every tracked source file names its license on an
# `SPDX-License-Identifier:` line within its first 5 lines: GPL-2.0-or-later
# under wireshark/ (the Wireshark plugin), MIT everywhere else (LICENSE).
#
#   sh ci/check-spdx.sh            lists each file without the right line;
#                                  exits 1 if there is one, 0 if none
#   sh ci/check-spdx.sh --missing  prints only the paths of the files with no
#                                  SPDX line at all (what ci/add-spdx.sh fixes)
#
# The files checked: tracked (git ls-files) *.c *.h *.py *.sh, Makefile,
# mk/*.mk, CMakeLists.txt, *.cmake, *.cmake.in, meson.build, meson_options.txt,
# and the scripts in .ci/.
# Run from anywhere inside the work tree.
set -u
cd "$(dirname "$0")/.." || exit 2
mode=check
[ "${1:-}" = --missing ] && mode=missing
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-spdx: not inside a git work tree" >&2
  exit 2
fi

# spdx_selected PATH: is PATH one of the files that must carry the line?
spdx_selected() {
  case $1 in
    *.c|*.h|*.py|*.sh) return 0 ;;
    Makefile|*/Makefile|mk/*.mk) return 0 ;;
    CMakeLists.txt|*/CMakeLists.txt|*.cmake|*.cmake.in) return 0 ;;
    meson.build|*/meson.build|meson_options.txt|*/meson_options.txt) return 0 ;;
    .ci/*) return 0 ;;   # the CI scripts (.ci/run), which have no extension
  esac
  return 1
}
# spdx_expected PATH: the license PATH must name.
spdx_expected() {
  case $1 in
    wireshark/*) echo GPL-2.0-or-later ;;
    *) echo MIT ;;
  esac
}
# spdx_found PATH: the identifier on the first SPDX line of the first 5, or nothing.
spdx_found() {
  head -n 5 "$1" | sed -n 's/.*SPDX-License-Identifier:[[:space:]]*\([^[:space:]*]*\).*/\1/p' | head -n 1
}

list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
git ls-files > "$list"
checked=0 missing=0 wrong=0
while IFS= read -r f; do
  spdx_selected "$f" || continue
  [ -f "$f" ] || continue
  checked=$((checked + 1))
  want=$(spdx_expected "$f")
  got=$(spdx_found "$f")
  if [ -z "$got" ]; then
    missing=$((missing + 1))
    if [ $mode = missing ]; then echo "$f"; else echo "  no SPDX-License-Identifier line: $f"; fi
  elif [ "$got" != "$want" ]; then
    wrong=$((wrong + 1))
    [ $mode = missing ] || echo "  $got, expected $want: $f"
  fi
done < "$list"
[ $mode = missing ] && exit 0
bad=$((missing + wrong))
if [ $bad = 0 ]; then
  echo "check-spdx: all $checked files name their license (MIT; GPL-2.0-or-later under wireshark/)"
  exit 0
fi
hint=
[ $missing = 0 ] || hint="; sh ci/add-spdx.sh adds the missing ones"
echo "check-spdx: $bad of $checked files lack the right SPDX line ($missing without one, $wrong with another license)$hint"
exit 1
