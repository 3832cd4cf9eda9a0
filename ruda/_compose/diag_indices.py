"""diag_indices, tril_indices, triu_indices and fill_diagonal on the GPU backends: index arrays
made on the device (arange, a triangle mask and nonzero) and a diagonal written in place through
a strided view (or a scatter where the flat layout cannot be viewed).
"""

from __future__ import annotations

import math
from typing import Any

from .common import (
    Array,
    compositions,
    rd,
)


def _device(fname: str, device: Any) -> Any:

    if device is None:
        # The op table is shared by the GPU kinds: only the caller knows which device it means.
        raise TypeError(f"ruda.{fname}: the GPU backends need the device (device=...)")
    return rd.Device(device) if not isinstance(device, rd.Device) else device


def diag_indices(n: int, ndim: int = 2, *, device: Any = None) -> Any:
    """``ndim`` copies of ``arange(n)``: the indices of the main diagonal."""

    idx = rd.arange(n, dtype=rd.int64, device=_device("diag_indices", device))
    return (idx,) * ndim


def _triangle(fname: str, n: int, k: int, m: Any, lower: bool, device: Any) -> Any:

    dev = _device(fname, device)
    m = n if m is None else m
    rows = rd.arange(n, dtype=rd.int64, device=dev)[:, None] + k
    cols = rd.arange(m, dtype=rd.int64, device=dev)[None, :]
    mask = cols <= rows if lower else cols >= rows
    return tuple(i for i in rd.nonzero(mask))


def tril_indices(n: int, k: int = 0, m: Any = None, *, device: Any = None) -> Any:
    """Row and column indices of the elements at and below the ``k``-th diagonal (C order)."""
    return _triangle("tril_indices", n, k, m, True, device)


def triu_indices(n: int, k: int = 0, m: Any = None, *, device: Any = None) -> Any:
    """Row and column indices of the elements at and above the ``k``-th diagonal (C order)."""
    return _triangle("triu_indices", n, k, m, False, device)


def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """NumPy's ``a.flat[:end:step] = val``, in place: every ``step``-th flat element (the main
    diagonal; with ``wrap``, a tall 2-D array's diagonal restarts below), ``val`` repeated."""
    x = a
    if x.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if x.ndim == 2:
        step = x.shape[1] + 1
        end = x.size if wrap else min(x.size, x.shape[1] * x.shape[1])
    else:
        if len(set(x.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + sum(math.prod(x.shape[:i]) for i in range(1, x.ndim))
        end = x.size
    count = len(range(0, end, step))
    if count == 0:
        return
    v = val
    if isinstance(val, Array):
        v = rd.reshape(val, (-1,))
        if v.shape[0] == 0:
            return
        if v.shape[0] not in (1, count):  # a flat assignment repeats val cyclically
            v = rd.take(v, rd.arange(count, dtype=rd.int64, device=x.device) % v.shape[0])
        elif v.shape[0] == 1:
            v = v[0]
    if x._data.is_contiguous:  # the native alone knows its layout: reshape is then a view
        flat = rd.reshape(x, (-1,))  # a view of a's buffer
        flat[:end:step] = v
        return
    pos = rd.arange(0, end, step, dtype=rd.int64, device=x.device)
    x[rd.unravel_index(pos, x.shape)] = v  # a scatter through a's own strides


compositions({"diag_indices": diag_indices, "tril_indices": tril_indices,
            "triu_indices": triu_indices, "fill_diagonal": fill_diagonal})  # fmt: skip


__all__ = ["diag_indices", "fill_diagonal", "tril_indices", "triu_indices"]
