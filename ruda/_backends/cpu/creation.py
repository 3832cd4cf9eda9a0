"""CPU implementations of creation ops that are cheaper as ndarray methods."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dispatch import register


@register("astype", "cpu")
def astype(x: np.ndarray, dtype: Any, copy: bool = True) -> np.ndarray:
    return x.astype(dtype, copy=copy)
