"""Gated-SSM layer minus its scan (seed 000).

Pre-scan:  [Q|K|V] = x W_qkv, gate = SiLU(x W_g), alpha = sigmoid(x W_alpha)
Post-scan: y = (o * gate) W_O + x
x: [B*T, d]; W_qkv: [d, 3 H dk]; W_g: [d, H dk]; W_alpha: [d, n H]; W_O: [H dk, d].
o: [B*T, H dk] is the scan's readout. The chunkwise scan is the same in every variant,
so it is left out and o is an input (random, like the others): every variant computes
the same function of (x, o, weights). Outputs checked: Q, K, V, gate, alpha, y.
"""
from __future__ import annotations

import sys

import torch
import torch.nn.functional as F

from common import tk
from common.impl import Impl, compiled, randn


def dims(v):
    BT, d, HD, nH = v["B"] * v["T"], v["d"], v["H"] * v["dk"], v["n"] * v["H"]
    return BT, d, HD, nH


def make_inputs(v, dtype, gen, backward=False):
    BT, d, HD, nH = dims(v)
    return {"x": randn((BT, d), gen, dtype), "o": randn((BT, HD), gen, dtype),
            "W_qkv": randn((d, 3 * HD), gen, dtype, d ** -0.5), "W_g": randn((d, HD), gen, dtype, d ** -0.5),
            "W_alpha": randn((d, nH), gen, dtype, d ** -0.5), "W_O": randn((HD, d), gen, dtype, HD ** -0.5)}


def _layer(x, o, W_qkv, W_g, W_alpha, W_O):
    HD = W_g.shape[1]
    qkv = x @ W_qkv
    gate = F.silu(x @ W_g)
    alpha = torch.sigmoid(x @ W_alpha)
    y = (o * gate) @ W_O + x
    return {"Q": qkv[:, :HD], "K": qkv[:, HD:2 * HD], "V": qkv[:, 2 * HD:], "gate": gate, "alpha": alpha, "y": y}


def reference(v, inp, backward=False):
    f = {k: t.float() for k, t in inp.items()}
    return _layer(f["x"], f["o"], f["W_qkv"], f["W_g"], f["W_alpha"], f["W_O"])


class Eager(Impl):
    """Eager PyTorch, one launch per op: 3 GEMMs, SiLU, sigmoid, multiply, GEMM, add (8)."""

    def alloc(self, st):
        BT, d, HD, nH = dims(self.v)
        e = lambda *s: torch.empty(s, device="cuda", dtype=self.dtype)
        return {"qkv": e(BT, 3 * HD), "g_raw": e(BT, HD), "a_raw": e(BT, nH), "gate": e(BT, HD),
                "alpha": e(BT, nH), "go": e(BT, HD), "y0": e(BT, d), "y": e(BT, d)}

    def run(self, st, out):
        HD = st["W_g"].shape[1]
        torch.mm(st["x"], st["W_qkv"], out=out["qkv"])
        torch.mm(st["x"], st["W_g"], out=out["g_raw"])
        torch.mm(st["x"], st["W_alpha"], out=out["a_raw"])
        torch.ops.aten.silu.out(out["g_raw"], out=out["gate"])
        torch.sigmoid(out["a_raw"], out=out["alpha"])
        torch.mul(st["o"], out["gate"], out=out["go"])
        torch.mm(out["go"], st["W_O"], out=out["y0"])
        torch.add(out["y0"], st["x"], out=out["y"])
        q = out["qkv"]
        return {"Q": q[:, :HD], "K": q[:, HD:2 * HD], "V": q[:, 2 * HD:], "gate": out["gate"],
                "alpha": out["alpha"], "y": out["y"]}


class Compiled(Impl):
    """torch.compile (default mode, dynamic=False) of the eager layer, compiled once per shape."""
    graph_ok = False

    def run(self, st, out):
        key = ("gated_ssm", tuple(sorted(self.v.items())))
        fn = compiled(key, _layer)
        return fn(st["x"], st["o"], st["W_qkv"], st["W_g"], st["W_alpha"], st["W_O"])


