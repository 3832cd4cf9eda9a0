"""The standard's linalg products and views: outer, cross, diagonal, trace (last two axes)."""

from __future__ import annotations

from typing import Any

from .._array import Array, _wrap
from .._validation import dtype_arg, normalize_axis
from ._common import matrix_arg, pair


def outer(x1: Any, x2: Any, /) -> Array:
    """Outer product of two 1-D arrays.

    >>> import ruda as np
    >>> np.linalg.outer(np.asarray([1, 2]), np.asarray([1, 10])).tolist()
    [[1, 10], [2, 20]]
    """
    dev, a, b = pair("outer", x1, x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(
            f"ruda.linalg.outer: x1 and x2 must be 1-D, got shapes {a.shape} and {b.shape}"
        )
    return _wrap(dev._ops["linalg.outer"](a, b), dev)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Array:
    """Cross product of 3-element vectors along ``axis``; the other axes broadcast.

    >>> import ruda as np
    >>> np.linalg.cross(np.asarray([1, 0, 0]), np.asarray([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    dev, a, b = pair("cross", x1, x2)
    n, nmax = min(a.ndim, b.ndim), max(a.ndim, b.ndim)
    if n == 0:
        raise ValueError("ruda.linalg.cross: x1 and x2 must be at least 1-D")
    # Note: the standard counts the axis from the end; a non-negative one is taken on the
    # broadcast shape.
    ax = normalize_axis(axis, nmax, "linalg.cross") - nmax
    if ax < -n:
        raise ValueError(f"ruda.linalg.cross: axis {axis} is not an axis of both x1 and x2")
    if a.shape[ax] != 3 or b.shape[ax] != 3:
        raise ValueError(
            f"ruda.linalg.cross: axis {axis} must have size 3 in x1 and x2, got "
            f"{a.shape[ax]} and {b.shape[ax]}"
        )
    return _wrap(dev._ops["cross"](a, b, axisa=ax, axisb=ax, axisc=ax), dev)


def diagonal(x: Any, /, *, offset: int = 0) -> Array:
    """Diagonals of the matrices formed by the last two axes (``offset`` > 0: above the main).

    >>> import ruda as np
    >>> np.linalg.diagonal(np.asarray([[1, 2], [3, 4]]), offset=1).tolist()
    [2]
    """
    x = matrix_arg(x, "diagonal")
    return _wrap(x._device._ops["linalg.diagonal"](x._data, offset=offset), x._device)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Array:
    """Sum along the diagonals of the matrices formed by the last two axes.

    Small integer dtypes accumulate in the default integer (unsigned: uint64), floats keep
    their dtype.

    >>> import ruda as np
    >>> np.linalg.trace(np.asarray([[1, 2], [3, 4]]))
    array(5)
    """
    x = matrix_arg(x, "trace")
    npdt = None if dtype is None else dtype_arg(dtype, "linalg.trace")
    # numpy.linalg.trace is this call plus a layer; dispatch the plain trace on the last two axes.
    return _wrap(x._device._ops["trace"](x._data, offset, -2, -1, npdt), x._device)
