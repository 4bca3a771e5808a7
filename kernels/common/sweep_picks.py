"""The configuration each fused GEMM measures, as its sweep picked it for this GPU and shape
(no torch here).

The sweeps over candidate configurations are kernels/sweeps' job; the profile measures one
configuration per GEMM and shape: the fastest of the sweep, kept in the repository as
kernels/sweeps/picks/<gpu>.json (made from kernels/sweeps/results/* by
kernels/sweeps/make_picks.py). A knob overrides the file (ROOFTOOL_CUTLASS_TILE for
cutlass-evt); a GPU, GEMM or shape the file does not hold runs one documented default.

File format:

    {"gpu": "h200", "source": "kernels/sweeps/results/h200-2026-11-26",
     "cutlass-evt": {"<gemm>/<M>x<N>x<K>": {"tile": "256x256x64/2x1/coop", "us": 1314.6, "of": 5}}}

<gemm> is the variant's GEMM: qkv (plain), alpha (sigmoid epilogue), gate (SiLU epilogue,
ROOFTOOL_CUTLASS_GATE=mul), gate-mul (2-output SiLU and gating multiply), out (residual);
"of" is how many tiles the sweep timed for it.
"""
from __future__ import annotations

import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
PICKS_DIR = os.path.join(os.path.dirname(HERE), "sweeps", "picks")

# The tile a cutlass-evt GEMM runs where neither the knob nor the picks file names one: a
# 128x256 CTA tile in a 2x1 cluster, cooperative (cuBLAS's own tile on these GEMMs; the
# fastest of five on the plain qkv GEMM, 94% of cuBLAS on an H200, kernels/sweeps/README.md).
CUTLASS_DEFAULT = "256x256x64/2x1/coop"

# Source words of a pick (noted in the cell's picks beside the tile).
SOURCE_KNOB, SOURCE_PICKS, SOURCE_DEFAULT = "knob", "picks", "default"


def gpu_key(name: str) -> str:
    """The picks file's GPU key of a device name: "NVIDIA H200" -> "h200", "NVIDIA H100 80GB
    HBM3" -> "h100"; "" for a name with no known model."""
    m = re.search(r"\b([abhlg]\d{2,3})\b", (name or "").lower())
    return m.group(1) if m else ""


def picks_file(gpu: str, root: str = PICKS_DIR) -> str:
    return os.path.join(root, f"{gpu}.json")


def load(gpu: str, root: str = PICKS_DIR) -> dict:
    """The picks of gpu ({} where the file is missing). A file that is not a JSON object is an
    error naming it: a silently ignored picks file would measure the default instead."""
    if not gpu:
        return {}
    f = picks_file(gpu, root)
    try:
        with open(f) as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return {}
    except ValueError as e:
        raise ValueError(f"{f}: not JSON: {e}") from e
    if not isinstance(data, dict):
        raise ValueError(f"{f}: want a JSON object")
    return data


def gemm_key(gemm: str, M: int, N: int, K: int) -> str:
    return f"{gemm}/{M}x{N}x{K}"


def cutlass_tiles(gemm: str, M: int, N: int, K: int, gpu: str, knob: str = "", root: str = PICKS_DIR):
    """(tiles, source) a cutlass-evt GEMM runs: the knob's comma-separated tiles where it is
    set (several: the variant times them once and keeps the fastest), else the picks file's
    tile for this GPU, GEMM and shape, else CUTLASS_DEFAULT."""
    tiles = [t.strip() for t in (knob or "").split(",") if t.strip()]
    if tiles:
        return tiles, SOURCE_KNOB
    p = load(gpu, root).get("cutlass-evt", {}).get(gemm_key(gemm, M, N, K))
    if isinstance(p, dict) and p.get("tile"):
        return [p["tile"]], SOURCE_PICKS
    return [CUTLASS_DEFAULT], SOURCE_DEFAULT


# gated_ssm's cutlass-evt GEMMs at a shape: name -> (M, N, K, epilogue kind of cutlass_evt.gemm_alone).
def gated_ssm_gemms(v: dict, gate_mode: str = "evt"):
    BT, d, HD, nH = v["B"] * v["T"], v["d"], v["H"] * v["dk"], v["n"] * v["H"]
    g = {"qkv": (BT, 3 * HD, d, "plain"), "alpha": (BT, nH, d, "sigmoid")}
    if gate_mode == "mul":
        g["gate"] = (BT, HD, d, "silu")
    else:
        g["gate-mul"] = (BT, HD, d, "silu-gate")
    g["out"] = (BT, d, HD, "residual")
    return g


def parse_shape(shape: str) -> dict:
    """"B=16,T=512,d=768" -> {"B": 16, "T": 512, "d": 768}; ValueError naming a bad part."""
    out = {}
    for kv in shape.split(","):
        k, sep, val = kv.partition("=")
        if not sep or not val.strip().lstrip("-").isdigit():
            raise ValueError(f"shape {shape!r}: bad part {kv!r} (want name=integer)")
        out[k.strip()] = int(val)
    return out


def cutlass_kernels(shapes, gpu: str, knob: str = "", gate_mode: str = "evt", root: str = PICKS_DIR):
    """The distinct (epilogue kind, tile) kernels cutlass-evt compiles for gated_ssm's shapes:
    the compiled kernel depends on the epilogue and the tile, not on M, N, K."""
    out = []
    for s in shapes:
        for name, (M, N, K, kind) in gated_ssm_gemms(parse_shape(s), gate_mode).items():
            tiles, _ = cutlass_tiles(name, M, N, K, gpu, knob, root)
            for t in tiles:
                if (kind, t) not in out:
                    out.append((kind, t))
    return out
