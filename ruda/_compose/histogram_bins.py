"""How ``histogram`` picks its bins on the GPU backends: the outer edges and NumPy's bin-width
estimators ('auto', 'fd', 'sturges', ...), over a device array.

The data stays on the device; what comes back are the scalars that decide the number of bins
(min and max, a standard deviation, two percentiles), computed there and read once each.
Arithmetic on those host scalars is NumPy's, so the bin counts are NumPy's.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._dtypes import kind_of, to_numpy


def host(rd: Any, *values: Any) -> list[Any]:
    """0-d device arrays (one dtype) read back in one transfer, as NumPy scalars."""
    return list(rd.stack(list(values)).to_device("cpu"))


def unsigned_subtract(a: Any, b: Any) -> Any:
    """NumPy's ``a - b`` for bin widths: signed integers subtract in the unsigned type (no
    overflow for a range spanning the whole type)."""
    dt = np.result_type(a, b)
    if kind_of(dt) == "i":
        u = np.dtype(f"u{dt.itemsize}")
        return np.subtract(np.asarray(a, dt), np.asarray(b, dt), casting="unsafe", dtype=u)
    return np.subtract(a, b, dtype=dt)


def outer_edges(rd: Any, a: Any, rng: Any) -> tuple[Any, Any]:
    """The first and last edges: ``range``, else the data's min and max (read back)."""
    if rng is not None:
        first, last = rng
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        first, last = host(rd, rd.min(a), rd.max(a))
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def numpy_linspace(rd: Any, first: Any, last: Any, num: int, device: Any) -> Any:
    """NumPy's ``linspace(first, last, num)`` bit for bit: the arithmetic in the type NumPy
    picks from the (host scalar) ends, which ruda's linspace keeps as NumPy scalars."""
    dt = np.result_type(first, last, float(num))
    return rd.linspace(dt.type(first), dt.type(last), num, dtype=rd.dtype(dt.name), device=device)


def equal_edges(rd: Any, a: Any, first: Any, last: Any, n: int) -> Any:
    """The edges of ``n`` equal bins, in NumPy's type for them (at least float64 for integers)."""
    bin_type = np.result_type(first, last, to_numpy(a.dtype))
    if bin_type.kind in "iub":
        bin_type = np.result_type(bin_type, float)
    return rd.astype(numpy_linspace(rd, first, last, n + 1, a.device), rd.dtype(bin_type.name))


def _py(v: Any) -> Any:
    """A host NumPy scalar as a Python number (ruda's scalar operands)."""
    return v.item() if isinstance(v, np.generic) else v


def uniform_counts(rd: Any, a: Any, edges: Any, first: Any, last: Any, n: int, w: Any) -> Any:
    """Counts (or summed weights) in ``n`` equal bins from ``first`` to ``last``, as NumPy
    computes them: scaled and truncated, corrected against the edges, the last bin closed."""
    keep = (a >= _py(first)) & (a <= _py(last))
    # Values outside the range (and NaN) sit at first_edge for the arithmetic, then in bin n.
    x = rd.where(keep, rd.astype(a, edges.dtype), rd.asarray(_py(first), dtype=edges.dtype,
                                                              device=a.device))  # fmt: skip
    f = (x - _py(first)) / _py(unsigned_subtract(last, first)) * n
    idx = rd.astype(f, rd.int64)
    idx = rd.where(idx == n, n - 1, idx)
    idx = idx - rd.astype(x < rd.take(edges, idx), rd.int64)
    up = (x >= rd.take(edges, idx + 1)) & (idx != n - 1)
    idx = rd.where(keep, idx + rd.astype(up, rd.int64), n)
    if w is None:
        return rd.bincount(idx, minlength=n + 1)[:n]
    if rd.isdtype(w.dtype, "complex floating"):
        re = rd.bincount(idx, weights=rd.real(w), minlength=n + 1)[:n]
        im = rd.bincount(idx, weights=rd.imag(w), minlength=n + 1)[:n]
        return rd.astype(re, w.dtype) + 1j * rd.astype(im, w.dtype)
    return rd.astype(rd.bincount(idx, weights=w, minlength=n + 1)[:n], w.dtype)


