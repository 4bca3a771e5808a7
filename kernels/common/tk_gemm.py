"""Triton GEMM kernels with fused prologues and epilogues (Hopper-minded: tl.dot on
bf16/fp16 inputs with fp32 accumulators, 128x128x64 / 128x256x64 tiles, 8 warps, 3-4 stages).

mm_epi: C = prologue(A) @ B with an epilogue: none | silu(aux)*acc | acc+aux |
per-column segments (identity, per-head L2 normalisation, SiLU, sigmoid) | the gating
epilogue (EPI_GATE) | activation gradients (EPI_ACT_BWD); four kernel families (pointer
loads, TMA, persistent TMA, persistent TMA with a TMA-store epilogue). Launched through
tk_launch._launch; the family per shape is picked by tk_pick.pick.
"""
from __future__ import annotations

import triton
import triton.language as tl
from . import knobs
from .tk_launch import _D, _grid, _launch, _tma_ok, autotune, num_sms
from .tk_pick import pick as _pick

EPI_NONE, EPI_SILU_AUX_MUL, EPI_ADD_AUX, EPI_SEGMENTS = 0, 1, 2, 3
EPI_SEGMENTS_BRANCH = 4  # EPI_SEGMENTS with a tile-uniform branch: identity tiles skip sigmoid/where
# "1" (default): EPI_SEGMENTS runs as EPI_SEGMENTS_BRANCH (measured 5-8% faster on the
# wide GEMMs on an H200, same check results); "0" keeps the branch-free epilogue.
EPI_BRANCH = knobs.get("ROOFTOOL_EPI_BRANCH") == "1"
# mm_epi's operand path: "tma" (tensor descriptors, default where Triton has them) or "ptr".
MM_IMPL = knobs.get("ROOFTOOL_MM_IMPL")  # auto: faster of tma / tma-persistent per shape
# Weight layout the Triton GEMM variants keep (set up untimed, in prepare): "nk" stores
# W^T contiguous ([N, K], nn.Linear's layout; K-major TMA boxes of 128 bytes), "kn" keeps W.
W_LAYOUT = knobs.get("ROOFTOOL_W_LAYOUT")


def weight_for(w, layout=None):
    """w [K, N] -> a [K, N] operand in the chosen storage layout (a view of W^T for "nk")."""
    if (layout or W_LAYOUT) == "nk":
        return w.t().contiguous().t()
    return w.contiguous()


def _cfg(bm, bn, bk, w, s, g=8, hook=None, **meta):
    """A tile config: BLOCK_M/N/K, GROUP_M and extra meta-parameters, warps, stages, and the
    pre_hook that sizes a TMA kernel's descriptor boxes to the tile."""
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": g, **meta}, num_warps=w,
                         num_stages=s, pre_hook=hook)


MM_CONFIGS = [
    _cfg(128, 128, 64, 8, 4),
    _cfg(128, 256, 64, 8, 3),
    _cfg(128, 128, 64, 4, 4),
    _cfg(64, 128, 64, 4, 4),
]
# The per-head L2 normalisation reduces over one tile's columns: BLOCK_N == head dim (128).
MM_CONFIGS_N128 = [
    _cfg(128, 128, 64, 8, 4),
    _cfg(128, 128, 64, 4, 4),
    _cfg(64, 128, 64, 4, 4),
]


