"""The wgpu backend's op glue: ``gpu.ops.GpuOps`` with WebGPU launches.

The rules (promotion, broadcasting, ``out=``, scalars, creation arguments, views) are the
shared ones; what is WebGPU's own is here: ``launch_map`` binds buffers (the contiguous kernel
when every operand is dense with the output's shape and aligned, its vectorised variant when
they are also all 32-bit and large, else the strided kernel of the collapsed rank, over whole
bindings), the word fill and arange launches, and running reduce and
scan plans over named buffers. This module exports one ``WgpuOps``'s bound methods.

Operands larger than one binding (``max-storage-buffer-binding-size``) run in several launches:
contiguous ones in aligned chunks, strided ones in pieces (``gpu.chunking.pieces``) that each
bind a window of every operand with element offsets into it; fills and aranges in chunks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..._kernels.tune import engine as tune
from ..gpu import chunking, kernels
from ..gpu.creation import arange_chunks, fill_words
from ..gpu.layout import bstrides, collapse
from ..gpu.operands import Param
from ..gpu.ops import GpuOps, _ElementwiseMaker, casts_operands
from ..gpu.random import library as random_library
from ..gpu.strided import c_strides
from ..gpu.tuning import Tuner, vectorizable
from .array import WgpuArray
from .context import context

# The default contiguous variant for 32-bit operands of at least VECTOR_MIN elements at 16-byte
# aligned offsets (lavapipe's best of a quick sweep); a stored tuning decision replaces it.
VECTOR_VARIANT: dict[str, Any] = {"vec": 4, "ipt": 2}
VECTOR_MIN = 4096


def default_variant(key: tune.Key) -> dict[str, Any]:
    """The elementwise variant launched without a tuning decision (the tuner's baseline)."""
    if key.layout == "contiguous" and key.shape[0] >= VECTOR_MIN and vectorizable(key):
        return VECTOR_VARIANT
    return {}


tune.set_backend_default("elementwise", "wgpu", default_variant)


class WgpuOps(GpuOps):
    kind = "wgpu"
    native = WgpuArray
    vector_launches = 0  # statistics: launches of a vectorised variant (tests check it)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # (op, device, features, shape, dtypes) -> _Dense or None: what apply decided for array
        # operands of one shape, dense and aligned (emptied with the tuner's memos: its kernel
        # is in it)
        self._dense = tune.hot_memo()

    def context(self, index: int) -> Any:
        return context(index)

    def apply(self, op: Any, args: tuple[Any, ...], out: Any = None) -> Any:
        """``GpuOps.apply``; array operands of one shape, dense and aligned, into a new array or
        a dense ``out`` of the result dtype (an operand itself too) take a memoised launch (the
        host's cost per op is most of a small op's time)."""
        done = self._apply_dense(op, args, out)
        return done if done is not None else super().apply(op, args, out)

    def make_elementwise(self, op: Any) -> Callable[..., Any]:
        """``GpuOps.make_elementwise``, trying the memoised dense launch first (``out`` an array
        or None): what ``apply`` would do, without its checks."""
        generic = super().make_elementwise(op)
        if op.operands:  # ldexp's own loop
            return generic
        dense, arity = self._apply_dense, op.arity

        def impl(*args: Any, out: Any = None) -> Any:
            if len(args) == arity and (out is None or type(out) is WgpuArray):
                r = dense(op, args, out)
                if r is not None:
                    return r
            return generic(*args, out=out)

        impl.__name__ = op.name
        return impl

    def _apply_dense(self, op: Any, args: tuple[Any, ...], out: Any = None) -> Any:
        """The memoised launch for array operands of one dense shape, and at most one NumPy
        scalar of the arrays' dtype (a parameter: packed per call), or None."""
        pos = -1
        first = args[0] if args else None
        if type(first) is not WgpuArray:
            if (
                len(args) != 2
                or type(args[1]) is not WgpuArray
                or not isinstance(first, np.generic)
            ):
                return None
            pos, first = 0, args[1]
        ctx = first.ctx
        # the key holds each operand's shape, dtype and strides: no contiguity test per call
        key: list[Any] = [op.name, ctx, ctx.features]
        arrays = []
        for k, a in enumerate(args):
            if type(a) is WgpuArray and a.ctx is ctx:
                key += (a.shape, a.dtype, a._strides)
                arrays.append(a)
            elif k == pos or (pos < 0 and isinstance(a, np.generic)):
                pos = k
                key += (None, a.dtype, k)  # the scalar's dtype and side
            else:
                return None
        hkey = tuple(key)
        plan = self._dense.get(hkey, False)
        if plan is False:
            if len(self._dense) > 4096:
                self._dense.clear()
            plan = self._dense[hkey] = _Dense.make(self, op, args, pos)
        if plan is None:
            return None
        uids: list[Any] = [plan]
        for a in arrays:
            if a.offset or a.block.size % 16:  # the general path picks the kernel for these
                return None
            uids.append(a.block.buffer.uid)
        program = plan.program
        if out is None:
            block = ctx.allocator.alloc(plan.nbytes)
            out = WgpuArray(ctx, block, 0, first.shape, plan.strides, plan.result)
        else:  # the same dense layout and the result dtype, else the general path
            block = out.block
            if (out.ctx is not ctx or out.shape != first.shape or out.dtype != plan.result
                    or out._strides != plan.strides or out.offset):  # fmt: skip
                return None
            # an operand in out's buffer is out itself (offset 0, one dense shape): WebGPU
            # forbids it read-only beside out's read-write binding, so the kernel declares it so
            alias = tuple(k for k, a in enumerate(arrays) if a.block is block)
            if alias:
                program = plan.aliased(ctx, alias)
                uids[0] = (plan, alias)
        if block.size % 16:
            return None  # a buffer past the pool's sizes: the general path binds it
        uids.append(block.buffer.uid)
        launcher = ctx.launcher
        # each binding is the plan's span (whole 16-byte granules within a block of whole ones)
        group = launcher.groups.get(tuple(uids))
        if group is None:
            buffers = [a.block.buffer for a in arrays] + [block.buffer]
            binds = [(b, 0, span) for b, span in zip(buffers, plan.spans, strict=True)]
            group = launcher.bind_group(program, binds, tuple(uids))
        if plan.vector > 1:
            self.vector_launches += 1
        data = plan.data if pos < 0 else plan.pack(args[pos])
        launcher.launch(program, group, data, plan.grid)
        return out

    def launch_map(
        self, ctx: Any, make: Callable[[int | None], ir.Kernel], ins: list[Any], out: Any
    ) -> None:
        """Run an elementwise kernel (``make(ndim)``) from ``ins`` (broadcast; a ``Param`` is a
        scalar parameter ``val{k}``) into ``out``."""
        shape, n = out.shape, out.size
        if n == 0:
            return
        launcher, align, max_bind = ctx.launcher, ctx.storage_align, chunking.limit_of(ctx)
        vals = {f"val{k}": x.value for k, x in enumerate(ins) if type(x) is Param}
        tags = [k for k, x in enumerate(ins) if type(x) is not Param]
        arrays = [ins[k] for k in tags]
        # bindings numbered among the arrays (the parameters have none)
        alias = tuple(b for b, x in enumerate(arrays) if x.shares_memory(out))
        dense = out.is_contiguous and all(x.shape == shape and x.is_contiguous for x in arrays)
        ops = [*arrays, out]
        if dense and all(x.offset % align == 0 for x in ops):
            if getattr(make, "variants", False):  # an op-table kernel: the tuner's variant
                kernel = self.tuner.kernel(ctx, make, n, "contiguous", default_variant)
                # vectors need each binding to span whole 16-byte vectors (pool blocks are
                # multiples of 256 bytes, so rounding a binding up stays inside its block)
                if kernel.vector_width > 1 and not all(
                    x.offset % 16 == 0 and (x.block.size - x.offset) % 16 == 0 for x in ops
                ):
                    kernel = self.tuner.kernel(
                        ctx, make, n, "contiguous-misaligned", default_variant
                    )
            else:
                kernel = make(None)
            if alias:  # WebGPU forbids read-only and read-write bindings of one buffer
                kernel = _with_alias(kernel, alias)
            if kernel.vector_width > 1:
                self.vector_launches += 1
            prog = ctx.compiler.program(kernel)
            vw = kernel.vector_width  # bindings span whole words, or whole vectors
            widest = max(x.dtype.itemsize for x in ops)
            # chunks start at aligned bytes of every operand (and whole u32 words of packed ones)
            chunk = n if n * widest <= max_bind else max(align, max_bind // widest // align * align)
            for start in range(0, n, chunk):
                m = min(chunk, n - start)
                binds = [_binding(x, start, m, vw) for x in ops]
                launcher.launch(prog, binds, {"n": m, **vals}, launcher.grid(prog, m))
            return
        if alias:
            make = _aliased(make, alias)
        # the strided kernel of the collapsed rank; inputs as views broadcast to the output
        views = [*(x.view_of(x.offset, shape, bstrides(x, shape)) for x in arrays), out]
        if all(x.block.size <= max_bind for x in views):
            self._launch_strided(ctx, make, views, False, tags, vals)
            return
        # a buffer larger than one binding: bind windows, pieces whose windows fit
        for piece in chunking.pieces(views, max_bind, align):
            self._launch_strided(ctx, make, piece, True, tags, vals)

    def _launch_strided(self, ctx: Any, make: Callable[[int | None], ir.Kernel],
                        views: list[Any], windowed: bool, tags: list[int] | None = None,
                        vals: dict[str, Any] | None = None) -> None:  # fmt: skip
        """One launch of the strided kernel over ``views`` (inputs, then the output; one shape):
        whole buffers bound, or (``windowed``) each view's aligned window with offsets into it.
        ``tags``: each input view's operand position (default: in order); ``vals``: the scalar
        operands' parameters."""
        out = views[-1]
        n = out.size
        if n == 0:
            return
        cshape, cstr = collapse(out.shape, [x._strides for x in views])
        prog = ctx.compiler.program(make(len(cshape)))
        params: dict[str, Any] = {"n": n, **(vals or {})}
        for d, s in enumerate(cshape):
            params[f"s{d}"] = s
        binds = []
        last = len(views) - 1
        pos = tags if tags is not None else list(range(last))
        for k, (x, st) in enumerate(zip(views, cstr, strict=True)):
            tag = "o" if k == last else pos[k]
            for d, s in enumerate(st):
                params[f"sto_{d}" if k == last else f"st{tag}_{d}"] = s
            if windowed:
                lo, hi = chunking.window(x, ctx.storage_align)
                size = min((hi - lo + 3) & ~3, x.block.size - lo)
                binds.append((x.block.buffer, lo, max(size, 4)))
                off = (x.offset - lo) // x.dtype.itemsize
            else:
                binds.append((x.block.buffer, 0, min(x.block.size, ctx.max_binding)))
                off = x.elem_offset
            params["offo" if k == last else f"off{tag}"] = off
        ctx.launcher.launch(prog, binds, params, ctx.launcher.grid(prog, n))

    def copy_span(self, src: WgpuArray, src_off: int, dst: WgpuArray, dst_off: int,
                  nbytes: int) -> bool:  # fmt: skip
        """A buffer-to-buffer copy where WebGPU's copy alignment (4 bytes: offsets and size)
        holds, between two buffers (a copy within one is not allowed). One element (up to 16
        bytes) between bindable buffers joins the launcher's batch of word copies instead: a
        loop of element assignments then costs one dispatch, not a copy command each."""
        if (nbytes | src_off | dst_off) % 4 or src.block is dst.block:
            return False
        launcher, sb, db = dst.ctx.launcher, src.block, dst.block
        if nbytes <= 16 and max(sb.size, db.size) <= dst.ctx.max_binding:
            launcher.copy_words(sb, src_off >> 2, db, dst_off >> 2, nbytes >> 2)
        else:
            launcher.copy(sb.buffer, src_off, db.buffer, dst_off, nbytes)
        return True

    # -- creation launches --------------------------------------------------------------------
    def fill(self, x: WgpuArray, value: Any) -> WgpuArray:
        """Fill a fresh contiguous array (offset 0) with ``value``: its bytes, as u32 words."""
        if x.size == 0:
            return x
        lo, hi, nwords = fill_words(x, value)
        ctx = x.ctx
        prog = ctx.compiler.program(kernels.fill_words())
        step = _chunk(ctx, nwords, 4)  # an even number of words: lo/hi keep their parity
        launcher = ctx.launcher
        for w0 in range(0, nwords, step):
            m = min(step, nwords - w0)
            params = {"n": m, "lo": lo, "hi": hi}
            launcher.launch(prog, [(x.block.buffer, w0 * 4, m * 4)], params, launcher.grid(prog, m))
        return x

    def arange_into(self, out: WgpuArray, start: Any, step: Any, second: Any = None) -> None:
        ctx, n, work = out.ctx, out.size, out.dtype
        prog = ctx.compiler.program(kernels.arange(ir.type_of(work)))
        isz = work.itemsize
        for i0, m, params in arange_chunks(n, _chunk(ctx, n, isz), work, start, step, second):
            binding = (out.block.buffer, i0 * isz, (m * isz + 3) & ~3)
            ctx.launcher.launch(prog, [binding], {"n": m, **params}, ctx.launcher.grid(prog, m))

    # -- reduce and scan plans ------------------------------------------------------------------
    def plan_ready(self, x: WgpuArray) -> bool:
        """A plan can bind ``x`` as it is: contiguous, at an aligned offset."""
        return x.is_contiguous and x.offset % x.ctx.storage_align == 0

    def run_plan(self, ctx: Any, p: Any, arrays: dict[str, WgpuArray]) -> None:
        """Queue ``p``'s launches in order over ``arrays`` (by name) and its temps (zero-filled)."""
        max_bind = chunking.limit_of(ctx)
        for x in arrays.values():
            if x.nbytes > max_bind:
                raise NotImplementedError(
                    f"ruda: {p.launches[0].kernel.name if p.launches else 'a plan'} over an "
                    f"operand of {x.nbytes} bytes exceeds the largest binding of {ctx.name} "
                    f"({max_bind} bytes) and is not split into chunks yet"
                )
        arrays = dict(arrays)
        for name, (t, count) in p.temps.items():
            arrays[name] = ctx.allocator.empty((count,), ir.numpy_of(t))
            if name not in p.written:
                self.fill(arrays[name], 0)
        # the adapter's own limit: a plan's temporaries are a fraction of its operands
        hard = ctx.limits.get("max-storage-buffer-binding-size", max_bind) // 4 * 4
        binds = {
            name: (x.block.buffer, x.offset, min(x.block.size - x.offset, hard))
            for name, x in arrays.items()
        }
        compiler, launcher = ctx.compiler, ctx.launcher
        for launch in p.launches:
            prog = compiler.program(launch.kernel)
            params = dict(zip(prog.param_names, launch.params, strict=True))
            bindings = [binds[n] for n in launch.buffers]
            launcher.launch(prog, bindings, params, launch.grid[:2])


def _binding(x: WgpuArray, start: int, m: int, vector: int) -> tuple[Any, int, int]:
    """(buffer, offset, size) binding ``m`` elements of contiguous ``x`` from element ``start``:
    whole words, or whole ``vector``-lane vectors, within ``x``'s block."""
    isz = x.dtype.itemsize
    off = x.offset + start * isz
    return x.block.buffer, off, max(min(_span(m * isz, vector), x.block.size - off), 4)


def _span(nbytes: int, vector: int) -> int:
    """``nbytes`` rounded up to whole words, or whole ``vector``-lane vectors of words."""
    step = 4 * vector - 1
    return (nbytes + step) & ~step


@dataclasses.dataclass(frozen=True, eq=False)  # hashed by identity: a bind-group key
class _Dense:
    """A memoised contiguous launch of an op over array operands of one dtype signature and
    shape: the result dtype, the output's strides and bytes, the compiled program and its
    vector width, each binding's bytes (``_binding``'s granule, before the block's end caps
    them), the packed parameters and the grid."""

    result: Any
    strides: tuple[int, ...]
    nbytes: int
    program: Any
    vector: int  # the kernel's vector width (1: scalar)
    spans: tuple[int, ...]  # operands' then the output's
    data: bytes
    grid: tuple[int, int]
    kernel: ir.Kernel
    programs: dict[tuple[int, ...], Any] = dataclasses.field(default_factory=dict)
    # a scalar operand's parameter: (n, its value) -> the uniform block (None: no scalar)
    packer: Any = None
    n: int = 0
    as_param: Any = None  # the scalar's value as the parameter holds it

    def pack(self, v: np.generic) -> bytes:
        """The uniform block for this launch's scalar operand ``v``."""
        return self.packer(self.n, self.as_param(v))

    def aliased(self, ctx: Any, alias: tuple[int, ...]) -> Any:
        """The program whose operands ``alias`` are the output's buffer (read_write)."""
        prog = self.programs.get(alias)
        if prog is None:
            prog = self.programs[alias] = ctx.compiler.program(_with_alias(self.kernel, alias))
        return prog

    @staticmethod
    def make(ops: WgpuOps, op: Any, args: tuple[Any, ...], pos: int = -1) -> _Dense | None:
        """The launch ``GpuOps.apply`` would make, or None where it does more (casts, errors,
        chunks past one binding, a scalar of another dtype than the arrays' or a complex one):
        those keep the general path."""
        arrays = [a for k, a in enumerate(args) if k != pos]
        ctx, n, shape = arrays[0].ctx, arrays[0].size, arrays[0].shape
        if any(a.shape != shape or not a.is_contiguous for a in arrays):
            return None
        dts = [a.dtype for a in args]
        if pos >= 0 and (dts[pos] != arrays[0].dtype or not ew.param_ok(ir.type_of(dts[pos]))):
            return None
        try:
            rn, result = ops.dtypes_of(op, ctx, dts)
        except (TypeError, ValueError, NotImplementedError):
            return None  # the general path raises the error
        if n == 0 or (casts_operands(op) and any(d != rn for d in dts)):
            return None
        itemsizes = [a.dtype.itemsize for a in arrays] + [np.dtype(result).itemsize]
        if n * max(itemsizes) > chunking.limit_of(ctx):
            return None
        types = tuple(ir.type_of(d) for d in dts)
        consts = () if pos < 0 else (pos,)
        make = _ElementwiseMaker(op.name, types, ir.type_of(result), consts)
        kernel = ops.tuner.kernel(ctx, make, n, "contiguous", default_variant)
        prog = ctx.compiler.program(kernel)
        grid = ctx.launcher.grid(prog, n)
        result = np.dtype(result)
        spans = tuple(_span(n * isz, kernel.vector_width) for isz in itemsizes)
        extra: dict[str, Any] = {}
        if pos >= 0:
            extra = dict(packer=prog.params.pack, n=n, as_param=ew.param_value(types[pos]))
        data = prog.pack({"n": n}) if pos < 0 else b""
        return _Dense(result, c_strides(shape), n * result.itemsize, prog, kernel.vector_width,
                      spans, data, grid, kernel, **extra)  # fmt: skip


def _chunk(ctx: Any, n: int, isz: int) -> int:
    """Elements of ``isz`` bytes per launch over a contiguous array of ``n``: all of them when
    they fit one binding, else the most that do from an aligned start."""
    limit = chunking.limit_of(ctx)
    if n * isz <= limit:
        return n
    align = ctx.storage_align
    return max(align // isz, limit // align * align // isz)


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
OPS.tuner = Tuner(OPS)
WgpuArray.ops = OPS
apply, assign, astype, copy, make_elementwise = (
    OPS.apply, OPS.assign, OPS.astype, OPS.copy, OPS.make_elementwise
)  # fmt: skip
LIBRARY: dict[str, Callable[..., Any]] = {**OPS.library(), **random_library(OPS)}
__all__ = ["LIBRARY", "OPS", "WgpuOps", "apply", "assign", "astype", "copy", "make_elementwise"]
