#!/usr/bin/env bash
# The real run, in one call on the GPU machine (see DEVICE.md):
#   doctor, then `rooftool profile` over every experiment, then the run
#   directory tarred into $OUT/run.tgz.part-* (15 MB parts) and the whole log in $OUT/log.
# Run from the repository root with bin/rooftool.gz (or bin/rooftool) and .nsysdeps carried:
#   scripts/device-profile.sh [extra profile flags...]
# Environment: RUN (run directory, default runs/device), LIMIT (seconds the
# profile may take before it is interrupted like Ctrl-C: finished cells are
# kept and a later call can --resume; default 520), GPU (default h100).
set -uo pipefail
RUN=${RUN:-runs/device}
LIMIT=${LIMIT:-520}
GPU=${GPU:-h100}
. scripts/device-common.sh
t0=$(date +%s)
stamp start
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
stamp doctor
"$RT" doctor
# The profile's own warm stage compiles cutlass-evt's EVT kernels (the picked tiles) before
# the passes, side by side on the host's cores (kernels/sweeps/cutlass_warm.py).
t1=$(date +%s)
stamp "profile (limit ${LIMIT}s): $*"
timeout -s INT -k 30 "$LIMIT" "$RT" profile --gpu "$GPU" -o "$RUN" "$@"
rc=$?
t2=$(date +%s)
stamp "profile exit $rc"
echo "seconds: doctor $((t1 - t0)), profile $((t2 - t1))"
du -sh "$RUN" "$RUN"/raw/* 2>/dev/null
save_cutlass_cache
# At most 16 MiB per file comes back from $OUT: the tarball goes in 15 MB parts
# (cat run.tgz.part-* | tar xzf - puts it together).
# The run's compile caches (RUNDIR/cache) stay behind: nothing reads them after the run.
# The .ncu-rep/.nsys-rep stay behind too (the CSV and SQLite exports beside them are
# what ingest reads), keeping the tarball inside the 8 files that come back.
tar czf /tmp/run.tgz --exclude="$(basename "$RUN")/cache" --exclude='*.ncu-rep' --exclude='*.nsys-rep' -C "$(dirname "$RUN")" "$(basename "$RUN")" && split -b 15M /tmp/run.tgz "$OUT/run.tgz.part-"
ls -la "$OUT"
stamp done
exit $rc
