"""Implementations over CudaArrays: the op table's elementwise functions, casts, creation, views.

The same rules as the wgpu backend (its backend-independent helpers are imported, not copied):
an elementwise op computes its result dtype once with ``ruda._promotion`` and NumPy's loop table,
broadcasts, and launches the contiguous kernel when every operand is dense with the output's
shape, else the strided kernel of the (collapsed) rank. Python scalars become cached 0-d
device constants. Work over more than ``CHUNK`` elements is split into several launches (the
kernels use 32-bit index math): contiguous runs by pointer offsets, strided ones along their
leading dimension, each chunk's pointer rebased to the lowest byte it touches.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..._ops import Op
from ..._promotion import promote, with_scalar
from ..wgpu import kernels
from ..wgpu.ops import (  # backend-independent: they only read shapes and element strides
    _bstrides,
    _collapse,
    _loop_dtype,
    broadcast_to,
    expand_dims,
    flip,
    matrix_transpose,
    permute_dims,
    ravel,
    squeeze,
)
from . import launcher as _launcher
from .array import CudaArray, span
from .dispatch import prepare

_PY_SCALARS = (builtins.bool, int, float)
_I32_MAX = (1 << 31) - 1


# -- devices ----------------------------------------------------------------------------------
def context_for(device: Any = None) -> Any:
    """The context of a ``device=`` argument, else of the default device, else cuda:0."""
    from ..._devices import Device, default_device
    from .context import context

    if device is None:
        d = default_device()
        return context(d.index if d.kind == "cuda" else 0)
    if isinstance(device, CudaArray):
        return device.ctx
    d = Device(device)
    if d.kind != "cuda":
        raise ValueError(f"ruda: device {d} is not a cuda device")
    return context(d.index)


def _mixed(a: Any, b: Any) -> ValueError:
    return ValueError(
        f"operands are on different devices ({a.name} and {b.name}); move one with "
        "to_device(), ruda never transfers silently"
    )


# -- launching over a layout -------------------------------------------------------------------
def launch_map(
    ctx: Any, make: Callable[[int | None], ir.Kernel], ins: list[CudaArray], out: CudaArray
) -> None:
    """Run an elementwise kernel (``make(ndim)``) from ``ins`` (broadcast) into ``out``."""
    shape, n = out.shape, out.size
    if n == 0:
        return
    chunk, launcher = _launcher.CHUNK, ctx.launcher
    ops = [*ins, out]
    if out.is_contiguous and all(x.shape == shape and x.is_contiguous for x in ins):
        prog = ctx.compiler.program(make(None))
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            ptrs = [x.ptr + start * x.dtype.itemsize for x in ops]
            launcher.launch(prog, ptrs, {"n": m}, m)
        return
    cshape, cstr = _collapse(shape, [*(_bstrides(x, shape) for x in ins), out._strides])
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
    for r0 in range(0, cshape[0], rows):
        r = min(rows, cshape[0] - r0)
        part = (r, *cshape[1:])
        params: dict[str, Any] = {"n": r * inner}
        params.update({f"s{d}": s for d, s in enumerate(part)})
        ptrs = []
        for k, (x, st) in enumerate(zip(ops, cstr, strict=True)):
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
            tag = "o" if k == len(ins) else str(k)
            params.update({f"st{tag}_{d}" if tag != "o" else f"sto_{d}": s
                           for d, s in enumerate(st)})  # fmt: skip
            params[f"off{tag}"] = (first - lo) // isz
        launcher.launch(prog, ptrs, params, r * inner)


# -- constants and operands -----------------------------------------------------------------
def constant(ctx: Any, value: Any, npdt: np.dtype) -> CudaArray:
    """A cached 0-d device array of ``value`` as ``npdt`` (OverflowError if it does not fit)."""
    cache = ctx.__dict__.setdefault("constants", {})
    key = (npdt.str, type(value), value)
    x = cache.get(key)
    if x is None:
        x = ctx.allocator.from_host(np.asarray(value, dtype=npdt))
        if len(cache) > 512:
            cache.clear()
        cache[key] = x
    return x


def astype(x: CudaArray, dtype: Any, copy: bool = True, **_: Any) -> CudaArray:
    """``x`` converted to ``dtype`` (NumPy's conversions) in a new contiguous array."""
    npdt = dt.to_numpy(dtype)
    if npdt == x.dtype and not copy:
        return x
    ctx = x.ctx
    ctx.check_dtype(npdt, "astype")
    if x.dtype == np.float16 and npdt == np.bool_:
        # The cast kernel tests float16 bits against 0, which calls -0.0 True: go via float32.
        x = astype(x, np.float32)
    out = ctx.allocator.empty(x.shape, npdt)
    src, dst = ir.type_of(x.dtype), ir.type_of(npdt)
    launch_map(ctx, lambda nd: kernels.cast(src, dst, nd), [x], out)
    return out


def copy(x: CudaArray, **_: Any) -> CudaArray:
    return astype(x, x.dtype, copy=True)


def assign(view: CudaArray, value: Any) -> None:
    """``view[...] = value`` (broadcast, converted to the view's dtype)."""
    ctx = view.ctx
    if isinstance(value, CudaArray):
        if value.ctx is not ctx:
            raise _mixed(value.ctx, ctx)
        if value.mem.mem is view.mem.mem:
            value = copy(value)  # possibly overlapping source and destination
        if value.dtype == np.float16 and view.dtype == np.bool_:
            value = astype(value, np.float32)
    elif isinstance(value, (*_PY_SCALARS, np.generic)):
        value = constant(ctx, value.item() if isinstance(value, np.generic) else value, view.dtype)
    else:
        raise TypeError(
            f"cannot assign {type(value).__name__} to an array on {ctx.name}; "
            "convert it with ruda.asarray(..., device=...) first"
        )
    if np.broadcast_shapes(value.shape, view.shape) != view.shape:
        raise ValueError(f"could not broadcast input of shape {value.shape} into {view.shape}")
    src, dst = ir.type_of(value.dtype), ir.type_of(view.dtype)
    launch_map(ctx, lambda nd: kernels.cast(src, dst, nd), [value], view)


# -- elementwise ops -------------------------------------------------------------------------
def _result_dtype(op: Op, arrays: list[np.dtype], scalars: list[Any]) -> tuple[np.dtype, np.dtype]:
    """The promoted operand dtype (ruda._promotion) and the op's result dtype."""
    r = dt.from_numpy(arrays[0])
    for d in arrays[1:]:
        r = promote(r, dt.from_numpy(d))
    for s in scalars:
        r = with_scalar(r, s)
    rn = r._np
    if rn.kind == "c":
        raise TypeError(f"complex dtypes are not supported on cuda yet (got {rn})")
    return rn, _loop_dtype(op, rn)


def _same_memory(a: CudaArray, b: CudaArray) -> bool:
    return a.mem.mem is b.mem.mem


def apply(op: Op, args: tuple[Any, ...], out: CudaArray | None = None) -> CudaArray:
    """Run elementwise ``op`` on ``args`` (CudaArrays and scalars), into ``out`` if given."""
    ctx = None
    for a in (*args, out):
        if isinstance(a, CudaArray):
            if ctx is None:
                ctx = a.ctx
            elif a.ctx is not ctx:
                raise _mixed(ctx, a.ctx)
    if ctx is None:
        raise TypeError(f"{op.name}: expected at least one cuda array operand")
    arr_dtypes, scalars = [], []
    for a in args:
        if isinstance(a, (CudaArray, np.generic)):
            arr_dtypes.append(a.dtype)
        elif type(a) in _PY_SCALARS:
            scalars.append(a)
        else:
            raise TypeError(
                f"cannot combine an array on {ctx.name} with host data ({type(a).__name__}); "
                "convert it with ruda.asarray(..., device=x.device)"
            )
    if not arr_dtypes:
        raise TypeError(f"{op.name}: expected at least one cuda array operand")
    rn, result = _result_dtype(op, arr_dtypes, scalars)
    ctx.check_dtype(rn, op.name)
    ctx.check_dtype(result, op.name)
    # Operands: constants for scalars; comparisons see both operands in the promoted dtype.
    logical = op.category == "bool"
    ins: list[CudaArray] = []
    for a in args:
        if isinstance(a, CudaArray):
            if op.result == "bool" and not logical and a.dtype != rn:
                a = astype(a, rn)
            ins.append(a)
        else:
            v = a.item() if isinstance(a, np.generic) else a
            cdt = np.dtype(np.bool_) if logical else (a.dtype if isinstance(a, np.generic) and
                                                      op.result != "bool" else rn)  # fmt: skip
            ins.append(constant(ctx, v, cdt))
    shape = np.broadcast_shapes(*(x.shape for x in ins))
    if out is None:
        out = ctx.allocator.empty(shape, result)
    else:
        if np.broadcast_shapes(shape, out.shape) != out.shape:
            raise ValueError(
                f"non-broadcastable output operand with shape {out.shape} doesn't match the "
                f"broadcast shape {shape}"
            )
        if not np.can_cast(result, out.dtype, "same_kind"):
            raise TypeError(
                f"Cannot cast ufunc {op.name!r} output from {result!r} to {out.dtype!r} "
                "with casting rule 'same_kind'"
            )
        ctx.check_dtype(out.dtype, op.name)
        for k, x in enumerate(ins):
            if _same_memory(x, out) and not (
                x.shape == out.shape and x._strides == out._strides and x.offset == out.offset
            ):
                ins[k] = copy(x)  # a partial overlap would race: read from a copy
    in_types = tuple(ir.type_of(x.dtype) for x in ins)
    out_type = ir.type_of(out.dtype)
    name = op.name
    launch_map(ctx, lambda nd: ew.build(name, in_types, out_type, nd), ins, out)
    return out


def make_elementwise(op: Op) -> Callable[..., CudaArray]:
    fast: dict[tuple[Any, ...], Any] = {}  # (operand dtypes, ctx) -> prepared launcher
    arity, chunk, CA = op.arity, _launcher.CHUNK, CudaArray

    def first_call(args: tuple[CudaArray, ...], key: tuple[Any, ...]) -> CudaArray:
        y = apply(op, args)
        if len(set(key[:-1])) == 1:  # then apply() launched exactly this kernel
            ctx = args[0].ctx
            types = tuple(ir.type_of(d) for d in key[:-1])
            prog = ctx.compiler.program(ew.build(op.name, types, ir.type_of(y.dtype), None))
            fast[key] = prepare(ctx, prog, y.dtype, arity)
        return y

    def impl(*args: Any, out: Any = None, **kwargs: Any) -> CudaArray:
        # Fast path: same-shape contiguous operands, no out= (chains of small ops).
        if out is None and not kwargs:
            if arity == 2 and len(args) == 2:
                a, b = args
                if (type(a) is CA and type(b) is CA and a.shape == b.shape and a.ctx is b.ctx
                        and (a._contig or a.is_contiguous) and (b._contig or b.is_contiguous)
                        and 0 < a.size <= chunk):  # fmt: skip
                    key = (a.dtype, b.dtype, a.ctx)
                    run = fast.get(key)
                    return run(a, b) if run is not None else first_call(args, key)
            elif arity == 1 and len(args) == 1:
                a = args[0]
                if type(a) is CA and (a._contig or a.is_contiguous) and 0 < a.size <= chunk:
                    key = (a.dtype, a.ctx)
                    run = fast.get(key)
                    return run(a) if run is not None else first_call(args, key)
        if len(args) != op.arity:
            raise TypeError(f"{op.name} takes {op.arity} operand(s), got {len(args)}")
        if isinstance(out, tuple):
            if len(out) != 1:
                raise ValueError(f"{op.name} has one output, got {len(out)} out arrays")
            out = out[0]
        where = kwargs.pop("where", True)
        kwargs.pop("casting", None) if kwargs.get("casting") == "same_kind" else None
        if where is not True or kwargs:
            names = ", ".join(["where"] * (where is not True) + sorted(kwargs))
            raise NotImplementedError(
                f"{op.name}: the keyword(s) {names} are not implemented on cuda yet"
            )
        if out is not None and not isinstance(out, CudaArray):
            raise TypeError(f"{op.name}: out must be an array on the same cuda device")
        return apply(op, args, out)

    impl.__name__ = op.name
    return impl


def reshape(x: CudaArray, shape: Any, order: str = "C", copy: Any = None, **_: Any) -> CudaArray:
    if copy is False and not x.is_contiguous:
        raise ValueError("reshape with copy=False needs a contiguous array")
    src = globals()["copy"](x) if copy else x
    return src.reshape(shape, order=order)


def _library() -> dict[str, Callable[..., Any]]:
    from . import creation as c

    return {
        "astype": astype, "copy": copy, "empty": c.empty, "zeros": c.zeros, "ones": c.ones,
        "full": c.full, "empty_like": c.like("empty"), "zeros_like": c.like("zeros"),
        "ones_like": c.like("ones"), "full_like": c.like("full"), "arange": c.arange,
        "reshape": reshape, "permute_dims": permute_dims, "transpose": permute_dims,
        "matrix_transpose": matrix_transpose, "expand_dims": expand_dims, "squeeze": squeeze,
        "broadcast_to": broadcast_to, "ravel": ravel, "flip": flip,
    }  # fmt: skip


LIBRARY = _library()
__all__ = ["LIBRARY", "apply", "assign", "astype", "constant", "launch_map", "make_elementwise"]
