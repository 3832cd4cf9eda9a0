"""What the GPU backends' linalg ops share: working copies, launch plans, failure flags, and
the compositions on top of an SVD and an inverse: pinv, matrix_rank, cond, matrix_norm, lstsq.

``LinalgBase`` holds them; a backend's linalg object subclasses it and supplies ``svd`` and
``inv`` (wgpu: ``linalg_decomp.LinalgDecomp``, ruda's own kernels; cuda: cuSOLVER). The
compositions run ruda's kernels (``ruda._kernels.linalg.from_svd``): the pseudo-inverse
product with NumPy's cutoff, singular-value summaries and counts, a small batched product.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._dtypes import float_info, is_half, kind_of
from ..._kernels import ir
from ..._kernels.linalg import from_svd as kc
from ..._kernels.reduce import Launch, Plan
from ..._ops import OPS
from . import views
from .operands import typed

LinAlgError = np.linalg.LinAlgError


WORK_DTYPES = ("float32", "float64", "complex64", "complex128")


def work_dtype(d: Any, fname: str) -> np.dtype:
    """The working dtype: float32/64 and complex64/128 as they are, integers and bool as
    float64.

    >>> work_dtype(np.dtype("int8"), "inv"), work_dtype(np.dtype("complex64"), "inv")
    (dtype('float64'), dtype('complex64'))
    """
    d = np.dtype(getattr(d, "dtype", d))
    if kind_of(d) in "biu":
        return np.dtype(np.float64)
    if d.name not in WORK_DTYPES:
        raise TypeError(f"ruda.linalg.{fname}: array type {d} is unsupported in linalg")
    return d


def real_dtype(d: Any) -> np.dtype:
    """The real dtype of a working dtype's values' parts (norms, singular values)."""
    return np.dtype(float_info(np.dtype(d)).dtype)


class Plans:
    """Launch lists over named arrays, run through the backend's ``ops.run_plan``."""

    def __init__(self, ops: Any) -> None:
        self.ops = ops
        self.plan = Plan()
        self.arrays: dict[str, Any] = {}

    def add(
        self, kernel: ir.Kernel, arrays: dict[str, Any], params: tuple[int, ...], groups: int
    ) -> None:
        names = []
        for buf in kernel.buffers:
            x = arrays[buf.name]
            key = f"a{id(x)}"
            self.arrays[key] = x
            names.append(key)
        self.plan.launches.append(Launch(kernel, tuple(names), params, max(groups, 1)))

    def run(self, ctx: Any) -> None:
        if self.plan.launches:
            self.ops.run_plan(ctx, self.plan, self.arrays)
        self.plan, self.arrays = Plan(), {}


