"""The knob table (common/knobs.py): every ROOFTOOL_* variable that changes measured code
is in it, read through it, and recorded with its effective value. No torch needed."""
import os
import re

from common import knobs
from conftest import KERNELS

BRIEF = ("ROOFTOOL_MM_IMPL", "ROOFTOOL_W_LAYOUT", "ROOFTOOL_EPI_BRANCH", "ROOFTOOL_FAST_LAUNCH",
         "ROOFTOOL_CUTLASS_TILE", "ROOFTOOL_CUTLASS_GATE", "ROOFTOOL_FP8_MAXACC")


def _py_files():
    for root, dirs, files in os.walk(KERNELS):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "scratch", "testdata", "tests")]
        for f in files:
            if f.endswith(".py"):
                yield os.path.join(root, f)


def test_table():
    assert set(BRIEF) <= set(knobs.KNOBS)
    assert all(isinstance(v, str) for v in knobs.KNOBS.values())
    assert "ROOFTOOL_PICKS" not in knobs.KNOBS and not set(knobs.NOT_CODE) & set(knobs.KNOBS)


def test_effective_values(monkeypatch):
    for k in knobs.KNOBS:
        monkeypatch.delenv(k, raising=False)
    assert knobs.effective() == knobs.KNOBS  # unset: every default, written out
    monkeypatch.setenv("ROOFTOOL_MM_IMPL", "ptr")
    monkeypatch.setenv("ROOFTOOL_FP8_MAXACC", "32")
    e = knobs.effective()
    assert e["ROOFTOOL_MM_IMPL"] == "ptr" and e["ROOFTOOL_FP8_MAXACC"] == "32"
    assert e["ROOFTOOL_W_LAYOUT"] == "kn" and list(e) == list(knobs.KNOBS)
    try:
        knobs.get("ROOFTOOL_NOT_A_KNOB")
    except KeyError:
        pass
    else:
        raise AssertionError("an unknown knob must not read the environment")


def test_fast_launch(monkeypatch):
    monkeypatch.delenv("ROOFTOOL_FAST_LAUNCH", raising=False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert knobs.fast_launch()
    monkeypatch.setenv("ROOFTOOL_FAST_LAUNCH", "0")
    assert not knobs.fast_launch()
    monkeypatch.setenv("ROOFTOOL_FAST_LAUNCH", "1")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert not knobs.fast_launch()


def test_every_rooftool_variable_is_a_knob():
    """A ROOFTOOL_* name anywhere in kernels/**/*.py is a knob or a known non-code variable,
    so a new knob cannot miss the table (and so the cells' "code" record)."""
    known = set(knobs.KNOBS) | set(knobs.NOT_CODE)
    for p in _py_files():
        for name in re.findall(r"ROOFTOOL_[A-Z0-9_]+", open(p, encoding="utf-8").read()):
            assert name in known, f"{os.path.relpath(p, KERNELS)}: {name} is not in common/knobs.py KNOBS"


def test_knobs_read_only_through_the_table():
    """No module but knobs.py (and picks.py, for the ROOFTOOL_PICKS path) reads a ROOFTOOL_*
    variable from the environment itself."""
    allowed = {os.path.join(KERNELS, "common", "knobs.py"), os.path.join(KERNELS, "common", "picks.py")}
    for p in _py_files():
        if p in allowed:
            continue
        for i, line in enumerate(open(p, encoding="utf-8").read().splitlines(), 1):
            if "ROOFTOOL_" in line and re.search(r"\b(environ|getenv)\b", line):
                raise AssertionError(f"{os.path.relpath(p, KERNELS)}:{i}: reads a knob itself; use knobs.get: {line.strip()}")
