"""The fft extension on a GPU backend against numpy.fft in float64/complex128 (on wgpu,
ruda's Stockham and Bluestein kernels, and on cuda, cuFFT): fft, ifft, rfft,
irfft, hfft, ihfft and their n-D forms over lengths that are powers of two (one-dispatch and
multi-pass), composite and prime (Bluestein), batches, every axis, n cropping and padding,
each norm, round trips and views; fftfreq, rfftfreq, fftshift and ifftshift.

Errors are measured against the largest magnitude of the reference and must stay within
``8 * log2(n) * eps`` of the working precision (an FFT's error grows like log n).
"""

from __future__ import annotations

import math

import numpy
import pytest

import ruda
from tests.helpers import assert_close, to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

LENGTHS = [1, 2, 3, 4, 5, 7, 8, 16, 17, 60, 64, 97, 128, 1000, 1024, 4096]
COMPLEX = ["complex64", "complex128"]
REAL = ["float32", "float64"]
NORMS = ["backward", "ortho", "forward"]
_WORKING = {"float32": "complex64", "complex64": "complex64"}  # the rest is double precision


def need(device, *dtypes: str) -> None:
    """Skip where the device cannot hold a dtype (complex128 without shader-f64)."""
    have = ruda.__array_namespace_info__().dtypes(device=device)
    for d in dtypes:
        if d not in have:
            pytest.skip(f"{device} has no {d}")


def signal(dtype: str, shape: tuple[int, ...], rng) -> numpy.ndarray:
    """Random values (never all zero): complex ones for a complex dtype."""
    a = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def check(got, ref: numpy.ndarray, dtype: str, n: int, device, real_out: bool = False) -> None:
    """``got`` (a ruda array) equals ``ref`` within the FFT's error bound for ``n`` points."""
    assert got.device == device
    work = numpy.dtype(_WORKING.get(dtype, "complex128"))
    want = work if not real_out else numpy.dtype(work.char.lower())  # F -> f, D -> d
    g = to_numpy(got)
    assert g.dtype == want, f"dtype {g.dtype} != {want}"
    assert g.shape == ref.shape, f"shape {g.shape} != {ref.shape}"
    if not ref.size:
        return
    eps = numpy.finfo(want).eps
    scale = max(float(numpy.abs(ref).max()), numpy.finfo(numpy.float64).tiny)
    err = float(numpy.abs(g.astype(numpy.complex128) - ref).max()) / scale
    bound = 8 * max(math.log2(max(n, 2)), 1.0) * eps
    assert err <= bound, f"relative error {err:.3g} > {bound:.3g} (n={n}, {dtype})"


# -- 1-D complex transforms ---------------------------------------------------------------------
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", COMPLEX)
def test_fft_ifft_lengths(dtype: str, n: int, device, rng) -> None:
    need(device, dtype)
    a = signal(dtype, (3, n), rng)
    x = ruda.asarray(a, device=device)
    ref = a.astype(numpy.complex128)
    check(ruda.fft.fft(x), numpy.fft.fft(ref), dtype, n, device)
    check(ruda.fft.ifft(x), numpy.fft.ifft(ref), dtype, n, device)


@pytest.mark.parametrize("n", [1, 2, 5, 16, 60, 97, 1024])
@pytest.mark.parametrize("dtype", REAL)
def test_real_input_and_round_trip(dtype: str, n: int, device, rng) -> None:
    need(device, _WORKING.get(dtype, "complex128"))
    a = signal(dtype, (2, n), rng)
    x = ruda.asarray(a, device=device)
    ref = a.astype(numpy.float64)
    check(ruda.fft.fft(x), numpy.fft.fft(ref), dtype, n, device)
    back = ruda.fft.ifft(ruda.fft.fft(x))
    check(back, ref.astype(numpy.complex128), dtype, n, device)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [8, 17, 64])
def test_norms(norm: str, n: int, device, rng) -> None:
    need(device, "complex128")
    a = signal("complex128", (4, n), rng)
    r = signal("float64", (4, n), rng)
    x, xr = ruda.asarray(a, device=device), ruda.asarray(r, device=device)
    for fn in ("fft", "ifft", "hfft"):
        got = getattr(ruda.fft, fn)(x, norm=norm)
        ref = getattr(numpy.fft, fn)(a, norm=norm)
        check(got, ref, "complex128", n, device, real_out=fn == "hfft")
    for fn in ("rfft", "ihfft"):
        check(getattr(ruda.fft, fn)(xr, norm=norm), getattr(numpy.fft, fn)(r, norm=norm),
              "float64", n, device)  # fmt: skip
    half = numpy.fft.rfft(r)
    check(ruda.fft.irfft(ruda.asarray(half, device=device), n, norm=norm),
          numpy.fft.irfft(half, n, norm=norm), "complex128", n, device, real_out=True)  # fmt: skip


