"""The configuration a cutlass-evt GEMM measures: the sweep's pick for the GPU and shape, the
knob over it, one default without either; and the warm stage's kernel list and merge."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from common import knobs, sweep_picks
from conftest import KERNELS

D2048 = "B=16,T=2048,d=2048,H=16,dk=128,n=16"
MVE = "B=16,T=512,d=768,H=12,dk=64,n=16"


def test_gpu_key():
    assert sweep_picks.gpu_key("NVIDIA H200") == "h200"
    assert sweep_picks.gpu_key("NVIDIA H100 80GB HBM3") == "h100"
    assert sweep_picks.gpu_key("NVIDIA H100 PCIe") == "h100"
    assert sweep_picks.gpu_key("Some GPU") == ""


def test_default_knob_no_longer_lists_candidates():
    # Before: three candidate tiles, each compiled (~55 s of nvcc) per GEMM in the profile.
    assert knobs.KNOBS["ROOFTOOL_CUTLASS_TILE"] == ""


def test_committed_h200_picks_are_the_sweeps_fastest():
    """kernels/sweeps/README.md's tile table (H200, raster 1/heuristic): the plain
    32768x6144x2048 GEMM is fastest with 256x256x64/2x1/coop (1314.6 us of the five tiles), the
    sigmoid 32768x256x2048 one with 256x256x64/1x2/coop (80.2 us, before 128x256x64/1x1 at
    82.5 us); the silu GEMM was timed with 2 of the 5 tiles only: no pick."""
    p = sweep_picks.load("h200")
    cut = p["cutlass-evt"]
    assert cut["qkv/32768x6144x2048"]["tile"] == "256x256x64/2x1/coop"
    assert cut["qkv/32768x6144x2048"]["us"] == 1314.6
    assert cut["alpha/32768x256x2048"]["tile"] == "256x256x64/1x2/coop"
    assert "gate/32768x2048x2048" not in cut
    # d2048: BT = 16*2048 = 32768, 3*H*dk = 3*16*128 = 6144, n*H = 256, K = d = 2048.
    assert sweep_picks.cutlass_tiles("qkv", 32768, 6144, 2048, "h200") == (["256x256x64/2x1/coop"], "picks")
    assert sweep_picks.cutlass_tiles("alpha", 32768, 256, 2048, "h200") == (["256x256x64/1x2/coop"], "picks")
    # The MVE shape was not swept: the default.
    assert sweep_picks.cutlass_tiles("alpha", 8192, 192, 768, "h200") == (["256x256x64/2x1/coop"], "default")


def test_knob_overrides_and_gpu_without_picks_falls_back():
    assert sweep_picks.cutlass_tiles("qkv", 32768, 6144, 2048, "h200", knob="128x256x64/1x1/coop") == \
        (["128x256x64/1x1/coop"], "knob")
    assert sweep_picks.cutlass_tiles("qkv", 32768, 6144, 2048, "h200", knob="a, b") == (["a", "b"], "knob")
    assert sweep_picks.cutlass_tiles("qkv", 32768, 6144, 2048, "h100") == (["256x256x64/2x1/coop"], "default")
    assert sweep_picks.cutlass_tiles("qkv", 32768, 6144, 2048, "") == (["256x256x64/2x1/coop"], "default")


def test_bad_picks_file_is_an_error_naming_it(tmp_path):
    (tmp_path / "h100.json").write_text("{not json")
    with pytest.raises(ValueError, match="h100.json"):
        sweep_picks.cutlass_tiles("qkv", 1, 2, 3, "h100", root=str(tmp_path))


def test_kernels_of_the_default_grid():
    """By hand: 4 GEMMs (plain qkv, sigmoid alpha, 2-output silu gate, residual out) at each
    shape, one tile each. An H100 (no picks): all at the default tile, the same kernels at both
    shapes: 4. An H200: alpha at d2048 picks 256x256x64/1x2/coop, the rest the default: 5.
    Before this, three candidate tiles per GEMM: 12."""
    assert len(sweep_picks.cutlass_kernels([MVE, D2048], "h100")) == 4
    k = sweep_picks.cutlass_kernels([MVE, D2048], "h200")
    assert len(k) == 5 and ("sigmoid", "256x256x64/1x2/coop") in k
    assert ("silu", "256x256x64/2x1/coop") in sweep_picks.cutlass_kernels([MVE], "h100", gate_mode="mul")
    assert len(sweep_picks.cutlass_kernels([MVE], "h100", knob="a,b")) == 8


def test_make_picks_reproduces_committed_file(tmp_path):
    sys.path.insert(0, os.path.join(KERNELS, "sweeps"))
    import make_picks
    cut, skipped = make_picks.picks(os.path.join(KERNELS, "sweeps", "results", "h200-2026-11-26"))
    assert cut == sweep_picks.load("h200")["cutlass-evt"]
    assert [k for k, _ in skipped] == ["gate/32768x2048x2048"]


def _db(path, keys):
    con = sqlite3.connect(path)
    con.execute("create table compiled_operations(op_key TEXT NOT NULL UNIQUE, cubin BLOB NOT NULL, "
                "hostbin BLOB NOT NULL, op_name TEXT NOT NULL, op_attrs TEXT NOT NULL)")
    for k in keys:
        con.execute("insert into compiled_operations values (?, x'00', x'00', ?, '')", (k, k))
    con.commit()
    con.close()


def test_warm_merge_keeps_rows_and_adds_new(tmp_path):
    sys.path.insert(0, os.path.join(KERNELS, "sweeps"))
    import cutlass_warm
    db, a, b = tmp_path / "run.db", tmp_path / "a.db", tmp_path / "b.db"
    _db(db, ["k1"])
    _db(a, ["k1", "k2"])  # a copy of run.db that compiled k2
    _db(b, ["k1", "k3"])
    cutlass_warm.merge(str(db), [str(a), str(b), str(tmp_path / "missing.db")])
    con = sqlite3.connect(db)
    assert sorted(r[0] for r in con.execute("select op_key from compiled_operations")) == ["k1", "k2", "k3"]
    con.close()
    assert cutlass_warm.entries(str(db)) == 3
    assert cutlass_warm.entries(str(tmp_path / "none.db")) == 0


def test_warm_without_cutlass_skips_cleanly(tmp_path):
    """Without cutlass_cppgen (this CPU machine) the warm stage says why and exits 0."""
    import importlib.util
    if importlib.util.find_spec("cutlass_cppgen") is not None:
        pytest.skip("cutlass_cppgen installed")
    out = subprocess.run([sys.executable, os.path.join(KERNELS, "sweeps", "cutlass_warm.py"), "--db",
                          str(tmp_path / "c.db"), "--shape", MVE, "--gpu", "h100"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    w = json.loads(out.stdout.strip().splitlines()[-1])["warm"]
    assert w["kernels"] == 0 and "cutlass_cppgen" in w["skipped"]
