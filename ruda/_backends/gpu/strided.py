"""``StridedArray``: the backend-independent half of a GPU backend's native array.

A native array is a device allocation plus byte ``offset``, ``shape``, element ``_strides`` and
``dtype``. Everything here only reads those: NumPy's attributes, contiguity, and the views
(basic indexing, transposes, reshapes of contiguous arrays). A backend's subclass adds the
allocation slot, ``view_of`` (a new view of the same allocation) and ``shares_memory``.
``strides`` reports bytes, as NumPy does; ``_strides`` holds elements for the kernels.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .indexing import basic_index, element_index, is_basic
from .layout import c_strides, span


def resolve_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    """``shape`` with its one ``-1`` filled in; ValueError if it cannot hold ``size`` elements."""
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


class StridedArray:
    """Shape, strides, offset and dtype over some device allocation; the views NumPy makes."""

    __slots__ = ()
    __array_priority__ = -1
    ops: Any = None  # the backend's GpuOps (copies and assignments run its kernels)

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
    def device(self) -> str:
        return self.ctx.name

    @property
    def is_contiguous(self) -> bool:
        """C-contiguous (dimensions of length 1 may have any stride)."""
        return contiguous(self.shape, self._strides)

    @property
    def flags(self) -> dict[str, bool]:
        return {"C_CONTIGUOUS": self.is_contiguous, "WRITEABLE": not self.readonly}

    @property
    def elem_offset(self) -> int:
        return self.offset // self.dtype.itemsize

    @property
    def T(self) -> Any:
        return self.transpose()

    @property
    def mT(self) -> Any:
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
            f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype}, "
            f"strides={self.strides}, offset={self.offset}, device={self.ctx.name})"
        )

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"ruda: an array on {self.ctx.name} is not copied to the host implicitly; "
            "call to_host() / x.to_device('cpu')"
        )

    # -- views ----------------------------------------------------------------------------
    def view_of(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> Any:
        raise NotImplementedError

    def shares_memory(self, other: Any) -> bool:
        """True when ``other`` views the same allocation (it may overlap this array)."""
        raise NotImplementedError

    def transpose(self, axes: Any = None) -> Any:
        if axes is None:
            axes = tuple(reversed(range(self.ndim)))
        axes = tuple(operator.index(a) % max(self.ndim, 1) for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"axes {axes} are not a permutation of {self.ndim} dimensions")
        return self.view_of(
            self.offset, tuple(self.shape[a] for a in axes), tuple(self._strides[a] for a in axes)
        )

    def __getitem__(self, key: Any) -> Any:
        """Basic indexing (ints, slices, None, Ellipsis) as views; integer and boolean arrays
        (advanced indexing) gather into a new array (``gpu.indexing``)."""
        if type(key) is not int and type(key) is not slice and not is_basic(key):
            from .indexing import getitem

            return getitem(self, key)
        off, shape, strides = basic_index(self, key)
        return self.view_of(off * self.dtype.itemsize, shape, strides)

    def reshape(self, *shape: Any, order: str = "C") -> Any:
        """A view when the array is contiguous, else a contiguous copy reshaped."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        new = resolve_shape(tuple(operator.index(s) for s in shape), self.size)
        if order not in ("C", "A", "K", None):
            raise NotImplementedError(
                f"reshape order={order!r} is not implemented on {self.ctx.name} yet"
            )
        src = self if self.is_contiguous else self.copy()
        return src.view_of(src.offset, new, c_strides(new))

    def ravel(self) -> Any:
        return self.reshape(-1)

    # -- copies (the backend's kernels) -------------------------------------------------------
    def copy(self) -> Any:
        return self.ops.copy(self)

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        return self.ops.astype(self, dtype, copy=copy)

    def to_host(self) -> np.ndarray:
        return self.ctx.allocator.to_host(self)

    def __setitem__(self, key: Any, value: Any) -> None:
        if self.readonly:
            raise_readonly()
        if type(key) is tuple and type(value) is type(self) and value.dtype == self.dtype:
            # one element from a one-element array (a Python loop, ``a[i, i] = v``): a copy
            at = element_index(self, key)
            if at is not None and value.size == 1 and value.ctx is self.ctx:
                size = self.dtype.itemsize
                if self.ops.copy_span(value, value.offset, self, at * size, size):
                    return
        if type(key) is not int and type(key) is not slice and not is_basic(key):
            from .indexing import setitem

            setitem(self, key, value)  # a scatter
            return
        self.ops.assign(self[key], value)


def raise_readonly() -> None:
    """NumPy's error for a write into a read-only array (``broadcast_to``'s views...)."""
    raise ValueError("assignment destination is read-only")


def read_only(x: Any, readonly: bool = True) -> Any:
    """``x`` (a fresh view) marked read-only, as NumPy marks ``broadcast_to``'s result; a view
    of a read-only array stays read-only whatever ``readonly`` says."""
    x.readonly = readonly or x.readonly
    return x


def read_only_result(fn: Any) -> Any:
    """``fn`` whose result (a view) is read-only: NumPy's ``diagonal``."""

    def view(*args: Any, **kwargs: Any) -> Any:
        return read_only(fn(*args, **kwargs))

    view.__name__ = view.__qualname__ = getattr(fn, "__name__", "view")
    view.__doc__ = fn.__doc__
    return view


def contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """C-contiguous element ``strides`` for ``shape`` (length-1 dimensions may have any)."""
    acc = 1
    for n, s in zip(reversed(shape), reversed(strides), strict=True):
        if n == 0:
            return True
        if n != 1 and s != acc:
            return False
        acc *= n
    return True


__all__ = ["StridedArray", "basic_index", "c_strides", "contiguous", "is_basic",
           "raise_readonly", "read_only", "read_only_result", "resolve_shape",
           "span"]  # fmt: skip
