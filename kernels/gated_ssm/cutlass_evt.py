"""gated_ssm's cutlass-evt variant: CUTLASS 3.x (SM90) GEMMs with Epilogue Visitor
Trees, built at run time by the nvidia-cutlass Python interface (module cutlass_cppgen,
which compiles each kernel with nvcc on first use and caches it in compiled_cache.db in
the working directory).

  qkv   = x @ W_qkv                      plain GEMM
  alpha = sigmoid(x @ W_alpha)           EVT: D = sigmoid(accum)
  gate  = silu(x @ W_g), go = gate * o   2-output EVT: F = silu(accum) (aux store of gate),
                                         D = F * o (aux load of o; D is go): the gating
                                         multiply rides in the gate GEMM's epilogue, so this
                                         GEMM runs after the scan (it only needs x)
  y     = go @ W_O + x                   EVT: D = accum + x (aux load)
Default (ROOFTOOL_CUTLASS_GATE=evt): the 2-output gate EVT, 4 launches, every elementwise op
in a GEMM epilogue. On SM90 cutlass_cppgen 4.2 wants D to be an output node with no users
(C and D share shared memory), so D must be the last product and the intermediate silu(accum)
the extra (aux-store) output: the form D = silu(accum), F = D * o is refused, and
F = silu(accum) * o, D = silu(accum) fails to trace (KeyError: 'D'); both were the earlier
attempts. ROOFTOOL_CUTLASS_GATE=mul keeps a 1-output gate EVT, D = silu(accum), and a
torch.mul for the gating multiply (5 launches).

Launch cost: plan.run() builds the kernel's argument structures in Python on every call,
about 2 ms per GEMM on the H200 (measured: a 65 us GEMM took 2 ms a call). The variant
keeps each call's GemmArguments per buffer set and relaunches with operation.run(args),
which is one cuLaunchKernel.

Tiles: each GEMM of each shape runs the tile its sweep picked for this GPU
(kernels/sweeps/picks/<gpu>.json, made from kernels/sweeps/results by make_picks.py; read
through common/sweep_picks.py), else one default, 256x256x64/2x1/coop (a 128x256 CTA tile in a
2x1 cluster, the tile and cluster cuBLAS's nvjet kernel uses on these GEMMs; measured on an
H200, kernels/sweeps/README.md, plain GEMM 32768x6144x2048: 94% of cuBLAS, where the earlier
256x128x64/1x2 reached 64%). No candidate is compiled or timed at run time: the sweep over
tiles is kernels/sweeps' job. ROOFTOOL_CUTLASS_TILE overrides the picks for every GEMM: one
tile MxNxK/CMxCN/coop|ping (threadblock tile as cutlass_cppgen 4.2 names it, i.e. CTA tile
times cluster; cluster; cooperative or ping-pong TMA warp-specialised kernel), or several,
comma-separated, of which each GEMM of each shape runs the fastest, timed once on its own
operands and kept in the run's picks; "default" asks for the interface's own choice
(256x256x64, 2x1 cluster, ping-pong: a 128x256 accumulator per warpgroup, 5% of cuBLAS on an
H100). The tile each GEMM ran and where it came from (knob, picks, default) are noted in the
cell's picks ("code" -> "picks", key cutlass-evt-tile/<gemm>/<M>x<N>x<K>).
ROOFTOOL_CUTLASS_RASTER sets the persistent
scheduler's swizzle and raster order (no recompile; within 3% on these GEMMs).
"""
from __future__ import annotations

import sys

import torch


def _cuda_python_shim():
    """cutlass_cppgen 4.2 imports the pre-13 cuda-python layout (cuda.cuda, cuda.cudart,
    cuda.nvrtc, cuda.__version__); cuda-bindings 13 keeps them under cuda.bindings."""
    import cuda
    ver = None
    try:
        import cuda.bindings
        ver = getattr(cuda.bindings, "__version__", None)
    except ImportError:
        pass
    try:
        import cuda.cuda  # noqa: F401  (old layout present)
    except ImportError:
        from cuda.bindings import driver, nvrtc, runtime
        sys.modules["cuda.cuda"], sys.modules["cuda.cudart"], sys.modules["cuda.nvrtc"] = driver, runtime, nvrtc
        cuda.cuda, cuda.cudart, cuda.nvrtc = driver, runtime, nvrtc
    if not hasattr(cuda, "__version__") and ver:
        cuda.__version__ = ver


