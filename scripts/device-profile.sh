#!/usr/bin/env bash
# The real run, in one call on the GPU machine (see DEVICE.md):
#   doctor, then `rooftool profile` over every experiment, then the run
#   directory tarred into $OUT/run.tgz and the whole log in $OUT/log.
# Run from the repository root with bin/rooftool.gz (or bin/rooftool) and .nsysdeps carried:
#   scripts/device-profile.sh [extra profile flags...]
# Environment: RUN (run directory, default runs/device), LIMIT (seconds the
# profile may take before it is interrupted like Ctrl-C: finished cells are
# kept and a later call can --resume; default 520), GPU (default h100).
set -uo pipefail
OUT=${OUT:-/tmp/rooftool-out}
RUN=${RUN:-runs/device}
LIMIT=${LIMIT:-520}
GPU=${GPU:-h100}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
export PYTHONUNBUFFERED=1
if [ -d .nsysdeps/root/usr/lib/x86_64-linux-gnu ]; then
  export ROOFTOOL_NSYS_LIBS=$PWD/.nsysdeps/root/usr/lib/x86_64-linux-gnu
fi
# The binary travels gzipped (bin/rooftool.gz, carried) to stay inside the
# 64 MiB a call may carry; a plain bin/rooftool is used when there is no .gz.
RT=bin/rooftool
if [ -f bin/rooftool.gz ]; then
  mkdir -p /tmp/rooftool-bin.$$ && RT=/tmp/rooftool-bin.$$/rooftool
  gunzip -c bin/rooftool.gz > "$RT" && chmod +x "$RT" || exit 1
fi
"$RT" --version
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
t0=$(date +%s)
stamp start
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
stamp doctor
"$RT" doctor
t1=$(date +%s)
stamp "profile (limit ${LIMIT}s): $*"
timeout -s INT -k 30 "$LIMIT" "$RT" profile --gpu "$GPU" -o "$RUN" "$@"
rc=$?
t2=$(date +%s)
stamp "profile exit $rc"
echo "seconds: doctor $((t1 - t0)), profile $((t2 - t1))"
du -sh "$RUN" "$RUN"/raw/* 2>/dev/null
tar czf "$OUT/run.tgz" -C "$(dirname "$RUN")" "$(basename "$RUN")"
ls -la "$OUT"
stamp done
exit $rc
