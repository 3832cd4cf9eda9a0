"""Data type functions against NumPy."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ruda
from tests.helpers import assert_close, put

STD = [
    ruda.bool, ruda.int8, ruda.int16, ruda.int32, ruda.int64, ruda.uint8, ruda.uint16,
    ruda.uint32, ruda.uint64, ruda.float32, ruda.float64, ruda.complex64, ruda.complex128,
]  # fmt: skip
REAL = [d for d in STD if d.kind in "biuf"]


@given(src=st.sampled_from(REAL), dst=st.sampled_from(STD))
def test_astype(device, src, dst):
    a = (numpy.arange(-3, 4) * 1.75).astype(src.dtype)
    x = put(a, device)
    assert_close(ruda.astype(x, dst), a.astype(dst.dtype), device=device)


def test_float64_to_float16_rounds_once(device, rng):
    """float64 -> float16 is rounded once, as NumPy rounds: values just past a float16 midpoint,
    which rounding through float32 first would round back onto the tie (and then to even)."""
    h = (rng.standard_normal(200) * 100).astype(numpy.float16)
    up = numpy.nextafter(h, numpy.float16(numpy.inf)).astype(numpy.float64)
    mid = (h.astype(numpy.float64) + up) / 2
    a = numpy.concatenate([mid * (1 + 2.0**-30), mid * (1 - 2.0**-30), mid,
                           [numpy.nan, numpy.inf, -numpy.inf, -0.0, 1e300, -1e-300, 65519.99,
                            65520.0, 2.0**-25 * (1 + 2.0**-40), 2.0**-25]])  # fmt: skip
    x = put(a, device)
    got = numpy.asarray(ruda.astype(x, ruda.float16).to_device("cpu"))
    numpy.testing.assert_array_equal(got, a.astype(numpy.float16))
    assert numpy.array_equal(numpy.signbit(got), numpy.signbit(a.astype(numpy.float16)))


def test_astype_copy_and_device(device, rng):
    x = put(rng.standard_normal(4), device)
    assert ruda.astype(x, ruda.float64, copy=False) is x
    y = ruda.astype(x, ruda.float64)
    assert y is not x
    assert ruda.astype(x, "float32", device=device).device == device


def test_can_cast():
    assert ruda.can_cast(ruda.int8, ruda.int32)
    assert not ruda.can_cast(ruda.float64, ruda.float32)
    assert ruda.can_cast(ruda.asarray([1], dtype=ruda.uint8), ruda.int16)
    with pytest.raises(TypeError, match="ruda.can_cast"):
        ruda.can_cast(1, ruda.int8)


@pytest.mark.parametrize("d", [ruda.float32, ruda.float64, ruda.complex64, ruda.complex128])
def test_finfo(d):
    f, ref = ruda.finfo(d), numpy.finfo(d.dtype)
    assert f.bits == ref.bits and f.eps == float(ref.eps) and f.max == float(ref.max)
    assert f.min == float(ref.min) and f.smallest_normal == float(ref.smallest_normal)
    assert isinstance(f.eps, float) and f.tiny == f.smallest_normal
    assert f.resolution == float(ref.resolution) and f.precision == ref.precision
    assert f.dtype is ruda.dtype(ref.dtype)
    assert ruda.finfo(ruda.asarray([1], dtype=d)).bits == f.bits
    with pytest.raises(ValueError, match="ruda.finfo"):
        ruda.finfo(ruda.int8)


@pytest.mark.parametrize("d", [d for d in STD if d.kind in "iu"])
def test_iinfo(d):
    i, ref = ruda.iinfo(d), numpy.iinfo(d.dtype)
    assert (i.bits, i.min, i.max) == (ref.bits, int(ref.min), int(ref.max))
    assert i.dtype is d
    with pytest.raises(ValueError, match="ruda.iinfo"):
        ruda.iinfo(ruda.float32)


@given(d=st.sampled_from(STD))
def test_isdtype(d):
    for kind in ("bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric"):  # fmt: skip
        assert ruda.isdtype(d, kind) == numpy.isdtype(d.dtype, kind)
    assert ruda.isdtype(d, d)
    assert ruda.isdtype(d, ("bool", "numeric"))


def test_isdtype_errors():
    with pytest.raises(ValueError, match="ruda.isdtype"):
        ruda.isdtype(ruda.int8, "whatever")
    with pytest.raises(TypeError, match="ruda.isdtype"):
        ruda.isdtype("int8", "integral")
    with pytest.raises(TypeError, match="ruda.isdtype"):
        ruda.isdtype(ruda.int8, 3)


def test_result_type(device):
    x = ruda.asarray([1], dtype=ruda.int16, device=device)
    assert ruda.result_type(ruda.int8, x) is ruda.int16
    assert ruda.result_type(ruda.int8, ruda.uint8) is ruda.int16
    assert ruda.result_type(x, 1.0) is ruda.float64
    assert ruda.result_type(ruda.float32, 1.0) is ruda.float32
    assert ruda.result_type(ruda.float32, 1j) is ruda.complex64
    assert ruda.result_type(ruda.uint8, 300) is ruda.uint8


def test_numpy_surface():
    assert ruda.issubdtype(ruda.float32, ruda.floating)
    assert not ruda.issubdtype(ruda.int8, ruda.unsignedinteger)
    assert ruda.promote_types(ruda.int8, ruda.uint8) is ruda.int16
    assert (
        ruda.common_type(ruda.asarray([1]), ruda.asarray([1.0], dtype=ruda.float32)) is ruda.float64
    )
    assert ruda.min_scalar_type(10) is ruda.uint8
    assert ruda.bool_ is ruda.bool
    assert ruda.int_ is ruda.int64 and ruda.double is ruda.float64 and ruda.single is ruda.float32
    assert ruda.intp == numpy.intp and ruda.uintc == numpy.uintc and ruda.half is ruda.float16
    assert isinstance(ruda.float64(1.0), ruda.floating)
