"""The families the autotuner knows from the start: reductions (``reduce.full``, ``reduce.rows``,
``reduce.cols``), ``scan``, the contiguous ``elementwise`` kernel, and cuBLAS competing in
``matmul`` on cuda. The engine (``tune.engine``) declares them when it is imported
(``register_families``); the kernels that declare their own family (``matmul``, ``sort.radix``,
``fft.stockham``) do it in their ``register_tuning`` when a backend first needs them.

Keys: dtypes are IR type names, inputs then output; shapes are (n,) for full reductions and
contiguous elementwise ops, (rows, cols) for row/column reductions and scans (over the last axis).

    >>> from ruda._kernels.tune import engine as tune
    >>> sorted(f for f in tune.FAMILIES if f.startswith(("reduce.", "scan", "elementwise")))
    ['elementwise', 'reduce.cols', 'reduce.full', 'reduce.rows', 'scan']
    >>> [threads_per_row(cols) for cols in (8, 1000, 4096)]
    [1, 32, 256]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .order import Params
from .space import Key, Target, Vendor, add_vendor, register


def _t(name: str) -> Any:
    from .. import ir

    return {t.name: t for t in (*ir.ALL_TYPES, *getattr(ir, "COMPLEX_TYPES", ()))}[name]


def _np(name: str) -> np.dtype:
    from .. import ir

    return ir.numpy_of(_t(name))


def _random(name: str, shape: tuple[int, ...], rng: np.random.Generator, op: str) -> np.ndarray:
    """Tuning data: never all zeros; positive floats near 1 so sums and products stay exact-ish."""
    dt = _np(name)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -3, 4, shape).astype(dt)
    lo, hi = (0.999, 1.001) if "prod" in op else (0.5, 1.5)
    return rng.uniform(lo, hi, shape).astype(dt)


def _reduce_ref(op: str, x: np.ndarray, axis: int | None, out: str) -> np.ndarray:
    f = getattr(np, op)
    if op in ("any", "all", "max", "min"):
        r = f(x, axis=axis)
    elif x.dtype.kind == "f":
        r = f(x.astype(np.float64), axis=axis)  # NumPy in float64 is the oracle
    else:
        r = f(x, axis=axis, dtype=_np(out))
    return np.asarray(r).astype(_np(out)).reshape(-1)


def threads_per_row(cols: int) -> int:
    """The rows layout's default threads per row by row length: a thread for short rows, a
    warp up to 1024, else the whole workgroup."""
    return 1 if cols <= 16 else 32 if cols <= 1024 else 256


def _reduce_family(layout: str) -> None:
    from .. import reduce

    def default(key: Key, t: Target) -> Params:
        d = dict(reduce.DEFAULTS[layout])
        if layout == "rows":
            d["tpr"] = threads_per_row(key.shape[1])
        return d

    def valid(p: Params, key: Key, t: Target) -> bool:
        wg = p["wg"]
        if wg > t.max_workgroup or p.get("tpr", 1) > wg or p.get("rt", 1) > wg // 8:
            return False
        if p.get("combine") == "subgroup" and ("subgroup" not in t.features
                                               or p.get("tpr", wg) != wg):  # fmt: skip
            return False
        i, o = _t(key.dtypes[0]), _t(key.dtypes[-1])
        return wg * reduce.acc_type(reduce._kind(key.op, o), i, o).itemsize <= t.shared_bytes

    def build_plan(p: Params, key: Key) -> Any:
        i, o = _t(key.dtypes[0]), _t(key.dtypes[-1])
        if layout == "full":
            return reduce.plan_full(key.op, i, o, key.shape[0], p)
        plan = reduce.plan_rows if layout == "rows" else reduce.plan_cols
        return plan(key.op, i, o, key.shape[0], key.shape[1], p)

    axis = {"full": None, "rows": 1, "cols": 0}[layout]
    register(
        f"reduce.{layout}", reduce.VARIANTS[layout], build_plan, default, valid=valid,
        inputs=lambda k, rng: {"x": _random(k.dtypes[0], k.shape, rng, k.op)},
        reference=lambda k, a: _reduce_ref(k.op, a["x"], axis, k.dtypes[-1]),
        output=lambda k: (_np(k.dtypes[-1]), 1 if axis is None else k.shape[1 - axis]),
    )  # fmt: skip


def _scan_family() -> None:
    from .. import reduce, scan

    def valid(p: Params, key: Key, t: Target) -> bool:
        if p["algorithm"] == "lookback" and t.backend != "cuda":
            return False  # WebGPU gives no forward-progress guarantee between workgroups
        if p.get("chunks") and p["algorithm"] != "chunked":
            return False  # only the chunked scan has chunks: the same plan again
        acc = reduce.acc_type(scan._op(key.op), _t(key.dtypes[0]), _t(key.dtypes[-1]))
        room = scan.CUDA_SHARED_BYTES if p["algorithm"] == "lookback" else scan.SHARED_BYTES
        fit = scan.fits(acc, p["wg"], p["ipt"], p["algorithm"], min(room, t.shared_bytes))
        return p["wg"] <= t.max_workgroup and fit

    def reference(k: Key, a: dict[str, np.ndarray]) -> np.ndarray:
        x = a["x"].astype(np.float64) if a["x"].dtype.kind == "f" else a["x"]
        f = np.cumsum if scan._op(k.op) == "sum" else np.cumprod
        return f(x, axis=-1, dtype=None if x.dtype.kind == "f" else _np(k.dtypes[-1])).astype(
            _np(k.dtypes[-1])).reshape(-1)  # fmt: skip

    register(
        "scan", scan.VARIANTS["scan"],
        lambda p, k: scan.plan_scan(k.op, _t(k.dtypes[0]), _t(k.dtypes[-1]), k.shape[0],
                                    k.shape[1], p),
        scan.DEFAULTS, valid=valid,
        inputs=lambda k, rng: {"x": _random(k.dtypes[0], k.shape, rng, k.op)},
        reference=reference,
        output=lambda k: (_np(k.dtypes[-1]), k.shape[0] * k.shape[1]),
    )  # fmt: skip


def _elementwise_family() -> None:
    # The contiguous kernel's variants (elementwise.VARIANTS): workgroup size, units per
    # invocation and their order, 2/4-lane vectors for 32-bit operands.
    from .. import elementwise
    from ..reduce import Launch, Plan

    def valid(p: Params, k: Key, t: Target) -> bool:
        if p["wg"] > t.max_workgroup or (p["ipt"] == 1 and p["order"] != "tile"):
            return False  # with one unit per invocation both orders are the same kernel
        if p["vec"] == 1:
            return True
        if not elementwise.vectorizable(tuple(_t(d) for d in k.dtypes[:-1]), _t(k.dtypes[-1])):
            return False  # 8/16/64-bit and bool operands: packed words or scalars
        # Vectors need every operand at a 16-byte boundary, its binding (WebGPU) rounded up to
        # whole vectors: the backends' "contiguous" layout; "contiguous-misaligned" has neither.
        return k.layout == "contiguous"

    def build_plan(p: Params, k: Key) -> Any:
        kern = elementwise.build(k.op, tuple(_t(d) for d in k.dtypes[:-1]), _t(k.dtypes[-1]),
                                 None, **p)  # fmt: skip
        n = k.shape[0]
        threads = -(-n // kern.elems_per_invocation)
        groups = -(-threads // p["wg"])
        names = tuple(f"in{i}" for i in range(len(k.dtypes) - 1)) + ("out",)
        return Plan([Launch(kern, names, (n,), max(groups, 1))])

    def reference(k: Key, a: dict[str, np.ndarray]) -> np.ndarray | None:
        f = getattr(np, elementwise.OPS[k.op].numpy, None)
        if f is None:
            return None
        with np.errstate(all="ignore"):
            return np.asarray(f(*a.values())).astype(_np(k.dtypes[-1])).reshape(-1)

    def inputs(k: Key, rng: np.random.Generator) -> dict[str, np.ndarray]:
        # Whole 16-byte vectors, as the backends' bindings of the "contiguous" layout: the
        # elements past n are read by the last vector, never written.
        m = _padded(k.shape[0])
        return {f"in{i}": _random(d, (m,), rng, k.op) for i, d in enumerate(k.dtypes[:-1])}

    def padded_reference(k: Key, a: dict[str, np.ndarray]) -> np.ndarray | None:
        n = k.shape[0]
        r = reference(k, {name: x[:n] for name, x in a.items()})
        if r is None:
            return None
        return np.concatenate([r, np.zeros(_padded(n) - n, r.dtype)])  # the tail stays zero

    register(
        "elementwise", elementwise.VARIANTS, build_plan, elementwise.DEFAULTS, valid=valid,
        inputs=inputs, reference=padded_reference,
        output=lambda k: (_np(k.dtypes[-1]), _padded(k.shape[0])),
    )  # fmt: skip


def _padded(n: int) -> int:
    return -(-n // 4) * 4


# cuBLAS competes in the ``matmul`` family (``ruda._kernels.matmul.gemm``) on cuda. For the products
# it multiplies (float and complex results: library_blas casts other operands) it is what
# ruda.matmul launches without a decision; integer and bool products have only the tiled kernel.
# Only cuBLAS's default algorithm: CuPy exposes no cublasLt (its heuristics' top algorithms),
# and gemmEx's numbered algorithms (CUBLAS_GEMM_ALGO0..23) are deprecated.
CUBLAS_RESULTS = frozenset({"f16", "bf16", "f32", "f64", "c64", "c128"})


def register_families() -> None:
    """Declare the families above (and cuBLAS in ``matmul``); the engine calls this
    once, when it is imported."""
    cublas = Vendor("cublas", "cuda", lambda k: k.dtypes[-1] in CUBLAS_RESULTS)
    add_vendor("matmul", cublas, "tiled")
    for layout in ("full", "rows", "cols"):
        _reduce_family(layout)
    _scan_family()
    try:
        _elementwise_family()
    except Exception as e:  # the elementwise builder is optional for the tuner
        warnings.warn(f"ruda tune: elementwise family not registered ({e})", RuntimeWarning,
                      stacklevel=1)  # fmt: skip
