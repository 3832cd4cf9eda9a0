"""DLPack both ways with NumPy and PyTorch: zero-copy where the device allows, the standard's
``from_dlpack(x, device=, copy=)``, max_version negotiation, read-only and strided arrays."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import to_numpy

torch = pytest.importorskip("torch")  # CI installs the CPU build (torch==2.13.0)


def _ptr(a: ruda.Array) -> int:
    """Address of a ruda array's first element, through its own DLPack export."""
    return torch.from_dlpack(a).data_ptr() if a.device != "cpu" else a._data.ctypes.data


def _torch_device(device) -> str:
    return "cpu" if device == "cpu" else f"cuda:{device.index}"


def _needs_torch_device(device):
    if device.kind == "wgpu":
        pytest.skip("PyTorch has no WebGPU device to exchange with")
    if device.kind == "cuda" and not torch.cuda.is_available():
        pytest.skip("this PyTorch build has no CUDA")


def test_dlpack_device(device, rng):
    x = ruda.asarray(rng.random(5), device=device)
    kind, index = x.__dlpack_device__()
    want = {"cpu": (1, 0), "cuda": (2, device.index), "wgpu": (15, device.index)}
    assert (int(kind), index) == want[device.kind]


def test_numpy_roundtrip_zero_copy(rng):
    device = ruda.Device("cpu")  # NumPy lives on the cpu only
    a = rng.random((4, 5))
    x = ruda.from_dlpack(a)
    assert x.device == device and numpy.shares_memory(x._data, a)
    back = numpy.from_dlpack(x)
    assert numpy.shares_memory(back, a)
    numpy.testing.assert_array_equal(to_numpy(x), a)


def test_to_cpu_from_device(device, rng):
    """from_dlpack(x, device='cpu') brings any device's array to the host (a copy off cpu)."""
    a = rng.random(6)
    x = ruda.asarray(a, device=device)
    h = ruda.from_dlpack(x, device="cpu")
    assert h.device == "cpu"
    numpy.testing.assert_array_equal(to_numpy(h), a)
    if device == "cpu":
        assert numpy.shares_memory(h._data, x._data)
    else:
        with pytest.raises(ValueError, match="copy"):
            ruda.from_dlpack(x, device="cpu", copy=False)


def test_torch_both_ways_zero_copy(device, rng):
    _needs_torch_device(device)
    a = rng.random((3, 4))
    x = ruda.asarray(a, device=device)
    t = torch.from_dlpack(x)
    assert t.device.type == _torch_device(device).split(":")[0]
    assert t.data_ptr() == _ptr(x), "torch.from_dlpack(ruda) must not copy"
    t2 = torch.arange(12, dtype=torch.float32, device=_torch_device(device)).reshape(3, 4)
    y = ruda.from_dlpack(t2)
    assert y.device == device and y.dtype == ruda.float32
    assert _ptr(y) == t2.data_ptr(), "ruda.from_dlpack(torch) must not copy"
    t2[0, 0] = 42.0  # shared memory: the write shows through
    assert float(y[0, 0]) == 42.0
    numpy.testing.assert_array_equal(to_numpy(x), a)


@pytest.mark.parametrize("copy", [None, True, False])
def test_from_dlpack_copy(device, rng, copy):
    _needs_torch_device(device)
    t = torch.from_numpy(rng.random(8)).to(_torch_device(device))
    y = ruda.from_dlpack(t, copy=copy)
    assert y.device == device
    shared = _ptr(y) == t.data_ptr()
    assert shared is (copy is not True), f"copy={copy} but shared={shared}"
    numpy.testing.assert_array_equal(to_numpy(y), t.cpu().numpy())


def test_from_dlpack_device_arg(device, rng):
    """device= names the target; copy=False raises when reaching it needs a copy."""
    a = rng.random(5)
    t = torch.from_numpy(a)  # on the cpu
    y = ruda.from_dlpack(t, device=device)
    assert y.device == device
    numpy.testing.assert_array_equal(to_numpy(y), a)
    if device != "cpu":
        with pytest.raises(ValueError, match="copy=False"):
            ruda.from_dlpack(t, device=device, copy=False)
        with pytest.raises(BufferError):  # the standard names BufferError for this case too
            ruda.from_dlpack(t, device=device, copy=False)
    else:
        assert _ptr(y) == t.data_ptr()


def test_from_dlpack_needs_dlpack(device):
    with pytest.raises(AttributeError, match="ruda.from_dlpack"):
        ruda.from_dlpack([1, 2, 3], device=device)


def test_from_dlpack_of_ruda(device, rng):
    a = rng.random(4)
    x = ruda.asarray(a, device=device)
    y = ruda.from_dlpack(x)
    assert y.device == device
    y[0] = -1.0  # copy=None on the same device shares memory
    assert float(x[0]) == -1.0
    c = ruda.from_dlpack(x, copy=True)
    c[1] = -2.0  # copy=True never does
    assert float(x[1]) == a[1]


