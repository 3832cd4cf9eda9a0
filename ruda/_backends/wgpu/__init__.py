"""The WebGPU backend (WGSL rendered from the kernel IR, run through wgpu-py).

Devices ``wgpu:0``, ``wgpu:1``... are the adapters wgpu finds on Vulkan, Metal or D3D12
(``RUDA_WGPU_BACKENDS`` may add OpenGL), GPUs first. Each has its own context (device, queue,
allocator, compiler, launcher: see the modules beside this one). The backend is on whenever
wgpu-py imports and finds an adapter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..gpu.backend import GpuBackend


def unavailable_reason() -> str | None:
    try:
        import wgpu  # noqa: F401
    except ImportError:
        return "wgpu-py is not installed (pip install 'ruda[wgpu]')"
    except Exception as e:
        return f"wgpu failed to import: {e}"
    from . import context
    from .context import adapters

    try:
        found = adapters()
    except Exception as e:
        return f"no WebGPU adapter: {e}"
    if not found:
        return (
            "no WebGPU adapter on "
            + ", ".join(context.backends())
            + " (install a Vulkan driver, e.g. Debian's mesa-vulkan-drivers)"
        )
    return None


class WgpuBackend(GpuBackend):
    """One backend object for the kind; per-device state lives in each device's Context."""

    kind = "wgpu"

    def __init__(self) -> None:
        from . import (
            fft,
            linalg_decomp,
            linalg_eig,
            linalg_products,
            ops,
            reductions,
            scans,
            searching,
            sorting,
        )
        from .context import context

        super().__init__(
            context,
            [
                ops,
                reductions,
                scans,
                searching,
                sorting,
                linalg_products,
                linalg_decomp,
                linalg_eig,
                fft,
            ],
        )
        self._ops = ops

    def elementwise(self, entry: Any) -> Callable[..., Any]:
        return self._ops.make_elementwise(entry)

    def supported_dtypes(self) -> tuple[Any, ...]:
        """The standard's dtypes this device's adapter can hold (float64 needs shader-f64...)."""
        from ... import _dtypes as dt

        ctx = self.ctx
        return tuple(d for d in dt.STANDARD if ctx.missing_feature(d._np) is None)
