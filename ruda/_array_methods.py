"""NumPy's ndarray methods and attributes, attached to Array over the namespace functions.

Each method is a namespace function with ``self`` first, so every backend serves them;
the few that are about the host (``tolist``, ``item``, ``tofile``) copy explicitly.
"""

from __future__ import annotations

import builtins
import pickle
from typing import Any

import numpy as np

import ruda

from ._array import SPEEDUPS, Array, _wrap, callx
from ._devices import CPU

# Methods that are exactly ``ruda.<name>(self, *args, **kwargs)``.
_SAME_NAME = (
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "choose", "clip",
    "conj", "conjugate", "cumprod", "cumsum", "diagonal", "dot", "max", "mean", "min", "nonzero",
    "prod", "ptp", "put", "ravel", "repeat", "round", "searchsorted", "squeeze", "std", "sum",
    "swapaxes", "take", "trace", "var",
)  # fmt: skip


_WHOLE_ARRAY = {"sum", "prod", "max", "min", "mean", "any", "all"}


def _forward(name: str):
    if name in _WHOLE_ARRAY:
        # x.sum(): the whole-array reduction goes straight to the backend (no namespace frames)
        def method(self: Array, *args: Any, **kwargs: Any) -> Any:
            if not args and not kwargs:
                r = callx(name, self)
                if r is not NotImplemented:
                    return r
            return getattr(ruda, name)(self, *args, **kwargs)
    else:

        def method(self: Array, *args: Any, **kwargs: Any) -> Any:
            return getattr(ruda, name)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Same as ``ruda.{name}(x, ...)``."
    return method


for _name in _SAME_NAME:
    setattr(Array, _name, _forward(_name))
del _name


def astype(
    self: Array,
    dtype: Any,
    order: str = "K",
    casting: str = "unsafe",
    subok: bool = True,
    copy: bool = True,
    *,
    device: Any = None,
) -> Array:
    """Cast to ``dtype`` (NumPy's method form of ``ruda.astype``)."""
    if casting != "unsafe" and not np.can_cast(self._data.dtype, ruda.dtype(dtype)._np, casting):
        raise TypeError(
            f"ruda.Array.astype: cannot cast {self.dtype} to {dtype} with casting={casting!r}"
        )
    return ruda.astype(self, dtype, copy=copy, device=device)


def reshape(self: Array, *shape: Any, order: str = "C", copy: bool | None = None) -> Array:
    """Reshape; like NumPy, accepts ``x.reshape(2, 3)`` and ``x.reshape((2, 3))``."""
    if len(shape) == 1:
        shape = shape[0]
    if order == "C" and copy is None and (type(shape) is tuple or type(shape) is int):
        return callx("reshape", self, shape)
    if not isinstance(shape, int):
        shape = tuple(shape)
    if order != "C":
        return _wrap(self._data.reshape(shape, order=order), self._device)
    return ruda.reshape(self, shape, copy=copy)


def transpose(self: Array, *axes: Any) -> Array:
    """Permute axes; ``x.transpose()`` reverses them, as in NumPy."""
    if not axes or axes == (None,):
        return self.T
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = tuple(axes[0])
    return ruda.permute_dims(self, axes)


def flatten(self: Array, order: str = "C") -> Array:
    """A flattened copy."""
    return (
        ruda.reshape(self, (-1,), copy=True)
        if order == "C"
        else ruda.asarray(self._data.flatten(order), device=self._device)
    )


def copy(self: Array, order: str = "C") -> Array:
    """A copy on the same device."""
    return ruda.asarray(self, copy=True)


def compress(self: Array, condition: Any, axis: int | None = None, out: Any = None) -> Array:
    """Elements where ``condition`` is true (NumPy's argument order: condition first)."""
    return ruda.compress(condition, self, axis=axis, out=out)


def fill(self: Array, value: Any) -> None:
    """Set every element to ``value`` in place."""
    self[...] = value


def sort(self: Array, axis: int = -1, kind: str | None = None, order: Any = None) -> None:
    """Sort in place along ``axis`` (NumPy's method; ``ruda.sort`` returns a copy)."""
    self[...] = ruda.sort(self, axis=axis, kind=kind, order=order)


