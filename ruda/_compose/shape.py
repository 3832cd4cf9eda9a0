"""diagflat, tri, logspace, geomspace, indices, block, insert, delete, trim_zeros and
ascontiguousarray on the GPU backends: NumPy's definitions composed of ruda's device ops
(slicing, concat, take with a kept-index list).

Only sizes are read back: delete's kept count, trim_zeros' first and last non-zero positions.
"""

from __future__ import annotations

import math
from typing import Any

from .common import (
    Array,
    compositions,
    rd,
)


def diagflat(v: Any, k: int = 0) -> Any:
    """A 2-D array with the flattened ``v`` on the ``k``-th diagonal."""
    a = v
    return rd.diag(rd.reshape(a, (-1,)), k=k)


def _flat_axis(rd: Any, a: Any, axis: Any) -> tuple[Any, int]:
    if axis is None:
        return rd.reshape(a, (-1,)), 0
    return a, axis % a.ndim


def insert(arr: Any, obj: Any, values: Any, axis: Any = None) -> Any:
    """``arr`` with ``values`` inserted before index ``obj`` along ``axis`` (an integer ``obj``)."""
    a = arr
    a, ax = _flat_axis(rd, a, axis)
    if isinstance(obj, bool) or not isinstance(obj, int):
        raise NotImplementedError(
            "ruda.insert: only an integer obj is implemented on GPU devices yet"
        )
    n = a.shape[ax]
    if not -n <= obj <= n:
        raise IndexError(f"ruda.insert: index {obj} is out of bounds for axis {ax} with size {n}")
    i = obj + n if obj < 0 else obj
    v = values if isinstance(values, Array) else rd.asarray(values, dtype=a.dtype,
                                                                      device=a.device)  # fmt: skip
    v = rd.astype(v, a.dtype)
    v = rd.reshape(v, (1,) * (a.ndim - v.ndim) + v.shape)  # NumPy's ndmin=arr.ndim
    v = rd.moveaxis(v, 0, ax)  # a scalar index inserts a[:, i:i+1]-like slabs
    shape = list(a.shape)
    shape[ax] = v.shape[ax]
    v = rd.broadcast_to(v, tuple(shape))
    lo = (slice(None),) * ax + (slice(None, i),)
    hi = (slice(None),) * ax + (slice(i, None),)
    return rd.concat([a[lo], v, a[hi]], axis=ax)


def delete(arr: Any, obj: Any, axis: Any = None) -> Any:
    """``arr`` without the entries ``obj`` (an int, slice or index list) along ``axis``."""
    a = arr
    a, ax = _flat_axis(rd, a, axis)
    n = a.shape[ax]
    keep = rd.ones(n, dtype=rd.bool, device=a.device)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        idx = obj if isinstance(obj, Array) else rd.asarray(obj, device=a.device)
        if idx.dtype == rd.bool:
            raise NotImplementedError("ruda.delete: a boolean obj is not implemented on GPU yet")
        idx = rd.reshape(rd.astype(idx, rd.int64), (-1,))
        if idx.shape[0] and bool(rd.any((idx < -n) | (idx >= n)).to_device("cpu")):
            raise IndexError(f"ruda.delete: index out of bounds for axis {ax} with size {n}")
        if idx.shape[0]:
            keep[rd.where(idx < 0, idx + n, idx)] = False
    return rd.take(a, rd.nonzero(keep)[0], axis=ax)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """A 1-D ``filt`` without its leading (``f``) and/or trailing (``b``) zeros."""
    a = filt
    if a.ndim != 1:
        raise NotImplementedError("ruda.trim_zeros: only 1-D input is implemented on GPU yet")
    nz = rd.nonzero(a)[0]
    if nz.shape[0] == 0:
        return a[:0]
    ends = rd.stack([nz[0], nz[-1]]).to_device("cpu")  # one read-back: the slice bounds
    lo = int(ends[0]) if "f" in trim.lower() else 0
    hi = int(ends[1]) + 1 if "b" in trim.lower() else a.shape[0]
    return a[lo:hi]


