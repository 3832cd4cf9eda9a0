"""Searching functions against NumPy (exact: same dtype, same indices)."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put, to_numpy

ints = hnp.arrays(
    numpy.int32,
    hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6),
    elements=st.integers(-3, 3),
)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@given(a=ints, data=st.data())
def test_argmax_argmin(device, name, a, data):
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    r = getattr(ruda, name)(put(a, device), axis=axis, keepdims=keepdims)
    assert_close(r, getattr(numpy, name)(a, axis=axis, keepdims=keepdims), device=device)


@given(a=ints, data=st.data())
def test_count_nonzero(device, a, data):
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1) | st.just(tuple(range(a.ndim))))
    keepdims = data.draw(st.booleans())
    r = ruda.count_nonzero(put(a, device), axis=axis, keepdims=keepdims)
    e = numpy.asarray(numpy.count_nonzero(a, axis=axis, keepdims=keepdims), dtype=numpy.int64)
    assert_close(r, e)


@given(a=ints)
def test_nonzero_where_one_arg(device, a):
    x = put(a, device)
    for r, e in zip(ruda.nonzero(x), numpy.nonzero(a), strict=True):
        assert_close(r, e)
    for r, e in zip(ruda.where(x), numpy.where(a), strict=True):
        assert_close(r, e)
    assert_close(ruda.argwhere(x), numpy.argwhere(a))
    assert_close(ruda.flatnonzero(x), numpy.flatnonzero(a))


def test_where(device, rng):
    c = rng.random((3, 4)) > 0.5
    a = rng.standard_normal((3, 4))
    b = rng.integers(-9, 9, (4,)).astype(numpy.int8)
    cx, ax, bx = put(c, device), put(a, device), put(b, device)
    assert_close(ruda.where(cx, ax, bx), numpy.where(c, a, b))
    r = ruda.where(cx, bx, 7)
    assert r.dtype == ruda.int8
    assert_close(r, numpy.where(c, b, numpy.int8(7)))
    r = ruda.where(cx, 1.5, put(a.astype(numpy.float32), device))
    assert r.dtype == ruda.float32
    assert_close(ruda.where(cx, put(b.astype(numpy.uint8), device), bx),
                 numpy.where(c, b.astype(numpy.uint8), b))  # fmt: skip


def test_searchsorted(device, rng):
    s = numpy.sort(rng.integers(0, 20, 15))
    v = rng.integers(-2, 22, (3, 4))
    sx, vx = put(s, device), put(v, device)
    for side in ("left", "right"):
        assert_close(ruda.searchsorted(sx, vx, side=side), numpy.searchsorted(s, v, side=side))
    perm = rng.permutation(15)
    u = s[perm]
    sorter = numpy.argsort(u)
    assert_close(ruda.searchsorted(put(u, device), vx, sorter=put(sorter, device)),
                 numpy.searchsorted(u, v, sorter=sorter))  # fmt: skip
    r = ruda.searchsorted(sx, 5)
    assert r.ndim == 0 and r.dtype == ruda.int64
    assert int(r) == numpy.searchsorted(s, 5)
    f = put(numpy.sort(rng.standard_normal(10)), device)
    assert int(ruda.searchsorted(f, 0.25)) == numpy.searchsorted(to_numpy(f), 0.25)


def test_nanarg(device):
    a = numpy.array([[numpy.nan, 2.0, 5.0], [1.0, numpy.nan, -1.0]])
    x = put(a, device)
    assert_close(ruda.nanargmax(x, axis=1), numpy.nanargmax(a, axis=1))
    assert_close(ruda.nanargmin(x), numpy.nanargmin(a))


@pytest.mark.parametrize("name", ["argmax", "argmin", "nanargmax", "nanargmin"])
@pytest.mark.parametrize(("shape", "axis"), [((0, 3), 1), ((3, 0), 0), ((2, 0, 3), -1)])
def test_arg_empty_result(device, name, shape, axis):
    # An empty array whose reduced axis is not empty has an empty answer, not an error.
    a = numpy.zeros(shape, numpy.float32)
    for keepdims in (False, True):
        r = getattr(ruda, name)(put(a, device), axis=axis, keepdims=keepdims)
        assert_close(r, getattr(numpy, name)(a, axis=axis, keepdims=keepdims), device=device)
    with pytest.raises(ValueError, match=f"ruda.{name}: x is empty"):
        getattr(ruda, name)(put(numpy.zeros((0, 3)), device), axis=0)


def test_errors(device, rng):
    x = put(rng.integers(0, 5, (2, 3)), device)
    with pytest.raises(ValueError, match="ruda.argmax"):
        ruda.argmax(put(numpy.zeros(0), device))
    with pytest.raises(ruda.AxisError, match="ruda.argmin"):
        ruda.argmin(x, axis=2)
    with pytest.raises(ValueError, match="ruda.nonzero"):
        ruda.nonzero(put(numpy.array(3), device))
    with pytest.raises(ValueError, match="ruda.searchsorted: x1"):
        ruda.searchsorted(x, 1)
    with pytest.raises(ValueError, match="ruda.searchsorted: side"):
        ruda.searchsorted(x[0], 1, side="middle")
    with pytest.raises(TypeError, match="ruda.where"):
        ruda.where(x > 1, x)
    with pytest.raises(ruda.AxisError, match="ruda.count_nonzero"):
        ruda.count_nonzero(x, axis=(0, 5))
