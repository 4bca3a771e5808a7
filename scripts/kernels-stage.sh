#!/usr/bin/env bash
# Copies into DEST what `rooftool profile` runs from the kernels folder, for
# an install that has no clone beside it (the wheel, the release archives,
# make install):
#   scripts/kernels-stage.sh DEST
# run.py with common/*.py (the runner), ceilings.py, requirements-gpu.txt
# (doctor's pip fix points at it), every experiment folder (one with a
# spec.yaml: its spec.yaml, claims.yaml and Python), the warm stage's
# sweeps/cutlass_warm.py and the tiles the sweeps picked per GPU,
# sweeps/picks/*.json. Left out: tests/, the sweeps' own scripts and
# results, examples/, scaffold/ (built into rooftool), notes, caches.
set -euo pipefail
DEST=${1:?usage: scripts/kernels-stage.sh DEST}
rm -rf "$DEST" && mkdir -p "$DEST/common" "$DEST/sweeps/picks"
DEST=$(cd "$DEST" && pwd)
cd "$(dirname "$0")/../kernels"
cp run.py ceilings.py requirements-gpu.txt "$DEST/"
cp common/*.py "$DEST/common/"
cp sweeps/cutlass_warm.py "$DEST/sweeps/"
cp sweeps/picks/*.json "$DEST/sweeps/picks/"
for spec in */spec.yaml; do
  exp=${spec%/spec.yaml}
  mkdir -p "$DEST/$exp"
  cp "$exp"/spec.yaml "$exp"/*.py "$DEST/$exp/"
  [ -f "$exp/claims.yaml" ] && cp "$exp/claims.yaml" "$DEST/$exp/"
done
exps=$(ls "$DEST"/*/spec.yaml | wc -l)
echo "kernels: $exps experiments, $(find "$DEST" -type f | wc -l) files, $(du -sk "$DEST" | cut -f1) KiB -> $DEST"
