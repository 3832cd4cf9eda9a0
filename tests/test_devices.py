"""Devices, the default device, the dispatch table and the backend interface."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy
import pytest

import ruda
from ruda import _dispatch
from ruda._backends import get_backend, probe
from ruda._ops import OPS


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
    for kind in ("cuda", "wgpu"):
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
    prog = be.compiler.compile(OPS["add"])
    assert be.compiler.compile(OPS["add"]) is prog  # cached
    numpy.testing.assert_array_equal(be.launcher.launch(prog, host, host), [2.0, 4.0])


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
