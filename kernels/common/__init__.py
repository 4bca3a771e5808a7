"""Shared code of rooftool's kernel runner (kernels/run.py).

spec.py needs only PyYAML (CI imports it without torch); everything that touches
torch or Triton lives in runner.py, bench.py and the tk_*.py kernel modules.
"""
