import os
import sys

KERNELS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(KERNELS)
if KERNELS not in sys.path:
    sys.path.insert(0, KERNELS)
