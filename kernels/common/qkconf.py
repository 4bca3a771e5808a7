"""Which quack GEMM config each fused GEMM of kernels/common/qk.py runs with (no torch, no
quack: the names and the table only).

A config is named `TMxTN/CMxCN/coop|pp[/sS]`: the CTA tile, the cluster, the schedule
(cooperative, or pingpong between two consumer warp groups) and, optionally, the tile
scheduler's swizzle S (how many tiles along one side a persistent CTA group walks before the
next row or column: 1, 2, 4, 8 or 16; quack's default 8), which sets how much of A and B the
CTAs share through L2. CONFIGS holds, per product and
GEMM shape (M, N, K), the fastest config of kernels/sweeps/quack_sweep.py's candidates on an
H100 (kernels/sweeps/results/h100-2026-11-27: CUDA-event medians beside cuBLAS in the same
process, buffers rotated past L2); shapes not in it run DEFAULT, quack's own default tile.
The knob ROOFTOOL_QUACK_TILE (`product=config,...`) overrides the table per product.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

KNOB = "ROOFTOOL_QUACK_TILE"
DEFAULT = "128x256/2x1/coop"

# Products: gssm-in (x@[W_qkv|W_alpha], identity|sigmoid segments), gssm-gate (x@W_g, SiLU and
# the gating multiply), gssm-out (go@W_O + x), gla-wide (gla_proj's five projections),
# swiglu / swiglu-fp8 (the interleaved [B1|B2] GEMM). The comments: the config's time and
# cuBLAS's for the same products in the sweep.
CONFIGS = {
    ("gssm-in", 32768, 6400, 2048): "128x192/2x1/pp",     # 1137 us; cuBLAS's two GEMMs 1218 us
    ("gssm-in", 8192, 2496, 768): "128x192/2x1/pp",       # 70.5 us; 113.5 us
    ("gssm-gate", 32768, 2048, 2048): "128x256/2x1/coop",  # 445 us; the plain mm 368 us
    ("gssm-gate", 8192, 768, 768): "128x128/1x1/pp",      # 46.9 us; 46.5 us
    ("gssm-out", 32768, 2048, 2048): "128x192/2x1/pp",    # 447 us; 410 us
    ("gssm-out", 8192, 768, 768): "128x192/1x1/pp",       # 42.3 us; 32.8 us
    ("gla-wide", 32768, 8448, 2048): "256x128/2x1/coop",  # 1672 us; the five GEMMs 1806 us
    ("swiglu", 512, 8192, 7168): "128x256/2x1/coop",      # 96.0 us; the two GEMMs 108 us
    ("swiglu-fp8", 512, 8192, 7168): "128x128/2x1/coop",  # 72.0 us; the two fp8 GEMMs 117 us
}


class Config(NamedTuple):
    tile_m: int
    tile_n: int
    cluster_m: int
    cluster_n: int
    pingpong: bool
    swizzle: int = 8


SWIZZLES = (1, 2, 4, 8, 16)


def parse(name: str) -> Config:
    """'128x256/2x1/coop' or '128x256/2x1/coop/s16' -> Config; ValueError naming the knob and
    what is wrong."""
    parts = name.split("/")
    if len(parts) not in (3, 4):
        raise ValueError(f"{KNOB}: config {name!r}: want TMxTN/CMxCN/coop|pp[/sS]")
    tile, cl, sched = parts[:3]
    swz = 8
    if len(parts) == 4:
        if not parts[3].startswith("s") or not parts[3][1:].isdigit() or int(parts[3][1:]) not in SWIZZLES:
            raise ValueError(f"{KNOB}: config {name!r}: swizzle {parts[3]!r}: want s1, s2, s4, s8 or s16")
        swz = int(parts[3][1:])
    try:
        tm, tn = (int(t) for t in tile.split("x"))
        cm, cn = (int(t) for t in cl.split("x"))
    except ValueError:
        raise ValueError(f"{KNOB}: config {name!r}: tile and cluster are two integers joined by x") from None
    if sched not in ("coop", "pp"):
        raise ValueError(f"{KNOB}: config {name!r}: schedule {sched!r}: want coop or pp")
    if min(tm, tn, cm, cn) <= 0:
        raise ValueError(f"{KNOB}: config {name!r}: sizes must be positive")
    return Config(tm, tn, cm, cn, sched == "pp", swz)


@functools.lru_cache(maxsize=None)
def overrides(knob: str) -> dict:
    """The knob's `product=config` pairs (each config checked; one parse per knob value, as
    a GEMM looks it up on every call)."""
    out = {}
    for part in filter(None, (p.strip() for p in knob.split(","))):
        prod, eq, cfg = part.partition("=")
        if not eq or not prod.strip():
            raise ValueError(f"{KNOB}: {part!r}: want product=TMxTN/CMxCN/coop|pp")
        parse(cfg.strip())
        out[prod.strip()] = cfg.strip()
    return out


def name_for(product: str, M: int, N: int, K: int, knob: str = "") -> str:
    """The config name a product's GEMM of shape (M, N, K) runs with."""
    return overrides(knob).get(product) or CONFIGS.get((product, M, N, K)) or DEFAULT