def partition(self: Array, kth: Any, axis: int = -1, kind: str = "introselect", order: Any = None):
    """Partition in place (NumPy's method)."""
    self[...] = ruda.partition(self, kth, axis=axis, kind=kind, order=order)


def item(self: Array, *args: Any) -> Any:
    """The element as a Python scalar (copies it to the host)."""
    return self._host().item(*args)


def tolist(self: Array) -> Any:
    """Nested Python lists (copies to the host)."""
    return self._host().tolist()


def tobytes(self: Array, order: str = "C") -> bytes:
    """Raw bytes (copies to the host)."""
    return self._host().tobytes(order)


def tofile(self: Array, fid: Any, sep: str = "", format: str = "%s") -> None:
    """Write to a file as NumPy's ``ndarray.tofile`` does (copies to the host)."""
    self._host().tofile(fid, sep=sep, format=format)


def dumps(self: Array) -> bytes:
    """Pickle to bytes."""
    return pickle.dumps(self)


def dump(self: Array, file: Any) -> None:
    """Pickle to a file (name or open binary file)."""
    if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__"):
        with open(file, "wb") as f:
            pickle.dump(self, f)
    else:
        pickle.dump(self, file)


def view(self: Array, dtype: Any = None, type: Any = None) -> Array:
    """A view with another dtype (same bytes) or the same array object."""
    if dtype is None:
        return _wrap(self._data.view(), self._device)
    if isinstance(dtype, builtins.type) and issubclass(dtype, Array):
        return _wrap(self._data.view(), self._device)
    return _wrap(self._device._ops["view"](self._data, ruda.dtype(dtype)._np), self._device)


def byteswap(self: Array, inplace: bool = False) -> Array:
    """Swap the bytes of each element."""
    r = self._data.byteswap(inplace=inplace)
    return self if inplace else _wrap(r, self._device)


def __contains__(self: Array, value: Any) -> builtins.bool:
    return builtins.bool(ruda.any(self == value))


def __round__(self: Array, ndigits: int | None = None) -> Any:
    if ndigits is None:
        return round(self._host().item()) if self.ndim == 0 else ruda.round(self)
    return ruda.round(self, decimals=ndigits)


for _f in (astype, transpose, flatten, copy, compress, fill, sort, partition, item, tolist,
           tobytes, tofile, dumps, dump, view, byteswap, __contains__, __round__):  # fmt: skip
    setattr(Array, _f.__name__, _f)
del _f

if SPEEDUPS:  # the C base's reshape serves the common calls and hands the rest to ours
    from ._speedups import set_reshape

    set_reshape(reshape)
else:
    Array.reshape = reshape


def _real(self: Array) -> Array:
    return _wrap(self._data.real, self._device) if self._device is CPU else ruda.real(self)


def _set_real(self: Array, value: Any) -> None:
    self._data.real = value._data if isinstance(value, Array) else value


def _imag(self: Array) -> Array:
    return _wrap(self._data.imag, self._device) if self._device is CPU else ruda.imag(self)


def _set_imag(self: Array, value: Any) -> None:
    self._data.imag = value._data if isinstance(value, Array) else value


def _host_only(attr: str):
    def get(self: Array) -> Any:
        if self._device is not CPU:
            raise AttributeError(
                f"ruda.Array.{attr}: only for cpu arrays (this one is on {self._device})"
            )
        return getattr(self._data, attr)

    return property(get, doc=f"NumPy's ``ndarray.{attr}`` (cpu arrays).")


Array.real = property(_real, _set_real, doc="The real part (a view on the CPU).")
Array.imag = property(_imag, _set_imag, doc="The imaginary part (a view on the CPU).")
Array.strides = property(lambda self: self._data.strides, doc="Bytes to step in each dimension.")
Array.itemsize = property(lambda self: self._data.itemsize, doc="Bytes per element.")
Array.nbytes = property(lambda self: self._data.nbytes, doc="Bytes of all elements.")
for _attr in ("flat", "flags", "base", "ctypes", "data"):
    setattr(Array, _attr, _host_only(_attr))
del _attr
