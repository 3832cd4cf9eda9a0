"""Every op-table elementwise function on wgpu against NumPy, per dtype, per layout."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._ops import ELEMENTWISE
from tests.helpers import assert_close

OPS = [op for op in ELEMENTWISE if op.expr]
DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool", "float16"]
# Functions whose float results come from transcendental approximations on the GPU.
_TRANSCENDENTAL = {
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1", "log",
    "log1p", "log2", "log10", "sin", "sinh", "tan", "tanh", "atan2", "hypot", "logaddexp",
    "pow", "exp2", "cbrt", "float_power", "logaddexp2",
}  # fmt: skip


def _floats(name: str, n: int, dtype: str, rng: numpy.random.Generator) -> numpy.ndarray:
    """Random floats in ``name``'s domain."""
    if name in ("acos", "asin", "atanh"):
        v = rng.uniform(-0.99, 0.99, n)
    elif name == "acosh":
        v = rng.uniform(1.0, 50.0, n)
    elif name in ("log", "log2", "log10", "sqrt", "reciprocal", "pow", "float_power"):
        v = rng.uniform(0.05, 20.0, n)
    elif name == "log1p":
        v = rng.uniform(-0.9, 20.0, n)
    elif name in ("exp", "expm1", "exp2", "cosh", "sinh"):
        v = rng.uniform(-8.0, 8.0, n)
    else:
        v = rng.standard_normal(n) * 10
    return v.astype(dtype)


def _ints(
    name: str, n: int, dtype: str, rng: numpy.random.Generator, second: bool
) -> numpy.ndarray:
    d = numpy.dtype(dtype)
    info = numpy.iinfo(d)
    if name in ("bitwise_left_shift", "bitwise_right_shift") and second:
        return rng.integers(0, d.itemsize * 8, n).astype(d)
    if name in ("pow",):
        return rng.integers(0, 4 if second else 5, n).astype(d)
    if name in ("floor_divide", "remainder", "fmod") and second:
        lo = max(info.min, -7)
        v = rng.integers(lo, 8, n)
        v[:3] = 0  # NumPy: integer division by zero gives 0
        return v.astype(d)
    if OPS_BY_NAME[name].category in ("floating-point", "real floating-point") and name not in (
        "reciprocal",
    ):
        return rng.integers(1, 20, n).astype(d)  # converted to float first: keep in domain
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    v = rng.integers(lo, hi, n, endpoint=True)
    v[:2] = (info.min, info.max) if d.itemsize < 8 else (lo, hi)  # wrap-around edges
    return v.astype(d)


OPS_BY_NAME = {op.name: op for op in OPS}


def make_operands(
    name: str, dtype: str, n: int, rng: numpy.random.Generator
) -> list[numpy.ndarray]:
    op = OPS_BY_NAME[name]
    d = numpy.dtype(dtype)
    out = []
    for k in range(op.arity):
        if d.kind == "b":
            out.append(rng.random(n) < 0.5)
        elif d.kind == "f":
            out.append(_floats(name, n, dtype, rng))
        else:
            out.append(_ints(name, n, dtype, rng, k == 1))
    return out


def tolerance(name: str, dtype: numpy.dtype) -> dict:
    if dtype == numpy.float16:
        return {"rtol": 2e-3, "atol": 2e-3}
    if dtype == numpy.float32:
        return (
            {"rtol": 2e-5, "atol": 1e-6}
            if name not in _TRANSCENDENTAL
            else {"rtol": 1e-4, "atol": 1e-5}
        )
    if dtype == numpy.float64:
        return {"rtol": 1e-12, "atol": 1e-14}
    return {}


def numpy_reference(name: str, args: list) -> tuple[numpy.ndarray | None, type | None]:
    fn = getattr(numpy, OPS_BY_NAME[name].numpy)
    try:
        with numpy.errstate(all="ignore"):
            return numpy.asarray(fn(*args)), None
    except TypeError:
        return None, TypeError


