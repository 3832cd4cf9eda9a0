"""Reductions and scans on each GPU backend against NumPy (the devices of kinds cuda and wgpu):
sum, prod, max, min, any, all, mean, var, std, cumulative_sum/prod (and cumsum/cumprod) over
dtypes, axes, odd and multi-pass sizes, strided views, NaNs, empty reductions, dtype=,
initial=, keepdims, out= and each of the backend's scan algorithms (``algorithm``).
"""

from __future__ import annotations

import importlib
import warnings

import numpy
import pytest

import ruda
from tests.helpers import assert_close

pytestmark = pytest.mark.devices("cuda", "wgpu")

# The scan algorithms per backend (tests/conftest.py parametrises them with ``device``): wgpu has
# no look-back (no forward-progress guarantee between workgroups).
PER_KIND = {
    "scan_algorithm": {
        "cuda": ["lookback", "reduce_then_scan", "chunked"],
        "wgpu": ["chunked", "reduce_then_scan"],
    }
}


@pytest.fixture
def algorithm(scan_algorithm: str, device, monkeypatch) -> str:
    """The backend's scan variant set to ``scan_algorithm`` for the test."""
    scans = importlib.import_module(f"ruda._backends.{device.kind}.scans")
    monkeypatch.setitem(scans.VARIANT, "algorithm", scan_algorithm)
    return scan_algorithm


DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool"]
OPS = ["sum", "prod", "max", "min", "any", "all"]
AXES = [None, 0, 1, 2, -1, (0, 2), (0, 1), (1, 2), ()]


def data(dtype: str, shape: tuple[int, ...], op: str, rng) -> numpy.ndarray:
    """Random data, never all zeros; near 1 (or small ints) for products."""
    dt = numpy.dtype(dtype)
    if dt == numpy.bool_:
        p = 0.97 if op == "all" else 0.03 if op == "any" else 0.5
        return rng.random(shape) < p
    if op == "prod":
        if dt.kind == "f":
            return rng.uniform(0.99, 1.01, shape).astype(dt)
        return rng.choice(numpy.array([1, 2, 1, 3, 1]), shape).astype(dt)
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 10).astype(dt)
    lo = 0 if dt.kind == "u" else -100
    x = rng.integers(lo, 100, shape).astype(dt)
    if op in ("any", "all") and x.size:
        x[x == 0] = 1
        x.flat[rng.integers(0, x.size)] = 0
    return x


def reference(name: str, a: numpy.ndarray, **kw) -> numpy.ndarray:
    """NumPy's result, computed in float64 for float sums and rounded once to NumPy's dtype."""
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = getattr(numpy, name)(a, **kw)
        if a.dtype.kind == "f" and name in ("sum", "prod", "mean", "var", "std", "cumsum",
                                            "cumprod") and "dtype" not in kw:  # fmt: skip
            exact = getattr(numpy, name)(a.astype(numpy.float64), **kw)
            want = numpy.asarray(exact).astype(numpy.asarray(want).dtype)
    return numpy.asarray(want)


def close(got, want: numpy.ndarray, device, a: numpy.ndarray, kind: str = "sum") -> None:
    """Exact for integers and bool; floats within a reordered sum's error bound."""
    if want.dtype.kind in "biu":
        assert_close(got, want, device=device)
        return
    eps = float(numpy.finfo(want.dtype).eps)
    a64 = numpy.abs(a.astype(numpy.float64))
    big = float(numpy.max(a64, initial=1.0))
    mag = {"sum": float(a64.sum()), "mean": big, "var": big * big,
           "prod": a.size * float(numpy.max(numpy.abs(want), initial=1.0))}[kind]  # fmt: skip
    rtol = max(8 * eps, 1e-5 if kind == "var" and want.dtype == numpy.float32 else 0.0)
    assert_close(got, want, rtol=rtol, atol=8 * eps * mag, device=device)


def _kind(op: str) -> str:
    return "prod" if op == "prod" else "sum"


