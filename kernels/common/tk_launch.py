"""How every Triton kernel in kernels/ is launched: launch plans (a cache that calls
Triton's compiled kernel directly and so reaches into Triton 3.6 internals), the
tensor-map memo, autotune picks shared across a run's passes, the launch grids.

GEMM families: tk_gemm (mm_epi), tk_dual (dual accumulators); elementwise: tk_elementwise;
runtime picker: tk_pick. Every launch, fused candidate or unfused baseline, autotuned or
plain @triton.jit, goes through _launch (launch_jit for plain kernels), so a host-bound
shape pays the same host path in every variant. ROOFTOOL_FAST_LAUNCH=0 turns plans (and
the tensor-map memo) off for all of them.
"""
from __future__ import annotations

import inspect
import sys

import torch
import triton
from . import knobs, picks

_AUTOTUNE_KW = {}
if "cache_results" in inspect.signature(triton.autotune).parameters:
    _AUTOTUNE_KW["cache_results"] = True  # keep the chosen config on disk across runner processes


def autotune(name, configs, key):
    """triton.autotune(configs, key) of a JIT kernel, named for the picks file: the config
    it chooses per tuning key is recorded in ROOFTOOL_PICKS and reused by the later passes."""
    def wrap(fn):
        tuner = triton.autotune(configs=configs, key=key, **_AUTOTUNE_KW)(fn)
        tuner._rooftool_name = name
        return tuner
    return wrap


def cfg_name(cfg):
    """A config as text, e.g. "BLOCK_K=64,BLOCK_M=128,BLOCK_N=256,GROUP_M=8,warps=8,stages=3"."""
    kw = ",".join(f"{k}={v}" for k, v in sorted(cfg.kwargs.items()))
    return f"{kw},warps={cfg.num_warps},stages={cfg.num_stages}"


# TMA (tensor-descriptor) operands for Hopper: out-of-range rows/columns read as zero.
try:
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # older Triton: the pointer kernels are used
    TensorDescriptor = None


def _tma_ok(*ts):
    if TensorDescriptor is None:
        return False
    for t in ts:
        if t.stride(1) != 1 or (t.stride(0) * t.element_size()) % 16 or t.data_ptr() % 16:
            return False
    return True


def _desc(t):
    return TensorDescriptor(t, list(t.shape), list(t.stride()), [1, 1])


# Triton encodes every host TensorDescriptor argument into a CUtensorMap
# (cuTensorMapEncodeTiled, through triton.backends.nvidia.driver.make_tensordesc_arg)
# on every launch, in Python. The encoding is a pure function of the base address, shape,
# strides, padding and the kernel's box/swizzle metadata, and the launcher copies the map
# into the kernel parameters by value, so one map can serve every launch with the same
# inputs. ROOFTOOL_FAST_LAUNCH=0 keeps Triton's per-launch encoding.
FAST_LAUNCH = knobs.fast_launch()
_TMAP_CACHE_MAX = 4096


def fast_descriptors(on=True):
    """Memoise Triton's per-launch tensor-map encoding (on) or restore it (off). Returns
    whether the memoised encoder is installed (False where this Triton has no such hook)."""
    try:
        from triton.backends.nvidia import driver as drv
    except ImportError:
        return False
    cur = getattr(drv, "make_tensordesc_arg", None)
    if cur is None:
        return False
    orig = getattr(cur, "_rooftool_orig", cur)
    if not on:
        drv.make_tensordesc_arg = orig
        return False
    if cur is not orig:
        return True
    cache = {}

    def make_tensordesc_arg(arg, metadata):
        if metadata is None:  # not lowered to a tensor map: nothing is encoded
            return orig(arg, metadata)
        key = (arg.base.data_ptr(), arg.base.dtype, tuple(arg.shape), tuple(arg.strides), arg.padding,
               metadata["swizzle"], metadata["elem_size"], metadata["elem_type"], tuple(metadata["block_size"]),
               metadata["fp4_padded"])
        r = cache.get(key)
        if r is None:
            if len(cache) >= _TMAP_CACHE_MAX:
                cache.clear()
            r = cache[key] = orig(arg, metadata)
        return r

    make_tensordesc_arg._rooftool_orig = orig
    make_tensordesc_arg.cache = cache
    drv.make_tensordesc_arg = make_tensordesc_arg
    return True


if FAST_LAUNCH and TensorDescriptor is not None:
    fast_descriptors(True)


