"""Base class for a variant's implementation (torch needed)."""
from __future__ import annotations

import torch

# spec.yaml's dtype -> the torch dtype of the inputs (kernels.DTypes lists the same names);
# tf32 inputs are float32: TF32 is how the variant's GEMMs multiply them.
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32, "fp32": torch.float32,
          "fp64": torch.float64}
if hasattr(torch, "float8_e4m3fn"):
    DTYPES["fp8"] = torch.float8_e4m3fn  # e4m3, the fp8 format Hopper multiplies with fp32 accumulation


class Impl:
    """One variant at one shape.

    prepare(inputs) -> state: untimed set-up from the canonical inputs (weight
    concatenation, graph capture of nothing, etc.).
    alloc(state) -> dict of preallocated output buffers the runner poisons with
    NaN before the checked run (empty dict when the variant allocates its own).
    run(state, out) -> dict name -> tensor, the same names as the reference.
    """

    graph_ok = True  # may be captured in a CUDA graph

    def __init__(self, v: dict, dtype: torch.dtype):
        self.v = v
        self.dtype = dtype

    def prepare(self, inputs: dict):
        return inputs

    def alloc(self, state) -> dict:
        return {}

    def run(self, state, out: dict) -> dict:
        raise NotImplementedError


_COMPILED = {}


def compiled(key, fn, **kw):
    """torch.compile(fn), cached per key (experiment, variant, shape)."""
    if key not in _COMPILED:
        import torch._dynamo
        torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
        _COMPILED[key] = torch.compile(fn, dynamic=False, **kw)
    return _COMPILED[key]


def randn(shape, gen, dtype, scale=1.0, device="cuda"):
    t = torch.randn(shape, generator=gen, device=device, dtype=torch.float32)
    if scale != 1.0:
        t.mul_(scale)
    return t.to(dtype)
