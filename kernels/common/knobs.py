"""The environment knobs that change the measured code: ONE table (no torch here).

Every ROOFTOOL_* variable a kernel or variant reads to choose what runs is listed in KNOBS
with its default, and is read through get(); kernels/tests/test_knobs.py fails on a
ROOFTOOL_* name in kernels/ that is neither here nor in NOT_CODE. Each per-cell JSON the
runner writes records effective() under "code" -> "knobs" (kernels/README.md).
"""
from __future__ import annotations

import os

# name -> default (the value in effect when the variable is unset).
KNOBS = {
    # mm_epi's implementation: auto (per shape, the fastest, picked once per run through
    # ROOFTOOL_PICKS) | tma-store | tma | tma-persistent | ptr.
    "ROOFTOOL_MM_IMPL": "auto",
    # Storage layout of the weights the Triton GEMM variants read: kn ([K, N]) | nk ([N, K]).
    "ROOFTOOL_W_LAYOUT": "kn",
    # "1": EPI_SEGMENTS runs with a tile-uniform branch around the activation math; "0": branch-free.
    "ROOFTOOL_EPI_BRANCH": "1",
    # "1": Triton launches go through cached launch plans (tk_launch); "0": Triton's own dispatch.
    "ROOFTOOL_FAST_LAUNCH": "1",
    # CUTLASS EVT threadblock tiles MxNxK[/cluster[/coop|ping]] for every GEMM of gated_ssm's
    # cutlass-evt, or "default" (the interface's own); several, comma-separated: candidates
    # timed once per GEMM and shape. Empty: the sweep's pick per GPU, GEMM and shape
    # (kernels/sweeps/picks/<gpu>.json, common/sweep_picks.py), else 256x256x64/2x1/coop.
    "ROOFTOOL_CUTLASS_TILE": "",
    # CUTLASS persistent tile scheduler: max swizzle size / raster order (heuristic | m | n).
    "ROOFTOOL_CUTLASS_RASTER": "1/heuristic",
    # CUTLASS EVT gating multiply: evt (2-output EVT) | mul (torch.mul after a 1-output EVT).
    "ROOFTOOL_CUTLASS_GATE": "evt",
    # max_num_imprecise_acc of the fp8 dual-accumulator dots; "" = Triton's default.
    "ROOFTOOL_FP8_MAXACC": "",
    # quack GEMM configs by product, `product=TMxTN/CMxCN/coop|pp,...` (kernels/common/qk.py);
    # empty: the measured table of kernels/common/qkconf.py, else 128x256/2x1/coop.
    "ROOFTOOL_QUACK_TILE": "",
}

# ROOFTOOL_* variables that do not change the measured code (paths, test switches, the
# Go side's settings); not recorded as knobs.
NOT_CODE = ("ROOFTOOL_PICKS", "ROOFTOOL_NSYS_LIBS", "ROOFTOOL_KEEP_PLOTS", "ROOFTOOL_SEEDS",
            "ROOFTOOL_EXPERIMENT_DIRS",
            # the run's cutlass_cppgen database (launch/compilecache/cache.go): compile time, not code
            "ROOFTOOL_CUTLASS_CACHE_DB",
            # how rooftool profile --cmd runs a program of the user's (common/marks.py)
            "ROOFTOOL_MARKS_MODE", "ROOFTOOL_MARKS_OUT", "ROOFTOOL_MARKS_CELLS", "ROOFTOOL_MARKS_REPS",
            "ROOFTOOL_MARKS_WARMUP")


def get(name: str) -> str:
    """The effective value of knob name (KeyError for a name not in KNOBS)."""
    return os.environ.get(name, KNOBS[name])


def effective() -> dict:
    """Every knob with its effective value, default included (name -> str)."""
    return {k: str(get(k)) for k in KNOBS}


def fast_launch() -> bool:
    """Whether Triton launches may use launch plans: ROOFTOOL_FAST_LAUNCH=1 and not Triton's
    CPU interpreter (TRITON_INTERPRET=1, where no compiled kernel exists to plan)."""
    return get("ROOFTOOL_FAST_LAUNCH") == "1" and os.environ.get("TRITON_INTERPRET", "0").lower() not in ("1", "true", "on", "yes")


def cutlass_cache_db() -> str:
    """$ROOFTOOL_CUTLASS_CACHE_DB: the run's compiled_cache.db for cutlass_cppgen ("": its
    own in the working directory). A path, not a code knob: not recorded under "code"."""
    return os.environ.get("ROOFTOOL_CUTLASS_CACHE_DB", "")


def experiment_dirs() -> list:
    """$ROOFTOOL_EXPERIMENT_DIRS split on os.pathsep: experiment folders outside kernels/
    (common/spec.py). A path, not a code knob: it is not recorded under "code"."""
    return [d for d in os.environ.get("ROOFTOOL_EXPERIMENT_DIRS", "").split(os.pathsep) if d]
