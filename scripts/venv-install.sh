#!/usr/bin/env bash
# Installs the packages of a requirements file into the project venv .venv
# (git-ignored), making the venv first where there is none:
#   scripts/venv-install.sh kernels/requirements-ci.txt      (scripts/setup.sh)
#   scripts/venv-install.sh packaging/wheel/requirements.txt (make wheel)
# The venv sees the system python's packages (--system-site-packages: torch
# on a GPU machine stays visible). Where python3 has no ensurepip (Debian's
# python3 without python3-venv) the venv is made without pip and filled by a
# pip from elsewhere: python3's own, else pip's standalone zipapp.
set -euo pipefail
cd "$(dirname "$0")/.."
REQS=${1:?usage: scripts/venv-install.sh REQUIREMENTS-FILE}
VENV=.venv
say() { echo "venv: $*"; }

if [ ! -x "$VENV/bin/python" ]; then
  if ! python3 -m venv --system-site-packages "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"
    python3 -m venv --system-site-packages --without-pip "$VENV"
  fi
fi
# Tells git to ignore the venv without touching the checkout's .gitignore.
[ -e "$VENV/.gitignore" ] || echo '*' >"$VENV/.gitignore"
if "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS"
elif python3 -m pip --version >/dev/null 2>&1; then
  python3 -m pip --python "$VENV/bin/python" install -q --disable-pip-version-check -r "$REQS"
else
  # pip's own standalone zipapp (https://pip.pypa.io/en/stable/installation/).
  say "no pip for $VENV (neither ensurepip nor python3-pip): fetching pip.pyz from bootstrap.pypa.io"
  [ -e "$VENV/pip.pyz" ] || curl -fsSL https://bootstrap.pypa.io/pip/pip.pyz -o "$VENV/pip.pyz"
  "$VENV/bin/python" "$VENV/pip.pyz" install -q --disable-pip-version-check -r "$REQS"
fi
