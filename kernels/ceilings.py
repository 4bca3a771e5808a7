#!/usr/bin/env python3
"""Empirical ceilings of this GPU, for rooftool's roofline (`rooftool ceilings`).

    python3 kernels/ceilings.py --out ceilings.json [--reps 20] [--quick]

Measures, on device 0, with CUDA events (warm-up first; best and median of
--reps repetitions):

  DRAM         working set well past L2 (>= 16x L2, >= 1 GiB per buffer):
               device-to-device copy (2 bytes moved per byte), an elementwise
               kernel (read + write) and a read-only reduction; the best wins
  L2           a Triton kernel that sweeps a buffer of L2/2 bytes many times
               (loads marked .cg so they bypass L1); fallback: a CUDA graph of
               copies inside L2
  fp32         a Triton kernel of independent FMA chains (2 FLOPs per FMA);
               also SGEMM with TF32 off ("fp32 sgemm")
  tensor bf16, tensor fp16, tensor tf32, tensor fp8
               torch.matmul (fp8: torch._scaled_mm) of 8192^3 (--quick: 4096^3),
               2*M*N*K FLOPs per call

Writes JSON (read by gpu.ReadMeasured):

  {"rooftool_ceilings": 1, "device": "NVIDIA H100 80GB HBM3", "torch": "2.11.0",
   "sm_count": 132, "l2_bytes": 52428800, "cc": "9.0",
   "clocks": {"sm_mhz": ..., "mem_mhz": ..., "max_sm_mhz": ..., "max_mem_mhz": ...},
   "items": [{"name": "DRAM", "kind": "bandwidth", "value": 3.0e12,
              "median": 2.9e12, "method": "...", "reps": 20}, ...],
   "errors": {"tensor fp8": "..."},
   "skipped": ""}

Exit status: 0 measured (some items may have failed: see "errors"), 3 skipped
(no CUDA device or no torch; the JSON says why in "skipped"), 2 bad usage.
Never changes clocks or power limits.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

EXIT_SKIPPED = 3

try:  # Triton kernels must live at module level (the JIT reads their globals)
    import triton
    import triton.language as tl
except Exception:  # no Triton: the L2 and fp32 kernels fall back or fail alone
    triton = None

if triton is not None:

    @triton.jit
    def _l2_sweep(x_ptr, out_ptr, n_chunks, iters, BLOCK: tl.constexpr):
        # Program p reads chunk (p + i*nprog) mod n_chunks at step i: every
        # step sweeps the whole buffer, and a chunk comes back to a different
        # program, so L1 holds nothing worth reusing.
        pid = tl.program_id(0)
        nprog = tl.num_programs(0)
        offs = tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for i in range(iters):
            c = (pid + i * nprog) % n_chunks
            acc += tl.load(x_ptr + c * BLOCK + offs, cache_modifier=".cg")
        tl.store(out_ptr + pid * BLOCK + offs, acc)

    @triton.jit
    def _fma_chains(x_ptr, y_ptr, iters, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        a = tl.load(x_ptr + offs)
        b = a + 1.0
        c = a + 2.0
        d = a + 3.0
        for _ in range(iters):
            a = a * 0.999 + 0.001
            b = b * 0.999 + 0.001
            c = c * 0.999 + 0.001
            d = d * 0.999 + 0.001
        tl.store(y_ptr + offs, a + b + c + d)


def write_json(path, doc):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".ceilings.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def nvidia_smi_clocks(uuid=""):
    """Current and max clocks (MHz) of the GPU named by uuid ("GPU-..."), as nvidia-smi
    reports them, or {}: nvidia-smi numbers GPUs its own way and ignores
    CUDA_VISIBLE_DEVICES, so the GPU is named by the UUID of the CUDA device in use."""
    if not uuid:
        return {}
    q = "clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem"
    try:
        out = subprocess.run(
            ["nvidia-smi", "--id=" + uuid, "--query-gpu=" + q, "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout.strip().splitlines()
        if len(out) != 1:  # --id names one GPU: another count is not its answer
            return {}
        vals = [float(x) for x in out[0].split(",")]
        return dict(zip(["sm_mhz", "mem_mhz", "max_sm_mhz", "max_mem_mhz"], vals))
    except Exception:  # nvidia-smi missing or odd output: clocks are optional
        return {}


class Timer:
    """Times fn() with CUDA events: warm-up, then reps samples in seconds."""

    def __init__(self, torch, reps, warmup=3):
        self.torch, self.reps, self.warmup = torch, reps, warmup

    def samples(self, fn):
        torch = self.torch
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        out = []
        for _ in range(self.reps):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            out.append(a.elapsed_time(b) / 1e3)
        return out


def rate_item(name, kind, work, secs, method):
    """work (bytes or FLOPs) per call over per-call seconds: best and median."""
    secs = sorted(s for s in secs if s > 0)
    if not secs:
        raise RuntimeError("no positive timing sample")
    med = secs[len(secs) // 2] if len(secs) % 2 else 0.5 * (secs[len(secs) // 2 - 1] + secs[len(secs) // 2])
    return {"name": name, "kind": kind, "value": work / secs[0], "median": work / med,
            "method": method, "reps": len(secs)}


def best(items):
    items = [i for i in items if i is not None]
    return max(items, key=lambda i: i["value"]) if items else None


# --- DRAM -------------------------------------------------------------------

def measure_dram(torch, timer, l2_bytes, quick):
    free, _ = torch.cuda.mem_get_info()
    want = max(16 * l2_bytes, 1 << 30) if not quick else max(8 * l2_bytes, 256 << 20)
    nbytes = min(want, free // 4)
    if nbytes < 4 * l2_bytes:
        raise RuntimeError(f"only {free} bytes free: cannot size a buffer well past L2 ({l2_bytes} bytes)")
    n = nbytes // 4
    src = torch.rand(n, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    gib = nbytes / 2**30
    cands = []
    cands.append(rate_item("DRAM", "bandwidth", 2 * nbytes, timer.samples(lambda: dst.copy_(src)),
                           f"device-to-device copy of {gib:.2f} GiB (read + write)"))
    cands.append(rate_item("DRAM", "bandwidth", 2 * nbytes, timer.samples(lambda: torch.mul(src, 2.0, out=dst)),
                           f"elementwise multiply of {gib:.2f} GiB fp32 (read + write)"))
    acc = torch.empty((), device="cuda", dtype=torch.float32)
    cands.append(rate_item("DRAM", "bandwidth", nbytes, timer.samples(lambda: torch.sum(src, dim=0, out=acc)),
                           f"sum reduction over {gib:.2f} GiB fp32 (read only)"))
    del src, dst
    torch.cuda.empty_cache()
    return best(cands)


# --- L2 -----------------------------------------------------------------------

def measure_l2_triton(torch, timer, l2_bytes, sms):
    if triton is None:
        raise RuntimeError("triton not importable")
    block = 2048
    chunk_bytes = block * 4
    n_chunks = max(1, (l2_bytes // 2) // chunk_bytes)
    x = torch.rand(n_chunks * block, device="cuda", dtype=torch.float32)
    nprog = sms * 4
    out = torch.empty(nprog * block, device="cuda", dtype=torch.float32)
    per_iter = nprog * chunk_bytes
    iters = max(64, int(8e9 // per_iter))  # about 8 GB read per call
    fn = lambda: _l2_sweep[(nprog,)](x, out, n_chunks, iters, BLOCK=block, num_warps=8)
    item = rate_item("L2", "bandwidth", iters * per_iter, timer.samples(fn),
                     f"Triton sweep of a {n_chunks * chunk_bytes / 2**20:.1f} MiB buffer (L2/2), loads .cg")
    del x, out
    return item


def measure_l2_graph(torch, timer, l2_bytes):
    n = (l2_bytes // 8) // 4  # two buffers of L2/8 bytes each
    src = torch.rand(n, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    copies = 64
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            torch.mul(src, 2.0, out=dst)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(copies):
            torch.mul(src, 2.0, out=dst)
    item = rate_item("L2", "bandwidth", copies * 2 * n * 4, timer.samples(g.replay),
                     f"CUDA graph of {copies} elementwise kernels on {n * 4 / 2**20:.1f} MiB buffers (inside L2)")
    del g, src, dst
    return item


# --- fp32 FMA ---------------------------------------------------------------

def measure_fp32_triton(torch, timer, sms):
    if triton is None:
        raise RuntimeError("triton not importable")
    block = 1024
    nprog = sms * 16
    n = nprog * block
    x = torch.rand(n, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    iters = 2048
    fn = lambda: _fma_chains[(nprog,)](x, y, iters, BLOCK=block, num_warps=4)
    flops = 2 * 4 * iters * n  # 4 chains, one FMA (2 FLOPs) each per iteration
    return rate_item("fp32", "compute", flops, timer.samples(fn),
                     f"Triton kernel, 4 independent FMA chains x {iters} per element, {n} elements")


def measure_sgemm(torch, timer, size):
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        a = torch.randn(size, size, device="cuda", dtype=torch.float32)
        b = torch.randn(size, size, device="cuda", dtype=torch.float32)
        item = rate_item("fp32 sgemm", "compute", 2 * size**3, timer.samples(lambda: torch.matmul(a, b)),
                         f"torch.matmul fp32 {size}^3, TF32 off (CUDA cores)")
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    return item


# --- tensor GEMMs -----------------------------------------------------------

def measure_gemm(torch, timer, name, dtype, size, tf32=False):
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        a = torch.randn(size, size, device="cuda", dtype=torch.float32).to(dtype)
        b = torch.randn(size, size, device="cuda", dtype=torch.float32).to(dtype)
        item = rate_item(name, "compute", 2 * size**3, timer.samples(lambda: torch.matmul(a, b)),
                         f"torch.matmul {str(dtype).replace('torch.', '')} {size}^3" + (" with TF32" if tf32 else ""))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    return item


def measure_fp8(torch, timer, size):
    f8 = torch.float8_e4m3fn
    a = torch.randn(size, size, device="cuda").to(f8)
    b = torch.randn(size, size, device="cuda").to(f8).t()  # column-major, as _scaled_mm wants
    one = torch.tensor(1.0, device="cuda")
    fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    return rate_item("tensor fp8", "compute", 2 * size**3, timer.samples(fn),
                     f"torch._scaled_mm e4m3 {size}^3, bf16 out")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke test, not a ceiling)")
    args = ap.parse_args(argv)
    if args.reps < 1:
        ap.error("--reps must be at least 1")

    doc = {"rooftool_ceilings": 1, "device": "", "items": [], "errors": {}, "skipped": ""}
    try:
        import torch
    except Exception as e:  # no torch: nothing to measure with
        doc["skipped"] = f"torch not importable: {e}"
        write_json(args.out, doc)
        return EXIT_SKIPPED
    doc["torch"] = torch.__version__
    if not torch.cuda.is_available():
        doc["skipped"] = "no CUDA device (torch.cuda.is_available() is false)"
        write_json(args.out, doc)
        return EXIT_SKIPPED

    torch.cuda.set_device(0)
    p = torch.cuda.get_device_properties(0)
    sms = p.multi_processor_count
    l2 = int(getattr(p, "L2_cache_size", 0) or 0) or 50 * 2**20
    doc.update(device=p.name, sm_count=sms, l2_bytes=l2, cc=f"{p.major}.{p.minor}")
    uuid = getattr(p, "uuid", None)  # torch >= 2.1: the CUDA device UUID
    if uuid:
        doc["uuid"] = "GPU-" + str(uuid)
    doc["taken"] = __import__("datetime").datetime.now(__import__("datetime").timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["clocks"] = nvidia_smi_clocks(doc.get("uuid", ""))
    timer = Timer(torch, args.reps)
    size = 4096 if args.quick else 8192

    def attempt(label, fn):
        try:
            it = fn()
            if it is not None:
                doc["items"].append(it)
            return it
        except Exception as e:  # one failed ceiling does not void the others
            doc["errors"][label] = f"{type(e).__name__}: {e}"
            return None
        finally:
            try:  # a sticky CUDA error must not take the other ceilings down here
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception as e:
                doc["errors"].setdefault(label, f"{type(e).__name__}: {e}")

    attempt("DRAM", lambda: measure_dram(torch, timer, l2, args.quick))
    if attempt("L2", lambda: measure_l2_triton(torch, timer, l2, sms)) is None:
        attempt("L2 (graph)", lambda: measure_l2_graph(torch, timer, l2))
    attempt("fp32", lambda: measure_fp32_triton(torch, timer, sms))
    attempt("fp32 sgemm", lambda: measure_sgemm(torch, timer, size // 2))
    attempt("tensor bf16", lambda: measure_gemm(torch, timer, "tensor bf16", torch.bfloat16, size))
    attempt("tensor fp16", lambda: measure_gemm(torch, timer, "tensor fp16", torch.float16, size))
    attempt("tensor tf32", lambda: measure_gemm(torch, timer, "tensor tf32", torch.float32, size, tf32=True))
    if (p.major, p.minor) >= (8, 9):
        attempt("tensor fp8", lambda: measure_fp8(torch, timer, size))
    if not doc["clocks"]:
        doc.pop("clocks")
    write_json(args.out, doc)
    for it in doc["items"]:
        unit = "B/s" if it["kind"] == "bandwidth" else "FLOP/s"
        print(f"{it['name']:<12} {it['value'] / 1e12:9.2f} T{unit}  {it['method']}", file=sys.stderr)
    for k, v in doc["errors"].items():
        print(f"{k:<12} failed: {v}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
