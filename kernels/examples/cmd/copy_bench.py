#!/usr/bin/env python3
"""A --cmd program whose eager variant copies tensors device to device (tensor.copy_, a
cudaMemcpy: ncu's kernel pass does not see it, nsys lists it as a memcpy), for checking that
the range pass counts the copies' DRAM traffic (METHOD.md, "The range's DRAM floor"):

    rooftool profile --gpu h100 --cmd "python3 kernels/examples/cmd/copy_bench.py" \\
        --claims kernels/examples/cmd/copy_claims.yaml -o runs/copy-cmd

Variants (Y = 2 X, X of N bf16 elements):
  eager  tmp.copy_(x); tmp.mul_(2); out.copy_(tmp): two device-to-device copies and 1 kernel
  fused  torch.mul(x, 2, out=out): 1 kernel

At N=268435456 each copy moves 536,870,912 bytes (read and written: 1.07 GB of DRAM a copy);
N=16777216 is the smaller shape. Every run checks fused against eager and exits 1 on a
mismatch.
"""
import argparse
import sys

import torch

from rooftool_marks import mark

EXPERIMENT = "copy_cmd"


def eager(x, tmp, out):
    tmp.copy_(x)
    tmp.mul_(2)
    out.copy_(tmp)
    return out


def fused(x, tmp, out):
    return torch.mul(x, 2, out=out)


VARIANTS = {"eager": eager, "fused": fused}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", action="append", type=int, default=[], metavar="N",
                   help="elements (repeatable; default 16777216 and 268435456)")
    args = p.parse_args()
    sizes = args.n or [16777216, 268435456]
    g = torch.Generator(device="cuda").manual_seed(0)
    bad = 0
    for n in sizes:
        shape = f"N={n}"
        x = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=g)
        tmp, out = torch.empty_like(x), torch.empty_like(x)
        ref = None
        for name, fn in VARIANTS.items():
            y = None
            for _ in mark(EXPERIMENT, name, shape, dtype="bf16"):
                y = fn(x, tmp, out)
            y = y.clone()
            if ref is None:
                ref = y
            elif not torch.equal(y, ref):
                print(f"{EXPERIMENT}/{name}/{shape}: differs from eager", file=sys.stderr)
                bad += 1
        del x, tmp, out, ref
        torch.cuda.empty_cache()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
