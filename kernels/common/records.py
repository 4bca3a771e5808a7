"""The JSON records kernels/run.py writes (kernels/README.md). No torch here, so CI can
check the formats against ingest's Go structs without a GPU."""
from __future__ import annotations

import math

TIMING_VERSION = 1
CHECK_METRIC = ("norm-wise relative error ||out-ref||/||ref|| per output; reference in float32 "
                "(TF32 off: disable_tf32 at the runner's start) from the same bf16/fp16 inputs")
VS_BASELINE_METRIC = ("norm-wise relative error ||out-base||/||base|| per output in float64, base = the "
                      "baseline variant's output on the same inputs")
LAUNCH_MODES = ("plan", "triton-dispatch")
CLOCK_BLOCK = 10  # timing: one clock sample per this many reps
HOST_BOUND_FACTOR = 1.5  # wall / device time above this is host-bound (analysis.DefaultHostBoundFactor)


def _finite(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def one_line(msg, limit=300):
    """An error message as one line of at most limit characters."""
    s = " ".join(str(msg).split())
    return s if len(s) <= limit else s[:limit - 3] + "..."


# The torch flags that let float32 matmuls and convolutions run in TF32 (a 10-bit mantissa):
# off, a float32 reference would not be float32. Recorded beside the knobs (code_record).
TF32_MATMUL = "torch.backends.cuda.matmul.allow_tf32"
TF32_CUDNN = "torch.backends.cudnn.allow_tf32"


def tf32_flags(torch):
    """The two TF32 flags as torch has them now: {TF32_MATMUL: "False", TF32_CUDNN: "False"}."""
    return {TF32_MATMUL: str(bool(torch.backends.cuda.matmul.allow_tf32)),
            TF32_CUDNN: str(bool(torch.backends.cudnn.allow_tf32))}


def disable_tf32(torch):
    """Turn TF32 off for matmuls and cuDNN (torch's defaults differ: cuDNN's is on), so the
    float32 reference of the check pass is float32; returns tf32_flags as set."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return tf32_flags(torch)


def code_record(knobs, picks, launch):
    """What a pass of a cell ran: {"knobs": name -> effective value (every knob, defaults
    included), "picks": key -> chosen implementation, "launch": "plan" | "triton-dispatch"}.
    Values are strings (ingest/rundir.Code)."""
    if launch not in LAUNCH_MODES:
        raise ValueError(f"launch {launch!r}, want one of {LAUNCH_MODES}")
    return {"knobs": {str(k): str(v) for k, v in knobs.items()},
            "picks": {str(k): str(v) for k, v in sorted(picks.items(), key=lambda kv: str(kv[0]))},
            "launch": launch}


def check_record(exp, variant, shape, tolerance):
    """A check record, not yet ok; run_check fills ok, errors and error."""
    return {"experiment": exp, "variant": variant, "shape": shape, "ok": False, "max_abs_err": None,
            "max_rel_err": None, "tolerance": tolerance, "error": "", "metric": CHECK_METRIC}


def skipped_record(rec, why):
    rec.update(ok=False, skipped=True, error=why)
    return rec


def vs_baseline_record(baseline, outputs):
    """The check JSON's "vs_baseline": outputs is name -> {"rel_err", "max_abs_err",
    "base_norm"} (or {"nan": count}); rel_err is the largest over outputs (null when an
    output holds a NaN or is not finite)."""
    rel = 0.0
    for o in outputs.values():
        r = _finite(o.get("rel_err"))
        if r is None:
            rel = None
            break
        rel = max(rel, r)
    return {"baseline": baseline, "metric": VS_BASELINE_METRIC, "rel_err": rel, "outputs": outputs}


def clock_sample(rep, clocks):
    """One entry of the timing JSON's clock_samples: {"rep": i, "sm_mhz": x, "mem_mhz": y}
    (clocks as runner.clocks() reads them; empty without NVML)."""
    s = {"rep": int(rep)}
    s.update({k: float(v) for k, v in (clocks or {}).items()})
    return s


def clock_sample_reps(reps, block=CLOCK_BLOCK):
    """The reps at which the timed loop reads the clocks: 0 (before the first rep), after
    every block of reps, and reps (after the loop)."""
    return sorted({0, reps} | set(range(block, reps, block)))


def _bad_sample(samples, reps):
    if len(samples) != reps:
        return f"{len(samples)} samples for {reps} reps"
    for i, v in enumerate(samples):
        if not (isinstance(v, float) and math.isfinite(v) and v > 0):
            return f"sample {i} is {v!r}"
    return ""


def device_fields(device_ms, reps, error="", clock_samples=None):
    """The timing JSON's device-time keys: {"device_method": "cuda-graph" where the device
    loop ran and gave samples, else null, "device_ms": [one per rep] or null, "device_error":
    why (only when null), "device_clock_samples": the clocks read during the device loop
    (clock_sample entries, as clock_samples are for the wall loop; only with samples)}.
    Invalid samples become null with the reason: device time never fails a cell."""
    rec = {"device_method": None, "device_ms": None}
    if device_ms is not None and not error:
        bad = _bad_sample(device_ms, reps)
        if not bad:
            rec["device_method"] = "cuda-graph"
            rec["device_ms"] = list(device_ms)
            if clock_samples:
                rec["device_clock_samples"] = list(clock_samples)
            return rec
        error = "device samples: " + bad
    rec["device_error"] = one_line(error or "not measured")
    return rec


def _median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def launch_fields(samples_ms, device_ms, graph, device_error="", factor=HOST_BOUND_FACTOR):
    """The timing JSON's launch keys: {"launch_method": "graph" where the variant is a graph
    (spec graph: true) or its wall median exceeds factor x its device (CUDA-graph replay)
    median, so that a model would launch it captured; else "eager"}; plus "launch_error"
    (why no graph could be timed) where the device loop failed."""
    rec = {"launch_method": "eager"}
    if graph:
        rec["launch_method"] = "graph"
    elif device_ms and samples_ms and _median(samples_ms) > factor * _median(device_ms):
        rec["launch_method"] = "graph"
    if not device_ms and device_error:
        rec["launch_error"] = one_line(device_error)
    return rec


def timing_record(exp, variant, shape, device, graph, warmup, reps, rotate, clocks, samples_ms, **extra):
    bad = _bad_sample(samples_ms, reps)
    if bad:
        raise ValueError(f"timing {exp}/{variant}/{shape}: {bad}")
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
