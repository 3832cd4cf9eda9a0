"""diff, bincount and median on the GPU backends: compositions of ruda's device ops.

Each takes and returns the backend's native arrays, like every op in a ``LIBRARY``; inside, the
natives are wrapped as ruda arrays on their device and the work is ruda's own device functions
(slicing and subtract; radix sort, searchsorted and prefix sums; masked reductions). Nothing
runs on the host except reading back the scalars that fix a result's shape (bincount's length),
as NumPy-compatible GPU libraries must.
"""

from __future__ import annotations

import math
from typing import Any

from .common import (
    Array,
    compositions,
    rd,
)

# bincount with weights: a one-hot masked sum (exact, like NumPy's loop) up to this many bins;
# above it, differences of a prefix sum over the sorted weights (O(n log n) instead of O(n K)).
ONE_HOT_BINS = 256
ONE_HOT_ELEMENTS = 1 << 22  # rows per chunk of the one-hot sum: chunk * bins stays this small


def diff(x: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """``n``-th differences along ``axis``: views of neighbours and one subtract per order."""
    a = x
    ax = axis % a.ndim
    parts = []
    for v in (prepend, x, append):
        if v is None:
            continue
        p = v if isinstance(v, Array) else rd.asarray(v, device=a.device)
        if p.ndim == 0:  # NumPy broadcasts a 0-d prepend/append to one slice along axis
            p = rd.broadcast_to(p, a.shape[:ax] + (1,) + a.shape[ax + 1 :])
        parts.append(p)
    if len(parts) > 1:
        a = rd.concat(parts, axis=ax)
    hi = (slice(None),) * ax + (slice(1, None),)
    lo = (slice(None),) * ax + (slice(None, -1),)
    for _ in range(n):
        # Note: NumPy's diff of booleans is not_equal (subtract is undefined for bool).
        a = rd.not_equal(a[hi], a[lo]) if a.dtype == rd.bool else rd.subtract(a[hi], a[lo])
    return a


def bincount(x: Any, weights: Any = None, minlength: int = 0) -> Any:
    """Counts (or summed weights) of each value of the non-negative integers ``x``."""
    a = x
    if minlength < 0:
        raise ValueError("ruda.bincount: minlength must be non-negative")
    w = None if weights is None else weights
    if w is not None and w.shape != a.shape:
        raise ValueError("ruda.bincount: the weights and list don't have the same length.")
    out_dt = rd.int64 if w is None else rd.float64
    if a.size == 0:
        return rd.zeros(minlength, dtype=out_dt, device=a.device)
    a = rd.astype(a, rd.int64)
    lo_hi = rd.stack([rd.min(a), rd.max(a)]).to_device("cpu")  # one read-back: the length
    if int(lo_hi[0]) < 0:
        raise ValueError("ruda.bincount: x must have no negative elements")
    k = max(int(lo_hi[1]) + 1, minlength)
    if w is not None and k <= ONE_HOT_BINS:
        return _one_hot_sum(rd, a, rd.astype(w, out_dt), k)
    keys = rd.sort(a) if w is None else None
    order = None if w is None else rd.argsort(a, stable=True)
    if order is not None:
        keys = rd.take(a, order)
    pos = rd.searchsorted(keys, rd.arange(k + 1, dtype=rd.int64, device=a.device))
    if w is None:
        return pos[1:] - pos[:-1]
    # Note: each bin's sum is a difference of prefix sums, rounded to ~eps * sum(|w|) rather
    # than NumPy's per-bin running sum (the one-hot path above is exact for few bins).
    c = rd.cumulative_sum(rd.take(rd.astype(w, out_dt), order), include_initial=True)
    return rd.take(c, pos[1:]) - rd.take(c, pos[:-1])


def _one_hot_sum(rd: Any, a: Any, w: Any, k: int) -> Any:
    bins = rd.arange(k, dtype=rd.int64, device=a.device)
    step = max(1, ONE_HOT_ELEMENTS // k)
    total = None
    for s in range(0, a.shape[0], step):
        hit = a[s : s + step, None] == bins
        part = rd.sum(rd.where(hit, w[s : s + step, None], 0.0), axis=0)
        total = part if total is None else total + part
    return total


def rows_over(rd: Any, a: Any, axis: Any) -> tuple[Any, tuple[int, ...], tuple[int, ...], int]:
    """``a`` with the axes ``axis`` names moved last and merged into one of length n: (those rows,
    the kept shape, the reduced axes in order, n), for the order statistics."""
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = tuple(sorted(v % nd for v in axes)) if nd else ()
    keep = tuple(i for i in range(nd) if i not in axes)
    kept = tuple(a.shape[i] for i in keep)
    n = math.prod(a.shape[i] for i in axes)
    return rd.reshape(rd.permute_dims(a, keep + axes), kept + (n,)), kept, axes, n


def median(x: Any, axis: Any = None, overwrite_input: bool = False, keepdims: bool = False,
           out: Any = None) -> Any:  # fmt: skip
    """NumPy's median: sort along the axes, then the middle element or the mean of the two."""
    a = x
    a, kept_shape, axes, n = rows_over(rd, a, axis)
    rdt = rd.float64 if a.dtype in (rd.bool,) or rd.isdtype(a.dtype, "integral") else a.dtype
    if n == 0:  # NumPy: nan (with a "Mean of empty slice" warning)
        r = rd.full(kept_shape, rd.nan, dtype=rdt, device=a.device)
    else:
        s = rd.astype(rd.sort(a, axis=-1), rdt)
        r = s[..., (n - 1) // 2]
        if n % 2 == 0:
            r = (r + s[..., n // 2]) / 2
        if rd.isdtype(rdt, ("real floating", "complex floating")):  # NaNs sort last: any NaN
            # makes the median NaN (complex: the last one in NumPy's order, as NumPy returns)
            r = rd.where(rd.isnan(s[..., -1]), s[..., -1], r)
    if keepdims:
        r = rd.reshape(r, tuple(1 if i in axes else a_i for i, a_i in enumerate(x.shape)))
    if out is not None:
        out[...] = r
        return out
    return r


compositions({"diff": diff, "bincount": bincount, "median": median})


__all__ = ["ONE_HOT_BINS", "bincount", "diff", "median"]
