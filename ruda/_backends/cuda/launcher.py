"""Program + device pointers + parameters -> a kernel launch on the current stream.

Launches go straight to the driver (``cuLaunchKernel`` through CuPy's binding): each program
carries a ``struct`` format that packs its arguments (pointers, then scalars typed per the IR)
into one 8-byte slot each of a per-thread buffer, whose slot addresses are the kernel's
``void**`` parameter array; the driver copies the values at launch, so the buffer is reused.
This costs a fraction of CuPy's ``Function.__call__`` (no argument objects are created).

``launch`` runs a one-dimensional grid (``ceil(n / items_per_thread / block)`` blocks); kernels
index with 32-bit math, so callers (``ops.launch_map``) split work of more than ``CHUNK``
elements into several launches. ``launch_grid`` takes the grid as given (reduction plans).
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

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


class Launcher:
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

    def grid(self, program: Any, n: int) -> int:
        """Blocks for ``n`` elements."""
        threads = -(-n // program.items_per_thread)
        return max(1, -(-threads // program.block))

    def raw(self, program: Any, values: list[Any] | tuple[Any, ...], gx: int, gy: int = 1,
            gz: int = 1) -> None:  # fmt: skip
        """Launch ``program`` on a ``gx * gy * gz`` grid with its arguments ``values`` in order."""
        a = self.args
        program.pack(a.vals, 0, *values)
        if self.ctx.multi:
            with self.ctx.device:
                self._driver_launch(program.fptr, gx, gy, gz, program.block, 1, 1, 0,
                                    self._current_stream().ptr, a.kparams, 0)  # fmt: skip
        else:
            self._driver_launch(program.fptr, gx, gy, gz, program.block, 1, 1, 0,
                                self._current_stream().ptr, a.kparams, 0)  # fmt: skip
        self.launches += 1

    def launch(self, program: Any, pointers: list[int], params: dict[str, Any], n: int) -> None:
        """Run ``program`` over ``n`` elements: ``pointers`` in buffer order, ``params`` by name."""
        if n > CHUNK:
            raise ValueError(f"ruda: a launch of {n} elements exceeds {CHUNK}; split it")
        fps = program.fps
        if fps is not None:  # the status words: the last buffer
            pointers = [*pointers, fps.ptr]
            fps.dirty = True
        values = [*pointers, *[params[k] for k, _ in program.params]]
        self.raw(program, values, self.grid(program, n))

    def launch_flat(self, program: Any, pointers: list[int], n: int) -> None:
        """``launch`` for a contiguous kernel, whose one parameter is ``n``."""
        fps = program.fps
        if fps is not None:
            pointers = [*pointers, fps.ptr]
            fps.dirty = True
        self.raw(program, [*pointers, n], -(-n // (program.items_per_thread * program.block)))

    def launch_grid(self, program: Any, pointers: list[int], params: tuple[int, ...],
                    grid: tuple[int, int, int]) -> None:  # fmt: skip
        """Run ``program`` on ``grid`` (x, y, 1) with ``params`` in the kernel's order."""
        fps = getattr(program, "fps", None)
        if fps is not None:
            pointers = [*pointers, fps.ptr]
            fps.dirty = True
        self.raw(program, [*pointers, *params], grid[0], grid[1])

    def synchronize(self) -> None:
        """Wait until the device's current stream has finished everything queued on it."""
        self.ctx.allocator.stream().synchronize()
