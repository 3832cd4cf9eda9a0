"""Program + device pointers + parameters -> a kernel launch on the current stream.

The grid is one-dimensional: ``ceil(n / items_per_thread / block)`` blocks of the kernel's
workgroup size. Kernels index with 32-bit math, so callers (``ops.launch_map``) split work of
more than ``CHUNK`` elements into several launches; one launch never exceeds 2^31 threads.
Arguments follow the kernel's signature: buffer pointers, then scalars typed per the IR.
"""

from __future__ import annotations

from typing import Any

import numpy as np

CHUNK = 1 << 30  # elements per launch at most (32-bit index math in the kernels)
_U32 = np.uint32


class Launcher:
    """Queues launches on the device's current CuPy stream; never waits, except ``synchronize``."""

    def __init__(self, ctx: Any) -> None:
        import cupy
        from cupy.cuda.function import CIntptr

        self.ctx = ctx
        self._cupy = cupy
        self._ptr = CIntptr  # a pointer argument, passed by value
        self.launches = 0

    def grid(self, program: Any, n: int) -> int:
        """Blocks for ``n`` elements."""
        threads = -(-n // program.items_per_thread)
        return max(1, -(-threads // program.block))

    def launch(self, program: Any, pointers: list[int], params: dict[str, Any], n: int) -> None:
        """Run ``program`` over ``n`` elements: ``pointers`` in buffer order, ``params`` by name."""
        if n > CHUNK:
            raise ValueError(f"ruda: a launch of {n} elements exceeds {CHUNK}; split it")
        ptr = self._ptr
        args = (*[ptr(p) for p in pointers], *[conv(params[k]) for k, conv in program.params])
        blocks = self.grid(program, n)
        if self.ctx.multi:
            with self.ctx.device:
                program.function((blocks, 1, 1), (program.block, 1, 1), args)
        else:
            program.function((blocks, 1, 1), (program.block, 1, 1), args)
        self.launches += 1

    def launch_flat(self, program: Any, pointers: list[int], n: int) -> None:
        """``launch`` for a contiguous kernel, whose one parameter is ``n`` (the hot path)."""
        ptr = self._ptr
        args = (*[ptr(p) for p in pointers], _U32(n))
        threads = -(-n // program.items_per_thread)
        blocks = -(-threads // program.block)
        if self.ctx.multi:
            with self.ctx.device:
                program.function((blocks, 1, 1), (program.block, 1, 1), args)
        else:
            program.function((blocks, 1, 1), (program.block, 1, 1), args)
        self.launches += 1

    def synchronize(self) -> None:
        """Wait until the device's current stream has finished everything queued on it."""
        self.ctx.allocator.stream().synchronize()
