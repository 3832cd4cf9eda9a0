"""Utility functions of the standard (all, any, diff) and NumPy's comparisons and calculus helpers.

The small argument helpers at the top are shared by the searching, set, sorting and
statistical chapters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, _wrap, _wrap_tree
from ._devices import Device
from ._validation import as_array, common_device, normalize_axes, normalize_axis, writeable

__all__ = [
    "all",
    "any",
    "diff",
    "allclose",
    "isclose",
    "array_equal",
    "array_equiv",
    "gradient",
    "convolve",
    "correlate",
    "interp",
    "trapezoid",
]

_NoValue: Any = np._NoValue  # NumPy's "argument not given" sentinel
_SCALARS = (int, float, complex, bool)


# -- helpers shared by the chapters --------------------------------------------------
def axis_arg(axis: Any, ndim: int, fname: str) -> Any:
    """None, a non-negative int or a tuple of them (AxisError when out of range)."""
    if axis is None:
        return None
    if type(axis) is int:
        if -ndim <= axis < ndim:
            return axis % ndim
        return normalize_axis(axis, ndim, fname)
    if isinstance(axis, (tuple, list)):
        return normalize_axes(axis, ndim, fname)
    return normalize_axis(axis, ndim, fname)


def native(v: Any, fname: str, arg: str, dev: Device) -> Any:
    """The native array for an Array or array-like; Python scalars, None and strings pass."""
    if isinstance(v, Array):  # on another device: a 0-d cpu array moves, others raise
        return v._data if v._device is dev else as_array(v, fname, arg, dev)._data
    if v is None or type(v) in _SCALARS or isinstance(v, (str, np.generic)):
        return v
    return as_array(v, fname, arg, dev)._data


def out_arg(out: Any, fname: str, dev: Device) -> Any:
    """The native buffer of an ``out=`` argument (a ruda array on ``dev``)."""
    if not isinstance(out, Array):
        raise TypeError(f"ruda.{fname}: out must be a ruda array, got {type(out).__name__}")
    if out._device is not dev:
        raise ValueError(f"ruda.{fname}: out is on {out._device}, the input on {dev}")
    return writeable(out, fname)


def numpy_kwargs(fname: str, dev: Device, out: Any = None, where: Any = True, **kw: Any) -> dict:
    """NumPy's optional reduction keywords, unwrapped; ``_NoValue`` ones are left out."""
    d = {k: v for k, v in kw.items() if v is not _NoValue}
    if out is not None:
        d["out"] = out_arg(out, fname, dev)
    if where is not True:
        d["where"] = native(where, fname, "where", dev)
    return d


def finish(r: Any, out: Any, dev: Device) -> Any:
    """Wrap a native result (or return ``out`` when the result was written there)."""
    if out is not None:
        return out
    if type(r) is np.ndarray:
        return _wrap(r, dev)
    if isinstance(r, (tuple, list)):
        return _wrap_tree(r, dev)
    return _wrap(r, dev)


def _logical(name: str, x: Any, axis: Any, out: Any, keepdims: bool, where: Any) -> Array:
    x = as_array(x, name)
    dev = x._device
    ax = axis_arg(axis, x._data.ndim, name)
    if out is None and where is True:
        return _wrap(dev._ops[name](x._data, axis=ax, keepdims=keepdims), dev)
    kw = numpy_kwargs(name, dev, out, where)
    return finish(dev._ops[name](x._data, axis=ax, keepdims=keepdims, **kw), out, dev)


# -- the standard's functions -----------------------------------------------------------
def all(
    x: Array,
    /,
    axis: int | tuple[int, ...] | None = None,
    out: Array | None = None,
    keepdims: bool = False,
    *,
    where: Any = True,
) -> Array:
    """Whether every element (along ``axis``) is true.

    >>> import ruda as np
    >>> np.all(np.asarray([[True, False], [True, True]]), axis=0)
    array([ True, False])
    """
    return _logical("all", x, axis, out, keepdims, where)


def any(
    x: Array,
    /,
    axis: int | tuple[int, ...] | None = None,
    out: Array | None = None,
    keepdims: bool = False,
    *,
    where: Any = True,
) -> Array:
    """Whether any element (along ``axis``) is true.

    >>> import ruda as np
    >>> np.any(np.asarray([[True, False], [False, False]]), axis=1)
    array([ True, False])
    """
    return _logical("any", x, axis, out, keepdims, where)


def diff(
    x: Array,
    /,
    n: int = 1,
    axis: int = -1,
    prepend: Any = None,
    append: Any = None,
) -> Array:
    """The ``n``-th discrete difference along ``axis`` (after ``prepend``/``append``).

    >>> import ruda as np
    >>> np.diff(np.asarray([1, 4, 9, 16]))
    array([3, 5, 7])
    """
    x = as_array(x, "diff")
    dev = x._device
    if x._data.ndim == 0:
        raise ValueError("ruda.diff: x must have at least one dimension")
    ax = normalize_axis(axis, x._data.ndim, "diff")
    if type(n) is not int and not isinstance(n, np.integer):
        raise TypeError(f"ruda.diff: n must be an integer, got {type(n).__name__}")
    if n < 0:
        raise ValueError(f"ruda.diff: n must be non-negative, got {n}")
    kw = {}
    # Note: None means "nothing to add" (the standard); NumPy would prepend an object None.
    if prepend is not None:
        kw["prepend"] = native(prepend, "diff", "prepend", dev)
    if append is not None:
        kw["append"] = native(append, "diff", "append", dev)
    return _wrap(dev._ops["diff"](x._data, n=n, axis=ax, **kw), dev)


