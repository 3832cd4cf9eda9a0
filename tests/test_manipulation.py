"""Manipulation functions against NumPy, on every available device."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put

arrays = hnp.arrays(
    dtype=st.sampled_from([numpy.float64, numpy.int32, numpy.float32]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
    elements={"allow_nan": False, "min_value": -100, "max_value": 100},
)


@given(a=arrays, data=st.data())
def test_reshape_flip_roll(device, a, data):
    x = put(a, device)
    assert_close(ruda.reshape(x, (-1,)), a.reshape(-1), device=device)
    assert_close(ruda.reshape(x, a.shape[::-1], copy=True), a.reshape(a.shape[::-1]))
    ax = data.draw(st.integers(-a.ndim, a.ndim - 1))
    assert_close(ruda.flip(x, axis=ax), numpy.flip(a, axis=ax))
    assert_close(ruda.flip(x), numpy.flip(a))
    shift = data.draw(st.integers(-5, 5))
    assert_close(ruda.roll(x, shift), numpy.roll(a, shift))
    assert_close(ruda.roll(x, shift, axis=ax), numpy.roll(a, shift, axis=ax))


@given(a=arrays, data=st.data())
def test_axes_functions(device, a, data):
    x = put(a, device)
    perm = tuple(data.draw(st.permutations(range(a.ndim))))
    assert_close(ruda.permute_dims(x, perm), numpy.transpose(a, perm), device=device)
    neg = tuple(p - a.ndim for p in perm)
    assert_close(ruda.permute_dims(x, neg), numpy.transpose(a, perm))
    ax = data.draw(st.integers(-a.ndim - 1, a.ndim))
    assert_close(ruda.expand_dims(x, ax), numpy.expand_dims(a, ax))
    assert_close(ruda.expand_dims(x, (0, -1)), numpy.expand_dims(a, (0, -1)))
    src, dst = data.draw(st.integers(0, a.ndim - 1)), data.draw(st.integers(0, a.ndim - 1))
    assert_close(ruda.moveaxis(x, src, dst), numpy.moveaxis(a, src, dst))
    assert_close(ruda.squeeze(ruda.expand_dims(x, 0), 0), a)


@given(a=arrays, b=arrays)
def test_concat_stack(device, a, b):
    x, y = put(a, device), put(b, device)
    assert_close(ruda.concat([x, x], axis=-1), numpy.concatenate([a, a], axis=-1), device=device)
    got = ruda.concat((x, y), axis=None)
    assert got.shape == (a.size + b.size,)
    assert_close(ruda.stack([x, x, x], axis=1), numpy.stack([a, a, a], axis=1))
    assert [u.shape for u in ruda.unstack(x, axis=0)] == [a[0].shape] * a.shape[0]


def test_concat_promotion(device):
    i8 = ruda.asarray([1, 2], dtype=ruda.int8, device=device)
    u8 = ruda.asarray([3], dtype=ruda.uint8, device=device)
    f4 = ruda.asarray([1.5], dtype=ruda.float32, device=device)
    assert ruda.concat([i8, u8]).dtype == ruda.int16
    assert ruda.concat([f4, ruda.asarray([2.0], device=device)]).dtype == ruda.float64
    assert ruda.stack([u8, u8.astype(ruda.uint16)]).dtype == ruda.uint16


@given(a=arrays, reps=st.integers(0, 3))
def test_repeat_tile(device, a, reps):
    x = put(a, device)
    assert_close(ruda.repeat(x, reps), numpy.repeat(a, reps), device=device)
    assert_close(ruda.repeat(x, reps, axis=0), numpy.repeat(a, reps, axis=0))
    r = numpy.arange(a.shape[-1]) % 3
    assert_close(ruda.repeat(x, put(r, device), axis=-1), numpy.repeat(a, r, axis=-1))
    assert_close(ruda.tile(x, (reps, 2)), numpy.tile(a, (reps, 2)))


def test_broadcast(device, rng):
    a, b = rng.standard_normal((3, 1)), rng.standard_normal(4)
    x, y = put(a, device), put(b, device)
    r = ruda.broadcast_arrays(x, y)
    assert isinstance(r, tuple)
    for got, exp in zip(r, numpy.broadcast_arrays(a, b), strict=True):
        assert_close(got, exp, device=device)
    assert_close(ruda.broadcast_to(y, (2, 4)), numpy.broadcast_to(b, (2, 4)))
    assert ruda.broadcast_shapes((3, 1), (4,)) == (3, 4)
    assert ruda.broadcast_shapes() == ()
    assert ruda.broadcast_shapes((None, 1), (1, 5)) == (None, 5)
    assert ruda.broadcast_shapes((None, 3), (2, 3)) == (2, 3)


def test_numpy_surface(device, rng):
    a = rng.standard_normal((4, 6))
    x = put(a, device)
    assert_close(ruda.concatenate((x, x), 1), numpy.concatenate((a, a), 1))
    assert_close(ruda.ravel(x), a.ravel())
    assert_close(ruda.swapaxes(x, 0, 1), a.swapaxes(0, 1))
    assert_close(ruda.transpose(x), a.T)
    assert ruda.atleast_1d(1.0).shape == (1,)
    assert ruda.atleast_2d(x).shape == (4, 6)
    assert ruda.atleast_3d(x).shape == (4, 6, 1)
    assert_close(ruda.vstack([x, x]), numpy.vstack([a, a]))
    assert_close(ruda.hstack([x, x]), numpy.hstack([a, a]))
    assert_close(ruda.dstack([x, x]), numpy.dstack([a, a]))
    assert_close(ruda.column_stack([x[:, 0], x[:, 1]]), numpy.column_stack([a[:, 0], a[:, 1]]))
    for got, exp in zip(ruda.split(x, 2, axis=1), numpy.split(a, 2, axis=1), strict=True):
        assert_close(got, exp)
    for got, exp in zip(
        ruda.array_split(x, 4, axis=1), numpy.array_split(a, 4, axis=1), strict=True
    ):
        assert_close(got, exp)
    assert len(ruda.hsplit(x, 3)) == 3 and len(ruda.vsplit(x, 2)) == 2
    assert len(ruda.dsplit(ruda.atleast_3d(x), 1)) == 1
    assert_close(ruda.fliplr(x), numpy.fliplr(a))
    assert_close(ruda.flipud(x), numpy.flipud(a))
    assert_close(ruda.rot90(x, 3), numpy.rot90(a, 3))
    assert_close(ruda.pad(x, ((1, 0), (2, 1)), mode="edge"), numpy.pad(a, ((1, 0), (2, 1)), "edge"))
    assert_close(ruda.append(x, x, axis=0), numpy.append(a, a, axis=0))
    assert_close(ruda.insert(x, 1, 5.0, axis=1), numpy.insert(a, 1, 5.0, axis=1))
    assert_close(ruda.delete(x, [0, 2], axis=1), numpy.delete(a, [0, 2], axis=1))
    assert_close(ruda.resize(x, (5, 5)), numpy.resize(a, (5, 5)))
    assert_close(ruda.block([[x, x], [x, x]]), numpy.block([[a, a], [a, a]]))
    z = numpy.array([0.0, 0.0, 1.5, 2.0, 0.0])
    assert_close(ruda.trim_zeros(put(z, device)), numpy.trim_zeros(z))
    assert_close(ruda.trim_zeros(put(z, device), "f"), numpy.trim_zeros(z, "f"))


def test_errors(device):
    x = ruda.ones((2, 3), device=device)
    with pytest.raises(IndexError, match="ruda.expand_dims"):
        ruda.expand_dims(x, 5)
    with pytest.raises(ValueError, match="ruda.squeeze"):
        ruda.squeeze(x, 0)
    with pytest.raises(IndexError, match="ruda.concat"):
        ruda.concat([x, x], axis=2)
    with pytest.raises(ValueError, match="ruda.concat"):
        ruda.concat([x, ruda.ones((3, 3), device=device)], axis=1)
    with pytest.raises(ValueError, match="ruda.stack"):
        ruda.stack([x, ruda.ones(3, device=device)])
    with pytest.raises(ValueError, match="ruda.permute_dims"):
        ruda.permute_dims(x, (0,))
    with pytest.raises(ValueError, match="ruda.reshape"):
        ruda.reshape(x, (4,))
    with pytest.raises(ValueError, match="ruda.broadcast_shapes"):
        ruda.broadcast_shapes((2,), (3,))
    with pytest.raises(ValueError, match="ruda.broadcast_to"):
        ruda.broadcast_to(x, (3, 3))
    with pytest.raises(TypeError, match="ruda.repeat"):
        ruda.repeat(x, ruda.asarray([1.5], device=device))
