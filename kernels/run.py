#!/usr/bin/env python3
"""rooftool's kernel runner. Contract: kernels/README.md.

    python3 kernels/run.py MODE --experiment E [--cell VARIANT/SHAPE]... --out DIR
                           [--reps N] [--warmup N] [--seed S] [--experiments-dir DIR]...

Modes: env, check, time, profile (the contract), plus list (cells as JSON, no torch
needed), bench (efficiency figures against measured cuBLAS and copy ceilings) and pair
(`--pair BASELINE/CANDIDATE/SHAPE`, repeatable: the two variants timed paired and
interleaved in this process, common/paired.py; records under DIR/paired/).
`--all` runs every experiment (check and bench); output then goes to DIR/<experiment>/.
`--experiments-dir DIR` (repeatable; also $ROOFTOOL_EXPERIMENT_DIRS) adds experiment folders
kept outside kernels/: DIR is one experiment folder (it holds spec.yaml) or a folder of them.
Exit codes: 0 every cell ok (skipped cells count as ok), 1 a cell failed, 2 bad usage.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import records  # noqa: E402  (no torch)
from common import spec as specmod  # noqa: E402  (needs only PyYAML)
from common.spec import UsageError  # noqa: E402

MODES = ("env", "check", "time", "profile", "bench", "list", "pair")
EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def build_parser():
    p = _Parser(prog="kernels/run.py", description="rooftool kernel runner (see kernels/README.md)")
    p.add_argument("mode", choices=MODES)
    p.add_argument("--experiment", "-e", action="append", default=[], help="experiment name (repeatable)")
    p.add_argument("--all", action="store_true", help="every experiment")
    p.add_argument("--cell", action="append", default=[], help="VARIANT/SHAPE (repeatable); default every cell")
    p.add_argument("--out", default="", help="output directory")
    p.add_argument("--reps", type=int, default=50, help="timed repetitions (>= 30)")
    p.add_argument("--warmup", type=int, default=10, help="warm-up iterations")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pair", action="append", default=[], metavar="BASELINE/CANDIDATE/SHAPE",
                   help="pair mode: two variants of --experiment timed paired at SHAPE (repeatable)")
    p.add_argument("--pairs", type=int, default=60, help="pair mode: scored pairs per launch method (>= 10)")
    p.add_argument("--default-grid", action="store_true", help="only the spec's shapes:, not its sweeps")
    p.add_argument("--experiments-dir", action="append", default=[], metavar="DIR",
                   help="experiment folder outside kernels/, or a folder of them (repeatable)")
    return p


def parse_args(argv):
    """Parse and validate argv; returns (args, [(experiment, [(variant, shape)])]).

    Raises UsageError for anything the contract calls bad usage (exit 2)."""
    a = build_parser().parse_args(argv)
    specmod.EXTRA_DIRS[:] = a.experiments_dir
    if a.mode == "env":
        return a, []
    if a.reps < 30 and a.mode in ("time", "bench"):
        raise UsageError(f"--reps {a.reps}: want at least 30")
    if a.warmup < 0:
        raise UsageError(f"--warmup {a.warmup}: want >= 0")
    if a.all and a.experiment:
        raise UsageError("give --experiment or --all, not both")
    if a.all and a.cell:
        raise UsageError("--cell needs one --experiment, not --all")
    names = specmod.experiment_names() if a.all else a.experiment
    if not names:
        raise UsageError("missing --experiment (or --all)")
    if a.cell and len(names) != 1:
        raise UsageError("--cell needs exactly one --experiment")
    if a.mode == "pair":
        return a, _pair_plan(a)
    if a.pair:
        raise UsageError("--pair is for mode pair")
    if a.mode in ("check", "time", "profile") and not a.out:
        raise UsageError(f"mode {a.mode} needs --out DIR")
    plan = []
    for n in names:
        e = specmod.load(n)
        cs = specmod.cells(e, a.cell)
        if a.default_grid and not a.cell:
            cs = [(v, s) for v, s in cs if s in e.shapes]
        plan.append((e, cs))
    return a, plan


def _pair_plan(a):
    """Mode pair: [(experiment, [(baseline, candidate, shape)])], every name checked."""
    from common import paired
    if len(a.experiment) != 1 or a.all:
        raise UsageError("mode pair needs exactly one --experiment")
    if not a.pair:
        raise UsageError("mode pair needs at least one --pair BASELINE/CANDIDATE/SHAPE")
    if not a.out:
        raise UsageError("mode pair needs --out DIR")
    if a.pairs < 10:
        raise UsageError(f"--pairs {a.pairs}: want at least 10")
    e = specmod.load(a.experiment[0])
    out = []
    for arg in a.pair:
        try:
            b, c, s = paired.parse_pair(arg)
        except ValueError as err:
            raise UsageError(str(err)) from None
        for v in (b, c):
            if e.variant(v) is None:
                raise UsageError(f"--pair {arg!r}: experiment {e.name} has no variant {v!r}")
        try:
            specmod.parse_shape(s)
        except ValueError as err:
            raise UsageError(f"--pair {arg!r}: shape: {err}") from None
        out.append((b, c, s))
    return [(e, out)]


def pair_main(a, plan):
    """Mode pair: one paired record per --pair; exit 1 when any could not be timed."""
    import torch
    from common import paired, runner
    failed = 0
    for e, pairs in plan:
        for b, c, s in pairs:
            path = os.path.join(a.out, "paired", paired.file_name(b, c, s))
            t0 = time.time()
            try:
                rec = paired.run_pair(runner, e, s, b, c, a.seed, n_pairs=a.pairs)
            except Exception as err:  # noqa: BLE001
                failed += 1
                print(f"{e.name} pair {b} vs {c} at {s}: FAILED: {type(err).__name__}: {err}", file=sys.stderr, flush=True)
                continue
            rec["seconds"] = round(time.time() - t0, 3)
            runner.write_json(path, rec)
            for L in rec["launches"]:
                if L.get("error"):
                    print(f"{e.name} pair {b} vs {c} at {s} [{L['launch']}]: not timed: {L['error']}", file=sys.stderr, flush=True)
                    continue
                sm = paired.summarize([(p["baseline_ms"], p["candidate_ms"]) for p in L["pairs"]])
                print(f"{e.name} pair {b} vs {c} at {s} [{L['launch']}]: speedup {sm['speedup']:.3f}x "
                      f"[{sm['lo']:.3f}, {sm['hi']:.3f}] over {sm['n']} pairs", file=sys.stderr, flush=True)
            torch.cuda.empty_cache()
    return EXIT_FAIL if failed else EXIT_OK


def out_dir(a, e):
    if a.all or len(a.experiment) > 1:
        return os.path.join(a.out, e.name)
    return a.out


def timed(rec, clock):
    """rec with the cell's clock: "cell_started" (Unix seconds, when the runner began the
    cell) and "cell_seconds" (from then until now, just before rec is written)."""
    rec.update(clock)
    rec["cell_seconds"] = round(time.time() - clock["cell_started"], 3)
    return rec


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        a, plan = parse_args(argv)
    except UsageError as err:
        print(f"run.py: {err}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as err:  # a malformed spec.yaml
        print(f"run.py: {err}", file=sys.stderr)
        return EXIT_USAGE

    if a.mode == "list":
        print(json.dumps([{"experiment": e.name, "variant": v.name, "shape": s, "role": v.role,
                           "graph": v.graph, "backward": v.backward, "requires": v.requires}
                          for e, cs in plan for v, s in cs], indent=1))
        return EXIT_OK

    try:
        import torch  # the GPU modes need torch
    except ImportError:
        print(f"run.py: mode {a.mode} needs torch, which is not installed", file=sys.stderr)
        return EXIT_FAIL
    records.disable_tf32(torch)  # before any module runs a matmul: the reference is float32
    from common import runner

    if a.mode == "env":
        print(json.dumps(runner.env_info(), indent=1))
        return EXIT_OK
    if not torch.cuda.is_available():
        print("run.py: no CUDA device", file=sys.stderr)
        return EXIT_FAIL

    if a.mode == "bench":
        from common import bench
        return bench.main(a, plan)
    if a.mode == "pair":
        return pair_main(a, plan)

    failed = 0
    from common import refcache
    for e, cs in plan:
        cs = refcache.by_shape(cs)  # a shape's variants in a row share its reference
        d = out_dir(a, e)
        # The check pass compares each variant with its baseline's output too (vsbase);
        # time and profile check a cell only to decide whether to measure it.
        vs = None
        if a.mode == "check":
            from common import vsbase
            vs = vsbase.Tracker(d)
        for i, (v, s) in enumerate(cs):
            t_cell = time.time()
            cell = runner.Cell(e, v, s, a.seed)
            chk = runner.run_check(cell, vs=vs)
            if i + 1 == len(cs) or cs[i + 1][1] != s:
                runner.REFERENCES.clear()  # the shape's last variant: free its reference
            base = os.path.join(d, v.name, s)
            clock = {"cell_started": round(t_cell, 3)}  # cell_seconds set as each file is written
            status = "ok" if chk["ok"] else ("skipped" if chk.get("skipped") else "FAILED")
            if a.mode == "check" or not chk["ok"]:
                runner.write_json(base + ".check.json", timed(chk, clock))
            if not chk["ok"]:
                if not chk.get("skipped"):
                    failed += 1
                if a.mode == "profile":
                    why = chk["error"] if chk.get("skipped") else "check failed: " + chk["error"]
                    rec = records.profile_record(e.name, v.name, s, v.graph, ok=False, error=why,
                                                 skipped=bool(chk.get("skipped")))
                    rec["code"] = chk.get("code") or runner.code_record()
                    runner.write_json(base + ".profile.json", timed(rec, clock))
                print(f"{cell.label}: {status}: {chk['error']}", file=sys.stderr, flush=True)
                continue
            msg = f"{cell.label}: check ok (rel {chk['max_rel_err']:.2e}, {chk['seconds']}s)"
            vb = chk.get("vs_baseline") or {}
            if vb.get("rel_err") is not None:
                msg += f"; vs {vb['baseline']} rel {vb['rel_err']:.2e}"
            try:
                if a.mode == "time":
                    t = runner.run_time(cell, a.reps, a.warmup)
                    runner.write_json(base + ".json", timed(t, clock))
                    sm = sorted(t["samples_ms"])
                    msg += f"; median {sm[len(sm)//2]*1e3:.1f} us over {len(sm)} reps, {t['rotate_buffers']} buffer sets"
                    dm = sorted(t["device_ms"] or [])
                    msg += f"; device {dm[len(dm)//2]*1e3:.1f} us" if dm else f"; device time: {t.get('device_error', '')}"
                elif a.mode == "profile":
                    runner.write_json(base + ".profile.json", timed(runner.run_profile(cell, a.warmup), clock))
            except Exception as err:  # noqa: BLE001
                failed += 1
                import traceback
                rec = records.profile_record(e.name, v.name, s, v.graph, ok=False, error=f"{a.mode}: {type(err).__name__}: {err}")
                rec["traceback"] = traceback.format_exc()[-4000:]
                rec["code"] = runner.code_record()
                runner.write_json(base + (".profile.json" if a.mode == "profile" else ".time-error.json"), timed(rec, clock))
                msg = f"{cell.label}: FAILED in {a.mode}: {rec['error']}"
            print(msg, file=sys.stderr, flush=True)
            cell.impl = None
            torch.cuda.empty_cache()
    return EXIT_FAIL if failed else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
