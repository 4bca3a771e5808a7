"""Implementation picks shared by the runner processes of one run (no torch).

Some variants choose between implementations of the same kernel at run time: the tk
picker times TMA vs pointer loads, persistent or not (tk_pick.pick); triton.autotune
times tile configs (tk_launch._launch); the CUTLASS EVT variant picks a tile among those
the interface lists (gated_ssm/cutlass_evt.pick_tile). Each pass of a run is a separate
process, and under ncu the timing is distorted (kernels serialised and replayed), so a
per-process choice could profile different code in different passes. The launcher sets
ROOFTOOL_PICKS to one JSON file per run: the first process to choose records its pick
and every later process reuses it.

Every pick a cell uses is also noted in this process (note/used): the runner resets the
notes at the start of a cell and writes them into the cell's JSON ("code" -> "picks").
"""
from __future__ import annotations

import json
import os

ENV = "ROOFTOOL_PICKS"

_USED: dict = {}  # key -> value of every pick consulted since reset_used()


def path() -> str | None:
    return os.environ.get(ENV) or None


def load(file: str | None = None) -> dict:
    file = file or path()
    if not file:
        return {}
    try:
        with open(file) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def lookup(key: str, choices, file: str | None = None):
    """The recorded pick for key if it is one of choices, else None."""
    v = load(file).get(key)
    return v if v in choices else None


def record(key: str, value: str, file: str | None = None) -> None:
    """Record value for key (atomically: temp file, then rename)."""
    file = file or path()
    if not file:
        return
    data = load(file)
    if data.get(key) == value:
        return
    data[key] = value
    os.makedirs(os.path.dirname(os.path.abspath(file)), exist_ok=True)
    tmp = f"{file}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, file)


def choose(key: str, choices, decide, file: str | None = None) -> str:
    """The pick for key: the recorded one where it is still among choices, else decide()
    (which returns one of choices), recorded for the later processes of the run. Either
    way the pick is noted as used by the current cell."""
    v = lookup(key, choices, file)
    if v is None:
        v = decide()
        record(key, v, file)
    note(key, v)
    return v


# ------------------------------------------------------------------ per-cell notes

def note(key: str, value) -> None:
    """Note that the current cell used pick value for key (cheap: a dict store)."""
    _USED[key] = value


def used() -> dict:
    """The picks noted since reset_used(), key -> value as strings, sorted by key."""
    return {str(k): str(v) for k, v in sorted(_USED.items(), key=lambda kv: str(kv[0]))}


def reset_used() -> None:
    _USED.clear()


def snapshot() -> dict:
    return dict(_USED)


def restore(saved: dict) -> None:
    """Back to a snapshot: notes made since (trial runs of a picker, a baseline run on a
    candidate's behalf) are dropped."""
    _USED.clear()
    _USED.update(saved)
