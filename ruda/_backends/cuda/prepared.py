"""Prepared launches: the hot path of small elementwise ops on cuda.

A chain of small ops is bound by the host: per op, the dtype rules, the layout analysis, the
kernel lookup and the argument objects cost more than the launch. The first call of an op on
contiguous same-shape operands of given dtypes goes the full way (``ops.apply``); it leaves a
prepared launcher behind, keyed by the operands' dtypes and context, holding the driver's
function handle, the launch shape and the result dtype. Later calls check the layout (cached
contiguity flags), allocate the result and launch: one pool allocation and one
``cuLaunchKernel``. In C, results of up to 64 KiB take their block from a small cache of blocks
whose arrays died (see ``_cuda_fast.cache_info()``), not from CuPy's pool.

With the C extension (``ruda/_native/_cuda_fast.c``, built by ``pip install -e .`` or
``scripts/build_ext.sh``) the whole fast path, from the op's implementation to
``cuLaunchKernel``, runs in C: ``elementwise`` gives the op's implementation and ``prepare`` a
``_cuda_fast.Prepared``. Without it the same steps run in Python (``C_FAST`` says which), as
``ruda._array`` does without ``_speedups``. The extension and the driver's functions come from
``driver.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..._kernels import ir
from .array import CudaArray
from .driver import C_FAST, _cuda_fast, driver
from .launcher import CHUNK


def elementwise(name: str, arity: int, fast: dict[tuple[Any, ...], Any],
                first_call: Callable[..., CudaArray],
                slow: Callable[..., CudaArray]) -> Callable[..., CudaArray] | None:  # fmt: skip
    """The C implementation of an op whose small contiguous calls launch ``fast``'s prepared
    entries (the checks and key of ``ops.make_elementwise``), or None without the extension.

    A miss calls ``first_call(args, key)``; every other call (keywords, ``out=``, scalars,
    other layouts, sizes over ``CHUNK``) calls ``slow(*args, **kwargs)``.
    """
    if _cuda_fast is None:
        return None
    return _cuda_fast.Elementwise(name, arity, fast, first_call, slow, CHUNK)


def prepare(
    ctx: Any, program: Any, result: np.dtype, arity: int, drv: Any = None,
    scalar: tuple[int, np.dtype] | None = None,
) -> Callable[..., CudaArray] | None:  # fmt: skip
    """A launcher of ``program`` (a contiguous elementwise kernel of ``arity`` operands) that
    allocates its ``result``-typed output; the array operands are contiguous, of one shape.
    ``scalar``: (position, dtype) of an operand that is a NumPy scalar, the kernel's parameter
    after ``n`` (C extension only: None without it).

    ``drv`` is the ``_cuda_fast.Driver`` to launch with (default: ``driver()``; tests pass one
    that records).
    """
    fps = getattr(program, "fps", None)  # the status words: one more buffer, the last
    arrays = arity - (scalar is not None)
    params = (("n", np.uint32),)
    if scalar is not None:
        params += ((f"val{scalar[0]}", program.params[-1][1]),)
    if program.nbuffers != arrays + 1 + (fps is not None) or program.params != params:
        raise ValueError(f"ruda: {program.name} is not a contiguous elementwise kernel of "
                         f"{arity} operand(s) (buffers, u32 n and a scalar's "
                         "parameter)")  # fmt: skip
    if scalar is not None:
        if _cuda_fast is None or ctx.multi:
            return None  # the Python paths below take arrays only
        pos, sdt = scalar
        t = ir.type_of(sdt)
        conv = 2 if t == ir.BOOL else 1 if t.is_half else 0  # as elementwise.param_type
        return _cuda_fast.Prepared(
            driver() if drv is None else drv, ctx, ctx.allocator.pool_alloc, result,
            program.fptr, program.block, program.block * program.items_per_thread, arity,
            program.name, status=0 if fps is None else fps.ptr, scalar=pos, conv=conv,
            sbytes=sdt.itemsize,
        )  # fmt: skip
    alloc, launcher = ctx.allocator.pool_alloc, ctx.launcher
    per = program.block * program.items_per_thread
    isz = result.itemsize
    new = CudaArray

    def flat(*xs: CudaArray) -> CudaArray:  # the general path: the launcher packs everything
        n = xs[0].size
        y = new(ctx, ctx.allocator.alloc(n * isz), 0, xs[0].shape, xs[0]._strides, result)
        y._contig = True
        launcher.launch(program, [*(x.ptr for x in xs), y.ptr], (n,), (-(-n // per),))
        return y

    if ctx.multi:  # the current device is switched around each launch: take the general path
        return flat
    if fps is not None and _cuda_fast is None:  # the Python path below packs no status pointer
        return flat

    if _cuda_fast is not None:
        drv = drv if drv is not None else driver()
        return _cuda_fast.Prepared(
            drv, ctx, alloc, result, program.fptr, program.block, per, arity, program.name,
            status=0 if fps is None else fps.ptr,
        )  # fmt: skip

    args, stream, drv_launch = launcher.args, launcher._current_stream, launcher._driver_launch
    fptr, pack, block = program.fptr, program.pack, program.block
    blank = CudaArray.__new__
    if arity == 1:

        def unary(a: CudaArray) -> CudaArray:
            n = a.size
            mem = alloc((n * isz + 7) & ~7)
            y = blank(new)
            y.ctx, y.mem, y.offset, y.shape, y._strides = ctx, mem, 0, a.shape, a._strides
            y.dtype, y.size, y._contig, y.readonly = result, n, True, False
            pack(args.vals, 0, a.mem.ptr + a.offset, mem.ptr, n)
            drv_launch(fptr, -(-n // per), 1, 1, block, 1, 1, 0, stream().ptr, args.kparams, 0)
            return y

        return unary

    def binary(a: CudaArray, b: CudaArray) -> CudaArray:
        n = a.size
        mem = alloc((n * isz + 7) & ~7)
        # a's strides suit a fresh dense array of its shape (length-1 dimensions aside)
        y = blank(new)
        y.ctx, y.mem, y.offset, y.shape, y._strides = ctx, mem, 0, a.shape, a._strides
        y.dtype, y.size, y._contig, y.readonly = result, n, True, False
        pack(args.vals, 0, a.mem.ptr + a.offset, b.mem.ptr + b.offset, mem.ptr, n)
        drv_launch(fptr, -(-n // per), 1, 1, block, 1, 1, 0, stream().ptr, args.kparams, 0)
        return y

    return binary


__all__ = ["C_FAST", "driver", "elementwise", "prepare"]
