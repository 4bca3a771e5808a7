"""Write kernels/sweeps/picks/<gpu>.json from a sweep's results folder: per cutlass-evt GEMM
and shape, the fastest tile the sweep timed (kernels/common/sweep_picks.py reads it).

    python3 kernels/sweeps/make_picks.py kernels/sweeps/results/h200-2026-11-26

Rows used: cutlass.<tile>.jsonl's timed rows at the raster the variant runs by default
(ROOFTOOL_CUTLASS_RASTER=1/heuristic). A GEMM and shape gets a pick only where the sweep
timed it with every tile it compiled: a GEMM timed with fewer (the run was stopped) keeps
the default tile rather than the best of a partial set. The GPU is gpus.csv's first name.
"""
from __future__ import annotations

import csv
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from common import sweep_picks  # noqa: E402

# gemm_alone's epilogue kind -> the variant's GEMM name.
KIND_GEMM = {"plain": "qkv", "sigmoid": "alpha", "silu": "gate", "silu-gate": "gate-mul", "residual": "out"}
RASTER = "1/heuristic"


def gpu_of(folder):
    with open(os.path.join(folder, "gpus.csv")) as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    if len(rows) < 2:
        raise ValueError(f"{folder}/gpus.csv: no GPU row")
    name = rows[1][rows[0].index("name")]
    key = sweep_picks.gpu_key(name)
    if not key:
        raise ValueError(f"{folder}/gpus.csv: GPU {name!r}: no model key")
    return key


def picks(folder):
    """(cutlass picks {gemm/MxNxK: {...}}, skipped [(key, why)])."""
    tiles, timed = set(), {}
    files = sorted(glob.glob(os.path.join(folder, "cutlass.*.jsonl")))
    for f in files:
        for i, line in enumerate(open(f), 1):
            try:
                d = json.loads(line)
            except ValueError as e:
                raise ValueError(f"{f}:{i}: not JSON: {e}") from e
            tiles.add(d["tile"])
            if "us" not in d or d.get("raster") != RASTER or d["kind"] not in KIND_GEMM:
                continue
            key = sweep_picks.gemm_key(KIND_GEMM[d["kind"]], d["M"], d["N"], d["K"])
            timed.setdefault(key, {})[d["tile"]] = d["us"]
    out, skipped = {}, []
    for key, by in sorted(timed.items()):
        if set(by) != tiles:
            skipped.append((key, f"timed with {len(by)} of the {len(tiles)} tiles"))
            continue
        t = min(by, key=lambda k: (by[k], k))
        out[key] = {"tile": t, "us": round(by[t], 1), "of": len(by)}
    return out, skipped


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    folder = sys.argv[1].rstrip("/")
    gpu = gpu_of(folder)
    cut, skipped = picks(folder)
    rel = os.path.relpath(os.path.abspath(folder), os.path.dirname(os.path.dirname(HERE)))
    data = {"gpu": gpu, "source": rel.replace(os.sep, "/"), "cutlass-evt": cut}
    os.makedirs(sweep_picks.PICKS_DIR, exist_ok=True)
    out = sweep_picks.picks_file(gpu)
    with open(out, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    for k, why in skipped:
        print(f"make_picks: {k}: no pick ({why})", file=sys.stderr)
    print(f"make_picks: {out}: {len(cut)} cutlass-evt picks")


if __name__ == "__main__":
    main()