# -- sum, prod, max, min, any, all -------------------------------------------------------------
@pytest.mark.parametrize(
    "op,dtype",
    [(o, d) for o in OPS for d in DTYPES if not (o in ("max", "min") and d == "bool")],
)  # max/min of bool: test_bool_max
def test_reduce_axes(op: str, dtype: str, device, rng) -> None:
    a = data(dtype, (37, 129, 5), op, rng)
    x = ruda.asarray(a, device=device)
    fn = getattr(ruda, op)
    for axis in AXES:
        for keepdims in (False, True):
            want = reference(op, a, axis=axis, keepdims=keepdims)
            close(fn(x, axis=axis, keepdims=keepdims), want, device, a, _kind(op))


@pytest.mark.parametrize("n", [1, 2, 255, 1031, 100003, (1 << 20) + 7])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool"])
def test_full_odd_sizes(n: int, dtype: str, device, rng) -> None:
    for op in OPS:
        a = data(dtype, (n,), op, rng)
        x = ruda.asarray(a, device=device)
        close(getattr(ruda, op)(x), reference(op, a), device, a, _kind(op))


@pytest.mark.parametrize("shape", [(3, 100003), (100003, 3), (1001, 37), (37, 1001), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_rows_and_columns(shape, dtype: str, device, rng) -> None:
    for op in OPS:
        a = data(dtype, shape, op, rng)
        x = ruda.asarray(a, device=device)
        for axis in (0, -1):
            want = reference(op, a, axis=axis)
            close(getattr(ruda, op)(x, axis=axis), want, device, a, _kind(op))


def test_bool_max(device, rng) -> None:
    a = rng.random((7, 9)) < 0.5
    x = ruda.asarray(a, device=device)
    for axis in (None, 0, 1):
        assert_close(ruda.max(x, axis=axis), numpy.max(a, axis=axis), device=device)
        assert_close(ruda.min(x, axis=axis), numpy.min(a, axis=axis), device=device)


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "float64"])
def test_strided_views(dtype: str, device, rng) -> None:
    for op in ("sum", "max", "min", "prod", "any"):
        a = data(dtype, (24, 35, 6), op, rng)
        base = ruda.asarray(a, device=device)
        views = [
            (base[::2, ::-1], a[::2, ::-1]),
            (base[:, 3:30:3, 1], a[:, 3:30:3, 1]),
            (ruda.permute_dims(base, (2, 0, 1)), a.transpose(2, 0, 1)),
            (base[1:], a[1:]),  # contiguous at an offset (unaligned for WebGPU bindings)
        ]
        for x, v in views:
            for axis in (None, 0, 1, -1, (0, 2) if v.ndim == 3 else (0, 1)):
                want = reference(op, v, axis=axis)
                close(getattr(ruda, op)(x, axis=axis), want, device, v, _kind(op))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_propagates(dtype: str, device, rng) -> None:
    for shape, axis in (((100003,), None), ((5, 3001), 1), ((3001, 5), 0), ((64, 64), None)):
        a = data(dtype, shape, "max", rng)
        a.flat[rng.integers(0, a.size, 3)] = numpy.nan
        x = ruda.asarray(a, device=device)
        for op in ("max", "min"):
            got = getattr(ruda, op)(x, axis=axis)
            assert_close(got, getattr(numpy, op)(a, axis=axis), device=device)
    a = numpy.array([numpy.nan, 1.0, 2.0], dtype=dtype)  # NaN first, last and alone
    for v in (a, a[::-1], a[:1]):
        assert numpy.isnan(ruda.max(ruda.asarray(v, device=device)).to_device("cpu")._data)


def test_empty(device) -> None:
    e = ruda.asarray(numpy.zeros((0, 4), numpy.float32), device=device)
    for op in ("max", "min"):
        with pytest.raises(ValueError, match=op):
            getattr(ruda, op)(e)
        with pytest.raises(ValueError):
            getattr(ruda, op)(e, axis=0)
        assert getattr(ruda, op)(e, axis=1).shape == (0,)
        assert_close(getattr(ruda, op)(e, axis=0, initial=5.0), numpy.full(4, 5.0, numpy.float32),
                     device=device)  # fmt: skip
    assert_close(ruda.sum(e, axis=0), numpy.zeros(4, numpy.float32), device=device)
    assert_close(ruda.prod(e), numpy.float32(1), device=device)
    assert_close(ruda.any(e, axis=0), numpy.zeros(4, bool), device=device)
    assert_close(ruda.all(e), numpy.bool_(True), device=device)
    i = ruda.asarray(numpy.zeros((3, 0), numpy.int32), device=device)
    assert_close(ruda.sum(i, axis=1), numpy.zeros(3, numpy.int64), device=device)


