"""gradient, convolve, correlate, interp and trapezoid on the GPU backends: NumPy's definitions
as compositions of ruda's device ops (shifted slices, a product of sliding windows with the
kernel, searchsorted and gathers).

Only yes/no answers come back to the host: whether a coordinate array is evenly spaced
(gradient's formula, as NumPy decides it).
"""

from __future__ import annotations

from typing import Any

from .common import (
    Array,
    array_like,
    compositions,
    rd,
)

WINDOW_ELEMENTS = 1 << 24  # correlate: rows of the window matrix per product, times its width


def _value(rd: Any, v: Any) -> Any:
    """A native wrapped as a ruda array; Python and NumPy scalars as they are."""
    return v if isinstance(v, Array) else v


def _ndim(v: Any) -> int:
    import numpy as np

    return v.ndim if hasattr(v, "ndim") else np.ndim(v)


# -- gradient -------------------------------------------------------------------------------------
def _spacings(rd: Any, f: Any, axes: tuple[int, ...], varargs: tuple) -> list[Any]:
    """NumPy's spacing per axis: a scalar (or 0-d array), or the differences of coordinates
    (one 0-d difference when they are evenly spaced)."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and _ndim(varargs[0]) == 0:
        return [_value(rd, varargs[0])] * len(axes)
    if n != len(axes):
        raise TypeError("invalid number of arguments")
    out = []
    for ax, v in zip(axes, varargs, strict=True):
        if _ndim(v) == 0:
            out.append(_value(rd, v))
            continue
        d = array_like(v, f)
        if d.ndim != 1:
            raise ValueError("distances must be either scalars or 1d")
        if d.shape[0] != f.shape[ax]:
            raise ValueError("when 1d, distances must match the length of the corresponding "
                             "dimension")  # fmt: skip
        if rd.isdtype(d.dtype, "integral"):
            d = rd.astype(d, rd.float64)
        diffx = d[1:] - d[:-1]
        out.append(diffx[0] if diffx.shape[0] and bool(rd.all(diffx == diffx[0])) else diffx)
    return out


def _at(nd: int, axis: int, key: Any) -> tuple:
    return (slice(None),) * axis + (key,) + (slice(None),) * (nd - axis - 1)


def _along(rd: Any, v: Any, nd: int, axis: int) -> Any:
    return rd.reshape(v, tuple(-1 if i == axis else 1 for i in range(nd)))


def _edges(dx: Any, uniform: bool, first: bool) -> tuple[Any, Any, Any]:
    """Second-order one-sided coefficients at the first or the last point."""
    if uniform:
        return (-1.5 / dx, 2.0 / dx, -0.5 / dx) if first else (0.5 / dx, -2.0 / dx, 1.5 / dx)
    if first:
        d1, d2 = dx[0], dx[1]
        return (-(2.0 * d1 + d2) / (d1 * (d1 + d2)), (d1 + d2) / (d1 * d2),
                -d1 / (d2 * (d1 + d2)))  # fmt: skip
    d1, d2 = dx[-2], dx[-1]
    return d2 / (d1 * (d1 + d2)), -(d2 + d1) / (d1 * d2), (2.0 * d2 + d1) / (d2 * (d1 + d2))


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """NumPy's gradient: central differences inside, one-sided (first or second order) at the
    edges, for even or uneven spacing; one array per axis."""

    y = f
    nd = y.ndim
    if axis is None:
        axes = tuple(range(nd))
    else:
        axes = tuple(a % nd if -nd <= a < nd else _bad_axis(a, nd)
                     for a in ((axis,) if isinstance(axis, int) else axis))  # fmt: skip
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
    dxs = _spacings(rd, y, axes, varargs)
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if rd.isdtype(y.dtype, "integral"):
        y = rd.astype(y, rd.float64)
    otype = y.dtype if rd.isdtype(y.dtype, ("real floating", "complex floating")) else rd.float64
    outs = []
    for ax, dx in zip(axes, dxs, strict=True):
        if y.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least (edge_order + 1) elements are required.")  # fmt: skip
        out = rd.empty(y.shape, dtype=otype, device=y.device)
        uniform = _ndim(dx) == 0
        lo, mid, hi = (y[_at(nd, ax, s)] for s in (slice(None, -2), slice(1, -1), slice(2, None)))
        if uniform:
            out[_at(nd, ax, slice(1, -1))] = (hi - lo) / (2.0 * dx)
        else:
            d1, d2 = dx[:-1], dx[1:]
            a = _along(rd, -d2 / (d1 * (d1 + d2)), nd, ax)
            b = _along(rd, (d2 - d1) / (d1 * d2), nd, ax)
            c = _along(rd, d1 / (d2 * (d1 + d2)), nd, ax)
            out[_at(nd, ax, slice(1, -1))] = a * lo + b * mid + c * hi
        pick = [y[_at(nd, ax, i)] for i in (0, 1, 2, -3, -2, -1)] if edge_order == 2 else None
        if edge_order == 1:
            first, last = (dx, dx) if uniform else (dx[0], dx[-1])
            out[_at(nd, ax, 0)] = (y[_at(nd, ax, 1)] - y[_at(nd, ax, 0)]) / first
            out[_at(nd, ax, -1)] = (y[_at(nd, ax, -1)] - y[_at(nd, ax, -2)]) / last
        else:
            a, b, c = _edges(dx, uniform, True)
            out[_at(nd, ax, 0)] = a * pick[0] + b * pick[1] + c * pick[2]
            a, b, c = _edges(dx, uniform, False)
            out[_at(nd, ax, -1)] = a * pick[3] + b * pick[4] + c * pick[5]
        outs.append(out)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _bad_axis(a: int, nd: int) -> int:

    raise rd.AxisError(f"axis {a} is out of bounds for array of dimension {nd}")


# -- convolve and correlate -----------------------------------------------------------------------
_MODES = ("valid", "same", "full")


def _lag_products(rd: Any, p: Any, q: Any, mode: str) -> Any:
    """NumPy's _pyarray_correlate for ``len(p) >= len(q)``: ``sum_i p[k + i] * q[i]`` over the
    lags of ``mode``, p zero-padded; each lag a row of a sliding-window view times q."""
    from ..lib.stride_tricks import sliding_window_view

    n = q.shape[0]
    left, right = {"valid": (0, 0), "same": (n // 2, n - 1 - n // 2), "full": (n - 1, n - 1)}[mode]
    rows = p.shape[0] + left + right - n + 1
    if left or right:
        p = rd.concat([rd.zeros(left, dtype=p.dtype, device=p.device), p,
                       rd.zeros(right, dtype=p.dtype, device=p.device)])  # fmt: skip
    windows = sliding_window_view(p, n)  # a view: row k is p[k : k + n]
    step = max(1, WINDOW_ELEMENTS // n)
    parts = [rd.matmul(windows[s : s + step], q) for s in range(0, rows, step)]
    return parts[0] if len(parts) == 1 else rd.concat(parts)


def _pair(rd: Any, a: Any, v: Any) -> tuple[Any, Any, Any]:
    """Both sequences on one device, 1-D, in their common dtype."""
    x = a if isinstance(a, Array) else None
    w = v if isinstance(v, Array) else None
    like = x if x is not None else w
    x = array_like(a, like)
    w = array_like(v, like)
    for t in (x, w):
        if t.ndim > 1:
            raise ValueError("object too deep for desired array")
    x, w = rd.reshape(x, (-1,)), rd.reshape(w, (-1,))
    dt = rd.result_type(x, w)
    return rd.astype(x, dt), rd.astype(w, dt), dt


def _correlate(rd: Any, p: Any, q: Any, mode: str, dt: Any) -> Any:
    if mode not in _MODES:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    if dt == rd.bool:  # NumPy's boolean dot: any(a and b)
        r = _lag_products(rd, rd.astype(p, rd.int64), rd.astype(q, rd.int64), mode)
        return r != 0
    return _lag_products(rd, p, q, mode)


def convolve(a: Any, v: Any, mode: str = "full") -> Any:
    """NumPy's convolve: the longer sequence correlated with the reversed shorter one."""

    x, w, dt = _pair(rd, a, v)
    if w.shape[0] > x.shape[0]:
        x, w = w, x
    if x.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if w.shape[0] == 0:
        raise ValueError("v cannot be empty")
    return _correlate(rd, x, rd.flip(w), mode, dt)


