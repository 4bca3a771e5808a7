"""Memory-bound elementwise Triton kernels (the unfused baselines' activation kernels).
Launched through tk_launch.launch_jit, the same launch path (plans) as the fused GEMMs.
"""
from __future__ import annotations

import triton
import triton.language as tl
from .tk_launch import launch_jit


@triton.jit
def _silu_mul_kernel(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(o_ptr + offs, (x * tl.sigmoid(x) * y).to(o_ptr.dtype.element_ty), mask=m)


def silu_mul(x, y, out):
    """out = silu(x) * y, one pass; contiguous tensors of equal shape."""
    assert x.is_contiguous() and y.is_contiguous() and out.is_contiguous() and x.shape == y.shape == out.shape
    n = x.numel()
    BLOCK = 4096
    launch_jit(_silu_mul_kernel, (triton.cdiv(n, BLOCK),), (x, y, out, n), BLOCK=BLOCK, num_warps=8)
    return out


@triton.jit
def _l2norm_heads_kernel(x_ptr, o_ptr, R, s_xr, s_or, HEAD: tl.constexpr, ROWS: tl.constexpr):
    pid_r = tl.program_id(0)
    h = tl.program_id(1)
    rows = pid_r * ROWS + tl.arange(0, ROWS)
    cols = h * HEAD + tl.arange(0, HEAD)
    m = rows[:, None] < R
    x = tl.load(x_ptr + rows[:, None].to(tl.int64) * s_xr + cols[None, :], mask=m, other=0.0).to(tl.float32)
    nrm = tl.maximum(tl.sqrt(tl.sum(x * x, axis=1)), 1e-12)
    tl.store(o_ptr + rows[:, None].to(tl.int64) * s_or + cols[None, :], (x / nrm[:, None]).to(o_ptr.dtype.element_ty), mask=m)


def l2norm_heads(x, out, head):
    """out[r, h*head:(h+1)*head] = x[r, ...] / max(||x[r, ...]||, 1e-12); unit column stride."""
    R, C = x.shape
    assert C % head == 0 and x.stride(1) == 1 and out.stride(1) == 1 and out.shape == x.shape
    ROWS = 32
    launch_jit(_l2norm_heads_kernel, (triton.cdiv(R, ROWS), C // head), (x, out, R, x.stride(0), out.stride(0)),
               HEAD=head, ROWS=ROWS, num_warps=4)
    return out


@triton.jit
def _act_bwd_saved_kernel(z_ptr, dk_ptr, dg_ptr, o_ptr, R, n_norm, s_zr, s_kr, s_gr, s_or,
                          HEAD: tl.constexpr, ROWS: tl.constexpr):
    pid_r = tl.program_id(0)
    h = tl.program_id(1)
    rows = pid_r * ROWS + tl.arange(0, ROWS)
    r64 = rows[:, None].to(tl.int64)
    cols = h * HEAD + tl.arange(0, HEAD)
    m = rows[:, None] < R
    z = tl.load(z_ptr + r64 * s_zr + cols[None, :], mask=m, other=0.0).to(tl.float32)
    if h * HEAD < n_norm:  # per-head L2 norm: dz = (dy - y<y,dy>) / ||z||, y = z / ||z||
        dy = tl.load(dk_ptr + r64 * s_kr + cols[None, :], mask=m, other=0.0).to(tl.float32)
        nrm = tl.maximum(tl.sqrt(tl.sum(z * z, axis=1)), 1e-12)
        y = z / nrm[:, None]
        dz = (dy - y * tl.sum(y * dy, axis=1)[:, None]) / nrm[:, None]
    else:  # SiLU: dz = dy s (1 + z (1 - s)), s = sigmoid(z)
        dy = tl.load(dg_ptr + r64 * s_gr + (cols[None, :] - n_norm), mask=m, other=0.0).to(tl.float32)
        sg = tl.sigmoid(z)
        dz = dy * sg * (1.0 + z * (1.0 - sg))
    tl.store(o_ptr + r64 * s_or + cols[None, :], dz.to(o_ptr.dtype.element_ty), mask=m)


def act_bwd_saved(z, dk, dg, out, head):
    """The activation gradients from saved pre-activations, one pass: z [R, n_norm + n_silu]
    holds the per-head L2-normalised segment's pre-activations (n_norm columns, heads of
    `head`) then the SiLU segment's; dk [R, n_norm] and dg [R, n_silu] are the upstream
    gradients; out [R, n_norm + n_silu] (any row stride) gets dz. The same formulas as
    tk_gemm's EPI_ACT_BWD epilogue, without its GEMM."""
    R, C = z.shape
    n_norm = dk.shape[1]
    assert C % head == 0 and n_norm % head == 0 and dg.shape == (R, C - n_norm) and out.shape == z.shape
    assert z.stride(1) == 1 and dk.stride(1) == 1 and dg.stride(1) == 1 and out.stride(1) == 1
    ROWS = 32
    launch_jit(_act_bwd_saved_kernel, (triton.cdiv(R, ROWS), C // head),
               (z, dk, dg, out, R, n_norm, z.stride(0), dk.stride(0), dg.stride(0), out.stride(0)),
               HEAD=head, ROWS=ROWS, num_warps=4)
    return out
