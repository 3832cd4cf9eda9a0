"""The wgpu backend's op glue: ``gpu.ops.GpuOps`` with WebGPU launches.

The rules (promotion, broadcasting, ``out=``, scalars, creation arguments, views) are the
shared ones; what is WebGPU's own is here: ``launch_map`` binds buffers (the contiguous kernel
when every operand is dense with the output's shape and aligned, its vectorised variant when
they are also all 32-bit and large, else the strided kernel of the collapsed rank, over whole
bindings), the word fill and arange launches, and running reduce and
scan plans over named buffers. This module exports one ``WgpuOps``'s bound methods.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..gpu import kernels
from ..gpu.creation import fill_words
from ..gpu.layout import bstrides, collapse
from ..gpu.ops import GpuOps
from ..gpu.strided import span
from .array import WgpuArray
from .context import context

# The contiguous variant for 32-bit operands of at least VECTOR_MIN elements at 16-byte aligned
# offsets. Issue 5's tuner will own this choice; until then, lavapipe's best of a quick sweep.
VECTOR_VARIANT: dict[str, Any] = {"vec": 4, "ipt": 2}
VECTOR_MIN = 4096


class WgpuOps(GpuOps):
    kind = "wgpu"
    native = WgpuArray
    vector_launches = 0  # statistics: launches of a vectorised variant (tests check it)

    def context(self, index: int) -> Any:
        return context(index)

    def launch_map(
        self, ctx: Any, make: Callable[[int | None], ir.Kernel], ins: list[Any], out: Any
    ) -> None:
        """Run an elementwise kernel (``make(ndim)``) from ``ins`` (broadcast) into ``out``."""
        shape, n = out.shape, out.size
        if n == 0:
            return
        launcher, align, max_bind = ctx.launcher, ctx.storage_align, ctx.max_binding
        alias = tuple(k for k, x in enumerate(ins) if x.shares_memory(out))
        dense = out.is_contiguous and all(x.shape == shape and x.is_contiguous for x in ins)
        ops = [*ins, out]
        if dense and all(x.offset % align == 0 for x in ops):
            kernel = make(None)
            # 32-bit operands whose bindings can span whole 16-byte vectors (pool blocks are
            # multiples of 256 bytes, so rounding a binding up stays inside its block)
            if (
                n >= VECTOR_MIN
                and getattr(make, "variants", False)  # an op-table kernel (not a cast or a fill)
                and ew.vectorizable(make.in_types, make.out_type)
                and all(
                    x.dtype.itemsize == 4
                    and x.offset % 16 == 0
                    and (x.block.size - x.offset) % 16 == 0
                    for x in ops
                )
            ):
                kernel = make(None, **VECTOR_VARIANT)
            if alias:  # WebGPU forbids read-only and read-write bindings of one buffer
                kernel = _with_alias(kernel, alias)
            if kernel.vector_width > 1:
                self.vector_launches += 1
            prog = ctx.compiler.program(kernel)
            step = 4 * kernel.vector_width - 1  # binding sizes: whole words, or whole vectors
            widest = max(x.dtype.itemsize for x in ops)
            chunk = n if n * widest <= max_bind else (max_bind // widest) // 1024 * 1024
            for start in range(0, n, chunk):
                m = min(chunk, n - start)
                binds = []
                for x in ops:
                    off = x.offset + start * x.dtype.itemsize
                    size = min((m * x.dtype.itemsize + step) & ~step, x.block.size - off)
                    binds.append((x.block.buffer, off, max(size, 4)))
                launcher.launch(prog, binds, {"n": m}, m)
            return
        if alias:
            make = _aliased(make, alias)
        if dense:  # unaligned offsets: the flat strided kernel takes them as parameters
            cshape: tuple[int, ...] = (n,)
            cstr = [(1,)] * len(ops)
        else:
            cshape, cstr = collapse(shape, [*(bstrides(x, shape) for x in ins), out._strides])
        nd = len(cshape)
        prog = ctx.compiler.program(make(nd))
        params: dict[str, Any] = {"n": n}
        for d, s in enumerate(cshape):
            params[f"s{d}"] = s
        binds = []
        for k, (x, st) in enumerate(zip(ops, cstr, strict=True)):
            is_out = k == len(ins)
            for d, s in enumerate(st):
                params[f"sto_{d}" if is_out else f"st{k}_{d}"] = s
            params["offo" if is_out else f"off{k}"] = x.elem_offset
            lo, hi = span(x.offset, cshape, st, x.dtype.itemsize)
            if hi > max_bind:
                raise NotImplementedError(
                    f"a strided operand reaching byte {hi} exceeds the largest binding of "
                    f"{ctx.name} ({max_bind} bytes); chunked strided bindings are not "
                    "implemented yet"
                )
            binds.append((x.block.buffer, 0, min(x.block.size, max_bind)))
        launcher.launch(prog, binds, params, n)

    # -- creation launches --------------------------------------------------------------------
    def fill(self, x: WgpuArray, value: Any) -> WgpuArray:
        """Fill a fresh contiguous array (offset 0) with ``value``: its bytes, as u32 words."""
        if x.size == 0:
            return x
        lo, hi, nwords = fill_words(x, value)
        ctx = x.ctx
        prog = ctx.compiler.program(kernels.fill_words())
        ctx.launcher.launch(
            prog, [(x.block.buffer, 0, nwords * 4)], {"n": nwords, "lo": lo, "hi": hi}, nwords
        )
        return x

    def arange_into(self, out: WgpuArray, start: Any, step: Any) -> None:
        ctx, n, work = out.ctx, out.size, out.dtype
        prog = ctx.compiler.program(kernels.arange(ir.type_of(work)))
        cast = float if work.kind == "f" else int
        ctx.launcher.launch(
            prog, [(out.block.buffer, 0, (out.nbytes + 3) & ~3)],
            {"n": n, "start": cast(start), "step": cast(step)}, n,
        )  # fmt: skip

    # -- reduce and scan plans ------------------------------------------------------------------
    def plan_ready(self, x: WgpuArray) -> bool:
        """A plan can bind ``x`` as it is: contiguous, at an aligned offset."""
        return x.is_contiguous and x.offset % x.ctx.storage_align == 0

    def run_plan(self, ctx: Any, p: Any, arrays: dict[str, WgpuArray]) -> None:
        """Queue ``p``'s launches in order over ``arrays`` (by name) and its temps (zero-filled)."""
        arrays = dict(arrays)
        for name, (t, count) in p.temps.items():
            arrays[name] = self.fill(ctx.allocator.empty((count,), ir.numpy_of(t)), 0)
        max_bind = ctx.max_binding
        binds = {}
        for name, x in arrays.items():
            if x.nbytes > max_bind:
                raise NotImplementedError(
                    f"ruda: a reduction over {x.nbytes} bytes exceeds the largest binding of "
                    f"{ctx.name} ({max_bind} bytes); chunked reductions are not implemented yet"
                )
            binds[name] = (x.block.buffer, x.offset, min(x.block.size - x.offset, max_bind))
        compiler, launcher = ctx.compiler, ctx.launcher
        for launch in p.launches:
            prog = compiler.program(launch.kernel)
            params = dict(zip(prog.param_names, launch.params, strict=True))
            bindings = [binds[n] for n in launch.buffers]
            launcher.launch_grid(prog, bindings, params, launch.grid[:2])


