"""The Array object: a backend-native array plus its device; dunders come from the op table.

On the CPU the native array is a ``numpy.ndarray`` (buffer, shape, strides, offset and dtype in
one), so slicing gives views with NumPy's semantics. Other backends bring their own native type.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import _dtypes as dt
from . import _interop
from ._backends import DL_TYPE, STREAM_KINDS
from ._devices import CPU, Device, resolve
from ._dtypes import kind_of
from ._errors import annotate, refuse_object
from ._ops import ELEMENTWISE

try:  # the C hot paths (ruda/_native/_speedups.c); built by pip install or scripts/build_ext.sh
    from ._native import _speedups
except ImportError:  # pragma: no cover - exercised where the extension is not built
    _speedups = None
SPEEDUPS = _speedups is not None

_ndarray = np.ndarray
_SCALARS = (int, float, complex, bool)


class Array:
    """An n-dimensional array on a device; ``ruda.ndarray`` is this type.

    >>> import ruda as np
    >>> x = np.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> (x @ x.mT).shape
    (2, 2)
    >>> x[1:, :] += 1; x
    array([[1., 2.],
           [4., 5.]])
    """

    # With the C extension, this class body is copied onto the C type ruda._native._speedups.Array,
    # whose struct holds _data, _device and the weakref list (see _install_speedups).
    __slots__ = ("_data", "_device", "__weakref__")
    __hash__ = None  # type: ignore[assignment]
    # Makes NumPy defer to our reflected operators and ufunc hook (np.float64(2) * x stays ruda).
    __array_priority__ = 1000

    # Note: no __new__/__init__ on purpose: ``Array()`` is the cheapest way to make the object
    # (the wrapper's cost is the product on small arrays). Public code makes arrays with
    # ruda.asarray, ruda.array, ruda.empty...; a bare ``Array()`` has no data.

    # -- attributes of the standard -------------------------------------------------
    @property
    def dtype(self) -> dt.DType:
        return dt.from_numpy(self._data.dtype)

    @property
    def device(self) -> Device:
        return self._device

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @shape.setter
    def shape(self, value: Any) -> None:
        # NumPy lets scripts reshape in place by assigning to .shape.
        self._data.shape = value

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def mT(self) -> Array:
        if self._data.ndim < 2:
            raise ValueError(f"ruda.Array.mT: needs at least 2 dimensions, got {self._data.ndim}")
        return _wrap(self._device._ops["matrix_transpose"](self._data), self._device)

    @property
    def T(self) -> Array:
        # Note: the standard defines .T for 2-D arrays only; NumPy reverses all axes, so do we.
        return _wrap(self._data.T, self._device)

    # -- devices and interchange ------------------------------------------------------
    def to_device(self, device: Any, /, *, stream: Any = None) -> Array:
        """This array on ``device`` (itself when it is there already).

        ``stream`` (the standard's): where a cuda device takes part, the copy on it runs on
        that stream (a ``ruda.cuda.Stream``, an int address: 1 the legacy default stream, 2 the
        per-thread one, -1 the current stream without synchronization) after the work queued
        on the current stream, which waits for the copy in turn; on the same device the stream
        is made to wait for that work. cpu and wgpu have no streams: only None (ValueError).
        """
        dev = resolve(device)
        if stream is not None:
            src = self._device
            if src.kind not in STREAM_KINDS and dev.kind not in STREAM_KINDS:
                raise ValueError(
                    f"ruda.Array.to_device: stream must be None for a copy from {src} to {dev} "
                    f"(cpu and wgpu devices have no streams), got {stream!r}"
                )
            from . import cuda

            native = cuda.transfer(self, dev, stream)
            return self if dev is src else _wrap(native, dev)
        if dev is self._device:
            return self
        if self._data.dtype.hasobject:
            refuse_object(self._data.dtype, "Array.to_device", dev)
        host = self._device.backend.allocator.to_host(self._data)
        return _wrap(dev.backend.allocator.from_host(host), dev)

    def __dlpack__(
        self,
        /,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[Any, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        # The standard's stream: on CUDA an int (-1, 1, 2 or a handle; a ruda.cuda.Stream
        # too), which the export makes wait for the work queued on the current stream; devices
        # without streams (cpu, wgpu) take None only.
        if stream is not None:
            if self._device.kind not in STREAM_KINDS:
                raise ValueError(
                    f"ruda.Array.__dlpack__: stream must be None for an array on "
                    f"{self._device} (it has no streams), got {stream!r}"
                )
            from .cuda import stream_pointer

            stream = stream_pointer(stream, "ruda.Array.__dlpack__")
        if self._device is CPU:
            kw: dict[str, Any] = {}
            if max_version is not None:
                kw["max_version"] = max_version
            if dl_device is not None:
                kw["dl_device"] = dl_device
            if copy is not None:
                kw["copy"] = copy
            return self._data.__dlpack__(**kw)
        if dl_device is not None and int(dl_device[0]) == 1:  # kDLCPU: the consumer asks
            return _interop.dlpack_to_host(self, max_version=max_version, copy=copy)
        backend = self._device.backend
        if not hasattr(backend, "dlpack"):  # the standard's error for "cannot export"
            raise BufferError(
                f"ruda.Array.__dlpack__: arrays on {self._device} cannot be exported through "
                "DLPack; copy with x.to_device('cpu') first, or ask for a host copy with "
                "dl_device=(1, 0) (numpy.from_dlpack(x, device='cpu'))"
            )
        return backend.dlpack(
            self._data, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
        )

    def __dlpack_device__(self, /) -> tuple[Any, int]:
        if self._device is CPU:
            return self._data.__dlpack_device__()
        backend = self._device.backend
        if hasattr(backend, "dlpack_device"):
            return backend.dlpack_device(self._data)
        # dlpack.h's DLDeviceType of the kind, from the backend registry
        return (DL_TYPE[self._device.kind], self._device.index)

    # -- conversion to Python scalars (the host waits here) -----------------------------
    def _host(self) -> np.ndarray:
        if self._device is CPU:
            return self._data
        return self._device.backend.allocator.to_host(self._data)

    def __bool__(self) -> bool:
        return bool(self._host())

    def __int__(self) -> int:
        return int(self._host())

    def __float__(self) -> float:
        return float(self._host())

    def __complex__(self) -> complex:
        return complex(self._host())

    def __index__(self) -> int:
        h = self._host()
        if kind_of(h.dtype) not in "iu":
            raise TypeError(f"ruda.Array.__index__: needs an integer array, not {h.dtype}")
        return operator.index(h)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d ruda array")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d ruda array")
        for i in range(self._data.shape[0]):
            yield self[i]

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        # NumPy 2's protocol: copy=True always copies, copy=False never does (ValueError).
        if self._device is not CPU:
            if not _interop.get_implicit_transfer():
                raise _interop.transfer_error("Array.__array__", self._device)
            if copy is False:
                raise ValueError(
                    f"ruda.Array.__array__: copy=False, but an array on {self._device} "
                    "reaches the host only by a copy"
                )
            host = self._device.backend.allocator.to_host(self._data)
            return host if dtype is None else host.astype(dt.to_numpy(dtype), copy=False)
        if copy:
            return np.array(self._data, dtype=dt.to_numpy(dtype), copy=True)
        if dtype is not None:
            npdt = dt.to_numpy(dtype)
            if copy is False and npdt != self._data.dtype:
                raise ValueError(
                    f"ruda.Array.__array__: copy=False, but converting {self._data.dtype} "
                    f"to {npdt} copies"
                )
            return np.asarray(self._data, dtype=npdt)
        return self._data

    # -- indexing ---------------------------------------------------------------------
    def __getitem__(self, key: Any, /) -> Array:
        t = type(key)
        if t is not int and t is not slice:
            key = _index_key(key, self._device)
        try:
            r = self._data[key]
        except Exception as e:
            raise annotate("Array.__getitem__", e) from e
        d = self._data
        if d.dtype.kind == "O" and (type(r) is not _ndarray or _one_element(key, d.ndim)):
            # NumPy's rule: an object array's element is the Python object stored, never
            # converted (None stays None, a list stays a list, a dict can be indexed)
            return r
        return _wrap(r, self._device)  # _wrap makes NumPy scalars 0-d arrays on the cpu

    def __setitem__(self, key: Any, value: Any, /) -> None:
        t = type(key)
        if t is tuple:
            for k in key:  # a tuple of Python ints (``a[i, j] = v`` in a loop) needs nothing
                if type(k) is not int:
                    key = _index_key(key, self._device)
                    break
        elif t is not int and t is not slice:
            key = _index_key(key, self._device)
        if self._data.dtype.kind == "O" and _one_element(key, self._data.ndim):
            # One element of an object array holds whatever is assigned (NumPy stores the
            # reference): a dict, a list, a ruda array are kept as they are.
            try:
                self._data[key] = value
            except Exception as e:
                raise annotate("Array.__setitem__", e) from e
            return
        if type(value) is Array:
            if value._device is not self._device and _is_host_value(value):
                value = _wrap(_moved(value, self._device), self._device)  # a host value
            if value._device is not self._device:
                raise ValueError(
                    f"ruda.Array.__setitem__: value is on {value._device}, the array on "
                    f"{self._device}; move one with to_device()"
                )
            value = value._data
        elif type(value) in _SCALARS and self._device is not CPU:
            # the namespace converts a Python scalar as NumPy stores it (OverflowError for an int
            # the dtype cannot hold); the backend assigns a NumPy scalar of its dtype
            try:
                value = np.asarray(value, dtype=self._data.dtype)[()]
            except Exception as e:
                raise annotate("Array.__setitem__", e) from e
        try:
            self._data[key] = value
        except Exception as e:
            raise annotate("Array.__setitem__", e) from e

    # -- printing ---------------------------------------------------------------------
    def __repr__(self) -> str:
        text = np.array_repr(self._host())
        if self._device is not CPU:
            text = text[:-1] + f", device={str(self._device)!r})"
        return text

    def __str__(self) -> str:
        return str(self._host())

    def __format__(self, spec: str) -> str:
        h = self._host()
        return format(h[()] if h.ndim == 0 else h, spec)

    # -- copying and pickling -----------------------------------------------------------
    def __copy__(self) -> Array:
        return _wrap(self._data.copy(), self._device)

    def __deepcopy__(self, memo: Any) -> Array:
        return self.__copy__()

    def __reduce__(self):
        return (_rebuild, (self._host(), str(self._device)))


SUPPORTED_VERSIONS = ("2023.12", "2024.12", "2025.12")


def _rebuild(host: np.ndarray, device: str) -> Array:
    dev = resolve(device)
    if dev is CPU:
        return _wrap(host, dev)
    return _wrap(dev.backend.allocator.from_host(host), dev)


_new_array = Array


def _wrap(data: Any, device: Device) -> Array:
    """A new Array around a native array (NumPy scalars become 0-d arrays on the CPU)."""
    if type(data) is not _ndarray and device is CPU:
        data = np.asarray(data)
    a = _new_array()
    a._data = data
    a._device = device
    return a


def _unwrap(x: Any) -> Any:
    return x._data if type(x) is Array or isinstance(x, Array) else x


def _flat(items: tuple) -> tuple:
    out: list[Any] = []
    for x in items:
        if isinstance(x, (list, tuple)):
            out.extend(_flat(tuple(x)))
        else:
            out.append(x)
    return tuple(out)


def _unwrap_tree(x: Any) -> Any:
    if isinstance(x, Array):
        return x._data
    if type(x) in (list, tuple):
        return type(x)(_unwrap_tree(v) for v in x)
    if type(x) is dict:
        return {k: _unwrap_tree(v) for k, v in x.items()}
    return x


def _wrap_tree(x: Any, device: Device) -> Any:
    """Wrap the native arrays in a (nested) tuple or list of results; leave other values alone."""
    if type(x) in (list, tuple):
        return type(x)(_wrap_tree(v, device) for v in x)
    if device is CPU:
        return _wrap(x, device) if type(x) is _ndarray or isinstance(x, np.generic) else x
    # other backends: their native array type (it has a shape and a dtype, as NumPy's does)
    return _wrap(x, device) if hasattr(x, "shape") and hasattr(x, "dtype") else x


def _common_device(fname: str, items: tuple) -> Device:
    dev = None
    for x in items:
        if isinstance(x, Array):
            if dev is None:
                dev = x._device
            elif x._device is not dev:
                raise ValueError(
                    f"ruda.{fname}: arrays are on different devices ({dev} and {x._device}); "
                    "move them with to_device(), ruda never transfers silently"
                )
    return dev if dev is not None else CPU


def _index_key(key: Any, device: Device) -> Any:
    """Replace ruda arrays inside an index by native ones (after a device check)."""
    if type(key) is tuple:
        return tuple(_index_part(k, device) for k in key)
    return _index_part(key, device)


def _one_element(key: Any, ndim: int) -> bool:
    """Whether native ``key`` picks one element of an ``ndim``-d array: an integer (or 0-d
    integer array) for every dimension, NumPy's rule for returning a scalar."""
    parts = key if type(key) is tuple else (key,)
    if len(parts) != ndim:
        return False
    for k in parts:
        if type(k) is int:
            continue
        if isinstance(k, _ndarray):
            if k.ndim or kind_of(k.dtype) not in "iu":
                return False
        elif isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            return False
    return True


def _index_part(k: Any, device: Device) -> Any:
    if isinstance(k, Array):
        if k._device is not device:
            raise ValueError(
                f"ruda.Array.__getitem__: index array is on {k._device}, the array on {device}"
            )
        return k._data
    if type(k) is list and device is CPU:
        # NumPy treats a list index as an integer (or boolean) array; an empty one as intp.
        a = np.asarray([_unwrap(v) for v in k])
        return a.astype(np.intp) if a.size == 0 and kind_of(a.dtype) == "f" else a
    return k


def _mismatch(name: str, a: Array, b: Array) -> ValueError:
    return ValueError(
        f"ruda.{name}: operands are on different devices ({a._device} and {b._device}); "
        "move one with to_device(), ruda never transfers silently"
    )


def _is_host_value(x: Array) -> bool:
    return x._device is CPU and x._data.ndim == 0


def _moved(x: Array, device: Device) -> Any:
    """A 0-d cpu array's value as a native 0-d array on ``device`` (its dtype kept)."""
    return device.backend.allocator.from_host(x._data)


def _operand(name: str, self: Array, other: Any) -> Any:
    """A native operand for a binary dunder, or NotImplemented for foreign types."""
    if isinstance(other, Array):
        if other._device is not self._device:
            # Note: a 0-d cpu array is a host value, moved as a Python scalar would be (as
            # PyTorch's 0-d cpu tensors are); arrays with dimensions never move silently.
            if _is_host_value(other):
                return _moved(other, self._device)
            raise _mismatch(name, self, other)
        return other._data
    if isinstance(other, np.generic):
        return other
    if isinstance(other, (np.ndarray, list, tuple)):
        if self._device is not CPU:
            raise TypeError(
                f"ruda.{name}: cannot combine an array on {self._device} with host data "
                f"({type(other).__name__}); convert it with ruda.asarray(..., device=x.device)"
            )
        return np.asarray(other)
    return NotImplemented


# The namespace's elementwise call for devices other than the cpu (``_device_ufunc.call``, which
# sets it when it is imported: it imports this module), where NumPy's ufunc decisions are made.
_device_call: Any = None


def set_device_call(fn: Any) -> None:
    """Install the namespace's elementwise call for devices other than the cpu."""
    global _device_call
    _device_call = fn


def _make_binary(name: str) -> tuple[Any, Any, Any]:
    # matmul is no elementwise op: every device's backend takes it as it is
    decided = name != "matmul"

    def forward(self: Array, other: Any, /) -> Any:
        t = type(other)
        dev = self._device
        if t is Array:
            if other._device is not dev:
                if _is_host_value(self) and not _is_host_value(other):
                    # a 0-d cpu array on the left: the op runs where the other operand is
                    d = other._device
                    a = _moved(self, d)
                    if decided:
                        return _device_call(name, (a, other._data), None, {}, d)
                    return _wrap(d._ops[name](a, other._data), d)
                o = _operand(name, self, other)
            else:
                o = other._data
        elif t in _SCALARS:
            o = other
        else:
            o = _operand(name, self, other)
            if o is NotImplemented:
                return NotImplemented
        if decided and dev is not CPU:
            return _device_call(name, (self._data, o), None, {}, dev)
        return _wrap(dev._ops[name](self._data, o), dev)

    def reflected(self: Array, other: Any, /) -> Any:
        o = other if type(other) in _SCALARS else _operand(name, self, other)
        if o is NotImplemented:
            return NotImplemented
        dev = self._device
        if decided and dev is not CPU:
            return _device_call(name, (o, self._data), None, {}, dev)
        return _wrap(dev._ops[name](o, self._data), dev)

    def inplace(self: Array, other: Any, /) -> Array:
        o = other if type(other) in _SCALARS else _operand(name, self, other)
        if o is NotImplemented:
            return NotImplemented
        dev = self._device
        if decided and dev is not CPU:
            return _device_call(name, (self._data, o), self, {}, dev)
        dev._ops[name](self._data, o, out=self._data)
        return self

    return forward, reflected, inplace


def _make_unary(name: str) -> Any:
    def method(self: Array, /) -> Array:
        return _wrap(self._device._ops[name](self._data), self._device)

    return method


# Dunders from the op table: one loop, no hand-written copies.
for _op in ELEMENTWISE:
    if not _op.dunder or _op.dunder == "divmod":  # divmod has two results: below
        continue
    if _op.arity == 1:
        setattr(Array, f"__{_op.dunder}__", _make_unary(_op.name))
    else:
        _f, _r, _i = _make_binary(_op.name)
        setattr(Array, f"__{_op.dunder}__", _f)
        if _op.result != "bool":
            setattr(Array, f"__r{_op.dunder}__", _r)
            setattr(Array, f"__i{_op.dunder}__", _i)
_f, _r, _i = _make_binary("matmul")
Array.__matmul__, Array.__rmatmul__, Array.__imatmul__ = _f, _r, _i  # type: ignore[method-assign]
del _op, _f, _r, _i


def _divmod_wrap(self: Array, other: Any) -> Any:
    o = other if type(other) in _SCALARS else _operand("divmod", self, other)
    if o is NotImplemented:
        return NotImplemented
    q, r = self._device._ops["divmod"](self._data, o)
    return _wrap(q, self._device), _wrap(r, self._device)


def _rdivmod_wrap(self: Array, other: Any) -> Any:
    o = other if type(other) in _SCALARS else _operand("divmod", self, other)
    if o is NotImplemented:
        return NotImplemented
    q, r = self._device._ops["divmod"](o, self._data)
    return _wrap(q, self._device), _wrap(r, self._device)


Array.__divmod__ = _divmod_wrap  # type: ignore[method-assign]
Array.__rdivmod__ = _rdivmod_wrap  # type: ignore[method-assign]


# Names that the C type serves itself, or that belong to the pure-Python layout.
_C_OWNED = {
    "__slots__", "_data", "_device", "__weakref__", "__dict__", "__module__", "__qualname__",
    "__getitem__",
}  # fmt: skip


def _install_speedups() -> None:
    """Make ruda.Array the C type: copy this module's methods onto it, keep the hot operators
    and basic indexing in C, and hand it the Python versions for every other case."""
    global Array, _new_array
    py, fast = Array, _speedups.Array
    dunders = {op.name: op.dunder for op in ELEMENTWISE if op.dunder}
    dunders["matmul"] = "matmul"
    fallbacks, owned = {}, set(_C_OWNED)
    for name in _speedups.op_names():
        d = dunders[name]
        fallbacks[name] = (py.__dict__[f"__{d}__"], py.__dict__.get(f"__r{d}__"))
        owned |= {f"__{d}__", f"__r{d}__"}
    for name, value in py.__dict__.items():
        if name not in owned:
            setattr(fast, name, value)
    _speedups.init(
        CPU, _ndarray, np.asarray, py.__dict__["__getitem__"], fallbacks, np.dtype(object)
    )
    Array = _new_array = fast


if SPEEDUPS:
    _install_speedups()


def _call1_py(name: str, x: Any) -> Any:
    if type(x) is not Array:
        return NotImplemented
    d = x._device
    return _wrap(d._ops[name](x._data), d)


def _call2_py(name: str, a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is Array:
        d = a._device
        if tb is Array and b._device is d:
            return _wrap(d._ops[name](a._data, b._data), d)
        if tb is float or tb is int:
            return _wrap(d._ops[name](a._data, b), d)
    elif tb is Array and (ta is float or ta is int):
        d = b._device
        return _wrap(d._ops[name](a, b._data), d)
    return NotImplemented


def _callx_py(name: str, x: Any, *args: Any) -> Any:
    if type(x) is not Array:
        return NotImplemented
    d = x._device
    return _wrap(d._ops[name](x._data, *args), d)


# Fast paths for namespace functions: the op on the operands' device, wrapped, or NotImplemented
# when the operands need the full path (array-likes, mixed devices, other scalar types).
call1 = _speedups.call1 if SPEEDUPS else _call1_py
call2 = _speedups.call2 if SPEEDUPS else _call2_py
callx = _speedups.callx if SPEEDUPS else _callx_py
