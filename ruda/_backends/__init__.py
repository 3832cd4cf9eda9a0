"""Backends by device kind; each module says, when it cannot run here, why not."""

from __future__ import annotations

import importlib

from .base import Backend, DeviceUnavailableError

_MODULES = {"cpu": "numpy", "cuda": "cuda", "wgpu": "wgpu"}
_LOADED: dict[str, Backend] = {}


def get_backend(device) -> Backend:
    """The backend for a device; raises DeviceUnavailableError with the reason it cannot run."""
    kind = device.kind
    be = _LOADED.get(kind)
    if be is None:
        mod = importlib.import_module(f"{__name__}.{_MODULES[kind]}")
        be = _LOADED[kind] = mod.make_backend()
    be.check_device(device)
    return be


def probe(kind: str) -> str | None:
    """None when the kind can run here, else the reason it cannot."""
    mod = importlib.import_module(f"{__name__}.{_MODULES[kind]}")
    return mod.unavailable_reason()


__all__ = ["Backend", "DeviceUnavailableError", "get_backend", "probe"]
