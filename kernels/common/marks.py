"""Marks for a program of your own that rooftool profiles (`rooftool profile --cmd`; the
contract is in kernels/README.md, "Profile a program of your own").

    from rooftool_marks import mark, measure

    for _ in mark("myexp", "fused", "M=4096,N=4096"):
        y = fused(a, b)                      # the region: one call of the variant

    y = measure("myexp", "unfused", "M=4096,N=4096", lambda: unfused(a, b))

dtype= (either form; bf16, fp16, fp8, tf32, fp32 or fp64, one per experiment) names the
element type: it becomes the experiment's dtype, which picks the compute roof of the
roofline floor the report sets beside speedup and time claims.

Each mark is one cell, experiment/variant/shape, and its NVTX range is the nested push/pop
ranges experiment > variant > shape that rooftool's own runner uses. A loop over mark()
runs its body as often as the run of the program needs, by ROOFTOOL_MARKS_MODE (set by
rooftool for each run of the program; unset in a plain run):

    unset    once, inside the cell's NVTX range (where an NVTX binding is present)
    list     once, no range; the cell is appended to $ROOFTOOL_MARKS_OUT/marks.jsonl
    time     warm-up (>= ROOFTOOL_MARKS_WARMUP calls and 0.2 s), then ROOFTOOL_MARKS_REPS
             calls, each between its own pair of CUDA events; writes the timing record
             $ROOFTOOL_MARKS_OUT/<experiment>/<variant>/<shape>.json (records.timing_record)
    profile  warm-up outside any range, synchronize, then one call inside the cell's NVTX
             range, synchronize; writes <experiment>/<variant>/<shape>.profile.json

ROOFTOOL_MARKS_CELLS (experiment/variant/shape lines) limits time and profile to those cells;
the body of any other mark runs once, unmarked and untimed. Without CUDA (no torch, or no
device) time mode times by the host clock and the record says so ("method": "host").

Importable as common.marks (kernels/ on sys.path) and as rooftool_marks (the package
rooftool writes next to a --cmd run, on the program's PYTHONPATH); it needs records.py and
gpuid.py beside it and nothing else (torch, pynvml and nvtx are used where present).
"""
from __future__ import annotations

import json
import os
import sys
import time

from . import gpuid, records

ENV_MODE = "ROOFTOOL_MARKS_MODE"
ENV_OUT = "ROOFTOOL_MARKS_OUT"
ENV_CELLS = "ROOFTOOL_MARKS_CELLS"
ENV_REPS = "ROOFTOOL_MARKS_REPS"
ENV_WARMUP = "ROOFTOOL_MARKS_WARMUP"
MODES = ("", "list", "time", "profile")
DEFAULT_REPS, DEFAULT_WARMUP = 50, 10  # kernels/run.py's --reps and --warmup defaults
MIN_WARMUP_S = 0.2  # as the runner's warm-up: clocks ramp up from idle
MARKS_FILE = "marks.jsonl"

_nvtx = None  # (push, pop) once chosen


def use_nvtx(push, pop):
    """Push and pop NVTX ranges with these functions (e.g. another NVTX binding) instead of
    torch.cuda.nvtx or the nvtx package."""
    global _nvtx
    _nvtx = (push, pop)


def _nvtx_fns():
    global _nvtx
    if _nvtx is None:
        t, _ = _cuda()
        if t is not None:
            _nvtx = (t.cuda.nvtx.range_push, t.cuda.nvtx.range_pop)
        else:
            try:
                import nvtx
                _nvtx = (nvtx.push_range, nvtx.pop_range)
            except ImportError:
                _nvtx = (None, None)
    return _nvtx


def _cuda():
    """(torch, "") where torch sees a CUDA device, else (None, why not)."""
    try:
        import torch
    except ImportError:
        return None, "torch is not installed"
    if not torch.cuda.is_available():
        return None, "torch sees no CUDA device"
    return torch, ""


def _env_int(name, default, least):
    v = os.environ.get(name, "")
    if v == "":
        return default
    try:
        n = int(v)
    except ValueError:
        raise ValueError(f"{name}={v!r}: want an integer") from None
    if n < least:
        raise ValueError(f"{name}={n}: want at least {least}")
    return n


def _mode():
    m = os.environ.get(ENV_MODE, "")
    if m not in MODES:
        raise ValueError(f"{ENV_MODE}={m!r}: want one of list, time, profile (or unset)")
    return m


def _selected(key):
    cells = os.environ.get(ENV_CELLS)
    return cells is None or key in cells.splitlines()


def _check_name(what, s, key):
    if not isinstance(s, str) or not s or "/" in s or any(c.isspace() for c in s):
        raise ValueError(f"rooftool_marks: range {key!r}: {what} {s!r}: want a non-empty name "
                         "without '/' or white space")


def _out_path(exp, variant, shape, suffix):
    out = os.environ.get(ENV_OUT, "")
    if not out:
        raise ValueError(f"{ENV_MODE}={_mode()} needs {ENV_OUT} (a folder)")
    return os.path.join(out, exp, variant, shape + suffix)


def _write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


def _append_mark(obj):
    out = os.environ.get(ENV_OUT, "")
    if not out:
        raise ValueError(f"{ENV_MODE}=list needs {ENV_OUT} (a folder)")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, MARKS_FILE), "a", encoding="utf-8") as f:
        f.write(json.dumps(obj) + "\n")


