"""Devices, the default device, the dispatch table and the backend interface."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy
import pytest

import ruda
from ruda import _dispatch
from ruda._backends import KINDS, get_backend, probe
from ruda._ops import OPS
from tests.conftest import DEVICES
from tests.helpers import to_numpy


def test_device_identity_and_equality():
    assert ruda.Device("cpu") is ruda.Device("cpu")
    assert ruda.Device("cuda") is ruda.Device("cuda:0")
    assert ruda.Device("cpu") == "cpu"
    assert ruda.Device("wgpu:1") != ruda.Device("wgpu:0")
    assert len({ruda.Device("cpu"), ruda.Device("cpu")}) == 1
    assert str(ruda.Device("wgpu:1")) == "wgpu:1"
    assert repr(ruda.Device("cpu")) == "Device('cpu')"


@pytest.mark.parametrize("bad", ["tpu", "cpu:1", "cuda:x", ""])
def test_bad_device_names(bad):
    with pytest.raises(ValueError, match="ruda.Device"):
        ruda.Device(bad)
    with pytest.raises(TypeError):
        ruda.Device(3.5)


def test_context_manager_sets_default(device):
    with ruda.device(device) as d:
        assert d is device
        assert ruda.zeros(2).device is device
        assert ruda.__array_namespace_info__().default_device() is device


def test_env_default_device():
    code = "import ruda; print(ruda.asarray([1.0]).device)"
    env = dict(os.environ, RUDA_DEVICE="cpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "cpu", out.stderr
    for kind in [k for k in KINDS if k != "cpu"]:
        reason = probe(kind)
        if reason is None:
            continue
        env = dict(os.environ, RUDA_DEVICE=kind)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.returncode != 0
        assert "DeviceUnavailableError" in out.stderr and kind in out.stderr


def test_dispatch_table_resolves_every_op_on_cpu():
    cpu = ruda.Device("cpu")
    for name in OPS:
        if name in ("imag", "real", "round", "fix", "isnat"):
            continue
        assert callable(_dispatch.lookup(name, cpu)), name
    with pytest.raises(NotImplementedError, match="no_such_op"):
        _dispatch.lookup("no_such_op", cpu)


def test_registered_implementation_wins():
    calls = []

    @_dispatch.register("test_only_op", "cpu")
    def impl(x):
        calls.append(x)
        return x

    assert _dispatch.lookup("test_only_op", ruda.Device("cpu"))(1) == 1 and calls == [1]


def test_backend_has_allocator_compiler_launcher():
    be = get_backend(ruda.Device("cpu"))
    buf = be.allocator.empty((2, 3), numpy.float32)
    assert buf.shape == (2, 3)
    host = be.allocator.to_host(be.allocator.from_host([1.0, 2.0]))
    numpy.testing.assert_array_equal(host, [1.0, 2.0])
    prog = be.compiler.program(OPS["add"])
    assert be.compiler.program(OPS["add"]) is prog  # cached
    numpy.testing.assert_array_equal(be.launcher.launch(prog, [host, host], {}, None), [2.0, 4.0])


def test_info_dtypes_and_devices(device):
    info = ruda.__array_namespace_info__()
    assert ruda.Device("cpu") in info.devices()
    assert isinstance(info.devices(), tuple)
    d = info.dtypes(device=device)
    assert set(d) == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                      "uint64", "float32", "float64", "complex64", "complex128"}  # fmt: skip
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {
        "bool",
        "complex64",
        "complex128",
    }
    with pytest.raises(ValueError):
        info.dtypes(kind="quaternion")
    caps = info.capabilities()
    assert caps["boolean indexing"] and caps["data-dependent shapes"]
    assert info.default_dtypes()["indexing"] == ruda.int64


# -- scalars and 0-d cpu arrays beside arrays on any device (issue 32) ---------------------------
SCALAR_CALLS = {
    "sqrt(2.0)": lambda xp: xp.sqrt(2.0),
    "gcd(12, 18)": lambda xp: xp.gcd(12, 18),
    "exp(1j * pi)": lambda xp: xp.exp(1j * numpy.pi),
    "add(1, 2.5)": lambda xp: xp.add(1, 2.5),
    "multiply(True, 3)": lambda xp: xp.multiply(True, 3),
    "add(float32(1.5), 2.0)": lambda xp: xp.add(numpy.float32(1.5), 2.0),
    "subtract(7, int8(2))": lambda xp: xp.subtract(7, numpy.int8(2)),
    "arctan2(1, 2)": lambda xp: xp.arctan2(1, 2),
    "left_shift(1, 3)": lambda xp: xp.left_shift(1, 3),
    "ldexp(3.0, 2)": lambda xp: xp.ldexp(3.0, 2),
    "negative(float32(2.5))": lambda xp: xp.negative(numpy.float32(2.5)),
    "less(2, 3.5)": lambda xp: xp.less(2, 3.5),
}


@pytest.mark.parametrize("call", sorted(SCALAR_CALLS))
def test_scalar_calls_on_the_default_device(device, call):
    """With a GPU default device, calls on scalars alone work as on the cpu: a 0-d array on
    the default device, NumPy 2's dtype and value."""
    want = numpy.asarray(SCALAR_CALLS[call](numpy))
    with ruda.device(device):
        got = SCALAR_CALLS[call](ruda)
    assert isinstance(got, ruda.Array) and got.device == device and got.ndim == 0
    host = to_numpy(got)
    assert host.dtype == want.dtype, f"{call}: {host.dtype} != {want.dtype}"
    numpy.testing.assert_allclose(host, want, rtol=1e-12, atol=1e-15)