# ---------------------------------------------------------------- launch fast path
# A Triton launch from Python costs more host time than many of these kernels run
# (measured on an H100, 2026-11-22, 256x256x128 GEMM, host time per call): the JIT
# dispatch (argument binding, specialisation, cache lookup) 31 us, six host
# TensorDescriptor objects 11 us, their tensor-map encoding 7 us; triton.autotune's
# wrapper and mm_epi's own checks add the rest: 105-135 us a call in all, so at gated_ssm's
# MVE shape the GEMMs were host-bound (126 us of host time for an 80 us kernel).
# So _launch keeps, per exact call (kernel, tuning key, every tensor's address, dtype,
# shape and strides, every scalar), a launch plan: the compiled kernel, its grid and its
# arguments with tensors as addresses and descriptors over bare addresses, launched
# directly: 36-52 us a call in all (kernels/NOTES.md, "Triton launch path"). The plan holds no
# tensor: an address that is freed and handed out
# again names the same memory with the same layout, which is all the kernel reads.
# An autotuned kernel gets a plan from the second call with a given key on (the first
# one tunes), a plain @triton.jit kernel from its first call; the plan serves every
# later call; runner.run_check checks a second call on the same buffers.
# ROOFTOOL_FAST_LAUNCH=0 turns plans (and the tensor-map memo above) off.
_BEST = {}  # (id(tuner), key) -> (config, picks key, config name)
_PLANS = {}  # plan key -> (plan, pick note or None)
_PLANS_MAX = 1024
PLAN_STATS = {"hits": 0}  # launches served by a plan (read by probes and tests)


class _D:
    """An operand passed to a kernel as a TMA tensor descriptor (built in _launch)."""
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


class _Addr:
    """A device address and dtype standing in for a tensor under a plan's descriptor."""
    __slots__ = ("ptr", "dtype")

    def __init__(self, t):
        self.ptr, self.dtype = t.data_ptr(), t.dtype

    def data_ptr(self):
        return self.ptr


def _arg_key(x):
    if isinstance(x, torch.Tensor):
        return x.data_ptr(), x.dtype, x.shape, x.stride()
    if isinstance(x, _D):
        t = x.t
        return "desc", t.data_ptr(), t.dtype, t.shape, t.stride()
    return x


def _cfg_kwargs(cfg):
    if hasattr(cfg, "all_kwargs"):
        return cfg.all_kwargs()
    kw = dict(cfg.kwargs)
    kw.update(num_warps=cfg.num_warps, num_stages=cfg.num_stages)
    return kw


def _stream_fn():
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda dev: torch.cuda.current_stream(dev).cuda_stream


def _launch_hooks_set():
    """Whether launch hooks (e.g. Proton's) are registered: the JIT path calls them with
    per-launch metadata, a plan would not. Triton 3.6 keeps them as HookChains, empty by
    default; a Triton without triton.knobs gets no plans."""
    rt = getattr(getattr(triton, "knobs", None), "runtime", None)
    if rt is None:
        return True
    for h in (getattr(rt, "launch_enter_hook", None), getattr(rt, "launch_exit_hook", None)):
        if h is not None and getattr(h, "calls", True):
            return True
    return False


def launch_mode():
    """The Triton launch path in effect: "plan" or "triton-dispatch" (the JIT's own)."""
    return "plan" if FAST_LAUNCH and not _launch_hooks_set() else "triton-dispatch"


class _NoPlan(Exception):
    """This Triton's compiled kernel object is not the one plans were written against."""


def _make_plan(kern, names, full, grid):
    """A closure launching kern with the arguments in full (by parameter name) on the
    caller's current stream, or None while launch hooks are set. Raises _NoPlan where this
    Triton's kernel object is not the one this was written against (Triton 3.6:
    CompiledKernel.run is the CudaLauncher)."""
    if hasattr(kern, "result"):
        kern = kern.result()
    if _launch_hooks_set():
        return None
    run = getattr(kern, "run", None)
    fn, md = getattr(kern, "function", None), getattr(kern, "packed_metadata", None)
    if run is None or fn is None or md is None:
        raise _NoPlan(f"compiled kernel {type(kern).__name__} has no run/function/packed_metadata")
    vals = []
    for n in names:
        v = full[n]
        if isinstance(v, torch.Tensor):
            v = v.data_ptr()
        elif TensorDescriptor is not None and isinstance(v, TensorDescriptor):
            v = TensorDescriptor(_Addr(v.base), list(v.shape), list(v.strides), list(v.block_shape), v.padding)
        vals.append(v)
    g = tuple(grid) + (1, 1)
    g0, g1, g2 = g[0], g[1], g[2]
    dev = torch.cuda.current_device()
    stream = _stream_fn()

    def plan():
        run(g0, g1, g2, stream(dev), fn, md, None, None, None, *vals)

    return plan


