"""``WgpuArray``: a device buffer (a pooled ``Block``) plus byte offset, shape, strides (in
elements) and dtype: the native array of ``wgpu`` devices.

NumPy's semantics for views: basic indexing, transposes and reshapes of contiguous arrays share
the buffer. The view logic has no backend in it and lives in ``gpu.strided.StridedArray``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..gpu.strided import StridedArray, c_strides


class WgpuArray(StridedArray):
    """An n-dimensional array in a WebGPU buffer (the native array of ``wgpu`` devices)."""

    __slots__ = ("ctx", "block", "offset", "shape", "_strides", "dtype", "size", "readonly",
                 "__weakref__")  # fmt: skip

    def __init__(
        self, ctx: Any, block: Any, offset: int, shape: tuple[int, ...],
        strides: tuple[int, ...], dtype: np.dtype,
    ) -> None:  # fmt: skip
        self.ctx = ctx
        self.block = block
        self.offset = offset  # bytes
        self.shape = shape
        self._strides = strides  # elements
        self.dtype = dtype
        self.size = math.prod(shape)
        self.readonly = False  # NumPy's WRITEABLE flag, inverted (views keep it)

    @classmethod
    def contiguous(cls, ctx: Any, block: Any, shape: tuple[int, ...], dtype: np.dtype) -> WgpuArray:
        shape = tuple(shape)
        return cls(ctx, block, 0, shape, c_strides(shape), np.dtype(dtype))

    @property
    def buffer(self) -> Any:
        return self.block.buffer

    def view_of(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> WgpuArray:
        v = WgpuArray(self.ctx, self.block, offset, tuple(shape), tuple(strides), self.dtype)
        v.readonly = self.readonly
        return v

    def shares_memory(self, other: Any) -> bool:
        return self.block is other.block
