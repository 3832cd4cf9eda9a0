"""linspace, meshgrid, tril and triu on the GPU backends: compositions of ruda's device ops
(arange, elementwise arithmetic, comparisons and where, reshapes and broadcasts).

Each takes and returns the backend's native arrays, like every op in a ``LIBRARY``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .common import (
    compositions,
    rd,
)


def linspace(start: Any, stop: Any, num: int, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, *, device: Any = None) -> Any:  # fmt: skip
    """NumPy's linspace: ``start + i * step`` (``i / div * delta`` when the step underflows
    to 0), the last sample exactly ``stop`` when ``endpoint``; integers floored."""

    s, t = start, stop
    arrays = [v for v in (s, t) if isinstance(v, rd.Array)]
    dev = arrays[0].device if device is None and arrays else rd.Device(device)
    out_dt = rd.result_type(*arrays, 1.0) if dtype is None else rd.dtype(dtype)
    # NumPy's type for the arithmetic: the endpoints' (Python numbers weak, NumPy's strong)
    calc = rd.result_type(*(v if type(v) in (bool, int, float, complex) else
                            v.dtype if isinstance(v, rd.Array) else np.asarray(v).dtype
                            for v in (s, t)), 1.0)  # fmt: skip
    # computed in it, converted once at the end; a device without it computes in the result's
    if calc in rd.__array_namespace_info__().dtypes(device=dev).values():
        work = calc
    else:
        work = out_dt if rd.isdtype(out_dt, ("real floating", "complex floating")) else calc
    shape = rd.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
    s, t = (rd.astype(v, work) if isinstance(v, rd.Array) else v for v in (s, t))
    div = num - 1 if endpoint else num
    part = {rd.complex64: rd.float32, rd.complex128: rd.float64}.get(work, work)
    i = rd.reshape(rd.arange(num, dtype=part, device=dev), (num,) + (1,) * len(shape))
    delta = t - s
    if div > 0:
        step = delta / div
        zero = rd.any(step == 0) if isinstance(step, rd.Array) else step == 0
        y = i / div * delta if bool(zero) else i * step
    else:
        step, y = float("nan"), i * delta
    y = rd.broadcast_to(rd.asarray(y + s, dtype=work, device=dev), (num,) + shape)
    y = rd.asarray(y, copy=True)  # a fresh buffer: the endpoint is written into it
    if endpoint and num > 1:
        y[-1, ...] = t
    if shape and axis % (len(shape) + 1):
        y = rd.moveaxis(y, 0, axis)
    if rd.isdtype(out_dt, "integral"):
        y = rd.floor(y)
    y = rd.astype(y, out_dt)
    return (y, step) if retstep else y


def meshgrid(*xs: Any, indexing: str = "xy", copy: bool = True, sparse: bool = False) -> Any:
    """NumPy's meshgrid: each 1-D input reshaped along its own axis, then broadcast together
    (views when ``sparse``; fresh copies when ``copy``)."""

    arrs = [x for x in xs]
    nd = len(arrs)
    out = [rd.reshape(a, (1,) * i + (-1,) + (1,) * (nd - i - 1)) for i, a in enumerate(arrs)]
    if indexing == "xy" and nd > 1:  # the first two axes swap: x varies along columns
        out[0] = rd.reshape(out[0], (1, -1) + (1,) * (nd - 2))
        out[1] = rd.reshape(out[1], (-1, 1) + (1,) * (nd - 2))
    if not sparse:
        out = list(rd.broadcast_arrays(*out))
    if copy:
        out = [rd.asarray(a, copy=True) for a in out]
    return [a for a in out]


def _tri(x: Any, k: int, lower: bool) -> Any:
    """``x`` with the elements above (``lower``) or below the ``k``-th diagonal zeroed; a 1-D
    ``x`` is a row repeated (NumPy's mask of shape (n, n))."""

    a = x
    rows, cols = a.shape[-2:] if a.ndim > 1 else (a.shape[0], a.shape[0])
    i = rd.arange(rows, dtype=rd.int64, device=a.device)[:, None] + k
    j = rd.arange(cols, dtype=rd.int64, device=a.device)[None, :]
    keep = j <= i if lower else j >= i
    return rd.where(keep, a, rd.zeros((), dtype=a.dtype, device=a.device))


def tril(x: Any, k: int = 0) -> Any:
    return _tri(x, k, True)


def triu(x: Any, k: int = 0) -> Any:
    return _tri(x, k, False)


compositions({"linspace": linspace, "meshgrid": meshgrid, "tril": tril, "triu": triu})


__all__ = ["linspace", "meshgrid", "tril", "triu"]
