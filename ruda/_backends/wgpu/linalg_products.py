"""Matrix products on wgpu: matmul, tensordot, vecdot, dot, inner, outer, kron, cross, trace,
diagonal, the norms, matrix_power and multi_dot, through the shared ``gpu.matmul.Products``
(the tiled kernel of ``ruda._kernels.matmul.gemm`` and compositions of elementwise kernels and
reductions).
"""

from __future__ import annotations

from typing import Any

from ..gpu.matmul import Products
from .ops import OPS
from .reductions import REDUCTIONS

PRODUCTS = Products(OPS, REDUCTIONS)
LIBRARY: dict[str, Any] = PRODUCTS.library()
__all__ = ["LIBRARY", "PRODUCTS"]
