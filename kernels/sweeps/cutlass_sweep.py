"""Sweep of gated_ssm cutlass-evt's EVT GEMMs: one process per tile (threadblock tile,
cluster, schedule: each a ~60 s nvcc compile per epilogue), every tile scheduler raster
order and swizzle size (run-time arguments, no compile) at both default gated_ssm shapes,
against cuBLAS on the same GEMM in the same process.

    python3 kernels/sweeps/cutlass_sweep.py --tile 256x256x64/2x1/coop --out DIR --lock FILE

Kernels compile outside the GPU lock (several tile processes share a GPU); checks and
timing hold it. Writes DIR/cutlass.<tile>.json; also tries the 2-output gate EVT forms.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402

from gemm_sweep import Lock, cublas_ms, warm  # noqa: E402

BF = torch.bfloat16
SHAPES = {"d2048": (32768, 2048, 2048, 256), "mve": (8192, 768, 768, 192)}
RASTERS = ["1/heuristic", "1/m", "1/n", "2/m", "2/n", "4/m", "4/n", "8/m", "8/n"]


def mod():
    import importlib.util
    path = os.path.join(os.path.dirname(HERE), "gated_ssm", "cutlass_evt.py")
    s = importlib.util.spec_from_file_location("cutlass_evt_sweep", path)
    m = importlib.util.module_from_spec(s)
    s.loader.exec_module(m)
    return m


def gemms(shape):
    M, d, HD, nH = SHAPES[shape]
    return [("plain", M, 3 * HD, d), ("sigmoid", M, nH, d), ("silu", M, HD, d), ("residual", M, d, HD)]


def events_ms(fns, reps=30):
    for f in fns:
        f()
    torch.cuda.synchronize()
    ts = []
    for i in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fns[i % len(fns)]()
        b.record()
        ts.append((a, b))
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--lock", default="")
    a = ap.parse_args()
    m = mod()
    rows = []
    plans = {}
    for kind in ("plain", "sigmoid", "silu", "residual"):
        t0 = time.time()
        try:
            _, M, N, K = gemms("mve")[[g[0] for g in gemms("mve")].index(kind)]
            p, run = m.gemm_alone(BF, M, N, K, kind, tile=a.tile)
            td = p.tile_description
            if td is None:
                raise RuntimeError(f"tile {a.tile} not available for {kind}")
            p.compile(td, alignment_A=8, alignment_B=8, alignment_C=8)
            plans[kind] = (p, m.describe(td))
            rows.append({"tile": a.tile, "kind": kind, "compiled": m.describe(td), "compile_s": time.time() - t0})
        except Exception as e:  # noqa: BLE001 - a tile that does not build is a row
            rows.append({"tile": a.tile, "kind": kind, "error": f"{type(e).__name__}: {str(e)[:400]}", "compile_s": time.time() - t0})
        print(json.dumps(rows[-1]), flush=True)
    cache = {}
    for shape in SHAPES:
        for kind, M, N, K in gemms(shape):
            if kind not in plans:
                continue
            p, desc = plans[kind]
            sets = []
            for _ in range(3):
                sets.append((torch.randn((M, K), device="cuda").to(BF), (torch.randn((K, N), device="cuda") * K ** -0.5).to(BF),
                             torch.empty((M, N), device="cuda", dtype=BF), torch.randn((M, N), device="cuda").to(BF),
                             torch.empty((M, N), device="cuda", dtype=BF)))
            for raster in RASTERS:
                m._scheduler_args(raster)
                r = {"tile": a.tile, "kind": kind, "shape": shape, "M": M, "N": N, "K": K, "raster": raster, "desc": desc}
                try:
                    _, run = m.gemm_alone(BF, M, N, K, kind, tile=a.tile)  # fresh argument cache
                    with Lock(a.lock):
                        warm()
                        cub = cublas_ms([(M, N, K)], cache)
                        ms = events_ms([lambda s=s: run(s) for s in sets])
                        s0 = sets[0]
                        run(s0)
                        torch.cuda.synchronize()
                        ref = (s0[0].float() @ s0[1].float())
                        if kind == "sigmoid":
                            ref = torch.sigmoid(ref)
                        elif kind == "silu":
                            ref = torch.nn.functional.silu(ref)
                        elif kind == "residual":
                            ref = ref + s0[3].float()
                        err = ((s0[2].float() - ref).norm() / ref.norm()).item()
                    r.update(us=ms * 1e3, cublas_us=cub * 1e3, vs_cublas=cub / ms, tflops=2 * M * N * K / (ms * 1e-3) / 1e12, err=err)
                except Exception as e:  # noqa: BLE001
                    r["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                rows.append(r)
                print(json.dumps(r), flush=True)
            del sets
            torch.cuda.empty_cache()
    # the 2-output gate EVT (gate = silu(acc) and go = gate * o from one kernel): trace forms
    from cutlass_cppgen.epilogue import silu  # noqa: F401
    import cutlass_cppgen as cutlass
    forms = {
        "D=silu(acc)*o, F=silu(acc)": "def f(accum, o):\n    F = silu(accum)\n    D = F * o\n    return D, F\n",
        "D=silu(acc), F=D*o": "def f(accum, o):\n    D = silu(accum)\n    F = D * o\n    return D, F\n",
        "F=silu(acc)*o, D=silu(acc)": "def f(accum, o):\n    F = silu(accum) * o\n    D = silu(accum)\n    return D, F\n",
    }
    M, N = 8192, 768
    for name, src in forms.items():
        ns = {"silu": silu}
        exec(src, ns)  # noqa: S102 - fixed source above
        f32 = torch.empty((M, N), device="cuda", dtype=torch.float32)
        d = torch.empty((M, N), device="cuda", dtype=BF)
        r = {"tile": a.tile, "kind": "silu-gate-2out", "form": name}
        try:
            p = cutlass.op.Gemm(element=BF, layout=cutlass.LayoutType.RowMajor, element_accumulator=torch.float32)
            p.epilogue_visitor = cutlass.epilogue.trace(ns["f"], {"accum": f32, "o": d, "D": d, "F": d})
            r["traced"] = True
        except Exception as e:  # noqa: BLE001
            r["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        rows.append(r)
        print(json.dumps(r), flush=True)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, f"cutlass.{a.tile.replace('/', '_')}.json"), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
