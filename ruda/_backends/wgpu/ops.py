"""Implementations over WgpuArrays: the op table's elementwise functions, casts, creation, views.

An elementwise op takes operands as the namespace passes them (arrays, Python or NumPy
scalars), computes the result dtype once with ``ruda._promotion``, broadcasts, and launches the
contiguous kernel when every operand is dense with the output's shape, else the strided kernel
of the (collapsed) rank. Python scalars become cached 0-d device constants.
"""

from __future__ import annotations

import builtins
import dataclasses
import math
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..._ops import Op
from ..._promotion import promote, with_scalar
from . import kernels
from .array import WgpuArray, _c_strides

_PY_SCALARS = (builtins.bool, int, float)
_FLOAT_CATEGORIES = ("floating-point", "real floating-point")


# -- devices ----------------------------------------------------------------------------------
def context_for(device: Any = None) -> Any:
    """The context of a ``device=`` argument, else of the default device, else wgpu:0."""
    from ..._devices import Device, default_device
    from .context import context

    if device is None:
        d = default_device()
        return context(d.index if d.kind == "wgpu" else 0)
    if isinstance(device, WgpuArray):
        return device.ctx
    d = Device(device)
    if d.kind != "wgpu":
        raise ValueError(f"ruda: device {d} is not a wgpu device")
    return context(d.index)


def _mixed(a: Any, b: Any) -> ValueError:
    return ValueError(
        f"operands are on different devices ({a.name} and {b.name}); move one with "
        "to_device(), ruda never transfers silently"
    )


