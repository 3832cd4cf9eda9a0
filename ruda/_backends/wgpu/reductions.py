"""Reductions on wgpu: sum, prod, max, min, any, all, mean, var, std through the reduce plans.

The layouts, plans, axis handling and result dtypes are the shared ``gpu.reductions``; a
plan's launches are recorded in the current batch over whole-buffer bindings and zero-filled
pooled temporaries (``ops.WgpuOps.run_plan``). An input at an offset the adapter cannot bind
(``min-storage-buffer-offset-alignment``) is copied first; one larger than a binding is
reduced tile by tile and its partials combined (``gpu.chunking``).
"""

from __future__ import annotations

from typing import Any

from ..gpu.reductions import Reductions
from .ops import OPS

# The reduce builders' defaults (subgroup combines are left to the autotuner).
# From sweeps on the H200 through Vulkan (benchmarks/RESULTS.md): 16 loads in flight per
# invocation, and a full reduction cut into TARGET parts (one tile of 1024 per workgroup read
# 256M float32 at 0.48 TB/s, 2048 parts of 128K at 1.8-4.3 TB/s).
VARIANTS: dict[str, dict[str, Any]] = {
    "full": {"tiles": 0, "ipt": 16}, "rows": {"ipt": 16}, "cols": {"ipt": 16}
}  # fmt: skip
REDUCTIONS = Reductions(OPS, VARIANTS)
LIBRARY: dict[str, Any] = REDUCTIONS.library()
__all__ = ["LIBRARY", "REDUCTIONS", "VARIANTS"]
