"""Linear algebra on cuda through cuSOLVER and cuBLAS: cholesky, inv, solve, det, slogdet, qr,
eigh, eigvalsh, svd, svdvals.

The libraries are column-major. A row-major matrix's bytes are the column-major transpose, so
each op either copies ``x.mT`` into a fresh buffer (the column-major ``x``) or uses an identity
(``inv(A^T) = inv(A)^T``, ``det(A^T) = det(A)``, the SVD of a wide matrix from its transpose)
to skip that copy. Stacks use the batched routines where they exist (``potrfBatched``,
``getrfBatched``/``getrsBatched``/``getriBatched``), else a loop over the stack. Failures
(singular, not positive definite, no convergence) read the info array back and raise NumPy's
LinAlgError, as NumPy does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._dtypes import kind_of
from ..._ops import OPS
from . import ops as _ops
from .array import CudaArray
from .library_blas import (
    conj_,
    contiguous,
    copy_into,
    fresh,
    new,
    on,
    real_view,
    result_dtype,
    same_ctx,
    upload,
    zero,
)
from .library_blas import matmul as blas_matmul

LinAlgError = np.linalg.LinAlgError
_LOWER, _UPPER = 0, 1  # cublasFillMode_t
_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}
_REAL = {
    "float32": "float32",
    "float64": "float64",
    "complex64": "float32",
    "complex128": "float64",
}


def _dtype(x: Any, fname: str) -> np.dtype:
    """The working dtype of an array (or dtype): integers and booleans become float64."""
    d = np.dtype(getattr(x, "dtype", x))
    if kind_of(d) in "biu":
        return np.dtype(np.float64)
    if d.name not in _PREFIX:
        raise TypeError(f"ruda.linalg.{fname}: array type {d} is unsupported in linalg")
    return d


def _fn(lib: Any, name: str, npdt: np.dtype) -> Any:
    """``lib.<s|d|c|z><name>`` for the dtype (the element-type prefix of the C API)."""
    p = _PREFIX[npdt.name]
    if name in ("orgqr", "orgqr_bufferSize", "syevd", "syevd_bufferSize") and p in "cz":
        name = name.replace("orgqr", "ungqr").replace("syevd", "heevd")
    return getattr(lib, p + name)


def _libs() -> tuple[Any, Any, Any]:
    from cupy.cuda import device
    from cupy_backends.cuda.libs import cublas, cusolver

    return device, cublas, cusolver


def colmajor(x: CudaArray, dtype: np.dtype) -> CudaArray:
    """A fresh buffer of shape (..., n, m) whose bytes are ``x`` (..., m, n) column-major."""
    y = new(x.ctx, (*x.shape[:-2], x.shape[-1], x.shape[-2]), dtype)
    copy_into(y, x.mT)
    return y


def rowmajor(buf: CudaArray) -> CudaArray:
    """The row-major matrices of column-major ``buf`` (..., n, m): a contiguous (..., m, n)."""
    return contiguous(buf.mT)


def _pointers(x: CudaArray) -> CudaArray:
    """A device array of the addresses of each matrix of the contiguous stack ``x``."""
    n = math.prod(x.shape[:-2])
    step = x.shape[-1] * x.shape[-2] * x.dtype.itemsize
    return upload(x.ctx, x.ptr + step * np.arange(n, dtype=np.uint64))


def _info(info: CudaArray, what: str, fname: str) -> None:
    """Raise LinAlgError when an info entry is positive (waits for the device)."""
    if info.size and (info.to_host() > 0).any():
        raise LinAlgError(f"ruda.linalg.{fname}: {what}")


_MASKS: dict[tuple[Any, ...], CudaArray] = {}


def _triangle_(y: CudaArray, lower: bool) -> CudaArray:
    """Zero the other triangle of each matrix of ``y`` in place (a cached 0/1 mask multiply)."""
    rows, cols = y.shape[-2:]
    real = np.dtype(_REAL[y.dtype.name])
    key = (y.ctx.index, rows, cols, real.str, lower)
    mask = _MASKS.get(key)
    if mask is None:
        tri = np.tril if lower else np.triu
        m = tri(np.ones((rows, cols), real))
        mask = _MASKS[key] = upload(y.ctx, m)
    v = y
    if kind_of(y.dtype) == "c":
        v = real_view(y)
        mask = mask.view_of(mask.offset, (rows, cols, 1), (cols, 1, 0))
    _ops.apply(OPS["multiply"], (v, mask), out=v)
    # a negative entry times the mask's 0 is -0: adding +0 makes the zeroed triangle +0 (as
    # triu/tril write it) and changes no other value but a -0's sign
    _ops.apply(OPS["add"], (v, _ops.constant(y.ctx, 0.0, v.dtype)), out=v)
    return y


def _work(ctx: Any, lwork: int, dtype: np.dtype) -> CudaArray:
    return new(ctx, (max(int(lwork), 1),), dtype)


# -- cholesky -------------------------------------------------------------------------------
def cholesky(x: CudaArray, upper: bool = False) -> CudaArray:
    device, _, cusolver = _libs()
    r = _dtype(x, "cholesky")
    n = x.shape[-1]
    batch = math.prod(x.shape[:-2])
    if x.size == 0:
        return new(x.ctx, x.shape, r)
    a = colmajor(x, r)  # column-major A; potrf leaves L (A = L L^H) in its lower triangle
    info = new(x.ctx, (batch,), np.int32)
    ptrs = _pointers(a)
    with on(x.ctx):
        h = device.get_cusolver_handle()
        _fn(cusolver, "potrfBatched", r)(h, _LOWER, n, ptrs.ptr, n, info.ptr, batch)
    _info(info, "Matrix is not positive definite", "cholesky")
    if upper:  # U = L^H: the buffer read row-major is L^T; conjugate for complex
        return _triangle_(conj_(fresh(a)), lower=False)
    return _triangle_(rowmajor(a), lower=True)


# -- LU: inv, solve, det, slogdet ---------------------------------------------------------------
def _getrf(a: CudaArray, r: np.dtype) -> tuple[CudaArray, CudaArray, CudaArray]:
    """LU of each matrix of the contiguous stack ``a`` in place: (pointers, pivots, info)."""
    device, cublas, _ = _libs()
    n = a.shape[-1]
    batch = math.prod(a.shape[:-2])
    piv = new(a.ctx, (*a.shape[:-2], n), np.int32)
    info = new(a.ctx, (batch,), np.int32)
    ptrs = _pointers(a)
    with on(a.ctx):
        h = device.get_cublas_handle()
        _fn(cublas, "getrfBatched", r)(h, n, ptrs.ptr, n, piv.ptr, info.ptr, batch)
    return ptrs, piv, info


def inv(x: CudaArray) -> CudaArray:
    device, cublas, _ = _libs()
    r = _dtype(x, "inv")
    if x.size == 0:
        return new(x.ctx, x.shape, r)
    # The row-major bytes are A^T column-major, and inv(A^T) = inv(A)^T: no transposes.
    a = fresh(x, r)
    ptrs, piv, info = _getrf(a, r)
    _info(info, "Singular matrix", "inv")
    y = new(x.ctx, x.shape, r)
    cptrs = _pointers(y)
    n, batch = x.shape[-1], math.prod(x.shape[:-2])
    with on(x.ctx):
        h = device.get_cublas_handle()
        _fn(cublas, "getriBatched", r)(h, n, ptrs.ptr, n, piv.ptr, cptrs.ptr, n, info.ptr, batch)
    return y


def solve(a: CudaArray, b: CudaArray) -> CudaArray:
    device, cublas, _ = _libs()
    ctx = same_ctx("linalg.solve", a, b)
    r = _dtype(result_dtype("linalg.solve", a.dtype, b.dtype), "solve")
    m = a.shape[-1]
    vec = b.ndim == 1
    bm = b.view_of(b.offset, (m, 1), (b._strides[0], 0)) if vec else b
    batch = tuple(np.broadcast_shapes(a.shape[:-2], bm.shape[:-2]))
    k = bm.shape[-1]
    shape = (*batch, m) if vec else (*batch, m, k)
    if math.prod(shape) == 0:
        return new(ctx, shape, r)
    # A's row-major bytes are A^T column-major; getrs with trans=T then solves A X = B.
    af = new(ctx, (*batch, m, m), r)
    copy_into(af, a)
    ptrs, piv, info = _getrf(af, r)
    _info(info, "Singular matrix", "solve")
    xb = new(ctx, (*batch, k, m), r)  # B column-major, overwritten with X
    copy_into(xb, bm.mT)
    bptrs = _pointers(xb)
    hinfo = np.zeros(1, np.int32)
    with on(ctx):
        h = device.get_cublas_handle()
        _fn(cublas, "getrsBatched", r)(h, 1, m, k, ptrs.ptr, m, piv.ptr, bptrs.ptr, m,
                                       hinfo.ctypes.data, math.prod(batch))  # fmt: skip
    y = rowmajor(xb)
    return y.reshape(shape) if vec else y


def _lu_diag(x: CudaArray, fname: str) -> tuple[np.ndarray, np.ndarray]:
    """Host copies of each LU factor's diagonal and the pivot parity (-1 or 1)."""
    r = _dtype(x, fname)
    n = x.shape[-1]
    a = fresh(x, r)  # det(A^T) = det(A): the row-major bytes serve
    _, piv, _ = _getrf(a, r)
    lead = x.shape[:-2]
    diag = a.view_of(0, (*lead, n), (*a._strides[:-2], n + 1)).to_host()
    swaps = np.count_nonzero(piv.to_host() != np.arange(1, n + 1, dtype=np.int32), axis=-1)
    return diag, np.where(swaps % 2, -1.0, 1.0)


