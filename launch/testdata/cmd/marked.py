#!/usr/bin/env python3
"""A program that marks its variants for rooftool profile --cmd, for the launcher tests: it
imports the helper rooftool puts on its PYTHONPATH (rooftool_marks) and runs without torch
(the helper then times by the host clock). Under the fake ncu and nsys ($FAKE_TRACE) its NVTX
ranges are recorded as the fake runner records its cells.

    marked.py                 toy/{unfused,fused} at M=64,N=32 and M=128,N=32
    marked.py --none          marks nothing
    marked.py --shape S       marks toy/fused/S (e.g. a malformed shape)
    marked.py --name N        marks toy/N/M=64,N=32 without the helper's own name check
    marked.py --twice         marks toy/fused/M=64,N=32 twice
    marked.py --dtype D       gives each mark dtype=D; --dtype-of-fused D gives fused's marks D
    marked.py --example       marks the cells of kernels/examples/cmd/bias_gelu_bench.py
    marked.py --exit-in M     exits 5 after marking when ROOFTOOL_MARKS_MODE is M
    marked.py --crash-in M    exits 3 before the first mark when ROOFTOOL_MARKS_MODE is M
Each run appends [mode, cells] to $FAKE_CMD_LOG when set."""
import json
import os
import sys

import rooftool_marks as rm

args = sys.argv[1:]
mode = os.environ.get("ROOFTOOL_MARKS_MODE", "")
if os.environ.get("FAKE_CMD_LOG"):
    with open(os.environ["FAKE_CMD_LOG"], "a") as f:
        f.write(json.dumps([mode, os.environ.get("ROOFTOOL_MARKS_CELLS")]) + "\n")
if os.environ.get("FAKE_TRACE"):
    stack = []

    def push(name):
        stack.append(name)
        if len(stack) == 3:
            with open(os.environ["FAKE_TRACE"], "a") as f:
                f.write(json.dumps(stack) + "\n")

    rm.use_nvtx(push, stack.pop)
if "--crash-in" in args and args[args.index("--crash-in") + 1] == mode:
    print("marked.py: simulated crash", file=sys.stderr)
    sys.exit(3)

cells = [("toy", v, s) for s in ("M=64,N=32", "M=128,N=32") for v in ("unfused", "fused")]
if "--none" in args:
    cells = []
if "--shape" in args:
    cells = [("toy", "fused", args[args.index("--shape") + 1])]
if "--example" in args:
    cells = [("bias_gelu_cmd", v, s) for s in ("M=4096,N=4096,K=1024", "M=8192,N=8192,K=2048")
             for v in ("unfused", "addmm", "compiled")]
if "--twice" in args:
    cells = [("toy", "fused", "M=64,N=32")] * 2
if "--name" in args:
    rm._check_name = lambda *a: None  # a program that marks without the helper's check
    cells = [("toy", args[args.index("--name") + 1], "M=64,N=32")]
total = 0
dtype = args[args.index("--dtype") + 1] if "--dtype" in args else None
for exp, v, s in cells:
    dt = args[args.index("--dtype-of-fused") + 1] if "--dtype-of-fused" in args and v == "fused" else dtype
    for _ in rm.mark(exp, v, s, dtype=dt):
        total += sum(range(1000))
print(f"marked.py: {len(cells)} cells, {total}")
if "--exit-in" in args and args[args.index("--exit-in") + 1] == mode:
    sys.exit(5)
