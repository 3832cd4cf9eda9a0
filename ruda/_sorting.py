"""Sorting functions of the standard (sort, argsort with ``descending`` and ``stable``) and
NumPy's (lexsort, partition, argpartition, sort_complex)."""

from __future__ import annotations

from typing import Any

from ._array import Array, _wrap
from ._utility import native
from ._validation import as_array, common_device, normalize_axis

__all__ = ["sort", "argsort", "lexsort", "partition", "argpartition", "sort_complex"]


def _sort(
    name: str, x: Any, axis: Any, kind: Any, order: Any, descending: bool, stable: Any
) -> Array:
    x = as_array(x, name)
    dev = x._device
    d = x._data
    if axis is not None:
        if d.ndim == 0:
            raise ValueError(f"ruda.{name}: x must have at least one dimension")
        axis = normalize_axis(axis, d.ndim, name)
    # Note: stable defaults to True (the standard); NumPy's default sort is not stable.
    stable = True if stable is None else bool(stable)
    r = dev._ops[name](d, axis=axis, descending=descending, stable=stable, kind=kind, order=order)
    return _wrap(r, dev)


def sort(
    x: Array,
    /,
    axis: int | None = -1,
    kind: str | None = None,
    order: Any = None,
    *,
    descending: bool = False,
    stable: bool | None = True,
) -> Array:
    """A sorted copy of ``x`` along ``axis`` (flattened when None); stable unless asked not.

    ``descending=True`` sorts largest first and still keeps equal elements in their order.

    >>> import ruda as np
    >>> np.sort(np.asarray([3, 1, 2]), descending=True)
    array([3, 2, 1])
    """
    return _sort("sort", x, axis, kind, order, descending, stable)


def argsort(
    x: Array,
    /,
    axis: int | None = -1,
    kind: str | None = None,
    order: Any = None,
    *,
    descending: bool = False,
    stable: bool | None = True,
) -> Array:
    """Indices that sort ``x`` along ``axis``; ties keep their order (stable by default).

    >>> import ruda as np
    >>> np.argsort(np.asarray([3, 1, 3, 2]), descending=True)
    array([0, 2, 3, 1])
    """
    return _sort("argsort", x, axis, kind, order, descending, stable)


def lexsort(keys: Any, axis: int = -1) -> Array:
    """Indices that sort by the last key first, then the previous ones (stable).

    >>> import ruda as np
    >>> np.lexsort((np.asarray([1, 0, 1]), np.asarray([0, 0, 0])))
    array([1, 0, 2])
    """
    if isinstance(keys, (list, tuple)):
        dev = common_device("lexsort", *keys)
        k = tuple(native(v, "lexsort", "keys", dev) for v in keys)
    else:
        keys = as_array(keys, "lexsort", "keys")
        dev, k = keys._device, keys._data
    return _wrap(dev._ops["lexsort"](k, axis=axis), dev)


def _part(name: str, a: Any, kth: Any, axis: Any, kind: str, order: Any) -> Array:
    dev = common_device(name, a, kth)
    a = as_array(a, name, "a", dev)
    if axis is not None:
        axis = normalize_axis(axis, a._data.ndim, name)
    k = native(kth, name, "kth", dev)
    return _wrap(dev._ops[name](a._data, k, axis=axis, kind=kind, order=order), dev)


def partition(
    a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order: Any = None
) -> Array:
    """A copy with the ``kth`` element in its sorted place, smaller ones before, larger after.

    >>> import ruda as np
    >>> int(np.partition(np.asarray([5, 1, 4, 2]), 1)[1])
    2
    """
    return _part("partition", a, kth, axis, kind, order)


def argpartition(
    a: Any, kth: Any, axis: int | None = -1, kind: str = "introselect", order: Any = None
) -> Array:
    """Indices that would partition ``a`` around its ``kth`` element.

    >>> import ruda as np
    >>> int(np.argpartition(np.asarray([5, 1, 4, 2]), 0)[0])
    1
    """
    return _part("argpartition", a, kth, axis, kind, order)


def sort_complex(a: Any) -> Array:
    """Sort by real part, then imaginary part; the result is complex.

    >>> import ruda as np
    >>> np.sort_complex(np.asarray([2.0, 1.0]))
    array([1.+0.j, 2.+0.j])
    """
    a = as_array(a, "sort_complex", "a")
    return _wrap(a._device._ops["sort_complex"](a._data), a._device)