# Note: the O(n) products of the LU diagonals run on the host (one small read-back); the
# factorization, the O(n^3) part, runs on the device.
def det(x: CudaArray) -> CudaArray:
    r = _dtype(x, "det")
    if x.shape[-1] == 0:
        return upload(x.ctx, np.ones(x.shape[:-2], r))
    if x.size == 0:
        return new(x.ctx, x.shape[:-2], r)
    diag, parity = _lu_diag(x, "det")
    # + 0.0: a zero determinant is +0 as NumPy's, whatever the pivots' signs
    return upload(x.ctx, (np.prod(diag, axis=-1) * parity + 0.0).astype(r))


def slogdet(x: CudaArray) -> tuple[CudaArray, CudaArray]:
    r = _dtype(x, "slogdet")
    real = np.dtype(_REAL[r.name])
    if x.shape[-1] == 0:
        return upload(x.ctx, np.ones(x.shape[:-2], r)), upload(x.ctx, np.zeros(x.shape[:-2], real))
    if x.size == 0:
        return new(x.ctx, x.shape[:-2], r), new(x.ctx, x.shape[:-2], real)
    diag, parity = _lu_diag(x, "slogdet")
    mag = np.abs(diag)
    with np.errstate(divide="ignore", invalid="ignore"):
        logabs = np.sum(np.log(mag), axis=-1).astype(real)
        if np.iscomplexobj(diag):
            unit = np.where(mag == 0, 0, diag / np.where(mag == 0, 1, mag))
        else:  # as NumPy's: a NaN pivot flips no sign, a zero one makes it 0
            unit = np.where(diag < 0, -1.0, np.where(diag == 0, 0.0, 1.0))
        sign = (np.prod(unit, axis=-1) * parity + 0.0).astype(r)
    return upload(x.ctx, sign), upload(x.ctx, logabs)


