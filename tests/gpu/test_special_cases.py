"""The standard's special cases where NumPy's answer differs, on each GPU backend (the devices of
kinds cuda and wgpu): the reference is the cpu backend, which repairs NumPy's result.
Complex expm1's are in ``tests/gpu/test_complex.py`` (``standard_expm1``)."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.gpu.test_elementwise import needs_dtype
from tests.helpers import to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")


def _same(got: numpy.ndarray, want: numpy.ndarray) -> None:
    """Equal values, NaNs alike, and the sign of every zero (and of every NaN-free part)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    parts = (
        [(got, want)] if got.dtype.kind != "c" else [(got.real, want.real), (got.imag, want.imag)]
    )
    for g, w in parts:
        ok = (g == w) & (numpy.signbit(g) == numpy.signbit(w)) | (numpy.isnan(g) & numpy.isnan(w))
        assert ok.all(), (
            f"differ at {numpy.flatnonzero(~ok)[:6]}: got {g[~ok][:6]} want {w[~ok][:6]}"
        )


def _edges(dtype: str, rng: numpy.random.Generator) -> numpy.ndarray:
    vals = [numpy.inf, -numpy.inf, numpy.nan, 0.0, -0.0, 1.0, -1.0, 2.5, -7.25]
    return numpy.concatenate([vals, rng.standard_normal(7) * 50]).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floor_divide_infinities(dtype: str, device, rng) -> None:
    """floor_divide(±inf, finite) is ±inf, floor_divide(finite, ±inf) is ±0 (NumPy: NaN, -1)."""
    needs_dtype(device, dtype)
    a, b = (v.ravel() for v in numpy.meshgrid(_edges(dtype, rng), _edges(dtype, rng)))
    with numpy.errstate(all="ignore"):
        want = to_numpy(
            ruda.floor_divide(ruda.asarray(a, device="cpu"), ruda.asarray(b, device="cpu"))
        )
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    _same(to_numpy(ruda.floor_divide(x, y)), want)
    _same(to_numpy(x // y), want)
    x //= y
    _same(to_numpy(x), want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sign_of_zero_is_positive(dtype: str, device, rng) -> None:
    needs_dtype(device, dtype)
    v = _edges(dtype, rng)
    _same(to_numpy(ruda.sign(ruda.asarray(v, device=device))), numpy.sign(v))
