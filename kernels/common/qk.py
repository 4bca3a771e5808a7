"""Fused-epilogue GEMMs written with quack (kernels in CUTLASS's CuTe DSL, quack-kernels and
nvidia-cutlass-dsl; variants that use them say `requires: quack`).

quack writes an epilogue as a plain function over the fp32 accumulator (`gemm_epilogue`):
operands of the GEMM's (M, N) shape are tile loads, (N,) vectors pinned as RowVecLoad are
per-column loads, names in `outputs=` are extra tile stores. The epilogues here are the seeds'
fusions:

  seg_epi       identity | sigmoid column segments (gated_ssm's x@[W_qkv|W_alpha]): a (N,)
                0/1 vector `sig` blends D = acc + sig * (sigmoid(acc) - acc)
  gate_epi      gate = SiLU(acc) and go = gate * o: two stores (gated_ssm's x@W_g)
  residual_epi  acc + x (gated_ssm's go@W_O), as quack.epilogue.library's (which does not
                import with nvidia-cutlass-dsl 4.8.1: its functions fail quack's fingerprint)
  gla_epi       gla_proj's wide GEMM: identity | per-head L2 norm | SiLU | sigmoid segments,
                the per-(row, head) sum of squares from quack's HeadRstd prepass
  swiglu_epi    silu(gate) * up over adjacent column pairs of an interleaved [W1|W3] weight
  swiglu_scaled_epi  the same with fp8 per-tensor scales: silu(sa sb1 g) * (sa sb2 u)

Each epilogue is a module global of this module so that quack's kernel cache keys it by
its source (quack fingerprints the function and what it references) and its compile
workers can import it. Activations are called through the module (`qact.silu`): a function
imported by name fails quack's fingerprint.

Tiles: each GEMM runs with the config of CONFIGS for its product and shape (M, N, K),
measured by kernels/sweeps/quack_sweep.py against cuBLAS on the same products (results
under kernels/sweeps/results/), else quack's default for the architecture. The knob
ROOFTOOL_QUACK_TILE (`TMxTN/CMxCN/coop|pp`, comma-separated `product=cfg`) overrides it;
the config a cell ran with is noted in its picks (common.picks).
"""
from __future__ import annotations

import functools
import os
import sys

import torch

from common import picks

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# quack's compile workers re-import the epilogue's module (common.qk) by name.
if _HERE not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = _HERE + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import quack.activation as qact  # noqa: E402
from quack.epilogue.frontend import gemm_epilogue  # noqa: E402
from quack.epilogue.head_rmsnorm import HeadRstd  # noqa: E402
from quack.epilogue.math import pack, unpack  # noqa: E402,F401
from quack.epilogue.ops import RowVecLoad  # noqa: E402
from quack.gemm_config import GemmConfig  # noqa: E402

KNOB = "ROOFTOOL_QUACK_TILE"


@gemm_epilogue(ops={"sig": RowVecLoad("sig")})
def seg_epi(acc, sig):
    s = qact.sigmoid_tanh(acc)
    return {"D": acc + sig * (s - acc)}


@gemm_epilogue()
def residual_epi(acc, res):
    return {"D": acc + res}


@gemm_epilogue(outputs=("gate",))
def gate_epi(acc, o):
    g = qact.silu(acc)
    return {"gate": g, "D": g * o}


# F.normalize divides by max(||z||, 1e-12): rsqrt(sum/dk + eps) * (1/sqrt(dk)) with eps far
# below any row's mean square is the same to float32 rounding (eps*dk = 1e-24 = 1e-12**2).
_EPS_NORM = 1e-24


def _sq_prepass(acc):
    return {"qk": acc * acc}


_GLA_RSTD = HeadRstd("qk", eps=_EPS_NORM / 128)


@gemm_epilogue(ops={"qk": _GLA_RSTD, "ident": RowVecLoad("ident"), "knorm": RowVecLoad("knorm"),
                    "silu": RowVecLoad("silu"), "sig": RowVecLoad("sig")},
               prepass=_sq_prepass, prepass_outs=("qk",))
def gla_epi(acc, qk, ident, knorm, silu, sig):
    s = qact.sigmoid_tanh(acc)
    return {"D": acc * (ident + knorm * qk + silu * s) + sig * s}


@gemm_epilogue(outputs=("postact",), mode="acc_pair")
def swiglu_epi(acc):
    g, u = unpack(acc)
    return {"postact": qact.silu(g) * u}


