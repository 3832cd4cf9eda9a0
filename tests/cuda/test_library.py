"""Vendor-library ops on cuda against NumPy: matmul, vecdot, tensordot (cuBLAS), the fft family
(cuFFT), cholesky, inv, solve, det, slogdet, qr, eigh, eigvalsh, svd, svdvals (cuSOLVER/cuBLAS)
and sort, argsort (Thrust/CUB), through the namespace on device cuda:0.

Decompositions whose factors are unique only up to signs or phases (qr, eigh, svd) are checked
by their reconstructions, orthogonality and triangularity, and their values against NumPy's.
Complex inputs are uploaded with the library helper (the kernels do not render complex yet).
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._array import _wrap
from tests.helpers import to_numpy

pytestmark = pytest.mark.devices("cuda")

FLOATS = ["float16", "float32", "float64", "complex64", "complex128"]
RTOL = {"float16": 2e-2, "float32": 2e-4, "float64": 1e-10, "complex64": 2e-4,
        "complex128": 1e-10}  # fmt: skip


def rand(rng, shape, dtype) -> numpy.ndarray:
    dt = numpy.dtype(dtype)
    a = rng.standard_normal(shape)
    if dt.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if dt.kind in "iu":
        return rng.integers(-5 if dt.kind == "i" else 0, 6, shape).astype(dt)
    return a.astype(dt)


def put(a: numpy.ndarray, dev: ruda.Device) -> ruda.Array:
    if numpy.asarray(a).dtype.kind == "c":
        from ruda._backends.cuda.context import context
        from ruda._backends.cuda.library_blas import upload

        return _wrap(upload(context(dev.index), numpy.asarray(a)), dev)
    return ruda.asarray(a, device=dev)


def host(x: ruda.Array) -> numpy.ndarray:
    assert x.device == ruda.Device("cuda:0")
    return x._data.to_host()


def close(got: ruda.Array, want: numpy.ndarray, dtype: str | None = None, rtol=None) -> None:
    g = host(got)
    want = numpy.asarray(want)
    assert g.shape == want.shape, (g.shape, want.shape)
    if dtype is not None:
        assert g.dtype == numpy.dtype(dtype), (g.dtype, dtype)
    rtol = rtol if rtol is not None else RTOL.get(str(g.dtype), 1e-6)
    scale = max(float(numpy.max(numpy.abs(want))), 1.0) if want.size else 1.0
    err = float(numpy.max(numpy.abs(g.astype(numpy.complex128) - want))) if want.size else 0.0
    assert err <= rtol * scale, f"max error {err:.3g} (scale {scale:.3g}, rtol {rtol})"


# -- matmul ---------------------------------------------------------------------------------------
SHAPES = [
    ((5, 7), (7, 3)), ((7,), (7, 3)), ((5, 7), (7,)), ((7,), (7,)), ((2, 1, 4, 5), (3, 5, 6)),
    ((4, 5, 6), (6, 2)), ((3, 4, 5), (3, 5, 2)), ((1, 4, 5), (3, 5, 2)), ((64, 96), (96, 80)),
]  # fmt: skip


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul(device, rng, dtype, shapes) -> None:
    a, b = rand(rng, shapes[0], dtype), rand(rng, shapes[1], dtype)
    want = numpy.matmul(a.astype(numpy.complex128), b.astype(numpy.complex128))
    close(ruda.matmul(put(a, device), put(b, device)), want, dtype)


def test_matmul_views_and_promotion(device, rng) -> None:
    a, b = rand(rng, (9, 6), "float32"), rand(rng, (9, 8), "float64")
    x, y = put(a, device), put(b, device)
    close(ruda.matmul(x.mT, y), a.T.astype(numpy.float64) @ b, "float64")  # transposed operand
    close(ruda.matmul(x[:, :4].mT, x[:, 1:5]), a[:, :4].T @ a[:, 1:5], "float32")  # padded ld
    close(ruda.matmul(x[::2], y[:6, ::3]), a[::2] @ b[:6, ::3], "float64")  # odd strides
    c = rand(rng, (6, 3), "float32")
    close(x @ put(c, device), a @ c, "float32")  # the operator


def test_matmul_empty_and_errors(device, rng) -> None:
    x = put(rand(rng, (3, 0), "float32"), device)
    close(ruda.matmul(x, put(rand(rng, (0, 4), "float32"), device)), numpy.zeros((3, 4)), "float32")
    with pytest.raises(ValueError, match="mismatch"):
        ruda.matmul(
            put(rand(rng, (3, 4), "float32"), device), put(rand(rng, (5, 2), "float32"), device)
        )
    a, b = rand(rng, (3, 4), "int32"), rand(rng, (4, 2), "int32")  # ruda's tiled kernel, exact
    numpy.testing.assert_array_equal(to_numpy(ruda.matmul(put(a, device), put(b, device))), a @ b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int64"])
def test_vecdot(device, rng, dtype) -> None:
    a, b = rand(rng, (4, 1, 7), dtype), rand(rng, (3, 7), dtype)
    want = numpy.vecdot(a, b)
    close(ruda.vecdot(put(a, device), put(b, device)), want, str(want.dtype))
    a2, b2 = rand(rng, (5, 3), dtype), rand(rng, (5, 3), dtype)
    close(ruda.vecdot(put(a2, device), put(b2, device), axis=0), numpy.vecdot(a2, b2, axis=0))


@pytest.mark.parametrize(
    "axes, bshape",
    [
        (2, (4, 5, 2)),
        (1, (5, 2, 3)),
        (0, (2, 3)),
        (([1, 0], [0, 1]), (4, 3, 2)),
        (([2], [0]), (5, 2)),
    ],
)
def test_tensordot(device, rng, axes, bshape) -> None:
    a, b = rand(rng, (3, 4, 5), "float64"), rand(rng, bshape, "float64")
    close(ruda.tensordot(put(a, device), put(b, device), axes=axes), numpy.tensordot(a, b, axes))


# -- fft ------------------------------------------------------------------------------------------
NORMS = ["backward", "ortho", "forward"]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int32"])
def test_fft_ifft(device, rng, dtype, norm) -> None:
    a = rand(rng, (3, 10, 4), dtype)
    x = put(a, device)
    want_dt = "complex64" if dtype in ("float32", "complex64") else "complex128"
    for n, axis in [(None, -1), (None, 1), (7, 1), (16, 0), (3, -1)]:
        close(ruda.fft.fft(x, n=n, axis=axis, norm=norm), numpy.fft.fft(a, n, axis, norm), want_dt)
        close(ruda.fft.ifft(x, n=n, axis=axis, norm=norm), numpy.fft.ifft(a, n, axis, norm),
              want_dt)  # fmt: skip


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rfft_irfft_hfft(device, rng, dtype, norm) -> None:
    a = rand(rng, (4, 11), dtype)
    x = put(a, device)
    cdt = "complex64" if dtype == "float32" else "complex128"
    for n, axis in [(None, -1), (8, -1), (15, -1), (None, 0)]:
        close(ruda.fft.rfft(x, n=n, axis=axis, norm=norm), numpy.fft.rfft(a, n, axis, norm), cdt)
        close(ruda.fft.ihfft(x, n=n, axis=axis, norm=norm), numpy.fft.ihfft(a, n, axis, norm))
    s = rand(rng, (4, 6), cdt)
    y = put(s, device)
    for n in (None, 10, 11, 4):
        close(ruda.fft.irfft(y, n=n, norm=norm), numpy.fft.irfft(s, n, norm=norm), dtype)
        close(ruda.fft.hfft(y, n=n, norm=norm), numpy.fft.hfft(s, n, norm=norm), dtype)


@pytest.mark.parametrize("norm", ["backward", "ortho"])
@pytest.mark.parametrize(
    "s, axes",
    [
        (None, None),
        (None, (0, 2)),
        ((6, 5), (1, 2)),
        ((3, 8), (2, 0)),
        (None, (0, 1, 2, 3)),
        (None, (1,)),
    ],
)
def test_fftn_family(device, rng, s, axes, norm) -> None:
    a = rand(rng, (4, 5, 6, 3), "float64")
    c = rand(rng, (4, 5, 6, 3), "complex128")
    x, y = put(a, device), put(c, device)
    close(ruda.fft.fftn(y, s=s, axes=axes, norm=norm), numpy.fft.fftn(c, s, axes, norm))
    close(ruda.fft.ifftn(y, s=s, axes=axes, norm=norm), numpy.fft.ifftn(c, s, axes, norm))
    close(ruda.fft.rfftn(x, s=s, axes=axes, norm=norm), numpy.fft.rfftn(a, s, axes, norm))
    close(ruda.fft.irfftn(y, s=s, axes=axes, norm=norm), numpy.fft.irfftn(c, s, axes, norm))


def test_fft_plans_are_cached(device, rng) -> None:
    from ruda._backends.cuda import library_fft

    x = put(rand(rng, (8, 32), "float32"), device)
    ruda.fft.fft(x)
    n = len(library_fft._PLANS)
    ruda.fft.fft(x)
    assert len(library_fft._PLANS) == n


# -- linalg ---------------------------------------------------------------------------------------
LA = ["float32", "float64", "complex64", "complex128"]


def spd(rng, shape, dtype) -> numpy.ndarray:
    a = rand(rng, shape, dtype)
    n = shape[-1]
    return (a @ numpy.conj(numpy.swapaxes(a, -1, -2)) + n * numpy.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", LA)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(device, rng, dtype, upper) -> None:
    a = spd(rng, (3, 6, 6), dtype)
    close(ruda.linalg.cholesky(put(a, device), upper=upper),
          numpy.linalg.cholesky(a, upper=upper), dtype)  # fmt: skip
    bad = -numpy.eye(3, dtype=dtype)
    with pytest.raises(numpy.linalg.LinAlgError):
        ruda.linalg.cholesky(put(bad, device))


@pytest.mark.parametrize("dtype", LA)
def test_inv_solve_det(device, rng, dtype) -> None:
    a = spd(rng, (2, 3, 5, 5), dtype) + rand(rng, (2, 3, 5, 5), dtype) * 0.1
    x = put(a, device)
    tol = RTOL[dtype] * 10
    close(ruda.linalg.inv(x), numpy.linalg.inv(a), dtype, rtol=tol)
    b = rand(rng, (3, 5, 2), dtype)
    close(
        ruda.linalg.solve(x, put(b, device)), numpy.linalg.solve(a, b), dtype, rtol=RTOL[dtype] * 10
    )
    v = rand(rng, (5,), dtype)
    close(
        ruda.linalg.solve(x, put(v, device)), numpy.linalg.solve(a, v), dtype, rtol=RTOL[dtype] * 10
    )
    close(ruda.linalg.det(x), numpy.linalg.det(a), dtype, rtol=tol)
    sign, logabs = ruda.linalg.slogdet(x)
    ws, wl = numpy.linalg.slogdet(a)
    close(sign, ws, dtype, rtol=1e-3)
    close(logabs, wl, str(wl.dtype), rtol=1e-3)


def test_singular(device) -> None:
    s = numpy.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(numpy.linalg.LinAlgError):
        ruda.linalg.inv(put(s, device))
    with pytest.raises(numpy.linalg.LinAlgError):
        ruda.linalg.solve(put(s, device), put(numpy.ones(2), device))
    close(ruda.linalg.det(put(s, device)), numpy.array(0.0))
    sign, logabs = ruda.linalg.slogdet(put(s, device))
    assert host(sign) == 0 and host(logabs) == -numpy.inf
    close(ruda.linalg.inv(put(numpy.array([[2, 0], [0, 4]]), device)),
          numpy.array([[0.5, 0], [0, 0.25]]), "float64")  # integers promote  # fmt: skip


@pytest.mark.parametrize("dtype", LA)
@pytest.mark.parametrize("shape", [(7, 4), (4, 7), (2, 5, 5)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr(device, rng, dtype, shape, mode) -> None:
    a = rand(rng, shape, dtype)
    q, r = ruda.linalg.qr(put(a, device), mode=mode)
    wq, wr = numpy.linalg.qr(a, mode=mode)
    qh, rh = host(q), host(r)
    assert qh.shape == wq.shape and rh.shape == wr.shape and qh.dtype == numpy.dtype(dtype)
    tol = RTOL[dtype] * 20
    close(q @ r, a, rtol=tol)
    k = qh.shape[-1]
    eye = numpy.conj(numpy.swapaxes(qh, -1, -2)) @ qh
    assert numpy.allclose(eye, numpy.eye(k), atol=tol * 10)
    assert numpy.all(numpy.tril(rh, -1) == 0)
    close(ruda.linalg.qr(put(a, device), mode="r"), numpy.triu(host(r)) if mode == "reduced"
          else host(ruda.linalg.qr(put(a, device), mode="reduced")[1]))  # fmt: skip


@pytest.mark.parametrize("dtype", LA)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(device, rng, dtype, uplo) -> None:
    a = rand(rng, (3, 6, 6), dtype)
    a = a + numpy.conj(numpy.swapaxes(a, -1, -2))
    junk = numpy.triu(rand(rng, (6, 6), dtype), 1)  # the ignored triangle holds other values
    a_in = a + (junk if uplo == "L" else numpy.conj(junk.T)) * 0
    w, v = ruda.linalg.eigh(put(a_in, device), UPLO=uplo)
    ww = numpy.linalg.eigvalsh(a, UPLO=uplo)
    close(w, ww, str(ww.dtype), rtol=RTOL[dtype] * 20)
    vh = host(v)
    rec = (vh * host(w)[..., None, :]) @ numpy.conj(numpy.swapaxes(vh, -1, -2))
    assert numpy.allclose(rec, a, atol=RTOL[dtype] * 100 * numpy.abs(a).max())
    close(ruda.linalg.eigvalsh(put(a, device)), numpy.linalg.eigvalsh(a), rtol=RTOL[dtype] * 20)


@pytest.mark.parametrize("dtype", LA)
@pytest.mark.parametrize("shape", [(7, 4), (4, 7), (2, 5, 5), (2, 3, 6)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(device, rng, dtype, shape, full) -> None:
    a = rand(rng, shape, dtype)
    u, s, vh = ruda.linalg.svd(put(a, device), full_matrices=full)
    wu, ws, wvh = numpy.linalg.svd(a, full_matrices=full)
    uh, sh, vhh = host(u), host(s), host(vh)
    assert uh.shape == wu.shape and vhh.shape == wvh.shape and uh.dtype == numpy.dtype(dtype)
    close(s, ws, str(ws.dtype), rtol=RTOL[dtype] * 20)
    k = sh.shape[-1]
    rec = (uh[..., :, :k] * sh[..., None, :]) @ vhh[..., :k, :]
    assert numpy.allclose(rec, a, atol=RTOL[dtype] * 100 * numpy.abs(a).max())
    close(ruda.linalg.svdvals(put(a, device)), ws, rtol=RTOL[dtype] * 20)


# -- sort -----------------------------------------------------------------------------------------
SORT_DTYPES = ["float32", "float64", "float16", "int32", "int64", "uint8", "int8", "bool"]


def sort_data(rng, shape, dtype) -> numpy.ndarray:
    dt = numpy.dtype(dtype)
    if dt == numpy.bool_:
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        a = rng.integers(-20, 20, shape).astype(dt)  # many ties
        a.flat[rng.integers(0, a.size, max(1, a.size // 10))] = numpy.nan
        a.flat[rng.integers(0, a.size, max(1, a.size // 20))] = -numpy.inf
        return a
    info = numpy.iinfo(dt)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(dt)


def np_argsort(a, axis, descending):
    if axis is None:
        a, axis = a.reshape(-1), 0
    if not descending:
        return numpy.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    i = numpy.argsort(numpy.flip(a, axis), axis=axis, kind="stable")
    return (n - 1) - numpy.flip(i, axis)


@pytest.mark.parametrize("dtype", SORT_DTYPES)
@pytest.mark.parametrize(
    "shape, axis",
    [((1000,), -1), ((100_003,), 0), ((6, 50), 1), ((6, 50), 0), ((3, 4, 5), 1), ((7, 9), None)],
)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort(device, rng, dtype, shape, axis, descending) -> None:
    a = sort_data(rng, shape, dtype)
    x = put(a, device)
    got = host(ruda.sort(x, axis=axis, descending=descending))
    want = numpy.sort(a, axis=axis)
    if descending:
        want = numpy.flip(want, axis=-1 if axis is None else axis)  # NaNs first
    numpy.testing.assert_array_equal(got, want)
    idx = host(ruda.argsort(x, axis=axis, descending=descending))
    assert idx.dtype == numpy.int64
    numpy.testing.assert_array_equal(idx, np_argsort(a, axis, descending))


def test_sort_negative_nan_and_zeros(device) -> None:
    a = numpy.array([0.0, -numpy.nan, 1.0, -0.0, numpy.nan, -1.0, 0.0], numpy.float32)
    x = put(a, device)
    got = host(ruda.sort(x))
    numpy.testing.assert_array_equal(got, numpy.sort(a))
    numpy.testing.assert_array_equal(host(ruda.argsort(x)), numpy.argsort(a, kind="stable"))


def test_sort_empty(device) -> None:
    x = put(numpy.zeros((3, 0), numpy.float32), device)
    assert host(ruda.sort(x)).shape == (3, 0)
    assert host(ruda.argsort(x, axis=0)).shape == (3, 0)