@triton.jit
def _tile_ids(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def _tile_ids_ord(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP: tl.constexpr,
                  ORDER: tl.constexpr):
    """Tile (pid_m, pid_n) of the pid-th tile: ORDER 0 walks GROUP row tiles down each
    column before moving right (_tile_ids); ORDER 1 walks GROUP column tiles across each
    row before moving down. Which order and group keep a wave's A and B tiles in L2 depends
    on the shape (kernels/sweeps/README.md)."""
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    if ORDER == 0:
        in_group = GROUP * num_pid_n
        first = (pid // in_group) * GROUP
        size = min(num_pid_m - first, GROUP)
        pid_m = first + ((pid % in_group) % size)
        pid_n = (pid % in_group) // size
    else:
        in_group = GROUP * num_pid_m
        first = (pid // in_group) * GROUP
        size = min(num_pid_n - first, GROUP)
        pid_n = first + ((pid % in_group) % size)
        pid_m = (pid % in_group) // size
    return pid_m, pid_n


@triton.jit
def _segments(acc, cn, col0, seg_norm, seg_silu, seg_sig, HEAD: tl.constexpr):
    """Per-column segment activations of an accumulator tile whose first column is col0
    (cn: its column indices): [0, seg_silu) identity, [seg_silu, seg_sig) SiLU,
    [seg_sig, N) sigmoid; with HEAD > 0 a tile starting in [seg_norm, seg_silu) is
    L2-normalised per row (the tile's width is the head dimension)."""
    sig = tl.sigmoid(acc)
    y = tl.where(cn < seg_silu, acc, tl.where(cn < seg_sig, acc * sig, sig))
    if HEAD > 0:
        nrm = tl.maximum(tl.sqrt(tl.sum(acc * acc, axis=1)), 1e-12)
        in_norm = (col0 >= seg_norm) & (col0 < seg_silu)
        y = tl.where(in_norm, acc / nrm[:, None], y)
    return y


@triton.jit
def _epilogue(acc, c_ptr, aux_ptr, offs_m, offs_n, pid_n, M, N, s_cm, s_cn, s_xm, s_xn,
              seg_norm, seg_silu, seg_sig, EPI: tl.constexpr, HEAD: tl.constexpr, BLOCK_N: tl.constexpr):
    cm = offs_m[:, None]
    cn = offs_n[None, :]
    mask = (cm < M) & (cn < N)
    if EPI == 1:  # C = silu(aux) * acc  (aux = GEMM1's output)
        h = tl.load(aux_ptr + cm * s_xm + cn * s_xn, mask=mask, other=0.0).to(tl.float32)
        y = h * tl.sigmoid(h) * acc
    elif EPI == 2:  # C = acc + aux  (residual)
        r = tl.load(aux_ptr + cm * s_xm + cn * s_xn, mask=mask, other=0.0).to(tl.float32)
        y = acc + r
    elif EPI == 3:  # per-column segments
        y = _segments(acc, cn, pid_n * BLOCK_N, seg_norm, seg_silu, seg_sig, HEAD)
    elif EPI == 4:  # per-column segments, identity tiles branch around the activation math
        col0 = pid_n * BLOCK_N
        if col0 + BLOCK_N <= seg_norm:
            y = acc
        else:
            y = _segments(acc, cn, col0, seg_norm, seg_silu, seg_sig, HEAD)
    else:
        y = acc
    tl.store(c_ptr + cm * s_cm + cn * s_cn, y.to(c_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _mm_epi_kernel(a_ptr, b_ptr, c_ptr, aux_ptr, g_ptr,
                   M, N, K,
                   s_am, s_ak, s_bk, s_bn, s_cm, s_cn, s_xm, s_xn, s_gm, s_gk,
                   seg_norm, seg_silu, seg_sig,
                   EPI: tl.constexpr, PRO: tl.constexpr, HEAD: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    pid_m, pid_n = _tile_ids(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    rm = offs_m % M  # wrapped rows/cols: loads need no mask, the store is masked
    rn = offs_n % N
    a_ptrs = a_ptr + rm[:, None] * s_am + offs_k[None, :] * s_ak
    b_ptrs = b_ptr + offs_k[:, None] * s_bk + rn[None, :] * s_bn
    g_ptrs = g_ptr + rm[:, None] * s_gm + offs_k[None, :] * s_gk
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _k in range(0, K // BLOCK_K):  # host asserts K % BLOCK_K == 0
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        if PRO == 1:  # gating prologue: A := A * G elementwise (o * gate)
            g = tl.load(g_ptrs)
            a = (a.to(tl.float32) * g.to(tl.float32)).to(b.dtype)
            g_ptrs += BLOCK_K * s_gk
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * s_ak
        b_ptrs += BLOCK_K * s_bk
    _epilogue(acc, c_ptr, aux_ptr, offs_m, offs_n, pid_n, M, N, s_cm, s_cn, s_xm, s_xn,
              seg_norm, seg_silu, seg_sig, EPI, HEAD, BLOCK_N)


_mm_epi = autotune("_mm_epi", MM_CONFIGS, ["M", "N", "K", "EPI", "PRO"])(_mm_epi_kernel)
_mm_epi_n128 = autotune("_mm_epi_n128", MM_CONFIGS_N128, ["M", "N", "K", "EPI", "PRO", "HEAD"])(_mm_epi_kernel)

# TMA (tensor-descriptor) variant of mm_epi for Hopper: A, B (and the gating operand G)
# come in through the bulk tensor copy engine; out-of-range rows/columns read as zero
# (TensorDescriptor and _tma_ok live in tk_launch).


def _tma_hook(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bn, bk] if nargs["B_T"] else [bk, bn]
    nargs["g_desc"].block_shape = [bm, bk]


def _tcfg(bm, bn, bk, w, s):
    return _cfg(bm, bn, bk, w, s, hook=_tma_hook)


TMA_CONFIGS = [
    _tcfg(128, 128, 64, 8, 4),
    _tcfg(128, 256, 64, 8, 3),
    _tcfg(128, 256, 64, 8, 4),
    _tcfg(128, 128, 64, 4, 4),
    _tcfg(64, 128, 64, 4, 4),
]
TMA_CONFIGS_N128 = [
    _tcfg(128, 128, 64, 8, 4),
    _tcfg(128, 128, 64, 4, 4),
    _tcfg(64, 128, 64, 4, 4),
]


@triton.jit
def _mm_epi_tma_kernel(a_desc, b_desc, g_desc, c_ptr, aux_ptr,
                       M, N, K,
                       s_cm, s_cn, s_xm, s_xn,
                       seg_norm, seg_silu, seg_sig,
                       EPI: tl.constexpr, PRO: tl.constexpr, HEAD: tl.constexpr, B_T: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    pid_m, pid_n = _tile_ids(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)
    om = pid_m * BLOCK_M
    on = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([om, k])
        if PRO == 1:  # gating prologue: A := A * G (one bf16 rounding, as torch.mul does)
            a = a * g_desc.load([om, k])
        if B_T:  # B stored [N, K] (K-major, like nn.Linear's weight)
            acc = tl.dot(a, b_desc.load([on, k]).T, acc)
        else:
            acc = tl.dot(a, b_desc.load([k, on]), acc)
    offs_m = om + tl.arange(0, BLOCK_M)
    offs_n = on + tl.arange(0, BLOCK_N)
    _epilogue(acc, c_ptr, aux_ptr, offs_m, offs_n, pid_n, M, N, s_cm, s_cn, s_xm, s_xn,
              seg_norm, seg_silu, seg_sig, EPI, HEAD, BLOCK_N)


_mm_epi_tma = autotune("_mm_epi_tma", TMA_CONFIGS, ["M", "N", "K", "EPI", "PRO", "B_T"])(_mm_epi_tma_kernel)
_mm_epi_tma_n128 = autotune("_mm_epi_tma_n128", TMA_CONFIGS_N128, ["M", "N", "K", "EPI", "PRO", "HEAD", "B_T"])(_mm_epi_tma_kernel)



@triton.jit
def _mm_epi_tma_persistent_kernel(a_desc, b_desc, g_desc, c_ptr, aux_ptr,
                                  M, N, K,
                                  s_cm, s_cn, s_xm, s_xn,
                                  seg_norm, seg_silu, seg_sig,
                                  EPI: tl.constexpr, PRO: tl.constexpr, HEAD: tl.constexpr, B_T: tl.constexpr,
                                  NUM_SMS: tl.constexpr,
                                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                  GROUP_M: tl.constexpr):
    """Persistent form: grid = SM count, each program walks tiles start, start+NUM_SMS, ...;
    the tile and K loops are flattened so the next tile's loads overlap this epilogue."""
    start = tl.program_id(0)
    num_tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile in tl.range(start, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _tile_ids(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        om = pid_m * BLOCK_M
        on = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            k = ki * BLOCK_K
            a = a_desc.load([om, k])
            if PRO == 1:
                a = a * g_desc.load([om, k])
            if B_T:
                acc = tl.dot(a, b_desc.load([on, k]).T, acc)
            else:
                acc = tl.dot(a, b_desc.load([k, on]), acc)
        offs_m = om + tl.arange(0, BLOCK_M)
        offs_n = on + tl.arange(0, BLOCK_N)
        _epilogue(acc, c_ptr, aux_ptr, offs_m, offs_n, pid_n, M, N, s_cm, s_cn, s_xm, s_xn,
                  seg_norm, seg_silu, seg_sig, EPI, HEAD, BLOCK_N)


_mm_epi_tmap = autotune("_mm_epi_tmap", TMA_CONFIGS, ["M", "N", "K", "EPI", "PRO", "B_T"])(_mm_epi_tma_persistent_kernel)
_mm_epi_tmap_n128 = autotune("_mm_epi_tmap_n128", TMA_CONFIGS_N128, ["M", "N", "K", "EPI", "PRO", "HEAD", "B_T"])(_mm_epi_tma_persistent_kernel)

# Persistent TMA kernel with a TMA-store epilogue ("tma-store"): each program walks tiles
# start, start+NUM_SMS, ...; the accumulator is split into two column halves (SUBTILE),
# each half's epilogue runs and leaves through an asynchronous TMA store while the next
# tile's loads are already in flight. Measured on an H100 (2026-11-22): 96-98% of cuBLAS
# on the gated_ssm x@W_in GEMM with its SiLU/sigmoid epilogue, where the pointer-store
# kernels above reach 77-91%. The epilogue for one half: EPI as in _epilogue, plus
# EPI_GATE: c = silu(acc) and c2 = silu(acc) * aux (the gating multiply in the epilogue),
# EPI_ACT_BWD: acc is a recomputed pre-activation z and c its gradient dz: columns
# [0, seg_silu) are per-head L2-normalised heads (dy from aux), dz = (dy - y<y,dy>)/||z||
# with y = z/||z||; columns [seg_silu, N) are SiLU, dy from c2 at column - seg_silu,
# dz = dy * s(1 + z(1 - s)) with s = sigmoid(z).
# EPI_SEGMENTS_SAVE: EPI_SEGMENTS that also stores the pre-activation of the columns
# [seg_norm, seg_sig) (the L2-normalised and SiLU segments) into c2[:, col - seg_norm], for a
# backward that reads it instead of recomputing the GEMM (act_bwd_saved).
EPI_GATE = 5
EPI_ACT_BWD = 6
EPI_SEGMENTS_SAVE = 7


def _store_hook(nargs):
    bm, bn, bk = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["BLOCK_K"]
    cn = bn // 2 if nargs["SUBTILE"] else bn
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bn, bk] if nargs["B_T"] else [bk, bn]
    nargs["g_desc"].block_shape = [bm, bk]
    for k in ("c_desc", "x_desc", "c2_desc"):
        nargs[k].block_shape = [bm, cn]


def _scfg(bm, bn, bk, w, s, sub, g=8, order=0):
    return _cfg(bm, bn, bk, w, s, g=g, hook=_store_hook, SUBTILE=sub, ORDER=order)


# Tile orders from the sweep (kernels/sweeps/README.md, H200, ncu with caches flushed):
# GROUP_M=32 row groups cut the wide x@W_in GEMM's DRAM bytes from 1.83 GB to 1.18 GB (L2
# hit 73% -> 85%) and its cycles by 2%; GROUP_N=8 column groups cut the N=2048 residual
# GEMM's from 494 MB to 420 MB. Autotuning picks among them by time, per shape.
STORE_CONFIGS = [
    _scfg(128, 256, 64, 8, 3, True),
    _scfg(128, 256, 64, 8, 3, True, g=32),
    _scfg(128, 256, 64, 8, 3, True, g=8, order=1),
    _scfg(128, 256, 64, 8, 4, True),
    _scfg(128, 128, 64, 8, 4, True),
    _scfg(128, 128, 64, 8, 4, False),
    _scfg(128, 128, 64, 4, 4, False),
]
# The per-head L2 norm reduces over one stored half: its width must be the head dim (128).
STORE_CONFIGS_N128 = [
    _scfg(128, 256, 64, 8, 3, True),
    _scfg(128, 256, 64, 8, 3, True, g=32),
    _scfg(128, 256, 64, 8, 3, True, g=16, order=1),
    _scfg(128, 128, 64, 8, 4, False),
    _scfg(128, 128, 64, 4, 4, False),
]


@triton.jit
def _epi_store(acc, c_desc, x_desc, c2_desc, om, on, seg_norm, seg_silu, seg_sig,
               EPI: tl.constexpr, HEAD: tl.constexpr, CN: tl.constexpr):
    if EPI == 1:  # silu(aux) * acc
        h = x_desc.load([om, on]).to(tl.float32)
        y = h * tl.sigmoid(h) * acc
    elif EPI == 2:  # acc + aux
        y = acc + x_desc.load([om, on]).to(tl.float32)
    elif EPI == 3 or EPI == 4:  # per-column segments; identity halves skip the math
        if on + CN <= seg_norm:
            y = acc
        else:
            y = _segments(acc, on + tl.arange(0, CN)[None, :], on, seg_norm, seg_silu, seg_sig, HEAD)
    elif EPI == 7:  # per-column segments, pre-activations of [seg_norm, seg_sig) kept in c2
        if on + CN <= seg_norm:
            y = acc
        else:
            if on < seg_sig:
                c2_desc.store([om, on - seg_norm], acc.to(c2_desc.dtype))
            y = _segments(acc, on + tl.arange(0, CN)[None, :], on, seg_norm, seg_silu, seg_sig, HEAD)
    elif EPI == 5:  # c = silu(acc), c2 = silu(acc) * aux
        y = acc * tl.sigmoid(acc)
        c2_desc.store([om, on], (y * x_desc.load([om, on]).to(tl.float32)).to(c2_desc.dtype))
    elif EPI == 6:  # activation gradients from the recomputed pre-activation (one head per half)
        if on < seg_silu:
            dy = x_desc.load([om, on]).to(tl.float32)
            nrm = tl.maximum(tl.sqrt(tl.sum(acc * acc, axis=1)), 1e-12)
            yk = acc / nrm[:, None]
            y = (dy - yk * tl.sum(yk * dy, axis=1)[:, None]) / nrm[:, None]
        else:
            dy = c2_desc.load([om, on - seg_silu]).to(tl.float32)
            sg = tl.sigmoid(acc)
            y = dy * sg * (1.0 + acc * (1.0 - sg))
    else:
        y = acc
    c_desc.store([om, on], y.to(c_desc.dtype))


@triton.jit
def _mm_tma_store_kernel(a_desc, b_desc, g_desc, c_desc, x_desc, c2_desc,
                         M, N, K, seg_norm, seg_silu, seg_sig,
                         EPI: tl.constexpr, PRO: tl.constexpr, HEAD: tl.constexpr, B_T: tl.constexpr,
                         NUM_SMS: tl.constexpr, SUBTILE: tl.constexpr, ORDER: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_M: tl.constexpr):
    start = tl.program_id(0)
    num_tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    tile_c = start - NUM_SMS  # a separate counter for the epilogue (as Triton's persistent tutorial)
    # The K loop is written out here as in the other TMA kernels: moved into a shared
    # @triton.jit helper, tl.range(flatten=True) fails to compile (Triton 3.6).
    for tile in tl.range(start, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _tile_ids_ord(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M, ORDER)
        om = pid_m * BLOCK_M
        on = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            k = ki * BLOCK_K
            a = a_desc.load([om, k])
            if PRO == 1:  # gating prologue: A := A * G (one bf16 rounding, as torch.mul does)
                a = a * g_desc.load([om, k])
            if B_T:
                acc = tl.dot(a, b_desc.load([on, k]).T, acc)
            else:
                acc = tl.dot(a, b_desc.load([k, on]), acc)
        tile_c += NUM_SMS
        pid_m, pid_n = _tile_ids_ord(tile_c, M, N, BLOCK_M, BLOCK_N, GROUP_M, ORDER)
        om = pid_m * BLOCK_M
        on = pid_n * BLOCK_N
        if SUBTILE:
            acc0, acc1 = tl.split(tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
            _epi_store(acc0, c_desc, x_desc, c2_desc, om, on, seg_norm, seg_silu, seg_sig, EPI, HEAD, BLOCK_N // 2)
            _epi_store(acc1, c_desc, x_desc, c2_desc, om, on + BLOCK_N // 2, seg_norm, seg_silu, seg_sig, EPI, HEAD,
                       BLOCK_N // 2)
        else:
            _epi_store(acc, c_desc, x_desc, c2_desc, om, on, seg_norm, seg_silu, seg_sig, EPI, HEAD, BLOCK_N)


_mm_tma_store = autotune("_mm_tma_store", STORE_CONFIGS, ["M", "N", "K", "EPI", "PRO", "B_T"])(_mm_tma_store_kernel)
_mm_tma_store_n128 = autotune("_mm_tma_store_n128", STORE_CONFIGS_N128, ["M", "N", "K", "EPI", "PRO", "HEAD", "B_T"])(_mm_tma_store_kernel)


def mm_epi(a, b, c, epi=EPI_NONE, aux=None, gate=None, seg=(0, 0, 0), head=0, impl=None, c2=None):
    """c[M,N] = epilogue((a * gate if gate is not None else a) @ b).

    a: [M,K] (any strides), b: [K,N] (any strides; a transposed view of an [N,K] tensor,
    i.e. the nn.Linear weight layout, takes the K-major TMA path), c: [M,N] output.
    seg = (seg_norm, seg_silu, seg_sig) column boundaries for EPI_SEGMENTS:
    [0,seg_norm) identity, [seg_norm,seg_silu) per-head L2 norm (head > 0),
    [seg_silu,seg_sig) SiLU, [seg_sig,N) sigmoid.
    EPI_GATE (tma-store only): c = silu(acc) and c2 = silu(acc) * aux.
    EPI_SEGMENTS_SAVE (tma-store only, head = 128): EPI_SEGMENTS, and c2[:, j] = the
    pre-activation of column seg[0] + j for j < seg[2] - seg[0] (c2 is an output here).
    EPI_ACT_BWD (tma-store only, head = 128): c = d(activation)/dz applied to the upstream
    gradients, z = acc: per-head L2 norm on [0, seg[1]) with dy = aux, SiLU on [seg[1], N)
    with dy = c2[:, col - seg[1]] (c2 is an input here).
    impl: tma-store | tma | tma-persistent | ptr | auto (the fastest of those, timed once per
    shape and epilogue, shared across a run's passes through ROOFTOOL_PICKS).
    """
    impl = impl or MM_IMPL
    if epi == EPI_GATE:
        assert c2 is not None and aux is not None and c2.shape == c.shape
        impl = "tma-store"
    if epi == EPI_ACT_BWD:
        assert c2 is not None and aux is not None and head == 128 and seg[0] == 0
        assert aux.shape == (c.shape[0], seg[1]) and c2.shape == (c.shape[0], c.shape[1] - seg[1])
        impl = "tma-store"
    if epi == EPI_SEGMENTS_SAVE:
        assert c2 is not None and head == 128 and seg[0] % head == 0 and seg[2] % head == 0
        assert c2.shape == (c.shape[0], seg[2] - seg[0]), (c2.shape, seg)
        impl = "tma-store"
    if epi == EPI_SEGMENTS and EPI_BRANCH:
        epi = EPI_SEGMENTS_BRANCH
    M, K = a.shape
    K2, N = b.shape
    assert K == K2 and c.shape == (M, N), (a.shape, b.shape, c.shape)
    assert K % 64 == 0, f"K={K} must be a multiple of 64"
    aux_t = aux if aux is not None else c
    g_t = gate if gate is not None else a
    if head:
        assert head == 128, "per-head normalisation epilogue is built for head dim 128"
        assert seg[0] % head == 0 and seg[1] % head == 0
    b_t = b.stride(0) == 1 and b.stride(1) != 1  # b is the transposed view of an [N, K] tensor
    tma_ok = _tma_ok(a, b.T if b_t else b, g_t)
    c2_t = c2 if c2 is not None else c
    store_ok = tma_ok and _tma_ok(c, aux_t, c2_t)
    if impl == "auto":
        impl = _pick(("mm", M, N, K, epi, gate is not None, head, b_t, a.dtype),
                     lambda im: mm_epi(a, b, c, epi, aux, gate, seg, head, impl=im),
                     (("tma-store",) if store_ok else ()) + (("tma", "tma-persistent", "ptr") if tma_ok else ("ptr",)))
    if impl == "tma-store":
        if not store_ok:
            raise ValueError("mm_epi tma-store needs 16-byte aligned, unit-stride a, b, c, aux (and c2)")
        sms = num_sms(a.device.index)
        kw = dict(EPI=epi, PRO=1 if gate is not None else 0, HEAD=head, B_T=b_t, NUM_SMS=sms)
        args = (_D(a), _D(b.T if b_t else b), _D(g_t), _D(c), _D(aux_t), _D(c2_t), M, N, K, seg[0], seg[1], seg[2])
        _launch(_mm_tma_store_n128 if head else _mm_tma_store, (M, N, K, a.dtype, tuple(kw.items())), _grid(M, N, sms), args, kw,
                hook=_store_hook)
        return c
    if impl in ("tma", "tma-persistent") and tma_ok:
        kw = dict(EPI=epi, PRO=1 if gate is not None else 0, HEAD=head, B_T=b_t)
        args = (_D(a), _D(b.T if b_t else b), _D(g_t), c, aux_t, M, N, K, c.stride(0), c.stride(1), aux_t.stride(0),
                aux_t.stride(1), seg[0], seg[1], seg[2])
        sms = 0
        if impl == "tma-persistent":
            sms = kw["NUM_SMS"] = num_sms(a.device.index)
            tuner = _mm_epi_tmap_n128 if head else _mm_epi_tmap
        else:
            tuner = _mm_epi_tma_n128 if head else _mm_epi_tma
        _launch(tuner, (M, N, K, a.dtype, tuple(kw.items())), _grid(M, N, sms), args, kw, hook=_tma_hook)
        return c
    kern = _mm_epi_n128 if head else _mm_epi
    kw = dict(EPI=epi, PRO=1 if gate is not None else 0, HEAD=head)
    _launch(kern, (M, N, K, a.dtype, tuple(kw.items())), _grid(M, N),
            (a, b, c, aux_t, g_t, M, N, K,
             a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
             aux_t.stride(0), aux_t.stride(1), g_t.stride(0), g_t.stride(1),
             seg[0], seg[1], seg[2]), kw)
    return c
