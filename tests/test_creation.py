"""Creation functions against NumPy, on every available device."""

from __future__ import annotations

import warnings

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ruda
from tests.helpers import assert_close, put, to_numpy

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


@given(shape=shapes)
def test_zeros_ones_empty_full(device, shape):
    assert_close(ruda.zeros(shape, device=device), numpy.zeros(shape), device=device)
    assert_close(ruda.ones(shape, dtype=ruda.int32, device=device), numpy.ones(shape, "i4"))
    e = ruda.empty(shape, device=device)
    assert e.shape == shape and e.dtype == ruda.float64 and e.device == device
    assert_close(ruda.full(shape, 2.5, device=device), numpy.full(shape, 2.5))


def test_numpy_call_styles(device):
    assert ruda.zeros((2, 3), ruda.float32, device=device).dtype == ruda.float32
    assert ruda.zeros((2, 3), "int16", device=device).dtype == ruda.int16
    assert ruda.ones(3, numpy.uint8, device=device).dtype == ruda.uint8
    assert ruda.zeros(4, order="F", device=device).shape == (4,)


@pytest.mark.parametrize(
    "value,dtype", [(True, ruda.bool), (3, ruda.int64), (1.5, ruda.float64), (1j, ruda.complex128)]
)
def test_full_infers_dtype(device, value, dtype):
    x = ruda.full((2,), value, device=device)
    assert x.dtype == dtype
    assert to_numpy(x).tolist() == [value, value]


def test_like_functions(device, rng):
    a = rng.standard_normal((3, 4)).astype(numpy.float32)
    x = put(a, device)
    assert_close(ruda.zeros_like(x), numpy.zeros_like(a), device=device)
    assert_close(ruda.ones_like(x, dtype=ruda.int8), numpy.ones_like(a, dtype="i1"))
    assert_close(ruda.full_like(x, 7), numpy.full_like(a, 7), device=device)
    e = ruda.empty_like(x)
    assert e.shape == a.shape and e.dtype == ruda.float32 and e.device == device


@given(start=st.integers(-20, 20), stop=st.integers(-20, 20), step=st.integers(-5, 5).filter(bool))
def test_arange_int(device, start, stop, step):
    assert_close(ruda.arange(start, stop, step, device=device), numpy.arange(start, stop, step))


def test_arange_float_and_single(device):
    assert_close(ruda.arange(0, 1, 0.25, device=device), numpy.arange(0, 1, 0.25))
    assert_close(ruda.arange(5, device=device), numpy.arange(5))
    assert ruda.arange(3.0, device=device).dtype == ruda.float64


@pytest.mark.parametrize("dtype", [None, "float32", "float16", "complex64", "complex128"])
@pytest.mark.parametrize(
    ("start", "stop", "step"),
    [(-7.0, 5.0, 0.1), (9.0, -3.0, -0.7), (0.001, 30.0, 0.3), (2.5, 3.0, 1.0)],
)
def test_arange_float_bits(device, start, stop, step, dtype):
    # NumPy fills start + i * ((start + step) - start), not start + i * step: same bits
    # (complex results hold the real fill; the GPU kernels once had no complex arange)
    r = ruda.arange(start, stop, step, dtype=dtype, device=device)
    assert_close(r, numpy.arange(start, stop, step, dtype=dtype), rtol=0.0)


@given(num=st.integers(0, 20), endpoint=st.booleans())
def test_linspace(device, num, endpoint):
    r = ruda.linspace(-1.5, 2.0, num, endpoint=endpoint, device=device)
    assert_close(r, numpy.linspace(-1.5, 2.0, num, endpoint=endpoint), device=device)


@pytest.mark.parametrize(
    ("start", "stop", "num"), [(-3.3, 7.1, 13), (0.1, 0.7, 9), (1e39, -1e39, 5)]
)
def test_linspace_float32_rounds_once(device, start, stop, num):
    # NumPy computes in float64 (the endpoints' type) and rounds to float32 once at the end
    with warnings.catch_warnings():  # 1e39 overflows float32: inf, as in NumPy
        warnings.simplefilter("ignore", RuntimeWarning)
        r = ruda.linspace(start, stop, num, dtype=ruda.float32, device=device)
        want = numpy.linspace(start, stop, num, dtype=numpy.float32)
    assert_close(r, want, rtol=0.0)


def test_linspace_complex(device):
    assert_close(ruda.linspace(0, 1j, 3, device=device), numpy.linspace(0, 1j, 3))


@given(n=st.integers(0, 5), m=st.none() | st.integers(0, 5), k=st.integers(-3, 3))
def test_eye(device, n, m, k):
    assert_close(ruda.eye(n, m, k=k, device=device), numpy.eye(n, m, k=k))


