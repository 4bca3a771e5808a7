"""The implementation-pick file that keeps every pass of a run on the same code."""
import json

from common import picks


def test_record_and_lookup(tmp_path, monkeypatch):
    f = tmp_path / "raw" / "picks.json"
    monkeypatch.setenv(picks.ENV, str(f))
    assert picks.lookup("k", ("tma", "ptr")) is None  # no file yet
    picks.record("k", "ptr")
    picks.record("other", "tma")
    assert picks.lookup("k", ("tma", "ptr")) == "ptr"
    assert picks.lookup("k", ("tma",)) is None  # a pick that is no longer a choice is ignored
    assert json.loads(f.read_text()) == {"k": "ptr", "other": "tma"}


def test_without_env_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv(picks.ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    picks.record("k", "ptr")
    assert picks.lookup("k", ("ptr",)) is None
    assert list(tmp_path.iterdir()) == []


def test_corrupt_file_is_ignored(tmp_path, monkeypatch):
    f = tmp_path / "picks.json"
    f.write_text("{not json")
    monkeypatch.setenv(picks.ENV, str(f))
    assert picks.lookup("k", ("ptr",)) is None
    picks.record("k", "ptr")
    assert picks.lookup("k", ("ptr",)) == "ptr"


def test_choose_is_deterministic_across_processes(tmp_path):
    """The first process to choose records its pick; a later process (another pass of the
    run) gets the same pick without deciding, even where it would decide otherwise."""
    import subprocess
    import sys

    from conftest import KERNELS
    f = tmp_path / "picks.json"
    code = r'''
import sys
sys.path.insert(0, sys.argv[1])
from common import picks
calls = []
def decide():
    calls.append(1)
    return sys.argv[2]
v = picks.choose("('mm', 512, 4096, 7168)", ("tma-store", "tma", "ptr"), decide)
print(v, len(calls), picks.used())
'''
    env = {"ROOFTOOL_PICKS": str(f), "PATH": "/usr/bin:/bin"}
    first = subprocess.run([sys.executable, "-c", code, KERNELS, "tma"], env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", code, KERNELS, "ptr"], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.split()[:2] == ["tma", "1"]
    assert second.stdout.split()[:2] == ["tma", "0"], second.stdout  # reused, not re-decided
    assert "('mm', 512, 4096, 7168)" in second.stdout  # noted for the cell's JSON


def test_choose_redecides_a_stale_pick(tmp_path, monkeypatch):
    f = tmp_path / "picks.json"
    monkeypatch.setenv(picks.ENV, str(f))
    picks.record("k", "gone")
    assert picks.choose("k", ("a", "b"), lambda: "b") == "b"
    assert picks.lookup("k", ("a", "b")) == "b"


def test_notes(monkeypatch):
    monkeypatch.delenv(picks.ENV, raising=False)
    picks.reset_used()
    picks.note("z", "tma")
    picks.note(("a", 1), 3)
    assert picks.used() == {"('a', 1)": "3", "z": "tma"}
    snap = picks.snapshot()
    picks.note("trial", "ptr")  # e.g. the picker's trial runs, or a baseline run on a candidate's behalf
    picks.restore(snap)
    assert "trial" not in picks.used()
    assert picks.choose("k", ("x",), lambda: "x") == "x" and picks.used()["k"] == "x"  # no file: decided and noted
    picks.reset_used()
    assert picks.used() == {}
