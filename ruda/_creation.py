"""Creation functions of the standard, plus NumPy's (array, identity, diag, logspace...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import Array, _wrap
from ._devices import CPU, Device, _current, _env_default, default_device, resolve
from ._errors import annotate, detail, refuse_object
from ._validation import as_array, dtype_arg, shape_arg

__all__ = [
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "linspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]  # NumPy's surface (array, identity, diag...): _creation_numpy.py

_FLOAT = dt.DEFAULT_FLOAT._np
_DType = dt.DType
_INT = dt.DEFAULT_INT._np
_COMPLEX = dt.DEFAULT_COMPLEX._np


def _to_device(data: np.ndarray, dev: Device) -> Array:
    """Place host data on ``dev`` (allocation on the device, one copy)."""
    if dev is CPU:
        return _wrap(data, dev)
    return _wrap(dev.backend.allocator.from_host(data), dev)


def asarray(
    obj: Any,
    /,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
) -> Array:
    """Convert ``obj`` (array, scalar, nested sequence, buffer, DLPack object) to an array.

    ``copy=True`` always copies, ``copy=False`` never does (ValueError if it would have to),
    ``copy=None`` copies only when needed.

    >>> import ruda as np
    >>> np.asarray([[1, 2], [3, 4]], dtype=np.float32)
    array([[1., 2.],
           [3., 4.]], dtype=float32)
    """
    npdt = dtype_arg(dtype, "asarray")
    if isinstance(obj, Array):
        dev = obj._device if device is None else resolve(device)
        if dev is not obj._device:
            refuse_object(obj._data.dtype, "asarray", dev)
            if copy is False:
                raise ValueError(
                    f"ruda.asarray: copy=False but moving from {obj._device} to {dev} copies"
                )
            obj = obj.to_device(dev)
            copy = None if npdt is None else copy
        data = obj._data
        if npdt is not None and data.dtype != npdt:
            if copy is False:
                raise ValueError(
                    f"ruda.asarray: copy=False but changing dtype {data.dtype} to {npdt} copies"
                )
            return _wrap(dev._ops["astype"](data, npdt), dev)
        if copy:
            return _wrap(dev._ops["copy"](data), dev)
        return obj if dev is obj._device else _wrap(data, dev)
    leaf = _device_leaf(obj) if isinstance(obj, (list, tuple)) else None
    if leaf is not None:
        return _stack_nested(obj, npdt, leaf._device if device is None else resolve(device), copy)
    dev = resolve(device)
    if copy is False and dev is not CPU:
        raise ValueError(f"ruda.asarray: copy=False, but host data must be copied to {dev}")
    if npdt is None and _is_nested_python(obj):
        npdt = _infer_python_dtype(obj)
    try:
        data = np.array(obj, dtype=npdt, copy=copy)
    except ValueError as e:
        if copy is False:
            raise ValueError(
                f"ruda.asarray: copy=False but a copy is needed: {detail(e)}"
            ) from None
        raise ValueError(f"ruda.asarray: cannot convert obj: {detail(e)}") from None
    except OverflowError as e:
        raise OverflowError(f"ruda.asarray: a value does not fit the dtype: {detail(e)}") from None
    except MemoryError as e:  # NumPy's _ArrayMemoryError: a MemoryError naming ruda.asarray
        raise annotate("asarray", e) from None
    if data.dtype == object:
        # Note: object arrays are NumPy's, carried through on the cpu only; an arbitrary
        # Python object with no dtype asked for is a mistake, not an array.
        if npdt is None and not isinstance(obj, (np.ndarray, list, tuple)):
            raise TypeError(f"ruda.asarray: cannot make an array from {type(obj).__name__}")
        refuse_object(data.dtype, "asarray", dev)
    return _to_device(data, dev)


def _device_leaf(obj: Any) -> Array | None:
    """The first array of a non-cpu device among the leaves of a nested sequence, if any."""
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, Array) and o._device is not CPU:
            return o
    return None


def _stack_nested(obj: Any, npdt: np.dtype | None, dev: Device, copy: bool | None) -> Array:
    """A nested sequence holding device arrays, stacked on ``dev`` (no host round trip)."""
    from ._manipulation import stack

    if copy is False:
        raise ValueError("ruda.asarray: copy=False, but a nested sequence must be copied")

    def build(o: Any) -> Array:
        if isinstance(o, (list, tuple)):
            if not o:
                raise ValueError("ruda.asarray: an empty sequence beside arrays has no shape")
            return stack([build(e) for e in o])
        return asarray(o, device=dev)

    out = build(obj)
    return out if npdt is None or out.dtype == npdt else asarray(out, dtype=npdt)


def _is_nested_python(obj: Any) -> bool:
    return isinstance(obj, (bool, int, float, complex, list, tuple))


def _infer_python_dtype(obj: Any) -> np.dtype | None:
    """The standard's defaults for Python data: int -> int64, float -> float64 (not platform)."""
    kinds = set()
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, tuple)):
            stack.extend(o)
        elif type(o) is bool or isinstance(o, np.bool_):
            kinds.add("b")
        elif isinstance(o, int):
            kinds.add("i")
        elif isinstance(o, float):
            kinds.add("f")
        elif isinstance(o, complex):
            kinds.add("c")
        else:
            return None  # arrays, NumPy scalars...: let NumPy decide
    for k, d in (("c", dt.DEFAULT_COMPLEX), ("f", dt.DEFAULT_FLOAT), ("i", dt.DEFAULT_INT)):
        if k in kinds:
            return d._np
    return None


