"""Stride tricks and memory queries on the GPU backends: sliding_window_view and as_strided (views
of the same device allocation, no copy), isfortran, may_share_memory, shares_memory and
ascontiguousarray. Native code, not compositions: installed by ``gpu.backend`` for both kinds.

A GPU native array is an allocation plus byte ``offset``, ``shape`` and element ``_strides``
(``gpu.strided.StridedArray``); every function here only reads or re-arranges those.
"""

from __future__ import annotations

import mmap
import operator
from typing import Any

import numpy as np

from .strided import c_strides, contiguous, read_only, span


def sliding_window_view(x: Any, window_shape: Any, axis: Any = None, *, subok: bool = False,
                        writeable: bool = False) -> Any:  # fmt: skip
    """Every window of ``window_shape`` sliding over ``x`` along ``axis``: a view of ``x``'s
    allocation whose trailing axes step through each window; read-only unless ``writeable``
    (and ``x`` is), as NumPy's."""
    ws = (window_shape,) if isinstance(window_shape, int) else tuple(window_shape)
    ws = tuple(operator.index(w) for w in ws)
    if any(w < 0 for w in ws):
        raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        axis = tuple(range(x.ndim))
        if len(ws) != len(axis):
            raise ValueError(f"Since axis is `None`, must provide window_shape for all "
                             f"dimensions of `x`; got {len(ws)} window_shape elements and "
                             f"`x.ndim` is {x.ndim}.")  # fmt: skip
    else:
        axis = (axis,) if isinstance(axis, int) else tuple(axis)
        axis = tuple(operator.index(a) % max(x.ndim, 1) for a in axis)
        if len(ws) != len(axis):
            raise ValueError(f"Must provide matching length window_shape and axis; got "
                             f"{len(ws)} window_shape elements and {len(axis)} axes "
                             "elements.")  # fmt: skip
    shape = list(x.shape)
    for ax, w in zip(axis, ws, strict=True):
        if shape[ax] < w:
            raise ValueError("window shape cannot be larger than input array shape")
        shape[ax] -= w - 1
    strides = tuple(x._strides) + tuple(x._strides[ax] for ax in axis)
    return read_only(x.view_of(x.offset, tuple(shape) + ws, strides), not writeable)


def as_strided(x: Any, shape: Any = None, strides: Any = None, subok: bool = False,
               writeable: bool = True) -> Any:  # fmt: skip
    """A view of ``x``'s allocation with ``shape`` and byte ``strides`` (unchecked, as NumPy).

    # Note: strides must be whole elements on GPU devices (the kernels index by element).
    """
    shape = x.shape if shape is None else tuple(operator.index(n) for n in shape)
    isz = x.dtype.itemsize
    if strides is None:
        # NumPy keeps x's strides, except that a C-contiguous x is re-laid C-contiguously
        el = c_strides(shape) if x.is_contiguous else tuple(x._strides)
    else:
        if any(operator.index(s) % isz for s in strides):
            raise NotImplementedError(
                f"ruda.lib.stride_tricks.as_strided: strides {tuple(strides)} are not multiples "
                f"of the itemsize {isz}; on {x.ctx.name} strides must be whole elements"
            )
        el = tuple(operator.index(s) // isz for s in strides)
    if len(el) != len(shape):
        raise ValueError(f"mismatch in length of strides ({len(el)}) and shape ({len(shape)})")
    return read_only(x.view_of(x.offset, tuple(shape), el), not writeable)


def isfortran(x: Any) -> bool:
    """Whether ``x`` is Fortran-contiguous and not C-contiguous (False for 0-d and 1-D)."""
    f_contiguous = contiguous(tuple(reversed(x.shape)), tuple(reversed(x._strides)))
    return f_contiguous and not x.is_contiguous


def _start(x: Any) -> int:
    # cuda natives know their device address; wgpu ones count bytes from their buffer's start
    return x.ptr if hasattr(x, "ptr") else x.offset


def _overlap(a: Any, b: Any, max_work: Any, exact: bool) -> bool:
    """NumPy's answer for two natives: same allocation, then NumPy's own solver over stand-ins.

    The stand-ins are host arrays with the natives' layouts over a lazily mapped (never touched)
    buffer, so the answer is NumPy's, bounds check or exact Diophantine solve, and no data moves.
    """
    if not (hasattr(a, "ctx") and hasattr(b, "ctx")) or a.ctx is not b.ctx:
        return False  # a host object never shares memory with a device allocation
    if a.size == 0 or b.size == 0 or not a.shares_memory(b):
        return False
    spans = [span(_start(v), v.shape, v._strides, v.itemsize) for v in (a, b)]
    lo = min(s[0] for s in spans)
    buf = mmap.mmap(-1, max(s[1] for s in spans) - lo)

    def stand_in(v: Any) -> np.ndarray:
        return np.ndarray(v.shape, v.dtype, buffer=buf, offset=_start(v) - lo, strides=v.strides)

    pa, pb = stand_in(a), stand_in(b)
    try:
        if exact:
            return bool(np.shares_memory(pa, pb, max_work=max_work))
        return bool(np.may_share_memory(pa, pb, max_work=max_work))
    finally:
        del pa, pb
        buf.close()


def may_share_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    """Whether ``a`` and ``b`` might share memory (bounds overlap by default, as NumPy)."""
    return _overlap(a, b, max_work, exact=False)


def shares_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    """Whether ``a`` and ``b`` share at least one byte (NumPy's exact solve by default)."""
    return _overlap(a, b, max_work, exact=True)


def ascontiguousarray(x: Any) -> Any:
    """``x`` itself when C-contiguous (at least 1-D, as NumPy), else a contiguous copy."""
    if x.ndim and x.is_contiguous:
        return x
    return x.ops.copy(x.reshape((1,)) if x.ndim == 0 else x)


def library() -> dict[str, Any]:
    """The op-table entries of this module (the same functions on every GPU backend)."""
    return {"sliding_window_view": sliding_window_view, "as_strided": as_strided,
            "isfortran": isfortran, "may_share_memory": may_share_memory,
            "shares_memory": shares_memory, "ascontiguousarray": ascontiguousarray}  # fmt: skip


__all__ = ["as_strided", "ascontiguousarray", "isfortran", "library", "may_share_memory",
           "shares_memory", "sliding_window_view"]  # fmt: skip
