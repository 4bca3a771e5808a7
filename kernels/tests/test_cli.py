"""kernels/run.py argument handling and exit codes (no torch needed for these paths)."""
import json
import os
import subprocess
import sys

import pytest

import run
from conftest import KERNELS


@pytest.mark.parametrize("argv", [
    [],
    ["nope"],
    ["check"],                                            # no experiment
    ["check", "-e", "swiglu"],                            # no --out
    ["check", "-e", "nope", "--out", "x"],
    ["check", "-e", "swiglu", "--cell", "nope/M=512,N=4096,K=7168", "--out", "x"],
    ["check", "-e", "swiglu", "--cell", "dual-acc/M=1,N=1,K=1", "--out", "x"],
    ["check", "-e", "swiglu", "--cell", "dual-acc", "--out", "x"],
    ["time", "-e", "swiglu", "--reps", "10", "--out", "x"],  # fewer than 30 reps
    ["check", "--all", "-e", "swiglu", "--out", "x"],
    ["check", "--all", "--cell", "dual-acc/M=512,N=4096,K=7168", "--out", "x"],
    ["check", "-e", "swiglu", "-e", "gla_proj", "--cell", "dual-acc/M=512,N=4096,K=7168", "--out", "x"],
    ["check", "-e", "swiglu", "--warmup", "-1", "--out", "x"],
    ["pair", "-e", "swiglu", "--out", "x"],                                          # no --pair
    ["pair", "-e", "swiglu", "--pair", "unfused/dual-acc", "--out", "x"],            # no shape
    ["pair", "-e", "swiglu", "--pair", "unfused/dual-acc/M=512,N", "--out", "x"],    # bad shape
    ["pair", "-e", "swiglu", "--pair", "unfused/nope/M=512,N=4096,K=7168", "--out", "x"],
    ["pair", "-e", "swiglu", "--pair", "unfused/unfused/M=512,N=4096,K=7168", "--out", "x"],
    ["pair", "-e", "swiglu", "--pair", "unfused/dual-acc/M=512,N=4096,K=7168"],      # no --out
    ["pair", "-e", "swiglu", "-e", "gla_proj", "--pair", "unfused/dual-acc/M=512,N=4096,K=7168", "--out", "x"],
    ["pair", "-e", "swiglu", "--pairs", "5", "--pair", "unfused/dual-acc/M=512,N=4096,K=7168", "--out", "x"],
    ["time", "-e", "swiglu", "--pair", "unfused/dual-acc/M=512,N=4096,K=7168", "--out", "x"],
])
def test_usage_errors_exit_2(argv, capsys):
    assert run.main(argv) == 2
    assert "run.py:" in capsys.readouterr().err


def test_parse_args_plan():
    a, plan = run.parse_args(["time", "-e", "swiglu", "--cell", "dual-acc/M=512,N=4096,K=7168", "--out", "d"])
    assert a.mode == "time" and a.reps >= 30
    (e, cells), = plan
    assert e.name == "swiglu" and [(v.name, s) for v, s in cells] == [("dual-acc", "M=512,N=4096,K=7168")]
    assert run.out_dir(a, e) == "d"
    a, plan = run.parse_args(["check", "--all", "--default-grid", "--out", "d"])
    assert [e.name for e, _ in plan] == ["gated_ssm", "gla_proj", "scan_gate", "swiglu", "swiglu_fp8"]
    for e, cells in plan:
        assert {s for _, s in cells} == set(e.shapes)
        assert run.out_dir(a, e) == os.path.join("d", e.name)


def test_parse_args_pair():
    a, plan = run.parse_args(["pair", "-e", "swiglu", "--pair", "unfused/dual-acc/M=512,N=4096,K=7168", "--out", "d"])
    (e, pairs), = plan
    assert a.mode == "pair" and a.pairs == 60 and e.name == "swiglu"
    assert pairs == [("unfused", "dual-acc", "M=512,N=4096,K=7168")]


def test_list_mode_subprocess():
    p = subprocess.run([sys.executable, os.path.join(KERNELS, "run.py"), "list", "-e", "scan_gate"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    cells = json.loads(p.stdout)
    assert cells and all(c["experiment"] == "scan_gate" for c in cells)
    assert {"variant", "shape", "role", "graph", "backward", "requires"} <= set(cells[0])
    assert any(c["requires"] == "fla" for c in cells)


def test_bad_usage_subprocess_exit_code():
    p = subprocess.run([sys.executable, os.path.join(KERNELS, "run.py"), "check", "-e", "nope", "--out", "x"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 2
    assert "unknown experiment" in p.stderr


def test_runner_start_turns_tf32_off(monkeypatch, capsys):
    # run.py turns both TF32 flags off as soon as it has torch, before any mode runs
    from types import ModuleType, SimpleNamespace as NS
    torch = ModuleType("torch")
    torch.backends = NS(cuda=NS(matmul=NS(allow_tf32=True)), cudnn=NS(allow_tf32=True))
    torch.cuda = NS(is_available=lambda: False)
    runner = ModuleType("common.runner")
    runner.env_info = lambda: {}
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "common.runner", runner)
    import common
    monkeypatch.setattr(common, "runner", runner, raising=False)
    assert run.main(["env"]) == 0
    assert torch.backends.cuda.matmul.allow_tf32 is False
    assert torch.backends.cudnn.allow_tf32 is False
    capsys.readouterr()
