"""A plan-variant sweep shared by the reduction benchmarks (``cuda_reduce.py``, ``wgpu_reduce.py``).

``sweep(table, variants, merge, gbps)`` puts each variant into the backend's variant ``table``
(a dict its plans read at each call), measures ``gbps()`` and restores the table, even when a
variant fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def sweep(table: dict[str, Any], variants: list[dict[str, Any]], merge: bool,
          gbps: Callable[[], float]) -> dict[str, Any]:  # fmt: skip
    """GB/s of each variant (``merge``: laid over the table's defaults, else replacing them):
    ``{"sweep": rows, "best_variant": ..., "best_GBps": ...}``."""
    saved = dict(table)
    rows: list[dict[str, Any]] = []
    best: tuple[float, dict[str, Any]] = (0.0, {})
    try:
        for v in variants:
            table.clear()
            table.update({**saved, **v} if merge else v)
            try:
                gb = gbps()
            except Exception as e:  # a variant the plan or the device refuses
                rows.append({"variant": v, "error": str(e)[:200]})
                continue
            rows.append({"variant": v, "GBps": gb})
            best = max(best, (gb, v), key=lambda b: b[0])
    finally:
        table.clear()
        table.update(saved)
    return {"sweep": rows, "best_variant": best[1], "best_GBps": best[0]}
