"""Manipulation ops of the GPU backends: concat, stack, roll, tile, repeat, pad, where, clip and
the view-only ones (moveaxis, unstack, broadcast_arrays, splits, atleast_*d, rot90).

Every copy here is the strided copy kernel (``kernels.cast`` through the backend's ``assign``)
from a *view* of the source into a view of a fresh output: the index remap is in the view's
offset and strides (stride 0 repeats, negative strides reverse, offsets select). So tile and
int repeat are one launch (a source view with interleaved stride-0 axes), concat one per input,
roll and the index modes of pad (edge, reflect, symmetric, wrap) one per block of runs where the
per-axis source index map has a constant step. ``where`` and ``clip`` are the ternary kernels of
``select_kernels``. Nothing here is backend-specific: ``library(ops)`` binds a ``GpuOps``.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._dtypes import kind_of
from ..._errors import AxisError
from ..._kernels import ir
from ..._promotion import fold
from . import select_kernels
from .operands import PY_SCALARS, mixed
from .strided import c_strides


def _axis(axis: Any, nd: int) -> int:
    a = operator.index(axis)
    if not -nd <= a < nd:
        raise AxisError(f"axis {a} is out of bounds for array of dimension {nd}")
    return a % nd


def _runs(f: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(out start, length, source start, step) runs of index map ``f`` whose step is constant
    (-1, 0 or 1; other steps give runs of one)."""
    n = len(f)
    if n == 0:
        return []
    d = np.diff(f)
    change = np.flatnonzero(d[1:] != d[:-1]) + 1  # d[j] != d[j - 1]
    out, i = [], 0
    while i < n:
        if i == n - 1 or abs(int(d[i])) > 1:
            out.append((i, 1, int(f[i]), 0))
            i += 1
            continue
        k = np.searchsorted(change, i, side="right")
        j = int(change[k]) if k < len(change) else n - 1  # d[i:j] == d[i]: elements i..j
        out.append((i, j - i + 1, int(f[i]), int(d[i])))
        i = j + 1
    return out


def _pairs(v: Any, nd: int, what: str, ints: bool) -> np.ndarray:
    """NumPy's ``_as_pairs``: ``v`` broadcast to (before, after) per axis."""
    a = np.asarray(v)
    if ints:
        if kind_of(a.dtype) not in "iub":
            raise TypeError(f"`{what}` must be of integral type.")
        a = a.astype(np.int64)
    try:
        a = np.broadcast_to(a, (nd, 2))
    except ValueError:
        raise ValueError(f"{what} {v!r} cannot be broadcast to ({nd}, 2)") from None
    if ints and (a < 0).any():
        raise ValueError("index can't contain negative values")
    return a


def _pad_map(mode: str, n: int, before: int, after: int) -> np.ndarray:
    """Source index of every output index along one axis for an index mode of ``pad``."""
    c = np.arange(-before, n + after, dtype=np.int64)
    if mode == "edge":
        return np.clip(c, 0, n - 1)
    if mode == "wrap":
        return c % n
    if mode == "symmetric":
        t = c % (2 * n)
        return np.where(t < n, t, 2 * n - 1 - t)
    if n == 1:  # reflect of one element
        return np.zeros_like(c)
    t = c % (2 * n - 2)
    return np.where(t < n, t, 2 * n - 2 - t)