def test_scalar_call_into_out_on_the_device(device):
    out = ruda.zeros((), device=device)
    assert ruda.sqrt(2.0, out=out) is out
    numpy.testing.assert_allclose(to_numpy(out), numpy.sqrt(2.0), rtol=1e-15)


HOST_VALUE_CASES = {
    "x + z": lambda xp, x, z: x + z,
    "z + x": lambda xp, x, z: z + x,
    "z * x": lambda xp, x, z: z * x,
    "x < z": lambda xp, x, z: x < z,
    "z ** x": lambda xp, x, z: z ** xp.abs(x),
    "add(z, x)": lambda xp, x, z: xp.add(z, x),
    "maximum(x, z)": lambda xp, x, z: xp.maximum(x, z),
    "where(x > 0, z, x)": lambda xp, x, z: xp.where(x > 0, z, x),
    "where(x > 0, x, z)": lambda xp, x, z: xp.where(x > 0, x, z),
    "clip(x, z, None)": lambda xp, x, z: xp.clip(x, z, None),
    "isclose(x, z)": lambda xp, x, z: xp.isclose(x, z),
    "stack([x[0], z])": lambda xp, x, z: xp.stack([x[0], z]),
    "full_like(x, z)": lambda xp, x, z: xp.full_like(x, z),
    "put(x, [1, 3], z)": lambda xp, x, z: _put(xp, x, [1, 3], z),
}


def _put(xp, x, ind, v):
    y = xp.asarray(x, copy=True)
    xp.put(y, ind, v)
    return y


@pytest.mark.parametrize("case", sorted(HOST_VALUE_CASES))
@pytest.mark.parametrize(
    ("xdt", "zdt"),
    [("float32", "float64"), ("int8", "int64"), ("float64", "float32"), ("int16", "float32")],
)
def test_zero_d_cpu_array_combines_with_any_device(device, rng, case, xdt, zdt):
    """A 0-d cpu array is a host value: it combines with arrays on any device (as PyTorch's
    0-d cpu tensors do), the result on that device; its dtype promotes as an array's (NumPy 2:
    0-d arrays are not weak), so float32 data beside a 0-d float64 gives float64."""
    h = (rng.standard_normal(6) * 4).astype(xdt)
    hz = numpy.asarray(abs(rng.standard_normal()) + 0.5).astype(zdt)
    x = ruda.asarray(h, device=device)
    z = ruda.asarray(hz)  # on the cpu
    assert z.device == "cpu"
    fn = HOST_VALUE_CASES[case]
    with numpy.errstate(all="ignore"):
        want = numpy.asarray(fn(numpy, h, hz))
    got = fn(ruda, x, z)
    assert got.device == device, f"{case}: result on {got.device}"
    host = to_numpy(got)
    assert host.dtype == want.dtype, f"{case}: {host.dtype} != {want.dtype}"
    rtol = 1e-5 if want.dtype.kind == "f" else 0
    numpy.testing.assert_allclose(host, want, rtol=rtol, atol=rtol)


def test_zero_d_cpu_array_in_place_and_assignment(device, rng):
    h = rng.standard_normal(5)
    x = ruda.asarray(h.copy(), device=device)
    x += ruda.asarray(2.0)
    x[1] = ruda.asarray(-7.5)
    x[2:4] = ruda.asarray(numpy.float32(0.25))
    want = h + 2.0
    want[1], want[2:4] = -7.5, 0.25
    assert x.device == device
    numpy.testing.assert_allclose(to_numpy(x), want, rtol=1e-15)


@pytest.mark.parametrize(("here", "there"), [(a, b) for a in DEVICES for b in DEVICES if a != b])
def test_arrays_with_dimensions_never_move(here, there, rng):
    """The 0-d rule is for host values only: arrays with dimensions, and 0-d arrays on a GPU,
    on another device than the other operand still raise (no silent transfer)."""
    x = ruda.asarray(rng.standard_normal(4), device=here)
    y1 = ruda.asarray(rng.standard_normal(1), device=there)  # 1-d, even of one element
    for fn in (lambda: x + y1, lambda: y1 + x, lambda: ruda.add(x, y1),
               lambda: ruda.where(x > 0, y1, x), lambda: ruda.clip(x, y1, None)):  # fmt: skip
        with pytest.raises(ValueError, match="different devices|never transfers"):
            fn()
    if here != "cpu":
        z = ruda.asarray(1.0, device=here)  # a GPU value is not a host value: it stays put
        with pytest.raises(ValueError, match="different devices|never transfers"):
            ruda.add(z, ruda.asarray(rng.standard_normal(3), device=there))
        c = ruda.asarray(3.0)  # a host value as the in-place target: x's data would move
        with pytest.raises(ValueError, match="different devices|never transfers"):
            c += x
