"""cross_entropy with integer targets against NumPy float64 and torch.nn.functional."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ruda
from ruda import nn

from .util import MAIN, check, make

PER_KIND = {"dtype": MAIN}


def _reference(x, t, w, reduction, ignore, eps):
    """Per the formula, written over explicit loops on the class dim (1)."""
    c = x.shape[1]
    s = x - x.max(axis=1, keepdims=True)
    logp = s - numpy.log(numpy.exp(s).sum(axis=1, keepdims=True))
    w = numpy.ones(c) if w is None else w
    keep = t != ignore
    tc = numpy.where(keep, t, 0)
    picked = numpy.take_along_axis(logp, tc[:, None], axis=1)[:, 0]
    wt = w[tc] * keep
    nll = -picked * wt
    smooth = -(logp * w.reshape((1, c) + (1,) * (x.ndim - 2))).sum(axis=1) * keep
    loss = (1 - eps) * nll + eps / c * smooth
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / wt.sum()


@settings(max_examples=5)
@given(reduction=st.sampled_from(["mean", "sum", "none"]), eps=st.sampled_from([0.0, 0.1]),
       weighted=st.booleans(), spatial=st.sampled_from([(), (3,)]))  # fmt: skip
def test_cross_entropy(device, dtype, rng, reduction, eps, weighted, spatial):
    c = 5
    x, x64 = make(rng, (6, c) + spatial, dtype, device, scale=2.0)
    t64 = rng.integers(0, c, (6,) + spatial)
    t64.flat[1] = -100  # one ignored target
    w, w64 = (None, None)
    if weighted:
        w64h = rng.uniform(0.5, 2.0, c).astype(numpy.float32)
        w, w64 = ruda.asarray(w64h, dtype=getattr(ruda, dtype), device=device), None
        w64 = numpy.asarray(w.to_device("cpu")).astype(numpy.float64)
    t = ruda.asarray(t64, device=device)
    got = nn.cross_entropy(x, t, w, reduction=reduction, label_smoothing=eps)
    check(got, _reference(x64, t64, w64, reduction, -100, eps), dtype, factor=2.0, device=device)
    torch = pytest.importorskip("torch")
    tw = None if w64 is None else torch.from_numpy(w64)
    tt = torch.nn.functional.cross_entropy(
        torch.from_numpy(x64), torch.from_numpy(t64), tw, reduction=reduction, label_smoothing=eps
    )
    check(got, tt.numpy(), dtype, factor=2.0)


def test_cross_entropy_single_sample_and_all_ignored(device):
    x = ruda.asarray([1.0, 2.0, 0.5], device=device)
    got = float(nn.cross_entropy(x, ruda.asarray(1, device=device)))
    ref = -(2.0 - numpy.log(numpy.exp([1.0, 2.0, 0.5]).sum()))
    assert abs(got - ref) < 1e-12
    allx = ruda.asarray([[1.0, 2.0]], device=device)
    r = nn.cross_entropy(allx, ruda.asarray([-100], device=device))
    assert numpy.isnan(float(r))


def test_cross_entropy_errors():
    x = ruda.ones((2, 3))
    with pytest.raises(IndexError, match=r"ruda\.nn\.cross_entropy: target must be in \[0, 3\)"):
        nn.cross_entropy(x, ruda.asarray([0, 3]))
    with pytest.raises(TypeError, match=r"ruda\.nn\.cross_entropy: target must hold integer"):
        nn.cross_entropy(x, ruda.ones((2, 3)))
    with pytest.raises(ValueError, match=r"ruda\.nn\.cross_entropy: target must have shape"):
        nn.cross_entropy(x, ruda.asarray([0, 1, 2]))
    with pytest.raises(ValueError, match=r"ruda\.nn\.cross_entropy: reduction must be"):
        nn.cross_entropy(x, ruda.asarray([0, 1]), reduction="avg")
