"""Reused host blocks for large results: a fresh 64 MiB array costs ~16k page faults a call.

A block is free again when nothing but the pool references it (every NumPy view of a block
keeps the block itself as its ``base``), so reuse never aliases a live array.
"""

from __future__ import annotations

import math
import sys

import numpy as np

__all__ = ["host_empty"]

_MIN_BYTES = 1 << 20  # smaller arrays come from NumPy's allocator, which is fast for them
_MAX_BLOCKS = 8
_MAX_BYTES = 1 << 30
_BLOCKS: list[np.ndarray] = []
_FREE_REFS = 3  # the list, the local name and getrefcount's own argument


def host_empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """An uninitialised C-contiguous host array, from a free pooled block when one fits."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < _MIN_BYTES:
        return np.empty(shape, dtype)
    for i in range(len(_BLOCKS)):
        b = _BLOCKS[i]
        if b.nbytes == nbytes and sys.getrefcount(b) == _FREE_REFS:
            _BLOCKS.append(_BLOCKS.pop(i))  # most recently used last
            return b.view(dtype).reshape(shape)
    b = np.empty(nbytes, np.uint8)
    _BLOCKS.append(b)
    _evict()
    return b.view(dtype).reshape(shape)


def _evict() -> None:
    # Drop the least recently used free blocks beyond the limits (blocks in use are kept).
    total = sum(b.nbytes for b in _BLOCKS)
    i = 0
    while (len(_BLOCKS) > _MAX_BLOCKS or total > _MAX_BYTES) and i < len(_BLOCKS) - 1:
        b = _BLOCKS[i]
        if sys.getrefcount(b) == _FREE_REFS:
            total -= b.nbytes
            del b
            del _BLOCKS[i]
        else:
            i += 1
