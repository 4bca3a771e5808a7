#!/usr/bin/env bash
# The CuTe DSL and quack wheels on the GPU machine (DEVICE.md): more than one call
# carries (64 MiB), so they travel in parts to one warm machine, whose /tmp stays
# between calls. Run from the repository root:
#   scripts/device-quack-wheels.sh stage DIR    # copy DIR's files (a part) into /tmp/wheels
#   . scripts/device-quack-wheels.sh install DIR # DIR's files too, join the parts
#                                                # (sha256 checked), pip install into
#                                                # /tmp/site_quack, export PYTHONPATH
# The big wheel is split here with head -c / tail -c into cu13.part-a, cu13.part-b
# and cu13.sha256 names the whole wheel and its sum.
W=/tmp/wheels
mkdir -p "$W"
case "${1:-}" in
stage)
  cp "$2"/* "$W"/ && ls -la "$W" ;;
install)
  cp "$2"/* "$W"/ || return 1 2>/dev/null || exit 1
  name=$(awk '{print $2}' "$W/cu13.sha256")
  if [ ! -f "/tmp/site_quack/.done" ]; then
    cat "$W"/cu13.part-* > "$W/$name"
    (cd "$W" && sha256sum -c cu13.sha256) || { echo "quack wheels: $name does not match cu13.sha256"; return 1 2>/dev/null || exit 1; }
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site_quack "$W"/*.whl &&
      touch /tmp/site_quack/.done
  fi
  # --target skips the wheel's .pth: its dsl_packages folder goes on PYTHONPATH by hand.
  export PYTHONPATH=/tmp/site_quack:/tmp/site_quack/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}
  export QUACK_CACHE_DIR=${QUACK_CACHE_DIR:-/tmp/quack_cache}
  python3 -c "import cutlass, quack; print('quack', getattr(quack, '__version__', '?'), 'cutlass-dsl', getattr(cutlass, '__version__', '?'))" ;;
*)
  echo "usage: $0 stage|install DIR"; exit 2 ;;
esac
