"""layer_norm, rms_norm and group_norm against NumPy float64 and torch.nn.functional."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ruda
from ruda import nn

from .util import FLOATS, check, make, torch_f64

PER_KIND = {"dtype": FLOATS}


def _layer_norm(x, k, w, b, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / numpy.sqrt(var + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm(device, dtype, rng, k, affine):
    x, x64 = make(rng, (3, 4, 6), dtype, device, scale=2.0)
    x64 = x64 + 0  # the mean need not be zero
    shape = (4, 6)[2 - k :]
    w = b = w64 = b64 = None
    if affine:
        w, w64 = make(rng, shape, dtype, device)
        b, b64 = make(rng, shape, dtype, device)
    got = nn.layer_norm(x, shape, w, b, eps=1e-5)
    check(got, _layer_norm(x64, k, w64, b64, 1e-5), dtype, factor=2.0, device=device)
    torch = pytest.importorskip("torch")
    tw = None if w64 is None else torch_f64(w64)
    tb = None if b64 is None else torch_f64(b64)
    t = torch.nn.functional.layer_norm(torch_f64(x64), shape, tw, tb)
    check(got, t.numpy(), dtype, factor=2.0)


@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm(device, dtype, rng, eps):
    x, x64 = make(rng, (5, 8), dtype, device)
    w, w64 = make(rng, (8,), dtype, device)
    got = nn.rms_norm(x, 8, w, eps=eps)
    e = eps if eps is not None else float(ruda.finfo(getattr(ruda, dtype)).eps)
    ref = x64 / numpy.sqrt((x64**2).mean(axis=-1, keepdims=True) + e) * w64
    check(got, ref, dtype, factor=2.0, device=device)
    torch = pytest.importorskip("torch")
    if hasattr(torch.nn.functional, "rms_norm"):
        # torch's eps=None is finfo of the input's dtype: pass ours explicitly (float64 here)
        t = torch.nn.functional.rms_norm(torch_f64(x64), (8,), torch_f64(w64), eps=e)
        check(got, t.numpy(), dtype, factor=2.0)


def test_rms_norm_default_eps_is_the_dtype_eps(device, dtype):
    """A zero row: x / sqrt(0 + eps) = 0, and a constant row c / sqrt(c**2 + eps)."""
    x = ruda.asarray([[0.0, 0.0], [1e-3, 1e-3]], dtype=getattr(ruda, dtype), device=device)
    x64 = numpy.asarray(x.to_device("cpu")).astype(numpy.float64)
    e = float(ruda.finfo(getattr(ruda, dtype)).eps)
    ref = x64 / numpy.sqrt((x64**2).mean(axis=-1, keepdims=True) + e)
    check(nn.rms_norm(x, 2), ref, dtype, factor=2.0)


@settings(max_examples=6)
@given(groups=st.sampled_from([1, 2, 3, 6]), spatial=st.sampled_from([(), (5,), (3, 4)]),
       affine=st.booleans())  # fmt: skip
def test_group_norm(device, dtype, rng, groups, spatial, affine):
    x, x64 = make(rng, (2, 6) + spatial, dtype, device, scale=3.0)
    w = b = None
    w64 = numpy.ones(6)
    b64 = numpy.zeros(6)
    if affine:
        w, w64 = make(rng, (6,), dtype, device)
        b, b64 = make(rng, (6,), dtype, device)
    got = nn.group_norm(x, groups, w, b, eps=1e-5)
    g = x64.reshape(2, groups, -1)
    y = (g - g.mean(-1, keepdims=True)) / numpy.sqrt(g.var(-1, keepdims=True) + 1e-5)
    bshape = (6,) + (1,) * len(spatial)
    ref = y.reshape(x64.shape) * w64.reshape(bshape) + b64.reshape(bshape)
    check(got, ref, dtype, factor=2.0, device=device)
    torch = pytest.importorskip("torch")
    t = torch.nn.functional.group_norm(torch_f64(x64), groups, torch_f64(w64), torch_f64(b64))
    check(got, t.numpy(), dtype, factor=2.0)


def test_norm_errors():
    x = ruda.ones((2, 6, 3))
    with pytest.raises(ValueError, match=r"ruda\.nn\.layer_norm: normalized_shape"):
        nn.layer_norm(x, (4,))
    with pytest.raises(ValueError, match=r"ruda\.nn\.layer_norm: weight must have shape"):
        nn.layer_norm(x, 3, ruda.ones(4))
    with pytest.raises(ValueError, match=r"ruda\.nn\.group_norm: num_groups 4 does not divide"):
        nn.group_norm(x, 4)
    with pytest.raises(ValueError, match=r"ruda\.nn\.rms_norm: normalized_shape"):
        nn.rms_norm(x, (6, 4))
    with pytest.raises(TypeError, match=r"ruda\.nn\.layer_norm: x must have a real floating"):
        nn.layer_norm(ruda.ones((2, 3), dtype=ruda.int32), 3)
