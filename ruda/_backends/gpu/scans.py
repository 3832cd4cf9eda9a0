"""Scans of the GPU backends: cumulative_sum, cumulative_prod (the standard's) and cumsum,
cumprod (NumPy's) through the plans of ``ruda._kernels.scan``; the backend runs the launches.

The scanned axis is moved last (a ruda copy kernel when that is not already a layout the
backend can bind), the plan runs over ``[rows, n]`` into a contiguous ``[rows, n +
include_initial]`` result, and the result is handed back as a view with the axis where it was.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._kernels import reduce as kr
from ..._kernels import scan as ks
from ..._kernels.tune import engine as tune
from . import chunking
from .layout import axis_from_last, rows_last
from .reductions import LIMIT, fill_identity

_OP = {"cumulative_sum": "sum", "cumulative_prod": "prod", "cumsum": "sum", "cumprod": "prod"}


class Scans:
    """The scans of one backend: its ``GpuOps`` and its default scan variant (read at each
    call, and declared to the tuner as the backend's default). A stored tuning decision for a
    launch's key (``scan``, ``cumulative_sum``/``cumulative_prod``, dtypes, ``(rows, n)``)
    replaces it."""

    def __init__(self, ops: Any, variant: dict[str, Any]) -> None:
        self.ops = ops
        self.variant = variant
        self._plans: dict[tuple[Any, ...], Any] = {}
        self._decided = tune.hot_memo()  # launch key -> stored decision or None
        tune.set_backend_default("scan", ops.kind, variant)

    def plan(self, op: str, in_t: ir.Type, out_t: ir.Type, rows: int, n: int,
             initial: bool, ctx: Any = None) -> Any:  # fmt: skip
        """The plan (cached) of the ``[rows, n]`` scan on ``ctx``'s device (None: the
        backend's default variant, no tuning)."""
        v = None
        if ctx is not None:
            hk = (op, in_t, out_t, rows, n, ctx)
            v = self._decided.get(hk, False)
            if v is False:
                key = tune.Key(f"cumulative_{op}", (in_t.name, out_t.name), "rows", (rows, n))
                if len(self._decided) > 4096:  # many shapes: start over
                    self._decided.clear()
                v = self._decided[hk] = self.ops.tuner.decision("scan", key, ctx)
        v = dict(self.variant if v is None else v)
        key = (op, in_t, out_t, rows, n, initial, tuple(sorted(v.items())))
        p = self._plans.get(key)
        if p is None:
            p = ks.plan_scan(op, in_t, out_t, rows, n, v, initial)
            if len(self._plans) > 256:
                self._plans.clear()
            self._plans[key] = p
        return p

    def scan(self, name: str, x: Any, axis: int, dtype: Any, initial: bool) -> Any:
        """``name``'s running reduction of ``x`` along ``axis`` (include_initial: ``initial``)."""
        ops, ctx = self.ops, x.ctx
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
        xt = rows_last(ops, x, axis)
        n = x.shape[axis]
        rows = math.prod(xt.shape[:-1])
        m = n + int(initial)
        y = ctx.allocator.empty((*xt.shape[:-1], m), npout)
        if rows * m > LIMIT:
            raise NotImplementedError(
                f"ruda.{name}: scans of more than {LIMIT} elements are not implemented on "
                f"{ctx.name} yet (the kernels index with 32-bit math)"
            )
        if rows and m:
            if n == 0:  # include_initial of an empty axis: the identity alone
                fill_identity(ops, y, 0 if op == "sum" else 1)
            elif chunking.too_big(ctx, xt, y):  # more than one binding: tile by tile
                chunking.scan_layout(self, op, xt, y, out_t, initial)
            else:
                p = self.plan(op, in_t, out_t, rows, n, initial, ctx)
                ops.run_plan(ctx, p, {"x": xt, "out": y})
        return axis_from_last(y, axis)

    def cumulative_sum(self, x: Any, axis: int = 0, dtype: Any = None,
                       include_initial: bool = False) -> Any:  # fmt: skip
        return self.scan("cumulative_sum", x, axis, dtype, include_initial)

    def cumulative_prod(self, x: Any, axis: int = 0, dtype: Any = None,
                        include_initial: bool = False) -> Any:  # fmt: skip
        return self.scan("cumulative_prod", x, axis, dtype, include_initial)

    def numpy_scan(self, name: str) -> Any:
        """NumPy's ``cumsum``/``cumprod``: flatten when ``axis`` is None; ``out=``."""
        ops = self.ops

        def fn(x: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> Any:
            if axis is None:  # NumPy's scans flatten
                x = (x if x.is_contiguous else ops.copy(x)).reshape(-1)
                axis = 0
            elif x.ndim == 0:
                x, axis = x.reshape(1), 0
            r = self.scan(name, x, axis, dtype, False)
            if out is None:
                return r
            if not isinstance(out, ops.native) or out.shape != r.shape:
                raise ValueError(
                    f"ruda.{name}: out must be an array of shape {r.shape} on {ops.kind}"
                )
            ops.assign(out, r)
            return out

        fn.__name__ = name
        return fn

    def library(self) -> dict[str, Any]:
        return {
            "cumulative_sum": self.cumulative_sum, "cumulative_prod": self.cumulative_prod,
            "cumsum": self.numpy_scan("cumsum"), "cumprod": self.numpy_scan("cumprod"),
        }  # fmt: skip


__all__ = ["Scans"]
