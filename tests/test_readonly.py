"""Read-only arrays: what NumPy makes read-only (broadcast_to, sliding_window_view,
as_strided(writeable=False), diagonal) refuses writes on every device, views included."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import put, to_numpy

READ_ONLY = "read-only"


def _ro(device, rng, shape=(2, 3)):
    """A broadcast_to view of fresh data on ``device``, and its NumPy twin."""
    base = rng.standard_normal(shape[-1])
    return ruda.broadcast_to(put(base, device), shape), numpy.broadcast_to(base, shape), base


def _unchanged(x, ref):
    numpy.testing.assert_array_equal(to_numpy(x), ref)


def test_broadcast_to_refuses_writes(device, rng):
    # the case: on wgpu the write went through and changed both rows
    b, ref, base = _ro(device, rng)
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        b[0, 0] = 1
    with numpy.testing.assert_raises(ValueError):
        ref[0, 0] = 1
    _unchanged(b, ref)
    if device.kind == "cpu":
        assert b._data.flags.writeable is False
    else:
        assert b._data.readonly is True and b._data.flags["WRITEABLE"] is False


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x[0],
        lambda x: x[:, 1:],
        lambda x: x[..., None],
        lambda x: x.T,
        lambda x: x.mT,
        lambda x: ruda.flip(x),
        lambda x: ruda.expand_dims(x, axis=0),
        lambda x: ruda.moveaxis(x, 0, 1),
        lambda x: ruda.permute_dims(x, (1, 0)),
        lambda x: ruda.reshape(x[:1], (3,)),  # a view of the one row
        lambda x: ruda.squeeze(x[:1]),
    ],
)
def test_views_of_read_only_arrays_stay_read_only(device, rng, view):
    b, ref, _ = _ro(device, rng)
    v = view(b)
    with pytest.raises(ValueError, match=READ_ONLY):
        v[...] = 5
    _unchanged(b, ref)


@pytest.mark.parametrize(
    "copy",
    [
        lambda x: x.copy(),
        lambda x: ruda.asarray(x, copy=True),
        lambda x: ruda.reshape(x, (6,)),  # no view can: a copy, writeable (as NumPy's)
        lambda x: ruda.astype(x, ruda.float32),
        lambda x: x + 0,
    ],
)
def test_copies_of_read_only_arrays_are_writeable(device, rng, copy):
    b, ref, _ = _ro(device, rng)
    c = copy(b)
    c[0, ...] = 7
    want = numpy.array(ref).reshape(c.shape)
    want[0, ...] = 7
    numpy.testing.assert_allclose(to_numpy(c), want, rtol=1e-6)
    _unchanged(b, ref)


def _setitem(x, key, v):
    x[key] = v


def _iadd(x):
    x += 1


def _imul(x):
    x *= 2


@pytest.mark.parametrize(
    "write",
    [
        lambda b, d: _setitem(b, (0, 0), 1.0),
        lambda b, d: _setitem(b, slice(None), 1.0),
        lambda b, d: _setitem(b, (ruda.asarray([0], device=d),), 1.0),
        lambda b, d: _setitem(b, b > 0, 1.0),
        lambda b, d: _iadd(b),
        lambda b, d: _imul(b),
        lambda b, d: ruda.add(ruda.ones((2, 3), device=d), 1, out=b),
        lambda b, d: ruda.sin(ruda.ones((2, 3), device=d), out=b),
        lambda b, d: ruda.multiply(b, 2, out=b, where=True),
        lambda b, d: ruda.cumsum(ruda.ones((2, 3), device=d), axis=1, out=b),
        lambda b, d: ruda.matmul(ruda.ones((2, 2), device=d), ruda.ones((2, 3), device=d), out=b),
        lambda b, d: ruda.clip(ruda.ones((2, 3), device=d), 0, 1, out=b),
        lambda b, d: ruda.put(b, [0], 1.0),
        lambda b, d: ruda.place(b, b == b, [1.0]),
        lambda b, d: ruda.put_along_axis(b, ruda.asarray([[0], [0]], device=d), 1.0, axis=1),
        lambda b, d: b.fill(1.0),
        lambda b, d: b.sort(),
    ],
)
def test_writes_into_read_only_arrays_raise(device, rng, write):
    b, ref, _ = _ro(device, rng)
    with pytest.raises(ValueError, match=READ_ONLY):
        write(b, device)
    _unchanged(b, ref)


def test_reductions_into_read_only_out_raise(device, rng):
    out = ruda.broadcast_to(ruda.zeros(1, device=device), (3,))
    with pytest.raises(ValueError, match=READ_ONLY):
        ruda.sum(put(rng.standard_normal((2, 3)), device), axis=0, out=out)
    _unchanged(out, numpy.zeros(3))


def test_matmul_in_place_into_read_only_raises(device, rng):
    base = rng.standard_normal((1, 2))
    b = ruda.broadcast_to(put(base, device), (2, 2))
    with pytest.raises(ValueError, match=READ_ONLY):
        b @= b
    _unchanged(b, numpy.broadcast_to(base, (2, 2)))


def test_fill_diagonal_of_read_only_raises(device, rng):
    base = rng.standard_normal(3)
    b = ruda.broadcast_to(put(base, device), (3, 3))
    with pytest.raises(ValueError, match=READ_ONLY):
        ruda.fill_diagonal(b, 1.0)
    _unchanged(b, numpy.broadcast_to(base, (3, 3)))


def test_sliding_window_view_is_read_only_unless_asked(device, rng):
    a = rng.standard_normal(5)
    x = put(a, device)
    w = ruda.lib.stride_tricks.sliding_window_view(x, 2)
    with pytest.raises(ValueError, match=READ_ONLY):
        w[0, 0] = 9
    ww = ruda.lib.stride_tricks.sliding_window_view(x, 2, writeable=True)
    ww[1, 0] = 9  # writes through to x, as NumPy's writeable view does
    want = a.copy()
    numpy.lib.stride_tricks.sliding_window_view(want, 2, writeable=True)[1, 0] = 9
    numpy.testing.assert_array_equal(to_numpy(x), want)
    # a writeable window over a read-only array stays read-only (NumPy's rule)
    ro = ruda.broadcast_to(x, (2, 5))
    w2 = ruda.lib.stride_tricks.sliding_window_view(ro, (1, 2), writeable=True)
    with pytest.raises(ValueError, match=READ_ONLY):
        w2[0, 0, 0, 0] = 1


def test_as_strided_writeable_flag(device, rng):
    a = rng.standard_normal(4)
    x = put(a, device)
    ast = ruda.lib.stride_tricks.as_strided
    with pytest.raises(ValueError, match=READ_ONLY):
        ast(x, writeable=False)[0] = 1
    ast(x)[0] = 1  # writeable by default, like NumPy
    assert to_numpy(x)[0] == 1
    with pytest.raises(ValueError, match=READ_ONLY):
        ast(ruda.broadcast_to(x, (2, 4)))[0, 0] = 1  # a view of a read-only array


@pytest.mark.parametrize(
    "diag", [lambda x: ruda.diagonal(x), lambda x: ruda.linalg.diagonal(x), lambda x: x.diagonal()]
)
def test_diagonal_is_read_only(device, rng, diag):
    a = rng.standard_normal((3, 3))
    x = put(a, device)
    d = diag(x)
    numpy.testing.assert_array_equal(to_numpy(d), numpy.diagonal(a))
    with pytest.raises(ValueError, match=READ_ONLY):
        d[0] = 1
    numpy.testing.assert_array_equal(to_numpy(x), a)


def test_dlpack_import_of_a_read_only_buffer(device, rng):
    h = rng.standard_normal(3)
    h.flags.writeable = False
    before = h.copy()
    x = ruda.from_dlpack(h, device=device)
    if device.kind == "cpu":
        # zero-copy: the view keeps the producer's read-only flag, as numpy.from_dlpack does
        with pytest.raises(ValueError, match=READ_ONLY):
            x[0] = 1
    else:
        # a copy on the device: its own memory, writeable, the host buffer untouched
        x[0] = 1
        assert to_numpy(x)[0] == 1
    assert not h.flags.writeable
    numpy.testing.assert_array_equal(h, before)
