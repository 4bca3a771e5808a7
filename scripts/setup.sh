#!/usr/bin/env bash
# Installs what a fresh machine lacks to build and test rooftool:
# Go >= 1.26 (golang.org/x/perf/benchmath needs it), a C compiler for
# go-sqlite3 (cgo), and the Python packages of the CPU-side kernel tests.
# Idempotent: does nothing that is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

GO_VERSION=1.26.8
have_go() {
  local go="$1"
  command -v "$go" >/dev/null 2>&1 && "$go" version | grep -Eq 'go1\.(2[6-9]|[3-9][0-9])'
}
if ! have_go go && ! have_go /usr/local/go/bin/go; then
  echo "setup: installing Go $GO_VERSION into /usr/local/go"
  arch=$(uname -m); case "$arch" in x86_64) arch=amd64;; aarch64|arm64) arch=arm64;; esac
  curl -fsSL "https://go.dev/dl/go${GO_VERSION}.linux-${arch}.tar.gz" -o /tmp/go.tgz
  rm -rf /usr/local/go && tar -C /usr/local -xzf /tmp/go.tgz && rm /tmp/go.tgz
fi
if ! command -v gcc >/dev/null 2>&1; then
  echo "setup: installing gcc (go-sqlite3 needs cgo)"
  apt-get update -q && apt-get install -y -q gcc libc6-dev
fi
if ! command -v python3 >/dev/null 2>&1; then
  apt-get update -q && apt-get install -y -q python3 python3-pip
fi
if ! python3 -c 'import pytest, yaml, numpy' >/dev/null 2>&1; then
  echo "setup: installing Python test packages"
  python3 -m pip install -q -r kernels/requirements-ci.txt || python3 -m pip install -q --break-system-packages -r kernels/requirements-ci.txt
fi
echo "setup: ok ($(command -v go >/dev/null && go version || /usr/local/go/bin/go version))"
