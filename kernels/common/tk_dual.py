"""Dual-accumulator GEMM kernels: C = silu(A B1) * (A B2) with each A tile loaded once
(bf16/fp16, plain and persistent) and its fp8 e4m3 form with per-tensor scales (TMA).
Launched through tk_launch._launch.
"""
from __future__ import annotations

import triton
import triton.language as tl
from . import knobs
from .tk_gemm import _cfg, _tile_ids
from .tk_launch import TensorDescriptor, _D, _grid, _launch, _tma_ok, autotune, num_sms


DUAL_CONFIGS = [
    _cfg(128, 128, 64, 8, 4),
    _cfg(128, 128, 64, 8, 3),
    _cfg(64, 128, 64, 4, 4),
    _cfg(64, 64, 64, 4, 4),
]


@triton.jit
def _dual_acc_kernel(a_ptr, b1_ptr, b2_ptr, c_ptr, M, N, K,
                     s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    pid_m, pid_n = _tile_ids(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    rm = offs_m % M
    rn = offs_n % N
    a_ptrs = a_ptr + rm[:, None] * s_am + offs_k[None, :] * s_ak
    b1_ptrs = b1_ptr + offs_k[:, None] * s_bk + rn[None, :] * s_bn
    b2_ptrs = b2_ptr + offs_k[:, None] * s_bk + rn[None, :] * s_bn
    acc1 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _k in range(0, K // BLOCK_K):
        a = tl.load(a_ptrs)  # loaded once, used by both products
        b1 = tl.load(b1_ptrs)
        b2 = tl.load(b2_ptrs)
        acc1 = tl.dot(a, b1, acc1)
        acc2 = tl.dot(a, b2, acc2)
        a_ptrs += BLOCK_K * s_ak
        b1_ptrs += BLOCK_K * s_bk
        b2_ptrs += BLOCK_K * s_bk
    y = acc1 * tl.sigmoid(acc1) * acc2
    cm = offs_m[:, None]
    cn = offs_n[None, :]
    tl.store(c_ptr + cm * s_cm + cn * s_cn, y.to(c_ptr.dtype.element_ty), mask=(cm < M) & (cn < N))


@triton.jit
def _dual_acc_persistent_kernel(a_ptr, b1_ptr, b2_ptr, c_ptr, M, N, K,
                                s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                                NUM_SMS: tl.constexpr,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                GROUP_M: tl.constexpr):
    start = tl.program_id(0)
    num_tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    for tile in tl.range(start, num_tiles, NUM_SMS):
        pid_m, pid_n = _tile_ids(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        rm = offs_m % M
        rn = offs_n % N
        a_ptrs = a_ptr + rm[:, None] * s_am + offs_k[None, :] * s_ak
        b1_ptrs = b1_ptr + offs_k[:, None] * s_bk + rn[None, :] * s_bn
        b2_ptrs = b2_ptr + offs_k[:, None] * s_bk + rn[None, :] * s_bn
        acc1 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        acc2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for _k in range(0, K // BLOCK_K):
            a = tl.load(a_ptrs)
            b1 = tl.load(b1_ptrs)
            b2 = tl.load(b2_ptrs)
            acc1 = tl.dot(a, b1, acc1)
            acc2 = tl.dot(a, b2, acc2)
            a_ptrs += BLOCK_K * s_ak
            b1_ptrs += BLOCK_K * s_bk
            b2_ptrs += BLOCK_K * s_bk
        y = acc1 * tl.sigmoid(acc1) * acc2
        cm = offs_m[:, None]
        cn = offs_n[None, :]
        tl.store(c_ptr + cm * s_cm + cn * s_cn, y.to(c_ptr.dtype.element_ty), mask=(cm < M) & (cn < N))


_dual_acc = autotune("_dual_acc", DUAL_CONFIGS, ["M", "N", "K"])(_dual_acc_kernel)
_dual_acc_persistent = autotune("_dual_acc_persistent", DUAL_CONFIGS, ["M", "N", "K"])(_dual_acc_persistent_kernel)


def dual_acc(a, b1, b2, c, persistent=False):
    """c = silu(a @ b1) * (a @ b2); a [M,K], b1/b2 [K,N] with equal strides, c [M,N]."""
    M, K = a.shape
    N = b1.shape[1]
    assert b1.shape == b2.shape == (K, N) and b1.stride() == b2.stride() and c.shape == (M, N)
    assert K % 64 == 0
    args = (a, b1, b2, c, M, N, K, a.stride(0), a.stride(1), b1.stride(0), b1.stride(1), c.stride(0), c.stride(1))
    if persistent:
        sms = num_sms(a.device.index)
        _launch(_dual_acc_persistent, (M, N, K, a.dtype, sms), _grid(M, N, sms), args, dict(NUM_SMS=sms))
    else:
        _launch(_dual_acc, (M, N, K, a.dtype), _grid(M, N), args, {})
    return c


# ---------------------------------------------------------------- dual accumulator, fp8

def _fp8_hook(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b1_desc"].block_shape = [bn, bk]
    nargs["b2_desc"].block_shape = [bn, bk]


def _fcfg(bm, bn, bk, w, s):
    return _cfg(bm, bn, bk, w, s, hook=_fp8_hook)


# fp8 wgmma takes K in steps of 32; 128-byte TMA boxes are 128 fp8 elements of K.
DUAL_FP8_CONFIGS = [
    _fcfg(128, 128, 128, 8, 3),
    _fcfg(128, 128, 128, 8, 4),
    _fcfg(128, 64, 128, 4, 4),
    _fcfg(64, 128, 128, 4, 4),
    _fcfg(128, 128, 64, 8, 4),
]


@triton.jit
def _dual_acc_fp8_kernel(a_desc, b1_desc, b2_desc, c_ptr, sa_ptr, sb1_ptr, sb2_ptr, M, N, K, s_cm, s_cn,
                         MAXACC: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_M: tl.constexpr):
    """C = silu(sa*sb1 * A B1) * (sa*sb2 * A B2): A [M,K] and B1, B2 [N,K] in fp8 e4m3
    through TMA (both operands K-major, as fp8 wgmma wants), per-tensor float32 scales."""
    pid = tl.program_id(0)
    pid_m, pid_n = _tile_ids(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)
    om = pid_m * BLOCK_M
    on = pid_n * BLOCK_N
    acc1 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([om, k])  # loaded once, used by both products
        acc1 = tl.dot(a, b1_desc.load([on, k]).T, acc1, max_num_imprecise_acc=MAXACC)
        acc2 = tl.dot(a, b2_desc.load([on, k]).T, acc2, max_num_imprecise_acc=MAXACC)
    sa = tl.load(sa_ptr)
    h1 = acc1 * (sa * tl.load(sb1_ptr))
    y = h1 * tl.sigmoid(h1) * (acc2 * (sa * tl.load(sb2_ptr)))
    offs_m = om + tl.arange(0, BLOCK_M)
    offs_n = on + tl.arange(0, BLOCK_N)
    cm = offs_m[:, None]
    cn = offs_n[None, :]
    tl.store(c_ptr + cm * s_cm + cn * s_cn, y.to(c_ptr.dtype.element_ty), mask=(cm < M) & (cn < N))


_dual_acc_fp8 = autotune("_dual_acc_fp8", DUAL_FP8_CONFIGS, ["M", "N", "K", "MAXACC"])(_dual_acc_fp8_kernel)
# max_num_imprecise_acc of the fp8 dots: None is Triton's default; a number lets the
# tensor cores accumulate that many K elements before a full-precision add.
FP8_MAXACC = knobs.get("ROOFTOOL_FP8_MAXACC")


def dual_acc_fp8(a, b1t, b2t, sa, sb1, sb2, c, maxacc=None):
    """c = silu(sa*sb1 * a @ b1t.T) * (sa*sb2 * a @ b2t.T); a [M,K], b1t/b2t [N,K] fp8
    e4m3 with unit inner stride, sa/sb1/sb2 one-element float32 tensors, c [M,N]."""
    M, K = a.shape
    N = b1t.shape[0]
    assert b1t.shape == b2t.shape == (N, K) and c.shape == (M, N)
    assert K % 128 == 0, f"K={K} must be a multiple of 128"
    if TensorDescriptor is None or not _tma_ok(a, b1t, b2t):
        raise RuntimeError("dual_acc_fp8 needs Triton tensor descriptors and 16-byte aligned K-major operands")
    if maxacc is None and FP8_MAXACC:
        maxacc = int(FP8_MAXACC)
    args = (_D(a), _D(b1t), _D(b2t), c, sa, sb1, sb2, M, N, K, c.stride(0), c.stride(1))
    _launch(_dual_acc_fp8, (M, N, K, a.dtype, maxacc), _grid(M, N), args, {"MAXACC": maxacc}, hook=_fp8_hook)
    return c
