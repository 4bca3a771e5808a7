"""Configuration sweep of the fused GEMMs of gated_ssm and gla_proj against cuBLAS
computing the same products, in one process per shape group, on one GPU.

    python3 kernels/sweeps/gemm_sweep.py time --group d2048 --product gate --out DIR   # every config, timed
    python3 kernels/sweeps/gemm_sweep.py bytes --group d2048 --out DIR    # the best configs once each (run under ncu)

time: each product (the GEMM with its epilogue, as a variant launches it) is timed for
every config of the sweep and cuBLAS for the baseline's GEMMs of the same product (the
unfused layer's torch.mm calls: e.g. x@W_qkv, x@W_g and x@W_alpha for the wide GEMM),
both as CUDA-graph replays over buffer sets rotated past L2, in the same process; the
table (DIR/<group>.<product>.time.json) has config, us, TFLOP/s and the ratio to cuBLAS.
Processes of several products may share a GPU: each compiles its kernels on its own and
holds the GPU's lock file (--lock) only while it launches (checks and timing).
bytes: the best TOP configs of each product and the cuBLAS GEMMs launched once each inside
an NVTX range "sweep" each, for ncu (--nvtx --nvtx-include sweep/ --cache-control all);
DIR/<group>.items.json lists the items in launch order with their kernel counts and kernel
names, so the ncu rows map back to items.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import torch  # noqa: E402
import triton  # noqa: E402

from common import tk_gemm as G  # noqa: E402
from common.tk_launch import TensorDescriptor  # noqa: E402
from sweeps.tk_sweep import _mm_sweep_kernel  # noqa: E402

BF = torch.bfloat16
L2 = 50 * 2**20


def groups():
    """Shape groups: name -> list of products. A product: the fused GEMM's M, N, K, its
    epilogue (tk_gemm EPI_*), prologue, segment bounds, head, which operands it reads
    besides A and B, and the cuBLAS GEMMs of the baseline computing the same product."""
    out = {}
    for name, (M, d, HD, nH) in {"d2048": (32768, 2048, 2048, 256), "mve": (8192, 768, 768, 192)}.items():
        out[name] = [
            dict(name="wide-seg", M=M, N=4 * HD + nH, K=d, epi=G.EPI_SEGMENTS_BRANCH, seg=(3 * HD, 3 * HD, 4 * HD),
                 ref=[(M, 3 * HD, d), (M, HD, d), (M, nH, d)], variant="triton-epilogue GEMM 1"),
            dict(name="out-pro-add", M=M, N=d, K=HD, epi=G.EPI_ADD_AUX, pro=True, aux=(M, d),
                 ref=[(M, d, HD)], variant="triton-epilogue GEMM 2"),
            dict(name="in-ga-seg", M=M, N=3 * HD + nH, K=d, epi=G.EPI_SEGMENTS_BRANCH, seg=(3 * HD, 3 * HD, 3 * HD),
                 ref=[(M, 3 * HD, d), (M, nH, d)], variant="triton-gate-epilogue GEMM 1"),
            dict(name="gate", M=M, N=HD, K=d, epi=G.EPI_GATE, aux=(M, HD), c2=True,
                 ref=[(M, HD, d)], variant="triton-gate-epilogue GEMM 2"),
            dict(name="out-add", M=M, N=d, K=HD, epi=G.EPI_ADD_AUX, aux=(M, d),
                 ref=[(M, d, HD)], variant="triton-gate-epilogue GEMM 3"),
        ]
    M, d = 32768, 2048
    out["gla"] = [dict(name="gla-wide-seg", M=M, N=8448, K=d, epi=G.EPI_SEGMENTS_BRANCH, seg=(4096, 6144, 8192),
                       head=128, ref=[(M, 2048, d)] * 4 + [(M, 256, d)], variant="gla_proj wide-gemm-epilogue")]
    return out


def configs(p):
    """The sweep: (BLOCK_M, BLOCK_N, BLOCK_K, warps, stages, GROUP, ORDER, SUB, WS, ctas)."""
    head = p.get("head", 0)
    base = []
    for bm, bn, w, s in ((128, 256, 8, 3), (128, 256, 8, 4), (128, 128, 8, 4), (128, 128, 8, 5), (256, 128, 8, 3)):
        for sub in (1, 2, 4):
            if bn // sub < 64 or (head and bn // sub != head) or (sub == 1 and bn == 256):
                continue
            base.append((bm, bn, 64, w, s, 8, 0, sub, False, 1))
    out = list(base)
    # tile order and group size on the production tile (128x256, 2 subtiles, 3 stages)
    for order, g in ((0, 4), (0, 16), (0, 32), (1, 4), (1, 8), (1, 16)):
        out.append((128, 256, 64, 8, 3, g, order, 2, False, 1))
    # warp specialisation of the tile loop; 128-wide K steps. (num_ctas=2, a 2-CTA cluster,
    # does not build for this kernel in Triton 3.6 on sm_90: ConvertTritonToTritonGPU fails.)
    out.append((128, 256, 64, 8, 3, 8, 0, 2, True, 1))
    out.append((128, 128, 64, 8, 4, 8, 0, 2 if not head else 1, True, 1))
    out.append((128, 256, 128, 8, 2, 8, 0, 2, False, 1))
    out.append((128, 128, 128, 8, 3, 8, 0, 1, False, 1))
    seen, uniq = set(), []
    for c in out:
        if head and c[1] // c[7] != head:
            continue
        if c not in seen:
            seen.add(c)
            uniq.append(c)
    return uniq


PRODUCTION = [128, 256, 64, 8, 3, 8, 0, 2, False, 1]  # tk_gemm STORE_CONFIGS[0], the config the runs chose


def cfg_text(c):
    bm, bn, bk, w, s, g, order, sub, ws, ctas = c
    return (f"{bm}x{bn}x{bk} w{w} s{s} {'GROUP_M' if order == 0 else 'GROUP_N'}={g} sub{sub}"
            + (" ws" if ws else "") + (f" ctas{ctas}" if ctas > 1 else ""))


def bufs(p, n_sets):
    M, N, K = p["M"], p["N"], p["K"]
    sets = []
    for _ in range(n_sets):
        s = {"a": torch.randn((M, K), device="cuda").to(BF), "b": (torch.randn((K, N), device="cuda") * K ** -0.5).to(BF),
             "c": torch.empty((M, N), device="cuda", dtype=BF)}
        if p.get("pro"):
            s["g"] = torch.randn((M, K), device="cuda").to(BF)
        if p.get("aux"):
            s["x"] = torch.randn(p["aux"], device="cuda").to(BF)
        if p.get("c2"):
            s["c2"] = torch.empty((M, N), device="cuda", dtype=BF)
        sets.append(s)
    return sets


def set_bytes(p):
    M, N, K = p["M"], p["N"], p["K"]
    n = M * K + K * N + M * N
    n += M * K if p.get("pro") else 0
    n += math.prod(p["aux"]) if p.get("aux") else 0
    n += M * N if p.get("c2") else 0
    return 2 * n


def launcher(p, c, s, sms):
    bm, bn, bk, w, st, g, order, sub, ws, ctas = c
    cn = bn // sub
    M, N, K = p["M"], p["N"], p["K"]
    D = lambda t, blk: TensorDescriptor(t, list(t.shape), list(t.stride()), blk)
    a_d = D(s["a"], [bm, bk])
    b_d = D(s["b"], [bk, bn])
    g_d = D(s.get("g", s["a"]), [bm, bk])
    c_d = D(s["c"], [bm, cn])
    x_d = D(s.get("x", s["c"]), [bm, cn])
    c2_d = D(s.get("c2", s["c"]), [bm, cn])
    seg = p.get("seg", (0, 0, 0))
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    grid = (min(sms, tiles),)
    kw = dict(EPI=p["epi"], PRO=1 if p.get("pro") else 0, HEAD=p.get("head", 0), B_T=False, NUM_SMS=sms, SUB=sub,
              ORDER=order, WS=ws, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP=g, num_warps=w, num_stages=st)
    if ctas > 1:
        kw["num_ctas"] = ctas

    def run(warmup=False):
        args = (a_d, b_d, g_d, c_d, x_d, c2_d, M, N, K, seg[0], seg[1], seg[2])
        if warmup:
            _mm_sweep_kernel.warmup(*args, grid=grid, **kw)
        else:
            _mm_sweep_kernel[grid](*args, **kw)
    return run


def graph_ms(fns, reps=15):
    """Median ms of one call: the rotated calls captured L at a time in a CUDA graph."""
    for f in fns:
        f()
    torch.cuda.synchronize()
    L = max(len(fns), 24)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(L):
            fns[i % len(fns)]()
    g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) / L)
    del g
    return statistics.median(ts)


def cublas_ms(shapes, cache):
    tot = 0.0
    for (M, N, K) in shapes:
        if (M, N, K) not in cache:
            n = max(2, min(8, math.ceil(3 * L2 / (2 * (M * K + K * N + M * N)))))
            sets = [(torch.randn((M, K), device="cuda").to(BF), torch.randn((K, N), device="cuda").to(BF),
                     torch.empty((M, N), device="cuda", dtype=BF)) for _ in range(n)]
            cache[(M, N, K)] = graph_ms([lambda s=s: torch.mm(s[0], s[1], out=s[2]) for s in sets])
            del sets
        tot += cache[(M, N, K)]
    return tot


def check(p, c, sms):
    """The sweep kernel's output against tk_gemm's production kernel (same epilogue)."""
    s = bufs(p, 1)[0]
    launcher(p, c, s, sms)()
    ref = torch.empty_like(s["c"])
    ref2 = torch.empty_like(s["c"]) if p.get("c2") else None
    G.mm_epi(s["a"], s["b"], ref, epi=p["epi"] if p["epi"] != G.EPI_SEGMENTS_BRANCH else G.EPI_SEGMENTS,
             aux=s.get("x"), gate=s.get("g"), seg=p.get("seg", (0, 0, 0)), head=p.get("head", 0), impl="tma-store",
             c2=ref2)
    err = ((s["c"].float() - ref.float()).norm() / ref.float().norm()).item()
    if ref2 is not None:
        err = max(err, ((s["c2"].float() - ref2.float()).norm() / ref2.float().norm()).item())
    return err


class Lock:
    """An exclusive flock on a file: one process launches on the GPU at a time."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        import fcntl
        self.f = open(self.path, "a") if self.path else None
        if self.f:
            fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.f:
            self.f.close()


