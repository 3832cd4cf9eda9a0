"""Scans on cuda: cumulative_sum, cumulative_prod (the standard's) and cumsum, cumprod (NumPy's).

The scanned axis is moved last (a ruda copy kernel when that is not already the contiguous
layout), the plan of ``ruda._kernels.scan`` runs over ``[rows, n]`` into a contiguous
``[rows, n + include_initial]`` result, and the result is handed back as a view with the axis
where it was. The default algorithm (``VARIANT``) is ``reduce_then_scan``, the faster of the two
on an H200 with the current look-back kernel (the tests run both).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._kernels import reduce as kr
from ..._kernels import scan as ks
from . import ops as _ops
from .array import CudaArray
from .reductions import run_plan

# Measured on an H200 (f32, 64M): reduce_then_scan wg512 ipt4 1350 GB/s; lookback at best 664.
VARIANT: dict[str, Any] = {"wg": 512, "ipt": 4, "algorithm": "reduce_then_scan"}
_PLANS: dict[tuple[Any, ...], Any] = {}
_LIMIT = (1 << 31) - 1
_OP = {"cumulative_sum": "sum", "cumulative_prod": "prod", "cumsum": "sum", "cumprod": "prod"}


def plan(op: str, in_t: ir.Type, out_t: ir.Type, rows: int, n: int, initial: bool) -> Any:
    v = dict(VARIANT)
    key = (op, in_t, out_t, rows, n, initial, tuple(sorted(v.items())))
    p = _PLANS.get(key)
    if p is None:
        p = ks.plan_scan(op, in_t, out_t, rows, n, v, initial)
        if len(_PLANS) > 256:
            _PLANS.clear()
        _PLANS[key] = p
    return p


def scan(name: str, x: CudaArray, axis: int, dtype: Any, initial: bool) -> CudaArray:
    """``name``'s running reduction of ``x`` along ``axis`` (include_initial: ``initial``)."""
    ctx = x.ctx
    op = _OP[name]
    ctx.check_dtype(x.dtype, name)
    in_t = ir.type_of(x.dtype)
    if dtype is not None:
        npout = np.dtype(dtype)
        ctx.check_dtype(npout, name)
        out_t = ir.type_of(npout)
    else:
        out_t = kr.result_type(op, in_t)
        npout = ir.numpy_of(out_t)
    nd = x.ndim
    order = [i for i in range(nd) if i != axis] + [axis]
    xt = x.transpose(tuple(order)) if axis != nd - 1 else x
    if not xt.is_contiguous:
        xt = _ops.copy(xt)
    n = x.shape[axis]
    rows = math.prod(xt.shape[:-1])
    m = n + int(initial)
    y = ctx.allocator.empty((*xt.shape[:-1], m), npout)
    if rows * m > _LIMIT:
        raise NotImplementedError(
            f"ruda.{name}: scans of more than {_LIMIT} elements are not implemented on "
            f"{ctx.name} yet (the kernels index with 32-bit math)"
        )
    if rows and m:
        if n == 0:  # include_initial of an empty axis: the identity alone
            from .creation import fill

            fill(y, 0 if op == "sum" else 1)
        else:
            p = plan(op, in_t, out_t, rows, n, initial)
            run_plan(ctx, p, {"x": xt.ptr, "out": y.ptr})
    if axis == nd - 1:
        return y
    inverse = tuple(int(i) for i in np.argsort(order))
    return y.transpose(inverse)


def cumulative_sum(x: CudaArray, axis: int = 0, dtype: Any = None,
                   include_initial: bool = False) -> CudaArray:  # fmt: skip
    return scan("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x: CudaArray, axis: int = 0, dtype: Any = None,
                    include_initial: bool = False) -> CudaArray:  # fmt: skip
    return scan("cumulative_prod", x, axis, dtype, include_initial)


def _numpy_scan(name: str) -> Any:
    def fn(x: CudaArray, axis: int | None = None, dtype: Any = None, out: Any = None) -> CudaArray:
        if axis is None:  # NumPy's scans flatten
            x = (x if x.is_contiguous else _ops.copy(x)).reshape(-1)
            axis = 0
        elif x.ndim == 0:
            x, axis = x.reshape(1), 0
        r = scan(name, x, axis, dtype, False)
        if out is None:
            return r
        if not isinstance(out, CudaArray) or out.shape != r.shape:
            raise ValueError(f"ruda.{name}: out must be an array of shape {r.shape} on cuda")
        _ops.assign(out, r)
        return out

    fn.__name__ = name
    return fn


LIBRARY: dict[str, Any] = {
    "cumulative_sum": cumulative_sum, "cumulative_prod": cumulative_prod,
    "cumsum": _numpy_scan("cumsum"), "cumprod": _numpy_scan("cumprod"),
}  # fmt: skip
__all__ = ["LIBRARY", "VARIANT", "cumulative_prod", "cumulative_sum", "plan", "scan"]
