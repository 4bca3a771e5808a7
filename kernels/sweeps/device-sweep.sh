#!/usr/bin/env bash
# One device call on a 4-GPU host: the fused-GEMM configuration sweeps side by side, each
# GPU with its own work, results tarred into $OUT/sweep.tgz.
#   GPU 0: Triton tma-store configs, gated_ssm d=2048 products (one process per product)
#   GPU 1: the same at the MVE shape and gla_proj's wide GEMM
#   GPU 2: CUTLASS EVT tiles x cluster x schedule (one process per tile), raster/swizzle
#   GPU 3: torch.compile max-autotune-no-cudagraphs beside eager and default compile (run.py time)
# With fewer GPUs the work folds onto them (GPU i mod count), one lock file per physical GPU
# so that timing never overlaps; the max-autotune timing runs only with 4 GPUs.
# Then ncu (DRAM bytes, L2 hit rate, cycles; caches flushed per kernel, free clocks) over
# the best configs of each product and cuBLAS's GEMMs for the same products.
# Usage (repository root): bash kernels/sweeps/device-sweep.sh [seconds for the timed stage]
set -o pipefail
OUT=${OUT:-/tmp/sweep-out}
W=/tmp/sweep
mkdir -p "$OUT" "$W"
export PYTHONUNBUFFERED=1
REPO=$PWD
STAGE=${1:-380}
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
if ls .whl/nvidia_cutlass*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_cut \
    .whl/nvidia_cutlass*.whl .whl/pydot*.whl .whl/treelib*.whl >/dev/null 2>&1
fi
nvidia-smi --query-gpu=index,uuid,name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > "$W/gpus.csv"
cat "$W/gpus.csv"
NG=$(nvidia-smi -L | wc -l)
g() { echo $(( $1 % NG )); }
stamp "timed stage, ${STAGE}s"
for p in wide-seg out-pro-add in-ga-seg gate out-add; do
  CUDA_VISIBLE_DEVICES=$(g 0) timeout "$STAGE" python3 kernels/sweeps/gemm_sweep.py time --group d2048 --product $p \
    --out "$W" --lock /tmp/gpu$(g 0).lock > "$W/triton.d2048.$p.log" 2>&1 &
done
for p in wide-seg out-pro-add in-ga-seg gate out-add; do
  CUDA_VISIBLE_DEVICES=$(g 1) timeout "$STAGE" python3 kernels/sweeps/gemm_sweep.py time --group mve --product $p \
    --out "$W" --lock /tmp/gpu$(g 1).lock > "$W/triton.mve.$p.log" 2>&1 &
done
CUDA_VISIBLE_DEVICES=$(g 1) timeout "$STAGE" python3 kernels/sweeps/gemm_sweep.py time --group gla --product gla-wide-seg \
  --out "$W" --lock /tmp/gpu$(g 1).lock > "$W/triton.gla.log" 2>&1 &
for t in 256x128x64/1x2/coop 256x256x64/2x1/coop 256x256x64/1x2/coop 128x256x64/1x1/coop 256x128x64/2x1/ping; do
  d="$W/cut.${t//\//_}"; mkdir -p "$d"
  (cd "$d" && CUDA_VISIBLE_DEVICES=$(g 2) PYTHONPATH=/tmp/site_cut timeout "$STAGE" python3 "$REPO/kernels/sweeps/cutlass_sweep.py" \
     --tile "$t" --out "$W" --lock /tmp/gpu$(g 2).lock > "$W/cutlass.${t//\//_}.log" 2>&1) &
done
[ "$NG" -ge 4 ] && (
  export CUDA_VISIBLE_DEVICES=$(g 3)
  timeout "$STAGE" python3 kernels/run.py time -e gated_ssm --default-grid --cell "eager/B=16,T=512,d=768,H=12,dk=64,n=16" \
    --cell "compiled/B=16,T=512,d=768,H=12,dk=64,n=16" --cell "compiled-max-autotune/B=16,T=512,d=768,H=12,dk=64,n=16" \
    --cell "eager/B=16,T=2048,d=2048,H=16,dk=128,n=16" --cell "compiled/B=16,T=2048,d=2048,H=16,dk=128,n=16" \
    --cell "compiled-max-autotune/B=16,T=2048,d=2048,H=16,dk=128,n=16" \
    --cell "triton-epilogue/B=16,T=2048,d=2048,H=16,dk=128,n=16" --cell "triton-epilogue/B=16,T=512,d=768,H=12,dk=64,n=16" \
    --out "$W/ma" > "$W/maxautotune.gated_ssm.log" 2>&1
  timeout 120 python3 kernels/run.py time -e gla_proj --default-grid --cell "unfused/B=8,T=4096,d=2048,dk=128,dv=128,H=16,n=16" \
    --cell "compiled-max-autotune/B=8,T=4096,d=2048,dk=128,dv=128,H=16,n=16" \
    --cell "wide-gemm-epilogue/B=8,T=4096,d=2048,dk=128,dv=128,H=16,n=16" --out "$W/ma" > "$W/maxautotune.gla_proj.log" 2>&1
) &
wait
stamp "ncu stage"
NCU_M=gpu__time_duration.sum,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__cycles_active.avg
ncu_group() {  # ncu counts DRAM bytes device-wide: one ncu process per GPU at a time
  CUDA_VISIBLE_DEVICES=$2 timeout 110 ncu --csv --page raw --print-units base --clock-control none --cache-control all \
    --nvtx --nvtx-include "sweep/" --metrics "$NCU_M" python3 kernels/sweeps/gemm_sweep.py bytes --group $1 --out "$W" \
    > "$W/ncu.$1.csv" 2> "$W/ncu.$1.log"
}
if [ "$NG" -ge 3 ]; then
  ncu_group d2048 0 & ncu_group mve 1 & ncu_group gla 2 &
else
  (ncu_group d2048 0; ncu_group gla 0) & ncu_group mve $(g 1) &
fi
wait
stamp "done"
for d in "$W"/cut.*; do [ -f "$d/compiled_cache.db" ] && cp "$d/compiled_cache.db" "$W/$(basename "$d").db"; done
rm -rf "$W"/cut.*/
tar czf "$OUT/sweep.tgz" -C /tmp sweep
ls -la "$OUT"