class LinalgBase:
    """Helpers and compositions over one GPU backend (``ops``: its GpuOps; ``red``: its
    reductions); subclasses supply ``svd`` and ``inv``."""

    def __init__(self, ops: Any, red: Any) -> None:
        self.ops, self.red = ops, red

    # -- helpers ---------------------------------------------------------------------------
    def _new(self, ctx: Any, shape: tuple[int, ...], dtype: Any) -> Any:
        return ctx.allocator.empty(tuple(shape), np.dtype(dtype))

    def _zeros(self, ctx: Any, shape: tuple[int, ...], dtype: Any) -> Any:
        return self.ops.fill(self._new(ctx, shape, dtype), 0)

    def _work(self, x: Any, r: np.dtype, fname: str) -> Any:
        """A fresh contiguous copy of ``x`` as ``r`` (the kernels overwrite it)."""
        x.ctx.check_dtype(r, f"linalg.{fname}")
        return self.ops.astype(x, r, copy=True)

    def _raise_if(self, info: Any, what: str, fname: str) -> None:
        if info.size and info.to_host().any():  # one read-back: the only host wait
            raise LinAlgError(f"ruda.linalg.{fname}: {what}")

    def _eye(self, ctx: Any, lead: tuple[int, ...], n: int, cols: int, r: np.dtype) -> Any:
        """Stacked (n x cols) identities (empty factorizations' Q, U, V^T)."""
        out = self._zeros(ctx, (*lead, n, cols), r)
        k = min(n, cols)
        if out.size and k:
            diag = out.view_of(out.offset, (*lead, k), (*out._strides[:-2], cols + 1))
            self.ops.assign(diag, 1)
        return out

    def svd(self, x: Any, full_matrices: bool = True, compute_uv: bool = True,
            hermitian: bool = False, fname: str = "svd") -> Any:  # fmt: skip
        raise NotImplementedError

    def inv(self, x: Any) -> Any:
        raise NotImplementedError

    def svdvals(self, x: Any) -> Any:
        return self.svd(x, compute_uv=False, fname="svdvals")

    # -- compositions --------------------------------------------------------------------------
    def _per_matrix(self, ctx: Any, value: Any, lead: tuple[int, ...], r: np.dtype) -> Any:
        """``value`` (a number or a native array broadcasting to ``lead``) as a contiguous stack."""
        if isinstance(value, self.ops.native):
            return self.ops.astype(views.broadcast_to(value, lead), r, copy=True)
        return self.ops.fill(self._new(ctx, lead, r), float(value))

    def pinv(self, x: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Any:
        r = work_dtype(x, "pinv")
        ctx = x.ctx
        m, n = x.shape[-2:]
        lead = x.shape[:-2]
        if x.size == 0:
            return self._zeros(ctx, (*lead, n, m), r)
        tol = rcond if rcond is not None else rtol
        if tol is None:
            tol = max(m, n) * float(float_info(r).eps)
        u, s, vh = self.svd(x, False, True, hermitian, "pinv")
        k = s.shape[-1]
        batch = math.prod(lead)
        out = self._new(ctx, (*lead, n, m), r)
        p = Plans(self.ops)
        cut = self._per_matrix(ctx, tol, lead, real_dtype(r))
        arrays = {"u": u, "s": s, "vh": vh, "tol": cut, "out": out}
        p.add(kc.pinv_product(ir.type_of(r)), arrays, (batch, m, n, k), -(-batch * n * m // kc.WG))
        p.run(ctx)
        return out

    def _rank(self, s: Any, tol: Any, relative: bool, lead: tuple[int, ...]) -> Any:
        ctx, k = s.ctx, s.shape[-1]
        batch = math.prod(lead)
        out = self._new(ctx, lead, np.int64)
        if batch == 0:
            return out
        if k == 0:
            return self.ops.fill(out, 0)
        p = Plans(self.ops)
        arrays = {"s": s, "tol": self._per_matrix(ctx, tol, lead, s.dtype), "out": out}
        p.add(kc.count_above(ir.type_of(s.dtype), relative), arrays, (batch, k), -(-batch // kc.WG))
        p.run(ctx)
        return out

    def matrix_rank(
        self, x: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None
    ) -> Any:
        if x.ndim < 2:  # NumPy: a vector (or scalar) has rank 1 unless it is all zeros
            nz = self.ops.apply(OPS["not_equal"], (x, typed(0, x)))
            return self.ops.astype(self.red.library()["any"](nz), np.int64)
        s = self.svdvals(x)
        m, n = x.shape[-2:]
        if tol is not None:
            return self._rank(s, tol, False, x.shape[:-2])
        if rtol is None:
            rtol = max(m, n) * float(float_info(s.dtype).eps)
        return self._rank(s, rtol, True, x.shape[:-2])

    def _summary(self, x: Any, what: str, fname: str) -> Any:
        s = self.svdvals(x)
        lead, k = s.shape[:-1], s.shape[-1]
        batch = math.prod(lead)
        out = self._new(s.ctx, lead, s.dtype)
        if batch == 0 or k == 0:
            if batch and what == "min":  # NumPy's min over no singular values
                raise ValueError(
                    "zero-size array to reduction operation minimum which has no identity"
                )
            return out if batch == 0 else self.ops.fill(out, 0)
        p = Plans(self.ops)
        p.add(
            kc.sv_summary(ir.type_of(s.dtype), what),
            {"s": s, "out": out},
            (batch, k),
            -(-batch // kc.WG),
        )
        p.run(s.ctx)
        return out

    def matrix_norm(self, x: Any, keepdims: bool = False, ord: Any = "fro") -> Any:
        # NumPy takes float16 where no decomposition is needed (sums of |x|), in float16
        half = is_half(x.dtype) and ord not in (2, -2, "nuc")
        r = x.dtype if half else work_dtype(x, "matrix_norm")
        ops, lib = self.ops, self.red.library()
        if ord in (2, -2, "nuc"):
            res = self._summary(x, {2: "max", -2: "min", "nuc": "sum"}[ord], "matrix_norm")
        else:
            y = ops.astype(x, r) if x.dtype != r else x
            if kind_of(y.dtype) == "c":  # every other norm is one of |x|
                y = ops.apply(OPS["abs"], (y,))
            if ord == "fro":
                res = ops.apply(
                    OPS["sqrt"],
                    (
                        lib["sum"](
                            ops.apply(OPS["multiply"], (y, y)), axis=(-2 % y.ndim, -1 % y.ndim)
                        ),
                    ),
                )
            else:
                inner = -2 if ord in (1, -1) else -1
                pick = "max" if ord in (1, float("inf")) else "min"
                sums = lib["sum"](ops.apply(OPS["abs"], (y,)), axis=inner % y.ndim)
                # NumPy's max here starts from 0: an empty matrix's norm is 0, not an error
                res = lib[pick](
                    sums, axis=sums.ndim - 1, **({"initial": 0} if pick == "max" else {})
                )
        return res.reshape((*x.shape[:-2], 1, 1)) if keepdims else res

    def cond(self, x: Any, p: Any = None) -> Any:
        if x.size == 0:  # as NumPy: no condition number of no matrix
            raise LinAlgError("ruda.linalg.cond: cond is not defined on empty arrays")
        if p in (None, 2, -2):
            return self._summary(x, "iratio" if p == -2 else "ratio", "cond")
        # Note: a singular matrix raises LinAlgError here; NumPy returns inf.
        a = self.matrix_norm(x, ord=p)
        b = self.matrix_norm(self.inv(x), ord=p)
        return self.ops.apply(OPS["multiply"], (a, b))

    def lstsq(self, a: Any, b: Any, rcond: Any = None) -> tuple[Any, Any, Any, Any]:
        r = work_dtype(np.result_type(work_dtype(a, "lstsq"), work_dtype(b, "lstsq")), "lstsq")
        ctx = a.ctx
        m, n = a.shape
        vec = b.ndim == 1
        if b.shape[0] != m:
            raise LinAlgError(f"ruda.linalg.lstsq: b of shape {b.shape} does not match a {a.shape}")
        bm = self._work(b.reshape(m, 1) if vec else b, r, "lstsq")
        af = self._work(a, r, "lstsq")
        if rcond is None:
            rcond = max(m, n) * float(float_info(r).eps)
        s = self.svdvals(af)
        rank = self._rank(s, rcond, True, ())
        xs = self._gemm(self.pinv(af, rcond), bm)
        resid = self._new(ctx, (0,), real_dtype(r))
        if int(rank.to_host()) == n and m > n:  # NumPy: residuals only for full-rank tall a
            diff = self.ops.apply(OPS["subtract"], (bm, self._gemm(af, xs)))
            if kind_of(diff.dtype) == "c":  # |diff|^2: real residuals, as NumPy's
                diff = self.ops.apply(OPS["abs"], (diff,))
            resid = self.red.library()["sum"](self.ops.apply(OPS["multiply"], (diff, diff)), axis=0)
        return (xs.reshape(n) if vec else xs), resid, rank, s

    def _gemm(self, a: Any, b: Any) -> Any:
        (m, k), n = a.shape, b.shape[-1]
        out = self._new(a.ctx, (m, n), a.dtype)
        if out.size == 0:
            return out
        p = Plans(self.ops)
        p.add(
            kc.gemm(ir.type_of(a.dtype)),
            {"a": self.ops.copy(a), "b": self.ops.copy(b), "c": out},
            (1, m, n, k),
            -(-m * n // kc.WG),
        )
        p.run(a.ctx)
        return out

    COMPOSED = ("pinv", "matrix_rank", "matrix_norm", "cond", "lstsq")

    def library(self) -> dict[str, Any]:
        """Op name -> implementation for the compositions (subclasses add their own)."""
        return {f"linalg.{name}": getattr(self, name) for name in self.COMPOSED}


__all__ = ["WORK_DTYPES", "LinAlgError", "LinalgBase", "Plans", "real_dtype", "work_dtype"]
