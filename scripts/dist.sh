#!/usr/bin/env bash
# Release archives: dist/rooftool-VERSION-linux-ARCH.tar.gz and SHA256SUMS.
#   scripts/dist.sh GO VERSION DISTDIR
# Each archive holds rooftool-VERSION-linux-ARCH/ with the stripped binary
# (-trimpath -ldflags "-s -w"), the kernels folder it profiles with,
# kernels/ beside it, where the binary looks (scripts/kernels-stage.sh: the
# runner, the built-in experiments, the sweep picks), README.md and the
# completion scripts (completions/rooftool.bash, _rooftool for zsh,
# rooftool.fish). amd64 and
# arm64 are built where cgo (go-sqlite3) can build them: the host's own
# architecture with gcc, the other with its cross compiler
# (x86_64-linux-gnu-gcc, aarch64-linux-gnu-gcc); an architecture without
# one is skipped with a message. SHA256SUMS covers every archive and wheel
# of DISTDIR. LDFLAGS_X (the Makefile's) sets the version, commit and
# build date the binary reports; without it only the version is set.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${1:?usage: scripts/dist.sh GO VERSION DISTDIR}
VERSION=${2:?usage: scripts/dist.sh GO VERSION DISTDIR}
DIST=${3:?usage: scripts/dist.sh GO VERSION DISTDIR}
say() { echo "dist: $*"; }
host=$("$GO" env GOARCH)
declare -A cross=([amd64]=x86_64-linux-gnu-gcc [arm64]=aarch64-linux-gnu-gcc)

mkdir -p "$DIST"
rm -f "$DIST"/rooftool-*-linux-*.tar.gz "$DIST/SHA256SUMS"
built=()
for arch in amd64 arm64; do
  cc=${CC:-gcc}
  if [ "$arch" != "$host" ]; then
    cc=${cross[$arch]}
    if ! command -v "$cc" >/dev/null 2>&1; then
      say "linux-$arch skipped: go-sqlite3 needs cgo, and the cross compiler $cc is not installed (Debian: apt-get install gcc-${cc%-gcc})"
      continue
    fi
  fi
  name=rooftool-$VERSION-linux-$arch
  out=build/release/$name
  rm -rf "$out" && mkdir -p "$out/completions"
  CGO_ENABLED=1 CC=$cc GOOS=linux GOARCH=$arch "$GO" build -trimpath -ldflags "-s -w ${LDFLAGS_X:--X main.version=$VERSION}" -o "$out/rooftool" ./cmd/rooftool
  built+=("$arch")
  cp README.md "$out/"
  scripts/kernels-stage.sh "$out/kernels" >/dev/null
done
[ ${#built[@]} -gt 0 ] || { say "no architecture could be built"; exit 1; }
# Completion scripts from a binary this machine runs (the same for every architecture).
runner=build/release/rooftool-$VERSION-linux-${built[0]}/rooftool
for arch in "${built[@]}"; do
  [ "$arch" = "$host" ] && runner=build/release/rooftool-$VERSION-linux-$arch/rooftool
done
for arch in "${built[@]}"; do
  name=rooftool-$VERSION-linux-$arch
  "$runner" completion bash >"build/release/$name/completions/rooftool.bash"
  "$runner" completion zsh >"build/release/$name/completions/_rooftool"
  "$runner" completion fish >"build/release/$name/completions/rooftool.fish"
  tar -C build/release --owner=0 --group=0 -czf "$DIST/$name.tar.gz" "$name"
  say "$DIST/$name.tar.gz ($(du -m "$DIST/$name.tar.gz" | cut -f1) MB)"
done
(cd "$DIST" && sha256sum rooftool-*.tar.gz $(ls rooftool-*.whl 2>/dev/null) >SHA256SUMS)
say "$DIST/SHA256SUMS"
