"""The autotuner's ``matmul`` family: its space for a key (``matmul.variants`` less the K splits
whose partial products no binding of the device can span), NumPy's reference (a sample of rows
past ``REFERENCE_WORK``), ``matmul.register_tuning`` (``gemm``) declares it with these.
"""

from __future__ import annotations

from typing import Any

from .. import ir
from .common import Problem, acc_type, split_k


def partial_bytes(p: dict[str, Any], shape: tuple[int, int, int, int], out_t: ir.Type) -> int:
    """Bytes of the split-K partial products variant ``p`` writes for ``shape`` = (batch, M, N,
    K) (0 without a split).

    >>> partial_bytes({"split": 4, "bk": 8}, (1, 1024, 1024, 4096), ir.F32) // 2**20
    16
    """
    count, M, N, K = shape
    split = split_k(K, p["split"], p["bk"])[0]
    return 0 if split == 1 else split * count * M * N * acc_type(out_t).itemsize


REFERENCE_WORK = 1 << 31  # multiply-adds up to which the tuner checks the whole product
SAMPLE_ROWS = 64  # rows of a bigger product it checks: at random, and the first and last


def reference_product(a: Any, b: Any, out: Any) -> Any:
    """NumPy's ``a @ b`` for batches ``a`` (count, M, K) and ``b`` (count, K, N), in float64
    for a float ``out``, flat; past ``REFERENCE_WORK`` multiply-adds only ``SAMPLE_ROWS`` rows
    of it (a ``tune.check.Sample``: all their columns, K in slices, no float64 copy of B).

    >>> import numpy as np
    >>> a, b = np.ones((1, 2, 3), np.float32), np.ones((1, 3, 2), np.float32)
    >>> reference_product(a, b, np.dtype(np.float32))
    array([3., 3., 3., 3.], dtype=float32)
    """
    import numpy as np

    from ..tune.check import Sample

    wide = np.dtype(np.float64) if out.kind == "f" else out
    count, M, K = a.shape
    N = b.shape[2]
    if count * M * N * K <= REFERENCE_WORK:
        return np.matmul(a.astype(wide), b.astype(wide)).astype(out).reshape(-1)
    picked = np.random.default_rng(M * N + K).integers(0, count * M, SAMPLE_ROWS)
    flat = np.unique(np.concatenate([picked, [0, count * M - 1]]))
    values = np.empty((flat.size, N), wide)
    for z in np.unique(flat // M):
        sel = flat // M == z
        rows, acc = a[z, flat[sel] % M].astype(wide), np.zeros((int(sel.sum()), N), wide)
        for k in range(0, K, 1024):
            acc += rows[:, k : k + 1024] @ b[z, k : k + 1024].astype(wide)
        values[sel] = acc
    index = (flat[:, None] * N + np.arange(N)).reshape(-1)
    return Sample(index, values.astype(out).reshape(-1))


def _tuning_problem(key: Any) -> Problem:
    """The problem of a tuning key: shape ``(batch, M, N, K)``, layout ``"nn"``/``"tn"``/...
    (``t``: the operand is stored transposed, read through a transposed view)."""
    count, M, N, K = key.shape
    la, lb = key.layout
    sa = (K, 1) if la == "n" else (1, M)
    sb = (N, 1) if lb == "n" else (1, K)
    batch = (count,) if count > 1 else ()
    return Problem(M, N, K, batch, (M * K,) * len(batch), (K * N,) * len(batch), sa, sb)


__all__ = ["REFERENCE_WORK", "SAMPLE_ROWS", "partial_bytes", "reference_product"]
