"""Device memory from CuPy's memory pool; explicit copies to and from the host.

Allocations come from ``cupy.cuda.alloc`` (the current allocator: CuPy's caching pool unless the
user set another), so freed blocks are reused without a cudaMalloc. ``RUDA_CUDA_POOL=off`` gives
every array its own cudaMalloc instead, so compute-sanitizer's memcheck sees each array's bounds
(a pool's blocks hide overruns into a neighbour). Copies are queued on the current stream, in
order with the kernels; a read-back waits for that stream (``stream=`` puts a copy on another:
``Array.to_device``). ``memory_info``, ``set_limit`` and ``empty_cache`` serve ``Device``'s
runtime methods through CuPy's pool (its limit is the cap ``RUDA_GPU_MEMORY_LIMIT`` sets).
"""

from __future__ import annotations

import ctypes
import math
import os
from typing import Any

import numpy as np

from .. import base
from ..gpu.host import host_view, upload_source


def _host_ptr(a: np.ndarray) -> ctypes.c_void_p:
    return a.ctypes.data_as(ctypes.c_void_p)


class Allocator(base.DeviceAllocator):
    """alloc / empty / from_host / to_host for one device."""

    def __init__(self, ctx: Any) -> None:
        import cupy

        self.ctx = ctx
        self._cupy = cupy
        self._alloc = cupy.cuda.alloc  # the current allocator: CuPy's pool by default
        if os.environ.get("RUDA_CUDA_POOL", "on") == "off":
            self._alloc = cupy.cuda.memory._malloc  # one cudaMalloc per array, for sanitizers
        self.pool_alloc = self._alloc  # for the prepared launchers (one device: no switching)
        self._oom = cupy.cuda.memory.OutOfMemoryError
        from ..._devices import env_memory_limit

        limit = env_memory_limit(ctx.name, self.total_memory)
        if limit is not None:
            self.set_limit(limit)  # ValueError without a pool to cap

    # -- the pool: CuPy's default memory pool, whose limit is ruda's cap ---------------------
    def pool(self) -> Any:
        """The ``cupy.cuda.MemoryPool`` that ``alloc`` draws from, or None (``RUDA_CUDA_POOL=off``,
        or an allocator the user gave CuPy that is no MemoryPool)."""
        if self._alloc is not self._cupy.cuda.alloc:
            return None
        owner = getattr(self._cupy.cuda.get_allocator(), "__self__", None)
        return owner if isinstance(owner, self._cupy.cuda.MemoryPool) else None

    def total_memory(self) -> int:
        with self.ctx.device:
            return int(self._cupy.cuda.runtime.memGetInfo()[1])

    def memory_info(self) -> tuple[int, int, int, int, int | None]:
        """(free, total, pool held, pool in use, pool limit or None) in bytes."""
        pool = self.pool()
        with self.ctx.device:  # CuPy's pool answers for the current device
            free, total = self._cupy.cuda.runtime.memGetInfo()
            if pool is None:
                return int(free), int(total), 0, 0, None
            return (int(free), int(total), int(pool.total_bytes()), int(pool.used_bytes()),
                    int(pool.get_limit()) or None)  # fmt: skip

    def set_limit(self, nbytes: int | None) -> None:
        """Cap the pool at ``nbytes`` (None: no cap; CuPy's limit 0)."""
        pool = self.pool()
        if pool is None:
            raise ValueError(
                f"ruda.Device.set_memory_limit: {self.ctx.name} allocates without CuPy's memory "
                "pool (RUDA_CUDA_POOL=off or another CuPy allocator), so there is no pool to cap"
            )
        with self.ctx.device:
            pool.set_limit(size=nbytes or 0)

    def empty_cache(self) -> None:
        """The fast path's cached small blocks, then the pool's free blocks, back to CUDA."""
        from .driver import _cuda_fast

        if _cuda_fast is not None:
            _cuda_fast.cache_clear()
        pool = self.pool()
        if pool is not None:
            with self.ctx.device:
                pool.free_all_blocks()

    def out_of_memory(self, size: int, err: BaseException) -> MemoryError:
        """The MemoryError for a failed allocation of ``size`` bytes: the cap when one is set."""
        pool = self.pool()
        limit = 0
        if pool is not None:
            with self.ctx.device:
                limit, used = pool.get_limit(), pool.used_bytes()
        if limit:
            return MemoryError(
                f"ruda: allocating {size} bytes on {self.ctx.name} would exceed the memory pool's "
                f"limit of {limit} bytes ({used} in use); raise it with "
                "Device.set_memory_limit() or RUDA_GPU_MEMORY_LIMIT"
            )
        return MemoryError(f"ruda: out of memory on {self.ctx.name} allocating {size} bytes: {err}")

    def alloc(self, nbytes: int) -> Any:
        """A ``cupy.cuda.MemoryPointer`` of at least ``nbytes`` (rounded up to 8: kernels that
        write 4-byte words never run past the end)."""
        size = (max(nbytes, 1) + 7) & ~7
        try:
            if self.ctx.multi:
                with self.ctx.device:
                    return self._alloc(size)
            return self._alloc(size)
        except self._oom as e:  # CuPy's MemoryError: say which cap, in ruda's words
            raise self.out_of_memory(size, e) from e

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
    def from_host(self, host: Any, dtype: Any = None, copy: bool | None = None,
                  stream: Any = None) -> Any:  # fmt: skip
        """A device copy of ``host``, copied on ``stream`` (a CuPy stream; default: the current
        one; the caller orders another against the current stream)."""
        from .array import CudaArray

        a = upload_source(self.ctx, host, dtype, CudaArray)
        if not isinstance(a, np.ndarray):
            return a
        mem = self.alloc(a.nbytes)
        if a.nbytes:
            # From pageable memory the call returns once the data is staged: ``a`` may go.
            stream = stream if stream is not None else self.stream()
            mem.copy_from_host_async(_host_ptr(a), a.nbytes, stream)
        return CudaArray.contiguous(self.ctx, mem, a.shape, a.dtype)

    # -- device to host -----------------------------------------------------------------------
    def to_host(self, native: Any, stream: Any = None) -> np.ndarray:
        """A NumPy copy of ``native`` (the host waits for the work queued before it), copied on
        ``stream`` (a CuPy stream; default: the current one)."""
        x = native
        if x.size == 0:
            return np.empty(x.shape, x.dtype)
        lo, hi = x.span()
        raw = np.empty(hi - lo, np.uint8)
        stream = stream if stream is not None else self.stream()
        (x.mem + lo).copy_to_host_async(_host_ptr(raw), hi - lo, stream)
        stream.synchronize()
        fps = getattr(self.ctx, "fpstatus", None)  # floating-point status words: 16 bytes more
        if fps is not None and fps.dirty:
            fps.check(f"a read from {self.ctx.name}")
        return host_view(raw, x.offset - lo, x)
