"""NumPy's nan-aware reductions and scans (nansum, nanmean, nanvar, nancumsum...): NaN is
treated as missing. The nan-aware order statistics (nanmedian, nanquantile...) live in
``_order_statistics.py``; ``_statistical.py`` re-exports both.
"""

from __future__ import annotations

from typing import Any

from ._array import Array
from ._statistical import _Axis, _make_np_scan, _reduce, _spread
from ._utility import _NoValue

__all__ = [
    "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax", "nancumsum",
    "nancumprod",
]  # fmt: skip


def nansum(
    a: Any,
    axis: _Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
    initial: Any = _NoValue,
    where: Any = True,
) -> Array:
    """Sum treating NaN as zero.

    >>> import ruda as np
    >>> np.nansum(np.asarray([1.0, np.nan, 2.0]))
    array(3.)
    """
    return _reduce("nansum", a, axis, out, keepdims, where, dtype=dtype, initial=initial)


def nanprod(
    a: Any,
    axis: _Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
    initial: Any = _NoValue,
    where: Any = True,
) -> Array:
    """Product treating NaN as one.

    >>> import ruda as np
    >>> np.nanprod(np.asarray([2.0, np.nan, 3.0]))
    array(6.)
    """
    return _reduce("nanprod", a, axis, out, keepdims, where, dtype=dtype, initial=initial)


def nanmax(
    a: Any,
    axis: _Axis = None,
    out: Array | None = None,
    keepdims: bool = False,
    initial: Any = _NoValue,
    where: Any = True,
) -> Array:
    """Largest element ignoring NaNs (NaN, with a warning, where all are NaN).

    >>> import ruda as np
    >>> np.nanmax(np.asarray([1.0, np.nan, 2.0]))
    array(2.)
    """
    return _reduce("nanmax", a, axis, out, keepdims, where, initial=initial)


def nanmin(
    a: Any,
    axis: _Axis = None,
    out: Array | None = None,
    keepdims: bool = False,
    initial: Any = _NoValue,
    where: Any = True,
) -> Array:
    """Smallest element ignoring NaNs (NaN, with a warning, where all are NaN).

    >>> import ruda as np
    >>> np.nanmin(np.asarray([1.0, np.nan, 2.0]))
    array(1.)
    """
    return _reduce("nanmin", a, axis, out, keepdims, where, initial=initial)


def nanmean(
    a: Any,
    axis: _Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    keepdims: bool = False,
    *,
    where: Any = True,
) -> Array:
    """Mean of the non-NaN elements.

    >>> import ruda as np
    >>> np.nanmean(np.asarray([1.0, np.nan, 3.0]))
    array(2.)
    """
    return _reduce("nanmean", a, axis, out, keepdims, where, dtype=dtype)


def nanvar(
    a: Any,
    axis: _Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    where: Any = True,
    mean: Any = _NoValue,
    correction: Any = _NoValue,
) -> Array:
    """Variance of the non-NaN elements.

    >>> import ruda as np
    >>> np.nanvar(np.asarray([1.0, np.nan, 3.0]))
    array(1.)
    """
    return _spread("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


def nanstd(
    a: Any,
    axis: _Axis = None,
    dtype: Any = None,
    out: Array | None = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    where: Any = True,
    mean: Any = _NoValue,
    correction: Any = _NoValue,
) -> Array:
    """Standard deviation of the non-NaN elements.

    >>> import ruda as np
    >>> np.nanstd(np.asarray([1.0, np.nan, 3.0]))
    array(1.)
    """
    return _spread("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean, correction)


nancumsum = _make_np_scan(
    "nancumsum",
    """Running sums treating NaN as zero.

    >>> import ruda as np
    >>> np.nancumsum(np.asarray([1.0, np.nan, 2.0]))
    array([1., 1., 3.])
    """,
)
nancumprod = _make_np_scan(
    "nancumprod",
    """Running products treating NaN as one.

    >>> import ruda as np
    >>> np.nancumprod(np.asarray([2.0, np.nan, 3.0]))
    array([2., 2., 6.])
    """,
)
