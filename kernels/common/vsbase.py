"""The check pass's comparison of each variant with its baseline (torch imported where
tensors are handled, so the bookkeeping is testable without it).

Every variant of a shape sees the same inputs for a seed (runner.cell_seed), so the
baseline's checked output is a second yardstick beside the float32 reference: the check
JSON gets "vs_baseline" = {"baseline", "rel_err", "outputs"} with the norm-wise relative
error ||out-base||/||base|| per output in float64 (records.vs_baseline_record), or
"vs_baseline_error" where the baseline has no usable output. It never decides pass/fail.

The baseline is the one spec/spec.go's BaselineFor names (spec.Experiment.baseline_for).
Its outputs from its own check (the second call on the same buffers) are kept on the host,
per (experiment, baseline, shape, seed), within a byte budget; a variant checked before its
baseline, or after the entry was evicted, runs the baseline's check here first (not
written). A baseline whose check is in flight leaves a marker file
DIR/<baseline>/<shape>.baseline-inflight until it finishes, so that after a runner crash in
the baseline the re-launched runner reports the crash instead of running it again for
every other variant of that shape.
"""
from __future__ import annotations

import json
import os
from collections import OrderedDict

from . import picks, records

BUDGET_BYTES = 16 << 30
MARKER = ".baseline-inflight"


def compare_outputs(got, base):
    """Per output {"rel_err", "max_abs_err", "base_norm"} (or {"nan": n}) of got (device
    tensors) against base (host tensors), in float64 on got's device."""
    import torch
    per = {}
    for k, b in base.items():
        if k not in got:
            raise KeyError(f"output {k!r} missing")
        o = got[k]
        if tuple(o.shape) != tuple(b.shape):
            raise ValueError(f"output {k!r}: shape {tuple(o.shape)}, baseline {tuple(b.shape)}")
        o64 = o.detach().to(torch.float64)
        nan = int(torch.isnan(o64).sum().item())
        if nan:
            per[k] = {"nan": nan}
            continue
        b64 = b.to(o.device).to(torch.float64)
        d = o64 - b64
        bn = torch.linalg.vector_norm(b64).item()
        rel = torch.linalg.vector_norm(d).item() / (bn if bn > 0 else 1.0)
        ab = d.abs().max().item() if d.numel() else 0.0
        per[k] = {"rel_err": rel, "max_abs_err": ab, "base_norm": bn}
        del o64, b64, d
    return per


class Tracker:
    """One per check-pass process (run.py check): out_dir is the pass's --out for the
    experiment at hand (run.py passes the one of each experiment)."""

    def __init__(self, out_dir, budget_bytes=BUDGET_BYTES):
        self.dir = out_dir
        self.budget = budget_bytes
        self.cache = OrderedDict()  # (exp, variant, shape, seed) -> {"outputs", "bytes"} | {"error"}
        self.bytes = 0

    def _marker(self, variant, shape):
        return os.path.join(self.dir, variant, shape + MARKER)

    def _set_marker(self, variant, shape, on):
        p = self._marker(variant, shape)
        try:
            if on:
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write("checking\n")
            elif os.path.exists(p):
                os.remove(p)
        except OSError:
            pass

    def begin(self, cell):
        """Before cell's check. For the baseline itself: marks it in flight, returns None.
        For another variant: its baseline's entry ({"outputs"} or {"error"}), from the
        cache or from a check of the baseline run here."""
        b = cell.exp.baseline_for(cell.variant.name)
        if b == cell.variant.name:
            self._set_marker(b, cell.shape, True)
            return None
        if not b:
            return {"error": "the spec names no baseline"}
        e = self.cache.get((cell.exp.name, b, cell.shape, cell.seed))
        if e is not None:
            return e
        bv = cell.exp.variant(b)
        if bv.backward != cell.variant.backward:
            return {"error": f"baseline {b} computes another direction (backward: {bv.backward}): no common outputs"}
        if os.path.exists(self._marker(b, cell.shape)):
            return {"error": f"baseline {b} did not finish its check in this pass (the runner stopped in it)"}
        f = os.path.join(self.dir, b, cell.shape + ".check.json")
        if os.path.exists(f):
            try:
                with open(f, encoding="utf-8") as fh:
                    rec = json.load(fh)
            except (OSError, ValueError):
                rec = {}
            if rec and not rec.get("ok"):
                return self._failed(b, rec)
        from .runner import Cell, run_check  # the baseline's check, here (not written)
        saved = picks.snapshot()
        try:
            run_check(Cell(cell.exp, bv, cell.shape, cell.seed), vs=self)
        finally:
            picks.restore(saved)
        return self.cache.get((cell.exp.name, b, cell.shape, cell.seed)) or {
            "error": f"baseline {b}: no output kept (larger than the {self.budget >> 30} GiB budget?)"}

    @staticmethod
    def _failed(b, rec):
        if rec.get("skipped"):
            return {"error": f"baseline {b} skipped: {rec.get('error', '')}"}
        return {"error": f"baseline {b} failed its check: {rec.get('error', '') or 'no reason given'}"}

    def skipped(self, cell, res):
        """A cell skipped before it ran (requires: missing): a baseline is kept as skipped,
        another variant gets vs_baseline_error (its baseline is not run for it)."""
        if cell.exp.baseline_for(cell.variant.name) == cell.variant.name:
            self.finish(cell, res, None, None)
        else:
            res["vs_baseline_error"] = f"{cell.variant.name} skipped"

    def finish(self, cell, res, got, base):
        """After cell's check (res: its record, got: its last outputs or None, base: what
        begin returned). Adds vs_baseline / vs_baseline_error to res, or keeps a baseline's
        outputs. Never raises."""
        if base is None:
            try:
                self._keep(cell, res, got)
            except Exception as e:  # noqa: BLE001 - e.g. host memory: the variants run it again
                self.cache[(cell.exp.name, cell.variant.name, cell.shape, cell.seed)] = {
                    "error": f"baseline {cell.variant.name}: output not kept: {type(e).__name__}: {e}"}
            finally:
                self._set_marker(cell.variant.name, cell.shape, False)
            return
        try:
            if "error" in base:
                res["vs_baseline_error"] = records.one_line(base["error"])
            elif got is None:
                why = "skipped" if res.get("skipped") else "produced no outputs: " + (res.get("error") or "exception")
                res["vs_baseline_error"] = records.one_line(f"{cell.variant.name} {why}")
            else:
                per = compare_outputs(got, base["outputs"])
                res["vs_baseline"] = records.vs_baseline_record(cell.exp.baseline_for(cell.variant.name), per)
        except Exception as e:  # noqa: BLE001 - the comparison never fails a cell
            res.pop("vs_baseline", None)
            res["vs_baseline_error"] = records.one_line(f"{type(e).__name__}: {e}")

    def _keep(self, cell, res, got):
        key = (cell.exp.name, cell.variant.name, cell.shape, cell.seed)
        old = self.cache.pop(key, None)
        if old is not None:
            self.bytes -= old.get("bytes", 0)
        if res.get("ok") and got is not None:
            import torch
            outs = {k: t.detach().contiguous().cpu() for k, t in got.items() if isinstance(t, torch.Tensor)}
            n = sum(t.numel() * t.element_size() for t in outs.values())
            while self.cache and self.bytes + n > self.budget:
                _, ev = self.cache.popitem(last=False)
                self.bytes -= ev.get("bytes", 0)
            e = {"outputs": outs, "bytes": n}
            self.bytes += n
        else:
            e = self._failed(cell.variant.name, res)
        self.cache[key] = e
