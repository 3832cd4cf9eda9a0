"""The array object: attributes, indexing, conversions, interchange, printing, pickling."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close

ROOT = Path(__file__).resolve().parents[1]


def test_attributes(device, rng):
    a = rng.standard_normal((2, 3, 4)).astype(numpy.float32)
    x = ruda.asarray(a, device=device)
    assert x.dtype == ruda.float32 and x.dtype is ruda.float32
    assert x.device == device
    assert (x.shape, x.ndim, x.size) == ((2, 3, 4), 3, 24)
    assert_close(x.mT, numpy.swapaxes(a, -1, -2))
    assert_close(x.T, a.T)
    assert isinstance(x, ruda.ndarray) and isinstance(x, ruda.Array)
    with pytest.raises(ValueError, match="mT"):
        _ = ruda.asarray([1.0], device=device).mT


@given(data=st.data())
def test_getitem_basic_matches_numpy(device, data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, max_side=5), label="shape")
    a = numpy.arange(numpy.prod(shape), dtype=numpy.int64).reshape(shape) + 1
    key = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True), label="key")
    x = ruda.asarray(a, device=device)
    assert_close(x[key], numpy.asarray(a[key]))


def test_getitem_advanced(device, rng):
    a = rng.standard_normal((5, 6))
    x = ruda.asarray(a, device=device)
    mask = a > 0
    assert_close(x[ruda.asarray(mask, device=device)], a[mask])
    idx = rng.integers(0, 5, 7)
    assert_close(x[ruda.asarray(idx, device=device)], a[idx])
    assert_close(x[ruda.asarray(idx, device=device), 2], a[idx, 2])
    assert_close(x[[0, 4, 1]], a[[0, 4, 1]])
    assert_close(x[..., None, 1:3], a[..., None, 1:3])
    cols = mask[0]
    assert_close(x[:, ruda.asarray(cols, device=device)], a[:, cols])
    with pytest.raises(IndexError, match=r"^ruda\.Array\.__getitem__: index 5"):
        x[5]
    with pytest.raises(IndexError, match=r"^ruda\.Array\.__getitem__: too many indices"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match=r"^ruda\.Array\.__setitem__: "):
        x[0, 9] = 1.0


def test_setitem_views_and_masks(device, rng):
    a = rng.standard_normal(10)
    x = ruda.asarray(a, device=device, copy=True)
    v = x[2:5]
    v[:] = 5.0  # views write through, as in NumPy
    a[2:5] = 5.0
    assert_close(x, a)
    m = a > 0
    x[ruda.asarray(m, device=device)] = -1.0
    a[m] = -1.0
    assert_close(x, a)
    x[ruda.asarray([0, 1], device=device)] = ruda.asarray([7.0, 8.0], device=device)
    a[[0, 1]] = [7.0, 8.0]
    assert_close(x, a)
    i = ruda.asarray([1, 2, 3], dtype=ruda.int8, device=device)
    i[0] = 100
    assert i.dtype == ruda.int8 and int(i[0]) == 100


def test_scalar_conversions(device):
    x = ruda.asarray(3.5, device=device)
    assert float(x) == 3.5 and int(x) == 3 and complex(x) == 3.5 and bool(x)
    i = ruda.asarray(4, device=device)
    assert [0, 1, 2, 3, 4, 5][i] == 4
    with pytest.raises(TypeError):
        [1, 2][x]
    with pytest.raises(TypeError):
        [1, 2][ruda.asarray(True, device=device)]
    with pytest.raises(ValueError):
        bool(ruda.asarray([1.0, 2.0], device=device))
    assert len(ruda.asarray([1, 2, 3], device=device)) == 3
    assert [float(v) for v in ruda.asarray([1.0, 2.0], device=device)] == [1.0, 2.0]


def test_namespace_versions(device):
    x = ruda.asarray([1], device=device)
    for v in (None, "2023.12", "2024.12", "2025.12"):
        assert x.__array_namespace__(api_version=v) is ruda
    for bad in ("2021.12", "2022.12", "2026.12", "latest"):
        with pytest.raises(ValueError, match="api_version"):
            x.__array_namespace__(api_version=bad)
    assert ruda.__array_api_version__ == "2025.12"


def test_dlpack_roundtrip_with_numpy(rng):
    a = rng.standard_normal((3, 4))
    x = ruda.asarray(a)
    assert x.__dlpack_device__() == (1, 0)
    y = numpy.from_dlpack(x)
    assert numpy.shares_memory(y, a) or numpy.array_equal(y, a)
    numpy.testing.assert_array_equal(y, a)
    cap = x.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=True)
    assert type(cap).__name__ == "PyCapsule"
    z = ruda.from_dlpack(a)  # NumPy arrays export DLPack too
    assert_close(z, a)
    with pytest.raises(ValueError):
        x.__dlpack__(stream=1)


def test_to_device(device, rng):
    a = rng.standard_normal(4)
    x = ruda.asarray(a, device=device)
    assert x.to_device(device) is x
    h = x.to_device("cpu")
    assert h.device == ruda.Device("cpu")
    assert_close(h, a)


_UNAVAILABLE = """
import sys
for mod in sys.argv[1:]:
    sys.modules[mod] = None  # its import now fails, as on a machine without it
