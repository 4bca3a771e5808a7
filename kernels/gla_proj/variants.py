"""GLA input projection chain (seed 002).

x: [B*T, d]. Five projections, three activations:
  Q = x W_Q, K = l2norm_per_head(x W_K), V = x W_V, g = SiLU(x W_g), alpha = sigmoid(x W_alpha)
W_Q, W_K: [d, H dk]; W_V, W_g: [d, H dv]; W_alpha: [d, H n]. l2norm_per_head divides each
head's dk-slice of a row by max(||slice||, 1e-12) (F.normalize).
Forward variants check Q, K, V, g, alpha. The *-fwdbwd variants (backward: true) run the
forward and its backward for random output cotangents and check dx and every dW.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from common import tk
from common.impl import Impl, compiled, randn

NAMES = ("Q", "K", "V", "g", "alpha")
WNAMES = ("W_Q", "W_K", "W_V", "W_g", "W_alpha")
# Column order of the wide weight: the identity segments first, then the activated ones.
WIDE_ORDER = ("Q", "V", "K", "g", "alpha")


def dims(v):
    return v["B"] * v["T"], v["d"], v["H"] * v["dk"], v["H"] * v["dv"], v["H"] * v["n"]


def widths(v):
    BT, d, HK, HV, HN = dims(v)
    return {"Q": HK, "K": HK, "V": HV, "g": HV, "alpha": HN}


def make_inputs(v, dtype, gen, backward=False):
    BT, d, HK, HV, HN = dims(v)
    w = widths(v)
    inp = {"x": randn((BT, d), gen, dtype)}
    for n, wn in zip(NAMES, WNAMES):
        inp[wn] = randn((d, w[n]), gen, dtype, d ** -0.5)
    if backward:
        for n in NAMES:
            inp["d" + n] = randn((BT, w[n]), gen, dtype)
    return inp


def _forward(x, W_Q, W_K, W_V, W_g, W_alpha, dk):
    BT = x.shape[0]
    k = x @ W_K
    k = F.normalize(k.view(BT, -1, dk), dim=-1).view(BT, -1)
    return {"Q": x @ W_Q, "K": k, "V": x @ W_V, "g": F.silu(x @ W_g), "alpha": torch.sigmoid(x @ W_alpha)}


def _forward_wide(x, W, v):
    BT = x.shape[0]
    w = widths(v)
    z = x @ W
    seg, c = {}, 0
    for n in WIDE_ORDER:
        seg[n] = z[:, c:c + w[n]]
        c += w[n]
    k = F.normalize(seg["K"].reshape(BT, -1, v["dk"]), dim=-1).reshape(BT, -1)
    return {"Q": seg["Q"], "K": k, "V": seg["V"], "g": F.silu(seg["g"]), "alpha": torch.sigmoid(seg["alpha"])}


def _grads(outs, leaves, inp):
    cot = [inp["d" + n] for n in NAMES]
    return torch.autograd.grad([outs[n] for n in NAMES], leaves, cot)


def reference(v, inp, backward=False):
    f = {k: t.float() for k, t in inp.items()}
    if not backward:
        return _forward(f["x"], *(f[w] for w in WNAMES), v["dk"])
    leaves = [f["x"].requires_grad_()] + [f[w].requires_grad_() for w in WNAMES]
    with torch.enable_grad():
        outs = _forward(f["x"], *leaves[1:], v["dk"])
        gr = _grads(outs, leaves, f)
    return {"dx": gr[0], **{"d" + w: g for w, g in zip(WNAMES, gr[1:])}}


def _wide_weight(inp):
    idx = dict(zip(NAMES, WNAMES))
    return torch.cat([inp[idx[n]] for n in WIDE_ORDER], dim=1).contiguous()


def _seg_bounds(v):
    w = widths(v)
    s_norm = w["Q"] + w["V"]
    s_silu = s_norm + w["K"]
    s_sig = s_silu + w["g"]
    return s_norm, s_silu, s_sig


def _split_grads(v, dx, dW):
    """dx and the wide weight's gradient [d, N] split into each projection's dW (WIDE_ORDER)."""
    w = widths(v)
    res, c = {"dx": dx}, 0
    idx = dict(zip(NAMES, WNAMES))
    for n in WIDE_ORDER:
        res["d" + idx[n]] = dW[:, c:c + w[n]]
        c += w[n]
    return res


# ------------------------------------------------------------------ forward

class Unfused(Impl):
    """Five cuBLAS GEMMs, then three activation kernels (Triton per-head L2 norm, SiLU, sigmoid): 8 launches."""

    def alloc(self, st):
        BT = st["x"].shape[0]
        w = widths(self.v)
        e = lambda c: torch.empty((BT, c), device="cuda", dtype=self.dtype)
        return {"Q": e(w["Q"]), "Kraw": e(w["K"]), "V": e(w["V"]), "graw": e(w["g"]), "araw": e(w["alpha"]),
                "K": e(w["K"]), "g": e(w["g"]), "alpha": e(w["alpha"])}

    def run(self, st, out):
        x = st["x"]
        torch.mm(x, st["W_Q"], out=out["Q"])
        torch.mm(x, st["W_K"], out=out["Kraw"])
        torch.mm(x, st["W_V"], out=out["V"])
        torch.mm(x, st["W_g"], out=out["graw"])
        torch.mm(x, st["W_alpha"], out=out["araw"])
        tk.l2norm_heads(out["Kraw"], out["K"], self.v["dk"])
        torch.ops.aten.silu.out(out["graw"], out=out["g"])
        torch.sigmoid(out["araw"], out=out["alpha"])
        return {n: out[n] for n in NAMES}


class WideGemm(Impl):
    """One wide cuBLAS GEMM x @ [W_Q|W_V|W_K|W_g|W_alpha], split by views, three activation kernels: 4 launches."""

    def prepare(self, inp):
        st = dict(inp)
        st["W"] = _wide_weight(inp)
        return st

    def alloc(self, st):
        BT = st["x"].shape[0]
        w = widths(self.v)
        e = lambda c: torch.empty((BT, c), device="cuda", dtype=self.dtype)
        return {"z": e(st["W"].shape[1]), "K": e(w["K"]), "g": e(w["g"]), "alpha": e(w["alpha"])}

    def run(self, st, out):
        z = out["z"]
        torch.mm(st["x"], st["W"], out=z)
        s_norm, s_silu, s_sig = _seg_bounds(self.v)
        HK = widths(self.v)["Q"]
        tk.l2norm_heads(z[:, s_norm:s_silu], out["K"], self.v["dk"])
        torch.ops.aten.silu.out(z[:, s_silu:s_sig], out=out["g"])
        torch.sigmoid(z[:, s_sig:], out=out["alpha"])
        return {"Q": z[:, :HK], "V": z[:, HK:s_norm], "K": out["K"], "g": out["g"], "alpha": out["alpha"]}


class Compiled(Impl):
    """torch.compile (default mode) of the five-GEMM forward, compiled once per shape."""
    graph_ok = False

    def run(self, st, out):
        fn = compiled(("gla_proj", "fwd", tuple(sorted(self.v.items()))), _forward)
        return fn(st["x"], *(st[w] for w in WNAMES), self.v["dk"])


class CompiledMaxAutotune(Impl):
    """torch.compile(mode="max-autotune-no-cudagraphs") of the five-GEMM forward: Inductor's
    autotuned Triton GEMM templates with the activations fused into their epilogues where it
    can; no CUDA graphs, launched as every other variant."""
    graph_ok = False

    def run(self, st, out):
        fn = compiled(("gla_proj", "fwd", "max-autotune", tuple(sorted(self.v.items()))), _forward,
                      mode="max-autotune-no-cudagraphs")
        return fn(st["x"], *(st[w] for w in WNAMES), self.v["dk"])


class WideGemmEpilogue(Impl):
    """One Triton wide GEMM applying each segment's activation in its epilogue
    (identity | per-head L2 norm over a 128-column tile | SiLU | sigmoid): 1 launch."""

    def prepare(self, inp):
        st = dict(inp)
        st["W"] = tk.weight_for(_wide_weight(inp))
        return st

    def alloc(self, st):
        return {"z": torch.empty((st["x"].shape[0], st["W"].shape[1]), device="cuda", dtype=self.dtype)}

    def run(self, st, out):
        z = out["z"]
        seg = _seg_bounds(self.v)
        tk.mm_epi(st["x"], st["W"], z, epi=tk.EPI_SEGMENTS, seg=seg, head=self.v["dk"])
        HK = widths(self.v)["Q"]
        s_norm, s_silu, s_sig = seg
        return {"Q": z[:, :HK], "V": z[:, HK:s_norm], "K": z[:, s_norm:s_silu], "g": z[:, s_silu:s_sig], "alpha": z[:, s_sig:]}


class QuackEpilogue(Impl):
    """One quack (CuTe DSL) wide GEMM x @ [W_Q|W_V|W_K|W_g|W_alpha] applying each segment's
    activation in its epilogue: D = acc * (ident + knorm * rstd + silu * s) + sig * s, with s
    = sigmoid(acc), rstd the per-(row, head) rsqrt of the mean square over each dk-column
    head (quack's HeadRstd prepass over the accumulator), and ident / knorm (= dk^-1/2) / silu
    / sig per-column vectors of the segments: 1 launch."""

    def prepare(self, inp):
        from common import qk
        st = dict(inp)
        W = _wide_weight(inp)
        N = W.shape[1]
        s_norm, s_silu, s_sig = _seg_bounds(self.v)
        st["W"] = qk.nk(W)
        st["ident"] = qk.seg_vector(N, [(0, s_norm)])
        st["knorm"] = qk.seg_vector(N, [(s_norm, s_silu)]) * self.v["dk"] ** -0.5
        st["silu"] = qk.seg_vector(N, [(s_silu, s_sig)])
        st["sig"] = qk.seg_vector(N, [(s_sig, N)])
        return st

    def alloc(self, st):
        return {"z": torch.empty((st["x"].shape[0], st["W"].shape[1]), device="cuda", dtype=self.dtype)}

    def run(self, st, out):
        from common import qk
        z = out["z"]
        qk.run(qk.gla_epi, st["x"], st["W"], {"D": z}, "gla-wide", qk=self.v["dk"], ident=st["ident"],
               knorm=st["knorm"], silu=st["silu"], sig=st["sig"])
        HK = widths(self.v)["Q"]
        s_norm, s_silu, s_sig = _seg_bounds(self.v)
        return {"Q": z[:, :HK], "V": z[:, HK:s_norm], "K": z[:, s_norm:s_silu], "g": z[:, s_silu:s_sig], "alpha": z[:, s_sig:]}


# ------------------------------------------------------------------ forward + backward

class _FwdBwd(Impl):
    graph_ok = False

    def prepare(self, inp):
        st = {k: t for k, t in inp.items()}
        st["x"] = inp["x"].detach().clone().requires_grad_()
        for w in WNAMES:
            st[w] = inp[w].detach().clone().requires_grad_()
        return st


class UnfusedFwdBwd(_FwdBwd):
    """Eager autograd through five GEMMs, F.normalize, SiLU, sigmoid."""

    def run(self, st, out):
        leaves = [st["x"]] + [st[w] for w in WNAMES]
        with torch.enable_grad():
            outs = _forward(st["x"], *leaves[1:], self.v["dk"])
            gr = _grads(outs, leaves, st)
        return {"dx": gr[0], **{"d" + w: g for w, g in zip(WNAMES, gr[1:])}}


class WideGemmFwdBwd(_FwdBwd):
    """Eager autograd through one wide GEMM (one concatenated weight), split, activations."""

    def prepare(self, inp):
        st = {k: t for k, t in inp.items()}
        st["x"] = inp["x"].detach().clone().requires_grad_()
        st["W"] = _wide_weight(inp).requires_grad_()
        return st

    def _fwd(self, x, W):
        return _forward_wide(x, W, self.v)

    def run(self, st, out):
        with torch.enable_grad():
            outs = self._fwd(st["x"], st["W"])
            dx, dW = _grads(outs, [st["x"], st["W"]], st)
        return _split_grads(self.v, dx, dW)


class WideGemmEpilogueFwdBwd(WideGemmEpilogue):
    """Forward: the fused wide GEMM of wide-gemm-epilogue (one Triton launch, activations in
    its epilogue, no pre-activation kept). Backward, with the activation gradients fused
    into a GEMM epilogue too: one Triton GEMM recomputes the K and g pre-activations
    x @ W[:, K|g] and its epilogue turns dK, dg into their pre-activation gradients, written
    straight into the wide gradient dZ (per-head L2 norm: (dy - y<y,dy>)/||z||; SiLU:
    dy s(1 + z(1 - s))); dQ and dV are copied into dZ, alpha's gradient dy y(1 - y) comes
    from the forward output (aten sigmoid_backward); then dx = dZ W^T and dW = x^T dZ with
    cuBLAS. 7 launches."""
    graph_ok = False

    def alloc(self, st):
        BT, d = st["x"].shape
        N = st["W"].shape[1]
        e = lambda *s: torch.empty(s, device="cuda", dtype=self.dtype)
        return {"y": e(BT, N), "dZ": e(BT, N), "dx": e(BT, d), "dW": e(d, N)}

    def run(self, st, out):
        seg = _seg_bounds(self.v)
        self._forward_kg(st, out, seg)
        x, W, y, dZ = st["x"], st["W"], out["y"], out["dZ"]
        s_norm, _, s_sig = seg
        HK = widths(self.v)["Q"]
        dZ[:, :HK].copy_(st["dQ"])
        dZ[:, HK:s_norm].copy_(st["dV"])
        torch.ops.aten.sigmoid_backward.grad_input(st["dalpha"], y[:, s_sig:], grad_input=dZ[:, s_sig:])
        torch.mm(dZ, W.t(), out=out["dx"])
        torch.mm(x.t(), dZ, out=out["dW"])
        return _split_grads(self.v, out["dx"], out["dW"])

    def _forward_kg(self, st, out, seg):
        """The forward into y, and the K and g segments' pre-activation gradients into dZ."""
        x, W = st["x"], st["W"]
        s_norm, s_silu, s_sig = seg
        dk = self.v["dk"]
        tk.mm_epi(x, W, out["y"], epi=tk.EPI_SEGMENTS, seg=seg, head=dk)  # forward
        tk.mm_epi(x, W[:, s_norm:s_sig], out["dZ"][:, s_norm:s_sig], epi=tk.EPI_ACT_BWD, aux=st["dK"], c2=st["dg"],
                  seg=(0, s_silu - s_norm, s_sig - s_norm), head=dk)


class WideGemmEpilogueSaveFwdBwd(WideGemmEpilogueFwdBwd):
    """wide-gemm-epilogue-fwdbwd with the K and g pre-activations saved instead of recomputed:
    the forward's epilogue also stores x @ W[:, K|g] (before the L2 norm and SiLU) through a
    second TMA store; the backward turns dK, dg into their pre-activation gradients in one
    elementwise pass over the saved values (tk.act_bwd_saved, the formulas of the recompute
    variant's epilogue), written straight into the wide gradient dZ; the rest as there.
    Trades the recompute GEMM (2 BT d (HK + HV) FLOPs) for one store and one load of
    BT (HK + HV) bf16 values. 7 launches."""

    def alloc(self, st):
        out = super().alloc(st)
        s_norm, _, s_sig = _seg_bounds(self.v)
        out["zs"] = torch.empty((st["x"].shape[0], s_sig - s_norm), device="cuda", dtype=self.dtype)
        return out

    def _forward_kg(self, st, out, seg):
        s_norm, _, s_sig = seg
        dk = self.v["dk"]
        zs = out["zs"]
        tk.mm_epi(st["x"], st["W"], out["y"], epi=tk.EPI_SEGMENTS_SAVE, seg=seg, head=dk, c2=zs)  # forward, pre-activations kept
        tk.act_bwd_saved(zs, st["dK"], st["dg"], out["dZ"][:, s_norm:s_sig], dk)


class QuackEpilogueFwdBwd(WideGemmEpilogueFwdBwd):
    """wide-gemm-epilogue-fwdbwd with the forward's wide GEMM from quack: one quack (CuTe
    DSL) GEMM applying each segment's activation in its epilogue (quack-epilogue's). The
    backward is wide-gemm-epilogue-fwdbwd's: the Triton GEMM recomputing the K and g
    pre-activations with their activation gradients in its epilogue (the per-head L2 norm's
    gradient needs each head's <y, dy>, which quack's epilogue has no reduction for), dQ/dV
    copies, alpha's sigmoid backward, cuBLAS dX and dW GEMMs."""

    def prepare(self, inp):
        from common import qk
        st = super().prepare(inp)
        W = _wide_weight(inp)
        N = W.shape[1]
        s_norm, s_silu, s_sig = _seg_bounds(self.v)
        st["Wq"] = qk.nk(W)
        st["ident"] = qk.seg_vector(N, [(0, s_norm)])
        st["knorm"] = qk.seg_vector(N, [(s_norm, s_silu)]) * self.v["dk"] ** -0.5
        st["silu"] = qk.seg_vector(N, [(s_silu, s_sig)])
        st["sig"] = qk.seg_vector(N, [(s_sig, N)])
        return st

    def _forward_kg(self, st, out, seg):
        from common import qk
        x, W = st["x"], st["W"]
        s_norm, s_silu, s_sig = seg
        dk = self.v["dk"]
        qk.run(qk.gla_epi, x, st["Wq"], {"D": out["y"]}, "gla-wide", qk=dk, ident=st["ident"],
               knorm=st["knorm"], silu=st["silu"], sig=st["sig"])  # forward
        tk.mm_epi(x, W[:, s_norm:s_sig], out["dZ"][:, s_norm:s_sig], epi=tk.EPI_ACT_BWD, aux=st["dK"], c2=st["dg"],
                  seg=(0, s_silu - s_norm, s_sig - s_norm), head=dk)


class CompiledFwdBwd(_FwdBwd):
    """torch.compile of the five-GEMM forward; AOTAutograd compiles its backward."""

    def run(self, st, out):
        fn = compiled(("gla_proj", "fwdbwd", tuple(sorted(self.v.items()))), _forward)
        leaves = [st["x"]] + [st[w] for w in WNAMES]
        with torch.enable_grad():
            outs = fn(st["x"], *leaves[1:], self.v["dk"])
            gr = _grads(outs, leaves, st)
        return {"dx": gr[0], **{"d" + w: g for w, g in zip(WNAMES, gr[1:])}}


VARIANTS = {
    "unfused": Unfused,
    "wide-gemm": WideGemm,
    "compiled": Compiled,
    "compiled-max-autotune": CompiledMaxAutotune,
    "wide-gemm-epilogue": WideGemmEpilogue,
    "quack-epilogue": QuackEpilogue,
    "unfused-fwdbwd": UnfusedFwdBwd,
    "wide-gemm-fwdbwd": WideGemmFwdBwd,
    "compiled-fwdbwd": CompiledFwdBwd,
    "wide-gemm-epilogue-fwdbwd": WideGemmEpilogueFwdBwd,
    "wide-gemm-epilogue-save-fwdbwd": WideGemmEpilogueSaveFwdBwd,
    "quack-epilogue-fwdbwd": QuackEpilogueFwdBwd,
}


def bench_rows(v, ctx):
    BT, d, HK, HV, HN = dims(v)
    N = 2 * HK + 2 * HV + HN
    flops = 2 * BT * N * d
    rows = []
    cub = ctx.cublas_tflops(BT, N, d)
    ms = ctx.time_variant("wide-gemm-epilogue")
    rows.append(ctx.gemm_row(f"wide-gemm-epilogue variant ({BT}x{N}x{d})", ms, flops, cub))
    e = 2
    bf = torch.bfloat16
    seg = _seg_bounds(v)
    for impl, lay in (("tma-store", "kn"), ("tma", "kn"), ("tma-persistent", "kn"), ("ptr", "kn")):
        def mk(lay=lay):
            return (torch.randn((BT, d), device="cuda").to(bf), tk.weight_for((torch.randn((d, N), device="cuda") * d ** -0.5).to(bf), lay),
                    torch.empty((BT, N), device="cuda", dtype=bf))
        ms = ctx.time_fn(lambda s, impl=impl: tk.mm_epi(s[0], s[1], s[2], epi=tk.EPI_SEGMENTS, seg=seg, head=v["dk"], impl=impl),
                         mk, e * (BT * d + d * N + BT * N))
        rows.append(ctx.gemm_row(f"  wide GEMM + segment epilogue, {impl} W:{lay}", ms, flops, cub))

    def mk0():
        return (torch.randn((BT, d), device="cuda").to(bf), (torch.randn((d, N), device="cuda") * d ** -0.5).to(bf),
                torch.empty((BT, N), device="cuda", dtype=bf))
    ms0 = ctx.time_fn(lambda s: tk.mm_epi(s[0], s[1], s[2]), mk0, e * (BT * d + d * N + BT * N))
    rows.append(ctx.gemm_row("  plain Triton GEMM, no epilogue, auto", ms0, flops, cub))

    def mk():
        return (torch.randn((BT, HK), device="cuda").to(bf), torch.empty((BT, HK), device="cuda", dtype=bf))
    ms = ctx.time_fn(lambda s: tk.l2norm_heads(s[0], s[1], v["dk"]), mk, 2 * e * BT * HK)
    rows.append(ctx.bw_row("l2norm_heads (Triton, unfused K activation)", ms, 2 * e * BT * HK))
    return rows
