#!/usr/bin/env bash
# Re-runs, with --resume, the passes that the committed H100 run marked
# failed/superseded (see testdata/runs/README.md), then re-ingests the run.
# One call on the GPU machine; carry bin/rooftool.gz and .nsysdeps.
set -uo pipefail
. scripts/device-common.sh
RUN=${RUN:-testdata/runs/2026-11-22-h100-003504}
for f in "$RUN"/raw/nsys/*/*.sqlite.gz; do gunzip -k "$f"; done
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem --format=csv,noheader
date -u +%T
"$RT" profile --gpu h100 -o "$RUN" --resume --no-ingest --experiment gla_proj \
  --variant unfused-fwdbwd --variant wide-gemm-fwdbwd --variant compiled-fwdbwd --passes ncu,range,nsys --default-only
date -u +%T
"$RT" profile --gpu h100 -o "$RUN" --resume --experiment scan_gate --experiment swiglu \
  --variant three-kernel --variant semi-fused --variant megakernel --variant unfused-graph --passes nsys --default-only
date -u +%T
find "$RUN" -name '*.ncu-rep' -o -name '*.nsys-rep' | xargs rm -f
for f in "$RUN"/raw/nsys/*/*.sqlite; do gzip -f "$f"; done
tar czf /tmp/run.tgz --exclude="$(basename "$RUN")/cache" -C "$(dirname "$RUN")" "$(basename "$RUN")" && split -b 15M /tmp/run.tgz "$OUT/run.tgz.part-"
ls -la "$OUT"