# -- the standard's creation functions ------------------------------------------------------


def _dev_dtype(fname: str, device: Any, dtype: Any, default: np.dtype | None = _FLOAT):
    """The target device and NumPy dtype (``default`` when dtype is None); kept cheap."""
    if device is None:
        dev = _current.get() or default_device()
    else:
        dev = device if type(device) is Device else Device(device)
    if dev._ops is None:
        resolve(dev)
    if dtype is None:
        return dev, default
    if type(dtype) is dt.DType and dev is CPU:
        return dev, dtype._np
    return dev, dtype_arg(dtype, fname, dev)


def _shape(shape: Any, fname: str) -> Any:
    t = type(shape)
    return shape if t is tuple or t is int else shape_arg(shape, fname)


def _check_order(order: Any, fname: str) -> None:
    if order == "C":
        return
    if order not in ("C", "F", "K", "A", None):
        raise ValueError(f"ruda.{fname}: order must be one of 'C', 'F', 'A', 'K', got {order!r}")


def _named(fn: Any, name: str, doc: str) -> Any:
    """``fn`` as the public function ``name`` (what a builder's inner function becomes)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _make_filled(name: str, doc: str) -> Any:
    """``empty``, ``zeros`` or ``ones``: one signature, one fast path, the op ``name``."""

    def fn(
        shape: int | tuple[int, ...],
        dtype: Any = None,
        order: str = "C",
        *,
        device: Any = None,
        like: Any = None,
    ) -> Array:
        if device is None and order == "C" and (type(shape) is int or type(shape) is tuple):
            # Fast path: the default device and dtype None or a DType (the common calls).
            dev = _current.get() or (_env_default[0] if _env_default else default_device())
            ops = dev._ops
            if ops is not None and (dtype is None or (type(dtype) is _DType and dev is CPU)):
                a = Array()  # _wrap inlined: the op returns a native array
                a._data = ops[name](shape, _FLOAT if dtype is None else dtype._np)
                a._device = dev
                return a
        dev, npdt = _dev_dtype(name, device, dtype)
        shape = _shape(shape, name)
        if order != "C":
            _check_order(order, name)
        if dev is CPU:
            return _wrap(dev._ops[name](shape, dtype=npdt, order=order), dev)
        # a GPU backend needs the target device (wgpu:1...), not only its kind
        return _wrap(dev._ops[name](shape, dtype=npdt, order=order, device=dev), dev)

    return _named(fn, name, doc)


empty = _make_filled(
    "empty",
    """An uninitialised array of ``shape`` (float64 unless ``dtype`` says otherwise).

    >>> import ruda as np
    >>> np.empty((2, 3), np.float32).shape
    (2, 3)
    """,
)
zeros = _make_filled(
    "zeros",
    """An array of zeros (float64 unless ``dtype`` says otherwise).

    >>> import ruda as np
    >>> np.zeros(3)
    array([0., 0., 0.])
    """,
)
ones = _make_filled(
    "ones",
    """An array of ones (float64 unless ``dtype`` says otherwise).

    >>> import ruda as np
    >>> np.ones((2,), dtype=np.int32)
    array([1, 1], dtype=int32)
    """,
)


_FILL = {bool: np.dtype(np.bool_), int: _INT, float: _FLOAT, complex: _COMPLEX}


def _fill_dtype(fill_value: Any, fname: str) -> np.dtype:
    """The standard's default dtype for a fill value: from its Python type."""
    t = type(fill_value)
    if t is bool or isinstance(fill_value, np.bool_):
        return np.dtype(np.bool_)
    if t is int:
        return _INT
    if t is float:
        return _FLOAT
    if t is complex:
        return _COMPLEX
    if isinstance(fill_value, (np.generic, np.ndarray)):
        return fill_value.dtype
    if isinstance(fill_value, Array):
        return fill_value._data.dtype
    try:
        return np.asarray(fill_value).dtype
    except Exception:
        raise TypeError(
            f"ruda.{fname}: fill_value must be a bool, int, float or complex, "
            f"got {type(fill_value).__name__}"
        ) from None


