"""Prepared launchers: the hot path of small elementwise ops on cuda.

A chain of small ops is bound by the host: per op, the dtype rules, the layout analysis, the
kernel lookup and the argument objects cost more than the launch. The first call of an op on
contiguous same-shape operands of given dtypes goes the full way (``ops.apply``); it leaves a
prepared launcher behind, keyed by the operands' dtypes and context: a closure holding the
driver's function handle, its argument packer, the launch shape and the result dtype. Later
calls check the layout (cached contiguity flags), allocate the result and launch: one pool
allocation, one ``struct.pack_into`` and one ``cuLaunchKernel``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .array import CudaArray


def prepare(ctx: Any, program: Any, result: np.dtype, arity: int) -> Callable[..., CudaArray]:
    """A launcher of ``program`` (a contiguous elementwise kernel of ``arity`` inputs) that
    allocates its ``result``-typed output; the operands are contiguous, of one shape."""
    alloc = ctx.allocator.pool_alloc
    launcher = ctx.launcher
    args, stream, drv = launcher.args, launcher._current_stream, launcher._driver_launch
    fptr, pack, block = program.fptr, program.pack, program.block
    per = program.block * program.items_per_thread
    isz = result.itemsize
    new = CudaArray
    blank = CudaArray.__new__
    if ctx.multi:  # the current device is switched around each launch: take the general path

        def general(*xs: CudaArray) -> CudaArray:
            n = xs[0].size
            y = new(ctx, ctx.allocator.alloc(n * isz), 0, xs[0].shape, xs[0]._strides, result)
            y._contig = True
            launcher.launch_flat(program, [*(x.ptr for x in xs), y.ptr], n)
            return y

        return general

    if arity == 1:

        def unary(a: CudaArray) -> CudaArray:
            n = a.size
            mem = alloc((n * isz + 7) & ~7)
            y = blank(new)
            y.ctx, y.mem, y.offset, y.shape, y._strides = ctx, mem, 0, a.shape, a._strides
            y.dtype, y.size, y._contig = result, n, True
            pack(args.vals, 0, a.mem.ptr + a.offset, mem.ptr, n)
            drv(fptr, -(-n // per), 1, 1, block, 1, 1, 0, stream().ptr, args.kparams, 0)
            return y

        return unary

    def binary(a: CudaArray, b: CudaArray) -> CudaArray:
        n = a.size
        mem = alloc((n * isz + 7) & ~7)
        # a's strides suit a fresh dense array of its shape (length-1 dimensions aside)
        y = blank(new)
        y.ctx, y.mem, y.offset, y.shape, y._strides = ctx, mem, 0, a.shape, a._strides
        y.dtype, y.size, y._contig = result, n, True
        pack(args.vals, 0, a.mem.ptr + a.offset, b.mem.ptr + b.offset, mem.ptr, n)
        drv(fptr, -(-n // per), 1, 1, block, 1, 1, 0, stream().ptr, args.kparams, 0)
        return y

    return binary


__all__ = ["prepare"]
