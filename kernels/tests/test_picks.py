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
