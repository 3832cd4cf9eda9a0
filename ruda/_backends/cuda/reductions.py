"""Reductions on cuda: sum, prod, max, min, any, all, mean, var, std through the reduce plans.

The layouts, plans, axis handling and result dtypes are the shared ``gpu.reductions``; a
plan's launches run in order on the current stream over device pointers and zero-filled
temporaries from CuPy's pool (``ops.launch_plan``, also exported here as ``run_plan``).
"""

from __future__ import annotations

from typing import Any

from ..gpu.reductions import Layout, Reductions
from .ops import OPS
from .ops import launch_plan as run_plan

# Tuned on an H200 (benchmarks/cuda_reduce.py --sweep): f32 sums of 1 GiB at 4.2-4.3 TB/s.
VARIANTS: dict[str, dict[str, Any]] = {
    "full": {"tiles": 8, "ipt": 4, "wg": 256}, "rows": {}, "cols": {"wg": 256, "ipt": 4, "rt": 4}
}  # fmt: skip
REDUCTIONS = Reductions(OPS, VARIANTS)
plan, mean = REDUCTIONS.plan, REDUCTIONS.mean
LIBRARY: dict[str, Any] = REDUCTIONS.library()
__all__ = ["LIBRARY", "Layout", "REDUCTIONS", "VARIANTS", "mean", "plan", "run_plan"]
