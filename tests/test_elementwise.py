"""Elementwise functions, driven by the op table: every entry against NumPy on every device."""

from __future__ import annotations

import operator

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from ruda import _dtypes as dt
from ruda._ops import ELEMENTWISE, STANDARD_ELEMENTWISE
from tests.helpers import assert_close, to_numpy

_CATEGORY_DTYPES = dt.CATEGORIES  # the standard's categories as dtypes (ruda._dtypes)
# Ops whose NumPy reference is undefined on part of the integer range (shifts, negative powers).
_NONNEG_SECOND = {"bitwise_left_shift", "bitwise_right_shift", "pow", "float_power", "ldexp"}
_SKIP_TESTED_ELSEWHERE = {"isnat", "divmod", "frexp", "modf", "ldexp"}
# Results defined by the dtype itself: compared with NumPy in the same dtype only.
_DTYPE_DEFINED = {"spacing", "nextafter"}
OPS = [op for op in ELEMENTWISE if op.name not in _SKIP_TESTED_ELSEWHERE]
OPS_BY_NAME = {op.name: op for op in OPS}


def _elements(d: dt.DType, op_name: str, second: bool = False):
    if d.kind == "b":
        return st.booleans()
    if d.kind in "iu":
        info = numpy.iinfo(d._np)
        lo, hi = int(info.min), int(info.max)
        if second and op_name in _NONNEG_SECOND:
            lo, hi = 0, min(hi, info.bits - 1, 5)
        elif op_name in ("pow", "float_power", "square", "multiply", "lcm", "gcd"):
            lo, hi = max(lo, -11), min(hi, 11)
        return st.integers(lo, hi)
    width = 32 if d in (dt.float32, dt.complex64) else 64
    if d.kind == "c":
        return st.complex_numbers(max_magnitude=20, allow_nan=False, width=2 * width)
    return st.floats(-1e3, 1e3, width=width, allow_subnormal=False)


def _complex_log1p(z):
    # Note: NumPy's complex log1p is log(1 + z), which loses every digit for |z| < 1e-16; ruda
    # keeps log1p's accuracy, so the oracle is the accurate form: |1+z|^2 - 1 = 2x + x^2 + y^2.
    z = numpy.asarray(z)
    if z.dtype.kind != "c":
        return numpy.log1p(z)
    x, y = z.real.astype(numpy.float64), z.imag.astype(numpy.float64)
    near = numpy.abs(z) < 0.5  # elsewhere log(1 + z) is accurate (and 2x + x^2 may overflow)
    re = 0.5 * numpy.log1p(numpy.where(near, 2 * x + x * x + y * y, 0))
    accurate = numpy.empty(z.shape, numpy.complex128)  # by parts: 1j * -0.0 has a +0 part
    accurate.real, accurate.imag = re, numpy.arctan2(y, 1 + x)
    # numpy.log scales where |1 + z| overflows (numpy.log1p's loop gives inf there); 1 + z is
    # formed by parts, as 1 + 0j would turn a -0 imaginary part into +0
    u = z.copy()
    u.real += 1
    return numpy.where(near, accurate, numpy.log(u)).astype(z.dtype)


def _complex_sign(z):
    # NumPy divides by |z| in the input's precision (subnormal parts give 1+1j, parts whose |z|
    # overflows 0+1j); the direction of z is that of z scaled by a power of two.
    z = numpy.asarray(z)
    if z.dtype.kind != "c":
        return numpy.sign(z)
    info = numpy.finfo(z.dtype)
    tiny = numpy.maximum(abs(z.real), abs(z.imag)) < info.tiny
    huge = numpy.isinf(abs(z)) & numpy.isfinite(z)
    scale = numpy.where(tiny | huge, numpy.where(tiny, 2.0 ** (info.nmant + 1), 0.25), 1.0)
    scaled = z.copy()  # by parts: z * (s + 0j) would turn a -0 part into +0
    scaled.real, scaled.imag = z.real * scale, z.imag * scale
    return numpy.sign(scaled)


