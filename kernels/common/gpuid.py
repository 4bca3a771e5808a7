"""The GPU a process runs on, named by UUID in every NVML and nvidia-smi read.

NVML and nvidia-smi ignore CUDA_VISIBLE_DEVICES: index 0 there is the host's first
GPU, not the one CUDA device 0 of this process maps to. Every read here names the
device by its UUID (nvmlDeviceGetHandleByUUID, nvidia-smi --id=<uuid>), the UUID the
CUDA runtime gives for the device the process uses (runner: torch's device
properties). No torch here, so the reads can be tested with fake GPUs."""
from __future__ import annotations

import subprocess


def uuid_name(uuid):
    """The NVML/nvidia-smi name of a CUDA device UUID: "GPU-<uuid>" (torch's
    properties give the UUID without the prefix; NVML's own name has it)."""
    s = (uuid.decode() if isinstance(uuid, bytes) else str(uuid or "")).strip()
    if not s:
        return ""
    return s if s.startswith(("GPU-", "MIG-")) else "GPU-" + s


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


class GPU:
    """Reads of one GPU by UUID: through pynvml where it imports (nvml may be given,
    a module with pynvml's functions), else through nvidia-smi (smi, the command).
    A read that fails gives {} or "": clocks and identity are optional."""

    def __init__(self, uuid, nvml=None, smi="nvidia-smi"):
        self.uuid = uuid_name(uuid)
        self.smi = smi
        self._nv, self._h = nvml, None
        self._tried = False

    def _handle(self):
        if self._tried:
            return self._nv, self._h
        self._tried = True
        if not self.uuid:
            self._nv = None
            return None, None
        try:
            nv = self._nv
            if nv is None:
                import pynvml as nv
            nv.nvmlInit()
            try:
                h = nv.nvmlDeviceGetHandleByUUID(self.uuid)
            except TypeError:  # older pynvml wants bytes
                h = nv.nvmlDeviceGetHandleByUUID(self.uuid.encode())
            self._nv, self._h = nv, h
        except Exception:  # noqa: BLE001 - no NVML or no such device: nvidia-smi next
            self._nv, self._h = None, None
        return self._nv, self._h

    def _smi(self, fields):
        """nvidia-smi --id=<uuid> --query-gpu=fields, as floats or strings; {} on failure."""
        if not self.uuid:
            return {}
        try:
            out = subprocess.run([self.smi, "--id=" + self.uuid, "--query-gpu=" + ",".join(fields),
                                  "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True, timeout=20, check=True).stdout.strip().splitlines()
        except Exception:  # noqa: BLE001 - nvidia-smi missing or failing
            return {}
        if len(out) != 1:  # --id names one GPU: any other count is not its answer
            return {}
        vals = [v.strip() for v in out[0].split(",")]
        return dict(zip(fields, vals)) if len(vals) == len(fields) else {}

    def clocks(self):
        """{"sm_mhz", "mem_mhz"} now, or {}."""
        nv, h = self._handle()
        if nv is not None:
            try:
                return {"sm_mhz": float(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)),
                        "mem_mhz": float(nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM))}
            except Exception:  # noqa: BLE001
                return {}
        q = self._smi(["clocks.sm", "clocks.mem"])
        try:
            return {"sm_mhz": float(q["clocks.sm"]), "mem_mhz": float(q["clocks.mem"])}
        except (KeyError, ValueError):
            return {}

    def info(self):
        """{"driver", "max_sm_mhz", "max_mem_mhz", "uuid"} as far as they can be read;
        "uuid" is the one the device answers to (it must equal self.uuid)."""
        nv, h = self._handle()
        out = {}
        if nv is not None:
            try:
                out["driver"] = _text(nv.nvmlSystemGetDriverVersion())
                out["max_sm_mhz"] = float(nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_SM))
                out["max_mem_mhz"] = float(nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_MEM))
                out["uuid"] = _text(nv.nvmlDeviceGetUUID(h))
            except Exception:  # noqa: BLE001
                pass
            return out
        q = self._smi(["driver_version", "clocks.max.sm", "clocks.max.mem", "uuid"])
        if q:
            out["driver"] = q["driver_version"]
            for k, f in (("max_sm_mhz", "clocks.max.sm"), ("max_mem_mhz", "clocks.max.mem")):
                try:
                    out[k] = float(q[f])
                except ValueError:
                    pass
            out["uuid"] = q["uuid"]
        return out