def _fill_native(fill_value: Any, dev: Device, fname: str) -> Any:
    if isinstance(fill_value, Array):  # on another device: a 0-d cpu array moves, others raise
        if fill_value._device is dev:
            return fill_value._data
        return as_array(fill_value, fname, "fill_value", dev)._data
    return fill_value


def full(
    shape: int | tuple[int, ...],
    fill_value: Any,
    dtype: Any = None,
    order: str = "C",
    *,
    device: Any = None,
    like: Any = None,
) -> Array:
    """An array of ``shape`` filled with ``fill_value``; the dtype follows the value's Python type.

    >>> import ruda as np
    >>> np.full((2,), 7)
    array([7, 7])
    """
    dev, npdt = _dev_dtype("full", device, dtype, None)
    if npdt is None:
        npdt = _FILL.get(type(fill_value)) or _fill_dtype(fill_value, "full")
        if dev is not CPU:
            refuse_object(npdt, "full", dev)
    shape = _shape(shape, "full")
    if order != "C":
        _check_order(order, "full")
    fv = fill_value if type(fill_value) in _FILL else _fill_native(fill_value, dev, "full")
    if dev is CPU:
        return _wrap(dev._ops["full"](shape, fv, dtype=npdt, order=order), dev)
    return _wrap(dev._ops["full"](shape, fv, dtype=npdt, order=order, device=dev), dev)


def _like(fname: str, x: Any, dtype: Any, device: Any, order: str, shape: Any, *fill: Any):
    x = as_array(x, fname)
    dev = x._device if device is None else resolve(device)
    npdt = dtype_arg(dtype, fname, dev)
    if npdt is None:
        npdt = x._data.dtype
        refuse_object(npdt, fname, dev)
    if dev is x._device:
        kw: dict[str, Any] = {"dtype": npdt, "order": order}
        if shape is not None:
            kw["shape"] = shape_arg(shape, fname)
        return _wrap(dev._ops[fname](x._data, *fill, **kw), dev)
    # A different device: same shape, built there.
    shp = x.shape if shape is None else shape_arg(shape, fname)
    if dev is CPU:
        return _wrap(dev._ops[fname[:-5]](shp, *fill, dtype=npdt), dev)
    return _wrap(dev._ops[fname[:-5]](shp, *fill, dtype=npdt, device=dev), dev)


def _make_like(name: str, doc: str) -> Any:
    """``empty_like``, ``zeros_like`` or ``ones_like`` over ``_like``."""

    def fn(
        x: Any,
        /,
        dtype: Any = None,
        order: str = "K",
        subok: bool = True,
        shape: Any = None,
        *,
        device: Any = None,
    ) -> Array:
        return _like(name, x, dtype, device, order, shape)

    return _named(fn, name, doc)


