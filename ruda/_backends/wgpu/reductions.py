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
VARIANTS: dict[str, dict[str, Any]] = {"full": {}, "rows": {}, "cols": {}}
REDUCTIONS = Reductions(OPS, VARIANTS)
LIBRARY: dict[str, Any] = REDUCTIONS.library()
__all__ = ["LIBRARY", "REDUCTIONS", "VARIANTS"]
