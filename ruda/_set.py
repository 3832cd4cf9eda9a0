"""Set functions of the standard (isin, unique_*) and NumPy's (unique, intersect1d, union1d,
setdiff1d, setxor1d)."""

from __future__ import annotations

from typing import Any, NamedTuple

from ._array import Array, _wrap, _wrap_tree
from ._utility import native
from ._validation import as_array, common_device, normalize_axis

__all__ = [
    "isin",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unique",
    "intersect1d",
    "union1d",
    "setdiff1d",
    "setxor1d",
]


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _parts(name: str, x: Any) -> tuple:
    x = as_array(x, name)
    dev = x._device
    return tuple(_wrap(p, dev) for p in dev._ops[name](x._data))


def unique_all(x: Array, /) -> UniqueAllResult:
    """Sorted unique values, first indices, inverse indices (``x``'s shape) and counts.

    NaNs are distinct from each other, so each NaN is its own value.

    >>> import ruda as np
    >>> np.unique_all(np.asarray([3, 1, 3])).counts
    array([1, 2])
    """
    return UniqueAllResult(*_parts("unique_all", x))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    """Sorted unique values and how often each occurs (each NaN counts once).

    >>> import ruda as np
    >>> np.unique_counts(np.asarray([3, 1, 3]))
    UniqueCountsResult(values=array([1, 3]), counts=array([1, 2]))
    """
    return UniqueCountsResult(*_parts("unique_counts", x))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    """Sorted unique values and the indices (``x``'s shape) that rebuild ``x`` from them.

    >>> import ruda as np
    >>> np.unique_inverse(np.asarray([3, 1, 3])).inverse_indices
    array([1, 0, 1])
    """
    return UniqueInverseResult(*_parts("unique_inverse", x))


def unique_values(x: Array, /) -> Array:
    """Unique values of ``x``, sorted (each NaN is its own value, after the numbers).

    >>> import ruda as np
    >>> np.unique_values(np.asarray([3, 1, 3]))
    array([1, 3])
    """
    x = as_array(x, "unique_values")
    return _wrap(x._device._ops["unique_values"](x._data), x._device)


def isin(x1: Array | int, x2: Array | int, /, *, invert: bool = False, assume_unique: bool = False,
         kind: str | None = None) -> Array:  # fmt: skip
    """Whether each element of ``x1`` occurs in ``x2`` (elementwise, ``x1``'s shape).

    >>> import ruda as np
    >>> np.isin(np.asarray([1, 2, 3]), np.asarray([2, 5]))
    array([False,  True, False])
    """
    dev = common_device("isin", x1, x2)
    a = native(x1, "isin", "x1", dev)
    b = native(x2, "isin", "x2", dev)
    r = dev._ops["isin"](a, b, assume_unique=assume_unique, invert=invert, kind=kind)
    return _wrap(r, dev)


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,
) -> Any:
    """NumPy's ``unique``: sorted unique values, plus the requested indices and counts.

    >>> import ruda as np
    >>> np.unique(np.asarray([2, 1, 2]), return_counts=True)
    (array([1, 2]), array([1, 2]))
    """
    ar = as_array(ar, "unique", "ar")
    dev = ar._device
    if axis is not None:
        axis = normalize_axis(axis, ar._data.ndim, "unique")
    r = dev._ops["unique"](ar._data, return_index=return_index, return_inverse=return_inverse,
                           return_counts=return_counts, axis=axis, equal_nan=equal_nan,
                           sorted=sorted)  # fmt: skip
    return _wrap_tree(tuple(r), dev) if isinstance(r, tuple) else _wrap(r, dev)


def _two(name: str, ar1: Any, ar2: Any, **kw: Any) -> Any:
    dev = common_device(name, ar1, ar2)
    a = as_array(ar1, name, "ar1", dev)._data
    b = as_array(ar2, name, "ar2", dev)._data
    r = dev._ops[name](a, b, **kw)
    return _wrap_tree(tuple(r), dev) if isinstance(r, tuple) else _wrap(r, dev)


def intersect1d(
    ar1: Any, ar2: Any, assume_unique: bool = False, return_indices: bool = False
) -> Any:
    """Sorted values present in both inputs (and, optionally, where they first occur).

    >>> import ruda as np
    >>> np.intersect1d(np.asarray([1, 3, 4]), np.asarray([3, 1, 2]))
    array([1, 3])
    """
    return _two("intersect1d", ar1, ar2, assume_unique=assume_unique, return_indices=return_indices)


def union1d(ar1: Any, ar2: Any) -> Array:
    """Sorted values present in either input.

    >>> import ruda as np
    >>> np.union1d(np.asarray([1, 3]), np.asarray([2, 3]))
    array([1, 2, 3])
    """
    return _two("union1d", ar1, ar2)


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Array:
    """Sorted unique values of ``ar1`` that are not in ``ar2``.

    >>> import ruda as np
    >>> np.setdiff1d(np.asarray([1, 2, 3, 4]), np.asarray([2, 4]))
    array([1, 3])
    """
    return _two("setdiff1d", ar1, ar2, assume_unique=assume_unique)


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Array:
    """Sorted values in exactly one of the inputs.

    >>> import ruda as np
    >>> np.setxor1d(np.asarray([1, 2, 3]), np.asarray([2, 3, 4]))
    array([1, 4])
    """
    return _two("setxor1d", ar1, ar2, assume_unique=assume_unique)
