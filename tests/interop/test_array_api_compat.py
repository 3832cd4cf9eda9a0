"""array_api_compat (standalone and the copies vendored in scikit-learn and SciPy) sees ruda as
the namespace of ruda arrays on every device; namespaces and devices compare and de-duplicate."""

from __future__ import annotations

import importlib
import pickle

import pytest

import ruda

COMPATS = ["array_api_compat", "sklearn.externals.array_api_compat", "scipy"]


def _compat(name):
    if name == "scipy":  # the copy SciPy itself uses (its vendored path moves between releases)
        from scipy._lib import _array_api

        return importlib.import_module(_array_api.is_numpy.__module__.split(".common")[0])
    try:
        return importlib.import_module(name)
    except ImportError:
        return importlib.import_module(name.rsplit(".", 1)[0])


@pytest.mark.parametrize("name", COMPATS)
def test_array_namespace(device, rng, name):
    c = _compat(name)
    x = ruda.asarray(rng.random(4), device=device)
    y = ruda.asarray(rng.random((2, 3)), device=device)
    assert c.array_namespace(x) is ruda
    assert c.array_namespace(x, y, 1.0, None) is ruda  # de-duplicated: one namespace
    assert c.is_array_api_obj(x)
    assert not c.is_numpy_array(x)
    assert c.array_namespace(x, api_version="2024.12") is ruda
    with pytest.raises(ValueError, match="api_version"):
        x.__array_namespace__(api_version="2019.01")


@pytest.mark.parametrize("name", COMPATS)
def test_device_size_to_device(device, rng, name):
    c = _compat(name)
    x = ruda.asarray(rng.random((3, 5)), device=device)
    assert c.device(x) == device and c.device(x) is x.device
    assert c.size(x) == 15
    y = c.to_device(x, device)
    assert y.device == device
    h = c.to_device(x, "cpu")
    assert h.device == "cpu" and h.shape == (3, 5)
    assert ruda.all(h == x.to_device("cpu"))


def test_namespace_identity_is_stable(device):
    """Libraries key caches on the namespace: one module object, one stable __name__."""
    assert ruda.__name__ == "ruda"
    assert importlib.import_module("ruda") is ruda
    assert ruda.asarray([1.0], device=device).__array_namespace__() is ruda
    assert len({ruda, ruda.asarray([1], device=device).__array_namespace__()}) == 1


def test_devices_compare(device):
    x = ruda.asarray([1.0], device=device)
    assert x.device == device and x.device == str(device)
    assert ruda.Device(str(device)) is device
    assert hash(x.device) == hash(ruda.Device(str(device)))
    assert len({x.device, device, ruda.Device(str(device))}) == 1
    assert pickle.loads(pickle.dumps(device)) is device
    assert (device == object()) is False
    assert ruda.Device("cpu") != "wgpu:0"
