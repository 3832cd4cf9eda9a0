"""Main-namespace linear algebra (matmul, tensordot, vecdot, einsum...) and polynomials vs NumPy."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put, to_numpy

_FLOATS = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]
_NUMERIC = [numpy.int8, numpy.int32, numpy.int64, numpy.uint8, *_FLOATS]


def _rand(rng, shape, dtype=numpy.float64):
    d = numpy.dtype(dtype)
    if d.kind in "iu":
        return rng.integers(1 if d.kind == "u" else -5, 6, size=shape).astype(d)
    a = rng.standard_normal(shape) + 0.5
    if d.kind == "c":
        a = a + 1j * (rng.standard_normal(shape) - 0.25)
    return a.astype(d)


def _wide(a):
    """The float64/complex128 copy NumPy's reference is computed in."""
    return a.astype(numpy.complex128) if a.dtype.kind == "c" else a.astype(numpy.float64)


def _check(actual, a_np, fn, *args, **kw):
    """Dtype from NumPy on the same dtypes; values from NumPy in double precision."""
    same = numpy.asarray(fn(*args, **kw))
    if same.dtype.kind in "fc":
        wide = numpy.asarray(fn(*[_wide(x) for x in args], **kw)).astype(same.dtype)
        rtol = 2e-4 if same.dtype in (numpy.float32, numpy.complex64) else 1e-9
        assert_close(actual, wide, rtol=rtol, atol=rtol)
    else:
        assert_close(actual, same)


@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3),
    m=st.integers(1, 4),
    k=st.integers(1, 4),
    n=st.integers(1, 4),
    dtype=st.sampled_from(_NUMERIC),
)
def test_matmul_stacks(device, shapes, m, k, n, dtype):
    rng = numpy.random.default_rng()
    a = _rand(rng, shapes.input_shapes[0] + (m, k), dtype)
    b = _rand(rng, shapes.input_shapes[1] + (k, n), dtype)
    r = ruda.matmul(put(a, device), put(b, device))
    _check(r, a, numpy.matmul, a, b)
    assert_close(put(a, device) @ put(b, device), to_numpy(r))


def test_matmul_vectors_and_errors(device, rng):
    a, b = _rand(rng, (4,)), _rand(rng, (4, 3))
    _check(ruda.matmul(put(a, device), put(b, device)), a, numpy.matmul, a, b)
    _check(ruda.matmul(put(b.T, device), put(a, device)), a, numpy.matmul, b.T, a)
    assert ruda.matmul(put(a, device), put(a, device)).shape == ()
    with pytest.raises(ValueError, match="ruda.matmul"):
        ruda.matmul(put(numpy.float64(2.0), device), put(a, device))
    with pytest.raises(ValueError):
        ruda.matmul(put(b, device), put(b, device))
    out = put(numpy.empty(3), device)
    assert ruda.matmul(put(a, device), put(b, device), out=out) is out
    assert_close(out, a @ b)
    assert_close(ruda.matmul(a.tolist(), b.tolist()), a @ b)  # array-likes, as in NumPy


@given(dtype=st.sampled_from(_NUMERIC), shape=hnp.array_shapes(min_dims=2, max_dims=4, max_side=3))
def test_matrix_transpose(device, dtype, shape):
    a = _rand(numpy.random.default_rng(), shape, dtype)
    assert_close(ruda.matrix_transpose(put(a, device)), numpy.swapaxes(a, -1, -2))
    assert_close(put(a, device).mT, numpy.swapaxes(a, -1, -2))


def test_matrix_transpose_needs_2d(device, rng):
    with pytest.raises(ValueError, match="ruda.matrix_transpose"):
        ruda.matrix_transpose(put(_rand(rng, (3,)), device))


