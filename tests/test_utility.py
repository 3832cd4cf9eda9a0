"""Utility functions against NumPy."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put

arrays = hnp.arrays(
    numpy.int32,
    hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
    elements=st.integers(0, 2),
)


@pytest.mark.parametrize("name", ["all", "any"])
@given(a=arrays, data=st.data())
def test_all_any(device, name, a, data):
    axis = data.draw(
        st.none() | st.integers(-a.ndim, a.ndim - 1) | st.just(tuple(range(a.ndim))[::-1])
    )
    keepdims = data.draw(st.booleans())
    a = a.astype(data.draw(st.sampled_from([numpy.bool_, numpy.int32, numpy.float64])))
    r = getattr(ruda, name)(put(a, device), axis=axis, keepdims=keepdims)
    assert_close(r, getattr(numpy, name)(a, axis=axis, keepdims=keepdims), device=device)


@given(a=hnp.arrays(numpy.int64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1),
                    elements=st.integers(-50, 50)), data=st.data())  # fmt: skip
def test_diff(device, a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = data.draw(st.integers(0, 3))
    assert_close(ruda.diff(put(a, device), axis=axis, n=n), numpy.diff(a, n=n, axis=axis))


def test_diff_prepend_append(device, rng):
    a = rng.standard_normal((3, 4))
    x = put(a, device)
    p = rng.standard_normal((3, 1))
    assert_close(ruda.diff(x, prepend=put(p, device), append=put(p, device)),
                 numpy.diff(a, prepend=p, append=p))  # fmt: skip
    assert_close(ruda.diff(x, 2, 0), numpy.diff(a, 2, 0))
    assert_close(ruda.diff(x, axis=0, prepend=0.5), numpy.diff(a, axis=0, prepend=0.5))


def test_numpy_surface(device, rng):
    a = rng.standard_normal(20)
    b = a + rng.standard_normal(20) * 1e-9
    x, y = put(a, device), put(b, device)
    assert ruda.allclose(x, y) is True
    assert ruda.allclose(x, y + 1) is False
    assert_close(ruda.isclose(x, y, atol=0, rtol=1e-12), numpy.isclose(a, b, atol=0, rtol=1e-12))
    assert ruda.array_equal(x, x) and not ruda.array_equal(x, x[:3])
    assert ruda.array_equiv(x[:1], put(numpy.repeat(a[:1], 3), device))
    n = numpy.array([1.0, numpy.nan])
    assert ruda.array_equal(put(n, device), put(n, device), equal_nan=True)
    m = rng.standard_normal((4, 5))
    for got, want in zip(ruda.gradient(put(m, device), 2.0), numpy.gradient(m, 2.0), strict=True):
        assert_close(got, want)
    assert_close(ruda.gradient(x, edge_order=2), numpy.gradient(a, edge_order=2))
    v = rng.standard_normal(5)
    for mode in ("full", "same", "valid"):
        assert_close(ruda.convolve(x, put(v, device), mode), numpy.convolve(a, v, mode))
        assert_close(ruda.correlate(x, put(v, device), mode), numpy.correlate(a, v, mode))
    xp = numpy.sort(rng.standard_normal(10))
    fp = rng.standard_normal(10)
    assert_close(ruda.interp(x, put(xp, device), put(fp, device), left=0.0),
                 numpy.interp(a, xp, fp, left=0.0))  # fmt: skip
    assert_close(ruda.trapezoid(put(m, device), dx=0.5, axis=0), numpy.trapezoid(m, dx=0.5, axis=0))
    assert_close(ruda.trapezoid(x, x=put(numpy.cumsum(numpy.abs(a)), device)),
                 numpy.trapezoid(a, x=numpy.cumsum(numpy.abs(a))))  # fmt: skip


def test_errors(device, rng):
    x = put(rng.standard_normal((2, 3)), device)
    with pytest.raises(ruda.AxisError, match="ruda.all"):
        ruda.all(x, axis=2)
    with pytest.raises(ValueError, match="ruda.any"):
        ruda.any(x, axis=(1, 1))
    with pytest.raises(ValueError, match="ruda.diff: n"):
        ruda.diff(x, n=-1)
    with pytest.raises(ValueError, match="ruda.diff"):
        ruda.diff(put(numpy.array(1.0), device))
    with pytest.raises(TypeError, match="ruda.any: out"):
        ruda.any(x, out=numpy.empty(()))
