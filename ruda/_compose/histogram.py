"""histogram, histogram_bin_edges, histogram2d, histogramdd and digitize on the GPU backends:
NumPy's binning rules as compositions of ruda's device ops.

Equal bins: NumPy's index arithmetic (scale, truncate, then one step down or up against the
edges, the last bin closed) and a bincount. Given edges: a sort and an inclusive searchsorted
(weights: a prefix sum over the sorted weights). N-D: a searchsorted per axis, a flat bin number
and one bincount. Only scalars come back: the data's range and what the bin-count estimators
need (``histogram_bins``), and the yes/no of NumPy's monotonicity checks.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from typing import Any

import numpy as np

from .._dtypes import to_numpy
from .common import (
    Array,
    array_like,
    compositions,
    rd,
)
from .histogram_bins import (
    count_for,
    equal_edges,
    host,
    numpy_linspace,
    outer_edges,
    uniform_counts,
)


def _ndim(v: Any) -> int:
    """NumPy's ndim without converting device arrays (a sequence counts its first entry's)."""
    if hasattr(v, "ndim"):
        return v.ndim
    if isinstance(v, (list, tuple)):
        return 1 + (_ndim(v[0]) if v else 0)
    return np.ndim(v)


def _data_and_weights(rd: Any, a: Any, weights: Any) -> tuple[Any, Any]:
    """NumPy's _ravel_and_check_weights: booleans as uint8, weights of a's shape, both flat."""
    x = a
    if x.dtype == rd.bool:
        warnings.warn("Converting input from bool to <class 'numpy.uint8'> for compatibility.",
                      RuntimeWarning, stacklevel=4)  # fmt: skip
        x = rd.astype(x, rd.uint8)
    w = None
    if weights is not None:
        w = array_like(weights, x)
        if w.shape != x.shape:
            raise ValueError("weights should have the same shape as a.")
        w = rd.reshape(w, (-1,))
    return rd.reshape(x, (-1,)), w


def _bin_edges(rd: Any, a: Any, bins: Any, rng: Any, w: Any) -> tuple[Any, Any]:
    """NumPy's _get_bin_edges: the edges, and (first, last, count) when the bins are equal."""
    if isinstance(bins, str):
        if w is not None:
            raise TypeError("Automated estimation of the number of bins is not supported for "
                            "weighted data")  # fmt: skip
        first, last, n = count_for(rd, a, bins, rng)
    elif _ndim(bins) == 0:
        try:
            n = operator.index(bins) if not isinstance(bins, Array) else _count_index(rd, bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an array") from e
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        first, last = outer_edges(rd, a, rng)
    elif _ndim(bins) == 1:
        edges = array_like(bins, a)
        if edges.shape[0] > 1 and bool(rd.any(edges[:-1] > edges[1:])):
            raise ValueError("`bins` must increase monotonically, when an array")
        return edges, None
    else:
        raise ValueError("`bins` must be 1d, when an array")
    edges = equal_edges(rd, a, first, last, n)
    if bool(rd.any(edges[:-1] >= edges[1:])):
        raise ValueError(f"Too many bins for data range. Cannot create {n} finite-sized bins.")
    return edges, (first, last, n)


def _count_index(rd: Any, b: Any) -> int:
    """A 0-d device bin count read back (NumPy's operator.index: integers only)."""
    x = b
    if not rd.isdtype(x.dtype, "integral"):
        raise TypeError(f"'{x.dtype}' object cannot be interpreted as an integer")
    return int(x)


def _edge_counts(rd: Any, a: Any, edges: Any, w: Any) -> Any:
    """Counts (or summed weights) between given edges: sort, inclusive searchsorted, diff."""
    dt = rd.result_type(a, edges)
    a, e = rd.astype(a, dt), rd.astype(edges, dt)
    if w is None:
        sa, cw = rd.sort(a), None
    else:
        order = rd.argsort(a)
        sa = rd.take(a, order)
        cw = rd.cumulative_sum(rd.take(w, order), include_initial=True)
    # NumPy's _search_sorted_inclusive: the last edge closes the last bin
    pos = rd.concat([rd.searchsorted(sa, e[:-1], side="left"),
                     rd.searchsorted(sa, e[-1:], side="right")])  # fmt: skip
    cum = pos if cw is None else rd.take(cw, pos)
    r = cum[1:] - cum[:-1]
    return r if w is None else rd.astype(r, w.dtype)


def _histogram(rd: Any, a: Any, bins: Any, rng: Any, density: Any, weights: Any) -> Any:
    x, w = _data_and_weights(rd, a, weights)
    edges, uniform = _bin_edges(rd, x, bins, rng, w)
    simple = w is None or np.can_cast(to_numpy(w.dtype), complex)
    if uniform is not None and simple:
        n = uniform_counts(rd, x, edges, *uniform, w)
    else:
        n = _edge_counts(rd, x, edges, w)
    if density:
        db = rd.astype(edges[1:] - edges[:-1], rd.float64)
        return n / db / rd.sum(n), edges
    return n, edges


def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
              weights: Any = None) -> tuple[Any, Any]:  # fmt: skip
    """NumPy's histogram of the flattened ``a``: counts (or weights, or a density) and edges."""

    n, edges = _histogram(rd, a, bins, range, density, weights)
    given = isinstance(bins, Array) and bins.ndim == 1  # NumPy returns the edges array it was given
    return n, (bins if given else edges)


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """The edges ``histogram`` would use."""

    x, w = _data_and_weights(rd, a, weights)
    return _bin_edges(rd, x, bins, range, w)[0]


