# Sourced by the scripts/device-*.sh calls on the GPU machine (run from the
# repository root): log everything to $OUT/log, point nsys at the carried
# importer libraries (.nsysdeps, see ../shared/DEVICE.md), unpack the carried
# binary into $RT, and define stamp.
OUT=${OUT:-/tmp/rooftool-out}
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
