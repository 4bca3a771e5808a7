#!/usr/bin/env python3
"""A benchmark of one's own that rooftool profiles as it is (kernels/README.md, "Profile a
program of your own"): Y = gelu_tanh(A W + bias) three ways, each call marked as one cell of
the experiment bias_gelu_cmd with the helper rooftool_marks.

    rooftool profile --gpu h100 --cmd "python3 kernels/examples/cmd/bias_gelu_bench.py" \\
        --claims kernels/examples/cmd/claims.yaml -o runs/bias-gelu-cmd

Variants:
  unfused   torch.mm, then the bias add, then GELU: 3 kernels
  addmm     torch.addmm (the bias in cuBLAS's epilogue), then GELU: 2 kernels
  compiled  torch.compile of unfused: the GEMM, then one kernel for bias add and GELU

A plain run (PYTHONPATH=<run>/marks python3 bias_gelu_bench.py) runs each variant once. Every
run checks each variant against unfused on the same inputs and exits 1 on a mismatch.
"""
import argparse
import sys

import torch
import torch.nn.functional as F

from rooftool_marks import mark

EXPERIMENT = "bias_gelu_cmd"


def unfused(a, w, bias):
    y = torch.mm(a, w)
    y = y + bias
    return F.gelu(y, approximate="tanh")


def addmm(a, w, bias):
    return F.gelu(torch.addmm(bias, a, w), approximate="tanh")


VARIANTS = {"unfused": unfused, "addmm": addmm, "compiled": torch.compile(unfused)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mnk", action="append", default=[], metavar="M,N,K",
                   help="GEMM sizes (repeatable; default 4096,4096,1024 and 8192,8192,2048)")
    args = p.parse_args()
    sizes = [tuple(int(x) for x in s.split(",")) for s in args.mnk] or [(4096, 4096, 1024), (8192, 8192, 2048)]
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cuda").manual_seed(0)
    bad = 0
    for m, n, k in sizes:
        shape = f"M={m},N={n},K={k}"  # canonical: name=integer, the variables in one order
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        w = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g) / k ** 0.5
        bias = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
        ref = unfused(a, w, bias).float()
        for name, fn in VARIANTS.items():
            out = None
            for _ in mark(EXPERIMENT, name, shape, dtype="bf16"):  # one call per iteration: rooftool decides how many
                out = fn(a, w, bias)
            rel = ((out.float() - ref).norm() / ref.norm()).item()
            if not rel <= 2e-2:
                print(f"{EXPERIMENT}/{name}/{shape}: relative error {rel:.3g} against unfused", file=sys.stderr)
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
