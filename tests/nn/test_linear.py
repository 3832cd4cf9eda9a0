"""linear, embedding and one_hot against NumPy float64 and torch.nn.functional."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda import nn

from ..helpers import to_numpy
from .util import MAIN, check, make, torch_f64

PER_KIND = {"dtype": MAIN}


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("xshape", [(7,), (2, 3, 7)])
def test_linear(device, dtype, rng, bias, xshape):
    x, x64 = make(rng, xshape, dtype, device)
    w, w64 = make(rng, (5, 7), dtype, device)
    b, b64 = make(rng, (5,), dtype, device) if bias else (None, None)
    got = nn.linear(x, w, b)
    ref = x64 @ w64.T + (0 if b64 is None else b64)
    check(got, ref, dtype, factor=4.0, device=device)
    torch = pytest.importorskip("torch")
    t = torch.nn.functional.linear(torch_f64(x64), torch_f64(w64), None if b64 is None
                                   else torch_f64(b64))  # fmt: skip
    check(got, t.numpy(), dtype, factor=4.0)


def test_embedding_and_one_hot(device, dtype, rng):
    w, w64 = make(rng, (11, 4), dtype, device)
    ids64 = rng.integers(0, 11, (3, 5))
    ids = ruda.asarray(ids64, device=device)
    got = nn.embedding(ids, w)
    check(got, w64[ids64], dtype, device=device)
    oh = nn.one_hot(ids, 11)
    assert oh.dtype == ruda.int64
    numpy.testing.assert_array_equal(to_numpy(oh), numpy.eye(11, dtype=numpy.int64)[ids64])
    torch = pytest.importorskip("torch")
    t = torch.nn.functional.one_hot(torch_f64(ids64), -1)
    numpy.testing.assert_array_equal(to_numpy(nn.one_hot(ids)), t.numpy())
    check(got, torch.nn.functional.embedding(torch_f64(ids64), torch_f64(w64)).numpy(), dtype)


def test_linear_embedding_one_hot_errors():
    x = ruda.ones((2, 3))
    with pytest.raises(ValueError, match=r"ruda\.nn\.linear: weight's shape \(4, 2\)"):
        nn.linear(x, ruda.ones((4, 2)))
    with pytest.raises(ValueError, match=r"ruda\.nn\.linear: bias"):
        nn.linear(x, ruda.ones((4, 3)), ruda.ones(3))
    with pytest.raises(IndexError, match=r"ruda\.nn\.embedding: ids must be in \[0, 3\)"):
        nn.embedding(ruda.asarray([0, 3]), ruda.ones((3, 2)))
    with pytest.raises(IndexError, match=r"ruda\.nn\.one_hot: ids must be in \[0, 2\)"):
        nn.one_hot(ruda.asarray([-1, 1]), 2)
    with pytest.raises(TypeError, match=r"ruda\.nn\.embedding: ids must have an integer"):
        nn.embedding(ruda.asarray([0.0]), ruda.ones((3, 2)))
