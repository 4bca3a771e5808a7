#!/usr/bin/env bash
# The default grid on every GPU of one host, in one call on a multi-GPU machine
# (see DEVICE.md): `rooftool profile --gpus <all>`, one shard per GPU, merged
# into one run with its report, then tarred into $OUT/run.tgz.part-* (15 MB
# parts) without the .ncu-rep/.nsys-rep, and the whole log in $OUT/log.
# Run from the repository root with bin/rooftool.gz (or bin/rooftool), .nsysdeps
# and, for cutlass-evt, .whl and .cutlass-cache carried:
#   scripts/device-multigpu.sh [extra profile flags...]
# Environment: RUN (default runs/multi), LIMIT (seconds before the profile is
# interrupted like Ctrl-C; finished cells are kept for --resume; default 540),
# GPU (default h100), COSTS (run directories whose manifests balance the
# shards, as --costs-from; default: the newest committed run on the GPU kind).
# The profile warms once for the host (cutlass-evt's kernels, side by side)
# into RUNDIR.cache, which every shard shares; it stays behind like the shards' raw reports.
set -uo pipefail
RUN=${RUN:-runs/multi}
LIMIT=${LIMIT:-540}
GPU=${GPU:-h100}
. scripts/device-common.sh
stamp start
nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm,clocks.mem --format=csv,noheader
GPUS=$(nvidia-smi --query-gpu=index --format=csv,noheader | paste -sd, -)
costs=()
for d in ${COSTS:-}; do costs+=(--costs-from "$d"); done
t1=$(date +%s)
stamp "profile --gpus $GPUS (limit ${LIMIT}s): $*"
timeout -s INT -k 30 "$LIMIT" "$RT" profile --gpu "$GPU" --gpus "$GPUS" -o "$RUN" "${costs[@]}" "$@"
rc=$?
t2=$(date +%s)
stamp "profile exit $rc"
echo "seconds: profile --gpus $((t2 - t1))"
save_cutlass_cache
# What comes back is packed from a copy: the run and its shards stay as the
# profile left them, for a --resume in a later call (gzipping them in place
# would have a resumed shard write x.sqlite beside x.sqlite.gz).
rm -rf /tmp/pack && mkdir -p /tmp/pack && cp -r "$RUN" "$RUN".gpu-* /tmp/pack/ 2>/dev/null
cp "$RUN".gpu-*.log /tmp/pack/ 2>/dev/null
rm -rf /tmp/pack/*/cache  # each part's compile caches (RUNDIR/cache): nothing reads them after the run
find /tmp/pack -name '*.ncu-rep' -o -name '*.nsys-rep' | xargs rm -f
find /tmp/pack -name '*.sqlite' | xargs -r gzip -n
du -sh /tmp/pack/*
tar czf /tmp/run.tgz -C /tmp/pack . && split -b 15M /tmp/run.tgz "$OUT/run.tgz.part-"
ls -la "$OUT"
stamp done
exit $rc
