"""Source layout rules for kernels/ (read with ast, no torch): file sizes, every Triton
launch through common/tk_launch, tk's re-exports cover what the variants use."""
import ast
import os

import pytest

from conftest import KERNELS

TK_SPLIT = ("tk.py", "tk_gemm.py", "tk_dual.py", "tk_elementwise.py", "tk_launch.py", "tk_pick.py")


def _py_files():
    for root, dirs, files in os.walk(KERNELS):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "scratch", "testdata")]
        for f in files:
            if f.endswith(".py"):
                yield os.path.join(root, f)


def _tree(p):
    return ast.parse(open(p, encoding="utf-8").read(), filename=p)


def test_file_sizes():
    for p in _py_files():
        n = len(open(p, encoding="utf-8").read().splitlines())
        assert n <= 700, f"{os.path.relpath(p, KERNELS)}: {n} lines (at most 700)"
    for f in TK_SPLIT:
        n = len(open(os.path.join(KERNELS, "common", f), encoding="utf-8").read().splitlines())
        assert n < 600, f"common/{f}: {n} lines (the tk modules stay under 600)"


def _is_triton_jit(dec):
    d = dec.func if isinstance(dec, ast.Call) else dec
    return isinstance(d, ast.Attribute) and d.attr == "jit" and getattr(d.value, "id", "") == "triton"


def _kernel_names(tree):
    """Names bound to a @triton.jit function or an autotuned one (at any depth)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(_is_triton_jit(d) for d in node.decorator_list):
            names.add(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            inner = f.func if isinstance(f, ast.Call) else None
            if inner is not None and (getattr(inner, "id", "") == "autotune" or getattr(inner, "attr", "") == "autotune"):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


# ceilings.py: the device-ceiling probes of `rooftool ceilings` (not variants, not run by run.py).
NOT_VARIANT_CODE = (os.path.join("common", "tk_launch.py"), "ceilings.py")


@pytest.mark.parametrize("path", [p for p in _py_files() if os.path.relpath(p, KERNELS) not in NOT_VARIANT_CODE],
                         ids=lambda p: os.path.relpath(p, KERNELS))
def test_triton_launches_go_through_tk_launch(path):
    """No kernel[grid](...) outside tk_launch: baselines and candidates share one launch path
    (launch plans; ROOFTOOL_FAST_LAUNCH=0 turns them off for all)."""
    tree = _tree(path)
    kernels = _kernel_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            v = node.func.value
            assert not (isinstance(v, ast.Name) and v.id in kernels), \
                f"{os.path.relpath(path, KERNELS)}:{node.lineno}: {v.id}[grid](...) bypasses tk_launch (use launch_jit/_launch)"


def test_scan_gate_kernels_use_launch_jit():
    tree = _tree(os.path.join(KERNELS, "scan_gate", "variants.py"))
    launched = {n.args[0].id for n in ast.walk(tree)
                if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "launch_jit" and isinstance(n.args[0], ast.Name)}
    assert launched == {"_scan_gate_kernel", "_gate_kernel", "_mega_kernel"}


def test_tk_reexports_what_variants_use():
    tree = _tree(os.path.join(KERNELS, "common", "tk.py"))
    exported = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            exported = {e.value for e in node.value.elts}
    imported = {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom) for a in node.names}
    assert exported == imported - {"annotations"}
    used = set()
    for p in _py_files():
        for node in ast.walk(_tree(p)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "tk":
                used.add(node.attr)
    assert used and used <= exported, used - exported
    # each re-exported name is defined in the module it is imported from
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            mod = _tree(os.path.join(KERNELS, "common", node.module + ".py"))
            defined = set()
            for n in mod.body:
                if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                    defined.add(n.name)
                elif isinstance(n, ast.Assign):
                    for t in n.targets:
                        for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                            if isinstance(e, ast.Name):
                                defined.add(e.id)
                elif isinstance(n, (ast.ImportFrom, ast.Import)):
                    defined.update(a.asname or a.name.split(".")[0] for a in n.names)
                elif isinstance(n, ast.Try):
                    for b in n.body + [h for x in n.handlers for h in x.body]:
                        if isinstance(b, ast.ImportFrom):
                            defined.update(a.asname or a.name for a in b.names)
                        elif isinstance(b, ast.Assign):
                            defined.update(t.id for t in b.targets if isinstance(t, ast.Name))
            missing = {a.name for a in node.names} - defined
            assert not missing, f"common/{node.module}.py does not define {missing}"