def test_dtype_initial_out(device, rng) -> None:
    a = data("int32", (40, 50), "sum", rng)
    x = ruda.asarray(a, device=device)
    assert_close(ruda.sum(x, dtype=ruda.float64), numpy.sum(a, dtype=numpy.float64), device=device)
    assert_close(ruda.sum(x, axis=0, dtype=ruda.int32), numpy.sum(a, 0, dtype=numpy.int32),
                 device=device)  # fmt: skip
    assert_close(ruda.sum(x, axis=1, initial=7), numpy.sum(a, 1, initial=7), device=device)
    assert_close(ruda.max(x, axis=1, initial=60), numpy.max(a, 1, initial=60), device=device)
    f = data("float32", (40, 50), "sum", rng)
    y = ruda.asarray(f, device=device)
    close(ruda.sum(y, dtype=ruda.float64), numpy.sum(f.astype(numpy.float64)), device, f, "sum")
    out = ruda.empty((50,), dtype=ruda.float32, device=device)
    r = ruda.sum(y, axis=0, out=out)
    assert r is out
    close(out, reference("sum", f, axis=0), device, f)
    w = f > 0  # where=: the masked-out elements count as the identity
    close(ruda.sum(y, axis=1, where=ruda.asarray(w, device=device)),
          reference("sum", numpy.where(w, f, 0), axis=1), device, f)  # fmt: skip
    assert_close(ruda.max(x, axis=0, where=ruda.asarray(a > 0, device=device), initial=-1),
                 numpy.max(a, 0, where=a > 0, initial=-1), device=device)  # fmt: skip
    with pytest.raises(ValueError, match="ruda.max"):  # NumPy too: max has no identity
        ruda.max(y, where=ruda.asarray(w, device=device))
    close(ruda.sum(y, dtype=ruda.complex64), numpy.sum(f.astype(numpy.float64)).astype(
        numpy.complex64), device, f, "sum")  # fmt: skip


# -- mean, var, std ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "float16"])
def test_mean_var_std(dtype: str, device, rng) -> None:
    a = data(dtype if dtype != "float16" else "float32", (33, 257, 3), "sum", rng)
    a = (a + 5).astype(dtype)  # an offset: the centred pass matters
    x = ruda.asarray(a, device=device)
    for axis in (None, 0, 1, 2, (0, 2), (1, 2)):
        for name in ("mean", "var", "std"):
            kw = {} if name == "mean" else {"correction": 1}
            got = getattr(ruda, name)(x, axis=axis, **kw)
            nkw = {} if name == "mean" else {"ddof": 1}
            want = reference(name, a, axis=axis, **nkw)
            close(got, want, device, a, "var" if name != "mean" else "mean")
    assert_close(ruda.var(x, axis=0, keepdims=True), reference("var", a, axis=0, keepdims=True),
                 rtol=2e-2 if dtype == "float16" else 1e-4, atol=1e-3, device=device)  # fmt: skip


