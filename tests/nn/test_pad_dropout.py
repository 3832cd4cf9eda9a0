"""pad (PyTorch's pad tuple, all four modes) and dropout (the same mask on every device)."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ruda
from ruda import nn

from ..helpers import to_numpy
from .util import check, make

_NP_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@settings(max_examples=8)
@given(
    mode=st.sampled_from(["constant", "reflect", "replicate", "circular"]),
    pads=st.integers(1, 3).flatmap(
        lambda k: st.lists(st.integers(0, 2), min_size=2 * k, max_size=2 * k)
    ),
)
def test_pad_modes(device, rng, mode, pads):
    x, x64 = make(rng, (3, 4, 5), "float32", device)  # reflect: every pad < every size
    got = nn.pad(x, tuple(pads), mode=mode, value=2.5)
    k = len(pads) // 2
    widths = [(0, 0)] * (3 - k) + [(pads[2 * i], pads[2 * i + 1]) for i in reversed(range(k))]
    if mode == "constant":
        ref = numpy.pad(x64, widths, constant_values=2.5)
    else:
        ref = numpy.pad(x64, widths, mode=_NP_MODE[mode])
    check(got, ref, "float32", device=device)
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(x64)
    if mode != "constant" and k == 3:
        t = t[None]  # torch's reflect/replicate/circular want a batch dim beyond the padded ones
    tp = torch.nn.functional.pad(
        t, tuple(pads), mode=mode, **({"value": 2.5} if mode == "constant" else {})
    )
    check(got, tp.numpy().reshape(ref.shape), "float32")


def test_pad_negative_crops_like_torch(device, rng):
    x, x64 = make(rng, (3, 5), "float64", device)
    got = nn.pad(x, (-1, 2, 1, -2))
    ref = numpy.pad(x64[:1, 1:], ((1, 0), (0, 2)))
    check(got, ref, "float64", device=device)


def test_pad_errors():
    x = ruda.ones((2, 3))
    with pytest.raises(ValueError, match=r"ruda\.nn\.pad: pad must have an even length"):
        nn.pad(x, (1, 1, 1))
    with pytest.raises(ValueError, match=r"ruda\.nn\.pad: mode must be one of"):
        nn.pad(x, (1, 1), mode="mirror")
    with pytest.raises(ValueError, match=r"ruda\.nn\.pad: reflect padding \(3, 0\)"):
        nn.pad(x, (3, 0), mode="reflect")
    with pytest.raises(ValueError, match=r"ruda\.nn\.pad: pad must be non-negative"):
        nn.pad(x, (-1, 0), mode="replicate")


def test_dropout_same_mask_on_every_device(device):
    """The mask is the Philox stream's float32 uniforms >= p: computed here on the cpu, it must
    be the device's mask bit for bit; kept values are x / (1 - p)."""
    x64 = numpy.arange(1, 2001, dtype=numpy.float64).reshape(40, 50)
    x = ruda.asarray(x64, dtype=ruda.float32, device=device)
    y = to_numpy(nn.dropout(x, 0.3, seed=1234))
    u = numpy.asarray(ruda.random.default_rng(1234).random((40, 50), dtype=ruda.float32,
                                                           device="cpu"))  # fmt: skip
    keep = u >= numpy.float32(0.3)
    assert 0.6 < keep.mean() < 0.8  # about 1 - p kept
    numpy.testing.assert_array_equal(y != 0, keep)
    numpy.testing.assert_allclose(y[keep], (x64 / 0.7)[keep].astype(numpy.float32), rtol=1e-6)
    # a Generator advances: two calls give different masks, a fresh seed repeats the first
    g = ruda.random.default_rng(1234)
    first, second = to_numpy(nn.dropout(x, 0.3, seed=g)), to_numpy(nn.dropout(x, 0.3, seed=g))
    numpy.testing.assert_array_equal(first, y)
    assert (first != second).any()


def test_dropout_identity_and_edges(device):
    x = ruda.asarray([[1.0, 2.0], [3.0, 4.0]], device=device)
    assert nn.dropout(x, 0.5, training=False) is x
    assert nn.dropout(x, 0.0, seed=0) is x
    numpy.testing.assert_array_equal(to_numpy(nn.dropout(x, 1.0, seed=0)), numpy.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"ruda\.nn\.dropout: p must be in \[0, 1\]"):
        nn.dropout(x, 1.5)
