"""Searching of the GPU backends: argmax, argmin, count_nonzero, nonzero, argwhere, flatnonzero
and searchsorted.

* argmax/argmin: the reduced axis is moved last (a copy when that is not a layout the plan
  can bind) and the (value, index) pair reduction of ``ruda._kernels.argreduce`` runs over
  ``[rows, cols]``; results are int64, NumPy's intp.
* count_nonzero: the ``sum`` reduction of the truth values (a cast to bool first).
* nonzero and friends: the truth values are scanned (``cumulative_sum`` into int32) to give
  each nonzero element its output row; the host reads the total (the one read: the output's
  size depends on the data), then ``gather.compact`` writes the coordinates.
* searchsorted: a binary search per element (``gather.search``), NaN sorted last as NumPy does.

Arguments arrive as the namespace passes them (``ruda._searching``): axes normalised,
``out`` a native array or None.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..._dtypes import kind_of
from ..._kernels import argreduce as ka
from ..._kernels import gather as kg
from ..._kernels import ir
from . import chunking
from .indexing import LIMIT, bound, launch
from .layout import rows_last


class Searching:
    """The searching functions of one backend: its ``GpuOps``, ``Reductions`` and ``Scans``.
    It attaches itself as ``ops.searching`` (boolean indexing needs ``nonzero``)."""

    def __init__(self, ops: Any, reductions: Any, scans: Any) -> None:
        self.ops, self.reductions, self.scans = ops, reductions, scans
        self._sum = reductions.reducer("sum")
        self._plans: dict[tuple[Any, ...], Any] = {}
        ops.searching = self

    # -- argmax / argmin -----------------------------------------------------------------------
    def arg(self, op: str, x: Any, axis: Any = None, out: Any = None, *,
            keepdims: bool = False) -> Any:  # fmt: skip
        ops, ctx = self.ops, x.ctx
        ctx.check_dtype(x.dtype, op)
        if x.size == 0 and (axis is None or x.shape[operator.index(axis) % max(x.ndim, 1)] == 0):
            raise ValueError(f"attempt to get {op} of an empty sequence")
        if x.size > LIMIT:
            raise NotImplementedError(f"{op} of more than {LIMIT} elements on {ctx.name}")
        nd = x.ndim
        if axis is None:
            xt = x if ops.plan_ready(x) else ops.copy(x)
            rows, cols = 1, x.size
            shape: tuple[int, ...] = (1,) * nd if keepdims else ()
        else:
            axis = operator.index(axis) % max(nd, 1)
            xt = rows_last(ops, x, axis)
            cols = x.shape[axis]
            rows = x.size // cols
            shape = tuple(1 if d == axis else n for d, n in enumerate(x.shape)) if keepdims \
                else tuple(n for d, n in enumerate(x.shape) if d != axis)  # fmt: skip
        if rows == 0:  # an empty array whose reduced axis is not: nothing to run
            r = ctx.allocator.empty((0,), np.int64)
        elif chunking.too_big(ctx, xt):  # more than one binding: tile by tile
            r = chunking.arg_layout(self, op, xt, rows, cols)
        else:
            r = ctx.allocator.empty((rows,), np.int64)
            ops.run_plan(ctx, self.plan(op, ir.type_of(x.dtype), rows, cols),
                         {"x": xt.reshape(-1), "out": r})  # fmt: skip
        r = r.reshape(shape)
        if out is None:
            return r
        if not isinstance(out, ops.native) or out.shape != r.shape:
            raise ValueError(f"out must be an array of shape {r.shape} on {ctx.name}")
        ops.assign(out, r)
        return out

    def plan(self, op: str, in_t: ir.Type, rows: int, cols: int) -> Any:
        """The (cached) argreduce plan of ``op`` over ``[rows, cols]``."""
        key = (op, in_t, rows, cols)
        p = self._plans.get(key)
        if p is None:
            if len(self._plans) > 256:
                self._plans.clear()
            p = self._plans[key] = ka.plan(op, in_t, rows, cols)
        return p

    def argmax(self, x: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        return self.arg("argmax", x, axis, out, keepdims=keepdims)

    def argmin(self, x: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        return self.arg("argmin", x, axis, out, keepdims=keepdims)

    # -- counting and nonzero ---------------------------------------------------------------------
    def truth(self, x: Any) -> Any:
        """``x != 0`` as a contiguous bool array a plan can bind (``x`` itself when it is one)."""
        if x.dtype == np.bool_ and self.ops.plan_ready(x):
            return x
        return self.ops.astype(x, np.bool_)

    def count_nonzero(self, x: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
        return self._sum(self.truth(x), axis=axis, keepdims=keepdims)

    def positions(self, x: Any) -> tuple[Any, Any, int]:
        """(the flat truth values, their inclusive scan (int32), the count of nonzeros); the
        count is read to the host (the one read)."""
        mask = self.truth(x).reshape(-1)
        n = mask.size
        if n == 0:
            return mask, None, 0
        if n > LIMIT:
            raise NotImplementedError(f"nonzero of more than {LIMIT} elements on {x.ctx.name}")
        pos = self.scans.scan("cumulative_sum", mask, 0, np.int32, False)
        return mask, pos, int(pos[n - 1 :].to_host()[0])

    def coords(self, x: Any, layout: str) -> Any:
        """The coordinates of ``x``'s nonzero elements, int64: ``(ndim, count)`` ("rows"),
        ``(count, ndim)`` ("argwhere") or the flat indices ``(count,)`` ("flat")."""
        ctx = x.ctx
        mask, pos, total = self.positions(x)
        nd = x.ndim
        if layout == "flat":
            shape, sk, sd, rank = (total,), 1, 0, 0
        elif layout == "rows":
            shape, sk, sd, rank = (nd, total), 1, total, nd
        else:
            shape, sk, sd, rank = (total, nd), nd, 1, nd
        out = ctx.allocator.empty(shape, np.int64)
        if total == 0 or (rank == 0 and layout != "flat"):
            return out
        params = {"n": mask.size, "sk": sk, "sd": sd}
        params.update({f"s{d}": s for d, s in enumerate(x.shape[:rank])})
        launch(self.ops, kg.compact(rank), {"mask": mask, "pos": pos, "out": out}, params,
               mask.size)  # fmt: skip
        return out

    def nonzero(self, x: Any) -> tuple[Any, ...]:
        if x.ndim == 0:
            raise ValueError("nonzero of a 0-d array is not defined; use atleast_1d first")
        rows = self.coords(x, "rows")
        return tuple(rows[d] for d in range(x.ndim))

    def argwhere(self, x: Any) -> Any:
        if x.ndim == 0:  # NumPy: a 0-d array is one element of no dimensions
            total = self.positions(x)[2]
            return x.ctx.allocator.empty((total, 0), np.int64)
        return self.coords(x, "argwhere")

    def flatnonzero(self, x: Any) -> Any:
        return self.coords(x, "flat")

    # -- searchsorted -----------------------------------------------------------------------------
    def searchsorted(self, a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
        ops, ctx = self.ops, a.ctx
        if side not in ("left", "right"):
            raise ValueError(f"side must be 'left' or 'right', got {side!r}")
        if not isinstance(v, ops.native):  # a scalar (the namespace makes it a NumPy 0-d array)
            h = np.asarray(v)
            if h.ndim:
                v = ctx.allocator.from_host(h)
            else:
                v = ops.constant(ctx, h.item(), h.dtype).reshape(())  # a 0-d result
        elif v.ctx is not ctx:
            raise ValueError(f"v is on {v.ctx.name}, a on {ctx.name}")
        common = np.promote_types(a.dtype, v.dtype)
        ctx.check_dtype(common, "searchsorted")
        if a.dtype != common:
            a = ops.astype(a, common)
        if v.dtype != common:
            v = ops.astype(v, common)
        out = ctx.allocator.empty(v.shape, np.int64)
        n, m = v.size, a.size
        if n == 0:
            return out
        if max(n, m) > LIMIT:
            raise NotImplementedError(f"searchsorted over more than {LIMIT} elements")
        vf = v if v.ndim == 1 else (v if v.is_contiguous else ops.copy(v)).reshape(-1)
        ab, aoff = bound(a) if m else (a.view_of(0, (1,), (1,)), 0)
        vb, voff = bound(vf)
        params = {"n": n, "m": m, "steps": m.bit_length() + 1, "ast": a._strides[0] if m else 0,
                  "aoff": aoff, "vst": vf._strides[0], "voff": voff}  # fmt: skip
        bufs = {"a": ab, "v": vb, "out": out.reshape(-1)}
        st = None
        if sorter is not None:
            if not isinstance(sorter, ops.native):
                sorter = ctx.allocator.from_host(np.asarray(sorter))
            if sorter.shape != a.shape or kind_of(sorter.dtype) not in "iu":
                raise ValueError("sorter must be integer indices of a's shape")
            st = ir.type_of(sorter.dtype)
            if m:
                bufs["sorter"], params["soff"] = bound(sorter)
                params["sst"] = sorter._strides[0]
            else:
                bufs["sorter"], params["soff"], params["sst"] = ab, 0, 0
        k = kg.search(ir.type_of(common), st, side == "right")
        launch(ops, k, bufs, params, n)
        return out

    def library(self) -> dict[str, Any]:
        return {
            "argmax": self.argmax, "argmin": self.argmin, "count_nonzero": self.count_nonzero,
            "nonzero": self.nonzero, "argwhere": self.argwhere, "flatnonzero": self.flatnonzero,
            "searchsorted": self.searchsorted,
        }  # fmt: skip


__all__ = ["Searching"]
