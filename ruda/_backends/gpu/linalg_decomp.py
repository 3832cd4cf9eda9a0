"""The linalg factorizations on the GPU backends from ruda's own kernels
(``ruda._kernels.linalg_*``): cholesky, inv, solve, det, slogdet, qr, eigh, eigvalsh, svd,
svdvals; ``LinalgBase`` (``linalg_compose``) adds pinv, matrix_rank, cond, matrix_norm, lstsq.
Real (float32, float64) and complex (complex64, complex128) stacks take the same kernels,
built per element type; eigenvalues, singular values and log|det| come back real.

Each op copies its input into a fresh contiguous working stack of the working dtype (float32
stays float32; integers and booleans become float64, as NumPy does), then queues its kernels as
one plan (``ops.run_plan``: launches recorded in order). Small matrices take one kernel, one
workgroup per matrix (in workgroup memory where it fits); large ones (``linalg_steps``) take
a launch per column step or Jacobi round. Failures (not positive definite, singular, no
convergence) are flags the kernels set; an op that can fail reads them back once and raises
NumPy's LinAlgError, as NumPy does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._kernels import linalg_common as lc
from ..._kernels import linalg_compose as kc
from ..._kernels import linalg_jacobi as kj
from ..._kernels import linalg_lu as kl
from ..._kernels import linalg_qr as kq
from . import linalg_steps as steps
from . import views
from .linalg_compose import LinalgBase, LinAlgError, Plans, real_dtype, work_dtype


class LinalgDecomp(LinalgBase):
    """The factorizations on one GPU backend from ruda's kernels (plus ``LinalgBase``'s
    compositions)."""

    def _wg(self, ctx: Any, kind: str, m: int, n: int, k: int) -> int | None:
        """The workgroup size of the single kernel for ``kind`` on m x n (k right-hand sides),
        or None for the multi-dispatch path: large matrices, and any the driver would cut
        short (llvmpipe stops an invocation's loops after 65535 iterations in all)."""
        wg = lc.choose_wg(max(m, n))
        if max(m, n) >= steps.MULTI_MIN:
            return None
        if "llvmpipe" in getattr(ctx, "description", "") and (
            lc.loop_iterations(kind, m, n, k, wg) > lc.LOOP_LIMIT
        ):
            return None
        return wg

    # -- cholesky ----------------------------------------------------------------------------
    def cholesky(self, x: Any, upper: bool = False) -> Any:
        r = work_dtype(x, "cholesky")
        if x.size == 0:
            return self._work(x, r, "cholesky")
        ctx, n = x.ctx, x.shape[-1]
        batch = math.prod(x.shape[:-2])
        a = self._work(x, r, "cholesky")
        info = self._zeros(ctx, (batch,), np.int32)
        t = ir.type_of(r)
        wg = self._wg(ctx, "potrf", n, n, 0)
        p = Plans(self.ops)
        if wg is None:
            steps.potrf(p, a, info, bool(upper))
        else:
            cap = lc.bucket(n) if lc.fits(lc.bucket(n), t, wg, 0) else 0
            p.add(kl.cholesky(t, bool(upper), cap, wg), {"a": a, "info": info}, (batch, n), batch)
        p.run(ctx)
        self._raise_if(info, "Matrix is not positive definite", "cholesky")
        return a

    # -- LU: inv, solve, det, slogdet ----------------------------------------------------------
    def _getrf(self, p: Plans, a: Any) -> tuple[Any, Any]:
        """Queue the LU of the contiguous stack ``a`` in place: (pivots, info)."""
        ctx, n = a.ctx, a.shape[-1]
        batch = math.prod(a.shape[:-2])
        piv = self._new(ctx, (batch, n), np.int32)
        info = self._zeros(ctx, (batch,), np.int32)
        t = ir.type_of(a.dtype)
        wg = self._wg(ctx, "getrf", n, n, 0)
        if wg is None:
            steps.getrf(p, a, piv, info)
        else:
            cap = lc.bucket(n) if lc.fits(lc.bucket(n), t, wg) else 0
            p.add(kl.getrf(t, cap, wg), {"a": a, "piv": piv, "info": info}, (batch, n), batch)
        return piv, info

    def _getrs(self, p: Plans, a: Any, piv: Any, x: Any, eye: bool) -> None:
        """Queue X = A^-1 B over the LU factors (``x``: B, or with ``eye`` any n x n stack)."""
        n, k = a.shape[-1], x.shape[-1]
        batch = math.prod(a.shape[:-2])
        wg = self._wg(a.ctx, "getrs", n, n, k)
        if wg is None:
            steps.getrs(p, a, piv, x, eye)
        else:
            p.add(
                kl.getrs(ir.type_of(a.dtype), eye, wg),
                {"a": a, "piv": piv, "x": x},
                (batch, n, k),
                batch,
            )

    def inv(self, x: Any) -> Any:
        r = work_dtype(x, "inv")
        a = self._work(x, r, "inv")
        if x.size == 0:
            return a
        ctx = x.ctx
        p = Plans(self.ops)
        piv, info = self._getrf(p, a)
        y = self._new(ctx, x.shape, r)
        self._getrs(p, a, piv, y, True)
        p.run(ctx)
        self._raise_if(info, "Singular matrix", "inv")
        return y

    def solve(self, a: Any, b: Any) -> Any:
        if a.ctx is not b.ctx:
            raise ValueError("ruda.linalg.solve: operands are on different devices")
        r = work_dtype(np.result_type(work_dtype(a, "solve"), work_dtype(b, "solve")), "solve")
        ctx, m = a.ctx, a.shape[-1]
        vec = b.ndim == 1  # the standard's rule: x2 is a vector only when it is 1-D
        bm = b.reshape(m, 1) if vec else b
        lead = tuple(np.broadcast_shapes(a.shape[:-2], bm.shape[:-2]))
        k = bm.shape[-1]
        shape = (*lead, m) if vec else (*lead, m, k)
        if math.prod(shape) == 0:
            return self._new(ctx, shape, r)
        af = self._work(views.broadcast_to(a, (*lead, m, m)), r, "solve")
        xb = self._work(views.broadcast_to(bm, (*lead, m, k)), r, "solve")
        p = Plans(self.ops)
        piv, info = self._getrf(p, af)
        self._getrs(p, af, piv, xb, False)
        p.run(ctx)
        self._raise_if(info, "Singular matrix", "solve")
        return xb.reshape(shape)

    def _dets(self, x: Any, log: bool, fname: str) -> tuple[Any, ...]:
        r = work_dtype(x, fname)
        ctx, n, lead = x.ctx, x.shape[-1], x.shape[:-2]
        batch = math.prod(lead)
        outs = [self._new(ctx, (batch,), d) for d in ((r, real_dtype(r)) if log else (r,))]
        if batch == 0:
            return tuple(o.reshape(lead) for o in outs)
        if n == 0:
            for o, v in zip(outs, (1, 0), strict=False):
                self.ops.assign(o, v)  # not fill: a complex128 one is a 16-byte pattern
            return tuple(o.reshape(lead) for o in outs)
        a = self._work(x, r, fname)
        p = Plans(self.ops)
        piv, _ = self._getrf(p, a)  # a singular matrix has det 0 (NumPy: no error)
        arrays = {"a": a, "piv": piv, "out": outs[0]}
        if log:
            arrays["logabs"] = outs[1]
        p.add(kl.lu_det(ir.type_of(r), log), arrays, (batch, n), -(-batch // kc.WG))
        p.run(ctx)
        return tuple(o.reshape(lead) for o in outs)

    def det(self, x: Any) -> Any:
        return self._dets(x, False, "det")[0]

    def slogdet(self, x: Any) -> tuple[Any, Any]:
        sign, logabs = self._dets(x, True, "slogdet")
        return sign, logabs

    # -- QR ------------------------------------------------------------------------------------
    def _geqrf(self, p: Plans, a: Any) -> tuple[Any, Any]:
        """Queue R of the contiguous stack ``a`` (..., m, n) in place: (reflectors, betas)."""
        ctx = a.ctx
        m, n = a.shape[-2:]
        k = min(m, n)
        batch = math.prod(a.shape[:-2])
        v = self._new(ctx, (batch, m, k), a.dtype)
        beta = self._new(ctx, (batch, k), a.dtype)
        wg = self._wg(ctx, "geqrf", m, n, 0)
        if wg is None:
            steps.geqrf(p, a, v, beta)
        else:
            p.add(
                kq.geqrf(ir.type_of(a.dtype), wg),
                {"a": a, "v": v, "beta": beta},
                (batch, m, n),
                batch,
            )
        return v, beta

    def _orgqr(self, p: Plans, v: Any, beta: Any, m: int, qc: int, lead: tuple[int, ...]) -> Any:
        k = v.shape[-1]
        batch = math.prod(lead)
        q = self._new(v.ctx, (*lead, m, qc), v.dtype)
        wg = self._wg(v.ctx, "orgqr", m, k, qc)
        if wg is None:
            steps.orgqr(p, v, beta, q)
        else:
            p.add(
                kq.orgqr(ir.type_of(v.dtype), wg),
                {"v": v, "beta": beta, "q": q},
                (batch, m, qc, k),
                batch,
            )
        return q

    def qr(self, x: Any, mode: str = "reduced") -> Any:
        if mode == "raw":
            raise NotImplementedError(
                f"ruda.linalg.qr: mode='raw' is not implemented on {x.ctx.name}"
            )
        r = work_dtype(x, "qr")
        ctx = x.ctx
        m, n = x.shape[-2:]
        k, lead = min(m, n), x.shape[:-2]
        qc = m if mode == "complete" else k
        if x.size == 0:
            rr = self._zeros(ctx, (*lead, qc, n), r)
            return rr if mode == "r" else (self._eye(ctx, lead, m, qc, r), rr)
        a = self._work(x, r, "qr")
        p = Plans(self.ops)
        v, beta = self._geqrf(p, a)
        q = None if mode == "r" else self._orgqr(p, v, beta, m, qc, lead)
        p.run(ctx)
        rmat = a if qc == m else self.ops.copy(a[..., :k, :])
        return rmat if q is None else (q, rmat)

    # -- eigh ------------------------------------------------------------------------------------
    def _eigh(self, x: Any, uplo: str, vectors: bool, fname: str) -> tuple[Any, Any]:
        r = work_dtype(x, fname)
        rd = real_dtype(r)  # the eigenvalues of a Hermitian matrix are real
        ctx, n, lead = x.ctx, x.shape[-1], x.shape[:-2]
        batch = math.prod(lead)
        if x.size == 0:
            return self._new(ctx, (*lead, n), rd), self._work(x, r, fname)
        a = self._work(x, r, fname)
        n2 = n + n % 2
        shape = (batch, n, n) if vectors else (1,)
        arrays = {
            "a": a,
            "v": self._new(ctx, shape, r),
            "rot": self._new(ctx, (batch, n2), r),
            "idx": self._new(ctx, (batch, n), np.uint32),
            "w": self._new(ctx, (*lead, n), rd),
            "u": self._new(ctx, (*lead, n, n) if vectors else (1,), r),
            "info": self._zeros(ctx, (batch,), np.int32),
        }
        upper = str(uplo).upper() == "U"
        p = Plans(self.ops)
        wg = self._wg(ctx, "syevj", n, n, 0)
        if wg is None:
            steps.syevj(p, ctx, arrays, upper, vectors)
        else:
            t, mats = ir.type_of(r), 2 if vectors else 1
            cap = lc.bucket(n) if lc.fits(mats * lc.bucket(n), t, wg, 1) else 0
            p.add(kj.syevj(t, vectors, upper, wg, cap), arrays, (batch, n, n2), batch)
        p.run(ctx)
        self._raise_if(arrays["info"], "Eigenvalues did not converge", fname)
        return arrays["w"], arrays["u"]

    def eigh(self, x: Any, UPLO: str = "L") -> tuple[Any, Any]:  # noqa: N803
        return self._eigh(x, UPLO, True, "eigh")

    def eigvalsh(self, x: Any, UPLO: str = "L") -> Any:  # noqa: N803
        return self._eigh(x, UPLO, False, "eigvalsh")[0]

    # -- SVD -------------------------------------------------------------------------------------
    def svd(
        self,
        x: Any,
        full_matrices: bool = True,
        compute_uv: bool = True,
        hermitian: bool = False,
        fname: str = "svd",
    ) -> Any:
        """One-sided Jacobi on the tall one of x and x^T; U is completed (full_matrices) and
        made exactly orthonormal (zero singular values) by a QR of it, signs kept. A wide x
        works on x^T = U' S V'^H (no conjugate needed): x = conj(V') S U'^T."""
        # Note: hermitian=True computes the general SVD (the same factorization NumPy's
        # eigh-based path gives, up to the signs of singular vectors).
        r = work_dtype(x, fname)
        rd = real_dtype(r)  # singular values are real
        ctx = x.ctx
        m, n = x.shape[-2:]
        k, lead = min(m, n), x.shape[:-2]
        batch = math.prod(lead)
        if x.size == 0:
            s = self._zeros(ctx, (*lead, k), rd)
            if not compute_uv:
                return s
            uc, vr = (m, n) if full_matrices else (k, k)
            return self._eye(ctx, lead, m, uc, r), s, self._eye(ctx, lead, vr, n, r)
        wide = m < n
        tm, tn = (n, m) if wide else (m, n)
        a = self._work(x.mT if wide else x, r, fname)
        n2 = tn + tn % 2
        t = ir.type_of(r)
        uv = bool(compute_uv)
        arrays = {
            "a": a,
            "v": self._new(ctx, (batch, tn, tn) if uv else (1,), r),
            "rot": self._new(ctx, (batch, n2), r),
            "idx": self._new(ctx, (batch, tn), np.uint32),
            "s": self._new(ctx, (*lead, tn), rd),
            "u": self._new(ctx, (batch, tm, tn) if uv else (1,), r),
            "vt": self._new(ctx, (batch, tn, tn) if uv else (1,), r),
            "info": self._zeros(ctx, (batch,), np.int32),
        }
        p = Plans(self.ops)
        wg = self._wg(ctx, "gesvj", tm, tn, 0)
        if wg is None:
            steps.gesvj(p, ctx, arrays, uv)
        else:
            cap = lc.bucket(tm, tn)
            cap = cap if lc.fits((2 if uv else 1) * cap, t, wg, 1) else 0
            p.add(kj.gesvj(t, uv, wg, cap), arrays, (batch, tm, tn, n2), batch)
        if not uv:
            p.run(ctx)
            self._raise_if(arrays["info"], "SVD did not converge", fname)
            return arrays["s"]
        u = arrays["u"]
        qc = tm if full_matrices else tn
        v, beta = self._geqrf(p, u)  # u becomes R (its diagonal: the signs to keep)
        q = self._orgqr(p, v, beta, tm, qc, (batch,))
        p.add(
            kq.sign_columns(t, wg or lc.choose_wg(tm)), {"q": q, "r": u}, (batch, tm, tn, qc), batch
        )
        p.run(ctx)
        self._raise_if(arrays["info"], "SVD did not converge", fname)
        s, vt = arrays["s"], arrays["vt"].reshape((*lead, tn, tn))
        q = q.reshape((*lead, tm, qc))
        if wide:  # x^T = U' S V'^H: x = conj(V') S U'^T, conj(V') = (V'^H)^T
            return self.ops.copy(vt.mT), s, self.ops.copy(q.mT)
        return q, s, vt

    def svdvals(self, x: Any) -> Any:
        return self.svd(x, compute_uv=False, fname="svdvals")

    FACTORED = ("cholesky", "inv", "solve", "det", "slogdet", "qr", "eigh", "eigvalsh", "svd",
                "svdvals")  # fmt: skip

    def library(self) -> dict[str, Any]:
        lib = super().library()
        lib.update({f"linalg.{name}": getattr(self, name) for name in self.FACTORED})
        return lib


__all__ = ["LinAlgError", "LinalgDecomp"]
