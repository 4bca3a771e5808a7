"""Implementation picks shared by the runner processes of one run (no torch).

Some variants choose between implementations of the same kernel by timing them
(tk._pick: TMA vs pointer loads, persistent or not). Each pass of a run is a
separate process, and under ncu the timing is distorted (kernels serialised and
replayed), so a per-process choice could profile different code in different
passes. The launcher sets ROOFTOOL_PICKS to one JSON file per run: the first
process to choose records its pick and every later process reuses it.
"""
from __future__ import annotations

import json
import os

ENV = "ROOFTOOL_PICKS"


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
