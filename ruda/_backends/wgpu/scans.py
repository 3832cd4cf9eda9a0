"""Scans on wgpu: cumulative_sum, cumulative_prod (the standard's) and cumsum, cumprod (NumPy's).

The axis handling and plans are the shared ``gpu.scans``. WebGPU gives no forward-progress
guarantee between workgroups, so the algorithm is always ``reduce_then_scan``.
"""

from __future__ import annotations

from typing import Any

from ..gpu.scans import Scans
from .ops import OPS

VARIANT: dict[str, Any] = {"wg": 256, "ipt": 4, "algorithm": "reduce_then_scan"}
SCANS = Scans(OPS, VARIANT)
LIBRARY: dict[str, Any] = SCANS.library()
__all__ = ["LIBRARY", "SCANS", "VARIANT"]
