"""The linalg decompositions on cuda against NumPy: the shared tests of
``tests/gpu/linalg_decomp.py`` (cholesky, inv, solve, det, slogdet, qr, eigh, svd and the
compositions pinv, matrix_rank, cond, matrix_norm, lstsq)."""

from __future__ import annotations

from tests.gpu.linalg_decomp import *  # noqa: F403  (the shared tests, collected here)