def needs_feature(wdev: ruda.Device, dtype: str) -> None:
    supported = {d.name for d in wdev.backend.supported_dtypes()} | {"float16"}
    if dtype == "float16":
        from ruda._backends.wgpu.context import context

        if "shader-f16" not in context(wdev.index).features:
            pytest.skip("adapter lacks shader-f16")
    elif dtype not in supported:
        pytest.skip(f"{wdev} does not support {dtype}")


def check(name: str, got, expected: numpy.ndarray, wdev: ruda.Device) -> None:
    assert_close(got, expected, device=wdev, **tolerance(name, expected.dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(OPS_BY_NAME))
def test_op_contiguous(name: str, dtype: str, wdev, rng) -> None:
    needs_feature(wdev, dtype)
    args = make_operands(name, dtype, 1031, rng)  # odd size: a partial last workgroup
    expected, err = numpy_reference(name, args)
    fn = getattr(ruda, name)
    xs = [ruda.asarray(a, device=wdev) for a in args]
    if err is not None:
        with pytest.raises(err):
            fn(*xs)
        return
    check(name, fn(*xs), expected, wdev)


LAYOUT_OPS = ["add", "subtract", "multiply", "divide", "maximum", "less", "equal", "sqrt",
              "negative", "floor_divide", "bitwise_and", "logical_and", "abs"]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
@pytest.mark.parametrize("name", LAYOUT_OPS)
def test_op_strided_and_broadcast(name: str, dtype: str, wdev, rng) -> None:
    """Views with steps, negative steps, transposes, offsets, and broadcasting."""
    from ruda._backends.wgpu.ops import apply

    needs_feature(wdev, dtype)
    op = OPS_BY_NAME[name]
    base = [a.reshape(24, 35) for a in make_operands(name, dtype, 24 * 35, rng)]
    if op.arity == 1:
        cases = [lambda a: a[::2, 1::3], lambda a: a.T, lambda a: a[::-1, 5:], lambda a: a[3]]
        for view in cases:
            host = view(base[0])
            dev = view(ruda.asarray(base[0], device=wdev)._data)
            got = ruda._array._wrap(apply(op, (dev,)), wdev)
            expected, err = numpy_reference(name, [host])
            if err is None:
                check(name, got, expected, wdev)
        return
    a, b = base
    da, db = (ruda.asarray(x, device=wdev)._data for x in (a, b))
    pairs = [
        (lambda x: x[::2], lambda y: y[1::2]),
        (lambda x: x.T, lambda y: y.T),
        (lambda x: x[1:], lambda y: y[:-1]),  # unaligned offsets
        (lambda x: x[:, :1], lambda y: y[:1, :]),  # (24,1) with (1,35)
        (lambda x: x[::-1, ::-3], lambda y: y[:, ::3]),
        (lambda x: x[5, 7], lambda y: y),  # 0-d with 2-d
    ]
    for fa, fb in pairs:
        expected, err = numpy_reference(name, [fa(a), fb(b)])
        if err is not None:
            continue
        got = ruda._array._wrap(apply(op, (fa(da), fb(db))), wdev)
        check(name, got, expected, wdev)


@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "divide", "maximum", "less",
                                  "pow", "remainder", "greater_equal"])  # fmt: skip
def test_python_scalars(name: str, wdev, rng) -> None:
    """Python scalars are weak (they take the array's dtype); floats with ints promote."""
    fn = getattr(ruda, name)
    for dtype, scalars in (("float32", (2.5, 3, -1.25)), ("int32", (3, 7)), ("uint8", (3,)),
                           ("int64", (2.5,))):  # fmt: skip
        host = make_operands("add", dtype, 257, rng)[0]
        if name in ("pow", "remainder", "divide") and dtype != "float32":
            host = numpy.abs(host) % 50 + 1
        x = ruda.asarray(host, device=wdev)
        for s in scalars:
            with numpy.errstate(all="ignore"):
                e1 = getattr(numpy, OPS_BY_NAME[name].numpy)(host, s)
                e2 = getattr(numpy, OPS_BY_NAME[name].numpy)(s, host)
            check(name, fn(x, s), numpy.asarray(e1), wdev)
            check(name, fn(s, x), numpy.asarray(e2), wdev)


