"""Experiment specs (kernels/<exp>/spec.yaml) for the Python runner.

This mirrors the Go loader (spec/spec.go) for the fields the runner needs.
No torch import here: CI runs the argument and spec tests without torch.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import yaml

from . import knobs

KERNELS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROLES = ("baseline", "candidate", "reference")

# Experiment folders outside KERNELS_DIR: os.pathsep-separated paths, each an experiment
# folder (it holds spec.yaml) or a folder of experiment folders. `rooftool profile
# --experiments DIR` sets it for the runner; run.py's --experiments DIR adds to it.
EXTRA_DIRS: list = []


class UsageError(Exception):
    """Bad usage: unknown experiment, variant or shape, malformed cell. Exit code 2."""


@dataclass
class Variant:
    name: str
    role: str
    description: str = ""
    kernels: int = 0
    graph: bool = False
    requires: str = ""
    backward: bool = False


@dataclass
class Experiment:
    name: str
    title: str
    dtype: str
    tolerance: float
    vars: list
    shapes: list
    sweeps: list
    variants: list
    description: str = ""
    passes: list = field(default_factory=list)

    def variant(self, name: str) -> Variant | None:
        for v in self.variants:
            if v.name == name:
                return v
        return None

    def baseline_for(self, name: str) -> str:
        """The baseline a variant is compared with (as spec/spec.go BaselineFor): the first
        baseline of the same direction (forward, or forward+backward), else the first baseline."""
        v = self.variant(name)
        if v is not None:
            for b in self.variants:
                if b.role == "baseline" and b.backward == v.backward:
                    return b.name
        for b in self.variants:
            if b.role == "baseline":
                return b.name
        return ""

    def all_shapes(self) -> list:
        """Default grid, then every sweep's shapes, without duplicates, first-seen order."""
        out, seen = [], set()
        for s in list(self.shapes) + [s for sw in self.sweeps for s in sw.get("shapes", [])]:
            if s not in seen:
                seen.add(s)
                out.append(s)
        return out


def parse_shape(s: str) -> dict:
    """Parse a canonical shape "B=16,T=512,d=768" into {name: int}."""
    if not s:
        raise UsageError("empty shape")
    out = {}
    for kv in s.split(","):
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise UsageError(f"shape {s!r}: {kv!r} is not name=value")
        try:
            n = int(v, 10)
        except ValueError:
            raise UsageError(f"shape {s!r}: {k}={v!r} is not an integer") from None
        if k in out:
            raise UsageError(f"shape {s!r}: {k} given twice")
        out[k] = n
    return out


def canonical_shape(vars_: dict, order: list) -> str:
    parts = [f"{k}={vars_[k]}" for k in order if k in vars_]
    parts += [f"{k}={vars_[k]}" for k in sorted(vars_) if k not in order]
    return ",".join(parts)


def extra_dirs() -> list:
    """The external experiment folders: $ROOFTOOL_EXPERIMENT_DIRS, then EXTRA_DIRS."""
    return knobs.experiment_dirs() + list(EXTRA_DIRS)


def experiment_dirs() -> dict:
    """Experiment name -> its folder: KERNELS_DIR/<name>, then the external folders.

    Raises UsageError for an external folder that is missing or holds no spec.yaml, and
    for an external experiment whose name another folder has already."""
    out = {}
    for d in sorted(os.listdir(KERNELS_DIR)):
        if os.path.isfile(os.path.join(KERNELS_DIR, d, "spec.yaml")):
            out[d] = os.path.join(KERNELS_DIR, d)
    for x in extra_dirs():
        x = os.path.abspath(x)
        if not os.path.isdir(x):
            raise UsageError(f"experiments folder {x}: no such folder")
        if os.path.isfile(os.path.join(x, "spec.yaml")):
            found = [x]
        else:
            found = [os.path.join(x, d) for d in sorted(os.listdir(x))
                     if os.path.isfile(os.path.join(x, d, "spec.yaml"))]
            if not found:
                raise UsageError(f"experiments folder {x}: no spec.yaml in it or in a folder under it")
        for f in found:
            n = os.path.basename(f)
            if n in out and out[n] != f:
                raise UsageError(f"experiment {n!r}: both {out[n]} and {f}")
            out[n] = f
    return out


