"""The linalg extension on wgpu: the shared ``gpu.linalg_decomp`` over this backend's ops and
reductions (Cholesky, LU, Householder QR, Jacobi eigh and SVD kernels rendered as WGSL)."""

from __future__ import annotations

from typing import Any

from ..gpu.linalg_decomp import LinalgDecomp
from .ops import OPS
from .reductions import REDUCTIONS

LINALG = LinalgDecomp(OPS, REDUCTIONS)
LIBRARY: dict[str, Any] = LINALG.library()
__all__ = ["LIBRARY", "LINALG"]
