"""ruda.linalg against numpy.linalg: decompositions, solvers, norms, products and their errors."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put, to_numpy

_FLOATS = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]
_SINGLE = (numpy.float32, numpy.complex64)


def _rand(rng, shape, dtype=numpy.float64):
    a = rng.standard_normal(shape) + 0.1
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _spd(rng, n, dtype, stack=()):
    """Well-conditioned Hermitian positive-definite matrices."""
    a = _rand(rng, stack + (n, n), dtype)
    return (a @ numpy.conj(numpy.swapaxes(a, -1, -2)) + n * numpy.eye(n)).astype(dtype)


def _tol(dtype):
    return 2e-3 if dtype in _SINGLE else 1e-8


def _wide(a):
    return a.astype(numpy.complex128 if a.dtype.kind == "c" else numpy.float64)


def _same_dtype_name(got, want_dtype):
    assert to_numpy(got).dtype == numpy.dtype(want_dtype), (to_numpy(got).dtype, want_dtype)


@given(dtype=st.sampled_from(_FLOATS), n=st.integers(1, 5),
       stack=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))  # fmt: skip
def test_inv_det_slogdet(device, dtype, n, stack):
    a = _spd(numpy.random.default_rng(), n, dtype, stack)
    x = put(a, device)
    t = _tol(dtype)
    inv = ruda.linalg.inv(x)
    _same_dtype_name(inv, dtype)
    assert_close(inv, numpy.linalg.inv(_wide(a)).astype(dtype), rtol=t, atol=t)
    det = ruda.linalg.det(x)
    assert det.shape == stack
    assert_close(det, numpy.linalg.det(_wide(a)).astype(dtype), rtol=t)
    sign, logabsdet = ruda.linalg.slogdet(x)
    ws, wl = numpy.linalg.slogdet(_wide(a))
    assert_close(sign, ws.astype(dtype), rtol=t, atol=t)
    assert_close(logabsdet, wl.astype(numpy.zeros(0, dtype).real.dtype), rtol=t, atol=t)


@given(dtype=st.sampled_from(_FLOATS), n=st.integers(1, 5), upper=st.booleans())
def test_cholesky(device, dtype, n, upper):
    a = _spd(numpy.random.default_rng(), n, dtype, (2,))
    r = ruda.linalg.cholesky(put(a, device), upper=upper)
    want = numpy.linalg.cholesky(_wide(a), upper=upper).astype(dtype)
    assert_close(r, want, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype", _FLOATS)
def test_eigh_eig(device, rng, dtype):
    a = _spd(rng, 4, dtype, (2,))
    x = put(a, device)
    t = _tol(dtype)
    w, v = ruda.linalg.eigh(x)
    assert_close(w, numpy.linalg.eigvalsh(_wide(a)).astype(w.dtype._np), rtol=t, atol=t)
    assert_close(ruda.linalg.eigvalsh(x), to_numpy(w), rtol=t, atol=t)
    vn, wn = to_numpy(v), to_numpy(w)  # A V = V diag(w)
    assert_close(a @ vn, vn * wn[..., None, :], rtol=10 * t, atol=10 * t)
    res = ruda.linalg.eig(x)
    cdt = numpy.complex64 if dtype in _SINGLE else numpy.complex128
    _same_dtype_name(res.eigenvalues, cdt)
    _same_dtype_name(res.eigenvectors, cdt)
    assert_close(numpy.sort(to_numpy(res.eigenvalues).real), numpy.sort(to_numpy(w)).astype(
        numpy.zeros(0, cdt).real.dtype), rtol=10 * t, atol=10 * t)  # fmt: skip
    ev = ruda.linalg.eigvals(x)
    _same_dtype_name(ev, cdt)
    rot = put(numpy.asarray([[0.0, -1.0], [1.0, 0.0]]), device)
    assert_close(numpy.sort_complex(to_numpy(ruda.linalg.eigvals(rot))), [-1j, 1j], atol=1e-12)


@given(dtype=st.sampled_from(_FLOATS), m=st.integers(1, 5), n=st.integers(1, 5),
       full=st.booleans())  # fmt: skip
def test_svd_qr(device, dtype, m, n, full):
    a = _rand(numpy.random.default_rng(), (2, m, n), dtype)
    x = put(a, device)
    t = _tol(dtype)
    u, s, vh = ruda.linalg.svd(x, full_matrices=full)
    wu, ws, wvh = numpy.linalg.svd(_wide(a), full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
    _same_dtype_name(u, dtype)
    assert_close(s, ws.astype(to_numpy(s).dtype), rtol=t, atol=t)
    assert_close(ruda.linalg.svdvals(x), to_numpy(s), rtol=t, atol=t)
    k = min(m, n)
    recon = (to_numpy(u)[..., :, :k] * to_numpy(s)[..., None, :]) @ to_numpy(vh)[..., :k, :]
    assert_close(recon, a, rtol=10 * t, atol=10 * t)
    mode = "complete" if full else "reduced"
    q, r = ruda.linalg.qr(x, mode=mode)
    wq, wr = numpy.linalg.qr(_wide(a), mode=mode)
    assert (q.shape, r.shape) == (wq.shape, wr.shape)
    assert_close(to_numpy(q) @ to_numpy(r), a, rtol=10 * t, atol=10 * t)
    r_only = numpy.linalg.qr(_wide(a), mode="r").astype(dtype)
    assert_close(
        numpy.abs(to_numpy(ruda.linalg.qr(x, mode="r"))), numpy.abs(r_only), rtol=t, atol=t
    )


@given(dtype=st.sampled_from(_FLOATS), n=st.integers(1, 4), k=st.integers(0, 3),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3),
       vector=st.booleans())  # fmt: skip
def test_solve(device, dtype, n, k, shapes, vector):
    rng = numpy.random.default_rng()
    a = _spd(rng, n, dtype, shapes.input_shapes[0])
    b = _rand(rng, (n,) if vector else shapes.input_shapes[1] + (n, k), dtype)
    r = ruda.linalg.solve(put(a, device), put(b, device))
    want = numpy.linalg.solve(_wide(a), _wide(b)).astype(dtype)
    assert_close(r, want, rtol=_tol(dtype), atol=_tol(dtype))


def test_solve_mixed_precision_and_errors(device, rng):
    a, b = _spd(rng, 3, numpy.float32), _rand(rng, (3,), numpy.float64)
    _same_dtype_name(ruda.linalg.solve(put(a, device), put(b, device)), numpy.float64)
    with pytest.raises(ValueError, match="ruda.linalg.solve"):
        ruda.linalg.solve(put(a, device), put(_rand(rng, (4,)), device))
    with pytest.raises(ruda.linalg.LinAlgError, match="ruda.linalg.solve"):
        ruda.linalg.solve(put(_rand(rng, (3, 4)), device), put(b, device))
    with pytest.raises(numpy.linalg.LinAlgError):  # singular: NumPy's own error class
        ruda.linalg.inv(put(numpy.ones((3, 3)), device))


@pytest.mark.parametrize(
    "fn", ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "eig", "eigvals"]
)
def test_square_errors(device, rng, fn):
    f = getattr(ruda.linalg, fn)
    with pytest.raises(ValueError, match=f"ruda.linalg.{fn}: x must be a square"):
        f(put(_rand(rng, (2, 3)), device))
    with pytest.raises(ruda.linalg.LinAlgError, match=f"ruda.linalg.{fn}"):
        f(put(_rand(rng, (3,)), device))


def test_integer_input_promotes(device, rng):
    a = rng.integers(-3, 4, (3, 3)) + 10 * numpy.eye(3, dtype=numpy.int64)
    _same_dtype_name(ruda.linalg.inv(put(a, device)), numpy.float64)
    assert_close(ruda.linalg.det(put(a, device)), numpy.linalg.det(a))


@pytest.mark.parametrize("dtype", _FLOATS)
def test_pinv_rank_lstsq_cond(device, rng, dtype):
    a = _rand(rng, (2, 5, 3), dtype)
    x = put(a, device)
    t = _tol(dtype)
    assert_close(ruda.linalg.pinv(x), numpy.linalg.pinv(_wide(a)).astype(dtype), rtol=t, atol=t)
    assert_close(ruda.linalg.pinv(x, 1e-3), numpy.linalg.pinv(_wide(a), 1e-3).astype(dtype),
                 rtol=t, atol=t)  # fmt: skip
    low = put(a[0] @ numpy.ones((3, 3), dtype), device)
    assert int(ruda.linalg.matrix_rank(low)) == 1
    assert_close(ruda.linalg.matrix_rank(x), [3, 3])
    assert_close(ruda.linalg.matrix_rank(x, rtol=1.0), [0, 0])  # nothing exceeds the largest
    sv_ = numpy.linalg.svd(_wide(a), compute_uv=False)
    mid = put(0.5 * (sv_[:, 0] + sv_[:, 1]) / sv_[:, 0], device)  # rtol per matrix, as an array
    assert_close(ruda.linalg.matrix_rank(x, rtol=mid), [1, 1])
    assert_close(ruda.linalg.matrix_rank(x, tol=1e9), [0, 0])
    assert int(ruda.linalg.matrix_rank(put(numpy.asarray([0.0, 2.0]), device))) == 1  # NumPy's
    with pytest.raises(ValueError, match="tol or rtol"):
        ruda.linalg.matrix_rank(x, 0.1, rtol=0.1)
    b = _rand(rng, (5,), dtype)
    sol, res, rank, sv = ruda.linalg.lstsq(put(a[0], device), put(b, device))
    want = numpy.linalg.lstsq(_wide(a[0]), _wide(b))
    assert_close(sol, want[0].astype(dtype), rtol=t, atol=t)
    assert int(rank) == 3
    assert_close(ruda.linalg.cond(x), numpy.linalg.cond(_wide(a)).astype(to_numpy(sv).dtype),
                 rtol=t)  # fmt: skip


@pytest.mark.parametrize("n", [-2, 0, 1, 3])
def test_matrix_power(device, rng, n):
    a = _spd(rng, 3, numpy.float64, (2,))
    assert_close(ruda.linalg.matrix_power(put(a, device), n), numpy.linalg.matrix_power(a, n),
                 rtol=1e-8)  # fmt: skip
    with pytest.raises(TypeError, match="ruda.linalg.matrix_power"):
        ruda.linalg.matrix_power(put(a, device), 1.5)


@given(
    dtype=st.sampled_from(_FLOATS),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
    data=st.data(),
)
def test_vector_norm(device, dtype, shape, data):
    x = _rand(numpy.random.default_rng(), shape, dtype)
    x[..., 0] = 0  # zeros matter for ord 0 and the negative orders
    ords = [2, 1, 0, -1, -2, 3, 0.5, numpy.inf, -numpy.inf]
    ord_ = data.draw(st.sampled_from(ords))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1) | st.just(tuple(range(x.ndim))))
    keepdims = data.draw(st.booleans())
    with numpy.errstate(divide="ignore"):  # 1/0 in the negative orders, as in NumPy
        r = ruda.linalg.vector_norm(put(x, device), axis=axis, keepdims=keepdims, ord=ord_)
        want = numpy.linalg.vector_norm(_wide(x), axis=axis, keepdims=keepdims, ord=ord_)
    real = numpy.zeros(0, x.dtype).real.dtype
    t = _tol(x.dtype)
    assert_close(r, numpy.asarray(want).astype(real), rtol=t, atol=t)


@pytest.mark.parametrize("ord_", ["fro", "nuc", 1, -1, 2, -2, numpy.inf, -numpy.inf])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.complex128])
def test_matrix_norm_and_norm(device, rng, ord_, dtype):
    a = _rand(rng, (2, 3, 4), dtype)
    t = _tol(dtype)
    want = numpy.linalg.matrix_norm(_wide(a), ord=ord_, keepdims=True)
    real = numpy.zeros(0, dtype).real.dtype
    assert_close(ruda.linalg.matrix_norm(put(a, device), ord=ord_, keepdims=True),
                 want.astype(real), rtol=t)  # fmt: skip
    assert_close(ruda.linalg.norm(put(a[0], device), ord_), numpy.linalg.norm(_wide(a[0]), ord_)
                 .astype(real), rtol=t)  # fmt: skip
    assert_close(ruda.linalg.norm(put(a, device), axis=(0, 2)),
                 numpy.linalg.norm(_wide(a), axis=(0, 2)).astype(real), rtol=t)  # fmt: skip


@pytest.mark.parametrize("ord_", ["fro", "nuc", 1, -1, 2, -2, numpy.inf, -numpy.inf])
@pytest.mark.parametrize("shape", [(2, 0, 0), (2, 0, 3), (2, 3, 0)])
def test_matrix_norm_empty(device, ord_, shape):
    # NumPy's maxima start from 0 (an empty norm is 0); its minima over nothing raise
    a = numpy.zeros(shape)
    try:
        want = numpy.linalg.matrix_norm(a, ord=ord_)
    except ValueError:
        with pytest.raises(ValueError, match="ruda.linalg.matrix_norm: zero-size"):
            ruda.linalg.matrix_norm(put(a, device), ord=ord_)
    else:
        assert_close(ruda.linalg.matrix_norm(put(a, device), ord=ord_), want)


@pytest.mark.parametrize("shape", [(0,), (2, 0)])
def test_vector_norm_inf_empty(device, shape):
    a = numpy.zeros(shape)
    got = ruda.linalg.vector_norm(put(a, device), ord=numpy.inf, axis=-1)
    assert_close(got, numpy.linalg.vector_norm(a, ord=numpy.inf, axis=-1))


def test_norm_errors(device, rng):
    x = put(_rand(rng, (3, 3)), device)
    with pytest.raises(ValueError, match="ruda.linalg.matrix_norm: ord"):
        ruda.linalg.matrix_norm(x, ord=3)
    with pytest.raises(ruda.AxisError, match="ruda.linalg.vector_norm"):
        ruda.linalg.vector_norm(x, axis=2)
    with pytest.raises(ValueError, match="repeated"):
        ruda.linalg.vector_norm(x, axis=(0, -2))
    with pytest.raises(ValueError, match="ruda.linalg.norm"):
        ruda.linalg.norm(put(_rand(rng, (2, 2, 2)), device), axis=(0, 1, 2))


def test_products(device, rng):
    a, b = rng.integers(-9, 9, (4, 3)), rng.integers(-9, 9, (2, 1, 3))
    ra, rb = put(a, device), put(b, device)
    assert_close(ruda.linalg.cross(ra, rb), numpy.cross(a, b))
    assert_close(ruda.linalg.cross(put(a.T, device), put(a.T, device), axis=0),
                 numpy.cross(a.T, a.T, axis=0))  # fmt: skip
    with pytest.raises(ValueError, match="ruda.linalg.cross"):
        ruda.linalg.cross(put(a[:, :2], device), put(a[:, :2], device))
    with pytest.raises(ValueError, match="ruda.linalg.cross"):
        ruda.linalg.cross(ra, rb, axis=-3)
    assert_close(ruda.linalg.outer(ra[0], ra[1]), numpy.outer(a[0], a[1]))
    with pytest.raises(ValueError, match="ruda.linalg.outer"):
        ruda.linalg.outer(ra, ra)
    m = rng.integers(-9, 9, (2, 3, 4)).astype(numpy.int8)
    rm = put(m, device)
    for off in (-1, 0, 2):
        assert_close(ruda.linalg.diagonal(rm, offset=off), numpy.diagonal(m, off, -2, -1))
        assert_close(ruda.linalg.trace(rm, offset=off), numpy.trace(m, off, -2, -1))
    _same_dtype_name(ruda.linalg.trace(rm), numpy.int64)
    _same_dtype_name(ruda.linalg.trace(put(m.astype(numpy.uint8), device)), numpy.uint64)
    _same_dtype_name(ruda.linalg.trace(put(m.astype(numpy.float32), device)), numpy.float32)
    _same_dtype_name(ruda.linalg.trace(rm, dtype=ruda.float64), numpy.float64)
    assert ruda.linalg.matmul is ruda.matmul and ruda.linalg.vecdot is ruda.vecdot
    assert ruda.linalg.tensordot is ruda.tensordot
    assert ruda.linalg.matrix_transpose is ruda.matrix_transpose


def test_numpy_surface(device, rng):
    a, b, c = _rand(rng, (3, 4)), _rand(rng, (4, 5)), _rand(rng, (5,))
    r = ruda.linalg.multi_dot([put(a, device), put(b, device), put(c, device)])
    assert_close(r, numpy.linalg.multi_dot([a, b, c]), rtol=1e-9)
    t = _spd(rng, 6, numpy.float64).reshape(6, 2, 3)
    bt = _rand(rng, (6,))
    assert_close(ruda.linalg.tensorsolve(put(t, device), put(bt, device)),
                 numpy.linalg.tensorsolve(t, bt), rtol=1e-8)  # fmt: skip
    assert_close(ruda.linalg.tensorinv(put(t, device), ind=1), numpy.linalg.tensorinv(t, ind=1),
                 rtol=1e-8)  # fmt: skip
    assert ruda.linalg.LinAlgError is numpy.linalg.LinAlgError


def test_named_tuples(device, rng):
    x = put(_spd(rng, 3, numpy.float64), device)
    for res, fields in [(ruda.linalg.eigh(x), ("eigenvalues", "eigenvectors")),
                        (ruda.linalg.eig(x), ("eigenvalues", "eigenvectors")),
                        (ruda.linalg.qr(x), ("Q", "R")),
                        (ruda.linalg.slogdet(x), ("sign", "logabsdet")),
                        (ruda.linalg.svd(x), ("U", "S", "Vh"))]:  # fmt: skip
        assert type(res) is not tuple and res._fields == fields
        for i, f in enumerate(fields):
            assert res[i] is getattr(res, f)
            assert isinstance(res[i], ruda.Array) and res[i].device == device
    with pytest.raises(ValueError, match="ruda.linalg.qr: mode"):
        ruda.linalg.qr(x, mode="bogus")
