"""``WgpuArray``: a device buffer plus byte offset, shape, strides (in elements) and dtype.

NumPy's semantics for views: basic indexing, transposes and reshapes of contiguous arrays share
the buffer. ``strides`` reports bytes, as NumPy does; ``_strides`` holds elements for kernels.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


class WgpuArray:
    """An n-dimensional array in a WebGPU buffer (the native array of ``wgpu`` devices)."""

    __slots__ = ("ctx", "block", "offset", "shape", "_strides", "dtype", "size", "__weakref__")
    __array_priority__ = -1

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

    @classmethod
    def contiguous(cls, ctx: Any, block: Any, shape: tuple[int, ...], dtype: np.dtype) -> WgpuArray:
        shape = tuple(shape)
        return cls(ctx, block, 0, shape, _c_strides(shape), np.dtype(dtype))

    # -- NumPy's attributes -----------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        isz = self.dtype.itemsize
        return tuple(s * isz for s in self._strides)

    @property
    def buffer(self) -> Any:
        return self.block.buffer

    @property
    def device(self) -> str:
        return self.ctx.name

    @property
    def is_contiguous(self) -> bool:
        """C-contiguous (dimensions of length 1 may have any stride)."""
        acc = 1
        for n, s in zip(reversed(self.shape), reversed(self._strides), strict=True):
            if n == 0:
                return True
            if n != 1 and s != acc:
                return False
            acc *= n
        return True

    @property
    def flags(self) -> dict[str, bool]:
        return {"C_CONTIGUOUS": self.is_contiguous, "WRITEABLE": True}

    @property
    def elem_offset(self) -> int:
        return self.offset // self.dtype.itemsize

    @property
    def T(self) -> WgpuArray:
        return self.transpose()

    @property
    def mT(self) -> WgpuArray:
        if self.ndim < 2:
            raise ValueError(f"mT needs at least 2 dimensions, got {self.ndim}")
        axes = list(range(self.ndim))
        axes[-2], axes[-1] = axes[-1], axes[-2]
        return self.transpose(axes)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (
            f"WgpuArray(shape={self.shape}, dtype={self.dtype}, strides={self.strides}, "
            f"offset={self.offset}, device={self.ctx.name})"
        )

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"ruda: an array on {self.ctx.name} is not copied to the host implicitly; "
            "call to_host() / x.to_device('cpu')"
        )

    # -- views ----------------------------------------------------------------------------
    def view_of(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> WgpuArray:
        return WgpuArray(self.ctx, self.block, offset, tuple(shape), tuple(strides), self.dtype)

    def transpose(self, axes: Any = None) -> WgpuArray:
        if axes is None:
            axes = tuple(reversed(range(self.ndim)))
        axes = tuple(operator.index(a) % max(self.ndim, 1) for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"axes {axes} are not a permutation of {self.ndim} dimensions")
        return self.view_of(
            self.offset, tuple(self.shape[a] for a in axes), tuple(self._strides[a] for a in axes)
        )

    def __getitem__(self, key: Any) -> WgpuArray:
        """Basic indexing (ints, slices, None, Ellipsis) as views."""
        if not isinstance(key, tuple):
            key = (key,)
        n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
        if n_real > self.ndim:
            raise IndexError(
                f"too many indices for array: array is {self.ndim}-dimensional, "
                f"but {n_real} were indexed"
            )
        if sum(1 for k in key if k is Ellipsis) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        expanded: list[Any] = []
        for k in key:
            if k is Ellipsis:
                expanded.extend([slice(None)] * (self.ndim - n_real))
            else:
                expanded.append(k)
        expanded.extend([slice(None)] * (self.ndim - sum(1 for k in expanded if k is not None)))
        off = self.offset // self.dtype.itemsize
        shape: list[int] = []
        strides: list[int] = []
        d = 0
        for k in expanded:
            if k is None:
                shape.append(1)
                strides.append(0)
                continue
            n, s = self.shape[d], self._strides[d]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                length = len(range(start, stop, step))
                if length:
                    off += start * s
                shape.append(length)
                strides.append(s * step)
            elif isinstance(k, (bool, np.bool_)):
                raise NotImplementedError("boolean scalar indexing on wgpu is not implemented yet")
            else:
                try:
                    i = operator.index(k)
                except TypeError:
                    raise NotImplementedError(
                        f"indexing with {type(k).__name__} (advanced indexing) is not "
                        "implemented on wgpu yet"
                    ) from None
                if not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for axis {d} with size {n}")
                off += (i % n) * s
            d += 1
        return self.view_of(off * self.dtype.itemsize, tuple(shape), tuple(strides))

    def reshape(self, *shape: Any, order: str = "C") -> WgpuArray:
        """A view when the array is contiguous, else a contiguous copy reshaped."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        new = _resolve_shape(tuple(operator.index(s) for s in shape), self.size)
        if order not in ("C", "A", "K", None):
            raise NotImplementedError(f"reshape order={order!r} is not implemented on wgpu yet")
        src = self if self.is_contiguous else self.copy()
        return src.view_of(src.offset, new, _c_strides(new))

    def ravel(self) -> WgpuArray:
        return self.reshape(-1)

    # -- copies (kernels) ------------------------------------------------------------------
    def copy(self) -> WgpuArray:
        from .ops import astype

        return astype(self, self.dtype, copy=True)

    def astype(self, dtype: Any, copy: bool = True) -> WgpuArray:
        from .ops import astype

        return astype(self, dtype, copy=copy)

    def to_host(self) -> np.ndarray:
        return self.ctx.allocator.to_host(self)

    def __setitem__(self, key: Any, value: Any) -> None:
        from .ops import assign

        assign(self[key], value)


def _resolve_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    if shape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    if any(s < 0 for s in shape) or math.prod(shape) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
    return shape
