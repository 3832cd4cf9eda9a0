"""Matrix products on wgpu against NumPy: the shared tests of ``tests/gpu/linalg_products.py``
(matmul in every dtype, layout and stack shape, tensordot, vecdot, dot, inner, outer, kron,
cross, trace, diagonal, norms, matrix_power, multi_dot)."""

from __future__ import annotations

from tests.gpu.linalg_products import *  # noqa: F403  (the shared tests, collected here)