def _grid(M, N, sms=0):
    """The launch grid of an M x N output for a config: one program per tile, or for a
    persistent kernel (sms > 0) at most one per SM."""
    def grid(meta):
        n = triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])
        return (min(sms, n) if sms else n,)
    return grid


_SMS = {}


def num_sms(device=None):
    d = torch.cuda.current_device() if device is None else device
    if d not in _SMS:
        _SMS[d] = torch.cuda.get_device_properties(d).multi_processor_count
    return _SMS[d]


def _best(tuner, key):
    """The config for (tuner, key): known in this process, recorded by an earlier pass of
    this run (ROOFTOOL_PICKS), or None (the caller autotunes)."""
    b = _BEST.get((id(tuner), key))
    if b is not None:
        return b
    pkey = repr(("autotune", getattr(tuner, "_rooftool_name", tuner.fn.__name__), key))
    byname = {cfg_name(c): c for c in tuner.configs}
    saved = picks.lookup(pkey, byname)
    if saved is None:
        return None
    b = _BEST[(id(tuner), key)] = (byname[saved], pkey, saved)
    return b


def _store_plan(pk, kern, names, full, grid, note):
    global FAST_LAUNCH
    try:
        plan = _make_plan(kern, names, full, grid)
    except (AttributeError, KeyError, TypeError, AssertionError, _NoPlan) as e:  # another Triton's internals
        FAST_LAUNCH = False
        print(f"tk: launch plans off ({type(e).__name__}: {e})", file=sys.stderr)
        return
    if plan is not None:
        if len(_PLANS) >= _PLANS_MAX:
            _PLANS.clear()
        _PLANS[pk] = (plan, note)


def _launch(tuner, key, grid_fn, args, kwargs, hook=None):
    """Launch tuner (a triton.autotune of a JIT kernel, or a plain @triton.jit kernel)
    with args (tensors, _D operands that become tensor descriptors, scalars) and kwargs
    (constexprs; for a plain kernel also num_warps/num_stages). grid_fn: a grid tuple or
    a function of the config's meta-parameters. The first call for an autotuned key tunes
    (unless an earlier pass of the run recorded its pick); later ones launch the chosen
    config directly, through a plan when FAST_LAUNCH. hook(nargs) sizes descriptor boxes
    to the config (nargs by name)."""
    pk = None
    if FAST_LAUNCH:
        pk = (id(tuner), key, tuple(_arg_key(a) for a in args), tuple(kwargs.items()))
        hit = _PLANS.get(pk)
        if hit is not None:
            hit[0]()
            if hit[1] is not None:
                picks.note(*hit[1])
            PLAN_STATS["hits"] += 1
            return
    real = tuple(_desc(a.t) if isinstance(a, _D) else a for a in args)
    if not hasattr(tuner, "configs"):  # a plain @triton.jit kernel: nothing to tune
        grid = grid_fn(kwargs) if callable(grid_fn) else grid_fn
        kern = tuner[grid](*real, **kwargs)
        if pk is not None and kern is not None:
            names = tuner.arg_names
            _store_plan(pk, kern, names, {**dict(zip(names, real)), **kwargs}, grid, None)
        return
    b = _best(tuner, key)
    if b is None:
        tuner[grid_fn](*real, **kwargs)
        best = getattr(tuner, "best_config", None)
        if best is not None:
            pkey = repr(("autotune", getattr(tuner, "_rooftool_name", tuner.fn.__name__), key))
            name = cfg_name(best)
            _BEST[(id(tuner), key)] = (best, pkey, name)
            picks.record(pkey, name)
            picks.note(pkey, name)
        return
    cfg, pkey, name = b
    picks.note(pkey, name)
    names = tuner.fn.arg_names
    full = {**dict(zip(names, real)), **kwargs, **cfg.kwargs}
    if hook is not None:
        hook(full)
    grid = grid_fn(cfg.kwargs) if callable(grid_fn) else grid_fn
    kern = tuner.fn[grid](*real, **kwargs, **_cfg_kwargs(cfg))
    if pk is not None and kern is not None:
        _store_plan(pk, kern, names, full, grid, (pkey, name))


def launch_jit(kernel, grid, args, **kwargs):
    """Launch a plain @triton.jit kernel: kernel[grid](*args, **kwargs), through the same
    launch path (plans) as the autotuned GEMMs. args: tensors and scalars, positional;
    kwargs: constexprs and launch options (num_warps, num_stages)."""
    _launch(kernel, (), grid, args, kwargs)