_cuda_python_shim()

import cutlass_cppgen as cutlass  # noqa: E402  (missing -> the runner skips the variant first)
from cutlass_cppgen.epilogue import sigmoid, silu  # noqa: E402,F401  (names used inside traced functions)
from cuda.bindings import driver as _drv  # noqa: E402


def _use_run_cache():
    """cutlass_cppgen opens compiled_cache.db (its module constant CACHE_FILE, relative to
    the working directory) on every lookup and insert. rooftool profile gives the run's own
    copy in ROOFTOOL_CUTLASS_CACHE_DB (RUNDIR/cache/cutlass, shared by every pass of the
    run): lookups and inserts after this go there."""
    from common import knobs as _knobs
    db = _knobs.cutlass_cache_db()
    if not db:
        return
    import importlib
    # The module, not the package attribute: cutlass_cppgen.backend binds the name
    # `compiler` to an ArtifactManager instance, which shadows the module.
    mod = importlib.import_module("cutlass_cppgen.backend.compiler")
    mod.CACHE_FILE = db
    mod.ArtifactManager()  # its constructor makes the table where the database has none


_use_run_cache()

from common import knobs, picks, sweep_picks  # noqa: E402
from common.tk_pick import pick as _pick  # noqa: E402
from common.impl import Impl  # noqa: E402

GATE_MODE = knobs.get("ROOFTOOL_CUTLASS_GATE")  # mul | evt
TILE = knobs.get("ROOFTOOL_CUTLASS_TILE")  # "": the sweep's picks, else sweep_picks.CUTLASS_DEFAULT
RASTER = knobs.get("ROOFTOOL_CUTLASS_RASTER")
_RASTER_ORDER = {"heuristic": 0, "m": 1, "n": 2}  # cutlass::gemm::kernel::detail::RasterOrderOptions


def _scheduler_args(raster=RASTER):
    """The persistent tile scheduler's run-time arguments (max swizzle size, raster order):
    cutlass_cppgen 4.2 always passes swizzle 1 with the heuristic order; ROOFTOOL_CUTLASS_RASTER
    ("S/heuristic|m|n") sets them. Arguments only: the compiled kernel is the same."""
    from cutlass_cppgen.backend import c_types, gemm_operation
    from cutlass_library import TileSchedulerType
    size, _, order = raster.partition("/")
    size, order = int(size), _RASTER_ORDER[order or "heuristic"]
    orig = c_types.get_tile_scheduler_arguments_3x

    def args(tile_scheduler, splits=1):
        if tile_scheduler in (None, TileSchedulerType.Default, TileSchedulerType.Persistent):
            return c_types._PersistentTileSchedulerArguments(size, order)
        return orig(tile_scheduler, splits)
    gemm_operation.get_tile_scheduler_arguments_3x = args


_scheduler_args()


def _epi_silu(accum):
    D = silu(accum)
    return D


def _epi_silu_gate(accum, o):
    # On SM90 D must be an output node without users (C and D share shared memory): D is the
    # gated product go, F the stored silu(accum) (gate), an aux store that D reads.
    F = silu(accum)
    D = F * o
    return D, F


def _epi_sigmoid(accum):
    D = sigmoid(accum)
    return D


def _epi_residual(accum, res):
    D = accum + res
    return D


def describe(td):
    if td is None:
        return "interface default"
    return (f"tile {list(td.threadblock_shape)} cluster {list(td.cluster_shape)} stages {td.stages} "
            f"kernel {getattr(td.kernel_schedule, 'name', td.kernel_schedule)} "
            f"epilogue {getattr(td.epilogue_schedule, 'name', td.epilogue_schedule)}")


