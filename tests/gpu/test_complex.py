"""complex64/complex128 arrays on each GPU backend against NumPy (the devices of kinds cuda and
wgpu): the inspection API, uploads and read-back, creation, casts between real and
complex, Python complex scalars, views, indexing and manipulation (by element size), linear
algebra that reduces to elementwise kernels (vecdot conjugates x1), and the clear errors of
the functions the standard defines for real dtypes only."""

from __future__ import annotations

import warnings

import numpy
import pytest

import ruda
from tests.helpers import assert_close, to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

COMPLEX = ["complex64", "complex128"]
# Parts of the special-value grid: zeros of both signs, values on and off the branch cuts,
# huge values, infinities and NaN.
EDGES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.0, 1e30, -1e30, numpy.inf, -numpy.inf, numpy.nan]


def same_complex(g: complex, w: complex, zero_signs: bool = True) -> bool:
    """Equal parts (NaN alike, zeros with their signs); where one part of NumPy's result is NaN,
    C99 leaves the other's sign unspecified."""
    gr, gi, wr, wi = g.real, g.imag, w.real, w.imag
    if numpy.isnan(wr) or numpy.isnan(wi):
        gr, wr = (abs(gr), abs(wr)) if numpy.isnan(wi) else (gr, wr)
        gi, wi = (abs(gi), abs(wi)) if numpy.isnan(wr) else (gi, wi)
    for p, q in ((gr, wr), (gi, wi)):
        if numpy.isnan(p) or numpy.isnan(q):
            if numpy.isnan(p) != numpy.isnan(q):
                return False
        elif numpy.isinf(p) or numpy.isinf(q) or p == 0 or q == 0:
            if p != q or (zero_signs and numpy.signbit(p) != numpy.signbit(q)):
                return False
        elif abs(p - q) > 1e-5 * abs(q):
            return False
    return True


