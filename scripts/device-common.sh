# Sourced by the scripts/device-*.sh calls on the GPU machine (run from the
# repository root): log everything to $OUT/log, point nsys at the carried
# importer libraries (.nsysdeps, see DEVICE.md), unpack the carried
# binary into $RT, and define stamp.
OUT=${OUT:-/tmp/rooftool-out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
export PYTHONUNBUFFERED=1
if [ -d .nsysdeps/root/usr/lib/x86_64-linux-gnu ]; then
  export ROOFTOOL_NSYS_LIBS=$PWD/.nsysdeps/root/usr/lib/x86_64-linux-gnu
fi
# The binary travels compressed (bin/rooftool.xz or bin/rooftool.gz, carried) to
# stay inside the 64 MiB a call may carry: a stripped build (make release-bin) is
# about 11 MB as xz, 16 MB as gzip; a plain bin/rooftool is used when neither is there.
RT=bin/rooftool
if [ -f bin/rooftool.xz ] || [ -f bin/rooftool.gz ]; then
  mkdir -p /tmp/rooftool-bin.$$ && RT=/tmp/rooftool-bin.$$/rooftool
  if [ -f bin/rooftool.xz ]; then xz -dc bin/rooftool.xz > "$RT"; else gunzip -c bin/rooftool.gz > "$RT"; fi &&
    chmod +x "$RT" || exit 1
fi
"$RT" --version
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
# Optional variants' packages travel as wheels in .whl (carried; see DEVICE.md):
# flash-linear-attention (scan_gate/fla-hgrn) and nvidia-cutlass (gated_ssm/cutlass-evt).
# cutlass_cppgen compiles each kernel with nvcc on first use into compiled_cache.db in the
# working directory: .cutlass-cache/compiled_cache.db (carried) seeds it, and the grown
# cache goes back in $OUT.
SITE=""
if ls .whl/flash_linear*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_fla \
    .whl/fla_core*.whl .whl/flash_linear*.whl >/dev/null 2>&1 && SITE=/tmp/site_fla
fi
if ls .whl/nvidia_cutlass*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_cut \
    .whl/nvidia_cutlass*.whl .whl/pydot*.whl .whl/treelib*.whl >/dev/null 2>&1 && SITE=${SITE:+$SITE:}/tmp/site_cut
fi
# quack and the CuTe DSL (quack-* variants), installed by an earlier call on this warm
# machine (scripts/device-quack-wheels.sh: the wheels exceed one call's 64 MiB).
if [ -f /tmp/site_quack/.done ]; then
  SITE=${SITE:+$SITE:}/tmp/site_quack:/tmp/site_quack/nvidia_cutlass_dsl/dsl_packages
fi
[ -n "$SITE" ] && export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH} && echo "optional packages: $SITE"
[ -f .cutlass-cache/compiled_cache.db ] && cp .cutlass-cache/compiled_cache.db ./compiled_cache.db && chmod u+w compiled_cache.db
# rooftool profile seeds RUNDIR/cache/cutlass/compiled_cache.db from ./compiled_cache.db and
# the passes grow that copy (unless --no-compile-cache): bring back the run's where it has one.
save_cutlass_cache() {
  local db=compiled_cache.db
  [ -n "${RUN:-}" ] && [ -f "$RUN/cache/cutlass/compiled_cache.db" ] && db=$RUN/cache/cutlass/compiled_cache.db
  [ -n "${RUN:-}" ] && [ -f "$RUN.cache/cutlass/compiled_cache.db" ] && db=$RUN.cache/cutlass/compiled_cache.db  # --gpus: shared
  [ -f "$db" ] && cp "$db" "$OUT/compiled_cache.db"
}
