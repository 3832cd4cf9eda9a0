"""``CudaArray``: device memory (a CuPy ``MemoryPointer``) plus byte offset, shape, strides (in
elements) and dtype: the native array of ``cuda`` devices.

Why not ``cupy.ndarray``: ruda's ``Array`` calls its native array's methods directly
(``x._data[key] = v``, ``.copy()``, ``.reshape``, ``.astype``), and on a ``cupy.ndarray`` those
run CuPy's kernels. This class owns every method, so each one either builds a view or runs a
ruda kernel. A ``cupy.ndarray`` view is made only for DLPack export (no kernel runs there).

The view logic (basic indexing, transposes, contiguity, reshape of contiguous arrays) has no
backend in it and lives in ``gpu.strided.StridedArray``, shared with ``WgpuArray``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ..gpu.strided import StridedArray, c_strides, raise_readonly, span
from .driver import _cuda_fast, driver


class CudaArray(StridedArray):
    """An n-dimensional array in CUDA device memory."""

    __slots__ = ("ctx", "mem", "offset", "shape", "_strides", "dtype", "size", "_contig",
                 "readonly", "__weakref__")  # fmt: skip

    def __init__(
        self, ctx: Any, mem: Any, offset: int, shape: tuple[int, ...],
        strides: tuple[int, ...], dtype: np.dtype,
    ) -> None:  # fmt: skip
        self.ctx = ctx
        self.mem = mem  # cupy.cuda.MemoryPointer at the allocation's start (owns it)
        self.offset = offset  # bytes
        self.shape = shape
        self._strides = strides  # elements
        self.dtype = dtype
        self.size = math.prod(shape)
        self._contig: bool | None = None  # is_contiguous once asked (the layout never changes)
        self.readonly = False  # NumPy's WRITEABLE flag, inverted (views keep it)

    @classmethod
    def contiguous(cls, ctx: Any, mem: Any, shape: tuple[int, ...], dtype: np.dtype) -> CudaArray:
        shape = tuple(shape)
        return cls(ctx, mem, 0, shape, c_strides(shape), np.dtype(dtype))

    @property
    def is_contiguous(self) -> bool:
        """C-contiguous (dimensions of length 1 may have any stride); computed once."""
        c = self._contig
        if c is None:
            c = self._contig = StridedArray.is_contiguous.fget(self)
        return c

    @property
    def ptr(self) -> int:
        """The device address of the first element."""
        return self.mem.ptr + self.offset

    def span(self) -> tuple[int, int]:
        """Lowest and one-past-highest byte offset (from ``mem``) that the array touches."""
        return span(self.offset, self.shape, self._strides, self.dtype.itemsize)

    def view_of(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> CudaArray:
        v = CudaArray(self.ctx, self.mem, offset, tuple(shape), tuple(strides), self.dtype)
        v.readonly = self.readonly
        return v

    def shares_memory(self, other: Any) -> bool:
        return self.mem.mem is other.mem.mem

    def __setitem__(self, key: Any, value: Any) -> None:
        if self.readonly:
            raise_readonly()
        # a[i, j] = v in a Python loop (scikit-learn's fill_diagonal): one copy from C
        if type(key) is tuple and type(value) is CudaArray and not self.ctx.multi:
            if (_ASSIGN[0] or _assigner())(self, key, value):
                return
        StridedArray.__setitem__(self, key, value)

    # -- DLPack ------------------------------------------------------------------------------------
    def as_cupy(self) -> Any:
        """A ``cupy.ndarray`` viewing the same memory (for DLPack export; runs no kernel)."""
        import cupy

        return cupy.ndarray(self.shape, self.dtype, memptr=self.mem + self.offset,
                            strides=self.strides)  # fmt: skip

    @classmethod
    def from_dlpack(cls, ctx: Any, obj: Any, copy: bool | None = None) -> CudaArray:
        """A view of a DLPack producer's device memory on ``ctx``'s device (or a copy)."""
        import cupy

        if ctx.multi:
            with ctx.device:
                c = cupy.from_dlpack(obj)
        else:
            c = cupy.from_dlpack(obj)
        if c.device.id != ctx.index:
            raise ValueError(f"ruda.from_dlpack: the data is on cuda:{c.device.id}, not {ctx.name}")
        isz = c.dtype.itemsize
        if any(s % isz for s in c.strides):
            raise BufferError("ruda.from_dlpack: strides that are not whole elements")
        ctx.check_dtype(c.dtype, "from_dlpack")
        # Keep CuPy's memory object (it keeps the producer alive); offsets count from its start.
        base = cupy.cuda.MemoryPointer(c.data.mem, 0)
        strides = tuple(s // isz for s in c.strides)
        x = cls(ctx, base, c.data.ptr - base.ptr, tuple(c.shape), strides, np.dtype(c.dtype))
        if x.size and x.span()[0] < 0:
            raise BufferError("ruda.from_dlpack: negative strides below the memory's start")
        return x.copy() if copy else x


# _cuda_fast.assign_element bound to the process's driver, made on the first assignment
_ASSIGN: list[Any] = [None]


def _assigner() -> Any:
    if _cuda_fast is None:  # not built: the Python path (a copy_span per element)
        _ASSIGN[0] = lambda *args: False
    else:
        _ASSIGN[0] = functools.partial(_cuda_fast.assign_element, driver())
    return _ASSIGN[0]


if _cuda_fast is not None:
    _cuda_fast.init(CudaArray)  # the slots the C fast path reads and fills
    _cuda_fast.set_scalar_type(np.generic)  # its scalar operands (kernel parameters)


__all__ = ["CudaArray", "span"]
