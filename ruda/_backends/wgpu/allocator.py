"""Device memory: a caching buffer pool (size classes), uploads and read-backs.

Buffers hold NumPy's byte layout for the dtype, padded to 4 bytes. A ``Block`` owns one pooled
buffer; views share the Block, and the buffer returns to the pool when the last one dies.
Uploads use ``queue.write_buffer``; while dispatches are still unsubmitted the upload goes to a
buffer that no pending dispatch can reference, because queue writes run before that batch.
Read-backs copy into a pooled staging buffer; ``to_host_many`` reads several arrays in one wait.
The pool counts the bytes of its buffers in use and cached; ``cap`` (``RUDA_GPU_MEMORY_LIMIT``,
``Device.set_memory_limit``) bounds their sum. Staging buffers are host-visible memory and
outside the count; ``empty_cache`` drops them with the cached buffers.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import wgpu

from .. import base
from ..gpu.host import host_view, upload_source
from ..gpu.strided import span

_STORAGE = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
_READBACK = wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST
_MIN = 256


def size_class(nbytes: int) -> int:
    """The pooled size for a request: powers of two up to 1 MiB, then eighths of a power of two."""
    n = max(_MIN, nbytes)
    if n <= 1 << 20:
        return 1 << (n - 1).bit_length()
    step = 1 << ((n - 1).bit_length() - 3)
    return -(-n // step) * step


class Block:
    """One device buffer of ``size`` bytes; back to its pool when garbage collected."""

    __slots__ = ("buffer", "size", "pool", "token", "__weakref__")

    def __init__(self, buffer: Any, size: int, pool: BufferPool) -> None:
        self.buffer = buffer
        self.size = size
        self.pool = pool
        # The pool holds live buffers too: a Block collected in a reference cycle must not
        # take its buffer with it (wgpu releases a collected GPUBuffer's handle).
        pool.serial += 1
        self.token = pool.serial
        pool.live[self.token] = buffer
        pool.in_use += size

    def __del__(self) -> None:
        pool = self.pool
        if pool is not None:
            try:
                pool.release(pool.live.pop(self.token), self.size)
            except Exception:  # interpreter shutdown
                pass


class BufferPool:
    """Free device buffers by size class, up to ``limit`` cached bytes; in use and cached
    together at most ``cap`` bytes (None: no cap)."""

    def __init__(self, ctx: Any, limit: int, cap: int | None = None) -> None:
        self.ctx = ctx
        self.limit = limit
        self.cap = cap
        self.in_use = 0  # bytes of the buffers live Blocks hold
        self.free: dict[int, list[Any]] = {}
        self.live: dict[int, Any] = {}  # buffers in use, by Block token
        self.serial = 0
        self.cached = 0
        self.created = 0  # buffers made (tests check the pool reuses them)
        self.reused = 0

    def acquire(self, nbytes: int, fresh: bool = False) -> Block:
        size = size_class(nbytes)
        if not fresh:
            stack = self.free.get(size)
            if stack:
                self.cached -= size
                self.reused += 1
                return Block(stack.pop(), size, self)
        max_size = self.ctx.limits.get("max-buffer-size", 1 << 31)
        if size > max_size:
            size = (max(nbytes, _MIN) + 3) & ~3
            if size > max_size:
                raise MemoryError(
                    f"ruda: {nbytes} bytes exceed the largest buffer device {self.ctx.name} "
                    f"allows ({max_size} bytes)"
                )
        cap = self.cap
        if cap is not None and self.in_use + self.cached + size > cap:
            self.trim()  # CuPy's pool does the same: cached blocks go before an error
            if self.in_use + size > cap:
                raise MemoryError(
                    f"ruda: allocating {nbytes} bytes on {self.ctx.name} would exceed the "
                    f"memory pool's limit of {cap} bytes ({self.in_use} in use); raise it with "
                    "Device.set_memory_limit() or RUDA_GPU_MEMORY_LIMIT"
                )
        try:
            buf = self.ctx.device.create_buffer(size=size, usage=_STORAGE)
        except Exception:
            self.trim()  # out of memory: give cached buffers back and try once more
            buf = self.ctx.device.create_buffer(size=size, usage=_STORAGE)
        self.created += 1
        return Block(buf, size, self)

    def release(self, buffer: Any, size: int) -> None:
        self.in_use -= size
        if self.cached + size > self.limit or (
            self.cap is not None and self.in_use + self.cached + size > self.cap
        ):
            self.ctx.launcher.forget_bind_groups()
            return  # dropped: wgpu frees it once no submitted work uses it
        self.free.setdefault(size, []).append(buffer)
        self.cached += size

    def trim(self) -> None:
        """Drop every cached buffer."""
        self.free.clear()
        self.cached = 0
        self.ctx.launcher.forget_bind_groups()


class Allocator(base.DeviceAllocator):
    """from_host / to_host / empty for one device."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        # A discrete GPU keeps up to 16 GiB of free buffers (scikit-learn's 20k x 20k float32
        # distances make several 1.6 GB temporaries: creating them each call cost 0.1-0.15 s on
        # the H200, CuPy's pool keeps them all); other adapters (lavapipe's memory is the
        # host's) 1 GiB. Out of memory, the pool gives its free buffers back and retries.
        discrete = ctx.adapter_type == "DiscreteGPU"
        limit = int(os.environ.get("RUDA_WGPU_POOL_MB", "16384" if discrete else "1024")) << 20
        from ..._devices import env_memory_limit

        self.pool = BufferPool(ctx, limit, env_memory_limit(ctx.name, self.total_memory))
        self._readback: dict[int, list[Any]] = {}

    # -- the runtime's questions (Device.memory_info, set_memory_limit, empty_cache) -----------
    def total_memory(self) -> int | None:
        """The device's memory: WebGPU does not say, except that an adapter running on the CPU
        (lavapipe) has the host's."""
        return self.host_memory()[1]

    def host_memory(self) -> tuple[int | None, int | None]:
        if self.ctx.adapter_type != "CPU":
            return None, None
        from ..._devices import host_memory

        return host_memory()

    def memory_info(self) -> tuple[int | None, int | None, int, int, int | None]:
        """(free, total, pool held, pool in use, pool cap) in bytes (None: not known)."""
        free, total = self.host_memory()
        pool = self.pool
        return free, total, pool.in_use + pool.cached, pool.in_use, pool.cap

    def set_limit(self, nbytes: int | None) -> None:
        """Cap the pool's buffers (in use and cached) at ``nbytes`` (None: no cap)."""
        self.pool.cap = nbytes
        if nbytes is not None and self.pool.in_use + self.pool.cached > nbytes:
            self.pool.trim()

    def empty_cache(self) -> None:
        """Drop the cached free buffers and read-back staging buffers (wgpu frees each once no
        submitted work uses it)."""
        self.pool.trim()
        self._readback.clear()

    # -- allocation -------------------------------------------------------------------
    def alloc(self, nbytes: int, fresh: bool = False) -> Block:
        return self.pool.acquire(nbytes, fresh)

    def empty(self, shape: tuple[int, ...], dtype: Any) -> Any:
        from .array import WgpuArray

        npdt = np.dtype(dtype)
        self.ctx.check_dtype(npdt, "empty")
        shape = tuple(int(s) for s in shape)
        n = math.prod(shape)
        return WgpuArray.contiguous(self.ctx, self.alloc(n * npdt.itemsize), shape, npdt)

    # -- host to device -------------------------------------------------------------------
    def from_host(self, host: Any, dtype: Any = None, copy: bool | None = None) -> Any:
        from .array import WgpuArray

        a = upload_source(self.ctx, host, dtype, WgpuArray)
        if not isinstance(a, np.ndarray):
            return a
        nbytes = a.nbytes
        launcher = self.ctx.launcher
        # Pending dispatches may still read a pooled buffer: a queue write would overtake them.
        block = self.alloc(nbytes, fresh=launcher.pending)
        if nbytes:
            data = a.reshape(-1).view(np.uint8)
            if nbytes % 4:
                data = np.concatenate([data, np.zeros(4 - nbytes % 4, np.uint8)])
            self.ctx.queue.write_buffer(block.buffer, 0, data)
        return WgpuArray.contiguous(self.ctx, block, a.shape, a.dtype)

    # -- device to host -------------------------------------------------------------------
    def to_host(self, native: Any) -> np.ndarray:
        """A NumPy copy of ``native`` (the host waits for the work queued before it)."""
        return self.to_host_many([native])[0]

    def to_host_many(self, natives: list[Any]) -> list[np.ndarray]:
        """NumPy copies of several arrays after one wait: one submit, one staging buffer."""
        ranges, starts, at = [], [], 0  # starts: each array's first byte in the read
        for x in natives:
            if x.size == 0:
                starts.append(-1)
                continue
            lo, hi = span(x.offset, x.shape, x._strides, x.dtype.itemsize)
            lo4, hi4 = lo & ~3, (hi + 3) & ~3
            ranges.append((x.block.buffer, lo4, hi4 - lo4))
            starts.append(at + x.offset - lo4)
            at += hi4 - lo4
        raw = np.frombuffer(self.read_ranges(ranges), dtype=np.uint8) if ranges else None
        return [
            host_view(raw, start, x) if start >= 0 else np.empty(x.shape, x.dtype)
            for x, start in zip(natives, starts, strict=True)
        ]

    def read_bytes(self, buffer: Any, offset: int, size: int) -> memoryview:
        """``size`` bytes of ``buffer`` at ``offset`` (multiples of 4), after all queued work."""
        return self.read_ranges([(buffer, offset, size)])

    def read_ranges(self, ranges: list[tuple[Any, int, int]]) -> memoryview:
        """The (buffer, offset, size) ranges (multiples of 4) end to end, after all queued work."""
        launcher = self.ctx.launcher
        fps = getattr(self.ctx, "fpstatus", None)  # floating-point status words: same copy
        if fps is not None and fps.dirty:
            fps.dirty = False
            ranges = [*ranges, (fps.buffer, 0, 16)]
        else:
            fps = None
        size = sum(r[2] for r in ranges)
        sc = size_class(size)
        stack = self._readback.get(sc)
        staging = stack.pop() if stack else self.ctx.device.create_buffer(size=sc, usage=_READBACK)
        at = 0
        for buffer, offset, n in ranges:
            launcher.encoder_for_copy().copy_buffer_to_buffer(buffer, offset, staging, at, n)
            at += n
        launcher.flush()
        staging.map_sync(wgpu.MapMode.READ, 0, size)
        launcher.waited()
        try:
            data = staging.read_mapped(0, size, copy=True)
        finally:
            staging.unmap()
        self._readback.setdefault(sc, []).append(staging)
        if fps is not None:  # report after the read (a raise leaves no staging buffer behind)
            words, data = np.frombuffer(data[size - 16 : size], np.uint32), data[: size - 16]
            fps.take(words, f"a read from {self.ctx.name}")
        return data
