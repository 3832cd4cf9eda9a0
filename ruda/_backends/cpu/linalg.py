"""CPU linear algebra where the standard's semantics differ from NumPy's single call."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register
from ..._dtypes import kind_of

_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float16): np.complex64}


def _complex_of(x: np.ndarray) -> type:
    """The complex dtype matching x's precision (float32 -> complex64, else complex128)."""
    if kind_of(x.dtype) == "c":
        return x.dtype.type
    return _COMPLEX.get(x.dtype, np.complex128)


@register("linalg.eig", "cpu")
def eig(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # NumPy returns real arrays when every eigenvalue is real; the standard wants complex.
    w, v = np.linalg.eig(x)
    c = _complex_of(x)
    return w.astype(c, copy=False), v.astype(c, copy=False)


@register("linalg.eigvals", "cpu")
def eigvals(x: np.ndarray) -> np.ndarray:
    return np.linalg.eigvals(x).astype(_complex_of(x), copy=False)
