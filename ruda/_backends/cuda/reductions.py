"""Reductions on cuda: sum, prod, max, min, any, all, mean, var, std through the reduce plans.

The input is brought to one of the plans' layouts (``ruda._kernels.reduce``): the whole array
(``full``), the last axes of ``[rows, cols]`` (``rows``) or the first ones (``cols``). A
contiguous input whose reduced axes (length-1 dimensions aside) are a suffix or a prefix is used
as it is; any other input is permuted so the reduced axes come last and copied (a ruda copy
kernel) into a contiguous ``rows`` layout. A plan's launches run in order on the current stream
over named buffers (``x``, ``mean``, ``out`` and zero-filled temporaries from CuPy's pool).

``mean`` is a sum in the float accumulation type divided by the count; ``var``/``std`` take two
passes: the mean, then the sum of centred squares (``center=True`` plans), divided by
``count - ddof`` (and a square root). Result dtypes follow NumPy, as the CPU backend does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._kernels import reduce as kr
from ..._ops import OPS
from . import ops as _ops
from .array import CudaArray

_NoValue: Any = np._NoValue
_LIMIT = (1 << 31) - 1  # elements a plan indexes with 32-bit math
# Tuned on an H200 (benchmarks/cuda_reduce.py --sweep): f32 sums of 1 GiB at 4.2-4.3 TB/s.
VARIANTS: dict[str, dict[str, Any]] = {
    "full": {"tiles": 8, "ipt": 4, "wg": 256}, "rows": {}, "cols": {"wg": 256, "ipt": 4, "rt": 4}
}  # fmt: skip
_PLANS: dict[tuple[Any, ...], kr.Plan] = {}
_IDENTITY = {"sum": 0, "prod": 1, "any": False, "all": True}
_WITH_INITIAL = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}


# -- plans -----------------------------------------------------------------------------------
def _rows_variant(cols: int) -> dict[str, Any]:
    """Threads per row by row length (short rows: a thread or a warp per row)."""
    tpr = 1 if cols <= 16 else 32 if cols <= 1024 else 256
    return {"tpr": tpr, **VARIANTS["rows"]}


def plan(family: str, op: str, in_t: ir.Type, out_t: ir.Type, a: int, b: int,
         center: bool) -> kr.Plan:  # fmt: skip
    """The plan (cached) of ``family`` over ``a`` (x ``b``) elements."""
    v = _rows_variant(b) if family == "rows" else VARIANTS[family]
    key = (family, op, in_t, out_t, a, b, center, tuple(sorted(v.items())))
    p = _PLANS.get(key)
    if p is None:
        if family == "full":
            p = kr.plan_full(op, in_t, out_t, a, v, center)
        elif family == "rows":
            p = kr.plan_rows(op, in_t, out_t, a, b, v, center)
        else:
            p = kr.plan_cols(op, in_t, out_t, a, b, v, center)
        if len(_PLANS) > 512:
            _PLANS.clear()
        _PLANS[key] = p
    return p


def run_plan(ctx: Any, p: kr.Plan, ptrs: dict[str, int]) -> None:
    """Launch ``p``'s kernels in order over ``ptrs`` (name -> device address) and its temps,
    which come from the pool zero-filled (freed afterwards: the pool is stream-ordered)."""
    ptrs = dict(ptrs)
    keep = []
    if p.temps:
        stream = ctx.allocator.stream()
        for name, (t, count) in p.temps.items():
            mem = ctx.allocator.alloc(count * t.itemsize)
            mem.memset_async(0, count * t.itemsize, stream)
            keep.append(mem)
            ptrs[name] = mem.ptr
    compiler, launcher = ctx.compiler, ctx.launcher
    for launch in p.launches:
        prog = compiler.program(launch.kernel)
        launcher.launch_grid(prog, [ptrs[n] for n in launch.buffers], launch.params, launch.grid)


# -- layouts ---------------------------------------------------------------------------------
class Layout:
    """A reduction's input as one of the plans' layouts: ``family`` over ``x`` (contiguous),
    ``nout`` results (the kept dimensions, in order) of ``count`` elements each."""

    __slots__ = ("family", "x", "nout", "count", "kept", "keepdims")

    def __init__(self, x: CudaArray, axis: Any) -> None:
        nd = x.ndim
        axes = tuple(range(nd)) if axis is None else (axis,) if type(axis) is int else axis
        red = set(axes)
        self.kept = tuple(x.shape[i] for i in range(nd) if i not in red)
        self.keepdims = tuple(1 if i in red else x.shape[i] for i in range(nd))
        self.nout = math.prod(self.kept)
        self.count = math.prod(x.shape[i] for i in red)
        if x.size > _LIMIT:
            raise NotImplementedError(
                f"ruda: reductions of more than {_LIMIT} elements are not implemented on "
                f"{x.ctx.name} yet (the kernels index with 32-bit math)"
            )
        pattern = [i in red for i in range(nd) if x.shape[i] != 1]  # which dims matter
        if self.nout <= 1:
            family = "full"
        elif not any(pattern):
            family = "rows"  # nothing reduced (length-1 axes): rows of one element
        elif pattern == sorted(pattern):  # kept ones first, reduced last
            family = "rows"
        elif pattern == sorted(pattern, reverse=True):
            family = "cols"
        else:
            family = "permute"
        if family == "permute" or not x.is_contiguous:
            order = [i for i in range(nd) if i not in red] + [i for i in range(nd) if i in red]
            x = _ops.copy(x.transpose(tuple(order)))
            family = "full" if self.nout <= 1 else "rows"
        self.family, self.x = family, x

    def run(self, op: str, out_t: ir.Type, mean: CudaArray | None = None) -> CudaArray:
        """``op`` reduced into a new contiguous ``(nout,)`` array of ``out_t``."""
        x = self.x
        ctx = x.ctx
        npout = ir.numpy_of(out_t)
        out = ctx.allocator.empty((self.nout,), npout)
        if self.nout == 0:
            return out
        if self.count == 0:
            if op not in _IDENTITY:
                raise ValueError(
                    f"zero-size array to reduction operation {op} which has no identity"
                )
            from .creation import fill

            return fill(out, _IDENTITY[op])
        in_t = ir.type_of(x.dtype)
        if self.family == "full":
            p = plan("full", op, in_t, out_t, self.count, 0, mean is not None)
        elif self.family == "rows":
            p = plan("rows", op, in_t, out_t, self.nout, self.count, mean is not None)
        else:
            p = plan("cols", op, in_t, out_t, self.count, self.nout, mean is not None)
        ptrs = {"x": x.ptr, "out": out.ptr}
        if mean is not None:
            ptrs["mean"] = mean.ptr
        run_plan(ctx, p, ptrs)
        return out

    def shape(self, keepdims: bool) -> tuple[int, ...]:
        return self.keepdims if keepdims else self.kept


def _unsupported(fname: str, where: Any) -> None:
    if where is not True:
        raise NotImplementedError(f"ruda.{fname}: where= is not implemented on cuda yet")


def _finish(r: CudaArray, lay: Layout, keepdims: bool, out: Any, fname: str) -> CudaArray:
    """Shape the flat result (keepdims); write it into ``out`` when given."""
    r = r.reshape(lay.shape(keepdims))
    if out is None:
        return r
    if not isinstance(out, CudaArray):
        raise TypeError(f"ruda.{fname}: out must be an array on {r.ctx.name}")
    if out.shape != r.shape:
        raise ValueError(f"ruda.{fname}: out has shape {out.shape}, the result {r.shape}")
    _ops.assign(out, r)
    return out


def _check(ctx: Any, npdt: np.dtype, fname: str) -> ir.Type:
    ctx.check_dtype(npdt, fname)
    return ir.type_of(npdt)


# -- sum, prod, max, min, any, all -------------------------------------------------------------
def _make(op: str) -> Any:
    def fn(x: CudaArray, axis: Any = None, keepdims: bool = False, dtype: Any = None,
           out: Any = None, where: Any = True, initial: Any = _NoValue) -> CudaArray:  # fmt: skip
        _unsupported(op, where)
        ctx = x.ctx
        in_t = _check(ctx, x.dtype, op)
        if dtype is not None and op in ("sum", "prod"):
            out_t = _check(ctx, np.dtype(dtype), op)
        else:
            out_t = kr.result_type(op, in_t)
        lay = Layout(x, axis)
        if initial is not _NoValue and op in ("max", "min") and lay.count == 0:
            from .creation import fill

            r = fill(ctx.allocator.empty((lay.nout,), ir.numpy_of(out_t)), initial)
        else:
            r = lay.run(op, out_t)
            if initial is not _NoValue:
                c = _ops.constant(ctx, initial, r.dtype)
                _ops.apply(OPS[_WITH_INITIAL[op]], (r, c), r)
        return _finish(r, lay, keepdims, out, op)

    fn.__name__ = op
    return fn


# -- mean, var, std ---------------------------------------------------------------------------
def _float_types(ctx: Any, x: CudaArray, dtype: Any, fname: str) -> tuple[np.dtype, np.dtype]:
    """(result dtype, accumulation dtype): NumPy's (float16 accumulates in float32)."""
    if dtype is not None:
        res = np.dtype(dtype)
    elif x.dtype.kind == "f":
        res = x.dtype
    else:
        res = np.dtype(np.float64)
    ctx.check_dtype(res, fname)
    acc = np.dtype(np.float32) if res == np.float16 else res
    if acc.kind != "f":
        acc = np.dtype(np.float64)  # an integer dtype=: computed in float64, then converted
    return res, acc


