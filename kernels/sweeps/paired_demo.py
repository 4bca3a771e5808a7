"""The d=2048 latency claim timed both ways on one GPU: separate device-time loops (as the
timing pass times each cell: its own loop of CUDA-graph replays, clocks read per block of
10) in both orders, then paired and interleaved (common/paired.py, graph launch). Writes
DIR/paired_demo.md (a table) and DIR/paired_demo.json.

    python3 kernels/sweeps/paired_demo.py --out DIR [--experiment gated_ssm]
        [--baseline eager] [--candidate quack-epilogue] [--shape B=16,T=2048,...] [--reps 100]

Exit 0 done, 1 no GPU or a failure, 2 bad usage."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from common import paired  # noqa: E402  (no torch)


def separate_loop(runner, records, cell, reps):
    """One cell's device-time loop as the timing pass runs it: graph replays over rotated
    buffer sets, warm-up, reps event-timed replays, clocks per block."""
    impl = cell.impl or cell.make_impl()
    sets = runner._rotation_sets(cell, impl, 3 * runner.l2_bytes())
    fns = [g.replay for g in runner.capture(impl, sets)]
    runner.warm_up(fns, 10)
    ms, clk = runner._timed_reps(fns, reps, records.clock_sample_reps(reps))
    mhz = [c["sm_mhz"] for c in clk if c.get("sm_mhz")]
    return statistics.median(ms), (statistics.median(mhz) if mhz else None), (min(mhz), max(mhz)) if mhz else None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="paired_demo.py")
    ap.add_argument("--out", required=True)
    ap.add_argument("--experiment", default="gated_ssm")
    ap.add_argument("--baseline", default="eager")
    ap.add_argument("--candidate", default="quack-epilogue")
    ap.add_argument("--shape", default="B=16,T=2048,d=2048,H=16,dk=128,n=16")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--pairs", type=int, default=paired.DEFAULT_PAIRS)
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    import torch
    if not torch.cuda.is_available():
        print("paired_demo.py: no CUDA device: nothing measured", file=sys.stderr)
        return 1
    from common import records, runner
    from common import spec as specmod
    torch.backends.cuda.matmul.allow_tf32 = False
    e = specmod.load(a.experiment)
    cells = {}
    for arm, name in (("baseline", a.baseline), ("candidate", a.candidate)):
        v = e.variant(name)
        if v is None:
            print(f"paired_demo.py: {a.experiment} has no variant {name!r}", file=sys.stderr)
            return 2
        miss = runner.requires_missing(v.requires)
        if miss:
            print(f"paired_demo.py: {name}: {miss}", file=sys.stderr)
            return 1
        cells[arm] = runner.Cell(e, v, a.shape, 0)
    rows = []
    for order in (("baseline", "candidate"), ("candidate", "baseline")):
        got = {arm: separate_loop(runner, records, cells[arm], a.reps) for arm in order}
        b, c = got["baseline"], got["candidate"]
        rows.append({"method": "separate loops, " + " then ".join(order), "speedup": b[0] / c[0], "lo": None, "hi": None,
                     "baseline_us": 1e3 * b[0], "candidate_us": 1e3 * c[0], "baseline_mhz": b[1], "candidate_mhz": c[1],
                     "clock_ranges": {"baseline": b[2], "candidate": c[2]}})
    for rep in range(2):
        ps, calls = paired.time_pairs(runner, cells, "graph", n_pairs=a.pairs)
        sm = paired.summarize([(p["baseline_ms"], p["candidate_ms"]) for p in ps])
        gaps = [abs(p["baseline_sm_mhz"] / p["candidate_sm_mhz"] - 1) for p in ps if p.get("baseline_sm_mhz") and p.get("candidate_sm_mhz")]
        mhz = [p[k] for p in ps for k in ("baseline_sm_mhz", "candidate_sm_mhz") if p.get(k)]
        rows.append({"method": f"paired ABBA, graph launch (repeat {rep + 1})", "speedup": sm["speedup"], "lo": sm["lo"], "hi": sm["hi"],
                     "baseline_us": 1e3 * statistics.median(p["baseline_ms"] for p in ps),
                     "candidate_us": 1e3 * statistics.median(p["candidate_ms"] for p in ps),
                     "baseline_mhz": statistics.median(p["baseline_sm_mhz"] for p in ps if p.get("baseline_sm_mhz")) if mhz else None,
                     "candidate_mhz": statistics.median(p["candidate_sm_mhz"] for p in ps if p.get("candidate_sm_mhz")) if mhz else None,
                     "pairs": sm["n"], "calls_per_block": calls, "max_pair_clock_gap": max(gaps) if gaps else None,
                     "pairs_clock_gap_over_5pct": sum(g > 0.05 for g in gaps), "raw_pairs": ps})
    os.makedirs(a.out, exist_ok=True)
    dev = torch.cuda.get_device_name()
    with open(os.path.join(a.out, "paired_demo.json"), "w") as f:
        json.dump({"device": dev, "experiment": a.experiment, "shape": a.shape, "baseline": a.baseline,
                   "candidate": a.candidate, "rows": rows}, f, indent=1)
    fmt = lambda v, p="{:.3f}": "—" if v is None else p.format(v)  # noqa: E731
    lines = [f"{a.experiment} gpu_speedup {a.candidate} over {a.baseline} at {a.shape} on {dev}", "",
             "| method | speedup | 95% interval | baseline us | candidate us | baseline MHz | candidate MHz | pairs with clocks >5% apart |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        iv = f"[{fmt(r['lo'])}, {fmt(r['hi'])}]" if r["lo"] is not None else "—"
        lines.append(f"| {r['method']} | {fmt(r['speedup'])}x | {iv} | {fmt(r['baseline_us'], '{:.1f}')} | {fmt(r['candidate_us'], '{:.1f}')} | "
                     f"{fmt(r['baseline_mhz'], '{:.0f}')} | {fmt(r['candidate_mhz'], '{:.0f}')} | {r.get('pairs_clock_gap_over_5pct', '—')} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "paired_demo.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
