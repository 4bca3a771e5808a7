"""tk_launch's launch logic (plans, autotune picks through ROOFTOOL_PICKS, plain kernels,
ROOFTOOL_FAST_LAUNCH=0) against stand-ins for torch and Triton 3.6's objects, in a
subprocess (the stand-ins never reach this process's sys.modules). No torch needed; the
real Triton path runs on the GPU machine (test_gpu.py, run.py check)."""
import json
import subprocess
import sys

from conftest import KERNELS

STUBS = r'''
import sys, types, json
sys.path.insert(0, sys.argv[1])
LOG = []

torch = types.ModuleType("torch")
class Tensor:
    def __init__(self, ptr, shape=(4, 4)):
        self.ptr, self.shape, self.dtype = ptr, shape, "bf16"
    def data_ptr(self): return self.ptr
    def stride(self, i=None): return (self.shape[1], 1) if i is None else (self.shape[1], 1)[i]
torch.Tensor = Tensor
torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda dev: 7)
torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
sys.modules["torch"] = torch

triton = types.ModuleType("triton")
class Config:
    def __init__(self, kwargs, num_warps=4, num_stages=3, pre_hook=None):
        self.kwargs, self.num_warps, self.num_stages, self.pre_hook = kwargs, num_warps, num_stages, pre_hook
    def all_kwargs(self): return {**self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages}
class Compiled:
    def __init__(self, name): self.name, self.function, self.packed_metadata = name, "fn", "md"
    def run(self, g0, g1, g2, stream, fn, md, lm, h1, h2, *vals): LOG.append(("plan", self.name, (g0, g1, g2), vals))
class JIT:
    def __init__(self, name, arg_names): self.__name__, self.arg_names = name, arg_names
    def __getitem__(self, grid):
        def launch(*args, **kw):
            LOG.append(("jit", self.__name__, tuple(grid), args, tuple(sorted(kw.items()))))
            return Compiled(self.__name__)
        return launch
class Autotuner:
    def __init__(self, fn, configs, key): self.fn, self.configs, self.key, self.best_config = fn, configs, key, None
    def __getitem__(self, grid):
        def tune(*args, **kw):
            LOG.append(("tune", self.fn.__name__))
            self.best_config = self.configs[1]
        return tune
def autotune(configs, key, cache_results=False):
    return lambda fn: Autotuner(fn, configs, key)
triton.Config, triton.autotune, triton.cdiv = Config, autotune, lambda a, b: -(-a // b)
triton.knobs = types.SimpleNamespace(runtime=types.SimpleNamespace(launch_enter_hook=None, launch_exit_hook=None))
sys.modules["triton"] = triton

from common import picks, tk_launch as L
'''

BODY = r'''
plain = JIT("_plain_kernel", ["x_ptr", "n", "BLOCK"])
x = Tensor(4096)
for _ in range(3):
    L.launch_jit(plain, (2,), (x, 16), BLOCK=8, num_warps=4)
tuned = L.autotune("_tuned", [Config({"BLOCK_M": 64, "BLOCK_N": 64}), Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8)], ["M"])(
    JIT("_tuned_kernel", ["a_ptr", "M", "BLOCK_M", "BLOCK_N"]))
a = Tensor(8192)
picks.reset_used()
for _ in range(3):
    L._launch(tuned, (256,), L._grid(256, 64), (a, 256), {})
print(json.dumps({"log": [list(map(str, e[:3])) for e in LOG],
                  "plans": [[e[1], list(e[2]), list(e[3])] for e in LOG if e[0] == "plan"], "hits": L.PLAN_STATS["hits"],
                  "mode": L.launch_mode(), "used": picks.used()}))
'''


def _run(tmp_path, **env):
    e = {"PATH": "/usr/bin:/bin", "ROOFTOOL_PICKS": str(tmp_path / "picks.json"), **env}
    p = subprocess.run([sys.executable, "-c", STUBS + BODY, KERNELS], env=e, capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_plans_and_picks(tmp_path):
    r = _run(tmp_path)
    kinds = [e[0] for e in r["log"]]
    # plain kernel: JIT launch once (the plan is made from it), then two plan launches;
    # autotuned: the first call tunes, the second launches the chosen config via the JIT
    # (making a plan), the third runs the plan.
    assert kinds == ["jit", "plan", "plan", "tune", "jit", "plan"], r["log"]
    assert r["hits"] == 3 and r["mode"] == "plan"
    # a plan launches the compiled kernel with grid (x, 1, 1) and every parameter by name
    # (tensors as addresses, constexprs included), as Triton 3.6's JIT hands them over
    assert r["plans"][0] == ["_plain_kernel", [2, 1, 1], [4096, 16, 8]]
    assert r["plans"][-1] == ["_tuned_kernel", [2, 1, 1], [8192, 256, 128, 64]]  # 256/128 x 64/64 tiles
    key = "('autotune', '_tuned', (256,))"
    assert r["used"] == {key: "BLOCK_M=128,BLOCK_N=64,warps=8,stages=3"}
    assert json.loads((tmp_path / "picks.json").read_text()) == {key: "BLOCK_M=128,BLOCK_N=64,warps=8,stages=3"}
    # Another pass of the run: the recorded config is launched, nothing is tuned again.
    r2 = _run(tmp_path)
    assert [e[0] for e in r2["log"]] == ["jit", "plan", "plan", "jit", "plan", "plan"], r2["log"]
    assert r2["used"] == r["used"]


def test_fast_launch_off(tmp_path):
    r = _run(tmp_path, ROOFTOOL_FAST_LAUNCH="0")
    assert [e[0] for e in r["log"]] == ["jit", "jit", "jit", "tune", "jit", "jit"], r["log"]
    assert r["hits"] == 0 and r["mode"] == "triton-dispatch"
    assert r["used"] == {"('autotune', '_tuned', (256,))": "BLOCK_M=128,BLOCK_N=64,warps=8,stages=3"}
