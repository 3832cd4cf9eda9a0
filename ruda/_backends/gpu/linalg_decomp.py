"""The linalg factorizations on the GPU backends from ruda's own kernels
(``ruda._kernels.linalg``): cholesky, inv, solve, det, slogdet, qr, eigh, eigvalsh, svd,
svdvals; ``LinalgBase`` (``linalg_base``) adds pinv, matrix_rank, cond, matrix_norm, lstsq.
Real (float32, float64) and complex (complex64, complex128) stacks take the same kernels,
built per element type; eigenvalues, singular values and log|det| come back real.

Each op copies its input into a fresh contiguous working stack of the working dtype (float32
stays float32; integers and booleans become float64, as NumPy does), then queues its kernels as
one plan (``ops.run_plan``: launches recorded in order). Small matrices take one kernel, one
workgroup per matrix (in workgroup memory where it fits); large ones (``linalg_steps``) take
a launch per column step or Jacobi round, many workgroups per matrix: QR is blocked
Householder with matrix products (``linalg_blocked``), the SVD block Jacobi, and a large SVD
with at least twice as many rows as columns (or the reverse) first reduces the matrix to the
R of its QR. Failures (not positive definite, singular, no convergence) are flags the kernels
set; an op that can fail reads them back once and raises NumPy's LinAlgError, as NumPy does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._kernels.linalg import common as lc
from ..._kernels.linalg import from_svd as kc
from ..._kernels.linalg import jacobi as kj
from ..._kernels.linalg import lu as kl
from ..._kernels.linalg import qr as kq
from . import linalg_blocked as blocked
from . import linalg_steps as steps
from . import views
from .linalg_base import LinalgBase, LinAlgError, Plans, real_dtype, work_dtype

SEPARATED = 1e-4  # promoted SVDs skip U's QR when every s_i exceeds this of s_max


class LinalgDecomp(LinalgBase):
    """The factorizations on one GPU backend from ruda's kernels (plus ``LinalgBase``'s
    compositions)."""

    def _wg(self, ctx: Any, kind: str, m: int, n: int, k: int) -> int | None:
        """The workgroup size of the single kernel for ``kind`` on m x n (k right-hand sides),
        or None for the multi-dispatch path: large matrices, and any the driver would cut
        short (llvmpipe stops an invocation's loops after 65535 iterations in all)."""
        wg = lc.choose_wg(max(m, n))
        if max(m, n) >= steps.MULTI_MIN or (kind == "gesvj" and n >= steps.BLOCK_MIN):
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
    def _geqrf(self, p: Plans, a: Any, qc: int = 0) -> blocked.Reflectors:
        """Queue R of the contiguous stack ``a`` (..., m, n) in place: its reflectors (blocked,
        with T factors, for large matrices or when Q's ``qc`` columns will need them)."""
        ctx = a.ctx
        m, n = a.shape[-2:]
        k = min(m, n)
        batch = math.prod(a.shape[:-2])
        wg = self._wg(ctx, "geqrf", m, n, 0)
        if wg is None or (qc and self._wg(ctx, "orgqr", m, k, qc) is None):
            return blocked.geqrf(self, p, a.reshape(batch, m, n))
        v = self._new(ctx, (batch, m, k), a.dtype)
        beta = self._new(ctx, (batch, k), a.dtype)
        p.add(
            kq.geqrf(ir.type_of(a.dtype), wg), {"a": a, "v": v, "beta": beta}, (batch, m, n), batch
        )
        return blocked.Reflectors(v, beta)

    def _orgqr(
        self, p: Plans, refl: blocked.Reflectors, m: int, qc: int, lead: tuple[int, ...]
    ) -> Any:
        v, beta = refl.v, refl.beta
        k = v.shape[-1]
        batch = math.prod(lead)
        if refl.tt is not None:
            return blocked.orgqr(self, p, refl, m, qc).reshape((*lead, m, qc))
        q = self._new(v.ctx, (*lead, m, qc), v.dtype)
        p.add(
            kq.orgqr(ir.type_of(v.dtype), self._wg(v.ctx, "orgqr", m, k, qc) or lc.WG),
            {"v": v, "beta": beta, "q": q},
            (batch, m, qc, k),
            batch,
        )
        return q

    def _matmul(self, ctx: Any) -> Any:
        """The backend's matmul over native arrays (ruda's tiled kernel on wgpu)."""
        from ..._devices import Device
        from ..._dispatch import lookup

        return lookup("matmul", Device(ctx.name))

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
        refl = self._geqrf(p, a, 0 if mode == "r" else qc)
        q = None if mode == "r" else self._orgqr(p, refl, m, qc, lead)
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
        converged = None
        if wg is None:
            converged = steps.syevj(p, ctx, arrays, upper, vectors)
        else:
            t, mats = ir.type_of(r), 2 if vectors else 1
            cap = lc.bucket(n) if lc.fits(mats * lc.bucket(n), t, wg, 1) else 0
            p.add(kj.syevj(t, vectors, upper, wg, cap), arrays, (batch, n, n2), batch)
        p.run(ctx)
        self._check(converged, arrays["info"], "Eigenvalues did not converge", fname)
        return arrays["w"], arrays["u"]

    def eigh(self, x: Any, UPLO: str = "L") -> tuple[Any, Any]:  # noqa: N803
        return self._eigh(x, UPLO, True, "eigh")

    def eigvalsh(self, x: Any, UPLO: str = "L") -> Any:  # noqa: N803
        return self._eigh(x, UPLO, False, "eigvalsh")[0]

    # -- SVD -------------------------------------------------------------------------------------
    def _jacobi_dtype(self, ctx: Any, r: np.dtype) -> np.dtype:
        """float32 (complex64) data take the block Jacobi in float64 (complex128) where the
        device has it: float32's rotations, thousands per column, would cost digits."""
        wide = {"float32": np.float64, "complex64": np.complex128}.get(np.dtype(r).name)
        if wide is None:
            return np.dtype(r)
        try:
            ctx.check_dtype(np.dtype(wide), "linalg.svd")
        except (TypeError, ValueError):
            return np.dtype(r)
        return np.dtype(wide)

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
        works on x^T = U' S V'^H (no conjugate needed): x = conj(V') S U'^T. A large operand
        with at least twice as many rows as columns is first reduced to its R (``_svd_tall``)."""
        # Note: hermitian=True computes the general SVD (the same factorization NumPy's
        # eigh-based path gives, up to the signs of singular vectors).
        r = work_dtype(x, fname)
        rd = real_dtype(r)  # singular values are real
        ctx = x.ctx
        m, n = x.shape[-2:]
        k, lead = min(m, n), x.shape[:-2]
        if x.size == 0:
            s = self._zeros(ctx, (*lead, k), rd)
            if not compute_uv:
                return s
            uc, vr = (m, n) if full_matrices else (k, k)
            return self._eye(ctx, lead, m, uc, r), s, self._eye(ctx, lead, vr, n, r)
        wide = m < n
        tm, tn = (n, m) if wide else (m, n)
        wg = self._wg(ctx, "gesvj", tm, tn, 0)
        if wg is None and tm >= 2 * tn:
            return self._svd_tall(x, r, full_matrices, compute_uv, fname)
        # Note: large float32 (complex64) inputs are rotated in float64 (complex128) where the
        # device has it, and the results rounded back: more accurate than float32 Jacobi.
        rj = r if wg is not None else self._jacobi_dtype(ctx, r)
        a = self._work(x.mT if wide else x, rj, fname)
        out = self._gesvj(a, wg, bool(compute_uv), full_matrices, rj != r, fname)
        if not compute_uv:
            return self.ops.astype(out, rd, copy=False).reshape((*lead, tn))
        q, s, vt = (self.ops.astype(o, d, copy=False) for o, d in zip(out, (r, rd, r), strict=True))
        s, vt, q = s.reshape((*lead, tn)), vt.reshape((*lead, tn, tn)), q.reshape((*lead, tm, -1))
        if wide:  # x^T = U' S V'^H: x = conj(V') S U'^T, conj(V') = (V'^H)^T
            return self.ops.copy(vt.mT), s, self.ops.copy(q.mT)
        return q, s, vt

    def _gesvj(
        self, a: Any, wg: int | None, uv: bool, full: bool, promoted: bool, fname: str
    ) -> Any:
        """The SVD of the tall working stack ``a`` (..., tm, tn), overwritten: s (batch, tn),
        or with ``uv`` (U (batch, tm, tm or tn), s, V^H (batch, tn, tn)), U orthonormalised by
        a QR (signs kept)."""
        ctx, r = a.ctx, a.dtype
        tm, tn = a.shape[-2:]
        batch = math.prod(a.shape[:-2])
        n2 = tn + tn % 2
        t = ir.type_of(r)
        arrays = {
            "a": a,
            "v": self._new(ctx, (batch, tn, tn) if uv else (1,), r),
            "rot": self._new(ctx, (batch, n2), r),
            "idx": self._new(ctx, (batch, tn), np.uint32),
            "s": self._new(ctx, (batch, tn), real_dtype(r)),
            "u": self._new(ctx, (batch, tm, tn) if uv else (1,), r),
            "vt": self._new(ctx, (batch, tn, tn) if uv else (1,), r),
            "info": self._zeros(ctx, (batch,), np.int32),
        }
        p = Plans(self.ops)
        qc = tm if full else tn
        # Note: float32 data rotated in float64 keep U = A V / s (orthonormal to float32's
        # precision, not exactly) when no singular value is near zero: the QR is for those.
        test = uv and promoted and qc == tn
        converged, s_host = None, None
        if wg is None:  # s read with the last convergence flags when the test needs it
            converged, s_host = steps.gesvj(p, ctx, arrays, uv, promoted, peek=test)
        else:
            cap = lc.bucket(tm, tn)
            cap = cap if lc.fits((2 if uv else 1) * cap, t, wg, 1) else 0
            p.add(kj.gesvj(t, uv, wg, cap), arrays, (batch, tm, tn, n2), batch)
        if not uv:
            p.run(ctx)
            self._check(converged, arrays["info"], "SVD did not converge", fname)
            return arrays["s"]
        u = arrays["u"]
        if test and self._separated(p, arrays["s"], s_host):
            self._check(converged, arrays["info"], "SVD did not converge", fname)
            return u, arrays["s"], arrays["vt"]
        refl = self._geqrf(p, u, qc)  # u becomes R (its diagonal: the signs to keep)
        q = self._orgqr(p, refl, tm, qc, (batch,))
        p.add(
            kq.sign_columns(t, wg or lc.choose_wg(tm)), {"q": q, "r": u}, (batch, tm, tn, qc), batch
        )
        p.run(ctx)
        self._check(converged, arrays["info"], "SVD did not converge", fname)
        return q, arrays["s"], arrays["vt"]

    def _check(self, converged: bool | None, info: Any, what: str, fname: str) -> None:
        """LinAlgError unless the Jacobi sweeps converged: known on the host already after the
        multi-dispatch path (``converged``: no read of ``info``), else ``info`` read back."""
        if converged is None:
            self._raise_if(info, what, fname)
        elif not converged:
            raise LinAlgError(f"ruda.linalg.{fname}: {what}")

    def _separated(self, p: Plans, s: Any, h: np.ndarray | None = None) -> bool:
        """Whether every singular value in ``s`` (batch, k) is finite and above ``SEPARATED``
        of its matrix's largest (one read-back, unless ``h`` is its host copy already): then
        U = A V / s from float64 rotations is orthonormal to float32's precision, needs no QR."""
        if h is None:
            p.run(s.ctx)
            h = s.to_host()
        top = h.max(axis=-1, keepdims=True)
        return bool(np.isfinite(h).all() and (h > SEPARATED * top).all())

    def _svd_tall(self, x: Any, r: np.dtype, full: bool, uv: bool, fname: str) -> Any:
        """The SVD of a large x with tm >= 2 tn (of x or x^T): Householder QR of the tall
        operand A = Q R (blocked, on the device), the SVD of the tn x tn R = U_R S V^H, then
        U = Q [U_R; 0] (``full``: Q [[U_R, 0], [0, I]]) by the reflectors' products."""
        ctx = x.ctx
        m, n = x.shape[-2:]
        wide = m < n
        tm, tn = (n, m) if wide else (m, n)
        lead = x.shape[:-2]
        batch = math.prod(lead)
        rd = real_dtype(r)
        a = self._work(x.mT if wide else x, r, fname).reshape(batch, tm, tn)
        p = Plans(self.ops)
        refl = blocked.geqrf(self, p, a)
        rj = self._jacobi_dtype(ctx, r)
        rr = self.ops.astype(a[:, :tn, :], rj)  # R: zeros below its diagonal already
        wg = self._wg(ctx, "gesvj", tn, tn, 0)
        out = self._gesvj(rr, wg, uv, False, rj != r, fname)
        if not uv:
            return self.ops.astype(out, rd, copy=False).reshape((*lead, tn))
        ur, s, vt = out
        qc = tm if full else tn
        u = self._zeros(ctx, (batch, tm, qc), r)
        self.ops.assign(u[:, :tn, :tn], ur)
        if qc > tn:
            rest = u[:, tn:, tn:]
            diag = rest.view_of(rest.offset, (batch, qc - tn), (rest._strides[0], qc + 1))
            self.ops.assign(diag, 1)
        blocked.apply_q(self, p, refl, u)
        s = self.ops.astype(s, rd, copy=False).reshape((*lead, tn))
        vt = self.ops.astype(vt, r, copy=False).reshape((*lead, tn, tn))
        u = u.reshape((*lead, tm, qc))
        if wide:  # as in svd: x = conj(V') S U'^T
            return self.ops.copy(vt.mT), s, self.ops.copy(u.mT)
        return u, s, vt

    def svdvals(self, x: Any) -> Any:
        return self.svd(x, compute_uv=False, fname="svdvals")

    FACTORED = ("cholesky", "inv", "solve", "det", "slogdet", "qr", "eigh", "eigvalsh", "svd",
                "svdvals")  # fmt: skip

    def library(self) -> dict[str, Any]:
        lib = super().library()
        lib.update({f"linalg.{name}": getattr(self, name) for name in self.FACTORED})
        return lib


__all__ = ["LinAlgError", "LinalgDecomp"]