def test_mean_empty_and_big_ddof(device) -> None:
    e = ruda.asarray(numpy.zeros((0, 3), numpy.float32), device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(ruda.mean(e, axis=0), numpy.full(3, numpy.nan, numpy.float32), device=device)
        x = ruda.asarray(numpy.array([1.0, 2.0]), device=device)
        assert_close(ruda.var(x, correction=2), numpy.var(numpy.array([1.0, 2.0]), ddof=2),
                     device=device)  # fmt: skip


# -- scans -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_scans(dtype: str, algorithm: str, device, rng) -> None:
    for shape, axis in (((1,), 0), ((1031,), 0), ((100003,), 0), ((5, 3001), 1), ((3001, 5), 0),
                        ((7, 9, 11), 1)):  # fmt: skip
        for name, ref in (("cumulative_sum", "cumsum"), ("cumulative_prod", "cumprod")):
            a = data(dtype, shape, "prod" if ref == "cumprod" else "sum", rng)
            if ref == "cumprod" and a.dtype.kind == "f" and a.size > 2000:
                a = a.astype(numpy.float64) ** 0.01  # keep the running product finite
                a = a.astype(dtype)
            x = ruda.asarray(a, device=device)
            for initial in (False, True):
                got = getattr(ruda, name)(x, axis=axis, include_initial=initial)
                want = reference(ref, a, axis=axis)
                if initial:
                    pad = [(0, 0)] * a.ndim
                    pad[axis] = (1, 0)
                    want = numpy.pad(want, pad, constant_values=0 if ref == "cumsum" else 1)
                if want.dtype.kind == "f":
                    rtol = 2e-5 if dtype == "float32" else 1e-11
                    mag = numpy.cumsum(numpy.abs(a.astype(numpy.float64)), axis=axis).max()
                    assert_close(got, want, rtol=rtol, atol=rtol * mag * 4, device=device)
                else:
                    assert_close(got, want, device=device)


def test_scan_dtype_and_numpy_forms(device, rng) -> None:
    a = data("int32", (6, 70), "sum", rng)
    x = ruda.asarray(a, device=device)
    assert_close(ruda.cumulative_sum(x, axis=1, dtype=ruda.float64),
                 numpy.cumsum(a, axis=1, dtype=numpy.float64), device=device)  # fmt: skip
    assert_close(ruda.cumsum(x), numpy.cumsum(a), device=device)
    assert_close(ruda.cumsum(x[:, ::3], axis=0), numpy.cumsum(a[:, ::3], axis=0), device=device)
    assert_close(ruda.cumprod(x % 3 + 1, axis=1), numpy.cumprod(a % 3 + 1, axis=1), device=device)
    e = ruda.asarray(numpy.zeros((3, 0), numpy.float32), device=device)
    assert_close(ruda.cumulative_sum(e, axis=1, include_initial=True),
                 numpy.zeros((3, 1), numpy.float32), device=device)  # fmt: skip
    assert ruda.cumulative_sum(e, axis=1).shape == (3, 0)


# -- complex -----------------------------------------------------------------------------------
def _complex_data(dtype: str, shape: tuple[int, ...], op: str, rng) -> numpy.ndarray:
    """Random complex values; near the unit circle by 1 for products (finite running products)."""
    n = int(numpy.prod(shape))
    if op == "prod":
        v = numpy.exp(1j * rng.uniform(-0.2, 0.2, n) + rng.uniform(-1e-3, 1e-3, n))
    else:
        v = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 10
    return v.reshape(shape).astype(dtype)


def _complex_close(got, want: numpy.ndarray, device, a: numpy.ndarray, op: str, axis) -> None:
    """Within a reordered sum's (product's) error bound, relative to the sum of magnitudes."""
    eps = float(numpy.finfo(want.dtype).eps)
    mag = numpy.sum(numpy.abs(a.astype(numpy.complex128)), axis=axis)
    if op in ("prod", "cumprod"):
        mag = numpy.abs(want) * (a.size / max(numpy.size(want), 1))
    elif op == "mean":
        mag = mag / (a.size / max(numpy.size(want), 1))
    assert_close(got, want, rtol=0, atol=float(16 * eps * numpy.max(mag)), device=device)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op", ["sum", "prod", "mean"])
def test_complex_reductions(op: str, dtype: str, device, rng) -> None:
    for shape, axes in (((100003,), (None,)), ((37, 129, 5), (None, 0, 1, 2, (0, 2))),
                        ((3, 1031), (0, 1))):  # fmt: skip
        a = _complex_data(dtype, shape, op, rng)
        x = ruda.asarray(a, device=device)
        for axis in axes:
            want = numpy.asarray(getattr(numpy, op)(a.astype(numpy.complex128), axis=axis))
            got = getattr(ruda, op)(x, axis=axis)
            _complex_close(got, want.astype(dtype), device, a, op, axis)
    v = x[::2, ::-3]  # a strided view
    want = numpy.asarray(getattr(numpy, op)(a[::2, ::-3].astype(numpy.complex128), axis=1))
    _complex_close(getattr(ruda, op)(v, axis=1), want.astype(dtype), device, a[::2, ::-3], op, 1)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_scans(dtype: str, algorithm: str, device, rng) -> None:
    for shape, axis in (((1031,), 0), ((100003,), 0), ((5, 3001), 1), ((301, 5), 0)):
        for name, ref in (("cumulative_sum", "cumsum"), ("cumulative_prod", "cumprod")):
            a = _complex_data(dtype, shape, "prod" if ref == "cumprod" else "sum", rng)
            x = ruda.asarray(a, device=device)
            got = getattr(ruda, name)(x, axis=axis, include_initial=True)
            want = getattr(numpy, ref)(a.astype(numpy.complex128), axis=axis)
            pad = [(0, 0)] * a.ndim
            pad[axis] = (1, 0)
            want = numpy.pad(want, pad, constant_values=0 if ref == "cumsum" else 1)
            eps = float(numpy.finfo(dtype).eps)
            mag = numpy.cumsum(numpy.abs(a.astype(numpy.complex128)), axis=axis).max()
            if ref == "cumprod":
                mag = numpy.abs(want).max() * shape[axis]
            assert_close(got, want.astype(dtype), rtol=0, atol=float(16 * eps * mag),
                         device=device)  # fmt: skip


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_var_std(dtype: str, device, rng) -> None:
    # NumPy's definition: the mean of |x - mean|**2, a real result (its square root for std)
    a = _complex_data(dtype, (33, 257, 3), "sum", rng) + (5 - 3j)  # an offset: centring matters
    a = a.astype(dtype)
    x = ruda.asarray(a, device=device)
    a128 = a.astype(numpy.complex128)
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    for axis in (None, 0, 1, 2, (0, 2), (1, 2)):
        for name in ("var", "std"):
            for ddof in (0, 1):
                got = getattr(ruda, name)(x, axis=axis, correction=ddof)
                want = getattr(numpy, name)(a128, axis=axis, ddof=ddof)
                assert got.dtype == ruda.dtype(numpy.finfo(dtype).dtype.name)
                assert_close(got, want.astype(got.dtype.name), rtol=rtol, device=device)
    v, av = x[::2, ::-3], a128[::2, ::-3]  # a strided view, keepdims, a given mean, out=
    assert_close(ruda.std(v, axis=1, keepdims=True),
                 numpy.std(av, axis=1, keepdims=True).astype(numpy.finfo(dtype).dtype),
                 rtol=rtol, device=device)  # fmt: skip
    m = numpy.mean(a128, axis=0, keepdims=True)
    got = ruda.var(x, axis=0, mean=ruda.asarray(m.astype(dtype), device=device))
    assert_close(got, numpy.var(a128, axis=0, mean=m).astype(got.dtype.name), rtol=rtol,
                 device=device)  # fmt: skip
    out = ruda.empty((257, 3), dtype=got.dtype, device=device)
    assert ruda.var(x, axis=0, out=out) is out
    assert_close(out, numpy.var(a128, axis=0).astype(got.dtype.name), rtol=rtol, device=device)
    got = ruda.var(x, axis=1, dtype=ruda.complex128)  # NumPy keeps a complex dtype=
    assert_close(got, numpy.var(a128, axis=1).astype(numpy.complex128), rtol=rtol, device=device)


def test_complex_orderings_follow_numpy(device) -> None:
    # NumPy's lexicographic order, the first of equal values (tests/test_complex_order.py
    # covers NaN parts, axes and the other orderings on every device)
    a = numpy.array([1 + 2j, 3 - 1j, 3 - 2j, 3 - 1j, -5 + 9j])
    x = ruda.asarray(a, device=device)
    for fn in (ruda.max, ruda.min, ruda.argmax, ruda.argmin):
        assert_close(fn(x), getattr(numpy, fn.__name__)(a))
