"""NumPy's bit functions: packbits, unpackbits, bitwise_count, on every device.

The cpu runs NumPy's own; GPU devices run the compositions of ``ruda/_compose/bits.py``
(a SWAR popcount with shifts and masks; packing as a weighted sum over groups of eight).
"""

from __future__ import annotations

import operator
from typing import Any

from ._array import Array, _wrap
from ._dtypes import kind_of
from ._utility import out_arg
from ._validation import as_array, normalize_axis

__all__ = ["bitwise_count", "packbits", "unpackbits"]


def _bitorder(bitorder: Any, fname: str) -> str:
    if bitorder not in ("big", "little"):
        raise ValueError(
            f"ruda.{fname}: 'order' must be either 'little' or 'big', got {bitorder!r}"
        )
    return bitorder


def _axis(axis: Any, ndim: int, fname: str) -> int | None:
    if axis is None:
        return None
    return normalize_axis(operator.index(axis), ndim, fname)


def bitwise_count(x: Any, /, out: Array | None = None) -> Array:
    """The number of 1-bits in the absolute value of each element (uint8).

    >>> import ruda as np
    >>> np.bitwise_count(np.asarray([0, 7, -8, 255]))
    array([0, 3, 1, 8], dtype=uint8)
    """
    x = as_array(x, "bitwise_count")
    if kind_of(x.dtype) not in "biu":
        raise TypeError(
            f"ruda.bitwise_count: ufunc 'bitwise_count' not supported for the input type "
            f"{x.dtype}: integers or booleans only"
        )
    dev = x._device
    r = _wrap(dev._ops["bitwise_count"](x._data), dev)
    if out is None:
        return r
    out_arg(out, "bitwise_count", dev)  # a writeable ruda array on x's device
    out[...] = r
    return out


def packbits(a: Any, /, axis: int | None = None, bitorder: str = "big") -> Array:
    """The elements of a boolean or integer array (nonzero: 1) packed into the bits of uint8.

    With ``axis=None`` the array is flattened first; the last byte is padded with zeros.

    >>> import ruda as np
    >>> np.packbits(np.asarray([1, 0, 1, 1, 0, 0, 0, 1, 1]))
    array([177, 128], dtype=uint8)
    """
    a = as_array(a, "packbits", "a")
    if kind_of(a.dtype) not in "biu":
        raise TypeError(
            f"ruda.packbits: expected an input array of integer or boolean data type, got {a.dtype}"
        )
    order = _bitorder(bitorder, "packbits")
    ax = _axis(axis, a.ndim, "packbits")
    dev = a._device
    return _wrap(dev._ops["packbits"](a._data, axis=ax, bitorder=order), dev)


def unpackbits(
    a: Any, /, axis: int | None = None, count: int | None = None, bitorder: str = "big"
) -> Array:
    """The bits of a uint8 array as an array of 0s and 1s (uint8), ``count`` of them per axis.

    >>> import ruda as np
    >>> np.unpackbits(np.asarray([177], dtype=np.uint8))
    array([1, 0, 1, 1, 0, 0, 0, 1], dtype=uint8)
    """
    a = as_array(a, "unpackbits", "a")
    if kind_of(a.dtype) != "u" or a.dtype.itemsize != 1:
        raise TypeError(
            f"ruda.unpackbits: expected an input array of unsigned byte data type, got {a.dtype}"
        )
    order = _bitorder(bitorder, "unpackbits")
    ax = _axis(axis, a.ndim, "unpackbits")
    if count is not None:
        count = operator.index(count)
        n = 8 * (a.size if ax is None else a.shape[ax])
        if count < 0 and -count > n:
            raise ValueError("ruda.unpackbits: -count larger than number of elements")
    dev = a._device
    return _wrap(dev._ops["unpackbits"](a._data, axis=ax, count=count, bitorder=order), dev)
