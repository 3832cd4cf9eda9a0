"""Matrix products on cuda beyond cuBLAS's entry points: dot, inner, vdot, outer, kron, cross,
trace, diagonal, the norms, matrix_power and multi_dot, through the shared ``gpu.matmul.Products``
(compositions of elementwise kernels and reductions), as on wgpu.

Their products go through ``CudaProducts.gemm``: cuBLAS for the dtypes it multiplies (float16,
float32, float64, complex64, complex128), the tiled kernel of ``ruda._kernels.matmul`` for
integers and bool (exact: accumulated in unsigned integers, wrapping around as NumPy's do).
matmul, tensordot and vecdot stay ``library_blas``'s entries (it sends integer and bool matmul
here); ``linalg.matrix_norm`` is this module's (complex too), as ``linalg.norm`` uses it.

    >>> sorted(CUBLAS_ENTRIES)
    ['matmul', 'tensordot', 'vecdot']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..gpu.matmul import Products, result_dtype
from ..gpu.strided import span
from . import library_blas as blas
from .ops import OPS
from .reductions import REDUCTIONS

# Served by library_blas (cuBLAS), which loads first: left out here so they stay its.
CUBLAS_ENTRIES = frozenset({"matmul", "tensordot", "vecdot"})
_INDEX_LIMIT = 1 << 32  # the tiled kernel's indices are 32-bit, from the allocation's start


def _end(x: Any) -> int:
    """One past the last element ``x`` reaches, counted from its allocation's start."""
    return span(x.offset, x.shape, x._strides, x.itemsize)[1] // x.itemsize


class CudaProducts(Products):
    """``Products`` whose floating-point products run on cuBLAS."""

    def gemm(self, a: Any, b: Any, out_dtype: Any = None, out: Any = None) -> Any:
        """``a @ b`` for stacks (see ``Products.gemm``): cuBLAS for its dtypes, else (integers,
        bool) the tiled kernel."""
        r = np.dtype(out_dtype) if out_dtype is not None else result_dtype(a.dtype, b.dtype)
        shape = (*np.broadcast_shapes(a.shape[:-2], b.shape[:-2]), a.shape[-2], b.shape[-1])
        if not blas.cublas_multiplies(r):
            ends = [_end(x) for x in (a, b, out) if x is not None and x.size]
            if max([math.prod(shape), *ends]) >= _INDEX_LIMIT:
                raise NotImplementedError(
                    f"ruda.matmul: {r} products over 2**32 elements are not implemented on "
                    "cuda (the tiled kernel indexes with 32 bits)"
                )
            return super().gemm(a, b, r, out)
        y = blas.new(a.ctx, shape, r) if out is None else out
        blas.gemm(a, b, r, y)
        return y

    def matmul(self, a: Any, b: Any, out: Any = None, **kwargs: Any) -> Any:
        """cuda's matmul entry (``library_blas.matmul``), which dot and multi_dot call."""
        if kwargs:
            return super().matmul(a, b, out, **kwargs)  # raises, naming the keywords
        return blas.matmul(a, b, out)

    def tiled_matmul(self, a: Any, b: Any, out: Any = None) -> Any:
        """NumPy's matmul through ``gemm`` (the shared ``Products.matmul``: 1-D operands,
        broadcast stacks, ``out=``): ``library_blas.matmul`` sends integers and bool here."""
        return super().matmul(a, b, out)

    def tensordot(self, a: Any, b: Any, axes: Any = 2) -> Any:
        """cuda's tensordot entry (``library_blas.tensordot``), which dot and inner call."""
        return blas.tensordot(a, b, axes)


PRODUCTS = CudaProducts(OPS, REDUCTIONS)
LIBRARY: dict[str, Any] = {k: v for k, v in PRODUCTS.library().items() if k not in CUBLAS_ENTRIES}
__all__ = ["CUBLAS_ENTRIES", "LIBRARY", "PRODUCTS", "CudaProducts"]
