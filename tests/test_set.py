"""Set functions against NumPy; NaNs are distinct values for the standard's unique_*."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put, to_numpy

arrays = hnp.arrays(
    st.sampled_from([numpy.int8, numpy.int64, numpy.uint16, numpy.float64]),
    hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
    elements=st.integers(-3, 3).map(abs),
)


@given(a=arrays)
def test_unique_family(device, a):
    x = put(a, device)
    r = ruda.unique_all(x)
    e = numpy.unique_all(a)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    for got, want in zip(r, e, strict=True):
        assert_close(got, want)
    assert r.inverse_indices.shape == a.shape
    assert_close(ruda.unique_counts(x).counts, e.counts)
    assert_close(ruda.unique_inverse(x).inverse_indices, e.inverse_indices)
    assert_close(numpy.sort(to_numpy(ruda.unique_values(x))), e.values)


complex_arrays = hnp.arrays(
    st.sampled_from([numpy.complex64, numpy.complex128]),
    hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
    elements=st.builds(
        complex,
        st.sampled_from([-1.0, -0.0, 0.0, 2.0, numpy.nan]),
        st.sampled_from([-0.0, 0.0, 1.0, -3.0, numpy.nan]),
    ),
)


@given(a=complex_arrays)
def test_unique_family_complex(device, a):
    # NumPy's lexicographic order; a value with a NaN part is a NaN (distinct, last); -0 == +0
    x = put(a, device)
    r = ruda.unique_all(x)
    e = numpy.unique_all(a)
    for got, want in zip(r, e, strict=True):
        assert_close(got, want)
    for part in ("real", "imag"):  # the NaNs' order too, part by part
        assert_close(getattr(to_numpy(r.values), part), getattr(e.values, part))
    assert_close(ruda.unique_counts(x).counts, e.counts)
    # NumPy's unique_inverse orders equal-looking NaNs (-1+nanj twice) unstably, so its
    # indices may differ from unique_all's: check that the values rebuild x instead
    v, inv = (to_numpy(y) for y in ruda.unique_inverse(x))
    assert_close(v, e.values)
    assert_close(v[inv], a)
    assert_close(ruda.unique_values(x), e.values)


def test_nans_are_distinct(device):
    a = numpy.array([numpy.nan, 1.0, numpy.nan, 1.0])
    x = put(a, device)
    assert ruda.unique_values(x).shape == (3,)
    assert_close(ruda.unique_counts(x).counts, numpy.array([2, 1, 1]))
    # NumPy's unique merges NaNs by default (equal_nan=True), and so does ruda's.
    assert ruda.unique(x).shape == (2,)


def test_isin(device, rng):
    a = rng.integers(0, 10, (4, 5))
    b = rng.integers(0, 10, 6)
    x, y = put(a, device), put(b, device)
    assert_close(ruda.isin(x, y), numpy.isin(a, b))
    assert_close(ruda.isin(x, y, invert=True), numpy.isin(a, b, invert=True))
    r = ruda.isin(int(b[0]), y)
    assert r.ndim == 0 and bool(r)
    assert_close(ruda.isin(x, 3), numpy.isin(a, 3))


def test_numpy_unique_and_1d(device, rng):
    a = rng.integers(0, 6, 30)
    b = rng.integers(3, 9, 20)
    x, y = put(a, device), put(b, device)
    expected = numpy.unique(a, True, True, True)
    for got, want in zip(ruda.unique(x, True, True, True), expected, strict=True):
        assert_close(got, want)
    m = rng.integers(0, 2, (6, 3))
    assert_close(ruda.unique(put(m, device), axis=0), numpy.unique(m, axis=0))
    assert_close(ruda.intersect1d(x, y), numpy.intersect1d(a, b))
    for got, want in zip(ruda.intersect1d(x, y, return_indices=True),
                         numpy.intersect1d(a, b, return_indices=True), strict=True):  # fmt: skip
        assert_close(got, want)
    assert_close(ruda.union1d(x, y), numpy.union1d(a, b))
    assert_close(ruda.setdiff1d(x, y), numpy.setdiff1d(a, b))
    assert_close(ruda.setxor1d(x, y), numpy.setxor1d(a, b))
    assert_close(ruda.union1d(a.tolist(), y), numpy.union1d(a, b))


@pytest.mark.parametrize(
    ("shape", "axis"), [((0, 3), 0), ((0, 3), 1), ((3, 0), 0), ((2, 0, 3), -1)]
)
def test_unique_axis_empty(device, shape, axis):
    # an empty array's slices: none, or one empty slice (NumPy's shapes)
    a = numpy.zeros(shape)
    assert_close(ruda.unique(put(a, device), axis=axis), numpy.unique(a, axis=axis))


def test_errors(device):
    with pytest.raises(TypeError, match="ruda.unique_values"):
        ruda.unique_values(object())
    x = put(numpy.ones((2, 2)), device)
    with pytest.raises(ruda.AxisError, match="ruda.unique"):
        ruda.unique(x, axis=3)
