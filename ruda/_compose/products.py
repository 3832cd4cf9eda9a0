"""NumPy 2.2's matvec and vecmat on GPU devices, over matmul (the namespace checked the shapes)."""

from __future__ import annotations

from .._dtypes import kind_of
from .common import Array, composition, rd


@composition("matvec")
def matvec(x1: Array, x2: Array) -> Array:
    """``x1 @ x2[..., None]``, the trailing axis dropped."""
    return rd.matmul(x1, x2[..., None])[..., 0]


@composition("vecmat")
def vecmat(x1: Array, x2: Array) -> Array:
    """``conj(x1)[..., None, :] @ x2``, the new axis dropped."""
    v = rd.conj(x1) if kind_of(x1.dtype) == "c" else x1
    return rd.matmul(v[..., None, :], x2)[..., 0, :]


__all__ = ["matvec", "vecmat"]
