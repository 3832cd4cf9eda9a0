"""Manipulation functions of the standard (reshape, concat, stack...) and NumPy's (split, pad)."""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from . import _promotion as pr
from ._array import Array, _wrap
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
    # NumPy's surface
    "concatenate", "ravel", "swapaxes", "transpose", "atleast_1d", "atleast_2d", "atleast_3d",
    "vstack", "hstack", "dstack", "column_stack", "row_stack", "split", "array_split", "hsplit",
    "vsplit", "dsplit", "fliplr", "flipud", "rot90", "pad", "append", "insert", "delete",
    "resize", "block", "trim_zeros",
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
    return dev, [
        a._data if type(a) is Array else as_array(a, fname, f"arrays[{i}]", dev)._data
        for i, a in enumerate(arrays)
    ]


def _ax(axis: Any, nd: int, fname: str) -> int:
    """normalize_axis with a fast path for in-range ints."""
    if type(axis) is int and -nd <= axis < nd:
        return axis if axis >= 0 else axis + nd
    return normalize_axis(axis, nd, fname)


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
        raise ValueError(f"ruda.broadcast_arrays: {e}") from None
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
        raise ValueError(f"ruda.broadcast_to: cannot broadcast {x.shape} to {shape}: {e}") from None


def concat(arrays: Any, /, axis: int | None = 0, out: Any = None, *, dtype: Any = None,
           casting: str = "same_kind") -> Array:  # fmt: skip
    """Join arrays along an existing axis (``axis=None`` flattens first); dtypes promote.

    >>> import ruda as np
    >>> np.concat([np.asarray([1, 2]), np.asarray([3])])
    array([1, 2, 3])
    """
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
            raise ValueError(f"ruda.concat: {e}") from None
    kw: dict[str, Any] = {"axis": axis, "dtype": dtype, "casting": casting}
    if out is not None:
        kw["out"] = as_array(out, "concat", "out", dev)._data
    try:
        r = dev._ops["concatenate"](data, **kw)
    except ValueError as e:
        raise ValueError(f"ruda.concat: {e}") from None
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
        if repeats._data.dtype.kind not in "iu":
            raise TypeError(f"ruda.repeat: repeats must be integers, got {repeats.dtype}")
        repeats = repeats._data
    elif not isinstance(repeats, int):
        repeats = as_array(repeats, "repeat", "repeats", dev)._data
    try:
        return _wrap(dev._ops["repeat"](x._data, repeats, axis=axis), dev)
    except ValueError as e:
        raise ValueError(f"ruda.repeat: {e}") from None


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
        raise ValueError(f"ruda.reshape: cannot reshape {x.shape} to {shape}: {e}") from None
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
        raise ValueError(f"ruda.roll: {e}") from None


def squeeze(x: Any, /, axis: int | tuple[int, ...] | None = None) -> Array:
    """Remove size-1 axes (``axis`` names them; all size-1 axes when None, as in NumPy).

    >>> import ruda as np
    >>> np.squeeze(np.ones((1, 3, 1)), axis=0).shape
    (3, 1)
    """
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


# -- NumPy's surface ---------------------------------------------------------------------------


def swapaxes(a: Any, axis1: int, axis2: int) -> Array:
    """Interchange two axes.

    >>> import ruda as np
    >>> np.swapaxes(np.ones((2, 3)), 0, 1).shape
    (3, 2)
    """
    a = as_array(a, "swapaxes", "a")
    nd = a._data.ndim
    a1 = normalize_axis(axis1, nd, "swapaxes", "axis1")
    a2 = normalize_axis(axis2, nd, "swapaxes", "axis2")
    return _wrap(a._device._ops["swapaxes"](a._data, a1, a2), a._device)