def _complex_divide(a, b):
    # NumPy's Smith division takes 1 / (c + d r), which overflows for a divisor with only
    # subnormal parts (0 / 5e-324j is NaN); the quotient is ka / kb, k a power of two.
    a, b = numpy.asarray(a), numpy.asarray(b)
    q = numpy.divide(a, b)
    if q.dtype.kind != "c" or b.dtype.kind != "c":
        return q
    info = numpy.finfo(b.dtype)
    small = (numpy.maximum(abs(b.real), abs(b.imag)) < info.tiny) & (b != 0)
    k = 2.0 ** (info.nmant + 1)
    ka, kb = a.astype(q.dtype), b.copy()  # by parts: v * (k + 0j) turns a -0 part into +0
    ka.real, ka.imag, kb.real, kb.imag = a.real * k, a.imag * k, b.real * k, b.imag * k
    return numpy.where(small, ka / kb, q)


_ORACLES = {"log1p": _complex_log1p, "sign": _complex_sign, "divide": _complex_divide}


def _reference(op, *arrays):
    """NumPy's result on the same dtypes (the dtype oracle) and in float64/complex128 (values)."""
    fn = _ORACLES.get(op.name) or getattr(numpy, op.numpy)
    same = fn(*arrays)
    wide = [a.astype(numpy.complex128 if a.dtype.kind == "c" else numpy.float64)
            if a.dtype in (numpy.float32, numpy.complex64) else a for a in arrays]  # fmt: skip
    return numpy.asarray(same), numpy.asarray(fn(*wide))


def _compare(got, same, wide, device, op=None, atol=None):
    """``got`` against NumPy; ``atol``: an elementwise error bound (a condition number's) added
    to the relative tolerance."""
    assert got.device == device
    a = to_numpy(got)
    assert a.dtype == same.dtype, f"dtype {a.dtype} != {same.dtype}"
    if a.dtype in (numpy.float32, numpy.complex64) and op not in _DTYPE_DEFINED:
        # Single precision against the double-precision value, where that value fits.
        ref = wide.astype(a.dtype)
        finite = numpy.isfinite(ref)
        numpy.testing.assert_array_equal(numpy.isfinite(a), finite)
        if atol is None:
            numpy.testing.assert_allclose(a[finite], ref[finite], rtol=1e-5, atol=1e-5)
        else:
            bound = numpy.broadcast_to(atol, a.shape)[finite] + 1e-5 + 1e-5 * abs(ref[finite])
            ok = abs(a[finite] - ref[finite]) <= bound
            assert ok.all(), f"{op}: got {a[finite][~ok]}, want {ref[finite][~ok]}"
    elif atol is not None:
        with numpy.errstate(invalid="ignore"):
            ok = (a == same) | (numpy.isnan(a) & numpy.isnan(same))
            ok |= numpy.abs(a - same) <= atol + 1e-6 * numpy.abs(same)
        ok = numpy.broadcast_to(ok, a.shape)
        assert ok.all(), f"{op}: got {a[~ok]}, NumPy {same[~ok]}"
    elif a.dtype.kind == "c":
        # Complex products of subnormal parts keep a bit or two: NumPy's FMA loop and a plain
        # one differ there by a subnormal ulp, so agree in absolute terms below the normals.
        tiny = numpy.finfo(a.dtype).tiny
        fin = numpy.isfinite(same)
        assert_close(a[fin], same[fin], atol=tiny)
        # An infinite part: each part on its own (numpy.isclose wants the finite one exact).
        for part in (numpy.real, numpy.imag):
            assert_close(part(a[~fin]), part(same[~fin]), atol=tiny)
    else:
        assert_close(got, same)


def _cancellation_bound(op, a, b):
    """logaddexp(a, b) is max + log1p(exp(-|a - b|)): near 0 the two terms cancel, so the
    result is good to a few ulp of max(|a|, |b|), not of itself (logaddexp2(-1, -1 + 2 ulp))."""
    if op.name not in ("logaddexp", "logaddexp2"):
        return None
    m = numpy.asarray(numpy.maximum(numpy.abs(a), numpy.abs(b)))
    return 4 * numpy.finfo(m.dtype).eps * m if m.dtype.kind == "f" else None