def _values(dtype: str, shape: tuple[int, ...], rng) -> numpy.ndarray:
    n = int(numpy.prod(shape))
    return ((rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 4).reshape(shape).astype(dtype)


def test_inspection_reports_complex(device) -> None:
    info = ruda.__array_namespace_info__()
    got = info.dtypes(device=device, kind="complex floating")
    assert set(got) == {"complex64", "complex128"}
    assert got["complex64"] == ruda.complex64
    assert "complex128" in info.dtypes(device=device)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_upload_read_back_and_views(dtype: str, device, rng) -> None:
    a = _values(dtype, (6, 7), rng)
    x = ruda.asarray(a, device=device)
    assert x.dtype == getattr(ruda, dtype) and x.device == device
    assert_close(x, a, rtol=0, device=device)  # the bytes, unchanged
    for view in (lambda v: v[1:, ::2], lambda v: v.T, lambda v: v[::-1, 3], lambda v: v[2, 5]):
        assert_close(view(x), view(a), rtol=0, device=device)
    assert complex(x[2, 5]) == complex(a[2, 5])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_creation(dtype: str, device) -> None:
    d = getattr(ruda, dtype)
    for value in (1.5 - 2.25j, 0j, 3 + 3j, -1j):
        assert_close(ruda.full((5, 3), value, dtype=d, device=device),
                     numpy.full((5, 3), value, dtype), rtol=0, device=device)  # fmt: skip
    assert_close(ruda.zeros(7, dtype=d, device=device), numpy.zeros(7, dtype), device=device)
    assert_close(
        ruda.ones((2, 2), dtype=d, device=device), numpy.ones((2, 2), dtype), device=device
    )
    assert_close(ruda.asarray([1 + 2j, 3], dtype=d, device=device),
                 numpy.asarray([1 + 2j, 3], dtype), device=device)  # fmt: skip
    x = ruda.full((3,), 2 - 1j, device=device)  # a Python complex fill: the default complex dtype
    assert_close(x, numpy.full(3, 2 - 1j), device=device)
    assert_close(ruda.full_like(x, 4j), numpy.full(3, 4j), device=device)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_casts(dtype: str, device, rng) -> None:
    a = _values(dtype, (1031,), rng)
    x = ruda.asarray(a, device=device)
    other = "complex128" if dtype == "complex64" else "complex64"
    for target in (other, "float32", "float64", "int32", "bool"):
        with warnings.catch_warnings():  # NumPy warns that the imaginary part is dropped
            warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
            want = a.astype(target)
        assert_close(ruda.astype(x, getattr(ruda, target)), want, device=device)
    r = rng.standard_normal(257).astype("float32")
    i = rng.integers(-9, 9, 257).astype("int16")
    for host in (r, i, r > 0):
        assert_close(ruda.astype(ruda.asarray(host, device=device), getattr(ruda, dtype)),
                     host.astype(dtype), device=device)  # fmt: skip
    a[3] = 0
    assert_close(ruda.astype(ruda.asarray(a, device=device), ruda.bool), a.astype(bool),
                 device=device)  # fmt: skip


def test_python_complex_scalars_promote(device, rng) -> None:
    r = rng.standard_normal(100).astype("float32")
    x = ruda.asarray(r, device=device)
    assert_close(x * 2j, r * 2j, device=device)  # float32 with a complex scalar: complex64
    assert_close(1j + x, 1j + r, device=device)
    h = _values("complex128", (100,), rng)
    c = ruda.asarray(h, device=device)
    assert_close(c / (1 - 1j), h / (1 - 1j), device=device)
    assert_close(2.5**c, 2.5**h, rtol=1e-12, device=device)
    i = ruda.asarray(numpy.arange(5, dtype="int64"), device=device)
    assert_close(i + 0.5j, numpy.arange(5, dtype="int64") + 0.5j, device=device)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_indexing_and_manipulation(dtype: str, device, rng) -> None:
    """Functions that move elements work by element size (8 and 16 bytes)."""
    a = _values(dtype, (5, 6), rng)
    x = ruda.asarray(a, device=device)
    idx = numpy.array([4, 0, 2, 2])
    assert_close(ruda.take(x, ruda.asarray(idx, device=device), axis=1), numpy.take(a, idx, 1),
                 rtol=0, device=device)  # fmt: skip
    assert_close(x[ruda.asarray(idx[:3], device=device)], a[idx[:3]], rtol=0, device=device)
    assert_close(ruda.concat([x, x[:2]]), numpy.concatenate([a, a[:2]]), rtol=0, device=device)
    assert_close(ruda.stack([x, x], axis=1), numpy.stack([a, a], 1), rtol=0, device=device)
    assert_close(ruda.flip(x, axis=0), numpy.flip(a, 0), rtol=0, device=device)
    assert_close(ruda.roll(x, 2, axis=1), numpy.roll(a, 2, 1), rtol=0, device=device)
    assert_close(ruda.reshape(x.T, (3, 10)), a.T.reshape(3, 10), rtol=0, device=device)
    assert_close(ruda.tile(x[0], 2), numpy.tile(a[0], 2), rtol=0, device=device)
    mask = a.real > 0
    assert_close(x[ruda.asarray(mask, device=device)], a[mask], rtol=0, device=device)
    cond = ruda.asarray(mask, device=device)
    assert_close(ruda.where(cond, x, 1j), numpy.where(mask, a, 1j), rtol=0, device=device)
    y = ruda.asarray(a.copy(), device=device)
    y[1, 2:4] = 7 - 7j
    b = a.copy()
    b[1, 2:4] = 7 - 7j
    assert_close(y, b, rtol=0, device=device)
    assert_close(ruda.count_nonzero(x), numpy.count_nonzero(a), device=device)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_vecdot_conjugates_and_norms(dtype: str, device, rng) -> None:
    a, b = _values(dtype, (4, 33), rng), _values(dtype, (4, 33), rng)
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    tol = 1e-5 if dtype == "complex64" else 1e-12
    assert_close(ruda.vecdot(x, y), numpy.vecdot(a, b), rtol=tol, device=device)
    assert_close(ruda.linalg.vector_norm(x, axis=1), numpy.linalg.vector_norm(a, axis=1),
                 rtol=tol, device=device)  # fmt: skip


def test_ordering_functions_follow_numpy(device) -> None:
    # NumPy's lexicographic order (tests/test_complex_order.py: NaN parts, ties, every device)
    a = numpy.array([1 + 2j, -1j, 3, 1 - 2j])
    x = ruda.asarray(a, device=device)
    for fn, args in ((ruda.sort, ()), (ruda.argsort, ()), (ruda.maximum, (x[::-1],)),
                     (ruda.less, (x[::-1],)), (ruda.clip, (0, 1))):  # fmt: skip
        host = [to_numpy(v) if isinstance(v, ruda.Array) else v for v in args]
        assert_close(fn(x, *args), getattr(numpy, fn.__name__)(a, *host), device=device)


def standard_expm1(z: numpy.ndarray) -> numpy.ndarray:
    """The standard's complex expm1 (C99 cexp(z) - 1 off the finite plane, +0 + 0j at ±0 + 0j):
    the cpu backend's repair of NumPy, and exactly expm1(x) + yj on the real axis (NumPy's
    inf * sin(0) gives a NaN imaginary part for huge x)."""
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = to_numpy(ruda.expm1(ruda.asarray(z, device="cpu")))
        axis = z.imag == 0
        want.real[axis] = numpy.where(z.real[axis] == 0, 0.0, numpy.expm1(z.real[axis]))
    want.imag[axis] = z.imag[axis]
    return want


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["sqrt", "exp", "expm1", "log", "log1p", "log10", "sin", "cos",
                                  "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh",
                                  "acosh", "atanh", "sign", "reciprocal", "abs", "isnan",
                                  "isinf", "isfinite", "square"])  # fmt: skip
def test_special_values_and_branch_cuts(name: str, dtype: str, device) -> None:
    """C99 Annex G's special values and the sides of the branch cuts (signed zero parts), as
    NumPy gives them, on every pairing of the edge values."""
    z = numpy.array([complex(a, b) for a in EDGES for b in EDGES]).astype(dtype)
    if name == "square":  # NumPy's loop rounds x*x - y*y with an FMA (WGSL's may not fuse)
        z = z[numpy.abs(z) < 1e20]
    fn = getattr(numpy, {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                         "acosh": "arccosh", "atanh": "arctanh"}.get(name, name))  # fmt: skip
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        standard = {"expm1": standard_expm1, "tanh": standard_tanh}.get(name)
        want = standard(z) if standard else fn(z)
    got = to_numpy(getattr(ruda, name)(ruda.asarray(z, device=device)))
    assert got.dtype == want.dtype
    if want.dtype.kind != "c":
        numpy.testing.assert_array_equal(got, want)
        return
    bad = [(z[i], got[i], want[i]) for i in range(z.size) if not same_complex(got[i], want[i])]
    assert not bad, f"{name}: {len(bad)} differ from NumPy, e.g. {bad[:4]}"


def standard_tanh(z: numpy.ndarray) -> numpy.ndarray:
    """The standard's complex tanh: C99's but tanh(+-inf + yj) = +-1 + 0j with y's sign for
    finite y (C99 takes sin(2y)'s): the cpu backend's repair of NumPy."""
    with numpy.errstate(all="ignore"):
        return to_numpy(ruda.tanh(ruda.asarray(z, device="cpu")))