def _atleast(fname: str, arys: tuple) -> Any:
    dev = common_device(fname, *arys)
    fn = dev._ops[fname]
    res = [_wrap(fn(as_array(a, fname, "arys", dev)._data), dev) for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def atleast_1d(*arys: Any) -> Any:
    """Inputs viewed with at least one dimension.

    >>> import ruda as np
    >>> np.atleast_1d(1.0).shape
    (1,)
    """
    return _atleast("atleast_1d", arys)


def atleast_2d(*arys: Any) -> Any:
    """Inputs viewed with at least two dimensions.

    >>> import ruda as np
    >>> np.atleast_2d([1, 2]).shape
    (1, 2)
    """
    return _atleast("atleast_2d", arys)


def atleast_3d(*arys: Any) -> Any:
    """Inputs viewed with at least three dimensions.

    >>> import ruda as np
    >>> np.atleast_3d([1, 2]).shape
    (1, 2, 1)
    """
    return _atleast("atleast_3d", arys)


def _seq(fname: str, tup: Any, **kw: Any) -> Array:
    dev, data = _arrays(tup, fname)
    if not data:
        raise ValueError(f"ruda.{fname}: need at least one array")
    try:
        return _wrap(dev._ops[fname](data, **kw), dev)
    except ValueError as e:
        raise ValueError(f"ruda.{fname}: {e}") from None


def vstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Array:
    """Stack arrays vertically (row-wise).

    >>> import ruda as np
    >>> np.vstack([np.ones(2), np.zeros(2)]).shape
    (2, 2)
    """
    return _seq("vstack", tup, dtype=dtype, casting=casting)


def row_stack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Array:
    """NumPy's old name for :func:`vstack`.

    >>> import ruda as np
    >>> np.row_stack([np.ones(2), np.zeros(2)]).shape
    (2, 2)
    """
    return _seq("vstack", tup, dtype=dtype, casting=casting)


def hstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Array:
    """Stack arrays horizontally (column-wise).

    >>> import ruda as np
    >>> np.hstack([np.ones(2), np.zeros(1)]).shape
    (3,)
    """
    return _seq("hstack", tup, dtype=dtype, casting=casting)


def dstack(tup: Any) -> Array:
    """Stack arrays depth-wise (along the third axis).

    >>> import ruda as np
    >>> np.dstack([np.ones(2), np.zeros(2)]).shape
    (1, 2, 2)
    """
    return _seq("dstack", tup)


def column_stack(tup: Any) -> Array:
    """Stack 1-D arrays as the columns of a 2-D array.

    >>> import ruda as np
    >>> np.column_stack([np.ones(3), np.zeros(3)]).shape
    (3, 2)
    """
    return _seq("column_stack", tup)


def block(arrays: Any) -> Array:
    """Assemble an array from nested lists of blocks.

    >>> import ruda as np
    >>> np.block([[np.eye(2), np.zeros((2, 1))]]).shape
    (2, 3)
    """

    def leaves(a: Any) -> list:
        return [y for v in a for y in leaves(v)] if isinstance(a, list) else [a]

    dev = common_device("block", *leaves(arrays))

    def native(a: Any) -> Any:
        if isinstance(a, list):
            return [native(v) for v in a]
        return as_array(a, "block", "arrays", dev)._data

    return _wrap(dev._ops["block"](native(arrays)), dev)


def _split(fname: str, ary: Any, indices_or_sections: Any, *axis: int) -> list[Array]:
    a = as_array(ary, fname, "ary")
    if axis:
        normalize_axis(axis[0], a._data.ndim, fname)
    if isinstance(indices_or_sections, Array):
        indices_or_sections = indices_or_sections._host().tolist()
    try:
        r = a._device._ops[fname](a._data, indices_or_sections, *axis)
    except ValueError as e:
        raise ValueError(f"ruda.{fname}: {e}") from None
    return [_wrap(s, a._device) for s in r]


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Array]:
    """Split into equal sections (or at the given indices) along ``axis``.

    >>> import ruda as np
    >>> [s.shape for s in np.split(np.arange(6), 3)]
    [(2,), (2,), (2,)]
    """
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Array]:
    """Like :func:`split`, but sections may differ in size.

    >>> import ruda as np
    >>> [s.shape for s in np.array_split(np.arange(5), 2)]
    [(3,), (2,)]
    """
    return _split("array_split", ary, indices_or_sections, axis)


def hsplit(ary: Any, indices_or_sections: Any) -> list[Array]:
    """Split horizontally (along axis 1, or 0 for 1-D input).

    >>> import ruda as np
    >>> len(np.hsplit(np.ones((2, 4)), 2))
    2
    """
    return _split("hsplit", ary, indices_or_sections)


def vsplit(ary: Any, indices_or_sections: Any) -> list[Array]:
    """Split vertically (along axis 0).

    >>> import ruda as np
    >>> len(np.vsplit(np.ones((4, 2)), 2))
    2
    """
    return _split("vsplit", ary, indices_or_sections)


def dsplit(ary: Any, indices_or_sections: Any) -> list[Array]:
    """Split along the third axis.

    >>> import ruda as np
    >>> len(np.dsplit(np.ones((1, 2, 4)), 2))
    2
    """
    return _split("dsplit", ary, indices_or_sections)


def fliplr(m: Any) -> Array:
    """Reverse the columns (axis 1).

    >>> import ruda as np
    >>> np.fliplr(np.asarray([[1, 2]]))
    array([[2, 1]])
    """
    m = as_array(m, "fliplr", "m")
    if m._data.ndim < 2:
        raise ValueError("ruda.fliplr: m must have at least 2 dimensions")
    return flip(m, axis=1)


