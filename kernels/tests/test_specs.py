"""Specs: the five experiments load, are valid for spec/spec.go, and every variant
has an implementation. No torch needed."""
import ast
import os
import re

import pytest

from common import spec
from conftest import KERNELS, REPO

EXPERIMENTS = ["gated_ssm", "gla_proj", "scan_gate", "swiglu", "swiglu_fp8"]


def _go_yaml_fields(struct):
    src = open(os.path.join(REPO, "spec", "spec.go"), encoding="utf-8").read()
    m = re.search(r"type %s struct \{(.*?)\n\}" % struct, src, re.S)
    assert m, f"struct {struct} not found in spec/spec.go"
    return {f for f in re.findall(r'yaml:"([^",]+)', m.group(1)) if f != "-"}


def test_experiment_names():
    assert spec.experiment_names() == EXPERIMENTS


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_spec_valid(name):
    e = spec.load(name)
    assert e.name == name
    assert e.dtype in ("bf16", "fp16", "fp32", "fp8")
    assert 0 < e.tolerance < 0.1
    assert e.shapes, "default grid empty"
    roles = [v.role for v in e.variants]
    assert roles[0] == "baseline", "the first variant is the baseline spec/spec.go reports"
    for s in e.all_shapes():
        assert spec.canonical_shape(spec.parse_shape(s), e.vars) == s
        assert set(spec.parse_shape(s)) == set(e.vars), f"{s} does not set exactly {e.vars}"
    for sw in e.sweeps:
        assert sw["var"] in e.vars
        vals = [spec.parse_shape(s) for s in sw["shapes"]]
        others = {tuple((k, v) for k, v in d.items() if k != sw["var"]) for d in vals}
        assert len(others) == 1, f"sweep {sw['name']} varies more than {sw['var']}"


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_spec_fields_known_to_go(name):
    import yaml
    raw = yaml.safe_load(open(os.path.join(KERNELS, name, "spec.yaml"), encoding="utf-8"))
    assert set(raw) <= _go_yaml_fields("Experiment")
    vf = _go_yaml_fields("Variant")
    for v in raw["variants"]:
        assert set(v) <= vf, f"variant {v['name']}: fields {set(v) - vf} unknown to spec.go"
    for sw in raw.get("sweeps") or []:
        assert set(sw) <= _go_yaml_fields("Sweep")


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_variant_implemented(name):
    """VARIANTS in kernels/<exp>/variants.py names every spec variant (read with ast, no torch)."""
    tree = ast.parse(open(os.path.join(KERNELS, name, "variants.py"), encoding="utf-8").read())
    keys = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "VARIANTS" for t in node.targets):
            keys = {k.value for k in node.value.keys}
    assert keys is not None, "no VARIANTS dict"
    e = spec.load(name)
    assert {v.name for v in e.variants} == keys
    for fn in ("make_inputs", "reference"):
        assert any(isinstance(n, ast.FunctionDef) and n.name == fn for n in tree.body), fn


def test_parse_shape_errors():
    assert spec.parse_shape("B=16,T=512") == {"B": 16, "T": 512}
    for bad in ["", "B", "B=x", "B=1,B=2", "=3"]:
        with pytest.raises(spec.UsageError):
            spec.parse_shape(bad)


def test_cells():
    e = spec.load("swiglu")
    all_cells = spec.cells(e, None)
    assert len(all_cells) == len(e.variants) * len(e.all_shapes())
    (v, s), = spec.cells(e, ["dual-acc/M=512,N=4096,K=7168"])
    assert v.name == "dual-acc" and s == "M=512,N=4096,K=7168"
    (v, s), = spec.cells(e, ["dual-acc/K=7168,M=512,N=4096"])  # any variable order
    assert s == "M=512,N=4096,K=7168"
    for bad in ["dual-acc", "nope/M=512,N=4096,K=7168", "dual-acc/M=3,N=4096,K=7168", "dual-acc/M=x", "/M=512"]:
        with pytest.raises(spec.UsageError):
            spec.cells(e, [bad])


def test_unknown_experiment():
    with pytest.raises(spec.UsageError):
        spec.load("nope")
    with pytest.raises(spec.UsageError):
        spec.load("../swiglu")


def test_baseline_for_matches_spec_go():
    """Each variant's baseline as spec/spec.go BaselineFor names it: the first baseline of
    the same direction, else the first baseline."""
    e = spec.load("gla_proj")
    assert e.baseline_for("wide-gemm-epilogue") == "unfused"
    assert e.baseline_for("unfused") == "unfused"
    assert e.baseline_for("wide-gemm-epilogue-fwdbwd") == "unfused-fwdbwd"
    assert e.baseline_for("unfused-fwdbwd") == "unfused-fwdbwd"
    e = spec.load("swiglu")
    assert {v.name: e.baseline_for(v.name) for v in e.variants} == {v.name: "unfused" for v in e.variants}
    src = open(os.path.join(REPO, "spec", "spec.go"), encoding="utf-8").read()
    assert "func (e *Experiment) BaselineFor(" in src
