"""Paired, interleaved timing of a claim's baseline and candidate (kernels/README.md,
"pair"; METHOD.md, "Paired timing").

Both arms run in one process, alternating in blocks: pair j runs baseline then candidate
when j is even and candidate then baseline when j is odd (ABBA counterbalancing, so that
neither arm always runs first). A block is `calls` calls of one arm bracketed by one pair
of CUDA events, synchronised, then the SM clock is read (NVML, by the device's UUID): the
block's sample is its event time / calls and its clock the reading at its end. The first
`discard` pairs are thrown away; warm-up alternates both arms first.

Each launch method is timed on its own: "eager" (the variants' own calls, as the timing
pass's wall loop) and "graph" (one CUDA graph per buffer set, each capturing one call,
replayed). A graph that cannot be captured gives an error instead of pairs.

The statistic (computed again by the report from the raw pairs, analysis.PairedSpeedup):
per pair r = ln(baseline / candidate); the speedup is exp(median r) with a
distribution-free 95% interval from order statistics of r. The functions above the torch
part need no GPU (kernels/tests/test_paired.py)."""
from __future__ import annotations

import math

PAIRED_VERSION = 1
LAUNCHES = ("eager", "graph")
DEFAULT_PAIRS = 60      # scored pairs, fixed in advance
DEFAULT_DISCARD = 4     # first pairs thrown away
BLOCK_TARGET_MS = 1.0   # a block lasts about this long (calls = ceil(target / one call))
MAX_BLOCK_CALLS = 200


def order(j):
    """The arms of pair j in the order they run: ("baseline", "candidate") for even j,
    reversed for odd j (ABBA: AB BA AB BA ...)."""
    return ("baseline", "candidate") if j % 2 == 0 else ("candidate", "baseline")


def block_calls(one_call_ms, target_ms=BLOCK_TARGET_MS, cap=MAX_BLOCK_CALLS):
    """Calls per block so that a block lasts about target_ms: ceil(target / one call),
    at least 1, at most cap."""
    if not (isinstance(one_call_ms, (int, float)) and math.isfinite(one_call_ms) and one_call_ms > 0):
        raise ValueError(f"one call's time {one_call_ms!r}: want a positive number of ms")
    return max(1, min(cap, math.ceil(target_ms / one_call_ms)))


def _binom_cdf(k, n):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(0, min(k, n) + 1)) / 2 ** n