@pytest.mark.parametrize("dtype", COMPLEX)
def test_every_axis_with_n_cropped_and_padded(dtype: str, device, rng) -> None:
    need(device, dtype)
    a = signal(dtype, (6, 5, 9), rng)
    x = ruda.asarray(a, device=device)
    ref = a.astype(numpy.complex128)
    for axis in (0, 1, 2, -1, -3):
        m = a.shape[axis]
        for n in (None, 1, m - 2, m + 3, 16):
            for fn in ("fft", "ifft"):
                got = getattr(ruda.fft, fn)(x, n=n, axis=axis)
                ref_ = getattr(numpy.fft, fn)(ref, n=n, axis=axis)
                check(got, ref_, dtype, n or m, device)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_views_and_batches(dtype: str, device, rng) -> None:
    need(device, dtype)
    a = signal(dtype, (7, 40, 33), rng)
    x = ruda.asarray(a, device=device)
    ref = a.astype(numpy.complex128)
    for key in ((slice(None), slice(None, None, 2), slice(1, None)),
                (slice(None, None, -1), 3, slice(None, None, -3))):  # fmt: skip
        for axis in (0, -1):
            check(ruda.fft.fft(x[key], axis=axis), numpy.fft.fft(ref[key], axis=axis), dtype,
                  ref[key].shape[axis], device)  # fmt: skip
    t = x.mT  # a transposed view, transformed along its (strided) last axis
    check(ruda.fft.fft(t, n=64), numpy.fft.fft(numpy.swapaxes(ref, -1, -2), n=64), dtype, 64,
          device)  # fmt: skip
    before = to_numpy(x)
    ruda.fft.ifft(x, axis=1)
    assert numpy.array_equal(to_numpy(x), before)  # the input is left alone


# -- real transforms ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", REAL)
def test_rfft_irfft_lengths(dtype: str, n: int, device, rng) -> None:
    need(device, _WORKING.get(dtype, "complex128"))
    a = signal(dtype, (2, n), rng)
    x = ruda.asarray(a, device=device)
    ref = a.astype(numpy.float64)
    spec = ruda.fft.rfft(x)
    check(spec, numpy.fft.rfft(ref), dtype, n, device)
    # the round trip needs n (the default 2*(m-1) is even)
    check(ruda.fft.irfft(spec, n), ref, dtype, n, device, real_out=True)
    if n > 1:
        half = numpy.fft.rfft(ref)
        half_c = half.astype(_WORKING.get(dtype, "complex128"))
        got = ruda.fft.irfft(ruda.asarray(half_c, device=device))
        check(got, numpy.fft.irfft(half_c.astype(numpy.complex128)), dtype, n, device,
              real_out=True)  # fmt: skip


def test_irfft_hermitian_handling(device, rng) -> None:
    need(device, "complex128")
    spec = signal("complex128", (3, 6), rng)  # imaginary parts at DC and Nyquist are dropped
    x = ruda.asarray(spec, device=device)
    for n in (None, 2, 5, 10, 11, 16, 25):
        for axis in (0, 1):
            if n is None and axis == 0:
                ref = numpy.fft.irfft(spec, axis=0)
            else:
                ref = numpy.fft.irfft(spec, n, axis=axis)
            check(ruda.fft.irfft(x, n, axis=axis), ref, "complex128", ref.shape[axis], device,
                  real_out=True)  # fmt: skip
            href = numpy.fft.hfft(spec, n, axis=axis)
            check(ruda.fft.hfft(x, n, axis=axis), href, "complex128", href.shape[axis], device,
                  real_out=True)  # fmt: skip
    r = signal("float64", (5, 13), rng)
    check(ruda.fft.ihfft(ruda.asarray(r, device=device), 9, axis=1), numpy.fft.ihfft(r, 9, axis=1),
          "float64", 9, device)  # fmt: skip


@pytest.mark.parametrize("dtype", REAL)
def test_rfft_every_axis(dtype: str, device, rng) -> None:
    need(device, _WORKING.get(dtype, "complex128"))
    a = signal(dtype, (6, 5, 8), rng)
    x = ruda.asarray(a, device=device)
    ref = a.astype(numpy.float64)
    for axis in (0, 1, 2):
        for n in (None, 3, 12):
            check(ruda.fft.rfft(x, n, axis), numpy.fft.rfft(ref, n, axis), dtype,
                  n or a.shape[axis], device)  # fmt: skip


