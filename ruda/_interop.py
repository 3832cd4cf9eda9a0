"""Interop switches: whether a GPU array may be copied to the host behind the user's back.

``numpy.asarray(x)`` on an array that lives on a GPU is a device-to-host copy. ruda never
makes it implicitly (a silent copy in a loop is the classic GPU performance bug) unless the
user turns it on, process-wide with ``set_implicit_transfer(True)`` or the environment
variable ``RUDA_IMPLICIT_TRANSFER=1``, or for a block with ``with implicit_transfer():``.
Explicit transfers (``x.to_device("cpu")``, ``ruda.asarray(x, device="cpu")``) always work.

This module imports nothing from the array layer, so ``_array.py`` can import it at load time.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["get_implicit_transfer", "implicit_transfer", "set_implicit_transfer"]

_TRUE = {"1", "true", "yes", "on"}
_global = [os.environ.get("RUDA_IMPLICIT_TRANSFER", "").strip().lower() in _TRUE]
# A with-block overrides the process-wide setting in its own thread / task only.
_local: contextvars.ContextVar[bool | None] = contextvars.ContextVar(
    "ruda_implicit_transfer", default=None
)

HOW = (
    "copy it explicitly with x.to_device('cpu') (or ruda.asarray(x, device='cpu')), "
    "or allow implicit copies with ruda.set_implicit_transfer(True) or "
    "`with ruda.implicit_transfer():`"
)


def get_implicit_transfer() -> bool:
    """Whether a device-to-host copy may happen implicitly (``numpy.asarray(gpu_array)``).

    >>> import ruda as np
    >>> np.get_implicit_transfer()
    False
    """
    v = _local.get()
    return _global[0] if v is None else v


def set_implicit_transfer(enabled: bool) -> bool:
    """Allow (or forbid) implicit device-to-host copies process-wide; returns the old setting.

    >>> import ruda as np
    >>> old = np.set_implicit_transfer(True)
    >>> np.set_implicit_transfer(old)
    True
    """
    if not isinstance(enabled, bool):
        raise TypeError(
            f"ruda.set_implicit_transfer: enabled must be a bool, got {type(enabled).__name__}"
        )
    old = _global[0]
    _global[0] = enabled
    return old


@contextlib.contextmanager
def implicit_transfer(enabled: bool = True) -> Iterator[None]:
    """Allow (or, with ``False``, forbid) implicit device-to-host copies inside a block.

    >>> import ruda as np
    >>> with np.implicit_transfer():
    ...     np.get_implicit_transfer()
    True
    """
    if not isinstance(enabled, bool):
        raise TypeError(
            f"ruda.implicit_transfer: enabled must be a bool, got {type(enabled).__name__}"
        )
    token = _local.set(enabled)
    try:
        yield
    finally:
        _local.reset(token)


def transfer_error(fname: str, device: Any) -> TypeError:
    """The error raised where an implicit device-to-host copy would be needed."""
    return TypeError(
        f"ruda.{fname}: an array on {device} is not copied to the host implicitly; {HOW}"
    )


class CopyRequiredError(ValueError, BufferError):
    """``copy=False`` but the exchange needs a copy (the standard names both exception types)."""


# DLPack device types (dlpack.h DLDeviceType) that map onto ruda's device kinds.
_DL_KINDS = {1: "cpu", 3: "cpu", 2: "cuda", 13: "cuda", 15: "wgpu"}


def device_from_dlpack(x: Any) -> Any:
    """The ruda Device of a DLPack producer (from ``__dlpack_device__``), or None if unknown."""
    from ._devices import Device

    get = getattr(x, "__dlpack_device__", None)
    if get is None:
        return None
    dl_type, index = get()
    kind = _DL_KINDS.get(int(dl_type))
    if kind is None:
        return None
    return Device(kind) if kind == "cpu" else Device(kind, int(index))


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
    import importlib

    if method in (None, "__call__") and _host_outs(kwargs):
        return _into_host_outs(name, func, method, args, kwargs, dev)
    mod = getattr(func, "__module__", None) or "numpy"
    sub = {"numpy.linalg": ".linalg", "numpy.fft": ".fft"}.get(mod, "")
    target = None
    if method in (None, "__call__"):
        target = getattr(importlib.import_module("ruda" + sub), name, None)
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
    import numpy as np

    from ._array import Array, _wrap
    from ._devices import CPU

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
    from ._array import Array

    if isinstance(x, Array):
        return x.to_device("cpu")._data
    if type(x) in (list, tuple):
        return type(x)(_host_tree(v) for v in x)
    if type(x) is dict:
        return {k: _host_tree(v) for k, v in x.items()}
    return x


def _to_device_tree(x: Any, dev: Any) -> Any:
    import numpy as np

    from ._array import _wrap

    if isinstance(x, (np.ndarray, np.generic)):
        return _wrap(dev.backend.allocator.from_host(np.asarray(x)), dev)
    if type(x) in (list, tuple):
        return type(x)(_to_device_tree(v, dev) for v in x)
    return x


def dlpack_to_host(x: Any, *, max_version: Any = None, copy: bool | None = None) -> Any:
    """``x.__dlpack__(dl_device=(kDLCPU, 0))`` for an array on a GPU: a host copy, exported.

    Note: the consumer named the cpu (``numpy.from_dlpack(x, device="cpu")``, scikit-learn's
    ``move_to``), so this copy is explicit; ``copy=False`` refuses it, as the standard says.
    """
    from ._devices import CPU

    if x.device is CPU:
        return x._data.__dlpack__(max_version=max_version, dl_device=(1, 0), copy=copy)
    if copy is False:
        raise CopyRequiredError(
            f"ruda.Array.__dlpack__: copy=False, but exporting an array on {x.device} to the "
            "cpu copies it"
        )
    host = x.device.backend.allocator.to_host(x._data)
    kw = {} if max_version is None else {"max_version": max_version}
    return host.__dlpack__(**kw)