# -- NumPy's surface ------------------------------------------------------------------------
def _pair(fname: str, a: Any, b: Any) -> tuple[Any, Any, Device]:
    dev = common_device(fname, a, b)
    return native(a, fname, "a", dev), native(b, fname, "b", dev), dev


def isclose(
    a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Array:
    """Elementwise ``|a - b| <= atol + rtol * |b|``.

    >>> import ruda as np
    >>> np.isclose(np.asarray([1.0, 2.0]), np.asarray([1.0, 2.1]))
    array([ True, False])
    """
    a, b, dev = _pair("isclose", a, b)
    return _wrap(dev._ops["isclose"](a, b, rtol=rtol, atol=atol, equal_nan=equal_nan), dev)


def allclose(
    a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """True when every pair of elements is close (see ``isclose``); a Python bool as in NumPy.

    >>> import ruda as np
    >>> np.allclose(np.asarray([1.0, 2.0]), np.asarray([1.0, 2.0 + 1e-9]))
    True
    """
    a, b, dev = _pair("allclose", a, b)
    return bool(dev._ops["allclose"](a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> bool:
    """True when both have the same shape and elements; a Python bool as in NumPy.

    >>> import ruda as np
    >>> np.array_equal(np.asarray([1, 2]), [1, 2])
    True
    """
    a, b, dev = _pair("array_equal", a1, a2)
    return bool(dev._ops["array_equal"](a, b, equal_nan=equal_nan))


def array_equiv(a1: Any, a2: Any) -> bool:
    """True when the inputs broadcast to each other and are equal elementwise.

    >>> import ruda as np
    >>> np.array_equiv(np.asarray([1, 2]), [[1, 2], [1, 2]])
    True
    """
    a, b, dev = _pair("array_equiv", a1, a2)
    return bool(dev._ops["array_equiv"](a, b))


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """The gradient by central differences (one-sided at the edges); one array per axis.

    >>> import ruda as np
    >>> np.gradient(np.asarray([1.0, 2.0, 4.0, 7.0]))
    array([1. , 1.5, 2.5, 3. ])
    """
    f = as_array(f, "gradient")
    dev = f._device
    spacing = [native(v, "gradient", "varargs", dev) for v in varargs]
    r = dev._ops["gradient"](f._data, *spacing, axis=axis, edge_order=edge_order)
    return finish(r, None, dev)


def convolve(a: Any, v: Any, mode: str = "full") -> Array:
    """Discrete linear convolution of two 1-D sequences.

    >>> import ruda as np
    >>> np.convolve(np.asarray([1, 2, 3]), np.asarray([0, 1]))
    array([0, 1, 2, 3])
    """
    a, v, dev = _pair("convolve", a, v)
    return _wrap(dev._ops["convolve"](a, v, mode=mode), dev)


def correlate(a: Any, v: Any, mode: str = "valid") -> Array:
    """Cross-correlation of two 1-D sequences.

    >>> import ruda as np
    >>> np.correlate(np.asarray([1.0, 2.0, 3.0]), np.asarray([0.0, 1.0, 0.5]))
    array([3.5])
    """
    a, v, dev = _pair("correlate", a, v)
    return _wrap(dev._ops["correlate"](a, v, mode=mode), dev)


def interp(
    x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None
) -> Array:
    """Piecewise-linear interpolation of the points ``(xp, fp)`` at ``x``.

    >>> import ruda as np
    >>> np.interp(np.asarray([0.5, 1.5]), np.asarray([0.0, 1.0, 2.0]), np.asarray([0.0, 10.0, 0.0]))
    array([5., 5.])
    """
    dev = common_device("interp", x, xp, fp)
    args = [native(v, "interp", n, dev) for v, n in ((x, "x"), (xp, "xp"), (fp, "fp"))]
    r = dev._ops["interp"](*args, left=left, right=right, period=period)
    return _wrap(r, dev)


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Array:
    """Integral of ``y`` (sampled at ``x``, or every ``dx``) by the trapezoidal rule.

    >>> import ruda as np
    >>> np.trapezoid(np.asarray([1.0, 2.0, 3.0]))
    array(4.)
    """
    dev = common_device("trapezoid", y, x)
    yd = native(y, "trapezoid", "y", dev)
    xd = native(x, "trapezoid", "x", dev)
    return _wrap(dev._ops["trapezoid"](yd, x=xd, dx=dx, axis=axis), dev)
