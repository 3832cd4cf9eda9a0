"""linspace, meshgrid, tril, triu, isin and asarray of nested device arrays on a GPU backend
against NumPy (on the devices of kinds cuda and wgpu)."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import assert_close, to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

LINSPACES = [
    ((0, 1, 5), {}),
    ((2.5, -3.0, 7), {"endpoint": False}),
    ((0, 10, 4), {"dtype": "int32"}),
    ((-7, 7, 6), {"dtype": "int64", "endpoint": False}),
    ((1.0, 1e-300, 3), {}),
    ((0.0, 0.0, 0), {"endpoint": False}),
    ((3.0, 3.0, 1), {}),
    ((1 + 2j, 3 - 1j, 4), {}),
    ((0, 1, 9), {"dtype": "float32"}),
]


@pytest.mark.parametrize(("args", "kw"), LINSPACES)
def test_linspace(args, kw, device):
    assert_close(ruda.linspace(*args, device=device, **kw), numpy.linspace(*args, **kw),
                 rtol=1e-6, device=device)  # fmt: skip


def test_linspace_random_ends_and_retstep(device, rng):
    lo, hi = (float(v) for v in rng.standard_normal(2) * 100)
    for endpoint in (True, False):
        got, step = ruda.linspace(lo, hi, 17, endpoint=endpoint, retstep=True, device=device)
        want, wstep = numpy.linspace(lo, hi, 17, endpoint=endpoint, retstep=True)
        assert_close(got, want, rtol=1e-12, device=device)
        assert step == pytest.approx(wstep)
    assert to_numpy(ruda.linspace(lo, hi, 5, device=device))[-1] == hi  # the endpoint exactly


@pytest.mark.parametrize("kw", [{}, {"indexing": "ij"}, {"sparse": True}, {"copy": False}])
def test_meshgrid(kw, device, rng):
    vs = [rng.standard_normal(3), rng.integers(-9, 9, 4), rng.standard_normal(2).astype("f4")]
    for n in (1, 2, 3):
        got = ruda.meshgrid(*(ruda.asarray(v, device=device) for v in vs[:n]), **kw)
        want = numpy.meshgrid(*vs[:n], **kw)
        for g, w in zip(got, want, strict=True):
            assert_close(g, w, device=device)


@pytest.mark.parametrize("fn", ["tril", "triu"])
@pytest.mark.parametrize("k", [0, 1, -2, 5])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_tril_triu(fn, k, dtype, device, rng):
    a = (rng.standard_normal((2, 4, 5)) * 9).astype(dtype)
    if dtype == "complex64":
        a = a + 1j * rng.standard_normal(a.shape).astype("f4")
    x = ruda.asarray(a, device=device)
    f, nf = getattr(ruda, fn), getattr(numpy, fn)
    assert_close(f(x, k=k), nf(a, k=k), device=device)
    assert_close(f(x[0, ::-1, ::2], k=k), nf(a[0, ::-1, ::2], k=k), device=device)
    assert_close(f(x[1, 0], k=k), nf(a[1, 0], k=k), device=device)  # 1-D: NumPy's (n, n)


@pytest.mark.parametrize(("t1", "t2"), [("int64", "int64"), ("uint8", "int16"),
                                        ("float64", "float32"), ("int32", "uint32")])  # fmt: skip
def test_isin(t1, t2, device, rng):
    a = rng.integers(0, 40, (5, 7)).astype(t1)
    b = rng.integers(0, 40, 23).astype(t2)
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    for invert in (False, True):
        assert_close(ruda.isin(x, y, invert=invert), numpy.isin(a, b, invert=invert),
                     device=device)  # fmt: skip
        assert_close(ruda.isin(x[::-1, ::2], y[::3], invert=invert),
                     numpy.isin(a[::-1, ::2], b[::3], invert=invert), device=device)  # fmt: skip
    assert_close(ruda.isin(int(b[4]), y), numpy.isin(int(b[4]), b), device=device)
    assert_close(ruda.isin(x, 3), numpy.isin(a, 3), device=device)
    assert_close(ruda.isin(x, y[:0]), numpy.isin(a, b[:0]), device=device)


def test_isin_python_scalars_take_the_array_dtype(device):
    """A Python int is an element of the array's dtype (2**63 against uint64, as the
    conformance suite asks); one outside the dtype's range equals nothing."""
    u = numpy.array([1, 2, 2**63, 2**64 - 1], numpy.uint64)
    x = ruda.asarray(u, device=device)
    assert_close(ruda.isin(x, 2**63), u == 2**63, device=device)
    assert_close(ruda.isin(x[:0], 2**63), numpy.zeros(0, bool), device=device)
    assert_close(ruda.isin(2**64 - 1, x), numpy.array(True), device=device)
    s = numpy.array([-3, 7, 300], numpy.int16)
    y = ruda.asarray(s, device=device)
    for v in (-1, 70000, -(2**40)):
        for invert in (False, True):
            want = numpy.full(3, invert)
            assert_close(ruda.isin(y, v, invert=invert), want, device=device)
    assert_close(ruda.isin(70000, y), numpy.array(False), device=device)
    assert_close(ruda.isin(y, 300), s == 300, device=device)


def test_isin_float_and_complex_edges(device):
    f = numpy.array([numpy.nan, 0.0, -0.0, 1.5, numpy.inf, -2.0])
    g = numpy.array([-0.0, numpy.nan, numpy.inf, 7.0])
    x, y = ruda.asarray(f, device=device), ruda.asarray(g, device=device)
    assert_close(ruda.isin(x, y), numpy.isin(f, g), device=device)  # NaN matches nothing
    c, d = numpy.array([1 + 1j, 2, 3j, 1 - 1j]), numpy.array([2 + 0j, 1 + 1j])
    got = ruda.isin(ruda.asarray(c, device=device), ruda.asarray(d, device=device))
    assert_close(got, numpy.isin(c, d), device=device)


def test_asarray_of_nested_device_arrays(device, rng):
    a = rng.integers(-50, 50, (3, 4)).astype("int16")
    x = ruda.asarray(a, device=device)
    got = ruda.asarray([[x[i, j] for i in range(3)] for j in range(4)])
    assert got.device == x.device
    assert_close(got, a.T, device=device)
    assert_close(ruda.asarray([x[0], x[2]], dtype=ruda.float32), a[[0, 2]].astype("f4"),
                 device=device)  # fmt: skip
    with pytest.raises(ValueError, match="ruda.asarray: copy=False"):
        ruda.asarray([x[0], x[1]], copy=False)
