#!/usr/bin/env bash
# quack's fused-epilogue GEMMs on the GPU machine, in one call after
# `scripts/device-quack-wheels.sh stage .qw/a` (the previous call, same warm machine):
# install the wheels, check every quack variant through kernels/run.py (float32
# reference), then sweep each product's tiles (quack_sweep.py, products in parallel
# processes, timing under one lock), results in $OUT/quack.tgz.
#   bash kernels/sweeps/device-quack.sh [SWEEP_BUDGET_S]
set -uo pipefail
OUT=${OUT:-/tmp/quack-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
export PYTHONUNBUFFERED=1
. scripts/device-quack-wheels.sh install .qw/b || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
R=/tmp/quack-res && mkdir -p $R
SB=${1:-240}
t0=$(date +%s)
pids="" spids=""
echo "== check $(($(date +%s) - t0))s"
for e in "gated_ssm quack-epilogue" "gla_proj quack-epilogue" "swiglu quack-gated" "swiglu_fp8 quack-gated"; do
  set -- $e
  cells=$(python3 kernels/run.py list --experiment "$1" --default-grid | python3 -c "import json,sys; [print(c['variant']+'/'+c['shape']) for c in json.load(sys.stdin) if c['variant']=='$2']" 2>/dev/null)
  args=(); for c in $cells; do args+=(--cell "$c"); done
  timeout -k 10 200 python3 kernels/run.py check --experiment "$1" "${args[@]}" --out $R/check/$1 > $R/check-$1.log 2>&1 &
  pids="$pids $!"
done
# wait with no PID would also wait for the tee of the log's process substitution
wait $pids
tail -n 15 $R/check-*.log
echo "== sweep $(($(date +%s) - t0))s"
B=$SB
for p in gssm-in-d2048 gssm-gate-d2048 gssm-out-d2048 gssm-in-mve gssm-gate-mve gssm-out-mve gla-wide swiglu swiglu-fp8; do
  timeout -k 10 $((B + 60)) python3 kernels/sweeps/quack_sweep.py $p --out $R/sweep --budget $B --lock /tmp/quack-lock > $R/sweep-$p.log 2>&1 &
  spids="$spids $!"
done
wait $spids
echo "== done $(($(date +%s) - t0))s"
cat $R/sweep/*.jsonl | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l)
    if r['kind']=='ref': print(r['product'], 'cublas', [round(x,1) for x in r['cublas_us']], 'eager', round(r['eager_us'],1))
    elif r['kind']=='config': print(r['product'], r['config'], r.get('error') or '%.1f us %.0f%% x%.2f err %.2g compile %ss' % (r['us'], r['pct_cublas'], r['x_eager'], r['rel_err'], r['compile_s']))
"
tar czf "$OUT/quack.tgz" -C $R . 2>/dev/null
ls -la "$OUT"