def experiment_dir(name: str) -> str:
    """The folder of experiment name (raises UsageError for an unknown one)."""
    dirs = experiment_dirs()
    if not name or "/" in name or name not in dirs:
        raise UsageError(f"unknown experiment {name!r}; have {', '.join(dirs)}")
    return dirs[name]


def experiment_names() -> list:
    return sorted(experiment_dirs())


def load(name: str) -> Experiment:
    path = os.path.join(experiment_dir(name), "spec.yaml")
    with open(path, encoding="utf-8") as f:
        raw = yaml.safe_load(f)
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: want a YAML mapping of fields")
    known = {"experiment", "title", "seeds", "description", "dtype", "tolerance", "vars",
             "shapes", "sweeps", "variants", "passes"}
    extra = set(raw) - known
    if extra:
        raise ValueError(f"{path}: unknown fields {sorted(extra)}")
    for k in ("experiment", "variants"):
        if k not in raw:
            raise ValueError(f"{path}: missing field {k!r}")
    for i, v in enumerate(raw.get("variants") or []):
        for k in ("name", "role"):
            if not isinstance(v, dict) or k not in v:
                raise ValueError(f"{path}: variants[{i}]: missing field {k!r}")
    variants = []
    for v in raw.get("variants") or []:
        variants.append(Variant(
            name=v["name"], role=v["role"], description=v.get("description", ""),
            kernels=int(v.get("kernels", 0)), graph=bool(v.get("graph", False)),
            requires=v.get("requires", "") or "", backward=bool(v.get("backward", False))))
    e = Experiment(
        name=raw["experiment"], title=raw.get("title", ""), dtype=raw.get("dtype", ""),
        tolerance=float(raw.get("tolerance", 0)), vars=list(raw.get("vars") or []),
        shapes=list(raw.get("shapes") or []), sweeps=list(raw.get("sweeps") or []),
        variants=variants, description=raw.get("description", ""),
        passes=list(raw.get("passes") or []))
    if e.name != name:
        raise ValueError(f"{path}: experiment {e.name!r} lives in folder {name!r}")
    try:
        validate(e)
    except (ValueError, UsageError) as err:
        raise ValueError(f"{path}: {err}") from None
    return e


def validate(e: Experiment) -> None:
    seen = set()
    for v in e.variants:
        if not v.name or "/" in v.name or " " in v.name:
            raise ValueError(f"{e.name}: variant name {v.name!r}")
        if v.name in seen:
            raise ValueError(f"{e.name}: variant {v.name!r} listed twice")
        seen.add(v.name)
        if v.role not in ROLES:
            raise ValueError(f"{e.name}: variant {v.name!r} role {v.role!r}")
    if not any(v.role == "baseline" for v in e.variants):
        raise ValueError(f"{e.name}: no variant has role baseline")
    for s in e.all_shapes():
        c = canonical_shape(parse_shape(s), e.vars)
        if c != s:
            raise ValueError(f"{e.name}: shape {s!r} is not canonical, want {c!r}")


def cells(e: Experiment, specs: list | None) -> list:
    """Resolve --cell VARIANT/SHAPE arguments (or every variant x shape) to (variant, shape).

    Raises UsageError on an unknown variant or shape.
    """
    if not specs:
        return [(v, s) for v in e.variants for s in e.all_shapes()]
    shapes = set(e.all_shapes())
    out = []
    for c in specs:
        name, sep, shape = c.partition("/")
        if not sep or not name or not shape:
            raise UsageError(f"--cell {c!r}: want VARIANT/SHAPE")
        v = e.variant(name)
        if v is None:
            raise UsageError(f"--cell {c!r}: experiment {e.name} has no variant {name!r}")
        if shape not in shapes:
            # Accept a non-canonical spelling of a known shape.
            try:
                canon = canonical_shape(parse_shape(shape), e.vars)
            except UsageError as err:
                raise UsageError(f"--cell {c!r}: {err}") from None
            if canon not in shapes:
                raise UsageError(f"--cell {c!r}: experiment {e.name} has no shape {shape!r}")
            shape = canon
        out.append((v, shape))
    return out
