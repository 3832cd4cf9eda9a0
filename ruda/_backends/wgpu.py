"""The WebGPU backend (WGSL rendered from the IR, run through wgpu-py).

Until its kernels land, asking for a "wgpu" device raises an error that says what is missing.
"""

from __future__ import annotations

from .base import Backend, DeviceUnavailableError


def unavailable_reason() -> str | None:
    try:
        import wgpu
    except ImportError:
        return "wgpu-py is not installed (pip install 'ruda[wgpu]')"
    except Exception as e:
        return f"wgpu failed to import: {e}"
    try:
        adapters = wgpu.gpu.enumerate_adapters_sync()
    except Exception as e:
        return f"no WebGPU adapter: {e}"
    if not adapters:
        return "no WebGPU adapter (install a Vulkan driver, e.g. Debian's mesa-vulkan-drivers)"
    return "the wgpu backend's kernels are not part of this ruda build yet"


def make_backend() -> Backend:
    raise DeviceUnavailableError(f"ruda: device 'wgpu' is unavailable: {unavailable_reason()}")
