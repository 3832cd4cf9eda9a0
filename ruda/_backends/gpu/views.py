"""View ops over any ``StridedArray``: reshape, permute_dims, expand_dims, squeeze,
broadcast_to, ravel, flip. None launches a kernel, except a reshape that needs a copy."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .layout import bstrides
from .strided import c_strides, read_only, resolve_shape


def as_shape(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple of non-negative ints."""
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def nocopy_strides(
    shape: tuple[int, ...], strides: tuple[int, ...], new: tuple[int, ...]
) -> tuple[int, ...] | None:
    """Element strides that view ``shape``/``strides`` as ``new`` (C order) without a copy, or
    None when no view can (NumPy's ``_attempt_nocopy_reshape``); sizes must match."""
    if math.prod(new) == 0:
        return c_strides(new)
    old = [(n, s) for n, s in zip(shape, strides, strict=True) if n != 1]
    out = [0] * len(new)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new) and oi < len(old):
        pn, po = new[ni], old[oi][0]
        while pn != po:
            if pn < po:
                pn *= new[nj]
                nj += 1
            else:
                po *= old[oj][0]
                oj += 1
        # the old axes merged into this group must be contiguous with each other
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        out[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * new[k]
        ni, nj, oi, oj = nj, nj + 1, oj, oj + 1
    last = out[ni - 1] if ni else 1
    for k in range(ni, len(new)):
        out[k] = last
    return tuple(out)


def as_shape_minus(shape: Any) -> tuple[int, ...]:
    """A reshape's shape argument as a tuple of ints (``-1`` kept)."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def reshape(x: Any, shape: Any, order: str = "C", copy: Any = None, **_: Any) -> Any:
    """``x`` in ``shape``: a view wherever NumPy makes one, a copy when ``copy`` or when no
    view can (ValueError for ``copy=False`` then). Internal callers' ``x.reshape`` keeps
    giving contiguous arrays, which plans bind as they are."""
    if not copy and not x.is_contiguous and order in ("C", "A", "K", None):
        new = resolve_shape(as_shape_minus(shape), x.size)
        strides = nocopy_strides(x.shape, x._strides, new)
        if strides is not None:
            return x.view_of(x.offset, new, strides)
        if copy is False:
            raise ValueError("reshape with copy=False cannot view this array in that shape")
    src = x.copy() if copy else x
    return src.reshape(shape, order=order)


def permute_dims(x: Any, axes: Any = None) -> Any:
    return x.transpose(axes)


def matrix_transpose(x: Any) -> Any:
    return x.mT


def expand_dims(x: Any, axis: Any) -> Any:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = x.ndim + len(axes)
    axes = sorted(a % nd for a in axes)
    shape, strides = list(x.shape), list(x._strides)
    for a in axes:
        shape.insert(a, 1)
        strides.insert(a, 0)
    return x.view_of(x.offset, tuple(shape), tuple(strides))


def squeeze(x: Any, axis: Any = None) -> Any:
    if axis is None:
        axes = {d for d, n in enumerate(x.shape) if n == 1}
    else:
        axes = {a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis)}
        if any(x.shape[a] != 1 for a in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    keep = [d for d in range(x.ndim) if d not in axes]
    return x.view_of(x.offset, tuple(x.shape[d] for d in keep), tuple(x._strides[d] for d in keep))


def broadcast_to(x: Any, shape: Any, **_: Any) -> Any:
    shape = as_shape(shape)
    if np.broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"cannot broadcast shape {x.shape} to {shape}")
    # NumPy's broadcast_to view is read-only: its repeated elements share memory
    return read_only(x.view_of(x.offset, shape, bstrides(x, shape)))


def ravel(x: Any, order: str = "C", **_: Any) -> Any:
    return x.reshape(-1)


def flip(x: Any, axis: Any = None, **_: Any) -> Any:
    axes = range(x.ndim) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    key = [slice(None)] * x.ndim
    for a in axes:
        key[a % x.ndim] = slice(None, None, -1)
    return x[tuple(key)]


LIBRARY: dict[str, Any] = {
    "reshape": reshape, "permute_dims": permute_dims, "transpose": permute_dims,
    "matrix_transpose": matrix_transpose, "expand_dims": expand_dims, "squeeze": squeeze,
    "broadcast_to": broadcast_to, "ravel": ravel, "flip": flip,
}  # fmt: skip
__all__ = ["LIBRARY", "as_shape", "broadcast_to", "expand_dims", "flip", "matrix_transpose",
           "nocopy_strides", "permute_dims", "ravel", "reshape", "squeeze"]  # fmt: skip
