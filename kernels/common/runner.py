"""The torch side of kernels/run.py: env, check, time, profile, bench."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import platform
import sys
import time
import traceback

import torch

from . import gpuid, knobs, picks, records, refcache
from . import spec as specmod
from .impl import DTYPES

_MODULES = {}


def exp_module(name):
    """Import <folder>/variants.py (or a package <folder>/variants/), the folder spec.experiment_dir names."""
    if name in _MODULES:
        return _MODULES[name]
    base = specmod.experiment_dir(name)
    path = os.path.join(base, "variants.py")
    if not os.path.isfile(path):
        path = os.path.join(base, "variants", "__init__.py")
    modname = f"rooftool_exp_{name}"
    s = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(s)
    sys.modules[modname] = mod
    s.loader.exec_module(mod)
    _MODULES[name] = mod
    return mod


# ------------------------------------------------------------------ env

_GPUS = {}  # CUDA device index -> gpuid.GPU: NVML opened once per process, not per read


def gpu():
    """The GPU this process's current CUDA device is, named by its UUID for NVML and
    nvidia-smi (which ignore CUDA_VISIBLE_DEVICES: their index 0 may be another GPU)."""
    d = torch.cuda.current_device()
    if d not in _GPUS:
        _GPUS[d] = gpuid.GPU(getattr(torch.cuda.get_device_properties(d), "uuid", ""))
    return _GPUS[d]


def clocks():
    return gpu().clocks()


def env_info():
    import triton
    info = {"python": platform.python_version(), "torch": torch.__version__, "triton": triton.__version__,
            "cuda": torch.version.cuda or ""}
    if not torch.cuda.is_available():
        info["error"] = "no CUDA device"
        return info
    p = torch.cuda.get_device_properties(torch.cuda.current_device())
    info.update({"device": p.name, "sm_count": p.multi_processor_count,
                 "l2_bytes": int(getattr(p, "L2_cache_size", 0)), "memory_bytes": int(p.total_memory),
                 "compute_capability": f"{p.major}.{p.minor}"})
    g = gpu()
    info["gpu_uuid"] = g.uuid
    info.update(g.info())  # "uuid": the one NVML answered for, equal to gpu_uuid
    info.setdefault("uuid", g.uuid)
    info["clocks"] = clocks()
    return info


# ------------------------------------------------------------------ helpers

def l2_bytes():
    p = torch.cuda.get_device_properties(torch.cuda.current_device())
    return int(getattr(p, "L2_cache_size", 0)) or 50 * 2**20


def cell_seed(seed, exp, variant, shape, salt=0):
    # Same inputs for every variant of a (shape, seed): variants are compared on equal data.
    h = hashlib.sha256(f"{seed}|{exp}|{shape}|{salt}".encode()).digest()
    return int.from_bytes(h[:6], "little")


def requires_missing(req):
    if not req:
        return ""
    mod = {"fla": "fla", "cutlass": "cutlass_cppgen", "quack": "quack"}.get(req, req)
    if importlib.util.find_spec(mod) is None:
        return f"requires {req}: not installed"
    return ""


def _tensors(d):
    for v in d.values():
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            for t in v:
                if isinstance(t, torch.Tensor):
                    yield t
        elif isinstance(v, dict):
            yield from _tensors(v)


def nbytes(d):
    seen, n = set(), 0
    for t in _tensors(d):
        key = (t.untyped_storage().data_ptr())
        if key in seen:
            continue
        seen.add(key)
        n += t.untyped_storage().nbytes()
    return n


def poison(out):
    for t in _tensors(out):
        if t.is_floating_point():
            t.fill_(float("nan"))


def poison_allocator(nbytes_hint):
    """Fill freshly freed allocator blocks with NaN so that outputs a variant allocates
    itself (torch.compile, autograd) start as NaN too, as far as the caching allocator
    hands the same blocks back. Best effort; preallocated outputs are poisoned exactly."""
    if nbytes_hint <= 0:
        return
    try:
        blk = torch.empty(int(nbytes_hint) // 4 + 1, dtype=torch.float32, device="cuda")
        blk.fill_(float("nan"))
        del blk
    except torch.OutOfMemoryError:
        pass


def compare(res, ref, tol):
    """Norm-wise relative error ||out-ref||/||ref|| per output, computed in float64."""
    per = {}
    ok, err = True, ""
    max_abs, max_rel = 0.0, 0.0
    for k, r in ref.items():
        if k not in res:
            return False, f"output {k!r} missing", 0.0, float("inf"), per
        o = res[k]
        if tuple(o.shape) != tuple(r.shape):
            return False, f"output {k!r}: shape {tuple(o.shape)}, reference {tuple(r.shape)}", 0.0, float("inf"), per
        o64 = o.detach().to(torch.float64)
        r64 = r.detach().to(torch.float64)
        nan = int(torch.isnan(o64).sum().item())
        if nan:
            ok = False
            err = err or f"output {k!r}: {nan} NaN elements (unwritten or invalid)"
            per[k] = {"nan": nan}
            max_rel = float("inf")
            continue
        d = o64 - r64
        rn = torch.linalg.vector_norm(r64).item()
        rel = torch.linalg.vector_norm(d).item() / (rn if rn > 0 else 1.0)
        ab = d.abs().max().item() if d.numel() else 0.0
        per[k] = {"rel_err": rel, "max_abs_err": ab, "ref_norm": rn}
        max_abs = max(max_abs, ab)
        max_rel = max(max_rel, rel)
        if not (rel <= tol):
            ok = False
            err = err or f"output {k!r}: relative error {rel:.3g} > tolerance {tol:g}"
    return ok, err, max_abs, max_rel, per


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(_clean(obj), f, indent=1, sort_keys=False, allow_nan=False, default=_json_default)
        f.write("\n")
    os.replace(tmp, path)


def _clean(o):
    """Non-finite floats (an output full of inf, say) become null: JSON has no inf/NaN."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def _json_default(o):
    raise TypeError(f"not JSON serialisable: {type(o)}")


