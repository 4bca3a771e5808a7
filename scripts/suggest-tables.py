#!/usr/bin/env python3
"""METHOD.md's suggest tables from `rooftool suggest --against-run RUN --format json`.

Usage: scripts/suggest-tables.py ROOFTOOL [RUN...]  (default: every committed run)
Prints two Markdown tables: torch.compile's variants read by their fused
edges (FUSED columns), and the default-mode model (MODEL columns).
"""
import json
import os
import subprocess
import sys

U = 1e38  # an unbounded side of an interval


def pct(v):
    return f"{v:+.0f}%"


def err(pred, meas, e):
    return "±0" if pred == 0 and meas == 0 else pct(e)


def shape(c):
    parts = dict(p.split("=") for p in c["shape"].split(","))
    keys = ("T", "d")
    return c["experiment"] + " " + ",".join(f"{k}={parts[k]}" for k in keys if k in parts)


def f1(v):
    s = f"{v:.1f}"
    return "0.0" if s == "-0.0" else s


def ref_time(c):
    lo, hi = c["measured_time_saved_lo_ns"], c["measured_time_saved_hi_ns"]
    s = f"{c['measured_time_saved_ns'] / 1e3:.1f}"
    if c["measured_time_samples"] > 0:
        s += " [" + ("-" if abs(lo) > U else f1(lo / 1e3)) + ", " + ("-" if abs(hi) > U else f1(hi / 1e3)) + "]"
    return s


def main():
    tool, runs = sys.argv[1], sys.argv[2:]
    if not runs:
        runs = sorted(r for r in os.listdir("testdata/runs") if r[:2] == "20")
    fused, model = [], []
    for run in runs:
        doc = json.loads(subprocess.run([tool, "suggest", "--against-run", run, "--format", "json"],
                                        check=True, capture_output=True, text=True).stdout)
        name = run[11:]
        for c in doc["checks"]:
            if not c["candidate"].startswith("compiled"):
                continue
            partial = " (range-partial)" if "range-partial" in c.get("note", "") else ""
            if "no range pass" in c.get("note", ""):
                partial = " (%s: no range pass)" % c["note"].split()[0]
            ref = c["time_reference"]
            if c.get("time_reference_note"):
                ref += ": " + c["time_reference_note"]
            if c["fused_known"]:
                fused.append("| %s | %s | %s | fused edges: %s | %d / %d (%s) | %.1f / %.1f (%s) / %.1f (%s)%s | %.1f / %s (%s) / %.1f (%s) | %s |" % (
                    name, shape(c), c["candidate"], c.get("fused") or "none",
                    c["fused_kernels_saved"], c["measured_kernels_saved"], err(c["fused_kernels_saved"], c["measured_kernels_saved"], 100 * (c["fused_kernels_saved"] - c["measured_kernels_saved"]) / max(1, abs(c["measured_kernels_saved"]))),
                    c["fused_dram_saved_bytes"] / 1e6, c["measured_dram_saved_kernel_bytes"] / 1e6,
                    err(c["fused_dram_saved_bytes"], c["measured_dram_saved_kernel_bytes"], c.get("dram_kernel_error_pct", 0)),
                    c["measured_dram_saved_bytes"] / 1e6, err(c["fused_dram_saved_bytes"], c["measured_dram_saved_bytes"], c.get("dram_error_pct", 0)), partial,
                    c["fused_folded_time_ns"] / 1e3, ref_time(c), err(c["fused_folded_time_ns"], c["measured_time_saved_ns"], c["gpu_time_error_pct"]),
                    c["measured_kernel_time_saved_ns"] / 1e3, err(c["fused_folded_time_ns"], c["measured_kernel_time_saved_ns"], 100 * (c["fused_folded_time_ns"] - c["measured_kernel_time_saved_ns"]) / max(1, abs(c["measured_kernel_time_saved_ns"]))),
                    ref))
            if c["model_known"]:
                model.append("| %s | %s | %s | %d / %d (%+d) | %.1f / %.1f (%s) | %.1f / %.1f (%s)%s | %.1f / %s (%s) | %s | %.1f, %.1f | %.1f / %.1f |" % (
                    name, shape(c), c["candidate"], c["model_kernels_saved"], c["measured_kernels_saved"], c["model_kernels_error"],
                    c["model_dram_saved_flushed_bytes"] / 1e6, c["measured_dram_saved_kernel_bytes"] / 1e6,
                    err(c["model_dram_saved_flushed_bytes"], c["measured_dram_saved_kernel_bytes"], c.get("model_dram_flushed_error_pct", 0)),
                    c["model_dram_saved_warm_bytes"] / 1e6, c["measured_dram_saved_bytes"] / 1e6,
                    err(c["model_dram_saved_warm_bytes"], c["measured_dram_saved_bytes"], c.get("model_dram_warm_error_pct", 0)), partial,
                    c["model_time_saved_ns"] / 1e3, ref_time(c), err(c["model_time_saved_ns"], c["measured_time_saved_ns"], c.get("model_time_error_pct", 0)),
                    ref, c["model_kernel_time_saved_ns"] / 1e3, c["model_copy_time_ns"] / 1e3,
                    c["measured_gpu_time_saved_ns"] / 1e3, c["measured_kernel_time_saved_ns"] / 1e3))
    print("| run | experiment, shape | candidate | predicted from | kernels saved: predicted / measured | DRAM saved (MB): predicted / kernel pass (err) / range pass (err) | GPU time saved (us): predicted / measured [95% interval] (err) / kernel pass (err) | time reference |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(fused))
    print()
    print("| run | experiment, shape | candidate | kernels saved: model / measured | DRAM saved (MB), L2 flushed: model / kernel pass (err) | DRAM saved (MB), warm L2: model / range pass (err) | time saved (us): model / measured [95% interval] (err) | time reference | model kernel time, copies (us) | nsys / kernel pass (us) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(model))


if __name__ == "__main__":
    main()
