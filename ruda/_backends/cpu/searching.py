"""CPU argmax/argmin through ndarray methods and count_nonzero through its C counter (NumPy's
wrappers cost more than the search)."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register


@register("argmax", "cpu")
def argmax(x: np.ndarray, axis=None, out=None, *, keepdims=False) -> np.ndarray:
    return x.argmax(axis, out, keepdims=keepdims)


@register("argmin", "cpu")
def argmin(x: np.ndarray, axis=None, out=None, *, keepdims=False) -> np.ndarray:
    return x.argmin(axis, out, keepdims=keepdims)


try:  # the C counter under np.count_nonzero's Python wrapper (private, so guarded)
    from numpy._core.multiarray import count_nonzero as _count_all
except ImportError:  # pragma: no cover
    _count_all = np.count_nonzero


@register("count_nonzero", "cpu")
def count_nonzero(x: np.ndarray, axis=None, *, keepdims=False):
    if axis is None and not keepdims:
        return _count_all(x)
    return np.count_nonzero(x, axis=axis, keepdims=keepdims)
