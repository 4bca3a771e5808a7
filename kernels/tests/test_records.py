"""The JSON records match kernels/README.md and ingest's Go structs (ingest/timing/timing.go)."""
import json
import math
import os
import re

import pytest

from common import records
from conftest import REPO


def _go_json_fields(path, struct):
    src = open(os.path.join(REPO, path), encoding="utf-8").read()
    m = re.search(r"type %s struct \{(.*?)\n\}" % struct, src, re.S)
    assert m, f"{struct} not in {path}"
    return set(re.findall(r'json:"([^",]+)', m.group(1)))


CODE = records.code_record({"ROOFTOOL_MM_IMPL": "auto"}, {"('mm', 512)": "tma-store"}, "plan")


def _timing(device_ms=(0.09, 0.1, 0.08), error=""):
    clk = {"sm_mhz": 1980, "mem_mhz": 3201}
    dev = records.device_fields(list(device_ms) if device_ms else None, 3, error,
                                clock_samples=[records.clock_sample(r, {"sm_mhz": 1755}) for r in records.clock_sample_reps(3)])
    dev.update(records.launch_fields([0.1, 0.11, 0.09], dev["device_ms"], False, dev.get("device_error", "")))
    return records.timing_record("swiglu", "dual-acc", "M=512,N=4096,K=7168", "NVIDIA H200", False, 10, 3, 2,
                                 clk, [0.1, 0.11, 0.09], set_bytes=1,
                                 clock_samples=[records.clock_sample(r, clk) for r in records.clock_sample_reps(3)],
                                 gpu_uuid="GPU-bbbbbbbb-1111-1111-1111-111111111111",
                                 **dev, code=CODE)


def test_timing_record_matches_ingest():
    rec = _timing()
    want = _go_json_fields("ingest/timing/timing.go", "File")
    # device_error, launch_error: only where device_ms is null
    assert want - {"device_error", "launch_error"} <= set(rec), want - set(rec)
    bad = _timing(None, "capture failed: RuntimeError: operation not permitted when stream is capturing")
    assert want - {"device_clock_samples"} <= set(bad), want - set(bad)  # device loop clocks: only with its samples
    assert rec["launch_method"] == "eager" and bad["launch_error"] == bad["device_error"]
    assert "device_clock_samples" not in bad
    assert bad["device_ms"] is None and bad["device_method"] is None and bad["device_error"].startswith("capture")
    assert rec["device_ms"] == [0.09, 0.1, 0.08] and "device_error" not in rec
    assert rec["clock_samples"] == [{"rep": 0, "sm_mhz": 1980.0, "mem_mhz": 3201.0},
                                    {"rep": 3, "sm_mhz": 1980.0, "mem_mhz": 3201.0}]
    assert rec["device_clock_samples"] == [{"rep": 0, "sm_mhz": 1755.0}, {"rep": 3, "sm_mhz": 1755.0}]
    assert rec["gpu_uuid"] == "GPU-bbbbbbbb-1111-1111-1111-111111111111"
    assert rec["code"] == CODE
    json.dumps(bad, allow_nan=False)
    assert rec["rooftool_timing"] == 1 and rec["method"] == "cuda-events"
    assert rec["clocks"] == {"sm_mhz": 1980.0, "mem_mhz": 3201.0}
    text = json.dumps(rec, allow_nan=False)
    head = text[:4096]
    assert '"samples_ms"' in head or '"rooftool_timing"' in head  # ingest sniffs the first 4 KiB
    g = records.timing_record("swiglu", "unfused-graph", "M=512,N=4096,K=7168", "d", True, 1, 1, 1, {}, [0.5])
    assert g["method"] == "cuda-graph"


@pytest.mark.parametrize("samples", [[0.1, float("nan")], [0.1, 0.0], [0.1, -1.0], [0.1]])
def test_timing_record_rejects_bad_samples(samples):
    with pytest.raises(ValueError):
        records.timing_record("e", "v", "s", "d", False, 1, 2, 1, {}, samples)


