"""ruda.fft against numpy.fft: transforms (1-D, n-D, 2-D), frequencies, shifts and errors."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put

_REAL = [numpy.float32, numpy.float64]
_COMPLEX = [numpy.complex64, numpy.complex128]
_NORMS = ["backward", "ortho", "forward", None]
# transform -> (input dtypes, result is real)
_ONE_D = {"fft": (_COMPLEX, False), "ifft": (_COMPLEX, False), "rfft": (_REAL, False),
          "irfft": (_COMPLEX, True), "hfft": (_COMPLEX, True), "ihfft": (_REAL, False)}  # fmt: skip
_N_D = {"fftn": _COMPLEX, "ifftn": _COMPLEX, "rfftn": _REAL, "irfftn": _COMPLEX}


def _rand(rng, shape, dtype):
    a = rng.standard_normal(shape) + 0.3
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _expect(fn, a, **kw):
    """NumPy's result in double precision, cast to the single-precision dtype NumPy keeps."""
    same = fn(a, **kw)
    wide = fn(a.astype(numpy.complex128 if a.dtype.kind == "c" else numpy.float64), **kw)
    return wide.astype(same.dtype), (
        1e-3 if same.dtype in (numpy.float32, numpy.complex64) else 1e-9
    )


@given(name=st.sampled_from(sorted(_ONE_D)), data=st.data(),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=6))  # fmt: skip
def test_one_d(device, name, data, shape):
    dtypes, _ = _ONE_D[name]
    dtype = data.draw(st.sampled_from(dtypes))
    a = _rand(numpy.random.default_rng(), shape, dtype)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.none() | st.integers(1, 9))
    norm = data.draw(st.sampled_from(_NORMS))
    r = getattr(ruda.fft, name)(put(a, device), n=n, axis=axis, norm=norm)
    want, tol = _expect(getattr(numpy.fft, name), a, n=n, axis=axis, norm=norm)
    assert_close(r, want, rtol=tol, atol=tol * max(1.0, float(numpy.abs(want).max(initial=0))))


