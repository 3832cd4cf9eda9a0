"""The CUDA driver as the C fast path (``ruda/_native/_cuda_fast.c``) sees it.

``_cuda_fast`` is the extension (None where it is not built: ``C_FAST`` says which), with its
small-block cache switched by ``RUDA_CUDA_POOL`` and emptied at exit; ``driver()`` resolves the
driver library's functions (``cuLaunchKernel``, ``cuMemcpyDtoDAsync``, the error names) as
addresses with ctypes, so the extension builds without CUDA headers. ``CudaArray`` (``array.py``)
teaches the extension its slots; ``prepared.py`` makes the prepared launches over it.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import os
import sys
from typing import Any

try:  # the C fast path; built by pip install or scripts/build_ext.sh
    from ..._native import _cuda_fast
except ImportError:  # pragma: no cover - exercised where the extension is not built
    _cuda_fast = None
C_FAST = _cuda_fast is not None
if _cuda_fast is not None:
    # sanitizer runs give every array its own cudaMalloc: no block reused behind their back
    _cuda_fast.cache_set(os.environ.get("RUDA_CUDA_POOL", "on") != "off")
    atexit.register(_cuda_fast.cache_clear)  # back to CuPy's pool before it goes

# The driver library CuPy loads (its cuLaunchKernel takes the stream handle CuPy gives).
_DRIVER_LIB = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


@functools.cache
def driver() -> Any:
    """The process's ``_cuda_fast.Driver``: ``cuLaunchKernel``, ``cuMemcpyDtoDAsync`` and the
    error-name functions of the driver library, CuPy's current-stream getter, and the
    per-thread context set-up."""
    import cupy
    from cupy_backends.cuda.api import runtime

    lib = ctypes.CDLL(_DRIVER_LIB)

    def fn(name: str, required: bool = True) -> int:
        f = getattr(lib, name) if required else getattr(lib, name, None)
        return 0 if f is None else ctypes.cast(f, ctypes.c_void_p).value or 0

    launch = fn("cuLaunchKernel")
    # without the copy (0) element assignments keep the Python path
    errors = {"error_name": fn("cuGetErrorName"), "error_string": fn("cuGetErrorString"),
              "memcpy": fn("cuMemcpyDtoDAsync_v2", required=False)}  # fmt: skip
    bind = functools.partial(runtime.free, 0)  # as launcher._Args: the primary context, current
    # CuPy's C getter (what CuPy's own kernels launch on); asked on every launch, as `with
    # stream:` changes it
    capi = getattr(cupy.cuda.stream, "__pyx_capi__", {}).get("get_current_stream_ptr")
    if capi is not None:
        try:
            return _cuda_fast.Driver(launch, capi, bind, **errors)
        except ValueError:  # another C signature in this CuPy: its Python getter instead
            pass
    return _cuda_fast.Driver(launch, cupy.cuda.get_current_stream, bind, **errors)


__all__ = ["C_FAST", "driver"]
