"""The cuda backend's op glue: ``gpu.ops.GpuOps`` with CUDA launches.

The rules (promotion, broadcasting, ``out=``, scalars, creation arguments, views) are the
shared ones; what is CUDA's own is here: ``launch_map`` launches the contiguous kernel when
every operand is dense with the output's shape, else the strided kernel of the (collapsed)
rank; work over more than ``CHUNK`` elements is split into several launches (the kernels use
32-bit index math): contiguous runs by pointer offsets, strided ones along their leading
dimension, each chunk's pointer rebased to the lowest byte it touches. Elementwise ops keep a
prepared launch per dtype signature for small contiguous operands (``prepared.py``); fills of
zero bytes use the driver's memset; reduce and scan plans run over device pointers. This module
exports one ``CudaOps``'s bound methods.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from ..._dtypes import is_half
from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..._kernels.tune import engine as tune
from ..._ops import Op
from ..gpu import kernels, views
from ..gpu.creation import arange_chunks, fill_words
from ..gpu.layout import bstrides, collapse
from ..gpu.operands import Param
from ..gpu.ops import GpuOps, _ElementwiseMaker
from ..gpu.random import library as random_library
from ..gpu.strided import span
from ..gpu.tuning import Tuner, vectorizable
from . import launcher as _launcher
from .array import CudaArray
from .context import context
from .prepared import prepare

# Defaults of the contiguous elementwise kernel without a tuning decision (the tuner's baseline),
# from the H200 sweep of an f32 add of 256M (benchmarks/cuda_elementwise.py --sweep): one
# element per thread 3417 GB/s; float4 units 4432; four scalar units per thread 4385. Below
# VECTOR_MIN the scalar kernel stays: it takes the prepared fast path of small-op chains.
VECTOR_VARIANT: dict[str, Any] = {"vec": 4}
SCALAR_VARIANT: dict[str, Any] = {"ipt": 4}
VECTOR_MIN = 1 << 20


def default_variant(key: tune.Key) -> dict[str, Any]:
    """The elementwise variant launched without a tuning decision."""
    if key.shape[0] < VECTOR_MIN or not key.layout.startswith("contiguous"):
        return {}
    if key.layout == "contiguous" and vectorizable(key):
        return VECTOR_VARIANT
    return SCALAR_VARIANT


tune.set_backend_default("elementwise", "cuda", default_variant)

_I32_MAX = (1 << 31) - 1
_D2D = 3  # cudaMemcpyDeviceToDevice


@cache
def _runtime() -> Any:
    from cupy_backends.cuda.api import runtime  # CuPy's binding: present with the backend

    return runtime


class CudaOps(GpuOps):
    kind = "cuda"
    native = CudaArray

    def context(self, index: int) -> Any:
        return context(index)

    def cast_source(self, value: CudaArray, dst: np.dtype) -> CudaArray:
        if is_half(value.dtype) and dst == np.bool_:
            # The cast kernel tests 16-bit float bits against 0, which calls -0.0 True: go via
            # float32.
            return self.astype(value, np.float32)
        return value

    def copy_span(self, src: CudaArray, src_off: int, dst: CudaArray, dst_off: int,
                  nbytes: int) -> bool:  # fmt: skip
        """``cudaMemcpyAsync`` on the kernels' stream where the two spans do not overlap (an
        element in a loop, ``a[i, i] = v``, as scikit-learn's fill_diagonal does)."""
        if src.mem is dst.mem and src_off < dst_off + nbytes and dst_off < src_off + nbytes:
            return False
        ctx = dst.ctx
        stream = ctx.launcher.stream_ptr()
        args = (dst.mem.ptr + dst_off, src.mem.ptr + src_off, nbytes, _D2D, stream)
        if ctx.multi:
            with ctx.device:
                _runtime().memcpyAsync(*args)
        else:
            _runtime().memcpyAsync(*args)
        return True

    def launch_map(
        self, ctx: Any, make: Callable[[int | None], ir.Kernel], ins: list[Any], out: Any
    ) -> None:
        """Run an elementwise kernel (``make(ndim)``) from ``ins`` (broadcast; a ``Param`` is a
        scalar parameter ``val{k}``) into ``out``."""
        shape, n = out.shape, out.size
        if n == 0:
            return
        chunk, launcher = _launcher.CHUNK, ctx.launcher
        vals = {f"val{k}": x.value for k, x in enumerate(ins) if type(x) is Param}
        arrays = [(k, x) for k, x in enumerate(ins) if type(x) is not Param]
        ops = [*(x for _, x in arrays), out]
        if out.is_contiguous and all(x.shape == shape and x.is_contiguous for _, x in arrays):
            prog = ctx.compiler.program(self.contiguous_kernel(ctx, make, n, ops))
            for start in range(0, n, chunk):
                m = min(chunk, n - start)
                ptrs = [x.ptr + start * x.dtype.itemsize for x in ops]
                launcher.launch(prog, ptrs, {"n": m, **vals}, launcher.grid(prog, m))
            return
        cshape, cstr = collapse(shape, [*(bstrides(x, shape) for _, x in arrays), out._strides])
        if not cshape:  # every dimension has length 1: one element
            cshape, cstr = (1,), [(0,)] * len(ops)
        prog = ctx.compiler.program(make(len(cshape)))
        inner = math.prod(cshape[1:])
        if inner > chunk:
            raise NotImplementedError(
                f"ruda: a strided operand whose inner dimensions hold {inner} elements (over "
                f"{chunk}) is not implemented on {ctx.name} yet"
            )
        rows = max(1, chunk // inner)
        tags = [str(k) for k, _ in arrays] + ["o"]
        for r0 in range(0, cshape[0], rows):
            r = min(rows, cshape[0] - r0)
            part = (r, *cshape[1:])
            params: dict[str, Any] = {"n": r * inner, **vals}
            params.update({f"s{d}": s for d, s in enumerate(part)})
            ptrs = []
            for x, st, tag in zip(ops, cstr, tags, strict=True):
                isz = x.dtype.itemsize
                first = x.offset + r0 * st[0] * isz  # byte offset of this chunk's first element
                lo, hi = span(first, part, st, isz)
                if (hi - lo) // isz > _I32_MAX:
                    raise NotImplementedError(
                        f"ruda: a strided operand spanning {(hi - lo) // isz} elements exceeds the "
                        f"kernels' 32-bit offsets on {ctx.name}"
                    )
                ptrs.append(x.mem.ptr + lo)  # offsets below count from the lowest byte touched
                if r == 1:  # one row: its stride is never used (and may not fit 32 bits)
                    st = (0, *st[1:])
                params.update({f"st{tag}_{d}" if tag != "o" else f"sto_{d}": s
                               for d, s in enumerate(st)})  # fmt: skip
                params[f"off{tag}"] = (first - lo) // isz
            launcher.launch(prog, ptrs, params, launcher.grid(prog, r * inner))

    def contiguous_kernel(self, ctx: Any, make: Any, n: int, ops: list[CudaArray]) -> ir.Kernel:
        """The contiguous kernel for ``n`` elements: an op-table kernel's tuned variant (vectors
        only when every pointer is 16-byte aligned), else ``make(None)``."""
        if not getattr(make, "variants", False):  # a cast or a copy: no variants
            return make(None)
        kernel = self.tuner.kernel(ctx, make, n, "contiguous", default_variant)
        if kernel.vector_width > 1 and any(x.ptr % 16 for x in ops):
            kernel = self.tuner.kernel(ctx, make, n, "contiguous-misaligned", default_variant)
        return kernel

    def make_elementwise(self, op: Op) -> Callable[..., CudaArray]:
        """The strict entry (``GpuOps.apply``) with prepared launches for small contiguous
        operands of one shape, or one such array and a NumPy scalar (``prepared.py``)."""
        # (operand dtypes, ctx, size class[, the scalar's position]) -> prepared launcher; the
        # size class is the tuner's shape bucket ((n - 1).bit_length()), whose decision the
        # launcher holds
        fast: dict[tuple[Any, ...], Any] = {}
        arity, chunk, CA = op.arity, _launcher.CHUNK, CudaArray
        generic = super().make_elementwise(op)
        if op.operands:  # ldexp's own loop
            return generic
        apply = self.apply

        def first_call(args: tuple[Any, ...], key: tuple[Any, ...]) -> CudaArray:
            y = apply(op, args)
            pos = key[4] if len(key) == 5 else -1
            dtypes = key[:arity]
            if len(set(dtypes)) == 1 and (pos < 0 or ew.param_ok(ir.type_of(dtypes[0]))):
                # then apply() launched exactly this kernel, on one dtype
                x = args[1 - pos] if pos >= 0 else args[0]
                ctx = x.ctx
                types = tuple(ir.type_of(d) for d in dtypes)
                consts = () if pos < 0 else (pos,)
                make = _ElementwiseMaker(op.name, types, ir.type_of(y.dtype), consts)
                kernel = self.tuner.kernel(ctx, make, x.size, "contiguous", default_variant)
                if kernel.vector_width == 1:  # vectors need aligned pointers: the full path
                    run = prepare(ctx, ctx.compiler.program(kernel), y.dtype, arity,
                                  scalar=(pos, dtypes[0]) if pos >= 0 else None)  # fmt: skip
                    if run is not None:
                        fast[key] = run
            return y

        from .prepared import elementwise

        c_impl = elementwise(op.name, arity, fast, first_call, generic)
        if c_impl is not None:  # impl's fast path below, in C (ruda/_native/_cuda_fast.c)
            return c_impl

        def impl(*args: Any, out: Any = None) -> CudaArray:
            # Fast path: same-shape contiguous arrays, no out= (chains of small ops).
            if out is None:
                if arity == 2 and len(args) == 2:
                    a, b = args
                    if (type(a) is CA and type(b) is CA and a.shape == b.shape and a.ctx is b.ctx
                            and (a._contig or a.is_contiguous) and (b._contig or b.is_contiguous)
                            and 0 < a.size <= chunk):  # fmt: skip
                        key = (a.dtype, b.dtype, a.ctx, (a.size - 1).bit_length())
                        run = fast.get(key)
                        return run(a, b) if run is not None else first_call(args, key)
                elif arity == 1 and len(args) == 1:
                    a = args[0]
                    if type(a) is CA and (a._contig or a.is_contiguous) and 0 < a.size <= chunk:
                        key = (a.dtype, a.ctx, (a.size - 1).bit_length())
                        run = fast.get(key)
                        return run(a) if run is not None else first_call(args, key)
            return generic(*args, out=out)

        impl.__name__ = op.name
        return impl

    # -- creation launches --------------------------------------------------------------------
    def fill(self, x: CudaArray, value: Any) -> CudaArray:
        """Fill a fresh contiguous array (offset 0) with ``value``: its bytes, as u32 words
        (zero bytes: the driver's memset)."""
        if x.size == 0:
            return x
        ctx = x.ctx
        lo, hi, nwords = fill_words(x, value)  # the allocator rounds sizes up to 8 bytes
        if lo == 0 and hi == 0:
            x.mem.memset_async(0, x.nbytes, ctx.allocator.stream())
            return x
        prog = ctx.compiler.program(kernels.fill_words())
        chunk = _launcher.CHUNK & ~1  # even: lo/hi stay on even/odd words
        launcher = ctx.launcher
        for start in range(0, nwords, chunk):
            m = min(chunk, nwords - start)
            params = {"n": m, "lo": lo, "hi": hi}
            launcher.launch(prog, [x.mem.ptr + 4 * start], params, launcher.grid(prog, m))
        return x

    def arange_into(self, out: CudaArray, start: Any, step: Any, second: Any = None) -> None:
        ctx, work = out.ctx, out.dtype
        prog = ctx.compiler.program(kernels.arange(ir.type_of(work)))
        launcher = ctx.launcher
        for c0, m, params in arange_chunks(out.size, _launcher.CHUNK, work, start, step, second):
            ptrs = [out.ptr + c0 * work.itemsize]
            launcher.launch(prog, ptrs, {"n": m, **params}, launcher.grid(prog, m))

    # -- reduce and scan plans ------------------------------------------------------------------
    def plan_ready(self, x: CudaArray) -> bool:
        """A plan can read ``x`` as it is: contiguous."""
        return x.is_contiguous

    def run_plan(self, ctx: Any, p: Any, arrays: dict[str, CudaArray]) -> None:
        launch_plan(ctx, p, {name: x.ptr for name, x in arrays.items()})


def launch_plan(ctx: Any, p: Any, ptrs: dict[str, int]) -> None:
    """Launch ``p``'s kernels in order over ``ptrs`` (name -> device address) and its temps,
    which come from the pool zero-filled unless the plan writes them whole (freed afterwards:
    the pool is stream-ordered)."""
    ptrs = dict(ptrs)
    keep = []
    if p.temps:
        stream = ctx.allocator.stream()
        for name, (t, count) in p.temps.items():
            mem = ctx.allocator.alloc(count * t.itemsize)
            if name not in p.written:
                mem.memset_async(0, count * t.itemsize, stream)
            keep.append(mem)
            ptrs[name] = mem.ptr
    compiler, launcher = ctx.compiler, ctx.launcher
    for launch in p.launches:
        prog = compiler.program(launch.kernel)
        launcher.launch(prog, [ptrs[n] for n in launch.buffers], launch.params, launch.grid)


OPS = CudaOps()
OPS.tuner = Tuner(OPS)
CudaArray.ops = OPS
context_for, constant, astype, copy, assign = (
    OPS.context_for, OPS.constant, OPS.astype, OPS.copy, OPS.assign
)  # fmt: skip
apply, launch_map, make_elementwise, fill = (
    OPS.apply,
    OPS.launch_map,
    OPS.make_elementwise,
    OPS.fill,
)
reshape = views.reshape
LIBRARY: dict[str, Callable[..., Any]] = {**OPS.library(), **random_library(OPS)}
__all__ = ["LIBRARY", "OPS", "CudaOps", "apply", "assign", "astype", "constant", "context_for",
           "copy", "fill", "launch_map", "launch_plan", "make_elementwise", "reshape"]  # fmt: skip
