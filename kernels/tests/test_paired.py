"""Paired timing's schedule, statistic and record (common/paired.py), without a GPU."""
import json
import math
import os
import re

import pytest

from common import paired, records
from conftest import REPO


def test_abba_order():
    # AB BA AB BA: each arm runs first in half of the pairs.
    seq = "".join("".join(a[0].upper() for a in paired.order(j)) for j in range(4))
    assert seq == "BCCBBCCB"


@pytest.mark.parametrize("one,want", [(2.4, 1), (1.0, 1), (0.3, 4), (0.035, 29), (1e-5, 200)])
def test_block_calls(one, want):
    # ceil(1.0 ms / one call), clamped to [1, 200]: 1/0.3 = 3.33 -> 4; 1/0.035 = 28.6 -> 29
    assert paired.block_calls(one) == want


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), None])
def test_block_calls_rejects(bad):
    with pytest.raises(ValueError):
        paired.block_calls(bad)


def test_median_order_interval_by_hand():
    # n = 10: P(Bin(10,1/2) <= 1) = (1 + 10)/1024 = 0.01074 -> coverage 1 - 2*0.01074 = 0.9785 >= 0.95;
    # P(<= 2) = 56/1024 = 0.0547 -> coverage 0.891 < 0.95: k = 2, interval (x_(2), x_(9)).
    assert paired.median_order_interval(10) == (2, 9)
    # n = 5: P(<= 0) = 1/32 -> coverage 0.9375 < 0.95: no interval.
    assert paired.median_order_interval(5) is None
    # n = 6: P(<= 0) = 1/64 -> coverage 0.96875: (x_(1), x_(6)).
    assert paired.median_order_interval(6) == (1, 6)


def test_summarize_by_hand():
    # ratios b/c: 1.0, 1.1, 1.2, ..., 1.9 (shuffled); logs sorted in the same order.
    ratios = [1.3, 1.0, 1.9, 1.1, 1.5, 1.2, 1.8, 1.4, 1.7, 1.6]
    pairs = [(r * 2.0, 2.0) for r in ratios]
    s = paired.summarize(pairs)
    assert s["n"] == 10
    # median of 10 logs: mean of the 5th and 6th (ln 1.4, ln 1.5) -> sqrt(1.4 * 1.5)
    assert s["speedup"] == pytest.approx(math.sqrt(1.4 * 1.5))
    assert s["lo"] == pytest.approx(1.1) and s["hi"] == pytest.approx(1.8)


def test_parse_pair():
    assert paired.parse_pair("eager/quack-epilogue/B=16,T=2048,d=2048") == ("eager", "quack-epilogue", "B=16,T=2048,d=2048")
    for bad in ("eager/quack", "eager//B=1", "eager/eager/B=1"):
        with pytest.raises(ValueError):
            paired.parse_pair(bad)


def _go_json_fields(struct):
    src = open(os.path.join(REPO, "ingest", "timing", "paired.go"), encoding="utf-8").read()
    m = re.search(r"type %s struct \{(.*?)\n\}" % struct, src, re.S)
    assert m, f"{struct} not in ingest/timing/paired.go"
    return set(re.findall(r'json:"([^",]+)', m.group(1)))


def test_record_matches_ingest():
    pr = [{"order": "BC", "baseline_ms": 2.0, "candidate_ms": 1.5, "baseline_sm_mhz": 1650.0, "candidate_sm_mhz": 1650.0},
          {"order": "CB", "baseline_ms": 2.1, "candidate_ms": 1.6, "baseline_sm_mhz": 1600.0, "candidate_sm_mhz": 1605.0}]
    ok = paired.launch_record("eager", pr, calls={"baseline": 1, "candidate": 1})
    bad = paired.launch_record("graph", error="RuntimeError: operation not permitted when stream is capturing")
    rec = paired.paired_record("gated_ssm", "B=16", "eager", "quack-epilogue", "NVIDIA H100", "GPU-1", 4, [ok, bad])
    text = json.dumps(rec, allow_nan=False)
    assert '"rooftool_paired"' in text[:4096]  # ingest sniffs the first 4 KiB
    assert _go_json_fields("PairedFile") <= set(rec)
    assert _go_json_fields("PairedLaunch") <= set(ok) | {"error"}
    assert _go_json_fields("PairedSample") <= set(pr[0])
    assert bad == {"launch": "graph", "error": "RuntimeError: operation not permitted when stream is capturing"}