import ruda
from ruda._backends import KINDS, probe
for name in [k for k in KINDS if k != "cpu"]:
    try:
        ruda.asarray([1.0], device=name)
        print(name, "AVAILABLE", probe(name))
    except ruda.DeviceUnavailableError as e:
        print(name, "UNAVAILABLE", str(e).replace(chr(10), " "))
"""


def _availability(*hidden: str) -> dict[str, str]:
    # A fresh process: in this one a test may have already brought a backend up.
    env = {k: v for k, v in os.environ.items() if k not in ("RUDA_CUDA", "RUDA_WGPU")}
    out = subprocess.run([sys.executable, "-c", _UNAVAILABLE, *hidden], env=env,
                         capture_output=True, text=True, timeout=120, cwd=ROOT).stdout  # fmt: skip
    return {ln.split()[0]: ln for ln in out.splitlines() if ln.split()[:1] in (["cuda"], ["wgpu"])}


def test_unavailable_devices_say_why():
    lines = _availability("cupy", "wgpu")
    assert "UNAVAILABLE" in lines["cuda"] and "CuPy is not installed" in lines["cuda"], lines
    assert "UNAVAILABLE" in lines["wgpu"] and "wgpu-py is not installed" in lines["wgpu"], lines


def test_gpu_backends_on_without_a_switch():
    # No RUDA_CUDA/RUDA_WGPU in the environment: a kind runs exactly when its probe finds it.
    from ruda._backends import KINDS, probe

    lines = _availability()
    for name in [k for k in KINDS if k != "cpu"]:
        expect = "AVAILABLE None" if probe(name) is None else "UNAVAILABLE"
        assert lines[name].startswith(f"{name} {expect}"), lines[name]


def test_repr_str_match_numpy(rng):
    cases = [rng.standard_normal((2, 3)), numpy.arange(5, dtype=numpy.int8), numpy.array(2.5)]
    cases += [numpy.array([True, False]), numpy.array([1 + 2j], dtype=numpy.complex64)]
    for a in cases:
        x = ruda.asarray(a)
        assert repr(x) == repr(a)
        assert str(x) == str(a)
    assert f"{ruda.asarray(2.5):.2f}" == "2.50"


def test_pickle_and_copy(device, rng):
    a = rng.standard_normal((2, 2))
    x = ruda.asarray(a, device=device)
    y = pickle.loads(pickle.dumps(x))
    assert y.device == device
    assert_close(y, a)
    c = copy.deepcopy(x)
    c[0, 0] = 100.0
    assert float(x[0, 0]) == a[0, 0]


def test_numpy_interop_keeps_ruda(rng):
    a = rng.standard_normal(5)
    x = ruda.asarray(a)
    assert isinstance(numpy.float64(2.0) * x, ruda.Array)
    assert isinstance(a + x, ruda.Array)
    assert isinstance(numpy.add(x, 1), ruda.Array)
    assert isinstance(numpy.concatenate([x, x]), ruda.Array)
    assert isinstance(numpy.mean(x), ruda.Array)
    assert_close(numpy.asarray(x), a)


def test_ndarray_methods(device, rng):
    a = rng.standard_normal((3, 4))
    x = ruda.asarray(a, device=device)
    assert_close(x.sum(), a.sum())
    assert_close(x.sum(0), a.sum(0))
    assert_close(x.mean(axis=1), a.mean(axis=1))
    assert_close(x.std(), a.std())
    assert_close(x.var(ddof=1), a.var(ddof=1))
    assert_close(x.min(), a.min())
    assert_close(x.max(axis=0), a.max(axis=0))
    assert_close(x.argmin(), a.argmin())
    assert_close(x.argmax(axis=1), a.argmax(axis=1))
    assert_close(x.cumsum(), a.cumsum())
    assert_close(x.prod(), a.prod())
    assert_close(x.round(2), a.round(2))
    assert_close(x.clip(-0.5, 0.5), a.clip(-0.5, 0.5))
    assert_close(x.reshape(2, 6), a.reshape(2, 6))
    assert_close(x.reshape((4, 3)), a.reshape((4, 3)))
    assert_close(x.transpose(), a.transpose())
    assert_close(x.transpose(1, 0), a.transpose(1, 0))
    assert_close(x.flatten(), a.flatten())
    assert_close(x.ravel(), a.ravel())
    assert_close(x.astype(ruda.float32), a.astype(numpy.float32))
    assert_close(x.dot(x.T), a.dot(a.T))
    assert_close(x.squeeze(), a.squeeze())
    assert_close(x.conj(), a.conj())
    assert (x > 0).any() == (a > 0).any() and bool((x > -10).all())
    assert x.tolist() == a.tolist() and x.item(0) == a.item(0)
    assert x.itemsize == 8 and x.nbytes == a.nbytes and x.strides == a.strides
    s = x.copy()
    s.sort(axis=1)
    assert_close(s, numpy.sort(a, axis=1))
    assert_close(x.argsort(axis=0), a.argsort(axis=0))
    f = x.copy()
    f.fill(3.0)
    assert_close(f, numpy.full((3, 4), 3.0))
    assert_close(x.nonzero()[0], a.nonzero()[0])
    assert_close(x.real, a.real)
    assert_close(x.imag, a.imag)
    assert_close(x.view(ruda.int64), a.view(numpy.int64))


def test_shape_mismatch_raises(device):
    x = ruda.ones((2, 3), device=device)
    with pytest.raises(ValueError):
        x + ruda.ones((4,), device=device)
    with pytest.raises(ValueError):
        x += ruda.ones((2, 2, 3), device=device)


def test_numpy_only_dtypes_carried_on_cpu():
    """Dtypes outside the standard still work on the cpu, as NumPy scripts expect."""
    days = ruda.array(["2020-01-01", "2021-06-15"], dtype="datetime64[D]")
    assert int((days[1] - days[0]).astype("int64")) == 531
    assert not bool(ruda.any(ruda.isnat(days)))
    words = ruda.array(["ab", "cde"])
    assert words.dtype == numpy.dtype("<U3") and words.tolist() == ["ab", "cde"]
    rec = ruda.zeros(2, dtype=[("x", "f8"), ("y", "i4")])
    rec["x"] = [1.5, 2.5]
    assert_close(rec["x"], numpy.array([1.5, 2.5]))
    objs = ruda.array([1, "a", None], dtype=object)
    assert objs.tolist() == [1, "a", None]
    with pytest.raises(TypeError, match="ruda.asarray"):
        ruda.asarray(object())
