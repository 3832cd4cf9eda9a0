"""Sorting and set functions of the GPU backends: sort, argsort (the standard's ``descending``
and ``stable``) and unique_all, unique_counts, unique_inverse, unique_values, through the radix
sort plans of ``ruda._kernels.sort.radix`` and the kernels of ``ruda._kernels.sort.unique``.

The sorted axis is moved last (a ruda copy kernel when that is not a layout a plan can bind),
each row of ``[rows, n]`` is sorted (every sort is stable), and the result is handed back with
the axis where it was. The set functions flatten, sort with the element indices, flag where
each value starts, scan the flags and scatter; the host reads one number, the count of unique
values, to size the outputs. Complex input sorts in NumPy's lexicographic order (real part
first; values with a NaN part last, ``R + nanj < nan + Rj < nan + nanj``) through composite
keys of 2 or 4 words: argsort sorts the indices by those keys, sort gathers the elements.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._devices import Device
from ..._dtypes import kind_of
from ..._kernels import ir
from ..._kernels import scan as ks
from ..._kernels.reduce import Launch, Plan, _cdiv
from ..._kernels.sort import keys as sort_keys
from ..._kernels.sort import radix as kso
from ..._kernels.sort import unique as ku
from ..._kernels.tune import engine as tune
from ..._ops import OPS
from .indexing import LIMIT
from .layout import axis_from_last, rows_last
from .operands import typed


class Sorting:
    """The sorts and set functions of one backend: its ``GpuOps`` and its default radix variant
    (declared to the tuner as the backend's default). A stored tuning decision for a sort's key
    (``sort.radix``, ``sort``/``argsort``, dtypes, ``(rows, n)``) replaces it."""

    def __init__(self, ops: Any, variant: dict[str, Any] | None = None) -> None:
        self.ops = ops
        self.variant = dict(variant or kso.DEFAULTS)
        self._plans: dict[tuple[Any, ...], Plan] = {}
        self._decided = tune.hot_memo()  # launch key -> stored decision or None
        kso.register_tuning()
        tune.set_backend_default("sort.radix", ops.kind, self.variant)

    def decided(self, ctx: Any, t: ir.Type, rows: int, n: int, mode: str) -> dict[str, Any]:
        """The variant for this sort on ``ctx``: a stored decision, else the default."""
        hk = (t, rows, n, mode, ctx)
        v = self._decided.get(hk, False)
        if v is False:
            op = "sort" if mode == "sort" else "argsort"  # unique sorts like argsort
            out = t.name if op == "sort" else "i64"
            key = tune.Key(op, (t.name, out), "rows", (rows, n))
            if len(self._decided) > 4096:  # many shapes: start over
                self._decided.clear()
            v = self.ops.tuner.decision("sort.radix", key, ctx)
            if v is None and self.variant.get("scan") == "subgroup":
                if "subgroup" not in self.ops.tuner.target(ctx).features:
                    v = {**self.variant, "scan": "hillis_steele"}  # an adapter without them
            self._decided[hk] = v
        return dict(self.variant if v is None else v)

    def plan(self, t: ir.Type, rows: int, n: int, mode: str, descending: bool,
             v: dict[str, Any]) -> Plan:  # fmt: skip
        key = (t, rows, n, mode, descending, tuple(sorted(v.items())))
        p = self._plans.get(key)
        if p is None:
            if len(self._plans) > 256:
                self._plans.clear()
            p = self._plans[key] = kso.plan_sort(t, rows, n, mode, descending, v)
        return p

    def run(self, name: str, x: Any, rows: int, n: int, mode: str, descending: bool,
            out: Any = None) -> tuple[Any, Any]:  # fmt: skip
        """Sort the rows of the contiguous ``x[rows, n]`` into ``out``; for ``unique``, return
        the sorted keys and the indices that sort them (else what is left of them, or None)."""
        ctx = x.ctx
        total = rows * n
        t = ir.type_of(x.dtype)
        w = kso.words(t)
        if total * w > LIMIT:
            raise NotImplementedError(
                f"ruda.{name}: sorts of more than {LIMIT // w} elements are not implemented on "
                f"{ctx.name} yet (the kernels index with 32-bit math)"
            )
        cap = getattr(ctx, "max_binding", None)  # WebGPU: the largest buffer a kernel binds
        # bytes per element of the widest array (unique's indices are int64)
        widest = max(4 * w, out.dtype.itemsize if out is not None else 8 * (mode == "unique"))
        if cap is not None and total * widest > cap:
            raise NotImplementedError(
                f"ruda.{name}: sorting {total} elements needs buffers larger than the largest "
                f"binding of {ctx.name} ({cap} bytes); chunked sorts are not implemented yet"
            )
        alloc = ctx.allocator
        v = self.decided(ctx, t, rows, n, mode)
        arrays = {k: alloc.empty((c,), np.uint32)
                  for k, c in kso.scratch_sizes(t, rows, n, mode, v).items()}  # fmt: skip
        arrays["x"] = x.reshape(-1)
        if out is not None:
            arrays["out"] = out.reshape(-1)
        self.ops.run_plan(ctx, self.plan(t, rows, n, mode, descending, v), arrays)
        return arrays.get("ka"), arrays.get("va")

    # -- sort / argsort ------------------------------------------------------------------------
    def _sort(self, name: str, x: Any, axis: int | None, descending: bool, order: Any) -> Any:
        ops, ctx = self.ops, x.ctx
        if order is not None:
            raise NotImplementedError(f"ruda.{name}: order= (structured arrays) is not "
                                      f"implemented on {ctx.name}")  # fmt: skip
        ctx.check_dtype(x.dtype, name)
        if axis is None:
            x = (x if x.is_contiguous else ops.copy(x)).reshape(-1)
            axis = 0
        nd = x.ndim
        axis = axis % nd  # the namespace normalised it; direct callers may pass -1
        xt = rows_last(ops, x, axis)
        n = x.shape[axis]
        rows = math.prod(xt.shape[:-1])
        if kind_of(x.dtype) == "c":
            return axis_from_last(self._complex(name, xt, rows, n, descending), axis)
        out = ctx.allocator.empty(xt.shape, x.dtype if name == "sort" else np.int64)
        if rows and n:
            self.run(name, xt, rows, n, name, descending, out)
        return axis_from_last(out, axis)

    def _complex(self, name: str, xt: Any, rows: int, n: int, descending: bool) -> Any:
        """sort/argsort of the complex rows of the contiguous ``xt``: the indices that sort them
        (the composite keys of ``sort_keys``: NumPy's lexicographic order, NaN classes last),
        and for ``sort`` the elements gathered (NaN payloads kept). Descending sorts the
        reversed rows and reverses back: ties keep their order, NaNs come first."""
        ops, ctx = self.ops, xt.ctx
        idx = ctx.allocator.empty(xt.shape, np.int64)
        if not (rows and n):
            return idx if name == "argsort" else ctx.allocator.empty(xt.shape, xt.dtype)
        src = ops.copy(xt[..., ::-1]) if descending else xt
        self.run(name, src, rows, n, "argsort", False, idx)
        if descending:
            idx = ops.apply(OPS["subtract"], (typed(n - 1, idx), idx[..., ::-1]))
        if name == "argsort":
            return idx
        return Device(xt.device)._ops["take_along_axis"](xt, idx, axis=-1)

    def sort(self, x: Any, axis: int | None = -1, descending: bool = False, stable: bool = True,
             kind: Any = None, order: Any = None) -> Any:  # fmt: skip
        # Note: every sort here is stable (an LSD radix sort); ``kind`` changes nothing.
        return self._sort("sort", x, axis, descending, order)

    def argsort(self, x: Any, axis: int | None = -1, descending: bool = False,
                stable: bool = True, kind: Any = None, order: Any = None) -> Any:  # fmt: skip
        return self._sort("argsort", x, axis, descending, order)

    # -- set functions -----------------------------------------------------------------------------
    def _unique(self, name: str, x: Any) -> tuple[Any, Any, Any, Any]:
        """(values, indices, inverse_indices (``x``'s shape), counts) of ``x``."""
        ops, ctx = self.ops, x.ctx
        ctx.check_dtype(x.dtype, name)
        alloc = ctx.allocator
        n = x.size
        xf = (x if ops.plan_ready(x) else ops.copy(x)).reshape(-1)
        if n == 0:
            empty = alloc.empty((0,), np.int64)
            return alloc.empty((0,), x.dtype), empty, alloc.empty(x.shape, np.int64), empty
        t = ir.type_of(x.dtype)
        keys, perm = self.run(name, xf, 1, n, "unique", False)
        w = kso.words(t)
        flags = alloc.empty((n,), np.uint32)
        ids = alloc.empty((n,), np.uint32)
        nans = t.is_float or t.is_complex
        above = sort_keys.nan_above(t) if nans else 0  # NaN keys' top words are larger
        p = Plan()
        groups = _cdiv(n, ku.WG)
        p.launches.append(Launch(ku.build_flags(w, nans), ("keys", "flags"), (n, above), groups))
        ks.plan_scan("cumulative_sum", ir.U32, ir.U32, 1, n, None, False, p, "flags", "ids")
        first = alloc.empty((n,), np.uint32)
        index = alloc.empty((n,), np.int64)
        inverse = alloc.empty((n,), np.int64)
        p.launches.append(Launch(ku.build_scatter(), ("flags", "ids", "perm", "first", "index",
                                                      "inverse"), (n,), groups))  # fmt: skip
        arrays = {"keys": keys, "flags": flags, "ids": ids, "perm": perm, "first": first,
                  "index": index, "inverse": inverse}  # fmt: skip
        ops.run_plan(ctx, p, arrays)
        u = int(ids[n - 1 :].to_host()[0])  # the one read: the outputs' size
        counts = alloc.empty((u,), np.int64)
        values = alloc.empty((u,), x.dtype)
        f = Plan()
        f.launches.append(Launch(ku.build_finish(t), ("first", "perm", "x", "counts", "values"),
                                 (u, n), _cdiv(u, ku.WG)))  # fmt: skip
        ops.run_plan(ctx, f, {"first": first, "perm": perm, "x": xf, "counts": counts,
                              "values": values})  # fmt: skip
        return values, index[:u], inverse.reshape(x.shape), counts

    def unique_all(self, x: Any) -> tuple[Any, Any, Any, Any]:
        return self._unique("unique_all", x)

    def unique_counts(self, x: Any) -> tuple[Any, Any]:
        r = self._unique("unique_counts", x)
        return r[0], r[3]

    def unique_inverse(self, x: Any) -> tuple[Any, Any]:
        r = self._unique("unique_inverse", x)
        return r[0], r[2]

    def unique_values(self, x: Any) -> Any:
        return self._unique("unique_values", x)[0]

    def library(self) -> dict[str, Any]:
        return {
            "sort": self.sort, "argsort": self.argsort, "unique_all": self.unique_all,
            "unique_counts": self.unique_counts, "unique_inverse": self.unique_inverse,
            "unique_values": self.unique_values,
        }  # fmt: skip

    def set_library(self) -> dict[str, Any]:
        """The set functions alone (a backend with a vendor sort keeps it)."""
        lib = self.library()
        del lib["sort"], lib["argsort"]
        return lib


__all__ = ["Sorting"]
