"""Searching functions of the standard (argmax, argmin, count_nonzero, nonzero, searchsorted,
where) and NumPy's (argwhere, flatnonzero, nanargmax, nanargmin)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import Array, _wrap, _wrap_tree, call1
from ._devices import CPU
from ._dtypes import kind_of
from ._promotion import fold, result_type
from ._ufunc import PY_SCALARS
from ._utility import axis_arg, finish, native, out_arg
from ._validation import as_array, common_device, normalize_axis

__all__ = [
    "argmax",
    "argmin",
    "count_nonzero",
    "nonzero",
    "searchsorted",
    "where",
    "argwhere",
    "flatnonzero",
    "nanargmax",
    "nanargmin",
]

_SCALARS = (int, float, complex, bool)


def _arg(name: str, x: Any, axis: Any, out: Any, keepdims: bool) -> Array:
    x = as_array(x, name)
    dev = x._device
    d = x._data
    ax = None if axis is None else normalize_axis(axis, d.ndim, name)
    # Only an empty reduced axis has nothing to locate; other empty arrays give empty results.
    if d.size == 0 if ax is None else d.shape[ax] == 0:
        raise ValueError(f"ruda.{name}: x is empty, there is no {name[-3:]}imum to locate")
    if out is None:
        return _wrap(dev._ops[name](d, ax, keepdims=keepdims), dev)
    return finish(dev._ops[name](d, ax, out_arg(out, name, dev), keepdims=keepdims), out, dev)


def argmax(
    x: Array, /, axis: int | None = None, out: Array | None = None, *, keepdims: bool = False
) -> Array:
    """Index of the first largest element (of the flattened array when ``axis`` is None).

    >>> import ruda as np
    >>> np.argmax(np.asarray([[1, 9], [7, 3]]), axis=1)
    array([1, 0])
    """
    return _arg("argmax", x, axis, out, keepdims)


def argmin(
    x: Array, /, axis: int | None = None, out: Array | None = None, *, keepdims: bool = False
) -> Array:
    """Index of the first smallest element (of the flattened array when ``axis`` is None).

    >>> import ruda as np
    >>> np.argmin(np.asarray([[1, 9], [7, 3]]), axis=1)
    array([0, 1])
    """
    return _arg("argmin", x, axis, out, keepdims)


def nanargmax(
    a: Any, axis: int | None = None, out: Array | None = None, *, keepdims: bool = False
) -> Array:
    """Index of the largest element ignoring NaNs (ValueError on an all-NaN slice).

    >>> import ruda as np
    >>> np.nanargmax(np.asarray([np.nan, 2.0, 1.0]))
    array(1)
    """
    return _arg("nanargmax", a, axis, out, keepdims)


def nanargmin(
    a: Any, axis: int | None = None, out: Array | None = None, *, keepdims: bool = False
) -> Array:
    """Index of the smallest element ignoring NaNs (ValueError on an all-NaN slice).

    >>> import ruda as np
    >>> np.nanargmin(np.asarray([np.nan, 2.0, 1.0]))
    array(2)
    """
    return _arg("nanargmin", a, axis, out, keepdims)


def count_nonzero(
    x: Array, /, axis: int | tuple[int, ...] | None = None, *, keepdims: bool = False
) -> Array:
    """Number of non-zero (true) elements along ``axis``, as the default index dtype.

    >>> import ruda as np
    >>> np.count_nonzero(np.asarray([[0, 1], [2, 3]]), axis=0)
    array([1, 2])
    """
    if axis is None and not keepdims:
        r = call1("count_nonzero", x)  # the common call, in C
        if r is not NotImplemented:
            return r
    x = as_array(x, "count_nonzero")
    dev = x._device
    if axis is None and not keepdims:
        return _wrap(dev._ops["count_nonzero"](x._data), dev)
    ax = axis_arg(axis, x._data.ndim, "count_nonzero")
    r = dev._ops["count_nonzero"](x._data, axis=ax, keepdims=keepdims)
    return _wrap(r, dev)


def nonzero(x: Array, /) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one index array per dimension.

    >>> import ruda as np
    >>> np.nonzero(np.asarray([0, 3, 0, 5]))
    (array([1, 3]),)
    """
    x = as_array(x, "nonzero")
    if x._data.ndim == 0:
        raise ValueError("ruda.nonzero: x must have at least one dimension (0-d is ambiguous)")
    return _wrap_tree(tuple(x._device._ops["nonzero"](x._data)), x._device)


def flatnonzero(a: Any) -> Array:
    """Indices of the non-zero elements of the flattened array.

    >>> import ruda as np
    >>> np.flatnonzero(np.asarray([[0, 1], [2, 0]]))
    array([1, 2])
    """
    a = as_array(a, "flatnonzero")
    return _wrap(a._device._ops["flatnonzero"](a._data), a._device)


