"""Dual-GEMM SwiGLU: C = silu(A @ B1) * (A @ B2).

A [M,K], B1/B2 [K,N] (row-major, the layout both cuBLAS and the Triton kernels read),
C [M,N]; bf16 in and out, fp32 accumulation.
"""
from __future__ import annotations

import torch

from common import tk
from common.impl import Impl, randn


def make_inputs(v, dtype, gen, backward=False):
    M, N, K = v["M"], v["N"], v["K"]
    # A ~ N(0,1), B ~ N(0, 1/K): products ~ N(0,1), SiLU not saturated.
    return {"A": randn((M, K), gen, dtype), "B1": randn((K, N), gen, dtype, K ** -0.5),
            "B2": randn((K, N), gen, dtype, K ** -0.5)}


def reference(v, inp, backward=False):
    A, B1, B2 = (inp[k].float() for k in ("A", "B1", "B2"))
    h1 = A @ B1
    return {"C": torch.nn.functional.silu(h1) * (A @ B2)}


class _Base(Impl):
    def alloc(self, st):
        M, N = self.v["M"], self.v["N"]
        return {"C": torch.empty((M, N), device="cuda", dtype=self.dtype),
                "h1": torch.empty((M, N), device="cuda", dtype=self.dtype),
                "h2": torch.empty((M, N), device="cuda", dtype=self.dtype)}


class Unfused(_Base):
    """Two cuBLAS GEMMs and one Triton silu-mul kernel: 3 launches."""

    def run(self, st, out):
        torch.mm(st["A"], st["B1"], out=out["h1"])
        torch.mm(st["A"], st["B2"], out=out["h2"])
        tk.silu_mul(out["h1"], out["h2"], out["C"])
        return {"C": out["C"]}


class Gemm2Epilogue(_Base):
    """cuBLAS GEMM1 writes h1; Triton GEMM2 applies silu(h1) * acc in its epilogue: 2 launches."""

    def prepare(self, inp):
        st = dict(inp)
        st["B2"] = tk.weight_for(inp["B2"])
        return st

    def run(self, st, out):
        torch.mm(st["A"], st["B1"], out=out["h1"])
        tk.mm_epi(st["A"], st["B2"], out["C"], epi=tk.EPI_SILU_AUX_MUL, aux=out["h1"])
        return {"C": out["C"]}


class DualAcc(Impl):
    persistent = False

    def alloc(self, st):
        return {"C": torch.empty((self.v["M"], self.v["N"]), device="cuda", dtype=self.dtype)}

    def run(self, st, out):
        tk.dual_acc(st["A"], st["B1"], st["B2"], out["C"], persistent=self.persistent)
        return {"C": out["C"]}


class DualAccPersistent(DualAcc):
    persistent = True


class QuackGated(Impl):
    """One quack (CuTe DSL) GEMM over the interleaved weight [w1_0, w3_0, w1_1, w3_1, ...]
    (2N columns): its epilogue pairs adjacent accumulator columns and stores only
    silu(gate) * up (N columns); each A tile is loaded once for both products: 1 launch."""

    def prepare(self, inp):
        from common import qk
        st = dict(inp)
        K, N = inp["B1"].shape
        st["Bint"] = qk.nk(torch.stack([inp["B1"], inp["B2"]], dim=2).reshape(K, 2 * N))
        return st

    def alloc(self, st):
        return {"C": torch.empty((self.v["M"], self.v["N"]), device="cuda", dtype=self.dtype)}

    def run(self, st, out):
        from common import qk
        qk.run(qk.swiglu_epi, st["A"], st["Bint"], {"postact": out["C"]}, "swiglu", store_d=False)
        return {"C": out["C"]}


VARIANTS = {
    "unfused": Unfused,
    "unfused-graph": Unfused,
    "gemm2-epilogue": Gemm2Epilogue,
    "dual-acc": DualAcc,
    "dual-acc-persistent": DualAccPersistent,
    "quack-gated": QuackGated,
}


def bench_rows(v, ctx):
    """Efficiency rows for run.py bench (see common/bench.py)."""
    M, N, K = v["M"], v["N"], v["K"]
    flops = 4 * M * N * K
    e = 2  # bytes per bf16
    min_bytes = e * (M * K + 2 * K * N + M * N)
    cublas = ctx.cublas_tflops(M, N, K)
    rows = []
    for name in ("dual-acc", "dual-acc-persistent"):
        ms = ctx.time_variant(name)
        rows.append(ctx.gemm_row(name, ms, flops, cublas, min_bytes=min_bytes, sol=True))
    ms = ctx.time_variant("gemm2-epilogue")
    rows.append(ctx.gemm_row("gemm2-epilogue variant (cuBLAS GEMM1 + fused GEMM2)", ms, flops, cublas))
    bf = torch.bfloat16
    for impl, lay in (("tma-store", "kn"), ("tma", "kn"), ("tma-persistent", "kn"), ("ptr", "kn")):
        def mk(lay=lay):
            return (torch.randn((M, K), device="cuda").to(bf), tk.weight_for((torch.randn((K, N), device="cuda") * K ** -0.5).to(bf), lay),
                    torch.randn((M, N), device="cuda").to(bf), torch.empty((M, N), device="cuda", dtype=bf))
        ms = ctx.time_fn(lambda s, impl=impl: tk.mm_epi(s[0], s[1], s[3], epi=tk.EPI_SILU_AUX_MUL, aux=s[2], impl=impl),
                         mk, e * (M * K + K * N + 2 * M * N))
        rows.append(ctx.gemm_row(f"  fused GEMM2 alone, {impl} W:{lay}", ms, 2 * M * N * K, cublas))
    # The memory-bound kernel of the unfused chain, at the cell's size and at a large size.
    for R in (M, 16384):
        def mk(R=R):
            return (torch.randn((R, N), device="cuda").to(bf), torch.randn((R, N), device="cuda").to(bf),
                    torch.empty((R, N), device="cuda", dtype=bf))
        ms = ctx.time_fn(lambda s: tk.silu_mul(*s), mk, 3 * R * N * e)
        rows.append(ctx.bw_row(f"silu_mul (Triton) {R}x{N}", ms, 3 * R * N * e))
    return rows