def test_tril_triu(device, rng):
    a = rng.standard_normal((2, 4, 5))
    x = put(a, device)
    for k in (-1, 0, 2):
        assert_close(ruda.tril(x, k=k), numpy.tril(a, k=k), device=device)
        assert_close(ruda.triu(x, k=k), numpy.triu(a, k=k), device=device)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(device, rng, indexing):
    a, b = rng.standard_normal(3), rng.standard_normal(4)
    r = ruda.meshgrid(put(a, device), put(b, device), indexing=indexing)
    assert isinstance(r, tuple)
    for got, exp in zip(r, numpy.meshgrid(a, b, indexing=indexing), strict=True):
        assert_close(got, exp, device=device)


def test_from_dlpack(device, rng):
    a = rng.standard_normal(5)
    x = put(a, device)
    assert_close(ruda.from_dlpack(x), a, device=device)
    assert_close(ruda.from_dlpack(a, device="cpu"), a)
    y = ruda.from_dlpack(x, copy=True)
    assert_close(y, a)


def test_numpy_surface(device, rng):
    a = rng.standard_normal((3, 3))
    x = put(a, device)
    assert_close(ruda.array([[1, 2]], ndmin=3, device=device), numpy.array([[1, 2]], ndmin=3))
    assert_close(ruda.copy(x), a)
    assert_close(ruda.identity(3, device=device), numpy.identity(3))
    assert_close(ruda.diag(x, 1), numpy.diag(a, 1))
    assert_close(ruda.diag(put(a[0], device)), numpy.diag(a[0]))
    assert_close(ruda.diagflat(put(a[:2, :2], device), -1), numpy.diagflat(a[:2, :2], -1))
    assert_close(ruda.tri(3, 4, 1, device=device), numpy.tri(3, 4, 1))
    assert_close(ruda.logspace(0, 2, 5, device=device), numpy.logspace(0, 2, 5))
    assert_close(ruda.geomspace(1, 64, 7, device=device), numpy.geomspace(1, 64, 7))
    assert_close(ruda.indices((2, 3), device=device), numpy.indices((2, 3)))
    f = ruda.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int, device=device)
    assert_close(f, numpy.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int))
    buf = a.tobytes()
    assert_close(ruda.frombuffer(buf, device=device), numpy.frombuffer(buf))
    assert_close(ruda.fromiter(range(4), ruda.int16, device=device), numpy.arange(4, dtype="i2"))
    assert_close(ruda.ascontiguousarray(x.T), numpy.ascontiguousarray(a.T))
    assert_close(ruda.asanyarray(x), a)


def test_errors(device):
    with pytest.raises(TypeError, match="ruda.zeros"):
        ruda.zeros(3, dtype="not-a-dtype", device=device)
    with pytest.raises(ValueError, match="ruda.arange"):
        ruda.arange(0, 5, 0, device=device)
    with pytest.raises(ValueError, match="ruda.meshgrid"):
        ruda.meshgrid(ruda.arange(2, device=device), indexing="zz")
    with pytest.raises(ValueError, match="ruda.Device"):
        ruda.ones(2, device="tpu:0")
    with pytest.raises(ValueError, match="ruda.linspace"):
        ruda.linspace(0, 1, -1, device=device)
    with pytest.raises(ValueError, match="ruda.tril"):
        ruda.tril(ruda.asarray(1.0, device=device))


def test_arange_chunk_parameters():
    # the GPU arange kernel's launches: floats index from the array's start (NumPy's fill) while
    # the index fits 32 bits, else each launch starts at its own first value; integers wrap
    from ruda._backends.gpu.creation import arange_chunks

    f = list(arange_chunks(10, 4, numpy.dtype(numpy.float64), 0.5, 0.1, 0.6))
    assert [(c0, m, p["base"]) for c0, m, p in f] == [(0, 4, 0), (4, 4, 4), (8, 2, 8)]
    assert all(p["start"] == 0.5 and p["second"] == 0.6 for _, _, p in f)
    big = list(arange_chunks((1 << 32) + 5, 1 << 31, numpy.dtype(numpy.float32), 1.0, 2.0))
    assert [p["base"] for _, _, p in big] == [0, 0, 0]
    assert [p["start"] for _, _, p in big] == [1.0, 1.0 + 2.0 * (1 << 31), 1.0 + 2.0 * (1 << 32)]
    i32 = list(arange_chunks(300, 100, numpy.dtype(numpy.int32), 2**31 - 150, 1))
    assert [p["start"] for _, _, p in i32] == [2**31 - 150, 2**31 - 50, 50 - 2**31]
