"""The autotuner's ``matmul`` family: its space for a key (``matmul.variants`` less the K splits
whose partial products no binding of the device can span), NumPy's reference (a sample of rows
past ``REFERENCE_WORK``), inputs and seeds. ``matmul.register_tuning`` declares it.
"""

from __future__ import annotations

import math
from typing import Any

from . import ir
from .matmul import VARIANTS, Problem, acc_type, plan, split_k, valid, variants


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
    of it (a ``tune_check.Sample``: all their columns, K in slices, no float64 copy of B).

    >>> import numpy as np
    >>> a, b = np.ones((1, 2, 3), np.float32), np.ones((1, 3, 2), np.float32)
    >>> reference_product(a, b, np.dtype(np.float32))
    array([3., 3., 3., 3.], dtype=float32)
    """
    import numpy as np

    from .tune_check import Sample

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


def register_tuning() -> None:
    """Declare the ``matmul`` family to the autotuner (``tune.choose("matmul", key, target)``
    with ``tune.Key("matmul", (a, b, out), "nn", (batch, M, N, K))``)."""
    import numpy as np

    from . import tune
    from .matmul_defaults import anchors, default_variant

    names = {t.name: t for t in (*ir.ALL_TYPES, *ir.COMPLEX_TYPES)}

    def types(key: Any) -> tuple[ir.Type, ...]:
        return tuple(names[n] for n in key.dtypes)

    def binds(p: dict[str, Any], key: Any, t: Any) -> bool:
        # a K split's partial products are one buffer: past the device's binding limit no
        # kernel can bind it (WebGPU rejects the bind group)
        return p["split"] == 1 or partial_bytes(p, key.shape, types(key)[2]) <= t.max_binding

    def space(key: Any, t: Any) -> list[dict[str, Any]]:
        every = variants(acc_type(types(key)[2]), t.max_workgroup, t.shared_bytes, key.shape[1])
        fit = {(s, k): binds({"split": s, "bk": k}, key, t)
               for s in VARIANTS["split"] for k in VARIANTS["bk"]}  # fmt: skip
        return every if all(fit.values()) else [p for p in every if fit[p["split"], p["bk"]]]

    def inputs(key: Any, rng: Any) -> dict[str, Any]:
        count, M, N, K = key.shape
        out = {}
        for name, t, lay, (r, c) in (("a", types(key)[0], key.layout[0], (M, K)),
                                     ("b", types(key)[1], key.layout[1], (K, N))):  # fmt: skip
            shape = (count, r, c) if lay == "n" else (count, c, r)
            dt = ir.numpy_of(t)
            if dt.kind == "f":
                x = rng.uniform(-1, 1, shape).astype(dt)
            elif dt.kind == "b":
                x = rng.random(shape) < 0.5
            else:
                x = rng.integers(0, 4, shape).astype(dt)
            out[name] = x
        return out

    def reference(key: Any, arrays: dict[str, Any]) -> Any:
        a, b = arrays["a"], arrays["b"]
        a = a if key.layout[0] == "n" else np.swapaxes(a, 1, 2)
        b = b if key.layout[1] == "n" else np.swapaxes(b, 1, 2)
        return reference_product(a, b, ir.numpy_of(types(key)[2]))

    tune.register(
        "matmul", VARIANTS,
        lambda p, key: plan(*types(key), _tuning_problem(key), p),
        lambda key, t: default_variant(types(key)[2], *key.shape[1:], t.max_workgroup,
                                       t.shared_bytes, key.layout[1]),
        valid=lambda p, key, t: valid(p, acc_type(types(key)[2]), t.max_workgroup,
                                      t.shared_bytes, key.shape[1]) and binds(p, key, t),
        enumerate=space,
        inputs=inputs, reference=reference,
        anchors=lambda key, t: anchors(types(key)[2], *key.shape[1:], t),
        output=lambda key: (ir.numpy_of(types(key)[2]), math.prod(key.shape[:3])),
    )  # fmt: skip


__all__ = ["REFERENCE_WORK", "SAMPLE_ROWS", "partial_bytes", "reference_product",
           "register_tuning"]  # fmt: skip
