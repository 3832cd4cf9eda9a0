"""Indexing functions against NumPy, on every available device."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put, to_numpy

arrays = hnp.arrays(
    dtype=st.sampled_from([numpy.float64, numpy.int64]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
    elements={"allow_nan": False, "min_value": -100, "max_value": 100},
)


@given(a=arrays, data=st.data())
def test_take(device, a, data):
    x = put(a, device)
    ax = data.draw(st.integers(-a.ndim, a.ndim - 1))
    n = a.shape[ax]
    idx = numpy.asarray(data.draw(st.lists(st.integers(-n, n - 1), max_size=6)), dtype=numpy.int64)
    assert_close(
        ruda.take(x, put(idx, device), axis=ax), numpy.take(a, idx, axis=ax), device=device
    )
    if a.ndim == 1:
        assert_close(ruda.take(x, put(idx, device)), numpy.take(a, idx))


@given(a=arrays, data=st.data())
def test_take_along_axis(device, a, data):
    x = put(a, device)
    ax = data.draw(st.integers(-a.ndim, a.ndim - 1))
    idx = numpy.argsort(a, axis=ax)
    got = ruda.take_along_axis(x, put(idx, device), axis=ax)
    assert_close(got, numpy.take_along_axis(a, idx, axis=ax), device=device)


def test_numpy_surface(device, rng):
    a = rng.standard_normal((4, 4))
    x = put(a.copy(), device)
    ruda.put(x, [0, 5], [9.0, 8.0])
    b = a.copy()
    numpy.put(b, [0, 5], [9.0, 8.0])
    assert_close(x, b)
    i = numpy.argsort(a, axis=1)[:, :1]
    ruda.put_along_axis(x, put(i, device), -1.0, axis=1)
    numpy.put_along_axis(b, i, -1.0, axis=1)
    assert_close(x, b)
    sel = numpy.array([0, 1, 0, 1])
    assert_close(ruda.choose(put(sel, device), [x[0], x[1]]), numpy.choose(sel, [b[0], b[1]]))
    c = [b > 0, b < -0.5]
    assert_close(
        ruda.select([put(v, device) for v in c], [x, x * 2], 7.0), numpy.select(c, [b, b * 2], 7.0)
    )
    assert_close(ruda.extract(put(c[0], device), x), numpy.extract(c[0], b))
    ruda.place(x, put(c[1], device), [3.0])
    numpy.place(b, c[1], [3.0])
    assert_close(x, b)
    assert_close(
        ruda.compress([True, False, True], x, axis=1), numpy.compress([1, 0, 1], b, axis=1)
    )
    for got, exp in zip(ruda.unravel_index(put(numpy.array([3, 7]), device), (2, 4)),
                        numpy.unravel_index([3, 7], (2, 4)), strict=True):  # fmt: skip
        assert_close(got, exp)
    mi = (put(numpy.array([1, 0]), device), put(numpy.array([3, 2]), device))
    assert_close(
        ruda.ravel_multi_index(mi, (2, 4)), numpy.ravel_multi_index(([1, 0], [3, 2]), (2, 4))
    )
    for got, exp in zip(ruda.diag_indices(3, device=device), numpy.diag_indices(3), strict=True):
        assert_close(got, exp)
    for got, exp in zip(
        ruda.tril_indices(4, -1, device=device), numpy.tril_indices(4, -1), strict=True
    ):
        assert_close(got, exp)
    for got, exp in zip(ruda.triu_indices_from(x, 1), numpy.triu_indices_from(b, 1), strict=True):
        assert_close(got, exp)
    ruda.fill_diagonal(x, 0.5)
    numpy.fill_diagonal(b, 0.5)
    assert_close(x, b)
    assert list(ruda.ndindex(2, 3)) == list(numpy.ndindex(2, 3))
    vals = [(i, float(v)) for i, v in ruda.ndenumerate(x)]
    assert vals == [(i, float(v)) for i, v in numpy.ndenumerate(b)]


def test_index_tricks(rng):
    assert_close(ruda.mgrid[0:2, 0:3], numpy.mgrid[0:2, 0:3])
    for got, exp in zip(ruda.ogrid[0:2, 0:3], numpy.ogrid[0:2, 0:3], strict=True):
        assert_close(got, exp)
    a = rng.standard_normal(3)
    assert_close(ruda.r_[1:3, 5, ruda.asarray(a)], numpy.r_[1:3, 5, a])
    assert_close(ruda.c_[ruda.asarray(a), ruda.asarray(a)], numpy.c_[a, a])
    assert ruda.s_[1:2, ::3] == numpy.s_[1:2, ::3]
    assert ruda.index_exp[1:2] == numpy.index_exp[1:2]
    x = ruda.asarray(rng.standard_normal((3, 4)))
    got = x[ruda.ix_([0, 2], [1, 3])]
    assert_close(got, to_numpy(x)[numpy.ix_([0, 2], [1, 3])])


def test_empty_index_lists(device):
    # [] arrives as float64, as in NumPy: no index to check, nothing to put or take
    a = numpy.arange(6.0)
    x = put(a.copy(), device)
    ruda.put(x, [], [1.0])
    assert_close(x, a)
    assert_close(ruda.take(x, []), numpy.take(a, []))


def test_errors(device):
    x = ruda.ones((2, 3), device=device)
    i = ruda.asarray([0], device=device)
    # NumPy's semantics where the standard leaves it open: no axis indexes the flattened array.
    assert_close(ruda.take(x, ruda.asarray([4], device=device)), numpy.ones(1))
    with pytest.raises(IndexError, match="ruda.take"):
        ruda.take(x, i, axis=2)
    with pytest.raises(TypeError, match="ruda.take"):
        ruda.take(x, ruda.asarray([0.5], device=device), axis=0)
    with pytest.raises(IndexError, match="ruda.take"):
        ruda.take(x, ruda.asarray([7], device=device), axis=0)
    with pytest.raises(ValueError, match="ruda.take_along_axis"):
        ruda.take_along_axis(x, i, axis=0)
    with pytest.raises(TypeError, match="ruda.put"):
        ruda.put([1, 2], [0], 1)


HUGE_SLICES = [
    slice(None, None, 2**62),
    slice(None, None, 2**70),
    slice(None, None, -(2**62)),
    slice(-(2**70), 2**70, 2**63),
    slice(2**70, None, -(2**70)),
    slice(2**70, -(2**70), -1),
    slice(-(2**70), 2**70),
    slice(2**64, 2**65),
    slice(1, None, 2**63),
    slice(-(2**63), 2**63 - 1, 2**63 - 1),
]


@pytest.mark.parametrize("s", HUGE_SLICES, ids=repr)
def test_huge_slice_bounds_and_steps(device, rng, s):
    # NumPy clamps slice bounds and steps of any size (a[::2**62] is the first element);
    # wgpu raised OverflowError on the one-element view's stride
    a = rng.standard_normal((5, 4))
    x = put(a, device)
    for key in (s, (s, s), (slice(None), s), (Ellipsis, s), (s, 1), (s, [0, 2])):
        want = a[key]
        got = x[key]
        assert got.shape == want.shape
        numpy.testing.assert_array_equal(to_numpy(got), want)
        b, y = a.copy(), put(a, device)
        b[key] = -7.0
        y[key] = -7.0
        numpy.testing.assert_array_equal(to_numpy(y), b)
    flat = a[:, 0].copy()
    numpy.testing.assert_array_equal(to_numpy(put(flat, device)[s]), flat[s])
