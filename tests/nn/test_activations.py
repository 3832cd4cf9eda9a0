"""ruda.nn's activations and softmax against NumPy float64 and torch.nn.functional."""

from __future__ import annotations

import math
import warnings

import numpy
import pytest

import ruda
from ruda import nn

from ..helpers import to_numpy
from .util import FLOATS, check, make, torch_f64

PER_KIND = {"dtype": FLOATS}

_erf = numpy.frompyfunc(math.erf, 1, 1)


def _softmax(x, axis):
    e = numpy.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis):
    s = x - x.max(axis=axis, keepdims=True)
    return s - numpy.log(numpy.exp(s).sum(axis=axis, keepdims=True))


def _sigmoid(x):
    return 1.0 / (1.0 + numpy.exp(-x))


REFERENCES = {
    "softmax": lambda x: _softmax(x, -1),
    "log_softmax": lambda x: _log_softmax(x, -1),
    "relu": lambda x: numpy.maximum(x, 0.0),
    "sigmoid": _sigmoid,
    "silu": lambda x: x * _sigmoid(x),
    "gelu": lambda x: 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)).astype(numpy.float64)),
    "gelu_tanh": lambda x: (
        0.5 * x * (1 + numpy.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    ),
    "swiglu": lambda x: (lambda a, b: a * _sigmoid(a) * b)(*numpy.split(x, 2, axis=-1)),
}


def _ruda(name, x):
    if name == "gelu_tanh":
        return nn.gelu(x, approximate="tanh")
    return getattr(nn, name)(x)


def _torch(name, t):
    import torch.nn.functional as F

    if name in ("softmax", "log_softmax"):
        return getattr(F, name)(t, dim=-1)
    if name == "gelu_tanh":
        return F.gelu(t, approximate="tanh")
    if name == "swiglu":
        a, b = t.chunk(2, dim=-1)
        return F.silu(a) * b
    return getattr(F, name)(t)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_against_float64_and_torch(device, dtype, name, rng):
    x, x64 = make(rng, (3, 4, 10), dtype, device, scale=3.0)
    got = _ruda(name, x)
    ref = REFERENCES[name](x64)
    check(got, ref, dtype, device=device)
    torch = pytest.importorskip("torch")
    check(got, _torch(name, torch_f64(x64)).numpy(), dtype)
    assert torch  # the second reference ran


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_other_axis_and_large_logits(device, dtype, name, rng):
    """Logits far beyond exp's range in every dtype: the maximum is subtracted first."""
    x, x64 = make(rng, (4, 5, 3), dtype, device)
    x64 = x64 * 1000.0 + 5e4 * (dtype != "float16")
    x = ruda.asarray(x64.astype(to_numpy(x).dtype), device=device)
    x64 = to_numpy(x).astype(numpy.float64)
    ref = _softmax(x64, 1) if name == "softmax" else _log_softmax(x64, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(nn, name)(x, axis=1)
        host = to_numpy(got)
    assert numpy.isfinite(host.astype(numpy.float64)).all()
    check(got, ref, dtype, factor=4.0 if name == "log_softmax" else 1.0)


def test_extremes_without_warnings(device, dtype):
    """sigmoid, silu and gelu at +-large arguments: exact limits, no overflow warnings."""
    big = {"float16": 60000.0, "bfloat16": 1e30}.get(dtype, 1e30)
    vals = numpy.array([-big, -100.0, -30.0, -5.0, 0.0, 5.0, 30.0, 100.0, big])
    x = ruda.asarray(vals, dtype=getattr(ruda, dtype), device=device)
    x64 = to_numpy(x).astype(numpy.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s, si, g = to_numpy(nn.sigmoid(x)), to_numpy(nn.silu(x)), to_numpy(nn.gelu(x))
    numpy.testing.assert_array_equal(s.astype(float)[[0, -1]], [0.0, 1.0])
    numpy.testing.assert_array_equal(g.astype(float)[[0, -1]], [0.0, x64[-1]])
    assert si.astype(float)[-1] == x64[-1] and si.astype(float)[0] == 0.0
    check(nn.gelu(x), REFERENCES["gelu"](x64), dtype)


def test_gelu_erf_accuracy_float64(device):
    """The erf-based GELU to float64's precision over the whole range, including the tails
    where 1 + erf(x) cancels (computed through erfc)."""
    if device.kind == "wgpu" and "float64" not in FLOATS["wgpu"]:
        pytest.fail("float64 expected on wgpu")
    xs = numpy.concatenate([numpy.linspace(-12, 12, 2001), [-38.0, -27.0, 0.3, 0.46875, 4.0]])
    got = to_numpy(nn.gelu(ruda.asarray(xs, device=device)))
    ref = numpy.array([0.5 * v * math.erfc(-v / math.sqrt(2.0)) for v in xs])
    numpy.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-300)


def test_softmax_fully_masked_row_is_nan_like_torch(device):
    x = ruda.asarray([[-math.inf, -math.inf], [0.0, -math.inf]], device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # -inf - -inf: NumPy's invalid warning
        got = to_numpy(nn.softmax(x))
    assert numpy.isnan(got[0]).all()
    numpy.testing.assert_array_equal(got[1], [1.0, 0.0])


def test_softmax_of_a_scalar(device):
    x = ruda.asarray(3.5, device=device)
    assert to_numpy(nn.softmax(x)).shape == () and float(nn.softmax(x)) == 1.0
    assert float(nn.log_softmax(x)) == 0.0


def test_relu_integers_and_nan(device):
    x = ruda.asarray([-3, 0, 4], device=device)
    assert to_numpy(nn.relu(x)).tolist() == [0, 0, 4]
    y = to_numpy(nn.relu(ruda.asarray([math.nan, -1.0, 2.0], device=device)))
    assert numpy.isnan(y[0]) and y[1:].tolist() == [0.0, 2.0]


def test_swiglu_axis(device, rng):
    x, x64 = make(rng, (6, 3), "float32", device)
    a, b = x64[:3], x64[3:]
    check(nn.swiglu(x, axis=0), a * _sigmoid(a) * b, "float32")
    with pytest.raises(ValueError, match=r"ruda\.nn\.swiglu: .*odd"):
        nn.swiglu(x, axis=1)
