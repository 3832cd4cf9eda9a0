"""``CudaArray``: device memory (a CuPy ``MemoryPointer``) plus byte offset, shape, strides (in
elements) and dtype: the native array of ``cuda`` devices.

Why not ``cupy.ndarray``: ruda's ``Array`` calls its native array's methods directly
(``x._data[key] = v``, ``.copy()``, ``.reshape``, ``.astype``), and on a ``cupy.ndarray`` those
run CuPy's kernels. This class owns every method, so each one either builds a view or runs a
ruda kernel. A ``cupy.ndarray`` view is made only for DLPack export (no kernel runs there).

The view logic (basic indexing, transposes, contiguity, reshape of contiguous arrays) has no
backend in it and is shared with ``WgpuArray``: those methods are taken from it, not copied.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..wgpu.array import WgpuArray, _c_strides

_V = WgpuArray.__dict__  # the backend-independent view methods
_CONTIG = _V["is_contiguous"].fget


class CudaArray:
    """An n-dimensional array in CUDA device memory."""

    __slots__ = ("ctx", "mem", "offset", "shape", "_strides", "dtype", "size", "_contig",
                 "__weakref__")  # fmt: skip
    __array_priority__ = -1

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

    @classmethod
    def contiguous(cls, ctx: Any, mem: Any, shape: tuple[int, ...], dtype: np.dtype) -> CudaArray:
        shape = tuple(shape)
        return cls(ctx, mem, 0, shape, _c_strides(shape), np.dtype(dtype))

    # NumPy's attributes and the views, shared with WgpuArray.
    ndim = _V["ndim"]
    itemsize = _V["itemsize"]
    nbytes = _V["nbytes"]
    strides = _V["strides"]

    @property
    def is_contiguous(self) -> bool:
        """C-contiguous (dimensions of length 1 may have any stride); computed once."""
        c = self._contig
        if c is None:
            c = self._contig = _CONTIG(self)
        return c

    elem_offset = _V["elem_offset"]
    T = _V["T"]
    mT = _V["mT"]
    __len__ = _V["__len__"]
    transpose = _V["transpose"]
    reshape = _V["reshape"]
    ravel = _V["ravel"]

    @property
    def ptr(self) -> int:
        """The device address of the first element."""
        return self.mem.ptr + self.offset

    @property
    def device(self) -> str:
        return self.ctx.name

    @property
    def flags(self) -> dict[str, bool]:
        return {"C_CONTIGUOUS": self.is_contiguous, "WRITEABLE": True}

    def span(self) -> tuple[int, int]:
        """Lowest and one-past-highest byte offset (from ``mem``) that the array touches."""
        return span(self.offset, self.shape, self._strides, self.dtype.itemsize)

    def __repr__(self) -> str:
        return (
            f"CudaArray(shape={self.shape}, dtype={self.dtype}, strides={self.strides}, "
            f"offset={self.offset}, device={self.ctx.name})"
        )

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"ruda: an array on {self.ctx.name} is not copied to the host implicitly; "
            "call to_host() / x.to_device('cpu')"
        )

    # -- views --------------------------------------------------------------------------------
    def view_of(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> CudaArray:
        return CudaArray(self.ctx, self.mem, offset, tuple(shape), tuple(strides), self.dtype)

    def __getitem__(self, key: Any) -> CudaArray:
        """Basic indexing (ints, slices, None, Ellipsis) as views."""
        try:
            return _V["__getitem__"](self, key)
        except NotImplementedError as e:  # the shared code names wgpu
            raise NotImplementedError(str(e).replace("wgpu", self.ctx.name)) from None

    # -- copies (ruda kernels) -------------------------------------------------------------------
    def copy(self) -> CudaArray:
        from .ops import copy

        return copy(self)

    def astype(self, dtype: Any, copy: bool = True) -> CudaArray:
        from .ops import astype

        return astype(self, dtype, copy=copy)

    def to_host(self) -> np.ndarray:
        return self.ctx.allocator.to_host(self)

    def __setitem__(self, key: Any, value: Any) -> None:
        from .ops import assign

        assign(self[key], value)

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


def span(
    offset: int, shape: tuple[int, ...], strides: tuple[int, ...], isz: int
) -> tuple[int, int]:
    """Lowest and one-past-highest byte of elements at ``offset`` with element ``strides``."""
    lo = hi = offset
    for n, s in zip(shape, strides, strict=True):
        if n == 0:
            return offset, offset
        if s > 0:
            hi += (n - 1) * s * isz
        else:
            lo += (n - 1) * s * isz
    return lo, hi + isz
