"""NumPy's protocols on ruda arrays: ``__array__`` (NumPy 2's copy=), ``__array_ufunc__`` and
``__array_function__`` (NumPy functions give ruda arrays on the input's device), and no implicit
device-to-host copy unless the user allows it."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import assert_close, to_numpy


def test_array_protocol_cpu(rng):
    a = rng.random((3, 4))
    x = ruda.asarray(a)
    h = numpy.asarray(x)
    assert type(h) is numpy.ndarray and numpy.shares_memory(h, a)
    c = numpy.array(x, copy=True)
    assert not numpy.shares_memory(c, a)
    assert numpy.shares_memory(numpy.asarray(x, copy=False), a)
    assert numpy.asarray(x, dtype=numpy.float32).dtype == numpy.float32
    with pytest.raises(ValueError, match="copy"):
        numpy.asarray(x, dtype=numpy.float32, copy=False)
    assert x.__array__(copy=False) is x._data


def test_implicit_transfer_switch(device, rng):
    a = rng.random(5)
    x = ruda.asarray(a, device=device)
    assert ruda.get_implicit_transfer() is False
    if device == "cpu":  # host memory: no transfer involved, always allowed
        numpy.testing.assert_array_equal(numpy.asarray(x), a)
        return
    with pytest.raises(TypeError, match="set_implicit_transfer") as e:
        numpy.asarray(x)
    assert "to_device('cpu')" in str(e.value) and str(device) in str(e.value)
    with ruda.implicit_transfer():
        numpy.testing.assert_array_equal(numpy.asarray(x), a)
        with pytest.raises(ValueError, match="copy=False"):
            numpy.asarray(x, copy=False)
    assert ruda.get_implicit_transfer() is False
    old = ruda.set_implicit_transfer(True)
    try:
        numpy.testing.assert_array_equal(numpy.asarray(x), a)
        with ruda.implicit_transfer(False):
            with pytest.raises(TypeError):
                numpy.asarray(x)
    finally:
        ruda.set_implicit_transfer(old)


def test_switch_arguments():
    with pytest.raises(TypeError, match="ruda.set_implicit_transfer"):
        ruda.set_implicit_transfer("yes")
    with pytest.raises(TypeError, match="ruda.implicit_transfer"):
        with ruda.implicit_transfer(1):
            pass


CALLS = {
    "mean": lambda x, y: numpy.mean(x),
    "mean_axis": lambda x, y: numpy.mean(x, axis=0),
    "sum": lambda x, y: numpy.sum(x, 1),
    "std": lambda x, y: numpy.std(x),
    "add": lambda x, y: numpy.add(x, y),
    "multiply_scalar": lambda x, y: numpy.multiply(2.0, x),
    "exp": lambda x, y: numpy.exp(x),
    "maximum": lambda x, y: numpy.maximum(x, y),
    "concatenate": lambda x, y: numpy.concatenate([x, y]),
    "stack": lambda x, y: numpy.stack((x, y), axis=1),
    "where": lambda x, y: numpy.where(x > y, x, y),
    "matmul": lambda x, y: numpy.matmul(x, y.T),
    "linalg.norm": lambda x, y: numpy.linalg.norm(x),
    "linalg.inv": lambda x, y: numpy.linalg.inv(
        x[:, :3] @ x[:, :3].T + numpy.diag(numpy.sum(y, axis=1))
    ),
    "like": lambda x, y: x[:, :3] - numpy.eye(3, like=x) + numpy.full(3, 2.0, like=y),
    "median": lambda x, y: numpy.median(x, axis=1),
    "diff": lambda x, y: numpy.diff(y, axis=0),
    "cumsum": lambda x, y: numpy.cumsum(x, axis=1),
    "fft.fft": lambda x, y: numpy.fft.fft(x),
    "fft.rfft": lambda x, y: numpy.fft.rfft(y, axis=0),
    "sort": lambda x, y: numpy.sort(x, axis=-1),
    "argmax": lambda x, y: numpy.argmax(y),
    "reshape": lambda x, y: numpy.reshape(x, (-1,)),
    "transpose": lambda x, y: numpy.transpose(x),
    "clip": lambda x, y: numpy.clip(x, 0.2, 0.8),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_functions_return_ruda(device, rng, name):
    a, b = rng.random((3, 5)), rng.random((3, 5))
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    got = CALLS[name](x, y)
    ref = CALLS[name](a, b)
    assert isinstance(got, ruda.Array), f"numpy.{name} gave {type(got).__name__}"
    assert_close(got, ref, device=device, rtol=1e-12)


def test_ufunc_out_and_methods(rng):
    a, b = rng.random(6), rng.random(6)
    x, y = ruda.asarray(a), ruda.asarray(b)
    out = ruda.empty(6)
    r = numpy.add(x, y, out=out)
    assert r is out
    numpy.testing.assert_allclose(to_numpy(out), a + b)
    q, m = numpy.divmod(x, y)
    assert isinstance(q, ruda.Array) and isinstance(m, ruda.Array)
    assert_close(numpy.add.reduce(x), numpy.add.reduce(a), device=ruda.Device("cpu"))
    assert_close(numpy.multiply.outer(x, y), numpy.multiply.outer(a, b))
    assert isinstance(numpy.float64(2.0) * x, ruda.Array)


def test_foreign_types_defer(rng):
    """__array_function__ returns NotImplemented for types it does not know (the protocol)."""

    class Other:
        def __array_function__(self, func, types, args, kwargs):
            return "other"

    x = ruda.asarray(rng.random(3))
    assert numpy.concatenate([x, Other()]) == "other"


def test_mixed_devices_raise(device, rng):
    if device == "cpu":
        pytest.skip("needs a second device")
    x = ruda.asarray(rng.random(3), device=device)
    with pytest.raises(ValueError, match="different devices"):
        numpy.add(x, ruda.asarray(rng.random(3), device="cpu"))
