#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/check-format.sh - do the C sources match .clang-format?
#
#   sh ci/check-format.sh          check (exit 1 and the differences if not)
#   sh ci/check-format.sh --fix    reformat them in place
#
# Formatting differs between clang-format versions, so the check runs only
# with the version the style was written for (Debian 12's clang-format 14;
# CLANG_FORMAT names another binary); with any other, or none, it says so
# and passes: `make check` must pass on machines without it, and .ci/run
# installs it. The sources are the tracked *.c and *.h files (git ls-files),
# or every *.c and *.h under the tree outside build/ when git is missing.
set -u
cd "$(dirname "$0")/.." || exit 2
want=14
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  for c in clang-format-$want clang-format; do
    command -v "$c" >/dev/null 2>&1 && { cf=$c; break; }
  done
fi
ver=$([ -n "$cf" ] && "$cf" --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ -z "$cf" ] || [ "$ver" != "$want" ]; then
  echo "check-format: skipped (needs clang-format $want; found ${cf:-none} ${ver:-})"
  echo "check-format: 0 passed, 0 failed"
  exit 0
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files '*.c' '*.h')
else
  files=$(find . -path ./build -prune -o \( -name '*.c' -o -name '*.h' \) -print)
fi
if [ "${1:-}" = --fix ]; then
  # shellcheck disable=SC2086
  exec "$cf" -i $files
fi
bad=0; n=0
for f in $files; do
  n=$((n + 1))
  if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad=$((bad + 1))
    echo "check-format: $f does not match .clang-format:"
    "$cf" "$f" | diff -u "$f" - | head -n 40
  fi
done
echo "check-format: $((n - bad)) passed, $bad failed ($cf $ver; fix with: sh ci/check-format.sh --fix)"
[ $bad -eq 0 ]