# -- launching over a layout -------------------------------------------------------------------
def _bstrides(x: WgpuArray, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``x``'s element strides broadcast to ``shape`` (0 where it repeats)."""
    lead = len(shape) - x.ndim
    out = [0] * lead
    for n, s, target in zip(x.shape, x._strides, shape[lead:], strict=True):
        out.append(s if n == target else 0)
    return tuple(out)


def _collapse(shape: tuple[int, ...], strides: list[tuple[int, ...]]) -> tuple[tuple, list]:
    """Drop length-1 dims and merge dims that are contiguous in every operand (lower rank)."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return (), [() for _ in strides]
    new_shape = [shape[dims[0]]]
    new_st = [[s[dims[0]]] for s in strides]
    for d in dims[1:]:
        n = shape[d]
        if all(st[-1] == s[d] * n for st, s in zip(new_st, strides, strict=True)):
            new_shape[-1] *= n
            for st, s in zip(new_st, strides, strict=True):
                st[-1] = s[d]
        else:
            new_shape.append(n)
            for st, s in zip(new_st, strides, strict=True):
                st.append(s[d])
    return tuple(new_shape), [tuple(st) for st in new_st]


def _span(x: WgpuArray, shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, int]:
    """Lowest and one-past-highest byte that ``x`` touches with these (element) strides."""
    isz = x.dtype.itemsize
    lo = hi = x.offset
    for n, s in zip(shape, strides, strict=True):
        if n == 0:
            return x.offset, x.offset
        if s > 0:
            hi += (n - 1) * s * isz
        else:
            lo += (n - 1) * s * isz
    return lo, hi + isz


def launch_map(
    ctx: Any, make: Callable[[int | None], ir.Kernel], ins: list[WgpuArray], out: WgpuArray
) -> None:
    """Run an elementwise kernel (``make(ndim)``) from ``ins`` (broadcast) into ``out``."""
    shape, n = out.shape, out.size
    if n == 0:
        return
    launcher, align, max_bind = ctx.launcher, ctx.storage_align, ctx.max_binding
    alias = tuple(k for k, x in enumerate(ins) if x.block is out.block)
    if alias:  # WebGPU forbids read-only and read-write bindings of one buffer in a dispatch
        make = _aliased(make, alias)
    dense = out.is_contiguous and all(x.shape == shape and x.is_contiguous for x in ins)
    ops = [*ins, out]
    if dense and all(x.offset % align == 0 for x in ops):
        prog = ctx.compiler.program(make(None))
        widest = max(x.dtype.itemsize for x in ops)
        chunk = n if n * widest <= max_bind else (max_bind // widest) // 1024 * 1024
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            binds = []
            for x in ops:
                off = x.offset + start * x.dtype.itemsize
                size = min((m * x.dtype.itemsize + 3) & ~3, x.block.size - off)
                binds.append((x.block.buffer, off, max(size, 4)))
            launcher.launch(prog, binds, {"n": m}, m)
        return
    if dense:  # unaligned offsets: the flat strided kernel takes them as parameters
        cshape: tuple[int, ...] = (n,)
        cstr = [(1,)] * len(ops)
    else:
        cshape, cstr = _collapse(shape, [*(_bstrides(x, shape) for x in ins), out._strides])
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
        lo, hi = _span(x, cshape, st)
        if hi > max_bind:
            raise NotImplementedError(
                f"a strided operand reaching byte {hi} exceeds the largest binding of "
                f"{ctx.name} ({max_bind} bytes); chunked strided bindings are not implemented yet"
            )
        binds.append((x.block.buffer, 0, min(x.block.size, max_bind)))
    launcher.launch(prog, binds, params, n)


_ALIASED: dict[tuple[int, tuple[int, ...]], tuple[ir.Kernel, ir.Kernel]] = {}


def _aliased(make: Callable[[int | None], ir.Kernel], alias: tuple[int, ...]) -> Callable:
    """``make`` with the input bindings in ``alias`` declared read_write (they are the output)."""

    def variant(nd: int | None) -> ir.Kernel:
        k = make(nd)
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

    return variant


# -- constants and operands -----------------------------------------------------------------
def constant(ctx: Any, value: Any, npdt: np.dtype) -> WgpuArray:
    """A cached 0-d device array of ``value`` as ``npdt`` (OverflowError if it does not fit)."""
    cache = ctx.__dict__.setdefault("constants", {})
    key = (npdt.str, type(value), value)
    x = cache.get(key)
    if x is None:
        host = np.asarray(value, dtype=npdt)
        x = ctx.allocator.from_host(host)
        if len(cache) > 512:
            cache.clear()
        cache[key] = x
    return x


def astype(x: WgpuArray, dtype: Any, copy: bool = True, **_: Any) -> WgpuArray:
    """``x`` converted to ``dtype`` (NumPy's conversions) in a new contiguous array."""
    npdt = dt.to_numpy(dtype)
    if npdt == x.dtype and not copy:
        return x
    ctx = x.ctx
    ctx.check_dtype(npdt, "astype")
    out = ctx.allocator.empty(x.shape, npdt)
    src, dst = ir.type_of(x.dtype), ir.type_of(npdt)
    launch_map(ctx, lambda nd: kernels.cast(src, dst, nd), [x], out)
    return out


def copy(x: WgpuArray, **kw: Any) -> WgpuArray:
    return astype(x, x.dtype, copy=True)


def assign(view: WgpuArray, value: Any) -> None:
    """``view[...] = value`` (broadcast, converted to the view's dtype)."""
    ctx = view.ctx
    if isinstance(value, WgpuArray):
        if value.ctx is not ctx:
            raise _mixed(value.ctx, ctx)
        if value.block is view.block:
            value = copy(value)  # overlapping source and destination
    elif isinstance(value, (*_PY_SCALARS, np.generic)):
        value = constant(ctx, value.item() if isinstance(value, np.generic) else value, view.dtype)
    else:
        raise TypeError(
            f"cannot assign {type(value).__name__} to an array on {ctx.name}; "
            "convert it with ruda.asarray(..., device=...) first"
        )
    np.broadcast_shapes(value.shape, view.shape)
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
        raise TypeError(f"complex dtypes are not supported on wgpu yet (got {rn})")
    return rn, _loop_dtype(op, rn)


_LOOPS: dict[tuple[str, np.dtype], np.dtype] = {}


def _loop_dtype(op: Op, rn: np.dtype) -> np.dtype:
    """The result dtype of ``op`` on operands promoted to ``rn``: NumPy's loop for that dtype
    (sin(int16) -> float32, int / int -> float64, TypeError where NumPy has no loop)."""
    key = (op.name, rn)
    hit = _LOOPS.get(key)
    if hit is not None:
        return hit
    uf = getattr(np, op.numpy, None)
    if isinstance(uf, np.ufunc) and uf.nout == 1:
        try:
            res = uf.resolve_dtypes((rn,) * op.arity + (None,))[-1]
        except TypeError as e:
            raise TypeError(f"{op.name} is not defined for {rn} operands ({e})") from None
    elif callable(uf) and op.result != "bool":
        # not a ufunc (round, fix...): NumPy's own result dtype on a one-element sample
        with np.errstate(all="ignore"):
            res = np.asarray(uf(*[np.ones(1, rn)] * op.arity)).dtype
    elif op.result == "bool":
        res = np.dtype(np.bool_)
    elif op.category in _FLOAT_CATEGORIES and rn.kind != "f":
        res = np.promote_types(rn, np.float16)  # NumPy: int8 -> float16, int32 -> float64
    else:
        res = rn
    _LOOPS[key] = res
    return res


def apply(op: Op, args: tuple[Any, ...], out: WgpuArray | None = None) -> WgpuArray:
    """Run elementwise ``op`` on ``args`` (WgpuArrays and scalars), into ``out`` if given."""
    ctx = None
    for a in (*args, out):
        if isinstance(a, WgpuArray):
            if ctx is None:
                ctx = a.ctx
            elif a.ctx is not ctx:
                raise _mixed(ctx, a.ctx)
    if ctx is None:
        raise TypeError(f"{op.name}: expected at least one wgpu array operand")
    arr_dtypes, scalars = [], []
    for a in args:
        if isinstance(a, (WgpuArray, np.generic)):
            arr_dtypes.append(a.dtype)
        elif type(a) in _PY_SCALARS:
            scalars.append(a)
        else:
            raise TypeError(
                f"cannot combine an array on {ctx.name} with host data ({type(a).__name__}); "
                "convert it with ruda.asarray(..., device=x.device)"
            )
    if not arr_dtypes:
        raise TypeError(f"{op.name}: expected at least one wgpu array operand")
    rn, result = _result_dtype(op, arr_dtypes, scalars)
    ctx.check_dtype(rn, op.name)
    ctx.check_dtype(result, op.name)
    # Operands: constants for scalars; comparisons see both operands in the promoted dtype.
    logical = op.category == "bool"
    ins: list[WgpuArray] = []
    for a in args:
        if isinstance(a, WgpuArray):
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
            if x.block is out.block and not (
                x.shape == out.shape and x._strides == out._strides and x.offset == out.offset
            ):
                ins[k] = copy(x)  # a partial overlap would race: read from a copy
    in_types = tuple(ir.type_of(x.dtype) for x in ins)
    out_type = ir.type_of(out.dtype)
    name = op.name
    launch_map(ctx, lambda nd: ew.build(name, in_types, out_type, nd), ins, out)
    return out


def make_elementwise(op: Op) -> Callable[..., WgpuArray]:
    def impl(*args: Any, out: Any = None, **kwargs: Any) -> WgpuArray:
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
                f"{op.name}: the keyword(s) {names} are not implemented on wgpu yet"
            )
        if out is not None and not isinstance(out, WgpuArray):
            raise TypeError(f"{op.name}: out must be an array on the same wgpu device")
        return apply(op, args, out)

    impl.__name__ = op.name
    return impl


# -- creation --------------------------------------------------------------------------------
def _creation_dtype(ctx: Any, dtype: Any, default: Any, fname: str) -> np.dtype:
    npdt = np.dtype(default) if dtype is None else dt.to_numpy(dtype)
    ctx.check_dtype(npdt, fname)
    return npdt


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def fill(x: WgpuArray, value: Any) -> WgpuArray:
    """Fill a fresh contiguous array (offset 0) with ``value``: its bytes, repeated as u32 words."""
    if x.size == 0:
        return x
    raw = np.asarray(value, dtype=x.dtype).tobytes()
    isz = len(raw)
    word = raw * (4 // isz) if isz < 4 else raw
    lo, hi = struct.unpack("<II", word if isz == 8 else word * 2)
    nwords = (x.nbytes + 3) // 4
    ctx = x.ctx
    prog = ctx.compiler.program(kernels.fill_words())
    ctx.launcher.launch(
        prog, [(x.block.buffer, 0, nwords * 4)], {"n": nwords, "lo": lo, "hi": hi}, nwords
    )
    return x


def empty(
    shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
) -> WgpuArray:
    ctx = context_for(device)
    return ctx.allocator.empty(_shape(shape), _creation_dtype(ctx, dtype, np.float64, "empty"))


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", *, device: Any = None,
         **_: Any) -> WgpuArray:  # fmt: skip
    ctx = context_for(device)
    if isinstance(fill_value, WgpuArray):
        if fill_value.ndim:
            raise NotImplementedError(
                "full with an array fill_value is not implemented on wgpu yet"
            )
        fill_value = fill_value.to_host()[()]
    default = np.asarray(fill_value).dtype if dtype is None else None
    npdt = _creation_dtype(ctx, dtype, default, "full")
    return fill(ctx.allocator.empty(_shape(shape), npdt), fill_value)


def zeros(
    shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
) -> WgpuArray:
    return full(shape, 0, np.float64 if dtype is None else dtype, device=device)


def ones(
    shape: Any, dtype: Any = None, order: str = "C", *, device: Any = None, **_: Any
) -> WgpuArray:
    return full(shape, 1, np.float64 if dtype is None else dtype, device=device)


def _like(name: str) -> Callable[..., WgpuArray]:
    def like(x: WgpuArray, *fill_value: Any, dtype: Any = None, order: str = "K", shape: Any = None,
             **_: Any) -> WgpuArray:  # fmt: skip
        shp = x.shape if shape is None else shape
        npdt = x.dtype if dtype is None else dtype
        if name == "empty":
            return empty(shp, npdt, device=x)
        if name == "full":
            return full(shp, fill_value[0], npdt, device=x)
        return full(shp, 0 if name == "zeros" else 1, npdt, device=x)

    like.__name__ = f"{name}_like"
    return like


def arange(start: Any, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None,
           **_: Any) -> WgpuArray:  # fmt: skip
    ctx = context_for(device)
    if stop is None:
        start, stop = 0, start
    npdt = _creation_dtype(ctx, dtype, np.result_type(start, stop, step), "arange")
    n = max(0, math.ceil((stop - start) / step))
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        n = len(range(int(start), int(stop), int(step)))
    # 8- and 16-bit types are computed in 32 bits, then converted.
    work = (
        npdt
        if npdt.itemsize >= 4 and npdt.kind != "b"
        else np.dtype(np.float32 if npdt.kind == "f" else np.int32)
    )
    out = ctx.allocator.empty((n,), work)
    if n:
        prog = ctx.compiler.program(kernels.arange(ir.type_of(work)))
        cast = float if work.kind == "f" else int
        ctx.launcher.launch(
            prog, [(out.block.buffer, 0, (out.nbytes + 3) & ~3)],
            {"n": n, "start": cast(start), "step": cast(step)}, n,
        )  # fmt: skip
    return out if work == npdt else astype(out, npdt)


# -- views -----------------------------------------------------------------------------------
def reshape(x: WgpuArray, shape: Any, order: str = "C", copy: Any = None, **_: Any) -> WgpuArray:
    if copy is False and not x.is_contiguous:
        raise ValueError("reshape with copy=False needs a contiguous array")
    src = globals()["copy"](x) if copy else x
    return src.reshape(shape, order=order)


def permute_dims(x: WgpuArray, axes: Any = None) -> WgpuArray:
    return x.transpose(axes)


def matrix_transpose(x: WgpuArray) -> WgpuArray:
    return x.mT


def expand_dims(x: WgpuArray, axis: Any) -> WgpuArray:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = x.ndim + len(axes)
    axes = sorted(a % nd for a in axes)
    shape, strides = list(x.shape), list(x._strides)
    for a in axes:
        shape.insert(a, 1)
        strides.insert(a, 0)
    return x.view_of(x.offset, tuple(shape), tuple(strides))


def squeeze(x: WgpuArray, axis: Any = None) -> WgpuArray:
    if axis is None:
        axes = {d for d, n in enumerate(x.shape) if n == 1}
    else:
        axes = {a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis)}
        if any(x.shape[a] != 1 for a in axes):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    keep = [d for d in range(x.ndim) if d not in axes]
    return x.view_of(x.offset, tuple(x.shape[d] for d in keep), tuple(x._strides[d] for d in keep))


