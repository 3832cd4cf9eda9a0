"""Scans on wgpu: cumulative_sum, cumulative_prod (the standard's) and cumsum, cumprod (NumPy's).

The axis handling and plans are the shared ``gpu.scans``. WebGPU gives no forward-progress
guarantee between workgroups, so the single-pass look-back is out: the default is ``chunked``
(long chunks, each walked by one workgroup), ``reduce_then_scan`` a tuning alternative.
"""

from __future__ import annotations

from typing import Any

from ..gpu.scans import Scans
from .ops import OPS

# The H200 through Vulkan (benchmarks/wgpu_reduce.py --sweep, f32 64M, GPU time): 8192 chunks
# of 128 x 8 tiles 1978 GB/s, 2048 chunks 1907; wg256 ipt4 1823-1843; reduce_then_scan 1216.
VARIANT: dict[str, Any] = {"wg": 128, "ipt": 8, "algorithm": "chunked", "chunks": 8192}
SCANS = Scans(OPS, VARIANT)
LIBRARY: dict[str, Any] = SCANS.library()
__all__ = ["LIBRARY", "SCANS", "VARIANT"]
