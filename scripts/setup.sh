#!/usr/bin/env bash
# Installs what this checkout lacks to build and test rooftool, in user
# space where it can:
#   - Go >= 1.26 (golang.org/x/perf/benchmath needs it): used where found
#     (PATH, ~/.local/go, /usr/local/go); else downloaded from go.dev into
#     ~/.local/go (/usr/local/go when run as root and that is free). An
#     existing Go is never removed or replaced.
#   - a C compiler for go-sqlite3 (cgo): system package; installed with apt
#     only when run as root (or with password-less sudo), else named.
#   - pytest, PyYAML, numpy for the CPU-side kernel tests: used where
#     python3 already imports them, else installed into the project venv
#     .venv (git-ignored), which the Makefile's test-py prefers.
#   - rooftool itself: make install builds bin/rooftool and copies it into
#     $PREFIX/bin (~/.local/bin by default), printing the PATH line to add
#     where that directory is not on PATH.
# Idempotent: a second run installs nothing new (the rebuild is cached).
# Needs no root when everything is present or installable in user space.
set -euo pipefail
cd "$(dirname "$0")/.."

GO_VERSION=1.26.8
REQS=kernels/requirements-ci.txt
VENV=.venv
say() { echo "setup: $*"; }
missing=()

# as_root runs a command as root: directly, or through password-less sudo.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo -n "$@"
  else return 1
  fi
}

apt_install() { # why, packages...
  local why="$1"; shift
  if command -v apt-get >/dev/null 2>&1 && as_root true; then
    say "installing $* with apt-get ($why)"
    as_root apt-get update -q && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
  else
    return 1
  fi
}

# --- Go ---------------------------------------------------------------------
go_ok() { # path: a Go >= 1.26, as installed (no toolchain switch)
  [ -n "$1" ] && [ -x "$1" ] && GOTOOLCHAIN=local "$1" version 2>/dev/null | grep -Eq 'go1\.(2[6-9]|[3-9][0-9])'
}
find_go() { # same order as the Makefile's GO
  local g
  for g in "$(command -v go 2>/dev/null || true)" "$HOME/.local/go/bin/go" /usr/local/go/bin/go; do
    if go_ok "$g"; then echo "$g"; return 0; fi
  done
  return 1
}
if ! GO=$(find_go); then
  if [ "$(id -u)" = 0 ] && [ ! -e /usr/local/go ]; then dest=/usr/local/go; else dest="$HOME/.local/go"; fi
  if [ -e "$dest" ]; then
    say "no Go >= 1.26 found, and $dest holds another Go ($("$dest/bin/go" version 2>/dev/null || echo unknown)), which setup does not replace."
    say "install Go $GO_VERSION (https://go.dev/dl/) and put it first on PATH, then run setup again."
    exit 1
  fi
  arch=$(uname -m); case "$arch" in x86_64) arch=amd64;; aarch64|arm64) arch=arm64;; esac
  say "no Go >= 1.26 found: downloading Go $GO_VERSION into $dest (first build only)"
  tmp=$(mktemp -d)
  mkdir -p "$(dirname "$dest")"
  if curl -fsSL "https://go.dev/dl/go${GO_VERSION}.linux-${arch}.tar.gz" -o "$tmp/go.tgz" 2>/dev/null; then
    tar -C "$tmp" -xzf "$tmp/go.tgz" && mv "$tmp/go" "$dest"
  else
    # go.dev unreachable: the same release, as the Go module proxy serves
    # it to the go command's own toolchain switch (module golang.org/toolchain).
    proxy=$(echo "${GOPROXY:-https://proxy.golang.org}" | cut -d, -f1 | cut -d'|' -f1)
    case "$proxy" in http*) ;; *) proxy=https://proxy.golang.org;; esac
    mod="golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-${arch}"
    say "go.dev unreachable: fetching $mod from $proxy"
    if ! curl -fsSL "$proxy/golang.org/toolchain/@v/v0.0.1-go${GO_VERSION}.linux-${arch}.zip" -o "$tmp/go.zip"; then
      say "cannot download Go $GO_VERSION (no network?): install Go >= 1.26 (https://go.dev/dl/) and put it on PATH"
      rm -rf "$tmp"; exit 1
    fi
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$tmp/go.zip" "$tmp/x"
    # Module zips keep no file modes.
    chmod +x "$tmp/x/$mod"/bin/* "$tmp/x/$mod"/pkg/tool/*/*
    mv "$tmp/x/$mod" "$dest"
  fi
  rm -rf "$tmp"
  GO="$dest/bin/go"
  go_ok "$GO" || { say "the Go installed in $dest does not run"; exit 1; }
  say "Go is in $dest/bin (the Makefile finds it there; add it to PATH to use go by hand)"
fi

# --- C compiler (cgo) -------------------------------------------------------
if ! command -v "${CC:-gcc}" >/dev/null 2>&1; then
  if ! apt_install "go-sqlite3 needs cgo" gcc libc6-dev; then
    say "no C compiler: go-sqlite3 is built with cgo. As root: apt-get install gcc libc6-dev"
    missing+=(gcc)
  fi
fi

# --- Python test packages ---------------------------------------------------
if ! command -v python3 >/dev/null 2>&1; then
  if ! apt_install "the kernel tests are Python" python3 python3-venv; then
    say "no python3: the Python tests cannot run. As root: apt-get install python3 python3-venv"
    missing+=(python3)
  fi
fi
imports() { "$1" -c 'import pytest, yaml, numpy' >/dev/null 2>&1; }
if command -v python3 >/dev/null 2>&1 && ! imports "$VENV/bin/python" && ! imports python3; then
  say "installing pytest, PyYAML, numpy ($REQS) into the project venv $VENV (first build only)"
  scripts/venv-install.sh "$REQS"
  imports "$VENV/bin/python" || { say "pytest, PyYAML, numpy still do not import in $VENV"; missing+=(python-packages); }
fi

if [ ${#missing[@]} -gt 0 ]; then
  say "missing: ${missing[*]} (see above)"
  exit 1
fi
py=python3; imports "$VENV/bin/python" && py="$VENV/bin/python"
say "ok ($("$GO" version | cut -d' ' -f3) at $GO; $($py --version 2>&1) at $py with pytest, PyYAML, numpy)"

# --- rooftool ---------------------------------------------------------------
bindir="${PREFIX:-$HOME/.local}/bin"
if [ -x bin/rooftool ]; then
  say "building bin/rooftool and installing it into $bindir (make install)"
else
  say "building bin/rooftool and installing it into $bindir (make install; the first build compiles go-sqlite3's C code and Arrow: about 4 minutes on 2 cores, quiet meanwhile)"
fi
make --no-print-directory install GO="$GO"
