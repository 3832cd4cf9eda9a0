"""NumPy's nan-aware reductions, scans and arg-reductions (nansum ... nanargmax) and ptp on the
GPU backends: compositions of ruda's device ops.

NaN is masked with the reduction's identity by ``where`` on the device, then the plain device
reduction runs; the NaN count (``sum(~isnan)``) gives means and spreads. Nothing runs on the host
except nanargmax/nanargmin's one read-back of "is any slice all NaN", which NumPy turns into
a ValueError.
"""

from __future__ import annotations

from typing import Any

from .common import (
    Array,
    compositions,
    rd,
)

# Absent optional keywords arrive as None: ruda's front end leaves NumPy's _NoValue ones out.
_NoValue = None


def _has_nan(rd: Any, a: Any) -> bool:
    # Only the floating kinds hold NaN; integers and booleans reduce as they are.
    return rd.isdtype(a.dtype, ("real floating", "complex floating"))


def _masked(rd: Any, a: Any, fill: float, where: Any) -> Any:
    """``a`` with NaN (and the where=False elements) replaced by ``fill``."""
    keep = ~rd.isnan(a) if _has_nan(rd, a) else None
    if where is not True:
        w = where if isinstance(where, Array) else rd.asarray(where, device=a.device)
        keep = w if keep is None else keep & w
    return a if keep is None else rd.where(keep, a, rd.asarray(fill, dtype=a.dtype,
                                                                 device=a.device))  # fmt: skip


def _out(rd: Any, r: Any, out: Any) -> Any:
    if out is None:
        return r
    out[...] = r
    return out


def _nan_sum(fname: str, fill: float) -> Any:
    def fn(x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None, out: Any = None,
           where: Any = True, initial: Any = _NoValue) -> Any:  # fmt: skip
        a = x
        kw = {} if initial is None else {"initial": initial}
        r = getattr(rd, fname)(_masked(rd, a, fill, where), axis=axis, keepdims=keepdims,
                               dtype=dtype, **kw)  # fmt: skip
        return _out(rd, r, out)

    fn.__name__ = "nan" + fname
    return fn


def _nan_extreme(fname: str) -> Any:
    def fn(x: Any, axis: Any = None, keepdims: bool = False, out: Any = None, where: Any = True,
           initial: Any = _NoValue) -> Any:  # fmt: skip
        a = x
        given = initial is not None
        if where is not True and not given:
            raise ValueError(f"ruda.nan{fname}: where= needs initial= (a slice may be empty)")
        fill = -rd.inf if fname == "max" else rd.inf
        if not _has_nan(rd, a):
            if a.dtype == rd.bool:  # iinfo has no bool: the identity is False for max
                fill = fname == "min"
            else:
                fill = rd.iinfo(a.dtype).min if fname == "max" else rd.iinfo(a.dtype).max
        r = getattr(rd, fname)(_masked(rd, a, fill, where), axis=axis, keepdims=keepdims,
                               **({"initial": initial} if given else {}))  # fmt: skip
        if _has_nan(rd, a) and not given:
            # Note: an all-NaN slice gives NaN like NumPy, without its RuntimeWarning.
            r = rd.where(rd.all(rd.isnan(a), axis=axis, keepdims=keepdims), rd.nan, r)
        return _out(rd, r, out)

    fn.__name__ = "nan" + fname
    return fn


def _count(rd: Any, a: Any, axis: Any, keepdims: bool, where: Any) -> Any:
    """How many elements each slice keeps (not NaN, where= true), as float64."""
    ones = rd.ones(a.shape, dtype=rd.float64, device=a.device)
    if _has_nan(rd, a):
        ones = rd.where(rd.isnan(a), 0.0, ones)
    return rd.sum(_masked(rd, ones, 0.0, where), axis=axis, keepdims=keepdims)


def _mean_dtype(rd: Any, a: Any, dtype: Any) -> Any:
    if dtype is not None:
        return dtype
    return a.dtype if _has_nan(rd, a) else rd.float64


