"""NVML and nvidia-smi reads name the process's GPU by UUID (kernels/common/gpuid.py):
two fake GPUs whose clocks differ, and a read of the wrong one shows as the other's clocks."""
import os
import stat

from common import gpuid

A = "GPU-aaaaaaaa-0000-0000-0000-000000000000"  # NVML index 0: the host's first GPU
B = "GPU-bbbbbbbb-1111-1111-1111-111111111111"  # the GPU this process runs on (CUDA device 0 under CUDA_VISIBLE_DEVICES=1)
CLOCKS = {A: (1980.0, 2619.0), B: (1410.0, 1593.0)}
MAX = {A: (1980.0, 2619.0), B: (1755.0, 1593.0)}


class FakeNVML:
    """pynvml's calls over two GPUs; index 0 is A whatever CUDA_VISIBLE_DEVICES says."""
    NVML_CLOCK_SM, NVML_CLOCK_MEM = 1, 2
    order = [A, B]

    def nvmlInit(self):
        pass

    def nvmlDeviceGetHandleByIndex(self, i):
        return self.order[i]

    def nvmlDeviceGetHandleByUUID(self, uuid):
        if uuid not in CLOCKS:
            raise RuntimeError("NVML_ERROR_NOT_FOUND")
        return uuid

    def nvmlDeviceGetClockInfo(self, h, which):
        return CLOCKS[h][0 if which == self.NVML_CLOCK_SM else 1]

    def nvmlDeviceGetMaxClockInfo(self, h, which):
        return MAX[h][0 if which == self.NVML_CLOCK_SM else 1]

    def nvmlDeviceGetUUID(self, h):
        return h.encode()

    def nvmlSystemGetDriverVersion(self):
        return b"580.65.06"


def test_uuid_name():
    assert gpuid.uuid_name("bbbbbbbb-1111-1111-1111-111111111111") == B  # torch's form, no prefix
    assert gpuid.uuid_name(B) == B and gpuid.uuid_name(B.encode()) == B
    assert gpuid.uuid_name("") == "" and gpuid.uuid_name(None) == ""


def test_nvml_reads_the_named_gpu():
    g = gpuid.GPU("bbbbbbbb-1111-1111-1111-111111111111", nvml=FakeNVML())
    assert g.clocks() == {"sm_mhz": 1410.0, "mem_mhz": 1593.0}  # B's, not index 0's 1980
    assert g.info() == {"driver": "580.65.06", "max_sm_mhz": 1755.0, "max_mem_mhz": 1593.0, "uuid": B}


FAKE_SMI = r'''#!/usr/bin/env python3
"""Fake nvidia-smi over two GPUs: without --id it answers for both, first line GPU A."""
import sys
rows = {"%(A)s": ["1980", "2619", "580.65.06", "1980", "2619"], "%(B)s": ["1410", "1593", "580.65.06", "1755", "1593"]}
ids = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--id=")]
if "-i" in sys.argv:
    ids.append(list(rows)[int(sys.argv[sys.argv.index("-i") + 1])])
q = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--query-gpu=")][0].split(",")
col = {"clocks.sm": 0, "clocks.mem": 1, "driver_version": 2, "clocks.max.sm": 3, "clocks.max.mem": 4}
for u in ids or list(rows):
    if u not in rows:
        sys.exit("No devices were found")
    print(", ".join(u if f == "uuid" else rows[u][col[f]] for f in q))
'''


def _fake_smi(tmp_path):
    p = tmp_path / "nvidia-smi"
    p.write_text(FAKE_SMI % {"A": A, "B": B})
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return str(p)


class NoNVML:
    def nvmlInit(self):
        raise RuntimeError("NVML Shared Library Not Found")


def test_nvidia_smi_reads_the_named_gpu(tmp_path):
    g = gpuid.GPU(B, nvml=NoNVML(), smi=_fake_smi(tmp_path))
    assert g.clocks() == {"sm_mhz": 1410.0, "mem_mhz": 1593.0}
    assert g.info() == {"driver": "580.65.06", "max_sm_mhz": 1755.0, "max_mem_mhz": 1593.0, "uuid": B}


def test_unknown_gpu_reads_nothing(tmp_path):
    """A UUID neither lists: no clocks rather than another GPU's."""
    g = gpuid.GPU("GPU-cccccccc-2222-2222-2222-222222222222", nvml=FakeNVML(), smi=_fake_smi(tmp_path))
    assert g.clocks() == {} and g.info() == {}
    assert gpuid.GPU("", nvml=FakeNVML(), smi=_fake_smi(tmp_path)).clocks() == {}


def test_runner_reads_through_gpuid():
    """runner.py reads clocks and identity only through gpuid (by UUID), never by an NVML
    index or an nvidia-smi without --id."""
    src = open(os.path.join(os.path.dirname(gpuid.__file__), "runner.py"), encoding="utf-8").read()
    assert "GetHandleByIndex" not in src and "subprocess" not in src and "import pynvml" not in src
    assert "gpuid.GPU(" in src and "get_device_properties(d)" in src