# -- QR -------------------------------------------------------------------------------------------
def qr(x: CudaArray, mode: str = "reduced") -> Any:
    device, _, cusolver = _libs()
    if mode == "raw":
        raise NotImplementedError("ruda.linalg.qr: mode='raw' is not implemented on cuda")
    r = _dtype(x, "qr")
    ctx = x.ctx
    m, n = x.shape[-2:]
    k = min(m, n)
    lead = x.shape[:-2]
    batch = math.prod(lead)
    qcols = m if mode == "complete" else k
    rrows = m if mode == "complete" else k
    if x.size == 0 or k == 0:
        rr = zero(new(ctx, (*lead, rrows, n), r))
        if mode == "r":
            return rr
        q = zero(new(ctx, (*lead, m, qcols), r))
        if qcols == m:  # complete Q of an empty factorization: the identity
            q = upload(ctx, np.broadcast_to(np.eye(m, dtype=r), q.shape))
        return q, rr
    a = colmajor(x, r)  # (..., n, m): column-major m x n
    tau = new(ctx, (*lead, k), r)
    info = new(ctx, (1,), np.int32)
    isz = r.itemsize
    with on(ctx):
        h = device.get_cusolver_handle()
        lw = _fn(cusolver, "geqrf_bufferSize", r)(h, m, n, a.ptr, m)
        work = _work(ctx, lw, r)
        for i in range(batch):
            _fn(cusolver, "geqrf", r)(h, m, n, a.ptr + i * m * n * isz, m,
                                      tau.ptr + i * k * isz, work.ptr, lw, info.ptr)  # fmt: skip
    # a fresh copy: ``contiguous`` would return ``a`` itself for 1 x 1 matrices, and orgqr
    # below overwrites ``a`` with Q
    rmat = _triangle_(fresh(a.mT[..., :rrows, :]), lower=False)
    if mode == "r":
        return rmat
    if qcols <= n:
        qb = a  # the reflectors' own buffer holds Q's first columns
    else:  # complete Q of a tall matrix: m columns, the first n hold the reflectors
        qb = new(ctx, (*lead, m, m), r)
        copy_into(qb[..., :n, :], a)
    step = qb.shape[-1] * qb.shape[-2] * isz
    with on(ctx):
        lw = _fn(cusolver, "orgqr_bufferSize", r)(h, m, qcols, k, qb.ptr, m, tau.ptr)
        work = _work(ctx, lw, r)
        for i in range(batch):
            _fn(cusolver, "orgqr", r)(h, m, qcols, k, qb.ptr + i * step, m, tau.ptr + i * k * isz,
                                      work.ptr, lw, info.ptr)  # fmt: skip
    return rowmajor(qb[..., :qcols, :]), rmat


