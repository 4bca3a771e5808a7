#!/usr/bin/env bash
# The installed wheel does the main job, checked on the GPU machine in one call: the
# carried dist/rooftool-*.whl alone is installed into a fresh virtual environment
# (--system-site-packages, so the machine's torch and Triton serve the runner; pip
# --no-index --no-deps: nothing of this checkout), then, from an empty directory outside any
# clone and with only that environment's bin before the system's on PATH, `rooftool doctor`
# and `rooftool profile --gpu $GPU --experiment $EXP --default-only -o RUN` run there. The
# run's report.md, report.json, manifest.json and logs come back in $OUT (wheel-run.tgz),
# with where the binary found its kernels.
# Run from the repository root with the wheel and .nsysdeps carried:
#   scripts/device-wheel.sh
# Environment: GPU (default h100), EXP (default swiglu), LIMIT (seconds for the profile,
# default 420). Without a GPU it says so and exits 0.
set -uo pipefail
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "device-wheel: no GPU here (nvidia-smi finds none): skipped"
  exit 0
fi
GPU=${GPU:-h100}
EXP=${EXP:-swiglu}
LIMIT=${LIMIT:-420}
OUT=${OUT:-/tmp/rooftool-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
if [ -d .nsysdeps/root/usr/lib/x86_64-linux-gnu ]; then
  export ROOFTOOL_NSYS_LIBS=$PWD/.nsysdeps/root/usr/lib/x86_64-linux-gnu
fi
whl=$(ls dist/rooftool-*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || { echo "device-wheel: no dist/rooftool-*.whl carried"; exit 1; }
whl=$PWD/$whl
stamp "wheel $(basename "$whl") $(stat -c %s "$whl") bytes"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
venv=/tmp/wheel-venv
rm -rf "$venv" && python3 -m venv --system-site-packages "$venv" || exit 1
# Where the machine's torch lives in a virtual environment of its own (--system-site-packages
# then reaches only /usr's), the fresh one sees that environment's packages through a .pth
# file, as a user installing rooftool beside their torch would.
torch_site=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)
if [ -n "$torch_site" ] && ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  echo "$torch_site" > "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/machine-torch.pth"
  echo "torch from $torch_site"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$whl" || exit 1
work=$(mktemp -d /tmp/wheel-cwd.XXXX)
cd "$work" || exit 1
git rev-parse --show-toplevel >/dev/null 2>&1 && { echo "device-wheel: $work is inside a git checkout"; exit 1; }
export PATH=$venv/bin:$PATH
unset ROOFTOOL_KERNELS
stamp "rooftool: $(command -v rooftool)"
rooftool version
rooftool doctor; echo "doctor exit $?"
stamp "profile (timeout ${LIMIT}s)"
timeout -s INT -k 10 "$LIMIT" rooftool profile --gpu "$GPU" --experiment "$EXP" --default-only -o run
rc=$?
stamp "profile exit $rc"
ls run
tar czf "$OUT/wheel-run.tgz" --exclude='*.ncu-rep' --exclude='*.nsys-rep' --exclude='run/cache' run 2>/dev/null
cp run/report.md run/report.json "$OUT/" 2>/dev/null
head -60 run/report.md 2>/dev/null
exit $rc
