"""NumPy's histograms and binning: histogram, histogram2d, histogramdd, histogram_bin_edges,
bincount, digitize."""

from __future__ import annotations

from typing import Any

from ._array import Array, _wrap
from ._dtypes import kind_of
from ._utility import finish, native
from ._validation import as_array, common_device

__all__ = [
    "histogram",
    "histogram2d",
    "histogramdd",
    "histogram_bin_edges",
    "bincount",
    "digitize",
]


def _bins(bins: Any, fname: str, dev: Any) -> Any:
    # bins is an int, a method name, an array of edges, or (for 2-D/N-D) a sequence of these.
    if isinstance(bins, (list, tuple)) and any(isinstance(b, Array) for b in bins):
        return [native(b, fname, "bins", dev) for b in bins]
    return native(bins, fname, "bins", dev)


def histogram(
    a: Any, bins: Any = 10, range: Any = None, density: bool | None = None, weights: Any = None
) -> tuple[Array, Array]:
    """Counts of ``a`` in ``bins`` and the bin edges.

    >>> import ruda as np
    >>> np.histogram(np.asarray([1, 2, 1]), bins=[0, 1, 2, 3])
    (array([0, 2, 1]), array([0, 1, 2, 3]))
    """
    dev = common_device("histogram", a, bins, weights)
    a = as_array(a, "histogram", "a", dev)
    b = _bins(bins, "histogram", dev)
    w = native(weights, "histogram", "weights", dev)
    r = dev._ops["histogram"](a._data, bins=b, range=range, density=density, weights=w)
    return finish(tuple(r), None, dev)


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Array:
    """The bin edges ``histogram`` would use.

    >>> import ruda as np
    >>> np.histogram_bin_edges(np.asarray([0.0, 1.0]), bins=2)
    array([0. , 0.5, 1. ])
    """
    dev = common_device("histogram_bin_edges", a, bins, weights)
    a = as_array(a, "histogram_bin_edges", "a", dev)
    b = _bins(bins, "histogram_bin_edges", dev)
    w = native(weights, "histogram_bin_edges", "weights", dev)
    return _wrap(dev._ops["histogram_bin_edges"](a._data, bins=b, range=range, weights=w), dev)


def histogram2d(
    x: Any,
    y: Any,
    bins: Any = 10,
    range: Any = None,
    density: bool | None = None,
    weights: Any = None,
) -> tuple[Array, Array, Array]:
    """2-D histogram of the points ``(x, y)``: counts, x edges, y edges.

    >>> import ruda as np
    >>> h, xe, ye = np.histogram2d(np.asarray([0.0, 1.0]), np.asarray([0.0, 1.0]), bins=2)
    >>> h
    array([[1., 0.],
           [0., 1.]])
    """
    dev = common_device("histogram2d", x, y, weights)
    xd = as_array(x, "histogram2d", "x", dev)._data
    yd = as_array(y, "histogram2d", "y", dev)._data
    b = _bins(bins, "histogram2d", dev)
    w = native(weights, "histogram2d", "weights", dev)
    r = dev._ops["histogram2d"](xd, yd, bins=b, range=range, density=density, weights=w)
    return finish(tuple(r), None, dev)


def histogramdd(
    sample: Any, bins: Any = 10, range: Any = None, density: bool | None = None, weights: Any = None
) -> tuple[Array, list[Array]]:
    """N-D histogram of ``sample`` (one point per row): counts and a list of edge arrays.

    >>> import ruda as np
    >>> h, edges = np.histogramdd(np.asarray([[0.0, 0.0], [1.0, 1.0]]), bins=2)
    >>> h.shape, len(edges)
    ((2, 2), 2)
    """
    if isinstance(sample, (list, tuple)):  # NumPy: an array_like is D sequences, one per axis
        dev = common_device("histogramdd", *sample, weights)
        s = [native(v, "histogramdd", "sample", dev) for v in sample]
    else:
        dev = common_device("histogramdd", sample, weights)
        s = as_array(sample, "histogramdd", "sample", dev)._data
    b = _bins(bins, "histogramdd", dev)
    w = native(weights, "histogramdd", "weights", dev)
    h, edges = dev._ops["histogramdd"](s, bins=b, range=range, density=density, weights=w)
    return _wrap(h, dev), [_wrap(e, dev) for e in edges]


def bincount(x: Any, /, weights: Any = None, minlength: int = 0) -> Array:
    """Occurrences of each value ``0..max(x)`` in the non-negative integer array ``x``.

    >>> import ruda as np
    >>> np.bincount(np.asarray([0, 1, 1, 3]))
    array([1, 2, 0, 1])
    """
    dev = common_device("bincount", x, weights)
    x = as_array(x, "bincount", device=dev)
    if x._data.ndim != 1:
        raise ValueError(f"ruda.bincount: x must be 1-D, got {x._data.ndim} dims")
    if kind_of(x._data.dtype) not in "iub" and x._data.size:
        raise TypeError(f"ruda.bincount: x must have an integer dtype, got {x._data.dtype}")
    w = native(weights, "bincount", "weights", dev)
    return _wrap(dev._ops["bincount"](x._data, weights=w, minlength=minlength), dev)


def digitize(x: Any, bins: Any, right: bool = False) -> Array:
    """Index of the bin (edges ``bins``, monotonic) each element of ``x`` falls in.

    >>> import ruda as np
    >>> np.digitize(np.asarray([0.5, 1.5, 2.5]), np.asarray([0.0, 1.0, 2.0]))
    array([1, 2, 3])
    """
    dev = common_device("digitize", x, bins)
    xd = native(x, "digitize", "x", dev)
    bd = as_array(bins, "digitize", "bins", dev)._data
    return _wrap(dev._ops["digitize"](xd, bd, right=right), dev)