def _ptp(rd: Any, x: Any) -> Any:
    lo, hi = host(rd, rd.min(x), rd.max(x))
    return unsigned_subtract(hi, lo)


def _sqrt(rd: Any, x: Any, rng: Any) -> Any:
    return _ptp(rd, x) / np.sqrt(x.size)


def _sturges(rd: Any, x: Any, rng: Any) -> Any:
    return _ptp(rd, x) / (np.log2(x.size) + 1.0)


def _rice(rd: Any, x: Any, rng: Any) -> Any:
    return _ptp(rd, x) / (2.0 * x.size ** (1.0 / 3))


def _scott(rd: Any, x: Any, rng: Any) -> Any:
    return (24.0 * np.pi**0.5 / x.size) ** (1.0 / 3.0) * host(rd, rd.std(x))[0]


def _stone(rd: Any, x: Any, rng: Any) -> Any:
    n, ptp_x = x.size, _ptp(rd, x)
    if n <= 1 or ptp_x == 0:
        return 0
    upper = max(100, int(np.sqrt(n)))
    scores = []
    for nbins in range(1, upper + 1):  # the estimated ISE of each bin count, on the device
        p = uniform_counts(rd, x, equal_edges(rd, x, *rng, nbins), *rng, nbins, None) / n
        scores.append((2 - (n + 1) * rd.vecdot(p, p)) / (ptp_x / nbins))
    nbins = int(host(rd, rd.argmin(rd.stack(scores)))[0]) + 1  # min(): the first minimum
    if nbins == upper:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning,
                      stacklevel=5)  # fmt: skip
    return ptp_x / nbins


def _doane(rd: Any, x: Any, rng: Any) -> Any:
    if x.size > 2:
        sg1 = np.sqrt(6.0 * (x.size - 2) / ((x.size + 1.0) * (x.size + 3)))
        sigma = host(rd, rd.std(x))[0]
        if sigma > 0.0:
            g1 = host(rd, rd.mean(((x - rd.mean(x)) / sigma) ** 3))[0]
            return _ptp(rd, x) / (1.0 + np.log2(x.size) + np.log2(1.0 + np.absolute(g1) / sg1))
    return 0.0


def _fd(rd: Any, x: Any, rng: Any) -> Any:
    q75, q25 = host(rd, *rd.percentile(x, [75, 25]))
    return 2.0 * np.subtract(q75, q25) * x.size ** (-1.0 / 3.0)


def _auto(rd: Any, x: Any, rng: Any) -> Any:
    fd_corrected = max(_fd(rd, x, rng), _sqrt(rd, x, rng) / 2)
    return min(fd_corrected, _sturges(rd, x, rng))


ESTIMATORS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "stone": _stone, "auto": _auto, "doane": _doane, "fd": _fd, "rice": _rice,
    "scott": _scott, "sqrt": _sqrt, "sturges": _sturges,
}  # fmt: skip


def count_for(rd: Any, a: Any, name: str, rng: Any) -> tuple[Any, Any, int]:
    """The outer edges and NumPy's number of equal bins for the estimator ``name``."""
    if name not in ESTIMATORS:
        raise ValueError(f"{name!r} is not a valid estimator for `bins`")
    first, last = outer_edges(rd, a, rng)
    if rng is not None:  # the estimators see only the data inside the range
        keep = (a >= first) & (a <= last)
        if not bool(rd.all(keep)):
            a = a[keep]
    if a.size == 0:
        return first, last, 1
    width = ESTIMATORS[name](rd, a, (first, last))
    if not width:
        return first, last, 1
    if rd.isdtype(a.dtype, "integral") and width < 1:
        width = 1
    return first, last, int(np.ceil(unsigned_subtract(last, first) / width))


__all__ = ["ESTIMATORS", "count_for", "equal_edges", "host", "numpy_linspace", "outer_edges",
           "uniform_counts", "unsigned_subtract"]  # fmt: skip
