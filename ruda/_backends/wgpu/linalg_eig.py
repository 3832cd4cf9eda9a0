"""linalg.eig and linalg.eigvals on wgpu: the shared ``gpu.linalg_eig`` over this backend's ops
(Hessenberg reduction, complex QR iterations and eigenvector kernels rendered as WGSL)."""

from __future__ import annotations

from typing import Any

from ..gpu.linalg_eig import LinalgEig
from .ops import OPS
from .reductions import REDUCTIONS

LINALG_EIG = LinalgEig(OPS, REDUCTIONS)
LIBRARY: dict[str, Any] = LINALG_EIG.library()
__all__ = ["LIBRARY", "LINALG_EIG"]
