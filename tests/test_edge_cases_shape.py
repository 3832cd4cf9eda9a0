"""Edge cases of the manipulation, indexing, searching and set functions against NumPy, on
every available device: fixed inputs that once gave a wrong answer or an error somewhere."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import put, to_numpy


def assert_exact(actual: ruda.Array, expected: numpy.ndarray) -> None:
    """Same shape, dtype and values as NumPy's, signed zeros included."""
    a = to_numpy(actual)
    e = numpy.asarray(expected)
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    assert a.dtype == e.dtype, f"dtype {a.dtype} != {e.dtype}"
    numpy.testing.assert_array_equal(a, e)
    if e.dtype.kind == "f":
        numpy.testing.assert_array_equal(numpy.signbit(a), numpy.signbit(e))


# -- reshape: a view wherever NumPy makes one ----------------------------------------------------
@pytest.mark.parametrize(
    ("key", "shape"),
    [
        ((slice(None), slice(None, None, 2)), (2, 2, 3)),  # rows split, a stepped axis kept
        ((slice(None, None, -1), slice(None)), (2, 2, 2, 3)),  # a reversed axis split
        ((slice(None), slice(None, 3)), (4, 3, 1)),  # a partial row, a new unit axis
    ],
)
def test_reshape_noncontiguous_is_a_view(device, key, shape):
    a = numpy.arange(24, dtype=numpy.float32).reshape(4, 6)
    x = put(a, device)[key]
    y = ruda.reshape(x, shape, copy=False)
    assert_exact(y, a[key].reshape(shape, copy=False))
    y[...] = -1.0  # a view: the write reaches x, as in NumPy
    assert_exact(x, numpy.full(a[key].shape, -1.0, numpy.float32))
    z = ruda.reshape(put(a, device)[key], shape)  # copy=None: also a view when one can be
    z[...] = 7.0
    assert_exact(z, numpy.full(shape, 7.0, numpy.float32))


def test_reshape_copy_false_empty_and_impossible(device):
    a = numpy.zeros((0, 4), numpy.int16)
    x = put(a, device)[:, ::2]
    assert_exact(ruda.reshape(x, (0,), copy=False), a[:, ::2].reshape((0,), copy=False))
    t = ruda.permute_dims(put(numpy.arange(6).reshape(2, 3), device), (1, 0))
    with pytest.raises(ValueError, match="ruda.reshape"):
        ruda.reshape(t, (6,), copy=False)


# -- __getitem__ / __setitem__ --------------------------------------------------------------------
def test_getitem_empty_list(device):
    a = numpy.arange(32, dtype=numpy.int16).reshape(4, 2, 4)
    x = put(a, device)
    assert_exact(x[[], :], a[[], :])
    assert_exact(x[[[]]], a[[[]]])
    assert_exact(x[0, []], a[0, []])


@pytest.mark.parametrize(
    "key",
    [
        (0, False, False),
        (0, True, True),
        (True, True),
        (slice(None), numpy.True_, numpy.array(False)),
        ([0, 2], True),
        (True, [1, 0, 1]),
        (numpy.array([True, False, True]), True),
        (Ellipsis, numpy.array(True), [0, 1]),
        (0, Ellipsis, True),  # the int is advanced too: not adjacent, B's axis goes first
        (1, slice(None), numpy.array(False)),
    ],
)
def test_getitem_scalar_booleans_with_other_advanced(device, key):
    a = numpy.arange(12, dtype=numpy.float64).reshape(3, 4) - 5.0
    x = put(a, device)
    rkey = tuple(put(numpy.asarray(k), device) if isinstance(k, numpy.ndarray) else k for k in key)
    assert_exact(x[rkey], a[key])


