"""Runtime tests every GPU backend passes alike (on the devices of kinds cuda and wgpu): round
trips, views sharing memory, copies, in-place operators (through views, overlapping), errors.
The round-trip dtypes per backend are in ``PER_KIND``."""

from __future__ import annotations

import importlib

import numpy
import pytest

import ruda
from tests.helpers import assert_close

pytestmark = pytest.mark.devices("cuda", "wgpu")

# The round-trip dtypes per backend (tests/conftest.py parametrises them with ``device``).
PER_KIND = {
    "gpu_dtype": {
        "cuda": ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64"],
        "wgpu": ["float32", "float64", "int32", "int64", "uint64", "uint8", "int8", "int16",
                 "uint16", "bool", "float16"],
    }
}  # fmt: skip


def put(a, dev):
    return ruda.asarray(a, device=dev)


def host(x) -> numpy.ndarray:
    return numpy.asarray(x.to_device("cpu"))


@pytest.mark.parametrize("n", [0, 1, 3, 5, 7, 1023, 4099])
def test_roundtrip_odd_sizes(n: int, gpu_dtype: str, device, rng) -> None:
    a = (rng.standard_normal(n) * 100).astype(gpu_dtype)
    x = put(a, device)
    assert x.device == device and x.dtype == ruda.dtype(gpu_dtype) and x.shape == (n,)
    numpy.testing.assert_array_equal(host(x), a)


def test_ruda_slicing_gives_views(device, rng) -> None:
    """x[1:5] on a wgpu array is a view sharing the buffer (needs Array.__getitem__ not to
    call numpy.asarray on a non-cpu result)."""
    a = rng.standard_normal(10).astype("float32")
    x = put(a, device)
    v = x[2:8]
    v += 1
    a[2:8] += 1
    numpy.testing.assert_allclose(host(x), a)


def test_copy_is_independent(device, rng) -> None:
    a = rng.standard_normal(33).astype("float32")
    x = put(a, device)
    y = ruda.asarray(x, copy=True)
    assert not y._data.shares_memory(x._data)
    y += 1
    numpy.testing.assert_array_equal(host(x), a)
    assert_close(y, a + 1, device=device)


# -- in-place operators --------------------------------------------------------------------------
def test_inplace_operators(device, rng) -> None:
    a = rng.standard_normal((8, 6)).astype("float32")
    b = rng.standard_normal((8, 6)).astype("float32")
    x, y = put(a, device), put(b, device)
    buf = x._data
    x += y
    x *= 2
    x -= 0.5
    a = (a + b) * 2 - 0.5
    assert x._data.shares_memory(buf)
    assert_close(x, a, device=device)
    i = put(numpy.arange(10, dtype="int32"), device)
    with pytest.raises(TypeError, match="same_kind"):
        i += 1.5  # NumPy refuses float64 into int32 in place


def test_inplace_through_views(device, rng) -> None:
    from ruda._ops import OPS

    apply = importlib.import_module(f"ruda._backends.{device.kind}.ops").apply

    a = rng.standard_normal((8, 6)).astype("float32")
    d = put(a, device)._data
    v = d[1:7:2, ::-2]
    apply(OPS["add"], (v, numpy.float32(10.0)), out=v)  # the strict entry: typed scalars
    a[1:7:2, ::-2] += 10.0
    numpy.testing.assert_allclose(d.to_host(), a, rtol=1e-6)
    # overlapping source and destination: NumPy's result, as if through a copy
    w = d[1:]
    apply(OPS["add"], (w, d[:-1]), out=w)
    a[1:] += a[:-1].copy()
    numpy.testing.assert_allclose(d.to_host(), a, rtol=1e-6)
    # broadcast into a view, setitem
    d[2] = 3.0
    a[2] = 3.0
    d[:, 1] = d[:, 0]
    a[:, 1] = a[:, 0]
    numpy.testing.assert_allclose(d.to_host(), a, rtol=1e-6)


def test_complex_round_trips(device) -> None:
    # complex buffers hold NumPy's bytes (more in tests/gpu/complex.py)
    a = numpy.array([1 + 2j, -0.0 - 3.5j, numpy.nan + 1j], complex)
    b = ruda.asarray(a, device=device)
    assert b.dtype == ruda.complex128
    assert numpy.asarray(b.to_device("cpu")).tobytes() == a.tobytes()


def test_no_implicit_host_copy(device) -> None:
    x = put(numpy.ones(3, "float32"), device)
    with pytest.raises(TypeError, match="to_device"):
        numpy.asarray(x)


@pytest.mark.parametrize("args,dtype", [((10,), None), ((2, 30, 3), "int32"), ((0, 1, 0.1), None),
                                        ((5, -5, -2), "int64"), ((1.5, 4.0, 0.25), "float32"),
                                        ((0, 300, 7), "int16"), ((0, 40), "uint8"),
                                        ((9, 0, -2), "uint32"), ((0, 8), "float16")])  # fmt: skip
def test_arange(args, dtype, device) -> None:
    x = ruda.arange(*args, dtype=dtype, device=device)
    e = numpy.arange(*args, dtype=dtype)
    if e.dtype.kind == "f":
        assert_close(x, e, device=device)
    else:
        numpy.testing.assert_array_equal(host(x), e)
        assert host(x).dtype == e.dtype
