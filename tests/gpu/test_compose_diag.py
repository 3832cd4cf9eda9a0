"""eye, identity and diag on each GPU backend against NumPy (the devices of kinds cuda and wgpu):
shapes, offsets past either edge, dtypes; diag both ways, on strided views."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import assert_close

pytestmark = pytest.mark.devices("cuda", "wgpu")

EYES = [(3, None, 0), (4, 6, 1), (5, 3, -2), (3, 3, 4), (2, 5, -3), (0, None, 0), (1, 1, 0)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "uint8"])
@pytest.mark.parametrize(("n", "m", "k"), EYES)
def test_eye(n, m, k, dtype, device):
    assert_close(
        ruda.eye(n, m, k=k, dtype=dtype, device=device), numpy.eye(n, m, k, dtype), device=device
    )
    assert_close(
        ruda.identity(n, dtype=dtype, device=device), numpy.identity(n, dtype), device=device
    )


def test_eye_default_dtype(device):
    assert_close(ruda.eye(3, device=device), numpy.eye(3), device=device)


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
@pytest.mark.parametrize("k", [0, 2, -1, -4, 7])
def test_diag(k, dtype, device, rng):
    a = (rng.standard_normal((4, 6)) * 9).astype(dtype)
    x = ruda.asarray(a, device=device)
    got = ruda.diag(x, k)
    assert_close(got, numpy.diag(a, k), device=device)
    if got.size:  # a copy, not a view
        got[0] = 0
        assert_close(x, a, device=device)
    assert_close(ruda.diag(x[::-1, ::2], k), numpy.diag(a[::-1, ::2], k), device=device)
    v = a[0]
    assert_close(ruda.diag(ruda.asarray(v, device=device), k), numpy.diag(v, k), device=device)
    assert_close(ruda.diag(x[1, ::-2], k), numpy.diag(a[1, ::-2], k), device=device)