def warm():
    x = torch.randn((8192, 8192), device="cuda", dtype=BF)
    t0 = time.time()
    while time.time() - t0 < 0.3:  # clocks out of idle
        x @ x
    torch.cuda.synchronize()


def cmd_time(a):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows, cache = [], {}
    for p in groups()[a.group]:
        if a.product and p["name"] != a.product:
            continue
        with Lock(a.lock):
            warm()
            cub = cublas_ms(p["ref"], cache)
            wide = cublas_ms([(p["M"], p["N"], p["K"])], cache)
        flops = 2 * p["M"] * p["N"] * p["K"]
        n_sets = max(2, min(8, math.ceil(3 * L2 / set_bytes(p))))
        sets = bufs(p, n_sets)
        for c in configs(p):
            r = {"group": a.group, "product": p["name"], "variant": p["variant"], "M": p["M"], "N": p["N"], "K": p["K"],
                 "config": cfg_text(c), "cfg": list(c), "cublas_us": cub * 1e3, "cublas_one_gemm_us": wide * 1e3}
            try:
                t1 = time.time()
                fns = [launcher(p, c, s, sms) for s in sets]
                fns[0](warmup=True)  # compile outside the lock
                r["compile_s"] = time.time() - t1
                with Lock(a.lock):
                    r["err_vs_production"] = check(p, c, sms)
                    ms = graph_ms(fns)
                r.update(us=ms * 1e3, tflops=flops / (ms * 1e-3) / 1e12, vs_cublas=cub / ms, vs_one_gemm=wide / ms,
                         seconds=time.time() - t1)
            except Exception as e:  # noqa: BLE001 - a config that does not build is a row too
                r["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
            rows.append(r)
            print(json.dumps(r), flush=True)
        del sets
        torch.cuda.empty_cache()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, f"{a.group}.{a.product or 'all'}.time.json"), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0), "sms": sms, "torch": torch.__version__,
                   "triton": triton.__version__, "rows": rows}, f, indent=1)


