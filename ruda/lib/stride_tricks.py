"""Views with chosen strides: sliding_window_view and as_strided (numpy.lib.stride_tricks).

Both return views sharing ``x``'s memory, as NumPy's do.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from .._array import Array, _wrap
from .._validation import as_array, normalize_axis

__all__ = ["as_strided", "sliding_window_view"]


def sliding_window_view(
    x: Any,
    window_shape: int | Sequence[int],
    axis: int | Sequence[int] | None = None,
    *,
    subok: bool = False,
    writeable: bool = False,
) -> Array:
    """A read-only view of every window of ``window_shape`` sliding over ``x`` (along ``axis``).

    >>> import ruda as np
    >>> from ruda.lib.stride_tricks import sliding_window_view
    >>> sliding_window_view(np.asarray([0, 1, 2, 3]), 3)
    array([[0, 1, 2],
           [1, 2, 3]])
    """
    fname = "lib.stride_tricks.sliding_window_view"
    x = as_array(x, fname)
    ws = (window_shape,) if isinstance(window_shape, int) else tuple(window_shape)
    try:
        ws = tuple(operator.index(w) for w in ws)
    except TypeError:
        raise TypeError(f"ruda.{fname}: window_shape must be an int or a tuple of ints") from None
    if any(w < 0 for w in ws):
        raise ValueError(f"ruda.{fname}: window_shape cannot contain negative values, got {ws}")
    if axis is None:
        if len(ws) != x.ndim:
            raise ValueError(
                f"ruda.{fname}: window_shape has {len(ws)} entries but x has {x.ndim} dims; "
                "pass axis= to slide along fewer axes"
            )
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        if len(axes) != len(ws):
            raise ValueError(f"ruda.{fname}: window_shape and axis must have the same length")
        axis = tuple(normalize_axis(a, x.ndim, fname) for a in axes)
        for a, w in zip(axis, ws, strict=True):
            if x.shape[a] < w:
                raise ValueError(
                    f"ruda.{fname}: window_shape {w} is larger than x's axis {a} ({x.shape[a]})"
                )
    dev = x._device
    return _wrap(
        dev._ops["sliding_window_view"](x._data, ws, axis, subok=subok, writeable=writeable), dev
    )


def as_strided(
    x: Any,
    shape: Sequence[int] | None = None,
    strides: Sequence[int] | None = None,
    subok: bool = False,
    writeable: bool = True,
) -> Array:
    """A view of ``x``'s memory with the given ``shape`` and ``strides`` (in bytes); no checks.

    # Note: as in NumPy, wrong strides read outside the buffer; prefer sliding_window_view.

    >>> import ruda as np
    >>> from ruda.lib.stride_tricks import as_strided
    >>> as_strided(np.asarray([1, 2, 3, 4], dtype=np.int64), shape=(3, 2), strides=(8, 8))
    array([[1, 2],
           [2, 3],
           [3, 4]])
    """
    x = as_array(x, "lib.stride_tricks.as_strided")
    dev = x._device
    return _wrap(
        dev._ops["as_strided"](x._data, shape, strides, subok=subok, writeable=writeable), dev
    )