def argwhere(a: Any) -> Array:
    """Indices of the non-zero elements, one row per element.

    >>> import ruda as np
    >>> np.argwhere(np.asarray([[0, 1], [2, 0]]))
    array([[0, 1],
           [1, 0]])
    """
    a = as_array(a, "argwhere")
    return _wrap(a._device._ops["argwhere"](a._data), a._device)


def searchsorted(
    x1: Array,
    x2: Array | int | float,
    /,
    side: str = "left",
    sorter: Array | None = None,
) -> Array:
    """Indices where the elements of ``x2`` would be inserted into the sorted 1-D ``x1``.

    >>> import ruda as np
    >>> np.searchsorted(np.asarray([1, 3, 5]), np.asarray([0, 3, 6]))
    array([0, 1, 3])
    """
    dev = common_device("searchsorted", x1, x2, sorter)
    x1 = as_array(x1, "searchsorted", "x1", dev)
    d1 = x1._data
    if d1.ndim != 1:
        raise ValueError(f"ruda.searchsorted: x1 must be 1-D, got {d1.ndim} dims")
    if side not in ("left", "right"):
        raise ValueError(f"ruda.searchsorted: side must be 'left' or 'right', got {side!r}")
    if type(x2) in _SCALARS:
        # A Python scalar becomes a 0-d array of x1's kind (the standard's scalar rules).
        d2 = np.asarray(x2, dtype=d1.dtype if _fits(x2, d1.dtype) else None)
    else:
        d2 = native(x2, "searchsorted", "x2", dev)
    s = None
    if sorter is not None:
        s = as_array(sorter, "searchsorted", "sorter", dev)._data
        if s.shape != d1.shape:
            raise ValueError(
                f"ruda.searchsorted: sorter has shape {s.shape}, x1 has shape {d1.shape}"
            )
        if kind_of(s.dtype) not in "iu":
            raise TypeError(f"ruda.searchsorted: sorter must have an integer dtype, got {s.dtype}")
    return _wrap(dev._ops["searchsorted"](d1, d2, side=side, sorter=s), dev)


def _fits(v: Any, npdt: np.dtype) -> bool:
    k = kind_of(npdt)
    if type(v) is bool:
        return True
    if type(v) is int:
        return k == "f" or (k in "iu" and np.iinfo(npdt).min <= v <= np.iinfo(npdt).max)
    return type(v) is float and k == "f"


def where(
    condition: Array,
    x1: Any = None,
    x2: Any = None,
    /,
) -> Array | tuple[Array, ...]:
    """Elements of ``x1`` where ``condition`` holds, else of ``x2`` (dtype by promotion).

    With ``condition`` alone, NumPy's ``where(condition)``: the same as ``nonzero``.

    >>> import ruda as np
    >>> np.where(np.asarray([True, False]), np.asarray([1, 2]), 0)
    array([1, 0])
    """
    if x1 is None and x2 is None:
        return nonzero(condition)
    if x1 is None or x2 is None:
        raise TypeError("ruda.where: give both x1 and x2, or neither")
    dev = common_device("where", condition, x1, x2)
    c = native(condition, "where", "condition", dev)
    a = native(x1, "where", "x1", dev)
    b = native(x2, "where", "x2", dev)
    _where_ints(a, b)
    if dev is not CPU:  # the backend takes typed operands: Python scalars as NumPy reads them
        c, a, b = _typed_where(c, a, b)
    return _wrap(dev._ops["where"](c, a, b), dev)


def _typed_where(c: Any, a: Any, b: Any) -> tuple[Any, Any, Any]:
    """``where``'s Python scalars as NumPy scalars: the condition a bool, the values in the
    dtype NumPy 2 gives them beside the other value (weak), or NumPy's for two scalars."""
    scalars = [v for v in (a, b) if type(v) in PY_SCALARS]
    if scalars:
        typed = [v.dtype for v in (a, b) if type(v) not in PY_SCALARS]
        rn = fold(typed, scalars) if typed else np.result_type(*scalars)
        a, b = (np.asarray(v, dtype=rn)[()] if type(v) in PY_SCALARS else v for v in (a, b))
    if type(c) in PY_SCALARS:
        c = np.bool_(c)
    return c, a, b


def _where_ints(a: Any, b: Any) -> None:
    """OverflowError for a Python int that does not fit the result's integer dtype, as NumPy 2
    raises for every function taking Python scalars."""
    # Note: NumPy up to 2.4 stored it wrapped in ``where`` alone (``where(c, x_uint8, -2)`` held
    # 254); NumPy 2.5 raises, and so does ruda on every device.
    typed = [dt.from_numpy(v.dtype) for v in (a, b) if type(v) not in _SCALARS]
    if not typed:
        return
    rn = result_type(*typed, *(v for v in (a, b) if type(v) in _SCALARS))._np
    if kind_of(rn) not in "iu":
        return
    info = np.iinfo(rn)
    for v in (a, b):
        if type(v) is int and not info.min <= v <= info.max:
            raise OverflowError(f"ruda.where: Python integer {v} out of bounds for {rn}")
