#!/usr/bin/env python3
"""Fake kernels/run.py for the launcher tests: writes the runner contract's
JSON files (kernels/README.md) without a GPU. Behaviour by variant name, see
fake/spec.yaml. Every invocation is appended as JSON to $FAKE_LOG."""
import json, os, subprocess, sys, time


def gpu_uuid():
    """The UUID torch would give CUDA device 0 under CUDA_VISIBLE_DEVICES: its
    first entry, a UUID or an index of the fake nvidia-smi's numbering."""
    first = (os.environ.get("CUDA_VISIBLE_DEVICES") or "0").split(",")[0].strip()
    if first.startswith("GPU-"):
        return first
    return "GPU-0000000%s-1111-2222-3333-444444444444" % (first if first.isdigit() else "0")


def clocks():
    """This GPU's clocks read by UUID from the nvidia-smi on PATH, as the real
    runner's gpuid does; the fake default where there is none."""
    try:
        out = subprocess.run(["nvidia-smi", "--id=" + gpu_uuid(), "--query-gpu=clocks.sm,clocks.mem",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, check=True).stdout
        sm, mem = out.strip().split(", ")
        return {"sm_mhz": float(sm), "mem_mhz": float(mem)}
    except Exception:  # noqa: BLE001 - no fake nvidia-smi on PATH
        return {"sm_mhz": 1980, "mem_mhz": 3201}


def main(argv):
    mode = argv[0]
    if os.environ.get("FAKE_LOG"):
        with open(os.environ["FAKE_LOG"], "a") as f:
            f.write(json.dumps(argv) + "\n")
    if os.environ.get("FAKE_PICKS_LOG"):
        with open(os.environ["FAKE_PICKS_LOG"], "a") as f:
            f.write(json.dumps([argv[0], os.environ.get("ROOFTOOL_PICKS", "")]) + "\n")
    if mode == "time" and os.environ.get("FAKE_TIMING_SPANS"):
        # Begin and end of each timing process, to show whether two overlap.
        with open(os.environ["FAKE_TIMING_SPANS"], "a") as f:
            f.write("%f begin\n" % time.time())
        time.sleep(0.3)
        with open(os.environ["FAKE_TIMING_SPANS"], "a") as f:
            f.write("%f end\n" % time.time())
    if mode == "env":
        print("some warning line before the JSON")
        print(json.dumps({"python": "3.12.0", "torch": "2.11.0", "triton": "3.6.0", "cuda": "13.0",
                          "device": "NVIDIA H200", "sm_count": 132, "l2_bytes": 62914560,
                          "compute_capability": "9.0", "driver": "580.00", "gpu_uuid": gpu_uuid()}))
        return 0
    exp, cells, out = None, [], None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--experiment":
            exp = argv[i + 1]; i += 2
        elif a == "--cell":
            cells.append(argv[i + 1]); i += 2
        elif a == "--out":
            out = argv[i + 1]; i += 2
        elif a in ("--reps", "--warmup", "--seed"):
            i += 2
        else:
            print("run.py: unknown argument " + a, file=sys.stderr)
            return 2
    # Experiments of ROOFTOOL_EXPERIMENT_DIRS (profile --experiments) run like fake.
    known = {"fake"} | {os.path.basename(d.rstrip("/")) for d in os.environ.get("ROOFTOOL_EXPERIMENT_DIRS", "").split(os.pathsep) if d}
    if exp not in known or not out:
        print("run.py: bad usage", file=sys.stderr)
        return 2
    # The code record the runner adds to every per-cell JSON; FAKE_CODE=none
    # leaves it out (an older runner), FAKE_CODE=bad writes a malformed one.
    code = {"knobs": {"ROOFTOOL_MM_IMPL": os.environ.get("ROOFTOOL_MM_IMPL", "auto")},
            "picks": {"tile": "128x64", "num_warps": 4}, "launch": "plan"}
    if os.environ.get("FAKE_CODE") == "bad":
        code = "bad"
    if os.environ.get("FAKE_ENV_LOG"):
        # The compile-cache variables each process got (launch/compilecache/cache.go).
        with open(os.environ["FAKE_ENV_LOG"], "a") as f:
            f.write(json.dumps([mode] + [os.environ.get(k) for k in (
                "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "CUTE_DSL_CACHE_DIR",
                "ROOFTOOL_CUTLASS_CACHE_DB", "TORCHINDUCTOR_FX_GRAPH_CACHE",
                "TORCHINDUCTOR_AUTOTUNE_LOCAL_CACHE")]) + "\n")
    # FAKE_CACHE_WRITE=1: each cell "compiles" one kernel into the Triton
    # cache unless the cache holds it (one file per cell).
    if os.environ.get("FAKE_CACHE_WRITE") and os.environ.get("TRITON_CACHE_DIR"):
        for cell in cells:
            k = os.path.join(os.environ["TRITON_CACHE_DIR"], cell.replace("/", "_").replace("=", "") + ".bin")
            if not os.path.exists(k):
                with open(k, "w") as f:
                    f.write("kernel")
    # FAKE_STARTUP and FAKE_CELL_SLEEP (seconds) stand for imports before the
    # first cell and for each cell's work; the cell's clock goes in its JSON
    # (cell_started, cell_seconds) unless FAKE_CODE=none (an older runner).
    time.sleep(float(os.environ.get("FAKE_STARTUP") or 0))
    failed = 0
    for cell in cells:
        v, s = cell.split("/", 1)
        base = os.path.join(out, v, s)
        os.makedirs(os.path.dirname(base), exist_ok=True)
        t_cell = time.time()
        time.sleep(float(os.environ.get("FAKE_CELL_SLEEP") or 0))
        def write(suffix, obj):
            if os.environ.get("FAKE_CODE") != "none":
                obj = dict(obj, code=code, cell_started=t_cell, cell_seconds=round(time.time() - t_cell, 3))
            with open(base + suffix + ".tmp", "w") as f:
                json.dump(obj, f)
            os.replace(base + suffix + ".tmp", base + suffix)
        if v == "needs":
            chk = {"ok": False, "skipped": True, "error": "requires nothere: not installed"}
        elif v == "wrong":
            chk = {"ok": False, "error": "max rel err 1 > tolerance 0.001", "max_rel_err": 1.0, "tolerance": 0.001}
        else:
            chk = {"ok": True, "max_abs_err": 0.0, "max_rel_err": 1e-6, "tolerance": 0.001}
        chk.update({"experiment": exp, "variant": v, "shape": s})
        if mode == "check":
            write(".check.json", chk)
            failed += 0 if chk["ok"] or chk.get("skipped") else 1
            continue
        if not chk["ok"]:
            write(".check.json", chk)
            if mode == "profile":
                write(".profile.json", {"ok": False, "skipped": bool(chk.get("skipped")), "error": chk["error"]})
            failed += 0 if chk.get("skipped") else 1
            continue
        if v == "crash" and mode in ("time", "profile"):
            sys.stderr.write("Segmentation fault (simulated)\n"); sys.stderr.flush()
            os._exit(139)
        if v == "hang" and mode == "time":
            time.sleep(60)
        if mode == "time":
            write(".json", {"rooftool_timing": 1, "experiment": exp, "variant": v, "shape": s,
                            "device": "NVIDIA H200", "method": "cuda-events", "warmup": 2, "reps": 30,
                            "rotate_buffers": 2, "clocks": clocks(), "gpu_uuid": gpu_uuid(),
                            "samples_ms": [0.5 + 0.001 * k for k in range(30)]})
        elif mode == "profile":
            if os.environ.get("FAKE_TRACE"):
                with open(os.environ["FAKE_TRACE"], "a") as f:
                    f.write(json.dumps([exp, v, s]) + "\n")
            write(".profile.json", {"ok": True})
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
