"""complex64/complex128 kernels: every complex op renders and compiles (WGSL through naga, CUDA
to PTX for sm_90 through NVRTC) and, on the WebGPU adapter here, matches NumPy: random values
within a few ulps of a complex128 reference, and C99's special values and branch cuts (signed
zeros included) exactly as NumPy gives them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ruda._backends.gpu import kernels as casts
from ruda._kernels import elementwise, ir, reduce, scan
from ruda._kernels.math import cmath, cmath_order
from ruda._kernels.render import cuda, nvrtc, wgsl
from ruda._ops import ELEMENTWISE, OPS
from tests.gpu.test_complex import EDGES, same_complex, standard_expm1, standard_tanh

from .runner import Runner, adapter_or_skip

WANTED = {"shader-f16", "shader-f64", "shader-int64", "subgroup"}
COMPLEX = (ir.C64, ir.C128)


def _elementwise_kernels() -> list[ir.Kernel]:
    ks = []
    for op in ELEMENTWISE:
        for ins, out in elementwise.supported_types(op.name):
            if any(t.is_complex for t in ins):
                ks += [elementwise.build(op.name, ins, out, nd) for nd in (None, 1, 3)]
    for ins, out in (((ir.C64,) * 2, ir.C64), ((ir.C128,) * 2, ir.BOOL)):  # tuner variants
        name = "multiply" if out.is_complex else "equal"
        ks += [elementwise.build(name, ins, out, None, ipt=4, wg=64, order=o)
               for o in ("tile", "grid")]  # fmt: skip
    for c in COMPLEX:  # astype and assignment: every real type to and from complex
        for t in (*ir.ALL_TYPES, *COMPLEX):
            ks += [ir.with_features(casts.cast(a, b, nd)) for a, b in ((t, c), (c, t))
                   for nd in (None, 2)]  # fmt: skip
    return list({k.name: k for k in ks}.values())


def _reduce_kernels(lookback: bool) -> list[ir.Kernel]:
    ks = []
    for t in COMPLEX:
        for op in ("sum", "prod"):
            for final in (True, False):
                ks += [reduce.build_rows(op, t, t, final=final),
                       reduce.build_cols(op, t, t, final=final)]  # fmt: skip
            ks.append(reduce.build_rows(op, t, t, 64, 2, 64, "subgroup"))
        for op in scan.OPS:
            for initial in (False, True):
                ks.append(scan.build_scan(op, t, t, 256, 4, initial, initial))
                if lookback:  # CUDA only (no forward-progress guarantee on WebGPU)
                    ks.append(scan.build_lookback(op, t, t, 256, 4, initial))
    return ks


def test_every_complex_op_has_kernels():
    for name in cmath.OPS:
        sigs = [s for s in elementwise.supported_types(name) if s[0][0].is_complex]
        assert {s[0][0] for s in sigs} == ({ir.C128} if name == "float_power" else set(COMPLEX))
        for ins, out in sigs:
            ones = [np.full(1, 0.5, ir.numpy_of(t)) for t in ins]
            assert ir.numpy_of(out) == getattr(np, OPS[name].numpy)(*ones).dtype, name


def test_types_and_features():
    assert ir.type_of(np.complex64) is ir.C64 and ir.type_of(np.complex128) is ir.C128
    assert ir.numpy_of(ir.C128) == np.complex128 and ir.C64.itemsize == 8
    assert elementwise.build("add", (ir.C64,) * 2, ir.C64, None).features == frozenset()
    assert {"shader-f64", "shader-int64"} <= elementwise.build("add", (ir.C128,) * 2, ir.C128,
                                                               None).features  # fmt: skip
    src = wgsl.render(elementwise.build("abs", (ir.C64,), ir.F32, None))
    assert "array<vec2<f32>>" in src and "ruda_cabs_c64" in src
    src = cuda.render(elementwise.build("divide", (ir.C128,) * 2, ir.C128, 2))
    assert "const double2* __restrict__ in0" in src and "make_double2" in src


def test_complex_is_not_ordered():
    x = ir.Var("z", ir.C64)
    with pytest.raises(TypeError, match="not ordered"):
        cmath.lower(x < x)


# -- compiling ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gpu():
    adapter = adapter_or_skip()
    feats = set(sorted(WANTED & set(adapter.features)))
    return adapter.request_device_sync(required_features=sorted(feats)), feats


def test_wgsl_compiles(gpu):
    device, feats = gpu
    ks = [k for k in _elementwise_kernels() + _reduce_kernels(False) if k.features <= feats]
    assert len(ks) > 150
    wide = {"shader-f64", "shader-int64"} & feats
    for features in ({*()}, wide):  # f32 parts through f64 math where the device has it
        try:
            device.create_shader_module(code=wgsl.render_many(ks, features))
        except Exception:
            for k in ks:
                try:
                    device.create_shader_module(code=wgsl.render(k, features))
                except Exception as e:
                    pytest.fail(f"{k.name}: {e}\n{wgsl.render(k, features)}", pytrace=False)


def test_cuda_compiles():
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12)")
    ks = _elementwise_kernels() + _reduce_kernels(True)
    ptx = nvrtc.compile(cuda.render_many(ks), options=(*nvrtc.DEFAULT_OPTIONS, "-w", "-G"))
    assert ".entry ruda_divide_c128_c128_c128_c" in ptx
    assert ".entry ruda_scan_lookback_sum_c64" in ptx


# -- numerics on the adapter ------------------------------------------------------------------
@pytest.fixture(scope="module")
def run(gpu):
    device, feats = gpu
    if not {"shader-f64", "shader-int64"} <= feats:
        pytest.skip("adapter lacks shader-f64: no complex128 reference run")
    return Runner(device, feats)


_EXACT = {"add", "subtract", "negative", "positive", "conj", "real", "imag", "rint", "round"}
# Allowed error in ulps of |exact| (8 unless listed); atan/atanh: (1-x)(1+x) - y^2 near |z| = 1.
_ULPS = {"multiply": 4, "divide": 6, "square": 4, "reciprocal": 4, "abs": 2, "sign": 4,
         "sqrt": 4, "atan": 12, "atanh": 12}  # fmt: skip
# NumPy's complex log1p takes log|1 + z| as log(hypot(1 + x, y)): near z = 0 it loses digits
# to 1 + x (tens of ulps in complex128, a CI failure at 32). Its reference is computed in
# extended precision where the platform has it (x86's 80-bit long double).
_WIDE_REFERENCE = {"log1p"}


def _random(name: str, dt: type, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    def one() -> np.ndarray:
        return rng.standard_normal(n) * 3 + 1j * rng.standard_normal(n) * 3

    args = [one() for _ in range(OPS[name].arity)]
    if name in ("pow", "float_power"):
        args[0] = args[0] / 3
        args[1][: n // 4] = rng.integers(-7, 8, n // 4)  # the repeated-squaring path
    if name in ("equal", "not_equal") or name in cmath_order.OPS:  # orderings: ties too
        args[1][: n // 3] = args[0][: n // 3]
        args[1][n // 3 : n // 2] = args[0][n // 3 : n // 2].real  # equal real parts only
    return [a.astype(dt) for a in args]


@pytest.mark.parametrize("dt", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("name", sorted(cmath.OPS))
def test_random_values_match_numpy(run, name, dt, rng):
    if name == "float_power" and dt is np.complex64:
        pytest.skip("float_power computes in complex128")
    args = _random(name, dt, 1031, rng)
    fn = getattr(np, OPS[name].numpy)
    with np.errstate(all="ignore"):
        want = fn(*args)  # NumPy's own dtype
        exact = fn(*[a.astype(np.complex128) for a in args])  # the reference, complex128
        if name in _WIDE_REFERENCE and dt is np.complex128:
            exact = fn(*[a.astype(np.clongdouble) for a in args]).astype(np.complex128)
    got = run.elementwise(name, args, want.dtype)
    strided = run.elementwise(name, args, want.dtype, strided=True)
    np.testing.assert_array_equal(strided, got)  # same kernel body, any layout
    if want.dtype.kind == "b" or name in _EXACT:
        np.testing.assert_array_equal(got, want)
        return
    eps = np.finfo(got.real.dtype).eps
    ulps = _ULPS.get(name, 8)
    bound = ulps * eps * np.abs(exact)
    if name in ("pow", "float_power"):  # exp(b log a): the error of b log a is amplified
        bound *= 1 + np.abs(args[1] * np.log(args[0].astype(np.complex128)))
    err = np.abs(got.astype(np.complex128) - exact)
    bad = np.flatnonzero(err > bound + np.finfo(np.float64).tiny)
    assert not bad.size, (
        f"{name} {np.dtype(dt)}: {bad.size} beyond {ulps} ulps, e.g. "
        f"{[a[bad[0]] for a in args]} -> {got[bad[0]]}, want {exact[bad[0]]}"
    )


@pytest.mark.parametrize("dt", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("name", sorted(n for n in cmath.OPS if OPS[n].arity == 1))
def test_special_values_and_branch_cuts(run, name, dt):
    """Every pairing of NaN, +-inf, +-0, values on and off the branch cuts and huge parts:
    C99 Annex G's special values and the sides of the cuts (the sign of a zero part)."""
    z = np.array([complex(a, b) for a in EDGES for b in EDGES]).astype(dt)
    if name == "square":  # NumPy's loop rounds x*x - y*y with an FMA; WGSL's fma may not fuse
        z = z[np.abs(z) < 1e20]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        standard = {"expm1": standard_expm1, "tanh": standard_tanh}.get(name)
        want = standard(z) if standard else getattr(np, OPS[name].numpy)(z)
    got = run.elementwise(name, [z], want.dtype)
    if want.dtype.kind != "c":
        np.testing.assert_array_equal(got, want)
        return
    bad = [(z[i], got[i], want[i]) for i in range(z.size) if not same_complex(got[i], want[i])]
    assert not bad, f"{name}: {len(bad)} differ from NumPy, e.g. {bad[:4]}"


