#!/usr/bin/env bash
# Installs dist/rooftool-*.whl (make wheel) into a fresh virtual
# environment with pip --no-index --no-deps (the wheel alone), then, with
# only that environment's bin on PATH (no Go, no checkout: run from an
# empty directory outside the repository), checks on CPU that the
# installed rooftool does its main job's first steps:
#   - the kernels folder is the one the wheel installed
#     (share/rooftool/kernels of the environment, as rooftool doctor
#     reports it), holding every built-in experiment;
#   - rooftool plan --gpu h100 lists every built-in experiment's cells;
#   - rooftool profile --gpu h100 gets past finding its runner and kernels
#     and stops only at what a CPU machine lacks (exit 2 naming the GPU);
#   - the installed runner lists its cells (run.py list --all) with a
#     python3 that has PyYAML, where the machine has one;
#   - rooftool version and report -o DIR (the embedded default run) run,
#     and the environment's python imports rooftool_marks.
# Also checks the wheel's size (<= 40 MB), platform tag and metadata (the
# runner's dependencies and the extras quack, cutlass, fla, torch, all).
set -euo pipefail
cd "$(dirname "$0")/.."
DIST=${1:-dist}
say() { echo "wheel-test: $*"; }
fail() { echo "wheel-test: FAIL: $*" >&2; exit 1; }

