"""``x.view(dtype)`` on the GPU backends: the same device bytes read as another dtype.

The natives keep NumPy's byte layout (narrow integers packed, complex interleaved), so a dtype
view is a new shape/strides/dtype over the same allocation, as NumPy's ``ndarray.view``.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def view(x: Any, dtype: Any) -> Any:
    """``x``'s bytes as ``dtype``: the last axis rescales when the item sizes differ.

    >>> import ruda as np  # doctest: +SKIP
    >>> np.asarray([1.0], device="wgpu").view(np.int64)  # doctest: +SKIP
    array([4607182418800017408])
    """
    new = np.dtype(dtype)
    x.ctx.check_dtype(new, "view")
    old = x.dtype
    if new.itemsize == old.itemsize:
        v = x.view_of(x.offset, x.shape, x._strides)
    else:
        if x.ndim == 0 or not x.is_contiguous:
            raise ValueError(
                "ruda.view: changing to a dtype of another size needs a C-contiguous array with "
                "at least one dimension"
            )
        last = x.shape[-1] * old.itemsize
        if last % new.itemsize or x.offset % new.itemsize:
            raise ValueError(
                f"ruda.view: the last axis ({last} bytes) is not a multiple of the new itemsize "
                f"{new.itemsize}"
            )
        shape = x.shape[:-1] + (last // new.itemsize,)
        strides = tuple(s * old.itemsize // new.itemsize for s in x._strides[:-1]) + (1,)
        v = x.view_of(x.offset, shape, strides)
    v.dtype = new
    return v


def library() -> dict[str, Any]:
    """The op-table entry of this module (the same function on every GPU backend)."""
    return {"view": view}


__all__ = ["library", "view"]