def _scale(r: CudaArray, count: float, sqrt: bool = False) -> CudaArray:
    """``r / count`` (then its square root) in place."""
    _ops.apply(OPS["divide"], (r, float(count)), r)
    if sqrt:
        _ops.apply(OPS["sqrt"], (r,), r)
    return r


def mean(x: CudaArray, axis: Any = None, keepdims: bool = False, dtype: Any = None,
         out: Any = None, where: Any = True) -> CudaArray:  # fmt: skip
    _unsupported("mean", where)
    ctx = x.ctx
    _check(ctx, x.dtype, "mean")
    res, acc = _float_types(ctx, x, dtype, "mean")
    lay = Layout(x, axis)
    r = _scale(lay.run("sum", ir.type_of(acc)), lay.count)
    if res != acc:
        r = _ops.astype(r, res)
    return _finish(r, lay, keepdims, out, "mean")


def _spread(fname: str, sqrt: bool) -> Any:
    def fn(x: CudaArray, axis: Any = None, ddof: float = 0, keepdims: bool = False,
           dtype: Any = None, out: Any = None, where: Any = True,
           mean: Any = _NoValue) -> CudaArray:  # fmt: skip
        _unsupported(fname, where)
        ctx = x.ctx
        _check(ctx, x.dtype, fname)
        res, acc = _float_types(ctx, x, dtype, fname)
        acc_t = ir.type_of(acc)
        lay = Layout(x, axis)
        if mean is _NoValue or mean is None:
            m = _scale(lay.run("sum", acc_t), lay.count)
        else:  # a given mean (keepdims shape), as a contiguous accumulator-typed array
            if not isinstance(mean, CudaArray):
                mean = _ops.constant(ctx, mean, acc)
            m = _ops.astype(_ops.broadcast_to(mean, lay.keepdims), acc)
        r = lay.run("sum", acc_t, mean=m)
        r = _scale(r, max(lay.count - ddof, 0), sqrt)
        if res != acc:
            r = _ops.astype(r, res)
        return _finish(r, lay, keepdims, out, fname)

    fn.__name__ = fname
    return fn


LIBRARY: dict[str, Any] = {op: _make(op) for op in ("sum", "prod", "max", "min", "any", "all")}
LIBRARY.update({"amax": LIBRARY["max"], "amin": LIBRARY["min"], "mean": mean,
                "var": _spread("var", False), "std": _spread("std", True)})  # fmt: skip
__all__ = ["LIBRARY", "Layout", "VARIANTS", "mean", "plan", "run_plan"]
