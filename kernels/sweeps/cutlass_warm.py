"""Compile the cutlass-evt variant's EVT GEMMs for every candidate tile into
compiled_cache.db of the working directory, without launching them, so that the profile
passes later in a device call find them there (each is ~55 s of nvcc; several processes,
one per tile, compile side by side on the host's cores):

    python3 kernels/sweeps/cutlass_warm.py [TILE ...]      # default: ROOFTOOL_CUTLASS_TILE's list

Each process writes its own database (the interface's cache is one SQLite file per working
directory), merged into ./compiled_cache.db at the end.
"""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.dirname(HERE)


def compile_tile(tile):
    sys.path.insert(0, KERNELS)
    import importlib.util

    import torch
    s = importlib.util.spec_from_file_location("cutlass_evt_warm", os.path.join(KERNELS, "gated_ssm", "cutlass_evt.py"))
    m = importlib.util.module_from_spec(s)
    s.loader.exec_module(m)
    for kind in ("plain", "sigmoid", "silu-gate", "silu", "residual"):
        t0 = time.time()
        p, _ = m.gemm_alone(torch.bfloat16, 256, 256, 256, kind, tile=tile)
        p.compile(p.tile_description, alignment_A=8, alignment_B=8, alignment_C=8)
        print(f"cutlass_warm {tile} {kind}: {m.describe(p.tile_description)} {time.time() - t0:.0f} s", flush=True)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        compile_tile(sys.argv[2])
        return
    sys.path.insert(0, KERNELS)
    from common import knobs
    tiles = sys.argv[1:] or [t.strip() for t in knobs.get("ROOFTOOL_CUTLASS_TILE").split(",") if t.strip()]
    out = os.path.abspath("compiled_cache.db")
    procs = []
    for t in tiles:
        d = tempfile.mkdtemp(prefix="cutlass-warm-")
        if os.path.exists(out):
            with open(out, "rb") as src, open(os.path.join(d, "compiled_cache.db"), "wb") as dst:
                dst.write(src.read())
        procs.append((d, subprocess.Popen([sys.executable, os.path.abspath(__file__), "--one", t], cwd=d)))
    rc = 0
    for d, p in procs:
        rc |= p.wait()
    con = sqlite3.connect(out)
    con.execute("create table if not exists compiled_operations(op_key TEXT NOT NULL UNIQUE, cubin BLOB NOT NULL, "
                "hostbin BLOB NOT NULL, op_name TEXT NOT NULL, op_attrs TEXT NOT NULL)")
    for d, _ in procs:
        db = os.path.join(d, "compiled_cache.db")
        if os.path.exists(db):
            con.execute("attach ? as o", (db,))
            con.execute("insert or ignore into compiled_operations select * from o.compiled_operations")
            con.commit()
            con.execute("detach o")
    n = con.execute("select count(*) from compiled_operations").fetchone()[0]
    con.close()
    print(f"cutlass_warm: {n} kernels in {out}")
    sys.exit(rc)


if __name__ == "__main__":
    main()