class CompiledMaxAutotune(Impl):
    """torch.compile(mode="max-autotune-no-cudagraphs") of the eager layer: Inductor autotunes
    its Triton GEMM templates (against cuBLAS) with the elementwise ops fused into their
    epilogues where it can. No CUDA graphs, so it launches as every other variant does."""
    graph_ok = False

    def run(self, st, out):
        key = ("gated_ssm", "max-autotune", tuple(sorted(self.v.items())))
        fn = compiled(key, _layer, mode="max-autotune-no-cudagraphs")
        return fn(st["x"], st["o"], st["W_qkv"], st["W_g"], st["W_alpha"], st["W_O"])


class TritonEpilogue(Impl):
    """Two Triton GEMMs, no standalone elementwise kernel:
    1. x @ [W_qkv | W_g | W_alpha] with a per-column epilogue (identity | SiLU | sigmoid);
    2. (o * gate) @ W_O with the gating multiply in the A-operand prologue and the
       residual add of x in the epilogue."""

    def prepare(self, inp):
        st = dict(inp)
        st["W_in"] = tk.weight_for(torch.cat([inp["W_qkv"], inp["W_g"], inp["W_alpha"]], dim=1))
        st["W_O"] = tk.weight_for(inp["W_O"])
        return st

    def alloc(self, st):
        BT, d, HD, nH = dims(self.v)
        return {"wide": torch.empty((BT, 4 * HD + nH), device="cuda", dtype=self.dtype),
                "y": torch.empty((BT, d), device="cuda", dtype=self.dtype)}

    def run(self, st, out):
        BT, d, HD, nH = dims(self.v)
        w = out["wide"]
        tk.mm_epi(st["x"], st["W_in"], w, epi=tk.EPI_SEGMENTS, seg=(3 * HD, 3 * HD, 4 * HD))
        gate = w[:, 3 * HD:4 * HD]
        tk.mm_epi(st["o"], st["W_O"], out["y"], epi=tk.EPI_ADD_AUX, aux=st["x"], gate=gate)
        return {"Q": w[:, :HD], "K": w[:, HD:2 * HD], "V": w[:, 2 * HD:3 * HD], "gate": gate,
                "alpha": w[:, 4 * HD:], "y": out["y"]}


class TritonGateEpilogue(Impl):
    """Three Triton GEMMs, every elementwise op in an epilogue, no prologue:
    1. x @ [W_qkv | W_alpha] with an identity | sigmoid column-segment epilogue (pre-scan);
    2. x @ W_g with gate = SiLU(acc) and go = gate * o in its epilogue (this GEMM needs only
       x, so it runs after the scan, where o exists);
    3. go @ W_O with the residual add of x in its epilogue."""

    def prepare(self, inp):
        st = dict(inp)
        st["W_in"] = tk.weight_for(torch.cat([inp["W_qkv"], inp["W_alpha"]], dim=1))
        st["W_g"] = tk.weight_for(inp["W_g"])
        st["W_O"] = tk.weight_for(inp["W_O"])
        return st

    def alloc(self, st):
        BT, d, HD, nH = dims(self.v)
        e = lambda *s: torch.empty(s, device="cuda", dtype=self.dtype)
        return {"wide": e(BT, 3 * HD + nH), "gate": e(BT, HD), "go": e(BT, HD), "y": e(BT, d)}

    def run(self, st, out):
        BT, d, HD, nH = dims(self.v)
        w = out["wide"]
        tk.mm_epi(st["x"], st["W_in"], w, epi=tk.EPI_SEGMENTS, seg=(3 * HD, 3 * HD, 3 * HD))
        tk.mm_epi(st["x"], st["W_g"], out["gate"], epi=tk.EPI_GATE, aux=st["o"], c2=out["go"])
        tk.mm_epi(out["go"], st["W_O"], out["y"], epi=tk.EPI_ADD_AUX, aux=st["x"])
        return {"Q": w[:, :HD], "K": w[:, HD:2 * HD], "V": w[:, 2 * HD:3 * HD], "gate": out["gate"],
                "alpha": w[:, 3 * HD:], "y": out["y"]}


