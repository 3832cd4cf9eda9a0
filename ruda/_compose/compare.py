"""isclose, allclose, array_equal, array_equiv, put_along_axis, unravel_index and
ravel_multi_index on the GPU backends: NumPy's definitions composed of ruda's device ops.

allclose/array_equal/array_equiv return Python bools, so each reads back one boolean.
"""

from __future__ import annotations

import math
from typing import Any

from .common import (
    Array,
    compositions,
    rd,
)


def _pair(a: Any, b: Any) -> tuple[Any, Any, Any]:
    like = a if isinstance(a, Array) else b
    x = like
    wrap = lambda v: v if isinstance(v, Array) else rd.asarray(v, device=x.device)  # noqa: E731
    return rd, wrap(a), wrap(b)


def _isclose(rd: Any, x: Any, y: Any, rtol: float, atol: float, equal_nan: bool) -> Any:
    dt = rd.result_type(x, y, 1.0)  # NumPy compares in (at least) a float dtype
    x, y = rd.astype(x, dt), rd.astype(y, dt)
    close = (rd.abs(x - y) <= atol + rtol * rd.abs(y)) & rd.isfinite(y)
    r = close | (x == y)  # equal infinities
    if equal_nan:
        r = r | (rd.isnan(x) & rd.isnan(y))
    return r


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Any:  # fmt: skip
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (equal infinities are close)."""
    rd, x, y = _pair(a, b)
    return _isclose(rd, x, y, rtol, atol, equal_nan)


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:  # fmt: skip
    """Whether every pair is close (one boolean read back)."""
    rd, x, y = _pair(a, b)
    return bool(rd.all(_isclose(rd, x, y, rtol, atol, equal_nan)).to_device("cpu"))


def _equal(rd: Any, x: Any, y: Any, equal_nan: bool) -> bool:
    eq = x == y
    if equal_nan and any(rd.isdtype(v.dtype, ("real floating", "complex floating"))
                         for v in (x, y)):  # fmt: skip
        eq = eq | (rd.isnan(x) & rd.isnan(y))
    return bool(rd.all(eq).to_device("cpu"))


def array_equal(a: Any, b: Any, equal_nan: bool = False) -> bool:
    """Same shape and equal elements (NaNs equal when ``equal_nan``)."""
    rd, x, y = _pair(a, b)
    return x.shape == y.shape and _equal(rd, x, y, equal_nan)


def array_equiv(a: Any, b: Any) -> bool:
    """Broadcastable shapes and equal elements."""
    rd, x, y = _pair(a, b)
    try:
        x, y = rd.broadcast_arrays(x, y)
    except ValueError:
        return False
    return _equal(rd, x, y, False)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """``arr`` at ``indices`` matched along ``axis`` set to ``values``: one flat ``put``."""
    a = arr
    idx = indices
    if axis is None:
        rd.put(a, rd.reshape(idx, (-1,)), values if not isinstance(values, Array) else
               values)  # fmt: skip
        return
    if idx.ndim != a.ndim:
        raise ValueError(f"ruda.put_along_axis: indices has {idx.ndim} dimensions, arr {a.ndim}")
    idx = rd.astype(idx, rd.int64)
    idx = rd.where(idx < 0, idx + a.shape[axis], idx)
    shape = tuple(n if d == axis else m if n in (1, m) else n if m == 1 else -1
                  for d, (n, m) in enumerate(zip(idx.shape, a.shape, strict=True)))  # fmt: skip
    if -1 in shape:
        raise ValueError("ruda.put_along_axis: indices do not broadcast against arr")
    strides = [math.prod(a.shape[d + 1 :]) for d in range(a.ndim)]
    flat = rd.zeros(shape, dtype=rd.int64, device=a.device)
    for d in range(a.ndim):
        if d == axis:
            part = idx
        else:
            part = rd.reshape(rd.arange(shape[d], dtype=rd.int64, device=a.device),
                              tuple(-1 if k == d else 1 for k in range(a.ndim)))  # fmt: skip
        flat = flat + part * strides[d]
    v = values if isinstance(values, Array) else rd.asarray(values, dtype=a.dtype,
                                                                      device=a.device)  # fmt: skip
    rd.put(a, rd.reshape(flat, (-1,)), rd.reshape(rd.broadcast_to(v, shape), (-1,)))


def _dims_strides(dims: Any, order: str) -> list[int]:
    dims = tuple(int(d) for d in dims)
    if order == "C":
        return [math.prod(dims[k + 1 :]) for k in range(len(dims))]
    return [math.prod(dims[:k]) for k in range(len(dims))]


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[Any, ...]:
    """Coordinates in an array of ``shape`` of the flat ``indices``."""
    i = indices
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    size = math.prod(shape)
    i = rd.astype(i, rd.int64)
    if i.size and bool(rd.any((i < 0) | (i >= size)).to_device("cpu")):  # one read-back
        raise ValueError(f"ruda.unravel_index: index out of bounds for an array of size {size}")
    st = _dims_strides(shape, order)
    return tuple((i // s % n) for n, s in zip(shape, st, strict=True))


def ravel_multi_index(multi_index: Any, dims: Any, mode: str = "raise",
                      order: str = "C") -> Any:  # fmt: skip
    """Flat indices of the coordinate arrays ``multi_index`` in an array of shape ``dims``."""
    dims = tuple(int(d) for d in dims)
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    cs = [rd.astype(c, rd.int64) for c in multi_index]
    if len(cs) != len(dims):
        raise ValueError(f"ruda.ravel_multi_index: {len(cs)} index arrays for {len(dims)} dims")
    flat = None
    for c, n, m, s in zip(cs, dims, modes, _dims_strides(dims, order), strict=True):
        if m == "wrap":
            c = c % n
        elif m == "clip":
            c = rd.clip(c, 0, n - 1)
        elif bool(rd.any((c < 0) | (c >= n)).to_device("cpu")):  # one read-back: NumPy raises
            raise ValueError("ruda.ravel_multi_index: invalid entry in coordinates array")
        flat = c * s if flat is None else flat + c * s
    return flat


def _value(rd: Any, v: Any, like: Any) -> Any:
    return v if isinstance(v, Array) else v


def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    """``choices[a[i]][i]`` for each ``i`` (all broadcast together): one ``where`` per choice."""
    i = a
    chs = [_value(rd, c, i) for c in (choices if isinstance(choices, list) else
                                      [c for c in choices])]  # fmt: skip
    n = len(chs)
    if mode == "wrap":
        i = i % n
    elif mode == "clip":
        i = rd.clip(i, 0, n - 1)
    elif bool(rd.any((i < 0) | (i >= n)).to_device("cpu")):  # one read-back: NumPy raises
        raise ValueError("ruda.choose: invalid entry in choice array")
    r = chs[0]
    for k in range(1, n):
        r = rd.where(i == k, chs[k], r)
    r = rd.broadcast_to(
        r if hasattr(r, "shape") else rd.asarray(r, device=i.device),
        rd.broadcast_arrays(i, *[c for c in chs if hasattr(c, "shape")])[0].shape,
    )
    if out is not None:
        out[...] = r
        return out
    return r


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
    """The first choice whose condition holds, else ``default``: ``where`` from the last one."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    like = next(v for v in (*condlist, *choicelist) if isinstance(v, Array))
    x = like
    conds = [_value(rd, c, x) for c in condlist]
    chs = [_value(rd, c, x) for c in choicelist]
    dt = rd.result_type(*chs, default)
    r = rd.asarray(default, dtype=dt, device=x.device)
    for c, v in zip(reversed(conds), reversed(chs), strict=True):
        if c.dtype != rd.bool:
            raise TypeError(f"invalid entry in condlist: should be boolean ndarray, not {c.dtype}")
        r = rd.where(c, rd.astype(v, dt) if hasattr(v, "dtype") else v, r)
    shape = rd.broadcast_arrays(*(v for v in (*conds, *chs) if hasattr(v, "shape")))[0].shape
    return rd.astype(rd.broadcast_to(r, shape), dt)


def place(arr: Any, mask: Any, vals: Any) -> None:
    """``arr[mask] = vals``, cycling through ``vals`` (one count read back to size them)."""
    a = arr
    m = mask
    v = vals if isinstance(vals, Array) else rd.asarray(vals, dtype=a.dtype,
                                                                  device=a.device)  # fmt: skip
    v = rd.reshape(v, (-1,))
    n = int(rd.count_nonzero(m).to_device("cpu"))  # one read-back: how many are placed
    if n == 0:
        return
    if v.shape[0] == 0:
        raise ValueError("ruda.place: Cannot insert from an empty array!")
    a[rd.reshape(m, a.shape)] = rd.take(v, rd.arange(n, device=a.device) % v.shape[0])


compositions({"isclose": isclose, "allclose": allclose, "array_equal": array_equal,
            "array_equiv": array_equiv, "put_along_axis": put_along_axis,
            "unravel_index": unravel_index, "ravel_multi_index": ravel_multi_index,
            "choose": choose, "select": select, "place": place})  # fmt: skip


__all__ = ["allclose", "array_equal", "array_equiv", "isclose", "put_along_axis"]
