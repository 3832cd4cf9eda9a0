"""Host-side halves of a GPU allocator's copies: the checks before an upload and the NumPy
view of bytes read back."""

from __future__ import annotations

from typing import Any

import numpy as np


def upload_source(ctx: Any, host: Any, dtype: Any, native: type) -> Any:
    """What ``from_host`` uploads: a contiguous native-order NumPy array of a dtype the device
    holds; or, for an array already on ``ctx``, that array (converted to ``dtype`` if given)."""
    if isinstance(host, native):
        if host.ctx is not ctx:
            raise ValueError(
                f"ruda: array is on {host.ctx.name}, not {ctx.name}; "
                "ruda never transfers between devices silently"
            )
        return host if dtype is None or np.dtype(dtype) == host.dtype else host.astype(dtype)
    a = np.asarray(host, dtype=dtype)
    if a.dtype.hasobject:  # the namespace refuses these first; this guards every other path
        raise TypeError(
            f"ruda.asarray: object dtype is cpu-only; device {ctx.name} holds numeric data only "
            "(make object arrays on the cpu)"
        )
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    ctx.check_dtype(a.dtype, "asarray")
    # (np.ascontiguousarray would turn a 0-d array into shape (1,))
    return a if a.flags.c_contiguous else np.array(a, order="C")


def host_view(raw: np.ndarray, start: int, x: Any) -> np.ndarray:
    """A NumPy copy of ``x``'s elements from ``raw`` bytes, ``x``'s first element at ``start``."""
    isz = x.dtype.itemsize
    first = raw[start : start + isz].view(x.dtype)  # anchors the view at the first element
    strides = tuple(s * isz for s in x._strides)
    view = np.lib.stride_tricks.as_strided(first, shape=x.shape, strides=strides)
    return np.array(view, copy=True)


__all__ = ["host_view", "upload_source"]
