"""The inspection API: ``ruda.__array_namespace_info__()``."""

from __future__ import annotations

from typing import Any

from . import _dtypes as dt
from ._backends import probe
from ._devices import KINDS, Device, default_device, resolve

__all__ = ["__array_namespace_info__"]

_KIND_GROUPS = {
    None: dt.STANDARD,
    "bool": dt.BOOLEAN,
    "signed integer": dt.SIGNED,
    "unsigned integer": dt.UNSIGNED,
    "integral": dt.INTEGER,
    "real floating": dt.REAL_FLOATING,
    "complex floating": dt.COMPLEX_FLOATING,
    "numeric": dt.NUMERIC,
}


class Info:
    """What this ruda can do, per device.

    >>> import ruda as np
    >>> info = np.__array_namespace_info__()
    >>> info.default_dtypes()["real floating"]
    ruda.float64
    """

    __module__ = "ruda"

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self) -> Device:
        return default_device()

    def default_dtypes(self, *, device: Any = None) -> dict[str, dt.DType]:
        resolve(device)
        return {
            "real floating": dt.DEFAULT_FLOAT,
            "complex floating": dt.DEFAULT_COMPLEX,
            "integral": dt.DEFAULT_INT,
            "indexing": dt.DEFAULT_INDEX,
        }

    def devices(self) -> tuple[Device, ...]:
        found = [Device("cpu")]
        for kind in KINDS[1:]:
            if probe(kind) is None:
                count = Device(kind).backend.device_count()
                found.extend(Device(kind, i) for i in range(count))
        return tuple(found)

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, dt.DType]:
        dev = resolve(device)
        supported = getattr(dev.backend, "supported_dtypes", lambda: dt.STANDARD)()
        if isinstance(kind, tuple):
            groups = [_group(k) for k in kind]
            chosen = {d for g in groups for d in g}
        else:
            chosen = set(_group(kind))
        return {d.name: d for d in dt.STANDARD if d in chosen and d in supported}


def _group(kind: Any) -> tuple[dt.DType, ...]:
    if kind in _KIND_GROUPS:
        return _KIND_GROUPS[kind]
    raise ValueError(f"ruda.__array_namespace_info__().dtypes: unknown kind {kind!r}")


def __array_namespace_info__() -> Info:
    """The inspection namespace of the standard (capabilities, devices, dtypes)."""
    return Info()