def _finite(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


# ------------------------------------------------------------------ cells

class Cell:
    def __init__(self, exp, variant, shape, seed):
        self.exp, self.variant, self.shape = exp, variant, shape
        self.seed = seed
        self.vars = specmod.parse_shape(shape)
        self.dtype = DTYPES[exp.dtype]
        self.mod = exp_module(exp.name)
        self.impl = None

    @property
    def label(self):
        return f"{self.exp.name}/{self.variant.name}/{self.shape}"

    def make_impl(self):
        factory = getattr(self.mod, "VARIANTS", {}).get(self.variant.name)
        if factory is None:
            raise NotImplementedError(f"variant {self.variant.name!r} has no implementation in {specmod.experiment_dir(self.exp.name)}/variants.py (VARIANTS)")
        self.impl = factory(self.vars, self.dtype)
        return self.impl

    def inputs(self, salt):
        g = torch.Generator(device="cuda")
        g.manual_seed(cell_seed(self.seed, self.exp.name, self.variant.name, self.shape, salt))
        return self.mod.make_inputs(self.vars, self.dtype, g, backward=self.variant.backward)

    def reference(self, inputs, salt):
        """The float32 reference of inputs (those of cell.inputs(salt)), computed once per
        (experiment, shape, seed, backward, salt) in this process (refcache.RefCache)."""
        key = (self.exp.name, self.shape, self.seed, bool(self.variant.backward), salt)
        return REFERENCES.get(key, lambda: self.mod.reference(self.vars, inputs, backward=self.variant.backward))


# The reference of the shape at hand, shared by its variants (refcache).
REFERENCES = refcache.RefCache()


def launch_mode():
    """The Triton launch path in effect ("plan" | "triton-dispatch"): tk_launch's, where a
    variant loaded it (its plans may have been turned off at run time), else the knob's."""
    tl = sys.modules.get(__package__ + ".tk_launch")
    if tl is not None:
        return tl.launch_mode()
    return "plan" if knobs.fast_launch() else "triton-dispatch"


def code_record():
    """The "code" key of a cell's JSON: the knobs in effect with torch's two TF32 flags
    (records.tf32_flags), the picks the cell used since its check began (picks.reset_used),
    the launch path."""
    return records.code_record({**knobs.effective(), **records.tf32_flags(torch)}, picks.used(), launch_mode())


def run_check(cell, vs=None):
    """Check one cell; returns the check JSON object. vs (a vsbase.Tracker, check pass
    only) adds the comparison with the baseline's output on the same inputs."""
    picks.reset_used()
    res = records.check_record(cell.exp.name, cell.variant.name, cell.shape, cell.exp.tolerance)
    miss = requires_missing(cell.variant.requires)
    if miss:
        records.skipped_record(res, miss)
        if vs is not None:
            vs.skipped(cell, res)
        res["code"] = code_record()
        return res
    base = vs.begin(cell) if vs is not None else None
    t0 = time.time()
    try:
        impl = cell.make_impl()
        # Warm call on one input set (compiles, autotunes; autotuning writes the outputs).
        st = impl.prepare(cell.inputs(0))
        out = impl.alloc(st)
        impl.run(st, out)
        torch.cuda.synchronize()
        del st, out
        # Checked calls on fresh inputs, outputs poisoned before each: the first call on
        # these buffers, then a second one on the same buffers, as timing repeats it (Triton
        # variants launch a repeated call through a cached launch plan, tk_launch._launch).
        inputs = cell.inputs(1)
        st = impl.prepare(inputs)
        out = impl.alloc(st)
        ref = cell.reference(inputs, 1)
        calls = 0
        for call in ("first", "second"):
            calls += 1
            poison(out)
            poison_allocator(2 * nbytes(inputs))
            got = impl.run(st, out)
            torch.cuda.synchronize()
            ok, err, mabs, mrel, per = compare(got, ref, cell.exp.tolerance)
            if not ok:
                err = f"{call} call on the same buffers: {err}"
            res.update(ok=ok, error=err, max_abs_err=_finite(mabs), max_rel_err=_finite(mrel), outputs=per)
            if not ok:
                break
        res["calls"] = calls
        del ref
        if vs is not None:  # the last call's outputs against the baseline's, same inputs
            vs.finish(cell, res, got, base)
            vs = None
        del got, st, out, inputs
    except Exception as e:  # noqa: BLE001 - a failing variant fails its cell, loudly
        res.update(ok=False, error=f"{type(e).__name__}: {e}", traceback=traceback.format_exc()[-4000:])
    if vs is not None:
        vs.finish(cell, res, None, base)
    res["seconds"] = round(time.time() - t0, 3)
    res["code"] = code_record()
    torch.cuda.empty_cache()
    return res


def _rotation_sets(cell, impl, min_bytes, max_sets=16):
    first_inputs = cell.inputs(100)
    st = impl.prepare(first_inputs)
    out = impl.alloc(st)
    sets = [(st, out)]
    per = max(1, nbytes(first_inputs) + nbytes(out))
    want = min(max_sets, max(1, math.ceil(min_bytes / per)))
    free, _ = torch.cuda.mem_get_info()
    want = max(1, min(want, int(0.4 * free // per)))
    for i in range(1, want):
        st = impl.prepare(cell.inputs(100 + i))
        sets.append((st, impl.alloc(st)))
    return sets


def warm_up(fns, n, min_s=0.2):
    """At least n calls and at least min_s seconds of device work (clocks ramp up from
    idle; the first reps of a cold GPU run slower)."""
    t0 = time.perf_counter()
    i = 0
    while True:
        for _ in range(max(1, len(fns))):
            fns[i % len(fns)]()
            i += 1
        torch.cuda.synchronize()
        if i >= n and time.perf_counter() - t0 >= min_s:
            return i
        if i > 100000:
            return i


def capture(impl, sets):
    """One CUDA graph per buffer set, each capturing one impl.run call (warmed outside the
    capture and on a side stream first, as torch.cuda.graph wants)."""
    for st, out in sets:
        impl.run(st, out)  # warm outside capture
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for st, out in sets:
            impl.run(st, out)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    graphs = []
    for st, out in sets:
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            impl.run(st, out)
        graphs.append(g)
    return graphs


def _timed_reps(fns, reps, clock_at=()):
    """reps calls of fns (rotated), each bracketed by its own pair of CUDA events; returns
    (ms per rep, clock samples read when rep i of clock_at had been enqueued)."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    at = set(clock_at)
    samples = [records.clock_sample(0, clocks())] if 0 in at else []
    for i in range(reps):
        f = fns[i % len(fns)]
        starts[i].record()
        f()
        ends[i].record()
        if i + 1 in at and i + 1 < reps:
            samples.append(records.clock_sample(i + 1, clocks()))
    torch.cuda.synchronize()
    return [starts[i].elapsed_time(ends[i]) for i in range(reps)], samples


def _device_time(impl, sets, graph, samples, clock_samples, reps, warmup):
    """Device time per rep without host launch overhead: one call per buffer set captured
    in a CUDA graph, graph replays timed with CUDA events, the clocks sampled as in the
    wall loop (graph variants: their timed samples and clock samples are that already).
    Returns records.device_fields; never raises."""
    if graph:
        return records.device_fields(list(samples), reps, clock_samples=list(clock_samples))
    if not getattr(impl, "graph_ok", True):
        return records.device_fields(None, reps, "the variant cannot be captured in a CUDA graph (graph_ok = False)")
    graphs = None
    try:
        graphs = capture(impl, sets)
        fns = [g.replay for g in graphs]
        warm_up(fns, warmup)
        ms, clk = _timed_reps(fns, reps, records.clock_sample_reps(reps))
        clk.append(records.clock_sample(reps, clocks()))  # after the loop's synchronisation
        return records.device_fields(ms, reps, clock_samples=clk)
    except Exception as e:  # noqa: BLE001 - device time never fails the cell
        try:
            torch.cuda.synchronize()
        except Exception:  # noqa: BLE001
            pass
        return records.device_fields(None, reps, f"capture or replay failed: {type(e).__name__}: {e}")
    finally:
        del graphs


def run_time(cell, reps, warmup):
    """Time one cell (its check must have passed). Returns the timing JSON object."""
    impl = cell.impl or cell.make_impl()
    l2 = l2_bytes()
    sets = _rotation_sets(cell, impl, 3 * l2)
    graph = cell.variant.graph
    if graph and not getattr(impl, "graph_ok", True):
        raise RuntimeError(f"{cell.label}: spec says graph: true but the implementation cannot be captured")
    if graph:
        fns = [g.replay for g in capture(impl, sets)]
    else:
        fns = [(lambda st=st, out=out: impl.run(st, out)) for st, out in sets]
    warm_up(fns, warmup)
    samples, clock_samples = _timed_reps(fns, reps, records.clock_sample_reps(reps))
    clk = clocks()
    clock_samples.append(records.clock_sample(reps, clk))  # after the loop's synchronisation
    del fns
    # Device time: after the wall-time reps, same buffer sets, same warm-up rules.
    dev = _device_time(impl, sets, graph, samples, clock_samples, reps, warmup)
    dev.update(records.launch_fields(samples, dev.get("device_ms"), graph, dev.get("device_error", "")))
    set_bytes = nbytes(sets[0][0]) + nbytes(sets[0][1])
    n_sets = len(sets)
    del sets
    torch.cuda.empty_cache()
    return records.timing_record(cell.exp.name, cell.variant.name, cell.shape, torch.cuda.get_device_name(), graph,
                                 warmup, reps, n_sets, clk, samples, set_bytes=set_bytes, l2_bytes=l2,
                                 clock_samples=clock_samples, gpu_uuid=gpu().uuid, **dev, code=code_record())


def run_profile(cell, warmup):
    # Autograd runs backward on a per-device worker thread by default. NVTX
    # push/pop ranges are per thread, so ncu's --nvtx-include and nsys'
    # attribution (launch on the range's thread) would miss every backward
    # kernel. Single-threaded autograd launches them from this thread, inside
    # the cell's range; the kernels themselves are the same.
    with torch.autograd.set_multithreading_enabled(False):
        return _run_profile(cell, warmup)


def _run_profile(cell, warmup):
    impl = cell.impl or cell.make_impl()
    st = impl.prepare(cell.inputs(200))
    out = impl.alloc(st)
    fn = lambda: impl.run(st, out)
    if cell.variant.graph:
        fn = capture(impl, [(st, out)])[0].replay
    warm_up([fn], max(1, warmup), min_s=0.05)
    nv = torch.cuda.nvtx
    nv.range_push(cell.exp.name)
    nv.range_push(cell.variant.name)
    nv.range_push(cell.shape)
    fn()
    torch.cuda.synchronize()
    nv.range_pop()
    nv.range_pop()
    nv.range_pop()
    del st, out, fn
    torch.cuda.empty_cache()
    rec = records.profile_record(cell.exp.name, cell.variant.name, cell.shape, cell.variant.graph)
    rec["code"] = code_record()
    return rec
