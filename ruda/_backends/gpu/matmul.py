"""Matrix products of the GPU backends over the tiled kernel of ``ruda._kernels.matmul.gemm``.

``gemm`` is the core: ``(..., M, K) @ (..., K, N)`` with the stacks broadcast, any strides
(transposed views and broadcast operands are read in place: the kernel takes strides), mixed
input dtypes read and converted by the kernel. Everything else composes device kernels:
matmul (1-D operands, ``out=``), tensordot and dot (dimensions merged into matrices, copied
only when they cannot be), vecdot and inner (multiply, then the backend's sum), outer and kron
(broadcast multiplies), cross, trace and diagonal (views), the norms, matrix_power and
multi_dot. Result dtypes follow ``ruda._promotion`` as the CPU backend's NumPy does.

``Products(ops, reductions)`` binds them to a backend: its ``GpuOps`` (elementwise launches,
``run_plan``) and its ``Reductions``. ``Products.gemm`` is the helper other GPU modules call
for batched products of native arrays (the decompositions do).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._dtypes import float_info, is_half, kind_of
from ..._kernels import ir
from ..._kernels.matmul import gemm as km
from ..._kernels.matmul.defaults import key_default
from ..._kernels.tune import engine as tune
from ..._ops import OPS
from ..._promotion import promote
from . import chunking
from .layout import axis_from_last, axis_last, bstrides, collapse
from .operands import typed
from .strided import read_only_result, span

_INF = float("inf")
# Stacks of at least SMALL_COUNT products of at most SMALL_WORK multiply-adds each take the
# broadcast path (``Products._small``).
SMALL_COUNT, SMALL_WORK = 64, 512


def result_dtype(*dtypes: np.dtype, complex_ok: bool = True) -> np.dtype:
    """The promoted dtype of the operands (the standard's table, NumPy's rules across kinds);
    ``complex_ok``: the caller computes with elementwise kernels, which have complex (the
    tiled kernel has complex too: the IR lowers complex products)."""
    r = dt.from_numpy(dtypes[0])
    for d in dtypes[1:]:
        r = promote(r, dt.from_numpy(d))
    if kind_of(r._np) == "c" and not complex_ok:
        raise NotImplementedError("complex products are not implemented on this device yet")
    return r._np


def _matrix_strides(x: Any) -> tuple[int, int]:
    """The last two element strides, with those of length-1 dimensions made harmless (so a
    row or column vector counts as contiguous)."""
    r, c = x.shape[-2:]
    s0, s1 = x._strides[-2:]
    if c == 1:
        s1 = 1
    if r == 1:
        s0 = 0 if s1 == 1 else 1
    return s0, s1


def _merged(x: Any, groups: list[list[int]]) -> Any:
    """``x`` with each group of consecutive axes merged into one: a view when strides allow,
    else a contiguous copy reshaped."""
    shape, strides = [], []
    for g in groups:
        n = math.prod(x.shape[i] for i in g)
        dims = [i for i in g if x.shape[i] != 1]
        st = x._strides[dims[-1]] if dims else 1
        for a, b in zip(dims, dims[1:], strict=False):
            if x._strides[a] != x._strides[b] * x.shape[b]:
                return x.copy().reshape(tuple(math.prod(x.shape[i] for i in g) for g in groups))
        shape.append(n)
        strides.append(st)
    return x.view_of(x.offset, tuple(shape), tuple(strides))


@lru_cache(maxsize=1024)
def _plan(types: tuple[ir.Type, ...], pr: km.Problem, variant: tuple[tuple[str, Any], ...]) -> Any:
    """``km.plan``, kept: a product repeated (a decoding loop) skips rebuilding its launches."""
    return km.plan(*types, pr, dict(variant))


class Products:
    """The matrix products of one GPU backend (its ``GpuOps`` and ``Reductions``)."""

    def __init__(self, ops: Any, reductions: Any, variant: dict[str, Any] | None = None) -> None:
        self.ops = ops
        self.red = reductions
        self.variant = variant or {}  # overrides every decision (tests)
        self._decided = tune.hot_memo()  # launch key -> stored decision or None
        km.register_tuning()
        tune.set_backend_default("matmul", ops.kind, key_default)

    # -- helpers -------------------------------------------------------------------------------
    def _sum(self, x: Any, axis: Any, dtype: Any = None, keepdims: bool = False) -> Any:
        return self.red.reducer("sum")(x, axis=axis, dtype=dtype, keepdims=keepdims)

    def _apply(self, name: str, *args: Any, out: Any = None) -> Any:
        return self.ops.apply(OPS[name], args, out)

    def _base(self, x: Any) -> tuple[Any, int]:
        """A 1-D view from the allocation's start up to ``x``'s last element, and ``x``'s
        offset in elements: kernels take offsets and strides as parameters."""
        isz = x.dtype.itemsize
        if x.offset % isz:
            x = self.ops.copy(x)
        lo, hi = span(x.offset, x.shape, x._strides, isz) if x.size else (x.offset, x.offset + isz)
        start = 0
        limit = chunking.limit_of(x.ctx)
        if limit is not None and hi > limit:  # from an aligned start: a window that may fit
            start = chunking.window(x, x.ctx.storage_align)[0] if x.size else lo
        return x.view_of(start, (-(-(hi - start) // isz),), (1,)), (x.offset - start) // isz

    def _lookup(self, ctx: Any, op: str, fname: str, why: str) -> Callable[..., Any]:
        from ..._devices import Device
        from ..._dispatch import lookup

        try:
            return lookup(op, Device(ctx.name))
        except NotImplementedError:
            raise NotImplementedError(
                f"ruda.{fname}: {why} needs {op}, which is not implemented on {ctx.name} yet"
            ) from None

    # -- the core ------------------------------------------------------------------------------
    def gemm(self, a: Any, b: Any, out_dtype: Any = None, out: Any = None) -> Any:
        """``a @ b`` for stacks ``a (..., M, K)`` and ``b (..., K, N)`` (batch dimensions
        broadcast, any strides and dtypes) into a new C-ordered array of ``out_dtype`` (the
        promoted dtype by default), or into ``out`` (C-ordered, that shape and dtype)."""
        ctx = a.ctx
        r = np.dtype(out_dtype) if out_dtype is not None else result_dtype(a.dtype, b.dtype)
        for d in (a.dtype, b.dtype, r):
            ctx.check_dtype(d, "matmul")
        M, K = a.shape[-2:]
        N = b.shape[-1]
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
        y = ctx.allocator.empty((*batch, M, N), r) if out is None else out
        if y.size == 0:
            return y
        if math.prod(batch) >= SMALL_COUNT and M * N * K <= SMALL_WORK:
            return self._small(a, b, r, y)
        full = (*batch, 1, 1)
        ab = bstrides(a, (*batch, *a.shape[-2:]))[: len(batch)]
        bb = bstrides(b, (*batch, *b.shape[-2:]))[: len(batch)]
        yb = y._strides[: len(batch)]
        cshape, (ab, bb, _) = collapse(full[:-2], [ab, bb, yb]) if batch else ((), [(), (), ()])
        base_a, off_a = self._base(a)
        base_b, off_b = self._base(b)
        base_y, off_y = self._base(y)
        if chunking.too_big(ctx, base_a, base_b, base_y):  # more than one binding: in parts
            return self._split(a, b, r, y, (base_a, base_b, base_y))
        pr = km.Problem(M, N, K, tuple(cshape), tuple(ab), tuple(bb), _matrix_strides(a),
                        _matrix_strides(b), off_a, off_b, off_y)  # fmt: skip
        types = tuple(ir.type_of(d) for d in (a.dtype, b.dtype, r))
        p = _plan(types, pr, tuple(self.decided(ctx, types, pr).items()))
        self.ops.run_plan(ctx, p, {"a": base_a, "b": base_b, "out": base_y})
        return y

    def _split(self, a: Any, b: Any, r: np.dtype, y: Any, bases: tuple[Any, ...]) -> Any:
        """``gemm`` into ``y`` when an operand's window exceeds one binding, as two products:
        halves of the dimension that spans the most bytes of an oversized operand (a stack
        dimension, M: rows of ``a`` and ``y``, N: columns of ``b`` through a temporary, or K:
        the second partial product added to the first)."""
        limit = chunking.limit_of(y.ctx)
        *batch, M, N = y.shape
        K = a.shape[-1]
        nb = len(batch)
        a = a.view_of(a.offset, (*batch, M, K), bstrides(a, (*batch, M, K)))
        b = b.view_of(b.offset, (*batch, K, N), bstrides(b, (*batch, K, N)))
        spans: dict[Any, int] = {}  # dimension -> the most bytes it spans in an oversized operand
        for x, base, names in ((a, bases[0], "MK"), (b, bases[1], "KN"), (y, bases[2], "MN")):
            if base.nbytes > limit:
                for name, n, st in zip((*range(nb), *names), x.shape, x._strides, strict=True):
                    if n > 1:
                        c = (n - 1) * abs(st) * x.dtype.itemsize
                        spans[name] = max(spans.get(name, 0), c)
        if not spans:
            raise ValueError(f"ruda.matmul: one element does not fit a binding of {limit} bytes")
        dim = max(spans, key=spans.__getitem__)
        every = (slice(None),) * nb
        if dim == "M":  # y's rows keep their stride: y's halves are still products' outputs
            h = M // 2
            for part in (slice(0, h), slice(h, None)):
                self.gemm(a[(*every, part)], b, r, y[(*every, part)])
        elif dim == "N":
            h = N // 2
            for part in (slice(0, h), slice(h, None)):
                cols = (*every, slice(None), part)
                self.ops.assign(y[cols], self.gemm(a, b[cols], r))
        elif dim == "K":
            h = K // 2
            first, second = slice(0, h), slice(h, None)
            self.gemm(a[(*every, slice(None), first)], b[(*every, first)], r, y)
            rest = self.gemm(a[(*every, slice(None), second)], b[(*every, second)], r)
            self._apply("add", y, rest, out=y)
        else:  # a stack dimension
            h, lead = batch[dim] // 2, (slice(None),) * dim
            for part in (slice(0, h), slice(h, None)):
                key = (*lead, part)
                self.gemm(a[key], b[key], r, y[key])
        return y

    def decided(self, ctx: Any, types: tuple[ir.Type, ...], pr: km.Problem) -> dict[str, Any]:
        """The variant for this product on ``ctx``: the test override, a stored tuning
        decision (key ``matmul``, dtypes, operand layouts, ``(batch, M, N, K)``), else the
        kernel's heuristic."""
        if self.variant:
            return self.variant
        sa, sb = pr.strides()
        lay = "".join("t" if km.layout(st) == "t" else "n" for st in (sa, sb))
        hk = (types, lay, pr.count, pr.M, pr.N, pr.K, ctx)
        v = self._decided.get(hk, False)
        if v is False:
            key = tune.Key("matmul", tuple(t.name for t in types), lay,
                           (pr.count, pr.M, pr.N, pr.K))  # fmt: skip
            tuner = getattr(self.ops, "tuner", None)
            v = None if tuner is None else tuner.decision("matmul", key, ctx)
            if len(self._decided) > 4096:  # many shapes: start over
                self._decided.clear()
            self._decided[hk] = v
        return {} if v is None else v

    def _small(self, a: Any, b: Any, r: np.dtype, y: Any) -> Any:
        """Many tiny products: one broadcast multiply ``(..., M, N, K)`` and a sum over K (a
        workgroup per product would idle); 16-bit floats multiply in float32, as the kernel does."""
        if is_half(r):
            a, b = self.ops.astype(a, np.float32), self.ops.astype(b, np.float32)
        x = a.view_of(a.offset, (*a.shape[:-1], 1, a.shape[-1]),
                      (*a._strides[:-1], 0, a._strides[-1]))  # fmt: skip
        bt = b.mT
        z = bt.view_of(bt.offset, (*bt.shape[:-2], 1, *bt.shape[-2:]),
                       (*bt._strides[:-2], 0, *bt._strides[-2:]))  # fmt: skip
        p = self._apply("multiply", x, z)
        s = self._sum(p, p.ndim - 1, np.float32 if is_half(r) else r)
        self.ops.assign(y, s)
        return y

    # -- matmul, tensordot, dot, vecdot, inner, vdot -------------------------------------------
    def matmul(self, a: Any, b: Any, out: Any = None, **kwargs: Any) -> Any:
        """NumPy's matmul: 1-D operands promoted to matrices (their dimension removed after),
        the stacks broadcast; ``out=`` of the result's shape (cast same_kind)."""
        if kwargs:
            names = ", ".join(sorted(kwargs))
            raise NotImplementedError(f"matmul: the keyword(s) {names} are not implemented on "
                                      f"{self.ops.kind} yet")  # fmt: skip
        if a.ctx is not b.ctx:
            from .ops import mixed

            raise mixed(a.ctx, b.ctx)
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError("matmul: operands must be at least 1-D, got a 0-d array")
        r = result_dtype(a.dtype, b.dtype)
        a1, b1 = a.ndim == 1, b.ndim == 1
        if a1:
            a = a.view_of(a.offset, (1, a.shape[0]), (0, a._strides[0]))
        if b1:
            b = b.view_of(b.offset, (b.shape[0], 1), (b._strides[0], 0))
        if b.shape[-2] != a.shape[-1]:
            raise ValueError(
                "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
                f"signature (n?,k),(k,m?)->(n?,m?) (size {b.shape[-2]} is different from "
                f"{a.shape[-1]})"
            )
        batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
        M, N = a.shape[-2], b.shape[-1]
        shape = (*batch, *(() if a1 else (M,)), *(() if b1 else (N,)))
        if out is None:
            return self.gemm(a, b, r).reshape(shape)
        if out.shape != shape:
            raise ValueError(f"matmul: out has shape {out.shape}, the result {shape}")
        if not np.can_cast(r, out.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc 'matmul' output from {r!r} to {out.dtype!r} "
                            "with casting rule 'same_kind'")  # fmt: skip
        direct = (out.dtype == r and out.is_contiguous and not out.shares_memory(a)
                  and not out.shares_memory(b))  # fmt: skip
        if direct:
            self.gemm(a, b, r, out.view_of(out.offset, (*batch, M, N),
                                           (*out._strides[: len(batch)], N, 1)))  # fmt: skip
        else:
            self.ops.assign(out, self.gemm(a, b, r).reshape(shape))
        return out

    def tensordot(self, a: Any, b: Any, axes: Any = 2) -> Any:
        """Contract ``axes`` of ``a`` and ``b``: one product of the merged free and contracted
        dimensions (views where the strides allow)."""
        if isinstance(axes, (int, np.integer)):
            n = int(axes)
            ax_a, ax_b = list(range(a.ndim - n, a.ndim)), list(range(n))
        else:
            ax_a = [int(i) % a.ndim for i in axes[0]]
            ax_b = [int(i) % b.ndim for i in axes[1]]
        for i, j in zip(ax_a, ax_b, strict=True):
            if a.shape[i] != b.shape[j]:
                raise ValueError("tensordot: shape-mismatch for sum")
        free_a = [i for i in range(a.ndim) if i not in ax_a]
        free_b = [i for i in range(b.ndim) if i not in ax_b]
        at = a.transpose(tuple(free_a + ax_a))
        bt = b.transpose(tuple(ax_b + free_b))
        na, nb = len(free_a), len(ax_b)
        am = _merged(at, [list(range(na)), list(range(na, at.ndim))])
        bm = _merged(bt, [list(range(nb)), list(range(nb, bt.ndim))])
        y = self.gemm(am, bm)
        return y.reshape(tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))

    def dot(self, a: Any, b: Any, out: Any = None) -> Any:
        """NumPy's dot: a product for 0-d, matmul up to 2-D (and N-D with 1-D), else the sum
        over the last axis of ``a`` and the second-to-last of ``b``."""
        if a.ndim == 0 or b.ndim == 0:
            return self._apply("multiply", a, b, out=out)
        if b.ndim <= 2 and a.ndim <= 2 or b.ndim == 1:
            return self.matmul(a, b, out=out)
        y = self.tensordot(a, b, ([a.ndim - 1], [b.ndim - 2]))
        if out is None:
            return y
        if out.shape != y.shape or out.dtype != y.dtype:
            raise ValueError("output array is not acceptable (must have the right datatype, "
                             "number of dimensions, and be a C-Array)")  # fmt: skip
        self.ops.assign(out, y)
        return out

    def vecdot(self, a: Any, b: Any, axis: int = -1, conj: bool = True) -> Any:
        """Sum over ``axis`` of ``conj(a) * b`` (the other dimensions broadcast)."""
        r = result_dtype(a.dtype, b.dtype, complex_ok=True)
        nd = max(a.ndim, b.ndim)
        ax = axis % nd
        if conj and r.kind == "c" and kind_of(a.dtype) == "c":
            a = self._apply("conj", a)  # the standard conjugates x1
        p = self._apply("multiply", a, b)
        return self._sum(p, axis=ax, dtype=r)

    def inner(self, a: Any, b: Any) -> Any:
        """Sum over the last axes of ``a`` and ``b`` (NumPy's inner; 0-d: a product)."""
        if a.ndim == 0 or b.ndim == 0:
            return self._apply("multiply", a, b)
        if a.shape[-1] != b.shape[-1]:
            raise ValueError("inner: shapes not aligned: the last dimensions differ "
                             f"({a.shape[-1]} and {b.shape[-1]})")  # fmt: skip
        if a.ndim == 1 and b.ndim == 1:
            return self.vecdot(a, b, conj=False)
        return self.tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))

    def vdot(self, a: Any, b: Any) -> Any:
        """Dot product of the flattened arrays."""
        if a.size != b.size:
            raise ValueError("vdot: cannot reshape array: the operands have different sizes")
        return self.vecdot(a.reshape(-1), b.reshape(-1))

    # -- outer, kron, cross --------------------------------------------------------------------
    def outer(self, a: Any, b: Any, out: Any = None) -> Any:
        """``a.ravel()[:, None] * b.ravel()[None, :]`` (one broadcast multiply)."""
        x, y = a.reshape(-1), b.reshape(-1)
        x = x.view_of(x.offset, (x.size, 1), (x._strides[0], 0))
        y = y.view_of(y.offset, (1, y.size), (0, y._strides[0]))
        return self._apply("multiply", x, y, out=out)

    def kron(self, a: Any, b: Any) -> Any:
        """The Kronecker product: one broadcast multiply of interleaved axes, then a reshape."""
        nd = max(a.ndim, b.ndim)
        sa = (1,) * (nd - a.ndim) + a.shape
        sb = (1,) * (nd - b.ndim) + b.shape
        x = a.reshape(sa).reshape(tuple(v for n in sa for v in (n, 1)))
        y = b.reshape(sb).reshape(tuple(v for n in sb for v in (1, n)))
        p = self._apply("multiply", x, y)
        return p.reshape(tuple(m * n for m, n in zip(sa, sb, strict=True)))

    def cross(self, a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
              axis: int | None = None) -> Any:  # fmt: skip
        """Cross products of 3-vectors along ``axisa``/``axisb``, the result's along ``axisc``."""
        if axis is not None:
            axisa = axisb = axisc = axis
        x = axis_last(a, axisa % a.ndim)
        y = axis_last(b, axisb % b.ndim)
        if x.shape[-1] != 3 or y.shape[-1] != 3:
            raise ValueError("incompatible dimensions for cross product (dimension must be 3)")
        lead = tuple(np.broadcast_shapes(x.shape[:-1], y.shape[:-1]))
        r = result_dtype(a.dtype, b.dtype)
        if r == np.bool_:
            raise TypeError("cross: boolean operands have no subtract (NumPy raises as well)")
        out = a.ctx.allocator.empty((*lead, 3), r)
        for i in range(3):
            j, k = (i + 1) % 3, (i + 2) % 3
            t = self._apply("multiply", x[..., j], y[..., k])
            u = self._apply("multiply", x[..., k], y[..., j])
            self._apply("subtract", t, u, out=out[..., i])
        return axis_from_last(out, axisc % out.ndim)

    # -- diagonal, trace -----------------------------------------------------------------------
    def diagonal(self, x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
        """The diagonal over ``axis1``, ``axis2`` as the last axis of a view (writeable here,
        for the kernels' own use; the library's ``diagonal`` is read-only, as NumPy's)."""
        a1, a2 = axis1 % x.ndim, axis2 % x.ndim
        if a1 == a2:
            raise ValueError("diagonal: axis1 and axis2 cannot be the same")
        n1, n2 = x.shape[a1], x.shape[a2]
        s1, s2 = x._strides[a1], x._strides[a2]
        off = x.offset
        if offset >= 0:
            n = max(0, min(n1, n2 - offset))
            if n:
                off += offset * s2 * x.dtype.itemsize
        else:
            n = max(0, min(n1 + offset, n2))
            if n:
                off += -offset * s1 * x.dtype.itemsize
        keep = [d for d in range(x.ndim) if d not in (a1, a2)]
        shape = (*(x.shape[d] for d in keep), n)
        strides = (*(x._strides[d] for d in keep), s1 + s2)
        return x.view_of(off, shape, strides)

    def linalg_diagonal(self, x: Any, offset: int = 0) -> Any:
        return self.diagonal(x, offset, -2, -1)

    def trace(self, x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
              out: Any = None) -> Any:  # fmt: skip
        """Sum of the diagonal (NumPy's accumulation dtypes: the sum's)."""
        d = self.diagonal(x, offset, axis1, axis2)
        return self.red.reducer("sum")(d, axis=d.ndim - 1, dtype=dtype, out=out)

    # -- norms ---------------------------------------------------------------------------------
    def _float(self, x: Any) -> Any:
        """``x`` as floats (NumPy's norms convert integers and bool to float64; complex stays)."""
        return x if kind_of(x.dtype) in "fc" else self.ops.astype(x, np.float64)

    def vector_norm(self, x: Any, axis: Any = None, keepdims: bool = False,
                    ord: float = 2) -> Any:  # fmt: skip
        """``sum(|x|**ord) ** (1/ord)`` over ``axis``; max/min for ±inf, a count for 0."""
        x = self._float(x)
        if axis is not None and not isinstance(axis, (int, np.integer)):
            axis = tuple(int(a) % max(x.ndim, 1) for a in axis)
        ord = float(ord)
        if ord == 0:  # the number of nonzero elements, as a float
            nz = self._apply("not_equal", x, typed(0, x))
            real = float_info(x.dtype).dtype  # complex norms are real
            return self.ops.astype(self._sum(nz, axis, real, keepdims), real)
        ax = self._apply("abs", x)
        if ord == _INF:  # NumPy's max starts from 0: an empty vector's norm is 0
            return self.red.reducer("max")(ax, axis=axis, keepdims=keepdims, initial=0)
        if ord == -_INF:
            return self.red.reducer("min")(ax, axis=axis, keepdims=keepdims)
        if ord == 1:
            return self._sum(ax, axis, keepdims=keepdims)
        if ord == 2:
            s = self._sum(self._apply("multiply", ax, ax), axis, keepdims=keepdims)
            return self._apply("sqrt", s, out=s)
        s = self._sum(self._apply("pow", ax, typed(ord, ax)), axis, keepdims=keepdims)
        return self._apply("pow", s, typed(1.0 / ord, s), out=s)

    def matrix_norm(self, x: Any, keepdims: bool = False, ord: Any = "fro") -> Any:
        """Norms over the last two axes: 'fro', ±1 and ±inf here; 'nuc' and ±2 from the
        singular values (``linalg.svdvals``, where the device has it)."""
        x = self._float(x)
        nd = x.ndim
        if ord == "fro":
            r = self.vector_norm(x, (nd - 2, nd - 1), keepdims, 2)
        elif ord in (1, -1, _INF, -_INF):
            along, across = (nd - 2, nd - 1) if ord in (1, -1) else (nd - 1, nd - 2)
            s = self._sum(self._apply("abs", x), along, keepdims=True)
            pick = self.red.reducer("max" if ord > 0 else "min")
            r = pick(s, axis=across, keepdims=True, **({"initial": 0} if ord > 0 else {}))
            if not keepdims:
                r = r.reshape(x.shape[:-2])
        elif ord in ("nuc", 2, -2):
            svdvals = self._lookup(x.ctx, "linalg.svdvals", "linalg.matrix_norm",
                                   f"ord={ord!r} (from the singular values)")  # fmt: skip
            sv = svdvals(x)
            red = {"nuc": "sum", 2: "max", -2: "min"}[ord]
            # the largest of no singular values is 0 (NumPy's empty norm), as for ord=inf
            r = self.red.reducer(red)(sv, axis=sv.ndim - 1, **({"initial": 0} if ord == 2 else {}))
            if keepdims:
                r = r.reshape((*x.shape[:-2], 1, 1))
        else:
            raise ValueError(f"linalg.matrix_norm: invalid norm order {ord!r}")
        return r

    def norm(self, x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
        """NumPy's linalg.norm: vector norms over one axis, matrix norms over two."""
        nd = x.ndim
        if axis is None:
            if ord is None:
                return self.vector_norm(x, None, keepdims, 2)
            if nd == 1:
                return self.vector_norm(x, None, keepdims, ord)
            if nd == 2:
                return self.norm(x, ord, (0, 1), keepdims)
            raise ValueError("Improper number of dimensions to norm.")
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        axes = tuple(int(a) % nd for a in axes)
        if len(axes) == 1:
            if isinstance(ord, str):
                raise ValueError(f"Invalid norm order '{ord}' for vectors")
            return self.vector_norm(x, axes[0], keepdims, 2 if ord is None else ord)
        r_ax, c_ax = axes
        if r_ax == c_ax:
            raise ValueError("Duplicate axes given.")
        rest = [d for d in range(nd) if d not in axes]
        m = x.transpose((*rest, r_ax, c_ax))
        r = self.matrix_norm(m, False, "fro" if ord is None else ord)
        if keepdims:
            shape = list(x.shape)
            shape[r_ax] = shape[c_ax] = 1
            r = r.reshape(tuple(shape))
        return r

    # -- matrix_power, multi_dot ---------------------------------------------------------------
    def matrix_power(self, x: Any, n: int) -> Any:
        """``x`` multiplied by itself ``n`` times (binary powers); 0 gives identities, negative
        powers invert first (``linalg.inv``, where the device has it)."""
        n = operator.index(n)
        if x.shape[-1] != x.shape[-2]:
            raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
        if n == 0:
            eye = self.ops.fill(x.ctx.allocator.empty(x.shape, x.dtype), 0)
            self.ops.assign(self.diagonal(eye, 0, -2, -1), 1)
            return eye
        if n < 0:
            inv = self._lookup(x.ctx, "linalg.inv", "linalg.matrix_power", "a negative power")
            x, n = inv(x), -n
        if n == 1:
            return x
        result, square = None, x
        while True:
            if n & 1:
                result = square if result is None else self.gemm(result, square)
            n >>= 1
            if not n:
                return result
            square = self.gemm(square, square)

    def multi_dot(self, arrays: Sequence[Any], out: Any = None) -> Any:
        """The product of a chain of matrices in the cheapest order (1-D ends as vectors)."""
        xs = list(arrays)
        if len(xs) < 2:
            raise ValueError("Expecting at least two arrays.")
        first, last = xs[0].ndim == 1, xs[-1].ndim == 1
        if first:
            xs[0] = xs[0].reshape((1, xs[0].shape[0]))
        if last:
            xs[-1] = xs[-1].reshape((xs[-1].shape[0], 1))
        if any(m.ndim != 2 for m in xs):
            raise ValueError("multi_dot: every array but the first and last must be 2-D")
        dims = [xs[0].shape[0]] + [m.shape[1] for m in xs]
        split = _chain_order(dims)

        def product(i: int, j: int) -> Any:
            if i == j:
                return xs[i]
            k = split[i][j]
            return self.matmul(product(i, k), product(k + 1, j))

        y = product(0, len(xs) - 1)
        shape = (*(() if first else (dims[0],)), *(() if last else (dims[-1],)))
        y = y.reshape(shape)
        if out is not None:
            self.ops.assign(out, y)
            return out
        return y

    # -- the op table's rows -------------------------------------------------------------------
    def library(self) -> dict[str, Callable[..., Any]]:
        return {
            "matmul": self.matmul, "tensordot": self.tensordot, "vecdot": self.vecdot,
            "dot": self.dot, "inner": self.inner, "vdot": self.vdot, "outer": self.outer,
            "kron": self.kron, "cross": self.cross, "trace": self.trace,
            "diagonal": read_only_result(self.diagonal), "linalg.outer": self.outer,
            "linalg.diagonal": read_only_result(self.linalg_diagonal),
            "linalg.vector_norm": self.vector_norm,
            "linalg.matrix_norm": self.matrix_norm, "linalg.norm": self.norm,
            "linalg.matrix_power": self.matrix_power, "linalg.multi_dot": self.multi_dot,
        }  # fmt: skip


def _chain_order(dims: list[int]) -> list[list[int]]:
    """The split points of the cheapest parenthesisation of a matrix chain (textbook DP)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


__all__ = ["Products", "result_dtype"]
