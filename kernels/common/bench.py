"""run.py bench: efficiency figures against ceilings measured on this device.

Ceilings: device-to-device copy bandwidth (bytes read + written) of a 1 GiB tensor,
and torch.matmul (cuBLAS) TFLOP/s on each GEMM shape a fused variant computes.
Targets: fused GEMM variants >= 90% of cuBLAS TFLOP/s on the same shape;
memory-bound kernels >= 80% of copy bandwidth; dual-acc within 1.3x of the
speed-of-light floor max(FLOPs / cuBLAS rate, bytes / copy bandwidth).
"""
from __future__ import annotations

import json
import math
import os
import statistics
import sys

import torch

from . import runner


def _median_ms(fns, reps=40, warmup=5):
    for i in range(max(warmup, len(fns))):
        fns[i % len(fns)]()
    torch.cuda.synchronize()
    st = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    en = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        st[i].record()
        fns[i % len(fns)]()
        en[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(st, en))


class Ctx:
    def __init__(self, exp, shape, seed, reps):
        self.exp, self.shape, self.seed, self.reps = exp, shape, seed, reps
        self.l2 = runner.l2_bytes()
        self._cublas = {}
        self.copy_gbps = None
        self.notes = []

    # --- ceilings
    def measure_copy(self):
        n = 2**30 // 2
        a = torch.empty(n, dtype=torch.bfloat16, device="cuda").normal_()
        b = torch.empty_like(a)
        ms = _median_ms([lambda: b.copy_(a)], reps=20)
        self.copy_gbps = 2 * a.numel() * 2 / (ms * 1e-3) / 1e9
        del a, b
        torch.cuda.empty_cache()
        return self.copy_gbps

    def _sets(self, make, set_bytes):
        n = max(1, min(16, math.ceil(3 * self.l2 / max(1, set_bytes))))
        return [make() for _ in range(n)]

    def cublas_ms(self, M, N, K):
        key = (M, N, K)
        if key not in self._cublas:
            dt = torch.bfloat16
            def make():
                return (torch.randn((M, K), device="cuda").to(dt), (torch.randn((K, N), device="cuda") * K ** -0.5).to(dt),
                        torch.empty((M, N), device="cuda", dtype=dt))
            sets = self._sets(make, 2 * (M * K + K * N + M * N))
            ms = _median_ms([lambda s=s: torch.mm(s[0], s[1], out=s[2]) for s in sets], reps=self.reps)
            self._cublas[key] = ms
            del sets
        return self._cublas[key]

    def cublas_tflops(self, M, N, K):
        return 2 * M * N * K / (self.cublas_ms(M, N, K) * 1e-3) / 1e12

    # --- subjects
    def time_variant(self, name):
        v = self.exp.variant(name)
        if v is None:
            return None
        cell = runner.Cell(self.exp, v, self.shape, self.seed)
        chk = runner.run_check(cell)
        if not chk["ok"]:
            self.notes.append(f"{name}: check {'skipped' if chk.get('skipped') else 'FAILED'}: {chk['error']}")
            return None
        t = runner.run_time(cell, self.reps, 5)
        return statistics.median(t["samples_ms"])

    def time_fn(self, fn, make_bufs, set_bytes, graph=True):
        """Median ms of one fn(bufs) call, bufs rotated over sets so the working set
        exceeds L2. graph=True: L calls captured in one CUDA graph, replay time / L, so
        host launch overhead (tens of us per Triton launch) stays out of kernel figures."""
        sets = self._sets(make_bufs, set_bytes)
        fns = [lambda s=s: fn(s) for s in sets]
        if not graph:
            return _median_ms(fns, reps=self.reps)
        for f in fns:
            f()
        torch.cuda.synchronize()
        L = max(len(fns), 32)
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for f in fns:
                f()
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        with torch.cuda.graph(g):
            for i in range(L):
                fns[i % len(fns)]()
        return _median_ms([g.replay], reps=max(10, self.reps // 3), warmup=2) / L

    # --- rows
    def gemm_row(self, name, ms, flops, cublas_tflops, min_bytes=0, sol=False):
        if ms is None or ms <= 0:
            return {"name": name, "kind": "gemm", "ms": None, "note": "not timed"}
        tf = flops / (ms * 1e-3) / 1e12
        r = {"name": name, "kind": "gemm", "ms": ms, "tflops": tf, "cublas_tflops": cublas_tflops,
             "ratio": tf / cublas_tflops, "target": 0.9, "pass": tf / cublas_tflops >= 0.9}
        if sol:
            floor = max(flops / (cublas_tflops * 1e12), min_bytes / (self.copy_gbps * 1e9)) * 1e3
            r.update(sol_ms=floor, sol_ratio=ms / floor, sol_target=1.3, sol_pass=ms / floor <= 1.3)
        return r

    def bw_row(self, name, ms, nbytes):
        if ms is None or ms <= 0:
            return {"name": name, "kind": "memory", "ms": None, "note": "not timed"}
        gb = nbytes / (ms * 1e-3) / 1e9
        return {"name": name, "kind": "memory", "ms": ms, "gbps": gb, "copy_gbps": self.copy_gbps,
                "ratio": gb / self.copy_gbps, "target": 0.8, "pass": gb / self.copy_gbps >= 0.8, "bytes": nbytes}


def main(a, plan):
    out = {"env": runner.env_info(), "experiments": []}
    copy = None
    rc = 0
    lines = []
    for e, cs in plan:
        mod = runner.exp_module(e.name)
        if not hasattr(mod, "bench_rows"):
            continue
        shapes = [s for s in e.shapes]
        if a.cell:
            shapes = list(dict.fromkeys(s for _, s in cs))
        for s in shapes:
            ctx = Ctx(e, s, a.seed, a.reps)
            if copy is None:
                _spin(0.5)
                copy = ctx.measure_copy()
            ctx.copy_gbps = copy
            try:
                rows = mod.bench_rows(ctx_vars(s), ctx)
            except Exception as err:  # noqa: BLE001
                import traceback
                traceback.print_exc()
                rows = [{"name": "bench", "error": f"{type(err).__name__}: {err}"}]
                rc = 1
            out["experiments"].append({"experiment": e.name, "shape": s, "rows": rows, "notes": ctx.notes})
            for r in rows:
                lines.append(_fmt(e.name, s, r))
            for n in ctx.notes:
                lines.append(f"  note {e.name} {s}: {n}")
            torch.cuda.empty_cache()
    out["copy_gbps"] = copy
    if a.out:
        runner.write_json(os.path.join(a.out, "bench.json"), out)  # write_json nulls non-finite floats
    print(f"device {out['env'].get('device')} clocks {out['env'].get('clocks')} copy {copy:.0f} GB/s")
    for l in lines:
        print(l)
    sys.stdout.flush()
    return rc


def _spin(seconds):
    """Busy the GPU with GEMMs so its clocks leave idle before the first measurement."""
    a = torch.randn((4096, 4096), device="cuda", dtype=torch.bfloat16)
    import time as _t
    t0 = _t.perf_counter()
    while _t.perf_counter() - t0 < seconds:
        for _ in range(20):
            a @ a
        torch.cuda.synchronize()


def ctx_vars(s):
    from .spec import parse_shape
    return parse_shape(s)


def _fmt(exp, shape, r):
    if r.get("error"):
        return f"{exp:10s} {shape:40s} {r['name']:55s} ERROR {r['error']}"
    if r.get("ms") is None:
        return f"{exp:10s} {shape:40s} {r['name']:55s} {r.get('note', '')}"
    if r["kind"] == "gemm":
        s = (f"{exp:10s} {shape:40s} {r['name']:55s} {r['ms']*1e3:9.1f} us {r['tflops']:6.0f} TF/s "
             f"= {100*r['ratio']:5.1f}% of cuBLAS {r['cublas_tflops']:.0f} {'PASS' if r['pass'] else 'MISS'}")
        if "sol_ratio" in r:
            s += f"; {r['sol_ratio']:.2f}x SOL floor {r['sol_ms']*1e3:.1f} us {'PASS' if r['sol_pass'] else 'MISS'}"
        return s
    return (f"{exp:10s} {shape:40s} {r['name']:55s} {r['ms']*1e3:9.1f} us {r['gbps']:6.0f} GB/s "
            f"= {100*r['ratio']:5.1f}% of copy {'PASS' if r['pass'] else 'MISS'}")

