"""Matrix products on cuda beyond cuBLAS's entry points: dot, inner, vdot, outer, kron, cross,
trace, diagonal, the norms, matrix_power and multi_dot, through the shared ``gpu.matmul.Products``
(compositions of elementwise kernels and reductions), as on wgpu.

Their products go through ``CudaProducts.gemm``: cuBLAS for the dtypes it multiplies (float16,
float32, float64, complex64, complex128), the tiled kernel of ``ruda._kernels.matmul.gemm`` for
integers and bool (exact: accumulated in unsigned integers, wrapping around as NumPy's do).
matmul, tensordot and vecdot stay ``library_blas``'s entries (it sends integer and bool matmul
here); ``linalg.matrix_norm`` is this module's (complex too), as ``linalg.norm`` uses it.

    >>> sorted(CUBLAS_ENTRIES)
    ['matmul', 'tensordot', 'vecdot']
"""

from __future__ import annotations

from typing import Any

from .library_blas import PRODUCTS, CudaProducts  # with cuBLAS, whose matmul sends ints there

# Served by library_blas (cuBLAS), which loads first: left out here so they stay its.
CUBLAS_ENTRIES = frozenset({"matmul", "tensordot", "vecdot"})
LIBRARY: dict[str, Any] = {k: v for k, v in PRODUCTS.library().items() if k not in CUBLAS_ENTRIES}
__all__ = ["CUBLAS_ENTRIES", "LIBRARY", "PRODUCTS", "CudaProducts"]