def _pow_bound(op, a, b):
    """Complex a ** b = exp(b log a) in single precision: b log a carries a relative error of
    eps, so the result one of eps |b| |log a| (its phase for a tiny base: 1e-5 ** 20j)."""
    if op.name != "pow" or numpy.result_type(a, b) != numpy.complex64:
        return None
    with numpy.errstate(all="ignore"):
        a, b = a.astype(numpy.complex128), b.astype(numpy.complex128)
        cond = abs(b) * (abs(numpy.log(abs(a))) + numpy.pi) * abs(numpy.power(a, b))
        return numpy.where(numpy.isfinite(cond), 4 * numpy.finfo(numpy.float32).eps * cond, 0.0)


@pytest.mark.parametrize("op", [o for o in OPS if o.arity == 1], ids=lambda o: o.name)
@given(data=st.data())
def test_unary(op, device, data):
    d = data.draw(st.sampled_from(_CATEGORY_DTYPES[op.category]), label="dtype")
    a = data.draw(hnp.arrays(d._np, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                             elements=_elements(d, op.name)), label="x")  # fmt: skip
    with numpy.errstate(all="ignore"):
        same, wide = _reference(op, a)
        got = getattr(ruda, op.name)(ruda.asarray(a, device=device))
    _compare(got, same, wide, device, op.name)


_COMPLEX_UNARY = [o for o in OPS if o.arity == 1 and dt.complex64 in _CATEGORY_DTYPES[o.category]]


@pytest.mark.parametrize("op", _COMPLEX_UNARY, ids=lambda o: o.name)
@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128], ids=str)
def test_unary_complex_tiny_parts(op, dtype, device):
    # Random draws reach subnormal parts only rarely (CI found log10(5e-324+5e-324j) once).
    tiny = numpy.finfo(dtype._np).smallest_subnormal
    parts = numpy.array([tiny, 3 * tiny, -7 * tiny, 1e-30, 0.75], dtype=numpy.float64)
    z = (parts[:, None] + 1j * parts[None, :]).astype(dtype._np)
    with numpy.errstate(all="ignore"):
        same, wide = _reference(op, z)
        got = getattr(ruda, op.name)(ruda.asarray(z, device=device))
    _compare(got, same, wide, device, op.name)


# Ops finite on the whole grid below (its huge parts overflow squares, products and exp).
_FINITE_ON_HUGE = ["log", "log1p", "log2", "log10", "sqrt", "sign", "acos", "acosh", "asin",
                   "asinh", "atan", "atanh", "reciprocal"]  # fmt: skip


@pytest.mark.parametrize("op", [OPS_BY_NAME[n] for n in _FINITE_ON_HUGE], ids=lambda o: o.name)
@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128], ids=str)
def test_unary_complex_huge_and_unit_parts(op, dtype, device):
    # |z| past the largest float (log's hypot, Kahan's products in the arc functions) and
    # atanh(+-1 + tiny j) (its (1 - |x|)^2 + y^2 underflows) went to inf on wgpu.
    info = numpy.finfo(dtype._np)
    parts = numpy.array([info.max, -info.max / 3, 1.0, -1.0, 1e-30, info.tiny, 0.0, 0.75])
    z = (parts[:, None] + 1j * parts[None, :]).astype(dtype._np)
    with numpy.errstate(all="ignore"):
        same, wide = _reference(op, z)
        got = getattr(ruda, op.name)(ruda.asarray(z, device=device))
    _compare(got, same, wide, device, op.name)


@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128], ids=str)
def test_square_complex_huge_part(dtype, device):
    # 2xy must not be computed as (x + x)y: drivers reassociate xy + yx so (lavapipe gave NaN
    # for square(max + 0j), inf for square(max + tiny j)).
    info = numpy.finfo(dtype._np)
    parts = [(info.max, 0.0), (info.max, info.smallest_subnormal), (-info.tiny, info.max),
             (info.max / 2, -1.0)]  # fmt: skip
    z = numpy.array([complex(x, y) for x, y in parts], dtype._np)
    with numpy.errstate(all="ignore"):
        got = to_numpy(ruda.square(ruda.asarray(z, device=device)))
        want = numpy.square(z)  # NumPy's loop: fma(x, x, -y*y) + 2xy j
    numpy.testing.assert_array_equal(got.real, want.real)
    numpy.testing.assert_allclose(got.imag, want.imag, rtol=1e-6)