_ALIASED: dict[tuple[int, tuple[int, ...]], tuple[ir.Kernel, ir.Kernel]] = {}


def _with_alias(k: ir.Kernel, alias: tuple[int, ...]) -> ir.Kernel:
    """``k`` with the input bindings in ``alias`` declared read_write (they are the output)."""
    hit = _ALIASED.get((id(k), alias))
    if hit is not None and hit[0] is k:
        return hit[1]
    bufs = tuple(
        dataclasses.replace(b, access="read_write") if i in alias else b
        for i, b in enumerate(k.buffers)
    )
    v = dataclasses.replace(k, buffers=bufs)
    _ALIASED[(id(k), alias)] = (k, v)
    return v


def _aliased(make: Callable[[int | None], ir.Kernel], alias: tuple[int, ...]) -> Callable:
    """``make`` whose kernels have the input bindings in ``alias`` declared read_write."""
    return lambda nd: _with_alias(make(nd), alias)


OPS = WgpuOps()
WgpuArray.ops = OPS
apply, assign, astype, copy, make_elementwise = (
    OPS.apply, OPS.assign, OPS.astype, OPS.copy, OPS.make_elementwise
)  # fmt: skip
LIBRARY: dict[str, Callable[..., Any]] = OPS.library()
__all__ = ["LIBRARY", "OPS", "WgpuOps", "apply", "assign", "astype", "copy", "make_elementwise"]