def _qk():
    """common.qk, imported on first use (it imports quack: requires: quack)."""
    from common import qk
    return qk


class QuackEpilogue(Impl):
    """Three quack (CuTe DSL) GEMMs, every elementwise op in an epilogue, the same dataflow as
    triton-gate-epilogue:
    1. x @ [W_qkv | W_alpha], D = acc + sig * (sigmoid(acc) - acc) with sig a 0/1 column vector
       (identity | sigmoid segments);
    2. x @ W_g storing gate = SiLU(acc) and go = gate * o (two tile stores);
    3. go @ W_O + x (quack's residual epilogue)."""

    def prepare(self, inp):
        qk = _qk()
        BT, d, HD, nH = dims(self.v)
        st = dict(inp)
        st["W_in"] = qk.nk(torch.cat([inp["W_qkv"], inp["W_alpha"]], dim=1))
        st["W_g"] = qk.nk(inp["W_g"])
        st["W_O"] = qk.nk(inp["W_O"])
        st["sig"] = qk.seg_vector(3 * HD + nH, [(3 * HD, 3 * HD + nH)])
        return st

    def alloc(self, st):
        BT, d, HD, nH = dims(self.v)
        e = lambda *s: torch.empty(s, device="cuda", dtype=self.dtype)
        return {"wide": e(BT, 3 * HD + nH), "gate": e(BT, HD), "go": e(BT, HD), "y": e(BT, d)}

    def run(self, st, out):
        qk = _qk()
        BT, d, HD, nH = dims(self.v)
        w = out["wide"]
        qk.run(qk.seg_epi, st["x"], st["W_in"], {"D": w}, "gssm-in", sig=st["sig"])
        qk.run(qk.gate_epi, st["x"], st["W_g"], {"D": out["go"], "gate": out["gate"]}, "gssm-gate", o=st["o"])
        qk.run(qk.residual_epi, out["go"], st["W_O"], {"D": out["y"]}, "gssm-out", res=st["x"])
        return {"Q": w[:, :HD], "K": w[:, HD:2 * HD], "V": w[:, 2 * HD:3 * HD], "gate": out["gate"],
                "alpha": w[:, 3 * HD:], "y": out["y"]}


def _cutlass_module():
    """kernels/gated_ssm/cutlass_evt.py, loaded once (it imports cutlass_cppgen)."""
    import importlib.util
    import os
    name = "rooftool_gated_ssm_cutlass_evt"
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cutlass_evt.py")
    if not os.path.isfile(path):
        raise NotImplementedError("cutlass-evt: no CUTLASS EVT implementation in this checkout")
    s = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(s)
    sys.modules[name] = m
    try:
        s.loader.exec_module(m)
    except BaseException:
        del sys.modules[name]  # a failed import is not cached half-done
        raise
    return m


def _cutlass_factory(v, dtype):
    return _cutlass_module().CutlassEVT(v, dtype, dims)


VARIANTS = {
    "eager": Eager,
    "compiled": Compiled,
    "compiled-max-autotune": CompiledMaxAutotune,
    "triton-epilogue": TritonEpilogue,
    "triton-gate-epilogue": TritonGateEpilogue,
    "cutlass-evt": _cutlass_factory,
    "quack-epilogue": QuackEpilogue,
}