def nanmean(x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None, out: Any = None,
            where: Any = True) -> Any:  # fmt: skip
    """Mean of the non-NaN elements (NaN where a slice has none)."""
    a = x
    dt = _mean_dtype(rd, a, dtype)
    s = rd.sum(rd.astype(_masked(rd, a, 0, where), dt), axis=axis, keepdims=keepdims)
    c = _count(rd, a, axis, keepdims, where)
    return _out(rd, rd.astype(s / rd.astype(c, s.dtype), dt), out)


def _nan_spread(sqrt: bool) -> Any:
    def fn(x: Any, axis: Any = None, ddof: float = 0, keepdims: bool = False, dtype: Any = None,
           out: Any = None, where: Any = True, mean: Any = _NoValue) -> Any:  # fmt: skip
        a = x
        dt = _mean_dtype(rd, a, dtype)
        b = rd.astype(_masked(rd, a, 0, where), dt)
        c = _count(rd, a, axis, True, where)
        if mean is None:
            m = rd.sum(b, axis=axis, keepdims=True) / rd.astype(c, dt)
        else:
            m = mean
        d = _masked(rd, a, 0, where) - m
        d = rd.where(rd.isnan(a), 0, d) if _has_nan(rd, a) else d
        sq = rd.real(d * rd.conj(d)) if rd.isdtype(d.dtype, "complex floating") else d * d
        dof = c - ddof
        total = rd.sum(sq, axis=axis, keepdims=True)
        if _has_nan(rd, a):
            # Note: NumPy also gives NaN where dof <= 0, with a RuntimeWarning ruda does not emit.
            v = rd.where(dof > 0, total / rd.astype(dof, sq.dtype), rd.nan)
        else:  # NumPy's nanvar of a NaN-free dtype is var: over max(dof, 0) (inf, or 0/0 NaN)
            v = total / rd.astype(rd.maximum(dof, 0.0), sq.dtype)
        if sqrt:
            v = rd.sqrt(v)
        if not keepdims:
            v = rd.squeeze(v, axis=_axes(a.ndim, axis)) if a.ndim else v
        return _out(rd, v, out)

    fn.__name__ = "nanstd" if sqrt else "nanvar"
    return fn


def _axes(nd: int, axis: Any) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(nd))
    return tuple(v % nd for v in ((axis,) if isinstance(axis, int) else axis))


def _nan_scan(fname: str, fill: float) -> Any:
    def fn(x: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        a = x
        r = getattr(rd, fname)(_masked(rd, a, fill, True), axis=axis, dtype=dtype)
        return _out(rd, r, out)

    fn.__name__ = "nan" + fname
    return fn


def _nan_arg(fname: str) -> Any:
    def fn(x: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        a = x
        if _has_nan(rd, a):
            nan = rd.isnan(a)
            if bool(rd.any(rd.all(nan, axis=axis)).to_device("cpu")):  # one read-back
                raise ValueError(f"ruda.nan{fname}: All-NaN slice encountered")
            a = rd.where(nan, -rd.inf if fname == "argmax" else rd.inf, a)
        r = getattr(rd, fname)(a, axis=axis, keepdims=keepdims)
        return _out(rd, r, out)

    fn.__name__ = "nan" + fname
    return fn


def ptp(x: Any, axis: Any = None, keepdims: bool = False, out: Any = None) -> Any:
    """Range (max - min) along ``axis``, in the input's dtype (integers wrap, like NumPy)."""
    a = x
    r = rd.max(a, axis=axis, keepdims=keepdims) - rd.min(a, axis=axis, keepdims=keepdims)
    return _out(rd, r, out)


compositions({
        "nansum": _nan_sum("sum", 0), "nanprod": _nan_sum("prod", 1),
        "nanmax": _nan_extreme("max"), "nanmin": _nan_extreme("min"), "nanmean": nanmean,
        "nanvar": _nan_spread(False), "nanstd": _nan_spread(True),
        "nancumsum": _nan_scan("cumsum", 0), "nancumprod": _nan_scan("cumprod", 1),
        "nanargmax": _nan_arg("argmax"), "nanargmin": _nan_arg("argmin"), "ptp": ptp,
    })  # fmt: skip


__all__ = ["nanmean", "ptp"]
