"""NumPy's manipulation functions beyond the standard: swapaxes, atleast_*d, the stacking and
splitting families, fliplr/flipud/rot90, pad, append/insert/delete, resize, block, trim_zeros.

They build on the helpers of ``_manipulation.py``.
"""

from __future__ import annotations

from typing import Any

from ._array import Array, _wrap
from ._errors import detail
from ._manipulation import _arrays, flip
from ._validation import as_array, common_device, normalize_axes, normalize_axis, shape_arg

__all__ = [
    "swapaxes", "atleast_1d", "atleast_2d", "atleast_3d", "vstack", "hstack", "dstack",
    "column_stack", "row_stack", "split", "array_split", "hsplit", "vsplit", "dsplit", "fliplr",
    "flipud", "rot90", "pad", "append", "insert", "delete", "resize", "block", "trim_zeros",
]  # fmt: skip


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
        raise ValueError(f"ruda.pad: {detail(e)}") from None


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
