"""diff, bincount, median, eye, diag, linspace, meshgrid, tril, triu and isin on cuda: the shared
compositions of ``gpu.compose_stats``, ``compose_diag``, ``compose_create`` and ``compose_sets``
over ruda's device ops."""

from __future__ import annotations

from typing import Any

from ..gpu import compose_create, compose_diag, compose_sets, compose_stats

LIBRARY: dict[str, Any] = {
    **compose_stats.library(),
    **compose_diag.library(),
    **compose_create.library(),
    **compose_sets.library(),
}
__all__ = ["LIBRARY"]
