#!/bin/sh
# SPDX-License-Identifier: MIT
# ci/check-python.sh - the Python binding, built and tested as a user installs it
# (make check-python; mk/python.mk).
#
#   sh ci/check-python.sh PYTHON PCQDUMP
#
# 1. A fresh venv of PYTHON without the system's packages (pip and setuptools
#    only, no `wheel`, no index): pip install --no-build-isolation of a copy of
#    python/ (PCQ_SOURCE_DIR names this tree), then pcq.decode of a vector
#    against pcqdump --json.
# 2. A venv with --system-site-packages (for pytest): the same install, then
#    pytest python/tests, run outside the tree so that `import pcq` is the
#    installed package.
# 3. mypy on python/pcq, when installed (the package ships py.typed).
# Last line: `python: N passed, N failed` (N: pytest's tests, plus 1 for step 1).
set -u
PY=$1
PCQDUMP=$2
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-python: $*"; echo "python: 0 passed, 1 failed"; exit 1; }

cp -R python "$tmp/src" && rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info "$tmp/src/pcq"/*.so || fail "cannot copy python/"
install() {   # install VENV: pip install the copy; its log in $tmp
  PCQ_SOURCE_DIR=$top "$1/bin/python" -m pip install --no-index --no-build-isolation "$tmp/src" \
    > "$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; fail "pip install into $1 failed"; }
  rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info
}

# 1. plain venv
"$PY" -m venv "$tmp/plain" || fail "$PY -m venv failed"
install "$tmp/plain"
v=vectors/data/counterset-2x3.hex
"$PCQDUMP" --json --hex --kind data "$v" > "$tmp/want.json" || fail "pcqdump failed on $v"
(cd "$tmp" && "$tmp/plain/bin/python" - "$top/$v" "$tmp/want.json") <<'PYEOF' || fail "the plain venv's pcq differs from pcqdump"
import json, re, sys
import pcq
text = re.sub(r"#[^\n]*", "", open(sys.argv[1]).read())
got = pcq.decode("data", bytes.fromhex("".join(text.split())))
want = json.load(open(sys.argv[2]))
assert got == want, (got, want)
print("check-python: plain venv: pcq %s decodes like pcqdump" % pcq.__version__)
PYEOF

# 2. venv with the system's packages, and pytest
"$PY" -m venv --system-site-packages "$tmp/venv" || fail "$PY -m venv --system-site-packages failed"
install "$tmp/venv"
cd "$tmp" || exit 2
PCQDUMP=$PCQDUMP "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider "$top/python/tests" > "$tmp/pytest.log" 2>&1
rc=$?
tail -n 25 "$tmp/pytest.log"
summary=$(tail -n 1 "$tmp/pytest.log")
passed=$(echo "$summary" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) passed.*/\1/p; s/^\([0-9][0-9]*\) passed.*/\1/p' | head -n 1)
failed=$(echo "$summary" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) failed.*/\1/p; s/^\([0-9][0-9]*\) failed.*/\1/p' | head -n 1)
errors=$(echo "$summary" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) error.*/\1/p; s/^\([0-9][0-9]*\) error.*/\1/p' | head -n 1)
passed=${passed:-0}
failed=$(( ${failed:-0} + ${errors:-0} ))
[ $rc = 0 ] || [ $failed -gt 0 ] || failed=1   # pytest failed without saying so (no tests, a crash)
# 3. The type hints (py.typed) type-check, when mypy is installed (apt-get install mypy).
if "$PY" -m mypy --version >/dev/null 2>&1; then
  if (cd "$top/python" && "$PY" -m mypy --no-incremental --cache-dir=/dev/null pcq); then
    passed=$((passed + 1))
  else
    echo "check-python: mypy finds errors in python/pcq"; failed=$((failed + 1))
  fi
else
  echo "check-python: mypy not installed; the type hints are not checked (apt-get install mypy)"
fi
echo "python: $((passed + 1)) passed, $failed failed"
[ $failed = 0 ]
