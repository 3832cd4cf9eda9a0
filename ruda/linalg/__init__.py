"""ruda.linalg: the standard's linear algebra extension plus NumPy's ``numpy.linalg`` surface.

>>> import ruda as np
>>> np.linalg.det(np.asarray([[1.0, 2.0], [3.0, 4.0]])).shape
()
"""

from __future__ import annotations

from .._linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from ._common import (
    EighResult,
    EigResult,
    LinAlgError,
    QRResult,
    SlogdetResult,
    SVDResult,
)
from ._decompositions import cholesky, det, eig, eigh, eigvals, eigvalsh, qr, slogdet, svd, svdvals
from ._norms import cond, matrix_norm, norm, vector_norm
from ._products import cross, diagonal, outer, trace
from ._solvers import (
    inv,
    lstsq,
    matrix_power,
    matrix_rank,
    multi_dot,
    pinv,
    solve,
    tensorinv,
    tensorsolve,
)

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "eig", "eigvals", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
    "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
    "norm", "lstsq", "multi_dot", "cond", "tensorsolve", "tensorinv", "LinAlgError",
    "EighResult", "EigResult", "QRResult", "SlogdetResult", "SVDResult",
]  # fmt: skip