def cmd_bytes(a):
    """Launch the TOP best configs of each product and its cuBLAS GEMMs once each, each in an
    NVTX range "sweep", for ncu (rows map to items by launch order)."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    import glob
    rows = []
    for fn in sorted(glob.glob(os.path.join(a.out, f"{a.group}.*.time.json"))):
        with open(fn) as f:
            rows += json.load(f)["rows"]
    items = []
    for p in groups()[a.group]:
        ok = sorted((r for r in rows if r["product"] == p["name"] and "us" in r and r.get("err_vs_production", 1) < 2e-2),
                    key=lambda r: r["us"])
        prod = [r for r in rows if r["product"] == p["name"] and r["cfg"] == PRODUCTION]
        pick = ok[:a.top] + [r for r in prod if r not in ok[:a.top]]
        s = bufs(p, 1)[0]
        for r in pick:
            items.append((f"{p['name']}|{r['config']}", 1, launcher(p, tuple(r["cfg"]), s, sms)))
        for i, (M, N, K) in enumerate(p["ref"]):
            A, B, C = torch.randn((M, K), device="cuda").to(BF), torch.randn((K, N), device="cuda").to(BF), torch.empty((M, N), device="cuda", dtype=BF)
            items.append((f"{p['name']}|cublas {M}x{N}x{K} #{i}", 1, lambda A=A, B=B, C=C: torch.mm(A, B, out=C)))
    for _, _, f in items:  # compile and warm outside the ranges
        f()
    torch.cuda.synchronize()
    for name, _, f in items:
        torch.cuda.nvtx.range_push("sweep")
        f()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    with open(os.path.join(a.out, f"{a.group}.items.json"), "w") as f:
        json.dump([{"item": n, "kernels": k} for n, k, _ in items], f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["time", "bytes"])
    ap.add_argument("--group", required=True, choices=sorted(groups()))
    ap.add_argument("--out", required=True)
    ap.add_argument("--top", type=int, default=2)
    ap.add_argument("--product", default="")
    ap.add_argument("--lock", default="", help="lock file of the GPU this process launches on")
    a = ap.parse_args()
    (cmd_time if a.cmd == "time" else cmd_bytes)(a)


if __name__ == "__main__":
    main()
