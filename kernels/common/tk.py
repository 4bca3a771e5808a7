"""The Triton kernels shared by the experiments, one name space for the variants
(`from common import tk`; tk.mm_epi, tk.EPI_*, tk.dual_acc, tk.silu_mul, ...).

The code lives by job:
- tk_gemm: mm_epi, C = prologue(A) @ B with an epilogue (none | silu(aux)*acc | acc+aux |
  per-column segments | gating | activation gradients), four kernel families;
- tk_dual: dual_acc / dual_acc_persistent (C = silu(A B1) * (A B2), each A tile loaded
  once) and dual_acc_fp8;
- tk_elementwise: silu_mul, l2norm_heads (memory-bound);
- tk_launch: how every one of them is launched (launch plans, tensor-map memo, autotune
  picks, grids); ROOFTOOL_FAST_LAUNCH=0 turns plans off;
- tk_pick: the runtime picker (mm_epi's auto).
"""
from __future__ import annotations

from .tk_dual import DUAL_CONFIGS, DUAL_FP8_CONFIGS, FP8_MAXACC, dual_acc, dual_acc_fp8
from .tk_elementwise import act_bwd_saved, l2norm_heads, silu_mul
from .tk_gemm import (EPI_ACT_BWD, EPI_ADD_AUX, EPI_BRANCH, EPI_GATE, EPI_NONE, EPI_SEGMENTS,
                      EPI_SEGMENTS_BRANCH, EPI_SEGMENTS_SAVE, EPI_SILU_AUX_MUL, MM_CONFIGS, MM_CONFIGS_N128, MM_IMPL,
                      STORE_CONFIGS, STORE_CONFIGS_N128, TMA_CONFIGS, TMA_CONFIGS_N128, W_LAYOUT, mm_epi, weight_for)
from .tk_launch import (PLAN_STATS, TensorDescriptor, _launch, _PLANS, fast_descriptors, launch_jit,
                        launch_mode, num_sms)
from .tk_pick import pick as _pick

__all__ = [
    "DUAL_CONFIGS", "DUAL_FP8_CONFIGS", "FP8_MAXACC", "dual_acc", "dual_acc_fp8",
    "act_bwd_saved", "l2norm_heads", "silu_mul",
    "EPI_ACT_BWD", "EPI_ADD_AUX", "EPI_BRANCH", "EPI_GATE", "EPI_NONE", "EPI_SEGMENTS", "EPI_SEGMENTS_BRANCH",
    "EPI_SEGMENTS_SAVE", "EPI_SILU_AUX_MUL", "MM_CONFIGS", "MM_CONFIGS_N128", "MM_IMPL", "STORE_CONFIGS", "STORE_CONFIGS_N128",
    "TMA_CONFIGS", "TMA_CONFIGS_N128", "W_LAYOUT", "mm_epi", "weight_for",
    "PLAN_STATS", "TensorDescriptor", "_launch", "_PLANS", "fast_descriptors", "launch_jit", "launch_mode", "num_sms",
    "_pick",
]
