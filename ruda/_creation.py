"""Creation functions of the standard, plus NumPy's (array, identity, diag, logspace...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import Array, _wrap
from ._devices import CPU, Device, resolve
from ._validation import dtype_arg

__all__ = ["asarray"]


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
    dev = resolve(device)
    if copy is False and dev is not CPU:
        raise ValueError(f"ruda.asarray: copy=False, but host data must be copied to {dev}")
    if npdt is None and _is_nested_python(obj):
        npdt = _infer_python_dtype(obj)
    try:
        data = np.array(obj, dtype=npdt, copy=copy)
    except ValueError as e:
        if copy is False:
            raise ValueError(f"ruda.asarray: copy=False but a copy is needed: {e}") from None
        raise ValueError(f"ruda.asarray: cannot convert obj: {e}") from None
    except OverflowError as e:
        raise OverflowError(f"ruda.asarray: a value does not fit the dtype: {e}") from None
    if data.dtype == object and not isinstance(obj, np.ndarray):
        raise TypeError(f"ruda.asarray: cannot make an array from {type(obj).__name__}")
    return _to_device(data, dev)


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