def _clocks():
    """SM and memory clocks of the GPU this process's current CUDA device is, read by its
    UUID (NVML ignores CUDA_VISIBLE_DEVICES: its index 0 is the host's first GPU); {} without
    torch with CUDA, or where neither NVML nor nvidia-smi answers."""
    try:
        import torch
        uuid = torch.cuda.get_device_properties(torch.cuda.current_device()).uuid
    except Exception:  # noqa: BLE001 - no torch or no device: no clocks
        return {}
    return gpuid.GPU(uuid).clocks()


class mark:  # noqa: N801 - used like a keyword: for _ in mark(...)
    """One cell of the program: iterate over it and put one call of the variant in the body."""

    def __init__(self, experiment, variant, shape, dtype=None):
        self.key = f"{experiment}/{variant}/{shape}"
        self.experiment, self.variant, self.shape = experiment, variant, shape
        self.dtype = dtype  # the element type (bf16, fp16, fp8, tf32, fp32, fp64): picks the roofline floor

    def __iter__(self):
        mode = _mode()
        for what, s in (("experiment", self.experiment), ("variant", self.variant), ("shape", self.shape)):
            try:
                _check_name(what, s, self.key + "/")
            except ValueError as e:
                if mode == "list":
                    _append_mark({"range": self.key + "/", "error": str(e)})
                raise
        if mode == "list":
            cell = {"experiment": self.experiment, "variant": self.variant, "shape": self.shape}
            if self.dtype:
                cell["dtype"] = self.dtype
            _append_mark(cell)
            yield 0
        elif mode == "" or not _selected(self.key):
            yield from self._plain(mode == "")
        elif mode == "time":
            yield from self._time()
        else:
            yield from self._profile()

    def _push(self):
        push, _ = _nvtx_fns()
        if push is None:
            return False
        for n in (self.experiment, self.variant, self.shape):
            push(n)
        return True

    def _pop(self):
        _, pop = _nvtx_fns()
        for _ in range(3):
            pop()

    def _plain(self, ranged):
        pushed = ranged and self._push()
        try:
            yield 0
        finally:
            if pushed:
                self._pop()

    def _warm(self, t, n):
        """Warm-up calls: at least n and at least MIN_WARMUP_S of work; returns the count."""
        t0, i = time.perf_counter(), 0
        while True:
            yield i
            i += 1
            if i >= n:
                if t is not None:
                    t.cuda.synchronize()
                if time.perf_counter() - t0 >= MIN_WARMUP_S or i > 100000:
                    return i

    def _time(self):
        reps = _env_int(ENV_REPS, DEFAULT_REPS, 1)
        warmup = _env_int(ENV_WARMUP, DEFAULT_WARMUP, 0)
        t, why = _cuda()
        done = yield from self._warm(t, warmup)
        at = set(records.clock_sample_reps(reps))
        samples = [records.clock_sample(0, _clocks())] if t is not None else []
        ms = []
        if t is not None:
            starts = [t.cuda.Event(enable_timing=True) for _ in range(reps)]
            ends = [t.cuda.Event(enable_timing=True) for _ in range(reps)]
            for k in range(reps):
                starts[k].record()
                yield done + k
                ends[k].record()
                if k + 1 in at and k + 1 < reps:
                    samples.append(records.clock_sample(k + 1, _clocks()))
            t.cuda.synchronize()
            ms = [starts[k].elapsed_time(ends[k]) for k in range(reps)]
            device, clk = t.cuda.get_device_name(), _clocks()
            samples.append(records.clock_sample(reps, clk))
            extra = records.device_fields(None, reps, "a marked region is timed as the program runs it: "
                                          "no CUDA-graph replay (device time: the nsys kernel sum)")
        else:
            for k in range(reps):
                t0 = time.perf_counter()
                yield done + k
                ms.append((time.perf_counter() - t0) * 1e3)
            device, clk = "", {}
            extra = records.device_fields(None, reps, "host clock: " + why)
        rec = records.timing_record(self.experiment, self.variant, self.shape, device, False, done, reps, 1,
                                    clk, ms, clock_samples=samples, **extra)
        if t is None:
            rec["method"] = "host"
            rec["method_reason"] = why
        _write_json(_out_path(self.experiment, self.variant, self.shape, ".json"), rec)
        med = sorted(ms)[reps // 2] * 1e3
        print(f"{self.key}: timed {reps} reps ({rec['method']}), median {med:.1f} us", file=sys.stderr, flush=True)

    def _profile(self):
        warmup = _env_int(ENV_WARMUP, DEFAULT_WARMUP, 0)
        t, _ = _cuda()
        if _nvtx_fns()[0] is None:
            raise RuntimeError(f"rooftool_marks: range {self.key}/: no NVTX binding (torch with CUDA, the nvtx "
                               "package, or use_nvtx()): ncu and nsys could not see the range")
        done = yield from self._warm(t, max(1, warmup))
        if t is not None:
            t.cuda.synchronize()
        self._push()
        try:
            yield done
            if t is not None:
                t.cuda.synchronize()
        finally:
            self._pop()
        _write_json(_out_path(self.experiment, self.variant, self.shape, ".profile.json"),
                    records.profile_record(self.experiment, self.variant, self.shape, False))
        print(f"{self.key}: one call in its NVTX range after {done} warm-up calls", file=sys.stderr, flush=True)


def measure(experiment, variant, shape, fn, dtype=None):
    """Run fn() as the body of mark(experiment, variant, shape, dtype); returns its last result."""
    out = None
    for _ in mark(experiment, variant, shape, dtype):
        out = fn()
    return out
