"""Linear RNN layer (seed 004): projection, gated diagonal scan, SiLU output gate.

x: [B, T, d]; W: [d, 3 dv] -> z = x W = [u | f | g] (each [B, T, dv])
a_t = sigmoid(f_t);  h_t = a_t * h_{t-1} + (1 - a_t) * u_t  (h_{-1} = 0);  y = h * SiLU(g)
Output y: [B, T, dv]. fp16 in and out, fp32 arithmetic inside the kernels.
Every Triton kernel here is launched through common.tk_launch.launch_jit (launch plans),
as the shared kernels are.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from common.impl import Impl, randn
from common.tk_launch import launch_jit


def make_inputs(v, dtype, gen, backward=False):
    B, T, d, dv = v["B"], v["T"], v["d"], v["dv"]
    return {"x": randn((B, T, d), gen, dtype), "W": randn((d, 3 * dv), gen, dtype, d ** -0.5)}


def _scan_ref(z, dv):
    u, f, g = z[..., :dv], z[..., dv:2 * dv], z[..., 2 * dv:]
    a = torch.sigmoid(f)
    bb = (1 - a) * u
    h = torch.zeros_like(u[:, 0])
    hs = torch.empty_like(u)
    for t in range(u.shape[1]):
        h = a[:, t] * h + bb[:, t]
        hs[:, t] = h
    return hs * F.silu(g)


def reference(v, inp, backward=False):
    z = inp["x"].float() @ inp["W"].float()
    return {"y": _scan_ref(z, v["dv"])}


@triton.jit
def _combine(a1, b1, a2, b2):
    return a1 * a2, a2 * b1 + b2


@triton.jit
def _scan_gate_kernel(z_ptr, o_ptr, T, s_zb, s_zt, s_ob, s_ot,
                      DV: tl.constexpr, GATE: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr):
    """One program per (batch, channel block): chunks of BLOCK_T steps, each an
    associative scan of (a, (1-a) u), carried across chunks in h."""
    b = tl.program_id(0)
    cb = tl.program_id(1)
    cols = cb * BLOCK_C + tl.arange(0, BLOCK_C)
    rows = tl.arange(0, BLOCK_T)
    h = tl.zeros((BLOCK_C,), dtype=tl.float32)
    zb = z_ptr + b.to(tl.int64) * s_zb
    ob = o_ptr + b.to(tl.int64) * s_ob
    for t0 in range(0, T, BLOCK_T):
        r = t0 + rows
        p = zb + r[:, None] * s_zt + cols[None, :]
        u = tl.load(p).to(tl.float32)
        f = tl.load(p + DV).to(tl.float32)
        a = tl.sigmoid(f)
        A, Bc = tl.associative_scan((a, (1.0 - a) * u), axis=0, combine_fn=_combine)
        hs = A * h[None, :] + Bc
        if GATE:
            g = tl.load(p + 2 * DV).to(tl.float32)
            y = hs * g * tl.sigmoid(g)
        else:
            y = hs
        tl.store(ob + r[:, None] * s_ot + cols[None, :], y.to(o_ptr.dtype.element_ty))
        h = tl.sum(tl.where(rows[:, None] == BLOCK_T - 1, hs, 0.0), axis=0)


@triton.jit
def _gate_kernel(h_ptr, z_ptr, o_ptr, R, s_hr, s_zr, s_or, DV: tl.constexpr, BLOCK_R: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, DV)
    m = r[:, None] < R
    r64 = r.to(tl.int64)[:, None]
    h = tl.load(h_ptr + r64 * s_hr + c[None, :], mask=m, other=0.0).to(tl.float32)
    g = tl.load(z_ptr + r64 * s_zr + 2 * DV + c[None, :], mask=m, other=0.0).to(tl.float32)
    tl.store(o_ptr + r64 * s_or + c[None, :], (h * g * tl.sigmoid(g)).to(o_ptr.dtype.element_ty), mask=m)


@triton.jit
def _mega_kernel(x_ptr, w_ptr, o_ptr, T, s_xb, s_xt, s_wk, s_ob, s_ot,
                 D: tl.constexpr, DV: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr, BLOCK_K: tl.constexpr):
    """Whole layer in one kernel: per chunk of BLOCK_T steps, z = x_chunk @ W[:, cols]
    with tl.dot (three accumulators u, f, g), then the chunk's associative scan and gate."""
    b = tl.program_id(0)
    cb = tl.program_id(1)
    cols = cb * BLOCK_C + tl.arange(0, BLOCK_C)
    rows = tl.arange(0, BLOCK_T)
    ks = tl.arange(0, BLOCK_K)
    h = tl.zeros((BLOCK_C,), dtype=tl.float32)
    xb = x_ptr + b.to(tl.int64) * s_xb
    ob = o_ptr + b.to(tl.int64) * s_ob
    for t0 in range(0, T, BLOCK_T):
        r = t0 + rows
        au = tl.zeros((BLOCK_T, BLOCK_C), dtype=tl.float32)
        af = tl.zeros((BLOCK_T, BLOCK_C), dtype=tl.float32)
        ag = tl.zeros((BLOCK_T, BLOCK_C), dtype=tl.float32)
        for k0 in range(0, D, BLOCK_K):
            xk = tl.load(xb + r[:, None] * s_xt + (k0 + ks)[None, :])
            wp = w_ptr + (k0 + ks)[:, None] * s_wk + cols[None, :]
            au = tl.dot(xk, tl.load(wp), au)
            af = tl.dot(xk, tl.load(wp + DV), af)
            ag = tl.dot(xk, tl.load(wp + 2 * DV), ag)
        # Round like the unfused path, whose GEMM writes z in the input dtype.
        u = au.to(x_ptr.dtype.element_ty).to(tl.float32)
        f = af.to(x_ptr.dtype.element_ty).to(tl.float32)
        g = ag.to(x_ptr.dtype.element_ty).to(tl.float32)
        a = tl.sigmoid(f)
        A, Bc = tl.associative_scan((a, (1.0 - a) * u), axis=0, combine_fn=_combine)
        hs = A * h[None, :] + Bc
        tl.store(ob + r[:, None] * s_ot + cols[None, :], (hs * g * tl.sigmoid(g)).to(o_ptr.dtype.element_ty))
        h = tl.sum(tl.where(rows[:, None] == BLOCK_T - 1, hs, 0.0), axis=0)


