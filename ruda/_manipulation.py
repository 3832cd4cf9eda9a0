"""Manipulation functions of the standard (reshape, concat, stack...) and NumPy's (split, pad)."""

from __future__ import annotations

import itertools
from typing import Any

from . import _dtypes as dt
from . import _promotion as pr
from ._array import Array, _wrap, call1, call2
from ._dtypes import kind_of
from ._errors import detail
from ._validation import (
    as_array,
    common_device,
    dtype_arg,
    normalize_axes,
    normalize_axis,
    shape_arg,
    wrap,
)

__all__ = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip",
    "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
    # NumPy's surface (the rest: _manipulation_numpy.py)
    "concatenate", "ravel", "transpose",
]  # fmt: skip


def _arrays(arrays: Any, fname: str) -> tuple[Any, list[Any]]:
    """(device, natives) of a sequence of arrays (array-likes go to the arrays' device)."""
    dev = None
    data = []
    for a in arrays:
        if type(a) is not Array:
            break
        if dev is None:
            dev = a._device
        elif a._device is not dev:
            break
        data.append(a._data)
    else:
        if dev is not None:
            return dev, data  # the common case: ruda arrays on one device
    arrays = list(arrays)
    dev = common_device(fname, *arrays)
    # a 0-d cpu array beside arrays on another device moves there (as_array)
    return dev, [
        a._data
        if type(a) is Array and a._device is dev
        else as_array(a, fname, f"arrays[{i}]", dev)._data
        for i, a in enumerate(arrays)
    ]


def _ax(axis: Any, nd: int, fname: str) -> int:
    """normalize_axis with a fast path for in-range ints."""
    if type(axis) is int and -nd <= axis < nd:
        return axis if axis >= 0 else axis + nd
    return normalize_axis(axis, nd, fname)


# Every permutation of up to 4 axes: permute_dims validates the common call by one lookup.
_PERMS = frozenset(p for n in range(5) for p in itertools.permutations(range(n)))


# -- the standard's functions ------------------------------------------------------------------


