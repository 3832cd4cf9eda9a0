"""CPU argmax/argmin through ndarray methods (NumPy's wrappers cost more than the search)."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register


@register("argmax", "cpu")
def argmax(x: np.ndarray, axis=None, out=None, *, keepdims=False) -> np.ndarray:
    return x.argmax(axis, out, keepdims=keepdims)


@register("argmin", "cpu")
def argmin(x: np.ndarray, axis=None, out=None, *, keepdims=False) -> np.ndarray:
    return x.argmin(axis, out, keepdims=keepdims)