@pytest.mark.parametrize("dt", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "equal",
                                  "not_equal", *sorted(cmath_order.OPS)])  # fmt: skip
def test_binary_special_values(run, name, dt):
    """Division by zero and by infinities (Smith's algorithm, as NumPy), 0 ** b, inf ** b;
    the orderings (maximum, less, ...) with NaN, infinite and signed-zero parts."""
    edges = [0.0, -0.0, 0.5, -2.0, 3.0, np.inf, -np.inf, np.nan]
    z = np.array([complex(a, b) for a in edges for b in edges])
    a, b = (m.ravel().astype(dt) for m in np.meshgrid(z, z))
    with np.errstate(all="ignore"):
        want = getattr(np, OPS[name].numpy)(a, b)
    got = run.elementwise(name, [a, b], want.dtype)
    if want.dtype.kind == "b":
        np.testing.assert_array_equal(got, want)
        return
    # pow's repeated squaring: the sign of an exact zero part depends on FMA contraction
    signs = name != "pow"
    bad = [(a[i], b[i], got[i], want[i]) for i in range(a.size)
           if not same_complex(got[i], want[i], signs)]  # fmt: skip
    assert not bad, f"{name}: {len(bad)} differ from NumPy, e.g. {bad[:4]}"


def test_overflow_safe_division_and_abs(run):
    """|b|^2 would overflow (or underflow) here; Smith's algorithm and hypot do not."""
    big, tiny = 1e300, 1e-300
    a = np.array([big + big * 1j, tiny + tiny * 1j, 1 + 1j, big - 1j])
    b = np.array([big - big * 1j, tiny - tiny * 1j, big + big * 1j, 2 * big + big * 1j])
    np.testing.assert_allclose(run.elementwise("divide", [a, b], np.complex128), a / b,
                               rtol=1e-15)  # fmt: skip
    np.testing.assert_allclose(run.elementwise("abs", [a], np.float64), np.abs(a), rtol=1e-15)
    c = (a[:1] / 1e262).astype(np.complex64)  # 1e38 parts: their squares overflow f32
    np.testing.assert_allclose(run.elementwise("abs", [c], np.float32), np.abs(c), rtol=1e-6)
    for z in (np.array([1.7e308 + 1.7e308j, -1.7e308 + 1e-300j]),
              np.array([3e38 + 3e38j, -3e38 - 1j], np.complex64)):  # fmt: skip
        np.testing.assert_allclose(run.elementwise("sqrt", [z], z.dtype), np.sqrt(z), rtol=1e-6)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128], ids=["c64", "c128"])
