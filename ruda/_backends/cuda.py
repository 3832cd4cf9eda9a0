"""The CUDA backend (kernels rendered from the IR, compiled with NVRTC through CuPy).

Until its kernels land, asking for a "cuda" device raises an error that says what is missing.
"""

from __future__ import annotations

from .base import Backend, DeviceUnavailableError


def unavailable_reason() -> str | None:
    try:
        import cupy  # noqa: F401
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
    return "the cuda backend's kernels are not part of this ruda build yet"


def make_backend() -> Backend:
    raise DeviceUnavailableError(f"ruda: device 'cuda' is unavailable: {unavailable_reason()}")
