"""Tile sweep of the quack (CuTe DSL) fused-epilogue GEMMs of kernels/common/qk.py, beside
cuBLAS computing the same products in the same process.

    python3 kernels/sweeps/quack_sweep.py PRODUCT [--out DIR] [--budget S] [--configs C,...]
                                          [--raster auto|m|n] [--epi-tile MxN]

PRODUCT is one of PRODUCTS below (gssm-in-mve, gssm-gate-d2048, gla-wide, ...). Each config of
the product's candidate list is compiled (quack caches the kernel under $QUACK_CACHE_DIR),
checked against a float32 reference, then timed: CUDA-event medians of 30 calls over buffer
sets rotated past 3x the L2, the same way for cuBLAS. Several products run as parallel
processes: compiles overlap, timing holds an exclusive file lock (--lock) so that no two
processes time on the GPU at once. One JSON line per config goes to DIR/<product>.jsonl.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

BF = torch.bfloat16
GEN = ["128x256/2x1/coop", "128x128/2x1/coop", "256x128/2x1/coop", "128x256/1x2/coop", "128x192/2x1/pp",
       "128x128/1x1/pp", "256x192/2x1/coop", "128x192/2x1/coop", "128x192/2x1/pp/s2", "128x192/2x1/pp/s16"]
HEAD = ["128x256/2x1/coop", "128x128/2x1/coop", "256x128/2x1/coop", "128x256/1x2/coop", "128x128/1x1/pp",
        "128x128/2x1/pp", "256x128/2x1/coop/s1", "256x128/2x1/coop/s2", "256x128/2x1/coop/s4",
        "256x128/2x1/coop/s16", "256x128/1x2/coop"]
SMALL_M = ["128x256/2x1/coop", "128x128/2x1/coop", "128x128/1x2/coop", "128x256/1x2/coop", "128x192/2x1/pp",
           "128x128/1x1/pp", "128x64/1x1/pp", "64x256/1x1/pp"]

MVE = dict(BT=16 * 512, d=768, HD=12 * 64, nH=16 * 12)
D2048 = dict(BT=16 * 2048, d=2048, HD=16 * 128, nH=16 * 16)
GLA = dict(BT=8 * 4096, d=2048, dk=128, HK=2048, HV=2048, HN=256)
SW = dict(M=512, N=4096, K=7168)


def rnd(*s, scale=1.0, dtype=BF):
    return (torch.randn(s, device="cuda") * scale).to(dtype)


def relerr(y, ref):
    return ((y.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def gssm(kind, g):
    """(inputs maker, quack call, cuBLAS calls, reference, out name, (M, N, K))."""
    from common import qk
    BT, d, HD, nH = g["BT"], g["d"], g["HD"], g["nH"]
    if kind == "in":
        N = 3 * HD + nH
        sig = qk.seg_vector(N, [(3 * HD, N)])

        def mk():
            x, W = rnd(BT, d), rnd(d, N, scale=d ** -0.5)
            return {"x": x, "W": W, "Wq": qk.nk(W), "Wqkv": W[:, :3 * HD].contiguous(), "Wa": W[:, 3 * HD:].contiguous(),
                    "D": torch.empty(BT, N, device="cuda", dtype=BF)}
        quack = lambda s, cfg: qk.run(qk.seg_epi, s["x"], s["Wq"], {"D": s["D"]}, "gssm-in", sig=sig)
        cub = [lambda s: s["x"] @ s["Wqkv"], lambda s: s["x"] @ s["Wa"]]

        def ref(s):
            z = s["x"].float() @ s["W"].float()
            return torch.cat([z[:, :3 * HD], torch.sigmoid(z[:, 3 * HD:])], 1), s["D"]
        eager = lambda s: (s["x"] @ s["Wqkv"], torch.sigmoid(s["x"] @ s["Wa"]))
        return mk, quack, cub, ref, eager, (BT, N, d), 2 * (BT * d + d * N + BT * N)
    if kind == "gate":
        def mk():
            W = rnd(d, HD, scale=d ** -0.5)
            return {"x": rnd(BT, d), "W": W, "Wq": qk.nk(W), "o": rnd(BT, HD),
                    "D": torch.empty(BT, HD, device="cuda", dtype=BF), "G": torch.empty(BT, HD, device="cuda", dtype=BF)}

        def quack(s, cfg):
            return qk.run(qk.gate_epi, s["x"], s["Wq"], {"D": s["D"], "gate": s["G"]}, "gssm-gate", o=s["o"])
        cub = [lambda s: s["x"] @ s["W"]]

        def ref(s):
            gt = F.silu(s["x"].float() @ s["W"].float())
            return torch.cat([gt, gt * s["o"].float()], 1), torch.cat([s["G"], s["D"]], 1)
        eager = lambda s: torch.mul(s["o"], F.silu(s["x"] @ s["W"]))
        return mk, quack, cub, ref, eager, (BT, HD, d), 2 * (BT * d + d * HD + 3 * BT * HD)
    if kind == "out":
        def mk():
            W = rnd(HD, d, scale=HD ** -0.5)
            return {"go": rnd(BT, HD), "W": W, "Wq": qk.nk(W), "x": rnd(BT, d),
                    "D": torch.empty(BT, d, device="cuda", dtype=BF)}

        def quack(s, cfg):
            return qk.run(qk.residual_epi, s["go"], s["Wq"], {"D": s["D"]}, "gssm-out", res=s["x"])
        cub = [lambda s: s["go"] @ s["W"]]
        ref = lambda s: (s["go"].float() @ s["W"].float() + s["x"].float(), s["D"])
        eager = lambda s: s["go"] @ s["W"] + s["x"]
        return mk, quack, cub, ref, eager, (BT, d, HD), 2 * (BT * HD + HD * d + 2 * BT * d)
    raise KeyError(kind)


def gla(g):
    from common import qk
    BT, d, dk, HK, HV, HN = g["BT"], g["d"], g["dk"], g["HK"], g["HV"], g["HN"]
    N = 2 * HK + 2 * HV + HN
    s_norm, s_silu, s_sig = HK + HV, 2 * HK + HV, 2 * HK + 2 * HV
    vec = {"ident": qk.seg_vector(N, [(0, s_norm)]), "knorm": qk.seg_vector(N, [(s_norm, s_silu)]) * dk ** -0.5,
           "silu": qk.seg_vector(N, [(s_silu, s_sig)]), "sig": qk.seg_vector(N, [(s_sig, N)])}
    widths = [HK, HV, HK, HV, HN]

    def mk():
        x, W = rnd(BT, d), rnd(d, N, scale=d ** -0.5)
        parts, c = [], 0
        for w in widths:
            parts.append(W[:, c:c + w].contiguous())
            c += w
        return {"x": x, "W": W, "Wq": qk.nk(W), "parts": parts, "D": torch.empty(BT, N, device="cuda", dtype=BF)}
    quack = lambda s, cfg: qk.run(qk.gla_epi, s["x"], s["Wq"], {"D": s["D"]}, "gla-wide", qk=dk, **vec)
    cub = [lambda s, i=i: s["x"] @ s["parts"][i] for i in range(5)]

    def ref(s):
        z = s["x"].float() @ s["W"].float()
        k = F.normalize(z[:, s_norm:s_silu].reshape(BT, -1, dk), dim=-1).reshape(BT, -1)
        return torch.cat([z[:, :s_norm], k, F.silu(z[:, s_silu:s_sig]), torch.sigmoid(z[:, s_sig:])], 1), s["D"]

    def eager(s):
        x, p = s["x"], s["parts"]
        k = F.normalize((x @ p[2]).view(BT, -1, dk), dim=-1)
        return x @ p[0], x @ p[1], k, F.silu(x @ p[3]), torch.sigmoid(x @ p[4])
    return mk, quack, cub, ref, eager, (BT, N, d), 2 * (BT * d + d * N + BT * N)


def swiglu(g, fp8=False):
    from common import qk
    M, N, K = g["M"], g["N"], g["K"]
    if not fp8:
        def mk():
            B1, B2 = rnd(K, N, scale=K ** -0.5), rnd(K, N, scale=K ** -0.5)
            return {"A": rnd(M, K), "B1": B1, "B2": B2, "Bint": qk.nk(torch.stack([B1, B2], 2).reshape(K, 2 * N)),
                    "C": torch.empty(M, N, device="cuda", dtype=BF)}
        quack = lambda s, cfg: qk.run(qk.swiglu_epi, s["A"], s["Bint"], {"postact": s["C"]}, "swiglu", store_d=False)
        cub = [lambda s: s["A"] @ s["B1"], lambda s: s["A"] @ s["B2"]]
        ref = lambda s: (F.silu(s["A"].float() @ s["B1"].float()) * (s["A"].float() @ s["B2"].float()), s["C"])
        eager = lambda s: F.silu(s["A"] @ s["B1"]) * (s["A"] @ s["B2"])
        return mk, quack, cub, ref, eager, (M, 2 * N, K), 2 * (M * K + 2 * K * N + M * N)
    f8 = torch.float8_e4m3fn
    one = torch.ones(1, device="cuda")
    sb = torch.full((1,), K ** -0.5, device="cuda")

    def mk():
        B1t, B2t = rnd(N, K, dtype=f8), rnd(N, K, dtype=f8)
        return {"A": rnd(M, K, dtype=f8), "B1t": B1t, "B2t": B2t,
                "Bint": torch.stack([B1t, B2t], 1).reshape(2 * N, K).t(), "C": torch.empty(M, N, device="cuda", dtype=BF)}
    quack = lambda s, cfg: qk.run(qk.swiglu_scaled_epi, s["A"], s["Bint"], {"postact": s["C"]}, "swiglu-fp8",
                                  store_d=False, sa=one, sb1=sb, sb2=sb)
    cub = [lambda s: torch._scaled_mm(s["A"], s["B1t"].t(), scale_a=one, scale_b=sb, out_dtype=BF),
           lambda s: torch._scaled_mm(s["A"], s["B2t"].t(), scale_a=one, scale_b=sb, out_dtype=BF)]

    def ref(s):
        A = s["A"].float()
        return F.silu(A @ s["B1t"].float().t() * sb) * (A @ s["B2t"].float().t() * sb), s["C"]
    eager = lambda s: F.silu(cub[0](s)) * cub[1](s)
    return mk, quack, cub, ref, eager, (M, 2 * N, K), M * K + 2 * K * N + 2 * M * N


PRODUCTS = {
    "gssm-in-mve": (lambda: gssm("in", MVE), GEN), "gssm-gate-mve": (lambda: gssm("gate", MVE), GEN),
    "gssm-out-mve": (lambda: gssm("out", MVE), GEN),
    "gssm-in-d2048": (lambda: gssm("in", D2048), GEN), "gssm-gate-d2048": (lambda: gssm("gate", D2048), GEN),
    "gssm-out-d2048": (lambda: gssm("out", D2048), GEN),
    "gla-wide": (lambda: gla(GLA), HEAD), "swiglu": (lambda: swiglu(SW), SMALL_M),
    "swiglu-fp8": (lambda: swiglu(SW, fp8=True), SMALL_M),
}


def bench(fn, sets, reps=30, warm=5):
    for i in range(warm):
        fn(sets[i % len(sets)])
    torch.cuda.synchronize()
    ts = []
    for i in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        st = sets[i % len(sets)]
        s.record()
        fn(st)
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


class Lock:
    def __init__(self, path):
        self.f = open(path, "a+") if path else None

    def __enter__(self):
        if self.f:
            fcntl.flock(self.f, fcntl.LOCK_EX)

    def __exit__(self, *a):
        if self.f:
            fcntl.flock(self.f, fcntl.LOCK_UN)


def levers(raster, epi_tile):
    """Patch quack's raster order and epilogue tile (process-wide) and give this process a
    compile cache of its own; returns the row keys naming them. A lever quack cannot take
    fails at compile, which the config's row records."""
    out = {"raster": raster, "epi_tile": epi_tile or "auto"}
    if raster == "auto" and not epi_tile:
        return out
    base = os.environ.get("QUACK_CACHE_DIR", "/tmp/quack_cache")
    os.environ["QUACK_CACHE_DIR"] = os.path.join(base, f"r{raster}-e{epi_tile or 'auto'}")
    if raster != "auto":
        from quack import tile_scheduler as ts
        order = ts.RasterOrder.AlongM if raster == "m" else ts.RasterOrder.AlongN

        def forced(raster_order_option, problem_shape_ncluster_mn, group_size):
            return order  # a constant at trace time: the scheduler's comparisons fold
        ts.get_raster_order_from_option = forced
    if epi_tile:
        em, en = (int(v) for v in epi_tile.split("x"))
        from quack import gemm_sm90
        orig = gemm_sm90.GemmSm90._compute_tile_shape_or_override

        def epi(cta, atom, element_type=None, epi_tile_override=None):
            return orig(cta, atom, element_type, epi_tile_override or (em, en))
        gemm_sm90.GemmSm90._compute_tile_shape_or_override = staticmethod(epi)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("product", choices=sorted(PRODUCTS))
    ap.add_argument("--out", default=".")
    ap.add_argument("--budget", type=float, default=300, help="seconds after which no new config is started")
    ap.add_argument("--lock", default="", help="file locked while timing")
    ap.add_argument("--configs", default="", help="comma-separated configs instead of the product's list")
    ap.add_argument("--raster", choices=("auto", "m", "n"), default="auto",
                    help="tile scheduler raster order: quack's heuristic, or forced along M / N (patched in)")
    ap.add_argument("--epi-tile", default="", metavar="MxN", help="epilogue subtile instead of quack's own (patched in)")
    a = ap.parse_args()
    t0 = time.time()
    # Levers quack 0.6.5 does not expose: patched in before anything compiles, with a compile
    # cache of their own (quack's cache keys do not see them), one setting per process.
    lever = levers(a.raster, a.epi_tile)
    from common import qk
    prod = a.product.replace("-mve", "").replace("-d2048", "")
    make, configs = PRODUCTS[a.product]
    if a.configs:
        configs = a.configs.split(",")
    mk, quack, cub, ref, eager, (M, N, K), nbytes = make()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    s0 = mk()
    per = sum(t.numel() * t.element_size() for t in s0.values() if isinstance(t, torch.Tensor))
    sets = [s0] + [mk() for _ in range(max(0, min(8, -(-3 * l2 // per)) - 1))]
    os.makedirs(a.out, exist_ok=True)
    outf = open(os.path.join(a.out, f"{a.product}.jsonl"), "a")

    def emit(row):
        row.update(product=a.product, M=M, N=N, K=K, t=round(time.time() - t0, 1), **lever)
        outf.write(json.dumps(row) + "\n")
        outf.flush()
        print(json.dumps(row), flush=True)
    with Lock(a.lock):
        c_us = [bench(f, sets) for f in cub]
        e_us = bench(eager, sets)
    emit({"kind": "ref", "cublas_us": c_us, "cublas_sum_us": sum(c_us), "eager_us": e_us, "sets": len(sets),
          "device": torch.cuda.get_device_name(0)})
    for cfg in configs:
        if time.time() - t0 > a.budget:
            emit({"kind": "skipped", "config": cfg, "reason": "budget"})
            continue
        os.environ[qk.KNOB] = f"{prod}={cfg}"
        row = {"kind": "config", "config": cfg}
        try:
            tc = time.time()
            quack(s0, cfg)
            torch.cuda.synchronize()
            row["compile_s"] = round(time.time() - tc, 1)
            r, y = ref(s0)
            row["rel_err"] = relerr(y, r)
            with Lock(a.lock):
                us = bench(lambda s: quack(s, cfg), sets)
            row.update(us=us, pct_cublas=100 * sum(c_us) / us, x_eager=e_us / us, gbps=nbytes / us / 1e3)
        except Exception as ex:  # noqa: BLE001 - a config that fails is a row
            row["error"] = f"{type(ex).__name__}: {str(ex)[:300]}"
            traceback.print_exc(limit=2)
        emit(row)


if __name__ == "__main__":
    main()
