"""The CUDA runtime: gating, arrays and views, creation and casts, in-place operators, chunked
launches, DLPack, and the errors it raises. The compile cache has its own module."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.gpu.test_runtime import host, put

pytestmark = pytest.mark.devices("cuda")

ALL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float16", "float32", "float64"]  # fmt: skip


# -- registration (runs without a GPU: CuPy's device count is faked) ------------------------------
def test_on_whenever_a_device_is_visible(monkeypatch) -> None:
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    from ruda._backends import probe

    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", lambda: 1)
    monkeypatch.delenv("RUDA_CUDA", raising=False)
    assert probe("cuda") is None
    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", lambda: 0)
    assert "no CUDA device" in probe("cuda")


def test_reason_names_what_is_missing(monkeypatch) -> None:
    import sys

    from ruda._backends import probe

    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy now raises ImportError
    assert "CuPy is not installed" in probe("cuda")


def test_devices_and_unimplemented_ops(device, ctx) -> None:
    import cupy

    from ruda._backends.cuda.context import context

    assert ctx.name == "cuda:0" and ctx.arch.isdigit()
    with pytest.raises(ValueError, match="does not exist"):
        context(cupy.cuda.runtime.getDeviceCount())
    from ruda._dispatch import lookup

    # an op cuda's backend lacks: the dispatch table says so, naming the op and the kind (a
    # made-up name, as cuda's coverage keeps growing: unique_values, then linalg.eig...)
    with pytest.raises(NotImplementedError, match=r"ruda\.no_such_op .*'cuda'"):
        lookup("no_such_op", device)


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool", "float16"])
def test_views_share_memory_and_read_back(dtype: str, device, rng) -> None:
    a = (rng.standard_normal((6, 9)) * 100).astype(dtype)
    d = put(a, device)._data
    for key in [(slice(1, 5), slice(None, None, 2)), (3,), (slice(None, None, -1), 4),
                (Ellipsis, None, slice(2, 3)), (2, 7), (slice(3, 3),)]:  # fmt: skip
        v, e = d[key], a[key]
        assert v.mem.mem is d.mem.mem
        assert (v.shape, v.strides, v.ndim, v.size, v.nbytes) == (
            e.shape, e.strides, e.ndim, e.size, e.nbytes)  # fmt: skip
        numpy.testing.assert_array_equal(v.to_host(), e)
    numpy.testing.assert_array_equal(d.T.to_host(), a.T)
    r = d[1:3].reshape(9, 2)
    assert r.mem.mem is d.mem.mem
    numpy.testing.assert_array_equal(r.to_host(), a[1:3].reshape(9, 2))
    numpy.testing.assert_array_equal(d.T.reshape(-1).to_host(), a.T.reshape(-1))  # a copy
    with pytest.raises(IndexError):
        d[6]


# -- creation, casts, copies ----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL)
def test_full_zeros_ones(dtype: str, device) -> None:
    for fn, val in ((ruda.zeros, 0), (ruda.ones, 1)):
        numpy.testing.assert_array_equal(host(fn((3, 5), dtype=dtype, device=device)),
                                         numpy.full((3, 5), val, dtype))  # fmt: skip
    v = True if dtype == "bool" else 7
    numpy.testing.assert_array_equal(host(ruda.full((7,), v, dtype=dtype, device=device)),
                                     numpy.full(7, v, dtype))  # fmt: skip
    x = ruda.full((3,), -2.5 if dtype.startswith("f") else 3, dtype=dtype, device=device)
    numpy.testing.assert_array_equal(host(ruda.full_like(x, 5)), numpy.full(3, 5, dtype))
    numpy.testing.assert_array_equal(host(ruda.zeros_like(x)), numpy.zeros(3, dtype))
    assert ruda.empty((2, 3), dtype=dtype, device=device).shape == (2, 3)


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
def test_astype(src: str, dst: str, device, rng) -> None:
    a = numpy.concatenate([rng.standard_normal(61) * 50, [0.0, -0.0, 1.0, -1.0, 0.5]])
    if numpy.dtype(src).kind in "ui" or numpy.dtype(dst).kind in "ui":
        a = numpy.abs(a) % 100  # conversions that overflow are undefined in C
    a = a.astype(src)
    got = ruda.astype(put(a, device), dst)
    assert got.dtype == ruda.dtype(dst)
    numpy.testing.assert_array_equal(host(got), a.astype(dst))
    s = put(a.reshape(6, 11), device)._data.T[::2]  # strided source
    numpy.testing.assert_array_equal(s.astype(dst).to_host(), a.reshape(6, 11).T[::2].astype(dst))


# -- chunked launches ------------------------------------------------------------------------------
def test_chunked_launches_match(device, rng, monkeypatch) -> None:
    """With a tiny CHUNK every path splits: contiguous, strided, broadcast, negative strides."""
    from ruda._backends.cuda import launcher
    from ruda._backends.cuda.ops import apply
    from ruda._ops import OPS

    monkeypatch.setattr(launcher, "CHUNK", 100)
    a = rng.standard_normal((24, 35)).astype("float32")
    b = rng.standard_normal((24, 35)).astype("float32")
    da, db = put(a, device)._data, put(b, device)._data
    cases = [(lambda x: x, lambda y: y), (lambda x: x.T, lambda y: y.T),
             (lambda x: x[::-1, ::-3], lambda y: y[:, ::3]), (lambda x: x[:, :1], lambda y: y),
             (lambda x: x.reshape(-1)[::2], lambda y: y.reshape(-1)[1::2])]  # fmt: skip
    for fa, fb in cases:
        got = apply(OPS["add"], (fa(da), fb(db)))
        numpy.testing.assert_allclose(got.to_host(), fa(a) + fb(b), rtol=1e-6)
    before = device.backend.launcher.launches
    y = da.T.astype("float64")  # strided cast: 35 rows of 24 -> 4 rows per launch
    assert device.backend.launcher.launches - before == 9
    numpy.testing.assert_array_equal(y.to_host(), a.T.astype("float64"))


def test_more_than_2_to_the_32_elements(device) -> None:
    """n > 2^32: launches of at most CHUNK elements each (32-bit index math in the kernels)."""
    n = (1 << 32) + 3
    x = ruda.full((n,), 7, dtype="uint8", device=device)
    y = x + x
    for part in (y[:5], y[-5:], y[(1 << 31) - 2 : (1 << 31) + 2]):
        numpy.testing.assert_array_equal(host(part), numpy.full(part.shape, 14, "uint8"))


# -- DLPack ----------------------------------------------------------------------------------------
def test_dlpack_export_and_import(device, rng) -> None:
    import cupy

    a = rng.standard_normal((4, 6)).astype("float32")
    x = put(a, device)
    assert x.__dlpack_device__() == (2, 0)
    c = cupy.from_dlpack(x)
    assert c.data.ptr == x._data.ptr
    numpy.testing.assert_array_equal(c.get(), a)
    t = cupy.from_dlpack(x[::2, 1:])  # a strided view exports its strides
    numpy.testing.assert_array_equal(t.get(), a[::2, 1:])
    back = ruda.from_dlpack(c, device=device)
    assert back.device == device and back._data.ptr == c.data.ptr
    numpy.testing.assert_array_equal(host(back), a)


def test_cross_device_and_host_mixing(device, rng) -> None:
    a = rng.standard_normal(5).astype("float32")
    x, c = put(a, device), put(a, "cpu")
    with pytest.raises(ValueError, match="different devices"):
        x + c
    with pytest.raises(TypeError, match="host data"):
        x + a


def test_results_are_not_cupy(device, rng) -> None:
    """The native array is ruda's CudaArray: CuPy's array functions compute nothing here."""
    from ruda._backends.cuda.array import CudaArray

    x = put(rng.standard_normal(7).astype("float32"), device)
    for r in (x + x, ruda.sin(x), x[::2].astype("float64"), ruda.zeros((3,), device=device)):
        assert type(r._data) is CudaArray