def test_reductions_and_scans(run, dt, rng):
    n = 100003
    x = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 10).astype(dt)
    t = ir.type_of(dt)
    eps = np.finfo(x.real.dtype).eps
    for op in ("sum", "prod"):
        v = x if op == "sum" else np.exp(1j * rng.uniform(-0.1, 0.1, n) + rng.uniform(
            -1e-3, 1e-3, n)).astype(dt)  # fmt: skip
        plan = reduce.plan_full(op, t, t, n, {})
        got = run.run_plan(plan, {"x": v}, dt, 1)[0]
        want = getattr(np, op)(v.astype(np.complex128))
        mag = np.sum(np.abs(v)) if op == "sum" else n * abs(want)
        assert abs(got - want) <= 8 * eps * mag, (op, got, want)
        rows = reduce.plan_rows(op, t, t, 3, n // 3, {})
        got = run.run_plan(rows, {"x": v[: n // 3 * 3]}, dt, 3)
        want = getattr(np, op)(v[: n // 3 * 3].reshape(3, -1).astype(np.complex128), axis=1)
        assert np.all(np.abs(got - want) <= 8 * eps * np.abs(mag)), (op, got, want)
    m = 5001
    plan = scan.plan_scan("cumulative_sum", t, t, 1, m, {}, False)
    got = run.run_plan(plan, {"x": x[:m]}, dt, m)
    want = np.cumsum(x[:m].astype(np.complex128))
    bound = 8 * eps * np.cumsum(np.abs(x[:m]))
    assert np.all(np.abs(got - want) <= bound)
