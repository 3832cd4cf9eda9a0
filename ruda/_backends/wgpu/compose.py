"""diff, bincount, median, eye and diag on wgpu: the shared compositions of
``gpu.compose_stats`` and ``gpu.compose_diag`` over ruda's device ops."""

from __future__ import annotations

from typing import Any

from ..gpu import compose_diag, compose_stats

LIBRARY: dict[str, Any] = {**compose_stats.library(), **compose_diag.library()}
__all__ = ["LIBRARY"]
