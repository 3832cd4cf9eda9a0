"""NumPy's window functions (bartlett, blackman, hamming, hanning, kaiser), on every device.

Each is written over the namespace's functions (``arange``, ``cos``, ``i0``...), so every device
runs it; like the creation functions they take keyword-only ``device=`` and ``dtype=``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import Array
from ._creation import _dev_dtype, arange, asarray, empty, ones
from ._elementwise import cos, sqrt
from ._info import __array_namespace_info__
from ._numpy_compat import i0
from ._searching import where

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


def _length(M: Any, fname: str) -> float:
    """NumPy's reading of the window length: ``np.array([0.0, M])[1]`` (so 5.0 counts as 5)."""
    try:
        m = np.array([0.0, M])[1]
        m < 1  # noqa: B015  (NumPy's own comparison: a string M fails here)
    except (TypeError, ValueError) as e:
        raise type(e)(f"ruda.{fname}: M must be a number, got {M!r}: {e}") from e
    if np.iscomplexobj(m):
        raise TypeError(f"ruda.{fname}: M must be a real number, got {M!r}")
    return float(m)


def _setup(fname: str, M: Any, device: Any, dtype: Any) -> tuple[float, Any, Any, Any]:
    """(length, device, the dtype to compute in, the result dtype) of a window."""
    m = _length(M, fname)
    dev, npdt = _dev_dtype(fname, device, dtype, None)
    work = dt.float64 if dt.float64 in _float_dtypes(dev) else dt.float32
    result = work if npdt is None else dt.dtype(npdt)
    return m, dev, work, result


def _float_dtypes(dev: Any) -> tuple[Any, ...]:
    return tuple(__array_namespace_info__().dtypes(device=dev, kind="real floating").values())


def _trivial(m: float, dev: Any, result: Any) -> Array | None:
    """NumPy's short cases: no points below M = 1, a single 1 at M = 1."""
    if m < 1:
        return empty((0,), dtype=result, device=dev)
    if m == 1:
        return ones((1,), dtype=result, device=dev)
    return None


def _cosine_window(fname: str, M: Any, a0: float, a1: float, a2: float, device: Any,
                   dtype: Any) -> Array:  # fmt: skip
    m, dev, work, result = _setup(fname, M, device, dtype)
    short = _trivial(m, dev, result)
    if short is not None:
        return short
    n = arange(1 - m, m, 2, dtype=work, device=dev)
    w = a0 + a1 * cos(math.pi * n / (m - 1))
    if a2:
        w = w + a2 * cos(2.0 * math.pi * n / (m - 1))
    return w if w.dtype == result else w.astype(result)


def bartlett(M: Any, *, device: Any = None, dtype: Any = None) -> Array:
    """The Bartlett (triangular) window of ``M`` points.

    >>> import ruda as np
    >>> np.bartlett(5)
    array([0. , 0.5, 1. , 0.5, 0. ])
    """
    m, dev, work, result = _setup("bartlett", M, device, dtype)
    short = _trivial(m, dev, result)
    if short is not None:
        return short
    n = arange(1 - m, m, 2, dtype=work, device=dev)
    w = where(n <= 0, 1 + n / (m - 1), 1 - n / (m - 1))
    return w if w.dtype == result else w.astype(result)


def blackman(M: Any, *, device: Any = None, dtype: Any = None) -> Array:
    """The Blackman window of ``M`` points.

    >>> import ruda as np
    >>> np.round(np.blackman(3), 8)
    array([-0.,  1., -0.])
    """
    return _cosine_window("blackman", M, 0.42, 0.5, 0.08, device, dtype)


def hamming(M: Any, *, device: Any = None, dtype: Any = None) -> Array:
    """The Hamming window of ``M`` points.

    >>> import ruda as np
    >>> np.hamming(3)
    array([0.08, 1.  , 0.08])
    """
    return _cosine_window("hamming", M, 0.54, 0.46, 0.0, device, dtype)


def hanning(M: Any, *, device: Any = None, dtype: Any = None) -> Array:
    """The Hann window of ``M`` points.

    >>> import ruda as np
    >>> np.hanning(3)
    array([0., 1., 0.])
    """
    return _cosine_window("hanning", M, 0.5, 0.5, 0.0, device, dtype)


def kaiser(M: Any, beta: Any, *, device: Any = None, dtype: Any = None) -> Array:
    """The Kaiser window of ``M`` points and shape parameter ``beta``.

    >>> import ruda as np
    >>> np.kaiser(3, 0.0)
    array([1., 1., 1.])
    """
    m, dev, work, result = _setup("kaiser", M, device, dtype)
    if isinstance(beta, (str, bytes)):
        raise TypeError(f"ruda.kaiser: beta must be a real number, got {beta!r}")
    try:
        b = float(beta)
    except (TypeError, ValueError) as e:
        raise type(e)(f"ruda.kaiser: beta must be a real number, got {beta!r}") from e
    if m == 1:
        return ones((1,), dtype=result, device=dev)
    n = arange(0, m, dtype=work, device=dev)
    if n.shape[0] == 0:
        return empty((0,), dtype=result, device=dev)
    alpha = (m - 1) / 2.0
    arg = b * sqrt(1 - ((n - alpha) / alpha) ** 2.0)
    w = i0(arg) / i0(asarray(b, dtype=work, device=dev))
    return w if w.dtype == result else w.astype(result)
