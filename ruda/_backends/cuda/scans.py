"""Scans on cuda: cumulative_sum, cumulative_prod (the standard's) and cumsum, cumprod (NumPy's).

The axis handling and plans are the shared ``gpu.scans``; the launches run over device
pointers (``ops.launch_plan``). The default algorithm (``VARIANT``) is ``reduce_then_scan``,
the faster of the two on an H200 with the current look-back kernel (the tests run both).
"""

from __future__ import annotations

from typing import Any

from ..gpu.scans import Scans
from .ops import OPS

# Measured on an H200 (f32, 64M): reduce_then_scan wg512 ipt4 1350 GB/s; lookback at best 664.
VARIANT: dict[str, Any] = {"wg": 512, "ipt": 4, "algorithm": "reduce_then_scan"}
SCANS = Scans(OPS, VARIANT)
plan, scan = SCANS.plan, SCANS.scan
cumulative_sum, cumulative_prod = SCANS.cumulative_sum, SCANS.cumulative_prod
LIBRARY: dict[str, Any] = SCANS.library()
__all__ = ["LIBRARY", "SCANS", "VARIANT", "cumulative_prod", "cumulative_sum", "plan", "scan"]