empty_like = _make_like(
    "empty_like",
    """An uninitialised array with the shape, dtype and device of ``x``.

    >>> import ruda as np
    >>> np.empty_like(np.ones((2, 2))).shape
    (2, 2)
    """,
)
zeros_like = _make_like(
    "zeros_like",
    """Zeros with the shape, dtype and device of ``x``.

    >>> import ruda as np
    >>> np.zeros_like(np.asarray([1, 2]))
    array([0, 0])
    """,
)
ones_like = _make_like(
    "ones_like",
    """Ones with the shape, dtype and device of ``x``.

    >>> import ruda as np
    >>> np.ones_like(np.asarray([1.5, 2.5]))
    array([1., 1.])
    """,
)


def full_like(
    x: Any,
    /,
    fill_value: Any,
    dtype: Any = None,
    order: str = "K",
    subok: bool = True,
    shape: Any = None,
    *,
    device: Any = None,
) -> Array:
    """An array like ``x`` filled with ``fill_value`` (in ``x``'s dtype unless ``dtype`` is given).

    >>> import ruda as np
    >>> np.full_like(np.asarray([1, 2]), 9)
    array([9, 9])
    """
    xa = as_array(x, "full_like")
    dev = xa._device if device is None else resolve(device)
    return _like(
        "full_like", xa, dtype, dev, order, shape, _fill_native(fill_value, dev, "full_like")
    )


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    dtype: Any = None,
    *,
    device: Any = None,
    like: Any = None,
) -> Array:
    """Evenly spaced values in ``[start, stop)``; one argument means ``[0, start)``.

    >>> import ruda as np
    >>> np.arange(5)
    array([0, 1, 2, 3, 4])
    >>> np.arange(0, 1, 0.25)
    array([0.  , 0.25, 0.5 , 0.75])
    """
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if step == 0:
        raise ValueError("ruda.arange: step must not be zero")
    dev, npdt = _dev_dtype("arange", device, dtype, None)
    if npdt is None:
        if type(start) is int and type(stop) is int and type(step) is int:
            npdt = _INT
        elif any(isinstance(v, (complex, np.complexfloating)) for v in (start, stop, step)):
            raise TypeError("ruda.arange: complex arguments are not supported")
        elif any(isinstance(v, (float, np.floating)) for v in (start, stop, step)):
            npdt = _FLOAT
        else:
            npdt = _INT
    if dev is CPU:
        return _wrap(dev._ops["arange"](start, stop, step, dtype=npdt), dev)
    return _wrap(dev._ops["arange"](start, stop, step, dtype=npdt, device=dev), dev)


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
    *,
    device: Any = None,
) -> Any:
    """``num`` evenly spaced samples over ``[start, stop]`` (``[start, stop)`` if not ``endpoint``).

    >>> import ruda as np
    >>> np.linspace(0, 1, 5)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    dev = resolve(device)
    npdt = dtype_arg(dtype, "linspace", dev)
    if npdt is None and all(isinstance(v, (bool, int, float, complex)) for v in (start, stop)):
        npdt = _COMPLEX if complex in (type(start), type(stop)) else _FLOAT
    if isinstance(start, Array) or isinstance(stop, Array):
        start = _fill_native(start, dev, "linspace")
        stop = _fill_native(stop, dev, "linspace")
    try:
        num = int(num)
    except TypeError:
        raise TypeError(f"ruda.linspace: num must be an integer, got {num!r}") from None
    if num < 0:
        raise ValueError(f"ruda.linspace: num must be non-negative, got {num}")
    kw = {} if dev is CPU else {"device": dev}
    r = dev._ops["linspace"](
        start, stop, num, endpoint=endpoint, retstep=retstep, dtype=npdt, axis=axis, **kw
    )
    if retstep:
        return _wrap(r[0], dev), r[1]
    return _wrap(r, dev)


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    k: int = 0,
    dtype: Any = None,
    order: str = "C",
    *,
    device: Any = None,
    like: Any = None,
) -> Array:
    """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    >>> import ruda as np
    >>> np.eye(2)
    array([[1., 0.],
           [0., 1.]])
    """
    dev, npdt = _dev_dtype("eye", device, dtype)
    if dev is CPU:
        return _wrap(dev._ops["eye"](n_rows, n_cols, k=k, dtype=npdt, order=order), dev)
    return _wrap(dev._ops["eye"](n_rows, n_cols, k=k, dtype=npdt, order=order, device=dev), dev)


def _make_tri(name: str, doc: str) -> Any:
    """``tril`` or ``triu``: the op ``name`` over (each matrix in) an array of 1+ dims."""

    def fn(x: Any, /, k: int = 0) -> Array:
        x = as_array(x, name)
        if x._data.ndim < 1:
            raise ValueError(f"ruda.{name}: x must have at least 1 dimension, got a 0-d array")
        return _wrap(x._device._ops[name](x._data, k=k), x._device)

    return _named(fn, name, doc)


tril = _make_tri(
    "tril",
    """The lower triangle of (each matrix in) ``x``: elements above the ``k``-th diagonal zeroed.

    >>> import ruda as np
    >>> np.tril(np.ones((2, 2)))
    array([[1., 0.],
           [1., 1.]])
    """,
)
triu = _make_tri(
    "triu",
    """The upper triangle of (each matrix in) ``x``: elements below the ``k``-th diagonal zeroed.

    >>> import ruda as np
    >>> np.triu(np.ones((2, 2)))
    array([[1., 1.],
           [0., 1.]])
    """,
)


def meshgrid(
    *arrays: Any, indexing: str = "xy", copy: bool = True, sparse: bool = False
) -> tuple[Array, ...]:
    """Coordinate matrices from coordinate vectors (a tuple, ``indexing`` 'xy' or 'ij').

    >>> import ruda as np
    >>> X, Y = np.meshgrid(np.asarray([1, 2, 3]), np.asarray([4, 5]))
    >>> X.shape
    (2, 3)
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"ruda.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    if not arrays:
        return ()
    from ._validation import common_device

    dev = common_device("meshgrid", *arrays)
    natives = [as_array(a, "meshgrid", f"arrays[{i}]", dev)._data for i, a in enumerate(arrays)]
    r = dev._ops["meshgrid"](*natives, indexing=indexing, copy=copy, sparse=sparse)
    return tuple(_wrap(a, dev) for a in r)


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Array:
    """An array from any object with ``__dlpack__`` (zero-copy where possible).

    ``device=None`` keeps ``x``'s device; ``copy=True`` always copies; ``copy=False`` never
    does (ValueError, also a BufferError, when the exchange needs a copy).

    >>> import ruda as np
    >>> import numpy
    >>> np.from_dlpack(numpy.arange(3)).shape
    (3,)
    """
    from ._interop import CopyRequiredError, device_from_dlpack

    if isinstance(x, Array):
        return asarray(x, device=device, copy=copy)
    if not hasattr(x, "__dlpack__"):
        raise AttributeError(f"ruda.from_dlpack: x must support __dlpack__, got {type(x).__name__}")
    src = device_from_dlpack(x)
    if device is None:
        if src is None:
            raise BufferError(
                f"ruda.from_dlpack: x is on DLPack device {x.__dlpack_device__()}, which no "
                "ruda device serves; pass device='cpu' to copy it to the host"
            )
        device = src
    dev = resolve(device)
    if dev is CPU:
        try:
            data = np.from_dlpack(x, device="cpu", copy=copy)
        except BufferError as e:
            if copy is False and src is not CPU:
                raise CopyRequiredError(
                    f"ruda.from_dlpack: copy=False, but x is on {src} and reaching the cpu copies"
                ) from None
            raise BufferError(f"ruda.from_dlpack: {detail(e)}") from None
        return _wrap(data, dev)
    # A backend imports its own kind's memory; another kind's (a cpu tensor for cuda) is a copy.
    if hasattr(dev.backend, "from_dlpack") and (src is None or src.kind == dev.kind):
        return _wrap(dev.backend.from_dlpack(x, copy=copy), dev)
    if copy is False:
        raise CopyRequiredError(f"ruda.from_dlpack: copy=False, but moving x to {dev} copies")
    return _to_device(np.from_dlpack(x, device="cpu"), dev)