def broadcast_to(x: WgpuArray, shape: Any, **_: Any) -> WgpuArray:
    shape = _shape(shape)
    if np.broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"cannot broadcast shape {x.shape} to {shape}")
    return x.view_of(x.offset, shape, _bstrides(x, shape))


def ravel(x: WgpuArray, order: str = "C", **_: Any) -> WgpuArray:
    return x.reshape(-1)


def flip(x: WgpuArray, axis: Any = None, **_: Any) -> WgpuArray:
    axes = range(x.ndim) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    key = [slice(None)] * x.ndim
    for a in axes:
        key[a % x.ndim] = slice(None, None, -1)
    return x[tuple(key)]


LIBRARY: dict[str, Callable[..., Any]] = {
    "astype": astype, "copy": copy, "empty": empty, "zeros": zeros, "ones": ones, "full": full,
    "empty_like": _like("empty"), "zeros_like": _like("zeros"), "ones_like": _like("ones"),
    "full_like": _like("full"), "arange": arange, "reshape": reshape,
    "permute_dims": permute_dims, "transpose": permute_dims, "matrix_transpose": matrix_transpose,
    "expand_dims": expand_dims, "squeeze": squeeze, "broadcast_to": broadcast_to, "ravel": ravel,
    "flip": flip,
}  # fmt: skip
__all__ = ["LIBRARY", "apply", "assign", "astype", "constant", "launch_map", "make_elementwise"]
_ = _c_strides
