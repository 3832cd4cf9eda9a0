"""Argument checks shared by every namespace function: one place, one wording.

Every error names the ruda function and the offending argument.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtypes as dt
from ._array import Array, _wrap, _wrap_tree
from ._devices import CPU, Device, resolve
from ._errors import AxisError, refuse_object


def as_array(x: Any, fname: str, arg: str = "x", device: Device | None = None) -> Array:
    """An Array from an Array or (NumPy-style) array-like; array-likes go to ``device``."""
    if type(x) is Array or isinstance(x, Array):
        if device is not None and x._device is not device:
            if is_host_value(x):
                # Note: a 0-d cpu array is a host value (as PyTorch's 0-d cpu tensors are):
                # it goes to the other operands' device as a Python scalar would, its dtype
                # kept. Arrays with dimensions never move silently.
                return _wrap(device.backend.allocator.from_host(x._data), device)
            raise ValueError(
                f"ruda.{fname}: {arg} is on {x._device}, expected {device}; "
                "move it with to_device(), ruda never transfers silently"
            )
        return x
    dev = resolve(device)
    try:
        host = np.asarray(x)
    except Exception as e:
        raise TypeError(f"ruda.{fname}: {arg} must be an array, got {type(x).__name__}") from e
    if host.dtype == object and not isinstance(x, np.ndarray):
        raise TypeError(f"ruda.{fname}: {arg} must be an array, got {type(x).__name__}")
    if dev is CPU:
        return _wrap(host, dev)
    return _wrap(dev.backend.allocator.from_host(host), dev)


def require_array(x: Any, fname: str, arg: str = "x") -> Array:
    """Strict form for the standard's functions that take arrays only."""
    if isinstance(x, Array):
        return x
    raise TypeError(f"ruda.{fname}: {arg} must be a ruda array, got {type(x).__name__}")


def refuse_bfloat16(fname: str, *dtypes: Any) -> None:
    """TypeError when one of ``dtypes`` is bfloat16, for functions that factor a matrix.

    Note: NumPy refuses float16 there and would take bfloat16 to float64 silently; LAPACK,
    cuSOLVER and ruda's kernels take no 16-bit floats, so ruda refuses both, on every device.
    """
    if any(d is not None and dt.bfloat16 == d for d in dtypes):
        raise TypeError(f"ruda.{fname}: array type bfloat16 is unsupported in linalg")


def is_host_value(x: Any) -> bool:
    """Whether ``x`` is a 0-d array on the cpu: a host value, which combines with arrays on
    any device (``as_array`` moves it there, as it would a Python scalar)."""
    return isinstance(x, Array) and x._device is CPU and x._data.ndim == 0


def common_device(fname: str, *arrays: Any) -> Device:
    """The one device of the arrays among ``arrays`` (default device if none); raises on a mix.

    0-d cpu arrays are host values: they take the other arrays' device (the cpu when alone).
    """
    dev: Device | None = None
    host = False
    for a in arrays:
        if isinstance(a, Array):
            d = a._device
            if d is CPU and a._data.ndim == 0:
                host = True
            elif dev is None:
                dev = d
            elif d is not dev:
                raise ValueError(
                    f"ruda.{fname}: arrays are on different devices ({dev} and {d}); "
                    "move them with to_device(), ruda never transfers silently"
                )
    if dev is not None:
        return dev
    return CPU if host else resolve(None)


def normalize_axis(axis: Any, ndim: int, fname: str, arg: str = "axis") -> int:
    """A non-negative axis; AxisError (ValueError and IndexError) when out of range."""
    try:
        ax = operator.index(axis)
    except TypeError:
        raise TypeError(
            f"ruda.{fname}: {arg} must be an integer, got {type(axis).__name__}"
        ) from None
    if not -ndim <= ax < ndim:
        raise AxisError(f"ruda.{fname}: {arg} {ax} is out of bounds for an array of {ndim} dims")
    return ax % ndim if ndim else 0


def normalize_axes(axis: Any, ndim: int, fname: str, arg: str = "axis") -> tuple[int, ...]:
    """A tuple of distinct non-negative axes from None, an int or a sequence of ints."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, Sequence) and not isinstance(axis, str):
        axes = tuple(normalize_axis(a, ndim, fname, arg) for a in axis)
    else:
        axes = (normalize_axis(axis, ndim, fname, arg),)
    if len(set(axes)) != len(axes):
        raise ValueError(f"ruda.{fname}: repeated axis in {arg}={axis!r}")
    return axes


def check_dtype(x: Array, category: str, fname: str, arg: str = "x") -> None:
    """TypeError unless x's dtype is in the standard's category."""
    if x.dtype not in dt.CATEGORIES[category]:
        raise TypeError(f"ruda.{fname}: {arg} must have a {category} dtype, got {x.dtype}")


def dtype_arg(dtype: Any, fname: str, device: Device | None = None) -> np.dtype | None:
    """A NumPy dtype from a ``dtype=`` argument; None stays None; unknown names raise TypeError."""
    if dtype is None:
        return None
    try:
        npdt = dt.to_numpy(dtype)
    except TypeError as e:
        raise TypeError(f"ruda.{fname}: dtype={dtype!r} is not a data type") from e
    if device is not None and device is not CPU:
        refuse_object(npdt, fname, device)
        device.backend.check_dtype(npdt, fname)
    return npdt


def writeable(x: Array, fname: str, arg: str = "out") -> Any:
    """The native array of ``x``, which ``fname`` writes into: ValueError when it is read-only
    (views NumPy makes read-only, such as ``broadcast_to``'s, are on every device)."""
    d = x._data
    if not d.flags.writeable if type(d) is np.ndarray else getattr(d, "readonly", False):
        raise ValueError(
            f"ruda.{fname}: {arg} is read-only (assignment destination is read-only); "
            "write into a copy (x.copy())"
        )
    return d


def shape_arg(shape: Any, fname: str, arg: str = "shape") -> tuple[int, ...]:
    """A shape tuple from an int or a sequence of ints; negative sizes raise ValueError."""
    try:
        if isinstance(shape, (int, np.integer)) or hasattr(shape, "__index__"):
            out = (operator.index(shape),)
        else:
            out = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(
            f"ruda.{fname}: {arg} must be an int or a tuple of ints, got {shape!r}"
        ) from None
    return out


def wrap(data: Any, device: Device) -> Any:
    """Wrap a native result (or a tuple/list of them) as ruda arrays on ``device``."""
    if type(data) is np.ndarray:
        return _wrap(data, device)
    return _wrap_tree(data, device)