SCAN_BT, SCAN_BC = 256, 16


def scan(z, out, dv, gate):
    B, T, _ = z.shape
    assert T % SCAN_BT == 0 and dv % SCAN_BC == 0 and z.stride(2) == 1 and out.stride(2) == 1
    launch_jit(_scan_gate_kernel, (B, dv // SCAN_BC), (z, out, T, z.stride(0), z.stride(1), out.stride(0), out.stride(1)),
               DV=dv, GATE=gate, BLOCK_T=SCAN_BT, BLOCK_C=SCAN_BC, num_warps=4)
    return out


def gate(h, z, out, dv):
    B, T, _ = z.shape
    R = B * T
    BLOCK_R = 64
    launch_jit(_gate_kernel, (triton.cdiv(R, BLOCK_R),), (h, z, out, R, h.stride(1), z.stride(1), out.stride(1)),
               DV=dv, BLOCK_R=BLOCK_R, num_warps=4)
    return out


def mega(x, W, out, dv, BLOCK_T=64, BLOCK_C=16, BLOCK_K=64):
    B, T, d = x.shape
    assert T % BLOCK_T == 0 and d % BLOCK_K == 0 and dv % BLOCK_C == 0 and x.is_contiguous() and W.is_contiguous()
    launch_jit(_mega_kernel, (B, dv // BLOCK_C),
               (x, W, out, T, x.stride(0), x.stride(1), W.stride(0), out.stride(0), out.stride(1)),
               D=d, DV=dv, BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C, BLOCK_K=BLOCK_K, num_warps=4)
    return out


class _Base(Impl):
    def alloc(self, st):
        B, T, dv = self.v["B"], self.v["T"], self.v["dv"]
        e = lambda c: torch.empty((B, T, c), device="cuda", dtype=self.dtype)
        return {"z": e(3 * dv), "h": e(dv), "y": e(dv)}

    def gemm(self, st, out):
        B, T, d = st["x"].shape
        torch.mm(st["x"].view(B * T, d), st["W"], out=out["z"].view(B * T, -1))


class ThreeKernel(_Base):
    """cuBLAS GEMM, Triton gated scan (writes h), Triton SiLU gate: 3 launches."""

    def run(self, st, out):
        self.gemm(st, out)
        scan(out["z"], out["h"], self.v["dv"], gate=False)
        gate(out["h"], out["z"], out["y"], self.v["dv"])
        return {"y": out["y"]}


class SemiFused(_Base):
    """cuBLAS GEMM plus one fused scan+gate Triton kernel: 2 launches."""

    def run(self, st, out):
        self.gemm(st, out)
        scan(out["z"], out["y"], self.v["dv"], gate=True)
        return {"y": out["y"]}


class Mega(Impl):
    """The whole layer in one Triton kernel (chunked: tl.dot per chunk of 64 steps, then its scan)."""

    def alloc(self, st):
        return {"y": torch.empty((self.v["B"], self.v["T"], self.v["dv"]), device="cuda", dtype=self.dtype)}

    def run(self, st, out):
        mega(st["x"], st["W"], out["y"], self.v["dv"])
        return {"y": out["y"]}


class FLA(_Base):
    """flash-linear-attention's HGRN recurrence (h_t = exp(g_t) h_{t-1} + x_t) as the scan:
    cuBLAS GEMM, PyTorch elementwise for log a and (1-a) u, fla's fused_recurrent_hgrn, SiLU gate."""

    def __init__(self, v, dtype):
        super().__init__(v, dtype)
        from fla.ops.hgrn import fused_recurrent_hgrn
        self.hgrn = fused_recurrent_hgrn

    def run(self, st, out):
        self.gemm(st, out)
        dv = self.v["dv"]
        z = out["z"]
        u, f, g = z[..., :dv], z[..., dv:2 * dv], z[..., 2 * dv:]
        xin = torch.sigmoid(-f.float()) * u.float()
        o = self.hgrn(xin, F.logsigmoid(f.float()))
        o = o[0] if isinstance(o, tuple) else o
        return {"y": (o * F.silu(g.float())).to(self.dtype)}


VARIANTS = {"three-kernel": ThreeKernel, "semi-fused": SemiFused, "megakernel": Mega, "fla-hgrn": FLA}


def bench_rows(v, ctx):
    B, T, d, dv = v["B"], v["T"], v["d"], v["dv"]
    e = 2
    rows = []
    for name in ("three-kernel", "semi-fused", "megakernel"):
        ms = ctx.time_variant(name)
        nb = e * (B * T * d + d * 3 * dv + B * T * dv)
        rows.append(ctx.bw_row(f"{name} (layer, min bytes x+W+y)", ms, nb))
    # The elementwise gate kernel alone, at the cell's size and at a large size.
    for R in (B * T, 1 << 21):
        def mk(R=R):
            return (torch.randn((1, R, dv), device="cuda").half(), torch.randn((1, R, 3 * dv), device="cuda").half(),
                    torch.empty((1, R, dv), device="cuda", dtype=torch.float16))
        nb = e * R * dv * 3  # h, g, y
        ms = ctx.time_fn(lambda s: gate(s[0], s[1], s[2], dv), mk, e * R * dv * 5)
        rows.append(ctx.bw_row(f"gate kernel alone, {R} rows", ms, nb))
    return rows