def test_rfft_of_complex_is_a_clear_error(device, rng) -> None:
    x = ruda.asarray(signal("complex64", (4,), rng), device=device)
    with pytest.raises(TypeError, match=r"ruda\.fft\.rfft"):
        ruda.fft.rfft(x)


# -- n-D transforms -----------------------------------------------------------------------------
ND_CASES = [
    (None, None), (None, (0, 2)), ((4, 6), (1, 2)), ((3, 16, 5), None), ((8,), (0,)),
    (None, (2, 0)), ((5, 7), (0, 2)),
]  # fmt: skip


def nd_cases(f):
    """Each (s, axes) case under each norm (NumPy warns on s without axes: still supported)."""
    f = pytest.mark.parametrize("norm", NORMS)(pytest.mark.parametrize("s,axes", ND_CASES)(f))
    return pytest.mark.filterwarnings("ignore:`axes` should not be `None`:DeprecationWarning")(f)


@nd_cases
def test_fftn_ifftn(s, axes, norm: str, device, rng) -> None:
    need(device, "complex128")
    a = signal("complex128", (4, 6, 5), rng)
    x = ruda.asarray(a, device=device)
    for fn in ("fftn", "ifftn"):
        ref = getattr(numpy.fft, fn)(a, s=s, axes=axes, norm=norm)
        check(getattr(ruda.fft, fn)(x, s=s, axes=axes, norm=norm), ref, "complex128",
              ref.size, device)  # fmt: skip


@nd_cases
def test_rfftn_irfftn(s, axes, norm: str, device, rng) -> None:
    need(device, "complex128")
    r = signal("float64", (4, 6, 5), rng)
    x = ruda.asarray(r, device=device)
    ref = numpy.fft.rfftn(r, s=s, axes=axes, norm=norm)
    spec = ruda.fft.rfftn(x, s=s, axes=axes, norm=norm)
    check(spec, ref, "float64", ref.size, device)
    back = numpy.fft.irfftn(ref, s=s, axes=axes, norm=norm)
    check(ruda.fft.irfftn(spec, s=s, axes=axes, norm=norm), back, "complex128", back.size, device,
          real_out=True)  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_2d_forms_single_precision(dtype: str, device, rng) -> None:
    a = signal(dtype, (3, 12, 32), rng)
    x = ruda.asarray(a, device=device)
    ref = a.astype(numpy.complex128)
    check(ruda.fft.fft2(x), numpy.fft.fft2(ref), dtype, 384, device)
    check(ruda.fft.ifft2(x, s=(7, 40)), numpy.fft.ifft2(ref, s=(7, 40)), dtype, 280, device)
    if dtype == "float32":
        spec = ruda.fft.rfft2(x)
        check(spec, numpy.fft.rfft2(ref.real), dtype, 384, device)
        check(ruda.fft.irfft2(spec, s=(12, 32)), ref.real, dtype, 384, device, real_out=True)


def test_integer_input_is_double(device, rng) -> None:
    need(device, "complex128")
    a = rng.integers(-9, 9, (3, 10)).astype(numpy.int32)
    a[0, 0] = 5
    x = ruda.asarray(a, device=device)
    check(ruda.fft.fft(x), numpy.fft.fft(a), "int32", 10, device)
    check(ruda.fft.rfft(x), numpy.fft.rfft(a), "int32", 10, device)


# -- frequencies and shifts ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_fftfreq_rfftfreq(dtype, device) -> None:
    if dtype is not None:
        need(device, dtype)
    for n in (1, 2, 7, 8, 101):
        for d in (1.0, 0.25, 3.0):
            kw = {} if dtype is None else {"dtype": getattr(ruda, dtype)}
            want = numpy.dtype(dtype or "float64")
            for fn in ("fftfreq", "rfftfreq"):
                got = getattr(ruda.fft, fn)(n, d, device=device, **kw)
                assert got.device == device
                ref = getattr(numpy.fft, fn)(n, d).astype(want)
                assert_close(got, ref, rtol=4 * float(numpy.finfo(want).eps))


@pytest.mark.parametrize("dtype", ["float32", "complex64", "int64"])
def test_fftshift_ifftshift(dtype: str, device, rng) -> None:
    a = (rng.standard_normal((5, 6, 7)) * 10).astype(dtype)
    x = ruda.asarray(a, device=device)
    for axes in (None, 0, 2, (0, 1), (-1, 1), ()):
        for fn in ("fftshift", "ifftshift"):
            assert_close(getattr(ruda.fft, fn)(x, axes=axes),
                         getattr(numpy.fft, fn)(a, axes=axes), rtol=0)  # fmt: skip
    f = ruda.fft.fftfreq(9, device=device)
    assert_close(ruda.fft.ifftshift(ruda.fft.fftshift(f)), numpy.fft.fftfreq(9), rtol=0)
