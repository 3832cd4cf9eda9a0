"""Scans on cuda: cumulative_sum, cumulative_prod (the standard's) and cumsum, cumprod (NumPy's).

The axis handling and plans are the shared ``gpu.scans``; the launches run over device
pointers (``ops.launch_plan``). The default algorithm (``VARIANT``) is the single-pass
``lookback`` (the tests run both).
"""

from __future__ import annotations

from typing import Any

from ..gpu.scans import Scans
from .ops import OPS

# Measured on an H200 (f32, 64M, cuda_reduce.py --sweep): the warp-level look-back with packed
# flag+value words, wg256 ipt16 3090 GB/s (wg512 ipt16 3000, unpacked at best 2245);
# reduce_then_scan wg512 ipt4 1340 (it reads the input twice). Wide types take smaller tiles
# (scan.plan_scan keeps a variant's tile within its shared memory).
VARIANT: dict[str, Any] = {"wg": 256, "ipt": 16, "algorithm": "lookback"}
SCANS = Scans(OPS, VARIANT)
plan, scan = SCANS.plan, SCANS.scan
cumulative_sum, cumulative_prod = SCANS.cumulative_sum, SCANS.cumulative_prod
LIBRARY: dict[str, Any] = SCANS.library()
__all__ = ["LIBRARY", "SCANS", "VARIANT", "cumulative_prod", "cumulative_sum", "plan", "scan"]
