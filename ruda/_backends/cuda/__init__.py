"""The CUDA backend: CUDA C++ rendered from the kernel IR, compiled with NVRTC, run through CuPy.

CuPy is the driver layer only: its memory pool, streams, NVRTC binding, module loading and
kernel launches. Every result is computed by ruda's own kernels (``ruda._kernels``); no CuPy
array function runs. Devices ``cuda:0``... are CuPy's device ordinals, each with its own context
(allocator, compiler, launcher: see the modules beside this one). The backend is on whenever
CuPy imports and sees a CUDA device.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

from ..gpu.backend import GpuBackend


def unavailable_reason() -> str | None:
    """None when CuPy imports and sees a CUDA device, else what is missing."""
    try:
        import cupy
    except ImportError:
        return "CuPy is not installed (pip install 'ruda[cuda12]' or 'ruda[cuda13]')"
    except Exception as e:  # a broken CUDA install surfaces here
        return f"CuPy failed to import: {e}"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return f"no CUDA device: {e}"
    if n == 0:
        return "no CUDA device is visible"
    return None


def library_modules() -> list[Any]:
    """The modules whose ``LIBRARY`` dicts make the op table: ops, reductions, scans, searching,
    then every ``library_*.py`` beside them (vendor library calls), in name order."""
    from . import ops, reductions, scans, searching, sets

    found = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("library_"))
    libs = [importlib.import_module(f"{__name__}.{n}") for n in found]
    return [ops, reductions, scans, searching, sets, *libs]


class CudaBackend(GpuBackend):
    """One backend object for the kind; per-device state lives in each device's Context."""

    kind = "cuda"

    def __init__(self) -> None:
        from . import ops
        from .context import context

        super().__init__(context, library_modules())
        self._ops = ops

    def elementwise(self, entry: Any) -> Callable[..., Any]:
        return self._ops.make_elementwise(entry)

    def supported_dtypes(self) -> tuple[Any, ...]:
        """The standard's dtypes the kernels handle: all of them."""
        from ... import _dtypes as dt

        return tuple(dt.STANDARD)

    # -- DLPack: CuPy's ndarray serves as the exported container (a view, no kernel runs) ----
    def dlpack(self, x: Any, *, stream: Any = None, max_version: Any = None,
               dl_device: Any = None, copy: bool | None = None) -> Any:  # fmt: skip
        if copy:
            x = self._ops.copy(x)  # our copy kernel, then a zero-copy export
        kw: dict[str, Any] = {"stream": stream}
        if max_version is not None:
            kw["max_version"] = max_version
        if dl_device is not None:
            kw["dl_device"] = dl_device
        return x.as_cupy().__dlpack__(**kw)

    def dlpack_device(self, x: Any) -> tuple[int, int]:
        return (2, x.ctx.index)  # kDLCUDA

    def from_dlpack(self, obj: Any, copy: bool | None = None) -> Any:
        from .array import CudaArray

        return CudaArray.from_dlpack(self.ctx, obj, copy=copy)
