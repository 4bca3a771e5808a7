"""Markdown tables of a sweep's results folder (what device-sweep.sh brings back):

    python3 kernels/sweeps/summarize.py kernels/sweeps/results/h200-2026-11-26

Triton: per product, every config that built, fastest first: us, TFLOP/s, speed against
cuBLAS computing the same products (timed in the same process), and, for the configs ncu
measured (caches flushed before each kernel, free clocks), DRAM bytes, L2 hit rate and SM
cycles against cuBLAS's GEMMs for the same products. CUTLASS: per GEMM, each tile's best
raster/swizzle against cuBLAS on the same GEMM. No torch needed.
"""
from __future__ import annotations

import csv
import glob
import io
import json
import os
import sys
from collections import defaultdict


def num(s):
    return float(str(s).replace(",", ""))


def ncu_items(d, group):
    """item name -> ncu row (metrics) of the bytes stage, matched by launch order."""
    path = os.path.join(d, f"ncu.{group}.csv")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        lines = [l for l in f if not l.startswith("==")]
    rows = list(csv.DictReader(io.StringIO("".join(lines))))[1:]  # units row first
    with open(os.path.join(d, f"{group}.items.json")) as f:
        items = json.load(f)
    if len(items) != len(rows):
        raise SystemExit(f"{path}: {len(rows)} kernels for {len(items)} items")
    out = {}
    for it, r in zip(items, rows):
        out[it["item"]] = {"name": r["Kernel Name"], "dram": num(r["dram__bytes_read.sum"]) + num(r["dram__bytes_write.sum"]),
                           "l2hit": num(r["lts__t_sector_hit_rate.pct"]), "cycles": num(r["sm__cycles_elapsed.max"])}
    return out


def triton_tables(d, top):
    out = []
    for path in sorted(glob.glob(os.path.join(d, "*.time.json"))):
        with open(path) as f:
            doc = json.load(f)
        rows = doc["rows"]
        if not rows:
            continue
        group, prod = rows[0]["group"], rows[0]["product"]
        nc = ncu_items(d, group)
        cub = [v for k, v in nc.items() if k.startswith(prod + "|cublas")]
        cub_dram, cub_cyc = sum(v["dram"] for v in cub), sum(v["cycles"] for v in cub)
        r0 = rows[0]
        out.append(f"\n**{group} {prod}** ({r0['variant']}; {r0['M']}x{r0['N']}x{r0['K']}; cuBLAS for the same products "
                   f"{r0['cublas_us']:.1f} us" + (f", {cub_dram / 1e6:.0f} MB DRAM, {cub_cyc:.0f} cycles" if cub else "") + ")\n")
        out.append("| config | us | TFLOP/s | speed of cuBLAS (time) | DRAM MB (of cuBLAS) | L2 hit | speed of cuBLAS (cycles) |")
        out.append("|---|---|---|---|---|---|---|")
        ok = sorted((r for r in rows if "us" in r), key=lambda r: r["us"])
        for r in ok[:top]:
            m = nc.get(f"{prod}|{r['config']}")
            ncu = "| | |"
            if m and cub:
                ncu = f"| {m['dram'] / 1e6:.0f} ({m['dram'] / cub_dram:.2f}x) | {m['l2hit']:.1f}% | {cub_cyc / m['cycles']:.1%} |"
            out.append(f"| {r['config']} | {r['us']:.1f} | {r['tflops']:.0f} | {r['vs_cublas']:.1%} {ncu}")
        bad = [r for r in rows if "error" in r]
        if bad:
            out.append(f"\n{len(bad)} configs did not run: " + "; ".join(sorted({r['config'] + ': ' + r['error'].split(',')[0] for r in bad})))
    return out


def cutlass_tables(d):
    rows = []
    for path in sorted(glob.glob(os.path.join(d, "cutlass.*.jsonl"))):
        with open(path) as f:
            rows += [json.loads(l) for l in f if l.startswith("{")]
    timed = defaultdict(list)
    for r in rows:
        if "us" in r:
            timed[(r["shape"], r["kind"], r["M"], r["N"], r["K"])].append(r)
    out = ["\n| shape | GEMM (epilogue) | tile | best raster | us | cuBLAS us | speed of cuBLAS | with the heuristic raster |",
           "|---|---|---|---|---|---|---|---|"]
    for key in sorted(timed):
        shape, kind, M, N, K = key
        best = {}
        for r in timed[key]:
            if r["tile"] not in best or r["us"] < best[r["tile"]]["us"]:
                best[r["tile"]] = r
        for t, r in sorted(best.items(), key=lambda kv: kv[1]["us"]):
            h = [x for x in timed[key] if x["tile"] == t and x["raster"] == "1/heuristic"]
            out.append(f"| {shape} | {M}x{N}x{K} ({kind}) | {t} | {r['raster']} | {r['us']:.1f} | {r['cublas_us']:.1f} | "
                       f"{r['vs_cublas']:.1%} | {h[0]['vs_cublas']:.1%} |" if h else "| |")
    comp = [r for r in rows if "compile_s" in r]
    out.append(f"\nCompiled: {sum(1 for r in comp if 'error' not in r)} kernels, "
               f"{min(r['compile_s'] for r in comp):.0f}-{max(r['compile_s'] for r in comp):.0f} s of nvcc each; "
               f"failed: {[r['tile'] + ' ' + r['kind'] for r in comp if 'error' in r] or 'none'}.")
    return out


def main():
    d = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    print("\n".join(triton_tables(d, top) + cutlass_tables(d)))


if __name__ == "__main__":
    main()