def test_numpy_scalar_operand(wdev, rng) -> None:
    host = rng.standard_normal(100).astype("float32")
    x = ruda.asarray(host, device=wdev)
    assert_close(ruda.add(x, numpy.float32(1.5)), host + numpy.float32(1.5), device=wdev)
    assert_close(ruda.multiply(x, numpy.float64(2.0)), host * numpy.float64(2.0), device=wdev)


FLOAT_EDGE_OPS = ["add", "multiply", "subtract", "divide", "maximum", "minimum", "isnan", "isinf",
                  "isfinite", "sqrt", "abs", "sign", "floor", "ceil", "trunc", "equal", "less",
                  "not_equal", "negative", "signbit", "copysign"]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", FLOAT_EDGE_OPS)
def test_float_edge_values(name: str, dtype: str, wdev, rng) -> None:
    """NaN, +-inf, +-0 and the extremes of the dtype, in every pairing."""
    needs_feature(wdev, dtype)
    fi = numpy.finfo(dtype)
    edges = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1.0, -1.5, fi.max, fi.min,
                         fi.tiny, -fi.tiny], dtype=dtype)  # fmt: skip
    op = OPS_BY_NAME[name]
    if op.arity == 1:
        args = [edges]
    else:
        a, b = numpy.meshgrid(edges, edges)
        args = [a.ravel(), b.ravel()]
    expected, _ = numpy_reference(name, args)
    got = getattr(ruda, name)(*[ruda.asarray(x, device=wdev) for x in args])
    check(name, got, expected, wdev)
    if expected.dtype.kind == "f":  # signed zeros too
        assert (
            numpy.array_equal(
                numpy.signbit(numpy.asarray(got.to_device("cpu"))), numpy.signbit(expected)
            )
            or numpy.isnan(expected).any()
        )


def test_integer_wraparound_and_division(wdev) -> None:
    a = numpy.array([250, 255, 0, 7, 128], numpy.uint8)
    b = numpy.array([10, 1, 1, 0, 128], numpy.uint8)
    x, y = ruda.asarray(a, device=wdev), ruda.asarray(b, device=wdev)
    assert_close(x + y, a + b, device=wdev)
    with numpy.errstate(all="ignore"):
        assert_close(x // y, a // b, device=wdev)
        assert_close(x % y, a % b, device=wdev)
    i = numpy.array([-7, 7, -7, 7, numpy.iinfo(numpy.int32).min], numpy.int32)
    j = numpy.array([2, -2, -2, 0, 1], numpy.int32)
    xi, yi = ruda.asarray(i, device=wdev), ruda.asarray(j, device=wdev)
    with numpy.errstate(all="ignore"):
        assert_close(xi // yi, i // j, device=wdev)
        assert_close(xi % yi, i % j, device=wdev)


def test_mixed_dtype_promotion(wdev, rng) -> None:
    """Result dtypes follow ruda._promotion (NumPy across kinds)."""
    a = rng.integers(-50, 50, 64).astype("int32")
    b = rng.standard_normal(64).astype("float32")
    c = rng.integers(0, 200, 64).astype("uint8")
    xa, xb, xc = (ruda.asarray(v, device=wdev) for v in (a, b, c))
    assert_close(xa + xb, a + b, device=wdev)  # float64 in NumPy
    assert_close(xa * xc, a * c, device=wdev)
    assert_close(xa < xb, a < b, device=wdev)
    assert_close(ruda.sin(xa), numpy.sin(a), device=wdev, rtol=1e-10)


def test_result_dtype_errors(wdev) -> None:
    x = ruda.asarray(numpy.ones(4, "float32"), device=wdev)
    with pytest.raises(TypeError, match="bitwise_and"):
        ruda.bitwise_and(x, x)
    b = ruda.asarray(numpy.ones(4, bool), device=wdev)
    with pytest.raises(TypeError, match="subtract"):
        ruda.subtract(b, b)
    u = ruda.asarray(numpy.ones(4, "uint8"), device=wdev)
    with pytest.raises(OverflowError):
        u + 300
