"""Device memory from CuPy's memory pool; explicit copies to and from the host.

Allocations come from ``cupy.cuda.alloc`` (the current allocator: CuPy's caching pool unless the
user set another), so freed blocks are reused without a cudaMalloc. ``RUDA_CUDA_POOL=off`` gives
every array its own cudaMalloc instead, so compute-sanitizer's memcheck sees each array's bounds
(a pool's blocks hide overruns into a neighbour). Copies are queued on the current stream, in
order with the kernels; a read-back waits for that stream.
"""

from __future__ import annotations

import ctypes
import math
import os
from typing import Any

import numpy as np

from ..gpu.host import host_view, upload_source


def _host_ptr(a: np.ndarray) -> ctypes.c_void_p:
    return a.ctypes.data_as(ctypes.c_void_p)


class Allocator:
    """alloc / empty / from_host / to_host for one device."""

    def __init__(self, ctx: Any) -> None:
        import cupy

        self.ctx = ctx
        self._cupy = cupy
        self._alloc = cupy.cuda.alloc  # the current allocator: CuPy's pool by default
        if os.environ.get("RUDA_CUDA_POOL", "on") == "off":
            self._alloc = cupy.cuda.memory._malloc  # one cudaMalloc per array, for sanitizers
        self.pool_alloc = self._alloc  # for the prepared launchers (one device: no switching)

    def alloc(self, nbytes: int) -> Any:
        """A ``cupy.cuda.MemoryPointer`` of at least ``nbytes`` (rounded up to 8: kernels that
        write 4-byte words never run past the end)."""
        size = (max(nbytes, 1) + 7) & ~7
        if self.ctx.multi:
            with self.ctx.device:
                return self._alloc(size)
        return self._alloc(size)

    def empty(self, shape: tuple[int, ...], dtype: Any) -> Any:
        from .array import CudaArray

        npdt = np.dtype(dtype)
        self.ctx.check_dtype(npdt, "empty")
        shape = tuple(int(s) for s in shape)
        return CudaArray.contiguous(self.ctx, self.alloc(math.prod(shape) * npdt.itemsize),
                                    shape, npdt)  # fmt: skip

    def stream(self) -> Any:
        """The current stream of this device (kernels are launched on it too)."""
        if self.ctx.multi:
            with self.ctx.device:
                return self._cupy.cuda.get_current_stream()
        return self._cupy.cuda.get_current_stream()

    # -- host to device ---------------------------------------------------------------------
    def from_host(self, host: Any, dtype: Any = None, copy: bool | None = None) -> Any:
        from .array import CudaArray

        a = upload_source(self.ctx, host, dtype, CudaArray)
        if not isinstance(a, np.ndarray):
            return a
        mem = self.alloc(a.nbytes)
        if a.nbytes:
            # From pageable memory the call returns once the data is staged: ``a`` may go.
            mem.copy_from_host_async(_host_ptr(a), a.nbytes, self.stream())
        return CudaArray.contiguous(self.ctx, mem, a.shape, a.dtype)

    # -- device to host -----------------------------------------------------------------------
    def to_host(self, native: Any) -> np.ndarray:
        """A NumPy copy of ``native`` (the host waits for the work queued before it)."""
        x = native
        if x.size == 0:
            return np.empty(x.shape, x.dtype)
        lo, hi = x.span()
        raw = np.empty(hi - lo, np.uint8)
        stream = self.stream()
        (x.mem + lo).copy_to_host_async(_host_ptr(raw), hi - lo, stream)
        stream.synchronize()
        return host_view(raw, x.offset - lo, x)
