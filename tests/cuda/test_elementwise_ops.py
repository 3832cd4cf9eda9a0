"""Every op-table elementwise function on cuda against NumPy, per dtype, per layout.

Operand generators, tolerances and the NumPy reference are the wgpu suite's (backend-free).
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._ops import OPS
from tests.helpers import assert_close
from tests.wgpu.test_elementwise_ops import (
    FLOAT_EDGE_OPS,
    LAYOUT_OPS,
    OPS_BY_NAME,
    make_operands,
    numpy_reference,
    tolerance,
)

# All twelve real dtypes of the standard plus float16 (complex is not rendered yet).
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]  # fmt: skip


def check(name: str, got, expected: numpy.ndarray, cdev: ruda.Device) -> None:
    assert_close(got, expected, device=cdev, **tolerance(name, expected.dtype))


def _apply(name: str, *natives, out=None):
    from ruda._backends.cuda.ops import apply

    return apply(OPS[name], natives, out)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(OPS_BY_NAME))
def test_op_contiguous(name: str, dtype: str, cdev, rng) -> None:
    args = make_operands(name, dtype, 1031, rng)  # odd size: a partial last block
    expected, err = numpy_reference(name, args)
    fn = getattr(ruda, name)
    xs = [ruda.asarray(a, device=cdev) for a in args]
    if err is not None:
        with pytest.raises(err):
            fn(*xs)
        return
    check(name, fn(*xs), expected, cdev)
    check(name, fn(*xs), expected, cdev)  # second call: the cached fast path


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "uint8", "float16"])
@pytest.mark.parametrize("name", LAYOUT_OPS)
def test_op_strided_and_broadcast(name: str, dtype: str, cdev, rng) -> None:
    """Views with steps, negative steps, transposes, offsets, and broadcasting."""
    op = OPS_BY_NAME[name]
    base = [a.reshape(24, 35) for a in make_operands(name, dtype, 24 * 35, rng)]
    put = [ruda.asarray(a, device=cdev)._data for a in base]
    if op.arity == 1:
        cases = [lambda a: a[::2, 1::3], lambda a: a.T, lambda a: a[::-1, 5:], lambda a: a[3]]
        for view in cases:
            expected, err = numpy_reference(name, [view(base[0])])
            if err is None:
                check(name, ruda._array._wrap(_apply(name, view(put[0])), cdev), expected, cdev)
        return
    pairs = [
        (lambda x: x[::2], lambda y: y[1::2]),
        (lambda x: x.T, lambda y: y.T),
        (lambda x: x[1:], lambda y: y[:-1]),  # offsets
        (lambda x: x[:, :1], lambda y: y[:1, :]),  # (24,1) with (1,35)
        (lambda x: x[::-1, ::-3], lambda y: y[:, ::3]),
        (lambda x: x[5, 7], lambda y: y),  # 0-d with 2-d
    ]
    for fa, fb in pairs:
        expected, err = numpy_reference(name, [fa(base[0]), fb(base[1])])
        if err is None:
            got = _apply(name, fa(put[0]), fb(put[1]))
            check(name, ruda._array._wrap(got, cdev), expected, cdev)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", FLOAT_EDGE_OPS)
def test_float_edge_values(name: str, dtype: str, cdev, request) -> None:
    """NaN, +-inf, +-0 and the extremes of the dtype, in every pairing; signed zeros too."""
    if dtype == "float16" and name in ("maximum", "minimum"):
        # NumPy's float16 loops pick the first operand on ties (>=): maximum(0.0, -0.0) is 0.0;
        # the IR's rule (>, as NumPy's float32/64 loops) gives -0.0. Fix in _kernels/elementwise.
        request.applymarker(pytest.mark.xfail(reason="float16 signed-zero tie rule", strict=True))
    fi = numpy.finfo(dtype)
    edges = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1.0, -1.5, fi.max, fi.min,
                         fi.tiny, -fi.tiny], dtype=dtype)  # fmt: skip
    if OPS_BY_NAME[name].arity == 1:
        args = [edges]
    else:
        a, b = numpy.meshgrid(edges, edges)
        args = [a.ravel(), b.ravel()]
    expected, _ = numpy_reference(name, args)
    got = getattr(ruda, name)(*[ruda.asarray(x, device=cdev) for x in args])
    check(name, got, expected, cdev)
    if expected.dtype.kind == "f":
        h = numpy.asarray(got.to_device("cpu"))
        same = numpy.signbit(h) == numpy.signbit(expected)
        assert (same | numpy.isnan(expected)).all(), f"{name}: signed zeros differ"


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64"])
def test_integer_edges(dtype: str, cdev) -> None:
    """Wrap-around at the extremes, division by 0 and -1 (NumPy's results, no trap)."""
    info = numpy.iinfo(dtype)
    vals = numpy.array([info.min, info.max, 0, 1, 7, info.max - 1], dtype=dtype)
    divs = numpy.array([1, 0, 2, info.max, 3, 1], dtype=dtype)
    if info.min < 0:
        divs[0] = -1  # MIN // -1 wraps to MIN
    x, y = ruda.asarray(vals, device=cdev), ruda.asarray(divs, device=cdev)
    with numpy.errstate(all="ignore"):
        for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "negative"):
            fn = getattr(numpy, OPS_BY_NAME[name].numpy)
            args = (vals,) if name == "negative" else (vals, divs)
            got = getattr(ruda, name)(*((x,) if name == "negative" else (x, y)))
            assert_close(got, fn(*args), device=cdev)


