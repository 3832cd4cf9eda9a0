"""quantile, percentile, nanquantile, nanpercentile and nanmedian on the GPU backends: a device
sort along the reduced axes, then gathers at NumPy's virtual indices (methods linear, lower,
higher, nearest, midpoint). The nan-aware forms index within each slice's non-NaN count (NaNs
sort last). Nothing is read back except the "q within [0, 1]" check of a device ``q``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._dtypes import kind_of
from .common import (
    Array,
    composition,
    rd,
)
from .stats import rows_over

METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _lerp(rd: Any, a: Any, b: Any, t: Any) -> Any:
    # NumPy's _lerp: from the nearer end, so t = 1 gives b exactly; no a == b shortcut, so
    # equal infinite ends give NaN (inf - inf) as NumPy's do.
    d = b - a
    return rd.where(t >= 0.5, b - d * (1 - t), a + d * t)


def _q_dtype(q: Any) -> np.dtype:
    """``q``'s NumPy dtype (a native array's, or that of the Python numbers or sequence)."""
    dtype = getattr(q, "dtype", None)
    return np.asarray(q).dtype if dtype is None else np.dtype(str(dtype))


def _gathers(q: Any, method: str, fname: str) -> bool:
    """NumPy takes the elements themselves (no interpolation, the input's dtype): lower, higher
    and nearest, and linear at integer quantiles (quantile's q, not percentile's q / 100)."""
    if method in ("lower", "higher", "nearest"):
        return True
    if method != "linear" or "percentile" in fname:
        return False
    return kind_of(_q_dtype(q)) in "iu"


def _interp_dtype(x_dtype: np.dtype, q: Any, fname: str) -> np.dtype:
    """NumPy's interpolated result: the input's dtype with the weight's, a Python ``q`` weak."""
    if x_dtype == np.bool_:  # NumPy's lerp subtracts: undefined for bool
        raise TypeError(f"ruda.{fname}: boolean input cannot be interpolated")
    if type(q) in (int, float):
        return x_dtype if x_dtype.kind == "f" else np.dtype(np.float64)
    qdt = _q_dtype(q)
    return np.result_type(x_dtype, qdt if kind_of(qdt) == "f" else np.float64)


def _quantile(fname: str, x: Any, q: Any, axis: Any, method: str, keepdims: bool,
              nan_aware: bool, scale: float, out: Any, weights: Any) -> Any:  # fmt: skip
    a = x
    if rd.isdtype(a.dtype, "complex floating") and method != "median":  # NumPy's error
        raise TypeError(f"ruda.{fname}: a must be an array of real numbers, got {a.dtype}")
    if weights is not None:
        raise NotImplementedError(f"ruda.{fname}: weights= is not implemented on GPU yet")
    if method not in METHODS and method != "median":
        raise NotImplementedError(f"ruda.{fname}: method={method!r} is not implemented on GPU "
                                  f"yet (only {', '.join(METHODS)})")  # fmt: skip
    qa = q if isinstance(q, Array) else rd.asarray(q, dtype=rd.float64, device=a.device)
    qa = rd.astype(qa, rd.float64) / scale if scale != 1 else rd.astype(qa, rd.float64)
    if qa.size and bool(rd.any((qa < 0) | (qa > 1) | rd.isnan(qa)).to_device("cpu")):
        raise ValueError(f"ruda.{fname}: Quantiles must be in the range [0, 1]")
    nd = a.ndim
    rows, kept, axes, n = rows_over(rd, a, axis)
    floating = rd.isdtype(a.dtype, ("real floating", "complex floating"))  # complex: nanmedian
    if method == "median":  # NumPy's nanmedian: a mean, in the input's float type
        rdt = a.dtype if floating else rd.float64
    elif _gathers(q, method, fname):
        rdt = a.dtype
    else:
        rdt = getattr(rd, str(_interp_dtype(np.dtype(str(a.dtype)), q, fname)))
    s = rd.sort(rd.astype(rows, rdt), axis=-1)
    if nan_aware and floating:
        cnt = rd.astype(rd.sum(rd.astype(~rd.isnan(s), rd.int64), axis=-1, keepdims=True),
                        rd.float64)  # fmt: skip
    else:
        cnt = rd.full(kept + (1,), float(n), dtype=rd.float64, device=a.device)
    qq = rd.reshape(qa, qa.shape + (1,) * (len(kept) + 1))
    v = qq * (cnt - 1)  # NumPy's virtual index, shape q + kept + (1,)
    if method == "midpoint":
        v = (rd.floor(v) + rd.ceil(v)) / 2
    lo = rd.floor(v)
    # NumPy interpolates towards the next element even at a whole index (weight 0), so an
    # infinite neighbour gives NaN (inf * 0) as NumPy's does; the median's pair is the two middles.
    hi = rd.ceil(v) if method == "median" else rd.minimum(lo + 1, rd.maximum(cnt - 1, 0))
    sb = rd.broadcast_to(s, v.shape[:-1] + (n,))

    def at(i: Any) -> Any:
        i = rd.astype(rd.clip(i, 0, max(n - 1, 0)), rd.int64)
        return rd.take_along_axis(sb, i, axis=-1)[..., 0]

    if n == 0:
        if not nan_aware and math.prod(v.shape[:-1]):  # NumPy's take from an empty axis
            raise IndexError(f"ruda.{fname}: cannot take a quantile of an empty axis")
        rdt = rdt if rd.isdtype(rdt, "real floating") else rd.float64
        r = rd.full(v.shape[:-1], rd.nan, dtype=rdt, device=a.device)
    elif method == "lower":
        r = at(rd.floor(v))
    elif method == "higher":
        r = at(rd.ceil(v))
    elif method == "nearest":
        r = at(rd.round(v))  # NumPy rounds half to even here too
    elif method == "median":  # the middle one, or the mean of the two
        a_lo, a_hi = at(lo), at(hi)
        r = rd.where((lo == hi)[..., 0], a_lo, (a_lo + a_hi) / 2)
    elif _gathers(q, method, fname):  # linear at integer quantiles
        r = at(lo)
    else:  # linear and midpoint (NumPy: weight 0.5 off a whole index, 0 on one)
        t = v - lo if method == "linear" else rd.where(v == lo, 0.0, 0.5)
        r = _lerp(rd, at(lo), at(hi), rd.astype(t, rdt)[..., 0])
    if n:
        if nan_aware and floating:
            r = rd.where(cnt[..., 0] == 0, rd.nan, r)  # an all-NaN slice
        elif floating:
            r = rd.where(rd.isnan(s[..., -1]), s[..., -1], r)  # any NaN makes it NaN
    r = rd.astype(r, rdt)
    if keepdims:
        r = rd.reshape(r, qa.shape + tuple(1 if i in axes else a.shape[i] for i in range(nd)))
    if out is not None:
        out[...] = r
        return out
    return r


def _make(fname: str, nan_aware: bool, scale: float) -> Any:
    def fn(x: Any, q: Any, axis: Any = None, method: str = "linear",
           overwrite_input: bool = False, keepdims: bool = False, out: Any = None,
           weights: Any = None) -> Any:  # fmt: skip
        return _quantile(fname, x, q, axis, method, keepdims, nan_aware, scale, out, weights)

    fn.__name__ = fname
    return fn


def nanmedian(x: Any, axis: Any = None, overwrite_input: bool = False, keepdims: bool = False,
              out: Any = None) -> Any:  # fmt: skip
    """The median of the non-NaN elements (NaN for an all-NaN slice)."""
    return _quantile("nanmedian", x, 0.5, axis, "median", keepdims, True, 1.0, out, None)


for _name in ("quantile", "percentile", "nanquantile", "nanpercentile"):
    _scale = 100.0 if "percentile" in _name else 1.0
    composition(_name)(_make(_name, _name.startswith("nan"), _scale))
composition("nanmedian")(nanmedian)


__all__ = ["METHODS", "nanmedian"]
