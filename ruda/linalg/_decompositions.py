"""Factorizations and determinants: cholesky, eig*, qr, svd, det, slogdet."""

from __future__ import annotations

from typing import Any

from .._array import Array, _wrap
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
    return EighResult(_wrap(w, dev), _wrap(v, dev))


def eigvalsh(x: Any, /, UPLO: str = "L") -> Array:
    """Eigenvalues (ascending) of a symmetric/Hermitian matrix (stack).

    >>> import ruda as np
    >>> np.linalg.eigvalsh(np.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    x = square_arg(x, "eigvalsh")
    return _wrap(x._device._ops["linalg.eigvalsh"](x._data, UPLO), x._device)


def eig(x: Any, /) -> EigResult:
    """Eigenvalues and right eigenvectors of a general square matrix (stack); always complex.

    >>> import ruda as np
    >>> np.linalg.eig(np.asarray([[2.0, 0.0], [0.0, 1.0]])).eigenvalues.dtype
    ruda.complex128
    """
    # Note: NumPy returns real arrays when all eigenvalues are real; the standard (2025.12)
    # always returns the complex dtype of matching precision, and so do we.
    x = square_arg(x, "eig")
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
    if not compute_uv:
        return _wrap(dev._ops["linalg.svd"](x._data, compute_uv=False, hermitian=hermitian), dev)
    u, s, vh = dev._ops["linalg.svd"](x._data, bool(full_matrices), True, hermitian)
    return SVDResult(_wrap(u, dev), _wrap(s, dev), _wrap(vh, dev))


def svdvals(x: Any, /) -> Array:
    """Singular values of a matrix (stack), descending.

    >>> import ruda as np
    >>> np.linalg.svdvals(np.asarray([[3.0, 0.0], [0.0, 4.0]])).tolist()
    [4.0, 3.0]
    """
    x = matrix_arg(x, "svdvals")
    return _wrap(x._device._ops["linalg.svdvals"](x._data), x._device)