@pytest.mark.parametrize("name", ["add", "multiply", "subtract", "divide", "maximum", "less",
                                  "pow", "remainder", "greater_equal"])  # fmt: skip
def test_python_scalars(name: str, cdev, rng) -> None:
    """Python scalars are weak (they take the array's dtype); floats with ints promote."""
    fn = getattr(ruda, name)
    for dtype, scalars in (("float32", (2.5, 3, -1.25)), ("int32", (3, 7)), ("uint8", (3,)),
                           ("int64", (2.5,))):  # fmt: skip
        host = make_operands("add", dtype, 257, rng)[0]
        if name in ("pow", "remainder", "divide") and dtype != "float32":
            host = numpy.abs(host) % 50 + 1
        x = ruda.asarray(host, device=cdev)
        ref = getattr(numpy, OPS_BY_NAME[name].numpy)
        for s in scalars:
            with numpy.errstate(all="ignore"):
                e1, e2 = numpy.asarray(ref(host, s)), numpy.asarray(ref(s, host))
            check(name, fn(x, s), e1, cdev)
            check(name, fn(s, x), e2, cdev)


def test_mixed_dtype_promotion(cdev, rng) -> None:
    """Result dtypes follow ruda._promotion (NumPy across kinds)."""
    a = rng.integers(-50, 50, 64).astype("int32")
    b = rng.standard_normal(64).astype("float32")
    c = rng.integers(0, 200, 64).astype("uint8")
    xa, xb, xc = (ruda.asarray(v, device=cdev) for v in (a, b, c))
    assert_close(xa + xb, a + b, device=cdev)
    assert_close(xa * xc, a * c, device=cdev)
    assert_close(xa < xb, a < b, device=cdev)
    assert_close(ruda.sin(xa), numpy.sin(a), device=cdev, rtol=1e-10)


def test_result_dtype_errors(cdev) -> None:
    x = ruda.asarray(numpy.ones(4, "float32"), device=cdev)
    with pytest.raises(TypeError, match="bitwise_and"):
        ruda.bitwise_and(x, x)
    b = ruda.asarray(numpy.ones(4, bool), device=cdev)
    with pytest.raises(TypeError, match="subtract"):
        ruda.subtract(b, b)
    u = ruda.asarray(numpy.ones(4, "uint8"), device=cdev)
    with pytest.raises(OverflowError):
        u + 300
