"""The JSON records match kernels/README.md and ingest's Go structs (ingest/timing.go)."""
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


def test_timing_record_matches_ingest():
    rec = records.timing_record("swiglu", "dual-acc", "M=512,N=4096,K=7168", "NVIDIA H200", False, 10, 3, 2,
                                {"sm_mhz": 1980, "mem_mhz": 3201}, [0.1, 0.11, 0.09], set_bytes=1)
    want = _go_json_fields("ingest/timing.go", "TimingFile")
    assert want <= set(rec), want - set(rec)
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
