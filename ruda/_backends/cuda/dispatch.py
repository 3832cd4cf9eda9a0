"""Prepared launchers: the hot path of small elementwise ops on cuda.

A chain of small ops is bound by the host: per op, the dtype rules, the layout analysis, the
kernel lookup and the argument objects cost more than the launch. The first call of an op on
contiguous same-shape operands of given dtypes goes the full way (``ops.apply``); it leaves a
prepared launcher behind, keyed by the operands' dtypes and context, holding the driver's
function handle, the launch shape and the result dtype. Later calls check the layout (cached
contiguity flags), allocate the result and launch: one pool allocation and one
``cuLaunchKernel``. In C, results of up to 64 KiB take their block from a small cache of blocks
whose arrays died (see ``_cuda_fast.cache_info()``), not from CuPy's pool.

With the C extension (``ruda/_cuda_fast.c``, built by ``pip install -e .`` or
``scripts/build_ext.sh``) the whole fast path, from the op's implementation to
``cuLaunchKernel``, runs in C: ``elementwise`` gives the op's implementation and ``prepare`` a
``_cuda_fast.Prepared``. Without it the same steps run in Python (``C_FAST`` says which), as
``ruda._array`` does without ``_speedups``.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .array import CudaArray
from .launcher import CHUNK

try:  # the C fast path; built by pip install or scripts/build_ext.sh
    from ... import _cuda_fast
except ImportError:  # pragma: no cover - exercised where the extension is not built
    _cuda_fast = None
C_FAST = _cuda_fast is not None
if _cuda_fast is not None:
    _cuda_fast.init(CudaArray)  # the slots it reads and fills
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


def prepare(ctx: Any, program: Any, result: np.dtype, arity: int,
            drv: Any = None) -> Callable[..., CudaArray]:  # fmt: skip
    """A launcher of ``program`` (a contiguous elementwise kernel of ``arity`` inputs) that
    allocates its ``result``-typed output; the operands are contiguous, of one shape.

    ``drv`` is the ``_cuda_fast.Driver`` to launch with (default: ``driver()``; tests pass one
    that records).
    """
    fps = getattr(program, "fps", None)  # the status words: one more buffer, the last
    if program.nbuffers != arity + 1 + (fps is not None) or program.params != (("n", np.uint32),):
        raise ValueError(f"ruda: {program.name} is not a contiguous elementwise kernel of "
                         f"{arity} input(s) (buffers and one u32 n)")  # fmt: skip
    alloc, launcher = ctx.allocator.pool_alloc, ctx.launcher
    per = program.block * program.items_per_thread
    isz = result.itemsize
    new = CudaArray

    def flat(*xs: CudaArray) -> CudaArray:  # the general path: launch_flat packs everything
        n = xs[0].size
        y = new(ctx, ctx.allocator.alloc(n * isz), 0, xs[0].shape, xs[0]._strides, result)
        y._contig = True
        launcher.launch_flat(program, [*(x.ptr for x in xs), y.ptr], n)
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
