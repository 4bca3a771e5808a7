#!/usr/bin/env bash
# A short smoke call on the GPU machine before the real run: the profiler
# metric names this device knows, doctor, and one experiment on one shape
# under every pass. Output: $OUT/log, $OUT/smoke.tgz, $OUT/metrics.txt.
#   scripts/device-smoke.sh [experiment] [shape] [variant...]
set -uo pipefail
EXP=${1:-swiglu}
SHAPE=${2:-M=512,N=4096,K=7168}
shift 2 2>/dev/null || shift $#
. scripts/device-common.sh
stamp start
NCU=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu | tail -1)
"$NCU" --query-metrics > "$OUT/metrics.txt" 2>&1
grep -E "tensor_src|xbar2l1tex|op_[dhf](add|mul|fma)_pred_on|compute_memory_throughput|^dram__bytes |^lts__t_bytes |^l1tex__t_bytes " "$OUT/metrics.txt" | cut -c1-90
"$NCU" --query-metrics-mode suffix --metrics dram__bytes,lts__t_bytes,l1tex__t_bytes,smsp__sass_thread_inst_executed_op_ffma_pred_on,sm__ops_path_tensor_src_bf16_dst_fp32 2>&1 | grep -E "peak_sustained$|^[a-z]" | head -20
stamp doctor
"$RT" doctor
VARGS=()
for v in "$@"; do VARGS+=(--variant "$v"); done
stamp profile
timeout -s INT -k 30 400 "$RT" profile --gpu h100 -o runs/smoke --experiment "$EXP" --shape "$SHAPE" --default-only "${VARGS[@]}"
echo "profile exit $?"
stamp inspect
for f in runs/smoke/raw/ncu/*/part-1.csv runs/smoke/raw/ncu-range/*/part-1.csv; do
  echo "--- $f"; head -c 1500 "$f"; echo; wc -l "$f"
done
grep -h "passes" runs/smoke/raw/ncu*/*/part-1.log | head -20
ls -la runs/smoke/raw/*/* | head -40
tar czf "$OUT/smoke.tgz" -C runs smoke
stamp done