@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128], ids=str)
def test_divide_complex_subnormal_divisor(dtype, device):
    # 1 / (c + d r) overflows for a divisor with only subnormal parts: NumPy's 0 / 1e-45j is
    # NaN (a plausible hypothesis draw: zeros and the smallest subnormal are favourites).
    t = numpy.finfo(dtype._np).smallest_subnormal
    a = numpy.array([0, t, 3 * t + 1j * t, 1 - 1j, 1e-30j, 0.5], dtype._np)
    b = numpy.array([1j * t, t, t - 2j * t, 5 * t, 7 * t + 1j * t, -1j * t], dtype._np)
    with numpy.errstate(all="ignore"):
        same, wide = _reference(OPS_BY_NAME["divide"], a, b)
        got = ruda.divide(ruda.asarray(a, device=device), ruda.asarray(b, device=device))
    _compare(got, same, wide, device, "divide")


@pytest.mark.parametrize("dtype", [dt.complex64, dt.complex128], ids=str)
def test_pow_complex_negative_integer_underflow(dtype, device):
    # z ** -n with z ** n underflowing to 0 is NumPy's 1 / (0 + 0j) = inf + nan j; lavapipe
    # folded the constant 0 / x of that division to 0 (inf + 0j).
    t = numpy.finfo(dtype._np).smallest_subnormal
    a = numpy.array([t, 1j * t, 1e-30 + 1e-30j, 0.5], dtype._np)
    b = numpy.array([-2, -3, -17, -2], dtype._np)
    with numpy.errstate(all="ignore"):
        same, wide = _reference(OPS_BY_NAME["pow"], a, b)
        got = ruda.pow(ruda.asarray(a, device=device), ruda.asarray(b, device=device))
    _compare(got, same, wide, device, "pow")


def test_pow_complex64_tiny_base(device):
    # exp(b log a): a phase of |b log a| ~ 2000 radians carries 1e-4 in single precision
    # (NumPy's complex64 power too); the oracle's bound is that condition number.
    a = numpy.array([1e-45j, 1e-5, 1.1754944e-38j, 0.5 + 0.5j], numpy.complex64)
    b = numpy.array([-19.99j, 20j, -1 + 20j, 3 - 2j], numpy.complex64)
    op = OPS_BY_NAME["pow"]
    with numpy.errstate(all="ignore"):
        same, wide = _reference(op, a, b)
        got = ruda.pow(ruda.asarray(a, device=device), ruda.asarray(b, device=device))
    _compare(got, same, wide, device, "pow", _pow_bound(op, a, b))


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_where_it_cancels(name, device):
    # Results near 0 from operands near -log(2) (-1 for base 2): a 1-ulp difference of the
    # device's log1p or exp from the C library's is the whole result (a rare hypothesis draw).
    op = OPS_BY_NAME[name]
    c = 1.0 if name == "logaddexp2" else numpy.log(2.0)
    a = -numpy.nextafter(c, 0.0) - numpy.array([0.0, 1e-16, 3e-16, 1e-12, -2e-16])
    b = numpy.array([-c, -c, -numpy.nextafter(c, 2.0), -c, 1e-3 - c])
    with numpy.errstate(all="ignore"):
        same, wide = _reference(op, a, b)
        got = getattr(ruda, name)(ruda.asarray(a, device=device), ruda.asarray(b, device=device))
    _compare(got, same, wide, device, name, _cancellation_bound(op, a, b))


@pytest.mark.parametrize("op", [o for o in OPS if o.arity == 2], ids=lambda o: o.name)
@given(data=st.data())
def test_binary_broadcasting(op, device, data):
    d1 = data.draw(st.sampled_from(_CATEGORY_DTYPES[op.category]), label="dtype1")
    same_kind = [d for d in _CATEGORY_DTYPES[op.category] if d.kind == d1.kind]
    d2 = data.draw(st.sampled_from(same_kind), label="dtype2")
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
    a = data.draw(hnp.arrays(d1._np, shapes.input_shapes[0], elements=_elements(d1, op.name)))
    b = data.draw(hnp.arrays(d2._np, shapes.input_shapes[1], elements=_elements(d2, op.name, True)))
    with numpy.errstate(all="ignore"):
        same, wide = _reference(op, a, b)
        got = getattr(ruda, op.name)(ruda.asarray(a, device=device), ruda.asarray(b, device=device))
    bound = _cancellation_bound(op, a, b)
    _compare(got, same, wide, device, op.name, _pow_bound(op, a, b) if bound is None else bound)


