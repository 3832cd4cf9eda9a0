"""NumPy's array helpers beyond the standard: rollaxis, copyto, putmask, piecewise,
asarray_chkfinite, require, mask_indices, matvec, vecmat, polydiv.

Written over the namespace's functions, so every device runs them; matvec, vecmat and polydiv
dispatch (the cpu runs NumPy's own, GPU devices the compositions of ``ruda/_compose/``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import Array, _wrap
from ._creation import arange, asarray, ones, zeros_like
from ._creation_numpy import ascontiguousarray
from ._data_type_functions import astype
from ._devices import CPU
from ._dtypes import kind_of
from ._elementwise import isfinite, logical_not
from ._errors import AxisError
from ._indexing import take
from ._manipulation import concat, permute_dims, reshape
from ._polynomial import _natives
from ._searching import nonzero
from ._searching import where as _select  # copyto's where= argument shadows the name
from ._utility import all as _all
from ._utility import any as _any
from ._validation import as_array, common_device, dtype_arg, normalize_axis, writeable

__all__ = [
    "asarray_chkfinite", "copyto", "mask_indices", "matvec", "piecewise", "polydiv", "putmask",
    "require", "rollaxis", "vecmat",
]  # fmt: skip


def rollaxis(a: Any, axis: int, start: int = 0) -> Array:
    """``a`` with ``axis`` rolled back until it lies before position ``start`` (a view).

    >>> import ruda as np
    >>> np.rollaxis(np.ones((3, 4, 5)), 2).shape
    (5, 3, 4)
    """
    a = as_array(a, "rollaxis", "a")
    n = a.ndim
    axis = normalize_axis(operator.index(axis), n, "rollaxis")
    start = operator.index(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise AxisError(
            f"ruda.rollaxis: 'start' arg requires {-n} <= start < {n + 1}, "
            f"but {start} was passed in"
        )
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return permute_dims(a, tuple(axes))


def _cast_probe(fname: str, src: Any, dst_np: np.dtype, casting: str) -> np.ndarray:
    """NumPy's own casting check (and its value for a Python scalar): a 0-d host copyto."""
    probe = np.empty((), dtype=dst_np)
    try:
        np.copyto(probe, src, casting=casting)
    except (TypeError, ValueError, OverflowError) as e:
        raise type(e)(f"ruda.{fname}: {e}") from e
    return probe


def _broadcastable_into(fname: str, shape: tuple[int, ...], into: tuple[int, ...], what: str):
    try:
        ok = np.broadcast_shapes(shape, into) == into
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"ruda.{fname}: could not broadcast {what} from shape {shape} into shape {into}"
        )