def test_getitem_zero_d_index_broadcast_away_is_still_checked(device):
    # NumPy checks a 0-d index array as an int even when the indices broadcast to nothing;
    # n-d ones it does not check then
    a = numpy.zeros((3, 2, 2))
    x = put(a, device)
    empty = numpy.asarray([], numpy.int64)
    for other in (numpy.asarray(5), numpy.asarray([5])):
        try:
            expected = a[empty, other]
        except IndexError:
            with pytest.raises(IndexError):
                x[put(empty, device), put(other, device)]
        else:
            assert_exact(x[put(empty, device), put(other, device)], expected)
    with pytest.raises(IndexError):
        x[put(numpy.asarray([], bool), device), put(numpy.asarray(5), device)]


def test_setitem_scalar_booleans_with_other_advanced(device):
    a = numpy.arange(12, dtype=numpy.int32).reshape(3, 4)
    x = put(a, device)
    x[[0, 2], True] = -7
    a[[0, 2], True] = -7
    assert_exact(x, a)
    x[1, False, False] = 99  # selects nothing
    assert_exact(x, a)
    v = numpy.arange(4, dtype=numpy.int32).reshape(1, 4)  # shaped as a[0, :, True] is: (1, 4)
    x[0, :, put(numpy.asarray(True), device)] = put(v, device)
    a[0, :, True] = v
    assert_exact(x, a)


def test_setitem_signed_zero_scalars(device):
    # 0.0 and -0.0 are equal and hash alike: each must still land with its own sign
    for dt in (numpy.float32, numpy.float64, numpy.complex64):
        a = numpy.ones(3, dt)
        x = put(a, device)
        x[0] = 0.0
        x[1] = -0.0
        x[2] = 0.0
        a[0], a[1], a[2] = 0.0, -0.0, 0.0
        got = to_numpy(x)
        numpy.testing.assert_array_equal(numpy.signbit(got.real), numpy.signbit(a.real))


def test_scalar_operands_signed_zero(device):
    a = numpy.asarray([1.0, -1.0])
    x = put(a, device)
    assert_exact(x * 0.0, a * 0.0)
    assert_exact(x * -0.0, a * -0.0)
    c = put(numpy.asarray([True, False]), device)
    assert_exact(ruda.where(c, 0.0, -0.0), numpy.where([True, False], 0.0, -0.0))
    assert_exact(ruda.where(c, -0.0, 0.0), numpy.where([True, False], -0.0, 0.0))


# -- take / put --------------------------------------------------------------------------------
def test_take_zero_dimensional(device):
    a = numpy.asarray(2.5)
    x = put(a, device)
    idx = numpy.asarray([0, -1, 0])
    assert_exact(ruda.take(x, put(idx, device), axis=0), numpy.take(a, idx, axis=0))
    assert_exact(ruda.take(x, put(numpy.asarray(0), device), axis=-1), numpy.take(a, 0, axis=-1))


@pytest.mark.parametrize(
    ("shape", "idx", "axis", "mode"),
    [((0, 0, 3), 0, 1, "raise"), ((0, 0, 3), [0, 4], 1, "wrap"), ((0, 2), [5], 1, "raise")],
)
def test_take_nothing_taken_checks_nothing(device, shape, idx, axis, mode):
    a = numpy.zeros(shape, numpy.uint8)
    i = numpy.asarray(idx)
    got = ruda.take(put(a, device), put(i, device), axis=axis, mode=mode)
    assert_exact(got, numpy.take(a, i, axis=axis, mode=mode))


def test_put_into_noncontiguous(device):
    a = numpy.arange(24, dtype=numpy.int64).reshape(4, 6)
    x = put(a, device)
    view = x[::2, 1::2]
    e = a[::2, 1::2]
    ruda.put(view, put(numpy.asarray([0, 4, -1]), device), put(numpy.asarray([-1, -2]), device))
    numpy.put(e, [0, 4, -1], [-1, -2])
    assert_exact(x, a)
    t = ruda.permute_dims(x, (1, 0))
    ruda.put(t, put(numpy.asarray([1, 5]), device), 100)
    numpy.put(a.T, [1, 5], 100)
    assert_exact(x, a)
