"""Reductions of the GPU backends: sum, prod, max, min, any, all, mean, var, std through the
reduce plans of ``ruda._kernels.reduce``; the backend only runs a plan's launches.

The input is brought to one of the plans' layouts: the whole array (``full``), the last axes
of ``[rows, cols]`` (``rows``) or the first ones (``cols``). An input the backend can bind as it
is (``ops.plan_ready``: contiguous, and aligned where the backend needs it) whose reduced axes
(length-1 dimensions aside) are a suffix or a prefix is used as it is; any other input is
permuted so the reduced axes come last and copied (a ruda copy kernel) into a contiguous
``rows`` layout. ``ops.run_plan`` runs a plan's launches in order over named arrays (``x``,
``mean``, ``out``) and zero-filled temporaries.

``mean`` is a sum in the float accumulation type divided by the count; ``var``/``std`` take two
passes: the mean, then the sum of centred squares (``center=True`` plans), divided by
``count - ddof`` (and a square root); of a complex array, the real part's and the imaginary
part's sums added (``|x - mean|**2``, a real result). Result dtypes follow NumPy, as the CPU
backend does.
Axes arrive normalised by the namespace (None, an int or a tuple of ints).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..._devices import Device
from ..._dtypes import is_half, kind_of
from ..._kernels import ir
from ..._kernels import reduce as kr
from ..._kernels.tune import engine as tune
from ..._ops import OPS
from . import chunking, views
from .operands import typed

_NoValue: Any = np._NoValue
LIMIT = (1 << 31) - 1  # elements a plan indexes with 32-bit math
_IDENTITY = {"sum": 0, "prod": 1, "any": False, "all": True}
_WITH_INITIAL = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum"}
_PART = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}


def fill_identity(ops: Any, out: Any, value: Any) -> Any:
    """``out`` (fresh, contiguous) filled with ``value``; a complex128 value whose two parts
    differ (the product's 1) is a 16-byte pattern the word fill cannot write: assigned."""
    v = np.asarray(value, dtype=out.dtype)
    if out.dtype.itemsize > 8 and v.real != v.imag:
        ops.assign(out, v[()])
        return out
    return ops.fill(out, value)


class Layout:
    """A reduction's input as one of the plans' layouts: ``family`` over ``x`` (contiguous),
    ``nout`` results (the kept dimensions, in order) of ``count`` elements each."""

    __slots__ = ("red", "family", "x", "nout", "count", "kept", "keepdims")

    def __init__(self, red: Reductions, x: Any, axis: Any) -> None:
        self.red = red
        nd = x.ndim
        axes = tuple(range(nd)) if axis is None else (axis,) if type(axis) is int else axis
        rset = set(axes)
        self.kept = tuple(x.shape[i] for i in range(nd) if i not in rset)
        self.keepdims = tuple(1 if i in rset else x.shape[i] for i in range(nd))
        self.nout = math.prod(self.kept)
        self.count = math.prod(x.shape[i] for i in rset)
        if x.size > LIMIT:
            raise NotImplementedError(
                f"ruda: reductions of more than {LIMIT} elements are not implemented on "
                f"{x.ctx.name} yet (the kernels index with 32-bit math)"
            )
        pattern = [i in rset for i in range(nd) if x.shape[i] != 1]  # which dims matter
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
        if family == "permute" or not red.ops.plan_ready(x):
            order = [i for i in range(nd) if i not in rset] + [i for i in range(nd) if i in rset]
            x = red.ops.copy(x.transpose(tuple(order)))
            family = "full" if self.nout <= 1 else "rows"
        self.family, self.x = family, x

    def run(self, op: str, out_t: ir.Type, mean: Any = None) -> Any:
        """``op`` reduced into a new contiguous ``(nout,)`` array of ``out_t``."""
        x, ops = self.x, self.red.ops
        ctx = x.ctx
        out = ctx.allocator.empty((self.nout,), ir.numpy_of(out_t))
        if self.count == 0 and op not in _IDENTITY:  # NumPy raises even with no results
            raise ValueError(f"zero-size array to reduction operation {op} which has no identity")
        if self.nout == 0:
            return out
        if self.count == 0:
            return fill_identity(ops, out, _IDENTITY[op])
        if chunking.too_big(ctx, x):  # more than one binding: tile by tile
            return chunking.reduce_layout(self, op, out_t, mean)
        in_t = ir.type_of(x.dtype)
        center = mean is not None
        if self.family == "full":
            p = self.red.plan("full", op, in_t, out_t, self.count, 0, center, ctx)
        elif self.family == "rows":
            p = self.red.plan("rows", op, in_t, out_t, self.nout, self.count, center, ctx)
        else:
            p = self.red.plan("cols", op, in_t, out_t, self.count, self.nout, center, ctx)
        arrays = {"x": x, "out": out}
        if center:
            arrays["mean"] = mean
        ops.run_plan(ctx, p, arrays)
        return out

    def shape(self, keepdims: bool) -> tuple[int, ...]:
        return self.keepdims if keepdims else self.kept


class Reductions:
    """The reductions of one backend: its ``GpuOps`` and its default plan variants (``full``,
    ``rows``, ``cols``: overrides of the reduce builders' defaults, read at each call, and
    declared to the tuner as the backend's defaults). A stored tuning decision for a launch's
    key (``reduce.<layout>``, the op, dtypes and ``(a,)`` or ``(a, b)``) replaces them; a
    centred pass (var/std) uses the decision of its op's key."""

    def __init__(self, ops: Any, variants: dict[str, dict[str, Any]]) -> None:
        self.ops = ops
        self.variants = variants
        self._plans: dict[tuple[Any, ...], kr.Plan] = {}
        self._decided = tune.hot_memo()  # launch key -> stored decision or None
        for layout, v in variants.items():
            tune.set_backend_default(f"reduce.{layout}", ops.kind, v)

    # -- plans ---------------------------------------------------------------------------------
    def rows_variant(self, cols: int) -> dict[str, Any]:
        """Threads per row by row length (short rows: a thread or a warp per row)."""
        return {"tpr": tune.threads_per_row(cols), **self.variants["rows"]}

    def variant(self, family: str, op: str, in_t: ir.Type, out_t: ir.Type, a: int, b: int,
                ctx: Any) -> dict[str, Any]:  # fmt: skip
        """The tuner's decision for this launch, else the backend's default."""
        hk = (family, op, in_t, out_t, a, b, ctx)
        v = self._decided.get(hk, False)
        if v is False:
            shape = (a,) if family == "full" else (a, b)
            key = tune.Key(op, (in_t.name, out_t.name), family, shape)
            if len(self._decided) > 4096:  # many shapes: start over
                self._decided.clear()
            v = self._decided[hk] = self.ops.tuner.decision(f"reduce.{family}", key, ctx)
        if v is not None:
            return v
        return self.rows_variant(b) if family == "rows" else self.variants[family]

    def plan(self, family: str, op: str, in_t: ir.Type, out_t: ir.Type, a: int, b: int,
             center: bool, ctx: Any = None) -> kr.Plan:  # fmt: skip
        """The plan (cached) of ``family`` over ``a`` (x ``b``) elements on ``ctx``'s device
        (None: the backend's default variant, no tuning)."""
        if ctx is None:
            v = self.rows_variant(b) if family == "rows" else self.variants[family]
        else:
            v = self.variant(family, op, in_t, out_t, a, b, ctx)
        key = (family, op, in_t, out_t, a, b, center, tuple(sorted(v.items())))
        p = self._plans.get(key)
        if p is None:
            if family == "full":
                p = kr.plan_full(op, in_t, out_t, a, v, center)
            elif family == "rows":
                p = kr.plan_rows(op, in_t, out_t, a, b, v, center)
            else:
                p = kr.plan_cols(op, in_t, out_t, a, b, v, center)
            if len(self._plans) > 512:
                self._plans.clear()
            self._plans[key] = p
        return p

    def layout(self, x: Any, axis: Any) -> Layout:
        return Layout(self, x, axis)

    # -- helpers ---------------------------------------------------------------------------------
    def _masked(self, op: str, x: Any, where: Any, initial: Any) -> Any:
        """``x`` with the where=False elements replaced by ``op``'s identity (device ``where``)."""
        fill = _IDENTITY.get(op)
        if fill is None:  # max/min: no identity, so NumPy asks for initial= (it fills empty slices)
            if initial is _NoValue:
                raise ValueError(f"ruda.{op}: where= needs initial= ({op} has no identity)")
            if kind_of(x.dtype) == "b":
                fill = op == "min"
            elif kind_of(x.dtype) in "iu":
                fill = np.iinfo(x.dtype).min if op == "max" else np.iinfo(x.dtype).max
            elif kind_of(x.dtype) == "c":  # below (above) every value, lexicographically
                fill = complex(-np.inf, -np.inf) if op == "max" else complex(np.inf, np.inf)
            else:
                fill = -np.inf if op == "max" else np.inf
        dev = Device(x.device)
        native = isinstance(where, self.ops.native)
        w = where if native else x.ctx.allocator.from_host(np.asarray(where))
        c = x.ctx.allocator.from_host(np.asarray(fill, dtype=x.dtype))
        return dev._ops["where"](w, x, c)  # the device's where, through the dispatch table

    def _unsupported(self, fname: str, where: Any) -> None:
        if where is not True:
            raise NotImplementedError(f"ruda.{fname}: where= is not implemented on "
                                      f"{self.ops.kind} yet")  # fmt: skip

    def _finish(self, r: Any, lay: Layout, keepdims: bool, out: Any, fname: str) -> Any:
        """Shape the flat result (keepdims); write it into ``out`` when given."""
        r = r.reshape(lay.shape(keepdims))
        if out is None:
            return r
        if not isinstance(out, self.ops.native):
            raise TypeError(f"ruda.{fname}: out must be an array on {r.ctx.name}")
        if out.shape != r.shape:
            raise ValueError(f"ruda.{fname}: out has shape {out.shape}, the result {r.shape}")
        self.ops.assign(out, r)
        return out

    @staticmethod
    def _check(ctx: Any, npdt: np.dtype, fname: str) -> ir.Type:
        ctx.check_dtype(npdt, fname)
        return ir.type_of(npdt)

    def _float_types(self, x: Any, dtype: Any, fname: str) -> tuple[np.dtype, np.dtype]:
        """(result dtype, accumulation dtype): NumPy's (float16 accumulates in float32)."""
        if dtype is not None:
            res = np.dtype(dtype)
        elif kind_of(x.dtype) in "fc":
            res = x.dtype
        else:
            res = np.dtype(np.float64)
        x.ctx.check_dtype(res, fname)
        acc = np.dtype(np.float32) if is_half(res) else res
        if kind_of(acc) not in "fc":
            acc = np.dtype(np.float64)  # an integer dtype=: computed in float64, then converted
        return res, acc

    def _scale(self, r: Any, count: float, sqrt: bool = False) -> Any:
        """``r / count`` (then its square root) in place."""
        self.ops.apply(OPS["divide"], (r, typed(float(count), r)), r)
        if sqrt:
            self.ops.apply(OPS["sqrt"], (r,), r)
        return r

    # -- sum, prod, max, min, any, all -----------------------------------------------------------
    def reducer(self, op: str) -> Any:
        ops = self.ops

        def fn(x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None,
               out: Any = None, where: Any = True, initial: Any = _NoValue) -> Any:  # fmt: skip
            if where is not True:
                x = self._masked(op, x, where, initial)
            ctx = x.ctx
            in_t = self._check(ctx, x.dtype, op)
            if dtype is not None and op in ("sum", "prod"):
                out_t = self._check(ctx, np.dtype(dtype), op)
            else:
                out_t = kr.result_type(op, in_t)
            lay = self.layout(x, axis)
            extreme = op in ("max", "min")
            if initial is not _NoValue and extreme and lay.count == 0:
                r = fill_identity(
                    ops, ctx.allocator.empty((lay.nout,), ir.numpy_of(out_t)), initial
                )
            elif extreme and in_t.is_complex:
                r = self._complex_extreme(op, lay)
                if initial is not _NoValue:  # NumPy starts from initial: it wins ties and NaNs
                    c = ops.constant(ctx, initial, r.dtype)
                    r = ops.apply(OPS[_WITH_INITIAL[op]], (c, r))
            else:
                r = lay.run(op, out_t)
                if initial is not _NoValue:
                    c = ops.constant(ctx, initial, r.dtype)
                    ops.apply(OPS[_WITH_INITIAL[op]], (r, c), r)
            return self._finish(r, lay, keepdims, out, op)

        fn.__name__ = op
        return fn

    def _complex_extreme(self, op: str, lay: Layout) -> Any:
        """max/min of complex values into a new ``(nout,)`` array. NumPy's answer is the first
        value with a NaN part, else the first largest (smallest) value in lexicographic order,
        real part first: the element at ``argmax`` (``argmin``), which is gathered."""
        x, ops = lay.x, self.ops
        if lay.count == 0:  # NumPy raises even with no results
            raise ValueError(f"zero-size array to reduction operation {op} which has no identity")
        if lay.nout == 0:
            return x.ctx.allocator.empty((0,), x.dtype)
        if lay.family == "cols":  # reduced axes first: each result's elements made a row
            x = ops.copy(x.reshape((lay.count, lay.nout)).transpose((1, 0)))
        rows = x.reshape((lay.nout, lay.count))
        at = ops.searching.arg("arg" + op, rows, 1).reshape((lay.nout, 1))
        picked = Device(x.device)._ops["take_along_axis"](rows, at, axis=1)
        return picked.reshape((lay.nout,))

    # -- mean, var, std ---------------------------------------------------------------------------
    def mean(self, x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None,
             out: Any = None, where: Any = True) -> Any:  # fmt: skip
        self._unsupported("mean", where)
        self._check(x.ctx, x.dtype, "mean")
        res, acc = self._float_types(x, dtype, "mean")
        lay = self.layout(x, axis)
        r = self._scale(lay.run("sum", ir.type_of(acc)), lay.count)
        if res != acc:
            r = self.ops.astype(r, res)
        return self._finish(r, lay, keepdims, out, "mean")

    def spread(self, fname: str, sqrt: bool) -> Any:
        """``var`` (``sqrt=False``) or ``std``: two passes, the mean and the centred squares."""
        ops = self.ops

        def fn(x: Any, axis: Any = None, ddof: float = 0, keepdims: bool = False,
               dtype: Any = None, out: Any = None, where: Any = True,
               mean: Any = _NoValue) -> Any:  # fmt: skip
            self._unsupported(fname, where)
            ctx = x.ctx
            self._check(ctx, x.dtype, fname)
            if kind_of(x.dtype) == "c":
                res, acc, r, lay = self._complex_squares(x, axis, dtype, mean, fname)
            else:
                res, acc = self._float_types(x, dtype, fname)
                r, lay = self._squares(x, axis, acc, mean)
            r = self._scale(r, max(lay.count - ddof, 0), sqrt)
            if res != acc:
                r = ops.astype(r, res)
            return self._finish(r, lay, keepdims, out, fname)

        fn.__name__ = fname
        return fn

    def _squares(self, x: Any, axis: Any, acc: np.dtype, mean: Any) -> tuple[Any, Layout]:
        """The sums of centred squares of the real ``x`` (flat, ``acc``) and its layout."""
        ops = self.ops
        acc_t = ir.type_of(acc)
        lay = self.layout(x, axis)
        if mean is _NoValue or mean is None:
            m = self._scale(lay.run("sum", acc_t), lay.count)
        else:  # a given mean (keepdims shape), as a contiguous accumulator-typed array
            if not isinstance(mean, ops.native):
                mean = ops.constant(x.ctx, mean, acc)
            m = ops.astype(views.broadcast_to(mean, lay.keepdims), acc)
        return lay.run("sum", acc_t, mean=m), lay

    def _complex_squares(self, x: Any, axis: Any, dtype: Any, mean: Any,
                         fname: str) -> tuple[np.dtype, np.dtype, Any, Layout]:  # fmt: skip
        """(result dtype, accumulation dtype, sums of ``|x - mean|**2``, layout) of complex
        ``x``: NumPy's definition, the real part's centred squares plus the imaginary part's.
        The result is real unless ``dtype`` is complex (NumPy returns that dtype then)."""
        ops = self.ops
        res = np.dtype(_PART[x.dtype] if dtype is None else dtype)
        x.ctx.check_dtype(res, fname)
        acc = np.dtype(_PART.get(res, np.float32 if is_half(res) else res))
        if kind_of(acc) != "f":
            raise TypeError(f"ruda.{fname}: dtype={res} cannot hold the variance of {x.dtype}")
        given = mean is not _NoValue and mean is not None
        means: tuple[Any, Any] = (mean, mean)
        if given:
            if isinstance(mean, ops.native):
                means = (ops.apply(OPS["real"], (mean,)), ops.apply(OPS["imag"], (mean,)))
            else:
                means = (complex(mean).real, complex(mean).imag)
        elif kind_of(res) != "c" and dtype is not None:
            # NumPy: a real dtype= sums the mean in it, dropping its imaginary part (with a
            # ComplexWarning); the squares keep both parts of x - mean
            warnings.warn("Casting complex values to real discards the imaginary part",
                          np.exceptions.ComplexWarning, stacklevel=3)  # fmt: skip
            means = (means[0], 0.0)
        r, lay = self._squares(ops.apply(OPS["real"], (x,)), axis, acc, means[0])
        r_im, _ = self._squares(ops.apply(OPS["imag"], (x,)), axis, acc, means[1])
        ops.apply(OPS["add"], (r, r_im), r)
        return res, acc, r, lay

    def library(self) -> dict[str, Any]:
        lib = {op: self.reducer(op) for op in ("sum", "prod", "max", "min", "any", "all")}
        lib.update({"amax": lib["max"], "amin": lib["min"], "mean": self.mean,
                    "var": self.spread("var", False), "std": self.spread("std", True)})  # fmt: skip
        return lib


__all__ = ["LIMIT", "Layout", "Reductions"]
