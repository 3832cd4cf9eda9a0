"""A wgpu device's floating-point status words (``ruda._backends.gpu.fpstatus``): a storage buffer
read in the same copy as the data a host read brings back."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._kernels.math import fpstatus as kfp
from ..gpu.fpstatus import Status


def wgpu_status(ctx: Any) -> Status:
    """``ctx``'s status (made on first use): a zeroed 16-byte storage buffer."""
    st = getattr(ctx, "fpstatus", None)
    if st is None:
        import wgpu

        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        buf = ctx.device.create_buffer(size=kfp.NBYTES, usage=usage)  # zeroed by WebGPU
        zeros = bytes(kfp.NBYTES)

        def read() -> Any:  # (not dirty now: read_ranges adds no words of its own)
            return np.frombuffer(ctx.allocator.read_ranges([(buf, 0, kfp.NBYTES)]), np.uint32)

        def clear() -> None:  # queue order: after the read's copy, before later submits
            ctx.queue.write_buffer(buf, 0, zeros)

        st = ctx.fpstatus = Status(ctx, buf, read, clear)
    return st


__all__ = ["wgpu_status"]