def broadcast_shapes(*shapes: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """The shape that ``shapes`` broadcast to; ``None`` (unknown) sizes propagate.

    >>> import ruda as np
    >>> np.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    ndim = max((len(s) if not isinstance(s, int) else 1 for s in shapes), default=0)
    out: list[int | None] = [1] * ndim
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        for i, n in enumerate(s, ndim - len(s)):
            cur = out[i]
            if n is None:
                out[i] = None if cur in (1, None) else cur
            elif n == 1:
                continue
            elif cur == 1 or cur is None or cur == n:
                out[i] = n
            else:
                raise ValueError(
                    f"ruda.broadcast_shapes: shapes {shapes} are not broadcast compatible"
                )
    return tuple(out)


def broadcast_arrays(*arrays: Any, subok: bool = False) -> tuple[Array, ...]:
    """Views of ``arrays`` broadcast to one shape (a tuple).

    >>> import ruda as np
    >>> [a.shape for a in np.broadcast_arrays(np.ones((2, 1)), np.ones(3))]
    [(2, 3), (2, 3)]
    """
    dev, data = _arrays(arrays, "broadcast_arrays")
    try:
        r = dev._ops["broadcast_arrays"](*data)
    except ValueError as e:
        raise ValueError(f"ruda.broadcast_arrays: {detail(e)}") from None
    return tuple(_wrap(a, dev) for a in r)


def broadcast_to(x: Any, /, shape: Any, subok: bool = False) -> Array:
    """A (read-only) view of ``x`` broadcast to ``shape``.

    >>> import ruda as np
    >>> np.broadcast_to(np.asarray([1, 2]), (2, 2))
    array([[1, 2],
           [1, 2]])
    """
    if type(x) is not Array:
        x = as_array(x, "broadcast_to")
    if type(shape) is not tuple:
        shape = shape_arg(shape, "broadcast_to")
    try:
        return _wrap(x._device._ops["broadcast_to"](x._data, shape), x._device)
    except ValueError as e:
        raise ValueError(
            f"ruda.broadcast_to: cannot broadcast {x.shape} to {shape}: {detail(e)}"
        ) from None


def concat(arrays: Any, /, axis: int | None = 0, out: Any = None, *, dtype: Any = None,
           casting: str = "same_kind") -> Array:  # fmt: skip
    """Join arrays along an existing axis (``axis=None`` flattens first); dtypes promote.

    >>> import ruda as np
    >>> np.concat([np.asarray([1, 2]), np.asarray([3])])
    array([1, 2, 3])
    """
    tp = type(arrays)
    if (tp is list or tp is tuple) and len(arrays) == 2 and dtype is None and out is None:
        # Fast path: the common concat([a, b]) of one dtype on one device, an in-range int axis.
        a, b = arrays
        if (
            type(a) is Array
            and type(b) is Array
            and a._device is b._device
            and casting == "same_kind"
        ):
            da = a._data
            db = b._data
            if da.dtype == db.dtype and type(axis) is int and -da.ndim <= axis < da.ndim:
                dev = a._device
                try:
                    return _wrap(dev._ops["concatenate"]((da, db), axis), dev)
                except ValueError as e:
                    raise ValueError(f"ruda.concat: {detail(e)}") from None
    dev, data = _arrays(arrays, "concat")
    if not data:
        raise ValueError("ruda.concat: need at least one array to concatenate")
    d0 = data[0]
    if dtype is None:
        first = d0.dtype
        for d in data:
            if d.dtype != first:
                # The standard's promotion table (NumPy's rule across kinds).
                dtype = pr.result_type(*(dt.from_numpy(d.dtype) for d in data))._np
                break
    else:
        dtype = dtype_arg(dtype, "concat", dev)
    if axis is not None:
        nd = d0.ndim
        if nd == 0:
            raise ValueError("ruda.concat: zero-dimensional arrays cannot be concatenated")
        axis = _ax(axis, nd, "concat")
    if out is None and casting == "same_kind":
        try:
            return _wrap(dev._ops["concatenate"](data, axis=axis, dtype=dtype), dev)
        except ValueError as e:
            raise ValueError(f"ruda.concat: {detail(e)}") from None
    kw: dict[str, Any] = {"axis": axis, "dtype": dtype, "casting": casting}
    if out is not None:
        kw["out"] = as_array(out, "concat", "out", dev)._data
    try:
        r = dev._ops["concatenate"](data, **kw)
    except ValueError as e:
        raise ValueError(f"ruda.concat: {detail(e)}") from None
    return out if out is not None else _wrap(r, dev)


def concatenate(arrays: Any, /, axis: int | None = 0, out: Any = None, *, dtype: Any = None,
                casting: str = "same_kind") -> Array:  # fmt: skip
    """NumPy's name for :func:`concat`.

    >>> import ruda as np
    >>> np.concatenate((np.ones(2), np.zeros(1)))
    array([1., 1., 0.])
    """
    return concat(arrays, axis=axis, out=out, dtype=dtype, casting=casting)


def expand_dims(x: Any, /, axis: int | tuple[int, ...]) -> Array:
    """Insert size-1 axes at ``axis`` (positions in the output, ``[-M, M)`` with M the output ndim).

    >>> import ruda as np
    >>> np.expand_dims(np.ones(3), (0, -1)).shape
    (1, 3, 1)
    """
    if type(x) is not Array:
        x = as_array(x, "expand_dims")
    if type(axis) is int:
        norm: Any = _ax(axis, x._data.ndim + 1, "expand_dims")
    else:
        norm = normalize_axes(axis, x._data.ndim + len(axis), "expand_dims")
    return _wrap(x._device._ops["expand_dims"](x._data, norm), x._device)


def flip(x: Any, /, axis: int | tuple[int, ...] | None = None) -> Array:
    """Reverse the order of elements along ``axis`` (all axes if None).

    >>> import ruda as np
    >>> np.flip(np.asarray([1, 2, 3]))
    array([3, 2, 1])
    """
    if type(x) is not Array:
        x = as_array(x, "flip")
    if axis is not None:
        axis = (
            _ax(axis, x._data.ndim, "flip")
            if type(axis) is int
            else normalize_axes(axis, x._data.ndim, "flip")
        )
    return _wrap(x._device._ops["flip"](x._data, axis=axis), x._device)


def moveaxis(x: Any, source: int | tuple[int, ...], destination: int | tuple[int, ...], /) -> Array:
    """Move axes ``source`` to positions ``destination``, the others keep their order.

    >>> import ruda as np
    >>> np.moveaxis(np.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    x = as_array(x, "moveaxis")
    nd = x._data.ndim
    src = normalize_axes(source, nd, "moveaxis", "source")
    dst = normalize_axes(destination, nd, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError("ruda.moveaxis: source and destination must have the same number of axes")
    return _wrap(x._device._ops["moveaxis"](x._data, src, dst), x._device)


def permute_dims(x: Any, /, axes: tuple[int, ...]) -> Array:
    """Permute the axes of ``x`` (negative axes count from the end).

    >>> import ruda as np
    >>> np.permute_dims(np.ones((2, 3)), (1, 0)).shape
    (3, 2)
    """
    if type(x) is Array and type(axes) is tuple and axes in _PERMS:
        d = x._data
        if len(axes) == d.ndim:  # the common call: a valid permutation, checked by lookup
            dev = x._device
            return _wrap(dev._ops["permute_dims"](d, axes), dev)
    if type(x) is not Array:
        x = as_array(x, "permute_dims")
    nd = x._data.ndim
    ax = axes
    # Fast path: a tuple that is already a permutation of non-negative axes.
    if type(ax) is not tuple or len(ax) != nd or sorted(ax) != list(range(nd)):
        ax = normalize_axes(axes, nd, "permute_dims", "axes")
        if len(ax) != nd:
            raise ValueError(f"ruda.permute_dims: axes {axes} is not a permutation of {nd} axes")
    return _wrap(x._device._ops["permute_dims"](x._data, ax), x._device)


def transpose(a: Any, axes: tuple[int, ...] | None = None) -> Array:
    """Permute axes (reverse them when ``axes`` is None), as NumPy does.

    >>> import ruda as np
    >>> np.transpose(np.ones((2, 3))).shape
    (3, 2)
    """
    a = as_array(a, "transpose", "a")
    if axes is None:
        return _wrap(a._device._ops["transpose"](a._data), a._device)
    return permute_dims(a, axes)


def repeat(x: Any, repeats: Any, /, axis: int | None = None) -> Array:
    """Repeat each element ``repeats`` times (an int or an integer array); None flattens.

    >>> import ruda as np
    >>> np.repeat(np.asarray([1, 2]), 2)
    array([1, 1, 2, 2])
    """
    x = as_array(x, "repeat")
    dev = x._device
    if axis is not None:
        axis = normalize_axis(axis, x._data.ndim, "repeat")
    if isinstance(repeats, Array):
        if repeats._device is not dev:
            common_device("repeat", x, repeats)
        if kind_of(repeats._data.dtype) not in "iu":
            raise TypeError(f"ruda.repeat: repeats must be integers, got {repeats.dtype}")
        repeats = repeats._data
    elif not isinstance(repeats, int):
        repeats = as_array(repeats, "repeat", "repeats", dev)._data
    try:
        return _wrap(dev._ops["repeat"](x._data, repeats, axis=axis), dev)
    except ValueError as e:
        raise ValueError(f"ruda.repeat: {detail(e)}") from None


def reshape(x: Any, /, shape: Any, order: str = "C", *, copy: bool | None = None) -> Array:
    """The elements of ``x`` in a new shape (one size may be -1); ``copy=False`` never copies.

    >>> import ruda as np
    >>> np.reshape(np.arange(6), (2, -1)).shape
    (2, 3)
    """
    if type(x) is not Array:
        x = as_array(x, "reshape")
    if type(shape) is not tuple:
        shape = shape_arg(shape, "reshape")
    try:
        r = x._device._ops["reshape"](x._data, shape, order=order, copy=copy)
    except ValueError as e:
        raise ValueError(
            f"ruda.reshape: cannot reshape {x.shape} to {shape}: {detail(e)}"
        ) from None
    return _wrap(r, x._device)


def ravel(a: Any, order: str = "C") -> Array:
    """A flattened view (or copy when needed).

    >>> import ruda as np
    >>> np.ravel(np.ones((2, 2))).shape
    (4,)
    """
    a = as_array(a, "ravel", "a")
    return _wrap(a._device._ops["ravel"](a._data, order=order), a._device)


def roll(
    x: Any, /, shift: int | tuple[int, ...], axis: int | tuple[int, ...] | None = None
) -> Array:
    """Shift elements along ``axis`` cyclically (flattened when axis is None).

    >>> import ruda as np
    >>> np.roll(np.asarray([1, 2, 3]), 1)
    array([3, 1, 2])
    """
    x = as_array(x, "roll")
    if axis is not None:
        nd = x._data.ndim
        if isinstance(axis, (tuple, list)):
            axis = tuple(normalize_axis(a, nd, "roll") for a in axis)
        else:
            axis = normalize_axis(axis, nd, "roll")
    try:
        return _wrap(x._device._ops["roll"](x._data, shift, axis=axis), x._device)
    except ValueError as e:
        raise ValueError(f"ruda.roll: {detail(e)}") from None


def squeeze(x: Any, /, axis: int | tuple[int, ...] | None = None) -> Array:
    """Remove size-1 axes (``axis`` names them; all size-1 axes when None, as in NumPy).

    >>> import ruda as np
    >>> np.squeeze(np.ones((1, 3, 1)), axis=0).shape
    (3, 1)
    """
    if axis is None:
        r = call1("squeeze", x)
        if r is not NotImplemented:
            return r
    elif type(axis) is int and type(x) is Array:
        shp = x._data.shape
        if -len(shp) <= axis < len(shp) and shp[axis] == 1:
            return call2("squeeze", x, axis)
    if type(x) is not Array:
        x = as_array(x, "squeeze")
    if axis is not None:
        shp = x._data.shape
        axes = (
            (_ax(axis, len(shp), "squeeze"),)
            if type(axis) is int
            else normalize_axes(axis, len(shp), "squeeze")
        )
        for a in axes:
            if shp[a] != 1:
                raise ValueError(f"ruda.squeeze: axis {a} has size {shp[a]}, not 1")
        axis = axes
    return _wrap(x._device._ops["squeeze"](x._data, axis=axis), x._device)


def stack(arrays: Any, /, axis: int = 0, out: Any = None, *, dtype: Any = None,
          casting: str = "same_kind") -> Array:  # fmt: skip
    """Join arrays of one shape along a new axis.

    >>> import ruda as np
    >>> np.stack([np.ones(2), np.zeros(2)]).shape
    (2, 2)
    """
    dev, data = _arrays(arrays, "stack")
    if not data:
        raise ValueError("ruda.stack: need at least one array to stack")
    d0 = data[0]
    shp, first = d0.shape, d0.dtype
    for i, d in enumerate(data):
        if d.shape != shp:
            raise ValueError(f"ruda.stack: arrays[{i}] has shape {d.shape}, arrays[0] {shp}")
        if dtype is None and d.dtype != first:
            dtype = pr.result_type(*(dt.from_numpy(d.dtype) for d in data))._np
    axis = _ax(axis, len(shp) + 1, "stack")
    if dtype is not None:
        dtype = dtype_arg(dtype, "stack", dev)
    if out is None and casting == "same_kind":
        return _wrap(dev._ops["stack"](data, axis=axis, dtype=dtype), dev)
    kw: dict[str, Any] = {"axis": axis, "dtype": dtype, "casting": casting}
    if out is not None:
        kw["out"] = as_array(out, "stack", "out", dev)._data
    r = dev._ops["stack"](data, **kw)
    return out if out is not None else _wrap(r, dev)


def tile(x: Any, repetitions: Any, /) -> Array:
    """Repeat the whole of ``x`` ``repetitions`` times along each axis.

    >>> import ruda as np
    >>> np.tile(np.asarray([1, 2]), 2)
    array([1, 2, 1, 2])
    """
    x = as_array(x, "tile")
    return _wrap(x._device._ops["tile"](x._data, repetitions), x._device)


def unstack(x: Any, /, axis: int = 0) -> tuple[Array, ...]:
    """Split ``x`` into a tuple of arrays along ``axis`` (which disappears).

    >>> import ruda as np
    >>> len(np.unstack(np.ones((3, 2))))
    3
    """
    x = as_array(x, "unstack")
    if x._data.ndim == 0:
        raise ValueError("ruda.unstack: x must have at least one dimension")
    axis = normalize_axis(axis, x._data.ndim, "unstack")
    return wrap(x._device._ops["unstack"](x._data, axis=axis), x._device)
