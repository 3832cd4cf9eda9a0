"""Program + device pointers + parameters -> a kernel launch on the current stream.

Launches go straight to the driver (``cuLaunchKernel`` through CuPy's binding): each program
carries a ``struct`` format that packs its arguments (pointers, then scalars typed per the IR)
into one 8-byte slot each of a per-thread buffer, whose slot addresses are the kernel's
``void**`` parameter array; the driver copies the values at launch, so the buffer is reused.
This costs a fraction of CuPy's ``Function.__call__`` (no argument objects are created).

``launch(program, buffers, params, grid)`` is the one entry (``base.Launcher``): elementwise
work passes ``grid(program, n)``, one dimension of ``ceil(n / items_per_thread / block)`` blocks;
kernels index with 32-bit math, so callers (``ops.launch_map``) split work of more than ``CHUNK``
elements into several launches. Reduce plans pass their own grid and their parameters in order.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from .. import base

CHUNK = 1 << 30  # elements per launch at most (32-bit index math in the kernels)
SLOTS = 64  # kernel arguments at most


class _Args(threading.local):
    """This thread's argument buffer: ``SLOTS`` 8-byte values and the array of their addresses."""

    def __init__(self) -> None:
        from cupy_backends.cuda.api import runtime

        self.vals = ctypes.create_string_buffer(8 * SLOTS)
        base = ctypes.addressof(self.vals)
        self.ptrs = (ctypes.c_void_p * SLOTS)(*[base + 8 * i for i in range(SLOTS)])
        self.kparams = ctypes.addressof(self.ptrs)
        runtime.free(0)  # makes the device's primary context current in this thread


class Launcher(base.Launcher):
    """Queues launches on the device's current CuPy stream; never waits, except ``synchronize``."""

    def __init__(self, ctx: Any) -> None:
        import cupy
        from cupy_backends.cuda.api import driver

        self.ctx = ctx
        self._cupy = cupy
        self._driver_launch = driver.launchKernel
        self._current_stream = cupy.cuda.get_current_stream
        self.args = _Args()
        self.launches = 0

    def stream_ptr(self) -> int:
        return self._current_stream().ptr

    def grid(self, program: Any, n: int) -> tuple[int]:
        """Blocks for ``n`` elements (at most ``CHUNK``: callers split larger work)."""
        if n > CHUNK:
            raise ValueError(f"ruda: a launch of {n} elements exceeds {CHUNK}; split it")
        threads = -(-n // program.items_per_thread)
        return (max(1, -(-threads // program.block)),)

    def launch(self, program: Any, buffers: Any, params: Any, grid: Any) -> None:
        """Run ``program`` on ``grid`` (blocks along x[, y[, z]]): ``buffers`` the device
        pointers in the kernel's order (the status words' come last, added here), ``params``
        by name (a dict) or in the kernel's order (a tuple: reduce plans, prepared launches)."""
        fps = program.fps
        if fps is not None:  # the status words: the last buffer
            buffers = [*buffers, fps.ptr]
            fps.dirty = True
        if type(params) is dict:
            values = [*buffers, *[params[k] for k, _ in program.params]]
        else:
            values = [*buffers, *params]
        a = self.args
        program.pack(a.vals, 0, *values)
        gx, gy, gz = (*grid, 1, 1)[:3] if len(grid) < 3 else grid
        if self.ctx.multi:
            with self.ctx.device:
                self._driver_launch(program.fptr, gx, gy, gz, program.block, 1, 1, 0,
                                    self._current_stream().ptr, a.kparams, 0)  # fmt: skip
        else:
            self._driver_launch(program.fptr, gx, gy, gz, program.block, 1, 1, 0,
                                self._current_stream().ptr, a.kparams, 0)  # fmt: skip
        self.launches += 1

    def synchronize(self) -> None:
        """Wait until the device's current stream has finished everything queued on it."""
        self.ctx.allocator.stream().synchronize()