def flipud(m: Any) -> Array:
    """Reverse the rows (axis 0).

    >>> import ruda as np
    >>> np.flipud(np.asarray([1, 2]))
    array([2, 1])
    """
    m = as_array(m, "flipud", "m")
    if m._data.ndim < 1:
        raise ValueError("ruda.flipud: m must have at least 1 dimension")
    return flip(m, axis=0)


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``.

    >>> import ruda as np
    >>> np.rot90(np.asarray([[1, 2], [3, 4]]))
    array([[2, 4],
           [1, 3]])
    """
    m = as_array(m, "rot90", "m")
    if len(axes) != 2:
        raise ValueError("ruda.rot90: axes must name two axes")
    ax = normalize_axes(axes, m._data.ndim, "rot90", "axes")
    return _wrap(m._device._ops["rot90"](m._data, k, ax), m._device)


def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Array:
    """Pad an array (NumPy's modes: constant, edge, reflect, wrap...).

    >>> import ruda as np
    >>> np.pad(np.asarray([1, 2]), 1)
    array([0, 1, 2, 0])
    """
    a = as_array(array, "pad", "array")
    if isinstance(pad_width, Array):
        pad_width = pad_width._host().tolist()
    kwargs = {k: (v._host().tolist() if isinstance(v, Array) else v) for k, v in kwargs.items()}
    try:
        return _wrap(a._device._ops["pad"](a._data, pad_width, mode=mode, **kwargs), a._device)
    except ValueError as e:
        raise ValueError(f"ruda.pad: {e}") from None


def append(arr: Any, values: Any, axis: int | None = None) -> Array:
    """``arr`` with ``values`` appended (flattened when ``axis`` is None).

    >>> import ruda as np
    >>> np.append(np.asarray([1, 2]), [3])
    array([1, 2, 3])
    """
    dev = common_device("append", arr, values)
    a = as_array(arr, "append", "arr", dev)
    v = as_array(values, "append", "values", dev)
    if axis is not None:
        normalize_axis(axis, a._data.ndim, "append")
    return _wrap(dev._ops["append"](a._data, v._data, axis=axis), dev)


def _obj(o: Any, dev: Any) -> Any:
    if isinstance(o, Array):
        common_device("insert", o, _wrap(o._data, dev))
        return o._data
    return o


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Array:
    """``arr`` with ``values`` inserted before the indices ``obj``.

    >>> import ruda as np
    >>> np.insert(np.asarray([1, 2]), 1, 9)
    array([1, 9, 2])
    """
    dev = common_device("insert", arr, obj, values)
    a = as_array(arr, "insert", "arr", dev)
    if axis is not None:
        normalize_axis(axis, a._data.ndim, "insert")
    return _wrap(dev._ops["insert"](a._data, _obj(obj, dev), _obj(values, dev), axis=axis), dev)


def delete(arr: Any, obj: Any, axis: int | None = None) -> Array:
    """``arr`` without the sub-arrays at ``obj`` along ``axis`` (flattened when None).

    >>> import ruda as np
    >>> np.delete(np.asarray([1, 2, 3]), 1)
    array([1, 3])
    """
    dev = common_device("delete", arr, obj)
    a = as_array(arr, "delete", "arr", dev)
    if axis is not None:
        normalize_axis(axis, a._data.ndim, "delete")
    return _wrap(dev._ops["delete"](a._data, _obj(obj, dev), axis=axis), dev)


def resize(a: Any, new_shape: Any) -> Array:
    """A new array of ``new_shape``, filled by repeating ``a``'s elements.

    >>> import ruda as np
    >>> np.resize(np.asarray([1, 2]), 3)
    array([1, 2, 1])
    """
    a = as_array(a, "resize", "a")
    shape = shape_arg(new_shape, "resize", "new_shape")
    if any(n < 0 for n in shape):
        raise ValueError(f"ruda.resize: new_shape {shape} has a negative size")
    return _wrap(a._device._ops["resize"](a._data, shape), a._device)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Array:
    """``filt`` without its leading ('f') and/or trailing ('b') zeros.

    >>> import ruda as np
    >>> np.trim_zeros(np.asarray([0, 1, 2, 0]))
    array([1, 2])
    """
    a = as_array(filt, "trim_zeros", "filt")
    if not isinstance(trim, str) or not set(trim.lower()) <= {"f", "b"}:
        raise ValueError(f"ruda.trim_zeros: trim must contain only 'f' and 'b', got {trim!r}")
    if axis is not None:
        normalize_axes(axis, a._data.ndim, "trim_zeros")
    return _wrap(a._device._ops["trim_zeros"](a._data, trim, axis=axis), a._device)
