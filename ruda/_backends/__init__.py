"""Backends by device kind: the registry every kind list reads.

Each backend registers itself here once, explicitly (``register(BackendInfo(...))`` below): its
kind name, where its backend class and its availability probe live (imported only when asked),
its DLPack device types, whether its devices have streams, and other names a ``Device`` takes for
it. ``ruda._devices.KINDS``, the distributed signature's kind codes, DLPack's device types in
``ruda._interop`` and ``ruda._array``, and the test suite's device list all derive from it:
adding a backend is one registration here and the backend package.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from .base import Backend, DeviceUnavailableError


@dataclass(frozen=True)
class BackendInfo:
    """One device kind's registration.

    ``backend`` and ``probe`` are ``"module:name"`` under ``ruda._backends``: the ``Backend``
    subclass (made once per kind, with no arguments) and the function that answers None when the
    kind can run here, else the reason it cannot (it must not raise). ``dl_types``: the DLPack
    device types (dlpack.h ``DLDeviceType``) whose producers' arrays land on this kind, the first
    being what its own arrays export. ``streams``: its devices take the standard's ``stream=``.
    ``aliases``: other names ``Device`` accepts for the kind.
    """

    kind: str
    backend: str
    probe: str
    dl_types: tuple[int, ...] = ()
    streams: bool = False
    aliases: tuple[str, ...] = ()

    def _attr(self, ref: str) -> Any:
        module, _, name = ref.partition(":")
        return getattr(importlib.import_module(f"{__name__}.{module}"), name)

    def unavailable_reason(self) -> str | None:
        return self._attr(self.probe)()

    def make(self) -> Backend:
        reason = self.unavailable_reason()
        if reason is not None:
            raise DeviceUnavailableError(f"ruda: device {self.kind!r} is unavailable: {reason}")
        return self._attr(self.backend)()


REGISTRY: dict[str, BackendInfo] = {}


def register(info: BackendInfo) -> BackendInfo:
    """Add a device kind (once; its position is its code in the distributed signatures)."""
    if info.kind in REGISTRY:
        raise ValueError(f"ruda: backend kind {info.kind!r} is registered twice")
    REGISTRY[info.kind] = info
    return info


# dlpack.h: kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13, kDLWebGPU = 15
register(BackendInfo("cpu", "numpy:NumpyBackend", "numpy:unavailable_reason", dl_types=(1, 3)))
register(BackendInfo("cuda", "cuda:CudaBackend", "cuda:unavailable_reason", dl_types=(2, 13),
                     streams=True, aliases=("gpu",)))  # fmt: skip
register(BackendInfo("wgpu", "wgpu:WgpuBackend", "wgpu:unavailable_reason", dl_types=(15,)))

KINDS: tuple[str, ...] = tuple(REGISTRY)
"""Every registered kind, in registration order."""
ALIASES: dict[str, str] = {a: i.kind for i in REGISTRY.values() for a in i.aliases}
"""Other device names -> their kind ("gpu" -> "cuda")."""
DL_KINDS: dict[int, str] = {t: i.kind for i in REGISTRY.values() for t in i.dl_types}
"""DLPack device type -> the kind its arrays land on."""
DL_TYPE: dict[str, int] = {i.kind: i.dl_types[0] for i in REGISTRY.values() if i.dl_types}
"""Kind -> the DLPack device type its arrays export."""
STREAM_KINDS: frozenset[str] = frozenset(i.kind for i in REGISTRY.values() if i.streams)
"""The kinds whose devices have streams."""

_LOADED: dict[str, Backend] = {}


def get_backend(device) -> Backend:
    """The backend for a device; raises DeviceUnavailableError with the reason it cannot run."""
    kind = device.kind
    be = _LOADED.get(kind)
    if be is None:
        be = _LOADED[kind] = REGISTRY[kind].make()
    be.check_device(device)
    return be


def probe(kind: str) -> str | None:
    """None when the kind can run here, else the reason it cannot."""
    return REGISTRY[kind].unavailable_reason()


__all__ = [
    "ALIASES",
    "DL_KINDS",
    "DL_TYPE",
    "KINDS",
    "REGISTRY",
    "STREAM_KINDS",
    "Backend",
    "BackendInfo",
    "DeviceUnavailableError",
    "get_backend",
    "probe",
    "register",
]
