"""vsbase.Tracker's bookkeeping (which baseline, markers, failed or skipped baselines, the
record it adds) without torch: tensors are stood in for where the comparison would run."""
import json

import pytest

from common import records, spec, vsbase


class _Cell:
    def __init__(self, exp, variant, shape="B=4,T=512,d=2048,dk=128,dv=128,H=16,n=16", seed=0):
        self.exp, self.variant, self.shape, self.seed = exp, exp.variant(variant), shape, seed


@pytest.fixture
def gla():
    return spec.load("gla_proj")


def test_baseline_outputs_kept_and_compared(tmp_path, gla, monkeypatch):
    t = vsbase.Tracker(str(tmp_path))
    base = _Cell(gla, "unfused")
    assert t.begin(base) is None  # the baseline itself: no comparison, marked in flight
    marker = tmp_path / "unfused" / (base.shape + vsbase.MARKER)
    assert marker.exists()
    kept = {}
    monkeypatch.setattr(t, "_keep", lambda cell, res, got: kept.update(res=res) or t.cache.__setitem__(
        (cell.exp.name, cell.variant.name, cell.shape, cell.seed), {"outputs": {"Q": "base-Q"}, "bytes": 1}))
    res = {"ok": True}
    t.finish(base, res, {"Q": "out-Q"}, None)
    assert not marker.exists() and "vs_baseline" not in res and "vs_baseline_error" not in res
    cand = _Cell(gla, "wide-gemm-epilogue")
    entry = t.begin(cand)
    assert entry == {"outputs": {"Q": "base-Q"}, "bytes": 1}
    seen = []
    monkeypatch.setattr(vsbase, "compare_outputs", lambda got, b: seen.append((got, b)) or
                        {"Q": {"rel_err": 2e-3, "max_abs_err": 0.01, "base_norm": 3.0}})
    res = {"ok": True}
    t.finish(cand, res, {"Q": "cand-Q"}, entry)
    assert seen == [({"Q": "cand-Q"}, {"Q": "base-Q"})]
    assert res["vs_baseline"]["baseline"] == "unfused" and res["vs_baseline"]["rel_err"] == 2e-3
    json.dumps(res, allow_nan=False)


def test_failed_baseline_gives_an_error(tmp_path, gla):
    t = vsbase.Tracker(str(tmp_path))
    base = _Cell(gla, "unfused")
    t.begin(base)
    rec = {"ok": False, "error": "output 'K': 12 NaN elements"}
    t.finish(base, rec, None, None)
    cand = _Cell(gla, "wide-gemm")
    res = {"ok": True}
    t.finish(cand, res, {"Q": 1}, t.begin(cand))
    assert "vs_baseline" not in res
    assert res["vs_baseline_error"].startswith("baseline unfused failed its check: output 'K'")


def test_baseline_from_an_earlier_runner(tmp_path, gla):
    """A re-launched runner: the baseline's check JSON says it failed, or its marker says the
    runner stopped in it; neither runs the baseline again."""
    cand = _Cell(gla, "wide-gemm-epilogue-fwdbwd")
    d = tmp_path / "unfused-fwdbwd"
    d.mkdir()
    (d / (cand.shape + ".check.json")).write_text(json.dumps({"ok": False, "skipped": True, "error": "requires x"}))
    e = vsbase.Tracker(str(tmp_path)).begin(cand)
    assert e == {"error": "baseline unfused-fwdbwd skipped: requires x"}
    (d / (cand.shape + vsbase.MARKER)).write_text("checking\n")
    e = vsbase.Tracker(str(tmp_path)).begin(cand)
    assert "did not finish its check" in e["error"]


def test_skipped_cells(tmp_path, gla):
    t = vsbase.Tracker(str(tmp_path))
    res = records.skipped_record({"ok": False}, "requires fla: not installed")
    t.skipped(_Cell(gla, "compiled"), res)
    assert res["vs_baseline_error"] == "compiled skipped"
    res = records.skipped_record({"ok": False}, "requires y")
    base = _Cell(gla, "unfused")
    t.skipped(base, res)
    assert "vs_baseline_error" not in res
    assert t.begin(_Cell(gla, "wide-gemm")) == {"error": "baseline unfused skipped: requires y"}


def test_comparison_errors_never_fail(tmp_path, gla, monkeypatch):
    t = vsbase.Tracker(str(tmp_path))
    cand = _Cell(gla, "wide-gemm")

    def boom(got, base):
        raise RuntimeError("CUDA out of memory.\nTried to allocate 2 GiB")
    monkeypatch.setattr(vsbase, "compare_outputs", boom)
    res = {"ok": True}
    t.finish(cand, res, {"Q": 1}, {"outputs": {"Q": 2}})
    assert res["vs_baseline_error"] == "RuntimeError: CUDA out of memory. Tried to allocate 2 GiB"
    res = {"ok": False, "error": "ValueError: bad"}
    t.finish(cand, res, None, {"outputs": {"Q": 2}})
    assert res["vs_baseline_error"] == "wide-gemm produced no outputs: ValueError: bad"