@pytest.mark.parametrize("op", [o for o in OPS if o.dunder and o.arity == 2], ids=lambda o: o.name)
def test_operators_and_scalars(op, device, rng):
    pyop = getattr(operator, op.dunder if op.dunder not in ("and", "or") else op.dunder + "_")
    kinds = {d.kind for d in _CATEGORY_DTYPES[op.category]}
    d = numpy.float64 if "f" in kinds else (numpy.int32 if "i" in kinds else numpy.bool_)
    a = rng.integers(1, 7, size=(3, 4)).astype(d)
    b = rng.integers(1, 4, size=(4,)).astype(d)
    scalar = True if d is numpy.bool_ else (2 if d is numpy.int32 else 1.5)
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    assert_close(pyop(x, y), pyop(a, b))
    assert_close(pyop(x, scalar), pyop(a, scalar))
    assert_close(pyop(scalar, x), pyop(scalar, a))
    if op.result != "bool":
        iop = getattr(
            operator, f"i{op.dunder}" if op.dunder not in ("and", "or") else f"i{op.dunder}"
        )
        view = x[1:]  # in-place must write through views
        before = x
        x = iop(x, y)
        a = iop(a, b)
        assert x is before
        assert_close(x, a)
        assert_close(view, a[1:])


def test_unary_operators(device, rng):
    a = rng.standard_normal((3, 3))
    x = ruda.asarray(a, device=device)
    assert_close(-x, -a)
    assert_close(+x, +a)
    assert_close(abs(x), abs(a))
    i = ruda.asarray(rng.integers(-50, 50, 7), device=device)
    assert_close(~i, ~to_numpy(i))


def test_matmul_operator(device, rng):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    assert_close(x @ y, a @ b)
    s = ruda.asarray(rng.standard_normal((4, 4)), device=device)
    ref = to_numpy(s) @ to_numpy(s)
    s @= s
    assert_close(s, ref)


def test_ufunc_keywords_and_methods(device, rng):
    a = rng.standard_normal((4, 5))
    b = rng.standard_normal((4, 5))
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    out = ruda.empty((4, 5), device=device)
    r = ruda.add(x, y, out=out)
    assert r is out
    assert_close(out, a + b)
    mask = a > 0
    out2 = ruda.asarray(numpy.full((4, 5), 7.0), device=device)
    ruda.multiply(x, y, out=out2, where=ruda.asarray(mask, device=device))
    assert_close(out2, numpy.where(mask, a * b, 7.0))
    assert_close(ruda.add.reduce(x, axis=0), numpy.add.reduce(a, axis=0))
    assert_close(ruda.multiply.accumulate(x, axis=1), numpy.multiply.accumulate(a, axis=1))
    assert_close(ruda.subtract.outer(x[0], y[1]), numpy.subtract.outer(a[0], b[1]))
    assert_close(ruda.sin(x, dtype=ruda.float32), numpy.sin(a, dtype=numpy.float32))
    c = a.copy()
    z = ruda.asarray(c, device=device, copy=True)
    ruda.add.at(z, ruda.asarray([0, 0, 2], device=device), 1.0)
    numpy.add.at(c, [0, 0, 2], 1.0)
    assert_close(z, c)


def test_out_and_in_place_dense(device, rng):
    """``out=`` of the result dtype, an operand as ``out``, in-place dunders, and an ``out`` of
    another dtype (NumPy's loop runs in the result dtype, then casts into out)."""
    a = rng.standard_normal(1000).astype(numpy.float32)
    b = rng.standard_normal(1000).astype(numpy.float32)
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    out = ruda.empty(1000, dtype=ruda.float32, device=device)
    assert ruda.multiply(x, y, out=out) is out
    assert_close(out, a * b, rtol=0.0)
    z = ruda.asarray(a, device=device, copy=True)
    z += y
    z *= x
    assert_close(z, (a + b) * a, rtol=0.0)
    w = ruda.asarray(a, device=device, copy=True)
    ruda.add(w, w, out=w)
    assert_close(w, a + a, rtol=0.0)
    for dtype, want in ((ruda.float64, numpy.float64), (ruda.float16, numpy.float16)):
        o = ruda.empty(1000, dtype=dtype, device=device)
        ruda.add(x, y, out=o)
        expected = numpy.empty(1000, want)
        numpy.add(a, b, out=expected, casting="same_kind")
        assert_close(o, expected, rtol=0.0)


