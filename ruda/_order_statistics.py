"""Order statistics: ptp, median, percentile and quantile, and their nan-aware versions."""

from __future__ import annotations

from typing import Any

from ._array import Array
from ._statistical import _Axis, _named, _reduce
from ._utility import axis_arg, finish, native, numpy_kwargs
from ._validation import as_array, common_device

__all__ = [
    "ptp", "median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile",
]  # fmt: skip


def ptp(a: Any, axis: _Axis = None, out: Array | None = None, keepdims: bool = False) -> Array:
    """Range (max - min) along ``axis``.

    >>> import ruda as np
    >>> np.ptp(np.asarray([4, 9, 2]))
    array(7)
    """
    return _reduce("ptp", a, axis, out, keepdims, True)


def _make_median(name: str, doc: str) -> Any:
    def fn(
        a: Any,
        axis: _Axis = None,
        out: Array | None = None,
        overwrite_input: bool = False,
        keepdims: bool = False,
    ) -> Array:
        a = as_array(a, name)
        dev = a._device
        ax = axis_arg(axis, a._data.ndim, name)
        kw = numpy_kwargs(name, dev, out)
        r = dev._ops[name](a._data, axis=ax, overwrite_input=overwrite_input, keepdims=keepdims,
                           **kw)  # fmt: skip
        return finish(r, out, dev)

    return _named(fn, name, doc)


median = _make_median(
    "median",
    """Median along ``axis``.

    >>> import ruda as np
    >>> np.median(np.asarray([3.0, 1.0, 2.0, 10.0]))
    array(2.5)
    """,
)
nanmedian = _make_median(
    "nanmedian",
    """Median of the non-NaN elements along ``axis``.

    >>> import ruda as np
    >>> np.nanmedian(np.asarray([3.0, np.nan, 1.0]))
    array(2.)
    """,
)


def _make_quantile(name: str, doc: str) -> Any:
    def fn(
        a: Any,
        q: Any,
        axis: _Axis = None,
        out: Array | None = None,
        overwrite_input: bool = False,
        method: str = "linear",
        keepdims: bool = False,
        *,
        weights: Any = None,
    ) -> Array:
        dev = common_device(name, a, q, weights, out)
        a = as_array(a, name, device=dev)
        ax = axis_arg(axis, a._data.ndim, name)
        kw = numpy_kwargs(name, dev, out, weights=native(weights, name, "weights", dev))
        r = dev._ops[name](a._data, native(q, name, "q", dev), axis=ax, method=method,
                           overwrite_input=overwrite_input, keepdims=keepdims, **kw)  # fmt: skip
        return finish(r, out, dev)

    return _named(fn, name, doc)


percentile = _make_quantile(
    "percentile",
    """The ``q``-th percentiles (0..100) along ``axis``.

    >>> import ruda as np
    >>> np.percentile(np.asarray([1.0, 2.0, 3.0, 4.0]), 50)
    array(2.5)
    """,
)
quantile = _make_quantile(
    "quantile",
    """The ``q``-th quantiles (0..1) along ``axis``; ``method`` as NumPy's.

    >>> import ruda as np
    >>> np.quantile(np.asarray([1.0, 2.0, 3.0, 4.0]), 0.25)
    array(1.75)
    """,
)
nanpercentile = _make_quantile(
    "nanpercentile",
    """Percentiles of the non-NaN elements.

    >>> import ruda as np
    >>> np.nanpercentile(np.asarray([1.0, np.nan, 3.0]), 50)
    array(2.)
    """,
)
nanquantile = _make_quantile(
    "nanquantile",
    """Quantiles of the non-NaN elements.

    >>> import ruda as np
    >>> np.nanquantile(np.asarray([1.0, np.nan, 3.0]), 0.5)
    array(2.)
    """,
)
