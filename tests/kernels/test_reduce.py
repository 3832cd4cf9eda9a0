"""Reduction kernels: every builder x dtype x a sample of variants renders and compiles (WGSL via
naga, CUDA via NVRTC), and plans run on the WebGPU adapter (lavapipe in CI) against NumPy on
random data: odd and multi-pass sizes, all three layouts, NaNs for max/min, the centred pass of var.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ruda._kernels import ir, reduce
from ruda._kernels.render import cuda, nvrtc, wgsl

from .runner import Runner, adapter_or_skip

DTYPES = (ir.F32, ir.F64, ir.I32, ir.I64, ir.U8, ir.BOOL, ir.F16)
WANTED = {"shader-f16", "shader-f64", "shader-int64", "subgroup"}


@pytest.fixture(scope="module")
def gpu():
    adapter = adapter_or_skip()
    feats = sorted(WANTED & set(adapter.features))
    return Runner(adapter.request_device_sync(required_features=feats)), set(feats)


def _render_cases() -> list[ir.Kernel]:
    ks = []
    for t in DTYPES:
        for op in reduce.OPS:
            if op in ("max", "min") and t is ir.BOOL:
                continue
            out = reduce.result_type(op, t)
            for final in (True, False):
                ks.append(reduce.build_rows(op, t, out, final=final))
                ks.append(reduce.build_cols(op, t, out, final=final))
            ks.append(reduce.build_rows(op, t, out, 64, 2, 64, "subgroup"))
            ks.append(reduce.build_rows(op, t, out, 128, 1, 4))
            ks.append(reduce.build_cols(op, t, out, 256, 2, 8))
        if t.is_float:
            ks.append(reduce.build_rows("sum", t, t, center=True))
            ks.append(reduce.build_cols("sum", t, t, center=True))
    return ks


def test_variant_spaces_build():
    for family in reduce.VARIANTS:
        vs = reduce.variants(family)
        assert vs and all(set(v) == set(reduce.VARIANTS[family]) for v in vs)
        assert not any(v.get("combine") == "subgroup" for v in reduce.variants(family, False))
    for v in reduce.variants("rows")[::17]:
        reduce.plan_rows("sum", ir.F32, ir.F32, 7, 3001, v)
    for v in reduce.variants("cols")[::7]:
        reduce.plan_cols("max", ir.I8, ir.I8, 3001, 7, v)
    for v in reduce.variants("full")[::11]:
        reduce.plan_full("any", ir.F16, ir.BOOL, 100003, v)


def test_types_follow_numpy():
    for t in DTYPES:
        for op in ("sum", "prod", "max", "min", "any", "all"):
            if op in ("max", "min") and t is ir.BOOL:
                continue
            x = np.ones(3, ir.numpy_of(t))
            assert ir.numpy_of(reduce.result_type(op, t)) == getattr(np, op)(x).dtype, (op, t)
    assert reduce.acc_type("sum", ir.F16, ir.F16) is ir.F32
    assert reduce.acc_type("max", ir.I8, ir.I8) is ir.I32


def test_wgsl_compiles(gpu):
    run, feats = gpu
    ks = [k for k in _render_cases() if k.features <= feats]
    assert len(ks) > 200
    try:
        run.device.create_shader_module(code=wgsl.render_many(ks))
    except Exception:
        for k in ks:
            try:
                run.device.create_shader_module(code=wgsl.render(k))
            except Exception as e:
                pytest.fail(f"{k.name}: {e}\n{wgsl.render(k)}", pytrace=False)


def test_cuda_compiles():
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12)")
    src = cuda.render_many(_render_cases())
    ptx = nvrtc.compile(src, options=(*nvrtc.DEFAULT_OPTIONS, "-w", "-G"))
    assert "shfl.sync.bfly" in ptx


# -- numerics on the device -----------------------------------------------------------------------
def data(t: ir.Type, shape: tuple[int, ...], op: str, rng) -> np.ndarray:
    """Random data that never is all zeros; near 1 (or small ints) for products."""
    dt = ir.numpy_of(t)
    if t is ir.BOOL:
        return rng.random(shape) < (0.97 if op == "all" else 0.03 if op == "any" else 0.5)
    if op == "prod":
        if t.is_float:
            return rng.uniform(0.99, 1.01, shape).astype(dt)
        return rng.choice(np.array([1, 2, 3, 1] if t.kind == "u" else [1, -1, 2, 1]), shape).astype(
            dt
        )
    if t.is_float:
        return (rng.standard_normal(shape) * 10).astype(dt)
    lo = 0 if t.kind == "u" else -100
    x = rng.integers(lo, 100, shape).astype(dt)
    if op in ("any", "all"):
        x[x == 0] = 1
        x.flat[rng.integers(0, x.size)] = 0
    return x


def check(got: np.ndarray, x: np.ndarray, want: np.ndarray, op: str, axis, what: str) -> None:
    if want.dtype.kind in "biu" or op in ("max", "min"):
        ok = (got == want) | (np.isnan(got.astype(float)) & np.isnan(want.astype(float)))
    else:
        # an error bound for a reordered sum: a few ulps of the sum of magnitudes
        with np.errstate(all="ignore"):
            mag = np.sum(np.abs(x.astype(np.float64)), axis=axis)
            if op == "prod":
                mag = np.abs(want.astype(np.float64)) * np.size(x) / max(np.size(want), 1)
        eps = np.finfo(want.dtype).eps
        ok = np.abs(got.astype(np.float64) - want.astype(np.float64)) <= 8 * eps * mag + 1e-300
    if not np.all(ok):
        bad = np.flatnonzero(~np.asarray(ok))[:5]
        pytest.fail(f"{what}: {np.size(ok) - np.sum(ok)} differ, e.g. at {bad}: got "
                    f"{np.ravel(got)[bad]} want {np.ravel(want)[bad]}", pytrace=False)  # fmt: skip


def reference(x: np.ndarray, op: str, axis, out_t: ir.Type) -> np.ndarray:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if op in ("sum", "prod") and x.dtype.kind == "f":  # exact reference, rounded once
            r = getattr(np, op)(x.astype(np.float64), axis=axis)
        else:
            r = getattr(np, op)(x, axis=axis)
    return np.asarray(r).astype(ir.numpy_of(out_t))


CASES = [
    ("full", (1,), {}), ("full", (255,), {}), ("full", (257,), {"combine": "subgroup"}),
    ("full", (100003,), {}),
    ("full", (100003,), {"wg": 64, "ipt": 1, "combine": "subgroup"}),  # three passes
    ("rows", (37, 1001), {}), ("rows", (3, 100003), {"combine": "subgroup"}),
    ("rows", (255, 3), {"tpr": 1}), ("rows", (257, 67), {"wg": 128, "tpr": 8}),
    ("cols", (1001, 37), {}), ("cols", (100003, 3), {"rt": 4}), ("cols", (3, 257), {"wg": 64}),
]  # fmt: skip


def run_reduce(gpu, family, shape, variant, t, op, x, center=None):
    run, _ = gpu
    out_t = reduce.result_type(op, t)
    if family == "full":
        plan, axis, count = (
            reduce.plan_full(op, t, out_t, x.size, variant, center is not None),
            None,
            1,
        )
    elif family == "rows":
        plan = reduce.plan_rows(op, t, out_t, *shape, variant, center is not None)
        axis, count = 1, shape[0]
    else:
        plan = reduce.plan_cols(op, t, out_t, *shape, variant, center is not None)
        axis, count = 0, shape[1]
    arrays = {"x": x} if center is None else {"x": x, "mean": center}
    got = run.run_plan(plan, arrays, ir.numpy_of(out_t), count)
    return (got if axis is not None else got[0]), axis, out_t, len(plan.launches)


@pytest.mark.parametrize("family,shape,variant", CASES, ids=lambda c: str(c).replace(" ", ""))
def test_matches_numpy(gpu, family, shape, variant, rng):
    _, feats = gpu
    if variant.get("combine") == "subgroup" and "subgroup" not in feats:
        pytest.skip("adapter has no subgroups")
    passes = set()
    for t in DTYPES:
        if not ir.features_of([t]) <= feats:
            continue
        for op in reduce.OPS:
            if op in ("max", "min") and t is ir.BOOL:
                continue
            x = data(t, shape, op, rng)
            got, axis, out_t, n = run_reduce(gpu, family, shape, variant, t, op, x)
            passes.add(n)
            check(got, x, reference(x, op, axis, out_t), op, axis, f"{op} {t.name} {shape}")
    if np.prod(shape) > 50000:
        assert max(passes) >= 2  # the multi-pass path ran


@pytest.mark.parametrize("family,shape", [("full", (100003,)), ("rows", (5, 3001)),
                                          ("cols", (3001, 5))])  # fmt: skip
def test_nan_propagates(gpu, family, shape, rng):
    _, feats = gpu
    for t in (ir.F32, ir.F64, ir.F16):
        if not ir.features_of([t]) <= feats:
            continue
        x = data(t, shape, "max", rng)
        x.flat[rng.integers(0, x.size, 3)] = np.nan
        for op in ("max", "min"):
            got, axis, out_t, _ = run_reduce(gpu, family, shape, {}, t, op, x)
            check(got, x, reference(x, op, axis, out_t), op, axis, f"{op} {t.name} NaN")


@pytest.mark.parametrize("family,shape", [("full", (100003,)), ("rows", (7, 2001)),
                                          ("cols", (2001, 7))])  # fmt: skip
def test_variance_second_pass(gpu, family, shape, rng):
    for t in (ir.F32, ir.F64):
        x = (rng.standard_normal(shape) * 3 + 1000).astype(ir.numpy_of(t))  # a large mean
        axis = {"full": None, "rows": 1, "cols": 0}[family]
        mean = np.atleast_1d(np.mean(x.astype(np.float64), axis=axis)).astype(x.dtype)
        got, *_ = run_reduce(gpu, family, shape, {}, t, "sum", x, center=mean)
        want = np.var(x.astype(np.float64), axis=axis) * (x.size / np.size(mean))
        np.testing.assert_allclose(got, want, rtol=1e-4 if t is ir.F32 else 1e-10)
