"""Transcendental functions on wgpu against NumPy, in ulps, over their whole ranges.

f64 math is ruda's IR (fdlibm ports: SPIR-V has no f64 sin/exp/log); f32 math is computed in
f64 and rounded once where the device has shader-f64, else IR f32 functions
(``wgsl.IR_MATH[ir.F32]``) or, for the rest, the driver's builtins. Special values (0, -0,
+-inf, nan, subnormals, the largest finite values) must match NumPy exactly, signed zeros
included.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy
import pytest

import ruda
from ruda._kernels import ir
from ruda._kernels.render import wgsl

pytestmark = pytest.mark.devices("wgpu")

UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
         "atanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "cbrt"]  # fmt: skip
BINARY = ["atan2", "pow", "fmod", "remainder", "floor_divide"]
EXACT = {"fmod", "remainder", "floor_divide"}  # exact functions: 0 ulp
# Note: NumPy gives nan for +-inf // finite; the standard (and ruda on every device) gives +-inf.
STANDARD_SPECIAL = {"floor_divide"}
# max ulp vs NumPy (which is itself within ~1 ulp): measured 3 for f64 (tanh), 3 for f32 asin
BOUND = {"float64": 4, "float32": 3}


def _ulps(got: numpy.ndarray, want: numpy.ndarray) -> numpy.ndarray:
    """Distance in units in the last place (nan where NaN-ness differs, 0 where both NaN)."""
    it = numpy.dtype(f"i{got.dtype.itemsize}")

    def key(v: numpy.ndarray) -> numpy.ndarray:
        i = v.view(it).astype(numpy.int64)
        return numpy.where(i < 0, -(i & numpy.iinfo(it).max), i)

    d = numpy.abs(key(got) - key(want)).astype(float)
    both = numpy.isnan(got) & numpy.isnan(want)
    d[both] = 0
    d[numpy.isnan(got) != numpy.isnan(want)] = numpy.nan
    return d


def _samples(dtype: str, rng: numpy.random.Generator, n: int) -> numpy.ndarray:
    f = numpy.finfo(dtype)
    span = 700 if dtype == "float64" else 85
    edges = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, numpy.inf, -numpy.inf, numpy.nan, f.tiny,
             -f.tiny, f.smallest_subnormal, -f.smallest_subnormal, f.max, -f.max, 1e-3, -1e-3,
             1e-8, 100.0, 1e6, -1e6, 0.99, -0.99, 1.01]  # fmt: skip
    with numpy.errstate(over="ignore"):
        parts = [
            numpy.array(edges),
            rng.standard_normal(n) * 10,
            rng.uniform(-1, 1, n),
            numpy.exp(rng.uniform(-span, span, n)) * rng.choice([-1.0, 1.0], n),
            rng.uniform(-1e-6, 1e-6, n // 4),
            rng.uniform(-2e6, 2e6, n // 4),  # both trig argument reductions
        ]
    return numpy.concatenate(parts).astype(dtype)


def _run(name: str, args: list[numpy.ndarray], device) -> tuple[numpy.ndarray, numpy.ndarray]:
    np_name = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
               "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2",
               "pow": "power"}.get(name, name)  # fmt: skip
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if name in STANDARD_SPECIAL:  # the cpu backend: NumPy's values, the standard's specials
            want = numpy.asarray(getattr(ruda, name)(*[ruda.asarray(a) for a in args]))
        else:
            want = getattr(numpy, np_name)(*args)
    got = getattr(ruda, name)(*[ruda.asarray(a, device=device) for a in args])
    return numpy.asarray(got.to_device("cpu")), want


def _needs(device, dtype: str) -> None:
    if dtype not in {d.name for d in device.backend.supported_dtypes()}:
        pytest.skip(f"{device} does not support {dtype}")


def _f64_math(device) -> bool:
    from ruda._backends.wgpu.context import context

    return {"shader-f64", "shader-int64"} <= set(context(device.index).features)


def _check(name: str, dtype: str, args, got, want) -> None:
    d = _ulps(got, want)
    bound = 0 if name in EXACT else BOUND[dtype]
    bad = numpy.flatnonzero(~(d <= bound))  # nan (NaN-ness differs) fails too
    if bad.size:
        rows = [f"  {[a[i] for a in args]} -> got {got[i]!r} want {want[i]!r} ({d[i]} ulp)"
                for i in bad[:6]]  # fmt: skip
        pytest.fail(f"{name} {dtype}: {bad.size} of {d.size} beyond {bound} ulp:\n"
                    + "\n".join(rows), pytrace=False)  # fmt: skip
    # special results bit for bit: zeros keep their sign, infinities and NaN where NumPy has them
    special = (want == 0) | numpy.isinf(want)
    assert numpy.array_equal(numpy.signbit(got[special]), numpy.signbit(want[special])), name


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_ulps(name: str, dtype: str, device, rng) -> None:
    _needs(device, dtype)
    if dtype == "float32" and not _f64_math(device) and name not in wgsl.IR_MATH[ir.F32]:
        pytest.skip(f"f32 {name} is the driver's builtin on a device without shader-f64")
    x = _samples(dtype, rng, 4000)
    got, want = _run(name, [x], device)
    _check(name, dtype, [x], got, want)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_ulps(name: str, dtype: str, device, rng) -> None:
    _needs(device, dtype)
    if dtype == "float32" and name == "pow" and not _f64_math(device):
        pytest.skip("f32 pow uses the driver's exp2/log2 on a device without shader-f64")
    e = _samples(dtype, rng, 0)
    a, b = (v.ravel() for v in numpy.meshgrid(e, e))
    x, y = _samples(dtype, rng, 3000), _samples(dtype, rng, 3000)[::-1]
    if name == "pow":  # results near the overflow threshold, and negative bases
        big = 700 if dtype == "float64" else 85
        x = numpy.abs(x)
        with numpy.errstate(all="ignore"):
            y = (rng.uniform(-big, big, x.size) / numpy.log(numpy.abs(x))).astype(dtype)
        x[::7] = -x[::7]
        y[::7] = numpy.round(y[::7])
    args = [numpy.concatenate([a, x]).astype(dtype), numpy.concatenate([b, y]).astype(dtype)]
    got, want = _run(name, args, device)
    _check(name, dtype, args, got, want)


def _pi(bits: int = 1400) -> Fraction:
    """pi to ``bits`` bits (Machin's formula in integers)."""

    def arctan_inv(n: int) -> int:
        x = s = (1 << bits) // n
        k, sign = 1, -1
        while x:
            x //= n * n
            k += 2
            s += sign * (x // k)
            sign = -sign
        return s

    return Fraction(4 * (4 * arctan_inv(5) - arctan_inv(239)), 1 << bits)


def test_trig_huge_arguments(device) -> None:
    """Payne-Hanek reduction: sin/cos/tan of huge doubles, against an exact reduction (NumPy's
    own cos(6381956970095103 * 2**797) is 7 ulp off the true -4.6871659242546278e-19)."""
    _needs(device, "float64")
    x = numpy.array([1e22, 2.0**1023, 1.7976931348623157e308, 6381956970095103 * 2.0**797,
                     5e15, -3e300, 1647099.3291652855, 1647100.0, -2.0**60])  # fmt: skip
    pi = _pi()
    ref = {"sin": [], "cos": [], "tan": []}
    for v in x:
        q = Fraction(float(v)) * 2 / pi
        n = math.floor(q + Fraction(1, 2))
        y = float((q - n) * pi / 2)  # |y| <= pi/4, rounded once
        s, c = math.sin(y), math.cos(y)
        ref["sin"].append([s, c, -s, -c][n % 4])
        ref["cos"].append([c, -s, -c, s][n % 4])
        ref["tan"].append(math.tan(y) if n % 2 == 0 else -1 / math.tan(y))
    for name in ("sin", "cos", "tan"):
        got, _ = _run(name, [x], device)
        _check(name, "float64", [x], got, numpy.array(ref[name]))


def test_atan2_special_cases(device) -> None:
    """C99 / the standard: atan2(+-0, +-0), atan2(+-0, -x), inf pairs: exact, signs included."""
    _needs(device, "float64")
    for dtype in ("float64", "float32"):
        v = numpy.array([0.0, -0.0, 1.0, -1.0, numpy.inf, -numpy.inf, numpy.nan], dtype)
        y, x = (a.ravel() for a in numpy.meshgrid(v, v))
        keep = ~(numpy.isfinite(y) & numpy.isfinite(x) & (y != 0) & (x != 0))  # special pairs
        y, x = y[keep], x[keep]
        got, want = _run("atan2", [y, x], device)
        assert numpy.array_equal(got, want, equal_nan=True), (y, x, got, want)
        assert numpy.array_equal(numpy.signbit(got), numpy.signbit(want))
