"""The shared compositions (``gpu.compose``: NumPy's surface written once over ruda's device
ops) on cuda."""

from __future__ import annotations

from typing import Any

from ..gpu import compose

LIBRARY: dict[str, Any] = compose.library()
__all__ = ["LIBRARY"]