def bench_rows(v, ctx):
    BT, d, HD, nH = dims(v)
    N1 = 4 * HD + nH
    f1, f2 = 2 * BT * N1 * d, 2 * BT * d * HD
    c1, c2 = ctx.cublas_ms(BT, N1, d), ctx.cublas_ms(BT, d, HD)
    rows = []
    ms = ctx.time_variant("triton-epilogue")
    rows.append(ctx.gemm_row("triton-epilogue (both GEMMs, vs the two cuBLAS GEMMs)", ms, f1 + f2, (f1 + f2) / ((c1 + c2) * 1e-3) / 1e12))
    Na, fa, fg = 3 * HD + nH, 2 * BT * (3 * HD + nH) * d, 2 * BT * HD * d
    ca, cg = ctx.cublas_ms(BT, Na, d), ctx.cublas_ms(BT, HD, d)
    ms = ctx.time_variant("triton-gate-epilogue")
    rows.append(ctx.gemm_row("triton-gate-epilogue (3 GEMMs, vs the three cuBLAS GEMMs)", ms, fa + fg + f2,
                             (fa + fg + f2) / ((ca + cg + c2) * 1e-3) / 1e12))
    e = 2
    bf = torch.bfloat16
    for impl, lay in (("tma-store", "kn"), ("tma-store", "nk"), ("tma", "kn"), ("tma-persistent", "kn"), ("ptr", "kn")):
        def mk1(lay=lay):
            return (torch.randn((BT, d), device="cuda").to(bf), tk.weight_for((torch.randn((d, N1), device="cuda") * d ** -0.5).to(bf), lay),
                    torch.empty((BT, N1), device="cuda", dtype=bf))
        ms1 = ctx.time_fn(lambda s, impl=impl: tk.mm_epi(s[0], s[1], s[2], epi=tk.EPI_SEGMENTS, seg=(3 * HD, 3 * HD, 4 * HD), impl=impl),
                          mk1, e * (BT * d + d * N1 + BT * N1))
        rows.append(ctx.gemm_row(f"  GEMM1 x@W_in, SiLU/sigmoid epilogue ({BT}x{N1}x{d}) {impl} W:{lay}", ms1, f1, ctx.cublas_tflops(BT, N1, d)))

        def mk2(lay=lay):
            return (torch.randn((BT, HD), device="cuda").to(bf), torch.randn((BT, HD), device="cuda").to(bf),
                    tk.weight_for((torch.randn((HD, d), device="cuda") * HD ** -0.5).to(bf), lay), torch.randn((BT, d), device="cuda").to(bf),
                    torch.empty((BT, d), device="cuda", dtype=bf))
        ms2 = ctx.time_fn(lambda s, impl=impl: tk.mm_epi(s[0], s[2], s[4], epi=tk.EPI_ADD_AUX, aux=s[3], gate=s[1], impl=impl),
                          mk2, e * (2 * BT * HD + HD * d + 2 * BT * d))
        rows.append(ctx.gemm_row(f"  GEMM2 (o*gate)@W_O + x ({BT}x{d}x{HD}) {impl} W:{lay}", ms2, f2, ctx.cublas_tflops(BT, d, HD)))
    def mkg():
        return (torch.randn((BT, d), device="cuda").to(bf), tk.weight_for((torch.randn((d, HD), device="cuda") * d ** -0.5).to(bf)),
                torch.randn((BT, HD), device="cuda").to(bf), torch.empty((BT, HD), device="cuda", dtype=bf),
                torch.empty((BT, HD), device="cuda", dtype=bf))
    msg = ctx.time_fn(lambda s: tk.mm_epi(s[0], s[1], s[3], epi=tk.EPI_GATE, aux=s[2], c2=s[4]), mkg, e * (BT * d + d * HD + 3 * BT * HD))
    rows.append(ctx.gemm_row(f"  gate GEMM x@W_g, silu + gating epilogue ({BT}x{HD}x{d}) tma-store", msg, fg, ctx.cublas_tflops(BT, HD, d)))

    def mkr():
        return (torch.randn((BT, HD), device="cuda").to(bf), tk.weight_for((torch.randn((HD, d), device="cuda") * HD ** -0.5).to(bf)),
                torch.randn((BT, d), device="cuda").to(bf), torch.empty((BT, d), device="cuda", dtype=bf))
    msr = ctx.time_fn(lambda s: tk.mm_epi(s[0], s[1], s[3], epi=tk.EPI_ADD_AUX, aux=s[2]), mkr, e * (BT * HD + HD * d + 2 * BT * d))
    rows.append(ctx.gemm_row(f"  out GEMM go@W_O + x, no prologue ({BT}x{d}x{HD}) auto", msr, f2, ctx.cublas_tflops(BT, d, HD)))

    def mk0():
        return (torch.randn((BT, d), device="cuda").to(bf), (torch.randn((d, N1), device="cuda") * d ** -0.5).to(bf),
                torch.empty((BT, N1), device="cuda", dtype=bf))
    ms0 = ctx.time_fn(lambda s: tk.mm_epi(s[0], s[1], s[2]), mk0, e * (BT * d + d * N1 + BT * N1))
    rows.append(ctx.gemm_row(f"  plain Triton GEMM, no epilogue ({BT}x{N1}x{d}), auto", ms0, f1, ctx.cublas_tflops(BT, N1, d)))
    rows += _cutlass_rows(v, ctx)
    return rows


