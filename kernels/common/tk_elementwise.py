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
