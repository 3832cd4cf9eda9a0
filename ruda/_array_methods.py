"""What Array does over the namespace functions, attached to Array once the namespace exists:
NumPy's ndarray methods and attributes, the standard's ``__array_namespace__``, and NumPy's
protocols (``__array_ufunc__``, ``__array_function__``), which run ruda's function of the same
name on the arrays' device.

Each method is a namespace function with ``self`` first, so every backend serves them;
the few that are about the host (``tolist``, ``item``, ``tofile``) copy explicitly.
"""

from __future__ import annotations

import builtins
import pickle
from typing import Any

import numpy as np

from ._array import (
    SPEEDUPS,
    SUPPORTED_VERSIONS,
    Array,
    _common_device,
    _flat,
    _ndarray,
    _unwrap,
    _unwrap_tree,
    _wrap,
    _wrap_tree,
    callx,
)
from ._devices import CPU
from ._interop import HOW, get_implicit_transfer, transfer_error

# -- over the namespace: ruda/__init__.py hands the finished package over (install) -------------
ruda: Any = None


def install(namespace: Any) -> None:
    """Bind these methods to the finished namespace (called last by ``ruda/__init__.py``)."""
    global ruda
    ruda = namespace


# -- the standard's namespace and NumPy's protocols -------------------------------------------
def _array_namespace(self, /, *, api_version: str | None = None) -> Any:
    if api_version is not None and api_version not in SUPPORTED_VERSIONS:
        raise ValueError(
            f"ruda.Array.__array_namespace__: api_version {api_version!r} is not supported; "
            f"supported versions are {', '.join(SUPPORTED_VERSIONS)}"
        )
    return ruda


def _array_ufunc(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    # NumPy's ufuncs on ruda arrays give ruda arrays (np.add(x, 1), np.float64(2) * x).
    out = kwargs.get("out")
    dev = _common_device(ufunc.__name__, inputs + tuple(out or ()))
    if dev is not CPU:
        return numpy_on_device(ufunc.__name__, ufunc, method, inputs, kwargs, dev)
    inputs = tuple(_unwrap(x) for x in inputs)
    if out:
        kwargs["out"] = tuple(_unwrap(x) for x in out)
    if "where" in kwargs:
        kwargs["where"] = _unwrap(kwargs["where"])
    r = _wrap_tree(getattr(ufunc, method)(*inputs, **kwargs), dev)
    if out:  # NumPy returns the out= arrays themselves
        if len(out) == 1 and isinstance(out[0], Array):
            return out[0]
        if isinstance(r, tuple):
            return tuple(o if isinstance(o, Array) else v for o, v in zip(out, r, strict=True))
    return r


def _array_function(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    # NumPy functions called on ruda arrays give ruda arrays on the same device.
    for t in types:  # the protocol: defer to types we do not know
        if not (issubclass(t, Array) or issubclass(t, _ndarray)):
            return NotImplemented
    flat = _flat(args) + _flat(tuple(kwargs.values()))
    dev = _common_device(func.__name__, flat)
    if dev is CPU and self._device is not CPU and not any(a is self for a in flat):
        dev = self._device  # NEP 35: numpy.ones(3, like=x) makes it where x lives
        kwargs = {**kwargs, "device": dev}
    if dev is not CPU:
        return numpy_on_device(func.__name__, func, None, args, kwargs, dev)
    return _wrap_tree(func(*_unwrap_tree(args), **_unwrap_tree(kwargs)), dev)


# NumPy keywords that name a positional-only parameter of ruda's function (NumPy passes them
# by name when it dispatches numpy.eye(3, like=x)).
_POSITIONAL = {"eye": "M"}


def numpy_on_device(
    name: str, func: Any, method: str | None, args: Any, kwargs: Any, dev: Any
) -> Any:
    """A NumPy function or ufunc called on arrays of a non-CPU device (``numpy.mean(x)``).

    ruda's function of the same name runs on the device; failing that, NumPy runs on host
    copies, and the results go back to the device, when implicit transfers are allowed.
    """
    if method in (None, "__call__") and _host_outs(kwargs):
        return _into_host_outs(name, func, method, args, kwargs, dev)
    mod = getattr(func, "__module__", None) or "numpy"
    sub = {"numpy.linalg": "linalg", "numpy.fft": "fft"}.get(mod, "")
    target = None
    if method in (None, "__call__"):
        target = getattr(getattr(ruda, sub) if sub else ruda, name, None)
    if callable(target):
        moved = _POSITIONAL.get(name)
        if moved is not None and moved in kwargs:
            kwargs = dict(kwargs)
            args = (*args, kwargs.pop(moved))
        return target(*args, **kwargs)
    if not get_implicit_transfer():
        raise transfer_error(f"{name} (called through NumPy)", dev)
    call = func if method is None else getattr(func, method)
    return _to_device_tree(call(*_host_tree(args), **_host_tree(kwargs)), dev)


def _host_outs(kwargs: Any) -> bool:
    """Whether NumPy passed ``out=`` holding a NumPy array (``ndarray += gpu_array`` does)."""
    import numpy as np

    out = kwargs.get("out")
    outs = out if isinstance(out, tuple) else (out,)
    return any(isinstance(o, np.ndarray) for o in outs)


def _into_host_outs(name: str, func: Any, method: str | None, args: Any, kwargs: Any,
                    dev: Any) -> Any:  # fmt: skip
    """A NumPy call on device arrays whose ``out=`` is a NumPy array: computed on the device,
    then copied into the host array, which needs implicit transfers (else a TypeError that
    says what the caller did). Returns the out= arrays as the cpu does (a NumPy one wrapped as
    a cpu array sharing its memory)."""
    out = kwargs["out"]
    outs = out if isinstance(out, tuple) else (out,)
    if not get_implicit_transfer():
        raise TypeError(
            f"ruda.{name}: NumPy called {name} with out= a numpy.ndarray (an in-place operator "
            f"such as `ndarray += x` does this) and an operand on {dev}; the result would be "
            f"copied to the host implicitly. Write into a ruda array, or {HOW}"
        )
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    r = numpy_on_device(name, func, method, args, rest, dev)
    rs = r if isinstance(r, tuple) else (r,)
    for o, v in zip(outs, rs, strict=True):
        if isinstance(o, np.ndarray):
            h = v.to_device("cpu")._data if isinstance(v, Array) else np.asarray(v)
            np.copyto(o, h, casting="same_kind")
        elif o is not None:
            o[...] = v
    # as on the cpu (``ruda.Array.__array_ufunc__``): the out= arrays, a NumPy one as a cpu array
    done = tuple(_wrap(o, CPU) if isinstance(o, np.ndarray) else o for o in outs)
    return done if len(done) > 1 else done[0]


def _host_tree(x: Any) -> Any:
    if isinstance(x, Array):
        return x.to_device("cpu")._data
    if type(x) in (list, tuple):
        return type(x)(_host_tree(v) for v in x)
    if type(x) is dict:
        return {k: _host_tree(v) for k, v in x.items()}
    return x


def _to_device_tree(x: Any, dev: Any) -> Any:
    if isinstance(x, (np.ndarray, np.generic)):
        return _wrap(dev.backend.allocator.from_host(np.asarray(x)), dev)
    if type(x) in (list, tuple):
        return type(x)(_to_device_tree(v, dev) for v in x)
    return x


Array.__array_namespace__ = _array_namespace
Array.__array_ufunc__ = _array_ufunc
Array.__array_function__ = _array_function


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
    from ._native._speedups import set_reshape

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