def test_numpy_ufunc_names(device, rng):
    a = rng.uniform(0.1, 3, 6)
    x = ruda.asarray(a, device=device)
    for name in ("absolute", "power", "true_divide", "arctan2", "mod", "fmod", "fmax", "fmin"):
        assert_close(getattr(ruda, name)(x, x), getattr(numpy, name)(a, a)) if name not in (
            "absolute",
        ) else assert_close(ruda.absolute(-x), numpy.absolute(-a))
    for name in ("rint", "fix", "degrees", "radians", "exp2", "cbrt"):
        assert_close(getattr(ruda, name)(x), getattr(numpy, name)(a))
    e = rng.integers(-3, 4, 6)
    assert_close(ruda.ldexp(x, ruda.asarray(e, device=device)), numpy.ldexp(a, e))
    m, ex = ruda.frexp(x)
    assert_close(m, numpy.frexp(a)[0])
    assert_close(ex, numpy.frexp(a)[1])
    q, r = divmod(x, 0.7)
    assert_close(q, a // 0.7)
    assert_close(r, a % 0.7)


def test_clip(device, rng):
    a = rng.integers(-100, 100, 20).astype(numpy.int8)
    x = ruda.asarray(a, device=device)
    assert_close(ruda.clip(x, -5, 5), numpy.clip(a, -5, 5))
    assert_close(ruda.clip(x, min=-1000, max=1000), a)  # out-of-range bounds keep int8
    f = rng.standard_normal(10)
    lo = ruda.asarray(numpy.full(10, -0.5), device=device)
    assert_close(ruda.clip(ruda.asarray(f, device=device), lo, 0.5), numpy.clip(f, -0.5, 0.5))


def test_standard_names_in_table():
    assert STANDARD_ELEMENTWISE <= {op.name for op in ELEMENTWISE}
    assert len(STANDARD_ELEMENTWISE) == 66  # the 2025.12 list, less clip (ternary, own function)


def test_errors_name_the_function(device):
    x = ruda.asarray([1.0, 2.0], device=device)
    other = ruda._array._wrap(numpy.asarray([1.0, 2.0]), ruda.Device("wgpu:7"))
    with pytest.raises(ValueError, match=r"ruda\.add.*different devices"):
        ruda.add(x, other)
    with pytest.raises(ValueError, match=r"ruda\.add.*different devices"):
        x + other
    with pytest.raises(TypeError):
        ruda.sin(object())
    with pytest.raises(ValueError, match=r"^ruda\.add: operands could not be broadcast"):
        x + ruda.ones(3, device=device)
    with pytest.raises(ValueError, match=r"^ruda\.multiply: "):
        ruda.multiply(x, ruda.ones((3, 1, 4), device=device))
    with pytest.raises(ruda.linalg.LinAlgError, match=r"^ruda\.linalg\.inv: "):
        ruda.linalg.inv(ruda.zeros((2, 2), device=device))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64"])
def test_gcd_lcm_full_range(dtype, device, rng):
    # the most negative value has no positive magnitude: gcd(2, -128) is 2 in int8, as in NumPy
    info = numpy.iinfo(dtype)
    a = rng.integers(info.min, info.max, 200, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, 200, dtype=dtype, endpoint=True)
    a[:5], b[:5] = [info.min, info.min, 0, 0, 2], [info.min, 0, info.min, 0, info.min]
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    with numpy.errstate(all="ignore"):
        for name in ("gcd", "lcm"):
            numpy.testing.assert_array_equal(to_numpy(getattr(ruda, name)(x, y)),
                                             getattr(numpy, name)(a, b), err_msg=name)  # fmt: skip