@pytest.mark.parametrize("dtype", _NUMERIC)
@pytest.mark.parametrize(
    "sa,sb,axes",
    [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4,), 0),
     ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])), ((2, 3, 4), (4, 3), ([-1, -2], [0, 1]))],
)  # fmt: skip
def test_tensordot(device, rng, dtype, sa, sb, axes):
    a, b = _rand(rng, sa, dtype), _rand(rng, sb, dtype)
    _check(
        ruda.tensordot(put(a, device), put(b, device), axes=axes),
        a,
        numpy.tensordot,
        a,
        b,
        axes=axes,
    )


def test_tensordot_errors(device, rng):
    a, b = put(_rand(rng, (2, 3)), device), put(_rand(rng, (3, 4)), device)
    with pytest.raises(ValueError, match="ruda.tensordot"):
        ruda.tensordot(a, b, axes=-1)
    with pytest.raises(ValueError, match="ruda.tensordot"):
        ruda.tensordot(a, b, axes=2)
    with pytest.raises(ValueError, match="ruda.tensordot"):
        ruda.tensordot(a, b, axes=([0], [0]))
    with pytest.raises(ruda.AxisError, match="ruda.tensordot"):
        ruda.tensordot(a, b, axes=([5], [0]))
    with pytest.raises(ValueError, match="repeated"):
        ruda.tensordot(a, b, axes=([1, -1], [0, 0]))


@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    k=st.integers(1, 4),
    dtype=st.sampled_from(_NUMERIC),
)
def test_vecdot(device, shapes, k, dtype):
    rng = numpy.random.default_rng()
    a = _rand(rng, shapes.input_shapes[0] + (k,), dtype)
    b = _rand(rng, shapes.input_shapes[1] + (k,), dtype)
    _check(ruda.vecdot(put(a, device), put(b, device)), a, numpy.vecdot, a, b)


def test_vecdot_conjugates_and_axis(device, rng):
    x1, x2 = put(numpy.asarray([1j, 2j, 3j]), device), put(numpy.asarray([1, 2j, 3]), device)
    assert complex(ruda.vecdot(x1, x2)) == 4 - 10j
    a, b = _rand(rng, (3, 4)), _rand(rng, (2, 3, 4))
    assert_close(ruda.vecdot(put(a, device), put(b, device), axis=-2), numpy.vecdot(a, b, axis=-2))
    with pytest.raises(ValueError, match="ruda.vecdot"):
        ruda.vecdot(put(a, device), put(_rand(rng, (3, 5)), device))
    with pytest.raises(ValueError, match="ruda.vecdot"):
        ruda.vecdot(put(a, device), put(b, device), axis=-3)
    with pytest.raises(ruda.AxisError):
        ruda.vecdot(put(a, device), put(b, device), axis=-4)


@pytest.mark.parametrize("name", ["dot", "vdot", "inner", "outer", "kron"])
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.float32, numpy.complex128])
def test_numpy_products(device, rng, name, dtype):
    shapes = {"dot": ((3, 4), (4, 2)), "vdot": ((3, 4), (3, 4)), "inner": ((2, 4), (3, 4)),
              "outer": ((3,), (2, 2)), "kron": ((2, 3), (3, 2))}[name]  # fmt: skip
    a, b = _rand(rng, shapes[0], dtype), _rand(rng, shapes[1], dtype)
    fn = getattr(numpy, name)
    _check(getattr(ruda, name)(put(a, device), put(b, device)), a, fn, a, b)


def test_einsum(device, rng):
    a, b, c = _rand(rng, (2, 3)), _rand(rng, (3, 4)), _rand(rng, (4,))
    ra, rb, rc = (put(x, device) for x in (a, b, c))
    assert_close(ruda.einsum("ij,jk,k->i", ra, rb, rc), numpy.einsum("ij,jk,k->i", a, b, c))
    assert_close(ruda.einsum("ij,jk->ik", ra, rb, optimize=True), a @ b)
    assert_close(ruda.einsum(ra, [0, 1], rb, [1, 2], [0, 2]), a @ b)
    assert_close(ruda.einsum("ii", put(b[:3, :3], device)), numpy.trace(b[:3, :3]))
    path, text = ruda.einsum_path("ij,jk,k->i", ra, rb, rc)
    assert path[0] == "einsum_path" and isinstance(text, str)
    with pytest.raises(ValueError):
        ruda.einsum("ij,jk->ik", ra, ra)


