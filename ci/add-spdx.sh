#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/add-spdx.sh - adds the SPDX-License-Identifier line to files that have
# none, in each file's comment syntax, with the license ci/check-spdx.sh
# expects (GPL-2.0-or-later under wireshark/, MIT elsewhere):
#   *.c *.h                                  /* SPDX-License-Identifier: MIT */
#   shell, Python, make, CMake, Meson files  # SPDX-License-Identifier: MIT
# as the first line, or right after a `#!` line (and after a Python coding
# line that follows it). A file that already has an SPDX line in its first 5
# lines is left alone, even with another license: check-spdx.sh reports those.
#
#   sh ci/add-spdx.sh [--dry-run] [FILE...]
#
# Without FILE, every tracked file check-spdx.sh finds without a line. It
# edits files in place (mode kept); review with git diff.
set -u
cd "$(dirname "$0")/.." || exit 2
dry=0
if [ "${1:-}" = --dry-run ]; then dry=1; shift; fi

list=$(mktemp) || exit 2
tmp=$(mktemp) || exit 2
trap 'rm -f "$list" "$tmp"' EXIT
if [ $# -gt 0 ]; then
  for f in "$@"; do echo "$f"; done > "$list"
else
  sh ci/check-spdx.sh --missing > "$list" || exit 2
fi

added=0 skipped=0
while IFS= read -r f; do
  [ -n "$f" ] || continue
  if [ ! -f "$f" ]; then echo "add-spdx: no file $f" >&2; skipped=$((skipped + 1)); continue; fi
  if head -n 5 "$f" | grep -q 'SPDX-License-Identifier:'; then continue; fi
  case $f in
    wireshark/*) lic=GPL-2.0-or-later ;;
    *) lic=MIT ;;
  esac
  case $f in
    *.c|*.h) line="/* SPDX-License-Identifier: $lic */" ;;
    *.py|*.sh|Makefile|*/Makefile|*.mk|CMakeLists.txt|*/CMakeLists.txt|*.cmake|*.cmake.in|\
    meson.build|*/meson.build|meson_options.txt|*/meson_options.txt|.ci/*)
      line="# SPDX-License-Identifier: $lic" ;;
    *) echo "add-spdx: $f: comment syntax unknown, left alone" >&2; skipped=$((skipped + 1)); continue ;;
  esac
  if [ $dry = 1 ]; then echo "would add to $f: $line"; added=$((added + 1)); continue; fi
  awk -v line="$line" -v py="$(case $f in *.py) echo 1 ;; *) echo 0 ;; esac)" '
    function put() { if (!done) { print line; done = 1 } }
    NR == 1 && /^#!/ { print; shebang = 1; next }
    NR == 2 && shebang && py && /^[ \t\f]*#.*coding[:=]/ { print; next }
    { put(); print }
    END { put() }' "$f" > "$tmp" || { echo "add-spdx: $f: failed" >&2; exit 1; }
  cat "$tmp" > "$f"
  echo "add-spdx: $f"
  added=$((added + 1))
done < "$list"
echo "add-spdx: $added files$([ $dry = 1 ] && echo ' would be') changed, $skipped left alone"
