"""Variants against their references. Needs torch; the GPU tests need a CUDA device;
the interpreter test runs Triton kernels on the CPU (TRITON_INTERPRET=1) on tiny shapes."""
import os
import subprocess
import sys

import pytest

from conftest import KERNELS

torch = pytest.importorskip("torch", reason="torch not installed (CI without GPU): GPU tests skipped")

needs_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


@needs_gpu
@pytest.mark.parametrize("exp,cell", [
    ("swiglu", "dual-acc/M=512,N=4096,K=7168"),
    ("swiglu", "unfused/M=512,N=4096,K=7168"),
    ("swiglu_fp8", "dual-acc/M=512,N=4096,K=7168"),
    ("swiglu_fp8", "unfused/M=512,N=4096,K=7168"),
    ("scan_gate", "semi-fused/B=4,T=2048,d=256,dv=64"),
    ("scan_gate", "megakernel/B=4,T=2048,d=256,dv=64"),
])
def test_check_cell_on_gpu(tmp_path, exp, cell):
    p = subprocess.run([sys.executable, os.path.join(KERNELS, "run.py"), "check", "-e", exp, "--cell", cell,
                        "--out", str(tmp_path)], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    import json
    v, s = cell.split("/", 1)
    rec = json.load(open(tmp_path / v / (s + ".check.json")))
    assert rec["ok"] and rec["max_rel_err"] < rec["tolerance"]


def test_triton_interpreter_tiny():
    """silu_mul and the scan kernel under TRITON_INTERPRET=1 on the CPU (subprocess: the
    interpreter is chosen at import)."""
    pytest.importorskip("triton", reason="triton not installed")
    code = r'''
import sys, torch
sys.path.insert(0, sys.argv[1])
from common import tk
x = torch.randn(1000); y = torch.randn(1000); o = torch.full((1000,), float("nan"))
tk.silu_mul(x, y, o)
ref = torch.nn.functional.silu(x) * y
assert torch.allclose(o, ref, atol=1e-5), (o - ref).abs().max()
import importlib.util
spec = importlib.util.spec_from_file_location("sg", sys.argv[1] + "/scan_gate/variants.py")
sg = importlib.util.module_from_spec(spec); spec.loader.exec_module(sg)
B, T, dv = 2, 512, 16
z = torch.randn(B, T, 3 * dv)
y = torch.full((B, T, dv), float("nan"))
sg.scan(z, y, dv, gate=True)
ref = sg._scan_ref(z, dv)
assert torch.allclose(y, ref, atol=1e-4), (y - ref).abs().max()
print("ok")
'''
    env = dict(os.environ, TRITON_INTERPRET="1")
    p = subprocess.run([sys.executable, "-c", code, KERNELS], capture_output=True, text=True, env=env, check=False, timeout=600)
    if p.returncode != 0 and ("interpret" in p.stderr.lower() and "not supported" in p.stderr.lower()):
        pytest.skip("Triton interpreter cannot run these kernels here: " + p.stderr[-300:])
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr[-3000:]