def _cutlass_rows(v, ctx):
    """The cutlass-evt variant and each of its EVT GEMMs alone, against cuBLAS on the same
    shape (only where nvidia-cutlass is installed)."""
    import importlib.util
    if importlib.util.find_spec("cutlass_cppgen") is None:
        ctx.notes.append("cutlass-evt: nvidia-cutlass not installed, no CUTLASS rows")
        return []
    BT, d, HD, nH = dims(v)
    rows = []
    fq, fg, fa, fo = 2 * BT * 3 * HD * d, 2 * BT * HD * d, 2 * BT * nH * d, 2 * BT * d * HD
    cub = sum(ctx.cublas_ms(BT, n, k) for n, k in ((3 * HD, d), (HD, d), (nH, d), (d, HD)))
    ms = ctx.time_variant("cutlass-evt")
    rows.append(ctx.gemm_row("cutlass-evt (4 GEMMs + torch.mul, vs the four cuBLAS GEMMs)", ms, fq + fg + fa + fo,
                             (fq + fg + fa + fo) / (cub * 1e-3) / 1e12))
    mod = _cutlass_module()
    bf = torch.bfloat16
    for kind, N, K in (("plain", 3 * HD, d), ("silu", HD, d), ("sigmoid", nH, d), ("residual", d, HD)):
        try:
            p, run = mod.gemm_alone(bf, BT, N, K, kind)
        except Exception as err:  # noqa: BLE001
            rows.append({"name": f"  CUTLASS {kind}", "error": f"{type(err).__name__}: {err}"})
            continue

        def mk(N=N, K=K):
            return (torch.randn((BT, K), device="cuda").to(bf), (torch.randn((K, N), device="cuda") * K ** -0.5).to(bf),
                    torch.empty((BT, N), device="cuda", dtype=bf), torch.randn((BT, N), device="cuda").to(bf),
                    torch.empty((BT, N), device="cuda", dtype=bf))
        try:
            ms = ctx.time_fn(run, mk, 2 * (BT * K + K * N + 3 * BT * N), graph=False)
        except Exception as err:  # noqa: BLE001 - a kernel that does not build is a row, not the end of the bench
            rows.append({"name": f"  CUTLASS {kind}", "error": f"{type(err).__name__}: {str(err)[:200]}"})
            continue
        desc = mod.describe(p.operation.tile_description)
        rows.append(ctx.gemm_row(f"  CUTLASS {kind} GEMM ({BT}x{N}x{K}) {desc}", ms, 2 * BT * N * K, ctx.cublas_tflops(BT, N, K)))
    return rows
