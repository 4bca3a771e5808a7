"""The JSON records kernels/run.py writes (kernels/README.md). No torch here, so CI can
check the formats against ingest's Go structs without a GPU."""
from __future__ import annotations

import math

TIMING_VERSION = 1
CHECK_METRIC = ("norm-wise relative error ||out-ref||/||ref|| per output; reference in float32 "
                "(TF32 off) from the same bf16/fp16 inputs")


def _finite(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def check_record(exp, variant, shape, tolerance):
    """A check record, not yet ok; run_check fills ok, errors and error."""
    return {"experiment": exp, "variant": variant, "shape": shape, "ok": False, "max_abs_err": None,
            "max_rel_err": None, "tolerance": tolerance, "error": "", "metric": CHECK_METRIC}


def skipped_record(rec, why):
    rec.update(ok=False, skipped=True, error=why)
    return rec


def timing_record(exp, variant, shape, device, graph, warmup, reps, rotate, clocks, samples_ms, **extra):
    if len(samples_ms) != reps:
        raise ValueError(f"timing {exp}/{variant}/{shape}: {len(samples_ms)} samples for {reps} reps")
    for i, v in enumerate(samples_ms):
        if not (isinstance(v, float) and math.isfinite(v) and v > 0):
            raise ValueError(f"timing {exp}/{variant}/{shape}: sample {i} is {v!r}")
    rec = {"rooftool_timing": TIMING_VERSION, "experiment": exp, "variant": variant, "shape": shape,
           "device": device, "method": "cuda-graph" if graph else "cuda-events", "warmup": int(warmup),
           "reps": int(reps), "rotate_buffers": int(rotate),
           "clocks": {k: float(v) for k, v in (clocks or {}).items()}, "samples_ms": list(samples_ms)}
    rec.update(extra)
    return rec


def profile_record(exp, variant, shape, graph, ok=True, error="", skipped=False):
    rec = {"experiment": exp, "variant": variant, "shape": shape, "ok": bool(ok), "error": error,
           "nvtx": f"{exp}/{variant}/{shape}", "graph": bool(graph)}
    if skipped:
        rec["skipped"] = True
    return rec
