#!/usr/bin/env bash
# Builds dist/rooftool-<version>-py3-none-<platform>.whl from a rooftool
# binary (make wheel builds it stripped, -trimpath -ldflags "-s -w"):
#   scripts/wheel.sh BINARY DISTDIR
# The wheel holds the binary as a script (pip puts it in the environment's
# bin, so `rooftool` runs with no Go anywhere), the kernels folder that
# `rooftool profile` runs (scripts/kernels-stage.sh: the runner, the
# built-in experiments, the sweep picks) as data that pip installs into the
# environment's share/rooftool/kernels, where the binary looks beside its
# bin/, and the package rooftool_marks (kernels/common/marks.py as its
# __init__.py, records.py and gpuid.py beside it: the package profile --cmd
# writes for a program). Its
# platform tag is manylinux_X_Y_<arch>, X.Y the newest glibc symbol version
# the binary needs (objdump -T), so pip installs it only where that glibc
# is. Built by hatchling (packaging/wheel/requirements.txt), installed into
# the project venv .venv where absent.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: scripts/wheel.sh BINARY DISTDIR}
DIST=${2:?usage: scripts/wheel.sh BINARY DISTDIR}
STAGE=build/wheel
say() { echo "wheel: $*"; }

# PEP 440 version from git: a tag vX.Y.Z gives X.Y.Z, N commits past it
# X.Y.Z.postN+g<hash>; without a tag 0.0.0+g<hash>.
desc=$(git describe --tags --match 'v[0-9]*' 2>/dev/null || true)
hash=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $desc =~ ^v([0-9]+(\.[0-9]+)*)$ ]]; then
  version=${BASH_REMATCH[1]}
elif [[ $desc =~ ^v([0-9]+(\.[0-9]+)*)-([0-9]+)-g([0-9a-f]+)$ ]]; then
  version=${BASH_REMATCH[1]}.post${BASH_REMATCH[3]}+g${BASH_REMATCH[4]}
else
  version=0.0.0+g$hash
fi

# Platform tag from the binary: ELF machine and newest GLIBC_ symbol version.
command -v objdump >/dev/null || { say "objdump not found (binutils): needed to read the glibc $BIN requires"; exit 1; }
case "$(objdump -f "$BIN" | sed -n 's/.*architecture: \([^,]*\),.*/\1/p')" in
  i386:x86-64) arch=x86_64;;
  aarch64) arch=aarch64;;
  *) say "$BIN: not an x86-64 or aarch64 ELF binary"; exit 1;;
esac
glibc=$(objdump -T "$BIN" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n | tail -1)
[ -n "$glibc" ] || { say "$BIN: no GLIBC_ symbol versions (not a dynamically linked glibc binary?)"; exit 1; }
platform="manylinux_${glibc%%.*}_${glibc#*.}_$arch"

# The build backend.
py=.venv/bin/python
if ! { [ -x "$py" ] && "$py" -c 'import hatchling' 2>/dev/null; }; then
  say "installing hatchling (packaging/wheel/requirements.txt) into the project venv .venv"
  scripts/venv-install.sh packaging/wheel/requirements.txt
fi

rm -rf "$STAGE" && mkdir -p "$STAGE/rooftool_marks" "$STAGE/scripts" "$DIST"
cp packaging/wheel/pyproject.toml packaging/wheel/hatch_build.py README.md "$STAGE/"
cp kernels/common/marks.py "$STAGE/rooftool_marks/__init__.py"
cp kernels/common/records.py kernels/common/gpuid.py "$STAGE/rooftool_marks/"
scripts/kernels-stage.sh "$STAGE/kernels" >/dev/null
install -m 0755 "$BIN" "$STAGE/scripts/rooftool"
rm -f "$DIST"/rooftool-*.whl
dist=$(cd "$DIST" && pwd)
(cd "$STAGE" && ROOFTOOL_VERSION=$version ROOFTOOL_WHEEL_PLATFORM=$platform "../../$py" -m hatchling build -t wheel -d "$dist" >/dev/null)
whl=$(ls "$DIST"/rooftool-*.whl)
kernels=$("$py" -c 'import sys, zipfile
fs = [i for i in zipfile.ZipFile(sys.argv[1]).infolist() if "/share/rooftool/kernels/" in i.filename]
print(f"{len(fs)} files, {sum(i.file_size for i in fs) // 1024} KiB")' "$whl")
say "$whl ($(du -k "$whl" | awk '{printf "%.1f", $1 / 1024}') MiB; binary $(du -k "$BIN" | awk '{printf "%.1f", $1 / 1024}') MiB; kernels $kernels unpacked; needs glibc >= $glibc)"