def tri(n: int, m: Any = None, k: int = 0, dtype: Any = None, *, device: Any = None) -> Any:
    """Ones at and below the ``k``-th diagonal of an ``n`` x ``m`` array, zeros above."""

    m = n if m is None else m
    rows = rd.arange(n, dtype=rd.int64, device=device)[:, None] + k
    r = rows >= rd.arange(m, dtype=rd.int64, device=device)[None, :]
    return rd.astype(r, rd.float64 if dtype is None else rd.dtype(str(dtype)))


def _scalar_ends(fname: str, *vs: Any) -> None:
    if any(hasattr(v, "shape") and getattr(v, "ndim", 0) for v in vs) or any(
        isinstance(v, complex) for v in vs
    ):
        raise NotImplementedError(
            f"ruda.{fname}: array or complex endpoints are not implemented on GPU yet"
        )


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0, *, device: Any = None) -> Any:  # fmt: skip
    """``base ** linspace(start, stop, num)`` (real scalar endpoints)."""

    _scalar_ends("logspace", start, stop, base)
    y = rd.linspace(float(start), float(stop), num, endpoint=endpoint, dtype=rd.float64,
                    device=device)  # fmt: skip
    r = rd.pow(float(base), y)
    return r if dtype is None else rd.astype(r, rd.dtype(str(dtype)))


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0, *, device: Any = None) -> Any:  # fmt: skip
    """A geometric progression from ``start`` to ``stop`` (real scalar endpoints, one sign)."""

    _scalar_ends("geomspace", start, stop)
    start, stop = float(start), float(stop)
    if start == 0 or stop == 0:
        raise ValueError("Geometric sequence cannot include zero")
    if (start < 0) != (stop < 0):
        raise NotImplementedError("ruda.geomspace: endpoints of opposite signs (a complex "
                                  "progression) are not implemented on GPU yet")  # fmt: skip
    sign = -1.0 if start < 0 else 1.0
    r = rd.pow(10.0, rd.linspace(math.log10(start * sign), math.log10(stop * sign), num,
                                 endpoint=endpoint, dtype=rd.float64, device=device))  # fmt: skip
    if num > 0:
        r[0] = start * sign  # NumPy pins the endpoints exactly
    if num > 1 and endpoint:
        r[-1] = stop * sign
    r = r * sign
    return r if dtype is None else rd.astype(r, rd.dtype(str(dtype)))


def indices(dims: Any, dtype: Any = None, sparse: bool = False, *, device: Any = None) -> Any:
    """The index grid of an array of shape ``dims``: one array per axis (stacked unless sparse)."""

    dt = rd.int64 if dtype is None else rd.dtype(str(dtype))
    n = len(dims)
    axes = [rd.reshape(rd.arange(d, dtype=dt, device=device), tuple(-1 if k == i else 1
                                                                  for k in range(n)))
            for i, d in enumerate(dims)]  # fmt: skip
    if sparse:
        return tuple(a for a in axes)
    if not n:
        return rd.empty((0,), dtype=dt, device=device)
    return rd.stack([rd.broadcast_to(a, tuple(dims)) for a in axes])


def _depth(x: Any) -> int:
    return 1 + _depth(x[0]) if isinstance(x, list) and x else int(isinstance(x, list))


def _leaves(x: Any) -> list[Any]:
    return [v for e in x for v in _leaves(e)] if isinstance(x, list) else [x]


def block(arrays: Any) -> Any:
    """NumPy's ``block``: the innermost lists join along the last axis, the outer ones before."""
    leaves = [v for v in _leaves(arrays) if isinstance(v, Array)]
    if not leaves:
        raise ValueError("ruda.block: needs at least one array")
    first = leaves[0]
    d = _depth(arrays)
    nd = max(d, *(v.ndim for v in leaves))

    def build(x: Any, level: int) -> Any:
        if not isinstance(x, list):
            a = x if isinstance(x, Array) else rd.asarray(x, device=first.device)
            return rd.reshape(a, (1,) * (nd - a.ndim) + a.shape)
        if not x:
            raise ValueError("ruda.block: lists cannot be empty")
        return rd.concat([build(v, level + 1) for v in x], axis=-(d - level))

    return build(arrays, 0)


compositions({"diagflat": diagflat, "insert": insert, "delete": delete, "trim_zeros": trim_zeros,
            "tri": tri, "block": block, "logspace": logspace, "geomspace": geomspace,
            "indices": indices})  # fmt: skip


__all__ = ["delete", "diagflat", "insert", "trim_zeros"]
