"""The WebGPU backend (WGSL rendered from the kernel IR, run through wgpu-py).

Devices ``wgpu:0``, ``wgpu:1``... are the adapters wgpu finds, GPUs first. Each has its own
context (device, queue, allocator, compiler, launcher: see the modules beside this one).
The backend is incomplete (elementwise functions, casts, creation and views so far), so it is
enabled only with ``RUDA_WGPU=experimental``; every other op raises NotImplementedError.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from ..base import Backend, DeviceUnavailableError

ENABLE = "RUDA_WGPU"


def unavailable_reason() -> str | None:
    try:
        import wgpu  # noqa: F401
    except ImportError:
        return "wgpu-py is not installed (pip install 'ruda[wgpu]')"
    except Exception as e:
        return f"wgpu failed to import: {e}"
    from .context import adapters

    try:
        found = adapters()
    except Exception as e:
        return f"no WebGPU adapter: {e}"
    if not found:
        return "no WebGPU adapter (install a Vulkan driver, e.g. Debian's mesa-vulkan-drivers)"
    if os.environ.get(ENABLE, "") != "experimental":
        return (
            "the wgpu backend is experimental (elementwise functions, casts, creation and views "
            f"only); enable it with the environment variable {ENABLE}=experimental"
        )
    return None


class WgpuBackend(Backend):
    """One backend object for the kind; per-device state lives in each device's Context."""

    kind = "wgpu"

    def __init__(self) -> None:
        from . import ops

        self._local = threading.local()
        self.library = dict(ops.LIBRARY)
        self._ops = ops

    # The dispatch table holds one backend per kind; ``dev.backend`` calls check_device
    # first, so the allocator and dtype checks that follow apply to that device.
    def check_device(self, device: Any) -> None:
        from .context import context

        self._local.ctx = context(device.index)

    @property
    def ctx(self) -> Any:
        ctx = getattr(self._local, "ctx", None)
        if ctx is None:
            from .context import context

            ctx = self._local.ctx = context(0)
        return ctx

    @property
    def allocator(self) -> Any:  # type: ignore[override]
        return self.ctx.allocator

    @property
    def compiler(self) -> Any:  # type: ignore[override]
        return self.ctx.compiler

    @property
    def launcher(self) -> Any:  # type: ignore[override]
        return self.ctx.launcher

    def native_type(self) -> type:
        from .array import WgpuArray

        return WgpuArray

    def supported_dtypes(self) -> tuple[Any, ...]:
        """The standard's dtypes this device's adapter can hold (float64 needs shader-f64...)."""
        from ... import _dtypes as dt

        ctx = self.ctx
        return tuple(
            d for d in dt.STANDARD if d._np.kind != "c" and ctx.missing_feature(d._np) is None
        )

    def check_dtype(self, npdt: Any, fname: str) -> None:
        self.ctx.check_dtype(npdt, fname)

    def synchronize(self) -> None:
        self.ctx.launcher.synchronize()

    def resolve(self, op: str) -> Callable[..., Any] | None:
        from ..._ops import OPS

        entry = OPS.get(op)
        if entry is not None and entry.kind == "elementwise" and entry.expr:
            return self._ops.make_elementwise(entry)
        return self.library.get(op)


def make_backend() -> Backend:
    reason = unavailable_reason()
    if reason is not None:
        raise DeviceUnavailableError(f"ruda: device 'wgpu' is unavailable: {reason}")
    return WgpuBackend()
