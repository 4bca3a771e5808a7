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

Tiles: each GEMM runs with the config common.qkconf names for its product and shape (the
table measured by kernels/sweeps/quack_sweep.py, the knob ROOFTOOL_QUACK_TILE over it); the
config a cell ran with is noted in its picks (common.picks).
"""
from __future__ import annotations

import functools
import os
import sys

import torch

from common import picks, qkconf

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

KNOB = qkconf.KNOB


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
def gemm_config(name):
    """'128x256/2x1/coop' -> GemmConfig, one object per name (quack's launch cache keys on the
    config object's identity)."""
    c = qkconf.parse(name)
    return GemmConfig(tile_m=c.tile_m, tile_n=c.tile_n, cluster_m=c.cluster_m, cluster_n=c.cluster_n,
                      pingpong=c.pingpong, max_swizzle_size=c.swizzle, is_dynamic_persistent=False,
                      device_capacity=9)


def config_for(product, M, N, K):
    """The GemmConfig of a product at (M, N, K) (qkconf.name_for), noted in the cell's picks."""
    name = qkconf.name_for(product, M, N, K, os.environ.get(qkconf.KNOB, ""))
    picks.note(f"quack/{product}/{M}x{N}x{K}", name)
    return gemm_config(name)


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
