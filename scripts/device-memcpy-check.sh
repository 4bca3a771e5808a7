#!/usr/bin/env bash
# The range pass's DRAM floor, checked on the GPU machine in one call (METHOD.md, "The
# range's DRAM floor"): kernels/examples/cmd/copy_bench.py (eager copies 536,870,912-byte
# tensors device to device, twice a call) profiled with the ncu, range and nsys passes under
# --range-process per-experiment, then per-cell; $OUT/memcpy-check.tsv gets one row per cell
# and mode: the process that measured its range, the range's DRAM bytes, the kernel pass's,
# the DRAM bytes of the copies nsys saw in the range, the floor and the check's verdict
# (ok, short, replayed-alone ok, short after alone). Each run's manifest.json and report.md
# come back too, and the log in $OUT/log.
# Run from the repository root with bin/rooftool.gz (or bin/rooftool) and .nsysdeps carried:
#   scripts/device-memcpy-check.sh
# Environment: GPU (default h100), LIMIT (seconds for both profiles together, default 220:
# the per-experiment run gets half, per-cell what is left). Without a GPU it says so and
# exits 0.
set -uo pipefail
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "device-memcpy-check: no GPU here (nvidia-smi finds none): skipped"
  exit 0
fi
GPU=${GPU:-h100}
LIMIT=${LIMIT:-220}
. scripts/device-common.sh
t0=$(date +%s)
stamp start
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PROG="python3 kernels/examples/cmd/copy_bench.py"
rc=0
for mode in per-experiment per-cell; do
  left=$((LIMIT - ($(date +%s) - t0)))
  [ "$mode" = per-experiment ] && left=$((left / 2))
  if [ "$left" -lt 20 ]; then
    stamp "$mode: no time left ($left s)"; rc=1; continue
  fi
  run=runs/memcpy-$mode
  rm -rf "$run"
  stamp "$mode (timeout ${left}s)"
  timeout -s INT -k 10 "$left" "$RT" profile --gpu "$GPU" --cmd "$PROG" \
    --claims kernels/examples/cmd/copy_claims.yaml --passes ncu,range,nsys \
    --range-replays 1 --range-process "$mode" -o "$run"
  r=$?
  stamp "$mode exit $r"
  [ "$r" -ne 0 ] && rc=$r
  [ -f "$run/manifest.json" ] && cp "$run/manifest.json" "$OUT/manifest-$mode.json"
  [ -f "$run/report.md" ] && cp "$run/report.md" "$OUT/report-$mode.md"
done
python3 - "$OUT/memcpy-check.tsv" <<'PY'
import json, os, sys
rows = [("cell", "mode", "process", "range_dram_bytes", "kernel_dram_bytes", "nsys_copy_dram_bytes",
         "floor_bytes", "shared_dram_bytes", "verdict")]
for mode in ("per-experiment", "per-cell"):
    p = f"runs/memcpy-{mode}/manifest.json"
    if not os.path.exists(p):
        rows.append(("-", mode, "-", "-", "-", "-", "-", "-", "no manifest"))
        continue
    m = json.load(open(p))
    for c in m.get("cells", []):
        st = c.get("passes", {}).get("range", {})
        f = st.get("dram_floor")
        cell = f'{c["experiment"]}/{c["variant"]}/{c["shape"]}'
        if not f:
            rows.append((cell, mode, st.get("process", "-"), "-", "-", "-", "-", "-",
                         "not checked (range " + st.get("status", "absent") + ")"))
            continue
        v = "short" if f.get("short") else "ok"
        if f.get("replayed_alone"):
            v = "short after alone" if f.get("short") else "replayed-alone ok"
        rows.append((cell, mode, st.get("process", "-"), "%.0f" % f["range_dram_bytes"], "%.0f" % f["kernel_dram_bytes"],
                     "%.0f" % f["copy_dram_bytes"], "%.0f" % f["floor_bytes"], "%.0f" % f.get("shared_dram_bytes", 0), v))
with open(sys.argv[1], "w") as out:
    for r in rows:
        out.write("\t".join(r) + "\n")
for r in rows:
    print("\t".join(r))
PY
grep -h 'range-below-floor' runs/memcpy-*/manifest.json 2>/dev/null | head -5
ls -la "$OUT"
stamp done
exit $rc
