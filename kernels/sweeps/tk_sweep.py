"""The persistent TMA-store GEMM of tk_gemm with the levers a configuration sweep turns:
tile order (GROUP_M rows or GROUP_N columns per group), epilogue subtiles (1, 2 or 4
column slices, each leaving through its own TMA store), warp specialisation of the tile
loop (WS) and the tile shape, warps, stages and CTAs per cluster of the launch. The epilogues are
tk_gemm's (_epi_store), so a config that wins here is the production kernel with those
levers set."""
from __future__ import annotations

import triton
import triton.language as tl

from common.tk_gemm import _epi_store, _tile_ids_ord


@triton.jit
def _mm_sweep_kernel(a_desc, b_desc, g_desc, c_desc, x_desc, c2_desc,
                     M, N, K, seg_norm, seg_silu, seg_sig,
                     EPI: tl.constexpr, PRO: tl.constexpr, HEAD: tl.constexpr, B_T: tl.constexpr,
                     NUM_SMS: tl.constexpr, SUB: tl.constexpr, ORDER: tl.constexpr, WS: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     GROUP: tl.constexpr):
    start = tl.program_id(0)
    num_tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    tile_c = start - NUM_SMS
    for tile in tl.range(start, num_tiles, NUM_SMS, flatten=True, warp_specialize=WS):
        pid_m, pid_n = _tile_ids_ord(tile, M, N, BLOCK_M, BLOCK_N, GROUP, ORDER)
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
        tile_c += NUM_SMS
        pid_m, pid_n = _tile_ids_ord(tile_c, M, N, BLOCK_M, BLOCK_N, GROUP, ORDER)
        om = pid_m * BLOCK_M
        on = pid_n * BLOCK_N
        if SUB == 4:
            h0, h1 = tl.split(tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
            q0, q1 = tl.split(tl.permute(tl.reshape(h0, (BLOCK_M, 2, BLOCK_N // 4)), (0, 2, 1)))
            q2, q3 = tl.split(tl.permute(tl.reshape(h1, (BLOCK_M, 2, BLOCK_N // 4)), (0, 2, 1)))
            Q: tl.constexpr = BLOCK_N // 4
            _epi_store(q0, c_desc, x_desc, c2_desc, om, on, seg_norm, seg_silu, seg_sig, EPI, HEAD, Q)
            _epi_store(q1, c_desc, x_desc, c2_desc, om, on + Q, seg_norm, seg_silu, seg_sig, EPI, HEAD, Q)
            _epi_store(q2, c_desc, x_desc, c2_desc, om, on + 2 * Q, seg_norm, seg_silu, seg_sig, EPI, HEAD, Q)
            _epi_store(q3, c_desc, x_desc, c2_desc, om, on + 3 * Q, seg_norm, seg_silu, seg_sig, EPI, HEAD, Q)
        elif SUB == 2:
            acc0, acc1 = tl.split(tl.permute(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), (0, 2, 1)))
            H: tl.constexpr = BLOCK_N // 2
            _epi_store(acc0, c_desc, x_desc, c2_desc, om, on, seg_norm, seg_silu, seg_sig, EPI, HEAD, H)
            _epi_store(acc1, c_desc, x_desc, c2_desc, om, on + H, seg_norm, seg_silu, seg_sig, EPI, HEAD, H)
        else:
            _epi_store(acc, c_desc, x_desc, c2_desc, om, on, seg_norm, seg_silu, seg_sig, EPI, HEAD, BLOCK_N)