def pick_tile(plan, want=TILE, name="gemm"):
    """Among the operations the interface lists for this plan (after its epilogue visitor is
    set: that filters them to TMA epilogues), the one with threadblock tile `want`, a
    cooperative TMA warp-specialised kernel and a TMA epilogue, as far as listed. None (the
    interface's own default) where none fits or want is "default".

    cutlass_cppgen 4.2 emits threadblock_shape / cluster_shape as the CTA tile on SM90 too,
    so 128x256x64 (listed only with a 2x1 cluster) compiles as 64x256 and fails the
    cooperative kernel's "tile M >= 128" assertion (nvcc 13.0). Measured on an H100
    (2026-11-22, silu EVT GEMM 32768x2048x2048): the interface default (256x256x64, 2x1
    cluster, pingpong) took 7.1 ms, 5% of cuBLAS, with 15x the model's DRAM bytes;
    256x128x64 with a 2x1 cluster, cooperative (a 128x128 CTA tile), took 599 us = 62% of
    cuBLAS. The committed run 022317 used the interface default. The same tile with a 1x2
    cluster (the default now; compiled kernels in .cutlass-cache) ran the whole layer 3.1x
    faster than the interface default (see the module docstring).

    want may name the cluster too, MxNxK/CMxCN (e.g. 256x128x64/1x2), and the schedule,
    MxNxK/CMxCN/coop or /ping (TMA warp-specialised cooperative or ping-pong kernel, with
    the matching TMA epilogue). A tile, cluster and schedule the interface does not list is
    made from a listed TMA description of the same plan (TileDescription.clone_and_update);
    the plan's tile_description setter still validates it. Without a cluster, equal
    candidates are ordered by cluster shape, largest first, so every process picks the same
    kernel (the interface lists them in no fixed order, and each pick is a ~60 s compile).
    The pick goes through ROOFTOOL_PICKS under ("cutlass-tile", name, want): a later pass
    of the run builds the kernel the first one built (the description, describe(td), names
    it), and the cell's JSON notes it ("code" -> "picks")."""
    key = repr(("cutlass-tile", name, want))
    if not want or want == "default":
        picks.note(key, describe(None))
        return None
    tile, _, rest = want.partition("/")
    cluster, _, sched = rest.partition("/")
    shape = [int(x) for x in tile.split("x")]
    listed = plan.tile_descriptions()
    cands = [td for td in listed if list(td.threadblock_shape) == shape]
    if cluster:
        cl = [int(x) for x in cluster.split("x")]
        cands = [td for td in cands if list(td.cluster_shape)[:len(cl)] == cl]
    if sched:
        cands = [td for td in cands if _SCHED[sched][0] == getattr(td.kernel_schedule, "name", "")]
        if not cands:
            made = _made_tile(listed, shape, cl if cluster else [1, 1], sched)
            cands = [made] if made is not None else []

    def score(td):
        ks = getattr(td.kernel_schedule, "name", str(td.kernel_schedule))
        es = getattr(td.epilogue_schedule, "name", str(td.epilogue_schedule))
        return ("Cooperative" in ks, "Tma" in ks, es.startswith("Tma"), "Cooperative" in es,
                tuple(td.cluster_shape), ks, es)
    cands.sort(key=score, reverse=True)
    saved = picks.lookup(key, [describe(td) for td in cands])
    if saved is not None:  # an earlier pass built this one: try it first
        cands.sort(key=lambda td: describe(td) != saved)
    for td in cands:
        try:
            plan.tile_description = td
        except Exception:  # noqa: BLE001 - invalid for this device: next one
            continue
        picks.record(key, describe(td))
        picks.note(key, describe(td))
        return td
    picks.note(key, describe(None))
    return None