@pytest.mark.parametrize("max_version", [None, (0, 8), (1, 0), (1, 3), (2, 0)])
def test_max_version_negotiation(device, rng, max_version):
    """A versioned capsule when the consumer speaks DLPack >= 1.0, the legacy one before."""
    x = ruda.asarray(rng.random(3), device=device)
    kw = {} if max_version is None else {"max_version": max_version}
    if device.kind == "wgpu":  # WebGPU buffers are not addressable by other libraries
        with pytest.raises(BufferError, match="to_device"):
            x.__dlpack__(**kw)
        return
    cap = x.__dlpack__(**kw)
    versioned = max_version is not None and max_version[0] >= 1
    want = "dltensor_versioned" if versioned else "dltensor"
    assert f'"{want}"' in repr(cap), repr(cap)


def test_export_to_host(device, rng):
    """``dl_device=(kDLCPU, 0)`` asks the producer for host memory: a copy off the cpu (an
    explicit request, so allowed without implicit transfers), refused with ``copy=False``."""
    a = rng.random((3, 4))
    x = ruda.asarray(a, device=device)
    h = numpy.from_dlpack(x, device="cpu")
    numpy.testing.assert_array_equal(h, a)
    v = numpy.from_dlpack(x[::2, ::-1], device="cpu")  # a strided view
    numpy.testing.assert_array_equal(v, a[::2, ::-1])
    cap = x.__dlpack__(dl_device=(1, 0), max_version=(1, 0))
    assert '"dltensor_versioned"' in repr(cap)
    if device == "cpu":
        assert numpy.shares_memory(numpy.from_dlpack(x, device="cpu", copy=False), x._data)
        return
    assert not ruda.get_implicit_transfer()
    h[0, 0] = -1.0  # a copy: the device array keeps its value
    assert float(x[0, 0]) == a[0, 0]
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises((BufferError, ValueError), match="copy"):
        numpy.from_dlpack(x, device="cpu", copy=False)


def test_wgpu_cannot_export(device, rng):
    """A WebGPU buffer has no address another library can use: the standard's BufferError,
    with the way out in the message; __dlpack_device__ still names the device (kDLWebGPU)."""
    if device.kind != "wgpu":
        pytest.skip("wgpu only")
    x = ruda.asarray(rng.random(3), device=device)
    for kw in ({}, {"max_version": (1, 0)}, {"dl_device": (15, device.index)}, {"copy": True}):
        with pytest.raises(BufferError, match=r"to_device\('cpu'\).*dl_device=\(1, 0\)"):
            x.__dlpack__(**kw)
    with pytest.raises(BufferError):
        numpy.from_dlpack(x)
    assert x.__dlpack_device__() == (15, device.index)


def test_read_only(rng):
    """A read-only NumPy array stays read-only through DLPack (flag of DLPack 1.0)."""
    a = rng.random(4)
    a.flags.writeable = False
    x = ruda.from_dlpack(a)
    assert numpy.shares_memory(x._data, a)
    with pytest.raises(ValueError, match="read-only"):
        x[0] = 1.0
    c = ruda.from_dlpack(a, copy=True)
    c[0] = 1.0  # a copy is writable
    assert a[0] != 1.0 or c[0] == 1.0


def test_read_only_to_torch(rng):
    a = rng.random(4)
    a.flags.writeable = False
    x = ruda.from_dlpack(a)
    t = torch.from_dlpack(x)  # torch has no read-only tensors: it copies or warns, never fails
    numpy.testing.assert_array_equal(t.numpy(), a)


def test_non_contiguous(device, rng):
    """Strided views cross without a copy in both directions."""
    _needs_torch_device(device)
    a = rng.random((6, 8))
    x = ruda.asarray(a, device=device)
    v = x[::2, 1::3]
    t = torch.from_dlpack(v)
    numpy.testing.assert_array_equal(t.cpu().numpy(), a[::2, 1::3])
    assert not t.is_contiguous()
    tt = torch.from_numpy(a).to(_torch_device(device)).t()[::2]
    y = ruda.from_dlpack(tt)
    assert _ptr(y) == tt.data_ptr()
    numpy.testing.assert_array_equal(to_numpy(y), a.T[::2])
    if device == "cpu":
        numpy.testing.assert_array_equal(numpy.from_dlpack(v), a[::2, 1::3])
        assert numpy.shares_memory(numpy.from_dlpack(v), x._data)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float32", "complex128"])
def test_dtypes(device, rng, dtype):
    _needs_torch_device(device)
    a = (rng.random(7) * 10).astype(dtype)
    x = ruda.asarray(a, device=device)
    t = torch.from_dlpack(x)
    back = ruda.from_dlpack(t)
    assert back.dtype == x.dtype
    numpy.testing.assert_array_equal(to_numpy(back), a)
