"""pinv, matrix_rank, cond and lstsq on cuda: the shared compositions of
``gpu.linalg_base`` (ruda's kernels for the products, cutoffs and counts) over cuSOLVER's SVD
and inverse (``library_solver``, which keeps the factorizations themselves)."""

from __future__ import annotations

from typing import Any

from ..gpu.linalg_base import LinalgBase
from . import library_solver as solver
from .ops import OPS
from .reductions import REDUCTIONS


class CudaLinalg(LinalgBase):
    """The compositions with cuSOLVER underneath."""

    def svd(self, x: Any, full_matrices: bool = True, compute_uv: bool = True,
            hermitian: bool = False, fname: str = "svd") -> Any:  # fmt: skip
        return solver.svd(x, full_matrices, compute_uv, hermitian)

    def inv(self, x: Any) -> Any:
        return solver.inv(x)


LINALG = CudaLinalg(OPS, REDUCTIONS)
# linalg.matrix_norm is library_products's (the shared Products, which linalg.norm uses too).
LIBRARY: dict[str, Any] = {k: v for k, v in LINALG.library().items() if k != "linalg.matrix_norm"}
__all__ = ["LIBRARY", "LINALG"]