def median_order_interval(n, confidence=0.95):
    """1-based order statistics (lo, hi) of a distribution-free interval for the median
    of n values: the largest k with 1 - 2 P(Bin(n, 1/2) <= k - 1) >= confidence gives
    (k, n + 1 - k). None where n is too small for any such k."""
    best = None
    for k in range(1, n // 2 + 1):
        if 1 - 2 * _binom_cdf(k - 1, n) >= confidence:
            best = k
        else:
            break
    return None if best is None else (best, n + 1 - best)


def summarize(pairs, confidence=0.95):
    """{"n", "speedup", "lo", "hi"} of pairs [(baseline_ms, candidate_ms)]: exp of the median
    of ln(b / c) and of its order-statistic interval (lo/hi None when n is too small)."""
    r = sorted(math.log(b / c) for b, c in pairs)
    n = len(r)
    if n == 0:
        return {"n": 0, "speedup": None, "lo": None, "hi": None}
    med = r[n // 2] if n % 2 else (r[n // 2 - 1] + r[n // 2]) / 2
    iv = median_order_interval(n, confidence)
    lo, hi = (math.exp(r[iv[0] - 1]), math.exp(r[iv[1] - 1])) if iv else (None, None)
    return {"n": n, "speedup": math.exp(med), "lo": lo, "hi": hi}


def _ok_ms(v):
    return isinstance(v, float) and math.isfinite(v) and v > 0


def launch_record(launch, pairs=None, error="", calls=None):
    """One entry of the record's "launches": {"launch", "calls": {"baseline": n,
    "candidate": n}, "pairs": [{"order": "BC"|"CB", "baseline_ms", "candidate_ms",
    "baseline_sm_mhz", "candidate_sm_mhz"}]} or {"launch", "error"} where it could not
    be timed. Raises ValueError on a sample that is not a positive finite time."""
    if launch not in LAUNCHES:
        raise ValueError(f"launch {launch!r}, want one of {LAUNCHES}")
    if error:
        from .records import one_line
        return {"launch": launch, "error": one_line(error)}
    for j, p in enumerate(pairs or []):
        for k in ("baseline_ms", "candidate_ms"):
            if not _ok_ms(p.get(k)):
                raise ValueError(f"{launch} pair {j}: {k} is {p.get(k)!r}, want a positive time in ms")
    if not pairs:
        raise ValueError(f"{launch}: no pairs")
    return {"launch": launch, "calls": dict(calls or {}), "pairs": list(pairs)}


def paired_record(exp, shape, baseline, candidate, device, gpu_uuid, discard, launches, **extra):
    """The pair mode's JSON (ingest/timing/paired.go PairedFile)."""
    rec = {"rooftool_paired": PAIRED_VERSION, "experiment": exp, "shape": shape, "baseline": baseline,
           "candidate": candidate, "device": device, "gpu_uuid": gpu_uuid, "discarded_pairs": int(discard),
           "launches": list(launches)}
    rec.update(extra)
    return rec


def file_name(baseline, candidate, shape):
    """The record's file name under raw/timing/<experiment>/paired/."""
    return f"{baseline}~{candidate}~{shape}.json"


def parse_pair(arg):
    """--pair BASELINE/CANDIDATE/SHAPE -> (baseline, candidate, shape)."""
    parts = arg.split("/", 2)
    if len(parts) != 3 or not all(parts):
        raise ValueError(f"--pair {arg!r}: want BASELINE/CANDIDATE/SHAPE")
    if parts[0] == parts[1]:
        raise ValueError(f"--pair {arg!r}: baseline and candidate are the same variant")
    return tuple(parts)


# ------------------------------------------------------------------ torch part

def _arm_fns(runner, cell, launch):
    """The call of one arm, rotated over buffer sets (more than 3x L2 in all)."""
    impl = cell.impl or cell.make_impl()
    sets = runner._rotation_sets(cell, impl, 3 * runner.l2_bytes())
    if launch == "graph" or cell.variant.graph:  # a graph variant's own call is its replay
        if not getattr(impl, "graph_ok", True):
            raise RuntimeError("the variant cannot be captured in a CUDA graph (graph_ok = False)")
        graphs = runner.capture(impl, sets)
        return [g.replay for g in graphs], (sets, graphs)
    return [(lambda st=st, out=out: impl.run(st, out)) for st, out in sets], (sets, None)


def _block(torch, fns, start, calls):
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for i in range(calls):
        fns[(start + i) % len(fns)]()
    e1.record()
    e1.synchronize()
    return e0.elapsed_time(e1) / calls


def time_pairs(runner, cells, launch, n_pairs=DEFAULT_PAIRS, discard=DEFAULT_DISCARD, warmup_s=0.3):
    """Pairs of one launch method for cells {"baseline": Cell, "candidate": Cell}."""
    import time

    import torch

    fns, keep = {}, {}
    for arm, cell in cells.items():
        fns[arm], keep[arm] = _arm_fns(runner, cell, launch)
    # Warm-up alternating both arms (compiles, autotunes, clocks leave idle).
    t0 = time.perf_counter()
    i = 0
    while time.perf_counter() - t0 < warmup_s or i < 6:
        for arm in order(i):
            fns[arm][i % len(fns[arm])]()
        i += 1
        torch.cuda.synchronize()
    est = {arm: min(_block(torch, fns[arm], 0, 1) for _ in range(3)) for arm in fns}
    calls = {arm: block_calls(est[arm]) for arm in fns}
    clocks = runner.clocks
    pairs = []
    pos = {arm: 0 for arm in fns}
    for j in range(discard + n_pairs):
        o = order(j)
        p = {"order": "BC" if o[0] == "baseline" else "CB"}
        for arm in o:
            p[arm + "_ms"] = _block(torch, fns[arm], pos[arm], calls[arm])
            pos[arm] += calls[arm]
            mhz = (clocks() or {}).get("sm_mhz")
            if mhz:
                p[arm + "_sm_mhz"] = float(mhz)
        if j >= discard:
            pairs.append(p)
    del fns, keep
    torch.cuda.empty_cache()
    return pairs, calls


def run_pair(runner, exp, shape, baseline, candidate, seed, n_pairs=DEFAULT_PAIRS, discard=DEFAULT_DISCARD):
    """The paired record of one claim's baseline and candidate at one shape: both launch
    methods, each pair's blocks and clocks. A launch that fails gives its error."""
    import torch

    cells = {}
    for arm, name in (("baseline", baseline), ("candidate", candidate)):
        v = exp.variant(name)
        if v is None:
            raise ValueError(f"{exp.name}: no variant {name!r} in spec.yaml")
        miss = runner.requires_missing(v.requires)
        if miss:
            raise RuntimeError(f"{name}: {miss}")
        cells[arm] = runner.Cell(exp, v, shape, seed)
    launches = []
    for launch in LAUNCHES:
        try:
            pairs, calls = time_pairs(runner, cells, launch, n_pairs, discard)
            launches.append(launch_record(launch, pairs, calls=calls))
        except Exception as e:  # noqa: BLE001 - one launch method failing keeps the other
            try:
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001
                pass
            launches.append(launch_record(launch, error=f"{type(e).__name__}: {e}"))
    return paired_record(exp.name, shape, baseline, candidate, torch.cuda.get_device_name(), runner.gpu().uuid,
                         discard, launches)