class Manipulation:
    """The manipulation ops over one backend's ``GpuOps`` (its allocator, assign, fill, launch)."""

    def __init__(self, ops: Any) -> None:
        self.ops = ops

    # -- helpers ------------------------------------------------------------------------------
    def _ctx(self, arrays: list[Any], fname: str) -> Any:
        native = self.ops.native
        ctx = None
        for a in arrays:
            if not isinstance(a, native):
                raise TypeError(
                    f"{fname}: expected arrays on a {self.ops.kind} device, got {type(a).__name__}"
                )
            if ctx is None:
                ctx = a.ctx
            elif a.ctx is not ctx:
                raise mixed(ctx, a.ctx)
        return ctx

    def _empty(self, ctx: Any, shape: tuple[int, ...], dtype: Any, fname: str) -> Any:
        ctx.check_dtype(np.dtype(dtype), fname)
        return ctx.allocator.empty(tuple(shape), np.dtype(dtype))

    @staticmethod
    def _insert_axis(x: Any, axis: int, n: int = 1) -> Any:
        """A view of ``x`` with a new axis of length ``n`` (stride 0) at ``axis``."""
        shape, st = list(x.shape), list(x._strides)
        shape.insert(axis, n)
        st.insert(axis, 0)
        return x.view_of(x.offset, tuple(shape), tuple(st))

    def _gather(self, x: Any, maps: list[np.ndarray]) -> Any:
        """``out[c] = x[maps[0][c0], maps[1][c1], ...]``: a copy per block of constant-step runs."""
        shape = tuple(len(m) for m in maps)
        out = self._empty(x.ctx, shape, x.dtype, "gather")
        if out.size == 0:
            return out
        isz = x.dtype.itemsize
        for block in itertools.product(*(_runs(m) for m in maps)):
            off, sh, st, key = x.offset, [], [], []
            for d, (o0, n, s0, step) in enumerate(block):
                off += s0 * x._strides[d] * isz
                sh.append(n)
                st.append(step * x._strides[d])
                key.append(slice(o0, o0 + n))
            self.ops.assign(out[tuple(key)], x.view_of(off, tuple(sh), tuple(st)))
        return out

    @staticmethod
    def _result_dtype(arrays: list[Any]) -> np.dtype:
        first = arrays[0].dtype
        if all(a.dtype == first for a in arrays):
            return first
        return np.result_type(*(a.dtype for a in arrays))

    # -- joining -------------------------------------------------------------------------------
    def concatenate(self, arrays: Any, axis: int | None = 0, out: Any = None, *,
                    dtype: Any = None, casting: str = "same_kind") -> Any:  # fmt: skip
        arrays = list(arrays)
        if not arrays:
            raise ValueError("need at least one array to concatenate")
        ctx = self._ctx(arrays if out is None else [*arrays, out], "concatenate")
        if out is not None and dtype is not None:
            raise TypeError("concatenate() only takes `out` or `dtype` as an argument, "
                            "but both were provided.")  # fmt: skip
        if out is not None:
            dtype = out.dtype
        elif dtype is None:
            dtype = self._result_dtype(arrays)
        else:
            dtype = dt.to_numpy(dtype)
        for a in arrays:
            if not np.can_cast(a.dtype, dtype, casting):
                raise TypeError(f"Cannot cast array data from {a.dtype!r} to {dtype!r} "
                                f"according to the rule {casting!r}")  # fmt: skip
        if axis is None:
            shape: tuple[int, ...] = (sum(a.size for a in arrays),)
            axis = 0
            flat = True
        else:
            flat = False
            a0 = arrays[0]
            if a0.ndim == 0:
                raise ValueError("zero-dimensional arrays cannot be concatenated")
            axis = _axis(axis, a0.ndim)
            total = 0
            for i, a in enumerate(arrays):
                if a.ndim != a0.ndim:
                    raise ValueError(
                        "all the input arrays must have same number of dimensions, but the array "
                        f"at index 0 has {a0.ndim} dimension(s) and the array at index {i} has "
                        f"{a.ndim} dimension(s)"
                    )
                for d in range(a0.ndim):
                    if d != axis and a.shape[d] != a0.shape[d]:
                        raise ValueError(
                            "all the input array dimensions except for the concatenation axis "
                            f"must match exactly, but along dimension {d}, the array at index 0 "
                            f"has size {a0.shape[d]} and the array at index {i} has size "
                            f"{a.shape[d]}"
                        )
                total += a.shape[axis]
            shape = a0.shape[:axis] + (total,) + a0.shape[axis + 1 :]
        if out is None:
            target = self._empty(ctx, shape, dtype, "concat")
        else:
            if out.shape != shape:
                raise ValueError(f"Output array has wrong shape {out.shape}, expected {shape}")
            target = out
        pos = 0
        lead = (slice(None),) * axis
        for a in arrays:
            m = a.size if flat else a.shape[axis]
            if m and a.size:
                view = target[(*lead, slice(pos, pos + m))]
                if flat:  # a contiguous run of the flat output, seen in a's shape
                    view = view.view_of(view.offset, a.shape, c_strides(a.shape))
                self.ops.assign(view, a)
            pos += m
        return target

    def stack(self, arrays: Any, axis: int = 0, out: Any = None, *, dtype: Any = None,
              casting: str = "same_kind") -> Any:  # fmt: skip
        arrays = list(arrays)
        if not arrays:
            raise ValueError("need at least one array to stack")
        self._ctx(arrays, "stack")
        shape = arrays[0].shape
        if any(a.shape != shape for a in arrays):
            raise ValueError("all input arrays must have the same shape")
        axis = _axis(axis, len(shape) + 1)
        ex = [self._insert_axis(a, axis) for a in arrays]
        return self.concatenate(ex, axis, out, dtype=dtype, casting=casting)

    def _seq(self, arrays: Any, axis: int, fix: Callable[[Any], Any], dtype: Any = None,
             casting: str = "same_kind") -> Any:  # fmt: skip
        arrays = [fix(a) for a in arrays]
        return self.concatenate(arrays, axis, dtype=dtype, casting=casting)

    def vstack(self, tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Any:
        return self._seq(tup, 0, self.atleast_2d, dtype, casting)

    def hstack(self, tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Any:
        arrs = [self.atleast_1d(a) for a in tup]
        axis = 0 if arrs and arrs[0].ndim == 1 else 1
        return self.concatenate(arrs, axis, dtype=dtype, casting=casting)

    def dstack(self, tup: Any) -> Any:
        return self._seq(tup, 2, self.atleast_3d)

    def column_stack(self, tup: Any) -> Any:
        def col(a: Any) -> Any:  # 1-d arrays become columns
            if a.ndim == 1:
                return a.view_of(a.offset, (a.shape[0], 1), (a._strides[0], 0))
            return self.atleast_2d(a)

        return self._seq(tup, 1, col)

    def append(self, arr: Any, values: Any, axis: int | None = None) -> Any:
        if axis is None:
            arr, values = arr.reshape(-1), values.reshape(-1)
            axis = 0
        return self.concatenate([arr, values], axis)

    # -- views -----------------------------------------------------------------------------------
    def atleast_1d(self, x: Any) -> Any:
        return x.view_of(x.offset, (1,), (0,)) if x.ndim == 0 else x

    def atleast_2d(self, x: Any) -> Any:
        if x.ndim == 0:
            return x.view_of(x.offset, (1, 1), (0, 0))
        if x.ndim == 1:
            return x.view_of(x.offset, (1, x.shape[0]), (0, x._strides[0]))
        return x

    def atleast_3d(self, x: Any) -> Any:
        if x.ndim == 0:
            return x.view_of(x.offset, (1, 1, 1), (0, 0, 0))
        if x.ndim == 1:
            return x.view_of(x.offset, (1, x.shape[0], 1), (0, x._strides[0], 0))
        if x.ndim == 2:
            return x.view_of(x.offset, (*x.shape, 1), (*x._strides, 0))
        return x

    def moveaxis(self, x: Any, source: Any, destination: Any) -> Any:
        nd = x.ndim
        src = [_axis(a, nd) for a in ((source,) if isinstance(source, int) else source)]
        dst = [_axis(a, nd) for a in ((destination,) if isinstance(destination, int)
                                      else destination)]  # fmt: skip
        if len(src) != len(dst):
            raise ValueError("`source` and `destination` arguments must have the same number "
                             "of elements")  # fmt: skip
        order = [d for d in range(nd) if d not in src]
        for d, s in sorted(zip(dst, src, strict=True)):
            order.insert(d, s)
        return x.transpose(order)

    def swapaxes(self, x: Any, axis1: int, axis2: int) -> Any:
        order = list(range(x.ndim))
        a, b = _axis(axis1, x.ndim), _axis(axis2, x.ndim)
        order[a], order[b] = order[b], order[a]
        return x.transpose(order)

    def unstack(self, x: Any, axis: int = 0) -> tuple[Any, ...]:
        axis = _axis(axis, x.ndim)
        lead = (slice(None),) * axis
        return tuple(x[(*lead, i)] for i in range(x.shape[axis]))

    def broadcast_arrays(self, *arrays: Any) -> tuple[Any, ...]:
        self._ctx(list(arrays), "broadcast_arrays")
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
        from .views import broadcast_to

        out = []
        for a in arrays:
            # Note: NumPy's results are writeable with a DeprecationWarning on the first write;
            # ruda's are as writeable as their input, without the warning (broadcast_to's
            # results, unlike these, are read-only everywhere).
            v = broadcast_to(a, shape)
            v.readonly = a.readonly
            out.append(v)
        return tuple(out)

    def rot90(self, m: Any, k: int = 1, axes: Any = (0, 1)) -> Any:
        a0, a1 = (_axis(a, m.ndim) for a in axes)
        if a0 == a1:
            raise ValueError("Axes must be different.")
        from .views import flip

        k = operator.index(k) % 4
        if k == 0:
            return m[...]
        if k == 2:
            return flip(flip(m, a0), a1)
        order = list(range(m.ndim))
        order[a0], order[a1] = order[a1], order[a0]
        return flip(m, a1).transpose(order) if k == 1 else flip(m.transpose(order), a1)

    def array_split(self, x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
        axis = _axis(axis, x.ndim)
        n = x.shape[axis]
        if isinstance(indices_or_sections, (int, np.integer)):
            sections = int(indices_or_sections)
            if sections <= 0:
                raise ValueError("number sections must be larger than 0.")
            each, extra = divmod(n, sections)
            sizes = [each + 1] * extra + [each] * (sections - extra)
            points = [0, *itertools.accumulate(sizes)]
        else:
            points = [0, *(int(i) for i in indices_or_sections), n]
        lead = (slice(None),) * axis
        return [x[(*lead, slice(a, b))] for a, b in itertools.pairwise(points)]

    def split(self, x: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
        if isinstance(indices_or_sections, (int, np.integer)):
            n = x.shape[_axis(axis, x.ndim)]
            if indices_or_sections and n % int(indices_or_sections):
                raise ValueError("array split does not result in an equal division")
        return self.array_split(x, indices_or_sections, axis)

    def hsplit(self, x: Any, indices_or_sections: Any) -> list[Any]:
        if x.ndim == 0:
            raise ValueError("hsplit only works on arrays of 1 or more dimensions")
        return self.split(x, indices_or_sections, 1 if x.ndim > 1 else 0)

    def vsplit(self, x: Any, indices_or_sections: Any) -> list[Any]:
        if x.ndim < 2:
            raise ValueError("vsplit only works on arrays of 2 or more dimensions")
        return self.split(x, indices_or_sections, 0)

    def dsplit(self, x: Any, indices_or_sections: Any) -> list[Any]:
        if x.ndim < 3:
            raise ValueError("dsplit only works on arrays of 3 or more dimensions")
        return self.split(x, indices_or_sections, 2)

    # -- copies with a remap ---------------------------------------------------------------------
    def roll(self, x: Any, shift: Any, axis: Any = None) -> Any:
        if axis is None:
            total = int(np.sum(shift))
            return self.roll(x.reshape(-1), total, 0).reshape(x.shape)
        by_axis: dict[int, int] = {}
        for s, a in np.broadcast(shift, axis):
            a = _axis(int(a), x.ndim)
            by_axis[a] = by_axis.get(a, 0) + int(s)
        maps = []
        for d, n in enumerate(x.shape):
            k = by_axis.get(d, 0) % n if n else 0
            maps.append((np.arange(n) - k) % n if k else np.arange(n))
        return self._gather(x, maps)

    def tile(self, x: Any, reps: Any) -> Any:
        reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
        reps = tuple(operator.index(r) for r in reps)
        if any(r < 0 for r in reps):
            raise ValueError("negative dimensions are not allowed")
        d = max(len(reps), x.ndim)
        reps = (1,) * (d - len(reps)) + reps
        shape = (1,) * (d - x.ndim) + x.shape
        st = (0,) * (d - x.ndim) + x._strides
        out = self._empty(x.ctx, tuple(s * r for s, r in zip(shape, reps, strict=True)), x.dtype,
                          "tile")  # fmt: skip
        if out.size:
            inter = tuple(v for pair in zip(reps, shape, strict=True) for v in pair)
            src_st = tuple(v for s in st for v in (0, s))
            self.ops.assign(out.view_of(out.offset, inter, c_strides(inter)),
                            x.view_of(x.offset, inter, src_st))  # fmt: skip
        return out

    def repeat(self, x: Any, repeats: Any, axis: int | None = None) -> Any:
        if axis is None:
            x, axis = x.reshape(-1), 0
        axis = _axis(axis, x.ndim)
        n = x.shape[axis]
        if isinstance(repeats, self.ops.native):
            repeats = repeats.to_host()  # the output's shape depends on the values
        r = np.asarray(repeats)
        if kind_of(r.dtype) not in "iub":
            raise TypeError(f"Cannot cast array data from {r.dtype!r} to dtype('int64') "
                            "according to the rule 'safe'")  # fmt: skip
        if r.ndim > 1:
            raise ValueError("repeats must be a scalar or a 1-d array")
        if r.size == 1:
            r = r.reshape(())
        r = r.astype(np.int64)
        if (r < 0).any():
            raise ValueError("repeats may not contain negative values.")
        if r.ndim == 0:
            groups = [(0, n, int(r))]
        else:
            if r.shape != (n,):
                raise ValueError(
                    f"operands could not be broadcast together with shape ({n},) {r.shape}"
                )
            cut = [0, *(np.flatnonzero(np.diff(r)) + 1).tolist(), n]
            groups = [(a, b - a, int(r[a])) for a, b in itertools.pairwise(cut) if b > a]
        total = sum(m * c for _, m, c in groups)
        out = self._empty(x.ctx, x.shape[:axis] + (total,) + x.shape[axis + 1 :], x.dtype,
                          "repeat")  # fmt: skip
        if out.size == 0:
            return out
        isz, ost, xst = x.dtype.itemsize, out._strides, x._strides
        pos = 0
        for i0, m, c in groups:
            if c == 0:
                continue
            shape = x.shape[:axis] + (m, c) + x.shape[axis + 1 :]
            # out's run [pos, pos + m * c) split into (m, c); x's m elements, each c times
            dst_st = ost[:axis] + (c * ost[axis], ost[axis]) + ost[axis + 1 :]
            src_st = xst[:axis] + (xst[axis], 0) + xst[axis + 1 :]
            dst = out.view_of(out.offset + pos * ost[axis] * isz, shape, dst_st)
            src = x.view_of(x.offset + i0 * xst[axis] * isz, shape, src_st)
            self.ops.assign(dst, src)
            pos += m * c
        return out

    def resize(self, a: Any, new_shape: Any) -> Any:
        shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
        total = math.prod(shape)
        if a.size == 0 or total == 0:
            return self.ops.zeros(shape, a.dtype, device=a)
        flat = self.tile(a.reshape(-1), -(-total // a.size))
        return flat[:total].reshape(shape)

    _PAD_KW = {"constant": {"constant_values"}, "empty": set(), "edge": set(), "wrap": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}}  # fmt: skip

    def pad(self, x: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
        if not isinstance(mode, str) or mode not in self._PAD_KW:
            raise NotImplementedError(
                f"pad mode {mode!r} is not implemented on {self.ops.kind} yet (constant, empty, "
                "edge, wrap, reflect and symmetric are)"
            )
        extra = set(kwargs) - self._PAD_KW[mode]
        if extra:
            raise ValueError(f"unsupported keyword arguments for mode '{mode}': {extra}")
        if kwargs.get("reflect_type", "even") != "even":
            raise NotImplementedError(f"pad reflect_type='odd' is not implemented on "
                                      f"{self.ops.kind} yet")  # fmt: skip
        nd = x.ndim
        pw = _pairs(pad_width, nd, "pad_width", True)
        if mode in ("constant", "empty"):
            return self._pad_constant(x, pw, mode, kwargs.get("constant_values", 0))
        for d in range(nd):
            if x.shape[d] == 0 and pw[d].any():
                raise ValueError(f"can't extend empty axis {d} using modes other than "
                                 "'constant' or 'empty'")  # fmt: skip
        if x.size == 0:
            return self._pad_constant(x, pw, "empty", 0)
        maps = [_pad_map(mode, n, int(b), int(a)) for n, (b, a) in zip(x.shape, pw, strict=True)]
        return self._gather(x, maps)

    def _pad_constant(self, x: Any, pw: np.ndarray, mode: str, values: Any) -> Any:
        nd = x.ndim
        shape = tuple(int(n + b + a) for n, (b, a) in zip(x.shape, pw, strict=True))
        out = self._empty(x.ctx, shape, x.dtype, "pad")
        if out.size == 0:
            return out
        inner = tuple(slice(int(b), int(b) + n) for n, (b, _) in zip(x.shape, pw, strict=True))
        if mode == "constant":
            vals = _pairs(values, nd, "constant_values", False)
            if nd == 0 or (vals == vals.flat[0]).all():
                self.ops.fill(out, vals.flat[0].item() if nd else np.asarray(values).item())
            else:  # NumPy's order: axis by axis, earlier axes' pads span later axes' pads
                for d in range(nd):
                    b, a = (int(v) for v in pw[d])
                    lead = (slice(None),) * (d + 1)
                    for sl, v in ((slice(0, b), vals[d, 0]), (slice(b + x.shape[d], None),
                                                               vals[d, 1])):  # fmt: skip
                        roi = out[(*lead[:d], sl, *inner[d + 1 :])]
                        if roi.size:
                            const = self.ops.constant(x.ctx, v.item(), x.dtype)
                            self.ops.assign(roi, const)
        if x.size:
            self.ops.assign(out[inner], x)
        return out

    # -- ternary kernels -------------------------------------------------------------------------
    def _launch3(self, ctx: Any, kind: str, ins: list[Any], compute: np.dtype, out: Any) -> None:
        types = tuple(ir.type_of(a.dtype) for a in ins)
        ct, ot = ir.type_of(compute), ir.type_of(out.dtype)
        self.ops.launch_map(ctx, lambda nd: select_kernels.build(kind, types, ct, ot, nd), ins, out)

    def where(self, condition: Any, x1: Any, x2: Any) -> Any:
        native = self.ops.native
        args = (condition, x1, x2)
        arrays = [a for a in args if isinstance(a, native)]
        ctx = self._ctx(arrays, "where") if arrays else self.ops.context_for(None)
        typed = [a.dtype for a in (x1, x2) if isinstance(a, (native, np.generic))]
        scalars = [a for a in (x1, x2) if type(a) in PY_SCALARS]
        if len(typed) + len(scalars) != 2 or not (
            isinstance(condition, (native, np.generic)) or type(condition) in PY_SCALARS
        ):
            raise TypeError(f"where: operands must be arrays on {ctx.name} or Python scalars")
        if typed:
            rn = fold(typed, scalars)
        else:
            rn = np.result_type(*scalars)
        ctx.check_dtype(rn, "where")
        ins = []
        for k, a in enumerate(args):
            if isinstance(a, native):
                ins.append(a)
            else:
                v = a.item() if isinstance(a, np.generic) else a
                cdt = np.dtype(np.bool_) if k == 0 else (a.dtype if isinstance(a, np.generic)
                                                         else rn)  # fmt: skip
                ins.append(self.ops.constant(ctx, v, cdt))
        shape = np.broadcast_shapes(*(a.shape for a in ins))
        out = ctx.allocator.empty(shape, rn)
        self._launch3(ctx, "where", ins, rn, out)
        return out

    def clip(self, x: Any, min: Any = None, max: Any = None, out: Any = None,
             **kwargs: Any) -> Any:  # fmt: skip
        kwargs.pop("casting", None) if kwargs.get("casting") == "same_kind" else None
        if kwargs:
            raise NotImplementedError(f"clip: the keyword(s) {', '.join(sorted(kwargs))} are "
                                      f"not implemented on {self.ops.kind} yet")  # fmt: skip
        native = self.ops.native
        ctx = self._ctx([x, *(a for a in (min, max, out) if isinstance(a, native))], "clip")
        if out is not None and not isinstance(out, native):
            raise TypeError(f"clip: out must be an array on {ctx.name}")
        if out is not None and out.readonly:
            raise ValueError("output array is read-only")
        if min is None and max is None:
            return self.ops.copy(x) if out is None else (self.ops.assign(out, x) or out)
        kind = "clip" if min is not None and max is not None else (
            "clip_lo" if min is not None else "clip_hi")  # fmt: skip
        bounds = [b for b in (min, max) if b is not None]
        # The compute dtype is NumPy's (weak Python scalars); x's dtype is what comes back.
        compute = np.result_type(x.dtype, *(b.dtype if isinstance(b, (native, np.generic))
                                            else b for b in bounds))  # fmt: skip
        ctx.check_dtype(compute, "clip")
        ins = [x]
        for b in bounds:
            if isinstance(b, native):
                ins.append(b)
            elif isinstance(b, np.generic):
                ins.append(self.ops.constant(ctx, b.item(), b.dtype))
            elif type(b) in PY_SCALARS:
                ins.append(self.ops.constant(ctx, b, compute))
            else:
                raise TypeError(f"clip: bounds must be arrays on {ctx.name} or scalars")
        shape = np.broadcast_shapes(*(a.shape for a in ins))
        if out is None:  # NumPy broadcasts x with the bounds
            out = ctx.allocator.empty(shape, x.dtype)
        else:
            if np.broadcast_shapes(shape, out.shape) != out.shape:
                raise ValueError(f"non-broadcastable output operand with shape {out.shape} "
                                 f"doesn't match the broadcast shape {shape}")  # fmt: skip
            if not np.can_cast(x.dtype, out.dtype, "same_kind"):
                raise TypeError(f"Cannot cast clip output from {x.dtype!r} to {out.dtype!r} "
                                "with casting rule 'same_kind'")  # fmt: skip
            for k, a in enumerate(ins):
                if a.shares_memory(out) and not (a.shape == out.shape and
                                                 a._strides == out._strides and
                                                 a.offset == out.offset):  # fmt: skip
                    ins[k] = self.ops.copy(a)  # a partial overlap would race
        self._launch3(ctx, kind, ins, compute, out)
        return out

    # -- the table -------------------------------------------------------------------------------
    def library(self) -> dict[str, Callable[..., Any]]:
        names = (
            "concatenate", "stack", "vstack", "hstack", "dstack", "column_stack", "append",
            "atleast_1d", "atleast_2d", "atleast_3d", "moveaxis", "swapaxes", "unstack",
            "broadcast_arrays", "rot90", "array_split", "split", "hsplit", "vsplit", "dsplit",
            "roll", "tile", "repeat", "resize", "pad", "where", "clip",
        )  # fmt: skip
        return {n: getattr(self, n) for n in names}


def library(ops: Any) -> dict[str, Callable[..., Any]]:
    """The manipulation ops of backend ``ops`` (a ``GpuOps``) by op name."""
    return Manipulation(ops).library()


__all__ = ["Manipulation", "library"]