# schedule word -> (kernel schedule, epilogue schedule) names of cutlass_library's enums
_SCHED = {"coop": ("TmaWarpSpecializedCooperative", "TmaWarpSpecializedCooperative"),
          "ping": ("TmaWarpSpecializedPingpong", "TmaWarpSpecialized")}


def _made_tile(listed, shape, cluster, sched):
    """A TMA warp-specialised description of tile shape, cluster and schedule, cloned from a
    listed one (None when the plan lists no TMA description to clone)."""
    from cutlass_library import EpilogueScheduleType, KernelScheduleType
    base = [td for td in listed if "Tma" in getattr(td.kernel_schedule, "name", "")]
    if not base:
        return None
    ks, es = _SCHED[sched]
    return base[0].clone_and_update({"threadblock_shape": shape, "cluster_shape": list(cluster) + [1] * (3 - len(cluster)),
                                     "kernel_schedule": getattr(KernelScheduleType, ks),
                                     "epilogue_schedule": getattr(EpilogueScheduleType, es), "stages": None})


_GPU = None


def gpu():
    """The picks file's key of this process's CUDA device (sweep_picks.gpu_key)."""
    global _GPU
    if _GPU is None:
        _GPU = sweep_picks.gpu_key(torch.cuda.get_device_name())
    return _GPU


def tiles_for(name, M, N, K, knob=None, gpu_key=None):
    """The tiles GEMM name at (M, N, K) may run (sweep_picks.cutlass_tiles), noted in the
    cell's picks with their source."""
    tiles, source = sweep_picks.cutlass_tiles(name, M, N, K, gpu() if gpu_key is None else gpu_key,
                                              TILE if knob is None else knob)
    picks.note(f"cutlass-evt-tile/{sweep_picks.gemm_key(name, M, N, K)}", f"{','.join(tiles)} ({source})")
    return tiles


def run_cached(cache, p, A, B, C, D, **kw):
    """plan.run once per (plan, buffers, stream), keeping the GemmArguments it returns in
    cache; later calls relaunch those with operation.run (one cuLaunchKernel): plan.run
    rebuilds the arguments in Python every call, about 2 ms per GEMM."""
    stream = torch.cuda.current_stream().cuda_stream
    vis = kw.get("visitor_args") or {}
    key = (id(p), A.data_ptr(), B.data_ptr(), C.data_ptr(), D.data_ptr(),
           tuple(sorted((k, t.data_ptr()) for k, t in vis.items())), stream)
    args = cache.get(key)
    if args is None:
        cache[key] = p.run(A, B, C, D, sync=False, stream=_drv.CUstream(stream), **kw)
    else:
        p.operation.run(args)


