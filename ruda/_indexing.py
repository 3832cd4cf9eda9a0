"""Indexing functions of the standard (take, take_along_axis), plus NumPy's (put, choose...)."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Any

import numpy as np

from ._array import Array, _wrap
from ._devices import resolve
from ._dtypes import kind_of
from ._errors import detail
from ._index_tricks import __all__ as _tricks_all
from ._index_tricks import c_, index_exp, ix_, mgrid, ogrid, r_, s_  # noqa: F401  (re-exported)
from ._validation import as_array, common_device, normalize_axis, wrap, writeable

__all__ = [
    "take", "take_along_axis",
    # NumPy's surface
    "put", "put_along_axis", "choose", "select", "extract", "place", "compress",
    "unravel_index", "ravel_multi_index", "diag_indices", "diag_indices_from", "tril_indices",
    "triu_indices", "tril_indices_from", "triu_indices_from", "fill_diagonal", "ndindex",
    "ndenumerate",
    *_tricks_all,
]  # fmt: skip


def _index_array(indices: Any, fname: str, dev: Any, arg: str = "indices") -> Any:
    """Native integer indices on ``dev`` (ints and lists welcome, NumPy style)."""
    if isinstance(indices, Array):
        if indices._device is not dev:
            raise ValueError(
                f"ruda.{fname}: {arg} is on {indices._device}, x on {dev}; "
                "move it with to_device(), ruda never transfers silently"
            )
        d = indices._data
    elif isinstance(indices, (int, np.integer)):
        return operator.index(indices)
    else:
        d = as_array(indices, fname, arg, dev)._data
    if kind_of(d.dtype) not in "iu":
        if d.size:
            raise TypeError(f"ruda.{fname}: {arg} must have an integer dtype, got {d.dtype}")
        d = dev._ops["astype"](d, np.int64)  # an empty list arrives as float64
    return d


def take(
    x: Any, indices: Any, /, axis: int | None = None, out: Any = None, mode: str = "raise"
) -> Array:
    """Elements of ``x`` at ``indices`` along ``axis``.

    >>> import ruda as np
    >>> np.take(np.asarray([10, 20, 30]), np.asarray([2, 0]))
    array([30, 10])
    """
    if type(x) is not Array:
        x = as_array(x, "take")
    dev = x._device
    if type(indices) is Array and indices._device is dev and kind_of(indices._data.dtype) in "iu":
        idx = indices._data
    else:
        idx = _index_array(indices, "take", dev)
    nd = x._data.ndim
    # Note: the standard asks callers to pass axis for arrays of more than one dimension and
    # leaves the rest unspecified; NumPy flattens there (axis=None), and so do we.
    if axis is not None and (type(axis) is not int or not -nd <= axis < nd):
        axis = normalize_axis(axis, max(nd, 1), "take")
    if out is None and mode == "raise":
        try:
            return _wrap(dev._ops["take"](x._data, idx, axis=axis), dev)
        except IndexError as e:
            raise IndexError(f"ruda.take: {detail(e)}") from None
    kw: dict[str, Any] = {"axis": axis, "mode": mode}
    if out is not None:
        kw["out"] = as_array(out, "take", "out", dev)._data
    try:
        r = dev._ops["take"](x._data, idx, **kw)
    except IndexError as e:
        raise IndexError(f"ruda.take: {detail(e)}") from None
    return out if out is not None else _wrap(r, dev)


def take_along_axis(x: Any, indices: Any, /, axis: int | None = -1) -> Array:
    """Pick values from ``x`` with ``indices`` matched along ``axis`` (as from argsort).

    >>> import ruda as np
    >>> x = np.asarray([[3, 1], [2, 4]])
    >>> np.take_along_axis(x, np.argsort(x, axis=1), axis=1)
    array([[1, 3],
           [2, 4]])
    """
    x = as_array(x, "take_along_axis")
    dev = x._device
    idx = _index_array(indices, "take_along_axis", dev)
    if axis is not None:
        axis = normalize_axis(axis, x._data.ndim, "take_along_axis")
        if getattr(idx, "ndim", 0) != x._data.ndim:
            raise ValueError(
                f"ruda.take_along_axis: indices has {getattr(idx, 'ndim', 0)} dimensions, "
                f"x has {x._data.ndim}; they must match"
            )
    try:
        return _wrap(dev._ops["take_along_axis"](x._data, idx, axis=axis), dev)
    except (IndexError, ValueError) as e:
        raise type(e)(f"ruda.take_along_axis: {detail(e)}") from None


# -- NumPy's surface ---------------------------------------------------------------------------


def _values(v: Any, fname: str, dev: Any, arg: str = "values") -> Any:
    if isinstance(v, Array):  # on another device: a 0-d cpu array moves, others raise
        return v._data if v._device is dev else as_array(v, fname, arg, dev)._data
    if isinstance(v, (int, float, complex, bool, np.generic)):
        return v
    return as_array(v, fname, arg, dev)._data


def _target(a: Any, fname: str, arg: str = "a") -> Array:
    if not isinstance(a, Array):
        raise TypeError(f"ruda.{fname}: {arg} must be a ruda array (it is changed in place)")
    writeable(a, fname, arg)
    return a


def put(a: Array, ind: Any, v: Any, mode: str = "raise") -> None:
    """Set ``a.flat[ind] = v`` in place.

    >>> import ruda as np
    >>> x = np.zeros(3); np.put(x, [0, 2], 5.0); x
    array([5., 0., 5.])
    """
    a = _target(a, "put")
    dev = a._device
    dev._ops["put"](a._data, _index_array(ind, "put", dev, "ind"), _values(v, "put", dev, "v"),
                    mode=mode)  # fmt: skip


def put_along_axis(arr: Array, indices: Any, values: Any, axis: int | None) -> None:
    """Set values in ``arr`` at ``indices`` matched along ``axis``, in place.

    >>> import ruda as np
    >>> x = np.zeros((2, 2)); np.put_along_axis(x, np.asarray([[1], [0]]), 1.0, axis=1); x
    array([[0., 1.],
           [1., 0.]])
    """
    arr = _target(arr, "put_along_axis", "arr")
    dev = arr._device
    if axis is not None:
        axis = normalize_axis(axis, arr._data.ndim, "put_along_axis")
    dev._ops["put_along_axis"](
        arr._data,
        _index_array(indices, "put_along_axis", dev),
        _values(values, "put_along_axis", dev),
        axis,
    )


def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Array:
    """Build an array by picking, for each element of ``a``, from ``choices[a]``.

    >>> import ruda as np
    >>> np.choose(np.asarray([0, 1]), [np.asarray([1, 2]), np.asarray([10, 20])])
    array([ 1, 20])
    """
    seq = list(choices) if not isinstance(choices, Array) else choices
    dev = common_device("choose", a, *(seq if isinstance(seq, list) else [seq]), out)
    ia = _index_array(a, "choose", dev, "a")
    if isinstance(seq, Array):
        ch = seq._data
    else:
        ch = [_values(c, "choose", dev, "choices") for c in seq]
    kw: dict[str, Any] = {"mode": mode}
    if out is not None:
        kw["out"] = _target(out, "choose", "out")._data
    r = dev._ops["choose"](ia, ch, **kw)
    return out if out is not None else _wrap(r, dev)


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Array:
    """Elements from ``choicelist`` where the matching condition first holds, else ``default``.

    >>> import ruda as np
    >>> x = np.arange(4)
    >>> np.select([x < 1, x > 2], [x, x * 10], -1)
    array([ 0, -1, -1, 30])
    """
    conds, choices = list(condlist), list(choicelist)
    dev = common_device("select", *conds, *choices, default)
    cn = [as_array(c, "select", "condlist", dev)._data for c in conds]
    ch = [_values(c, "select", dev, "choicelist") for c in choices]
    try:
        return _wrap(dev._ops["select"](cn, ch, _values(default, "select", dev, "default")), dev)
    except (TypeError, ValueError) as e:
        raise type(e)(f"ruda.select: {detail(e)}") from None


def extract(condition: Any, arr: Any) -> Array:
    """The elements of ``arr`` (flattened) where ``condition`` is true.

    >>> import ruda as np
    >>> np.extract(np.asarray([True, False, True]), np.asarray([1, 2, 3]))
    array([1, 3])
    """
    dev = common_device("extract", condition, arr)
    c = as_array(condition, "extract", "condition", dev)
    a = as_array(arr, "extract", "arr", dev)
    return _wrap(dev._ops["extract"](c._data, a._data), dev)


def place(arr: Array, mask: Any, vals: Any) -> None:
    """Put ``vals`` (repeated as needed) where ``mask`` is true, in place.

    >>> import ruda as np
    >>> x = np.zeros(3); np.place(x, np.asarray([True, False, True]), [7.0]); x
    array([7., 0., 7.])
    """
    arr = _target(arr, "place", "arr")
    dev = arr._device
    m = as_array(mask, "place", "mask", dev)
    dev._ops["place"](arr._data, m._data, _values(vals, "place", dev, "vals"))


def compress(condition: Any, a: Any, axis: int | None = None, out: Any = None) -> Array:
    """The slices of ``a`` along ``axis`` where ``condition`` is true (flattened if None).

    >>> import ruda as np
    >>> np.compress([False, True], np.asarray([[1, 2], [3, 4]]), axis=0)
    array([[3, 4]])
    """
    dev = common_device("compress", condition, a, out)
    c = as_array(condition, "compress", "condition", dev)
    x = as_array(a, "compress", "a", dev)
    if axis is not None:
        axis = normalize_axis(axis, x._data.ndim, "compress")
    kw: dict[str, Any] = {"axis": axis}
    if out is not None:
        kw["out"] = _target(out, "compress", "out")._data
    r = dev._ops["compress"](c._data, x._data, **kw)
    return out if out is not None else _wrap(r, dev)


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[Array, ...]:
    """Coordinate arrays from flat indices into an array of ``shape``.

    >>> import ruda as np
    >>> [int(i) for i in np.unravel_index(5, (2, 3))]
    [1, 2]
    """
    dev = common_device("unravel_index", indices)
    idx = _index_array(indices, "unravel_index", dev)
    return tuple(_wrap(r, dev) for r in dev._ops["unravel_index"](idx, shape, order=order))


def ravel_multi_index(multi_index: Any, dims: Any, mode: str = "raise", order: str = "C") -> Array:
    """Flat indices from a tuple of coordinate arrays into an array of shape ``dims``.

    >>> import ruda as np
    >>> np.ravel_multi_index((np.asarray([1]), np.asarray([2])), (2, 3))
    array([5])
    """
    items = list(multi_index)
    dev = common_device("ravel_multi_index", *items)
    idx = tuple(_index_array(i, "ravel_multi_index", dev, "multi_index") for i in items)
    return _wrap(dev._ops["ravel_multi_index"](idx, dims, mode=mode, order=order), dev)


def _device_kw(dev: Any) -> dict[str, Any]:
    # GPU kinds share one op table across their devices: creation ops are told which device
    return {} if dev.kind == "cpu" else {"device": dev}


def diag_indices(n: int, ndim: int = 2, *, device: Any = None) -> tuple[Array, ...]:
    """Indices of the main diagonal of an ``n`` x ... x ``n`` array.

    >>> import ruda as np
    >>> x = np.zeros((2, 2)); x[np.diag_indices(2)] = 1; x
    array([[1., 0.],
           [0., 1.]])
    """
    dev = resolve(device)
    return wrap(dev._ops["diag_indices"](n, ndim, **_device_kw(dev)), dev)


def diag_indices_from(arr: Any) -> tuple[Array, ...]:
    """Indices of the main diagonal of the square array ``arr``.

    >>> import ruda as np
    >>> len(np.diag_indices_from(np.zeros((3, 3))))
    2
    """
    a = as_array(arr, "diag_indices_from", "arr")
    s = a.shape
    if len(s) < 2 or any(n != s[0] for n in s):
        raise ValueError("ruda.diag_indices_from: arr must be square, of at least 2 dims")
    return diag_indices(s[0], len(s), device=a._device)


def tril_indices(n: int, k: int = 0, m: int | None = None, *, device: Any = None):
    """Row and column indices of the lower triangle of an ``n`` x ``m`` array.

    >>> import ruda as np
    >>> [r.tolist() for r in np.tril_indices(2)]
    [[0, 1, 1], [0, 0, 1]]
    """
    dev = resolve(device)
    return wrap(dev._ops["tril_indices"](n, k, m, **_device_kw(dev)), dev)


def triu_indices(n: int, k: int = 0, m: int | None = None, *, device: Any = None):
    """Row and column indices of the upper triangle of an ``n`` x ``m`` array.

    >>> import ruda as np
    >>> [r.tolist() for r in np.triu_indices(2)]
    [[0, 0, 1], [0, 1, 1]]
    """
    dev = resolve(device)
    return wrap(dev._ops["triu_indices"](n, k, m, **_device_kw(dev)), dev)


def tril_indices_from(arr: Any, k: int = 0):
    """Indices of the lower triangle of the 2-D array ``arr``.

    >>> import ruda as np
    >>> len(np.tril_indices_from(np.zeros((2, 2)))[0])
    3
    """
    a = as_array(arr, "tril_indices_from", "arr")
    if a.ndim != 2:
        raise ValueError("ruda.tril_indices_from: arr must be 2-d")
    return tril_indices(a.shape[0], k, a.shape[1], device=a._device)


def triu_indices_from(arr: Any, k: int = 0):
    """Indices of the upper triangle of the 2-D array ``arr``.

    >>> import ruda as np
    >>> len(np.triu_indices_from(np.zeros((2, 2)))[0])
    3
    """
    a = as_array(arr, "triu_indices_from", "arr")
    if a.ndim != 2:
        raise ValueError("ruda.triu_indices_from: arr must be 2-d")
    return triu_indices(a.shape[0], k, a.shape[1], device=a._device)


def fill_diagonal(a: Array, val: Any, wrap: bool = False) -> None:
    """Fill the main diagonal of ``a`` with ``val``, in place.

    >>> import ruda as np
    >>> x = np.zeros((2, 2)); np.fill_diagonal(x, 3.0); x
    array([[3., 0.],
           [0., 3.]])
    """
    a = _target(a, "fill_diagonal")
    if a._data.ndim < 2:
        raise ValueError("ruda.fill_diagonal: a must be at least 2-d")
    a._device._ops["fill_diagonal"](a._data, _values(val, "fill_diagonal", a._device, "val"), wrap)


class ndindex:
    """Iterate over the index tuples of an array of ``shape`` (C order), as NumPy's ndindex.

    >>> import ruda as np
    >>> list(np.ndindex(2, 1))
    [(0, 0), (1, 0)]
    """

    def __init__(self, *shape: Any) -> None:
        self._it = np.ndindex(*shape)

    def __iter__(self) -> ndindex:
        return self

    def __next__(self) -> tuple[int, ...]:
        return next(self._it)


def ndenumerate(arr: Any) -> Iterator[tuple[tuple[int, ...], Any]]:
    """Yield ``(index, value)`` pairs over ``arr``.

    # Note: values are NumPy scalars (like NumPy's ndenumerate), read from one host copy of
    # ``arr``; they convert with int()/float() and compare with Python numbers.

    >>> import ruda as np
    >>> list(np.ndenumerate(np.asarray([5, 6])))[1]
    ((1,), np.int64(6))
    """
    host = arr._host() if isinstance(arr, Array) else np.asarray(arr)
    return np.ndenumerate(host)