def test_check_and_profile_records():
    c = records.check_record("swiglu", "dual-acc", "M=512,N=4096,K=7168", 0.02)
    for k in ("experiment", "variant", "shape", "ok", "max_abs_err", "max_rel_err", "tolerance", "error"):
        assert k in c
    assert c["ok"] is False
    s = records.skipped_record(c, "requires cutlass: not installed")
    assert s["skipped"] is True and s["ok"] is False and s["error"].startswith("requires cutlass")
    json.dumps(s, allow_nan=False)
    p = records.profile_record("swiglu", "dual-acc", "M=512,N=4096,K=7168", False)
    assert p["ok"] is True and p["error"] == "" and p["nvtx"] == "swiglu/dual-acc/M=512,N=4096,K=7168"
    f = records.profile_record("swiglu", "x", "s", True, ok=False, error="check failed: NaN", skipped=False)
    assert f["ok"] is False and "skipped" not in f


def test_finite():
    assert records._finite(1.5) == 1.5
    assert records._finite(float("inf")) is None
    assert records._finite(math.nan) is None
    assert records._finite(True) is None


def test_device_fields_never_fail():
    ok = records.device_fields([0.5, 0.25], 2)
    assert ok == {"device_method": "cuda-graph", "device_ms": [0.5, 0.25]}
    for ms in ([0.5], [0.5, 0.0], [0.5, float("nan")], [0.5, -1.0]):  # wrong count or a bad sample: null + reason
        r = records.device_fields(ms, 2)
        assert r["device_ms"] is None and r["device_error"], r
    r = records.device_fields(None, 2, "graph_ok = False\nsecond line " + "x" * 1000)
    assert r["device_ms"] is None and "\n" not in r["device_error"] and len(r["device_error"]) <= 300


def test_clock_sample_reps():
    assert records.clock_sample_reps(50) == [0, 10, 20, 30, 40, 50]
    assert records.clock_sample_reps(35) == [0, 10, 20, 30, 35]
    assert records.clock_sample_reps(30) == [0, 10, 20, 30]
    assert records.clock_sample(10, {}) == {"rep": 10}  # no NVML: the rep alone


def test_code_record():
    c = records.code_record({"ROOFTOOL_FP8_MAXACC": "", "ROOFTOOL_EPI_BRANCH": 1}, {"b": "x", "a": 2}, "triton-dispatch")
    assert c == {"knobs": {"ROOFTOOL_FP8_MAXACC": "", "ROOFTOOL_EPI_BRANCH": "1"}, "picks": {"a": "2", "b": "x"},
                 "launch": "triton-dispatch"}
    assert list(c["picks"]) == ["a", "b"]
    with pytest.raises(ValueError):
        records.code_record({}, {}, "jit")
    # ingest/rundir.Code reads knobs and picks as string maps, launch as a string
    fields = _go_json_fields("ingest/rundir/manifest.go", "Code")
    assert fields <= set(c), fields - set(c)


def test_vs_baseline_record():
    per = {"C": {"rel_err": 1e-3, "max_abs_err": 0.1, "base_norm": 10.0},
           "D": {"rel_err": 4e-3, "max_abs_err": 0.2, "base_norm": 5.0}}
    r = records.vs_baseline_record("unfused", per)
    assert r["baseline"] == "unfused" and r["rel_err"] == 4e-3 and r["outputs"] is per
    assert set(_go_json_fields("pipeline/checks.go", "VsBaseline")) <= set(r)
    r = records.vs_baseline_record("unfused", {"C": {"nan": 3}, "D": per["D"]})
    assert r["rel_err"] is None
    assert records.vs_baseline_record("unfused", {})["rel_err"] == 0.0


def _fake_torch(matmul, cudnn):
    from types import SimpleNamespace as NS
    return NS(backends=NS(cuda=NS(matmul=NS(allow_tf32=matmul)), cudnn=NS(allow_tf32=cudnn)))


def test_disable_tf32():
    # torch's own defaults: matmul off since 1.12, cuDNN on; both on here, as a user may set
    t = _fake_torch(True, True)
    got = records.disable_tf32(t)
    assert t.backends.cuda.matmul.allow_tf32 is False and t.backends.cudnn.allow_tf32 is False
    assert got == {"torch.backends.cuda.matmul.allow_tf32": "False", "torch.backends.cudnn.allow_tf32": "False"}
    # recorded beside the knobs: code_record keeps them as strings
    c = records.code_record({"ROOFTOOL_MM_IMPL": "auto", **got}, {}, "plan")
    assert c["knobs"]["torch.backends.cudnn.allow_tf32"] == "False"
    assert records.tf32_flags(_fake_torch(False, True))["torch.backends.cudnn.allow_tf32"] == "True"
