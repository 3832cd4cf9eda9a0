"""Devices: ``Device("cpu")``, ``Device("cuda:0")``, ``Device("wgpu:0")``; the default device.

One ``Device`` object exists per name, so identity comparison is valid on the hot path.
The default is ``RUDA_DEVICE`` or the innermost ``with ruda.device(...)`` block.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from typing import Any

KINDS = ("cpu", "cuda", "wgpu")


class Device:
    """A device arrays live on, e.g. ``ruda.Device("cpu")``.

    >>> import ruda as np
    >>> np.Device("cpu") == np.asarray([1.0]).device
    True
    """

    __slots__ = ("kind", "index", "_ops", "__weakref__")

    def __new__(cls, name: Any = "cpu", index: int | None = None) -> Device:
        if isinstance(name, Device):
            return name
        kind, idx = _parse(name, index)
        key = (kind, idx)
        dev = _REGISTRY.get(key)
        if dev is None:
            dev = object.__new__(cls)
            dev.kind = kind
            dev.index = idx
            dev._ops = None  # the dispatch row for this kind, bound on first use
            _REGISTRY[key] = dev
        return dev

    def __repr__(self) -> str:
        return f"Device({str(self)!r})"

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Device):
            return self is other
        if isinstance(other, str):
            try:
                return Device(other) is self
            except ValueError:
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.kind, self.index))

    def __reduce__(self):
        return (Device, (str(self),))

    @property
    def backend(self):
        """The backend object serving this device (raises if it is not available)."""
        from ._backends import get_backend

        return get_backend(self)


_REGISTRY: dict[tuple[str, int], Device] = {}


def _parse(name: Any, index: int | None) -> tuple[str, int]:
    if not isinstance(name, str):
        raise TypeError(
            f"ruda.Device: expected a device name such as 'cpu', 'cuda:0' or 'wgpu:0', "
            f"got {type(name).__name__}"
        )
    kind, _, rest = name.strip().lower().partition(":")
    if kind == "gpu":
        kind = "cuda"
    if kind not in KINDS:
        raise ValueError(
            f"ruda.Device: unknown device {name!r}; known kinds are {', '.join(KINDS)}"
        )
    if rest:
        if not rest.isdigit():
            raise ValueError(f"ruda.Device: bad device index in {name!r}")
        idx = int(rest)
    else:
        idx = 0 if index is None else int(index)
    if kind == "cpu" and idx != 0:
        raise ValueError(f"ruda.Device: there is one cpu device, not {name!r}")
    return kind, idx


CPU = Device("cpu")
_current: contextvars.ContextVar[Device | None] = contextvars.ContextVar(
    "ruda_device", default=None
)
_env_default: list[Device] = []


def default_device() -> Device:
    """Where new arrays go: the innermost ``with ruda.device(...)``, else ``RUDA_DEVICE``."""
    dev = _current.get()
    if dev is not None:
        return dev
    if not _env_default:
        _env_default.append(Device(os.environ.get("RUDA_DEVICE", "cpu") or "cpu"))
    return _env_default[0]


def resolve(device: Any) -> Device:
    """A Device from None (the default), a Device or a name; checks the backend is available."""
    if device is None:
        dev = default_device()
    elif type(device) is Device:
        dev = device
    else:
        dev = Device(device)
    if dev._ops is None:
        from ._dispatch import bind

        bind(dev)
    return dev


@contextlib.contextmanager
def device(dev: Any) -> Iterator[Device]:
    """Make ``dev`` the default device inside a ``with`` block.

    >>> import ruda as np
    >>> with np.device("cpu"):
    ...     np.zeros(2).device
    Device('cpu')
    """
    d = resolve(dev)
    token = _current.set(d)
    try:
        yield d
    finally:
        _current.reset(token)
