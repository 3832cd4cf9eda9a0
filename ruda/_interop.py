"""Interop switches: whether a GPU array may be copied to the host behind the user's back.

``numpy.asarray(x)`` on an array that lives on a GPU is a device-to-host copy. ruda never
makes it implicitly (a silent copy in a loop is the classic GPU performance bug) unless the
user turns it on, process-wide with ``set_implicit_transfer(True)`` or the environment
variable ``RUDA_IMPLICIT_TRANSFER=1``, or for a block with ``with implicit_transfer():``.
Explicit transfers (``x.to_device("cpu")``, ``ruda.asarray(x, device="cpu")``) always work.

This module imports nothing from the array layer: ``_array.py`` builds on it. NumPy's protocols on
ruda arrays (which call the namespace) are in ``_array_methods.py``.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from typing import Any

from ._backends import DL_KINDS  # DLPack device types -> ruda's device kinds

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


def device_from_dlpack(x: Any) -> Any:
    """The ruda Device of a DLPack producer (from ``__dlpack_device__``), or None if unknown."""
    from ._devices import Device

    get = getattr(x, "__dlpack_device__", None)
    if get is None:
        return None
    dl_type, index = get()
    kind = DL_KINDS.get(int(dl_type))
    if kind is None:
        return None
    return Device(kind) if kind == "cpu" else Device(kind, int(index))


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
