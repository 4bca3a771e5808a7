#!/usr/bin/env bash
# Re-runs, with --resume, the passes that the committed H100 run marked
# failed/superseded (see testdata/runs/README.md), then re-ingests the run.
# One call on the GPU machine; carry bin/rooftool.gz and .nsysdeps.
set -uo pipefail
OUT=${OUT:-/tmp/rooftool-out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
export PYTHONUNBUFFERED=1 ROOFTOOL_NSYS_LIBS=$PWD/.nsysdeps/root/usr/lib/x86_64-linux-gnu
RUN=${RUN:-testdata/runs/2026-11-22-h100-003504}
for f in "$RUN"/raw/nsys/*/*.sqlite.gz; do gunzip -k "$f"; done
RT=/tmp/rooftool; gunzip -c bin/rooftool.gz > $RT && chmod +x $RT
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem --format=csv,noheader
date -u +%T
$RT profile --gpu h100 -o "$RUN" --resume --no-ingest --experiment gla_proj \
  --variant unfused-fwdbwd --variant wide-gemm-fwdbwd --variant compiled-fwdbwd --passes ncu,range,nsys --default-only
date -u +%T
$RT profile --gpu h100 -o "$RUN" --resume --experiment scan_gate --experiment swiglu \
  --variant three-kernel --variant semi-fused --variant megakernel --variant unfused-graph --passes nsys --default-only
date -u +%T
find "$RUN" -name '*.ncu-rep' -o -name '*.nsys-rep' | xargs rm -f
for f in "$RUN"/raw/nsys/*/*.sqlite; do gzip -f "$f"; done
tar czf "$OUT/run.tgz" -C "$(dirname "$RUN")" "$(basename "$RUN")"
ls -la "$OUT"