def correlate(a: Any, v: Any, mode: str = "valid") -> Any:
    """NumPy's correlate: ``c[k] = sum_n a[n + k] * conj(v[n])``."""

    x, w, dt = _pair(rd, a, v)
    if x.shape[0] == 0:
        raise ValueError("first array argument cannot be empty")
    if w.shape[0] == 0:
        raise ValueError("second array argument cannot be empty")
    if rd.isdtype(dt, "complex floating"):
        w = rd.conj(w)
    if x.shape[0] < w.shape[0]:  # NumPy swaps the two and reverses the result
        return rd.flip(_correlate(rd, w, x, mode, dt))
    return _correlate(rd, x, w, mode, dt)


# -- interp and trapezoid -------------------------------------------------------------------------
def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Any:  # fmt: skip
    """NumPy's interp: the segment of each x found by searchsorted, NumPy's edge values and
    its fallbacks where the slope formula gives NaN."""

    like = next(v for v in (x, xp, fp) if isinstance(v, Array))
    f = array_like(fp, like)
    work = rd.complex128 if rd.isdtype(f.dtype, "complex floating") else rd.float64
    xv = rd.astype(array_like(x, like), rd.float64)
    xs = rd.astype(array_like(xp, like), rd.float64)
    f = rd.astype(f, work)
    if xs.ndim != 1 or f.ndim != 1:
        raise ValueError("object too deep for desired array")
    if xs.shape[0] != f.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if xs.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        xv, xs = xv % period, xs % period
        order = rd.argsort(xs)
        xs, f = rd.take(xs, order), rd.take(f, order)
        xs = rd.concat([xs[-1:] - period, xs, xs[:1] + period])
        f = rd.concat([f[-1:], f, f[:1]])
    n = xs.shape[0]
    lval = f[0] if left is None else _value(rd, left)
    rval = f[-1] if right is None else _value(rd, right)
    if n == 1:
        r = rd.where(xv < xs[0], lval, rd.where(xv > xs[0], rval, f[0]))
    else:
        j = rd.searchsorted(xs, xv, side="right") - 1  # xs[j] <= x < xs[j + 1]
        k = rd.clip(j, 0, n - 2)
        x0, x1, y0, y1 = rd.take(xs, k), rd.take(xs, k + 1), rd.take(f, k), rd.take(f, k + 1)
        slope = (y1 - y0) / (x1 - x0)
        r = slope * (xv - x0) + y0
        r = rd.where(rd.isnan(r), slope * (xv - x1) + y1, r)
        r = rd.where(rd.isnan(r) & (y0 == y1), y0, r)
        r = rd.where(xv == x0, y0, r)  # an x on a sample point takes its value exactly
        r = rd.where(j == n - 1, f[-1], r)
        r = rd.where(xv > xs[-1], rval, rd.where(xv < xs[0], lval, r))
        r = rd.where(rd.isnan(xv), rd.astype(xv, work), r)  # (one sample point: NaN gets fp[0])
    return rd.astype(r, work)


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1) -> Any:
    """NumPy's trapezoid rule: ``sum(d * (y[1:] + y[:-1]) / 2)`` along ``axis``."""

    yv = y if isinstance(y, Array) else rd.asarray(y, device=x.device)
    nd = yv.ndim
    ax = axis % nd if nd else axis
    if x is None:
        d = _value(rd, dx)
    else:
        xv = array_like(x, yv)
        if xv.ndim == 1:
            d = _along(rd, xv[1:] - xv[:-1], nd, ax)
        else:
            d = rd.diff(xv, axis=ax)
    hi, lo = yv[_at(nd, ax, slice(1, None))], yv[_at(nd, ax, slice(None, -1))]
    return rd.sum(d * (hi + lo) / 2.0, axis=ax)


compositions({"gradient": gradient, "convolve": convolve, "correlate": correlate,
            "interp": interp, "trapezoid": trapezoid})  # fmt: skip


__all__ = ["WINDOW_ELEMENTS", "convolve", "correlate", "gradient", "interp",
           "trapezoid"]  # fmt: skip
