"""common/marks.py, the helper a program of the user's marks its cells with (rooftool profile
--cmd). Runs without torch or a GPU: NVTX goes through use_nvtx, and time mode times by the
host clock where torch sees no CUDA device (the record says so)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from common import marks
from conftest import KERNELS


@pytest.fixture
def env(monkeypatch, tmp_path):
    for k in (marks.ENV_MODE, marks.ENV_OUT, marks.ENV_CELLS, marks.ENV_REPS, marks.ENV_WARMUP):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv(marks.ENV_OUT, str(tmp_path))
    calls = []
    marks.use_nvtx(lambda n: calls.append(("push", n)), lambda: calls.append(("pop",)))
    yield tmp_path, calls
    marks._nvtx = None


def _cuda():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def test_plain_run_marks_the_range_once(env):
    _, calls = env
    n = sum(1 for _ in marks.mark("toy", "fused", "M=64,N=32"))
    assert n == 1
    assert calls == [("push", "toy"), ("push", "fused"), ("push", "M=64,N=32"), ("pop",), ("pop",), ("pop",)]


def test_list_appends_each_cell(env, monkeypatch):
    out, calls = env
    monkeypatch.setenv(marks.ENV_MODE, "list")
    bodies = []
    for v in ("unfused", "fused"):
        for _ in marks.mark("toy", v, "M=64"):
            bodies.append(v)
    assert bodies == ["unfused", "fused"] and calls == []
    lines = [json.loads(l) for l in open(out / marks.MARKS_FILE)]
    assert lines == [{"experiment": "toy", "variant": "unfused", "shape": "M=64"},
                     {"experiment": "toy", "variant": "fused", "shape": "M=64"}]


def test_list_records_the_dtype(env, monkeypatch):
    out, _ = env
    monkeypatch.setenv(marks.ENV_MODE, "list")
    for _ in marks.mark("toy", "fused", "M=64", dtype="bf16"):
        pass
    marks.measure("toy", "unfused", "M=64", lambda: None, dtype="bf16")
    lines = [json.loads(l) for l in open(out / marks.MARKS_FILE)]
    assert [l["dtype"] for l in lines] == ["bf16", "bf16"]


def test_list_records_a_malformed_name(env, monkeypatch):
    out, _ = env
    monkeypatch.setenv(marks.ENV_MODE, "list")
    with pytest.raises(ValueError, match="toy/my variant/M=1/"):
        for _ in marks.mark("toy", "my variant", "M=1"):
            pass
    (line,) = [json.loads(l) for l in open(out / marks.MARKS_FILE)]
    assert line["range"] == "toy/my variant/M=1/" and "white space" in line["error"]


def test_time_writes_the_timing_record(env, monkeypatch):
    out, calls = env
    monkeypatch.setenv(marks.ENV_MODE, "time")
    monkeypatch.setenv(marks.ENV_REPS, "30")
    monkeypatch.setenv(marks.ENV_WARMUP, "3")
    monkeypatch.setattr(marks, "MIN_WARMUP_S", 0.0)
    n = sum(1 for _ in marks.mark("toy", "fused", "M=64,N=32"))
    rec = json.load(open(out / "toy" / "fused" / "M=64,N=32.json"))
    assert calls == []  # no range in the timing pass
    assert n == 3 + 30 and rec["warmup"] == 3 and rec["reps"] == 30 and len(rec["samples_ms"]) == 30
    assert (rec["experiment"], rec["variant"], rec["shape"], rec["rooftool_timing"]) == ("toy", "fused", "M=64,N=32", 1)
    assert rec["device_ms"] is None and rec["device_error"]
    if not _cuda():
        assert rec["method"] == "host" and rec["method_reason"] in rec["device_error"]


def test_profile_ranges_one_call_after_warmup(env, monkeypatch):
    out, calls = env
    monkeypatch.setenv(marks.ENV_MODE, "profile")
    monkeypatch.setenv(marks.ENV_WARMUP, "2")
    monkeypatch.setattr(marks, "MIN_WARMUP_S", 0.0)
    seen = []
    for i in marks.mark("toy", "fused", "M=64"):
        seen.append((i, len(calls)))  # ranges pushed when the body ran
    assert seen == [(0, 0), (1, 0), (2, 3)]
    assert calls[:3] == [("push", "toy"), ("push", "fused"), ("push", "M=64")] and len(calls) == 6
    rec = json.load(open(out / "toy" / "fused" / "M=64.profile.json"))
    assert rec["ok"] is True and rec["nvtx"] == "toy/fused/M=64"


def test_cells_not_selected_run_once_unmarked(env, monkeypatch):
    out, calls = env
    monkeypatch.setenv(marks.ENV_MODE, "profile")
    monkeypatch.setenv(marks.ENV_CELLS, "toy/fused/M=64\ntoy/fused/M=128")
    assert marks.measure("toy", "unfused", "M=64", lambda: 7) == 7
    assert calls == [] and not (out / "toy").exists()


def test_bad_settings_are_named(env, monkeypatch):
    monkeypatch.setenv(marks.ENV_MODE, "time")
    monkeypatch.setenv(marks.ENV_REPS, "many")
    with pytest.raises(ValueError, match="ROOFTOOL_MARKS_REPS='many'"):
        marks.measure("toy", "fused", "M=64", lambda: None)
    monkeypatch.setenv(marks.ENV_MODE, "bogus")
    with pytest.raises(ValueError, match="ROOFTOOL_MARKS_MODE='bogus'"):
        marks.measure("toy", "fused", "M=64", lambda: None)


def test_importable_as_rooftool_marks(tmp_path):
    """The package rooftool writes for a --cmd run: marks.py as __init__.py, records.py and
    gpuid.py beside (launch/cmdprog/target.go)."""
    pkg = tmp_path / "rooftool_marks"
    pkg.mkdir()
    shutil.copy(os.path.join(KERNELS, "common", "marks.py"), pkg / "__init__.py")
    shutil.copy(os.path.join(KERNELS, "common", "records.py"), pkg / "records.py")
    shutil.copy(os.path.join(KERNELS, "common", "gpuid.py"), pkg / "gpuid.py")
    code = "import rooftool_marks as m; print(m.measure('toy', 'fused', 'M=1', lambda: 'ran'))"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROOFTOOL_MARKS_")}
    out = subprocess.run([sys.executable, "-c", code], env=dict(env, PYTHONPATH=str(tmp_path)),
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ran"
