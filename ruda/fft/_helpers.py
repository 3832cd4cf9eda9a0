"""FFT helpers: sample frequencies and shifting the zero frequency to the centre."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from .. import _dtypes as dt
from .._array import Array, _wrap
from .._devices import resolve
from .._validation import as_array, dtype_arg, normalize_axis


def _freq_args(fname: str, n: Any, d: Any, dtype: Any, device: Any) -> tuple:
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"ruda.fft.{fname}: n must be an integer, got {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"ruda.fft.{fname}: n must be positive, got {n}")
    dev = resolve(device)
    npdt = dtype_arg(dtype, f"fft.{fname}", dev)
    if npdt is None:
        npdt = dt.DEFAULT_FLOAT._np
    elif dt.from_numpy(npdt) not in dt.REAL_FLOATING:
        raise TypeError(f"ruda.fft.{fname}: dtype must be a real floating dtype, got {npdt}")
    return n, float(d), npdt, dev


def fftfreq(n: int, /, d: float = 1.0, *, dtype: Any = None, device: Any = None) -> Array:
    """Sample frequencies of an n-point DFT with sample spacing ``d`` (zero first, then +, then -).

    >>> import ruda as np
    >>> np.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    n, d, npdt, dev = _freq_args("fftfreq", n, d, dtype, device)
    return _wrap(dev._ops["fft.fftfreq"](n, d, npdt), dev)


def rfftfreq(n: int, /, d: float = 1.0, *, dtype: Any = None, device: Any = None) -> Array:
    """Non-negative sample frequencies of an n-point real DFT (n//2 + 1 of them).

    >>> import ruda as np
    >>> np.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    n, d, npdt, dev = _freq_args("rfftfreq", n, d, dtype, device)
    return _wrap(dev._ops["fft.rfftfreq"](n, d, npdt), dev)


def _shift(op: str, x: Any, axes: Any) -> Array:
    x = as_array(x, op)
    nd = x._data.ndim
    if axes is not None:
        if isinstance(axes, Sequence):
            axes = tuple(normalize_axis(a, nd, op, "axes") for a in axes)
        else:
            axes = normalize_axis(axes, nd, op, "axes")
    return _wrap(x._device._ops[op](x._data, axes), x._device)


def fftshift(x: Any, /, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero-frequency term to the centre of ``axes`` (all axes by default).

    >>> import ruda as np
    >>> np.fft.fftshift(np.fft.fftfreq(4)).tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    return _shift("fft.fftshift", x, axes)


def ifftshift(x: Any, /, axes: int | Sequence[int] | None = None) -> Array:
    """Inverse of fftshift.

    >>> import ruda as np
    >>> np.fft.ifftshift(np.asarray([-0.5, -0.25, 0.0, 0.25])).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _shift("fft.ifftshift", x, axes)