# -- eigh -----------------------------------------------------------------------------------------
def _eigh(x: CudaArray, uplo: str, vectors: bool, fname: str) -> tuple[CudaArray, CudaArray]:
    device, _, cusolver = _libs()
    r = _dtype(x, fname)
    real = np.dtype(_REAL[r.name])
    ctx = x.ctx
    n = x.shape[-1]
    lead = x.shape[:-2]
    batch = math.prod(lead)
    a = colmajor(x, r)  # column-major A exactly: NumPy's UPLO names the same triangle
    w = new(ctx, (*lead, n), real)
    if x.size == 0:
        return w, a
    info = new(ctx, (batch,), np.int32)
    fill = _LOWER if uplo.upper() == "L" else _UPPER
    isz = r.itemsize
    with on(ctx):
        h = device.get_cusolver_handle()
        lw = _fn(cusolver, "syevd_bufferSize", r)(h, int(vectors), fill, n, a.ptr, n, w.ptr)
        work = _work(ctx, lw, r)
        for i in range(batch):
            _fn(cusolver, "syevd", r)(h, int(vectors), fill, n, a.ptr + i * n * n * isz, n,
                                      w.ptr + i * n * real.itemsize, work.ptr, lw,
                                      info.ptr + 4 * i)  # fmt: skip
    _info(info, "Eigenvalues did not converge", fname)
    return w, a


def eigh(x: CudaArray, UPLO: str = "L") -> tuple[CudaArray, CudaArray]:  # noqa: N803
    w, a = _eigh(x, UPLO, True, "eigh")
    return w, rowmajor(a)  # eigenvectors are the columns of the column-major result


def eigvalsh(x: CudaArray, UPLO: str = "L") -> CudaArray:  # noqa: N803
    return _eigh(x, UPLO, False, "eigvalsh")[0]


