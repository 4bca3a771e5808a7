#!/usr/bin/env bash
# One device call: install the carried wheels (optional variants), env, check, bench.
# Usage on the GPU machine: bash kernels/devrun.sh [check-args...]; writes under $OUT.
set -o pipefail
export PYTHONUNBUFFERED=1
REPO=$(pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if ls .whl/flash_linear*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_fla .whl/fla_core*.whl .whl/flash_linear*.whl >/dev/null 2>&1 && export PYTHONPATH=/tmp/site_fla
fi
if ls .whl/nvidia_cutlass*.whl >/dev/null 2>&1 && [ -n "$CUTLASS_PROBE" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_cut .whl/nvidia_cutlass*.whl .whl/pydot*.whl .whl/treelib*.whl >/dev/null 2>&1
  (cd /tmp && PYTHONPATH=/tmp/site_cut:$PYTHONPATH timeout "${CUTLASS_PROBE}" python3 "$REPO/kernels/run.py" check -e gated_ssm \
      --cell "cutlass-evt/B=16,T=512,d=768,H=12,dk=64,n=16" --out /tmp/cut > "$OUT/cutlass.log" 2>&1; echo "cutlass rc=$?" >> "$OUT/cutlass.log"; cat /tmp/cut/*/*.json >> "$OUT/cutlass.log" 2>/dev/null) &
fi
python3 kernels/run.py env | tee "$OUT/env.json"
"$@"
wait
