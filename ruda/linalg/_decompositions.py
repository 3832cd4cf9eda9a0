"""Factorizations and determinants: cholesky, eig*, qr, svd, det, slogdet."""

from __future__ import annotations

from typing import Any

from .. import _elementwise
from .._array import Array, _wrap
from . import _finite
from ._common import (
    EighResult,
    EigResult,
    QRResult,
    SlogdetResult,
    SVDResult,
    matrix_arg,
    square_arg,
)


def cholesky(x: Any, /, *, upper: bool = False) -> Array:
    """Cholesky factor of a (stack of) symmetric/Hermitian positive-definite matrices.

    Lower-triangular L with x = L L^H, or upper U with x = U^H U when ``upper=True``.

    >>> import ruda as np
    >>> np.linalg.cholesky(np.asarray([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    x = square_arg(x, "cholesky")
    dev = x._device
    return _wrap(dev._ops["linalg.cholesky"](x._data, upper=bool(upper)), dev)


def det(x: Any, /) -> Array:
    """Determinant of a (stack of) square matrices.

    >>> import ruda as np
    >>> float(np.linalg.det(np.asarray([[1.0, 2.0], [3.0, 4.0]])))
    -2.0000000000000004
    """
    x = square_arg(x, "det")
    return _wrap(x._device._ops["linalg.det"](x._data), x._device)


def slogdet(x: Any, /) -> SlogdetResult:
    """Sign and natural log of the absolute determinant (named tuple ``sign, logabsdet``).

    >>> import ruda as np
    >>> r = np.linalg.slogdet(np.asarray([[2.0, 0.0], [0.0, 3.0]]))
    >>> float(r.sign), round(float(r.logabsdet), 6)
    (1.0, 1.791759)
    """
    x = square_arg(x, "slogdet")
    dev = x._device
    sign, logabsdet = dev._ops["linalg.slogdet"](x._data)
    return SlogdetResult(_wrap(sign, dev), _wrap(logabsdet, dev))


def eigh(x: Any, /, UPLO: str = "L") -> EighResult:
    """Eigenvalues (ascending) and eigenvectors of a symmetric/Hermitian matrix (stack).

    >>> import ruda as np
    >>> np.linalg.eigh(np.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.tolist()
    [1.0, 2.0]
    """
    x = square_arg(x, "eigh")
    dev = x._device
    w, v = dev._ops["linalg.eigh"](x._data, UPLO)
    w, v = _wrap(w, dev), _wrap(v, dev)
    if _finite.checking(x):
        # Note: NumPy's LAPACK gives NaN eigenvalues for an infinity in the triangle it reads
        # and unspecified numbers for a NaN; ruda gives NaN eigenvalues and eigenvectors for both.
        bad = _finite.bad_matrices(_finite.triangle(x, UPLO))
        w, v = _finite.nan_where(bad, w), _finite.nan_where(bad, v)
    return EighResult(w, v)


def eigvalsh(x: Any, /, UPLO: str = "L") -> Array:
    """Eigenvalues (ascending) of a symmetric/Hermitian matrix (stack).

    >>> import ruda as np
    >>> np.linalg.eigvalsh(np.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    x = square_arg(x, "eigvalsh")
    w = _wrap(x._device._ops["linalg.eigvalsh"](x._data, UPLO), x._device)
    if _finite.checking(x):  # as in eigh: NaN for a non-finite value in the triangle read
        w = _finite.nan_where(_finite.bad_matrices(_finite.triangle(x, UPLO)), w)
    return w


def eig(x: Any, /) -> EigResult:
    """Eigenvalues and right eigenvectors of a general square matrix (stack); always complex.

    >>> import ruda as np
    >>> np.linalg.eig(np.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.dtype
    ruda.complex128
    """
    # Note: NumPy returns real arrays when all eigenvalues are real; the standard (2025.12)
    # always returns the complex dtype of matching precision, and so do we.
    x = square_arg(x, "eig")
    if _finite.checking(x):
        _finite.raise_if(x, "eig", "Array must not contain infs or NaNs", nan_only=False)
    dev = x._device
    w, v = dev._ops["linalg.eig"](x._data)
    return EigResult(_wrap(w, dev), _wrap(v, dev))


def eigvals(x: Any, /) -> Array:
    """Eigenvalues of a general square matrix (stack); always complex.

    >>> import ruda as np
    >>> np.linalg.eigvals(np.asarray([[0.0, -1.0], [1.0, 0.0]])).tolist()
    [1j, -1j]
    """
    # Note: complex results even when all eigenvalues are real (the standard's rule).
    x = square_arg(x, "eigvals")
    if _finite.checking(x):
        _finite.raise_if(x, "eigvals", "Array must not contain infs or NaNs", nan_only=False)
    return _wrap(x._device._ops["linalg.eigvals"](x._data), x._device)


def qr(x: Any, /, mode: str = "reduced") -> Any:
    """QR factorization (named tuple ``Q, R``); ``mode`` is 'reduced' or 'complete'.

    NumPy's 'r' (R alone) and 'raw' (Householder form) modes work too.

    >>> import ruda as np
    >>> q, r = np.linalg.qr(np.asarray([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    >>> q.shape, r.shape
    ((3, 2), (2, 2))
    """
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(
            f"ruda.linalg.qr: mode must be 'reduced' or 'complete' (or 'r', 'raw'), got {mode!r}"
        )
    x = matrix_arg(x, "qr")
    dev = x._device
    r = dev._ops["linalg.qr"](x._data, mode=mode)
    if mode == "r":
        return _wrap(r, dev)
    if mode == "raw":
        return _wrap(r[0], dev), _wrap(r[1], dev)
    return QRResult(_wrap(r[0], dev), _wrap(r[1], dev))


def svd(
    x: Any, /, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> Any:
    """Singular value decomposition (named tuple ``U, S, Vh``; S descending).

    >>> import ruda as np
    >>> np.linalg.svd(np.asarray([[3.0, 0.0], [0.0, 4.0]])).S.tolist()
    [4.0, 3.0]
    """
    x = matrix_arg(x, "svd")
    dev = x._device
    bad = svd_check(x, "svd", hermitian)
    if not compute_uv:
        s = _wrap(dev._ops["linalg.svd"](x._data, compute_uv=False, hermitian=hermitian), dev)
        return s if bad is None else _finite.nan_where(bad, s)
    u, s, vh = dev._ops["linalg.svd"](x._data, bool(full_matrices), True, hermitian)
    u, s, vh = _wrap(u, dev), _wrap(s, dev), _wrap(vh, dev)
    if bad is not None:
        u, s, vh = (_finite.nan_where(bad, a) for a in (u, s, vh))
    return SVDResult(u, s, vh)


def svd_check(x: Array, fname: str, hermitian: bool = False) -> Array | None:
    """NumPy's SVD on non-finite input, on a GPU device: LinAlgError for a NaN (one host
    wait), and per matrix, whether it holds an infinity (its singular values are NaN).
    None where nothing is checked (the cpu, integer input, ``RUDA_LINALG_CHECK=off``)."""
    if not _finite.checking(x):
        return None
    if hermitian:
        # Note: NumPy's hermitian SVD is an eigh (no error; unspecified numbers for a NaN);
        # ruda's results are NaN for any non-finite matrix.
        return _finite.bad_matrices(x)
    _finite.raise_if(x, fname, "SVD did not converge")
    # Note: NumPy's U and Vh for a matrix with an infinity are unspecified numbers; ruda's NaN.
    return _finite.bad_matrices(x, _elementwise.isinf)


def svdvals(x: Any, /) -> Array:
    """Singular values of a matrix (stack), descending.

    >>> import ruda as np
    >>> np.linalg.svdvals(np.asarray([[3.0, 0.0], [0.0, 4.0]])).tolist()
    [4.0, 3.0]
    """
    x = matrix_arg(x, "svdvals")
    bad = svd_check(x, "svdvals")
    s = _wrap(x._device._ops["linalg.svdvals"](x._data), x._device)
    return s if bad is None else _finite.nan_where(bad, s)