# -- SVD ------------------------------------------------------------------------------------------
def svd(x: CudaArray, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:  # fmt: skip
    """A matrix with many more rows than columns (or the reverse) goes through QR first, a
    square one of order <= JACOBI_MAX to gesvdj, any other to gesvd."""
    m, n = x.shape[-2:]
    if x.size and not (compute_uv and full_matrices) and _tall(m, n):
        return _svd_tall(x, compute_uv)
    if x.size and m == n and n <= JACOBI_MAX:
        return _svd_square(x, compute_uv)
    return _gesvd(x, full_matrices, compute_uv)


def _gesvd(x: CudaArray, full_matrices: bool, compute_uv: bool) -> Any:
    """gesvd wants m >= n: a wide matrix's row-major bytes are its tall transpose, column-major,
    and A^T = U' S V'^H gives U = V'^T (the VT buffer read row-major), Vh = U'^T (likewise U)."""
    device, _, cusolver = _libs()
    r = _dtype(x, "svd")
    real = np.dtype(_REAL[r.name])
    ctx = x.ctx
    m, n = x.shape[-2:]
    k = min(m, n)
    lead = x.shape[:-2]
    batch = math.prod(lead)
    wide = m < n
    tm, tn = (n, m) if wide else (m, n)  # the tall problem gesvd solves
    a = fresh(x, r) if wide else colmajor(x, r)
    s = new(ctx, (*lead, k), real)
    ucols = tm if full_matrices else tn
    job = ord("A") if full_matrices else ord("S")
    u = new(ctx, (*lead, ucols, tm), r) if compute_uv else None  # column-major tm x ucols
    vt = new(ctx, (*lead, tn, tn), r) if compute_uv else None  # column-major tn x tn
    if x.size == 0:
        if not compute_uv:
            return s
        eye = upload(ctx, np.broadcast_to(np.eye(m, dtype=r), (*lead, m, m)))
        eye_n = upload(ctx, np.broadcast_to(np.eye(n, dtype=r), (*lead, n, n)))
        return (eye if full_matrices else zero(new(ctx, (*lead, m, k), r)), s,
                eye_n if full_matrices else zero(new(ctx, (*lead, k, n), r)))  # fmt: skip
    info = new(ctx, (batch,), np.int32)
    isz, rsz = r.itemsize, real.itemsize
    with on(ctx):
        h = device.get_cusolver_handle()
        lw = _fn(cusolver, "gesvd_bufferSize", r)(h, tm, tn)
        work = _work(ctx, lw, r)
        for i in range(batch):
            up = u.ptr + i * ucols * tm * isz if u is not None else 0
            vp = vt.ptr + i * tn * tn * isz if vt is not None else 0
            jb = job if compute_uv else ord("N")
            _fn(cusolver, "gesvd", r)(h, jb, ord("A") if compute_uv else ord("N"), tm, tn,
                                      a.ptr + i * m * n * isz, tm, s.ptr + i * k * rsz, up, tm,
                                      vp, tn, work.ptr, lw, 0, info.ptr + 4 * i)  # fmt: skip
    _info(info, "SVD did not converge", "svd")
    if not compute_uv:
        return s
    if wide:
        return contiguous(vt), s, contiguous(u)
    return rowmajor(u), s, rowmajor(vt)


# gesvd on a 100k x 512 f32 matrix takes 90 ms on an H200, QR first then the 512 x 512 SVD
# (LAPACK's own route for m >> n) a fraction of that: taken from TALL rows per column on
TALL = 2
TALL_MIN = 32  # columns: below, the extra launches cost more than they save


def _tall(m: int, n: int) -> bool:
    tm, tn = max(m, n), min(m, n)
    return tn >= TALL_MIN and tm >= TALL * tn


def _svd_tall(x: CudaArray, uv: bool) -> Any:
    """The reduced SVD of a matrix with many more rows than columns (or of its transpose):
    A = Q R (geqrf, orgqr), R = U_R S V^H (gesvd of the small square), U = Q U_R (cuBLAS).
    A wide x is solved as A = x^T: x = conj(V') S U'^T, so U = V'^H read transposed and
    V^H = U'^T (plain transposes, complex or not)."""
    wide = x.shape[-2] < x.shape[-1]
    a = x.mT if wide else x  # qr reads any strides: x^T of a row-major x is column-major x
    if not uv:
        return _svd_square(qr(a, "r"), False)
    q, rr = qr(a, "reduced")
    ur, s, vh = _svd_square(rr, True)
    u = blas_matmul(q, ur)
    if wide:
        return contiguous(vh.mT), s, contiguous(u.mT)
    return u, s, vh


# gesvdj (one-sided Jacobi) up to this order: 512 x 512 float32 in 16 ms on an H200 where gesvd
# takes 53 (its bidiagonal iteration is serial); past it gesvd's O(n^3) once beats the sweeps
JACOBI_MAX = 2048
_EIG_MODE_NOVECTOR, _EIG_MODE_VECTOR = 0, 1  # cusolverEigMode_t


# Note: float32 and complex64 matrices are rotated in float64 and complex128 and the results
# rounded back: float32 gesvdj's singular values of a 512 x 512 R were off by 8.9e-5 of the
# largest (gesvd: 7.3e-6, the QR's rounding), float64 rotations keep gesvd's accuracy.
_JACOBI_DTYPE = {"float32": np.dtype("float64"), "complex64": np.dtype("complex128")}


def _svd_square(x: CudaArray, uv: bool) -> Any:
    """The SVD of a stack of square matrices (the R of a tall SVD): gesvdj to machine
    precision (at most 100 sweeps); a matrix it leaves unconverged goes to gesvd instead."""
    n = x.shape[-1]
    if n > JACOBI_MAX:
        return _gesvd(x, False, uv)
    device, _, cusolver = _libs()
    out = _dtype(x, "svd")
    r = _JACOBI_DTYPE.get(out.name, out)
    real = np.dtype(_REAL[r.name])
    ctx, lead = x.ctx, x.shape[:-2]
    batch = math.prod(lead)
    a = colmajor(x, r)
    s = new(ctx, (*lead, n), real)
    u = new(ctx, (*lead, n, n), r)  # column-major U
    v = new(ctx, (*lead, n, n), r)  # column-major V: read row-major, V^T
    info = new(ctx, (batch,), np.int32)
    mode = _EIG_MODE_VECTOR if uv else _EIG_MODE_NOVECTOR
    rsz, step = real.itemsize, n * n * r.itemsize
    with on(ctx):
        h = device.get_cusolver_handle()
        params = cusolver.createGesvdjInfo()
        try:
            cusolver.xgesvdjSetTolerance(params, float(np.finfo(real).eps))
            cusolver.xgesvdjSetMaxSweeps(params, 100)
            lw = _fn(cusolver, "gesvdj_bufferSize", r)(
                h, mode, 1, n, n, a.ptr, n, s.ptr, u.ptr, n, v.ptr, n, params
            )
            work = _work(ctx, lw, r)
            for i in range(batch):
                _fn(cusolver, "gesvdj", r)(h, mode, 1, n, n, a.ptr + i * step, n,
                                           s.ptr + i * n * rsz, u.ptr + i * step, n,
                                           v.ptr + i * step, n, work.ptr, lw, info.ptr + 4 * i,
                                           params)  # fmt: skip
        finally:
            cusolver.destroyGesvdjInfo(params)
    flags = info.to_host()
    if (flags < 0).any():
        raise RuntimeError(f"ruda.linalg.svd: gesvdj rejected its argument {-int(flags.min())}")
    if (flags > 0).any():  # sweeps ran out before the tolerance: the QR-iteration SVD instead
        return _gesvd(x, False, uv)
    s = _ops.astype(s, np.dtype(_REAL[out.name]), copy=False)
    if not uv:
        return s
    u, vh = rowmajor(u), conj_(v)  # V's bytes read row-major are V^T: conjugated, V^H
    return _ops.astype(u, out, copy=False), s, _ops.astype(vh, out, copy=False)


def svdvals(x: CudaArray) -> CudaArray:
    return svd(x, compute_uv=False)


LIBRARY: dict[str, Any] = {
    "linalg.cholesky": cholesky, "linalg.inv": inv, "linalg.solve": solve, "linalg.det": det,
    "linalg.slogdet": slogdet, "linalg.qr": qr, "linalg.eigh": eigh,
    "linalg.eigvalsh": eigvalsh, "linalg.svd": svd, "linalg.svdvals": svdvals,
}  # fmt: skip
__all__ = ["LIBRARY", "cholesky", "det", "eigh", "eigvalsh", "inv", "qr", "slogdet", "solve",
           "svd", "svdvals"]  # fmt: skip