@pytest.mark.parametrize("v", [0.0, -1.0, float("nan"), float("inf"), None])
def test_launch_record_rejects_bad_samples(v):
    with pytest.raises(ValueError):
        paired.launch_record("eager", [{"order": "BC", "baseline_ms": 1.0, "candidate_ms": v}])
    with pytest.raises(ValueError):
        paired.launch_record("cuda", [{"order": "BC", "baseline_ms": 1.0, "candidate_ms": 1.0}])


def test_launch_fields():
    # wall median 0.1625 ms against device 0.0958 ms: 1.70x > 1.5 -> the cell launches as a graph
    assert records.launch_fields([0.16, 0.1625, 0.17], [0.095, 0.0958, 0.096], False) == {"launch_method": "graph"}
    # 1.2x: eager
    assert records.launch_fields([0.12, 0.12, 0.12], [0.1, 0.1, 0.1], False) == {"launch_method": "eager"}
    assert records.launch_fields([0.1], [0.1], True) == {"launch_method": "graph"}
    assert records.launch_fields([0.2], None, False, "capture or replay failed: RuntimeError: x") == {
        "launch_method": "eager", "launch_error": "capture or replay failed: RuntimeError: x"}


class _FakeEvent:
    clock = [0.0]

    def __init__(self, enable_timing=True):
        self.t = None

    def record(self):
        self.t = _FakeEvent.clock[0]

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return end.t - self.t


def _fake_torch():
    import types
    cuda = types.SimpleNamespace(Event=_FakeEvent, synchronize=lambda: None, empty_cache=lambda: None)
    return types.SimpleNamespace(cuda=cuda)


def test_time_pairs_schedule(monkeypatch):
    """time_pairs with a fake clock: the baseline's call takes 2 ms, the candidate's 1 ms, the
    SM clock reads 1650 MHz: every scored pair is (2.0, 1.0) in ABBA order, the first pairs
    are discarded, blocks hold ceil(1 ms / call) calls."""
    import sys
    import types
    monkeypatch.setitem(sys.modules, "torch", _fake_torch())
    calls = []

    def call(arm, ms):
        def f():
            calls.append(arm)
            _FakeEvent.clock[0] += ms
        return f

    class Impl:
        graph_ok = True

    class Cell:
        def __init__(self, arm, ms):
            self.arm, self.ms, self.impl = arm, ms, Impl()
            self.variant = types.SimpleNamespace(graph=False)

    cells = {"baseline": Cell("b", 2.0), "candidate": Cell("c", 0.25)}
    runner = types.SimpleNamespace(
        l2_bytes=lambda: 1,
        _rotation_sets=lambda cell, impl, n: [(cell, None)],
        capture=lambda impl, sets: [types.SimpleNamespace(replay=call(s[0].arm, s[0].ms)) for s in sets],
        clocks=lambda: {"sm_mhz": 1650.0})
    monkeypatch.setattr(paired, "_arm_fns",
                        lambda r, cell, launch: ([call(cell.arm, cell.ms)], None))
    pairs, blk = paired.time_pairs(runner, cells, "eager", n_pairs=10, discard=2, warmup_s=0)
    assert blk == {"baseline": 1, "candidate": 4}  # ceil(1/2) = 1, ceil(1/0.25) = 4
    assert len(pairs) == 10
    assert [p["order"] for p in pairs[:4]] == ["BC", "CB", "BC", "CB"]  # pairs 2..5 of 0..11
    for p in pairs:
        assert p["baseline_ms"] == pytest.approx(2.0) and p["candidate_ms"] == pytest.approx(0.25)
        assert p["baseline_sm_mhz"] == 1650.0 == p["candidate_sm_mhz"]
    s = paired.summarize([(p["baseline_ms"], p["candidate_ms"]) for p in pairs])
    assert s["speedup"] == pytest.approx(8.0) and s["lo"] == pytest.approx(8.0) and s["hi"] == pytest.approx(8.0)