whls=("$DIST"/rooftool-*.whl)
[ ${#whls[@]} = 1 ] && [ -f "${whls[0]}" ] || fail "want one $DIST/rooftool-*.whl (make wheel), found: ${whls[*]}"
whl=$(cd "$(dirname "${whls[0]}")" && pwd)/$(basename "${whls[0]}")
size=$(stat -c %s "$whl")
[ "$size" -le $((40 * 1024 * 1024)) ] || fail "$whl is $size bytes, over 40 MiB"
[[ $whl =~ -py3-none-manylinux_[0-9]+_[0-9]+_(x86_64|aarch64)\.whl$ ]] || fail "$whl: want a py3-none-manylinux_X_Y_ARCH tag"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
venv=$tmp/venv
# A fresh venv with pip; where python3 has no ensurepip, one without pip
# filled by the pip of the project venv or python3.
if python3 -m venv "$venv" >/dev/null 2>&1 && "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  pip=("$venv/bin/python" -m pip)
else
  rm -rf "$venv" && python3 -m venv --without-pip "$venv"
  if [ -x .venv/bin/python ] && .venv/bin/python -m pip --version >/dev/null 2>&1; then
    pip=(.venv/bin/python -m pip --python "$venv/bin/python")
  elif python3 -m pip --version >/dev/null 2>&1; then
    pip=(python3 -m pip --python "$venv/bin/python")
  elif [ -f .venv/pip.pyz ]; then # the zipapp scripts/venv-install.sh fetched
    pip=(python3 .venv/pip.pyz --python "$venv/bin/python")
  else
    fail "no pip to install the wheel with (python3 has neither ensurepip nor pip: apt-get install python3-venv)"
  fi
fi
"${pip[@]}" install -q --disable-pip-version-check --no-index --no-deps "$whl"

# Only the venv's bin on PATH, from an empty directory: nothing of this
# checkout or of a Go toolchain is reachable.
mkdir "$tmp/cwd"
run() { (cd "$tmp/cwd" && env -i HOME="$tmp" PATH="$venv/bin" "$@"); }
if run /bin/sh -c 'command -v go' >/dev/null 2>&1; then fail "go is on the test PATH"; fi
got=$(run /bin/sh -c 'command -v rooftool') || fail "rooftool is not on the venv's PATH"
[ "$got" = "$venv/bin/rooftool" ] || fail "rooftool resolves to $got, not the venv's"
run rooftool --version
run rooftool version >/dev/null || fail "rooftool version failed"
run rooftool report -o "$tmp/out" >"$tmp/report.log" 2>&1 || { cat "$tmp/report.log"; fail "rooftool report failed"; }
grep -q 'GO\|NO-GO\|INCONCLUSIVE' "$tmp/out/report.md" || fail "$tmp/out/report.md has no verdict"
run python -c 'import rooftool_marks, sys; assert callable(rooftool_marks.mark) and callable(rooftool_marks.measure); print("rooftool_marks from", rooftool_marks.__file__)' \
  | grep -q "^rooftool_marks from $venv/" || fail "import rooftool_marks did not load the venv's package"

# The metadata: the runner's packages as dependencies, the kernel packages as extras.
run python - <<'PY' || fail "the wheel's metadata lacks a dependency or an extra"
import importlib.metadata as md
m = md.metadata("rooftool")
extras = set(m.get_all("Provides-Extra") or [])
reqs = " ".join(m.get_all("Requires-Dist") or [])
missing = [e for e in ("quack", "cutlass", "fla", "torch", "all") if e not in extras]
missing += [r for r in ("pyyaml", "quack-kernels", "nvidia-cutlass", "flash-linear-attention") if r not in reqs]
assert not missing, missing
PY

# The kernels: the wheel's, found from outside any checkout.
kdir=$venv/share/rooftool/kernels
exps=$(cd "$kdir" && ls -d */spec.yaml | sed 's#/spec.yaml##' | sort)
[ -n "$exps" ] || fail "$kdir holds no experiment"
[ -f "$kdir/run.py" ] || fail "$kdir has no run.py"
run rooftool doctor --probe=false --format json >"$tmp/doctor.json" 2>"$tmp/doctor.err" || true
run python - "$tmp/doctor.json" "$kdir" <<'PY' || { cat "$tmp/doctor.json" "$tmp/doctor.err"; fail "rooftool doctor does not report the installed kernels"; }
import json, os, sys
doc = json.load(open(sys.argv[1]))
k = [f for f in doc["findings"] if f["check"] == "kernels"]
assert k and k[0]["level"] == "ok", k
assert k[0]["detail"].startswith(os.path.realpath(sys.argv[2]) + " (installed with rooftool)") or k[0]["detail"].startswith(sys.argv[2] + " (installed with rooftool)"), k
assert any(f["check"] == "python" and sys.argv[2].rsplit("/share/", 1)[0] in f["detail"] for f in doc["findings"]), "doctor does not check the venv's python"
for key in ("quack", "cutlass", "fla"):
    f = [f for f in doc["findings"] if f["check"] == key]
    assert f and "rooftool[" + key + "]" in f[0].get("fix", ""), f
print("doctor:", k[0]["detail"])
PY
run rooftool plan --gpu h100 --costs-from none --format csv >"$tmp/plan.csv" 2>"$tmp/plan.err" || { cat "$tmp/plan.err"; fail "rooftool plan --gpu h100 failed"; }
for e in $exps; do
  grep -q "^\"\\?$e/" "$tmp/plan.csv" || fail "rooftool plan --gpu h100 lists no cell of $e"
done
set +e
run rooftool profile --gpu h100 --experiment swiglu -o "$tmp/run" >"$tmp/profile.log" 2>&1
rc=$?
set -e
if [ "$rc" != 2 ] || grep -q "kernels folder\|runner .*run.py" "$tmp/profile.log" || ! grep -qi "gpu" "$tmp/profile.log"; then
  cat "$tmp/profile.log"; fail "rooftool profile --gpu h100 on CPU: exit $rc; want 2, naming the missing GPU, with its kernels found"
fi
# The installed runner itself, with a python3 that has PyYAML (the venv has
# only the wheel).
if python3 -c 'import yaml' 2>/dev/null; then
  (cd "$tmp/cwd" && python3 "$kdir/run.py" list --all) >"$tmp/list.json" || fail "the installed runner: run.py list --all failed"
  for e in $exps; do grep -q "\"$e\"" "$tmp/list.json" || fail "the installed runner lists no cell of $e"; done
  runner="; the installed runner lists them"
else
  runner="; the installed runner not run (no python3 with PyYAML here)"
fi
say "ok: $(basename "$whl") ($(awk -v s="$size" 'BEGIN {printf "%.1f", s / 1048576}') MiB) installs alone with pip --no-index --no-deps; from $tmp/cwd with no Go or checkout, rooftool finds its kernels in the venv's share/rooftool/kernels ($(echo $exps | wc -w) experiments: plan lists them, doctor reports them, profile stops only at the missing GPU)$runner; report, version and import rooftool_marks run"