def test_cross_numpy_surface(device, rng):
    a, b = _rand(rng, (4, 3)), _rand(rng, (3, 4))
    r = ruda.cross(put(a, device), put(b, device), axisb=0)
    assert_close(r, numpy.cross(a, b, axisb=0))
    assert_close(ruda.cross(put(a.T, device), put(b, device), axis=0), numpy.cross(a.T, b, axis=0))
    with pytest.raises(ValueError, match="ruda.cross"):
        ruda.cross(put(a[:, :2], device), put(a[:, :2], device))


@pytest.mark.parametrize("offset", [-1, 0, 2])
def test_trace_diagonal(device, rng, offset):
    a = _rand(rng, (3, 4, 5), numpy.int16)
    x = put(a, device)
    assert_close(ruda.trace(x, offset), numpy.trace(a, offset))
    assert_close(ruda.trace(x, offset, axis1=1, axis2=2), numpy.trace(a, offset, 1, 2))
    assert_close(ruda.trace(x, dtype=ruda.float32), numpy.trace(a, dtype=numpy.float32))
    assert_close(ruda.diagonal(x, offset, -1, 0), numpy.diagonal(a, offset, -1, 0))
    with pytest.raises(ValueError, match="ruda.diagonal"):
        ruda.diagonal(x, 0, 1, -2)
    with pytest.raises(ruda.AxisError, match="ruda.trace"):
        ruda.trace(x, 0, 0, 3)


def test_polynomials(device, rng):
    x = numpy.linspace(-1, 1, 20) + rng.uniform(0, 0.01)
    y = 3 * x**2 - x + 0.5 + rng.normal(0, 0.01, 20)
    rx, ry = put(x, device), put(y, device)
    assert_close(ruda.polyfit(rx, ry, 2), numpy.polyfit(x, y, 2), rtol=1e-9)
    full = ruda.polyfit(rx, ry, 2, full=True)
    for got, want in zip(full, numpy.polyfit(x, y, 2, full=True), strict=True):
        assert_close(got, want, rtol=1e-9, check_dtype=False)
    p, cov = ruda.polyfit(rx, ry, 2, cov=True, w=put(numpy.ones(20), device))
    assert_close(cov, numpy.polyfit(x, y, 2, cov=True, w=numpy.ones(20))[1], rtol=1e-7)
    c = rng.normal(size=4)
    rc = put(c, device)
    assert_close(ruda.polyval(rc, rx), numpy.polyval(c, x))
    assert_close(ruda.polyder(rc, 2), numpy.polyder(c, 2))
    assert_close(ruda.polyint(rc, 1, 2.0), numpy.polyint(c, 1, 2.0))
    assert_close(ruda.polyadd(rc, p), numpy.polyadd(c, to_numpy(p)))
    assert_close(ruda.polysub(rc, p), numpy.polysub(c, to_numpy(p)))
    assert_close(ruda.polymul(rc, p), numpy.polymul(c, to_numpy(p)))
    # Roots match as sets: a GPU's eigensolver orders them (and rounds a conjugate pair's real
    # parts) its own way, so each of NumPy's roots is paired with the nearest of ours.
    got, want = to_numpy(ruda.roots(rc)), numpy.roots(c)
    nearest = numpy.abs(got[None, :] - want[:, None]).argmin(axis=1)
    assert sorted(nearest) == list(range(len(want))), (got, want)
    assert_close(got[nearest], want, rtol=1e-8)
    assert_close(ruda.poly(put(numpy.asarray([1.0, -2.0]), device)), [1.0, 1.0, -2.0])
    assert_close(ruda.vander(rx[:4], 3, increasing=True), numpy.vander(x[:4], 3, increasing=True))
    with pytest.raises(ValueError, match="ruda.vander"):
        ruda.vander(put(numpy.ones((2, 2)), device))