class CutlassEVT(Impl):
    graph_ok = False

    def __init__(self, v, dtype, dims):
        super().__init__(v, dtype)
        self.dims = dims
        self.plans = {}
        self.args = {}

    def _plan(self, name, tile, fn=None, examples=None):
        """The plan of one GEMM with one threadblock tile, built on first use; examples()
        gives the tensors its epilogue is traced with (called only then)."""
        if (name, tile) not in self.plans:
            p = cutlass.op.Gemm(element=self.dtype, layout=cutlass.LayoutType.RowMajor, element_accumulator=torch.float32)
            if fn is not None:
                p.epilogue_visitor = cutlass.epilogue.trace(fn, examples())
            print(f"cutlass-evt {name} {tile}: {describe(pick_tile(p, tile, name=f'evt-{name}-{self.dtype}'))}", file=sys.stderr)
            self.plans[(name, tile)] = p
        return self.plans[(name, tile)]

    def _gemm(self, name, fn, examples, A, B, C, D, **kw):
        """One EVT GEMM with the tile tiles_for gives; with several (the knob lists them), the
        fastest for this GEMM's shape, timed once on its own operands and recorded in the
        run's picks (tk_pick), so every pass runs the tile the first one chose."""
        run = lambda t: run_cached(self.args, self._plan(name, t, fn, examples), A, B, C, D, **kw)
        M, N, K = A.shape[0], B.shape[1], A.shape[1]
        tiles = tiles_for(name, M, N, K)
        if len(tiles) == 1:
            return run(tiles[0])
        key = ("cutlass-evt", name, M, N, K, str(self.dtype))
        run(_pick(key, run, tiles))

    def alloc(self, st):
        BT, d, HD, nH = self.dims(self.v)
        e = lambda *s: torch.empty(s, device="cuda", dtype=self.dtype)
        return {"qkv": e(BT, 3 * HD), "gate": e(BT, HD), "alpha": e(BT, nH), "go": e(BT, HD), "y": e(BT, d)}

    def run(self, st, out):
        BT, d, HD, nH = self.dims(self.v)
        x = st["x"]
        f32 = lambda t: torch.empty(t.shape, device="cuda", dtype=torch.float32)
        # C is not read by these epilogues; the interface still wants a tensor for it.
        self._gemm("qkv", None, None, x, st["W_qkv"], out["qkv"], out["qkv"], alpha=1.0, beta=0.0)
        self._gemm("alpha", _epi_sigmoid, lambda: {"accum": f32(out["alpha"]), "D": out["alpha"]},
                   x, st["W_alpha"], out["alpha"], out["alpha"], visitor_args={"D": out["alpha"]})
        if GATE_MODE == "mul":
            self._gemm("gate", _epi_silu, lambda: {"accum": f32(out["gate"]), "D": out["gate"]},
                       x, st["W_g"], out["gate"], out["gate"], visitor_args={"D": out["gate"]})
            torch.mul(st["o"], out["gate"], out=out["go"])
        else:
            self._gemm("gate-mul", _epi_silu_gate,
                       lambda: {"accum": f32(out["gate"]), "o": st["o"], "D": out["go"], "F": out["gate"]},
                       x, st["W_g"], out["go"], out["go"], visitor_args={"o": st["o"], "D": out["go"], "F": out["gate"]})
        self._gemm("out", _epi_residual, lambda: {"accum": f32(out["y"]), "res": x, "D": out["y"]},
                   out["go"], st["W_O"], out["y"], out["y"], visitor_args={"res": x, "D": out["y"]})
        q = out["qkv"]
        return {"Q": q[:, :HD], "K": q[:, HD:2 * HD], "V": q[:, 2 * HD:], "gate": out["gate"],
                "alpha": out["alpha"], "y": out["y"]}


def gemm_alone(dtype, M, N, K, kind, tile=None):
    """A (plan, run(bufs)) pair timing one EVT GEMM shape alone for run.py bench:
    kind is plain | silu | sigmoid | silu-gate | residual."""
    bf = dtype
    p = cutlass.op.Gemm(element=bf, layout=cutlass.LayoutType.RowMajor, element_accumulator=torch.float32)
    f32 = torch.empty((M, N), device="cuda", dtype=torch.float32)
    d = torch.empty((M, N), device="cuda", dtype=bf)
    fns = {"silu": (_epi_silu, {"accum": f32, "D": d}), "sigmoid": (_epi_sigmoid, {"accum": f32, "D": d}),
           "silu-gate": (_epi_silu_gate, {"accum": f32, "o": d, "D": d, "F": d}),
           "residual": (_epi_residual, {"accum": f32, "res": d, "D": d})}
    if kind in fns:
        p.epilogue_visitor = cutlass.epilogue.trace(*fns[kind])
    pick_tile(p, tile or sweep_picks.CUTLASS_DEFAULT, name=f"alone-{kind}-{dtype}")

    cache = {}

    def run(s):
        a, b, c, aux, f = s
        vis = {"plain": None, "silu-gate": {"o": aux, "D": c, "F": f}, "residual": {"res": aux, "D": c}}.get(kind, {"D": c})
        # silu-gate: c is go (D = silu(acc) * aux), f is gate (F = silu(acc))
        if vis is None:
            run_cached(cache, p, a, b, c, c, alpha=1.0, beta=0.0)
        else:
            run_cached(cache, p, a, b, c, c, visitor_args=vis)
    return p, run
