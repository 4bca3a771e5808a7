"""Experiments outside kernels/ (rooftool new, profile --experiments): the scaffold's
templates load with the Python spec loader, its variants.py names every variant, and
run.py finds external folders through --experiments-dir and $ROOFTOOL_EXPERIMENT_DIRS.
No torch needed."""
import ast
import json
import os
import subprocess
import sys

import pytest

import run
from common import spec
from conftest import KERNELS

TEMPLATES = os.path.join(KERNELS, "scaffold", "template")


def scaffold(parent, name):
    """Write the templates as `rooftool new name -o parent` does (kernels/scaffold)."""
    d = os.path.join(parent, name)
    os.makedirs(d)
    for f in sorted(os.listdir(TEMPLATES)):
        if f.endswith(".tmpl"):
            text = open(os.path.join(TEMPLATES, f), encoding="utf-8").read().replace("__NAME__", name)
            with open(os.path.join(d, f[:-len(".tmpl")]), "w", encoding="utf-8") as out:
                out.write(text)
    return d


@pytest.fixture
def extra(monkeypatch):
    monkeypatch.delenv("ROOFTOOL_EXPERIMENT_DIRS", raising=False)
    monkeypatch.setattr(spec, "EXTRA_DIRS", [])
    return spec.EXTRA_DIRS


def test_scaffold_loads(tmp_path, extra):
    d = scaffold(str(tmp_path), "bias_gelu")
    extra.append(d)
    e = spec.load("bias_gelu")
    assert e.dtype == "bf16" and e.baseline_for("fused") == "unfused"
    assert {v.role for v in e.variants} == {"baseline", "candidate", "reference"}
    tree = ast.parse(open(os.path.join(d, "variants.py"), encoding="utf-8").read())
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {"make_inputs", "reference"} <= names
    variants = next(n.value for n in tree.body if isinstance(n, ast.Assign)
                    and any(getattr(t, "id", "") == "VARIANTS" for t in n.targets))
    assert {k.value for k in variants.keys} == {v.name for v in e.variants}


def test_folder_of_experiments_and_env(tmp_path, extra, monkeypatch):
    scaffold(str(tmp_path), "one")
    scaffold(str(tmp_path), "two")
    monkeypatch.setenv("ROOFTOOL_EXPERIMENT_DIRS", str(tmp_path))
    names = spec.experiment_names()
    assert "one" in names and "two" in names and "swiglu" in names
    assert spec.experiment_dir("two") == os.path.join(str(tmp_path), "two")


def test_errors(tmp_path, extra):
    extra.append(str(tmp_path / "nope"))
    with pytest.raises(spec.UsageError, match="no such folder"):
        spec.experiment_names()
    extra[:] = [str(tmp_path)]
    with pytest.raises(spec.UsageError, match="no spec.yaml"):
        spec.experiment_names()
    d = scaffold(str(tmp_path), "bad")
    p = os.path.join(d, "spec.yaml")
    text = open(p, encoding="utf-8").read().replace("role: candidate", "role: winner")
    open(p, "w", encoding="utf-8").write(text)
    with pytest.raises(ValueError, match=r"bad/spec.yaml: .*role 'winner'"):
        spec.load("bad")
    # A name one of kernels/' experiments has is refused.
    extra[:] = [scaffold(str(tmp_path / "x"), "swiglu")]
    with pytest.raises(spec.UsageError, match="swiglu"):
        spec.experiment_names()


def test_run_py_experiments_dir(tmp_path):
    d = scaffold(str(tmp_path), "bias_gelu")
    env = {k: v for k, v in os.environ.items() if k != "ROOFTOOL_EXPERIMENT_DIRS"}
    p = subprocess.run([sys.executable, os.path.join(KERNELS, "run.py"), "list", "--experiments-dir", d,
                        "-e", "bias_gelu"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    cells = json.loads(p.stdout)
    assert {c["variant"] for c in cells} == {"unfused", "fused", "compiled"}
    p = subprocess.run([sys.executable, os.path.join(KERNELS, "run.py"), "list", "--experiments-dir",
                        str(tmp_path / "nope"), "-e", "bias_gelu"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "no such folder" in p.stderr