def _sample(rd: Any, sample: Any) -> Any:
    """NumPy's (N, D) sample: a 2-D array as it is, a 1-D one as one column, a sequence of
    arrays as columns."""
    if isinstance(sample, Array):
        if sample.ndim > 2:
            raise ValueError(f"too many values to unpack (expected 2): sample is {sample.ndim}-d")
        s = sample
        return s if s.ndim == 2 else rd.reshape(s, (-1, 1))
    cols = [v if isinstance(v, Array) else rd.asarray(v) for v in sample]
    return rd.stack([rd.reshape(c, (-1,)) for c in cols], axis=1)


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple[Any, list[Any]]:  # fmt: skip
    """NumPy's histogramdd: bin numbers per axis (outliers in two extra bins), one bincount."""

    s = _sample(rd, sample)
    n_pts, d = s.shape
    w = None if weights is None else array_like(weights, s)
    if isinstance(bins, str) or _ndim(bins) == 0:
        bins = [bins] * d
    elif len(bins) != d:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    if range is None:
        range = (None,) * d
    elif len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    edges, nbin, counts = [], [], []
    for i in builtins.range(d):
        col = s[:, i]
        b = bins[i]
        if _ndim(b) == 0:
            n = _count_index(rd, b) if isinstance(b, Array) else b
            if n < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            lo, hi = outer_edges(rd, col, range[i])
            try:
                n = operator.index(n)
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            e = numpy_linspace(rd, lo, hi, n + 1, s.device)
        elif _ndim(b) == 1:
            e = array_like(b, s)
            if e.shape[0] > 1 and bool(rd.any(e[:-1] > e[1:])):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        edges.append(e)
        nbin.append(e.shape[0] + 1)  # an outlier bin at each end
        # searchsorted's right side puts a value on an edge in the bin above; the last edge
        # belongs to the last bin, not the outliers
        c = rd.searchsorted(e, col, side="right")
        counts.append(c - rd.astype(col == e[-1], rd.int64))
    flat = counts[0] if counts else rd.zeros(n_pts, dtype=rd.int64, device=s.device)
    for c, nb in zip(counts[1:], nbin[1:], strict=True):
        flat = flat * nb + c  # C-order ravel_multi_index
    hist = rd.bincount(flat, weights=w, minlength=math.prod(nbin))
    hist = rd.astype(rd.reshape(hist, tuple(nbin)), rd.float64)[(slice(1, -1),) * d]
    if density:
        total = rd.sum(hist)
        for i, e in enumerate(edges):
            shape = [1] * d
            shape[i] = nbin[i] - 2
            hist = hist / rd.reshape(e[1:] - e[:-1], tuple(shape))
        hist = hist / total
    return hist, [e for e in edges]


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple[Any, Any, Any]:  # fmt: skip
    """NumPy's histogram2d: histogramdd of the points ``(x, y)``."""
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [bins, bins]  # one edges array for both axes
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


def _monotonicity(rd: Any, b: Any) -> int:
    """NumPy's check_array_monotonic: 1 increasing, -1 decreasing, 0 neither (equal leading
    values skipped; the direction set by the first value that differs from the first)."""
    if b.shape[0] < 2:
        return 1
    differs = b[1:] != b[0]
    j = rd.argmax(rd.astype(differs, rd.int8)) + 1
    flags = host(rd, rd.any(differs), b[0] < rd.take(b, j), rd.any(b[:-1] > b[1:]),
                 rd.any(b[:-1] < b[1:]))  # fmt: skip
    if not flags[0]:
        return 1
    if flags[1]:
        return 0 if flags[2] else 1
    return 0 if flags[3] else -1


def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """NumPy's digitize: the bin index of each ``x`` for increasing or decreasing ``bins``."""

    b = bins
    v = array_like(x, b)
    if rd.isdtype(v.dtype, "complex floating"):
        raise TypeError("x may not be complex")
    if b.ndim != 1:
        raise ValueError("object too deep for desired array")
    mono = _monotonicity(rd, b)
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if mono == -1:
        return b.shape[0] - rd.searchsorted(rd.flip(b), v, side=side)
    return rd.searchsorted(b, v, side=side)


compositions({"histogram": histogram, "histogram_bin_edges": histogram_bin_edges,
            "histogram2d": histogram2d, "histogramdd": histogramdd,
            "digitize": digitize})  # fmt: skip


__all__ = ["digitize", "histogram", "histogram2d", "histogram_bin_edges", "histogramdd"]