def copyto(dst: Array, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """Copy ``src`` into ``dst`` (broadcast, cast under ``casting``), where ``where`` holds.

    >>> import ruda as np
    >>> a = np.zeros(3); np.copyto(a, np.asarray([1.0, 2.0, 3.0]), where=np.asarray([1, 0, 1]))
    >>> a
    array([1., 0., 3.])
    """
    if not isinstance(dst, Array):
        raise TypeError(
            f"ruda.copyto: argument 1 (dst) must be a ruda array, not {type(dst).__name__}"
        )
    dev = dst._device
    writeable(dst, "copyto", "dst")
    dst_np = dt.dtype(dst.dtype)._np
    if isinstance(src, Array):
        src = as_array(src, "copyto", "src", dev)  # a 0-d cpu array moves; others must match
        _cast_probe("copyto", np.zeros((), dtype=dt.dtype(src.dtype)._np), dst_np, casting)
        value = src if src.dtype == dst.dtype else astype(src, dst.dtype)
    elif isinstance(src, (int, float, complex, np.generic)):  # NumPy's weak Python scalars
        value = asarray(_cast_probe("copyto", src, dst_np, casting), device=dev)
    else:
        host = np.asarray(src)
        _cast_probe("copyto", np.zeros((), dtype=host.dtype), dst_np, casting)
        value = asarray(host.astype(dst_np), device=dev)
    _broadcastable_into("copyto", tuple(value.shape), tuple(dst.shape), "input array")
    if where is True:
        dst[...] = value
        return None
    mask = as_array(where, "copyto", "where", dev)
    if mask.dtype != dt.bool:
        mask = astype(mask, dt.bool)
    _broadcastable_into("copyto", tuple(mask.shape), tuple(dst.shape), "where")
    dst[...] = _select(mask, value, dst)
    return None


def putmask(a: Array, mask: Any, values: Any) -> None:
    """Set ``a.flat[n] = values[n % len(values)]`` wherever ``mask.flat[n]`` is true, in place.

    >>> import ruda as np
    >>> a = np.arange(5); np.putmask(a, a > 2, np.asarray([-1, -2]))
    >>> a
    array([ 0,  1,  2, -2, -1])
    """
    if not isinstance(a, Array):
        raise TypeError("ruda.putmask: first argument must be an array")
    dev = a._device
    writeable(a, "putmask", "a")
    m = as_array(mask, "putmask", "mask", dev)
    if m.size != a.size:
        raise ValueError("ruda.putmask: mask and data must be the same size")
    a_np = dt.dtype(a.dtype)._np
    if isinstance(values, (Array, np.ndarray)):  # arrays cast safely, as NumPy's putmask does
        v = as_array(values, "putmask", "values", dev)
        v_np = dt.dtype(v.dtype)._np
        if not np.can_cast(v_np, a_np, "safe"):
            raise TypeError(
                f"ruda.putmask: Cannot cast array data from {v_np!r} to {a_np!r} according to "
                "the rule 'safe'"
            )
    else:  # other values convert to a's dtype (Python integers out of its range raise)
        try:
            v = asarray(np.asarray(values, dtype=a_np), device=dev)
        except (TypeError, ValueError, OverflowError) as e:
            raise type(e)(f"ruda.putmask: {e}") from e
    if v.size == 0 or a.size == 0:
        return None
    m = reshape(m if m.dtype == dt.bool else astype(m, dt.bool), (-1,))
    v = reshape(v if v.dtype == a.dtype else astype(v, a.dtype), (-1,))
    if v.shape[0] < a.size:
        v = take(v, arange(a.size, device=dev) % v.shape[0])
    elif v.shape[0] > a.size:
        v = v[: a.size]
    a[...] = reshape(_select(m, v, reshape(a, (-1,))), a.shape)
    return None


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Array:
    """A piecewise-defined function: ``funclist[i]`` (a callable or a value) where
    ``condlist[i]`` holds; one more function than conditions gives the otherwise value.

    >>> import ruda as np
    >>> x = np.asarray([-2.0, -1.0, 1.0, 2.0])
    >>> np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 10])
    array([ 2.,  1., 10., 20.])
    """
    x = as_array(x, "piecewise")
    dev = x._device
    n2 = len(funclist)
    first = None if np.isscalar(condlist) else condlist[0]
    nested = isinstance(first, (list, np.ndarray)) or (isinstance(first, Array) and first.ndim)
    if np.isscalar(condlist) or (not nested and x.ndim != 0):
        condlist = [condlist]
    if isinstance(condlist, Array):
        conds = astype(condlist, dt.bool)
    else:
        conds = asarray(condlist, dtype=dt.bool, device=dev)
    n = conds.shape[0]
    if n == n2 - 1:  # the "otherwise" condition
        conds = concat([conds, logical_not(_any(conds, axis=0, keepdims=True))], axis=0)
        n += 1
    elif n != n2:
        raise ValueError(
            f"ruda.piecewise: with {n} condition(s), either {n} or {n + 1} functions are expected"
        )
    y = zeros_like(x)
    for i, func in enumerate(funclist):
        cond = conds[i]
        if not callable(func):
            y[cond] = func
        else:
            vals = x[cond]
            if vals.size > 0:
                y[cond] = func(vals, *args, **kw)
    return y


def asarray_chkfinite(a: Any, dtype: Any = None, order: Any = None) -> Array:
    """``asarray(a, dtype)``, raising ValueError when a floating-point ``a`` holds inf or NaN.

    >>> import ruda as np
    >>> np.asarray_chkfinite([1.0, 2.0])
    array([1., 2.])
    """
    if order not in (None, "C", "F", "A", "K"):
        raise ValueError(f"ruda.asarray_chkfinite: order must be one of 'CFAK', got {order!r}")
    try:
        x = asarray(a, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise type(e)(f"ruda.asarray_chkfinite: {e}") from e
    if kind_of(x.dtype) in "fc" and not bool(_all(isfinite(x))):
        raise ValueError("ruda.asarray_chkfinite: array must not contain infs or NaNs")
    return x


_FLAGS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
          "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O",
          "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}  # fmt: skip


def require(a: Any, dtype: Any = None, requirements: Any = None, *, like: Any = None) -> Array:
    """An array of ``dtype`` meeting ``requirements`` (C, F, A, W, O, E), copied when needed.

    >>> import ruda as np
    >>> np.require(np.ones((2, 3)).T, requirements="C").flags["C_CONTIGUOUS"]
    True
    """
    reqs: set[str] = set()
    for r in requirements or ():
        try:
            reqs.add(_FLAGS[str(r).upper()])
        except KeyError:
            raise KeyError(f"ruda.require: unknown requirement {r!r}") from None
    if {"C", "F"} <= reqs:
        raise ValueError('ruda.require: Cannot specify both "C" and "F" order')
    dev = a._device if isinstance(a, Array) else None
    x = asarray(a, dtype=dtype, device=dev)
    if not reqs:
        return x
    if x._device is CPU:
        return _wrap(np.require(x._data, requirements=sorted(reqs)), CPU)
    # Note: on GPU devices C and F order the layout (a C-ordered copy; for F, of the transpose),
    # W copies a read-only view; A and E always hold (device buffers are aligned, ruda has one
    # array type); a device array does not record whether it owns its buffer, so O copies.
    if "C" in reqs and x.ndim and not x._data.is_contiguous:
        x = ascontiguousarray(x)
    elif "F" in reqs and x.ndim and not x._data.transpose().is_contiguous:
        rev = tuple(range(x.ndim - 1, -1, -1))  # F order: the C-ordered copy of the transpose
        x = permute_dims(ascontiguousarray(permute_dims(x, rev)), rev)
    if ("W" in reqs and x._data.readonly) or "O" in reqs:
        x = x.copy()
    return x


def mask_indices(n: int, mask_func: Callable[..., Any], k: Any = 0, *, device: Any = None):
    """The indices of the nonzero entries of ``mask_func(ones((n, n)), k)`` (e.g. triu).

    Note: ``device=`` (ruda's addition) says where the index arrays are made.

    >>> import ruda as np
    >>> np.mask_indices(3, np.triu)[1]
    array([0, 1, 2, 1, 2, 2])
    """
    m = ones((operator.index(n), operator.index(n)), dtype=dt.int64, device=device)
    a = mask_func(m, k)
    return nonzero(a != 0)


def _product_check(fname: str, x1: Array, x2: Array, matrix_first: bool) -> None:
    mat, vec = (x1, x2) if matrix_first else (x2, x1)
    for i, (x, need) in enumerate(((x1, 2 if matrix_first else 1), (x2, 1 if matrix_first else 2))):
        if x.ndim < need:
            raise ValueError(
                f"ruda.{fname}: input operand {i} does not have enough dimensions (has {x.ndim}, "
                f"needs {need})"
            )
    core = mat.shape[-1] if matrix_first else mat.shape[-2]
    if core != vec.shape[-1]:
        raise ValueError(
            f"ruda.{fname}: mismatch in the core dimension: the vector has {vec.shape[-1]} "
            f"elements, the matrix {core}"
        )
    try:
        np.broadcast_shapes(mat.shape[:-2], vec.shape[:-1])
    except ValueError as e:
        raise ValueError(f"ruda.{fname}: {e}") from e


def _product(fname: str, x1: Any, x2: Any, out: Any, dtype: Any, matrix_first: bool) -> Array:
    dev = common_device(fname, x1, x2)
    a = as_array(x1, fname, "x1", dev)
    b = as_array(x2, fname, "x2", dev)
    _product_check(fname, a, b, matrix_first)
    if dtype is not None:
        npdt = dtype_arg(dtype, fname, dev)
        a, b = astype(a, npdt), astype(b, npdt)
    r = _wrap(dev._ops[fname](a._data, b._data), dev)
    if out is None:
        return r
    if not isinstance(out, Array):
        raise TypeError(f"ruda.{fname}: out must be a ruda array, got {type(out).__name__}")
    copyto(out, r)
    return out


def matvec(x1: Any, x2: Any, /, out: Array | None = None, *, dtype: Any = None) -> Array:
    """Matrix-vector products over the last two axes of ``x1`` and the last of ``x2``.

    >>> import ruda as np
    >>> np.matvec(np.asarray([[1.0, 2.0], [3.0, 4.0]]), np.asarray([1.0, 1.0]))
    array([3., 7.])
    """
    return _product("matvec", x1, x2, out, dtype, True)


def vecmat(x1: Any, x2: Any, /, out: Array | None = None, *, dtype: Any = None) -> Array:
    """Vector-matrix products: ``conj(x1) @ x2`` over the last axis of ``x1``, the last two
    of ``x2``.

    >>> import ruda as np
    >>> np.vecmat(np.asarray([1.0, 1.0]), np.asarray([[1.0, 2.0], [3.0, 4.0]]))
    array([4., 6.])
    """
    return _product("vecmat", x1, x2, out, dtype, False)


def polydiv(u: Any, v: Any) -> tuple[Array, Array]:
    """Quotient and remainder of the division of polynomial ``u`` by ``v``.

    >>> import ruda as np
    >>> q, r = np.polydiv(np.asarray([1.0, -3.0, 2.0]), np.asarray([1.0, -1.0]))
    >>> q, r
    (array([ 1., -2.]), array([0.]))
    """
    dev, n = _natives("polydiv", u=u, v=v)
    q, r = dev._ops["polydiv"](n["u"], n["v"])
    return _wrap(q, dev), _wrap(r, dev)
