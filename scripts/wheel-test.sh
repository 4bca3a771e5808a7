#!/usr/bin/env bash
# Installs dist/rooftool-*.whl (make wheel) into a fresh virtual
# environment with pip --no-index, then, with only that environment's bin on
# PATH (no Go, no checkout: run from an empty directory), runs
# `rooftool report -o DIR` (the embedded default run) and checks its
# report.md, and imports rooftool_marks with the environment's python.
# Also checks the wheel's size (<= 40 MB) and platform tag.
set -euo pipefail
cd "$(dirname "$0")/.."
DIST=${1:-dist}
say() { echo "wheel-test: $*"; }
fail() { echo "wheel-test: FAIL: $*" >&2; exit 1; }

whls=("$DIST"/rooftool-*.whl)
[ ${#whls[@]} = 1 ] && [ -f "${whls[0]}" ] || fail "want one $DIST/rooftool-*.whl (make wheel), found: ${whls[*]}"
whl=$(cd "$(dirname "${whls[0]}")" && pwd)/$(basename "${whls[0]}")
size=$(stat -c %s "$whl")
[ "$size" -le $((40 * 1024 * 1024)) ] || fail "$whl is $size bytes, over 40 MiB"
[[ $whl =~ -py3-none-manylinux_[0-9]+_[0-9]+_(x86_64|aarch64)\.whl$ ]] || fail "$whl: want a py3-none-manylinux_X_Y_ARCH tag"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
venv=$tmp/venv
# A fresh venv with pip; where python3 has no ensurepip, one without pip
# filled by the pip of the project venv or python3.
if python3 -m venv "$venv" >/dev/null 2>&1 && "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  pip=("$venv/bin/python" -m pip)
else
  rm -rf "$venv" && python3 -m venv --without-pip "$venv"
  if [ -x .venv/bin/python ] && .venv/bin/python -m pip --version >/dev/null 2>&1; then
    pip=(.venv/bin/python -m pip --python "$venv/bin/python")
  elif python3 -m pip --version >/dev/null 2>&1; then
    pip=(python3 -m pip --python "$venv/bin/python")
  elif [ -f .venv/pip.pyz ]; then # the zipapp scripts/venv-install.sh fetched
    pip=(python3 .venv/pip.pyz --python "$venv/bin/python")
  else
    fail "no pip to install the wheel with (python3 has neither ensurepip nor pip: apt-get install python3-venv)"
  fi
fi
"${pip[@]}" install -q --disable-pip-version-check --no-index "$whl"

# Only the venv's bin on PATH, from an empty directory: nothing of this
# checkout or of a Go toolchain is reachable.
mkdir "$tmp/cwd"
run() { (cd "$tmp/cwd" && env -i HOME="$tmp" PATH="$venv/bin" "$@"); }
if run /bin/sh -c 'command -v go' >/dev/null 2>&1; then fail "go is on the test PATH"; fi
got=$(run /bin/sh -c 'command -v rooftool') || fail "rooftool is not on the venv's PATH"
[ "$got" = "$venv/bin/rooftool" ] || fail "rooftool resolves to $got, not the venv's"
run rooftool --version
run rooftool report -o "$tmp/out" >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "rooftool report failed"; }
grep -q 'GO\|NO-GO\|INCONCLUSIVE' "$tmp/out/report.md" || fail "$tmp/out/report.md has no verdict"
run python -c 'import rooftool_marks, sys; assert callable(rooftool_marks.mark) and callable(rooftool_marks.measure); print("rooftool_marks from", rooftool_marks.__file__)' \
  | grep -q "^rooftool_marks from $venv/" || fail "import rooftool_marks did not load the venv's package"
say "ok: $(basename "$whl") ($((size / 1024 / 1024)) MiB) installs with pip --no-index; rooftool report and import rooftool_marks run with no Go on PATH"
