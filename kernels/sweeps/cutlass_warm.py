"""Compile cutlass-evt's EVT GEMMs without launching them, side by side on the host's cores,
into one cutlass_cppgen database (compiled_cache.db), so that the profile passes find them
there (each is ~55 s of nvcc, one core; rooftool profile runs this as its warm stage):

    python3 kernels/sweeps/cutlass_warm.py --db DB --shape S [--shape S ...]
    python3 kernels/sweeps/cutlass_warm.py [--db DB] [TILE ...]

With --shape (gated_ssm's canonical shapes): the kernels the variant measures there, each
GEMM's tile as kernels/common/sweep_picks.py gives it for this GPU (ROOFTOOL_CUTLASS_TILE,
else kernels/sweeps/picks/<gpu>.json, else the default), the gate GEMM as
ROOFTOOL_CUTLASS_GATE says. With tiles instead: every epilogue for each tile (the sweep's
use). A compiled kernel depends on its epilogue and tile, not on M, N, K: one per distinct
(epilogue, tile).

One process per kernel, at most --jobs (default: the host's cores) at once. Each works on
its own copy of DB (cutlass_cppgen's cache is one SQLite file, opened per lookup and insert):
a kernel DB holds already is found there, not rebuilt. The copies' rows are merged into DB
at the end (INSERT OR IGNORE, one transaction). The last line of stdout is one JSON object:
{"warm": {"kernels", "compiled", "failed", "processes", "entries_before", "entries_after",
"seconds"}}; exit 0 where every kernel compiled, 1 where one failed, 0 with "skipped" where
cutlass_cppgen or a GPU is missing.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.dirname(HERE)
CACHE_DB_VAR = "ROOFTOOL_CUTLASS_CACHE_DB"  # common/knobs.cutlass_cache_db: each process's own copy
KINDS = ("plain", "sigmoid", "silu-gate", "silu", "residual")
TABLE = ("create table if not exists compiled_operations(op_key TEXT NOT NULL UNIQUE, cubin BLOB NOT NULL, "
         "hostbin BLOB NOT NULL, op_name TEXT NOT NULL, op_attrs TEXT NOT NULL)")


def compile_one(kind, tile):
    """Compile one kernel into $ROOFTOOL_CUTLASS_CACHE_DB (the process's own copy)."""
    sys.path.insert(0, KERNELS)
    import importlib.util

    import torch
    s = importlib.util.spec_from_file_location("cutlass_evt_warm", os.path.join(KERNELS, "gated_ssm", "cutlass_evt.py"))
    m = importlib.util.module_from_spec(s)
    s.loader.exec_module(m)
    t0 = time.time()
    p, _ = m.gemm_alone(torch.bfloat16, 256, 256, 256, kind, tile=tile)
    p.compile(p.tile_description, alignment_A=8, alignment_B=8, alignment_C=8)
    print(f"cutlass_warm {tile} {kind}: {m.describe(p.tile_description)} {time.time() - t0:.0f} s", flush=True)


def entries(db):
    """Rows of compiled_operations in db (0 where it has none)."""
    if not os.path.exists(db):
        return 0
    con = sqlite3.connect(db)
    try:
        return con.execute("select count(*) from compiled_operations").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def merge(db, parts):
    """Insert every row of the parts' databases into db, keeping db's rows (one transaction)."""
    con = sqlite3.connect(db, timeout=60)
    try:
        con.execute(TABLE)
        con.commit()
        for i, part in enumerate(parts):
            if not os.path.exists(part):
                continue
            con.execute(f"attach ? as p{i}", (part,))
            try:
                con.execute(f"insert or ignore into compiled_operations select * from p{i}.compiled_operations")
            except sqlite3.OperationalError:
                pass  # a copy whose process failed before making the table
            con.commit()
            con.execute(f"detach p{i}")
    finally:
        con.close()


def kernels_for(args):
    sys.path.insert(0, KERNELS)
    from common import knobs, sweep_picks
    if args.shape:
        gpu = args.gpu
        if not gpu:
            import torch
            gpu = sweep_picks.gpu_key(torch.cuda.get_device_name())
        return sweep_picks.cutlass_kernels(args.shape, gpu, knobs.get("ROOFTOOL_CUTLASS_TILE"),
                                           knobs.get("ROOFTOOL_CUTLASS_GATE"))
    tiles = args.tiles or [t.strip() for t in knobs.get("ROOFTOOL_CUTLASS_TILE").split(",") if t.strip()] \
        or [sweep_picks.CUTLASS_DEFAULT]
    return [(k, t) for t in tiles for k in KINDS]


def missing():
    """Why nothing can be compiled here ("" where cutlass_cppgen and a GPU are present)."""
    import importlib.util
    if importlib.util.find_spec("cutlass_cppgen") is None:
        return "cutlass_cppgen is not installed"
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA device"
    return ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", default="compiled_cache.db", help="the database to fill (default ./compiled_cache.db)")
    ap.add_argument("--shape", action="append", default=[], help="a gated_ssm shape whose kernels to compile (repeatable)")
    ap.add_argument("--gpu", default="", help="picks file key (h100, h200; default: this process's device)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--one", nargs=2, metavar=("KIND", "TILE"), help=argparse.SUPPRESS)
    ap.add_argument("tiles", nargs="*")
    args = ap.parse_args(argv)
    if args.one:
        compile_one(*args.one)
        return 0
    t0 = time.time()
    db = os.path.abspath(args.db)
    why = missing()
    if why:
        print(json.dumps({"warm": {"skipped": why, "kernels": 0, "seconds": round(time.time() - t0, 3)}}))
        return 0
    want = kernels_for(args)
    from common import picks
    before = entries(db)
    tmp = tempfile.mkdtemp(prefix="cutlass-warm-")
    os.makedirs(os.path.dirname(db), exist_ok=True)

    def one(i_kt):
        i, (kind, tile) = i_kt
        d = os.path.join(tmp, str(i))
        os.makedirs(d)
        part = os.path.join(d, "compiled_cache.db")
        if os.path.exists(db):
            shutil.copyfile(db, part)
        env = dict(os.environ)
        env[CACHE_DB_VAR] = part
        env.pop(picks.ENV, None)  # its compile-only plans are no pick of the run's cells
        rc = subprocess.call([sys.executable, os.path.abspath(__file__), "--one", kind, tile], cwd=d, env=env)
        return kind, tile, rc, part

    with ThreadPoolExecutor(max_workers=max(1, min(args.jobs, len(want) or 1))) as ex:
        done = list(ex.map(one, enumerate(want)))
    merge(db, [part for _, _, _, part in done])
    shutil.rmtree(tmp, ignore_errors=True)
    failed = [f"{k} {t}" for k, t, rc, _ in done if rc != 0]
    after = entries(db)
    out = {"kernels": len(want), "compiled": after - before, "failed": failed, "processes": len(want),
           "entries_before": before, "entries_after": after, "seconds": round(time.time() - t0, 3)}
    print(f"cutlass_warm: {len(want)} kernels, {after - before} new, {after} in {db}", file=sys.stderr)
    print(json.dumps({"warm": out}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
