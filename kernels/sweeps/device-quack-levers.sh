#!/usr/bin/env bash
# quack's tile-scheduler levers on gated_ssm's and gla_proj's fused GEMMs beside cuBLAS, and
# the d=2048 latency claim timed in separate loops and paired, in one GPU call after
# `scripts/device-quack-wheels.sh stage .qw/a` (the previous call, same warm machine):
#   bash kernels/sweeps/device-quack-levers.sh [SWEEP_S]
# The sweep (tile, cluster, pingpong/cooperative, swizzle: each product's candidate list;
# raster order along M / N and epilogue tiles 64x32, 128x64 on the product's current pick,
# each lever setting in a process of its own) runs under a hard `timeout` of SWEEP_S seconds
# (240 at most); then paired_demo.py (hard timeout 240 s). Tables: $OUT/levers.md,
# $OUT/paired_demo.md; everything in $OUT/levers.tgz. Without a GPU it says so and exits 1.
set -uo pipefail
OUT=${OUT:-/tmp/levers-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
export PYTHONUNBUFFERED=1
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "device-quack-levers: no GPU"; exit 1; }
. scripts/device-quack-wheels.sh install .qw/b || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
SB=${1:-240}
[ "$SB" -gt 240 ] && SB=240
R=/tmp/levers-res && rm -rf $R && mkdir -p $R/sweep
t0=$(date +%s)
pick() { python3 -c "
import sys; sys.path.insert(0, 'kernels')
from common import qkconf
print(qkconf.name_for('$1', $2, $3, $4))"; }
jobs_file=$R/jobs
: > $jobs_file
B=$((SB - 50))  # no config starts after this; compiles in flight finish under the timeout
for spec in "gssm-in-d2048 gssm-in 32768 6400 2048" "gssm-gate-d2048 gssm-gate 32768 2048 2048" \
            "gssm-out-d2048 gssm-out 32768 2048 2048" "gla-wide gla-wide 32768 8448 2048"; do
  set -- $spec
  p=$1; cfg=$(pick $2 $3 $4 $5)
  echo "$p --budget $B" >> $jobs_file
  for lv in "--raster m" "--raster n" "--epi-tile 64x32" "--epi-tile 128x64"; do
    echo "$p --budget $B --configs $cfg $lv" >> $jobs_file
  done
done
# With a second GPU the paired demo runs there beside the sweep (which keeps to the first).
NG=$(nvidia-smi -L | wc -l)
DEMO=""
if [ "$NG" -gt 1 ]; then
  echo "== paired demo on GPU 1, beside the sweep"
  (CUDA_VISIBLE_DEVICES=1 timeout -k 5 240 python3 kernels/sweeps/paired_demo.py --out "$OUT" > $R/paired_demo.log 2>&1 || echo "paired demo: exit $?") &
  DEMO=$!
fi
echo "== sweep ($(wc -l < $jobs_file) processes, hard timeout ${SB}s)"
# One process per line, 8 at a time; timing under one lock so no two time at once.
CUDA_VISIBLE_DEVICES=0 timeout -k 5 "$SB" bash -c "cat $jobs_file | xargs -P 8 -L 1 bash -c 'n=\$(echo \"\$*\" | tr \" /\" \"__\"); python3 kernels/sweeps/quack_sweep.py \"\$@\" --out $R/sweep --lock /tmp/levers-lock > $R/\$n.log 2>&1' _"
rc=$?
echo "== sweep ended $(($(date +%s) - t0))s (rc $rc; 124: the hard timeout stopped it)"
python3 - "$R/sweep" > "$OUT/levers.md" <<'PY'
import glob, json, os, sys
rows = [json.loads(l) for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))) for l in open(f)]
print("| product | config | raster | epi tile | us | % of cuBLAS | x eager | rel err | note |")
print("|---|---|---|---|---:|---:|---:|---:|---|")
for r in rows:
    if r["kind"] == "ref":
        print(f"| {r['product']} | cuBLAS (sum of {len(r['cublas_us'])}) | | | {r['cublas_sum_us']:.1f} | 100 | {r['eager_us'] / r['cublas_sum_us']:.2f} | | eager {r['eager_us']:.1f} us, {r['device']} |")
    elif r["kind"] == "config":
        if r.get("error"):
            print(f"| {r['product']} | {r['config']} | {r.get('raster')} | {r.get('epi_tile')} | | | | | {r['error'][:120]} |")
        else:
            print(f"| {r['product']} | {r['config']} | {r.get('raster')} | {r.get('epi_tile')} | {r['us']:.1f} | {r['pct_cublas']:.1f} | {r['x_eager']:.2f} | {r['rel_err']:.2g} | compile {r['compile_s']} s |")
    else:
        print(f"| {r['product']} | {r['config']} | {r.get('raster')} | {r.get('epi_tile')} | | | | | skipped: {r.get('reason')} |")
PY
cat "$OUT/levers.md"
if [ -n "$DEMO" ]; then
  wait $DEMO; cat $R/paired_demo.log
else
  echo "== paired demo $(($(date +%s) - t0))s"
  timeout -k 5 240 python3 kernels/sweeps/paired_demo.py --out "$OUT" || echo "paired demo: exit $?"
fi
echo "== paired demo done $(($(date +%s) - t0))s"
tar czf "$OUT/levers.tgz" -C $R . 2>/dev/null
ls -la "$OUT"
