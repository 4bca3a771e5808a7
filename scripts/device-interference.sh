#!/usr/bin/env bash
# How much the other GPUs of a host disturb a cell's timing (see METHOD.md,
# "Several GPUs"). One call on a multi-GPU machine: a control set of cells
# (host-bound and GPU-bound) is timed on the first GPU
#   alone      the other GPUs idle,
#   parallel   each other GPU timing the load set in a loop (profile --gpus
#              with parallel timing: every shard's timing pass at once),
#   serial     each other GPU running the ncu pass of the load set in a loop
#              (--serial-timing: no other timing at once, the profiler passes go on),
# in the order ORDER gives (default alone, parallel, serial, alone: the last
# shows the drift of a cell alone), each a run directory
# runs/ctl-<n>-<condition>; they come back tarred in $OUT.
# Compare them with rooftool diff. Carry bin/rooftool.gz and .nsysdeps.
set -uo pipefail
GPU=${GPU:-h100}
. scripts/device-common.sh
stamp start
nvidia-smi --query-gpu=index,name,uuid,clocks.sm,clocks.mem --format=csv,noheader
mapfile -t UUIDS < <(nvidia-smi --query-gpu=uuid --format=csv,noheader)
CTL=(--experiment gated_ssm --experiment gla_proj --experiment scan_gate
     --variant eager --variant unfused --variant three-kernel --default-only)
LOAD=(--experiment swiglu --experiment swiglu_fp8 --experiment gla_proj --default-only)
loads=()
start_loads() {  # $1: passes of the load
  for ((i = 1; i < ${#UUIDS[@]}; i++)); do
    (k=0; while :; do k=$((k + 1))
       CUDA_VISIBLE_DEVICES=${UUIDS[$i]} "$RT" profile --gpu "$GPU" --passes "$1" "${LOAD[@]}" \
         -o "/tmp/load-$1-$i-$k" --no-ingest --no-report > "/tmp/load-$1-$i.log" 2>&1
     done) &
    loads+=($!)
  done
  sleep 20  # the loads' runners past their imports and first compiles
}
stop_loads() {
  for p in "${loads[@]}"; do pkill -INT -P "$p"; kill "$p"; done 2>/dev/null
  wait "${loads[@]}" 2>/dev/null; loads=()
  pkill -f "kernels/run.py"; pkill -x ncu; sleep 3
}
control() {  # $1: run name
  stamp "control $1"
  CUDA_VISIBLE_DEVICES=${UUIDS[0]} "$RT" profile --gpu "$GPU" --passes check,timing "${CTL[@]}" -o "runs/$1" --no-report \
    > "$OUT/$1.log" 2>&1 || echo "control $1 failed: $?"
}
# ORDER: the conditions in turn (default: alone parallel serial alone).
n=0
for cond in ${ORDER:-alone parallel serial alone}; do
  n=$((n + 1))
  case $cond in
    alone) control "ctl-$n-alone" ;;
    parallel) start_loads check,timing; control "ctl-$n-parallel"; stop_loads ;;
    serial) start_loads check,ncu; control "ctl-$n-serial"; stop_loads ;;
    *) echo "unknown condition $cond"; exit 2 ;;
  esac
done
find runs -name '*.ncu-rep' -o -name '*.nsys-rep' | xargs rm -f
tar czf "$OUT/ctl.tgz" -C runs $(cd runs && ls -d ctl-*)
ls -la "$OUT"
stamp done