@gemm_epilogue(outputs=("postact",), mode="acc_pair")
def swiglu_scaled_epi(acc, sa, sb1, sb2):
    g, u = unpack(acc)
    return {"postact": qact.silu(g * sa * sb1) * (u * sa * sb2)}


# ------------------------------------------------------------------ configs

@functools.lru_cache(maxsize=None)
def parse_config(s):
    """'128x256/2x1/coop' -> GemmConfig (pp = pingpong)."""
    tile, cl, sched = s.split("/")
    tm, tn = (int(t) for t in tile.split("x"))
    cm, cn = (int(t) for t in cl.split("x"))
    if sched not in ("coop", "pp"):
        raise ValueError(f"{KNOB}: schedule {sched!r} in {s!r}: want coop or pp")
    return GemmConfig(tile_m=tm, tile_n=tn, cluster_m=cm, cluster_n=cn, pingpong=sched == "pp",
                      is_dynamic_persistent=False, device_capacity=9)


def config_name(c):
    return f"{c.tile_m}x{c.tile_n}/{c.cluster_m}x{c.cluster_n}/{'pp' if c.pingpong else 'coop'}"


# (product, M, N, K) -> config: the fastest of kernels/sweeps/quack_sweep.py's candidates on an
# H100 (kernels/sweeps/results/h100-2026-11-27; CUDA-event medians beside cuBLAS in the same
# process, buffers rotated past L2). Products: gssm-in, gssm-gate, gssm-out, gla-wide, swiglu, swiglu-fp8.
CONFIGS: dict = {
    ("gssm-in", 32768, 6400, 2048): "128x192/2x1/pp",    # 1137 us, cuBLAS's two GEMMs 1218 us
    ("gssm-in", 8192, 2496, 768): "128x192/2x1/pp",      # 70.5 us, cuBLAS 113.5 us
    ("gssm-gate", 32768, 2048, 2048): "128x256/2x1/coop",  # 445 us, cuBLAS plain mm 365 us
    ("gssm-gate", 8192, 768, 768): "128x128/1x1/pp",     # 46.9 us, cuBLAS 46.5 us
    ("gssm-out", 32768, 2048, 2048): "128x192/2x1/pp",   # 447 us, cuBLAS 410 us
    ("gssm-out", 8192, 768, 768): "128x192/1x1/pp",      # 42.3 us, cuBLAS 32.8 us
    ("gla-wide", 32768, 8448, 2048): "256x128/2x1/coop",  # 1672 us, cuBLAS's five GEMMs 1805 us
    ("swiglu", 512, 8192, 7168): "128x256/2x1/coop",     # 96.0 us, cuBLAS's two GEMMs 108 us
    ("swiglu-fp8", 512, 8192, 7168): "128x128/2x1/coop",  # 72.0 us, cuBLAS's two fp8 GEMMs 117 us
}
DEFAULT = "128x256/2x1/coop"


@functools.lru_cache(maxsize=None)
def _overrides(knob):
    out = {}
    for part in filter(None, knob.split(",")):
        prod, _, cfg = part.partition("=")
        out[prod.strip()] = cfg.strip()
    return out


def config_for(product, M, N, K):
    """The GemmConfig of a product at (M, N, K), one object per config name (quack's launch
    cache keys on the config object's identity), noted in the cell's picks."""
    name = _overrides(os.environ.get(KNOB, "")).get(product) or CONFIGS.get((product, M, N, K)) or DEFAULT
    picks.note(f"quack/{product}/{M}x{N}x{K}", name)
    return parse_config(name)


def nk(w):
    """A (K, N) weight as quack's B: the (N, K) K-major copy, viewed (K, N)."""
    return w.t().contiguous().t()


def run(mod, A, B, out, product, store_d=True, **operands):
    """mod(A @ B) into out with the picked config; B is (K, N) (use nk())."""
    M, K = A.shape
    N = B.shape[1]
    cfg = config_for(product, M, N, K)
    return mod(A, B, None, out=out, store_d=store_d, config=cfg, tuned=False, **operands)


def seg_vector(N, ranges, device="cuda"):
    """(N,) float32 vector with 1.0 over each [start, stop) of ranges."""
    v = torch.zeros(N, device=device, dtype=torch.float32)
    for a, b in ranges:
        v[a:b] = 1.0
    return v