@given(name=st.sampled_from(sorted(_N_D)), data=st.data(),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=5))  # fmt: skip
def test_n_d(device, name, data, shape):
    dtype = data.draw(st.sampled_from(_N_D[name]))
    a = _rand(numpy.random.default_rng(), shape, dtype)
    axes = data.draw(st.none() | st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
    s = None
    if axes is not None and data.draw(st.booleans()):
        s = [data.draw(st.integers(2, 6)) for _ in axes]
    norm = data.draw(st.sampled_from(_NORMS))
    r = getattr(ruda.fft, name)(put(a, device), s=s, axes=axes, norm=norm)
    want, tol = _expect(getattr(numpy.fft, name), a, s=s, axes=axes, norm=norm)
    assert_close(r, want, rtol=tol, atol=tol * max(1.0, float(numpy.abs(want).max(initial=0))))


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_two_d(device, rng, name):
    a = _rand(rng, (3, 4, 6), numpy.float64 if name == "rfft2" else numpy.complex128)
    fn = getattr(numpy.fft, name)
    assert_close(getattr(ruda.fft, name)(put(a, device)), fn(a), rtol=1e-9, atol=1e-9)
    assert_close(getattr(ruda.fft, name)(put(a, device), s=(4, 4), axes=(0, 2)),
                 fn(a, s=(4, 4), axes=(0, 2)), rtol=1e-9, atol=1e-9)  # fmt: skip


def test_single_precision_is_kept(device, rng):
    f32 = put(_rand(rng, (8,), numpy.float32), device)
    c64 = put(_rand(rng, (8,), numpy.complex64), device)
    assert ruda.fft.fft(c64).dtype == ruda.complex64
    assert ruda.fft.fft(f32).dtype == ruda.complex64
    assert ruda.fft.rfft(f32).dtype == ruda.complex64
    assert ruda.fft.irfft(c64).dtype == ruda.float32
    assert ruda.fft.hfft(c64).dtype == ruda.float32
    assert ruda.fft.ihfft(f32).dtype == ruda.complex64
    assert ruda.fft.fftn(c64).dtype == ruda.complex64
    assert ruda.fft.irfftn(c64).dtype == ruda.float32
    ints = numpy.arange(6)  # integers promote to double precision, as in NumPy
    assert_close(ruda.fft.fft(put(ints, device)), numpy.fft.fft(ints), rtol=1e-12, atol=1e-12)


def test_round_trips(device, rng):
    a = _rand(rng, (4, 6), numpy.float64)
    x = put(a, device)
    assert_close(ruda.fft.irfft(ruda.fft.rfft(x), n=6), a, rtol=1e-9, atol=1e-12)
    assert_close(ruda.fft.ifftn(ruda.fft.fftn(x)).real, a, rtol=1e-9, atol=1e-12)
    assert_close(ruda.fft.irfftn(ruda.fft.rfftn(x), s=a.shape), a, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("n", [1, 4, 7])
@pytest.mark.parametrize("dtype", [None, ruda.float32, ruda.float64])
def test_freqs(device, n, dtype):
    want_dt = numpy.float64 if dtype is None else dtype._np
    r = ruda.fft.fftfreq(n, d=0.3, dtype=dtype, device=device)
    assert r.device == device
    assert_close(r, numpy.fft.fftfreq(n, 0.3).astype(want_dt))
    r = ruda.fft.rfftfreq(n, 0.3, dtype=dtype, device=device)
    assert_close(r, numpy.fft.rfftfreq(n, 0.3).astype(want_dt))


@pytest.mark.parametrize("axes", [None, 0, -1, (0, 1), [1]])
def test_shifts(device, rng, axes):
    a = _rand(rng, (4, 5), numpy.float64)
    assert_close(ruda.fft.fftshift(put(a, device), axes=axes), numpy.fft.fftshift(a, axes=axes))
    assert_close(ruda.fft.ifftshift(put(a, device), axes=axes), numpy.fft.ifftshift(a, axes=axes))


def test_errors(device, rng):
    x = put(_rand(rng, (4, 4), numpy.complex128), device)
    with pytest.raises(ruda.AxisError, match="ruda.fft.fft"):
        ruda.fft.fft(x, axis=2)
    with pytest.raises(ValueError, match="ruda.fft.ifft: n"):
        ruda.fft.ifft(x, n=0)
    with pytest.raises(TypeError, match="ruda.fft.fft: n"):
        ruda.fft.fft(x, n=2.5)
    with pytest.raises(ValueError, match="ruda.fft.rfft: norm"):
        ruda.fft.rfft(x.real, norm="both")
    with pytest.raises(ValueError, match="ruda.fft.fftn: s and axes"):
        ruda.fft.fftn(x, s=(2, 2), axes=(0,))
    with pytest.raises(ruda.AxisError, match="ruda.fft.ifftn"):
        ruda.fft.ifftn(x, axes=(0, 5))
    with pytest.raises(ValueError, match="ruda.fft.fft"):
        ruda.fft.fft(put(numpy.float64(1.0), device))
    with pytest.raises(ValueError, match="ruda.fft.irfft"):
        ruda.fft.irfft(put(numpy.ones(1, numpy.complex128), device))
    with pytest.raises(ValueError, match="ruda.fft.fftfreq: n"):
        ruda.fft.fftfreq(0)
    with pytest.raises(TypeError, match="ruda.fft.rfftfreq: dtype"):
        ruda.fft.rfftfreq(4, dtype=ruda.int32)
    with pytest.raises(ValueError):
        ruda.fft.fftfreq(4, device="nosuchdevice:0")
    with pytest.raises(ruda.AxisError, match="ruda.fft.fftshift"):
        ruda.fft.fftshift(x, axes=(3,))
